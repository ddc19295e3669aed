/*
 * nccl.c -- the NCCL transport of a device-resident distributed matrix: the
 * communicator (unique id from rank 0 broadcast over MPI), the grouped
 * ncclSend/ncclRecv of the halo and ncclAllReduce of the device sums. In a
 * build without NCCL (PSL_WITH_NCCL off or not found) the same entries say
 * so with PSL_ERR_NOT_SUPPORTED.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "dist/cuda/dist_device.h"

#ifdef PSL_HAVE_NCCL
#include <nccl.h>

#include <stdlib.h>
#include <string.h>

static psl_status nccl_status(ncclResult_t r, const char *call)
{
    if (r == ncclSuccess)
        return PSL_OK;
    return psl_error(PSL_ERR_CUDA, "%s failed: NCCL %s", call, ncclGetErrorString(r));
}

#define NCCL_OK(call) nccl_status((call), #call)

int psl_dist_nccl_built(void)
{
    return 1;
}

psl_status psl_dist_nccl_init(const psl_dist_matrix *A, psl_dist_device *dev)
{
    /* the id and rank 0's status travel together */
    struct {
        ncclUniqueId id;
        int status;
    } msg;
    memset(&msg, 0, sizeof msg);
    psl_status st = PSL_OK;
    /* NVLink multicast (NVLS) stays off, whatever the environment says; set
     * before NCCL's first call, which may read its environment */
    if (setenv("NCCL_NVLS_ENABLE", "0", 1) != 0)
        st = psl_error(PSL_ERR_INTERNAL, "setenv(NCCL_NVLS_ENABLE=0) failed");
    if ((st = psl_dist_agree(A->comm, st)) != PSL_OK)
        goto fail;
    if (A->rank == 0) {
        st = NCCL_OK(ncclGetUniqueId(&msg.id));
        msg.status = (int)st;
    }
    PSL_MPI_OK(MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, A->comm), "MPI_Bcast (NCCL id)");
    if (msg.status != PSL_OK) {
        if (A->rank != 0)
            st = psl_error((psl_status)msg.status, "ncclGetUniqueId failed on rank 0");
        goto fail;
    }
    ncclComm_t c = NULL;
    st = NCCL_OK(ncclCommInitRank(&c, A->nranks, msg.id, A->rank));
    dev->nccl = st == PSL_OK ? (void *)c : NULL;
    st = psl_dist_agree(A->comm, st);
fail:
    return st;
}

void psl_dist_nccl_free(psl_dist_device *dev)
{
    if (dev && dev->nccl) {
        (void)ncclCommDestroy((ncclComm_t)dev->nccl);
        dev->nccl = NULL;
    }
}

psl_status psl_dist_nccl_exchange(const psl_dist_matrix *A, const psl_dist_device *dev, int es)
{
    const psl_halo_plan *pl = &A->plan;
    ncclComm_t c = (ncclComm_t)dev->nccl;
    cudaStream_t s = (cudaStream_t)dev->comm_stream;
    psl_status st = NCCL_OK(ncclGroupStart());
    if (st != PSL_OK)
        return st;
    for (int i = 0; i < pl->nrecv && st == PSL_OK; i++) {
        int32_t off = pl->recv_off[i], cnt = pl->recv_off[i + 1] - off;
        st = NCCL_OK(ncclRecv(dev->ghost_buf + (size_t)es * off, (size_t)cnt * es, ncclUint8,
                              pl->recv_rank[i], c, s));
    }
    for (int i = 0; i < pl->nsend && st == PSL_OK; i++) {
        int64_t off = pl->send_off[i], cnt = pl->send_off[i + 1] - off;
        st = NCCL_OK(ncclSend(dev->send_buf + (size_t)es * off, (size_t)cnt * es, ncclUint8,
                              pl->send_rank[i], c, s));
    }
    psl_status end = NCCL_OK(ncclGroupEnd()); /* always closes the group */
    return st != PSL_OK ? st : end;
}

psl_status psl_dist_nccl_sum(const psl_dist_device *dev, double *vals, int k, void *stream)
{
    return NCCL_OK(ncclAllReduce(vals, vals, (size_t)k, ncclDouble, ncclSum,
                                 (ncclComm_t)dev->nccl, (cudaStream_t)stream));
}

#else /* no NCCL */

#define PSL_NO_NCCL_MSG                                                                    \
    "this libpacksell_mpi was built without NCCL (PSL_WITH_NCCL: nccl.h and libnccl not "  \
    "found, or OFF)"

int psl_dist_nccl_built(void)
{
    return 0;
}

psl_status psl_dist_nccl_init(const psl_dist_matrix *A, psl_dist_device *dev)
{
    (void)A;
    (void)dev;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "NCCL transport: %s", PSL_NO_NCCL_MSG);
}

void psl_dist_nccl_free(psl_dist_device *dev)
{
    (void)dev;
}

psl_status psl_dist_nccl_exchange(const psl_dist_matrix *A, const psl_dist_device *dev, int es)
{
    (void)A;
    (void)dev;
    (void)es;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "NCCL transport: %s", PSL_NO_NCCL_MSG);
}

psl_status psl_dist_nccl_sum(const psl_dist_device *dev, double *vals, int k, void *stream)
{
    (void)dev;
    (void)vals;
    (void)k;
    (void)stream;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "NCCL transport: %s", PSL_NO_NCCL_MSG);
}

#endif
