/*
 * bench_mkl.c -- the Intel MKL baselines of "packsell bench --device cpu":
 * MKL's inspector-executor CSR SpMV (mkl_sparse_d_mv / mkl_sparse_s_mv) in
 * FP64 and FP32 on a copy of the benchmark's FP64 CSR matrix, after
 * mkl_sparse_set_mv_hint and mkl_sparse_optimize (with the bytes the
 * optimisation keeps), or on the arrays as created (the noopt kernels).
 * Compiled only when CMake
 * found MKL (PSL_HAVE_MKL; cmake/FindPslMKL.cmake).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <mkl.h>
#include <mkl_spblas.h>
#include <stdlib.h>
#include <string.h>

struct bench_mkl {
    int fp64;
    int64_t m, n;
    sparse_matrix_t A;
    struct matrix_descr descr;
    MKL_INT *rows, *cols;
    void *vals;     /* double or float, nnz */
    void *x, *y, *y0; /* the vector type: as the values */
    double alpha, beta;
    int have_handle;
};

static const char *sparse_status_name(sparse_status_t st)
{
    switch (st) {
    case SPARSE_STATUS_SUCCESS: return "success";
    case SPARSE_STATUS_NOT_INITIALIZED: return "not initialized";
    case SPARSE_STATUS_ALLOC_FAILED: return "allocation failed";
    case SPARSE_STATUS_INVALID_VALUE: return "invalid value";
    case SPARSE_STATUS_EXECUTION_FAILED: return "execution failed";
    case SPARSE_STATUS_INTERNAL_ERROR: return "internal error";
    case SPARSE_STATUS_NOT_SUPPORTED: return "not supported";
    default: return "unknown status";
    }
}

void bench_mkl_init(int threads, bench_host *host)
{
    mkl_set_num_threads(threads);
    mkl_set_dynamic(0);
    char text[256] = "";
    mkl_get_version_string(text, (int)sizeof text);
    text[sizeof text - 1] = '\0';
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\n'))
        text[--end] = '\0';
    snprintf(host->mkl_version, sizeof host->mkl_version, "%s", text[0] ? text : "Intel MKL");
    const char *layer = getenv("MKL_THREADING_LAYER");
    snprintf(host->mkl_threading, sizeof host->mkl_threading, "%s",
             layer && *layer ? layer : "intel (default)");
}

/* Allocate n elements of size bytes, 64-byte aligned (n may be 0). */
static void *alloc_aligned(int64_t n, size_t size)
{
    return mkl_malloc((size_t)(n > 0 ? n : 1) * size, 64);
}

static void fill_vector(void *v, const double *src, int64_t n, int fp64)
{
    for (int64_t i = 0; i < n; i++) {
        if (fp64)
            ((double *)v)[i] = src[i];
        else
            ((float *)v)[i] = (float)src[i];
    }
}

bench_mkl *bench_mkl_setup(const bench_args *a, const bench_data *d, const bench_kernel *k,
                           bench_result *r)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    if (psl_matrix_csr_view(d->A, &rp, &ci, &va) != PSL_OK) {
        snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
        return NULL;
    }
    int64_t m = d->info.nrows, n = d->info.ncols, nnz = d->info.nnz;
    if (nnz > (int64_t)0x7fffffff) {
        snprintf(r->error, sizeof r->error, "%lld nonzeros exceed MKL's LP64 index",
                 (long long)nnz);
        return NULL;
    }
    bench_mkl *mk = calloc(1, sizeof *mk);
    if (!mk) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return NULL;
    }
    mk->fp64 = k->opt.value_type == PSL_FP64;
    size_t vs = mk->fp64 ? sizeof(double) : sizeof(float);
    mk->m = m;
    mk->n = n;
    mk->alpha = a->alpha;
    mk->beta = a->beta;
    mk->rows = alloc_aligned(m + 1, sizeof *mk->rows);
    mk->cols = alloc_aligned(nnz, sizeof *mk->cols);
    mk->vals = alloc_aligned(nnz, vs);
    mk->x = alloc_aligned(n, vs);
    mk->y = alloc_aligned(m, vs);
    mk->y0 = alloc_aligned(m, vs);
    if (!mk->rows || !mk->cols || !mk->vals || !mk->x || !mk->y || !mk->y0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        bench_mkl_destroy(mk);
        return NULL;
    }
    for (int64_t i = 0; i <= m; i++)
        mk->rows[i] = (MKL_INT)rp[i];
    for (int64_t p = 0; p < nnz; p++)
        mk->cols[p] = (MKL_INT)ci[p];
    fill_vector(mk->vals, va, nnz, mk->fp64);
    fill_vector(mk->x, d->x, n, mk->fp64);
    fill_vector(mk->y0, d->y0, m, mk->fp64);
    memcpy(mk->y, mk->y0, (size_t)(m > 0 ? m : 0) * vs);
    r->bytes = nnz * (int64_t)(vs + sizeof(MKL_INT)) + (m + 1) * (int64_t)sizeof(MKL_INT);

    mk->descr.type = SPARSE_MATRIX_TYPE_GENERAL;
    mk->descr.mode = SPARSE_FILL_MODE_LOWER;
    mk->descr.diag = SPARSE_DIAG_NON_UNIT;
    double t0 = cli_now();
    sparse_status_t st =
        mk->fp64 ? mkl_sparse_d_create_csr(&mk->A, SPARSE_INDEX_BASE_ZERO, (MKL_INT)m, (MKL_INT)n,
                                           mk->rows, mk->rows + 1, mk->cols, mk->vals)
                 : mkl_sparse_s_create_csr(&mk->A, SPARSE_INDEX_BASE_ZERO, (MKL_INT)m, (MKL_INT)n,
                                           mk->rows, mk->rows + 1, mk->cols, mk->vals);
    mk->have_handle = st == SPARSE_STATUS_SUCCESS;
    double t1 = cli_now();
    /* the expected calls from one product before the optimisation (slower
     * than after it, so the hint errs low) */
    int64_t hint_calls = 0;
    if (st == SPARSE_STATUS_SUCCESS && !k->mkl_optimize) { /* the arrays as created */
        r->mkl_create_seconds = t1 - t0;
        r->mkl_optimize_seconds = 0;
        r->mkl_optimize_bytes = 0;
        r->convert_seconds = r->mkl_create_seconds;
        snprintf(r->impl, sizeof r->impl, "mkl_%c_noopt", mk->fp64 ? 'd' : 's');
        return mk;
    }
    if (st == SPARSE_STATUS_SUCCESS && bench_mkl_run(mk, r) == 0) {
        hint_calls = bench_expected_calls(a, cli_now() - t1);
        memcpy(mk->y, mk->y0, (size_t)(m > 0 ? m : 0) * vs);
        st = mkl_sparse_set_mv_hint(mk->A, SPARSE_OPERATION_NON_TRANSPOSE, mk->descr,
                                    (MKL_INT)(hint_calls < 0x7fffffff ? hint_calls : 0x7fffffff));
    } else if (st == SPARSE_STATUS_SUCCESS) {
        bench_mkl_destroy(mk);
        return NULL;
    }
    int nbuf = 0;
    const MKL_INT64 held = mkl_mem_stat(&nbuf);
    double t2 = cli_now();
    if (st == SPARSE_STATUS_SUCCESS)
        st = mkl_sparse_optimize(mk->A);
    double t3 = cli_now();
    r->mkl_optimize_bytes = (int64_t)(mkl_mem_stat(&nbuf) - held);
    if (st != SPARSE_STATUS_SUCCESS) {
        snprintf(r->error, sizeof r->error, "MKL create/hint/optimize: %s",
                 sparse_status_name(st));
        bench_mkl_destroy(mk);
        return NULL;
    }
    r->mkl_create_seconds = t1 - t0;
    r->mkl_optimize_seconds = t3 - t2;
    r->mkl_hint_calls = hint_calls;
    r->convert_seconds = r->mkl_create_seconds + r->mkl_optimize_seconds;
    return mk;
}

int bench_mkl_run(bench_mkl *mk, bench_result *r)
{
    sparse_status_t st =
        mk->fp64 ? mkl_sparse_d_mv(SPARSE_OPERATION_NON_TRANSPOSE, mk->alpha, mk->A, mk->descr,
                                   mk->x, mk->beta, mk->y)
                 : mkl_sparse_s_mv(SPARSE_OPERATION_NON_TRANSPOSE, (float)mk->alpha, mk->A,
                                   mk->descr, mk->x, (float)mk->beta, mk->y);
    if (st == SPARSE_STATUS_SUCCESS)
        return 0;
    snprintf(r->error, sizeof r->error, "mkl_sparse_%c_mv: %s", mk->fp64 ? 'd' : 's',
             sparse_status_name(st));
    return -1;
}

int bench_mkl_result(bench_mkl *mk, double *y, bench_result *r)
{
    size_t vs = mk->fp64 ? sizeof(double) : sizeof(float);
    memcpy(mk->y, mk->y0, (size_t)(mk->m > 0 ? mk->m : 0) * vs);
    if (bench_mkl_run(mk, r) != 0)
        return -1;
    for (int64_t i = 0; i < mk->m; i++)
        y[i] = mk->fp64 ? ((const double *)mk->y)[i] : (double)((const float *)mk->y)[i];
    return 0;
}

void bench_mkl_destroy(bench_mkl *mk)
{
    if (!mk)
        return;
    if (mk->have_handle)
        mkl_sparse_destroy(mk->A);
    mkl_free(mk->rows);
    mkl_free(mk->cols);
    mkl_free(mk->vals);
    mkl_free(mk->x);
    mkl_free(mk->y);
    mkl_free(mk->y0);
    free(mk);
}
