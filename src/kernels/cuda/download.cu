/*
 * download.cu -- psl_dmatrix_download (extern "C"): a device matrix back
 * into a new host matrix with the same format, arrays and statistics (the
 * inverse of psl_dmatrix_upload; CSR row offsets and columns are widened or
 * narrowed back from cuSPARSE's index width). Synchronous.
 */
#include "dmatrix.cuh"
#include "format/csr/csr.h"
#include "format/format_ops.h"
#include "format/sliced/sliced.h"

#include <string.h>

/* *dst = a new host array with n elements of size bytes copied from src
 * (n == 0: a 1-byte allocation, as the CPU builders make). */
static psl_status psl_dfetch(void **dst, const void *src, int64_t n, size_t size,
                             cudaStream_t s, const char *what)
{
    PSL_TRY(psl_alloc(dst, (size_t)(n > 0 ? n : 0), size, what));
    if (n > 0 && src)
        PSL_TRY(PSL_CUDA_OK(
            cudaMemcpyAsync(*dst, src, (size_t)n * size, cudaMemcpyDeviceToHost, s)));
    return PSL_OK;
}

/* The CSR arrays (from cuSPARSE's index width back to int64 / int32); a
 * matrix uploaded without arrays (no rows, columns or entries) has all-zero
 * row offsets. */
extern "C" psl_status psl_cuda_csr_download(psl_matrix *A, const psl_dmatrix *d, cudaStream_t s)
{
    const int64_t n = A->nrows, nnz = A->nnz;
    void *rp = NULL, *ci = NULL;
    psl_status st = PSL_OK;
    PSL_TRY(psl_alloc((void **)&A->row_ptr, (size_t)n + 1, sizeof(int64_t), "row pointers"));
    PSL_TRY(psl_alloc((void **)&A->col_idx, (size_t)nnz, sizeof(int32_t), "column indices"));
    PSL_TRY(psl_dfetch(&A->values, d->d_csr_val, nnz, psl_scalar_size(A->value_type), s,
                       "values"));
    if (!d->d_row_ptr) {
        memset(A->row_ptr, 0, ((size_t)n + 1) * sizeof(int64_t));
        return PSL_CUDA_OK(cudaStreamSynchronize(s));
    }
    const size_t iw = d->csr_index64 ? 8 : 4;
    if ((st = psl_dfetch(&rp, d->d_row_ptr, n + 1, iw, s, "row pointer staging")) != PSL_OK ||
        (st = psl_dfetch(&ci, d->d_csr_col, nnz, iw, s, "column staging")) != PSL_OK ||
        (st = PSL_CUDA_OK(cudaStreamSynchronize(s))) != PSL_OK)
        goto done;
    for (int64_t i = 0; i <= n; i++)
        A->row_ptr[i] = d->csr_index64 ? ((const int64_t *)rp)[i] : ((const int32_t *)rp)[i];
#pragma omp parallel for schedule(static) if (nnz > 65536)
    for (int64_t k = 0; k < nnz; k++)
        A->col_idx[k] = d->csr_index64 ? (int32_t)((const int64_t *)ci)[k] : ((const int32_t *)ci)[k];
done:
    (void)cudaStreamSynchronize(s);
    psl_free(rp);
    psl_free(ci);
    return st;
}

/* The sliced arrays (SELL, PackSELL) and the fields only they have. */
extern "C" psl_status psl_cuda_sliced_download(psl_matrix *A, const psl_dmatrix *d, cudaStream_t s)
{
    const int64_t total = A->stored;
    A->perm_bytes = A->sigma > 0 ? psl_perm_bytes_for_sigma(A->sigma) : 0;
    A->sell_equiv_bytes = d->info.sell_bytes;
    A->csr_equiv_bytes = d->info.csr_bytes;
    PSL_TRY(psl_dfetch((void **)&A->slice_ptr, d->d_slice_ptr, (int64_t)A->nslices + 1,
                       sizeof(int64_t), s, "slice offsets"));
    if (A->sigma > 0)
        PSL_TRY(psl_dfetch(&A->perm, d->d_perm, A->nrows, (size_t)A->perm_bytes, s,
                           "the sigma permutation"));
    if (A->format == PSL_FORMAT_PACKSELL) {
        PSL_TRY(psl_dfetch((void **)&A->words, d->d_words, total, sizeof(uint32_t), s,
                           "PackSELL words"));
    } else {
        PSL_TRY(psl_dfetch((void **)&A->sell_col, d->d_col, total, sizeof(int32_t), s,
                           "SELL column indices"));
        PSL_TRY(psl_dfetch(&A->sell_val, d->d_val, total, psl_scalar_size(A->value_type), s,
                           "SELL values"));
    }
    return PSL_CUDA_OK(cudaStreamSynchronize(s));
}

extern "C" psl_status psl_dmatrix_download(psl_matrix **out, const psl_dmatrix *d, void *stream)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "host matrix output pointer is NULL");
    *out = NULL;
    if (!d)
        return psl_error(PSL_ERR_NULL_POINTER, "device matrix handle is NULL");
    if (d->magic != PSL_DMATRIX_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE,
                         "device matrix handle is invalid (destroyed or never uploaded)");
    const psl_matrix_info *in = &d->info;
    cudaStream_t s = (cudaStream_t)stream;
    psl_status st = PSL_OK;
    int cur = -1;
    PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&cur)));
    if (cur != d->device)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "download: the matrix lives on device %d but the current device is %d "
                         "(cudaSetDevice)",
                         d->device, cur);
    const psl_format_ops *ops = psl_format_ops_of(d->format);
    if (!ops || !ops->cuda_download)
        return psl_error(PSL_ERR_INTERNAL, "download: device matrix of format %d", (int)d->format);
    psl_matrix *A = psl_matrix_new(d->format, d->nrows, d->ncols);
    if (!A)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
    /* the fields the builders set, from the statistics kept at upload */
    A->nnz = in->nnz;
    A->value_type = in->value_type;
    A->C = in->slice_height;
    A->sigma = in->sigma;
    A->permute = in->permute;
    A->nslices = in->nslices;
    A->codec = in->codec;
    A->delta_bits = in->delta_bits;
    A->kleft = in->kleft;
    A->stored = in->stored;
    A->padding = in->padding;
    A->dummies = in->dummies;
    A->underflows = in->underflows;
    A->max_row_nnz = in->max_row_nnz;
    A->rsd = in->rsd;
    st = ops->cuda_download(A, d, s);
    if (st != PSL_OK) {
        (void)cudaStreamSynchronize(s); /* no copy may still write the host arrays */
        psl_matrix_destroy(&A);
        return st;
    }
    *out = A;
    return PSL_OK;
}
