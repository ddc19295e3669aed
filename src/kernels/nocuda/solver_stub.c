/*
 * solver_stub.c -- the CUDA solver backend of a build without CUDA: creating
 * a CUDA executor answers PSL_ERR_NOT_SUPPORTED, so no entry of the table
 * below is ever called.
 */
#include "internal.h"
#include "solver/backend.h"

psl_status psl_cuda_exec_init(psl_exec *ex)
{
    (void)ex;
    return psl_error(PSL_ERR_NOT_SUPPORTED,
                     "psl_exec_create_cuda: this libpacksell was built without CUDA "
                     "(reconfigure with nvcc present and PSL_ENABLE_CUDA=ON)");
}

void psl_cuda_exec_release(psl_exec *ex) { (void)ex; }

const psl_backend psl_backend_cuda = {.name = "cuda"};

bool psl_cuda_pointer_is_host(const void *p)
{
    (void)p;
    return false;
}
