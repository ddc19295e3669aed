/*
 * spmv_packsell.c -- OpenMP PackSELL SpMV kernels for every ExMy codec and
 * FP64/FP32/FP16 vectors, instantiated from packsell_tmpl.h per codec
 * family: e8 (E8MY and BF16: the value bits are a float, decode is the mask
 * alone), e5 (FP16 and other E5MY: shift by a constant and rescale) and
 * generic (shift by 8-e and rescale). Decoding is exact in every family.
 */
#include "cpu_common.h"

#define PSL_TEMPLATE "packsell_tmpl.h"

#define FAMILY e8
#define DECODE(vb, e, scale) psl_bits_to_float(vb)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE

#define FAMILY e5
#define DECODE(vb, e, scale) psl_decode_inplace(vb, 5, scale)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE

#define FAMILY generic
#define DECODE(vb, e, scale) psl_decode_inplace(vb, e, scale)
#include "vec_instances.h"
#undef FAMILY
#undef DECODE

psl_spmv_fn psl_cpu_packsell_select(psl_codec codec, psl_scalar vec_type)
{
    static const psl_spmv_fn table[3][3] = {
        {psl_cpu_packsell_e8_v64, psl_cpu_packsell_e8_v32, psl_cpu_packsell_e8_v16},
        {psl_cpu_packsell_e5_v64, psl_cpu_packsell_e5_v32, psl_cpu_packsell_e5_v16},
        {psl_cpu_packsell_generic_v64, psl_cpu_packsell_generic_v32,
         psl_cpu_packsell_generic_v16},
    };
    if (codec.exp_bits < 2 || codec.exp_bits > 8 || (unsigned)vec_type > PSL_FP16)
        return NULL;
    int family = codec.exp_bits == 8 ? 0 : codec.exp_bits == 5 ? 1 : 2;
    return table[family][vec_type];
}
