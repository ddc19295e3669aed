/*
 * gpu_rules.h -- the rules of the CUDA SELL and PackSELL kernels that the
 * format chooser (choose.c) models too, in plain C so that neither side
 * needs the other's headers: the split of long rows (psl_wide_rule; the
 * kernels' side is described in src/kernels/cuda/long_rows.h) and the
 * thresholds of the small-matrix kernels. Device-independent: what depends
 * on the device (SM count, largest cluster) is passed in.
 */
#ifndef PSL_FORMAT_GPU_RULES_H
#define PSL_FORMAT_GPU_RULES_H

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

#endif /* PSL_FORMAT_GPU_RULES_H */
