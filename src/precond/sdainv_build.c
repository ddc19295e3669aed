/*
 * sdainv_build.c -- the SD-AINV factors M^-1 = Z D^-1 W^T of a square FP64
 * CSR matrix (Suzuki, Fukaya, Iwashita 2022), built on the host in FP64 as
 * docs/ALGORITHMS.md section 8 describes: left-looking over i, w_i and z_i
 * sorted (index, value) lists updated by sparse axpys with an absolute drop,
 * the set of j following A's pattern. The symmetric form builds only Z
 * (W = Z). The results are Wt = W^T and ZDinv = Z D^-1 as FP64 CSR.
 */
#include "format/format.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


void psl_sdainv_options_init(psl_sdainv_options *opt)
{
    if (!opt)
        return;
    opt->drop_tol = 0.1;
    opt->acc = 1.0;
    opt->symmetric = -1;
}

/* ------------------------------------------------------------ growable lists */

/* Grow (idx, val) arrays of *cap entries holding len to at least need
 * entries (1.5x steps). psl_malloc-based so that every growth can fail
 * under the test hook; each growth goes through psl_memory_check first (a
 * small drop tolerance can fill the factors towards n^2 entries). */
static psl_status grow_pairs(int32_t **idx, double **val, int64_t *cap, int64_t len, int64_t need,
                             const char *what)
{
    if (need <= *cap)
        return PSL_OK;
    int64_t nc = *cap + *cap / 2;
    if (nc < need)
        nc = need;
    if (nc < 16)
        nc = 16;
    int32_t *ni = NULL;
    double *nv = NULL;
    char request[160];
    snprintf(request, sizeof request, "%s of %lld entries", what, (long long)nc);
    psl_status st = psl_memory_check((double)nc * (double)(sizeof *ni + sizeof *nv), request);
    if (st != PSL_OK)
        return st;
    if ((st = psl_alloc((void **)&ni, (size_t)nc, sizeof *ni, what)) != PSL_OK)
        return st;
    if ((st = psl_alloc((void **)&nv, (size_t)nc, sizeof *nv, what)) != PSL_OK) {
        free(ni);
        return st;
    }
    if (len > 0) {
        memcpy(ni, *idx, (size_t)len * sizeof *ni);
        memcpy(nv, *val, (size_t)len * sizeof *nv);
    }
    free(*idx);
    free(*val);
    *idx = ni;
    *val = nv;
    *cap = nc;
    return PSL_OK;
}

/* The finished vectors w_0..w_{i-1} (or z_*), one after the other: vector k
 * is idx/val[ptr[k] .. ptr[k+1]), which is also the CSR of their transpose
 * (row k = vector k). */
typedef struct pool {
    int64_t *ptr; /* n+1 */
    int32_t *idx;
    double *val;
    int64_t cap;
} pool;

static void pool_free(pool *p)
{
    free(p->ptr);
    free(p->idx);
    free(p->val);
    memset(p, 0, sizeof *p);
}

static psl_status pool_new(pool *p, int32_t n, int64_t cap, const char *what)
{
    memset(p, 0, sizeof *p);
    psl_status st;
    if ((st = psl_alloc((void **)&p->ptr, (size_t)n + 1, sizeof *p->ptr, what)) != PSL_OK)
        return st;
    p->ptr[0] = 0;
    return grow_pairs(&p->idx, &p->val, &p->cap, 0, cap, what);
}

/* Append vector k (len entries) to the pool. */
static psl_status pool_append(pool *p, int32_t k, const int32_t *idx, const double *val,
                              int64_t len, const char *what)
{
    int64_t at = p->ptr[k];
    PSL_TRY(grow_pairs(&p->idx, &p->val, &p->cap, at, at + len, what));
    memcpy(p->idx + at, idx, (size_t)len * sizeof *idx);
    memcpy(p->val + at, val, (size_t)len * sizeof *val);
    p->ptr[k + 1] = at + len;
    return PSL_OK;
}

/* ------------------------------------------------------------ sparse kernels */

/* out = drop(y + alpha x) over sorted lists: an entry is kept when
 * |v| >= tol (with tol = 0 exact zeros are kept). Entries of y that x does
 * not touch are copied unchanged. Returns the length of out. */
static int64_t axpy_drop(double alpha, const int32_t *xi, const double *xv, int64_t xn,
                         const int32_t *yi, const double *yv, int64_t yn, double tol,
                         int32_t *oi, double *ov)
{
    int64_t a = 0, b = 0, m = 0;
    while (a < xn || b < yn) {
        int32_t k;
        double v;
        if (b >= yn || (a < xn && xi[a] < yi[b])) {
            k = xi[a];
            v = xv[a] * alpha;
            a++;
        } else if (a >= xn || yi[b] < xi[a]) {
            k = yi[b];
            v = yv[b];
            b++;
        } else {
            k = yi[b];
            v = yv[b] + alpha * xv[a];
            a++;
            b++;
        }
        if (fabs(v) >= tol) {
            oi[m] = k;
            ov[m] = v;
            m++;
        }
    }
    return m;
}

/* x . a over the entries of the sorted list x that the scattered vector a
 * holds (mark[k] == stamp), in ascending index order: the sum a merge of
 * the two sorted lists forms. The entry at index diag (if any) is taken
 * times acc first. */
static double dot_scattered(const int32_t *xi, const double *xv, int64_t xn, const int32_t *mark,
                            const double *dense, int32_t stamp, int32_t diag, double acc)
{
    double s = 0.0;
    for (int64_t t = 0; t < xn; t++) {
        int32_t k = xi[t];
        if (mark[k] == stamp)
            s += (k == diag ? xv[t] * acc : xv[t]) * dense[k];
    }
    return s;
}

/* Sort row entries (idx ascending, values alongside): a no-op on sorted
 * rows, insertion sort for short ones, heapsort otherwise (no allocation). */
static void sift_down(int32_t *ci, double *v, int64_t root, int64_t end)
{
    for (;;) {
        int64_t c = 2 * root + 1;
        if (c >= end)
            return;
        if (c + 1 < end && ci[c + 1] > ci[c])
            c++;
        if (ci[root] >= ci[c])
            return;
        int32_t ti = ci[root];
        ci[root] = ci[c];
        ci[c] = ti;
        double tv = v[root];
        v[root] = v[c];
        v[c] = tv;
        root = c;
    }
}

static void sort_row(int32_t *ci, double *v, int64_t m)
{
    int64_t t = 1;
    while (t < m && ci[t - 1] < ci[t])
        t++;
    if (t >= m)
        return;
    if (m <= 32) {
        for (int64_t a = 1; a < m; a++) {
            int32_t k = ci[a];
            double x = v[a];
            int64_t b = a;
            while (b > 0 && ci[b - 1] > k) {
                ci[b] = ci[b - 1];
                v[b] = v[b - 1];
                b--;
            }
            ci[b] = k;
            v[b] = x;
        }
        return;
    }
    for (int64_t r = m / 2; r-- > 0;)
        sift_down(ci, v, r, m);
    for (int64_t e = m - 1; e > 0; e--) {
        int32_t ti = ci[0];
        ci[0] = ci[e];
        ci[e] = ti;
        double tv = v[0];
        v[0] = v[e];
        v[e] = tv;
        sift_down(ci, v, 0, e);
    }
}

/* The transpose of the n x n CSR (rp, ci, v), rows sorted, as new arrays;
 * with div != NULL each value of source row r is divided by div[r].
 * Parallel: atomic counts and slots, then each row sorted (the result does
 * not depend on the threads: the indices of a row are distinct). */
static psl_status transpose(int32_t n, const int64_t *rp, const int32_t *ci, const double *v,
                            const double *div, int64_t **trp_out, int32_t **tci_out,
                            double **tv_out, const char *what)
{
    const int64_t nnz = rp[n];
    int64_t *trp = NULL, *next = NULL;
    int32_t *tci = NULL;
    double *tv = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&trp, (size_t)n + 1, sizeof *trp, what)) != PSL_OK ||
        (st = psl_alloc((void **)&next, (size_t)n + 1, sizeof *next, what)) != PSL_OK ||
        (st = psl_alloc((void **)&tci, (size_t)nnz, sizeof *tci, what)) != PSL_OK ||
        (st = psl_alloc((void **)&tv, (size_t)nnz, sizeof *tv, what)) != PSL_OK) {
        free(trp);
        free(next);
        free(tci);
        return st;
    }
    const int par = nnz > PSL_PAR_MIN;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r <= n; r++)
        next[r] = 0;
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
#pragma omp atomic
            next[ci[k] + 1]++;
        }
    trp[0] = 0;
    for (int64_t c = 0; c < n; c++)
        trp[c + 1] = trp[c] + next[c + 1];
#pragma omp parallel for schedule(static) if (par)
    for (int64_t c = 0; c < n; c++)
        next[c] = trp[c];
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r < n; r++)
        for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
            int64_t at;
#pragma omp atomic capture
            at = next[ci[k]]++;
            tci[at] = (int32_t)r;
            tv[at] = div ? v[k] / div[r] : v[k];
        }
#pragma omp parallel for schedule(dynamic, 1024) if (par)
    for (int64_t c = 0; c < n; c++)
        sort_row(tci + trp[c], tv + trp[c], trp[c + 1] - trp[c]);
    free(next);
    *trp_out = trp;
    *tci_out = tci;
    *tv_out = tv;
    return PSL_OK;
}

/* ------------------------------------------------------------ input checks */

/* Position of column c in the sorted row r of A, or -1 (a branch-free
 * lower bound: the rows of a stencil are short and the branches of a
 * plain binary search are unpredictable). */
static int64_t find_col(const int64_t *rp, const int32_t *ci, int64_t r, int32_t c)
{
    int64_t lo = rp[r], len = rp[r + 1] - lo;
    if (len == 0)
        return -1;
    while (len > 1) {
        int64_t half = len / 2;
        lo = ci[lo + half - 1] < c ? lo + half : lo;
        len -= half;
    }
    return ci[lo] == c ? lo : -1;
}

/* First row of A without a stored diagonal entry, or n. */
static int64_t first_missing_diagonal(int32_t n, const int64_t *rp, const int32_t *ci)
{
    int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (rp[n] > PSL_PAR_MIN)
    for (int64_t r = 0; r < n; r++)
        if (find_col(rp, ci, r, (int32_t)r) < 0 && r < bad)
            bad = r;
    return bad;
}

/* First row r of A holding an entry a_rc whose mirror a_cr is absent or has
 * another value (exact comparison), or n when A equals its transpose.
 * Fast path: every strictly lower entry a_rc (c < r) must have its mirror;
 * that maps the lower entries one-to-one onto upper ones, so equal counts
 * of lower and upper entries make A symmetric. Only a failing matrix whose
 * first bad entry is an upper one takes the full pass that names the row. */
static int64_t first_asymmetric_row(int32_t n, const int64_t *rp, const int32_t *ci,
                                    const double *v)
{
    int64_t bad = n, lower = 0, upper = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : bad) \
    reduction(+ : lower, upper) if (rp[n] > PSL_PAR_MIN)
    for (int64_t r = 0; r < n; r++) {
        if (r >= bad)
            continue;
        int64_t k = rp[r];
        for (; k < rp[r + 1] && ci[k] < r; k++) {
            int64_t m = find_col(rp, ci, ci[k], (int32_t)r);
            if (m < 0 || v[m] != v[k]) {
                bad = r;
                break;
            }
        }
        lower += k - rp[r];
        for (; k < rp[r + 1]; k++)
            upper += ci[k] > r;
    }
    if (bad < n || lower == upper)
        return bad;
#pragma omp parallel for schedule(dynamic, 4096) reduction(min : bad) if (rp[n] > PSL_PAR_MIN)
    for (int64_t r = 0; r < n; r++) {
        if (r >= bad)
            continue;
        for (int64_t k = rp[r]; k < rp[r + 1]; k++)
            if (ci[k] > r && find_col(rp, ci, ci[k], (int32_t)r) < 0) {
                bad = r;
                break;
            }
    }
    return bad;
}

static bool nonfinite_row(const double *v, int64_t m)
{
    for (int64_t t = 0; t < m; t++)
        if (!isfinite(v[t]))
            return true;
    return false;
}

/* ------------------------------------------------------------ the build */

/* Working state of one build; every array is released by build_free. */
typedef struct build {
    int32_t n;
    const int64_t *rp;
    const int32_t *ci;
    const double *av;
    int64_t *crp; /* CSC of A (general form) */
    int32_t *cri;
    double *cv;
    int32_t *rmark, *cmark; /* scatter stamps of A[i,:] and A[:,i] */
    double *rval, *cval;
    double *d;
    pool w, z;
    int32_t *bi[2];
    double *bv[2];
    int64_t bcap[2];
} build;

static void build_free(build *b)
{
    free(b->crp);
    free(b->cri);
    free(b->cv);
    free(b->rmark);
    free(b->cmark);
    free(b->rval);
    free(b->cval);
    free(b->d);
    pool_free(&b->w);
    pool_free(&b->z);
    for (int t = 0; t < 2; t++) {
        free(b->bi[t]);
        free(b->bv[t]);
    }
}

/* One factor vector f_i = e_i updated, for each j of list (ascending), by
 * f_i = drop(f_i - ((g_j . a)/d_j) f_j), where a is the scattered vector
 * (mark/dense, stamp i) and f_j, g_j come from pools f and g. The result
 * is left in work buffer *out (length returned in *len). */
static psl_status update_vector(build *b, int32_t i, const int32_t *list, int64_t nlist,
                                const pool *f, const pool *g, const int32_t *mark,
                                const double *dense, double tol, int *out, int64_t *len)
{
    int cur = 0;
    b->bi[cur][0] = i;
    b->bv[cur][0] = 1.0;
    int64_t m = 1;
    for (int64_t t = 0; t < nlist; t++) {
        int32_t j = list[t];
        int64_t g0 = g->ptr[j], gn = g->ptr[j + 1] - g0;
        double s = dot_scattered(g->idx + g0, g->val + g0, gn, mark, dense, i, -1, 1.0);
        double alpha = -s / b->d[j];
        int64_t f0 = f->ptr[j], fn = f->ptr[j + 1] - f0;
        int nx = 1 - cur;
        PSL_TRY(grow_pairs(&b->bi[nx], &b->bv[nx], &b->bcap[nx], 0, m + fn, "SD-AINV work list"));
        m = axpy_drop(alpha, f->idx + f0, f->val + f0, fn, b->bi[cur], b->bv[cur], m, tol,
                      b->bi[nx], b->bv[nx]);
        cur = nx;
    }
    *out = cur;
    *len = m;
    return PSL_OK;
}

/* The sequential left-looking loop: vector i needs the finished w_j and z_j
 * of every j < i in A's pattern, and in the natural order of a stencil
 * matrix that chain runs through every row, so there is no parallelism to
 * take without reordering A (which would change the factors). */
static psl_status left_looking(build *b, bool sym, double tol, double acc, int64_t *bad_row)
{
    const int32_t n = b->n;
    const int64_t *rp = b->rp;
    const int32_t *ci = b->ci;
    for (int32_t i = 0; i < n; i++) {
        const int64_t r0 = rp[i], rn = rp[i + 1] - r0;
        int64_t rlow = 0;
        while (rlow < rn && ci[r0 + rlow] < i)
            rlow++;
        /* every list read at step i holds indices <= i: A[i, 0..i] suffices */
        for (int64_t t = 0; t < rn && t <= rlow; t++) {
            b->rmark[ci[r0 + t]] = i;
            b->rval[ci[r0 + t]] = b->av[r0 + t];
        }
        int out;
        int64_t m;
        double di;
        if (sym) {
            PSL_TRY(update_vector(b, i, ci + r0, rlow, &b->z, &b->z, b->rmark, b->rval, tol,
                                  &out, &m));
            if (nonfinite_row(b->bv[out], m)) {
                *bad_row = i;
                return PSL_ERR_NONFINITE;
            }
            PSL_TRY(pool_append(&b->z, i, b->bi[out], b->bv[out], m, "the SD-AINV factor Z"));
            di = dot_scattered(b->bi[out], b->bv[out], m, b->rmark, b->rval, i, i, acc);
        } else {
            const int64_t c0 = b->crp[i], cn = b->crp[i + 1] - c0;
            int64_t clow = 0;
            while (clow < cn && b->cri[c0 + clow] < i)
                clow++;
            for (int64_t t = 0; t < cn && t <= clow; t++) {
                b->cmark[b->cri[c0 + t]] = i;
                b->cval[b->cri[c0 + t]] = b->cv[c0 + t];
            }
            /* w_i from w_j, l = (A[i,:] . z_j)/d_j, j < i with a_ij != 0 */
            PSL_TRY(update_vector(b, i, ci + r0, rlow, &b->w, &b->z, b->rmark, b->rval, tol,
                                  &out, &m));
            if (nonfinite_row(b->bv[out], m)) {
                *bad_row = i;
                return PSL_ERR_NONFINITE;
            }
            PSL_TRY(pool_append(&b->w, i, b->bi[out], b->bv[out], m, "the SD-AINV factor W"));
            di = dot_scattered(b->bi[out], b->bv[out], m, b->cmark, b->cval, i, i, acc);
            /* z_i from z_j, u = (w_j . A[:,i])/d_j, j < i with a_ji != 0 */
            PSL_TRY(update_vector(b, i, b->cri + c0, clow, &b->z, &b->w, b->cmark, b->cval, tol,
                                  &out, &m));
            if (nonfinite_row(b->bv[out], m)) {
                *bad_row = i;
                return PSL_ERR_NONFINITE;
            }
            PSL_TRY(pool_append(&b->z, i, b->bi[out], b->bv[out], m, "the SD-AINV factor Z"));
        }
        if (!isfinite(di)) {
            *bad_row = i;
            return PSL_ERR_NONFINITE;
        }
        b->d[i] = di == 0.0 ? 1.0 : di;
    }
    return PSL_OK;
}

/* The pool's arrays trimmed to their length (handed over when they fit). */
static psl_status pool_take(pool *p, int32_t n, int64_t **rp, int32_t **ci, double **v)
{
    const int64_t len = p->ptr[n];
    if (len < p->cap) {
        int32_t *ni = NULL;
        double *nv = NULL;
        psl_status st;
        if ((st = psl_alloc((void **)&ni, (size_t)len, sizeof *ni, "the SD-AINV factor")) !=
            PSL_OK)
            return st;
        if ((st = psl_alloc((void **)&nv, (size_t)len, sizeof *nv, "the SD-AINV factor")) !=
            PSL_OK) {
            free(ni);
            return st;
        }
#pragma omp parallel for schedule(static) if (len > PSL_PAR_MIN)
        for (int64_t k = 0; k < len; k++) {
            ni[k] = p->idx[k];
            nv[k] = p->val[k];
        }
        free(p->idx);
        free(p->val);
        p->idx = ni;
        p->val = nv;
        p->cap = len;
    }
    *rp = p->ptr;
    *ci = p->idx;
    *v = p->val;
    memset(p, 0, sizeof *p);
    return PSL_OK;
}

static psl_status check_options(const psl_sdainv_options *opt)
{
    if (!(isfinite(opt->drop_tol) && opt->drop_tol >= 0.0 && opt->drop_tol < 1.0))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_sdainv_build: drop_tol = %g (accepted: finite, 0 <= drop_tol < 1)",
                         opt->drop_tol);
    if (!(isfinite(opt->acc) && opt->acc > 0.0))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_sdainv_build: acc = %g (accepted: finite, acc > 0)", opt->acc);
    if (opt->symmetric < -1 || opt->symmetric > 1)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_sdainv_build: symmetric = %d (accepted: -1 detect, 0 general, "
                         "1 symmetric)",
                         opt->symmetric);
    return PSL_OK;
}

psl_status psl_sdainv_build(const psl_matrix *A, const psl_sdainv_options *opt,
                            psl_matrix **Wt, psl_matrix **ZDinv)
{
    if (Wt)
        *Wt = NULL;
    if (ZDinv)
        *ZDinv = NULL;
    if (!Wt || !ZDinv)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_sdainv_build: %s output handle pointer is NULL",
                         !Wt ? "the Wt" : "the ZDinv");
    PSL_TRY(psl_matrix_check_fp64_csr(A, "psl_sdainv_build"));
    if (!opt)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_sdainv_build: the options pointer is NULL");
    PSL_TRY(check_options(opt));
    if (A->nrows != A->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_sdainv_build: A is %d x %d; SD-AINV needs a square matrix",
                         (int)A->nrows, (int)A->ncols);
    const double t0 = psl_wall_seconds();
    const int32_t n = A->nrows;
    build b;
    memset(&b, 0, sizeof b);
    b.n = n;
    b.rp = A->row_ptr;
    b.ci = A->col_idx;
    b.av = A->values;

    int64_t bad = first_missing_diagonal(n, b.rp, b.ci);
    if (bad < n)
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, bad, bad,
                            "psl_sdainv_build: row %lld of A has no stored diagonal entry "
                            "(SD-AINV needs every a_ii)",
                            (long long)bad);
    bool sym = opt->symmetric == 1;
    if (opt->symmetric != 0) {
        bad = first_asymmetric_row(n, b.rp, b.ci, b.av);
        if (opt->symmetric == 1 && bad < n)
            return psl_error_at(PSL_ERR_INVALID_VALUE, -1, bad, -1,
                                "psl_sdainv_build: symmetric = 1 but A is not symmetric "
                                "(row %lld differs from its column)",
                                (long long)bad);
        sym = bad == n;
    }

    psl_status st;
    /* first room for the factors: twice the diagonal (they grow by 1.5x) */
    const int64_t guess = 2 * (int64_t)n + 16;
    if ((st = psl_alloc((void **)&b.rmark, (size_t)n, sizeof *b.rmark, "SD-AINV row stamps")) !=
            PSL_OK ||
        (st = psl_alloc((void **)&b.rval, (size_t)n, sizeof *b.rval, "SD-AINV row values")) !=
            PSL_OK ||
        (st = psl_alloc((void **)&b.d, (size_t)n, sizeof *b.d, "the SD-AINV diagonal D")) !=
            PSL_OK ||
        (st = pool_new(&b.z, n, guess, "the SD-AINV factor Z")) != PSL_OK)
        goto fail;
    for (int t = 0; t < 2; t++)
        if ((st = grow_pairs(&b.bi[t], &b.bv[t], &b.bcap[t], 0, 64, "SD-AINV work list")) !=
            PSL_OK)
            goto fail;
    if (!sym) {
        if ((st = psl_alloc((void **)&b.cmark, (size_t)n, sizeof *b.cmark,
                            "SD-AINV column stamps")) != PSL_OK ||
            (st = psl_alloc((void **)&b.cval, (size_t)n, sizeof *b.cval,
                            "SD-AINV column values")) != PSL_OK ||
            (st = pool_new(&b.w, n, guess, "the SD-AINV factor W")) != PSL_OK ||
            (st = transpose(n, b.rp, b.ci, b.av, NULL, &b.crp, &b.cri, &b.cv,
                            "the transpose of A")) != PSL_OK)
            goto fail;
    }
#pragma omp parallel for schedule(static) if (n > PSL_PAR_MIN)
    for (int64_t k = 0; k < n; k++) {
        b.rmark[k] = -1;
        if (b.cmark)
            b.cmark[k] = -1;
    }
    const double t1 = psl_wall_seconds();

    bad = -1;
    st = left_looking(&b, sym, opt->drop_tol, opt->acc, &bad);
    if (st == PSL_ERR_NONFINITE) {
        st = psl_error_at(PSL_ERR_NONFINITE, -1, bad, -1,
                          "psl_sdainv_build: the factors overflow at row %lld (d_i or an entry "
                          "of w_i/z_i is not finite; the scaling of A is extreme)",
                          (long long)bad);
        goto fail;
    }
    if (st != PSL_OK)
        goto fail;
    const double t2 = psl_wall_seconds();

    /* Z D^-1: column i of Z (the list z_i) divided by d_i */
    int64_t *zrp = NULL;
    int32_t *zci = NULL;
    double *zv = NULL;
    if ((st = transpose(n, b.z.ptr, b.z.idx, b.z.val, b.d, &zrp, &zci, &zv,
                        "the SD-AINV factor Z D^-1")) != PSL_OK)
        goto fail;
    const int64_t znnz = zrp[n];
    bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) if (znnz > PSL_PAR_MIN)
    for (int64_t r = 0; r < n; r++)
        if (nonfinite_row(zv + zrp[r], zrp[r + 1] - zrp[r]) && r < bad)
            bad = r;
    if (bad < n) {
        free(zrp);
        free(zci);
        free(zv);
        st = psl_error_at(PSL_ERR_NONFINITE, -1, bad, -1,
                          "psl_sdainv_build: Z D^-1 overflows in row %lld (a d_i is too small)",
                          (long long)bad);
        goto fail;
    }
    if ((st = psl_csr_adopt(ZDinv, n, n, zrp, zci, zv, PSL_CSR_TRUSTED)) != PSL_OK)
        goto fail;

    int64_t *wrp;
    int32_t *wci;
    double *wv;
    if ((st = pool_take(sym ? &b.z : &b.w, n, &wrp, &wci, &wv)) != PSL_OK ||
        (st = psl_csr_adopt(Wt, n, n, wrp, wci, wv, PSL_CSR_TRUSTED)) != PSL_OK) {
        psl_matrix_destroy(ZDinv);
        goto fail;
    }
    build_free(&b);
    psl_trace("sdainv_build: n %d, %s form, nnz(Wt) %lld, nnz(ZDinv) %lld: setup %.3f s, "
              "left-looking %.3f s, assembly %.3f s",
              (int)n, sym ? "symmetric" : "general", (long long)(*Wt)->nnz,
              (long long)(*ZDinv)->nnz, t1 - t0, t2 - t1, psl_wall_seconds() - t2);
    return PSL_OK;
fail:
    build_free(&b);
    return st;
}
