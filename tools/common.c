/*
 * common.c -- matrix handling shared by the subcommands: opening a MATRIX
 * argument, turning --format/--values/--delta-bits/... into convert options,
 * converting with timing, the value name of a matrix and the --device check.
 */
#include "cli.h"

#include <sys/stat.h>
#include <unistd.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

psl_status cli_open_matrix(const char *source, psl_matrix **A, double *seconds)
{
    double t0 = cli_now();
    psl_status st = psl_matrix_open(A, source);
    if (seconds)
        *seconds = cli_now() - t0;
    return st;
}

int cli_same(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

const char *cli_values_name(const psl_matrix_info *info, char *buf, size_t len)
{
    if (info->format == PSL_FORMAT_PACKSELL) {
        if (psl_codec_name(info->codec, buf, len) != PSL_OK)
            snprintf(buf, len, "?");
        return buf;
    }
    snprintf(buf, len, "%s", psl_scalar_name(info->value_type));
    return buf;
}

/* PackSELL codec from --values and --delta-bits: a full codec name must agree
 * with D; "eXm" (no mantissa width) takes it from D (Y = 30 - X - D). */
static int packsell_codec(const char *cmd, const char *values, const char *dbits,
                          psl_codec *codec)
{
    long long d = -1;
    if (dbits) {
        int rc = cli_parse_int(cmd, "--delta-bits", dbits, 1, 29, &d);
        if (rc)
            return rc;
    }
    size_t n = strlen(values);
    int x = 0, used = 0;
    if (n >= 3 && (values[n - 1] == 'm' || values[n - 1] == 'M') &&
        sscanf(values, "%*1[eE]%d%n", &x, &used) == 1 && (size_t)used == n - 1) {
        if (d < 0)
            return cli_usage_error(cmd, "--values %s needs --delta-bits D (mantissa = %d - D)",
                                   values, 30 - x);
        char name[48];
        snprintf(name, sizeof name, "e%dm%lld", x, 30 - x - d);
        if (30 - x - d < 0)
            return cli_usage_error(cmd,
                                   "--values %s with --delta-bits %lld leaves %lld mantissa bits",
                                   values, d, 30 - x - d);
        psl_status st = psl_codec_parse(name, codec);
        return st == PSL_OK ? CLI_OK
                            : cli_usage_error(cmd, "--values %s with --delta-bits %lld: %s",
                                              values, d, psl_last_error_message());
    }
    /* an option value that cannot apply is a usage error (exit 2) */
    psl_status st = psl_codec_parse(values, codec);
    if (st != PSL_OK)
        return cli_usage_error(cmd, "--values %s: %s", values, psl_last_error_message());
    if (d >= 0 && psl_codec_delta_bits(*codec) != d) {
        char name[32];
        psl_codec_name(*codec, name, sizeof name);
        return cli_usage_error(cmd,
                         "--delta-bits %lld does not match --values %s, which leaves D = %d "
                         "delta bits (use e%dm with --delta-bits, or e%dm%lld)",
                         d, name, (int)psl_codec_delta_bits(*codec), (int)codec->exp_bits,
                         (int)codec->exp_bits, 30 - codec->exp_bits - d);
    }
    return CLI_OK;
}

void cli_format_args_get(cli_opt *opts, int nopts, cli_format_args *fa)
{
    fa->format = cli_find(opts, nopts, "--format")->value;
    fa->values = cli_find(opts, nopts, "--values")->value;
    fa->delta_bits = cli_find(opts, nopts, "--delta-bits")->value;
    fa->slice = cli_find(opts, nopts, "--slice")->value;
    fa->sigma = cli_find(opts, nopts, "--sigma")->value;
    fa->permute = cli_find(opts, nopts, "--permute")->value;
    fa->overflow = cli_find(opts, nopts, "--overflow")->value;
    fa->precision = cli_find(opts, nopts, "--precision")->value;
    fa->csrk_k = cli_find(opts, nopts, "--csrk-k")->value;
    fa->csrk_sr = cli_find(opts, nopts, "--csrk-sr")->value;
    fa->csrk_ssr = cli_find(opts, nopts, "--csrk-ssr")->value;
    fa->csrk_reorder = cli_find(opts, nopts, "--csrk-reorder")->value;
    fa->csrk_fit = cli_find(opts, nopts, "--csrk-fit")->value;
}

int cli_csrk_options(const char *cmd, const cli_format_args *fa, psl_convert_options *opt)
{
    long long v;
    int rc;
    if (fa->csrk_k) {
        if ((rc = cli_parse_int(cmd, "--csrk-k", fa->csrk_k, 1, 3, &v)) != 0)
            return rc;
        opt->csrk_k = (int32_t)v;
    }
    if (fa->csrk_sr) {
        if ((rc = cli_parse_int(cmd, "--csrk-sr", fa->csrk_sr, 0, INT32_MAX, &v)) != 0)
            return rc;
        opt->csrk_sr_rows = (int32_t)v;
    }
    if (fa->csrk_ssr) {
        if ((rc = cli_parse_int(cmd, "--csrk-ssr", fa->csrk_ssr, 0, INT32_MAX, &v)) != 0)
            return rc;
        opt->csrk_ssr_srs = (int32_t)v;
    }
    if (fa->csrk_reorder) {
        if (cli_same(fa->csrk_reorder, "none"))
            opt->csrk_reorder = PSL_CSRK_REORDER_NONE;
        else if (cli_same(fa->csrk_reorder, "rcm"))
            opt->csrk_reorder = PSL_CSRK_REORDER_RCM;
        else if (cli_same(fa->csrk_reorder, "bandk"))
            opt->csrk_reorder = PSL_CSRK_REORDER_BANDK;
        else
            return cli_usage_error(cmd, "unknown --csrk-reorder '%s' (expected none, rcm or "
                                   "bandk)", fa->csrk_reorder);
    }
    if (opt->csrk_k == 1 && fa->csrk_sr)
        return cli_usage_error(cmd, "--csrk-sr does not apply to --csrk-k 1 (plain CSR has no "
                               "super-rows)");
    if (opt->csrk_k < 3 && fa->csrk_ssr)
        return cli_usage_error(cmd, "--csrk-ssr needs --csrk-k 3 (super-super-rows), not "
                               "--csrk-k %d", (int)opt->csrk_k);
    if (fa->csrk_fit) {
        if (!fa->csrk_fit[0])
            return cli_usage_error(cmd, "--csrk-fit: an empty file name");
        psl_status st = psl_csrk_model_load(fa->csrk_fit);
        if (st != PSL_OK)
            return cli_error(cmd, "--csrk-fit: %s", psl_last_error_message());
    }
    return CLI_OK;
}

/* --permute and --overflow into opt. */
static int permute_overflow(const char *cmd, const cli_format_args *fa, psl_convert_options *opt)
{
    if (fa->permute) {
        if (cli_same(fa->permute, "implicit"))
            opt->permute = PSL_PERMUTE_IMPLICIT;
        else if (cli_same(fa->permute, "explicit"))
            opt->permute = PSL_PERMUTE_EXPLICIT;
        else
            return cli_usage_error(cmd, "unknown --permute '%s' (expected implicit or explicit)",
                                   fa->permute);
    }
    if (fa->overflow) {
        if (cli_same(fa->overflow, "error"))
            opt->overflow = PSL_OVERFLOW_ERROR;
        else if (cli_same(fa->overflow, "saturate"))
            opt->overflow = PSL_OVERFLOW_SATURATE;
        else
            return cli_usage_error(cmd, "unknown --overflow '%s' (expected error or saturate)",
                                   fa->overflow);
    }
    return CLI_OK;
}

int cli_format_is_auto(const cli_format_args *fa) { return fa->format && cli_same(fa->format, "auto"); }

/* --format auto: the matrix is loaded as FP64 CSR for the chooser; the
 * options the chooser decides are refused, --precision is required. */
static int auto_options(const char *cmd, const cli_format_args *fa, psl_convert_options *opt)
{
    const char *bad = fa->values ? "--values"
                      : fa->delta_bits ? "--delta-bits"
                      : fa->slice      ? "--slice"
                      : fa->sigma      ? "--sigma"
                      : fa->csrk_k     ? "--csrk-k"
                      : fa->csrk_sr    ? "--csrk-sr"
                      : fa->csrk_ssr   ? "--csrk-ssr"
                      : fa->csrk_reorder ? "--csrk-reorder"
                      : fa->csrk_fit   ? "--csrk-fit"
                                       : NULL;
    if (bad)
        return cli_usage_error(cmd, "%s does not apply to --format auto (the chooser picks the "
                               "format, values and slicing for --precision)", bad);
    psl_precision p;
    if (!fa->precision)
        return cli_usage_error(cmd, "--format auto needs --precision fp16, fp32 or fp64");
    if (cli_precision_parse(fa->precision, &p) != 0)
        return cli_usage_error(cmd, "unknown --precision '%s' (expected fp16, fp32 or fp64)",
                               fa->precision);
    return permute_overflow(cmd, fa, opt);
}

int cli_format_options(const char *cmd, const cli_format_args *fa, psl_convert_options *opt)
{
    psl_convert_options_init(opt);
    opt->format = PSL_FORMAT_CSR;
    opt->value_type = PSL_FP64;
    opt->codec = (psl_codec){5, 10};
    opt->slice_height = 32;
    opt->sigma = 256;
    opt->permute = PSL_PERMUTE_IMPLICIT;

    const char *f = fa->format ? fa->format : "csr";
    if (cli_same(f, "auto"))
        return auto_options(cmd, fa, opt);
    if (fa->precision)
        return cli_usage_error(cmd, "--precision applies only to --format auto");
    if (psl_format_parse(f, &opt->format) != PSL_OK)
        return cli_usage_error(cmd, "unknown --format '%s' (expected csr, sell, packsell, "
                               "csrk or auto)", f);

    if (opt->format != PSL_FORMAT_CSRK) {
        const char *bad = fa->csrk_k    ? "--csrk-k"
                          : fa->csrk_sr ? "--csrk-sr"
                          : fa->csrk_ssr ? "--csrk-ssr"
                          : fa->csrk_reorder ? "--csrk-reorder"
                          : fa->csrk_fit ? "--csrk-fit"
                                         : NULL;
        if (bad)
            return cli_usage_error(cmd, "%s applies only to --format csrk", bad);
    }
    if (opt->format == PSL_FORMAT_CSRK) {
        const char *bad = fa->slice      ? "--slice"
                          : fa->sigma    ? "--sigma"
                          : fa->permute  ? "--permute"
                          : fa->delta_bits ? "--delta-bits"
                                           : NULL;
        if (bad)
            return cli_usage_error(cmd, "%s does not apply to --format csrk", bad);
        int rc = cli_csrk_options(cmd, fa, opt);
        if (rc)
            return rc;
    }

    if (opt->format == PSL_FORMAT_CSR) {
        const char *bad = fa->slice      ? "--slice"
                          : fa->sigma    ? "--sigma"
                          : fa->permute  ? "--permute"
                          : fa->delta_bits ? "--delta-bits"
                                           : NULL;
        if (bad)
            return cli_usage_error(cmd, "%s does not apply to --format csr", bad);
    }
    if (opt->format != PSL_FORMAT_PACKSELL && fa->delta_bits)
        return cli_usage_error(cmd, "--delta-bits applies only to --format packsell");

    if (opt->format == PSL_FORMAT_PACKSELL) {
        int rc = packsell_codec(cmd, fa->values ? fa->values : "fp16", fa->delta_bits,
                                &opt->codec);
        if (rc)
            return rc;
    } else if (fa->values) {
        psl_scalar s;
        if (psl_scalar_parse(fa->values, &s) != PSL_OK)
            return cli_usage_error(cmd, "unknown --values '%s' for --format %s (expected %s)",
                                   fa->values, psl_format_name(opt->format),
                                   opt->format == PSL_FORMAT_CSR    ? "fp64 or fp32"
                                   : opt->format == PSL_FORMAT_CSRK ? "fp64, fp32 or fp16"
                                                                    : "fp64, fp32, fp16 or bf16");
        if (opt->format == PSL_FORMAT_CSR && s != PSL_FP64 && s != PSL_FP32)
            return cli_usage_error(cmd,
                                   "--values %s is not available for --format csr "
                                   "(use fp64 or fp32, or --format sell/packsell/csrk)",
                                   fa->values);
        if (opt->format == PSL_FORMAT_CSRK && s == PSL_BF16)
            return cli_usage_error(cmd,
                                   "--values bf16 is not available for --format csrk "
                                   "(use fp64, fp32 or fp16)");
        opt->value_type = s;
    }

    long long v;
    if (fa->slice) {
        int rc = cli_parse_int(cmd, "--slice", fa->slice, 1, PSL_SLICE_HEIGHT_MAX, &v);
        if (rc)
            return rc;
        opt->slice_height = (int32_t)v;
        if (!fa->sigma) /* keep the default sigma a multiple of C */
            opt->sigma = opt->slice_height * ((256 + opt->slice_height - 1) / opt->slice_height);
    }
    if (fa->sigma) {
        int rc = cli_parse_int(cmd, "--sigma", fa->sigma, 0, INT32_MAX, &v);
        if (rc)
            return rc;
        opt->sigma = (int32_t)v;
    }
    if ((opt->format == PSL_FORMAT_SELL || opt->format == PSL_FORMAT_PACKSELL) &&
        opt->sigma % opt->slice_height != 0)
        return cli_usage_error(cmd, "--sigma %d must be 0 or a multiple of --slice %d",
                               (int)opt->sigma, (int)opt->slice_height);
    return permute_overflow(cmd, fa, opt);
}

psl_status cli_convert(const psl_matrix *src, const psl_convert_options *opt,
                       psl_matrix **out, double *seconds)
{
    double t0 = cli_now();
    psl_status st = psl_matrix_convert(out, src, opt);
    if (seconds)
        *seconds = cli_now() - t0;
    return st;
}

int cli_format_given(const cli_format_args *fa)
{
    return fa->format || fa->values || fa->delta_bits || fa->slice || fa->sigma ||
           fa->permute || fa->overflow || fa->precision || fa->csrk_k || fa->csrk_sr ||
           fa->csrk_ssr || fa->csrk_reorder || fa->csrk_fit;
}

int cli_load_matrix(const char *cmd, const char *source, const psl_convert_options *opt,
                    psl_matrix **out, double *load_seconds, double *convert_seconds)
{
    psl_matrix *A = NULL, *csr = NULL;
    psl_matrix_info info;
    *out = NULL;
    *convert_seconds = 0.0;
    psl_status st = cli_open_matrix(source, &A, load_seconds);
    if (st == PSL_OK)
        st = psl_matrix_get_info(A, &info);
    if (st != PSL_OK)
        goto fail;
    int fp64_csr = info.format == PSL_FORMAT_CSR && info.value_type == PSL_FP64;
    if (!opt || (opt->format == PSL_FORMAT_CSR && opt->value_type == PSL_FP64 && fp64_csr)) {
        *out = A;
        return CLI_OK;
    }
    double t0 = cli_now();
    if (!fp64_csr) {
        st = psl_matrix_to_csr(&csr, A);
        if (st != PSL_OK)
            goto fail;
        psl_matrix_destroy(&A);
        A = csr;
        csr = NULL;
    }
    if (opt->format == PSL_FORMAT_CSR && opt->value_type == PSL_FP64) {
        *out = A;
    } else {
        st = psl_matrix_convert(out, A, opt);
        psl_matrix_destroy(&A);
        if (st != PSL_OK)
            goto fail;
    }
    *convert_seconds = cli_now() - t0;
    return CLI_OK;
fail:
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&csr);
    return cli_lib_error(cmd, st);
}

int cli_device_is_cuda(const char *device) { return device && cli_same(device, "cuda"); }

int cli_check_output(const char *cmd, const char *opt, const char *path)
{
    if (!path)
        return CLI_OK;
    if (!path[0])
        return cli_usage_error(cmd, "%s: an empty file name", opt);
    if (strcmp(path, "-") == 0)
        return CLI_OK; /* standard output */
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode))
        return CLI_OK; /* written to as a stream (psl_output_begin) */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return cli_error(cmd, "%s '%s' exists and is not a regular file (%s); not written", opt,
                         path,
                         S_ISDIR(sb.st_mode) ? "a folder"
                         : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device"
                                                                       : "not a file");
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cli_error(cmd, "%s '%s': the folder '%s' does not exist", opt, path, dir);
    if (access(dir, W_OK) != 0)
        return cli_error(cmd, "%s '%s': the folder '%s' is not writable", opt, path, dir);
    return CLI_OK;
}

int cli_check_device(const char *cmd, const char *device)
{
    if (!device || cli_same(device, "cpu"))
        return CLI_OK;
    if (!cli_same(device, "cuda"))
        return cli_usage_error(cmd, "unknown --device '%s' (expected cpu or cuda)", device);
    int count = 0;
    psl_status st = psl_cuda_device_count(&count);
    if (st == PSL_ERR_NOT_SUPPORTED)
        return cli_error(cmd, "--device cuda: not supported in this build (packsell was built "
                              "without CUDA)");
    if (st != PSL_OK)
        return cli_error(cmd, "--device cuda: %s", psl_last_error_message()[0]
                                                       ? psl_last_error_message()
                                                       : psl_status_string(st));
    if (count <= 0)
        return cli_error(cmd, "--device cuda: no CUDA device found");
    return CLI_OK;
}

int cli_output_finish(const char *cmd, psl_output **out, FILE *f, const char *what,
                      const char *path)
{
    if (ferror(f)) {
        psl_output_cancel(out);
        return cli_error(cmd, "%s '%s'", what, path);
    }
    psl_status st = psl_output_commit(out);
    return st == PSL_OK ? CLI_OK : cli_lib_error(cmd, st);
}
