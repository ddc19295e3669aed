/*
 * format_ops.h -- the table of formats: what every storage format supplies
 * (build, decode, queries, binary-file arrays and checks, kernel entries),
 * one psl_format_ops per format in src/format/<name>/<name>_ops.c, listed in
 * src/format/registry.c. Generic code (convert, decode, info, SpMV dispatch,
 * binary files) goes through psl_format_ops_of instead of switching on the
 * format.
 *
 * Adding a format:
 *   1. its value in enum psl_format (include/packsell.h);
 *   2. a folder src/format/<name>/ with its build, decode, validation,
 *      statistics and a <name>_ops.c defining `const psl_format_ops
 *      psl_<name>_ops` (every entry filled but estimate, reorder_perm and
 *      release, see below). Arrays that are none of struct psl_matrix's
 *      go in a struct of the folder's own behind A->payload (freed by
 *      release); new binary-file array ids take the next free number
 *      (io/binfile_format.h lists the taken ones); CMake compiles every
 *      src/format/<name>/ itself (its .c files, and its .cu files in a
 *      CUDA build);
 *   3. one line `X(PSL_FORMAT_<NAME>, psl_<name>_ops)` in registry.c.
 * The device side goes through the table for SpMV, upload, download and
 * workspace (cuda_*, NULL for a format without a device form); the device
 * build from a device CSR matrix (src/kernels/cuda/convert*.cu) makes SELL
 * and PackSELL only.
 */
#ifndef PSL_FORMAT_OPS_H
#define PSL_FORMAT_OPS_H

#include "internal.h"
#include "kernels/kernels.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct psl_bin_array; /* io/binfile_format.h */
struct CUstream_st;   /* cudaStream_t */

/* The device SpMV of a format (the arguments of psl_dspmv, checked by it).
 * The launchers' extern "C" entries live in each format's <name>_cuda.cu. */
typedef psl_status (*psl_cuda_spmv_fn)(const psl_dmatrix *dA, double alpha, const void *x,
                                       double beta, void *y, psl_scalar vec_type,
                                       void *workspace, struct CUstream_st *stream);

/* Device copies of a format: fill the arrays and kernel parameters of d
 * (made by psl_dmatrix_new, freed by the caller on error) from A on the
 * stream; fill the arrays and format fields of A (made by
 * psl_dmatrix_download with the common fields set) from d, synchronously.
 * Defined in src/kernels/cuda/. */
typedef psl_status (*psl_cuda_upload_fn)(psl_dmatrix *d, const psl_matrix *A,
                                         struct CUstream_st *stream);
typedef psl_status (*psl_cuda_download_fn)(psl_matrix *A, const psl_dmatrix *d,
                                           struct CUstream_st *stream);
/* Device workspace bytes psl_dspmv needs for d and vec_type (checked). */
typedef psl_status (*psl_cuda_workspace_fn)(const psl_dmatrix *d, psl_scalar vec_type,
                                            size_t *bytes);

/* The device entry of a format's table: the function in a CUDA build, NULL
 * otherwise (psl_dspmv then never runs). */
#ifdef PSL_HAVE_CUDA
#define PSL_CUDA_ENTRY(fn) (fn)
#else
#define PSL_CUDA_ENTRY(fn) NULL
#endif

typedef struct psl_format_ops {
    psl_format format;
    const char *name; /* "CSR", "SELL", "PackSELL": messages and traces */
    const char *id;   /* "csr", "sell", "packsell": psl_format_name, parsing */

    /* ---- conversion from an FP64 CSR matrix (psl_matrix_convert) */
    /* Check the options that matter for this format (opt->overflow is
     * already checked): errors name the option and the accepted values. */
    psl_status (*check_options)(const psl_convert_options *opt);
    /* Build from src under checked opt; dry: lay out and count only, no
     * value arrays (a handle only good for psl_matrix_get_info). */
    psl_status (*build)(psl_matrix **out, const psl_matrix *src,
                        const psl_convert_options *opt, bool dry);
    /* psl_matrix_estimate without a dry build, or NULL (then build dry). */
    psl_status (*estimate)(const psl_matrix *src, const psl_convert_options *opt,
                           psl_matrix_info *info);

    /* ---- decoding (psl_matrix_to_csr) */
    /* Stored row i: the number of entries, and when ci/v are not NULL the
     * entries in stored order (columns clamped to int32, values exact). */
    int64_t (*walk_row)(const psl_matrix *A, int64_t i, int32_t *ci, double *v);

    /* ---- queries */
    /* info->bytes, sell_bytes and csr_bytes of A (the rest is generic). */
    void (*info_bytes)(const psl_matrix *A, psl_matrix_info *info);
    /* "SELL fp16", "PackSELL e8m10", ... into buf. */
    void (*describe)(const psl_matrix *A, char *buf, size_t len);

    /* ---- binary file (src/io/binfile_*.c) */
    /* The arrays of A in file order, from its scalar fields; the count. */
    int (*bin_arrays)(const psl_matrix *A, struct psl_bin_array *list);
    /* Make A own p as the array with the given id (one of bin_arrays'). */
    void (*bin_adopt)(psl_matrix *A, uint32_t id, void *p);
    /* The header fields of this format, on their own and together (no array
     * read yet); file names the source in messages. */
    psl_status (*check_header)(const char *file, const psl_matrix *A);
    /* Every invariant of the loaded arrays the kernels, decoders and info
     * rely on (PSL_ERR_FILE_CORRUPT naming the first bad item). */
    psl_status (*validate)(const char *file, const psl_matrix *A);

    /* ---- SpMV kernels per backend: NULL when there is none for A */
    psl_spmv_fn (*ref_select)(const psl_matrix *A, psl_scalar vec_type);
    psl_spmv_fn (*omp_select)(const psl_matrix *A, psl_scalar vec_type);
    bool omp_isa; /* the omp kernels follow psl_cpu_isa (for the trace) */
    psl_cuda_spmv_fn cuda_spmv;
    /* ---- the device form (psl_dmatrix_upload, _download,
     * psl_dspmv_workspace_size): all NULL for a format without one */
    psl_cuda_upload_fn cuda_upload;
    psl_cuda_download_fn cuda_download;
    psl_cuda_workspace_fn cuda_workspace;

    /* ---- a numbering of the format's own (CSR-k's locality reordering):
     * stored row and column i are the caller's perm[i] (nrows int32), or
     * NULL when A keeps the caller's numbering (SELL's sigma permutation of
     * the rows alone is A->perm, which the kernels follow). psl_spmv
     * gathers x and scatters y through it, psl_matrix_to_csr and
     * psl_matrix_row_order follow it. A NULL entry: the format never has
     * one. */
    const int32_t *(*reorder_perm)(const psl_matrix *A);

    /* ---- a format's own data: free A->payload (called by
     * psl_matrix_destroy when it is set), or NULL when the format keeps its
     * arrays in the common fields of struct psl_matrix */
    void (*release)(psl_matrix *A);
} psl_format_ops;

/* The table entry of format f, or NULL for a value that is no format. */
const psl_format_ops *psl_format_ops_of(psl_format f);
/* Number of entries of the table: the formats are 0 .. count-1. */
int psl_format_count(void);
/* The format's reorder_perm of A (valid handle), or NULL. */
const int32_t *psl_format_reorder_perm(const psl_matrix *A);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_OPS_H */
