/*
 * wide.cu -- psl_dmatrix_setup_wide: the tables of the long-row split
 * (long_rows.h) of a sliced device matrix, built once at upload or device
 * conversion. The block list and the list of slices wider than one block
 * come from the slice offsets on the host; PackSELL's checkpoints (the
 * doubled column at the start of every segment of every row) are computed
 * on the device in two passes: the delta sum of each segment, then a walk
 * over each row's segments in order.
 */
#include "wide.cuh"

#include "format/word.h"

/* Pass 1: seg_start_col2[slot][lane] = sum of the doubled deltas of the segment's
 * words (flag 1: w & dmask2; flag 0: w & ~1), as the SpMV kernel adds them. */
__global__ void psl_wide_segsum_kernel(psl_dsliced m, uint32_t *seg_start_col2, int64_t nthreads)
{
    const uint32_t dmask2 = ((1u << m.delta_bits) - 1u) << 1;
    const uint32_t seg = (uint32_t)m.seg_width;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < nthreads;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t slot = t / PSL_WIDE_C;
        const uint32_t lane = (uint32_t)(t % PSL_WIDE_C);
        const int2 wb = m.wide_blocks[slot / PSL_WIDE_WARPS];
        int64_t s0;
        const uint32_t width = psl_wide_width(m, wb.x, &s0);
        const uint32_t j0 = ((uint32_t)wb.y + (uint32_t)(slot % PSL_WIDE_WARPS)) * seg;
        const uint32_t j1 = j0 + seg < width ? j0 + seg : width;
        uint32_t d = 0;
        for (uint32_t j = j0; j < j1; j++) {
            const uint32_t w = m.words[s0 + (int64_t)j * PSL_WIDE_C + lane];
            d += w & ((w & PSL_WORD_FLAG) ? dmask2 : 0xfffffffeu);
        }
        seg_start_col2[t] = d;
    }
}

/* Pass 2: one thread per row of a wide slice (started from the slice's
 * first block) walks its segments in order, replacing each segment's sum by
 * the running doubled column at its start (the row's sigma-block start
 * column first, as the SpMV kernel begins). */
__global__ void psl_wide_ckpt_kernel(psl_dsliced m, uint32_t *seg_start_col2)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (int64_t)m.n_wide_blocks * PSL_WIDE_C)
        return;
    const int64_t blk = t / PSL_WIDE_C;
    const uint32_t lane = (uint32_t)(t % PSL_WIDE_C);
    const int2 wb = m.wide_blocks[blk];
    if (wb.y != 0)
        return;
    int64_t s0;
    const uint32_t nb = psl_wide_blocks(psl_wide_width(m, wb.x, &s0), (uint32_t)m.seg_width);
    const int64_t i = (int64_t)wb.x * PSL_WIDE_C + lane;
    const int64_t b0 = (i / m.dblock) * m.dblock;
    uint32_t c2 = 2u * (uint32_t)psl_block_start_col(b0, m.kleft, m.ncols);
    for (int64_t slot = blk * PSL_WIDE_WARPS; slot < (blk + nb) * PSL_WIDE_WARPS; slot++) {
        const uint32_t d = seg_start_col2[slot * PSL_WIDE_C + lane];
        seg_start_col2[slot * PSL_WIDE_C + lane] = c2;
        c2 += d;
    }
}

/* The host lists: out_blocks (every long-row block, as many per wide slice
 * as its width needs: psl_dsliced.wide_blocks) and out_finish (slices wider
 * than one block, finished by the second kernel: none with clusters of
 * cl > 1 blocks, where a slice's blocks never straddle two clusters -- the
 * previous slice's list is padded with blocks past its end, which have no
 * positions). With NULL arrays only counts. */
static void psl_wide_lists(const int64_t *sp, int32_t nslices, int32_t wide_min_width, int32_t seg,
                           int32_t cl, int2 *out_blocks, int2 *out_finish, int64_t *n_blocks,
                           int64_t *n_finish)
{
    int64_t nb = 0, ns = 0;
    int32_t prev = -1; /* the previous wide slice, and its blocks */
    int64_t prev_blocks = 0;
    auto pad_to_cluster = [&]() { /* blocks past prev's end up to a cluster boundary */
        for (; nb % cl != 0; nb++, prev_blocks++)
            if (out_blocks)
                out_blocks[nb] = make_int2(prev, (int)(prev_blocks * PSL_WIDE_WARPS));
    };
    for (int32_t k = 0; k < nslices; k++) {
        const int64_t width = (sp[k + 1] - sp[k]) / PSL_WIDE_C;
        if (width < wide_min_width)
            continue;
        const int64_t blocks = psl_wide_blocks((uint32_t)width, (uint32_t)seg);
        if (cl == 1 && blocks > 1) {
            if (out_finish)
                out_finish[ns] = make_int2(k, (int)nb);
            ns++;
        }
        if (cl > 1 && nb % cl + blocks > cl) /* k would straddle two clusters */
            pad_to_cluster();
        if (out_blocks)
            for (int64_t b = 0; b < blocks; b++)
                out_blocks[nb + b] = make_int2(k, (int)(b * PSL_WIDE_WARPS));
        nb += blocks;
        prev = k;
        prev_blocks = blocks;
    }
    if (cl > 1) /* whole clusters */
        pad_to_cluster();
    *n_blocks = nb;
    *n_finish = ns;
}

psl_status psl_dmatrix_setup_wide(psl_dmatrix *d, const int64_t *h_sp, int64_t max_width,
                                  cudaStream_t s)
{
    const int32_t nslices = d->info.nslices;
    int32_t wide_min_width = 0, seg = 0, cl = 1;
    if (d->s.C != PSL_WIDE_C || nslices <= 0 || d->nrows <= 0)
        return PSL_OK;
    if (h_sp) /* the widest slice from the host offsets */
        for (int32_t k = 0; k < nslices; k++)
            if ((h_sp[k + 1] - h_sp[k]) / PSL_WIDE_C > max_width)
                max_width = (h_sp[k + 1] - h_sp[k]) / PSL_WIDE_C;
    d->max_width = max_width; /* the kernels' short-row path */
    /* the short-row kernels of small matrices take rows up to PSL_SHORT_SMALL_MAX whole */
    const int64_t short_max =
        PSL_SHORT_KERNEL && d->nrows <= d->small_rows_max ? PSL_SHORT_SMALL_MAX : 0;
    psl_wide_rule(d->nrows, max_width, d->wide_cl_max, short_max, &wide_min_width, &seg, &cl);
    if (max_width < wide_min_width)
        return PSL_OK;
    psl_status st = PSL_OK;
    int64_t *own = NULL;
    int2 *h_finish = NULL, *h_blocks = NULL;
    int64_t ns = 0, nb = 0;
    if (!h_sp) {
        PSL_TRY(psl_alloc((void **)&own, (size_t)nslices + 1, sizeof *own, "slice offsets"));
        PSL_CUDA_GO(cudaMemcpyAsync(own, d->d_slice_ptr, ((size_t)nslices + 1) * sizeof *own,
                                    cudaMemcpyDeviceToHost, s));
        PSL_CUDA_GO(cudaStreamSynchronize(s));
        h_sp = own;
    }
    psl_wide_lists(h_sp, nslices, wide_min_width, seg, cl, NULL, NULL, &nb, &ns);
    if (nb == 0)
        goto fail; /* nothing wide: st is PSL_OK */
    /* block indices are int32 and the launch adds them to the row blocks;
     * checkpoint indices (block * 8 warps * 32 lanes) are uint32 */
    if (nb > INT32_MAX / 2 || nb * PSL_WIDE_WARPS * PSL_WIDE_C > (int64_t)UINT32_MAX) {
        st = psl_error(PSL_ERR_SIZE_OVERFLOW, "long rows: %lld blocks of %d positions exceed int32",
                       (long long)nb, seg * PSL_WIDE_WARPS);
        goto fail;
    }
    if ((st = psl_alloc((void **)&h_blocks, (size_t)nb, sizeof *h_blocks, "long-row blocks")) !=
            PSL_OK ||
        (st = psl_alloc((void **)&h_finish, (size_t)ns + 1, sizeof *h_finish,
                        "long-row slices")) != PSL_OK)
        goto fail;
    psl_wide_lists(h_sp, nslices, wide_min_width, seg, cl, h_blocks, h_finish, &nb, &ns);
    if ((st = psl_dcopy(&d->d_wide_blocks, h_blocks, nb, sizeof *h_blocks, s,
                        "long-row blocks")) != PSL_OK ||
        (st = psl_dcopy(&d->d_finish_slices, h_finish, ns, sizeof *h_finish, s,
                        "long-row slices")) != PSL_OK)
        goto fail;
    d->n_finish_slices = (int32_t)ns;
    d->s.seg_width = seg;
    d->s.wide_cluster = cl;
    d->s.n_wide_blocks = (int32_t)nb;
    d->s.wide_blocks = (const int2 *)d->d_wide_blocks;
    if (d->format == PSL_FORMAT_PACKSELL) {
        const int64_t n = nb * PSL_WIDE_WARPS * PSL_WIDE_C;
        PSL_CUDA_GO(cudaMalloc(&d->d_seg_start_col2, (size_t)n * sizeof(uint32_t)));
        int64_t g = (n + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
        psl_wide_segsum_kernel<<<(unsigned)(g < 65536 ? g : 65536), PSL_CUDA_BLOCK, 0, s>>>(
            d->s, (uint32_t *)d->d_seg_start_col2, n);
        if ((st = psl_cuda_launch_status("long-row segment sums")) != PSL_OK)
            goto fail;
        g = (nb * PSL_WIDE_C + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
        psl_wide_ckpt_kernel<<<(unsigned)g, PSL_CUDA_BLOCK, 0, s>>>(
            d->s, (uint32_t *)d->d_seg_start_col2);
        if ((st = psl_cuda_launch_status("long-row checkpoints")) != PSL_OK)
            goto fail;
        d->s.seg_start_col2 = (const uint32_t *)d->d_seg_start_col2;
    }
    d->s.wide_min_width = (uint32_t)wide_min_width;
fail:
    {
        /* the host lists must outlive their asynchronous copies */
        psl_status sy = PSL_CUDA_OK(cudaStreamSynchronize(s));
        if (st == PSL_OK)
            st = sy;
    }
    if (st != PSL_OK) { /* leave the matrix without the split; the caller frees it */
        d->s.wide_min_width = UINT32_MAX;
        d->s.n_wide_blocks = 0;
        d->s.wide_cluster = 1;
        d->n_finish_slices = 0;
    }
    psl_free(own);
    psl_free(h_finish);
    psl_free(h_blocks);
    return st;
}
