/*
 * backend.h -- what the solver layer needs from the place its vectors live:
 * memory, and the vector operations of a Krylov iteration, with their scalars
 * kept in that place's memory. One table per backend (backend_cpu.c, the
 * CUDA one in kernels/cuda/solver_ops.cu); solvers call only these entries.
 *
 * Scalars. A solver keeps its scalars (dots, norms, a breakdown flag) in a
 * small block of doubles in the backend's memory ("slots"). Operations take
 * their coefficients as scalar expressions (psl_sexpr) over slots, evaluated
 * where the vectors are, so that a GPU iteration never waits for the host.
 */
#ifndef PSL_SOLVER_BACKEND_H
#define PSL_SOLVER_BACKEND_H

#include "packsell.h"
#include "codec/half.h" /* PSL_HD */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A vector's data as the backends see it: n entries of type (FP64, FP32,
 * FP16 raw bits) in the backend's memory. */
typedef struct psl_vview {
    void *data;
    int64_t n;
    psl_scalar type;
} psl_vview;

/* Flags of a scalar expression. */
enum {
    PSL_SX_SQRT_NUM = 1u, /* use sqrt(*num) */
    PSL_SX_SQRT_DEN = 2u  /* use sqrt(*den) */
};

/* The scalar c * N / D with N = *num (1 if num is NULL) and D = *den (1 if
 * den is NULL), each through sqrt when flagged. It is 0 when guard is set
 * and *guard != 0 (a breakdown flag: updates after a breakdown are no-ops),
 * and 0 when den is set and D is 0 or not finite. Pointers are slots in the
 * backend's memory. */
typedef struct psl_sexpr {
    double c;
    const double *num;
    const double *den;
    const double *guard;
    unsigned flags;
} psl_sexpr;

/* A constant. */
static inline psl_sexpr psl_sx(double c)
{
    psl_sexpr e = {c, 0, 0, 0, 0u};
    return e;
}

/* The value of e; its pointers must be readable where this runs (host code
 * for the CPU backend, device code for CUDA). */
PSL_HD double psl_sexpr_eval(psl_sexpr e)
{
    if (e.guard && *e.guard != 0.0)
        return 0.0;
    double v = e.c;
    if (e.num) {
        double n = *e.num;
        v *= (e.flags & PSL_SX_SQRT_NUM) ? sqrt(n) : n;
    }
    if (e.den) {
        double d = *e.den;
        if (e.flags & PSL_SX_SQRT_DEN)
            d = sqrt(d);
        if (d == 0.0 || !isfinite(d))
            return 0.0;
        v /= d;
    }
    return v;
}

/* Checks a dot product can make on its first result out[0], setting the
 * breakdown flag *flag when it is 0 (sticky: a set flag is never changed). */
enum {
    PSL_DOT_CHECK_NONE = 0,
    PSL_DOT_CHECK_FINITE = 1,  /* NaN or Inf: *flag = PSL_FLAG_NONFINITE */
    PSL_DOT_CHECK_POSITIVE = 2, /* as FINITE, and <= 0: *flag = PSL_FLAG_INDEFINITE */
    PSL_DOT_CHECK_NONNEG = 3    /* as FINITE, and < 0: *flag = PSL_FLAG_INDEFINITE (r.z,
                                   which is 0 when r is: convergence, not breakdown) */
};
/* Values of a breakdown flag slot. */
#define PSL_FLAG_INDEFINITE 1.0
#define PSL_FLAG_NONFINITE 2.0

/* Apply `check` to the dot product v, setting *flag (sticky; flag NULL or
 * CHECK_NONE: nothing). Host or device code. */
PSL_HD void psl_dot_check_apply(double v, unsigned check, double *flag)
{
    if (check == PSL_DOT_CHECK_NONE || !flag || *flag != 0.0)
        return;
    if (!isfinite(v))
        *flag = PSL_FLAG_NONFINITE;
    else if ((check == PSL_DOT_CHECK_POSITIVE && !(v > 0.0)) ||
             (check == PSL_DOT_CHECK_NONNEG && !(v >= 0.0)))
        *flag = PSL_FLAG_INDEFINITE;
}

/* Size of one mailbox of an executor (psl_backend.post_read). */
#define PSL_MAILBOX_BYTES 64

/* Most pairs one psl_backend.dots call takes. */
#define PSL_DOTS_MAX 8

typedef struct psl_exec psl_exec;

/* The operations of one backend. All vectors given to one call have the same
 * length; types as stated per entry (FP64, FP32, FP16). Arithmetic is FP64
 * for FP64 vectors and FP32 otherwise (FP16 is a storage type: loaded to
 * FP32, rounded to nearest even on store). Every entry returns a psl_status
 * (errors set the thread's message); entries are asynchronous on CUDA except
 * to_host and sync. Results are deterministic (fixed reduction order given
 * the length). */
typedef struct psl_backend {
    const char *name; /* "cpu", "cuda" */

    /* Memory: alloc gives zeroed memory (bytes may be 0: *p may be NULL). */
    psl_status (*alloc)(psl_exec *ex, size_t bytes, void **p);
    void (*free)(psl_exec *ex, void *p);
    /* Copies between host and backend memory; to_host synchronizes. */
    psl_status (*to_host)(psl_exec *ex, void *host, const void *src, size_t bytes);
    psl_status (*from_host)(psl_exec *ex, void *dst, const void *host, size_t bytes);
    /* dst = src inside backend memory. */
    psl_status (*copy_bytes)(psl_exec *ex, void *dst, const void *src, size_t bytes);
    psl_status (*sync)(psl_exec *ex);
    /* A read that does not wait: post_read queues a copy of `bytes` (at most
     * PSL_MAILBOX_BYTES) from backend memory src into the executor's host
     * mailbox `box` (0 or 1) behind the work queued so far; take_read waits
     * for that copy and gives its bytes to host. A solver queues its next
     * step between the two, so the device does not wait for the host. */
    psl_status (*post_read)(psl_exec *ex, int box, const void *src, size_t bytes);
    psl_status (*take_read)(psl_exec *ex, int box, void *host, size_t bytes);

    /* y = value. */
    psl_status (*fill)(psl_exec *ex, psl_vview y, double value);
    /* y = a*x, x and y of any two types (the conversion copy). */
    psl_status (*scale_copy)(psl_exec *ex, psl_sexpr a, psl_vview x, psl_vview y);
    /* y = a*x + b*y, same type; y is not read when b is the constant 0
     * (b.c == 0 and no slot). */
    psl_status (*axpby)(psl_exec *ex, psl_sexpr a, psl_vview x, psl_sexpr b, psl_vview y);
    /* y = y + sum_i a[i]*x[i], i < k (1 <= k <= PSL_DOTS_MAX), same type. */
    psl_status (*maxpy)(psl_exec *ex, int k, const psl_sexpr *a, const psl_vview *x,
                        psl_vview y);
    /* y = a * (d .* x) + b*y (Jacobi), same type; b as in axpby. */
    psl_status (*diag_scale)(psl_exec *ex, psl_sexpr a, psl_vview d, psl_vview x, psl_sexpr b,
                             psl_vview y);
    /* out[i] = x . y[i] for i < k (1 <= k <= PSL_DOTS_MAX), in one pass over x;
     * accumulation acc (FP64 or FP32); x and the y[i] of one type. Then
     * `check` on out[0] sets *flag (flag may be NULL for CHECK_NONE). out and
     * flag are slots. */
    psl_status (*dots)(psl_exec *ex, psl_vview x, int k, const psl_vview *y, psl_scalar acc,
                       double *out, unsigned check, double *flag);
    /* The fused end of a CG step, one pass:
     *   r = r - a*q;  z = d .* r (d.data NULL: no z, z is r);
     *   out[0] = r . z;  out[1] = r . r
     * with `check` on out[0] as in dots. Same type for all. */
    psl_status (*cg_residual)(psl_exec *ex, psl_sexpr a, psl_vview q, psl_vview r, psl_vview d,
                              psl_vview z, psl_scalar acc, double *out, unsigned check,
                              double *flag);
    /* The fused start of the next CG step, one pass:
     *   x = x + a*p;  p = z + b*p      (p read once, before it is written). */
    psl_status (*cg_update)(psl_exec *ex, psl_sexpr a, psl_vview p, psl_vview x, psl_vview z,
                            psl_sexpr b);
    /* The fused update of a flexible CG step, one pass:
     *   x = x + a*d;  r = r - a*q;  out[0] = r . r */
    psl_status (*fcg_update)(psl_exec *ex, psl_sexpr a, psl_vview d, psl_vview q, psl_vview x,
                             psl_vview r, psl_scalar acc, double *out);
    /* `check` on the slot *v, setting the slot *flag, as dots does on out[0]
     * (queued: the reduced form of the entries above checks after its sum). */
    psl_status (*check)(psl_exec *ex, const double *v, unsigned check, double *flag);
    /* Optional (NULL: no graphs here; the caller runs fn itself). Runs the
     * work fn(ctx) queues on ex through a graph kept in *graph (NULL at
     * first): captured when *graph holds none or one captured under another
     * key, then replayed on ex's queue at this and every later call with the
     * same key. fn must queue the same work at every call with one key: no
     * host read, no synchronisation, no state kept on the host. Where capture
     * is refused (ex's queue is being captured already: fn's work joins that
     * capture; or an operation of fn cannot be captured) fn runs directly,
     * and after a refused capture *graph runs fn directly from then on. */
    psl_status (*graph_run)(psl_exec *ex, void **graph, const void *key,
                            psl_status (*fn)(void *ctx), void *ctx);
    /* Releases the graph in *graph (NULL: none) and sets *graph NULL. */
    void (*graph_free)(psl_exec *ex, void **graph);
} psl_backend;

/* A sum over the processes of a distributed run: replaces the k slots
 * out[0..k-1] (backend memory, in the executor's queue order) by their sums
 * over the processes, the same bits on every process. */
typedef psl_status (*psl_exec_reduce_fn)(psl_exec *ex, void *ctx, double *out, int k);

/* The backends (the CUDA one answers PSL_ERR_NOT_SUPPORTED in a build
 * without CUDA: see psl_exec_create_cuda). */
extern const psl_backend psl_backend_cpu;
extern const psl_backend psl_backend_cuda;

/* An executor: a backend and, for CUDA, its device, stream and the scratch
 * its reductions use. */
struct psl_exec {
    uint64_t magic;
    const psl_backend *be;
    int device;      /* CUDA device, -1 on the CPU */
    void *stream;    /* cudaStream_t */
    void *scratch;   /* CUDA: partial sums of the reductions, the pinned
                        mailboxes and their events (backend-owned) */
    size_t scratch_bytes;
    double mail[2][PSL_MAILBOX_BYTES / sizeof(double)]; /* CPU: the mailboxes */
    /* A distributed run (psl_exec_set_reduce): be is then psl_backend_reducing,
     * which calls local_be and sums its dot products with reduce. */
    const psl_backend *local_be;
    psl_exec_reduce_fn reduce;
    void *reduce_ctx;
};

/* The table of a distributed executor (backend_reduce.c): local_be's
 * entries, with dots, cg_residual and fcg_update summed by reduce before
 * their checks. */
extern const psl_backend psl_backend_reducing;

/* Make ex's reductions sums over processes (fn NULL: local again): sets
 * ex->be to psl_backend_reducing over its own backend. Refused while a
 * different reduction is set (PSL_ERR_INVALID_VALUE). */
psl_status psl_exec_set_reduce(psl_exec *ex, psl_exec_reduce_fn fn, void *ctx);

/* out[i] = x . y[i] for any k >= 0 (PSL_DOTS_MAX per pass over x), with no
 * check; on a distributed executor summed over the processes in ONE
 * reduction (GMRES's Gram-Schmidt dots). */
psl_status psl_dots_many(psl_exec *ex, psl_vview x, int k, const psl_vview *y, psl_scalar acc,
                         double *out);

#define PSL_EXEC_MAGIC 0x43455850534cULL /* "LSPXEC" */

/* CUDA backend life cycle (solver_ops.cu; stubs without CUDA): check the
 * device and set up ex->scratch; release it. */
psl_status psl_cuda_exec_init(psl_exec *ex);
void psl_cuda_exec_release(psl_exec *ex);
/* Whether p is host memory that the device cannot use as a vector (false
 * without CUDA). */
bool psl_cuda_pointer_is_host(const void *p);

#ifdef __cplusplus
}
#endif

#endif /* PSL_SOLVER_BACKEND_H */
