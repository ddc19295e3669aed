/*
 * cmd_gen.c -- "packsell gen SPEC -o FILE [--binary]": generate a matrix and
 * write it as Matrix Market (default) or as a packsell binary file.
 */
#include "cli.h"

#include <string.h>

static void usage(void)
{
    printf("Usage: packsell gen SPEC -o FILE [--binary]\n"
           "\n"
           "Generate a matrix and write it as Matrix Market (coordinate real general)\n"
           "or, with --binary, as a packsell binary file (FP64 CSR).\n"
           "\n"
           "SPEC (the \"gen:\" prefix is optional):\n"
           "  hpcg:X:Y:Z             HPCG 27-point stencil on a 2^X x 2^Y x 2^Z grid\n"
           "  hpgmp:X:Y:Z[:BETA]     nonsymmetric HPGMP variant (BETA default 0.5)\n"
           "  lap2d:NX[:NY]          2D 5-point Laplacian\n"
           "  lap3d:NX[:NY:NZ]       3D 7-point Laplacian\n"
           "  banded:N:BW:K[:SEED]   K random columns in [i-BW, i+BW] per row\n"
           "  powerlaw:N:AVG:ALPHA[:SEED]  Pareto row lengths with mean AVG\n"
           "  random:N:K[:SEED]      K uniformly random columns per row\n"
           "\n"
           "Options:\n"
           "  -o, --output FILE  output file (required)\n"
           "      --binary       write the packsell binary format instead of Matrix Market\n"
           "  -h, --help         this help\n"
           "\n"
           "Example: packsell gen hpcg:5:5:5 -o hpcg5.mtx\n");
}

int cmd_gen(int argc, char **argv)
{
    const char *cmd = "gen";
    cli_opt opts[] = {{"--output", "-o", 1, NULL, 0}, {"--binary", NULL, 0, NULL, 0}};
    const int nopts = (int)(sizeof opts / sizeof opts[0]);
    const char *pos[1];
    int rc = cli_parse_one(cmd, argc, argv, opts, nopts, usage, "SPEC (e.g. hpcg:3:3:3)", pos);
    if (rc)
        return rc == CLI_HELP ? CLI_OK : rc;
    const char *out = cli_find(opts, nopts, "--output")->value;
    if (!out)
        return cli_usage_error(cmd, "missing -o FILE");
    if ((rc = cli_check_output(cmd, "-o", out)) != 0)
        return rc;
    int binary = cli_find(opts, nopts, "--binary")->present > 0;

    psl_matrix *A = NULL;
    psl_status st = psl_generate(&A, pos[0]);
    if (st != PSL_OK)
        return cli_lib_error(cmd, st);
    st = binary ? psl_matrix_save(A, out) : psl_mm_write(A, out);
    if (st != PSL_OK) {
        rc = cli_lib_error(cmd, st);
    } else {
        psl_matrix_info info;
        if (psl_matrix_get_info(A, &info) == PSL_OK)
            fprintf(strcmp(out, "-") == 0 ? stderr : stdout, /* "-": the data are stdout */
                    "wrote %s: %d x %d, %lld nonzeros (%s)\n", out, (int)info.nrows,
                    (int)info.ncols, (long long)info.nnz,
                    binary ? "packsell binary" : "Matrix Market");
        rc = CLI_OK;
    }
    psl_matrix_destroy(&A);
    return rc;
}
