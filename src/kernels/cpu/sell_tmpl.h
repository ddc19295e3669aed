/*
 * sell_tmpl.h -- body of one OpenMP SELL-C-sigma kernel, instantiated by
 * sell_instances.h per (value type, vector kind), in the portable TU and in
 * every SIMD TU. Expects VAL_NAME, VAL_T and VLOAD(values, k) (the stored
 * value k as ACC_T) plus the vector-kind macros of vec_instances.h.
 *
 * Each OpenMP thread takes one contiguous range of slices of about equal
 * words (sliced_driver_tmpl.h). Inside a slice, rows are taken in groups
 * of lanes: for each column position j the lanes are
 * contiguous in memory, with one accumulator per lane, so each row is
 * summed in stored order whatever the grouping. With PSL_SIMD, groups of
 * whole SIMD blocks use gathers (sell_simd); the remaining lanes (and every
 * lane in the portable TU) use the scalar loop, LANES at a time. Padding
 * (column -1) is selected away, never multiplied: the scalar loop loads
 * x[0] for it and drops the product, the SIMD loop masks the lane. With
 * FP32 and FP16 vectors (psl_s_<kind>_runs), a SIMD block whose columns are
 * consecutive from a valid first column (stencil rows side by side) has no
 * padding and loads its x in one unaligned load instead of a gather; a block whose first position is not consecutive
 * stops checking for the slice (FEM-like patterns, where it never is: the
 * check cost 5-8% of those kernels' time).
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

#ifdef PSL_SIMD
/* Sums of nb whole SIMD blocks (nb * PSL_VL lanes) of one slice, same
 * operations per lane as _lanes; lim = ncols - 2 (see simd_common.h). */
static inline void PSL_CAT(PSL_SELL_FN, _simd)(const int32_t *restrict col,
                                               const VAL_T *restrict val, int64_t width,
                                               int32_t C, int nb, const void *restrict x,
                                               psl_vi lim, const uint8_t *whole,
                                               ACC_T *restrict t)
{
    PSL_CAT3(psl_s_, VEC_NAME, _acc) acc[PSL_S_MAX_NB];
    bool runs[PSL_S_MAX_NB]; /* still looking for consecutive columns */
    uint8_t all[PSL_S_MAX_NB]; /* the table: 1 consecutive, 2 in a window, at
                                  every position (no test); 0 test */
    for (int b = 0; b < nb; b++) {
        acc[b] = PSL_CAT3(psl_s_, VEC_NAME, _zero)();
        runs[b] = true;
        all[b] = whole ? whole[b] : 0;
    }
    for (int64_t j = 0; j < width; j++) {
        for (int b = 0; b < nb; b++) {
            const int64_t off = j * C + b * PSL_VL;
            psl_vi c = psl_s_load_i32(col + off);
            const int32_t c0 = psl_s_lane0(c);
            PSL_CAT3(psl_s_, VEC_NAME, _acc) v = PSL_CAT4(psl_s_, VAL_NAME, _, ACC_SFX)(val + off);
            if (PSL_CAT3(psl_s_, VEC_NAME, _runs) &&
                (all[b] == 1 || (!all[b] && runs[b] && c0 >= 0 && psl_s_consecutive(c)))) {
                /* no padding, x in one load */
                acc[b] = PSL_CAT3(psl_s_, VEC_NAME, _add)(acc[b], v,
                                                          PSL_CAT3(psl_s_, VEC_NAME, _xrun)(x, c0));
            } else if (all[b] == 2) {
                psl_vm m = psl_s_nonneg(c);
                acc[b] = PSL_CAT3(psl_s_, VEC_NAME, _madd)(
                    acc[b], m, v, PSL_CAT3(psl_s_, VEC_NAME, _xwin)(x, c, m, lim));
            } else {
                runs[b] = runs[b] && j > 0; /* not at the first position: gathers only */
                psl_vm m = psl_s_nonneg(c);
                acc[b] = PSL_CAT3(psl_s_, VEC_NAME, _madd)(
                    acc[b], m, v, PSL_CAT3(psl_s_, VEC_NAME, _x)(x, c, m, lim));
            }
        }
    }
    for (int b = 0; b < nb; b++)
        PSL_CAT3(psl_s_, VEC_NAME, _store)(t + b * PSL_VL, acc[b]);
}
#endif

/* All lanes of slice k. */
static inline void PSL_CAT(PSL_SELL_FN, _slice)(const psl_matrix *A, int32_t k,
                                                const void *x, void *y, ACC_T a, ACC_T b,
                                                bool use_beta, const uint8_t *runs)
{
    const int32_t C = A->C;
    const int64_t base = A->slice_ptr[k];
    const int64_t width = (A->slice_ptr[k + 1] - base) / C;
    const int64_t row0 = (int64_t)k * C;
    const int32_t lanes = (int32_t)(A->nrows - row0 < C ? A->nrows - row0 : C);
    const int32_t *col = A->sell_col + base;
    const VAL_T *val = (const VAL_T *)A->sell_val + base;
    ACC_T t[PSL_ROWS_MAX];
    int32_t l0 = 0;
#ifdef PSL_SIMD
    if (A->ncols >= 2) {
        const psl_vi lim = psl_s_set1((uint32_t)A->ncols - 2);
        const int nb = PSL_CAT3(psl_s_, VEC_NAME, _nb);
        const uint8_t *whole = runs ? runs + (int64_t)k * (C / PSL_VL) : NULL;
        for (; l0 + nb * PSL_VL <= lanes; l0 += nb * PSL_VL) {
            PSL_CAT(PSL_SELL_FN, _simd)(col + l0, val + l0, width, C, nb, x, lim,
                                        whole ? whole + l0 / PSL_VL : NULL, t);
            PSL_CAT(psl_cpu_finish_, VEC_NAME)(A, row0 + l0, nb * PSL_VL, t, y, a, b, use_beta,
                                          true);
        }
        for (; l0 + PSL_VL <= lanes; l0 += PSL_VL) {
            PSL_CAT(PSL_SELL_FN, _simd)(col + l0, val + l0, width, C, 1, x, lim,
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
            PSL_CAT(PSL_SELL_FN, _lanes)(col + l0, val + l0, width, C, LANES, x, t);
        else
            PSL_CAT(PSL_SELL_FN, _lanes)(col + l0, val + l0, width, C, nl, x, t);
        PSL_CAT(psl_cpu_finish_, VEC_NAME)(A, row0 + l0, nl, t, y, a, b, use_beta, false);
    }
}

/* The table pays for 16-bit values (SELL FP16 1.16-1.22x on the 16-core
 * Xeon) but cost SELL FP32 11-16% on the 2-core AMD machine (0.99-1.08x on
 * the Xeon): the 32- and 64-bit kernels keep their test, and no table is
 * built for them. */
#define PSL_SLICED_FN PSL_SELL_FN
#define PSL_SLICED_RUNS (sizeof(VAL_T) == 2)
#include "sliced_driver_tmpl.h"
#undef PSL_SLICED_RUNS
#undef PSL_SLICED_FN

#undef PSL_SELL_FN
