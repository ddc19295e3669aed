/*
 * test_krylov.c -- GMRES, FGMRES and BiCGStab on the CPU: the same residual
 * histories, iteration counts and solutions as textbook versions written
 * here over a small dense nonsymmetric matrix; convergence on generated
 * nonsymmetric matrices (convection-diffusion built here, HPGMP) and a real
 * one, by a residual computed here; FGMRES with variable (inner solver)
 * preconditioners; FP32 FGMRES confirmed in FP64; the solvers as operators;
 * bad input, the iteration limit and breakdowns.
 */
#include "harness.h"
#include "packsell.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ||b - A x|| / ||b||, the simplest way. */
static double ref_relres(const csr_ref *A, const double *b, const double *x)
{
    double rr = 0.0, bb = 0.0;
    for (int32_t i = 0; i < A->n; i++) {
        double s = 0.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            s += A->va[k] * x[A->ci[k]];
        rr += (b[i] - s) * (b[i] - s);
        bb += b[i] * b[i];
    }
    return sqrt(rr / bb);
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

/* A dense n x n matrix (row-major) as CSR, zeros left out. */
static psl_matrix *from_dense(int n, const double *D)
{
    int64_t *rp = calloc((size_t)n + 1, sizeof *rp);
    int32_t *ci = malloc((size_t)n * n * sizeof *ci);
    double *v = malloc((size_t)n * n * sizeof *v);
    int64_t k = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (D[i * n + j] != 0.0) {
                ci[k] = j;
                v[k++] = D[i * n + j];
            }
        rp[i + 1] = k;
    }
    psl_matrix *A = csr(n, rp, ci, v);
    free(rp), free(ci), free(v);
    return A;
}

/* The small nonsymmetric test matrix: a convection-like tridiagonal part
 * with unequal off-diagonals, a varying diagonal and a wrap-around entry. */
static double *small_dense(int n)
{
    double *D = calloc((size_t)n * n, sizeof *D);
    for (int i = 0; i < n; i++) {
        D[i * n + i] = 3.0 + 0.25 * (i % 5);
        if (i > 0)
            D[i * n + i - 1] = -1.3;
        if (i + 1 < n)
            D[i * n + i + 1] = -0.6;
        D[i * n + (i + 7) % n] += 0.35;
    }
    return D;
}

static void matvec(int n, const double *D, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += D[i * n + j] * x[j];
        y[i] = s;
    }
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Textbook restarted GMRES(m) (Saad, Algorithms 6.9 and 9.5: right
 * preconditioning z = dinv .* v when dinv is set), dense, from x = 0:
 * modified Gram-Schmidt, Givens rotations with a plain sqrt; each cycle
 * stops when |g_j+1| / ||b|| < tol, and the solve when the recomputed
 * ||b - A x|| / ||b|| is. hist[0] = 1, hist[k] = |g| / ||b|| after step k.
 * Returns the steps. */
static int textbook_gmres(int n, const double *D, const double *dinv, const double *b, int m,
                          double tol, int maxit, double *x, double *hist)
{
    double *V = calloc((size_t)(m + 1) * n, sizeof *V), *H = calloc((size_t)(m + 1) * m, sizeof *H);
    double *cs = calloc(m, sizeof *cs), *sn = calloc(m, sizeof *sn), *g = calloc(m + 1, sizeof *g);
    double *y = calloc(m, sizeof *y), *w = calloc(n, sizeof *w), *z = calloc(n, sizeof *z);
    double *r = calloc(n, sizeof *r);
    double bn = sqrt(dot(n, b, b));
    int total = 0;
    memset(x, 0, (size_t)n * sizeof *x);
    hist[0] = 1.0;
    for (;;) {
        matvec(n, D, x, r);
        for (int i = 0; i < n; i++)
            r[i] = b[i] - r[i];
        double beta = sqrt(dot(n, r, r));
        if (beta / bn < tol || total >= maxit)
            break;
        for (int i = 0; i < n; i++)
            V[i] = r[i] / beta;
        memset(g, 0, (size_t)(m + 1) * sizeof *g);
        g[0] = beta;
        int k = 0;
        for (int j = 0; j < m && total < maxit; j++) {
            for (int i = 0; i < n; i++)
                z[i] = dinv ? dinv[i] * V[j * n + i] : V[j * n + i];
            matvec(n, D, z, w);
            for (int i = 0; i <= j; i++) {
                double h = dot(n, w, V + i * n);
                H[i * m + j] = h;
                for (int l = 0; l < n; l++)
                    w[l] -= h * V[i * n + l];
            }
            double h1 = sqrt(dot(n, w, w));
            H[(j + 1) * m + j] = h1;
            for (int l = 0; l < n; l++)
                V[(j + 1) * n + l] = w[l] / h1;
            for (int i = 0; i < j; i++) {
                double a = H[i * m + j], c = H[(i + 1) * m + j];
                H[i * m + j] = cs[i] * a + sn[i] * c;
                H[(i + 1) * m + j] = -sn[i] * a + cs[i] * c;
            }
            double a = H[j * m + j], c = H[(j + 1) * m + j], hyp = sqrt(a * a + c * c);
            cs[j] = a / hyp;
            sn[j] = c / hyp;
            H[j * m + j] = hyp;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            k = j + 1;
            total++;
            hist[total] = fabs(g[j + 1]) / bn;
            if (hist[total] < tol)
                break;
        }
        for (int i = k - 1; i >= 0; i--) {
            double v = g[i];
            for (int l = i + 1; l < k; l++)
                v -= H[i * m + l] * y[l];
            y[i] = v / H[i * m + i];
        }
        for (int l = 0; l < n; l++) {
            double u = 0.0;
            for (int i = 0; i < k; i++)
                u += y[i] * V[i * n + l];
            x[l] += dinv ? dinv[l] * u : u;
        }
    }
    free(V), free(H), free(cs), free(sn), free(g), free(y), free(w), free(z), free(r);
    return total;
}

/* Textbook BiCGStab (Saad, Algorithm 7.7, right preconditioned with z =
 * dinv .* v when dinv is set), dense, from x = 0, to ||r|| / ||b|| < tol.
 * hist[k] = ||r_k|| / ||b||. Returns the iterations. */
static int textbook_bicgstab(int n, const double *D, const double *dinv, const double *b,
                             double tol, int maxit, double *x, double *hist)
{
    double *r = malloc(n * sizeof *r), *rh = malloc(n * sizeof *rh), *p = malloc(n * sizeof *p);
    double *v = malloc(n * sizeof *v), *s = malloc(n * sizeof *s), *t = malloc(n * sizeof *t);
    double *ph = malloc(n * sizeof *ph), *sh = malloc(n * sizeof *sh);
    double bn = sqrt(dot(n, b, b));
    for (int i = 0; i < n; i++) {
        x[i] = 0.0;
        r[i] = rh[i] = p[i] = b[i];
    }
    double rho = dot(n, rh, r);
    hist[0] = 1.0;
    int it = 0;
    while (it < maxit) {
        it++;
        for (int i = 0; i < n; i++)
            ph[i] = dinv ? dinv[i] * p[i] : p[i];
        matvec(n, D, ph, v);
        double alpha = rho / dot(n, rh, v);
        for (int i = 0; i < n; i++)
            s[i] = r[i] - alpha * v[i];
        for (int i = 0; i < n; i++)
            sh[i] = dinv ? dinv[i] * s[i] : s[i];
        matvec(n, D, sh, t);
        double omega = dot(n, t, s) / dot(n, t, t);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * ph[i] + omega * sh[i];
            r[i] = s[i] - omega * t[i];
        }
        hist[it] = sqrt(dot(n, r, r)) / bn;
        if (hist[it] < tol)
            break;
        double rho2 = dot(n, rh, r), beta = rho2 / rho * (alpha / omega);
        for (int i = 0; i < n; i++)
            p[i] = r[i] + beta * (p[i] - omega * v[i]);
        rho = rho2;
    }
    free(r), free(rh), free(p), free(v), free(s), free(t), free(ph), free(sh);
    return it;
}

/* ---------------------------------------------------------- a solve */

typedef struct {
    double hist[4096];
    int calls, last;
} hist_t;

static void record(void *ctx, int32_t iter, double relres)
{
    hist_t *h = ctx;
    if (iter >= 0 && iter < 4096)
        h->hist[iter] = relres;
    h->last = iter;
    h->calls++;
}

typedef struct {
    psl_exec *ex;
    psl_op *A, *M, *R;
    psl_solver *s;
} rig;

/* A solver of method over matrix Am (CPU, vectors of o->vec_type), with
 * Jacobi when jacobi is set. */
static psl_status rig_make(rig *g, psl_method method, const psl_matrix *Am, int jacobi,
                           psl_solver_options *o)
{
    memset(g, 0, sizeof *g);
    psl_status st = psl_exec_create_cpu(&g->ex);
    if (st == PSL_OK)
        st = psl_op_matrix(&g->A, g->ex, Am, o->vec_type);
    if (st == PSL_OK && jacobi)
        st = psl_precond_jacobi(&g->M, g->ex, Am, o->vec_type);
    if (st == PSL_OK)
        st = psl_solver_create(&g->s, method, g->A, g->M, o);
    return st;
}

static void rig_free(rig *g)
{
    psl_solver_destroy(&g->s);
    psl_op_destroy(&g->M);
    psl_op_destroy(&g->R);
    psl_op_destroy(&g->A);
    psl_exec_destroy(&g->ex);
}

/* Solve A x = b (host arrays of n doubles, x from zero) with a made rig. */
static psl_status rig_solve(rig *g, int32_t n, psl_scalar t, const double *b, double *x,
                            psl_solve_result *res)
{
    psl_vec *bv = NULL, *xv = NULL;
    psl_status st = psl_vec_create(&bv, g->ex, n, t);
    if (st == PSL_OK)
        st = psl_vec_set(bv, b);
    if (st == PSL_OK)
        st = psl_vec_create(&xv, g->ex, n, t);
    if (st == PSL_OK) {
        memset(x, 0, (size_t)n * sizeof *x);
        st = psl_vec_set(xv, x);
    }
    if (st == PSL_OK) {
        st = psl_solver_solve(g->s, bv, xv, res);
        psl_vec_get(xv, x);
    }
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    return st;
}

static double max_rel_diff(int n, const double *a, const double *b)
{
    double e = 0.0, m = 0.0;
    for (int i = 0; i < n; i++) {
        e = fmax(e, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return e / m;
}

/* ---------------------------------------------------------- vs textbook */

TEST(gmres_fgmres_match_textbook)
{
    const int n = 40;
    double *D = small_dense(n), *dinv = malloc(n * sizeof *dinv);
    for (int i = 0; i < n; i++)
        dinv[i] = 1.0 / D[i * n + i];
    psl_matrix *A = from_dense(n, D);
    CHECK(A != NULL);
    double *b = make_b(n, 3), *x = malloc(n * sizeof *x), *xt = malloc(n * sizeof *xt);
    static hist_t ref, got;
    const int restarts[] = {7, 40};
    for (int ri = 0; ri < 2; ri++)
        for (int pc = 0; pc < 2; pc++)
            for (int meth = 0; meth < 2; meth++)
                for (int reorth = 0; reorth < 2; reorth++) {
                    int m = restarts[ri];
                    int it_ref = textbook_gmres(n, D, pc ? dinv : NULL, b, m, 1e-11, 500, xt,
                                                ref.hist);
                    psl_solver_options o;
                    psl_solver_options_init(&o);
                    o.tol = 1e-11;
                    o.max_iters = 500;
                    o.restart = m;
                    o.gmres_reorth = reorth;
                    memset(&got, 0, sizeof got);
                    o.monitor = record;
                    o.monitor_ctx = &got;
                    rig g;
                    psl_method method = meth ? PSL_METHOD_FGMRES : PSL_METHOD_GMRES;
                    CHECK_OK(rig_make(&g, method, A, pc, &o));
                    psl_solve_result res;
                    CHECK_OK(rig_solve(&g, n, PSL_FP64, b, x, &res));
                    CHECK_MSG(res.iterations == it_ref && got.last == it_ref,
                              "m %d precond %d %s reorth %d: %d steps, textbook %d", m, pc,
                              meth ? "FGMRES" : "GMRES", reorth, res.iterations, it_ref);
                    CHECK(res.reason == PSL_REASON_CONVERGED);
                    /* relative 1e-9, with a floor of a few roundings of ||b|| */
                    int bad = 0;
                    for (int k = 0; k <= it_ref && k <= res.iterations; k++)
                        bad += !(fabs(got.hist[k] - ref.hist[k]) <= 1e-9 * ref.hist[k] + 1e-15);
                    CHECK_MSG(bad == 0, "m %d precond %d: %d residuals of the history differ", m,
                              pc, bad);
                    double dx = max_rel_diff(n, x, xt);
                    CHECK_MSG(dx < 1e-10, "m %d precond %d: x off by %g", m, pc, dx);
                    csr_ref R = view(A);
                    double rel = ref_relres(&R, b, x);
                    CHECK(rel < 1e-11 && fabs(rel - res.relres) <= 1e-3 * rel);
                    rig_free(&g);
                }
    free(D), free(dinv), free(b), free(x), free(xt);
    psl_matrix_destroy(&A);
}

TEST(bicgstab_matches_textbook)
{
    const int n = 40;
    double *D = small_dense(n), *dinv = malloc(n * sizeof *dinv);
    for (int i = 0; i < n; i++)
        dinv[i] = 1.0 / D[i * n + i];
    psl_matrix *A = from_dense(n, D);
    double *b = make_b(n, 8), *x = malloc(n * sizeof *x), *xt = malloc(n * sizeof *xt);
    static hist_t ref, got;
    for (int pc = 0; pc < 2; pc++) {
        int it_ref = textbook_bicgstab(n, D, pc ? dinv : NULL, b, 1e-11, 500, xt, ref.hist);
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.tol = 1e-11;
        o.max_iters = 500;
        memset(&got, 0, sizeof got);
        o.monitor = record;
        o.monitor_ctx = &got;
        rig g;
        CHECK_OK(rig_make(&g, PSL_METHOD_BICGSTAB, A, pc, &o));
        psl_solve_result res;
        CHECK_OK(rig_solve(&g, n, PSL_FP64, b, x, &res));
        CHECK_MSG(res.iterations == it_ref, "precond %d: %d iterations, textbook %d", pc,
                  res.iterations, it_ref);
        CHECK(res.reason == PSL_REASON_CONVERGED);
        int bad = 0; /* relative 1e-9, with a floor of a few roundings of ||b|| */
        for (int k = 0; k <= it_ref && k <= res.iterations; k++)
            bad += !(fabs(got.hist[k] - ref.hist[k]) <= 1e-9 * ref.hist[k] + 1e-15);
        CHECK_MSG(bad == 0, "precond %d: %d residuals of the history differ", pc, bad);
        CHECK_MSG(max_rel_diff(n, x, xt) < 1e-10, "precond %d: x off by %g", pc,
                  max_rel_diff(n, x, xt));
        csr_ref R = view(A);
        CHECK(ref_relres(&R, b, x) < 1e-11);
        rig_free(&g);
    }
    free(D), free(dinv), free(b), free(x), free(xt);
    psl_matrix_destroy(&A);
}

/* ---------------------------------------------------------- convergence */

/* Upwind convection-diffusion on an nx x nx grid: -lap u + c (u_x + u_y). */
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

/* Jacobi with a negative diagonal: the nonsymmetric methods take it
 * (psl_precond_jacobi_general) and converge, scaled or not; CG refuses it
 * naming the row (its preconditioner must be SPD). The matrix is convdiff
 * with every third row negated. */
TEST(jacobi_negative_diagonal)
{
    psl_matrix *C = convdiff(12, 1.0);
    csr_ref R0 = view(C);
    int32_t n = R0.n;
    int64_t nnz = R0.rp[n];
    double *v = malloc((size_t)nnz * sizeof *v);
    for (int32_t i = 0; i < n; i++)
        for (int64_t k = R0.rp[i]; k < R0.rp[i + 1]; k++)
            v[k] = i % 3 == 0 ? -R0.va[k] : R0.va[k];
    psl_matrix *A = csr(n, R0.rp, R0.ci, v);
    csr_ref R = view(A);
    double *b = make_b(n, 17), *x = calloc((size_t)n, sizeof *x);
    const psl_solve_method ms[] = {PSL_SOLVE_GMRES, PSL_SOLVE_FGMRES, PSL_SOLVE_BICGSTAB};
    for (int m = 0; m < 3; m++)
        for (int scale = 0; scale < 2; scale++) {
            psl_solve_config c;
            psl_solve_config_init(&c);
            c.method = ms[m];
            c.precond = PSL_PRECOND_JACOBI;
            c.scale = scale;
            c.solver.tol = 1e-10;
            memset(x, 0, (size_t)n * sizeof *x);
            psl_status st = psl_solve(A, b, x, &c, NULL);
            double rel = ref_relres(&R, b, x);
            CHECK_MSG(st == PSL_OK && rel < 1e-9, "method %d scale %d: %s, relres %g; %s",
                      (int)ms[m], scale, psl_status_string(st), rel, psl_last_error_message());
        }
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.scale = 0; /* CG + Jacobi: refused, row 0 named, x untouched */
    x[0] = 7.0;
    CHECK_ST(psl_solve(A, b, x, &c, NULL), PSL_ERR_INVALID_MATRIX);
    CHECK(strstr(psl_last_error_message(), "row 0") != NULL && x[0] == 7.0);
    psl_exec *ex = NULL;
    psl_op *M = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_ST(psl_precond_jacobi(&M, ex, A, PSL_FP64), PSL_ERR_INVALID_MATRIX);
    CHECK_OK(psl_precond_jacobi_general(&M, ex, A, PSL_FP64));
    psl_op_destroy(&M);
    psl_matrix_destroy(&A); /* a zero on row 5's diagonal: refused too */
    for (int64_t k = R0.rp[5]; k < R0.rp[6]; k++)
        v[k] = R0.ci[k] == 5 ? 0.0 : R0.va[k];
    A = csr(n, R0.rp, R0.ci, v);
    CHECK_ST(psl_precond_jacobi_general(&M, ex, A, PSL_FP64), PSL_ERR_INVALID_MATRIX);
    CHECK(strstr(psl_last_error_message(), "row 5") != NULL);
    psl_exec_destroy(&ex);
    free(b), free(x), free(v);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&C);
}

/* Every method, without and (jacobi) with Jacobi, reaches tol on A by the
 * test's residual. */
static void converge_all(const char *name, const psl_matrix *A, int restart, int32_t maxit,
                         int jacobi)
{
    csr_ref R = view(A);
    double *b = make_b(R.n, 5), *x = malloc((size_t)R.n * sizeof *x);
    const psl_method ms[] = {PSL_METHOD_GMRES, PSL_METHOD_FGMRES, PSL_METHOD_BICGSTAB};
    for (int mi = 0; mi < 3; mi++)
        for (int pc = 0; pc <= jacobi; pc++) {
            psl_solver_options o;
            psl_solver_options_init(&o);
            o.max_iters = maxit;
            o.restart = restart;
            rig g;
            CHECK_OK(rig_make(&g, ms[mi], A, pc, &o));
            psl_solve_result res;
            psl_status st = rig_solve(&g, R.n, PSL_FP64, b, x, &res);
            double rel = ref_relres(&R, b, x);
            CHECK_MSG(st == PSL_OK && rel < 1e-9 && res.reason == PSL_REASON_CONVERGED,
                      "%s method %d precond %d: %s, %d iterations, relres %g (reported %g): %s",
                      name, (int)ms[mi], pc, psl_status_string(st), res.iterations, rel,
                      res.relres, psl_last_error_message());
            CHECK(fabs(rel - res.relres) <= 0.05 * rel + 1e-15);
            printf("  %s %s%s: %d iterations, relres %.2e\n", name,
                   mi == 0 ? "GMRES" : mi == 1 ? "FGMRES" : "BiCGStab", pc ? "+Jacobi" : "",
                   res.iterations, rel);
            rig_free(&g);
        }
    free(b), free(x);
}

TEST(converges_on_nonsymmetric_matrices)
{
    psl_matrix *C = convdiff(40, 1.5);
    converge_all("convdiff40", C, 30, 5000, 1);
    psl_matrix_destroy(&C);
    psl_matrix *H = NULL;
    CHECK_OK(psl_generate(&H, "gen:hpgmp:4:4:4"));
    if (H)
        converge_all("hpgmp:4:4:4", H, 30, 5000, 1);
    psl_matrix_destroy(&H);
    /* a real nonsymmetric matrix, scaled as the solvers are used (its diagonal
     * is then +-1: Jacobi, which wants a positive one, is left out) */
    char path[8192];
    snprintf(path, sizeof path, "%s/orsirr_1.mtx", psl_test_matrix_dir());
    psl_matrix *O = NULL;
    if (psl_matrix_open(&O, path) != PSL_OK) {
        psl_test_matrix_missing("orsirr_1", path);
        return;
    }
    psl_matrix *S = NULL;
    CHECK_OK(psl_matrix_scale_symmetric(&S, O, NULL));
    if (S)
        converge_all("orsirr_1", S, 100, 20000, 0);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&O);
}

/* FGMRES with a variable preconditioner: an inner solver run for a fixed
 * number of iterations (F3R's two upper layers: an FP32 GMRES inner on the
 * unit-norm Arnoldi vectors; an inner CG on an SPD matrix; an inner BiCGStab). */
TEST(fgmres_with_inner_solvers)
{
    psl_matrix *C = convdiff(48, 1.0);
    csr_ref R = view(C);
    double *b = make_b(R.n, 2), *x = malloc((size_t)R.n * sizeof *x);
    for (int kind = 0; kind < 3; kind++) {
        psl_exec *ex = NULL;
        psl_op *A64 = NULL, *A32 = NULL, *M32 = NULL;
        CHECK_OK(psl_exec_create_cpu(&ex));
        CHECK_OK(psl_op_matrix(&A64, ex, C, PSL_FP64));
        CHECK_OK(psl_op_matrix(&A32, ex, C, PSL_FP32));
        CHECK_OK(psl_precond_jacobi(&M32, ex, C, PSL_FP32));
        psl_solver_options io;
        psl_solver_options_init(&io);
        io.vec_type = PSL_FP32;
        io.dot_acc = PSL_FP32;
        io.op_type = PSL_FP64;
        io.fixed_iters = kind == 0 ? 8 : 4;
        psl_method im = kind == 0 ? PSL_METHOD_FGMRES : kind == 1 ? PSL_METHOD_GMRES
                                                                  : PSL_METHOD_BICGSTAB;
        if (kind == 1)
            io.op_unit_input = 0;
        psl_solver *inner = NULL;
        CHECK_OK(psl_solver_create(&inner, im, A32, M32, &io));
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.restart = 20;
        o.max_iters = 2000;
        psl_solver *outer = NULL;
        CHECK_OK(psl_solver_create(&outer, PSL_METHOD_FGMRES, A64, psl_solver_op(inner), &o));
        psl_vec *bv = NULL, *xv = NULL;
        CHECK_OK(psl_vec_wrap(&bv, ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
        CHECK_OK(psl_vec_create(&xv, ex, R.n, PSL_FP64));
        psl_solve_result res;
        CHECK_OK(psl_solver_solve(outer, bv, xv, &res));
        CHECK_OK(psl_vec_get(xv, x));
        double rel = ref_relres(&R, b, x);
        CHECK_MSG(rel < 1e-9 && res.reason == PSL_REASON_CONVERGED, "inner %d: relres %g", kind,
                  rel);
        CHECK_MSG(res.inner_iterations == (int64_t)res.iterations * io.fixed_iters,
                  "inner %d: %lld inner for %d outer", kind, (long long)res.inner_iterations,
                  res.iterations);
        printf("  FGMRES(20) over inner %d x %d: %d outer, relres %.2e\n", kind, io.fixed_iters,
               res.iterations, rel);
        /* a unit-input GMRES operator is refused by methods that do not pass unit vectors */
        if (kind == 0) {
            psl_solver *bad = NULL;
            CHECK_ST(psl_solver_create(&bad, PSL_METHOD_GMRES, A64, psl_solver_op(inner), &o),
                     PSL_ERR_INVALID_VALUE);
            CHECK_ST(psl_solver_create(&bad, PSL_METHOD_BICGSTAB, A64, psl_solver_op(inner), &o),
                     PSL_ERR_INVALID_VALUE);
            CHECK(bad == NULL);
        }
        psl_vec_destroy(&bv);
        psl_vec_destroy(&xv);
        psl_solver_destroy(&outer);
        psl_solver_destroy(&inner);
        psl_op_destroy(&M32);
        psl_op_destroy(&A32);
        psl_op_destroy(&A64);
        psl_exec_destroy(&ex);
    }
    free(b), free(x);
    psl_matrix_destroy(&C);

    /* an inner CG (fixed iterations: a nonlinear preconditioner) on an SPD matrix */
    psl_matrix *L = NULL;
    CHECK_OK(psl_generate(&L, "gen:lap2d:40"));
    R = view(L);
    b = make_b(R.n, 4);
    x = malloc((size_t)R.n * sizeof *x);
    psl_exec *ex = NULL;
    psl_op *A = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&A, ex, L, PSL_FP64));
    psl_solver_options io;
    psl_solver_options_init(&io);
    io.fixed_iters = 5;
    psl_solver *cg = NULL, *outer = NULL;
    CHECK_OK(psl_solver_create(&cg, PSL_METHOD_CG, A, NULL, &io));
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.restart = 10;
    CHECK_OK(psl_solver_create(&outer, PSL_METHOD_FGMRES, A, psl_solver_op(cg), &o));
    psl_vec *bv = NULL, *xv = NULL;
    CHECK_OK(psl_vec_wrap(&bv, ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&xv, ex, R.n, PSL_FP64));
    psl_solve_result res;
    CHECK_OK(psl_solver_solve(outer, bv, xv, &res));
    CHECK_OK(psl_vec_get(xv, x));
    CHECK(ref_relres(&R, b, x) < 1e-9);
    CHECK(res.inner_iterations == 5 * (int64_t)res.iterations);
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    psl_solver_destroy(&outer);
    psl_solver_destroy(&cg);
    psl_op_destroy(&A);
    psl_exec_destroy(&ex);
    free(b), free(x);
    psl_matrix_destroy(&L);
}

/* BiCGStab in FP64 preconditioned by a mixed-precision inner solver through
 * the operator layer: FP32 GMRES(8) with Jacobi, normalising its input. */
TEST(bicgstab_with_inner_solver)
{
    psl_matrix *C = convdiff(48, 1.0);
    csr_ref R = view(C);
    double *b = make_b(R.n, 6), *x = malloc((size_t)R.n * sizeof *x);
    psl_exec *ex = NULL;
    psl_op *A64 = NULL, *A32 = NULL, *M32 = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&A64, ex, C, PSL_FP64));
    CHECK_OK(psl_op_matrix(&A32, ex, C, PSL_FP32));
    CHECK_OK(psl_precond_jacobi(&M32, ex, C, PSL_FP32));
    psl_solver_options io;
    psl_solver_options_init(&io);
    io.vec_type = PSL_FP32;
    io.fixed_iters = 8;
    io.op_unit_input = 0;
    psl_solver *inner = NULL, *outer = NULL;
    CHECK_OK(psl_solver_create(&inner, PSL_METHOD_GMRES, A32, M32, &io));
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.max_iters = 500;
    CHECK_OK(psl_solver_create(&outer, PSL_METHOD_BICGSTAB, A64, psl_solver_op(inner), &o));
    psl_vec *bv = NULL, *xv = NULL;
    CHECK_OK(psl_vec_wrap(&bv, ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&xv, ex, R.n, PSL_FP64));
    psl_solve_result res;
    psl_status st = psl_solver_solve(outer, bv, xv, &res);
    CHECK_OK(psl_vec_get(xv, x));
    double rel = ref_relres(&R, b, x);
    CHECK_MSG(st == PSL_OK && rel < 1e-9, "%s, %d iterations, relres %g: %s",
              psl_status_string(st), res.iterations, rel, psl_last_error_message());
    /* two preconditioner applications per iteration */
    CHECK(res.inner_iterations == 2 * 8 * (int64_t)res.iterations);
    printf("  BiCGStab over FP32 GMRES(8): %d iterations, relres %.2e\n", res.iterations, rel);
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    psl_solver_destroy(&outer);
    psl_solver_destroy(&inner);
    psl_op_destroy(&M32);
    psl_op_destroy(&A32);
    psl_op_destroy(&A64);
    psl_exec_destroy(&ex);
    free(b), free(x);
    psl_matrix_destroy(&C);
}

/* FGMRES (and BiCGStab) in FP32 vectors to a loose tol, checked by the FP64
 * residual operator (res.relres) and by the test. */
TEST(fp32_fgmres_confirmed_in_fp64)
{
    psl_matrix *H = NULL;
    CHECK_OK(psl_generate(&H, "gen:hpgmp:4:4:4"));
    csr_ref R = view(H);
    double *b = make_b(R.n, 7), *x = malloc((size_t)R.n * sizeof *x);
    for (int meth = 0; meth < 2; meth++) {
        psl_exec *ex = NULL;
        psl_op *A32 = NULL, *M32 = NULL, *A64 = NULL;
        CHECK_OK(psl_exec_create_cpu(&ex));
        CHECK_OK(psl_op_matrix(&A32, ex, H, PSL_FP32));
        CHECK_OK(psl_op_matrix(&A64, ex, H, PSL_FP64));
        CHECK_OK(psl_precond_jacobi(&M32, ex, H, PSL_FP32));
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.vec_type = PSL_FP32;
        o.tol = 1e-5;
        o.residual_op = A64;
        psl_solver *s = NULL;
        CHECK_OK(psl_solver_create(&s, meth ? PSL_METHOD_BICGSTAB : PSL_METHOD_FGMRES, A32, M32,
                                   &o));
        psl_vec *bv = NULL, *xv = NULL;
        CHECK_OK(psl_vec_create(&bv, ex, R.n, PSL_FP32));
        CHECK_OK(psl_vec_set(bv, b));
        CHECK_OK(psl_vec_create(&xv, ex, R.n, PSL_FP32));
        psl_solve_result res;
        CHECK_OK(psl_solver_solve(s, bv, xv, &res));
        CHECK_OK(psl_vec_get(xv, x));
        double *bf = malloc((size_t)R.n * sizeof *bf); /* b as stored in FP32 */
        CHECK_OK(psl_vec_get(bv, bf));
        double rel = ref_relres(&R, bf, x);
        CHECK_MSG(rel < 1e-5 && res.relres < 1e-5, "method %d: relres %g, reported %g", meth, rel,
                  res.relres);
        CHECK(fabs(rel - res.relres) <= 1e-3 * rel);
        free(bf);
        psl_vec_destroy(&bv);
        psl_vec_destroy(&xv);
        psl_solver_destroy(&s);
        psl_op_destroy(&M32);
        psl_op_destroy(&A32);
        psl_op_destroy(&A64);
        psl_exec_destroy(&ex);
    }
    free(b), free(x);
    psl_matrix_destroy(&H);
}

/* The second Gram-Schmidt pass: one cycle of GMRES(300) on a bidiagonal
 * matrix with eigenvalues 1 .. 1e8 loses orthogonality with one pass (the
 * estimate falls far below the true residual); with gmres_reorth the
 * estimate is the true residual and that is 1e3 times lower. */
TEST(gmres_second_pass_keeps_orthogonality)
{
    const int n = 300;
    int64_t *rp = malloc((n + 1) * sizeof *rp);
    int32_t *ci = malloc(2 * n * sizeof *ci);
    double *v = malloc(2 * n * sizeof *v), *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
    int64_t k = 0;
    rp[0] = 0;
    for (int i = 0; i < n; i++) {
        ci[k] = i, v[k++] = pow(10.0, 8.0 * i / (n - 1));
        if (i + 1 < n)
            ci[k] = i + 1, v[k++] = 0.5;
        rp[i + 1] = k;
        b[i] = 1.0;
    }
    psl_matrix *A = csr(n, rp, ci, v);
    csr_ref R = view(A);
    double rel[2] = {0, 0};
    for (int re = 0; re < 2; re++) {
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.restart = n;
        o.max_iters = n;
        o.tol = 1e-12;
        o.gmres_reorth = re;
        rig g;
        CHECK_OK(rig_make(&g, PSL_METHOD_GMRES, A, 0, &o));
        psl_solve_result res;
        CHECK_ST(rig_solve(&g, n, PSL_FP64, b, x, &res), PSL_ERR_NOT_CONVERGED);
        rel[re] = ref_relres(&R, b, x);
        CHECK(fabs(rel[re] - res.relres) <= 1e-6 * rel[re]);
        if (re)
            CHECK_MSG(fabs(res.relres_recursive - rel[re]) <= 0.01 * rel[re] && rel[re] < 1e-8,
                      "estimate %g, true %g", res.relres_recursive, rel[re]);
        else
            CHECK_MSG(res.relres_recursive < 0.5 * rel[re], "estimate %g, true %g",
                      res.relres_recursive, rel[re]);
        rig_free(&g);
    }
    CHECK_MSG(rel[0] > 1e3 * rel[1], "one pass %g, two %g", rel[0], rel[1]);
    free(rp), free(ci), free(v), free(b), free(x);
    psl_matrix_destroy(&A);
}

/* ---------------------------------------------------------- operators */

/* GMRES as an operator: fixed_iters steps from zero on its input as given
 * (op_unit_input) equal the textbook's first cycle on a unit-norm b; with
 * op_unit_input = 0 (and in psl_solver_solve) the input is normalised, so
 * the result is linear in its scale. */
TEST(gmres_as_operator)
{
    const int n = 40, m = 6;
    double *D = small_dense(n), *b = make_b(n, 12), *xt = malloc(n * sizeof *xt);
    double nb = sqrt(dot(n, b, b));
    for (int i = 0; i < n; i++)
        b[i] /= nb;
    static hist_t ref;
    CHECK(textbook_gmres(n, D, NULL, b, m, 1e-300, m, xt, ref.hist) == m);
    psl_matrix *Am = from_dense(n, D);
    psl_exec *ex = NULL;
    psl_op *A = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&A, ex, Am, PSL_FP64));
    double *y1 = malloc(n * sizeof *y1), *y2 = malloc(n * sizeof *y2);
    for (int unit = 1; unit >= 0; unit--) {
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.fixed_iters = m;
        o.op_unit_input = unit;
        psl_solver *s = NULL;
        CHECK_OK(psl_solver_create(&s, PSL_METHOD_GMRES, A, NULL, &o));
        const psl_op *S = psl_solver_op(s);
        CHECK(S != NULL);
        psl_vec *bv = NULL, *yv = NULL;
        CHECK_OK(psl_vec_wrap(&bv, ex, n, PSL_FP64, b, PSL_MEM_COPY));
        CHECK_OK(psl_vec_create(&yv, ex, n, PSL_FP64));
        CHECK_OK(psl_vec_fill(yv, NAN)); /* beta = 0: y is not read */
        CHECK_OK(psl_op_apply(S, 1.0, bv, 0.0, yv));
        CHECK_OK(psl_vec_get(yv, y1));
        CHECK_MSG(max_rel_diff(n, y1, xt) < 1e-12, "unit %d: %g off the textbook", unit,
                  max_rel_diff(n, y1, xt));
        CHECK_OK(psl_op_apply(S, 2.0, bv, -1.0, yv)); /* y = 2 S(b) - y = S(b) */
        CHECK_OK(psl_vec_get(yv, y2));
        CHECK(max_rel_diff(n, y2, y1) < 1e-14);
        if (!unit) { /* S(3b) = 3 S(b) */
            CHECK_OK(psl_vec_scale(3.0, bv));
            CHECK_OK(psl_op_apply(S, 1.0, bv, 0.0, yv));
            CHECK_OK(psl_vec_get(yv, y2));
            for (int i = 0; i < n; i++)
                y2[i] /= 3.0;
            CHECK(max_rel_diff(n, y2, y1) < 1e-13);
            /* psl_solver_solve normalises b as well */
            psl_solve_result res;
            CHECK_OK(psl_solver_solve(s, bv, yv, &res));
            CHECK(res.reason == PSL_REASON_FIXED_ITERS && res.iterations == m);
            CHECK_OK(psl_vec_get(yv, y2));
            for (int i = 0; i < n; i++)
                y2[i] /= 3.0;
            CHECK(max_rel_diff(n, y2, y1) < 1e-13);
        }
        CHECK(psl_solver_op_iterations(s) == (unit ? 2 : 3) * m);
        psl_vec_destroy(&bv);
        psl_vec_destroy(&yv);
        psl_solver_destroy(&s);
    }
    /* an exact (happy) breakdown inside an inner cycle: the identity in 1 step */
    {
        int64_t rp[4] = {0, 1, 2, 3};
        int32_t ci[3] = {0, 1, 2};
        double v[3] = {2, 2, 2}, h[3] = {0.6, 0, 0.8}, y[3];
        psl_matrix *I2 = csr(3, rp, ci, v);
        psl_op *Ai = NULL;
        CHECK_OK(psl_op_matrix(&Ai, ex, I2, PSL_FP64));
        psl_solver_options o;
        psl_solver_options_init(&o);
        o.fixed_iters = 5;
        psl_solver *s = NULL;
        CHECK_OK(psl_solver_create(&s, PSL_METHOD_FGMRES, Ai, NULL, &o));
        psl_vec *bv = NULL, *yv = NULL;
        CHECK_OK(psl_vec_wrap(&bv, ex, 3, PSL_FP64, h, PSL_MEM_COPY));
        CHECK_OK(psl_vec_create(&yv, ex, 3, PSL_FP64));
        CHECK_OK(psl_op_apply(psl_solver_op(s), 1.0, bv, 0.0, yv));
        CHECK_OK(psl_vec_get(yv, y));
        for (int i = 0; i < 3; i++)
            CHECK(fabs(y[i] - h[i] / 2.0) <= 1e-15);
        psl_vec_destroy(&bv);
        psl_vec_destroy(&yv);
        psl_solver_destroy(&s);
        psl_op_destroy(&Ai);
        psl_matrix_destroy(&I2);
    }
    free(D), free(b), free(xt), free(y1), free(y2);
    psl_op_destroy(&A);
    psl_exec_destroy(&ex);
    psl_matrix_destroy(&Am);
}

/* ---------------------------------------------------------- bad input */

TEST(bad_input_limits_and_breakdowns)
{
    psl_matrix *C = convdiff(10, 1.0);
    csr_ref R = view(C);
    const psl_method ms[] = {PSL_METHOD_GMRES, PSL_METHOD_FGMRES, PSL_METHOD_BICGSTAB};
    for (int mi = 0; mi < 3; mi++) {
        psl_exec *ex = NULL;
        psl_op *A = NULL;
        CHECK_OK(psl_exec_create_cpu(&ex));
        CHECK_OK(psl_op_matrix(&A, ex, C, PSL_FP64));
        psl_solver_options o;
        psl_solver_options_init(&o);
        psl_solver *s = NULL;
        if (mi < 2) { /* restart out of range */
            o.restart = 0;
            CHECK_ST(psl_solver_create(&s, ms[mi], A, NULL, &o), PSL_ERR_INVALID_VALUE);
            CHECK(strstr(psl_last_error_message(), "restart 0") != NULL);
            o.restart = PSL_GMRES_RESTART_MAX + 1;
            CHECK_ST(psl_solver_create(&s, ms[mi], A, NULL, &o), PSL_ERR_INVALID_VALUE);
            psl_solver_options_init(&o);
            o.gmres_reorth = 2;
            CHECK_ST(psl_solver_create(&s, ms[mi], A, NULL, &o), PSL_ERR_INVALID_VALUE);
            CHECK(s == NULL);
            psl_solver_options_init(&o);
        }
        o.max_iters = 4;
        o.restart = 3;
        CHECK_OK(psl_solver_create(&s, ms[mi], A, NULL, &o));
        double *b = make_b(100, 1), *x = calloc(100, sizeof *x);
        psl_vec *b99 = NULL, *bv = NULL, *xv = NULL, *x32 = NULL;
        CHECK_OK(psl_vec_create(&b99, ex, 99, PSL_FP64));
        CHECK_OK(psl_vec_create(&x32, ex, 100, PSL_FP32));
        CHECK_OK(psl_vec_create(&xv, ex, 100, PSL_FP64));
        CHECK_OK(psl_vec_fill(xv, 7.0));
        CHECK_ST(psl_solver_solve(s, b99, xv, NULL), PSL_ERR_INVALID_VALUE);
        CHECK_ST(psl_solver_solve(s, x32, xv, NULL), PSL_ERR_INVALID_VALUE);
        /* NaN in b: refused, x untouched */
        b[17] = NAN;
        CHECK_OK(psl_vec_wrap(&bv, ex, 100, PSL_FP64, b, PSL_MEM_COPY));
        CHECK_ST(psl_solver_solve(s, bv, xv, NULL), PSL_ERR_NONFINITE);
        double g[100];
        CHECK_OK(psl_vec_get(xv, g));
        CHECK(g[0] == 7.0 && g[99] == 7.0);
        psl_vec_destroy(&bv);
        /* the iteration limit: status, reason, the residual reached */
        b[17] = 0.5;
        CHECK_OK(psl_vec_wrap(&bv, ex, 100, PSL_FP64, b, PSL_MEM_COPY));
        CHECK_OK(psl_vec_fill(xv, 0.0));
        psl_solve_result res;
        CHECK_ST(psl_solver_solve(s, bv, xv, &res), PSL_ERR_NOT_CONVERGED);
        CHECK(res.reason == PSL_REASON_MAX_ITERS && res.iterations == 4);
        CHECK(strstr(psl_last_error_message(), "4 iterations") != NULL);
        CHECK_OK(psl_vec_get(xv, x));
        double rel = ref_relres(&R, b, x);
        CHECK_MSG(rel > 1e-9 && rel < 1.0 && fabs(rel - res.relres) <= 1e-12,
                  "method %d: relres %g, reported %g", mi, rel, res.relres);
        psl_vec_destroy(&b99);
        psl_vec_destroy(&bv);
        psl_vec_destroy(&xv);
        psl_vec_destroy(&x32);
        psl_solver_destroy(&s);
        psl_op_destroy(&A);
        psl_exec_destroy(&ex);
        free(b), free(x);
    }
    psl_matrix_destroy(&C);

    /* BiCGStab breakdowns, on 2 x 2 matrices where they happen exactly:
     * [[0,1],[1,0]] e_0: rhat.A p = 0 at the first step (rho breakdown);
     * [[2,1],[1,0]] e_0: s = (0, -1/2), t = A s is orthogonal to it (omega = 0). */
    const double vals[2][4] = {{0, 1, 1, 0}, {2, 1, 1, 0}};
    const psl_reason why[2] = {PSL_REASON_RHO_ZERO, PSL_REASON_OMEGA_ZERO};
    for (int c = 0; c < 2; c++) {
        psl_matrix *B = from_dense(2, vals[c]);
        double b[2] = {1, 0}, x[2] = {0, 0};
        psl_solver_options o;
        psl_solver_options_init(&o);
        rig g;
        CHECK_OK(rig_make(&g, PSL_METHOD_BICGSTAB, B, 0, &o));
        psl_solve_result res;
        CHECK_ST(rig_solve(&g, 2, PSL_FP64, b, x, &res), PSL_ERR_BREAKDOWN);
        CHECK_MSG(res.reason == why[c], "case %d: %s", c, psl_reason_name(res.reason));
        CHECK(strstr(psl_last_error_message(), c ? "omega" : "rho") != NULL);
        CHECK(isfinite(x[0]) && isfinite(x[1]) && res.iterations == 1);
        csr_ref RB = view(B);
        CHECK(fabs(ref_relres(&RB, b, x) - res.relres) <= 1e-15);
        rig_free(&g);
        psl_matrix_destroy(&B);
    }
    CHECK(strcmp(psl_reason_name(PSL_REASON_RHO_ZERO), "rho-breakdown") == 0);
    CHECK(strcmp(psl_reason_name(PSL_REASON_OMEGA_ZERO), "omega-breakdown") == 0);
    /* GMRES on a singular matrix with b outside its range: the residual cannot
     * be reduced past its part outside the range; a clear breakdown, x finite */
    {
        int64_t rp[4] = {0, 1, 2, 2};
        int32_t ci[2] = {0, 1};
        double v[2] = {1, 2}, b[3] = {1, 2, 3}, x[3];
        psl_matrix *S = csr(3, rp, ci, v);
        for (int mi = 0; mi < 2; mi++) {
            psl_solver_options o;
            psl_solver_options_init(&o);
            rig g;
            CHECK_OK(rig_make(&g, ms[mi], S, 0, &o));
            psl_solve_result res;
            psl_status st = rig_solve(&g, 3, PSL_FP64, b, x, &res);
            CHECK_ST(st, PSL_ERR_BREAKDOWN);
            CHECK(res.reason == PSL_REASON_STAGNATION);
            CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]));
            CHECK(fabs(x[0] - 1.0) < 1e-12 && fabs(x[1] - 1.0) < 1e-12);
            CHECK(fabs(res.relres - 3.0 / sqrt(14.0)) < 1e-12);
            rig_free(&g);
        }
        psl_matrix_destroy(&S);
    }
}

/* The same inputs give the same bits; an initial guess is used. */
TEST(repeatable_and_warm_start)
{
    psl_matrix *C = convdiff(30, 2.0);
    csr_ref R = view(C);
    double *b = make_b(R.n, 4), *x1 = malloc(R.n * sizeof *x1), *x2 = malloc(R.n * sizeof *x2);
    const psl_method ms[] = {PSL_METHOD_GMRES, PSL_METHOD_FGMRES, PSL_METHOD_BICGSTAB};
    for (int mi = 0; mi < 3; mi++) {
        psl_solver_options o;
        psl_solver_options_init(&o);
        rig g;
        CHECK_OK(rig_make(&g, ms[mi], C, 1, &o));
        psl_solve_result res;
        CHECK_OK(rig_solve(&g, R.n, PSL_FP64, b, x1, &res));
        CHECK_OK(rig_solve(&g, R.n, PSL_FP64, b, x2, &res));
        CHECK(memcmp(x1, x2, R.n * sizeof *x1) == 0);
        /* from the solution: converged at once */
        psl_vec *bv = NULL, *xv = NULL;
        CHECK_OK(psl_vec_wrap(&bv, g.ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
        CHECK_OK(psl_vec_wrap(&xv, g.ex, R.n, PSL_FP64, x1, PSL_MEM_COPY));
        CHECK_OK(psl_solver_solve(g.s, bv, xv, &res));
        CHECK_MSG(res.iterations <= 1, "method %d: %d iterations from the solution", mi,
                  res.iterations);
        psl_vec_destroy(&bv);
        psl_vec_destroy(&xv);
        rig_free(&g);
    }
    free(b), free(x1), free(x2);
    psl_matrix_destroy(&C);
}

/* psl_solve and `packsell solve` with the nonsymmetric methods: convergence
 * by a residual computed here on the unscaled system, the caller's b kept. */
TEST(psl_solve_and_command)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "gen:hpgmp:4:4:4"));
    csr_ref R = view(A);
    double *b = make_b(R.n, 21), *b0 = malloc((size_t)R.n * sizeof *b0);
    memcpy(b0, b, (size_t)R.n * sizeof *b0);
    double *x = calloc((size_t)R.n, sizeof *x);
    const psl_solve_method ms[] = {PSL_SOLVE_GMRES, PSL_SOLVE_FGMRES, PSL_SOLVE_BICGSTAB};
    for (int k = 0; k < 3; k++)
        for (int p = 0; p < 3; p++) {
            psl_solve_config c;
            psl_solve_config_init(&c);
            c.method = ms[k];
            c.precond = (psl_precond_kind)p;
            c.solver.restart = 20;
            psl_solve_report rep;
            memset(x, 0, (size_t)R.n * sizeof *x);
            CHECK_OK(psl_solve(A, b, x, &c, &rep));
            double rel = ref_relres(&R, b, x);
            CHECK_MSG(rel < 1e-9 && rep.result.reason == PSL_REASON_CONVERGED,
                      "method %d precond %d: relres %g", (int)ms[k], p, rel);
            CHECK(memcmp(b, b0, (size_t)R.n * sizeof *b) == 0);
        }
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.method = (psl_solve_method)99;
    CHECK_ST(psl_solve(A, b, x, &c, NULL), PSL_ERR_INVALID_VALUE);
    const char *exe = getenv("PSL_PACKSELL_EXE");
    if (exe) {
        char cmd[1024];
        const char *ok[] = {"--method gmres --restart 10", "--method fgmres", "--method bicgstab"};
        for (int k = 0; k < 3; k++) {
            snprintf(cmd, sizeof cmd, "%s solve gen:hpgmp:4:4:4 %s >/dev/null 2>&1", exe, ok[k]);
            int rc = system(cmd);
            CHECK_MSG(rc != -1 && ((rc >> 8) & 0xff) == 0, "packsell solve %s: exit %d", ok[k], rc);
        }
        const char *bad[] = {"--method gmres --restart 0", "--method pcg --restart 5",
                             "--method bicgstab --fcg-mmax 2"};
        for (int k = 0; k < 3; k++) {
            snprintf(cmd, sizeof cmd, "%s solve gen:hpgmp:4:4:4 %s >/dev/null 2>&1", exe, bad[k]);
            int rc = system(cmd);
            CHECK_MSG(rc != -1 && ((rc >> 8) & 0xff) == 2, "packsell solve %s: exit %d", bad[k], rc);
        }
    }
    free(b), free(b0), free(x);
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"psl_solve_and_command", psl_solve_and_command},
    {"gmres_fgmres_match_textbook", gmres_fgmres_match_textbook},
    {"bicgstab_matches_textbook", bicgstab_matches_textbook},
    {"converges_on_nonsymmetric_matrices", converges_on_nonsymmetric_matrices},
    {"fgmres_with_inner_solvers", fgmres_with_inner_solvers},
    {"bicgstab_with_inner_solver", bicgstab_with_inner_solver},
    {"fp32_fgmres_confirmed_in_fp64", fp32_fgmres_confirmed_in_fp64},
    {"gmres_second_pass_keeps_orthogonality", gmres_second_pass_keeps_orthogonality},
    {"gmres_as_operator", gmres_as_operator},
    {"bad_input_limits_and_breakdowns", bad_input_limits_and_breakdowns},
    {"repeatable_and_warm_start", repeatable_and_warm_start},
    {"jacobi_negative_diagonal", jacobi_negative_diagonal},
};

PSL_TEST_MAIN(tests)
