/*
 * packsell.h -- the whole public API of libpacksell.
 *
 * libpacksell stores sparse matrices in CSR, SELL-C-sigma and PackSELL
 * (SELL-C-sigma whose column deltas and values are packed into one 32-bit
 * word, arXiv 2604.13433) and multiplies them with dense vectors:
 *
 *     y = alpha * A * x + beta * y        (beta == 0: y is not read)
 *
 * Conventions, valid for every function below unless it says otherwise:
 *  - Every function returns a psl_status; PSL_OK (0) is success, negative
 *    values are errors. On error, output handles are set to NULL, caller
 *    arrays are left untouched, and psl_last_error() on the same thread
 *    gives a message naming the offending line / row / column.
 *  - The library never prints, aborts or exits. The option PSL_TRACE=1
 *    (environment or psl_option_set) asks it to print its kernel choices
 *    to stderr.
 *  - Indices: int32 for rows and columns, int64 for nonzero counts, row
 *    pointers, slice offsets and byte sizes. Handles are 0-based inside;
 *    1-based input is accepted at the CSR boundary.
 *  - All pointers are host memory, except the device arrays of the CUDA
 *    section and the data of vectors on a CUDA executor. All calls are
 *    synchronous (the solver layer: see its section) and
 *    deterministic (the same inputs give the same bits, whatever the number
 *    of OpenMP threads).
 *  - Handles are not thread-safe for concurrent destroy; const handles may be
 *    used concurrently from several threads.
 */
#ifndef PACKSELL_H
#define PACKSELL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSL_VERSION_MAJOR 0
#define PSL_VERSION_MINOR 1
#define PSL_VERSION_PATCH 0

/* ------------------------------------------------------------------ status */

/* Status codes. -1..-19: misuse or bad data supplied by the caller;
 * -20 and below: runtime failures. psl_status_string() has a message for each. */
typedef enum psl_status {
    PSL_OK = 0,
    PSL_ERR_NULL_POINTER = -1,    /* a required pointer argument is NULL */
    PSL_ERR_INVALID_VALUE = -2,   /* an argument is outside its documented range */
    PSL_ERR_INVALID_HANDLE = -3,  /* the handle is freed, garbage or of another kind */
    PSL_ERR_WRONG_FORMAT = -4,    /* operation not defined for this matrix format */
    PSL_ERR_INVALID_MATRIX = -5,  /* CSR arrays inconsistent (pointers, columns, order) */
    PSL_ERR_NONFINITE = -6,       /* NaN or Inf among the matrix values */
    PSL_ERR_CODEC_OVERFLOW = -7,  /* a value exceeds the codec's largest finite value */
    PSL_ERR_PARSE = -8,           /* Matrix Market / spec text is malformed */
    PSL_ERR_UNSUPPORTED = -9,     /* valid input of a kind we do not handle (complex) */
    PSL_ERR_FILE_CORRUPT = -10,   /* binary file truncated, inconsistent or bad checksum */
    PSL_ERR_FILE_VERSION = -11,   /* binary file written by an incompatible version */
    PSL_ERR_IO = -20,             /* open/read/write failed (see message for errno text) */
    PSL_ERR_OUT_OF_MEMORY = -21,  /* an allocation failed */
    PSL_ERR_SIZE_OVERFLOW = -22,  /* a size exceeds the index types (int32 rows, int64 words) */
    PSL_ERR_NOT_SUPPORTED = -23,  /* feature not compiled in (e.g. CUDA in a CPU build) */
    PSL_ERR_CUDA = -24,           /* a CUDA runtime or cuSPARSE call failed */
    PSL_ERR_NOT_CONVERGED = -25,  /* a solve stopped at its iteration limit (result: residual) */
    PSL_ERR_BREAKDOWN = -26,      /* a solve broke down: p.Ap <= 0 (indefinite), NaN, stagnation */
    PSL_ERR_MPI = -27,            /* an MPI call failed (distributed layer, packsell_mpi.h) */
    PSL_ERR_INTERNAL = -30        /* a bug in libpacksell: please report it */
} psl_status;

/* Static English text for a status code (never NULL). */
const char *psl_status_string(psl_status status);

/* Details of the last failing call on this thread. Fields that do not apply
 * are -1. Row and column numbers are 0-based unless the message says
 * otherwise; line is the 1-based line of a text file. */
typedef struct psl_error_info {
    psl_status status;
    int64_t line;
    int64_t row;
    int64_t col;
    char message[512];
} psl_error_info;

/* Copy the details of the last error on the calling thread into *info. */
void psl_last_error(psl_error_info *info);
/* The message of the last error on the calling thread ("" if none). */
const char *psl_last_error_message(void);

/* Library version string, e.g. "0.1.0 (openmp, cuda)". */
const char *psl_version(void);

/* Free memory that a psl_* function allocated for the caller (vectors). */
void psl_free(void *ptr);

/* ------------------------------------------------------------- options */

/* Runtime options. Each is named by its environment variable; a program sets
 * it with psl_option_set, which takes precedence over the environment. All
 * values give the same results (PSL_SOLVER_FUSE: up to rounding): the
 * options choose a kernel or a form of it, to measure and test each.
 *
 *  name                    values                    default  what it does
 *  PSL_KERNEL              auto|omp|ref              auto     CPU SpMV backend: auto takes the
 *                                                             OpenMP/SIMD kernels (omp) where they
 *                                                             cover the matrix and vector types,
 *                                                             else the scalar reference kernels
 *                                                             (ref); omp or ref forces one.
 *  PSL_CPU_ISA             auto|generic|avx2|avx512  auto     cap on the instruction set of the
 *                                                             omp SELL/PackSELL kernels (auto: the
 *                                                             best this CPU has, detected once).
 *  PSL_TRACE               0|1                       0        1 prints to stderr which kernel
 *                                                             psl_spmv runs and why, the pick of
 *                                                             psl_choose_format, and the timings
 *                                                             of psl_mm_read and psl_matrix_load.
 *  PSL_CUDA_STREAM_NA      auto|0|1                  auto     GPU: 1 streams the matrix past L1,
 *                                                             0 loads it through L1; auto decides
 *                                                             by the matrix's size against L2.
 *  PSL_CUDA_WORD_PREFETCH  auto|0|1                  auto     GPU, PackSELL FP16: 1 forces the form
 *                                                             for an x larger than L2 (words
 *                                                             prefetched into L2 ahead), 0 the
 *                                                             other; auto takes it when x is over
 *                                                             a quarter of L2 and the lower
 *                                                             bandwidth within an eighth.
 *  PSL_CUDA_TINY_UNIFORM   0|1                       1        GPU: 0 turns off the copy of a small
 *                                                             matrix's slices padded to one width.
 *  PSL_CUDA_WIDE_CLUSTER   1..16                     16       GPU (sm_90+): most thread blocks in
 *                                                             the cluster of a long-row slice,
 *                                                             rounded down to a power of two and to
 *                                                             what the device runs; 1: no clusters.
 *  PSL_CUDA_CSRK_SR_ROWS   0..100000                 0        GPU, CSR-k: rows per super-row of the
 *                                                             device's grouping (k = 2: rows per
 *                                                             block); 0: the CUDA tuning model's.
 *  PSL_CUDA_CSRK_SSR_SRS   0..100000                 0        GPU, CSR-k, k = 3: super-rows per
 *                                                             super-super-row (a block) of the
 *                                                             device's grouping; 0: the model's.
 *  PSL_CSRK_FIT            PATH                      (unset)  CSR-k: a fit file of the tuning model
 *                                                             (packsell tune-csrk) replacing the
 *                                                             default tables of the device kinds it
 *                                                             has rows for; a file that cannot be
 *                                                             read or is invalid fails every use of
 *                                                             the model with its error (see
 *                                                             psl_csrk_model_load).
 *  PSL_SOLVER_FUSE         0|1                       1        CG: 1 runs the fused vector steps
 *                                                             (residual update, Jacobi and both
 *                                                             dots in one pass; x and p updates in
 *                                                             one pass); 0 separate operations
 *                                                             (results equal up to rounding).
 *  PSL_MEMORY_CHECK        0|1                       1        1: psl_generate, the Matrix Market
 *                                                             readers, SELL/PackSELL conversions
 *                                                             (padding included) and each growth
 *                                                             of the SD-AINV factors refuse a
 *                                                             request whose estimated memory
 *                                                             exceeds what is available now (the
 *                                                             message gives both); 0 tries anyway.
 *  PSL_SOLVER_LOOKAHEAD    0|1                       1        CG to a tolerance: 1 queues the next
 *                                                             step before the host waits for the
 *                                                             current step's test (preconditioners
 *                                                             without an inner solver), so a GPU
 *                                                             does not wait for the host; 0 waits
 *                                                             first (same results).
 *  PSL_SOLVER_DEFER_READS  0|1                       1        inner GMRES/FGMRES cycles (fixed
 *                                                             steps, no second pass: F3R's layers
 *                                                             2-3) read their Hessenberg columns
 *                                                             once at the end; 0 once per step
 *                                                             (same results).
 *  PSL_SOLVER_GRAPH        0|1                       1        GPU: 1 replays CG's work from CUDA
 *                                                             graphs captured at first use: an
 *                                                             inner CG's fixed iterations (a CG
 *                                                             operator's apply, as in IO-CG) and
 *                                                             the queued step of a CG solve with
 *                                                             lookahead; 0 launches their kernels
 *                                                             one by one (same results).
 *  PSL_HUGEPAGES           0|1                       1        Linux: 1 advises transparent huge
 *                                                             pages (MADV_HUGEPAGE) for the
 *                                                             library's host blocks of at least
 *                                                             twice the huge page size, aligned to
 *                                                             it (psl_host_alloc too); 0 plain
 *                                                             malloc (same results). Allocations
 *                                                             take an invalid value as 0 (they
 *                                                             have no error to give);
 *                                                             psl_option_get reports it and the
 *                                                             packsell command refuses it.
 *  PSL_DIST_MPI_CUDA_AWARE auto|0|1                  auto     libpacksell_mpi on GPUs: whether MPI
 *                                                             takes device buffers: auto asks the
 *                                                             MPI (MPIX_Query_cuda_support); 1
 *                                                             declares it (an MPI that does not
 *                                                             say so); 0 never.
 *  PSL_MEMORY_LIMIT        BYTES[K|M|G|T]            0        a ceiling on one request's memory:
 *                          (x1024 each)                       the same requests are refused when
 *                                                             estimated above it, small ones too,
 *                                                             with the estimate (whatever
 *                                                             PSL_MEMORY_CHECK says); 0: none. "64M" is 64 MiB;
 *                                                             at most 2^49. psl_option_get gives
 *                                                             bytes ("67108864").
 *
 * When they are read: PSL_KERNEL, PSL_CPU_ISA and PSL_TRACE by psl_spmv on
 * every call (PSL_KERNEL also by psl_spmv_kernel_name; PSL_TRACE also by
 * the other calls that trace); PSL_CSRK_FIT by the first use of the CSR-k
 * tuning model after it takes a value; the PSL_CUDA_* options by psl_dmatrix_upload
 * and psl_dmatrix_convert, and a device matrix keeps the forms it was built
 * with; PSL_SOLVER_FUSE by every CG solve (inner ones too), PSL_SOLVER_LOOKAHEAD
 * by every CG solve to a tolerance, PSL_SOLVER_DEFER_READS by every inner
 * GMRES/FGMRES call, PSL_SOLVER_GRAPH by every CG solve and apply of a CG
 * operator, PSL_DIST_MPI_CUDA_AWARE by psl_dist_matrix_upload, PSL_HUGEPAGES
 * by every host allocation of the library of at least twice the huge page size,
 * PSL_MEMORY_CHECK and PSL_MEMORY_LIMIT by
 * psl_generate, the Matrix Market readers, psl_matrix_convert (SELL,
 * PackSELL) and the SD-AINV build.
 *
 * The environment is read once per process, at the first call that reads
 * any option; later changes to the environment are not seen. An empty
 * variable counts as unset. An invalid value (PSL_CPU_ISA=bogus,
 * PSL_CUDA_WIDE_CLUSTER=3x) makes every call that reads that option fail
 * with PSL_ERR_INVALID_VALUE and a message naming the variable, the value
 * and the accepted values, until the program sets the option (psl_spmv
 * fails for an invalid PSL_TRACE; the other tracing calls then print
 * nothing). psl_option_get reports it the same way.
 *
 * Thread safety: psl_option_set and psl_option_get may be called from any
 * thread, but a call running concurrently may see the old or the new value:
 * set options before the threads that use the library start. */

/* Longest value text psl_option_get writes, with its terminating NUL, for
 * every option but the path PSL_CSRK_FIT, whose text is shorter than
 * PSL_OPTION_PATH_MAX (a longer one, or one with a control character, is
 * an invalid value). */
#define PSL_OPTION_VALUE_MAX 16
#define PSL_OPTION_PATH_MAX 4096

/* Set option `name` (e.g. "PSL_KERNEL") to `value`, validated as the
 * environment's value is; "" sets the default. value NULL removes the
 * program's setting: the environment's value (or the default) applies
 * again. Errors: PSL_ERR_NULL_POINTER (name NULL), PSL_ERR_INVALID_VALUE
 * for an unknown name (the message lists the options) or a value outside
 * the accepted ones (the message lists them); the option then keeps its
 * value. */
psl_status psl_option_set(const char *name, const char *value);

/* The current value of option `name` in canonical spelling ("auto", "avx2",
 * "1", "16"; PSL_CSRK_FIT: its path, "" when unset) into buf of len bytes
 * (PSL_OPTION_VALUE_MAX always suffices, PSL_OPTION_PATH_MAX for PSL_CSRK_FIT):
 * the program's setting, else the environment's, else the default.
 * Errors (buf untouched): PSL_ERR_NULL_POINTER (name or buf NULL),
 * PSL_ERR_INVALID_VALUE for an unknown name, an invalid environment value,
 * or a buffer too small. */
psl_status psl_option_get(const char *name, char *buf, size_t len);

/* Description of one option: static strings, never NULL. */
typedef struct psl_option_desc {
    const char *name;          /* option and environment variable, "PSL_KERNEL" */
    const char *values;        /* accepted values: "a|b|c" or a range "1..16" */
    const char *default_value; /* as psl_option_get spells it */
    const char *doc;           /* what it does and which calls read it */
} psl_option_desc;

/* Number of options (the indices of psl_option_describe are 0..count-1). */
int psl_option_count(void);

/* Describe option number index (0 <= index < psl_option_count()) into
 * *desc. Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (index out of
 * range). */
psl_status psl_option_describe(int index, psl_option_desc *desc);

/* Debugging: make an allocation of the library fail, to test the cleanup
 * paths. n >= 0: the next n allocations (host memory, all threads) succeed
 * and the one after fails with PSL_ERR_OUT_OF_MEMORY, once; n == -1 turns
 * the hook off (the default). Errors: PSL_ERR_INVALID_VALUE for n < -1. */
psl_status psl_debug_fail_alloc_after(int64_t n);

/* Host memory allocated as the library allocates its own arrays: a block of
 * at least twice the transparent huge page size (2 MiB on x86-64 Linux) is
 * aligned to that size and advised for huge pages (option PSL_HUGEPAGES),
 * any other block comes from malloc. Vectors that an SpMV streams read
 * faster on huge pages where TLB misses are dear (virtual machines). NULL
 * when bytes is 0 or the memory is not there (or the psl_debug_fail_alloc_after
 * hook fires). Free with psl_host_free, or free(). */
void *psl_host_alloc(size_t bytes);

/* Free a block of psl_host_alloc (NULL: nothing). */
void psl_host_free(void *ptr);

/* ------------------------------------------------------------- types */

/* Scalar types of CSR input values, stored values and vectors. */
typedef enum psl_scalar {
    PSL_FP64 = 0,
    PSL_FP32 = 1,
    PSL_FP16 = 2,  /* IEEE binary16 */
    PSL_BF16 = 3   /* bfloat16: upper half of a binary32 */
} psl_scalar;

/* Storage formats. */
typedef enum psl_format {
    PSL_FORMAT_CSR = 0,
    PSL_FORMAT_SELL = 1,     /* SELL-C-sigma */
    PSL_FORMAT_PACKSELL = 2, /* PackSELL, 32-bit words */
    PSL_FORMAT_CSRK = 3      /* CSR-k: CSR arrays plus super-row pointers */
} psl_format;

/* How sigma-sorting is applied. IMPLICIT keeps y in the original row order
 * (the kernel writes y[perm]); EXPLICIT reorders the rows of the matrix, so y
 * comes out in the stored order (see psl_matrix_row_order). */
typedef enum psl_permute {
    PSL_PERMUTE_IMPLICIT = 0,
    PSL_PERMUTE_EXPLICIT = 1
} psl_permute;

/* What a value codec does with a finite value beyond its largest finite
 * value: fail with PSL_ERR_CODEC_OVERFLOW (default) or store +-max. */
typedef enum psl_overflow {
    PSL_OVERFLOW_ERROR = 0,
    PSL_OVERFLOW_SATURATE = 1
} psl_overflow;

/* A PackSELL value codec: a custom float ExMy with a sign bit, exp_bits
 * exponent bits (IEEE bias 2^(e-1)-1, subnormals, the all-ones exponent
 * reserved) and man_bits mantissa bits, stored in the upper V = 1+e+m bits of
 * the 32-bit word; the word keeps D = 31 - V delta bits and a flag bit.
 * FP16 = {5,10} (D=15), BF16 = {8,7} (D=15), E8MY = {8,Y} (D = 22-Y).
 * Valid: 2 <= e <= 8, 0 <= m <= 23, 1 <= D (i.e. e+m <= 29). */
typedef struct psl_codec {
    int32_t exp_bits;
    int32_t man_bits;
} psl_codec;

/* ------------------------------------------------------------- names */

/* The lowercase names of storage formats and scalar types, as the packsell
 * command prints and accepts them. The *_name calls return static text
 * (never NULL; "?" for a value outside the enum); the *_parse calls accept
 * any letter case and on error leave the output untouched. */

/* "csr", "sell", "packsell" or "csrk". */
const char *psl_format_name(psl_format format);

/* Parse a format name into *format.
 *   name    "csr", "sell", "packsell" or "csrk" (any case), NUL-terminated
 *   format  receives the format (host memory)
 * Errors: PSL_ERR_NULL_POINTER (name or format NULL), PSL_ERR_INVALID_VALUE
 * (unknown name; the message lists the accepted names). */
psl_status psl_format_parse(const char *name, psl_format *format);

/* "fp64", "fp32", "fp16" or "bf16". */
const char *psl_scalar_name(psl_scalar scalar);

/* Parse a scalar type name into *scalar.
 *   name    "fp64", "fp32", "fp16" or "bf16" (any case), NUL-terminated
 *   scalar  receives the type (host memory)
 * Errors: PSL_ERR_NULL_POINTER (name or scalar NULL), PSL_ERR_INVALID_VALUE
 * (unknown name; the message lists the accepted names). */
psl_status psl_scalar_parse(const char *name, psl_scalar *scalar);

/* ------------------------------------------------------------- codecs */

/* Parse "fp16", "bf16", "e8m10", "e5m10", ... (case-insensitive) into *codec. */
psl_status psl_codec_parse(const char *name, psl_codec *codec);
/* Canonical name of a codec ("fp16", "bf16" or "eXmY") into buf (>= 16 bytes). */
psl_status psl_codec_name(psl_codec codec, char *buf, size_t buflen);
/* Check a codec; PSL_OK if valid. */
psl_status psl_codec_check(psl_codec codec);
/* Delta bits D = 30 - e - m of a codec (does not validate). */
int32_t psl_codec_delta_bits(psl_codec codec);
/* Round value (round-to-nearest-even, from the double itself) to the codec.
 * *bits receives the V-bit pattern right-aligned (sign in bit V-1).
 * NaN/Inf input: PSL_ERR_NONFINITE. Overflow: PSL_ERR_CODEC_OVERFLOW unless
 * policy is PSL_OVERFLOW_SATURATE. Values that round to zero keep their sign. */
psl_status psl_codec_encode(psl_codec codec, psl_overflow policy, double value,
                            uint32_t *bits);
/* Exact value of a V-bit pattern (right-aligned) of the codec. */
double psl_codec_decode(psl_codec codec, uint32_t bits);

/* ------------------------------------------------------------- matrices */

/* Opaque matrix handle: one matrix in one storage format. */
typedef struct psl_matrix psl_matrix;

/* Flags of psl_matrix_create_csr. */
enum {
    /* Reject unsorted columns and duplicates (PSL_ERR_INVALID_MATRIX) instead
     * of sorting the columns of each row and summing duplicates. */
    PSL_CSR_STRICT = 1u
};

/* Create an FP64 CSR matrix from caller arrays, which are copied (the caller
 * keeps ownership and they are never modified).
 *   nrows, ncols  >= 0
 *   row_ptr       nrows+1 entries, row_ptr[0] == index_base, non-decreasing
 *   col_idx       nnz = row_ptr[nrows]-index_base entries in
 *                 [index_base, ncols-1+index_base]
 *   values        nnz entries of type value_type (PSL_FP64 or PSL_FP32);
 *                 NaN/Inf are rejected (PSL_ERR_NONFINITE, naming the entry)
 *   index_base    0 or 1
 *   flags         0 or PSL_CSR_STRICT
 * By default, columns within a row are sorted and duplicates summed; explicit
 * zeros are kept (they are part of the pattern). Empty rows and nrows == 0
 * are fine. */
psl_status psl_matrix_create_csr(psl_matrix **A, int32_t nrows, int32_t ncols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const void *values, psl_scalar value_type,
                                 int index_base, unsigned flags);

/* Destroy a matrix and set *A to NULL (NULL or *A == NULL: no-op). */
void psl_matrix_destroy(psl_matrix **A);

/* Locality reorderings of a CSR-k matrix (psl_convert_options.csrk_reorder).
 * Both work on the pattern of A + A^T (nonsymmetric patterns are
 * symmetrized; values play no part), are deterministic (ties broken by the
 * lower index) and take about linear time. */
typedef enum psl_csrk_reorder {
    PSL_CSRK_REORDER_NONE = 0,  /* the caller's rows, as they are (default) */
    PSL_CSRK_REORDER_RCM = 1,   /* reverse Cuthill-McKee on the rows: each
                                   connected component from a pseudo-peripheral
                                   row (lowest degree, then George-Liu), then
                                   the rows regrouped as without reordering */
    PSL_CSRK_REORDER_BANDK = 2  /* band-k: rows grouped into super-rows (and
                                   super-super-rows for k = 3) as without
                                   reordering, RCM on the graph of the groups of
                                   each level (two groups adjacent when an entry
                                   links them), the groups placed in that order
                                   with each group's rows kept contiguous (in
                                   their order, or reversed when the group is
                                   placed the other way round); the
                                   groups stay the matrix's groups, so band-k
                                   keeps the locality the given row order has
                                   inside a group. With one level (k = 1, or a
                                   matrix of one super-row) it is RCM */
} psl_csrk_reorder;

/* Largest slice height C of psl_convert_options: a slice taller than any
 * kernel uses only pads (a 3-row matrix with C = 10^9 would be 10^9 padded
 * rows), so larger is refused. */
#define PSL_SLICE_HEIGHT_MAX 4096

/* Options of psl_matrix_convert. psl_convert_options_init sets the defaults:
 * CSR, FP64 values, codec FP16, C = 32, sigma = 256, implicit, overflow error,
 * CSR-k k = 3 with sizes from the tuning model. */
typedef struct psl_convert_options {
    psl_format format;        /* target format */
    psl_scalar value_type;    /* CSR: FP64/FP32; SELL: FP64/FP32/FP16/BF16;
                                 CSR-k: FP64/FP32/FP16 */
    psl_codec codec;          /* PackSELL value codec (fixes D = 30-e-m) */
    int32_t slice_height;     /* C, 1..PSL_SLICE_HEIGHT_MAX (SELL, PackSELL) */
    int32_t sigma;            /* sorting window, a positive multiple of C;
                                 0: no sorting (rows stay in order) */
    psl_permute permute;      /* implicit or explicit sigma permutation */
    psl_overflow overflow;    /* codec overflow policy (SELL FP16/BF16 too) */
    /* CSR-k (format PSL_FORMAT_CSRK; value_type FP64, FP32 or FP16): */
    int32_t csrk_k;           /* levels: 1 (plain CSR), 2 (super-rows) or 3
                                 (super-rows and super-super-rows); default 3.
                                 A level that would hold one group is left
                                 implicit: the matrix then has fewer levels
                                 (psl_matrix_info.csrk_k says how many) */
    int32_t csrk_sr_rows;     /* target rows per super-row, >= 1; 0: from the
                                 tuning model (psl_csrk_model_sizes) */
    int32_t csrk_ssr_srs;     /* target super-rows per super-super-row (k = 3),
                                 >= 1; 0: from the tuning model */
    psl_csrk_reorder csrk_reorder; /* locality reordering of the rows and
                                 columns (square matrices only; see below);
                                 default PSL_CSRK_REORDER_NONE. Any other value
                                 with a format other than CSR-k is refused */
} psl_convert_options;

void psl_convert_options_init(psl_convert_options *opt);

/* CSR-k (Lane and Booth): a CSR matrix whose rows are grouped, in order,
 * into super-rows (sr_ptr[s] = first row of super-row s, nsr+1 entries) and,
 * for k = 3, super-rows into super-super-rows (ssr_ptr[t] = first super-row
 * of super-super-row t, nssr+1 entries). Groups are consecutive and built
 * greedily in linear time: a group takes items (rows, or super-rows) until
 * it holds its share of nonzeros, size x nnz / items of its level, where
 * size is csrk_sr_rows or csrk_ssr_srs (a matrix without nonzeros is
 * grouped by count). row_ptr, col_idx and the values have exactly the CSR
 * layout (psl_matrix_csrk_view), so a CSR consumer takes them as they are;
 * the extra memory is the two int32 pointer arrays. psl_spmv on a CSR-k
 * matrix shares the super-super-rows (k = 3) or super-rows (k = 2) among the
 * OpenMP threads under the runtime schedule (OMP_SCHEDULE) and is
 * deterministic: y has the bits of the CSR reference kernel whatever the
 * threads and schedule. psl_dmatrix_upload copies the CSR arrays to the
 * device with a grouping of its own for the GPU kernel (the host matrix's
 * levels; sizes from the CUDA tuning model, or the options
 * PSL_CUDA_CSRK_SR_ROWS and PSL_CUDA_CSRK_SSR_SRS), plus the host matrix's
 * pointer arrays for psl_dmatrix_download; psl_dspmv gives a block of
 * threads to each super-super-row (k = 3) or super-row (k = 2), and within
 * it, by the model's lanes for d: a thread to each row (short rows), or the
 * stream form (8 < d <= 64 by default: the block loads each super-row's
 * entries together, coalesced, and a thread adds each row's products), or
 * a group of up to 32 lanes to each row (long rows). Rows of one thread and
 * of the stream form have the bits of psl_spmv; rows of several lanes are
 * summed in a fixed order of their own (deterministic, not the CPU's
 * bits).
 *
 * With a locality reordering (csrk_reorder, square matrices only) the matrix
 * holds the CSR arrays of P A P^T instead (stored row and column i are the
 * caller's row and column perm[i]; columns sorted in the new numbering) plus
 * perm and its inverse, 8 bytes a row (psl_matrix_csrk_perm_view;
 * psl_matrix_info.csrk_perm_bytes). psl_spmv, psl_matrix_to_csr and
 * psl_matrix_row_order still speak the caller's numbering: psl_spmv gathers
 * x into a workspace in the new order, runs the kernel and scatters the rows
 * into y, y[perm[i]] = alpha (P A P^T P x)_i + beta y[perm[i]], each row
 * summed as the kernel sums it (in the new column order, so the bits of a
 * row can differ from those without reordering). The workspace, ncols +
 * nrows vector elements, is allocated and freed on each call (concurrent
 * calls on one matrix stay safe; psl_spmv can then fail with
 * PSL_ERR_OUT_OF_MEMORY). psl_matrix_to_csr gives A in the caller's
 * numbering. On a device (psl_dmatrix_upload) perm and its inverse go up
 * with the arrays, and psl_dspmv does the same gather, kernel and scatter
 * in the workspace psl_dspmv_workspace_size asks for (two vectors of nrows
 * elements), so the bits of psl_spmv's reordered product. Binary files keep
 * perm and its inverse (a reader older than this library refuses such a
 * file). */

/* CSR-k over the caller's own CSR arrays, without a copy: the handle
 * borrows row_ptr (nrows + 1 entries, 0-based, row_ptr[0] == 0), col_idx
 * and values (row_ptr[nrows] entries each; values PSL_FP64, PSL_FP32 or
 * PSL_FP16 bits) and adds only the pointer arrays of its k levels (k 1, 2
 * or 3; sr_rows and ssr_srs as csrk_sr_rows and csrk_ssr_srs of
 * psl_convert_options, 0 for the tuning model's). The arrays are checked
 * as psl_matrix_create_csr checks them with PSL_CSR_STRICT (columns in
 * range, ascending, no duplicates; finite values), never written, and must
 * outlive the handle, unchanged while it lives: psl_matrix_destroy leaves
 * them to the caller. psl_matrix_csrk_view gives these very pointers back.
 * Everything that takes a CSR-k matrix takes a view (psl_spmv,
 * psl_matrix_to_csr, psl_dmatrix_upload, psl_matrix_save, ...). */
psl_status psl_matrix_create_csrk_view(psl_matrix **A, int32_t nrows, int32_t ncols,
                                       const int64_t *row_ptr, const int32_t *col_idx,
                                       const void *values, psl_scalar value_type, int32_t k,
                                       int32_t sr_rows, int32_t ssr_srs);

/* Device kinds of the CSR-k tuning model. */
typedef enum psl_csrk_device {
    PSL_CSRK_DEVICE_CPU = 0, /* OpenMP kernel (the one psl_matrix_convert uses) */
    PSL_CSRK_DEVICE_CUDA = 1 /* GPU kernel (the grouping psl_dmatrix_upload makes) */
} psl_csrk_device;

/* Sizes from the tuning model of a device kind, in constant time from
 * d = mean nonzeros per row (d <= 1 counts as 1): rows per super-row
 * round(a - b ln d) and super-rows per super-super-row round(c - e ln d),
 * each at least 1, with coefficients from the device's table (one row per
 * range of d, src/format/csrk/csrk_model.c). For k = 2 the rows per
 * super-row are the product of the two (a super-row is the threaded unit,
 * as large as a super-super-row of k = 3) and *ssr_srs is 0; for k = 1
 * both are 0.
 *   device   PSL_CSRK_DEVICE_CPU or PSL_CSRK_DEVICE_CUDA
 *   k        1, 2 or 3
 *   mean_row_nnz  d, finite, >= 0
 *   sr_rows, ssr_srs  receive the sizes (host memory)
 * Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (device, k or d out
 * of range; outputs untouched). */
psl_status psl_csrk_model_sizes(psl_csrk_device device, int32_t k, double mean_row_nnz,
                                int32_t *sr_rows, int32_t *ssr_srs);

/* One row of a device kind's CSR-k tuning table: for d above the previous
 * row's d_max (1 for the first row) and up to d_max, rows per super-row
 * round(sr_a - sr_b ln d) and super-rows per super-super-row
 * round(ssr_a - ssr_b ln d); for the CUDA kernel the thread block of the
 * range: lanes threads per row (1, 2, 4, 8, 16 or 32; 0 for a kernel form
 * that gives no lanes to a row), block_rows threads over the rows of a
 * super-row, block_srs over the super-rows of a super-super-row.
 * A valid table of n rows (1 <= n <= PSL_CSRK_MODEL_ROWS_MAX) has d_max
 * >= 1 and increasing, the last one +INFINITY; sr_a, sr_b, ssr_a, ssr_b in
 * [-1e9, 1e9] (a size below 1 counts as 1); CPU rows lanes = block_rows = block_srs
 * = 1; CUDA rows max(lanes, 1) x block_rows x block_srs threads, a multiple
 * of 32 up to 512. */
typedef struct psl_csrk_model_row {
    double d_max;
    double sr_a, sr_b;   /* rows per super-row */
    double ssr_a, ssr_b; /* super-rows per super-super-row */
    int32_t lanes, block_rows, block_srs;
} psl_csrk_model_row;

/* Most rows of one device kind's table. */
#define PSL_CSRK_MODEL_ROWS_MAX 16

/* The tuning model's tables are the library's defaults (the "default fit"
 * of each device kind, src/format/csrk/csrk_model.c) unless replaced for
 * the process, per device kind, in this order of precedence:
 *  1. psl_csrk_model_load / psl_csrk_model_set (until psl_csrk_model_reset);
 *  2. the fit file named by the option PSL_CSRK_FIT (environment or
 *     psl_option_set): read at the first use of the model after the
 *     option takes that value, once; a file that cannot be read or is
 *     invalid makes every use of the model (psl_csrk_model_sizes,
 *     psl_csrk_model_get, conversions to CSR-k with model sizes,
 *     psl_dmatrix_upload of a CSR-k matrix) fail with its error, never
 *     fall back silently, until the option changes;
 *  3. the defaults.
 * Fit file (version 1, plain text; `packsell tune-csrk` writes them): the
 * first line "# packsell csrk fit v1"; then one row a line, nine fields
 * separated by blanks: device (cpu or cuda), d_max (a number or inf),
 * sr_a, sr_b, ssr_a, ssr_b, lanes, block_rows, block_srs, as in
 * psl_csrk_model_row; '#' starts a comment; blank lines are ignored. The
 * rows of a device kind are its whole table, in increasing d_max.
 *
 * Thread safety: psl_csrk_model_load, _set and _reset must not run while
 * another thread uses the model (the calls listed in 2.): call them before
 * the threads start, as for psl_option_set. Reading PSL_CSRK_FIT's file is
 * guarded and may happen in any thread. */

/* Load the fit file at path (host path): the table of each device kind
 * with rows in the file replaces that kind's table for the process; the
 * other kinds keep theirs. Errors: PSL_ERR_NULL_POINTER, PSL_ERR_IO,
 * PSL_ERR_PARSE, PSL_ERR_FILE_VERSION or PSL_ERR_INVALID_VALUE with a
 * message "path:line: what is wrong" (psl_last_error gives the line); then
 * no table changes. */
psl_status psl_csrk_model_load(const char *path);

/* Replace the table of device with rows[0 .. n) (copied; checked as the
 * loader checks a file's rows). Errors: PSL_ERR_NULL_POINTER,
 * PSL_ERR_INVALID_VALUE naming the row; then nothing changes. */
psl_status psl_csrk_model_set(psl_csrk_device device, const psl_csrk_model_row *rows, int n);

/* The current table of device into rows (room for max rows; max >=
 * PSL_CSRK_MODEL_ROWS_MAX always suffices), its row count in *n.
 * Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (device, or max below
 * the row count), or the error of PSL_CSRK_FIT's file. */
psl_status psl_csrk_model_get(psl_csrk_device device, psl_csrk_model_row *rows, int max, int *n);

/* Write rows[0 .. n) as device's table to the fit file at path, after the
 * header and the lines of comment (may be NULL) as '#' comments; numbers
 * are written so that they read back to the same doubles. The file goes
 * through the library's writer (a temporary renamed over path: see
 * psl_output_begin); an existing file is replaced. Errors:
 * PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (rows as for
 * psl_csrk_model_set), PSL_ERR_IO. */
psl_status psl_csrk_model_save(const char *path, psl_csrk_device device,
                               const psl_csrk_model_row *rows, int n, const char *comment);

/* Forget the tables of psl_csrk_model_load / psl_csrk_model_set: every
 * device kind uses PSL_CSRK_FIT's file, if the option names one, else its
 * default table. */
void psl_csrk_model_reset(void);

/* Read-only views of the arrays of a CSR-k matrix (host memory, owned by
 * A, valid until it is destroyed): row_ptr (nrows+1 int64), col_idx (nnz
 * int32) and values (nnz of *value_type: FP64, FP32 or FP16 bits) in the
 * CSR layout, sr_ptr (*nsr + 1 int32; NULL for k = 1) and ssr_ptr (*nssr + 1
 * int32; NULL unless k = 3). Any output pointer may be NULL.
 * Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_WRONG_FORMAT (A is not CSR-k). */
psl_status psl_matrix_csrk_view(const psl_matrix *A, int32_t *k, const int64_t **row_ptr,
                                const int32_t **col_idx, const void **values,
                                psl_scalar *value_type, int32_t *nsr, const int32_t **sr_ptr,
                                int32_t *nssr, const int32_t **ssr_ptr);

/* The locality reordering of a CSR-k matrix (host memory, owned by A, valid
 * until it is destroyed): perm[i] is the caller's row and column of stored
 * row and column i, inv[j] the stored index of the caller's j (nrows int32
 * each). Both NULL when A has no reordering. Any output pointer may be NULL.
 * Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_WRONG_FORMAT (A is not CSR-k). */
psl_status psl_matrix_csrk_perm_view(const psl_matrix *A, const int32_t **perm,
                                     const int32_t **inv);

/* Convert an FP64 CSR matrix into the format of *opt (a new handle; src is
 * not changed). Values are rounded from FP64 round-to-nearest-even. */
psl_status psl_matrix_convert(psl_matrix **out, const psl_matrix *src,
                              const psl_convert_options *opt);

/* Decode any matrix back to a new FP64 CSR matrix in the ORIGINAL row order
 * (also for explicit permutation), with the values as stored (rounded),
 * explicit zeros kept, padding and dummy words dropped. */
psl_status psl_matrix_to_csr(psl_matrix **out, const psl_matrix *A);

/* Read-only views of the arrays of an FP64 CSR matrix (0-based): row_ptr
 * (nrows+1), col_idx and values (nnz). Any pointer may be NULL. */
psl_status psl_matrix_csr_view(const psl_matrix *A, const int64_t **row_ptr,
                               const int32_t **col_idx, const double **values);

/* Map from stored row to original row: order[i] is the original row of
 * stored row i (identity for CSR; perm for a CSR-k matrix with a locality
 * reordering, whose psl_spmv still writes y in the original order, as an
 * implicit permutation does). order has nrows entries. With explicit
 * permutation y_stored[i] == y_original[order[i]]. */
psl_status psl_matrix_row_order(const psl_matrix *A, int32_t *order);

/* Statistics of a matrix. "bytes" are the bytes an SpMV reads for the matrix
 * itself: values + columns + row pointers (CSR; CSR-k adds sr_ptr,
 * ssr_ptr and a reordering's perm and inverse, csrk_perm_bytes, csr_bytes
 * being its CSR arrays alone); values + columns + slice
 * offsets + perm (SELL); words + slice offsets + perm (PackSELL; perm only
 * for implicit permutation). sell_bytes and csr_bytes are the same for SELL
 * (same C, sigma, no dummies) and CSR with values of the equivalent IEEE
 * width (2 bytes when V <= 16, else 4; for SELL/CSR: their own width). */
typedef struct psl_matrix_info {
    psl_format format;
    psl_scalar value_type;   /* CSR/SELL storage type */
    psl_codec codec;         /* PackSELL codec */
    int32_t delta_bits;      /* PackSELL D */
    int32_t nrows, ncols;
    int64_t nnz;             /* stored entries of the user's pattern */
    int32_t slice_height, sigma;
    psl_permute permute;
    int32_t nslices;
    int32_t max_row_nnz;
    double mean_row_nnz;
    double rsd;              /* std dev of nnz per row over its mean (0 if nnz = 0) */
    int64_t kleft;           /* lower bandwidth max_i (i - min col of row i) */
    int64_t stored;          /* SELL: entries incl. padding; PackSELL: words */
    int64_t dummies;         /* PackSELL dummy words for deltas >= 2^D */
    int64_t padding;         /* SELL/PackSELL padding entries/words */
    int64_t underflows;      /* nonzero values that rounded to zero */
    int64_t bytes;           /* bytes of this format (see above) */
    int64_t sell_bytes;      /* bytes of the equivalent SELL */
    int64_t csr_bytes;       /* bytes of the equivalent CSR */
    /* CSR-k (0 for the other formats): */
    int32_t csrk_k;          /* levels stored, 1, 2 or 3 (at most those asked for) */
    int32_t csrk_super_rows; /* super-rows nsr (0 for k = 1) */
    int32_t csrk_super_super_rows; /* super-super-rows nssr (k = 3) */
    int64_t csrk_overhead_bytes;   /* bytes of sr_ptr and ssr_ptr: bytes - csr_bytes
                                      - csrk_perm_bytes */
    int64_t csrk_perm_bytes;       /* bytes of the locality reordering's perm and
                                      its inverse (8 a row; 0 without one) */
    int64_t csrk_device_overhead_bytes; /* bytes psl_dmatrix_upload adds to the
                                      CSR arrays: these pointer arrays (kept
                                      for download) and the grouping it makes
                                      for the GPU kernel (the CUDA tuning
                                      model's sizes, or PSL_CUDA_CSRK_SR_ROWS /
                                      _SSR_SRS, as the upload would take them
                                      now; a reordering's perm and inverse go
                                      up too, counted in csrk_perm_bytes); -1
                                      when the model fails (a bad PSL_CSRK_FIT
                                      file) */
} psl_matrix_info;

psl_status psl_matrix_get_info(const psl_matrix *A, psl_matrix_info *info);

/* The statistics psl_matrix_get_info would give for psl_matrix_convert(src,
 * opt) -- words, dummies, padding, bytes, the equivalent SELL/CSR bytes --
 * without building the matrix: O(nnz) time, O(nrows) memory. Values are not
 * rounded, so overflow is not detected and underflows is 0. Cheap enough to
 * compare formats and codecs (e.g. the dummies each D would add). A CSR-k
 * locality reordering is computed (its grouping depends on it): O(nnz)
 * memory then, for the graph of the rows. */
psl_status psl_matrix_estimate(const psl_matrix *src, const psl_convert_options *opt,
                               psl_matrix_info *info);

/* ------------------------------------------------------------- scaling and errors */

/* Row scaling: a new FP64 CSR matrix *out = G^-1 A, G = diag(g), with
 * g_i = sum_j |a_ij| summed in FP64 in column order, and g_i = 1 for a row
 * whose sum is 0 (empty, or explicit zeros only). Entry (i, j) of *out is
 * a_ij / g_i (one FP64 division), so every row of nonzero sum has absolute
 * sum 1 up to rounding and no value overflows a codec. Same pattern as A
 * (explicit zeros kept). To solve A x = b: (G^-1 A) x = G^-1 b, with
 * psl_vector_div_diag(nrows, g, b, b_scaled).
 *   out  receives a new handle, owned by the caller (psl_matrix_destroy);
 *        A itself is neither changed nor referenced afterwards
 *   A    an FP64 CSR matrix of any shape
 *   g    NULL, or a host array of nrows doubles that receives g
 * Deterministic (parallel over rows). Errors: PSL_ERR_NULL_POINTER (out or
 * A NULL), PSL_ERR_INVALID_HANDLE, PSL_ERR_WRONG_FORMAT (A is not FP64 CSR),
 * PSL_ERR_OUT_OF_MEMORY; then *out is NULL (when out is not) and g is not
 * written. */
psl_status psl_matrix_scale_rows(psl_matrix **out, const psl_matrix *A, double *g);

/* Symmetric diagonal scaling: a new FP64 CSR matrix
 * *out = Gbar^-1 A Gbar^-1, Gbar = diag(gbar), with gbar_i = sqrt(|a_ii|),
 * and gbar_i = 1 where row i has no diagonal entry or a_ii == 0. Entry
 * (i, j) of *out is a_ij / (gbar_i * gbar_j) in FP64 (one product, one
 * division): the diagonal becomes +-1 up to rounding (-1 where a_ii < 0),
 * and symmetry is kept. Same pattern as A (explicit zeros kept). To solve
 * A x = b: (Gbar^-1 A Gbar^-1) x_s = Gbar^-1 b, then x = Gbar^-1 x_s, both
 * with psl_vector_div_diag(nrows, gbar, ., .).
 *   out   receives a new handle, owned by the caller (psl_matrix_destroy);
 *         A itself is neither changed nor referenced afterwards
 *   A     a square FP64 CSR matrix
 *   gbar  NULL, or a host array of nrows doubles that receives gbar
 * Deterministic (parallel over rows). Errors: PSL_ERR_NULL_POINTER (out or
 * A NULL), PSL_ERR_INVALID_HANDLE, PSL_ERR_WRONG_FORMAT (A is not FP64
 * CSR), PSL_ERR_INVALID_VALUE (A is not square; the message gives its
 * shape), PSL_ERR_NONFINITE (a scaled entry overflows, possible only with
 * diagonal entries below about 1e-154; the first such row and its column
 * are named), PSL_ERR_OUT_OF_MEMORY; then *out is NULL (when out is not)
 * and gbar is not written. */
psl_status psl_matrix_scale_symmetric(psl_matrix **out, const psl_matrix *A, double *gbar);

/* y_i = x_i / d_i for 0 <= i < n (y = D^-1 x): applies the inverse of the
 * g or gbar of the scalings above to a right-hand side or a solution.
 *   n  number of entries, >= 0
 *   d  host array of n finite, nonzero doubles
 *   x  host array of n doubles
 *   y  host array of n doubles that receives the result; may be x itself
 *      (in place), else it must not overlap x
 * Errors: PSL_ERR_INVALID_VALUE (n < 0, or a d_i zero or not finite: the
 * first one is named), PSL_ERR_NULL_POINTER (d, x or y NULL with n > 0);
 * then y is not written. */
psl_status psl_vector_div_diag(int64_t n, const double *d, const double *x, double *y);

/* Backward error of a computed product y of y = alpha*A*x + beta*y0:
 *
 *   err = ||y - r||_inf / (|alpha| ||A||_inf ||x||_inf + |beta| ||y0||_inf)
 *
 * where r = alpha*A*x + beta*y0 is computed in FP64 from A (row i: the sum
 * s_i of a_ij x_j in column order, then r_i = alpha*s_i + beta*y0_i, or
 * alpha*s_i when beta == 0) and ||A||_inf = max_i sum_j |a_ij|. With
 * alpha = 1 and beta = 0 it is ||y - A x||_inf / (||A||_inf ||x||_inf). A NaN
 * in y (or in y_i - r_i) counts as an infinite difference. A zero
 * denominator (A, x or alpha zero, and beta or y0 zero) gives err = 0 when
 * y equals r entry by entry, else +Inf; a denominator that overflows gives
 * 0, or NaN when the numerator is infinite too. `packsell bench` reports
 * this value. Deterministic whatever the number of threads.
 *   A      an FP64 CSR matrix (nrows x ncols)
 *   alpha  finite
 *   x      host array of ncols finite doubles
 *   beta   finite
 *   y0     host array of nrows finite doubles, read only when beta != 0
 *          (may then be NULL)
 *   y      host array of nrows doubles: the computed product, original
 *          row order (any values, NaN and Inf included)
 *   err    receives the backward error (host memory)
 * Errors: PSL_ERR_NULL_POINTER (A, err, or x / y / y0 NULL when needed),
 * PSL_ERR_INVALID_HANDLE, PSL_ERR_WRONG_FORMAT (A is not FP64 CSR),
 * PSL_ERR_INVALID_VALUE (alpha or beta not finite), PSL_ERR_NONFINITE (an
 * entry of x or y0 is NaN or Inf, the first one is named); then *err is
 * not written. */
psl_status psl_spmv_backward_error(const psl_matrix *A, double alpha, const double *x,
                                   double beta, const double *y0, const double *y,
                                   double *err);

/* ------------------------------------------------------------- chooser */

/* The value precision a caller asks of a product: the chooser picks the
 * fastest storage whose values keep about that precision. */
typedef enum psl_precision {
    PSL_PREC_FP16 = 0, /* 16-bit values: PackSELL FP16 (BF16 when a value is
                          beyond FP16's range), SELL FP16/BF16, or CSR FP32 */
    PSL_PREC_FP32 = 1, /* PackSELL E8MY with Y >= 20 (D = 1 or 2), SELL or CSR FP32 */
    PSL_PREC_FP64 = 2  /* SELL or CSR FP64 */
} psl_precision;

/* The GPU as psl_choose_format's cost model sees it: the device figures
 * the model reads (the kernel classes' fitted rates are the chooser's own
 * table, src/format/choose.c). Plain data: fill it with
 * psl_device_model_default or psl_device_model_query, or set the fields to
 * model another device. */
typedef struct psl_device_model {
    char name[64];          /* the device's name (informative; not read by the model) */
    int32_t sm_count;       /* streaming multiprocessors (>= 1): with threads_per_sm the
                               warps resident at once, and SMs x 512 rows the largest
                               matrix the small-matrix kernels take */
    int32_t threads_per_sm; /* resident threads per SM (>= 32); warps = threads / 32 */
    int64_t l2_bytes;       /* L2 cache bytes (>= 0): a matrix whose bytes and vectors
                               are fewer stays in L2 between back-to-back products */
    double copy_gbs;        /* device-to-device copy bandwidth in GB/s (10^9 bytes read
                               plus written per second; finite, > 0) */
    int32_t copy_measured;  /* 1: copy_gbs was measured on this device; 0: the default's */
    int32_t cluster_max;    /* largest thread-block cluster (blocks) the long-row kernels
                               use, >= 1; 1: no clusters. Rounded down to a power of two;
                               values above 16 (the kernels' largest) count as 16 */
} psl_device_model;

/* The CPU as psl_choose_format_cpu's cost model sees it (the kernel
 * classes' fitted rates are the chooser's own CPU table,
 * src/format/choose_cpu.c). Plain data: fill it with psl_cpu_model_default
 * and set threads and read_gbs to those of the host. */
typedef struct psl_cpu_model {
    char name[64];     /* informative; not read by the model */
    int32_t threads;   /* OpenMP threads of the products (>= 1) */
    double read_gbs;   /* the host's read bandwidth with those threads, GB/s (10^9 bytes
                          read per second; finite, > 0), as `packsell bench --device cpu`
                          measures it */
    int64_t llc_bytes; /* last-level cache bytes (>= 0): a matrix whose bytes and
                          vectors fill at most half of it is read from it between
                          products */
} psl_cpu_model;

#define PSL_CHOICE_MAX 3 /* candidates per precision */

/* One candidate of psl_choose_format with the cost model's view of it on
 * the GPU (psl_dspmv; CSR is cuSPARSE), or of psl_choose_format_cpu on the
 * CPU (psl_spmv's OpenMP kernels). Slice widths are in words (PackSELL,
 * dummies included) or entries (SELL); 0 for CSR. */
typedef struct psl_candidate {
    psl_convert_options opt;  /* ready for psl_matrix_convert */
    psl_scalar vec_type;      /* vector type the prediction assumes */
    char kernel[32];          /* `packsell bench` kernel it predicts, e.g.
                                 "packsell-fp16", "sell-fp32", "cusparse-csr-fp32" */
    char model[16];           /* row of the chooser's constants table */
    int64_t bytes;            /* matrix bytes one SpMV reads (psl_matrix_estimate;
                                 CSR: the device layout, 32-bit indices when they fit) */
    int64_t vector_bytes;     /* x read once and y written once */
    int64_t dummies, padding; /* PackSELL dummy words, SELL/PackSELL padding */
    int64_t max_width;        /* widest slice */
    int64_t sum_width;        /* sum of the slice widths (stored / C) */
    double bandwidth_us;      /* streaming part of the prediction */
    double latency_us;        /* GPU: critical path of the widest slices (0 for CSR);
                                 CPU: the instructions' time (words and rows per
                                 thread) */
    double predicted_us;      /* launch + max(bandwidth_us, latency_us) */
} psl_candidate;

/* The result of psl_choose_format. */
typedef struct psl_choice {
    psl_precision precision;
    psl_convert_options opt;  /* the pick: candidates[pick].opt */
    psl_scalar vec_type;      /* candidates[pick].vec_type */
    int32_t pick;             /* index of the pick in candidates[] */
    int32_t ncandidates;
    psl_candidate candidates[PSL_CHOICE_MAX];
    /* statistics of the source matrix the choice used */
    int32_t nrows, ncols;
    int64_t nnz;
    int32_t max_row_nnz;
    double mean_row_nnz, rsd;
    int64_t kleft;            /* lower bandwidth */
    double max_abs;           /* largest |value| (decides FP16 or BF16) */
    int32_t ndelta;           /* PackSELL delta widths D compared (FP16: 1; FP32: 2) */
    int32_t delta_bits[2];    /* ... their D */
    int64_t delta_dummies[2]; /* ... the dummy words each D adds */
    int64_t delta_bytes[2];   /* ... the PackSELL bytes with each D */
    psl_device_model device;  /* the device model the predictions are for (GPU) */
    int32_t on_cpu;           /* 1: psl_choose_format_cpu's choice, for `cpu` */
    psl_cpu_model cpu;        /* ... the CPU model (zero for a GPU choice) */
} psl_choice;

/* The default model in *m: the H200 the chooser's constants were fitted
 * on -- 132 SMs, 2048 threads per SM, l2_bytes 50,000,000, copy_gbs 4258
 * (copy_measured 0), clusters of up to 16 blocks; name "H200 (default
 * model)". psl_choose_format with a NULL model uses it.
 *   m  out: the model (host memory)
 * Errors: PSL_ERR_NULL_POINTER (m NULL). */
psl_status psl_device_model_default(psl_device_model *m);

/* The model of a CUDA device from cudaGetDeviceProperties: name, SMs,
 * threads per SM, L2 size, and the largest cluster the long-row kernels
 * use there (1 without clusters, or in a build whose oldest CUDA
 * architecture is below sm_90; capped by the option PSL_CUDA_WIDE_CLUSTER,
 * whose invalid value is an error). Synchronous; thread-safe; the current
 * device is restored.
 *   m                  out: the model (host memory)
 *   device             a CUDA device ordinal, or -1 for the current device
 *   measure_bandwidth  0: copy_gbs stays the default model's (copy_measured
 *                      0) and no device memory is touched; nonzero:
 *                      copy_gbs is the device-to-device copy bandwidth
 *                      (copy_measured 1), the median of 20 cudaMemcpy
 *                      copies (after 3 untimed) between two buffers of
 *                      up to 1 GiB, as `packsell bench --device cuda`
 *                      measures it (allocated and freed here; about
 *                      15 ms on an H200),
 *                      measured on the first such call for the device and
 *                      cached for the process. As noisy as any timing: picks
 *                      near a tie may differ between processes.
 * Errors: PSL_ERR_NULL_POINTER (m NULL), PSL_ERR_INVALID_VALUE (no such
 * device), PSL_ERR_OUT_OF_MEMORY (not even two 16 MiB copy buffers fit),
 * PSL_ERR_CUDA (a CUDA call failed; nothing is cached then),
 * PSL_ERR_NOT_SUPPORTED in a build without CUDA; *m is left untouched on
 * error. */
psl_status psl_device_model_query(psl_device_model *m, int device, int measure_bandwidth);

/* Pick the storage format for SpMV on the GPU of an FP64 CSR matrix at a
 * value precision, from O(nnz) statistics (row lengths, slice widths,
 * dummies and bytes of each candidate from layout-only dry runs) and a cost
 * model (src/format/choose.c documents it and its constants) of the GPU
 * that `model` describes (NULL: psl_device_model_default's H200) -- nothing
 * is timed. Deterministic for a given model. Candidates: FP16: PackSELL
 * FP16 (BF16 when a value is beyond FP16's range), SELL FP16 (BF16), CSR
 * FP32; FP32: PackSELL E8MY with D in {1, 2} (the fewer bytes), SELL FP32,
 * CSR FP32; FP64: SELL FP64, CSR FP64. Sliced candidates use C = 32,
 * sigma = 256, implicit permutation.
 *   csr     the matrix (host, FP64 CSR; not modified)
 *   prec    the value precision asked for
 *   model   the device (host memory, read only; NULL for the default)
 *   choice  out: the candidates, their predictions and the pick
 * Errors: PSL_ERR_WRONG_FORMAT (not FP64 CSR), PSL_ERR_INVALID_VALUE (bad
 * precision, or a model field out of its range, named in the message),
 * PSL_ERR_CODEC_OVERFLOW (FP16/FP32: a value beyond FP32's range, naming
 * its row and column); *choice is then left untouched. */
psl_status psl_choose_format(const psl_matrix *csr, psl_precision prec,
                             const psl_device_model *model, psl_choice *choice);

/* The default CPU model in *m: the 2-core development machine (AMD EPYC,
 * Zen 4) the CPU constants were fitted on -- 2 threads, read_gbs 35, an
 * L3 of 32 MiB; name "2-core AMD EPYC (default CPU model)".
 * psl_choose_format_cpu with a NULL model uses it.
 *   m  out: the model (host memory)
 * Errors: PSL_ERR_NULL_POINTER (m NULL). */
psl_status psl_cpu_model_default(psl_cpu_model *m);

/* psl_choose_format for SpMV on the CPU (psl_spmv): the same candidates
 * (CSR the library's kernel), each predicted by the CPU cost model of
 * `model` (NULL: psl_cpu_model_default): launch + max(bytes / (eff x
 * read bandwidth, or x llc_speedup when the matrix and vectors fit half the
 * last-level cache), (stored words x ns_word + rows x ns_row) / threads),
 * with eff, ns_word and ns_row fitted per kernel class (src/format/
 * choose_cpu.c). Nothing is timed; deterministic for a given model.
 *   csr     the matrix (host, FP64 CSR; not modified)
 *   prec    the value precision asked for
 *   model   the CPU (host memory, read only; NULL for the default)
 *   choice  out: the candidates, their predictions and the pick (on_cpu 1)
 * Errors: as psl_choose_format (a model field out of its range is named). */
psl_status psl_choose_format_cpu(const psl_matrix *csr, psl_precision prec,
                                 const psl_cpu_model *model, psl_choice *choice);

/* Lowercase name of a precision ("fp16", "fp32", "fp64"; "?" if invalid). */
const char *psl_precision_name(psl_precision prec);

/* ------------------------------------------------------------- SpMV */

/* y = alpha*A*x + beta*y on the CPU (OpenMP). x has ncols entries, y has
 * nrows entries, both of vec_type (PSL_FP64, PSL_FP32 or PSL_FP16).
 * Accumulation is FP64 for FP64 vectors and FP32 otherwise. beta == 0: y is
 * not read (NaN in y does not leak). Padding and dummy words never touch y,
 * so Inf/NaN in x propagate exactly as in CSR. With explicit permutation, y
 * is in stored row order. The option PSL_KERNEL=ref forces the scalar
 * reference kernels. x and y must not overlap. Fails with
 * PSL_ERR_INVALID_VALUE when PSL_KERNEL, PSL_CPU_ISA or PSL_TRACE has an
 * invalid value in the environment (see options). */
psl_status psl_spmv(double alpha, const psl_matrix *A, const void *x,
                    double beta, void *y, psl_scalar vec_type);

/* Name of the kernel psl_spmv would use for A and vec_type ("ref", "omp");
 * "none" where psl_spmv would fail (bad arguments, an invalid option). */
const char *psl_spmv_kernel_name(const psl_matrix *A, psl_scalar vec_type);

/* ------------------------------------------------------------- generators */

/* Build an FP64 CSR matrix from a generator spec ("gen:" prefix optional):
 *   hpcg:X:Y:Z            HPCG 27-point stencil on a 2^X x 2^Y x 2^Z grid
 *   hpgmp:X:Y:Z[:BETA]    nonsymmetric HPGMP variant (BETA default 0.5)
 *   lap2d:NX[:NY]         2D 5-point Laplacian (4 on the diagonal, -1)
 *   lap3d:NX[:NY:NZ]      3D 7-point Laplacian (6 on the diagonal, -1)
 *   banded:N:BW:K[:SEED]  N x N, K random columns in [i-BW, i+BW] per row
 *                         (K <= min(2 BW + 1, N))
 *   powerlaw:N:AVG:ALPHA[:SEED]  row lengths ~ Pareto(ALPHA), mean AVG (<= N)
 *   random:N:K[:SEED]     N x N, K uniformly random columns per row (K <= N)
 * Parameters beyond the matrix's shape are refused (PSL_ERR_INVALID_VALUE
 * naming the field), not capped; a matrix that would not fit in the memory
 * available is refused before any work (PSL_ERR_OUT_OF_MEMORY with the
 * estimate; the option PSL_MEMORY_CHECK). Random generators are
 * deterministic for a given seed (default 1), whatever the number of
 * threads. */
psl_status psl_generate(psl_matrix **A, const char *spec);

/* ------------------------------------------------------------- files */

/* Read a Matrix Market file (coordinate or array; real, integer or pattern;
 * general, symmetric or skew-symmetric, expanded) into an FP64 CSR matrix.
 * gzip-compressed files are detected by their magic bytes. Parsing uses all
 * OpenMP threads. Errors name the 1-based line. */
psl_status psl_mm_read(psl_matrix **A, const char *path);
/* The same from a memory buffer (not NUL-terminated necessarily). */
psl_status psl_mm_read_buffer(psl_matrix **A, const char *data, size_t len);
/* Write any matrix (decoded, original row order) as coordinate real general. */
psl_status psl_mm_write(const psl_matrix *A, const char *path);
/* Read a dense vector (array format, one column; or coordinate n x 1) into a
 * new array *x of *n doubles, to be released with psl_free. */
psl_status psl_mm_read_vector(const char *path, double **x, int64_t *n);
/* Write a dense vector as a Matrix Market array (%.17g). */
psl_status psl_mm_write_vector(const char *path, const double *x, int64_t n);

/* How every writer of the library (psl_mm_write, psl_mm_write_vector,
 * psl_matrix_save) treats its path: the data go to a temporary file beside
 * the target, renamed over it only when flushed, synced and closed, so a
 * failed or interrupted write leaves the target as it was. A symbolic link
 * is followed (the file it names is replaced; the link stays); a FIFO, and
 * the path "-" (standard output), are written to as streams; a path that exists and is any other non-regular
 * file (a folder, a device) is refused with PSL_ERR_IO before anything is
 * written. The same for a program's own text output: */
typedef struct psl_output psl_output;
/* Begin writing path: *out the handle, *f the stream to write to. Errors as
 * above; then *out and *f are NULL and nothing was created. */
psl_status psl_output_begin(psl_output **out, const char *path, FILE **f);
/* Finish: flush, sync, close and rename over the target (PSL_ERR_IO naming
 * the file on failure, the target untouched). *out is released and NULL. */
psl_status psl_output_commit(psl_output **out);
/* Abandon the write: the temporary is removed. *out is released and NULL. */
void psl_output_cancel(psl_output **out);
/* Remove the temporary files of every write in progress. Async-signal-safe:
 * for a SIGINT/SIGTERM handler, which then ends the program. */
void psl_output_remove_temporaries(void);

/* Save any matrix in libpacksell's versioned binary format (with CRC-32). */
psl_status psl_matrix_save(const psl_matrix *A, const char *path);
/* Load a binary file; every size, offset, index and checksum is validated
 * before use, so a damaged or hostile file gives an error, never a crash. */
psl_status psl_matrix_load(psl_matrix **A, const char *path);
/* The same from a memory buffer. */
psl_status psl_matrix_load_buffer(psl_matrix **A, const void *data, size_t len);

/* Open any matrix source: "gen:..." spec, a binary file (by magic) or a
 * Matrix Market file (.mtx, .mtx.gz). */
psl_status psl_matrix_open(psl_matrix **A, const char *source);

/* ------------------------------------------------------------- CUDA */

/* Number of CUDA devices in *count. PSL_ERR_NOT_SUPPORTED in a build without
 * CUDA; *count = 0 when CUDA is compiled in but no device is present. */
psl_status psl_cuda_device_count(int *count);

/* A matrix resident on the current CUDA device (opaque). Every function
 * below returns PSL_ERR_NOT_SUPPORTED in a build without CUDA, and turns
 * every CUDA/cuSPARSE error into PSL_ERR_CUDA with the CUDA message.
 * `stream` is a cudaStream_t passed as void* (NULL: the legacy default
 * stream); device pointers are plain device memory (cudaMalloc). */
typedef struct psl_dmatrix psl_dmatrix;

/* Copy a host matrix (CSR FP64/FP32, SELL, PackSELL, CSR-k) to the device.
 * Synchronous with respect to the host arrays (they may be freed after the
 * call returns). Besides the arrays, the device may hold tables derived
 * from them: checkpoints of long rows, and for small matrices (up to 512
 * rows per multiprocessor, slices up to 32 positions) a copy of the slices
 * padded to one width, at most a few MB, so that the kernels skip a load.
 * The PSL_CUDA_* options (see options) force kernel forms; an invalid one
 * fails with PSL_ERR_INVALID_VALUE (also in psl_dmatrix_convert). A CSR-k
 * matrix with a locality reordering (csrk_reorder) keeps it on the device
 * (see the CSR-k formats above). */
psl_status psl_dmatrix_upload(psl_dmatrix **dA, const psl_matrix *A, void *stream);

/* A CSR matrix whose arrays are in device memory (0-based), the input of
 * psl_dmatrix_convert. The library reads the arrays and never writes them. */
typedef struct psl_dcsr {
    int32_t nrows, ncols;    /* >= 0 */
    int64_t nnz;             /* >= 0; row_ptr[nrows] must equal it */
    const int64_t *row_ptr;  /* nrows+1 entries, row_ptr[0] == 0, non-decreasing
                                (may be NULL when nrows == 0) */
    const int32_t *col_idx;  /* nnz entries in [0, ncols), strictly ascending in
                                each row (no duplicates) */
    const void *values;      /* nnz finite values of value_type */
    psl_scalar value_type;   /* PSL_FP64 or PSL_FP32 */
} psl_dcsr;

/* Build a device matrix of the format of *opt from a device CSR matrix, on
 * the device, on `stream`: the same result as psl_matrix_convert of the
 * same arrays (as an FP64 CSR; FP32 values are widened exactly) followed by
 * psl_dmatrix_upload -- bit-identical arrays (slice offsets, perm, words or
 * columns and values, CSR arrays) and the same psl_dmatrix_get_info. Same
 * options, defaults and checks as psl_matrix_convert.
 * Errors (*dA = NULL, the input arrays untouched, nothing leaked):
 * PSL_ERR_INVALID_MATRIX for row_ptr not starting at 0, decreasing or not
 * ending at nnz, a column out of range or not strictly ascending (the first
 * offending row is named, and its column); then PSL_ERR_NONFINITE or
 * PSL_ERR_CODEC_OVERFLOW for the first offending entry (row and column).
 * Structural errors are checked (and reported) before values. Host pointers
 * in *A give PSL_ERR_INVALID_VALUE. Returns after the stream has finished the
 * build (two host synchronizations: the output size, the final status);
 * temporaries are stream-ordered allocations. */
psl_status psl_dmatrix_convert(psl_dmatrix **dA, const psl_dcsr *A,
                               const psl_convert_options *opt, void *stream);

/* Copy a device matrix back into a new host matrix of the same format with
 * the same arrays and statistics (psl_matrix_get_info equals
 * psl_dmatrix_get_info). Synchronous. */
psl_status psl_dmatrix_download(psl_matrix **A, const psl_dmatrix *dA, void *stream);

/* Free a device matrix (synchronizes the device first); sets *dA = NULL. */
void psl_dmatrix_destroy(psl_dmatrix **dA);

/* Same statistics as psl_matrix_get_info of the uploaded matrix. */
psl_status psl_dmatrix_get_info(const psl_dmatrix *dA, psl_matrix_info *info);

/* Bytes of device workspace psl_dspmv needs for this matrix and vector type:
 * cuSPARSE's buffer for CSR; for SELL/PackSELL with C = 32 whose long rows
 * are split over more than one block of warps that no thread-block cluster
 * holds (large matrices, slices wider than the largest cluster covers, or a
 * device without clusters), one partial sum per row and block (see src/kernels/cuda/long_rows.h);
 * else 0. Always ask: the answer depends on the device the matrix is on. */
psl_status psl_dspmv_workspace_size(const psl_dmatrix *dA, psl_scalar vec_type,
                                    size_t *bytes);

/* y = alpha*A*x + beta*y on the device, asynchronous on `stream`: d_x
 * (ncols) and d_y (nrows) are device arrays of vec_type (FP64, FP32, FP16;
 * accumulation FP64 for FP64 vectors, FP32 otherwise); beta == 0: y is not
 * read. No allocation, no synchronization: CUDA-graph capturable. Results
 * are bitwise deterministic run to run (SELL/PackSELL: equal to psl_spmv's
 * bits except in rows of slices split over warps, whose partial sums are
 * added in a fixed order of their own). workspace: device memory of at least
 * psl_dspmv_workspace_size bytes (may be NULL when that is 0). */
psl_status psl_dspmv(double alpha, const psl_dmatrix *dA, const void *d_x, double beta,
                     void *d_y, psl_scalar vec_type, void *workspace,
                     size_t workspace_bytes, void *stream);

/* ============================================================= solvers
 *
 * Krylov solvers written once over three objects, whatever the backend:
 *  - an executor (psl_exec): where vectors live and operations run, the CPU
 *    (OpenMP) or one CUDA device and stream;
 *  - vectors (psl_vec): a length, a scalar type (FP64, FP32, FP16) and data
 *    in the executor's memory, owned or a view of the caller's array;
 *  - operators (psl_op): anything computing y = alpha*Op(x) + beta*y --
 *    matrices of every format and codec, preconditioners and solvers, so that
 *    solvers nest (a solver with fixed_iters > 0 is an operator).
 * On a CUDA executor every operation is asynchronous on the executor's stream
 * except those returning a host value (psl_vec_dot, psl_vec_norm2,
 * psl_vec_get, psl_solver_solve), which synchronize it. A solve keeps its
 * vectors and scalars on the device; an iteration reads one small block of
 * scalars back for its convergence test. Results are deterministic: the same
 * inputs on the same executor give the same bits, whatever the number of
 * threads. An executor, its vectors and operators are used by one host
 * thread at a time. */

/* ------------------------------------------------------------- executors */

typedef struct psl_exec psl_exec;

/* An executor running on the host with OpenMP. */
psl_status psl_exec_create_cpu(psl_exec **ex);
/* An executor on CUDA device `device` (>= 0) and `stream` (a cudaStream_t
 * as void*, NULL: the legacy default stream; the caller keeps ownership of
 * it). PSL_ERR_NOT_SUPPORTED in a build without CUDA; PSL_ERR_CUDA when the
 * device does not exist. The executor makes `device` current on the calling
 * thread whenever it runs. */
psl_status psl_exec_create_cuda(psl_exec **ex, int device, void *stream);
/* Destroy an executor (its vectors and operators first); *ex = NULL. */
void psl_exec_destroy(psl_exec **ex);
/* Wait for the executor's queued work. */
psl_status psl_exec_synchronize(psl_exec *ex);
/* 1 for a CUDA executor, 0 for the CPU (NULL: 0). */
int psl_exec_is_cuda(const psl_exec *ex);

/* ------------------------------------------------------------- vectors */

typedef struct psl_vec psl_vec;

/* Ownership of caller memory given to psl_vec_wrap. */
typedef enum psl_mem {
    PSL_MEM_COPY = 0, /* the vector owns new memory holding a copy of the host array */
    PSL_MEM_VIEW = 1  /* the vector uses the caller's array, in the executor's memory
                         (host for the CPU, device memory for CUDA); the caller
                         keeps it alive and frees it after psl_vec_destroy */
} psl_mem;

/* A new owned vector of n >= 0 entries of type (FP64, FP32, FP16), zeroed. */
psl_status psl_vec_create(psl_vec **v, psl_exec *ex, int64_t n, psl_scalar type);
/* A vector over data (n entries of type): a copy of a HOST array
 * (PSL_MEM_COPY; data may then be NULL only when n == 0) or a view of an array
 * in the executor's memory (PSL_MEM_VIEW). On a CUDA executor a view of host
 * memory is refused (PSL_ERR_INVALID_VALUE). */
psl_status psl_vec_wrap(psl_vec **v, psl_exec *ex, int64_t n, psl_scalar type, void *data,
                        psl_mem mode);
/* Destroy a vector (a view leaves the caller's array alone); *v = NULL. */
void psl_vec_destroy(psl_vec **v);
/* Length, type and data pointer (executor memory) of v; any output may be NULL. */
psl_status psl_vec_info(const psl_vec *v, int64_t *n, psl_scalar *type, void **data);
/* v = host (n doubles, converted to v's type, round-to-nearest-even). */
psl_status psl_vec_set(psl_vec *v, const double *host);
/* host (n doubles) = v, exactly. Synchronizes. */
psl_status psl_vec_get(const psl_vec *v, double *host);
/* Every entry of v = value. */
psl_status psl_vec_fill(psl_vec *v, double value);
/* y = x, converting between types (same length; x and y distinct). */
psl_status psl_vec_copy(const psl_vec *x, psl_vec *y);
/* x = a*x. */
psl_status psl_vec_scale(double a, psl_vec *x);
/* y = a*x + b*y (same length and type; b == 0: y is not read). Arithmetic in
 * FP64 for FP64 vectors, FP32 otherwise. */
psl_status psl_vec_axpby(double a, const psl_vec *x, double b, psl_vec *y);
/* *result = x.y, accumulated in acc (PSL_FP64 or PSL_FP32), in a fixed order
 * that depends on the length only. Synchronizes. */
psl_status psl_vec_dot(const psl_vec *x, const psl_vec *y, psl_scalar acc, double *result);
/* *result = ||x||_2, accumulated as psl_vec_dot. Synchronizes. */
psl_status psl_vec_norm2(const psl_vec *x, psl_scalar acc, double *result);

/* ------------------------------------------------------------- operators */

typedef struct psl_op psl_op;

/* An operator applying matrix A to vectors of vec_type (FP64, FP32, FP16;
 * accumulation as psl_spmv). On the CPU the operator reads A, which must
 * outlive it; on CUDA it holds a device copy (psl_dmatrix_upload) and its
 * SpMV workspace. Any format and codec; an explicitly permuted matrix is
 * refused (its products come out in stored row order). */
psl_status psl_op_matrix(psl_op **op, psl_exec *ex, const psl_matrix *A, psl_scalar vec_type);
/* The same over a device matrix (a view: dA must outlive the operator). */
psl_status psl_op_dmatrix(psl_op **op, psl_exec *ex, const psl_dmatrix *dA, psl_scalar vec_type);
/* y = alpha*Op(x) + beta*y (beta == 0: y is not read). x and y: the
 * operator's input and output types and lengths, on its executor, distinct. */
psl_status psl_op_apply(const psl_op *op, double alpha, const psl_vec *x, double beta,
                        psl_vec *y);
/* Shape and vector types of an operator; any output may be NULL. */
psl_status psl_op_info(const psl_op *op, int64_t *nrows, int64_t *ncols, psl_scalar *in_type,
                       psl_scalar *out_type);
/* Destroy an operator made by psl_op_* or psl_precond_* (not the operator of
 * a solver: psl_solver_destroy); *op = NULL. */
void psl_op_destroy(psl_op **op);

/* ------------------------------------------------------------- preconditioners */

/* Jacobi: y = alpha * D^-1 x + beta*y with D the diagonal of the square FP64
 * CSR matrix A, in vectors of vec_type. A zero, negative, NaN or missing
 * diagonal entry fails with PSL_ERR_INVALID_MATRIX naming the row (CG needs
 * an SPD preconditioner). When every 1/a_ii is 1 to within a unit in the
 * last place of vec_type (four for FP64), as after symmetric diagonal
 * scaling, the operator is applied as the identity. */
psl_status psl_precond_jacobi(psl_op **M, psl_exec *ex, const psl_matrix *A, psl_scalar vec_type);
/* Jacobi for the nonsymmetric solvers (GMRES, FGMRES, BiCGStab, F3R): as
 * psl_precond_jacobi, but any nonzero finite diagonal entry is taken,
 * negative ones included; a zero, NaN or missing one fails naming the row.
 * psl_solve uses it for those methods. */
psl_status psl_precond_jacobi_general(psl_op **M, psl_exec *ex, const psl_matrix *A,
                                      psl_scalar vec_type);

/* Options of SD-AINV (Suzuki, Fukaya, Iwashita 2022): M^-1 = Z D^-1 W^T. */
typedef struct psl_sdainv_options {
    double drop_tol;  /* absolute drop tolerance: entries with |v| < drop_tol are
                         dropped (default 0.1; >= 0 and < 1) */
    double acc;       /* the unit diagonal of w_i is multiplied by acc when d_i is
                         formed (default 1.0; finite, > 0) */
    int symmetric;    /* 1: build Z only (W = Z, A must be symmetric); 0: build
                         both; -1 (default): 1 when A equals its transpose */
} psl_sdainv_options;

void psl_sdainv_options_init(psl_sdainv_options *opt);

/* Build the SD-AINV factors of a square FP64 CSR matrix A in FP64, as two
 * FP64 CSR matrices: Wt = W^T and ZDinv = Z D^-1, so that the
 * preconditioner is y = ZDinv (Wt x). The build is left-looking over the
 * rows of A (the set of j used follows A's pattern; w_i and z_i fill in
 * through w_j and z_j, limited by the drop); d_i == 0 is replaced by 1.
 * Every row of A must hold its diagonal (PSL_ERR_INVALID_MATRIX naming the
 * row otherwise). *Wt and *ZDinv are new handles (destroy both). */
psl_status psl_sdainv_build(const psl_matrix *A, const psl_sdainv_options *opt,
                            psl_matrix **Wt, psl_matrix **ZDinv);

/* A preconditioner y = alpha * F2 (F1 x) + beta*y from two FP64 CSR matrices
 * (for SD-AINV: F1 = Wt, F2 = ZDinv), each converted with *storage (any
 * format and codec; NULL: FP64 CSR) and applied to vectors of vec_type with
 * one workspace vector. The operator keeps its own copies. When both are
 * diagonal (every entry on the diagonal) the operator is the one diagonal
 * diag(F2) .* diag(F1), the factors' values rounded as *storage stores them,
 * applied like Jacobi (and as the identity when it is 1 to rounding). */
psl_status psl_precond_product(psl_op **M, psl_exec *ex, const psl_matrix *F1,
                               const psl_matrix *F2, const psl_convert_options *storage,
                               psl_scalar vec_type);

/* ------------------------------------------------------------- Krylov solvers */

typedef enum psl_method {
    PSL_METHOD_CG = 0,  /* preconditioned conjugate gradients */
    PSL_METHOD_FCG = 1, /* flexible CG (Notay 2000), for a variable preconditioner */
    PSL_METHOD_GMRES = 2,  /* GMRES(restart), right preconditioned (M fixed) */
    PSL_METHOD_FGMRES = 3, /* flexible GMRES(restart) (Saad 1993): keeps z_j = M v_j, for a
                              variable preconditioner (an inner solver) */
    PSL_METHOD_BICGSTAB = 4, /* BiCGStab (van der Vorst 1992), right preconditioned */
    PSL_METHOD_RICHARDSON = 5 /* adaptive Richardson(m), an inner solver only
                                 (fixed_iters = m > 0): see below */
} psl_method;
/* GMRES and FGMRES: classical Gram-Schmidt in one pass (a second one with
 * gmres_reorth), Givens rotations with a scaled hypotenuse; the Hessenberg
 * matrix, rotations and least-squares data are FP64 whatever vec_type (the
 * reference F3R keeps them in each layer's precision: FP64 costs nothing at
 * these sizes and keeps an FP32 layer's small problem exact to FP64). As an
 * outer solver, iterations are Arnoldi steps (max_iters counts them over all
 * cycles); at each restart and at the end x is checked by the true
 * residual, and the solve converges when that is below tol. BiCGStab reads
 * its scalars once per iteration; rho = 0 and omega = 0 end it with their own
 * reasons.
 *
 * Adaptive Richardson (F3R's innermost layer, Suzuki and Iwashita): on the
 * input v, step 1 y = w_1 M v, steps k = 2..m r = v - A y, y += w_k M r, one
 * weight w_k per step. Every richardson_c-th call of the operator (the first
 * on the richardson_c-th call) is a sampling call: each step uses its local
 * optimum w = (t, r) / (t, t), t = A (M r) (r = v in step 1), from two dot
 * products read to the host, and adds it to the step's running mean, which
 * counts the starting value 1 as one sample; the other calls use the means,
 * constant coefficients with no host read. The weights' arithmetic is FP32
 * (FP64 for FP64 vectors) with FP32 dot products (dot_acc for FP64
 * vectors); a mean is stored rounded to the vectors' precision (FP16 for
 * FP16 vectors). The weights and the call counter start afresh at every
 * psl_solver_solve of a solver that holds this one in its chain of
 * preconditioners (or of this solver itself), and are kept across that
 * solve's restarts. Vectors may be FP16 (only for this method). With
 * op_unit_input = 1 (default) the operator takes its input as given, like
 * GMRES (only FGMRES may use it as M); 0 normalises it. psl_solver_solve on
 * such a solver runs m steps on b as given. */

/* Why a solve ended (psl_solve_result.reason). */
typedef enum psl_reason {
    PSL_REASON_CONVERGED = 0,   /* ||b - A x||_2 / ||b||_2 < tol (the true residual) */
    PSL_REASON_FIXED_ITERS = 1, /* fixed_iters iterations were run */
    PSL_REASON_MAX_ITERS = 2,   /* max_iters reached (PSL_ERR_NOT_CONVERGED) */
    PSL_REASON_INDEFINITE = 3,  /* p.Ap <= 0 or z.r < 0 (PSL_ERR_BREAKDOWN) */
    PSL_REASON_NONFINITE = 4,   /* NaN or Inf in a scalar of the iteration (PSL_ERR_BREAKDOWN) */
    PSL_REASON_STAGNATION = 5,  /* the residual stopped decreasing (PSL_ERR_BREAKDOWN): for
                                   stagnation_iters iterations, or the true residual over
                                   3 residual replacements (the recurrence converges to
                                   another matrix's solution, e.g. values stored in FP16);
                                   GMRES: the Krylov space became invariant with
                                   the residual above tol (A M singular on it) */
    PSL_REASON_RHO_ZERO = 6,    /* BiCGStab: rho = rhat.r = 0 or rhat.(A M p) = 0, the
                                   BiCG breakdown (PSL_ERR_BREAKDOWN) */
    PSL_REASON_OMEGA_ZERO = 7   /* BiCGStab: omega = t.s / t.t = 0 (PSL_ERR_BREAKDOWN) */
} psl_reason;

/* Name of a reason ("converged", "max-iters", ...). */
const char *psl_reason_name(psl_reason reason);

/* Called after each outer iteration (and once with iter = 0 at the start)
 * with the relative residual the iteration computes (recursive: the true
 * one is checked when it falls below tol; GMRES and FGMRES: the estimate
 * |g_j+1| / ||b|| after each Arnoldi step). */
typedef void (*psl_monitor_fn)(void *ctx, int32_t iter, double relres);

/* Options of a solver. psl_solver_options_init sets the defaults. */
/* Largest psl_solver_options.restart. */
#define PSL_GMRES_RESTART_MAX 1000

typedef struct psl_solver_options {
    psl_scalar vec_type;     /* FP64 (default) or FP32: vectors and arithmetic
                                (FP16 too for Richardson: FP32 arithmetic) */
    psl_scalar dot_acc;      /* accumulation of dot products: FP64 (default), FP32 */
    double tol;              /* relative residual to reach (default 1e-9), > 0 */
    int32_t max_iters;       /* iteration limit (default 10000), >= 1 */
    int32_t fixed_iters;     /* > 0: an inner solver: exactly this many iterations
                                from x = 0 on b/||b||, scaled back, testing
                                nothing (after p.Ap <= 0 the remaining ones
                                change nothing); GMRES, FGMRES: one cycle of
                                fixed_iters Arnoldi steps (restart unused), on
                                the operator's input as op_unit_input says, and
                                ending early only at an exact (happy) breakdown,
                                when the rest would change nothing; default 0 */
    psl_scalar op_type;      /* fixed_iters > 0: the type of the x and y of the
                                solver as an operator, converted from and to
                                vec_type (default FP64) */
    int32_t fcg_mmax;        /* FCG: directions kept (default 1), 1..64 */
    int32_t fcg_restart;     /* FCG: 0 (default) keep the last mmax directions;
                                1 Notay's truncate-and-restart schedule
                                m_i = ((i-1) mod mmax) + 1 (PETSc KSPFCG) */
    int32_t restart;         /* GMRES, FGMRES: Arnoldi steps per cycle, the m of
                                GMRES(m) (default 30), 1..PSL_GMRES_RESTART_MAX;
                                memory: m+1 basis vectors (FGMRES with M: 2m+1) */
    int32_t gmres_reorth;    /* GMRES, FGMRES: 1: a second classical Gram-Schmidt
                                pass when the new vector's norm fell below
                                1/sqrt(2) of its norm before the first; 0
                                (default): one pass */
    int32_t op_unit_input;   /* GMRES, FGMRES, Richardson with fixed_iters > 0, as
                                an operator:
                                1 (default): the input x is taken as given, as a
                                unit-norm vector (V_0 = x, e_0 = 1), which is what
                                an outer FGMRES passes (its Arnoldi vectors) and
                                saves a reduction per call; such an operator is
                                refused as the M of any method but FGMRES. 0: x
                                is normalised and the result scaled back (any
                                caller). psl_solver_solve always normalises b. */
    int32_t stagnation_iters;/* breakdown when the residual has not decreased
                                below its best for this many iterations
                                (default 0: never) */
    int32_t recursive_stop;  /* 1: stop when the recursive residual is below tol
                                without confirming the true one (the rule of
                                most reference codes; relres still reports the
                                true residual); default 0 */
    const psl_op *residual_op; /* FP64 operator for the true residual test
                                (NULL: the solver's A, in its vector type) */
    psl_monitor_fn monitor;  /* NULL: none */
    void *monitor_ctx;
    int32_t richardson_c;    /* Richardson: sampling period c of the adaptive
                                weights (default 64), >= 1 */
} psl_solver_options;

void psl_solver_options_init(psl_solver_options *opt);

/* What a solve did. */
typedef struct psl_solve_result {
    psl_reason reason;
    int32_t iterations;        /* outer iterations (GMRES, FGMRES: Arnoldi steps) */
    int64_t inner_iterations;  /* iterations of the solvers inside the preconditioner */
    double relres;             /* true ||b - A x||_2 / ||b||_2, in FP64 (residual_op) */
    double relres_recursive;   /* the residual the recurrence reached */
    double seconds;            /* wall time of the solve (queued work included) */
} psl_solve_result;

typedef struct psl_solver psl_solver;

/* A solver of A x = b with preconditioner M (NULL: none), both operators on
 * the same executor, A square, M of A's shape; vectors of opt->vec_type, which
 * must be A's and M's input and output type. Work vectors are allocated
 * here. A and M must outlive the solver. */
psl_status psl_solver_create(psl_solver **s, psl_method method, const psl_op *A, const psl_op *M,
                             const psl_solver_options *opt);
/* Solve from the initial guess in x (fixed_iters > 0: from zero). Returns
 * PSL_OK when converged (or fixed_iters done), PSL_ERR_NOT_CONVERGED at
 * max_iters, PSL_ERR_BREAKDOWN on breakdown; in those three cases *res is
 * filled and x holds the last iterate, finite: an update with a non-finite
 * or non-positive curvature is never applied. Misuse (wrong lengths or
 * types, NaN or Inf in b: PSL_ERR_NONFINITE) leaves x untouched. res may be
 * NULL. */
psl_status psl_solver_solve(psl_solver *s, const psl_vec *b, psl_vec *x, psl_solve_result *res);
/* The solver as an operator y = alpha*S(x) + beta*y, for fixed_iters > 0
 * (NULL otherwise); owned by the solver. */
const psl_op *psl_solver_op(const psl_solver *s);
/* Iterations run inside this solver as an operator since its creation. */
int64_t psl_solver_op_iterations(const psl_solver *s);
/* The current weights of an adaptive Richardson solver: w[k] for k < m (the
 * values its non-sampling calls use, as stored), at most `cap` written
 * (host memory). Returns m, or -1 when s is not a live Richardson solver. */
int32_t psl_solver_richardson_weights(const psl_solver *s, double *w, int32_t cap);
void psl_solver_destroy(psl_solver **s);

/* ------------------------------------------------------------- one call */

/* Preconditioners of psl_solve. */
typedef enum psl_precond_kind {
    PSL_PRECOND_NONE = 0,
    PSL_PRECOND_JACOBI = 1,
    PSL_PRECOND_SDAINV = 2
} psl_precond_kind;

/* Methods of psl_solve: CG and FCG as above; IOCG = FCG in the outer vector
 * type whose preconditioner is inner_iters iterations of CG in FP32 vectors
 * from zero on r/||r|| (scaled back), with the matrix stored as
 * inner_storage and the preconditioner in FP32 vectors; GMRES, FGMRES
 * (solver.restart steps per cycle) and BiCGStab as PSL_METHOD_*, for
 * nonsymmetric systems. */
typedef enum psl_solve_method {
    PSL_SOLVE_CG = 0,
    PSL_SOLVE_FCG = 1,
    PSL_SOLVE_IOCG = 2,
    PSL_SOLVE_GMRES = 3,
    PSL_SOLVE_FGMRES = 4,
    PSL_SOLVE_BICGSTAB = 5,
    PSL_SOLVE_F3R = 6 /* the nested FP16 solver F3R (psl_f3r_options) */
} psl_solve_method;

/* Variants of F3R (psl_f3r_options.variant): where the matrix of layers 3
 * and 4 and layer 4's preconditioner factors are stored. */
typedef enum psl_f3r_variant {
    PSL_F3R_FP64 = 0,    /* FP64-F3R: every layer FP64 vectors, the FP64 matrix
                            (as `storage`), factors as precond_storage */
    PSL_F3R_FP16 = 1,    /* FP16-F3R: SELL FP16, C = 32, sigma = 256, implicit */
    PSL_F3R_PACKSELL = 2 /* PackSELL-F3R: PackSELL FP16 (D = 15), C = 32,
                            sigma = 256, implicit (default) */
} psl_f3r_variant;

/* F3R (Suzuki and Iwashita, SC'25; ALGORITHMS.md section 7): four nested
 * solvers, each the preconditioner of the one above:
 *   layer 1  FGMRES(m1), FP64 vectors and matrix, to solver.tol on the true
 *            residual (solver.max_iters Arnoldi steps at most)
 *   layer 2  FGMRES(m2), FP32 vectors, SELL FP32 matrix, m2 steps per call
 *   layer 3  FGMRES(m3), FP32 vectors, the FP16 matrix, m3 steps per call
 *   layer 4  adaptive Richardson(m4) (PSL_METHOD_RICHARDSON, sampling period
 *            c), FP16 vectors, the FP16 matrix, and cfg->precond in FP16
 *            (SD-AINV factors stored as the matrix) as its preconditioner
 * The FP16 matrix is SELL FP16 or PackSELL FP16 as the variant says; FP16
 * values beyond FP16's range fail the conversion (PSL_ERR_CODEC_OVERFLOW,
 * naming the layer). Every FP16 SpMV accumulates in FP32 (the reference
 * accumulates layer 4 in FP16). The inner layers take the unit-norm Arnoldi
 * vectors of the layer above as given (op_unit_input); Hessenberg data are
 * FP64 in every layer. FP64-F3R runs every layer in FP64. */
typedef struct psl_f3r_options {
    psl_f3r_variant variant; /* default PSL_F3R_PACKSELL */
    int32_t m1;              /* layer 1 restart (default 100), 1..PSL_GMRES_RESTART_MAX */
    int32_t m2;              /* layer 2 steps (default 8), 1..PSL_GMRES_RESTART_MAX */
    int32_t m3;              /* layer 3 steps (default 4), 1..PSL_GMRES_RESTART_MAX */
    int32_t m4;              /* layer 4 Richardson steps (default 2), 1..1000 */
    int32_t c;               /* layer 4 sampling period (default 64), >= 1 */
    psl_codec codec;         /* PackSELL-F3R: the codec of layers 3-4's matrix
                                and layer 4's factors: FP16 {5, 10} (D = 15,
                                the paper's), BF16 {8, 7} or any E8MY {8, Y};
                                {0, 0} (default): automatic, from the scaled
                                matrix's values: FP16 unless more than 1% of
                                its nonzeros lie below FP16's normal range
                                (|a| < 2^-14, where FP16 loses digits or flushes
                                to zero), then E8M14 (D = 8). Values above
                                65504 still fail the FP16 layers: layer 4's
                                vectors are FP16 whatever the codec (the
                                symmetric scaling, on by default, keeps the
                                values of a diagonally dominant matrix <= 1).
                                Ignored by the other variants. */
} psl_f3r_options;

typedef struct psl_solve_config {
    psl_solve_method method;           /* default CG */
    psl_precond_kind precond;          /* default Jacobi */
    psl_sdainv_options sdainv;         /* SD-AINV build options */
    int storage_auto;                  /* 1 (default): the outer matrix's storage is
                                          chosen per device: CSR on the CPU, SELL
                                          (C = 32, sigma = 256) on CUDA, with the
                                          vectors' value type; 0: `storage` as given */
    psl_convert_options storage;       /* the outer matrix when storage_auto = 0
                                          (CSR FP64 with FP32 vectors means CSR
                                          with FP32 values) */
    psl_convert_options precond_storage; /* SD-AINV factors of CG and FCG
                                          (default CSR FP64) */
    psl_convert_options inner_precond_storage; /* SD-AINV factors inside IOCG
                                          (default SELL FP32, C = 32, sigma = 256) */
    psl_convert_options inner_storage; /* IOCG inner matrix (default PackSELL,
                                          codec E8M14 (D = 8), C = 32, sigma = 256) */
    int32_t inner_iters;               /* IOCG m_in (default 50), >= 1 */
    int scale;                         /* 1 (default): solve Gbar^-1 A Gbar^-1 y =
                                          Gbar^-1 b, x = Gbar^-1 y, gbar_i =
                                          sqrt|a_ii| (1 if zero or missing) */
    int device;                        /* -1 (default): CPU; >= 0: CUDA device */
    int32_t repeat;                    /* solves from the same x0 with one setup, for
                                          timing (default 1), 1..1000; the last
                                          one's x is returned */
    psl_solver_options solver;         /* outer solver (tol, max_iters, vec_type,
                                          fcg_*, monitor); residual_op is set
                                          by psl_solve */
    /* NULL (default), or SD-AINV factors built before by psl_sdainv_build of the
     * system solved (Gbar^-1 A Gbar^-1 when scale = 1), used instead of building
     * them: FP64 CSR, nrows x nrows, both or neither */
    const psl_matrix *sdainv_wt;
    const psl_matrix *sdainv_zdinv;
    psl_f3r_options f3r;               /* method F3R: its layers (solver.vec_type must
                                          be FP64; precond applies to layer 4, and
                                          the paper's F3R uses PSL_PRECOND_SDAINV) */
} psl_solve_config;

void psl_solve_config_init(psl_solve_config *cfg);

/* Setup and solve times of psl_solve, in seconds, and the outcome. */
typedef struct psl_solve_report {
    psl_solve_result result;   /* relres: of the solved (scaled) system */
    double relres_unscaled;    /* ||b - A x||_2 / ||b||_2 of the caller's A, b, x */
    double scale_seconds;      /* symmetric scaling of A and b */
    double convert_seconds;    /* format conversions of A (outer and inner) */
    double precond_seconds;    /* preconditioner build (SD-AINV: the factors
                                  and their conversion) */
    double upload_seconds;     /* copies to the device (CUDA) */
    double solve_seconds;      /* the iteration, to the final true residual
                                  (the median over cfg->repeat solves) */
    double solve_seconds_min, solve_seconds_max; /* over the repeats */
    psl_codec f3r_codec;       /* PackSELL-F3R: the codec its PackSELL layers
                                  used (the automatic choice made); {0, 0}
                                  for the other methods and variants */
} psl_solve_report;

/* F3R's layers 2-4 alone (cfg->f3r, with cfg->precond, cfg->sdainv and
 * cfg->precond_storage for layer 4's preconditioner, as psl_solve builds
 * them; cfg NULL: the defaults, PackSELL-F3R; cfg->method is ignored) as a
 * preconditioner y = alpha F(x) + beta y of the square FP64 CSR matrix A,
 * in FP64 vectors on ex, for an outer flexible solver of the caller's
 * (FGMRES, FCG; PETSc's KSPFGMRES through the packsell PC): F is a fixed
 * number of inner iterations, so it varies with its input. Layer 2
 * normalises its input and scales the result back (any input). With
 * cfg->scale (default) the layers run on S = G^-1 A G^-1, gbar_i =
 * sqrt|a_ii|, and F(x) = G^-1 F_S(G^-1 x), which keeps FP16 values in range.
 * The operator owns its matrices and solvers (A may be freed after the
 * call). Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_INVALID_VALUE (A not square or not FP64 CSR, cfg), the errors of
 * the conversions (PSL_ERR_CODEC_OVERFLOW naming the layer) and of
 * SD-AINV, PSL_ERR_OUT_OF_MEMORY; *M is then NULL. */
psl_status psl_precond_f3r(psl_op **M, psl_exec *ex, const psl_matrix *A,
                           const psl_solve_config *cfg);

/* Solve A x = b for a square FP64 CSR matrix A: b and x are host arrays of
 * nrows doubles; x holds the initial guess on entry (zeros for the usual
 * x0 = 0) and the solution on return. Builds what cfg asks (scaling,
 * conversions, preconditioner, device copies), solves, and frees it all.
 * Returns as psl_solver_solve; on misuse (bad cfg, A not square, NaN or
 * Inf in b or x, zero diagonal for Jacobi) x is untouched and report not
 * written. report may be NULL. */
psl_status psl_solve(const psl_matrix *A, const double *b, double *x,
                     const psl_solve_config *cfg, psl_solve_report *report);


#ifdef __cplusplus
}
#endif
#endif /* PACKSELL_H */
