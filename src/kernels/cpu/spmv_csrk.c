/*
 * spmv_csrk.c -- OpenMP CSR-k SpMV kernels for FP64, FP32 and FP16 values
 * (FP16 widened exactly to the accumulation type) and every vector type
 * (PSL_FOR_EACH_VEC), all instantiated from csrk_tmpl.h.
 */
#include "cpu_common.h"
#include "format/csrk/csrk.h"

#include <omp.h>

#define PSL_TEMPLATE "csrk_tmpl.h"

/* A finite FP16 value as a float, without branches: the exponent and
 * mantissa bits moved into a float's fields and scaled by 2^112 (exact for
 * normal and subnormal values), then the sign. Stored values are finite
 * (the builder and the binary reader reject Inf and NaN). */
static inline float csrk_half_to_float(uint16_t h)
{
    float m = psl_bits_to_float((uint32_t)(h & 0x7fffu) << 13) * 0x1p112f;
    return psl_bits_to_float(psl_float_to_bits(m) | (uint32_t)(h & 0x8000u) << 16);
}

#define VAL_NAME fp64
#define VLOAD(v, k) ((ACC_T)((const double *)(v))[k])
#include "vec_instances.h"
#undef VAL_NAME
#undef VLOAD

#define VAL_NAME fp32
#define VLOAD(v, k) ((ACC_T)((const float *)(v))[k])
#include "vec_instances.h"
#undef VAL_NAME
#undef VLOAD

#define VAL_NAME fp16
#define VLOAD(v, k) ((ACC_T)csrk_half_to_float(((const uint16_t *)(v))[k]))
#include "vec_instances.h"
#undef VAL_NAME
#undef VLOAD

psl_spmv_fn psl_cpu_csrk_select(psl_scalar value_type, psl_scalar vec_type)
{
    static const psl_spmv_fn table[3][PSL_VEC_COUNT] = {
        PSL_CPU_VEC_ROW(psl_cpu_csrk_fp64_),
        PSL_CPU_VEC_ROW(psl_cpu_csrk_fp32_),
        PSL_CPU_VEC_ROW(psl_cpu_csrk_fp16_),
    };
    if ((unsigned)value_type > PSL_FP16 || (unsigned)vec_type >= PSL_VEC_COUNT)
        return NULL;
    return table[value_type][vec_type];
}
