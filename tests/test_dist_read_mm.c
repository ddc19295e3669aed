/*
 * test_dist_read_mm.c -- a Matrix Market file read on one rank and its rows
 * scattered (psl_dist_matrix_read_mm, psl_dist_matrix_scatter_csr): the
 * distributed product equals an FP64 CSR product written here over the
 * whole matrix (bitwise for integer values and x, within a rounding bound
 * otherwise), the row blocks are psl_dist_balance_rows', and a missing,
 * malformed or non-square file gives the same error on every rank. Real
 * matrices from ../shared/matrices (PSL_MATRIX_DIR) and a small file written
 * here into a temporary folder. Run by mpiexec on 1..4 ranks.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "mpi_harness.h"
#include "packsell_mpi.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The temporary folder rank 0 made (the same path on every rank). */
static char g_dir[256];

static void make_dir(void)
{
    if (g_rank == 0) {
        snprintf(g_dir, sizeof g_dir, "/tmp/psl_dist_mmXXXXXX");
        if (!mkdtemp(g_dir))
            g_dir[0] = '\0';
    }
    MPI_Bcast(g_dir, (int)sizeof g_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Rank 0 writes text into g_dir/name; path receives the file's path. */
static void write_file(const char *name, const char *text, char *path, size_t len)
{
    snprintf(path, len, "%s/%s", g_dir, name);
    if (g_rank == 0) {
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Whole-matrix reference: the file read serially (on every rank, for the
 * test only), y = A x by the plainest CSR loop, and sum |a||x| per row. */
typedef struct ref {
    int64_t n, *rp;
    int64_t *ci;
    double *v;
} ref;

static int ref_read(ref *r, const char *path)
{
    psl_matrix *M = NULL;
    memset(r, 0, sizeof *r);
    if (psl_mm_read(&M, path) != PSL_OK)
        return 0;
    psl_matrix_info in;
    psl_matrix_get_info(M, &in);
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    psl_matrix_csr_view(M, &rp, &ci, &v);
    r->n = in.nrows;
    r->rp = malloc((size_t)(r->n + 1) * sizeof *r->rp);
    r->ci = malloc((size_t)(in.nnz + 1) * sizeof *r->ci);
    r->v = malloc((size_t)(in.nnz + 1) * sizeof *r->v);
    for (int64_t i = 0; i <= r->n; i++)
        r->rp[i] = rp[i];
    for (int64_t k = 0; k < in.nnz; k++) {
        r->ci[k] = ci[k];
        r->v[k] = v[k];
    }
    psl_matrix_destroy(&M);
    return 1;
}

static void ref_free(ref *r)
{
    free(r->rp);
    free(r->ci);
    free(r->v);
}

static double x_of(int64_t j)
{
    return (double)((j * 7) % 13) - 6.0;
}

/* A against the reference: the block of psl_dist_balance_rows, then the
 * product row by row (exact: bitwise; else |err| <= 2 len eps sum|a x|). */
static void check_against(const psl_dist_matrix *A, const ref *r, psl_dist_balance bal, int exact,
                          const char *what)
{
    psl_dist_info info;
    CHECK_OK(psl_dist_matrix_get_info(A, &info));
    int64_t f = -1;
    int32_t nr = -1;
    CHECK_OK(psl_dist_balance_rows(MPI_COMM_WORLD, r->n, bal == PSL_DIST_BALANCE_NNZ ? r->rp : NULL,
                                   &f, &nr));
    CHECK_MSG(info.n_global == r->n && info.first_row == f && info.nrows == nr,
              "%s rank %d: rows [%lld, +%d) of %lld, balance_rows gives [%lld, +%d)", what,
              g_rank, (long long)info.first_row, info.nrows, (long long)info.n_global,
              (long long)f, nr);
    CHECK(info.nnz_global == r->rp[r->n]);
    if (info.first_row != f || info.nrows != nr)
        return;
    double *x = malloc((size_t)(nr + 1) * sizeof *x), *y = malloc((size_t)(nr + 1) * sizeof *y);
    for (int32_t i = 0; i < nr; i++)
        x[i] = x_of(f + i);
    CHECK_OK(psl_dist_spmv(1.0, A, x, 0.0, y, PSL_FP64));
    int bad = 0;
    for (int32_t i = 0; i < nr; i++) {
        double s = 0.0, a = 0.0;
        int64_t g = f + i;
        for (int64_t k = r->rp[g]; k < r->rp[g + 1]; k++) {
            s += r->v[k] * x_of(r->ci[k]);
            a += fabs(r->v[k] * x_of(r->ci[k]));
        }
        double len = (double)(r->rp[g + 1] - r->rp[g]);
        int ok = exact ? y[i] == s : fabs(y[i] - s) <= 2.0 * len * 0x1p-53 * a;
        if (!ok && bad++ < 3)
            CHECK_MSG(0, "%s rank %d row %lld: %.17g, expected %.17g", what, g_rank,
                      (long long)g, y[i], s);
    }
    CHECK_MSG(bad == 0, "%s rank %d: %d rows off", what, g_rank, bad);
    free(x);
    free(y);
}

/* Read path with both balances and root 0 and the last rank, and check. */
static void read_and_check(const char *path, int exact, const char *what)
{
    ref r;
    CHECK_MSG(ref_read(&r, path), "%s: serial read: %s", path, psl_last_error_message());
    if (!r.rp)
        return;
    for (int b = 0; b < 2; b++) {
        psl_dist_balance bal = b ? PSL_DIST_BALANCE_ROWS : PSL_DIST_BALANCE_NNZ;
        int root = b ? g_size - 1 : 0;
        psl_dist_matrix *A = NULL;
        /* only root is given the path: the others need not see the file */
        CHECK_OK(psl_dist_matrix_read_mm(&A, MPI_COMM_WORLD, g_rank == root ? path : NULL, root,
                                         bal, NULL, NULL));
        if (A)
            check_against(A, &r, bal, exact, what);
        psl_dist_matrix_destroy(&A);
    }
    ref_free(&r);
}

TEST(small_generated_file)
{
    /* 9 x 9, general, integer values: an empty row (4), a dense-ish row (2),
     * entries far from the diagonal, a duplicate summed, one explicit zero */
    char path[512];
    write_file("small.mtx",
               "%%MatrixMarket matrix coordinate integer general\n"
               "% written by test_dist_read_mm\n"
               "9 9 20\n"
               "1 1 4\n1 9 -1\n2 2 5\n3 1 2\n3 2 -3\n3 3 7\n3 5 1\n3 8 -2\n3 9 3\n"
               "6 6 1\n6 1 -4\n7 7 2\n7 3 0\n8 8 9\n8 8 1\n9 9 3\n9 1 -5\n5 5 6\n5 9 2\n2 7 -1\n",
               path, sizeof path);
    read_and_check(path, 1, "small.mtx");
    /* the same file with a different balance gives the same products (above);
     * storage options travel to the blocks */
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_SELL;
    o.slice_height = 4;
    o.sigma = 0;
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_matrix_read_mm(&A, MPI_COMM_WORLD, path, 0, PSL_DIST_BALANCE_NNZ, &o, &o));
    const psl_matrix *Ad = NULL;
    CHECK_OK(psl_dist_matrix_blocks(A, &Ad, NULL, NULL));
    psl_matrix_info di;
    CHECK(Ad && psl_matrix_get_info(Ad, &di) == PSL_OK && di.format == PSL_FORMAT_SELL);
    psl_dist_matrix_destroy(&A);
}

TEST(real_matrices)
{
    const char *names[][2] = {{"gr_30_30.mtx", "1"}, {"west0479.mtx", "0"}, {"1138_bus.mtx", "0"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", psl_test_matrix_dir(), names[i][0]);
        if (access(path, R_OK) != 0) {
            psl_test_matrix_missing("real_matrices", path);
            continue;
        }
        read_and_check(path, names[i][1][0] == '1', names[i][0]);
    }
}

/* Every rank the same status; the other ranks' message carries root's. */
static void check_same_error(psl_status st, psl_status expected, const psl_dist_matrix *A,
                             int root, const char *what)
{
    int mine = (int)st, lo = 0, hi = 0;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(st == expected && lo == hi && A == NULL, "%s rank %d: %s (%d), expected %d: %s",
              what, g_rank, psl_status_string(st), (int)st, (int)expected,
              psl_last_error_message());
    char msg[512] = "";
    if (g_rank == root)
        snprintf(msg, sizeof msg, "%s", psl_last_error_message());
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, root, MPI_COMM_WORLD);
    CHECK_MSG(msg[0] && strstr(psl_last_error_message(), msg) != NULL,
              "%s rank %d: message '%s' lacks root's '%s'", what, g_rank,
              psl_last_error_message(), msg);
}

TEST(missing_file_same_error)
{
    char path[512];
    snprintf(path, sizeof path, "%s/no_such_file.mtx", g_dir);
    int root = g_size > 1 ? 1 : 0;
    psl_dist_matrix *A = (psl_dist_matrix *)&A; /* set to NULL on error */
    psl_status st =
        psl_dist_matrix_read_mm(&A, MPI_COMM_WORLD, path, root, PSL_DIST_BALANCE_NNZ, NULL, NULL);
    check_same_error(st, PSL_ERR_IO, A, root, "missing file");
    CHECK(strstr(psl_last_error_message(), "no_such_file.mtx") != NULL);
}

TEST(malformed_file_same_error)
{
    char path[512];
    write_file("bad.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n9 1 2\n",
               path, sizeof path);
    psl_dist_matrix *A = NULL;
    psl_status st =
        psl_dist_matrix_read_mm(&A, MPI_COMM_WORLD, path, 0, PSL_DIST_BALANCE_ROWS, NULL, NULL);
    int mine = (int)st, hi = 0;
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(st != PSL_OK && hi == mine && A == NULL, "rank %d: %s", g_rank,
              psl_last_error_message());
    if (st != PSL_OK)
        check_same_error(st, st, A, 0, "malformed file");
}

TEST(non_square_refused)
{
    char path[512];
    write_file("rect.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 2\n1 1 1.0\n3 4 2\n",
               path, sizeof path);
    psl_dist_matrix *A = NULL;
    psl_status st =
        psl_dist_matrix_read_mm(&A, MPI_COMM_WORLD, path, 0, PSL_DIST_BALANCE_NNZ, NULL, NULL);
    check_same_error(st, PSL_ERR_UNSUPPORTED, A, 0, "non-square file");
    CHECK(strstr(psl_last_error_message(), "3 x 4") != NULL);
}

TEST(scatter_bad_arguments)
{
    /* a matrix that is not FP64 CSR, on root only */
    psl_matrix *M = NULL, *S = NULL;
    CHECK_OK(psl_generate(&M, "gen:lap2d:5"));
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_SELL;
    CHECK_OK(psl_matrix_convert(&S, M, &o));
    psl_dist_matrix *A = NULL;
    psl_status st = psl_dist_matrix_scatter_csr(&A, MPI_COMM_WORLD, g_rank == 0 ? S : NULL, 0,
                                                PSL_DIST_BALANCE_NNZ, NULL, NULL);
    check_same_error(st, PSL_ERR_WRONG_FORMAT, A, 0, "SELL source");
    /* root out of range on one rank only: every rank fails alike */
    st = psl_dist_matrix_scatter_csr(&A, MPI_COMM_WORLD, M, g_rank == g_size - 1 ? g_size : 0,
                                     PSL_DIST_BALANCE_NNZ, NULL, NULL);
    int mine = (int)st, hi = 0;
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(st == PSL_ERR_INVALID_VALUE && hi == mine && A == NULL);
    /* a good source scatters to the lap2d product */
    CHECK_OK(psl_dist_matrix_scatter_csr(&A, MPI_COMM_WORLD, g_rank == 0 ? M : NULL, 0,
                                         PSL_DIST_BALANCE_NNZ, NULL, NULL));
    psl_dist_info info;
    CHECK(A && psl_dist_matrix_get_info(A, &info) == PSL_OK && info.n_global == 25 &&
          info.nnz_global == 105);
    psl_dist_matrix_destroy(&A);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&M);
}

TEST(cleanup)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (g_rank == 0) {
        const char *names[] = {"small.mtx", "bad.mtx", "rect.mtx"};
        char path[512];
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", g_dir, names[i]);
            remove(path);
        }
        CHECK(rmdir(g_dir) == 0);
    }
}

TEST(setup)
{
    make_dir();
    CHECK_MSG(g_dir[0], "mkdtemp failed");
}

static const psl_test_case tests[] = {
    {"setup", setup},
    {"small_generated_file", small_generated_file},
    {"real_matrices", real_matrices},
    {"missing_file_same_error", missing_file_same_error},
    {"malformed_file_same_error", malformed_file_same_error},
    {"non_square_refused", non_square_refused},
    {"scatter_bad_arguments", scatter_bad_arguments},
    {"cleanup", cleanup},
};

PSL_MPI_TEST_MAIN(tests)
