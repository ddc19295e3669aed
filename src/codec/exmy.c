/*
 * exmy.c -- the generic custom-float value codec ExMy (sign, e exponent bits
 * with IEEE bias and subnormals, m mantissa bits) used for every PackSELL
 * value format: FP16 = E5M10, BF16 = E8M7, E8MY.
 *
 * Rounding is round-to-nearest-even computed from the double itself (no
 * intermediate float, so no double rounding). The magnitude is computed as an
 * integer q = round(|v| / ulp) where ulp is the spacing of the target binade
 * (or of the subnormal range); because exponent and mantissa fields are
 * contiguous, a carry out of the mantissa moves into the next binade by
 * itself, and a subnormal that rounds up to 2^m becomes the smallest normal.
 */
#include "codec.h"
#include "internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int32_t psl_codec_delta_bits(psl_codec c) { return 30 - c.exp_bits - c.man_bits; }

psl_status psl_codec_check(psl_codec c)
{
    if (c.exp_bits < 2 || c.exp_bits > 8)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "codec exponent bits %d outside 2..8", (int)c.exp_bits);
    if (c.man_bits < 0 || c.man_bits > 23)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "codec mantissa bits %d outside 0..23", (int)c.man_bits);
    if (c.exp_bits + c.man_bits > 29)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "codec e%dm%d leaves no delta bits in a 32-bit word "
                         "(needs 1+e+m <= 30)",
                         (int)c.exp_bits, (int)c.man_bits);
    return PSL_OK;
}

psl_status psl_codec_parse(const char *name, psl_codec *codec)
{
    if (!name || !codec)
        return psl_error(PSL_ERR_NULL_POINTER, "codec name or output is NULL");
    char low[32];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof low)
        return psl_error(PSL_ERR_INVALID_VALUE, "unknown value codec '%s'", name);
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    psl_codec c;
    if (strcmp(low, "fp16") == 0 || strcmp(low, "half") == 0) {
        c = (psl_codec){5, 10};
    } else if (strcmp(low, "bf16") == 0) {
        c = (psl_codec){8, 7};
    } else {
        int e = -1, m = -1, used = 0;
        if (sscanf(low, "e%dm%d%n", &e, &m, &used) != 2 || (size_t)used != n)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "unknown value codec '%s' (expected fp16, bf16 or eXmY, "
                             "e.g. e8m10)",
                             name);
        c = (psl_codec){e, m};
    }
    psl_status st = psl_codec_check(c);
    if (st != PSL_OK)
        return st;
    *codec = c;
    return PSL_OK;
}

psl_status psl_codec_name(psl_codec c, char *buf, size_t buflen)
{
    if (!buf)
        return psl_error(PSL_ERR_NULL_POINTER, "buffer is NULL");
    int k;
    if (c.exp_bits == 5 && c.man_bits == 10)
        k = snprintf(buf, buflen, "fp16");
    else if (c.exp_bits == 8 && c.man_bits == 7)
        k = snprintf(buf, buflen, "bf16");
    else
        k = snprintf(buf, buflen, "e%dm%d", (int)c.exp_bits, (int)c.man_bits);
    if (k < 0 || (size_t)k >= buflen)
        return psl_error(PSL_ERR_INVALID_VALUE, "codec name buffer too small");
    return PSL_OK;
}

/* Round sig >> s to nearest, ties to even (s >= 1). */
static uint64_t rne_shift(uint64_t sig, int s)
{
    if (s >= 64)
        return 0; /* sig < 2^53 < half */
    uint64_t q = sig >> s;
    uint64_t rem = sig & ((UINT64_C(1) << s) - 1);
    uint64_t half = UINT64_C(1) << (s - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return q;
}

psl_status psl_codec_encode_raw(psl_codec c, psl_overflow policy, double value,
                                uint32_t *bits)
{
    const int e = c.exp_bits, m = c.man_bits, V = 1 + e + m;
    if (!isfinite(value))
        return PSL_ERR_NONFINITE;
    uint64_t u;
    memcpy(&u, &value, sizeof u);
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
        if (E >= emin) {
            uint64_t q = rne_shift(sig, 52 - m); /* in [2^m, 2^(m+1)] */
            mag = ((uint64_t)(E + bias) << m) + (q - (UINT64_C(1) << m));
        } else {
            mag = rne_shift(sig, 52 - m + (emin - E)); /* subnormal grid */
        }
        if (mag >= inf_mag) {
            if (policy != PSL_OVERFLOW_SATURATE)
                return PSL_ERR_CODEC_OVERFLOW;
            mag = inf_mag - 1;
        }
    }
    *bits = (sign << (V - 1)) | (uint32_t)mag;
    return PSL_OK;
}

psl_status psl_codec_encode(psl_codec c, psl_overflow policy, double value, uint32_t *bits)
{
    if (!bits)
        return psl_error(PSL_ERR_NULL_POINTER, "bits is NULL");
    PSL_TRY(psl_codec_check(c));
    uint32_t b;
    psl_status st = psl_codec_encode_raw(c, policy, value, &b);
    if (st == PSL_ERR_NONFINITE)
        return psl_error(st, "cannot encode non-finite value %g", value);
    if (st == PSL_ERR_CODEC_OVERFLOW)
        return psl_error(st, "value %.17g overflows codec e%dm%d", value, (int)c.exp_bits,
                         (int)c.man_bits);
    *bits = b;
    return PSL_OK;
}

double psl_codec_decode(psl_codec c, uint32_t bits)
{
    const int e = c.exp_bits, m = c.man_bits, V = 1 + e + m;
    const int bias = (1 << (e - 1)) - 1;
    const uint32_t sign = (bits >> (V - 1)) & 1u;
    const uint32_t ef = (bits >> m) & ((1u << e) - 1u);
    const uint32_t f = bits & ((1u << m) - 1u);
    double v;
    if (ef == 0)
        v = ldexp((double)f, 1 - bias - m);
    else if (ef == (1u << e) - 1u)
        v = f ? NAN : INFINITY;
    else
        v = ldexp((double)((1u << m) + f), (int)ef - bias - m);
    return sign ? -v : v;
}
