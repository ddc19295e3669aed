/*
 * exmy.c -- the generic custom-float value codec ExMy (sign, e exponent bits
 * with IEEE bias and subnormals, m mantissa bits) used for every PackSELL
 * value format: FP16 = E5M10, BF16 = E8M7, E8MY.
 *
 * Rounding is round-to-nearest-even computed from the double itself (no
 * intermediate float, so no double rounding). The magnitude is computed as an
 * integer pattern round(|v| / ulp) offset by the binade's base, where ulp is
 * the spacing of the target binade (or of the subnormal range); because
 * exponent and mantissa fields are contiguous, a carry out of the mantissa
 * moves into the next binade by itself, a subnormal that rounds up to 2^m
 * becomes the smallest normal, and "even" is the parity of the whole pattern
 * (which matters for m = 0, where it is the exponent's lowest bit). The FP32
 * bit method of ALGORITHMS.md section 3 gives the same bits for every float
 * input (tests/exhaustive_e8my.c checks all 2^32). The encoder itself lives
 * in encode.h, shared with the CUDA conversion.
 */
#include "codec.h"
#include "encode.h"
#include "internal.h"

#include <ctype.h>
#include <stdbool.h>
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

/* Parse 1-2 decimal digits at *p into *v and advance *p; false otherwise. */
static bool parse_small_int(const char **p, int32_t *v)
{
    const char *s = *p;
    int32_t x = 0;
    int n = 0;
    while (n < 2 && s[n] >= '0' && s[n] <= '9') {
        x = 10 * x + (s[n] - '0');
        n++;
    }
    if (n == 0 || (s[n] >= '0' && s[n] <= '9'))
        return false;
    *v = x;
    *p = s + n;
    return true;
}

/* "e<digits>m<digits>" (lower case, nothing else) into *c; not validated. */
static bool parse_exmy(const char *s, psl_codec *c)
{
    if (*s++ != 'e' || !parse_small_int(&s, &c->exp_bits))
        return false;
    if (*s++ != 'm' || !parse_small_int(&s, &c->man_bits))
        return false;
    return *s == '\0';
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
    } else if (!parse_exmy(low, &c)) {
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "unknown value codec '%s' (expected fp16, bf16 or eXmY, "
                         "e.g. e8m10)",
                         name);
    }
    psl_status st = psl_codec_check(c);
    if (st != PSL_OK) { /* restate the reason with the name given */
        char why[160];
        snprintf(why, sizeof why, "%s", psl_last_error_message());
        return psl_error(st, "value codec '%s': %s", name, why);
    }
    *codec = c;
    return PSL_OK;
}

psl_status psl_codec_name(psl_codec c, char *buf, size_t buflen)
{
    if (!buf)
        return psl_error(PSL_ERR_NULL_POINTER, "buffer is NULL");
    PSL_TRY(psl_codec_check(c));
    char tmp[16]; /* "eXmYY" fits; buf is written only on success */
    if (c.exp_bits == 5 && c.man_bits == 10)
        snprintf(tmp, sizeof tmp, "fp16");
    else if (c.exp_bits == 8 && c.man_bits == 7)
        snprintf(tmp, sizeof tmp, "bf16");
    else
        snprintf(tmp, sizeof tmp, "e%dm%d", (int)c.exp_bits, (int)c.man_bits);
    size_t k = strlen(tmp);
    if (k >= buflen)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "codec name buffer of %zu bytes too small for '%s' (needs %zu)",
                         buflen, tmp, k + 1);
    memcpy(buf, tmp, k + 1);
    return PSL_OK;
}

psl_status psl_codec_encode_raw(psl_codec c, psl_overflow policy, double value,
                                uint32_t *bits)
{
    return psl_exmy_encode(c.exp_bits, c.man_bits, policy, value, bits);
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
    if (c.exp_bits < 2 || c.exp_bits > 8 || c.man_bits < 0 || c.man_bits > 23 ||
        c.exp_bits + c.man_bits > 29)
        return NAN; /* invalid codec (psl_codec_check says why) */
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
