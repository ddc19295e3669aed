/*
 * dist_cuda.cu -- the CUDA gateway of the distributed layer (dist_cuda.h):
 * the kernel gathering the entries of x that the other ranks need into the
 * send buffer (also the index moves of a reordered CSR-k), and thin wrappers of the runtime calls libpacksell_mpi makes,
 * each error turned into a psl_status.
 */
#include "gateway.cuh"
#include "kernels/cuda/dist_cuda.h"

#include <string.h>

/* dst[k] = src[idx[k]] (gather) or dst[idx[k]] = src[k] (scatter). */
template <class T>
__global__ void psl_index_move_kernel(T *__restrict__ dst, const T *__restrict__ src,
                                      const int32_t *__restrict__ idx, int64_t n, bool scatter)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        if (scatter)
            dst[idx[k]] = src[k];
        else
            dst[k] = src[idx[k]];
    }
}

template <class T>
static psl_status move_launch(void *dst, const void *src, const int32_t *idx, int64_t n,
                              bool scatter, cudaStream_t s, const char *what)
{
    const int block = 256;
    int64_t blocks = (n + block - 1) / block;
    if (blocks > 65535)
        blocks = 65535; /* the loop strides over the rest */
    psl_index_move_kernel<T>
        <<<(unsigned)blocks, block, 0, s>>>((T *)dst, (const T *)src, idx, n, scatter);
    return psl_cuda_launch_status(what);
}

static psl_status index_move(void *dst, const void *src, const int32_t *idx, int64_t n,
                             int esize, bool scatter, void *stream, const char *what)
{
    if (n <= 0)
        return PSL_OK;
    cudaStream_t s = (cudaStream_t)stream;
    switch (esize) {
    case 8: return move_launch<uint64_t>(dst, src, idx, n, scatter, s, what);
    case 4: return move_launch<uint32_t>(dst, src, idx, n, scatter, s, what);
    case 2: return move_launch<uint16_t>(dst, src, idx, n, scatter, s, what);
    default:
        return psl_error(PSL_ERR_INTERNAL, "%s: entry size %d", what, esize);
    }
}

extern "C" psl_status psl_cuda_dist_gather(void *buf, const void *x, const int32_t *idx,
                                           int64_t n, int esize, void *stream)
{
    return index_move(buf, x, idx, n, esize, false, stream, "halo gather");
}

extern "C" psl_status psl_cuda_index_move(void *dst, const void *src, const int32_t *idx,
                                          int64_t n, int esize, int scatter, void *stream)
{
    return index_move(dst, src, idx, n, esize, scatter != 0, stream, "index move");
}

extern "C" psl_status psl_cuda_dist_set_device(int device)
{
    return PSL_CUDA_OK(cudaSetDevice(device));
}

extern "C" psl_status psl_cuda_dist_get_device(int *device)
{
    return PSL_CUDA_OK(cudaGetDevice(device));
}

extern "C" psl_status psl_cuda_dist_device_uuid(int device, unsigned char uuid[16])
{
    cudaDeviceProp p;
    PSL_TRY(PSL_CUDA_OK(cudaGetDeviceProperties(&p, device)));
    memcpy(uuid, p.uuid.bytes, 16);
    return PSL_OK;
}

extern "C" psl_status psl_cuda_dist_malloc(void **p, size_t bytes)
{
    *p = NULL;
    return PSL_CUDA_OK(cudaMalloc(p, bytes > 0 ? bytes : 1));
}

extern "C" void psl_cuda_dist_free(void *p)
{
    if (p) {
        (void)cudaFree(p);
        (void)cudaGetLastError();
    }
}

extern "C" psl_status psl_cuda_dist_host_alloc(void **p, size_t bytes)
{
    *p = NULL;
    return PSL_CUDA_OK(cudaMallocHost(p, bytes > 0 ? bytes : 1));
}

extern "C" void psl_cuda_dist_host_free(void *p)
{
    if (p) {
        (void)cudaFreeHost(p);
        (void)cudaGetLastError();
    }
}

extern "C" psl_status psl_cuda_dist_copy(void *dst, const void *src, size_t bytes, void *stream)
{
    if (bytes == 0)
        return PSL_OK;
    return PSL_CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
}

extern "C" psl_status psl_cuda_dist_zero(void *dst, size_t bytes, void *stream)
{
    if (bytes == 0)
        return PSL_OK;
    return PSL_CUDA_OK(cudaMemsetAsync(dst, 0, bytes, (cudaStream_t)stream));
}

extern "C" psl_status psl_cuda_dist_stream_create(void **stream)
{
    cudaStream_t s = NULL;
    *stream = NULL;
    PSL_TRY(PSL_CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)));
    *stream = (void *)s;
    return PSL_OK;
}

extern "C" void psl_cuda_dist_stream_destroy(void *stream)
{
    if (stream) {
        (void)cudaStreamDestroy((cudaStream_t)stream);
        (void)cudaGetLastError();
    }
}

extern "C" psl_status psl_cuda_dist_stream_sync(void *stream)
{
    return PSL_CUDA_OK(cudaStreamSynchronize((cudaStream_t)stream));
}

extern "C" psl_status psl_cuda_dist_stream_wait(void *stream, void *ev)
{
    return PSL_CUDA_OK(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)ev, 0));
}

extern "C" psl_status psl_cuda_dist_event_create(void **ev)
{
    cudaEvent_t e = NULL;
    *ev = NULL;
    PSL_TRY(PSL_CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)));
    *ev = (void *)e;
    return PSL_OK;
}

extern "C" void psl_cuda_dist_event_destroy(void *ev)
{
    if (ev) {
        (void)cudaEventDestroy((cudaEvent_t)ev);
        (void)cudaGetLastError();
    }
}

extern "C" psl_status psl_cuda_dist_event_record(void *ev, void *stream)
{
    return PSL_CUDA_OK(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)stream));
}

extern "C" psl_status psl_cuda_dist_event_sync(void *ev)
{
    return PSL_CUDA_OK(cudaEventSynchronize((cudaEvent_t)ev));
}
