/*
 * test_dist_generate.c -- every generator built on each rank for its own
 * rows (psl_dist_generate) against the serial matrix of psl_generate
 * scattered from rank 0 (psl_dist_matrix_scatter_csr) with the same
 * balance: the same blocks (also against the block rule written here), the
 * same A_d, A_o and ghost list entry for entry, bit for bit, and the same
 * product; errors of the spec alike on every rank with psl_generate's
 * message; ranks without rows. Run by mpiexec on 1..4 ranks
 * (tests/CMakeLists.txt).
 */
#include "dist_fixture.h"
#include "same_csr.h"

#include <stdint.h>
#include <string.h>

static const char *const specs[] = {
    "gen:lap2d:13:7",        "gen:lap3d:5:4:3",          "gen:banded:500:20:9:7",
    "gen:powerlaw:700:6:0.8:3", "gen:powerlaw:64:3:2.5",  "gen:random:300:5:11",
    "gen:hpcg:3:2:2",        "gen:hpgmp:2:3:1:0.25",     "lap2d:1",
    "gen:random:2:2",
};
#define NSPECS (int)(sizeof specs / sizeof specs[0])

/* A random x entry of global row i (a hash: the same on every rank). */
static double x_at(int64_t i)
{
    uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + 12345;
    z = (z ^ (z >> 31)) * 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 29;
    return (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* Block start of rank r by the rules of psl_dist_balance_rows, written
 * plainly over the whole row pointer (rp NULL: by rows). */
static int64_t ref_start(const gcsr *g, int nnz_balance, int r, int p)
{
    if (r == 0)
        return 0;
    if (r == p)
        return g->n;
    int64_t nnz = g->rp[g->n];
    if (!nnz_balance || nnz == 0)
        return g->n * r / p;
    int64_t t = nnz * r / p;
    int64_t i = 0;
    while (g->rp[i] < t)
        i++;
    return i;
}

/* The generated and the scattered matrix of spec with the given balance
 * and storage: same info, blocks, ghosts and product bits. */
static void check_spec(const char *spec, psl_dist_balance bal, const psl_convert_options *opt)
{
    gcsr g = generated(spec); /* every rank: for the block rule */
    CHECK_MSG(g.rp != NULL, "%s: psl_generate failed", spec);
    psl_matrix *M = NULL;
    if (g_rank == 0)
        CHECK_OK(psl_generate(&M, spec));
    psl_dist_matrix *A = NULL, *B = NULL;
    CHECK_OK(psl_dist_generate(&A, MPI_COMM_WORLD, spec, bal, opt, opt));
    CHECK_OK(psl_dist_matrix_scatter_csr(&B, MPI_COMM_WORLD, M, 0, bal, opt, opt));
    psl_matrix_destroy(&M);
    if (!A || !B || !g.rp) {
        psl_dist_matrix_destroy(&A);
        psl_dist_matrix_destroy(&B);
        gcsr_free(&g);
        return;
    }
    psl_dist_info ia, ib;
    CHECK_OK(psl_dist_matrix_get_info(A, &ia));
    CHECK_OK(psl_dist_matrix_get_info(B, &ib));
    int64_t s0 = ref_start(&g, bal == PSL_DIST_BALANCE_NNZ, g_rank, g_size);
    int64_t s1 = ref_start(&g, bal == PSL_DIST_BALANCE_NNZ, g_rank + 1, g_size);
    CHECK_MSG(ia.n_global == g.n && ia.first_row == s0 && ia.nrows == s1 - s0,
              "%s balance %d rank %d: rows [%lld, +%d) of %lld, expected [%lld, %lld)", spec,
              (int)bal, g_rank, (long long)ia.first_row, ia.nrows, (long long)ia.n_global,
              (long long)s0, (long long)s1);
    CHECK_MSG(ia.first_row == ib.first_row && ia.nrows == ib.nrows && ia.nnz_d == ib.nnz_d &&
                  ia.nnz_o == ib.nnz_o && ia.nghost == ib.nghost &&
                  ia.nnz_global == ib.nnz_global && ia.nnz_global == g.rp[g.n] &&
                  ia.recv_neighbors == ib.recv_neighbors && ia.send_entries == ib.send_entries,
              "%s balance %d rank %d: info differs (nnz_d %lld/%lld nnz_o %lld/%lld nghost "
              "%d/%d nnz %lld/%lld)",
              spec, (int)bal, g_rank, (long long)ia.nnz_d, (long long)ib.nnz_d,
              (long long)ia.nnz_o, (long long)ib.nnz_o, ia.nghost, ib.nghost,
              (long long)ia.nnz_global, (long long)ib.nnz_global);
    const psl_matrix *ad, *ao, *bd, *bo;
    const int64_t *ga, *gb;
    CHECK_OK(psl_dist_matrix_blocks(A, &ad, &ao, &ga));
    CHECK_OK(psl_dist_matrix_blocks(B, &bd, &bo, &gb));
    if (!opt && ia.nghost == ib.nghost) {
        CHECK_MSG(same_csr(ad, bd) && same_csr(ao, bo), "%s balance %d rank %d: blocks differ",
                  spec, (int)bal, g_rank);
        for (int32_t k = 0; k < ia.nghost; k++)
            CHECK(ga[k] == gb[k]);
    }
    /* the product, bit for bit */
    int32_t m = ia.nrows;
    double *x = malloc((size_t)(m + 1) * sizeof *x), *ya = malloc((size_t)(m + 1) * sizeof *ya);
    double *yb = malloc((size_t)(m + 1) * sizeof *yb);
    for (int32_t i = 0; i < m; i++)
        x[i] = x_at(ia.first_row + i);
    CHECK_OK(psl_dist_spmv(1.0, A, x, 0.0, ya, PSL_FP64));
    CHECK_OK(psl_dist_spmv(1.0, B, x, 0.0, yb, PSL_FP64));
    int bad = 0;
    for (int32_t i = 0; i < m; i++)
        bad += memcmp(&ya[i], &yb[i], sizeof ya[i]) != 0;
    CHECK_MSG(bad == 0, "%s balance %d rank %d: %d of %d products differ", spec, (int)bal,
              g_rank, bad, m);
    /* and against the serial product in row order (CSR: the same sums) */
    if (!opt) {
        double *xg = malloc((size_t)(g.n + 1) * sizeof *xg);
        double *yg = malloc((size_t)(g.n + 1) * sizeof *yg);
        for (int64_t i = 0; i < g.n; i++)
            xg[i] = x_at(i);
        serial_spmv(&g, 1.0, xg, 0.0, NULL, yg);
        int off = 0;
        for (int32_t i = 0; i < m; i++)
            off += fabs(ya[i] - yg[ia.first_row + i]) > 1e-12 * (1.0 + fabs(yg[ia.first_row + i]));
        CHECK_MSG(off == 0, "%s rank %d: %d products off the serial one", spec, g_rank, off);
        free(xg);
        free(yg);
    }
    free(x);
    free(ya);
    free(yb);
    psl_dist_matrix_destroy(&A);
    psl_dist_matrix_destroy(&B);
    gcsr_free(&g);
}

TEST(generators_match_scattered)
{
    for (int s = 0; s < NSPECS; s++) {
        check_spec(specs[s], PSL_DIST_BALANCE_NNZ, NULL);
        check_spec(specs[s], PSL_DIST_BALANCE_ROWS, NULL);
    }
}

TEST(generators_match_scattered_packsell)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    o.slice_height = 8;
    check_spec("gen:powerlaw:700:6:0.8:3", PSL_DIST_BALANCE_NNZ, &o);
    check_spec("gen:banded:500:20:9:7", PSL_DIST_BALANCE_ROWS, &o);
}

/* Ranks beyond the rows own none, and the product still works. */
TEST(ranks_without_rows)
{
    for (int bal = 0; bal < 2; bal++) {
        psl_dist_matrix *A = NULL;
        CHECK_OK(psl_dist_generate(&A, MPI_COMM_WORLD, "gen:lap2d:1", (psl_dist_balance)bal,
                                   NULL, NULL));
        if (!A)
            continue;
        psl_dist_info in;
        CHECK_OK(psl_dist_matrix_get_info(A, &in));
        /* both rules: every block but the last starts at floor(r / p) = 0 */
        int owner = g_size - 1;
        CHECK_MSG(in.n_global == 1 && in.nrows == (g_rank == owner) && in.nnz_global == 1,
                  "balance %d rank %d: %d rows", bal, g_rank, in.nrows);
        double x = 3.0, y = -1.0;
        CHECK_OK(psl_dist_spmv(1.0, A, &x, 0.0, &y, PSL_FP64));
        if (in.nrows == 1)
            CHECK(y == 12.0);
        psl_dist_matrix_destroy(&A);
    }
}

/* A bad spec: the status and the message of psl_generate on every rank,
 * *A left NULL. */
static void check_bad(const char *spec, psl_status want)
{
    psl_matrix *M = NULL;
    CHECK_ST(psl_generate(&M, spec), want);
    char serial[512];
    snprintf(serial, sizeof serial, "%s", psl_last_error_message());
    psl_dist_matrix *A = (psl_dist_matrix *)&M; /* not NULL: must be reset */
    psl_status st = psl_dist_generate(&A, MPI_COMM_WORLD, spec, PSL_DIST_BALANCE_NNZ, NULL, NULL);
    CHECK_MSG(all_equal(st, want), "%s: status %d, expected %d", spec, (int)st, (int)want);
    CHECK(A == NULL);
    CHECK_MSG(strcmp(psl_last_error_message(), serial) == 0, "%s: rank %d: \"%s\" vs \"%s\"",
              spec, g_rank, psl_last_error_message(), serial);
}

TEST(bad_specs_same_error)
{
    check_bad("gen:lap2d:5:x", PSL_ERR_PARSE);
    check_bad("gen:bogus:4", PSL_ERR_PARSE);
    check_bad("gen:random:10", PSL_ERR_PARSE);
    check_bad("gen:banded:10:2:9", PSL_ERR_INVALID_VALUE);
    check_bad("gen:powerlaw:10:20:1", PSL_ERR_INVALID_VALUE);
    check_bad("gen:powerlaw:10:2:0", PSL_ERR_INVALID_VALUE);
    check_bad("gen:lap3d:0", PSL_ERR_INVALID_VALUE);
    check_bad("gen:hpcg:10:10:11", PSL_ERR_SIZE_OVERFLOW);
}

TEST(bad_arguments_same_error)
{
    psl_dist_matrix *A = NULL;
    psl_status st = psl_dist_generate(&A, MPI_COMM_WORLD, "gen:lap2d:4", (psl_dist_balance)7,
                                      NULL, NULL);
    CHECK(all_equal(st, PSL_ERR_INVALID_VALUE) && A == NULL);
    /* one rank passes no output: every rank fails */
    st = psl_dist_generate(g_rank == g_size - 1 ? NULL : &A, MPI_COMM_WORLD, "gen:lap2d:4",
                           PSL_DIST_BALANCE_NNZ, NULL, NULL);
    CHECK(all_equal(st, PSL_ERR_NULL_POINTER) && A == NULL);
    st = psl_dist_generate(&A, MPI_COMM_WORLD, NULL, PSL_DIST_BALANCE_NNZ, NULL, NULL);
    CHECK(all_equal(st, PSL_ERR_NULL_POINTER) && A == NULL);
    CHECK_ST(psl_dist_generate(&A, MPI_COMM_NULL, "gen:lap2d:4", PSL_DIST_BALANCE_NNZ, NULL, NULL),
             PSL_ERR_INVALID_VALUE);
}

static const psl_test_case tests[] = {
    {"generators_match_scattered", generators_match_scattered},
    {"generators_match_scattered_packsell", generators_match_scattered_packsell},
    {"ranks_without_rows", ranks_without_rows},
    {"bad_specs_same_error", bad_specs_same_error},
    {"bad_arguments_same_error", bad_arguments_same_error},
};

PSL_MPI_TEST_MAIN(tests)
