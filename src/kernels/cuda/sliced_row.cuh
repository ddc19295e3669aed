/*
 * sliced_row.cuh -- what the SELL and PackSELL kernels do once per stored
 * row, written once: find the row's first entry and its slice's width, the
 * start of its PackSELL column block, and the y index it writes under
 * implicit permutation. The kernels are instantiated for C = 32 (the
 * default, a compile-time constant: the per-row division and the
 * per-position offsets cost nothing) and for any C. Divisions by sigma and
 * the column block become shifts when those are powers of two (the shifts
 * are set with the other kernel parameters, psl_dmatrix_set_sliced).
 */
#ifndef PSL_CUDA_SLICED_ROW_CUH
#define PSL_CUDA_SLICED_ROW_CUH

#include "vec_ops.cuh"

/* Slice height compiled in: the kernels' FIXED_C template parameter is
 * PSL_FIXED_C (C = 32 compiled in) or 0 (any C, read from the matrix). */
#define PSL_FIXED_C 32

/* floor(i / n) * n, with a shift when n == 2^shift (shift >= 0). */
__device__ __forceinline__ uint32_t psl_round_down(uint32_t i, int32_t n, int32_t shift)
{
    return shift >= 0 ? (i >> shift) << shift : (i / (uint32_t)n) * (uint32_t)n;
}

/* Where stored row i lives: index of its first entry (position 0) in the
 * slice arrays, and the number of positions (words, entries) of its slice. */
struct psl_row_slot {
    int64_t first;
    uint32_t width;
};

template <int FIXED_C>
__device__ __forceinline__ psl_row_slot psl_row_slot_of(const psl_dsliced &m, uint32_t i)
{
    const uint32_t C = FIXED_C ? (uint32_t)FIXED_C : (uint32_t)m.C;
    const uint32_t k = i / C, lane = i - k * C;
    const int64_t s0 = __ldg((const long long *)m.slice_ptr + k);
    const int64_t s1 = __ldg((const long long *)m.slice_ptr + k + 1);
    psl_row_slot r;
    r.first = s0 + lane;
    r.width = (uint32_t)((uint64_t)(s1 - s0) / C);
    return r;
}

/* The one-thread-per-row part of a sliced kernel: this thread's rows i,
 * i + stride, ... (below nrows), each handed to body(i, slot) unless its
 * slice is at least wide_min_width positions wide (the long-row blocks have
 * it). Loading the next row's slice offsets before the current row runs,
 * with two rows per thread, is slower (bench/NOTES.md, GPU kernel forms and
 * why). */
template <int FIXED_C, class Body>
__device__ __forceinline__ void psl_for_rows(const psl_dsliced &m, uint32_t i, uint32_t stride,
                                             Body body)
{
    for (; i < (uint32_t)m.nrows; i += stride) {
        const psl_row_slot r = psl_row_slot_of<FIXED_C>(m, i);
        if (r.width < m.wide_min_width)
            body(i, r);
    }
}

/* Index into y of stored row i: with implicit permutation (perm != NULL)
 * the original row (i/sigma)*sigma + perm[i], otherwise i. */
__device__ __forceinline__ int64_t psl_out_row(const psl_dsliced &m, uint32_t i)
{
    if (!m.perm)
        return i;
    const int64_t base = psl_round_down(i, m.sigma, m.sigma_shift);
    switch (m.perm_bytes) {
    case 1: return base + __ldg((const unsigned char *)m.perm + i);
    case 2: return base + __ldg((const unsigned short *)m.perm + i);
    default: return base + __ldg((const unsigned int *)m.perm + i);
    }
}

/* The thread of a short-row kernel (C = 32, one thread per stored row, no
 * stride): body(i, slot, y index) for its row i, nothing past the last row.
 * The y index (a perm load with implicit permutation) is issued before the
 * body's loads so that the two overlap. On a uniform copy
 * (m.uniform_width > 0) the slot is arithmetic: one round trip to memory
 * fewer before the row's loads, which is what a tiny matrix's SpMV waits
 * on. */
template <class Body>
__device__ __forceinline__ void psl_short_row(const psl_dsliced &m, Body body)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (uint32_t)m.nrows)
        return;
    psl_row_slot r;
    if (m.uniform_width > 0) {
        const uint32_t w = (uint32_t)m.uniform_width;
        r.first = (i / PSL_FIXED_C) * (PSL_FIXED_C * w) + i % PSL_FIXED_C;
        r.width = w;
    } else {
        r = psl_row_slot_of<PSL_FIXED_C>(m, i);
    }
    body(i, r, psl_out_row(m, i));
}

#endif /* PSL_CUDA_SLICED_ROW_CUH */
