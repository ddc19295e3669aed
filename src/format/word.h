/*
 * word.h -- the PackSELL 32-bit word layout, as inline functions shared by
 * the encoder, the decoder, the CPU kernels and the CUDA kernels, so that
 * encode and decode cannot drift apart.
 *
 *   bit 31 ............................ D+1 | D ........ 1 | 0
 *   value: V = 31-D bits (sign|exp|mant)   | delta (D bits)| flag = 1
 *   delta: 31 bits (0 .. 2^31-1)                           | flag = 0
 *
 * flag 1: a stored entry; its column is the previous column + delta.
 * flag 0: no value. delta > 0: a dummy word that moves the column by a delta
 *         too large for D bits (the real entry follows with delta 0);
 *         delta = 0: padding. Both contribute nothing to y.
 *
 * Worked example (D = 2, V = 29, Figure 4 of the paper): row 1 has c at
 * column 0 and d at column 4. Delta 4 >= 2^2, so the row is
 *   [c|0|1] [4<<1|0] [d|0|1]     (value | delta | flag)
 * i.e. words (c<<3)|(0<<1)|1, 4<<1, (d<<3)|1.
 *
 * The value bits are a custom float ExMy (psl_codec) in the upper V bits.
 * Decoding to float is exact for e <= 8: shift the magnitude right by 8-e so
 * the exponent's lowest bit lands on float's bit 23 and multiply by
 * 2^(127 - (2^(e-1)-1)); for e = 8 (E8MY, BF16) it is a mask only.
 */
#ifndef PSL_WORD_H
#define PSL_WORD_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__)
#define PSL_HD __host__ __device__ __forceinline__
#else
#define PSL_HD static inline
#endif

#define PSL_WORD_FLAG 1u
#define PSL_MAX_DUMMY_DELTA 0x7fffffffu /* 2^31 - 1 */

/* Word of a stored entry: value bits (right-aligned, V = 31-D bits), delta < 2^D. */
PSL_HD uint32_t psl_word_entry(uint32_t vbits, uint32_t delta, int D)
{
    return (vbits << (D + 1)) | (delta << 1) | PSL_WORD_FLAG;
}

/* Word of a dummy (delta > 0) or padding (delta = 0) element, delta < 2^31. */
PSL_HD uint32_t psl_word_dummy(uint32_t delta) { return delta << 1; }

/* Flag bit (1: entry with value, 0: dummy/padding). */
PSL_HD uint32_t psl_word_flag(uint32_t w) { return w & 1u; }

/* Branch-free delta of any word. */
PSL_HD uint32_t psl_word_delta(uint32_t w, int D)
{
    uint32_t flag = w & 1u;
    uint32_t sh = (uint32_t)(31 - D) * flag;
    return (w << sh) >> (sh + 1);
}

/* The value bits left in place (upper V bits; zero for flag-0 words). */
PSL_HD uint32_t psl_word_value_bits(uint32_t w, int D)
{
    uint32_t flag = w & 1u;
    return w & (~((1u << (D + 1)) - 1u) * flag);
}

/* Float with the given bits (host and device). */
PSL_HD float psl_bits_to_float(uint32_t u)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

PSL_HD uint32_t psl_float_to_bits(float f)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

/* Scale factor 2^(127 - bias_e) of decode for exponent width e (2..8). */
PSL_HD float psl_codec_decode_scale(int e)
{
    /* 2^(127 - bias): for e in 2..8 the bias is 1..127, so the biased
     * exponent field 127 + (127 - bias) is in 127..253 and the float is a
     * normal number. (Exact decoding of subnormal codec values relies on
     * subnormal float arithmetic: never build kernels with flush-to-zero.) */
    int bias = (1 << (e - 1)) - 1;
    return psl_bits_to_float((uint32_t)(127 + 127 - bias) << 23);
}

/* Decode value bits left in place (as from psl_word_value_bits) of an ExMy
 * codec with exponent width e to float. Exact. scale =
 * psl_codec_decode_scale(e). For e == 8 prefer psl_bits_to_float(vb). */
PSL_HD float psl_decode_inplace(uint32_t vb, int e, float scale)
{
    uint32_t u = (vb & 0x80000000u) | ((vb & 0x7fffffffu) >> (8 - e));
    return psl_bits_to_float(u) * scale;
}

/* Column where the deltas of every row of the sigma block starting at stored
 * row block_start begin: paper eq. (4), d = block_start - kleft when
 * kleft < block_start, else 0; clamped to ncols-1 so that an empty row's
 * padding words still name a valid column (only matters for rectangular or
 * empty-row matrices; a row with entries always has min col >= d). */
PSL_HD int64_t psl_block_start_col(int64_t block_start, int64_t kleft, int64_t ncols)
{
    int64_t d = kleft < block_start ? block_start - kleft : 0;
    if (d > ncols - 1)
        d = ncols > 0 ? ncols - 1 : 0;
    return d;
}

#endif /* PSL_WORD_H */
