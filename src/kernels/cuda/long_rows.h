/*
 * long_rows.h -- how the CUDA SELL and PackSELL kernels split long rows
 * (plain C, shared with the GPU tests). With C = 32, a slice at least
 * PSL_WIDE_MIN positions wide is "wide": instead of one thread per row
 * walking the whole width, its positions are cut into segments of
 * PSL_WIDE_SEG; a warp takes one segment for the 32 rows of the slice (lane =
 * row, so the loads of a position stay coalesced), the PSL_WIDE_WARPS warps
 * of a block take consecutive segments and add their sums in warp order, and
 * a second small kernel adds the blocks' partial sums of each row in block
 * order and writes y. The order is fixed, so results are bitwise
 * deterministic, but for rows of wide slices it is not the CPU kernels'
 * sequential order (narrow slices keep it bit for bit). PackSELL needs each
 * segment's starting column: computed once on the device at upload or
 * conversion (a checkpoint per segment and row, 4 bytes per 4 KiB of words).
 * Other slice heights keep one thread per row.
 */
#ifndef PSL_CUDA_LONG_ROWS_H
#define PSL_CUDA_LONG_ROWS_H

/* Slice height the split applies to. */
#define PSL_WIDE_C 32
/* Widest slice still run one thread per row is PSL_WIDE_MIN - 1 positions. */
#ifndef PSL_WIDE_MIN
#define PSL_WIDE_MIN 64
#endif
/* Positions per segment (one warp). */
#ifndef PSL_WIDE_SEG
#define PSL_WIDE_SEG 32
#endif
/* Warps (segments) per block: the kernels' blocks of 256 threads. */
#define PSL_WIDE_WARPS 8

#endif /* PSL_CUDA_LONG_ROWS_H */
