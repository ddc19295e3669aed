/*
 * spmv_sell.cu -- the SELL-C-sigma SpMV kernel: one thread per stored row,
 * the threads of a slice adjacent (a warp per slice when C == 32) so the
 * loads of position j of a slice are coalesced; slices strided over a grid
 * sized from the device. Templated over the vector kind and the stored value
 * type (FP64, FP32, FP16, BF16).
 *
 * Per row, in stored order: entries add value*x[col] to the sum (multiply,
 * then add, each rounded, or one FMA where the product is exact: the bits of
 * the CPU kernels); padding (column -1) is selected away and x is not read
 * for it. Long rows (C = 32, long_rows.h): the first blocks take segments
 * of the wide slices, warp by warp; the one-thread-per-row part skips those
 * rows, and their block or cluster (psl_wide_end) or, for slices wider than
 * that, psl_wide_finish writes them. Small matrices (dmatrix.cuh, PSL_LAT)
 * run the same kernel with deeper groups and fewer resident threads, or,
 * when every slice is at most PSL_SHORT_SMALL_MAX wide, a short-row kernel
 * that loads each row as one group. gateway.cuh lists every form and the
 * rule that picks it.
 */
#include "wide.cuh"

/* Stored value k of each SELL value type: raw() loads its bits (raw_t),
 * widen() turns them into its natural float type -- two steps, so that a
 * group's loads are all issued before the first conversion waits on one. */
template <int VALUE_TYPE> struct psl_sell_val;
template <> struct psl_sell_val<PSL_FP64> {
    typedef double raw_t;
    template <bool STREAM_PAST_L1>
    static __device__ __forceinline__ double raw(const void *v, int64_t k)
    {
        return psl_ld_stream<STREAM_PAST_L1>((const double *)v + k);
    }
    static __device__ __forceinline__ double widen(double r) { return r; }
};
template <> struct psl_sell_val<PSL_FP32> {
    typedef float raw_t;
    template <bool STREAM_PAST_L1>
    static __device__ __forceinline__ float raw(const void *v, int64_t k)
    {
        return psl_ld_stream<STREAM_PAST_L1>((const float *)v + k);
    }
    static __device__ __forceinline__ float widen(float r) { return r; }
};
template <> struct psl_sell_val<PSL_FP16> {
    typedef unsigned short raw_t;
    template <bool STREAM_PAST_L1>
    static __device__ __forceinline__ unsigned short raw(const void *v, int64_t k)
    {
        return psl_ld_stream<STREAM_PAST_L1>((const unsigned short *)v + k);
    }
    static __device__ __forceinline__ float widen(unsigned short r)
    {
        return __half2float(__ushort_as_half(r));
    }
};
template <> struct psl_sell_val<PSL_BF16> {
    typedef unsigned short raw_t;
    template <bool STREAM_PAST_L1>
    static __device__ __forceinline__ unsigned short raw(const void *v, int64_t k)
    {
        return psl_ld_stream<STREAM_PAST_L1>((const unsigned short *)v + k);
    }
    static __device__ __forceinline__ float widen(unsigned short r)
    {
        return __uint_as_float((uint32_t)r << 16);
    }
};

/* GROUP positions of one row: columns (-1: nothing) and the values' bits. */
template <int VALUE_TYPE, int GROUP> struct psl_sell_group {
    int32_t col[GROUP];
    typename psl_sell_val<VALUE_TYPE>::raw_t val[GROUP];
};

/* Load GROUP positions of one row from entry index q (position stride C;
 * immediate offsets when FIXED_C compiles C in), only the first n when
 * n < GROUP. STREAM_PAST_L1: the loads bypass L1 (psl_ld_stream). */
template <bool STREAM_PAST_L1, int VALUE_TYPE, int FIXED_C, int GROUP>
__device__ __forceinline__ void psl_sell_load(int64_t q, uint32_t C, const psl_dsliced &m,
                                              psl_sell_group<VALUE_TYPE, GROUP> &g,
                                              uint32_t n = GROUP)
{
    if (n >= (uint32_t)GROUP) { /* warp-uniform at C = 32: a slice's rows share n */
#pragma unroll
        for (int u = 0; u < GROUP; u++) {
            const int64_t e = q + (FIXED_C ? (uint32_t)(u * FIXED_C) : u * C);
            g.col[u] = psl_ld_stream<STREAM_PAST_L1>(m.col + e);
            g.val[u] = psl_sell_val<VALUE_TYPE>::template raw<STREAM_PAST_L1>(m.val, e);
        }
    } else {
#pragma unroll
        for (int u = 0; u < GROUP; u++) {
            const int64_t e = q + (FIXED_C ? (uint32_t)(u * FIXED_C) : u * C);
            g.col[u] = (uint32_t)u < n ? psl_ld_stream<STREAM_PAST_L1>(m.col + e) : -1;
            g.val[u] = (uint32_t)u < n
                           ? psl_sell_val<VALUE_TYPE>::template raw<STREAM_PAST_L1>(m.val, e)
                           : 0;
        }
    }
}

/* Use a loaded group: the x loads, then the sums in stored order (values
 * and x converted only there). */
template <class VEC, int VALUE_TYPE, int GROUP>
__device__ __forceinline__ void psl_sell_use(const psl_sell_group<VALUE_TYPE, GROUP> &g,
                                             typename VEC::acc &t,
                                             const typename VEC::elem *__restrict__ x)
{
    typedef typename VEC::acc ACC;
    const bool exact = VALUE_TYPE == PSL_FP16 && sizeof(typename VEC::elem) == 2;
    typename VEC::elem xv[GROUP];
#pragma unroll
    for (int u = 0; u < GROUP; u++)
        if (g.col[u] >= 0) /* xv[u] is only read under the same condition */
            xv[u] = VEC::raw2(x, 2u * (uint32_t)g.col[u]);
#pragma unroll
    for (int u = 0; u < GROUP; u++)
        if (g.col[u] >= 0)
            t = psl_madd<exact>(t, psl_to_acc<ACC>(psl_sell_val<VALUE_TYPE>::widen(g.val[u])),
                                (ACC)VEC::widen(xv[u]));
}

#ifndef PSL_SELL_UNROLL
#define PSL_SELL_UNROLL 4
#endif

/* width positions of one row from entry q into t, GROUP at a time, the last
 * group predicated (its loads in flight together instead of one round trip
 * per remaining entry: short rows are latency-bound). Unlike
 * psl_pack_row, the last two groups are not loaded together: with columns
 * and values that is 16 more live registers, which costs more than it
 * saves (bench/NOTES.md, GPU kernel forms and why). */
template <class VEC, int VALUE_TYPE, int FIXED_C, bool STREAM_PAST_L1,
          int GROUP = PSL_SELL_UNROLL>
__device__ __forceinline__ void psl_sell_row(int64_t q, uint32_t width, uint32_t C,
                                             typename VEC::acc &t,
                                             const typename VEC::elem *__restrict__ x,
                                             const psl_dsliced &m)
{
    const uint32_t stride = FIXED_C ? (uint32_t)FIXED_C : C;
    uint32_t j = 0;
    for (; j + GROUP <= width; j += GROUP, q += GROUP * stride) {
        psl_sell_group<VALUE_TYPE, GROUP> g;
        psl_sell_load<STREAM_PAST_L1, VALUE_TYPE, FIXED_C, GROUP>(q, C, m, g);
        psl_sell_use<VEC, VALUE_TYPE, GROUP>(g, t, x);
    }
    if (j < width) {
        psl_sell_group<VALUE_TYPE, GROUP> g;
        psl_sell_load<STREAM_PAST_L1, VALUE_TYPE, FIXED_C, GROUP>(q, C, m, g, width - j);
        psl_sell_use<VEC, VALUE_TYPE, GROUP>(g, t, x);
    }
}

/* The general kernel (psl_sliced_rows: long-row blocks first, then a
 * thread per row). Template parameters: VEC the vector kind, VALUE_TYPE the
 * stored value type, FIXED_C the slice height compiled in (PSL_FIXED_C, or
 * 0: read from m), STREAM_PAST_L1 the cache policy of the column and value
 * loads (psl_cuda_stream_na). SMALL_MATRIX (C = 32, psl_cuda_small_rows:
 * every thread resident at once) unrolls PSL_LAT_UNROLL deep under a looser
 * register cap. */
template <class VEC, int VALUE_TYPE, int FIXED_C, bool SMALL_MATRIX, bool STREAM_PAST_L1>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK,
                                  SMALL_MATRIX ? PSL_LAT_MINB : PSL_CUDA_MINB_FOR(VEC))
    psl_sell_kernel(psl_dsliced m, const typename VEC::elem *__restrict__ x,
                    typename VEC::elem *__restrict__ y, typename VEC::acc a, typename VEC::acc b,
                    bool use_beta, typename VEC::acc *__restrict__ part)
{
    typedef typename VEC::acc ACC;
    constexpr int GROUP = SMALL_MATRIX ? PSL_LAT_UNROLL : PSL_SELL_UNROLL;
    const uint32_t C = FIXED_C ? (uint32_t)FIXED_C : (uint32_t)m.C;
    psl_sliced_rows<VEC, FIXED_C>(
        m, y, a, b, use_beta, part,
        [&](const psl_wide_seg &g, ACC &t) { /* a segment (none: g.positions = 0) */
            psl_sell_row<VEC, VALUE_TYPE, FIXED_C, STREAM_PAST_L1, GROUP>(g.first, g.positions, C,
                                                                          t, x, m);
        },
        [&](uint32_t, const psl_row_slot &r, ACC &t) {
            psl_sell_row<VEC, VALUE_TYPE, FIXED_C, STREAM_PAST_L1, GROUP>(r.first, r.width, C, t,
                                                                          x, m);
        });
}

/* Short rows of a small matrix (every slice at most ROW_WIDTH positions:
 * PSL_SHORT_SMALL or PSL_SHORT_WIDE_WIDTH, psl_tiny_words; C = 32, no long
 * rows): the row as one predicated group, its columns, values and x loads
 * each in flight together, in a kernel with nothing else in it (tiny
 * matrices run at the launch floor, where the general kernel's setup and its
 * second round trip show). */
template <class VEC, int VALUE_TYPE, int ROW_WIDTH>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, PSL_LAT_MINB)
    psl_sell_short_kernel(psl_dsliced m, const typename VEC::elem *__restrict__ x,
                          typename VEC::elem *__restrict__ y, typename VEC::acc a,
                          typename VEC::acc b, bool use_beta)
{
    psl_short_row(m, [&](uint32_t, const psl_row_slot &r, int64_t o) {
        psl_sell_group<VALUE_TYPE, ROW_WIDTH> g;
        psl_sell_load<false, VALUE_TYPE, PSL_FIXED_C, ROW_WIDTH>(r.first, PSL_FIXED_C, m, g,
                                                                 r.width);
        typename VEC::acc t = 0;
        psl_sell_use<VEC, VALUE_TYPE, ROW_WIDTH>(g, t, x);
        VEC::finish(y, o, t, a, b, use_beta);
    });
}

template <class VEC, int VALUE_TYPE>
static psl_status psl_sell_launch(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                                  void *y, void *workspace, cudaStream_t stream)
{
    const psl_dsliced &m = dA->s;
    const psl_sliced_call<VEC> c = psl_sliced_call_of<VEC>(dA, alpha, x, beta, y, workspace);
    if (psl_with_short_width(psl_tiny_words(dA), [&](auto width) {
            psl_sell_short_kernel<VEC, VALUE_TYPE, decltype(width)::value>
                <<<psl_tiny_grid(dA), PSL_TINY_BLOCK, 0, stream>>>(psl_short_params(dA), c.x, c.y,
                                                                  c.a, c.b, c.use_beta);
        }))
        return psl_sliced_end(dA, c, "SELL SpMV", stream);
    cudaError_t launched = cudaSuccess;
    psl_sliced_form(dA, sizeof(typename VEC::elem), [&](auto fixed_c, auto small_matrix,
                                                        auto past_l1) {
        launched = psl_sliced_launch<
            psl_sell_kernel<VEC, VALUE_TYPE, decltype(fixed_c)::value,
                            decltype(small_matrix)::value, decltype(past_l1)::value>>(
            dA, c, stream, m, c.x, c.y, c.a, c.b, c.use_beta, c.part);
    });
    return psl_sliced_end(dA, c, "SELL SpMV", stream, launched);
}

template <int VALUE_TYPE>
static psl_status psl_sell_by_vec(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, void *ws,
                                  cudaStream_t stream)
{
    return psl_with_vec(vec_type, "SELL device SpMV", [&](auto v) {
        return psl_sell_launch<decltype(v), VALUE_TYPE>(dA, alpha, x, beta, y, ws, stream);
    });
}

psl_status psl_cuda_sell_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                              void *y, psl_scalar vec_type, void *ws, cudaStream_t stream)
{
    switch (dA->value_type) {
    case PSL_FP64: return psl_sell_by_vec<PSL_FP64>(dA, alpha, x, beta, y, vec_type, ws, stream);
    case PSL_FP32: return psl_sell_by_vec<PSL_FP32>(dA, alpha, x, beta, y, vec_type, ws, stream);
    case PSL_FP16: return psl_sell_by_vec<PSL_FP16>(dA, alpha, x, beta, y, vec_type, ws, stream);
    case PSL_BF16: return psl_sell_by_vec<PSL_BF16>(dA, alpha, x, beta, y, vec_type, ws, stream);
    }
    return psl_error(PSL_ERR_INTERNAL, "SELL device SpMV: value type %d", (int)dA->value_type);
}
