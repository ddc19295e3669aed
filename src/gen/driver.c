/*
 * driver.c -- the two-pass parallel CSR builder shared by all generators:
 * pass 1 stores every row's length, a blocked prefix sum turns lengths into
 * row pointers, pass 2 lets the generator fill each row in place. Each row
 * is produced by a pure function of its index, so the arrays are the same
 * bits whatever the number of threads.
 */
#include "gen/gen_internal.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void psl_gen_csr_free(psl_gen_csr *c)
{
    if (!c)
        return;
    free(c->row_ptr);
    free(c->col_idx);
    free(c->values);
    memset(c, 0, sizeof *c);
}

/* Pass 1 and the prefix sum: row_ptr[i+1] = length of row i, then the
 * running sum over contiguous per-thread blocks. *maxlen gets the longest
 * row. Integer sums: the result does not depend on the partition. */
static void count_rows(int64_t *row_ptr, int32_t nrows, const psl_gen_ops *ops, const void *ctx,
                       int64_t *part, int32_t *partmax, int nt, int32_t *maxlen)
{
    row_ptr[0] = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = (int64_t)nrows * t / T, hi = (int64_t)nrows * (t + 1) / T;
        int64_t sum = 0;
        int32_t mx = 0;
        for (int64_t i = lo; i < hi; i++) {
            int32_t c = ops->count(ctx, (int32_t)i);
            row_ptr[i + 1] = c;
            sum += c;
            if (c > mx)
                mx = c;
        }
        part[t + 1] = sum;
        partmax[t] = mx;
#pragma omp barrier
#pragma omp single
        {
            part[0] = 0;
            for (int k = 0; k < T; k++)
                part[k + 1] += part[k];
        }
        int64_t off = part[t];
        for (int64_t i = lo; i < hi; i++) {
            off += row_ptr[i + 1];
            row_ptr[i + 1] = off;
        }
    }
    int32_t mx = 0;
    for (int k = 0; k < nt; k++)
        if (partmax[k] > mx)
            mx = partmax[k];
    *maxlen = mx;
}

psl_status psl_gen_run(psl_gen_csr *out, int32_t nrows, int32_t ncols, const psl_gen_ops *ops,
                       const void *ctx)
{
    psl_status st;
    psl_gen_csr c = {nrows, ncols, NULL, NULL, NULL};
    int64_t *part = NULL;
    int32_t *partmax = NULL;
    unsigned char *ws = NULL;
    size_t ws_stride = 0;
    int nt = omp_get_max_threads();
    int32_t maxlen = 0;
    memset(out, 0, sizeof *out);

    if ((st = psl_alloc((void **)&c.row_ptr, (size_t)nrows + 1, sizeof(int64_t), "row pointers")) ||
        (st = psl_alloc((void **)&part, (size_t)nt + 1, sizeof(int64_t), "prefix sums")) ||
        (st = psl_alloc((void **)&partmax, (size_t)nt, sizeof(int32_t), "row maxima")))
        goto fail;
    for (int k = 0; k < nt; k++)
        partmax[k] = 0;
    count_rows(c.row_ptr, nrows, ops, ctx, part, partmax, nt, &maxlen);

    int64_t nnz = c.row_ptr[nrows];
    if (nnz < 0 || (uint64_t)nnz > (uint64_t)PTRDIFF_MAX / sizeof(double)) {
        st = psl_error(PSL_ERR_SIZE_OVERFLOW,
                       "generated matrix would have %lld nonzeros: too many to address",
                       (long long)nnz);
        goto fail;
    }
    if ((st = psl_alloc((void **)&c.col_idx, (size_t)nnz, sizeof(int32_t), "column indices")) ||
        (st = psl_alloc((void **)&c.values, (size_t)nnz, sizeof(double), "values")))
        goto fail;
    if (ops->ws_bytes) {
        ws_stride = (ops->ws_bytes(ctx, maxlen) + 63) / 64 * 64;
        if ((st = psl_alloc((void **)&ws, (size_t)nt, ws_stride, "generator workspace")))
            goto fail;
    }

    if (ops->uneven) {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 64)
        for (int64_t i = 0; i < nrows; i++)
            ops->fill(ctx, (int32_t)i, c.col_idx + c.row_ptr[i], c.values + c.row_ptr[i],
                      ws ? ws + ws_stride * (size_t)omp_get_thread_num() : NULL);
    } else {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t i = 0; i < nrows; i++)
            ops->fill(ctx, (int32_t)i, c.col_idx + c.row_ptr[i], c.values + c.row_ptr[i],
                      ws ? ws + ws_stride * (size_t)omp_get_thread_num() : NULL);
    }

    free(part);
    free(partmax);
    free(ws);
    *out = c;
    return PSL_OK;

fail:
    free(part);
    free(partmax);
    free(ws);
    psl_gen_csr_free(&c);
    return st;
}
