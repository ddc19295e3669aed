/* test_sell.c -- SELL-C-sigma conversion: the paper's Figure 1 word for word,
 * sigma-sorting and perm widths, an independent walk of every stored entry,
 * round trips for every value type, option validation, overflow and
 * underflow, statistics, CSR -> CSR FP32, and determinism across threads. */
#include "format_ref.h"

#include <omp.h>

static psl_convert_options sell_opts(psl_scalar t, int32_t C, int32_t sigma, psl_permute p)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_SELL;
    o.value_type = t;
    o.slice_height = C;
    o.sigma = sigma;
    o.permute = p;
    return o;
}

/* The 5x7 sample matrix of the paper (Figures 1 and 4); values a..h = 1..8. */
static psl_matrix *paper_matrix(void)
{
    int64_t rp[] = {0, 2, 4, 5, 7, 8};
    int32_t ci[] = {0, 1, 0, 4, 5, 1, 3, 1};
    double v[] = {1, 2, 3, 4, 5, 6, 7, 8};
    psl_matrix *A = NULL;
    psl_matrix_create_csr(&A, 5, 7, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT);
    return A;
}

TEST(paper_figure1)
{
    psl_matrix *A = paper_matrix(), *S = NULL;
    psl_convert_options o = sell_opts(PSL_FP64, 2, 0, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    if (!S)
        return;
    const int32_t col[] = {0, 0, 1, 4, 5, 1, -1, 3, 1, -1};
    const double val[] = {1, 3, 2, 4, 5, 6, 0, 7, 8, 0}; /* a c b d e f 0 g h 0 */
    const int64_t off[] = {0, 4, 8, 10};
    CHECK(S->nslices == 3 && S->stored == 10 && S->perm == NULL && S->perm_bytes == 0);
    for (int k = 0; k < 4; k++)
        CHECK(S->slice_ptr[k] == off[k]);
    for (int k = 0; k < 10; k++) {
        CHECK(S->sell_col[k] == col[k]);
        CHECK(((double *)S->sell_val)[k] == val[k]);
    }
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(S, &info));
    CHECK(info.padding == 2 && info.stored == 10 && info.nnz == 8 && info.dummies == 0);
    CHECK(info.bytes == 10 * 12 + 4 * 8); /* no perm without sorting */
    CHECK(info.csr_bytes == 6 * 8 + 8 * 12);
    CHECK(info.kleft == 3 && info.max_row_nnz == 2);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);
}

TEST(sigma_sort_order_and_perm)
{
    /* lengths 1 3 2 3 | 0 5 with sigma 4, C 2: block 0 -> rows 1 3 2 0
     * (ties keep original order), short block 1 -> rows 5 4 */
    int64_t rp[] = {0, 1, 4, 6, 9, 9, 14};
    int32_t ci[14];
    double v[14];
    for (int k = 0; k < 14; k++)
        v[k] = k + 1;
    int32_t cols[][5] = {{2}, {0, 1, 2}, {3, 5}, {1, 2, 3}, {0}, {0, 1, 2, 3, 4}};
    for (int i = 0, k = 0; i < 6; i++)
        for (int64_t j = 0; j < rp[i + 1] - rp[i]; j++)
            ci[k++] = cols[i][j];
    psl_matrix *A = NULL, *S = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 6, 6, rp, ci, v, PSL_FP64, 0, 0));
    for (int p = 0; p < 2; p++) {
        psl_convert_options o = sell_opts(PSL_FP32, 2, 4, (psl_permute)p);
        CHECK_OK(psl_matrix_convert(&S, A, &o));
        int32_t order[6];
        const int32_t expect[] = {1, 3, 2, 0, 5, 4};
        const uint8_t perm[] = {1, 3, 2, 0, 1, 0};
        CHECK_OK(psl_matrix_row_order(S, order));
        CHECK(S->perm_bytes == 1 && S->permute == (psl_permute)p);
        for (int i = 0; i < 6; i++) {
            CHECK(order[i] == expect[i]);
            CHECK(((uint8_t *)S->perm)[i] == perm[i]);
        }
        /* widths 3 (rows 1,3), 2 (rows 2,0), 5 (rows 5,4) */
        CHECK(S->slice_ptr[1] == 6 && S->slice_ptr[2] == 10 && S->slice_ptr[3] == 20);
        psl_matrix_info info;
        CHECK_OK(psl_matrix_get_info(S, &info));
        CHECK(info.bytes == 20 * 8 + 4 * 8 + (p == 0 ? 6 : 0));
        psl_matrix_destroy(&S);
    }
    psl_matrix_destroy(&A);
}

/* Walk every stored entry of S against R: lanes in stored order, entries in
 * place with the expected rounded value bits, padding (col -1, bits 0) after. */
static int walk_sell(const psl_matrix *S, const ref_csr *R)
{
    const int64_t n = R->n, C = S->C;
    int64_t *len = malloc(((size_t)n + 1) * sizeof *len);
    int32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    for (int64_t i = 0; i < n; i++)
        len[i] = R->rp[i + 1] - R->rp[i];
    int ok = ref_check_order(S, len, order) && ref_check_slices(S, len, order);
    const size_t vs = psl_scalar_size(S->value_type);
    for (int64_t k = 0; ok && k < S->nslices; k++) {
        int64_t w = (S->slice_ptr[k + 1] - S->slice_ptr[k]) / C;
        for (int64_t l = 0; ok && l < C; l++) {
            int64_t i = k * C + l, r = i < n ? order[i] : -1, rl = r >= 0 ? len[r] : 0;
            for (int64_t j = 0; ok && j < w; j++) {
                int64_t at = S->slice_ptr[k] + j * C + l;
                unsigned char zero[8] = {0}, bits[8] = {0};
                if (j < rl) {
                    double e = ref_round(S->value_type, (psl_codec){0, 0}, R->v[R->rp[r] + j]);
                    if (S->value_type == PSL_FP64) {
                        memcpy(bits, &e, 8);
                    } else if (S->value_type == PSL_FP32) {
                        float f = (float)e;
                        memcpy(bits, &f, 4);
                    } else {
                        uint32_t b = 0;
                        psl_codec c = S->value_type == PSL_FP16 ? (psl_codec){5, 10}
                                                                : (psl_codec){8, 7};
                        psl_codec_encode(c, PSL_OVERFLOW_SATURATE, R->v[R->rp[r] + j], &b);
                        uint16_t h = (uint16_t)b;
                        memcpy(bits, &h, 2);
                    }
                    ok = S->sell_col[at] == R->ci[R->rp[r] + j] &&
                         memcmp((char *)S->sell_val + at * vs, bits, vs) == 0;
                } else {
                    ok = S->sell_col[at] == -1 && memcmp((char *)S->sell_val + at * vs, zero, vs) == 0;
                }
                if (!ok)
                    fprintf(stderr, "  slice %lld lane %lld entry %lld wrong\n", (long long)k,
                            (long long)l, (long long)j);
            }
        }
    }
    psl_matrix_info info;
    if (ok && psl_matrix_get_info(S, &info) == PSL_OK) {
        int64_t nnz = R->rp[n];
        int64_t pb = S->permute == PSL_PERMUTE_IMPLICIT ? n * S->perm_bytes : 0;
        ok = info.nnz == nnz && info.padding == S->stored - nnz && info.dummies == 0 &&
             info.bytes == S->stored * (4 + (int64_t)vs) + ((int64_t)S->nslices + 1) * 8 + pb &&
             info.bytes == ref_sell_bytes(R, C, S->sigma, (int64_t)vs, pb) &&
             info.csr_bytes == (n + 1) * 8 + nnz * (4 + (int64_t)vs) &&
             S->perm_bytes == (S->sigma == 0 ? 0 : S->sigma <= 256 ? 1 : S->sigma <= 65536 ? 2 : 4);
    }
    free(len);
    free(order);
    return ok;
}

TEST(random_roundtrip_all_types)
{
    const psl_scalar types[] = {PSL_FP64, PSL_FP32, PSL_FP16, PSL_BF16};
    const int32_t Cs[] = {1, 3, 8, 32};
    for (int kind = 0; kind < 3; kind++) {
        ref_csr R = ref_random(kind == 1 ? 157 : 300, kind == 0 ? 300 : 211, kind, 7 + kind);
        psl_matrix *A = ref_handle(&R);
        CHECK(A != NULL);
        for (int t = 0; t < 4; t++)
            for (int c = 0; c < 4; c++)
                for (int s = 0; s < 3; s++) {
                    int32_t C = Cs[c], sigma = s == 0 ? 0 : s == 1 ? C : 4 * C;
                    psl_convert_options o =
                        sell_opts(types[t], C, sigma, (psl_permute)((t + c + s) % 2));
                    o.overflow = PSL_OVERFLOW_SATURATE;
                    psl_matrix *S = NULL;
                    CHECK_OK(psl_matrix_convert(&S, A, &o));
                    CHECK_MSG(S && walk_sell(S, &R), "kind %d type %d C %d sigma %d", kind, t, C,
                              sigma);
                    CHECK_MSG(S && ref_roundtrip_ok(S, &R, types[t], (psl_codec){0, 0}),
                              "kind %d type %d C %d sigma %d", kind, t, C, sigma);
                    psl_matrix_destroy(&S);
                }
        psl_matrix_destroy(&A);
        ref_free(&R);
    }
}

TEST(wide_sigma_perm_widths)
{
    /* sigma > 256 -> uint16 perm; sigma > 65536 -> uint32 perm */
    ref_csr R = ref_random(70001, 500, REF_IRREGULAR, 99);
    psl_matrix *A = ref_handle(&R);
    const int32_t sig[] = {512, 65544};
    for (int q = 0; q < 2; q++) {
        psl_convert_options o = sell_opts(PSL_FP32, 8, sig[q], PSL_PERMUTE_IMPLICIT);
        psl_matrix *S = NULL;
        CHECK_OK(psl_matrix_convert(&S, A, &o));
        CHECK(S && S->perm_bytes == (q == 0 ? 2 : 4));
        CHECK(S && walk_sell(S, &R));
        CHECK(S && ref_roundtrip_ok(S, &R, PSL_FP32, (psl_codec){0, 0}));
        psl_matrix_destroy(&S);
    }
    psl_matrix_destroy(&A);
    ref_free(&R);
}

TEST(empty_and_degenerate)
{
    psl_matrix *A = NULL, *S = NULL;
    psl_convert_options o = sell_opts(PSL_FP64, 4, 8, PSL_PERMUTE_IMPLICIT);
    /* n = 0 */
    CHECK_OK(psl_matrix_create_csr(&A, 0, 0, NULL, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK(S && S->nslices == 0 && S->stored == 0 && S->slice_ptr[0] == 0);
    psl_matrix *B = NULL;
    CHECK_OK(psl_matrix_to_csr(&B, S));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(B, &info));
    CHECK(info.nrows == 0 && info.nnz == 0);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);
    /* rows but no entries: every slice is empty */
    int64_t rp[11] = {0};
    CHECK_OK(psl_matrix_create_csr(&A, 10, 3, rp, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK(S && S->nslices == 3 && S->stored == 0);
    CHECK_OK(psl_matrix_to_csr(&B, S));
    CHECK_OK(psl_matrix_get_info(B, &info));
    CHECK(info.nrows == 10 && info.nnz == 0);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);
    /* an empty slice between full ones; C larger than n */
    int64_t rp2[] = {0, 1, 2, 2, 2, 3};
    int32_t ci2[] = {0, 1, 2};
    double v2[] = {1, 2, 3};
    CHECK_OK(psl_matrix_create_csr(&A, 5, 3, rp2, ci2, v2, PSL_FP64, 0, 0));
    ref_csr R = {5, 3, rp2, ci2, v2};
    o = sell_opts(PSL_FP64, 2, 0, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK(S && S->slice_ptr[1] == 2 && S->slice_ptr[2] == 2 && S->slice_ptr[3] == 4);
    CHECK(S && walk_sell(S, &R) && ref_roundtrip_ok(S, &R, PSL_FP64, (psl_codec){0, 0}));
    psl_matrix_destroy(&S);
    o = sell_opts(PSL_FP64, 64, 128, PSL_PERMUTE_EXPLICIT);
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK(S && S->nslices == 1 && S->stored == 64);
    CHECK(S && walk_sell(S, &R) && ref_roundtrip_ok(S, &R, PSL_FP64, (psl_codec){0, 0}));
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);
}

TEST(options_validated)
{
    psl_matrix *A = paper_matrix(), *S = (psl_matrix *)1;
    psl_convert_options o = sell_opts(PSL_FP32, 2, 4, PSL_PERMUTE_IMPLICIT), d;
    psl_convert_options_init(&d);
    CHECK(d.format == PSL_FORMAT_CSR && d.value_type == PSL_FP64 && d.codec.exp_bits == 5 &&
          d.codec.man_bits == 10 && d.slice_height == 32 && d.sigma == 256 &&
          d.permute == PSL_PERMUTE_IMPLICIT && d.overflow == PSL_OVERFLOW_ERROR);
    CHECK_ST(psl_matrix_convert(NULL, A, &o), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_convert(&S, NULL, &o), PSL_ERR_NULL_POINTER);
    CHECK(S == NULL);
    CHECK_ST(psl_matrix_convert(&S, A, NULL), PSL_ERR_NULL_POINTER);
    o.slice_height = 0;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "C = 0"));
    o.slice_height = PSL_SLICE_HEIGHT_MAX + 1; /* a taller slice only pads: refused */
    o.sigma = 0;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "1..4096"));
    o.slice_height = PSL_SLICE_HEIGHT_MAX;
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    psl_matrix_destroy(&S);
    o.slice_height = 2;
    o.sigma = 3;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "sigma = 3") && strstr(psl_last_error_message(), "multiple"));
    o.sigma = -2;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    o.sigma = 2; /* sigma == C is fine */
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    psl_matrix_destroy(&S);
    o.permute = (psl_permute)7;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    o.permute = PSL_PERMUTE_EXPLICIT;
    o.overflow = (psl_overflow)3;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    o.overflow = PSL_OVERFLOW_ERROR;
    o.value_type = (psl_scalar)9;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    o.format = PSL_FORMAT_CSR;
    o.value_type = PSL_FP16; /* CSR stores FP64/FP32 only */
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "FP16"));
    o.format = (psl_format)5;
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    o.format = PSL_FORMAT_PACKSELL;
    o.codec = (psl_codec){8, 22};
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_INVALID_VALUE);
    /* the source must be FP64 CSR */
    o = sell_opts(PSL_FP32, 2, 0, PSL_PERMUTE_IMPLICIT);
    psl_matrix *T = NULL;
    CHECK_OK(psl_matrix_convert(&T, A, &o));
    CHECK_ST(psl_matrix_convert(&S, T, &o), PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "SELL"));
    psl_matrix_destroy(&T);
    o.format = PSL_FORMAT_CSR;
    CHECK_OK(psl_matrix_convert(&T, A, &o)); /* FP32 CSR */
    CHECK_ST(psl_matrix_convert(&S, T, &o), PSL_ERR_WRONG_FORMAT);
    psl_matrix_destroy(&T);
    CHECK(S == NULL);
    psl_matrix_destroy(&A);
}

TEST(overflow_and_underflow)
{
    /* 3x3, value at (2,1) too large for FP16 / BF16 / FP32 in turn */
    int64_t rp[] = {0, 1, 2, 4};
    int32_t ci[] = {0, 2, 0, 1};
    double v[] = {1e-10, 0.0, 1.0, 7e4};
    psl_matrix *A = NULL, *S = NULL;
    psl_error_info e;
    CHECK_OK(psl_matrix_create_csr(&A, 3, 3, rp, ci, v, PSL_FP64, 0, 0));
    psl_convert_options o = sell_opts(PSL_FP16, 2, 2, PSL_PERMUTE_IMPLICIT);
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_CODEC_OVERFLOW);
    psl_last_error(&e);
    CHECK_MSG(e.row == 2 && e.col == 1 && strstr(e.message, "row 2, column 1") &&
                  strstr(e.message, "FP16"),
              "%s", e.message);
    CHECK(S == NULL);
    o.overflow = PSL_OVERFLOW_SATURATE;
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(S, &info));
    CHECK(info.underflows == 1); /* 1e-10 -> 0 in FP16; the explicit zero does not count */
    psl_matrix *B = NULL;
    const double *bv;
    CHECK_OK(psl_matrix_to_csr(&B, S));
    CHECK_OK(psl_matrix_csr_view(B, NULL, NULL, &bv));
    CHECK(bv[3] == 65504.0 && bv[0] == 0.0 && bv[1] == 0.0 && bv[2] == 1.0);
    CHECK(info.nnz == 4); /* the entries that became zero are kept */
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&S);
    o.value_type = PSL_BF16; /* 7e4 fits BF16 */
    o.overflow = PSL_OVERFLOW_ERROR;
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK_OK(psl_matrix_get_info(S, &info));
    CHECK(info.underflows == 0);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);

    /* FP32: beyond FLT_MAX (after rounding) fails, FLT_MAX itself does not */
    double w[] = {1.0, 0.0, (double)FLT_MAX, -3.5e38};
    CHECK_OK(psl_matrix_create_csr(&A, 3, 3, rp, ci, w, PSL_FP64, 0, 0));
    for (int f = 0; f < 2; f++) {
        o = sell_opts(PSL_FP32, 1, 0, PSL_PERMUTE_IMPLICIT);
        o.format = f ? PSL_FORMAT_CSR : PSL_FORMAT_SELL;
        CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_CODEC_OVERFLOW);
        psl_last_error(&e);
        CHECK_MSG(e.row == 2 && e.col == 1 && strstr(e.message, "FP32"), "%s", e.message);
        o.overflow = PSL_OVERFLOW_SATURATE;
        CHECK_OK(psl_matrix_convert(&S, A, &o));
        CHECK_OK(psl_matrix_to_csr(&B, S));
        CHECK_OK(psl_matrix_csr_view(B, NULL, NULL, &bv));
        CHECK(bv[2] == (double)FLT_MAX && bv[3] == -(double)FLT_MAX);
        psl_matrix_destroy(&B);
        psl_matrix_destroy(&S);
    }
    psl_matrix_destroy(&A);
    /* the largest double that still rounds to FLT_MAX is not an overflow */
    double z[] = {0x1.fffffefffffffp127};
    int64_t rpz[] = {0, 1};
    int32_t ciz[] = {0};
    CHECK_OK(psl_matrix_create_csr(&A, 1, 1, rpz, ciz, z, PSL_FP64, 0, 0));
    o = sell_opts(PSL_FP32, 1, 0, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK(S && ((float *)S->sell_val)[0] == FLT_MAX);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);
}

TEST(csr_to_csr)
{
    ref_csr R = ref_random(200, 150, REF_SCATTERED, 5);
    psl_matrix *A = ref_handle(&R), *B = NULL;
    psl_convert_options o;
    psl_convert_options_init(&o);
    CHECK_OK(psl_matrix_convert(&B, A, &o));
    CHECK(B && ref_roundtrip_ok(B, &R, PSL_FP64, (psl_codec){0, 0}));
    psl_matrix_info ia, ib;
    CHECK_OK(psl_matrix_get_info(A, &ia));
    CHECK_OK(psl_matrix_get_info(B, &ib));
    CHECK(ia.rsd == ib.rsd && ia.kleft == ib.kleft && ia.max_row_nnz == ib.max_row_nnz);
    psl_matrix_destroy(&B);
    o.value_type = PSL_FP32;
    CHECK_OK(psl_matrix_convert(&B, A, &o));
    CHECK(B && ref_roundtrip_ok(B, &R, PSL_FP32, (psl_codec){0, 0}));
    CHECK_OK(psl_matrix_get_info(B, &ib));
    CHECK(ib.value_type == PSL_FP32 && ib.bytes == 201 * 8 + ia.nnz * 8);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&A);
    ref_free(&R);
}

TEST(deterministic_across_threads)
{
    ref_csr R = ref_random(30000, 30000, REF_IRREGULAR, 3);
    psl_matrix *A = ref_handle(&R), *S1 = NULL, *S4 = NULL;
    psl_convert_options o = sell_opts(PSL_FP16, 32, 256, PSL_PERMUTE_IMPLICIT);
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK_OK(psl_matrix_convert(&S1, A, &o));
    omp_set_num_threads(4);
    CHECK_OK(psl_matrix_convert(&S4, A, &o));
    omp_set_num_threads(saved);
    CHECK(S1 && S4 && S1->stored == S4->stored);
    if (S1 && S4 && S1->stored == S4->stored) {
        CHECK(memcmp(S1->sell_col, S4->sell_col, (size_t)S1->stored * 4) == 0);
        CHECK(memcmp(S1->sell_val, S4->sell_val, (size_t)S1->stored * 2) == 0);
        CHECK(memcmp(S1->perm, S4->perm, (size_t)R.n) == 0);
        CHECK(S1->underflows == S4->underflows && S1->underflows > 0);
    }
    CHECK(S4 && walk_sell(S4, &R));
    psl_matrix_destroy(&S1);
    psl_matrix_destroy(&S4);
    psl_matrix_destroy(&A);
    ref_free(&R);
}

static const psl_test_case tests[] = {
    {"paper_figure1", paper_figure1},
    {"sigma_sort_order_and_perm", sigma_sort_order_and_perm},
    {"random_roundtrip_all_types", random_roundtrip_all_types},
    {"wide_sigma_perm_widths", wide_sigma_perm_widths},
    {"empty_and_degenerate", empty_and_degenerate},
    {"options_validated", options_validated},
    {"overflow_and_underflow", overflow_and_underflow},
    {"csr_to_csr", csr_to_csr},
    {"deterministic_across_threads", deterministic_across_threads},
};
PSL_TEST_MAIN(tests)
