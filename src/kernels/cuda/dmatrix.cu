/*
 * dmatrix.cu -- device matrices (extern "C"): psl_dmatrix_upload copies a
 * host matrix's arrays to the current device on the caller's stream and
 * waits for the copies; psl_dmatrix_destroy frees them; psl_dmatrix_get_info
 * answers from the host copy of the statistics.
 */
#include "dmatrix.cuh"

#include "core/options.h"
#include "format/csr/csr.h"
#include "format/format_ops.h"
#include "format/sliced/sliced.h"
#include "format/word.h"

#include <stdlib.h>
#include <string.h>

psl_status psl_dcopy(void **dst, const void *src, int64_t n, size_t size, cudaStream_t stream,
                     const char *what)
{
    *dst = NULL;
    if (n <= 0)
        return PSL_OK;
    if ((uint64_t)n > SIZE_MAX / size)
        return psl_error(PSL_ERR_SIZE_OVERFLOW, "device copy of %s: %lld elements of %zu bytes",
                         what, (long long)n, size);
    size_t bytes = (size_t)n * size;
    cudaError_t err = cudaMalloc(dst, bytes);
    if (err != cudaSuccess) {
        *dst = NULL;
        (void)cudaGetLastError();
        return psl_error(PSL_ERR_CUDA,
                         "cudaMalloc of %zu bytes for the device %s failed: %s (%s)", bytes,
                         what, cudaGetErrorString(err), cudaGetErrorName(err));
    }
    return PSL_CUDA_OK(cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, stream));
}

/* Free everything a (partial) device matrix holds, and the object. */
void psl_dmatrix_free(psl_dmatrix *d)
{
    psl_cuda_csr_release(d);
    void *arrays[] = {d->d_slice_ptr,   d->d_perm,          d->d_words,
                      d->d_col,         d->d_val,           d->d_row_ptr,
                      d->d_csr_col,     d->d_csr_val,       d->d_wide_blocks,
                      d->d_finish_slices, d->d_seg_start_col2, d->d_padded,
                      d->d_csrk_ptr,    d->d_csrk_own};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (arrays[i])
            (void)cudaFree(arrays[i]);
    (void)cudaGetLastError();
    d->magic = PSL_DEAD_MAGIC;
    psl_free(d);
}

/* log2(n) when n is a power of two >= 1, else -1. */
static int32_t psl_exact_log2(int64_t n)
{
    if (n < 1 || (n & (n - 1)))
        return -1;
    int32_t s = 0;
    while (((int64_t)1 << s) < n)
        s++;
    return s;
}

void psl_dmatrix_set_sliced(psl_dmatrix *d, const psl_matrix *A)
{
    psl_dsliced *m = &d->s;
    m->slice_ptr = (const int64_t *)d->d_slice_ptr;
    m->perm = A->permute == PSL_PERMUTE_IMPLICIT ? d->d_perm : NULL;
    m->perm_bytes = A->perm_bytes;
    m->sigma = A->sigma;
    m->C = A->C;
    m->nrows = A->nrows;
    m->ncols = A->ncols;
    m->dblock = psl_dblock(A);
    m->sigma_shift = psl_exact_log2(m->sigma);
    m->dblock_shift = psl_exact_log2(m->dblock);
    m->kleft = A->kleft;
    m->words = (const uint32_t *)d->d_words;
    m->delta_bits = A->delta_bits;
    m->exp_bits = A->codec.exp_bits;
    m->scale = A->format == PSL_FORMAT_PACKSELL ? psl_codec_decode_scale(A->codec.exp_bits) : 1.0f;
    m->col = (const int32_t *)d->d_col;
    m->val = d->d_val;
    m->wide_min_width = UINT32_MAX; /* no long-row split until psl_dmatrix_setup_wide */
    m->seg_width = 0;
    m->wide_cluster = 1;
    m->n_wide_blocks = 0;
    m->wide_blocks = NULL;
    m->seg_start_col2 = NULL;
    m->uniform_width = 0;
}

/* The sliced arrays (SELL, PackSELL) and the kernel parameters. The perm
 * array goes up for explicit permutation too (the kernels do not read it
 * then; psl_dmatrix_download gives it back). */
extern "C" psl_status psl_cuda_sliced_upload(psl_dmatrix *d, const psl_matrix *A, cudaStream_t s)
{
    const int64_t total = A->slice_ptr[A->nslices];
    PSL_TRY(psl_dcopy(&d->d_slice_ptr, A->slice_ptr, (int64_t)A->nslices + 1, sizeof(int64_t), s,
                      "slice offsets"));
    if (A->perm && A->sigma > 0)
        PSL_TRY(psl_dcopy(&d->d_perm, A->perm, A->nrows, (size_t)A->perm_bytes, s,
                          "permutation"));
    if (A->format == PSL_FORMAT_PACKSELL) {
        PSL_TRY(psl_dcopy(&d->d_words, A->words, total, sizeof(uint32_t), s, "PackSELL words"));
    } else {
        PSL_TRY(psl_dcopy(&d->d_col, A->sell_col, total, sizeof(int32_t), s, "SELL columns"));
        PSL_TRY(psl_dcopy(&d->d_val, A->sell_val, total, psl_scalar_size(A->value_type), s,
                          "SELL values"));
    }
    psl_dmatrix_set_sliced(d, A);
    PSL_TRY(psl_dmatrix_setup_wide(d, A->slice_ptr, 0, s));
    return psl_dmatrix_setup_tiny(d, A->slice_ptr, s);
}

/* Host staging copies of the narrowed or widened indices are freed here
 * after the stream has drained. */
psl_status psl_cuda_csr_arrays_upload(psl_dmatrix *d, const psl_matrix *A, cudaStream_t s)
{
    if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0)
        return PSL_OK;
    psl_status st = PSL_OK;
    void *stage = NULL;
    const int64_t n = A->nrows, nnz = A->nnz;
    d->csr_index64 = nnz > INT32_MAX;
    if (!d->csr_index64) {
        PSL_TRY(psl_alloc(&stage, (size_t)n + 1, sizeof(int32_t), "device CSR staging"));
        int32_t *rp = (int32_t *)stage;
        for (int64_t i = 0; i <= n; i++)
            rp[i] = (int32_t)A->row_ptr[i];
        st = psl_dcopy(&d->d_row_ptr, rp, n + 1, sizeof(int32_t), s, "CSR row pointers");
        if (st == PSL_OK)
            st = psl_dcopy(&d->d_csr_col, A->col_idx, nnz, sizeof(int32_t), s, "CSR columns");
    } else {
        PSL_TRY(psl_alloc(&stage, (size_t)nnz, sizeof(int64_t), "device CSR staging"));
        int64_t *ci = (int64_t *)stage;
#pragma omp parallel for schedule(static)
        for (int64_t k = 0; k < nnz; k++)
            ci[k] = A->col_idx[k];
        st = psl_dcopy(&d->d_row_ptr, A->row_ptr, n + 1, sizeof(int64_t), s, "CSR row pointers");
        if (st == PSL_OK)
            st = psl_dcopy(&d->d_csr_col, ci, nnz, sizeof(int64_t), s, "CSR columns");
    }
    if (st == PSL_OK)
        st = psl_dcopy(&d->d_csr_val, A->values, nnz, psl_scalar_size(A->value_type), s,
                       "CSR values");
    /* the staging buffer must outlive the asynchronous copies */
    psl_status sy = PSL_CUDA_OK(cudaStreamSynchronize(s));
    psl_free(stage);
    PSL_TRY(st);
    return sy;
}

/* The CSR arrays with one index width for cuSPARSE (psl_cuda_csr_arrays_upload)
 * and its handle. Empty matrices upload nothing: the dispatcher never calls
 * cuSPARSE for them. */
extern "C" psl_status psl_cuda_csr_upload(psl_dmatrix *d, const psl_matrix *A, cudaStream_t s)
{
    if (A->value_type != PSL_FP64 && A->value_type != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE, "CSR matrix with value type %d cannot be uploaded",
                         (int)A->value_type);
    if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0)
        return PSL_OK;
    PSL_TRY(psl_cuda_csr_arrays_upload(d, A, s));
    return psl_cuda_csr_setup(d);
}

#if defined(PSL_CUDA_ARCH_MIN) && PSL_CUDA_ARCH_MIN >= 90
/* An empty kernel with the long-row blocks' shape, for the occupancy query. */
__global__ void psl_cluster_probe_kernel() {}

/* The largest cluster (at most PSL_WIDE_CLUSTER_MAX blocks) of blocks
 * shaped like the long-row blocks that the current device can run: 8 is
 * portable, 16 needs the non-portable attribute and a device with it. */
static int psl_cuda_max_cluster(void)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(PSL_WIDE_CLUSTER_MAX);
    cfg.blockDim = dim3(PSL_CUDA_BLOCK);
    cfg.dynamicSmemBytes = (size_t)(PSL_WIDE_WARPS + PSL_WIDE_CLUSTER_MAX) * PSL_WIDE_C * 8;
    int n = 0;
    if (cudaFuncSetAttribute(psl_cluster_probe_kernel,
                             cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess ||
        cudaOccupancyMaxPotentialClusterSize(&n, psl_cluster_probe_kernel, &cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        return 8;
    }
    return n < PSL_WIDE_CLUSTER_MAX ? n : PSL_WIDE_CLUSTER_MAX;
}
#endif

int psl_cuda_cluster_blocks(int dev, int want)
{
    int cl = 1;
#if defined(PSL_CUDA_ARCH_MIN) && PSL_CUDA_ARCH_MIN >= 90
    int clusters = 0;
    if (cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev) != cudaSuccess) {
        (void)cudaGetLastError();
        return 1;
    }
    if (clusters) {
        const int most = psl_cuda_max_cluster();
        while (cl * 2 <= want && cl * 2 <= most)
            cl *= 2;
    }
#else
    (void)dev;
    (void)want;
#endif
    return cl;
}

psl_status psl_dmatrix_new(psl_dmatrix **out, const psl_matrix *A)
{
    int dev = 0, sms = 0, threads = 0;
    *out = NULL;
    int stream_na, word_prefetch, tiny_uniform, wide_cluster; /* options.h */
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_STREAM_NA, &stream_na));
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_WORD_PREFETCH, &word_prefetch));
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_TINY_UNIFORM, &tiny_uniform));
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_WIDE_CLUSTER, &wide_cluster));
    PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&dev)));
    PSL_TRY(PSL_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)));
    PSL_TRY(PSL_CUDA_OK(
        cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev)));
    int l2 = 0;
    PSL_TRY(PSL_CUDA_OK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev)));
    psl_dmatrix *d = NULL;
    PSL_TRY(psl_alloc((void **)&d, 1, sizeof *d, "device matrix"));
    memset(d, 0, sizeof *d);
    d->magic = PSL_DMATRIX_MAGIC;
    d->device = dev;
    {
        int per_sm = threads / PSL_CUDA_BLOCK;
        int64_t g = (int64_t)(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
        d->grid_max = (int)(g < INT32_MAX ? g : INT32_MAX);
        d->small_rows_max = PSL_LAT ? (int64_t)(sms > 0 ? sms : 1) * PSL_SMALL_ROWS_PER_SM : 0;
    }
    d->l2_bytes = l2;
    d->stream_na = stream_na;
    d->word_prefetch = word_prefetch;
    d->tiny_uniform = tiny_uniform;
    d->wide_cl_max = psl_cuda_cluster_blocks(dev, wide_cluster);
    d->max_width = INT64_MAX; /* unknown until psl_dmatrix_setup_wide: no short-row kernel */
    d->format = A->format;
    d->value_type = A->value_type;
    d->nrows = A->nrows;
    d->ncols = A->ncols;
    d->nnz = A->nnz;
    d->codec = A->codec;
    psl_status st = psl_matrix_get_info(A, &d->info);
    if (st != PSL_OK) {
        psl_dmatrix_free(d);
        return st;
    }
    *out = d;
    return PSL_OK;
}

psl_status psl_cuda_check_ptr(int device, const void *p, const char *context, const char *name)
{
    cudaPointerAttributes at;
    cudaError_t err = cudaPointerGetAttributes(&at, p);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: %s (%p) is not a CUDA pointer: %s", context,
                         name, p, cudaGetErrorString(err));
    }
    if (at.type == cudaMemoryTypeUnregistered)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: %s (%p) is host memory, not device memory (cudaMalloc)", context,
                         name, p);
    if (at.type == cudaMemoryTypeDevice && at.device != device)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: %s lives on device %d but the matrix on device %d",
                         context, name, at.device, device);
    return PSL_OK;
}

extern "C" psl_status psl_dmatrix_upload(psl_dmatrix **dA, const psl_matrix *A, void *stream)
{
    if (!dA)
        return psl_error(PSL_ERR_NULL_POINTER, "device matrix output pointer dA is NULL");
    *dA = NULL;
    PSL_TRY(psl_matrix_check(A));
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    if (!ops || !ops->cuda_upload)
        return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dmatrix_upload: %s matrices have no device form",
                         ops ? ops->name : "unknown-format");
    cudaStream_t s = (cudaStream_t)stream;
    psl_status st = PSL_OK;
    psl_dmatrix *d = NULL;
    PSL_TRY(psl_dmatrix_new(&d, A));
    st = ops->cuda_upload(d, A, s);
    if (st != PSL_OK)
        goto fail;
    /* the caller may free its host arrays as soon as this returns */
    PSL_CUDA_GO(cudaStreamSynchronize(s));
    *dA = d;
    return PSL_OK;
fail:
    (void)cudaStreamSynchronize(s); /* no copy may still read the host arrays */
    psl_dmatrix_free(d);
    return st;
}

extern "C" void psl_dmatrix_destroy(psl_dmatrix **dA)
{
    if (!dA || !*dA)
        return;
    psl_dmatrix *d = *dA;
    if (d->magic == PSL_DMATRIX_MAGIC) {
        int cur = -1;
        bool switched = cudaGetDevice(&cur) == cudaSuccess && cur != d->device &&
                        cudaSetDevice(d->device) == cudaSuccess;
        (void)cudaDeviceSynchronize(); /* no kernel may still read the arrays */
        psl_dmatrix_free(d);
        if (switched)
            (void)cudaSetDevice(cur);
        (void)cudaGetLastError();
    }
    *dA = NULL;
}

extern "C" psl_status psl_dmatrix_get_info(const psl_dmatrix *dA, psl_matrix_info *info)
{
    if (!dA)
        return psl_error(PSL_ERR_NULL_POINTER, "device matrix handle is NULL");
    if (dA->magic != PSL_DMATRIX_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE,
                         "device matrix handle is invalid (destroyed or never uploaded)");
    if (!info)
        return psl_error(PSL_ERR_NULL_POINTER, "info is NULL");
    *info = dA->info;
    return PSL_OK;
}
