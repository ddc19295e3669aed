/*
 * cli.h -- shared pieces of the packsell command: exit codes, the option
 * parser, error reporting, matrix/format option handling, vectors, timing
 * and a tiny JSON writer. Built only on the public API (include/packsell.h).
 */
#ifndef PSL_CLI_H
#define PSL_CLI_H

#include "packsell.h"

#include <stdint.h>
#include <stdio.h>

/* ---- exit codes */
enum {
    CLI_OK = 0,      /* success */
    CLI_RUNTIME = 1, /* the work failed (bad file, library error, ...) */
    CLI_USAGE = 2,   /* the command line is wrong */
    CLI_HELP = -1    /* internal: --help was asked for (exit 0 after usage) */
};

/* ---- errors: all print "packsell <cmd>: <message>" to stderr */

/* A usage error: message plus a hint to --help; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A runtime error with our own message; returns CLI_RUNTIME. */
int cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A failed library call: prints psl_last_error_message() (or the status
 * text when the message is empty); returns CLI_RUNTIME. */
int cli_lib_error(const char *cmd, psl_status st);
/* The end of a file written through psl_output_begin: a write error on f
 * cancels it (the target untouched) and reports "<what> '<path>'"; else
 * psl_output_commit puts it in place. Returns the exit status. */
int cli_output_finish(const char *cmd, psl_output **out, FILE *f, const char *what,
                      const char *path);

/* ---- option parser */

/* One option of a subcommand. The parser fills value/present. */
typedef struct cli_opt {
    const char *name;  /* "--output" */
    const char *alias; /* "-o" or NULL */
    int takes_value;   /* 1: --name VALUE or --name=VALUE; 0: a flag */
    const char *value; /* the value (last one wins), NULL if absent */
    int present;       /* number of times given */
} cli_opt;

/* Parse argv[0..argc) (the words after the subcommand name) into opts and
 * positional arguments (at most max_pos, into pos[], count in *npos).
 * "--" ends the options. -h/--help anywhere returns CLI_HELP. Unknown
 * options, missing values, values given to flags and too many positional
 * arguments print an error and return CLI_USAGE. */
int cli_parse(const char *cmd, int argc, char **argv, cli_opt *opts, int nopts,
              const char **pos, int max_pos, int *npos);

/* cli_parse for a command with exactly one positional argument, required
 * (`what` names it in the error, e.g. "MATRIX"): on -h/--help it prints
 * usage() and returns CLI_HELP; *arg receives the argument. */
int cli_parse_one(const char *cmd, int argc, char **argv, cli_opt *opts, int nopts,
                  void (*usage)(void), const char *what, const char **arg);

/* The option called name (must exist in the table). */
cli_opt *cli_find(cli_opt *opts, int nopts, const char *name);

/* Parse a whole decimal integer / a finite double in [lo, hi]; on failure
 * print a usage error naming the option and return CLI_USAGE. */
int cli_parse_int(const char *cmd, const char *opt, const char *s, long long lo,
                  long long hi, long long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double *out);

/* ---- matrices and formats */

/* Open a MATRIX argument (gen: spec, binary file, Matrix Market file) and
 * report the seconds it took (may be NULL). */
psl_status cli_open_matrix(const char *source, psl_matrix **A, double *seconds);

/* Storage-format options shared by info, convert and spmv. */
typedef struct cli_format_args {
    const char *format, *values, *delta_bits, *slice, *sigma, *permute, *overflow;
    const char *precision; /* --precision of --format auto */
    const char *csrk_k, *csrk_sr, *csrk_ssr; /* --csrk-k, --csrk-sr, --csrk-ssr */
    const char *csrk_reorder;                /* --csrk-reorder */
    const char *csrk_fit;                    /* --csrk-fit */
} cli_format_args;

/* Option-table entries of the format options (put them in a cli_opt[]). */
#define CLI_FORMAT_OPTS                                                              \
    {"--format", NULL, 1, NULL, 0}, {"--values", NULL, 1, NULL, 0},                  \
        {"--delta-bits", NULL, 1, NULL, 0}, {"--slice", NULL, 1, NULL, 0},           \
        {"--sigma", NULL, 1, NULL, 0}, {"--permute", NULL, 1, NULL, 0},              \
        {"--overflow", NULL, 1, NULL, 0}, {"--precision", NULL, 1, NULL, 0},        \
        CLI_CSRK_OPTS

/* Option-table entries of the CSR-k options (part of CLI_FORMAT_OPTS). */
#define CLI_CSRK_OPTS                                                                \
    {"--csrk-k", NULL, 1, NULL, 0}, {"--csrk-sr", NULL, 1, NULL, 0},                 \
        {"--csrk-ssr", NULL, 1, NULL, 0}, {"--csrk-reorder", NULL, 1, NULL, 0},           \
        {"--csrk-fit", NULL, 1, NULL, 0}

/* Help text of the format options. */
#define CLI_FORMAT_HELP                                                              \
    "Format options:\n"                                                              \
    "      --format F       csr (default), sell, packsell, csrk, or auto: the format\n" \
    "                       `packsell choose` picks for --precision (a cost model of\n" \
    "                       the GPU kernels; --permute/--overflow still apply)\n"    \
    "      --precision P    with --format auto: fp16, fp32 or fp64 values\n"        \
    "      --values V       csr: fp64 (default) or fp32; csrk: fp64 (default), fp32\n" \
    "                       or fp16; sell: fp64 (default), fp32,\n"                  \
    "                       fp16 or bf16; packsell: a codec, fp16 (default), bf16,\n" \
    "                       eXmY (e.g. e8m10), or eXm together with --delta-bits\n"   \
    "      --delta-bits D   packsell delta bits; must agree with the codec\n"        \
    "                       (D = 30 - X - Y), or gives Y for --values eXm\n"         \
    "      --slice C        slice height of sell/packsell (default 32)\n"            \
    "      --sigma S        sorting window, 0 or a multiple of C (default 256)\n"    \
    "      --permute P      implicit (default) or explicit sigma permutation\n"      \
    "      --overflow O     values beyond the codec range: error (default) or\n"    \
    "                       saturate\n"                                               \
    CLI_CSRK_HELP

/* Help text of the CSR-k options. */
#define CLI_CSRK_HELP                                                                \
    "      --csrk-k K       csrk levels: 1 (plain CSR), 2 (super-rows) or 3\n"      \
    "                       (super-rows and super-super-rows; default)\n"           \
    "      --csrk-sr N      csrk target rows per super-row (k >= 2; default 0: the\n" \
    "                       CPU tuning model from nnz per row)\n"                    \
    "      --csrk-ssr M     csrk target super-rows per super-super-row (k = 3;\n"   \
    "                       default 0: the tuning model)\n"                          \
    "      --csrk-reorder R csrk locality reordering (square matrices): none\n"     \
    "                       (default), rcm (reverse Cuthill-McKee of the rows) or\n" \
    "                       bandk (RCM of the super-rows and super-super-rows,\n"   \
    "                       each kept contiguous); x and y keep their numbering\n" \
    "      --csrk-fit FILE  csrk: load a fit of the tuning model (written by\n"     \
    "                       packsell tune-csrk) before converting; its tables\n"    \
    "                       replace the defaults (or PSL_CSRK_FIT's) of the device\n" \
    "                       kinds it has rows for\n"

/* Collect the format options of a parsed table into fa. */
void cli_format_args_get(cli_opt *opts, int nopts, cli_format_args *fa);
/* --csrk-k/--csrk-sr/--csrk-ssr/--csrk-reorder of fa into opt (their
 * checks against one another and k), and --csrk-fit loaded
 * (psl_csrk_model_load, for the process); CLI_OK, or CLI_USAGE /
 * CLI_RUNTIME (a fit that does not load) after printing the error. */
int cli_csrk_options(const char *cmd, const cli_format_args *fa, psl_convert_options *opt);

/* Turn format options into convert options (defaults: csr, fp64; packsell
 * values default to fp16; C 32, sigma 256, implicit). Returns CLI_OK, or
 * prints the error and returns CLI_USAGE (bad syntax, option not applicable
 * to the format) or CLI_RUNTIME (bad codec, --delta-bits inconsistent with
 * the codec). */
int cli_format_options(const char *cmd, const cli_format_args *fa, psl_convert_options *opt);

struct cli_json; /* the JSON writer, below */

/* --format auto (chooser.c): whether it was asked for; "fp16"/"fp32"/"fp64"
 * into *out (0, or -1 if unknown). cli_format_options leaves opt at CSR FP64
 * for auto (so cli_load_matrix gives the chooser's input) with --permute and
 * --overflow parsed; cli_auto_convert then chooses for target (NULL: the
 * default GPU model) and converts *A in place (its seconds added to *seconds) and
 * fills *choice. */
int cli_format_is_auto(const cli_format_args *fa);
/* Case-insensitive string equality (option values of the command). */
int cli_same(const char *a, const char *b);
int cli_precision_parse(const char *s, psl_precision *out);
/* What --format auto chooses for: the GPU (psl_choose_format with gpu) or
 * the CPU (psl_choose_format_cpu with cpu). */
typedef struct cli_chooser {
    int on_cpu;
    psl_device_model gpu;
    psl_cpu_model cpu;
} cli_chooser;
int cli_auto_convert(const char *cmd, const cli_format_args *fa, const psl_convert_options *opt,
                     const cli_chooser *target, psl_matrix **A, psl_choice *choice,
                     double *seconds);
/* The chooser's target for --device (checked by cli_check_device): cuda,
 * the current device's model, its copy bandwidth measured; cpu (or none
 * when cpu_default), the CPU model of this host: the OpenMP threads and
 * the read bandwidth measured with them (as bench --device cpu measures
 * it), the default model's L3; none otherwise, the default H200 model.
 * Prints the error; CLI_OK or CLI_RUNTIME. */
int cli_chooser_for(const char *cmd, const char *device, int cpu_default, cli_chooser *t);
/* The choice of t for prec on A. */
psl_status cli_choose(const cli_chooser *t, const psl_matrix *A, psl_precision prec,
                      psl_choice *choice);
/* A choice as readable lines on f / as a JSON object under key. */
void cli_choice_print(FILE *f, const psl_choice *c);
void cli_choice_json(struct cli_json *j, const char *key, const psl_choice *c);

/* Convert the FP64 CSR matrix src with opt. CSR FP64 gives a copy. */
psl_status cli_convert(const psl_matrix *src, const psl_convert_options *opt,
                       psl_matrix **out, double *seconds);

/* Whether any format option was given. */
int cli_format_given(const cli_format_args *fa);

/* Open source and bring it into the format of opt (a matrix stored in
 * another format is decoded to FP64 CSR first). opt == NULL keeps the
 * matrix as stored. Prints errors; returns CLI_OK or CLI_RUNTIME. */
int cli_load_matrix(const char *cmd, const char *source, const psl_convert_options *opt,
                    psl_matrix **out, double *load_seconds, double *convert_seconds);

/* The value name of a matrix info: scalar for CSR/SELL, codec for PackSELL
 * (buf >= 16 bytes). */
const char *cli_values_name(const psl_matrix_info *info, char *buf, size_t len);

/* Check that the device is usable: "cpu" always, "cuda" when this build has
 * CUDA and a device is present. Prints the error; returns CLI_OK, CLI_USAGE
 * or CLI_RUNTIME. */
int cli_check_device(const char *cmd, const char *device);

/* Before the work: the output `path` of option `opt` (NULL: none) can be
 * written: its folder exists and is writable, and the path, if it exists,
 * is a regular file (through a link) or a FIFO (streamed to); a folder,
 * device or socket is refused. CLI_OK, or 1 after printing the error
 * (nothing is created). The write itself goes through psl_output_begin. */
int cli_check_output(const char *cmd, const char *opt, const char *path);
/* True for --device cuda (any case). */
int cli_device_is_cuda(const char *device);
/* y = alpha*A*x + beta*y on the CUDA device (--device cuda): x, y host
 * vectors of vec type in the matrix's stored row order (spmv_cuda.c). */
int cli_spmv_cuda(const char *cmd, double alpha, const psl_matrix *A, const void *x,
                  double beta, void *y, psl_scalar vec, int64_t nrows, int64_t ncols);

/* ---- vectors (vec.c) */

/* Bytes of one vector element of type t (FP64, FP32, FP16). */
size_t cli_vec_size(psl_scalar t);
/* Convert n doubles into a new array of type t (malloc'd, caller frees).
 * A finite value beyond the type's range is an error naming the entry
 * (what = "x", "y0"). Returns NULL with psl-like message in errbuf. */
void *cli_vec_from_double(const double *x, int64_t n, psl_scalar t, const char *what,
                          char *errbuf, size_t errlen);
/* Convert n values of type t to doubles into y. */
void cli_vec_to_double(const void *v, int64_t n, psl_scalar t, double *y);
/* Round a double to the nearest fp16 value (as a double; saturates). */
double cli_round_fp16(double v);

/* Next number of a deterministic splitmix64 stream, as a double uniform in
 * [-1, 1) (multiples of 2^-52). */
double cli_uniform_pm1(uint64_t *state);

/* ---- timing (timer.c) */

/* Monotonic wall clock in seconds. */
double cli_now(void);
/* Median of n > 0 samples (the array is sorted in place). */
double cli_median(double *t, int64_t n);
/* The UTC date and time now ("2026-12-06T03:14:43Z") and this host's
 * name, "" where unknown (date_len >= 32, host_len >= 2). */
void cli_run_stamp(char *date, size_t date_len, char *host, size_t host_len);

/* ---- JSON writer (json.c) */

typedef struct cli_json {
    FILE *f;
    int depth;
    int count[32]; /* values written at each nesting level */
} cli_json;

void cli_json_init(cli_json *j, FILE *f);
/* The first keys of a report: packsell_version, date, host (cli_run_stamp)
 * and device, inside the object j has open. */
void cli_json_report_head(cli_json *j, const char *device);
/* key is NULL for array elements and the top-level value. */
void cli_json_begin_object(cli_json *j, const char *key);
void cli_json_end_object(cli_json *j);
void cli_json_begin_array(cli_json *j, const char *key);
void cli_json_end_array(cli_json *j);
void cli_json_string(cli_json *j, const char *key, const char *v); /* NULL: null */
void cli_json_int(cli_json *j, const char *key, int64_t v);
void cli_json_double(cli_json *j, const char *key, double v); /* non-finite: null */
void cli_json_bool(cli_json *j, const char *key, int v);
void cli_json_null(cli_json *j, const char *key);
/* Write a string with JSON escaping (quotes included). */
void cli_json_write_string(FILE *f, const char *s);
/* Shortest "%.{15,16,17}g" text of v that reads back as v (buf >= 32). */
const char *cli_json_number(double v, char *buf, size_t len);

/* ---- help texts of the distributed runs (tools/mpi/, builds with MPI) */
#ifdef PSL_TOOL_MPI
#define CLI_MPI_BENCH_HELP                                                           \
    "\n"                                                                             \
    "Under MPI (this build has it): mpirun -np N packsell bench MATRIX --device cpu\n" \
    "[--kernels ...] runs distributed when started by mpirun (OMPI_COMM_WORLD_SIZE,\n" \
    "PMI_SIZE or PMIX_RANK set) or given --mpi; without them nothing of MPI runs.\n"   \
    "gen:hpcg:X:Y:Z and gen:hpgmp:X:Y:Z[:BETA] are generated on every rank for its\n"  \
    "own box: the global grid 2^X x 2^Y x 2^Z is split over the process grid\n"      \
    "P x Q x R = N of psl_dist_process_grid (the smallest P+Q+R, ties: most ranks\n"  \
    "along z), each rank's box 2^X/P x 2^Y/Q x 2^Z/R (rank r at (r mod P,\n"          \
    "(r / P) mod Q, r / (P Q)), rows numbered rank by rank); a grid that does not\n"  \
    "divide is refused. The other gen: specs are generated on every rank for its\n"  \
    "own rows, balanced by nonzeros (the serial matrix's rows, bit for bit); a\n"    \
    "file is opened on rank 0 and its rows scattered, balanced by nonzeros. Each\n"  \
    "kernel's storage holds both blocks (A_d, A_o); every timed run starts after\n"  \
    "MPI_Barrier and counts the slowest rank's\n"                                     \
    "time (median, min, max over the runs); GB/s on both blocks' bytes plus x, the\n" \
    "ghosts and y, summed over the ranks. Per rank: rows, nonzeros of A_d and A_o,\n" \
    "ghosts, neighbours, its own median, and the split pack / A_d / wait / A_o /\n"   \
    "allreduce per product from a separate pass with the library's phase timings\n"  \
    "on (one psl_dist_dot per product). Only rank 0 prints and writes --json.\n"     \
    "Not under MPI: --device cuda (until the distributed device SpMV is in),\n"      \
    "cuSPARSE and MKL kernels, --scale rows; --rounds, --read-mib and --max-time\n"  \
    "do not apply.\n"                                                                \
    "      --mpi            run distributed without a launcher variable\n"
#define CLI_MPI_SOLVE_HELP                                                           \
    "\n"                                                                             \
    "Under MPI (this build has it): mpirun -np N packsell solve MATRIX [options]\n"  \
    "(started by mpirun, or with --mpi) builds the distributed matrix as 'packsell\n" \
    "bench --help' says and runs the library's solvers on it unchanged, through\n"  \
    "the distributed operator layer (psl_dist_op_create, psl_dist_exec_attach: the\n" \
    "dot products summed over the ranks): every --method (iocg's inner matrix\n"   \
    "distributed too; f3r: FGMRES(m1) over F3R's layers 2-4 on distributed\n"     \
    "copies of the scaled matrix, psl_dist_precond_f3r), --precond jacobi, none\n" \
    "or sdainv (block SD-AINV: each rank's diagonal block, so iterations grow\n"   \
    "with the ranks), --vectors, --device, the other options as above. The\n"      \
    "matrix is built once in FP64 CSR, its other storages converted from it. b\n"  \
    "is drawn by natural row (the serial command's b). The system is solved\n"     \
    "unscaled, as with --no-scale (the same residual when the diagonal is\n"       \
    "constant, as HPCG's). Setup (matrices; operators, preconditioner, solver)\n"  \
    "and solve times (the slowest rank's) apart, and each rank's split of the\n"   \
    "solve: pack, A_d, wait, A_o, allreduce. Refused under MPI: --rhs, --output,\n" \
    "--history, --sdainv-cache.\n"                                                 \
    "      --mpi             run distributed without a launcher variable\n"
#else
#define CLI_MPI_BENCH_HELP ""
#define CLI_MPI_SOLVE_HELP ""
#endif

/* ---- the command line (dispatch.c): argv[0] is the program, argv[1] the
 * command; returns the exit status. */
int cli_main(int argc, char **argv);

/* ---- subcommands: argc/argv are the words after the subcommand name */
int cmd_gen(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_spmv(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_choose(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_tune_csrk(int argc, char **argv);

#endif
