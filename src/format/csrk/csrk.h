/*
 * csrk.h -- the entries of CSR-k that its folder's files share: the layout
 * of its pointer arrays behind A->payload (see core/internal.h), the
 * grouping, the tuning model's table, the device entries and the table
 * entry psl_csrk_ops (csrk_ops.c).
 */
#ifndef PSL_FORMAT_CSRK_H
#define PSL_FORMAT_CSRK_H

#include "format/format_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const psl_format_ops psl_csrk_ops;

/* Levels of a CSR-k matrix (C holds k), its super-rows (nslices) and
 * super-super-rows (sigma). */
static inline int32_t psl_csrk_levels(const psl_matrix *A) { return A->C; }
static inline int32_t psl_csrk_nsr(const psl_matrix *A) { return A->nslices; }
static inline int32_t psl_csrk_nssr(const psl_matrix *A) { return A->sigma; }
/* sr_ptr (nsr+1 entries; NULL for k = 1) and ssr_ptr (nssr+1; NULL unless
 * k = 3): one int32 array behind payload. */
static inline const int32_t *psl_csrk_sr_ptr(const psl_matrix *A)
{
    return A->C >= 2 ? (const int32_t *)A->payload : NULL;
}
static inline const int32_t *psl_csrk_ssr_ptr(const psl_matrix *A)
{
    return A->C == 3 ? (const int32_t *)A->payload + A->nslices + 1 : NULL;
}
/* Entries of the payload array for k, nsr, nssr. */
static inline int64_t psl_csrk_ptr_count(int32_t k, int32_t nsr, int32_t nssr)
{
    return (k >= 2 ? (int64_t)nsr + 1 : 0) + (k == 3 ? (int64_t)nssr + 1 : 0);
}

/* A locality reordering (csrk_reorder) is marked by perm_bytes 4 (as in the
 * binary file's header) and kept after the pointer arrays in the payload:
 * perm[nrows] (stored row and column -> the caller's) then its inverse
 * inv[nrows]; without one both are NULL. */
static inline bool psl_csrk_reordered(const psl_matrix *A) { return A->perm_bytes == 4; }
static inline const int32_t *psl_csrk_perm(const psl_matrix *A)
{
    return psl_csrk_reordered(A)
               ? (const int32_t *)A->payload + psl_csrk_ptr_count(A->C, A->nslices, A->sigma)
               : NULL;
}
static inline const int32_t *psl_csrk_inv(const psl_matrix *A)
{
    return psl_csrk_reordered(A) ? psl_csrk_perm(A) + A->nrows : NULL;
}
/* Entries of the whole payload: pointer arrays, then perm and inv. */
static inline int64_t psl_csrk_payload_count(const psl_matrix *A)
{
    return psl_csrk_ptr_count(A->C, A->nslices, A->sigma) +
           (psl_csrk_reordered(A) ? 2 * (int64_t)A->nrows : 0);
}

/* The locality reordering `how` (RCM or band-k; csrk_reorder.c) of the
 * square pattern n x n (row_ptr, col_idx), whose rows the CSR-k build groups
 * with k levels of sizes sr and ssr: perm[new] = old into perm (n entries).
 * For band-k also the grouping of the reordered rows -- *ptr in the payload
 * layout (the caller's to free; NULL for one level), *nsr, *nssr and the
 * levels kept *k_out, as psl_csrk_pointers gives them; for RCM *ptr is NULL
 * and *k_out 0 (the build groups the reordered rows itself). */
psl_status psl_csrk_reorder_perm(psl_csrk_reorder how, int32_t n, const int64_t *row_ptr,
                                 const int32_t *col_idx, int32_t k, int32_t sr, int32_t ssr,
                                 int32_t *perm, int32_t **ptr, int32_t *nsr, int32_t *nssr,
                                 int32_t *k_out);
/* "none", "rcm", "bandk" ("?" for a value outside the enum). */
const char *psl_csrk_reorder_name(psl_csrk_reorder how);

/* Greedy grouping of n items (rows or super-rows) whose nonzeros are
 * cum[i+1] - cum[i] (cum non-decreasing, n+1 entries): a group takes items
 * until it holds its share, size x total / n nonzeros (total = cum[n] -
 * cum[0]); without nonzeros, groups of size items. first[g] receives the
 * first item of group g and first[ngroups] = n (first has n + 1 entries).
 * Linear time. Returns the number of groups (0 for n = 0). */
int32_t psl_csrk_group(int32_t n, const int64_t *cum, int32_t size, int32_t *first);

/* One row of the tuning model of a device kind: for d = nnz/rows up to
 * d_max, rows per super-row round(sr_a - sr_b ln d) and super-rows per
 * super-super-row round(ssr_a - ssr_b ln d); for the GPU kernel the thread
 * block of that range: lanes threads per row (1: a thread a row, else a
 * power of two up to 32), block_rows threads over the rows of a super-row
 * and block_srs over the super-rows of a super-super-row; or lanes 0: the
 * stream kernel, a block of block_rows x block_srs threads that loads each
 * super-row's entries together (src/kernels/cuda/spmv_csrk.cu). All 1 on
 * the CPU, which has no blocks. */
typedef struct psl_csrk_fit {
    double d_max;
    double sr_a, sr_b, ssr_a, ssr_b;
    int32_t lanes, block_rows, block_srs;
} psl_csrk_fit;

/* The table of device kind dev (ending with a row of d_max = +Inf), its
 * row count in *n; NULL for an unknown kind (csrk_model.c). */
const psl_csrk_fit *psl_csrk_model_table(psl_csrk_device dev, int *n);
/* The row of dev's table for d = mean_row_nnz (d <= 1 counts as 1; the
 * caller checked dev and d). */
const psl_csrk_fit *psl_csrk_model_fit(psl_csrk_device dev, double mean_row_nnz);

/* ---- saved fits (csrk_fit_file.c): the file format, its checks, reader
 * and writer; csrk_model.c installs what they read. */

/* Device kinds a fit file names (cpu, cuda). */
#define PSL_CSRK_DEVICES 2
/* Most threads of a CUDA block of the model: the kernels'
 * PSL_CSRK_BLOCK_MAX and, for lanes 0, the stream kernel's
 * PSL_CSRK_STREAM_BLOCK_MAX (kernels/cuda/dmatrix.cuh); a block is whole
 * warps. */
#define PSL_CSRK_FIT_THREADS_MAX 512
#define PSL_CSRK_FIT_STREAM_THREADS_MAX 256
#define PSL_CSRK_FIT_WARP 32

/* The tables of a fit file: rows[dev][0 .. n[dev]) for each device kind
 * (n = 0: the file has no row of that kind). */
typedef struct psl_csrk_fit_tables {
    psl_csrk_fit rows[PSL_CSRK_DEVICES][PSL_CSRK_MODEL_ROWS_MAX];
    int n[PSL_CSRK_DEVICES];
} psl_csrk_fit_tables;

/* Check a whole table of dev: 1..PSL_CSRK_MODEL_ROWS_MAX rows, each valid
 * after the one before (psl_csrk_fit_row_problem), the last one's d_max
 * +Inf. PSL_ERR_INVALID_VALUE naming `who` and the row otherwise. */
psl_status psl_csrk_fit_check(psl_csrk_device dev, const psl_csrk_fit *rows, int n,
                              const char *who);
/* Why row r cannot follow a row ending at prev_d_max (0 for the first) in
 * a table of dev, written into buf; NULL when it can. */
const char *psl_csrk_fit_row_problem(psl_csrk_device dev, const psl_csrk_fit *r,
                                     double prev_d_max, char *buf, size_t len);
/* Parse the text of a fit file (len bytes, name for the messages) into
 * *out. Errors (PSL_ERR_PARSE for the syntax, PSL_ERR_FILE_VERSION for
 * another version, PSL_ERR_INVALID_VALUE for values) say "name:line: ..."
 * and set the error's line; *out is then unspecified. */
psl_status psl_csrk_fit_parse(const char *name, const char *text, size_t len,
                              psl_csrk_fit_tables *out);
/* Read and parse the file at path (at most PSL_CSRK_FIT_FILE_MAX bytes). */
#define PSL_CSRK_FIT_FILE_MAX (1 << 20)
psl_status psl_csrk_fit_read(const char *path, psl_csrk_fit_tables *out);
/* Write a fit file of dev's table (checked first) to path through the
 * library's output (a temporary renamed over path): the header line, the
 * comment's lines as "# " comments, a line naming the columns, then the
 * rows with numbers that read back to the same doubles. */
psl_status psl_csrk_fit_write(const char *path, psl_csrk_device dev, const psl_csrk_fit *rows,
                              int n, const char *comment);

/* The pointer array of up to k levels over the n+1 row offsets row_ptr,
 * with rows per super-row sr and super-rows per super-super-row ssr
 * (psl_csrk_group at each level): *out (NULL for one level; the caller's
 * to free), *nsr, *nssr, and in *k_out the levels kept -- a level of one
 * group says nothing its parent does not and is left implicit (k = 3 with
 * one super-super-row is stored as k = 2, one super-row as k = 1). The
 * layout of A->payload (psl_csrk_sr_ptr, psl_csrk_ssr_ptr). Used by the
 * build (the CPU's grouping) and the device upload (the GPU's). */
psl_status psl_csrk_pointers(int32_t n, const int64_t *row_ptr, int32_t k, int32_t sr,
                             int32_t ssr, int32_t **out, int32_t *nsr, int32_t *nssr,
                             int32_t *k_out);

/* The sizes of the device grouping psl_dmatrix_upload makes of a matrix of
 * k levels, nrows rows and nnz entries (both > 0): the CUDA model's, or the
 * options PSL_CUDA_CSRK_SR_ROWS / _SSR_SRS where set (csrk_model.c). */
psl_status psl_csrk_device_sizes(int32_t k, int32_t nrows, int64_t nnz, int32_t *sr,
                                 int32_t *ssr);

/* psl_matrix_info.csrk_device_overhead_bytes of a CSR-k matrix of k levels
 * over row_ptr whose own pointer arrays take extra bytes: the bytes
 * psl_cuda_csrk_upload adds to the CSR arrays, extra and, for a matrix
 * with entries, the device grouping (counted, psl_csrk_count); a
 * reordering's perm and inverse go up too and are counted apart, as on the
 * host (csrk_perm_bytes); -1 without a model (csrk_build.c). */
int64_t psl_csrk_device_overhead(int32_t k, int32_t nrows, int32_t ncols, int64_t nnz,
                                 const int64_t *row_ptr, int64_t extra);

/* The counts psl_csrk_pointers gives (*nsr, *nssr, *k_out), without the
 * arrays: two passes over row_ptr, no memory. For the device form's
 * overhead in psl_matrix_info (csrk_ops.c). */
void psl_csrk_count(int32_t n, const int64_t *row_ptr, int32_t k, int32_t sr, int32_t ssr,
                    int32_t *nsr, int32_t *nssr, int32_t *k_out);

/* The device form (psl_format_ops.cuda_*; src/format/csrk/csrk_cuda.cu,
 * kernel in src/kernels/cuda/spmv_csrk.cu). */
struct CUstream_st;
psl_status psl_csrk_cuda_entry(const psl_dmatrix *dA, double alpha, const void *x, double beta,
                               void *y, psl_scalar vec_type, void *workspace,
                               struct CUstream_st *stream);
psl_status psl_cuda_csrk_upload(psl_dmatrix *d, const psl_matrix *A, struct CUstream_st *stream);
psl_status psl_cuda_csrk_download(psl_matrix *A, const psl_dmatrix *d,
                                  struct CUstream_st *stream);
psl_status psl_cuda_csrk_workspace(const psl_dmatrix *d, psl_scalar vec_type, size_t *bytes);

/* psl_format_ops.build and .estimate (csrk_build.c) and .check_header / .validate
 * (csrk_validate.c). */
psl_status psl_csrk_build(psl_matrix **out, const psl_matrix *src,
                          const psl_convert_options *opt, bool dry);
/* psl_format_ops.estimate: the build's statistics from the source's row
 * pointers alone (psl_csrk_count: no memory, but for a reordering's). */
psl_status psl_csrk_estimate(const psl_matrix *src, const psl_convert_options *opt,
                             psl_matrix_info *info);
psl_status psl_csrk_check_header(const char *file, const psl_matrix *A);
psl_status psl_csrk_validate(const char *file, const psl_matrix *A);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_CSRK_H */
