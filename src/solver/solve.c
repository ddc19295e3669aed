/*
 * solve.c -- psl_solve: one call from an FP64 CSR matrix and host vectors to
 * a solution. It scales the system, converts the matrix for the outer and
 * inner levels, builds the preconditioner, puts everything on the executor,
 * solves, scales back, and times each part. IO-CG is assembled here: FCG
 * whose preconditioner is the operator of a fixed-iteration FP32 CG; and
 * F3R: FGMRES FP64 over FGMRES FP32 over FGMRES FP32 with an FP16 matrix over
 * adaptive Richardson in FP16 (packsell.h, psl_f3r_options), whose layers
 * 2-4 are also offered alone as a preconditioner (psl_precond_f3r) for an
 * outer flexible solver of the caller's.
 */
#include "precond/precond.h"
#include "solver/f3r_layers.h"
#include "solver/solver_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void psl_solve_config_init(psl_solve_config *cfg)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->method = PSL_SOLVE_CG;
    cfg->precond = PSL_PRECOND_JACOBI;
    psl_sdainv_options_init(&cfg->sdainv);
    psl_convert_options_init(&cfg->storage);
    psl_convert_options_init(&cfg->precond_storage);
    psl_convert_options_init(&cfg->inner_precond_storage);
    cfg->inner_precond_storage.format = PSL_FORMAT_SELL;
    cfg->inner_precond_storage.value_type = PSL_FP32;
    psl_convert_options_init(&cfg->inner_storage);
    cfg->inner_storage.format = PSL_FORMAT_PACKSELL;
    cfg->inner_storage.codec = (psl_codec){8, 14};
    cfg->inner_iters = 50;
    cfg->scale = 1;
    cfg->storage_auto = 1;
    cfg->device = -1;
    cfg->repeat = 1;
    psl_solver_options_init(&cfg->solver);
    cfg->f3r = (psl_f3r_options){PSL_F3R_PACKSELL, 100, 8, 4, 2, 64, {0, 0}};
}

static psl_status check_f3r(const psl_solve_config *c, const char *who)
{
    const psl_f3r_options *f = &c->f3r;
    if ((int)f->variant < PSL_F3R_FP64 || f->variant > PSL_F3R_PACKSELL)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: f3r.variant %d (PSL_F3R_FP64, PSL_F3R_FP16 or PSL_F3R_PACKSELL)",
                         who, (int)f->variant);
    const int32_t m[3] = {f->m1, f->m2, f->m3};
    for (int i = 0; i < 3; i++)
        if (m[i] < 1 || m[i] > PSL_GMRES_RESTART_MAX)
            return psl_error(PSL_ERR_INVALID_VALUE, "%s: f3r.m%d %d (1..%d)", who, i + 1, m[i],
                             PSL_GMRES_RESTART_MAX);
    if (f->m4 < 1 || f->m4 > 1000)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: f3r.m4 %d (1..1000)", who, f->m4);
    if (f->c < 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: f3r.c %d (>= 1)", who, f->c);
    bool fp16 = f->codec.exp_bits == 5 && f->codec.man_bits == 10;
    bool e8 = f->codec.exp_bits == 8 && psl_codec_check(f->codec) == PSL_OK;
    bool autoc = f->codec.exp_bits == 0 && f->codec.man_bits == 0;
    if (f->variant == PSL_F3R_PACKSELL && !fp16 && !e8 && !autoc)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: f3r.codec e%dm%d (FP16 e5m10, BF16 e8m7, an E8MY e8mY, or {0, 0} "
                         "for the automatic choice)", who, f->codec.exp_bits, f->codec.man_bits);
    if (c->solver.vec_type != PSL_FP64)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: F3R's outer layer has FP64 vectors: solver.vec_type %s (FP64)", who,
                         psl_scalar_display(c->solver.vec_type));
    return PSL_OK;
}

psl_status psl_solve_config_check(const psl_solve_config *c, const char *who)
{
    if ((int)c->method < PSL_SOLVE_CG || c->method > PSL_SOLVE_F3R)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: method %d (CG, FCG, IOCG, GMRES, FGMRES, BiCGStab or F3R)", who,
                         (int)c->method);
    if (c->method == PSL_SOLVE_F3R)
        PSL_TRY(check_f3r(c, who));
    if (c->precond != PSL_PRECOND_NONE && c->precond != PSL_PRECOND_JACOBI &&
        c->precond != PSL_PRECOND_SDAINV)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: precond %d (none, Jacobi or SD-AINV)", who,
                         (int)c->precond);
    if (c->method == PSL_SOLVE_IOCG && c->inner_iters < 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: inner_iters %d (>= 1)", who,
                         c->inner_iters);
    if (c->scale != 0 && c->scale != 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: scale %d (0 or 1)", who, c->scale);
    if (c->repeat < 1 || c->repeat > 1000)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: repeat %d (1..1000)", who, c->repeat);
    if (c->device < -1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: device %d (-1: CPU, >= 0: CUDA)", who,
                         c->device);
    if (!c->sdainv_wt != !c->sdainv_zdinv)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: give both SD-AINV factors or neither", who);
    if (c->solver.fixed_iters != 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: solver.fixed_iters must be 0 (the outer "
                         "solver iterates to tol)", who);
    return PSL_OK;
}

static psl_status check_finite(const double *v, int64_t n, const char *what, const char *who)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return psl_error_at(PSL_ERR_NONFINITE, -1, i, -1, "%s: %s[%lld] is %g", who, what,
                                (long long)i, v[i]);
    return PSL_OK;
}

/* Everything psl_solve builds, released together. */
typedef struct solve_parts {
    psl_exec *ex;
    const psl_matrix *sys; /* the system solved: As, or the caller's A unscaled */
    psl_matrix *As, *Aouter, *Ainner, *Wt, *ZD;
    psl_op *Aop, *Rop, *Mop, *Ainop, *Minop;
    psl_solver *inner, *outer;
    /* F3R: the FP32 and FP16 matrices, their operators (A16 with FP32 and
     * FP16 vectors), layer 4's preconditioner and layers 2-4 */
    psl_matrix *A32, *A16;
    psl_op *A32op, *A16op32, *A16op16, *M4op;
    psl_solver *layer[3];
    psl_codec codec16; /* PackSELL-F3R: the codec of A16 and layer 4's factors */
    psl_vec *b, *x;
    double *gbar, *bs, *xs;
} solve_parts;

static void parts_free(solve_parts *p)
{
    psl_vec_destroy(&p->b);
    psl_vec_destroy(&p->x);
    psl_solver_destroy(&p->outer);
    psl_solver_destroy(&p->inner);
    for (int i = 0; i < 3; i++)
        psl_solver_destroy(&p->layer[i]);
    psl_op_destroy(&p->A32op);
    psl_op_destroy(&p->A16op32);
    psl_op_destroy(&p->A16op16);
    psl_op_destroy(&p->M4op);
    psl_matrix_destroy(&p->A32);
    psl_matrix_destroy(&p->A16);
    psl_op_destroy(&p->Aop);
    psl_op_destroy(&p->Rop);
    psl_op_destroy(&p->Mop);
    psl_op_destroy(&p->Ainop);
    psl_op_destroy(&p->Minop);
    psl_matrix_destroy(&p->Aouter);
    psl_matrix_destroy(&p->Ainner);
    psl_matrix_destroy(&p->Wt);
    psl_matrix_destroy(&p->ZD);
    psl_matrix_destroy(&p->As);
    psl_exec_destroy(&p->ex);
    free(p->gbar);
    free(p->bs);
    free(p->xs);
}

static bool is_fp64_csr(const psl_convert_options *o)
{
    return o->format == PSL_FORMAT_CSR && o->value_type == PSL_FP64;
}

/* A preconditioner of kind for S in vectors of type t, factors in storage. */
static psl_status make_precond(solve_parts *p, const psl_solve_config *c, psl_scalar t,
                               const psl_convert_options *storage, psl_op **M)
{
    switch (c->precond) {
    case PSL_PRECOND_JACOBI: /* CG's needs to be SPD; the nonsymmetric methods' need not */
        return c->method == PSL_SOLVE_CG || c->method == PSL_SOLVE_FCG ||
                       c->method == PSL_SOLVE_IOCG
                   ? psl_precond_jacobi(M, p->ex, p->sys, t)
                   : psl_precond_jacobi_general(M, p->ex, p->sys, t);
    case PSL_PRECOND_SDAINV:
        if (c->sdainv_wt)
            return psl_precond_product(M, p->ex, c->sdainv_wt, c->sdainv_zdinv, storage, t);
        if (!p->Wt)
            PSL_TRY(psl_sdainv_build(p->sys, &c->sdainv, &p->Wt, &p->ZD));
        return psl_precond_product(M, p->ex, p->Wt, p->ZD, storage, t);
    default: *M = NULL; return PSL_OK;
    }
}

/* F3R's layers 2-4 over p's operators (packsell.h, psl_f3r_options); layer
 * 2 takes its input as given when unit_input (an outer FGMRES's unit
 * vectors), else normalises it. */
static psl_status f3r_layers(solve_parts *p, const psl_solve_config *c, int unit_input)
{
    const psl_f3r_options *f = &c->f3r;
    bool d = f->variant == PSL_F3R_FP64;
    psl_convert_options s16;
    const psl_convert_options *fs = &c->precond_storage;
    if (!d) {
        psl_f3r_storage16(f->variant, p->codec16, &s16);
        fs = &s16;
    }
    PSL_TRY(psl_f3r_named(make_precond(p, c, d ? PSL_FP64 : PSL_FP16, fs, &p->M4op),
                          "layer 4's preconditioner"));
    return psl_f3r_layers_create(p->layer, f, d ? p->Aop : p->A32op, d ? p->Aop : p->A16op32,
                                 d ? p->Aop : p->A16op16, p->M4op, unit_input);
}

/* F3R's layers 2-4 and layer 1 as p->outer. */
static psl_status f3r_build(solve_parts *p, const psl_solve_config *c,
                            const psl_solver_options *o1)
{
    PSL_TRY(f3r_layers(p, c, 1));
    psl_solver_options o = *o1;
    o.restart = c->f3r.m1;
    return psl_solver_create(&p->outer, PSL_METHOD_FGMRES, p->Aop, psl_solver_op(p->layer[0]),
                             &o);
}

/* F3R's FP32 and FP16 matrices of the system Sys (not for FP64-F3R): p->A32,
 * p->A16 and p->codec16 (the automatic choice made, into *codec). */
static psl_status f3r_convert(solve_parts *p, const psl_solve_config *c, const psl_matrix *Sys,
                              psl_codec *codec)
{
    psl_convert_options o32, o16;
    psl_convert_options_init(&o32);
    o32.format = PSL_FORMAT_SELL;
    o32.value_type = PSL_FP32;
    if (c->f3r.variant == PSL_F3R_PACKSELL) {
        psl_codec k = c->f3r.codec;
        if (k.exp_bits == 0 && k.man_bits == 0) {
            int64_t below = 0, nonzero = 0;
            psl_f3r_codec_count(Sys, &below, &nonzero);
            k = psl_f3r_codec_pick(below, nonzero);
        }
        p->codec16 = k;
        *codec = p->codec16;
    }
    psl_f3r_storage16(c->f3r.variant, p->codec16, &o16);
    PSL_TRY(psl_f3r_named(psl_matrix_convert(&p->A32, Sys, &o32), "layer 2's matrix (SELL FP32)"));
    char what[64];
    if (c->f3r.variant == PSL_F3R_PACKSELL)
        snprintf(what, sizeof what, "layers 3-4's matrix (PackSELL E%dM%d)",
                 (int)p->codec16.exp_bits, (int)p->codec16.man_bits);
    else
        snprintf(what, sizeof what, "layers 3-4's matrix (SELL FP16)");
    return psl_f3r_named(psl_matrix_convert(&p->A16, Sys, &o16), what);
}

/* The operators of F3R's FP32 and FP16 matrices on p->ex. */
static psl_status f3r_ops(solve_parts *p)
{
    PSL_TRY(psl_op_matrix(&p->A32op, p->ex, p->A32, PSL_FP32));
    PSL_TRY(psl_op_matrix(&p->A16op32, p->ex, p->A16, PSL_FP32));
    return psl_op_matrix(&p->A16op16, p->ex, p->A16, PSL_FP16);
}

static psl_status solve_build(solve_parts *p, const psl_matrix *A, const double *b,
                              const double *x, const psl_solve_config *c, psl_solve_report *rep)
{
    int64_t n = A->nrows;
    psl_scalar t = c->solver.vec_type;
    double t0 = psl_wall_seconds();
    /* 1. scaling (the caller's arrays are only read) */
    PSL_TRY(psl_alloc_zero((void **)&p->bs, n > 0 ? (size_t)n : 1, sizeof(double), "the scaled b"));
    PSL_TRY(psl_alloc_zero((void **)&p->xs, n > 0 ? (size_t)n : 1, sizeof(double), "the scaled x"));
    const psl_matrix *S = A;
    if (c->scale) {
        PSL_TRY(psl_alloc_zero((void **)&p->gbar, n > 0 ? (size_t)n : 1, sizeof(double), "gbar"));
        PSL_TRY(psl_matrix_scale_symmetric(&p->As, A, p->gbar));
        PSL_TRY(psl_vector_div_diag(n, p->gbar, b, p->bs));
        for (int64_t i = 0; i < n; i++)
            p->xs[i] = x[i] * p->gbar[i];
        S = p->As;
    } else {
        memcpy(p->bs, b, (size_t)n * sizeof(double));
        memcpy(p->xs, x, (size_t)n * sizeof(double));
    }
    const psl_matrix *Sys = S;
    p->sys = S;
    double t1 = psl_wall_seconds();
    rep->scale_seconds = t1 - t0;

    /* 2. conversions */
    const psl_matrix *outer = Sys;
    psl_convert_options chosen = c->storage;
    if (c->storage_auto) { /* CSR on the CPU; SELL on CUDA, whose kernel runs at bandwidth */
        psl_convert_options_init(&chosen);
        if (c->device >= 0)
            chosen.format = PSL_FORMAT_SELL;
        chosen.value_type = t;
    }
    const psl_convert_options *storage = &chosen;
    if (!is_fp64_csr(storage) || t == PSL_FP32) {
        /* FP32 vectors take the default CSR with FP32 values (the device's
         * cuSPARSE CSR multiplies FP64 values with FP64 vectors only) */
        psl_convert_options o = *storage;
        if (t == PSL_FP32 && is_fp64_csr(&o))
            o.value_type = PSL_FP32;
        PSL_TRY(psl_matrix_convert(&p->Aouter, Sys, &o));
        outer = p->Aouter;
    }
    if (c->method == PSL_SOLVE_IOCG)
        PSL_TRY(psl_matrix_convert(&p->Ainner, Sys, &c->inner_storage));
    if (c->method == PSL_SOLVE_F3R && c->f3r.variant != PSL_F3R_FP64)
        PSL_TRY(f3r_convert(p, c, Sys, &rep->f3r_codec));
    double t2 = psl_wall_seconds();
    rep->convert_seconds = t2 - t1;

    /* 3. executor and operators (the uploads, on CUDA) */
    if (c->device >= 0)
        PSL_TRY(psl_exec_create_cuda(&p->ex, c->device, NULL));
    else
        PSL_TRY(psl_exec_create_cpu(&p->ex));
    PSL_TRY(psl_op_matrix(&p->Aop, p->ex, outer, t));
    /* the true residual needs FP64 values and vectors: else an FP64 CSR operator */
    bool exact = t == PSL_FP64 && storage->format != PSL_FORMAT_PACKSELL &&
                 storage->value_type == PSL_FP64;
    if (!exact)
        PSL_TRY(psl_op_matrix(&p->Rop, p->ex, Sys, PSL_FP64));
    if (p->Ainner)
        PSL_TRY(psl_op_matrix(&p->Ainop, p->ex, p->Ainner, PSL_FP32));
    if (p->A16)
        PSL_TRY(f3r_ops(p));
    double t3 = psl_wall_seconds();
    rep->upload_seconds = t3 - t2;

    /* 4. preconditioner and solvers */
    psl_status st = PSL_OK;
    psl_solver_options o = c->solver;
    o.residual_op = p->Rop;
    if (c->method == PSL_SOLVE_IOCG) {
        st = make_precond(p, c, PSL_FP32, &c->inner_precond_storage, &p->Minop);
        psl_solver_options in;
        psl_solver_options_init(&in);
        in.vec_type = PSL_FP32;
        in.dot_acc = c->solver.dot_acc;
        in.fixed_iters = c->inner_iters;
        in.op_type = t;
        if (st == PSL_OK)
            st = psl_solver_create(&p->inner, PSL_METHOD_CG, p->Ainop, p->Minop, &in);
        if (st == PSL_OK)
            st = psl_solver_create(&p->outer, PSL_METHOD_FCG, p->Aop, psl_solver_op(p->inner), &o);
    } else if (c->method == PSL_SOLVE_F3R) {
        st = f3r_build(p, c, &o);
    } else {
        static const psl_method method_of[] = {
            [PSL_SOLVE_CG] = PSL_METHOD_CG,           [PSL_SOLVE_FCG] = PSL_METHOD_FCG,
            [PSL_SOLVE_GMRES] = PSL_METHOD_GMRES,     [PSL_SOLVE_FGMRES] = PSL_METHOD_FGMRES,
            [PSL_SOLVE_BICGSTAB] = PSL_METHOD_BICGSTAB};
        st = make_precond(p, c, t, &c->precond_storage, &p->Mop);
        if (st == PSL_OK)
            st = psl_solver_create(&p->outer, method_of[c->method], p->Aop, p->Mop, &o);
    }
    PSL_TRY(st);
    double t4 = psl_wall_seconds();
    rep->precond_seconds = t4 - t3;
    return PSL_OK;
}

/* ---- F3R's layers 2-4 as a preconditioner (psl_precond_f3r) */

typedef struct f3r_prec {
    solve_parts p;     /* its ex is the caller's: not destroyed with the rest */
    const psl_op *F;   /* layer 2 as an operator, FP64 in and out */
    psl_vview ginv;    /* scaled: 1/gbar (FP64); else data NULL */
    psl_vview t, u;    /* scaled: work vectors (FP64) */
} f3r_prec;

static void f3r_prec_free(psl_exec *ex, f3r_prec *f)
{
    if (!f)
        return;
    psl_work_free(ex, &f->ginv);
    psl_work_free(ex, &f->t);
    psl_work_free(ex, &f->u);
    f->p.ex = NULL; /* the caller's */
    parts_free(&f->p);
    free(f);
}

/* y = alpha F(x) + beta y; scaled: F(x) = G^-1 F_s(G^-1 x). */
static psl_status f3r_prec_apply(const psl_op *op, double alpha, psl_vview x, double beta,
                                 psl_vview y)
{
    const f3r_prec *f = op->impl;
    return psl_f3r_scaled_apply(f->F, op->ex, f->ginv, f->t, f->u, alpha, x, beta, y);
}

static void f3r_prec_destroy(psl_op *op) { f3r_prec_free(op->ex, op->impl); }

psl_status psl_precond_f3r(psl_op **M, psl_exec *ex, const psl_matrix *A,
                           const psl_solve_config *cfg)
{
    const char *who = "psl_precond_f3r";
    PSL_TRY(psl_precond_check_args(M, ex, A, who));
    psl_solve_config c;
    if (cfg)
        c = *cfg;
    else
        psl_solve_config_init(&c);
    c.method = PSL_SOLVE_F3R;
    c.sdainv_wt = c.sdainv_zdinv = NULL;
    PSL_TRY(psl_solve_config_check(&c, who));
    f3r_prec *f = NULL;
    PSL_TRY(psl_alloc_zero((void **)&f, 1, sizeof *f, "an F3R preconditioner"));
    solve_parts *p = &f->p;
    p->ex = ex;
    int64_t n = A->nrows;
    const psl_matrix *S = A;
    psl_status st = PSL_OK;
    if (c.scale) {
        st = psl_alloc_zero((void **)&p->gbar, n > 0 ? (size_t)n : 1, sizeof(double), "gbar");
        if (st == PSL_OK)
            st = psl_matrix_scale_symmetric(&p->As, A, p->gbar);
        S = p->As;
    }
    p->sys = S;
    psl_codec codec = {0, 0};
    if (st == PSL_OK && c.f3r.variant != PSL_F3R_FP64)
        st = f3r_convert(p, &c, S, &codec);
    if (st == PSL_OK && c.f3r.variant == PSL_F3R_FP64)
        st = psl_op_matrix(&p->Aop, ex, S, PSL_FP64);
    if (st == PSL_OK && p->A16)
        st = f3r_ops(p);
    if (st == PSL_OK)
        st = f3r_layers(p, &c, 0);
    if (st == PSL_OK)
        f->F = psl_solver_op(p->layer[0]);
    if (st == PSL_OK && c.scale)
        st = psl_f3r_scaling_new(ex, n, p->gbar, &f->ginv, &f->t, &f->u);
    psl_op *op = NULL;
    if (st == PSL_OK) {
        op = psl_op_new(ex, n, n, PSL_FP64, PSL_FP64, "f3r");
        if (!op)
            st = PSL_ERR_OUT_OF_MEMORY;
    }
    if (st != PSL_OK) {
        f3r_prec_free(ex, f);
        return st;
    }
    op->impl = f;
    op->apply = f3r_prec_apply;
    op->wraps = f->F;
    op->destroy = f3r_prec_destroy;
    *M = op;
    return PSL_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ||b - A x|| / ||b|| in FP64 on the host. */
static psl_status host_relres(const psl_matrix *A, const double *b, const double *x, double *rel)
{
    int64_t n = A->nrows;
    double *r = NULL;
    PSL_TRY(psl_alloc_zero((void **)&r, n > 0 ? (size_t)n : 1, sizeof(double), "a residual"));
    memcpy(r, b, (size_t)n * sizeof(double));
    psl_status st = psl_spmv(-1.0, A, x, 1.0, r, PSL_FP64);
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; st == PSL_OK && i < n; i++) {
        rr += r[i] * r[i];
        bb += b[i] * b[i];
    }
    free(r);
    *rel = bb > 0.0 ? sqrt(rr / bb) : 0.0;
    return st;
}

psl_status psl_solve(const psl_matrix *A, const double *b, double *x, const psl_solve_config *cfg,
                     psl_solve_report *report)
{
    const char *who = "psl_solve";
    PSL_TRY(psl_matrix_check_fp64_csr(A, who));
    if (A->nrows != A->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: the matrix is %d x %d, not square", who,
                         A->nrows, A->ncols);
    if ((!b || !x) && A->nrows > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: b or x is NULL", who);
    psl_solve_config def;
    psl_solve_config_init(&def);
    if (!cfg)
        cfg = &def;
    PSL_TRY(psl_solve_config_check(cfg, who));
    int64_t n = A->nrows;
    const psl_matrix *F[2] = {cfg->sdainv_wt, cfg->sdainv_zdinv};
    for (int k = 0; k < 2; k++)
        if (F[k]) {
            PSL_TRY(psl_matrix_check_fp64_csr(F[k], who));
            if (F[k]->nrows != A->nrows || F[k]->ncols != A->nrows)
                return psl_error(PSL_ERR_INVALID_VALUE,
                                 "%s: an SD-AINV factor is %d x %d; the matrix has %d rows",
                                 who, F[k]->nrows, F[k]->ncols, A->nrows);
        }
    PSL_TRY(check_finite(b, n, "b", who));
    PSL_TRY(check_finite(x, n, "x", who));
    psl_solve_report rep = {0};
    solve_parts p = {0};
    psl_status st = solve_build(&p, A, b, x, cfg, &rep);
    psl_scalar t = cfg->solver.vec_type;
    if (st == PSL_OK)
        st = psl_vec_create(&p.b, p.ex, n, t);
    if (st == PSL_OK)
        st = psl_vec_create(&p.x, p.ex, n, t);
    if (st == PSL_OK)
        st = psl_vec_set(p.b, p.bs);
    if (st == PSL_OK)
        st = psl_vec_set(p.x, p.xs);
    if (st != PSL_OK) {
        parts_free(&p);
        return st;
    }
    double times[1000];
    int32_t nrep = 0;
    do {
        if (nrep > 0 && (st = psl_vec_set(p.x, p.xs)) != PSL_OK)
            break;
        st = psl_solver_solve(p.outer, p.b, p.x, &rep.result);
        times[nrep++] = rep.result.seconds;
    } while (nrep < cfg->repeat &&
             (st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN));
    qsort(times, (size_t)nrep, sizeof times[0], cmp_double);
    rep.solve_seconds = nrep % 2 ? times[nrep / 2] : 0.5 * (times[nrep / 2 - 1] + times[nrep / 2]);
    rep.solve_seconds_min = times[0];
    rep.solve_seconds_max = times[nrep - 1];
    if (st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN) {
        psl_error_info keep;
        psl_last_error(&keep);
        psl_status gs = psl_vec_get(p.x, p.xs);
        if (gs == PSL_OK && p.gbar)
            gs = psl_vector_div_diag(n, p.gbar, p.xs, p.xs);
        if (gs == PSL_OK) {
            memcpy(x, p.xs, (size_t)n * sizeof(double));
            gs = host_relres(A, b, x, &rep.relres_unscaled);
        }
        if (gs != PSL_OK)
            st = gs;
        else if (st != PSL_OK) /* keep the solver's message */
            psl_error(st, "%s", keep.message);
        if (report)
            *report = rep;
    }
    parts_free(&p);
    return st;
}
