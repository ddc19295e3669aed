/*
 * fcg.c -- flexible conjugate gradients (Notay 2000) for a preconditioner
 * that may change from one application to the next (an inner solver):
 *
 *   z = M r;  d_k = z - sum_i (z.q_i / d_i.q_i) d_i   over the kept i < k
 *   q_k = A d_k;  alpha = d_k.r / d_k.q_k;  x += alpha d_k;  r -= alpha q_k
 *
 * keeping the last mmax directions, or with fcg_restart Notay's schedule
 * m_k = ((k-1) mod mmax) + 1 (truncate and restart, as PETSc's KSPFCG).
 * Classical Gram-Schmidt: all z.q_i in one pass, then one update. Scalars
 * stay in the backend's slots; the flag guards every update as in cg.c.
 */
#include "solver/solver_internal.h"

#include <stdlib.h>
#include <math.h>

psl_status psl_fcg_setup(psl_solver *s)
{
    psl_exec *ex = s->ex;
    s->nring = s->opt.fcg_mmax + 1;
    PSL_TRY(psl_alloc_zero((void **)&s->dring, (size_t)s->nring, sizeof *s->dring, "FCG directions"));
    PSL_TRY(psl_alloc_zero((void **)&s->qring, (size_t)s->nring, sizeof *s->qring, "FCG directions"));
    for (int i = 0; i < s->nring; i++) {
        PSL_TRY(psl_work_new(ex, s->n, s->t, &s->dring[i]));
        PSL_TRY(psl_work_new(ex, s->n, s->t, &s->qring[i]));
    }
    PSL_TRY(psl_work_new(ex, s->n, s->t, &s->r));
    if (s->M)
        PSL_TRY(psl_work_new(ex, s->n, s->t, &s->z));
    return PSL_OK;
}

/* Directions kept at step k (0-based count of directions built before). */
static int kept_directions(const psl_solver *s, int64_t k)
{
    int64_t mmax = s->opt.fcg_mmax;
    if (k == 0)
        return 0;
    if (s->opt.fcg_restart)
        return (int)((k - 1) % mmax) + 1;
    return (int)(k < mmax ? k : mmax);
}

/* d_cur = z - sum over the kept directions of (z.q_i / delta_i) d_i. */
static psl_status orthogonalize(psl_solver *s, psl_vview z, int64_t k, int cur)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    PSL_TRY(be->scale_copy(ex, psl_sx(1.0), z, s->dring[cur]));
    int kept = kept_directions(s, k);
    double *flag = psl_slot(s, PSL_SLOT_FLAG);
    for (int j0 = 0; j0 < kept; j0 += PSL_DOTS_MAX) {
        int nj = kept - j0 < PSL_DOTS_MAX ? kept - j0 : PSL_DOTS_MAX;
        psl_vview qs[PSL_DOTS_MAX], ds[PSL_DOTS_MAX];
        psl_sexpr co[PSL_DOTS_MAX];
        for (int j = 0; j < nj; j++) {
            int i = (int)((k - 1 - (j0 + j)) % s->nring);
            qs[j] = s->qring[i];
            ds[j] = s->dring[i];
            co[j] = (psl_sexpr){-1.0, psl_slot(s, PSL_SLOT_ZQ + j0 + j),
                                psl_slot(s, PSL_SLOT_DELTA + 2 * i), flag, 0u};
        }
        PSL_TRY(be->dots(ex, z, nj, qs, s->opt.dot_acc, psl_slot(s, PSL_SLOT_ZQ + j0),
                         PSL_DOT_CHECK_NONE, NULL));
        PSL_TRY(be->maxpy(ex, nj, co, ds, s->dring[cur]));
    }
    return PSL_OK;
}

psl_status psl_fcg_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                           psl_solve_result *res)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    double *flag = psl_slot(s, PSL_SLOT_FLAG), *rr = psl_slot(s, PSL_SLOT_RR);
    psl_vview z = s->M ? s->z : s->r;
    PSL_TRY(be->fill(ex, (psl_vview){flag, 1, PSL_FP64}, 0.0));
    if (fixed > 0)
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), b, s->r)); /* x = 0 */
    else
        PSL_TRY(psl_solver_residual(s, b, x, s->r));
    double bnorm = 0.0, best = INFINITY, last = NAN;
    int32_t since = 0;
    if (fixed == 0) {
        PSL_TRY(be->dots(ex, s->r, 1, &s->r, s->opt.dot_acc, rr, PSL_DOT_CHECK_FINITE, flag));
        double h[2];
        PSL_TRY(psl_solver_read(s, PSL_SLOT_BB, 1, h));
        PSL_TRY(psl_solver_read(s, PSL_SLOT_RR, 1, h + 1));
        bnorm = sqrt(h[0]);
        last = sqrt(h[1]) / bnorm;
        if (s->opt.monitor)
            s->opt.monitor(s->opt.monitor_ctx, 0, last);
        if (!isfinite(h[1]))
            return psl_solver_finish(s, PSL_REASON_NONFINITE, 0, last, b, x, false, res);
        if (h[1] == 0.0) /* x0 solves the system: no direction to build */
            return psl_solver_finish(s, PSL_REASON_CONVERGED, 0, 0.0, b, x, false, res);
    }
    int32_t limit = fixed > 0 ? fixed : s->opt.max_iters;
    int64_t k = 0; /* directions built since the (re)start */
    for (int32_t it = 1; it <= limit; it++, k++) {
        int cur = (int)(k % s->nring);
        PSL_TRY(psl_solver_precond(s, s->r, z));
        PSL_TRY(orthogonalize(s, z, k, cur));
        psl_vview d = s->dring[cur], q = s->qring[cur];
        PSL_TRY(s->A->apply(s->A, 1.0, d, 0.0, q));
        double *dq = psl_slot(s, PSL_SLOT_DELTA + 2 * cur);
        psl_vview ys[2] = {q, s->r};
        PSL_TRY(be->dots(ex, d, 2, ys, s->opt.dot_acc, dq, PSL_DOT_CHECK_POSITIVE, flag));
        psl_sexpr alpha = {1.0, dq + 1, dq, flag, 0u};
        PSL_TRY(be->fcg_update(ex, alpha, d, q, x, s->r, s->opt.dot_acc, rr));
        if (fixed > 0)
            continue;
        double h[6]; /* FLAG .. RR */
        PSL_TRY(psl_solver_read(s, PSL_SLOT_FLAG, 6, h));
        if (h[0] != 0.0) {
            if (s->opt.monitor)
                s->opt.monitor(s->opt.monitor_ctx, it, last);
            psl_reason why = h[0] == PSL_FLAG_NONFINITE ? PSL_REASON_NONFINITE
                                                         : PSL_REASON_INDEFINITE;
            return psl_solver_finish(s, why, it - 1, last, b, x, false, res);
        }
        double relres = sqrt(h[PSL_SLOT_RR]) / bnorm;
        last = relres;
        if (s->opt.monitor)
            s->opt.monitor(s->opt.monitor_ctx, it, relres);
        bool stag = psl_solver_stagnated(s, relres, &best, &since);
        if (relres < s->opt.tol) {
            psl_status end;
            if (psl_solver_confirmed_end(s, b, x, it, relres, res, &end))
                return end;
            k = -1; /* residual replaced: restart the directions */
        }
        if (stag || it == limit)
            return psl_solver_finish(s, stag ? PSL_REASON_STAGNATION : PSL_REASON_MAX_ITERS, it,
                                     relres, b, x, false, res);
    }
    return PSL_OK;
}
