/*
 * f3r.c -- psl_dist_precond_f3r: F3R's layers 2-4 (packsell.h,
 * psl_f3r_options) over a distributed matrix. The layers are the ones
 * psl_precond_f3r builds (solver/f3r_layers.c), on distributed operators:
 * the symmetrically scaled matrix (psl_dist_matrix_scale_symmetric), its
 * SELL FP32 and FP16 copies over the same halo plan
 * (psl_dist_matrix_convert; FP16 vectors send FP16 halos), layer 4's
 * preconditioner block SD-AINV (precond.c) or Jacobi, and the executor's
 * sums over the ranks for every dot product. The automatic codec counts
 * the entries of all ranks, so every rank picks the same one.
 */
#include "dist/dist_internal.h"
#include "solver/f3r_layers.h"
#include "solver/solver_internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct dist_f3r {
    psl_dist_matrix *S, *A32, *A16; /* S: the scaled matrix (NULL unscaled: A) */
    psl_op *Sop, *A32op, *A16op32, *A16op16, *M4;
    psl_solver *layer[3];
    double *gbar;
    psl_vview ginv, t, u;
    psl_exec *ex;
} dist_f3r;

static void dist_f3r_free(dist_f3r *f)
{
    if (!f)
        return;
    for (int i = 0; i < 3; i++)
        psl_solver_destroy(&f->layer[i]);
    psl_op_destroy(&f->M4);
    psl_op_destroy(&f->Sop);
    psl_op_destroy(&f->A32op);
    psl_op_destroy(&f->A16op32);
    psl_op_destroy(&f->A16op16);
    psl_dist_matrix_destroy(&f->A32);
    psl_dist_matrix_destroy(&f->A16);
    psl_dist_matrix_destroy(&f->S);
    psl_work_free(f->ex, &f->ginv);
    psl_work_free(f->ex, &f->t);
    psl_work_free(f->ex, &f->u);
    free(f->gbar);
    free(f);
}

static psl_status dist_f3r_apply(const psl_op *op, double alpha, psl_vview x, double beta,
                                 psl_vview y)
{
    const dist_f3r *f = op->impl;
    return psl_f3r_scaled_apply(psl_solver_op(f->layer[0]), op->ex, f->ginv, f->t, f->u, alpha,
                                x, beta, y);
}

static void dist_f3r_destroy(psl_op *op) { dist_f3r_free(op->impl); }

/* The codec of the FP16 layers: the configured one, or the automatic
 * choice from the entries of every rank (one collective). */
static psl_status pick_codec(const psl_dist_matrix *S, psl_codec k, psl_codec *out)
{
    psl_status st = PSL_OK;
    if (k.exp_bits == 0 && k.man_bits == 0) {
        int64_t mine[2] = {0, 0}, all[2];
        psl_f3r_codec_count(S->A_d, &mine[0], &mine[1]);
        psl_f3r_codec_count(S->A_o, &mine[0], &mine[1]);
        PSL_MPI_OK(MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, S->comm), "MPI_Allreduce");
        k = psl_f3r_codec_pick(all[0], all[1]);
    }
    *out = k;
fail:
    return st;
}

/* m, a copy of the system for the FP32 or FP16 layers, and its device copy
 * on a CUDA executor (A's transport). Collective. */
static psl_status layer_matrix(psl_dist_matrix **m, const psl_dist_matrix *sys,
                               const psl_convert_options *o, const char *what, psl_exec *ex,
                               psl_dist_transport tr)
{
    PSL_TRY(psl_f3r_named(psl_dist_matrix_convert(m, sys, o, o), what));
    if (ex->device < 0)
        return PSL_OK;
    return psl_dist_matrix_upload(*m, ex->device, tr, NULL);
}

/* Everything but the operator wrapping it; collective steps are reached by
 * every rank with the same status (each local step agreed first). */
static psl_status build(dist_f3r *f, psl_exec *ex, const psl_dist_matrix *A,
                        const psl_solve_config *c)
{
    const psl_f3r_options *fo = &c->f3r;
    const bool d = fo->variant == PSL_F3R_FP64;
    psl_dist_transport tr = PSL_DIST_TRANSPORT_AUTO;
    PSL_TRY(psl_dist_matrix_device(A, NULL, &tr));
    const psl_dist_matrix *sys = A;
    psl_status st = PSL_OK;
    if (c->scale) {
        st = psl_alloc_zero((void **)&f->gbar, A->nrows ? (size_t)A->nrows : 1, sizeof *f->gbar,
                            "gbar");
        PSL_TRY(psl_dist_agree(A->comm, st));
        PSL_TRY(psl_dist_matrix_scale_symmetric(&f->S, A, f->gbar));
        sys = f->S;
    }
    psl_codec codec = {0, 0};
    psl_convert_options s16, o32;
    if (!d) {
        PSL_TRY(pick_codec(sys, fo->codec, &codec));
        psl_convert_options_init(&o32);
        o32.format = PSL_FORMAT_SELL;
        o32.value_type = PSL_FP32;
        psl_f3r_storage16(fo->variant, codec, &s16);
        char what[64];
        if (fo->variant == PSL_F3R_PACKSELL)
            snprintf(what, sizeof what, "layers 3-4's matrix (PackSELL E%dM%d)",
                     (int)codec.exp_bits, (int)codec.man_bits);
        else
            snprintf(what, sizeof what, "layers 3-4's matrix (SELL FP16)");
        PSL_TRY(layer_matrix(&f->A32, sys, &o32, "layer 2's matrix (SELL FP32)", ex, tr));
        PSL_TRY(layer_matrix(&f->A16, sys, &s16, what, ex, tr));
        st = psl_dist_op_create(&f->A32op, ex, f->A32, PSL_FP32);
        if (st == PSL_OK)
            st = psl_dist_op_create(&f->A16op32, ex, f->A16, PSL_FP32);
        if (st == PSL_OK)
            st = psl_dist_op_create(&f->A16op16, ex, f->A16, PSL_FP16);
    } else {
        if (ex->device >= 0 && f->S)
            st = psl_dist_matrix_upload(f->S, ex->device, tr, NULL);
        if (st == PSL_OK)
            st = psl_dist_op_create(&f->Sop, ex, sys, PSL_FP64);
    }
    PSL_TRY(psl_dist_agree(A->comm, st));
    /* layer 4's preconditioner, of the system, in its vectors (collective) */
    psl_scalar t4 = d ? PSL_FP64 : PSL_FP16;
    if (c->precond == PSL_PRECOND_SDAINV)
        st = psl_dist_precond_sdainv(&f->M4, ex, sys, &c->sdainv, d ? &c->precond_storage : &s16,
                                     t4);
    else if (c->precond == PSL_PRECOND_JACOBI)
        st = psl_dist_precond_jacobi_general(&f->M4, ex, sys, t4);
    PSL_TRY(psl_f3r_named(st, "layer 4's preconditioner"));
    st = psl_f3r_layers_create(f->layer, fo, d ? f->Sop : f->A32op, d ? f->Sop : f->A16op32,
                               d ? f->Sop : f->A16op16, f->M4, 0);
    if (st == PSL_OK && c->scale)
        st = psl_f3r_scaling_new(ex, A->nrows, f->gbar, &f->ginv, &f->t, &f->u);
    return psl_dist_agree(A->comm, st);
}

psl_status psl_dist_precond_f3r(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                const psl_solve_config *cfg)
{
    static const char *who = "psl_dist_precond_f3r";
    PSL_TRY(psl_dist_check(A, who));
    psl_status st = psl_dist_op_check_args(M, ex, A, PSL_FP64, 0, who);
    psl_solve_config c;
    if (cfg)
        c = *cfg;
    else
        psl_solve_config_init(&c);
    c.method = PSL_SOLVE_F3R;
    c.sdainv_wt = c.sdainv_zdinv = NULL;
    if (st == PSL_OK)
        st = psl_solve_config_check(&c, who);
    if (st == PSL_OK) /* the layers' copies are made from A's blocks */
        st = psl_dist_check_fp64_csr(A, who);
    dist_f3r *f = NULL;
    if (st == PSL_OK)
        st = psl_alloc_zero((void **)&f, 1, sizeof *f, "an F3R preconditioner");
    if ((st = psl_dist_agree(A->comm, st)) != PSL_OK) {
        free(f);
        return st;
    }
    f->ex = ex;
    st = build(f, ex, A, &c);
    psl_op *op = NULL;
    if (st == PSL_OK) {
        op = psl_op_new(ex, A->nrows, A->nrows, PSL_FP64, PSL_FP64, "f3r");
        st = psl_dist_agree(A->comm, op ? PSL_OK : PSL_ERR_OUT_OF_MEMORY);
    }
    if (st != PSL_OK) {
        if (op) {
            op->impl = NULL;
            psl_op_destroy(&op);
        }
        dist_f3r_free(f);
        return st;
    }
    op->impl = f;
    op->apply = dist_f3r_apply;
    op->wraps = psl_solver_op(f->layer[0]);
    op->destroy = dist_f3r_destroy;
    *M = op;
    return PSL_OK;
}
