/*
 * main.c -- entry point of the packsell command: signal handlers that remove
 * the temporary files of unfinished writes, then the command line
 * (dispatch.c); in a build with MPI, bench and solve started by mpirun (or
 * with --mpi) run distributed (tools/mpi/launch.c).
 */
#include "cli.h"
#ifdef PSL_TOOL_MPI
#include "mpi/cli_mpi.h"
#endif

#include <signal.h>

/* SIGINT, SIGTERM, SIGHUP: the temporary files of unfinished writes go,
 * then the default action ends the program as the signal says. */
static void on_signal(int sig)
{
    psl_output_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
#ifdef PSL_TOOL_MPI
    if (cli_mpi_wanted(&argc, argv))
        return cli_mpi_main(argc, argv);
#endif
    return cli_main(argc, argv);
}
