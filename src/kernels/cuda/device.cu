/*
 * device.cu -- the CUDA gateway's device queries (extern "C"), every CUDA
 * error turned into a psl_status.
 */
#include "internal.h"

#include <cuda_runtime.h>

extern "C" psl_status psl_cuda_device_count(int *count)
{
    if (!count)
        return psl_error(PSL_ERR_NULL_POINTER, "count is NULL");
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError();
        *count = 0;
        return PSL_OK;
    }
    if (err != cudaSuccess)
        return psl_error(PSL_ERR_CUDA, "cudaGetDeviceCount: %s", cudaGetErrorString(err));
    *count = n;
    return PSL_OK;
}
