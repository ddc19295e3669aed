/*
 * precond.c -- preconditioners of a distributed matrix that need no
 * communication when applied: Jacobi of its rows' diagonal (positive for
 * CG, any nonzero for the nonsymmetric solvers) and block SD-AINV, the
 * SD-AINV factors of each rank's diagonal block A_d (block Jacobi with
 * SD-AINV blocks, as PETSc's PCBJACOBI does with its sub-preconditioners).
 * Each is built collectively: every rank gets the same status.
 */
#include "dist/dist_internal.h"
#include "precond/precond.h"
#include "solver/solver_internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* psl_dist_precond_jacobi (positive) and psl_dist_precond_jacobi_general. */
static psl_status jacobi(psl_op **M, psl_exec *ex, const psl_dist_matrix *A, psl_scalar vec_type,
                         const char *who, bool positive)
{
    psl_status st = psl_dist_op_check_args(M, ex, A, vec_type, 0, who);
    double *dinv = NULL;
    if (st == PSL_OK && A->nrows > 0)
        st = psl_alloc_zero((void **)&dinv, (size_t)A->nrows, sizeof *dinv, "the inverse diagonal");
    for (int32_t i = 0; st == PSL_OK && i < A->nrows; i++) {
        double a = A->diag[i];
        if (positive ? !(a > 0.0) || !isfinite(a) : a == 0.0 || !isfinite(a))
            st = psl_error_at(PSL_ERR_INVALID_VALUE, -1, A->first_row + i, A->first_row + i,
                              "%s: the diagonal entry of global row %lld is %g%s; Jacobi needs "
                              "a %s diagonal",
                              who, (long long)(A->first_row + i), a,
                              a == 0.0 ? " (zero or missing)" : "",
                              positive ? "positive" : "nonzero finite");
        else
            dinv[i] = 1.0 / a;
    }
    /* every rank the same answer (M and ex checked locally first) */
    if (A && A->magic == PSL_DIST_MAGIC)
        st = psl_dist_agree(A->comm, st);
    if (st == PSL_OK)
        st = psl_precond_diag_op(M, ex, A->nrows, dinv, vec_type, "jacobi");
    free(dinv);
    return st;
}

psl_status psl_dist_precond_jacobi(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                   psl_scalar vec_type)
{
    return jacobi(M, ex, A, vec_type, "psl_dist_precond_jacobi", true);
}

psl_status psl_dist_precond_jacobi_general(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                           psl_scalar vec_type)
{
    return jacobi(M, ex, A, vec_type, "psl_dist_precond_jacobi_general", false);
}

psl_status psl_dist_precond_sdainv(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                   const psl_sdainv_options *opt,
                                   const psl_convert_options *storage, psl_scalar vec_type)
{
    static const char *who = "psl_dist_precond_sdainv";
    psl_status st = psl_dist_op_check_args(M, ex, A, vec_type, 0, who);
    if (st == PSL_OK && psl_matrix_check_fp64_csr(A->A_d, who) != PSL_OK)
        st = psl_error(PSL_ERR_INVALID_VALUE,
                       "%s: the diagonal block must be FP64 CSR (the matrix as "
                       "psl_dist_matrix_create_csr makes it without options)", who);
    psl_sdainv_options def;
    psl_sdainv_options_init(&def);
    if (!opt)
        opt = &def;
    psl_matrix *Wt = NULL, *ZD = NULL;
    if (st == PSL_OK && A->nrows > 0) {
        st = psl_sdainv_build(A->A_d, opt, &Wt, &ZD);
        if (st != PSL_OK) { /* name the block: its rows are global rows of A */
            char keep[512];
            snprintf(keep, sizeof keep, "%s", psl_last_error_message());
            st = psl_error(st, "%s: the diagonal block of global rows %lld..%lld: %s", who,
                           (long long)A->first_row, (long long)(A->first_row + A->nrows - 1),
                           keep);
        }
    }
    if (st == PSL_OK && A->nrows > 0)
        st = psl_precond_product(M, ex, Wt, ZD, storage, vec_type);
    else if (st == PSL_OK) /* no rows: nothing to precondition */
        st = psl_precond_diag_op(M, ex, 0, NULL, vec_type, "sdainv");
    psl_matrix_destroy(&Wt);
    psl_matrix_destroy(&ZD);
    if (A && A->magic == PSL_DIST_MAGIC) {
        st = psl_dist_agree(A->comm, st);
        if (st != PSL_OK && M)
            psl_op_destroy(M);
    }
    return st;
}
