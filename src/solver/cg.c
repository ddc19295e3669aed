/*
 * cg.c -- preconditioned conjugate gradients over the backend operations:
 *
 *   r = b - A x;  z = M r;  rho = r.z;  p = z
 *   repeat:  q = A p;  alpha = rho / p.q
 *            r -= alpha q;  z = M r;  rho' = r.z      (one fused pass with Jacobi)
 *            x += alpha p;  p = z + (rho'/rho) p      (one fused pass)
 *
 * The scalars stay in the backend's slots; an iteration reads back the
 * breakdown flag and r.r only, for its test, through a mailbox read that the
 * next step's work is queued ahead of (psl_cg_iterate). p.q <= 0 or r.z < 0 (or NaN)
 * sets the flag, which turns every later update into a no-op, so x keeps
 * the last iterate of a finite, positive step.
 */
#include "solver/solver_internal.h"
#include "precond/precond.h"
#include "options.h"

#include <math.h>
#include <string.h>

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

/* The preconditioner as CG applies it: NULL for none and for a diagonal
 * one that is the identity (z is then r itself). */
static const psl_op *cg_precond(const psl_solver *s)
{
    psl_vview d;
    if (s->M && psl_precond_jacobi_diag(s->M, &d) && !d.data)
        return NULL;
    return s->M;
}

/* Whether applying M twice to the same vector gives the same result and
 * changes nothing else (a matrix or a diagonal: no inner solver with its
 * iteration count), so that a CG step may run ahead of the host's test. */
static bool cg_precond_pure(const psl_op *M)
{
    static const char *const pure[] = {"jacobi", "diagonal", "product", "matrix"};
    if (!M)
        return true;
    for (size_t i = 0; i < sizeof pure / sizeof pure[0]; i++)
        if (M->what && strcmp(M->what, pure[i]) == 0)
            return true;
    return false;
}

bool psl_cg_queues_only(const psl_solver *s)
{
    return s->method == PSL_METHOD_CG && s->A->what && strcmp(s->A->what, "matrix") == 0 &&
           cg_precond_pure(cg_precond(s));
}

/* r -= a q; z = M r; out = (r.z, r.r), the flag checked on r.z. */
static psl_status residual_step(psl_solver *s, const psl_op *M, psl_sexpr a, double *out)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    psl_scalar acc = s->opt.dot_acc;
    double *flag = psl_slot(s, PSL_SLOT_FLAG);
    psl_vview dinv = {0};
    if (s->fuse && (!M || psl_precond_jacobi_diag(M, &dinv)))
        return be->cg_residual(ex, a, s->q, s->r, dinv, M ? s->z : s->r, acc, out,
                               PSL_DOT_CHECK_NONNEG, flag);
    psl_sexpr ma = a;
    ma.c = -a.c;
    PSL_TRY(be->axpby(ex, ma, s->q, psl_sx(1.0), s->r));
    psl_vview z = M ? s->z : s->r;
    if (M)
        PSL_TRY(M->apply(M, 1.0, s->r, 0.0, z));
    psl_vview ys[2] = {z, s->r};
    return be->dots(ex, s->r, 2, ys, acc, out, PSL_DOT_CHECK_NONNEG, flag);
}

/* One step's work up to its test: q = A p; p.q; the residual step with
 * alpha = rho / p.q into rho_new. */
static psl_status cg_step(psl_solver *s, const psl_op *M, double *rho, double *rho_new)
{
    psl_exec *ex = s->ex;
    double *flag = psl_slot(s, PSL_SLOT_FLAG), *pq = psl_slot(s, PSL_SLOT_PQ);
    PSL_TRY(s->A->apply(s->A, 1.0, s->p, 0.0, s->q));
    PSL_TRY(ex->be->dots(ex, s->p, 1, &s->q, s->opt.dot_acc, pq, PSL_DOT_CHECK_POSITIVE, flag));
    psl_sexpr alpha = {1.0, rho, pq, flag, 0u};
    return residual_step(s, M, alpha, rho_new);
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
static psl_status restart(psl_solver *s, const psl_op *M, double *rho)
{
    const psl_backend *be = s->ex->be;
    psl_vview z = M ? s->z : s->r;
    if (M)
        PSL_TRY(M->apply(M, 1.0, s->r, 0.0, z));
    psl_vview ys[2] = {z, s->r};
    double *flag = psl_slot(s, PSL_SLOT_FLAG);
    PSL_TRY(be->dots(s->ex, s->r, 2, ys, s->opt.dot_acc, rho, PSL_DOT_CHECK_NONNEG, flag));
    return be->scale_copy(s->ex, psl_sx(1.0), z, s->p);
}

/* Step it's update and step it+1 up to its test (the lookahead's queued
 * work), with the slots of parity cur. */
typedef struct ahead_work {
    psl_solver *s;
    const psl_op *M;
    psl_vview x, z;
    int cur;
} ahead_work;

static psl_status ahead_step(void *ctx)
{
    ahead_work *w = ctx;
    psl_solver *s = w->s;
    double *flag = psl_slot(s, PSL_SLOT_FLAG), *pq = psl_slot(s, PSL_SLOT_PQ);
    double *pair[2] = {psl_slot(s, PSL_SLOT_RHO), psl_slot(s, PSL_SLOT_RHO + 2)};
    double *rho = pair[w->cur], *rho_new = pair[w->cur ^ 1];
    psl_sexpr alpha = {1.0, rho, pq, flag, 0u};
    psl_sexpr beta = {1.0, rho_new, rho, flag, 0u};
    PSL_TRY(update_step(s, alpha, w->x, w->z, beta));
    return cg_step(s, w->M, rho_new, rho);
}

/* The read of a step's test: the flag and both (r.z, r.r) pairs, posted
 * into mailbox `box` behind the step. */
#define CG_READ_SLOTS 5

static psl_status post_test(psl_solver *s, int box)
{
    return s->ex->be->post_read(s->ex, box, psl_slot(s, PSL_SLOT_FLAG),
                                CG_READ_SLOTS * sizeof(double));
}

/* Exactly `fixed` iterations from x = 0, no test (an operator's apply). */
static psl_status cg_fixed(psl_solver *s, const psl_op *M, psl_vview x, int32_t fixed,
                           double *pair[2])
{
    const psl_backend *be = s->ex->be;
    double *flag = psl_slot(s, PSL_SLOT_FLAG), *pq = psl_slot(s, PSL_SLOT_PQ);
    psl_vview z = M ? s->z : s->r;
    int cur = 0;
    for (int32_t it = 1; it <= fixed; it++, cur ^= 1) {
        double *rho = pair[cur], *rho_new = pair[cur ^ 1];
        PSL_TRY(cg_step(s, M, rho, rho_new));
        psl_sexpr alpha = {1.0, rho, pq, flag, 0u};
        psl_sexpr beta = {1.0, rho_new, rho, flag, 0u};
        if (it == fixed)
            PSL_TRY(be->axpby(s->ex, alpha, s->p, psl_sx(1.0), x));
        else
            PSL_TRY(update_step(s, alpha, x, z, beta));
    }
    return PSL_OK;
}

/*
 * To tol. With `ahead` (PSL_SOLVER_LOOKAHEAD and a pure preconditioner) the
 * update of step k and step k+1 up to its test are queued before the host
 * waits for step k's test, so the device never waits for the host; when step
 * k ends the solve, step k+1 changed only r, q, z, p.q and its own slots
 * (x is step k's, as without lookahead), and when the true residual asks
 * for a replacement r is recomputed and the speculative step's flag cleared.
 * The iterates, the tests and the monitor's calls are those of the plain
 * order; one step's work more is done at the end.
 */
psl_status psl_cg_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                          psl_solve_result *res)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    double *flag = psl_slot(s, PSL_SLOT_FLAG), *pq = psl_slot(s, PSL_SLOT_PQ);
    const psl_op *M = cg_precond(s);
    psl_vview z = M ? s->z : s->r;
    psl_vview flagv = {flag, 1, PSL_FP64};
    /* rho and rho' alternate between two pairs of slots: (r.z, r.r) */
    double *pair[2] = {psl_slot(s, PSL_SLOT_RHO), psl_slot(s, PSL_SLOT_RHO + 2)};
    int lookahead = 1;
    PSL_TRY(psl_opt_get(PSL_OPT_SOLVER_FUSE, &s->fuse));
    PSL_TRY(psl_opt_get(PSL_OPT_SOLVER_LOOKAHEAD, &lookahead));
    PSL_TRY(be->fill(ex, flagv, 0.0));
    if (fixed > 0)
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), b, s->r)); /* x = 0 */
    else
        PSL_TRY(psl_solver_residual(s, b, x, s->r));
    PSL_TRY(restart(s, M, pair[0]));
    if (fixed > 0)
        return cg_fixed(s, M, x, fixed, pair);

    double h[CG_READ_SLOTS];
    PSL_TRY(psl_solver_read(s, PSL_SLOT_BB, 1, h));
    double bnorm = sqrt(h[0]), best = INFINITY;
    PSL_TRY(psl_solver_read(s, PSL_SLOT_RHO, 2, h + 1));
    double last = sqrt(h[2]) / bnorm;
    if (s->opt.monitor)
        s->opt.monitor(s->opt.monitor_ctx, 0, last);
    if (!isfinite(h[2]))
        return psl_solver_finish(s, PSL_REASON_NONFINITE, 0, last, b, x, false, res);
    if (h[2] == 0.0) /* x0 solves the system: r.r = 0 (and r.z = 0, not a breakdown) */
        return psl_solver_finish(s, PSL_REASON_CONVERGED, 0, 0.0, b, x, false, res);
    const bool ahead = lookahead && cg_precond_pure(M);
    /* the lookahead's work of a step from a graph per parity (and fusion):
     * the same kernels, one launch (the test's read stays outside: an
     * event recorded inside a graph is not recorded at its replays) */
    bool graph = false;
    if (ahead)
        PSL_TRY(psl_solver_use_graph(s, &graph));
    int32_t limit = s->opt.max_iters, since = 0;
    int cur = 0;
    PSL_TRY(cg_step(s, M, pair[0], pair[1]));
    PSL_TRY(post_test(s, 1));
    for (int32_t it = 1; it <= limit; it++, cur ^= 1) {
        double *rho = pair[cur], *rho_new = pair[cur ^ 1];
        psl_sexpr alpha = {1.0, rho, pq, flag, 0u};
        psl_sexpr beta = {1.0, rho_new, rho, flag, 0u};
        if (ahead && it < limit) { /* step it's update and step it+1, before step it's test */
            ahead_work w = {s, M, x, z, cur};
            if (graph) /* the same work, from the graph of parity cur */
                PSL_TRY(be->graph_run(ex, &s->step_graph[s->fuse != 0][cur], x.data,
                                      ahead_step, &w));
            else
                PSL_TRY(ahead_step(&w));
            PSL_TRY(post_test(s, (it + 1) & 1));
        } else if (ahead) { /* the last step's update alone */
            PSL_TRY(update_step(s, alpha, x, z, beta));
        }
        PSL_TRY(be->take_read(ex, it & 1, h, sizeof h));
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
            if (!ahead)
                PSL_TRY(be->axpby(ex, alpha, s->p, psl_sx(1.0), x));
            if (relres < s->opt.tol) {
                psl_status end;
                if (psl_solver_confirmed_end(s, b, x, it, relres, res, &end))
                    return end;
                if (it < limit && !stag) { /* residual replacement, then step it+1 anew */
                    PSL_TRY(be->fill(ex, flagv, 0.0));
                    PSL_TRY(restart(s, M, rho_new));
                    PSL_TRY(cg_step(s, M, rho_new, rho));
                    PSL_TRY(post_test(s, (it + 1) & 1));
                    continue;
                }
            }
            return psl_solver_finish(s, stag ? PSL_REASON_STAGNATION : PSL_REASON_MAX_ITERS, it,
                                     relres, b, x, false, res);
        }
        if (!ahead) {
            PSL_TRY(update_step(s, alpha, x, z, beta));
            PSL_TRY(cg_step(s, M, rho_new, rho));
            PSL_TRY(post_test(s, (it + 1) & 1));
        }
    }
    return PSL_OK; /* not reached: the last iteration returns */
}
