/*
 * spmv_avx512.c -- the SELL and PackSELL kernels for CPUs with AVX-512
 * F/BW/DQ/VL (x86-64-v4), with gathers and mask registers; see simd_tu.h.
 */
#define PSL_ISA_TARGET "avx512f,avx512bw,avx512dq,avx512vl,avx2,f16c,bmi,bmi2,popcnt"
#define PSL_ISA_HEADER "simd_avx512.h"
#define PSL_ISA_SFX _avx512
#include "simd_tu.h"
