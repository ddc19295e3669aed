/*
 * bench_cuda.c -- the CUDA side of "packsell bench --device cuda" (compiled
 * only when PSL_HAVE_CUDA): our kernels through the public device API
 * (psl_dmatrix_upload, psl_dspmv), cuSPARSE baselines (CSR, Sliced ELL,
 * COO, BSR) on the sigma-sorted rows of the same matrix, and the
 * device-to-device copy bandwidth, all timed with CUDA events in one run.
 *
 * Timing: after the warm-up, runs are enqueued back to back on one stream
 * (a blocking stream, so that it is ordered with the synchronous copies)
 * in batches of BATCH, with an event between consecutive runs, so each run
 * gets its own interval and none includes a host launch gap as long as the
 * GPU is the slower side; a large device-to-device copy before each batch
 * gives the host a head start (and leaves the L2 cache cold for the first
 * run). Every CUDA and cuSPARSE status is checked and turned into the
 * kernel's error row; nothing here aborts. One kernel's matrix is on the
 * device at a time: convert (host), upload, time, check, free.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define BATCH 16 /* runs between two synchronizations: short enough that the head-start
                  * copy (HEADSTART_BYTES, ~120 us) covers the host's enqueue time of a
                  * batch of small kernels (~7 us each), so no interval includes a
                  * launch gap (bench/NOTES.md, Measurement method) */
#define MAX_RUNS 1000000                 /* timed runs per kernel at most */
#define COPY_BYTES_MAX ((size_t)1 << 30) /* one copy of the bandwidth test */
#define COPY_BYTES_MIN ((size_t)64 << 20)
#define HEADSTART_BYTES ((size_t)256 << 20) /* copy before each timed batch */
#define COPY_WARMUP 3
#define COPY_REPS 20
#define VEC_PAD 4 /* extra zero entries after x and y (BSR rounds up to blocks) */
#define CONVERT_CHUNK ((int64_t)1 << 20)
#define BSR_MAX_FILL 8 /* a BSR storing more than 8x the nonzeros is not tried */

/* Shorthand for the error buffer of a result. */
#define ERR(r) (r)->error, sizeof (r)->error

/* ------------------------------------------------------------ statuses */

/* 1 if e is cudaSuccess, else writes "what: message" into err and gives 0. */
static int cuda_ok(cudaError_t e, const char *what, char *err, size_t len)
{
    if (e == cudaSuccess)
        return 1;
    snprintf(err, len, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return 0;
}

/* 1 if s is CUSPARSE_STATUS_SUCCESS, else writes the error into err. */
static int sparse_ok(cusparseStatus_t s, const char *what, char *err, size_t len)
{
    if (s == CUSPARSE_STATUS_SUCCESS)
        return 1;
    snprintf(err, len, "%s: %s (%s)", what, cusparseGetErrorString(s),
             cusparseGetErrorName(s));
    return 0;
}

/* 1 if st is PSL_OK, else writes the library's message into err. */
static int psl_ok(psl_status st, const char *what, char *err, size_t len)
{
    if (st == PSL_OK)
        return 1;
    const char *m = psl_last_error_message();
    if (!m || !m[0])
        m = psl_status_string(st);
    if (strncmp(m, what, strlen(what)) == 0) /* the message names the call already */
        snprintf(err, len, "%s", m);
    else
        snprintf(err, len, "%s: %s", what, m);
    return 0;
}

/* ------------------------------------------------------------ state */

/* The host copy of the matrix with its rows sigma-sorted (explicitly
 * reordered, columns unchanged), built once for the cuSPARSE kernels. */
typedef struct sorted_csr {
    int state; /* 0 not built, 1 built, -1 failed (error holds why) */
    char error[512];
    int32_t *order; /* order[i]: original row of sorted row i */
    int32_t *rp;    /* nrows+1 row pointers (32-bit: cuSPARSE index type) */
    int32_t *ci;    /* nnz columns */
    double *va;     /* nnz values */
    void *typed[4]; /* va rounded to FP32, FP16 (by psl_scalar), lazily */
    int32_t max_row;
    int64_t nslices, sell_stored; /* cuSPARSE Sliced ELL of slice C */
} sorted_csr;

/* Everything shared by the kernels of one run. */
typedef struct gpu_ctx {
    const bench_args *a;
    const bench_data *d;
    cudaStream_t stream;
    cusparseHandle_t sp;
    cudaEvent_t ev[BATCH + 1];
    int nev;
    void *copy_src, *copy_dst;
    size_t copy_bytes;
    double copy_gbs;
    void *dx[4]; /* x as FP64, FP32, FP16 (by psl_scalar), VEC_PAD zeros after */
    void *dy;    /* y: (nrows + VEC_PAD) * 8 bytes */
    sorted_csr s;
} gpu_ctx;

/* One run enqueued on the stream; 0 or -1 with a message in err. */
typedef int (*launch_fn)(void *arg, char *err, size_t len);

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* ------------------------------------------------------------ timing */

/* Warm up, then time at least reps runs (and min_time seconds) of fn back
 * to back, one event interval per run. A kernel whose first run takes so
 * long that warmup + reps runs would pass max_time seconds gets 2 warm-ups
 * and max_time / (first run) timed runs, at least 10 (long-row matrices in
 * the suite). *t receives malloc'd samples in seconds and *n their count. */
static int time_runs(gpu_ctx *g, launch_fn fn, void *arg, long long warmup, long long reps,
                     double min_time, double max_time, int headstart, double **t, int64_t *n,
                     double *enqueue_s, char *err, size_t len)
{
    int64_t cap = 0;
    double total = 0.0, host = 0.0;
    *t = NULL;
    *n = 0;
    *enqueue_s = 0.0;
    if (max_time > 0 && warmup > 0) {
        double t0 = cli_now();
        if (fn(arg, err, len) != 0 ||
            !cuda_ok(cudaStreamSynchronize(g->stream), "first run", err, len))
            return -1;
        double first = cli_now() - t0;
        warmup--;
        if (first * (double)(warmup + reps) > max_time) {
            warmup = warmup < 2 ? warmup : 2;
            long long r = (long long)(max_time / first);
            reps = r < 10 ? 10 : r < reps ? r : reps;
            min_time = 0.0;
        }
    }
    for (long long w = 0; w < warmup; w++)
        if (fn(arg, err, len) != 0)
            return -1;
    if (!cuda_ok(cudaStreamSynchronize(g->stream), "warm-up", err, len))
        return -1;
    while (*n < MAX_RUNS && (*n < reps || total < min_time)) {
        int64_t b = BATCH;
        if (*n < reps && reps - *n < b)
            b = reps - *n;
        if (*n + b > cap) {
            cap = max64(2 * cap, *n + BATCH);
            double *nt = realloc(*t, (size_t)cap * sizeof *nt);
            if (!nt) {
                snprintf(err, len, "out of memory for the timings");
                return -1;
            }
            *t = nt;
        }
        if (headstart && g->copy_bytes > 0 &&
            !cuda_ok(cudaMemcpyAsync(g->copy_dst, g->copy_src,
                                     g->copy_bytes < HEADSTART_BYTES ? g->copy_bytes
                                                                     : HEADSTART_BYTES,
                                     cudaMemcpyDeviceToDevice, g->stream),
                     "head-start copy", err, len))
            return -1;
        if (!cuda_ok(cudaEventRecord(g->ev[0], g->stream), "cudaEventRecord", err, len))
            return -1;
        double h0 = cli_now();
        for (int64_t i = 0; i < b; i++) {
            if (fn(arg, err, len) != 0)
                return -1;
            if (!cuda_ok(cudaEventRecord(g->ev[i + 1], g->stream), "cudaEventRecord", err, len))
                return -1;
        }
        host += cli_now() - h0;
        if (!cuda_ok(cudaEventSynchronize(g->ev[b]), "timed runs", err, len) ||
            !cuda_ok(cudaGetLastError(), "timed runs", err, len))
            return -1;
        for (int64_t i = 0; i < b; i++) {
            float ms = 0.0f;
            if (!cuda_ok(cudaEventElapsedTime(&ms, g->ev[i], g->ev[i + 1]),
                         "cudaEventElapsedTime", err, len))
                return -1;
            (*t)[(*n)++] = 1e-3 * (double)ms;
            total += 1e-3 * (double)ms;
        }
    }
    *enqueue_s = *n > 0 ? host / (double)*n : 0.0;
    return 0;
}

/* Median, min and max of the samples and the derived rates of r. */
static void summarize(const gpu_ctx *g, double *t, int64_t n, int64_t bytes, size_t vec_size,
                      bench_result *r)
{
    const bench_data *d = g->d;
    r->runs = n;
    r->t_min = r->t_max = t[0];
    for (int64_t i = 1; i < n; i++) {
        r->t_min = fmin(r->t_min, t[i]);
        r->t_max = fmax(r->t_max, t[i]);
    }
    r->t_median = cli_median(t, n);
    double vs = (double)vec_size;
    double traffic = (double)bytes + vs * (double)d->info.ncols +
                     vs * (double)d->info.nrows * (g->a->beta != 0 ? 2 : 1);
    r->bytes = bytes;
    r->gflops = r->t_median > 0 ? 2.0 * (double)d->info.nnz / r->t_median * 1e-9 : 0.0;
    r->gbs = r->t_median > 0 ? traffic / r->t_median * 1e-9 : 0.0;
    r->pct_copy = g->copy_gbs > 0 ? 100.0 * r->gbs / g->copy_gbs : -1.0;
}

/* ------------------------------------------------------------ vectors */

/* Set the device y (m entries of type t, stored row order given by order,
 * NULL: identity) before a run: y0 when beta != 0, else all bits set (NaN
 * in every type), so that an entry the kernel does not write shows. */
static int set_y(gpu_ctx *g, psl_scalar t, const int32_t *order, int poison, char *err,
                 size_t len)
{
    int64_t m = g->d->info.nrows;
    size_t w = cli_vec_size(t);
    if (g->a->beta == 0.0)
        return cuda_ok(cudaMemsetAsync(g->dy, poison ? 0xff : 0, (size_t)(m + VEC_PAD) * w,
                                       g->stream),
                       "cudaMemset y", err, len)
                   ? 0
                   : -1;
    double *ys = malloc((size_t)(m > 0 ? m : 1) * sizeof *ys);
    if (!ys) {
        snprintf(err, len, "out of memory for y0");
        return -1;
    }
    for (int64_t i = 0; i < m; i++)
        ys[i] = g->d->y0[order ? order[i] : i];
    void *v = cli_vec_from_double(ys, m, t, "y0", err, len);
    free(ys);
    if (!v)
        return -1;
    int ok = cuda_ok(cudaMemsetAsync(g->dy, 0, (size_t)(m + VEC_PAD) * w, g->stream),
                     "cudaMemset y", err, len) &&
             cuda_ok(cudaMemcpyAsync(g->dy, v, (size_t)m * w, cudaMemcpyHostToDevice, g->stream),
                     "upload y0", err, len) &&
             cuda_ok(cudaStreamSynchronize(g->stream), "upload y0", err, len);
    free(v);
    return ok ? 0 : -1;
}

/* One fresh run on a poisoned (or y0) y, then the backward error of the
 * result, mapped back to the original rows through order (NULL: identity). */
static int check_result(gpu_ctx *g, launch_fn fn, void *arg, psl_scalar t,
                        const int32_t *order, bench_result *r)
{
    int64_t m = g->d->info.nrows;
    size_t w = cli_vec_size(t);
    void *yv = NULL;
    double *ys = NULL, *y = NULL;
    int rc = -1;
    if (set_y(g, t, order, 1, ERR(r)) != 0 || fn(arg, ERR(r)) != 0 ||
        !cuda_ok(cudaStreamSynchronize(g->stream), "checked run", ERR(r)) ||
        !cuda_ok(cudaGetLastError(), "checked run", ERR(r)))
        goto done;
    yv = malloc((size_t)(m > 0 ? m : 1) * w);
    ys = malloc((size_t)(m > 0 ? m : 1) * sizeof *ys);
    y = malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
    if (!yv || !ys || !y) {
        snprintf(ERR(r), "out of memory for y");
        goto done;
    }
    if (m > 0 &&
        !cuda_ok(cudaMemcpy(yv, g->dy, (size_t)m * w, cudaMemcpyDeviceToHost), "download y",
                 ERR(r)))
        goto done;
    cli_vec_to_double(yv, m, t, ys);
    for (int64_t i = 0; i < m; i++)
        y[order ? order[i] : i] = ys[i];
    r->backward_error = bench_backward_error(g->d, g->a, y);
    rc = 0;
done:
    free(yv);
    free(ys);
    free(y);
    return rc;
}

/* Time fn (after setting y) and check its result into r. */
static int time_and_check(gpu_ctx *g, launch_fn fn, void *arg, psl_scalar t,
                          const int32_t *order, int64_t bytes, bench_result *r)
{
    double *samples = NULL, enqueue_s = 0.0;
    int64_t n = 0;
    int rc = -1;
    if (set_y(g, t, order, 0, ERR(r)) != 0 ||
        time_runs(g, fn, arg, g->a->warmup, g->a->reps, g->a->min_time, g->a->max_time, 1, &samples, &n,
                  &enqueue_s, ERR(r)) != 0 ||
        check_result(g, fn, arg, t, order, r) != 0)
        goto done;
    if (n < 1) {
        snprintf(ERR(r), "no timed run");
        goto done;
    }
    summarize(g, samples, n, bytes, cli_vec_size(t), r);
    r->enqueue_us = enqueue_s * 1e6;
    rc = 0;
done:
    free(samples);
    return rc;
}

/* ------------------------------------------------------------ our kernels */

typedef struct ours_launch {
    double alpha, beta;
    const psl_dmatrix *dA;
    const void *x;
    void *y;
    psl_scalar vec;
    void *ws;
    size_t ws_bytes;
    cudaStream_t stream;
} ours_launch;

static int launch_ours(void *arg, char *err, size_t len)
{
    const ours_launch *l = arg;
    psl_status st = psl_dspmv(l->alpha, l->dA, l->x, l->beta, l->y, l->vec, l->ws,
                              l->ws_bytes, (void *)l->stream);
    return psl_ok(st, "psl_dspmv", err, len) ? 0 : -1;
}

/* Set the option name to v (> 0), or take the program's setting back (v
 * 0); 1, or 0 with the error in r. */
static int set_size_option(const char *name, int32_t v, bench_result *r)
{
    char text[16];
    snprintf(text, sizeof text, "%d", (int)v);
    return psl_ok(psl_option_set(name, v > 0 ? text : NULL), name, ERR(r));
}

/* psl_dmatrix_upload of M for kernel k: a CSR-k kernel with its own
 * device grouping sizes has them as the options PSL_CUDA_CSRK_SR_ROWS and
 * _SSR_SRS during the upload. 1, or 0 with the error in r. */
static int upload_ours(gpu_ctx *g, const bench_kernel *k, const psl_matrix *M,
                       psl_dmatrix **dA, bench_result *r)
{
    const int sizes = k->cuda_csrk_sr > 0 || k->cuda_csrk_ssr > 0;
    if (sizes && (!set_size_option("PSL_CUDA_CSRK_SR_ROWS", k->cuda_csrk_sr, r) ||
                  !set_size_option("PSL_CUDA_CSRK_SSR_SRS", k->cuda_csrk_ssr, r)))
        return 0;
    int ok = psl_ok(psl_dmatrix_upload(dA, M, (void *)g->stream), "psl_dmatrix_upload", ERR(r));
    if (sizes) {
        psl_option_set("PSL_CUDA_CSRK_SR_ROWS", NULL);
        psl_option_set("PSL_CUDA_CSRK_SSR_SRS", NULL);
    }
    return ok;
}

/* Convert, upload, time, check and free one of our kernels. */
static void run_ours(gpu_ctx *g, const bench_kernel *k, bench_result *r)
{
    psl_matrix *M = NULL;
    psl_dmatrix *dA = NULL;
    void *ws = NULL;
    int32_t *order = NULL;
    psl_matrix_info mi;
    size_t ws_bytes = 0;
    int64_t m = g->d->info.nrows;

    double t0 = cli_now();
    if (!psl_ok(psl_matrix_convert(&M, g->d->A, &k->opt), "convert", ERR(r)) ||
        !psl_ok(psl_matrix_get_info(M, &mi), "info", ERR(r)))
        goto done;
    cli_values_name(&mi, r->values, sizeof r->values);
    r->sell_bytes = mi.sell_bytes;
    r->ratio_sell = mi.sell_bytes > 0 ? (double)mi.bytes / (double)mi.sell_bytes : -1;
    if (mi.format != PSL_FORMAT_CSR && mi.permute == PSL_PERMUTE_EXPLICIT) {
        order = malloc((size_t)(m > 0 ? m : 1) * sizeof *order);
        if (!order) {
            snprintf(ERR(r), "out of memory");
            goto done;
        }
        if (!psl_ok(psl_matrix_row_order(M, order), "row order", ERR(r)))
            goto done;
    }
    if (!upload_ours(g, k, M, &dA, r))
        goto done;
    psl_matrix_destroy(&M); /* host memory back before timing */
    r->convert_seconds = cli_now() - t0;
    if (!psl_ok(psl_dspmv_workspace_size(dA, k->vec, &ws_bytes), "psl_dspmv_workspace_size",
                ERR(r)))
        goto done;
    if (ws_bytes > 0 && !cuda_ok(cudaMalloc(&ws, ws_bytes), "cudaMalloc workspace", ERR(r)))
        goto done;
    snprintf(r->impl, sizeof r->impl, "psl_dspmv");
    ours_launch l = {g->a->alpha, g->a->beta, dA, g->dx[k->vec], g->dy, k->vec,
                     ws, ws_bytes, g->stream};
    if (time_and_check(g, launch_ours, &l, k->vec, order, mi.bytes, r) != 0)
        goto done;
    r->ok = 1;
done:
    cudaFree(ws);
    psl_dmatrix_destroy(&dA);
    psl_matrix_destroy(&M);
    free(order);
}

/* ------------------------------------------------------------ sorted rows */

/* Build g->s: the sigma-sorted row order from a SELL conversion of the
 * library (so that the cuSPARSE rows are exactly the ones our kernels
 * see), the reordered CSR arrays and the size of its Sliced ELL. */
static int build_sorted(gpu_ctx *g, const psl_convert_options *base)
{
    sorted_csr *s = &g->s;
    if (s->state != 0)
        return s->state > 0 ? 0 : -1;
    const bench_data *d = g->d;
    int64_t m = d->info.nrows, nnz = d->info.nnz, C = base->slice_height;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    psl_matrix *S = NULL;
    s->state = -1;
    if (nnz > INT32_MAX) {
        snprintf(s->error, sizeof s->error,
                 "%lld nonzeros: more than the 32-bit indices this bench gives cuSPARSE",
                 (long long)nnz);
        return -1;
    }
    s->order = malloc((size_t)(m > 0 ? m : 1) * sizeof *s->order);
    s->rp = malloc((size_t)(m + 1) * sizeof *s->rp);
    s->ci = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *s->ci);
    s->va = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *s->va);
    if (!s->order || !s->rp || !s->ci || !s->va) {
        snprintf(s->error, sizeof s->error, "out of memory for the sorted matrix");
        return -1;
    }
    psl_convert_options o = *base;
    o.format = PSL_FORMAT_SELL;
    o.value_type = PSL_FP16; /* the smallest; only the order is used */
    o.overflow = PSL_OVERFLOW_SATURATE;
    o.permute = PSL_PERMUTE_EXPLICIT;
    if (!psl_ok(psl_matrix_convert(&S, d->A, &o), "sigma sorting", s->error, sizeof s->error) ||
        !psl_ok(psl_matrix_row_order(S, s->order), "row order", s->error, sizeof s->error) ||
        !psl_ok(psl_matrix_csr_view(d->A, &rp, &ci, &va), "csr view", s->error,
                sizeof s->error)) {
        psl_matrix_destroy(&S);
        return -1;
    }
    psl_matrix_destroy(&S);
    s->rp[0] = 0;
    s->max_row = 0;
    for (int64_t i = 0; i < m; i++) {
        int64_t len = rp[s->order[i] + 1] - rp[s->order[i]];
        s->rp[i + 1] = (int32_t)(s->rp[i] + len);
        if (len > s->max_row)
            s->max_row = (int32_t)len;
    }
    const int32_t *order = s->order, *srp = s->rp;
    int32_t *sci = s->ci;
    double *sva = s->va;
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (int64_t i = 0; i < m; i++) {
        int64_t src = rp[order[i]], len = srp[i + 1] - srp[i];
        memcpy(sci + srp[i], ci + src, (size_t)len * sizeof *sci);
        memcpy(sva + srp[i], va + src, (size_t)len * sizeof *sva);
    }
    s->nslices = (m + C - 1) / C;
    s->sell_stored = 0;
    for (int64_t sl = 0; sl < s->nslices; sl++) {
        int64_t w = 0;
        for (int64_t i = sl * C; i < m && i < (sl + 1) * C; i++)
            w = max64(w, srp[i + 1] - srp[i]);
        s->sell_stored += w * C;
    }
    if (s->sell_stored > INT32_MAX) {
        snprintf(s->error, sizeof s->error,
                 "Sliced ELL of %lld entries: more than 32-bit indices",
                 (long long)s->sell_stored);
        return -1;
    }
    s->state = 1;
    return 0;
}

/* The sorted values rounded to type t (cached; FP64: the values). */
static const void *typed_values(gpu_ctx *g, psl_scalar t, bench_result *r)
{
    sorted_csr *s = &g->s;
    if (t == PSL_FP64)
        return s->va;
    if (s->typed[t])
        return s->typed[t];
    int64_t nnz = g->d->info.nnz, nchunks = (nnz + CONVERT_CHUNK - 1) / CONVERT_CHUNK;
    int64_t bad = -1;
    size_t w = cli_vec_size(t);
    char *out = malloc((size_t)(nnz > 0 ? nnz : 1) * w);
    if (!out) {
        snprintf(ERR(r), "out of memory for the %s values", psl_scalar_name(t));
        return NULL;
    }
    /* chunks in parallel; the error of the first failing chunk is kept */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic)
#endif
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t lo = c * CONVERT_CHUNK, cnt = nnz - lo < CONVERT_CHUNK ? nnz - lo : CONVERT_CHUNK;
        char e[256];
        void *v = cli_vec_from_double(s->va + lo, cnt, t, "value", e, sizeof e);
        if (v) {
            memcpy(out + lo * (int64_t)w, v, (size_t)cnt * w);
            free(v);
            continue;
        }
#ifdef _OPENMP
#pragma omp critical(bench_cuda_convert)
#endif
        if (bad < 0 || c < bad) {
            bad = c;
            snprintf(ERR(r), "matrix values (sorted entries from %lld): %s", (long long)lo, e);
        }
    }
    if (bad >= 0) {
        free(out);
        return NULL;
    }
    s->typed[t] = out;
    return out;
}

/* ------------------------------------------------------------ cuSPARSE */

/* Host arrays of one cuSPARSE format, before the upload. */
typedef struct host_fmt {
    void *a[3];      /* offsets / row indices, column indices, values */
    size_t bytes[3]; /* of each array */
    int own[3];      /* 1: malloc'd here (free after upload) */
    int64_t rows, cols, nnz, stored, blocks;
} host_fmt;

static void host_fmt_free(host_fmt *h)
{
    for (int i = 0; i < 3; i++)
        if (h->own[i])
            free(h->a[i]);
    memset(h, 0, sizeof *h);
}

/* Allocate array i of h. */
static int host_alloc(host_fmt *h, int i, size_t bytes, bench_result *r)
{
    h->a[i] = calloc(bytes > 0 ? bytes : 1, 1);
    h->bytes[i] = bytes;
    h->own[i] = 1;
    if (!h->a[i]) {
        snprintf(ERR(r), "out of memory (%zu bytes)", bytes);
        return -1;
    }
    return 0;
}

/* Sliced ELL of slice C from the sorted rows: slice offsets, columns
 * (padding -1) and values (padding 0), column-major inside a slice. */
static int build_sell(const gpu_ctx *g, const void *vals, size_t w, int64_t C, host_fmt *h,
                      bench_result *r)
{
    const sorted_csr *s = &g->s;
    int64_t m = g->d->info.nrows, ns = s->nslices;
    if (host_alloc(h, 0, (size_t)(ns + 1) * 4, r) || host_alloc(h, 1, (size_t)s->sell_stored * 4, r) ||
        host_alloc(h, 2, (size_t)s->sell_stored * w, r))
        return -1;
    int32_t *off = h->a[0], *col = h->a[1];
    char *val = h->a[2];
    off[0] = 0;
    for (int64_t sl = 0; sl < ns; sl++) {
        int64_t wd = 0;
        for (int64_t i = sl * C; i < m && i < (sl + 1) * C; i++)
            wd = max64(wd, s->rp[i + 1] - s->rp[i]);
        off[sl + 1] = (int32_t)(off[sl] + wd * C);
    }
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
    for (int64_t sl = 0; sl < ns; sl++) {
        int64_t wd = (off[sl + 1] - off[sl]) / C;
        for (int64_t j = 0; j < wd; j++)
            for (int64_t l = 0; l < C; l++) {
                int64_t i = sl * C + l, p = off[sl] + j * C + l;
                if (i < m && j < s->rp[i + 1] - s->rp[i]) {
                    col[p] = s->ci[s->rp[i] + j];
                    memcpy(val + p * (int64_t)w, (const char *)vals + (s->rp[i] + j) * (int64_t)w, w);
                } else {
                    col[p] = -1; /* value stays 0 (calloc) */
                }
            }
    }
    h->stored = s->sell_stored;
    return 0;
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Sorted distinct block columns of block row br (rows br*bs .. +bs-1) into
 * buf; returns their count. */
static int64_t block_cols(const gpu_ctx *g, int64_t br, int64_t bs, int32_t *buf)
{
    const sorted_csr *s = &g->s;
    int64_t m = g->d->info.nrows, n = 0;
    for (int64_t i = br * bs; i < m && i < (br + 1) * bs; i++)
        for (int64_t k = s->rp[i]; k < s->rp[i + 1]; k++)
            buf[n++] = (int32_t)(s->ci[k] / bs);
    qsort(buf, (size_t)n, sizeof *buf, cmp_int32);
    int64_t u = 0;
    for (int64_t k = 0; k < n; k++)
        if (u == 0 || buf[k] != buf[u - 1])
            buf[u++] = buf[k];
    return u;
}

/* BSR with bs x bs blocks (row-major inside a block) from the sorted rows;
 * the last block row/column is padded with zeros. */
static int build_bsr(const gpu_ctx *g, const void *vals, size_t w, int64_t bs, host_fmt *h,
                     bench_result *r)
{
    const sorted_csr *s = &g->s;
    int64_t m = g->d->info.nrows, brows = (m + bs - 1) / bs;
    int64_t scratch = bs * (int64_t)(s->max_row > 0 ? s->max_row : 1);
    int nthreads = 1, rc = -1;
#ifdef _OPENMP
    nthreads = omp_get_max_threads();
#endif
    int32_t *bufs = malloc((size_t)nthreads * (size_t)scratch * sizeof *bufs);
    if (host_alloc(h, 0, (size_t)(brows + 1) * 4, r) || !bufs) {
        if (!bufs)
            snprintf(ERR(r), "out of memory for the BSR scratch");
        goto done;
    }
    int32_t *bptr = h->a[0];
    /* pass 1: blocks per block row */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1024)
#endif
    for (int64_t br = 0; br < brows; br++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        bptr[br + 1] = (int32_t)block_cols(g, br, bs, bufs + (int64_t)tid * scratch);
    }
    bptr[0] = 0;
    int64_t nb = 0;
    for (int64_t br = 0; br < brows; br++) {
        nb += bptr[br + 1];
        if (nb > INT32_MAX) {
            snprintf(ERR(r), "BSR %lldx%lld: more than 2^31 blocks", (long long)bs,
                     (long long)bs);
            goto done;
        }
        bptr[br + 1] = (int32_t)nb;
    }
    if (nb * bs * bs > BSR_MAX_FILL * g->d->info.nnz + bs * bs) {
        snprintf(ERR(r), "BSR %lldx%lld would store %.1f times the nonzeros (more than %d)",
                 (long long)bs, (long long)bs,
                 (double)(nb * bs * bs) / (double)(g->d->info.nnz > 0 ? g->d->info.nnz : 1),
                 BSR_MAX_FILL);
        goto done;
    }
    if (host_alloc(h, 1, (size_t)nb * 4, r) || host_alloc(h, 2, (size_t)(nb * bs * bs) * w, r))
        goto done;
    int32_t *bcol = h->a[1];
    char *bval = h->a[2];
    /* pass 2: block columns and values */
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1024)
#endif
    for (int64_t br = 0; br < brows; br++) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        int32_t *buf = bufs + (int64_t)tid * scratch;
        int64_t u = block_cols(g, br, bs, buf);
        memcpy(bcol + bptr[br], buf, (size_t)u * sizeof *buf);
        for (int64_t i = br * bs; i < m && i < (br + 1) * bs; i++)
            for (int64_t k = s->rp[i]; k < s->rp[i + 1]; k++) {
                int32_t c = s->ci[k], key = (int32_t)(c / bs);
                const int32_t *hit = bsearch(&key, buf, (size_t)u, sizeof *buf, cmp_int32);
                int64_t b = bptr[br] + (hit - buf);
                int64_t p = (b * bs + (i - br * bs)) * bs + c % bs;
                memcpy(bval + p * (int64_t)w, (const char *)vals + k * (int64_t)w, w);
            }
    }
    h->blocks = nb;
    rc = 0;
done:
    free(bufs);
    return rc;
}

typedef struct sparse_launch {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    cudaDataType compute;
    union {
        float f;
        double d;
    } alpha, beta;
    void *buf;
} sparse_launch;

static int launch_sparse(void *arg, char *err, size_t len)
{
    sparse_launch *l = arg;
    return sparse_ok(cusparseSpMV(l->h, CUSPARSE_OPERATION_NON_TRANSPOSE, &l->alpha, l->A, l->x,
                                  &l->beta, l->y, l->compute, CUSPARSE_SPMV_ALG_DEFAULT, l->buf),
                     "cusparseSpMV", err, len)
               ? 0
               : -1;
}

static cudaDataType cuda_type(psl_scalar t)
{
    return t == PSL_FP64 ? CUDA_R_64F : t == PSL_FP32 ? CUDA_R_32F : CUDA_R_16F;
}

/* One cuSPARSE kernel (BSR with block size bs) on the sorted rows. */
static void run_sparse_one(gpu_ctx *g, const bench_kernel *k, int64_t bs, bench_result *r)
{
    static const char *names[] = {"csr", "sell", "coo", "bsr"};
    const sorted_csr *s = &g->s;
    psl_scalar t = k->opt.value_type;
    size_t w = cli_vec_size(t);
    int64_t m = g->d->info.nrows, n = g->d->info.ncols, nnz = g->d->info.nnz;
    int64_t C = k->opt.slice_height;
    host_fmt h;
    void *dev[3] = {NULL, NULL, NULL}, *buf = NULL;
    cusparseSpMatDescr_t A = NULL;
    cusparseDnVecDescr_t vx = NULL, vy = NULL;
    int64_t bytes = 0, xlen = n, ylen = m;
    memset(&h, 0, sizeof h);
    snprintf(r->values, sizeof r->values, "%s", psl_scalar_name(t));
    if (k->cusp_format == BENCH_CUSP_BSR)
        snprintf(r->impl, sizeof r->impl, "bsr%lldx%lld", (long long)bs, (long long)bs);
    else
        snprintf(r->impl, sizeof r->impl, "%s", names[k->cusp_format]);

    double t0 = cli_now();
    const void *vals = typed_values(g, t, r);
    if (!vals)
        goto done;
    switch (k->cusp_format) {
    case BENCH_CUSP_CSR:
        h.a[0] = s->rp;
        h.bytes[0] = (size_t)(m + 1) * 4;
        h.a[1] = s->ci;
        h.bytes[1] = (size_t)nnz * 4;
        h.a[2] = (void *)vals;
        h.bytes[2] = (size_t)nnz * w;
        bytes = (m + 1) * 4 + nnz * (4 + (int64_t)w);
        break;
    case BENCH_CUSP_SELL:
        if (build_sell(g, vals, w, C, &h, r) != 0)
            goto done;
        bytes = (s->nslices + 1) * 4 + s->sell_stored * (4 + (int64_t)w);
        break;
    case BENCH_CUSP_COO:
        if (host_alloc(&h, 0, (size_t)nnz * 4, r) != 0)
            goto done;
        {
            int32_t *row = h.a[0];
#ifdef _OPENMP
#pragma omp parallel for schedule(static)
#endif
            for (int64_t i = 0; i < m; i++)
                for (int64_t p = s->rp[i]; p < s->rp[i + 1]; p++)
                    row[p] = (int32_t)i;
        }
        h.a[1] = s->ci;
        h.bytes[1] = (size_t)nnz * 4;
        h.a[2] = (void *)vals;
        h.bytes[2] = (size_t)nnz * w;
        bytes = nnz * (8 + (int64_t)w);
        break;
    case BENCH_CUSP_BSR:
        if (build_bsr(g, vals, w, bs, &h, r) != 0)
            goto done;
        xlen = (n + bs - 1) / bs * bs;
        ylen = (m + bs - 1) / bs * bs;
        bytes = ((m + bs - 1) / bs + 1) * 4 + h.blocks * 4 + h.blocks * bs * bs * (int64_t)w;
        break;
    }
    for (int i = 0; i < 3; i++) {
        if (!cuda_ok(cudaMalloc(&dev[i], h.bytes[i] > 0 ? h.bytes[i] : 1), "cudaMalloc matrix",
                     ERR(r)) ||
            (h.bytes[i] > 0 &&
             !cuda_ok(cudaMemcpy(dev[i], h.a[i], h.bytes[i], cudaMemcpyHostToDevice),
                      "upload matrix", ERR(r))))
            goto done;
        if (h.own[i]) {
            free(h.a[i]);
            h.a[i] = NULL;
            h.own[i] = 0;
        }
    }
    /* a pageable upload may return before its DMA is done: wait for it */
    if (!cuda_ok(cudaDeviceSynchronize(), "upload matrix", ERR(r)))
        goto done;
    r->convert_seconds = cli_now() - t0;
    cudaDataType vt = cuda_type(t);
    cusparseStatus_t cs = CUSPARSE_STATUS_SUCCESS;
    const char *what = "";
    switch (k->cusp_format) {
    case BENCH_CUSP_CSR:
        what = "cusparseCreateCsr";
        cs = cusparseCreateCsr(&A, m, n, nnz, dev[0], dev[1], dev[2], CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt);
        break;
    case BENCH_CUSP_SELL:
        what = "cusparseCreateSlicedEll";
        cs = cusparseCreateSlicedEll(&A, m, n, nnz, s->sell_stored, C, dev[0], dev[1], dev[2],
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, vt);
        break;
    case BENCH_CUSP_COO:
        what = "cusparseCreateCoo";
        cs = cusparseCreateCoo(&A, m, n, nnz, dev[0], dev[1], dev[2], CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, vt);
        break;
    case BENCH_CUSP_BSR:
        what = "cusparseCreateBsr";
        cs = cusparseCreateBsr(&A, ylen / bs, xlen / bs, h.blocks, bs, bs, dev[0], dev[1],
                               dev[2], CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, vt, CUSPARSE_ORDER_ROW);
        break;
    }
    if (!sparse_ok(cs, what, ERR(r)) ||
        !sparse_ok(cusparseCreateDnVec(&vx, xlen, g->dx[t], vt), "cusparseCreateDnVec x",
                   ERR(r)) ||
        !sparse_ok(cusparseCreateDnVec(&vy, ylen, g->dy, vt), "cusparseCreateDnVec y", ERR(r)))
        goto done;
    sparse_launch l;
    memset(&l, 0, sizeof l);
    l.h = g->sp;
    l.A = A;
    l.x = vx;
    l.y = vy;
    l.compute = t == PSL_FP64 ? CUDA_R_64F : CUDA_R_32F;
    if (t == PSL_FP64) {
        l.alpha.d = g->a->alpha;
        l.beta.d = g->a->beta;
    } else {
        l.alpha.f = (float)g->a->alpha;
        l.beta.f = (float)g->a->beta;
    }
    size_t buf_bytes = 0;
    if (!sparse_ok(cusparseSpMV_bufferSize(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &l.alpha, A,
                                           vx, &l.beta, vy, l.compute, CUSPARSE_SPMV_ALG_DEFAULT,
                                           &buf_bytes),
                   "cusparseSpMV_bufferSize", ERR(r)) ||
        !cuda_ok(cudaMalloc(&buf, buf_bytes > 0 ? buf_bytes : 1), "cudaMalloc SpMV buffer",
                 ERR(r)))
        goto done;
    l.buf = buf;
    /* y must hold valid data if the preprocessing reads it */
    if (set_y(g, t, s->order, 0, ERR(r)) != 0)
        goto done;
    cs = cusparseSpMV_preprocess(g->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &l.alpha, A, vx,
                                 &l.beta, vy, l.compute, CUSPARSE_SPMV_ALG_DEFAULT, buf);
    /* "+pre": preprocessed; otherwise timed without (said on stderr unless
     * cuSPARSE does not offer it for this format) */
    if (cs == CUSPARSE_STATUS_SUCCESS)
        strncat(r->impl, "+pre", sizeof r->impl - strlen(r->impl) - 1);
    else if (cs != CUSPARSE_STATUS_NOT_SUPPORTED)
        fprintf(stderr, "packsell bench: %s: cusparseSpMV_preprocess: %s (%s); timed without\n",
                k->name, cusparseGetErrorString(cs), cusparseGetErrorName(cs));
    if (!cuda_ok(cudaStreamSynchronize(g->stream), "cusparseSpMV_preprocess", ERR(r)) ||
        !cuda_ok(cudaGetLastError(), "cusparseSpMV_preprocess", ERR(r)))
        goto done;
    if (time_and_check(g, launch_sparse, &l, t, s->order, bytes, r) != 0)
        goto done;
    r->sell_bytes = (s->nslices + 1) * 4 + s->sell_stored * (4 + (int64_t)w);
    r->ratio_sell = r->sell_bytes > 0 ? (double)bytes / (double)r->sell_bytes : -1;
    r->ok = 1;
done:
    /* the stream may still run work on these arrays after an error */
    cudaStreamSynchronize(g->stream);
    if (vx)
        cusparseDestroyDnVec(vx);
    if (vy)
        cusparseDestroyDnVec(vy);
    if (A)
        cusparseDestroySpMat(A);
    cudaFree(buf);
    for (int i = 0; i < 3; i++)
        cudaFree(dev[i]);
    host_fmt_free(&h);
}

/* A cuSPARSE kernel; BSR tries 2x2 and 4x4 blocks and keeps the faster. */
static void run_sparse(gpu_ctx *g, const bench_kernel *k, bench_result *r)
{
    if (build_sorted(g, &k->opt) != 0) {
        snprintf(r->values, sizeof r->values, "%s", psl_scalar_name(k->opt.value_type));
        snprintf(ERR(r), "%s", g->s.error);
        return;
    }
    if (k->cusp_format != BENCH_CUSP_BSR) {
        run_sparse_one(g, k, 1, r);
        return;
    }
    bench_result r4;
    memset(&r4, 0, sizeof r4);
    r4.ratio_sell = r4.pct_copy = r4.enqueue_us = -1;
    run_sparse_one(g, k, 2, r);
    run_sparse_one(g, k, 4, &r4);
    if (r4.ok && (!r->ok || r4.t_median < r->t_median)) {
        *r = r4;
    } else if (!r->ok && !r4.ok) {
        char e2[sizeof r->error];
        snprintf(e2, sizeof e2, "%s", r->error);
        snprintf(ERR(r), "2x2: %.240s; 4x4: %.240s", e2, r4.error);
    }
}

/* ------------------------------------------------------------ set-up */

static int launch_copy(void *arg, char *err, size_t len)
{
    gpu_ctx *g = arg;
    return cuda_ok(cudaMemcpyAsync(g->copy_dst, g->copy_src, g->copy_bytes,
                                   cudaMemcpyDeviceToDevice, g->stream),
                   "cudaMemcpyAsync", err, len)
               ? 0
               : -1;
}

/* Device-to-device copy bandwidth (bytes read + written over the median
 * time of one copy) into dev; keeps the buffers for the head-start copies. */
static void measure_copy(gpu_ctx *g, bench_device *dev)
{
    size_t bytes = COPY_BYTES_MAX;
    double *t = NULL, enqueue_s = 0.0;
    int64_t n = 0;
    g->copy_gbs = -1;
    while (bytes >= COPY_BYTES_MIN) {
        if (cudaMalloc(&g->copy_src, bytes) == cudaSuccess &&
            cudaMalloc(&g->copy_dst, bytes) == cudaSuccess)
            break;
        cudaFree(g->copy_src);
        g->copy_src = NULL;
        (void)cudaGetLastError();
        bytes /= 2;
    }
    if (!g->copy_dst) {
        snprintf(dev->copy_error, sizeof dev->copy_error,
                 "cannot allocate two copy buffers of %zu bytes", COPY_BYTES_MIN);
        cudaFree(g->copy_src);
        g->copy_src = NULL;
        return;
    }
    g->copy_bytes = bytes;
    /* never copy uninitialized memory: fill the source with a pattern */
    if (!cuda_ok(cudaMemset(g->copy_src, 0x5a, bytes), "cudaMemset", dev->copy_error,
                 sizeof dev->copy_error) ||
        !cuda_ok(cudaDeviceSynchronize(), "cudaMemset", dev->copy_error,
                 sizeof dev->copy_error) ||
        time_runs(g, launch_copy, g, COPY_WARMUP, COPY_REPS, 0.0, 0.0, 0, &t, &n, &enqueue_s,
                  dev->copy_error, sizeof dev->copy_error) != 0 ||
        n < 1) {
        free(t);
        return;
    }
    dev->copy_us = cli_median(t, n) * 1e6;
    dev->copy_bytes = (int64_t)bytes;
    dev->copy_runs = (int)n;
    dev->copy_gbs = dev->copy_us > 0 ? 2.0 * (double)bytes / dev->copy_us * 1e-3 : -1;
    g->copy_gbs = dev->copy_gbs;
    free(t);
}

/* ------------------------------------------------------------ GPU build */

#define BUILD_WARMUP 1
#define BUILD_REPS 5

/* Time psl_dmatrix_convert from the device CSR of the matrix to PackSELL
 * FP16 and SELL FP16 (the first kernel's C, sigma, permutation): CUDA
 * events around the whole call (it synchronizes inside, so the interval is
 * its wall time on the stream), median of BUILD_REPS after a warm-up, each
 * result destroyed outside the interval; then the SpMV time of the built
 * matrix (FP64 vectors) for the ratio. Fills dev->build_*. */
static void measure_gpu_build(gpu_ctx *g, bench_device *dev)
{
    const bench_data *d = g->d;
    const int64_t m = d->info.nrows, nnz = d->info.nnz;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    void *drp = NULL, *dci = NULL, *dva = NULL;
    psl_dmatrix *dA = NULL;
    char *err = dev->build_error;
    const size_t elen = sizeof dev->build_error;
    if (!psl_ok(psl_matrix_csr_view(d->A, &rp, &ci, &va), "csr view", err, elen) ||
        !cuda_ok(cudaMalloc(&drp, (size_t)(m + 1) * 8), "cudaMalloc row_ptr", err, elen) ||
        !cuda_ok(cudaMalloc(&dci, (size_t)(nnz > 0 ? nnz : 1) * 4), "cudaMalloc col", err, elen) ||
        !cuda_ok(cudaMalloc(&dva, (size_t)(nnz > 0 ? nnz : 1) * 8), "cudaMalloc val", err, elen) ||
        !cuda_ok(cudaMemcpy(drp, rp, (size_t)(m + 1) * 8, cudaMemcpyHostToDevice), "upload",
                 err, elen) ||
        !cuda_ok(cudaMemcpy(dci, ci, (size_t)nnz * 4, cudaMemcpyHostToDevice), "upload", err,
                 elen) ||
        !cuda_ok(cudaMemcpy(dva, va, (size_t)nnz * 8, cudaMemcpyHostToDevice), "upload", err,
                 elen))
        goto done;
    psl_dcsr in = {(int32_t)m, (int32_t)d->info.ncols, nnz, drp, dci, dva, PSL_FP64};
    for (int b = 0; b < 2; b++) {
        psl_convert_options o = g->a->kernels[0].opt;
        o.format = b ? PSL_FORMAT_SELL : PSL_FORMAT_PACKSELL;
        o.value_type = PSL_FP16;
        o.codec = (psl_codec){5, 10};
        o.overflow = PSL_OVERFLOW_SATURATE;
        double t[BUILD_REPS];
        for (int r = 0; r < BUILD_WARMUP + BUILD_REPS; r++) {
            float ms = 0.0f;
            if (!cuda_ok(cudaEventRecord(g->ev[0], g->stream), "cudaEventRecord", err, elen) ||
                !psl_ok(psl_dmatrix_convert(&dA, &in, &o, (void *)g->stream),
                        "psl_dmatrix_convert", err, elen) ||
                !cuda_ok(cudaEventRecord(g->ev[1], g->stream), "cudaEventRecord", err, elen) ||
                !cuda_ok(cudaEventSynchronize(g->ev[1]), "GPU build", err, elen) ||
                !cuda_ok(cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]), "cudaEventElapsedTime",
                         err, elen))
                goto done;
            if (r >= BUILD_WARMUP)
                t[r - BUILD_WARMUP] = (double)ms;
            if (r + 1 < BUILD_WARMUP + BUILD_REPS)
                psl_dmatrix_destroy(&dA);
        }
        dev->build_ms[b] = cli_median(t, BUILD_REPS);
        /* the SpMV of the last build */
        double *ts = NULL, enq = 0.0;
        int64_t n = 0;
        /* FP16 vectors: the SpMV this build is for (the fast one, so the
         * ratio is not flattered) */
        size_t wsb = 0;
        void *ws = NULL;
        if (psl_ok(psl_dspmv_workspace_size(dA, PSL_FP16, &wsb), "workspace size", err, elen) &&
            (wsb == 0 || cuda_ok(cudaMalloc(&ws, wsb), "cudaMalloc workspace", err, elen))) {
            ours_launch l = {1.0, 0.0, dA, g->dx[PSL_FP16], g->dy, PSL_FP16, ws, wsb, g->stream};
            if (time_runs(g, launch_ours, &l, 3, 20, 0.0, 0.0, 0, &ts, &n, &enq, err, elen) == 0 &&
                n > 0)
                dev->build_spmv_us[b] = cli_median(ts, n) * 1e6;
        }
        free(ts);
        cudaFree(ws);
        psl_dmatrix_destroy(&dA);
        if (err[0])
            goto done;
    }
done:
    psl_dmatrix_destroy(&dA);
    cudaFree(drp);
    cudaFree(dci);
    cudaFree(dva);
    (void)cudaGetLastError();
}

/* x in every vector type on the device, with VEC_PAD zeros after it, and
 * the y buffer. */
static int upload_vectors(gpu_ctx *g, const char *cmd)
{
    const bench_data *d = g->d;
    int64_t n = d->info.ncols, m = d->info.nrows;
    static const psl_scalar types[] = {PSL_FP64, PSL_FP32, PSL_FP16};
    char err[512];
    for (int i = 0; i < 3; i++) {
        psl_scalar t = types[i];
        size_t w = cli_vec_size(t);
        void *v = cli_vec_from_double(d->x, n, t, "x", err, sizeof err);
        int ok = v && cuda_ok(cudaMalloc(&g->dx[t], (size_t)(n + VEC_PAD) * w), "cudaMalloc x",
                              err, sizeof err) &&
                 cuda_ok(cudaMemset(g->dx[t], 0, (size_t)(n + VEC_PAD) * w), "cudaMemset x",
                         err, sizeof err) &&
                 (n == 0 || cuda_ok(cudaMemcpy(g->dx[t], v, (size_t)n * w,
                                               cudaMemcpyHostToDevice),
                                    "upload x", err, sizeof err));
        free(v);
        if (!ok)
            return cli_error(cmd, "--device cuda: %s", err);
    }
    if (!cuda_ok(cudaMalloc(&g->dy, (size_t)(m + VEC_PAD) * 8), "cudaMalloc y", err,
                 sizeof err) ||
        !cuda_ok(cudaDeviceSynchronize(), "upload x", err, sizeof err))
        return cli_error(cmd, "--device cuda: %s", err);
    return CLI_OK;
}

static void release(gpu_ctx *g)
{
    cudaDeviceSynchronize();
    for (int i = 0; i < g->nev; i++)
        cudaEventDestroy(g->ev[i]);
    if (g->sp)
        cusparseDestroy(g->sp);
    for (int i = 0; i < 4; i++)
        cudaFree(g->dx[i]);
    cudaFree(g->dy);
    cudaFree(g->copy_src);
    cudaFree(g->copy_dst);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g->s.order);
    free(g->s.rp);
    free(g->s.ci);
    free(g->s.va);
    for (int i = 0; i < 4; i++)
        free(g->s.typed[i]);
}

int bench_cuda_run(const char *cmd, const bench_args *a, const bench_data *d,
                   bench_result *res, bench_device *dev)
{
    gpu_ctx g;
    struct cudaDeviceProp prop;
    char err[512];
    int device = 0, rc = CLI_RUNTIME;
    memset(&g, 0, sizeof g);
    g.a = a;
    g.d = d;
    g.copy_gbs = -1;
    if (!cuda_ok(cudaGetDevice(&device), "cudaGetDevice", err, sizeof err) ||
        !cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties", err,
                 sizeof err) ||
        !cuda_ok(cudaStreamCreateWithFlags(&g.stream, cudaStreamDefault), "cudaStreamCreate",
                 err, sizeof err) ||
        !sparse_ok(cusparseCreate(&g.sp), "cusparseCreate", err, sizeof err) ||
        !sparse_ok(cusparseSetStream(g.sp, g.stream), "cusparseSetStream", err, sizeof err)) {
        rc = cli_error(cmd, "--device cuda: %s", err);
        goto done;
    }
    for (; g.nev < BATCH + 1; g.nev++)
        if (!cuda_ok(cudaEventCreate(&g.ev[g.nev]), "cudaEventCreate", err, sizeof err)) {
            rc = cli_error(cmd, "--device cuda: %s", err);
            goto done;
        }
    snprintf(dev->name, sizeof dev->name, "%s", prop.name);
    dev->cc_major = prop.major;
    dev->cc_minor = prop.minor;
    dev->mem_gib = (double)prop.totalGlobalMem / (double)(1 << 30);
    if ((rc = upload_vectors(&g, cmd)) != CLI_OK)
        goto done;
    measure_copy(&g, dev);
    if (!a->skip_gpu_build)
        measure_gpu_build(&g, dev);
    for (int i = 0; i < a->nkernels; i++) {
        const bench_kernel *k = &a->kernels[i];
        bench_result *r = &res[i];
        memset(r, 0, sizeof *r);
        r->ratio_sell = r->pct_copy = r->enqueue_us = -1;
        snprintf(r->impl, sizeof r->impl, "-");
        if (k->impl == BENCH_CUSPARSE)
            run_sparse(&g, k, r);
        else
            run_ours(&g, k, r);
        if (!r->ok && !r->error[0])
            snprintf(ERR(r), "failed");
        if (r->ok && r->enqueue_us > 0.7 * r->t_median * 1e6)
            fprintf(stderr,
                    "packsell bench: %s: warning: the host needs %.2f us to enqueue a run, "
                    "close to the median %.2f us: the runs may include launch gaps\n",
                    k->name, r->enqueue_us, r->t_median * 1e6);
        /* a sticky CUDA error (e.g. an illegal address) is reported here
         * and fails the kernels after it, with the same message */
        (void)cudaGetLastError();
        if (!a->quiet)
            fprintf(stderr, "packsell bench: %-20s %s\n", k->name, r->ok ? "done" : "failed");
    }
    rc = CLI_OK;
done:
    release(&g);
    return rc;
}
