/*
 * cpu_isa.c -- run-time choice of the instruction set of the OpenMP SpMV
 * kernels: the best the CPU (and OS) supports, detected once per process,
 * optionally capped by the option PSL_CPU_ISA so that tests and benchmarks
 * can run every variant.
 */
#include "cpu_common.h"
#include "core/options.h"

#include <stdatomic.h>

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

/* detect() once: -1 until known (threads racing to it find the same). */
static atomic_int detected = -1;

psl_isa psl_cpu_isa(void)
{
    int best = atomic_load_explicit(&detected, memory_order_relaxed);
    if (best < 0) {
        best = (int)detect();
        atomic_store_explicit(&detected, best, memory_order_relaxed);
    }
    int cap = psl_opt_get_or(PSL_OPT_CPU_ISA, -1); /* -1: none */
    return (psl_isa)(cap >= 0 && cap < best ? cap : best);
}

const char *psl_cpu_isa_name(psl_isa isa)
{
    switch (isa) {
    case PSL_ISA_AVX512: return "avx512";
    case PSL_ISA_AVX2: return "avx2";
    default: return "generic";
    }
}
