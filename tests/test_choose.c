/*
 * test_choose.c -- psl_choose_format: the candidates of each precision are
 * the documented ones, their statistics equal those of the real conversions
 * (bytes, dummies, padding, widest slice, summed widths), the pick is the
 * smallest prediction and converts; an HPCG-like / banded matrix picks
 * PackSELL, a matrix with one huge row never picks a sliced format; values
 * beyond FP16 switch to BF16, beyond FP32 give an error naming the entry;
 * bad arguments; the same choice whatever the number of threads. The
 * device model: the default is the documented H200 and equals NULL; a
 * smaller device (bandwidth, L2, warps, SMs, clusters) changes the
 * predictions and picks that depend on it as the model says; bad models
 * and psl_device_model_query's errors. The CPU chooser: the same
 * candidates with the library's CSR, its roofline, and its model's errors.
 */
#include "internal.h"
#include "harness.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* Widest slice and summed slice widths of a real SELL/PackSELL matrix, from
 * its slice offsets (the real build, not the chooser's dry run). */
static void real_widths(const psl_matrix *B, int64_t *max_w, int64_t *sum_w)
{
    *max_w = 0;
    *sum_w = 0;
    for (int32_t k = 0; k < B->nslices; k++) {
        int64_t w = (B->slice_ptr[k + 1] - B->slice_ptr[k]) / B->C;
        *max_w = w > *max_w ? w : *max_w;
        *sum_w += w;
    }
}

/* Check one choice against the documented candidate list and the real
 * conversions of every candidate. */
static void check_choice(const psl_matrix *A, psl_precision prec, const psl_choice *c,
                         const char *what)
{
    static const int ncand[3] = {3, 3, 2};
    CHECK_MSG(c->precision == prec && c->ncandidates == ncand[prec], "%s: %d candidates", what,
              (int)c->ncandidates);
    CHECK_MSG(c->pick >= 0 && c->pick < c->ncandidates, "%s: pick %d", what, (int)c->pick);
    if (c->pick < 0 || c->pick >= c->ncandidates)
        return;
    CHECK(memcmp(&c->opt, &c->candidates[c->pick].opt, sizeof c->opt) == 0);
    CHECK(c->vec_type == c->candidates[c->pick].vec_type);
    for (int i = 0; i < c->ncandidates; i++) {
        const psl_candidate *k = &c->candidates[i];
        CHECK_MSG(k->predicted_us >= c->candidates[c->pick].predicted_us &&
                      (i >= c->pick || k->predicted_us > c->candidates[c->pick].predicted_us),
                  "%s: candidate %d (%s) predicted %g < pick %g", what, i, k->kernel,
                  k->predicted_us, c->candidates[c->pick].predicted_us);
        CHECK(isfinite(k->predicted_us) && k->predicted_us > 0);
        CHECK(k->predicted_us >= fmax(k->bandwidth_us, k->latency_us));
        psl_matrix *B = NULL;
        psl_matrix_info info;
        CHECK_OK(psl_matrix_convert(&B, A, &k->opt));
        if (!B)
            continue;
        CHECK_OK(psl_matrix_get_info(B, &info));
        if (k->opt.format == PSL_FORMAT_CSR) {
            CHECK(k->max_width == 0 && k->sum_width == 0 && k->latency_us == 0);
            /* device CSR: 32-bit row pointers and columns */
            CHECK(k->bytes == (int64_t)(info.nrows + 1) * 4 +
                                  info.nnz * (4 + (prec == PSL_PREC_FP64 ? 8 : 4)));
        } else {
            int64_t mw, sw;
            real_widths(B, &mw, &sw);
            CHECK_MSG(k->bytes == info.bytes && k->dummies == info.dummies &&
                          k->padding == info.padding && k->max_width == mw && k->sum_width == sw,
                      "%s: %s bytes %lld/%lld widths %lld/%lld %lld/%lld", what, k->kernel,
                      (long long)k->bytes, (long long)info.bytes, (long long)k->max_width,
                      (long long)mw, (long long)k->sum_width, (long long)sw);
            CHECK(k->opt.slice_height == 32 && k->opt.sigma == 256);
        }
        int64_t vs = prec == PSL_PREC_FP64 ? 8 : k->opt.format == PSL_FORMAT_CSR ? 4
                                             : prec == PSL_PREC_FP16             ? 2
                                                                                 : 4;
        CHECK(k->vector_bytes == vs * ((int64_t)info.nrows + info.ncols));
        psl_matrix_destroy(&B);
    }
    /* the documented candidates */
    const psl_candidate *k = c->candidates;
    if (prec == PSL_PREC_FP16) {
        CHECK(k[0].opt.format == PSL_FORMAT_PACKSELL && k[1].opt.format == PSL_FORMAT_SELL &&
              k[2].opt.format == PSL_FORMAT_CSR && k[2].opt.value_type == PSL_FP32);
        int bf = k[0].opt.codec.exp_bits == 8;
        CHECK(k[0].opt.codec.man_bits == (bf ? 7 : 10) &&
              k[1].opt.value_type == (bf ? PSL_BF16 : PSL_FP16));
        CHECK(c->ndelta == 1 && c->delta_bits[0] == 15);
    } else if (prec == PSL_PREC_FP32) {
        CHECK(k[0].opt.format == PSL_FORMAT_PACKSELL && k[0].opt.codec.exp_bits == 8);
        CHECK(k[1].opt.format == PSL_FORMAT_SELL && k[1].opt.value_type == PSL_FP32);
        CHECK(k[2].opt.format == PSL_FORMAT_CSR && k[2].opt.value_type == PSL_FP32);
        /* D in {1, 2}: the fewer bytes, D = 1 on a tie */
        CHECK(c->ndelta == 2 && c->delta_bits[0] == 1 && c->delta_bits[1] == 2);
        int d = c->delta_bytes[1] < c->delta_bytes[0] ? 2 : 1;
        CHECK_MSG(psl_codec_delta_bits(k[0].opt.codec) == d, "%s: D %d, bytes %lld %lld", what,
                  (int)psl_codec_delta_bits(k[0].opt.codec), (long long)c->delta_bytes[0],
                  (long long)c->delta_bytes[1]);
        CHECK(c->delta_bytes[d - 1] == k[0].bytes && c->delta_dummies[d - 1] == k[0].dummies);
        CHECK(c->delta_dummies[1] <= c->delta_dummies[0]);
    } else {
        CHECK(k[0].opt.format == PSL_FORMAT_SELL && k[0].opt.value_type == PSL_FP64);
        CHECK(k[1].opt.format == PSL_FORMAT_CSR && k[1].opt.value_type == PSL_FP64);
    }
}

TEST(candidates_match_conversions)
{
    static const char *specs[] = {"hpcg:3:3:3",          "lap2d:60",
                                  "banded:20000:3000:8:2", "powerlaw:5000:8:1.5:3",
                                  "random:3000:5:4",      "lap3d:8:9:10"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, specs[s]));
        if (!A)
            continue;
        for (int p = 0; p < 3; p++) {
            psl_choice c;
            char what[96];
            snprintf(what, sizeof what, "%s %s", specs[s], psl_precision_name((psl_precision)p));
            CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c));
            check_choice(A, (psl_precision)p, &c, what);
        }
        psl_matrix_destroy(&A);
    }
}

/* A CSR matrix from triplets (rows sorted by the library). */
static psl_matrix *from_rows(int32_t n, const int64_t *rp, const int32_t *ci, const double *v)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, n, n, rp, ci, v, PSL_FP64, 0, 0));
    return A;
}

TEST(regular_matrices_pick_packsell)
{
    static const char *specs[] = {"hpcg:6:6:6", "hpcg:5:5:6", "banded:300000:64:16:1",
                                  "lap3d:64"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, specs[s]));
        for (int p = 0; p < 2; p++) {
            psl_choice c;
            CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c));
            CHECK_MSG(c.opt.format == PSL_FORMAT_PACKSELL, "%s %s picks %s (%g us vs %g, %g)",
                      specs[s], psl_precision_name((psl_precision)p),
                      c.candidates[c.pick].kernel, c.candidates[c.pick].predicted_us,
                      c.candidates[0].predicted_us, c.candidates[2].predicted_us);
        }
        psl_choice c;
        CHECK_OK(psl_choose_format(A, PSL_PREC_FP64, NULL, &c)); /* SELL beats CSR FP64 */
        CHECK(c.opt.format == PSL_FORMAT_SELL);
        psl_matrix_destroy(&A);
    }
}

TEST(one_huge_row_picks_csr)
{
    /* row 0 holds every column; the others a diagonal and one neighbour */
    const int32_t n = 200000;
    int64_t nnz = n + 2 * (int64_t)(n - 1);
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v);
    int64_t k = 0;
    rp[0] = 0;
    for (int32_t j = 0; j < n; j++, k++) {
        ci[k] = j;
        v[k] = 1.0 + j % 3;
    }
    rp[1] = k;
    for (int32_t i = 1; i < n; i++) {
        ci[k] = i - 1;
        v[k++] = -1.0;
        ci[k] = i;
        v[k++] = 4.0;
        rp[i + 1] = k;
    }
    psl_matrix *A = from_rows(n, rp, ci, v);
    for (int p = 0; A && p < 3; p++) {
        psl_choice c;
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c));
        CHECK_MSG(c.opt.format == PSL_FORMAT_CSR, "%s picks %s",
                  psl_precision_name((psl_precision)p), c.candidates[c.pick].kernel);
        CHECK(c.max_row_nnz == n && c.rsd > 100);
        /* the sliced candidates lose on bytes (the row's slice pads 32 rows
         * to n), not on a lone thread walking the row: the kernels split it
         * over warps (long_rows.h), so the latency term stays below the
         * bandwidth term instead of growing with n */
        for (int i = 0; i < c.ncandidates; i++)
            if (c.candidates[i].opt.format != PSL_FORMAT_CSR)
                CHECK(c.candidates[i].max_width >= n &&
                      c.candidates[i].bytes > 32 * (int64_t)n * 4 &&
                      c.candidates[i].latency_us < c.candidates[i].bandwidth_us);
    }
    psl_matrix_destroy(&A);
    /* a generated heavy-tailed matrix too */
    CHECK_OK(psl_generate(&A, "powerlaw:200000:16:1.1:1"));
    for (int p = 0; A && p < 3; p++) {
        psl_choice c;
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c));
        CHECK_MSG(c.opt.format == PSL_FORMAT_CSR, "powerlaw %s picks %s (max row %d)",
                  psl_precision_name((psl_precision)p), c.candidates[c.pick].kernel,
                  (int)c.max_row_nnz);
    }
    psl_matrix_destroy(&A);
    free(rp);
    free(ci);
    free(v);
}

TEST(value_range)
{
    /* 4x4 tridiagonal-ish with one large value at row 2, column 3 */
    int64_t rp[5] = {0, 2, 4, 6, 7};
    int32_t ci[7] = {0, 1, 0, 1, 2, 3, 3};
    double v[7] = {1, 2, 3, 4, 5, 1e6, 7};
    psl_matrix *A = from_rows(4, rp, ci, v), *B = NULL;
    psl_choice c;
    CHECK_OK(psl_choose_format(A, PSL_PREC_FP16, NULL, &c)); /* 1e6 > FP16 max: BF16 */
    check_choice(A, PSL_PREC_FP16, &c, "1e6 fp16");
    CHECK(c.max_abs == 1e6 && c.candidates[0].opt.codec.exp_bits == 8 &&
          c.candidates[1].opt.value_type == PSL_BF16 &&
          strcmp(c.candidates[0].kernel, "packsell-bf16") == 0);
    CHECK_OK(psl_matrix_convert(&B, A, &c.opt));
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&A);

    /* 65504 is FP16's largest value: still FP16 */
    v[5] = 65504;
    A = from_rows(4, rp, ci, v);
    CHECK_OK(psl_choose_format(A, PSL_PREC_FP16, NULL, &c));
    CHECK(c.candidates[0].opt.codec.exp_bits == 5);
    psl_matrix_destroy(&A);

    /* beyond FP32: fp16 and fp32 fail naming the entry, fp64 is fine */
    v[5] = -1e300;
    A = from_rows(4, rp, ci, v);
    memset(&c, 0x5a, sizeof c);
    for (int p = 0; p < 2; p++) {
        CHECK_ST(psl_choose_format(A, (psl_precision)p, NULL, &c), PSL_ERR_CODEC_OVERFLOW);
        psl_error_info e;
        psl_last_error(&e);
        CHECK_MSG(e.row == 2 && e.col == 3 && strstr(e.message, "row 2") &&
                      strstr(e.message, "column 3") && strstr(e.message, "fp64"),
                  "%s", e.message);
        CHECK(((unsigned char *)&c)[0] == 0x5a && ((unsigned char *)&c)[sizeof c - 1] == 0x5a);
    }
    CHECK_OK(psl_choose_format(A, PSL_PREC_FP64, NULL, &c));
    check_choice(A, PSL_PREC_FP64, &c, "1e300 fp64");
    psl_matrix_destroy(&A);
}

TEST(empty_matrices)
{
    int64_t rp[4] = {0, 0, 0, 0};
    int32_t ci[1] = {0};
    double v[1] = {0};
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 3, 3, rp, ci, v, PSL_FP64, 0, 0));
    for (int p = 0; A && p < 3; p++) {
        psl_choice c;
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c));
        check_choice(A, (psl_precision)p, &c, "3x3 empty");
    }
    psl_matrix_destroy(&A);
    CHECK_OK(psl_matrix_create_csr(&A, 0, 0, rp, ci, v, PSL_FP64, 0, 0));
    for (int p = 0; A && p < 3; p++) {
        psl_choice c;
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c));
        CHECK(c.nrows == 0 && c.nnz == 0 && c.pick >= 0 && c.pick < c.ncandidates);
    }
    psl_matrix_destroy(&A);
}

TEST(bad_arguments)
{
    psl_matrix *A = NULL, *S = NULL, *F = NULL;
    psl_choice c;
    CHECK_OK(psl_generate(&A, "lap2d:20"));
    CHECK_ST(psl_choose_format(NULL, PSL_PREC_FP16, NULL, &c), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_choose_format(A, PSL_PREC_FP16, NULL, NULL), PSL_ERR_NULL_POINTER);
    CHECK(strstr(psl_last_error_message(), "choice"));
    memset(&c, 0x33, sizeof c);
    CHECK_ST(psl_choose_format(A, (psl_precision)7, NULL, &c), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "precision 7"));
    CHECK_ST(psl_choose_format(A, (psl_precision)-1, NULL, &c), PSL_ERR_INVALID_VALUE);
    CHECK(((unsigned char *)&c)[0] == 0x33 && ((unsigned char *)&c)[sizeof c / 2] == 0x33);
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_SELL;
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    CHECK_ST(psl_choose_format(S, PSL_PREC_FP32, NULL, &c), PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "SELL") &&
          strstr(psl_last_error_message(), "psl_matrix_to_csr"));
    o.format = PSL_FORMAT_CSR;
    o.value_type = PSL_FP32;
    CHECK_OK(psl_matrix_convert(&F, A, &o));
    CHECK_ST(psl_choose_format(F, PSL_PREC_FP32, NULL, &c), PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "FP32"));
    CHECK(strcmp(psl_precision_name(PSL_PREC_FP32), "fp32") == 0 &&
          strcmp(psl_precision_name((psl_precision)9), "?") == 0);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&F);
    psl_matrix_destroy(&A);
}

/* Field-by-field equality of two choices (no padding bytes compared). */
static int same_choice(const psl_choice *a, const psl_choice *b)
{
    if (a->pick != b->pick || a->ncandidates != b->ncandidates || a->max_abs != b->max_abs ||
        a->rsd != b->rsd || a->ndelta != b->ndelta)
        return 0;
    for (int i = 0; i < a->ndelta; i++)
        if (a->delta_dummies[i] != b->delta_dummies[i] || a->delta_bytes[i] != b->delta_bytes[i])
            return 0;
    for (int i = 0; i < a->ncandidates; i++) {
        const psl_candidate *x = &a->candidates[i], *y = &b->candidates[i];
        if (x->bytes != y->bytes || x->dummies != y->dummies || x->padding != y->padding ||
            x->max_width != y->max_width || x->sum_width != y->sum_width ||
            x->predicted_us != y->predicted_us || strcmp(x->kernel, y->kernel) != 0 ||
            memcmp(&x->opt, &y->opt, sizeof x->opt) != 0)
            return 0;
    }
    return 1;
}

TEST(deterministic_over_threads)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "powerlaw:60000:12:1.8:5"));
    for (int p = 0; A && p < 3; p++) {
        psl_choice c1, c2, c3;
#ifdef _OPENMP
        int saved = omp_get_max_threads();
        omp_set_num_threads(1);
#endif
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c1));
#ifdef _OPENMP
        omp_set_num_threads(saved > 1 ? saved : 2);
#endif
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c2));
        CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c3));
#ifdef _OPENMP
        omp_set_num_threads(saved);
#endif
        CHECK(same_choice(&c1, &c2) && same_choice(&c2, &c3));
    }
    psl_matrix_destroy(&A);
}

/* The default device model: the documented H200 figures; NULL and the
 * default give the same choice; the choice records the model. */
TEST(default_device_model)
{
    psl_device_model m;
    memset(&m, 0, sizeof m);
    CHECK_OK(psl_device_model_default(&m));
    CHECK(m.sm_count == 132 && m.threads_per_sm == 2048 && m.l2_bytes == 50000000 &&
          m.copy_gbs == 4258.0 && m.copy_measured == 0 && m.cluster_max == 16 &&
          strstr(m.name, "H200"));
    CHECK_ST(psl_device_model_default(NULL), PSL_ERR_NULL_POINTER);
    static const char *specs[] = {"hpcg:5:5:6", "powerlaw:5000:8:1.5:3", "lap2d:60"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, specs[s]));
        for (int p = 0; A && p < 3; p++) {
            psl_choice c1, c2;
            CHECK_OK(psl_choose_format(A, (psl_precision)p, NULL, &c1));
            CHECK_OK(psl_choose_format(A, (psl_precision)p, &m, &c2));
            CHECK(same_choice(&c1, &c2));
            CHECK(memcmp(&c1.device, &m, sizeof m) == 0 && memcmp(&c2.device, &m, sizeof m) == 0);
        }
        psl_matrix_destroy(&A);
    }
}

/* Choices of A at prec on two models. */
static void choose2(const psl_matrix *A, psl_precision prec, const psl_device_model *m1,
                    const psl_device_model *m2, psl_choice *c1, psl_choice *c2)
{
    CHECK_OK(psl_choose_format(A, prec, m1, c1));
    CHECK_OK(psl_choose_format(A, prec, m2, c2));
    CHECK(c1->ncandidates == c2->ncandidates);
    for (int i = 0; i < c1->ncandidates; i++) /* the device never changes the layouts */
        CHECK(c1->candidates[i].bytes == c2->candidates[i].bytes &&
              c1->candidates[i].max_width == c2->candidates[i].max_width &&
              c1->candidates[i].sum_width == c2->candidates[i].sum_width);
}

static int rel_eq(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)); }

/* A smaller device changes the predictions that depend on it, the way the
 * model says: the bandwidth term scales with 1/copy_gbs; a matrix that fits
 * the default L2 but not a smaller one takes the HBM latency; fewer
 * resident warps lengthen the latency of a matrix whose slices outnumber
 * them (in proportion once the warps bound it); fewer SMs make a matrix
 * too large for the small-matrix kernels, so its rows split and walk
 * further. */
TEST(smaller_device_changes_predictions)
{
    psl_device_model def, m;
    CHECK_OK(psl_device_model_default(&def));
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "hpcg:6:6:6"));
    for (int p = 0; A && p < 2; p++) { /* FP16, FP32: no per-row term */
        psl_choice c1, c2;
        m = def;
        m.copy_gbs = def.copy_gbs / 4;
        choose2(A, (psl_precision)p, &def, &m, &c1, &c2);
        for (int i = 0; i < c1.ncandidates; i++) {
            const psl_candidate *k1 = &c1.candidates[i], *k2 = &c2.candidates[i];
            CHECK_MSG(rel_eq(k2->bandwidth_us, 4 * k1->bandwidth_us) &&
                          k2->latency_us == k1->latency_us,
                      "%s: bandwidth %g at 1/4 copy_gbs vs %g", k1->kernel, k2->bandwidth_us,
                      k1->bandwidth_us);
            /* launch and the split do not depend on the bandwidth */
            CHECK(rel_eq(k2->predicted_us - fmax(k2->bandwidth_us, k2->latency_us),
                         k1->predicted_us - fmax(k1->bandwidth_us, k1->latency_us)));
        }
        /* L2 of 4 MB: the sliced candidates of 4-50 MB leave L2 (PackSELL
         * at least), those beyond 50 MB were out of it already */
        m = def;
        m.l2_bytes = 4000000;
        choose2(A, (psl_precision)p, &def, &m, &c1, &c2);
        int left = 0;
        for (int i = 0; i < c1.ncandidates; i++) {
            const psl_candidate *k1 = &c1.candidates[i], *k2 = &c2.candidates[i];
            double b = (double)k1->bytes + (double)k1->vector_bytes;
            CHECK(k2->bandwidth_us == k1->bandwidth_us && b > 4e6);
            if (k1->opt.format == PSL_FORMAT_CSR) {
                CHECK(k1->latency_us == 0 && k2->latency_us == 0);
            } else if (b < 50e6) {
                left++;
                CHECK_MSG(k2->latency_us > k1->latency_us, "%s: latency %g in HBM vs %g in L2",
                          k1->kernel, k2->latency_us, k1->latency_us);
            } else {
                CHECK(k2->latency_us == k1->latency_us);
            }
        }
        CHECK(left >= 1 && c1.candidates[0].opt.format == PSL_FORMAT_PACKSELL);
    }
    psl_matrix_destroy(&A);
    /* a matrix under both L2 sizes keeps its latency */
    CHECK_OK(psl_generate(&A, "lap2d:60"));
    if (A) {
        psl_choice c1, c2;
        m = def;
        m.l2_bytes = 4000000;
        choose2(A, PSL_PREC_FP16, &def, &m, &c1, &c2);
        CHECK(same_choice(&c1, &c2));
    }
    psl_matrix_destroy(&A);

    /* fewer warps: lap3d:64 has 8,192 slices about 7 wide */
    CHECK_OK(psl_generate(&A, "lap3d:64"));
    for (int p = 0; A && p < 3; p++) {
        psl_device_model w1 = def, w2 = def;
        w1.threads_per_sm = 256; /* 1,056 warps */
        w2.threads_per_sm = 128; /* 528 */
        psl_choice c0, c1, c2;
        choose2(A, (psl_precision)p, &def, &w1, &c0, &c1);
        choose2(A, (psl_precision)p, &w1, &w2, &c1, &c2);
        for (int i = 0; i < c0.ncandidates; i++) {
            const psl_candidate *k0 = &c0.candidates[i], *k1 = &c1.candidates[i],
                                *k2 = &c2.candidates[i];
            if (k0->opt.format == PSL_FORMAT_CSR) {
                CHECK(k1->latency_us == 0 && k2->latency_us == 0 &&
                      k1->predicted_us == k0->predicted_us);
                continue;
            }
            CHECK((double)k1->sum_width / 1056 > (double)k1->max_width);
            CHECK_MSG(k1->latency_us > k0->latency_us && rel_eq(k2->latency_us, 2 * k1->latency_us),
                      "%s: latency %g, %g, %g at 8448, 1056, 528 warps", k0->kernel,
                      k0->latency_us, k1->latency_us, k2->latency_us);
            CHECK(k1->bandwidth_us == k0->bandwidth_us && k1->predicted_us >= k0->predicted_us);
        }
    }
    psl_matrix_destroy(&A);

    /* fewer SMs, the same warps: 20,000 rows are small for 132 SMs (at
     * most 132 x 512 rows), not for 16 (8,192); their slices of 20 are then
     * split (walk 15) instead of loaded by the short-row kernels (8) */
    CHECK_OK(psl_generate(&A, "banded:20000:64:20:1"));
    for (int p = 0; A && p < 3; p++) {
        psl_device_model f = def;
        f.sm_count = 16;
        f.threads_per_sm = 132 * 2048 / 16;
        psl_choice c1, c2;
        choose2(A, (psl_precision)p, &def, &f, &c1, &c2);
        int checked = 0;
        for (int i = 0; i < c1.ncandidates; i++) {
            const psl_candidate *k1 = &c1.candidates[i], *k2 = &c2.candidates[i];
            if (k1->opt.format == PSL_FORMAT_CSR) {
                CHECK(k2->predicted_us == k1->predicted_us);
            } else if (k1->max_width == 20) { /* E8MY's dummies may widen PackSELL */
                checked++;
                CHECK_MSG(rel_eq(k2->latency_us, k1->latency_us * 15 / 8),
                          "%s: latency %g vs %g", k1->kernel, k2->latency_us, k1->latency_us);
            }
        }
        CHECK(checked >= (p == PSL_PREC_FP16 ? 2 : 1));
    }
    psl_matrix_destroy(&A);
}

/* One row of `wide` entries (row 0) over a tridiagonal n x n matrix. */
static psl_matrix *one_wide_row(int32_t n, int32_t wide)
{
    int64_t nnz = wide + 3 * (int64_t)n;
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v);
    int64_t k = 0;
    rp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t lo = i == 0 ? 0 : i - 1, hi = i == 0 ? wide - 1 : (i + 1 < n ? i + 1 : i);
        for (int32_t j = lo; j <= hi; j++, k++) {
            ci[k] = j;
            v[k] = j == i ? 4.0 : -1.0;
        }
        rp[i + 1] = k;
    }
    psl_matrix *A = from_rows(n, rp, ci, v);
    free(rp);
    free(ci);
    free(v);
    return A;
}

/* Without clusters a small matrix's slice of 1,000 positions needs the
 * finishing kernel of the split: the sliced predictions grow, CSR's stay,
 * and the pick moves from PackSELL to CSR. Cluster sizes round down to a
 * power of two and stop at 16, as the kernels take them. */
TEST(clusters_change_the_pick)
{
    psl_device_model def, m;
    CHECK_OK(psl_device_model_default(&def));
    psl_matrix *A = one_wide_row(2000, 1000);
    for (int p = 0; A && p < 2; p++) {
        psl_choice c1, c2, c3;
        m = def;
        m.cluster_max = 1;
        choose2(A, (psl_precision)p, &def, &m, &c1, &c2);
        CHECK_MSG(c1.candidates[c1.pick].opt.format == PSL_FORMAT_PACKSELL &&
                      c2.candidates[c2.pick].opt.format == PSL_FORMAT_CSR,
                  "%s: picks %s with clusters, %s without", psl_precision_name((psl_precision)p),
                  c1.candidates[c1.pick].kernel, c2.candidates[c2.pick].kernel);
        for (int i = 0; i < c1.ncandidates; i++) {
            const psl_candidate *k1 = &c1.candidates[i], *k2 = &c2.candidates[i];
            if (k1->opt.format == PSL_FORMAT_CSR)
                CHECK(k2->predicted_us == k1->predicted_us);
            else
                CHECK_MSG(k1->max_width >= 1000 && k2->predicted_us > k1->predicted_us,
                          "%s: %g us without clusters, %g with", k1->kernel, k2->predicted_us,
                          k1->predicted_us);
        }
        m.cluster_max = 31; /* 16 */
        choose2(A, (psl_precision)p, &def, &m, &c1, &c3);
        CHECK(same_choice(&c1, &c3));
        m.cluster_max = 64; /* 16 */
        choose2(A, (psl_precision)p, &def, &m, &c1, &c3);
        CHECK(same_choice(&c1, &c3));
        m.cluster_max = 3; /* 2 */
        psl_choice c4;
        psl_device_model two = def;
        two.cluster_max = 2;
        choose2(A, (psl_precision)p, &two, &m, &c4, &c3);
        CHECK(same_choice(&c4, &c3));
    }
    psl_matrix_destroy(&A);
}

/* A model field out of range is an error naming it; *choice untouched. */
TEST(bad_device_model)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "lap2d:20"));
    psl_device_model def;
    CHECK_OK(psl_device_model_default(&def));
    struct {
        const char *field;
        psl_device_model m;
    } bad[8];
    for (int i = 0; i < 8; i++)
        bad[i].m = def;
    bad[0].field = "sm_count", bad[0].m.sm_count = 0;
    bad[1].field = "threads_per_sm", bad[1].m.threads_per_sm = 31;
    bad[2].field = "l2_bytes", bad[2].m.l2_bytes = -1;
    bad[3].field = "copy_gbs", bad[3].m.copy_gbs = 0;
    bad[4].field = "copy_gbs", bad[4].m.copy_gbs = NAN;
    bad[5].field = "copy_gbs", bad[5].m.copy_gbs = INFINITY;
    bad[6].field = "cluster_max", bad[6].m.cluster_max = 0;
    bad[7].field = "sm_count", bad[7].m.sm_count = -5;
    for (int i = 0; A && i < 8; i++) {
        psl_choice c;
        memset(&c, 0x77, sizeof c);
        CHECK_ST(psl_choose_format(A, PSL_PREC_FP16, &bad[i].m, &c), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(strstr(psl_last_error_message(), bad[i].field) != NULL, "%s: %s",
                  bad[i].field, psl_last_error_message());
        CHECK(((unsigned char *)&c)[0] == 0x77 && ((unsigned char *)&c)[sizeof c - 1] == 0x77);
    }
    psl_matrix_destroy(&A);
}

/* The CPU chooser: the GPU's candidates with the library's CSR (its name
 * and host layout: 64-bit offsets), each prediction the model's roofline
 * computed here from the candidate's own figures; NULL is the default
 * model; deterministic; a host with much bandwidth per thread picks the
 * cheapest instructions, a starved one the fewest bytes; bad models are
 * named and leave *choice untouched. */
TEST(cpu_model)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "hpcg:5:5:5"));
    if (!A)
        return;
    psl_cpu_model def;
    CHECK_OK(psl_cpu_model_default(&def));
    CHECK(def.threads == 2 && def.read_gbs == 35.0 && def.llc_bytes == 32 << 20 &&
          strstr(def.name, "default CPU model") != NULL);
    const psl_precision precs[3] = {PSL_PREC_FP16, PSL_PREC_FP32, PSL_PREC_FP64};
    for (int i = 0; i < 3; i++) {
        psl_choice c, d, g;
        CHECK_OK(psl_choose_format_cpu(A, precs[i], NULL, &c));
        CHECK_OK(psl_choose_format_cpu(A, precs[i], &def, &d));
        CHECK_OK(psl_choose_format(A, precs[i], NULL, &g));
        CHECK(c.on_cpu == 1 && g.on_cpu == 0 && same_choice(&c, &d));
        CHECK(strcmp(c.cpu.name, def.name) == 0 && c.cpu.threads == 2);
        CHECK(c.ncandidates == g.ncandidates);
        for (int k = 0; k < c.ncandidates; k++) {
            const psl_candidate *ck = &c.candidates[k], *gk = &g.candidates[k];
            CHECK(ck->opt.format == gk->opt.format && ck->vec_type == gk->vec_type);
            if (ck->opt.format == PSL_FORMAT_CSR) {
                char want[32];
                snprintf(want, sizeof want, "csr-%s", psl_scalar_name(ck->opt.value_type));
                CHECK_MSG(strcmp(ck->kernel, want) == 0, "CPU CSR kernel %s", ck->kernel);
                const int64_t vs = (int64_t)psl_scalar_size(ck->opt.value_type);
                CHECK(ck->bytes == ((int64_t)A->nrows + 1) * 8 + A->nnz * (4 + vs));
            } else {
                CHECK(ck->bytes == gk->bytes && ck->sum_width == gk->sum_width);
            }
            /* the roofline: launch + max(bandwidth, compute), both positive */
            CHECK(ck->bandwidth_us > 0 && ck->latency_us > 0 &&
                  ck->predicted_us > fmax(ck->bandwidth_us, ck->latency_us) &&
                  ck->predicted_us < fmax(ck->bandwidth_us, ck->latency_us) + 100);
            if (k != c.pick)
                CHECK(c.candidates[c.pick].predicted_us <= ck->predicted_us);
        }
    }
    /* memory-starved: the fewest bytes (PackSELL FP16); bandwidth to spare:
     * every candidate bound by its instructions */
    psl_cpu_model slow = def, fast = def;
    slow.read_gbs = 0.01;
    slow.llc_bytes = 0;
    fast.read_gbs = 1e6;
    psl_choice cs, cf;
    CHECK_OK(psl_choose_format_cpu(A, PSL_PREC_FP16, &slow, &cs));
    CHECK_MSG(cs.candidates[cs.pick].opt.format == PSL_FORMAT_PACKSELL, "starved pick %s",
              cs.candidates[cs.pick].kernel);
    CHECK_OK(psl_choose_format_cpu(A, PSL_PREC_FP16, &fast, &cf));
    for (int k = 0; k < cf.ncandidates; k++)
        CHECK(cf.candidates[k].latency_us > cf.candidates[k].bandwidth_us);
    /* more threads: compute shrinks in proportion */
    psl_cpu_model many = def;
    many.threads = 8;
    psl_choice cm, c2;
    CHECK_OK(psl_choose_format_cpu(A, PSL_PREC_FP64, &many, &cm));
    CHECK_OK(psl_choose_format_cpu(A, PSL_PREC_FP64, &def, &c2));
    for (int k = 0; k < cm.ncandidates; k++)
        CHECK(rel_eq(cm.candidates[k].latency_us * 4, c2.candidates[k].latency_us));
    /* bad models */
    struct {
        const char *field;
        psl_cpu_model m;
    } bad[5];
    for (int i = 0; i < 5; i++)
        bad[i].m = def;
    bad[0].field = "threads", bad[0].m.threads = 0;
    bad[1].field = "read_gbs", bad[1].m.read_gbs = 0;
    bad[2].field = "read_gbs", bad[2].m.read_gbs = NAN;
    bad[3].field = "read_gbs", bad[3].m.read_gbs = INFINITY;
    bad[4].field = "llc_bytes", bad[4].m.llc_bytes = -1;
    for (int i = 0; i < 5; i++) {
        psl_choice c;
        memset(&c, 0x77, sizeof c);
        CHECK_ST(psl_choose_format_cpu(A, PSL_PREC_FP32, &bad[i].m, &c), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(strstr(psl_last_error_message(), bad[i].field) != NULL, "%s: %s",
                  bad[i].field, psl_last_error_message());
        CHECK(((unsigned char *)&c)[0] == 0x77 && ((unsigned char *)&c)[sizeof c - 1] == 0x77);
    }
    CHECK_ST(psl_cpu_model_default(NULL), PSL_ERR_NULL_POINTER);
    psl_matrix_destroy(&A);
}

/* psl_device_model_query: not supported without CUDA, an error without a
 * device, else the device's figures; *m untouched on error. */
TEST(device_model_query)
{
    psl_device_model m;
    memset(&m, 0x44, sizeof m);
    int count = 0;
    psl_status cs = psl_cuda_device_count(&count);
    psl_status st = psl_device_model_query(&m, 0, 0);
    if (cs == PSL_ERR_NOT_SUPPORTED || count == 0) {
        CHECK_ST(st, cs == PSL_ERR_NOT_SUPPORTED ? PSL_ERR_NOT_SUPPORTED : PSL_ERR_INVALID_VALUE);
        CHECK(((unsigned char *)&m)[0] == 0x44 && ((unsigned char *)&m)[sizeof m - 1] == 0x44);
    } else {
        CHECK_OK(st);
        CHECK(m.sm_count >= 1 && m.threads_per_sm >= 32 && m.l2_bytes > 0 &&
              m.copy_measured == 0 && m.cluster_max >= 1 && m.name[0]);
        psl_device_model m2;
        CHECK_ST(psl_device_model_query(&m2, count, 0), PSL_ERR_INVALID_VALUE);
        CHECK_ST(psl_device_model_query(&m2, -2, 0), PSL_ERR_INVALID_VALUE);
    }
    CHECK_ST(psl_device_model_query(NULL, 0, 0),
             cs == PSL_ERR_NOT_SUPPORTED ? PSL_ERR_NOT_SUPPORTED : PSL_ERR_NULL_POINTER);
}

static const psl_test_case tests[] = {
    {"candidates_match_conversions", candidates_match_conversions},
    {"regular_matrices_pick_packsell", regular_matrices_pick_packsell},
    {"one_huge_row_picks_csr", one_huge_row_picks_csr},
    {"value_range", value_range},
    {"empty_matrices", empty_matrices},
    {"bad_arguments", bad_arguments},
    {"deterministic_over_threads", deterministic_over_threads},
    {"default_device_model", default_device_model},
    {"smaller_device_changes_predictions", smaller_device_changes_predictions},
    {"clusters_change_the_pick", clusters_change_the_pick},
    {"bad_device_model", bad_device_model},
    {"device_model_query", device_model_query},
    {"cpu_model", cpu_model},
};
PSL_TEST_MAIN(tests)
