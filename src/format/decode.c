/*
 * decode.c -- psl_matrix_to_csr: any matrix back to an FP64 CSR matrix in the
 * original row order, with the values exactly as stored (FP32, FP16, BF16 or
 * the PackSELL codec, decoded exactly), explicit zeros kept and padding and
 * dummy words dropped, and a format's own numbering (CSR-k's locality
 * reordering, psl_format_ops.reorder_perm) undone. Each format's walker of
 * one stored row (its psl_format_ops.walk_row) gives the entries; the
 * result goes through psl_csr_adopt with PSL_CSR_STRICT (which sorts
 * nothing: a reordered matrix's renumbered columns are sorted there
 * instead), so a damaged handle (unsorted or out-of-range columns, Inf bit
 * patterns) is reported, not passed on.
 */
#include "format/build.h"
#include "format/format.h"
#include "format/format_ops.h"

#include <stdlib.h>

/* orig[i] = original row of stored row i (rperm: the format's reordering,
 * or NULL); fails when perm is not a permutation inside each block (a
 * damaged handle). */
static psl_status original_rows(const psl_matrix *A, const int32_t *rperm, int32_t *orig,
                                int64_t *seen)
{
    const int64_t n = A->nrows;
    for (int64_t r = 0; r < n; r++)
        seen[r] = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i;
        if (rperm)
            r = rperm[i];
        else if (A->perm && A->sigma > 0) /* sigma-sorted; CSR has no perm */
            r = (i / A->sigma) * A->sigma + psl_perm_get(A, i);
        if (r < 0 || r >= n || seen[r])
            return psl_error_at(PSL_ERR_INVALID_HANDLE, -1, i, -1,
                                "the row permutation of the matrix is damaged at stored row %lld",
                                (long long)i);
        seen[r] = 1;
        orig[i] = (int32_t)r;
    }
    return PSL_OK;
}

psl_status psl_matrix_to_csr(psl_matrix **out, const psl_matrix *A)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *out = NULL;
    PSL_TRY(psl_matrix_check(A));
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    if (!ops)
        return psl_error(PSL_ERR_INVALID_HANDLE, "matrix format %d is not a psl_format",
                         (int)A->format);
    const int64_t n = A->nrows;
    const int32_t *rperm = psl_format_reorder_perm(A);
    psl_status st;
    int32_t *orig = NULL, *ci = NULL;
    int64_t *rp = NULL;
    double *v = NULL;
    if ((st = psl_alloc((void **)&orig, (size_t)n, sizeof *orig, "the row order")) != PSL_OK ||
        (st = psl_alloc((void **)&rp, (size_t)n + 1, sizeof *rp, "row pointers")) != PSL_OK ||
        (st = original_rows(A, rperm, orig, rp)) != PSL_OK)
        goto fail;

    /* entries per original row, then prefix sums */
#pragma omp parallel for schedule(dynamic, 256) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        rp[orig[i] + 1] = ops->walk_row(A, i, NULL, NULL);
    rp[0] = 0;
    for (int64_t r = 0; r < n; r++)
        rp[r + 1] += rp[r];
    const int64_t nnz = rp[n];
    if ((st = psl_alloc((void **)&ci, (size_t)nnz, sizeof *ci, "column indices")) != PSL_OK ||
        (st = psl_alloc((void **)&v, (size_t)nnz, sizeof *v, "values")) != PSL_OK)
        goto fail;
#pragma omp parallel for schedule(dynamic, 256) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        const int64_t len = ops->walk_row(A, i, ci + rp[orig[i]], v + rp[orig[i]]);
        if (rperm) /* the caller's columns (psl_csr_adopt sorts them) */
            for (int64_t e = rp[orig[i]]; e < rp[orig[i]] + len; e++)
                ci[e] = rperm[ci[e]];
    }
    free(orig);
    return psl_csr_adopt(out, A->nrows, A->ncols, rp, ci, v, rperm ? 0 : PSL_CSR_STRICT);
fail:
    free(orig);
    free(rp);
    free(ci);
    free(v);
    return st;
}
