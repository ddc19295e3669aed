/*
 * packsell_tmpl.h -- body of one OpenMP PackSELL kernel, instantiated by
 * packsell_instances.h per (codec family, vector kind), in the portable TU
 * and in every SIMD TU. Expects FAMILY (name), DECODE(vb, e, scale): the
 * float value of the value bits vb left in place (zero for flag-0 words),
 * and with PSL_SIMD SDECODE(words, flags, pack) (simd_common.h), plus the
 * vector-kind macros of vec_instances.h.
 *
 * Same loop structure as the SELL kernel (contiguous slice ranges per thread,
 * groups of lanes, inner loop across lanes). Every lane keeps a running
 * column that starts at the slice's d-block start column and adds the delta
 * of every word; flag-0 words (dummies, padding) are selected away, never
 * multiplied. Their running column is always a valid column (ncols > 0 here),
 * so (FP32 and FP16 vectors) a SIMD block whose running columns are
 * consecutive loads its x in one unaligned load instead of a gather
 * (stencil rows side by side); a block not consecutive at its first word
 * stops checking for the slice, and a block that the matrix's table
 * (psl_cpu_slice_runs) marks consecutive at every word is not checked.
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

#ifdef PSL_SIMD
/* Sums of nb whole SIMD blocks (nb * PSL_VL lanes) of one slice, same
 * operations per lane as _lanes; lim = ncols - 2 (see simd_common.h). */
static inline void PSL_CAT(PSL_PACK_FN, _simd)(const uint32_t *restrict w, int64_t width,
                                               int32_t C, int nb, uint32_t c0,
                                               const psl_s_pack *pk, const void *restrict x,
                                               psl_vi lim, const uint8_t *whole,
                                               ACC_T *restrict t)
{
    PSL_CAT3(psl_s_, VEC_NAME, _acc) acc[PSL_S_MAX_NB];
    psl_vi cc[PSL_S_MAX_NB];
    bool runs[PSL_S_MAX_NB]; /* still looking for consecutive columns */
    uint8_t all[PSL_S_MAX_NB]; /* the table: 1 consecutive, 2 in a window, at
                                  every position (no test); 0 test */
    for (int b = 0; b < nb; b++) {
        acc[b] = PSL_CAT3(psl_s_, VEC_NAME, _zero)();
        cc[b] = psl_s_set1(c0);
        runs[b] = true;
        all[b] = whole ? whole[b] : 0;
    }
    for (int64_t j = 0; j < width; j++) {
        for (int b = 0; b < nb; b++) {
            psl_vi wd = psl_s_load_i32(w + j * C + b * PSL_VL);
            psl_vm f = psl_s_flag(wd);
            cc[b] = psl_s_add(cc[b], psl_s_delta(wd, f, pk->dmask));
            PSL_CAT3(psl_s_, VEC_NAME, _acc) xv;
            if (PSL_CAT3(psl_s_, VEC_NAME, _runs) &&
                (all[b] == 1 || (!all[b] && runs[b] && psl_s_consecutive(cc[b])))) {
                xv = PSL_CAT3(psl_s_, VEC_NAME, _xrun)(x, psl_s_lane0(cc[b]));
            } else if (all[b] == 2) {
                xv = PSL_CAT3(psl_s_, VEC_NAME, _xwin)(x, cc[b], f, lim);
            } else {
                runs[b] = runs[b] && j > 0; /* not at the first word: gathers only */
                xv = PSL_CAT3(psl_s_, VEC_NAME, _x)(x, cc[b], f, lim);
            }
            acc[b] = PSL_CAT3(psl_s_, VEC_NAME, _madd)(
                acc[b], f, PSL_CAT3(psl_s_, VEC_NAME, _val)(SDECODE(wd, f, pk)), xv);
        }
    }
    for (int b = 0; b < nb; b++)
        PSL_CAT3(psl_s_, VEC_NAME, _store)(t + b * PSL_VL, acc[b]);
}
#endif

/* All lanes of slice k. */
static inline void PSL_CAT(PSL_PACK_FN, _slice)(const psl_matrix *A, int32_t k,
                                                const void *x, void *y, ACC_T a, ACC_T b,
                                                bool use_beta, const uint8_t *runs)
{
    const int32_t C = A->C;
    const int D = A->delta_bits, e = A->codec.exp_bits;
    const float scale = psl_codec_decode_scale(e);
    const int64_t base = A->slice_ptr[k];
    const int64_t width = (A->slice_ptr[k + 1] - base) / C;
    const int64_t row0 = (int64_t)k * C;
    const int32_t lanes = (int32_t)(A->nrows - row0 < C ? A->nrows - row0 : C);
    const uint32_t c0 = (uint32_t)psl_spmv_start_col(A, row0);
    const uint32_t *w = A->words + base;
    ACC_T t[PSL_ROWS_MAX];
    int32_t l0 = 0;
#ifdef PSL_SIMD
    if (A->ncols >= 2) {
        const psl_vi lim = psl_s_set1((uint32_t)A->ncols - 2);
        const psl_s_pack pk = psl_s_pack_init(D, e);
        const int nb = PSL_CAT3(psl_s_, VEC_NAME, _nb);
        const uint8_t *whole = runs ? runs + (int64_t)k * (C / PSL_VL) : NULL;
        for (; l0 + nb * PSL_VL <= lanes; l0 += nb * PSL_VL) {
            PSL_CAT(PSL_PACK_FN, _simd)(w + l0, width, C, nb, c0, &pk, x, lim,
                                        whole ? whole + l0 / PSL_VL : NULL, t);
            PSL_CAT(psl_cpu_finish_, VEC_NAME)(A, row0 + l0, nb * PSL_VL, t, y, a, b, use_beta,
                                          true);
        }
        for (; l0 + PSL_VL <= lanes; l0 += PSL_VL) {
            PSL_CAT(PSL_PACK_FN, _simd)(w + l0, width, C, 1, c0, &pk, x, lim,
                                        whole ? whole + l0 / PSL_VL : NULL, t);
            PSL_CAT(psl_cpu_finish_, VEC_NAME)(A, row0 + l0, PSL_VL, t, y, a, b, use_beta, true);
        }
    }
#else
    (void)runs;
#endif
    for (; l0 < lanes; l0 += LANES) {
        int nl = lanes - l0 < LANES ? lanes - l0 : LANES;
        if (nl == LANES) /* constant trip count: the compiler vectorizes */
            PSL_CAT(PSL_PACK_FN, _lanes)(w + l0, width, C, LANES, c0, D, e, scale, x, t);
        else
            PSL_CAT(PSL_PACK_FN, _lanes)(w + l0, width, C, nl, c0, D, e, scale, x, t);
        PSL_CAT(psl_cpu_finish_, VEC_NAME)(A, row0 + l0, nl, t, y, a, b, use_beta, false);
    }
}

#define PSL_SLICED_FN PSL_PACK_FN
#define PSL_SLICED_RUNS 1
#include "sliced_driver_tmpl.h"
#undef PSL_SLICED_RUNS
#undef PSL_SLICED_FN

#undef PSL_PACK_FN
