/*
 * sell_tmpl.h -- body of one OpenMP SELL-C-sigma kernel, instantiated by
 * spmv_sell.c per (value type, vector kind). Expects VAL_NAME and
 * VLOAD(values, k) (stored value k as ACC_T) plus the vector-kind macros of
 * vec_instances.h.
 *
 * OpenMP distributes slices in static chunks. Inside a slice, rows are
 * taken LANES at a time: for each column position j, the inner loop runs
 * across the lanes (contiguous in memory), so it vectorizes, with one
 * accumulator per lane. Padding (column -1) is selected away, never
 * multiplied: its x load uses column 0, and its product is replaced by 0.
 */
#define PSL_SELL_FN PSL_CAT4(psl_cpu_sell_, VAL_NAME, _, VEC_NAME)

/* Sums of nl (<= LANES) lanes of one slice over width column positions;
 * col and val point at the first lane, C apart per position. */
static inline void PSL_CAT(PSL_SELL_FN, _lanes)(const int32_t *restrict col,
                                                const void *restrict val, int64_t width,
                                                int32_t C, int nl, const void *restrict x,
                                                ACC_T *restrict t)
{
    for (int l = 0; l < LANES; l++)
        t[l] = 0;
    for (int64_t j = 0; j < width; j++) {
        const int32_t *cj = col + j * C;
        const int64_t off = j * C;
        for (int l = 0; l < nl; l++) {
            int32_t c = cj[l];
            ACC_T p = VLOAD(val, off + l) * XLOAD(x, c < 0 ? 0 : c);
            t[l] = t[l] + (c >= 0 ? p : (ACC_T)0);
        }
    }
}

static void PSL_SELL_FN(double alpha, const psl_matrix *A, const void *x, double beta,
                        void *y, psl_scalar vec_type)
{
    if (A->nnz == 0 || A->ncols == 0) {
        psl_cpu_scale(alpha, A, beta, y, vec_type);
        return;
    }
    const ACC_T a = (ACC_T)alpha, b = (ACC_T)beta;
    const bool use_beta = beta != 0;
    const int32_t C = A->C, nslices = A->nslices;
    const int64_t nrows = A->nrows;
#pragma omp parallel for schedule(static, psl_omp_chunk_slices(C)) \
    if (A->stored > PSL_OMP_MIN_WORK)
    for (int32_t k = 0; k < nslices; k++) {
        const int64_t base = A->slice_ptr[k];
        const int64_t width = (A->slice_ptr[k + 1] - base) / C;
        const int64_t row0 = (int64_t)k * C;
        const int32_t lanes = (int32_t)(nrows - row0 < C ? nrows - row0 : C);
        for (int32_t l0 = 0; l0 < lanes; l0 += LANES) {
            ACC_T t[LANES];
            const int32_t *col = A->sell_col + base + l0;
            const char *val = (const char *)A->sell_val + (base + l0) * (int64_t)sizeof(VAL_T);
            int nl = lanes - l0 < LANES ? lanes - l0 : LANES;
            if (nl == LANES) /* constant trip count: the compiler vectorizes */
                PSL_CAT(PSL_SELL_FN, _lanes)(col, val, width, C, LANES, x, t);
            else
                PSL_CAT(PSL_SELL_FN, _lanes)(col, val, width, C, nl, x, t);
            for (int l = 0; l < nl; l++)
                YSTORE(y, psl_spmv_out_row(A, row0 + l0 + l), t[l], a, b, use_beta);
        }
    }
}

#undef PSL_SELL_FN
