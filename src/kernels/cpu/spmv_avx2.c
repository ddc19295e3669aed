/*
 * spmv_avx2.c -- the SELL and PackSELL kernels for CPUs with AVX2 and F16C
 * (x86-64-v3), with gathers; see simd_tu.h.
 */
#define PSL_ISA_TARGET "avx2,f16c,bmi,bmi2,popcnt"
#define PSL_ISA_HEADER "simd_avx2.h"
#define PSL_ISA_SFX _avx2
#include "simd_tu.h"
