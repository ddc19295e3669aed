/*
 * packsell_instances.h -- instantiate packsell_tmpl.h per codec family and
 * vector type in the including translation unit, and define
 * packsell_table() over them. Families: e8 (E8MY and BF16: the value bits
 * are a float, decode is the mask alone), fp16 (E5M10: the upper 16 bits
 * are an IEEE half, which the SIMD kernels convert with F16C), e5 (other
 * E5MY: shift by a constant and rescale) and generic (shift by 8-e and
 * rescale). Decoding
 * is exact in every family. Included once by spmv_packsell.c (portable) and
 * by simd_tu.h (per instruction set).
 */
#include "finish_instances.h" /* psl_cpu_finish_<kind> */

#define PSL_TEMPLATE "packsell_tmpl.h"

#define FAMILY e8
#define DECODE(vb, e, scale) psl_bits_to_float(vb)
#define SDECODE(w, f, pk) psl_s_decode_e8(w, f, pk)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE
#undef SDECODE

#define FAMILY fp16
#define DECODE(vb, e, scale) psl_decode_inplace(vb, 5, scale)
#define SDECODE(w, f, pk) psl_s_decode_fp16(w, f, pk)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE
#undef SDECODE

#define FAMILY e5
#define DECODE(vb, e, scale) psl_decode_inplace(vb, 5, scale)
#define SDECODE(w, f, pk) psl_s_decode_ex(w, f, pk)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE
#undef SDECODE

#define FAMILY generic
#define DECODE(vb, e, scale) psl_decode_inplace(vb, e, scale)
#define SDECODE(w, f, pk) psl_s_decode_ex(w, f, pk)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE
#undef SDECODE

#undef PSL_TEMPLATE

/* The PackSELL kernel of this translation unit for the codec, or NULL. */
static psl_spmv_fn packsell_table(psl_codec codec, psl_scalar vec_type)
{
    static const psl_spmv_fn table[4][PSL_VEC_COUNT] = {
        PSL_CPU_VEC_ROW(psl_cpu_packsell_e8_),
        PSL_CPU_VEC_ROW(psl_cpu_packsell_fp16_),
        PSL_CPU_VEC_ROW(psl_cpu_packsell_e5_),
        PSL_CPU_VEC_ROW(psl_cpu_packsell_generic_),
    };
    if (codec.exp_bits < 2 || codec.exp_bits > 8 || (unsigned)vec_type >= PSL_VEC_COUNT)
        return NULL;
    int family = codec.exp_bits == 8                           ? 0
                 : codec.exp_bits == 5 && codec.man_bits == 10 ? 1
                 : codec.exp_bits == 5                         ? 2
                                                               : 3;
    return table[family][vec_type];
}
