/*
 * cmd_bench.c -- "packsell bench [MATRIX] --device cpu ...": time SpMV for a
 * list of format/precision kernels (CSR, SELL, PackSELL) on one matrix and
 * report median time, GFLOPS, GB/s on the format's own bytes, footprint,
 * backward error against FP64 CSR, as a table and optionally as JSON.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define DEFAULT_MATRIX "gen:hpcg:6:6:6"
#define DEFAULT_KERNELS \
    "csr-fp64,csr-fp32,sell-fp64,sell-fp32,sell-fp16,packsell-fp16,packsell-e8m21,packsell-e8m10"
#define MAX_KERNELS 32
#define MAX_RUNS 1000000

static void usage(void)
{
    printf("Usage: packsell bench [MATRIX] [--device cpu] [options]\n"
           "\n"
           "Time y = alpha*A*x + beta*y for several storage formats and precisions.\n"
           "MATRIX defaults to " DEFAULT_MATRIX " (gen:SPEC, a packsell binary file or a\n"
           "Matrix Market file; it is decoded to FP64 CSR and converted per kernel).\n"
           "\n"
           "For each kernel: median wall-clock time (after warm-up) of max(N, as many\n"
           "runs as fit in --min-time) runs, GFLOPS = 2*nnz/time, GB/s on the format's own\n"
           "bytes plus x and y (y twice when beta != 0), matrix bytes, ratio to SELL of\n"
           "the same value width, backward error ||y - A x||_inf / (||A||_inf ||x||_inf)\n"
           "with A x in FP64 from the original matrix, and the conversion time.\n"
           "x is uniform in [-1,1) rounded to FP16, so every vector type sees the same x.\n"
           "\n"
           "Options:\n"
           "      --device D       cpu (default) or cuda\n"
           "      --reps N         at least N timed runs per kernel (default 10)\n"
           "      --min-time SEC   and at least SEC seconds of timed runs (default 0.2)\n"
           "      --warmup N       untimed runs before timing (default 2)\n"
           "      --threads T      OpenMP threads (default: OMP_NUM_THREADS or all)\n"
           "      --kernels LIST   comma-separated kernels (default all of:\n"
           "                       " DEFAULT_KERNELS ").\n"
           "                       Any FORMAT-VALUES[:VECTORS] works, e.g. sell-bf16,\n"
           "                       packsell-e8m13:fp32 (VECTORS defaults to fp64 for fp64\n"
           "                       values, fp16 for 16-bit values, else fp32)\n"
           "      --slice C        slice height (default 32)\n"
           "      --sigma S        sorting window, 0 or a multiple of C (default 256)\n"
           "      --permute P      implicit (default) or explicit\n"
           "      --overflow O     values beyond a codec's range: error (default), saturate\n"
           "      --alpha A        default 1\n"
           "      --beta B         default 0\n"
           "      --seed S         seed of x (default 1)\n"
           "      --json FILE      also write all results as JSON to FILE\n"
           "  -h, --help           this help\n"
           "\n"
           "Example: packsell bench gen:hpcg:5:5:5 --device cpu --json bench.json\n");
}

/* One kernel to time: a format, its values and the vector type. */
typedef struct bench_kernel {
    char name[48];
    psl_convert_options opt;
    psl_scalar vec;
} bench_kernel;

/* Results of one kernel. */
typedef struct bench_result {
    int ok;
    char error[512];
    char values[32];
    const char *impl;
    int64_t runs;
    double t_median, t_min, t_max; /* seconds */
    double gflops, gbs;
    int64_t bytes, sell_bytes;
    double ratio_sell; /* < 0: unknown */
    double backward_error;
    double convert_seconds;
} bench_result;

/* Everything bench needs besides the kernels. */
typedef struct bench_args {
    const char *matrix, *json, *device;
    long long reps, warmup, threads, seed;
    double min_time, alpha, beta;
    int nkernels;
    bench_kernel kernels[MAX_KERNELS];
} bench_args;

/* Parse one kernel name FORMAT-VALUES[:VECTORS] on top of base options. */
static int parse_kernel(const char *cmd, const char *name, const psl_convert_options *base,
                        bench_kernel *k)
{
    char buf[48], *dash, *colon;
    if (strlen(name) >= sizeof buf)
        return cli_usage_error(cmd, "kernel name '%s' is too long", name);
    strcpy(buf, name);
    strcpy(k->name, name);
    k->opt = *base;
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
        if (cli_scalar_parse(dash, &k->opt.value_type) != 0 ||
            (k->opt.format == PSL_FORMAT_CSR && k->opt.value_type >= PSL_FP16))
            return cli_usage_error(cmd, "kernel '%s': values '%s' not available for %s", name,
                                   dash, buf);
        width = k->opt.value_type == PSL_FP64 ? 8 : k->opt.value_type == PSL_FP32 ? 4 : 2;
    } else if (strcmp(buf, "packsell") == 0) {
        k->opt.format = PSL_FORMAT_PACKSELL;
        psl_status st = psl_codec_parse(dash, &k->opt.codec);
        if (st != PSL_OK)
            return cli_usage_error(cmd, "kernel '%s': %s", name, psl_last_error_message());
        width = 1 + k->opt.codec.exp_bits + k->opt.codec.man_bits <= 16 ? 2 : 4;
    } else {
        return cli_usage_error(cmd, "kernel '%s': unknown format '%s' (csr, sell, packsell)",
                               name, buf);
    }
    k->vec = width == 8 ? PSL_FP64 : width == 4 ? PSL_FP32 : PSL_FP16;
    if (colon && (cli_scalar_parse(colon, &k->vec) != 0 || k->vec == PSL_BF16))
        return cli_usage_error(cmd, "kernel '%s': unknown vector type '%s' (fp64, fp32, fp16)",
                               name, colon);
    return CLI_OK;
}

static int parse(int argc, char **argv, bench_args *a)
{
    const char *cmd = "bench";
    cli_opt opts[] = {{"--device", NULL, 1, NULL, 0},   {"--reps", NULL, 1, NULL, 0},
                      {"--min-time", NULL, 1, NULL, 0}, {"--warmup", NULL, 1, NULL, 0},
                      {"--threads", NULL, 1, NULL, 0},  {"--kernels", NULL, 1, NULL, 0},
                      {"--slice", NULL, 1, NULL, 0},    {"--sigma", NULL, 1, NULL, 0},
                      {"--permute", NULL, 1, NULL, 0},  {"--overflow", NULL, 1, NULL, 0},
                      {"--alpha", NULL, 1, NULL, 0},    {"--beta", NULL, 1, NULL, 0},
                      {"--seed", NULL, 1, NULL, 0},     {"--json", NULL, 1, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1] = {DEFAULT_MATRIX};
    int npos = 0, rc = cli_parse(cmd, argc, argv, opts, nopts, pos, 1, &npos);
    if (rc)
        return rc;
    a->matrix = npos ? pos[0] : DEFAULT_MATRIX;
    a->json = cli_find(opts, nopts, "--json")->value;
    a->device = cli_find(opts, nopts, "--device")->value;
    a->reps = 10;
    a->warmup = 2;
    a->threads = 0;
    a->seed = 1;
    a->min_time = 0.2;
    a->alpha = 1.0;
    a->beta = 0.0;
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
    DBL_OPT("--min-time", min_time)
    DBL_OPT("--alpha", alpha)
    DBL_OPT("--beta", beta)
#undef INT_OPT
#undef DBL_OPT
    if (a->min_time < 0)
        return cli_usage_error(cmd, "--min-time must be >= 0");

    /* C, sigma, permutation and overflow through the shared format options
     * (as if for SELL, so that --slice/--sigma/--permute are accepted). */
    cli_format_args fa = {"sell", NULL, NULL, NULL, NULL, NULL, NULL};
    fa.slice = cli_find(opts, nopts, "--slice")->value;
    fa.sigma = cli_find(opts, nopts, "--sigma")->value;
    fa.permute = cli_find(opts, nopts, "--permute")->value;
    fa.overflow = cli_find(opts, nopts, "--overflow")->value;
    psl_convert_options base;
    if ((rc = cli_format_options(cmd, &fa, &base)) != 0)
        return rc;

    const char *list = cli_find(opts, nopts, "--kernels")->value;
    if (!list || strcmp(list, "all") == 0)
        list = DEFAULT_KERNELS;
    a->nkernels = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        char name[64];
        if (len == 0 || len >= sizeof name)
            return cli_usage_error(cmd, "bad --kernels list '%s'", list);
        memcpy(name, p, len);
        name[len] = '\0';
        if (a->nkernels == MAX_KERNELS)
            return cli_usage_error(cmd, "at most %d kernels", MAX_KERNELS);
        if ((rc = parse_kernel(cmd, name, &base, &a->kernels[a->nkernels++])) != 0)
            return rc;
        p += len;
        if (*p == ',' && *++p == '\0')
            return cli_usage_error(cmd, "bad --kernels list '%s'", list);
    }
    return cli_check_device(cmd, a->device);
}

/* Shared data of all kernels: the FP64 CSR matrix, x, y0 and A x. */
typedef struct bench_data {
    psl_matrix *A;
    psl_matrix_info info;
    double *x, *y0, *ref;
    double norm_a, norm_x, norm_y0;
} bench_data;

static void free_data(bench_data *d)
{
    psl_matrix_destroy(&d->A);
    free(d->x);
    free(d->y0);
    free(d->ref);
}

/* Build x, y0 and the reference alpha*A*x + beta*y0 in FP64 from the CSR
 * arrays (simple loops; the oracle of the backward error). */
static int prepare(const char *cmd, const bench_args *a, bench_data *d)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    psl_status st = psl_matrix_csr_view(d->A, &rp, &ci, &va);
    if (st != PSL_OK)
        return cli_lib_error(cmd, st);
    int64_t m = d->info.nrows, n = d->info.ncols;
    d->x = malloc((size_t)(n > 0 ? n : 1) * sizeof *d->x);
    d->y0 = malloc((size_t)(m > 0 ? m : 1) * sizeof *d->y0);
    d->ref = malloc((size_t)(m > 0 ? m : 1) * sizeof *d->ref);
    if (!d->x || !d->y0 || !d->ref)
        return cli_error(cmd, "out of memory for the vectors");
    uint64_t s = (uint64_t)a->seed;
    for (int64_t j = 0; j < n + m; j++) {
        double u = cli_round_fp16(cli_uniform_pm1(&s));
        if (j < n)
            d->x[j] = u;
        else
            d->y0[j - n] = a->beta != 0.0 ? u : 0.0;
    }
    d->norm_a = d->norm_x = d->norm_y0 = 0.0;
    for (int64_t j = 0; j < n; j++)
        d->norm_x = fmax(d->norm_x, fabs(d->x[j]));
    for (int64_t i = 0; i < m; i++) {
        double sum = 0.0, abs_sum = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            sum += va[k] * d->x[ci[k]];
            abs_sum += fabs(va[k]);
        }
        d->ref[i] = a->alpha * sum + a->beta * d->y0[i];
        d->norm_a = fmax(d->norm_a, abs_sum);
        d->norm_y0 = fmax(d->norm_y0, fabs(d->y0[i]));
    }
    return CLI_OK;
}

/* Backward error of y (original row order) against the reference. */
static double backward_error(const bench_data *d, const bench_args *a, const double *y)
{
    double num = 0.0;
    for (int64_t i = 0; i < d->info.nrows; i++) {
        double e = fabs(y[i] - d->ref[i]);
        if (!(e <= num)) /* also catches NaN */
            num = isnan(e) ? INFINITY : e;
    }
    double den = fabs(a->alpha) * d->norm_a * d->norm_x + fabs(a->beta) * d->norm_y0;
    return den > 0 ? num / den : (num == 0 ? 0.0 : INFINITY);
}

/* Convert, time and check one kernel. Failures go into r->error. */
static void run_kernel(const bench_args *a, const bench_data *d, const bench_kernel *k,
                       bench_result *r)
{
    psl_matrix *M = NULL;
    void *xv = NULL, *yv = NULL, *y0v = NULL;
    double *t = NULL, *y = NULL;
    int32_t *order = NULL;
    int64_t m = d->info.nrows, n = d->info.ncols, cap = 0;
    psl_matrix_info mi;
    psl_status st;
    memset(r, 0, sizeof *r);
    r->ratio_sell = -1;
    r->impl = "-";

    double t0 = cli_now();
    st = psl_matrix_convert(&M, d->A, &k->opt); /* CSR FP64 too: a timed copy */
    r->convert_seconds = cli_now() - t0;
    if (st == PSL_OK)
        st = psl_matrix_get_info(M, &mi);
    if (st != PSL_OK) {
        snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
        goto done;
    }
    cli_values_name(&mi, r->values, sizeof r->values);
    r->bytes = mi.bytes;
    r->sell_bytes = mi.sell_bytes;
    r->ratio_sell = mi.sell_bytes > 0 ? (double)mi.bytes / (double)mi.sell_bytes : -1;
    r->impl = psl_spmv_kernel_name(M, k->vec);

    /* y0 in stored row order for explicit permutation */
    int explicit_perm = mi.format != PSL_FORMAT_CSR && mi.permute == PSL_PERMUTE_EXPLICIT;
    y = malloc((size_t)(m > 0 ? m : 1) * sizeof *y);
    order = malloc((size_t)(m > 0 ? m : 1) * sizeof *order);
    if (!y || !order) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    if (explicit_perm) {
        if ((st = psl_matrix_row_order(M, order)) != PSL_OK) {
            snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
            goto done;
        }
    } else {
        for (int64_t i = 0; i < m; i++)
            order[i] = (int32_t)i;
    }
    for (int64_t i = 0; i < m; i++)
        y[i] = d->y0[order[i]];
    xv = cli_vec_from_double(d->x, n, k->vec, "x", r->error, sizeof r->error);
    y0v = xv ? cli_vec_from_double(y, m, k->vec, "y0", r->error, sizeof r->error) : NULL;
    yv = y0v ? malloc((size_t)(m > 0 ? m : 1) * cli_vec_size(k->vec)) : NULL;
    if (!yv) {
        if (!r->error[0])
            snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    size_t ybytes = (size_t)m * cli_vec_size(k->vec);
    if (m > 0)
        memcpy(yv, y0v, ybytes);

    for (long long w = 0; w < a->warmup; w++)
        if ((st = psl_spmv(a->alpha, M, xv, a->beta, yv, k->vec)) != PSL_OK)
            break;
    double total = 0.0;
    while (st == PSL_OK && r->runs < MAX_RUNS && (r->runs < a->reps || total < a->min_time)) {
        if (r->runs == cap) {
            cap = cap ? 2 * cap : 64;
            double *nt = realloc(t, (size_t)cap * sizeof *t);
            if (!nt) {
                snprintf(r->error, sizeof r->error, "out of memory for timings");
                goto done;
            }
            t = nt;
        }
        double s0 = cli_now();
        st = psl_spmv(a->alpha, M, xv, a->beta, yv, k->vec);
        double s1 = cli_now() - s0;
        t[r->runs++] = s1;
        total += s1;
    }
    if (st == PSL_OK) { /* one fresh product for the backward error */
        if (m > 0)
            memcpy(yv, y0v, ybytes);
        st = psl_spmv(a->alpha, M, xv, a->beta, yv, k->vec);
    }
    if (st != PSL_OK) {
        snprintf(r->error, sizeof r->error, "%s", psl_last_error_message());
        goto done;
    }
    double *ys = malloc((size_t)(m > 0 ? m : 1) * sizeof *ys);
    if (!ys) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    cli_vec_to_double(yv, m, k->vec, ys);
    for (int64_t i = 0; i < m; i++)
        y[order[i]] = ys[i];
    free(ys);
    r->backward_error = backward_error(d, a, y);

    r->t_min = t[0];
    r->t_max = t[0];
    for (int64_t i = 1; i < r->runs; i++) {
        r->t_min = fmin(r->t_min, t[i]);
        r->t_max = fmax(r->t_max, t[i]);
    }
    r->t_median = cli_median(t, r->runs);
    double vs = (double)cli_vec_size(k->vec);
    double traffic = (double)mi.bytes + vs * (double)n + vs * (double)m * (a->beta != 0 ? 2 : 1);
    r->gflops = r->t_median > 0 ? 2.0 * (double)d->info.nnz / r->t_median * 1e-9 : 0.0;
    r->gbs = r->t_median > 0 ? traffic / r->t_median * 1e-9 : 0.0;
    r->ok = 1;
done:
    if (!r->ok && !r->error[0])
        snprintf(r->error, sizeof r->error, "failed");
    psl_matrix_destroy(&M);
    free(xv);
    free(yv);
    free(y0v);
    free(t);
    free(y);
    free(order);
}

/* CSR matrices know no SELL equivalent: take the ratio to the SELL kernel of
 * the same value type in this run, if there is one. */
static void fill_csr_ratios(const bench_args *a, bench_result *res)
{
    for (int i = 0; i < a->nkernels; i++) {
        const psl_convert_options *oi = &a->kernels[i].opt;
        if (!res[i].ok || oi->format != PSL_FORMAT_CSR || res[i].ratio_sell >= 0)
            continue;
        for (int k = 0; k < a->nkernels; k++) {
            const psl_convert_options *ok = &a->kernels[k].opt;
            if (res[k].ok && ok->format == PSL_FORMAT_SELL && ok->value_type == oi->value_type &&
                res[k].bytes > 0) {
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

static void print_table(const bench_args *a, const bench_data *d, const bench_result *res,
                        double load_s)
{
    const psl_convert_options *o = &a->kernels[0].opt;
    printf("packsell %s, %d threads, device cpu\n", psl_version(), threads_in_use());
    printf("matrix %s: %d x %d, %lld nonzeros, RSD %.4f, kleft %lld (load %.3f s)\n",
           a->matrix, (int)d->info.nrows, (int)d->info.ncols, (long long)d->info.nnz,
           d->info.rsd, (long long)d->info.kleft, load_s);
    printf("C = %d, sigma = %d, %s permutation, alpha = %g, beta = %g\n\n",
           (int)o->slice_height, (int)o->sigma,
           o->permute == PSL_PERMUTE_EXPLICIT ? "explicit" : "implicit", a->alpha, a->beta);
    printf("%-16s %-6s %-7s %-4s %6s %12s %9s %9s %12s %7s %10s %9s\n", "kernel", "values",
           "vectors", "impl", "runs", "median_us", "GFLOPS", "GB/s", "bytes", "ratio",
           "bwd_error", "convert_s");
    for (int i = 0; i < a->nkernels; i++) {
        const bench_kernel *k = &a->kernels[i];
        const bench_result *r = &res[i];
        if (!r->ok) {
            printf("%-16s %-6s %-7s error: %s\n", k->name, r->values[0] ? r->values : "-",
                   cli_scalar_name(k->vec), r->error);
            continue;
        }
        char ratio[16];
        if (r->ratio_sell >= 0)
            snprintf(ratio, sizeof ratio, "%.3f", r->ratio_sell);
        else
            snprintf(ratio, sizeof ratio, "-");
        printf("%-16s %-6s %-7s %-4s %6lld %12.2f %9.3f %9.2f %12lld %7s %10.3e %9.4f\n",
               k->name, r->values, cli_scalar_name(k->vec), r->impl, (long long)r->runs,
               r->t_median * 1e6, r->gflops, r->gbs, (long long)r->bytes, ratio,
               r->backward_error, r->convert_seconds);
    }
}

static int write_json(const char *cmd, const bench_args *a, const bench_data *d,
                      const bench_result *res, double load_s)
{
    FILE *f = fopen(a->json, "w");
    if (!f)
        return cli_error(cmd, "cannot open '%s' for writing", a->json);
    char date[64] = "", host[256] = "";
    time_t now = time(NULL);
    struct tm tmv;
    if (gmtime_r(&now, &tmv))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    const psl_convert_options *o = &a->kernels[0].opt;
    cli_json j;
    cli_json_init(&j, f);
    cli_json_begin_object(&j, NULL);
    cli_json_string(&j, "packsell_version", psl_version());
    cli_json_string(&j, "date", date);
    cli_json_string(&j, "host", host);
    cli_json_string(&j, "device", "cpu");
    cli_json_int(&j, "threads", threads_in_use());
    cli_json_string(&j, "matrix", a->matrix);
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
    cli_json_int(&j, "warmup", a->warmup);
    cli_json_int(&j, "seed", a->seed);
    cli_json_begin_array(&j, "kernels");
    for (int i = 0; i < a->nkernels; i++) {
        const bench_kernel *k = &a->kernels[i];
        const bench_result *r = &res[i];
        cli_json_begin_object(&j, NULL);
        cli_json_string(&j, "kernel", k->name);
        cli_json_string(&j, "format", cli_format_name(k->opt.format));
        cli_json_string(&j, "values", r->values[0] ? r->values : NULL);
        cli_json_string(&j, "vectors", cli_scalar_name(k->vec));
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
    cli_json_end_array(&j);
    cli_json_end_object(&j);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return cli_error(cmd, "error writing '%s'", a->json);
    return CLI_OK;
}

int cmd_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    bench_args a;
    int rc = parse(argc, argv, &a);
    if (rc == CLI_HELP) {
        usage();
        return CLI_OK;
    }
    if (rc)
        return rc;
#ifdef _OPENMP
    if (a.threads > 0)
        omp_set_num_threads((int)a.threads);
#endif
    bench_data d = {0};
    bench_result *res = NULL;
    psl_status st;
    double load_s = 0, conv_s = 0;
    psl_convert_options csr;
    psl_convert_options_init(&csr);
    csr.format = PSL_FORMAT_CSR;
    csr.value_type = PSL_FP64;
    if ((rc = cli_load_matrix(cmd, a.matrix, &csr, &d.A, &load_s, &conv_s)) != 0)
        goto done;
    load_s += conv_s;
    if ((st = psl_matrix_get_info(d.A, &d.info)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    if ((rc = prepare(cmd, &a, &d)) != 0)
        goto done;
    res = calloc((size_t)a.nkernels, sizeof *res);
    if (!res) {
        rc = cli_error(cmd, "out of memory");
        goto done;
    }
    int failed = 0;
    for (int i = 0; i < a.nkernels; i++) {
        run_kernel(&a, &d, &a.kernels[i], &res[i]);
        if (!res[i].ok) {
            cli_error(cmd, "%s: %s", a.kernels[i].name, res[i].error);
            failed++;
        }
    }
    fill_csr_ratios(&a, res);
    print_table(&a, &d, res, load_s);
    fflush(stdout);
    rc = a.json ? write_json(cmd, &a, &d, res, load_s) : CLI_OK;
    if (rc == CLI_OK && failed)
        rc = CLI_RUNTIME;
done:
    free(res);
    free_data(&d);
    return rc;
}
