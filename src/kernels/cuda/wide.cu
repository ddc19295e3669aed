/*
 * wide.cu -- psl_dmatrix_setup_wide: the tables of the long-row split
 * (long_rows.h) of a sliced device matrix, built once at upload or device
 * conversion. The block and slice lists come from the slice offsets on the
 * host; PackSELL's checkpoints (the doubled column at the start of every
 * segment of every row) are computed on the device by two passes: the delta
 * sum of each segment, then a walk over each row's segments in order.
 */
#include "wide.cuh"

#include "format/word.h"

#include <stdlib.h>

/* Pass 1: ckpt[slot][lane] = sum of the doubled deltas of the segment's
 * words (flag 1: w & dmask2; flag 0: w & ~1), as the SpMV kernel adds them. */
__global__ void psl_wide_segsum_kernel(psl_dsliced m, uint32_t *ckpt, int64_t nthreads)
{
    const uint32_t dmask2 = ((1u << m.D) - 1u) << 1;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < nthreads;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t slot = t / PSL_WIDE_C;
        const uint32_t lane = (uint32_t)(t % PSL_WIDE_C);
        const int2 wb = m.wblk[slot / PSL_WIDE_WARPS];
        const int64_t s0 = m.slice_ptr[wb.x], s1 = m.slice_ptr[wb.x + 1];
        const int64_t width = (s1 - s0) / PSL_WIDE_C;
        const int64_t j0 = ((int64_t)wb.y + slot % PSL_WIDE_WARPS) * PSL_WIDE_SEG;
        const int64_t j1 = j0 + PSL_WIDE_SEG < width ? j0 + PSL_WIDE_SEG : width;
        uint32_t d = 0;
        for (int64_t j = j0; j < j1; j++) {
            const uint32_t w = m.words[s0 + j * PSL_WIDE_C + lane];
            d += w & ((w & PSL_WORD_FLAG) ? dmask2 : 0xfffffffeu);
        }
        ckpt[t] = d;
    }
}

/* Pass 2: one thread per row of a wide slice walks its segments in order,
 * replacing each segment's sum by the running doubled column at its start
 * (the row's sigma-block start column first, as the SpMV kernel begins). */
__global__ void psl_wide_ckpt_kernel(psl_dsliced m, const int2 *wsl, int32_t n_wslice,
                                     uint32_t *ckpt)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (int64_t)n_wslice * PSL_WIDE_C)
        return;
    const int64_t ws = t / PSL_WIDE_C;
    const uint32_t lane = (uint32_t)(t % PSL_WIDE_C);
    const int64_t i = (int64_t)wsl[ws].x * PSL_WIDE_C + lane;
    const int64_t b0 = (i / m.dblock) * m.dblock;
    uint32_t c2 = 2u * (uint32_t)psl_block_start_col(b0, m.kleft, m.ncols);
    const int64_t first = (int64_t)wsl[ws].y * PSL_WIDE_WARPS;
    const int64_t last = (int64_t)wsl[ws + 1].y * PSL_WIDE_WARPS;
    for (int64_t slot = first; slot < last; slot++) {
        const uint32_t d = ckpt[slot * PSL_WIDE_C + lane];
        ckpt[slot * PSL_WIDE_C + lane] = c2;
        c2 += d;
    }
}

/* The host lists: wsl (n_wslice + 1 entries) and wblk (n_wblk). First call
 * with NULL arrays counts; the second fills. */
static void psl_wide_lists(const int64_t *sp, int32_t nslices, int2 *wsl, int2 *wblk,
                           int64_t *n_wslice, int64_t *n_wblk)
{
    int64_t ns = 0, nb = 0;
    for (int32_t k = 0; k < nslices; k++) {
        const int64_t width = (sp[k + 1] - sp[k]) / PSL_WIDE_C;
        if (width < PSL_WIDE_MIN)
            continue;
        const int64_t segs = (width + PSL_WIDE_SEG - 1) / PSL_WIDE_SEG;
        const int64_t blocks = (segs + PSL_WIDE_WARPS - 1) / PSL_WIDE_WARPS;
        if (wsl)
            wsl[ns] = make_int2(k, (int)nb);
        if (wblk)
            for (int64_t b = 0; b < blocks; b++)
                wblk[nb + b] = make_int2(k, (int)(b * PSL_WIDE_WARPS));
        ns++;
        nb += blocks;
    }
    if (wsl)
        wsl[ns] = make_int2(nslices, (int)nb);
    *n_wslice = ns;
    *n_wblk = nb;
}

psl_status psl_dmatrix_setup_wide(psl_dmatrix *d, const int64_t *h_sp, cudaStream_t s)
{
    const int32_t nslices = d->info.nslices;
    if (d->s.C != PSL_WIDE_C || nslices <= 0 || d->nrows <= 0)
        return PSL_OK;
    psl_status st = PSL_OK;
    int64_t *own = NULL;
    int2 *wsl = NULL, *wblk = NULL;
    int64_t ns = 0, nb = 0;
    if (!h_sp) {
        PSL_TRY(psl_alloc((void **)&own, (size_t)nslices + 1, sizeof *own, "slice offsets"));
        PSL_CUDA_GO(cudaMemcpyAsync(own, d->d_slice_ptr, ((size_t)nslices + 1) * sizeof *own,
                                    cudaMemcpyDeviceToHost, s));
        PSL_CUDA_GO(cudaStreamSynchronize(s));
        h_sp = own;
    }
    psl_wide_lists(h_sp, nslices, NULL, NULL, &ns, &nb);
    if (ns == 0)
        goto fail; /* nothing wide: st is PSL_OK */
    /* block indices are int32 and the launch adds them to the row blocks */
    if (nb > INT32_MAX / 2) {
        st = psl_error(PSL_ERR_SIZE_OVERFLOW, "long rows: %lld blocks of %d positions exceed int32",
                       (long long)nb, PSL_WIDE_SEG * PSL_WIDE_WARPS);
        goto fail;
    }
    if ((st = psl_alloc((void **)&wsl, (size_t)ns + 1, sizeof *wsl, "long-row slices")) != PSL_OK ||
        (st = psl_alloc((void **)&wblk, (size_t)nb, sizeof *wblk, "long-row blocks")) != PSL_OK)
        goto fail;
    psl_wide_lists(h_sp, nslices, wsl, wblk, &ns, &nb);
    if ((st = psl_dcopy(&d->d_wsl, wsl, ns + 1, sizeof *wsl, s, "long-row slices")) != PSL_OK ||
        (st = psl_dcopy(&d->d_wblk, wblk, nb, sizeof *wblk, s, "long-row blocks")) != PSL_OK)
        goto fail;
    d->n_wslice = (int32_t)ns;
    d->s.n_wblk = (int32_t)nb;
    d->s.wblk = (const int2 *)d->d_wblk;
    if (d->format == PSL_FORMAT_PACKSELL) {
        const int64_t n = nb * PSL_WIDE_WARPS * PSL_WIDE_C;
        PSL_CUDA_GO(cudaMalloc(&d->d_ckpt, (size_t)n * sizeof(uint32_t)));
        int64_t g = (n + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
        psl_wide_segsum_kernel<<<(unsigned)(g < 65536 ? g : 65536), PSL_CUDA_BLOCK, 0, s>>>(
            d->s, (uint32_t *)d->d_ckpt, n);
        if ((st = psl_cuda_launch_status("long-row segment sums")) != PSL_OK)
            goto fail;
        g = (ns * PSL_WIDE_C + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
        psl_wide_ckpt_kernel<<<(unsigned)g, PSL_CUDA_BLOCK, 0, s>>>(
            d->s, (const int2 *)d->d_wsl, (int32_t)ns, (uint32_t *)d->d_ckpt);
        if ((st = psl_cuda_launch_status("long-row checkpoints")) != PSL_OK)
            goto fail;
        d->s.ckpt = (const uint32_t *)d->d_ckpt;
    }
    d->s.wide_min = PSL_WIDE_MIN;
fail:
    {
        /* the host lists must outlive their asynchronous copies */
        psl_status sy = PSL_CUDA_OK(cudaStreamSynchronize(s));
        if (st == PSL_OK)
            st = sy;
    }
    if (st != PSL_OK) { /* leave the matrix without the split; the caller frees it */
        d->s.wide_min = UINT32_MAX;
        d->s.n_wblk = 0;
        d->n_wslice = 0;
    }
    psl_free(own);
    psl_free(wsl);
    psl_free(wblk);
    return st;
}
