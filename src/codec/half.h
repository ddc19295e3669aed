/*
 * half.h -- IEEE binary16 and bfloat16 <-> float conversions for vectors and
 * SELL values (inline, host and device). float -> half/bf16 round to nearest
 * even; overflow gives Inf and NaN stays NaN, as IEEE arithmetic does.
 */
#ifndef PSL_HALF_H
#define PSL_HALF_H

#include "../format/word.h"

#include <stdint.h>

/* FP16 -> float, exact. Normal values are rebiased as integers and
 * subnormals go through an int -> float conversion, so no step touches a
 * float subnormal: the result is right even with flush-to-zero or
 * denormals-are-zero modes on (x86 MXCSR FTZ/DAZ, CUDA -ftz=true). */
PSL_HD float psl_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t mag = h & 0x7fffu;
    if (mag >= 0x7c00u) /* Inf or NaN (payload and quiet bit kept) */
        return psl_bits_to_float(sign | 0x7f800000u | ((mag & 0x3ffu) << 13));
    if (mag >= 0x0400u) /* normal: exponent bias 15 -> 127, mantissa 10 -> 23 bits */
        return psl_bits_to_float(sign | ((mag << 13) + 0x38000000u));
    float v = (float)mag * 0x1p-24f; /* subnormal or zero: mag * 2^-24 */
    return sign ? -v : v;
}

/* float -> FP16, round to nearest even; overflow -> Inf, NaN stays NaN.
 * Integer operations on the bits only. */
PSL_HD uint16_t psl_float_to_half(float f)
{
    uint32_t u = psl_float_to_bits(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) /* NaN: keep quiet NaN with payload top bits */
        return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) /* >= 65520 rounds to Inf (also Inf itself) */
        return (uint16_t)(sign | 0x7c00u);
    if (a < 0x38800000u) { /* below 2^-14: subnormal half or zero */
        if (a < 0x33000000u) /* below 2^-25: rounds to zero */
            return (uint16_t)sign;
        uint32_t mant = (a & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(a >> 23); /* 14 .. 24 */
        uint32_t q = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        return (uint16_t)(sign | q);
    }
    /* normal: rebias exponent (127 -> 15) and round 23 -> 10 mantissa bits */
    uint32_t r = a - 0x38000000u; /* exponent - 112 */
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
}

/* BF16 -> float: the upper half of the float's bits. */
PSL_HD float psl_bf16_to_float(uint16_t b) { return psl_bits_to_float((uint32_t)b << 16); }

/* float -> BF16, round to nearest even; overflow -> Inf; NaN stays NaN
 * (quiet bit set so that a NaN whose payload lies in the low half does not
 * become Inf). */
PSL_HD uint16_t psl_float_to_bf16(float f)
{
    uint32_t u = psl_float_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

#endif /* PSL_HALF_H */
