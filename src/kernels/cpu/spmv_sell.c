/*
 * spmv_sell.c -- OpenMP SELL-C-sigma SpMV kernels for FP64/FP32/FP16/BF16
 * values and every vector type (PSL_FOR_EACH_VEC): the portable instances
 * (sell_instances.h) and the choice among them and the SIMD ones.
 */
#include "cpu_common.h"

#include "sell_instances.h"

psl_spmv_fn psl_cpu_sell_select(psl_scalar value_type, psl_scalar vec_type)
{
    psl_spmv_fn f = NULL;
#if PSL_X86_SIMD
    switch (psl_cpu_isa()) {
    case PSL_ISA_AVX512: f = psl_cpu_sell_select_avx512(value_type, vec_type); break;
    case PSL_ISA_AVX2: f = psl_cpu_sell_select_avx2(value_type, vec_type); break;
    default: break;
    }
#endif
    return f ? f : sell_table(value_type, vec_type);
}
