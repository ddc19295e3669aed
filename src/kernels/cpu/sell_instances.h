/*
 * sell_instances.h -- instantiate sell_tmpl.h for every SELL value type
 * (FP64, FP32, FP16, BF16) and vector type in the including translation
 * unit, and define sell_table() over them. Included once by spmv_sell.c
 * (portable) and by simd_tu.h (per instruction set).
 */
#include "finish_instances.h" /* psl_cpu_finish_<kind> */

#define PSL_TEMPLATE "sell_tmpl.h"

#define VAL_NAME fp64
#define VAL_T double
#define VLOAD(v, k) ((ACC_T)((const double *)(v))[k])
#include "vec_instances.h"
#undef VAL_NAME
#undef VAL_T
#undef VLOAD

#define VAL_NAME fp32
#define VAL_T float
#define VLOAD(v, k) ((ACC_T)((const float *)(v))[k])
#include "vec_instances.h"
#undef VAL_NAME
#undef VAL_T
#undef VLOAD

#define VAL_NAME fp16
#define VAL_T uint16_t
#define VLOAD(v, k) ((ACC_T)psl_half_to_float(((const uint16_t *)(v))[k]))
#include "vec_instances.h"
#undef VAL_NAME
#undef VAL_T
#undef VLOAD

#define VAL_NAME bf16
#define VAL_T uint16_t
#define VLOAD(v, k) ((ACC_T)psl_bf16_to_float(((const uint16_t *)(v))[k]))
#include "vec_instances.h"
#undef VAL_NAME
#undef VAL_T
#undef VLOAD

#undef PSL_TEMPLATE

/* The SELL kernel of this translation unit for the types, or NULL. */
static psl_spmv_fn sell_table(psl_scalar value_type, psl_scalar vec_type)
{
    static const psl_spmv_fn table[4][PSL_VEC_COUNT] = {
        PSL_CPU_VEC_ROW(psl_cpu_sell_fp64_),
        PSL_CPU_VEC_ROW(psl_cpu_sell_fp32_),
        PSL_CPU_VEC_ROW(psl_cpu_sell_fp16_),
        PSL_CPU_VEC_ROW(psl_cpu_sell_bf16_),
    };
    if ((unsigned)value_type > PSL_BF16 || (unsigned)vec_type >= PSL_VEC_COUNT)
        return NULL;
    return table[value_type][vec_type];
}
