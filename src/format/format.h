/*
 * format.h -- internal entry points of the format builders, shared by the
 * readers and generators that produce CSR and by the converters (the table
 * of formats is in format_ops.h).
 */
#ifndef PSL_FORMAT_H
#define PSL_FORMAT_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True for an FP64 CSR matrix: the form every reader and generator
 * produces, the source of every conversion and the result of decoding. */
static inline bool psl_matrix_is_fp64_csr(const psl_matrix *A)
{
    return A->format == PSL_FORMAT_CSR && A->value_type == PSL_FP64;
}

/* Flags of psl_csr_adopt (besides PSL_CSR_STRICT). */
enum {
    /* The caller guarantees sorted, duplicate-free columns in range and
     * finite values (generators): only O(nnz) parallel checks are skipped. */
    PSL_CSR_TRUSTED = 1u << 8
};

/* Build an FP64 CSR matrix that takes ownership of three malloc'd, 0-based
 * arrays (row_ptr: nrows+1, col_idx and values: row_ptr[nrows]). The arrays
 * are validated (columns in range, finite values), each row's columns are
 * sorted and duplicates summed (in input order) unless PSL_CSR_STRICT, and
 * statistics (rsd, kleft, max row) are computed. Ownership passes to the
 * function in every case: on failure the arrays are freed. Error messages
 * name 0-based rows and columns. */
psl_status psl_csr_adopt(psl_matrix **A, int32_t nrows, int32_t ncols, int64_t *row_ptr,
                         int32_t *col_idx, double *values, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_H */
