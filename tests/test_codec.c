/*
 * test_codec.c -- the value codecs (src/codec/exmy.c), the FP16/BF16
 * conversions (src/codec/half.h) and the in-word decode (src/format/word.h)
 * against independent references: the compiler's _Float16, the FP32 bit
 * method and a binary-search encoder (tests/codec_ref.h).
 *
 * The 2^32 float sweeps use a stride (PSL_CODEC_STRIDE, default 251; set 1
 * for all inputs); tests/exhaustive_e8my.c does the full E8MY sweep.
 */
#include "packsell.h"
#include "codec/codec.h"
#include "codec/half.h"
#include "codec_ref.h"
#include "harness.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
#include <xmmintrin.h>
#endif

#define SENTINEL 0xdeadbeefu

/* ---------------------------------------------------------------- helpers */

/* Every valid codec, in a fixed order: e in 2..8, m in 0..min(23, 29-e). */
static int all_codecs(psl_codec *out)
{
    int n = 0;
    for (int e = 2; e <= 8; e++)
        for (int m = 0; m <= 23 && e + m <= 29; m++)
            out[n++] = (psl_codec){e, m};
    return n;
}

static uint64_t inf_mag_of(psl_codec c)
{
    return (uint64_t)((1u << c.exp_bits) - 1u) << c.man_bits;
}

/* Bits of a double (for signed-zero-aware equality). */
static uint64_t dbits(double d) { return psl_ref_double_to_bits(d); }

/* Encode with the library; bits stays SENTINEL on failure. */
static psl_status enc(psl_codec c, psl_overflow pol, double x, uint32_t *bits)
{
    *bits = SENTINEL;
    return psl_codec_encode(c, pol, x, bits);
}

/* Magnitude patterns to visit for a codec, at most cap (>= 4096): all when
 * there are at most cap/2 of them, else an even spread of cap/2 plus the
 * first two and last two mantissas of every binade. Returns the count. */
static int magnitude_sample(psl_codec c, uint32_t *out, int cap)
{
    const uint64_t inf = inf_mag_of(c), half = (uint64_t)cap / 2;
    int n = 0;
    if (inf <= half) {
        for (uint64_t k = 0; k < inf; k++)
            out[n++] = (uint32_t)k;
        return n;
    }
    const uint64_t step = inf / half;
    for (uint64_t k = 0; k + step <= inf && (uint64_t)n < half; k += step)
        out[n++] = (uint32_t)(k + (k / step) * 7919 % step); /* vary the low bits */
    const uint64_t fmax = (UINT64_C(1) << c.man_bits) - 1;
    for (uint64_t ef = 0; ef < (1u << c.exp_bits) - 1u && n + 4 <= cap; ef++) {
        const uint64_t b = ef << c.man_bits;
        out[n++] = (uint32_t)b;
        out[n++] = (uint32_t)(b + (fmax >= 1));
        out[n++] = (uint32_t)(b + fmax - (fmax >= 1));
        out[n++] = (uint32_t)(b + fmax);
    }
    return n;
}

static long long stride_from_env(void)
{
    const char *s = getenv("PSL_CODEC_STRIDE");
    long long v = s && *s ? atoll(s) : 251;
    return v >= 1 ? v : 251;
}

/* ----------------------------------------------------- hand-checked values */

TEST(known_values)
{
    psl_codec c = PSL_CODEC_FP16;
    uint32_t b = 0;
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 1.0, &b));
    CHECK(b == 0x3c00);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, -2.0, &b));
    CHECK(b == 0xc000);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 65504.0, &b));
    CHECK(b == 0x7bff);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 65519.99, &b));
    CHECK(b == 0x7bff);
    CHECK_ST(enc(c, PSL_OVERFLOW_ERROR, 65520.0, &b), PSL_ERR_CODEC_OVERFLOW);
    CHECK(b == SENTINEL);
    CHECK_OK(enc(c, PSL_OVERFLOW_SATURATE, 1e9, &b));
    CHECK(b == 0x7bff);
    CHECK_OK(enc(c, PSL_OVERFLOW_SATURATE, -1e9, &b));
    CHECK(b == 0xfbff);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 0x1p-24, &b));
    CHECK(b == 0x0001);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 0x1p-25, &b));
    CHECK(b == 0x0000); /* tie to even */
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 0x1.8p-24, &b));
    CHECK(b == 0x0002); /* tie to even */
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 0x1.ffcp-15, &b));
    CHECK(b == 0x0400); /* largest subnormal + half ulp -> smallest normal (even) */
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, -0.0, &b));
    CHECK(b == 0x8000);
    CHECK(psl_codec_decode(c, 0x3555) == 0x1.554p-2);
    CHECK(psl_codec_decode(c, 0x7c00) == INFINITY && psl_codec_decode(c, 0xfc00) == -INFINITY);
    CHECK(isnan(psl_codec_decode(c, 0x7c01)));
    CHECK(psl_half_to_float(0x0001) == 0x1p-24f);
    CHECK(psl_float_to_half(1.0f) == 0x3c00);

    /* e8m0: values +-2^k, the pattern is the exponent field; ties go to the
     * even pattern, i.e. the even exponent field (ALGORITHMS.md bit method) */
    c = (psl_codec){8, 0};
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 1.5, &b)); /* 1 = 127 (odd), 2 = 128 */
    CHECK(b == 128 && psl_codec_decode(c, b) == 2.0);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 3.0, &b)); /* 2 = 128 (even), 4 = 129 */
    CHECK(b == 128 && psl_codec_decode(c, b) == 2.0);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 3.0000001, &b));
    CHECK(psl_codec_decode(c, b) == 4.0);
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, 1.4999, &b));
    CHECK(psl_codec_decode(c, b) == 1.0);

    /* e8m7 = bf16 agrees with truncating a float when exact */
    c = PSL_CODEC_BF16;
    CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, -0x1.fep+127, &b));
    CHECK(b == 0xff7f);
}

/* ------------------------------------------------------ FP16 vs _Float16 */

/* One double against the compiler's direct double -> _Float16 conversion. */
#ifdef __FLT16_MANT_DIG__
static int fp16_vs_compiler_one(double x)
{
    volatile double vx = x; /* keep the conversion at run time */
    _Float16 h = (_Float16)vx;
    uint16_t hb;
    memcpy(&hb, &h, sizeof hb);
    uint32_t b, s;
    psl_status st = psl_codec_encode_raw(PSL_CODEC_FP16, PSL_OVERFLOW_ERROR, x, &b);
    psl_status ss = psl_codec_encode_raw(PSL_CODEC_FP16, PSL_OVERFLOW_SATURATE, x, &s);
    if ((hb & 0x7fffu) == 0x7c00u) /* overflow */
        return st == PSL_ERR_CODEC_OVERFLOW && ss == PSL_OK && s == ((hb & 0x8000u) | 0x7bffu);
    return st == PSL_OK && b == hb && ss == PSL_OK && s == hb;
}
#endif

TEST(fp16_vs_float16)
{
#ifndef __FLT16_MANT_DIG__
    printf("  skipped: the compiler has no _Float16\n");
#else
    unsigned long long seed = 1234;
    long long n = 0, bad = 0;
    const double fixed[] = {65504.0, 65519.99, 65520.0, 0x1.ffdfffffffffp+15, 0x1.ffe0000000001p+15,
                            65536.0, 1e300, DBL_MAX, DBL_MIN, 0x1p-1074, 0x1p-25,
                            0x1.0000000000001p-25, 0x1.fffffffffffffp-26, 0x1p-14, 0x1.ffcp-15,
                            0x1.ffep-15, 0.0, 1.0, 1.0 + 0x1p-11, 1.0 + 0x1p-11 + 0x1p-40};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        for (int sg = 0; sg < 2; sg++) {
            double x = sg ? -fixed[i] : fixed[i];
            n++;
            if (!fp16_vs_compiler_one(x)) {
                bad++;
                CHECK_MSG(0, "fixed input %a", x);
            }
        }
    for (long long i = 0; i < 3000000; i++) {
        const uint64_t r = psl_test_rand(&seed);
        double x;
        switch (i % 4) {
        case 0: /* anywhere from below the subnormals to past overflow */
            x = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)(r % 48) - 30);
            break;
        case 1: /* subnormal range and the underflow threshold */
            x = ldexp(1.0 + (double)(r >> 12) * 0x1p-52, (int)(r % 13) - 27);
            break;
        case 2: { /* at and around a midpoint of two neighbours (incl. 65504|Inf) */
            const uint32_t k = (uint32_t)(r % 0x7c00u);
            const double lo = psl_ref_mag_value(5, 10, k), hi = psl_ref_mag_value(5, 10, k + 1);
            const double mid = lo + (hi - lo) / 2;
            const int way = (int)((r >> 20) % 5);
            x = way == 0 ? mid
                : way == 1 ? nextafter(mid, 0.0)
                : way == 2 ? nextafter(mid, INFINITY)
                           : mid + (way == 3 ? 1 : -1) * (hi - lo) * 0x1p-30 *
                                       (double)((r >> 40) % 1024 + 1);
            break;
        }
        default: /* near the overflow boundary */
            x = 65504.0 + (double)(r % 40000) * 0x1p-10;
            break;
        }
        if (r >> 63)
            x = -x;
        n++;
        if (!fp16_vs_compiler_one(x) && bad++ < 5)
            CHECK_MSG(0, "input %a", x);
    }
    CHECK_MSG(bad == 0, "%lld of %lld doubles differ from _Float16", bad, n);
#endif
}

/* Every FP16 pattern decodes as the independent formula (and as _Float16,
 * and as half.h's psl_half_to_float). */
TEST(fp16_decode_all)
{
    long long bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const double want = psl_ref_decode(5, 10, h);
        const double got = psl_codec_decode(PSL_CODEC_FP16, h);
        const float hf = psl_half_to_float((uint16_t)h);
        int ok;
        if (isnan(want))
            ok = isnan(got) && isnan(hf) && (signbit(hf) != 0) == ((h >> 15) != 0);
        else
            ok = dbits(got) == dbits(want) && dbits((double)hf) == dbits(want);
#ifdef __FLT16_MANT_DIG__
        _Float16 c16;
        const uint16_t h16 = (uint16_t)h;
        memcpy(&c16, &h16, sizeof c16);
        if (!isnan(want))
            ok = ok && dbits((double)c16) == dbits(want);
#endif
        if (!ok && bad++ < 5)
            CHECK_MSG(0, "pattern 0x%04x: decode %a, half_to_float %a, want %a", h, got,
                      (double)hf, want);
    }
    CHECK(bad == 0);
    /* the formula itself, at a few hand-known points */
    CHECK(psl_ref_decode(5, 10, 0x0001) == 0x1p-24 && psl_ref_decode(5, 10, 0x7bff) == 65504.0);
    CHECK(psl_ref_decode(5, 10, 0x0400) == 0x1p-14 && psl_ref_decode(5, 10, 0xc000) == -2.0);
}

/* ------------------------------------------------------ BF16 / E8MY on floats */

/* Every codec {8, Y} against the FP32 bit method on a strided FP32 sweep
 * (exhaustive_e8my does all 2^32), under both policies, via the public API. */
TEST(e8my_vs_bit_method_sampled)
{
    long long bad = 0, n = 0;
    for (int Y = 0; Y <= 21; Y++) {
        const psl_codec c = {8, Y};
        const int s = 23 - Y;
        for (uint64_t u64 = (uint64_t)Y; u64 < (UINT64_C(1) << 32); u64 += 1000003) {
            const uint32_t u = (uint32_t)u64;
            for (int pol = 0; pol < 2; pol++) {
                uint32_t b, ref = 0;
                psl_status st = enc(c, (psl_overflow)pol, (double)psl_bits_to_float(u), &b);
                psl_status rs = psl_ref_e8my_bits(u, s, pol, &ref);
                n++;
                int ok = st == rs && (st == PSL_OK ? (b << s) == ref && (b >> (9 + Y)) == 0
                                                   : b == SENTINEL);
                if (!ok && bad++ < 5)
                    CHECK_MSG(0, "e8m%d input 0x%08x: status %d bits 0x%x, ref %d 0x%08x", Y,
                              u, st, b, rs, ref);
            }
        }
    }
    CHECK_MSG(bad == 0, "%lld of %lld", bad, n);
    CHECK(n > 22 * 2 * 4000);
}

/* BF16 = E8M7: a denser sweep plus the bit method at hand-picked floats. */
TEST(bf16_vs_bit_method)
{
    long long bad = 0;
    const long long stride = stride_from_env() * 16 + 1;
    for (uint64_t u64 = 0; u64 < (UINT64_C(1) << 32); u64 += (uint64_t)stride) {
        const uint32_t u = (uint32_t)u64;
        uint32_t b, ref = 0;
        psl_status st = psl_codec_encode_raw(PSL_CODEC_BF16, PSL_OVERFLOW_ERROR,
                                             (double)psl_bits_to_float(u), &b);
        psl_status rs = psl_ref_e8my_bits(u, 16, 0, &ref);
        if ((st != rs || (st == PSL_OK && (b << 16) != ref)) && bad++ < 5)
            CHECK_MSG(0, "input 0x%08x: status %d bits 0x%x, ref %d 0x%08x", u, st, b, rs, ref);
    }
    CHECK(bad == 0);
    /* the reference itself: tie to even, carry into the exponent, overflow */
    uint32_t r = 0;
    CHECK(psl_ref_e8my_bits(0x3f808000u, 16, 0, &r) == PSL_OK && r == 0x3f800000u);
    CHECK(psl_ref_e8my_bits(0x3f818000u, 16, 0, &r) == PSL_OK && r == 0x3f820000u);
    CHECK(psl_ref_e8my_bits(0x3fffc000u, 16, 0, &r) == PSL_OK && r == 0x40000000u);
    CHECK(psl_ref_e8my_bits(0x7f7f8000u, 16, 0, &r) == PSL_ERR_CODEC_OVERFLOW);
    CHECK(psl_ref_e8my_bits(0x7f7f8000u, 16, 1, &r) == PSL_OK && r == 0x7f7f0000u);
    CHECK(psl_ref_e8my_bits(0xff800001u, 16, 1, &r) == PSL_ERR_NONFINITE);
}

/* ------------------------------------------------------ generic ExMy */

/* Every codec: each (sampled or all) finite pattern decodes to the
 * reference value and encodes back to itself; midpoints between neighbours
 * go to the even pattern, the doubles just beside them to the nearest. */
TEST(exmy_roundtrip_and_midpoints)
{
    static psl_codec codecs[200];
    static uint32_t ks[1 << 16];
    const int ncodecs = all_codecs(codecs);
    long long bad = 0, ties = 0;
    CHECK(ncodecs == 5 * 24 + 23 + 22);
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const int e = c.exp_bits, m = c.man_bits, V = 1 + e + m;
        const uint64_t inf = inf_mag_of(c);
        const int nk = magnitude_sample(c, ks, (int)(sizeof ks / sizeof ks[0]));
        for (int i = 0; i < nk; i++) {
            const uint32_t k = ks[i];
            for (uint32_t sg = 0; sg < 2; sg++) {
                const uint32_t p = (sg << (V - 1)) | k;
                const double v = psl_codec_decode(c, p);
                uint32_t b = SENTINEL, b2 = SENTINEL;
                int ok = dbits(v) == dbits(psl_ref_decode(e, m, p)) &&
                         psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, v, &b) == PSL_OK &&
                         psl_codec_encode_raw(c, PSL_OVERFLOW_SATURATE, v, &b2) == PSL_OK &&
                         b == p && b2 == p;
                if (k + 1 < inf) { /* midpoint to the next finite value */
                    const double lo = psl_ref_mag_value(e, m, k);
                    const double hi = psl_ref_mag_value(e, m, k + 1);
                    const double mid = lo + (hi - lo) / 2;
                    const double sgn = sg ? -1.0 : 1.0;
                    const uint32_t even = (k & 1) ? k + 1 : k;
                    uint32_t bm = 0, bl = 0, bh = 0;
                    ok = ok && mid > lo && mid < hi &&
                         psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, sgn * mid, &bm) == PSL_OK &&
                         psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, sgn * nextafter(mid, 0.0),
                                              &bl) == PSL_OK &&
                         psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR,
                                              sgn * nextafter(mid, INFINITY), &bh) == PSL_OK &&
                         bm == ((sg << (V - 1)) | even) && bl == ((sg << (V - 1)) | k) &&
                         bh == ((sg << (V - 1)) | (k + 1));
                    ties++;
                }
                if (!ok && bad++ < 5)
                    CHECK_MSG(0, "e%dm%d pattern 0x%x (value %a): got 0x%x", e, m, p, v, b);
            }
        }
    }
    CHECK_MSG(bad == 0, "%lld failures", bad);
    CHECK(ties > 1000000);
}

/* Random doubles over each codec's whole range (from below the smallest
 * subnormal to past the largest finite) against the binary-search encoder. */
TEST(exmy_random_vs_search)
{
    static psl_codec codecs[200];
    const int ncodecs = all_codecs(codecs);
    unsigned long long seed = 99;
    long long bad = 0, n = 0;
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const int e = c.exp_bits, m = c.man_bits;
        const int bias = (1 << (e - 1)) - 1, lo_exp = 1 - bias - m - 3, hi_exp = bias + 2;
        for (int i = 0; i < 4000; i++) {
            const uint64_t r = psl_test_rand(&seed);
            double x = ldexp(1.0 + (double)(r >> 12) * 0x1p-52,
                             lo_exp + (int)(r % (uint64_t)(hi_exp - lo_exp + 1)));
            if (r >> 63)
                x = -x;
            for (int pol = 0; pol < 2; pol++) {
                uint32_t b = SENTINEL, ref = SENTINEL;
                psl_status st = psl_codec_encode_raw(c, (psl_overflow)pol, x, &b);
                psl_status rs = psl_ref_encode(e, m, pol, x, &ref);
                n++;
                if ((st != rs || b != ref) && bad++ < 5)
                    CHECK_MSG(0, "e%dm%d x=%a: status %d bits 0x%x, ref %d 0x%x", e, m, x, st,
                              b, rs, ref);
            }
        }
    }
    CHECK_MSG(bad == 0, "%lld of %lld", bad, n);
}

/* No double rounding: doubles just beside a tie that a float conversion
 * would turn into that exact tie must still go to the nearest value. */
TEST(exmy_no_double_rounding)
{
    static psl_codec codecs[200];
    static uint32_t ks[1 << 16];
    const int ncodecs = all_codecs(codecs);
    long long bad = 0, traps = 0, exact_float = 0;
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const int e = c.exp_bits, m = c.man_bits;
        const uint64_t inf = inf_mag_of(c);
        const int nk = magnitude_sample(c, ks, 4096);
        for (int i = 0; i < nk; i++) {
            const uint32_t k = ks[i];
            if (k + 1 >= inf)
                continue;
            const double lo = psl_ref_mag_value(e, m, k), hi = psl_ref_mag_value(e, m, k + 1);
            const double mid = lo + (hi - lo) / 2;
            const double off = (hi - lo) * 0x1p-26; /* x stays exact in double */
            for (int up = 0; up < 2; up++) {
                const double x = up ? mid + off : mid - off;
                const uint32_t want = up ? k + 1 : k;
                uint32_t b = SENTINEL, viaf = SENTINEL;
                if ((double)(float)x == mid) { /* a float path sees the tie */
                    psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, (double)(float)x, &viaf);
                    if (viaf != want)
                        traps++; /* a double-rounding codec fails here */
                }
                /* a value exactly representable in float encodes the same
                 * from the double and from the float */
                if ((double)(float)lo == lo) {
                    uint32_t bf = SENTINEL;
                    psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, (double)(float)lo, &bf);
                    exact_float += bf == k;
                }
                if ((x == mid || psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, x, &b) != PSL_OK || b != want) &&
                    bad++ < 5)
                    CHECK_MSG(0, "e%dm%d x=%a: bits 0x%x, want 0x%x", e, m, x, b, want);
            }
        }
    }
    /* hand-made: 1 + 2^-11 + 2^-40 is 1 + 2^-11 in float (an FP16 tie, which
     * goes to 1.0), but in truth it is above the tie: 1 + 2^-10 */
    const double x = 1.0 + 0x1p-11 + 0x1p-40;
    uint32_t b = 0;
    CHECK((double)(float)x == 1.0 + 0x1p-11);
    CHECK_OK(enc(PSL_CODEC_FP16, PSL_OVERFLOW_ERROR, x, &b));
    CHECK(b == 0x3c01);
    CHECK_OK(enc(PSL_CODEC_FP16, PSL_OVERFLOW_ERROR, (double)(float)x, &b));
    CHECK(b == 0x3c00);
    CHECK_MSG(bad == 0, "%lld failures", bad);
    CHECK_MSG(traps > 10000, "only %lld double-rounding traps built", traps);
    CHECK(exact_float > 10000);
}

/* Overflow at the boundary: the midpoint between the largest finite value
 * and 2^(emax+1) goes to the even pattern (overflow when m >= 1, the largest
 * finite when m = 0); saturation gives +-max; bits untouched on error. */
TEST(exmy_overflow_boundary)
{
    static psl_codec codecs[200];
    const int ncodecs = all_codecs(codecs);
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const int e = c.exp_bits, m = c.man_bits, V = 1 + e + m;
        const uint32_t maxp = (uint32_t)inf_mag_of(c) - 1u;
        const double max = psl_ref_mag_value(e, m, maxp);
        const double next = psl_ref_mag_value(e, m, maxp + 1u); /* 2^(emax+1) */
        const double mid = max + (next - max) / 2;
        CHECK(next == ldexp(1.0, 1 << (e - 1)) && dbits(psl_codec_decode(c, maxp)) == dbits(max));
        for (uint32_t sg = 0; sg < 2; sg++) {
            const double s = sg ? -1.0 : 1.0;
            const uint32_t smax = (sg << (V - 1)) | maxp;
            uint32_t b;
            CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, s * max, &b));
            CHECK(b == smax);
            CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, s * nextafter(mid, 0.0), &b));
            CHECK(b == smax);
            if (m >= 1) {
                CHECK_ST(enc(c, PSL_OVERFLOW_ERROR, s * mid, &b), PSL_ERR_CODEC_OVERFLOW);
                CHECK(b == SENTINEL);
            } else {
                CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, s * mid, &b));
                CHECK(b == smax); /* max pattern (2^e-2) is even */
            }
            const double over[] = {nextafter(mid, INFINITY), next, 2 * next, DBL_MAX};
            for (int i = 0; i < 4; i++) {
                CHECK_ST(enc(c, PSL_OVERFLOW_ERROR, s * over[i], &b), PSL_ERR_CODEC_OVERFLOW);
                CHECK(b == SENTINEL);
                CHECK_OK(enc(c, PSL_OVERFLOW_SATURATE, s * over[i], &b));
                CHECK(b == smax);
            }
            CHECK_OK(enc(c, PSL_OVERFLOW_SATURATE, s * mid, &b));
            CHECK(b == smax);
        }
    }
    uint32_t b;
    CHECK_ST(enc(PSL_CODEC_FP16, PSL_OVERFLOW_ERROR, -70000.0, &b), PSL_ERR_CODEC_OVERFLOW);
    CHECK(strstr(psl_last_error_message(), "-70000") &&
          strstr(psl_last_error_message(), "e5m10"));
}

/* Underflow: below half the smallest subnormal gives +-0 (sign kept), half
 * of it is a tie that goes to 0, just above goes to the smallest subnormal. */
TEST(exmy_underflow)
{
    static psl_codec codecs[200];
    const int ncodecs = all_codecs(codecs);
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const int e = c.exp_bits, m = c.man_bits, V = 1 + e + m;
        const int bias = (1 << (e - 1)) - 1;
        const double tiny = ldexp(1.0, 1 - bias - m); /* smallest subnormal */
        CHECK(psl_codec_decode(c, 1) == tiny);
        for (uint32_t sg = 0; sg < 2; sg++) {
            const double s = sg ? -1.0 : 1.0;
            const uint32_t zero = sg << (V - 1);
            const double to_zero[] = {0.0, 0x1p-1074, 1e-300, tiny / 4, tiny / 2,
                                      nextafter(tiny / 2, 0.0)};
            for (int i = 0; i < 6; i++)
                for (int pol = 0; pol < 2; pol++) {
                    uint32_t b;
                    CHECK_OK(enc(c, (psl_overflow)pol, s * to_zero[i], &b));
                    CHECK_MSG(b == zero, "e%dm%d %a -> 0x%x", e, m, s * to_zero[i], b);
                    CHECK(dbits(psl_codec_decode(c, b)) == dbits(s * 0.0));
                }
            uint32_t b;
            CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, s * nextafter(tiny / 2, 1.0), &b));
            CHECK(b == (zero | 1u));
            CHECK_OK(enc(c, PSL_OVERFLOW_ERROR, s * tiny * 1.5, &b));
            CHECK(b == (zero | 2u)); /* tie between patterns 1 and 2 -> 2 (even) */
        }
    }
}

/* NaN and Inf: PSL_ERR_NONFINITE under both policies, bits untouched; bad
 * arguments. */
TEST(exmy_nonfinite_and_arguments)
{
    const double bad[] = {NAN, -NAN, INFINITY, -INFINITY,
                          psl_ref_bits_to_double(UINT64_C(0x7ff0000000000001)), /* sNaN */
                          psl_ref_bits_to_double(UINT64_C(0xfff0000000000001))};
    static psl_codec codecs[200];
    const int ncodecs = all_codecs(codecs);
    for (int ci = 0; ci < ncodecs; ci++)
        for (int i = 0; i < 6; i++)
            for (int pol = 0; pol < 2; pol++) {
                uint32_t b;
                CHECK_ST(enc(codecs[ci], (psl_overflow)pol, bad[i], &b), PSL_ERR_NONFINITE);
                CHECK(b == SENTINEL);
            }
    uint32_t b;
    CHECK_ST(enc(PSL_CODEC_BF16, PSL_OVERFLOW_ERROR, INFINITY, &b), PSL_ERR_NONFINITE);
    CHECK(strstr(psl_last_error_message(), "inf") != NULL);
    CHECK_ST(psl_codec_encode(PSL_CODEC_FP16, PSL_OVERFLOW_ERROR, 1.0, NULL), PSL_ERR_NULL_POINTER);
    const psl_codec invalid[] = {{1, 3}, {9, 3}, {8, 22}, {2, 24}, {5, -1}, {0, 0}, {-5, 10}};
    for (int i = 0; i < 7; i++) {
        CHECK_ST(enc(invalid[i], PSL_OVERFLOW_ERROR, 1.0, &b), PSL_ERR_INVALID_VALUE);
        CHECK(b == SENTINEL);
        CHECK_ST(psl_codec_check(invalid[i]), PSL_ERR_INVALID_VALUE);
        CHECK(isnan(psl_codec_decode(invalid[i], 0)));
    }
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const uint32_t infp = (uint32_t)inf_mag_of(c), sgn = 1u << (c.exp_bits + c.man_bits);
        CHECK_OK(psl_codec_check(c));
        CHECK(psl_codec_delta_bits(c) == 30 - c.exp_bits - c.man_bits &&
              psl_codec_delta_bits(c) >= 1);
        CHECK(psl_codec_decode(c, infp) == INFINITY && psl_codec_decode(c, sgn | infp) == -INFINITY);
        if (c.man_bits > 0)
            CHECK(isnan(psl_codec_decode(c, infp + 1)) && isnan(psl_codec_decode(c, sgn | (infp + 1))));
    }
}

/* ------------------------------------------------------ half.h */

/* float -> FP16 / BF16 over a strided sweep of all 2^32 floats against the
 * codec (overflow -> Inf, NaN stays NaN); FP16/BF16 -> float over all 2^16
 * patterns against psl_codec_decode. */
TEST(half_h_conversions)
{
    const long long stride = stride_from_env();
    const long long n = ((1LL << 32) + stride - 1) / stride;
    long long bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
    for (long long i = 0; i < n; i++) {
        const uint32_t u = (uint32_t)(i * stride);
        const float f = psl_bits_to_float(u);
        for (int k = 0; k < 2; k++) {
            const uint32_t got = k ? psl_float_to_bf16(f) : psl_float_to_half(f);
            uint32_t want = 0;
            if (psl_ref_float_to_16(f, k, &want) ? got != want : !psl_ref_is_nan16(got, k, u))
                bad++;
        }
    }
    CHECK_MSG(bad == 0, "%lld float -> fp16/bf16 mismatches (run exhaustive_e8my --half)", bad);
    /* the boundaries by hand */
    CHECK(psl_float_to_half(65504.0f) == 0x7bff && psl_float_to_half(65519.996f) == 0x7bff);
    CHECK(psl_float_to_half(65520.0f) == 0x7c00 && psl_float_to_half(-INFINITY) == 0xfc00);
    CHECK(psl_float_to_half(0x1p-25f) == 0 && psl_float_to_half(-0x1.000002p-25f) == 0x8001);
    CHECK(psl_float_to_bf16(psl_bits_to_float(0x7f800001u)) != 0x7f80); /* sNaN stays NaN */
    CHECK(psl_float_to_bf16(psl_bits_to_float(0x7f7fffffu)) == 0x7f80);  /* -> Inf */
    CHECK((psl_float_to_half(psl_bits_to_float(0xff800001u)) & 0xfc00u) == 0xfc00u &&
          (psl_float_to_half(psl_bits_to_float(0xff800001u)) & 0x3ffu) != 0);
    long long bad16 = 0;
    for (uint32_t h = 0; h < 65536; h++)
        for (int k = 0; k < 2; k++) {
            const psl_codec c = k ? PSL_CODEC_BF16 : PSL_CODEC_FP16;
            const float got = k ? psl_bf16_to_float((uint16_t)h) : psl_half_to_float((uint16_t)h);
            const double want = psl_codec_decode(c, h);
            int ok = isnan(want) ? isnan(got) && (signbit(got) != 0) == ((h >> 15) != 0)
                                 : dbits((double)got) == dbits(want);
            /* the round trip back is the identity (NaN: stays NaN) */
            const uint32_t back = k ? psl_float_to_bf16(got) : psl_float_to_half(got);
            ok = ok && (isnan(want) ? psl_ref_is_nan16(back, k, psl_float_to_bits(got)) : back == h);
            if (!ok && bad16++ < 5)
                CHECK_MSG(0, "%s pattern 0x%04x: got %a want %a", k ? "bf16" : "fp16", h,
                          (double)got, want);
        }
    CHECK(bad16 == 0);
}

/* half.h's FP16 -> float stays exact with the x86 flush-to-zero and
 * denormals-are-zero modes on (an application may set them). */
TEST(half_h_under_ftz_daz)
{
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
    const unsigned int saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u); /* FTZ (bit 15) and DAZ (bit 6) */
    volatile float probe = 0x1p-140f;
    const int daz_active = probe * 0x1p100f == 0.0f; /* input read as 0 */
    long long bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const float got = psl_half_to_float((uint16_t)h);
        const double want = psl_codec_decode(PSL_CODEC_FP16, h);
        if (!isnan(want) && dbits((double)got) != dbits(want))
            bad++;
    }
    _mm_setcsr(saved);
    CHECK(daz_active); /* the mode really was on */
    CHECK_MSG(bad == 0, "%lld FP16 patterns decode wrongly under FTZ/DAZ", bad);
#else
    printf("  skipped: not x86 SSE\n");
#endif
}

/* ------------------------------------------------------ word.h */

/* psl_decode_inplace on the value bits of a packed word equals
 * psl_codec_decode for every codec and (sampled) finite pattern; the delta
 * and flag come back unchanged. */
TEST(decode_inplace_all_codecs)
{
    static psl_codec codecs[200];
    static uint32_t ks[1 << 16];
    const int ncodecs = all_codecs(codecs);
    unsigned long long seed = 7;
    long long bad = 0, n = 0;
    for (int ci = 0; ci < ncodecs; ci++) {
        const psl_codec c = codecs[ci];
        const int e = c.exp_bits, m = c.man_bits, V = 1 + e + m, D = 30 - e - m;
        const float scale = psl_codec_decode_scale(e);
        const int nk = magnitude_sample(c, ks, (int)(sizeof ks / sizeof ks[0]));
        for (int i = 0; i < nk; i++)
            for (uint32_t sg = 0; sg < 2; sg++) {
                const uint32_t p = (sg << (V - 1)) | ks[i];
                const uint32_t delta = (uint32_t)(psl_test_rand(&seed) & ((1u << D) - 1u));
                const uint32_t w = psl_word_entry(p, delta, D);
                const uint32_t vb = psl_word_value_bits(w, D);
                const float f = psl_decode_inplace(vb, e, scale);
                n++;
                int ok = psl_word_flag(w) == 1 && psl_word_delta(w, D) == delta &&
                         vb == p << (D + 1) &&
                         dbits((double)f) == dbits(psl_codec_decode(c, p));
                if (e == 8)
                    ok = ok && psl_float_to_bits(f) == vb; /* a mask only */
                if (!ok && bad++ < 5)
                    CHECK_MSG(0, "e%dm%d pattern 0x%x delta %u: inplace %a, decode %a", e, m, p,
                              delta, (double)f, psl_codec_decode(c, p));
            }
        /* e = 8: Inf and NaN patterns stay Inf and NaN in place */
        if (e == 8) {
            const uint32_t infp = (uint32_t)inf_mag_of(c);
            CHECK(psl_decode_inplace(infp << (D + 1), 8, scale) == INFINITY);
            if (m > 0)
                CHECK(isnan(psl_decode_inplace((infp | 1u) << (D + 1), 8, scale)));
        }
    }
    CHECK_MSG(bad == 0, "%lld of %lld", bad, n);
    /* dummy / padding words decode to +0 value bits */
    CHECK(psl_word_value_bits(psl_word_dummy(12345), 15) == 0 &&
          psl_word_delta(psl_word_dummy(12345), 15) == 12345);
}

/* ------------------------------------------------------ names */

TEST(parse_and_names)
{
    static psl_codec codecs[200];
    const int ncodecs = all_codecs(codecs);
    char name[16], upper[16];
    for (int ci = 0; ci < ncodecs; ci++) {
        psl_codec c = {-1, -1}, d = {-1, -1};
        CHECK_OK(psl_codec_name(codecs[ci], name, sizeof name));
        CHECK_OK(psl_codec_parse(name, &c));
        CHECK(c.exp_bits == codecs[ci].exp_bits && c.man_bits == codecs[ci].man_bits);
        for (size_t i = 0; i <= strlen(name); i++)
            upper[i] = (char)toupper((unsigned char)name[i]);
        CHECK_OK(psl_codec_parse(upper, &d));
        CHECK(d.exp_bits == c.exp_bits && d.man_bits == c.man_bits);
        /* the generic spelling parses to the same codec */
        snprintf(upper, sizeof upper, "e%dm%d", (int)c.exp_bits, (int)c.man_bits);
        CHECK_OK(psl_codec_parse(upper, &d));
        CHECK(d.exp_bits == c.exp_bits && d.man_bits == c.man_bits);
        /* exactly enough room, and one byte less */
        const size_t need = strlen(name) + 1;
        char small[16];
        memset(small, 'x', sizeof small);
        CHECK_OK(psl_codec_name(c, small, need));
        CHECK(strcmp(small, name) == 0);
        memset(small, 'x', sizeof small);
        CHECK_ST(psl_codec_name(c, small, need - 1), PSL_ERR_INVALID_VALUE);
        CHECK(small[0] == 'x'); /* untouched on failure */
    }
    psl_codec c;
    CHECK_OK(psl_codec_parse("E8M10", &c));
    CHECK(c.exp_bits == 8 && c.man_bits == 10 && psl_codec_delta_bits(c) == 12);
    CHECK_OK(psl_codec_name(c, name, sizeof name));
    CHECK(strcmp(name, "e8m10") == 0);
    CHECK_OK(psl_codec_parse("e5m10", &c));
    CHECK_OK(psl_codec_name(c, name, sizeof name));
    CHECK(strcmp(name, "fp16") == 0);
    CHECK_OK(psl_codec_parse("Half", &c));
    CHECK(c.exp_bits == 5 && c.man_bits == 10);
    CHECK_OK(psl_codec_parse("BF16", &c));
    CHECK(c.exp_bits == 8 && c.man_bits == 7);
    CHECK_OK(psl_codec_parse("e08m07", &c));
    CHECK(c.exp_bits == 8 && c.man_bits == 7);

    const char *badnames[] = {"", "e", "e8", "e8m", "m8", "8m10", "e8m10x", "e8m10 ", " e8m10",
                              "e 8m10", "e8m 10", "e+8m10", "e8m+10", "e-8m10", "e8m-1",
                              "e008m10", "e99999999999999999999m1", "e8m99999999999", "fp32",
                              "fp16x", "bf", "e9m3", "e1m3", "e0m0", "e8m22", "e2m24", "e7m23",
                              "e5m30", "e8m10e8m10e8m10e8m10e8m10e8m10e8m10"};
    for (size_t i = 0; i < sizeof badnames / sizeof badnames[0]; i++) {
        psl_codec out = {77, 77};
        CHECK_ST(psl_codec_parse(badnames[i], &out), PSL_ERR_INVALID_VALUE);
        CHECK(out.exp_bits == 77 && out.man_bits == 77);
        if (strlen(badnames[i]) > 0 && strlen(badnames[i]) < 20)
            CHECK_MSG(strstr(psl_last_error_message(), badnames[i]) != NULL,
                      "message '%s' does not name '%s'", psl_last_error_message(), badnames[i]);
    }
    CHECK_ST(psl_codec_parse(NULL, &c), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_codec_parse("fp16", NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_codec_name(c, NULL, 16), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_codec_name((psl_codec){9, 3}, name, sizeof name), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_codec_name(c, name, 0), PSL_ERR_INVALID_VALUE);
}

static const psl_test_case tests[] = {
    {"known_values", known_values},
    {"fp16_vs_float16", fp16_vs_float16},
    {"fp16_decode_all", fp16_decode_all},
    {"e8my_vs_bit_method_sampled", e8my_vs_bit_method_sampled},
    {"bf16_vs_bit_method", bf16_vs_bit_method},
    {"exmy_roundtrip_and_midpoints", exmy_roundtrip_and_midpoints},
    {"exmy_random_vs_search", exmy_random_vs_search},
    {"exmy_no_double_rounding", exmy_no_double_rounding},
    {"exmy_overflow_boundary", exmy_overflow_boundary},
    {"exmy_underflow", exmy_underflow},
    {"exmy_nonfinite_and_arguments", exmy_nonfinite_and_arguments},
    {"half_h_conversions", half_h_conversions},
    {"half_h_under_ftz_daz", half_h_under_ftz_daz},
    {"decode_inplace_all_codecs", decode_inplace_all_codecs},
    {"parse_and_names", parse_and_names},
};
PSL_TEST_MAIN(tests)
