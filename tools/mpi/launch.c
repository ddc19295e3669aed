/*
 * launch.c -- whether `packsell bench|solve` runs distributed (started by
 * mpirun, or --mpi), MPI's start and end around the distributed command,
 * rank 0 alone printing, the agreement that brings any rank's failure to
 * rank 0 and one exit status to every rank, and the per-rank JSON rows.
 */
#define _POSIX_C_SOURCE 200809L /* freopen */
#include "cli_mpi.h"

#include <stdlib.h>
#include <string.h>

int cli_mpi_rank = 0, cli_mpi_size = 1;

int cli_mpi_wanted(int *argc, char **argv)
{
    if (*argc < 2 || (strcmp(argv[1], "bench") != 0 && strcmp(argv[1], "solve") != 0))
        return 0;
    int flag = 0;
    for (int i = 2; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--mpi") == 0) { /* removed: the commands' parsers never see it */
            memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i) * sizeof *argv);
            (*argc)--;
            i--;
            flag = 1;
        }
    }
    if (flag)
        return 1;
    static const char *const launchers[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const char *v = getenv(launchers[i]);
        if (v && *v)
            return 1;
    }
    return 0;
}

int cli_mpi_agree(const char *cmd, int rc, const char *msg)
{
    int in[2] = {rc == CLI_OK ? 1 : 0, cli_mpi_rank}, out[2];
    if (MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD) != MPI_SUCCESS)
        return cli_error(cmd, "MPI_Allreduce failed (agreeing on a step's outcome)");
    if (out[0] == 1)
        return CLI_OK;
    struct {
        int rc, has;
        char text[480];
    } m;
    memset(&m, 0, sizeof m);
    if (cli_mpi_rank == out[1]) {
        m.rc = rc;
        if (msg) {
            m.has = 1;
            snprintf(m.text, sizeof m.text, "%s", msg);
        }
    }
    if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, out[1], MPI_COMM_WORLD) != MPI_SUCCESS)
        return cli_error(cmd, "MPI_Bcast failed (agreeing on a step's outcome)");
    m.text[sizeof m.text - 1] = '\0';
    if (cli_mpi_rank == 0 && m.has) {
        if (out[1] == 0)
            cli_error(cmd, "%s", m.text);
        else
            cli_error(cmd, "rank %d: %s", out[1], m.text);
    }
    return m.rc;
}

int cli_mpi_lib(const char *cmd, psl_status st)
{
    if (st == PSL_OK)
        return cli_mpi_agree(cmd, CLI_OK, NULL);
    if (cli_mpi_rank == 0) { /* printed with the command's hints */
        cli_lib_error(cmd, st);
        return cli_mpi_agree(cmd, CLI_RUNTIME, NULL);
    }
    const char *msg = psl_last_error_message();
    return cli_mpi_agree(cmd, CLI_RUNTIME, msg && msg[0] ? msg : psl_status_string(st));
}

int cli_mpi_main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "packsell %s: MPI_Init failed\n", argv[1]);
        return CLI_RUNTIME;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &cli_mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &cli_mpi_size);
    /* only rank 0 prints: the others' failures reach it (cli_mpi_agree) */
    if (cli_mpi_rank > 0 &&
        (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))) {
        MPI_Abort(MPI_COMM_WORLD, CLI_RUNTIME);
        return CLI_RUNTIME;
    }
    int rc = strcmp(argv[1], "bench") == 0 ? cli_mpi_bench(argc - 2, argv + 2)
                                            : cli_mpi_solve(argc - 2, argv + 2);
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    return rc;
}

void cli_mpi_json_ranks(cli_json *j, const char *const *keys, int nkeys, const double *ranks)
{
    cli_json_begin_array(j, "ranks");
    for (int q = 0; q < cli_mpi_size; q++) {
        cli_json_begin_object(j, NULL);
        cli_json_int(j, "rank", q);
        for (int e = 0; e < nkeys; e++)
            cli_json_double(j, keys[e], ranks[(size_t)q * nkeys + e]);
        cli_json_end_object(j);
    }
    cli_json_end_array(j);
}
