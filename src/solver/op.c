/*
 * op.c -- operators: the common object (check, apply, info, destroy) and the
 * matrix operator, host (psl_spmv) or device (psl_dspmv), for every format.
 */
#include "solver/solver_internal.h"

#include <math.h>
#include <stdlib.h>

psl_status psl_op_check(const psl_op *op, const char *who)
{
    if (!op)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: an operator is NULL", who);
    if (op->magic != PSL_OP_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE, "%s: not a live operator handle", who);
    return PSL_OK;
}

psl_op *psl_op_new(psl_exec *ex, int64_t nrows, int64_t ncols, psl_scalar in_type,
                   psl_scalar out_type, const char *what)
{
    psl_op *op = NULL;
    if (psl_alloc_zero((void **)&op, 1, sizeof *op, "an operator") != PSL_OK)
        return NULL;
    op->magic = PSL_OP_MAGIC;
    op->ex = ex;
    op->nrows = nrows;
    op->ncols = ncols;
    op->in_type = in_type;
    op->out_type = out_type;
    op->what = what;
    return op;
}

psl_status psl_op_apply(const psl_op *op, double alpha, const psl_vec *x, double beta,
                        psl_vec *y)
{
    const char *who = "psl_op_apply";
    PSL_TRY(psl_op_check(op, who));
    PSL_TRY(psl_vec_check(x, who));
    PSL_TRY(psl_vec_check(y, who));
    if (x->ex != op->ex || y->ex != op->ex)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: x or y is on another executor", who);
    if (x->v.n != op->ncols || y->v.n != op->nrows)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: x has %lld entries and y %lld; the %s operator is %lld x %lld", who,
                         (long long)x->v.n, (long long)y->v.n, op->what, (long long)op->nrows,
                         (long long)op->ncols);
    if (x->v.type != op->in_type || y->v.type != op->out_type)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: x is %s and y %s; the %s operator takes %s and gives %s", who,
                         psl_scalar_display(x->v.type), psl_scalar_display(y->v.type), op->what,
                         psl_scalar_display(op->in_type), psl_scalar_display(op->out_type));
    if (x == y || (x->v.data == y->v.data && x->v.n > 0))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: x and y are the same array", who);
    if (!isfinite(alpha) || !isfinite(beta))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: alpha or beta is not finite", who);
    return op->apply(op, alpha, x->v, beta, y->v);
}

psl_status psl_op_info(const psl_op *op, int64_t *nrows, int64_t *ncols, psl_scalar *in_type,
                       psl_scalar *out_type)
{
    PSL_TRY(psl_op_check(op, "psl_op_info"));
    if (nrows)
        *nrows = op->nrows;
    if (ncols)
        *ncols = op->ncols;
    if (in_type)
        *in_type = op->in_type;
    if (out_type)
        *out_type = op->out_type;
    return PSL_OK;
}

void psl_op_destroy(psl_op **op)
{
    if (!op || !*op || (*op)->magic != PSL_OP_MAGIC || (*op)->solver_owned)
        return;
    if ((*op)->destroy)
        (*op)->destroy(*op);
    (*op)->magic = PSL_DEAD_MAGIC;
    free(*op);
    *op = NULL;
}

/* ---- the matrix operator */

typedef struct matrix_op {
    const psl_matrix *A;  /* CPU */
    const psl_dmatrix *dA; /* CUDA (owned when owned_dA) */
    psl_dmatrix *owned_dA;
    void *ws;             /* psl_dspmv workspace (backend memory) */
    size_t ws_bytes;
} matrix_op;

static psl_status matrix_apply_cpu(const psl_op *op, double alpha, psl_vview x, double beta,
                                   psl_vview y)
{
    const matrix_op *m = op->impl;
    return psl_spmv(alpha, m->A, x.data, beta, y.data, y.type);
}

static psl_status matrix_apply_cuda(const psl_op *op, double alpha, psl_vview x, double beta,
                                    psl_vview y)
{
    const matrix_op *m = op->impl;
    return psl_dspmv(alpha, m->dA, x.data, beta, y.data, y.type, m->ws, m->ws_bytes,
                     op->ex->stream);
}

static void matrix_destroy(psl_op *op)
{
    matrix_op *m = op->impl;
    if (!m)
        return;
    if (m->ws)
        op->ex->be->free(op->ex, m->ws);
    psl_dmatrix_destroy(&m->owned_dA);
    free(m);
}

static psl_status check_vec_type(psl_scalar t, const char *who)
{
    if (!psl_solver_vec_type(t))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(t));
    return PSL_OK;
}

static psl_status refuse_explicit(psl_permute p, const char *who)
{
    if (p == PSL_PERMUTE_EXPLICIT)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: an explicitly permuted matrix gives its products in stored row "
                         "order; convert it with implicit permutation for a solver", who);
    return PSL_OK;
}

/* The operator over m, on ex; on failure m is released. */
static psl_status matrix_finish(psl_op **op, psl_exec *ex, matrix_op *m, int64_t nrows,
                                int64_t ncols, psl_scalar t)
{
    psl_op *o = psl_op_new(ex, nrows, ncols, t, t, "matrix");
    if (!o) {
        psl_op tmp = {.ex = ex, .impl = m};
        matrix_destroy(&tmp);
        return PSL_ERR_OUT_OF_MEMORY;
    }
    o->impl = m;
    o->apply = m->dA ? matrix_apply_cuda : matrix_apply_cpu;
    o->destroy = matrix_destroy;
    *op = o;
    return PSL_OK;
}

/* Device workspace of m for vector type t. */
static psl_status matrix_workspace(psl_exec *ex, matrix_op *m, psl_scalar t)
{
    PSL_TRY(psl_dspmv_workspace_size(m->dA, t, &m->ws_bytes));
    return ex->be->alloc(ex, m->ws_bytes, &m->ws);
}

psl_status psl_op_matrix(psl_op **op, psl_exec *ex, const psl_matrix *A, psl_scalar vec_type)
{
    const char *who = "psl_op_matrix";
    if (!op)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: op is NULL", who);
    *op = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    PSL_TRY(psl_matrix_check(A));
    PSL_TRY(check_vec_type(vec_type, who));
    psl_matrix_info info;
    PSL_TRY(psl_matrix_get_info(A, &info));
    PSL_TRY(refuse_explicit(info.permute, who));
    matrix_op *m = NULL;
    PSL_TRY(psl_alloc_zero((void **)&m, 1, sizeof *m, "a matrix operator"));
    if (ex->device >= 0) {
        psl_status st = psl_dmatrix_upload(&m->owned_dA, A, ex->stream);
        if (st == PSL_OK) {
            m->dA = m->owned_dA;
            st = matrix_workspace(ex, m, vec_type);
        }
        if (st != PSL_OK) {
            psl_op tmp = {.ex = ex, .impl = m};
            matrix_destroy(&tmp);
            return st;
        }
    } else {
        m->A = A;
    }
    return matrix_finish(op, ex, m, info.nrows, info.ncols, vec_type);
}

psl_status psl_op_dmatrix(psl_op **op, psl_exec *ex, const psl_dmatrix *dA, psl_scalar vec_type)
{
    const char *who = "psl_op_dmatrix";
    if (!op)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: op is NULL", who);
    *op = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    if (ex->device < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: a device matrix needs a CUDA executor", who);
    PSL_TRY(check_vec_type(vec_type, who));
    psl_matrix_info info;
    PSL_TRY(psl_dmatrix_get_info(dA, &info));
    PSL_TRY(refuse_explicit(info.permute, who));
    matrix_op *m = NULL;
    PSL_TRY(psl_alloc_zero((void **)&m, 1, sizeof *m, "a matrix operator"));
    m->dA = dA;
    psl_status st = matrix_workspace(ex, m, vec_type);
    if (st != PSL_OK) {
        psl_op tmp = {.ex = ex, .impl = m};
        matrix_destroy(&tmp);
        return st;
    }
    return matrix_finish(op, ex, m, info.nrows, info.ncols, vec_type);
}
