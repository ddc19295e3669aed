/*
 * dispatch.c -- the packsell command line: global --help/--version and
 * dispatch to the subcommands (gen, info, convert, spmv, bench, choose,
 * solve, tune-csrk). main.c calls it; so does the command-line fuzz target.
 */
#include "cli.h"

#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"gen", cmd_gen, "generate a matrix (HPCG, Laplacians, random...) into a file"},
    {"info", cmd_info, "statistics and storage footprint of a matrix in a format"},
    {"convert", cmd_convert, "convert a matrix into a packsell binary file"},
    {"spmv", cmd_spmv, "compute y = alpha*A*x + beta*y in a chosen format"},
    {"bench", cmd_bench, "time SpMV in CSR, SELL and PackSELL precisions"},
    {"choose", cmd_choose, "pick the format for GPU SpMV at a precision (cost model)"},
    {"solve", cmd_solve, "solve A x = b with PCG, flexible CG or inner-outer CG"},
    {"tune-csrk", cmd_tune_csrk, "fit the CSR-k tuning model to this machine (a sweep)"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: packsell COMMAND [OPTIONS]\n"
            "       packsell --help | --version\n"
            "\n"
            "Sparse matrix-vector products in CSR, SELL-C-sigma and PackSELL.\n"
            "\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "A MATRIX argument is a generator spec (gen:hpcg:5:5:5, gen:lap2d:100, ...),\n"
            "a packsell binary file or a Matrix Market file (.mtx, .mtx.gz).\n"
            "Run 'packsell COMMAND --help' for the options of a command and\n"
            "'packsell help environment' for the PSL_* environment variables.\n"
            "Exit status: 0 success, 1 runtime error, 2 usage error.\n"
#ifdef PSL_TOOL_MPI
            "Under mpirun (this build has MPI), bench and solve run distributed over the\n"
            "ranks: see their --help.\n"
#endif
            );
}

/* `packsell help environment`: the library's options (psl_option_describe),
 * each an environment variable: name, values and default on one line, the
 * documentation below it wrapped at 78 columns. */
static int environment_help(void)
{
    printf("Environment: the library's runtime options, read once at start-up.\n");
    for (int i = 0; i < psl_option_count(); i++) {
        psl_option_desc d;
        if (psl_option_describe(i, &d) != PSL_OK)
            return cli_lib_error(NULL, PSL_ERR_INTERNAL);
        printf("\n  %s=%s (default %s)\n", d.name, d.values,
               d.default_value[0] ? d.default_value : "unset");
        const char *p = d.doc;
        while (*p) {
            int width = 72, len = (int)strlen(p);
            if (len > width) {
                len = width;
                while (len > 0 && p[len] != ' ')
                    len--;
                if (len == 0)
                    len = width;
            }
            printf("      %.*s\n", len, p);
            p += len;
            while (*p == ' ')
                p++;
        }
    }
    return CLI_OK;
}

int cli_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        if (strcmp(name, "help") == 0 && argc > 2) { /* "packsell help CMD" */
            if (strcmp(argv[2], "environment") == 0)
                return environment_help();
            char help[] = "--help";
            char *args[] = {help, NULL};
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                if (strcmp(argv[2], commands[i].name) == 0)
                    return commands[i].run(1, args);
            return cli_usage_error(NULL, "unknown help topic '%s' (a command or environment)",
                                   argv[2]);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0) {
        printf("packsell %s\n", psl_version());
        return CLI_OK;
    }
    /* The library's allocations read PSL_HUGEPAGES and cannot report an
     * invalid value (they fall back to malloc): every command refuses it. */
    char hugepages[PSL_OPTION_VALUE_MAX];
    psl_status st = psl_option_get("PSL_HUGEPAGES", hugepages, sizeof hugepages);
    if (st != PSL_OK)
        return cli_lib_error(NULL, st);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    if (name[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s' (options follow the command)", name);
    return cli_usage_error(NULL, "unknown command '%s'", name);
}
