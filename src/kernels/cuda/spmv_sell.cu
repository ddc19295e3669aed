/*
 * spmv_sell.cu -- the SELL-C-sigma SpMV kernel: one thread per stored row,
 * the threads of a slice adjacent (a warp per slice when C == 32) so the
 * loads of position j of a slice are coalesced; slices strided over a grid
 * sized from the device. Templated over the vector kind and the stored value
 * type (FP64, FP32, FP16, BF16).
 *
 * Per row, in stored order: entries add value*x[col] to the sum (multiply,
 * then add, each rounded: the bits of the CPU kernels); padding (column -1)
 * is selected away and x is not read for it.
 */
#include "vec_ops.cuh"

/* Stored value k of each SELL value type, in its natural float type. */
template <int VT> struct psl_sell_val;
template <> struct psl_sell_val<PSL_FP64> {
    static __device__ __forceinline__ double get(const void *v, int64_t k)
    {
        return __ldg((const double *)v + k);
    }
};
template <> struct psl_sell_val<PSL_FP32> {
    static __device__ __forceinline__ float get(const void *v, int64_t k)
    {
        return __ldg((const float *)v + k);
    }
};
template <> struct psl_sell_val<PSL_FP16> {
    static __device__ __forceinline__ float get(const void *v, int64_t k)
    {
        return __half2float(__ushort_as_half(__ldg((const unsigned short *)v + k)));
    }
};
template <> struct psl_sell_val<PSL_BF16> {
    static __device__ __forceinline__ float get(const void *v, int64_t k)
    {
        return __uint_as_float((uint32_t)__ldg((const unsigned short *)v + k) << 16);
    }
};

/* U positions of one row from entry index q: loads of columns and values
 * first, then the x loads, then the sums in stored order. q advances by U*C. */
template <class V, int VT, int U>
__device__ __forceinline__ void psl_sell_steps(int64_t &q, int32_t C, typename V::acc &t,
                                               const typename V::elem *__restrict__ x,
                                               const psl_dsliced &m)
{
    typedef typename V::acc ACC;
    int32_t col[U];
    ACC val[U], xv[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        col[u] = __ldg(m.col + q + (int64_t)u * C);
        val[u] = psl_to_acc<ACC>(psl_sell_val<VT>::get(m.val, q + (int64_t)u * C));
    }
    q += (int64_t)U * C;
#pragma unroll
    for (int u = 0; u < U; u++)
        xv[u] = col[u] >= 0 ? V::x(x, (uint32_t)col[u]) : (ACC)0;
#pragma unroll
    for (int u = 0; u < U; u++)
        if (col[u] >= 0)
            t = psl_add(t, psl_mul(val[u], xv[u]));
}

#ifndef PSL_SELL_UNROLL
#define PSL_SELL_UNROLL 8
#endif

template <class V, int VT>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, PSL_CUDA_MINB)
    psl_sell_kernel(psl_dsliced m, const typename V::elem *__restrict__ x,
                    typename V::elem *__restrict__ y, typename V::acc a, typename V::acc b,
                    bool use_beta)
{
    typedef typename V::acc ACC;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; r < m.nrows; r += stride) {
        const int32_t i = (int32_t)r;
        const int32_t k = i / m.C, lane = i - k * m.C;
        const int64_t s0 = __ldg((const long long *)m.slice_ptr + k);
        const int64_t s1 = __ldg((const long long *)m.slice_ptr + k + 1);
        const int64_t width = (s1 - s0) / m.C;
        int64_t q = s0 + lane;
        ACC t = 0;
        int64_t j = 0;
        for (; j + PSL_SELL_UNROLL <= width; j += PSL_SELL_UNROLL)
            psl_sell_steps<V, VT, PSL_SELL_UNROLL>(q, m.C, t, x, m);
        for (; j < width; j++)
            psl_sell_steps<V, VT, 1>(q, m.C, t, x, m);
        V::finish(y, psl_out_row(m, i), t, a, b, use_beta);
    }
}

template <class V, int VT>
static psl_status psl_sell_launch(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                                  void *y, cudaStream_t stream)
{
    psl_sell_kernel<V, VT><<<psl_cuda_grid(dA, dA->nrows), PSL_CUDA_BLOCK, 0, stream>>>(
        dA->s, (const typename V::elem *)x, (typename V::elem *)y, psl_acc_scalar<V>(alpha),
        psl_acc_scalar<V>(beta), beta != 0);
    return psl_cuda_launch_status("SELL SpMV");
}

template <int VT>
static psl_status psl_sell_by_vec(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, cudaStream_t stream)
{
    switch (vec_type) {
    case PSL_FP64: return psl_sell_launch<psl_vec64, VT>(dA, alpha, x, beta, y, stream);
    case PSL_FP32: return psl_sell_launch<psl_vec32, VT>(dA, alpha, x, beta, y, stream);
    case PSL_FP16: return psl_sell_launch<psl_vec16, VT>(dA, alpha, x, beta, y, stream);
    default: break;
    }
    return psl_error(PSL_ERR_INTERNAL, "SELL device SpMV: vector type %d", (int)vec_type);
}

psl_status psl_cuda_sell_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                              void *y, psl_scalar vec_type, cudaStream_t stream)
{
    switch (dA->value_type) {
    case PSL_FP64: return psl_sell_by_vec<PSL_FP64>(dA, alpha, x, beta, y, vec_type, stream);
    case PSL_FP32: return psl_sell_by_vec<PSL_FP32>(dA, alpha, x, beta, y, vec_type, stream);
    case PSL_FP16: return psl_sell_by_vec<PSL_FP16>(dA, alpha, x, beta, y, vec_type, stream);
    case PSL_BF16: return psl_sell_by_vec<PSL_BF16>(dA, alpha, x, beta, y, vec_type, stream);
    }
    return psl_error(PSL_ERR_INTERNAL, "SELL device SpMV: value type %d", (int)dA->value_type);
}
