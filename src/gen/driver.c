/*
 * driver.c -- the two-pass parallel CSR builder shared by all generators,
 * for any range of rows of a source: pass 1 stores every row's length, a
 * blocked prefix sum turns lengths into row pointers, pass 2 lets the
 * generator fill each row in place. Each row is produced by a pure function
 * of its global index, so the arrays are the same bits whatever the number
 * of threads, and a range's rows are those of the whole matrix.
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

void psl_gen_close(psl_gen_source *g)
{
    if (!g)
        return;
    free(g->ctx);
    memset(g, 0, sizeof *g);
}

int32_t psl_gen_row_length(const psl_gen_source *g, int32_t row)
{
    return g->ops->count(g->ctx, row);
}

/* Pass 1 and the prefix sum: row_ptr[i+1] = length of row row0+i, then the
 * running sum over contiguous per-thread blocks. Integer sums: the result
 * does not depend on the partition. */
psl_status psl_gen_row_ptr(const psl_gen_source *g, int32_t row0, int32_t row1, int64_t *row_ptr,
                           int32_t *maxlen)
{
    int nt = omp_get_max_threads();
    int64_t *part = NULL;
    int32_t *partmax = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&part, (size_t)nt + 1, sizeof(int64_t), "prefix sums")) ||
        (st = psl_alloc_zero((void **)&partmax, (size_t)nt, sizeof(int32_t), "row maxima"))) {
        free(part);
        return st;
    }
    const int64_t nrows = (int64_t)row1 - row0;
    const psl_gen_ops *ops = g->ops;
    row_ptr[0] = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), T = omp_get_num_threads();
        int64_t lo = nrows * t / T, hi = nrows * (t + 1) / T;
        int64_t sum = 0;
        int32_t mx = 0;
        for (int64_t i = lo; i < hi; i++) {
            int32_t c = ops->count(g->ctx, (int32_t)(row0 + i));
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
    if (maxlen)
        *maxlen = mx;
    free(part);
    free(partmax);
    return PSL_OK;
}

psl_status psl_gen_build_rows(psl_gen_csr *out, const psl_gen_source *g, int32_t row0,
                              int32_t row1)
{
    psl_status st;
    memset(out, 0, sizeof *out);
    if (!g || !g->ops || row0 < 0 || row1 < row0 || row1 > g->n)
        return psl_error(PSL_ERR_INTERNAL, "generator rows [%d, %d) outside the source's %d",
                         (int)row0, (int)row1, g ? (int)g->n : -1);
    const psl_gen_ops *ops = g->ops;
    const void *ctx = g->ctx;
    const int32_t nrows = row1 - row0;
    psl_gen_csr c = {nrows, g->n, NULL, NULL, NULL};
    unsigned char *ws = NULL;
    size_t ws_stride = 0;
    int nt = omp_get_max_threads();
    int32_t maxlen = 0;

    if ((st = psl_alloc((void **)&c.row_ptr, (size_t)nrows + 1, sizeof(int64_t), "row pointers")) ||
        (st = psl_gen_row_ptr(g, row0, row1, c.row_ptr, &maxlen)))
        goto fail;

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
            ops->fill(ctx, (int32_t)(row0 + i), c.col_idx + c.row_ptr[i], c.values + c.row_ptr[i],
                      ws ? ws + ws_stride * (size_t)omp_get_thread_num() : NULL);
    } else {
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t i = 0; i < nrows; i++)
            ops->fill(ctx, (int32_t)(row0 + i), c.col_idx + c.row_ptr[i], c.values + c.row_ptr[i],
                      ws ? ws + ws_stride * (size_t)omp_get_thread_num() : NULL);
    }

    free(ws);
    *out = c;
    return PSL_OK;

fail:
    free(ws);
    psl_gen_csr_free(&c);
    return st;
}
