/*
 * precond.h -- what the solvers may know of a preconditioner beyond its
 * operator: the diagonal of a diagonal one, so CG fuses it into its update;
 * and the constructor of diagonal operators the preconditioners share.
 */
#ifndef PSL_PRECOND_H
#define PSL_PRECOND_H

#include "solver/solver_internal.h"

/* When M is a diagonal operator (jacobi.c): its diagonal in *dinv (data
 * NULL when it is the identity), true. */
bool psl_precond_jacobi_diag(const psl_op *M, psl_vview *dinv);

/* The operator y = alpha * d .* x + beta*y for the host diagonal d[0..n)
 * (FP64), stored in vec_type on ex; the identity when every d[i] is 1 to
 * rounding in vec_type. what names it ("jacobi", "diagonal"). */
psl_status psl_precond_diag_op(psl_op **M, psl_exec *ex, int64_t n, const double *d,
                               psl_scalar vec_type, const char *what);

/* The arguments every preconditioner of a matrix checks first: M not NULL
 * (*M = NULL then), a live executor, A a square FP64 CSR matrix; errors name
 * who. */
psl_status psl_precond_check_args(psl_op **M, psl_exec *ex, const psl_matrix *A, const char *who);

#endif /* PSL_PRECOND_H */
