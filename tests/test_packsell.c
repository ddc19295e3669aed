/* test_packsell.c -- PackSELL conversion: the paper's Figure 4 word for word,
 * dummy words at deltas 2^D-1 / 2^D, the start column of eq. (4) with its
 * clamp, an independent walk of every word for many codecs, C and sigma,
 * round trips, overflow / underflow, statistics, determinism. */
#include "format_ref.h"

#include <omp.h>

static psl_convert_options pack_opts(psl_codec codec, int32_t C, int32_t sigma, psl_permute p)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    o.codec = codec;
    o.slice_height = C;
    o.sigma = sigma;
    o.permute = p;
    return o;
}

/* Test-side word builders (not word.h): value bits | delta | flag. */
static uint32_t w_entry(psl_codec c, double v, uint32_t delta)
{
    uint32_t b = 0;
    int D = 30 - c.exp_bits - c.man_bits;
    psl_codec_encode(c, PSL_OVERFLOW_SATURATE, v, &b);
    return (b << (D + 1)) | (delta << 1) | 1u;
}
static uint32_t w_dummy(uint32_t delta) { return delta << 1; }

/* Start column of the rows of stored row i's block: paper eq. (4) with
 * blocks of sigma rows (C when sigma == 0), clamped to ncols-1. */
static int64_t ref_start(int64_t i, int64_t db, int64_t kleft, int64_t ncols)
{
    int64_t b = (i / db) * db;
    int64_t d = kleft < b ? b - kleft : 0;
    if (d > ncols - 1)
        d = ncols > 0 ? ncols - 1 : 0;
    return d;
}

static int64_t ref_kleft(const ref_csr *R)
{
    int64_t k = INT64_MIN;
    for (int64_t i = 0; i < R->n; i++)
        if (R->rp[i + 1] > R->rp[i] && i - R->ci[R->rp[i]] > k)
            k = i - R->ci[R->rp[i]];
    return k == INT64_MIN ? 0 : k;
}

/* Walk every word of P against R (see format_ref.h for the order and slice
 * checks) and compare every statistic with an independent count. */
static int walk_packsell(const psl_matrix *P, const ref_csr *R, psl_codec codec)
{
    const int64_t n = R->n, C = P->C, D = 30 - codec.exp_bits - codec.man_bits;
    const int64_t lim = (int64_t)1 << D, kleft = ref_kleft(R);
    const int64_t db = P->sigma ? P->sigma : C;
    int64_t *len = malloc(((size_t)n + 1) * sizeof *len);
    int32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    int ok = P->kleft == kleft && P->delta_bits == D;
    /* words of each original row: its block is the same before and after sorting */
    for (int64_t r = 0; r < n; r++) {
        int64_t c = ref_start(r, db, kleft, R->m), w = 0;
        for (int64_t k = R->rp[r]; k < R->rp[r + 1]; k++) {
            w += 1 + (R->ci[k] - c >= lim);
            c = R->ci[k];
        }
        len[r] = w;
    }
    ok = ok && ref_check_order(P, len, order) && ref_check_slices(P, len, order);
    int64_t dummies = 0, underflows = 0;
    for (int64_t k = 0; ok && k < P->nslices; k++) {
        int64_t width = (P->slice_ptr[k + 1] - P->slice_ptr[k]) / C;
        for (int64_t l = 0; ok && l < C; l++) {
            int64_t i = k * C + l;
            int64_t e = 0, end = 0, c = ref_start(i, db, kleft, R->m);
            if (i < n)
                e = R->rp[order[i]], end = R->rp[order[i] + 1];
            int after_dummy = 0, padding = 0;
            for (int64_t j = 0; ok && j < width; j++) {
                uint32_t w = P->words[P->slice_ptr[k] + j * C + l];
                if (padding) {
                    ok = w == 0;
                } else if (w & 1u) {
                    int64_t delta = (w >> 1) & (uint32_t)(lim - 1);
                    uint32_t b = 0;
                    c += delta;
                    ok = e < end && c == R->ci[e] && (!after_dummy || delta == 0);
                    if (ok) {
                        psl_codec_encode(codec, PSL_OVERFLOW_SATURATE, R->v[e], &b);
                        ok = (w >> (D + 1)) == b;
                        underflows += R->v[e] != 0 && psl_codec_decode(codec, b) == 0;
                    }
                    after_dummy = 0;
                    e++;
                } else if (w == 0) {
                    ok = !after_dummy && e == end;
                    padding = 1;
                } else {
                    ok = !after_dummy && (int64_t)(w >> 1) >= lim;
                    c += w >> 1;
                    after_dummy = 1;
                    dummies++;
                }
                if (!ok)
                    fprintf(stderr, "  slice %lld lane %lld word %lld: %08x\n", (long long)k,
                            (long long)l, (long long)j, w);
            }
            ok = ok && e == end && !after_dummy;
        }
    }
    psl_matrix_info info;
    if (ok && psl_matrix_get_info(P, &info) == PSL_OK) {
        const int64_t nnz = R->rp[n], vw = 31 - D <= 16 ? 2 : 4;
        const int64_t pb = P->permute == PSL_PERMUTE_IMPLICIT ? n * P->perm_bytes : 0;
        ok = info.nnz == nnz && info.dummies == dummies &&
             info.padding == info.stored - nnz - dummies && info.underflows == underflows &&
             info.bytes == info.stored * 4 + (int64_t)(info.nslices + 1) * 8 + pb &&
             info.sell_bytes == ref_sell_bytes(R, C, P->sigma, vw, pb) &&
             info.csr_bytes == (n + 1) * 8 + nnz * (4 + vw) && info.kleft == kleft &&
             info.delta_bits == D && info.codec.exp_bits == codec.exp_bits &&
             info.codec.man_bits == codec.man_bits;
        if (!ok)
            fprintf(stderr, "  statistics differ\n");
    }
    free(len);
    free(order);
    return ok;
}

TEST(paper_figure4)
{
    int64_t rp[] = {0, 2, 4, 5, 7, 8};
    int32_t ci[] = {0, 1, 0, 4, 5, 1, 3, 1};
    double v[] = {1, 2, 3, 4, 5, 6, 7, 8}; /* a..h */
    psl_matrix *A = NULL, *P = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 5, 7, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT));
    psl_codec c = {8, 20}; /* D = 2 */
    psl_convert_options o = pack_opts(c, 2, 0, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    if (!P)
        return;
    /* The paper draws d_i = 0. Eq. (4) gives kleft = 3 (row 4: 4 - 1) and,
     * with d-blocks of C = 2 rows, start column 0 for slices 0 and 1 but
     * psl_block_start_col(4, 3, 7) = 1 for slice 2, so h (column 1) has
     * delta 0 there instead of the drawn 1. */
    const uint32_t expect[] = {
        w_entry(c, 1, 0), w_entry(c, 3, 0), w_entry(c, 2, 1), w_dummy(4), 0, w_entry(c, 4, 0),
        w_dummy(5),       w_entry(c, 6, 1), w_entry(c, 5, 0), w_entry(c, 7, 2),
        w_entry(c, 8, 0), 0};
    const int64_t off[] = {0, 6, 10, 12};
    CHECK(P->kleft == 3 && P->delta_bits == 2 && P->nslices == 3 && P->stored == 12);
    for (int k = 0; k < 4; k++)
        CHECK(P->slice_ptr[k] == off[k]);
    for (int k = 0; k < 12; k++)
        CHECK_MSG(P->words[k] == expect[k], "word %d: %08x, expected %08x", k, P->words[k],
                  expect[k]);
    /* the worked example of word.h: value bits | delta | flag */
    CHECK(P->words[1] == ((0x40400000u >> 3) << 3 | 1u)); /* c = 3.0f, delta 0 */
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(P, &info));
    CHECK(info.dummies == 2 && info.padding == 2 && info.stored == 12);
    CHECK(info.bytes == 12 * 4 + 4 * 8);
    /* SELL equivalent (Figure 1): 10 entries of 4-byte values (V = 29) + 4-byte columns */
    CHECK(info.sell_bytes == 10 * 8 + 4 * 8);
    CHECK(info.csr_bytes == 6 * 8 + 8 * 8);
    ref_csr R = {5, 7, rp, ci, v};
    CHECK(walk_packsell(P, &R, c));
    CHECK(ref_roundtrip_ok(P, &R, -1, c));
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
}

TEST(dummy_threshold_exact)
{
    /* D = 2: deltas 3 (= 2^D - 1, no dummy) and 4 (= 2^D, one dummy); with
     * C = 1 and no sorting each row is its own d-block, so row 1 starts at
     * column 1 - kleft = 1 and its first entry (column 9) needs a dummy of 8 */
    int64_t rp[] = {0, 4, 6};
    int32_t ci[] = {0, 3, 7, 8, 9, 12};
    double v[] = {1, 2, 3, 4, 5, 6};
    psl_matrix *A = NULL, *P = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 2, 13, rp, ci, v, PSL_FP64, 0, 0));
    psl_codec c = {8, 20};
    psl_convert_options o = pack_opts(c, 1, 0, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    if (!P)
        return;
    /* kleft = max(0 - 0, 1 - 9) = 0; rows: [1|0][2|3][dummy 4][3|0][4|1]; [dummy 8][5|0][6|3] */
    const uint32_t row0[] = {w_entry(c, 1, 0), w_entry(c, 2, 3), w_dummy(4), w_entry(c, 3, 0),
                             w_entry(c, 4, 1)};
    const uint32_t row1[] = {w_dummy(8), w_entry(c, 5, 0), w_entry(c, 6, 3)};
    CHECK(P->slice_ptr[1] == 5 && P->slice_ptr[2] == 8);
    for (int k = 0; k < 5; k++)
        CHECK(P->words[k] == row0[k]);
    for (int k = 0; k < 3; k++)
        CHECK(P->words[5 + k] == row1[k]);
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);

    /* FP16 (D = 15): deltas 32767 and 32768 in a 2 x 70000 matrix */
    int64_t rp2[] = {0, 3, 5};
    int32_t ci2[] = {0, 32767, 65535, 1, 32769};
    double v2[] = {1, 2, 3, 4, 5};
    CHECK_OK(psl_matrix_create_csr(&A, 2, 70000, rp2, ci2, v2, PSL_FP64, 0, 0));
    psl_codec h = {5, 10};
    o = pack_opts(h, 2, 0, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(P, &info));
    CHECK(info.dummies == 2 && info.stored == 8); /* row 0: 32767, then 32768 -> dummy */
    ref_csr R = {2, 70000, rp2, ci2, v2};
    CHECK(walk_packsell(P, &R, h) && ref_roundtrip_ok(P, &R, -1, h));
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
}

TEST(random_roundtrip_codecs)
{
    const psl_codec codecs[] = {{5, 10}, {8, 7},  {8, 21}, {8, 20}, {6, 23}, {8, 14},
                                {8, 10}, {8, 0},  {4, 3},  {6, 20}, {2, 0},  {3, 12}};
    const int32_t Cs[] = {1, 4, 32};
    for (int kind = 0; kind < 3; kind++) {
        ref_csr R = ref_random(kind == 1 ? 173 : 320, kind == 2 ? 2000 : 320, kind, 11 + kind);
        psl_matrix *A = ref_handle(&R);
        CHECK(A != NULL);
        for (size_t q = 0; q < sizeof codecs / sizeof codecs[0]; q++)
            for (int ci = 0; ci < 3; ci++)
                for (int s = 0; s < 3; s++) {
                    int32_t C = Cs[ci], sigma = s == 0 ? 0 : s == 1 ? C : 8 * C;
                    psl_convert_options o =
                        pack_opts(codecs[q], C, sigma, (psl_permute)((q + ci + s) % 2));
                    o.overflow = PSL_OVERFLOW_SATURATE;
                    psl_matrix *P = NULL;
                    CHECK_OK(psl_matrix_convert(&P, A, &o));
                    CHECK_MSG(P && walk_packsell(P, &R, codecs[q]), "kind %d e%dm%d C %d sigma %d",
                              kind, codecs[q].exp_bits, codecs[q].man_bits, C, sigma);
                    CHECK_MSG(P && ref_roundtrip_ok(P, &R, -1, codecs[q]),
                              "kind %d e%dm%d C %d sigma %d", kind, codecs[q].exp_bits,
                              codecs[q].man_bits, C, sigma);
                    psl_matrix_destroy(&P);
                }
        psl_matrix_destroy(&A);
        ref_free(&R);
    }
}

TEST(no_dummies_when_columns_fit)
{
    /* m < 2^D: no delta can need a dummy */
    ref_csr R = ref_random(400, 300, REF_SCATTERED, 21);
    psl_matrix *A = ref_handle(&R), *P = NULL;
    psl_convert_options o = pack_opts((psl_codec){5, 10}, 32, 256, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(P, &info));
    CHECK(info.dummies == 0 && info.stored == info.nnz + info.padding);
    CHECK(walk_packsell(P, &R, o.codec));
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
    ref_free(&R);
}

TEST(rectangular_and_clamped_start)
{
    /* 1000 x 10 with entries only in the first rows: later blocks' eq. (4)
     * start column b - kleft exceeds ncols - 1 and is clamped to 9 */
    const int32_t n = 1000, m = 10;
    int64_t *rp = calloc(n + 1, sizeof *rp);
    int32_t ci[30];
    double v[30];
    int64_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        if (i < 10)
            for (int32_t c = i; c < m && c < i + 3; c++)
                ci[k] = c, v[k] = 1.0 + i + 0.25 * c, k++;
        rp[i + 1] = k;
    }
    ref_csr R = {n, m, rp, ci, v};
    psl_matrix *A = ref_handle(&R), *P = NULL;
    const psl_codec codecs[] = {{5, 10}, {8, 20}};
    for (int q = 0; q < 2; q++)
        for (int s = 0; s < 2; s++) {
            psl_convert_options o = pack_opts(codecs[q], 4, s ? 16 : 0, PSL_PERMUTE_EXPLICIT);
            CHECK_OK(psl_matrix_convert(&P, A, &o));
            CHECK(P && P->kleft == 0);
            CHECK(P && walk_packsell(P, &R, codecs[q]) && ref_roundtrip_ok(P, &R, -1, codecs[q]));
            psl_matrix_destroy(&P);
        }
    psl_matrix_destroy(&A);
    free(rp);
    /* wide 10 x 5000, scattered (dummies with small D) and tall 3000 x 40 banded */
    ref_csr W = ref_random(10, 5000, REF_SCATTERED, 8), T = ref_random(3000, 40, REF_BANDED, 9);
    ref_csr *Ms[] = {&W, &T};
    for (int q = 0; q < 2; q++) {
        A = ref_handle(Ms[q]);
        for (int s = 0; s < 2; s++) {
            psl_convert_options o = pack_opts((psl_codec){8, 18}, 2, s ? 8 : 0, PSL_PERMUTE_IMPLICIT);
            o.overflow = PSL_OVERFLOW_SATURATE;
            CHECK_OK(psl_matrix_convert(&P, A, &o));
            CHECK(P && walk_packsell(P, Ms[q], o.codec) && ref_roundtrip_ok(P, Ms[q], -1, o.codec));
            psl_matrix_destroy(&P);
        }
        psl_matrix_destroy(&A);
    }
    ref_free(&W);
    ref_free(&T);
}

TEST(negative_kleft_upper_triangular)
{
    /* row i has columns >= i + 5: kleft = -5, start column b + 5 */
    const int32_t n = 60, m = 90;
    int64_t rp[61];
    int32_t ci[240];
    double v[240];
    int64_t k = 0;
    rp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        for (int32_t c = i + 5 + (i % 3); c < m && c < i + 5 + (i % 3) + 4 * (i % 4); c += 2)
            ci[k] = c, v[k] = (double)(k + 1), k++;
        rp[i + 1] = k;
    }
    ref_csr R = {n, m, rp, ci, v};
    CHECK(ref_kleft(&R) == -5);
    psl_matrix *A = ref_handle(&R), *P = NULL;
    psl_convert_options o = pack_opts((psl_codec){8, 20}, 4, 8, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(P, &info));
    CHECK(info.kleft == -5);
    CHECK(walk_packsell(P, &R, o.codec) && ref_roundtrip_ok(P, &R, -1, o.codec));
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
}

TEST(empty_matrices)
{
    psl_matrix *A = NULL, *P = NULL, *B = NULL;
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    CHECK_OK(psl_matrix_create_csr(&A, 0, 0, NULL, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    CHECK(P && P->stored == 0 && P->nslices == 0);
    CHECK_OK(psl_matrix_to_csr(&B, P));
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
    int64_t rp[41] = {0};
    CHECK_OK(psl_matrix_create_csr(&A, 40, 0, rp, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    CHECK(P && P->stored == 0 && P->nslices == 2 && P->kleft == 0);
    CHECK_OK(psl_matrix_to_csr(&B, P));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(B, &info));
    CHECK(info.nrows == 40 && info.ncols == 0 && info.nnz == 0);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
}

TEST(codec_overflow_and_underflow)
{
    int64_t rp[] = {0, 2, 2, 4};
    int32_t ci[] = {0, 3, 1, 2};
    double v[] = {1e-9, 0.0, 2.0, -500.0};
    psl_matrix *A = NULL, *P = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 3, 4, rp, ci, v, PSL_FP64, 0, 0));
    psl_convert_options o = pack_opts((psl_codec){4, 3}, 2, 2, PSL_PERMUTE_IMPLICIT); /* max 240 */
    CHECK_ST(psl_matrix_convert(&P, A, &o), PSL_ERR_CODEC_OVERFLOW);
    CHECK(P == NULL);
    psl_error_info e;
    psl_last_error(&e);
    CHECK_MSG(e.row == 2 && e.col == 2 && strstr(e.message, "row 2, column 2") &&
                  strstr(e.message, "e4m3"),
              "%s", e.message);
    o.overflow = PSL_OVERFLOW_SATURATE;
    CHECK_OK(psl_matrix_convert(&P, A, &o));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(P, &info));
    CHECK(info.underflows == 1);
    psl_matrix *B = NULL;
    const double *bv;
    CHECK_OK(psl_matrix_to_csr(&B, P));
    CHECK_OK(psl_matrix_csr_view(B, NULL, NULL, &bv));
    CHECK(bv[0] == 0.0 && bv[1] == 0.0 && bv[2] == 2.0 && bv[3] == -240.0);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&A);
}

TEST(deterministic_across_threads)
{
    ref_csr R = ref_random(40000, 40000, REF_IRREGULAR, 5);
    psl_matrix *A = ref_handle(&R), *P1 = NULL, *P4 = NULL;
    psl_convert_options o = pack_opts((psl_codec){8, 12}, 32, 512, PSL_PERMUTE_IMPLICIT);
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK_OK(psl_matrix_convert(&P1, A, &o));
    omp_set_num_threads(4);
    CHECK_OK(psl_matrix_convert(&P4, A, &o));
    omp_set_num_threads(saved);
    CHECK(P1 && P4 && P1->stored == P4->stored && P1->perm_bytes == 2);
    if (P1 && P4 && P1->stored == P4->stored) {
        CHECK(memcmp(P1->words, P4->words, (size_t)P1->stored * 4) == 0);
        CHECK(memcmp(P1->perm, P4->perm, (size_t)R.n * 2) == 0);
        CHECK(P1->dummies == P4->dummies && P1->dummies > 0);
        CHECK(P1->sell_equiv_bytes == P4->sell_equiv_bytes);
    }
    CHECK(P4 && walk_packsell(P4, &R, o.codec) && ref_roundtrip_ok(P4, &R, -1, o.codec));
    psl_matrix_destroy(&P1);
    psl_matrix_destroy(&P4);
    psl_matrix_destroy(&A);
    ref_free(&R);
}

static const psl_test_case tests[] = {
    {"paper_figure4", paper_figure4},
    {"dummy_threshold_exact", dummy_threshold_exact},
    {"random_roundtrip_codecs", random_roundtrip_codecs},
    {"no_dummies_when_columns_fit", no_dummies_when_columns_fit},
    {"rectangular_and_clamped_start", rectangular_and_clamped_start},
    {"negative_kleft_upper_triangular", negative_kleft_upper_triangular},
    {"empty_matrices", empty_matrices},
    {"codec_overflow_and_underflow", codec_overflow_and_underflow},
    {"deterministic_across_threads", deterministic_across_threads},
};
PSL_TEST_MAIN(tests)
