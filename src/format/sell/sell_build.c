/*
 * sell_build.c -- FP64 CSR -> SELL-C-sigma with FP64, FP32, FP16 or BF16
 * values. Slices of C stored rows, column-major inside a slice (entry j of
 * lane l of slice k at slice_ptr[k] + j*C + l), padding with column -1 and
 * value bits 0. Filled in parallel over slices.
 */
#include "format/build.h"

#include <stdlib.h>

/* Fill slice k: every lane's row, then padding. Returns the smallest CSR
 * entry index whose value could not be rounded (INT64_MAX if none) and adds
 * the underflows to *under. */
static int64_t fill_slice(psl_matrix *A, const psl_matrix *src, const int32_t *order, int64_t k,
                          psl_overflow policy, int64_t *under)
{
    const int64_t C = A->C, base = A->slice_ptr[k];
    const int64_t width = (A->slice_ptr[k + 1] - base) / C;
    const double *sv = src->values;
    int64_t bad = INT64_MAX;
    if (width == 0)
        return bad;
    for (int64_t l = 0; l < C; l++) {
        const int64_t i = k * C + l;
        int64_t lo = 0, len = 0;
        if (i < A->nrows) {
            lo = src->row_ptr[order[i]];
            len = src->row_ptr[order[i] + 1] - lo;
        }
        for (int64_t j = 0; j < width; j++) {
            const int64_t at = base + j * C + l;
            uint64_t bits = 0;
            int32_t col = -1;
            if (j < len) {
                int uf = 0;
                col = src->col_idx[lo + j];
                if (psl_round_scalar(A->value_type, policy, sv[lo + j], &bits, &uf) != PSL_OK) {
                    bits = 0;
                    if (lo + j < bad)
                        bad = lo + j;
                }
                *under += uf;
            }
            A->sell_col[at] = col;
            psl_store_scalar(A->sell_val, A->value_type, at, bits);
        }
    }
    return bad;
}

psl_status psl_sell_build(psl_matrix **out, const psl_matrix *src, const psl_convert_options *opt,
                          bool dry)
{
    const int64_t n = src->nrows;
    psl_status st = PSL_OK;
    int64_t *len = NULL;
    int32_t *order = NULL;
    psl_matrix *A = NULL;
    PSL_TRY(psl_sliced_new(&A, PSL_FORMAT_SELL, src, opt));
    A->value_type = opt->value_type;
    if ((st = psl_alloc((void **)&len, (size_t)n, sizeof *len, "row lengths")) != PSL_OK)
        goto fail;
#pragma omp parallel for if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        len[i] = src->row_ptr[i + 1] - src->row_ptr[i];
    const size_t vsize = psl_scalar_size(A->value_type);
    if ((st = psl_build_slicing(A, len, dry ? 0.0 : (double)(sizeof *A->sell_col + vsize),
                                &order)) != PSL_OK)
        goto fail;
    if (!dry &&
        ((st = psl_alloc((void **)&A->sell_col, (size_t)A->stored, sizeof *A->sell_col,
                         "SELL column indices")) != PSL_OK ||
         (st = psl_alloc(&A->sell_val, (size_t)A->stored, vsize, "SELL values")) != PSL_OK))
        goto fail;

    int64_t under = 0;
    const int64_t bad =
        dry ? INT64_MAX : psl_fill_slices(A, src, order, opt->overflow, fill_slice, &under);
    if (bad != INT64_MAX) {
        uint64_t bits;
        int uf;
        double v = ((const double *)src->values)[bad];
        st = psl_round_error(psl_round_scalar(A->value_type, opt->overflow, v, &bits, &uf),
                             psl_row_of_entry(src->row_ptr, n, bad), src->col_idx[bad], v,
                             psl_scalar_display(A->value_type));
        goto fail;
    }
    A->padding = A->stored - A->nnz;
    A->underflows = under;
    A->max_row_nnz = src->max_row_nnz;
    A->rsd = src->rsd;
    A->kleft = src->kleft;
    A->csr_equiv_bytes = (n + 1) * 8 + A->nnz * (4 + (int64_t)vsize);
    A->sell_equiv_bytes =
        A->stored * (4 + (int64_t)vsize) + ((int64_t)A->nslices + 1) * 8 +
        (A->permute == PSL_PERMUTE_IMPLICIT ? n * A->perm_bytes : 0);
    free(len);
    free(order);
    *out = A;
    return PSL_OK;
fail:
    free(len);
    free(order);
    psl_matrix_destroy(&A);
    return st;
}
