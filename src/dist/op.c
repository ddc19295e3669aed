/*
 * op.c -- the solver layer on distributed matrices: an executor whose
 * reductions are sums over a matrix's ranks (psl_dist_exec_attach), the
 * matrix as an operator (psl_dist_op_create); its preconditioners are in
 * precond.c and f3r.c. With these the solvers of
 * packsell.h run unchanged on each rank's rows: their vectors are the
 * rank's entries, their dot products partial sums made global by the
 * executor (solver/backend_reduce.c).
 */
#include "dist/dist_internal.h"
#include "solver/solver_internal.h"

#include <stdlib.h>

/* The executor's reduction: k slots summed over A's ranks, on the host for
 * a CPU executor, through psl_dist_device_sum for a CUDA one. */
static psl_status dist_reduce(psl_exec *ex, void *ctx, double *out, int k)
{
    const psl_dist_matrix *A = ctx;
    if (ex->device < 0) {
        double t0 = A->timing ? MPI_Wtime() : 0.0;
        psl_status st = psl_dist_sum_host(A, out, k, PSL_OK);
        psl_dist_count_reduction(A, t0);
        return st;
    }
    for (int i0 = 0; i0 < k; i0 += PSL_DIST_DOTS_MAX) /* psl_dist_device_sum's most */
        PSL_TRY(psl_dist_device_sum(A, out + i0, k - i0 < PSL_DIST_DOTS_MAX ? k - i0 : PSL_DIST_DOTS_MAX,
                                    ex->stream));
    return PSL_OK;
}

psl_status psl_dist_check_device(const psl_exec *ex, const psl_dist_matrix *A, const char *who)
{
    if (ex->device < 0)
        return PSL_OK;
    int dev = -1;
    PSL_TRY(psl_dist_matrix_device(A, &dev, NULL));
    if (dev != ex->device)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: the executor is on CUDA device %d but the distributed matrix %s",
                         who, ex->device,
                         dev < 0 ? "has no device copy (psl_dist_matrix_upload)"
                                 : "was uploaded to another device");
    return PSL_OK;
}

psl_status psl_dist_exec_attach(psl_exec *ex, const psl_dist_matrix *A)
{
    static const char *who = "psl_dist_exec_attach";
    PSL_TRY(psl_exec_check(ex, who));
    if (!A)
        return psl_exec_set_reduce(ex, NULL, NULL);
    PSL_TRY(psl_dist_check(A, who));
    PSL_TRY(psl_dist_check_device(ex, A, who));
    if (A->nranks == 1) /* the sum over one rank is its own: nothing to install */
        return psl_exec_set_reduce(ex, NULL, NULL);
    return psl_exec_set_reduce(ex, dist_reduce, (void *)A);
}

typedef struct dist_op {
    const psl_dist_matrix *A;
} dist_op;

static psl_status dist_apply(const psl_op *op, double alpha, psl_vview x, double beta, psl_vview y)
{
    const dist_op *d = op->impl;
    if (op->ex->device >= 0)
        return psl_dist_dspmv(alpha, d->A, x.data, beta, y.data, y.type, op->ex->stream);
    return psl_dist_spmv(alpha, d->A, x.data, beta, y.data, y.type);
}

static void dist_destroy(psl_op *op) { free(op->impl); }

psl_status psl_dist_op_check_args(psl_op **op, psl_exec *ex, const psl_dist_matrix *A,
                                  psl_scalar vec_type, int need_device, const char *who)
{
    if (!op)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: op is NULL", who);
    *op = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    PSL_TRY(psl_dist_check(A, who));
    if (!psl_solver_vec_type(vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(vec_type));
    return need_device ? psl_dist_check_device(ex, A, who) : PSL_OK;
}

psl_status psl_dist_op_create(psl_op **op, psl_exec *ex, const psl_dist_matrix *A,
                              psl_scalar vec_type)
{
    static const char *who = "psl_dist_op_create";
    PSL_TRY(psl_dist_op_check_args(op, ex, A, vec_type, 1, who));
    dist_op *d = NULL;
    PSL_TRY(psl_alloc_zero((void **)&d, 1, sizeof *d, "a distributed operator"));
    d->A = A;
    psl_op *o = psl_op_new(ex, A->nrows, A->nrows, vec_type, vec_type, "distributed matrix");
    if (!o) {
        free(d);
        return PSL_ERR_OUT_OF_MEMORY;
    }
    o->impl = d;
    o->apply = dist_apply;
    o->destroy = dist_destroy;
    *op = o;
    return PSL_OK;
}
