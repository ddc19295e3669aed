/*
 * long_rows.h -- how the CUDA SELL and PackSELL kernels split long rows
 * (plain C, shared with the GPU tests). With C = 32, a slice at least
 * wide_min_width positions wide is "wide": instead of one thread per row
 * walking the whole width, its positions are cut into segments of seg
 * positions (psl_dsliced.seg_width); a warp takes one segment for the 32
 * rows of the slice (lane = row, so the loads of a position stay
 * coalesced), and the PSL_WIDE_WARPS warps of a block take consecutive
 * segments and add their sums in warp order. A slice
 * that fits in one block is finished by that block. A wider one, in a small
 * matrix, runs on blocks of a thread-block cluster (sm_90): each block's sum
 * goes to the shared memory of the slice's first block (distributed shared
 * memory), which adds them in block order and writes y, in the same kernel.
 * Otherwise (large matrices, or wider than a cluster covers) each block
 * leaves one partial sum per row in the workspace, and a second small
 * kernel adds them in block order and writes y. The order is fixed, so results
 * are bitwise deterministic, but for rows of wide slices it is not the CPU
 * kernels' sequential order (narrow slices keep it bit for bit). PackSELL
 * needs each segment's starting column: computed once on the device at
 * upload or conversion (a checkpoint per segment and row). Other slice
 * heights keep one thread per row.
 */
#ifndef PSL_CUDA_LONG_ROWS_H
#define PSL_CUDA_LONG_ROWS_H

#include <stdint.h>

/* Slice height the split applies to. */
#define PSL_WIDE_C 32
/* Warps (segments) per block: the kernels' blocks of 256 threads. */
#define PSL_WIDE_WARPS 8
/* Most blocks of the cluster that finishes a wide slice: 16, past sm_90's
 * portable size of 8, where the device has it (H100/H200; dmatrix.cu asks
 * the occupancy calculator): clusters of 16 blocks in segments of 16 run
 * slices of 1,024-2,048 positions faster than 8 blocks in segments of 32
 * (bench/NOTES.md, Long rows). */
#define PSL_WIDE_CLUSTER_MAX 16
/* Rows from which one thread per row fills an H200 (132 SMs x 2048
 * threads is 2^18; half of that). */
#define PSL_WIDE_BIG_ROWS (1 << 17)

/* Segments of at most this many positions: a slice that fits one block
 * with them takes no cluster (one block beats clusters of shorter
 * segments; longer segments in one block lose to a cluster: bench/NOTES.md,
 * Long rows). */
#define PSL_WIDE_SOLO_SEG 16

/* Rows per SM of a small matrix: at most SMs x this many rows, every row's
 * thread of the small-matrix kernels is resident at once (dmatrix.cuh:
 * PSL_LAT_MINB blocks of PSL_CUDA_BLOCK threads). */
#define PSL_SMALL_ROWS_PER_SM 512
/* Widest slice (positions) that the short-row kernels of small matrices
 * load as one group (dmatrix.cuh): a small matrix whose slices all fit it
 * is not split. */
#ifndef PSL_SHORT_WIDE_SMALL
#define PSL_SHORT_WIDE_SMALL 32
#endif
/* The split of a matrix of nrows rows whose widest slice has max_width
 * positions: slices of at least *wide_min positions, in segments of *seg,
 * wide slices in thread-block clusters of *cl blocks (1: no cluster) when
 * the device has clusters of up to cl_max blocks (1: none). short_max: the
 * widest slice a short-row kernel takes whole (PSL_SHORT_WIDE_SMALL when
 * the matrix is small enough for those kernels, else 0): a matrix whose
 * slices fit it is not split (one group of loads a row is shorter than the
 * split's two rounds). A large matrix keeps its threads busy with one row
 * each, so only rows far longer than the rest (>= 64) are split, in
 * segments of 32, and never in clusters. In a small one every thread walks
 * a whole row while most of the GPU idles, so slices of 16 and more are
 * split: in segments of 8 or 16 when the widest fits one block of 8 warps
 * so; else in the shortest segments (8 to 32) that let it fit a cluster,
 * with the fewest blocks per cluster that hold it; wider than the largest
 * cluster (or without clusters), segments of 32 -- one block when that
 * fits, else partial sums and the finishing
 * kernel (bench/NOTES.md, Long rows). */
static inline void psl_wide_rule(int64_t nrows, int64_t max_width, int32_t cl_max,
                                 int64_t short_max, int32_t *wide_min, int32_t *seg, int32_t *cl)
{
    *cl = 1;
    if (nrows >= PSL_WIDE_BIG_ROWS) {
        *wide_min = 64;
        *seg = 32;
        return;
    }
    *wide_min = 16;
    *seg = 8;
    if (max_width <= short_max) {
        *wide_min = (int32_t)short_max + 1;
        return;
    }
    while (*seg < PSL_WIDE_SOLO_SEG && (int64_t)*seg * PSL_WIDE_WARPS < max_width)
        *seg *= 2;
    if ((int64_t)*seg * PSL_WIDE_WARPS >= max_width)
        return; /* one block */
    *seg = 8;
    while (*seg < 32 && (int64_t)*seg * PSL_WIDE_WARPS * cl_max < max_width)
        *seg *= 2;
    while (*cl < cl_max && (int64_t)*seg * PSL_WIDE_WARPS * *cl < max_width)
        *cl *= 2;
    if ((int64_t)*seg * PSL_WIDE_WARPS * *cl < max_width)
        *cl = 1; /* wider than a cluster: partial sums and the finishing kernel */
}

#endif /* PSL_CUDA_LONG_ROWS_H */
