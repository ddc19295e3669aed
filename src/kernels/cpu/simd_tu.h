/*
 * simd_tu.h -- body of one SIMD translation unit (spmv_avx2.c,
 * spmv_avx512.c): compiles the SELL and PackSELL templates with PSL_SIMD
 * for one instruction set and exports their tables as
 * psl_cpu_{sell,packsell}_select<PSL_ISA_SFX>. Expects PSL_ISA_TARGET (the
 * target string), PSL_ISA_HEADER (its simd_<isa>.h) and PSL_ISA_SFX.
 * Every function defined here gets the target attribute (GCC/Clang
 * pragmas), so the rest of the library stays portable; the caller checks
 * the CPU (psl_cpu_isa) before using these kernels. Floating-point
 * contraction stays off (no FMA), as the bit-exact contract needs.
 */
#if defined(__clang__) /* Clang contracts a*b+c by default: not here */
#pragma clang fp contract(off)
#endif

#include "cpu_common.h"

#if PSL_X86_SIMD
#include <immintrin.h>

#define PSL_PRAGMA_(x) _Pragma(#x)
#if defined(__clang__)
#define PSL_TARGET_PUSH(t) \
    PSL_PRAGMA_(clang attribute push(__attribute__((target(t))), apply_to = function))
#define PSL_TARGET_POP PSL_PRAGMA_(clang attribute pop)
#else
#define PSL_TARGET_PUSH(t) PSL_PRAGMA_(GCC push_options) PSL_PRAGMA_(GCC target(t))
#define PSL_TARGET_POP PSL_PRAGMA_(GCC pop_options)
#endif

PSL_TARGET_PUSH(PSL_ISA_TARGET)

#define PSL_SIMD 1
#include PSL_ISA_HEADER
#include "simd_common.h"

#include "packsell_instances.h"
#include "sell_instances.h"

psl_spmv_fn PSL_CAT(psl_cpu_sell_select, PSL_ISA_SFX)(psl_scalar value_type,
                                                     psl_scalar vec_type)
{
    return sell_table(value_type, vec_type);
}

psl_spmv_fn PSL_CAT(psl_cpu_packsell_select, PSL_ISA_SFX)(psl_codec codec, psl_scalar vec_type)
{
    return packsell_table(codec, vec_type);
}

PSL_TARGET_POP
#endif /* PSL_X86_SIMD */
