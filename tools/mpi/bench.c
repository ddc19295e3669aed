/*
 * bench.c -- `mpirun -np N packsell bench MATRIX --device cpu|cuda ...`: the
 * serial bench's command line (bench_parse), each kernel's storage used for
 * both blocks of the distributed matrix, psl_dist_spmv timed (after the
 * warm-up, every run starts after MPI_Barrier and counts the slowest rank's
 * time; the median, min and max of those), then a separate pass with the
 * library's phase timings on (pack, A_d, wait, A_o, and one psl_dist_dot
 * per product for the allreduce) giving each rank's split. With --device
 * cuda each rank's blocks and vectors are on its GPU (psl_dist_dspmv, the
 * halo's transport chosen by the library) and a run ends when its device
 * work has finished, as the host's clock sees it. Rank 0 prints a
 * table line per kernel, each rank's figures under it, and --json.
 */
#include "cli_mpi.h"
#include "../bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_RUNS 1000000

/* One rank's figures of one kernel, gathered on rank 0. */
enum { R_ROWS, R_NNZ_D, R_NNZ_O, R_GHOST, R_RECV, R_SEND, R_SENT, R_MEDIAN, R_PACK, R_LOCAL,
       R_WAIT, R_REMOTE, R_REDUCE, R_BYTES, R_TRAFFIC, R_N };

typedef struct kernel_result {
    int ok;
    char error[480];
    int64_t runs;
    double t_median, t_min, t_max, setup_s, gflops, gbs, traffic;
    double *ranks; /* rank 0: nranks x R_N */
} kernel_result;

/* msg into buf with the library's constant hints as the command's options. */
static void error_text(char *buf, size_t len, const char *msg)
{
    static const char *const from = "PSL_OVERFLOW_SATURATE", *const to = "--overflow saturate";
    const char *at = strstr(msg, from);
    if (at)
        snprintf(buf, len, "%.*s%s%s", (int)(at - msg), msg, to, at + strlen(from));
    else
        snprintf(buf, len, "%s", msg);
}

/* This rank's vectors of kernel k: x from the natural rows (the serial
 * bench's x: uniform in [-1,1) rounded to FP16), y0 likewise or zero. */
static int make_vectors(const bench_args *a, const bench_kernel *k, const int64_t *nat,
                        int32_t nrows, int64_t n, void **x, void **y0, void **y, char *err,
                        size_t errlen)
{
    double *xd = malloc((size_t)(nrows + 1) * sizeof *xd);
    double *yd = malloc((size_t)(nrows + 1) * sizeof *yd);
    int rc = CLI_OK;
    *x = *y0 = *y = NULL;
    if (!xd || !yd) {
        snprintf(err, errlen, "out of memory for the vectors");
        rc = CLI_RUNTIME;
    } else {
        for (int32_t i = 0; i < nrows; i++) {
            xd[i] = cli_round_fp16(cli_dist_uniform_at((uint64_t)a->seed, nat[i]));
            double u = cli_dist_uniform_at((uint64_t)a->seed, n + nat[i]);
            yd[i] = a->beta != 0.0 ? cli_round_fp16(u) : 0.0;
        }
        *x = cli_vec_from_double(xd, nrows, k->vec, "x", err, errlen);
        *y0 = *x ? cli_vec_from_double(yd, nrows, k->vec, "y0", err, errlen) : NULL;
        *y = *y0 ? cli_vec_from_double(yd, nrows, k->vec, "y", err, errlen) : NULL;
        if (!*y)
            rc = CLI_RUNTIME;
    }
    free(xd);
    free(yd);
    return rc;
}

/* The vectors' place: host arrays (--device cpu), or copies of them on this
 * rank's GPU (--device cuda: A uploaded, an executor on its device). */
typedef struct place {
    psl_exec *ex;          /* NULL on the CPU */
    psl_vec *x, *y0, *y;   /* the device copies */
} place;

static void place_free(place *p)
{
    psl_vec_destroy(&p->x);
    psl_vec_destroy(&p->y0);
    psl_vec_destroy(&p->y);
    psl_exec_destroy(&p->ex);
}

/* On CUDA: upload A (collective, agreed) and copy the host vectors there. */
static psl_status place_make(const bench_args *a, psl_dist_matrix *A, psl_scalar t, int32_t n,
                             void *x, void *y0, void *y, place *p)
{
    memset(p, 0, sizeof *p);
    if (!a->cuda)
        return PSL_OK;
    psl_status st = psl_dist_matrix_upload(A, -1, PSL_DIST_TRANSPORT_AUTO, NULL);
    int dev = -1;
    if (st == PSL_OK)
        st = psl_dist_matrix_device(A, &dev, NULL);
    if (st == PSL_OK)
        st = psl_exec_create_cuda(&p->ex, dev, NULL);
    if (st == PSL_OK)
        st = psl_dist_exec_attach(p->ex, A);
    if (st == PSL_OK)
        st = psl_vec_wrap(&p->x, p->ex, n, t, x, PSL_MEM_COPY);
    if (st == PSL_OK)
        st = psl_vec_wrap(&p->y0, p->ex, n, t, y0, PSL_MEM_COPY);
    if (st == PSL_OK)
        st = psl_vec_wrap(&p->y, p->ex, n, t, y, PSL_MEM_COPY);
    return st;
}

static void *vdata(const psl_vec *v)
{
    void *d = NULL;
    psl_vec_info(v, NULL, NULL, &d);
    return d;
}

/* One y = alpha A x + beta y where the vectors are (on CUDA: finished
 * before it returns, so that the host's clock sees the device's time). */
static psl_status product(const bench_args *a, const bench_kernel *k, psl_dist_matrix *A,
                          const place *p, double beta, void *x, void *y)
{
    if (!p->ex)
        return psl_dist_spmv(a->alpha, A, x, beta, y, k->vec);
    psl_status st = psl_dist_dspmv(a->alpha, A, vdata(p->x), beta, vdata(p->y), k->vec, NULL);
    return st == PSL_OK ? psl_exec_synchronize(p->ex) : st;
}

/* y = y0 before a run with beta != 0. */
static psl_status restore(const place *p, void *y, const void *y0, size_t bytes)
{
    if (p->ex)
        return psl_vec_copy(p->y0, p->y);
    memcpy(y, y0, bytes);
    return PSL_OK;
}

/* y.y over the ranks, for the split's allreduce. */
static psl_status dot(const place *p, psl_dist_matrix *A, const bench_kernel *k, const void *y,
                      double *out)
{
    if (p->ex)
        return psl_vec_dot(p->y, p->y, PSL_FP64, out);
    return psl_dist_dot(A, y, y, k->vec, out);
}

/* Time kernel k on A; fills r (every rank the same but r->ranks). */
static void time_kernel(const bench_args *a, const bench_kernel *k, psl_dist_matrix *A,
                        const int64_t *nat, kernel_result *r)
{
    const char *cmd = "bench";
    psl_dist_info in;
    psl_dist_matrix_get_info(A, &in);
    void *x = NULL, *y0 = NULL, *y = NULL;
    place pl = {0};
    double *tmax = NULL, *tmine = NULL;
    int64_t cap = 0, runs = 0;
    char err[256] = "";
    int rc = make_vectors(a, k, nat, in.nrows, in.n_global, &x, &y0, &y, err, sizeof err);
    if ((rc = cli_mpi_agree(cmd, rc, rc ? err : NULL)) != CLI_OK) {
        snprintf(r->error, sizeof r->error, "the vectors could not be made");
        goto done;
    }
    const size_t vbytes = (size_t)in.nrows * cli_vec_size(k->vec);
    psl_status st = place_make(a, A, k->vec, in.nrows, x, y0, y, &pl);
    if (cli_mpi_lib(cmd, st) != CLI_OK) {
        error_text(r->error, sizeof r->error, psl_last_error_message());
        goto done;
    }
    for (long long w = 0; w < a->warmup && st == PSL_OK; w++)
        st = product(a, k, A, &pl, a->beta, x, y);
    /* the timed runs: at least reps and min_time of the slowest rank's times
     * (the same numbers on every rank, so every rank stops together) */
    double total = 0.0;
    while (st == PSL_OK && (runs < a->reps || total < a->min_time) && runs < MAX_RUNS) {
        if (runs == cap) {
            cap = cap ? 2 * cap : 64;
            double *t1 = realloc(tmax, (size_t)cap * sizeof *t1);
            if (t1)
                tmax = t1;
            double *t2 = t1 ? realloc(tmine, (size_t)cap * sizeof *t2) : NULL;
            if (t2)
                tmine = t2;
            if ((rc = cli_mpi_agree(cmd, t1 && t2 ? CLI_OK : CLI_RUNTIME,
                                    "out of memory for the timings")) != CLI_OK) {
                snprintf(r->error, sizeof r->error, "out of memory for the timings");
                goto done;
            }
        }
        if (a->beta != 0.0 && (st = restore(&pl, y, y0, vbytes)) != PSL_OK)
            break;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        st = product(a, k, A, &pl, a->beta, x, y);
        tmine[runs] = MPI_Wtime() - t0;
        MPI_Allreduce(&tmine[runs], &tmax[runs], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        total += tmax[runs++];
    }
    if (cli_mpi_lib(cmd, st) != CLI_OK) {
        snprintf(r->error, sizeof r->error, "psl_dist_spmv failed");
        goto done;
    }
    r->runs = runs;
    r->t_min = r->t_max = tmax[0];
    for (int64_t i = 0; i < runs; i++) {
        r->t_min = fmin(r->t_min, tmax[i]);
        r->t_max = fmax(r->t_max, tmax[i]);
    }
    r->t_median = cli_median(tmax, runs);
    double own = cli_median(tmine, runs);

    /* the split: a separate pass with the phase timings on */
    psl_dist_timings tm;
    psl_dist_matrix_set_timing(A, 1);
    psl_dist_matrix_timings(A, NULL, 1);
    double yy = 0.0;
    for (long long i = 0; i < a->reps && st == PSL_OK; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        st = product(a, k, A, &pl, 0.0, x, y);
        if (st == PSL_OK)
            st = dot(&pl, A, k, y, &yy);
    }
    psl_dist_matrix_timings(A, &tm, 1);
    psl_dist_matrix_set_timing(A, 0);
    if (cli_mpi_lib(cmd, st) != CLI_OK) {
        snprintf(r->error, sizeof r->error, "psl_dist_spmv failed (timed pass)");
        goto done;
    }
    const psl_matrix *Ad = NULL, *Ao = NULL;
    psl_dist_matrix_blocks(A, &Ad, &Ao, NULL);
    psl_matrix_info di, oi;
    psl_matrix_get_info(Ad, &di);
    psl_matrix_get_info(Ao, &oi);
    double sp = tm.spmvs > 0 ? (double)tm.spmvs : 1.0;
    double rd = tm.reductions > 0 ? (double)tm.reductions : 1.0;
    double vs = (double)cli_vec_size(k->vec);
    double mine[R_N] = {0};
    mine[R_ROWS] = in.nrows;
    mine[R_NNZ_D] = (double)in.nnz_d;
    mine[R_NNZ_O] = (double)in.nnz_o;
    mine[R_GHOST] = in.nghost;
    mine[R_RECV] = in.recv_neighbors;
    mine[R_SEND] = in.send_neighbors;
    mine[R_SENT] = (double)in.send_entries;
    mine[R_MEDIAN] = own;
    mine[R_PACK] = tm.pack_s / sp;
    mine[R_LOCAL] = tm.local_s / sp;
    mine[R_WAIT] = tm.wait_s / sp;
    mine[R_REMOTE] = tm.remote_s / sp;
    mine[R_REDUCE] = tm.reduce_s / rd;
    mine[R_BYTES] = (double)(di.bytes + oi.bytes);
    /* one product moves both blocks, x, the ghosts and y (twice when read) */
    mine[R_TRAFFIC] =
        mine[R_BYTES] + vs * ((double)in.nrows * (a->beta != 0.0 ? 3 : 2) + in.nghost);
    MPI_Gather(mine, R_N, MPI_DOUBLE, r->ranks, R_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&mine[R_TRAFFIC], &r->traffic, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    r->gflops = 2.0 * (double)in.nnz_global / r->t_median * 1e-9;
    r->gbs = r->traffic / r->t_median * 1e-9;
    r->ok = 1;
done:
    place_free(&pl);
    free(x);
    free(y0);
    free(y);
    free(tmax);
    free(tmine);
}

static void print_kernel(const bench_kernel *k, const kernel_result *r)
{
    if (cli_mpi_rank != 0)
        return;
    if (!r->ok) {
        printf("%-18s %-5s  error: %s\n", k->name, psl_scalar_name(k->vec), r->error);
        return;
    }
    printf("%-18s %-5s %7lld %11.2f %10.2f %10.2f %8.2f %8.2f %9.4f\n", k->name,
           psl_scalar_name(k->vec), (long long)r->runs, r->t_median * 1e6, r->t_min * 1e6,
           r->t_max * 1e6, r->gflops, r->gbs, r->setup_s);
    printf("    rank %9s %11s %10s %7s %5s %10s | %8s %8s %8s %8s %9s\n", "rows", "nnz_d", "nnz_o",
           "ghosts", "nbrs", "median_us", "pack_us", "A_d_us", "wait_us", "A_o_us",
           "allred_us");
    for (int q = 0; q < cli_mpi_size; q++) {
        const double *f = r->ranks + (size_t)q * R_N;
        printf("    %4d %9.0f %11.0f %10.0f %7.0f %5.0f %10.2f | %8.2f %8.2f %8.2f %8.2f %9.2f\n",
               q,
               f[R_ROWS], f[R_NNZ_D], f[R_NNZ_O], f[R_GHOST], f[R_RECV], f[R_MEDIAN] * 1e6,
               f[R_PACK] * 1e6, f[R_LOCAL] * 1e6, f[R_WAIT] * 1e6, f[R_REMOTE] * 1e6,
               f[R_REDUCE] * 1e6);
    }
}

static int write_json(const char *cmd, const bench_args *a, const cli_dist_source *src,
                      const psl_dist_info *g, const kernel_result *res, int threads)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, a->json, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    static const char *const keys[R_N] = {
        "rows", "nnz_d", "nnz_o", "ghosts", "recv_neighbors", "send_neighbors", "send_entries",
        "t_median_s", "pack_s", "local_s", "wait_s", "remote_s", "allreduce_s", "matrix_bytes",
        "traffic_bytes"};
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    cli_json_string(&j, "command", "bench");
    cli_json_string(&j, "device", "cpu");
    cli_json_begin_object(&j, "mpi");
    cli_json_int(&j, "nranks", cli_mpi_size);
    cli_json_int(&j, "threads_per_rank", threads);
    cli_json_string(&j, "distribution",
                    src->per_rank    ? "generated per rank"
                    : src->by_rows ? "generated per rank for its rows"
                                   : "scattered from rank 0");
    if (src->per_rank) {
        cli_json_begin_array(&j, "process_grid");
        for (int d = 0; d < 3; d++)
            cli_json_int(&j, NULL, src->dims[d]);
        cli_json_end_array(&j);
        cli_json_begin_array(&j, "box");
        for (int d = 0; d < 3; d++)
            cli_json_int(&j, NULL, src->box[d]);
        cli_json_end_array(&j);
    }
    cli_json_end_object(&j);
    cli_json_string(&j, "matrix", a->matrix);
    cli_json_int(&j, "nrows", g->n_global);
    cli_json_int(&j, "nnz", g->nnz_global);
    cli_json_int(&j, "reps", a->reps);
    cli_json_int(&j, "warmup", a->warmup);
    cli_json_double(&j, "min_time", a->min_time);
    cli_json_double(&j, "alpha", a->alpha);
    cli_json_double(&j, "beta", a->beta);
    cli_json_int(&j, "seed", a->seed);
    cli_json_begin_array(&j, "kernels");
    for (int i = 0; i < a->nkernels; i++) {
        const kernel_result *r = &res[i];
        cli_json_begin_object(&j, NULL);
        cli_json_string(&j, "name", a->kernels[i].name);
        cli_json_string(&j, "format", psl_format_name(a->kernels[i].opt.format));
        cli_json_string(&j, "vectors", psl_scalar_name(a->kernels[i].vec));
        cli_json_bool(&j, "ok", r->ok);
        if (!r->ok) {
            cli_json_string(&j, "error", r->error);
            cli_json_end_object(&j);
            continue;
        }
        cli_json_int(&j, "runs", r->runs);
        cli_json_double(&j, "t_median_s", r->t_median);
        cli_json_double(&j, "t_min_s", r->t_min);
        cli_json_double(&j, "t_max_s", r->t_max);
        cli_json_double(&j, "gflops", r->gflops);
        cli_json_double(&j, "gbs", r->gbs);
        cli_json_double(&j, "traffic_bytes", r->traffic);
        cli_json_double(&j, "setup_s", r->setup_s);
        cli_mpi_json_ranks(&j, keys, R_N, r->ranks);
        cli_json_end_object(&j);
    }
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    fputc('\n', f);
    return cli_output_finish(cmd, &out, f, "cannot write --json", a->json);
}

int cli_mpi_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    bench_args a;
    int rc = bench_parse(argc, argv, &a);
    if (rc == CLI_HELP)
        return cmd_bench(argc, argv); /* the help (rank 0 prints) */
    if ((rc = cli_mpi_agree(cmd, rc,
                            rc && cli_mpi_rank > 0 ? "the command line was refused on this rank"
                                                   : NULL)))
        return rc;
    /* what the distributed bench does not offer (the same verdict everywhere) */
    if (a.scale_rows)
        return cli_usage_error(cmd, "--scale rows is not available under MPI");
    /* the peers' kernels (cuSPARSE, MKL) are the serial bench's: left out */
    int kept = 0;
    for (int i = 0; i < a.nkernels; i++) {
        if (a.kernels[i].impl == BENCH_OURS)
            a.kernels[kept++] = a.kernels[i];
        else if (cli_mpi_rank == 0)
            fprintf(stderr, "packsell bench: kernel '%s' left out under MPI (the distributed "
                            "bench times the library's formats)\n", a.kernels[i].name);
    }
    if (kept == 0)
        return cli_usage_error(cmd, "no kernel of the library's formats to time under MPI");
    a.nkernels = kept;
#ifdef _OPENMP
    if (a.threads > 0)
        omp_set_num_threads((int)a.threads);
    int threads = omp_get_max_threads();
#else
    int threads = 1;
#endif
    cli_dist_source src;
    if ((rc = cli_mpi_agree(cmd, cli_dist_open(cmd, a.matrix, &src), NULL)) != CLI_OK) {
        cli_dist_close(&src);
        return rc;
    }
    kernel_result *res = calloc((size_t)a.nkernels, sizeof *res);
    double *ranks = NULL;
    if (cli_mpi_rank == 0)
        ranks = calloc((size_t)a.nkernels * cli_mpi_size * R_N, sizeof *ranks);
    int64_t *nat = NULL;
    psl_dist_info g;
    memset(&g, 0, sizeof g);
    if ((rc = cli_mpi_agree(cmd, res && (ranks || cli_mpi_rank > 0) ? CLI_OK : CLI_RUNTIME,
                            "out of memory for the results")) != CLI_OK)
        goto done;
    int failed = 0, any_ok = 0;
    for (int i = 0; i < a.nkernels; i++) {
        kernel_result *r = &res[i];
        r->ranks = ranks ? ranks + (size_t)i * cli_mpi_size * R_N : NULL;
        psl_dist_matrix *A = NULL;
        psl_status st = cli_dist_build(cmd, &src, &a.kernels[i].opt, &a.kernels[i].opt, &A,
                                       &r->setup_s);
        if (st != PSL_OK) { /* agreed by the library: every rank has it */
            error_text(r->error, sizeof r->error, psl_last_error_message());
        } else {
            psl_dist_matrix_get_info(A, &g);
            if (!nat) {
                nat = malloc((size_t)(g.nrows + 1) * sizeof *nat);
                rc = cli_mpi_agree(cmd, nat ? CLI_OK : CLI_RUNTIME, "out of memory");
                if (rc) {
                    psl_dist_matrix_destroy(&A);
                    goto done;
                }
                cli_dist_natural_rows(A, &src, nat);
            }
            time_kernel(&a, &a.kernels[i], A, nat, r);
        }
        psl_dist_matrix_destroy(&A);
        failed += !r->ok;
        any_ok += r->ok;
    }
    /* the table (rank 0), as the serial bench: after every kernel ran */
    if (cli_mpi_rank == 0 && any_ok) {
        char how[256];
        cli_dist_describe(&src, how, sizeof how);
        printf("matrix   %s: %lld rows, %lld nonzeros\n", a.matrix, (long long)g.n_global,
               (long long)g.nnz_global);
        printf("mpi      %d ranks, %d OpenMP threads each; the matrix %s\n", cli_mpi_size,
               threads, how);
        printf("timing   median of >= %lld runs (and >= %g s) after %lld warm-up runs; each "
               "run starts after MPI_Barrier and counts the slowest rank's time; the split "
               "(per product, each rank's own) from a separate pass of %lld runs with the "
               "phase timings on, one psl_dist_dot per product for the allreduce\n\n",
               a.reps, a.min_time, a.warmup, a.reps);
        printf("%-18s %-5s %7s %11s %10s %10s %8s %8s %9s\n", "kernel", "vec", "runs",
               "median_us", "min_us", "max_us", "GFLOPS", "GB/s", "setup_s");
    }
    for (int i = 0; i < a.nkernels && any_ok; i++)
        print_kernel(&a.kernels[i], &res[i]);
    fflush(stdout);
    if (failed)
        for (int i = 0; i < a.nkernels; i++)
            if (!res[i].ok)
                cli_error(cmd, "%s: %s", a.kernels[i].name, res[i].error);
    rc = CLI_OK;
    if (a.json && cli_mpi_rank == 0)
        rc = write_json(cmd, &a, &src, &g, res, threads);
    rc = cli_mpi_agree(cmd, rc, NULL);
    if (rc == CLI_OK && failed)
        rc = CLI_RUNTIME;
done:
    free(nat);
    free(ranks);
    free(res);
    cli_dist_close(&src);
    return rc;
}
