/*
 * cuda_stub.c -- the CUDA gateway of a build without CUDA: every call
 * answers PSL_ERR_NOT_SUPPORTED, everything else in the library works.
 */
#include "internal.h"

psl_status psl_cuda_device_count(int *count)
{
    if (count)
        *count = 0;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "this libpacksell was built without CUDA");
}
