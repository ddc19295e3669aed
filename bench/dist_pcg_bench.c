/*
 * dist_pcg_bench.c -- the cost of the distributed layer: PCG with Jacobi
 * (FP64, to 1e-9) and the SpMV through psl_dist_op_create on every rank's
 * HPCG box (psl_dist_generate_hpcg), and, on one rank, the same solve and
 * SpMV through the plain single-process operator of psl_generate's matrix
 * beside it (the overhead of one rank through the distributed layer).
 * Prints one JSON line per case on rank 0, then a table.
 *
 * Usage: mpirun -np N dist_pcg_bench [--device cpu|cuda] [--box NX NY NZ]
 *        [--format csr|sell] [--repeat R] [--spmv K]
 *   --box     each rank's box (default 64 64 64; HPCG_8_8_8 on one rank: 256 256 256)
 *   --format  storage of A_d, A_o and the plain matrix (default: sell on
 *             cuda, C = 32, sigma = 256 implicit; csr on cpu)
 *   --repeat  solves per case, the median reported (default 3)
 *   --spmv    SpMVs per timed batch (default 50; 10 batches, the median)
 */
#include "packsell_mpi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size;

#define DIE_IF(cond, ...)                                      \
    do {                                                       \
        if (cond) {                                            \
            fprintf(stderr, "rank %d: ", g_rank);              \
            fprintf(stderr, __VA_ARGS__);                      \
            fprintf(stderr, " (%s)\n", psl_last_error_message()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                      \
        }                                                      \
    } while (0)

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The slowest rank's value. */
static double max_ranks(double v)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

typedef struct result {
    const char *path;
    int32_t iters;
    double relres, solve_s, spmv_s, setup_s;
} result;

/* Median seconds of one A x over `batches` batches of k products. */
static double time_spmv(psl_exec *ex, const psl_op *A, psl_vec *x, psl_vec *y, int k)
{
    double t[10];
    for (int w = 0; w < 3; w++)
        psl_op_apply(A, 1.0, x, 0.0, y);
    psl_exec_synchronize(ex);
    for (int b = 0; b < 10; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < k; i++)
            psl_op_apply(A, 1.0, x, 0.0, y);
        psl_exec_synchronize(ex);
        t[b] = max_ranks(MPI_Wtime() - t0) / k;
    }
    return median(t, 10);
}

/* PCG + Jacobi on A (M its Jacobi) from x = 0, `repeat` times: the median. */
static void time_pcg(psl_exec *ex, const psl_op *A, const psl_op *M, int64_t n, int repeat,
                     result *r)
{
    psl_solver_options o;
    psl_solver_options_init(&o);
    psl_solver *s = NULL;
    psl_vec *b = NULL, *x = NULL;
    DIE_IF(psl_solver_create(&s, PSL_METHOD_CG, A, M, &o) != PSL_OK, "solver");
    DIE_IF(psl_vec_create(&b, ex, n, PSL_FP64) != PSL_OK || psl_vec_create(&x, ex, n, PSL_FP64),
           "vectors");
    psl_vec_fill(b, 1.0);
    double t[64];
    for (int k = 0; k < repeat; k++) {
        psl_vec_fill(x, 0.0);
        psl_solve_result res = {0};
        MPI_Barrier(MPI_COMM_WORLD);
        psl_status st = psl_solver_solve(s, b, x, &res);
        DIE_IF(st != PSL_OK, "solve: %s", psl_status_string(st));
        t[k] = max_ranks(res.seconds);
        r->iters = res.iterations;
        r->relres = res.relres;
    }
    r->solve_s = median(t, repeat);
    r->spmv_s = 0.0;
    psl_vec_destroy(&b);
    psl_vec_destroy(&x);
    psl_solver_destroy(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int cuda = 0, repeat = 3, kspmv = 50, box[3] = {64, 64, 64}, fmt = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            cuda = !strcmp(argv[++i], "cuda");
        else if (!strcmp(argv[i], "--box") && i + 3 < argc)
            for (int k = 0; k < 3; k++)
                box[k] = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--format") && i + 1 < argc)
            fmt = !strcmp(argv[++i], "sell");
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--spmv") && i + 1 < argc)
            kspmv = atoi(argv[++i]);
        else {
            if (g_rank == 0)
                fprintf(stderr, "dist_pcg_bench: unknown argument %s (see the file's comment)\n",
                        argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (repeat < 1 || repeat > 64)
        repeat = 3;
    if (fmt < 0)
        fmt = cuda;
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    if (fmt) {
        opt.format = PSL_FORMAT_SELL;
        opt.slice_height = 32;
        opt.sigma = 256;
    }
    result res[2] = {{"distributed", 0, 0, 0, 0, 0}, {"single", 0, 0, 0, 0, 0}};

    /* the distributed path */
    double t0 = MPI_Wtime();
    psl_dist_matrix *A = NULL;
    DIE_IF(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, box[0], box[1], box[2], 0.0, &opt, &opt) !=
               PSL_OK, "generate");
    psl_exec *ex = NULL;
    if (cuda) {
        DIE_IF(psl_dist_matrix_upload(A, -1, PSL_DIST_TRANSPORT_AUTO, NULL) != PSL_OK, "upload");
        int dev = -1;
        psl_dist_matrix_device(A, &dev, NULL);
        DIE_IF(psl_exec_create_cuda(&ex, dev, NULL) != PSL_OK, "executor");
    } else
        DIE_IF(psl_exec_create_cpu(&ex) != PSL_OK, "executor");
    psl_op *op = NULL, *M = NULL;
    DIE_IF(psl_dist_exec_attach(ex, A) != PSL_OK || psl_dist_op_create(&op, ex, A, PSL_FP64) ||
               psl_dist_precond_jacobi(&M, ex, A, PSL_FP64),
           "operators");
    psl_dist_info info;
    psl_dist_matrix_get_info(A, &info);
    res[0].setup_s = max_ranks(MPI_Wtime() - t0);
    time_pcg(ex, op, M, info.nrows, repeat, &res[0]);
    psl_vec *x = NULL, *y = NULL;
    psl_vec_create(&x, ex, info.nrows, PSL_FP64);
    psl_vec_create(&y, ex, info.nrows, PSL_FP64);
    psl_vec_fill(x, 1.0);
    res[0].spmv_s = time_spmv(ex, op, x, y, kspmv);
    /* the split, in a timed pass of its own */
    psl_dist_timings tm;
    psl_dist_matrix_set_timing(A, 1);
    psl_dist_matrix_timings(A, NULL, 1);
    for (int i = 0; i < kspmv; i++)
        psl_op_apply(op, 1.0, x, 0.0, y);
    psl_exec_synchronize(ex);
    psl_dist_matrix_timings(A, &tm, 1);
    psl_dist_matrix_set_timing(A, 0);
    psl_vec_destroy(&x);
    psl_vec_destroy(&y);
    psl_op_destroy(&M);
    psl_op_destroy(&op);

    /* one rank: the plain single-process operator beside it */
    int single = g_size == 1 && box[0] == box[1] && box[1] == box[2] && (box[0] & (box[0] - 1)) == 0;
    if (single) {
        t0 = MPI_Wtime();
        int lg = 0;
        while ((1 << lg) < box[0])
            lg++;
        char spec[64];
        snprintf(spec, sizeof spec, "hpcg:%d:%d:%d", lg, lg, lg);
        psl_matrix *H = NULL, *S = NULL;
        DIE_IF(psl_generate(&H, spec) != PSL_OK, "psl_generate %s", spec);
        DIE_IF(psl_matrix_convert(&S, H, &opt) != PSL_OK, "convert");
        psl_exec *ex1 = NULL;
        if (cuda) {
            int dev = -1;
            psl_dist_matrix_device(A, &dev, NULL);
            DIE_IF(psl_exec_create_cuda(&ex1, dev, NULL) != PSL_OK, "executor");
        } else
            DIE_IF(psl_exec_create_cpu(&ex1) != PSL_OK, "executor");
        DIE_IF(psl_op_matrix(&op, ex1, S, PSL_FP64) != PSL_OK ||
                   psl_precond_jacobi(&M, ex1, H, PSL_FP64),
               "operators");
        res[1].setup_s = MPI_Wtime() - t0;
        time_pcg(ex1, op, M, info.nrows, repeat, &res[1]);
        psl_vec_create(&x, ex1, info.nrows, PSL_FP64);
        psl_vec_create(&y, ex1, info.nrows, PSL_FP64);
        psl_vec_fill(x, 1.0);
        res[1].spmv_s = time_spmv(ex1, op, x, y, kspmv);
        psl_vec_destroy(&x);
        psl_vec_destroy(&y);
        psl_op_destroy(&M);
        psl_op_destroy(&op);
        psl_exec_destroy(&ex1);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&H);
    }
    if (g_rank == 0) {
        for (int k = 0; k < 1 + single; k++)
            printf("{\"bench\": \"dist_pcg\", \"path\": \"%s\", \"ranks\": %d, \"device\": \"%s\", "
                   "\"box\": [%d, %d, %d], \"n_global\": %lld, \"format\": \"%s\", "
                   "\"pcg_iterations\": %d, \"relres\": %.3e, \"solve_s\": %.6f, "
                   "\"per_iteration_s\": %.4e, \"spmv_s\": %.4e, \"setup_s\": %.3f}\n",
                   res[k].path, g_size, cuda ? "cuda" : "cpu", box[0], box[1], box[2],
                   (long long)info.n_global, fmt ? "sell" : "csr", res[k].iters, res[k].relres,
                   res[k].solve_s, res[k].solve_s / (res[k].iters > 0 ? res[k].iters : 1),
                   res[k].spmv_s, res[k].setup_s);
        double n = tm.spmvs > 0 ? (double)tm.spmvs : 1.0;
        printf("{\"bench\": \"dist_split\", \"ranks\": %d, \"spmvs\": %lld, \"pack_s\": %.4e, "
               "\"local_s\": %.4e, \"wait_s\": %.4e, \"remote_s\": %.4e, \"ghosts\": %d}\n",
               g_size, (long long)tm.spmvs, tm.pack_s / n, tm.local_s / n, tm.wait_s / n,
               tm.remote_s / n, (int)info.nghost);
        printf("%-12s %6s %8s %10s %12s %12s\n", "path", "ranks", "PCG it", "solve s", "s/iteration",
               "SpMV s");
        for (int k = 0; k < 1 + single; k++)
            printf("%-12s %6d %8d %10.4f %12.4e %12.4e\n", res[k].path, g_size, res[k].iters,
                   res[k].solve_s, res[k].solve_s / (res[k].iters > 0 ? res[k].iters : 1),
                   res[k].spmv_s);
        if (single)
            printf("one rank through the distributed layer: PCG %.2f%%, SpMV %.2f%% over the plain path\n",
                   100.0 * (res[0].solve_s / res[1].solve_s - 1.0),
                   100.0 * (res[0].spmv_s / res[1].spmv_s - 1.0));
    }
    psl_exec_destroy(&ex);
    psl_dist_matrix_destroy(&A);
    MPI_Finalize();
    return 0;
}
