/*
 * jacobi.c -- diagonal preconditioners y = alpha * d .* x + beta*y: Jacobi
 * (d = 1/a_ii) and any diagonal given on the host (a product of diagonal
 * SD-AINV factors, product.c). d is kept as a vector of the operator's type;
 * a d equal to 1 to rounding (Jacobi of a symmetrically scaled matrix) is
 * the identity and stores nothing. CG fuses either into its residual update
 * (psl_precond_jacobi_diag).
 */
#include "solver/solver_internal.h"
#include "precond/precond.h"

#include <math.h>
#include <stdlib.h>

typedef struct jacobi_op {
    psl_vview dinv; /* data NULL: the identity */
} jacobi_op;

static psl_status jacobi_apply(const psl_op *op, double alpha, psl_vview x, double beta,
                               psl_vview y)
{
    const jacobi_op *j = op->impl;
    if (!j->dinv.data)
        return op->ex->be->axpby(op->ex, psl_sx(alpha), x, psl_sx(beta), y);
    return op->ex->be->diag_scale(op->ex, psl_sx(alpha), j->dinv, x, psl_sx(beta), y);
}

static void jacobi_destroy(psl_op *op)
{
    jacobi_op *j = op->impl;
    if (!j)
        return;
    psl_work_free(op->ex, &j->dinv);
    free(j);
}

bool psl_precond_jacobi_diag(const psl_op *M, psl_vview *dinv)
{
    if (!M || M->apply != jacobi_apply)
        return false;
    *dinv = ((const jacobi_op *)M->impl)->dinv;
    return true;
}

/* 1/a_ii of every row into d (host), or an error naming the row: a zero,
 * missing or non-finite entry, or (positive) one that is not above zero. */
static psl_status inverse_diagonal(const psl_matrix *A, double *d, const char *who, bool positive)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    PSL_TRY(psl_matrix_csr_view(A, &rp, &ci, &va));
    int32_t n = A->nrows, bad = -1;
    double badv = 0.0;
#pragma omp parallel for schedule(static) if (n >= PSL_PAR_MIN)
    for (int32_t i = 0; i < n; i++) {
        double a = 0.0;
        bool found = false;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) {
                a = va[k];
                found = true;
            }
        if (!found || !(positive ? a > 0.0 : a != 0.0) || !isfinite(a)) {
#pragma omp critical(psl_jacobi_bad)
            if (bad < 0 || i < bad) {
                bad = i;
                badv = found ? a : 0.0;
            }
        } else {
            d[i] = 1.0 / a;
        }
    }
    if (bad >= 0)
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, bad, bad,
                            "%s: the diagonal entry of row %d is %g%s; Jacobi needs a %s", who,
                            bad, badv, badv == 0.0 ? " (zero or missing)" : "",
                            positive ? "positive diagonal (CG needs an SPD preconditioner)"
                                     : "nonzero finite diagonal");
    return PSL_OK;
}

/* Whether every d[i] is 1 to within a unit in the last place of type t
 * (four for FP64): d .* x is then x to rounding, and the operator is applied
 * as the identity. */
static bool unit_diagonal(const double *d, int64_t n, psl_scalar t)
{
    const double eps = t == PSL_FP64 ? 0x1p-52 : t == PSL_FP32 ? 0x1p-23 : 0x1p-10;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(d[i] - 1.0) <= 4.0 * eps))
            return false;
    return n > 0;
}

psl_status psl_precond_diag_op(psl_op **M, psl_exec *ex, int64_t n, const double *d,
                               psl_scalar vec_type, const char *what)
{
    *M = NULL;
    jacobi_op *j = NULL;
    PSL_TRY(psl_alloc_zero((void **)&j, 1, sizeof *j, "a diagonal preconditioner"));
    psl_status st = PSL_OK;
    if (!unit_diagonal(d, n, vec_type)) {
        st = psl_work_new(ex, n, vec_type, &j->dinv);
        /* d (FP64, host) -> dinv (vec_type, backend) through an FP64 stage */
        psl_vview stage = {0};
        if (st == PSL_OK)
            st = psl_work_new(ex, n, PSL_FP64, &stage);
        if (st == PSL_OK)
            st = ex->be->from_host(ex, stage.data, d, (size_t)n * sizeof(double));
        if (st == PSL_OK)
            st = ex->be->scale_copy(ex, psl_sx(1.0), stage, j->dinv);
        if (st == PSL_OK)
            st = ex->be->sync(ex);
        psl_work_free(ex, &stage);
    }
    psl_op *op = NULL;
    if (st == PSL_OK) {
        op = psl_op_new(ex, n, n, vec_type, vec_type, what);
        if (!op)
            st = PSL_ERR_OUT_OF_MEMORY;
    }
    if (st != PSL_OK) {
        psl_work_free(ex, &j->dinv);
        free(j);
        return st;
    }
    op->impl = j;
    op->apply = jacobi_apply;
    op->destroy = jacobi_destroy;
    *M = op;
    return PSL_OK;
}

psl_status psl_precond_check_args(psl_op **M, psl_exec *ex, const psl_matrix *A, const char *who)
{
    if (!M)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: M is NULL", who);
    *M = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    PSL_TRY(psl_matrix_check_fp64_csr(A, who));
    if (A->nrows != A->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: the matrix is %d x %d, not square", who,
                         A->nrows, A->ncols);
    return PSL_OK;
}

/* psl_precond_jacobi (positive) and psl_precond_jacobi_general. */
static psl_status jacobi_build(psl_op **M, psl_exec *ex, const psl_matrix *A,
                               psl_scalar vec_type, const char *who, bool positive)
{
    PSL_TRY(psl_precond_check_args(M, ex, A, who));
    if (!psl_solver_vec_type(vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(vec_type));
    double *d = NULL;
    PSL_TRY(psl_alloc_zero((void **)&d, (size_t)A->nrows > 0 ? (size_t)A->nrows : 1, sizeof(double),
                      "the Jacobi diagonal"));
    psl_status st = inverse_diagonal(A, d, who, positive);
    if (st == PSL_OK)
        st = psl_precond_diag_op(M, ex, A->nrows, d, vec_type, "jacobi");
    free(d);
    return st;
}

psl_status psl_precond_jacobi(psl_op **M, psl_exec *ex, const psl_matrix *A, psl_scalar vec_type)
{
    return jacobi_build(M, ex, A, vec_type, "psl_precond_jacobi", true);
}

psl_status psl_precond_jacobi_general(psl_op **M, psl_exec *ex, const psl_matrix *A,
                                      psl_scalar vec_type)
{
    return jacobi_build(M, ex, A, vec_type, "psl_precond_jacobi_general", false);
}
