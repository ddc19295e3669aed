/*
 * spmv_csr.c -- OpenMP CSR SpMV kernels for FP64/FP32 values and
 * FP64/FP32/FP16 vectors, all instantiated from csr_tmpl.h.
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
    static const psl_spmv_fn table[2][3] = {
        {psl_cpu_csr_fp64_v64, psl_cpu_csr_fp64_v32, psl_cpu_csr_fp64_v16},
        {psl_cpu_csr_fp32_v64, psl_cpu_csr_fp32_v32, psl_cpu_csr_fp32_v16},
    };
    if ((unsigned)value_type > PSL_FP32 || (unsigned)vec_type > PSL_FP16)
        return NULL;
    return table[value_type][vec_type];
}
