/*
 * convert_count.cu -- the first passes of the device conversion: row_ptr
 * validation with kleft and the longest row; per-row column validation and
 * lengths (entries, or PackSELL words = entries + dummy words, deltas from
 * psl_block_start_col as in packsell_build.c); the rsd of the row lengths
 * summed in the CPU's order; and the error-path kernels that describe the
 * first offending row or entry. Reductions are integer (deterministic)
 * except rsd, which reproduces csr_create.c's block order exactly.
 */
#include "convert.cuh"

#include "format/word.h"

#include <cub/block/block_reduce.cuh>

/* Rows per block of the rsd sum: must equal RSD_BLOCK of csr_create.c. */
#define PSL_CONV_RSD_BLOCK 8192

typedef cub::BlockReduce<long long, PSL_CUDA_BLOCK> psl_block_ll;
typedef cub::BlockReduce<unsigned long long, PSL_CUDA_BLOCK> psl_block_ull;

/* True when the row's range is inside the arrays (else a row_ptr error,
 * reported by the scan; the row is skipped everywhere). */
__device__ __forceinline__ bool psl_row_in_range(int64_t lo, int64_t hi, int64_t nnz)
{
    return lo >= 0 && lo <= hi && hi <= nnz;
}

/* Thread i of 0..n: row_ptr checks; rows with entries give kleft candidates
 * and lengths. One atomic per block and quantity. */
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_scan_rows(psl_dconv c)
{
    __shared__ union {
        psl_block_ll::TempStorage ll;
        psl_block_ull::TempStorage ull;
    } tmp;
    const int64_t n = c.nrows;
    long long kl = LLONG_MIN;
    unsigned long long mx = 0, bad = PSL_CONV_NONE;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i <= n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t lo = c.rp[i];
        if (i == 0 && lo != 0)
            bad = 0;
        if (i == n) {
            if (lo != c.nnz && (unsigned long long)n + 1 < bad)
                bad = (unsigned long long)n + 1;
            continue;
        }
        const int64_t hi = c.rp[i + 1];
        if (hi < lo && (unsigned long long)i + 1 < bad)
            bad = (unsigned long long)i + 1;
        if (psl_row_in_range(lo, hi, c.nnz) && hi > lo) {
            mx = max(mx, (unsigned long long)(hi - lo));
            kl = max(kl, (long long)(i - c.ci[lo]));
        }
    }
    long long bkl = psl_block_ll(tmp.ll).Reduce(kl, psl_op_max());
    __syncthreads();
    unsigned long long bmx = psl_block_ull(tmp.ull).Reduce(mx, psl_op_max());
    __syncthreads();
    unsigned long long bbad = psl_block_ull(tmp.ull).Reduce(bad, psl_op_min());
    if (threadIdx.x == 0) {
        if (bkl != LLONG_MIN)
            atomicMax(&c.sum->kleft, bkl);
        if (bmx)
            atomicMax(&c.sum->max_len, bmx);
        if (bbad != PSL_CONV_NONE)
            atomicMin(&c.sum->rp_bad, bbad);
    }
}

psl_status psl_conv_scan_rows(const psl_dconv *c)
{
    psl_k_scan_rows<<<psl_conv_grid((int64_t)c->nrows + 1), PSL_CUDA_BLOCK, 0, c->s>>>(*c);
    return psl_cuda_launch_status("row scan (conversion)");
}

/* The first problem of row r (PSL_CONV_ERR_*) and the entry it is at; the
 * row's range must be valid. */
__device__ int psl_row_problem(const psl_dconv &c, int64_t lo, int64_t hi, int64_t *at)
{
    int32_t prev = -1;
    for (int64_t k = lo; k < hi; k++) {
        const int32_t col = c.ci[k];
        *at = k;
        if (col < 0 || col >= c.ncols)
            return PSL_CONV_ERR_RANGE;
        if (k > lo && col <= prev)
            return col == prev ? PSL_CONV_ERR_DUPLICATE : PSL_CONV_ERR_UNSORTED;
        prev = col;
    }
    return PSL_CONV_ERR_NONE;
}

/* Thread per row: validate the columns, count entries or words. */
template <bool WORDS>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_row_lengths(psl_dconv c, int64_t *len)
{
    __shared__ psl_block_ull::TempStorage tmp;
    const int64_t n = c.nrows;
    const int64_t kleft = c.sum->kleft == LLONG_MIN ? 0 : c.sum->kleft;
    const int64_t limit = (int64_t)1 << c.D;
    unsigned long long dummies = 0, bad = PSL_CONV_NONE;
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < n;
         r += (int64_t)gridDim.x * blockDim.x) {
        const int64_t lo = c.rp[r], hi = c.rp[r + 1];
        int64_t words = 0;
        if (psl_row_in_range(lo, hi, c.nnz)) {
            int64_t prev = WORDS ? psl_block_start_col((r / c.dblock) * c.dblock, kleft, c.ncols)
                                 : 0;
            int64_t extra = 0;
            bool ok = true;
            for (int64_t k = lo; k < hi; k++) {
                const int32_t col = c.ci[k];
                /* col <= prev also catches a negative first delta (a bug) */
                if (col < 0 || col >= c.ncols || (k > lo && col <= prev) ||
                    (WORDS && k == lo && col < prev)) {
                    ok = false;
                    break;
                }
                if (WORDS)
                    extra += col - prev >= limit;
                prev = col;
            }
            if (ok) {
                words = hi - lo + extra;
                dummies += (unsigned long long)extra;
            } else if ((unsigned long long)r < bad) {
                bad = (unsigned long long)r;
            }
        }
        len[r] = words;
    }
    unsigned long long bd = psl_block_ull(tmp).Sum(dummies);
    __syncthreads();
    unsigned long long bb = psl_block_ull(tmp).Reduce(bad, psl_op_min());
    if (threadIdx.x == 0) {
        if (bd)
            atomicAdd(&c.sum->dummies, bd);
        if (bb != PSL_CONV_NONE)
            atomicMin(&c.sum->col_bad, bb);
    }
}

psl_status psl_conv_row_lengths(const psl_dconv *c, bool words, int64_t *len)
{
    if (c->nrows == 0)
        return PSL_OK;
    if (words)
        psl_k_row_lengths<true><<<psl_conv_grid(c->nrows), PSL_CUDA_BLOCK, 0, c->s>>>(*c, len);
    else
        psl_k_row_lengths<false><<<psl_conv_grid(c->nrows), PSL_CUDA_BLOCK, 0, c->s>>>(*c, len);
    return psl_cuda_launch_status("row lengths (conversion)");
}

__global__ void psl_k_entry_lengths(psl_dconv c, int64_t *len)
{
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < c.nrows;
         r += (int64_t)gridDim.x * blockDim.x)
        len[r] = c.rp[r + 1] - c.rp[r];
}

psl_status psl_conv_entry_lengths(const psl_dconv *c, int64_t *len)
{
    if (c->nrows == 0)
        return PSL_OK;
    psl_k_entry_lengths<<<psl_conv_grid(c->nrows), PSL_CUDA_BLOCK, 0, c->s>>>(*c, len);
    return psl_cuda_launch_status("entry lengths (conversion)");
}

/* Rows of an rsd block whose squared deviations a CUDA block holds in
 * shared memory at a time. */
#define PSL_CONV_RSD_CHUNK 2048

/* CUDA block b: the squared deviations of rows [b*RSD_BLOCK, ...) summed in
 * row order, exactly as row_stats() of csr_create.c (multiply, then add,
 * each rounded). The deviations are computed by all threads, a chunk at a
 * time, and only the in-order sum is serial (one thread reading shared
 * memory), so the serial thread does not wait on a row_ptr load per row. */
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_rsd_part(psl_dconv c, double mean, double *part)
{
    __shared__ double sq[PSL_CONV_RSD_CHUNK];
    const int64_t n = c.nrows;
    const int64_t lo = (int64_t)blockIdx.x * PSL_CONV_RSD_BLOCK;
    const int64_t hi = lo + PSL_CONV_RSD_BLOCK < n ? lo + PSL_CONV_RSD_BLOCK : n;
    double s = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += PSL_CONV_RSD_CHUNK) {
        const int64_t m = hi - c0 < PSL_CONV_RSD_CHUNK ? hi - c0 : PSL_CONV_RSD_CHUNK;
        for (int64_t j = threadIdx.x; j < m; j += blockDim.x) {
            const double d = __dadd_rn((double)(c.rp[c0 + j + 1] - c.rp[c0 + j]), -mean);
            sq[j] = __dmul_rn(d, d);
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int64_t j = 0; j < m; j++)
                s = __dadd_rn(s, sq[j]);
        __syncthreads();
    }
    if (threadIdx.x == 0)
        part[blockIdx.x] = s;
}

/* One thread: the blocks in order, then sqrt(ss / n) / mean. */
__global__ void psl_k_rsd_final(psl_dconv c, double mean, const double *part, int64_t nblk)
{
    double ss = 0.0;
    for (int64_t b = 0; b < nblk; b++)
        ss += part[b];
    c.sum->rsd = sqrt(ss / (double)c.nrows) / mean;
}

psl_status psl_conv_rsd(const psl_dconv *c)
{
    if (c->nnz == 0 || c->nrows == 0)
        return PSL_OK; /* rsd stays 0, as on the CPU */
    psl_status st = PSL_OK;
    const int64_t n = c->nrows;
    const int64_t nblk = (n + PSL_CONV_RSD_BLOCK - 1) / PSL_CONV_RSD_BLOCK;
    const double mean = (double)c->nnz / (double)n;
    double *part = NULL;
    PSL_TRY(PSL_CUDA_OK(cudaMallocAsync((void **)&part, (size_t)nblk * sizeof(double), c->s)));
    psl_k_rsd_part<<<(unsigned)nblk, PSL_CUDA_BLOCK, 0, c->s>>>(*c, mean, part);
    if ((st = psl_cuda_launch_status("rsd blocks (conversion)")) == PSL_OK) {
        psl_k_rsd_final<<<1, 1, 0, c->s>>>(*c, mean, part, nblk);
        st = psl_cuda_launch_status("rsd (conversion)");
    }
    psl_status fr = PSL_CUDA_OK(cudaFreeAsync(part, c->s));
    return st != PSL_OK ? st : fr;
}

__global__ void psl_k_describe_row(psl_dconv c, int64_t row)
{
    const int64_t lo = c.rp[row], hi = c.rp[row + 1];
    int64_t k = lo;
    int kind = psl_row_in_range(lo, hi, c.nnz) ? psl_row_problem(c, lo, hi, &k) : PSL_CONV_ERR_NONE;
    c.sum->err_kind = kind;
    c.sum->err_row = row;
    c.sum->err_col = kind ? c.ci[k] : -1;
    c.sum->err_prev = kind && k > lo ? c.ci[k - 1] : -1;
}

psl_status psl_conv_describe_row(const psl_dconv *c, int64_t row)
{
    psl_k_describe_row<<<1, 1, 0, c->s>>>(*c, row);
    return psl_cuda_launch_status("describe row (conversion)");
}

/* Row of entry k: the last row r with rp[r] <= k (rows with entries are
 * then the one holding k), by binary search. */
__global__ void psl_k_describe_entry(psl_dconv c, int64_t k)
{
    int64_t lo = 0, hi = c.nrows - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (c.rp[mid] <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    c.sum->err_row = lo;
    c.sum->err_col = c.ci[k];
    c.sum->err_val = c.in_type == PSL_FP64 ? ((const double *)c.val)[k]
                                           : (double)((const float *)c.val)[k];
}

psl_status psl_conv_describe_entry(const psl_dconv *c, int64_t k)
{
    psl_k_describe_entry<<<1, 1, 0, c->s>>>(*c, k);
    return psl_cuda_launch_status("describe entry (conversion)");
}
