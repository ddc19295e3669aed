/*
 * device_sum.c -- psl_dist_device_sum: k doubles in device memory summed
 * over the ranks, in place. Through the host (HOST and CUDA_AWARE
 * transports): copied to pinned memory, psl_dist_sum_host (the rank-order
 * sum of psl_dist_dots, the status agreed with it), copied back on the
 * stream. NCCL: ncclAllReduce in place on the stream.
 */
#include "dist/cuda/dist_device.h"

psl_status psl_dist_device_sum(const psl_dist_matrix *A, double *d_vals, int k, void *stream)
{
    static const char *who = "psl_dist_device_sum";
    psl_dist_device *d = NULL;
    PSL_TRY(psl_dist_device_of(A, who, &d));
    psl_status st = PSL_OK;
    if (k < 1 || k > PSL_DIST_DOTS_MAX) {
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: k = %d outside 1..%d", who, k,
                       PSL_DIST_DOTS_MAX);
        k = 1; /* every rank reduces the same size: a bad k is then 1 */
    } else if (!d_vals)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: d_vals is NULL", who);
    int bad_args = st != PSL_OK;
    psl_dist_keep(&st, psl_cuda_dist_set_device(d->device));
    double t0 = A->timing ? MPI_Wtime() : 0.0;
    const size_t bytes = (size_t)k * sizeof(double);

    if (d->transport == PSL_DIST_TRANSPORT_NCCL) {
        /* a call with bad arguments reduces zeros, so that no rank waits */
        double *buf = bad_args ? d->d_scratch : d_vals;
        if (bad_args)
            psl_dist_keep(&st, psl_cuda_dist_zero(buf, bytes, stream));
        psl_dist_keep(&st, psl_dist_nccl_sum(d, buf, k, stream));
        if (A->timing)
            psl_dist_keep(&st, psl_cuda_dist_stream_sync(stream));
    } else {
        psl_dist_keep(&st, psl_cuda_dist_event_sync(d->ev_sum)); /* h_sum's last copy back done */
        if (st == PSL_OK) {
            psl_dist_keep(&st, psl_cuda_dist_copy(d->h_sum, d_vals, bytes, stream));
            psl_dist_keep(&st, psl_cuda_dist_stream_sync(stream));
        }
        st = psl_dist_sum_host(A, d->h_sum, k, st);
        if (st == PSL_OK) {
            st = psl_cuda_dist_copy(d_vals, d->h_sum, bytes, stream);
            psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_sum, stream));
        }
    }
    psl_dist_count_reduction(A, t0);
    return st;
}
