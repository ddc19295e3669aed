/*
 * spmv_packsell.cu -- the PackSELL SpMV kernel: one thread per stored row,
 * the threads of a slice adjacent (a warp per slice when C == 32), so the
 * loads of word position j of a slice are coalesced; slices strided over a
 * grid sized from the device. Templated over the vector kind and the codec
 * family (E8MY/BF16: the value is a mask of the word; FP16: the top half is
 * an IEEE binary16; any other ExMy: psl_decode_inplace of word.h).
 *
 * Per row, in stored order: the running column adds every word's delta;
 * flag-1 words add value*x[col] to the sum (multiply, then add, each rounded:
 * the bits of the CPU kernels); flag-0 words (dummies, padding) are selected
 * away and x is not even read for them.
 */
#include "vec_ops.cuh"

#include "format/word.h"

enum { PSL_FAM_E8 = 0, PSL_FAM_F16 = 1, PSL_FAM_GEN = 2 };

/* Value of a flag-1 word as float (exact). */
template <int FAM>
__device__ __forceinline__ float psl_pack_decode(uint32_t w, int D, int e, float scale)
{
    if (FAM == PSL_FAM_F16) /* V = 16, D = 15: the top half is the binary16 */
        return __half2float(__ushort_as_half((unsigned short)(w >> 16)));
    uint32_t vb = psl_word_value_bits(w, D);
    if (FAM == PSL_FAM_E8)
        return __uint_as_float(vb);
    return psl_decode_inplace(vb, e, scale);
}

/* Load U word positions of one row (independent loads), p advancing by U*C. */
template <int U>
__device__ __forceinline__ void psl_pack_load(const uint32_t *&p, int32_t C, uint32_t (&w)[U])
{
#pragma unroll
    for (int u = 0; u < U; u++)
        w[u] = __ldg(p + (int64_t)u * C);
    p += (int64_t)U * C;
}

/* Use U loaded words: the running columns (an integer chain), then the x
 * loads, then the sums in stored order. */
template <class V, int FAM, int U>
__device__ __forceinline__ void psl_pack_use(const uint32_t (&w)[U], uint32_t &c,
                                             typename V::acc &t,
                                             const typename V::elem *__restrict__ x,
                                             const psl_dsliced &m)
{
    typedef typename V::acc ACC;
    uint32_t col[U];
    ACC xv[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        c += psl_word_delta(w[u], m.D);
        col[u] = c;
    }
#pragma unroll
    for (int u = 0; u < U; u++)
        xv[u] = (w[u] & PSL_WORD_FLAG) ? V::x(x, col[u]) : (ACC)0;
#pragma unroll
    for (int u = 0; u < U; u++)
        if (w[u] & PSL_WORD_FLAG)
            t = psl_add(t, psl_mul((ACC)psl_pack_decode<FAM>(w[u], m.D, m.e, m.scale), xv[u]));
}

/* The whole row of `width` words from p. With PSL_CUDA_PIPELINE the loads
 * of the next U positions are issued before the x loads and sums of the
 * current ones, so each thread keeps words in flight while it gathers x. */
template <class V, int FAM, int U>
__device__ __forceinline__ void psl_pack_row(const uint32_t *p, int64_t width, int32_t C,
                                             uint32_t c, typename V::acc &t,
                                             const typename V::elem *__restrict__ x,
                                             const psl_dsliced &m)
{
    int64_t groups = width / U;
    uint32_t w[U];
    if (PSL_CUDA_PIPELINE && groups > 0) {
        psl_pack_load<U>(p, C, w);
        for (int64_t g = 1; g < groups; g++) {
            uint32_t wn[U];
            psl_pack_load<U>(p, C, wn);
            psl_pack_use<V, FAM, U>(w, c, t, x, m);
#pragma unroll
            for (int u = 0; u < U; u++)
                w[u] = wn[u];
        }
        psl_pack_use<V, FAM, U>(w, c, t, x, m);
    } else {
        for (int64_t g = 0; g < groups; g++) {
            psl_pack_load<U>(p, C, w);
            psl_pack_use<V, FAM, U>(w, c, t, x, m);
        }
    }
    for (int64_t j = groups * U; j < width; j++) {
        uint32_t w1[1];
        psl_pack_load<1>(p, C, w1);
        psl_pack_use<V, FAM, 1>(w1, c, t, x, m);
    }
}

#ifndef PSL_PACK_UNROLL
#define PSL_PACK_UNROLL 4
#endif

template <class V, int FAM>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, PSL_CUDA_MINB)
    psl_packsell_kernel(psl_dsliced m, const typename V::elem *__restrict__ x,
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
        const uint32_t *p = m.words + s0 + lane;
        const int64_t block_start = (int64_t)(i / m.dblock) * m.dblock;
        uint32_t c = (uint32_t)psl_block_start_col(block_start, m.kleft, m.ncols);
        ACC t = 0;
        psl_pack_row<V, FAM, PSL_PACK_UNROLL>(p, width, m.C, c, t, x, m);
        V::finish(y, psl_out_row(m, i), t, a, b, use_beta);
    }
}

template <class V, int FAM>
static psl_status psl_pack_launch(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                                  void *y, cudaStream_t stream)
{
    psl_packsell_kernel<V, FAM><<<psl_cuda_grid(dA, dA->nrows), PSL_CUDA_BLOCK, 0, stream>>>(
        dA->s, (const typename V::elem *)x, (typename V::elem *)y, psl_acc_scalar<V>(alpha),
        psl_acc_scalar<V>(beta), beta != 0);
    return psl_cuda_launch_status("PackSELL SpMV");
}

template <int FAM>
static psl_status psl_pack_by_vec(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, cudaStream_t stream)
{
    switch (vec_type) {
    case PSL_FP64: return psl_pack_launch<psl_vec64, FAM>(dA, alpha, x, beta, y, stream);
    case PSL_FP32: return psl_pack_launch<psl_vec32, FAM>(dA, alpha, x, beta, y, stream);
    case PSL_FP16: return psl_pack_launch<psl_vec16, FAM>(dA, alpha, x, beta, y, stream);
    default: break;
    }
    return psl_error(PSL_ERR_INTERNAL, "PackSELL device SpMV: vector type %d", (int)vec_type);
}

psl_status psl_cuda_packsell_spmv(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type,
                                  cudaStream_t stream)
{
    const psl_codec cd = dA->codec;
    if (cd.exp_bits == 8)
        return psl_pack_by_vec<PSL_FAM_E8>(dA, alpha, x, beta, y, vec_type, stream);
    if (cd.exp_bits == 5 && cd.man_bits == 10)
        return psl_pack_by_vec<PSL_FAM_F16>(dA, alpha, x, beta, y, vec_type, stream);
    return psl_pack_by_vec<PSL_FAM_GEN>(dA, alpha, x, beta, y, vec_type, stream);
}
