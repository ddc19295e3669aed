/*
 * packsell_cuda.cu -- PackSELL's device SpMV entry of the table of formats
 * (extern "C"): the launcher of src/kernels/cuda/spmv_packsell.cu.
 */
#include "format/packsell/packsell.h"
#include "kernels/cuda/dmatrix.cuh"

extern "C" psl_status psl_packsell_cuda_entry(const psl_dmatrix *dA, double alpha,
                                              const void *x, double beta, void *y,
                                              psl_scalar vec_type, void *workspace,
                                              struct CUstream_st *stream)
{
    return psl_cuda_packsell_spmv(dA, alpha, x, beta, y, vec_type, workspace, stream);
}
