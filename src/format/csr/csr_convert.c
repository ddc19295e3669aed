/*
 * csr_convert.c -- conversions to CSR: an FP64 CSR source copied (FP64) or
 * rounded (FP32), and the size estimate that follows from the source
 * without a copy.
 */
#include "format/build.h"
#include "format/csr/csr.h"

#include <stdlib.h>

psl_status psl_csr_build(psl_matrix **out, const psl_matrix *src,
                         const psl_convert_options *opt, bool dry)
{
    const int64_t n = src->nrows, nnz = src->nnz;
    const psl_scalar t = opt->value_type;
    psl_status st = PSL_OK;
    psl_matrix *A = psl_matrix_new(PSL_FORMAT_CSR, src->nrows, src->ncols);
    if (!A)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
    if ((st = psl_alloc((void **)&A->row_ptr, (size_t)n + 1, sizeof *A->row_ptr,
                        "row pointers")) != PSL_OK ||
        (st = psl_alloc((void **)&A->col_idx, (size_t)nnz, sizeof *A->col_idx,
                        "column indices")) != PSL_OK ||
        (st = psl_alloc(&A->values, (size_t)nnz, psl_scalar_size(t), "values")) != PSL_OK)
        goto fail;
    memcpy(A->row_ptr, src->row_ptr, ((size_t)n + 1) * sizeof *A->row_ptr);
    if (nnz > 0)
        memcpy(A->col_idx, src->col_idx, (size_t)nnz * sizeof *A->col_idx);

    const double *sv = src->values;
    int64_t first_bad = INT64_MAX, under = 0;
#pragma omp parallel for reduction(min : first_bad) reduction(+ : under) if (nnz > PSL_PAR_MIN)
    for (int64_t k = 0; k < nnz; k++) {
        uint64_t bits = 0;
        int uf = 0;
        if (psl_round_scalar(t, opt->overflow, sv[k], &bits, &uf) != PSL_OK) {
            if (k < first_bad)
                first_bad = k;
            continue;
        }
        under += uf;
        psl_store_scalar(A->values, t, k, bits);
    }
    if (first_bad != INT64_MAX) {
        uint64_t bits;
        int uf;
        int64_t row = psl_row_of_entry(src->row_ptr, n, first_bad);
        st = psl_round_error(psl_round_scalar(t, opt->overflow, sv[first_bad], &bits, &uf), row,
                             src->col_idx[first_bad], sv[first_bad], psl_scalar_display(t));
        goto fail;
    }
    A->nnz = nnz;
    A->value_type = t;
    A->stored = nnz;
    A->underflows = under;
    A->max_row_nnz = src->max_row_nnz;
    A->rsd = src->rsd;
    A->kleft = src->kleft;
    *out = A;
    return PSL_OK;
fail:
    psl_matrix_destroy(&A);
    return st;
}

psl_status psl_csr_estimate(const psl_matrix *src, const psl_convert_options *opt,
                            psl_matrix_info *info)
{
    PSL_TRY(psl_matrix_get_info(src, info));
    info->value_type = opt->value_type;
    info->bytes = info->csr_bytes =
        ((int64_t)info->nrows + 1) * 8 +
        info->nnz * (4 + (int64_t)psl_scalar_size(opt->value_type));
    return PSL_OK;
}
