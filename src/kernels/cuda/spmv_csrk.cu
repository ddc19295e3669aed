/*
 * spmv_csrk.cu -- the CSR-k SpMV kernels (the GPU mapping of Lane and
 * Booth, ALGORITHMS.md section 9, and a streaming form of it). Two kernels,
 * chosen by the lanes of the CUDA tuning model's row for d = nnz/rows
 * (csrk_model.c) at upload:
 *
 *  - lanes >= 1, the authors' mapping: one thread block per
 *    super-super-row (k = 3), its threads threadIdx.z over the super-rows
 *    and threadIdx.y over the rows of each, or per super-row (k = 2) and per
 *    block_rows x block_srs consecutive rows (k = 1), its threads over the
 *    rows. A row is summed by one thread (lanes = 1) or by a group of lanes
 *    adjacent threads of one warp (threadIdx.x) that stride over its
 *    entries, coalesced, and add their sums by a shuffle tree.
 *  - lanes = 0, the stream kernel: one block per super-super-row (k = 3),
 *    super-row (k = 2) or block of rows (k = 1); its super-rows are taken in
 *    turn, and the entries of each (in windows of threads x
 *    PSL_CSRK_STREAM_ELEMS) are loaded by all the block's threads at once,
 *    consecutive threads on consecutive entries, their products v x[c]
 *    written to shared memory; then one thread a row adds its row's
 *    products from there. Every load of the values and columns is
 *    coalesced whatever the row lengths, and no lane idles at a row's end;
 *    the loads of the next window are issued before the adds of this one
 *    (bench/NOTES.md, CSR-k: the stream kernel).
 *
 * Templated over the vector kind, the stored value type (FP64, FP32, FP16;
 * FP16 values accumulate in FP32 with FP16 or FP32 vectors) and the width
 * of the row offsets and columns (IDX: int32_t, or int64_t for nnz >= 2^31,
 * as the device CSR arrays are stored).
 *
 * Summation order: a row of one thread, and every row of the stream
 * kernel, is summed in column order with each multiply and add rounded
 * (the arithmetic contract of src/kernels/kernels.h), so its y has the bits
 * of the CPU kernels. A row of lanes threads is summed lane by lane
 * (entries lane, lane + lanes, ...) then by the tree (lane 0 + lane
 * lanes/2, ...): a fixed order of its own, bitwise repeatable run to run
 * but not the CPU's bits.
 */
#include "vec_ops.cuh"

/* Stored value k as the type it widens from exactly: double, float, or the
 * float of an FP16 value (bits in an unsigned short); loaded past L1
 * (PAST_L1: the stream kernel on a matrix larger than L2, so that L1 keeps
 * the x gathers) or through __ldg. */
template <bool PAST_L1 = false>
__device__ __forceinline__ double psl_csrk_value(const double *v, int64_t k)
{
    return psl_ld_stream<PAST_L1>(v + k);
}
template <bool PAST_L1 = false>
__device__ __forceinline__ float psl_csrk_value(const float *v, int64_t k)
{
    return psl_ld_stream<PAST_L1>(v + k);
}
template <bool PAST_L1 = false>
__device__ __forceinline__ float psl_csrk_value(const unsigned short *v, int64_t k)
{
    return __half2float(__ushort_as_half(psl_ld_stream<PAST_L1>(v + k)));
}

/* The sum of row r's entries e0 .. e1-1 in this thread's share: all of
 * them in column order (LANES_GT1 false), or entries e0 + lane, + lanes, ...
 * EXACT: the product is exact in float (FP16 values and FP16 vectors), so
 * a fused multiply-add gives the same bits. */
template <class VEC, class VAL, class IDX, bool LANES_GT1>
__device__ __forceinline__ typename VEC::acc psl_csrk_row_part(
    const psl_dcsrk &m, int64_t e0, int64_t e1, uint32_t lane,
    const typename VEC::elem *__restrict__ x)
{
    typedef typename VEC::acc ACC;
    constexpr bool EXACT = sizeof(VAL) == 2 && sizeof(typename VEC::elem) == 2;
    const VAL *__restrict__ val = (const VAL *)m.val;
    const IDX *__restrict__ col = (const IDX *)m.col;
    ACC t = 0;
    if (!LANES_GT1) {
        int64_t e = e0;
        /* four entries' loads in flight together, their sums in order */
        for (; e + 4 <= e1; e += 4) {
            IDX c[4];
            typename VEC::elem xv[4];
#pragma unroll
            for (int u = 0; u < 4; u++)
                c[u] = __ldg(col + e + u);
#pragma unroll
            for (int u = 0; u < 4; u++)
                xv[u] = VEC::raw2(x, 2u * (uint32_t)c[u]);
#pragma unroll
            for (int u = 0; u < 4; u++)
                t = psl_madd<EXACT>(t, psl_to_acc<ACC>(psl_csrk_value(val, e + u)),
                                    (ACC)VEC::widen(xv[u]));
        }
        for (; e < e1; e++)
            t = psl_madd<EXACT>(t, psl_to_acc<ACC>(psl_csrk_value(val, e)),
                                (ACC)VEC::widen(VEC::raw2(x, 2u * (uint32_t)__ldg(col + e))));
    } else {
        const uint32_t lanes = (uint32_t)m.lanes;
#pragma unroll 2
        for (int64_t e = e0 + lane; e < e1; e += lanes)
            t = psl_madd<EXACT>(t, psl_to_acc<ACC>(psl_csrk_value(val, e)),
                                (ACC)VEC::widen(VEC::raw2(x, 2u * (uint32_t)__ldg(col + e))));
    }
    return t;
}

/* Row r: its sum over the lanes of its group (every lane of the group
 * calls this for the same r, so the group is converged at the shuffles;
 * seg_mask names the group's threads in the warp), written by lane 0. */
template <class VEC, class VAL, class IDX, bool LANES_GT1>
__device__ __forceinline__ void psl_csrk_row(const psl_dcsrk &m, int32_t r, uint32_t lane,
                                             unsigned seg_mask,
                                             const typename VEC::elem *__restrict__ x,
                                             typename VEC::elem *__restrict__ y,
                                             typename VEC::acc a, typename VEC::acc b,
                                             bool use_beta)
{
    const IDX *__restrict__ rp = (const IDX *)m.row_ptr;
    const int64_t e0 = (int64_t)__ldg(rp + r), e1 = (int64_t)__ldg(rp + r + 1);
    typename VEC::acc t = psl_csrk_row_part<VEC, VAL, IDX, LANES_GT1>(m, e0, e1, lane, x);
    if (LANES_GT1)
        for (int o = m.lanes >> 1; o > 0; o >>= 1)
            t = psl_add(t, __shfl_down_sync(seg_mask, t, o, m.lanes));
    if (lane == 0)
        VEC::finish(y, r, t, a, b, use_beta);
}

/* The rows r0 .. r1-1 of block g for k = 1 or 2: super-row g (k = 2), or
 * rows g x per .. (g + 1) x per - 1 (k = 1, per rows a block). */
__device__ __forceinline__ void psl_csrk_block_rows(const psl_dcsrk &m, int32_t g, int32_t per,
                                                    int32_t &r0, int32_t &r1)
{
    if (m.k == 2) {
        r0 = __ldg(m.sr_ptr + g);
        r1 = __ldg(m.sr_ptr + g + 1);
    } else {
        const int64_t first = (int64_t)g * per;
        r0 = (int32_t)first; /* g < nblocks = ceil(nrows / per): first < nrows */
        r1 = (int32_t)(first + per < m.nrows ? first + per : m.nrows);
    }
}

/* The kernel: block blockIdx.x of the grouping (psl_dcsrk), threads
 * (lanes, block_rows, block_srs). Every index it reads lies inside the
 * arrays: group g < nblocks reads sr/ssr entries g and g + 1 (nsr + 1 and
 * nssr + 1 entries, nblocks = nsr or nssr), rows r < nrows read row
 * offsets r and r + 1 (nrows + 1 entries), entries e < row_ptr[nrows] =
 * nnz. */
template <class VEC, class VAL, class IDX, bool LANES_GT1>
__global__ void __launch_bounds__(PSL_CSRK_BLOCK_MAX)
    psl_csrk_kernel(psl_dcsrk m, const typename VEC::elem *__restrict__ x,
                    typename VEC::elem *__restrict__ y, typename VEC::acc a, typename VEC::acc b,
                    bool use_beta)
{
    const uint32_t lane = LANES_GT1 ? threadIdx.x : 0;
    const uint32_t tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    /* the group of lanes of this thread's row: lanes (a power of two up to
     * 32, blockDim.x) adjacent threads starting at a multiple of lanes */
    const unsigned seg_mask =
        !LANES_GT1 || m.lanes >= 32
            ? 0xffffffffu
            : ((1u << m.lanes) - 1u) << ((tid & 31u) & ~((uint32_t)m.lanes - 1u));
    const int32_t g = (int32_t)blockIdx.x;
    if (m.k == 3) {
        const int32_t s1 = __ldg(m.ssr_ptr + g + 1);
        for (int32_t s = __ldg(m.ssr_ptr + g) + (int32_t)threadIdx.z; s < s1;
             s += (int32_t)blockDim.z) {
            const int32_t r1 = __ldg(m.sr_ptr + s + 1);
            for (int32_t r = __ldg(m.sr_ptr + s) + (int32_t)threadIdx.y; r < r1;
                 r += (int32_t)blockDim.y)
                psl_csrk_row<VEC, VAL, IDX, LANES_GT1>(m, r, lane, seg_mask, x, y, a, b,
                                                       use_beta);
        }
        return;
    }
    const int32_t per = (int32_t)(blockDim.y * blockDim.z);
    int32_t r0, r1;
    psl_csrk_block_rows(m, g, per, r0, r1);
    for (int32_t r = r0 + (int32_t)(threadIdx.y + blockDim.y * threadIdx.z); r < r1; r += per)
        psl_csrk_row<VEC, VAL, IDX, LANES_GT1>(m, r, lane, seg_mask, x, y, a, b, use_beta);
}

/* Column k of the stream kernel, as psl_csrk_value loads a value (64-bit
 * columns always through __ldg: no past-L1 load of that width). */
template <bool PAST_L1>
__device__ __forceinline__ int32_t psl_csrk_scol(const int32_t *c, int64_t k)
{
    return psl_ld_stream<PAST_L1>(c + k);
}
template <bool PAST_L1>
__device__ __forceinline__ int64_t psl_csrk_scol(const int64_t *c, int64_t k)
{
    return __ldg(c + k);
}

/* The chunks of rows of one stream block, in order: its super-rows s ..
 * s1-1 (k = 3; by_sr) or its one range of rows (k = 1, 2), each cut every
 * nt rows. The rows of consecutive chunks are consecutive, so are their
 * entries: the entries of the block are one stream, cut into windows at
 * chunk starts and every nt x PSL_CSRK_STREAM_ELEMS entries. */
struct psl_csrk_chunks {
    int32_t s, s1;  /* the super-row of the chunk, past the block's last */
    int32_t c0, c1; /* the chunk's rows c0 .. c1-1 */
    int32_t sr_end; /* past the last row of super-row s (k = 1, 2: of the range) */
};

/* The end of the chunk that starts at it.c0: nt rows on, or the end of
 * the super-row. */
__device__ __forceinline__ void psl_csrk_chunk_cut(int32_t nt, psl_csrk_chunks &it)
{
    it.c1 = it.sr_end - it.c0 < nt ? it.sr_end : it.c0 + nt;
}

/* Move it to the next chunk; false past the block's last. */
__device__ __forceinline__ bool psl_csrk_chunk_next(const psl_dcsrk &m, bool by_sr, int32_t nt,
                                                    psl_csrk_chunks &it)
{
    it.c0 = it.c1;
    if (it.c0 >= it.sr_end) {
        if (!by_sr || ++it.s >= it.s1)
            return false;
        it.sr_end = __ldg(m.sr_ptr + it.s + 1); /* c0 = sr_ptr[s]: super-rows are consecutive */
    }
    psl_csrk_chunk_cut(nt, it);
    return true;
}

/* The end of the window that starts at entry w of a chunk ending at entry
 * end: a tile on, or the chunk's end. */
__device__ __forceinline__ int64_t psl_csrk_window_end(int64_t w, int64_t end, int64_t tile)
{
    return end - w < tile ? end : w + tile;
}

/* This thread's entries of the window [w0, w1) of the block's stream:
 * w0 + t + u nt for u nt < w1 - w0 - t, columns into c, values into v. */
template <class VAL, class IDX, class ACC, bool PAST_L1>
__device__ __forceinline__ void psl_csrk_window_load(const IDX *__restrict__ col,
                                                     const VAL *__restrict__ val, int64_t w0,
                                                     int64_t w1, int32_t t, int32_t nt,
                                                     IDX (&c)[PSL_CSRK_STREAM_ELEMS],
                                                     ACC (&v)[PSL_CSRK_STREAM_ELEMS])
{
    const int32_t here = (int32_t)(w1 - w0) - t;
    const IDX *__restrict__ cw = col + w0 + t;
    const VAL *__restrict__ vw = val + w0 + t;
#pragma unroll
    for (int u = 0; u < PSL_CSRK_STREAM_ELEMS; u++)
        c[u] = u * nt < here ? psl_csrk_scol<PAST_L1>(cw, u * nt) : 0;
#pragma unroll
    for (int u = 0; u < PSL_CSRK_STREAM_ELEMS; u++)
        v[u] = u * nt < here ? psl_to_acc<ACC>(psl_csrk_value<PAST_L1>(vw, u * nt)) : (ACC)0;
}

/* The stream kernel: block blockIdx.x of the grouping, blockDim.x = nt
 * threads (at most PSL_CSRK_STREAM_BLOCK_MAX, registers for at least
 * PSL_CSRK_STREAM_MIN_BLOCKS such blocks an SM with FP64 accumulation, 64,
 * and PSL_CSRK_STREAM_MIN_BLOCKS_F32 with FP32, 40; no spills),
 * nt x PSL_CSRK_STREAM_ELEMS products of shared memory. Chunk by chunk of
 * at most nt rows (thread t takes row c0 + t), the chunk's entries in
 * windows of nt x PSL_CSRK_STREAM_ELEMS: all threads load a window's
 * entries (coalesced), gather x, write the products to shared memory;
 * then each thread adds its row's products in column order, its sum
 * carried from window to window. With PSL_CSRK_STREAM_PREFETCH the loads
 * of the next window of the stream (of this chunk or the next) are issued
 * before the adds of this one, so they travel while the block adds.
 * Reads as the lanes kernel: group g < nblocks reads sr/ssr entries g and
 * g + 1, rows r < nrows read row offsets r and r + 1, entries
 * e < row_ptr[nrows]. */
template <class VEC, class VAL, class IDX, bool PAST_L1>
__global__ void __launch_bounds__(PSL_CSRK_STREAM_BLOCK_MAX, sizeof(typename VEC::acc) == 8
                                                                  ? PSL_CSRK_STREAM_MIN_BLOCKS
                                                                  : PSL_CSRK_STREAM_MIN_BLOCKS_F32)
    psl_csrk_stream_kernel(psl_dcsrk m, const typename VEC::elem *__restrict__ x,
                           typename VEC::elem *__restrict__ y, typename VEC::acc a,
                           typename VEC::acc b, bool use_beta)
{
    typedef typename VEC::acc ACC;
    constexpr int EL = PSL_CSRK_STREAM_ELEMS;
    extern __shared__ __align__(16) unsigned char psl_csrk_smem[];
    ACC *prod = (ACC *)psl_csrk_smem;
    const IDX *__restrict__ rp = (const IDX *)m.row_ptr;
    const IDX *__restrict__ col = (const IDX *)m.col;
    const VAL *__restrict__ val = (const VAL *)m.val;
    const int32_t nt = (int32_t)blockDim.x, t = (int32_t)threadIdx.x;
    const int64_t tile = (int64_t)nt * EL;
    const int32_t g = (int32_t)blockIdx.x;
    const bool by_sr = m.k == 3;
    psl_csrk_chunks it;
    if (by_sr) {
        it.s = __ldg(m.ssr_ptr + g);
        it.s1 = __ldg(m.ssr_ptr + g + 1);
        if (it.s >= it.s1)
            return;
        it.c0 = __ldg(m.sr_ptr + it.s);
        it.sr_end = __ldg(m.sr_ptr + it.s + 1);
    } else {
        it.s = 0;
        it.s1 = 1;
        psl_csrk_block_rows(m, g, nt, it.c0, it.sr_end);
    }
    psl_csrk_chunk_cut(nt, it);
    IDX c[EL];
    ACC v[EL];
    int64_t pf_end = -1; /* the registers hold the window that ends here (-1: none) */
    do {
        const int32_t r = it.c0 + t;
        const bool mine = r < it.c1;
        const int64_t w_end = (int64_t)__ldg(rp + it.c1);
        const int64_t e0 = mine ? (int64_t)__ldg(rp + r) : 0, e1 = mine ? (int64_t)__ldg(rp + r + 1) : 0;
        ACC sum = 0;
        for (int64_t w0 = (int64_t)__ldg(rp + it.c0), w1; w0 < w_end; w0 = w1) {
            w1 = psl_csrk_window_end(w0, w_end, tile);
            /* the window starts where the last one ended: the registers hold
             * it unless a chunk without entries came between (a uniform test) */
            if (!PSL_CSRK_STREAM_PREFETCH || pf_end != w1)
                psl_csrk_window_load<VAL, IDX, ACC, PAST_L1>(col, val, w0, w1, t, nt, c, v);
            const int32_t here = (int32_t)(w1 - w0) - t;
            typename VEC::elem xv[EL];
#pragma unroll
            for (int u = 0; u < EL; u++)
                if (u * nt < here)
                    xv[u] = VEC::raw2(x, 2u * (uint32_t)c[u]);
            __syncthreads(); /* the last window's products are read */
#pragma unroll
            for (int u = 0; u < EL; u++)
                if (u * nt < here)
                    prod[t + u * nt] = psl_mul(v[u], (ACC)VEC::widen(xv[u]));
            if (PSL_CSRK_STREAM_PREFETCH) { /* the next window: [w1, n1) */
                int64_t n1 = w1;
                if (w1 < w_end) {
                    n1 = psl_csrk_window_end(w1, w_end, tile);
                } else {
                    psl_csrk_chunks nx = it;
                    if (psl_csrk_chunk_next(m, by_sr, nt, nx))
                        n1 = psl_csrk_window_end(w1, (int64_t)__ldg(rp + nx.c1), tile);
                }
                psl_csrk_window_load<VAL, IDX, ACC, PAST_L1>(col, val, w1, n1, t, nt, c, v);
                pf_end = n1;
            }
            __syncthreads();
            const int32_t lo = (int32_t)((e0 > w0 ? e0 : w0) - w0),
                          hi = (int32_t)((e1 < w1 ? e1 : w1) - w0);
#pragma unroll 4
            for (int32_t e = lo; e < hi; e++)
                sum = psl_add(sum, prod[e]);
        }
        if (mine)
            VEC::finish(y, r, sum, a, b, use_beta);
    } while (psl_csrk_chunk_next(m, by_sr, nt, it));
}

template <class VEC, class VAL, class IDX>
static psl_status psl_csrk_launch(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, cudaStream_t stream)
{
    const psl_dcsrk &m = dA->ck;
    const typename VEC::acc a = psl_acc_scalar<VEC>(alpha), b = psl_acc_scalar<VEC>(beta);
    const typename VEC::elem *xv = (const typename VEC::elem *)x;
    typename VEC::elem *yv = (typename VEC::elem *)y;
    if (m.lanes == 0) {
        const unsigned nt = (unsigned)(m.block_rows * m.block_srs);
        const size_t shm = (size_t)nt * PSL_CSRK_STREAM_ELEMS * sizeof(typename VEC::acc);
        if (psl_cuda_stream_na(dA, sizeof(typename VEC::elem)))
            psl_csrk_stream_kernel<VEC, VAL, IDX, true>
                <<<(unsigned)m.nblocks, nt, shm, stream>>>(m, xv, yv, a, b, beta != 0);
        else
            psl_csrk_stream_kernel<VEC, VAL, IDX, false>
                <<<(unsigned)m.nblocks, nt, shm, stream>>>(m, xv, yv, a, b, beta != 0);
        return psl_cuda_launch_status("CSR-k SpMV");
    }
    const dim3 block((unsigned)m.lanes, (unsigned)m.block_rows, (unsigned)m.block_srs);
    if (m.lanes > 1)
        psl_csrk_kernel<VEC, VAL, IDX, true>
            <<<(unsigned)m.nblocks, block, 0, stream>>>(m, xv, yv, a, b, beta != 0);
    else
        psl_csrk_kernel<VEC, VAL, IDX, false>
            <<<(unsigned)m.nblocks, block, 0, stream>>>(m, xv, yv, a, b, beta != 0);
    return psl_cuda_launch_status("CSR-k SpMV");
}

template <class VAL>
static psl_status psl_csrk_by_vec(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, cudaStream_t stream)
{
    return psl_with_vec(vec_type, "CSR-k device SpMV", [&](auto v) {
        return dA->csr_index64
                   ? psl_csrk_launch<decltype(v), VAL, int64_t>(dA, alpha, x, beta, y, stream)
                   : psl_csrk_launch<decltype(v), VAL, int32_t>(dA, alpha, x, beta, y, stream);
    });
}

psl_status psl_cuda_csrk_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                              void *y, psl_scalar vec_type, cudaStream_t stream)
{
    switch (dA->value_type) {
    case PSL_FP64: return psl_csrk_by_vec<double>(dA, alpha, x, beta, y, vec_type, stream);
    case PSL_FP32: return psl_csrk_by_vec<float>(dA, alpha, x, beta, y, vec_type, stream);
    case PSL_FP16:
        return psl_csrk_by_vec<unsigned short>(dA, alpha, x, beta, y, vec_type, stream);
    default: break;
    }
    return psl_error(PSL_ERR_INTERNAL, "CSR-k device SpMV: value type %d", (int)dA->value_type);
}
