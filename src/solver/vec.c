/*
 * vec.c -- vectors of the solver layer: owned or viewing, on an executor,
 * and their public operations, each a call of the executor's backend.
 */
#include "solver/solver_internal.h"

#include <math.h>
#include <stdlib.h>

psl_status psl_vec_check(const psl_vec *v, const char *who)
{
    if (!v)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: a vector is NULL", who);
    if (v->magic != PSL_VEC_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE, "%s: not a live vector handle", who);
    return PSL_OK;
}

static psl_status check_new(psl_vec **v, psl_exec *ex, int64_t n, psl_scalar type,
                            const char *who)
{
    if (!v)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: v is NULL", who);
    *v = NULL;
    PSL_TRY(psl_exec_check(ex, who));
    if (n < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: length %lld (>= 0)", who, (long long)n);
    if (!psl_solver_vec_type(type))
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %s (FP64, FP32 or FP16)", who,
                         psl_scalar_display(type));
    if ((uint64_t)n > SIZE_MAX / 8)
        return psl_error(PSL_ERR_SIZE_OVERFLOW, "%s: length %lld too large", who, (long long)n);
    return PSL_OK;
}

psl_status psl_work_new(psl_exec *ex, int64_t n, psl_scalar type, psl_vview *v)
{
    v->data = NULL;
    v->n = n;
    v->type = type;
    return ex->be->alloc(ex, (size_t)n * psl_scalar_size(type), &v->data);
}

void psl_work_free(psl_exec *ex, psl_vview *v)
{
    if (v->data)
        ex->be->free(ex, v->data);
    v->data = NULL;
}

psl_status psl_vec_create(psl_vec **v, psl_exec *ex, int64_t n, psl_scalar type)
{
    PSL_TRY(check_new(v, ex, n, type, "psl_vec_create"));
    psl_vec *w = NULL;
    PSL_TRY(psl_alloc_zero((void **)&w, 1, sizeof *w, "a vector"));
    psl_status st = psl_work_new(ex, n, type, &w->v);
    if (st != PSL_OK) {
        free(w);
        return st;
    }
    w->magic = PSL_VEC_MAGIC;
    w->ex = ex;
    w->owns = true;
    *v = w;
    return PSL_OK;
}

psl_status psl_vec_wrap(psl_vec **v, psl_exec *ex, int64_t n, psl_scalar type, void *data,
                        psl_mem mode)
{
    const char *who = "psl_vec_wrap";
    PSL_TRY(check_new(v, ex, n, type, who));
    if (mode != PSL_MEM_COPY && mode != PSL_MEM_VIEW)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: mode %d (PSL_MEM_COPY or PSL_MEM_VIEW)",
                         who, (int)mode);
    if (!data && n > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: data is NULL for %lld entries", who,
                         (long long)n);
    if (mode == PSL_MEM_VIEW) {
        if (ex->device >= 0 && psl_cuda_pointer_is_host(data))
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "%s: a view on a CUDA executor needs device memory; this array "
                             "is host memory (use PSL_MEM_COPY)", who);
        psl_vec *w = NULL;
        PSL_TRY(psl_alloc_zero((void **)&w, 1, sizeof *w, "a vector"));
        w->magic = PSL_VEC_MAGIC;
        w->ex = ex;
        w->v = (psl_vview){data, n, type};
        w->owns = false;
        *v = w;
        return PSL_OK;
    }
    psl_vec *w = NULL;
    PSL_TRY(psl_vec_create(&w, ex, n, type));
    psl_status st = ex->be->from_host(ex, w->v.data, data, (size_t)n * psl_scalar_size(type));
    if (st != PSL_OK) {
        psl_vec_destroy(&w);
        return st;
    }
    *v = w;
    return PSL_OK;
}

void psl_vec_destroy(psl_vec **v)
{
    if (!v || !*v || (*v)->magic != PSL_VEC_MAGIC)
        return;
    if ((*v)->owns)
        psl_work_free((*v)->ex, &(*v)->v);
    (*v)->magic = PSL_DEAD_MAGIC;
    free(*v);
    *v = NULL;
}

psl_status psl_vec_info(const psl_vec *v, int64_t *n, psl_scalar *type, void **data)
{
    PSL_TRY(psl_vec_check(v, "psl_vec_info"));
    if (n)
        *n = v->v.n;
    if (type)
        *type = v->v.type;
    if (data)
        *data = v->v.data;
    return PSL_OK;
}

/* Host staging: a host array of n doubles converted to/from v's type. */
psl_status psl_vec_set(psl_vec *v, const double *host)
{
    PSL_TRY(psl_vec_check(v, "psl_vec_set"));
    if (!host && v->v.n > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_vec_set: host is NULL");
    psl_exec *ex = v->ex;
    if (v->v.type == PSL_FP64)
        return ex->be->from_host(ex, v->v.data, host, (size_t)v->v.n * sizeof(double));
    /* stage FP64 on the backend, convert there */
    psl_vview t;
    PSL_TRY(psl_work_new(ex, v->v.n, PSL_FP64, &t));
    psl_status st = ex->be->from_host(ex, t.data, host, (size_t)v->v.n * sizeof(double));
    if (st == PSL_OK)
        st = ex->be->scale_copy(ex, psl_sx(1.0), t, v->v);
    if (st == PSL_OK)
        st = ex->be->sync(ex);
    psl_work_free(ex, &t);
    return st;
}

psl_status psl_vec_get(const psl_vec *v, double *host)
{
    PSL_TRY(psl_vec_check(v, "psl_vec_get"));
    if (!host && v->v.n > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_vec_get: host is NULL");
    psl_exec *ex = v->ex;
    if (v->v.type == PSL_FP64)
        return ex->be->to_host(ex, host, v->v.data, (size_t)v->v.n * sizeof(double));
    psl_vview t;
    PSL_TRY(psl_work_new(ex, v->v.n, PSL_FP64, &t));
    psl_status st = ex->be->scale_copy(ex, psl_sx(1.0), v->v, t);
    if (st == PSL_OK)
        st = ex->be->to_host(ex, host, t.data, (size_t)v->v.n * sizeof(double));
    psl_work_free(ex, &t);
    return st;
}

psl_status psl_vec_fill(psl_vec *v, double value)
{
    PSL_TRY(psl_vec_check(v, "psl_vec_fill"));
    return v->ex->be->fill(v->ex, v->v, value);
}

/* Two vectors on one executor with the same length (and type when asked). */
static psl_status check_pair(const psl_vec *x, const psl_vec *y, bool same_type, const char *who)
{
    PSL_TRY(psl_vec_check(x, who));
    PSL_TRY(psl_vec_check(y, who));
    if (x->ex != y->ex)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: the vectors are on different executors",
                         who);
    if (x->v.n != y->v.n)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: lengths %lld and %lld differ", who,
                         (long long)x->v.n, (long long)y->v.n);
    if (same_type && x->v.type != y->v.type)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: types %s and %s differ", who,
                         psl_scalar_display(x->v.type), psl_scalar_display(y->v.type));
    return PSL_OK;
}

psl_status psl_vec_copy(const psl_vec *x, psl_vec *y)
{
    PSL_TRY(check_pair(x, y, false, "psl_vec_copy"));
    if (x == y || (x->v.data == y->v.data && x->v.n > 0))
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_vec_copy: x and y are the same array");
    return y->ex->be->scale_copy(y->ex, psl_sx(1.0), x->v, y->v);
}

psl_status psl_vec_scale(double a, psl_vec *x)
{
    PSL_TRY(psl_vec_check(x, "psl_vec_scale"));
    if (!isfinite(a))
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_vec_scale: a is not finite");
    return x->ex->be->scale_copy(x->ex, psl_sx(a), x->v, x->v);
}

psl_status psl_vec_axpby(double a, const psl_vec *x, double b, psl_vec *y)
{
    PSL_TRY(check_pair(x, y, true, "psl_vec_axpby"));
    if (!isfinite(a) || !isfinite(b))
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_vec_axpby: a or b is not finite");
    return y->ex->be->axpby(y->ex, psl_sx(a), x->v, psl_sx(b), y->v);
}

/* One dot into a slot of the backend, read back. */
static psl_status dot_to_host(psl_exec *ex, psl_vview x, psl_vview y, psl_scalar acc,
                              double *result)
{
    double *slot = NULL;
    PSL_TRY(ex->be->alloc(ex, sizeof(double), (void **)&slot));
    psl_status st = ex->be->dots(ex, x, 1, &y, acc, slot, PSL_DOT_CHECK_NONE, NULL);
    if (st == PSL_OK)
        st = ex->be->to_host(ex, result, slot, sizeof(double));
    ex->be->free(ex, slot);
    return st;
}

static psl_status check_acc(psl_scalar acc, const char *who)
{
    if (acc != PSL_FP64 && acc != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: accumulation type %s (FP64 or FP32)", who,
                         psl_scalar_display(acc));
    return PSL_OK;
}

psl_status psl_vec_dot(const psl_vec *x, const psl_vec *y, psl_scalar acc, double *result)
{
    PSL_TRY(check_pair(x, y, true, "psl_vec_dot"));
    PSL_TRY(check_acc(acc, "psl_vec_dot"));
    if (!result)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_vec_dot: result is NULL");
    return dot_to_host(x->ex, x->v, y->v, acc, result);
}

psl_status psl_vec_norm2(const psl_vec *x, psl_scalar acc, double *result)
{
    PSL_TRY(psl_vec_check(x, "psl_vec_norm2"));
    PSL_TRY(check_acc(acc, "psl_vec_norm2"));
    if (!result)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_vec_norm2: result is NULL");
    double s = 0.0;
    PSL_TRY(dot_to_host(x->ex, x->v, x->v, acc, &s));
    *result = sqrt(s);
    return PSL_OK;
}
