/*
 * csr_cuda.cu -- CSR's device SpMV entry of the table of formats
 * (extern "C"): the launcher of src/kernels/cuda/spmv_csr.cu (cuSPARSE).
 */
#include "format/csr/csr.h"
#include "kernels/cuda/dmatrix.cuh"

extern "C" psl_status psl_csr_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x,
                                         double beta, void *y, psl_scalar vec_type,
                                         void *workspace, struct CUstream_st *stream)
{
    return psl_cuda_csr_spmv(dA, alpha, x, beta, y, vec_type, workspace, stream);
}
