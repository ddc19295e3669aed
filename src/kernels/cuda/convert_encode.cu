/*
 * convert_encode.cu -- the last pass of the device conversion: one thread per
 * lane of every slice writes its stored row (PackSELL words, or SELL columns
 * and values) at slice_ptr[k] + j*C + lane and the padding after it, exactly
 * as packsell_build.c / sell_build.c lay them out; and the CSR copy with its
 * value rounding. Values are rounded by the host's own code (codec/encode.h),
 * so the bits are the CPU's. The first entry whose value cannot be stored
 * (NaN/Inf, overflow under PSL_OVERFLOW_ERROR) goes to sum->val_bad, the
 * underflow count to sum->underflows (integer atomics: deterministic).
 */
#include "convert.cuh"

#include "codec/encode.h"
#include "format/word.h"

#include <cub/block/block_reduce.cuh>

typedef cub::BlockReduce<unsigned long long, PSL_CUDA_BLOCK> psl_enc_reduce;

/* Value k of the input as a double (FP32 widens exactly). */
template <typename T>
__device__ __forceinline__ double psl_in_value(const psl_dconv &c, int64_t k)
{
    return (double)__ldg((const T *)c.val + k);
}

/* Store the rounded bits of a value of type t at element k. */
__device__ __forceinline__ void psl_store_bits(void *arr, psl_scalar t, int64_t k, uint64_t bits)
{
    switch (t) {
    case PSL_FP64: ((uint64_t *)arr)[k] = bits; break;
    case PSL_FP32: ((uint32_t *)arr)[k] = (uint32_t)bits; break;
    default: ((uint16_t *)arr)[k] = (uint16_t)bits; break;
    }
}

/* Block-reduce the thread's underflows and first bad entry into sum. */
__device__ __forceinline__ void psl_enc_flush(const psl_dconv &c, unsigned long long under,
                                              unsigned long long bad)
{
    __shared__ psl_enc_reduce::TempStorage tmp;
    unsigned long long bu = psl_enc_reduce(tmp).Sum(under);
    __syncthreads();
    unsigned long long bb = psl_enc_reduce(tmp).Reduce(bad, psl_op_min());
    if (threadIdx.x == 0) {
        if (bu)
            atomicAdd(&c.sum->underflows, bu);
        if (bb != PSL_CONV_NONE)
            atomicMin(&c.sum->val_bad, bb);
    }
}

/* The lanes of the sliced encoders, strided over the grid: thread t is lane
 * t % C of slice t / C; body(base, width, r) writes the lane's positions
 * (entry base + j*C for j < width) from source row r, -1 past the last row
 * (padding only). */
template <class Body>
__device__ __forceinline__ void psl_for_lanes(const psl_dconv &c, const int32_t *order,
                                              const int64_t *slice_ptr, Body body)
{
    const int64_t C = c.C;
    const int64_t lanes = (int64_t)c.nslices * C;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < lanes;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = t / C, l = t - k * C;
        const int64_t base = slice_ptr[k] + l, width = (slice_ptr[k + 1] - slice_ptr[k]) / C;
        body(base, width, t < c.nrows ? (order ? (int64_t)order[t] : t) : (int64_t)-1);
    }
}

/* PackSELL: words of the row with dummies before large deltas, then flag-0
 * zero words. */
template <typename T>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_encode_packsell(psl_dconv c, const int32_t *order, const int64_t *slice_ptr,
                          uint32_t *words)
{
    const int D = c.D, e = c.codec.exp_bits, m = c.codec.man_bits;
    const int64_t limit = (int64_t)1 << D, C = c.C;
    const uint32_t mag_mask = (1u << (30 - D)) - 1u; /* V-1 magnitude bits */
    const int64_t kleft = c.sum->kleft == LLONG_MIN ? 0 : c.sum->kleft;
    unsigned long long under = 0, bad = PSL_CONV_NONE;
    psl_for_lanes(c, order, slice_ptr, [&](int64_t base, int64_t width, int64_t r) {
        int64_t j = 0;
        if (r >= 0) {
            int64_t col = psl_block_start_col((r / c.dblock) * c.dblock, kleft, c.ncols);
            const int64_t hi = c.rp[r + 1];
            for (int64_t q = c.rp[r]; q < hi; q++) {
                const int64_t next = __ldg(c.ci + q);
                int64_t delta = next - col;
                col = next;
                if (delta >= limit) {
                    words[base + j++ * C] = psl_word_dummy((uint32_t)delta);
                    delta = 0;
                }
                const double v = psl_in_value<T>(c, q);
                uint32_t vb = 0;
                if (psl_exmy_encode(e, m, c.policy, v, &vb) != PSL_OK) {
                    vb = 0;
                    bad = min(bad, (unsigned long long)q);
                }
                under += v != 0.0 && (vb & mag_mask) == 0;
                words[base + j++ * C] = psl_word_entry(vb, (uint32_t)delta, D);
            }
        }
        for (; j < width; j++)
            words[base + j * C] = 0u; /* padding: flag 0, delta 0 */
    });
    psl_enc_flush(c, under, bad);
}

/* SELL: columns and values of out_type, -1 / 0 padding. */
template <typename T>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_encode_sell(psl_dconv c, const int32_t *order, const int64_t *slice_ptr, int32_t *col,
                      void *val)
{
    const int64_t C = c.C;
    unsigned long long under = 0, bad = PSL_CONV_NONE;
    psl_for_lanes(c, order, slice_ptr, [&](int64_t base, int64_t width, int64_t r) {
        int64_t j = 0;
        if (r >= 0) {
            const int64_t lo = c.rp[r], hi = c.rp[r + 1];
            for (int64_t q = lo; q < hi; q++, j++) {
                const double v = psl_in_value<T>(c, q);
                uint64_t bits = 0;
                int uf = 0;
                if (psl_round_scalar(c.out_type, c.policy, v, &bits, &uf) != PSL_OK) {
                    bits = 0;
                    bad = min(bad, (unsigned long long)q);
                }
                under += (unsigned)uf;
                col[base + j * C] = __ldg(c.ci + q);
                psl_store_bits(val, c.out_type, base + j * C, bits);
            }
        }
        for (; j < width; j++) {
            col[base + j * C] = -1;
            psl_store_bits(val, c.out_type, base + j * C, 0);
        }
    });
    psl_enc_flush(c, under, bad);
}

/* CSR: entry-parallel copy of columns (narrow or wide) and rounded values,
 * and the row offsets (n+1). */
template <typename T, typename I>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_encode_csr(psl_dconv c, I *rp, I *ci, void *val)
{
    unsigned long long under = 0, bad = PSL_CONV_NONE;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    const int64_t first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    for (int64_t q = first; q < c.nnz; q += stride) {
        const double v = psl_in_value<T>(c, q);
        uint64_t bits = 0;
        int uf = 0;
        if (psl_round_scalar(c.out_type, c.policy, v, &bits, &uf) != PSL_OK) {
            bits = 0;
            bad = min(bad, (unsigned long long)q);
        }
        under += (unsigned)uf;
        ci[q] = (I)__ldg(c.ci + q);
        psl_store_bits(val, c.out_type, q, bits);
    }
    for (int64_t i = first; i <= c.nrows; i += stride)
        rp[i] = (I)c.rp[i];
    psl_enc_flush(c, under, bad);
}

psl_status psl_conv_encode_packsell(const psl_dconv *c, const int32_t *order,
                                    const int64_t *slice_ptr, uint32_t *words)
{
    const unsigned g = psl_conv_grid((int64_t)c->nslices * c->C);
    if (c->nslices == 0)
        return PSL_OK;
    if (c->in_type == PSL_FP64)
        psl_k_encode_packsell<double><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, slice_ptr, words);
    else
        psl_k_encode_packsell<float><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, slice_ptr, words);
    return psl_cuda_launch_status("PackSELL encode (conversion)");
}

psl_status psl_conv_encode_sell(const psl_dconv *c, const int32_t *order,
                                const int64_t *slice_ptr, int32_t *col, void *val)
{
    const unsigned g = psl_conv_grid((int64_t)c->nslices * c->C);
    if (c->nslices == 0)
        return PSL_OK;
    if (c->in_type == PSL_FP64)
        psl_k_encode_sell<double><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, slice_ptr, col, val);
    else
        psl_k_encode_sell<float><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, slice_ptr, col, val);
    return psl_cuda_launch_status("SELL encode (conversion)");
}

psl_status psl_conv_encode_csr(const psl_dconv *c, bool index64, void *rp, void *ci, void *val)
{
    const int64_t n = c->nnz > c->nrows ? c->nnz : (int64_t)c->nrows + 1;
    const unsigned g = psl_conv_grid(n);
    const bool f64 = c->in_type == PSL_FP64;
    if (index64 && f64)
        psl_k_encode_csr<double, int64_t><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, (int64_t *)rp,
                                                                           (int64_t *)ci, val);
    else if (index64)
        psl_k_encode_csr<float, int64_t><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, (int64_t *)rp,
                                                                          (int64_t *)ci, val);
    else if (f64)
        psl_k_encode_csr<double, int32_t><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, (int32_t *)rp,
                                                                           (int32_t *)ci, val);
    else
        psl_k_encode_csr<float, int32_t><<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, (int32_t *)rp,
                                                                          (int32_t *)ci, val);
    return psl_cuda_launch_status("CSR copy (conversion)");
}
