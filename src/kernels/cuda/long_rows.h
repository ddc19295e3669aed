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

#include "format/gpu_rules.h" /* the rule and its constants (shared with the chooser) */

#endif /* PSL_CUDA_LONG_ROWS_H */
