/*
 * test_estimate.c -- psl_matrix_estimate gives exactly the statistics that
 * psl_matrix_get_info reports after the real psl_matrix_convert, for every
 * format, codec, C, sigma and permutation on matrices with and without dummy
 * words; and it rejects what convert rejects (but not value overflow, which
 * it does not check, as documented).
 */
#include "packsell.h"
#include "harness.h"

static psl_convert_options opts(psl_format f, psl_scalar vt, const char *codec, int32_t C,
                                int32_t sigma, psl_permute pm)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = f;
    o.value_type = vt;
    if (codec)
        psl_codec_parse(codec, &o.codec);
    o.slice_height = C;
    o.sigma = sigma;
    o.permute = pm;
    return o;
}

/* Every field of the two infos that a layout determines. */
static int same_info(const psl_matrix_info *a, const psl_matrix_info *b, const char *what)
{
    int ok = a->format == b->format && a->nrows == b->nrows && a->ncols == b->ncols &&
             a->nnz == b->nnz && a->stored == b->stored && a->padding == b->padding &&
             a->dummies == b->dummies && a->bytes == b->bytes &&
             a->sell_bytes == b->sell_bytes && a->csr_bytes == b->csr_bytes &&
             a->nslices == b->nslices && a->kleft == b->kleft &&
             a->max_row_nnz == b->max_row_nnz && a->rsd == b->rsd &&
             a->delta_bits == b->delta_bits && a->slice_height == b->slice_height &&
             a->sigma == b->sigma && a->permute == b->permute;
    if (!ok)
        fprintf(stderr, "  %s: estimate stored %lld padding %lld dummies %lld bytes %lld sell %lld"
                        " | real %lld %lld %lld %lld %lld\n",
                what, (long long)a->stored, (long long)a->padding, (long long)a->dummies,
                (long long)a->bytes, (long long)a->sell_bytes, (long long)b->stored,
                (long long)b->padding, (long long)b->dummies, (long long)b->bytes,
                (long long)b->sell_bytes);
    return ok;
}

TEST(estimate_equals_convert)
{
    static const char *specs[] = {"hpcg:3:3:3", "powerlaw:3000:6:1.5:3", "random:2000:7:5",
                                  "banded:5000:3000:6:2", "lap2d:40:7"};
    static const struct {
        psl_format f;
        psl_scalar vt;
        const char *codec;
    } kinds[] = {{PSL_FORMAT_CSR, PSL_FP64, NULL},      {PSL_FORMAT_CSR, PSL_FP32, NULL},
                 {PSL_FORMAT_SELL, PSL_FP64, NULL},     {PSL_FORMAT_SELL, PSL_FP16, NULL},
                 {PSL_FORMAT_PACKSELL, PSL_FP64, "fp16"}, {PSL_FORMAT_PACKSELL, PSL_FP64, "e8m21"},
                 {PSL_FORMAT_PACKSELL, PSL_FP64, "e8m17"}, {PSL_FORMAT_PACKSELL, PSL_FP64, "e5m20"}};
    static const int32_t layouts[][2] = {{32, 256}, {8, 0}, {4, 8}, {1, 1}, {32, 1024}};
    int checked = 0, with_dummies = 0;
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, specs[s]));
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
                for (int pm = 0; pm < 2; pm++) {
                    psl_convert_options o = opts(kinds[k].f, kinds[k].vt, kinds[k].codec,
                                                 layouts[l][0], layouts[l][1], (psl_permute)pm);
                    psl_matrix *B = NULL;
                    psl_matrix_info est, real;
                    CHECK_OK(psl_matrix_estimate(A, &o, &est));
                    CHECK_OK(psl_matrix_convert(&B, A, &o));
                    CHECK_OK(psl_matrix_get_info(B, &real));
                    char what[128];
                    snprintf(what, sizeof what, "%s kind %zu C=%d sigma=%d pm=%d", specs[s], k,
                             (int)layouts[l][0], (int)layouts[l][1], pm);
                    CHECK_MSG(same_info(&est, &real, what), "%s", what);
                    with_dummies += real.dummies > 0;
                    checked++;
                    psl_matrix_destroy(&B);
                }
        psl_matrix_destroy(&A);
    }
    printf("  %d layouts compared, %d of them with dummy words\n", checked, with_dummies);
    CHECK(with_dummies > 0); /* the comparison covers the dummy count */
}

TEST(estimate_rejects_what_convert_rejects)
{
    psl_matrix *A = NULL, *S = NULL;
    psl_matrix_info info;
    CHECK_OK(psl_generate(&A, "lap2d:6"));
    psl_convert_options o = opts(PSL_FORMAT_SELL, PSL_FP32, NULL, 4, 6, PSL_PERMUTE_IMPLICIT);
    CHECK_ST(psl_matrix_estimate(A, &o, &info), PSL_ERR_INVALID_VALUE); /* sigma % C != 0 */
    CHECK_ST(psl_matrix_estimate(A, NULL, &info), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_estimate(NULL, &o, &info), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_estimate(A, &o, NULL), PSL_ERR_NULL_POINTER);
    o = opts(PSL_FORMAT_SELL, PSL_FP32, NULL, 4, 8, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK_ST(psl_matrix_estimate(S, &o, &info), PSL_ERR_WRONG_FORMAT); /* not FP64 CSR */
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&A);

    /* value overflow is not checked by the estimate (documented) */
    const int64_t rp[] = {0, 1, 2};
    const int32_t ci[] = {0, 1};
    const double v[] = {1e6, 1};
    CHECK_OK(psl_matrix_create_csr(&A, 2, 2, rp, ci, v, PSL_FP64, 0, 0));
    o = opts(PSL_FORMAT_PACKSELL, PSL_FP64, "fp16", 2, 2, PSL_PERMUTE_IMPLICIT);
    CHECK_OK(psl_matrix_estimate(A, &o, &info));
    CHECK(info.stored == 2 && info.underflows == 0);
    CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_CODEC_OVERFLOW);
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"estimate_equals_convert", estimate_equals_convert},
    {"estimate_rejects_what_convert_rejects", estimate_rejects_what_convert_rejects},
};
PSL_TEST_MAIN(tests)
