/*
 * dspmv.cu -- psl_dspmv and psl_dspmv_workspace_size (extern "C"): every
 * argument checked before anything is launched (so a bad call never touches
 * y), then the kernel of the matrix's format on the caller's stream. No
 * allocation, no synchronization: capturable into a CUDA graph.
 */
#include "dmatrix.cuh"
#include "format/csr/csr.h"
#include "format/format_ops.h"
#include "format/sliced/sliced.h"

/* Check a device matrix handle. */
static psl_status psl_dcheck(const psl_dmatrix *dA)
{
    if (!dA)
        return psl_error(PSL_ERR_NULL_POINTER, "device matrix handle is NULL");
    if (dA->magic != PSL_DMATRIX_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE,
                         "device matrix handle is invalid (destroyed or never uploaded)");
    return PSL_OK;
}

static psl_status psl_dcheck_vec_type(psl_scalar vec_type)
{
    if (!psl_vec_supported(vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device SpMV vector type %d is not supported (use one of %s)",
                         (int)vec_type, PSL_VEC_NAMES);
    return PSL_OK;
}

/* SELL and PackSELL: the partial sums of the long rows, if any. */
extern "C" psl_status psl_cuda_sliced_workspace(const psl_dmatrix *dA, psl_scalar vec_type,
                                                size_t *bytes)
{
    *bytes = psl_cuda_wide_ws_bytes(dA, vec_type);
    return PSL_OK;
}

/* CSR: cuSPARSE's buffer, set up when the matrix has rows, columns and
 * entries. */
extern "C" psl_status psl_cuda_csr_workspace(const psl_dmatrix *dA, psl_scalar vec_type,
                                             size_t *bytes)
{
    *bytes = 0;
    PSL_TRY(psl_cuda_csr_check_type(dA, vec_type));
    if (dA->csr_handle)
        *bytes = dA->csr_ws_bytes[vec_type];
    return PSL_OK;
}

/* Workspace bytes for dA and vec_type (handle and type already checked). */
static psl_status psl_dworkspace(const psl_dmatrix *dA, psl_scalar vec_type, size_t *bytes)
{
    *bytes = 0;
    const psl_format_ops *ops = psl_format_ops_of(dA->format);
    if (!ops || !ops->cuda_workspace)
        return psl_error(PSL_ERR_INTERNAL, "device SpMV: matrix format %d", (int)dA->format);
    return ops->cuda_workspace(dA, vec_type, bytes);
}

/* True when the byte ranges [a, a+na) and [b, b+nb) intersect. */
static bool psl_doverlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return na > 0 && nb > 0 && pa < pb + nb && pb < pa + na;
}

extern "C" psl_status psl_dspmv_workspace_size(const psl_dmatrix *dA, psl_scalar vec_type,
                                               size_t *bytes)
{
    PSL_TRY(psl_dcheck(dA));
    if (!bytes)
        return psl_error(PSL_ERR_NULL_POINTER, "bytes is NULL");
    PSL_TRY(psl_dcheck_vec_type(vec_type));
    size_t n = 0;
    PSL_TRY(psl_dworkspace(dA, vec_type, &n));
    *bytes = n;
    return PSL_OK;
}

extern "C" psl_status psl_dspmv(double alpha, const psl_dmatrix *dA, const void *d_x, double beta,
                                void *d_y, psl_scalar vec_type, void *workspace,
                                size_t workspace_bytes, void *stream)
{
    PSL_TRY(psl_dcheck(dA));
    PSL_TRY(psl_dcheck_vec_type(vec_type));
    const size_t es = psl_scalar_size(vec_type);
    const bool needs_x = dA->ncols > 0 && dA->nnz > 0 && dA->nrows > 0;
    if (!d_x && dA->ncols > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "device SpMV input vector x is NULL (%d columns)",
                         (int)dA->ncols);
    if (!d_y && dA->nrows > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "device SpMV output vector y is NULL (%d rows)",
                         (int)dA->nrows);
    if (psl_doverlap(d_x, (size_t)dA->ncols * es, d_y, (size_t)dA->nrows * es))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device SpMV vectors x and y overlap in memory (y is written in place)");
    size_t need = 0;
    PSL_TRY(psl_dworkspace(dA, vec_type, &need));
    if (need > 0 && !workspace)
        return psl_error(PSL_ERR_NULL_POINTER,
                         "device SpMV workspace is NULL but this matrix needs %zu bytes "
                         "(psl_dspmv_workspace_size)",
                         need);
    if (need > workspace_bytes)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device SpMV workspace of %zu bytes is too small: this matrix needs "
                         "%zu bytes (psl_dspmv_workspace_size)",
                         workspace_bytes, need);
    int dev = -1;
    PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&dev)));
    if (dev != dA->device)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device SpMV: the matrix lives on device %d but the current device is "
                         "%d (cudaSetDevice)",
                         dA->device, dev);
    if (dA->nrows == 0)
        return PSL_OK;
    PSL_TRY(psl_cuda_check_ptr(dA->device, d_y, "device SpMV", "output vector y"));
    if (needs_x)
        PSL_TRY(psl_cuda_check_ptr(dA->device, d_x, "device SpMV", "input vector x"));

    cudaStream_t s = (cudaStream_t)stream;
    if (!needs_x)
        return psl_cuda_scale_spmv(dA, alpha, beta, d_y, vec_type, s);
    const psl_format_ops *ops = psl_format_ops_of(dA->format);
    if (!ops || !ops->cuda_spmv)
        return psl_error(PSL_ERR_INTERNAL, "device SpMV: matrix format %d", (int)dA->format);
    return ops->cuda_spmv(dA, alpha, d_x, beta, d_y, vec_type, workspace, s);
}
