/*
 * mpi_harness.h -- the MPI tests' (tests/test_dist_*.c) share of harness.h:
 * this process's rank and the communicator's size, and PSL_MPI_TEST_MAIN,
 * the main() that initialises MPI, keeps one rank's summary on stdout
 * (failures print on every rank, to stderr), runs the table and finalises.
 */
#ifndef PSL_MPI_HARNESS_H
#define PSL_MPI_HARNESS_H

#include "harness.h"

#include <mpi.h>
#include <stdio.h>

static int g_rank, g_size; /* MPI_COMM_WORLD's, set by PSL_MPI_TEST_MAIN */

#define PSL_MPI_TEST_MAIN(table)                                                      \
    PSL_TEST_MAIN_AS(psl_mpi_run_tests, table)                                        \
    int main(int argc, char **argv)                                                   \
    {                                                                                 \
        MPI_Init(&argc, &argv);                                                       \
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);                                       \
        MPI_Comm_size(MPI_COMM_WORLD, &g_size);                                       \
        if (g_rank > 0 && !freopen("/dev/null", "w", stdout))                         \
            return 1;                                                                 \
        int rc = psl_mpi_run_tests(argc, argv);                                       \
        MPI_Finalize();                                                               \
        return rc;                                                                    \
    }

#endif
