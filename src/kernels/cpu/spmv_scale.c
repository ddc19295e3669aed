/*
 * spmv_scale.c -- the OpenMP kernel for matrices without entries or without
 * columns (nnz == 0 or ncols == 0): y = alpha*0 + beta*y, x never read.
 */
#include "cpu_common.h"

#define PSL_TEMPLATE "scale_tmpl.h"
#include "vec_instances.h"

void psl_cpu_scale(double alpha, const psl_matrix *A, double beta, void *y,
                   psl_scalar vec_type)
{
    switch (vec_type) {
    case PSL_FP64: scale_v64(alpha, A, beta, y); break;
    case PSL_FP32: scale_v32(alpha, A, beta, y); break;
    default: scale_v16(alpha, A, beta, y); break;
    }
}
