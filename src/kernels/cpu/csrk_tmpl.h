/*
 * csrk_tmpl.h -- body of one OpenMP CSR-k kernel, instantiated by
 * spmv_csrk.c per (value type, vector kind). Expects VAL_NAME and
 * VLOAD(values, k) (stored value k as ACC_T) plus the vector-kind macros of
 * vec_instances.h. Each thread takes one contiguous range of whole
 * super-super-rows (k = 3) or super-rows (k = 2), or of rows (k = 1), of
 * about equal nonzeros + rows (static; psl_group_part_start), and runs its
 * rows in order, four at a time with independent sums (csr_rows_tmpl.h).
 * Each row is summed in column order by one thread, so y has the bits of
 * the reference CSR kernel whatever the threads.
 */

#include "csr_rows_tmpl.h"

static void PSL_CAT4(psl_cpu_csrk_, VAL_NAME, _, VEC_NAME)(double alpha, const psl_matrix *A,
                                                          const void *x, double beta, void *y,
                                                          psl_scalar vec_type)
{
    if (A->nnz == 0 || A->ncols == 0) {
        psl_cpu_scale(alpha, A, beta, y, vec_type);
        return;
    }
    const ACC_T a = (ACC_T)alpha, b = (ACC_T)beta;
    const bool use_beta = beta != 0;
    const int64_t *restrict rp = A->row_ptr;
    const int32_t *restrict col = A->col_idx;
    const void *restrict val = A->values;
    const int32_t n = A->nrows, k = psl_csrk_levels(A);
    const int32_t *sr = psl_csrk_sr_ptr(A), *ssr = psl_csrk_ssr_ptr(A);
    const bool par = A->nnz + n > PSL_OMP_MIN_WORK;
    /* one contiguous range of whole groups per thread (super-super-rows,
     * else super-rows), balanced by nonzeros + rows, static: the groups' rows
     * are consecutive, so a thread streams its range as the CSR kernel does */
    const int32_t ngroups = k == 3 ? psl_csrk_nssr(A) : k == 2 ? psl_csrk_nsr(A) : 0;
    const int32_t *gssr = k == 3 ? ssr : NULL;
#pragma omp parallel if (par)
    {
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
        int32_t r0 = k >= 2 ? psl_group_part_start(rp, n, sr, gssr, ngroups, id, nt)
                            : psl_csr_part_start(rp, n, id, nt);
        int32_t r1 = k >= 2 ? psl_group_part_start(rp, n, sr, gssr, ngroups, id + 1, nt)
                            : psl_csr_part_start(rp, n, id + 1, nt);
        PSL_CAT4(psl_cpu_csr_rows_, VAL_NAME, _, VEC_NAME)(rp, col, val, x, y, r0, r1, a, b,
                                                           use_beta);
    }
}
