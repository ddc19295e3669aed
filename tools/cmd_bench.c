/*
 * cmd_bench.c -- "packsell bench [MATRIX] --device cpu|cuda ...": time SpMV
 * for a list of format/precision kernels (CSR, SELL, PackSELL; on CUDA also
 * cuSPARSE baselines) on one matrix and report median time, GFLOPS, GB/s on
 * the format's own bytes, footprint, backward error against FP64 CSR, as a
 * table and optionally as JSON. The CPU timing is here; the CUDA timing is
 * in bench_cuda.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "bench_bw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define DEFAULT_MATRIX "gen:hpcg:6:6:6"
#define OUR_CPU_KERNELS \
    "csr-fp64,csr-fp32,sell-fp64,sell-fp32,sell-fp16,packsell-fp16,packsell-e8m21,packsell-e8m10"
#ifdef PSL_HAVE_MKL /* MKL found at build time: its CSR beside ours */
#define MKL_KERNELS "mkl-csr-fp64,mkl-csr-fp32"
#define DEFAULT_KERNELS OUR_CPU_KERNELS "," MKL_KERNELS
#define MKL_HELP "(built with MKL)"
#else
#define DEFAULT_KERNELS OUR_CPU_KERNELS
#define MKL_HELP "(this build: without MKL)"
#endif
#define DEFAULT_CUDA_KERNELS                                                              \
    "packsell-fp16,packsell-bf16,packsell-e8m21,packsell-e8m20,packsell-e8m18,"          \
    "packsell-e8m14,packsell-e8m10,sell-fp16,sell-fp32,"                                  \
    "cusparse-csr-fp16,cusparse-csr-fp32,cusparse-csr-fp64,"                              \
    "cusparse-sell-fp16,cusparse-sell-fp32,cusparse-sell-fp64,"                           \
    "cusparse-coo-fp16,cusparse-coo-fp32,cusparse-bsr-fp16,cusparse-bsr-fp32"
/* --format csrk: CSR-k in every value type, with CSR as its peer */
#define CSRK_KERNELS "csrk-fp64,csrk-fp32,csrk-fp16,csr-fp64,csr-fp32"
#define MAX_RUNS 1000000
#define MAX_READ_MIB (64 << 10)

static void usage(void)
{
    printf("Usage: packsell bench [MATRIX] [--device cpu|cuda] [options]\n"
           "\n"
           "Time y = alpha*A*x + beta*y for several storage formats and precisions.\n"
           "MATRIX defaults to " DEFAULT_MATRIX " (gen:SPEC, a packsell binary file or a\n"
           "Matrix Market file; it is decoded to FP64 CSR and converted per kernel).\n"
           "\n"
           "For each kernel: median time (after warm-up) of max(N, as many runs as fit\n"
           "in --min-time) runs, GFLOPS = 2*nnz/time, GB/s on the format's own bytes\n"
           "plus x and y (y twice when beta != 0), matrix bytes, ratio to SELL of the\n"
           "same value width, backward error ||y - A x||_inf / (||A||_inf ||x||_inf)\n"
           "with A x in FP64 from the original matrix, and the conversion time.\n"
           "x is uniform in [-1,1) rounded to FP16, so every vector type sees the same x.\n"
           "\n"
           "--device cuda times on the current CUDA device with CUDA events (back-to-back\n"
           "runs, one interval per run) through psl_dmatrix_upload/psl_dspmv, adds\n"
           "cuSPARSE baselines on the same sigma-sorted rows (the matrix explicitly\n"
           "reordered), measures the device-to-device copy bandwidth in the same run and\n"
           "reports each kernel's GB/s as %% of it. One kernel's matrix is on the device\n"
           "at a time (convert, upload, time, free).\n"
           "\n"
           "--device cpu sets every kernel up first, then times them in --rounds rounds\n"
           "(default 5), each kernel in turn (so that the noise of a shared machine hits\n"
           "all alike), and measures the host's read bandwidth in the same rounds (the\n"
           "sum of an array of 4 x the last-level cache, 256 MiB to 4 GiB, with the same\n"
           "threads). Median, min and max are over the runs of all rounds; %%read is each\n"
           "kernel's GB/s on its own bytes (matrix + x + y) as %% of the median read\n"
           "bandwidth. With several rounds each kernel's round is followed by reads of\n"
           "the first N bytes of that array, N its own bytes: %%same is its GB/s as %%\n"
           "of that same-size read (a working set a few times the last-level cache\n"
           "keeps part of itself there from product to product, which the large array\n"
           "does not show).\n"
           "When built with Intel MKL (CMake -DPSL_WITH_MKL, scripts/install-mkl.sh),\n"
           "mkl-csr-fp64 and mkl-csr-fp32 time MKL's inspector-executor CSR SpMV\n"
           "(mkl_sparse_set_mv_hint, mkl_sparse_optimize; their time is prep_s) with\n"
           "the same threads, its y checked against FP64 within a precision-derived\n"
           "tolerance " MKL_HELP "; mkl-csr-noopt-fp64 and mkl-csr-noopt-fp32 the same\n"
           "on the CSR arrays as created (no hint, no optimize: no internal copy, as\n"
           "CSR-k reads the caller's arrays). The JSON gives the bytes MKL's memory\n"
           "manager holds more after mkl_sparse_optimize (mkl_optimize_bytes).\n"
           "\n"
           "Options:\n"
           "      --device D       cpu (default) or cuda\n"
           "      --reps N         at least N timed runs per kernel (default 10; cuda 200)\n"
           "      --min-time SEC   and at least SEC seconds of timed runs (default 0.2;\n"
           "                       cuda 0)\n"
           "      --warmup N       untimed runs before timing (default 2; cuda 20)\n"
           "      --max-time SEC   cuda: a kernel whose first run takes long gets fewer\n"
           "                       runs, about SEC seconds in all but at least 10 timed\n"
           "                       (default 2; the runs made are in the output)\n"
           "      --threads T      OpenMP threads, MKL's too (default: OMP_NUM_THREADS or all)\n"
           "      --rounds R       cpu: interleaved rounds, each with reps/R runs and\n"
           "                       min-time/R seconds per kernel after its warm-up\n"
           "                       (default 5, at most 100; 1: one kernel's matrix in\n"
           "                       memory at a time, for the largest matrices)\n"
           "      --read-mib M     cpu: read-bandwidth buffer in MiB (default 4 x the\n"
           "                       last-level cache, 256 to 4096; 0: not measured)\n"
           "      --kernels LIST   comma-separated kernels (default all of:\n"
           "                       " DEFAULT_KERNELS ";\n"
           "                       cuda: " DEFAULT_CUDA_KERNELS ").\n"
           "                       Any FORMAT-VALUES[:VECTORS] works, e.g. sell-bf16,\n"
           "                       packsell-e8m13:fp32 (VECTORS defaults to fp64 for fp64\n"
           "                       values, fp16 for 16-bit values, else fp32).\n"
           "                       FORMAT csrk takes VALUES fp64, fp32 or fp16.\n"
           "                       mkl-csr-fp64, mkl-csr-fp32, mkl-csr-noopt-fp64,\n"
           "                       mkl-csr-noopt-fp32: Intel MKL (CPU, MKL builds)\n"
           "                       cuda also: cusparse-FORMAT-VALUES with FORMAT csr, sell,\n"
           "                       coo or bsr (2x2 and 4x4, the faster kept) and VALUES\n"
           "                       fp16 (FP32 compute), fp32 or fp64; vectors as values\n"
           "      --format csrk    the kernels " CSRK_KERNELS "\n"
           "                       (instead of --kernels; cuda: csr is cuSPARSE's)\n"
           CLI_CSRK_HELP
           "      --slice C        slice height (default 32)\n"
           "      --sigma S        sorting window, 0 or a multiple of C (default 256)\n"
           "      --permute P      implicit (default) or explicit (our kernels)\n"
           "      --overflow O     values beyond a codec's range: error (default), saturate\n"
           "      --scale S        none (default) or rows: benchmark G^-1 A with\n"
           "                       g_i = sum_j |a_ij| (every row's values then within\n"
           "                       [-1, 1]), so that every codec holds any matrix\n"
           "      --alpha A        default 1\n"
           "      --beta B         default 0\n"
           "      --seed S         seed of x (default 1)\n"
           "      --json FILE      also write all results as JSON to FILE\n"
           "  -h, --help           this help\n"
           CLI_MPI_BENCH_HELP
           "\n"
           "Example: packsell bench gen:hpcg:5:5:5 --device cpu --json bench.json\n"
           "         packsell bench gen:hpcg:7:7:7 --device cuda --json gpu.json\n"
#ifdef PSL_TOOL_MPI
           "         mpirun -np 4 packsell bench gen:hpcg:6:6:6 --kernels csr-fp64,sell-fp32\n"
#endif
           );
}

/* Parse a cuSPARSE kernel "FORMAT-VALUES" (after "cusparse-") into k. */
static int parse_cusparse_kernel(const char *cmd, const char *name, char *spec, bench_kernel *k)
{
    static const struct {
        const char *name;
        bench_cusp_format format;
        int fp64; /* FP64 values offered */
    } formats[] = {{"csr", BENCH_CUSP_CSR, 1},
                   {"sell", BENCH_CUSP_SELL, 1},
                   {"coo", BENCH_CUSP_COO, 0},
                   {"bsr", BENCH_CUSP_BSR, 0}};
    char *dash = strchr(spec, '-');
    if (!dash)
        return cli_usage_error(cmd, "kernel '%s' is not cusparse-FORMAT-VALUES "
                               "(e.g. cusparse-sell-fp16)", name);
    *dash++ = '\0';
    k->impl = BENCH_CUSPARSE;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(spec, formats[i].name) != 0)
            continue;
        k->cusp_format = formats[i].format;
        if (psl_scalar_parse(dash, &k->opt.value_type) != PSL_OK ||
            k->opt.value_type == PSL_BF16 || (k->opt.value_type == PSL_FP64 && !formats[i].fp64))
            return cli_usage_error(cmd, "kernel '%s': values '%s' not available for cuSPARSE %s "
                                   "(fp16, fp32%s)", name, dash, spec,
                                   formats[i].fp64 ? ", fp64" : "");
        k->vec = k->opt.value_type;
        return CLI_OK;
    }
    return cli_usage_error(cmd, "kernel '%s': unknown cuSPARSE format '%s' (csr, sell, coo, bsr)",
                           name, spec);
}

/* Parse one kernel name FORMAT-VALUES[:VECTORS] or cusparse-FORMAT-VALUES on
 * top of base options. */
static int parse_kernel(const char *cmd, const char *name, const psl_convert_options *base,
                        bench_kernel *k)
{
    char buf[48], *dash, *colon;
    if (strlen(name) >= sizeof buf)
        return cli_usage_error(cmd, "kernel name '%s' is too long", name);
    memset(k, 0, sizeof *k);
    strcpy(buf, name);
    strcpy(k->name, name);
    k->opt = *base;
    k->opt.csrk_reorder = PSL_CSRK_REORDER_NONE; /* csrk kernels: set below */
    k->impl = BENCH_OURS;
    if (strncmp(buf, "mkl-", 4) == 0) {
#ifdef PSL_HAVE_MKL
        static const char *const mkl_names[] = {"mkl-csr-fp64", "mkl-csr-fp32",
                                                "mkl-csr-noopt-fp64", "mkl-csr-noopt-fp32"};
        int which = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(buf, mkl_names[i]) == 0)
                which = i;
        if (which < 0)
            return cli_usage_error(cmd, "kernel '%s': MKL kernels are mkl-csr-fp64, "
                                   "mkl-csr-fp32, mkl-csr-noopt-fp64 and mkl-csr-noopt-fp32",
                                   name);
        k->impl = BENCH_MKL;
        k->mkl_optimize = which < 2;
        k->opt.format = PSL_FORMAT_CSR;
        k->opt.value_type = k->vec = which % 2 == 0 ? PSL_FP64 : PSL_FP32;
        return CLI_OK;
#else
        return cli_usage_error(cmd, "kernel '%s': this packsell was built without MKL "
                               "(scripts/install-mkl.sh, then CMake -DPSL_WITH_MKL=ON "
                               "-DMKL_ROOT=...)", name);
#endif
    }
    if (strncmp(buf, "cusparse-", 9) == 0) {
        if (strchr(buf, ':'))
            return cli_usage_error(cmd, "kernel '%s': cuSPARSE vectors are the value type "
                                   "(no :VECTORS)", name);
        return parse_cusparse_kernel(cmd, name, buf + 9, k);
    }
    colon = strchr(buf, ':');
    if (colon)
        *colon++ = '\0';
    dash = strchr(buf, '-');
    if (!dash)
        return cli_usage_error(cmd, "kernel '%s' is not FORMAT-VALUES[:VECTORS] (e.g. sell-fp32)",
                               name);
    *dash++ = '\0';
    int width = 8; /* bytes of a value, to pick the default vector type */
    if (strcmp(buf, "csr") == 0 || strcmp(buf, "sell") == 0) {
        k->opt.format = buf[0] == 'c' ? PSL_FORMAT_CSR : PSL_FORMAT_SELL;
        if (psl_scalar_parse(dash, &k->opt.value_type) != PSL_OK ||
            (k->opt.format == PSL_FORMAT_CSR && k->opt.value_type >= PSL_FP16))
            return cli_usage_error(cmd, "kernel '%s': values '%s' not available for %s", name,
                                   dash, buf);
        width = k->opt.value_type == PSL_FP64 ? 8 : k->opt.value_type == PSL_FP32 ? 4 : 2;
    } else if (strcmp(buf, "csrk") == 0) {
        k->opt.format = PSL_FORMAT_CSRK;
        k->opt.csrk_reorder = base->csrk_reorder;
        if (psl_scalar_parse(dash, &k->opt.value_type) != PSL_OK ||
            k->opt.value_type == PSL_BF16)
            return cli_usage_error(cmd, "kernel '%s': values '%s' not available for csrk "
                                   "(fp64, fp32 or fp16)", name, dash);
        width = k->opt.value_type == PSL_FP64 ? 8 : k->opt.value_type == PSL_FP32 ? 4 : 2;
    } else if (strcmp(buf, "packsell") == 0) {
        k->opt.format = PSL_FORMAT_PACKSELL;
        psl_status st = psl_codec_parse(dash, &k->opt.codec);
        if (st != PSL_OK)
            return cli_usage_error(cmd, "kernel '%s': %s", name, psl_last_error_message());
        width = 1 + k->opt.codec.exp_bits + k->opt.codec.man_bits <= 16 ? 2 : 4;
    } else {
        return cli_usage_error(cmd,
                               "kernel '%s': unknown format '%s' (csr, sell, packsell, csrk, "
                               "cusparse)",
                               name, buf);
    }
    k->vec = width == 8 ? PSL_FP64 : width == 4 ? PSL_FP32 : PSL_FP16;
    if (colon && (psl_scalar_parse(colon, &k->vec) != PSL_OK || k->vec == PSL_BF16))
        return cli_usage_error(cmd, "kernel '%s': unknown vector type '%s' (fp64, fp32, fp16)",
                               name, colon);
    return CLI_OK;
}

void bench_args_defaults(bench_args *a, int cuda)
{
    memset(a, 0, sizeof *a);
    a->cuda = cuda;
    a->reps = cuda ? 200 : 10;
    a->warmup = cuda ? 20 : 2;
    a->threads = 0;
    a->seed = 1;
    a->min_time = cuda ? 0.0 : 0.2;
    a->max_time = 2.0;
    a->alpha = 1.0;
    a->beta = 0.0;
    a->rounds = cuda ? 1 : 5;
    a->read_bytes = -1; /* bench_parse: the default, once the command line is checked */
}

int bench_parse(int argc, char **argv, bench_args *a)
{
    const char *cmd = "bench";
    cli_opt opts[] = {{"--device", NULL, 1, NULL, 0},   {"--reps", NULL, 1, NULL, 0},
                      {"--min-time", NULL, 1, NULL, 0}, {"--warmup", NULL, 1, NULL, 0},
                      {"--threads", NULL, 1, NULL, 0},  {"--kernels", NULL, 1, NULL, 0},
                      {"--slice", NULL, 1, NULL, 0},    {"--sigma", NULL, 1, NULL, 0},
                      {"--permute", NULL, 1, NULL, 0},  {"--overflow", NULL, 1, NULL, 0},
                      {"--alpha", NULL, 1, NULL, 0},    {"--beta", NULL, 1, NULL, 0},
                      {"--seed", NULL, 1, NULL, 0},     {"--json", NULL, 1, NULL, 0},
                      {"--scale", NULL, 1, NULL, 0},
                      {"--max-time", NULL, 1, NULL, 0}, {"--format", NULL, 1, NULL, 0},
                      {"--rounds", NULL, 1, NULL, 0},   {"--read-mib", NULL, 1, NULL, 0},
                      CLI_CSRK_OPTS};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1] = {DEFAULT_MATRIX};
    int npos = 0, rc = cli_parse(cmd, argc, argv, opts, nopts, pos, 1, &npos);
    if (rc)
        return rc;
    const char *device = cli_find(opts, nopts, "--device")->value;
    /* "cuda" is checked for availability later (cmd_bench), after the whole
     * command line has been checked; anything else goes to the shared check */
    bench_args_defaults(a, device && (strcmp(device, "cuda") == 0 || strcmp(device, "CUDA") == 0));
    a->device = device;
    a->matrix = npos ? pos[0] : DEFAULT_MATRIX;
    a->json = cli_find(opts, nopts, "--json")->value;
    if ((rc = cli_check_output(cmd, "--json", a->json)) != 0)
        return rc;
    if (!a->cuda && (rc = cli_check_device(cmd, a->device)) != 0)
        return rc;
    const char *s;
#define INT_OPT(flag, field, lo, hi)                                                  \
    if ((s = cli_find(opts, nopts, flag)->value) != NULL) {                            \
        long long v_;                                                                   \
        if ((rc = cli_parse_int(cmd, flag, s, lo, hi, &v_)) != 0)                       \
            return rc;                                                                  \
        a->field = v_;                                                                  \
    }
#define DBL_OPT(flag, field)                                                           \
    if ((s = cli_find(opts, nopts, flag)->value) != NULL &&                            \
        (rc = cli_parse_double(cmd, flag, s, &a->field)) != 0)                         \
        return rc;
    INT_OPT("--reps", reps, 1, MAX_RUNS)
    INT_OPT("--warmup", warmup, 0, 1000000)
    INT_OPT("--threads", threads, 1, 1 << 16)
    INT_OPT("--seed", seed, 0, INT64_MAX)
    INT_OPT("--rounds", rounds, 1, BENCH_MAX_ROUNDS)
    INT_OPT("--read-mib", read_bytes, 0, MAX_READ_MIB)
    a->read_bytes = a->read_bytes < 0 ? bench_read_default_bytes() : a->read_bytes << 20;
    DBL_OPT("--min-time", min_time)
    DBL_OPT("--max-time", max_time)
    DBL_OPT("--alpha", alpha)
    DBL_OPT("--beta", beta)
#undef INT_OPT
#undef DBL_OPT
    if (a->min_time < 0)
        return cli_usage_error(cmd, "--min-time must be >= 0");
    if (!(a->max_time > 0))
        return cli_usage_error(cmd, "--max-time must be > 0");
    if ((s = cli_find(opts, nopts, "--scale")->value) != NULL) {
        if (strcmp(s, "rows") == 0)
            a->scale_rows = 1;
        else if (strcmp(s, "none") != 0)
            return cli_usage_error(cmd, "--scale must be none or rows, not '%s'", s);
    }

    /* C, sigma, permutation and overflow through the shared format options
     * (as if for SELL, so that --slice/--sigma/--permute are accepted). */
    cli_format_args fa = {.format = "sell"};
    fa.slice = cli_find(opts, nopts, "--slice")->value;
    fa.sigma = cli_find(opts, nopts, "--sigma")->value;
    fa.permute = cli_find(opts, nopts, "--permute")->value;
    fa.overflow = cli_find(opts, nopts, "--overflow")->value;
    psl_convert_options base;
    if ((rc = cli_format_options(cmd, &fa, &base)) != 0)
        return rc;
    /* the CSR-k sizes, for the csrk kernels */
    fa.csrk_k = cli_find(opts, nopts, "--csrk-k")->value;
    fa.csrk_sr = cli_find(opts, nopts, "--csrk-sr")->value;
    fa.csrk_ssr = cli_find(opts, nopts, "--csrk-ssr")->value;
    fa.csrk_reorder = cli_find(opts, nopts, "--csrk-reorder")->value;
    fa.csrk_fit = cli_find(opts, nopts, "--csrk-fit")->value;
    if ((rc = cli_csrk_options(cmd, &fa, &base)) != 0)
        return rc;

    const char *list = cli_find(opts, nopts, "--kernels")->value;
    const char *format = cli_find(opts, nopts, "--format")->value;
    if (format) {
        if (!cli_same(format, "csrk"))
            return cli_usage_error(cmd, "--format takes csrk (other formats: --kernels), not "
                                   "'%s'", format);
        if (list)
            return cli_usage_error(cmd, "--format csrk and --kernels exclude each other");
        list = CSRK_KERNELS;
    }
    if (!list || strcmp(list, "all") == 0)
        list = a->cuda ? DEFAULT_CUDA_KERNELS : DEFAULT_KERNELS;
    a->nkernels = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        char name[64];
        if (len == 0 || len >= sizeof name)
            return cli_usage_error(cmd, "bad --kernels list '%s'", list);
        memcpy(name, p, len);
        name[len] = '\0';
        if (a->nkernels == BENCH_MAX_KERNELS)
            return cli_usage_error(cmd, "at most %d kernels", BENCH_MAX_KERNELS);
        if ((rc = parse_kernel(cmd, name, &base, &a->kernels[a->nkernels++])) != 0)
            return rc;
        p += len;
        if (*p == ',' && *++p == '\0')
            return cli_usage_error(cmd, "bad --kernels list '%s'", list);
    }
    for (int i = 0; i < a->nkernels; i++) {
        if (!a->cuda && a->kernels[i].impl == BENCH_CUSPARSE)
            return cli_usage_error(cmd, "kernel '%s' needs --device cuda", a->kernels[i].name);
        if (a->cuda && a->kernels[i].impl == BENCH_MKL)
            return cli_usage_error(cmd, "kernel '%s' needs --device cpu", a->kernels[i].name);
    }
    return CLI_OK;
}

/* Replace the FP64 CSR matrix *A by G^-1 A, g_i = sum_j |a_ij| (rows
 * without entries or with zero sum stay as they are). */
static psl_status scale_rows(psl_matrix **A)
{
    psl_matrix *B = NULL;
    psl_status st = psl_matrix_scale_rows(&B, *A, NULL);
    if (st == PSL_OK) {
        psl_matrix_destroy(A);
        *A = B;
    }
    return st;
}

void bench_data_free(bench_data *d)
{
    psl_matrix_destroy(&d->A);
    free(d->x);
    free(d->y0);
    d->x = d->y0 = NULL;
}

void bench_device_init(bench_device *dev)
{
    memset(dev, 0, sizeof *dev);
    dev->copy_gbs = -1;
    dev->build_ms[0] = dev->build_ms[1] = -1;
}

static int prepare(const char *cmd, const bench_args *a, bench_data *d);

int bench_data_load(const char *cmd, const bench_args *a, bench_data *d, double *load_s)
{
    psl_status st;
    double conv_s = 0;
    psl_convert_options csr;
    psl_convert_options_init(&csr);
    csr.format = PSL_FORMAT_CSR;
    csr.value_type = PSL_FP64;
    int rc = cli_load_matrix(cmd, a->matrix, &csr, &d->A, load_s, &conv_s);
    if (rc)
        return rc;
    *load_s += conv_s;
    if (a->scale_rows && (st = scale_rows(&d->A)) != PSL_OK)
        return cli_lib_error(cmd, st);
    if ((st = psl_matrix_get_info(d->A, &d->info)) != PSL_OK)
        return cli_lib_error(cmd, st);
    return prepare(cmd, a, d);
}

/* Build x (uniform in [-1, 1) rounded to FP16) and y0 (the same stream,
 * zero when beta == 0). */
static int prepare(const char *cmd, const bench_args *a, bench_data *d)
{
    int64_t m = d->info.nrows, n = d->info.ncols;
    d->x = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->x);
    d->y0 = malloc((size_t)(m > 0 ? m : 1) * sizeof *d->y0);
    if (!d->x || !d->y0)
        return cli_error(cmd, "out of memory for the vectors");
    uint64_t s = (uint64_t)a->seed;
    for (int64_t j = 0; j < n + m; j++) {
        double u = cli_round_fp16(cli_uniform_pm1(&s));
        if (j < n)
            d->x[j] = u;
        else
            d->y0[j - n] = a->beta != 0.0 ? u : 0.0;
    }
    return CLI_OK;
}

/* Backward error of y (original row order): psl_spmv_backward_error
 * against alpha*A*x + beta*y0 in FP64 (NaN if it cannot be computed). */
double bench_backward_error(const bench_data *d, const bench_args *a, const double *y)
{
    double err;
    if (psl_spmv_backward_error(d->A, a->alpha, d->x, a->beta, d->y0, y, &err) != PSL_OK)
        return NAN;
    return err;
}

/* One CPU kernel between its set-up and its result: ours (the converted
 * matrix and its vectors) or MKL's, and its timings of all rounds. */
#define READ_PASSES 3    /* timed read-bandwidth passes per round */
#define READ_SAME_WARM 8 /* untimed passes before a same-size read's timed ones */

typedef struct cpu_kernel {
    psl_matrix *M;
    void *xv, *yv, *y0v;
    int32_t *order; /* stored row -> original row */
#ifdef PSL_HAVE_MKL
    bench_mkl *mkl;
#endif
    double *t;
    int64_t cap;
    double read_t[BENCH_MAX_ROUNDS * READ_PASSES]; /* same-size read passes */
    int nread;
    int64_t read_bytes; /* bytes of each same-size pass */
    int failed;
} cpu_kernel;

static void result_defaults(bench_result *r)
{
    memset(r, 0, sizeof *r);
    r->ratio_sell = -1;
    r->pct_copy = -1;
    r->pct_read = -1;
    r->read_same_gbs = r->pct_read_same = -1;
    r->enqueue_us = -1;
    r->mkl_create_seconds = r->mkl_optimize_seconds = r->tolerance = -1;
    r->mkl_hint_calls = -1;
    r->mkl_optimize_bytes = -1;
    snprintf(r->impl, sizeof r->impl, "-");
}

/* Convert our kernel's matrix, build its vectors (y0 in stored row order
 * for explicit permutation). Failures go into r->error (returns -1). */
static int setup_ours(const bench_args *a, const bench_data *d, const bench_kernel *k,
                      bench_result *r, cpu_kernel *ck)
{
    int64_t m = d->info.nrows, n = d->info.ncols;
    psl_matrix_info mi;
    double t0 = cli_now();
    psl_status st = psl_matrix_convert(&ck->M, d->A, &k->opt); /* CSR FP64 too: a timed copy */
    r->convert_seconds = cli_now() - t0;
    if (st == PSL_OK)
        st = psl_matrix_get_info(ck->M, &mi);
    if (st != PSL_OK) {
        snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
        return -1;
    }
    cli_values_name(&mi, r->values, sizeof r->values);
    r->bytes = mi.bytes;
    r->sell_bytes = mi.sell_bytes;
    r->ratio_sell = mi.sell_bytes > 0 ? (double)mi.bytes / (double)mi.sell_bytes : -1;
    r->traffic = bench_traffic_bytes(mi.bytes, cli_vec_size(k->vec), m, n, a->beta != 0);
    snprintf(r->impl, sizeof r->impl, "%s", psl_spmv_kernel_name(ck->M, k->vec));

    int explicit_perm = mi.format != PSL_FORMAT_CSR && mi.permute == PSL_PERMUTE_EXPLICIT;
    double *y = malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
    ck->order = malloc((size_t)(m > 0 ? m : 1) * sizeof *ck->order);
    if (!y || !ck->order) {
        free(y);
        snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    if (explicit_perm) {
        if ((st = psl_matrix_row_order(ck->M, ck->order)) != PSL_OK) {
            free(y);
            snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
            return -1;
        }
    } else {
        for (int64_t i = 0; i < m; i++)
            ck->order[i] = (int32_t)i;
    }
    for (int64_t i = 0; i < m; i++)
        y[i] = d->y0[ck->order[i]];
    ck->xv = cli_vec_from_double(d->x, n, k->vec, "x", r->error, sizeof r->error);
    ck->y0v = ck->xv ? cli_vec_from_double(y, m, k->vec, "y0", r->error, sizeof r->error) : NULL;
    ck->yv = ck->y0v ? malloc((size_t)(m > 0 ? m : 1) * cli_vec_size(k->vec)) : NULL;
    free(y);
    if (!ck->yv) {
        if (!r->error[0])
            snprintf(r->error, sizeof r->error, "out of memory");
        return -1;
    }
    if (m > 0)
        memcpy(ck->yv, ck->y0v, (size_t)m * cli_vec_size(k->vec));
    return 0;
}

#ifdef PSL_HAVE_MKL
/* MKL's kernel: its CSR arrays (LP64: 32-bit row pointers) in the value
 * type, and a backward-error tolerance from the precision: a row of k
 * entries accumulates at most about (k + 1) roundings of the unit roundoff
 * u relative to sum_j |a_ij x_j| <= ||A||_inf ||x||_inf (values rounded
 * once, k products and sums), plus one. */
static int setup_mkl(const bench_args *a, const bench_data *d, const bench_kernel *k,
                     bench_result *r, cpu_kernel *ck)
{
    int64_t m = d->info.nrows, n = d->info.ncols;
    size_t vs = cli_vec_size(k->vec);
    snprintf(r->values, sizeof r->values, "%s", psl_scalar_name(k->opt.value_type));
    snprintf(r->impl, sizeof r->impl, "mkl_%c_mv",
             k->opt.value_type == PSL_FP64 ? 'd' : 's');
    double u = k->opt.value_type == PSL_FP64 ? 0x1p-53 : 0x1p-24;
    r->tolerance = ((double)d->info.max_row_nnz + 2.0) * u;
    ck->mkl = bench_mkl_setup(a, d, k, r); /* r->bytes: its CSR arrays */
    r->traffic = bench_traffic_bytes(r->bytes, vs, m, n, a->beta != 0);
    return ck->mkl ? 0 : -1;
}
#endif

static int setup_kernel(const bench_args *a, const bench_data *d, const bench_kernel *k,
                        bench_result *r, cpu_kernel *ck)
{
    result_defaults(r);
#ifdef PSL_HAVE_MKL
    if (k->impl == BENCH_MKL)
        return setup_mkl(a, d, k, r, ck);
#endif
    return setup_ours(a, d, k, r, ck);
}

/* One product y = alpha A x + beta y; 0, or -1 with r->error set. */
static int run_once(const bench_args *a, const bench_kernel *k, cpu_kernel *ck, bench_result *r)
{
#ifdef PSL_HAVE_MKL
    if (ck->mkl)
        return bench_mkl_run(ck->mkl, r);
#endif
    if (psl_spmv(a->alpha, ck->M, ck->xv, a->beta, ck->yv, k->vec) == PSL_OK)
        return 0;
    snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
    return -1;
}

int64_t bench_expected_calls(const bench_args *a, double seconds)
{
    long long per_reps = (a->reps + a->rounds - 1) / a->rounds;
    double per_time = a->min_time / (double)a->rounds;
    double by_time = seconds > 0 ? ceil(per_time / seconds) : (double)MAX_RUNS;
    double timed = fmin(fmax((double)per_reps, by_time), (double)MAX_RUNS);
    return (int64_t)((double)a->rounds * ((double)a->warmup + timed)) + 1;
}

/* One round of a kernel: warm-up, then at least reps / rounds runs and
 * min_time / rounds seconds; the round's median into r->round_median. */
static int time_round(const bench_args *a, const bench_kernel *k, cpu_kernel *ck,
                      bench_result *r)
{
    long long per_reps = (a->reps + a->rounds - 1) / a->rounds;
    double per_time = a->min_time / (double)a->rounds, total = 0.0;
    for (long long w = 0; w < a->warmup; w++)
        if (run_once(a, k, ck, r) != 0)
            return -1;
    int64_t start = r->runs;
    while (r->runs < MAX_RUNS && (r->runs - start < per_reps || total < per_time)) {
        if (r->runs == ck->cap) {
            int64_t cap = ck->cap ? 2 * ck->cap : 64;
            double *nt = realloc(ck->t, (size_t)cap * sizeof *nt);
            if (!nt) {
                snprintf(r->error, sizeof r->error, "out of memory for timings");
                return -1;
            }
            ck->t = nt;
            ck->cap = cap;
        }
        double s0 = cli_now();
        int rc = run_once(a, k, ck, r);
        double s1 = cli_now() - s0;
        if (rc != 0)
            return -1;
        ck->t[r->runs++] = s1;
        total += s1;
    }
    if (r->runs > start && r->nrounds < BENCH_MAX_ROUNDS)
        r->round_median[r->nrounds++] = cli_median(ck->t + start, r->runs - start);
    return 0;
}

/* A fresh product, its backward error (MKL: checked against r->tolerance),
 * and the statistics of all timed runs. */
static int finish_kernel(const bench_args *a, const bench_data *d, const bench_kernel *k,
                         cpu_kernel *ck, bench_result *r)
{
    int64_t m = d->info.nrows;
    double *y = malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
    double *ys = malloc((size_t)(m > 0 ? m : 1) * sizeof *ys);
    int rc = -1;
    if (!y || !ys) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
#ifdef PSL_HAVE_MKL
    if (ck->mkl) {
        if (bench_mkl_result(ck->mkl, y, r) != 0)
            goto done;
    } else
#endif
    {
        if (m > 0)
            memcpy(ck->yv, ck->y0v, (size_t)m * cli_vec_size(k->vec));
        if (run_once(a, k, ck, r) != 0)
            goto done;
        cli_vec_to_double(ck->yv, m, k->vec, ys);
        for (int64_t i = 0; i < m; i++)
            y[ck->order[i]] = ys[i];
    }
    r->backward_error = bench_backward_error(d, a, y);
    if (r->tolerance >= 0 && !(r->backward_error <= r->tolerance)) {
        snprintf(r->error, sizeof r->error, "wrong result: backward error %.3e above %.3e",
                 r->backward_error, r->tolerance);
        goto done;
    }
    r->t_min = r->t_max = ck->t[0];
    for (int64_t i = 1; i < r->runs; i++) {
        r->t_min = fmin(r->t_min, ck->t[i]);
        r->t_max = fmax(r->t_max, ck->t[i]);
    }
    r->t_median = cli_median(ck->t, r->runs);
    r->gflops = bench_gbs(2.0 * (double)d->info.nnz, r->t_median);
    r->gbs = bench_gbs((double)r->traffic, r->t_median);
    rc = 0;
done:
    free(y);
    free(ys);
    return rc;
}

static void destroy_kernel(cpu_kernel *ck)
{
    psl_matrix_destroy(&ck->M);
#ifdef PSL_HAVE_MKL
    bench_mkl_destroy(ck->mkl);
    ck->mkl = NULL;
#endif
    free(ck->xv);
    free(ck->yv);
    free(ck->y0v);
    free(ck->order);
    free(ck->t);
    memset(ck, 0, sizeof *ck);
}

/* One round of the read bandwidth: `warm` passes, then READ_PASSES timed
 * passes into t (n of them so far); -1 when a sum came out wrong. */
static int read_round(const bench_read_buf *b, int warm, double *t, int *n, int cap)
{
    for (int w = 0; w < warm; w++)
        if (bench_read_pass(b) < 0)
            return -1;
    for (int p = 0; p < READ_PASSES && *n < cap; p++) {
        double s = bench_read_pass(b);
        if (s < 0)
            return -1;
        t[(*n)++] = s;
    }
    return 0;
}

/* One round of the read bandwidth over the first `bytes` of b (all of it
 * if shorter): the same-size ceiling of a kernel that moves that many
 * bytes a product. A working set a few times the last-level cache still
 * keeps part of itself there from pass to pass (how much depends on the
 * cache's replacement), so a matrix of 2-4 x the cache is read faster than
 * the large buffer; reading the same number of bytes again and again shows
 * what the memory system gives at that size. The share kept grows over the
 * first passes (2-core AMD host, 56 MB against a 32 MB L3: 34 GB/s in the
 * first two passes, 47-53 from the fourth on), hence READ_SAME_WARM
 * untimed passes, as the kernel's own warm-up and runs before it. */
static int read_round_size(const bench_read_buf *b, int64_t bytes, cpu_kernel *ck)
{
    bench_read_buf view = *b;
    int64_t want = bytes / (int64_t)sizeof(double);
    if (want < view.n)
        view.n = want < 8 ? 8 : want;
    ck->read_bytes = view.n * (int64_t)sizeof(double);
    return read_round(&view, READ_SAME_WARM, ck->read_t, &ck->nread,
                      (int)(sizeof ck->read_t / sizeof ck->read_t[0]));
}

/* A kernel's result after its rounds: a fresh product, the statistics
 * (finish_kernel); then its matrix and vectors are freed. */
static void complete_kernel(const bench_args *a, const bench_data *d, int i, cpu_kernel *ck,
                            bench_result *r)
{
    if (!ck->failed && finish_kernel(a, d, &a->kernels[i], ck, r) == 0)
        r->ok = 1;
    if (!r->ok && !r->error[0])
        snprintf(r->error, sizeof r->error, "failed");
    destroy_kernel(ck);
}

/* Median, min and max of the read passes into host. */
static void read_stats(double *t, int n, bench_host *host)
{
    if (n <= 0 || host->read_error[0])
        return;
    double tmin = t[0], tmax = t[0];
    for (int p = 1; p < n; p++) {
        tmin = fmin(tmin, t[p]);
        tmax = fmax(tmax, t[p]);
    }
    host->read_runs = n;
    host->read_gbs = bench_gbs((double)host->read_bytes, cli_median(t, n));
    host->read_max_gbs = bench_gbs((double)host->read_bytes, tmin);
    host->read_min_gbs = bench_gbs((double)host->read_bytes, tmax);
}

/* The CPU side of bench. With several rounds every kernel is set up first
 * (all matrices stay in memory), then each round makes one set of read-
 * bandwidth passes and times every kernel in turn, starting one kernel
 * later each round, so that the noise of a shared machine hits all kernels
 * alike. With one round the read passes come first and the kernels one
 * after the other, one matrix in memory at a time. */
static void run_cpu(const bench_args *a, const bench_data *d, bench_result *res, bench_host *host)
{
    cpu_kernel *ck = calloc((size_t)a->nkernels, sizeof *ck);
    double read_t[BENCH_MAX_ROUNDS * READ_PASSES];
    const int read_cap = (int)(sizeof read_t / sizeof read_t[0]);
    int nread = 0, together = a->rounds > 1;
    bench_read_buf buf = {NULL, 0};
    host->read_gbs = host->read_min_gbs = host->read_max_gbs = -1;
    if (!ck) {
        for (int i = 0; i < a->nkernels; i++) {
            result_defaults(&res[i]);
            snprintf(res[i].error, sizeof res[i].error, "out of memory");
        }
        return;
    }
    for (int i = 0; together && i < a->nkernels; i++)
        ck[i].failed = setup_kernel(a, d, &a->kernels[i], &res[i], &ck[i]) != 0;
    if (a->read_bytes > 0 && bench_read_alloc(&buf, a->read_bytes) != 0)
        snprintf(host->read_error, sizeof host->read_error, "out of memory for %lld bytes",
                 a->read_bytes);
    if (buf.a)
        host->read_bytes = buf.n * (int64_t)sizeof(double);
    for (long long round = 0; round < a->rounds; round++) {
        if (buf.a && read_round(&buf, 1, read_t, &nread, read_cap) != 0) {
            snprintf(host->read_error, sizeof host->read_error, "wrong sum of the read kernel");
            bench_read_free(&buf);
        }
        if (!together)
            bench_read_free(&buf); /* before the kernels' matrices */
        for (int j = 0; j < a->nkernels; j++) {
            int i = (int)((j + round) % a->nkernels);
            if (!together)
                ck[i].failed = setup_kernel(a, d, &a->kernels[i], &res[i], &ck[i]) != 0;
            if (!ck[i].failed)
                ck[i].failed = time_round(a, &a->kernels[i], &ck[i], &res[i]) != 0;
            if (together && buf.a && !ck[i].failed &&
                read_round_size(&buf, res[i].traffic, &ck[i]) != 0) {
                snprintf(host->read_error, sizeof host->read_error,
                         "wrong sum of the read kernel");
                bench_read_free(&buf);
            }
            if (!together)
                complete_kernel(a, d, i, &ck[i], &res[i]);
        }
    }
    bench_read_free(&buf);
    read_stats(read_t, nread, host);
    for (int i = 0; together && i < a->nkernels; i++) {
        if (ck[i].nread > 0 && !host->read_error[0])
            res[i].read_same_gbs =
                bench_gbs((double)ck[i].read_bytes, cli_median(ck[i].read_t, ck[i].nread));
        complete_kernel(a, d, i, &ck[i], &res[i]);
    }
    for (int i = 0; i < a->nkernels; i++)
        if (res[i].ok) {
            res[i].pct_read = bench_pct_of(res[i].gbs, host->read_gbs);
            if (res[i].read_same_gbs > 0)
                res[i].pct_read_same = bench_pct_of(res[i].gbs, res[i].read_same_gbs);
        }
    free(ck);
}

/* CSR matrices know no SELL equivalent: take the ratio to the SELL kernel of
 * the same value type in this run, if there is one. */
static void fill_csr_ratios(const bench_args *a, bench_result *res)
{
    for (int i = 0; i < a->nkernels; i++) {
        const psl_convert_options *oi = &a->kernels[i].opt;
        if (!res[i].ok || a->kernels[i].impl != BENCH_OURS || oi->format != PSL_FORMAT_CSR ||
            res[i].ratio_sell >= 0)
            continue;
        for (int k = 0; k < a->nkernels; k++) {
            const psl_convert_options *ok = &a->kernels[k].opt;
            if (res[k].ok && a->kernels[k].impl == BENCH_OURS && ok->format == PSL_FORMAT_SELL &&
                ok->value_type == oi->value_type && res[k].bytes > 0) {
                res[i].sell_bytes = res[k].bytes;
                res[i].ratio_sell = (double)res[i].bytes / (double)res[k].bytes;
                break;
            }
        }
    }
}

static int threads_in_use(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The table on stdout; dev is NULL on the CPU. */
static void print_table(const bench_args *a, const bench_data *d, const bench_result *res,
                        double load_s, const bench_device *dev, const bench_host *host)
{
    const psl_convert_options *o = &a->kernels[0].opt;
    if (dev) {
        printf("packsell %s, device cuda: %s (sm_%d%d, %.1f GiB)\n", psl_version(), dev->name,
               dev->cc_major, dev->cc_minor, dev->mem_gib);
        if (dev->copy_gbs > 0)
            printf("device-to-device copy: %.1f GB/s (read + write; %lld bytes, median %.2f us "
                   "of %d)\n", dev->copy_gbs, (long long)dev->copy_bytes, dev->copy_us,
                   dev->copy_runs);
        else
            printf("device-to-device copy: failed: %s\n", dev->copy_error);
        for (int b = 0; b < 2; b++)
            if (dev->build_ms[b] > 0)
                printf("GPU build CSR->%s FP16: %.3f ms (%.1f x its SpMV)\n",
                       b ? "SELL" : "PackSELL", dev->build_ms[b],
                       dev->build_spmv_us[b] > 0 ? dev->build_ms[b] * 1e3 / dev->build_spmv_us[b]
                                                 : 0.0);
        if (dev->build_error[0])
            printf("GPU build: failed: %s\n", dev->build_error);
    } else {
        printf("packsell %s, %d threads, device cpu: %s\n", psl_version(), threads_in_use(),
               host->cpu);
        if (host->read_gbs > 0)
            printf("read bandwidth: %.2f GB/s (median of %d passes over %lld bytes, %lld "
                   "rounds; min %.2f, max %.2f)\n", host->read_gbs, host->read_runs,
                   (long long)host->read_bytes, a->rounds, host->read_min_gbs,
                   host->read_max_gbs);
        else
            printf("read bandwidth: %s\n", host->read_error[0] ? host->read_error
                                                               : "not measured");
        if (host->mkl_version[0])
            printf("%s, threading %s\n", host->mkl_version, host->mkl_threading);
    }
    printf("matrix %s: %d x %d, %lld nonzeros, RSD %.4f, kleft %lld (load %.3f s)\n",
           a->matrix, (int)d->info.nrows, (int)d->info.ncols, (long long)d->info.nnz,
           d->info.rsd, (long long)d->info.kleft, load_s);
    printf("C = %d, sigma = %d, %s permutation, alpha = %g, beta = %g\n",
           (int)o->slice_height, (int)o->sigma,
           o->permute == PSL_PERMUTE_EXPLICIT ? "explicit" : "implicit", a->alpha, a->beta);
    if (dev)
        printf("cuSPARSE rows: the matrix with its rows sigma-sorted (explicitly reordered)\n");
    printf("\n%-20s %-6s %-7s %-10s %6s %12s %12s %12s %9s %9s %6s%s %12s %7s %10s %9s\n",
           "kernel", "values", "vectors", "impl", "runs", "median_us", "min_us", "max_us",
           "GFLOPS", "GB/s", dev ? "%copy" : "%read", dev ? "" : "  %same", "bytes", "ratio",
           "bwd_error", "prep_s");
    for (int i = 0; i < a->nkernels; i++) {
        const bench_kernel *k = &a->kernels[i];
        const bench_result *r = &res[i];
        if (!r->ok) {
            printf("%-20s %-6s %-7s error: %s\n", k->name, r->values[0] ? r->values : "-",
                   psl_scalar_name(k->vec), r->error);
            continue;
        }
        char ratio[16], pct[16], same[16] = "";
        if (r->ratio_sell >= 0)
            snprintf(ratio, sizeof ratio, "%.3f", r->ratio_sell);
        else
            snprintf(ratio, sizeof ratio, "-");
        double p = dev ? r->pct_copy : r->pct_read;
        if (p >= 0)
            snprintf(pct, sizeof pct, "%.1f", p);
        else
            snprintf(pct, sizeof pct, "-");
        if (!dev && r->pct_read_same >= 0)
            snprintf(same, sizeof same, " %6.1f", r->pct_read_same);
        else if (!dev)
            snprintf(same, sizeof same, " %6s", "-");
        printf("%-20s %-6s %-7s %-10s %6lld %12.2f %12.2f %12.2f %9.3f %9.2f %6s%s %12lld %7s "
               "%10.3e %9.4f\n",
               k->name, r->values, psl_scalar_name(k->vec), r->impl, (long long)r->runs,
               r->t_median * 1e6, r->t_min * 1e6, r->t_max * 1e6, r->gflops, r->gbs, pct, same,
               (long long)r->bytes, ratio, r->backward_error, r->convert_seconds);
    }
}

/* All results as JSON into --json FILE; dev is NULL on the CPU. */
static int write_json(const char *cmd, const bench_args *a, const bench_data *d,
                      const bench_result *res, double load_s, const bench_device *dev,
                      const bench_auto *au, const bench_host *hs)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status ost = psl_output_begin(&out, a->json, &f);
    if (ost != PSL_OK)
        return cli_lib_error(cmd, ost);
    const psl_convert_options *o = &a->kernels[0].opt;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    cli_json_report_head(&j, dev ? "cuda" : "cpu");
    cli_json_int(&j, "threads", threads_in_use());
    if (!dev) {
        cli_json_string(&j, "cpu", hs->cpu);
        cli_json_int(&j, "rounds", a->rounds);
        if (hs->read_gbs > 0) {
            cli_json_double(&j, "read_bw_gbs", hs->read_gbs);
            cli_json_double(&j, "read_bw_min_gbs", hs->read_min_gbs);
            cli_json_double(&j, "read_bw_max_gbs", hs->read_max_gbs);
            cli_json_int(&j, "read_bw_bytes", hs->read_bytes);
            cli_json_int(&j, "read_bw_runs", hs->read_runs);
        } else {
            cli_json_null(&j, "read_bw_gbs");
            if (hs->read_error[0])
                cli_json_string(&j, "read_bw_error", hs->read_error);
        }
        /* idle OpenMP threads of one runtime (libgomp, MKL's) spin into the
         * other's kernels unless told to wait passively */
        cli_json_string(&j, "omp_wait_policy", getenv("OMP_WAIT_POLICY"));
        cli_json_string(&j, "mkl", hs->mkl_version[0] ? hs->mkl_version : NULL);
        if (hs->mkl_version[0])
            cli_json_string(&j, "mkl_threading", hs->mkl_threading);
    }
    if (dev) {
        cli_json_string(&j, "gpu", dev->name);
        cli_json_string(&j, "timing", "cuda events, back-to-back runs, median");
        cli_json_int(&j, "compute_capability", dev->cc_major * 10 + dev->cc_minor);
        cli_json_double(&j, "gpu_memory_gib", dev->mem_gib);
        if (dev->copy_gbs > 0) {
            cli_json_double(&j, "copy_gbs", dev->copy_gbs);
            cli_json_double(&j, "copy_us", dev->copy_us);
            cli_json_int(&j, "copy_bytes", dev->copy_bytes);
            cli_json_int(&j, "copy_runs", dev->copy_runs);
        } else {
            cli_json_null(&j, "copy_gbs");
            cli_json_string(&j, "copy_error", dev->copy_error);
        }
        static const char *build_keys[2][2] = {
            {"gpu_build_packsell_fp16_ms", "gpu_build_packsell_fp16_spmv_us"},
            {"gpu_build_sell_fp16_ms", "gpu_build_sell_fp16_spmv_us"}};
        for (int b = 0; b < 2; b++) {
            if (dev->build_ms[b] > 0) {
                cli_json_double(&j, build_keys[b][0], dev->build_ms[b]);
                cli_json_double(&j, build_keys[b][1], dev->build_spmv_us[b]);
            } else {
                cli_json_null(&j, build_keys[b][0]);
            }
        }
        if (dev->build_error[0])
            cli_json_string(&j, "gpu_build_error", dev->build_error);
    }
    cli_json_string(&j, "matrix", a->matrix);
    cli_json_string(&j, "scale", a->scale_rows ? "rows" : "none");
    cli_json_int(&j, "rows", d->info.nrows);
    cli_json_int(&j, "cols", d->info.ncols);
    cli_json_int(&j, "nnz", d->info.nnz);
    cli_json_double(&j, "rsd", d->info.rsd);
    cli_json_int(&j, "kleft", d->info.kleft);
    cli_json_int(&j, "max_row_nnz", d->info.max_row_nnz);
    cli_json_double(&j, "load_seconds", load_s);
    cli_json_int(&j, "C", o->slice_height);
    cli_json_int(&j, "sigma", o->sigma);
    cli_json_string(&j, "permute", o->permute == PSL_PERMUTE_EXPLICIT ? "explicit" : "implicit");
    cli_json_double(&j, "alpha", a->alpha);
    cli_json_double(&j, "beta", a->beta);
    cli_json_int(&j, "reps", a->reps);
    cli_json_double(&j, "min_time", a->min_time);
    cli_json_double(&j, "max_time", a->max_time);
    cli_json_int(&j, "warmup", a->warmup);
    cli_json_int(&j, "seed", a->seed);
    cli_json_begin_array(&j, "kernels");
    for (int i = 0; i < a->nkernels; i++) {
        const bench_kernel *k = &a->kernels[i];
        const bench_result *r = &res[i];
        cli_json_begin_object(&j, NULL);
        cli_json_string(&j, "kernel", k->name);
        if (k->impl == BENCH_CUSPARSE) {
            static const char *cf[] = {"csr", "sell", "coo", "bsr"};
            cli_json_string(&j, "library", "cusparse");
            cli_json_string(&j, "format", cf[k->cusp_format]);
        } else if (k->impl == BENCH_MKL) {
            cli_json_string(&j, "library", "mkl");
            cli_json_string(&j, "format", "csr");
        } else {
            cli_json_string(&j, "library", "packsell");
            cli_json_string(&j, "format", psl_format_name(k->opt.format));
        }
        cli_json_string(&j, "values", r->values[0] ? r->values : NULL);
        cli_json_string(&j, "vectors", psl_scalar_name(k->vec));
        cli_json_bool(&j, "ok", r->ok);
        if (!r->ok) {
            cli_json_string(&j, "error", r->error);
        } else {
            cli_json_string(&j, "impl", r->impl);
            cli_json_int(&j, "runs", r->runs);
            cli_json_double(&j, "median_us", r->t_median * 1e6);
            cli_json_double(&j, "min_us", r->t_min * 1e6);
            cli_json_double(&j, "max_us", r->t_max * 1e6);
            cli_json_double(&j, "gflops", r->gflops);
            cli_json_double(&j, "gbs", r->gbs);
            if (r->pct_copy >= 0)
                cli_json_double(&j, "pct_copy", r->pct_copy);
            if (dev && r->enqueue_us >= 0)
                cli_json_double(&j, "host_enqueue_us", r->enqueue_us);
            if (!dev) {
                cli_json_int(&j, "traffic_bytes", r->traffic);
                if (r->read_same_gbs > 0) {
                    cli_json_double(&j, "read_bw_same_size_gbs", r->read_same_gbs);
                    cli_json_double(&j, "pct_read_bw_same_size", r->pct_read_same);
                } else {
                    cli_json_null(&j, "read_bw_same_size_gbs");
                    cli_json_null(&j, "pct_read_bw_same_size");
                }
                if (r->pct_read >= 0)
                    cli_json_double(&j, "pct_read_bw", r->pct_read);
                else
                    cli_json_null(&j, "pct_read_bw");
                cli_json_begin_array(&j, "round_median_us");
                for (int q = 0; q < r->nrounds; q++)
                    cli_json_double(&j, NULL, r->round_median[q] * 1e6);
                cli_json_end_array(&j);
            }
            if (k->impl == BENCH_MKL) {
                cli_json_double(&j, "mkl_create_seconds", r->mkl_create_seconds);
                cli_json_double(&j, "mkl_optimize_seconds", r->mkl_optimize_seconds);
                cli_json_int(&j, "mkl_mv_hint_calls", r->mkl_hint_calls);
                cli_json_bool(&j, "mkl_optimize", k->mkl_optimize);
                cli_json_int(&j, "mkl_optimize_bytes", r->mkl_optimize_bytes);
                cli_json_double(&j, "tolerance", r->tolerance);
            }
            cli_json_int(&j, "bytes", r->bytes);
            cli_json_int(&j, "sell_bytes", r->sell_bytes);
            if (r->ratio_sell >= 0)
                cli_json_double(&j, "ratio_sell", r->ratio_sell);
            else
                cli_json_null(&j, "ratio_sell");
            cli_json_double(&j, "backward_error", r->backward_error);
            cli_json_double(&j, "convert_seconds", r->convert_seconds);
        }
        cli_json_end_object(&j);
    }
    if (au) /* the chooser's rows "auto-fp16", "auto-fp32" (cuda) */
        bench_auto_json(&j, a, res, au);
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    return cli_output_finish(cmd, &out, f, "error writing", a->json);
}

int bench_run_kernels(const char *cmd, const bench_args *a, const bench_data *d,
                      bench_result *res, bench_device *dev, bench_host *host)
{
#ifdef PSL_HAVE_CUDA
    if (a->cuda)
        return bench_cuda_run(cmd, a, d, res, dev);
#endif
    (void)cmd;
    (void)dev;
    run_cpu(a, d, res, host);
    return CLI_OK;
}

int cmd_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    bench_args a;
    int rc = bench_parse(argc, argv, &a);
    if (rc == CLI_HELP) {
        usage();
        return CLI_OK;
    }
    if (rc)
        return rc;
    if (a.cuda && (rc = cli_check_device(cmd, a.device)) != 0)
        return rc;
#ifdef _OPENMP
    if (a.threads > 0)
        omp_set_num_threads((int)a.threads);
#endif
    bench_data d = {0};
    bench_result *res = NULL;
    bench_device dev;
    bench_device_init(&dev);
    double load_s = 0;
    if ((rc = bench_data_load(cmd, &a, &d, &load_s)) != 0)
        goto done;
    res = calloc((size_t)a.nkernels, sizeof *res);
    if (!res) {
        rc = cli_error(cmd, "out of memory");
        goto done;
    }
    bench_host host;
    memset(&host, 0, sizeof host);
    bench_cpu_model(host.cpu, sizeof host.cpu);
#ifdef PSL_HAVE_MKL
    if (!a.cuda)
        bench_mkl_init(threads_in_use(), &host);
#endif
    if ((rc = bench_run_kernels(cmd, &a, &d, res, &dev, &host)) != 0)
        goto done;
    int failed = 0;
    for (int i = 0; i < a.nkernels; i++) {
        if (!res[i].ok) {
            cli_error(cmd, "%s: %s", a.kernels[i].name, res[i].error);
            failed++;
        }
    }
    fill_csr_ratios(&a, res);
    bench_auto au[BENCH_AUTO_N];
    if (a.cuda)
        bench_auto_compute(&a, &d, res, au);
    print_table(&a, &d, res, load_s, a.cuda ? &dev : NULL, &host);
    if (a.cuda)
        bench_auto_print(&a, res, au);
    fflush(stdout);
    rc = a.json ? write_json(cmd, &a, &d, res, load_s, a.cuda ? &dev : NULL, a.cuda ? au : NULL,
                             &host)
                : CLI_OK;
    if (rc == CLI_OK && failed)
        rc = CLI_RUNTIME;
done:
    free(res);
    bench_data_free(&d);
    return rc;
}
