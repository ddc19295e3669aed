/*
 * vec.c -- distributed dot products: each rank's partial sums (FP64, row
 * order), gathered in one collective and summed in rank order on every
 * rank, so every rank gets the same bits and a rerun the same bits. A
 * gather rather than MPI_Allreduce: the latter's summation order is the
 * MPI library's choice. Each rank's status travels with its partial sums,
 * so a failure on one rank is every rank's at no extra cost.
 */
#include "dist/dist_internal.h"
#include "codec/half.h"

#include <math.h>

static double entry(const void *v, int64_t i, psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return ((const double *)v)[i];
    case PSL_FP32: return (double)((const float *)v)[i];
    default: return (double)psl_half_to_float(((const uint16_t *)v)[i]);
    }
}

psl_status psl_dist_sum_host(const psl_dist_matrix *A, double *vals, int k, psl_status local)
{
    static const char *who = "a distributed sum";
    psl_status st = local;
    double mine[PSL_DIST_DOTS_MAX + 1] = {0};
    double *all = A->dots_buf; /* no allocation per call */
    if (k < 1 || k > PSL_DIST_DOTS_MAX)
        return psl_error(PSL_ERR_INTERNAL, "psl_dist_sum_host: k = %d", k);
    for (int j = 0; j < k && st == PSL_OK; j++)
        mine[j] = vals[j];
    mine[k] = (double)st;
    double t0 = A->timing ? MPI_Wtime() : 0.0;
    PSL_MPI_OK(MPI_Allgather(mine, k + 1, MPI_DOUBLE, all, k + 1, MPI_DOUBLE, A->comm),
           "MPI_Allgather");
    if (A->timing) {
        psl_dist_timings *tm = (psl_dist_timings *)&A->tm;
        tm->reduce_s += MPI_Wtime() - t0;
        tm->reductions++;
    }
    for (int r = 0; r < A->nranks; r++) {
        psl_status sr = (psl_status)(int)all[(size_t)r * (k + 1) + k];
        if (sr != PSL_OK) {
            if (r != A->rank)
                st = psl_error(sr, "%s: failed on rank %d (%s)", who, r, psl_status_string(sr));
            goto fail;
        }
    }
    for (int j = 0; j < k; j++) {
        double s = 0.0;
        for (int r = 0; r < A->nranks; r++)
            s += all[(size_t)r * (k + 1) + j];
        vals[j] = s;
    }
fail:
    return st;
}

psl_status psl_dist_dots(const psl_dist_matrix *A, int k, const void *const *x,
                         const void *const *y, psl_scalar vec_type, double *results)
{
    static const char *who = "psl_dist_dots";
    PSL_TRY(psl_dist_check(A, who));
    psl_status st = PSL_OK;
    double mine[PSL_DIST_DOTS_MAX] = {0};
    if (k < 1 || k > PSL_DIST_DOTS_MAX) {
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: k = %d outside 1..%d", who, k,
                       PSL_DIST_DOTS_MAX);
        k = 1; /* the size every rank gathers must agree: a bad k is then 1 */
    } else if (psl_dist_vec_size(vec_type) == 0)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %d is not FP64, FP32 or FP16",
                       who, (int)vec_type);
    else if (!results || !x || !y)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: x, y or results is NULL", who);
    else
        for (int j = 0; j < k && st == PSL_OK; j++)
            if (A->nrows > 0 && (!x[j] || !y[j]))
                st = psl_error(PSL_ERR_NULL_POINTER, "%s: x[%d] or y[%d] is NULL", who, j, j);
    if (st == PSL_OK)
        for (int j = 0; j < k; j++) {
            double s = 0.0;
            for (int64_t i = 0; i < A->nrows; i++)
                s += entry(x[j], i, vec_type) * entry(y[j], i, vec_type);
            mine[j] = s;
        }
    st = psl_dist_sum_host(A, mine, k, st);
    if (st == PSL_OK)
        for (int j = 0; j < k; j++)
            results[j] = mine[j];
    return st;
}

psl_status psl_dist_dot(const psl_dist_matrix *A, const void *x, const void *y,
                        psl_scalar vec_type, double *result)
{
    const void *xs[1] = {x}, *ys[1] = {y};
    return psl_dist_dots(A, 1, xs, ys, vec_type, result);
}

psl_status psl_dist_norm2(const psl_dist_matrix *A, const void *x, psl_scalar vec_type,
                          double *result)
{
    double d = 0.0;
    const void *xs[1] = {x};
    PSL_TRY(psl_dist_dots(A, 1, xs, xs, vec_type, &d));
    if (!result)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_dist_norm2: result is NULL");
    *result = sqrt(d);
    return PSL_OK;
}
