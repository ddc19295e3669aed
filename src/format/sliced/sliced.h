/*
 * sliced.h -- what SELL-C-sigma and PackSELL share beyond their builders
 * (whose common steps are in format/build.h): the slicing options, the
 * slice offsets and row permutation in the binary file and in the byte
 * counts, and the checks of a loaded sliced matrix.
 */
#ifndef PSL_FORMAT_SLICED_H
#define PSL_FORMAT_SLICED_H

#include "format/validate.h"
#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

struct psl_bin_array;

/* Check the slice height, sigma and permutation mode of a conversion. */
psl_status psl_sliced_check_options(const psl_convert_options *opt);

/* Bytes of the slice offsets and (implicit permutation) of the perm array. */
int64_t psl_sliced_overhead_bytes(const psl_matrix *A);

/* The slice_ptr and perm (when sigma > 0) records of A into list; the count. */
int psl_sliced_bin_arrays(const psl_matrix *A, struct psl_bin_array *list);
/* Adopt p as slice_ptr or perm: true when id is one of them. */
bool psl_sliced_bin_adopt(psl_matrix *A, uint32_t id, void *p);

/* The header fields of the slicing: C, sigma, perm_bytes, nslices and
 * nnz + padding + dummies == stored. */
psl_status psl_sliced_check_header(const char *file, const psl_matrix *A);

/* Slice k's offsets: within [0, stored], non-decreasing, a multiple of C
 * (for the formats' slice checks). */
int psl_sliced_check_slice_ptr(const psl_matrix *A, int64_t k, char *msg, size_t len);

/* The loaded arrays of a sliced matrix: slice_ptr's ends, perm a
 * permutation inside each sigma block, every slice by slice_check (which
 * starts with psl_sliced_check_slice_ptr), and the header's counts. */
psl_status psl_sliced_validate(const char *file, const psl_matrix *A,
                               psl_item_check slice_check);

/* The device form of SELL and PackSELL (psl_format_ops.cuda_upload,
 * _download, _workspace; src/kernels/cuda: dmatrix.cu, download.cu,
 * dspmv.cu). C linkage, so the tables of both formats name them. */
#ifdef __cplusplus
extern "C" {
#endif
struct CUstream_st;
psl_status psl_cuda_sliced_upload(psl_dmatrix *d, const psl_matrix *A,
                                  struct CUstream_st *stream);
psl_status psl_cuda_sliced_download(psl_matrix *A, const psl_dmatrix *d,
                                    struct CUstream_st *stream);
psl_status psl_cuda_sliced_workspace(const psl_dmatrix *d, psl_scalar vec_type, size_t *bytes);
#ifdef __cplusplus
}
#endif

#endif /* PSL_FORMAT_SLICED_H */
