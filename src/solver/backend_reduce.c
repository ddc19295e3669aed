/*
 * backend_reduce.c -- the backend table of an executor whose reductions are
 * sums over the processes of a distributed run (packsell_mpi.h,
 * psl_dist_exec_attach): every entry is the executor's own backend's, except
 * that the dot products (dots, cg_residual, fcg_update) are computed on this
 * process's entries without their check, summed over the processes by the
 * executor's reduce function (one sum per call, whatever its number of
 * dots), and then checked. The solvers above see one backend as before.
 */
#include "solver/solver_internal.h"

#define LOCAL(ex) ((ex)->local_be)

static psl_status r_alloc(psl_exec *ex, size_t bytes, void **p) { return LOCAL(ex)->alloc(ex, bytes, p); }
static void r_free(psl_exec *ex, void *p) { LOCAL(ex)->free(ex, p); }
static psl_status r_to_host(psl_exec *ex, void *host, const void *src, size_t bytes)
{
    return LOCAL(ex)->to_host(ex, host, src, bytes);
}
static psl_status r_from_host(psl_exec *ex, void *dst, const void *host, size_t bytes)
{
    return LOCAL(ex)->from_host(ex, dst, host, bytes);
}
static psl_status r_copy_bytes(psl_exec *ex, void *dst, const void *src, size_t bytes)
{
    return LOCAL(ex)->copy_bytes(ex, dst, src, bytes);
}
static psl_status r_sync(psl_exec *ex) { return LOCAL(ex)->sync(ex); }
static psl_status r_post_read(psl_exec *ex, int box, const void *src, size_t bytes)
{
    return LOCAL(ex)->post_read(ex, box, src, bytes);
}
static psl_status r_take_read(psl_exec *ex, int box, void *host, size_t bytes)
{
    return LOCAL(ex)->take_read(ex, box, host, bytes);
}
static psl_status r_fill(psl_exec *ex, psl_vview y, double value) { return LOCAL(ex)->fill(ex, y, value); }
static psl_status r_scale_copy(psl_exec *ex, psl_sexpr a, psl_vview x, psl_vview y)
{
    return LOCAL(ex)->scale_copy(ex, a, x, y);
}
static psl_status r_axpby(psl_exec *ex, psl_sexpr a, psl_vview x, psl_sexpr b, psl_vview y)
{
    return LOCAL(ex)->axpby(ex, a, x, b, y);
}
static psl_status r_maxpy(psl_exec *ex, int k, const psl_sexpr *a, const psl_vview *x, psl_vview y)
{
    return LOCAL(ex)->maxpy(ex, k, a, x, y);
}
static psl_status r_diag_scale(psl_exec *ex, psl_sexpr a, psl_vview d, psl_vview x, psl_sexpr b,
                               psl_vview y)
{
    return LOCAL(ex)->diag_scale(ex, a, d, x, b, y);
}
static psl_status r_cg_update(psl_exec *ex, psl_sexpr a, psl_vview p, psl_vview x, psl_vview z,
                              psl_sexpr b)
{
    return LOCAL(ex)->cg_update(ex, a, p, x, z, b);
}
static psl_status r_check(psl_exec *ex, const double *v, unsigned check, double *flag)
{
    return LOCAL(ex)->check(ex, v, check, flag);
}

/* Sum the k slots out[] over the processes, then check out[0]. */
static psl_status sum_then_check(psl_exec *ex, double *out, int k, unsigned check, double *flag)
{
    PSL_TRY(ex->reduce(ex, ex->reduce_ctx, out, k));
    return check == PSL_DOT_CHECK_NONE ? PSL_OK : LOCAL(ex)->check(ex, out, check, flag);
}

static psl_status r_dots(psl_exec *ex, psl_vview x, int k, const psl_vview *y, psl_scalar acc,
                         double *out, unsigned check, double *flag)
{
    PSL_TRY(LOCAL(ex)->dots(ex, x, k, y, acc, out, PSL_DOT_CHECK_NONE, NULL));
    return sum_then_check(ex, out, k, check, flag);
}

static psl_status r_cg_residual(psl_exec *ex, psl_sexpr a, psl_vview q, psl_vview r, psl_vview d,
                                psl_vview z, psl_scalar acc, double *out, unsigned check,
                                double *flag)
{
    PSL_TRY(LOCAL(ex)->cg_residual(ex, a, q, r, d, z, acc, out, PSL_DOT_CHECK_NONE, NULL));
    return sum_then_check(ex, out, 2, check, flag);
}

static psl_status r_fcg_update(psl_exec *ex, psl_sexpr a, psl_vview d, psl_vview q, psl_vview x,
                               psl_vview r, psl_scalar acc, double *out)
{
    PSL_TRY(LOCAL(ex)->fcg_update(ex, a, d, q, x, r, acc, out));
    return sum_then_check(ex, out, 1, PSL_DOT_CHECK_NONE, NULL);
}

const psl_backend psl_backend_reducing = {
    .name = "distributed",
    .alloc = r_alloc,
    .free = r_free,
    .to_host = r_to_host,
    .from_host = r_from_host,
    .copy_bytes = r_copy_bytes,
    .sync = r_sync,
    .post_read = r_post_read,
    .take_read = r_take_read,
    .fill = r_fill,
    .scale_copy = r_scale_copy,
    .axpby = r_axpby,
    .maxpy = r_maxpy,
    .diag_scale = r_diag_scale,
    .dots = r_dots,
    .cg_residual = r_cg_residual,
    .cg_update = r_cg_update,
    .fcg_update = r_fcg_update,
    .check = r_check,
};

psl_status psl_exec_set_reduce(psl_exec *ex, psl_exec_reduce_fn fn, void *ctx)
{
    PSL_TRY(psl_exec_check(ex, "psl_exec_set_reduce"));
    if (!fn) {
        if (ex->local_be)
            ex->be = ex->local_be;
        ex->local_be = NULL;
        ex->reduce = NULL;
        ex->reduce_ctx = NULL;
        return PSL_OK;
    }
    if (ex->reduce && (ex->reduce != fn || ex->reduce_ctx != ctx))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_exec_set_reduce: the executor already sums over another "
                         "distributed object; detach it first");
    if (!ex->local_be)
        ex->local_be = ex->be;
    ex->be = &psl_backend_reducing;
    ex->reduce = fn;
    ex->reduce_ctx = ctx;
    return PSL_OK;
}
