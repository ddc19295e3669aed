/*
 * petsc_cg.c -- FP64 PCG + Jacobi of libpacksell against PETSc's KSPCG +
 * PCJACOBI on the same matrix, right-hand side and stopping rule, in one
 * process, on the same CSR arrays.
 *
 * It needs PETSc, so the project's build leaves it out; build and run it with
 * bench/run_petsc_compare.sh (plain cc with PETSc's pkg-config flags).
 * Build with -DPETSC_CG_NO_OURS to time the PETSc half alone against a
 * libpacksell without the solver layer.
 *
 * Usage: petsc_cg MATRIX [--rhs FILE] [--seed S] [--tol T] [--max-iters N]
 *                        [--rounds R] [--spmv K] [--petsc-only] [--json FILE]
 *   MATRIX  a generator spec (gen:hpcg:X:Y:Z, ...) or a Matrix Market file,
 *           opened with psl_matrix_open
 *   b       read with --rhs, else uniform in [0,1) from splitmix64 seeded
 *           with S (default 1): state += 0x9e3779b97f4a7c15, mix, top 53
 *           bits times 2^-53; x0 = 0
 *
 * Three solvers, each R times (default 3) in alternation, median reported:
 *   petsc      KSPCG + PCJACOBI, KSP_NORM_UNPRECONDITIONED, rtol = tol,
 *              atol = 0, dtol 1e300: stops when the recursive ||r||/||b|| <
 *              tol. KSPSolve timed alone; PCSetUp and KSPSetUp timed before.
 *   psl_solve  psl_solve, CG, Jacobi, no scaling, CPU, recursive_stop = 1
 *              (the same rule as PETSc's); its solve_seconds and wall time.
 *   psl_cg     psl_exec_create_cpu, psl_op_matrix, psl_precond_jacobi,
 *              psl_solver_create(CG) once; psl_solver_solve timed alone.
 * Every x gets its true residual ||b - A x||_2 / ||b||_2 from the plain FP64
 * CSR loop below. Each round also times K (default 20) products y = A x
 * alone, PETSc's MatMult and our FP64 CSR operator's apply, to split the
 * time of an iteration into its SpMV and the rest, and the thread CPU time
 * of the solves (the figure that holds on a shared machine, with one
 * thread). PETSc's SeqAIJ and vector kernels are single-threaded (Debian's
 * build has no OpenMP; VecDot/VecAXPY call the system BLAS); ours use
 * OMP_NUM_THREADS threads (printed).
 */
#include <petscksp.h>

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "packsell.h"

#define MAX_ROUNDS 101

typedef struct side {
    const char *name;    /* petsc, psl_solve, psl_cg */
    int ran;
    int32_t iters[MAX_ROUNDS];
    double secs[MAX_ROUNDS];      /* solve time of each round */
    double wall[MAX_ROUNDS];      /* psl_solve: the whole call */
    double true_rel[MAX_ROUNDS];  /* from the CSR loop below */
    double rec_rel[MAX_ROUNDS];   /* what the solver's recurrence reached */
    const char *reason;
    double setup[2];              /* petsc: PCSetUp, KSPSetUp; psl_cg: operators, solver */
    double setup_solve[4];        /* psl_solve: scale, convert, precond, upload (median round) */
    double spmv[MAX_ROUNDS];      /* petsc, psl_cg: seconds of one SpMV alone */
    double cpu[MAX_ROUNDS];       /* petsc, psl_cg: thread CPU seconds of the solve */
    double spmv_cpu[MAX_ROUNDS];  /* and of one SpMV */
} side;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the calling thread: with one OpenMP thread all of a solve's
 * work runs on it, so on a shared machine this is the time the solve itself
 * took, free of the time other processes held the core. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double t[MAX_ROUNDS];
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Index of the round whose solve time is the median (the lower one for even R). */
static int median_round(const double *v, int n)
{
    double m = median(v, n);
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(v[i] - m) < fabs(v[best] - m))
            best = i;
    return best;
}

/* Uniform in [0,1): splitmix64, the top 53 bits. */
static double uniform01(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

/* ||b - A x||_2 / ||b||_2 by the plainest FP64 CSR loop. */
static double true_relres(int32_t n, const int64_t *rp, const int32_t *ci, const double *v,
                          const double *b, const double *x)
{
    double rr = 0.0, bb = 0.0;
    for (int32_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            s += v[k] * x[ci[k]];
        double r = b[i] - s;
        rr += r * r;
        bb += b[i] * b[i];
    }
    return sqrt(rr) / sqrt(bb);
}

#define PCHK(call)                                                                      \
    do {                                                                                \
        PetscErrorCode e_ = (call);                                                     \
        if (e_) {                                                                       \
            fprintf(stderr, "petsc_cg: %s failed with PETSc error %d\n", #call, (int)e_); \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

#define LCHK(call)                                                                       \
    do {                                                                                 \
        psl_status s_ = (call);                                                          \
        if (s_ != PSL_OK) {                                                              \
            fprintf(stderr, "petsc_cg: %s: %s: %s\n", #call, psl_status_string(s_),      \
                    psl_last_error_message());                                           \
            goto fail;                                                                   \
        }                                                                                \
    } while (0)

typedef struct problem {
    const char *source;
    int32_t n;
    int64_t nnz;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    const psl_matrix *A;
    const double *b;
    double tol;
    int32_t max_iters;
    int rounds;
    int spmv_reps;
} problem;

/* PETSc's state across rounds. */
typedef struct petsc_side {
    Mat A;
    Vec b, x;
    KSP ksp;
    PetscInt *ia, *ja;  /* row pointers (and columns if PetscInt is not 32-bit) */
} petsc_side;

static int petsc_setup(const problem *p, petsc_side *ps, side *out)
{
    PC pc;
    PetscScalar *a;
    if (p->nnz > (int64_t)PETSC_MAX_INT) {
        fprintf(stderr, "petsc_cg: %lld nonzeros exceed this PETSc's %d-bit PetscInt\n",
                (long long)p->nnz, (int)(8 * sizeof(PetscInt)));
        return -1;
    }
    ps->ia = malloc((size_t)(p->n + 1) * sizeof *ps->ia);
    if (!ps->ia)
        return -1;
    for (int32_t i = 0; i <= p->n; i++)
        ps->ia[i] = (PetscInt)p->rp[i];
    if (sizeof(PetscInt) == sizeof(int32_t)) {
        ps->ja = NULL; /* PETSc reads libpacksell's column array itself */
    } else {
        ps->ja = malloc((size_t)(p->nnz > 0 ? p->nnz : 1) * sizeof *ps->ja);
        if (!ps->ja)
            return -1;
        for (int64_t k = 0; k < p->nnz; k++)
            ps->ja[k] = (PetscInt)p->ci[k];
    }
    /* The arrays are shared, not copied: PETSc does not write them (no
     * MatSetValues, Jacobi only reads the diagonal). */
    PCHK(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, p->n, p->n, ps->ia,
                                   ps->ja ? ps->ja : (PetscInt *)(uintptr_t)p->ci,
                                   (PetscScalar *)(uintptr_t)p->v, &ps->A));
    /* One line on the matrix's kernel: whether SeqAIJ found I-nodes (rows of
     * the same pattern multiplied together). */
    PCHK(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
    PCHK(MatView(ps->A, PETSC_VIEWER_STDOUT_SELF));
    PCHK(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
    PCHK(MatCreateVecs(ps->A, &ps->x, &ps->b));
    PCHK(VecGetArray(ps->b, &a));
    memcpy(a, p->b, (size_t)p->n * sizeof *a);
    PCHK(VecRestoreArray(ps->b, &a));
    PCHK(KSPCreate(PETSC_COMM_SELF, &ps->ksp));
    PCHK(KSPSetOperators(ps->ksp, ps->A, ps->A));
    PCHK(KSPSetType(ps->ksp, KSPCG));
    PCHK(KSPGetPC(ps->ksp, &pc));
    PCHK(PCSetType(pc, PCJACOBI));
    PCHK(KSPSetNormType(ps->ksp, KSP_NORM_UNPRECONDITIONED));
    PCHK(KSPSetTolerances(ps->ksp, p->tol, 0.0, 1e300, p->max_iters));
    PCHK(KSPSetInitialGuessNonzero(ps->ksp, PETSC_FALSE));
    double t0 = now();
    PCHK(PCSetUp(pc));
    double t1 = now();
    PCHK(KSPSetUp(ps->ksp));
    double t2 = now();
    out->setup[0] = t1 - t0;
    out->setup[1] = t2 - t1;
    return 0;
fail:
    return -1;
}

static int petsc_round(const problem *p, petsc_side *ps, side *out, int r)
{
    PetscInt its;
    PetscReal rnorm;
    KSPConvergedReason why;
    const PetscScalar *xa;
    PCHK(VecSet(ps->x, 0.0));
    double c0 = cpu_now(), t0 = now();
    PCHK(KSPSolve(ps->ksp, ps->b, ps->x));
    double t1 = now();
    out->cpu[r] = cpu_now() - c0;
    PCHK(KSPGetIterationNumber(ps->ksp, &its));
    PCHK(KSPGetResidualNorm(ps->ksp, &rnorm));
    PCHK(KSPGetConvergedReason(ps->ksp, &why));
    PCHK(VecGetArrayRead(ps->x, &xa));
    out->true_rel[r] = true_relres(p->n, p->rp, p->ci, p->v, p->b, xa);
    PCHK(VecRestoreArrayRead(ps->x, &xa));
    double bn = 0.0;
    for (int32_t i = 0; i < p->n; i++)
        bn += p->b[i] * p->b[i];
    out->iters[r] = (int32_t)its;
    out->secs[r] = t1 - t0;
    out->rec_rel[r] = (double)rnorm / sqrt(bn);
    out->reason = KSPConvergedReasons[why];
    out->ran = 1;
    out->spmv[r] = 0.0;
    if (p->spmv_reps > 0) {
        double c1 = cpu_now(), s0 = now();
        for (int k = 0; k < p->spmv_reps; k++)
            PCHK(MatMult(ps->A, ps->b, ps->x));
        out->spmv[r] = (now() - s0) / p->spmv_reps;
        out->spmv_cpu[r] = (cpu_now() - c1) / p->spmv_reps;
    }
    return 0;
fail:
    return -1;
}

static void petsc_teardown(petsc_side *ps)
{
    KSPDestroy(&ps->ksp);
    VecDestroy(&ps->x);
    VecDestroy(&ps->b);
    MatDestroy(&ps->A);
    free(ps->ia);
    free(ps->ja);
}

#ifndef PETSC_CG_NO_OURS
/* The low-level path's state across rounds. */
typedef struct ours_side {
    psl_exec *ex;
    psl_op *A, *M;
    psl_solver *s;
    psl_vec *b, *x;
    double *xbuf;
} ours_side;

static int ours_setup(const problem *p, ours_side *os, side *out)
{
    psl_solver_options so;
    os->xbuf = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof *os->xbuf);
    if (!os->xbuf)
        return -1;
    double t0 = now();
    LCHK(psl_exec_create_cpu(&os->ex));
    LCHK(psl_op_matrix(&os->A, os->ex, p->A, PSL_FP64));
    LCHK(psl_precond_jacobi(&os->M, os->ex, p->A, PSL_FP64));
    double t1 = now();
    psl_solver_options_init(&so);
    so.vec_type = PSL_FP64;
    so.dot_acc = PSL_FP64;
    so.tol = p->tol;
    so.max_iters = p->max_iters;
    so.recursive_stop = 1;
    LCHK(psl_solver_create(&os->s, PSL_METHOD_CG, os->A, os->M, &so));
    LCHK(psl_vec_wrap(&os->b, os->ex, p->n, PSL_FP64, (void *)(uintptr_t)p->b, PSL_MEM_VIEW));
    LCHK(psl_vec_wrap(&os->x, os->ex, p->n, PSL_FP64, os->xbuf, PSL_MEM_VIEW));
    double t2 = now();
    out->setup[0] = t1 - t0;
    out->setup[1] = t2 - t1;
    return 0;
fail:
    return -1;
}

static int ours_round(const problem *p, ours_side *os, side *out, int r)
{
    psl_solve_result res;
    LCHK(psl_vec_fill(os->x, 0.0));
    double c0 = cpu_now(), t0 = now();
    psl_status st = psl_solver_solve(os->s, os->b, os->x, &res);
    double t1 = now();
    out->cpu[r] = cpu_now() - c0;
    if (st != PSL_OK && st != PSL_ERR_NOT_CONVERGED && st != PSL_ERR_BREAKDOWN)
        LCHK(st);
    out->iters[r] = res.iterations;
    out->secs[r] = t1 - t0;
    out->wall[r] = res.seconds;
    out->true_rel[r] = true_relres(p->n, p->rp, p->ci, p->v, p->b, os->xbuf);
    out->rec_rel[r] = res.relres_recursive;
    out->reason = psl_reason_name(res.reason);
    out->ran = 1;
    out->spmv[r] = 0.0;
    if (p->spmv_reps > 0) {
        double c1 = cpu_now(), s0 = now();
        for (int k = 0; k < p->spmv_reps; k++)
            LCHK(psl_op_apply(os->A, 1.0, os->b, 0.0, os->x));
        out->spmv[r] = (now() - s0) / p->spmv_reps;
        out->spmv_cpu[r] = (cpu_now() - c1) / p->spmv_reps;
    }
    return 0;
fail:
    return -1;
}

static void ours_teardown(ours_side *os)
{
    psl_vec_destroy(&os->x);
    psl_vec_destroy(&os->b);
    psl_solver_destroy(&os->s);
    psl_op_destroy(&os->M);
    psl_op_destroy(&os->A);
    psl_exec_destroy(&os->ex);
    free(os->xbuf);
}

static int solve_round(const problem *p, side *out, int r)
{
    psl_solve_config cfg;
    psl_solve_report rep;
    double *x = calloc((size_t)(p->n > 0 ? p->n : 1), sizeof *x);
    if (!x)
        return -1;
    psl_solve_config_init(&cfg);
    cfg.method = PSL_SOLVE_CG;
    cfg.precond = PSL_PRECOND_JACOBI;
    cfg.scale = 0;
    cfg.device = -1;
    cfg.solver.vec_type = PSL_FP64;
    cfg.solver.dot_acc = PSL_FP64;
    cfg.solver.tol = p->tol;
    cfg.solver.max_iters = p->max_iters;
    cfg.solver.recursive_stop = 1;
    double t0 = now();
    psl_status st = psl_solve(p->A, p->b, x, &cfg, &rep);
    double t1 = now();
    if (st != PSL_OK && st != PSL_ERR_NOT_CONVERGED && st != PSL_ERR_BREAKDOWN)
        LCHK(st);
    out->iters[r] = rep.result.iterations;
    out->secs[r] = rep.solve_seconds;
    out->wall[r] = t1 - t0;
    out->true_rel[r] = true_relres(p->n, p->rp, p->ci, p->v, p->b, x);
    out->rec_rel[r] = rep.result.relres_recursive;
    out->reason = psl_reason_name(rep.result.reason);
    out->setup_solve[0] = rep.scale_seconds;
    out->setup_solve[1] = rep.convert_seconds;
    out->setup_solve[2] = rep.precond_seconds;
    out->setup_solve[3] = rep.upload_seconds;
    out->ran = 1;
    free(x);
    return 0;
fail:
    free(x);
    return -1;
}
#endif

static void usage(void)
{
    fprintf(stderr,
            "usage: petsc_cg MATRIX [--rhs FILE] [--seed S] [--tol T] [--max-iters N]\n"
            "                [--rounds R] [--petsc-only] [--json FILE]\n"
            "  MATRIX  gen:hpcg:X:Y:Z (any psl_generate spec) or a Matrix Market file\n"
            "  --rhs   b from a Matrix Market vector (default: uniform [0,1), --seed, default 1)\n"
            "  --tol   relative residual (default 1e-9); --max-iters (default 10000)\n"
            "  --rounds R  alternating rounds, the median reported (default 3, at most %d)\n"
            "  --spmv K    SpMVs timed alone per round and side (default 20; 0: none)\n"
            "  --petsc-only  time PETSc alone\n",
            MAX_ROUNDS);
}

static void json_side(FILE *f, const side *s, int rounds, double petsc_per_iter, int last)
{
    int m = median_round(s->secs, rounds);
    double med = median(s->secs, rounds);
    double per = s->iters[m] > 0 ? med / s->iters[m] : 0.0;
    fprintf(f, "    \"%s\": {\"iterations\": %d, \"reason\": \"%s\", \"solve_s_median\": %.6e, "
               "\"s_per_iter\": %.6e, \"ratio_per_iter_vs_petsc\": %.4f, "
               "\"true_relres\": %.6e, \"recursive_relres\": %.6e,\n      \"solve_s\": [",
            s->name, s->iters[m], s->reason ? s->reason : "?", med, per,
            petsc_per_iter > 0 ? per / petsc_per_iter : 0.0, s->true_rel[m], s->rec_rel[m]);
    for (int r = 0; r < rounds; r++)
        fprintf(f, "%s%.6e", r ? ", " : "", s->secs[r]);
    fprintf(f, "], \"iterations_each\": [");
    for (int r = 0; r < rounds; r++)
        fprintf(f, "%s%d", r ? ", " : "", s->iters[r]);
    fprintf(f, "]");
    if (strcmp(s->name, "psl_solve"))
        fprintf(f, ", \"spmv_s_median\": %.6e, \"cpu_s_median\": %.6e, \"cpu_s_per_iter\": %.6e, "
                   "\"spmv_cpu_s_median\": %.6e",
                median(s->spmv, rounds), median(s->cpu, rounds),
                s->iters[m] > 0 ? median(s->cpu, rounds) / s->iters[m] : 0.0,
                median(s->spmv_cpu, rounds));
    if (!strcmp(s->name, "petsc"))
        fprintf(f, ", \"pcsetup_s\": %.6e, \"kspsetup_s\": %.6e", s->setup[0], s->setup[1]);
    else if (!strcmp(s->name, "psl_cg"))
        fprintf(f, ", \"setup_ops_s\": %.6e, \"setup_solver_s\": %.6e", s->setup[0], s->setup[1]);
    else
        fprintf(f, ", \"call_wall_s_median\": %.6e, \"scale_s\": %.6e, \"convert_s\": %.6e, "
                   "\"precond_s\": %.6e",
                median(s->wall, rounds), s->setup_solve[0], s->setup_solve[1], s->setup_solve[2]);
    fprintf(f, "}%s\n", last ? "" : ",");
}

int main(int argc, char **argv)
{
    const char *source = NULL, *rhs = NULL, *json = NULL;
    uint64_t seed = 1;
    double tol = 1e-9;
    long max_iters = 10000, rounds = 3, spmv_reps = 20;
    int petsc_only = 0, rc = 1, petsc_up = 0;
    psl_matrix *A = NULL;
    double *b = NULL;
    petsc_side ps;
    side sides[3];
    memset(&ps, 0, sizeof ps);
    memset(sides, 0, sizeof sides);
    sides[0].name = "petsc";
    sides[1].name = "psl_solve";
    sides[2].name = "psl_cg";
#ifdef PETSC_CG_NO_OURS
    petsc_only = 1;
    (void)petsc_only;
#endif

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        char *end = NULL;
        if (!strcmp(a, "--rhs") && more) {
            rhs = argv[++i];
        } else if (!strcmp(a, "--json") && more) {
            json = argv[++i];
        } else if (!strcmp(a, "--seed") && more) {
            seed = strtoull(argv[++i], &end, 10);
        } else if (!strcmp(a, "--tol") && more) {
            tol = strtod(argv[++i], &end);
            if (!(tol > 0.0))
                end = argv[i];
        } else if (!strcmp(a, "--max-iters") && more) {
            max_iters = strtol(argv[++i], &end, 10);
            if (max_iters < 1 || max_iters > INT32_MAX)
                end = argv[i];
        } else if (!strcmp(a, "--rounds") && more) {
            rounds = strtol(argv[++i], &end, 10);
            if (rounds < 1 || rounds > MAX_ROUNDS)
                end = argv[i];
        } else if (!strcmp(a, "--spmv") && more) {
            spmv_reps = strtol(argv[++i], &end, 10);
            if (spmv_reps < 0 || spmv_reps > 100000)
                end = argv[i];
        } else if (!strcmp(a, "--petsc-only")) {
            petsc_only = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return 0;
        } else if (a[0] != '-' && !source) {
            source = a;
        } else {
            fprintf(stderr, "petsc_cg: unknown or incomplete option '%s'\n", a);
            usage();
            return 2;
        }
        if (end && *end) {
            fprintf(stderr, "petsc_cg: bad value '%s' for %s\n", argv[i], argv[i - 1]);
            return 2;
        }
    }
    if (!source) {
        usage();
        return 2;
    }

    double t0 = now();
    psl_status st = psl_matrix_open(&A, source);
    if (st != PSL_OK) {
        fprintf(stderr, "petsc_cg: %s: %s\n", source, psl_last_error_message());
        return 1;
    }
    double t_open = now() - t0;
    psl_matrix_info info;
    problem p;
    memset(&p, 0, sizeof p);
    LCHK(psl_matrix_get_info(A, &info));
    LCHK(psl_matrix_csr_view(A, &p.rp, &p.ci, &p.v));
    if (info.nrows != info.ncols) {
        fprintf(stderr, "petsc_cg: %s is %d x %d, not square\n", source, info.nrows, info.ncols);
        goto fail;
    }
    p.source = source;
    p.A = A;
    p.n = info.nrows;
    p.nnz = info.nnz;
    p.tol = tol;
    p.max_iters = (int32_t)max_iters;
    p.rounds = (int)rounds;
    p.spmv_reps = (int)spmv_reps;
    if (rhs) {
        int64_t nb = 0;
        LCHK(psl_mm_read_vector(rhs, &b, &nb));
        if (nb != p.n) {
            fprintf(stderr, "petsc_cg: %s has %lld entries, the matrix %d rows\n", rhs,
                    (long long)nb, p.n);
            goto fail;
        }
    } else {
        b = malloc((size_t)(p.n > 0 ? p.n : 1) * sizeof *b);
        if (!b)
            goto fail;
        uint64_t s = seed;
        for (int32_t i = 0; i < p.n; i++)
            b[i] = uniform01(&s);
    }
    p.b = b;

    PCHK(PetscInitializeNoArguments());
    petsc_up = 1;
    char petsc_version[128];
    PCHK(PetscGetVersion(petsc_version, sizeof petsc_version));

    printf("matrix %s: n = %d, nnz = %lld (opened in %.2f s)\n", source, p.n, (long long)p.nnz,
           t_open);
    printf("b: %s; x0 = 0; tol %.1e on the recursive residual; max %ld iterations; %ld rounds\n",
           rhs ? rhs : "uniform [0,1), splitmix64", tol, max_iters, rounds);
    printf("%s (PetscInt %d-bit, SeqAIJ, 1 thread); libpacksell %s, %d OpenMP threads\n",
           petsc_version, (int)(8 * sizeof(PetscInt)), psl_version(), omp_get_max_threads());

    if (petsc_setup(&p, &ps, &sides[0]))
        goto fail;
#ifndef PETSC_CG_NO_OURS
    ours_side os;
    memset(&os, 0, sizeof os);
    if (!petsc_only && ours_setup(&p, &os, &sides[2]))
        goto fail_ours;
#endif
    for (int r = 0; r < p.rounds; r++) {
        if (petsc_round(&p, &ps, &sides[0], r))
            goto fail_ours;
#ifndef PETSC_CG_NO_OURS
        if (!petsc_only && (solve_round(&p, &sides[1], r) || ours_round(&p, &os, &sides[2], r)))
            goto fail_ours;
#endif
        fflush(stdout);
    }

    int mp = median_round(sides[0].secs, p.rounds);
    double petsc_per = sides[0].iters[mp] > 0 ? median(sides[0].secs, p.rounds) / sides[0].iters[mp]
                                              : 0.0;
    printf("\n%-10s %6s %10s %9s %9s %9s %9s %11s %11s  %s\n", "solver", "iters", "solve_s",
           "ms/iter", "vs_petsc", "spmv_ms", "rest_ms", "true_relres", "rec_relres", "reason");
    for (int k = 0; k < 3; k++) {
        const side *s = &sides[k];
        if (!s->ran)
            continue;
        int m = median_round(s->secs, p.rounds);
        double med = median(s->secs, p.rounds);
        double per = s->iters[m] > 0 ? med / s->iters[m] : 0.0;
        /* psl_solve's SpMV is psl_cg's (the same operator on the same matrix) */
        double sp = median(sides[k == 1 ? 2 : k].spmv, p.rounds);
        if (sp > 0.0 && sides[k == 1 ? 2 : k].ran)
            printf("%-10s %6d %10.4f %9.4f %9.3f %9.4f %9.4f %11.3e %11.3e  %s\n", s->name,
                   s->iters[m], med, 1e3 * per, petsc_per > 0 ? per / petsc_per : 0.0, 1e3 * sp,
                   1e3 * (per - sp), s->true_rel[m], s->rec_rel[m], s->reason);
        else
            printf("%-10s %6d %10.4f %9.4f %9.3f %9s %9s %11.3e %11.3e  %s\n", s->name,
                   s->iters[m], med, 1e3 * per, petsc_per > 0 ? per / petsc_per : 0.0, "-", "-",
                   s->true_rel[m], s->rec_rel[m], s->reason);
    }
    if (sides[2].ran) {
        /* thread CPU time per iteration, the figure that holds on a loaded machine */
        double cp = median(sides[0].cpu, p.rounds) / sides[0].iters[mp];
        int mo = median_round(sides[2].secs, p.rounds);
        double co = median(sides[2].cpu, p.rounds) / sides[2].iters[mo];
        printf("thread CPU ms/iter%s: petsc %.4f (spmv %.4f), psl_cg %.4f (spmv %.4f), "
               "psl_cg/petsc %.3f\n",
               omp_get_max_threads() == 1 ? "" : " (ours: the main thread only, not comparable)",
               1e3 * cp, 1e3 * median(sides[0].spmv_cpu, p.rounds), 1e3 * co,
               1e3 * median(sides[2].spmv_cpu, p.rounds), cp > 0 ? co / cp : 0.0);
    }
    printf("setup: PETSc PCSetUp %.4f s, KSPSetUp %.4f s", sides[0].setup[0], sides[0].setup[1]);
    if (sides[2].ran)
        printf("; psl_cg operators + Jacobi %.4f s, solver %.4f s", sides[2].setup[0],
               sides[2].setup[1]);
    if (sides[1].ran)
        printf("; psl_solve call %.4f s (convert %.4f, precond %.4f)",
               median(sides[1].wall, p.rounds), sides[1].setup_solve[1], sides[1].setup_solve[2]);
    printf("\nsolve_s: median of %d rounds (psl_solve: its solve_seconds; psl_cg: psl_solver_solve "
           "wall; petsc: KSPSolve wall); spmv_ms: one y = A x alone (median of %d rounds of %d); "
           "rest_ms = ms/iter - spmv_ms\n",
           p.rounds, p.rounds, p.spmv_reps);

    if (json) {
        FILE *f = fopen(json, "w");
        if (!f) {
            fprintf(stderr, "petsc_cg: cannot write %s\n", json);
            goto fail_ours;
        }
        fprintf(f, "{\n  \"matrix\": \"%s\", \"n\": %d, \"nnz\": %lld, \"rhs\": \"%s\", "
                   "\"seed\": %llu, \"tol\": %.3e, \"max_iters\": %ld, \"rounds\": %ld, "
                   "\"spmv_reps\": %ld,\n"
                   "  \"petsc_version\": \"%s\", \"petsc_int_bits\": %d, \"petsc_threads\": 1, "
                   "\"packsell_version\": \"%s\", \"omp_threads\": %d,\n  \"solvers\": {\n",
                source, p.n, (long long)p.nnz, rhs ? rhs : "uniform01-splitmix64",
                (unsigned long long)seed, tol, max_iters, rounds, spmv_reps, petsc_version,
                (int)(8 * sizeof(PetscInt)), psl_version(), omp_get_max_threads());
        int last = 0;
        for (int k = 0; k < 3; k++)
            if (sides[k].ran)
                last = k;
        for (int k = 0; k < 3; k++)
            if (sides[k].ran)
                json_side(f, &sides[k], p.rounds, petsc_per, k == last);
        fprintf(f, "  }\n}\n");
        fclose(f);
    }
    rc = 0;

fail_ours:
#ifndef PETSC_CG_NO_OURS
    ours_teardown(&os);
#endif
fail:
    if (petsc_up) {
        petsc_teardown(&ps);
        PetscFinalize();
    }
    if (rhs)
        psl_free(b);
    else
        free(b);
    psl_matrix_destroy(&A);
    return rc;
}
