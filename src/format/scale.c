/*
 * scale.c -- scaled copies of an FP64 CSR matrix: row scaling G^-1 A
 * (g_i = sum_j |a_ij|), symmetric diagonal scaling Gbar^-1 A Gbar^-1
 * (gbar_i = sqrt|a_ii|), and y = D^-1 x to scale the vectors that go with
 * them. The pattern is copied as is; each value is rescaled independently,
 * so the results do not depend on the number of threads.
 */
#include "build.h"
#include "format.h"

#include <stdlib.h>
#include <string.h>

/* The arrays of a scaled copy of A: copies of its row pointers and
 * columns, room for the new values and for the n scale factors (what names
 * them in an out-of-memory message). On failure nothing is left allocated. */
typedef struct scaled {
    int64_t *rp;
    int32_t *ci;
    double *v, *g;
} scaled;

static void scaled_free(scaled *c)
{
    free(c->rp);
    free(c->ci);
    free(c->v);
    free(c->g);
    memset(c, 0, sizeof *c);
}

static psl_status scaled_new(scaled *c, const psl_matrix *A, const char *what)
{
    memset(c, 0, sizeof *c);
    psl_status st;
    if ((st = psl_alloc((void **)&c->rp, (size_t)A->nrows + 1, sizeof *c->rp,
                        "row pointers")) != PSL_OK ||
        (st = psl_alloc((void **)&c->ci, (size_t)A->nnz, sizeof *c->ci, "column indices")) !=
            PSL_OK ||
        (st = psl_alloc((void **)&c->v, (size_t)A->nnz, sizeof *c->v, "values")) != PSL_OK ||
        (st = psl_alloc((void **)&c->g, (size_t)A->nrows, sizeof *c->g, what)) != PSL_OK) {
        scaled_free(c);
        return st;
    }
    memcpy(c->rp, A->row_ptr, ((size_t)A->nrows + 1) * sizeof *c->rp);
    if (A->nnz > 0)
        memcpy(c->ci, A->col_idx, (size_t)A->nnz * sizeof *c->ci);
    return PSL_OK;
}

/* The scaled copy becomes *out (psl_csr_adopt owns its arrays in every
 * case), and on success its factors go to g (may be NULL). */
static psl_status scaled_adopt(scaled *c, psl_matrix **out, const psl_matrix *A, double *g)
{
    psl_status st = psl_csr_adopt(out, A->nrows, A->ncols, c->rp, c->ci, c->v, PSL_CSR_TRUSTED);
    c->rp = NULL;
    c->ci = NULL;
    c->v = NULL;
    if (st == PSL_OK && g && A->nrows > 0)
        memcpy(g, c->g, (size_t)A->nrows * sizeof *g);
    scaled_free(c);
    return st;
}

psl_status psl_matrix_scale_rows(psl_matrix **out, const psl_matrix *A, double *g)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *out = NULL;
    PSL_TRY(psl_matrix_check_fp64_csr(A, "psl_matrix_scale_rows"));
    const int64_t n = A->nrows;
    const int64_t *arp = A->row_ptr;
    const double *av = A->values;
    scaled c;
    PSL_TRY(scaled_new(&c, A, "row scale factors"));
    double *v = c.v, *gs = c.g;
#pragma omp parallel for schedule(static) if (A->nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t k = arp[i]; k < arp[i + 1]; k++)
            s += fabs(av[k]);
        /* |a_ij| <= s: the quotients are finite (0 where s overflowed) */
        for (int64_t k = arp[i]; k < arp[i + 1]; k++)
            v[k] = s > 0 ? av[k] / s : av[k];
        gs[i] = s > 0 ? s : 1.0;
    }
    return scaled_adopt(&c, out, A, g);
}

psl_status psl_matrix_scale_symmetric(psl_matrix **out, const psl_matrix *A, double *gbar)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *out = NULL;
    PSL_TRY(psl_matrix_check_fp64_csr(A, "psl_matrix_scale_symmetric"));
    if (A->nrows != A->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_matrix_scale_symmetric needs a square matrix (this one is "
                         "%ld x %ld)",
                         (long)A->nrows, (long)A->ncols);
    const int64_t n = A->nrows;
    const int64_t *arp = A->row_ptr;
    const int32_t *aci = A->col_idx;
    const double *av = A->values;
    scaled c;
    PSL_TRY(scaled_new(&c, A, "diagonal scale factors"));
    double *v = c.v, *gs = c.g;
#pragma omp parallel for schedule(static) if (A->nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        double d = 0.0;
        for (int64_t k = arp[i]; k < arp[i + 1]; k++)
            if (aci[k] == i) /* columns are unique: at most one diagonal entry */
                d = av[k];
        gs[i] = d != 0 ? sqrt(fabs(d)) : 1.0;
    }
    int64_t first_bad = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : first_bad) if (A->nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        for (int64_t k = arp[i]; k < arp[i + 1]; k++) {
            v[k] = av[k] / (gs[i] * gs[aci[k]]);
            if (!isfinite(v[k]) && i < first_bad)
                first_bad = i;
        }
    }
    if (first_bad != INT64_MAX) {
        int64_t k = arp[first_bad];
        while (isfinite(v[k]))
            k++;
        psl_status st = psl_error_at(
            PSL_ERR_NONFINITE, -1, first_bad, aci[k],
            "psl_matrix_scale_symmetric: entry %g at row %lld, column %lld "
            "(0-based) overflows when divided by gbar_i * gbar_j = %g * %g",
            av[k], (long long)first_bad, (long long)aci[k], gs[first_bad], gs[aci[k]]);
        scaled_free(&c);
        return st;
    }
    return scaled_adopt(&c, out, A, gbar);
}

psl_status psl_vector_div_diag(int64_t n, const double *d, const double *x, double *y)
{
    if (n < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "vector length %lld must be >= 0", (long long)n);
    if (n == 0)
        return PSL_OK;
    if (!d || !x || !y)
        return psl_error(PSL_ERR_NULL_POINTER, "%s is NULL with %lld entries",
                         !d ? "diagonal d" : !x ? "input vector x" : "output vector y",
                         (long long)n);
    int64_t first_bad = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : first_bad) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        if (!(d[i] != 0 && isfinite(d[i])) && i < first_bad)
            first_bad = i;
    if (first_bad != INT64_MAX)
        return psl_error_at(PSL_ERR_INVALID_VALUE, -1, first_bad, -1,
                            "diagonal entry d[%lld] = %g cannot divide (must be finite and "
                            "nonzero)",
                            (long long)first_bad, d[first_bad]);
#pragma omp parallel for schedule(static) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] / d[i];
    return PSL_OK;
}
