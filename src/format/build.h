/*
 * build.h -- internal helpers shared by the format converters (convert.c,
 * sell/sell_build.c, packsell/packsell_build.c) and the decoders: rounding
 * one double to a stored scalar type, sigma-sorting, slice offsets
 * (sliced/sigma_sort.c), and the sliced builders themselves.
 */
#ifndef PSL_FORMAT_BUILD_H
#define PSL_FORMAT_BUILD_H

#include "codec/codec.h"
#include "codec/encode.h"
#include "format/word.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Check the options of a conversion that matter for opt->format (also used
 * by the device conversion, psl_dmatrix_convert). */
psl_status psl_convert_check_options(const psl_convert_options *opt);

/* psl_round_scalar (one double to a stored scalar type): codec/encode.h. */

/* Store raw bits (from psl_round_scalar) as element k of an array of type t. */
static inline void psl_store_scalar(void *arr, psl_scalar t, int64_t k, uint64_t bits)
{
    switch (t) {
    case PSL_FP64: ((uint64_t *)arr)[k] = bits; break;
    case PSL_FP32: ((uint32_t *)arr)[k] = (uint32_t)bits; break;
    case PSL_FP16:
    case PSL_BF16: ((uint16_t *)arr)[k] = (uint16_t)bits; break;
    }
}

/* Row of CSR entry k: the row i with row_ptr[i] <= k < row_ptr[i+1]
 * (binary search; k < row_ptr[nrows]). */
static inline int64_t psl_row_of_entry(const int64_t *row_ptr, int64_t nrows, int64_t k)
{
    int64_t lo = 0, hi = nrows - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (row_ptr[mid] <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Exact double value of element k of an array of stored type t. */
double psl_load_scalar(const void *arr, psl_scalar t, int64_t k);

/* Error for a failed value rounding of CSR entry (row, col) with value v;
 * target names the type or codec ("FP16", "e8m10"). */
psl_status psl_round_error(psl_status st, int64_t row, int64_t col, double v,
                           const char *target);

/* sigma-sorting (sigma_sort.c). order[i] receives the original row of stored
 * row i: within each block of sigma rows (the last may be short) the rows are
 * stably sorted by descending len[] (ties keep their original order).
 * sigma == 0: identity. Deterministic, parallel over blocks. */
psl_status psl_sigma_order(int32_t nrows, int32_t sigma, const int64_t *len, int32_t *order);

/* The perm array of a handle from order[]: perm[i] = order[i] - (i/sigma)*sigma
 * in elements of psl_perm_bytes_for_sigma(sigma) bytes. Sets A->perm and
 * A->perm_bytes (NULL / 0 for sigma == 0). */
psl_status psl_set_perm(psl_matrix *A, const int32_t *order);

/* Slice offsets of nslices = ceil(nrows/C) slices of C lanes: slice k is as
 * wide as its longest stored row len[order[i]] (order NULL: identity).
 * slice_ptr has nslices+1 entries. PSL_ERR_SIZE_OVERFLOW when the total does
 * not fit int64. */
psl_status psl_slice_offsets(int32_t nrows, int32_t C, const int64_t *len, const int32_t *order,
                             int64_t *slice_ptr);

/* A new SELL or PackSELL handle (format f) for src under opt: sizes, nnz,
 * slice height, sigma and permutation mode set; the rest is the builder's.
 * PSL_ERR_OUT_OF_MEMORY without a handle. */
psl_status psl_sliced_new(psl_matrix **A, psl_format f, const psl_matrix *src,
                          const psl_convert_options *opt);

/* The common part of a SELL / PackSELL build on a handle with nrows, C,
 * sigma set: sigma order of the rows by len[] (original row lengths, in
 * entries or words), A->perm, A->nslices, A->slice_ptr and A->stored. On
 * success *order (stored row -> original row, nrows entries) is the caller's
 * to free. entry_bytes > 0: the bytes of one stored entry (or word), and the
 * stored arrays the caller will allocate (padding included: a tall slice
 * over rows of very different lengths multiplies them) go through
 * psl_memory_check first; 0 (a dry run): no check. */
psl_status psl_build_slicing(psl_matrix *A, const int64_t *len, double entry_bytes,
                             int32_t **order);

/* Fill of one slice k of A from the CSR src (stored row -> original row in
 * order), rounding values by policy: the smallest entry index of src that
 * failed to round (INT64_MAX: none); underflows are added to *under. */
typedef int64_t (*psl_slice_fill)(psl_matrix *A, const psl_matrix *src, const int32_t *order,
                                  int64_t k, psl_overflow policy, int64_t *under);
/* fill over every slice of A, in parallel when A is large: the smallest
 * failing entry index of all (INT64_MAX: none), underflows in *under. */
int64_t psl_fill_slices(psl_matrix *A, const psl_matrix *src, const int32_t *order,
                        psl_overflow policy, psl_slice_fill fill, int64_t *under);

/* Builders called by psl_matrix_convert (through the table of formats) and
 * by the chooser once src and opt are validated.
 * dry: lay out the slices and count (stored, padding, dummies, bytes) but
 * allocate and fill no value/column/word arrays -- the handle is then only
 * good for psl_matrix_get_info (psl_matrix_estimate). */
psl_status psl_sell_build(psl_matrix **out, const psl_matrix *src, const psl_convert_options *opt,
                          bool dry);
psl_status psl_packsell_build(psl_matrix **out, const psl_matrix *src,
                              const psl_convert_options *opt, bool dry);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_BUILD_H */
