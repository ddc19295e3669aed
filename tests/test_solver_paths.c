/*
 * test_solver_paths.c -- the short cuts the solver layer takes, each against
 * the long way: a product preconditioner of two diagonal factors against the
 * two products done here by loops (and a non-diagonal one against a dense
 * computation), Jacobi of a scaled matrix as the identity, and CG with its
 * next step queued ahead of the test (PSL_SOLVER_LOOKAHEAD=1) giving the
 * bits, iterations, reasons and monitor calls of the plain order (=0), on
 * convergence, residual replacement, breakdown and the iteration limit.
 */
#include "harness.h"
#include "packsell.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static double *make_b(int32_t n, uint64_t seed)
{
    double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (int32_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        b[i] = (double)(s >> 11) * 0x1p-53;
    }
    return b;
}

/* A diagonal FP64 CSR matrix diag(d). */
static psl_matrix *diagonal(int32_t n, const double *d)
{
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)(n > 0 ? n : 1) * sizeof *ci);
    for (int32_t i = 0; i <= n; i++)
        rp[i] = i;
    for (int32_t i = 0; i < n; i++)
        ci[i] = i;
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, n, n, rp, ci, d, PSL_FP64, 0, 0));
    free(rp);
    free(ci);
    return A;
}

/* y = M x on the CPU for host arrays. */
static void apply(psl_op *M, psl_exec *ex, int32_t n, const double *x, double *y)
{
    psl_vec *xv = NULL, *yv = NULL;
    CHECK_OK(psl_vec_wrap(&xv, ex, n, PSL_FP64, (void *)x, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&yv, ex, n, PSL_FP64));
    CHECK_OK(psl_op_apply(M, 1.0, xv, 0.0, yv));
    CHECK_OK(psl_vec_get(yv, y));
    psl_vec_destroy(&xv);
    psl_vec_destroy(&yv);
}

/* Two diagonal factors: y = d2 .* (d1 .* x) with each d as its storage
 * rounds it (FP64 CSR exactly; FP32 SELL: rounded to float), to within the
 * one rounding the collapsed product saves. */
TEST(diagonal_product_matches_two_products)
{
    const int32_t n = 1000;
    double *d1 = make_b(n, 1), *d2 = make_b(n, 2), *x = make_b(n, 3);
    for (int32_t i = 0; i < n; i++)
        d1[i] += 0.5, d2[i] = 3.0 * d2[i] + 0.25, x[i] -= 0.5;
    psl_matrix *F1 = diagonal(n, d1), *F2 = diagonal(n, d2);
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    double *y = malloc((size_t)n * sizeof *y);
    for (int k = 0; k < 2; k++) {
        psl_convert_options st;
        psl_convert_options_init(&st);
        if (k == 1) {
            st.format = PSL_FORMAT_SELL;
            st.value_type = PSL_FP32;
        }
        psl_op *M = NULL;
        CHECK_OK(psl_precond_product(&M, ex, F1, F2, &st, PSL_FP64));
        apply(M, ex, n, x, y);
        int bad = 0;
        for (int32_t i = 0; i < n; i++) {
            double a = k ? (double)(float)d1[i] : d1[i], c = k ? (double)(float)d2[i] : d2[i];
            double e = c * (a * x[i]);
            bad += !(fabs(y[i] - e) <= 0x1p-51 * fabs(e));
        }
        CHECK_MSG(bad == 0, "storage %d: %d entries differ from d2 .* (d1 .* x)", k, bad);
        psl_op_destroy(&M);
    }
    /* a factor with one off-diagonal entry takes the general product */
    int64_t rp[4] = {0, 1, 3, 4};
    int32_t ci[4] = {0, 0, 1, 2};
    double v[4] = {2.0, 0.5, 3.0, 4.0}, w[3] = {1.5, 2.5, 0.75};
    psl_matrix *G = NULL, *D = diagonal(3, w);
    CHECK_OK(psl_matrix_create_csr(&G, 3, 3, rp, ci, v, PSL_FP64, 0, 0));
    psl_op *M = NULL;
    CHECK_OK(psl_precond_product(&M, ex, G, D, NULL, PSL_FP64));
    double xs[3] = {1.0, -2.0, 0.5}, ys[3];
    apply(M, ex, 3, xs, ys);
    double t[3] = {2.0 * 1.0, 0.5 * 1.0 + 3.0 * -2.0, 4.0 * 0.5}; /* G x by hand */
    for (int i = 0; i < 3; i++)
        CHECK_MSG(ys[i] == w[i] * t[i], "row %d: %g, expected %g", i, ys[i], w[i] * t[i]);
    psl_op_destroy(&M);
    psl_matrix_destroy(&G);
    psl_matrix_destroy(&D);
    free(y);
    free(d1), free(d2), free(x);
    psl_matrix_destroy(&F1);
    psl_matrix_destroy(&F2);
    psl_exec_destroy(&ex);
}

/* Jacobi of a symmetrically scaled matrix is the identity (x itself), of
 * the unscaled one x ./ a_ii; a diagonal product of ones is the identity. */
TEST(unit_diagonal_is_identity)
{
    psl_matrix *A = NULL, *S = NULL;
    CHECK_OK(psl_generate(&A, "gen:hpcg:6:5:4"));
    CHECK_OK(psl_matrix_scale_symmetric(&S, A, NULL));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    int32_t n = (int32_t)info.nrows;
    double *x = make_b(n, 9), *y = malloc((size_t)n * sizeof *y);
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    psl_op *J = NULL;
    CHECK_OK(psl_precond_jacobi(&J, ex, S, PSL_FP64));
    apply(J, ex, n, x, y);
    CHECK(memcmp(x, y, (size_t)n * sizeof *x) == 0);
    psl_op_destroy(&J);
    CHECK_OK(psl_precond_jacobi(&J, ex, A, PSL_FP64));
    apply(J, ex, n, x, y);
    int bad = 0;
    for (int32_t i = 0; i < n; i++)
        bad += y[i] != (1.0 / 26.0) * x[i];
    CHECK_MSG(bad == 0, "unscaled HPCG Jacobi: %d entries are not x/26", bad);
    psl_op_destroy(&J);
    double *ones = malloc((size_t)n * sizeof *ones);
    for (int32_t i = 0; i < n; i++)
        ones[i] = 1.0;
    psl_matrix *I = diagonal(n, ones);
    CHECK_OK(psl_precond_product(&J, ex, I, I, NULL, PSL_FP64));
    apply(J, ex, n, x, y);
    CHECK(memcmp(x, y, (size_t)n * sizeof *x) == 0);
    psl_op_destroy(&J);
    psl_matrix_destroy(&I);
    free(ones);
    free(x), free(y);
    psl_exec_destroy(&ex);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&S);
}

/* ---------------------------------------------------------- lookahead */

#define MAXMON 4096
typedef struct {
    int calls;
    int32_t iter[MAXMON];
    double relres[MAXMON];
} record_t;

static void record(void *ctx, int32_t iter, double relres)
{
    record_t *r = ctx;
    if (r->calls < MAXMON) {
        r->iter[r->calls] = iter;
        r->relres[r->calls] = relres;
    }
    r->calls++;
}

typedef struct {
    psl_status status;
    psl_solve_result res;
    double *x;
    record_t mon;
} run_t;

/* CG on A x = b from x0 = 0 with preconditioner kind (0 none, 1 Jacobi,
 * 2 SD-AINV) in vectors t, PSL_SOLVER_LOOKAHEAD = ahead. */
static void run_cg(const psl_matrix *A, const double *b, int kind, psl_scalar t, double tol,
                   int32_t max_iters, const char *ahead, run_t *out)
{
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    int32_t n = (int32_t)info.nrows;
    CHECK_OK(psl_option_set("PSL_SOLVER_LOOKAHEAD", ahead));
    psl_exec *ex = NULL;
    psl_op *Aop = NULL, *Rop = NULL, *M = NULL;
    psl_matrix *Wt = NULL, *ZD = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&Aop, ex, A, t));
    if (t != PSL_FP64)
        CHECK_OK(psl_op_matrix(&Rop, ex, A, PSL_FP64));
    if (kind == 1)
        CHECK_OK(psl_precond_jacobi(&M, ex, A, t));
    if (kind == 2) {
        psl_sdainv_options so;
        psl_sdainv_options_init(&so);
        so.drop_tol = 0.01;
        CHECK_OK(psl_sdainv_build(A, &so, &Wt, &ZD));
        CHECK_OK(psl_precond_product(&M, ex, Wt, ZD, NULL, t));
    }
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.vec_type = t;
    o.tol = tol;
    o.max_iters = max_iters;
    o.residual_op = Rop;
    o.monitor = record;
    o.monitor_ctx = &out->mon;
    out->mon.calls = 0;
    psl_solver *s = NULL;
    CHECK_OK(psl_solver_create(&s, PSL_METHOD_CG, Aop, M, &o));
    psl_vec *bv = NULL, *xv = NULL;
    CHECK_OK(psl_vec_create(&bv, ex, n, t));
    CHECK_OK(psl_vec_set(bv, b));
    CHECK_OK(psl_vec_create(&xv, ex, n, t));
    memset(&out->res, 0, sizeof out->res);
    out->status = psl_solver_solve(s, bv, xv, &out->res);
    out->x = malloc((size_t)(n > 0 ? n : 1) * sizeof *out->x);
    CHECK_OK(psl_vec_get(xv, out->x));
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    psl_solver_destroy(&s);
    psl_op_destroy(&M);
    psl_op_destroy(&Aop);
    psl_op_destroy(&Rop);
    psl_matrix_destroy(&Wt);
    psl_matrix_destroy(&ZD);
    psl_exec_destroy(&ex);
    CHECK_OK(psl_option_set("PSL_SOLVER_LOOKAHEAD", NULL));
}

static void same_with_and_without(const char *what, const psl_matrix *A, int kind, psl_scalar t,
                                  double tol, int32_t max_iters, psl_reason expect)
{
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    int32_t n = (int32_t)info.nrows;
    double *b = make_b(n, 17);
    run_t *r = calloc(2, sizeof *r);
    run_cg(A, b, kind, t, tol, max_iters, "0", &r[0]);
    run_cg(A, b, kind, t, tol, max_iters, "1", &r[1]);
    CHECK_MSG(r[0].res.reason == expect, "%s: reason %s, expected %s", what,
              psl_reason_name(r[0].res.reason), psl_reason_name(expect));
    CHECK_MSG(r[0].status == r[1].status && r[0].res.reason == r[1].res.reason &&
                  r[0].res.iterations == r[1].res.iterations,
              "%s: plain %s after %d, ahead %s after %d", what, psl_reason_name(r[0].res.reason),
              r[0].res.iterations, psl_reason_name(r[1].res.reason), r[1].res.iterations);
    CHECK_MSG(memcmp(&r[0].res.relres, &r[1].res.relres, sizeof(double)) == 0,
              "%s: true residual %.17g and %.17g", what, r[0].res.relres, r[1].res.relres);
    CHECK_MSG(memcmp(r[0].x, r[1].x, (size_t)n * sizeof(double)) == 0, "%s: x differs", what);
    CHECK(r[0].mon.calls == r[1].mon.calls && r[0].mon.calls > 1);
    int m = r[0].mon.calls < MAXMON ? r[0].mon.calls : MAXMON;
    CHECK(memcmp(r[0].mon.iter, r[1].mon.iter, (size_t)m * sizeof(int32_t)) == 0);
    CHECK(memcmp(r[0].mon.relres, r[1].mon.relres, (size_t)m * sizeof(double)) == 0);
    free(r[0].x), free(r[1].x), free(r), free(b);
}

TEST(lookahead_gives_the_plain_results)
{
    psl_matrix *L = NULL, *H = NULL, *Ind = NULL;
    CHECK_OK(psl_generate(&L, "gen:lap2d:40"));
    CHECK_OK(psl_generate(&H, "gen:hpcg:4:4:4"));
    same_with_and_without("lap2d none", L, 0, PSL_FP64, 1e-9, 10000, PSL_REASON_CONVERGED);
    same_with_and_without("lap2d Jacobi", L, 1, PSL_FP64, 1e-9, 10000, PSL_REASON_CONVERGED);
    same_with_and_without("hpcg SD-AINV", H, 2, PSL_FP64, 1e-10, 10000, PSL_REASON_CONVERGED);
    same_with_and_without("lap2d limit", L, 1, PSL_FP64, 1e-12, 15, PSL_REASON_MAX_ITERS);
    /* FP32 vectors to 1e-8: the recursive residual falls below tol, the
     * true one cannot, and the solve goes through the residual replacements
     * that end in stagnation */
    same_with_and_without("lap2d FP32", L, 1, PSL_FP32, 1e-8, 5000, PSL_REASON_STAGNATION);
    same_with_and_without("lap2d FP32 1e-4", L, 1, PSL_FP32, 1e-4, 5000, PSL_REASON_CONVERGED);
    /* an indefinite symmetric matrix: diag(1..n) with the last 10 entries negated */
    const int32_t n = 200;
    int64_t *rp = malloc((n + 1) * sizeof *rp);
    int32_t *ci = malloc(n * sizeof *ci);
    double *v = malloc(n * sizeof *v);
    for (int32_t i = 0; i < n; i++)
        rp[i] = i, ci[i] = i, v[i] = i < n - 10 ? 1.0 + i : -(1.0 + i);
    rp[n] = n;
    CHECK_OK(psl_matrix_create_csr(&Ind, n, n, rp, ci, v, PSL_FP64, 0, 0));
    same_with_and_without("indefinite", Ind, 0, PSL_FP64, 1e-12, 1000, PSL_REASON_INDEFINITE);
    free(rp), free(ci), free(v);
    psl_matrix_destroy(&L);
    psl_matrix_destroy(&H);
    psl_matrix_destroy(&Ind);
}

static const psl_test_case tests[] = {
    {"diagonal_product_matches_two_products", diagonal_product_matches_two_products},
    {"unit_diagonal_is_identity", unit_diagonal_is_identity},
    {"lookahead_gives_the_plain_results", lookahead_gives_the_plain_results},
};

PSL_TEST_MAIN(tests)
