/*
 * simd_avx512.h -- AVX-512 (F/BW/DQ/VL) primitives of the SIMD kernel
 * templates: a block is PSL_VL = 16 lanes (rows) held as 16 int32 / float
 * or 2 x 8 double; lane masks are __mmask16. Included by spmv_avx512.c
 * inside its target region; simd_common.h builds the vector kinds on top.
 * Products and sums are separate instructions (never fused), and a masked
 * lane keeps its accumulator unchanged, as the scalar kernels skip it.
 */
#include <immintrin.h>

#define PSL_VL 16
#define PSL_S_NB_F 2 /* blocks summed together: float and double accumulators */
#define PSL_S_NB_D 2

typedef __m512i psl_vi;
typedef __mmask16 psl_vm;
typedef __m512 psl_vf;
typedef struct psl_vd2 {
    __m512d lo, hi;
} psl_vd2;

static inline psl_vi psl_s_load_i32(const void *p) { return _mm512_loadu_si512(p); }
static inline psl_vi psl_s_set1(uint32_t v) { return _mm512_set1_epi32((int)v); }
static inline psl_vi psl_s_and(psl_vi a, psl_vi b) { return _mm512_and_si512(a, b); }
/* a in the lanes of m, 0 elsewhere. */
static inline psl_vi psl_s_keep(psl_vi a, psl_vm m) { return _mm512_maskz_mov_epi32(m, a); }
static inline psl_vi psl_s_or(psl_vi a, psl_vi b) { return _mm512_or_si512(a, b); }
static inline psl_vi psl_s_add(psl_vi a, psl_vi b) { return _mm512_add_epi32(a, b); }
static inline psl_vi psl_s_srl(psl_vi a, int n)
{
    return _mm512_srl_epi32(a, _mm_cvtsi32_si128(n));
}
static inline psl_vf psl_s_as_f(psl_vi a) { return _mm512_castsi512_ps(a); }
static inline psl_vf psl_s_mulf(psl_vf a, psl_vf b) { return _mm512_mul_ps(a, b); }

/* Lanes whose SELL column is not padding (>= 0). */
static inline psl_vm psl_s_nonneg(psl_vi c)
{
    return _mm512_cmpge_epi32_mask(c, _mm512_setzero_si512());
}
/* Lanes whose PackSELL word has flag 1. */
static inline psl_vm psl_s_flag(psl_vi w)
{
    return _mm512_test_epi32_mask(w, _mm512_set1_epi32(1));
}
/* Delta of every word (word.h): w >> 1, masked to D bits where flag is 1. */
static inline psl_vi psl_s_delta(psl_vi w, psl_vm f, psl_vi dmask)
{
    psl_vi s = _mm512_srli_epi32(w, 1);
    return _mm512_mask_and_epi32(s, f, s, dmask);
}

/* Stored values of 16 lanes as float (exact, or rounded as a C cast). */
static inline psl_vf psl_s_fp32_f(const void *p) { return _mm512_loadu_ps(p); }
static inline psl_vf psl_s_fp16_f(const void *p)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
}
static inline psl_vf psl_s_bf16_f(const void *p)
{
    __m512i u = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(u, 16));
}
static inline psl_vf psl_s_fp64_f(const void *p)
{
    const double *d = (const double *)p;
    __m256 lo = _mm512_cvtpd_ps(_mm512_loadu_pd(d));
    __m256 hi = _mm512_cvtpd_ps(_mm512_loadu_pd(d + 8));
    return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}
static inline psl_vd2 psl_s_fp64_d(const void *p)
{
    const double *d = (const double *)p;
    psl_vd2 r = {_mm512_loadu_pd(d), _mm512_loadu_pd(d + 8)};
    return r;
}
/* Float lanes widened to double (exact). */
static inline psl_vd2 psl_s_f2d(psl_vf f)
{
    psl_vd2 r = {_mm512_cvtps_pd(_mm512_castps512_ps256(f)),
                 _mm512_cvtps_pd(_mm512_extractf32x8_ps(f, 1))};
    return r;
}

/* x[c] of the lanes in m (others 0): FP32, FP64 and FP16 vectors. For FP16
 * the 32-bit gather at 2*c reads x[c] and x[c+1]; lim = ncols-2 keeps it
 * inside x (lanes at column ncols-1 read from ncols-2 and take the upper
 * half). F16C conversion is exact, like psl_half_to_float. */
static inline psl_vf psl_s_gather_f(const void *x, psl_vi c, psl_vm m)
{
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, c, x, 4);
}
static inline psl_vd2 psl_s_gather_d(const void *x, psl_vi c, psl_vm m)
{
    const __m512d z = _mm512_setzero_pd();
    const __m256i lo = _mm512_castsi512_si256(c), hi = _mm512_extracti64x4_epi64(c, 1);
    psl_vd2 r = {_mm512_mask_i32gather_pd(z, (__mmask8)m, lo, x, 8),
                 _mm512_mask_i32gather_pd(z, (__mmask8)(m >> 8), hi, x, 8)};
    return r;
}
static inline psl_vf psl_s_gather_h(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    psl_vi idx = _mm512_min_epu32(c, lim);
    psl_vi sh = _mm512_slli_epi32(_mm512_sub_epi32(c, idx), 4);
    psl_vi g = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, idx, x, 2);
    return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srlv_epi32(g, sh)));
}

/* x[c] of the lanes in m (others 0) for columns that the matrix's table
 * (psl_cpu_slice_runs, value 2) puts in the 32 columns from lane 0's, all
 * inside x: two unaligned loads and a permute instead of a gather (lim,
 * for the gathering fallback of simd_avx2.h, is not needed). */
static inline psl_vf psl_s_window_f(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    (void)lim;
    const int32_t base = _mm512_cvtsi512_si32(c);
    const psl_vi idx = _mm512_sub_epi32(c, _mm512_set1_epi32(base));
    const float *p = (const float *)x + base;
    return _mm512_maskz_permutex2var_ps(m, _mm512_loadu_ps(p), idx, _mm512_loadu_ps(p + 16));
}
static inline psl_vf psl_s_window_h(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    (void)lim;
    const int32_t base = _mm512_cvtsi512_si32(c);
    const psl_vi idx = _mm512_sub_epi32(c, _mm512_set1_epi32(base));
    const __m512i w = _mm512_loadu_si512((const uint16_t *)x + base);
    const __m512i sel = _mm512_maskz_permutexvar_epi16(
        (__mmask32)m, _mm512_castsi256_si512(_mm512_cvtepi32_epi16(idx)), w);
    return _mm512_cvtph_ps(_mm512_castsi512_si256(sel));
}

/* Consecutive columns: whether c holds c[0], c[0]+1, ..., c[0]+15 (then x
 * of the block is one unaligned load from x + c[0], no gather). */
static inline int32_t psl_s_lane0(psl_vi c) { return _mm512_cvtsi512_si32(c); }
static inline bool psl_s_consecutive(psl_vi c)
{
    const __m512i iota =
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i first = _mm512_broadcastd_epi32(_mm512_castsi512_si128(c));
    return _mm512_cmpeq_epi32_mask(_mm512_sub_epi32(c, iota), first) == 0xffff;
}
/* x[c0 .. c0+15] of FP32, FP64 and FP16 vectors (all lanes). */
static inline psl_vf psl_s_xrun_f(const void *x, int32_t c0)
{
    return _mm512_loadu_ps((const float *)x + c0);
}
static inline psl_vd2 psl_s_xrun_d(const void *x, int32_t c0)
{
    const double *d = (const double *)x + c0;
    psl_vd2 r = {_mm512_loadu_pd(d), _mm512_loadu_pd(d + 8)};
    return r;
}
static inline psl_vf psl_s_xrun_h(const void *x, int32_t c0)
{
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)x + c0)));
}

/* PackSELL words whose upper 16 bits are an IEEE half (FP16 codec, D = 15):
 * their values as float by F16C (exact for the finite values stored), zero
 * in the lanes not in f. */
static inline psl_vf psl_s_decode_h16(psl_vi w, psl_vm f)
{
    return _mm512_maskz_cvtph_ps(f, _mm512_cvtepi32_epi16(_mm512_srli_epi32(w, 16)));
}

/* Accumulators: acc + v*xv in the lanes of m (product rounded, then sum). */
static inline psl_vf psl_s_zero_f(void) { return _mm512_setzero_ps(); }
static inline psl_vd2 psl_s_zero_d(void)
{
    psl_vd2 r = {_mm512_setzero_pd(), _mm512_setzero_pd()};
    return r;
}
static inline psl_vf psl_s_madd_f(psl_vf acc, psl_vm m, psl_vf v, psl_vf xv)
{
    return _mm512_mask_add_ps(acc, m, acc, _mm512_mul_ps(v, xv));
}
static inline psl_vd2 psl_s_madd_d(psl_vd2 acc, psl_vm m, psl_vd2 v, psl_vd2 xv)
{
    acc.lo = _mm512_mask_add_pd(acc.lo, (__mmask8)m, acc.lo, _mm512_mul_pd(v.lo, xv.lo));
    acc.hi = _mm512_mask_add_pd(acc.hi, (__mmask8)(m >> 8), acc.hi, _mm512_mul_pd(v.hi, xv.hi));
    return acc;
}
/* acc + v*xv in every lane. */
static inline psl_vf psl_s_add_f(psl_vf acc, psl_vf v, psl_vf xv)
{
    return _mm512_add_ps(acc, _mm512_mul_ps(v, xv));
}
static inline psl_vd2 psl_s_add_d(psl_vd2 acc, psl_vd2 v, psl_vd2 xv)
{
    acc.lo = _mm512_add_pd(acc.lo, _mm512_mul_pd(v.lo, xv.lo));
    acc.hi = _mm512_add_pd(acc.hi, _mm512_mul_pd(v.hi, xv.hi));
    return acc;
}
/* PSL_VL floats to FP16 bits, rounded to nearest even (F16C; the same bits
 * as psl_float_to_half, Inf and NaN included). */
static inline void psl_s_f2h(const float *r, uint16_t *h)
{
    __m256i v = _mm512_cvtps_ph(_mm512_loadu_ps(r), _MM_FROUND_TO_NEAREST_INT);
    _mm256_storeu_si256((__m256i *)h, v);
}
/* r[0 .. PSL_VL-1] = a * t[0 .. PSL_VL-1]. */
static inline void psl_s_scale_f(float *r, const float *t, float a)
{
    _mm512_storeu_ps(r, _mm512_mul_ps(_mm512_set1_ps(a), _mm512_loadu_ps(t)));
}
static inline void psl_s_scale_d(double *r, const double *t, double a)
{
    for (int h = 0; h < PSL_VL; h += 8)
        _mm512_storeu_pd(r + h, _mm512_mul_pd(_mm512_set1_pd(a), _mm512_loadu_pd(t + h)));
}
static inline void psl_s_store_f(float *t, psl_vf a) { _mm512_storeu_ps(t, a); }
static inline void psl_s_store_d(double *t, psl_vd2 a)
{
    _mm512_storeu_pd(t, a.lo);
    _mm512_storeu_pd(t + 8, a.hi);
}
