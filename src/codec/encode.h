/*
 * encode.h -- value rounding shared by host and device: the ExMy codec
 * encoder (round to nearest even from the double itself, see exmy.c for the
 * method) and the rounding of one double to a stored scalar type (FP64,
 * FP32, FP16, BF16). Inline functions marked PSL_HD (word.h): the C library
 * (exmy.c, the format builders) and the CUDA conversion (src/kernels/cuda/
 * convert_*.cu) compile the same code, so device builds give the CPU's bits.
 * Only integer operations and one double -> float cast (IEEE round to
 * nearest even on both sides); no math library call.
 */
#ifndef PSL_CODEC_ENCODE_H
#define PSL_CODEC_ENCODE_H

#include "packsell.h"
#include "format/word.h"

#include <stdint.h>

/* The bits of a double (host and device). */
PSL_HD uint64_t psl_double_to_bits(double v)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(v);
#else
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
#endif
}

/* True when v is neither NaN nor +-Inf (from the bits: no FP environment). */
PSL_HD int psl_double_finite(double v)
{
    return ((psl_double_to_bits(v) >> 52) & 0x7ffu) != 0x7ffu;
}

/*
 * The codec pattern base + (sig >> s), rounded to nearest on the bits shifted
 * out, ties to the even *pattern* (s >= 1). base is the pattern of the binade
 * below sig's leading bit, so the parity is that of the stored mantissa LSB;
 * for m = 0 it is the exponent LSB, as in the FP32 bit method of
 * ALGORITHMS.md section 3 (the significand alone would always be odd there).
 */
PSL_HD uint64_t psl_exmy_round_pattern(uint64_t base, uint64_t sig, int s)
{
    if (s >= 64)
        return base; /* sig < 2^53 < half an ulp */
    uint64_t q = base + (sig >> s);
    uint64_t rem = sig & ((UINT64_C(1) << s) - 1);
    uint64_t half = UINT64_C(1) << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return q;
}

/* Encode value into the codec e/m (valid: psl_codec_check): PSL_OK with the
 * V-bit pattern right-aligned in *bits, or PSL_ERR_NONFINITE /
 * PSL_ERR_CODEC_OVERFLOW (then *bits is not written). The magnitude is
 * round(|v| / ulp) offset by the binade's base; a carry out of the mantissa
 * moves into the next binade by itself. */
PSL_HD psl_status psl_exmy_encode(int e, int m, psl_overflow policy, double value,
                                  uint32_t *bits)
{
    const int V = 1 + e + m;
    uint64_t u = psl_double_to_bits(value);
    if (((u >> 52) & 0x7ffu) == 0x7ffu)
        return PSL_ERR_NONFINITE;
    const uint32_t sign = (uint32_t)(u >> 63);
    u &= ~(UINT64_C(1) << 63);
    const int bias = (1 << (e - 1)) - 1;
    const int emin = 1 - bias;
    const uint64_t inf_mag = (uint64_t)((1u << e) - 1u) << m;
    uint64_t mag = 0;
    if (u != 0) {
        int ef = (int)(u >> 52);
        uint64_t sig = u & ((UINT64_C(1) << 52) - 1);
        int E;
        if (ef == 0) {
            E = -1022; /* double subnormal: sig * 2^(-1074) */
        } else {
            sig |= UINT64_C(1) << 52;
            E = ef - 1023;
        }
        if (E >= emin) /* normal: sig >> (52-m) is in [2^m, 2^(m+1)) */
            mag = psl_exmy_round_pattern((uint64_t)(E + bias - 1) << m, sig, 52 - m);
        else /* subnormal grid 2^(emin-m) */
            mag = psl_exmy_round_pattern(0, sig, 52 - m + (emin - E));
        if (mag >= inf_mag) {
            if (policy != PSL_OVERFLOW_SATURATE)
                return PSL_ERR_CODEC_OVERFLOW;
            mag = inf_mag - 1;
        }
    }
    *bits = (sign << (V - 1)) | (uint32_t)mag;
    return PSL_OK;
}

/* Round v to storage type t (FP64: its own bits; FP32: IEEE cast, round to
 * nearest even; FP16/BF16: the codec) and return the raw bits right-aligned
 * in *bits. Returns PSL_OK, PSL_ERR_NONFINITE or PSL_ERR_CODEC_OVERFLOW
 * without touching the thread's error record (hot loops). *underflow is set
 * when a nonzero v became +-0. */
PSL_HD psl_status psl_round_scalar(psl_scalar t, psl_overflow policy, double v, uint64_t *bits,
                                   int *underflow)
{
    *underflow = 0;
    if (!psl_double_finite(v))
        return PSL_ERR_NONFINITE;
    switch (t) {
    case PSL_FP64: *bits = psl_double_to_bits(v); return PSL_OK;
    case PSL_FP32: {
        /* |v| >= FLT_MAX + ulp/2 rounds to Inf; the cast is only done in range */
        float f;
        if (v >= 0x1.ffffffp127 || v <= -0x1.ffffffp127) {
            if (policy != PSL_OVERFLOW_SATURATE)
                return PSL_ERR_CODEC_OVERFLOW;
            f = v > 0 ? 0x1.fffffep127f : -0x1.fffffep127f;
        } else {
            f = (float)v;
        }
        *bits = psl_float_to_bits(f);
        *underflow = v != 0.0 && f == 0.0f;
        return PSL_OK;
    }
    case PSL_FP16:
    case PSL_BF16: {
        uint32_t b = 0;
        psl_status st =
            t == PSL_FP16 ? psl_exmy_encode(5, 10, policy, v, &b) : psl_exmy_encode(8, 7, policy, v, &b);
        if (st != PSL_OK)
            return st;
        *bits = b;
        *underflow = v != 0.0 && (b & 0x7fffu) == 0;
        return PSL_OK;
    }
    }
    return PSL_ERR_INTERNAL;
}

#endif /* PSL_CODEC_ENCODE_H */
