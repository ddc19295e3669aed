/*
 * cmd_tune.c -- "packsell tune-csrk [--device cpu|cuda] ...": sweep the
 * CSR-k group sizes (k = 3, FP64) over a grid on a few matrices with
 * bench's timing (bench_run_kernels), fit the tuning model's coefficients
 * to the best sizes of each matrix (tune_fit.c), time the best pair, the
 * pick of the table in use before and the pick of the fit together, save
 * the fit (psl_csrk_model_save) and report how far the fit's pick is from
 * the best, as a table and optionally as JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "bench_bw.h"
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The default matrices, d from about 5 to 100, in two halves (so that
 * --help breaks the list between them). */
#define CPU_MATRICES_1 "gen:lap2d:1024,gen:lap3d:64,gen:random:65536:16,gen:hpcg:5:5:5"
#define CPU_MATRICES_2 "gen:banded:65536:16:33,gen:banded:16384:64:100"
#define CUDA_MATRICES_1 "gen:lap2d:2048,gen:lap3d:128,gen:random:1048576:16,gen:hpcg:7:7:7"
#define CUDA_MATRICES_2 "gen:banded:1048576:16:33,gen:banded:262144:64:100"
#define DEFAULT_CPU_MATRICES CPU_MATRICES_1 "," CPU_MATRICES_2
#define DEFAULT_CUDA_MATRICES CUDA_MATRICES_1 "," CUDA_MATRICES_2
#define HELP_INDENT "\n                       "
#define DEFAULT_CPU_SR "2,4,8,16,32,64,128,256"
#define DEFAULT_CPU_SSR "1,2,4,8,16,32"
#define DEFAULT_CUDA_SR "1,2,4,8,16,32,64"
#define DEFAULT_CUDA_SSR "1,2,4,8,16,32,64"
#define MAX_MATRICES 32
#define MAX_GRID 16
#define SIZE_MAX_CUDA 100000 /* the range of PSL_CUDA_CSRK_SR_ROWS / _SSR_SRS */
#define WITHIN 1.10          /* a pick within 10% of the best: at most 1.1 x its time */
#define CONFIRM_ROUNDS 5     /* cpu: the best and the picks timed in turn */

static void usage(void)
{
    printf("Usage: packsell tune-csrk [--device cpu|cuda] [options]\n"
           "\n"
           "Fit the CSR-k tuning model of a device kind to this machine: for each\n"
           "matrix, time SpMV (CSR-k k = 3, FP64 values and vectors) for every pair of\n"
           "rows per super-row (--sr) and super-rows per super-super-row (--ssr) of a\n"
           "grid, as `packsell bench` times (the median of the runs after warm-up, or\n"
           "--stat min; cpu: the matrix grouped by the conversion, one kernel at a\n"
           "time; cuda: the device grouping forced through PSL_CUDA_CSRK_SR_ROWS /\n"
           "_SSR_SRS at upload, CUDA events). The best pair of each matrix goes into a\n"
           "least-squares fit of each size against ln d (d = nonzeros per row), size =\n"
           "round(a - b ln d), per range of d of the table in use (its ranges and CUDA\n"
           "blocks are kept; one matrix in a range: b = 0; none: the row is kept).\n"
           "Then the best pair, the pick of the table in use before and the pick of\n"
           "the fit are timed again together (cpu: 5 rounds in turn), and the table\n"
           "shows the ratio best / fit (1: the fit picks as well as the sweep) and the\n"
           "share of matrices whose fit pick is within 10%% of the best. The fit is\n"
           "saved as a fit file (psl_csrk_model_load, PSL_CSRK_FIT, --csrk-fit of\n"
           "bench, convert, info) with the date, host and sweep as comments.\n"
           "\n"
           "Options:\n"
           "      --device D       cpu (default) or cuda\n"
           "      --matrices LIST  comma-separated MATRIX arguments (gen:SPEC, packsell\n"
           "                       or Matrix Market files); 'default' stands for the\n"
           "                       default list, cpu:\n"
           "                       " CPU_MATRICES_1 "," HELP_INDENT CPU_MATRICES_2 "\n"
           "                       cuda:\n"
           "                       " CUDA_MATRICES_1 "," HELP_INDENT CUDA_MATRICES_2 "\n"
           "      --holdout LIST   more matrices, swept and judged like the others but\n"
           "                       left out of the fit (the model's picks on matrices it\n"
           "                       has not seen); reported apart\n"
           "      --sr LIST        rows per super-row to sweep (cpu default\n"
           "                       " DEFAULT_CPU_SR "; cuda " DEFAULT_CUDA_SR ")\n"
           "      --ssr LIST       super-rows per super-super-row (cpu default\n"
           "                       " DEFAULT_CPU_SSR "; cuda " DEFAULT_CUDA_SSR ")\n"
           "      --out FILE       the fit file (default csrk-fit-DEVICE.txt); an existing\n"
           "                       file is not replaced without --force\n"
           "      --json FILE      every timing as JSON (not replaced without --force)\n"
           "      --force          replace existing --out and --json files\n"
           "      --reps N         at least N timed runs per pair (default 10; cuda 100)\n"
           "      --min-time SEC   and at least SEC seconds of them (default 0.02; cuda 0)\n"
           "      --warmup N       untimed runs first (default 2; cuda 10)\n"
           "      --threads T      OpenMP threads (default: OMP_NUM_THREADS or all)\n"
           "      --stat S         median (default) or min: the time compared, the median\n"
           "                       or the fastest of each pair's runs (min, on a machine\n"
           "                       shared with other work, whose preemptions inflate the\n"
           "                       medians of threaded runs)\n"
           "  -h, --help           this help\n"
           "\n"
           "Example: packsell tune-csrk --device cpu --out fit.txt\n"
           "         packsell tune-csrk --device cuda --matrices default,a.mtx --json t.json\n");
}

/* ---- the command line */

typedef struct tune_args {
    int cuda, force;
    int stat_min; /* --stat min: compare the fastest runs, not the medians */
    psl_csrk_device dev;
    const char *out, *json;
    char out_default[32];
    long long reps, warmup, threads;
    double min_time;
    int32_t sr[MAX_GRID], ssr[MAX_GRID];
    int nsr, nssr;
    char *list[2]; /* --matrices, --holdout: comma-separated ("default" expanded) */
    const char *matrix[MAX_MATRICES];
    int held_out[MAX_MATRICES]; /* from --holdout: timed and judged, not fitted */
    int nmatrices;
} tune_args;

/* A list of sizes in [1, hi] into v (at most MAX_GRID, distinct). */
static int parse_sizes(const char *cmd, const char *opt, const char *s, long long hi,
                       int32_t *v, int *n)
{
    *n = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        char item[24];
        long long x;
        if (len == 0 || len >= sizeof item)
            return cli_usage_error(cmd, "%s: bad list '%s' (sizes separated by commas)", opt, s);
        memcpy(item, p, len);
        item[len] = '\0';
        int rc = cli_parse_int(cmd, opt, item, 1, hi, &x);
        if (rc)
            return rc;
        for (int i = 0; i < *n; i++)
            if (v[i] == x)
                return cli_usage_error(cmd, "%s: %lld twice", opt, x);
        if (*n == MAX_GRID)
            return cli_usage_error(cmd, "%s: at most %d sizes", opt, MAX_GRID);
        v[(*n)++] = (int32_t)x;
        p += len;
        if (*p == '\0')
            return CLI_OK;
        if (*++p == '\0')
            return cli_usage_error(cmd, "%s: bad list '%s' (sizes separated by commas)", opt, s);
    }
}

/* The list s of option opt (--matrices: held 0, --holdout: held 1) into
 * a->list[held] and a->matrix ("default" expanded). */
static int parse_matrices(const char *cmd, const char *opt, const char *s, int held, tune_args *a)
{
    const char *def = a->cuda ? DEFAULT_CUDA_MATRICES : DEFAULT_CPU_MATRICES;
    size_t cap = strlen(s) + 1, words = 1;
    for (const char *p = s; *p; p++)
        words += *p == ',';
    cap += words * strlen(def);
    char *list = a->list[held] = malloc(cap);
    if (!list)
        return cli_error(cmd, "out of memory");
    list[0] = '\0';
    size_t k = 0;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return cli_usage_error(cmd, "%s: bad list '%s' (an empty item)", opt, s);
        const int is_def = len == 7 && strncmp(p, "default", 7) == 0;
        const char *item = is_def ? def : p;
        const int ilen = is_def ? (int)strlen(def) : (int)len;
        k += (size_t)snprintf(list + k, cap - k, "%s%.*s", k ? "," : "", ilen, item);
        p += len;
        if (*p == '\0')
            break;
        p++;
    }
    for (char *p = list; p;) {
        if (a->nmatrices == MAX_MATRICES)
            return cli_usage_error(cmd, "--matrices and --holdout: at most %d matrices",
                                   MAX_MATRICES);
        a->held_out[a->nmatrices] = held;
        a->matrix[a->nmatrices++] = p;
        p = strchr(p, ',');
        if (p)
            *p++ = '\0';
    }
    return CLI_OK;
}

/* An output path that exists is kept unless --force. */
static int check_new_output(const char *cmd, const char *opt, const char *path, int force)
{
    struct stat sb;
    if (path && !force && strcmp(path, "-") != 0 && stat(path, &sb) == 0 && !S_ISFIFO(sb.st_mode))
        return cli_error(cmd, "%s '%s' exists; not replaced (--force replaces it)", opt, path);
    return cli_check_output(cmd, opt, path);
}

static int tune_parse(const char *cmd, int argc, char **argv, tune_args *a)
{
    cli_opt opts[] = {{"--device", NULL, 1, NULL, 0},   {"--matrices", NULL, 1, NULL, 0},
                      {"--sr", NULL, 1, NULL, 0},       {"--ssr", NULL, 1, NULL, 0},
                      {"--out", "-o", 1, NULL, 0},      {"--json", NULL, 1, NULL, 0},
                      {"--force", NULL, 0, NULL, 0},    {"--reps", NULL, 1, NULL, 0},
                      {"--min-time", NULL, 1, NULL, 0}, {"--warmup", NULL, 1, NULL, 0},
                      {"--threads", NULL, 1, NULL, 0},  {"--stat", NULL, 1, NULL, 0},
                      {"--holdout", NULL, 1, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    int npos = 0, rc = cli_parse(cmd, argc, argv, opts, nopts, NULL, 0, &npos);
    if (rc)
        return rc;
    const char *device = cli_find(opts, nopts, "--device")->value, *s;
    if ((rc = cli_check_device(cmd, device)) != 0)
        return rc;
    a->cuda = cli_device_is_cuda(device);
    a->dev = a->cuda ? PSL_CSRK_DEVICE_CUDA : PSL_CSRK_DEVICE_CPU;
    a->force = cli_find(opts, nopts, "--force")->present > 0;
    snprintf(a->out_default, sizeof a->out_default, "csrk-fit-%s.txt", a->cuda ? "cuda" : "cpu");
    a->out = cli_find(opts, nopts, "--out")->value;
    a->out = a->out ? a->out : a->out_default;
    a->json = cli_find(opts, nopts, "--json")->value;
    if (strcmp(a->out, "-") == 0)
        return cli_usage_error(cmd, "--out -: the fit goes to a file");
    if (a->json && strcmp(a->json, a->out) == 0)
        return cli_usage_error(cmd, "--json and --out name the same file '%s'", a->out);
    if ((rc = check_new_output(cmd, "--out", a->out, a->force)) != 0 ||
        (rc = check_new_output(cmd, "--json", a->json, a->force)) != 0)
        return rc;
    a->reps = a->cuda ? 100 : 10;
    a->warmup = a->cuda ? 10 : 2;
    a->min_time = a->cuda ? 0.0 : 0.02;
    long long v;
    if ((s = cli_find(opts, nopts, "--reps")->value) != NULL) {
        if ((rc = cli_parse_int(cmd, "--reps", s, 1, 1000000, &v)) != 0)
            return rc;
        a->reps = v;
    }
    if ((s = cli_find(opts, nopts, "--warmup")->value) != NULL) {
        if ((rc = cli_parse_int(cmd, "--warmup", s, 0, 1000000, &v)) != 0)
            return rc;
        a->warmup = v;
    }
    if ((s = cli_find(opts, nopts, "--threads")->value) != NULL) {
        if ((rc = cli_parse_int(cmd, "--threads", s, 1, 1 << 16, &v)) != 0)
            return rc;
        a->threads = v;
    }
    if ((s = cli_find(opts, nopts, "--min-time")->value) != NULL) {
        if ((rc = cli_parse_double(cmd, "--min-time", s, &a->min_time)) != 0)
            return rc;
        if (a->min_time < 0)
            return cli_usage_error(cmd, "--min-time must be >= 0");
    }
    if ((s = cli_find(opts, nopts, "--stat")->value) != NULL) {
        if (!cli_same(s, "median") && !cli_same(s, "min"))
            return cli_usage_error(cmd, "--stat must be median or min, not '%s'", s);
        a->stat_min = cli_same(s, "min");
    }
    const long long hi = a->cuda ? SIZE_MAX_CUDA : 1 << 30;
    s = cli_find(opts, nopts, "--sr")->value;
    if ((rc = parse_sizes(cmd, "--sr", s ? s : a->cuda ? DEFAULT_CUDA_SR : DEFAULT_CPU_SR, hi,
                          a->sr, &a->nsr)) != 0)
        return rc;
    s = cli_find(opts, nopts, "--ssr")->value;
    if ((rc = parse_sizes(cmd, "--ssr", s ? s : a->cuda ? DEFAULT_CUDA_SSR : DEFAULT_CPU_SSR, hi,
                          a->ssr, &a->nssr)) != 0)
        return rc;
    if (a->nsr * a->nssr > BENCH_MAX_KERNELS)
        return cli_usage_error(cmd, "a grid of %d x %d pairs: at most %d", a->nsr, a->nssr,
                               BENCH_MAX_KERNELS);
    s = cli_find(opts, nopts, "--matrices")->value;
    if ((rc = parse_matrices(cmd, "--matrices", s ? s : "default", 0, a)) != 0)
        return rc;
    s = cli_find(opts, nopts, "--holdout")->value;
    return s ? parse_matrices(cmd, "--holdout", s, 1, a) : CLI_OK;
}

/* ---- the sweep */

/* One timed pair of a matrix. */
typedef struct tune_time {
    int32_t sr, ssr;
    int ok;
    int64_t runs;
    double median_us, min_us, max_us;
    double us; /* the statistic compared (--stat): median_us or min_us */
} tune_time;

/* What one matrix gave. */
typedef struct tune_matrix {
    const char *spec;
    int64_t rows, cols, nnz;
    double d, load_s;
    int range;         /* the row of the table that holds d */
    tune_time *sweep;  /* nsr x nssr, sr-major */
    int best;          /* index into sweep */
    tune_time confirm[3]; /* timed together: the best pair, the pick before, the fit's pick */
    double ratio;      /* confirm: best / fit */
    int within;        /* the fit's pick at most WITHIN x the best */
    int held_out;      /* --holdout: not in the fit */
} tune_matrix;

/* How many matrices, fitted [0] and held out [1], and how many of them
 * the fit's pick is within 10% of the best on. */
typedef struct tune_share {
    int n[2], within[2];
} tune_share;

enum { PICK_BEST, PICK_BEFORE, PICK_FIT };
static const char *const pick_names[3] = {"best", "before", "fit"};

/* The bench arguments of one timing on matrix spec of a (no kernels). */
static void timing_args(const tune_args *a, const char *spec, int rounds, bench_args *b)
{
    bench_args_defaults(b, a->cuda);
    b->matrix = spec;
    b->device = a->cuda ? "cuda" : "cpu";
    b->reps = a->reps;
    b->warmup = a->warmup;
    b->min_time = a->min_time;
    b->threads = a->threads;
    b->rounds = a->cuda ? 1 : rounds;
    b->read_bytes = 0; /* no read-bandwidth passes */
    b->skip_gpu_build = 1;
    b->quiet = 1;
}

/* Add the CSR-k FP64 kernel of sizes (sr, ssr) to b. */
static void add_kernel(const tune_args *a, bench_args *b, int32_t sr, int32_t ssr)
{
    bench_kernel *k = &b->kernels[b->nkernels++];
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "csrk-fp64-%d-%d", (int)sr, (int)ssr);
    k->impl = BENCH_OURS;
    psl_convert_options_init(&k->opt);
    k->opt.format = PSL_FORMAT_CSRK;
    k->opt.value_type = PSL_FP64;
    k->opt.csrk_k = 3;
    k->vec = PSL_FP64;
    if (a->cuda) { /* the host grouping: the CPU model's; the device's: these */
        k->cuda_csrk_sr = sr;
        k->cuda_csrk_ssr = ssr;
    } else {
        k->opt.csrk_sr_rows = sr;
        k->opt.csrk_ssr_srs = ssr;
    }
}

/* Time the kernels of b on d into t (one per kernel, sizes already set);
 * a failed kernel is an error. */
static int time_kernels(const char *cmd, const tune_args *a, const bench_args *b,
                        const bench_data *d, tune_time *t, bench_device *dev)
{
    bench_result *res = calloc((size_t)b->nkernels, sizeof *res);
    bench_host host;
    memset(&host, 0, sizeof host);
    if (!res)
        return cli_error(cmd, "out of memory");
    int rc = bench_run_kernels(cmd, b, d, res, dev, &host);
    for (int i = 0; rc == CLI_OK && i < b->nkernels; i++) {
        const bench_result *r = &res[i];
        if (!r->ok) {
            rc = cli_error(cmd, "%s, sizes %d x %d: %s", b->matrix, (int)t[i].sr,
                           (int)t[i].ssr, r->error);
            break;
        }
        t[i].ok = 1;
        t[i].runs = r->runs;
        t[i].median_us = r->t_median * 1e6;
        t[i].min_us = r->t_min * 1e6;
        t[i].max_us = r->t_max * 1e6;
        t[i].us = a->stat_min ? t[i].min_us : t[i].median_us;
    }
    free(res);
    return rc;
}

/* Load matrix m and sweep the grid on it. */
static int sweep_matrix(const char *cmd, const tune_args *a, tune_matrix *m, bench_data *d,
                        bench_device *dev, bench_args *b)
{
    timing_args(a, m->spec, 1, b);
    int rc = bench_data_load(cmd, b, d, &m->load_s);
    if (rc)
        return rc;
    m->rows = d->info.nrows;
    m->cols = d->info.ncols;
    m->nnz = d->info.nnz;
    m->d = m->rows > 0 ? (double)m->nnz / (double)m->rows : 0.0;
    printf("%s: %lld x %lld, %lld nonzeros, d = %.2f: sweeping %d pairs\n", m->spec,
           (long long)m->rows, (long long)m->cols, (long long)m->nnz, m->d, a->nsr * a->nssr);
    fflush(stdout);
    for (int i = 0; i < a->nsr; i++)
        for (int j = 0; j < a->nssr; j++) {
            tune_time *t = &m->sweep[i * a->nssr + j];
            t->sr = a->sr[i];
            t->ssr = a->ssr[j];
            add_kernel(a, b, t->sr, t->ssr);
        }
    if ((rc = time_kernels(cmd, a, b, d, m->sweep, dev)) != 0)
        return rc;
    m->best = 0;
    for (int i = 1; i < b->nkernels; i++)
        if (m->sweep[i].us < m->sweep[m->best].us)
            m->best = i;
    return CLI_OK;
}

/* The model's sizes for d under the table in use. */
static int model_pick(const char *cmd, const tune_args *a, double d, tune_time *t)
{
    psl_status st = psl_csrk_model_sizes(a->dev, 3, d, &t->sr, &t->ssr);
    return st == PSL_OK ? CLI_OK : cli_lib_error(cmd, st);
}

/* ---- output */

/* The per-matrix table on f and the shares. */
static void print_results(FILE *f, const tune_args *a, const tune_matrix *ms,
                          const tune_share *sh)
{
    fprintf(f, "%-34s %8s %5s %4s %13s %10s %13s %10s %13s %10s %7s\n", "matrix", "d", "range",
            "use", "best(sr,ssr)", "best_us", "fit(sr,ssr)", "fit_us", "before(sr,ssr)",
            "before_us", "ratio");
    for (int i = 0; i < a->nmatrices; i++) {
        const tune_matrix *m = &ms[i];
        char p[3][32];
        for (int k = 0; k < 3; k++)
            snprintf(p[k], sizeof p[k], "(%d,%d)", (int)m->confirm[k].sr, (int)m->confirm[k].ssr);
        fprintf(f, "%-34.34s %8.2f %5d %4s %13s %10.2f %13s %10.2f %13s %10.2f %7.3f%s\n",
                m->spec, m->d, m->range, m->held_out ? "held" : "fit", p[PICK_BEST],
                m->confirm[PICK_BEST].us, p[PICK_FIT], m->confirm[PICK_FIT].us, p[PICK_BEFORE],
                m->confirm[PICK_BEFORE].us, m->ratio, m->within ? "" : "  (> 10%)");
    }
    static const char *const what[2] = {"fitted", "held-out"};
    for (int h = 0; h < 2; h++)
        if (sh->n[h] > 0)
            fprintf(f, "fit's pick within 10%% of the best on %d of %d %s matrices (%.0f%%)\n",
                    sh->within[h], sh->n[h], what[h], 100.0 * sh->within[h] / sh->n[h]);
}

/* The comment of the fit file: how it was made, and the results. */
static char *fit_comment(const tune_args *a, const tune_matrix *ms, const tune_share *sh,
                         const char *device_text, const char *command, const int *count,
                         int nrows)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    char date[64], host[256];
    cli_run_stamp(date, sizeof date, host, sizeof host);
    fprintf(f, "written by packsell %s tune-csrk on %s, host %s\n", psl_version(), date, host);
    fprintf(f, "device %s: %s\n", a->cuda ? "cuda" : "cpu", device_text);
    fprintf(f, "command: %s\n", command);
    fprintf(f, "CSR-k k = 3, FP64; reps %lld, warm-up %lld, min-time %g s, times compared: %s; "
            "sr grid", a->reps, a->warmup, a->min_time, a->stat_min ? "min" : "median");
    for (int i = 0; i < a->nsr; i++)
        fprintf(f, "%c%d", i ? ',' : ' ', (int)a->sr[i]);
    fprintf(f, ", ssr grid");
    for (int i = 0; i < a->nssr; i++)
        fprintf(f, "%c%d", i ? ',' : ' ', (int)a->ssr[i]);
    fprintf(f, "\nmatrices per row of the table:");
    for (int r = 0; r < nrows; r++)
        fprintf(f, " %d", count[r]);
    fprintf(f, " (a row without any keeps the coefficients it had)\n");
    print_results(f, a, ms, sh);
    fclose(f);
    return text;
}

static void json_time(cli_json *j, const char *key, const tune_time *t)
{
    cli_json_begin_object(j, key);
    cli_json_int(j, "sr", t->sr);
    cli_json_int(j, "ssr", t->ssr);
    cli_json_int(j, "runs", t->runs);
    cli_json_double(j, "median_us", t->median_us);
    cli_json_double(j, "min_us", t->min_us);
    cli_json_double(j, "max_us", t->max_us);
    cli_json_end_object(j);
}

static void json_rows(cli_json *j, const char *key, const psl_csrk_model_row *rows, int n)
{
    cli_json_begin_array(j, key);
    for (int i = 0; i < n; i++) {
        const psl_csrk_model_row *r = &rows[i];
        cli_json_begin_object(j, NULL);
        if (isinf(r->d_max))
            cli_json_string(j, "d_max", "inf");
        else
            cli_json_double(j, "d_max", r->d_max);
        cli_json_double(j, "sr_a", r->sr_a);
        cli_json_double(j, "sr_b", r->sr_b);
        cli_json_double(j, "ssr_a", r->ssr_a);
        cli_json_double(j, "ssr_b", r->ssr_b);
        cli_json_int(j, "lanes", r->lanes);
        cli_json_int(j, "block_rows", r->block_rows);
        cli_json_int(j, "block_srs", r->block_srs);
        cli_json_end_object(j);
    }
    cli_json_end_array(j);
}

static int write_json(const char *cmd, const tune_args *a, const tune_matrix *ms,
                      const tune_share *sh,
                      const char *device_text, const psl_csrk_model_row *before,
                      const psl_csrk_model_row *fit, int nrows)
{
    FILE *f = NULL;
    psl_output *out = NULL;
    psl_status st = psl_output_begin(&out, a->json, &f);
    if (st != PSL_OK)
        return cli_lib_error(cmd, st);
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    cli_json_report_head(&j, a->cuda ? "cuda" : "cpu");
    cli_json_string(&j, a->cuda ? "gpu" : "cpu", device_text);
#ifdef _OPENMP
    cli_json_int(&j, "threads", omp_get_max_threads());
#endif
    cli_json_string(&j, "timing", a->cuda ? "cuda events" : "wall clock");
    cli_json_string(&j, "stat", a->stat_min ? "min" : "median");
    cli_json_int(&j, "csrk_k", 3);
    cli_json_string(&j, "values", "fp64");
    cli_json_int(&j, "reps", a->reps);
    cli_json_int(&j, "warmup", a->warmup);
    cli_json_double(&j, "min_time", a->min_time);
    cli_json_begin_array(&j, "sr_grid");
    for (int i = 0; i < a->nsr; i++)
        cli_json_int(&j, NULL, a->sr[i]);
    cli_json_end_array(&j);
    cli_json_begin_array(&j, "ssr_grid");
    for (int i = 0; i < a->nssr; i++)
        cli_json_int(&j, NULL, a->ssr[i]);
    cli_json_end_array(&j);
    json_rows(&j, "table_before", before, nrows);
    json_rows(&j, "table_fit", fit, nrows);
    cli_json_string(&j, "fit_file", a->out);
    cli_json_begin_array(&j, "matrices");
    for (int i = 0; i < a->nmatrices; i++) {
        const tune_matrix *m = &ms[i];
        cli_json_begin_object(&j, NULL);
        cli_json_string(&j, "matrix", m->spec);
        cli_json_int(&j, "rows", m->rows);
        cli_json_int(&j, "cols", m->cols);
        cli_json_int(&j, "nnz", m->nnz);
        cli_json_double(&j, "d", m->d);
        cli_json_int(&j, "range", m->range);
        cli_json_double(&j, "load_seconds", m->load_s);
        cli_json_begin_array(&j, "sweep");
        for (int k = 0; k < a->nsr * a->nssr; k++)
            json_time(&j, NULL, &m->sweep[k]);
        cli_json_end_array(&j);
        json_time(&j, "sweep_best", &m->sweep[m->best]);
        for (int k = 0; k < 3; k++)
            json_time(&j, pick_names[k], &m->confirm[k]);
        cli_json_double(&j, "ratio_best_over_fit", m->ratio);
        cli_json_bool(&j, "within_10pct", m->within);
        cli_json_bool(&j, "held_out", m->held_out);
        cli_json_end_object(&j);
    }
    cli_json_end_array(&j);
    cli_json_int(&j, "fitted", sh->n[0]);
    cli_json_int(&j, "within_10pct", sh->within[0]);
    cli_json_double(&j, "within_10pct_share", (double)sh->within[0] / sh->n[0]);
    cli_json_int(&j, "held_out", sh->n[1]);
    cli_json_int(&j, "held_out_within_10pct", sh->within[1]);
    if (sh->n[1] > 0)
        cli_json_double(&j, "held_out_within_10pct_share", (double)sh->within[1] / sh->n[1]);
    else
        cli_json_null(&j, "held_out_within_10pct_share");
    cli_json_end_object(&j);
    return cli_output_finish(cmd, &out, f, "error writing", a->json);
}

/* ---- the command */

/* The command line as one string (for the fit file's comment). */
static void command_text(int argc, char **argv, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "packsell tune-csrk");
    for (int i = 0; i < argc && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, " %s", argv[i]);
}

/* Whether the model's table now in use is exactly rows[0 .. n). */
static int table_is(psl_csrk_device dev, const psl_csrk_model_row *rows, int n)
{
    psl_csrk_model_row t[PSL_CSRK_MODEL_ROWS_MAX];
    int m = 0;
    if (psl_csrk_model_get(dev, t, PSL_CSRK_MODEL_ROWS_MAX, &m) != PSL_OK || m != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (t[i].d_max != rows[i].d_max || t[i].sr_a != rows[i].sr_a ||
            t[i].sr_b != rows[i].sr_b || t[i].ssr_a != rows[i].ssr_a ||
            t[i].ssr_b != rows[i].ssr_b || t[i].lanes != rows[i].lanes ||
            t[i].block_rows != rows[i].block_rows || t[i].block_srs != rows[i].block_srs)
            return 0;
    return 1;
}

/* Everything after the command line. */
static int tune(const char *cmd, const tune_args *a, const char *command)
{
    tune_matrix *ms = calloc((size_t)a->nmatrices, sizeof *ms);
    bench_data *ds = calloc((size_t)a->nmatrices, sizeof *ds);
    bench_args *b = malloc(sizeof *b);
    tune_point *pts = calloc((size_t)a->nmatrices, sizeof *pts);
    char *comment = NULL;
    int rc = CLI_OK, nrows = 0, count[PSL_CSRK_MODEL_ROWS_MAX] = {0}, npts = 0;
    tune_share share = {{0, 0}, {0, 0}};
    psl_csrk_model_row before[PSL_CSRK_MODEL_ROWS_MAX], fit[PSL_CSRK_MODEL_ROWS_MAX];
    bench_device dev;
    bench_device_init(&dev);
    char device_text[300];
    psl_status st;
    if (!ms || !ds || !b || !pts) {
        rc = cli_error(cmd, "out of memory");
        goto done;
    }
    if ((st = psl_csrk_model_get(a->dev, before, PSL_CSRK_MODEL_ROWS_MAX, &nrows)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    /* the sweep, and the pick of the table in use before */
    for (int i = 0; i < a->nmatrices && rc == CLI_OK; i++) {
        tune_matrix *m = &ms[i];
        m->spec = a->matrix[i];
        m->sweep = calloc((size_t)(a->nsr * a->nssr), sizeof *m->sweep);
        if (!m->sweep) {
            rc = cli_error(cmd, "out of memory");
            break;
        }
        if ((rc = sweep_matrix(cmd, a, m, &ds[i], &dev, b)) != 0 ||
            (rc = model_pick(cmd, a, m->d, &m->confirm[PICK_BEFORE])) != 0)
            break;
        m->range = tune_range_of(before, nrows, m->d);
        m->held_out = a->held_out[i];
        m->confirm[PICK_BEST].sr = m->sweep[m->best].sr;
        m->confirm[PICK_BEST].ssr = m->sweep[m->best].ssr;
        if (!m->held_out)
            pts[npts++] = (tune_point){m->d, m->confirm[PICK_BEST].sr, m->confirm[PICK_BEST].ssr};
    }
    if (rc)
        goto done;
    if (a->cuda)
        snprintf(device_text, sizeof device_text, "%s (sm_%d%d)", dev.name, dev.cc_major,
                 dev.cc_minor);
    else
        bench_cpu_model(device_text, sizeof device_text);
    /* the fit, in use from here on */
    memcpy(fit, before, sizeof fit);
    tune_fit(fit, nrows, pts, npts, count);
    if ((st = psl_csrk_model_set(a->dev, fit, nrows)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    /* the best pair and both picks timed together */
    printf("timing the best pair and the picks of the table before and of the fit\n");
    fflush(stdout);
    for (int i = 0; i < a->nmatrices; i++) {
        tune_matrix *m = &ms[i];
        if ((rc = model_pick(cmd, a, m->d, &m->confirm[PICK_FIT])) != 0)
            goto done;
        timing_args(a, m->spec, CONFIRM_ROUNDS, b);
        for (int k = 0; k < 3; k++)
            add_kernel(a, b, m->confirm[k].sr, m->confirm[k].ssr);
        if ((rc = time_kernels(cmd, a, b, &ds[i], m->confirm, &dev)) != 0)
            goto done;
        m->ratio = m->confirm[PICK_BEST].us / m->confirm[PICK_FIT].us;
        m->within = m->confirm[PICK_FIT].us <= WITHIN * m->confirm[PICK_BEST].us;
        share.n[m->held_out]++;
        share.within[m->held_out] += m->within;
        bench_data_free(&ds[i]);
    }
    printf("\ndevice %s: %s\n", a->cuda ? "cuda" : "cpu", device_text);
    print_results(stdout, a, ms, &share);
    /* the fit file, read back: the library must load exactly the fit */
    comment = fit_comment(a, ms, &share, device_text, command, count, nrows);
    if (!comment) {
        rc = cli_error(cmd, "out of memory");
        goto done;
    }
    if ((st = psl_csrk_model_save(a->out, a->dev, fit, nrows, comment)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    psl_csrk_model_reset();
    if ((st = psl_csrk_model_load(a->out)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    if (!table_is(a->dev, fit, nrows)) {
        rc = cli_error(cmd, "%s: the table read back differs from the fit", a->out);
        goto done;
    }
    printf("wrote %s (%d row%s for %s)\n", a->out, nrows, nrows == 1 ? "" : "s",
           a->cuda ? "cuda" : "cpu");
    if (a->json)
        rc = write_json(cmd, a, ms, &share, device_text, before, fit, nrows);
done:
    psl_csrk_model_reset();
    for (int i = 0; ms && ds && i < a->nmatrices; i++) {
        free(ms[i].sweep);
        bench_data_free(&ds[i]);
    }
    free(comment);
    free(pts);
    free(b);
    free(ds);
    free(ms);
    return rc;
}

int cmd_tune_csrk(int argc, char **argv)
{
    const char *cmd = "tune-csrk";
    tune_args a;
    memset(&a, 0, sizeof a);
    int rc = tune_parse(cmd, argc, argv, &a);
    if (rc == CLI_HELP) {
        usage();
        rc = CLI_OK;
    } else if (rc == CLI_OK) {
#ifdef _OPENMP
        if (a.threads > 0)
            omp_set_num_threads((int)a.threads);
#endif
        char command[2048];
        command_text(argc, argv, command, sizeof command);
        rc = tune(cmd, &a, command);
    }
    free(a.list[0]);
    free(a.list[1]);
    return rc;
}
