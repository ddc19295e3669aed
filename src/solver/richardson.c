/*
 * richardson.c -- adaptive Richardson(m), F3R's innermost layer (Suzuki and
 * Iwashita; ALGORITHMS.md section 7), as an inner solver over the backend
 * operations, on the input v from y = 0:
 *
 *   step 1:       y = w_1 M v
 *   step k >= 2:  r = v - A y;  y += w_k M r
 *
 * One weight per step. A call counter starts at c and is incremented on
 * every call; a call with counter % c == 0 (the c-th, 2c-th, ... call) is a
 * sampling call: each step uses its local optimum w = (t, r) / (t, t) with
 * t = A (M r) (r = v in step 1), the two dot products read to the host, and
 * adds it to the step's running sum (which starts at 1, the start counting
 * as one sample); the step's mean sum / samples becomes its weight, stored
 * rounded to the vectors' precision. Other calls pass the stored weights as
 * constants and never read the device. The weights live on the host; the
 * counter and the sums restart at every solve above the solver
 * (mstate_reset, called by psl_solver_solve down the chain of operators).
 * The reference code (F3R v1.0.2, AutoRichardson) keeps one weight for step
 * 1 and one shared by steps 2..m; with F3R's m = 2 the two rules agree.
 */
#include "solver/solver_internal.h"

#include <math.h>
#include <stdlib.h>

typedef struct richardson_state {
    int m;          /* steps per call */
    int64_t cnt;    /* calls, counted from c */
    double *w;      /* m weights, as stored */
    double *sum;    /* m running sums of the samples (start 1) */
    int64_t *ns;    /* m sample counts (start 1) */
    psl_vview r, mr, t; /* residual, M r, A M r (mr unused without M) */
    double *slots;  /* 2 backend doubles: (t, r), (t, t) */
} richardson_state;

static void richardson_reset(psl_solver *s)
{
    richardson_state *g = s->mstate;
    g->cnt = s->opt.richardson_c;
    for (int k = 0; k < g->m; k++) {
        g->w[k] = 1.0;
        g->sum[k] = 1.0;
        g->ns[k] = 1;
    }
}

static void richardson_free(psl_solver *s)
{
    richardson_state *g = s->mstate;
    if (!g)
        return;
    psl_work_free(s->ex, &g->r);
    psl_work_free(s->ex, &g->mr);
    psl_work_free(s->ex, &g->t);
    if (g->slots)
        s->ex->be->free(s->ex, g->slots);
    free(g->w), free(g->sum), free(g->ns);
    free(g);
    s->mstate = NULL;
}

psl_status psl_richardson_setup(psl_solver *s)
{
    psl_exec *ex = s->ex;
    richardson_state *g = NULL;
    PSL_TRY(psl_alloc_zero((void **)&g, 1, sizeof *g, "Richardson state"));
    s->mstate = g;
    s->mstate_free = richardson_free;
    s->mstate_reset = richardson_reset;
    g->m = s->opt.fixed_iters;
    size_t m = (size_t)g->m;
    PSL_TRY(psl_alloc_zero((void **)&g->w, m, sizeof *g->w, "Richardson weights"));
    PSL_TRY(psl_alloc_zero((void **)&g->sum, m, sizeof *g->sum, "Richardson weights"));
    PSL_TRY(psl_alloc_zero((void **)&g->ns, m, sizeof *g->ns, "Richardson weights"));
    PSL_TRY(ex->be->alloc(ex, 2 * sizeof(double), (void **)&g->slots));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &g->r));
    PSL_TRY(psl_work_new(ex, s->n, s->t, &g->t));
    if (s->M)
        PSL_TRY(psl_work_new(ex, s->n, s->t, &g->mr));
    richardson_reset(s);
    return PSL_OK;
}

int32_t psl_richardson_weights(const psl_solver *s, double *w, int32_t cap)
{
    const richardson_state *g = s->mstate;
    for (int k = 0; k < g->m && k < cap && w; k++)
        w[k] = g->w[k];
    return g->m;
}

/* v rounded to the precision of type t (the weights' storage). */
static double round_to(psl_scalar t, double v)
{
    if (t == PSL_FP16)
        return (double)psl_half_to_float(psl_float_to_half((float)v));
    if (t == PSL_FP32)
        return (double)(float)v;
    return v;
}

/* A sampling step on r (v in step 1): mr = M r, t = A mr, the local weight
 * (t, r) / (t, t) into *w (unchanged when it is not finite: t = 0), and the
 * step's mean updated. */
static psl_status sample(psl_solver *s, richardson_state *g, int k, psl_vview r, psl_vview mr,
                         double *w)
{
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    bool d = s->t == PSL_FP64;
    psl_scalar acc = d ? s->opt.dot_acc : PSL_FP32;
    psl_vview ys[2] = {r, g->t};
    PSL_TRY(s->A->apply(s->A, 1.0, mr, 0.0, g->t));
    PSL_TRY(be->dots(ex, g->t, 2, ys, acc, g->slots, PSL_DOT_CHECK_NONE, NULL));
    double h[2];
    PSL_TRY(be->to_host(ex, h, g->slots, sizeof h));
    double local = d ? h[0] / h[1] : (double)((float)h[0] / (float)h[1]);
    if (!isfinite(local) || !(h[1] > 0.0))
        return PSL_OK; /* *w stays the mean */
    *w = local;
    g->ns[k]++;
    if (d) {
        g->sum[k] += local;
        g->w[k] = g->sum[k] / (double)g->ns[k];
    } else {
        g->sum[k] = (double)((float)g->sum[k] + (float)local);
        g->w[k] = (double)((float)g->sum[k] / (float)g->ns[k]);
    }
    g->w[k] = round_to(s->t, g->w[k]);
    return PSL_OK;
}

psl_status psl_richardson_iterate(psl_solver *s, psl_vview v, psl_vview y, int32_t fixed,
                                  psl_solve_result *res)
{
    (void)res;
    richardson_state *g = s->mstate;
    psl_exec *ex = s->ex;
    const psl_backend *be = ex->be;
    if (fixed < 1 || fixed > g->m)
        return psl_error(PSL_ERR_INTERNAL, "Richardson: %d steps (1..%d)", fixed, g->m);
    bool sampling = ++g->cnt % s->opt.richardson_c == 0;
    for (int k = 0; k < fixed; k++) {
        psl_vview r = v;
        if (k > 0) { /* r = v - A y */
            r = g->r;
            PSL_TRY(be->scale_copy(ex, psl_sx(1.0), v, r));
            PSL_TRY(s->A->apply(s->A, -1.0, y, 1.0, r));
        }
        double w = g->w[k];
        if (sampling) {
            psl_vview mr = r;
            if (s->M) {
                mr = g->mr;
                PSL_TRY(s->M->apply(s->M, 1.0, r, 0.0, mr));
            }
            PSL_TRY(sample(s, g, k, r, mr, &w));
            if (k == 0)
                PSL_TRY(be->scale_copy(ex, psl_sx(w), mr, y));
            else
                PSL_TRY(be->axpby(ex, psl_sx(w), mr, psl_sx(1.0), y));
        } else if (s->M) { /* y = w M r (+ y) */
            PSL_TRY(s->M->apply(s->M, w, r, k == 0 ? 0.0 : 1.0, y));
        } else if (k == 0) {
            PSL_TRY(be->scale_copy(ex, psl_sx(w), r, y));
        } else {
            PSL_TRY(be->axpby(ex, psl_sx(w), r, psl_sx(1.0), y));
        }
    }
    return PSL_OK;
}
