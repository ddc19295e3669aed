/*
 * codec_ref.h -- independent reference implementations used to check the
 * value codecs (src/codec/exmy.c, src/codec/half.h): they share no code with
 * the library and use different methods on purpose.
 *
 *  - psl_ref_e8my_bits: E8MY rounding by the FP32 bit method of
 *    ALGORITHMS.md section 3 (add rounding bias, mask), on float bits;
 *  - psl_ref_decode: ExMy pattern -> double built from IEEE bits (no ldexp);
 *  - psl_ref_encode: ExMy rounding of any double by binary search over the
 *    codec's patterns with psl_ref_decode, then an exact midpoint comparison;
 *  - psl_ref_float_to_16: what half.h's float -> FP16/BF16 must give, from
 *    the (separately verified) codec.
 */
#ifndef PSL_CODEC_REF_H
#define PSL_CODEC_REF_H

#include "packsell.h"
#include "codec/codec.h"

#include <stdint.h>
#include <string.h>

/* Double with the given bits. */
static inline double psl_ref_bits_to_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint64_t psl_ref_double_to_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* 2^k for -1022 <= k <= 1023, built from its exponent field. */
static inline double psl_ref_pow2(int k)
{
    return psl_ref_bits_to_double((uint64_t)(k + 1023) << 52);
}

/*
 * E8MY by the FP32 bit method: u is a float's bits, s = 23 - Y (1..23).
 * Rounds the magnitude to nearest even on bit s, checks overflow (result
 * reaching the Inf pattern) and writes the FP32 word with the low s bits
 * zero. NaN and Inf give PSL_ERR_NONFINITE; overflow gives
 * PSL_ERR_CODEC_OVERFLOW, or +-max finite on the grid when saturate.
 */
static inline psl_status psl_ref_e8my_bits(uint32_t u, int s, int saturate, uint32_t *out)
{
    const uint32_t sign = u & 0x80000000u;
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) /* Inf or NaN */
        return PSL_ERR_NONFINITE;
    a += ((a >> s) & 1u) + (1u << (s - 1)) - 1u;
    a &= ~((1u << s) - 1u);
    if (a >= 0x7f800000u) {
        if (!saturate)
            return PSL_ERR_CODEC_OVERFLOW;
        a = 0x7f7fffffu & ~((1u << s) - 1u);
    }
    *out = sign | a;
    return PSL_OK;
}

/* Value of a right-aligned pattern of codec {e, m}; Inf/NaN for the
 * all-ones exponent. The magnitude pattern k may also be the first
 * pattern past the largest finite value (k = (2^e-1) << m with sign 0)
 * when called through psl_ref_mag_value. */
static inline double psl_ref_mag_value(int e, int m, uint64_t k)
{
    const int bias = (1 << (e - 1)) - 1;
    const uint64_t ef = k >> m, f = k & ((UINT64_C(1) << m) - 1);
    if (ef == 0)
        return (double)f * psl_ref_pow2(1 - bias - m);
    return (double)(f | (UINT64_C(1) << m)) * psl_ref_pow2((int)ef - bias - m);
}

static inline double psl_ref_decode(int e, int m, uint32_t bits)
{
    const int V = 1 + e + m;
    const uint64_t k = bits & ((UINT64_C(1) << (V - 1)) - 1);
    const uint64_t inf_mag = (uint64_t)((1u << e) - 1u) << m;
    double v;
    if (k > inf_mag)
        v = psl_ref_bits_to_double(UINT64_C(0x7ff8000000000000));
    else if (k == inf_mag)
        v = psl_ref_bits_to_double(UINT64_C(0x7ff0000000000000));
    else
        v = psl_ref_mag_value(e, m, k);
    return ((bits >> (V - 1)) & 1u) ? -v : v;
}

/*
 * Round double x to codec {e, m} by search: largest magnitude pattern k with
 * value(k) <= |x|, then compare |x| with the exact midpoint to k+1 (value
 * k+1 = 2^(emax+1) past the largest finite); ties go to the even pattern.
 */
static inline psl_status psl_ref_encode(int e, int m, int saturate, double x, uint32_t *out)
{
    const int V = 1 + e + m;
    const uint64_t inf_mag = (uint64_t)((1u << e) - 1u) << m;
    if (x != x || x - x != 0.0)
        return PSL_ERR_NONFINITE;
    const uint32_t sign = (uint32_t)(psl_ref_double_to_bits(x) >> 63);
    const double a = sign ? -x : x;
    uint64_t lo = 0, hi = inf_mag; /* value(lo) <= a < value(hi) or hi = inf */
    if (psl_ref_mag_value(e, m, inf_mag) <= a) {
        lo = inf_mag;
    } else {
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (psl_ref_mag_value(e, m, mid) <= a)
                lo = mid;
            else
                hi = mid;
        }
        const double vlo = psl_ref_mag_value(e, m, lo), vhi = psl_ref_mag_value(e, m, lo + 1);
        const double midpoint = vlo + (vhi - vlo) / 2; /* exact: <= 25 significant bits */
        if (a > midpoint || (a == midpoint && (lo & 1)))
            lo++;
    }
    if (lo >= inf_mag) {
        if (!saturate)
            return PSL_ERR_CODEC_OVERFLOW;
        lo = inf_mag - 1;
    }
    *out = (sign << (V - 1)) | (uint32_t)lo;
    return PSL_OK;
}

/*
 * What half.h's float -> FP16 (bf16 = 0) or float -> BF16 (bf16 = 1) must
 * return, derived from the codec: the codec's pattern when it encodes, +-Inf
 * on overflow or Inf input. Returns 0 for NaN input, where any NaN of the
 * input's sign is right (see psl_ref_is_nan16); 1 otherwise.
 */
static inline int psl_ref_float_to_16(float f, int bf16, uint32_t *want)
{
    uint32_t u, b = 0;
    memcpy(&u, &f, sizeof u);
    const uint32_t sign16 = (u >> 16) & 0x8000u;
    const uint32_t inf16 = bf16 ? 0x7f80u : 0x7c00u;
    if (f != f)
        return 0;
    const psl_codec c = bf16 ? (psl_codec){8, 7} : (psl_codec){5, 10};
    *want = psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, (double)f, &b) == PSL_OK ? b
                                                                            : sign16 | inf16;
    return 1;
}

/* True when h is a NaN of FP16 (bf16 = 0) or BF16 (bf16 = 1) with the sign
 * bit of the float bits u. */
static inline int psl_ref_is_nan16(uint32_t h, int bf16, uint32_t u)
{
    const uint32_t inf16 = bf16 ? 0x7f80u : 0x7c00u;
    return h <= 0xffffu && (h & 0x8000u) == ((u >> 16) & 0x8000u) && (h & 0x7fffu) > inf16;
}

#endif /* PSL_CODEC_REF_H */
