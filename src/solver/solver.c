/*
 * solver.c -- the life of a solver (options, checks, work vectors, the
 * solver as an operator) and the steps every method shares: applying the
 * preconditioner, the true residual, the end of a solve. The methods
 * themselves are cg.c, fcg.c, gmres.c (GMRES and FGMRES) and bicgstab.c.
 */
#include "solver/solver_internal.h"
#include "options.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

void psl_solver_options_init(psl_solver_options *opt)
{
    if (!opt)
        return;
    *opt = (psl_solver_options){0};
    opt->vec_type = PSL_FP64;
    opt->dot_acc = PSL_FP64;
    opt->tol = 1e-9;
    opt->max_iters = 10000;
    opt->op_type = PSL_FP64;
    opt->fcg_mmax = 1;
    opt->restart = 30;
    opt->op_unit_input = 1;
    opt->richardson_c = 64;
}

const char *psl_reason_name(psl_reason reason)
{
    switch (reason) {
    case PSL_REASON_CONVERGED: return "converged";
    case PSL_REASON_FIXED_ITERS: return "fixed-iters";
    case PSL_REASON_MAX_ITERS: return "max-iters";
    case PSL_REASON_INDEFINITE: return "indefinite";
    case PSL_REASON_NONFINITE: return "nonfinite";
    case PSL_REASON_STAGNATION: return "stagnation";
    case PSL_REASON_RHO_ZERO: return "rho-breakdown";
    case PSL_REASON_OMEGA_ZERO: return "omega-breakdown";
    default: return "?";
    }
}

static psl_status check_options(const psl_solver_options *o, const char *who)
{
    if (!psl_solver_vec_type(o->vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vec_type %s (FP64 or FP32; FP16 for "
                         "Richardson)", who,
                         psl_scalar_display(o->vec_type));
    if (o->dot_acc != PSL_FP64 && o->dot_acc != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: dot_acc %s (FP64 or FP32)", who,
                         psl_scalar_display(o->dot_acc));
    if (!(o->tol > 0.0) || !isfinite(o->tol))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: tol %g (finite, > 0)", who, o->tol);
    if (o->max_iters < 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: max_iters %d (>= 1)", who, o->max_iters);
    if (o->fixed_iters < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: fixed_iters %d (>= 0)", who,
                         o->fixed_iters);
    if (o->fixed_iters > 0 && !psl_solver_vec_type(o->op_type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: op_type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(o->op_type));
    if (o->fcg_mmax < 1 || o->fcg_mmax > PSL_FCG_MMAX)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: fcg_mmax %d (1..%d)", who, o->fcg_mmax,
                         PSL_FCG_MMAX);
    if (o->fcg_restart != 0 && o->fcg_restart != 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: fcg_restart %d (0 or 1)", who,
                         o->fcg_restart);
    if (o->stagnation_iters < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: stagnation_iters %d (>= 0)", who,
                         o->stagnation_iters);
    if (o->recursive_stop != 0 && o->recursive_stop != 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: recursive_stop %d (0 or 1)", who,
                         o->recursive_stop);
    return PSL_OK;
}

/* Options only some methods read. */
static psl_status check_method_options(psl_method method, const psl_solver_options *o,
                                       const char *who)
{
    if (o->vec_type == PSL_FP16 && method != PSL_METHOD_RICHARDSON)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: vec_type FP16 is for PSL_METHOD_RICHARDSON only (FP64 or FP32)",
                         who);
    if (method == PSL_METHOD_RICHARDSON) {
        if (o->fixed_iters < 1)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "%s: Richardson is an inner solver: fixed_iters %d (its m, >= 1)",
                             who, o->fixed_iters);
        if (o->richardson_c < 1)
            return psl_error(PSL_ERR_INVALID_VALUE, "%s: richardson_c %d (>= 1)", who,
                             o->richardson_c);
        if (o->op_unit_input != 0 && o->op_unit_input != 1)
            return psl_error(PSL_ERR_INVALID_VALUE, "%s: op_unit_input %d (0 or 1)", who,
                             o->op_unit_input);
        return PSL_OK;
    }
    if (!psl_method_is_gmres(method))
        return PSL_OK;
    if (o->restart < 1 || o->restart > PSL_GMRES_RESTART_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: restart %d (1..%d)", who, o->restart,
                         PSL_GMRES_RESTART_MAX);
    if (o->fixed_iters > PSL_GMRES_RESTART_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: fixed_iters %d for GMRES (one cycle: 0..%d)", who, o->fixed_iters,
                         PSL_GMRES_RESTART_MAX);
    if (o->gmres_reorth != 0 && o->gmres_reorth != 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: gmres_reorth %d (0 or 1)", who,
                         o->gmres_reorth);
    if (o->op_unit_input != 0 && o->op_unit_input != 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: op_unit_input %d (0 or 1)", who,
                         o->op_unit_input);
    return PSL_OK;
}

static psl_solver *solver_of_op(const psl_op *op);

static psl_status check_operators(psl_method method, const psl_op *A, const psl_op *M,
                                  const psl_solver_options *o, const char *who)
{
    if (method != PSL_METHOD_CG && method != PSL_METHOD_FCG && method != PSL_METHOD_GMRES &&
        method != PSL_METHOD_FGMRES && method != PSL_METHOD_BICGSTAB &&
        method != PSL_METHOD_RICHARDSON)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: method %d (PSL_METHOD_CG, FCG, GMRES, FGMRES, BICGSTAB or "
                         "RICHARDSON)", who,
                         (int)method);
    PSL_TRY(psl_op_check(A, who));
    if (A->nrows != A->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: A is %lld x %lld, not square", who,
                         (long long)A->nrows, (long long)A->ncols);
    if (A->in_type != o->vec_type || A->out_type != o->vec_type)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: A's vectors are %s -> %s; the solver's are %s", who,
                         psl_scalar_display(A->in_type), psl_scalar_display(A->out_type),
                         psl_scalar_display(o->vec_type));
    if (M) {
        PSL_TRY(psl_op_check(M, who));
        if (M->ex != A->ex)
            return psl_error(PSL_ERR_INVALID_VALUE, "%s: A and M are on different executors",
                             who);
        if (M->nrows != A->nrows || M->ncols != A->ncols)
            return psl_error(PSL_ERR_INVALID_VALUE, "%s: M is %lld x %lld, A %lld x %lld", who,
                             (long long)M->nrows, (long long)M->ncols, (long long)A->nrows,
                             (long long)A->ncols);
        if (M->in_type != o->vec_type || M->out_type != o->vec_type)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "%s: M's vectors are %s -> %s; the solver's are %s", who,
                             psl_scalar_display(M->in_type), psl_scalar_display(M->out_type),
                             psl_scalar_display(o->vec_type));
        if (M->solver_owned && method != PSL_METHOD_FGMRES) {
            const psl_solver *inner = solver_of_op(M);
            if (psl_method_unit_input(inner->method) && inner->opt.op_unit_input)
                return psl_error(PSL_ERR_INVALID_VALUE,
                                 "%s: M is a GMRES or Richardson operator taking unit-norm input "
                                 "(op_unit_input = 1), which only FGMRES passes; set "
                                 "op_unit_input = 0 for this method", who);
        }
    }
    const psl_op *R = o->residual_op;
    if (R) {
        PSL_TRY(psl_op_check(R, who));
        if (R->ex != A->ex || R->nrows != A->nrows || R->ncols != A->ncols ||
            R->in_type != PSL_FP64 || R->out_type != PSL_FP64)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "%s: residual_op must be an FP64 operator of A's shape on A's "
                             "executor", who);
    }
    return PSL_OK;
}

/* ---- the methods */

static psl_status method_setup(psl_solver *s)
{
    switch (s->method) {
    case PSL_METHOD_CG: return psl_cg_setup(s);
    case PSL_METHOD_FCG: return psl_fcg_setup(s);
    case PSL_METHOD_GMRES:
    case PSL_METHOD_FGMRES: return psl_gmres_setup(s);
    case PSL_METHOD_RICHARDSON: return psl_richardson_setup(s);
    default: return psl_bicgstab_setup(s);
    }
}

static psl_status method_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                                 psl_solve_result *res)
{
    switch (s->method) {
    case PSL_METHOD_CG: return psl_cg_iterate(s, b, x, fixed, res);
    case PSL_METHOD_FCG: return psl_fcg_iterate(s, b, x, fixed, res);
    case PSL_METHOD_GMRES:
    case PSL_METHOD_FGMRES: return psl_gmres_iterate(s, b, x, fixed, res);
    case PSL_METHOD_RICHARDSON: return psl_richardson_iterate(s, b, x, fixed, res);
    default: return psl_bicgstab_iterate(s, b, x, fixed, res);
    }
}

static const char *method_what(psl_method m)
{
    switch (m) {
    case PSL_METHOD_CG: return "cg";
    case PSL_METHOD_FCG: return "fcg";
    case PSL_METHOD_GMRES: return "gmres";
    case PSL_METHOD_FGMRES: return "fgmres";
    case PSL_METHOD_RICHARDSON: return "richardson";
    default: return "bicgstab";
    }
}

/* ---- the solver as an operator */

static psl_solver *solver_of_op(const psl_op *op)
{
    return (psl_solver *)((char *)op - offsetof(psl_solver, op));
}

int64_t psl_op_inner_iterations(const psl_op *M)
{
    if (M && !M->solver_owned && M->wraps)
        return psl_op_inner_iterations(M->wraps);
    if (!M || !M->solver_owned)
        return 0;
    const psl_solver *s = solver_of_op(M);
    return s->op_iters + psl_op_inner_iterations(s->M);
}

/* The fixed iterations of an apply: from xw = 0 on `in`. */
typedef struct fixed_run {
    psl_solver *s;
    psl_vview in;
} fixed_run;

static psl_status fixed_iterations(void *ctx)
{
    fixed_run *f = ctx;
    PSL_TRY(f->s->ex->be->fill(f->s->ex, f->s->xw, 0.0));
    return method_iterate(f->s, f->in, f->s->xw, f->s->opt.fixed_iters, NULL);
}

psl_status psl_solver_use_graph(const psl_solver *s, bool *yes)
{
    int on = 1;
    PSL_TRY(psl_opt_get(PSL_OPT_SOLVER_GRAPH, &on));
    *yes = on && s->ex->be->graph_run && psl_cg_queues_only(s);
    return PSL_OK;
}

/* y = alpha * S(x) + beta*y: fixed_iters of the method on x/||x||, scaled
 * back (GMRES with op_unit_input: on x as given). */
static psl_status solver_op_apply(const psl_op *op, double alpha, psl_vview x, double beta,
                                  psl_vview y)
{
    psl_solver *s = solver_of_op(op);
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    double *nrm = psl_slot(s, PSL_SLOT_NRM);
    bool given = psl_method_unit_input(s->method) && s->opt.op_unit_input;
    psl_vview in = s->bw;
    if (given && x.type == s->t) {
        in = x; /* read only */
    } else if (given) {
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), x, s->bw));
    } else {
        PSL_TRY(be->dots(ex, x, 1, &x, PSL_FP64, nrm, PSL_DOT_CHECK_NONE, NULL));
        psl_sexpr inv = {1.0, NULL, nrm, NULL, PSL_SX_SQRT_DEN};
        PSL_TRY(be->scale_copy(ex, inv, x, s->bw));
    }
    fixed_run run = {s, in};
    bool graph = false;
    PSL_TRY(psl_solver_use_graph(s, &graph));
    if (graph)
        PSL_TRY(be->graph_run(ex, &s->graph, in.data, fixed_iterations, &run));
    else
        PSL_TRY(fixed_iterations(&run));
    s->op_iters += s->opt.fixed_iters;
    psl_sexpr back = {alpha, nrm, NULL, NULL, PSL_SX_SQRT_NUM};
    if (given)
        back = psl_sx(alpha);
    if (beta == 0.0)
        return be->scale_copy(ex, back, s->xw, y);
    PSL_TRY(be->scale_copy(ex, back, s->xw, s->yw));
    return be->axpby(ex, psl_sx(1.0), s->yw, psl_sx(beta), y);
}

/* ---- life cycle */

static void solver_free(psl_solver *s)
{
    psl_exec *ex = s->ex;
    psl_vview *v[] = {&s->r, &s->z, &s->p, &s->q, &s->bw, &s->xw, &s->yw, &s->rc, &s->xc, &s->bc};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        psl_work_free(ex, v[i]);
    for (int i = 0; i < s->nring; i++) {
        psl_work_free(ex, &s->dring[i]);
        psl_work_free(ex, &s->qring[i]);
    }
    free(s->dring);
    free(s->qring);
    if (ex->be->graph_free) {
        ex->be->graph_free(ex, &s->graph);
        for (int f = 0; f < 2; f++)
            for (int k = 0; k < 2; k++)
                ex->be->graph_free(ex, &s->step_graph[f][k]);
    }
    if (s->mstate_free)
        s->mstate_free(s);
    if (s->slots)
        ex->be->free(ex, s->slots);
    s->magic = PSL_DEAD_MAGIC;
    s->op.magic = PSL_DEAD_MAGIC;
    free(s);
}

psl_status psl_solver_create(psl_solver **out, psl_method method, const psl_op *A,
                             const psl_op *M, const psl_solver_options *opt)
{
    const char *who = "psl_solver_create";
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: s is NULL", who);
    *out = NULL;
    psl_solver_options def;
    psl_solver_options_init(&def);
    if (!opt)
        opt = &def;
    PSL_TRY(check_options(opt, who));
    PSL_TRY(check_method_options(method, opt, who));
    PSL_TRY(check_operators(method, A, M, opt, who));
    psl_solver *s = NULL;
    PSL_TRY(psl_alloc_zero((void **)&s, 1, sizeof *s, "a solver"));
    s->magic = PSL_SOLVER_MAGIC;
    s->method = method;
    s->ex = A->ex;
    s->A = A;
    s->M = M;
    s->opt = *opt;
    s->n = A->nrows;
    s->t = opt->vec_type;
    s->fuse = 1;
    psl_exec *ex = s->ex;
    psl_status st = ex->be->alloc(ex, PSL_SLOT_COUNT * sizeof(double), (void **)&s->slots);
    if (st == PSL_OK)
        st = method_setup(s);
    const psl_op *R = opt->residual_op;
    if (st == PSL_OK && R && s->t != PSL_FP64) {
        st = psl_work_new(ex, s->n, PSL_FP64, &s->xc);
        if (st == PSL_OK)
            st = psl_work_new(ex, s->n, PSL_FP64, &s->bc);
    }
    if (st == PSL_OK)
        st = psl_work_new(ex, s->n, R ? PSL_FP64 : s->t, &s->rc);
    if (st == PSL_OK && opt->fixed_iters > 0) {
        st = psl_work_new(ex, s->n, s->t, &s->bw);
        if (st == PSL_OK)
            st = psl_work_new(ex, s->n, s->t, &s->xw);
        if (st == PSL_OK)
            st = psl_work_new(ex, s->n, opt->op_type, &s->yw);
        s->op = (psl_op){.magic = PSL_OP_MAGIC,
                         .ex = ex,
                         .nrows = s->n,
                         .ncols = s->n,
                         .in_type = opt->op_type,
                         .out_type = opt->op_type,
                         .what = method_what(method),
                         .apply = solver_op_apply,
                         .solver_owned = true};
    }
    if (st != PSL_OK) {
        solver_free(s);
        return st;
    }
    *out = s;
    return PSL_OK;
}

void psl_solver_destroy(psl_solver **s)
{
    if (!s || !*s || (*s)->magic != PSL_SOLVER_MAGIC)
        return;
    solver_free(*s);
    *s = NULL;
}

const psl_op *psl_solver_op(const psl_solver *s)
{
    if (!s || s->magic != PSL_SOLVER_MAGIC || s->opt.fixed_iters <= 0)
        return NULL;
    return &s->op;
}

int64_t psl_solver_op_iterations(const psl_solver *s)
{
    return s && s->magic == PSL_SOLVER_MAGIC ? s->op_iters : 0;
}

int32_t psl_solver_richardson_weights(const psl_solver *s, double *w, int32_t cap)
{
    if (!s || s->magic != PSL_SOLVER_MAGIC || s->method != PSL_METHOD_RICHARDSON)
        return -1;
    return psl_richardson_weights(s, w, cap);
}

/* Restart the state that solvers in s's chain of preconditioners keep across
 * their calls as operators (and s's own): each solve starts afresh. */
static void reset_nested(psl_solver *s)
{
    for (int depth = 0; s && depth < 64; depth++) {
        if (s->mstate_reset)
            s->mstate_reset(s);
        s = s->M && s->M->solver_owned ? solver_of_op(s->M) : NULL;
    }
}

/* ---- shared steps */

psl_status psl_solver_read(psl_solver *s, int first, int count, double *host)
{
    return s->ex->be->to_host(s->ex, host, s->slots + first, (size_t)count * sizeof(double));
}

psl_status psl_solver_precond(psl_solver *s, psl_vview r, psl_vview z)
{
    if (!s->M)
        return PSL_OK;
    return s->M->apply(s->M, 1.0, r, 0.0, z);
}

psl_status psl_solver_residual(psl_solver *s, psl_vview b, psl_vview x, psl_vview r)
{
    PSL_TRY(s->A->apply(s->A, -1.0, x, 0.0, r));
    return s->ex->be->axpby(s->ex, psl_sx(1.0), b, psl_sx(1.0), r);
}

psl_status psl_solver_true_relres(psl_solver *s, psl_vview b, psl_vview x, double *relres)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    const psl_op *R = s->opt.residual_op ? s->opt.residual_op : s->A;
    psl_vview bb = b, xx = x;
    if (s->opt.residual_op && s->t != PSL_FP64) {
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), b, s->bc));
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), x, s->xc));
        bb = s->bc;
        xx = s->xc;
    }
    PSL_TRY(R->apply(R, -1.0, xx, 0.0, s->rc));
    PSL_TRY(be->axpby(ex, psl_sx(1.0), bb, psl_sx(1.0), s->rc));
    PSL_TRY(be->dots(ex, s->rc, 1, &s->rc, PSL_FP64, psl_slot(s, PSL_SLOT_TRR),
                     PSL_DOT_CHECK_NONE, NULL));
    PSL_TRY(be->dots(ex, bb, 1, &bb, PSL_FP64, psl_slot(s, PSL_SLOT_TBB), PSL_DOT_CHECK_NONE,
                     NULL));
    double v[2];
    PSL_TRY(psl_solver_read(s, PSL_SLOT_TRR, 2, v));
    *relres = v[1] > 0.0 ? sqrt(v[0]) / sqrt(v[1]) : (v[0] > 0.0 ? INFINITY : 0.0);
    return PSL_OK;
}

psl_status psl_solver_confirm(psl_solver *s, psl_vview b, psl_vview x, psl_vview r, bool *ok,
                              bool *stuck, psl_solve_result *res)
{
    PSL_TRY(psl_solver_true_relres(s, b, x, &res->relres));
    *ok = s->opt.recursive_stop || res->relres < s->opt.tol;
    *stuck = false;
    if (*ok)
        return PSL_OK;
    if (res->relres < 0.9 * s->best_true) {
        s->best_true = res->relres;
        s->stuck = 0;
    } else {
        *stuck = ++s->stuck >= PSL_REPLACEMENTS_STUCK;
    }
    return psl_solver_residual(s, b, x, r);
}

bool psl_solver_confirmed_end(psl_solver *s, psl_vview b, psl_vview x, int32_t it,
                              double relres, psl_solve_result *res, psl_status *st)
{
    bool ok = false, stuck = false;
    *st = psl_solver_confirm(s, b, x, s->r, &ok, &stuck, res);
    if (*st != PSL_OK)
        return true;
    if (!ok && !stuck)
        return false;
    *st = psl_solver_finish(s, ok ? PSL_REASON_CONVERGED : PSL_REASON_STAGNATION, it, relres, b,
                            x, true, res);
    return true;
}

bool psl_solver_stagnated(const psl_solver *s, double relres, double *best, int32_t *since)
{
    if (relres < *best) {
        *best = relres;
        *since = 0;
        return false;
    }
    return s->opt.stagnation_iters > 0 && ++*since >= s->opt.stagnation_iters;
}

psl_status psl_solver_finish(psl_solver *s, psl_reason reason, int32_t iters, double recursive,
                             psl_vview b, psl_vview x, bool true_known, psl_solve_result *res)
{
    res->reason = reason;
    res->iterations = iters;
    res->relres_recursive = recursive;
    if (!true_known)
        PSL_TRY(psl_solver_true_relres(s, b, x, &res->relres));
    switch (reason) {
    case PSL_REASON_CONVERGED:
    case PSL_REASON_FIXED_ITERS: return PSL_OK;
    case PSL_REASON_MAX_ITERS:
        return psl_error(PSL_ERR_NOT_CONVERGED,
                         "the solver stopped at its limit of %d iterations with relative "
                         "residual %.3e (tol %.1e)", iters, res->relres, s->opt.tol);
    case PSL_REASON_INDEFINITE:
        return psl_error(PSL_ERR_BREAKDOWN,
                         "breakdown at iteration %d: p.Ap <= 0 or z.r < 0 (the matrix or the "
                         "preconditioner is not positive definite); relative residual %.3e",
                         iters, res->relres);
    case PSL_REASON_NONFINITE:
        return psl_error(PSL_ERR_BREAKDOWN,
                         "breakdown at iteration %d: NaN or Inf in the iteration or in its "
                         "preconditioner (e.g. an FP16 overflow in an inner layer: FP16's "
                         "largest value is 65504; x keeps the last finite iterate); relative "
                         "residual %.3e", iters, res->relres);
    case PSL_REASON_RHO_ZERO:
        return psl_error(PSL_ERR_BREAKDOWN,
                         "BiCGStab breakdown at iteration %d: rho = rhat.r = 0 or rhat.(A M p) "
                         "= 0; relative residual %.3e", iters, res->relres);
    case PSL_REASON_OMEGA_ZERO:
        return psl_error(PSL_ERR_BREAKDOWN,
                         "BiCGStab breakdown at iteration %d: omega = t.s / t.t = 0; relative "
                         "residual %.3e", iters, res->relres);
    default:
        return psl_error(PSL_ERR_BREAKDOWN,
                         "the solve stagnated at iteration %d with relative residual %.3e "
                         "(tol %.1e): the true residual stopped decreasing (is the matrix or the "
                         "preconditioner stored in too low a precision for tol?)", iters,
                         res->relres, s->opt.tol);
    }
}

psl_status psl_solver_solve(psl_solver *s, const psl_vec *b, psl_vec *x, psl_solve_result *res)
{
    const char *who = "psl_solver_solve";
    if (!s)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: s is NULL", who);
    if (s->magic != PSL_SOLVER_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE, "%s: not a live solver handle", who);
    PSL_TRY(psl_vec_check(b, who));
    PSL_TRY(psl_vec_check(x, who));
    if (b->ex != s->ex || x->ex != s->ex)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: b or x is on another executor", who);
    if (b->v.n != s->n || x->v.n != s->n)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: b has %lld entries and x %lld; the matrix has %lld rows", who,
                         (long long)b->v.n, (long long)x->v.n, (long long)s->n);
    if (b->v.type != s->t || x->v.type != s->t)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: b is %s and x %s; the solver's vectors are %s",
                         who, psl_scalar_display(b->v.type), psl_scalar_display(x->v.type),
                         psl_scalar_display(s->t));
    if (b == x || (b->v.data == x->v.data && s->n > 0))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: b and x are the same array", who);
    psl_solve_result local;
    if (!res)
        res = &local;
    *res = (psl_solve_result){0};
    double t0 = psl_wall_seconds();
    /* NaN or Inf in b (or in the initial guess) is misuse: checked first. */
    psl_exec *ex = s->ex;
    double v[2];
    PSL_TRY(ex->be->dots(ex, b->v, 1, &b->v, PSL_FP64, psl_slot(s, PSL_SLOT_BB),
                         PSL_DOT_CHECK_NONE, NULL));
    PSL_TRY(ex->be->dots(ex, x->v, 1, &x->v, PSL_FP64, psl_slot(s, PSL_SLOT_PQ),
                         PSL_DOT_CHECK_NONE, NULL));
    v[0] = v[1] = 0.0;
    PSL_TRY(psl_solver_read(s, PSL_SLOT_BB, 2, v));
    if (!isfinite(v[0]))
        return psl_error(PSL_ERR_NONFINITE, "%s: b holds NaN or Inf", who);
    if (!isfinite(v[1]) && s->opt.fixed_iters == 0)
        return psl_error(PSL_ERR_NONFINITE, "%s: the initial guess x holds NaN or Inf", who);
    s->inner_base = psl_op_inner_iterations(s->M);
    reset_nested(s);
    s->best_true = INFINITY;
    s->stuck = 0;
    psl_status st;
    if (s->opt.fixed_iters > 0) {
        PSL_TRY(ex->be->fill(ex, x->v, 0.0));
        if (psl_method_is_gmres(s->method)) { /* on b/||b||, scaled back */
            double *bb = psl_slot(s, PSL_SLOT_BB);
            psl_sexpr inv = {1.0, NULL, bb, NULL, PSL_SX_SQRT_DEN};
            psl_sexpr back = {1.0, bb, NULL, NULL, PSL_SX_SQRT_NUM};
            PSL_TRY(ex->be->scale_copy(ex, inv, b->v, s->bw));
            PSL_TRY(ex->be->fill(ex, s->xw, 0.0));
            st = psl_gmres_iterate(s, s->bw, s->xw, s->opt.fixed_iters, NULL);
            if (st == PSL_OK)
                st = ex->be->scale_copy(ex, back, s->xw, x->v);
        } else {
            st = method_iterate(s, b->v, x->v, s->opt.fixed_iters, NULL);
        }
        if (st == PSL_OK)
            st = psl_solver_finish(s, PSL_REASON_FIXED_ITERS, s->opt.fixed_iters, NAN, b->v, x->v,
                                   false, res);
    } else if (v[0] == 0.0) { /* b = 0: x = 0 exactly */
        st = ex->be->fill(ex, x->v, 0.0);
        res->reason = PSL_REASON_CONVERGED;
    } else {
        st = method_iterate(s, b->v, x->v, 0, res);
    }
    res->inner_iterations = psl_op_inner_iterations(s->M) - s->inner_base;
    if (st == PSL_OK || st == PSL_ERR_NOT_CONVERGED || st == PSL_ERR_BREAKDOWN) {
        psl_status sy = ex->be->sync(ex);
        if (sy != PSL_OK)
            st = sy;
    }
    res->seconds = psl_wall_seconds() - t0;
    return st;
}
