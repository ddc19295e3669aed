/*
 * spmv_scale.cu -- the device kernel for matrices without entries or without
 * columns (nnz == 0 or ncols == 0): y = alpha*0 + beta*y on every row, x
 * never read, y not read when beta == 0 (the CPU's psl_cpu_scale).
 */
#include "vec_ops.cuh"

template <class VEC>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_scale_kernel(int32_t n, typename VEC::elem *__restrict__ y, typename VEC::acc a,
                     typename VEC::acc b, bool use_beta)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        VEC::finish(y, i, (typename VEC::acc)0, a, b, use_beta);
}

template <class VEC>
static psl_status psl_scale_launch(const psl_dmatrix *dA, double alpha, double beta, void *y,
                                   cudaStream_t stream)
{
    psl_scale_kernel<VEC><<<psl_cuda_grid(dA, dA->nrows), PSL_CUDA_BLOCK, 0, stream>>>(
        dA->nrows, (typename VEC::elem *)y, psl_acc_scalar<VEC>(alpha), psl_acc_scalar<VEC>(beta),
        beta != 0);
    return psl_cuda_launch_status("scale (empty matrix) SpMV");
}

psl_status psl_cuda_scale_spmv(const psl_dmatrix *dA, double alpha, double beta, void *y,
                               psl_scalar vec_type, cudaStream_t stream)
{
    return psl_with_vec(vec_type, "device scale kernel", [&](auto v) {
        return psl_scale_launch<decltype(v)>(dA, alpha, beta, y, stream);
    });
}
