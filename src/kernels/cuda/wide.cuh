/*
 * wide.cuh -- the device side of the long-row split (long_rows.h) shared by
 * the SELL and PackSELL kernels: which segment a warp of a long-row block
 * takes, the block's ordered sum of its warps (written to y when the slice
 * fits in the block or its cluster, else to the workspace), the kernel that
 * adds the block sums of the wider slices in order and writes y, and the
 * launch of a sliced kernel (as a cluster launch when wide slices take
 * clusters).
 */
#ifndef PSL_CUDA_WIDE_CUH
#define PSL_CUDA_WIDE_CUH

#include "sliced_row.cuh"

#include <atomic>
#include <cooperative_groups.h>
#include <type_traits>

static_assert(PSL_CUDA_BLOCK == 32 * PSL_WIDE_WARPS, "a long-row block is PSL_WIDE_WARPS warps");
static_assert(PSL_FIXED_C == PSL_WIDE_C, "the long-row split runs in the C = 32 kernels");

/* Blocks of a slice of width positions split in segments of seg. */
__host__ __device__ __forceinline__ uint32_t psl_wide_blocks(uint32_t width, uint32_t seg)
{
    const uint32_t segs = (width + seg - 1) / seg;
    return (segs + PSL_WIDE_WARPS - 1) / PSL_WIDE_WARPS;
}

/* Width in positions of slice k (C = 32). */
__device__ __forceinline__ uint32_t psl_wide_width(const psl_dsliced &m, int32_t k, int64_t *s0)
{
    *s0 = __ldg((const long long *)m.slice_ptr + k);
    const int64_t s1 = __ldg((const long long *)m.slice_ptr + k + 1);
    return (uint32_t)((uint64_t)(s1 - *s0) / PSL_WIDE_C);
}

/* This thread's part of a long-row block (blockIdx.x < n_wide_blocks): the
 * segment's positions of its row (0: past the slice's end) from entry index
 * first, the index of the segment's starting column in m.seg_start_col2
 * (seg_slot), its stored row, the block's index within its slice
 * (block_in_slice; 0: the slice's lead block) and the slice's blocks
 * (slice_blocks; blocks with block_in_slice >= slice_blocks only pad a
 * cluster). With clusters, every thread of the block also arrives at the
 * cluster barrier that psl_wide_cluster_end waits on (all blocks started:
 * their shared memory may be written). */
struct psl_wide_seg {
    int64_t first;
    uint32_t positions;
    uint32_t seg_slot;
    uint32_t row;
    uint32_t block_in_slice;
    uint32_t slice_blocks;
};

__device__ __forceinline__ psl_wide_seg psl_wide_seg_of(const psl_dsliced &m)
{
#if __CUDA_ARCH__ >= 900
    if (m.wide_cluster > 1)
        __cluster_barrier_arrive_relaxed();
#endif
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint32_t seg = (uint32_t)m.seg_width;
    const int2 wb = __ldg(m.wide_blocks + blockIdx.x);
    int64_t s0;
    const uint32_t width = psl_wide_width(m, wb.x, &s0);
    const uint32_t j0 = ((uint32_t)wb.y + warp) * seg;
    psl_wide_seg g;
    g.positions = j0 < width ? min(seg, width - j0) : 0u;
    g.first = s0 + (int64_t)j0 * PSL_WIDE_C + lane;
    g.seg_slot = (blockIdx.x * PSL_WIDE_WARPS + warp) * PSL_WIDE_C + lane;
    g.row = (uint32_t)wb.x * PSL_WIDE_C + lane;
    g.block_in_slice = (uint32_t)wb.y / PSL_WIDE_WARPS;
    g.slice_blocks = psl_wide_blocks(width, seg);
    return g;
}

/* Wide slices in a cluster (m.wide_cluster blocks, called by every thread
 * of each): warp 0 of every block of a slice writes its sum u of each row
 * (lane = row) into row block_in_slice of the lead block's sums (sum, in the
 * lead's shared memory: distributed shared memory), after the barrier that
 * psl_wide_seg_of arrived at; after one more cluster barrier the lead adds
 * its slice's g.slice_blocks rows in block order and writes y. */
template <class VEC>
__device__ __forceinline__ void psl_wide_cluster_end(const psl_dsliced &m, const psl_wide_seg &g,
                                                     typename VEC::acc u, typename VEC::acc *sum,
                                                     typename VEC::elem *__restrict__ y,
                                                     typename VEC::acc a, typename VEC::acc b,
                                                     bool use_beta)
{
#if __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    __cluster_barrier_wait();
    if (warp == 0 && g.block_in_slice < g.slice_blocks)
        cluster.map_shared_rank(sum, cluster.block_rank() - g.block_in_slice)
            [g.block_in_slice * PSL_WIDE_C + lane] = u;
    cluster.sync();
    if (warp == 0 && g.block_in_slice == 0) {
        typename VEC::acc v = sum[lane];
        for (uint32_t r = 1; r < g.slice_blocks; r++)
            v = psl_add(v, sum[r * PSL_WIDE_C + lane]);
        if (g.row < (uint32_t)m.nrows)
            VEC::finish(y, psl_out_row(m, g.row), v, a, b, use_beta);
    }
#else /* the host launches clusters only when every image is sm_90+ (PSL_CUDA_ARCH_MIN) */
    (void)m, (void)g, (void)u, (void)sum, (void)y, (void)a, (void)b, (void)use_beta;
    __trap();
#endif
}

/* Every thread of the block calls this with its segment's sum t: the warps'
 * sums of each row added in warp order, then y = a*sum (+ b*y) when the
 * block has the whole slice, the cluster's order when the slice has a
 * cluster, else one partial per row in part. */
template <class VEC>
__device__ __forceinline__ void psl_wide_end(const psl_dsliced &m, const psl_wide_seg &g,
                                             typename VEC::acc t,
                                             typename VEC::acc *__restrict__ part,
                                             typename VEC::elem *__restrict__ y,
                                             typename VEC::acc a, typename VEC::acc b,
                                             bool use_beta)
{
    typedef typename VEC::acc ACC;
    /* dynamic shared memory (psl_sliced_call_of): a launch without long-row
     * blocks asks for none; with clusters, wide_cluster more rows: the sums of
     * a lead block's slice */
    extern __shared__ __align__(8) unsigned char psl_wide_buf[];
    ACC(*red)[PSL_WIDE_C] = (ACC(*)[PSL_WIDE_C])psl_wide_buf;
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    red[warp][lane] = t;
    __syncthreads();
    ACC u = 0;
    if (warp == 0) {
        u = red[0][lane];
#pragma unroll
        for (int w = 1; w < PSL_WIDE_WARPS; w++)
            u = psl_add(u, red[w][lane]);
    }
    if (m.wide_cluster > 1)
        psl_wide_cluster_end<VEC>(m, g, u, red[PSL_WIDE_WARPS], y, a, b, use_beta);
    else if (warp != 0)
        return;
    else if (g.slice_blocks > 1)
        part[(size_t)blockIdx.x * PSL_WIDE_C + lane] = u;
    else if (g.row < (uint32_t)m.nrows)
        VEC::finish(y, psl_out_row(m, g.row), u, a, b, use_beta);
}

/* The body of the general SELL and PackSELL kernels (C = FIXED_C; 0: any):
 * the long-row blocks first (C = 32, blockIdx.x < n_wide_blocks), each thread's
 * segment summed by wide(g, t) and the block's sums ended by psl_wide_end;
 * then one thread per row (psl_for_rows) over the rest of the grid, each row
 * summed by row(i, slot, t) and written by VEC::finish. */
template <class VEC, int FIXED_C, class Wide, class Row>
__device__ __forceinline__ void psl_sliced_rows(const psl_dsliced &m,
                                                typename VEC::elem *__restrict__ y,
                                                typename VEC::acc a, typename VEC::acc b,
                                                bool use_beta, typename VEC::acc *__restrict__ part,
                                                Wide wide, Row row)
{
    typedef typename VEC::acc ACC;
    /* the long-row blocks come first */
    const int32_t nw = FIXED_C == PSL_WIDE_C ? m.n_wide_blocks : 0;
    if ((int32_t)blockIdx.x < nw) {
        const psl_wide_seg g = psl_wide_seg_of(m);
        ACC t = 0;
        wide(g, t);
        psl_wide_end<VEC>(m, g, t, part, y, a, b, use_beta);
        return;
    }
    const uint32_t stride = (gridDim.x - (uint32_t)nw) * blockDim.x;
    psl_for_rows<FIXED_C>(m, (blockIdx.x - (uint32_t)nw) * blockDim.x + threadIdx.x, stride,
                          [&](uint32_t i, const psl_row_slot &r) {
                              const int64_t o = psl_out_row(m, i); /* overlaps the row's loads */
                              ACC t = 0;
                              row(i, r, t);
                              VEC::finish(y, o, t, a, b, use_beta);
                          });
}

/* One thread per row of a wide slice spanning several blocks: its blocks'
 * partials added in block order, then y = a*sum (+ b*y). finish_slices[k] =
 * (slice, first block). */
template <class VEC>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_wide_finish_kernel(psl_dsliced m, const int2 *__restrict__ finish_slices,
                           int32_t n_finish_slices,
                           const typename VEC::acc *__restrict__ part,
                           typename VEC::elem *__restrict__ y, typename VEC::acc a,
                           typename VEC::acc b, bool use_beta)
{
    typedef typename VEC::acc ACC;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t ws = t / PSL_WIDE_C, lane = t % PSL_WIDE_C;
    if (ws >= (uint32_t)n_finish_slices)
        return;
    const int2 s = finish_slices[ws];
    const uint32_t i = (uint32_t)s.x * PSL_WIDE_C + lane;
    if (i >= (uint32_t)m.nrows)
        return;
    int64_t s0;
    const uint32_t nb = psl_wide_blocks(psl_wide_width(m, s.x, &s0), (uint32_t)m.seg_width);
    ACC u = part[(size_t)s.y * PSL_WIDE_C + lane];
    for (uint32_t k = 1; k < nb; k++)
        u = psl_add(u, part[((size_t)s.y + k) * PSL_WIDE_C + lane]);
    VEC::finish(y, psl_out_row(m, i), u, a, b, use_beta);
}

/* After a sliced kernel: the finishing kernel on the same stream, when a
 * wide slice spans several blocks. */
template <class VEC>
static psl_status psl_wide_finish(const psl_dmatrix *dA, const void *part,
                                  typename VEC::elem *y, typename VEC::acc a, typename VEC::acc b,
                                  bool use_beta, cudaStream_t stream)
{
    if (dA->n_finish_slices == 0)
        return PSL_OK;
    const int64_t threads = (int64_t)dA->n_finish_slices * PSL_WIDE_C;
    const unsigned grid = (unsigned)((threads + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK);
    psl_wide_finish_kernel<VEC><<<grid, PSL_CUDA_BLOCK, 0, stream>>>(
        dA->s, (const int2 *)dA->d_finish_slices, dA->n_finish_slices,
        (const typename VEC::acc *)part, y, a, b, use_beta);
    return psl_cuda_launch_status("long-row finishing");
}

/* What a SELL or PackSELL launch passes, the same for both kernels: grid
 * (the long-row blocks, then one thread per row; rows of wide slices are
 * skipped), dynamic shared memory (the warps' sums of a long-row block, none
 * when the matrix has no wide slice), the vectors, alpha and beta in the
 * accumulation type, and the workspace of partial sums. */
template <class VEC> struct psl_sliced_call {
    unsigned grid;
    size_t smem;
    const typename VEC::elem *x;
    typename VEC::elem *y;
    typename VEC::acc a, b;
    bool use_beta;
    typename VEC::acc *part;
};

template <class VEC>
static inline psl_sliced_call<VEC> psl_sliced_call_of(const psl_dmatrix *dA, double alpha,
                                                    const void *x, double beta, void *y,
                                                    void *workspace)
{
    psl_sliced_call<VEC> c;
    const unsigned cl = (unsigned)dA->s.wide_cluster; /* the grid is whole clusters */
    c.grid = (psl_cuda_grid(dA, dA->nrows) + cl - 1) / cl * cl + (unsigned)dA->s.n_wide_blocks;
    c.smem = dA->s.n_wide_blocks > 0 ? (size_t)(PSL_WIDE_WARPS + (cl > 1 ? cl : 0)) * PSL_WIDE_C *
                                    sizeof(typename VEC::acc)
                              : 0;
    c.x = (const typename VEC::elem *)x;
    c.y = (typename VEC::elem *)y;
    c.a = psl_acc_scalar<VEC>(alpha);
    c.b = psl_acc_scalar<VEC>(beta);
    c.use_beta = beta != 0;
    c.part = (typename VEC::acc *)workspace;
    return c;
}

/* Kernel<<<c.grid, PSL_CUDA_BLOCK, c.smem, stream>>>(args...), in clusters
 * of dA->s.wide_cluster blocks when wide slices take clusters (past 8 blocks the
 * kernel is allowed non-portable sizes, once per device); returns the
 * launch's status for psl_sliced_end. */
template <auto Kernel, class VEC, class... A>
static inline cudaError_t psl_sliced_launch(const psl_dmatrix *dA, const psl_sliced_call<VEC> &c,
                                            cudaStream_t stream, A... args)
{
    static std::atomic<uint64_t> non_portable(0); /* bit d: set on device d */
    cudaLaunchAttribute at;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(c.grid);
    cfg.blockDim = dim3(PSL_CUDA_BLOCK);
    cfg.dynamicSmemBytes = c.smem;
    cfg.stream = stream;
    if (dA->s.wide_cluster > 1) {
        const uint64_t bit = dA->device < 64 ? 1ull << dA->device : 0;
        if (dA->s.wide_cluster > 8 && !(non_portable.load(std::memory_order_relaxed) & bit)) {
            const cudaError_t e =
                cudaFuncSetAttribute(Kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
            if (e != cudaSuccess)
                return e;
            non_portable.fetch_or(bit, std::memory_order_relaxed);
        }
        at.id = cudaLaunchAttributeClusterDimension;
        at.val.clusterDim.x = (unsigned)dA->s.wide_cluster;
        at.val.clusterDim.y = 1;
        at.val.clusterDim.z = 1;
        cfg.attrs = &at;
        cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, Kernel, args...);
}

/* f(past_l1) with past_l1 = psl_cuda_stream_na(dA, vec_size) as a
 * compile-time constant: whether the kernel loads the matrix streams past L1
 * (the STREAM_PAST_L1 template parameter). */
template <class F>
static inline void psl_with_stream_past_l1(const psl_dmatrix *dA, size_t vec_size, F f)
{
    if (psl_cuda_stream_na(dA, vec_size))
        f(std::true_type());
    else
        f(std::false_type());
}

/* The form of the general SELL/PackSELL kernel that runs dA with vectors
 * of vec_size bytes, handed to launch(fixed_c, small_matrix, past_l1) as
 * compile-time constants (the kernels' FIXED_C, SMALL_MATRIX and
 * STREAM_PAST_L1): fixed_c = PSL_FIXED_C for C = 32, else 0; small_matrix:
 * the small-matrix form (psl_cuda_small_rows, C = 32 only); past_l1:
 * psl_with_stream_past_l1 (never for small matrices, which fit L2). */
template <class F>
static inline void psl_sliced_form(const psl_dmatrix *dA, size_t vec_size, F launch)
{
    typedef std::integral_constant<int, PSL_FIXED_C> c32;
    typedef std::integral_constant<int, 0> cany;
    if (dA->s.C != PSL_FIXED_C)
        psl_with_stream_past_l1(
            dA, vec_size, [&](auto past_l1) { launch(cany(), std::false_type(), past_l1); });
    else if (psl_cuda_small_rows(dA))
        launch(c32(), std::true_type(), std::false_type());
    else
        psl_with_stream_past_l1(
            dA, vec_size, [&](auto past_l1) { launch(c32(), std::false_type(), past_l1); });
}

/* Whether a short-row kernel (every row as one predicated group) may run
 * dA at all: C = 32 and no long rows. */
static inline bool psl_short_ok(const psl_dmatrix *dA)
{
    return PSL_SHORT_KERNEL && dA->s.C == PSL_FIXED_C && dA->s.n_wide_blocks == 0;
}

/* Positions per row of the short-row kernel of a small matrix that runs
 * dA: PSL_SHORT_SMALL or PSL_SHORT_WIDE_WIDTH for a matrix of at most
 * small_rows_max rows whose slices fit that, else 0. */
static inline int psl_tiny_words(const psl_dmatrix *dA)
{
    if (!psl_short_ok(dA) || dA->nrows > dA->small_rows_max || dA->max_width > PSL_SHORT_SMALL_MAX)
        return 0;
    return dA->max_width <= PSL_SHORT_SMALL ? PSL_SHORT_SMALL : PSL_SHORT_WIDE_WIDTH;
}

/* Positions per row of the short-row kernel that runs dA: 2 x unroll when
 * every slice fits that and large is set (PackSELL; SELL's columns and
 * values need too many registers at full occupancy), else psl_tiny_words
 * (0: the general kernel). */
static inline int psl_short_words(const psl_dmatrix *dA, int unroll, bool large)
{
    if (large && psl_short_ok(dA) && dA->max_width <= 2 * unroll)
        return 2 * unroll;
    return psl_tiny_words(dA);
}

/* The kernel parameters of the short-row kernels: those of dA's uniform
 * copy (tiny.cu) when it has one, else its own. */
static inline const psl_dsliced &psl_short_params(const psl_dmatrix *dA)
{
    return dA->padded.uniform_width > 0 ? dA->padded : dA->s;
}

/* launch(w) with w = short_width as a compile-time constant (the short-row
 * kernels' ROW_WIDTH) when short_width is PSL_SHORT_SMALL or
 * PSL_SHORT_WIDE_WIDTH (psl_tiny_words); returns whether it called launch. */
template <class F> static inline bool psl_with_short_width(int short_width, F launch)
{
    if (short_width == PSL_SHORT_SMALL)
        launch(std::integral_constant<int, PSL_SHORT_SMALL>());
    else if (short_width == PSL_SHORT_WIDE_WIDTH)
        launch(std::integral_constant<int, PSL_SHORT_WIDE_WIDTH>());
    else
        return false;
    return true;
}

/* After the launch of kernel `name` (launched: the status its launch call
 * returned, if it had one): its status, then the finishing kernel of slices
 * wider than one block. */
template <class VEC>
static psl_status psl_sliced_end(const psl_dmatrix *dA, const psl_sliced_call<VEC> &c,
                                 const char *name, cudaStream_t stream,
                                 cudaError_t launched = cudaSuccess)
{
    PSL_TRY(psl_cuda_launch_status(name, launched));
    return psl_wide_finish<VEC>(dA, c.part, c.y, c.a, c.b, c.use_beta, stream);
}

#endif /* PSL_CUDA_WIDE_CUH */
