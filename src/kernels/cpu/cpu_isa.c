/*
 * cpu_isa.c -- run-time choice of the instruction set of the OpenMP SpMV
 * kernels: the best the CPU (and OS) supports, optionally capped by
 * PSL_CPU_ISA so that tests and benchmarks can run every variant.
 */
#include "cpu_common.h"

#include <stdlib.h>
#include <string.h>

/* Best instruction set of this CPU among those compiled in. */
static psl_isa detect(void)
{
#if PSL_X86_SIMD
    /* libgcc / compiler-rt also check that the OS saves the AVX state. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return PSL_ISA_AVX512;
    /* Every AVX2 CPU also has F16C (used for FP16 vectors). */
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return PSL_ISA_AVX2;
#endif
    return PSL_ISA_GENERIC;
}

psl_isa psl_cpu_isa(void)
{
    psl_isa best = detect();
    const char *cap = getenv("PSL_CPU_ISA");
    if (cap && strcmp(cap, "generic") == 0)
        return PSL_ISA_GENERIC;
    if (cap && strcmp(cap, "avx2") == 0 && best > PSL_ISA_AVX2)
        return PSL_ISA_AVX2;
    return best;
}

const char *psl_cpu_isa_name(psl_isa isa)
{
    switch (isa) {
    case PSL_ISA_AVX512: return "avx512";
    case PSL_ISA_AVX2: return "avx2";
    default: return "generic";
    }
}
