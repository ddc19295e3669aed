/*
 * same_csr.h -- whether two FP64 CSR matrices hold the same arrays, bit for
 * bit (row pointers, columns, values): shared by the tests that compare
 * matrices built two ways (test_mm_files.c, test_dist_generate.c).
 */
#ifndef PSL_TEST_SAME_CSR_H
#define PSL_TEST_SAME_CSR_H

#include "packsell.h"

#include <stdint.h>
#include <string.h>

/* 1 when A and B are FP64 CSR matrices with the same CSR arrays, bit for bit. */
static inline int same_csr(const psl_matrix *A, const psl_matrix *B)
{
    psl_matrix_info ia, ib;
    if (psl_matrix_get_info(A, &ia) || psl_matrix_get_info(B, &ib))
        return 0;
    if (ia.nrows != ib.nrows || ia.ncols != ib.ncols || ia.nnz != ib.nnz)
        return 0;
    const int64_t *ra, *rb;
    const int32_t *ca, *cb;
    const double *va, *vb;
    if (psl_matrix_csr_view(A, &ra, &ca, &va) || psl_matrix_csr_view(B, &rb, &cb, &vb))
        return 0;
    return memcmp(ra, rb, sizeof *ra * ((size_t)ia.nrows + 1)) == 0 &&
           memcmp(ca, cb, sizeof *ca * (size_t)ia.nnz) == 0 &&
           memcmp(va, vb, sizeof *va * (size_t)ia.nnz) == 0;
}

#endif
