/*
 * dist_device.h -- the device copy of a distributed matrix
 * (psl_dist_matrix_upload): its blocks on the GPU, the halo buffers of its
 * transport, and the NCCL transport's entry points (nccl.c). Built only
 * with CUDA; every CUDA call goes through kernels/cuda/dist_cuda.h.
 */
#ifndef PSL_DIST_DEVICE_H
#define PSL_DIST_DEVICE_H

#include "dist/dist_internal.h"
#include "kernels/cuda/dist_cuda.h"

typedef struct psl_dist_device {
    int device;                   /* the CUDA device */
    psl_dist_transport transport; /* HOST, CUDA_AWARE or NCCL: the same on every rank */
    psl_dmatrix *A_d, *A_o;       /* NULL when nrows == 0 / nghost == 0 */
    void *ws;                     /* psl_dspmv workspace, the largest either block
                                     needs for any vector type (they run in turn) */
    size_t ws_bytes;
    int32_t *send_idx;            /* the plan's send_idx on the device */
    unsigned char *send_buf;      /* device, 8 bytes per entry sent */
    unsigned char *ghost_buf;     /* device, 8 bytes per ghost */
    unsigned char *h_send, *h_ghost; /* pinned host staging (HOST transport) */
    double *h_sum;                /* pinned, PSL_DIST_DOTS_MAX (device sums through the host) */
    double *d_scratch;            /* device, PSL_DIST_DOTS_MAX (the NCCL sum of a bad call: zeros) */
    void *comm_stream;            /* NCCL: the halo's own stream, so that A_d overlaps it */
    void *ev_sent;   /* the send buffer is on the host (HOST) / gathered (CUDA_AWARE, NCCL) */
    void *ev_ghost;  /* the last reader of the receive buffer is done */
    void *ev_halo;   /* NCCL: the exchange is done (on comm_stream) */
    void *ev_done;   /* the last SpMV's A_o product is done */
    void *ev_sum;    /* the last device sum's copy back from h_sum is done */
    void *nccl;      /* ncclComm_t (NCCL transport) */
} psl_dist_device;

/* Keep the first error in *st; later steps still run (an exchange must, so
 * that no rank waits forever). */
static inline void psl_dist_keep(psl_status *st, psl_status s)
{
    if (*st == PSL_OK)
        *st = s;
}

/* A live handle with a device copy: *d = A->dev; else the error naming who
 * (PSL_ERR_INVALID_VALUE when there is no copy). */
static inline psl_status psl_dist_device_of(const psl_dist_matrix *A, const char *who,
                                            psl_dist_device **d)
{
    PSL_TRY(psl_dist_check(A, who));
    if (!A->dev)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: the matrix has no device copy (psl_dist_matrix_upload)", who);
    *d = A->dev;
    return PSL_OK;
}

/* 1 when the library was built with NCCL. */
int psl_dist_nccl_built(void);

/* Create dev->nccl over A's ranks (collective; every rank the same status):
 * the unique id made on rank 0 and broadcast over A's communicator,
 * NCCL_NVLS_ENABLE=0 set in the environment first (NVLink multicast off).
 * The current device must be dev->device. */
psl_status psl_dist_nccl_init(const psl_dist_matrix *A, psl_dist_device *dev);

/* Destroy dev->nccl (NULL-safe). */
void psl_dist_nccl_free(psl_dist_device *dev);

/* The halo exchange of one SpMV on the comm stream, grouped: ncclRecv of
 * each neighbour's ghosts into ghost_buf, ncclSend of send_buf's parts;
 * es bytes per entry. */
psl_status psl_dist_nccl_exchange(const psl_dist_matrix *A, const psl_dist_device *dev, int es);

/* In-place sum of k doubles in device memory over the ranks on stream
 * (ncclAllReduce). */
psl_status psl_dist_nccl_sum(const psl_dist_device *dev, double *vals, int k, void *stream);

#endif /* PSL_DIST_DEVICE_H */
