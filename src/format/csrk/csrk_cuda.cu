/*
 * csrk_cuda.cu -- CSR-k's device form, the entries of its table of formats
 * (extern "C"): upload, download, workspace (none) and the SpMV entry (the
 * launcher of src/kernels/cuda/spmv_csrk.cu).
 *
 * The device keeps the CSR arrays as cuSPARSE takes them (32-bit row
 * offsets and columns when nnz < 2^31) and two groupings of the rows: its
 * own, made at upload for the GPU kernel with the host matrix's levels and
 * the sizes of the CUDA tuning model for d = nnz / rows (or the
 * PSL_CUDA_CSRK_SR_ROWS / _SSR_SRS options), and the host matrix's pointer
 * arrays as they are, so that download gives the matrix back unchanged
 * (and psl_dmatrix_get_info describes it). Both are int32 arrays of about
 * rows / sizes entries: together under 1% of the CSR arrays for the sizes
 * of the models. A locality reordering's perm and inverse go up with the
 * host's pointer arrays; its products gather x into a workspace in the
 * stored order and scatter the rows back (psl_csrk_cuda_entry).
 */
#include "format/csrk/csrk.h"
#include "format/csr/csr.h"
#include "kernels/cuda/dist_cuda.h"
#include "kernels/cuda/dmatrix.cuh"

#include <stdlib.h>
#include <string.h>

/* The block of the CUDA model's row f, checked (a saved fit may be wrong):
 * lanes 0 (the stream kernel: whole warps, at most
 * PSL_CSRK_STREAM_BLOCK_MAX threads) or a power of two up to 32 (at most
 * PSL_CSRK_BLOCK_MAX threads). */
static psl_status psl_csrk_block_of(const psl_csrk_fit *f, psl_dcsrk *m)
{
    const int64_t threads = (int64_t)(f->lanes > 1 ? f->lanes : 1) * f->block_rows * f->block_srs;
    if (f->lanes < 0 || f->lanes > 32 || (f->lanes & (f->lanes - 1)) || f->block_rows < 1 ||
        f->block_srs < 1 || threads > PSL_CSRK_BLOCK_MAX ||
        (f->lanes == 0 && (threads % 32 || threads > PSL_CSRK_STREAM_BLOCK_MAX)))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k CUDA model: block of %d lanes x %d rows x %d super-rows (for d "
                         "up to %g): expected lanes 0 (the stream kernel: whole warps, at most "
                         "%d threads) or 1, 2, 4, 8, 16 or 32 (at most %d threads)",
                         (int)f->lanes, (int)f->block_rows, (int)f->block_srs, f->d_max,
                         PSL_CSRK_STREAM_BLOCK_MAX, PSL_CSRK_BLOCK_MAX);
    m->lanes = f->lanes;
    m->block_rows = f->block_rows;
    m->block_srs = f->block_srs;
    return PSL_OK;
}

/* The device's grouping of A's rows into d->d_csrk_ptr and d->ck. */
static psl_status psl_csrk_device_grouping(psl_dmatrix *d, const psl_matrix *A, cudaStream_t s)
{
    const double mean = (double)A->nnz / A->nrows;
    psl_dcsrk *m = &d->ck;
    PSL_TRY(psl_csrk_block_of(psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, mean), m));
    int32_t k = psl_csrk_levels(A), sr = 0, ssr = 0;
    PSL_TRY(psl_csrk_device_sizes(k, A->nrows, A->nnz, &sr, &ssr));
    int32_t *p = NULL, nsr = 0, nssr = 0;
    PSL_TRY(psl_csrk_pointers(A->nrows, A->row_ptr, k, sr, ssr, &p, &nsr, &nssr, &k));
    psl_status st = psl_dcopy(&d->d_csrk_ptr, p, psl_csrk_ptr_count(k, nsr, nssr),
                              sizeof(int32_t), s, "CSR-k device pointers");
    psl_status sy = PSL_CUDA_OK(cudaStreamSynchronize(s)); /* p must outlive the copy */
    free(p);
    PSL_TRY(st);
    PSL_TRY(sy);
    const int32_t *dp = (const int32_t *)d->d_csrk_ptr;
    m->k = k;
    m->sr_ptr = k >= 2 ? dp : NULL;
    m->ssr_ptr = k == 3 ? dp + nsr + 1 : NULL;
    const int64_t per = (int64_t)m->block_rows * m->block_srs;
    m->nblocks = k == 3 ? nssr : k == 2 ? nsr : (int32_t)((A->nrows + per - 1) / per);
    return PSL_OK;
}

extern "C" psl_status psl_cuda_csrk_upload(psl_dmatrix *d, const psl_matrix *A, cudaStream_t s)
{
    if (A->value_type != PSL_FP64 && A->value_type != PSL_FP32 && A->value_type != PSL_FP16)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k matrix with value type %d cannot be uploaded (FP64, FP32 or "
                         "FP16)",
                         (int)A->value_type);
    PSL_TRY(psl_dcopy(&d->d_csrk_own, A->payload, psl_csrk_payload_count(A), sizeof(int32_t), s,
                      "CSR-k pointers and reordering"));
    memset(&d->ck, 0, sizeof d->ck);
    if (A->nrows == 0 || A->ncols == 0 || A->nnz == 0)
        return PSL_OK; /* psl_dspmv runs the scale kernel: no arrays read */
    if (psl_csrk_reordered(A))
        d->ck.perm = (const int32_t *)d->d_csrk_own + psl_csrk_ptr_count(A->C, A->nslices, A->sigma);
    PSL_TRY(psl_cuda_csr_arrays_upload(d, A, s));
    d->ck.row_ptr = d->d_row_ptr;
    d->ck.col = d->d_csr_col;
    d->ck.val = d->d_csr_val;
    d->ck.nrows = A->nrows;
    return psl_csrk_device_grouping(d, A, s);
}

/* The CSR arrays (psl_cuda_csr_download, from their index width back to
 * int64 / int32) and the host matrix's own pointer arrays and counts. */
extern "C" psl_status psl_cuda_csrk_download(psl_matrix *A, const psl_dmatrix *d,
                                             cudaStream_t s)
{
    const psl_matrix_info *in = &d->info;
    A->C = in->csrk_k;
    A->nslices = in->csrk_super_rows;
    A->sigma = in->csrk_super_super_rows;
    A->csr_equiv_bytes = in->csr_bytes;
    PSL_TRY(psl_cuda_csr_download(A, d, s));
    A->perm_bytes = in->csrk_perm_bytes > 0 ? 4 : 0; /* before the count: perm and inv */
    const int64_t cnt = psl_csrk_payload_count(A);
    if (cnt == 0)
        return PSL_OK;
    PSL_TRY(psl_alloc(&A->payload, (size_t)cnt, sizeof(int32_t), "CSR-k pointers"));
    PSL_TRY(PSL_CUDA_OK(cudaMemcpyAsync(A->payload, d->d_csrk_own, (size_t)cnt * sizeof(int32_t),
                                        cudaMemcpyDeviceToHost, s)));
    return PSL_CUDA_OK(cudaStreamSynchronize(s));
}

/* A reordered matrix's workspace: x and y in the stored order, each from a
 * 256-byte boundary. */
static size_t psl_csrk_half_bytes(const psl_dmatrix *d, psl_scalar vec_type)
{
    return ((size_t)d->ck.nrows * psl_scalar_size(vec_type) + 255) / 256 * 256;
}

extern "C" psl_status psl_cuda_csrk_workspace(const psl_dmatrix *d, psl_scalar vec_type,
                                              size_t *bytes)
{
    *bytes = d->ck.perm ? 2 * psl_csrk_half_bytes(d, vec_type) : 0;
    return PSL_OK;
}

/* Without a reordering the kernel on x and y. With one, as psl_spmv does
 * on the host: x (and y's rows when beta != 0) gathered into the workspace
 * in the stored order, the kernel there, its rows scattered back into y:
 * y[perm[i]] = alpha (P A P^T P x)_i + beta y[perm[i]], the kernel's
 * arithmetic, so the bits of the host's reordered product. */
extern "C" psl_status psl_csrk_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x,
                                          double beta, void *y, psl_scalar vec_type,
                                          void *workspace, struct CUstream_st *stream)
{
    const int32_t *perm = dA->ck.perm;
    if (!perm)
        return psl_cuda_csrk_spmv(dA, alpha, x, beta, y, vec_type, stream);
    const int32_t n = dA->ck.nrows;
    const int es = (int)psl_scalar_size(vec_type);
    void *xs = workspace, *ys = (char *)workspace + psl_csrk_half_bytes(dA, vec_type);
    PSL_TRY(psl_cuda_index_move(xs, x, perm, n, es, 0, stream));
    if (beta != 0)
        PSL_TRY(psl_cuda_index_move(ys, y, perm, n, es, 0, stream));
    PSL_TRY(psl_cuda_csrk_spmv(dA, alpha, xs, beta, ys, vec_type, stream));
    return psl_cuda_index_move(y, ys, perm, n, es, 1, stream);
}
