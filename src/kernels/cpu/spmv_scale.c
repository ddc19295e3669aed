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
#define PSL_SCALE_CASE_(TYPE, NAME, ...) \
    case TYPE: PSL_CAT(scale_v, NAME)(alpha, A, beta, y); break;
    switch (vec_type) {
        PSL_FOR_EACH_VEC(PSL_SCALE_CASE_)
    default: break; /* the dispatcher checked the type */
    }
#undef PSL_SCALE_CASE_
}
