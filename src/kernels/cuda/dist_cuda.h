/*
 * dist_cuda.h -- the CUDA gateway of the distributed layer (libpacksell_mpi,
 * src/dist/cuda/): the halo gather kernel and the few runtime calls the
 * layer makes, as plain C functions of libpacksell (dist_cuda.cu), so that
 * every CUDA runtime call of the process goes through libpacksell's one
 * runtime. Streams and events are cudaStream_t / cudaEvent_t as void*
 * (a NULL stream: the legacy default stream). Every CUDA error becomes
 * PSL_ERR_CUDA naming the call. Internal: never installed.
 */
#ifndef PSL_DIST_CUDA_H
#define PSL_DIST_CUDA_H

#include "packsell.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* buf[k] = x[idx[k]] for k < n, entries of esize bytes (8, 4 or 2), all in
 * device memory, queued on stream (nothing queued when n == 0). */
psl_status psl_cuda_dist_gather(void *buf, const void *x, const int32_t *idx, int64_t n,
                                int esize, void *stream);
/* The same move for any caller: dst[k] = src[idx[k]], or with scatter
 * dst[idx[k]] = src[k] (a reordered CSR-k's x and y, csrk_cuda.cu). */
psl_status psl_cuda_index_move(void *dst, const void *src, const int32_t *idx, int64_t n,
                               int esize, int scatter, void *stream);

/* cudaSetDevice / cudaGetDevice. */
psl_status psl_cuda_dist_set_device(int device);
psl_status psl_cuda_dist_get_device(int *device);
/* The device's 16-byte UUID (tells two ranks on one GPU apart from two GPUs,
 * whatever CUDA_VISIBLE_DEVICES each rank sees). */
psl_status psl_cuda_dist_device_uuid(int device, unsigned char uuid[16]);

/* Device memory (cudaMalloc; bytes 0 allocates 1) and pinned host memory
 * (cudaMallocHost); the frees are NULL-safe. */
psl_status psl_cuda_dist_malloc(void **p, size_t bytes);
void psl_cuda_dist_free(void *p);
psl_status psl_cuda_dist_host_alloc(void **p, size_t bytes);
void psl_cuda_dist_host_free(void *p);

/* cudaMemcpyAsync (cudaMemcpyDefault) and cudaMemsetAsync on stream;
 * bytes 0: nothing queued. */
psl_status psl_cuda_dist_copy(void *dst, const void *src, size_t bytes, void *stream);
psl_status psl_cuda_dist_zero(void *dst, size_t bytes, void *stream);

/* A non-blocking stream of the current device, and its destruction (NULL-safe). */
psl_status psl_cuda_dist_stream_create(void **stream);
void psl_cuda_dist_stream_destroy(void *stream);
psl_status psl_cuda_dist_stream_sync(void *stream);
/* stream waits (on the device) for the work before ev's last record. */
psl_status psl_cuda_dist_stream_wait(void *stream, void *ev);

/* Events without timing (cudaEventDisableTiming); destroy is NULL-safe.
 * Synchronizing an event never recorded returns at once. */
psl_status psl_cuda_dist_event_create(void **ev);
void psl_cuda_dist_event_destroy(void *ev);
psl_status psl_cuda_dist_event_record(void *ev, void *stream);
psl_status psl_cuda_dist_event_sync(void *ev);

#ifdef __cplusplus
}
#endif

#endif /* PSL_DIST_CUDA_H */
