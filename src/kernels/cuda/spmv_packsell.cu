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
 * for them. The loop is written for few instructions per word: C compiled
 * in, a doubled column, shifts instead of divisions, 32-bit counters. Long
 * rows (C = 32, long_rows.h): the first blocks take segments of the wide
 * slices, each starting from its checkpointed column; rows of wide slices
 * are skipped by the one-thread-per-row part and written by their block or
 * cluster (psl_wide_end) or, for slices wider than that, by
 * psl_wide_finish.
 *
 * The forms, picked per matrix at launch (psl_pack_launch; gateway.cuh
 * lists every form and its rule): a short-row kernel when every row fits
 * one group of loads, the general kernel, the general kernel for small
 * matrices (deeper groups, fewer resident threads: dmatrix.cuh, PSL_LAT),
 * and, for FP16 where x outgrows L2, the general kernel with the word
 * prefetch. All give the same bits.
 */
#include "wide.cuh"

#include "format/word.h"

/* Codec families, the FAMILY template parameter: how a word's value decodes. */
enum { PSL_FAMILY_E8 = 0, PSL_FAMILY_FP16 = 1, PSL_FAMILY_GENERIC = 2 };

/* What a kernel needs of the codec, set once per launch:
 * dmask2 -- a flag-1 word's delta, doubled, is w & dmask2 ((2^D - 1) << 1);
 *           a flag-0 word's (dummy, padding) is w & ~1;
 * vmask  -- the value bits left in place (E8MY, ExMy);
 * exp_bits, scale -- the ExMy decoder's exponent width and scale. */
struct psl_pack_codec {
    uint32_t dmask2, vmask;
    int32_t exp_bits;
    float scale;
};

/* Value of a flag-1 word as float (exact). */
template <int FAMILY>
__device__ __forceinline__ float psl_pack_decode(uint32_t w, const psl_pack_codec &k)
{
    if (FAMILY == PSL_FAMILY_FP16) /* V = 16, D = 15: the top half is the binary16 */
        return __half2float(__ushort_as_half((unsigned short)(w >> 16)));
    if (FAMILY == PSL_FAMILY_E8) /* the word with its low D+1 bits cleared is the float */
        return __uint_as_float(w & k.vmask);
    return psl_decode_inplace(w & k.vmask, k.exp_bits, k.scale);
}

/* Doubled delta mask of flag-1 words (FP16/BF16: D = 15, a constant). */
template <int FAMILY>
__device__ __forceinline__ uint32_t psl_pack_dmask2(const psl_pack_codec &k)
{
    return FAMILY == PSL_FAMILY_FP16 ? 0xfffeu : k.dmask2;
}

/* Load GROUP word positions of one row from p (position stride C; immediate
 * offsets when FIXED_C compiles C in); only the first n when n < GROUP, the
 * others read as 0 (flag 0, delta 0: they change nothing). STREAM_PAST_L1:
 * the loads bypass L1 (psl_ld_stream). */
template <bool STREAM_PAST_L1, int FIXED_C, int GROUP>
__device__ __forceinline__ void psl_pack_load(const uint32_t *__restrict__ p, uint32_t C,
                                              uint32_t (&w)[GROUP], uint32_t n = GROUP)
{
    if (n >= (uint32_t)GROUP) { /* warp-uniform at C = 32: a slice's rows share n */
#pragma unroll
        for (int u = 0; u < GROUP; u++)
            w[u] = psl_ld_stream<STREAM_PAST_L1>(p + (FIXED_C ? (uint32_t)(u * FIXED_C) : u * C));
    } else {
#pragma unroll
        for (int u = 0; u < GROUP; u++)
            w[u] = (uint32_t)u < n ? psl_ld_stream<STREAM_PAST_L1>(
                                         p + (FIXED_C ? (uint32_t)(u * FIXED_C) : u * C))
                                   : 0u;
    }
}

/* Use GROUP loaded words: the running column, then the x loads, then the sums
 * in stored order. The column is kept doubled, c2 = 2*col, so that each word
 * costs one select and one AND (no shift) and x is addressed from c2
 * directly; flag-0 words only move the column, x is not read for them. */
template <class VEC, int FAMILY, int GROUP>
__device__ __forceinline__ void psl_pack_use(const uint32_t (&w)[GROUP], uint32_t &c2,
                                             typename VEC::acc &t,
                                             const typename VEC::elem *__restrict__ x,
                                             const psl_pack_codec &k)
{
    typedef typename VEC::acc ACC;
    const bool exact = FAMILY == PSL_FAMILY_FP16 && sizeof(typename VEC::elem) == 2;
    const uint32_t dm2 = psl_pack_dmask2<FAMILY>(k);
    uint32_t col2[GROUP];
    typename VEC::elem xv[GROUP];
#pragma unroll
    for (int u = 0; u < GROUP; u++) {
        c2 += w[u] & ((w[u] & PSL_WORD_FLAG) ? dm2 : 0xfffffffeu);
        col2[u] = c2;
    }
#pragma unroll
    for (int u = 0; u < GROUP; u++)
        if (w[u] & PSL_WORD_FLAG) /* xv[u] is only read under the same flag */
            xv[u] = VEC::raw2(x, col2[u]);
#pragma unroll
    for (int u = 0; u < GROUP; u++)
        if (w[u] & PSL_WORD_FLAG)
            t = psl_madd<exact>(t, (ACC)psl_pack_decode<FAMILY>(w[u], k),
                                (ACC)VEC::widen(xv[u]));
}

#ifndef PSL_PACK_UNROLL
#define PSL_PACK_UNROLL 4
#endif
/* Next-group pipelining of the general kernel, per codec family (E8MY and
 * BF16; FP16), where the matrix streams from DRAM: the next group's words
 * are loaded before this group's x gathers, at the same 32 registers. On
 * for E8MY/BF16 (rows of many words gain, others are unchanged), off for
 * FP16 (no clear gain) except in its word-prefetch form; deeper unrolls and
 * FP16's fused tail are slower (bench/NOTES.md, GPU kernel forms and why). */
#ifndef PSL_PACK_PIPE_E8
#define PSL_PACK_PIPE_E8 1
#endif
#ifndef PSL_PACK_PIPE_F16
#define PSL_PACK_PIPE_F16 0
#endif

/* The last r <= 2 x GROUP positions of a row from p. FUSED_TAIL: as one
 * group of 2 x GROUP, the words past r read as 0 (flag 0), so every x load
 * of the tail is issued before the first is used -- one round trip to
 * memory for the words and one for x, where two groups would wait for x
 * twice (the small-matrix kernels, which can afford the registers). Else
 * two groups, both groups' words loaded before either is used. */
template <class VEC, int FAMILY, int FIXED_C, int GROUP, bool FUSED_TAIL, bool STREAM_PAST_L1>
__device__ __forceinline__ void psl_pack_tail(const uint32_t *__restrict__ p, uint32_t r,
                                              uint32_t C, uint32_t &c2, typename VEC::acc &t,
                                              const typename VEC::elem *__restrict__ x,
                                              const psl_pack_codec &k)
{
    const uint32_t stride = FIXED_C ? (uint32_t)FIXED_C : C;
    if (FUSED_TAIL) {
        uint32_t w[2 * GROUP];
        psl_pack_load<STREAM_PAST_L1, FIXED_C, 2 * GROUP>(p, C, w, r);
        psl_pack_use<VEC, FAMILY, 2 * GROUP>(w, c2, t, x, k);
        return;
    }
    uint32_t w0[GROUP], w1[GROUP];
    psl_pack_load<STREAM_PAST_L1, FIXED_C, GROUP>(p, C, w0, r);
    psl_pack_load<STREAM_PAST_L1, FIXED_C, GROUP>(p + GROUP * stride, C, w1,
                                                  r > GROUP ? r - GROUP : 0u);
    psl_pack_use<VEC, FAMILY, GROUP>(w0, c2, t, x, k);
    if (r > GROUP)
        psl_pack_use<VEC, FAMILY, GROUP>(w1, c2, t, x, k);
}

/* The word prefetch of the FP16 general kernel where x outgrows L2
 * (psl_cuda_word_prefetch): every group also asks L2 for the words
 * PSL_PACK_PREFETCH groups ahead (C = 32, where position j of a slice is one
 * 128-byte line and lane l of the warp is row l: lane l < n prefetches the
 * line of the position ahead + l positions past p, this thread's word, if
 * fewer than `left` positions are left from p). No registers are held for
 * it, so more of the matrix is in flight than the loads' registers allow
 * while the x gathers, which then miss L2 too, lengthen each row's chain.
 * Where x stays in L2 the extra L2 requests make it slower, and E8MY (already
 * pipelined) does not gain, so only FP16 has it (bench/NOTES.md, Word
 * prefetch). */
#ifndef PSL_PACK_PREFETCH
#define PSL_PACK_PREFETCH 2
#endif
template <int FIXED_C>
__device__ __forceinline__ void psl_pack_prefetch(const uint32_t *p, uint32_t ahead, uint32_t n,
                                                  uint32_t left)
{
    if (FIXED_C != 32)
        return;
    const uint32_t lane = threadIdx.x & 31u;
    if (lane < n && ahead + lane < left)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(p - lane + (ahead + lane) * 32u));
}

/* The whole row: width positions from p, GROUP at a time while more than
 * 2 x GROUP are left, then the last (up to 2 x GROUP) with both groups'
 * loads in flight together, predicated (psl_pack_tail): short rows are
 * latency-bound, so a row of 5 or 7 words costs one round trip to memory
 * instead of two or four. PIPELINED: the groups before the last 2 x GROUP
 * positions load their successor's words before their own x gathers
 * (PSL_PACK_PIPE_*); PREFETCH_AHEAD > 0 (with PIPELINED): they also
 * prefetch the words PREFETCH_AHEAD groups ahead into L2
 * (psl_pack_prefetch). Unrolling 8 deep and a bulk prefetch of each slice
 * into L2 are slower (bench/NOTES.md, GPU kernel forms and why; Cache
 * policy). */
template <class VEC, int FAMILY, int FIXED_C, int GROUP, bool FUSED_TAIL, bool STREAM_PAST_L1,
          bool PIPELINED = false, int PREFETCH_AHEAD = 0>
__device__ __forceinline__ void psl_pack_row(const uint32_t *__restrict__ p, uint32_t width,
                                             uint32_t C, uint32_t c2, typename VEC::acc &t,
                                             const typename VEC::elem *__restrict__ x,
                                             const psl_pack_codec &k)
{
    static_assert(PREFETCH_AHEAD == 0 || PIPELINED, "the prefetch runs in the pipelined loop");
    const uint32_t stride = FIXED_C ? (uint32_t)FIXED_C : C;
    uint32_t j = 0;
    if (PIPELINED && 2 * GROUP < width) { /* next group's words in flight during this one's x */
        if (PREFETCH_AHEAD > 0) /* the PREFETCH_AHEAD groups after the first */
            psl_pack_prefetch<FIXED_C>(p, GROUP, PREFETCH_AHEAD * GROUP, width);
        uint32_t w[GROUP];
        psl_pack_load<STREAM_PAST_L1, FIXED_C, GROUP>(p, C, w);
        for (;;) {
            j += GROUP;
            p += GROUP * stride;
            if (PREFETCH_AHEAD > 0)
                psl_pack_prefetch<FIXED_C>(p, PREFETCH_AHEAD * GROUP, GROUP, width - j);
            if (j + 2 * GROUP >= width) {
                psl_pack_use<VEC, FAMILY, GROUP>(w, c2, t, x, k);
                break;
            }
            uint32_t nw[GROUP];
            psl_pack_load<STREAM_PAST_L1, FIXED_C, GROUP>(p, C, nw);
            psl_pack_use<VEC, FAMILY, GROUP>(w, c2, t, x, k);
#pragma unroll
            for (int u = 0; u < GROUP; u++)
                w[u] = nw[u];
        }
    }
    for (; j + 2 * GROUP < width; j += GROUP, p += GROUP * stride) {
        uint32_t w[GROUP];
        psl_pack_load<STREAM_PAST_L1, FIXED_C, GROUP>(p, C, w);
        psl_pack_use<VEC, FAMILY, GROUP>(w, c2, t, x, k);
    }
    psl_pack_tail<VEC, FAMILY, FIXED_C, GROUP, FUSED_TAIL, STREAM_PAST_L1>(p, width - j, C, c2, t,
                                                                         x, k);
}

/* The doubled starting column of stored row i (its column block's). */
__device__ __forceinline__ uint32_t psl_pack_start_c2(const psl_dsliced &m, uint32_t i)
{
    const uint32_t b0 = psl_round_down(i, m.dblock, m.dblock_shift);
    return 2u * (uint32_t)psl_block_start_col(b0, m.kleft, m.ncols);
}

/* The general kernel (psl_sliced_rows: long-row blocks first, then a
 * thread per row). Template parameters: VEC the vector kind (psl_vec64,
 * ...), FAMILY the codec family, FIXED_C the slice height compiled in
 * (PSL_FIXED_C, or 0: read from m), STREAM_PAST_L1 the cache policy of the
 * word loads (psl_cuda_stream_na), WORD_PREFETCH the form for an x that
 * outgrows L2 (FP16 only: pipelined, with the word prefetch). SMALL_MATRIX
 * (C = 32, psl_cuda_small_rows): every thread is resident at once, so it
 * trades occupancy for a shorter chain of round trips -- groups of
 * PSL_LAT_UNROLL and the last up to 2 x PSL_LAT_UNROLL words loaded
 * together. */
template <class VEC, int FAMILY, int FIXED_C, bool SMALL_MATRIX, bool STREAM_PAST_L1,
          bool WORD_PREFETCH = false>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK,
                                  SMALL_MATRIX ? PSL_LAT_MINB : PSL_CUDA_MINB_FOR(VEC))
    psl_packsell_kernel(psl_dsliced m, psl_pack_codec k, const typename VEC::elem *__restrict__ x,
                        typename VEC::elem *__restrict__ y, typename VEC::acc a,
                        typename VEC::acc b, bool use_beta, typename VEC::acc *__restrict__ part)
{
    typedef typename VEC::acc ACC;
    constexpr int GROUP = SMALL_MATRIX ? PSL_LAT_UNROLL : PSL_PACK_UNROLL;
    /* pipelining pays where the words come from DRAM (STREAM_PAST_L1: the
     * matrix outgrows L2); where the matrix stays in L2 it costs */
    constexpr bool PIPELINED = !SMALL_MATRIX && STREAM_PAST_L1 &&
                               (FAMILY == PSL_FAMILY_E8     ? PSL_PACK_PIPE_E8
                                : FAMILY == PSL_FAMILY_FP16 ? PSL_PACK_PIPE_F16 || WORD_PREFETCH
                                                            : false);
    /* the launcher sets WORD_PREFETCH for FP16 only */
    constexpr int PREFETCH_AHEAD = WORD_PREFETCH ? PSL_PACK_PREFETCH : 0;
    const uint32_t C = FIXED_C ? (uint32_t)FIXED_C : (uint32_t)m.C;
    psl_sliced_rows<VEC, FIXED_C>(
        m, y, a, b, use_beta, part,
        [&](const psl_wide_seg &g, ACC &t) { /* a segment, from its checkpointed column */
            if (g.positions > 0)
                psl_pack_row<VEC, FAMILY, PSL_WIDE_C, GROUP, SMALL_MATRIX, STREAM_PAST_L1>(
                    m.words + g.first, g.positions, PSL_WIDE_C,
                    __ldg(m.seg_start_col2 + g.seg_slot), t, x, k);
        },
        [&](uint32_t i, const psl_row_slot &r, ACC &t) {
            psl_pack_row<VEC, FAMILY, FIXED_C, GROUP, SMALL_MATRIX, STREAM_PAST_L1, PIPELINED,
                         PREFETCH_AHEAD>(m.words + r.first, r.width, C, psl_pack_start_c2(m, i),
                                         t, x, k);
        });
}

/* Short rows (every slice at most ROW_WIDTH positions, C = 32, no long
 * rows): the row as one predicated group of ROW_WIDTH words, so its x loads
 * are all in flight together (as psl_pack_tail; the general kernel cannot
 * afford the registers for that under its cap of 32), in a kernel with
 * nothing else in it -- on tiny matrices the general kernel's size and
 * setup show. ROW_WIDTH = 2 x PSL_PACK_UNROLL at full occupancy;
 * PSL_SHORT_SMALL or PSL_SHORT_WIDE_WIDTH for small matrices only (they need
 * no occupancy; large ones at half the resident threads are slower:
 * bench/NOTES.md, Small matrices). */
template <class VEC, int FAMILY, int ROW_WIDTH, bool STREAM_PAST_L1>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, ROW_WIDTH <= 2 * PSL_PACK_UNROLL
                                                      ? PSL_CUDA_MINB_FOR(VEC)
                                                      : PSL_LAT_MINB)
    psl_packsell_short_kernel(psl_dsliced m, psl_pack_codec k,
                              const typename VEC::elem *__restrict__ x,
                              typename VEC::elem *__restrict__ y, typename VEC::acc a,
                              typename VEC::acc b, bool use_beta)
{
    psl_short_row(m, [&](uint32_t i, const psl_row_slot &r, int64_t o) {
        uint32_t w[ROW_WIDTH];
        psl_pack_load<STREAM_PAST_L1, PSL_FIXED_C, ROW_WIDTH>(m.words + r.first, PSL_FIXED_C, w,
                                                              r.width);
        uint32_t c2 = psl_pack_start_c2(m, i);
        typename VEC::acc t = 0;
        psl_pack_use<VEC, FAMILY, ROW_WIDTH>(w, c2, t, x, k);
        VEC::finish(y, o, t, a, b, use_beta);
    });
}

template <class VEC, int FAMILY>
static psl_status psl_pack_launch(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                                  void *y, void *workspace, cudaStream_t stream)
{
    const psl_dsliced &m = dA->s;
    psl_pack_codec k;
    k.dmask2 = ((1u << m.delta_bits) - 1u) << 1;
    k.vmask = ~(k.dmask2 | 1u);
    k.exp_bits = m.exp_bits;
    k.scale = m.scale;
    const int short_width = psl_short_words(dA, PSL_PACK_UNROLL, true);
    const psl_dsliced &ms = psl_short_params(dA);
    const psl_sliced_call<VEC> c = psl_sliced_call_of<VEC>(dA, alpha, x, beta, y, workspace);
    cudaError_t launched = cudaSuccess; /* the general kernel's launch call (<<<>>>: none) */
    if (short_width == 2 * PSL_PACK_UNROLL)
        psl_with_stream_past_l1(dA, sizeof(typename VEC::elem), [&](auto past_l1) {
            psl_packsell_short_kernel<VEC, FAMILY, 2 * PSL_PACK_UNROLL, decltype(past_l1)::value>
                <<<c.grid, PSL_CUDA_BLOCK, 0, stream>>>(ms, k, c.x, c.y, c.a, c.b, c.use_beta);
        });
    else if (!psl_with_short_width(short_width, [&](auto width) { /* small: they fit L2 */
                 psl_packsell_short_kernel<VEC, FAMILY, decltype(width)::value, false>
                     <<<psl_tiny_grid(dA), PSL_TINY_BLOCK, 0, stream>>>(ms, k, c.x, c.y, c.a, c.b,
                                                                      c.use_beta);
             }))
        psl_sliced_form(dA, sizeof(typename VEC::elem), [&](auto fixed_c, auto small_matrix,
                                                            auto past_l1) {
            constexpr int FIXED_C = decltype(fixed_c)::value;
            constexpr bool SMALL_MATRIX = decltype(small_matrix)::value;
            constexpr bool STREAM_PAST_L1 = decltype(past_l1)::value;
            /* the form for x outgrowing L2: FP16, C = 32, streamed */
            constexpr bool WORD_PREFETCH = FAMILY == PSL_FAMILY_FP16 && FIXED_C == PSL_FIXED_C &&
                                           !SMALL_MATRIX && STREAM_PAST_L1;
            if (WORD_PREFETCH && psl_cuda_word_prefetch(dA, sizeof(typename VEC::elem)))
                launched = psl_sliced_launch<psl_packsell_kernel<
                    VEC, FAMILY, FIXED_C, SMALL_MATRIX, STREAM_PAST_L1, WORD_PREFETCH>>(
                    dA, c, stream, m, k, c.x, c.y, c.a, c.b, c.use_beta, c.part);
            else
                launched = psl_sliced_launch<
                    psl_packsell_kernel<VEC, FAMILY, FIXED_C, SMALL_MATRIX, STREAM_PAST_L1>>(
                    dA, c, stream, m, k, c.x, c.y, c.a, c.b, c.use_beta, c.part);
        });
    return psl_sliced_end(dA, c, "PackSELL SpMV", stream, launched);
}

template <int FAMILY>
static psl_status psl_pack_by_vec(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, void *ws,
                                  cudaStream_t stream)
{
    return psl_with_vec(vec_type, "PackSELL device SpMV", [&](auto v) {
        return psl_pack_launch<decltype(v), FAMILY>(dA, alpha, x, beta, y, ws, stream);
    });
}

psl_status psl_cuda_packsell_spmv(const psl_dmatrix *dA, double alpha, const void *x,
                                  double beta, void *y, psl_scalar vec_type, void *ws,
                                  cudaStream_t stream)
{
    const psl_codec cd = dA->codec;
    if (cd.exp_bits == 8)
        return psl_pack_by_vec<PSL_FAMILY_E8>(dA, alpha, x, beta, y, vec_type, ws, stream);
    if (cd.exp_bits == 5 && cd.man_bits == 10)
        return psl_pack_by_vec<PSL_FAMILY_FP16>(dA, alpha, x, beta, y, vec_type, ws, stream);
    return psl_pack_by_vec<PSL_FAMILY_GENERIC>(dA, alpha, x, beta, y, vec_type, ws, stream);
}
