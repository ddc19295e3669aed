/*
 * cmd_convert.c -- "packsell convert MATRIX -o FILE [format options]": bring
 * a matrix into a format and save it as a packsell binary file, or export it
 * (any format, decoded) as Matrix Market when FILE ends in .mtx or
 * --output-format mtx says so.
 */
#include "cli.h"

#include <string.h>

static void usage(void)
{
    printf("Usage: packsell convert MATRIX -o FILE [format options]\n"
           "\n"
           "Convert MATRIX into a storage format and save it in the packsell binary\n"
           "format (versioned, with CRC-32), ready for info, spmv and bench; or, for a\n"
           "FILE ending in .mtx (or --output-format mtx), write it as Matrix Market\n"
           "(coordinate real general, the values as the format stores them, decoded,\n"
           "in the original row order).\n"
           "\n"
           "MATRIX: gen:SPEC, a packsell binary file or a Matrix Market file.\n"
           "\n"
           "Options:\n"
           "  -o, --output FILE    output file (required)\n"
           "      --output-format F  psl (binary) or mtx (default: mtx for a .mtx FILE,\n"
           "                       else psl)\n"
           "  -h, --help           this help\n"
           CLI_FORMAT_HELP
           "\n"
           "Example: packsell convert matrix.mtx -o matrix.psl --format packsell --values e8m10\n"
           "         packsell convert matrix.mtx -o matrix.psl --format auto --precision fp16\n");
}

int cmd_convert(int argc, char **argv)
{
    const char *cmd = "convert";
    cli_opt opts[] = {CLI_FORMAT_OPTS, {"--output", "-o", 1, NULL, 0},
                      {"--output-format", NULL, 1, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int rc = cli_parse_one(cmd, argc, argv, opts, nopts, usage, "MATRIX", pos);
    if (rc)
        return rc == CLI_HELP ? CLI_OK : rc;
    const char *out = cli_find(opts, nopts, "--output")->value;
    if (!out)
        return cli_usage_error(cmd, "missing -o FILE");
    if ((rc = cli_check_output(cmd, "-o", out)) != 0)
        return rc;
    const char *of = cli_find(opts, nopts, "--output-format")->value;
    size_t olen = strlen(out);
    int mtx = olen >= 4 && cli_same(out + olen - 4, ".mtx");
    if (of) {
        if (cli_same(of, "mtx"))
            mtx = 1;
        else if (cli_same(of, "psl"))
            mtx = 0;
        else
            return cli_usage_error(cmd, "unknown --output-format '%s' (expected psl or mtx)", of);
    }
    cli_format_args fa;
    psl_convert_options opt;
    cli_format_args_get(opts, nopts, &fa);
    rc = cli_format_options(cmd, &fa, &opt);
    if (rc)
        return rc;

    psl_matrix *A = NULL;
    double load_s = 0, conv_s = 0;
    rc = cli_load_matrix(cmd, pos[0], &opt, &A, &load_s, &conv_s);
    if (rc)
        return rc;
    psl_choice choice;
    if (cli_format_is_auto(&fa) &&
        (rc = cli_auto_convert(cmd, &fa, &opt, NULL, &A, &choice, &conv_s)) != 0) {
        psl_matrix_destroy(&A);
        return rc;
    }
    psl_status st = mtx ? psl_mm_write(A, out) : psl_matrix_save(A, out);
    psl_matrix_info info;
    if (st == PSL_OK)
        st = psl_matrix_get_info(A, &info);
    if (st != PSL_OK) {
        rc = cli_lib_error(cmd, st);
    } else {
        char vbuf[32];
        fprintf(strcmp(out, "-") == 0 ? stderr : stdout, /* "-": the data are stdout */
               "wrote %s: %d x %d, %lld nonzeros, %s %s%s, %lld bytes in memory (load %.3f s, "
               "convert %.3f s)\n",
               out, (int)info.nrows, (int)info.ncols, (long long)info.nnz,
               psl_format_name(info.format), cli_values_name(&info, vbuf, sizeof vbuf),
               mtx ? " as Matrix Market (decoded)" : "", (long long)info.bytes, load_s, conv_s);
    }
    psl_matrix_destroy(&A);
    return rc;
}
