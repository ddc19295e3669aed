/*
 * build.h -- internal helpers shared by the format converters (convert.c,
 * sell_build.c, packsell_build.c) and the decoder (decode.c): rounding one
 * double to a stored scalar type, sigma-sorting, slice offsets, and the
 * builders themselves.
 */
#ifndef PSL_FORMAT_BUILD_H
#define PSL_FORMAT_BUILD_H

#include "codec/codec.h"
#include "format/word.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Rows (or entries) below which loops stay serial: thread start-up costs more. */
#define PSL_PAR_MIN 4096

/* Round v to storage type t (FP64: its own bits; FP32: C cast, round to
 * nearest even; FP16/BF16: the codec) and return the raw bits right-aligned
 * in *bits. Returns PSL_OK, PSL_ERR_NONFINITE or PSL_ERR_CODEC_OVERFLOW
 * without touching the thread's error record (hot loops). *underflow is set
 * when a nonzero v became +-0. */
static inline psl_status psl_round_scalar(psl_scalar t, psl_overflow policy, double v,
                                          uint64_t *bits, int *underflow)
{
    *underflow = 0;
    if (!isfinite(v))
        return PSL_ERR_NONFINITE;
    switch (t) {
    case PSL_FP64: {
        memcpy(bits, &v, sizeof v);
        return PSL_OK;
    }
    case PSL_FP32: {
        /* |v| >= FLT_MAX + ulp/2 rounds to Inf; the cast is only done in range */
        float f;
        if (fabs(v) >= 0x1.ffffffp127) {
            if (policy != PSL_OVERFLOW_SATURATE)
                return PSL_ERR_CODEC_OVERFLOW;
            f = v > 0 ? FLT_MAX : -FLT_MAX;
        } else {
            f = (float)v;
        }
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        *bits = u;
        *underflow = v != 0.0 && f == 0.0f;
        return PSL_OK;
    }
    case PSL_FP16:
    case PSL_BF16: {
        uint32_t b = 0;
        psl_status st = psl_codec_encode_raw(t == PSL_FP16 ? PSL_CODEC_FP16 : PSL_CODEC_BF16,
                                             policy, v, &b);
        if (st != PSL_OK)
            return st;
        *bits = b;
        *underflow = v != 0.0 && (b & 0x7fffu) == 0;
        return PSL_OK;
    }
    }
    return PSL_ERR_INTERNAL;
}

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

/* Short name of a scalar type ("FP64", ...). */
const char *psl_scalar_name(psl_scalar t);

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

/* The common part of a SELL / PackSELL build on a handle with nrows, C,
 * sigma set: sigma order of the rows by len[] (original row lengths, in
 * entries or words), A->perm, A->nslices, A->slice_ptr and A->stored. On
 * success *order (stored row -> original row, nrows entries) is the caller's
 * to free. */
psl_status psl_build_slicing(psl_matrix *A, const int64_t *len, int32_t **order);

/* Builders called by psl_matrix_convert once src and opt are validated.
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
