/*
 * dspmv.c -- psl_dist_dspmv: y = alpha*A*x + beta*y over the ranks on
 * device vectors, the steps of psl_dist_spmv with psl_dspmv's products:
 * post the receives, gather x[send_idx] into the device send buffer, send
 * (HOST: through pinned host buffers; CUDA_AWARE: MPI on the device
 * buffers; NCCL: grouped ncclSend/ncclRecv on the halo's own stream), y =
 * alpha A_d x + beta y while the halo travels, wait, y += alpha A_o
 * x_ghost.
 *
 * Buffer reuse across calls (any streams): each call's stream first waits
 * for the previous call's last product (ev_done); the host waits for the
 * last reader of the receive buffer (ev_ghost: the previous upload of the
 * ghosts, or its A_o product on device buffers) before posting receives.
 */
#include "dist/cuda/dist_device.h"

#include <string.h>

psl_status psl_dist_dspmv(double alpha, const psl_dist_matrix *A, const void *d_x, double beta,
                          void *d_y, psl_scalar vec_type, void *stream)
{
    static const char *who = "psl_dist_dspmv";
    psl_dist_device *d = NULL;
    PSL_TRY(psl_dist_device_of(A, who, &d));
    psl_status st = PSL_OK;
    int esize = psl_dist_vec_size(vec_type);
    if (esize == 0)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: vector type %d is not FP64, FP32 or FP16",
                       who, (int)vec_type);
    else if (A->nrows > 0 && (!d_x || !d_y))
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: x or y is NULL", who);
    /* A rank with bad arguments still exchanges (zeros) so that no rank
     * waits forever; only its products are skipped. */
    int es = esize ? esize : 8;
    int bad_args = st != PSL_OK;
    psl_dist_keep(&st, psl_cuda_dist_set_device(d->device));
    psl_dist_timings *tm = (psl_dist_timings *)&A->tm; /* the handle's counters */
    double t0 = A->timing ? MPI_Wtime() : 0.0, t1 = 0.0;
    const psl_halo_plan *pl = &A->plan;
    const int64_t nsend = pl->send_off[pl->nsend];
    const size_t send_bytes = (size_t)nsend * es, ghost_bytes = (size_t)A->nghost * es;
    const psl_dist_transport tr = d->transport;
    MPI_Request *req = A->reqs;
    int nreq = 0, rc = MPI_SUCCESS;

    psl_dist_keep(&st, psl_cuda_dist_stream_wait(stream, d->ev_done));
    if (!bad_args)
        psl_dist_keep(&st, psl_cuda_dist_gather(d->send_buf, d_x, d->send_idx, nsend, es, stream));
    else
        psl_dist_keep(&st, psl_cuda_dist_zero(d->send_buf, send_bytes, stream));
    if (tr == PSL_DIST_TRANSPORT_NCCL) {
        psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_sent, stream));
        psl_dist_keep(&st, psl_cuda_dist_stream_wait(d->comm_stream, d->ev_sent));
        psl_dist_keep(&st, psl_dist_nccl_exchange(A, d, es));
        psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_halo, d->comm_stream));
        if (A->timing)
            psl_dist_keep(&st, psl_cuda_dist_stream_sync(stream));
    } else {
        const int host = tr == PSL_DIST_TRANSPORT_HOST;
        unsigned char *rbuf = host ? d->h_ghost : d->ghost_buf;
        unsigned char *sbuf = host ? d->h_send : d->send_buf;
        if (pl->nrecv > 0) /* (no host synchronization where nothing travels: one rank) */
            psl_dist_keep(&st, psl_cuda_dist_event_sync(d->ev_ghost));
        for (int i = 0; i < pl->nrecv && rc == MPI_SUCCESS; i++) {
            int32_t off = pl->recv_off[i], cnt = pl->recv_off[i + 1] - off;
            rc = MPI_Irecv(rbuf + (size_t)es * off, cnt * es, MPI_BYTE, pl->recv_rank[i], 0,
                           A->comm, &req[nreq++]);
        }
        if (nsend > 0) {
            if (host)
                psl_dist_keep(&st, psl_cuda_dist_copy(d->h_send, d->send_buf, send_bytes, stream));
            psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_sent, stream));
            psl_dist_keep(&st, psl_cuda_dist_event_sync(d->ev_sent));
        }
        if (host && st != PSL_OK && send_bytes > 0)
            memset(d->h_send, 0, send_bytes); /* defined contents whatever failed */
        for (int i = 0; i < pl->nsend && rc == MPI_SUCCESS; i++) {
            int64_t off = pl->send_off[i], cnt = pl->send_off[i + 1] - off;
            rc = MPI_Isend(sbuf + (size_t)es * off, (int)cnt * es, MPI_BYTE, pl->send_rank[i], 0,
                           A->comm, &req[nreq++]);
        }
        if (rc != MPI_SUCCESS)
            psl_dist_keep(&st, psl_dist_mpi_error(rc, "MPI_Irecv/MPI_Isend (halo)"));
    }
    if (A->timing)
        t1 = MPI_Wtime(), tm->pack_s += t1 - t0, t0 = t1;

    if (st == PSL_OK && A->nrows > 0)
        st = psl_dspmv(alpha, d->A_d, d_x, beta, d_y, vec_type, d->ws, d->ws_bytes, stream);
    if (A->timing) {
        psl_dist_keep(&st, psl_cuda_dist_stream_sync(stream));
        t1 = MPI_Wtime(), tm->local_s += t1 - t0, t0 = t1;
    }

    if (tr == PSL_DIST_TRANSPORT_NCCL) {
        psl_dist_keep(&st, psl_cuda_dist_stream_wait(stream, d->ev_halo));
        if (A->timing)
            psl_dist_keep(&st, psl_cuda_dist_stream_sync(d->comm_stream));
    } else {
        rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            psl_dist_keep(&st, psl_dist_mpi_error(rc, "MPI_Waitall (halo)"));
    }
    if (A->timing)
        t1 = MPI_Wtime(), tm->wait_s += t1 - t0, t0 = t1;

    if (tr == PSL_DIST_TRANSPORT_HOST) {
        psl_dist_keep(&st, psl_cuda_dist_copy(d->ghost_buf, d->h_ghost, ghost_bytes, stream));
        psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_ghost, stream));
    }
    if (st == PSL_OK && A->nghost > 0)
        st = psl_dspmv(alpha, d->A_o, d->ghost_buf, 1.0, d_y, vec_type, d->ws, d->ws_bytes,
                       stream);
    if (tr == PSL_DIST_TRANSPORT_CUDA_AWARE)
        psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_ghost, stream));
    psl_dist_keep(&st, psl_cuda_dist_event_record(d->ev_done, stream));
    if (A->timing) {
        psl_dist_keep(&st, psl_cuda_dist_stream_sync(stream));
        tm->remote_s += MPI_Wtime() - t0, tm->spmvs++;
    }
    return st;
}
