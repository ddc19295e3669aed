/*
 * spmv_packsell.cu -- the PackSELL SpMV kernel: one thread per stored row,
 * the threads of a slice adjacent (a warp per slice when C == 32), so the
 * loads of word position j of a slice are coalesced; slices strided over a
 * grid sized from the device. Templated over the vector kind and the codec
 * family (E8MY/BF16: the value is a mask of the word; FP16: the top half is
 * an IEEE binary16; any other ExMy: psl_decode_inplace of word.h).
 *
 * Per row, in stored order: the running column adds every word's delta;
 * flag-1 words add value*x[col] to the sum (multiply, then add, each rounded,
 * or one FMA where the product is exact: the bits of the CPU kernels);
 * flag-0 words (dummies, padding) are selected away and x is not even read
 * for them. The loop is written for few instructions per word (the kernel
 * is issue-bound otherwise, bench/NOTES.md): C compiled in, a doubled
 * column, shifts instead of divisions, 32-bit counters. Long rows (C = 32,
 * long_rows.h): the first blocks take segments of the wide slices, each
 * starting from its checkpointed column; rows of wide slices are skipped by
 * the one-thread-per-row part and written by their block or cluster
 * (psl_wide_end) or, for slices wider than that, by psl_wide_finish.
 *
 * Three forms, picked per matrix at launch (psl_pack_launch): a short-row
 * kernel when every row fits one group of loads, the general kernel, and
 * the general kernel for small matrices (deeper groups, fewer resident
 * threads: dmatrix.cuh, PSL_LAT). All give the same bits.
 */
#include "wide.cuh"

#include "format/word.h"

enum { PSL_FAM_E8 = 0, PSL_FAM_F16 = 1, PSL_FAM_GEN = 2 };

/* What a kernel needs of the codec, set once per launch:
 * dmask2 -- a flag-1 word's delta, doubled, is w & dmask2 ((2^D - 1) << 1);
 *           a flag-0 word's (dummy, padding) is w & ~1;
 * vmask  -- the value bits left in place (E8MY, ExMy);
 * e, scale -- the ExMy decoder's exponent width and scale. */
struct psl_pack_codec {
    uint32_t dmask2, vmask;
    int32_t e;
    float scale;
};

/* Value of a flag-1 word as float (exact). */
template <int FAM>
__device__ __forceinline__ float psl_pack_decode(uint32_t w, const psl_pack_codec &k)
{
    if (FAM == PSL_FAM_F16) /* V = 16, D = 15: the top half is the binary16 */
        return __half2float(__ushort_as_half((unsigned short)(w >> 16)));
    if (FAM == PSL_FAM_E8) /* the word with its low D+1 bits cleared is the float */
        return __uint_as_float(w & k.vmask);
    return psl_decode_inplace(w & k.vmask, k.e, k.scale);
}

/* Doubled delta mask of flag-1 words (FP16/BF16: D = 15, a constant). */
template <int FAM>
__device__ __forceinline__ uint32_t psl_pack_dmask2(const psl_pack_codec &k)
{
    return FAM == PSL_FAM_F16 ? 0xfffeu : k.dmask2;
}

/* Load U word positions of one row from p (position stride C; immediate
 * offsets when C is compiled in); only the first n when n < U, the others
 * read as 0 (flag 0, delta 0: they change nothing). */
template <bool NA, int CC, int U>
__device__ __forceinline__ void psl_pack_load(const uint32_t *__restrict__ p, uint32_t C,
                                              uint32_t (&w)[U], uint32_t n = U)
{
    if (n >= (uint32_t)U) { /* warp-uniform at C = 32: a slice's rows share n */
#pragma unroll
        for (int u = 0; u < U; u++)
            w[u] = psl_ld_stream<NA>(p + (CC ? (uint32_t)(u * CC) : u * C));
    } else {
#pragma unroll
        for (int u = 0; u < U; u++)
            w[u] = (uint32_t)u < n ? psl_ld_stream<NA>(p + (CC ? (uint32_t)(u * CC) : u * C)) : 0u;
    }
}

/* Use U loaded words: the running column, then the x loads, then the sums
 * in stored order. The column is kept doubled, c2 = 2*col, so that each word
 * costs one select and one AND (no shift) and x is addressed from c2
 * directly; flag-0 words only move the column, x is not read for them. */
template <class V, int FAM, int U>
__device__ __forceinline__ void psl_pack_use(const uint32_t (&w)[U], uint32_t &c2,
                                             typename V::acc &t,
                                             const typename V::elem *__restrict__ x,
                                             const psl_pack_codec &k)
{
    typedef typename V::acc ACC;
    const bool exact = FAM == PSL_FAM_F16 && sizeof(typename V::elem) == 2;
    const uint32_t dm2 = psl_pack_dmask2<FAM>(k);
    uint32_t col2[U];
    typename V::elem xv[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        c2 += w[u] & ((w[u] & PSL_WORD_FLAG) ? dm2 : 0xfffffffeu);
        col2[u] = c2;
    }
#pragma unroll
    for (int u = 0; u < U; u++)
        if (w[u] & PSL_WORD_FLAG) /* xv[u] is only read under the same flag */
            xv[u] = V::raw2(x, col2[u]);
#pragma unroll
    for (int u = 0; u < U; u++)
        if (w[u] & PSL_WORD_FLAG)
            t = psl_madd<exact>(t, (ACC)psl_pack_decode<FAM>(w[u], k), (ACC)V::widen(xv[u]));
}

#ifndef PSL_PACK_UNROLL
#define PSL_PACK_UNROLL 4
#endif
/* Next-group pipelining of the general kernel, per codec family (E8MY and
 * BF16; FP16), where the matrix streams from DRAM: the next group's words
 * are loaded before this group's x gathers. Measured (bench/NOTES.md,
 * seventh session): E8M21 on HPCG_8_8_8 (36 words a row, 9 of them dummy
 * words) 653 -> 631 us at the same 32 registers; FP16 within +-2% (HPCG_7_7_7
 * 1.6% faster, HPCG 64^3 and random rows 1% slower), so off. Deeper unrolls
 * (8, under 40 or 48 registers) and FP16's fused tail were slower. */
#ifndef PSL_PACK_PIPE_E8
#define PSL_PACK_PIPE_E8 1
#endif
#ifndef PSL_PACK_PIPE_F16
#define PSL_PACK_PIPE_F16 0
#endif

/* The last r <= 2U positions of a row from p, as one group of 2U: the
 * words past r read as 0 (flag 0), so every x load of the tail is issued
 * before the first is used -- one round trip to memory for the words and
 * one for x, where two groups of U would wait for x twice. */
template <class V, int FAM, int CC, int U, bool FUSED, bool NA>
__device__ __forceinline__ void psl_pack_tail(const uint32_t *__restrict__ p, uint32_t r,
                                              uint32_t C, uint32_t &c2, typename V::acc &t,
                                              const typename V::elem *__restrict__ x,
                                              const psl_pack_codec &k)
{
    const uint32_t stride = CC ? (uint32_t)CC : C;
    if (FUSED) {
        uint32_t w[2 * U];
        psl_pack_load<NA, CC, 2 * U>(p, C, w, r);
        psl_pack_use<V, FAM, 2 * U>(w, c2, t, x, k);
        return;
    }
    uint32_t w0[U], w1[U];
    psl_pack_load<NA, CC, U>(p, C, w0, r);
    psl_pack_load<NA, CC, U>(p + U * stride, C, w1, r > U ? r - U : 0u);
    psl_pack_use<V, FAM, U>(w0, c2, t, x, k);
    if (r > U)
        psl_pack_use<V, FAM, U>(w1, c2, t, x, k);
}

/* The FP16 general kernel where x outgrows L2 (psl_cuda_word_prefetch):
 * every group also asks L2 for the words PSL_PACK_PREFETCH groups ahead
 * (C = 32, where position j of a slice is one 128-byte line and lane l of
 * the warp is row l: lane l < n prefetches the line of the position
 * ahead + l positions past p, this thread's word, if fewer than `left`
 * positions are left from p). No registers are held for it,
 * so more of the matrix is in flight than the loads' registers allow
 * while the x gathers, which then miss L2 too, lengthen each row's chain.
 * Measured (bench/NOTES.md, eighth session): HPCG_8_8_8 FP16 (x 33.5 MB)
 * 532 -> 497 us with the FP16 pipelining; but 12% slower where x stays in
 * L2 (HPCG_7_7_7 58.9 -> 65.8 us), and no gain for E8M21 on HPCG_8_8_8
 * (pipelined already; with or instead of the pipelining, 2 or 4 groups
 * ahead: 629-634 against 632 us), so only FP16 has it. */
#ifndef PSL_PACK_PREFETCH
#define PSL_PACK_PREFETCH 2
#endif
template <int CC>
__device__ __forceinline__ void psl_pack_prefetch(const uint32_t *p, uint32_t ahead, uint32_t n,
                                                  uint32_t left)
{
    if (CC != 32)
        return;
    const uint32_t lane = threadIdx.x & 31u;
    if (lane < n && ahead + lane < left)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(p - lane + (ahead + lane) * 32u));
}

/* The whole row: width positions from p, U at a time while more than 2U
 * are left, then the last (up to 2U) with both groups' loads in flight
 * together, predicated: short rows are latency-bound, so a row of 5 or 7
 * words costs one round trip to memory instead of two or four. PIPE: the
 * groups before the last 2U positions load their successor's words before
 * their own x gathers (PSL_PACK_PIPE_*); PF > 0 (with PIPE): they also
 * prefetch the words PF groups ahead into L2 (psl_pack_prefetch). (Unrolling 8 deep and a TMA bulk
 * prefetch of each slice into L2 were measured and are slower:
 * bench/NOTES.md.) */
template <class V, int FAM, int CC, int U, bool FUSED, bool NA, bool PIPE = false, int PF = 0>
__device__ __forceinline__ void psl_pack_row(const uint32_t *__restrict__ p, uint32_t width,
                                             uint32_t C, uint32_t c2, typename V::acc &t,
                                             const typename V::elem *__restrict__ x,
                                             const psl_pack_codec &k)
{
    static_assert(PF == 0 || PIPE, "the prefetch runs in the pipelined loop");
    const uint32_t stride = CC ? (uint32_t)CC : C;
    uint32_t j = 0;
    if (PIPE && 2 * U < width) { /* the next group's words in flight during this one's x */
        if (PF > 0) /* the PF groups after the first */
            psl_pack_prefetch<CC>(p, U, PF * U, width);
        uint32_t w[U];
        psl_pack_load<NA, CC, U>(p, C, w);
        for (;;) {
            j += U;
            p += U * stride;
            if (PF > 0)
                psl_pack_prefetch<CC>(p, PF * U, U, width - j);
            if (j + 2 * U >= width) {
                psl_pack_use<V, FAM, U>(w, c2, t, x, k);
                break;
            }
            uint32_t nw[U];
            psl_pack_load<NA, CC, U>(p, C, nw);
            psl_pack_use<V, FAM, U>(w, c2, t, x, k);
#pragma unroll
            for (int u = 0; u < U; u++)
                w[u] = nw[u];
        }
    }
    for (; j + 2 * U < width; j += U, p += U * stride) {
        uint32_t w[U];
        psl_pack_load<NA, CC, U>(p, C, w);
        psl_pack_use<V, FAM, U>(w, c2, t, x, k);
    }
    psl_pack_tail<V, FAM, CC, U, FUSED, NA>(p, width - j, C, c2, t, x, k);
}

/* The doubled starting column of stored row i (its column block's). */
__device__ __forceinline__ uint32_t psl_pack_start_c2(const psl_dsliced &m, uint32_t i)
{
    const uint32_t b0 = psl_round_down(i, m.dblock, m.dblock_shift);
    return 2u * (uint32_t)psl_block_start_col(b0, m.kleft, m.ncols);
}

/* The general kernel (psl_sliced_rows: long-row blocks first, then a
 * thread per row). LAT (small matrices, C = 32): every thread is resident
 * at once, so it trades occupancy for a shorter chain of round trips --
 * groups of PSL_LAT_UNROLL and the last up to 2 x PSL_LAT_UNROLL words
 * loaded together. */
template <class V, int FAM, int CC, bool LAT, bool NA, bool XL = false>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, LAT ? PSL_LAT_MINB : PSL_CUDA_MINB_FOR(V))
    psl_packsell_kernel(psl_dsliced m, psl_pack_codec k, const typename V::elem *__restrict__ x,
                        typename V::elem *__restrict__ y, typename V::acc a, typename V::acc b,
                        bool use_beta, typename V::acc *__restrict__ part)
{
    typedef typename V::acc ACC;
    constexpr int U = LAT ? PSL_LAT_UNROLL : PSL_PACK_UNROLL;
    /* pipelining pays where the words come from DRAM (NA: the matrix outgrows
     * L2); on HPCG 64^3, in L2, it cost E8M21 4% */
    constexpr bool PIPE = !LAT && NA && (FAM == PSL_FAM_E8 ? PSL_PACK_PIPE_E8
                                   : FAM == PSL_FAM_F16 ? PSL_PACK_PIPE_F16 || XL
                                                        : false);
    constexpr int PF = XL ? PSL_PACK_PREFETCH : 0; /* the launcher sets XL for FP16 only */
    const uint32_t C = CC ? (uint32_t)CC : (uint32_t)m.C;
    psl_sliced_rows<V, CC>(
        m, y, a, b, use_beta, part,
        [&](const psl_wide_seg &g, ACC &t) { /* a segment, from its checkpointed column */
            if (g.n > 0)
                psl_pack_row<V, FAM, PSL_WIDE_C, U, LAT, NA>(m.words + g.q, g.n, PSL_WIDE_C,
                                                             __ldg(m.ckpt + g.ckpt), t, x, k);
        },
        [&](uint32_t i, const psl_row_slot &r, ACC &t) {
            psl_pack_row<V, FAM, CC, U, LAT, NA, PIPE, PF>(m.words + r.first, r.width, C,
                                                 psl_pack_start_c2(m, i), t, x, k);
        });
}

/* Short rows (every slice at most SU positions, C = 32, no long rows):
 * the row as one predicated group of SU words, so its x loads are all in
 * flight together (psl_pack_tail; the general kernel cannot afford the
 * registers for that under its cap of 32), in a kernel with nothing else
 * in it -- on tiny matrices the general kernel's size and setup show.
 * SU = 2 x PSL_PACK_UNROLL at full occupancy; SU = PSL_SHORT_SMALL (16) for
 * small matrices only (they need no occupancy; on large ones, at half the
 * resident threads, it was measured 8-18% slower). */
template <class V, int FAM, int SU, bool NA>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, SU <= 2 * PSL_PACK_UNROLL ? PSL_CUDA_MINB_FOR(V)
                                                                           : PSL_LAT_MINB)
    psl_packsell_short_kernel(psl_dsliced m, psl_pack_codec k,
                              const typename V::elem *__restrict__ x,
                              typename V::elem *__restrict__ y, typename V::acc a,
                              typename V::acc b, bool use_beta)
{
    psl_short_row(m, [&](uint32_t i, const psl_row_slot &r, int64_t o) {
        uint32_t w[SU];
        psl_pack_load<NA, PSL_CC_FIXED, SU>(m.words + r.first, PSL_CC_FIXED, w, r.width);
        uint32_t c2 = psl_pack_start_c2(m, i);
        typename V::acc t = 0;
        psl_pack_use<V, FAM, SU>(w, c2, t, x, k);
        V::finish(y, o, t, a, b, use_beta);
    });
}

template <class V, int FAM>
static psl_status psl_pack_launch(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                                  void *y, void *workspace, cudaStream_t stream)
{
    const psl_dsliced &m = dA->s;
    psl_pack_codec k;
    k.dmask2 = ((1u << m.D) - 1u) << 1;
    k.vmask = ~(k.dmask2 | 1u);
    k.e = m.e;
    k.scale = m.scale;
    const int su = psl_short_words(dA, PSL_PACK_UNROLL, true);
    const psl_dsliced &ms = psl_short_params(dA);
    const psl_sliced_call<V> c = psl_sliced_call_of<V>(dA, alpha, x, beta, y, workspace);
    cudaError_t launched = cudaSuccess; /* the general kernel's launch call (<<<>>>: none) */
    if (su == 2 * PSL_PACK_UNROLL)
        psl_with_na(dA, sizeof(typename V::elem), [&](auto na) {
            psl_packsell_short_kernel<V, FAM, 2 * PSL_PACK_UNROLL, decltype(na)::value>
                <<<c.grid, PSL_CUDA_BLOCK, 0, stream>>>(ms, k, c.x, c.y, c.a, c.b, c.use_beta);
        });
    else if (!psl_with_tiny_su(su, [&](auto tsu) { /* small matrices only: they fit L2 */
                 psl_packsell_short_kernel<V, FAM, decltype(tsu)::value, false>
                     <<<psl_tiny_grid(dA), PSL_TINY_BLOCK, 0, stream>>>(ms, k, c.x, c.y, c.a, c.b,
                                                                      c.use_beta);
             }))
        psl_sliced_form(dA, sizeof(typename V::elem), [&](auto cc, auto small, auto na) {
            constexpr int CCV = decltype(cc)::value;
            constexpr bool SMALL = decltype(small)::value, NA = decltype(na)::value;
            /* the form for x outgrowing L2: FP16, C = 32, streamed */
            constexpr bool XL = FAM == PSL_FAM_F16 && CCV == PSL_CC_FIXED && !SMALL && NA;
            if (XL && psl_cuda_word_prefetch(dA, sizeof(typename V::elem)))
                launched = psl_sliced_launch<psl_packsell_kernel<V, FAM, CCV, SMALL, NA, XL>>(
                    dA, c, stream, m, k, c.x, c.y, c.a, c.b, c.use_beta, c.part);
            else
                launched = psl_sliced_launch<psl_packsell_kernel<V, FAM, CCV, SMALL, NA>>(
                    dA, c, stream, m, k, c.x, c.y, c.a, c.b, c.use_beta, c.part);
        });
    return psl_sliced_end(dA, c, "PackSELL SpMV", stream, launched);
}

template <int FAM>
static psl_status psl_pack_by_vec(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, void *ws,
                                  cudaStream_t stream)
{
    return psl_with_vec(vec_type, "PackSELL device SpMV", [&](auto v) {
        return psl_pack_launch<decltype(v), FAM>(dA, alpha, x, beta, y, ws, stream);
    });
}

psl_status psl_cuda_packsell_spmv(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, void *ws,
                                  cudaStream_t stream)
{
    const psl_codec cd = dA->codec;
    if (cd.exp_bits == 8)
        return psl_pack_by_vec<PSL_FAM_E8>(dA, alpha, x, beta, y, vec_type, ws, stream);
    if (cd.exp_bits == 5 && cd.man_bits == 10)
        return psl_pack_by_vec<PSL_FAM_F16>(dA, alpha, x, beta, y, vec_type, ws, stream);
    return psl_pack_by_vec<PSL_FAM_GEN>(dA, alpha, x, beta, y, vec_type, ws, stream);
}
