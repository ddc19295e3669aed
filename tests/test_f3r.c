/*
 * test_f3r.c -- adaptive Richardson against a textbook version written here
 * (the same weights and iterates over many calls, the sampling calls, the
 * FP16 rounding of the weights, the reset at each solve and the state kept
 * across restarts), F3R in its three variants converging on generated and
 * real nonsymmetric matrices by a residual computed here, FP16 overflow
 * reported with the layer named, bad input, and `packsell solve --method f3r`.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "packsell.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRY(expr)                                                                         \
    do {                                                                                  \
        psl_status t_st_ = (expr);                                                        \
        if (t_st_ != PSL_OK)                                                              \
            return t_st_;                                                                 \
    } while (0)

/* ---------------------------------------------------------- references */

typedef struct {
    int32_t n;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
} csr_ref;

static csr_ref view(const psl_matrix *A)
{
    csr_ref c = {0};
    psl_matrix_info info;
    psl_matrix_get_info(A, &info);
    c.n = info.nrows;
    psl_matrix_csr_view(A, &c.rp, &c.ci, &c.va);
    return c;
}

static void ref_spmv(const csr_ref *A, const double *x, double *y)
{
    for (int32_t i = 0; i < A->n; i++) {
        double s = 0.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            s += A->va[k] * x[A->ci[k]];
        y[i] = s;
    }
}

static double ref_relres(const csr_ref *A, const double *b, const double *x)
{
    double *ax = malloc((size_t)A->n * sizeof *ax);
    ref_spmv(A, x, ax);
    double rr = 0.0, bb = 0.0;
    for (int32_t i = 0; i < A->n; i++) {
        rr += (b[i] - ax[i]) * (b[i] - ax[i]);
        bb += b[i] * b[i];
    }
    free(ax);
    return sqrt(rr) / sqrt(bb);
}

static double dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* v rounded to the nearest FP16 value, ties to even (normal range). */
static double round_half(double v)
{
    if (v == 0.0)
        return 0.0;
    int e;
    frexp(v, &e);
    double q = ldexp(1.0, e - 11);
    return nearbyint(v / q) * q;
}

static double *make_b(int32_t n, uint64_t seed)
{
    double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    for (int32_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        b[i] = (double)(seed >> 11) * 0x1p-53;
    }
    return b;
}

static psl_matrix *csr(int32_t n, const int64_t *rp, const int32_t *ci, const double *v)
{
    psl_matrix *A = NULL;
    psl_matrix_create_csr(&A, n, n, rp, ci, v, PSL_FP64, 0, 0);
    return A;
}

/* 2D convection-diffusion, upwind: nonsymmetric, diagonally dominant. */
static psl_matrix *convdiff(int nx, double c)
{
    int n = nx * nx;
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)5 * n * sizeof *ci);
    double *v = malloc((size_t)5 * n * sizeof *v);
    int64_t k = 0;
    rp[0] = 0;
    for (int iy = 0; iy < nx; iy++)
        for (int ix = 0; ix < nx; ix++) {
            int i = iy * nx + ix;
            if (iy > 0)
                ci[k] = i - nx, v[k++] = -1.0 - c;
            if (ix > 0)
                ci[k] = i - 1, v[k++] = -1.0 - c;
            ci[k] = i, v[k++] = 4.0 + 2.0 * c;
            if (ix + 1 < nx)
                ci[k] = i + 1, v[k++] = -1.0;
            if (iy + 1 < nx)
                ci[k] = i + nx, v[k++] = -1.0;
            rp[i + 1] = k;
        }
    psl_matrix *A = csr(n, rp, ci, v);
    free(rp), free(ci), free(v);
    return A;
}

/* A times s, entry by entry (same pattern). */
static psl_matrix *scaled_copy(const psl_matrix *A, double s)
{
    csr_ref R = view(A);
    int64_t nnz = R.rp[R.n];
    double *v = malloc((size_t)nnz * sizeof *v);
    for (int64_t k = 0; k < nnz; k++)
        v[k] = R.va[k] * s;
    psl_matrix *B = csr(R.n, R.rp, R.ci, v);
    free(v);
    return B;
}

/* ---------------------------------------------------------- textbook Richardson */

/* The reference's adaptive Richardson (ALGORITHMS.md section 7), in FP64,
 * with the Jacobi preconditioner dinv (NULL: none): a counter from c,
 * incremented before the test cnt % c == 0; sums start at 1 and the mean
 * divides by cnt / c. */
typedef struct {
    int m, c;
    long cnt;
    double w[8], sum[8];
} tb_rich;

static void tb_init(tb_rich *R, int m, int c)
{
    R->m = m, R->c = c, R->cnt = c;
    for (int k = 0; k < 8; k++)
        R->w[k] = R->sum[k] = 1.0;
}

static void tb_call(tb_rich *R, const csr_ref *A, const double *dinv, const double *v, double *y)
{
    int n = A->n;
    double *r = malloc((size_t)n * sizeof *r), *mr = malloc((size_t)n * sizeof *mr),
           *t = malloc((size_t)n * sizeof *t);
    R->cnt++;
    int sampling = R->cnt % R->c == 0;
    for (int k = 0; k < R->m; k++) {
        if (k == 0) {
            memcpy(r, v, (size_t)n * sizeof *r);
        } else {
            ref_spmv(A, y, t);
            for (int i = 0; i < n; i++)
                r[i] = v[i] - t[i];
        }
        for (int i = 0; i < n; i++)
            mr[i] = dinv ? dinv[i] * r[i] : r[i];
        double w = R->w[k];
        if (sampling) {
            ref_spmv(A, mr, t);
            w = dot(n, t, r) / dot(n, t, t);
            R->sum[k] += w;
            R->w[k] = R->sum[k] / (double)(R->cnt / R->c);
        }
        for (int i = 0; i < n; i++)
            y[i] = (k == 0 ? 0.0 : y[i]) + w * mr[i];
    }
    free(r), free(mr), free(t);
}

/* A Richardson solver on A (FP64 CSR) with vectors t, its operator taking
 * FP64 or FP32 (op_type), M Jacobi when jacobi. */
typedef struct {
    psl_exec *ex;
    psl_op *A, *M;
    psl_solver *s;
} rig;

static psl_status rig_make(rig *g, const psl_matrix *A, psl_scalar t, psl_scalar op_type, int m,
                           int c, int jacobi)
{
    memset(g, 0, sizeof *g);
    TRY(psl_exec_create_cpu(&g->ex));
    TRY(psl_op_matrix(&g->A, g->ex, A, t));
    if (jacobi)
        TRY(psl_precond_jacobi(&g->M, g->ex, A, t));
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.vec_type = t;
    o.op_type = op_type;
    o.fixed_iters = m;
    o.richardson_c = c;
    return psl_solver_create(&g->s, PSL_METHOD_RICHARDSON, g->A, g->M, &o);
}

static void rig_free(rig *g)
{
    psl_solver_destroy(&g->s);
    psl_op_destroy(&g->A);
    psl_op_destroy(&g->M);
    psl_exec_destroy(&g->ex);
}

/* y = S(v) through the solver's operator, host arrays, vectors of op_type. */
static psl_status apply_op(rig *g, psl_scalar op_type, int n, const double *v, double *y)
{
    psl_vec *vv = NULL, *yv = NULL;
    psl_status st;
    TRY(psl_vec_create(&vv, g->ex, n, op_type));
    TRY(psl_vec_create(&yv, g->ex, n, op_type));
    st = psl_vec_set(vv, v);
    if (st == PSL_OK)
        st = psl_op_apply(psl_solver_op(g->s), 1.0, vv, 0.0, yv);
    if (st == PSL_OK)
        st = psl_vec_get(yv, y);
    psl_vec_destroy(&vv);
    psl_vec_destroy(&yv);
    return st;
}

/* FP64: the same iterates and weights as the textbook over 3c+1 calls of
 * three steps, with Jacobi, on different unit-norm inputs. */
TEST(richardson_matches_textbook_fp64)
{
    psl_matrix *A = convdiff(8, 1.5);
    csr_ref R = view(A);
    int n = R.n, m = 3, c = 3;
    double *dinv = malloc((size_t)n * sizeof *dinv);
    for (int i = 0; i < n; i++)
        for (int64_t k = R.rp[i]; k < R.rp[i + 1]; k++)
            if (R.ci[k] == i)
                dinv[i] = 1.0 / R.va[k];
    rig g;
    CHECK_OK(rig_make(&g, A, PSL_FP64, PSL_FP64, m, c, 1));
    tb_rich T;
    tb_init(&T, m, c);
    double *y = malloc((size_t)n * sizeof *y), *yt = malloc((size_t)n * sizeof *yt);
    double w[8], wprev[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    for (int call = 1; call <= 3 * c + 1; call++) {
        double *v = make_b(n, (uint64_t)call);
        double nv = sqrt(dot(n, v, v));
        for (int i = 0; i < n; i++)
            v[i] = (v[i] - 0.5) / nv;
        CHECK_OK(apply_op(&g, PSL_FP64, n, v, y));
        tb_call(&T, &R, dinv, v, yt);
        double err = 0.0, ymax = 0.0;
        for (int i = 0; i < n; i++) {
            err = fmax(err, fabs(y[i] - yt[i]));
            ymax = fmax(ymax, fabs(yt[i]));
        }
        CHECK_MSG(err <= 1e-12 * ymax, "call %d: |y - y_textbook| %g of %g", call, err, ymax);
        CHECK(psl_solver_richardson_weights(g.s, w, 8) == m);
        for (int k = 0; k < m; k++) {
            CHECK_MSG(fabs(w[k] - T.w[k]) <= 1e-12 * fabs(T.w[k]), "call %d step %d: w %.17g, "
                      "textbook %.17g", call, k + 1, w[k], T.w[k]);
            /* the weights move on the sampling calls only */
            if (call % c != 0)
                CHECK_MSG(w[k] == wprev[k], "call %d step %d: weight changed", call, k + 1);
            else
                CHECK_MSG(w[k] != wprev[k], "call %d step %d: not sampled", call, k + 1);
            wprev[k] = w[k];
        }
        free(v);
    }
    printf("  weights after %d calls: %.6f %.6f %.6f\n", 3 * c + 1, w[0], w[1], w[2]);
    rig_free(&g);
    free(dinv), free(y), free(yt);
    psl_matrix_destroy(&A);
}

/* FP16 vectors on A = 3I, one step, inputs exact in FP16: the dots are exact,
 * so the local weight is fl32(1/3), the mean is FP32 arithmetic, and the
 * weight and every output entry are known to the bit. */
TEST(richardson_fp16_weight_rounding)
{
    enum { n = 16 };
    int64_t rp[n + 1];
    int32_t ci[n];
    double va[n];
    for (int i = 0; i < n; i++)
        rp[i] = i, ci[i] = i, va[i] = 3.0;
    rp[n] = n;
    psl_matrix *A = csr(n, rp, ci, va);
    int c = 2;
    rig g;
    CHECK_OK(rig_make(&g, A, PSL_FP16, PSL_FP32, 1, c, 0));
    const double vals[] = {0.5, -0.25, 1.0, 0.75, -0.5, 0.125, -1.0, 0.25};
    float sum = 1.0f;
    double wexp = 1.0;
    int rounded = 0; /* a mean that FP16 changed */
    double y[n], v[n];
    for (int call = 1; call <= 7; call++) {
        for (int i = 0; i < n; i++)
            v[i] = vals[(i + call) % 8];
        CHECK_OK(apply_op(&g, PSL_FP32, n, v, y));
        double used = wexp;
        if (call % c == 0) {
            double S = dot(n, v, v);
            float local = (float)(3.0 * S) / (float)(9.0 * S);
            used = local;
            sum = sum + local;
            float mean = sum / (float)(call / c + 1);
            wexp = round_half(mean);
            rounded += wexp != (double)mean;
        }
        double w = 0.0;
        CHECK(psl_solver_richardson_weights(g.s, &w, 1) == 1);
        CHECK_MSG(w == wexp, "call %d: weight %.17g, expected %.17g", call, w, wexp);
        CHECK(round_half(w) == w);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += y[i] != round_half((double)((float)used * (float)v[i]));
        CHECK_MSG(bad == 0, "call %d: %d entries differ from fp16(w v)", call, bad);
    }
    CHECK(rounded > 0); /* the test saw the FP16 rounding */
    printf("  weight after 3 samples: %.17g\n", wexp);
    rig_free(&g);
    psl_matrix_destroy(&A);
}

/* FP16 vectors on a real nonsymmetric operator: the weights follow the FP64
 * textbook to FP16 accuracy, are FP16 values, and move on sampling calls only. */
TEST(richardson_fp16_follows_textbook)
{
    psl_matrix *C = convdiff(10, 1.0), *A = NULL;
    CHECK_OK(psl_matrix_scale_symmetric(&A, C, NULL));
    csr_ref R = view(A);
    int n = R.n, m = 2, c = 4;
    rig g;
    CHECK_OK(rig_make(&g, A, PSL_FP16, PSL_FP32, m, c, 0));
    tb_rich T;
    tb_init(&T, m, c);
    double *y = malloc((size_t)n * sizeof *y), *yt = malloc((size_t)n * sizeof *yt);
    double w[2], wprev[2] = {1, 1};
    for (int call = 1; call <= 3 * c; call++) {
        double *v = make_b(n, 100 + (uint64_t)call);
        double nv = sqrt(dot(n, v, v));
        for (int i = 0; i < n; i++)
            v[i] = round_half(v[i] / nv); /* as the layer converts it */
        CHECK_OK(apply_op(&g, PSL_FP32, n, v, y));
        tb_call(&T, &R, NULL, v, yt);
        double e = 0.0, ny = 0.0;
        for (int i = 0; i < n; i++)
            e += (y[i] - yt[i]) * (y[i] - yt[i]), ny += yt[i] * yt[i];
        CHECK_MSG(sqrt(e) <= 1e-2 * sqrt(ny), "call %d: y off by %g", call, sqrt(e / ny));
        CHECK(psl_solver_richardson_weights(g.s, w, 2) == m);
        for (int k = 0; k < m; k++) {
            CHECK(round_half(w[k]) == w[k]);
            CHECK_MSG(fabs(w[k] - T.w[k]) <= 1e-2 * fabs(T.w[k]), "call %d step %d: %g vs %g",
                      call, k + 1, w[k], T.w[k]);
            CHECK(call % c == 0 || w[k] == wprev[k]);
            wprev[k] = w[k];
        }
        free(v);
    }
    CHECK(w[0] != 1.0 && w[1] != 1.0);
    printf("  FP16 weights %.6f %.6f, textbook %.6f %.6f\n", w[0], w[1], T.w[0], T.w[1]);
    rig_free(&g);
    free(y), free(yt);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&C);
}

/* The state restarts at each solve above the solver (through a middle
 * layer too) and is kept across the restarts of one solve. */
TEST(richardson_reset_and_restarts)
{
    psl_matrix *A = convdiff(8, 1.0);
    csr_ref R = view(A);
    int n = R.n, c = 3;
    rig g;
    CHECK_OK(rig_make(&g, A, PSL_FP64, PSL_FP64, 2, c, 0));
    double *v = make_b(n, 9), *y = malloc((size_t)n * sizeof *y), w[2];
    for (int call = 0; call < c; call++)
        CHECK_OK(apply_op(&g, PSL_FP64, n, v, y));
    psl_solver_richardson_weights(g.s, w, 2);
    CHECK(w[0] != 1.0 && w[1] != 1.0);
    /* outer FGMRES(1) over a middle FGMRES(1) over Richardson, one Arnoldi
     * step: one call, the (c+1)-th counted from the reset: no sample */
    psl_solver_options mo;
    psl_solver_options_init(&mo);
    mo.fixed_iters = 1;
    psl_solver *mid = NULL, *outer = NULL;
    CHECK_OK(psl_solver_create(&mid, PSL_METHOD_FGMRES, g.A, psl_solver_op(g.s), &mo));
    psl_solver_options oo;
    psl_solver_options_init(&oo);
    oo.restart = 1;
    oo.max_iters = 1;
    CHECK_OK(psl_solver_create(&outer, PSL_METHOD_FGMRES, g.A, psl_solver_op(mid), &oo));
    psl_vec *bv = NULL, *xv = NULL;
    CHECK_OK(psl_vec_wrap(&bv, g.ex, n, PSL_FP64, v, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&xv, g.ex, n, PSL_FP64));
    psl_solve_result res;
    CHECK_ST(psl_solver_solve(outer, bv, xv, &res), PSL_ERR_NOT_CONVERGED);
    CHECK(psl_solver_op_iterations(g.s) == 2 * (c + 1));
    psl_solver_richardson_weights(g.s, w, 2);
    CHECK_MSG(w[0] == 1.0 && w[1] == 1.0, "not reset: %g %g", w[0], w[1]);
    /* restart every step, 2c steps in one solve: sampled twice, kept */
    psl_solver_destroy(&outer);
    oo.max_iters = 2 * c;
    CHECK_OK(psl_solver_create(&outer, PSL_METHOD_FGMRES, g.A, psl_solver_op(mid), &oo));
    psl_vec_fill(xv, 0.0);
    psl_solver_solve(outer, bv, xv, &res);
    CHECK(res.iterations == 2 * c);
    psl_solver_richardson_weights(g.s, w, 2);
    CHECK_MSG(w[0] != 1.0 && w[1] != 1.0, "restarts lost the weights: %g %g", w[0], w[1]);
    /* its own solve resets it too */
    psl_vec *b2 = NULL, *x2 = NULL;
    CHECK_OK(psl_vec_wrap(&b2, g.ex, n, PSL_FP64, v, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&x2, g.ex, n, PSL_FP64));
    CHECK_OK(psl_solver_solve(g.s, b2, x2, &res));
    CHECK(res.reason == PSL_REASON_FIXED_ITERS);
    psl_solver_richardson_weights(g.s, w, 2);
    CHECK(w[0] == 1.0 && w[1] == 1.0);
    psl_vec_destroy(&bv), psl_vec_destroy(&xv), psl_vec_destroy(&b2), psl_vec_destroy(&x2);
    psl_solver_destroy(&outer);
    psl_solver_destroy(&mid);
    rig_free(&g);
    free(v), free(y);
    psl_matrix_destroy(&A);
}

TEST(richardson_bad_input)
{
    psl_matrix *A = convdiff(6, 1.0);
    psl_exec *ex = NULL;
    psl_op *A64 = NULL, *A16 = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&A64, ex, A, PSL_FP64));
    CHECK_OK(psl_op_matrix(&A16, ex, A, PSL_FP16));
    psl_solver_options o;
    psl_solver_options_init(&o);
    psl_solver *s = NULL;
    /* an inner solver only */
    CHECK_ST(psl_solver_create(&s, PSL_METHOD_RICHARDSON, A64, NULL, &o), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "fixed_iters") != NULL);
    o.fixed_iters = 2;
    o.richardson_c = 0;
    CHECK_ST(psl_solver_create(&s, PSL_METHOD_RICHARDSON, A64, NULL, &o), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "richardson_c") != NULL);
    o.richardson_c = 64;
    /* FP16 vectors are for Richardson only */
    o.vec_type = PSL_FP16;
    CHECK_ST(psl_solver_create(&s, PSL_METHOD_CG, A16, NULL, &o), PSL_ERR_INVALID_VALUE);
    CHECK_OK(psl_solver_create(&s, PSL_METHOD_RICHARDSON, A16, NULL, &o));
    CHECK(psl_solver_richardson_weights(NULL, NULL, 0) == -1);
    /* a unit-input Richardson operator only under FGMRES */
    psl_solver_options oo;
    psl_solver_options_init(&oo);
    psl_solver *outer = NULL;
    o.vec_type = PSL_FP64;
    psl_solver *r64 = NULL;
    CHECK_OK(psl_solver_create(&r64, PSL_METHOD_RICHARDSON, A64, NULL, &o));
    CHECK_ST(psl_solver_create(&outer, PSL_METHOD_BICGSTAB, A64, psl_solver_op(r64), &oo),
             PSL_ERR_INVALID_VALUE);
    CHECK_OK(psl_solver_create(&outer, PSL_METHOD_FGMRES, A64, psl_solver_op(r64), &oo));
    psl_solver_destroy(&outer);
    psl_solver_destroy(&r64);
    psl_solver_destroy(&s);
    psl_op_destroy(&A64);
    psl_op_destroy(&A16);
    psl_exec_destroy(&ex);
    psl_matrix_destroy(&A);
}

/* ---------------------------------------------------------- F3R */

static const char *variant_name(psl_f3r_variant v)
{
    return v == PSL_F3R_FP64 ? "FP64-F3R" : v == PSL_F3R_FP16 ? "FP16-F3R" : "PackSELL-F3R";
}

/* F3R variant v with SD-AINV on a matrix scaled here (the solve's own
 * scaling off), the other settings the defaults. */
static psl_solve_config f3r_scaled_config(psl_f3r_variant v)
{
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.method = PSL_SOLVE_F3R;
    c.precond = PSL_PRECOND_SDAINV;
    c.scale = 0;
    c.f3r.variant = v;
    return c;
}

/* Every variant reaches 1e-9 on the symmetrically scaled A (scaled here and
 * solved as given) by the residual computed here. */
static void f3r_converges(const char *name, const psl_matrix *A0)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_scale_symmetric(&A, A0, NULL));
    if (!A)
        return;
    csr_ref R = view(A);
    double *b = make_b(R.n, 31), *x = calloc((size_t)R.n, sizeof *x);
    for (int v = PSL_F3R_FP64; v <= PSL_F3R_PACKSELL; v++) {
        psl_solve_config c = f3r_scaled_config((psl_f3r_variant)v);
        c.solver.max_iters = 2000;
        psl_solve_report rep;
        memset(x, 0, (size_t)R.n * sizeof *x);
        psl_status st = psl_solve(A, b, x, &c, &rep);
        double rel = ref_relres(&R, b, x);
        CHECK_MSG(st == PSL_OK && rel < 1e-9 && rep.result.reason == PSL_REASON_CONVERGED,
                  "%s %s: %s, relres %g; %s", name, variant_name((psl_f3r_variant)v),
                  psl_status_string(st), rel, psl_last_error_message());
        CHECK(fabs(rel - rep.result.relres) <= 0.05 * rel + 1e-15);
        /* layers 2-4 run m2, m2 m3 and m2 m3 m4 steps per outer step */
        int64_t per = 8 + 8 * 4 + 8 * 4 * 2;
        CHECK_MSG(rep.result.inner_iterations == per * rep.result.iterations,
                  "%s: %lld inner for %d outer", name, (long long)rep.result.inner_iterations,
                  rep.result.iterations);
        printf("  %-14s %-13s %3d outer steps, relres %.2e, %.3f s\n", name,
               variant_name((psl_f3r_variant)v), rep.result.iterations, rel, rep.solve_seconds);
    }
    free(b), free(x);
    psl_matrix_destroy(&A);
}

TEST(f3r_converges_generated)
{
    psl_matrix *H = NULL;
    CHECK_OK(psl_generate(&H, "gen:hpgmp:4:4:4"));
    if (H)
        f3r_converges("hpgmp:4:4:4", H);
    psl_matrix_destroy(&H);
    psl_matrix *C = convdiff(48, 1.5);
    f3r_converges("convdiff48", C);
    psl_matrix_destroy(&C);
    CHECK_OK(psl_generate(&H, "gen:hpcg:4:4:4"));
    if (H)
        f3r_converges("hpcg:4:4:4", H);
    psl_matrix_destroy(&H);
}

TEST(f3r_converges_real)
{
    if (!psl_test_matrices_available("f3r_converges_real"))
        return;
    char path[8192];
    snprintf(path, sizeof path, "%s/orsirr_1.mtx", psl_test_matrix_dir());
    psl_matrix *O = NULL;
    CHECK_OK(psl_matrix_open(&O, path));
    if (O)
        f3r_converges("orsirr_1", O);
    psl_matrix_destroy(&O);
}

/* Values beyond FP16's range: the FP16 variants fail the conversion with
 * the layer named, x untouched (PackSELL-F3R with its automatic codec too:
 * layer 4's vectors are FP16 whatever the codec); FP64-F3R still solves. */
TEST(f3r_fp16_overflow_reported)
{
    psl_matrix *H = NULL;
    CHECK_OK(psl_generate(&H, "gen:hpgmp:4:4:4"));
    if (!H)
        return;
    psl_matrix *B = scaled_copy(H, 1e5); /* diagonal 2.6e6 > 65504 */
    csr_ref R = view(B);
    double *b = make_b(R.n, 4), *x = malloc((size_t)R.n * sizeof *x);
    for (int v = PSL_F3R_FP64; v <= PSL_F3R_PACKSELL; v++) {
        psl_solve_config c = f3r_scaled_config((psl_f3r_variant)v);
        for (int i = 0; i < R.n; i++)
            x[i] = 0.25;
        psl_status st = psl_solve(B, b, x, &c, NULL);
        if (v == PSL_F3R_FP64) {
            CHECK_OK(st);
            CHECK(ref_relres(&R, b, x) < 1e-9);
            continue;
        }
        CHECK_MSG(st == PSL_ERR_CODEC_OVERFLOW, "%s: %s", variant_name((psl_f3r_variant)v),
                  psl_status_string(st));
        const char *msg = psl_last_error_message();
        CHECK_MSG(strstr(msg, "F3R layers 3-4") != NULL, "message: %s", msg);
        printf("  %s: %s\n", variant_name((psl_f3r_variant)v), msg);
        int touched = 0;
        for (int i = 0; i < R.n; i++)
            touched += x[i] != 0.25;
        CHECK(touched == 0);
    }
    free(b), free(x);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&H);
}

/* An overflow of layer 4's FP16 vectors during the solve (lund_a, scaled:
 * its SD-AINV factors fit FP16, but M r does not): the inner cycle that meets
 * it passes NaN up and the solve ends non-finite with x finite, instead of an
 * inner correction of zero that the outer layer took for a stagnation;
 * FP64-F3R, whose layers have no such limit, solves it. */
TEST(f3r_fp16_vector_overflow_reported)
{
    if (!psl_test_matrices_available("f3r_fp16_vector_overflow_reported"))
        return;
    char path[8192];
    snprintf(path, sizeof path, "%s/lund_a.mtx", psl_test_matrix_dir());
    psl_matrix *L = NULL, *A = NULL;
    CHECK_OK(psl_matrix_open(&L, path));
    if (L)
        CHECK_OK(psl_matrix_scale_symmetric(&A, L, NULL));
    if (!A) {
        psl_matrix_destroy(&L);
        return;
    }
    csr_ref R = view(A);
    double *b = make_b(R.n, 5), *x = calloc((size_t)R.n, sizeof *x);
    for (int v = PSL_F3R_FP64; v <= PSL_F3R_PACKSELL; v++) {
        psl_solve_config c = f3r_scaled_config((psl_f3r_variant)v);
        c.solver.max_iters = 200;
        psl_solve_report rep;
        memset(&rep, 0, sizeof rep);
        memset(x, 0, (size_t)R.n * sizeof *x);
        psl_status st = psl_solve(A, b, x, &c, &rep);
        if (v == PSL_F3R_FP64) {
            CHECK_MSG(st == PSL_OK && ref_relres(&R, b, x) < 1e-9, "FP64-F3R: %s",
                      psl_status_string(st));
            continue;
        }
        CHECK_MSG(st == PSL_ERR_BREAKDOWN && rep.result.reason == PSL_REASON_NONFINITE,
                  "%s: %s, reason %s", variant_name((psl_f3r_variant)v), psl_status_string(st),
                  psl_reason_name(rep.result.reason));
        int finite = 1;
        for (int i = 0; i < R.n; i++)
            finite &= isfinite(x[i]) != 0;
        CHECK(finite);
        printf("  %s: %s\n", variant_name((psl_f3r_variant)v), psl_last_error_message());
    }
    free(b), free(x);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&L);
}

/* PackSELL-F3R's automatic codec: FP16 on a well-scaled matrix (HPGMP), and
 * E8M14 on memplus (scaled here), whose scaled values reach 1e-24 (21% of them below FP16's
 * normal range): there FP16 needs far more outer steps than FP64-F3R, and
 * E8M14 about as many. */
TEST(f3r_codec_auto)
{
    psl_matrix *H = NULL;
    CHECK_OK(psl_generate(&H, "gen:hpgmp:4:4:4"));
    csr_ref RH = view(H);
    double *bh = make_b(RH.n, 8), *xh = calloc((size_t)RH.n, sizeof *xh);
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.method = PSL_SOLVE_F3R;
    c.precond = PSL_PRECOND_SDAINV;
    psl_solve_report rep;
    CHECK_OK(psl_solve(H, bh, xh, &c, &rep));
    CHECK(rep.f3r_codec.exp_bits == 5 && rep.f3r_codec.man_bits == 10);
    CHECK(ref_relres(&RH, bh, xh) < 1e-9);
    free(bh), free(xh);
    psl_matrix_destroy(&H);
    if (!psl_test_matrices_available("f3r_codec_auto (memplus)"))
        return;
    char path[8192];
    snprintf(path, sizeof path, "%s/memplus.mtx", psl_test_matrix_dir());
    psl_matrix *A0 = NULL, *A = NULL;
    CHECK_OK(psl_matrix_open(&A0, path));
    CHECK_OK(psl_matrix_scale_symmetric(&A, A0, NULL));
    psl_matrix_destroy(&A0);
    if (!A)
        return;
    csr_ref R = view(A);
    double *b = make_b(R.n, 9), *x = calloc((size_t)R.n, sizeof *x);
    const struct {
        psl_f3r_variant v;
        psl_codec codec;
    } runs[] = {{PSL_F3R_FP64, {0, 0}}, {PSL_F3R_PACKSELL, {0, 0}}, {PSL_F3R_PACKSELL, {5, 10}}};
    int outer[3];
    for (int k = 0; k < 3; k++) {
        c = f3r_scaled_config(runs[k].v);
        c.solver.max_iters = 1000;
        c.f3r.codec = runs[k].codec;
        memset(x, 0, (size_t)R.n * sizeof *x);
        if (k == 2) { /* FP16 needs >= 4x E8M14's steps: stopped before (a third of the time) */
            c.solver.max_iters = 4 * outer[1] - 1;
            psl_status st = psl_solve(A, b, x, &c, &rep);
            CHECK_MSG(st == PSL_ERR_NOT_CONVERGED, "memplus FP16 within %d outer steps: %s",
                      c.solver.max_iters, psl_status_string(st));
            outer[k] = st == PSL_ERR_NOT_CONVERGED ? 4 * outer[1] : rep.result.iterations;
            continue;
        }
        CHECK_OK(psl_solve(A, b, x, &c, &rep));
        CHECK_MSG(ref_relres(&R, b, x) < 1e-9, "memplus run %d: relres %g", k, ref_relres(&R, b, x));
        outer[k] = rep.result.iterations;
        if (k == 1)
            CHECK_MSG(rep.f3r_codec.exp_bits == 8 && rep.f3r_codec.man_bits == 14, "auto chose e%dm%d",
                      (int)rep.f3r_codec.exp_bits, (int)rep.f3r_codec.man_bits);
    }
    printf("  memplus outer steps: FP64-F3R %d, PackSELL-F3R auto (E8M14) %d, FP16 >= %d\n", outer[0],
           outer[1], outer[2]);
    CHECK(outer[1] <= 2 * outer[0] && outer[2] >= 4 * outer[1]);
    free(b), free(x);
    psl_matrix_destroy(&A);
}

/* Inner FGMRES cycles reading their columns at the end (the default) or at
 * every step (PSL_SOLVER_DEFER_READS=0) give the same bits. */
TEST(f3r_deferred_reads_same_bits)
{
    psl_matrix *H = NULL;
    CHECK_OK(psl_generate(&H, "gen:hpgmp:4:4:4"));
    csr_ref R = view(H);
    double *b = make_b(R.n, 12), *x1 = calloc((size_t)R.n, sizeof *x1),
           *x0 = calloc((size_t)R.n, sizeof *x0);
    for (int v = PSL_F3R_FP64; v <= PSL_F3R_PACKSELL; v++) {
        psl_solve_config c;
        psl_solve_config_init(&c);
        c.method = PSL_SOLVE_F3R;
        c.precond = PSL_PRECOND_SDAINV;
        c.f3r.variant = (psl_f3r_variant)v;
        psl_solve_report r1, r0;
        memset(x1, 0, (size_t)R.n * sizeof *x1), memset(x0, 0, (size_t)R.n * sizeof *x0);
        CHECK_OK(psl_solve(H, b, x1, &c, &r1));
        CHECK_OK(psl_option_set("PSL_SOLVER_DEFER_READS", "0"));
        CHECK_OK(psl_solve(H, b, x0, &c, &r0));
        CHECK_OK(psl_option_set("PSL_SOLVER_DEFER_READS", NULL));
        CHECK_MSG(memcmp(x1, x0, (size_t)R.n * sizeof *x1) == 0 &&
                      r1.result.iterations == r0.result.iterations,
                  "%s: deferred reads change the solve", variant_name((psl_f3r_variant)v));
    }
    free(b), free(x1), free(x0);
    psl_matrix_destroy(&H);
}

TEST(f3r_bad_input)
{
    psl_matrix *A = convdiff(10, 1.0);
    csr_ref R = view(A);
    double *b = make_b(R.n, 5), *x = calloc((size_t)R.n, sizeof *x);
    psl_solve_config c;
    struct {
        const char *what;
        int field, value;
    } bad[] = {{"f3r.m2", 2, 0},      {"f3r.m1", 1, 0}, {"f3r.m3", 3, -1},
               {"f3r.m4", 4, 0},      {"f3r.c", 5, 0},  {"f3r.variant", 0, 7},
               {"f3r.variant", 0, -1}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        psl_solve_config_init(&c);
        c.method = PSL_SOLVE_F3R;
        int32_t *f[] = {NULL, &c.f3r.m1, &c.f3r.m2, &c.f3r.m3, &c.f3r.m4,
                        &c.f3r.c};
        if (bad[k].field == 0)
            c.f3r.variant = (psl_f3r_variant)bad[k].value;
        else
            *f[bad[k].field] = bad[k].value;
        x[0] = 3.0;
        CHECK_ST(psl_solve(A, b, x, &c, NULL), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(strstr(psl_last_error_message(), bad[k].what) != NULL, "%s: %s", bad[k].what,
                  psl_last_error_message());
        CHECK(x[0] == 3.0);
    }
    const psl_codec badc[] = {{5, 9}, {4, 3}, {8, 30}, {0, 10}};
    for (size_t k = 0; k < sizeof badc / sizeof badc[0]; k++) {
        psl_solve_config_init(&c);
        c.method = PSL_SOLVE_F3R;
        c.f3r.codec = badc[k];
        CHECK_ST(psl_solve(A, b, x, &c, NULL), PSL_ERR_INVALID_VALUE);
        CHECK(strstr(psl_last_error_message(), "f3r.codec") != NULL);
        CHECK(x[0] == 3.0);
    }
    psl_solve_config_init(&c);
    c.method = PSL_SOLVE_F3R;
    c.solver.vec_type = PSL_FP32;
    CHECK_ST(psl_solve(A, b, x, &c, NULL), PSL_ERR_INVALID_VALUE);
    free(b), free(x);
    psl_matrix_destroy(&A);
}

/* ---------------------------------------------------------- the command */

static int run(const char *args)
{
    const char *exe = getenv("PSL_PACKSELL_EXE");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >/dev/null 2>&1", exe, args);
    int rc = system(cmd);
    return rc == -1 ? -1 : (rc >> 8) & 0xff;
}

TEST(command_f3r)
{
    if (!getenv("PSL_PACKSELL_EXE")) {
        psl_test_skip("command_f3r", "PSL_PACKSELL_EXE not set");
        return;
    }
    char json[] = "/tmp/psl_f3r_XXXXXX";
    int fd = mkstemp(json);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    const char *variants[] = {"fp64", "fp16", "packsell"};
    for (int v = 0; v < 3; v++) {
        char args[512];
        snprintf(args, sizeof args,
                 "solve gen:hpgmp:4:4:4 --method f3r --f3r %s --m2 6 --m3 3 --m4 3 "
                 "--richardson-c 16 --restart 50 --json %s", variants[v], json);
        CHECK_MSG(run(args) == 0, "%s", args);
        FILE *f = fopen(json, "r");
        char buf[8192] = "";
        size_t got = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        buf[got] = '\0';
        if (f)
            fclose(f);
        char want[64];
        snprintf(want, sizeof want, "\"variant\": \"%s\"", variants[v]);
        CHECK_MSG(strstr(buf, want) != NULL, "%s not in %s", want, buf);
        const char *keys[] = {"\"method\": \"f3r\"", "\"precond\": \"sdainv\"", "\"m1\": 50",
                              "\"m2\": 6", "\"m3\": 3", "\"m4\": 3", "\"richardson_c\": 16",
                              "\"status\": \"converged\""};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            CHECK_MSG(strstr(buf, keys[k]) != NULL, "%s not in %s", keys[k], buf);
    }
    remove(json);
    CHECK(run("solve gen:hpgmp:4:4:4 --method f3r") == 0);
    CHECK(run("solve gen:hpgmp:4:4:4 --method f3r --precond jacobi") == 0);
    CHECK(run("solve gen:hpgmp:4:4:4 --method f3r --f3r-values e8m12") == 0);
    CHECK(run("solve gen:hpgmp:4:4:4 --method f3r --f3r-values bf16") == 0);
    /* misuse: exit 2 */
    const char *bad[] = {"--method f3r --f3r fp8",        "--method f3r --m2 0",
                         "--method f3r --m4 0",           "--method f3r --richardson-c 0",
                         "--method f3r --restart 0",      "--method gmres --m2 4",
                         "--method f3r --f3r-values e5m9", "--method f3r --f3r fp16 --f3r-values e8m14",
                         "--method gmres --f3r-values fp16",
                         "--method bicgstab --f3r fp16",  "--method fgmres --richardson-c 8",
                         "--method f3r --vectors fp32",   "--method f3r --m3 x"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char args[512];
        snprintf(args, sizeof args, "solve gen:hpgmp:4:4:4 %s", bad[k]);
        CHECK_MSG(run(args) == 2, "%s: exit %d", args, run(args));
    }
}

/* psl_precond_f3r under an outer FGMRES(100) built here: every variant
 * reaches 1e-9 by the residual computed here, in the outer steps of
 * psl_solve's F3R on the same system (+-1: layer 2 normalises its input),
 * the scaling the operator's own (cfg->scale); bad input refused with *M =
 * NULL. */
TEST(f3r_precond_under_outer_fgmres)
{
    psl_matrix *H = convdiff(48, 1.5);
    if (!H)
        return;
    csr_ref R = view(H);
    double *b = make_b(R.n, 7), *x = calloc((size_t)R.n, sizeof *x);
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    for (int v = PSL_F3R_FP64; ex && v <= PSL_F3R_PACKSELL; v++) {
        psl_solve_config c = f3r_scaled_config((psl_f3r_variant)v);
        c.scale = 1;
        c.f3r.m2 = 2, c.f3r.m3 = 2, c.f3r.m4 = 1; /* weak layers: several outer steps */
        psl_solve_report rep;
        memset(x, 0, (size_t)R.n * sizeof *x);
        CHECK_OK(psl_solve(H, b, x, &c, &rep));
        psl_op *A = NULL, *M = NULL;
        psl_solver *s = NULL;
        psl_vec *bv = NULL, *xv = NULL;
        CHECK_OK(psl_op_matrix(&A, ex, H, PSL_FP64));
        CHECK_OK(psl_precond_f3r(&M, ex, H, &c));
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.restart = 100;
        CHECK_OK(psl_solver_create(&s, PSL_METHOD_FGMRES, A, M, &o));
        CHECK_OK(psl_vec_wrap(&bv, ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
        CHECK_OK(psl_vec_create(&xv, ex, R.n, PSL_FP64));
        psl_solve_result res = {0};
        CHECK_OK(psl_solver_solve(s, bv, xv, &res));
        CHECK_OK(psl_vec_get(xv, x));
        double rel = ref_relres(&R, b, x);
        CHECK_MSG(rel < 1e-9, "%s: relres %g", variant_name((psl_f3r_variant)v), rel);
        CHECK_MSG(abs(res.iterations - rep.result.iterations) <= 1,
                  "%s: %d outer steps under the caller's FGMRES, %d in psl_solve",
                  variant_name((psl_f3r_variant)v), res.iterations, rep.result.iterations);
        printf("  %-13s precond: %d outer steps (psl_solve %d), relres %.2e\n",
               variant_name((psl_f3r_variant)v), res.iterations, rep.result.iterations, rel);
        psl_vec_destroy(&bv);
        psl_vec_destroy(&xv);
        psl_solver_destroy(&s);
        psl_op_destroy(&M);
        psl_op_destroy(&A);
    }
    /* bad input */
    psl_op *M = (psl_op *)&ex; /* garbage: must be set to NULL */
    CHECK_ST(psl_precond_f3r(NULL, ex, H, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_precond_f3r(&M, NULL, H, NULL), PSL_ERR_NULL_POINTER);
    CHECK(M == NULL);
    psl_matrix *W = NULL;
    const int64_t rp[3] = {0, 1, 2};
    const int32_t ci[2] = {0, 2};
    const double va[2] = {1.0, 1.0};
    CHECK_OK(psl_matrix_create_csr(&W, 2, 3, rp, ci, va, PSL_FP64, 0, 0));
    CHECK_ST(psl_precond_f3r(&M, ex, W, NULL), PSL_ERR_INVALID_VALUE);
    psl_solve_config bad;
    psl_solve_config_init(&bad);
    bad.f3r.m2 = 0;
    CHECK_ST(psl_precond_f3r(&M, ex, H, &bad), PSL_ERR_INVALID_VALUE);
    CHECK(M == NULL);
    psl_matrix_destroy(&W);
    psl_exec_destroy(&ex);
    free(b), free(x);
    psl_matrix_destroy(&H);
}

static const psl_test_case tests[] = {
    {"richardson_matches_textbook_fp64", richardson_matches_textbook_fp64},
    {"richardson_fp16_weight_rounding", richardson_fp16_weight_rounding},
    {"richardson_fp16_follows_textbook", richardson_fp16_follows_textbook},
    {"richardson_reset_and_restarts", richardson_reset_and_restarts},
    {"richardson_bad_input", richardson_bad_input},
    {"f3r_converges_generated", f3r_converges_generated},
    {"f3r_converges_real", f3r_converges_real},
    {"f3r_fp16_overflow_reported", f3r_fp16_overflow_reported},
    {"f3r_fp16_vector_overflow_reported", f3r_fp16_vector_overflow_reported},
    {"f3r_codec_auto", f3r_codec_auto},
    {"f3r_deferred_reads_same_bits", f3r_deferred_reads_same_bits},
    {"f3r_bad_input", f3r_bad_input},
    {"f3r_precond_under_outer_fgmres", f3r_precond_under_outer_fgmres},
    {"command_f3r", command_f3r},
};

PSL_TEST_MAIN(tests)
