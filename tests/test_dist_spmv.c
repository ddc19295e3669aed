/*
 * test_dist_spmv.c -- the distributed layer (packsell_mpi.h) against serial
 * references written here: SpMV bitwise equal to a plain serial CSR product
 * for integer-valued matrices and vectors (every format of A_d and A_o, FP64,
 * FP32 and FP16 vectors), within a derived bound for real values; ranks with
 * no rows; a row count no rank count divides; a ghost needed one way only;
 * ghost counts of HPCG split in z-planes against the face sizes; bit-equal
 * reruns; the row balancing; dot products; PCG iterations equal to a serial
 * PCG's; bad input failing with the same status on every rank. Run by
 * mpiexec on 1..4 ranks (tests/CMakeLists.txt).
 */
#include "dist_fixture.h"

#include <stdint.h>

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* n x n, `per_row` random columns per row (duplicates possible, unsorted),
 * values integers in [-4, 4] (integer != 0) or reals in (-1, 1). */
static gcsr random_matrix(int64_t n, int per_row, int integer, uint64_t seed)
{
    gcsr g = {n, malloc((size_t)(n + 1) * sizeof(int64_t)), NULL, NULL};
    g.ci = malloc((size_t)(n * per_row + 1) * sizeof(int64_t));
    g.v = malloc((size_t)(n * per_row + 1) * sizeof(double));
    g.rp[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        for (int k = 0; k < per_row; k++) {
            int64_t j = i * per_row + k;
            g.ci[j] = (int64_t)(lcg(&seed) % (uint64_t)n);
            if (integer)
                g.v[j] = (double)((int)(lcg(&seed) % 9) - 4);
            else
                g.v[j] = ((double)(lcg(&seed) % 2000001) - 1000000.0) / 1000001.0;
        }
        g.rp[i + 1] = (i + 1) * per_row;
    }
    return g;
}

/* Entries after duplicates within a row are summed into one. */
static int64_t unique_nnz(const gcsr *g)
{
    int64_t u = 0;
    for (int64_t i = 0; i < g->n; i++)
        for (int64_t k = g->rp[i]; k < g->rp[i + 1]; k++) {
            int dup = 0;
            for (int64_t j = g->rp[i]; j < k; j++)
                dup |= g->ci[j] == g->ci[k];
            u += !dup;
        }
    return u;
}

/* Storage options by number: 0 CSR FP64, 1 SELL FP64 sorted, 2 PackSELL FP16
 * sorted, 3 CSR-k, 4 CSR FP32, 5 PackSELL E8M12 unsorted. */
#define NFORMATS 6
static void format_opts(int which, psl_convert_options *o)
{
    psl_convert_options_init(o);
    switch (which) {
    case 1: o->format = PSL_FORMAT_SELL; o->slice_height = 4; o->sigma = 8; break;
    case 2: o->format = PSL_FORMAT_PACKSELL; o->slice_height = 4; o->sigma = 8; break;
    case 3: o->format = PSL_FORMAT_CSRK; break;
    case 4: o->value_type = PSL_FP32; break;
    case 5:
        o->format = PSL_FORMAT_PACKSELL;
        o->codec.exp_bits = 8;
        o->codec.man_bits = 12;
        o->slice_height = 8;
        o->sigma = 0;
        break;
    default: break;
    }
}

/* Distributed y = alpha A x + beta y0 in vec_type vs the serial reference on
 * integer data: bitwise. x and y0 integer-valued (small). */
static void check_integer_spmv(const gcsr *g, int64_t first, int32_t nrows, int fd, int fo,
                               psl_scalar vt)
{
    psl_convert_options od, oo;
    format_opts(fd, &od);
    format_opts(fo, &oo);
    psl_dist_matrix *A = NULL;
    CHECK_OK(create_from(&A, g, first, nrows, &od, &oo));
    if (!A)
        return;
    int64_t n = g->n;
    double *x = malloc((size_t)n * sizeof *x), *y0 = malloc((size_t)n * sizeof *y0);
    double *yref = malloc((size_t)n * sizeof *yref);
    for (int64_t i = 0; i < n; i++) {
        x[i] = (double)((i * 7 + 3) % 9) - 4.0;
        y0[i] = (double)((i * 5 + 1) % 7) - 3.0;
    }
    const double alphas[2] = {1.0, -2.0}, betas[2] = {0.0, 3.0};
    for (int t = 0; t < 2; t++) {
        serial_spmv(g, alphas[t], x, betas[t], y0, yref);
        /* the local parts in vec_type */
        int es = vt == PSL_FP64 ? 8 : vt == PSL_FP32 ? 4 : 2;
        unsigned char *xl = malloc((size_t)(nrows + 1) * es), *yl = malloc((size_t)(nrows + 1) * es);
        for (int32_t i = 0; i < nrows; i++) {
            double xv = x[first + i], yv = betas[t] != 0.0 ? y0[first + i] : NAN;
            if (vt == PSL_FP64) {
                ((double *)xl)[i] = xv;
                ((double *)yl)[i] = yv;
            } else if (vt == PSL_FP32) {
                ((float *)xl)[i] = (float)xv;
                ((float *)yl)[i] = (float)yv;
            } else {
                /* small integers and NaN as binary16 bits */
                uint32_t b;
                psl_codec h = {5, 10};
                if (isnan(yv))
                    ((uint16_t *)yl)[i] = 0x7e00u;
                else {
                    psl_codec_encode(h, PSL_OVERFLOW_ERROR, yv, &b);
                    ((uint16_t *)yl)[i] = (uint16_t)b;
                }
                psl_codec_encode(h, PSL_OVERFLOW_ERROR, xv, &b);
                ((uint16_t *)xl)[i] = (uint16_t)b;
            }
        }
        CHECK_OK(psl_dist_spmv(alphas[t], A, xl, betas[t], yl, vt));
        int bad = 0;
        for (int32_t i = 0; i < nrows && !bad; i++) {
            double got = vt == PSL_FP64   ? ((double *)yl)[i]
                         : vt == PSL_FP32 ? (double)((float *)yl)[i]
                                          : psl_codec_decode((psl_codec){5, 10}, ((uint16_t *)yl)[i]);
            if (got != yref[first + i]) {
                CHECK_MSG(0, "np %d rank %d formats %d/%d %s alpha %g beta %g: row %lld: %.17g, "
                          "serial %.17g", g_size, g_rank, fd, fo, psl_scalar_name(vt), alphas[t],
                          betas[t], (long long)(first + i), got, yref[first + i]);
                bad = 1;
            }
        }
        free(xl);
        free(yl);
    }
    free(x);
    free(y0);
    free(yref);
    psl_dist_matrix_destroy(&A);
    CHECK(A == NULL);
}

TEST(spmv_integer_every_format)
{
    gcsr g = random_matrix(37, 5, 1, 11); /* 37: no rank count divides it */
    int64_t first;
    int32_t nrows;
    row_block(g.n, g_rank, g_size, &first, &nrows);
    for (int fd = 0; fd < NFORMATS; fd++)
        for (int fo = 0; fo < NFORMATS; fo++)
            check_integer_spmv(&g, first, nrows, fd, fo, PSL_FP64);
    const psl_scalar vts[2] = {PSL_FP32, PSL_FP16};
    for (int t = 0; t < 2; t++)
        for (int f = 0; f < NFORMATS; f++)
            check_integer_spmv(&g, first, nrows, f, f, vts[t]);
    gcsr_free(&g);
}

/* The odd ranks own no rows (with 2 or 4 ranks the last one too: its block
 * starts at n). */
TEST(spmv_ranks_without_rows)
{
    gcsr g = random_matrix(23, 4, 1, 5);
    int owners = (g_size + 1) / 2, before = (g_rank + 1) / 2; /* even ranks below or at me */
    int64_t first;
    int32_t nrows = 0;
    if (g_rank % 2 == 0)
        row_block(g.n, g_rank / 2, owners, &first, &nrows);
    else
        first = before < owners ? g.n * before / owners : g.n; /* the next owner's start */
    for (int f = 0; f < NFORMATS; f++)
        check_integer_spmv(&g, first, nrows, f, (f + 2) % NFORMATS, PSL_FP64);
    check_integer_spmv(&g, first, nrows, 2, 2, PSL_FP16);
    psl_dist_matrix *A = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    psl_dist_info info;
    CHECK_OK(psl_dist_matrix_get_info(A, &info));
    CHECK(info.nrows == nrows);
    if (nrows == 0)
        CHECK(info.nghost == 0 && info.send_neighbors == 0 && info.recv_neighbors == 0);
    CHECK(info.nnz_global == unique_nnz(&g));
    psl_dist_matrix_destroy(&A);
    gcsr_free(&g);
}

/* Rows 0..n/2-1 hold the last column too: the first ranks need ghosts from
 * the last, which needs nothing back (a plan inferred from symmetry would
 * be wrong). */
TEST(spmv_one_way_ghosts)
{
    int64_t n = 30;
    gcsr g = {n, malloc((size_t)(n + 1) * sizeof(int64_t)), malloc((size_t)(2 * n) * sizeof(int64_t)),
              malloc((size_t)(2 * n) * sizeof(double))};
    int64_t k = 0;
    g.rp[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        g.ci[k] = i;
        g.v[k++] = 2.0;
        if (i < n / 2) {
            g.ci[k] = n - 1;
            g.v[k++] = (double)(i % 3) + 1.0;
        }
        g.rp[i + 1] = k;
    }
    int64_t first;
    int32_t nrows;
    row_block(n, g_rank, g_size, &first, &nrows);
    check_integer_spmv(&g, first, nrows, 0, 0, PSL_FP64);
    check_integer_spmv(&g, first, nrows, 2, 1, PSL_FP32);
    psl_dist_matrix *A = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    psl_dist_info info;
    CHECK_OK(psl_dist_matrix_get_info(A, &info));
    /* expected: a rank with a row < n/2 that does not own row n-1 needs 1 ghost */
    int needs = g_size > 1 && first < n / 2 && g_rank != g_size - 1;
    CHECK_MSG(info.nghost == needs && info.recv_neighbors == needs,
              "rank %d: nghost %d recv_neighbors %d, expected %d", g_rank, info.nghost,
              info.recv_neighbors, needs);
    int senders = 0; /* ranks other than the last with rows below n/2 */
    for (int r = 0; r < g_size - 1; r++) {
        int64_t f;
        int32_t m;
        row_block(n, r, g_size, &f, &m);
        senders += f < n / 2;
    }
    if (g_rank == g_size - 1)
        CHECK_MSG(info.send_entries == senders && info.send_neighbors == senders &&
                      info.bytes_sent_fp64 == 8 * senders && info.bytes_sent_fp16 == 2 * senders,
                  "last rank sends %lld to %d ranks, expected %d", (long long)info.send_entries,
                  info.send_neighbors, senders);
    else
        CHECK(info.send_entries == 0 && info.send_neighbors == 0);
    const psl_matrix *Ad = NULL, *Ao = NULL;
    const int64_t *garray = NULL;
    CHECK_OK(psl_dist_matrix_blocks(A, &Ad, &Ao, &garray));
    psl_matrix_info mi;
    CHECK_OK(psl_matrix_get_info(Ao, &mi));
    CHECK(mi.ncols == info.nghost && mi.nrows == nrows);
    if (needs)
        CHECK(garray && garray[0] == n - 1);
    else
        CHECK(garray == NULL);
    psl_dist_matrix_destroy(&A);
    gcsr_free(&g);
}

/* HPCG 8x8x8 (27 points) split in z-planes: a rank's ghosts are the whole
 * planes next to its block, nx*ny per neighbouring plane; what it sends is
 * its first and last planes to the ranks beside it. Then SpMV is exact
 * (values 26 and -1). */
TEST(hpcg_ghosts_face_sizes)
{
    const int nx = 8, ny = 8, nz = 8;
    gcsr g = generated("hpcg:3:3:3");
    CHECK(g.n == nx * ny * nz);
    if (!g.rp)
        return;
    int z0 = nz * g_rank / g_size, z1 = nz * (g_rank + 1) / g_size;
    int64_t first = (int64_t)z0 * nx * ny;
    int32_t nrows = (int32_t)((z1 - z0) * nx * ny);
    psl_dist_matrix *A = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    psl_dist_info info;
    CHECK_OK(psl_dist_matrix_get_info(A, &info));
    int faces = (z0 > 0) + (z1 < nz);
    CHECK_MSG(info.nghost == faces * nx * ny, "rank %d of %d: nghost %d, expected %d", g_rank,
              g_size, info.nghost, faces * nx * ny);
    CHECK(info.recv_neighbors == faces && info.send_neighbors == faces);
    CHECK(info.send_entries == (int64_t)faces * nx * ny);
    /* nnz of the blocks: the 27-point rows counted here */
    int64_t nd = 0, no = 0;
    for (int64_t i = first; i < first + nrows; i++)
        for (int64_t k = g.rp[i]; k < g.rp[i + 1]; k++) {
            if (g.ci[k] >= first && g.ci[k] < first + nrows)
                nd++;
            else
                no++;
        }
    CHECK(info.nnz_d == nd && info.nnz_o == no && info.nnz_global == g.rp[g.n]);
    psl_dist_matrix_destroy(&A);
    for (int f = 0; f < NFORMATS; f++)
        check_integer_spmv(&g, first, nrows, f, f, PSL_FP64);
    check_integer_spmv(&g, first, nrows, 2, 2, PSL_FP16);
    gcsr_free(&g);
}

/* Real values: |y - y_ref| <= 2 gamma_m sum_j |a_ij x_j| (both sums are
 * FP64 sums of the same m products, in different orders). */
TEST(spmv_real_values_bound)
{
    gcsr g = random_matrix(101, 7, 0, 3);
    int64_t first;
    int32_t nrows;
    row_block(g.n, g_rank, g_size, &first, &nrows);
    double *x = malloc((size_t)g.n * sizeof *x), *yref = malloc((size_t)g.n * sizeof *yref);
    for (int64_t i = 0; i < g.n; i++)
        x[i] = sin((double)i + 0.5);
    serial_spmv(&g, 1.0, x, 0.0, NULL, yref);
    for (int f = 0; f < 2; f++) { /* FP64 storage: CSR and SELL */
        psl_convert_options o;
        format_opts(f, &o);
        psl_dist_matrix *A = NULL;
        CHECK_OK(create_from(&A, &g, first, nrows, &o, &o));
        double *y = malloc(((size_t)nrows + 1) * sizeof *y);
        CHECK_OK(psl_dist_spmv(1.0, A, x + first, 0.0, y, PSL_FP64));
        const double u = 0x1p-53;
        for (int32_t i = 0; i < nrows; i++) {
            int64_t gi = first + i, m = g.rp[gi + 1] - g.rp[gi];
            double s = 0.0;
            for (int64_t k = g.rp[gi]; k < g.rp[gi + 1]; k++)
                s += fabs(g.v[k] * x[g.ci[k]]);
            double gamma = m * u / (1.0 - m * u);
            CHECK_MSG(fabs(y[i] - yref[gi]) <= 2.0 * gamma * s * (1.0 + 4 * u),
                      "row %lld: %.17g vs %.17g", (long long)gi, y[i], yref[gi]);
        }
        /* a rerun gives the same bits, and a fresh matrix too */
        double *y2 = malloc(((size_t)nrows + 1) * sizeof *y2);
        CHECK_OK(psl_dist_spmv(1.0, A, x + first, 0.0, y2, PSL_FP64));
        CHECK(memcmp(y, y2, (size_t)nrows * sizeof *y) == 0);
        psl_dist_matrix *B = NULL;
        CHECK_OK(create_from(&B, &g, first, nrows, &o, &o));
        CHECK_OK(psl_dist_spmv(1.0, B, x + first, 0.0, y2, PSL_FP64));
        CHECK(memcmp(y, y2, (size_t)nrows * sizeof *y) == 0);
        psl_dist_matrix_destroy(&B);
        free(y2);
        free(y);
        psl_dist_matrix_destroy(&A);
    }
    free(x);
    free(yref);
    gcsr_free(&g);
}

/* psl_dist_balance_rows against the rule written out here. */
TEST(balance_rows_rule)
{
    const int64_t sizes[4] = {0, 5, 37, 1000};
    for (int t = 0; t < 4; t++) {
        int64_t n = sizes[t], first = -1;
        int32_t nrows = -1;
        CHECK_OK(psl_dist_balance_rows(MPI_COMM_WORLD, n, NULL, &first, &nrows));
        CHECK(first == n * g_rank / g_size && first + nrows == n * (g_rank + 1) / g_size);
    }
    /* by nonzeros: row i holds i+1 entries (rows get heavier) */
    int64_t n = 50, rp[51];
    rp[0] = 0;
    for (int64_t i = 0; i < n; i++)
        rp[i + 1] = rp[i] + i + 1;
    int64_t first;
    int32_t nrows;
    CHECK_OK(psl_dist_balance_rows(MPI_COMM_WORLD, n, rp, &first, &nrows));
    int64_t exp_first = 0, exp_end = n, nnz = rp[n];
    if (g_rank > 0)
        while (rp[exp_first] < nnz * g_rank / g_size)
            exp_first++;
    if (g_rank < g_size - 1) {
        exp_end = 0;
        while (rp[exp_end] < nnz * (g_rank + 1) / g_size)
            exp_end++;
    }
    CHECK_MSG(first == exp_first && first + nrows == exp_end, "rank %d: [%lld, %lld), expected "
              "[%lld, %lld)", g_rank, (long long)first, (long long)(first + nrows),
              (long long)exp_first, (long long)exp_end);
    /* the blocks it gives build a matrix */
    int64_t ends[2] = {first, first + nrows}, *all = malloc((size_t)g_size * 2 * sizeof *all);
    MPI_Allgather(ends, 2, MPI_INT64_T, all, 2, MPI_INT64_T, MPI_COMM_WORLD);
    for (int r = 0; r + 1 < g_size; r++)
        CHECK(all[2 * r + 1] == all[2 * r + 2]);
    CHECK(all[0] == 0 && all[2 * g_size - 1] == n);
    free(all);
    /* n differing across ranks: the same error everywhere */
    int64_t f2 = 7;
    int32_t n2 = 7;
    psl_status st = psl_dist_balance_rows(MPI_COMM_WORLD, g_size > 1 ? 10 + g_rank : -1, NULL,
                                          &f2, &n2);
    CHECK(all_equal(st, PSL_ERR_INVALID_VALUE));
    CHECK(f2 == 7 && n2 == 7);
}

/* Dot products: the serial sum of the whole vectors (integer data: exact),
 * the same bits on every rank; several in one call. */
TEST(dots_match_serial)
{
    int64_t n = 41, first;
    int32_t nrows;
    row_block(n, g_rank, g_size, &first, &nrows);
    gcsr g = random_matrix(n, 2, 1, 9);
    psl_dist_matrix *A = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    double x[41], y[41], xs_ = 0.0, xy = 0.0, yy = 0.0;
    float xf[41], yf[41];
    for (int64_t i = 0; i < n; i++) {
        x[i] = (double)(i % 5) - 2.0;
        y[i] = (double)(i % 7) - 1.0;
        xf[i] = (float)x[i];
        yf[i] = (float)y[i];
        xs_ += x[i] * x[i];
        xy += x[i] * y[i];
        yy += y[i] * y[i];
    }
    const void *a[3] = {x + first, x + first, y + first}, *b[3] = {x + first, y + first, y + first};
    double res[3] = {0};
    CHECK_OK(psl_dist_dots(A, 3, a, b, PSL_FP64, res));
    CHECK(res[0] == xs_ && res[1] == xy && res[2] == yy);
    double d = 0.0, nrm = 0.0;
    CHECK_OK(psl_dist_dot(A, xf + first, yf + first, PSL_FP32, &d));
    CHECK(d == xy);
    CHECK_OK(psl_dist_norm2(A, y + first, PSL_FP64, &nrm));
    CHECK(nrm == sqrt(yy));
    /* the same bits on every rank */
    double mx[2] = {res[1], -res[1]}, out[2];
    MPI_Allreduce(mx, out, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    CHECK(out[0] == -out[1]);
    /* one rank passing NULL: the same error everywhere */
    const void *an[1] = {g_rank == g_size - 1 ? NULL : (const void *)(x + first)};
    double keep = 123.0;
    psl_status st = psl_dist_dots(A, 1, an, an, PSL_FP64, &keep);
    CHECK(all_equal(st, PSL_ERR_NULL_POINTER));
    CHECK(keep == 123.0);
    psl_dist_matrix_destroy(&A);
    gcsr_free(&g);
}

/* PCG + Jacobi on HPCG 8x8x8 and on a shifted random SPD-ish matrix: the
 * iterations of the serial PCG at every rank count, the solution and the
 * true residual. */
TEST(pcg_iterations_equal_serial)
{
    gcsr g = generated("hpcg:3:3:3");
    if (!g.rp)
        return;
    int64_t first;
    int32_t nrows;
    row_block(g.n, g_rank, g_size, &first, &nrows);
    double *b = malloc((size_t)g.n * sizeof *b), *xs = calloc((size_t)g.n, sizeof *xs);
    double *ones = malloc((size_t)g.n * sizeof *ones);
    for (int64_t i = 0; i < g.n; i++)
        ones[i] = 1.0;
    serial_spmv(&g, 1.0, ones, 0.0, NULL, b);
    int its = serial_pcg(&g, b, xs, 1e-10, 500);
    for (int f = 0; f < 3; f++) {
        psl_convert_options o;
        format_opts(f, &o);
        psl_dist_matrix *A = NULL;
        CHECK_OK(create_from(&A, &g, first, nrows, &o, &o));
        psl_dist_pcg_options opt;
        psl_dist_pcg_options_init(&opt);
        opt.tol = 1e-10;
        psl_dist_pcg_result res = {0};
        double *x = calloc((size_t)nrows + 1, sizeof *x);
        CHECK_OK(psl_dist_pcg(A, b + first, x, &opt, &res));
        CHECK_MSG(res.iterations == its, "np %d format %d: %d iterations, serial %d", g_size, f,
                  res.iterations, its);
        CHECK(res.relres < 1e-9 && res.relres_recursive < 1e-10);
        double err = 0.0;
        for (int32_t i = 0; i < nrows; i++)
            err = fmax(err, fabs(x[i] - 1.0));
        CHECK_MSG(err < 1e-8, "max |x - 1| = %g", err);
        /* the same result on every rank */
        int mine[2] = {res.iterations, -res.iterations}, out[2];
        MPI_Allreduce(mine, out, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        CHECK(out[0] == -out[1]);
        /* a rerun: the same bits */
        double *x2 = calloc((size_t)nrows + 1, sizeof *x2);
        psl_dist_pcg_result res2 = {0};
        CHECK_OK(psl_dist_pcg(A, b + first, x2, &opt, &res2));
        CHECK(memcmp(x, x2, (size_t)nrows * sizeof *x) == 0 && res2.relres == res.relres);
        /* an iteration limit: PSL_ERR_NOT_CONVERGED on every rank */
        opt.max_iters = 2;
        for (int32_t i = 0; i < nrows; i++)
            x2[i] = 0.0;
        CHECK(all_equal(psl_dist_pcg(A, b + first, x2, &opt, &res2), PSL_ERR_NOT_CONVERGED));
        CHECK(res2.iterations == 2);
        free(x2);
        free(x);
        psl_dist_matrix_destroy(&A);
    }
    free(b);
    free(xs);
    free(ones);
    gcsr_free(&g);
}

/* Bad input: the same status on every rank, no handle, nobody waiting. */
TEST(bad_input_same_error_everywhere)
{
    gcsr g = random_matrix(29, 3, 1, 2);
    int64_t first;
    int32_t nrows;
    row_block(g.n, g_rank, g_size, &first, &nrows);
    psl_dist_matrix *A = (psl_dist_matrix *)&g; /* must come back NULL */
    int last = g_rank == g_size - 1;

    /* blocks not contiguous: the last rank starts one row late */
    {
        int64_t f = first + (last ? 1 : 0);
        int32_t m = nrows - (last ? 1 : 0);
        if (m >= 0) {
            int64_t *rp = malloc(((size_t)m + 1) * sizeof *rp);
            for (int32_t i = 0; i <= m; i++)
                rp[i] = g.rp[f + i] - g.rp[f];
            psl_status st = psl_dist_matrix_create_csr(&A, MPI_COMM_WORLD, g.n, f, m, rp,
                                                       g.ci + g.rp[f], g.v + g.rp[f], NULL, NULL);
            CHECK(all_equal(st, PSL_ERR_INVALID_VALUE));
            CHECK(A == NULL);
            free(rp);
        }
    }
    /* a column out of range on the last rank only */
    {
        int64_t *ci = malloc((size_t)(g.rp[g.n] + 1) * sizeof *ci);
        memcpy(ci, g.ci, (size_t)g.rp[g.n] * sizeof *ci);
        if (last)
            ci[g.rp[first]] = g.n; /* one past the end (every rank has rows) */
        gcsr bad = g;
        bad.ci = ci;
        A = (psl_dist_matrix *)&g;
        psl_status st = create_from(&A, &bad, first, nrows, NULL, NULL);
        CHECK(all_equal(st, PSL_ERR_INVALID_MATRIX));
        CHECK(A == NULL);
        if (!last) /* the others say which rank failed */
            CHECK(strstr(psl_last_error_message(), "rank ") != NULL);
        free(ci);
    }
    /* a NULL row_ptr on rank 0 only */
    {
        int64_t *rp = malloc(((size_t)nrows + 1) * sizeof *rp);
        for (int32_t i = 0; i <= nrows; i++)
            rp[i] = g.rp[first + i] - g.rp[first];
        A = (psl_dist_matrix *)&g;
        psl_status st = psl_dist_matrix_create_csr(&A, MPI_COMM_WORLD, g.n, first, nrows,
                                                   g_rank == 0 ? NULL : rp, g.ci + g.rp[first],
                                                   g.v + g.rp[first], NULL, NULL);
        CHECK(all_equal(st, PSL_ERR_NULL_POINTER));
        CHECK(A == NULL);
        /* n_global differing on one rank */
        A = (psl_dist_matrix *)&g;
        st = psl_dist_matrix_create_csr(&A, MPI_COMM_WORLD, g.n + (last ? 1 : 0), first, nrows,
                                        rp, g.ci + g.rp[first], g.v + g.rp[first], NULL, NULL);
        CHECK(all_equal(st, PSL_ERR_INVALID_VALUE));
        CHECK(A == NULL);
        /* an explicit sigma permutation */
        psl_convert_options o;
        format_opts(1, &o);
        o.permute = PSL_PERMUTE_EXPLICIT;
        st = psl_dist_matrix_create_csr(&A, MPI_COMM_WORLD, g.n, first, nrows, rp,
                                        g.ci + g.rp[first], g.v + g.rp[first],
                                        g_rank == 0 ? &o : NULL, NULL);
        CHECK(all_equal(st, PSL_ERR_INVALID_VALUE));
        /* a NaN value on the last rank */
        double *v = malloc((size_t)(g.rp[g.n] + 1) * sizeof *v);
        memcpy(v, g.v, (size_t)g.rp[g.n] * sizeof *v);
        if (last)
            v[g.rp[first]] = NAN;
        st = psl_dist_matrix_create_csr(&A, MPI_COMM_WORLD, g.n, first, nrows, rp,
                                        g.ci + g.rp[first], v + g.rp[first], NULL, NULL);
        CHECK(all_equal(st, PSL_ERR_NONFINITE));
        psl_dist_matrix_destroy(&A);
        free(v);
        free(rp);
    }
    /* a destroyed handle is refused, locally */
    A = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    psl_dist_matrix *dead = A;
    psl_dist_matrix_destroy(&A);
    CHECK(A == NULL);
    (void)dead; /* freed: not dereferenced here */
    psl_dist_info info;
    CHECK_ST(psl_dist_matrix_get_info(NULL, &info), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_dist_spmv(1.0, NULL, NULL, 0.0, NULL, PSL_FP64), PSL_ERR_NULL_POINTER);
    gcsr_free(&g);
}

/* A rank passing a NULL x to psl_dist_spmv gets its error; the others are
 * not left waiting (they finish the exchange). */
TEST(spmv_bad_rank_no_hang)
{
    gcsr g = random_matrix(19, 3, 1, 4);
    int64_t first;
    int32_t nrows;
    row_block(g.n, g_rank, g_size, &first, &nrows);
    psl_dist_matrix *A = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    double x[19], y[19];
    for (int i = 0; i < 19; i++)
        x[i] = 1.0;
    int bad = g_rank == 0 && nrows > 0;
    psl_status st = psl_dist_spmv(1.0, A, bad ? NULL : x + first, 0.0, y, PSL_FP64);
    CHECK_ST(st, bad ? PSL_ERR_NULL_POINTER : PSL_OK);
    /* the next product is right again everywhere */
    double yref[19];
    serial_spmv(&g, 1.0, x, 0.0, NULL, yref);
    CHECK_OK(psl_dist_spmv(1.0, A, x + first, 0.0, y, PSL_FP64));
    for (int32_t i = 0; i < nrows; i++)
        CHECK(y[i] == yref[first + i]);
    psl_dist_matrix_destroy(&A);
    gcsr_free(&g);
}

static const psl_test_case tests[] = {
    {"spmv_integer_every_format", spmv_integer_every_format},
    {"spmv_ranks_without_rows", spmv_ranks_without_rows},
    {"spmv_one_way_ghosts", spmv_one_way_ghosts},
    {"hpcg_ghosts_face_sizes", hpcg_ghosts_face_sizes},
    {"spmv_real_values_bound", spmv_real_values_bound},
    {"balance_rows_rule", balance_rows_rule},
    {"dots_match_serial", dots_match_serial},
    {"pcg_iterations_equal_serial", pcg_iterations_equal_serial},
    {"bad_input_same_error_everywhere", bad_input_same_error_everywhere},
    {"spmv_bad_rank_no_hang", spmv_bad_rank_no_hang},
};

PSL_MPI_TEST_MAIN(tests)
