/*
 * csr.h -- the entries of CSR that its folder's files share; the table
 * entry psl_csr_ops is in csr_ops.c. The FP64 CSR handles every reader and
 * generator produces come from csr_create.c (format/format.h).
 */
#ifndef PSL_FORMAT_CSR_H
#define PSL_FORMAT_CSR_H

#include "format/format_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const psl_format_ops psl_csr_ops;

/* psl_format_ops.build and .estimate: FP64 CSR -> CSR with FP64 (copy) or
 * FP32 (rounded) values (csr_convert.c; dry is not needed: estimate
 * answers without a copy). */
psl_status psl_csr_build(psl_matrix **out, const psl_matrix *src,
                         const psl_convert_options *opt, bool dry);
psl_status psl_csr_estimate(const psl_matrix *src, const psl_convert_options *opt,
                            psl_matrix_info *info);

/* A CSR handle over the caller's 0-based arrays, borrowed (A->borrowed:
 * never written, left by psl_matrix_destroy): validated as
 * psl_matrix_create_csr does with PSL_CSR_STRICT (sorted columns, no
 * duplicates, finite values), values FP64, FP32 or FP16; row statistics
 * computed. For psl_matrix_create_csrk_view (csr_create.c). */
psl_status psl_csr_view(psl_matrix **out, int32_t nrows, int32_t ncols, const int64_t *row_ptr,
                        const int32_t *col_idx, const void *values, psl_scalar value_type);

/* Stored row i of A (psl_format_ops.walk_row). */
int64_t psl_csr_walk_row(const psl_matrix *A, int64_t i, int32_t *ci, double *v);

/* psl_format_ops.check_header and .validate (csr_validate.c). */
psl_status psl_csr_check_header(const char *file, const psl_matrix *A);
psl_status psl_csr_validate(const char *file, const psl_matrix *A);

/* psl_format_ops.cuda_upload, _download, _workspace (src/kernels/cuda:
 * dmatrix.cu, download.cu, spmv_csr.cu). */
psl_status psl_cuda_csr_upload(psl_dmatrix *d, const psl_matrix *A, struct CUstream_st *stream);
psl_status psl_cuda_csr_download(psl_matrix *A, const psl_dmatrix *d,
                                 struct CUstream_st *stream);
psl_status psl_cuda_csr_workspace(const psl_dmatrix *d, psl_scalar vec_type, size_t *bytes);

/* psl_format_ops.cuda_spmv (csr_cuda.cu). */
psl_status psl_csr_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                              void *y, psl_scalar vec_type, void *workspace,
                              struct CUstream_st *stream);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_CSR_H */
