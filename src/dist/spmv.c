/*
 * spmv.c -- y = alpha*A*x + beta*y over the ranks, the halo exchange
 * overlapped with the diagonal block: post the receives, pack and send,
 * y = alpha A_d x + beta y, wait, y += alpha A_o x_ghost. Entries travel in
 * the vectors' type, as bytes. psl_dist_halo_gather is the exchange alone.
 */
#include "dist/dist_internal.h"

#include <string.h>

/* Gather x[idx[k]] (esize bytes each) into buf. */
static void pack(unsigned char *buf, const unsigned char *x, const int32_t *idx, int64_t n,
                 int esize)
{
    switch (esize) {
    case 8:
        for (int64_t k = 0; k < n; k++)
            memcpy(buf + 8 * k, x + 8 * (size_t)idx[k], 8);
        break;
    case 4:
        for (int64_t k = 0; k < n; k++)
            memcpy(buf + 4 * k, x + 4 * (size_t)idx[k], 4);
        break;
    default:
        for (int64_t k = 0; k < n; k++)
            memcpy(buf + 2 * k, x + 2 * (size_t)idx[k], 2);
        break;
    }
}

/* Post the receives of A's ghosts and send this rank's entries of x (esize
 * bytes each; zeros when ok is 0, so that no rank waits forever) into
 * A->reqs; returns the requests posted, *rc the first MPI failure. */
static int halo_post(const psl_dist_matrix *A, const void *x, int esize, int ok, int *rc)
{
    const psl_halo_plan *pl = &A->plan;
    MPI_Request *req = A->reqs;
    int nreq = 0;
    *rc = MPI_SUCCESS;
    for (int i = 0; i < pl->nrecv && *rc == MPI_SUCCESS; i++) {
        int32_t off = pl->recv_off[i], cnt = pl->recv_off[i + 1] - off;
        *rc = MPI_Irecv(A->ghost_buf + (size_t)esize * off, cnt * esize, MPI_BYTE,
                        pl->recv_rank[i], 0, A->comm, &req[nreq++]);
    }
    int64_t nsend = pl->send_off[pl->nsend];
    if (ok)
        pack(A->send_buf, x, pl->send_idx, nsend, esize);
    else
        memset(A->send_buf, 0, (size_t)nsend * esize);
    for (int i = 0; i < pl->nsend && *rc == MPI_SUCCESS; i++) {
        int64_t off = pl->send_off[i], cnt = pl->send_off[i + 1] - off;
        *rc = MPI_Isend(A->send_buf + (size_t)esize * off, (int)cnt * esize, MPI_BYTE,
                        pl->send_rank[i], 0, A->comm, &req[nreq++]);
    }
    return nreq;
}

psl_status psl_dist_halo_gather(const psl_dist_matrix *A, const void *x, int esize)
{
    int rc;
    int nreq = halo_post(A, x, esize, 1, &rc);
    psl_status st = rc == MPI_SUCCESS ? PSL_OK : psl_dist_mpi_error(rc, "MPI_Irecv/MPI_Isend (halo)");
    rc = MPI_Waitall(nreq, A->reqs, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS && st == PSL_OK)
        st = psl_dist_mpi_error(rc, "MPI_Waitall (halo)");
    return psl_dist_agree(A->comm, st);
}

psl_status psl_dist_spmv(double alpha, const psl_dist_matrix *A, const void *x, double beta,
                         void *y, psl_scalar vec_type)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_spmv"));
    psl_status st = PSL_OK;
    int esize = psl_dist_vec_size(vec_type);
    if (esize == 0)
        st = psl_error(PSL_ERR_INVALID_VALUE,
                       "psl_dist_spmv: vector type %d is not FP64, FP32 or FP16", (int)vec_type);
    else if (A->nrows > 0 && (!x || !y))
        st = psl_error(PSL_ERR_NULL_POINTER, "psl_dist_spmv: x or y is NULL");
    /* A rank with bad arguments still exchanges (zeros) so that no rank
     * waits forever; only its product is skipped. */
    int es = esize ? esize : 8;
    psl_dist_timings *tm = (psl_dist_timings *)&A->tm; /* the handle's counters */
    double t0 = A->timing ? MPI_Wtime() : 0.0, t1 = 0.0;
    int rc;
    int nreq = halo_post(A, x, es, st == PSL_OK, &rc);
    if (rc != MPI_SUCCESS && st == PSL_OK)
        st = psl_dist_mpi_error(rc, "MPI_Irecv/MPI_Isend (halo)");
    if (A->timing)
        t1 = MPI_Wtime(), tm->pack_s += t1 - t0, t0 = t1;
    if (st == PSL_OK && A->nrows > 0)
        st = psl_spmv(alpha, A->A_d, x, beta, y, vec_type);
    if (A->timing)
        t1 = MPI_Wtime(), tm->local_s += t1 - t0, t0 = t1;
    rc = MPI_Waitall(nreq, A->reqs, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS && st == PSL_OK)
        st = psl_dist_mpi_error(rc, "MPI_Waitall (halo)");
    if (A->timing)
        t1 = MPI_Wtime(), tm->wait_s += t1 - t0, t0 = t1;
    if (st == PSL_OK && A->nghost > 0)
        st = psl_spmv(alpha, A->A_o, A->ghost_buf, 1.0, y, vec_type);
    if (A->timing)
        tm->remote_s += MPI_Wtime() - t0, tm->spmvs++;
    return st;
}
