/*
 * spmv_packsell.c -- OpenMP PackSELL SpMV kernels for every ExMy codec and
 * every vector type (PSL_FOR_EACH_VEC): the portable instances (packsell_instances.h)
 * and the choice among them and the SIMD ones.
 */
#include "cpu_common.h"

#include "packsell_instances.h"

psl_spmv_fn psl_cpu_packsell_select(psl_codec codec, psl_scalar vec_type)
{
    psl_spmv_fn f = NULL;
#if PSL_X86_SIMD
    switch (psl_cpu_isa()) {
    case PSL_ISA_AVX512: f = psl_cpu_packsell_select_avx512(codec, vec_type); break;
    case PSL_ISA_AVX2: f = psl_cpu_packsell_select_avx2(codec, vec_type); break;
    default: break;
    }
#endif
    return f ? f : packsell_table(codec, vec_type);
}
