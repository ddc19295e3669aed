/*
 * product.c -- the preconditioner y = alpha * F2 (F1 x) + beta*y of two
 * matrices in any format (SD-AINV: F1 = W^T, F2 = Z D^-1), through one
 * workspace vector. Two diagonal factors (SD-AINV of a matrix whose
 * off-diagonal entries all fall below the drop tolerance, e.g. HPCG at 0.1)
 * become one diagonal operator: d = diag(F2) .* diag(F1) with each factor's
 * values as its storage rounds them, applied in CG's fused step.
 */
#include "solver/solver_internal.h"
#include "precond/precond.h"

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

/* Whether every entry of the square FP64 CSR matrix F is on its diagonal. */
static bool is_diagonal(const psl_matrix *F)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    if (F->nrows != F->ncols || psl_matrix_csr_view(F, &rp, &ci, &va) != PSL_OK)
        return false;
    for (int32_t i = 0; i < F->nrows; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] != i)
                return false;
    return true;
}

/* d = diag(H2) .* diag(H1) of two diagonal matrices in any storage, as their
 * products with a vector of ones give them (the values as stored). */
static psl_status stored_diagonal(const psl_matrix *H1, const psl_matrix *H2, int64_t n,
                                  double *d)
{
    double *ones = NULL, *d1 = NULL;
    psl_status st = psl_alloc_zero((void **)&ones, n > 0 ? (size_t)n : 1, sizeof(double),
                                   "a diagonal product");
    if (st == PSL_OK)
        st = psl_alloc_zero((void **)&d1, n > 0 ? (size_t)n : 1, sizeof(double),
                            "a diagonal product");
    for (int64_t i = 0; st == PSL_OK && i < n; i++)
        ones[i] = 1.0;
    if (st == PSL_OK)
        st = psl_spmv(1.0, H1, ones, 0.0, d1, PSL_FP64);
    if (st == PSL_OK)
        st = psl_spmv(1.0, H2, ones, 0.0, d, PSL_FP64);
    for (int64_t i = 0; st == PSL_OK && i < n; i++)
        d[i] *= d1[i];
    free(ones);
    free(d1);
    return st;
}

/* The diagonal operator of two diagonal factors stored as storage says. */
static psl_status diagonal_product(psl_op **M, psl_exec *ex, const psl_matrix *F1,
                                   const psl_matrix *F2, const psl_convert_options *storage,
                                   psl_scalar vec_type)
{
    int64_t n = F1->nrows;
    psl_matrix *h1 = NULL, *h2 = NULL;
    double *d = NULL;
    psl_status st = psl_matrix_convert(&h1, F1, storage);
    if (st == PSL_OK)
        st = psl_matrix_convert(&h2, F2, storage);
    if (st == PSL_OK)
        st = psl_alloc_zero((void **)&d, n > 0 ? (size_t)n : 1, sizeof(double),
                            "a diagonal product");
    if (st == PSL_OK)
        st = stored_diagonal(h1, h2, n, d);
    if (st == PSL_OK)
        st = psl_precond_diag_op(M, ex, n, d, vec_type, "diagonal");
    psl_matrix_destroy(&h1);
    psl_matrix_destroy(&h2);
    free(d);
    return st;
}

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
    if (!psl_solver_vec_type(vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(vec_type));
    if (storage->permute != PSL_PERMUTE_EXPLICIT && is_diagonal(F1) && is_diagonal(F2))
        return diagonal_product(M, ex, F1, F2, storage, vec_type);
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
