/*
 * convert.cuh -- internal interface of the device conversion CSR -> SELL /
 * PackSELL / CSR (psl_dmatrix_convert in convert.cu): the job shared by the
 * kernels of convert_count.cu (validation, row lengths, row statistics),
 * convert_sort.cu (sigma order, perm, slice offsets) and convert_encode.cu
 * (PackSELL words, SELL columns and values, the CSR copy). Every launcher
 * enqueues on job->s and returns the launch status; none synchronizes.
 */
#ifndef PSL_CUDA_CONVERT_CUH
#define PSL_CUDA_CONVERT_CUH

#include "dmatrix.cuh"

/* "None yet" of the first-error records (atomicMin). */
#define PSL_CONV_NONE 0xffffffffffffffffULL

/* Reductions and first-error records written by the kernels: one per
 * conversion in device memory, read back at the two synchronizations. */
struct psl_dconv_sum {
    /* row_ptr error, smallest key: 0 row_ptr[0] != 0, i+1 row_ptr
     * decreases after row i, nrows+1 row_ptr[nrows] != nnz */
    unsigned long long rp_bad;
    unsigned long long col_bad;   /* first row with a bad column */
    unsigned long long val_bad;   /* first entry whose value cannot be stored */
    long long kleft;              /* max (i - first column of row i); LLONG_MIN: none */
    unsigned long long max_len;   /* longest row in entries */
    unsigned long long max_width; /* widest slice (words or entries) */
    unsigned long long dummies;   /* PackSELL dummy words */
    unsigned long long underflows;
    long long sell_stored; /* PackSELL: stored entries of the equivalent SELL */
    double rsd;
    /* error details (psl_conv_describe_*, error path only) */
    int err_kind; /* PSL_CONV_ERR_* */
    long long err_row, err_col, err_prev;
    double err_val;
};

/* What psl_conv_describe_row found in a row. */
enum { PSL_CONV_ERR_NONE = 0, PSL_CONV_ERR_RANGE, PSL_CONV_ERR_UNSORTED, PSL_CONV_ERR_DUPLICATE };

/* One conversion: the input (device arrays), the options, the layout. */
struct psl_dconv {
    int32_t nrows, ncols;
    int64_t nnz;
    const int64_t *rp;
    const int32_t *ci;
    const void *val;
    psl_scalar in_type; /* PSL_FP64 or PSL_FP32 */

    psl_format format;
    psl_scalar out_type; /* CSR / SELL value type */
    psl_codec codec;     /* PackSELL */
    int D;               /* PackSELL delta bits */
    psl_overflow policy;
    int32_t C, sigma, dblock; /* dblock: psl_dblock (sigma, or C if 0) */
    int32_t nslices;

    psl_dconv_sum *sum; /* device */
    cudaStream_t s;
};

/* ---- convert_count.cu ---- */
/* Check row_ptr (sum->rp_bad); kleft and the longest row (sum). */
psl_status psl_conv_scan_rows(const psl_dconv *c);
/* Check the columns of every row (sum->col_bad) and write len[r]: words
 * (words != 0: entries plus dummy words, deltas from the row's start column
 * with sum->kleft) or entries. Rows with an error get 0. Dummies to sum. */
psl_status psl_conv_row_lengths(const psl_dconv *c, bool words, int64_t *len);
/* len[r] = entries of row r (input already validated). */
psl_status psl_conv_entry_lengths(const psl_dconv *c, int64_t *len);
/* sum->rsd, summed exactly as the CPU's row statistics (csr_create.c). */
psl_status psl_conv_rsd(const psl_dconv *c);
/* Error path: what is wrong with row (err_kind, err_col, err_prev). */
psl_status psl_conv_describe_row(const psl_dconv *c, int64_t row);
/* Error path: row, column and value (as double) of CSR entry k. */
psl_status psl_conv_describe_entry(const psl_dconv *c, int64_t k);

/* ---- convert_sort.cu ---- */
/* order[i] = original row of stored row i: inside each sigma block, rows
 * stably sorted by descending len (ties keep their order), as
 * psl_sigma_order. sigma > 0. Temporaries are stream-ordered. */
psl_status psl_conv_order(const psl_dconv *c, const int64_t *len, int32_t *order);
/* perm[i] = order[i] - (i/sigma)*sigma in elements of pb bytes. */
psl_status psl_conv_perm(const psl_dconv *c, const int32_t *order, void *perm, int pb);
/* slice_ptr (nslices+1) from the widest stored row of every slice (order
 * NULL: identity); max_width: atomicMax target or NULL. */
psl_status psl_conv_slices(const psl_dconv *c, const int64_t *len, const int32_t *order,
                           int64_t *slice_ptr, unsigned long long *max_width);

/* ---- convert_encode.cu ---- */
/* PackSELL words (input validated, slice_ptr final); bad values and
 * underflows to sum. */
psl_status psl_conv_encode_packsell(const psl_dconv *c, const int32_t *order,
                                    const int64_t *slice_ptr, uint32_t *words);
/* SELL columns (-1 padding) and values of out_type (0 padding). */
psl_status psl_conv_encode_sell(const psl_dconv *c, const int32_t *order,
                                const int64_t *slice_ptr, int32_t *col, void *val);
/* CSR arrays for cuSPARSE: row offsets and columns 32-bit (index64 false)
 * or 64-bit, values of out_type. */
psl_status psl_conv_encode_csr(const psl_dconv *c, bool index64, void *rp, void *ci, void *val);

/* Reduction operators for cub::BlockReduce (spelled out: CUB's own moved
 * between CCCL versions). */
struct psl_op_max {
    template <typename T> __device__ __forceinline__ T operator()(const T &a, const T &b) const
    {
        return a < b ? b : a;
    }
};
struct psl_op_min {
    template <typename T> __device__ __forceinline__ T operator()(const T &a, const T &b) const
    {
        return b < a ? b : a;
    }
};

/* Blocks for n threads of PSL_CUDA_BLOCK (n >= 0), at most 2^31-1: the
 * conversion kernels use grid-stride loops. */
static inline unsigned psl_conv_grid(int64_t n)
{
    int64_t b = (n + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
    if (b > INT32_MAX)
        b = INT32_MAX;
    return (unsigned)(b < 1 ? 1 : b);
}

#endif /* PSL_CUDA_CONVERT_CUH */
