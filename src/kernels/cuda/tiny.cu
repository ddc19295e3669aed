/*
 * tiny.cu -- psl_dmatrix_setup_tiny: the uniform copy of a small matrix's
 * slices. A tiny matrix's SpMV is a chain of round trips to memory (slice
 * offsets, then the row's words or columns and values, then x, then the y
 * store) and takes a few microseconds whatever its size. With every slice
 * padded to the widest one's width, a row's first entry is arithmetic, and
 * the short-row kernels skip the slice offsets: one round trip fewer. The
 * padding is what the format pads with (PackSELL: word 0, flag 0 and delta
 * 0; SELL: column -1, value 0), so the sums and their bits are the same.
 * The copy costs at most small_rows_max x PSL_SHORT_SMALL_MAX entries (a
 * few MB) and is made only when the slices are not already of one width.
 */
#include "wide.cuh"

/* dst[e] for e < n: position j of lane `lane` of slice k in the uniform
 * layout (w positions a slice) from the stored slices, pad past a slice's
 * own width. */
template <class T>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK)
    psl_tiny_pad_kernel(const int64_t *__restrict__ sp, const T *__restrict__ src,
                        T *__restrict__ dst, T pad, int64_t n, uint32_t w)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += step) {
        const int64_t k = e / ((int64_t)PSL_FIXED_C * w);
        const uint32_t r = (uint32_t)(e - k * PSL_FIXED_C * (int64_t)w);
        const uint32_t j = r / PSL_FIXED_C, lane = r % PSL_FIXED_C;
        const int64_t s0 = sp[k];
        const uint32_t width = (uint32_t)((sp[k + 1] - s0) / PSL_FIXED_C);
        dst[e] = j < width ? src[s0 + (int64_t)j * PSL_FIXED_C + lane] : pad;
    }
}

/* Pad one array of n_out elements of T from the stored slices into dst. */
template <class T>
static psl_status psl_tiny_pad(const psl_dmatrix *d, const void *src, void *dst, T pad,
                               int64_t n_out, uint32_t w, cudaStream_t s, const char *what)
{
    int64_t g = (n_out + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
    psl_tiny_pad_kernel<T><<<(unsigned)(g < 65536 ? g : 65536), PSL_CUDA_BLOCK, 0, s>>>(
        d->s.slice_ptr, (const T *)src, (T *)dst, pad, n_out, w);
    return psl_cuda_launch_status(what);
}

/* The padding value of a SELL value array: zero bits of its size. */
static psl_status psl_tiny_pad_values(const psl_dmatrix *d, void *dst, int64_t n, uint32_t w,
                                      cudaStream_t s)
{
    const char *what = "uniform copy of the SELL values";
    switch (psl_scalar_size(d->value_type)) {
    case 8: return psl_tiny_pad<unsigned long long>(d, d->s.val, dst, 0ull, n, w, s, what);
    case 4: return psl_tiny_pad<uint32_t>(d, d->s.val, dst, 0u, n, w, s, what);
    default: return psl_tiny_pad<unsigned short>(d, d->s.val, dst, (unsigned short)0, n, w, s, what);
    }
}

psl_status psl_dmatrix_setup_tiny(psl_dmatrix *d, const int64_t *h_sp, cudaStream_t s)
{
    const int32_t nslices = d->info.nslices;
    const int64_t w = d->max_width;
    d->padded = d->s;
    d->padded.uniform_width = 0;
    if (!d->tiny_uniform || nslices <= 0 || d->nrows <= 0 || w < 1 || psl_tiny_words(d) == 0)
        return PSL_OK;
    bool uniform = h_sp != NULL;
    for (int32_t k = 0; uniform && k < nslices; k++)
        uniform = h_sp[k + 1] - h_sp[k] == w * PSL_FIXED_C;
    if (uniform) { /* already one width: the kernels read the stored slices */
        d->padded.uniform_width = (int32_t)w;
        return PSL_OK;
    }
    const int64_t n = (int64_t)nslices * PSL_FIXED_C * w;
    const bool pack = d->format == PSL_FORMAT_PACKSELL;
    const size_t vsize = pack ? 0 : psl_scalar_size(d->value_type);
    const size_t bytes = (size_t)n * (pack ? sizeof(uint32_t) : sizeof(int32_t) + vsize);
    psl_status st = PSL_CUDA_OK(cudaMalloc(&d->d_padded, bytes));
    if (st != PSL_OK)
        return st;
    char *base = (char *)d->d_padded;
    if (pack) {
        st = psl_tiny_pad<uint32_t>(d, d->s.words, base, 0u, n, (uint32_t)w, s,
                                    "uniform copy of the PackSELL words");
        d->padded.words = (const uint32_t *)base;
    } else {
        st = psl_tiny_pad<int32_t>(d, d->s.col, base, -1, n, (uint32_t)w, s,
                                   "uniform copy of the SELL columns");
        if (st == PSL_OK)
            st = psl_tiny_pad_values(d, base + (size_t)n * sizeof(int32_t), n, (uint32_t)w, s);
        d->padded.col = (const int32_t *)base;
        d->padded.val = base + (size_t)n * sizeof(int32_t);
    }
    const psl_status sy = PSL_CUDA_OK(cudaStreamSynchronize(s));
    if (st == PSL_OK)
        st = sy;
    if (st == PSL_OK)
        d->padded.uniform_width = (int32_t)w;
    return st;
}
