/*
 * dmatrix.cuh -- the device matrix object (struct psl_dmatrix) and the
 * internal interface between the device SpMV dispatcher (dspmv.cu) and the
 * kernels of each format (spmv_sell.cu, spmv_packsell.cu, spmv_csr.cu,
 * spmv_scale.cu). C++ linkage inside the CUDA gateway; the public API
 * (include/packsell.h) stays extern "C".
 */
#ifndef PSL_CUDA_DMATRIX_CUH
#define PSL_CUDA_DMATRIX_CUH

#include "core/vec_types.h"
#include "gateway.cuh"
#include "long_rows.h"

#include <mutex>

#define PSL_DMATRIX_MAGIC 0x44534c5053504dULL /* "MPSPLSD" */

/* The sliced part of a device matrix, passed by value to the SELL and
 * PackSELL kernels. Row and slice counts are int32, offsets int64. */
struct psl_dsliced {
    const int64_t *slice_ptr; /* nslices+1 offsets into words / sell_col / sell_val */
    const void *perm;         /* implicit permutation (perm_bytes each) or NULL */
    int32_t perm_bytes;
    int32_t sigma;
    int32_t C;
    int32_t nrows, ncols;
    int32_t dblock; /* rows of uniform PackSELL start column (psl_dblock) */
    int64_t kleft;  /* the lower bandwidth: max over rows of (row - first column) */
    /* log2 of sigma and dblock when they are powers of two, else -1, so the
     * kernels shift instead of dividing */
    int32_t sigma_shift, dblock_shift;
    /* PackSELL */
    const uint32_t *words;
    int32_t delta_bits, exp_bits; /* D of the words, e of the codec ExMy */
    float scale;                  /* psl_codec_decode_scale(exp_bits) */
    /* SELL */
    const int32_t *col;
    const void *val;
    /* Long rows (long_rows.h): slices at least wide_min_width positions wide
     * (UINT32_MAX: none) are "wide" and run by the first n_wide_blocks blocks
     * of the grid, the long-row blocks. Long-row block b takes segments
     * wide_blocks[b].y .. +PSL_WIDE_WARPS-1 (one a warp, seg_width positions
     * each) of slice wide_blocks[b].x. PackSELL reads each segment's starting
     * doubled column (its checkpoint) from seg_start_col2
     * ([b * PSL_WIDE_WARPS + warp][lane], computed at upload). With wide_cluster > 1 the launch is in
     * thread-block clusters of wide_cluster blocks, each holding the whole
     * blocks of one or more wide slices, which the cluster finishes (no
     * workspace). */
    uint32_t wide_min_width;
    int32_t seg_width;
    int32_t wide_cluster;
    int32_t n_wide_blocks;
    const int2 *wide_blocks;
    const uint32_t *seg_start_col2;
    /* > 0: every slice is this many positions wide, so stored row i starts
     * at (i / C) * C * uniform_width + i % C and no slice offset is loaded
     * (the short-row kernels of small matrices, on psl_dmatrix.padded) */
    int32_t uniform_width;
};

/* The kernel parameters of a CSR-k device matrix (spmv_csrk.cu), passed by
 * value. The CSR arrays are the device matrix's d_row_ptr and d_csr_col
 * (int32_t, or int64_t both when csr_index64) and d_csr_val; the
 * grouping is the device's own (made at upload from the CUDA model or the
 * PSL_CUDA_CSRK_* options), not necessarily the host matrix's. A block
 * takes a super-super-row (k = 3), a super-row (k = 2) or block_rows x
 * block_srs consecutive rows (k = 1); its threads are lanes x block_rows x
 * block_srs. */
struct psl_dcsrk {
    const void *row_ptr;
    const void *col;
    const void *val;
    const int32_t *sr_ptr;  /* nsr + 1 first rows (k >= 2) */
    const int32_t *ssr_ptr; /* nssr + 1 first super-rows (k = 3) */
    int32_t nrows;
    int32_t k;       /* levels of the device's grouping: 1, 2 or 3 */
    int32_t nblocks; /* the grid: nssr, nsr, or rows / (block_rows x block_srs) rounded up */
    int32_t lanes, block_rows, block_srs; /* lanes 0: the stream kernel, a block of
                                              block_rows x block_srs threads */
    const int32_t *perm; /* a locality reordering's perm (stored row -> the caller's),
                            NULL without one */
};

/*
 * A matrix resident on one CUDA device. Host copies of the scalar fields
 * and of the statistics; device copies of the arrays. Nothing in it changes
 * after upload except under csr_lock (the cuSPARSE handle's stream).
 */
struct psl_dmatrix {
    uint64_t magic;
    int device;   /* the device the arrays live on */
    int grid_max; /* most blocks worth launching: SMs x resident blocks per SM */
    int64_t small_rows_max; /* at most this many rows: the small-matrix kernels (PSL_LAT) */
    int64_t l2_bytes; /* the device's L2 cache */
    int stream_na;    /* psl_cuda_stream_na forced by PSL_CUDA_STREAM_NA: 0 or 1; -1 by size */
    int word_prefetch; /* psl_cuda_word_prefetch forced by PSL_CUDA_WORD_PREFETCH: 0/1; -1 by size */
    int wide_cl_max;  /* largest cluster for wide slices: PSL_WIDE_CLUSTER_MAX on sm_90+
                       * (PSL_CUDA_WIDE_CLUSTER lowers it), 1 without cluster launch */
    psl_matrix_info info;
    psl_format format;
    psl_scalar value_type;
    int32_t nrows, ncols;
    int64_t nnz;
    psl_codec codec;

    psl_dsliced s; /* SELL / PackSELL (device pointers inside) */
    int64_t max_width; /* widest slice in positions (set for C = 32; else INT64_MAX) */
    void *d_slice_ptr, *d_perm, *d_words, *d_col, *d_val;
    /* long rows: the device arrays of s.wide_blocks and s.seg_start_col2,
     * and (slice, first long-row block) of each wide slice wider than one
     * block or cluster, finished by psl_wide_finish_kernel from the
     * workspace */
    int32_t n_finish_slices;
    void *d_wide_blocks, *d_finish_slices, *d_seg_start_col2;
    /* small matrices whose slices all fit a short-row kernel: the kernel
     * parameters of the same slices padded to one width (the uniform copy,
     * padded.uniform_width > 0; 0: none), in d_padded unless they already
     * were of one width (tiny.cu) */
    psl_dsliced padded;
    void *d_padded;
    int tiny_uniform; /* 0: no uniform copy (PSL_CUDA_TINY_UNIFORM=0) */

    /* CSR-k (only when nrows, ncols and nnz are all > 0, but d_csrk_own
     * always): the kernel parameters, the device's pointer arrays (d_csrk_ptr)
     * and the host matrix's own (d_csrk_own, given back by download). Its
     * CSR arrays are those below, without a cuSPARSE handle. */
    psl_dcsrk ck;
    void *d_csrk_ptr, *d_csrk_own;

    /* CSR through cuSPARSE (only when nrows, ncols and nnz are all > 0) */
    void *d_row_ptr, *d_csr_col, *d_csr_val;
    bool csr_index64; /* 64-bit row offsets and columns (nnz >= 2^31) */
    cusparseHandle_t csr_handle;
    cusparseSpMatDescr_t csr_descr; /* the matrix */
    cusparseSpMVAlg_t csr_alg;
    size_t csr_ws_bytes[PSL_VEC_COUNT]; /* cuSPARSE workspace per vector type */
    std::mutex *csr_lock; /* serializes cusparseSetStream + cusparseSpMV */
};

/* Shared by upload (dmatrix.cu), the device conversion (convert.cu) and
 * download (download.cu): a new device matrix object for the host matrix
 * A -- only its scalar fields and statistics are read (an array-less shell
 * is fine): device, grid size, info = psl_matrix_get_info(A). */
psl_status psl_dmatrix_new(psl_dmatrix **out, const psl_matrix *A);
/* Blocks per thread-block cluster of the long-row kernels on device dev:
 * the largest power of two up to want (PSL_CUDA_WIDE_CLUSTER) and to what
 * the device runs; 1 without clusters (or a build below sm_90). The
 * uploads and the chooser's device model both take it from here. */
int psl_cuda_cluster_blocks(int dev, int want);
/* The kernel parameters of the sliced part (d->s) from A's fields and the
 * device arrays d->d_*; perm only for implicit permutation. */
void psl_dmatrix_set_sliced(psl_dmatrix *d, const psl_matrix *A);
/* The long-row tables of a sliced device matrix whose d->s is set
 * (wide.cu): the split of psl_wide_rule, wide slices from the host copy of
 * the slice offsets h_sp (NULL: max_width is the widest slice, and the
 * offsets are copied back from the device when it reaches the rule's
 * minimum), PackSELL checkpoints computed on the device. No-op unless
 * C == PSL_WIDE_C and some slice is wide. Ends with the stream synchronized
 * when it did anything. */
psl_status psl_dmatrix_setup_wide(psl_dmatrix *d, const int64_t *h_sp, int64_t max_width,
                                  cudaStream_t s);
/* The uniform copy of a small matrix's slices (d->padded, tiny.cu): when a
 * short-row kernel of small matrices runs it (psl_tiny_words). h_sp: the
 * host slice offsets, or NULL (then the copy is always made). Ends with the
 * stream synchronized when it made one. */
psl_status psl_dmatrix_setup_tiny(psl_dmatrix *d, const int64_t *h_sp, cudaStream_t s);
/* *dst = a new device array holding n elements of size bytes from host src
 * (NULL when n == 0), copied asynchronously on stream (dmatrix.cu). */
psl_status psl_dcopy(void **dst, const void *src, int64_t n, size_t size, cudaStream_t stream,
                     const char *what);
/* Free everything a (partial) device matrix holds, and the object. */
void psl_dmatrix_free(psl_dmatrix *d);

/* A pointer argument must be memory device `device` can address: plain
 * device memory of that device, managed memory or mapped pinned host memory.
 * An ordinary host pointer is refused (PSL_ERR_INVALID_VALUE, the message
 * starting with context and naming name) instead of faulting a kernel. */
psl_status psl_cuda_check_ptr(int device, const void *p, const char *context, const char *name);

/* Threads per block of every kernel of the gateway. */
#define PSL_CUDA_BLOCK 256
/* Tuning knobs (compile-time, -D to experiment; bench/tune_cuda.sh):
 * minimum resident blocks per SM asked of the compiler (caps registers),
 * and 1 to launch one thread per row instead of capping the grid. */
#ifndef PSL_CUDA_MINB
#define PSL_CUDA_MINB 8
#endif
/* FP64 vectors need twice the registers for x values and sums: half the
 * resident blocks rather than spills. */
#define PSL_CUDA_MINB_FOR(VEC) \
    (sizeof(typename VEC::acc) == 8 ? PSL_CUDA_MINB / 2 : PSL_CUDA_MINB)
#ifndef PSL_CUDA_GRID_FULL
#define PSL_CUDA_GRID_FULL 1
#endif
/* PackSELL's short-row kernel (every row in one load of its words and one
 * of its x values: rows of at most 2 x PSL_PACK_UNROLL words, or 2 x
 * PSL_LAT_UNROLL on small matrices); 0 turns it off. */
#ifndef PSL_SHORT_KERNEL
#define PSL_SHORT_KERNEL 1
#endif
/* Small matrices (every row's thread resident at once: rows <= SMs x
 * PSL_LAT_MINB x PSL_CUDA_BLOCK) do not need occupancy, only a short
 * chain of round trips: their kernels unroll PSL_LAT_UNROLL deep with up
 * to 65536 / (PSL_LAT_MINB x PSL_CUDA_BLOCK) registers, when their mean
 * slice width is at most 2 x PSL_LAT_UNROLL (wider rows run faster in the
 * general kernel: bench/NOTES.md, Small matrices). 0 turns it off. */
#ifndef PSL_LAT
#define PSL_LAT 1
#endif
#ifndef PSL_LAT_MINB
#define PSL_LAT_MINB 2
#endif
#ifndef PSL_LAT_UNROLL
#define PSL_LAT_UNROLL 8
#endif
static_assert(PSL_LAT_MINB * PSL_CUDA_BLOCK >= PSL_SMALL_ROWS_PER_SM,
              "every row of a small matrix must be resident at once");

/* Positions per row of the short-row kernels of small matrices: slices at
 * most PSL_SHORT_SMALL wide load each row as one group of that many; wider
 * ones up to PSL_SHORT_WIDE_SMALL (src/format/gpu_rules.h: such matrices
 * are not split) as one group of that many (none when it is at most
 * PSL_SHORT_SMALL). src/format/choose.c's tuning.short_group_small is
 * PSL_SHORT_SMALL. */
#ifndef PSL_SHORT_SMALL
#define PSL_SHORT_SMALL (2 * PSL_LAT_UNROLL)
#endif
/* The ROW_WIDTH of the wider kernel (never launched when it is off). */
#define PSL_SHORT_WIDE_WIDTH \
    (PSL_SHORT_WIDE_SMALL > PSL_SHORT_SMALL ? PSL_SHORT_WIDE_SMALL : PSL_SHORT_SMALL)
/* The widest slice the short-row kernels of a small matrix take. */
#define PSL_SHORT_SMALL_MAX PSL_SHORT_WIDE_WIDTH
/* Threads per block of the short-row kernels of small matrices (at most
 * PSL_CUDA_BLOCK, their launch bound): 128, so that more SMs share a small
 * matrix's rows than with 256; 64 is no better (bench/NOTES.md, Small
 * matrices). */
#ifndef PSL_TINY_BLOCK
#define PSL_TINY_BLOCK 128
#endif
/* Blocks of PSL_TINY_BLOCK threads for the small-matrix short-row kernels:
 * one thread per row, no stride. */
static inline unsigned psl_tiny_grid(const psl_dmatrix *dA)
{
    return ((unsigned)dA->nrows + PSL_TINY_BLOCK - 1) / PSL_TINY_BLOCK;
}

/* Blocks for n threads of work (n >= 1), capped by the matrix's grid_max:
 * the kernels stride over the rest. */
static inline unsigned psl_cuda_grid(const psl_dmatrix *dA, int64_t n)
{
    int64_t b = (n + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
    if (!PSL_CUDA_GRID_FULL && b > dA->grid_max)
        b = dA->grid_max;
    if (b > INT32_MAX)
        b = INT32_MAX;
    return (unsigned)(b < 1 ? 1 : b);
}

/* Whether the SELL/PackSELL kernels load dA's streams past L1 (their
 * STREAM_PAST_L1 form, psl_ld_na of vec_ops.cuh): when the matrix and the
 * vectors (vec_size bytes an element) outgrow PSL_STREAM_NA_L2 of the L2
 * cache. A matrix that stays in L2 between SpMVs is faster through the
 * read-only path; one that streams from DRAM is faster leaving L1 to x.
 * 0.9 lies between the largest matrix measured slower past L1 and the
 * smallest measured faster (bench/NOTES.md, Cache policy). */
#define PSL_STREAM_NA_L2 0.9
static inline bool psl_cuda_stream_na(const psl_dmatrix *dA, size_t vec_size)
{
    if (dA->stream_na >= 0) /* PSL_CUDA_STREAM_NA */
        return dA->stream_na == 1;
    const double bytes = (double)dA->info.bytes + (double)vec_size * (dA->nrows + dA->ncols);
    return dA->l2_bytes > 0 && bytes > PSL_STREAM_NA_L2 * (double)dA->l2_bytes;
}

/* Whether PackSELL's general FP16 kernel, where it streams dA, takes the
 * form for an x that streams from DRAM once (WORD_PREFETCH: the words
 * prefetched into L2 ahead and pipelined, spmv_packsell.cu): x (ncols x
 * vec_size bytes) larger than PSL_PREFETCH_X_L2 of the L2 cache, while the
 * columns of rows near each other lie within a band (2 x kleft, the lower
 * bandwidth) of x that fits PSL_PREFETCH_BAND_L2 of it, so that each x line
 * is read from DRAM about once and each row's chain of round trips is what
 * limits it. The thresholds separate the stencils that gain from those
 * with a smaller x and from random rows, which lose (bench/NOTES.md, Word
 * prefetch). */
#ifndef PSL_PREFETCH_X_L2
#define PSL_PREFETCH_X_L2 0.25
#endif
#ifndef PSL_PREFETCH_BAND_L2
#define PSL_PREFETCH_BAND_L2 0.125
#endif
static inline bool psl_cuda_word_prefetch(const psl_dmatrix *dA, size_t vec_size)
{
    if (dA->word_prefetch >= 0) /* PSL_CUDA_WORD_PREFETCH */
        return dA->word_prefetch == 1;
    const double l2 = (double)dA->l2_bytes;
    return l2 > 0 && (double)vec_size * (double)dA->ncols > PSL_PREFETCH_X_L2 * l2 &&
           2.0 * (double)vec_size * (double)dA->info.kleft <= PSL_PREFETCH_BAND_L2 * l2;
}

/* Whether the SELL/PackSELL kernels of dA take their small-matrix form
 * (PSL_LAT): C = 32, at most small_rows_max rows, mean slice width at most
 * 2 x PSL_LAT_UNROLL positions. */
static inline bool psl_cuda_small_rows(const psl_dmatrix *dA)
{
    const psl_matrix_info &f = dA->info;
    return dA->s.C == 32 && dA->nrows <= dA->small_rows_max && f.nslices > 0 &&
           f.stored <= (int64_t)f.nslices * 32 * 2 * PSL_LAT_UNROLL;
}

/* Kernel launchers: arguments checked by the dispatcher, alpha/beta already
 * rounded to the accumulation type by the caller's vector type. Each one
 * launches on `stream` and returns the launch status. */
/* The sliced launchers take the workspace of psl_cuda_wide_ws_bytes (the
 * long rows' partial sums). */
psl_status psl_cuda_sell_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                              void *y, psl_scalar vec_type, void *workspace,
                              cudaStream_t stream);
psl_status psl_cuda_packsell_spmv(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, void *workspace,
                                  cudaStream_t stream);
/* Workspace bytes of a sliced matrix: when a wide slice spans several
 * blocks, one partial sum per row of every long-row block, in the
 * accumulation type of vec_type; else 0. */
static inline size_t psl_cuda_wide_ws_bytes(const psl_dmatrix *dA, psl_scalar vec_type)
{
    if (dA->n_finish_slices == 0)
        return 0;
    return (size_t)dA->s.n_wide_blocks * PSL_WIDE_C * psl_vec_acc_size(vec_type);
}
/* y = alpha*0 + beta*y over nrows (a matrix without entries or columns). */
psl_status psl_cuda_scale_spmv(const psl_dmatrix *dA, double alpha, double beta, void *y,
                               psl_scalar vec_type, cudaStream_t stream);

/* CSR-k (spmv_csrk.cu): y = alpha*A*x + beta*y with the kernel of dA->ck. */
psl_status psl_cuda_csrk_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                              void *y, psl_scalar vec_type, cudaStream_t stream);
/* Most threads in a CSR-k block (the kernel's launch bound). */
#define PSL_CSRK_BLOCK_MAX 512
/* The stream kernel's entries a thread loads per window of a block: its
 * shared memory holds threads x this many products (a build may set it, to
 * measure another: bench/run_device_csrk_variants.sh). With the prefetch
 * of the next window (below), 8 entries and 4 blocks an SM (64 registers,
 * no spills for FP64 and FP32) were the fastest of 2, 4 and 8 entries and
 * 3 to 6 blocks on the H100 at a3085a4, by up to 12% over 4 entries
 * (bench/NOTES.md, CSR-k: the stream kernel); without the prefetch, 4
 * entries had beaten 8 (fewer registers, more blocks). */
#ifndef PSL_CSRK_STREAM_ELEMS
#define PSL_CSRK_STREAM_ELEMS 8
#endif
/* Whether the stream kernel issues the loads of its next window before the
 * adds of the current one (1) or at the top of each window (0): 1 was
 * 1.05-1.17x faster on the matrices of the stream kernel (H100, 26d5dc5);
 * a build may set 0, to measure it (bench/run_device_csrk_all.sh). */
#ifndef PSL_CSRK_STREAM_PREFETCH
#define PSL_CSRK_STREAM_PREFETCH 1
#endif
/* Most threads in a block of the stream kernel, and the blocks an SM must
 * hold (its launch bounds: the registers of a thread), for FP64
 * accumulation (4: 64 registers) and for FP32 (6: 40 registers, no spills;
 * 1.10-1.15x faster than 4 blocks on hpcg and banded on the H100 at
 * 72518f7, FP64 unchanged: bench/NOTES.md, CSR-k). */
#define PSL_CSRK_STREAM_BLOCK_MAX 256
#ifndef PSL_CSRK_STREAM_MIN_BLOCKS
#define PSL_CSRK_STREAM_MIN_BLOCKS 4
#endif
#ifndef PSL_CSRK_STREAM_MIN_BLOCKS_F32
#define PSL_CSRK_STREAM_MIN_BLOCKS_F32 6
#endif

/* The CSR arrays of A on the device (d_row_ptr, d_csr_col, d_csr_val,
 * csr_index64: 32-bit row offsets and columns when nnz < 2^31, else 64-bit
 * both), values of any type; nothing for a matrix without rows, columns or
 * entries. Waits for the stream (the staging copies). dmatrix.cu. */
psl_status psl_cuda_csr_arrays_upload(psl_dmatrix *d, const psl_matrix *A, cudaStream_t s);

/* cuSPARSE CSR part: set up at upload (handle, descriptor, buffer sizes),
 * run, and release. */
psl_status psl_cuda_csr_setup(psl_dmatrix *dA);
/* PSL_OK when cuSPARSE can multiply this CSR matrix with vec_type vectors,
 * else PSL_ERR_INVALID_VALUE naming the combination. */
psl_status psl_cuda_csr_check_type(const psl_dmatrix *dA, psl_scalar vec_type);
psl_status psl_cuda_csr_spmv(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                             void *y, psl_scalar vec_type, void *workspace,
                             cudaStream_t stream);
void psl_cuda_csr_release(psl_dmatrix *dA);

#endif /* PSL_CUDA_DMATRIX_CUH */
