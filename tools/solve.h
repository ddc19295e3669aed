/*
 * solve.h -- the parsed command line of `packsell solve` (cmd_solve.c),
 * shared with the distributed solve (tools/mpi/solve.c) so that both read
 * the options alike.
 */
#ifndef PSL_TOOL_SOLVE_H
#define PSL_TOOL_SOLVE_H

#include "cli.h"

typedef struct solve_args {
    const char *matrix, *rhs, *out, *json, *history, *device, *cache;
    const char *method_name, *precond_name, *inner_format_name, *inner_values_name;
    const char *f3r_name;
    long long seed;
    psl_solve_config cfg;
} solve_args;

/* The words after `solve` into *a (memset to 0 by the caller): CLI_OK,
 * CLI_HELP (usage printed) or CLI_USAGE / CLI_RUNTIME after printing the
 * error. */
int solve_parse(int argc, char **argv, solve_args *a);

/* The solve's settings into the open JSON object j, as `solve --json`
 * writes them: the command, matrix (nrows, nnz), method, preconditioner,
 * vectors, device, scale, tolerances and the method's own settings (inner
 * IO-CG, FCG, GMRES restart, F3R with the codec its PackSELL layers used,
 * SD-AINV). */
void solve_json_config(cli_json *j, const solve_args *a, int64_t nrows, int64_t nnz, int scale,
                       psl_codec f3r_codec);

#endif
