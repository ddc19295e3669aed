/*
 * test_spmv.c -- the CPU SpMV kernels and psl_spmv: hand-computed cases,
 * every format / value type / codec / vector type / C / sigma / permutation
 * on random matrices of several shapes against an FP64 oracle (tolerance from
 * the precision), bitwise equality of the OpenMP and reference kernels,
 * determinism over thread counts, edge cases (beta = 0 with NaN in y, Inf in
 * x at columns only padding sees, empty shapes, dummy words at the delta
 * limit) and argument errors. Matrices are built by tests/spmv_fixture.h,
 * independently of the converters.
 */
#include "spmv_fixture.h"
#include "kernels/kernels.h"

#include <math.h>
#include <omp.h>


/* Handle of kind k for m. */
static psl_matrix *build(const tcsr *m, const fx_kind *k, int32_t C, int32_t sigma, psl_permute pm)
{
    if (k->f == PSL_FORMAT_CSR)
        return fx_csr(m, k->vt);
    return fx_sliced(m, k->f, k->vt, k->codec, C, sigma, pm);
}

/* Run kernel on A (y starts as a copy of y0) and check it against the
 * oracle; also run the other kernel and require the same bits. */
static void run_and_check(const psl_matrix *A, const tcsr *R, const tvec *x, double alpha,
                          const tvec *y0, double beta, const char *label)
{
    size_t bytes = (size_t)(y0->n ? y0->n : 1) * psl_scalar_size(y0->t);
    void *yo = malloc(bytes), *yr = malloc(bytes);
    memcpy(yo, y0->p, bytes);
    memcpy(yr, y0->p, bytes);
    CHECK_OK(psl_spmv_named("omp", alpha, A, x->p, beta, yo, x->t));
    CHECK_OK(psl_spmv_named("ref", alpha, A, x->p, beta, yr, x->t));
    CHECK_MSG(fx_check_against_oracle(A, R, x, alpha, y0, beta, yo, label) == 0, "%s", label);
    CHECK_MSG(tvec_same_bits(yo, yr, y0->t, y0->n), "%s: omp and ref bits differ", label);
    free(yo);
    free(yr);
}

TEST(hand_computed)
{
    /* A = [1 0 2 0; 0 0 0 0; 0 4 0 -1], x = [1 2 3 4], y0 = [1 1 1]:
     * A x = [7 0 4], 2 A x + y0 = [15 1 9] (values exact in every codec). */
    int64_t rp[] = {0, 2, 2, 4};
    int32_t ci[] = {0, 2, 1, 3};
    double v[] = {1, 2, 4, -1};
    tcsr m = {3, 4, rp, ci, v};
    const double expect[] = {15, 1, 9};
    for (int k = 0; k < FX_NKINDS; k++)
        for (int vi = 0; vi < 3; vi++) {
            psl_matrix *A = build(&m, &fx_kinds[k], 2, 2, PSL_PERMUTE_IMPLICIT);
            tvec x = tvec_random(fx_vec_types[vi], 4, 1), y = tvec_random(fx_vec_types[vi], 3, 2);
            for (int i = 0; i < 4; i++)
                tvec_set(&x, i, i + 1);
            for (int i = 0; i < 3; i++)
                tvec_set(&y, i, 1);
            const char *kn[] = {"ref", "omp"};
            for (int r = 0; r < 2; r++) {
                tvec yy = tvec_random(fx_vec_types[vi], 3, 2);
                for (int i = 0; i < 3; i++)
                    tvec_set(&yy, i, 1);
                CHECK_OK(psl_spmv_named(kn[r], 2.0, A, x.p, 1.0, yy.p, fx_vec_types[vi]));
                for (int i = 0; i < 3; i++) {
                    tvec_set(&yy, i, fx_vec_types[vi] == PSL_FP64 ? ((double *)yy.p)[i]
                                     : fx_vec_types[vi] == PSL_FP32
                                         ? ((float *)yy.p)[i]
                                         : psl_half_to_float(((uint16_t *)yy.p)[i]));
                    CHECK_MSG(yy.d[i] == expect[i], "%s %s vec %d row %d: %g", fx_kinds[k].name,
                              kn[r], vi, i, yy.d[i]);
                }
                tvec_free(&yy);
            }
            tvec_free(&x);
            tvec_free(&y);
            psl_matrix_destroy(&A);
        }
}

TEST(hand_packsell_words)
{
    /* e8m21: D = 1, so every delta >= 2 needs a dummy word. One row with
     * 0.5 at column 0 and 3 at column 5, x = [1..6]: y = 0.5*1 + 3*6 = 18.5.
     * Words: [0.5|0|1] [5<<1] [3|0|1]. */
    psl_matrix *A = psl_matrix_new(PSL_FORMAT_PACKSELL, 1, 6);
    A->nnz = 2;
    A->C = 1;
    A->nslices = 1;
    A->codec = (psl_codec){8, 21};
    A->delta_bits = 1;
    A->slice_ptr = malloc(2 * sizeof(int64_t));
    A->slice_ptr[0] = 0;
    A->slice_ptr[1] = 4;
    A->words = malloc(4 * sizeof(uint32_t));
    uint32_t b05, b3;
    CHECK_OK(psl_codec_encode(A->codec, PSL_OVERFLOW_ERROR, 0.5, &b05));
    CHECK_OK(psl_codec_encode(A->codec, PSL_OVERFLOW_ERROR, 3.0, &b3));
    A->words[0] = psl_word_entry(b05, 0, 1);
    A->words[1] = psl_word_dummy(5);
    A->words[2] = psl_word_entry(b3, 0, 1);
    A->words[3] = 0; /* trailing padding */
    CHECK(A->words[0] == ((0x3f000000u >> 2) << 2 | 1u));
    double x[6] = {1, 2, 3, 4, 5, 6}, y[1] = {NAN};
    CHECK_OK(psl_spmv_named("ref", 1.0, A, x, 0.0, y, PSL_FP64));
    CHECK(y[0] == 18.5);
    y[0] = NAN;
    CHECK_OK(psl_spmv_named("omp", 1.0, A, x, 0.0, y, PSL_FP64));
    CHECK(y[0] == 18.5);
    psl_matrix_destroy(&A);
}

/* Shapes of the random battery. */
typedef struct shape {
    int32_t nrows, ncols;
    int k, kind;
    const char *name;
} shape;

static const shape shapes[] = {
    {200, 200, 5, 0, "square"},   {300, 50, 4, 1, "tall-empty-rows"},
    {50, 400, 8, 0, "wide"},      {150, 150, 3, 2, "long-rows"},
    {40, 100000, 20, 3, "scattered"}, {120, 120, 3, 4, "banded"},
};
#define NSHAPES ((int)(sizeof shapes / sizeof shapes[0]))

TEST(battery_all_kinds)
{
    const int32_t Cs[] = {1, 4, 32};
    const double ab[][2] = {{1.0, 0.0}, {-0.75, 0.5}, {2.0, 1.0}};
    int run = 0;
    for (int s = 0; s < NSHAPES; s++) {
        tcsr m = tcsr_random(shapes[s].nrows, shapes[s].ncols, shapes[s].k, shapes[s].kind,
                             100 + (unsigned)s);
        for (int k = 0; k < FX_NKINDS; k++) {
            tcsr R = fx_rounded(&m, fx_kinds[k].f, fx_kinds[k].vt, fx_kinds[k].codec);
            for (int ci = 0; ci < 3; ci++)
                for (int si = 0; si < 3; si++)
                    for (int p = 0; p < 2; p++) {
                        int32_t C = Cs[ci], sigma = si == 0 ? 0 : si == 1 ? C : 256;
                        if (fx_kinds[k].f == PSL_FORMAT_CSR && (ci || si || p))
                            continue; /* CSR has no slices */
                        psl_matrix *A = build(&m, &fx_kinds[k], C, sigma, (psl_permute)p);
                        for (int vi = 0; vi < 3; vi++) {
                            char label[160];
                            snprintf(label, sizeof label, "%s %s C=%d sigma=%d %s vec=%d",
                                     shapes[s].name, fx_kinds[k].name, (int)C, (int)sigma,
                                     p ? "explicit" : "implicit", vi);
                            tvec x = tvec_random(fx_vec_types[vi], m.ncols, 7 + (unsigned)run);
                            tvec y0 = tvec_random(fx_vec_types[vi], m.nrows, 9 + (unsigned)run);
                            const double *c = ab[run % 3];
                            run_and_check(A, &R, &x, c[0], &y0, c[1], label);
                            run++;
                            tvec_free(&x);
                            tvec_free(&y0);
                        }
                        psl_matrix_destroy(&A);
                    }
            tcsr_free(&R);
        }
        tcsr_free(&m);
    }
    CHECK(run > 1000);
}

TEST(alpha_beta_combinations)
{
    tcsr m = tcsr_random(97, 80, 6, 1, 5);
    const double alphas[] = {0.0, 1.0, -2.5, 0.1, 0x1p-30}, betas[] = {0.0, 1.0, -0.5, 1.0 / 3};
    for (int k = 0; k < FX_NKINDS; k++) {
        tcsr R = fx_rounded(&m, fx_kinds[k].f, fx_kinds[k].vt, fx_kinds[k].codec);
        psl_matrix *A = build(&m, &fx_kinds[k], 8, 16, PSL_PERMUTE_IMPLICIT);
        for (int vi = 0; vi < 3; vi++)
            for (int a = 0; a < 5; a++)
                for (int b = 0; b < 4; b++) {
                    char label[96];
                    snprintf(label, sizeof label, "%s vec=%d alpha=%g beta=%g", fx_kinds[k].name, vi,
                             alphas[a], betas[b]);
                    tvec x = tvec_random(fx_vec_types[vi], m.ncols, 3);
                    tvec y0 = tvec_random(fx_vec_types[vi], m.nrows, 4);
                    run_and_check(A, &R, &x, alphas[a], &y0, betas[b], label);
                    tvec_free(&x);
                    tvec_free(&y0);
                }
        psl_matrix_destroy(&A);
        tcsr_free(&R);
    }
    tcsr_free(&m);
}

/* True when every element of a typed vector is finite (or NaN-free). */
static int all_finite(const void *y, psl_scalar t, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double v = t == PSL_FP64 ? ((const double *)y)[i]
                   : t == PSL_FP32 ? ((const float *)y)[i]
                                   : psl_half_to_float(((const uint16_t *)y)[i]);
        if (!isfinite(v))
            return 0;
    }
    return 1;
}

TEST(beta_zero_ignores_nan_in_y)
{
    tcsr m = tcsr_random(64, 64, 4, 1, 11);
    for (int k = 0; k < FX_NKINDS; k++) {
        psl_matrix *A = build(&m, &fx_kinds[k], 4, 8, PSL_PERMUTE_IMPLICIT);
        for (int vi = 0; vi < 3; vi++) {
            tvec x = tvec_random(fx_vec_types[vi], m.ncols, 1);
            tvec y = tvec_random(fx_vec_types[vi], m.nrows, 1);
            const char *kn[] = {"ref", "omp"};
            for (int r = 0; r < 2; r++) {
                for (int i = 0; i < m.nrows; i++)
                    tvec_set(&y, i, NAN);
                CHECK_OK(psl_spmv_named(kn[r], 1.0, A, x.p, 0.0, y.p, fx_vec_types[vi]));
                CHECK_MSG(all_finite(y.p, fx_vec_types[vi], m.nrows), "%s %s vec=%d",
                          fx_kinds[k].name, kn[r], vi);
            }
            tvec_free(&x);
            tvec_free(&y);
        }
        psl_matrix_destroy(&A);
    }
    tcsr_free(&m);
}

/* x = Inf at every column no entry uses: padding and dummies must not see
 * it. Includes rows whose padding sits at a block start column no entry
 * uses (row i has columns i+5, i+10; rows 0 and 6 empty: kleft < 0). */
TEST(inf_in_x_at_unused_columns)
{
    int64_t rp[9];
    int32_t ci[16];
    double v[16];
    int64_t nz = 0;
    for (int i = 0; i < 8; i++) {
        rp[i] = nz;
        if (i == 0 || i == 6)
            continue;
        ci[nz] = i + 5;
        v[nz++] = 1.0 + i;
        ci[nz] = i + 10;
        v[nz++] = -0.5;
    }
    rp[8] = nz;
    tcsr hand = {8, 20, rp, ci, v};
    tcsr rnd = tcsr_random(90, 300, 3, 1, 21);
    const tcsr *ms[] = {&hand, &rnd};
    for (int mi = 0; mi < 2; mi++) {
        const tcsr *m = ms[mi];
        char *used = calloc((size_t)m->ncols, 1);
        for (int64_t q = 0; q < m->rp[m->nrows]; q++)
            used[m->ci[q]] = 1;
        for (int k = 0; k < FX_NKINDS; k++)
            for (int c = 0; c < 3; c++) {
                int32_t C = c == 0 ? 1 : c == 1 ? 4 : 32, sigma = c == 2 ? 32 : 0;
                psl_matrix *A = build(m, &fx_kinds[k], C, sigma, PSL_PERMUTE_IMPLICIT);
                for (int vi = 0; vi < 3; vi++) {
                    tvec x = tvec_random(fx_vec_types[vi], m->ncols, 2);
                    tvec y = tvec_random(fx_vec_types[vi], m->nrows, 3);
                    for (int32_t j = 0; j < m->ncols; j++)
                        if (!used[j])
                            tvec_set(&x, j, INFINITY);
                    const char *kn[] = {"ref", "omp"};
                    for (int r = 0; r < 2; r++) {
                        CHECK_OK(psl_spmv_named(kn[r], 1.0, A, x.p, 0.5, y.p, fx_vec_types[vi]));
                        CHECK_MSG(all_finite(y.p, fx_vec_types[vi], m->nrows), "%d %s %s C=%d vec=%d",
                                  mi, fx_kinds[k].name, kn[r], (int)C, vi);
                    }
                    tvec_free(&x);
                    tvec_free(&y);
                }
                psl_matrix_destroy(&A);
            }
        free(used);
    }
    tcsr_free(&rnd);
}

TEST(nan_in_x_propagates_like_csr)
{
    tcsr m = tcsr_random(60, 60, 4, 0, 31);
    int32_t col = m.ci[0]; /* used by row 0 */
    for (int k = 0; k < FX_NKINDS; k++) {
        psl_matrix *A = build(&m, &fx_kinds[k], 4, 8, PSL_PERMUTE_EXPLICIT);
        int32_t order[60];
        CHECK_OK(psl_matrix_row_order(A, order));
        tvec x = tvec_random(PSL_FP64, m.ncols, 2);
        tvec_set(&x, col, NAN);
        double y[60];
        CHECK_OK(psl_spmv_named("omp", 1.0, A, x.p, 0.0, y, PSL_FP64));
        for (int s = 0; s < 60; s++) {
            int uses = 0;
            for (int64_t q = m.rp[order[s]]; q < m.rp[order[s] + 1]; q++)
                uses |= m.ci[q] == col;
            CHECK_MSG((isnan(y[s]) ? 1 : 0) == uses, "%s stored row %d", fx_kinds[k].name, s);
        }
        tvec_free(&x);
        psl_matrix_destroy(&A);
    }
    tcsr_free(&m);
}

TEST(empty_shapes)
{
    /* nrows = 0, ncols = 0, and nnz = 0 with columns: y = beta*y, x unread
     * (NULL allowed when there are no columns). */
    const int32_t dims[][2] = {{0, 5}, {0, 0}, {7, 0}, {7, 9}};
    for (int d = 0; d < 4; d++) {
        int32_t nr = dims[d][0], nc = dims[d][1];
        int64_t *rp = calloc((size_t)nr + 1, sizeof(int64_t));
        tcsr m = {nr, nc, rp, NULL, NULL};
        for (int k = 0; k < FX_NKINDS; k++)
            for (int vi = 0; vi < 3; vi++) {
                psl_matrix *A = build(&m, &fx_kinds[k], 4, 4, PSL_PERMUTE_IMPLICIT);
                tvec x = tvec_random(fx_vec_types[vi], nc, 1);
                for (int32_t j = 0; j < nc; j++)
                    tvec_set(&x, j, NAN);
                tvec y = tvec_random(fx_vec_types[vi], nr, 5);
                const char *kn[] = {"ref", "omp"};
                for (int r = 0; r < 2; r++) {
                    tvec yy = tvec_random(fx_vec_types[vi], nr, 5);
                    CHECK_OK(psl_spmv_named(kn[r], 3.0, A, nc ? x.p : NULL, 0.5,
                                            nr ? yy.p : NULL, fx_vec_types[vi]));
                    for (int32_t i = 0; i < nr; i++) {
                        double got = fx_vec_types[vi] == PSL_FP64 ? ((double *)yy.p)[i]
                                     : fx_vec_types[vi] == PSL_FP32
                                         ? ((float *)yy.p)[i]
                                         : psl_half_to_float(((uint16_t *)yy.p)[i]);
                        CHECK_MSG(got == 0.5 * y.d[i] ||
                                      (fx_vec_types[vi] == PSL_FP16 &&
                                       fabs(got - 0.5 * y.d[i]) <= 0x1p-11 * fabs(y.d[i])),
                                  "%dx%d %s %s vec=%d row %d", (int)nr, (int)nc, fx_kinds[k].name,
                                  kn[r], vi, (int)i);
                    }
                    tvec_free(&yy);
                }
                tvec_free(&x);
                tvec_free(&y);
                psl_matrix_destroy(&A);
            }
        free(rp);
    }
}

TEST(explicit_equals_implicit_reordered)
{
    tcsr m = tcsr_random(333, 250, 6, 2, 41);
    for (int k = 2; k < FX_NKINDS; k++) /* sliced kinds */
        for (int vi = 0; vi < 3; vi++) {
            psl_matrix *Ai = build(&m, &fx_kinds[k], 4, 64, PSL_PERMUTE_IMPLICIT);
            psl_matrix *Ae = build(&m, &fx_kinds[k], 4, 64, PSL_PERMUTE_EXPLICIT);
            int32_t order[333];
            CHECK_OK(psl_matrix_row_order(Ae, order));
            tvec x = tvec_random(fx_vec_types[vi], m.ncols, 8);
            tvec yi = tvec_random(fx_vec_types[vi], m.nrows, 9);
            tvec ye = tvec_random(fx_vec_types[vi], m.nrows, 9);
            /* same y0 seen through the permutation */
            for (int s = 0; s < 333; s++)
                tvec_set(&ye, s, yi.d[order[s]]);
            CHECK_OK(psl_spmv(1.25, Ai, x.p, -1.0, yi.p, fx_vec_types[vi]));
            CHECK_OK(psl_spmv(1.25, Ae, x.p, -1.0, ye.p, fx_vec_types[vi]));
            size_t es = psl_scalar_size(fx_vec_types[vi]);
            int same = 1;
            for (int s = 0; s < 333; s++)
                same &= memcmp((char *)ye.p + s * es, (char *)yi.p + order[s] * es, es) == 0;
            CHECK_MSG(same, "%s vec=%d", fx_kinds[k].name, vi);
            tvec_free(&x);
            tvec_free(&yi);
            tvec_free(&ye);
            psl_matrix_destroy(&Ai);
            psl_matrix_destroy(&Ae);
        }
    tcsr_free(&m);
}

TEST(packsell_delta_limits)
{
    /* Deltas of 2^D - 1 (one word) and 2^D, 2^D + 1 (dummy + word) for
     * several D, and a first column far from the block start. */
    const psl_codec codecs[] = {{8, 21}, {8, 14}, {5, 10}, {6, 5}}; /* D = 1, 8, 15, 19 */
    for (int c = 0; c < 4; c++) {
        int D = psl_codec_delta_bits(codecs[c]);
        int64_t lim = (int64_t)1 << D;
        int32_t ncols = (int32_t)(3 * lim + 10);
        /* row 0: deltas 0, 2^D - 1, 2^D; row 1: 1, 2^D + 1; row 2: far column */
        int64_t rp[4] = {0, 3, 5, 6};
        int32_t ci[6] = {0, (int32_t)(lim - 1), (int32_t)(2 * lim - 1), 1, (int32_t)(lim + 2),
                         ncols - 1};
        double v[6] = {1, 2, 4, -1, 0.5, 8};
        tcsr m = {3, ncols, rp, ci, v};
        fx_kind k = {PSL_FORMAT_PACKSELL, PSL_FP64, codecs[c], "packsell"};
        tcsr R = fx_rounded(&m, k.f, k.vt, k.codec);
        psl_matrix *A = build(&m, &k, 2, 0, PSL_PERMUTE_IMPLICIT);
        CHECK_MSG(A->dummies == 3, "D=%d dummies %lld", D, (long long)A->dummies);
        for (int vi = 0; vi < 3; vi++) {
            tvec x = tvec_random(fx_vec_types[vi], ncols, 1);
            tvec y0 = tvec_random(fx_vec_types[vi], 3, 2);
            run_and_check(A, &R, &x, 1.0, &y0, 0.0, "delta limits");
            tvec_free(&x);
            tvec_free(&y0);
        }
        psl_matrix_destroy(&A);
        tcsr_free(&R);
    }
}

TEST(thread_count_determinism)
{
    tcsr m = tcsr_random(6000, 6000, 6, 2, 51);
    int saved = omp_get_max_threads();
    for (int k = 0; k < FX_NKINDS; k++) {
        psl_matrix *A = build(&m, &fx_kinds[k], 32, 256, PSL_PERMUTE_IMPLICIT);
        for (int vi = 0; vi < 3; vi++) {
            tvec x = tvec_random(fx_vec_types[vi], m.ncols, 1);
            tvec y1 = tvec_random(fx_vec_types[vi], m.nrows, 2);
            tvec y2 = tvec_random(fx_vec_types[vi], m.nrows, 2);
            tvec y3 = tvec_random(fx_vec_types[vi], m.nrows, 2);
            omp_set_num_threads(1);
            CHECK_OK(psl_spmv_named("omp", 0.5, A, x.p, 2.0, y1.p, fx_vec_types[vi]));
            omp_set_num_threads(2);
            CHECK_OK(psl_spmv_named("omp", 0.5, A, x.p, 2.0, y2.p, fx_vec_types[vi]));
            omp_set_num_threads(3);
            CHECK_OK(psl_spmv_named("omp", 0.5, A, x.p, 2.0, y3.p, fx_vec_types[vi]));
            CHECK_MSG(tvec_same_bits(y1.p, y2.p, fx_vec_types[vi], m.nrows) &&
                          tvec_same_bits(y1.p, y3.p, fx_vec_types[vi], m.nrows),
                      "%s vec=%d", fx_kinds[k].name, vi);
            tvec_free(&x);
            tvec_free(&y1);
            tvec_free(&y2);
            tvec_free(&y3);
        }
        psl_matrix_destroy(&A);
    }
    omp_set_num_threads(saved);
    tcsr_free(&m);
}

TEST(kernel_option_choice)
{
    tcsr m = tcsr_random(500, 500, 5, 0, 61);
    psl_matrix *A = build(&m, &fx_kinds[8], 32, 256, PSL_PERMUTE_IMPLICIT);
    tvec x = tvec_random(PSL_FP32, m.ncols, 1);
    tvec y1 = tvec_random(PSL_FP32, m.nrows, 2), y2 = tvec_random(PSL_FP32, m.nrows, 2);
    CHECK_OK(psl_option_set("PSL_KERNEL", NULL));
    CHECK(strcmp(psl_spmv_kernel_name(A, PSL_FP32), "omp") == 0);
    CHECK_OK(psl_spmv(1.0, A, x.p, 1.0, y1.p, PSL_FP32));
    CHECK_OK(psl_option_set("PSL_KERNEL", "ref"));
    CHECK(strcmp(psl_spmv_kernel_name(A, PSL_FP32), "ref") == 0);
    CHECK_OK(psl_spmv(1.0, A, x.p, 1.0, y2.p, PSL_FP32));
    CHECK(tvec_same_bits(y1.p, y2.p, PSL_FP32, m.nrows));
    /* an unknown backend: rejected by the option (which keeps "ref") and by
     * psl_spmv_named, leaving y untouched */
    CHECK_ST(psl_option_set("PSL_KERNEL", "avx9000"), PSL_ERR_INVALID_VALUE);
    CHECK_MSG(strstr(psl_last_error_message(), "avx9000") &&
                  strstr(psl_last_error_message(), "PSL_KERNEL") &&
                  strstr(psl_last_error_message(), "auto|omp|ref"),
              "%s", psl_last_error_message());
    CHECK(strcmp(psl_spmv_kernel_name(A, PSL_FP32), "ref") == 0);
    memcpy(y2.p, y1.p, (size_t)m.nrows * 4);
    CHECK_ST(psl_spmv_named("avx9000", 1.0, A, x.p, 1.0, y2.p, PSL_FP32),
             PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "avx9000") != NULL);
    CHECK(tvec_same_bits(y1.p, y2.p, PSL_FP32, m.nrows)); /* untouched */
    CHECK_OK(psl_option_set("PSL_KERNEL", NULL));
    CHECK(strcmp(psl_spmv_kernel_name(A, PSL_BF16), "none") == 0);
    CHECK(strcmp(psl_spmv_kernel_name(NULL, PSL_FP64), "none") == 0);
    tvec_free(&x);
    tvec_free(&y1);
    tvec_free(&y2);
    psl_matrix_destroy(&A);
    tcsr_free(&m);
}

TEST(bad_arguments)
{
    tcsr m = tcsr_random(10, 8, 3, 0, 71);
    psl_matrix *A = build(&m, &fx_kinds[6], 4, 0, PSL_PERMUTE_IMPLICIT);
    double x[8] = {0}, y[10], keep[10];
    for (int i = 0; i < 10; i++)
        y[i] = keep[i] = i + 0.5;
    CHECK_ST(psl_spmv(1, NULL, x, 0, y, PSL_FP64), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_spmv(1, A, NULL, 0, y, PSL_FP64), PSL_ERR_NULL_POINTER);
    CHECK(strstr(psl_last_error_message(), "x") != NULL);
    CHECK_ST(psl_spmv(1, A, x, 0, NULL, PSL_FP64), PSL_ERR_NULL_POINTER);
    CHECK(strstr(psl_last_error_message(), "y") != NULL);
    CHECK_ST(psl_spmv(1, A, x, 0, y, PSL_BF16), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_spmv(1, A, x, 0, y, (psl_scalar)7), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "vector type 7") != NULL);
    CHECK_ST(psl_spmv(1, A, y + 2, 0, y, PSL_FP64), PSL_ERR_INVALID_VALUE); /* overlap */
    CHECK(strstr(psl_last_error_message(), "overlap") != NULL);
    CHECK_ST(psl_spmv_named("nope", 1, A, x, 0, y, PSL_FP64), PSL_ERR_INVALID_VALUE);
    psl_matrix fake;
    memset(&fake, 0, sizeof fake);
    fake.magic = PSL_DEAD_MAGIC;
    CHECK_ST(psl_spmv(1, &fake, x, 0, y, PSL_FP64), PSL_ERR_INVALID_HANDLE);
    CHECK(memcmp(y, keep, sizeof y) == 0);
    /* adjacent (not overlapping) x and y are fine */
    double xy[18] = {0};
    CHECK_OK(psl_spmv(1, A, xy, 0, xy + 8, PSL_FP64));
    psl_matrix_destroy(&A);
    tcsr_free(&m);
}

static const psl_test_case tests[] = {
    {"hand_computed", hand_computed},
    {"hand_packsell_words", hand_packsell_words},
    {"battery_all_kinds", battery_all_kinds},
    {"alpha_beta_combinations", alpha_beta_combinations},
    {"beta_zero_ignores_nan_in_y", beta_zero_ignores_nan_in_y},
    {"inf_in_x_at_unused_columns", inf_in_x_at_unused_columns},
    {"nan_in_x_propagates_like_csr", nan_in_x_propagates_like_csr},
    {"empty_shapes", empty_shapes},
    {"explicit_equals_implicit_reordered", explicit_equals_implicit_reordered},
    {"packsell_delta_limits", packsell_delta_limits},
    {"thread_count_determinism", thread_count_determinism},
    {"kernel_option_choice", kernel_option_choice},
    {"bad_arguments", bad_arguments},
};
PSL_TEST_MAIN(tests)
