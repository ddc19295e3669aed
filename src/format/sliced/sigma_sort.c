/*
 * sigma_sort.c -- the row order shared by SELL-C-sigma and PackSELL: inside
 * each block of sigma rows, rows sorted stably by descending length (ties
 * keep their original order), the perm array derived from it, the slice
 * offsets of a slicing with C lanes, the new handle of a sliced build, and
 * the parallel loop that fills the slices (each builder brings its own fill
 * of one slice).
 */
#include "format/build.h"

#include <stdio.h>
#include <stdlib.h>

/* Run length of the insertion sort that starts the merge sort. */
#define SORT_RUN 16

/* Stable sort of a[0..n) by descending len[a[x]]; tmp has n entries. */
static void sort_block(int32_t *a, int32_t *tmp, int64_t n, const int64_t *len)
{
    bool sorted = true;
    for (int64_t x = 1; x < n && sorted; x++)
        sorted = len[a[x]] <= len[a[x - 1]];
    if (sorted)
        return;
    for (int64_t s = 0; s < n; s += SORT_RUN) {
        int64_t e = s + SORT_RUN < n ? s + SORT_RUN : n;
        for (int64_t x = s + 1; x < e; x++) {
            int32_t v = a[x];
            int64_t y = x;
            while (y > s && len[a[y - 1]] < len[v]) { /* strict: equal keys stay */
                a[y] = a[y - 1];
                y--;
            }
            a[y] = v;
        }
    }
    int32_t *from = a, *to = tmp;
    for (int64_t w = SORT_RUN; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t p = lo, q = mid, o = lo;
            while (p < mid && q < hi) /* take the right one only if strictly longer */
                to[o++] = len[from[q]] > len[from[p]] ? from[q++] : from[p++];
            while (p < mid)
                to[o++] = from[p++];
            while (q < hi)
                to[o++] = from[q++];
        }
        int32_t *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, (size_t)n * sizeof *a);
}

psl_status psl_sigma_order(int32_t nrows, int32_t sigma, const int64_t *len, int32_t *order)
{
#pragma omp parallel for if (nrows > PSL_PAR_MIN)
    for (int32_t i = 0; i < nrows; i++)
        order[i] = i;
    if (sigma == 0 || nrows == 0)
        return PSL_OK;
    int32_t *tmp = NULL;
    PSL_TRY(psl_alloc((void **)&tmp, (size_t)nrows, sizeof *tmp, "sigma-sorting scratch"));
    const int64_t nblocks = ((int64_t)nrows + sigma - 1) / sigma;
#pragma omp parallel for schedule(dynamic, 16) if (nrows > PSL_PAR_MIN)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t lo = b * sigma, hi = lo + sigma < nrows ? lo + sigma : nrows;
        sort_block(order + lo, tmp + lo, hi - lo, len);
    }
    free(tmp);
    return PSL_OK;
}

psl_status psl_set_perm(psl_matrix *A, const int32_t *order)
{
    A->perm = NULL;
    A->perm_bytes = 0;
    if (A->sigma == 0)
        return PSL_OK;
    const int pb = psl_perm_bytes_for_sigma(A->sigma);
    PSL_TRY(psl_alloc(&A->perm, (size_t)A->nrows, (size_t)pb, "the sigma permutation"));
    A->perm_bytes = pb;
    const int64_t n = A->nrows, sigma = A->sigma;
#pragma omp parallel for if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        uint32_t p = (uint32_t)(order[i] - (i / sigma) * sigma);
        switch (pb) {
        case 1: ((uint8_t *)A->perm)[i] = (uint8_t)p; break;
        case 2: ((uint16_t *)A->perm)[i] = (uint16_t)p; break;
        default: ((uint32_t *)A->perm)[i] = p; break;
        }
    }
    return PSL_OK;
}

psl_status psl_slice_offsets(int32_t nrows, int32_t C, const int64_t *len, const int32_t *order,
                             int64_t *slice_ptr)
{
    const int64_t nslices = ((int64_t)nrows + C - 1) / C;
    slice_ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 64) if (nrows > PSL_PAR_MIN)
    for (int64_t k = 0; k < nslices; k++) {
        int64_t lo = k * C, hi = lo + C < nrows ? lo + C : nrows, w = 0;
        for (int64_t i = lo; i < hi; i++) {
            int64_t l = len[order ? order[i] : i];
            if (l > w)
                w = l;
        }
        /* w < 2^33 (a row of ncols < 2^31 entries and as many dummies), C < 2^31 */
        slice_ptr[k + 1] = w * C;
    }
    for (int64_t k = 0; k < nslices; k++) {
        if (slice_ptr[k + 1] > INT64_MAX - slice_ptr[k])
            return psl_error(PSL_ERR_SIZE_OVERFLOW,
                             "the stored entries of %lld slices exceed int64 (slice %lld)",
                             (long long)nslices, (long long)k);
        slice_ptr[k + 1] += slice_ptr[k];
    }
    return PSL_OK;
}

psl_status psl_sliced_new(psl_matrix **A, psl_format f, const psl_matrix *src,
                          const psl_convert_options *opt)
{
    *A = psl_matrix_new(f, src->nrows, src->ncols);
    if (!*A)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
    (*A)->nnz = src->nnz;
    (*A)->C = opt->slice_height;
    (*A)->sigma = opt->sigma;
    (*A)->permute = opt->permute;
    return PSL_OK;
}

psl_status psl_build_slicing(psl_matrix *A, const int64_t *len, double entry_bytes,
                             int32_t **order_out)
{
    int32_t *order = NULL;
    psl_status st;
    *order_out = NULL;
    A->nslices = (int32_t)(((int64_t)A->nrows + A->C - 1) / A->C);
    if ((st = psl_alloc((void **)&order, (size_t)A->nrows, sizeof *order, "the row order")) !=
            PSL_OK ||
        (st = psl_sigma_order(A->nrows, A->sigma, len, order)) != PSL_OK ||
        (st = psl_set_perm(A, order)) != PSL_OK ||
        (st = psl_alloc((void **)&A->slice_ptr, (size_t)A->nslices + 1, sizeof *A->slice_ptr,
                        "slice offsets")) != PSL_OK ||
        (st = psl_slice_offsets(A->nrows, A->C, len, order, A->slice_ptr)) != PSL_OK) {
        free(order);
        return st;
    }
    A->stored = A->slice_ptr[A->nslices];
    if (entry_bytes > 0) {
        char what[200];
        snprintf(what, sizeof what,
                 "%s storage with C = %d, sigma = %d (%lld stored entries for %lld nonzeros)",
                 A->format == PSL_FORMAT_PACKSELL ? "PackSELL" : "SELL-C-sigma", (int)A->C,
                 (int)A->sigma, (long long)A->stored, (long long)A->nnz);
        if ((st = psl_memory_check(entry_bytes * (double)A->stored, what)) != PSL_OK) {
            free(order);
            return st;
        }
    }
    *order_out = order;
    return PSL_OK;
}

int64_t psl_fill_slices(psl_matrix *A, const psl_matrix *src, const int32_t *order,
                        psl_overflow policy, psl_slice_fill fill, int64_t *under)
{
    int64_t bad = INT64_MAX, u = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(min : bad) reduction(+ : u) \
    if (A->stored > PSL_PAR_MIN)
    for (int64_t k = 0; k < A->nslices; k++) {
        int64_t b = fill(A, src, order, k, policy, &u);
        if (b < bad)
            bad = b;
    }
    *under = u;
    return bad;
}
