/*
 * device.c -- the device copy of a distributed matrix: psl_dist_matrix_upload
 * (the device picked, the transport agreed over the ranks, the blocks
 * uploaded with their SpMV workspace, the send list, the device halo
 * buffers, pinned host staging, events, NCCL's communicator),
 * psl_dist_matrix_device and the free that psl_dist_matrix_destroy calls.
 */
#include "dist/cuda/dist_device.h"
#include "options.h"

#ifdef OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif
#include <stdlib.h>
#include <string.h>

static const char *who = "psl_dist_matrix_upload";

#define GO(call)              \
    do {                      \
        st = (call);          \
        if (st != PSL_OK)     \
            goto fail;        \
    } while (0)

/* 1 when the MPI library takes device buffers: as PSL_DIST_MPI_CUDA_AWARE
 * declares it, or (auto) as the MPI reports it at run time. An invalid
 * option value counts as auto (the option layer reports it elsewhere). */
static int mpi_cuda_aware(void)
{
    int declared = psl_opt_get_or(PSL_OPT_DIST_MPI_CUDA_AWARE, -1);
    if (declared >= 0)
        return declared;
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

static void device_free(psl_dist_device *d)
{
    if (!d)
        return;
    int cur = -1;
    int switched = psl_cuda_dist_get_device(&cur) == PSL_OK && cur != d->device &&
                   psl_cuda_dist_set_device(d->device) == PSL_OK;
    if (d->comm_stream)
        (void)psl_cuda_dist_stream_sync(d->comm_stream);
    psl_dist_nccl_free(d);
    psl_dmatrix_destroy(&d->A_d); /* synchronizes the device */
    psl_dmatrix_destroy(&d->A_o);
    psl_cuda_dist_free(d->ws);
    psl_cuda_dist_free(d->send_idx);
    psl_cuda_dist_free(d->send_buf);
    psl_cuda_dist_free(d->ghost_buf);
    psl_cuda_dist_free(d->d_scratch);
    psl_cuda_dist_host_free(d->h_send);
    psl_cuda_dist_host_free(d->h_ghost);
    psl_cuda_dist_host_free(d->h_sum);
    psl_cuda_dist_stream_destroy(d->comm_stream);
    psl_cuda_dist_event_destroy(d->ev_sent);
    psl_cuda_dist_event_destroy(d->ev_ghost);
    psl_cuda_dist_event_destroy(d->ev_halo);
    psl_cuda_dist_event_destroy(d->ev_done);
    psl_cuda_dist_event_destroy(d->ev_sum);
    if (switched)
        (void)psl_cuda_dist_set_device(cur);
    free(d);
}

void psl_dist_device_free(psl_dist_matrix *A)
{
    if (A) {
        device_free(A->dev);
        A->dev = NULL;
    }
}

/* The larger of *bytes and the workspace dA needs for any vector type it
 * takes (a type it refuses, e.g. FP16 vectors on a CSR block, which goes
 * through cuSPARSE, is refused again by psl_dspmv when asked for). */
static void max_workspace(const psl_dmatrix *dA, size_t *bytes)
{
    static const psl_scalar types[3] = {PSL_FP64, PSL_FP32, PSL_FP16};
    if (!dA)
        return;
    for (int t = 0; t < 3; t++) {
        size_t b = 0;
        if (psl_dspmv_workspace_size(dA, types[t], &b) == PSL_OK && b > *bytes)
            *bytes = b;
    }
}

/* This rank's device arrays (the current device is d->device). Local. */
static psl_status build(const psl_dist_matrix *A, psl_dist_device *d, void *stream)
{
    psl_status st = PSL_OK;
    int64_t nsend = A->plan.send_off[A->plan.nsend];
    if (A->nrows > 0)
        GO(psl_dmatrix_upload(&d->A_d, A->A_d, stream));
    if (A->nghost > 0)
        GO(psl_dmatrix_upload(&d->A_o, A->A_o, stream));
    max_workspace(d->A_d, &d->ws_bytes);
    max_workspace(d->A_o, &d->ws_bytes);
    if (d->ws_bytes > 0)
        GO(psl_cuda_dist_malloc(&d->ws, d->ws_bytes));
    GO(psl_cuda_dist_malloc((void **)&d->send_idx, (size_t)nsend * sizeof(int32_t)));
    GO(psl_cuda_dist_copy(d->send_idx, A->plan.send_idx, (size_t)nsend * sizeof(int32_t),
                          stream));
    GO(psl_cuda_dist_malloc((void **)&d->send_buf, (size_t)nsend * 8));
    GO(psl_cuda_dist_malloc((void **)&d->ghost_buf, (size_t)A->nghost * 8));
    if (d->transport == PSL_DIST_TRANSPORT_HOST) {
        GO(psl_cuda_dist_host_alloc((void **)&d->h_send, (size_t)nsend * 8));
        GO(psl_cuda_dist_host_alloc((void **)&d->h_ghost, (size_t)A->nghost * 8));
    }
    if (d->transport == PSL_DIST_TRANSPORT_NCCL) {
        GO(psl_cuda_dist_malloc((void **)&d->d_scratch, PSL_DIST_DOTS_MAX * sizeof(double)));
        GO(psl_cuda_dist_stream_create(&d->comm_stream));
    } else {
        GO(psl_cuda_dist_host_alloc((void **)&d->h_sum, PSL_DIST_DOTS_MAX * sizeof(double)));
    }
    GO(psl_cuda_dist_event_create(&d->ev_sent));
    GO(psl_cuda_dist_event_create(&d->ev_ghost));
    GO(psl_cuda_dist_event_create(&d->ev_halo));
    GO(psl_cuda_dist_event_create(&d->ev_done));
    GO(psl_cuda_dist_event_create(&d->ev_sum));
    GO(psl_cuda_dist_stream_sync(stream)); /* the host's send list may be read no more */
fail:
    return st;
}

psl_status psl_dist_matrix_upload(psl_dist_matrix *A, int device, psl_dist_transport transport,
                                  void *stream)
{
    PSL_TRY(psl_dist_check(A, who));
    psl_status st = PSL_OK;
    psl_dist_device *d = NULL;
    MPI_Comm node = MPI_COMM_NULL;
    unsigned char *uuids = NULL, mine[16] = {0};
    int count = 0, nrank = 0, nsize = 1;
    psl_dist_device_free(A); /* a new copy replaces the old one (none on error) */

    if (device < -1)
        st = psl_error(PSL_ERR_INVALID_VALUE,
                       "%s: device %d: give a device number or -1 (the node-local rank modulo "
                       "the device count)",
                       who, device);
    else if ((int)transport < (int)PSL_DIST_TRANSPORT_AUTO ||
             (int)transport > (int)PSL_DIST_TRANSPORT_NCCL)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: transport %d is not a psl_dist_transport",
                       who, (int)transport);
    else if ((st = psl_cuda_device_count(&count)) == PSL_OK && count == 0)
        st = psl_error(PSL_ERR_CUDA, "%s: no CUDA device on this node", who);
    else if (st == PSL_OK && device >= count)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: device %d, but this node has %d CUDA devices",
                       who, device, count);
    /* the node-local rank (collective: every rank takes part) */
    PSL_MPI_OK(MPI_Comm_split_type(A->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
               "MPI_Comm_split_type");
    PSL_MPI_OK(MPI_Comm_rank(node, &nrank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(node, &nsize), "MPI_Comm_size");
    if (st == PSL_OK) {
        d = calloc(1, sizeof *d);
        uuids = malloc((size_t)nsize * 16);
        if (!d || !uuids)
            st = psl_error(PSL_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    }
    if (st == PSL_OK) {
        d->device = device >= 0 ? device : nrank % count;
        st = psl_cuda_dist_set_device(d->device);
        if (st == PSL_OK)
            st = psl_cuda_dist_device_uuid(d->device, mine);
    }
    GO(psl_dist_agree(A->comm, st));

    /* which transports every rank can use: NCCL needs a GPU per rank */
    PSL_MPI_OK(MPI_Allgather(mine, 16, MPI_BYTE, uuids, 16, MPI_BYTE, node), "MPI_Allgather");
    int shared = 0;
    for (int r = 0; r < nsize; r++)
        if (r != nrank && memcmp(uuids + 16 * (size_t)r, mine, 16) == 0)
            shared = 1;
    int avail[2] = {psl_dist_nccl_built() && !shared, mpi_cuda_aware()}, all[2];
    PSL_MPI_OK(MPI_Allreduce(avail, all, 2, MPI_INT, MPI_MIN, A->comm), "MPI_Allreduce");
    psl_dist_transport t = transport;
    if (t == PSL_DIST_TRANSPORT_AUTO) /* NCCL only when asked, until measured faster */
        t = all[1] ? PSL_DIST_TRANSPORT_CUDA_AWARE : PSL_DIST_TRANSPORT_HOST;
    else if (t == PSL_DIST_TRANSPORT_NCCL && !all[0]) {
        if (!psl_dist_nccl_built())
            st = psl_error(PSL_ERR_NOT_SUPPORTED,
                           "%s: NCCL transport: this libpacksell_mpi was built without NCCL "
                           "(PSL_WITH_NCCL)",
                           who);
        else
            st = psl_error(PSL_ERR_NOT_SUPPORTED,
                           "%s: NCCL transport: NCCL needs one GPU per rank, and %s (device "
                           "%d here); use PSL_DIST_TRANSPORT_HOST or fewer ranks per node",
                           who,
                           shared ? "this rank shares its GPU with another rank of its node"
                                  : "two ranks of a node share a GPU",
                           d->device);
        goto fail;
    } else if (t == PSL_DIST_TRANSPORT_CUDA_AWARE && !all[1]) {
        st = psl_error(PSL_ERR_NOT_SUPPORTED,
                       "%s: CUDA-aware transport: the MPI library does not report CUDA "
                       "awareness (MPIX_Query_cuda_support) on every rank (set "
                       "PSL_DIST_MPI_CUDA_AWARE=1 for an MPI that takes device buffers "
                       "without saying so)",
                       who);
        goto fail;
    }
    d->transport = t;

    GO(psl_dist_agree(A->comm, build(A, d, stream)));
    if (t == PSL_DIST_TRANSPORT_NCCL)
        GO(psl_dist_nccl_init(A, d));
    A->dev = d;
    d = NULL;
fail:
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    free(uuids);
    device_free(d);
    return st;
}

psl_status psl_dist_matrix_device(const psl_dist_matrix *A, int *device,
                                  psl_dist_transport *transport)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_device"));
    if (device)
        *device = A->dev ? A->dev->device : -1;
    if (transport)
        *transport = A->dev ? A->dev->transport : PSL_DIST_TRANSPORT_AUTO;
    return PSL_OK;
}
