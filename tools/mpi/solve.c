/*
 * solve.c -- `mpirun -np N packsell solve MATRIX ...`: the serial solve's
 * command line (solve_parse), the distributed matrix (generated per rank
 * or scattered from rank 0), and the library's solvers run unchanged on it
 * through the distributed operator layer: an executor whose reductions are
 * sums over the ranks (psl_dist_exec_attach), the matrix as an operator
 * (psl_dist_op_create), its Jacobi or block SD-AINV (psl_dist_precond_*),
 * and for f3r FGMRES(m1) over F3R's layers 2-4 (psl_dist_precond_f3r). The
 * matrix is built once in FP64 CSR and its other storages converted from it
 * over the same halo plan. b is drawn by natural row as the serial command
 * draws it; setup and solve are timed apart (the slowest rank's time), with
 * each rank's split of the SpMV and reduction phases.
 */
#include "cli_mpi.h"
#include "../solve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one rank builds for a solve. */
typedef struct dist_solve {
    psl_dist_matrix *A;    /* the outer matrix, in --format's storage */
    psl_dist_matrix *Ain;  /* iocg: the inner matrix (--inner-format) */
    psl_dist_matrix *A64;  /* FP64 CSR: the source of the others, the true
                              residual's, SD-AINV's and F3R's (NULL: A is it) */
    psl_exec *ex;
    psl_op *op, *Rop, *M, *inop, *inM;
    psl_solver *inner, *s;
    psl_vec *b, *x;
} dist_solve;

static void dist_solve_free(dist_solve *d)
{
    psl_vec_destroy(&d->b);
    psl_vec_destroy(&d->x);
    psl_solver_destroy(&d->s);
    psl_solver_destroy(&d->inner);
    psl_op_destroy(&d->M);
    psl_op_destroy(&d->inM);
    psl_op_destroy(&d->op);
    psl_op_destroy(&d->Rop);
    psl_op_destroy(&d->inop);
    psl_exec_destroy(&d->ex);
    psl_dist_matrix_destroy(&d->A);
    psl_dist_matrix_destroy(&d->Ain);
    psl_dist_matrix_destroy(&d->A64);
}

/* The library's method of a --method (f3r: FGMRES over its layers). */
static psl_method method_of(psl_solve_method m)
{
    switch (m) {
    case PSL_SOLVE_FCG: return PSL_METHOD_FCG;
    case PSL_SOLVE_IOCG: return PSL_METHOD_FCG; /* over the inner FP32 PCG */
    case PSL_SOLVE_GMRES: return PSL_METHOD_GMRES;
    case PSL_SOLVE_FGMRES: return PSL_METHOD_FGMRES;
    case PSL_SOLVE_BICGSTAB: return PSL_METHOD_BICGSTAB;
    case PSL_SOLVE_F3R: return PSL_METHOD_FGMRES; /* over F3R's layers 2-4 */
    default: return PSL_METHOD_CG;
    }
}

/* The options the distributed solve refuses: the same verdict on every
 * rank (the same command line). */
static int refuse(const char *cmd, const solve_args *a)
{
    const char *off = a->rhs ? "--rhs" : a->out ? "--output" : a->history ? "--history"
                    : a->cache ? "--sdainv-cache" : NULL;
    if (off)
        return cli_usage_error(cmd, "%s is not available under MPI", off);
    return CLI_OK;
}

/* The outer matrix's storage as the serial solve picks it: --format's, or
 * CSR with the vectors' values; FP32 vectors take FP32 CSR values. */
static psl_convert_options outer_storage(const psl_solve_config *c)
{
    psl_convert_options o;
    psl_scalar t = c->solver.vec_type;
    if (c->storage_auto) { /* as psl_solve: CSR on the CPU, SELL on CUDA */
        psl_convert_options_init(&o);
        if (c->device >= 0)
            o.format = PSL_FORMAT_SELL;
        o.value_type = t;
    } else {
        o = c->storage;
        if (t == PSL_FP32 && o.format == PSL_FORMAT_CSR && o.value_type == PSL_FP64)
            o.value_type = PSL_FP32;
    }
    return o;
}

static int is_fp64_csr(const psl_convert_options *o)
{
    return o->format == PSL_FORMAT_CSR && o->value_type == PSL_FP64;
}

/* The matrices of this rank: the FP64 CSR matrix generated or scattered
 * once, the outer (and IOCG's inner) storage converted from it over its
 * halo plan. Collective; returns the exit status, *seconds the slowest
 * rank's time. */
static int matrices(const char *cmd, const solve_args *a, cli_dist_source *src, dist_solve *d,
                    double *seconds)
{
    const psl_solve_config *c = &a->cfg;
    psl_convert_options so = outer_storage(c);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t1 = 0;
    int rc = cli_mpi_lib(cmd, cli_dist_build(cmd, src, NULL, NULL, &d->A64, &t1));
    if (rc == CLI_OK && is_fp64_csr(&so)) {
        d->A = d->A64;
        d->A64 = NULL;
    } else if (rc == CLI_OK) {
        rc = cli_mpi_lib(cmd, psl_dist_matrix_convert(&d->A, d->A64, &so, &so));
    }
    if (rc == CLI_OK && c->method == PSL_SOLVE_IOCG)
        rc = cli_mpi_lib(cmd, psl_dist_matrix_convert(&d->Ain, d->A64 ? d->A64 : d->A,
                                                      &c->inner_storage, &c->inner_storage));
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return rc;
}

/* The preconditioner of kind c->precond of the FP64 CSR matrix csr in
 * vectors of type t (factors stored as *storage); CG's Jacobi positive, the
 * others' any nonzero, as the serial solve. Collective. */
static psl_status precond(const psl_solve_config *c, psl_exec *ex, const psl_dist_matrix *csr,
                          psl_scalar t, const psl_convert_options *storage, psl_op **M)
{
    const int spd = c->method == PSL_SOLVE_CG || c->method == PSL_SOLVE_FCG ||
                    c->method == PSL_SOLVE_IOCG;
    switch (c->precond) {
    case PSL_PRECOND_JACOBI:
        return spd ? psl_dist_precond_jacobi(M, ex, csr, t)
                   : psl_dist_precond_jacobi_general(M, ex, csr, t);
    case PSL_PRECOND_SDAINV:
        return psl_dist_precond_sdainv(M, ex, csr, &c->sdainv, storage, t);
    default: *M = NULL; return PSL_OK;
    }
}

/* The matrices, operators, preconditioners and solvers of this rank
 * (collective: the matrices' creation is agreed by the library, the rest
 * is agreed here). Returns the exit status; *matrix_s and *setup_s get the
 * matrices' and the rest's times (the slowest rank's). */
static int setup(const char *cmd, const solve_args *a, cli_dist_source *src, dist_solve *d,
                 double *matrix_s, double *setup_s)
{
    const psl_solve_config *c = &a->cfg;
    const psl_scalar t = c->solver.vec_type;
    psl_convert_options so = outer_storage(c);
    int rc = matrices(cmd, a, src, d, matrix_s);
    if (rc)
        return rc;
    const int exact = t == PSL_FP64 && so.format != PSL_FORMAT_PACKSELL &&
                      so.value_type == PSL_FP64;
    if (exact && c->method != PSL_SOLVE_F3R && c->precond != PSL_PRECOND_SDAINV)
        psl_dist_matrix_destroy(&d->A64); /* not needed past the conversions */
    /* FP64 CSR (Jacobi, which reads the diagonal only, takes any storage) */
    const psl_dist_matrix *csr = d->A64 ? d->A64 : d->A;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    psl_status st = PSL_OK;
    if (c->device >= 0) { /* each rank's GPU: its node-local rank modulo the GPUs */
        psl_dist_matrix *m[3] = {d->A, exact ? NULL : d->A64, d->Ain};
        for (int i = 0; i < 3 && st == PSL_OK; i++)
            if (m[i])
                st = psl_dist_matrix_upload(m[i], -1, PSL_DIST_TRANSPORT_AUTO, NULL);
        int dev = -1;
        if (st == PSL_OK)
            st = psl_dist_matrix_device(d->A, &dev, NULL);
        if (st == PSL_OK)
            st = psl_exec_create_cuda(&d->ex, dev, NULL);
    } else {
        st = psl_exec_create_cpu(&d->ex);
    }
    if (st == PSL_OK)
        st = psl_dist_exec_attach(d->ex, d->A);
    if (st == PSL_OK)
        st = psl_dist_op_create(&d->op, d->ex, d->A, t);
    if (st == PSL_OK && !exact) /* the true residual in FP64 */
        st = psl_dist_op_create(&d->Rop, d->ex, csr, PSL_FP64);
    if ((rc = cli_mpi_lib(cmd, st)))
        return rc;
    /* the preconditioner (collective: its checks are agreed) */
    if (c->method == PSL_SOLVE_F3R)
        st = psl_dist_precond_f3r(&d->M, d->ex, csr, c);
    else if (d->Ain)
        st = precond(c, d->ex, csr, PSL_FP32, &c->inner_precond_storage, &d->inM);
    else
        st = precond(c, d->ex, csr, t, &c->precond_storage, &d->M);
    if ((rc = cli_mpi_lib(cmd, st)))
        return rc;
    psl_solver_options o = c->solver;
    o.residual_op = d->Rop;
    o.monitor = NULL;
    if (c->method == PSL_SOLVE_F3R)
        o.restart = c->f3r.m1;
    if (d->Ain) { /* iocg: FCG over inner_iters of FP32 PCG on the inner storage */
        psl_solver_options in;
        psl_solver_options_init(&in);
        in.vec_type = PSL_FP32;
        in.dot_acc = c->solver.dot_acc;
        in.fixed_iters = c->inner_iters;
        in.op_type = t;
        st = psl_dist_op_create(&d->inop, d->ex, d->Ain, PSL_FP32);
        if (st == PSL_OK)
            st = psl_solver_create(&d->inner, PSL_METHOD_CG, d->inop, d->inM, &in);
        if (st == PSL_OK)
            st = psl_solver_create(&d->s, PSL_METHOD_FCG, d->op, psl_solver_op(d->inner), &o);
    } else {
        st = psl_solver_create(&d->s, method_of(c->method), d->op, d->M, &o);
    }
    if ((rc = cli_mpi_lib(cmd, st)))
        return rc;
    double t4 = MPI_Wtime() - t0;
    MPI_Allreduce(&t4, setup_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return CLI_OK;
}

/* Each rank's split of the solve, gathered on rank 0. */
enum { S_ROWS, S_NNZ_D, S_NNZ_O, S_GHOST, S_NBRS, S_SPMVS, S_PACK, S_LOCAL, S_WAIT, S_REMOTE,
       S_REDUCTIONS, S_REDUCE, S_N };

/* Turn the timings of every matrix of d on/off; sum them into t. */
static void timings(dist_solve *d, int on, int reset, psl_dist_timings *t)
{
    psl_dist_matrix *m[3] = {d->A, d->Ain, d->A64};
    if (t)
        memset(t, 0, sizeof *t);
    for (int i = 0; i < 3; i++) {
        if (!m[i])
            continue;
        psl_dist_timings x;
        psl_dist_matrix_timings(m[i], &x, reset);
        if (t) {
            t->spmvs += x.spmvs;
            t->pack_s += x.pack_s;
            t->local_s += x.local_s;
            t->wait_s += x.wait_s;
            t->remote_s += x.remote_s;
            t->reductions += x.reductions;
            t->reduce_s += x.reduce_s;
        }
        psl_dist_matrix_set_timing(m[i], on);
    }
}

static int write_json(const char *cmd, const solve_args *a, const psl_dist_info *g,
                      const psl_solve_result *r, const char *status, double matrix_s,
                      double setup_s, double solve_s, const double *ranks)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, a->json, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    static const char *const keys[S_N] = {"rows", "nnz_d", "nnz_o", "ghosts", "neighbors",
                                          "spmvs", "pack_s", "local_s", "wait_s", "remote_s",
                                          "reductions", "allreduce_s"};
    const psl_solve_config *c = &a->cfg;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    solve_json_config(&j, a, g->n_global, g->nnz_global, 0, (psl_codec){0, 0});
    cli_json_string(&j, "status", status);
    cli_json_int(&j, "iterations", r->iterations);
    cli_json_int(&j, "inner_iterations", r->inner_iterations);
    cli_json_double(&j, "relres", r->relres);
    cli_json_double(&j, "relres_recursive", r->relres_recursive);
    cli_json_begin_object(&j, "setup_s");
    cli_json_double(&j, "matrix", matrix_s);
    cli_json_double(&j, "operators_and_solver", setup_s);
    cli_json_end_object(&j);
    cli_json_int(&j, "repeat", c->repeat);
    cli_json_double(&j, "solve_s", solve_s);
    cli_json_double(&j, "time_per_iteration_s", r->iterations > 0 ? solve_s / r->iterations : NAN);
    cli_json_begin_object(&j, "mpi");
    cli_json_int(&j, "nranks", cli_mpi_size);
    cli_mpi_json_ranks(&j, keys, S_N, ranks);
    cli_json_end_object(&j);
    cli_json_end_object(&j);
    fputc('\n', f);
    return cli_output_finish(cmd, &out, f, "cannot write --json", a->json);
}

static void print_outcome(const solve_args *a, const cli_dist_source *src, const psl_dist_info *g,
                          const psl_solve_result *r, const char *status, double matrix_s,
                          double setup_s, double solve_s, const double *ranks)
{
    if (cli_mpi_rank != 0)
        return;
    const psl_solve_config *c = &a->cfg;
    char how[256];
    cli_dist_describe(src, how, sizeof how);
    printf("matrix      %s: %lld rows, %lld nonzeros\n", a->matrix, (long long)g->n_global,
           (long long)g->nnz_global);
    printf("mpi         %d ranks; the matrix %s\n", cli_mpi_size, how);
    printf("solver      %s, precond %s%s, %s vectors, %s, unscaled (MPI)%s\n",
           a->method_name, c->precond == PSL_PRECOND_SDAINV && cli_mpi_size > 1 ? "block " : "",
           a->precond_name, psl_scalar_name(c->solver.vec_type),
           c->device >= 0 ? "cuda (each rank's GPU)" : "cpu",
           c->method == PSL_SOLVE_F3R && c->scale ? "; F3R's layers 2-4 on the scaled matrix" : "");
    if (c->method == PSL_SOLVE_IOCG)
        printf("inner       %s %s, %d iterations of FP32 PCG per outer iteration\n",
               a->inner_format_name, a->inner_values_name, c->inner_iters);
    printf("setup       matrices %.4f s (generate or scatter, blocks, halo plans), operators, "
           "preconditioner and solver %.4f s\n", matrix_s, setup_s);
    printf("solve       %.6f s%s, slowest rank (%.3e s per outer iteration)\n", solve_s,
           c->repeat > 1 ? " median" : "", r->iterations > 0 ? solve_s / r->iterations : 0.0);
    printf("iterations  %d outer, %lld inner\n", r->iterations, (long long)r->inner_iterations);
    printf("status      %s: relative residual %.3e (true, FP64; tol %.1e)\n", status, r->relres,
           c->solver.tol);
    printf("split       per rank, seconds in one more solve timed phase by phase\n");
    printf("    rank %9s %11s %10s %7s %5s %7s | %9s %9s %9s %9s %9s\n", "rows", "nnz_d", "nnz_o",
           "ghosts", "nbrs", "spmvs", "pack_s", "A_d_s", "wait_s", "A_o_s", "allred_s");
    for (int q = 0; q < cli_mpi_size; q++) {
        const double *f = ranks + (size_t)q * S_N;
        printf("    %4d %9.0f %11.0f %10.0f %7.0f %5.0f %7.0f | %9.6f %9.6f %9.6f %9.6f %9.6f\n",
               q, f[S_ROWS], f[S_NNZ_D], f[S_NNZ_O], f[S_GHOST], f[S_NBRS], f[S_SPMVS],
               f[S_PACK], f[S_LOCAL], f[S_WAIT], f[S_REMOTE], f[S_REDUCE]);
    }
}

int cli_mpi_solve(int argc, char **argv)
{
    const char *cmd = "solve";
    solve_args a;
    memset(&a, 0, sizeof a);
    int rc = solve_parse(argc, argv, &a);
    if (rc == CLI_HELP)
        return CLI_OK;
    if ((rc = cli_mpi_agree(cmd, rc,
                            rc && cli_mpi_rank > 0 ? "the command line was refused on this rank"
                                                   : NULL)))
        return rc;
    if ((rc = refuse(cmd, &a)))
        return rc;
    const psl_scalar t = a.cfg.solver.vec_type;
    cli_dist_source src;
    dist_solve d;
    memset(&d, 0, sizeof d);
    double *bh = NULL, *times = NULL, *ranks = NULL;
    int64_t *nat = NULL;
    double matrix_s = 0.0, setup_s = 0.0;
    if ((rc = cli_mpi_agree(cmd, cli_dist_open(cmd, a.matrix, &src), NULL)) != CLI_OK)
        goto done;
    if ((rc = setup(cmd, &a, &src, &d, &matrix_s, &setup_s)))
        goto done;
    psl_dist_info g;
    psl_dist_matrix_get_info(d.A, &g);
    int32_t n = g.nrows;
    bh = malloc((size_t)(n + 1) * sizeof *bh);
    nat = malloc((size_t)(n + 1) * sizeof *nat);
    times = malloc((size_t)a.cfg.repeat * sizeof *times);
    if (cli_mpi_rank == 0)
        ranks = calloc((size_t)cli_mpi_size * S_N, sizeof *ranks);
    int ok = bh && nat && times && (ranks || cli_mpi_rank > 0);
    if ((rc = cli_mpi_agree(cmd, ok ? CLI_OK : CLI_RUNTIME, "out of memory for the vectors")))
        goto done;
    /* b as the serial command draws it: uniform in [0, 1) by natural row */
    cli_dist_natural_rows(d.A, &src, nat);
    for (int32_t i = 0; i < n; i++)
        bh[i] = 0.5 * (cli_dist_uniform_at((uint64_t)a.seed, nat[i]) + 1.0);
    psl_status st = psl_vec_create(&d.b, d.ex, n, t);
    if (st == PSL_OK)
        st = psl_vec_set(d.b, bh);
    if (st == PSL_OK)
        st = psl_vec_create(&d.x, d.ex, n, t);
    if ((rc = cli_mpi_lib(cmd, st)))
        goto done;
    psl_solve_result res;
    memset(&res, 0, sizeof res);
    psl_dist_timings tm;
    /* the timed solves run untimed inside (the phase timers synchronise the
     * device); one more solve after them gives each rank's split */
    for (int32_t r = 0; r <= a.cfg.repeat; r++) {
        const int split = r == a.cfg.repeat;
        timings(&d, split, 1, NULL);
        st = psl_vec_fill(d.x, 0.0);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (st == PSL_OK)
            st = psl_solver_solve(d.s, d.b, d.x, &res);
        double dt = MPI_Wtime() - t0, slowest = 0.0;
        MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (!split)
            times[r] = slowest;
        if (st != PSL_OK && st != PSL_ERR_NOT_CONVERGED && st != PSL_ERR_BREAKDOWN)
            break;
    }
    timings(&d, 0, 0, &tm);
    /* the statuses of the solve are every rank's (its sums are global) */
    int solved = st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN;
    if ((rc = cli_mpi_lib(cmd, solved ? PSL_OK : st)))
        goto done;
    double solve_s = cli_median(times, a.cfg.repeat);
    double mine[S_N] = {(double)g.nrows, (double)g.nnz_d, (double)g.nnz_o, (double)g.nghost,
                        (double)g.recv_neighbors, (double)tm.spmvs, tm.pack_s, tm.local_s,
                        tm.wait_s, tm.remote_s, (double)tm.reductions, tm.reduce_s};
    MPI_Gather(mine, S_N, MPI_DOUBLE, ranks, S_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const char *status = psl_reason_name(res.reason);
    print_outcome(&a, &src, &g, &res, status, matrix_s, setup_s, solve_s, ranks);
    if (st != PSL_OK && cli_mpi_rank == 0)
        fprintf(stderr, "packsell solve: %s\n", psl_last_error_message());
    rc = st == PSL_OK ? CLI_OK : CLI_RUNTIME;
    int wrc = CLI_OK;
    if (a.json && cli_mpi_rank == 0)
        wrc = write_json(cmd, &a, &g, &res, status, matrix_s, setup_s, solve_s, ranks);
    if ((wrc = cli_mpi_agree(cmd, wrc, NULL)))
        rc = wrc;
done:
    dist_solve_free(&d);
    cli_dist_close(&src);
    free(bh);
    free(nat);
    free(times);
    free(ranks);
    return rc;
}
