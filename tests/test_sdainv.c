/* test_sdainv.c -- the SD-AINV factor build (psl_sdainv_build): a 4x4 case
 * worked by hand, random matrices against a dense computation of the same
 * algorithm, the symmetric form against the general one, exactness without
 * dropping where the algorithm is exact, bad input, every allocation
 * failure, and a real SPD matrix. */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "packsell.h"
#include "harness.h"

#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---------------------------------------------------------------- helpers */

/* A CSR matrix from a dense row-major n x m array (entries != 0 stored,
 * plus the diagonal when keep_diag, even if 0). */
static psl_matrix *from_dense(int n, int m, const double *a, int keep_diag)
{
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc(((size_t)n * m + 1) * sizeof *ci);
    double *v = malloc(((size_t)n * m + 1) * sizeof *v);
    int64_t k = 0;
    rp[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < m; j++)
            if (a[(size_t)i * m + j] != 0.0 || (keep_diag && i == j)) {
                ci[k] = j;
                v[k++] = a[(size_t)i * m + j];
            }
        rp[i + 1] = k;
    }
    psl_matrix *A = NULL;
    psl_status st = psl_matrix_create_csr(&A, n, m, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT);
    if (st != PSL_OK)
        fprintf(stderr, "from_dense: %s\n", psl_last_error_message());
    free(rp);
    free(ci);
    free(v);
    return A;
}

/* The dense row-major n x n copy of an FP64 CSR matrix (absent = 0). */
static double *to_dense(const psl_matrix *A, int n)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    double *d = calloc((size_t)n * n, sizeof *d);
    if (psl_matrix_csr_view(A, &rp, &ci, &v) != PSL_OK)
        return d;
    for (int i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            d[(size_t)i * n + ci[k]] = v[k];
    return d;
}

static psl_sdainv_options opts(double tol, double acc, int sym)
{
    psl_sdainv_options o;
    psl_sdainv_options_init(&o);
    o.drop_tol = tol;
    o.acc = acc;
    o.symmetric = sym;
    return o;
}

/*
 * The same algorithm on dense arrays, in the plainest form (ALGORITHMS.md
 * section 8, general form): column i of W and Z (W[k*n+i], Z[k*n+i]) starts
 * as e_i; for j < i with a_ij != 0, l = (A[i,:] . z_j)/d_j, w_i -= l w_j,
 * then every |w_ki| < tol is set to 0; for j < i with a_ji != 0,
 * u = (w_j . A[:,i])/d_j, z_i -= u z_j, then the drop; d_i = sum_k w_ki
 * (acc if k == i else 1) a_ki, 1 when 0.
 */
static void dense_sdainv(int n, const double *A, double tol, double acc, double *W, double *Z,
                         double *d)
{
    for (int k = 0; k < n * n; k++)
        W[k] = Z[k] = 0.0;
    for (int i = 0; i < n; i++) {
        W[(size_t)i * n + i] = 1.0;
        Z[(size_t)i * n + i] = 1.0;
        for (int j = 0; j < i; j++) {
            if (A[(size_t)i * n + j] == 0.0)
                continue;
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += Z[(size_t)k * n + j] * A[(size_t)i * n + k];
            double l = s / d[j];
            for (int k = 0; k < n; k++) {
                W[(size_t)k * n + i] -= l * W[(size_t)k * n + j];
                if (fabs(W[(size_t)k * n + i]) < tol)
                    W[(size_t)k * n + i] = 0.0;
            }
        }
        for (int j = 0; j < i; j++) {
            if (A[(size_t)j * n + i] == 0.0)
                continue;
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += W[(size_t)k * n + j] * A[(size_t)k * n + i];
            double u = s / d[j];
            for (int k = 0; k < n; k++) {
                Z[(size_t)k * n + i] -= u * Z[(size_t)k * n + j];
                if (fabs(Z[(size_t)k * n + i]) < tol)
                    Z[(size_t)k * n + i] = 0.0;
            }
        }
        double s = 0.0;
        for (int k = 0; k < n; k++)
            s += W[(size_t)k * n + i] * (k == i ? acc : 1.0) * A[(size_t)k * n + i];
        d[i] = s == 0.0 ? 1.0 : s;
    }
}

/* Largest |x_k - y_k| relative to max(1, max |y_k|). */
static double max_rel_diff(const double *x, const double *y, size_t len)
{
    double scale = 1.0, diff = 0.0;
    for (size_t k = 0; k < len; k++)
        if (fabs(y[k]) > scale)
            scale = fabs(y[k]);
    for (size_t k = 0; k < len; k++)
        if (fabs(x[k] - y[k]) > diff)
            diff = fabs(x[k] - y[k]);
    return diff / scale;
}

/* Check that Wt and ZDinv are the factors dense_sdainv builds from the
 * dense copy of A; returns the number of failed checks. */
static int check_against_dense(const psl_matrix *Wt, const psl_matrix *ZD, const double *A, int n,
                               double tol, double acc, const char *what)
{
    int before = psl_t_failures_in_test;
    double *W = malloc((size_t)n * n * sizeof *W), *Z = malloc((size_t)n * n * sizeof *Z);
    double *d = malloc((size_t)n * sizeof *d);
    double *wt = malloc((size_t)n * n * sizeof *wt), *zd = malloc((size_t)n * n * sizeof *zd);
    dense_sdainv(n, A, tol, acc, W, Z, d);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            wt[(size_t)r * n + c] = W[(size_t)c * n + r];     /* W^T */
            zd[(size_t)r * n + c] = Z[(size_t)r * n + c] / d[c]; /* Z D^-1 */
        }
    double *gw = to_dense(Wt, n), *gz = to_dense(ZD, n);
    double ew = max_rel_diff(gw, wt, (size_t)n * n), ez = max_rel_diff(gz, zd, (size_t)n * n);
    CHECK_MSG(ew <= 1e-12, "%s: W^T differs from the dense computation by %.3g", what, ew);
    CHECK_MSG(ez <= 1e-12, "%s: Z D^-1 differs from the dense computation by %.3g", what, ez);
    /* the pattern too: every nonzero of the dense factors is stored */
    psl_matrix_info iw, iz;
    CHECK_OK(psl_matrix_get_info(Wt, &iw));
    CHECK_OK(psl_matrix_get_info(ZD, &iz));
    int64_t nw = 0, nz = 0;
    for (size_t k = 0; k < (size_t)n * n; k++) {
        nw += wt[k] != 0.0;
        nz += zd[k] != 0.0;
    }
    if (tol > 0) { /* with tol = 0 exact zeros may be stored */
        CHECK_MSG(iw.nnz == nw, "%s: nnz(Wt) %lld, dense %lld", what, (long long)iw.nnz,
                  (long long)nw);
        CHECK_MSG(iz.nnz == nz, "%s: nnz(ZDinv) %lld, dense %lld", what, (long long)iz.nnz,
                  (long long)nz);
    }
    free(W);
    free(Z);
    free(d);
    free(wt);
    free(zd);
    free(gw);
    free(gz);
    return psl_t_failures_in_test - before;
}

/* Exact equality of two CSR matrices (pattern and values). */
static int same_csr(const psl_matrix *A, const psl_matrix *B)
{
    const int64_t *ra, *rb;
    const int32_t *ca, *cb;
    const double *va, *vb;
    psl_matrix_info ia, ib;
    if (psl_matrix_get_info(A, &ia) != PSL_OK || psl_matrix_get_info(B, &ib) != PSL_OK ||
        ia.nrows != ib.nrows || ia.nnz != ib.nnz)
        return 0;
    psl_matrix_csr_view(A, &ra, &ca, &va);
    psl_matrix_csr_view(B, &rb, &cb, &vb);
    for (int i = 0; i <= ia.nrows; i++)
        if (ra[i] != rb[i])
            return 0;
    for (int64_t k = 0; k < ia.nnz; k++)
        if (ca[k] != cb[k] || va[k] != vb[k])
            return 0;
    return 1;
}

/* ---------------------------------------------------------------- (a) by hand */

/*
 * A = [ 4 -2  0 -1 ]   SPD (strictly diagonally dominant), symmetric form,
 *     [-2  8 -2  1 ]   drop_tol = 0.1, acc = 1.
 *     [ 0 -2  4  1 ]
 *     [-1  1  1  4 ]
 * i = 0: z0 = e0, d0 = a00 = 4.
 * i = 1: j = 0: l = A[1,:].z0/d0 = -2/4 = -1/2; z1 = e1 + z0/2 = (1/2, 1).
 *        d1 = z1.A[1,:] = -1 + 8 = 7.
 * i = 2: (a20 = 0) j = 1: l = A[2,:].z1/d1 = -2/7; z2 = e2 + (2/7) z1 =
 *        (1/7, 2/7, 1): the entry 1/7 at index 0 is fill-in (a20 = 0) and
 *        survives (>= 0.1). d2 = z2.A[2,:] = -4/7 + 4 = 24/7.
 * i = 3: j = 0: l = -1/4; z3 = e3 + z0/4 = (1/4, 0, 0, 1).
 *        j = 1: l = (-1/2 + 1)/7 = 1/14; z3 -= z1/14 = (3/14, -1/14, 0, 1);
 *               -1/14 (0.071) is dropped: z3 = (3/14, 0, 0, 1).
 *        j = 2: l = (-1/7 + 2/7 + 1)/(24/7) = 1/3; z3 -= z2/3 =
 *               (3/14 - 1/21, -2/21, -1/3, 1) = (1/6, -2/21, -1/3, 1);
 *               -2/21 (0.095) is dropped again: z3 = (1/6, 0, -1/3, 1).
 *        d3 = z3.A[3,:] = -1/6 - 1/3 + 4 = 7/2.
 * W = Z, so Wt's rows are z_0..z_3 and ZDinv's column i is z_i/d_i:
 *   Wt    = [1; 1/2 1; 1/7 2/7 1; 1/6 0 -1/3 1]          (lower triangular)
 *   ZDinv = [1/4 1/14 1/24 1/21; 0 1/7 1/12 0; 0 0 7/24 -2/21; 0 0 0 2/7]
 */
TEST(hand_4x4)
{
    const double a[16] = {4, -2, 0, -1, -2, 8, -2, 1, 0, -2, 4, 1, -1, 1, 1, 4};
    const double wt_expect[16] = {1, 0, 0, 0, 1. / 2, 1, 0, 0, 1. / 7, 2. / 7, 1, 0,
                                  1. / 6, 0, -1. / 3, 1};
    const double zd_expect[16] = {1. / 4, 1. / 14, 1. / 24, 1. / 21, 0, 1. / 7, 1. / 12, 0,
                                  0, 0, 7. / 24, -2. / 21, 0, 0, 0, 2. / 7};
    psl_matrix *A = from_dense(4, 4, a, 1);
    for (int sym = -1; sym <= 1; sym++) {
        psl_sdainv_options o = opts(0.1, 1.0, sym);
        psl_matrix *Wt = NULL, *ZD = NULL;
        CHECK_OK(psl_sdainv_build(A, &o, &Wt, &ZD));
        if (!Wt || !ZD)
            continue;
        double *gw = to_dense(Wt, 4), *gz = to_dense(ZD, 4);
        for (int k = 0; k < 16; k++) {
            CHECK_MSG(fabs(gw[k] - wt_expect[k]) <= 1e-15, "symmetric=%d Wt[%d][%d] = %.17g", sym,
                      k / 4, k % 4, gw[k]);
            CHECK_MSG(fabs(gz[k] - zd_expect[k]) <= 1e-15, "symmetric=%d ZDinv[%d][%d] = %.17g",
                      sym, k / 4, k % 4, gz[k]);
        }
        psl_matrix_info iw, iz;
        CHECK_OK(psl_matrix_get_info(Wt, &iw));
        CHECK_OK(psl_matrix_get_info(ZD, &iz));
        CHECK(iw.nnz == 9); /* the dropped entry (3,1) is not stored */
        CHECK(iz.nnz == 9);
        check_against_dense(Wt, ZD, a, 4, 0.1, 1.0, "hand 4x4");
        free(gw);
        free(gz);
        psl_matrix_destroy(&Wt);
        psl_matrix_destroy(&ZD);
    }
    psl_matrix_destroy(&A);
}

/* An entry exactly at the tolerance is kept (|v| >= tol), and a zero pivot
 * becomes 1. A = [4 1; 1 4], tol 0.25: z1 = e1 - (1/4) z0 = (-1/4, 1) keeps
 * -1/4. B = [1 1 0; 1 1 1; 0 1 2]: d0 = 1, z1 = e1 - z0 = (-1, 1),
 * d1 = z1.B[1,:] = -1 + 1 = 0 -> 1; z2 = e2 - (B[2,:].z1/d1) z1 = e2 - z1 =
 * (1, -1, 1), d2 = z2.B[2,:] = -1 + 2 = 1. */
TEST(boundary_and_zero_pivot)
{
    const double a[4] = {4, 1, 1, 4};
    psl_matrix *A = from_dense(2, 2, a, 1);
    psl_sdainv_options o = opts(0.25, 1.0, -1);
    psl_matrix *Wt = NULL, *ZD = NULL;
    CHECK_OK(psl_sdainv_build(A, &o, &Wt, &ZD));
    if (Wt && ZD) {
        double *w = to_dense(Wt, 2);
        CHECK(w[2] == -0.25 && w[3] == 1.0);
        free(w);
        check_against_dense(Wt, ZD, a, 2, 0.25, 1.0, "at the tolerance");
    }
    psl_matrix_destroy(&Wt);
    psl_matrix_destroy(&ZD);
    psl_matrix_destroy(&A);

    const double b[9] = {1, 1, 0, 1, 1, 1, 0, 1, 2};
    psl_matrix *B = from_dense(3, 3, b, 1);
    for (int sym = 0; sym <= 1; sym++) {
        o = opts(0.1, 1.0, sym);
        CHECK_OK(psl_sdainv_build(B, &o, &Wt, &ZD));
        if (Wt && ZD) {
            double *w = to_dense(Wt, 3), *z = to_dense(ZD, 3);
            const double we[9] = {1, 0, 0, -1, 1, 0, 1, -1, 1};
            const double ze[9] = {1, -1, 1, 0, 1, -1, 0, 0, 1}; /* d = (1, 1, 1) */
            CHECK(memcmp(w, we, sizeof we) == 0);
            CHECK(memcmp(z, ze, sizeof ze) == 0);
            free(w);
            free(z);
            check_against_dense(Wt, ZD, b, 3, 0.1, 1.0, "zero pivot");
        }
        psl_matrix_destroy(&Wt);
        psl_matrix_destroy(&ZD);
    }
    psl_matrix_destroy(&B);
}

/* ---------------------------------------------------------------- (b) random */

/* A random n x n matrix with density p: symmetric SPD (diagonally
 * dominant, positive diagonal) or nonsymmetric with a dominant diagonal of
 * either sign. Values are spread over magnitudes so that drops happen. */
static void random_matrix(double *a, int n, double p, int spd, unsigned long long *seed)
{
    for (int k = 0; k < n * n; k++)
        a[k] = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = spd ? i + 1 : 0; j < n; j++) {
            if (j == i || psl_test_uniform(seed) >= p)
                continue;
            double v = (psl_test_uniform(seed) * 2 - 1) * (0.2 + 2 * psl_test_uniform(seed));
            a[(size_t)i * n + j] = v;
            if (spd)
                a[(size_t)j * n + i] = v;
        }
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += fabs(a[(size_t)i * n + j]);
        double dii = s * (1.0 + psl_test_uniform(seed)) + 0.5;
        if (!spd && psl_test_uniform(seed) < 0.2)
            dii = -dii;
        a[(size_t)i * n + i] = dii;
    }
}

TEST(random_against_dense)
{
    unsigned long long seed = 12345;
    const double tols[] = {0.0, 0.01, 0.05, 0.1, 0.3};
    const double accs[] = {1.0, 1.3, 0.7};
    int cases = 0, filled = 0;
    for (int rep = 0; rep < 24; rep++) {
        int n = 1 + (int)(psl_test_uniform(&seed) * 60);
        double p = 0.03 + 0.3 * psl_test_uniform(&seed);
        int spd = rep % 2 == 0;
        double *a = malloc((size_t)n * n * sizeof *a);
        random_matrix(a, n, p, spd, &seed);
        psl_matrix *A = from_dense(n, n, a, 1);
        CHECK(A != NULL);
        for (size_t t = 0; t < sizeof tols / sizeof tols[0]; t++)
            for (size_t c = 0; c < sizeof accs / sizeof accs[0]; c++) {
                psl_sdainv_options o = opts(tols[t], accs[c], -1);
                psl_matrix *Wt = NULL, *ZD = NULL;
                CHECK_OK(psl_sdainv_build(A, &o, &Wt, &ZD));
                if (!Wt || !ZD)
                    continue;
                char what[128];
                snprintf(what, sizeof what, "rep %d n %d %s tol %g acc %g", rep, n,
                         spd ? "SPD" : "nonsymmetric", tols[t], accs[c]);
                check_against_dense(Wt, ZD, a, n, tols[t], accs[c], what);
                psl_matrix_info iw;
                psl_matrix_get_info(Wt, &iw);
                /* fill-in: more entries than the lower triangle of A holds */
                int64_t low = 0;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j <= i; j++)
                        low += a[(size_t)i * n + j] != 0.0;
                filled += iw.nnz > low;
                cases++;
                psl_matrix_destroy(&Wt);
                psl_matrix_destroy(&ZD);
            }
        psl_matrix_destroy(&A);
        free(a);
    }
    printf("  %d cases, %d with fill-in\n", cases, filled);
    CHECK(filled > 10); /* the comparisons cover fill-in, not only A's pattern */
}

/* ---------------------------------------------------------------- (c) forms */

TEST(symmetric_form_equals_general)
{
    unsigned long long seed = 777;
    for (int rep = 0; rep < 10; rep++) {
        int n = 5 + (int)(psl_test_uniform(&seed) * 50);
        double *a = malloc((size_t)n * n * sizeof *a);
        random_matrix(a, n, 0.15, 1, &seed);
        psl_matrix *A = from_dense(n, n, a, 1);
        const double tol = rep % 3 == 0 ? 0.0 : 0.05 * rep;
        psl_sdainv_options os = opts(tol, 1.2, 1), og = opts(tol, 1.2, 0);
        psl_matrix *Ws = NULL, *Zs = NULL, *Wg = NULL, *Zg = NULL;
        CHECK_OK(psl_sdainv_build(A, &os, &Ws, &Zs));
        CHECK_OK(psl_sdainv_build(A, &og, &Wg, &Zg));
        /* the same arithmetic in the same order: equal bits */
        CHECK_MSG(same_csr(Ws, Wg), "rep %d: Wt of the two forms differ", rep);
        CHECK_MSG(same_csr(Zs, Zg), "rep %d: ZDinv of the two forms differ", rep);
        /* and W = Z: (Z D^-1)^T = D^-1 W^T row by row */
        double *w = to_dense(Ws, n), *z = to_dense(Zs, n);
        for (int i = 0; i < n; i++) {
            double di = 1.0 / z[(size_t)i * n + i]; /* ZDinv[i][i] = 1/d_i */
            for (int k = 0; k < n; k++)
                CHECK_MSG(fabs(z[(size_t)k * n + i] * di - w[(size_t)i * n + k]) <=
                              1e-14 * (1 + fabs(w[(size_t)i * n + k])),
                          "rep %d: W != Z at (%d, %d)", rep, k, i);
        }
        free(w);
        free(z);
        psl_matrix_destroy(&Ws);
        psl_matrix_destroy(&Zs);
        psl_matrix_destroy(&Wg);
        psl_matrix_destroy(&Zg);
        psl_matrix_destroy(&A);
        free(a);
    }
}

/* ---------------------------------------------------------------- (d) exact */

/* Z D^-1 W^T A == I when nothing is dropped and acc = 1, for patterns on
 * which the statically defined j set loses nothing: A[i,:].z_j = 0 for every
 * j < i with a_ij = 0 (and likewise for w_j). That holds for a full matrix
 * and for a tridiagonal one; on a general sparse pattern SD-AINV without
 * dropping is not A^-1. */
static double inverse_error(const psl_matrix *Wt, const psl_matrix *ZD, const double *a, int n)
{
    double *w = to_dense(Wt, n), *z = to_dense(ZD, n);
    double *t = calloc((size_t)n * n, sizeof *t), err = 0.0;
    /* t = Wt A, then (ZD t)[i][j] - delta_ij */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                t[(size_t)i * n + j] += w[(size_t)i * n + k] * a[(size_t)k * n + j];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += z[(size_t)i * n + k] * t[(size_t)k * n + j];
            double e = fabs(s - (i == j ? 1.0 : 0.0));
            if (e > err)
                err = e;
        }
    free(w);
    free(z);
    free(t);
    return err;
}

TEST(exact_without_drop)
{
    unsigned long long seed = 99;
    for (int rep = 0; rep < 6; rep++) {
        int n = 4 + rep * 5;
        double *a = malloc((size_t)n * n * sizeof *a);
        int kind = rep % 3; /* 0 full SPD, 1 tridiagonal SPD, 2 full nonsymmetric */
        random_matrix(a, n, kind == 1 ? 0.0 : 1.0, kind != 2, &seed);
        if (kind == 1)
            for (int i = 0; i + 1 < n; i++)
                a[(size_t)i * n + i + 1] = a[(size_t)(i + 1) * n + i] = -1.0;
        for (int i = 0; i < n && kind == 1; i++)
            a[(size_t)i * n + i] = 2.5;
        psl_matrix *A = from_dense(n, n, a, 1);
        psl_sdainv_options o = opts(0.0, 1.0, -1);
        psl_matrix *Wt = NULL, *ZD = NULL;
        CHECK_OK(psl_sdainv_build(A, &o, &Wt, &ZD));
        if (Wt && ZD) {
            double e = inverse_error(Wt, ZD, a, n);
            CHECK_MSG(e <= 1e-12, "rep %d (n %d, kind %d): |Z D^-1 W^T A - I| = %.3g", rep, n,
                      kind, e);
        }
        /* with dropping it is only an approximation */
        psl_matrix *W2 = NULL, *Z2 = NULL;
        o.drop_tol = 0.3;
        CHECK_OK(psl_sdainv_build(A, &o, &W2, &Z2));
        if (W2 && Z2 && kind != 1 && n > 4)
            CHECK(inverse_error(W2, Z2, a, n) > 1e-6);
        psl_matrix_destroy(&Wt);
        psl_matrix_destroy(&ZD);
        psl_matrix_destroy(&W2);
        psl_matrix_destroy(&Z2);
        psl_matrix_destroy(&A);
        free(a);
    }
}

/* ---------------------------------------------------------------- (e) errors */

/* The call fails with `expected` and leaves both outputs NULL. */
#define CHECK_FAILS(A, o, expected)                                                         \
    do {                                                                                    \
        psl_matrix *sentinel_ = from_dense(1, 1, one, 1), *s2_ = sentinel_;                 \
        psl_matrix *w_ = sentinel_, *z_ = sentinel_;                                        \
        CHECK_ST(psl_sdainv_build((A), (o), &w_, &z_), (expected));                         \
        CHECK(w_ == NULL && z_ == NULL);                                                    \
        psl_matrix_destroy(&s2_);                                                           \
    } while (0)

TEST(bad_input)
{
    const double one[1] = {1.0};
    const double a[9] = {2, -1, 0, -1, 2, -1, 0, -1, 2};
    psl_matrix *A = from_dense(3, 3, a, 1);
    psl_sdainv_options o = opts(0.1, 1.0, -1);

    /* NULL pointers */
    CHECK_FAILS(NULL, &o, PSL_ERR_NULL_POINTER);
    CHECK_FAILS(A, NULL, PSL_ERR_NULL_POINTER);
    psl_matrix *w = NULL, *z = NULL;
    CHECK_ST(psl_sdainv_build(A, &o, NULL, &z), PSL_ERR_NULL_POINTER);
    CHECK(z == NULL);
    CHECK_ST(psl_sdainv_build(A, &o, &w, NULL), PSL_ERR_NULL_POINTER);
    CHECK(w == NULL);
    psl_sdainv_options_init(NULL); /* no-op */

    /* defaults */
    psl_sdainv_options d;
    psl_sdainv_options_init(&d);
    CHECK(d.drop_tol == 0.1 && d.acc == 1.0 && d.symmetric == -1);

    /* non-square */
    const double r[6] = {1, 0, 0, 0, 1, 0};
    psl_matrix *R = from_dense(2, 3, r, 1);
    CHECK_FAILS(R, &o, PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "2 x 3") != NULL);
    psl_matrix_destroy(&R);

    /* not FP64 CSR: FP32 CSR and SELL */
    psl_convert_options co;
    psl_convert_options_init(&co);
    co.value_type = PSL_FP32;
    psl_matrix *B = NULL;
    CHECK_OK(psl_matrix_convert(&B, A, &co));
    CHECK_FAILS(B, &o, PSL_ERR_WRONG_FORMAT);
    psl_matrix_destroy(&B);
    psl_convert_options_init(&co);
    co.format = PSL_FORMAT_SELL;
    CHECK_OK(psl_matrix_convert(&B, A, &co));
    CHECK_FAILS(B, &o, PSL_ERR_WRONG_FORMAT);
    psl_matrix_destroy(&B);

    /* missing diagonal: row 2 named */
    const double m[9] = {2, -1, 0, -1, 2, -1, 0, -1, 0};
    psl_matrix *M = from_dense(3, 3, m, 0);
    CHECK_FAILS(M, &o, PSL_ERR_INVALID_MATRIX);
    psl_error_info info;
    psl_last_error(&info);
    CHECK(info.row == 2);
    CHECK(strstr(info.message, "row 2") != NULL);
    psl_matrix_destroy(&M);
    /* a stored zero diagonal is present: accepted (d_i = 0 -> 1) */
    M = from_dense(3, 3, m, 1);
    CHECK_OK(psl_sdainv_build(M, &o, &w, &z));
    psl_matrix_destroy(&w);
    psl_matrix_destroy(&z);
    psl_matrix_destroy(&M);

    /* options out of range */
    const double bad_tol[] = {-0.1, 1.0, 2.0, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad_tol / sizeof bad_tol[0]; k++) {
        psl_sdainv_options b = opts(bad_tol[k], 1.0, -1);
        CHECK_FAILS(A, &b, PSL_ERR_INVALID_VALUE);
        CHECK(strstr(psl_last_error_message(), "drop_tol") != NULL);
    }
    const double bad_acc[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad_acc / sizeof bad_acc[0]; k++) {
        psl_sdainv_options b = opts(0.1, bad_acc[k], -1);
        CHECK_FAILS(A, &b, PSL_ERR_INVALID_VALUE);
        CHECK(strstr(psl_last_error_message(), "acc") != NULL);
    }
    const int bad_sym[] = {-2, 2, 7};
    for (size_t k = 0; k < sizeof bad_sym / sizeof bad_sym[0]; k++) {
        psl_sdainv_options b = opts(0.1, 1.0, bad_sym[k]);
        CHECK_FAILS(A, &b, PSL_ERR_INVALID_VALUE);
        CHECK(strstr(psl_last_error_message(), "symmetric") != NULL);
    }

    /* symmetric = 1 on a nonsymmetric matrix: by value and by pattern */
    psl_sdainv_options s1 = opts(0.1, 1.0, 1);
    const double nv[9] = {2, -1, 0, -1, 2, -1, 0, -1.5, 2};
    const double np[9] = {2, -1, 0, -1, 2, -1, 0.5, -1, 2};
    psl_matrix *N1 = from_dense(3, 3, nv, 1), *N2 = from_dense(3, 3, np, 1);
    CHECK_FAILS(N1, &s1, PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "not symmetric") != NULL);
    CHECK_FAILS(N2, &s1, PSL_ERR_INVALID_VALUE);
    psl_last_error(&info);
    CHECK(info.row == 2); /* a_20 has no mirror */
    /* an upper entry without its mirror (every lower one has its own) */
    const double nu[9] = {2, -1, 0.5, -1, 2, -1, 0, -1, 2};
    psl_matrix *N3 = from_dense(3, 3, nu, 1);
    CHECK_FAILS(N3, &s1, PSL_ERR_INVALID_VALUE);
    psl_last_error(&info);
    CHECK(info.row == 0);
    psl_sdainv_options g0 = opts(0.1, 1.0, -1);
    CHECK_OK(psl_sdainv_build(N3, &g0, &w, &z));
    if (w && z)
        check_against_dense(w, z, nu, 3, 0.1, 1.0, "upper entry without mirror");
    psl_matrix_destroy(&w);
    psl_matrix_destroy(&z);
    psl_matrix_destroy(&N3);
    /* ... accepted by detection (general form) and symmetric = 0 */
    for (int sym = -1; sym <= 0; sym++) {
        psl_sdainv_options g = opts(0.1, 1.0, sym);
        CHECK_OK(psl_sdainv_build(N1, &g, &w, &z));
        if (w && z)
            check_against_dense(w, z, nv, 3, 0.1, 1.0, "nonsymmetric 3x3");
        psl_matrix_destroy(&w);
        psl_matrix_destroy(&z);
    }
    psl_matrix_destroy(&N1);
    psl_matrix_destroy(&N2);

    /* factors that overflow: d_0 = 1e-300 makes l = 1e300/1e-300 infinite */
    const double huge[4] = {1e-300, 1e300, 1e300, 1};
    psl_matrix *H = from_dense(2, 2, huge, 1);
    CHECK_FAILS(H, &o, PSL_ERR_NONFINITE);
    psl_last_error(&info);
    CHECK(info.row == 1);
    psl_matrix_destroy(&H);

    /* empty matrix: two empty factors */
    psl_matrix *E = NULL;
    int64_t rp0 = 0;
    CHECK_OK(psl_matrix_create_csr(&E, 0, 0, &rp0, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_sdainv_build(E, &o, &w, &z));
    CHECK(w != NULL && z != NULL);
    psl_matrix_destroy(&w);
    psl_matrix_destroy(&z);
    psl_matrix_destroy(&E);

    /* the input is untouched by a build */
    double *before = to_dense(A, 3);
    CHECK_OK(psl_sdainv_build(A, &o, &w, &z));
    double *after = to_dense(A, 3);
    CHECK(memcmp(before, after, 9 * sizeof *before) == 0);
    free(before);
    free(after);
    psl_matrix_destroy(&w);
    psl_matrix_destroy(&z);
    psl_matrix_destroy(&A);
}

/* ---------------------------------------------------------------- (f) OOM */

enum { CHILD_DONE = 0, CHILD_OOM = 10, CHILD_WRONG = 1 };

/* A banded n x n matrix with fill-in at a small drop tolerance, so that
 * the factor pools and work lists grow; sym: symmetric values. */
static psl_matrix *banded(int n, int bw, int sym)
{
    int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)n * (2 * bw + 1) * sizeof *ci);
    double *v = malloc((size_t)n * (2 * bw + 1) * sizeof *v);
    int64_t k = 0;
    rp[0] = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i - bw; j <= i + bw; j++) {
            if (j < 0 || j >= n)
                continue;
            ci[k] = j;
            v[k++] = j == i ? 4.0 * bw : (sym || j < i ? -1.0 : -0.5) / (1 + abs(i - j));
        }
        rp[i + 1] = k;
    }
    psl_matrix *A = NULL;
    psl_matrix_create_csr(&A, n, n, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT);
    free(rp);
    free(ci);
    free(v);
    return A;
}

static int oom_scenario(long nalloc)
{
    int rc = CHILD_DONE;
    psl_matrix *S = banded(300, 4, 1), *G = banded(300, 4, 0);
    psl_matrix *w = NULL, *z = NULL;
    if (!S || !G || psl_debug_fail_alloc_after(nalloc) != PSL_OK) {
        rc = CHILD_WRONG;
        goto done;
    }
    const psl_matrix *in[2] = {S, G};
    for (int t = 0; t < 2; t++) {
        psl_sdainv_options o = opts(1e-4, 1.0, -1);
        psl_status st = psl_sdainv_build(in[t], &o, &w, &z);
        if (st == PSL_ERR_OUT_OF_MEMORY) {
            rc = w == NULL && z == NULL ? CHILD_OOM : CHILD_WRONG;
            goto done;
        }
        if (st != PSL_OK) {
            fprintf(stderr, "unexpected status %d: %s\n", (int)st, psl_last_error_message());
            rc = CHILD_WRONG;
            goto done;
        }
        psl_matrix_info info;
        if (psl_matrix_get_info(w, &info) != PSL_OK || info.nnz <= 300 * 5) {
            rc = CHILD_WRONG; /* the scenario must fill in */
            goto done;
        }
        psl_matrix_destroy(&w);
        psl_matrix_destroy(&z);
    }
done:
    psl_debug_fail_alloc_after(-1);
    psl_matrix_destroy(&w);
    psl_matrix_destroy(&z);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&G);
    return rc;
}

TEST(out_of_memory)
{
    if (getenv("PSL_OOM_CHILD"))
        exit(oom_scenario(atol(getenv("PSL_OOM_CHILD"))));
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(len > 0);
    if (len <= 0)
        return;
    exe[len] = '\0';
    int ooms = 0, done = 0;
    for (int nalloc = 0; nalloc < 600 && !done; nalloc++) {
        char cmd[4300];
        snprintf(cmd, sizeof cmd,
                 "OMP_NUM_THREADS=1 PSL_OOM_CHILD=%d '%s' out_of_memory >/dev/null", nalloc, exe);
        int ws = system(cmd);
        int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        CHECK_MSG(rc == CHILD_OOM || rc == CHILD_DONE,
                  "failing allocation %d: child exit %d (1: wrong status, 23: leak)", nalloc, rc);
        if (rc != CHILD_OOM && rc != CHILD_DONE)
            break;
        ooms += rc == CHILD_OOM;
        done = rc == CHILD_DONE;
    }
    printf("  %d injected failures handled\n", ooms);
    CHECK(done);
    CHECK(ooms > 20); /* setup arrays, pools, their growth, work lists, assembly */
}

/* ---------------------------------------------------------------- real matrix */

TEST(real_spd_matrix)
{
    if (!psl_test_matrices_available("real_spd_matrix"))
        return;
    char path[4200];
    snprintf(path, sizeof path, "%s/bcsstk13.mtx", psl_test_matrix_dir());
    psl_matrix *A0 = NULL, *A = NULL;
    CHECK_OK(psl_mm_read(&A0, path));
    if (!A0)
        return;
    CHECK_OK(psl_matrix_scale_symmetric(&A, A0, NULL));
    psl_matrix_destroy(&A0);
    if (!A)
        return;
    psl_matrix_info ia;
    psl_matrix_get_info(A, &ia);
    const int n = ia.nrows;
    psl_sdainv_options o;
    psl_sdainv_options_init(&o);
    psl_matrix *Wt = NULL, *ZD = NULL, *Wg = NULL, *Zg = NULL;
    CHECK_OK(psl_sdainv_build(A, &o, &Wt, &ZD));
    o.symmetric = 0;
    CHECK_OK(psl_sdainv_build(A, &o, &Wg, &Zg));
    if (Wt && ZD && Wg && Zg) {
        CHECK(same_csr(Wt, Wg) && same_csr(ZD, Zg));
        const int64_t *rp, *zp;
        const int32_t *ci, *zc;
        const double *v, *zv;
        psl_matrix_csr_view(Wt, &rp, &ci, &v);
        psl_matrix_csr_view(ZD, &zp, &zc, &zv);
        int lower = 1, unit = 1, finite = 1, upper = 1;
        for (int i = 0; i < n; i++) {
            /* row i of W^T is w_i: indices <= i, the last one the unit diagonal */
            unit &= rp[i + 1] > rp[i] && ci[rp[i + 1] - 1] == i && v[rp[i + 1] - 1] == 1.0;
            for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
                lower &= ci[k] <= i;
                finite &= isfinite(v[k]);
            }
            /* Z D^-1 is upper triangular with 1/d_i on the diagonal */
            upper &= zp[i + 1] > zp[i] && zc[zp[i]] == i && zv[zp[i]] != 0.0;
            for (int64_t k = zp[i]; k < zp[i + 1]; k++)
                finite &= isfinite(zv[k]) && zc[k] >= i;
        }
        CHECK(lower && unit && finite && upper);
        psl_matrix_info iw, iz;
        psl_matrix_get_info(Wt, &iw);
        psl_matrix_get_info(ZD, &iz);
        CHECK(iw.nnz == iz.nnz);
        CHECK(iw.nnz >= n);
        printf("  bcsstk13 scaled: n %d, nnz(A) %lld, nnz(Wt) = nnz(ZDinv) %lld\n", n,
               (long long)ia.nnz, (long long)iw.nnz);
    }
    psl_matrix_destroy(&Wt);
    psl_matrix_destroy(&ZD);
    psl_matrix_destroy(&Wg);
    psl_matrix_destroy(&Zg);
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"hand_4x4", hand_4x4},
    {"boundary_and_zero_pivot", boundary_and_zero_pivot},
    {"random_against_dense", random_against_dense},
    {"symmetric_form_equals_general", symmetric_form_equals_general},
    {"exact_without_drop", exact_without_drop},
    {"bad_input", bad_input},
    {"out_of_memory", out_of_memory},
    {"real_spd_matrix", real_spd_matrix},
};
PSL_TEST_MAIN(tests)
