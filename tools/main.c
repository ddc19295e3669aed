/*
 * main.c -- entry point of the packsell command: signal handlers that remove
 * the temporary files of unfinished writes, then the command line
 * (dispatch.c).
 */
#include "cli.h"

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
    return cli_main(argc, argv);
}
