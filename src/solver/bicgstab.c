/*
 * bicgstab.c -- BiCGStab (van der Vorst 1992), right preconditioned, over
 * the backend operations:
 *
 *   r = b - A x;  rhat = r;  rho = rhat.r;  p = r
 *   repeat:  phat = M p;  v = A phat;  alpha = rho / rhat.v;  r -= alpha v
 *            shat = M r;  t = A shat;  omega = t.r / t.t;  r -= omega t
 *            rho' = rhat.r;  p = r + beta (p - omega v),
 *            beta = (rho'/rho)(alpha/omega) = rho' (t.t / t.r) / rhat.v
 *            x += alpha phat + omega shat
 *
 * Every scalar stays in the backend's slots (beta's product is formed by a
 * one-entry scale_copy between slots); an iteration reads its scalars back
 * once, and x is updated only after that read found them finite, so x is
 * always the last finite iterate. rhat.v = 0 or rho' = 0 (the BiCG
 * breakdown) and omega = 0 end an outer solve with their own reasons; the
 * zero coefficients make the step that found them harmless (alpha = 0 or
 * omega = 0), so x keeps its update.
 */
#include "solver/solver_internal.h"

#include <math.h>
#include <stdlib.h>

/* The scalars, in FCG's slots (unused by this method), contiguous for one read. */
enum {
    BS_FLAG = PSL_SLOT_ZQ, /* breakdown flag (NaN or Inf) */
    BS_PAIR = BS_FLAG + 1, /* (rhat.r, r.r), two pairs used in turn */
    BS_RV = BS_PAIR + 4,   /* rhat.v */
    BS_TS = BS_RV + 1,     /* t.r (r = s here) */
    BS_TT = BS_TS + 1,     /* t.t */
    BS_TMP = BS_TT + 1,    /* rho' t.t / t.r */
    BS_COUNT = BS_TMP + 1 - BS_FLAG
};
_Static_assert(BS_FLAG + BS_COUNT <= PSL_SLOT_TRR, "BiCGStab's slots overlap the shared ones");

typedef struct bicgstab_state {
    psl_vview rhat, t, phat, shat;
} bicgstab_state;

static void bicgstab_free(psl_solver *s)
{
    bicgstab_state *w = s->mstate;
    if (!w)
        return;
    psl_work_free(s->ex, &w->rhat);
    psl_work_free(s->ex, &w->t);
    psl_work_free(s->ex, &w->phat);
    psl_work_free(s->ex, &w->shat);
    free(w);
    s->mstate = NULL;
}

psl_status psl_bicgstab_setup(psl_solver *s)
{
    psl_exec *ex = s->ex;
    bicgstab_state *w = NULL;
    PSL_TRY(psl_alloc_zero((void **)&w, 1, sizeof *w, "BiCGStab state"));
    s->mstate = w;
    s->mstate_free = bicgstab_free;
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->r));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->p));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->q)); /* v */
    PSL_TRY(psl_work_new(ex, s->n, s->t, &w->rhat));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &w->t));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &w->phat));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &w->shat));
    return PSL_OK;
}

/* y = M x, or a copy without M (phat and shat are kept until x's update). */
static psl_status precond_into(psl_solver *s, psl_vview x, psl_vview y)
{
    if (s->M)
        return psl_solver_precond(s, x, y);
    return s->ex->be->scale_copy(s->ex, psl_sx(1.0), x, y);
}

/* From r: rhat = r, pair = (rhat.r, r.r), p = r. */
static psl_status restart(psl_solver *s, double *pair)
{
    bicgstab_state *w = s->mstate;
    psl_exec *ex = s->ex;
    PSL_TRY(ex->be->scale_copy(ex, psl_sx(1.0), s->r, w->rhat));
    psl_vview ys[2] = {w->rhat, s->r};
    PSL_TRY(ex->be->dots(ex, s->r, 2, ys, s->opt.dot_acc, pair, PSL_DOT_CHECK_FINITE,
                         psl_slot(s, BS_FLAG)));
    return ex->be->scale_copy(ex, psl_sx(1.0), s->r, s->p);
}

/* One iteration up to (not including) x's update; rho, rho_new: pairs. */
static psl_status step(psl_solver *s, double *rho, double *rho_new)
{
    bicgstab_state *w = s->mstate;
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    psl_scalar acc = s->opt.dot_acc;
    double *flag = psl_slot(s, BS_FLAG), *rv = psl_slot(s, BS_RV), *ts = psl_slot(s, BS_TS),
           *tt = psl_slot(s, BS_TT), *tmp = psl_slot(s, BS_TMP);
    psl_vview v = s->q;
    PSL_TRY(precond_into(s, s->p, w->phat));
    PSL_TRY(s->A->apply(s->A, 1.0, w->phat, 0.0, v));
    PSL_TRY(be->dots(ex, v, 1, &w->rhat, acc, rv, PSL_DOT_CHECK_FINITE, flag));
    psl_sexpr malpha = {-1.0, rho, rv, flag, 0u};
    PSL_TRY(be->axpby(ex, malpha, v, psl_sx(1.0), s->r)); /* r = s */
    PSL_TRY(precond_into(s, s->r, w->shat));
    PSL_TRY(s->A->apply(s->A, 1.0, w->shat, 0.0, w->t));
    psl_vview ys[2] = {s->r, w->t};
    PSL_TRY(be->dots(ex, w->t, 2, ys, acc, ts, PSL_DOT_CHECK_FINITE, flag));
    psl_sexpr momega = {-1.0, ts, tt, flag, 0u};
    PSL_TRY(be->axpby(ex, momega, w->t, psl_sx(1.0), s->r));
    psl_vview yr[2] = {w->rhat, s->r};
    PSL_TRY(be->dots(ex, s->r, 2, yr, acc, rho_new, PSL_DOT_CHECK_FINITE, flag));
    /* p = r + beta (p - omega v) */
    PSL_TRY(be->axpby(ex, momega, v, psl_sx(1.0), s->p));
    psl_sexpr tt_ts = {1.0, tt, ts, flag, 0u};
    PSL_TRY(be->scale_copy(ex, tt_ts, (psl_vview){rho_new, 1, PSL_FP64},
                           (psl_vview){tmp, 1, PSL_FP64}));
    psl_sexpr beta = {1.0, tmp, rv, flag, 0u};
    return be->axpby(ex, psl_sx(1.0), s->r, beta, s->p);
}

/* x += alpha phat + omega shat (alpha from pair rho). */
static psl_status update_x(psl_solver *s, double *rho, psl_vview x)
{
    bicgstab_state *w = s->mstate;
    double *flag = psl_slot(s, BS_FLAG);
    psl_sexpr a[2] = {{1.0, rho, psl_slot(s, BS_RV), flag, 0u},
                      {1.0, psl_slot(s, BS_TS), psl_slot(s, BS_TT), flag, 0u}};
    psl_vview xs[2] = {w->phat, w->shat};
    return s->ex->be->maxpy(s->ex, 2, a, xs, x);
}

psl_status psl_bicgstab_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                                psl_solve_result *res)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    double *pair[2] = {psl_slot(s, BS_PAIR), psl_slot(s, BS_PAIR + 2)};
    PSL_TRY(be->fill(ex, (psl_vview){psl_slot(s, BS_FLAG), 1, PSL_FP64}, 0.0));
    if (fixed > 0)
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), b, s->r)); /* x = 0 */
    else
        PSL_TRY(psl_solver_residual(s, b, x, s->r));
    PSL_TRY(restart(s, pair[0]));
    double bnorm = 0.0, best = INFINITY, last = NAN;
    int32_t since = 0;
    if (fixed == 0) {
        double h[3];
        PSL_TRY(psl_solver_read(s, PSL_SLOT_BB, 1, h));
        bnorm = sqrt(h[0]);
        PSL_TRY(psl_solver_read(s, BS_PAIR, 2, h + 1));
        last = sqrt(h[2]) / bnorm;
        if (s->opt.monitor)
            s->opt.monitor(s->opt.monitor_ctx, 0, last);
        if (!isfinite(h[1]) || !isfinite(h[2]))
            return psl_solver_finish(s, PSL_REASON_NONFINITE, 0, last, b, x, false, res);
        if (h[2] == 0.0) /* x0 solves the system (r.r = 0) */
            return psl_solver_finish(s, PSL_REASON_CONVERGED, 0, 0.0, b, x, false, res);
    }
    int32_t limit = fixed > 0 ? fixed : s->opt.max_iters;
    int cur = 0;
    for (int32_t it = 1; it <= limit; it++) {
        double *rho = pair[cur], *rho_new = pair[cur ^ 1];
        PSL_TRY(step(s, rho, rho_new));
        if (fixed > 0) {
            PSL_TRY(update_x(s, rho, x));
            cur ^= 1;
            continue;
        }
        double h[BS_COUNT]; /* flag .. tmp: one read */
        PSL_TRY(psl_solver_read(s, BS_FLAG, BS_COUNT, h));
        const double *hn = h + (rho_new - psl_slot(s, BS_FLAG));
        double rv = h[BS_RV - BS_FLAG], ts = h[BS_TS - BS_FLAG], tt = h[BS_TT - BS_FLAG];
        bool finite = h[0] == 0.0 && isfinite(hn[0]) && isfinite(hn[1]) && isfinite(rv) &&
                      isfinite(ts) && isfinite(tt);
        if (!finite) { /* x is the previous iterate */
            if (s->opt.monitor)
                s->opt.monitor(s->opt.monitor_ctx, it, last);
            return psl_solver_finish(s, PSL_REASON_NONFINITE, it - 1, last, b, x, false, res);
        }
        PSL_TRY(update_x(s, rho, x));
        double relres = sqrt(hn[1]) / bnorm;
        last = relres;
        if (s->opt.monitor)
            s->opt.monitor(s->opt.monitor_ctx, it, relres);
        bool stag = psl_solver_stagnated(s, relres, &best, &since);
        if (relres < s->opt.tol) {
            psl_status end;
            if (psl_solver_confirmed_end(s, b, x, it, relres, res, &end))
                return end;
            PSL_TRY(restart(s, rho_new)); /* residual replaced */
        } else if (rv == 0.0) {
            return psl_solver_finish(s, PSL_REASON_RHO_ZERO, it, relres, b, x, false, res);
        } else if (ts == 0.0 || tt == 0.0) {
            return psl_solver_finish(s, PSL_REASON_OMEGA_ZERO, it, relres, b, x, false, res);
        } else if (hn[0] == 0.0) {
            return psl_solver_finish(s, PSL_REASON_RHO_ZERO, it, relres, b, x, false, res);
        }
        if (stag || it == limit)
            return psl_solver_finish(s, stag ? PSL_REASON_STAGNATION : PSL_REASON_MAX_ITERS, it,
                                     relres, b, x, false, res);
        cur ^= 1;
    }
    return PSL_OK;
}
