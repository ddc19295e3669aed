/*
 * packsell.h -- the entries of PackSELL that its folder's files share; the
 * table entry psl_packsell_ops is in packsell_ops.c, the builder
 * psl_packsell_build in packsell_build.c (declared in format/build.h).
 */
#ifndef PSL_FORMAT_PACKSELL_H
#define PSL_FORMAT_PACKSELL_H

#include "format/format_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const psl_format_ops psl_packsell_ops;

/* Stored row i of A (psl_format_ops.walk_row). */
int64_t psl_packsell_walk_row(const psl_matrix *A, int64_t i, int32_t *ci, double *v);

/* psl_format_ops.check_header and .validate (packsell_validate.c). */
psl_status psl_packsell_check_header(const char *file, const psl_matrix *A);
psl_status psl_packsell_validate(const char *file, const psl_matrix *A);

/* psl_format_ops.cuda_spmv (packsell_cuda.cu). */
psl_status psl_packsell_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x,
                                   double beta, void *y, psl_scalar vec_type, void *workspace,
                                   struct CUstream_st *stream);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_PACKSELL_H */
