/*
 * scale_tmpl.h -- y = alpha*0 + beta*y for one vector kind (instantiated by
 * vec_instances.h from spmv_scale.c): what every row of a matrix without
 * entries gets, computed without touching x.
 */
static void PSL_CAT(scale_, VEC_NAME)(double alpha, const psl_matrix *A, double beta, void *y)
{
    const ACC_T a = (ACC_T)alpha, b = (ACC_T)beta;
    const bool use_beta = beta != 0;
    const int32_t n = A->nrows;
#pragma omp parallel for schedule(static) if (n > PSL_OMP_MIN_WORK)
    for (int32_t i = 0; i < n; i++)
        YSTORE(y, i, (ACC_T)0, a, b, use_beta);
}
