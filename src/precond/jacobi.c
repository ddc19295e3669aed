/*
 * jacobi.c -- the Jacobi preconditioner y = alpha * D^-1 x + beta*y, its
 * inverse diagonal kept as a vector of the operator's type. CG fuses it into
 * its residual update (psl_precond_jacobi_diag).
 */
#include "solver/solver_internal.h"
#include "precond/precond.h"

#include <math.h>
#include <stdlib.h>

typedef struct jacobi_op {
    psl_vview dinv;
} jacobi_op;

static psl_status jacobi_apply(const psl_op *op, double alpha, psl_vview x, double beta,
                               psl_vview y)
{
    const jacobi_op *j = op->impl;
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

/* 1/a_ii of every row into d (host), or an error naming the row. */
static psl_status inverse_diagonal(const psl_matrix *A, double *d, const char *who)
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
        if (!found || !(a > 0.0) || !isfinite(a)) {
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
                            "%s: the diagonal entry of row %d is %g%s; Jacobi needs a positive "
                            "diagonal (CG needs an SPD preconditioner)", who, bad, badv,
                            badv == 0.0 ? " (zero or missing)" : "");
    return PSL_OK;
}

psl_status psl_precond_jacobi(psl_op **M, psl_exec *ex, const psl_matrix *A, psl_scalar vec_type)
{
    const char *who = "psl_precond_jacobi";
    if (!M)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: M is NULL", who);
    *M = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    PSL_TRY(psl_matrix_check_fp64_csr(A, who));
    if (A->nrows != A->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: the matrix is %d x %d, not square", who,
                         A->nrows, A->ncols);
    if (!psl_solver_vec_type(vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(vec_type));
    double *d = NULL;
    PSL_TRY(psl_alloc_zero((void **)&d, (size_t)A->nrows > 0 ? (size_t)A->nrows : 1, sizeof(double),
                      "the Jacobi diagonal"));
    psl_status st = inverse_diagonal(A, d, who);
    jacobi_op *j = NULL;
    psl_op *op = NULL;
    if (st == PSL_OK)
        st = psl_alloc_zero((void **)&j, 1, sizeof *j, "a Jacobi operator");
    if (st == PSL_OK)
        st = psl_work_new(ex, A->nrows, vec_type, &j->dinv);
    if (st == PSL_OK) {
        /* d (FP64, host) -> dinv (vec_type, backend) through an FP64 stage */
        psl_vview stage;
        st = psl_work_new(ex, A->nrows, PSL_FP64, &stage);
        if (st == PSL_OK)
            st = ex->be->from_host(ex, stage.data, d, (size_t)A->nrows * sizeof(double));
        if (st == PSL_OK)
            st = ex->be->scale_copy(ex, psl_sx(1.0), stage, j->dinv);
        if (st == PSL_OK)
            st = ex->be->sync(ex);
        psl_work_free(ex, &stage);
    }
    if (st == PSL_OK) {
        op = psl_op_new(ex, A->nrows, A->ncols, vec_type, vec_type, "jacobi");
        if (!op)
            st = PSL_ERR_OUT_OF_MEMORY;
    }
    free(d);
    if (st != PSL_OK) {
        if (j) {
            psl_work_free(ex, &j->dinv);
            free(j);
        }
        return st;
    }
    op->impl = j;
    op->apply = jacobi_apply;
    op->destroy = jacobi_destroy;
    *M = op;
    return PSL_OK;
}
