/*
 * cmd_spmv.c -- "packsell spmv MATRIX --x XFILE -o YFILE ...": one product
 * y = alpha*A*x + beta*y0 in a chosen format and vector precision. y is
 * written in the original row order whatever the permutation.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("Usage: packsell spmv MATRIX --x XFILE -o YFILE [options] [format options]\n"
           "\n"
           "Compute y = alpha*A*x + beta*y0 once and write y as a Matrix Market array, in\n"
           "the original row order (also with --permute explicit). Without format\n"
           "options a generator or Matrix Market file is used as FP64 CSR and a packsell\n"
           "binary file in its stored format.\n"
           "\n"
           "MATRIX: gen:SPEC, a packsell binary file or a Matrix Market file.\n"
           "\n"
           "Options:\n"
           "      --x XFILE        x as a Matrix Market vector (length = columns), or\n"
           "                       'ones', or 'random[:SEED]' (uniform in [-1,1))\n"
           "  -o, --output YFILE   output vector (required)\n"
           "      --vectors T      vector type: fp64 (default), fp32 or fp16; with\n"
           "                       --format auto the pick's (fp16 for 16-bit values, else\n"
           "                       the value type)\n"
           "      --alpha A        default 1\n"
           "      --beta B         default 0 (y0 is not read)\n"
           "      --y0 FILE        initial y (length = rows), required when B != 0\n"
           "      --device D       cpu (default) or cuda; --format auto picks for it\n"
           "                       (cpu: the CPU model of this host, its read\n"
           "                       bandwidth measured first)\n"
           "  -h, --help           this help\n"
           CLI_FORMAT_HELP
           "  (For --format packsell, --values defaults to fp16.)\n"
           "\n"
           "Example: packsell spmv gen:lap2d:100 --x ones -o y.mtx --format packsell\n");
}

/* Build x from --x: a file, "ones" or "random[:SEED]". Returns a CLI code;
 * *x is malloc'd (ones/random) or from psl_mm_read_vector (psl_free): *from_lib
 * says which. */
static int make_x(const char *cmd, const char *spec, int64_t ncols, double **x,
                  int64_t *n, int *from_lib)
{
    *x = NULL;
    *from_lib = 0;
    long long seed = 1;
    int ones = strcmp(spec, "ones") == 0;
    int random = strcmp(spec, "random") == 0 || strncmp(spec, "random:", 7) == 0;
    if (random && spec[6] == ':') {
        int rc = cli_parse_int(cmd, "--x random:SEED", spec + 7, 0, INT64_MAX, &seed);
        if (rc)
            return rc;
    }
    if (ones || random) {
        *x = malloc((size_t)(ncols > 0 ? ncols : 1) * sizeof **x);
        if (!*x)
            return cli_error(cmd, "out of memory for x (%lld entries)", (long long)ncols);
        uint64_t s = (uint64_t)seed;
        for (int64_t j = 0; j < ncols; j++)
            (*x)[j] = ones ? 1.0 : cli_uniform_pm1(&s);
        *n = ncols;
        return CLI_OK;
    }
    psl_status st = psl_mm_read_vector(spec, x, n);
    if (st != PSL_OK)
        return cli_lib_error(cmd, st);
    *from_lib = 1;
    return CLI_OK;
}

/* The parsed command line. */
typedef struct spmv_args {
    const char *matrix, *xspec, *out, *y0, *device;
    psl_scalar vec;
    int vec_given; /* --vectors given (else --format auto takes the pick's) */
    double alpha, beta;
    cli_format_args fa;
    psl_convert_options opt;
} spmv_args;

static int parse(int argc, char **argv, spmv_args *a)
{
    const char *cmd = "spmv";
    cli_opt opts[] = {CLI_FORMAT_OPTS,
                      {"--x", NULL, 1, NULL, 0},
                      {"--output", "-o", 1, NULL, 0},
                      {"--vectors", NULL, 1, NULL, 0},
                      {"--alpha", NULL, 1, NULL, 0},
                      {"--beta", NULL, 1, NULL, 0},
                      {"--y0", NULL, 1, NULL, 0},
                      {"--device", NULL, 1, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, pos, 1, &npos);
    if (rc)
        return rc;
    if (npos < 1)
        return cli_usage_error(cmd, "missing MATRIX");
    a->matrix = pos[0];
    a->xspec = cli_find(opts, nopts, "--x")->value;
    a->out = cli_find(opts, nopts, "--output")->value;
    a->y0 = cli_find(opts, nopts, "--y0")->value;
    a->device = cli_find(opts, nopts, "--device")->value;
    if (!a->xspec)
        return cli_usage_error(cmd, "missing --x XFILE (or --x ones, --x random[:SEED])");
    if ((rc = cli_check_output(cmd, "-o", a->out)) != 0)
        return rc;
    if (!a->out)
        return cli_usage_error(cmd, "missing -o YFILE");
    const char *v = cli_find(opts, nopts, "--vectors")->value;
    a->vec = PSL_FP64;
    a->vec_given = v != NULL;
    if (v && (psl_scalar_parse(v, &a->vec) != PSL_OK || a->vec == PSL_BF16))
        return cli_usage_error(cmd, "unknown --vectors '%s' (expected fp64, fp32 or fp16)", v);
    a->alpha = 1.0;
    a->beta = 0.0;
    const char *s = cli_find(opts, nopts, "--alpha")->value;
    if (s && (rc = cli_parse_double(cmd, "--alpha", s, &a->alpha)) != 0)
        return rc;
    s = cli_find(opts, nopts, "--beta")->value;
    if (s && (rc = cli_parse_double(cmd, "--beta", s, &a->beta)) != 0)
        return rc;
    if (a->beta != 0.0 && !a->y0)
        return cli_usage_error(cmd, "--beta %g needs --y0 FILE", a->beta);
    if (a->beta == 0.0 && a->y0)
        return cli_usage_error(cmd, "--y0 is only read when --beta is not 0");
    cli_format_args_get(opts, nopts, &a->fa);
    rc = cli_format_options(cmd, &a->fa, &a->opt);
    if (rc)
        return rc;
    return cli_check_device(cmd, a->device);
}

int cmd_spmv(int argc, char **argv)
{
    const char *cmd = "spmv";
    spmv_args a;
    int rc = parse(argc, argv, &a);
    if (rc == CLI_HELP) {
        usage();
        return CLI_OK;
    }
    if (rc)
        return rc;

    psl_matrix *A = NULL;
    double *x = NULL, *y0 = NULL, *y = NULL;
    void *xv = NULL, *yv = NULL;
    int32_t *order = NULL;
    int x_lib = 0;
    int64_t nx = 0, ny0 = 0;
    double load_s, conv_s;
    char err[512];
    psl_matrix_info info;
    psl_status st;

    rc = cli_load_matrix(cmd, a.matrix, cli_format_given(&a.fa) ? &a.opt : NULL, &A, &load_s,
                         &conv_s);
    if (rc)
        goto done;
    if (cli_format_is_auto(&a.fa)) {
        psl_choice choice;
        cli_chooser model;
        if ((rc = cli_chooser_for(cmd, a.device, 1, &model)) != 0 ||
            (rc = cli_auto_convert(cmd, &a.fa, &a.opt, &model, &A, &choice, &conv_s)) != 0)
            goto done;
        if (!a.vec_given)
            a.vec = choice.vec_type;
    }
    if ((st = psl_matrix_get_info(A, &info)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    int64_t nrows = info.nrows, ncols = info.ncols;
    if ((rc = make_x(cmd, a.xspec, ncols, &x, &nx, &x_lib)) != 0)
        goto done;
    if (nx != ncols) {
        rc = cli_error(cmd, "x (%s) has %lld entries but the matrix has %lld columns", a.xspec,
                       (long long)nx, (long long)ncols);
        goto done;
    }
    y = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *y);
    order = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *order);
    if (!y || !order) {
        rc = cli_error(cmd, "out of memory for y (%lld entries)", (long long)nrows);
        goto done;
    }
    int explicit_perm = info.format != PSL_FORMAT_CSR && info.permute == PSL_PERMUTE_EXPLICIT;
    if (explicit_perm && (st = psl_matrix_row_order(A, order)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    if (a.y0) {
        if ((st = psl_mm_read_vector(a.y0, &y0, &ny0)) != PSL_OK) {
            rc = cli_lib_error(cmd, st);
            goto done;
        }
        if (ny0 != nrows) {
            rc = cli_error(cmd, "y0 (%s) has %lld entries but the matrix has %lld rows", a.y0,
                           (long long)ny0, (long long)nrows);
            goto done;
        }
        for (int64_t i = 0; i < nrows; i++) /* into stored row order */
            y[i] = y0[explicit_perm ? order[i] : i];
    } else {
        for (int64_t i = 0; i < nrows; i++)
            y[i] = 0.0;
    }
    xv = cli_vec_from_double(x, ncols, a.vec, "x", err, sizeof err);
    yv = xv ? cli_vec_from_double(y, nrows, a.vec, "y0", err, sizeof err) : NULL;
    if (!xv || !yv) {
        rc = cli_error(cmd, "%s", err);
        goto done;
    }
    if (cli_device_is_cuda(a.device)) {
        if ((rc = cli_spmv_cuda(cmd, a.alpha, A, xv, a.beta, yv, a.vec, nrows, ncols)) != 0)
            goto done;
    } else if ((st = psl_spmv(a.alpha, A, xv, a.beta, yv, a.vec)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    cli_vec_to_double(yv, nrows, a.vec, y); /* y in stored row order */
    if (explicit_perm) {
        double *tmp = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *tmp);
        if (!tmp) {
            rc = cli_error(cmd, "out of memory for y");
            goto done;
        }
        for (int64_t i = 0; i < nrows; i++)
            tmp[order[i]] = y[i];
        free(y);
        y = tmp;
    }
    if ((st = psl_mm_write_vector(a.out, y, nrows)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    rc = CLI_OK;
done:
    if (x_lib)
        psl_free(x);
    else
        free(x);
    psl_free(y0);
    free(y);
    free(xv);
    free(yv);
    free(order);
    psl_matrix_destroy(&A);
    return rc;
}
