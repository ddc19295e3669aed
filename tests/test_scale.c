/*
 * test_scale.c -- the library calls that serve the command, the tests and
 * the solvers: row scaling G^-1 A, symmetric diagonal scaling
 * Gbar^-1 A Gbar^-1, y = D^-1 x, the backward error of a product, and the
 * names of formats and scalar types. Each call is checked against a
 * reference written here with dense arrays or plain loops, on hand-worked
 * cases and generated matrices, and on bad input (status, message, outputs
 * left untouched).
 */
#include "packsell.h"
#include "harness.h"
#include "internal.h"

#include <math.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- helpers */

/* A copy of the arrays of an FP64 CSR matrix (to compare before/after). */
typedef struct csr_copy {
    int32_t nrows, ncols;
    int64_t nnz;
    int64_t *rp;
    int32_t *ci;
    double *v;
} csr_copy;

static csr_copy csr_get(const psl_matrix *A)
{
    csr_copy c = {0};
    psl_matrix_info in;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    if (psl_matrix_get_info(A, &in) != PSL_OK || psl_matrix_csr_view(A, &rp, &ci, &v) != PSL_OK)
        return c;
    c.nrows = in.nrows;
    c.ncols = in.ncols;
    c.nnz = in.nnz;
    c.rp = malloc(sizeof *c.rp * (size_t)(c.nrows + 1));
    c.ci = malloc(sizeof *c.ci * (size_t)(c.nnz + 1));
    c.v = malloc(sizeof *c.v * (size_t)(c.nnz + 1));
    memcpy(c.rp, rp, sizeof *c.rp * (size_t)(c.nrows + 1));
    memcpy(c.ci, ci, sizeof *c.ci * (size_t)c.nnz);
    memcpy(c.v, v, sizeof *c.v * (size_t)c.nnz);
    return c;
}

static void csr_free(csr_copy *c)
{
    free(c->rp);
    free(c->ci);
    free(c->v);
}

/* Same shape, pattern and value bits. */
static int csr_same(const csr_copy *a, const csr_copy *b)
{
    return a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
           memcmp(a->rp, b->rp, sizeof *a->rp * (size_t)(a->nrows + 1)) == 0 &&
           memcmp(a->ci, b->ci, sizeof *a->ci * (size_t)a->nnz) == 0 &&
           memcmp(a->v, b->v, sizeof *a->v * (size_t)a->nnz) == 0;
}

/* Same shape and pattern (values aside). */
static int same_pattern(const csr_copy *a, const csr_copy *b)
{
    return a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
           memcmp(a->rp, b->rp, sizeof *a->rp * (size_t)(a->nrows + 1)) == 0 &&
           memcmp(a->ci, b->ci, sizeof *a->ci * (size_t)a->nnz) == 0;
}

/* The dense nrows x ncols array of a CSR copy (row-major). */
static double *dense(const csr_copy *c)
{
    double *d = calloc((size_t)c->nrows * (size_t)c->ncols + 1, sizeof *d);
    for (int32_t i = 0; i < c->nrows; i++)
        for (int64_t k = c->rp[i]; k < c->rp[i + 1]; k++)
            d[(size_t)i * (size_t)c->ncols + (size_t)c->ci[k]] = c->v[k];
    return d;
}

static psl_matrix *make(int32_t m, int32_t n, const int64_t *rp, const int32_t *ci,
                        const double *v)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, m, n, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT));
    return A;
}

static const char *const gen_specs[] = {"hpcg:3:3:3", "lap2d:17:9", "hpgmp:3:3:2",
                                        "powerlaw:400:6:1.5", "random:300:4:7",
                                        "banded:500:20:9:3"};
#define NGEN (sizeof gen_specs / sizeof gen_specs[0])

/* ---- names */

TEST(names_round_trip)
{
    static const char *const fmt[] = {"csr", "sell", "packsell", "csrk"};
    static const char *const fmt_upper[] = {"CSR", "Sell", "PackSELL", "CSRK"};
    for (int f = 0; f < 4; f++) {
        CHECK_MSG(strcmp(psl_format_name((psl_format)f), fmt[f]) == 0, "format %d: %s", f,
                  psl_format_name((psl_format)f));
        psl_format out = (psl_format)99;
        CHECK_OK(psl_format_parse(psl_format_name((psl_format)f), &out));
        CHECK(out == (psl_format)f);
        out = (psl_format)99;
        CHECK_OK(psl_format_parse(fmt_upper[f], &out));
        CHECK(out == (psl_format)f);
    }
    static const char *const sc[] = {"fp64", "fp32", "fp16", "bf16"};
    static const char *const sc_upper[] = {"FP64", "Fp32", "fP16", "BF16"};
    for (int s = 0; s < 4; s++) {
        CHECK_MSG(strcmp(psl_scalar_name((psl_scalar)s), sc[s]) == 0, "scalar %d: %s", s,
                  psl_scalar_name((psl_scalar)s));
        psl_scalar out = (psl_scalar)99;
        CHECK_OK(psl_scalar_parse(psl_scalar_name((psl_scalar)s), &out));
        CHECK(out == (psl_scalar)s);
        out = (psl_scalar)99;
        CHECK_OK(psl_scalar_parse(sc_upper[s], &out));
        CHECK(out == (psl_scalar)s);
    }
    CHECK(PSL_FORMAT_CSR == 0 && PSL_FORMAT_PACKSELL == 2 && PSL_FORMAT_CSRK == 3 && PSL_FP64 == 0 && PSL_BF16 == 3);
}

TEST(names_invalid)
{
    CHECK(strcmp(psl_format_name((psl_format)(PSL_FORMAT_CSRK + 1)), "?") == 0);
    CHECK(strcmp(psl_format_name((psl_format)-1), "?") == 0);
    CHECK(strcmp(psl_scalar_name((psl_scalar)4), "?") == 0);
    CHECK(strcmp(psl_scalar_name((psl_scalar)-1), "?") == 0);

    static const char *const bad[] = {"", "cs", "csrx", "sell ", " sell", "pack-sell", "fp64",
                                      "auto"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        psl_format f = (psl_format)77;
        CHECK_ST(psl_format_parse(bad[i], &f), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(f == (psl_format)77, "'%s' wrote the output", bad[i]);
        const char *msg = psl_last_error_message();
        CHECK_MSG(strstr(msg, "csr, sell, packsell or csrk") != NULL, "'%s': %s", bad[i], msg);
    }
    static const char *const bads[] = {"", "fp8", "fp644", "double", "f64", "bf 16", "csr"};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        psl_scalar s = (psl_scalar)77;
        CHECK_ST(psl_scalar_parse(bads[i], &s), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(s == (psl_scalar)77, "'%s' wrote the output", bads[i]);
        const char *msg = psl_last_error_message();
        CHECK_MSG(strstr(msg, "fp64, fp32, fp16 or bf16") != NULL && strstr(msg, bads[i]),
                  "'%s': %s", bads[i], msg);
    }
    psl_format f = (psl_format)77;
    psl_scalar s = (psl_scalar)77;
    CHECK_ST(psl_format_parse(NULL, &f), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_format_parse("csr", NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_scalar_parse(NULL, &s), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_scalar_parse("fp64", NULL), PSL_ERR_NULL_POINTER);
    CHECK(f == (psl_format)77 && s == (psl_scalar)77);
}

/* ---- row scaling */

TEST(scale_rows_hand)
{
    /* 4 x 3:  [ 2  .  -6 ]   g = 8:  [ 1/4   .   -3/4 ]
     *         [ .  .   . ]   g = 1 (empty)
     *         [ .  0   . ]   g = 1 (explicit zero only): kept
     *         [ 1  1   1 ]   g = 3:  [ 1/3  1/3   1/3 ] */
    const int64_t rp[] = {0, 2, 2, 3, 6};
    const int32_t ci[] = {0, 2, 1, 0, 1, 2};
    const double v[] = {2, -6, 0, 1, 1, 1};
    psl_matrix *A = make(4, 3, rp, ci, v), *B = NULL;
    csr_copy before = csr_get(A);
    double g[4] = {-1, -1, -1, -1};
    CHECK_OK(psl_matrix_scale_rows(&B, A, g));
    csr_copy a = csr_get(A), b = csr_get(B);
    CHECK(csr_same(&a, &before)); /* the input is untouched */
    CHECK(same_pattern(&a, &b));
    const double want[] = {0.25, -0.75, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3};
    for (int k = 0; k < 6; k++)
        CHECK_MSG(b.v[k] == want[k], "entry %d: %.17g, expected %.17g", k, b.v[k], want[k]);
    CHECK(g[0] == 8 && g[1] == 1 && g[2] == 1 && g[3] == 3);
    CHECK(signbit(b.v[2]) == 0);
    /* a new handle: destroying the input keeps the output */
    psl_matrix_destroy(&A);
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(B, &info));
    CHECK(info.format == PSL_FORMAT_CSR && info.value_type == PSL_FP64 && info.nrows == 4 &&
          info.ncols == 3 && info.nnz == 6 && info.max_row_nnz == 3);
    /* g is optional */
    psl_matrix *C = NULL;
    CHECK_OK(psl_matrix_scale_rows(&C, B, NULL));
    csr_copy c = csr_get(C);
    CHECK(same_pattern(&b, &c));
    csr_free(&before);
    csr_free(&a);
    csr_free(&b);
    csr_free(&c);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&C);
}

TEST(scale_rows_generated)
{
    for (size_t s = 0; s < NGEN; s++) {
        psl_matrix *A = NULL, *B = NULL;
        CHECK_OK(psl_generate(&A, gen_specs[s]));
        csr_copy a = csr_get(A);
        double *g = malloc(sizeof *g * (size_t)(a.nrows + 1));
        CHECK_OK(psl_matrix_scale_rows(&B, A, g));
        csr_copy b = csr_get(B), a2 = csr_get(A);
        CHECK(csr_same(&a, &a2));
        CHECK(same_pattern(&a, &b));
        int64_t bad = 0, badsum = 0;
        for (int32_t i = 0; i < a.nrows; i++) {
            double sum = 0;
            for (int64_t k = a.rp[i]; k < a.rp[i + 1]; k++)
                sum += fabs(a.v[k]);
            double gi = sum > 0 ? sum : 1;
            bad += g[i] != gi;
            double rsum = 0;
            for (int64_t k = a.rp[i]; k < a.rp[i + 1]; k++) {
                bad += b.v[k] != a.v[k] / gi;
                rsum += fabs(b.v[k]);
            }
            /* property: unit absolute row sums up to rounding */
            if (sum > 0 && !(fabs(rsum - 1) <= 0x1p-52 * (double)(a.rp[i + 1] - a.rp[i] + 1)))
                badsum++;
        }
        CHECK_MSG(bad == 0 && badsum == 0, "%s: %lld values, %lld row sums off", gen_specs[s],
                  (long long)bad, (long long)badsum);
        free(g);
        csr_free(&a);
        csr_free(&a2);
        csr_free(&b);
        psl_matrix_destroy(&A);
        psl_matrix_destroy(&B);
    }
}

/* ---- symmetric scaling */

TEST(scale_symmetric_hand)
{
    /* [ 4   2   .   . ]   gbar = 2
     * [ 2  -9   3   . ]   gbar = 3 (negative diagonal)
     * [ .   3   .   . ]   gbar = 1 (no diagonal entry)
     * [ 8   .   .   0 ]   gbar = 1 (explicit zero diagonal) */
    const int64_t rp[] = {0, 2, 5, 6, 8};
    const int32_t ci[] = {0, 1, 0, 1, 2, 1, 0, 3};
    const double v[] = {4, 2, 2, -9, 3, 3, 8, 0};
    psl_matrix *A = make(4, 4, rp, ci, v), *B = NULL;
    csr_copy before = csr_get(A);
    double gb[4] = {-1, -1, -1, -1};
    CHECK_OK(psl_matrix_scale_symmetric(&B, A, gb));
    csr_copy a = csr_get(A), b = csr_get(B);
    CHECK(csr_same(&a, &before));
    CHECK(same_pattern(&a, &b));
    const double want[] = {1, 1.0 / 3, 1.0 / 3, -1, 1, 1, 4, 0};
    for (int k = 0; k < 8; k++)
        CHECK_MSG(b.v[k] == want[k], "entry %d: %.17g, expected %.17g", k, b.v[k], want[k]);
    CHECK(gb[0] == 2 && gb[1] == 3 && gb[2] == 1 && gb[3] == 1);

    /* solving through it: x = Gbar^-1 x_s recovers A x = b */
    double x[4] = {1, -2, 0.5, 3}, bb[4], bs[4], xs[4], xr[4];
    CHECK_OK(psl_spmv(1, A, x, 0, bb, PSL_FP64));
    CHECK_OK(psl_vector_div_diag(4, gb, bb, bs)); /* b_s = Gbar^-1 b */
    for (int i = 0; i < 4; i++)
        xs[i] = x[i] * gb[i]; /* the solution of the scaled system */
    double check[4];
    CHECK_OK(psl_spmv(1, B, xs, 0, check, PSL_FP64));
    for (int i = 0; i < 4; i++)
        CHECK_MSG(fabs(check[i] - bs[i]) <= 1e-15 * (1 + fabs(bs[i])), "row %d", i);
    CHECK_OK(psl_vector_div_diag(4, gb, xs, xr));
    for (int i = 0; i < 4; i++)
        CHECK(xr[i] == x[i]);
    csr_free(&before);
    csr_free(&a);
    csr_free(&b);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&B);
}

TEST(scale_symmetric_generated)
{
    for (size_t s = 0; s < NGEN; s++) {
        psl_matrix *A = NULL, *B = NULL;
        CHECK_OK(psl_generate(&A, gen_specs[s]));
        csr_copy a = csr_get(A);
        const int32_t n = a.nrows;
        CHECK(a.ncols == n);
        double *gb = malloc(sizeof *gb * (size_t)(n + 1));
        CHECK_OK(psl_matrix_scale_symmetric(&B, A, gb));
        csr_copy b = csr_get(B), a2 = csr_get(A);
        CHECK(csr_same(&a, &a2));
        CHECK(same_pattern(&a, &b));
        /* dense reference: the diagonal read from the dense array */
        double *da = dense(&a), *db = dense(&b);
        int64_t bad = 0, missing = 0, baddiag = 0, asym = 0;
        for (int32_t i = 0; i < n; i++) {
            double d = da[(size_t)i * n + i];
            double gi = d != 0 ? sqrt(fabs(d)) : 1;
            missing += d == 0;
            bad += gb[i] != gi;
        }
        for (int32_t i = 0; i < n; i++)
            for (int32_t j = 0; j < n; j++) {
                size_t ij = (size_t)i * n + j;
                double want = da[ij] / (gb[i] * gb[j]);
                bad += db[ij] != want;
                if (da[ij] == da[(size_t)j * n + i])
                    asym += db[ij] != db[(size_t)j * n + i];
            }
        for (int32_t i = 0; i < n; i++) {
            double d = da[(size_t)i * n + i], sd = db[(size_t)i * n + i];
            if (d != 0 && !(fabs(fabs(sd) - 1) <= 0x1p-50 && (sd < 0) == (d < 0)))
                baddiag++;
        }
        CHECK_MSG(bad == 0 && baddiag == 0 && asym == 0,
                  "%s: %lld values, %lld diagonals, %lld symmetric pairs off", gen_specs[s],
                  (long long)bad, (long long)baddiag, (long long)asym);
        if (strncmp(gen_specs[s], "random", 6) == 0) /* exercises the missing diagonal */
            CHECK_MSG(missing > 0, "%s has every diagonal entry", gen_specs[s]);
        free(da);
        free(db);
        free(gb);
        csr_free(&a);
        csr_free(&a2);
        csr_free(&b);
        psl_matrix_destroy(&A);
        psl_matrix_destroy(&B);
    }
}

TEST(scale_symmetric_overflow)
{
    /* gbar = sqrt(1e-310) ~ 1e-155 on both rows: 1e10 / 1e-310 overflows */
    const int64_t rp[] = {0, 1, 3};
    const int32_t ci[] = {0, 0, 1};
    const double v[] = {1e-310, 1e10, 1e-310};
    psl_matrix *A = make(2, 2, rp, ci, v), *B = (psl_matrix *)&rp;
    double gb[2] = {-1, -1};
    CHECK_ST(psl_matrix_scale_symmetric(&B, A, gb), PSL_ERR_NONFINITE);
    psl_error_info e;
    psl_last_error(&e);
    CHECK_MSG(e.row == 1 && e.col == 0 && strstr(e.message, "row 1, column 0"), "%s",
              e.message);
    CHECK(B == NULL && gb[0] == -1 && gb[1] == -1);
    psl_matrix_destroy(&A);
}

/* ---- y = D^-1 x */

TEST(vector_div_diag)
{
    const double d[4] = {2, -4, 0.5, 3};
    const double x[4] = {1, 1, -3, 9};
    double y[4] = {0}, z[4];
    CHECK_OK(psl_vector_div_diag(4, d, x, y));
    CHECK(y[0] == 0.5 && y[1] == -0.25 && y[2] == -6 && y[3] == 3);
    memcpy(z, x, sizeof z); /* in place */
    CHECK_OK(psl_vector_div_diag(4, d, z, z));
    CHECK(memcmp(y, z, sizeof y) == 0);
    CHECK_OK(psl_vector_div_diag(0, NULL, NULL, NULL));

    const double bad0[4] = {2, 0, 1, 1}, badnan[4] = {1, 1, 1, NAN};
    double keep[4] = {7, 7, 7, 7};
    memcpy(y, keep, sizeof y);
    CHECK_ST(psl_vector_div_diag(4, bad0, x, y), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "d[1]") != NULL);
    CHECK_ST(psl_vector_div_diag(4, badnan, x, y), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "d[3]") != NULL);
    CHECK_ST(psl_vector_div_diag(-1, d, x, y), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_vector_div_diag(4, NULL, x, y), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_vector_div_diag(4, d, NULL, y), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_vector_div_diag(4, d, x, NULL), PSL_ERR_NULL_POINTER);
    CHECK(memcmp(y, keep, sizeof y) == 0);
}

/* ---- backward error */

/* The reference: the formula of the header with plain sequential loops. */
static double ref_backward_error(const csr_copy *a, double alpha, const double *x, double beta,
                                 const double *y0, const double *y)
{
    double num = 0, na = 0, nx = 0, ny0 = 0;
    for (int32_t j = 0; j < a->ncols; j++)
        nx = fmax(nx, fabs(x[j]));
    for (int32_t i = 0; i < a->nrows; i++) {
        double s = 0, as = 0;
        for (int64_t k = a->rp[i]; k < a->rp[i + 1]; k++) {
            s += a->v[k] * x[a->ci[k]];
            as += fabs(a->v[k]);
        }
        double r = beta != 0 ? alpha * s + beta * y0[i] : alpha * s;
        double e = fabs(y[i] - r);
        if (!(e <= num))
            num = isnan(e) ? INFINITY : e;
        na = fmax(na, as);
        if (beta != 0)
            ny0 = fmax(ny0, fabs(y0[i]));
    }
    double den = fabs(alpha) * na * nx + fabs(beta) * ny0;
    return den > 0 ? num / den : (num == 0 ? 0.0 : INFINITY);
}

TEST(backward_error_hand)
{
    /* A = [2 -1; 0 3], x = [1 -2]: A x = [4 -6], ||A|| = 3, ||x|| = 2 */
    const int64_t rp[] = {0, 2, 3};
    const int32_t ci[] = {0, 1, 1};
    const double v[] = {2, -1, 3};
    psl_matrix *A = make(2, 2, rp, ci, v);
    const double x[2] = {1, -2};
    double err = -1;
    const double y_exact[2] = {4, -6};
    CHECK_OK(psl_spmv_backward_error(A, 1, x, 0, NULL, y_exact, &err));
    CHECK(err == 0);
    const double y1[2] = {4.5, -6}; /* 0.5 / (3 * 2) */
    CHECK_OK(psl_spmv_backward_error(A, 1, x, 0, NULL, y1, &err));
    CHECK_MSG(err == 0.5 / 6, "%.17g", err);
    /* alpha = 2, beta = 0.5, y0 = [1 -4]: r = [8.5 -14], den = 2*3*2 + 0.5*4 */
    const double y0[2] = {1, -4}, y2[2] = {8.5, -13};
    CHECK_OK(psl_spmv_backward_error(A, 2, x, 0.5, y0, y2, &err));
    CHECK_MSG(err == 1.0 / 14, "%.17g", err);
    /* negative alpha and beta count by their magnitude */
    const double y3[2] = {-8.5 + 1, 14};
    CHECK_OK(psl_spmv_backward_error(A, -2, x, -0.5, y0, y3, &err));
    CHECK_MSG(err == 1.0 / 14, "%.17g", err);
    /* beta == 0: y0 is not read (NaN there does not matter) */
    const double y0nan[2] = {NAN, NAN};
    CHECK_OK(psl_spmv_backward_error(A, 1, x, 0, y0nan, y1, &err));
    CHECK(err == 0.5 / 6);
    /* NaN or Inf in y: infinite */
    const double ynan[2] = {4, NAN}, yinf[2] = {-INFINITY, -6};
    CHECK_OK(psl_spmv_backward_error(A, 1, x, 0, NULL, ynan, &err));
    CHECK(err == INFINITY);
    err = -1;
    CHECK_OK(psl_spmv_backward_error(A, 1, x, 0, NULL, yinf, &err));
    CHECK(err == INFINITY);
    psl_matrix_destroy(&A);
}

TEST(backward_error_zero_cases)
{
    const int64_t rp[] = {0, 1, 2};
    const int32_t ci[] = {0, 1};
    const double vz[] = {0, 0}, v[] = {1, 1};
    psl_matrix *Z = make(2, 2, rp, ci, vz), *A = make(2, 2, rp, ci, v);
    const double x[2] = {1, 2}, x0[2] = {0, 0}, y0[2] = {0, 0}, yz[2] = {0, -0.0},
                 ynz[2] = {0, 1e-300};
    double err = -1;
    /* zero matrix */
    CHECK_OK(psl_spmv_backward_error(Z, 1, x, 0, NULL, yz, &err));
    CHECK(err == 0);
    CHECK_OK(psl_spmv_backward_error(Z, 1, x, 0, NULL, ynz, &err));
    CHECK(err == INFINITY);
    /* zero x */
    err = -1;
    CHECK_OK(psl_spmv_backward_error(A, 1, x0, 0, NULL, yz, &err));
    CHECK(err == 0);
    CHECK_OK(psl_spmv_backward_error(A, 1, x0, 0, NULL, ynz, &err));
    CHECK(err == INFINITY);
    /* alpha = 0 with beta * y0 = 0 */
    err = -1;
    CHECK_OK(psl_spmv_backward_error(A, 0, x, 1, y0, yz, &err));
    CHECK(err == 0);
    CHECK_OK(psl_spmv_backward_error(A, 0, x, 1, y0, ynz, &err));
    CHECK(err == INFINITY);
    /* alpha = 0, beta != 0: only |beta| ||y0|| in the denominator */
    const double y0b[2] = {2, -4}, yb[2] = {1, -2.5}; /* r = [1 -2], 0.5 / (0.5*4) */
    CHECK_OK(psl_spmv_backward_error(A, 0, x, 0.5, y0b, yb, &err));
    CHECK_MSG(err == 0.25, "%.17g", err);
    /* empty matrices */
    psl_matrix *E = NULL, *E2 = NULL;
    CHECK_OK(psl_matrix_create_csr(&E, 0, 0, NULL, NULL, NULL, PSL_FP64, 0, 0));
    err = -1;
    CHECK_OK(psl_spmv_backward_error(E, 1, NULL, 0, NULL, NULL, &err));
    CHECK(err == 0);
    const int64_t rp3[] = {0, 0, 0, 0};
    CHECK_OK(psl_matrix_create_csr(&E2, 3, 2, rp3, NULL, NULL, PSL_FP64, 0, 0));
    const double y3[3] = {0, 0, 5};
    CHECK_OK(psl_spmv_backward_error(E2, 1, x, 0, NULL, y3, &err));
    CHECK(err == INFINITY);
    psl_matrix_destroy(&Z);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&E);
    psl_matrix_destroy(&E2);
}

TEST(backward_error_generated)
{
    static const double ab[][2] = {{1, 0}, {-1.5, 0.25}, {0.5, -2}};
    for (size_t s = 0; s < NGEN; s++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, gen_specs[s]));
        csr_copy a = csr_get(A);
        double *x = malloc(sizeof *x * (size_t)(a.ncols + 1));
        double *y0 = malloc(sizeof *y0 * (size_t)(a.nrows + 1));
        double *y = malloc(sizeof *y * (size_t)(a.nrows + 1));
        unsigned long long seed = 5 + s;
        for (int32_t j = 0; j < a.ncols; j++)
            x[j] = 2 * psl_test_uniform(&seed) - 1;
        for (int32_t i = 0; i < a.nrows; i++)
            y0[i] = 2 * psl_test_uniform(&seed) - 1;
        for (size_t t = 0; t < sizeof ab / sizeof ab[0]; t++) {
            double alpha = ab[t][0], beta = ab[t][1];
            /* y: the product in FP32 vectors (a realistic computed result) */
            float *xf = malloc(sizeof *xf * (size_t)(a.ncols + 1));
            float *yf = malloc(sizeof *yf * (size_t)(a.nrows + 1));
            for (int32_t j = 0; j < a.ncols; j++)
                xf[j] = (float)x[j];
            for (int32_t i = 0; i < a.nrows; i++)
                yf[i] = (float)y0[i];
            CHECK_OK(psl_spmv(alpha, A, xf, beta, yf, PSL_FP32));
            for (int32_t i = 0; i < a.nrows; i++)
                y[i] = yf[i];
            double err = -1, want = ref_backward_error(&a, alpha, x, beta, y0, y);
            CHECK_OK(psl_spmv_backward_error(A, alpha, x, beta, y0, y, &err));
            CHECK_MSG(err == want && err > 0 && err < 1e-5, "%s alpha %g beta %g: %.17g vs %.17g",
                      gen_specs[s], alpha, beta, err, want);
#ifdef _OPENMP
            double err1 = -1;
            int nt = omp_get_max_threads();
            omp_set_num_threads(1);
            CHECK_OK(psl_spmv_backward_error(A, alpha, x, beta, y0, y, &err1));
            omp_set_num_threads(nt);
            CHECK(err1 == err);
#endif
            free(xf);
            free(yf);
        }
        free(x);
        free(y0);
        free(y);
        csr_free(&a);
        psl_matrix_destroy(&A);
    }
}

TEST(backward_error_bad_input)
{
    const int64_t rp[] = {0, 1, 2};
    const int32_t ci[] = {0, 1};
    const double v[] = {1, 1};
    psl_matrix *A = make(2, 2, rp, ci, v), *S = NULL, *F = NULL;
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_SELL;
    CHECK_OK(psl_matrix_convert(&S, A, &o));
    o.format = PSL_FORMAT_CSR;
    o.value_type = PSL_FP32;
    CHECK_OK(psl_matrix_convert(&F, A, &o));
    const double x[2] = {1, 1}, y[2] = {1, 1}, xnan[2] = {1, NAN}, y0inf[2] = {INFINITY, 0};
    double err = -7;
    CHECK_ST(psl_spmv_backward_error(S, 1, x, 0, NULL, y, &err), PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "SELL FP64") != NULL);
    CHECK_ST(psl_spmv_backward_error(F, 1, x, 0, NULL, y, &err), PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "CSR FP32") != NULL);
    CHECK_ST(psl_spmv_backward_error(NULL, 1, x, 0, NULL, y, &err), PSL_ERR_NULL_POINTER);
    psl_matrix fake;
    memset(&fake, 0, sizeof fake);
    fake.magic = PSL_DEAD_MAGIC;
    CHECK_ST(psl_spmv_backward_error(&fake, 1, x, 0, NULL, y, &err), PSL_ERR_INVALID_HANDLE);
    CHECK_ST(psl_spmv_backward_error(A, 1, NULL, 0, NULL, y, &err), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_spmv_backward_error(A, 1, x, 0, NULL, NULL, &err), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_spmv_backward_error(A, 1, x, 1, NULL, y, &err), PSL_ERR_NULL_POINTER);
    CHECK(strstr(psl_last_error_message(), "y0") != NULL);
    CHECK_ST(psl_spmv_backward_error(A, 1, x, 0, NULL, y, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_spmv_backward_error(A, NAN, x, 0, NULL, y, &err), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_spmv_backward_error(A, 1, x, INFINITY, y, y, &err), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_spmv_backward_error(A, 1, xnan, 0, NULL, y, &err), PSL_ERR_NONFINITE);
    CHECK(strstr(psl_last_error_message(), "x[1]") != NULL);
    CHECK_ST(psl_spmv_backward_error(A, 1, x, 1, y0inf, y, &err), PSL_ERR_NONFINITE);
    CHECK(strstr(psl_last_error_message(), "y0[0]") != NULL);
    CHECK(err == -7);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&F);
}

/* ---- bad input of the scalings */

TEST(scale_bad_input)
{
    const int64_t rp[] = {0, 1, 2};
    const int32_t ci[] = {0, 2};
    const double v[] = {1, 1};
    psl_matrix *R = make(2, 3, rp, ci, v); /* not square */
    psl_matrix *Q = NULL, *S = NULL, *F = NULL;
    CHECK_OK(psl_generate(&Q, "lap2d:4"));
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    CHECK_OK(psl_matrix_convert(&S, Q, &o));
    o.format = PSL_FORMAT_CSR;
    o.value_type = PSL_FP32;
    CHECK_OK(psl_matrix_convert(&F, Q, &o));
    psl_matrix fake;
    memset(&fake, 0, sizeof fake);
    fake.magic = PSL_DEAD_MAGIC;

    typedef psl_status (*scale_fn)(psl_matrix **, const psl_matrix *, double *);
    const scale_fn fns[2] = {psl_matrix_scale_rows, psl_matrix_scale_symmetric};
    for (int f = 0; f < 2; f++) {
        double g[16];
        for (int i = 0; i < 16; i++)
            g[i] = -3;
        psl_matrix *out = (psl_matrix *)&fake; /* must come back NULL */
        CHECK_ST(fns[f](&out, S, g), PSL_ERR_WRONG_FORMAT);
        CHECK(out == NULL);
        CHECK(strstr(psl_last_error_message(), "PackSELL") != NULL);
        out = (psl_matrix *)&fake;
        CHECK_ST(fns[f](&out, F, g), PSL_ERR_WRONG_FORMAT);
        CHECK(out == NULL && strstr(psl_last_error_message(), "CSR FP32") != NULL);
        out = (psl_matrix *)&fake;
        CHECK_ST(fns[f](&out, NULL, g), PSL_ERR_NULL_POINTER);
        CHECK(out == NULL);
        out = (psl_matrix *)&fake;
        CHECK_ST(fns[f](&out, &fake, g), PSL_ERR_INVALID_HANDLE);
        CHECK(out == NULL);
        CHECK_ST(fns[f](NULL, Q, g), PSL_ERR_NULL_POINTER);
        int untouched = 1;
        for (int i = 0; i < 16; i++)
            untouched &= g[i] == -3;
        CHECK_MSG(untouched, "function %d wrote g on error", f);
    }
    double g[3] = {-3, -3, -3};
    psl_matrix *out = (psl_matrix *)&fake;
    CHECK_ST(psl_matrix_scale_symmetric(&out, R, g), PSL_ERR_INVALID_VALUE);
    CHECK(out == NULL && g[0] == -3 && g[1] == -3 && g[2] == -3);
    CHECK(strstr(psl_last_error_message(), "square") && strstr(psl_last_error_message(), "2 x 3"));
    /* row scaling takes any shape */
    CHECK_OK(psl_matrix_scale_rows(&out, R, g));
    CHECK(g[0] == 1 && g[1] == 1 && g[2] == -3);
    psl_matrix_destroy(&out);
    /* empty matrices */
    psl_matrix *E = NULL;
    CHECK_OK(psl_matrix_create_csr(&E, 0, 0, NULL, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_scale_rows(&out, E, NULL));
    psl_matrix_destroy(&out);
    CHECK_OK(psl_matrix_scale_symmetric(&out, E, NULL));
    psl_matrix_destroy(&out);
    psl_matrix_destroy(&E);
    psl_matrix_destroy(&R);
    psl_matrix_destroy(&Q);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&F);
}

static const psl_test_case tests[] = {
    {"names_round_trip", names_round_trip},
    {"names_invalid", names_invalid},
    {"scale_rows_hand", scale_rows_hand},
    {"scale_rows_generated", scale_rows_generated},
    {"scale_symmetric_hand", scale_symmetric_hand},
    {"scale_symmetric_generated", scale_symmetric_generated},
    {"scale_symmetric_overflow", scale_symmetric_overflow},
    {"vector_div_diag", vector_div_diag},
    {"backward_error_hand", backward_error_hand},
    {"backward_error_zero_cases", backward_error_zero_cases},
    {"backward_error_generated", backward_error_generated},
    {"backward_error_bad_input", backward_error_bad_input},
    {"scale_bad_input", scale_bad_input},
};

PSL_TEST_MAIN(tests)
