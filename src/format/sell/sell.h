/*
 * sell.h -- the entries of SELL-C-sigma that its folder's files share; the
 * table entry psl_sell_ops is in sell_ops.c, the builder psl_sell_build in
 * sell_build.c (declared in format/build.h).
 */
#ifndef PSL_FORMAT_SELL_H
#define PSL_FORMAT_SELL_H

#include "format/format_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const psl_format_ops psl_sell_ops;

/* Stored row i of A (psl_format_ops.walk_row). */
int64_t psl_sell_walk_row(const psl_matrix *A, int64_t i, int32_t *ci, double *v);

/* psl_format_ops.check_header and .validate (sell_validate.c). */
psl_status psl_sell_check_header(const char *file, const psl_matrix *A);
psl_status psl_sell_validate(const char *file, const psl_matrix *A);

/* psl_format_ops.cuda_spmv (sell_cuda.cu). */
psl_status psl_sell_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                               void *y, psl_scalar vec_type, void *workspace,
                               struct CUstream_st *stream);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_SELL_H */
