/*
 * backward_error.c -- psl_spmv_backward_error: the normwise backward error
 * ||y - r||_inf / (|alpha| ||A||_inf ||x||_inf + |beta| ||y0||_inf) of a
 * computed product y against r = alpha*A*x + beta*y0 in FP64 from the FP64
 * CSR matrix (plain row loops: the oracle `packsell bench` reports). Only
 * maxima are reduced across threads, so the value is the same bits
 * whatever the number of threads.
 */
#include "internal.h"

#include <math.h>

/* First index of a non-finite entry of v[0..n), or -1; *norm = max |v_i|. */
static int64_t first_nonfinite(const double *v, int64_t n, double *norm)
{
    int64_t first = INT64_MAX;
    double m = 0.0;
#pragma omp parallel for schedule(static) reduction(min : first) reduction(max : m) \
    if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            if (i < first)
                first = i;
        } else if (fabs(v[i]) > m) {
            m = fabs(v[i]);
        }
    }
    *norm = m;
    return first == INT64_MAX ? -1 : first;
}

psl_status psl_spmv_backward_error(const psl_matrix *A, double alpha, const double *x,
                                   double beta, const double *y0, const double *y,
                                   double *err)
{
    PSL_TRY(psl_matrix_check_fp64_csr(A, "psl_spmv_backward_error"));
    const int64_t m = A->nrows, n = A->ncols;
    if (!err)
        return psl_error(PSL_ERR_NULL_POINTER, "err (the output) is NULL");
    if (!x && n > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "x is NULL (%lld columns)", (long long)n);
    if (!y && m > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "y is NULL (%lld rows)", (long long)m);
    if (beta != 0 && !y0 && m > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "y0 is NULL with beta = %g (%lld rows)", beta,
                         (long long)m);
    if (!isfinite(alpha) || !isfinite(beta))
        return psl_error(PSL_ERR_INVALID_VALUE, "alpha = %g and beta = %g must be finite",
                         alpha, beta);
    double norm_x = 0.0, norm_y0 = 0.0;
    int64_t bad = first_nonfinite(x, n, &norm_x);
    if (bad >= 0)
        return psl_error_at(PSL_ERR_NONFINITE, -1, -1, bad, "x[%lld] = %g is not finite",
                            (long long)bad, x[bad]);
    if (beta != 0 && (bad = first_nonfinite(y0, m, &norm_y0)) >= 0)
        return psl_error_at(PSL_ERR_NONFINITE, -1, bad, -1, "y0[%lld] = %g is not finite",
                            (long long)bad, y0[bad]);

    const int64_t *rp = A->row_ptr;
    const int32_t *ci = A->col_idx;
    const double *va = A->values;
    double num = 0.0, norm_a = 0.0;
#pragma omp parallel for schedule(static) reduction(max : num, norm_a) if (A->nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < m; i++) {
        double sum = 0.0, abs_sum = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            sum += va[k] * x[ci[k]];
            abs_sum += fabs(va[k]);
        }
        double r = beta != 0 ? alpha * sum + beta * y0[i] : alpha * sum;
        double e = fabs(y[i] - r);
        if (isnan(e)) /* NaN in y, or Inf - Inf */
            e = INFINITY;
        if (e > num)
            num = e;
        if (abs_sum > norm_a)
            norm_a = abs_sum;
    }
    double den = fabs(alpha) * norm_a * norm_x;
    if (beta != 0)
        den += fabs(beta) * norm_y0;
    *err = den > 0 ? num / den : (num == 0 ? 0.0 : INFINITY);
    return PSL_OK;
}
