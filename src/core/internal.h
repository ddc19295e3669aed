/*
 * internal.h -- the matrix object, error reporting and allocation helpers
 * shared by every source file of libpacksell (never installed).
 */
#ifndef PSL_INTERNAL_H
#define PSL_INTERNAL_H

#include "packsell.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PSL_MATRIX_MAGIC 0x4d4c53505053ULL /* "PSPSLM" */
#define PSL_DEAD_MAGIC 0xdeaddeaddeadULL

/*
 * One matrix in one format. Arrays are owned by the handle, but for a
 * view's CSR arrays (borrowed).
 *
 * CSR:      row_ptr[nrows+1], col_idx[nnz], values[nnz] of value_type
 *           (FP64 or FP32); rows in original order, columns ascending,
 *           no duplicates.
 * SELL:     nslices = ceil(nrows/C) slices of C lanes; slice k holds
 *           slice_ptr[k+1]-slice_ptr[k] = width_k*C entries, entry j of lane
 *           l at slice_ptr[k] + j*C + l. sell_col[] (int32, -1 = padding) and
 *           sell_val[] (value_type: FP64/FP32/FP16/BF16 raw bits, 0 for
 *           padding). Lanes >= nrows in the last slice are all padding.
 * PackSELL: same slicing over words[] (uint32). kleft stored; the start
 *           column of every row of sigma-block b is
 *           psl_block_start_col(b*sigma, kleft, ncols) (word.h).
 * perm:     SELL/PackSELL, nrows entries of perm_bytes (1, 2 or 4) each:
 *           stored row i holds original row (i/sigma)*sigma + perm[i].
 *           sigma == 0 means no sorting: perm is NULL, perm_bytes 0 and
 *           stored row i is original row i.
 * CSR-k:    row_ptr, col_idx, values exactly as CSR (value_type FP64, FP32
 *           or FP16); C = k (1, 2, 3), nslices = super-rows nsr (k >= 2;
 *           0 for k = 1), sigma = super-super-rows nssr (k = 3, else 0);
 *           payload = one int32 array: sr_ptr[nsr+1] (super-row -> first
 *           row) then, for k = 3, ssr_ptr[nssr+1] (super-super-row -> first
 *           super-row); NULL for k = 1. With a locality reordering
 *           (perm_bytes 4) the CSR arrays are those of P A P^T and the
 *           payload goes on with perm[nrows] and its inverse
 *           (format/csrk/csrk.h); A->perm stays NULL.
 * d-block:  PackSELL start columns are uniform within blocks of
 *           psl_dblock(A) = sigma (or C when sigma == 0) stored rows.
 */
struct psl_matrix {
    uint64_t magic;
    psl_format format;
    int32_t nrows, ncols;
    int64_t nnz;
    psl_scalar value_type; /* CSR and SELL storage type */

    /* CSR */
    int64_t *row_ptr;
    int32_t *col_idx;
    void *values;
    bool borrowed; /* row_ptr, col_idx and values are the caller's (a CSR-k
                      view, psl_matrix_create_csrk_view): never written,
                      and psl_matrix_destroy leaves them */

    /* SELL and PackSELL */
    int32_t C, sigma;
    psl_permute permute;
    int32_t nslices;
    int64_t *slice_ptr; /* nslices+1 */
    int perm_bytes;
    void *perm;         /* nrows entries */

    /* SELL */
    int32_t *sell_col;
    void *sell_val;

    /* PackSELL */
    psl_codec codec;
    int32_t delta_bits;
    int64_t kleft;
    uint32_t *words;

    /* Data of a format whose arrays are none of the above, owned by the
     * handle: its psl_format_ops.release frees it (format/format_ops.h). */
    void *payload;

    /* SELL and PackSELL, CPU kernels: which SIMD blocks have consecutive
     * columns at every position, built at the first SIMD product
     * (kernels/cpu/slice_runs.c; NULL until then); read and published with
     * __atomic builtins, freed with the matrix. */
    uint8_t *cpu_runs;

    /* statistics filled at build time */
    int64_t stored, padding, dummies, underflows;
    int64_t sell_equiv_bytes, csr_equiv_bytes;
    int32_t max_row_nnz;
    double rsd;
};

/* ---- errors: set the thread's last error and return its status ---- */
psl_status psl_error(psl_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Same with line / row / col fields (-1 where not applicable). */
psl_status psl_error_at(psl_status st, int64_t line, int64_t row, int64_t col,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* Clear the thread's last error (called at the start of public entry points
 * is not required; only failures write it). */
void psl_error_clear(void);

/* Propagate a status: `PSL_TRY(expr);` returns the status when it fails. */
#define PSL_TRY(expr)                       \
    do {                                    \
        psl_status psl_try_st_ = (expr);   \
        if (psl_try_st_ != PSL_OK)          \
            return psl_try_st_;             \
    } while (0)

/* Monotonic wall-clock time in seconds (clock.c). */
double psl_wall_seconds(void);

/* Rows (or entries) below which loops stay serial: thread start-up costs more. */
#define PSL_PAR_MIN 4096

/* ---- allocation: sizes checked for overflow; NULL on failure ---- */
void *psl_malloc(size_t nmemb, size_t size);
void *psl_calloc(size_t nmemb, size_t size);
/* Allocate or fail with PSL_ERR_OUT_OF_MEMORY (and message naming what). */
/* PSL_ERR_OUT_OF_MEMORY with the estimate when `bytes` (the memory a request
 * will need in all) exceed the memory available now or PSL_MEMORY_LIMIT;
 * PSL_OK when they fit, when the amount available is unknown or not asked
 * for (PSL_MEMORY_CHECK=0) and no limit is set (core/memory.c).
 * `what` names the request ("gen:hpcg:10:10:10", "a 10^9 x 10^9 matrix"). */
psl_status psl_memory_check(double bytes, const char *what);

psl_status psl_alloc(void **out, size_t nmemb, size_t size, const char *what);
/* The same, zeroed. */
psl_status psl_alloc_zero(void **out, size_t nmemb, size_t size, const char *what);

/* ---- matrix object ---- */
/* A zeroed matrix with the magic set, or NULL. */
psl_matrix *psl_matrix_new(psl_format format, int32_t nrows, int32_t ncols);
/* Check a handle: PSL_ERR_NULL_POINTER / PSL_ERR_INVALID_HANDLE. */
psl_status psl_matrix_check(const psl_matrix *A);
/* Check that A is a valid FP64 CSR handle: PSL_ERR_NULL_POINTER,
 * PSL_ERR_INVALID_HANDLE, or PSL_ERR_WRONG_FORMAT naming `who` (the public
 * call) and A's format and type. */
psl_status psl_matrix_check_fp64_csr(const psl_matrix *A, const char *who);
/* Display names for messages and traces (names.c): "FP64", "FP32", "FP16",
 * "BF16" ("unknown type" if invalid); "CSR", "SELL", "PackSELL" ("?"). The
 * lowercase names are public: psl_scalar_name, psl_format_name. */
const char *psl_scalar_display(psl_scalar t);
const char *psl_format_display(psl_format f);
/* Size in bytes of one stored value / vector element of a scalar type. */
size_t psl_scalar_size(psl_scalar t);
/* Smallest unsigned width (1, 2, 4) holding sigma-1. */
int psl_perm_bytes_for_sigma(int32_t sigma);
/* perm[i] of a matrix, whatever its width. */
static inline int32_t psl_perm_get(const psl_matrix *A, int64_t i)
{
    switch (A->perm_bytes) {
    case 1: return ((const uint8_t *)A->perm)[i];
    case 2: return ((const uint16_t *)A->perm)[i];
    default: return (int32_t)((const uint32_t *)A->perm)[i];
    }
}
/* Rows per block of uniform PackSELL start column (sigma, or C if 0). */
static inline int32_t psl_dblock(const psl_matrix *A) { return A->sigma ? A->sigma : A->C; }
/* Print a trace line to stderr when the option PSL_TRACE is 1 (options.h). */
void psl_trace(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif /* PSL_INTERNAL_H */
