/*
 * exhaustive_e8my.c -- exhaustive check of the E8MY codec (and of the
 * FP16/BF16 conversions of half.h) over all 2^32 FP32 inputs.
 *
 *   exhaustive_e8my [--y Y | --all] [--stride S] [--both] [--half]
 *
 * For every float bit pattern u (every S-th with --stride, plus a fixed set
 * of edge patterns around every rounding boundary), the library's
 * psl_codec_encode_raw of (double)float(u) to codec {8, Y} must agree with
 * the FP32 bit method of ALGORITHMS.md section 3 (tests/codec_ref.h): same
 * status (NaN/Inf -> PSL_ERR_NONFINITE, overflow -> PSL_ERR_CODEC_OVERFLOW)
 * and, when finite, the codec's V-bit pattern shifted left by D+1 = 23-Y
 * must be the bit method's FP32 word. Overflowing inputs are also checked
 * under PSL_OVERFLOW_SATURATE (every input with --both). Each result is also
 * decoded back by psl_codec_decode and psl_decode_inplace (word.h).
 *
 * --half instead checks psl_float_to_half / psl_float_to_bf16 against
 * psl_codec_encode_raw with e5m10 / e8m7 (overflow -> Inf, NaN -> NaN).
 *
 * Prints checked counts, mismatches (the first few with bits) and seconds;
 * exits 1 on any mismatch. OpenMP parallel. See tests/README-codec.md.
 */
#include "packsell.h"
#include "codec/codec.h"
#include "codec/half.h"
#include "codec_ref.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHOWN 8

typedef struct {
    uint32_t u;          /* input float bits */
    int policy;          /* overflow policy used */
    int st_lib, st_ref;  /* statuses */
    uint32_t lib, ref;   /* library result (as FP32 word / 16-bit value), reference */
    const char *what;    /* which comparison failed */
} mismatch;

typedef struct {
    long long checked, mismatches;
    int nshown;
    mismatch shown[MAX_SHOWN];
} tally;

/* Keep the MAX_SHOWN mismatches of smallest input (deterministic output). */
static void record(tally *t, mismatch mm)
{
    t->mismatches++;
    int i;
    if (t->nshown < MAX_SHOWN) {
        i = t->nshown++;
    } else {
        i = MAX_SHOWN - 1;
        if (t->shown[i].u <= mm.u)
            return;
    }
    t->shown[i] = mm;
    for (; i > 0 && t->shown[i - 1].u > t->shown[i].u; i--) {
        mismatch tmp = t->shown[i - 1];
        t->shown[i - 1] = t->shown[i];
        t->shown[i] = tmp;
    }
}

static void merge(tally *into, const tally *from)
{
    into->checked += from->checked;
    long long extra = from->mismatches - from->nshown;
    for (int i = 0; i < from->nshown; i++)
        record(into, from->shown[i]);
    into->mismatches += extra;
}

/* Check one input of E8MY (s = 23 - Y) under one policy. */
static void check_e8my_one(tally *t, uint32_t u, int Y, int policy)
{
    const psl_codec c = {8, Y};
    const int s = 23 - Y;
    const float f = psl_bits_to_float(u);
    uint32_t b = 0, ref = 0;
    psl_status st = psl_codec_encode_raw(c, (psl_overflow)policy, (double)f, &b);
    psl_status rs = psl_ref_e8my_bits(u, s, policy == PSL_OVERFLOW_SATURATE, &ref);
    t->checked++;
    const uint32_t word = st == PSL_OK ? b << s : 0;
    if (st != rs || (st == PSL_OK && (b >> (9 + Y) != 0 || word != ref))) {
        record(t, (mismatch){u, policy, st, rs, word, ref, "encode"});
        return;
    }
    if (st != PSL_OK)
        return;
    /* decode back: exact value of the word, by both decoders */
    const double back = (double)psl_bits_to_float(ref);
    if (psl_ref_double_to_bits(psl_codec_decode(c, b)) != psl_ref_double_to_bits(back))
        record(t, (mismatch){u, policy, st, rs, word, ref, "psl_codec_decode"});
    const float inpl = psl_decode_inplace(word, 8, psl_codec_decode_scale(8));
    if (psl_float_to_bits(inpl) != ref)
        record(t, (mismatch){u, policy, st, rs, psl_float_to_bits(inpl), ref,
                             "psl_decode_inplace"});
}

static void check_e8my(tally *t, uint32_t u, int Y, int both)
{
    const psl_codec c = {8, Y};
    uint32_t b;
    check_e8my_one(t, u, Y, PSL_OVERFLOW_ERROR);
    if (both || psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, (double)psl_bits_to_float(u), &b) ==
                    PSL_ERR_CODEC_OVERFLOW)
        check_e8my_one(t, u, Y, PSL_OVERFLOW_SATURATE);
}

/* half.h float -> FP16 / BF16 against the codec (policy error: overflow -> Inf). */
static void check_half(tally *t, uint32_t u)
{
    const float f = psl_bits_to_float(u);
    for (int k = 0; k < 2; k++) {
        const uint32_t got = k == 0 ? psl_float_to_half(f) : psl_float_to_bf16(f);
        uint32_t want = 0;
        t->checked++;
        if (psl_ref_float_to_16(f, k, &want) ? got != want : !psl_ref_is_nan16(got, k, u))
            record(t, (mismatch){u, 0, 0, 0, got, want, k ? "float_to_bf16" : "float_to_half"});
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Edge inputs for s = 23-Y: every sign and exponent field, mantissas whose
 * low s bits sit at / around the tie and whose upper bits are small or
 * nearly all ones (carries into the next binade, overflow, subnormals). */
static int edge_inputs(int s, uint32_t *out)
{
    const uint32_t lowmask = (1u << s) - 1u, half = 1u << (s - 1);
    const uint32_t lows[6] = {0u, 1u, half - 1u, half, half + 1u, lowmask};
    const uint32_t hmax = (0x7fffffu >> s);
    const uint32_t highs[4] = {0u, 1u & hmax, hmax ? hmax - 1u : 0u, hmax};
    int n = 0;
    for (uint32_t sign = 0; sign < 2; sign++)
        for (uint32_t ef = 0; ef < 256; ef++)
            for (int h = 0; h < 4; h++)
                for (int l = 0; l < 6; l++)
                    out[n++] = (sign << 31) | (ef << 23) | (highs[h] << s) | (lows[l] & lowmask);
    qsort(out, (size_t)n, sizeof *out, cmp_u32);
    int k = 0; /* drop duplicates (narrow fields repeat patterns) */
    for (int i = 0; i < n; i++)
        if (k == 0 || out[k - 1] != out[i])
            out[k++] = out[i];
    return k;
}

static void print_mismatches(const tally *t, int half_mode)
{
    for (int i = 0; i < t->nshown; i++) {
        const mismatch *m = &t->shown[i];
        if (half_mode)
            printf("    %s: input 0x%08x (%.9g): got 0x%04x, want 0x%04x\n", m->what, m->u,
                   (double)psl_bits_to_float(m->u), m->lib, m->ref);
        else
            printf("    %s: input 0x%08x (%.9g) policy %s: lib status %d word 0x%08x, "
                   "ref status %d word 0x%08x\n",
                   m->what, m->u, (double)psl_bits_to_float(m->u),
                   m->policy ? "saturate" : "error", m->st_lib, m->lib, m->st_ref, m->ref);
    }
}

/* Run one pass (Y >= 0: E8MY; Y < 0: half.h) and print its line. */
static long long run_pass(int Y, long long stride, int both)
{
    const long long n = ((1LL << 32) + stride - 1) / stride;
    static uint32_t edges[2 * 2 * 256 * 4 * 6];
    int nedges = edge_inputs(Y >= 0 ? 23 - Y : 13, edges);
    if (Y < 0)
        nedges += edge_inputs(16, edges + nedges); /* BF16 ties */
    tally total = {0};
    double t0 = omp_get_wtime();
#pragma omp parallel
    {
        tally mine = {0};
#pragma omp for schedule(static) nowait
        for (long long k = 0; k < n + nedges; k++) {
            const uint32_t u = k < n ? (uint32_t)(k * stride) : edges[k - n];
            if (Y >= 0)
                check_e8my(&mine, u, Y, both);
            else
                check_half(&mine, u);
        }
#pragma omp critical
        merge(&total, &mine);
    }
    double secs = omp_get_wtime() - t0;
    if (Y >= 0)
        printf("e8m%-2d (D=%2d): %lld inputs (stride %lld + %d edges), %lld checks, "
               "%lld mismatches, %.2f s\n",
               Y, 22 - Y, n, stride, nedges, total.checked, total.mismatches, secs);
    else
        printf("half.h float->fp16/bf16: %lld inputs (stride %lld + %d edges), %lld checks, "
               "%lld mismatches, %.2f s\n",
               n, stride, nedges, total.checked, total.mismatches, secs);
    print_mismatches(&total, Y < 0);
    fflush(stdout);
    return total.mismatches;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: exhaustive_e8my [--y Y | --all] [--stride S] [--both] [--half]\n"
            "  --y Y       check codec e8mY, 0 <= Y <= 21 (default 7)\n"
            "  --all       check every Y in 0..21\n"
            "  --stride S  check every S-th FP32 pattern (default 1: all 2^32)\n"
            "  --both      check the saturating policy on every input too\n"
            "  --half      check half.h float->fp16/bf16 instead of E8MY\n");
}

int main(int argc, char **argv)
{
    int ylo = 7, yhi = 7, both = 0, half_mode = 0;
    long long stride = 1;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--all") == 0) {
            ylo = 0;
            yhi = 21;
        } else if (strcmp(argv[i], "--both") == 0) {
            both = 1;
        } else if (strcmp(argv[i], "--half") == 0) {
            half_mode = 1;
        } else if (strcmp(argv[i], "--y") == 0 && i + 1 < argc) {
            long y = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || y < 0 || y > 21) {
                fprintf(stderr, "exhaustive_e8my: --y needs 0..21, got '%s'\n", argv[i]);
                return 2;
            }
            ylo = yhi = (int)y;
        } else if (strcmp(argv[i], "--stride") == 0 && i + 1 < argc) {
            stride = strtoll(argv[++i], &end, 10);
            if (*end || end == argv[i] || stride < 1 || stride > (1LL << 32)) {
                fprintf(stderr, "exhaustive_e8my: --stride needs 1..2^32, got '%s'\n",
                        argv[i]);
                return 2;
            }
        } else {
            usage();
            return 2;
        }
    }
    printf("exhaustive_e8my: %d threads\n", omp_get_max_threads());
    double t0 = omp_get_wtime();
    long long bad = 0;
    if (half_mode)
        bad += run_pass(-1, stride, both);
    else
        for (int y = ylo; y <= yhi; y++)
            bad += run_pass(y, stride, both);
    printf("total: %lld mismatches, %.2f s\n", bad, omp_get_wtime() - t0);
    return bad ? 1 : 0;
}
