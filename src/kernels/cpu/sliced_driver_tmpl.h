/*
 * sliced_driver_tmpl.h -- the entry point of a sliced CPU kernel, included at
 * the end of sell_tmpl.h and packsell_tmpl.h with PSL_SLICED_FN naming the
 * kernel (its slice body is PSL_SLICED_FN##_slice): a matrix without entries
 * (or columns) only scales y; otherwise OpenMP runs the slices in static
 * chunks (psl_omp_chunk_slices), serially below PSL_OMP_MIN_WORK stored
 * entries. No include guard: once per instantiation.
 */
static void PSL_SLICED_FN(double alpha, const psl_matrix *A, const void *x, double beta,
                          void *y, psl_scalar vec_type)
{
    if (A->nnz == 0 || A->ncols == 0) {
        psl_cpu_scale(alpha, A, beta, y, vec_type);
        return;
    }
    const ACC_T a = (ACC_T)alpha, b = (ACC_T)beta;
    const bool use_beta = beta != 0;
    const int32_t nslices = A->nslices;
#pragma omp parallel for schedule(static, psl_omp_chunk_slices(A->C)) \
    if (A->stored > PSL_OMP_MIN_WORK)
    for (int32_t k = 0; k < nslices; k++)
        PSL_CAT(PSL_SLICED_FN, _slice)(A, k, x, y, a, b, use_beta);
}
