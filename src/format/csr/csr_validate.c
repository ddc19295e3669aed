/*
 * csr_validate.c -- the checks of a loaded CSR matrix (binary reader): its
 * header fields, then every row's pointers, columns and values.
 */
#include "format/csr/csr.h"
#include "format/validate.h"

psl_status psl_csr_check_header(const char *n, const psl_matrix *A)
{
    if (A->value_type != PSL_FP64 && A->value_type != PSL_FP32)
        return PSL_CORRUPT("%s: CSR value type %d is not FP64 or FP32", n, (int)A->value_type);
    if (A->nslices != 0 || A->perm_bytes != 0 || A->C < 0 || A->sigma < 0)
        return PSL_CORRUPT("%s: CSR matrix with SELL fields (nslices %d, perm_bytes %d, C %d, "
                           "sigma %d)",
                           n, (int)A->nslices, (int)A->perm_bytes, (int)A->C, (int)A->sigma);
    return PSL_OK;
}

/* CSR row i: pointers, columns in range and strictly ascending, values finite. */
static int check_csr_row(const psl_matrix *A, int64_t i, psl_check_counts *acc,
                         unsigned char *aux, char *msg, size_t len)
{
    int64_t a = A->row_ptr[i], b = A->row_ptr[i + 1];
    if (a < 0 || b < a || b > A->nnz)
        return psl_check_fail(msg, len, "row_ptr[%lld] = %lld, row_ptr[%lld] = %lld: not "
                              "non-decreasing within [0, nnz %lld]",
                              (long long)i, (long long)a, (long long)i + 1, (long long)b,
                              (long long)A->nnz);
    int64_t prev = -1;
    for (int64_t p = a; p < b; p++) {
        int32_t c = A->col_idx[p];
        if (c < 0 || c >= A->ncols)
            return psl_check_fail(msg, len, "row %lld: column %d outside [0, ncols %d)",
                                  (long long)i, (int)c, (int)A->ncols);
        if (c <= prev)
            return psl_check_fail(msg, len, "row %lld: column %d does not follow column %lld "
                                  "in ascending order",
                                  (long long)i, (int)c, (long long)prev);
        if (psl_value_nonfinite(A->value_type, A->values, p))
            return psl_check_fail(msg, len, "row %lld, column %d: value is Inf or NaN",
                                  (long long)i, (int)c);
        prev = c;
    }
    if (b - a > acc->max_row)
        acc->max_row = (int32_t)(b - a);
    acc->nnz += b - a;
    return 0;
}

psl_status psl_csr_validate(const char *file, const psl_matrix *A)
{
    psl_check_counts tot;
    if (A->row_ptr[0] != 0 || A->row_ptr[A->nrows] != A->nnz)
        return PSL_CORRUPT("%s: row_ptr runs from %lld to %lld, expected 0 to nnz %lld", file,
                           (long long)A->row_ptr[0], (long long)A->row_ptr[A->nrows],
                           (long long)A->nnz);
    PSL_TRY(psl_check_items(file, A, A->nrows, 4096, A->nrows + A->nnz, check_csr_row, NULL,
                            &tot));
    return psl_check_same(file, "max_row_nnz", A->max_row_nnz, tot.max_row);
}
