/*
 * pcg.c -- psl_dist_pcg: the arguments checked on every rank and agreed,
 * then the library's CG (solver/cg.c) on the distributed operator and
 * executor of op.c. Every rank computes the same scalars (the executor's
 * sums give every rank the same bits), so all ranks take the same branches
 * and stop together.
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

/* Arguments, options and b on this rank. */
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
    return PSL_OK; /* the Jacobi diagonal: psl_dist_precond_jacobi checks it */
}

/* The library's CG (packsell.h) on A's rows: a CPU executor summing over
 * A's ranks, A as an operator, Jacobi of its diagonal or none. */
static psl_status solve(const psl_dist_matrix *A, const double *b, double *x,
                        const psl_dist_pcg_options *o, psl_dist_pcg_result *out)
{
    psl_exec *ex = NULL;
    psl_op *op = NULL, *M = NULL;
    psl_solver *s = NULL;
    psl_vec *bv = NULL, *xv = NULL;
    psl_status st = psl_exec_create_cpu(&ex);
    if (st == PSL_OK)
        st = psl_dist_exec_attach(ex, A);
    if (st == PSL_OK)
        st = psl_dist_op_create(&op, ex, A, PSL_FP64);
    if (st == PSL_OK && o->jacobi) /* collective: checked on every rank */
        st = psl_dist_precond_jacobi(&M, ex, A, PSL_FP64);
    psl_solver_options so;
    psl_solver_options_init(&so);
    so.tol = o->tol;
    so.max_iters = o->max_iters;
    so.recursive_stop = 1; /* this function's rule: the recursive residual */
    if (st == PSL_OK)
        st = psl_solver_create(&s, PSL_METHOD_CG, op, M, &so);
    /* views of the caller's arrays (b is only read) */
    if (st == PSL_OK)
        st = psl_vec_wrap(&bv, ex, A->nrows, PSL_FP64, (void *)b, PSL_MEM_VIEW);
    if (st == PSL_OK)
        st = psl_vec_wrap(&xv, ex, A->nrows, PSL_FP64, x, PSL_MEM_VIEW);
    psl_solve_result r = {0};
    if (st == PSL_OK) {
        st = psl_solver_solve(s, bv, xv, &r);
        if (st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN)
            *out = (psl_dist_pcg_result){r.iterations, r.relres, r.relres_recursive};
    }
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    psl_solver_destroy(&s);
    psl_op_destroy(&M);
    psl_op_destroy(&op);
    psl_exec_destroy(&ex);
    return st;
}

psl_status psl_dist_pcg(const psl_dist_matrix *A, const double *b, double *x,
                        const psl_dist_pcg_options *opt, psl_dist_pcg_result *res)
{
    PSL_TRY(psl_dist_check(A, who));
    psl_status st = psl_dist_agree(A->comm, check_local(A, b, x, opt));
    psl_dist_pcg_result out = {0, 0.0, 0.0};
    if (st == PSL_OK)
        st = solve(A, b, x, opt, &out);
    if (res && (st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN))
        *res = out;
    return st;
}
