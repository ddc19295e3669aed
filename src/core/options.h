/*
 * options.h -- the runtime options of libpacksell as the library's code reads
 * them: one id per option and its current value as an integer. options.c
 * owns the table (names, accepted values, defaults, documentation), reads
 * the environment once and validates it; programs reach the same options
 * through psl_option_set / psl_option_get (include/packsell.h). Never
 * installed.
 */
#ifndef PSL_OPTIONS_H
#define PSL_OPTIONS_H

#include "packsell.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options, in the order psl_option_describe lists them. Comments give
 * the integer psl_opt_get answers. */
typedef enum psl_opt {
    PSL_OPT_KERNEL,             /* -1: first backend with a kernel; else a backend
                                   (psl_opt_value_name gives "omp" or "ref") */
    PSL_OPT_CPU_ISA,            /* -1: no cap; else the psl_isa cap (kernels.h) */
    PSL_OPT_TRACE,              /* 0 or 1 */
    PSL_OPT_CUDA_STREAM_NA,     /* -1: by size; 0 or 1: forced */
    PSL_OPT_CUDA_WORD_PREFETCH, /* -1: by size; 0 or 1: forced */
    PSL_OPT_CUDA_TINY_UNIFORM,  /* 0 or 1 */
    PSL_OPT_CUDA_WIDE_CLUSTER,  /* 1..16 */
    PSL_OPT_CUDA_CSRK_SR_ROWS,  /* 0: the CUDA model; else rows per super-row */
    PSL_OPT_CUDA_CSRK_SSR_SRS,  /* 0: the CUDA model; else super-rows per super-super-row */
    PSL_OPT_CSRK_FIT,           /* a path, "" for none (psl_opt_get_text only) */
    PSL_OPT_SOLVER_FUSE,        /* 0 or 1 */
    PSL_OPT_SOLVER_LOOKAHEAD,   /* 0 or 1 */
    PSL_OPT_MEMORY_CHECK,       /* 0 or 1 */
    PSL_OPT_MEMORY_LIMIT,       /* bytes, 0: none (psl_opt_get_size only) */
    PSL_OPT_SOLVER_DEFER_READS, /* 0 or 1 */
    PSL_OPT_DIST_MPI_CUDA_AWARE, /* -1: as the MPI reports; 0 or 1: declared */
    PSL_OPT_SOLVER_GRAPH,       /* 0 or 1 */
    PSL_OPT_HUGEPAGES,          /* 0 or 1 */
    PSL_OPT_COUNT
} psl_opt;

/* The value of option id in *value: the program's (psl_option_set), else the
 * environment's, else the default. The environment is read once per process,
 * at the first call of this function or of psl_option_get. An invalid
 * environment value gives PSL_ERR_INVALID_VALUE with a message naming the
 * variable, its value and the accepted values, on every call until the
 * program sets the option; *value is then untouched. */
psl_status psl_opt_get(psl_opt id, int *value);

/* Largest byte count a size option takes: 2^49 (512 TiB; its decimal text
 * fits PSL_OPTION_VALUE_MAX). */
#define PSL_OPT_SIZE_MAX (1LL << 49)

/* psl_opt_get for any option, the only one for a byte count
 * (PSL_OPT_MEMORY_LIMIT), which psl_opt_get refuses. */
psl_status psl_opt_get_size(psl_opt id, long long *value);

/* The text of a path option (PSL_OPT_CSRK_FIT; "" when unset) into buf
 * of len bytes (PSL_OPTION_PATH_MAX suffices), with the same precedence and
 * errors as psl_opt_get; psl_opt_get and psl_opt_get_size refuse it. */
psl_status psl_opt_get_text(psl_opt id, char *buf, size_t len);

/* The same for code that cannot report an error (psl_trace, psl_cpu_isa
 * behind psl_spmv's check): fallback when the environment's value is
 * invalid; the thread's last error is not touched. */
int psl_opt_get_or(psl_opt id, int fallback);

/* The accepted spelling of value of a choice option ("omp" for a
 * PSL_OPT_KERNEL value), NULL for an integer option or an unknown value. */
const char *psl_opt_value_name(psl_opt id, int value);

/* Tests only: forget every psl_option_set and read the environment again at
 * the next use. Not thread-safe: call it while no other thread is inside
 * the library. */
void psl_opt_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* PSL_OPTIONS_H */
