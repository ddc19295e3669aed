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

/* Rows r0 .. r1-1 of A into y. */
static inline void PSL_CAT4(psl_cpu_csrk_rows_, VAL_NAME, _, VEC_NAME)(
    const int64_t *restrict rp, const int32_t *restrict col, const void *restrict val,
    const void *restrict x, void *restrict y, int32_t r0, int32_t r1, ACC_T a, ACC_T b,
    bool use_beta)
{
    int32_t i = r0;
    for (; i + 4 <= r1; i += 4) {
        const int64_t k0 = rp[i], k1 = rp[i + 1], k2 = rp[i + 2], k3 = rp[i + 3];
        const int64_t l0 = k1 - k0, l1 = k2 - k1, l2 = k3 - k2, l3 = rp[i + 4] - k3;
        int64_t m = l0 < l1 ? l0 : l1;
        m = m < l2 ? m : l2;
        m = m < l3 ? m : l3;
        ACC_T t0 = 0, t1 = 0, t2 = 0, t3 = 0;
        for (int64_t j = 0; j < m; j++) {
            t0 = t0 + VLOAD(val, k0 + j) * XLOAD(x, col[k0 + j]);
            t1 = t1 + VLOAD(val, k1 + j) * XLOAD(x, col[k1 + j]);
            t2 = t2 + VLOAD(val, k2 + j) * XLOAD(x, col[k2 + j]);
            t3 = t3 + VLOAD(val, k3 + j) * XLOAD(x, col[k3 + j]);
        }
        for (int64_t j = m; j < l0; j++)
            t0 = t0 + VLOAD(val, k0 + j) * XLOAD(x, col[k0 + j]);
        for (int64_t j = m; j < l1; j++)
            t1 = t1 + VLOAD(val, k1 + j) * XLOAD(x, col[k1 + j]);
        for (int64_t j = m; j < l2; j++)
            t2 = t2 + VLOAD(val, k2 + j) * XLOAD(x, col[k2 + j]);
        for (int64_t j = m; j < l3; j++)
            t3 = t3 + VLOAD(val, k3 + j) * XLOAD(x, col[k3 + j]);
        YSTORE(y, i, t0, a, b, use_beta);
        YSTORE(y, i + 1, t1, a, b, use_beta);
        YSTORE(y, i + 2, t2, a, b, use_beta);
        YSTORE(y, i + 3, t3, a, b, use_beta);
    }
    for (; i < r1; i++) {
        ACC_T t = 0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            t = t + VLOAD(val, k) * XLOAD(x, col[k]);
        YSTORE(y, i, t, a, b, use_beta);
    }
}

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
                PSL_CAT4(psl_cpu_csrk_rows_, VAL_NAME, _, VEC_NAME)(rp, col, val, x, y, sr[j],
                                                                   sr[j + 1], a, b, use_beta);
    } else if (k == 2) {
        const int32_t nsr = psl_csrk_nsr(A);
#pragma omp parallel for schedule(runtime) if (par)
        for (int32_t j = 0; j < nsr; j++)
            PSL_CAT4(psl_cpu_csrk_rows_, VAL_NAME, _, VEC_NAME)(rp, col, val, x, y, sr[j],
                                                               sr[j + 1], a, b, use_beta);
    } else {
#pragma omp parallel if (par)
        {
            int nt = omp_get_num_threads(), id = omp_get_thread_num();
            PSL_CAT4(psl_cpu_csrk_rows_, VAL_NAME, _, VEC_NAME)(
                rp, col, val, x, y, psl_csr_part_start(rp, n, id, nt),
                psl_csr_part_start(rp, n, id + 1, nt), a, b, use_beta);
        }
    }
}
