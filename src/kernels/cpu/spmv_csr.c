/*
 * spmv_csr.c -- OpenMP CSR SpMV kernels for FP64/FP32 values and every
 * vector type (PSL_FOR_EACH_VEC), all instantiated from csr_tmpl.h.
 */
#include "cpu_common.h"

#include <omp.h>

#define PSL_TEMPLATE "csr_tmpl.h"

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

psl_spmv_fn psl_cpu_csr_select(psl_scalar value_type, psl_scalar vec_type)
{
    static const psl_spmv_fn table[2][PSL_VEC_COUNT] = {
        PSL_CPU_VEC_ROW(psl_cpu_csr_fp64_),
        PSL_CPU_VEC_ROW(psl_cpu_csr_fp32_),
    };
    if ((unsigned)value_type > PSL_FP32 || (unsigned)vec_type >= PSL_VEC_COUNT)
        return NULL;
    return table[value_type][vec_type];
}
