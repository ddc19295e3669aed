/*
 * csrk_tmpl.h -- body of one OpenMP CSR-k kernel, instantiated by
 * spmv_csrk.c per (value type, vector kind). Expects VAL_NAME and
 * VLOAD(values, k) (stored value k as ACC_T) plus the vector-kind macros of
 * vec_instances.h. The threads share out the super-super-rows (k = 3) or
 * super-rows (k = 2) under the runtime schedule (OMP_SCHEDULE), or for
 * k = 1 take contiguous ranges of equal work as the CSR kernel does; inside
 * a unit the super-rows run in order, four rows at a time with independent
 * sums. Each row is summed in column order by one thread, so y has the
 * bits of the reference CSR kernel whatever the threads and schedule.
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
    if (k == 3) {
        const int32_t nssr = psl_csrk_nssr(A);
#pragma omp parallel for schedule(runtime) if (par)
        for (int32_t s = 0; s < nssr; s++)
            for (int32_t j = ssr[s]; j < ssr[s + 1]; j++)
                PSL_CAT4(psl_cpu_csr_rows_, VAL_NAME, _, VEC_NAME)(rp, col, val, x, y, sr[j],
                                                                   sr[j + 1], a, b, use_beta);
    } else if (k == 2) {
        const int32_t nsr = psl_csrk_nsr(A);
#pragma omp parallel for schedule(runtime) if (par)
        for (int32_t j = 0; j < nsr; j++)
            PSL_CAT4(psl_cpu_csr_rows_, VAL_NAME, _, VEC_NAME)(rp, col, val, x, y, sr[j],
                                                               sr[j + 1], a, b, use_beta);
    } else {
#pragma omp parallel if (par)
        {
            int nt = omp_get_num_threads(), id = omp_get_thread_num();
            PSL_CAT4(psl_cpu_csr_rows_, VAL_NAME, _, VEC_NAME)(
                rp, col, val, x, y, psl_csr_part_start(rp, n, id, nt),
                psl_csr_part_start(rp, n, id + 1, nt), a, b, use_beta);
        }
    }
}
