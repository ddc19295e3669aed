/*
 * convert_sort.cu -- the row order and slicing of the device conversion:
 * sigma-sorting (inside each block of sigma rows, rows by descending length,
 * ties in their original order: the order of psl_sigma_order) by one stable
 * CUB radix sort of the keys (block << 32 | ~length), the perm array, and
 * the slice offsets (widest stored row of every slice times C, then a CUB
 * prefix sum).
 */
#include "convert.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

/* Sort key of row i: its sigma block in the upper bits, then the bitwise
 * complement of its length (lengths < 2^32: at most ncols entries and as many
 * dummy words), so ascending keys are blocks in order, rows longest first;
 * the radix sort is stable, so equal lengths keep the row order. */
__global__ void psl_k_sort_keys(psl_dconv c, const int64_t *len, uint64_t *keys, int32_t *rows)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < c.nrows;
         i += (int64_t)gridDim.x * blockDim.x) {
        keys[i] = ((uint64_t)(i / c.sigma) << 32) | (uint32_t)(0xffffffffu - (uint32_t)len[i]);
        rows[i] = (int32_t)i;
    }
}

psl_status psl_conv_order(const psl_dconv *c, const int64_t *len, int32_t *order)
{
    const int64_t n = c->nrows;
    if (n == 0)
        return PSL_OK;
    const int64_t nblocks = (n + c->sigma - 1) / c->sigma;
    int end_bit = 32;
    while (end_bit < 64 && ((int64_t)1 << (end_bit - 32)) < nblocks)
        end_bit++;
    psl_status st = PSL_OK;
    uint64_t *keys = NULL;
    int32_t *rows = NULL;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    PSL_CUDA_GO(cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, (const uint64_t *)NULL,
                                                (uint64_t *)NULL, (const int32_t *)NULL,
                                                (int32_t *)NULL, (int)n, 0, end_bit, c->s));
    /* one allocation: keys in, keys out, rows in, CUB's scratch */
    {
        const size_t kb = ((size_t)n * 8 + 255) & ~(size_t)255;
        const size_t rb = ((size_t)n * 4 + 255) & ~(size_t)255;
        char *base = NULL;
        PSL_CUDA_GO(cudaMallocAsync((void **)&base, 2 * kb + rb + tmp_bytes, c->s));
        keys = (uint64_t *)base;
        rows = (int32_t *)(base + 2 * kb);
        tmp = base + 2 * kb + rb;
        psl_k_sort_keys<<<psl_conv_grid(n), PSL_CUDA_BLOCK, 0, c->s>>>(*c, len, keys, rows);
        if ((st = psl_cuda_launch_status("sort keys (conversion)")) == PSL_OK)
            st = PSL_CUDA_OK(cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, keys,
                                                             (uint64_t *)(base + kb), rows, order,
                                                             (int)n, 0, end_bit, c->s));
        psl_status fr = PSL_CUDA_OK(cudaFreeAsync(base, c->s));
        if (st == PSL_OK)
            st = fr;
    }
fail:
    return st;
}

template <typename P>
__global__ void psl_k_perm(psl_dconv c, const int32_t *order, P *perm)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < c.nrows;
         i += (int64_t)gridDim.x * blockDim.x)
        perm[i] = (P)(order[i] - (i / c.sigma) * c.sigma);
}

psl_status psl_conv_perm(const psl_dconv *c, const int32_t *order, void *perm, int pb)
{
    if (c->nrows == 0)
        return PSL_OK;
    const unsigned g = psl_conv_grid(c->nrows);
    if (pb == 1)
        psl_k_perm<<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, (uint8_t *)perm);
    else if (pb == 2)
        psl_k_perm<<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, (uint16_t *)perm);
    else
        psl_k_perm<<<g, PSL_CUDA_BLOCK, 0, c->s>>>(*c, order, (uint32_t *)perm);
    return psl_cuda_launch_status("perm (conversion)");
}

/* Thread per slice: width (longest stored row) times C into sizes[k]. */
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_k_slice_sizes(psl_dconv c, const int64_t *len, const int32_t *order, int64_t *sizes,
                      unsigned long long *max_width)
{
    typedef cub::BlockReduce<unsigned long long, PSL_CUDA_BLOCK> reduce;
    __shared__ reduce::TempStorage tmp;
    unsigned long long mw = 0;
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < c.nslices;
         k += (int64_t)gridDim.x * blockDim.x) {
        const int64_t lo = k * c.C, hi = lo + c.C < c.nrows ? lo + c.C : c.nrows;
        int64_t w = 0;
        for (int64_t i = lo; i < hi; i++)
            w = max(w, len[order ? order[i] : i]);
        sizes[k] = w * c.C; /* w < 2^33, C < 2^31 */
        mw = max(mw, (unsigned long long)w);
    }
    unsigned long long b = reduce(tmp).Reduce(mw, psl_op_max());
    if (threadIdx.x == 0 && max_width && b)
        atomicMax(max_width, b);
}

psl_status psl_conv_slices(const psl_dconv *c, const int64_t *len, const int32_t *order,
                           int64_t *slice_ptr, unsigned long long *max_width)
{
    psl_status st = PSL_OK;
    const int64_t ns = c->nslices;
    int64_t *sizes = NULL;
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    PSL_TRY(PSL_CUDA_OK(cudaMemsetAsync(slice_ptr, 0, sizeof(int64_t), c->s)));
    if (ns == 0)
        return PSL_OK;
    PSL_CUDA_GO(cub::DeviceScan::InclusiveSum(NULL, tmp_bytes, (const int64_t *)NULL,
                                              (int64_t *)NULL, (int)ns, c->s));
    {
        const size_t sb = ((size_t)ns * 8 + 255) & ~(size_t)255;
        char *base = NULL;
        PSL_CUDA_GO(cudaMallocAsync((void **)&base, sb + tmp_bytes, c->s));
        sizes = (int64_t *)base;
        tmp = base + sb;
        psl_k_slice_sizes<<<psl_conv_grid(ns), PSL_CUDA_BLOCK, 0, c->s>>>(*c, len, order, sizes,
                                                                          max_width);
        if ((st = psl_cuda_launch_status("slice widths (conversion)")) == PSL_OK)
            st = PSL_CUDA_OK(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, sizes, slice_ptr + 1,
                                                           (int)ns, c->s));
        psl_status fr = PSL_CUDA_OK(cudaFreeAsync(base, c->s));
        if (st == PSL_OK)
            st = fr;
    }
fail:
    return st;
}
