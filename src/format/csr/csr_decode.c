/*
 * csr_decode.c -- one row of a CSR matrix as FP64 CSR entries (the walker
 * of psl_matrix_to_csr): its columns and exact values.
 */
#include "format/build.h"
#include "format/csr/csr.h"

int64_t psl_csr_walk_row(const psl_matrix *A, int64_t i, int32_t *ci, double *v)
{
    int64_t cnt = 0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++, cnt++)
        if (ci) {
            ci[cnt] = A->col_idx[k];
            v[cnt] = psl_load_scalar(A->values, A->value_type, k);
        }
    return cnt;
}
