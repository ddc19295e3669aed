/*
 * finish_tmpl.h -- template (instantiated per vector kind by
 * finish_instances.h): psl_cpu_finish_<VEC_NAME> writes the finished rows of
 * one slice of a SELL or PackSELL matrix -- y[out] = a*t (+ b*y[out]) at the
 * output rows of stored rows row0..row0+n-1 -- shared by sell_tmpl.h and
 * packsell_tmpl.h. simd: n is a multiple of PSL_VL.
 */
static inline void PSL_CAT(psl_cpu_finish_, VEC_NAME)(const psl_matrix *A, int64_t row0, int n,
                                                      const ACC_T *t, void *y, ACC_T a, ACC_T b,
                                                      bool use_beta, bool simd)
{
    int64_t out[PSL_ROWS_MAX];
    psl_cpu_out_rows(A, row0, n, out);
#ifdef PSL_SIMD
    if (simd) {
        PSL_CAT3(psl_s_, VEC_NAME, _finish)(y, out, n, t, a, b, use_beta);
        return;
    }
#else
    (void)simd;
#endif
    for (int l = 0; l < n; l++)
        YSTORE(y, out[l], t[l], a, b, use_beta);
}
