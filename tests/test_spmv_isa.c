/*
 * test_spmv_isa.c -- the SIMD variants of the OpenMP SELL/PackSELL kernels
 * (AVX2, AVX-512, chosen at run time) against the reference kernel, bit for
 * bit, on every instruction set this CPU has (the option PSL_CPU_ISA caps
 * the choice):
 * slice heights that leave partial SIMD groups and scalar leftover lanes,
 * one- and two-column matrices (the FP16 gather's last-column path),
 * scattered columns (dummy words), stencil-like rows whose columns run
 * consecutively across lanes (the contiguous x loads, up to the first and
 * the last column), both permutation modes, every vector
 * type, and x with subnormal, infinite and NaN entries; and the table of
 * blocks with consecutive columns at every position (psl_cpu_slice_runs)
 * against its definition.
 */
#include "spmv_fixture.h"
#include "kernels/cpu/cpu_common.h"

#include <math.h>
#include <omp.h>

static const struct {
    psl_format f;
    psl_scalar vt;
    psl_codec codec;
} kinds[] = {
    {PSL_FORMAT_SELL, PSL_FP64, {5, 10}},     {PSL_FORMAT_SELL, PSL_FP32, {5, 10}},
    {PSL_FORMAT_SELL, PSL_FP16, {5, 10}},     {PSL_FORMAT_SELL, PSL_BF16, {5, 10}},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {5, 10}}, {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 21}},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 10}}, {PSL_FORMAT_PACKSELL, PSL_FP64, {4, 3}},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {7, 12}}, {PSL_FORMAT_PACKSELL, PSL_FP64, {5, 9}},
    {PSL_FORMAT_PACKSELL, PSL_FP64, {8, 7}},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

static const psl_scalar vec_types[] = {PSL_FP64, PSL_FP32, PSL_FP16};
static const char *isa_names[] = {"generic", "avx2", "avx512"};

/* y = alpha*A*x + beta*y0 by "omp" (under the current PSL_CPU_ISA) and by
 * "ref"; 1 when the bits agree. */
static int same_as_ref(const psl_matrix *A, const tvec *x, double alpha, const tvec *y0,
                       double beta)
{
    size_t bytes = (size_t)(y0->n ? y0->n : 1) * psl_scalar_size(y0->t);
    void *yo = malloc(bytes), *yr = malloc(bytes);
    memcpy(yo, y0->p, bytes);
    memcpy(yr, y0->p, bytes);
    CHECK_OK(psl_spmv_named("omp", alpha, A, x->p, beta, yo, x->t));
    CHECK_OK(psl_spmv_named("ref", alpha, A, x->p, beta, yr, x->t));
    int same = tvec_same_bits(yo, yr, y0->t, y0->n);
    free(yo);
    free(yr);
    return same;
}

TEST(isa_option_caps_the_choice)
{
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    psl_isa best = psl_cpu_isa();
    CHECK_OK(psl_option_set("PSL_CPU_ISA", "generic"));
    CHECK(psl_cpu_isa() == PSL_ISA_GENERIC);
    CHECK_OK(psl_option_set("PSL_CPU_ISA", "avx2"));
    CHECK(psl_cpu_isa() == (best < PSL_ISA_AVX2 ? best : PSL_ISA_AVX2));
    CHECK_OK(psl_option_set("PSL_CPU_ISA", "avx512"));
    CHECK(psl_cpu_isa() == best);
    CHECK_OK(psl_option_set("PSL_CPU_ISA", "auto"));
    CHECK(psl_cpu_isa() == best);
    CHECK_OK(psl_option_set("PSL_CPU_ISA", "generic"));
    CHECK_ST(psl_option_set("PSL_CPU_ISA", "bogus"), PSL_ERR_INVALID_VALUE);
    CHECK(psl_cpu_isa() == PSL_ISA_GENERIC); /* the rejected value changed nothing */
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    CHECK(psl_cpu_isa() == best);
    CHECK(strcmp(psl_cpu_isa_name(PSL_ISA_AVX512), "avx512") == 0);
    printf("  this CPU: %s\n", psl_cpu_isa_name(best));
}

static const struct {
    int32_t nrows, ncols;
    int k, kind;
} shapes[] = {
    {333, 333, 6, 0}, {130, 1, 1, 0}, {97, 2, 2, 0}, {150, 3, 2, 1},
    {200, 5000, 8, 3}, {257, 257, 4, 4}, {64, 64, 40, 2}, {301, 301, 7, 5},
    {700, 700, 27, 5}, {90, 40, 5, 5},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

TEST(simd_equals_ref_battery)
{
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    psl_isa best = psl_cpu_isa();
    const int32_t Cs[] = {8, 16, 24, 32, 40, 64};
    const double ab[][2] = {{1.0, 0.0}, {-0.75, 0.5}, {2.0, 1.0}};
    int run = 0, bad = 0;
    for (int isa = 0; isa <= (int)best; isa++) {
        CHECK_OK(psl_option_set("PSL_CPU_ISA", isa_names[isa]));
        for (int s = 0; s < NSHAPES; s++) {
            tcsr m = tcsr_random(shapes[s].nrows, shapes[s].ncols, shapes[s].k,
                                 shapes[s].kind, 300 + (unsigned)s);
            for (int k = 0; k < NKINDS; k++)
                for (int ci = 0; ci < 6; ci++) {
                    int32_t C = Cs[ci];
                    int32_t sigma = (run % 3 == 0) ? 0 : (run % 3 == 1) ? C : 4 * C;
                    psl_permute pm = (psl_permute)(run % 2);
                    psl_matrix *A = fx_sliced(&m, kinds[k].f, kinds[k].vt, kinds[k].codec,
                                              C, sigma, pm);
                    CHECK(A != NULL);
                    for (int vi = 0; A && vi < 3; vi++) {
                        tvec x = tvec_random(vec_types[vi], m.ncols, 11 + (unsigned)run);
                        tvec y0 = tvec_random(vec_types[vi], m.nrows, 13 + (unsigned)run);
                        const double *c = ab[run % 3];
                        if (!same_as_ref(A, &x, c[0], &y0, c[1])) {
                            if (bad++ < 5)
                                CHECK_MSG(0, "%s: shape %d kind %d C=%d sigma=%d perm=%d "
                                          "vec=%d", isa_names[isa], s, k, (int)C, (int)sigma,
                                          (int)pm, vi);
                        }
                        run++;
                        tvec_free(&x);
                        tvec_free(&y0);
                    }
                    psl_matrix_destroy(&A);
                }
            tcsr_free(&m);
        }
    }
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    CHECK(bad == 0);
    CHECK(run > 1000);
}

TEST(special_x_values_same_bits)
{
    /* x cycles through subnormal, huge, infinite and NaN values (FP16
     * subnormals and NaNs go through the hardware conversion, which quiets a
     * signalling NaN; the product quiets it in the reference too): the SIMD
     * kernels must
     * propagate them exactly as the reference does. */
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    psl_isa best = psl_cpu_isa();
    tcsr m = tcsr_random(100, 90, 5, 0, 77);
    const double special[] = {0x1p-20, -0x1p-24, 60000.0, INFINITY, -INFINITY, NAN, 1.0};
    int bad = 0;
    for (int isa = 0; isa <= (int)best; isa++) {
        CHECK_OK(psl_option_set("PSL_CPU_ISA", isa_names[isa]));
        for (int k = 0; k < NKINDS; k++) {
            psl_matrix *A = fx_sliced(&m, kinds[k].f, kinds[k].vt, kinds[k].codec, 32, 64,
                                      PSL_PERMUTE_IMPLICIT);
            for (int vi = 0; A && vi < 3; vi++) {
                tvec x = tvec_random(vec_types[vi], m.ncols, 5);
                tvec y0 = tvec_random(vec_types[vi], m.nrows, 6);
                for (int32_t c = 0; c < m.ncols; c += 3)
                    tvec_set(&x, c, special[(c / 3) % 7]);
                if (!same_as_ref(A, &x, 1.0, &y0, 0.5) && bad++ < 5)
                    CHECK_MSG(0, "%s: kind %d vec %d", isa_names[isa], k, vi);
                if (vec_types[vi] == PSL_FP16) {
                    /* signalling NaNs, alone (one payload: which of two NaNs
                     * an addition returns is the compiler's choice) */
                    tvec_free(&x);
                    x = tvec_random(PSL_FP16, m.ncols, 8);
                    for (int32_t c = m.ncols - 1; c >= 0; c -= 17)
                        ((uint16_t *)x.p)[c] = 0xfd01;
                    if (!same_as_ref(A, &x, 1.0, &y0, 0.5) && bad++ < 5)
                        CHECK_MSG(0, "%s: kind %d signalling NaN", isa_names[isa], k);
                }
                tvec_free(&x);
                tvec_free(&y0);
            }
            psl_matrix_destroy(&A);
        }
    }
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    tcsr_free(&m);
    CHECK(bad == 0);
}

#if PSL_X86_SIMD
#include <immintrin.h>

/* FP16 of f by the F16C instruction the SIMD kernels use (RNE). */
__attribute__((target("avx,f16c"))) static uint16_t f16c_from_float(float f)
{
    __m128i h = _mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_TO_NEAREST_INT);
    return (uint16_t)_mm_extract_epi16(h, 0);
}
__attribute__((target("avx,f16c"))) static float f16c_to_float(uint16_t h)
{
    return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}
#endif

TEST(sliced_parts_cover_and_balance)
{
    /* psl_sliced_part_start: n contiguous parts that cover every slice once,
     * each within one slice's work of the equal share (words + C per slice) */
    const int32_t C = 8, nslices = 50;
    int64_t sp[51];
    sp[0] = 0;
    for (int32_t k = 0; k < nslices; k++) /* widths 0 .. 97: uneven slices */
        sp[k + 1] = sp[k] + (int64_t)C * ((k * 37) % 98);
    int64_t total = sp[nslices] + (int64_t)nslices * C, maxw = 98 * C + C;
    for (int n = 1; n <= 9; n++) {
        CHECK(psl_sliced_part_start(sp, nslices, C, 0, n) == 0);
        CHECK(psl_sliced_part_start(sp, nslices, C, n, n) == nslices);
        for (int p = 0; p < n; p++) {
            int32_t k0 = psl_sliced_part_start(sp, nslices, C, p, n);
            int32_t k1 = psl_sliced_part_start(sp, nslices, C, p + 1, n);
            CHECK(k0 <= k1);
            int64_t w = sp[k1] - sp[k0] + (int64_t)(k1 - k0) * C;
            CHECK(w <= total / n + 2 * maxw);
        }
    }
}

TEST(threads_do_not_change_bits)
{
    /* a matrix above the one-thread limit (PSL_OMP_MIN_WORK words) with a few
     * long rows, so the parts of the threads differ in slices: every thread
     * count and instruction set gives the reference bits */
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    psl_isa best = psl_cpu_isa();
    tcsr m = tcsr_random(9000, 9000, 6, 2, 91);
    const int threads[] = {1, 2, 3, 7};
    int saved = omp_get_max_threads(), bad = 0;
    for (int isa = 0; isa <= (int)best; isa++) {
        CHECK_OK(psl_option_set("PSL_CPU_ISA", isa_names[isa]));
        for (int k = 0; k < NKINDS; k += 4) {
            psl_matrix *A = fx_sliced(&m, kinds[k].f, kinds[k].vt, kinds[k].codec, 32, 256,
                                      PSL_PERMUTE_IMPLICIT);
            CHECK(A != NULL);
            tvec x = tvec_random(PSL_FP32, m.ncols, 21), y0 = tvec_random(PSL_FP32, m.nrows, 22);
            for (int t = 0; A && t < 4; t++) {
                omp_set_num_threads(threads[t]);
                if (!same_as_ref(A, &x, 1.0, &y0, 0.0) && bad++ < 5)
                    CHECK_MSG(0, "%s: kind %d, %d threads", isa_names[isa], k, threads[t]);
            }
            tvec_free(&x);
            tvec_free(&y0);
            psl_matrix_destroy(&A);
        }
    }
    omp_set_num_threads(saved);
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    tcsr_free(&m);
    CHECK(bad == 0);
}

TEST(f16c_matches_half_h)
{
    /* The SIMD kernels convert FP16 x and y with F16C; half.h is the
     * contract. Every half, and a strided sample of all floats plus every
     * float near the rounding and range boundaries. */
#if PSL_X86_SIMD
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    if (psl_cpu_isa() == PSL_ISA_GENERIC) { /* the SIMD kernels assume F16C with AVX2 */
        printf("  no AVX2/F16C: skipped\n");
        return;
    }
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float a = psl_half_to_float((uint16_t)h), b = f16c_to_float((uint16_t)h);
        uint32_t ua = psl_float_to_bits(a), ub = psl_float_to_bits(b);
        /* signalling NaNs come back quiet from F16C: only the quiet bit may differ */
        if (ua != ub && !((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) && (ua | 0x400000u) == ub))
            if (bad++ < 5)
                CHECK_MSG(0, "half %04x: half.h %08x, F16C %08x", (unsigned)h, (unsigned)ua,
                          (unsigned)ub);
    }
    const uint32_t edges[] = {0x33000000u, 0x38800000u, 0x477ff000u, 0x7f800000u};
    for (uint64_t u = 0; u < (1ull << 32); u += 4093) {
        for (int e = -1; e < 4; e++) {
            uint32_t v = e < 0 ? (uint32_t)u : (edges[e] ^ (uint32_t)(u & 0x80000fffu));
            float f = psl_bits_to_float(v);
            uint16_t a = psl_float_to_half(f), b = f16c_from_float(f);
            if (a != b && bad++ < 5)
                CHECK_MSG(0, "float %08x: half.h %04x, F16C %04x", (unsigned)v, a, b);
        }
    }
    CHECK(bad == 0);
#endif
}

/* The column of stored position j of row r as the SIMD kernels see it (rows
 * in order, no dummy words): SELL's column or -1 past the row's end;
 * PackSELL's running column, which stays at the row's last column over its
 * padding (the slice's start column c0 for an empty row). */
static int64_t kernel_col(const tcsr *m, psl_format f, int32_t r, int64_t j, int64_t c0)
{
    int64_t len = m->rp[r + 1] - m->rp[r];
    if (j < len)
        return m->ci[m->rp[r] + j];
    if (f == PSL_FORMAT_SELL)
        return -1;
    return len ? m->ci[m->rp[r + 1] - 1] : c0;
}

/* psl_cpu_slice_runs against the definition, block by block: 1 exactly where
 * the block's columns are c, c+1, ... (c >= 0) at every position of its
 * slice, else (blocks of 16) 2 where they lie in the 32 columns from lane
 * 0's, inside x, at every position; on stencil-like rows (mostly 1), the same with one row's last
 * column moved by one (its block 0), scattered rows (0), and rows whose
 * groups of 8 are consecutive but not their groups of 16; the products
 * keep the reference's bits on every instruction set. Rows in order (sigma
 * 0) and the FP16 codec (D = 15, no dummy words here). */
TEST(whole_run_table_matches_columns)
{
    const int32_t Cs[] = {16, 32, 40};
    const psl_format fmts[] = {PSL_FORMAT_SELL, PSL_FORMAT_PACKSELL};
    const psl_codec fp16 = {5, 10};
    int ones = 0, zeros = 0, windows = 0, checked = 0;
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    psl_isa best = psl_cpu_isa();
    for (int variant = 0; variant < 4; variant++) {
        tcsr m;
        if (variant < 3) {
            m = tcsr_random(700, 700, 27, variant == 2 ? 3 : 5, 900 + (unsigned)variant);
        } else { /* rows of 5 columns from i, or i + 1 in every other group of 8
                    rows: each block of 8 consecutive, no block of 16 */
            m.nrows = 700;
            m.ncols = 710;
            m.rp = malloc((700 + 1) * sizeof *m.rp);
            m.ci = malloc(700 * 5 * sizeof *m.ci);
            m.v = malloc(700 * 5 * sizeof *m.v);
            for (int32_t i = 0; i <= 700; i++)
                m.rp[i] = (int64_t)i * 5;
            for (int32_t i = 0; i < 700; i++)
                for (int j = 0; j < 5; j++) {
                    m.ci[i * 5 + j] = i + (i / 8) % 2 + j;
                    m.v[i * 5 + j] = 1.0 + 0.25 * j;
                }
        }
        if (variant == 1) { /* row 200: its last column moved one to the right */
            int64_t e = m.rp[201] - 1;
            if (m.ci[e] + 1 < m.ncols)
                m.ci[e]++;
        }
        for (int fi = 0; fi < 2; fi++)
            for (int ci = 0; ci < 3; ci++) {
                const int32_t C = Cs[ci];
                psl_matrix *A = fx_sliced(&m, fmts[fi], fmts[fi] == PSL_FORMAT_SELL ? PSL_FP16
                                                                                   : PSL_FP64,
                                          fp16, C, 0, PSL_PERMUTE_IMPLICIT);
                CHECK(A != NULL);
                if (!A)
                    continue;
                for (int vl = 8; vl <= 16; vl += 8) {
                    const uint8_t *t = psl_cpu_slice_runs(A, vl);
                    CHECK(t != NULL);
                    for (int32_t k = 0; t && k < A->nslices; k++) {
                        const int64_t row0 = (int64_t)k * C;
                        const int64_t c0 = psl_spmv_start_col(A, row0);
                        int64_t width = 0;
                        for (int32_t r = (int32_t)row0; r < m.nrows && r < row0 + C; r++)
                            if (m.rp[r + 1] - m.rp[r] > width)
                                width = m.rp[r + 1] - m.rp[r];
                        for (int32_t b = 0; b < C / vl; b++) {
                            if (row0 + (int64_t)(b + 1) * vl > m.nrows)
                                continue; /* not a whole block: never a SIMD one */
                            /* 1: consecutive at every position; 2 (blocks of 16):
                             * else within the 32 columns from lane 0's, inside x,
                             * SELL padding aside */
                            int whole = 1, win = vl == 16;
                            for (int64_t j = 0; j < width; j++) {
                                int32_t r0 = (int32_t)(row0 + b * vl);
                                int64_t first = kernel_col(&m, fmts[fi], r0, j, c0);
                                if (first < 0)
                                    whole = win = 0;
                                if (first + 31 >= m.ncols)
                                    win = 0;
                                for (int l = 1; l < vl; l++) {
                                    int64_t cl = kernel_col(&m, fmts[fi], r0 + l, j, c0);
                                    whole = whole && cl == first + l;
                                    if (!(fmts[fi] == PSL_FORMAT_SELL && cl < 0) &&
                                        (cl < first || cl - first >= 32))
                                        win = 0;
                                }
                            }
                            if (!whole && win)
                                whole = 2;
                            CHECK_MSG(t[(int64_t)k * (C / vl) + b] == whole,
                                      "variant %d %s C=%d vl=%d slice %d block %d: table %d, "
                                      "columns say %d", variant, fi ? "PackSELL" : "SELL",
                                      (int)C, vl, (int)k, (int)b,
                                      t[(int64_t)k * (C / vl) + b], whole);
                            ones += whole == 1;
                            zeros += whole == 0;
                            windows += whole == 2;
                            checked++;
                        }
                    }
                }
                for (int isa = 0; isa <= (int)best; isa++) {
                    CHECK_OK(psl_option_set("PSL_CPU_ISA", isa_names[isa]));
                    for (int vi = 1; vi < 3; vi++) { /* FP32, FP16: the kinds that use it */
                        tvec x = tvec_random(vec_types[vi], m.ncols, 17 + (unsigned)vi);
                        tvec y0 = tvec_random(vec_types[vi], m.nrows, 19 + (unsigned)vi);
                        CHECK_MSG(same_as_ref(A, &x, 1.5, &y0, -0.5),
                                  "variant %d %s C=%d %s vec %d", variant,
                                  fi ? "PackSELL" : "SELL", (int)C, isa_names[isa], vi);
                        tvec_free(&x);
                        tvec_free(&y0);
                    }
                }
                CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
                psl_matrix_destroy(&A);
            }
        tcsr_free(&m);
    }
    CHECK(ones > 20 && zeros > 20 && windows > 10);
    printf("  %d blocks: %d consecutive at every position, %d in a window, %d neither\n",
           checked, ones, windows, zeros);
}

static const psl_test_case tests[] = {
    {"whole_run_table_matches_columns", whole_run_table_matches_columns},
    {"f16c_matches_half_h", f16c_matches_half_h},
    {"isa_option_caps_the_choice", isa_option_caps_the_choice},
    {"simd_equals_ref_battery", simd_equals_ref_battery},
    {"special_x_values_same_bits", special_x_values_same_bits},
    {"sliced_parts_cover_and_balance", sliced_parts_cover_and_balance},
    {"threads_do_not_change_bits", threads_do_not_change_bits},
};
PSL_TEST_MAIN(tests)
