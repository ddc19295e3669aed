/*
 * csrk_validate.c -- the checks of a loaded CSR-k matrix (binary reader):
 * its header fields (k, super-row and super-super-row counts), the CSR
 * arrays as CSR's, and the grouping: sr_ptr runs from row 0 to nrows and
 * ssr_ptr from super-row 0 to nsr, both strictly increasing (no empty
 * group); a locality reordering's perm a permutation, inv its inverse.
 */
#include "format/csr/csr.h"
#include "format/csrk/csrk.h"
#include "format/validate.h"

psl_status psl_csrk_check_header(const char *n, const psl_matrix *A)
{
    if (A->value_type != PSL_FP64 && A->value_type != PSL_FP32 && A->value_type != PSL_FP16)
        return PSL_CORRUPT("%s: CSR-k value type %d is not FP64, FP32 or FP16", n,
                           (int)A->value_type);
    const int32_t k = A->C, nsr = A->nslices, nssr = A->sigma;
    if (k < 1 || k > 3)
        return PSL_CORRUPT("%s: CSR-k levels k = %d, expected 1, 2 or 3", n, (int)k);
    if ((A->perm_bytes != 0 && A->perm_bytes != 4) || A->permute != PSL_PERMUTE_IMPLICIT)
        return PSL_CORRUPT("%s: CSR-k matrix with perm_bytes %d and permute %d (expected 0, "
                           "or 4 for a locality reordering, and implicit)",
                           n, (int)A->perm_bytes, (int)A->permute);
    if (A->perm_bytes == 4 && (A->nrows != A->ncols || A->nrows == 0))
        return PSL_CORRUPT("%s: CSR-k locality reordering of a %d x %d matrix (it needs a "
                           "square matrix with rows)",
                           n, (int)A->nrows, (int)A->ncols);
    if (k == 1 ? nsr != 0 : (nsr < 0 || nsr > A->nrows || (nsr == 0) != (A->nrows == 0)))
        return PSL_CORRUPT("%s: CSR-k with k = %d has %d super-rows for %d rows", n, (int)k,
                           (int)nsr, (int)A->nrows);
    if (k < 3 ? nssr != 0 : (nssr < 0 || nssr > nsr || (nssr == 0) != (nsr == 0)))
        return PSL_CORRUPT("%s: CSR-k with k = %d has %d super-super-rows for %d super-rows",
                           n, (int)k, (int)nssr, (int)nsr);
    return PSL_OK;
}

/* p[0..m] runs from 0 to end, strictly increasing; what names the array. */
static psl_status check_ptr(const char *file, const char *what, const int32_t *p, int32_t m,
                            int32_t end)
{
    if (p[0] != 0 || p[m] != end)
        return PSL_CORRUPT("%s: CSR-k %s runs from %d to %d, expected 0 to %d", file, what,
                           (int)p[0], (int)p[m], (int)end);
    for (int32_t i = 0; i < m; i++)
        if (p[i + 1] <= p[i])
            return PSL_CORRUPT("%s: CSR-k %s[%d] = %d, %s[%d] = %d: not strictly increasing",
                               file, what, (int)i, (int)p[i], what, (int)i + 1,
                               (int)p[i + 1]);
    return PSL_OK;
}

/* perm is a permutation of 0 .. n-1 and inv its inverse. */
static psl_status check_perm(const char *file, const int32_t *perm, const int32_t *inv,
                             int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (perm[i] < 0 || perm[i] >= n || inv[perm[i]] != i)
            return PSL_CORRUPT("%s: CSR-k reordering: perm[%d] = %d is out of range or not "
                               "matched by its inverse",
                               file, (int)i, (int)perm[i]);
    return PSL_OK;
}

psl_status psl_csrk_validate(const char *file, const psl_matrix *A)
{
    PSL_TRY(psl_csr_validate(file, A));
    if (A->C >= 2)
        PSL_TRY(check_ptr(file, "sr_ptr", psl_csrk_sr_ptr(A), A->nslices, A->nrows));
    if (A->C == 3)
        PSL_TRY(check_ptr(file, "ssr_ptr", psl_csrk_ssr_ptr(A), A->sigma, A->nslices));
    if (psl_csrk_reordered(A))
        PSL_TRY(check_perm(file, psl_csrk_perm(A), psl_csrk_inv(A), A->nrows));
    return PSL_OK;
}
