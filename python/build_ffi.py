"""build_ffi.py -- writes the C source of packsell's extension module.

Run by python/CMakeLists.txt at build time: `python build_ffi.py OUT.c`.
The declarations below are the part of include/packsell.h the package uses,
in cffi's API mode: the generated C file includes the real header and is
compiled against it, so every prototype here is checked by the C compiler,
and the values of enums and the layout of structs ("...;" / "[...]") are
taken from the header by the compiler, never written here.
"""
import sys

import cffi

CDEF = r"""
typedef enum psl_status {
    PSL_OK, PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE, PSL_ERR_INVALID_HANDLE,
    PSL_ERR_WRONG_FORMAT, PSL_ERR_INVALID_MATRIX, PSL_ERR_NONFINITE, PSL_ERR_CODEC_OVERFLOW,
    PSL_ERR_PARSE, PSL_ERR_UNSUPPORTED, PSL_ERR_FILE_CORRUPT, PSL_ERR_FILE_VERSION,
    PSL_ERR_IO, PSL_ERR_OUT_OF_MEMORY, PSL_ERR_SIZE_OVERFLOW, PSL_ERR_NOT_SUPPORTED,
    PSL_ERR_CUDA, PSL_ERR_NOT_CONVERGED, PSL_ERR_BREAKDOWN, PSL_ERR_INTERNAL, ...
} psl_status;
const char *psl_status_string(psl_status status);
typedef struct psl_error_info {
    psl_status status;
    int64_t line;
    int64_t row;
    int64_t col;
    char message[...];
    ...;
} psl_error_info;
void psl_last_error(psl_error_info *info);
const char *psl_last_error_message(void);
const char *psl_version(void);
void psl_free(void *ptr);

#define PSL_OPTION_VALUE_MAX ...
psl_status psl_option_set(const char *name, const char *value);
psl_status psl_option_get(const char *name, char *buf, size_t len);

typedef enum psl_scalar { PSL_FP64, PSL_FP32, PSL_FP16, PSL_BF16, ... } psl_scalar;
typedef enum psl_format {
    PSL_FORMAT_CSR, PSL_FORMAT_SELL, PSL_FORMAT_PACKSELL, PSL_FORMAT_CSRK, ...
} psl_format;
typedef enum psl_permute { PSL_PERMUTE_IMPLICIT, PSL_PERMUTE_EXPLICIT, ... } psl_permute;
typedef enum psl_overflow { PSL_OVERFLOW_ERROR, PSL_OVERFLOW_SATURATE, ... } psl_overflow;
typedef struct psl_codec { int32_t exp_bits; int32_t man_bits; ...; } psl_codec;

const char *psl_format_name(psl_format format);
psl_status psl_format_parse(const char *name, psl_format *format);
const char *psl_scalar_name(psl_scalar scalar);
psl_status psl_scalar_parse(const char *name, psl_scalar *scalar);
psl_status psl_codec_parse(const char *name, psl_codec *codec);
psl_status psl_codec_name(psl_codec codec, char *buf, size_t buflen);
int32_t psl_codec_delta_bits(psl_codec codec);

typedef struct psl_matrix psl_matrix;
#define PSL_CSR_STRICT ...
#define PSL_SLICE_HEIGHT_MAX ...
psl_status psl_matrix_create_csr(psl_matrix **A, int32_t nrows, int32_t ncols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const void *values, psl_scalar value_type,
                                 int index_base, unsigned flags);
void psl_matrix_destroy(psl_matrix **A);
typedef struct psl_convert_options {
    psl_format format;
    psl_scalar value_type;
    psl_codec codec;
    int32_t slice_height;
    int32_t sigma;
    psl_permute permute;
    psl_overflow overflow;
    int32_t csrk_k;
    int32_t csrk_sr_rows;
    int32_t csrk_ssr_srs;
    int32_t csrk_reorder;
    ...;
} psl_convert_options;
void psl_convert_options_init(psl_convert_options *opt);
psl_status psl_matrix_convert(psl_matrix **out, const psl_matrix *src,
                              const psl_convert_options *opt);
psl_status psl_matrix_to_csr(psl_matrix **out, const psl_matrix *A);
psl_status psl_matrix_csr_view(const psl_matrix *A, const int64_t **row_ptr,
                               const int32_t **col_idx, const double **values);
psl_status psl_matrix_row_order(const psl_matrix *A, int32_t *order);
typedef struct psl_matrix_info {
    psl_format format;
    psl_scalar value_type;
    psl_codec codec;
    int32_t delta_bits;
    int32_t nrows, ncols;
    int64_t nnz;
    int32_t slice_height, sigma;
    psl_permute permute;
    int32_t nslices;
    int32_t max_row_nnz;
    double mean_row_nnz;
    double rsd;
    int64_t kleft;
    int64_t stored;
    int64_t dummies;
    int64_t padding;
    int64_t underflows;
    int64_t bytes;
    int64_t sell_bytes;
    int64_t csr_bytes;
    int32_t csrk_k;
    int32_t csrk_super_rows;
    int32_t csrk_super_super_rows;
    int64_t csrk_overhead_bytes;
    int64_t csrk_perm_bytes;
    int64_t csrk_device_overhead_bytes;
    ...;
} psl_matrix_info;
psl_status psl_matrix_get_info(const psl_matrix *A, psl_matrix_info *info);

typedef enum psl_precision { PSL_PREC_FP16, PSL_PREC_FP32, PSL_PREC_FP64, ... } psl_precision;
typedef struct psl_device_model { char name[...]; ...; } psl_device_model;
psl_status psl_device_model_query(psl_device_model *m, int device, int measure_bandwidth);
typedef struct psl_candidate {
    psl_convert_options opt;
    psl_scalar vec_type;
    char kernel[...];
    double predicted_us;
    ...;
} psl_candidate;
typedef struct psl_choice {
    psl_precision precision;
    psl_convert_options opt;
    psl_scalar vec_type;
    int32_t pick;
    int32_t ncandidates;
    psl_candidate candidates[...];
    ...;
} psl_choice;
psl_status psl_choose_format(const psl_matrix *csr, psl_precision prec,
                             const psl_device_model *model, psl_choice *choice);
typedef struct psl_cpu_model { char name[...]; int32_t threads; double read_gbs; ...; } psl_cpu_model;
psl_status psl_cpu_model_default(psl_cpu_model *m);
psl_status psl_choose_format_cpu(const psl_matrix *csr, psl_precision prec,
                                 const psl_cpu_model *model, psl_choice *choice);

psl_status psl_spmv(double alpha, const psl_matrix *A, const void *x,
                    double beta, void *y, psl_scalar vec_type);
const char *psl_spmv_kernel_name(const psl_matrix *A, psl_scalar vec_type);

psl_status psl_generate(psl_matrix **A, const char *spec);
psl_status psl_mm_write(const psl_matrix *A, const char *path);
psl_status psl_matrix_save(const psl_matrix *A, const char *path);
psl_status psl_matrix_open(psl_matrix **A, const char *source);

psl_status psl_cuda_device_count(int *count);
typedef struct psl_dmatrix psl_dmatrix;
psl_status psl_dmatrix_upload(psl_dmatrix **dA, const psl_matrix *A, void *stream);
typedef struct psl_dcsr {
    int32_t nrows, ncols;
    int64_t nnz;
    const int64_t *row_ptr;
    const int32_t *col_idx;
    const void *values;
    psl_scalar value_type;
    ...;
} psl_dcsr;
psl_status psl_dmatrix_convert(psl_dmatrix **dA, const psl_dcsr *A,
                               const psl_convert_options *opt, void *stream);
psl_status psl_dmatrix_download(psl_matrix **A, const psl_dmatrix *dA, void *stream);
psl_status psl_dmatrix_get_info(const psl_dmatrix *dA, psl_matrix_info *info);
psl_status psl_dspmv_workspace_size(const psl_dmatrix *dA, psl_scalar vec_type,
                                    size_t *bytes);
psl_status psl_dspmv(double alpha, const psl_dmatrix *dA, const void *d_x, double beta,
                     void *d_y, psl_scalar vec_type, void *workspace,
                     size_t workspace_bytes, void *stream);

typedef enum psl_reason {
    PSL_REASON_CONVERGED, PSL_REASON_FIXED_ITERS, PSL_REASON_MAX_ITERS,
    PSL_REASON_INDEFINITE, PSL_REASON_NONFINITE, PSL_REASON_STAGNATION,
    PSL_REASON_RHO_ZERO, PSL_REASON_OMEGA_ZERO, ...
} psl_reason;
const char *psl_reason_name(psl_reason reason);
typedef void (*psl_monitor_fn)(void *ctx, int32_t iter, double relres);
#define PSL_GMRES_RESTART_MAX ...
typedef struct psl_solver_options {
    psl_scalar vec_type;
    double tol;
    int32_t max_iters;
    int32_t fcg_mmax;
    int32_t fcg_restart;
    int32_t restart;
    int32_t recursive_stop;
    psl_monitor_fn monitor;
    void *monitor_ctx;
    ...;
} psl_solver_options;
typedef struct psl_solve_result {
    psl_reason reason;
    int32_t iterations;
    int64_t inner_iterations;
    double relres;
    double relres_recursive;
    double seconds;
    ...;
} psl_solve_result;
typedef enum psl_precond_kind {
    PSL_PRECOND_NONE, PSL_PRECOND_JACOBI, PSL_PRECOND_SDAINV, ...
} psl_precond_kind;
typedef enum psl_solve_method {
    PSL_SOLVE_CG, PSL_SOLVE_FCG, PSL_SOLVE_IOCG, PSL_SOLVE_GMRES, PSL_SOLVE_FGMRES,
    PSL_SOLVE_BICGSTAB, PSL_SOLVE_F3R, ...
} psl_solve_method;
typedef enum psl_f3r_variant { PSL_F3R_FP64, PSL_F3R_FP16, PSL_F3R_PACKSELL, ... } psl_f3r_variant;
typedef struct psl_f3r_options {
    psl_f3r_variant variant;
    int32_t m1;
    int32_t m2;
    int32_t m3;
    int32_t m4;
    int32_t c;
    ...;
} psl_f3r_options;
typedef struct psl_sdainv_options { double drop_tol; double acc; ...; } psl_sdainv_options;
typedef struct psl_solve_config {
    psl_solve_method method;
    psl_precond_kind precond;
    psl_sdainv_options sdainv;
    int storage_auto;
    psl_convert_options storage;
    psl_convert_options inner_storage;
    int32_t inner_iters;
    int scale;
    int device;
    int32_t repeat;
    psl_solver_options solver;
    psl_f3r_options f3r;
    ...;
} psl_solve_config;
void psl_solve_config_init(psl_solve_config *cfg);
typedef struct psl_solve_report {
    psl_solve_result result;
    double relres_unscaled;
    double scale_seconds;
    double convert_seconds;
    double precond_seconds;
    double upload_seconds;
    double solve_seconds;
    double solve_seconds_min, solve_seconds_max;
    ...;
} psl_solve_report;
psl_status psl_solve(const psl_matrix *A, const double *b, double *x,
                     const psl_solve_config *cfg, psl_solve_report *report);

/* glue of this module (defined in SOURCE below) */
void psl_py_matrix_free(psl_matrix *A);
void psl_py_dmatrix_free(psl_dmatrix *A);
typedef struct psl_py_history {
    int32_t *iter;
    double *relres;
    int64_t n, cap, dropped;
    void *py;
    ...;
} psl_py_history;
void psl_py_monitor(void *ctx, int32_t iter, double relres);
extern "Python" void psl_py_callback(void *py, int32_t iter, double relres);
"""

# Glue compiled into the module: destructors taking the handle itself (for
# ffi.gc) and a monitor that records the residual history into arrays the
# caller provides, calling back into Python only when it gave a callback.
SOURCE = r"""
#include <packsell.h>

static void psl_py_matrix_free(psl_matrix *A) { psl_matrix_destroy(&A); }
static void psl_py_dmatrix_free(psl_dmatrix *A) { psl_dmatrix_destroy(&A); }

typedef struct psl_py_history {
    int32_t *iter;    /* the caller's arrays of cap entries */
    double *relres;
    int64_t n, cap, dropped; /* entries written; calls beyond cap */
    void *py;         /* the Python callback's handle, or NULL */
} psl_py_history;

static void psl_py_callback(void *py, int32_t iter, double relres);

static void psl_py_monitor(void *ctx, int32_t iter, double relres)
{
    psl_py_history *h = ctx;
    if (iter == 0) /* a new solve (repeat > 1): keep the last one's history */
        h->n = h->dropped = 0;
    if (h->n < h->cap) {
        h->iter[h->n] = iter;
        h->relres[h->n++] = relres;
    } else {
        h->dropped++;
    }
    if (h->py)
        psl_py_callback(h->py, iter, relres);
}
"""


def builder():
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("packsell._packsell_cffi", SOURCE)
    return ffi


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python build_ffi.py OUT.c")
    builder().emit_c_code(sys.argv[1])
