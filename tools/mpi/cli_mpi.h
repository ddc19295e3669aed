/*
 * cli_mpi.h -- `packsell bench` and `packsell solve` under mpirun (builds
 * with MPI only: tools/mpi/, linked with libpacksell_mpi): the launch
 * (launch.c), the distributed matrix of a MATRIX argument (matrix.c) and
 * the two commands (bench.c, solve.c). Only rank 0 prints; a failure on any
 * rank reaches rank 0 through cli_mpi_agree, and every rank exits with the
 * same status.
 */
#ifndef PSL_CLI_MPI_H
#define PSL_CLI_MPI_H

#include "cli.h"
#include "packsell_mpi.h"

/* Whether this run is distributed: the command is bench or solve and the
 * process was started by mpirun (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
 * PMIX_RANK in the environment) or `--mpi` was given among its words (then
 * removed from argv, *argc lowered). Nothing of MPI is called. */
int cli_mpi_wanted(int *argc, char **argv);

/* MPI_Init, only rank 0's stdout and stderr kept, the command run,
 * MPI_Finalize; returns the exit status (the same on every rank). */
int cli_mpi_main(int argc, char **argv);

/* This process's rank and the world's size (set by cli_mpi_main). */
extern int cli_mpi_rank, cli_mpi_size;

/* Agree on a step's outcome over MPI_COMM_WORLD: rc is this rank's (CLI_OK
 * or an exit status), msg its error text not yet printed (NULL: printed
 * already, or none). Returns the lowest failing rank's rc on every rank;
 * rank 0 prints that rank's msg as "packsell CMD: rank R: msg" (its own
 * without the prefix). */
int cli_mpi_agree(const char *cmd, int rc, const char *msg);

/* The per-rank figures gathered on rank 0 (nranks rows of nkeys values) as
 * the JSON array "ranks" of j: one object per rank, its "rank" and each
 * keys[e]. */
void cli_mpi_json_ranks(cli_json *j, const char *const *keys, int nkeys, const double *ranks);

/* A library status agreed as cli_mpi_agree does (msg: the library's last
 * message); for the psl_dist_* calls, already agreed, it prints once. */
int cli_mpi_lib(const char *cmd, psl_status st);

/* A MATRIX argument under MPI (cli_dist_open): gen:hpcg:X:Y:Z and
 * gen:hpgmp:X:Y:Z[:BETA] are generated on each rank for its box of the
 * global 2^X x 2^Y x 2^Z grid, split over psl_dist_process_grid's dims
 * (which must divide it); the other gen: specs are generated on each rank
 * for its block of rows, balanced by nonzeros (psl_dist_generate); files
 * (packsell binary, Matrix Market) are opened on rank 0 as FP64 CSR and
 * their rows scattered, balanced by nonzeros. */
typedef struct cli_dist_source {
    const char *matrix;
    int per_rank;       /* generated on each rank */
    int dims[3];        /* per_rank: the process grid */
    int32_t box[3];     /* per_rank: each rank's nx, ny, nz */
    int64_t grid[3];    /* per_rank: the global grid NX, NY, NZ */
    double beta;        /* per_rank: HPGMP's beta (0: HPCG) */
    int by_rows;        /* another gen: spec, generated on each rank for its rows */
    psl_dist_matrix *gen; /* by_rows: that matrix in FP64 CSR, generated once by
                             cli_dist_open (taken or converted by cli_dist_build) */
    psl_matrix *M;      /* otherwise, on rank 0: the whole matrix */
    double load_seconds; /* opening it on rank 0 (by_rows: generating it) */
} cli_dist_source;

/* Check or open the MATRIX argument. Collective; errors printed by rank 0
 * and agreed: returns the exit status. */
int cli_dist_open(const char *cmd, const char *matrix, cli_dist_source *src);

/* The distributed matrix of src with the blocks' storage diag/offd (NULL:
 * FP64 CSR): generated or scattered; *seconds gets the slowest rank's time.
 * Collective; the status is agreed by the library. */
psl_status cli_dist_build(const char *cmd, cli_dist_source *src, const psl_convert_options *diag,
                          const psl_convert_options *offd, psl_dist_matrix **A, double *seconds);

/* Free what cli_dist_open kept. */
void cli_dist_close(cli_dist_source *src);

/* One line on how src is distributed (for the output). */
void cli_dist_describe(const cli_dist_source *src, char *buf, size_t len);

/* The natural (serial) row of each of this rank's rows into nat[nrows]:
 * the grid point's index x + NX (y + NY z) for per-rank generated
 * matrices, the global row otherwise; so that vectors drawn by natural row
 * are the serial command's. */
void cli_dist_natural_rows(const psl_dist_matrix *A, const cli_dist_source *src, int64_t *nat);

/* The k-th number (0-based) of cli_uniform_pm1's stream from seed. */
double cli_dist_uniform_at(uint64_t seed, int64_t k);

/* The distributed commands (argc/argv: the words after the command). */
int cli_mpi_bench(int argc, char **argv);
int cli_mpi_solve(int argc, char **argv);

#endif
