/*
 * csr_rows_tmpl.h -- the row loop that the CSR and CSR-k kernels share
 * (csr_tmpl.h, csrk_tmpl.h): rows r0 .. r1-1 four at a time with four
 * independent sums over their common length, then each row's rest, so the
 * adds of one row do not wait for each other; every row is summed in
 * column order, the bits of the reference CSR kernel. Instantiated per
 * (value type, vector kind) with the macros of the including template.
 */

/* Rows r0 .. r1-1 of A into y. */
static inline void PSL_CAT4(psl_cpu_csr_rows_, VAL_NAME, _, VEC_NAME)(
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
