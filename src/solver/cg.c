/*
 * cg.c -- preconditioned conjugate gradients over the backend operations:
 *
 *   r = b - A x;  z = M r;  rho = r.z;  p = z
 *   repeat:  q = A p;  alpha = rho / p.q
 *            r -= alpha q;  z = M r;  rho' = r.z      (one fused pass with Jacobi)
 *            x += alpha p;  p = z + (rho'/rho) p      (one fused pass)
 *
 * The scalars stay in the backend's slots; an iteration reads back the
 * breakdown flag and r.r only, for its test. p.q <= 0 or r.z < 0 (or NaN)
 * sets the flag, which turns every later update into a no-op, so x keeps
 * the last iterate of a finite, positive step.
 */
#include "solver/solver_internal.h"
#include "precond/precond.h"
#include "options.h"

#include <math.h>

psl_status psl_cg_setup(psl_solver *s)
{
    psl_exec *ex = s->ex;
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->r));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->p));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->q));
    if (s->M)
        PSL_TRY(psl_work_new(ex, s->n, s->t, &s->z));
    return PSL_OK;
}

/* r -= a q; z = M r; out = (r.z, r.r), the flag checked on r.z. */
static psl_status residual_step(psl_solver *s, psl_sexpr a, double *out)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    psl_scalar acc = s->opt.dot_acc;
    double *flag = psl_slot(s, PSL_SLOT_FLAG);
    psl_vview dinv = {0};
    if (s->fuse && (!s->M || psl_precond_jacobi_diag(s->M, &dinv)))
        return be->cg_residual(ex, a, s->q, s->r, dinv, s->M ? s->z : s->r, acc, out,
                               PSL_DOT_CHECK_NONNEG, flag);
    psl_sexpr ma = a;
    ma.c = -a.c;
    PSL_TRY(be->axpby(ex, ma, s->q, psl_sx(1.0), s->r));
    PSL_TRY(psl_solver_precond(s, s->r, s->z));
    psl_vview ys[2] = {s->z, s->r};
    return be->dots(ex, s->r, 2, ys, acc, out, PSL_DOT_CHECK_NONNEG, flag);
}

/* x += a p; p = z + b p: one pass, or two with PSL_SOLVER_FUSE=0. */
static psl_status update_step(psl_solver *s, psl_sexpr a, psl_vview x, psl_vview z, psl_sexpr b)
{
    const psl_backend *be = s->ex->be;
    if (s->fuse)
        return be->cg_update(s->ex, a, s->p, x, z, b);
    PSL_TRY(be->axpby(s->ex, a, s->p, psl_sx(1.0), x));
    return be->axpby(s->ex, psl_sx(1.0), z, b, s->p);
}

/* From r: z = M r, rho = r.z (slot), rr = r.r (next slot), p = z. */
static psl_status restart(psl_solver *s, double *rho)
{
    const psl_backend *be = s->ex->be;
    psl_vview z = s->M ? s->z : s->r;
    PSL_TRY(psl_solver_precond(s, s->r, z));
    psl_vview ys[2] = {z, s->r};
    double *flag = psl_slot(s, PSL_SLOT_FLAG);
    PSL_TRY(be->dots(s->ex, s->r, 2, ys, s->opt.dot_acc, rho, PSL_DOT_CHECK_NONNEG, flag));
    return be->scale_copy(s->ex, psl_sx(1.0), z, s->p);
}

psl_status psl_cg_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                          psl_solve_result *res)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    double *flag = psl_slot(s, PSL_SLOT_FLAG), *pq = psl_slot(s, PSL_SLOT_PQ);
    psl_vview z = s->M ? s->z : s->r;
    /* rho and rho' alternate between two pairs of slots: (r.z, r.r) */
    double *pair[2] = {psl_slot(s, PSL_SLOT_RHO), psl_slot(s, PSL_SLOT_RHO + 2)};
    PSL_TRY(psl_opt_get(PSL_OPT_SOLVER_FUSE, &s->fuse));
    PSL_TRY(be->fill(ex, (psl_vview){flag, 1, PSL_FP64}, 0.0));
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
        PSL_TRY(psl_solver_read(s, PSL_SLOT_RHO, 2, h + 1));
        last = sqrt(h[2]) / bnorm;
        if (s->opt.monitor)
            s->opt.monitor(s->opt.monitor_ctx, 0, last);
        if (!isfinite(h[2]))
            return psl_solver_finish(s, PSL_REASON_NONFINITE, 0, last, b, x, false, res);
    }
    int32_t limit = fixed > 0 ? fixed : s->opt.max_iters;
    int cur = 0;
    for (int32_t it = 1; it <= limit; it++) {
        double *rho = pair[cur], *rho_new = pair[cur ^ 1];
        PSL_TRY(s->A->apply(s->A, 1.0, s->p, 0.0, s->q));
        PSL_TRY(be->dots(ex, s->p, 1, &s->q, s->opt.dot_acc, pq, PSL_DOT_CHECK_POSITIVE, flag));
        psl_sexpr alpha = {1.0, rho, pq, flag, 0u};
        PSL_TRY(residual_step(s, alpha, rho_new));
        psl_sexpr beta = {1.0, rho_new, rho, flag, 0u};
        if (fixed > 0) {
            if (it == limit)
                PSL_TRY(be->axpby(ex, alpha, s->p, psl_sx(1.0), x));
            else
                PSL_TRY(update_step(s, alpha, x, z, beta));
            cur ^= 1;
            continue;
        }
        double h[5]; /* flag, then both pairs: one read */
        PSL_TRY(psl_solver_read(s, PSL_SLOT_FLAG, 5, h));
        double relres = sqrt(h[(rho_new - s->slots) + 1]) / bnorm;
        if (h[0] != 0.0) { /* the step was not applied: x is the previous iterate */
            if (s->opt.monitor)
                s->opt.monitor(s->opt.monitor_ctx, it, last);
            psl_reason why = h[0] == PSL_FLAG_NONFINITE ? PSL_REASON_NONFINITE
                                                         : PSL_REASON_INDEFINITE;
            return psl_solver_finish(s, why, it - 1, last, b, x, false, res);
        }
        last = relres;
        if (s->opt.monitor)
            s->opt.monitor(s->opt.monitor_ctx, it, relres);
        bool stag = psl_solver_stagnated(s, relres, &best, &since);
        if (relres < s->opt.tol || it == limit || stag) {
            PSL_TRY(be->axpby(ex, alpha, s->p, psl_sx(1.0), x));
            if (relres < s->opt.tol) {
                bool ok = false, stuck = false;
                PSL_TRY(psl_solver_confirm(s, b, x, s->r, &ok, &stuck, res));
                if (ok)
                    return psl_solver_finish(s, PSL_REASON_CONVERGED, it, relres, b, x, true, res);
                if (stuck)
                    return psl_solver_finish(s, PSL_REASON_STAGNATION, it, relres, b, x, true, res);
                PSL_TRY(restart(s, rho_new)); /* residual replacement */
                if (it < limit && !stag) {
                    cur ^= 1;
                    continue;
                }
            }
            return psl_solver_finish(s, stag ? PSL_REASON_STAGNATION : PSL_REASON_MAX_ITERS, it,
                                     relres, b, x, false, res);
        }
        PSL_TRY(update_step(s, alpha, x, z, beta));
        cur ^= 1;
    }
    return PSL_OK; /* fixed iterations done */
}
