/*
 * cmd_info.c -- "packsell info MATRIX [format options] [--json]": the shape,
 * row statistics and storage footprint of a matrix in a chosen format (for
 * CSR-k also its bandwidth, before and after a locality reordering), as a
 * readable table or one JSON object.
 */
#include "cli.h"

#include <string.h>

static void usage(void)
{
    printf("Usage: packsell info MATRIX [format options] [--json]\n"
           "\n"
           "Print the shape, row statistics (nnz per row, RSD, lower bandwidth kleft)\n"
           "and the storage footprint of MATRIX in a format. Without format options a\n"
           "Matrix Market file or generator is shown as FP64 CSR and a packsell binary\n"
           "file in its stored format.\n"
           "\n"
           "MATRIX: gen:SPEC, a packsell binary file or a Matrix Market file.\n"
           "\n"
           "Options:\n"
           "      --json           print one JSON object instead of a table\n"
           "  -h, --help           this help\n"
           CLI_FORMAT_HELP
           "\n"
           "Example: packsell info gen:hpcg:5:5:5 --format packsell --values fp16 --json\n"
           "         packsell info gen:hpcg:5:5:5 --format auto --precision fp32\n");
}

/* The bandwidth (max |i - j| over the entries) of a CSR-k matrix as
 * stored, and in the caller's numbering (before its locality reordering,
 * if any: the stored entry (i, j) is the caller's (perm[i], perm[j])). */
typedef struct bandwidths {
    int64_t stored, before;
} bandwidths;

static bandwidths csrk_bandwidths(const psl_matrix *A, const psl_matrix_info *in)
{
    bandwidths b = {-1, -1};
    const int64_t *rp;
    const int32_t *ci, *perm;
    if (in->format != PSL_FORMAT_CSRK ||
        psl_matrix_csrk_view(A, NULL, &rp, &ci, NULL, NULL, NULL, NULL, NULL, NULL) != PSL_OK ||
        psl_matrix_csrk_perm_view(A, &perm, NULL) != PSL_OK)
        return b;
    b.stored = b.before = 0;
    for (int32_t i = 0; i < in->nrows; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            int64_t d = (int64_t)i - ci[e], o = perm ? (int64_t)perm[i] - perm[ci[e]] : d;
            d = d < 0 ? -d : d;
            o = o < 0 ? -o : o;
            b.stored = d > b.stored ? d : b.stored;
            b.before = o > b.before ? o : b.before;
        }
    return b;
}

/* Ratio a/b, or a negative number when b is 0 (printed as null / "-"). */
static double ratio(int64_t a, int64_t b) { return b > 0 ? (double)a / (double)b : -1.0; }

/* One JSON object; chosen (--format auto) adds the chooser's "choice". */
static void print_json(const char *source, const psl_matrix_info *in, const bandwidths *bw,
                       double load_s, double conv_s, const psl_choice *chosen)
{
    char vbuf[32];
    int sliced = in->format == PSL_FORMAT_SELL || in->format == PSL_FORMAT_PACKSELL,
        packed = in->format == PSL_FORMAT_PACKSELL, csrk = in->format == PSL_FORMAT_CSRK;
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_begin_object(&j, NULL);
    cli_json_string(&j, "matrix", source);
    cli_json_int(&j, "rows", in->nrows);
    cli_json_int(&j, "cols", in->ncols);
    cli_json_int(&j, "nnz", in->nnz);
    cli_json_int(&j, "max_row_nnz", in->max_row_nnz);
    cli_json_double(&j, "mean_row_nnz", in->mean_row_nnz);
    cli_json_double(&j, "rsd", in->rsd);
    cli_json_int(&j, "kleft", in->kleft);
    cli_json_string(&j, "format", psl_format_name(in->format));
    cli_json_string(&j, "values", cli_values_name(in, vbuf, sizeof vbuf));
    if (sliced) {
        cli_json_int(&j, "C", in->slice_height);
        cli_json_int(&j, "sigma", in->sigma);
        cli_json_string(&j, "permute",
                        in->permute == PSL_PERMUTE_EXPLICIT ? "explicit" : "implicit");
        cli_json_int(&j, "nslices", in->nslices);
    } else {
        cli_json_null(&j, "C");
        cli_json_null(&j, "sigma");
        cli_json_null(&j, "permute");
        cli_json_null(&j, "nslices");
    }
    if (packed) {
        cli_json_int(&j, "D", in->delta_bits);
        cli_json_int(&j, "words", in->stored);
        cli_json_int(&j, "dummies", in->dummies);
    } else {
        cli_json_null(&j, "D");
        cli_json_null(&j, "words");
        cli_json_null(&j, "dummies");
    }
    if (csrk) {
        cli_json_int(&j, "csrk_k", in->csrk_k);
        cli_json_int(&j, "csrk_super_rows", in->csrk_super_rows);
        cli_json_int(&j, "csrk_super_super_rows", in->csrk_super_super_rows);
        cli_json_int(&j, "csrk_overhead_bytes", in->csrk_overhead_bytes);
        cli_json_double(&j, "csrk_overhead_share",
                        in->csr_bytes > 0 ? (double)in->csrk_overhead_bytes / in->csr_bytes : 0);
        cli_json_int(&j, "csrk_perm_bytes", in->csrk_perm_bytes);
        if (in->csrk_device_overhead_bytes >= 0) {
            cli_json_int(&j, "csrk_device_overhead_bytes", in->csrk_device_overhead_bytes);
            cli_json_double(&j, "csrk_device_overhead_share",
                            in->csr_bytes > 0
                                ? (double)in->csrk_device_overhead_bytes / in->csr_bytes
                                : 0);
        } else {
            cli_json_null(&j, "csrk_device_overhead_bytes");
            cli_json_null(&j, "csrk_device_overhead_share");
        }
        cli_json_int(&j, "bandwidth", bw->stored);
        cli_json_int(&j, "bandwidth_before_reordering", bw->before);
    }
    cli_json_int(&j, "stored", sliced ? in->stored : in->nnz);
    cli_json_int(&j, "padding", sliced ? in->padding : 0);
    cli_json_int(&j, "underflows", in->underflows);
    cli_json_int(&j, "bytes", in->bytes);
    cli_json_int(&j, "sell_bytes", in->sell_bytes);
    cli_json_int(&j, "csr_bytes", in->csr_bytes);
    double rs = ratio(in->bytes, in->sell_bytes), rc = ratio(in->bytes, in->csr_bytes);
    if (rs >= 0)
        cli_json_double(&j, "ratio_sell", rs);
    else
        cli_json_null(&j, "ratio_sell");
    if (rc >= 0)
        cli_json_double(&j, "ratio_csr", rc);
    else
        cli_json_null(&j, "ratio_csr");
    cli_json_double(&j, "load_seconds", load_s);
    cli_json_double(&j, "convert_seconds", conv_s);
    if (chosen)
        cli_choice_json(&j, "choice", chosen);
    cli_json_end_object(&j);
}

static void print_table(const char *source, const psl_matrix_info *in, const bandwidths *bw,
                        double load_s, double conv_s)
{
    char vbuf[32];
    int sliced = in->format == PSL_FORMAT_SELL || in->format == PSL_FORMAT_PACKSELL,
        packed = in->format == PSL_FORMAT_PACKSELL, csrk = in->format == PSL_FORMAT_CSRK;
    printf("%-16s %s\n", "matrix", source);
    printf("%-16s %d x %d\n", "size", (int)in->nrows, (int)in->ncols);
    printf("%-16s %lld\n", "nnz", (long long)in->nnz);
    printf("%-16s %d max, %.3f mean, RSD %.4f\n", "nnz per row", (int)in->max_row_nnz,
           in->mean_row_nnz, in->rsd);
    printf("%-16s %lld\n", "kleft", (long long)in->kleft);
    printf("%-16s %s, values %s\n", "format", psl_format_name(in->format),
           cli_values_name(in, vbuf, sizeof vbuf));
    if (sliced) {
        printf("%-16s C = %d, sigma = %d, %s permutation, %d slices\n", "slicing",
               (int)in->slice_height, (int)in->sigma,
               in->permute == PSL_PERMUTE_EXPLICIT ? "explicit" : "implicit",
               (int)in->nslices);
        printf("%-16s %lld (%lld padding)\n", packed ? "words" : "stored entries",
               (long long)in->stored, (long long)in->padding);
    }
    if (packed)
        printf("%-16s D = %d, %lld dummy words\n", "delta bits", (int)in->delta_bits,
               (long long)in->dummies);
    if (csrk) {
        printf("%-16s k = %d, %d super-rows, %d super-super-rows\n", "grouping",
               (int)in->csrk_k, (int)in->csrk_super_rows, (int)in->csrk_super_super_rows);
        printf("%-16s %lld bytes (%.4f%% of CSR)\n", "csrk overhead",
               (long long)in->csrk_overhead_bytes,
               in->csr_bytes > 0 ? 100.0 * (double)in->csrk_overhead_bytes / in->csr_bytes
                                 : 0.0);
        if (in->csrk_device_overhead_bytes >= 0)
            printf("%-16s %lld bytes (%.4f%% of CSR: these pointers and the GPU kernel's "
                   "grouping)\n",
                   "csrk on the GPU", (long long)in->csrk_device_overhead_bytes,
                   in->csr_bytes > 0
                       ? 100.0 * (double)in->csrk_device_overhead_bytes / in->csr_bytes
                       : 0.0);
        if (in->csrk_perm_bytes > 0) {
            printf("%-16s %lld bytes (perm and inverse, %.4f%% of CSR)\n", "csrk perm",
                   (long long)in->csrk_perm_bytes,
                   in->csr_bytes > 0 ? 100.0 * (double)in->csrk_perm_bytes / in->csr_bytes
                                     : 0.0);
            printf("%-16s %lld (before reordering %lld)\n", "bandwidth",
                   (long long)bw->stored, (long long)bw->before);
        } else {
            printf("%-16s %lld\n", "bandwidth", (long long)bw->stored);
        }
    }
    printf("%-16s %lld\n", "underflows", (long long)in->underflows);
    printf("%-16s %lld\n", "bytes", (long long)in->bytes);
    double rs = ratio(in->bytes, in->sell_bytes), rc = ratio(in->bytes, in->csr_bytes);
    if (rs >= 0)
        printf("%-16s %lld (ratio %.4f)\n", "SELL bytes", (long long)in->sell_bytes, rs);
    if (rc >= 0)
        printf("%-16s %lld (ratio %.4f)\n", "CSR bytes", (long long)in->csr_bytes, rc);
    printf("%-16s load %.6f s, convert %.6f s\n", "time", load_s, conv_s);
}

int cmd_info(int argc, char **argv)
{
    const char *cmd = "info";
    cli_opt opts[] = {CLI_FORMAT_OPTS, {"--json", NULL, 0, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int rc = cli_parse_one(cmd, argc, argv, opts, nopts, usage, "MATRIX", pos);
    if (rc)
        return rc == CLI_HELP ? CLI_OK : rc;
    cli_format_args fa;
    psl_convert_options opt;
    cli_format_args_get(opts, nopts, &fa);
    rc = cli_format_options(cmd, &fa, &opt);
    if (rc)
        return rc;

    psl_matrix *A = NULL;
    double load_s = 0, conv_s = 0;
    rc = cli_load_matrix(cmd, pos[0], cli_format_given(&fa) ? &opt : NULL, &A, &load_s,
                         &conv_s);
    if (rc)
        return rc;
    psl_choice choice, *chosen = NULL;
    if (cli_format_is_auto(&fa)) {
        if ((rc = cli_auto_convert(cmd, &fa, &opt, NULL, &A, &choice, &conv_s)) != 0) {
            psl_matrix_destroy(&A);
            return rc;
        }
        chosen = &choice;
    }
    psl_matrix_info info;
    psl_status st = psl_matrix_get_info(A, &info);
    if (st != PSL_OK) {
        rc = cli_lib_error(cmd, st);
    } else {
        const bandwidths bw = csrk_bandwidths(A, &info);
        if (cli_find(opts, nopts, "--json")->present) {
            print_json(pos[0], &info, &bw, load_s, conv_s, chosen);
        } else {
            print_table(pos[0], &info, &bw, load_s, conv_s);
            if (chosen)
                cli_choice_print(stdout, chosen);
        }
        rc = fflush(stdout) == 0 ? CLI_OK : cli_error(cmd, "cannot write to standard output");
    }
    psl_matrix_destroy(&A);
    return rc;
}
