/*
 * mm_number.c -- fast, strict parsing of the integers and reals of Matrix
 * Market text, on buffers that are not NUL-terminated.
 *
 * Reals are correctly rounded (bit-identical to strtod):
 *  - Clinger's fast path when the decimal significand w <= 2^53 and
 *    |exponent| <= 22: w and 10^|e| are exact doubles, so one IEEE multiply
 *    or divide rounds once, correctly;
 *  - with 128-bit integers (GCC/Clang), any significand of <= 19 digits with
 *    |exponent| <= 27: w * 5^e (or w * 2^s / 5^e with the remainder as a
 *    sticky bit) is computed exactly and rounded to 53 bits by hand;
 *  - everything else (longer significands, large exponents) goes to strtod.
 */
#include "mm_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

psl_num_result psl_mm_parse_int(const char *p, const char *end, int64_t *out,
                                const char **next)
{
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    if (p >= end || !is_digit(*p)) {
        *next = p;
        return PSL_NUM_BAD;
    }
    while (p < end && *p == '0')
        p++;
    uint64_t v = 0;
    int nd = 0;
    while (p < end && is_digit(*p)) {
        if (nd < 19)
            v = v * 10u + (uint64_t)(*p - '0');
        nd++;
        p++;
    }
    *next = p;
    if (p < end && !psl_mm_is_delim(*p))
        return PSL_NUM_BAD;
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    if (nd > 19 || v > limit)
        return PSL_NUM_RANGE;
    *out = neg ? (int64_t)(0u - v) : (int64_t)v;
    return PSL_NUM_OK;
}

/* Case-insensitive: does the token [p, end) equal word? */
static int token_is(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != word[i])
            return 0;
    return 1;
}

/* End of the token starting at p. */
static const char *token_end(const char *p, const char *end)
{
    while (p < end && !psl_mm_is_delim(*p))
        p++;
    return p;
}

/* The slow path: strtod on a NUL-terminated copy of [s, e). */
static psl_num_result parse_with_strtod(const char *s, const char *e, double *out)
{
    char small[80];
    size_t n = (size_t)(e - s);
    char *buf = small;
    if (n >= sizeof small) {
        buf = psl_malloc(n + 1, 1);
        if (!buf)
            return PSL_NUM_NOMEM;
    }
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *stop = NULL;
    double v = strtod(buf, &stop);
    psl_num_result r = PSL_NUM_OK;
    if (stop != buf + n)
        r = PSL_NUM_BAD; /* only with an unusual locale's decimal point */
    else if (isinf(v))
        r = PSL_NUM_NONFINITE;
    if (buf != small)
        free(buf);
    if (r == PSL_NUM_OK)
        *out = v;
    return r;
}

#if defined(__SIZEOF_INT128__) && defined(__GNUC__)
#define PSL_HAVE_U128 1
__extension__ typedef unsigned __int128 psl_u128;

static const uint64_t pow5_table[28] = {
    1u, 5u, 25u, 125u,
    625u, 3125u, 15625u, 78125u,
    390625u, 1953125u, 9765625u, 48828125u,
    244140625u, 1220703125u, 6103515625u, 30517578125u,
    152587890625u, 762939453125u, 3814697265625u, 19073486328125u,
    95367431640625u, 476837158203125u, 2384185791015625u, 11920928955078125u,
    59604644775390625u, 298023223876953125u, 1490116119384765625u, 7450580596923828125u,
};

static int bit_length(psl_u128 q)
{
    uint64_t hi = (uint64_t)(q >> 64), lo = (uint64_t)q;
    if (hi)
        return 128 - __builtin_clzll(hi);
    return lo ? 64 - __builtin_clzll(lo) : 0;
}

/* (q + f) * 2^bexp rounded to nearest-even, where 0 <= f < 1 and sticky says
 * f != 0. The result is known to be a normal double. */
static double round_u128(psl_u128 q, int sticky, int bexp)
{
    int bits = bit_length(q);
    if (bits <= 53)
        return ldexp((double)(uint64_t)q, bexp); /* exact (sticky is 0 here) */
    int shift = bits - 53;
    uint64_t m = (uint64_t)(q >> shift);
    psl_u128 rem = q & (((psl_u128)1 << shift) - 1);
    psl_u128 half = (psl_u128)1 << (shift - 1);
    if (rem > half || (rem == half && (sticky || (m & 1u))))
        m++;
    if (m == (uint64_t)1 << 53) {
        m >>= 1;
        shift++;
    }
    return ldexp((double)m, bexp + shift);
}

/* w * 10^e10 exactly rounded, for 0 < w < 10^19 and |e10| <= 27. */
static double scale_exact(uint64_t w, int e10)
{
    if (e10 >= 0)
        return round_u128((psl_u128)w * pow5_table[e10], 0, e10);
    int k = -e10;
    int s = 128 - bit_length(w);
    psl_u128 num = (psl_u128)w << s;
    psl_u128 q = num / pow5_table[k];
    psl_u128 r = num % pow5_table[k];
    return round_u128(q, r != 0, -s - k);
}
#endif

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

psl_num_result psl_mm_parse_double(const char *p, const char *end, double *out,
                                   const char **next)
{
    const char *start = p;
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    if (p < end && ((*p | 0x20) == 'i' || (*p | 0x20) == 'n')) {
        const char *e = token_end(p, end);
        *next = e;
        if (token_is(p, e, "inf") || token_is(p, e, "infinity") || token_is(p, e, "nan") ||
            (e - p > 4 && token_is(p, p + 4, "nan(") && e[-1] == ')'))
            return PSL_NUM_NONFINITE;
        return PSL_NUM_BAD;
    }
    uint64_t w = 0;
    int nd = 0;         /* significant digits seen (after leading zeros) */
    int64_t e10 = 0;    /* decimal exponent of w */
    int any = 0;
    while (p < end && is_digit(*p)) {
        any = 1;
        if (nd || *p != '0') {
            if (nd < 19)
                w = w * 10u + (uint64_t)(*p - '0');
            else
                e10++;
            nd++;
        }
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && is_digit(*p)) {
            any = 1;
            if (nd || *p != '0') {
                if (nd < 19) {
                    w = w * 10u + (uint64_t)(*p - '0');
                    e10--;
                }
                nd++;
            } else {
                e10--;
            }
            p++;
        }
    }
    if (!any) {
        *next = p;
        return PSL_NUM_BAD;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0;
        if (p < end && (*p == '+' || *p == '-')) {
            eneg = *p == '-';
            p++;
        }
        if (p >= end || !is_digit(*p)) {
            *next = p;
            return PSL_NUM_BAD;
        }
        int64_t ex = 0;
        while (p < end && is_digit(*p)) {
            if (ex < 100000000)
                ex = ex * 10 + (*p - '0');
            p++;
        }
        e10 += eneg ? -ex : ex;
    }
    *next = p;
    if (p < end && !psl_mm_is_delim(*p))
        return PSL_NUM_BAD;
    if (w == 0) {
        *out = neg ? -0.0 : 0.0;
        return PSL_NUM_OK;
    }
    if (nd <= 19) {
        if (w <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
            double v = (double)w;
            v = e10 >= 0 ? v * exact_pow10[e10] : v / exact_pow10[-e10];
            *out = neg ? -v : v;
            return PSL_NUM_OK;
        }
#ifdef PSL_HAVE_U128
        if (e10 >= -27 && e10 <= 27) {
            double v = scale_exact(w, (int)e10);
            *out = neg ? -v : v;
            return PSL_NUM_OK;
        }
#endif
    }
    return parse_with_strtod(start, p, out);
}

const char *psl_mm_token_text(const char *p, const char *end, char *buf, size_t buflen)
{
    size_t n = 0;
    const char *e = token_end(p, end);
    size_t len = (size_t)(e - p);
    for (; n < len && n + 1 < buflen; n++) {
        unsigned char c = (unsigned char)p[n];
        buf[n] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    if (n < len && buflen >= 4)
        memcpy(buf + buflen - 4, "...", 3), n = buflen - 1;
    buf[n] = '\0';
    return buf;
}
