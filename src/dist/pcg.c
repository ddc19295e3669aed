/*
 * pcg.c -- preconditioned CG on a distributed matrix (FP64 vectors, Jacobi
 * or none): the textbook recurrence over psl_dist_spmv and psl_dist_dots,
 * with r.z and r.r fused into one reduction. Every rank computes the same
 * scalars (the dots give every rank the same bits), so all ranks take the
 * same branches and stop together.
 */
#include "dist/dist_internal.h"

#include <math.h>
#include <stdlib.h>

static const char *who = "psl_dist_pcg";

void psl_dist_pcg_options_init(psl_dist_pcg_options *opt)
{
    if (!opt)
        return;
    opt->tol = 1e-9;
    opt->max_iters = 10000;
    opt->jacobi = 1;
}

/* Arguments, options, b and (for Jacobi) the diagonal on this rank. */
static psl_status check_local(const psl_dist_matrix *A, const double *b, double *x,
                              const psl_dist_pcg_options *opt)
{
    if (!opt)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: opt is NULL", who);
    if (!(opt->tol > 0.0) || !isfinite(opt->tol) || opt->max_iters < 1 ||
        (opt->jacobi != 0 && opt->jacobi != 1))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: options out of range (tol %g > 0, max_iters %d >= 1, jacobi %d "
                         "0 or 1)", who, opt->tol, (int)opt->max_iters, (int)opt->jacobi);
    if (A->nrows > 0 && (!b || !x))
        return psl_error(PSL_ERR_NULL_POINTER, "%s: b or x is NULL", who);
    for (int32_t i = 0; i < A->nrows; i++)
        if (!isfinite(b[i]))
            return psl_error_at(PSL_ERR_NONFINITE, -1, A->first_row + i, -1,
                                "%s: b[%lld] = %g", who, (long long)(A->first_row + i), b[i]);
    if (opt->jacobi)
        for (int32_t i = 0; i < A->nrows; i++)
            if (!(A->diag[i] > 0.0) || !isfinite(A->diag[i]))
                return psl_error_at(PSL_ERR_INVALID_VALUE, -1, A->first_row + i,
                                    A->first_row + i,
                                    "%s: Jacobi needs a positive diagonal: global row %lld has "
                                    "%g", who, (long long)(A->first_row + i), A->diag[i]);
    return PSL_OK;
}

psl_status psl_dist_pcg(const psl_dist_matrix *A, const double *b, double *x,
                        const psl_dist_pcg_options *opt, psl_dist_pcg_result *res)
{
    PSL_TRY(psl_dist_check(A, who));
    const int32_t n = A->nrows;
    double *r = NULL, *z = NULL, *p = NULL, *q = NULL;
    psl_status st = check_local(A, b, x, opt);
    if (st == PSL_OK) {
        size_t m = n > 0 ? (size_t)n : 1;
        r = malloc(m * sizeof *r);
        z = malloc(m * sizeof *z);
        p = malloc(m * sizeof *p);
        q = malloc(m * sizeof *q);
        if (!r || !z || !p || !q)
            st = psl_error(PSL_ERR_OUT_OF_MEMORY, "%s: out of memory (%d rows)", who, (int)n);
    }
    if ((st = psl_dist_agree(A->comm, st)) != PSL_OK)
        goto fail;

    const int jac = opt->jacobi;
    psl_dist_pcg_result out = {0, 0.0, 0.0};
    double d3[3];
    /* r = b - A x, z = M r; b.b, r.z, r.r in one reduction */
    if ((st = psl_dist_spmv(1.0, A, x, 0.0, q, PSL_FP64)))
        goto fail;
    for (int32_t i = 0; i < n; i++) {
        r[i] = b[i] - q[i];
        z[i] = jac ? r[i] / A->diag[i] : r[i];
    }
    {
        const void *xs[3] = {b, r, r}, *ys[3] = {b, z, r};
        if ((st = psl_dist_dots(A, 3, xs, ys, PSL_FP64, d3)))
            goto fail;
    }
    double bb = d3[0], rz = d3[1], rr = d3[2];
    if (bb == 0.0) { /* b = 0: x = 0 */
        for (int32_t i = 0; i < n; i++)
            x[i] = 0.0;
        goto done;
    }
    double bnorm = sqrt(bb);
    out.relres_recursive = sqrt(rr) / bnorm;
    for (int32_t i = 0; i < n; i++)
        p[i] = z[i];
    while (out.relres_recursive >= opt->tol) {
        if (out.iterations >= opt->max_iters) {
            st = psl_error(PSL_ERR_NOT_CONVERGED, "%s: %d iterations, relative residual %g",
                           who, (int)out.iterations, out.relres_recursive);
            break;
        }
        if ((st = psl_dist_spmv(1.0, A, p, 0.0, q, PSL_FP64)) ||
            (st = psl_dist_dot(A, p, q, PSL_FP64, &d3[0])))
            goto fail;
        double pq = d3[0];
        if (!(pq > 0.0) || !isfinite(pq) || !isfinite(rz)) {
            st = psl_error(PSL_ERR_BREAKDOWN, "%s: iteration %d: p.Ap = %g, r.z = %g", who,
                           (int)out.iterations + 1, pq, rz);
            break;
        }
        double alpha = rz / pq;
        for (int32_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = jac ? r[i] / A->diag[i] : r[i];
        }
        const void *xs[2] = {r, r}, *ys[2] = {z, r};
        if ((st = psl_dist_dots(A, 2, xs, ys, PSL_FP64, d3)))
            goto fail;
        out.iterations++;
        double beta = d3[0] / rz;
        rz = d3[0];
        out.relres_recursive = sqrt(d3[1]) / bnorm;
        if (!isfinite(out.relres_recursive)) {
            st = psl_error(PSL_ERR_BREAKDOWN, "%s: iteration %d: residual not finite", who,
                           (int)out.iterations);
            break;
        }
        for (int32_t i = 0; i < n; i++)
            p[i] = z[i] + beta * p[i];
    }
    /* the true residual */
    {
        psl_status st2 = psl_dist_spmv(1.0, A, x, 0.0, q, PSL_FP64);
        for (int32_t i = 0; st2 == PSL_OK && i < n; i++)
            r[i] = b[i] - q[i];
        if (st2 == PSL_OK)
            st2 = psl_dist_dot(A, r, r, PSL_FP64, &d3[0]);
        if (st2 != PSL_OK) {
            st = st2;
            goto fail;
        }
        out.relres = sqrt(d3[0]) / bnorm;
    }
done:
    if (res)
        *res = out;
fail:
    free(r);
    free(z);
    free(p);
    free(q);
    return st;
}
