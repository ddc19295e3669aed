/*
 * test_solver.c -- the solver layer on the CPU: vector operations against
 * plain loops, PCG against a textbook CG written here, every method and
 * preconditioner converging on generated and real SPD matrices (checked by a
 * residual computed here), the solver as an operator, bad input and
 * breakdowns (clear status, finite x), and the packsell solve command.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "packsell.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

/* ||b - A x|| / ||b||, the simplest way. */
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
    return sqrt(rr / bb);
}

static double dot(int32_t n, const double *a, const double *b)
{
    double s = 0.0;
    for (int32_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Textbook Jacobi-preconditioned CG (Saad, Algorithm 9.1), from x = 0, to
 * ||r|| / ||b|| < tol. Returns the iterations. */
static int textbook_pcg(const csr_ref *A, const double *b, double tol, int maxit, double *x)
{
    int32_t n = A->n;
    double *r = malloc(n * sizeof *r), *z = malloc(n * sizeof *z), *p = malloc(n * sizeof *p),
           *q = malloc(n * sizeof *q), *d = malloc(n * sizeof *d);
    for (int32_t i = 0; i < n; i++) {
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] == i)
                d[i] = A->va[k];
        x[i] = 0.0;
        r[i] = b[i];
        z[i] = r[i] / d[i];
        p[i] = z[i];
    }
    double rz = dot(n, r, z), bn = sqrt(dot(n, b, b));
    int it = 0;
    while (it < maxit) {
        it++;
        ref_spmv(A, p, q);
        double alpha = rz / dot(n, p, q);
        for (int32_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = r[i] / d[i];
        }
        if (sqrt(dot(n, r, r)) / bn < tol)
            break;
        double rz2 = dot(n, r, z);
        for (int32_t i = 0; i < n; i++)
            p[i] = z[i] + rz2 / rz * p[i];
        rz = rz2;
    }
    free(r), free(z), free(p), free(q), free(d);
    return it;
}

/* b uniform in [0, 1) from a small LCG. */
static double *make_b(int32_t n, uint64_t seed)
{
    double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    for (int32_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        b[i] = (double)(seed >> 11) * 0x1p-53;
    }
    return b;
}

static psl_matrix *open_or_skip(const char *source)
{
    psl_matrix *A = NULL;
    if (psl_matrix_open(&A, source) != PSL_OK)
        return NULL;
    return A;
}

static psl_matrix *real_matrix(const char *name)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.mtx", psl_test_matrix_dir(), name);
    return open_or_skip(path);
}

static psl_matrix *csr(int32_t n, int32_t m, const int64_t *rp, const int32_t *ci,
                       const double *v);

/* ---------------------------------------------------------- vectors */

static const psl_scalar vtypes[] = {PSL_FP64, PSL_FP32, PSL_FP16};

TEST(vector_ops_match_loops)
{
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    const int64_t lens[] = {0, 1, 7, 5000, 300001};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        int64_t n = lens[li];
        double *hx = make_b((int32_t)n, 3 + li), *hy = make_b((int32_t)n, 7 + li);
        double *gx = malloc((size_t)(n + 1) * sizeof *gx), *gy = malloc((size_t)(n + 1) * sizeof *gy);
        for (size_t ti = 0; ti < 3; ti++) {
            psl_scalar t = vtypes[ti];
            psl_vec *x = NULL, *y = NULL;
            CHECK_OK(psl_vec_create(&x, ex, n, t));
            CHECK_OK(psl_vec_create(&y, ex, n, t));
            CHECK_OK(psl_vec_set(x, hx));
            CHECK_OK(psl_vec_set(y, hy));
            CHECK_OK(psl_vec_get(x, gx)); /* x as rounded to t */
            CHECK_OK(psl_vec_get(y, gy));
            double tol = t == PSL_FP64 ? 1e-15 : t == PSL_FP32 ? 1e-6 : 1e-3;
            double abs_tol = t == PSL_FP16 ? 0x1p-25 : 1e-300; /* FP16 subnormals */
            for (int64_t i = 0; i < n; i++)
                CHECK(fabs(gx[i] - hx[i]) <= tol * fabs(hx[i]) + abs_tol);
            /* dot against a long-double loop of the stored values */
            long double s = 0;
            for (int64_t i = 0; i < n; i++)
                s += (long double)gx[i] * gy[i];
            double d = -1;
            CHECK_OK(psl_vec_dot(x, y, PSL_FP64, &d));
            CHECK_MSG(fabs(d - (double)s) <= 1e-13 * (fabs((double)s) + 1), "n %lld %s: %g vs %g",
                      (long long)n, psl_scalar_name(t), d, (double)s);
            CHECK_OK(psl_vec_dot(x, y, PSL_FP32, &d));
            CHECK(fabs(d - (double)s) <= 1e-4 * (fabs((double)s) + 1));
            /* axpby, in the vector's arithmetic */
            CHECK_OK(psl_vec_axpby(0.5, x, -2.0, y));
            double *gz = malloc((size_t)(n + 1) * sizeof *gz);
            CHECK_OK(psl_vec_get(y, gz));
            int bad = 0;
            for (int64_t i = 0; i < n; i++) {
                double e = t == PSL_FP64 ? 0.5 * gx[i] + -2.0 * gy[i]
                                         : (double)(0.5f * (float)gx[i] + -2.0f * (float)gy[i]);
                if (t == PSL_FP16)
                    bad += fabs(gz[i] - e) > 1e-3 * fabs(e) + 1e-7;
                else
                    bad += gz[i] != e;
            }
            CHECK_MSG(bad == 0, "axpby %s n %lld: %d entries differ", psl_scalar_name(t),
                      (long long)n, bad);
            /* norm, scale, fill, copy with conversion */
            double nrm = -1;
            CHECK_OK(psl_vec_norm2(x, PSL_FP64, &nrm));
            CHECK(fabs(nrm - sqrt(dot((int32_t)n, gx, gx))) <= 1e-13 * (nrm + 1));
            CHECK_OK(psl_vec_fill(y, 3.0));
            CHECK_OK(psl_vec_scale(2.0, y));
            CHECK_OK(psl_vec_get(y, gz));
            for (int64_t i = 0; i < n; i++)
                bad += gz[i] != 6.0;
            CHECK(bad == 0);
            psl_vec *w = NULL;
            CHECK_OK(psl_vec_create(&w, ex, n, PSL_FP64));
            CHECK_OK(psl_vec_copy(x, w));
            CHECK_OK(psl_vec_get(w, gz));
            for (int64_t i = 0; i < n; i++)
                bad += gz[i] != gx[i];
            CHECK(bad == 0);
            free(gz);
            psl_vec_destroy(&w);
            psl_vec_destroy(&x);
            psl_vec_destroy(&y);
            CHECK(x == NULL && y == NULL);
        }
        free(hx), free(hy), free(gx), free(gy);
    }
    psl_exec_destroy(&ex);
    CHECK(ex == NULL);
}

TEST(vector_views_and_misuse)
{
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    double data[4] = {1, 2, 3, 4};
    psl_vec *v = NULL, *c = NULL, *s = NULL;
    CHECK_OK(psl_vec_wrap(&v, ex, 4, PSL_FP64, data, PSL_MEM_VIEW));
    CHECK_OK(psl_vec_wrap(&c, ex, 4, PSL_FP64, data, PSL_MEM_COPY));
    CHECK_OK(psl_vec_scale(2.0, v)); /* a view writes the caller's array */
    CHECK(data[0] == 2.0 && data[3] == 8.0);
    double g[4];
    CHECK_OK(psl_vec_get(c, g)); /* the copy does not see it */
    CHECK(g[0] == 1.0 && g[3] == 4.0);
    void *p = NULL;
    CHECK_OK(psl_vec_info(v, NULL, NULL, &p));
    CHECK(p == data);
    CHECK_OK(psl_vec_create(&s, ex, 3, PSL_FP64));
    double d;
    CHECK_ST(psl_vec_dot(v, s, PSL_FP64, &d), PSL_ERR_INVALID_VALUE); /* lengths */
    CHECK_ST(psl_vec_axpby(1.0, v, 1.0, s), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_vec_copy(v, v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_vec_dot(v, c, PSL_FP16, &d), PSL_ERR_INVALID_VALUE); /* accumulation */
    psl_vec_destroy(&s);
    CHECK(s == NULL);
    psl_vec *bad = NULL;
    CHECK_ST(psl_vec_create(&bad, ex, -1, PSL_FP64), PSL_ERR_INVALID_VALUE);
    CHECK(bad == NULL);
    CHECK_ST(psl_vec_create(&bad, ex, 3, PSL_BF16), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_vec_create(&bad, NULL, 3, PSL_FP64), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_vec_wrap(&bad, ex, 3, PSL_FP64, NULL, PSL_MEM_VIEW), PSL_ERR_NULL_POINTER);
    CHECK(bad == NULL);
    CHECK_ST(psl_vec_axpby(NAN, v, 1.0, c), PSL_ERR_INVALID_VALUE);
    psl_vec_destroy(&v);
    CHECK(data[1] == 4.0); /* the caller's array survives the view */
    psl_vec_destroy(&c);
    psl_exec *e2 = NULL;
    CHECK_ST(psl_exec_create_cuda(&e2, -1, NULL), PSL_ERR_INVALID_VALUE);
    CHECK(e2 == NULL);
    psl_exec_destroy(&ex);
    CHECK(ex == NULL);
}

/* Dots give the same bits whatever the number of threads. */
TEST(dot_is_deterministic)
{
#ifdef _OPENMP
    int64_t n = 1000003;
    double *h = make_b((int32_t)n, 11);
    double r[2];
    for (int k = 0; k < 2; k++) {
        omp_set_num_threads(k + 1);
        psl_exec *ex = NULL;
        psl_vec *x = NULL;
        CHECK_OK(psl_exec_create_cpu(&ex));
        CHECK_OK(psl_vec_wrap(&x, ex, n, PSL_FP64, h, PSL_MEM_VIEW));
        CHECK_OK(psl_vec_dot(x, x, PSL_FP64, &r[k]));
        psl_vec_destroy(&x);
        psl_exec_destroy(&ex);
    }
    omp_set_num_threads(omp_get_num_procs());
    CHECK(memcmp(&r[0], &r[1], sizeof r[0]) == 0);
    free(h);
#endif
}

/* ---------------------------------------------------------- solvers */

typedef struct {
    int calls, last_iter, monotone_iters;
} mon_t;

static void count_monitor(void *ctx, int32_t iter, double relres)
{
    mon_t *m = ctx;
    (void)relres;
    if (m->calls > 0 && iter != m->last_iter + 1)
        m->monotone_iters = 0;
    m->last_iter = iter;
    m->calls++;
}

/* PCG + Jacobi takes the textbook CG's iterations (+-1) and its x solves A. */
static void pcg_vs_textbook(const char *source, psl_matrix *A)
{
    csr_ref R = view(A);
    double *b = make_b(R.n, 5), *xt = malloc((size_t)R.n * sizeof *xt);
    int it_ref = textbook_pcg(&R, b, 1e-9, 20000, xt);
    psl_exec *ex = NULL;
    psl_op *Aop = NULL, *M = NULL;
    psl_solver *s = NULL;
    psl_vec *bv = NULL, *xv = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&Aop, ex, A, PSL_FP64));
    CHECK_OK(psl_precond_jacobi(&M, ex, A, PSL_FP64));
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.max_iters = 20000;
    mon_t mon = {0, -1, 1};
    o.monitor = count_monitor;
    o.monitor_ctx = &mon;
    CHECK_OK(psl_solver_create(&s, PSL_METHOD_CG, Aop, M, &o));
    CHECK_OK(psl_vec_wrap(&bv, ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&xv, ex, R.n, PSL_FP64));
    psl_solve_result res;
    CHECK_OK(psl_solver_solve(s, bv, xv, &res));
    double *x = malloc((size_t)R.n * sizeof *x);
    CHECK_OK(psl_vec_get(xv, x));
    double rel = ref_relres(&R, b, x);
    CHECK_MSG(abs(res.iterations - it_ref) <= 1, "%s: %d iterations, the textbook CG %d", source,
              res.iterations, it_ref);
    CHECK_MSG(rel < 1e-9 && res.reason == PSL_REASON_CONVERGED, "%s: relres %g", source, rel);
    CHECK(fabs(res.relres - rel) <= 1e-3 * rel + 1e-16);
    CHECK(mon.calls == res.iterations + 1 && mon.monotone_iters && mon.last_iter == res.iterations);
    /* a second solve from zero gives the same bits */
    double *x2 = malloc((size_t)R.n * sizeof *x2);
    CHECK_OK(psl_vec_fill(xv, 0.0));
    CHECK_OK(psl_solver_solve(s, bv, xv, &res));
    CHECK_OK(psl_vec_get(xv, x2));
    CHECK(memcmp(x, x2, (size_t)R.n * sizeof *x) == 0);
    free(x2);
    free(x), free(b), free(xt);
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    psl_solver_destroy(&s);
    psl_op_destroy(&M);
    psl_op_destroy(&Aop);
    psl_exec_destroy(&ex);
}

TEST(pcg_matches_textbook_cg)
{
    const char *gens[] = {"gen:lap2d:40", "gen:hpcg:3:3:3", "gen:lap3d:12:10:8"};
    for (size_t i = 0; i < 3; i++) {
        psl_matrix *A = open_or_skip(gens[i]);
        CHECK(A != NULL);
        if (A)
            pcg_vs_textbook(gens[i], A);
        psl_matrix_destroy(&A);
    }
    /* nos1 is left out here: it needs more than 2n iterations, where the count
     * depends on rounding (547 against the textbook's 538); it converges in
     * every_solver_converges. */
    const char *reals[] = {"lund_a", "gr_30_30", "1138_bus"};
    for (size_t i = 0; i < 3; i++) {
        psl_matrix *A = real_matrix(reals[i]);
        if (!A) {
            psl_test_matrix_missing(reals[i], psl_test_matrix_dir());
            continue;
        }
        psl_matrix *S = NULL; /* scaled, as the solver is used */
        CHECK_OK(psl_matrix_scale_symmetric(&S, A, NULL));
        pcg_vs_textbook(reals[i], S);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&A);
    }
}

/* The residual of the scaled system G^-1 A G^-1 (G x) = G^-1 b that psl_solve
 * solves (g_i = sqrt|a_ii|): ||G^-1 (b - A x)|| / ||G^-1 b||. */
static double ref_scaled_relres(const csr_ref *A, const double *b, const double *x)
{
    double *ax = malloc((size_t)A->n * sizeof *ax);
    ref_spmv(A, x, ax);
    double rr = 0.0, bb = 0.0;
    for (int32_t i = 0; i < A->n; i++) {
        double g = 1.0;
        for (int64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
            if (A->ci[k] == i && A->va[k] != 0.0)
                g = sqrt(fabs(A->va[k]));
        rr += (b[i] - ax[i]) / g * ((b[i] - ax[i]) / g);
        bb += b[i] / g * (b[i] / g);
    }
    free(ax);
    return sqrt(rr / bb);
}

/* psl_solve: every method x preconditioner reaches tol, by the test's residual. */
static void solve_all(const char *name, const psl_matrix *A, double acc)
{
    csr_ref R = view(A);
    double *b = make_b(R.n, 9), *x = malloc((size_t)R.n * sizeof *x);
    const psl_solve_method methods[] = {PSL_SOLVE_CG, PSL_SOLVE_FCG, PSL_SOLVE_IOCG};
    const psl_precond_kind pcs[] = {PSL_PRECOND_NONE, PSL_PRECOND_JACOBI, PSL_PRECOND_SDAINV};
    for (int m = 0; m < 3; m++)
        for (int p = 0; p < 3; p++) {
            psl_solve_config c;
            psl_solve_config_init(&c);
            c.method = methods[m];
            c.precond = pcs[p];
            c.solver.max_iters = 20000;
            c.inner_iters = 20;
            c.sdainv.acc = acc;
            if (m == 2 && p == 0) /* and the other inner storages */
                c.inner_storage.codec = (psl_codec){8, 10};
            if (m == 2 && p == 1) {
                c.inner_storage.format = PSL_FORMAT_SELL;
                c.inner_storage.value_type = PSL_FP16;
            }
            memset(x, 0, (size_t)R.n * sizeof *x);
            psl_solve_report rep;
            psl_status st = psl_solve(A, b, x, &c, &rep);
            double rel = ref_relres(&R, b, x), srel = ref_scaled_relres(&R, b, x);
            CHECK_MSG(st == PSL_OK && srel < 1e-9, "%s method %d precond %d: %s, %d iterations, "
                      "relres %g (reported %g): %s", name, m, p, psl_status_string(st),
                      rep.result.iterations, srel, rep.result.relres, psl_last_error_message());
            /* the same residuals up to their own rounding noise */
            CHECK(fabs(rep.relres_unscaled - rel) <= 0.05 * rel + 1e-14);
            CHECK(fabs(rep.result.relres - srel) <= 0.05 * srel + 1e-14);
            if (m == 2)
                CHECK_MSG(rep.result.inner_iterations == (int64_t)rep.result.iterations * 20,
                          "%s: %lld inner for %d outer", name,
                          (long long)rep.result.inner_iterations, rep.result.iterations);
        }
    free(b), free(x);
}

TEST(every_solver_converges)
{
    const char *gens[] = {"gen:hpcg:3:3:3", "gen:lap2d:30"};
    for (size_t i = 0; i < 2; i++) {
        psl_matrix *A = open_or_skip(gens[i]);
        CHECK(A != NULL);
        if (A)
            solve_all(gens[i], A, 1.0);
        psl_matrix_destroy(&A);
    }
    /* SD-AINV's acc per matrix, as the reference's suite chooses it: with
     * acc = 1 bcsstk13's factors have 175 negative d_i and nos1's 26 (an
     * indefinite preconditioner; see sdainv_indefinite_is_reported) */
    const char *reals[] = {"nos1", "gr_30_30", "1138_bus", "bcsstk13"};
    const double accs[] = {1.4, 1.0, 1.0, 1.2};
    for (size_t i = 0; i < 4; i++) {
        psl_matrix *A = real_matrix(reals[i]);
        if (!A) {
            psl_test_matrix_missing(reals[i], psl_test_matrix_dir());
            continue;
        }
        solve_all(reals[i], A, accs[i]);
        psl_matrix_destroy(&A);
    }
}

/* A solve that lands on the exact solution (r = 0, so r.z = 0) converges:
 * bcsstm25 is diagonal, the identity once scaled. */
TEST(exact_solution_converges)
{
    int64_t rp[5] = {0, 1, 2, 3, 4};
    int32_t ci[4] = {0, 1, 2, 3};
    double v[4] = {4, 9, 1, 16}, b[4] = {1, 2, 3, 4}, x[4] = {0};
    psl_matrix *D = csr(4, 4, rp, ci, v);
    const psl_solve_method ms[] = {PSL_SOLVE_CG, PSL_SOLVE_FCG, PSL_SOLVE_IOCG};
    for (int m = 0; m < 3; m++) {
        psl_solve_config c;
        psl_solve_config_init(&c);
        c.method = ms[m];
        c.inner_iters = 5;
        memset(x, 0, sizeof x);
        psl_solve_report rep;
        CHECK_OK(psl_solve(D, b, x, &c, &rep));
        CHECK(rep.result.reason == PSL_REASON_CONVERGED);
        for (int i = 0; i < 4; i++)
            CHECK(fabs(x[i] - b[i] / v[i]) <= 1e-15 * fabs(b[i] / v[i]));
    }
    psl_matrix_destroy(&D);
}

/* A solve that starts at the exact solution (r0 = 0 exactly: powers of two,
 * no scaling) converges at once with x untouched, in every method. */
TEST(exact_start_converges)
{
    int64_t rp[5] = {0, 1, 2, 3, 4};
    int32_t ci[4] = {0, 1, 2, 3};
    double v[4] = {4, 8, 1, 16}, b[4] = {1, 2, 3, 4}, x[4];
    psl_matrix *D = csr(4, 4, rp, ci, v);
    const psl_solve_method ms[] = {PSL_SOLVE_CG,    PSL_SOLVE_FCG,      PSL_SOLVE_IOCG,
                                   PSL_SOLVE_GMRES, PSL_SOLVE_FGMRES,   PSL_SOLVE_BICGSTAB};
    for (int m = 0; m < 6; m++)
        for (int p = 0; p < 2; p++) {
            psl_solve_config c;
            psl_solve_config_init(&c);
            c.method = ms[m];
            c.precond = p ? PSL_PRECOND_JACOBI : PSL_PRECOND_NONE;
            c.scale = 0;
            c.inner_iters = 5;
            for (int i = 0; i < 4; i++)
                x[i] = b[i] / v[i];
            psl_solve_report rep;
            psl_status st = psl_solve(D, b, x, &c, &rep);
            CHECK_MSG(st == PSL_OK && rep.result.reason == PSL_REASON_CONVERGED &&
                          rep.result.iterations == 0,
                      "method %d precond %d: %s, reason %d, %d iterations; %s", (int)ms[m], p,
                      psl_status_string(st), (int)rep.result.reason, rep.result.iterations,
                      psl_last_error_message());
            for (int i = 0; i < 4; i++)
                CHECK(x[i] == b[i] / v[i]);
        }
    psl_matrix_destroy(&D);
}

/* Factors built by the caller give the same solve as those psl_solve builds. */
TEST(prebuilt_sdainv_factors)
{
    psl_matrix *A = open_or_skip("gen:lap2d:25:17");
    csr_ref R = view(A);
    double *b = make_b(R.n, 6), *x1 = calloc(R.n, sizeof *x1), *x2 = calloc(R.n, sizeof *x2);
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.precond = PSL_PRECOND_SDAINV;
    c.sdainv.drop_tol = 0.05; /* some fill-in on lap2d */
    CHECK_OK(psl_solve(A, b, x1, &c, NULL));
    psl_matrix *S = NULL, *W = NULL, *Z = NULL;
    CHECK_OK(psl_matrix_scale_symmetric(&S, A, NULL));
    CHECK_OK(psl_sdainv_build(S, &c.sdainv, &W, &Z));
    c.sdainv_wt = W;
    c.sdainv_zdinv = Z;
    CHECK_OK(psl_solve(A, b, x2, &c, NULL));
    CHECK(memcmp(x1, x2, R.n * sizeof *x1) == 0);
    c.sdainv_zdinv = NULL; /* one without the other */
    CHECK_ST(psl_solve(A, b, x2, &c, NULL), PSL_ERR_INVALID_VALUE);
    psl_matrix *small = open_or_skip("gen:lap2d:3");
    c.sdainv_zdinv = small;
    CHECK_ST(psl_solve(A, b, x2, &c, NULL), PSL_ERR_INVALID_VALUE);
    psl_matrix_destroy(&small);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&W);
    psl_matrix_destroy(&Z);
    free(b), free(x1), free(x2);
    psl_matrix_destroy(&A);
}

/* An indefinite preconditioner (SD-AINV of bcsstk13 at acc = 1) stops the
 * flexible and inner-outer solvers with a clear status, x finite. */
TEST(sdainv_indefinite_is_reported)
{
    psl_matrix *A = real_matrix("bcsstk13");
    if (!A) {
        psl_test_matrix_missing("bcsstk13", psl_test_matrix_dir());
        return;
    }
    csr_ref R = view(A);
    double *b = make_b(R.n, 9), *x = calloc((size_t)R.n, sizeof *x);
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.method = PSL_SOLVE_IOCG;
    c.precond = PSL_PRECOND_SDAINV;
    c.inner_iters = 20;
    psl_solve_report rep;
    psl_status st = psl_solve(A, b, x, &c, &rep);
    CHECK_ST(st, PSL_ERR_BREAKDOWN);
    CHECK(rep.result.reason == PSL_REASON_INDEFINITE);
    CHECK(strstr(psl_last_error_message(), "positive definite") != NULL);
    int finite = 1;
    for (int32_t i = 0; i < R.n; i++)
        finite &= isfinite(x[i]) != 0;
    CHECK(finite);
    CHECK(fabs(ref_scaled_relres(&R, b, x) - rep.result.relres) <= 1e-6 * rep.result.relres);
    free(b), free(x);
    psl_matrix_destroy(&A);
}

TEST(fp32_vectors_and_fcg_options)
{
    psl_matrix *A = open_or_skip("gen:lap3d:16");
    csr_ref R = view(A);
    double *b = make_b(R.n, 2), *x = calloc((size_t)R.n, sizeof *x);
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.solver.vec_type = PSL_FP32;
    c.solver.tol = 1e-5;
    CHECK_OK(psl_solve(A, b, x, &c, NULL));
    CHECK(ref_relres(&R, b, x) < 1e-5);
    c.solver.vec_type = PSL_FP64;
    c.solver.tol = 1e-9;
    c.method = PSL_SOLVE_FCG;
    for (int restart = 0; restart < 2; restart++)
        for (int mmax = 1; mmax <= 12; mmax += 11) {
            c.solver.fcg_mmax = mmax;
            c.solver.fcg_restart = restart;
            memset(x, 0, (size_t)R.n * sizeof *x);
            psl_solve_report rep;
            CHECK_OK(psl_solve(A, b, x, &c, &rep));
            CHECK_MSG(ref_relres(&R, b, x) < 1e-9, "mmax %d restart %d", mmax, restart);
        }
    /* an initial guess is used: starting from the solution takes no step */
    psl_solve_report rep;
    CHECK_OK(psl_solve(A, b, x, &c, &rep));
    CHECK(rep.result.iterations <= 1);
    free(b), free(x);
    psl_matrix_destroy(&A);
}

/* The inner solver as an operator: a fixed number of CG steps, linear in
 * the scale of its input (it normalizes and scales back). */
TEST(solver_as_operator)
{
    psl_matrix *A = open_or_skip("gen:lap2d:20");
    csr_ref R = view(A);
    psl_exec *ex = NULL;
    psl_op *Aop = NULL;
    psl_solver *s = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&Aop, ex, A, PSL_FP64));
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.fixed_iters = 7;
    CHECK_OK(psl_solver_create(&s, PSL_METHOD_CG, Aop, NULL, &o));
    const psl_op *S = psl_solver_op(s);
    CHECK(S != NULL);
    double *b = make_b(R.n, 4), *y1 = malloc(R.n * sizeof *y1), *y2 = malloc(R.n * sizeof *y2);
    psl_vec *bv = NULL, *yv = NULL;
    CHECK_OK(psl_vec_wrap(&bv, ex, R.n, PSL_FP64, b, PSL_MEM_COPY));
    CHECK_OK(psl_vec_create(&yv, ex, R.n, PSL_FP64));
    CHECK_OK(psl_op_apply(S, 1.0, bv, 0.0, yv));
    CHECK_OK(psl_vec_get(yv, y1));
    CHECK_OK(psl_vec_scale(4.0, bv)); /* S(4b) = 4 S(b) up to rounding */
    CHECK_OK(psl_op_apply(S, 0.5, bv, 0.0, yv));
    CHECK_OK(psl_vec_get(yv, y2));
    double err = 0, nrm = 0;
    for (int32_t i = 0; i < R.n; i++) {
        err = fmax(err, fabs(y2[i] - 2.0 * y1[i]));
        nrm = fmax(nrm, fabs(y1[i]));
    }
    CHECK_MSG(err <= 1e-12 * nrm, "err %g", err);
    CHECK(psl_solver_op_iterations(s) == 14);
    /* y1 is the 7th CG iterate: the textbook PCG with Jacobi gives the same
     * iterates here, the diagonal of lap2d being constant (4) */
    {
        double *xt = malloc(R.n * sizeof *xt);
        CHECK(textbook_pcg(&R, b, 1e-300, 7, xt) == 7);
        double e = 0, m = 0;
        for (int32_t i = 0; i < R.n; i++) {
            e = fmax(e, fabs(xt[i] - y1[i]));
            m = fmax(m, fabs(xt[i]));
        }
        CHECK_MSG(e <= 1e-10 * m, "7 steps: %g off (max %g)", e, m);
        free(xt);
    }
    psl_op_destroy((psl_op **)&S); /* refused: owned by the solver */
    CHECK(psl_solver_op(s) != NULL);
    psl_solver_options_init(&o);
    psl_solver *s2 = NULL;
    CHECK_OK(psl_solver_create(&s2, PSL_METHOD_CG, Aop, NULL, &o));
    CHECK(psl_solver_op(s2) == NULL); /* not an inner solver */
    psl_solver_destroy(&s2);
    free(b), free(y1), free(y2);
    psl_vec_destroy(&bv);
    psl_vec_destroy(&yv);
    psl_solver_destroy(&s);
    CHECK(s == NULL);
    psl_op_destroy(&Aop);
    psl_exec_destroy(&ex);
    psl_matrix_destroy(&A);
}

/* ---------------------------------------------------------- bad input */

static psl_matrix *csr(int32_t n, int32_t m, const int64_t *rp, const int32_t *ci, const double *v)
{
    psl_matrix *A = NULL;
    psl_matrix_create_csr(&A, n, m, rp, ci, v, PSL_FP64, 0, 0);
    return A;
}

TEST(bad_input_and_breakdowns)
{
    double b[3] = {1, 2, 3}, x[3] = {7, 7, 7}, keep[3] = {7, 7, 7};
    psl_solve_config c;
    psl_solve_config_init(&c);
    psl_solve_report rep;
    /* not square */
    int64_t rp34[] = {0, 1, 2, 3};
    int32_t ci34[] = {0, 1, 3};
    double v34[] = {1, 1, 1};
    psl_matrix *N = csr(3, 4, rp34, ci34, v34);
    CHECK_ST(psl_solve(N, b, x, &c, &rep), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "not square") != NULL);
    psl_matrix_destroy(&N);
    /* zero and negative diagonals for Jacobi: the row is named */
    int64_t rp[] = {0, 2, 4, 6};
    int32_t ci[] = {0, 1, 0, 1, 1, 2};
    double vz[] = {2, -1, -1, 0, -1, 2};
    psl_matrix *Z = csr(3, 3, rp, ci, vz);
    c.scale = 0;
    CHECK_ST(psl_solve(Z, b, x, &c, &rep), PSL_ERR_INVALID_MATRIX);
    CHECK(strstr(psl_last_error_message(), "row 1") != NULL);
    CHECK(memcmp(x, keep, sizeof x) == 0);
    psl_matrix_destroy(&Z);
    double vn[] = {2, -1, -1, -3, -1, 2};
    psl_matrix *Ng = csr(3, 3, rp, ci, vn);
    CHECK_ST(psl_solve(Ng, b, x, &c, &rep), PSL_ERR_INVALID_MATRIX);
    CHECK(memcmp(x, keep, sizeof x) == 0);
    /* the same indefinite matrix without a preconditioner: CG reports it, x finite */
    c.precond = PSL_PRECOND_NONE;
    memset(x, 0, sizeof x);
    double bi[3] = {0, 1, 0};
    psl_status st = psl_solve(Ng, bi, x, &c, &rep);
    CHECK_ST(st, PSL_ERR_BREAKDOWN);
    CHECK(rep.result.reason == PSL_REASON_INDEFINITE);
    CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]) && isfinite(rep.result.relres));
    psl_matrix_destroy(&Ng);
    /* a singular matrix with b outside its range: no convergence, clear status */
    int64_t rps[] = {0, 1, 2, 2};
    int32_t cis[] = {0, 1};
    double vs[] = {1, 2};
    psl_matrix *S = csr(3, 3, rps, cis, vs);
    memset(x, 0, sizeof x);
    st = psl_solve(S, b, x, &c, &rep);
    CHECK_MSG(st == PSL_ERR_BREAKDOWN || st == PSL_ERR_NOT_CONVERGED, "%s",
              psl_status_string(st));
    CHECK(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]));
    CHECK(rep.result.relres > 0.1);
    psl_matrix_destroy(&S);
    /* NaN in b: refused, x untouched */
    psl_matrix *L = open_or_skip("gen:lap2d:10");
    double *bb = make_b(100, 1), *xx = calloc(100, sizeof *xx);
    bb[17] = NAN;
    psl_solve_config_init(&c);
    CHECK_ST(psl_solve(L, bb, xx, &c, &rep), PSL_ERR_NONFINITE);
    CHECK(strstr(psl_last_error_message(), "b[17]") != NULL);
    CHECK(xx[0] == 0.0);
    bb[17] = 0.5;
    /* max iterations reached: status, reason, residual reached */
    c.solver.max_iters = 3;
    st = psl_solve(L, bb, xx, &c, &rep);
    CHECK_ST(st, PSL_ERR_NOT_CONVERGED);
    CHECK(rep.result.reason == PSL_REASON_MAX_ITERS && rep.result.iterations == 3);
    CHECK(rep.result.relres > 1e-9 && isfinite(rep.result.relres));
    {
        csr_ref RL = view(L);
        CHECK(fabs(ref_scaled_relres(&RL, bb, xx) - rep.result.relres) <= 1e-9);
    }
    CHECK(strstr(psl_last_error_message(), "3 iterations") != NULL);
    /* the outer matrix in other formats: FP64 SELL reaches tol; PackSELL E8M10
     * (11-bit values) cannot, and the replacements that stop helping end the
     * solve as stagnation instead of running to max_iters */
    psl_solve_config_init(&c);
    c.storage_auto = 0;
    c.storage.format = PSL_FORMAT_SELL;
    memset(xx, 0, 100 * sizeof *xx);
    CHECK_OK(psl_solve(L, bb, xx, &c, &rep));
    {
        csr_ref RL = view(L);
        CHECK(ref_scaled_relres(&RL, bb, xx) < 1e-9);
    }
    c.storage.format = PSL_FORMAT_PACKSELL; /* HPCG's -1/26 is not exact in E8M10 */
    c.storage.codec = (psl_codec){8, 10};
    {
        psl_matrix *H = open_or_skip("gen:hpcg:3:3:3");
        double *bh = make_b(512, 3), *xh = calloc(512, sizeof *xh);
        CHECK_ST(psl_solve(H, bh, xh, &c, &rep), PSL_ERR_BREAKDOWN);
        CHECK(rep.result.reason == PSL_REASON_STAGNATION);
        CHECK(rep.result.iterations < 1000 && rep.result.relres > 1e-9);
        CHECK(strstr(psl_last_error_message(), "stagnated") != NULL);
        CHECK(isfinite(xh[0]) && isfinite(xh[511]));
        free(bh), free(xh);
        psl_matrix_destroy(&H);
    }
    /* bad configuration */
    psl_solve_config_init(&c);
    c.solver.tol = 0;
    CHECK_ST(psl_solve(L, bb, xx, &c, &rep), PSL_ERR_INVALID_VALUE);
    psl_solve_config_init(&c);
    c.method = (psl_solve_method)99;
    CHECK_ST(psl_solve(L, bb, xx, &c, &rep), PSL_ERR_INVALID_VALUE);
    psl_solve_config_init(&c);
    c.solver.vec_type = PSL_FP16;
    CHECK_ST(psl_solve(L, bb, xx, &c, &rep), PSL_ERR_INVALID_VALUE);
    /* b of the wrong length, types, executors: psl_solver_solve refuses */
    psl_exec *ex = NULL;
    psl_op *Aop = NULL;
    psl_solver *s = NULL;
    psl_vec *b99 = NULL, *x100 = NULL, *x32 = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_op_matrix(&Aop, ex, L, PSL_FP64));
    CHECK_OK(psl_solver_create(&s, PSL_METHOD_CG, Aop, NULL, NULL));
    CHECK_OK(psl_vec_create(&b99, ex, 99, PSL_FP64));
    CHECK_OK(psl_vec_create(&x100, ex, 100, PSL_FP64));
    CHECK_OK(psl_vec_create(&x32, ex, 100, PSL_FP32));
    CHECK_ST(psl_solver_solve(s, b99, x100, NULL), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_solver_solve(s, x32, x100, NULL), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_solver_solve(s, x100, x100, NULL), PSL_ERR_INVALID_VALUE);
    psl_op *A32 = NULL;
    CHECK_OK(psl_op_matrix(&A32, ex, L, PSL_FP32));
    psl_solver *s32 = NULL;
    CHECK_ST(psl_solver_create(&s32, PSL_METHOD_CG, A32, NULL, NULL), PSL_ERR_INVALID_VALUE);
    CHECK(s32 == NULL);
    CHECK_ST(psl_op_apply(Aop, 1.0, x32, 0.0, x100), PSL_ERR_INVALID_VALUE);
    psl_op_destroy(&A32);
    psl_vec_destroy(&b99);
    psl_vec_destroy(&x100);
    psl_vec_destroy(&x32);
    psl_solver_destroy(&s);
    psl_op_destroy(&Aop);
    psl_exec_destroy(&ex);
    free(bb), free(xx);
    psl_matrix_destroy(&L);
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

TEST(command_solve)
{
    if (!getenv("PSL_PACKSELL_EXE")) {
        psl_test_skip("command_solve", "PSL_PACKSELL_EXE not set");
        return;
    }
    char dir[] = "/tmp/psl_solve_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char args[1536];
    snprintf(args, sizeof args,
             "solve gen:lap2d:30 --method iocg --inner-iters 10 --precond jacobi -o %s/x.mtx "
             "--json %s/s.json --history %s/h.csv", dir, dir, dir);
    CHECK(run(args) == 0);
    char path[600];
    snprintf(path, sizeof path, "%s/x.mtx", dir);
    double *x = NULL;
    int64_t n = 0;
    CHECK_OK(psl_mm_read_vector(path, &x, &n));
    CHECK(n == 900);
    /* x solves the unscaled system with the command's default b (seed 1) */
    psl_matrix *A = open_or_skip("gen:lap2d:30");
    csr_ref R = view(A);
    if (x && n == 900) {
        double *ax = malloc(900 * sizeof *ax);
        ref_spmv(&R, x, ax);
        double mn = 1, mx = 0;
        for (int i = 0; i < 900; i++) {
            mn = fmin(mn, ax[i]);
            mx = fmax(mx, ax[i]);
        }
        CHECK(mn >= -1e-6 && mx < 1.0 + 1e-6); /* A x = b with b in [0, 1) */
        free(ax);
    }
    psl_free(x);
    snprintf(path, sizeof path, "%s/s.json", dir);
    FILE *f = fopen(path, "r");
    char buf[4096] = "";
    if (f) {
        size_t k = fread(buf, 1, sizeof buf - 1, f);
        buf[k] = 0;
        fclose(f);
    }
    CHECK(strstr(buf, "\"status\": \"converged\"") || strstr(buf, "\"status\":\"converged\""));
    CHECK(strstr(buf, "\"inner_iterations\"") != NULL);
    snprintf(path, sizeof path, "%s/h.csv", dir);
    f = fopen(path, "r");
    int lines = 0;
    if (f) {
        int ch;
        while ((ch = fgetc(f)) != EOF)
            lines += ch == '\n';
        fclose(f);
    }
    CHECK(lines >= 3);
    /* --sdainv-cache: the second run loads the factors and gives the same x */
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args,
                 "solve gen:lap3d:12 --method iocg --inner-iters 10 --precond sdainv "
                 "--sdainv-tol 0.05 --sdainv-cache %s -o %s/c%d.mtx", dir, dir, k);
        CHECK(run(args) == 0);
    }
    snprintf(args, sizeof args, "cmp -s %s/c0.mtx %s/c1.mtx && ls %s/*.wt.psl %s/*.zd.psl >/dev/null",
             dir, dir, dir, dir);
    CHECK(system(args) == 0);
    /* usage errors and a run that does not converge */
    CHECK(run("solve gen:lap2d:10 --method bogus") == 2);
    CHECK(run("solve gen:lap2d:10 --inner-iters 5") == 2);
    CHECK(run("solve gen:lap2d:10 --method iocg --inner-format sell --inner-values e8m10") == 2);
    CHECK(run("solve gen:lap2d:10 --tol -1") == 2);
    CHECK(run("solve gen:lap2d:30 --max-iters 2") == 1);
    CHECK(run("solve gen:random:50:3") != 0); /* not SPD: a clear failure, never a crash */
    snprintf(args, sizeof args, "rm -rf %s", dir);
    CHECK(system(args) == 0);
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"vector_ops_match_loops", vector_ops_match_loops},
    {"vector_views_and_misuse", vector_views_and_misuse},
    {"dot_is_deterministic", dot_is_deterministic},
    {"pcg_matches_textbook_cg", pcg_matches_textbook_cg},
    {"every_solver_converges", every_solver_converges},
    {"sdainv_indefinite_is_reported", sdainv_indefinite_is_reported},
    {"prebuilt_sdainv_factors", prebuilt_sdainv_factors},
    {"exact_solution_converges", exact_solution_converges},
    {"exact_start_converges", exact_start_converges},
    {"fp32_vectors_and_fcg_options", fp32_vectors_and_fcg_options},
    {"solver_as_operator", solver_as_operator},
    {"bad_input_and_breakdowns", bad_input_and_breakdowns},
    {"command_solve", command_solve},
};

PSL_TEST_MAIN(tests)
