/*
 * f3r_layers.h -- the pieces of F3R (packsell.h, psl_f3r_options) that do
 * not depend on where its matrices live: the automatic codec, the FP16
 * storage of a variant, layers 2-4 over given operators, and the scaled
 * application G^-1 F(G^-1 x). psl_solve and psl_precond_f3r (solve.c) build
 * them over single matrices, psl_dist_precond_f3r (src/dist/f3r.c) over
 * distributed ones.
 */
#ifndef PSL_F3R_LAYERS_H
#define PSL_F3R_LAYERS_H

#include "solver/solver_internal.h"

/* The checks psl_solve applies to a configuration (solve.c); errors name who. */
psl_status psl_solve_config_check(const psl_solve_config *c, const char *who);

/* Nonzeros of the FP64 CSR matrix S that are nonzero, and those of them
 * below FP16's normal range (|a| < 2^-14): added to *nonzero and *below. */
void psl_f3r_codec_count(const psl_matrix *S, int64_t *below, int64_t *nonzero);

/* PackSELL-F3R's automatic codec from those counts: FP16 unless more than
 * 1% lie below FP16's normal range, then E8M14. */
psl_codec psl_f3r_codec_pick(int64_t below, int64_t nonzero);

/* F3R's FP16 storage for the variant: layers 3-4's matrix and layer 4's
 * factors (C = 32, sigma = 256, implicit, overflow an error); codec: the
 * PackSELL variant's. */
void psl_f3r_storage16(psl_f3r_variant v, psl_codec codec, psl_convert_options *o);

/* st with the thread's message prefixed "F3R <what>: " (PSL_OK passes). */
psl_status psl_f3r_named(psl_status st, const char *what);

/* Layers 2-4 into layer[0..2] (layer[0] is layer 2): Richardson(m4) on A4
 * with M4 in FP16 vectors (FP64 for the FP64 variant), FGMRES(m3) on A3 and
 * FGMRES(m2) on A2 in FP32 (FP64); layer 2 takes its input as given when
 * unit_input, else normalises it. The operators must outlive the solvers. */
psl_status psl_f3r_layers_create(psl_solver *layer[3], const psl_f3r_options *f,
                                 const psl_op *A2, const psl_op *A3, const psl_op *A4,
                                 const psl_op *M4, int unit_input);

/* The work vectors of the scaled application on ex: ginv = 1/gbar[0..n)
 * (FP64) and two FP64 work vectors t, u. On failure none is left. */
psl_status psl_f3r_scaling_new(psl_exec *ex, int64_t n, const double *gbar, psl_vview *ginv,
                               psl_vview *t, psl_vview *u);

/* y = alpha G^-1 F(G^-1 x) + beta y with ginv = G^-1 (t, u: work); F as is
 * when ginv.data is NULL. */
psl_status psl_f3r_scaled_apply(const psl_op *F, psl_exec *ex, psl_vview ginv, psl_vview t,
                                psl_vview u, double alpha, psl_vview x, double beta,
                                psl_vview y);

#endif /* PSL_F3R_LAYERS_H */
