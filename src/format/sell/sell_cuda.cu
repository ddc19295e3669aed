/*
 * sell_cuda.cu -- SELL-C-sigma's device SpMV entry of the table of formats
 * (extern "C"): the launcher of src/kernels/cuda/spmv_sell.cu.
 */
#include "format/sell/sell.h"
#include "kernels/cuda/dmatrix.cuh"

extern "C" psl_status psl_sell_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x,
                                          double beta, void *y, psl_scalar vec_type,
                                          void *workspace, struct CUstream_st *stream)
{
    return psl_cuda_sell_spmv(dA, alpha, x, beta, y, vec_type, workspace, stream);
}
