/*
 * precond.h -- what the solvers may know of a preconditioner beyond its
 * operator: the diagonal of a Jacobi one, so CG fuses it into its update.
 */
#ifndef PSL_PRECOND_H
#define PSL_PRECOND_H

#include "solver/solver_internal.h"

/* When M is a Jacobi operator: its inverse diagonal in *dinv, true. */
bool psl_precond_jacobi_diag(const psl_op *M, psl_vview *dinv);

#endif /* PSL_PRECOND_H */
