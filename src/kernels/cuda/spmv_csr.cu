/*
 * spmv_csr.cu -- CSR on the device through cuSPARSE's generic SpMV: one
 * cuSPARSE handle and matrix descriptor per device matrix (created at
 * upload, with the workspace size of every supported vector type), and the
 * SpMV itself (deterministic algorithm CSR_ALG2, the handle set to the
 * caller's stream under the matrix's lock).
 *
 * Supported (cuSPARSE's uniform and mixed precision): FP64 values with FP64
 * vectors, FP32 values with FP32 vectors, FP32 values with FP64 vectors
 * (FP64 compute). cuSPARSE has no FP32-matrix x FP16-vector nor
 * FP64-matrix x FP32-vector SpMV; those give PSL_ERR_INVALID_VALUE.
 * Results follow cuSPARSE's own summation order, so they are not bitwise
 * equal to the CPU kernels (but are bitwise repeatable).
 */
#include "dmatrix.cuh"

#include <new>

/* cuSPARSE compute/vector data type for vec_type, or -1 if unsupported
 * with values of value_type. */
static int psl_csr_vec_cuda_type(psl_scalar value_type, psl_scalar vec_type)
{
    if (value_type == PSL_FP64 && vec_type == PSL_FP64)
        return CUDA_R_64F;
    if (value_type == PSL_FP32 && vec_type == PSL_FP32)
        return CUDA_R_32F;
    if (value_type == PSL_FP32 && vec_type == PSL_FP64)
        return CUDA_R_64F;
    return -1;
}

psl_status psl_cuda_csr_check_type(const psl_dmatrix *dA, psl_scalar vec_type)
{
    if (psl_csr_vec_cuda_type(dA->value_type, vec_type) >= 0)
        return PSL_OK;
    return psl_error(PSL_ERR_INVALID_VALUE,
                     "device SpMV of a CSR %s matrix with %s vectors is not supported by "
                     "cuSPARSE (CSR fp64: fp64 vectors; CSR fp32: fp32 or fp64 vectors); "
                     "convert the matrix to SELL or PackSELL for other vector types",
                     psl_scalar_name(dA->value_type), psl_scalar_name(vec_type));
}

/* Workspace of cusparseSpMV for vectors of cuda type vt (x and y descriptors
 * point at the matrix values only so that they are not NULL: bufferSize
 * reads no vector data). */
static psl_status psl_csr_buffer_size(psl_dmatrix *dA, cudaDataType vt, size_t *bytes)
{
    psl_status st = PSL_OK;
    cusparseConstDnVecDescr_t vx = NULL;
    cusparseDnVecDescr_t vy = NULL;
    double one64 = 1.0, zero64 = 0.0;
    float one32 = 1.0f, zero32 = 0.0f;
    const void *one = vt == CUDA_R_64F ? (const void *)&one64 : (const void *)&one32;
    const void *zero = vt == CUDA_R_64F ? (const void *)&zero64 : (const void *)&zero32;
    PSL_CUSPARSE_GO(cusparseCreateConstDnVec(&vx, dA->ncols, dA->d_csr_val, vt));
    PSL_CUSPARSE_GO(cusparseCreateDnVec(&vy, dA->nrows, dA->d_csr_val, vt));
    PSL_CUSPARSE_GO(cusparseSpMV_bufferSize(dA->csr_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, one,
                                            dA->csr_descr, vx, zero, vy, vt, dA->csr_alg, bytes));
fail:
    if (vx)
        cusparseDestroyDnVec(vx);
    if (vy)
        cusparseDestroyDnVec(vy);
    return st;
}

psl_status psl_cuda_csr_setup(psl_dmatrix *dA)
{
    psl_status st = PSL_OK;
    void *mem = NULL;
    const cusparseIndexType_t it = dA->csr_index64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
    const cudaDataType valt = dA->value_type == PSL_FP64 ? CUDA_R_64F : CUDA_R_32F;
    PSL_TRY(psl_alloc(&mem, 1, sizeof(std::mutex), "device CSR lock"));
    dA->csr_lock = new (mem) std::mutex();
    PSL_CUSPARSE_GO(cusparseCreate(&dA->csr_handle));
    PSL_CUSPARSE_GO(cusparseCreateCsr(&dA->csr_descr, dA->nrows, dA->ncols, dA->nnz, dA->d_row_ptr,
                                      dA->d_csr_col, dA->d_csr_val, it, it,
                                      CUSPARSE_INDEX_BASE_ZERO, valt));
    /* CSR_ALG2 is cuSPARSE's bitwise-deterministic CSR SpMV. */
    dA->csr_alg = CUSPARSE_SPMV_CSR_ALG2;
    for (int v = 0; v < PSL_VEC_COUNT; v++) {
        int ct = psl_csr_vec_cuda_type(dA->value_type, (psl_scalar)v);
        dA->csr_ws_bytes[v] = 0;
        if (ct >= 0)
            PSL_TRY(psl_csr_buffer_size(dA, (cudaDataType)ct, &dA->csr_ws_bytes[v]));
    }
    return PSL_OK;
fail:
    return st; /* the caller releases what was created */
}

psl_status psl_cuda_csr_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                             void *y, psl_scalar vec_type, void *workspace, cudaStream_t stream)
{
    psl_status st = PSL_OK;
    const cudaDataType ct = (cudaDataType)psl_csr_vec_cuda_type(dA->value_type, vec_type);
    cusparseConstDnVecDescr_t vx = NULL;
    cusparseDnVecDescr_t vy = NULL;
    double a64 = alpha, b64 = beta;
    float a32 = (float)alpha, b32 = (float)beta;
    const void *a = ct == CUDA_R_64F ? (const void *)&a64 : (const void *)&a32;
    const void *b = ct == CUDA_R_64F ? (const void *)&b64 : (const void *)&b32;
    if (beta == 0) /* y must not be read: 0 * NaN would leak; zero it first */
        PSL_CUDA_GO(cudaMemsetAsync(y, 0, (size_t)dA->nrows * psl_scalar_size(vec_type), stream));
    PSL_CUSPARSE_GO(cusparseCreateConstDnVec(&vx, dA->ncols, x, ct));
    PSL_CUSPARSE_GO(cusparseCreateDnVec(&vy, dA->nrows, y, ct));
    {
        std::lock_guard<std::mutex> guard(*dA->csr_lock);
        PSL_CUSPARSE_GO(cusparseSetStream(dA->csr_handle, stream));
        PSL_CUSPARSE_GO(cusparseSpMV(dA->csr_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, a,
                                     dA->csr_descr, vx, b, vy, ct, dA->csr_alg, workspace));
    }
fail:
    if (vx)
        cusparseDestroyDnVec(vx);
    if (vy)
        cusparseDestroyDnVec(vy);
    return st;
}

void psl_cuda_csr_release(psl_dmatrix *dA)
{
    if (dA->csr_descr)
        cusparseDestroySpMat(dA->csr_descr);
    if (dA->csr_handle)
        cusparseDestroy(dA->csr_handle);
    if (dA->csr_lock) {
        dA->csr_lock->~mutex();
        psl_free(dA->csr_lock);
    }
    dA->csr_descr = NULL;
    dA->csr_handle = NULL;
    dA->csr_lock = NULL;
}
