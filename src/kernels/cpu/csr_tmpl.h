/*
 * csr_tmpl.h -- body of one OpenMP CSR kernel, instantiated by spmv_csr.c
 * per (value type, vector kind). Expects VAL_NAME and VLOAD(values, k) (the
 * stored value k as ACC_T) plus the vector-kind macros of vec_instances.h.
 * Each thread takes one contiguous range of rows of about equal work
 * (nonzeros + rows); each row is summed in column order by one thread, so
 * the result does not depend on the number of threads. Rows go four at a
 * time with four independent sums, so the adds of one row do not wait for
 * each other (a single sum is bound by the add latency).
 */
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
        int32_t i = r0;
        /* four rows at a time: four independent sums over their common length,
         * then each row's rest; every row is still summed in column order */
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
}
