/*
 * gmres.c -- GMRES(m) and flexible GMRES(m) (Saad 1993) over the backend
 * operations, right preconditioned:
 *
 *   r = b - A x;  beta = ||r||;  v_0 = r / beta;  g = beta e_0
 *   step j:  z_j = M v_j;  w = A z_j
 *            h_ij = w.v_i for i <= j (one pass);  w -= sum_i h_ij v_i
 *            (gmres_reorth: a second pass when ||w|| < ||A z_j|| / sqrt(2))
 *            h_j+1,j = ||w||;  v_j+1 = w / h_j+1,j
 *            Givens rotations on column j of H; |g_j+1| estimates ||b - A x_j||
 *   end of a cycle of k steps:  y = R^-1 g;  x += Z y (FGMRES: z_j kept) or
 *            x += M (V y) (GMRES; without M both are x += V y)
 *
 * Vectors, dot products and the normalisations stay in the backend's memory
 * (the dots and updates of a Gram-Schmidt pass go PSL_DOTS_MAX vectors per
 * call). The Hessenberg matrix, the rotations and g are FP64 on the host,
 * whatever the vector type: as an outer solver each Arnoldi step reads its
 * new column once (twice with a second pass), for its estimate; as an inner
 * solver without the second pass the steps keep their columns in the
 * backend's memory and the cycle reads them all at its end, one read (one
 * synchronisation on a GPU) per call instead of one per step, the same
 * arithmetic in the same order. The hess_* functions hold that small dense
 * work apart so that it can move to the device as it is.
 *
 * As an outer solver the residual is recomputed, r = b - A x, at the start
 * of every cycle and the true relative residual (residual_op when set)
 * decides convergence; a cycle also ends when the estimate falls below tol.
 * As an inner solver (fixed > 0) it runs one cycle of `fixed` steps on b as
 * given (v_0 = b, g = e_0: the caller passes a unit-norm b) from x = 0,
 * tests nothing, and adds its correction to x.
 */
#include "solver/solver_internal.h"
#include "options.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* A new column whose rotated diagonal is below this times ||A z_j|| depends
 * on the columns before it (A M singular on the Krylov space, or v_j = 0
 * after an exact breakdown): the cycle ends without it. */
#define GMRES_DEPENDENT (64.0 * DBL_EPSILON)

typedef struct gmres_state {
    int m;           /* basis size: steps per cycle */
    bool flexible;   /* z_j kept (FGMRES with M) */
    psl_vview *v;    /* m+1 basis vectors */
    psl_vview *z;    /* FGMRES with M: the m preconditioned vectors */
    psl_vview zt;    /* GMRES with M: z_j of the current step, then M (V y) */
    psl_vview *ys;   /* scratch list of views (m+2) */
    /* Backend slots: a column of dots (m+2), then the second pass's (m+2),
     * then beta^2. */
    double *slots;
    int nslots;
    double *col;     /* host copy of the column read */
    /* Inner cycles read at their end (fixed steps, no second pass): step j's
     * column of slots at cols + j * (m + 3) in the backend, colbuf on the host */
    double *cols, *colbuf;
    double *H;       /* (m+1) x m, column-major, host */
    double *cs, *sn; /* rotations, m each */
    double *g;       /* m+1: the rotated right-hand side */
    double *y;       /* m: the least-squares solution */
} gmres_state;

static void gmres_free(psl_solver *s)
{
    gmres_state *g = s->mstate;
    psl_exec *ex = s->ex;
    if (!g)
        return;
    if (g->v)
        for (int i = 0; i <= g->m; i++)
            psl_work_free(ex, &g->v[i]);
    if (g->z)
        for (int i = 0; i < g->m; i++)
            psl_work_free(ex, &g->z[i]);
    psl_work_free(ex, &g->zt);
    if (g->slots)
        ex->be->free(ex, g->slots);
    if (g->cols)
        ex->be->free(ex, g->cols);
    free(g->colbuf);
    free(g->v), free(g->z), free(g->ys), free(g->col), free(g->H);
    free(g->cs), free(g->sn), free(g->g), free(g->y);
    free(g);
    s->mstate = NULL;
}

psl_status psl_gmres_setup(psl_solver *s)
{
    psl_exec *ex = s->ex;
    gmres_state *g = NULL;
    PSL_TRY(psl_alloc_zero((void **)&g, 1, sizeof *g, "GMRES state"));
    s->mstate = g;
    s->mstate_free = gmres_free;
    int m = s->opt.fixed_iters > 0 ? s->opt.fixed_iters : s->opt.restart;
    size_t m1 = (size_t)m + 1;
    g->m = m;
    g->flexible = s->method == PSL_METHOD_FGMRES && s->M;
    g->nslots = 2 * (m + 2) + 1;
    PSL_TRY(psl_alloc_zero((void **)&g->v, m1, sizeof *g->v, "GMRES basis"));
    PSL_TRY(psl_alloc_zero((void **)&g->ys, m1 + 1, sizeof *g->ys, "GMRES basis"));
    PSL_TRY(psl_alloc_zero((void **)&g->col, (size_t)g->nslots, sizeof(double), "GMRES column"));
    PSL_TRY(psl_alloc_zero((void **)&g->H, m1 * (size_t)m, sizeof(double), "GMRES Hessenberg"));
    PSL_TRY(psl_alloc_zero((void **)&g->cs, (size_t)m, sizeof(double), "GMRES rotations"));
    PSL_TRY(psl_alloc_zero((void **)&g->sn, (size_t)m, sizeof(double), "GMRES rotations"));
    PSL_TRY(psl_alloc_zero((void **)&g->g, m1, sizeof(double), "GMRES right-hand side"));
    PSL_TRY(psl_alloc_zero((void **)&g->y, (size_t)m, sizeof(double), "GMRES solution"));
    PSL_TRY(ex->be->alloc(ex, (size_t)g->nslots * sizeof(double), (void **)&g->slots));
    if (s->opt.fixed_iters > 0 && !s->opt.gmres_reorth) {
        size_t all = (size_t)m * ((size_t)m + 3);
        PSL_TRY(psl_alloc_zero((void **)&g->colbuf, all, sizeof(double), "GMRES columns"));
        PSL_TRY(ex->be->alloc(ex, all * sizeof(double), (void **)&g->cols));
    }
    for (size_t i = 0; i < m1; i++)
        PSL_TRY(psl_work_new(ex, s->n, s->t, &g->v[i]));
    if (g->flexible) {
        PSL_TRY(psl_alloc_zero((void **)&g->z, (size_t)m, sizeof *g->z, "FGMRES vectors"));
        for (int i = 0; i < m; i++)
            PSL_TRY(psl_work_new(ex, s->n, s->t, &g->z[i]));
    } else if (s->M) {
        PSL_TRY(psl_work_new(ex, s->n, s->t, &g->zt));
    }
    return PSL_OK;
}

/* ---- the dense part (host; each can move to the device as it is) */

/* Start a cycle: g = gamma e_0. */
static void hess_start(gmres_state *g, double gamma)
{
    g->g[0] = gamma;
    for (int i = 1; i <= g->m; i++)
        g->g[i] = 0.0;
}

/* Column j of H from the dots read: h[i] (+ h2[i] of a second pass) for
 * i <= j and h_j+1,j = sqrt(ww). */
static void hess_set_column(gmres_state *g, int j, const double *h, const double *h2, double ww)
{
    double *c = g->H + (size_t)j * (size_t)(g->m + 1);
    for (int i = 0; i <= j; i++)
        c[i] = h[i] + (h2 ? h2[i] : 0.0);
    c[j + 1] = sqrt(ww);
}

/* Rotate column j by the rotations before it, then zero h_j+1,j with a new
 * one (scaled hypotenuse) and rotate g. False, with g unchanged, when the
 * column depends on those before it (|r_jj| <= GMRES_DEPENDENT * colnorm). */
static bool hess_rotate(gmres_state *g, int j, double colnorm)
{
    double *c = g->H + (size_t)j * (size_t)(g->m + 1);
    for (int i = 0; i < j; i++) {
        double a = c[i], b = c[i + 1];
        c[i] = g->cs[i] * a + g->sn[i] * b;
        c[i + 1] = -g->sn[i] * a + g->cs[i] * b;
    }
    double a = c[j], b = c[j + 1];
    double t = fmax(fabs(a), fabs(b));
    double hyp = t > 0.0 ? t * sqrt((a / t) * (a / t) + (b / t) * (b / t)) : 0.0;
    if (!(hyp > GMRES_DEPENDENT * colnorm))
        return false;
    g->cs[j] = a / hyp;
    g->sn[j] = b / hyp;
    c[j] = hyp;
    c[j + 1] = 0.0;
    g->g[j + 1] = -g->sn[j] * g->g[j];
    g->g[j] = g->cs[j] * g->g[j];
    return true;
}

/* y = R^-1 g over the first k columns (back substitution). */
static void hess_solve(gmres_state *g, int k)
{
    size_t ld = (size_t)g->m + 1;
    for (int i = k - 1; i >= 0; i--) {
        double v = g->g[i];
        for (int l = i + 1; l < k; l++)
            v -= g->H[(size_t)l * ld + i] * g->y[l];
        g->y[i] = v / g->H[(size_t)i * ld + i];
    }
}

/* ---- the vector part */

/* out[i] = w . ys[i] for i < k: PSL_DOTS_MAX per pass, one reduction over
 * the processes of a distributed run. */
static psl_status dots_blocked(psl_solver *s, psl_vview w, int k, const psl_vview *ys,
                               double *out)
{
    return psl_dots_many(s->ex, w, k, ys, s->opt.dot_acc, out);
}

/* w -= sum_i coef[i] xs[i] for i < k, the coefficients in slots. */
static psl_status subtract_blocked(psl_solver *s, int k, const double *coef, const psl_vview *xs,
                                   psl_vview w)
{
    psl_exec *ex = s->ex;
    for (int i0 = 0; i0 < k; i0 += PSL_DOTS_MAX) {
        int nb = k - i0 < PSL_DOTS_MAX ? k - i0 : PSL_DOTS_MAX;
        psl_sexpr a[PSL_DOTS_MAX];
        for (int i = 0; i < nb; i++)
            a[i] = (psl_sexpr){-1.0, coef + i0 + i, NULL, NULL, 0u};
        PSL_TRY(ex->be->maxpy(ex, nb, a, xs + i0, w));
    }
    return PSL_OK;
}

/* One classical Gram-Schmidt pass of w against v_0..v_j: the dots land in
 * slots[0..j], then w.w before (when ww0) and after the pass follow:
 * slots[j+1] (before), slots[j+1 + ww0] (after). */
static psl_status cgs_pass(psl_solver *s, gmres_state *g, int j, psl_vview w, double *slots,
                           bool ww0)
{
    for (int i = 0; i <= j; i++)
        g->ys[i] = g->v[i];
    g->ys[j + 1] = w;
    PSL_TRY(dots_blocked(s, w, j + 1 + (ww0 ? 1 : 0), g->ys, slots));
    PSL_TRY(subtract_blocked(s, j + 1, slots, g->v, w));
    int after = j + 1 + (ww0 ? 1 : 0);
    return s->ex->be->dots(s->ex, w, 1, &w, s->opt.dot_acc, slots + after, PSL_DOT_CHECK_NONE,
                           NULL);
}

/* Arnoldi step j: v_j+1 and column j of H. *colnorm = ||A z_j||; *ok false
 * when a value read is NaN or Inf. */
static psl_status arnoldi_step(psl_solver *s, gmres_state *g, int j, double *colnorm, bool *ok)
{
    psl_exec *ex = s->ex;
    psl_vview zj = g->v[j], w = g->v[j + 1];
    if (s->M) {
        zj = g->flexible ? g->z[j] : g->zt;
        PSL_TRY(psl_solver_precond(s, g->v[j], zj));
    }
    PSL_TRY(s->A->apply(s->A, 1.0, zj, 0.0, w));
    PSL_TRY(cgs_pass(s, g, j, w, g->slots, true));
    PSL_TRY(ex->be->to_host(ex, g->col, g->slots, (size_t)(j + 3) * sizeof(double)));
    double ww0 = g->col[j + 1], ww = g->col[j + 2];
    const double *h2 = NULL;
    double *second = g->slots + (g->m + 2);
    if (s->opt.gmres_reorth && isfinite(ww) && ww < 0.5 * ww0) {
        PSL_TRY(cgs_pass(s, g, j, w, second, false));
        double *c2 = g->col + (g->m + 2);
        PSL_TRY(ex->be->to_host(ex, c2, second, (size_t)(j + 2) * sizeof(double)));
        h2 = c2;
        ww = c2[j + 1];
    }
    *ok = isfinite(ww0) && isfinite(ww);
    for (int i = 0; i <= j && *ok; i++)
        *ok = isfinite(g->col[i]) && (!h2 || isfinite(h2[i]));
    *colnorm = sqrt(ww0);
    if (!*ok)
        return PSL_OK;
    hess_set_column(g, j, g->col, h2, ww);
    /* v_j+1 = w / ||w|| (0 when ||w|| = 0: an exact breakdown) */
    double *nrm = h2 ? second + (j + 1) : g->slots + (j + 2);
    psl_sexpr inv = {1.0, NULL, nrm, NULL, PSL_SX_SQRT_DEN};
    return ex->be->scale_copy(ex, inv, w, w);
}

/* x += the correction of the first k columns. */
static psl_status add_correction(psl_solver *s, gmres_state *g, int k, psl_vview x)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    if (k == 0)
        return PSL_OK;
    hess_solve(g, k);
    bool direct = !s->M || g->flexible;
    const psl_vview *basis = g->flexible ? g->z : g->v;
    /* GMRES with M: u = V y in v_k (free at the end of the cycle), x += M u */
    psl_vview target = direct ? x : g->v[k];
    if (!direct)
        PSL_TRY(be->fill(ex, target, 0.0));
    for (int i0 = 0; i0 < k; i0 += PSL_DOTS_MAX) {
        int nb = k - i0 < PSL_DOTS_MAX ? k - i0 : PSL_DOTS_MAX;
        psl_sexpr a[PSL_DOTS_MAX];
        for (int i = 0; i < nb; i++)
            a[i] = psl_sx(g->y[i0 + i]);
        PSL_TRY(be->maxpy(ex, nb, a, basis + i0, target));
    }
    if (direct)
        return PSL_OK;
    PSL_TRY(psl_solver_precond(s, target, g->zt));
    return be->axpby(ex, psl_sx(1.0), g->zt, psl_sx(1.0), x);
}

/* Why a cycle ended. */
typedef enum {
    CYCLE_STEPS,      /* all its steps (or an exact breakdown, inner) */
    CYCLE_ESTIMATE,   /* the estimate fell below tol */
    CYCLE_DEPENDENT,  /* a new column depends on the others (the space is invariant) */
    CYCLE_NONFINITE,  /* NaN or Inf in a column */
    CYCLE_STAGNATION  /* stagnation_iters steps without a new best estimate */
} cycle_end;

/* One cycle from v_0 (unit norm) and g = gamma e_0: up to `steps` Arnoldi
 * steps; outer (bnorm > 0) it stops when the estimate falls below tol,
 * monitors each step and counts them in *total. *k: columns usable. */
static psl_status run_cycle(psl_solver *s, gmres_state *g, int steps, double gamma, double bnorm,
                            int32_t *total, double *est, double *best, int32_t *since, int *k,
                            cycle_end *why)
{
    hess_start(g, gamma);
    *k = 0;
    *why = CYCLE_STEPS;
    for (int j = 0; j < steps; j++) {
        double colnorm = 0.0;
        bool ok = true;
        PSL_TRY(arnoldi_step(s, g, j, &colnorm, &ok));
        if (!ok) {
            *why = CYCLE_NONFINITE;
            return PSL_OK;
        }
        if (!hess_rotate(g, j, colnorm)) {
            *why = CYCLE_DEPENDENT;
            return PSL_OK;
        }
        *k = j + 1;
        if (bnorm > 0.0) {
            ++*total;
            *est = fabs(g->g[j + 1]) / bnorm;
            if (s->opt.monitor)
                s->opt.monitor(s->opt.monitor_ctx, *total, *est);
            if (*est < s->opt.tol) {
                *why = CYCLE_ESTIMATE;
                return PSL_OK;
            }
            if (psl_solver_stagnated(s, *est, best, since)) {
                *why = CYCLE_STAGNATION;
                return PSL_OK;
            }
        } else if (g->g[j + 1] == 0.0) { /* exact: the rest would change nothing */
            return PSL_OK;
        }
    }
    return PSL_OK;
}

/* Inner Arnoldi step j without its read: the dots, ||w|| before and after
 * the pass in the column at slots, v_j+1 = w / ||w|| from the backend. */
static psl_status arnoldi_step_unread(psl_solver *s, gmres_state *g, int j, double *slots)
{
    psl_vview zj = g->v[j], w = g->v[j + 1];
    if (s->M) {
        zj = g->flexible ? g->z[j] : g->zt;
        PSL_TRY(psl_solver_precond(s, g->v[j], zj));
    }
    PSL_TRY(s->A->apply(s->A, 1.0, zj, 0.0, w));
    PSL_TRY(cgs_pass(s, g, j, w, slots, true));
    psl_sexpr inv = {1.0, NULL, slots + (j + 2), NULL, PSL_SX_SQRT_DEN};
    return s->ex->be->scale_copy(s->ex, inv, w, w);
}

/* An inner cycle of `steps` steps (v_0 given, g = gamma e_0) whose columns
 * are read once at its end, then taken in order as run_cycle takes them:
 * the first non-finite or dependent column ends it, an exact breakdown too
 * (the steps after one ran on v = 0 and are not used). *k: columns usable. */
static psl_status run_cycle_unread(psl_solver *s, gmres_state *g, int steps, double gamma,
                                   int *k, cycle_end *why)
{
    const size_t stride = (size_t)g->m + 3;
    hess_start(g, gamma);
    *k = 0;
    *why = CYCLE_STEPS;
    for (int j = 0; j < steps; j++)
        PSL_TRY(arnoldi_step_unread(s, g, j, g->cols + (size_t)j * stride));
    PSL_TRY(s->ex->be->to_host(s->ex, g->colbuf, g->cols, (size_t)steps * stride * sizeof(double)));
    for (int j = 0; j < steps; j++) {
        const double *col = g->colbuf + (size_t)j * stride;
        bool ok = isfinite(col[j + 1]) && isfinite(col[j + 2]);
        for (int i = 0; i <= j && ok; i++)
            ok = isfinite(col[i]);
        if (!ok) {
            *why = CYCLE_NONFINITE;
            return PSL_OK;
        }
        hess_set_column(g, j, col, NULL, col[j + 2]);
        if (!hess_rotate(g, j, sqrt(col[j + 1]))) {
            *why = CYCLE_DEPENDENT;
            return PSL_OK;
        }
        *k = j + 1;
        if (g->g[j + 1] == 0.0) /* exact: the rest would change nothing */
            return PSL_OK;
    }
    return PSL_OK;
}

/* r = b - A x into v_0 and beta = ||r|| (slot read). */
static psl_status residual_start(psl_solver *s, gmres_state *g, psl_vview b, psl_vview x,
                                 double *beta)
{
    psl_exec *ex = s->ex;
    double *bb = g->slots + (g->nslots - 1);
    PSL_TRY(psl_solver_residual(s, b, x, g->v[0]));
    PSL_TRY(ex->be->dots(ex, g->v[0], 1, &g->v[0], s->opt.dot_acc, bb, PSL_DOT_CHECK_NONE, NULL));
    double h;
    PSL_TRY(ex->be->to_host(ex, &h, bb, sizeof h));
    *beta = sqrt(h);
    return PSL_OK;
}

psl_status psl_gmres_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                             psl_solve_result *res)
{
    gmres_state *g = s->mstate;
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    int32_t total = 0;
    double est = NAN, best = INFINITY;
    int32_t since = 0;
    int k = 0;
    cycle_end why = CYCLE_STEPS;
    if (fixed > 0) { /* b as given: v_0 = b, g = e_0; x = 0 on entry */
        PSL_TRY(be->scale_copy(ex, psl_sx(1.0), b, g->v[0]));
        int defer = 1;
        PSL_TRY(psl_opt_get(PSL_OPT_SOLVER_DEFER_READS, &defer));
        if (defer && g->cols && fixed <= g->m)
            PSL_TRY(run_cycle_unread(s, g, fixed, 1.0, &k, &why));
        else
            PSL_TRY(run_cycle(s, g, fixed, 1.0, 0.0, &total, &est, &best, &since, &k, &why));
        /* a NaN or Inf in an inner cycle goes up as NaN: its correction would
         * be the columns before it, none when it is the first, and the layer
         * above would see z = 0 and stagnate, hiding an overflow (FP16's
         * largest value is 65504) that it reports as non-finite this way */
        if (why == CYCLE_NONFINITE)
            return be->fill(ex, x, NAN);
        return add_correction(s, g, k, x);
    }
    double h;
    PSL_TRY(psl_solver_read(s, PSL_SLOT_BB, 1, &h));
    double bnorm = sqrt(h), beta = 0.0;
    PSL_TRY(residual_start(s, g, b, x, &beta));
    est = beta / bnorm;
    if (s->opt.monitor)
        s->opt.monitor(s->opt.monitor_ctx, 0, est);
    if (!isfinite(beta))
        return psl_solver_finish(s, PSL_REASON_NONFINITE, 0, est, b, x, false, res);
    /* r and its norm are the true residual's */
    bool plain = s->t == PSL_FP64 && s->opt.dot_acc == PSL_FP64 && !s->opt.residual_op;
    for (;;) {
        /* the true residual at the start of every cycle, and at the end */
        if (plain)
            res->relres = beta / bnorm;
        else
            PSL_TRY(psl_solver_true_relres(s, b, x, &res->relres));
        bool by_estimate = why == CYCLE_ESTIMATE;
        if (res->relres < s->opt.tol || (by_estimate && s->opt.recursive_stop))
            return psl_solver_finish(s, PSL_REASON_CONVERGED, total, est, b, x, true, res);
        if (why == CYCLE_NONFINITE)
            return psl_solver_finish(s, PSL_REASON_NONFINITE, total, est, b, x, true, res);
        /* a dependent column: the Krylov space is invariant and x minimises the
         * residual over it, which no restart can change (r stays in it) */
        if (why == CYCLE_STAGNATION || why == CYCLE_DEPENDENT)
            return psl_solver_finish(s, PSL_REASON_STAGNATION, total, est, b, x, true, res);
        if (by_estimate) { /* the estimate reached tol, the true residual did not */
            if (res->relres < 0.9 * s->best_true) {
                s->best_true = res->relres;
                s->stuck = 0;
            } else if (++s->stuck >= PSL_REPLACEMENTS_STUCK) {
                return psl_solver_finish(s, PSL_REASON_STAGNATION, total, est, b, x, true, res);
            }
        }
        if (total >= s->opt.max_iters)
            return psl_solver_finish(s, PSL_REASON_MAX_ITERS, total, est, b, x, true, res);
        /* v_0 = r / beta, then a cycle */
        double *bb = g->slots + (g->nslots - 1);
        psl_sexpr inv = {1.0, NULL, bb, NULL, PSL_SX_SQRT_DEN};
        PSL_TRY(be->scale_copy(ex, inv, g->v[0], g->v[0]));
        int steps = g->m;
        if (s->opt.max_iters - total < steps)
            steps = s->opt.max_iters - total;
        PSL_TRY(run_cycle(s, g, steps, beta, bnorm, &total, &est, &best, &since, &k, &why));
        PSL_TRY(add_correction(s, g, k, x));
        PSL_TRY(residual_start(s, g, b, x, &beta));
        if (!isfinite(beta))
            return psl_solver_finish(s, PSL_REASON_NONFINITE, total, est, b, x, false, res);
    }
}
