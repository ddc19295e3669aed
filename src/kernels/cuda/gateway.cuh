/*
 * gateway.cuh -- the CUDA gateway (the .cu files of src/kernels/cuda/): the
 * map of its SpMV kernel forms below, and its error plumbing: every
 * cudaError_t and cusparseStatus_t becomes a psl_status (PSL_ERR_CUDA with
 * the CUDA message and the call that failed).
 *
 * Kernel forms of the device SpMV, and the rule that picks each. psl_dspmv
 * (dspmv.cu) goes by the matrix's format; psl_sell_launch (spmv_sell.cu) and
 * psl_pack_launch (spmv_packsell.cu) pick among the sliced forms at every
 * call from what upload recorded (dmatrix.cuh, wide.cuh). The measurements
 * behind each rule are in bench/NOTES.md (GPU kernel forms and why, Long
 * rows, Small matrices, Cache policy, Word prefetch). Every sliced form
 * gives the bits of the CPU kernels, except for rows of wide slices, summed
 * in segments in a fixed order (long_rows.h); CSR follows cuSPARSE's order.
 *
 *   General sliced kernel -- psl_sell_kernel, psl_packsell_kernel: one
 *     thread per stored row, a warp per slice at C = 32 (loads of a
 *     position coalesced), groups of PSL_SELL_UNROLL / PSL_PACK_UNROLL
 *     positions, the grid strided over the rows; FIXED_C = 32 compiles the
 *     slice height in, 0 reads it. The default (psl_sliced_form).
 *   Long rows over warps and clusters -- C = 32, slices at least
 *     wide_min_width positions wide: cut into segments, a warp a segment,
 *     run by the first blocks of the same launch; the warps' sums are added
 *     in order by their block, by a thread-block cluster through
 *     distributed shared memory (sm_90), or by psl_wide_finish_kernel from
 *     the workspace. Rule: psl_wide_rule (src/format/gpu_rules.h, which
 *     long_rows.h includes), applied at upload by
 *     psl_dmatrix_setup_wide (wide.cu).
 *   Small-matrix form (SMALL_MATRIX) -- C = 32, at most small_rows_max rows
 *     (every thread resident at once) and short mean rows: deeper groups
 *     (PSL_LAT_UNROLL) under a looser register cap, fewer round trips a
 *     row. Rule: psl_cuda_small_rows (dmatrix.cuh).
 *   Short-row kernels -- psl_sell_short_kernel, psl_packsell_short_kernel:
 *     C = 32, no long rows (psl_short_ok), each row as one predicated group
 *     of ROW_WIDTH positions, nothing else in the kernel. PackSELL at full
 *     occupancy when every slice is at most 2 x PSL_PACK_UNROLL wide
 *     (psl_short_words); both formats on small matrices whose slices are at
 *     most PSL_SHORT_SMALL or PSL_SHORT_WIDE_WIDTH wide, in blocks of
 *     PSL_TINY_BLOCK (psl_tiny_words). They are tried first.
 *   Padded uniform copy -- for a small matrix that a short-row kernel runs,
 *     its slices padded to one width at upload (psl_dmatrix.padded,
 *     tiny.cu), so a row's first entry is arithmetic and the slice offsets
 *     are not loaded. Rule: psl_dmatrix_setup_tiny (when psl_tiny_words is
 *     not 0 and PSL_CUDA_TINY_UNIFORM is not 0); psl_short_params hands it
 *     to the kernels.
 *   Cache policy (STREAM_PAST_L1) -- the matrix streams loaded past L1
 *     (ld.global.nc.L1::no_allocate, leaving L1 to the x gathers) when
 *     matrix and vectors outgrow most of L2, else through the read-only
 *     path (__ldg). Rule: psl_cuda_stream_na (dmatrix.cuh), forced by
 *     PSL_CUDA_STREAM_NA; never for small matrices.
 *   FP16 word prefetch (WORD_PREFETCH) -- PackSELL FP16, C = 32, streamed
 *     past L1, when x outgrows L2 while rows near each other read a narrow
 *     band of it: the groups pipelined and the words PSL_PACK_PREFETCH
 *     groups ahead prefetched into L2. Rule: psl_cuda_word_prefetch
 *     (dmatrix.cuh), forced by PSL_CUDA_WORD_PREFETCH.
 *   E8 pipelining (PIPELINED) -- PackSELL E8MY/BF16 general kernel streamed
 *     past L1: each group loads the next group's words before its own x
 *     gathers. Rule: compile time in psl_packsell_kernel (PSL_PACK_PIPE_E8,
 *     PSL_PACK_PIPE_F16) under STREAM_PAST_L1.
 *   CSR through cuSPARSE -- cusparseSpMV with CSR_ALG2 (deterministic, its
 *     own summation order), for the value/vector pairs cuSPARSE has
 *     (psl_csr_vec_cuda_type, spmv_csr.cu). Rule: the CSR format.
 *   CSR-k -- psl_csrk_kernel (spmv_csrk.cu): a block per super-super-row
 *     or super-row of the device's grouping (made at upload, csrk_cuda.cu),
 *     a thread or a group of lanes per row; block shape, lanes and sizes
 *     from the CUDA rows of the tuning model (csrk_model.c) for d = nnz /
 *     rows. Rule: the CSR-k format. One-thread rows give the CPU's bits;
 *     rows of several lanes are added in a fixed order of their own.
 *   Empty matrices -- psl_scale_kernel (spmv_scale.cu): y = beta*y, x not
 *     read, when nnz or ncols is 0. Rule: psl_dspmv.
 *
 * Usage inside a function with one cleanup path:
 *     psl_status st = PSL_OK;
 *     PSL_CUDA_GO(cudaMalloc(&p, n));          // on failure: st set, goto fail
 *     PSL_CUSPARSE_GO(cusparseCreate(&h));
 * or, where nothing needs cleaning up:
 *     PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&dev)));
 */
#ifndef PSL_CUDA_GATEWAY_CUH
#define PSL_CUDA_GATEWAY_CUH

#include "internal.h"

#include <cuda_runtime.h>
#include <cusparse.h>

/* PSL_OK for cudaSuccess; otherwise PSL_ERR_CUDA naming the call. The
 * runtime's last error is cleared (a non-sticky error must not surface again
 * in an unrelated later call). */
static inline psl_status psl_cuda_status(cudaError_t err, const char *call)
{
    if (err == cudaSuccess)
        return PSL_OK;
    (void)cudaGetLastError();
    return psl_error(PSL_ERR_CUDA, "%s failed: %s (%s)", call, cudaGetErrorString(err),
                     cudaGetErrorName(err));
}

/* PSL_OK for CUSPARSE_STATUS_SUCCESS; otherwise PSL_ERR_CUDA naming the call. */
static inline psl_status psl_cusparse_status(cusparseStatus_t err, const char *call)
{
    if (err == CUSPARSE_STATUS_SUCCESS)
        return PSL_OK;
    return psl_error(PSL_ERR_CUDA, "%s failed: cuSPARSE %s (%s)", call,
                     cusparseGetErrorString(err), cusparseGetErrorName(err));
}

#define PSL_CUDA_OK(call) psl_cuda_status((call), #call)
#define PSL_CUSPARSE_OK(call) psl_cusparse_status((call), #call)

/* Run a CUDA / cuSPARSE call; on failure set `st` and jump to `fail`. */
#define PSL_CUDA_GO(call)                         \
    do {                                          \
        st = PSL_CUDA_OK(call);                   \
        if (st != PSL_OK)                         \
            goto fail;                            \
    } while (0)
#define PSL_CUSPARSE_GO(call)                     \
    do {                                          \
        st = PSL_CUSPARSE_OK(call);               \
        if (st != PSL_OK)                         \
            goto fail;                            \
    } while (0)

/* The error of a kernel launch just made (bad configuration, no kernel image
 * for this device, ...), as a psl_status naming the kernel: err, the status
 * a launch call returned, or else the thread's last error (<<<>>>). */
static inline psl_status psl_cuda_launch_status(const char *kernel, cudaError_t err = cudaSuccess)
{
    const cudaError_t last = cudaGetLastError(); /* read (and reset) either way */
    if (err == cudaSuccess)
        err = last;
    if (err == cudaSuccess)
        return PSL_OK;
    return psl_error(PSL_ERR_CUDA, "launch of the %s kernel failed: %s (%s)", kernel,
                     cudaGetErrorString(err), cudaGetErrorName(err));
}

#endif /* PSL_CUDA_GATEWAY_CUH */
