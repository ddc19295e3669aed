/*
 * pointer.cu -- what kind of memory a caller's pointer is, for the vectors of
 * a CUDA executor (a view must be device or managed memory).
 */
#include <cuda_runtime.h>

#include "internal.h"
#include "solver/backend.h"

extern "C" bool psl_cuda_pointer_is_host(const void *p)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not known to CUDA: plain host memory */
        return true;
    }
    return a.type == cudaMemoryTypeUnregistered; /* pinned host memory is mapped: usable */
}
