/*
 * csr_tmpl.h -- body of one OpenMP CSR kernel, instantiated by spmv_csr.c
 * per (value type, vector kind). Expects VAL_NAME and VLOAD(values, k) (the
 * stored value k as ACC_T) plus the vector-kind macros of vec_instances.h.
 * Each thread takes one contiguous range of rows of about equal work
 * (nonzeros + rows); each row is summed in column order by one thread, so
 * the result does not depend on the number of threads. The rows of a range
 * go through csr_rows_tmpl.h (four at a time, a single sum being bound by
 * the add latency).
 */
#include "csr_rows_tmpl.h"

static void PSL_CAT4(psl_cpu_csr_, VAL_NAME, _, VEC_NAME)(double alpha, const psl_matrix *A,
                                                         const void *x, double beta, void *y,
                                                         psl_scalar vec_type)
{
    (void)vec_type;
    if (A->nnz == 0 || A->ncols == 0) {
        psl_cpu_scale(alpha, A, beta, y, vec_type);
        return;
    }
    const ACC_T a = (ACC_T)alpha, b = (ACC_T)beta;
    const bool use_beta = beta != 0;
    const int64_t *restrict rp = A->row_ptr;
    const int32_t *restrict col = A->col_idx;
    const void *restrict val = A->values;
    const int32_t n = A->nrows;
#pragma omp parallel if (A->nnz + n > PSL_OMP_MIN_WORK)
    {
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
        int32_t r0 = psl_csr_part_start(rp, n, id, nt);
        int32_t r1 = psl_csr_part_start(rp, n, id + 1, nt);
        PSL_CAT4(psl_cpu_csr_rows_, VAL_NAME, _, VEC_NAME)(rp, col, val, x, y, r0, r1, a, b,
                                                          use_beta);
    }
}
