/*
 * product.c -- the preconditioner y = alpha * F2 (F1 x) + beta*y of two
 * matrices in any format (SD-AINV: F1 = W^T, F2 = Z D^-1), through one
 * workspace vector.
 */
#include "solver/solver_internal.h"

#include <stdlib.h>

typedef struct product_op {
    psl_matrix *h1, *h2; /* host copies in the storage format (CPU: read by m1, m2) */
    psl_op *m1, *m2;
    psl_vview t;
} product_op;

static psl_status product_apply(const psl_op *op, double alpha, psl_vview x, double beta,
                                psl_vview y)
{
    const product_op *p = op->impl;
    PSL_TRY(p->m1->apply(p->m1, 1.0, x, 0.0, p->t));
    return p->m2->apply(p->m2, alpha, p->t, beta, y);
}

static void product_free(psl_exec *ex, product_op *p)
{
    if (!p)
        return;
    psl_op_destroy(&p->m1);
    psl_op_destroy(&p->m2);
    psl_matrix_destroy(&p->h1);
    psl_matrix_destroy(&p->h2);
    psl_work_free(ex, &p->t);
    free(p);
}

static void product_destroy(psl_op *op) { product_free(op->ex, op->impl); }

psl_status psl_precond_product(psl_op **M, psl_exec *ex, const psl_matrix *F1,
                               const psl_matrix *F2, const psl_convert_options *storage,
                               psl_scalar vec_type)
{
    const char *who = "psl_precond_product";
    if (!M)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: M is NULL", who);
    *M = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    PSL_TRY(psl_matrix_check_fp64_csr(F1, who));
    PSL_TRY(psl_matrix_check_fp64_csr(F2, who));
    if (F2->ncols != F1->nrows)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: F1 is %d x %d and F2 %d x %d: F2 (F1 x) is not defined", who,
                         F1->nrows, F1->ncols, F2->nrows, F2->ncols);
    psl_convert_options def;
    psl_convert_options_init(&def);
    if (!storage)
        storage = &def;
    product_op *p = NULL;
    PSL_TRY(psl_alloc_zero((void **)&p, 1, sizeof *p, "a product preconditioner"));
    psl_status st = psl_matrix_convert(&p->h1, F1, storage);
    if (st == PSL_OK)
        st = psl_matrix_convert(&p->h2, F2, storage);
    if (st == PSL_OK)
        st = psl_op_matrix(&p->m1, ex, p->h1, vec_type);
    if (st == PSL_OK)
        st = psl_op_matrix(&p->m2, ex, p->h2, vec_type);
    if (st == PSL_OK)
        st = psl_work_new(ex, F1->nrows, vec_type, &p->t);
    psl_op *op = NULL;
    if (st == PSL_OK) {
        op = psl_op_new(ex, F2->nrows, F1->ncols, vec_type, vec_type, "product");
        if (!op)
            st = PSL_ERR_OUT_OF_MEMORY;
    }
    if (st != PSL_OK) {
        product_free(ex, p);
        return st;
    }
    if (ex->device >= 0) { /* the device holds its copies */
        psl_matrix_destroy(&p->h1);
        psl_matrix_destroy(&p->h2);
    }
    op->impl = p;
    op->apply = product_apply;
    op->destroy = product_destroy;
    *M = op;
    return PSL_OK;
}
