/*
 * matrix.c -- the distributed matrix of a MATRIX argument under MPI:
 * gen:hpcg / gen:hpgmp generated on every rank for its box of the global
 * grid (psl_dist_generate_hpcg), the other gen: specs on every rank for its
 * block of rows (psl_dist_generate), files opened on rank 0 and their rows
 * scattered (psl_dist_matrix_scatter_csr); the natural row of each
 * distributed row, so that vectors match the serial command's.
 */
#include "cli_mpi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* gen:hpcg:X:Y:Z or gen:hpgmp:X:Y:Z[:BETA] with every field well formed:
 * 1 (e, beta filled); 0 for anything else, which goes to psl_dist_generate
 * when it is a gen: spec (and gets psl_generate's message there when it is
 * malformed). */
static int parse_box(const char *m, int64_t e[3], double *beta)
{
    int hpgmp = strncmp(m, "gen:hpgmp:", 10) == 0;
    if (!hpgmp && strncmp(m, "gen:hpcg:", 9) != 0)
        return 0;
    const char *p = m + (hpgmp ? 10 : 9);
    *beta = hpgmp ? 0.5 : 0.0;
    for (int f = 0; f < 3; f++) {
        char *end = NULL;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 30 || (f < 2 && *end != ':'))
            return 0;
        e[f] = v;
        p = f < 2 ? end + 1 : end;
    }
    if (e[0] + e[1] + e[2] > 30)
        return 0;
    if (*p == '\0')
        return 1;
    if (!hpgmp || *p != ':')
        return 0;
    char *end = NULL;
    *beta = strtod(p + 1, &end);
    return end != p + 1 && *end == '\0' && isfinite(*beta);
}

int cli_dist_open(const char *cmd, const char *matrix, cli_dist_source *src)
{
    memset(src, 0, sizeof *src);
    src->matrix = matrix;
    double t0 = MPI_Wtime();
    int64_t e[3];
    if (parse_box(matrix, e, &src->beta)) {
        src->per_rank = 1;
        psl_dist_process_grid(cli_mpi_size, src->dims);
        for (int d = 0; d < 3; d++) {
            src->grid[d] = (int64_t)1 << e[d];
            if (src->grid[d] % src->dims[d])
                return cli_error(cmd,
                                 "%s: the global grid %lld x %lld x %lld does not split over the "
                                 "%d x %d x %d process grid of %d ranks (each grid size must be a "
                                 "multiple of the ranks along it: use a power-of-two number of "
                                 "ranks, or give the matrix as a file)",
                                 matrix, (long long)src->grid[0], (long long)src->grid[1],
                                 (long long)src->grid[2], src->dims[0], src->dims[1],
                                 src->dims[2], cli_mpi_size);
            src->box[d] = (int32_t)(src->grid[d] / src->dims[d]);
        }
        return CLI_OK;
    }
    if (strncmp(matrix, "gen:", 4) == 0) { /* generated once, in FP64 CSR */
        src->by_rows = 1;
        int rc = cli_mpi_lib(cmd, psl_dist_generate(&src->gen, MPI_COMM_WORLD, matrix,
                                                    PSL_DIST_BALANCE_NNZ, NULL, NULL));
        double t = MPI_Wtime() - t0;
        MPI_Allreduce(&t, &src->load_seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return rc;
    }
    int rc = CLI_OK;
    if (cli_mpi_rank == 0) {
        psl_convert_options csr;
        psl_convert_options_init(&csr);
        double load = 0, conv = 0;
        rc = cli_load_matrix(cmd, matrix, &csr, &src->M, &load, &conv);
    }
    rc = cli_mpi_agree(cmd, rc, NULL);
    src->load_seconds = MPI_Wtime() - t0;
    return rc;
}

psl_status cli_dist_build(const char *cmd, cli_dist_source *src, const psl_convert_options *diag,
                          const psl_convert_options *offd, psl_dist_matrix **A, double *seconds)
{
    (void)cmd;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    psl_status st;
    if (src->per_rank)
        st = psl_dist_generate_hpcg(A, MPI_COMM_WORLD, src->box[0], src->box[1], src->box[2],
                                    src->beta, diag, offd);
    else if (src->by_rows && src->gen && !diag && !offd) { /* FP64 CSR: taken as it is */
        *A = src->gen;
        src->gen = NULL;
        st = PSL_OK;
    } else if (src->by_rows && src->gen) /* other storage: converted over its halo plan */
        st = psl_dist_matrix_convert(A, src->gen, diag, offd);
    else if (src->by_rows)
        st = psl_dist_generate(A, MPI_COMM_WORLD, src->matrix, PSL_DIST_BALANCE_NNZ, diag, offd);
    else
        st = psl_dist_matrix_scatter_csr(A, MPI_COMM_WORLD, src->M, 0, PSL_DIST_BALANCE_NNZ, diag,
                                         offd);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return st;
}

void cli_dist_close(cli_dist_source *src)
{
    psl_dist_matrix_destroy(&src->gen);
    psl_matrix_destroy(&src->M);
}

void cli_dist_natural_rows(const psl_dist_matrix *A, const cli_dist_source *src, int64_t *nat)
{
    psl_dist_info in;
    if (psl_dist_matrix_get_info(A, &in) != PSL_OK)
        return;
    if (!src->per_rank) {
        for (int32_t i = 0; i < in.nrows; i++)
            nat[i] = in.first_row + i;
        return;
    }
    const int64_t nx = src->box[0], ny = src->box[1];
    const int64_t px = in.rank % src->dims[0], py = (in.rank / src->dims[0]) % src->dims[1];
    const int64_t pz = in.rank / src->dims[0] / src->dims[1];
    for (int32_t i = 0; i < in.nrows; i++) {
        int64_t gx = px * nx + i % nx, gy = py * ny + (i / nx) % ny;
        int64_t gz = pz * src->box[2] + i / (nx * ny);
        nat[i] = gx + src->grid[0] * (gy + src->grid[1] * gz);
    }
}

double cli_dist_uniform_at(uint64_t seed, int64_t k)
{
    uint64_t s = seed + (uint64_t)k * 0x9e3779b97f4a7c15ULL;
    return cli_uniform_pm1(&s);
}

void cli_dist_describe(const cli_dist_source *src, char *buf, size_t len)
{
    if (src->per_rank)
        snprintf(buf, len,
                 "generated on every rank: global grid %lld x %lld x %lld over a %d x %d x %d "
                 "process grid, each rank's box %d x %d x %d",
                 (long long)src->grid[0], (long long)src->grid[1], (long long)src->grid[2],
                 src->dims[0], src->dims[1], src->dims[2], (int)src->box[0], (int)src->box[1],
                 (int)src->box[2]);
    else if (src->by_rows)
        snprintf(buf, len, "generated on every rank for its rows (%.3f s), balanced by nonzeros",
                 src->load_seconds);
    else
        snprintf(buf, len, "opened on rank 0 (%.3f s), rows scattered balanced by nonzeros",
                 src->load_seconds);
}
