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

/* Copies of A's row pointers and columns, and room for the new values. */
static psl_status copy_pattern(const psl_matrix *A, int64_t **rp, int32_t **ci, double **v)
{
    *rp = NULL;
    *ci = NULL;
    *v = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)rp, (size_t)A->nrows + 1, sizeof **rp, "row pointers")) !=
            PSL_OK ||
        (st = psl_alloc((void **)ci, (size_t)A->nnz, sizeof **ci, "column indices")) != PSL_OK ||
        (st = psl_alloc((void **)v, (size_t)A->nnz, sizeof **v, "values")) != PSL_OK) {
        free(*rp);
        free(*ci);
        return st;
    }
    memcpy(*rp, A->row_ptr, ((size_t)A->nrows + 1) * sizeof **rp);
    if (A->nnz > 0)
        memcpy(*ci, A->col_idx, (size_t)A->nnz * sizeof **ci);
    return PSL_OK;
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
    int64_t *rp;
    int32_t *ci;
    double *v, *gs = NULL;
    PSL_TRY(copy_pattern(A, &rp, &ci, &v));
    psl_status st = psl_alloc((void **)&gs, (size_t)n, sizeof *gs, "row scale factors");
    if (st != PSL_OK) {
        free(rp);
        free(ci);
        free(v);
        return st;
    }
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
    st = psl_csr_adopt(out, A->nrows, A->ncols, rp, ci, v, PSL_CSR_TRUSTED);
    if (st == PSL_OK && g && n > 0)
        memcpy(g, gs, (size_t)n * sizeof *g);
    free(gs);
    return st;
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
    int64_t *rp;
    int32_t *ci;
    double *v, *gs = NULL;
    PSL_TRY(copy_pattern(A, &rp, &ci, &v));
    psl_status st = psl_alloc((void **)&gs, (size_t)n, sizeof *gs, "diagonal scale factors");
    if (st != PSL_OK)
        goto fail;
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
        st = psl_error_at(PSL_ERR_NONFINITE, -1, first_bad, aci[k],
                          "psl_matrix_scale_symmetric: entry %g at row %lld, column %lld "
                          "(0-based) overflows when divided by gbar_i * gbar_j = %g * %g",
                          av[k], (long long)first_bad, (long long)aci[k], gs[first_bad],
                          gs[aci[k]]);
        goto fail;
    }
    st = psl_csr_adopt(out, A->nrows, A->ncols, rp, ci, v, PSL_CSR_TRUSTED);
    rp = NULL; /* adopted, or freed by psl_csr_adopt */
    ci = NULL;
    v = NULL;
    if (st == PSL_OK && gbar && n > 0)
        memcpy(gbar, gs, (size_t)n * sizeof *gbar);
fail:
    free(rp);
    free(ci);
    free(v);
    free(gs);
    return st;
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
