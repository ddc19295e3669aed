/*
 * sliced_driver_tmpl.h -- the entry point of a sliced CPU kernel, included at
 * the end of sell_tmpl.h and packsell_tmpl.h with PSL_SLICED_FN naming the
 * kernel (its slice body is PSL_SLICED_FN##_slice): a matrix without entries
 * (or columns) only scales y; otherwise each OpenMP thread runs one
 * contiguous range of slices of about equal words + rows
 * (psl_sliced_part_start: static, the same split on every call), serially
 * below PSL_OMP_MIN_WORK stored entries. Every row is summed by one thread
 * in stored order, so y does not depend on the threads. The SIMD variants
 * pass the slices the table of blocks with consecutive columns at every
 * position (psl_cpu_slice_runs) where the including template's
 * PSL_SLICED_RUNS asks for it (NULL in the portable one and for FP64
 * vectors, which always gather). No include guard: once per instantiation.
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
#ifdef PSL_SIMD
    const uint8_t *runs = PSL_CAT3(psl_s_, VEC_NAME, _runs) && PSL_SLICED_RUNS
                              ? psl_cpu_slice_runs(A, PSL_VL)
                              : NULL;
#else
    const uint8_t *runs = NULL;
#endif
#pragma omp parallel if (A->stored > PSL_OMP_MIN_WORK)
    {
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
        int32_t k1 = psl_sliced_part_start(A->slice_ptr, nslices, A->C, id + 1, nt);
        for (int32_t k = psl_sliced_part_start(A->slice_ptr, nslices, A->C, id, nt); k < k1; k++)
            PSL_CAT(PSL_SLICED_FN, _slice)(A, k, x, y, a, b, use_beta, runs);
    }
}
