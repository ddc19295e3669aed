/*
 * simd_avx2.h -- AVX2 (+F16C) primitives of the SIMD kernel templates, same
 * interface as simd_avx512.h: a block is PSL_VL = 8 lanes held as 8 int32 /
 * float or 2 x 4 double; a lane mask is a vector of int32 whose sign bit
 * says whether the lane is in (the other bits are not looked at: blendv and
 * the gathers read the sign bit alone).
 * Included by spmv_avx2.c inside its target region. Products and sums are
 * separate instructions; a masked lane keeps its accumulator (blend).
 */
#include <immintrin.h>

#define PSL_VL 8
/* Blocks summed together (float, double accumulators): more would not fit
 * the 16 ymm registers with the running columns and constants. */
#define PSL_S_NB_F 2
#define PSL_S_NB_D 2

typedef __m256i psl_vi;
typedef __m256i psl_vm;
typedef __m256 psl_vf;
typedef struct psl_vd2 {
    __m256d lo, hi;
} psl_vd2;

static inline psl_vi psl_s_load_i32(const void *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}
static inline psl_vi psl_s_set1(uint32_t v) { return _mm256_set1_epi32((int)v); }
static inline psl_vi psl_s_and(psl_vi a, psl_vi b) { return _mm256_and_si256(a, b); }
/* a in the lanes of m, 0 elsewhere. */
static inline psl_vi psl_s_keep(psl_vi a, psl_vm m)
{
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_setzero_ps(), _mm256_castsi256_ps(a),
                                                _mm256_castsi256_ps(m)));
}
static inline psl_vi psl_s_or(psl_vi a, psl_vi b) { return _mm256_or_si256(a, b); }
static inline psl_vi psl_s_add(psl_vi a, psl_vi b) { return _mm256_add_epi32(a, b); }
static inline psl_vi psl_s_srl(psl_vi a, int n)
{
    return _mm256_srl_epi32(a, _mm_cvtsi32_si128(n));
}
static inline psl_vf psl_s_as_f(psl_vi a) { return _mm256_castsi256_ps(a); }
static inline psl_vf psl_s_mulf(psl_vf a, psl_vf b) { return _mm256_mul_ps(a, b); }

/* Lanes whose SELL column is not padding (>= 0). */
static inline psl_vm psl_s_nonneg(psl_vi c)
{
    return _mm256_cmpgt_epi32(c, _mm256_set1_epi32(-1));
}
/* Lanes whose PackSELL word has flag 1: the flag moved to the sign bit. */
static inline psl_vm psl_s_flag(psl_vi w) { return _mm256_slli_epi32(w, 31); }
/* Delta of every word (word.h): w >> 1, masked to D bits where flag is 1. */
static inline psl_vi psl_s_delta(psl_vi w, psl_vm f, psl_vi dmask)
{
    __m256 s = _mm256_castsi256_ps(_mm256_srli_epi32(w, 1));
    __m256 d = _mm256_and_ps(s, _mm256_castsi256_ps(dmask));
    return _mm256_castps_si256(_mm256_blendv_ps(s, d, _mm256_castsi256_ps(f)));
}

/* Stored values of 8 lanes as float (exact, or rounded as a C cast). */
static inline psl_vf psl_s_fp32_f(const void *p) { return _mm256_loadu_ps(p); }
static inline psl_vf psl_s_fp16_f(const void *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}
static inline psl_vf psl_s_bf16_f(const void *p)
{
    __m256i u = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(u, 16));
}
static inline psl_vf psl_s_fp64_f(const void *p)
{
    const double *d = (const double *)p;
    __m128 lo = _mm256_cvtpd_ps(_mm256_loadu_pd(d));
    __m128 hi = _mm256_cvtpd_ps(_mm256_loadu_pd(d + 4));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}
static inline psl_vd2 psl_s_fp64_d(const void *p)
{
    const double *d = (const double *)p;
    psl_vd2 r = {_mm256_loadu_pd(d), _mm256_loadu_pd(d + 4)};
    return r;
}
/* Float lanes widened to double (exact). */
static inline psl_vd2 psl_s_f2d(psl_vf f)
{
    psl_vd2 r = {_mm256_cvtps_pd(_mm256_castps256_ps128(f)),
                 _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1))};
    return r;
}

/* Lane mask m as two masks of 4 double lanes. */
static inline __m256d psl_s_mask_lo(psl_vm m)
{
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(m)));
}
static inline __m256d psl_s_mask_hi(psl_vm m)
{
    return _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(m, 1)));
}

/* x[c] of the lanes in m (others 0): FP32, FP64 and FP16 vectors. For FP16
 * the 32-bit gather at 2*c reads x[c] and x[c+1]; lim = ncols-2 keeps it
 * inside x (lanes at column ncols-1 read from ncols-2 and take the upper
 * half). F16C conversion is exact, like psl_half_to_float. */
static inline psl_vf psl_s_gather_f(const void *x, psl_vi c, psl_vm m)
{
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), (const float *)x, c,
                                    _mm256_castsi256_ps(m), 4);
}
static inline psl_vd2 psl_s_gather_d(const void *x, psl_vi c, psl_vm m)
{
    const double *xd = (const double *)x;
    psl_vd2 r = {_mm256_mask_i32gather_pd(_mm256_setzero_pd(), xd, _mm256_castsi256_si128(c),
                                          psl_s_mask_lo(m), 8),
                 _mm256_mask_i32gather_pd(_mm256_setzero_pd(), xd,
                                          _mm256_extracti128_si256(c, 1), psl_s_mask_hi(m), 8)};
    return r;
}
static inline psl_vf psl_s_gather_h(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    psl_vi idx = _mm256_min_epu32(c, lim);
    psl_vi sh = _mm256_slli_epi32(_mm256_sub_epi32(c, idx), 4);
    psl_vi g = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), (const int *)x, idx, m, 2);
    /* low 16 bits of each lane, packed into the low 128 bits */
    const __m256i pick = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1,
                                          -1, -1, 0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1,
                                          -1, -1, -1, -1);
    __m256i h = _mm256_shuffle_epi8(_mm256_srlv_epi32(g, sh), pick);
    h = _mm256_permute4x64_epi64(h, 0x08);
    return _mm256_cvtph_ps(_mm256_castsi256_si128(h));
}

/* The window loads of simd_avx512.h: the table has no window blocks of 8
 * lanes (psl_cpu_slice_runs), so these only gather, should one come. */
static inline psl_vf psl_s_window_f(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    (void)lim;
    return psl_s_gather_f(x, c, m);
}
static inline psl_vf psl_s_window_h(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    return psl_s_gather_h(x, c, m, lim);
}

/* Consecutive columns: whether c holds c[0], c[0]+1, ..., c[0]+7 (then x
 * of the block is one unaligned load from x + c[0], no gather). */
static inline int32_t psl_s_lane0(psl_vi c) { return _mm256_cvtsi256_si32(c); }
static inline bool psl_s_consecutive(psl_vi c)
{
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i first = _mm256_broadcastd_epi32(_mm256_castsi256_si128(c));
    __m256i diff = _mm256_xor_si256(_mm256_sub_epi32(c, iota), first);
    return _mm256_testz_si256(diff, diff);
}
/* x[c0 .. c0+7] of FP32, FP64 and FP16 vectors (all lanes). */
static inline psl_vf psl_s_xrun_f(const void *x, int32_t c0)
{
    return _mm256_loadu_ps((const float *)x + c0);
}
static inline psl_vd2 psl_s_xrun_d(const void *x, int32_t c0)
{
    const double *d = (const double *)x + c0;
    psl_vd2 r = {_mm256_loadu_pd(d), _mm256_loadu_pd(d + 4)};
    return r;
}
static inline psl_vf psl_s_xrun_h(const void *x, int32_t c0)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)x + c0)));
}

/* PackSELL words whose upper 16 bits are an IEEE half (FP16 codec, D = 15):
 * their values as float by F16C (exact for the finite values stored). Lanes
 * not in f get the finite value of their upper bits (a dummy's: a half of at
 * least 2^-24, padding's: 0), which the masked sum drops; such a value times
 * an FP16 x is never a subnormal float, so there is no assist to avoid. */
static inline psl_vf psl_s_decode_h16(psl_vi w, psl_vm f)
{
    (void)f;
    const __m256i hi = _mm256_setr_epi8(2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1, -1, -1,
                                        -1, -1, 2, 3, 6, 7, 10, 11, 14, 15, -1, -1, -1, -1,
                                        -1, -1, -1, -1);
    __m256i h = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(w, hi), 0x08);
    return _mm256_cvtph_ps(_mm256_castsi256_si128(h));
}

/* Accumulators: acc + v*xv in the lanes of m (product rounded, then sum). */
static inline psl_vf psl_s_zero_f(void) { return _mm256_setzero_ps(); }
static inline psl_vd2 psl_s_zero_d(void)
{
    psl_vd2 r = {_mm256_setzero_pd(), _mm256_setzero_pd()};
    return r;
}
static inline psl_vf psl_s_madd_f(psl_vf acc, psl_vm m, psl_vf v, psl_vf xv)
{
    psl_vf s = _mm256_add_ps(acc, _mm256_mul_ps(v, xv));
    return _mm256_blendv_ps(acc, s, _mm256_castsi256_ps(m));
}
static inline psl_vd2 psl_s_madd_d(psl_vd2 acc, psl_vm m, psl_vd2 v, psl_vd2 xv)
{
    __m256d slo = _mm256_add_pd(acc.lo, _mm256_mul_pd(v.lo, xv.lo));
    __m256d shi = _mm256_add_pd(acc.hi, _mm256_mul_pd(v.hi, xv.hi));
    acc.lo = _mm256_blendv_pd(acc.lo, slo, psl_s_mask_lo(m));
    acc.hi = _mm256_blendv_pd(acc.hi, shi, psl_s_mask_hi(m));
    return acc;
}
/* acc + v*xv in every lane. */
static inline psl_vf psl_s_add_f(psl_vf acc, psl_vf v, psl_vf xv)
{
    return _mm256_add_ps(acc, _mm256_mul_ps(v, xv));
}
static inline psl_vd2 psl_s_add_d(psl_vd2 acc, psl_vd2 v, psl_vd2 xv)
{
    acc.lo = _mm256_add_pd(acc.lo, _mm256_mul_pd(v.lo, xv.lo));
    acc.hi = _mm256_add_pd(acc.hi, _mm256_mul_pd(v.hi, xv.hi));
    return acc;
}
/* PSL_VL floats to FP16 bits, rounded to nearest even (F16C; the same bits
 * as psl_float_to_half, Inf and NaN included). */
static inline void psl_s_f2h(const float *r, uint16_t *h)
{
    __m128i v = _mm256_cvtps_ph(_mm256_loadu_ps(r), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128((__m128i *)h, v);
}
/* r[0 .. PSL_VL-1] = a * t[0 .. PSL_VL-1]. */
static inline void psl_s_scale_f(float *r, const float *t, float a)
{
    _mm256_storeu_ps(r, _mm256_mul_ps(_mm256_set1_ps(a), _mm256_loadu_ps(t)));
}
static inline void psl_s_scale_d(double *r, const double *t, double a)
{
    for (int h = 0; h < PSL_VL; h += 4)
        _mm256_storeu_pd(r + h, _mm256_mul_pd(_mm256_set1_pd(a), _mm256_loadu_pd(t + h)));
}
static inline void psl_s_store_f(float *t, psl_vf a) { _mm256_storeu_ps(t, a); }
static inline void psl_s_store_d(double *t, psl_vd2 a)
{
    _mm256_storeu_pd(t, a.lo);
    _mm256_storeu_pd(t + 4, a.hi);
}
