/*
 * exec.c -- executors: the CPU one and the CUDA one (a device and stream),
 * each a backend table (backend.h) the vectors and solvers run on.
 */
#include "solver/solver_internal.h"

#include <stdlib.h>

psl_status psl_exec_check(const psl_exec *ex, const char *who)
{
    if (!ex)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: the executor is NULL", who);
    if (ex->magic != PSL_EXEC_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE, "%s: not a live executor handle", who);
    return PSL_OK;
}

psl_status psl_exec_create_cpu(psl_exec **ex)
{
    if (!ex)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_exec_create_cpu: ex is NULL");
    *ex = NULL;
    psl_exec *e = NULL;
    PSL_TRY(psl_alloc_zero((void **)&e, 1, sizeof *e, "an executor"));
    e->magic = PSL_EXEC_MAGIC;
    e->be = &psl_backend_cpu;
    e->device = -1;
    *ex = e;
    return PSL_OK;
}

psl_status psl_exec_create_cuda(psl_exec **ex, int device, void *stream)
{
    if (!ex)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_exec_create_cuda: ex is NULL");
    *ex = NULL;
    if (device < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_exec_create_cuda: device %d (>= 0)", device);
    psl_exec *e = NULL;
    PSL_TRY(psl_alloc_zero((void **)&e, 1, sizeof *e, "an executor"));
    e->magic = PSL_EXEC_MAGIC;
    e->be = &psl_backend_cuda;
    e->device = device;
    e->stream = stream;
    psl_status st = psl_cuda_exec_init(e);
    if (st != PSL_OK) {
        free(e);
        return st;
    }
    *ex = e;
    return PSL_OK;
}

void psl_exec_destroy(psl_exec **ex)
{
    if (!ex || !*ex || (*ex)->magic != PSL_EXEC_MAGIC)
        return;
    if ((*ex)->device >= 0)
        psl_cuda_exec_release(*ex);
    (*ex)->magic = PSL_DEAD_MAGIC;
    free(*ex);
    *ex = NULL;
}

psl_status psl_exec_synchronize(psl_exec *ex)
{
    PSL_TRY(psl_exec_check(ex, "psl_exec_synchronize"));
    return ex->be->sync(ex);
}

int psl_exec_is_cuda(const psl_exec *ex)
{
    return ex && ex->magic == PSL_EXEC_MAGIC && ex->device >= 0;
}
