/*
 * gateway.cuh -- the CUDA gateway's error plumbing: every cudaError_t and
 * cusparseStatus_t becomes a psl_status (PSL_ERR_CUDA with the CUDA message
 * and the call that failed), for the .cu files of src/kernels/cuda/.
 *
 * Usage inside a function with one cleanup path:
 *     psl_status st = PSL_OK;
 *     PSL_CUDA_GO(cudaMalloc(&p, n));          // on failure: st set, goto fail
 *     PSL_CUSPARSE_GO(cusparseCreate(&h));
 * or, where nothing needs cleaning up:
 *     PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&dev)));
 */
#ifndef PSL_CUDA_GATEWAY_CUH
#define PSL_CUDA_GATEWAY_CUH

#include "internal.h"

#include <cuda_runtime.h>
#include <cusparse.h>

/* PSL_OK for cudaSuccess; otherwise PSL_ERR_CUDA naming the call. The
 * runtime's last error is cleared (a non-sticky error must not surface again
 * in an unrelated later call). */
static inline psl_status psl_cuda_status(cudaError_t err, const char *call)
{
    if (err == cudaSuccess)
        return PSL_OK;
    (void)cudaGetLastError();
    return psl_error(PSL_ERR_CUDA, "%s failed: %s (%s)", call, cudaGetErrorString(err),
                     cudaGetErrorName(err));
}

/* PSL_OK for CUSPARSE_STATUS_SUCCESS; otherwise PSL_ERR_CUDA naming the call. */
static inline psl_status psl_cusparse_status(cusparseStatus_t err, const char *call)
{
    if (err == CUSPARSE_STATUS_SUCCESS)
        return PSL_OK;
    return psl_error(PSL_ERR_CUDA, "%s failed: cuSPARSE %s (%s)", call,
                     cusparseGetErrorString(err), cusparseGetErrorName(err));
}

#define PSL_CUDA_OK(call) psl_cuda_status((call), #call)
#define PSL_CUSPARSE_OK(call) psl_cusparse_status((call), #call)

/* Run a CUDA / cuSPARSE call; on failure set `st` and jump to `fail`. */
#define PSL_CUDA_GO(call)                         \
    do {                                          \
        st = PSL_CUDA_OK(call);                   \
        if (st != PSL_OK)                         \
            goto fail;                            \
    } while (0)
#define PSL_CUSPARSE_GO(call)                     \
    do {                                          \
        st = PSL_CUSPARSE_OK(call);               \
        if (st != PSL_OK)                         \
            goto fail;                            \
    } while (0)

/* The error of a kernel launch just made (bad configuration, no kernel image
 * for this device, ...), as a psl_status naming the kernel: err, the status
 * a launch call returned, or else the thread's last error (<<<>>>). */
static inline psl_status psl_cuda_launch_status(const char *kernel, cudaError_t err = cudaSuccess)
{
    const cudaError_t last = cudaGetLastError(); /* read (and reset) either way */
    if (err == cudaSuccess)
        err = last;
    if (err == cudaSuccess)
        return PSL_OK;
    return psl_error(PSL_ERR_CUDA, "launch of the %s kernel failed: %s (%s)", kernel,
                     cudaGetErrorString(err), cudaGetErrorName(err));
}

#endif /* PSL_CUDA_GATEWAY_CUH */
