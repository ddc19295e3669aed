/*
 * matrix.c -- the matrix handle: creation, checking, destruction, and the
 * queries that work on every format (info, row order, CSR view); what
 * depends on the format comes from the table of formats.
 */
#include "format/format.h"
#include "format/format_ops.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

psl_matrix *psl_matrix_new(psl_format format, int32_t nrows, int32_t ncols)
{
    psl_matrix *A = psl_calloc(1, sizeof *A);
    if (!A)
        return NULL;
    A->magic = PSL_MATRIX_MAGIC;
    A->format = format;
    A->nrows = nrows;
    A->ncols = ncols;
    A->value_type = PSL_FP64;
    return A;
}

psl_status psl_matrix_check(const psl_matrix *A)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "matrix handle is NULL");
    if (A->magic != PSL_MATRIX_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE,
                         "matrix handle is invalid (destroyed or never created)");
    return PSL_OK;
}

psl_status psl_matrix_check_fp64_csr(const psl_matrix *A, const char *who)
{
    PSL_TRY(psl_matrix_check(A));
    if (A->format != PSL_FORMAT_CSR || A->value_type != PSL_FP64)
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "%s needs an FP64 CSR matrix (this one is %s %s; use "
                         "psl_matrix_to_csr first)",
                         who, psl_format_display(A->format), psl_scalar_display(A->value_type));
    return PSL_OK;
}

void psl_matrix_destroy(psl_matrix **A)
{
    if (!A || !*A)
        return;
    psl_matrix *M = *A;
    if (M->magic == PSL_MATRIX_MAGIC) {
        if (!M->borrowed) {
            free(M->row_ptr);
            free(M->col_idx);
            free(M->values);
        }
        free(M->slice_ptr);
        free(M->perm);
        free(M->sell_col);
        free(M->sell_val);
        free(M->words);
        free(M->cpu_runs);
        const psl_format_ops *ops = psl_format_ops_of(M->format);
        if (M->payload && ops && ops->release)
            ops->release(M);
        M->magic = PSL_DEAD_MAGIC;
        free(M);
    }
    *A = NULL;
}

size_t psl_scalar_size(psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return 8;
    case PSL_FP32: return 4;
    case PSL_FP16:
    case PSL_BF16: return 2;
    }
    return 0;
}

int psl_perm_bytes_for_sigma(int32_t sigma)
{
    if (sigma <= 256)
        return 1;
    if (sigma <= 65536)
        return 2;
    return 4;
}

psl_status psl_matrix_row_order(const psl_matrix *A, int32_t *order)
{
    PSL_TRY(psl_matrix_check(A));
    if (!order && A->nrows > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "order is NULL");
    const int32_t *rperm = psl_format_reorder_perm(A);
    if (rperm) { /* CSR-k's locality reordering */
        memcpy(order, rperm, (size_t)A->nrows * sizeof *order);
        return PSL_OK;
    }
    if (!A->perm) { /* unsorted, or CSR */
        for (int32_t i = 0; i < A->nrows; i++)
            order[i] = i;
        return PSL_OK;
    }
    for (int64_t i = 0; i < A->nrows; i++)
        order[i] = (int32_t)((i / A->sigma) * A->sigma + psl_perm_get(A, i));
    return PSL_OK;
}

psl_status psl_matrix_csr_view(const psl_matrix *A, const int64_t **row_ptr,
                               const int32_t **col_idx, const double **values)
{
    PSL_TRY(psl_matrix_check(A));
    if (!psl_matrix_is_fp64_csr(A))
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "csr_view needs an FP64 CSR matrix (use psl_matrix_to_csr first)");
    if (row_ptr)
        *row_ptr = A->row_ptr;
    if (col_idx)
        *col_idx = A->col_idx;
    if (values)
        *values = (const double *)A->values;
    return PSL_OK;
}

psl_status psl_matrix_get_info(const psl_matrix *A, psl_matrix_info *info)
{
    PSL_TRY(psl_matrix_check(A));
    if (!info)
        return psl_error(PSL_ERR_NULL_POINTER, "info is NULL");
    memset(info, 0, sizeof *info);
    info->format = A->format;
    info->value_type = A->value_type;
    info->codec = A->codec;
    info->delta_bits = A->delta_bits;
    info->nrows = A->nrows;
    info->ncols = A->ncols;
    info->nnz = A->nnz;
    info->slice_height = A->C;
    info->sigma = A->sigma;
    info->permute = A->permute;
    info->nslices = A->nslices;
    info->max_row_nnz = A->max_row_nnz;
    info->mean_row_nnz = A->nrows ? (double)A->nnz / A->nrows : 0.0;
    info->rsd = A->rsd;
    info->kleft = A->kleft;
    info->stored = A->stored;
    info->dummies = A->dummies;
    info->padding = A->padding;
    info->underflows = A->underflows;
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    if (ops) /* bytes, and the SELL and CSR equivalents */
        ops->info_bytes(A, info);
    return PSL_OK;
}
