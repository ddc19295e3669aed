/*
 * sliced_validate.c -- the checks of a loaded SELL or PackSELL matrix that
 * do not depend on what a slice holds: the slicing fields of the header,
 * slice_ptr, the sigma blocks of perm, and the header's counts against the
 * arrays' (sliced.h). Each format brings its check of one slice.
 */
#include "format/sliced/sliced.h"

#include <stdlib.h>
#include <string.h>

psl_status psl_sliced_check_header(const char *n, const psl_matrix *A)
{
    if (A->C < 1)
        return PSL_CORRUPT("%s: slice height C = %d < 1", n, (int)A->C);
    if (A->sigma < 0 || A->sigma % A->C != 0)
        return PSL_CORRUPT("%s: sigma %d is not 0 or a positive multiple of C = %d", n,
                           (int)A->sigma, (int)A->C);
    int want_pb = A->sigma ? psl_perm_bytes_for_sigma(A->sigma) : 0;
    if (A->perm_bytes != want_pb)
        return PSL_CORRUPT("%s: perm_bytes %d, but sigma %d needs %d", n, (int)A->perm_bytes,
                           (int)A->sigma, want_pb);
    int64_t want_ns = ((int64_t)A->nrows + A->C - 1) / A->C;
    if (A->nslices != want_ns)
        return PSL_CORRUPT("%s: %d slices, but %d rows in slices of %d need %lld", n,
                           (int)A->nslices, (int)A->nrows, (int)A->C, (long long)want_ns);
    if (A->nnz > A->stored || A->padding > A->stored || A->dummies > A->stored ||
        A->nnz + A->padding + A->dummies != A->stored)
        return PSL_CORRUPT("%s: nnz %lld + padding %lld + dummies %lld != stored %lld", n,
                           (long long)A->nnz, (long long)A->padding, (long long)A->dummies,
                           (long long)A->stored);
    return PSL_OK;
}

int psl_sliced_check_slice_ptr(const psl_matrix *A, int64_t k, char *msg, size_t len)
{
    int64_t a = A->slice_ptr[k], b = A->slice_ptr[k + 1];
    if (a < 0 || b < a || b > A->stored)
        return psl_check_fail(msg, len, "slice_ptr[%lld] = %lld, slice_ptr[%lld] = %lld: not "
                              "non-decreasing within [0, stored %lld]",
                              (long long)k, (long long)a, (long long)k + 1, (long long)b,
                              (long long)A->stored);
    if ((b - a) % A->C != 0)
        return psl_check_fail(msg, len, "slice %lld: length %lld is not a multiple of C = %d",
                              (long long)k, (long long)(b - a), (int)A->C);
    return 0;
}

/* Sigma block b of perm: every entry inside the block, no repeats (so the
 * block is a permutation of its rows). aux: nrows bytes, zero on entry. */
static int check_perm_block(const psl_matrix *A, int64_t b, psl_check_counts *acc,
                            unsigned char *aux, char *msg, size_t len)
{
    const int64_t lo = b * A->sigma;
    const int64_t hi = lo + A->sigma < A->nrows ? lo + A->sigma : A->nrows;
    if (msg) /* the serial re-check starts from a clean block */
        memset(aux + lo, 0, (size_t)(hi - lo));
    for (int64_t i = lo; i < hi; i++) {
        int64_t p = psl_perm_get(A, i);
        if (p < 0 || p >= hi - lo)
            return psl_check_fail(msg, len,
                                  "perm[%lld] = %lld is outside its sigma block of %lld rows",
                                  (long long)i, (long long)p, (long long)(hi - lo));
        if (aux[lo + p])
            return psl_check_fail(msg, len,
                                  "perm[%lld] = %lld repeats an earlier entry of its sigma "
                                  "block (rows %lld..%lld)",
                                  (long long)i, (long long)p, (long long)lo, (long long)hi - 1);
        aux[lo + p] = 1;
    }
    return 0;
}

psl_status psl_sliced_validate(const char *file, const psl_matrix *A,
                               psl_item_check slice_check)
{
    psl_check_counts tot;
    if (A->slice_ptr[0] != 0 || A->slice_ptr[A->nslices] != A->stored)
        return PSL_CORRUPT("%s: slice_ptr runs from %lld to %lld, expected 0 to stored %lld",
                           file, (long long)A->slice_ptr[0],
                           (long long)A->slice_ptr[A->nslices], (long long)A->stored);
    if (A->sigma > 0) {
        unsigned char *seen = psl_calloc((size_t)A->nrows, 1);
        if (!seen)
            return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory checking perm (%d bytes)",
                             (int)A->nrows);
        int64_t nblocks = ((int64_t)A->nrows + A->sigma - 1) / A->sigma;
        psl_status st =
            psl_check_items(file, A, nblocks, 1, A->nrows, check_perm_block, seen, &tot);
        free(seen);
        PSL_TRY(st);
    }
    PSL_TRY(psl_check_items(file, A, A->nslices, 64, A->nslices + A->stored, slice_check, NULL,
                            &tot));
    PSL_TRY(psl_check_same(file, "nnz", A->nnz, tot.nnz));
    PSL_TRY(psl_check_same(file, "padding", A->padding, tot.padding));
    PSL_TRY(psl_check_same(file, "dummies", A->dummies, tot.dummies));
    return psl_check_same(file, "max_row_nnz", A->max_row_nnz, tot.max_row);
}
