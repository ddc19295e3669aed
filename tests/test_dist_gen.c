/*
 * test_dist_gen.c -- HPCG (and HPGMP) generated on each rank for its own
 * rows on a 3D process grid (psl_dist_generate_hpcg), against a 27-point
 * stencil written here on the whole grid in natural order: the product is
 * bitwise the serial one (integer and half-integer values), the ghost and
 * neighbour counts are the box's analytic face, edge and corner sizes, and
 * the process grid is a factorisation of minimal sum. Run by mpiexec on
 * 1..4 ranks (tests/CMakeLists.txt).
 */
#include "mpi_harness.h"
#include "packsell_mpi.h"

#include <stdint.h>

TEST(process_grid_minimal)
{
    for (int p = 1; p <= 64; p++) {
        int d[3] = {0, 0, 0};
        CHECK_OK(psl_dist_process_grid(p, d));
        CHECK(d[0] >= 1 && d[1] >= 1 && d[2] >= 1 && d[0] * d[1] * d[2] == p);
        int best = 3 * p;
        for (int a = 1; a <= p; a++)
            for (int b = 1; b <= p; b++)
                if (p % (a * b) == 0 && a + b + p / (a * b) < best)
                    best = a + b + p / (a * b);
        CHECK_MSG(d[0] + d[1] + d[2] == best, "p %d: %d x %d x %d", p, d[0], d[1], d[2]);
    }
    int d[3];
    CHECK_ST(psl_dist_process_grid(0, d), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_dist_process_grid(4, NULL), PSL_ERR_NULL_POINTER);
}

/* y = A x on the NX x NY x NZ grid in natural order, written plainly. */
static double ref_row(int64_t NX, int64_t NY, int64_t NZ, double beta, const double *x,
                      int64_t gx, int64_t gy, int64_t gz)
{
    double s = 0.0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int64_t ax = gx + dx, ay = gy + dy, az = gz + dz;
                if (ax < 0 || ay < 0 || az < 0 || ax >= NX || ay >= NY || az >= NZ)
                    continue;
                double a = -1.0;
                if (!dx && !dy && !dz)
                    a = 26.0;
                else if (!dx && !dy)
                    a = dz < 0 ? -1.0 - beta : -1.0 + beta;
                s += a * x[ax + NX * (ay + NY * az)];
            }
    return s;
}

static double x_of(int64_t gx, int64_t gy, int64_t gz)
{
    return (double)((gx * 3 + gy * 5 + gz * 7) % 11) - 5.0;
}

static void check_box(int32_t nx, int32_t ny, int32_t nz, double beta, int fmt)
{
    int d[3];
    psl_dist_process_grid(g_size, d);
    int64_t NX = (int64_t)d[0] * nx, NY = (int64_t)d[1] * ny, NZ = (int64_t)d[2] * nz;
    int64_t px = g_rank % d[0], py = (g_rank / d[0]) % d[1], pz = g_rank / d[0] / d[1];
    psl_convert_options o;
    psl_convert_options_init(&o);
    if (fmt == 1) {
        o.format = PSL_FORMAT_PACKSELL;
        o.slice_height = 8;
        o.sigma = 16;
    } else if (fmt == 2) {
        o.format = PSL_FORMAT_CSRK;
    }
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, nx, ny, nz, beta, &o, &o));
    if (!A)
        return;
    psl_dist_info info;
    CHECK_OK(psl_dist_matrix_get_info(A, &info));
    int64_t nloc = (int64_t)nx * ny * nz;
    CHECK(info.n_global == nloc * g_size && info.first_row == nloc * g_rank && info.nrows == nloc);
    /* ghosts: the box grown by one point on every side that has a neighbour */
    int64_t lox = px > 0, hix = px < d[0] - 1, loy = py > 0, hiy = py < d[1] - 1;
    int64_t loz = pz > 0, hiz = pz < d[2] - 1;
    int64_t grown = (nx + lox + hix) * (ny + loy + hiy) * (nz + loz + hiz);
    CHECK_MSG(info.nghost == grown - nloc, "rank %d of %d (%dx%dx%d): nghost %d, expected %lld",
              g_rank, g_size, d[0], d[1], d[2], info.nghost, (long long)(grown - nloc));
    int64_t nb = (1 + lox + hix) * (1 + loy + hiy) * (1 + loz + hiz) - 1;
    CHECK(info.recv_neighbors == nb && info.send_neighbors == nb);
    CHECK(info.send_entries == grown - nloc); /* the stencil is symmetric in shape */
    /* the product against the natural-order reference */
    double *xn = malloc((size_t)(NX * NY * NZ) * sizeof *xn);
    for (int64_t gz = 0; gz < NZ; gz++)
        for (int64_t gy = 0; gy < NY; gy++)
            for (int64_t gx = 0; gx < NX; gx++)
                xn[gx + NX * (gy + NY * gz)] = x_of(gx, gy, gz);
    double *x = malloc((size_t)nloc * sizeof *x), *y = malloc((size_t)nloc * sizeof *y);
    for (int64_t lz = 0; lz < nz; lz++)
        for (int64_t ly = 0; ly < ny; ly++)
            for (int64_t lx = 0; lx < nx; lx++)
                x[lx + nx * (ly + ny * lz)] = x_of(px * nx + lx, py * ny + ly, pz * nz + lz);
    CHECK_OK(psl_dist_spmv(1.0, A, x, 0.0, y, PSL_FP64));
    int bad = 0;
    for (int64_t lz = 0; lz < nz && !bad; lz++)
        for (int64_t ly = 0; ly < ny && !bad; ly++)
            for (int64_t lx = 0; lx < nx && !bad; lx++) {
                double r = ref_row(NX, NY, NZ, beta, xn, px * nx + lx, py * ny + ly, pz * nz + lz);
                double got = y[lx + nx * (ly + ny * lz)];
                if (got != r) {
                    CHECK_MSG(0, "rank %d point (%lld,%lld,%lld): %g, expected %g", g_rank,
                              (long long)lx, (long long)ly, (long long)lz, got, r);
                    bad = 1;
                }
            }
    /* nonzeros: 27 per interior point, fewer at the global boundary */
    int64_t nnz = 0;
    for (int64_t gz = 0; gz < NZ; gz++)
        for (int64_t gy = 0; gy < NY; gy++)
            for (int64_t gx = 0; gx < NX; gx++)
                nnz += (1 + (gx > 0) + (gx < NX - 1)) * (1 + (gy > 0) + (gy < NY - 1)) *
                       (1 + (gz > 0) + (gz < NZ - 1));
    CHECK(info.nnz_global == nnz);
    free(xn);
    free(x);
    free(y);
    psl_dist_matrix_destroy(&A);
}

TEST(hpcg_boxes_match_natural_grid)
{
    for (int f = 0; f < 3; f++)
        check_box(4, 3, 2, 0.0, f);
    check_box(1, 1, 1, 0.0, 0);
    check_box(5, 2, 3, 0.5, 0); /* HPGMP */
}

/* PCG with Jacobi on the generated HPCG converges (b = A 1, x -> 1). */
TEST(hpcg_pcg_converges)
{
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 6, 5, 4, 0.0, NULL, NULL));
    if (!A)
        return;
    int n = 6 * 5 * 4;
    double *ones = malloc((size_t)n * sizeof *ones), *b = malloc((size_t)n * sizeof *b);
    double *x = calloc((size_t)n, sizeof *x);
    for (int i = 0; i < n; i++)
        ones[i] = 1.0;
    CHECK_OK(psl_dist_spmv(1.0, A, ones, 0.0, b, PSL_FP64));
    psl_dist_pcg_options opt;
    psl_dist_pcg_options_init(&opt);
    psl_dist_pcg_result res;
    CHECK_OK(psl_dist_pcg(A, b, x, &opt, &res));
    CHECK(res.relres < 1e-8 && res.iterations > 1 && res.iterations < 100);
    double err = 0.0;
    for (int i = 0; i < n; i++)
        err = fmax(err, fabs(x[i] - 1.0));
    CHECK_MSG(err < 1e-7, "max |x - 1| = %g after %d iterations", err, res.iterations);
    free(ones);
    free(b);
    free(x);
    psl_dist_matrix_destroy(&A);
}

TEST(hpcg_bad_size_same_error)
{
    psl_dist_matrix *A = NULL;
    /* one rank asks for an empty box: every rank fails */
    psl_status st = psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, g_rank == g_size - 1 ? 0 : 4, 4,
                                           4, 0.0, NULL, NULL);
    int all_st = 0, mine = st;
    MPI_Allreduce(&mine, &all_st, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(st == PSL_ERR_INVALID_VALUE && all_st == PSL_ERR_INVALID_VALUE && A == NULL);
}

static const psl_test_case tests[] = {
    {"process_grid_minimal", process_grid_minimal},
    {"hpcg_boxes_match_natural_grid", hpcg_boxes_match_natural_grid},
    {"hpcg_pcg_converges", hpcg_pcg_converges},
    {"hpcg_bad_size_same_error", hpcg_bad_size_same_error},
};

PSL_MPI_TEST_MAIN(tests)
