/*
 * bench.h -- types shared by the two sides of "packsell bench": the command
 * and CPU timing (cmd_bench.c) and the CUDA timing with the cuSPARSE
 * baselines (bench_cuda.c, compiled only when PSL_HAVE_CUDA), the Intel MKL
 * baselines on the CPU (bench_mkl.c, only when PSL_HAVE_MKL) and the host's
 * read bandwidth (bench_bw.c).
 */
#ifndef PSL_BENCH_H
#define PSL_BENCH_H

#include "cli.h"

#define BENCH_MAX_KERNELS 64
#define BENCH_MAX_ROUNDS 100

/* Who implements a kernel. */
typedef enum bench_impl {
    BENCH_OURS = 0,    /* libpacksell (psl_spmv or psl_dspmv) */
    BENCH_CUSPARSE = 1, /* a cuSPARSE baseline (--device cuda only) */
    BENCH_MKL = 2       /* Intel MKL inspector-executor CSR (--device cpu, PSL_HAVE_MKL) */
} bench_impl;

/* Storage formats of the cuSPARSE baselines. */
typedef enum bench_cusp_format {
    BENCH_CUSP_CSR = 0,
    BENCH_CUSP_SELL = 1, /* cusparseCreateSlicedEll, slice C, padding column -1 */
    BENCH_CUSP_COO = 2,
    BENCH_CUSP_BSR = 3 /* 2x2 and 4x4 blocks, the faster one is kept */
} bench_cusp_format;

/* One kernel to time: a format, its values and the vector type. For a
 * cuSPARSE kernel opt.value_type is the value type (also of the vectors,
 * computing in FP32 for FP16) and opt.slice_height the SELL slice. */
typedef struct bench_kernel {
    char name[48];
    bench_impl impl;
    bench_cusp_format cusp_format;
    psl_convert_options opt;
    psl_scalar vec;
    /* CSR-k on cuda: the device grouping's rows per super-row and
     * super-rows per super-super-row (the options PSL_CUDA_CSRK_SR_ROWS and
     * _SSR_SRS during its upload); 0: the CUDA tuning model's */
    int32_t cuda_csrk_sr, cuda_csrk_ssr;
    /* MKL: 0 runs on the CSR arrays as created (no mv hint, no
     * mkl_sparse_optimize: the zero-copy peer of CSR-k) */
    int mkl_optimize;
} bench_kernel;

/* Results of one kernel. */
typedef struct bench_result {
    int ok;
    char error[512];
    char values[32];
    char impl[32];
    int64_t runs;
    double t_median, t_min, t_max; /* seconds */
    double gflops, gbs;
    double pct_copy; /* GB/s over the copy bandwidth, in %; < 0: not measured */
    double pct_read; /* cpu: GB/s over the measured read bandwidth, in %; < 0: n/a */
    double read_same_gbs; /* cpu: read bandwidth over the kernel's own traffic in bytes
                             (a buffer of that size read again and again, as the
                             kernel reads its matrix); < 0: not measured */
    double pct_read_same; /* cpu: GB/s over read_same_gbs, in %; < 0: n/a */
    int64_t traffic; /* bytes one product must move: matrix + x + y (bench_traffic_bytes) */
    int nrounds;     /* cpu: rounds timed; median of each round's runs: */
    double round_median[BENCH_MAX_ROUNDS];
    int64_t bytes, sell_bytes;
    double ratio_sell; /* < 0: unknown */
    double backward_error;
    double convert_seconds; /* host conversion (+ upload on the device) */
    double enqueue_us;      /* cuda: host time to enqueue one timed run; < 0: n/a */
    /* MKL: mkl_sparse_?_create_csr and mkl_sparse_optimize seconds (their
     * sum is convert_seconds; the probe product and set_mv_hint between
     * them are left out), the expected-calls hint, and
     * the backward-error tolerance its y was checked against; < 0: n/a */
    double mkl_create_seconds, mkl_optimize_seconds, tolerance;
    int64_t mkl_hint_calls;
    /* MKL: bytes its memory manager holds more after mkl_sparse_optimize
     * than before (the internal copy the product then reads); < 0: n/a */
    int64_t mkl_optimize_bytes;
} bench_result;

/* The command line of bench. */
typedef struct bench_args {
    const char *matrix, *json, *device;
    int cuda; /* --device cuda */
    int scale_rows; /* --scale rows: benchmark G^-1 A, g_i = sum_j |a_ij| */
    long long reps, warmup, threads, seed;
    long long rounds;       /* cpu: kernels timed in turn, this many rounds */
    long long read_bytes;   /* cpu: bytes of the read-bandwidth buffer (0: none) */
    double min_time, max_time, alpha, beta;
    int skip_gpu_build; /* cuda: no GPU-build measurement (packsell tune-csrk) */
    int quiet;          /* cuda: no progress line per kernel on stderr */
    int nkernels;
    bench_kernel kernels[BENCH_MAX_KERNELS];
} bench_args;

/* The defaults of bench's command line for the device (cuda or cpu) into
 * *a (no kernels, matrix unset). */
void bench_args_defaults(bench_args *a, int cuda);

/* Shared data of all kernels: the FP64 CSR matrix in the original row
 * order (the reference of the backward error), x and y0. */
typedef struct bench_data {
    psl_matrix *A;
    psl_matrix_info info;
    double *x, *y0;
} bench_data;

/* What the CUDA side learnt about the device. */
typedef struct bench_device {
    char name[256];
    int cc_major, cc_minor;
    double mem_gib;
    double copy_gbs;    /* device-to-device copy, bytes read + written; < 0: failed */
    double copy_us;     /* median time of one copy */
    int64_t copy_bytes; /* bytes of one copy (read once, written once) */
    int copy_runs;
    char copy_error[256];
    /* GPU build (psl_dmatrix_convert from the device CSR, FP16 values, the
     * first kernel's C / sigma / permutation): [0] PackSELL, [1] SELL.
     * Median ms of a whole call (< 0: not measured; build_error says why)
     * and the median psl_dspmv time of the built matrix (FP64 vectors). */
    double build_ms[2], build_spmv_us[2];
    char build_error[256];
} bench_device;

/* Open a->matrix as FP64 CSR into d (rows scaled with a->scale_rows), its
 * info and the vectors x and y0; *load_s the seconds of loading and
 * converting. Prints the error: CLI_OK or CLI_RUNTIME (d is then to be
 * freed all the same). */
int bench_data_load(const char *cmd, const bench_args *a, bench_data *d, double *load_s);
void bench_data_free(bench_data *d);

/* A bench_device before any measurement (copy and build times unknown). */
void bench_device_init(bench_device *dev);

/* The command line of `packsell bench` into *a (cmd_bench.c; also the
 * distributed bench's, tools/mpi/bench.c): CLI_OK, CLI_HELP (usage not
 * printed) or CLI_USAGE after printing the error. */
int bench_parse(int argc, char **argv, bench_args *a);

/* Backward error ||y - ref||_inf / (|alpha| ||A||_inf ||x||_inf + |beta|
 * ||y0||_inf) of y in the original row order, ref = alpha*A*x + beta*y0 in
 * FP64 (psl_spmv_backward_error; NaN counts as Inf). */
double bench_backward_error(const bench_data *d, const bench_args *a, const double *y);

/* The chooser's pick for one precision on the benchmark matrix (bench_auto.c):
 * rows are indices of timed kernels (-1: not timed in this run). */
#define BENCH_AUTO_N 2 /* FP16 and FP32 */
typedef struct bench_auto {
    int ok;
    char error[512];
    psl_choice choice;
    int cand_row[PSL_CHOICE_MAX]; /* the timed row of each candidate */
    int pick_row;                 /* ... of the pick */
    int best_row;                 /* the fastest timed candidate */
    int best_cusparse_row;        /* the fastest cuSPARSE kernel of the value width */
} bench_auto;

/* Choose for FP16 and FP32 and find the timed rows (au has BENCH_AUTO_N). */
void bench_auto_compute(const bench_args *a, const bench_data *d, const bench_result *res,
                        bench_auto *au);
/* The auto rows under the table / as elements of the JSON "kernels" array. */
void bench_auto_print(const bench_args *a, const bench_result *res, const bench_auto *au);
void bench_auto_json(struct cli_json *j, const bench_args *a, const bench_result *res,
                     const bench_auto *au);

/* The host side of a CPU run: the read bandwidth measured in the same
 * rounds as the kernels, the CPU and MKL (if built in). */
typedef struct bench_host {
    char cpu[256];
    char mkl_version[256]; /* "" when built without MKL */
    char mkl_threading[64];
    double read_gbs;       /* median over all passes; < 0: not measured */
    double read_min_gbs, read_max_gbs;
    int64_t read_bytes;    /* bytes of one pass */
    int read_runs;
    char read_error[128];
} bench_host;

/* How many products the CPU timing of a makes of a kernel whose product
 * takes seconds (warm-up and timed runs of every round, and the check). */
int64_t bench_expected_calls(const bench_args *a, double seconds);

/* Time every kernel of a on its device (cpu: bench's CPU timing in
 * a->rounds rounds; cuda: bench_cuda_run), results into res (one per
 * kernel; a failed kernel has ok = 0 and its error). CLI_OK, or
 * CLI_RUNTIME (message printed) when the device cannot be used at all. */
int bench_run_kernels(const char *cmd, const bench_args *a, const bench_data *d,
                      bench_result *res, bench_device *dev, bench_host *host);

#ifdef PSL_HAVE_MKL
/* MKL's inspector-executor CSR SpMV of the FP64 CSR matrix d->A with the
 * values and vectors k->opt.value_type (FP64 or FP32), in bench_mkl.c. */
typedef struct bench_mkl bench_mkl;
/* MKL's version and threading layer, and its thread count set to threads. */
void bench_mkl_init(int threads, bench_host *host);
/* Copy the matrix and vectors, mkl_sparse_?_create_csr, one product to
 * time it, mkl_sparse_set_mv_hint with bench_expected_calls for that time,
 * mkl_sparse_optimize (times into r;
 * r->bytes: the bytes of its CSR arrays, values + MKL_INT columns and row
 * pointers).
 * NULL on failure, with r->error set. */
bench_mkl *bench_mkl_setup(const bench_args *a, const bench_data *d, const bench_kernel *k,
                           bench_result *r);
/* One product y = alpha A x + beta y; 0, or -1 with r->error set. */
int bench_mkl_run(bench_mkl *m, bench_result *r);
/* A fresh product from y0 into y (FP64, original row order); 0 or -1. */
int bench_mkl_result(bench_mkl *m, double *y, bench_result *r);
void bench_mkl_destroy(bench_mkl *m);
#endif

#ifdef PSL_HAVE_CUDA
/* Time every kernel of a on the current CUDA device (our kernels through
 * psl_dmatrix_upload/psl_dspmv, cuSPARSE baselines on the sigma-sorted
 * rows) and measure the copy bandwidth into dev. One kernel's matrix is on
 * the device at a time. A failing kernel gets ok = 0 and an error text;
 * the return value is CLI_OK, or CLI_RUNTIME (message printed) when the
 * device cannot be used at all. */
int bench_cuda_run(const char *cmd, const bench_args *a, const bench_data *d,
                   bench_result *res, bench_device *dev);
#endif

#endif
