/*
 * packsell_tmpl.h -- body of one OpenMP PackSELL kernel, instantiated by
 * spmv_packsell.c per (codec family, vector kind). Expects FAMILY (name)
 * and DECODE(vb, e, scale): the float value of the value bits vb left in
 * place (zero for flag-0 words), plus the vector-kind macros of
 * vec_instances.h.
 *
 * Same loop structure as the SELL kernel (slices in static OpenMP chunks,
 * LANES rows at a time, inner loop across lanes). Every lane keeps a running
 * column that starts at the slice's d-block start column and adds the delta
 * of every word; flag-0 words (dummies, padding) are selected away, never
 * multiplied. Their running column is always a valid column (ncols > 0 here).
 */
#define PSL_PACK_FN PSL_CAT4(psl_cpu_packsell_, FAMILY, _, VEC_NAME)

/* Sums of nl (<= LANES) lanes of one slice over width words each; w points
 * at the first lane, C words apart per position; c0 is the start column. */
static inline void PSL_CAT(PSL_PACK_FN, _lanes)(const uint32_t *restrict w, int64_t width,
                                                int32_t C, int nl, uint32_t c0, int D,
                                                int e, float scale, const void *restrict x,
                                                ACC_T *restrict t)
{
    uint32_t cc[LANES];
    for (int l = 0; l < LANES; l++) {
        t[l] = 0;
        cc[l] = c0;
    }
    for (int64_t j = 0; j < width; j++) {
        const uint32_t *wj = w + j * C;
        for (int l = 0; l < nl; l++) {
            uint32_t word = wj[l];
            cc[l] += psl_word_delta(word, D);
            ACC_T p = (ACC_T)DECODE(psl_word_value_bits(word, D), e, scale) * XLOAD(x, cc[l]);
            t[l] = t[l] + (psl_word_flag(word) ? p : (ACC_T)0);
        }
    }
}

static void PSL_PACK_FN(double alpha, const psl_matrix *A, const void *x, double beta,
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
    const int D = A->delta_bits, e = A->codec.exp_bits;
    const float scale = psl_codec_decode_scale(e);
#pragma omp parallel for schedule(static, psl_omp_chunk_slices(C)) \
    if (A->stored > PSL_OMP_MIN_WORK)
    for (int32_t k = 0; k < nslices; k++) {
        const int64_t base = A->slice_ptr[k];
        const int64_t width = (A->slice_ptr[k + 1] - base) / C;
        const int64_t row0 = (int64_t)k * C;
        const int32_t lanes = (int32_t)(nrows - row0 < C ? nrows - row0 : C);
        const uint32_t c0 = (uint32_t)psl_spmv_start_col(A, row0);
        for (int32_t l0 = 0; l0 < lanes; l0 += LANES) {
            ACC_T t[LANES];
            const uint32_t *w = A->words + base + l0;
            int nl = lanes - l0 < LANES ? lanes - l0 : LANES;
            if (nl == LANES) /* constant trip count: the compiler vectorizes */
                PSL_CAT(PSL_PACK_FN, _lanes)(w, width, C, LANES, c0, D, e, scale, x, t);
            else
                PSL_CAT(PSL_PACK_FN, _lanes)(w, width, C, nl, c0, D, e, scale, x, t);
            for (int l = 0; l < nl; l++)
                YSTORE(y, psl_spmv_out_row(A, row0 + l0 + l), t[l], a, b, use_beta);
        }
    }
}

#undef PSL_PACK_FN
