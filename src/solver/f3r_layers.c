/*
 * f3r_layers.c -- F3R's layers 2-4 over given operators, its automatic
 * codec and FP16 storage, and its scaled application (f3r_layers.h): the
 * algorithm once, for the single-matrix builders of solve.c and the
 * distributed one of src/dist/f3r.c.
 */
#include "solver/f3r_layers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void psl_f3r_codec_count(const psl_matrix *S, int64_t *below, int64_t *nonzero)
{
    const double *v = (const double *)S->values;
    int64_t b = 0, nz = 0;
    for (int64_t k = 0; k < S->nnz; k++) {
        double a = fabs(v[k]);
        if (a == 0.0)
            continue;
        nz++;
        b += a < 0x1p-14;
    }
    *below += b;
    *nonzero += nz;
}

#define F3R_AUTO_BELOW 0.01
psl_codec psl_f3r_codec_pick(int64_t below, int64_t nonzero)
{
    return (double)below > F3R_AUTO_BELOW * (double)nonzero ? (psl_codec){8, 14}
                                                                : (psl_codec){5, 10};
}

void psl_f3r_storage16(psl_f3r_variant v, psl_codec codec, psl_convert_options *o)
{
    psl_convert_options_init(o);
    if (v == PSL_F3R_PACKSELL) {
        o->format = PSL_FORMAT_PACKSELL;
        o->codec = codec; /* FP16: D = 15 */
    } else {
        o->format = PSL_FORMAT_SELL;
        o->value_type = PSL_FP16;
    }
}

psl_status psl_f3r_named(psl_status st, const char *what)
{
    if (st == PSL_OK)
        return st;
    char keep[512];
    snprintf(keep, sizeof keep, "%s", psl_last_error_message());
    return psl_error(st, "F3R %s: %s", what, keep);
}

psl_status psl_f3r_layers_create(psl_solver *layer[3], const psl_f3r_options *f,
                                 const psl_op *A2, const psl_op *A3, const psl_op *A4,
                                 const psl_op *M4, int unit_input)
{
    bool d = f->variant == PSL_F3R_FP64;
    psl_scalar t23 = d ? PSL_FP64 : PSL_FP32, t4 = d ? PSL_FP64 : PSL_FP16;
    psl_solver_options in;
    psl_solver_options_init(&in);
    in.vec_type = t4;
    in.dot_acc = d ? PSL_FP64 : PSL_FP32;
    in.fixed_iters = f->m4;
    in.richardson_c = f->c;
    in.op_type = t23;
    PSL_TRY(psl_solver_create(&layer[2], PSL_METHOD_RICHARDSON, A4, M4, &in));
    in.vec_type = t23;
    in.fixed_iters = f->m3;
    PSL_TRY(psl_solver_create(&layer[1], PSL_METHOD_FGMRES, A3, psl_solver_op(layer[2]), &in));
    in.fixed_iters = f->m2;
    in.op_type = PSL_FP64;
    in.op_unit_input = unit_input;
    return psl_solver_create(&layer[0], PSL_METHOD_FGMRES, A2, psl_solver_op(layer[1]), &in);
}

psl_status psl_f3r_scaling_new(psl_exec *ex, int64_t n, const double *gbar, psl_vview *ginv,
                               psl_vview *t, psl_vview *u)
{
    double *gi = NULL;
    psl_status st = psl_alloc_zero((void **)&gi, n > 0 ? (size_t)n : 1, sizeof *gi, "1/gbar");
    for (int64_t i = 0; st == PSL_OK && i < n; i++)
        gi[i] = 1.0 / gbar[i];
    if (st == PSL_OK)
        st = psl_work_new(ex, n, PSL_FP64, ginv);
    if (st == PSL_OK)
        st = ex->be->from_host(ex, ginv->data, gi, (size_t)n * sizeof *gi);
    if (st == PSL_OK)
        st = ex->be->sync(ex);
    free(gi);
    if (st == PSL_OK)
        st = psl_work_new(ex, n, PSL_FP64, t);
    if (st == PSL_OK)
        st = psl_work_new(ex, n, PSL_FP64, u);
    if (st != PSL_OK) {
        psl_work_free(ex, ginv);
        psl_work_free(ex, t);
        psl_work_free(ex, u);
    }
    return st;
}

psl_status psl_f3r_scaled_apply(const psl_op *F, psl_exec *ex, psl_vview ginv, psl_vview t,
                                psl_vview u, double alpha, psl_vview x, double beta,
                                psl_vview y)
{
    if (!ginv.data)
        return F->apply(F, alpha, x, beta, y);
    PSL_TRY(ex->be->diag_scale(ex, psl_sx(1.0), ginv, x, psl_sx(0.0), t));
    PSL_TRY(F->apply(F, 1.0, t, 0.0, u));
    return ex->be->diag_scale(ex, psl_sx(alpha), ginv, u, psl_sx(beta), y);
}
