/*
 * solver_internal.h -- the vector and operator objects of the solver layer
 * (packsell.h, "solvers") and the helpers its sources share.
 */
#ifndef PSL_SOLVER_INTERNAL_H
#define PSL_SOLVER_INTERNAL_H

#include "internal.h"
#include "solver/backend.h"

#define PSL_VEC_MAGIC 0x434556534cULL /* "LSVEC" */
#define PSL_OP_MAGIC 0x504f4c53ULL    /* "SLOP" */

struct psl_vec {
    uint64_t magic;
    psl_exec *ex;
    psl_vview v;
    bool owns; /* v.data is freed with the vector */
};

/* An operator: y = alpha*Op(x) + beta*y on views of its executor's memory
 * (types and lengths checked by the caller: psl_op_apply or a solver). */
struct psl_op {
    uint64_t magic;
    psl_exec *ex;
    int64_t nrows, ncols;
    psl_scalar in_type, out_type;
    const char *what; /* "matrix", "jacobi", "product", "cg", "fcg" */
    psl_status (*apply)(const psl_op *op, double alpha, psl_vview x, double beta, psl_vview y);
    void (*destroy)(psl_op *op); /* frees impl (not the psl_op) */
    void *impl;
    bool solver_owned; /* the operator of a solver: psl_op_destroy refuses it */
    const psl_op *wraps; /* an operator around another (F3R's scaled layers):
                            its inner iterations are that one's */
};

/* Checks of handles: PSL_ERR_NULL_POINTER or PSL_ERR_INVALID_HANDLE naming who. */
psl_status psl_exec_check(const psl_exec *ex, const char *who);
psl_status psl_vec_check(const psl_vec *v, const char *who);
psl_status psl_op_check(const psl_op *op, const char *who);

/* A zeroed operator with the common fields set (NULL: out of memory, reported). */
psl_op *psl_op_new(psl_exec *ex, int64_t nrows, int64_t ncols, psl_scalar in_type,
                   psl_scalar out_type, const char *what);

/* A work vector of the executor: n entries of type, zeroed. */
psl_status psl_work_new(psl_exec *ex, int64_t n, psl_scalar type, psl_vview *v);
void psl_work_free(psl_exec *ex, psl_vview *v);

/* Whether psl_sexpr b is the constant 0 (y is then not read). */
static inline bool psl_sx_is_zero(psl_sexpr e)
{
    return e.c == 0.0 && !e.num && !e.den && !e.guard;
}

/* Whether t is a vector type of the solver layer (FP64, FP32, FP16). */
static inline bool psl_solver_vec_type(psl_scalar t)
{
    return t == PSL_FP64 || t == PSL_FP32 || t == PSL_FP16;
}

/* ---- solvers (solver.c: life cycle and shared steps; cg.c, fcg.c: methods) */

/* Slots of a solver (backend memory). An iteration reads FLAG..RR at once. */
enum {
    PSL_SLOT_FLAG = 0, /* breakdown flag (backend.h) */
    PSL_SLOT_RHO = 1,  /* CG: (r.z, r.r), two pairs used in turn: 1-2 and 3-4 */
    PSL_SLOT_RR = 5,   /* FCG: r.r */
    PSL_SLOT_BB = 6,   /* b.b */
    PSL_SLOT_PQ = 7,   /* p.Ap (CG), d.Ad (FCG: of the newest direction) */
    PSL_SLOT_DR = 8,   /* FCG: d.r */
    PSL_SLOT_NRM = 9,  /* operator mode: x.x of the input */
    PSL_SLOT_ZQ = 10,  /* FCG: z.q_i, PSL_FCG_MMAX slots */
    PSL_SLOT_DELTA = 10 + 64, /* FCG: (d_i.q_i, d_i.r) pairs, a ring of PSL_FCG_MMAX+1 */
    PSL_SLOT_TRR = 10 + 64 + 2 * 65, /* true residual: (b - A x).(b - A x) */
    PSL_SLOT_TBB, /* true residual: b.b in the residual operator's type */
    PSL_SLOT_COUNT
};
#define PSL_FCG_MMAX 64

struct psl_solver {
    uint64_t magic;
    psl_method method;
    psl_exec *ex;
    const psl_op *A, *M;
    psl_solver_options opt;
    int64_t n;
    psl_scalar t;       /* vector type of the iteration */
    double *slots;      /* PSL_SLOT_COUNT doubles, backend memory */
    psl_vview r, z, p, q; /* CG; FCG uses r, z and the rings */
    psl_vview *dring, *qring; /* FCG: mmax+1 directions and their products */
    int nring;
    psl_vview bw, xw;   /* operator mode: b/||b|| and the iterate, type t */
    psl_vview yw;       /* operator mode: the result in the output type (beta != 0) */
    psl_vview rc, xc, bc; /* true residual in the residual operator's type */
    psl_op op;          /* the solver as an operator (fixed_iters > 0) */
    int64_t op_iters;
    void *graph;        /* operator mode: the backend's graph of the fixed iterations */
    void *step_graph[2][2]; /* CG to a tolerance: graphs of one step, [fuse][parity] */
    int64_t inner_base;
    int fuse;           /* PSL_SOLVER_FUSE, read by each CG run */
    double best_true;   /* smallest true residual of this solve's replacements */
    int stuck;          /* replacements since best_true last fell by 10% */ /* inner iterations of M at the start of a solve */
    void *mstate;       /* a method's own work (gmres.c, bicgstab.c), NULL otherwise */
    void (*mstate_free)(psl_solver *s); /* frees mstate (solver_free calls it) */
    void (*mstate_reset)(psl_solver *s); /* NULL, or restarts state kept across the
                                            calls of the solver as an operator
                                            (Richardson's weights): called at the
                                            start of each solve above it */
};

#define PSL_SOLVER_MAGIC 0x564c4f534cULL /* "LSOLV" */

/* A view of slot i. */
static inline double *psl_slot(const psl_solver *s, int i) { return s->slots + i; }

/* Iterations run by the solvers inside operator M so far (0 if M is not a
 * solver or contains none). */
int64_t psl_op_inner_iterations(const psl_op *M);

/* z = M r (z = r when M is NULL: then z aliases r). */
psl_status psl_solver_precond(psl_solver *s, psl_vview r, psl_vview z);
/* The true relative residual ||b - A x|| / ||b|| through opt.residual_op (or
 * A), in FP64 on the host. Synchronizes. */
psl_status psl_solver_true_relres(psl_solver *s, psl_vview b, psl_vview x, double *relres);
/* r = b - A x in the iteration's type (x zero: r = b when zero_x). */
psl_status psl_solver_residual(psl_solver *s, psl_vview b, psl_vview x, psl_vview r);
/* Read `count` slots from `first` into host. Synchronizes. */
psl_status psl_solver_read(psl_solver *s, int first, int count, double *host);

/* The methods: iterate on b, x (views of type t). fixed > 0: exactly fixed
 * iterations from x = 0 with no host read and no test (res unused).
 * Otherwise to tol; res filled; the status as psl_solver_solve. */
psl_status psl_cg_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                          psl_solve_result *res);
psl_status psl_fcg_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                           psl_solve_result *res);
psl_status psl_gmres_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                             psl_solve_result *res); /* GMRES and FGMRES (s->method) */
psl_status psl_bicgstab_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                                psl_solve_result *res);
psl_status psl_richardson_iterate(psl_solver *s, psl_vview b, psl_vview x, int32_t fixed,
                                  psl_solve_result *res); /* fixed > 0 only */
/* Whether CG's work on s (the fixed iterations of an operator's apply, a
 * step of a solve to a tolerance) queues the same kernels at every call,
 * with no host read: A and the preconditioner are matrices, diagonals or
 * products of them (cg.c). */
bool psl_cg_queues_only(const psl_solver *s);
/* Whether the backend's graphs serve s: PSL_SOLVER_GRAPH, a backend with
 * graphs, and CG iterations that queue the same work at every call. */
psl_status psl_solver_use_graph(const psl_solver *s, bool *yes);
/* Work vectors of each method (allocated by psl_solver_create). */
psl_status psl_cg_setup(psl_solver *s);
psl_status psl_fcg_setup(psl_solver *s);
psl_status psl_gmres_setup(psl_solver *s);
psl_status psl_bicgstab_setup(psl_solver *s);
psl_status psl_richardson_setup(psl_solver *s);
/* Richardson's weights (richardson.c; -1 if s is not Richardson). */
int32_t psl_richardson_weights(const psl_solver *s, double *w, int32_t cap);
/* Whether m is GMRES or FGMRES (gmres.c): as operators (fixed_iters > 0)
 * with op_unit_input they take their input as given, as a unit-norm vector,
 * instead of normalising it. */
static inline bool psl_method_is_gmres(psl_method m)
{
    return m == PSL_METHOD_GMRES || m == PSL_METHOD_FGMRES;
}
/* Whether m as an operator with op_unit_input takes its input as given
 * (GMRES, FGMRES, Richardson). */
static inline bool psl_method_unit_input(psl_method m)
{
    return psl_method_is_gmres(m) || m == PSL_METHOD_RICHARDSON;
}

/* The true residual after the recursive one fell below tol: *ok when the
 * true one is below tol too (res->relres set); else r = b - A x is
 * recomputed in the iteration's type (residual replacement) and *ok false,
 * with *stuck when the replacements stopped helping. */
psl_status psl_solver_confirm(psl_solver *s, psl_vview b, psl_vview x, psl_vview r, bool *ok,
                              bool *stuck, psl_solve_result *res);
/* psl_solver_confirm with s->r, and the end it decides: true when the solve
 * is over (converged, or the replacements stuck; or an error), its status in
 * *st; false when r was replaced and the method goes on from it. */
bool psl_solver_confirmed_end(psl_solver *s, psl_vview b, psl_vview x, int32_t it,
                              double relres, psl_solve_result *res, psl_status *st);
/* Residual replacements whose true residual did not fall below 0.9 times the
 * best one before: after this many the solve stops (stagnation: the
 * recurrence converges, the true residual does not, e.g. a matrix stored in
 * lower precision than the residual test). */
#define PSL_REPLACEMENTS_STUCK 3
/* Stagnation: true when relres has not gone below its best for
 * opt.stagnation_iters iterations (*best, *since track it). */
bool psl_solver_stagnated(const psl_solver *s, double relres, double *best, int32_t *since);
/* The end of a solve: res (true residual of x unless known), status of reason. */
psl_status psl_solver_finish(psl_solver *s, psl_reason reason, int32_t iters, double recursive,
                             psl_vview b, psl_vview x, bool true_known, psl_solve_result *res);

#endif /* PSL_SOLVER_INTERNAL_H */
