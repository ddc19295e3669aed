/* test_gen.c -- matrix generators: exact patterns and values of the
 * stencils against straightforward loops, properties of the random
 * generators (sorted distinct columns, band, dominance, row-length law,
 * uniformity), determinism across thread counts, and every spec error. */
#include "packsell.h"
#include "gen/gen_internal.h"
#include "harness.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>

/* ---------------------------------------------------------------- helpers */

/* Build a spec, recording a failure; 0 when it failed (the test returns,
 * so that the suite also survives injected allocation failures). */
static int build(psl_gen_csr *c, const char *spec)
{
    psl_status st = psl_gen_build(c, spec);
    CHECK_MSG(st == PSL_OK, "%s: %s", spec, psl_last_error_message());
    return st == PSL_OK;
}

/* Value of entry (i, j) by binary search, NAN when absent. */
static double entry(const psl_gen_csr *c, int64_t i, int64_t j)
{
    int64_t lo = c->row_ptr[i], hi = c->row_ptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (c->col_idx[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->row_ptr[i + 1] && c->col_idx[lo] == j ? c->values[lo] : NAN;
}

/* Row pointers consistent, columns strictly ascending and in range. */
static int well_formed(const psl_gen_csr *c)
{
    if (c->row_ptr[0] != 0)
        return 0;
    for (int64_t i = 0; i < c->nrows; i++) {
        if (c->row_ptr[i + 1] < c->row_ptr[i])
            return 0;
        for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++) {
            if (c->col_idx[k] < 0 || c->col_idx[k] >= c->ncols)
                return 0;
            if (k > c->row_ptr[i] && c->col_idx[k] <= c->col_idx[k - 1])
                return 0;
            if (!isfinite(c->values[k]))
                return 0;
        }
    }
    return 1;
}

/* A == A^T entry by entry. */
static int symmetric(const psl_gen_csr *c)
{
    for (int64_t i = 0; i < c->nrows; i++)
        for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++)
            if (!(entry(c, c->col_idx[k], i) == c->values[k]))
                return 0;
    return 1;
}

static int same_arrays(const psl_gen_csr *a, const psl_gen_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols)
        return 0;
    int64_t nnz = a->row_ptr[a->nrows];
    return !memcmp(a->row_ptr, b->row_ptr, sizeof(int64_t) * ((size_t)a->nrows + 1)) &&
           !memcmp(a->col_idx, b->col_idx, sizeof(int32_t) * (size_t)nnz) &&
           !memcmp(a->values, b->values, sizeof(double) * (size_t)nnz);
}

/* Relative standard deviation of the row lengths. */
static double row_rsd(const psl_gen_csr *c)
{
    double n = c->nrows, mean = (double)c->row_ptr[c->nrows] / n, ss = 0;
    for (int64_t i = 0; i < c->nrows; i++) {
        double d = (double)(c->row_ptr[i + 1] - c->row_ptr[i]) - mean;
        ss += d * d;
    }
    return sqrt(ss / n) / mean;
}

/* Reference structured grid built by the plainest loops: every pair of
 * grid points (row, col) with |dx|,|dy|,|dz| <= 1 (box) or at most one
 * nonzero offset (star); compared entry by entry with the generator. */
static void check_grid(const char *spec, int64_t nx, int64_t ny, int64_t nz, int box,
                       double diag, double beta)
{
    psl_gen_csr c;
    CHECK_OK(psl_gen_build(&c, spec));
    if (!c.row_ptr)
        return;
    int64_t n = nx * ny * nz, k = 0, bad = 0;
    CHECK(c.nrows == n && c.ncols == n);
    CHECK(well_formed(&c));
    for (int64_t iz = 0; iz < nz; iz++)
        for (int64_t iy = 0; iy < ny; iy++)
            for (int64_t ix = 0; ix < nx; ix++) {
                int64_t row = iz * nx * ny + iy * nx + ix;
                if (c.row_ptr[row] != k)
                    bad++;
                for (int64_t jz = 0; jz < nz; jz++)
                    for (int64_t jy = 0; jy < ny; jy++)
                        for (int64_t jx = 0; jx < nx; jx++) {
                            int64_t dx = jx - ix, dy = jy - iy, dz = jz - iz;
                            if (llabs(dx) > 1 || llabs(dy) > 1 || llabs(dz) > 1)
                                continue;
                            if (!box && (dx != 0) + (dy != 0) + (dz != 0) > 1)
                                continue;
                            double v = -1.0;
                            if (dx == 0 && dy == 0 && dz == 0)
                                v = diag;
                            else if (dx == 0 && dy == 0)
                                v = dz < 0 ? -1.0 - beta : -1.0 + beta;
                            int64_t col = jz * nx * ny + jy * nx + jx;
                            if (k >= c.row_ptr[n] || c.col_idx[k] != col || c.values[k] != v)
                                bad++;
                            k++;
                        }
            }
    CHECK_MSG(bad == 0 && k == c.row_ptr[n], "%s: %lld mismatches, %lld vs %lld entries", spec,
              (long long)bad, (long long)k, (long long)c.row_ptr[n]);
    psl_gen_csr_free(&c);
}

/* ---------------------------------------------------------------- stencils */

TEST(hpcg_sizes_of_the_paper)
{
    /* nnz = (3nx-2)(3ny-2)(3nz-2), checked against a count of in-grid
     * neighbours per axis (row length = product of the three spans). */
    static const struct { int e; long long rows, nnz; } cases[] = {
        {7, 2097152LL, 55742968LL}, {8, 16777216LL, 449455096LL}};
    for (int t = 0; t < 2; t++) {
        long long n = 1LL << cases[t].e;
        CHECK(n * n * n == cases[t].rows);
        CHECK((3 * n - 2) * (3 * n - 2) * (3 * n - 2) == cases[t].nnz);
        long long axis = 0; /* sum over one axis of the span */
        for (long long i = 0; i < n; i++)
            axis += 1 + (i > 0) + (i < n - 1);
        CHECK(axis * axis * axis == cases[t].nnz);
    }
}

TEST(hpcg_entries_match_loops)
{
    check_grid("hpcg:4:4:4", 16, 16, 16, 1, 26.0, 0.0);
    check_grid("gen:hpcg:5:4:3", 32, 16, 8, 1, 26.0, 0.0);
    check_grid("hpcg:0:2:1", 1, 4, 2, 1, 26.0, 0.0);
    psl_gen_csr c;
    if (!build(&c, "hpcg:5:4:3"))
        return;
    CHECK(c.row_ptr[c.nrows] == (3LL * 32 - 2) * (3 * 16 - 2) * (3 * 8 - 2));
    CHECK(symmetric(&c));
    psl_gen_csr_free(&c);
}

TEST(hpcg_tiny_grids)
{
    psl_gen_csr c;
    if (!build(&c, "hpcg:0:0:0"))
        return;
    CHECK(c.nrows == 1 && c.ncols == 1 && c.row_ptr[1] == 1);
    CHECK(c.col_idx[0] == 0 && c.values[0] == 26.0);
    psl_gen_csr_free(&c);
    check_grid("hpcg:1:0:0", 2, 1, 1, 1, 26.0, 0.0);
    check_grid("hpcg:1:1:1", 2, 2, 2, 1, 26.0, 0.0);
}

TEST(hpgmp_values_and_nonsymmetry)
{
    check_grid("hpgmp:3:2:2", 8, 4, 4, 1, 26.0, 0.5);
    check_grid("hpgmp:2:3:2:0.25", 4, 8, 4, 1, 26.0, 0.25);
    check_grid("hpgmp:2:2:2:-1.5e0", 4, 4, 4, 1, 26.0, -1.5);
    check_grid("hpgmp:2:2:2:0", 4, 4, 4, 1, 26.0, 0.0);
    psl_gen_csr c;
    if (!build(&c, "hpgmp:3:3:3"))
        return;
    int64_t plane = 64, asym = 0, wrong = 0;
    for (int64_t i = 0; i < c.nrows; i++)
        for (int64_t k = c.row_ptr[i]; k < c.row_ptr[i + 1]; k++) {
            int64_t j = c.col_idx[k];
            double t = entry(&c, j, i);
            if (t == c.values[k])
                continue;
            asym++;
            /* only the z-neighbours straight above/below differ */
            if (!(llabs(j - i) == plane && c.values[k] == (j < i ? -1.5 : -0.5) &&
                  t == (j < i ? -0.5 : -1.5)))
                wrong++;
        }
    CHECK(wrong == 0);
    CHECK(asym == 2 * 8 * 8 * 7); /* every vertical pair, both directions */
    psl_gen_csr_free(&c);
}

TEST(laplacians_match_loops)
{
    check_grid("lap2d:7:5", 7, 5, 1, 0, 4.0, 0.0);
    check_grid("lap2d:6", 6, 6, 1, 0, 4.0, 0.0);
    check_grid("lap3d:5:4:3", 5, 4, 3, 0, 6.0, 0.0);
    check_grid("lap3d:4", 4, 4, 4, 0, 6.0, 0.0);
    check_grid("lap2d:1:9", 1, 9, 1, 0, 4.0, 0.0);
    psl_gen_csr c;
    if (!build(&c, "lap2d:30:20"))
        return;
    CHECK(symmetric(&c));
    CHECK(c.row_ptr[c.nrows] == 600 + 2 * (29 * 20 + 30 * 19));
    psl_gen_csr_free(&c);
    if (!build(&c, "lap3d:9:7:6"))
        return;
    CHECK(symmetric(&c));
    CHECK(c.row_ptr[c.nrows] == 378 + 2 * (8 * 7 * 6 + 9 * 6 * 6 + 9 * 7 * 5));
    psl_gen_csr_free(&c);
    if (!build(&c, "lap2d:1"))
        return;
    CHECK(c.nrows == 1 && c.row_ptr[1] == 1 && c.values[0] == 4.0);
    psl_gen_csr_free(&c);
    if (!build(&c, "lap3d:1"))
        return;
    CHECK(c.nrows == 1 && c.row_ptr[1] == 1 && c.values[0] == 6.0);
    psl_gen_csr_free(&c);
}

/* ---------------------------------------------------------------- random */

/* Banded rows: diagonal present, columns within the band, the right
 * length, off-diagonals in [-1,1), diagonal = 1 + sum of |off|. */
static void check_banded(const char *spec, int64_t n, int64_t bw, int64_t k)
{
    psl_gen_csr c;
    CHECK_OK(psl_gen_build(&c, spec));
    if (!c.row_ptr)
        return;
    CHECK(c.nrows == n && c.ncols == n && well_formed(&c));
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t lo = i - bw < 0 ? 0 : i - bw, hi = i + bw > n - 1 ? n - 1 : i + bw;
        int64_t want = k < hi - lo + 1 ? k : hi - lo + 1;
        if (c.row_ptr[i + 1] - c.row_ptr[i] != want)
            bad++;
        double sum = 0, d = NAN;
        for (int64_t t = c.row_ptr[i]; t < c.row_ptr[i + 1]; t++) {
            if (c.col_idx[t] < lo || c.col_idx[t] > hi)
                bad++;
            if (c.col_idx[t] == i) {
                d = c.values[t];
            } else {
                if (!(c.values[t] >= -1.0 && c.values[t] < 1.0))
                    bad++;
                sum += fabs(c.values[t]);
            }
        }
        if (!(d == 1.0 + sum))
            bad++;
    }
    CHECK_MSG(bad == 0, "%s: %lld bad", spec, (long long)bad);
    psl_gen_csr_free(&c);
}

TEST(banded_rows)
{
    check_banded("banded:1000:10:5", 1000, 10, 5);
    check_banded("banded:1000:10:21", 1000, 10, 21); /* K = band: full band */
    check_banded("banded:50:0:1", 50, 0, 1);         /* diagonal only */
    check_banded("banded:30:1000:20:9", 30, 1000, 20);
    check_banded("banded:1:5:1", 1, 5, 1);
    check_banded("banded:500:40:80", 500, 40, 80);   /* near the band size */
    check_banded("banded:100:2:5", 100, 2, 5);       /* K = 2 BW + 1 */
}

TEST(random_rows_and_uniformity)
{
    psl_gen_csr c;
    if (!build(&c, "random:2000:20"))
        return;
    CHECK(c.nrows == 2000 && well_formed(&c));
    long long buckets[10] = {0};
    int64_t bad = 0;
    for (int64_t i = 0; i < 2000; i++) {
        if (c.row_ptr[i + 1] - c.row_ptr[i] != 20)
            bad++;
        for (int64_t t = c.row_ptr[i]; t < c.row_ptr[i + 1]; t++) {
            buckets[c.col_idx[t] / 200]++;
            if (!(c.values[t] >= -1.0 && c.values[t] < 1.0))
                bad++;
        }
    }
    CHECK(bad == 0);
    for (int b = 0; b < 10; b++) /* expected 4000 each, sd about 60 */
        CHECK_MSG(llabs(buckets[b] - 4000) < 400, "bucket %d: %lld", b, buckets[b]);
    psl_gen_csr_free(&c);

    if (!build(&c, "random:7:7")) /* K = N: dense */
        return;
    CHECK(c.row_ptr[7] == 49 && well_formed(&c));
    psl_gen_csr_free(&c);
    if (!build(&c, "random:300:299:5")) /* complement sampling */
        return;
    CHECK(c.row_ptr[300] == 300 * 299 && well_formed(&c));
    psl_gen_csr_free(&c);
    if (!build(&c, "random:1:1"))
        return;
    CHECK(c.nrows == 1 && c.row_ptr[1] == 1 && c.col_idx[0] == 0);
    psl_gen_csr_free(&c);
}

TEST(banded_offsets_are_uniform)
{
    /* banded:N:BW:2 picks one off-diagonal per interior row, uniform over
     * the 2*BW offsets */
    psl_gen_csr c;
    if (!build(&c, "banded:40000:4:2:77"))
        return;
    long long hist[9] = {0};
    for (int64_t i = 4; i < 40000 - 4; i++)
        for (int64_t t = c.row_ptr[i]; t < c.row_ptr[i + 1]; t++)
            hist[c.col_idx[t] - i + 4]++;
    CHECK(hist[4] == 40000 - 8);
    for (int d = 0; d < 9; d++) /* expected 4999, sd about 66 */
        if (d != 4)
            CHECK_MSG(llabs(hist[d] - 4999) < 400, "offset %d: %lld", d - 4, hist[d]);
    psl_gen_csr_free(&c);
}

TEST(powerlaw_rows)
{
    psl_gen_csr c;
    if (!build(&c, "powerlaw:20000:10:1.5"))
        return;
    CHECK(c.nrows == 20000 && well_formed(&c));
    double mean = (double)c.row_ptr[20000] / 20000, rsd = row_rsd(&c);
    CHECK_MSG(fabs(mean - 10.0) < 0.05, "mean %g", mean);
    CHECK_MSG(rsd > 1.0, "rsd %g", rsd);
    int64_t bad = 0, maxlen = 0, near = 0, far = 0;
    for (int64_t i = 0; i < 20000; i++) {
        int64_t len = c.row_ptr[i + 1] - c.row_ptr[i];
        maxlen = len > maxlen ? len : maxlen;
        double sum = 0, d = NAN;
        for (int64_t t = c.row_ptr[i]; t < c.row_ptr[i + 1]; t++) {
            if (c.col_idx[t] == i) {
                d = c.values[t];
                continue;
            }
            sum += fabs(c.values[t]);
            if (llabs(c.col_idx[t] - i) <= len)
                near++;
            else
                far++;
        }
        if (!(d == 1.0 + sum))
            bad++;
    }
    CHECK(bad == 0);
    CHECK(maxlen > 100 && maxlen <= 20000);
    /* about half the off-diagonals near the diagonal, the rest spread */
    CHECK_MSG(near > far && far > 0.3 * (near + far), "near %lld far %lld", (long long)near,
              (long long)far);
    psl_gen_csr_free(&c);

    if (!build(&c, "powerlaw:5000:4:3.0:3"))
        return;
    mean = (double)c.row_ptr[5000] / 5000;
    CHECK_MSG(fabs(mean - 4.0) < 0.05, "mean %g", mean);
    /* a light tail (finite variance): sd/mean of Pareto(3) is 0.58 */
    CHECK_MSG(well_formed(&c) && row_rsd(&c) > 0.3 && row_rsd(&c) < 0.9, "rsd %g", row_rsd(&c));
    psl_gen_csr_free(&c);

    if (!build(&c, "powerlaw:3000:20:0.7")) /* heavy tail, capped */
        return;
    mean = (double)c.row_ptr[3000] / 3000;
    CHECK_MSG(fabs(mean - 20.0) < 0.5, "mean %g", mean);
    CHECK(well_formed(&c));
    psl_gen_csr_free(&c);

    if (!build(&c, "powerlaw:40:40:2")) /* AVG = N: dense */
        return;
    CHECK(c.row_ptr[40] == 1600 && well_formed(&c));
    psl_gen_csr_free(&c);
    if (!build(&c, "powerlaw:1:1:1"))
        return;
    CHECK(c.nrows == 1 && c.row_ptr[1] == 1 && c.values[0] == 1.0);
    psl_gen_csr_free(&c);
}

TEST(deterministic_across_threads)
{
    static const char *specs[] = {"hpcg:4:3:3",        "hpgmp:3:3:3:0.3",  "lap3d:9:8:7",
                                  "banded:3000:30:12", "powerlaw:5000:8:1.2:4",
                                  "random:3000:15:9"};
    int saved = omp_get_max_threads();
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_gen_csr a, b;
        omp_set_num_threads(1);
        CHECK_OK(psl_gen_build(&a, specs[s]));
        omp_set_num_threads(2);
        CHECK_OK(psl_gen_build(&b, specs[s]));
        omp_set_num_threads(3);
        psl_gen_csr c3;
        CHECK_OK(psl_gen_build(&c3, specs[s]));
        CHECK_MSG(a.row_ptr && b.row_ptr && c3.row_ptr && same_arrays(&a, &b) &&
                      same_arrays(&a, &c3),
                  "%s", specs[s]);
        psl_gen_csr_free(&a);
        psl_gen_csr_free(&b);
        psl_gen_csr_free(&c3);
    }
    omp_set_num_threads(saved);
}

TEST(seeds)
{
    static const char *pairs[][3] = {
        {"banded:2000:20:6", "banded:2000:20:6:1", "banded:2000:20:6:2"},
        {"powerlaw:2000:6:1.5", "gen:powerlaw:2000:6:1.5:1", "powerlaw:2000:6:1.5:18446744073709551615"},
        {"random:2000:5", "random:2000:5:1", "random:2000:5:0"}};
    for (int p = 0; p < 3; p++) {
        psl_gen_csr a, b, c;
        CHECK_OK(psl_gen_build(&a, pairs[p][0]));
        CHECK_OK(psl_gen_build(&b, pairs[p][1]));
        CHECK_OK(psl_gen_build(&c, pairs[p][2]));
        if (!a.row_ptr || !b.row_ptr || !c.row_ptr) {
            psl_gen_csr_free(&a);
            psl_gen_csr_free(&b);
            psl_gen_csr_free(&c);
            continue;
        }
        CHECK_MSG(same_arrays(&a, &b), "default seed is 1: %s", pairs[p][0]);
        /* a different seed changes the columns and the values */
        size_t nnz = (size_t)(a.row_ptr[a.nrows] < c.row_ptr[c.nrows] ? a.row_ptr[a.nrows]
                                                                      : c.row_ptr[c.nrows]);
        CHECK_MSG(memcmp(a.col_idx, c.col_idx, sizeof(int32_t) * nnz), "%s", pairs[p][2]);
        int64_t same = 0;
        for (size_t t = 0; t < nnz; t++)
            same += a.values[t] == c.values[t];
        CHECK_MSG(same < (int64_t)nnz / 10, "%s: %lld equal values", pairs[p][2], (long long)same);
        psl_gen_csr_free(&a);
        psl_gen_csr_free(&b);
        psl_gen_csr_free(&c);
    }
}

/* ---------------------------------------------------------------- errors */

TEST(spec_errors)
{
    static const struct {
        const char *spec;
        psl_status st;
        const char *needle; /* in the message */
    } cases[] = {
        {"", PSL_ERR_PARSE, "unknown generator"},
        {"gen:", PSL_ERR_PARSE, "unknown generator"},
        {"foo:1:2", PSL_ERR_PARSE, "unknown generator \"foo\""},
        {"HPCG:7:7:7", PSL_ERR_PARSE, "unknown generator"},
        {"gen:gen:hpcg:1:1:1", PSL_ERR_PARSE, "unknown generator"},
        {"hpcg", PSL_ERR_PARSE, "got 0 fields"},
        {"hpcg:7:7", PSL_ERR_PARSE, "X:Y:Z, got 2 fields"},
        {"hpcg:7:7:7:7", PSL_ERR_PARSE, "got 4 fields"},
        {"hpgmp:1:1:1:0.5:2", PSL_ERR_PARSE, "got 5 fields"},
        {"lap3d:4:4", PSL_ERR_PARSE, "NX[:NY:NZ], got 2 fields"},
        {"lap2d:1:2:3", PSL_ERR_PARSE, "got 3 fields"},
        {"random:10", PSL_ERR_PARSE, "got 1 field "},
        {"random:10:2:3:4:5:6:7", PSL_ERR_PARSE, "got 7 fields"},
        {"hpcg:7::7", PSL_ERR_PARSE, "field 2 (Y) \"\": empty"},
        {"hpcg:7:7:", PSL_ERR_PARSE, "field 3 (Z)"},
        {"hpcg:7:x:7", PSL_ERR_PARSE, "field 2 (Y) \"x\": not an integer"},
        {"hpcg:7.0:7:7", PSL_ERR_PARSE, "field 1 (X)"},
        {"hpcg: 7:7:7", PSL_ERR_PARSE, "not an integer"},
        {"hpcg:+7:7:7", PSL_ERR_PARSE, "not an integer"},
        {"lap2d:-", PSL_ERR_PARSE, "not an integer"},
        {"lap2d:1e3", PSL_ERR_PARSE, "not an integer"},
        {"hpgmp:1:1:1:abc", PSL_ERR_PARSE, "field 4 (BETA) \"abc\": not a real"},
        {"hpgmp:1:1:1:inf", PSL_ERR_PARSE, "not a real"},
        {"hpgmp:1:1:1:nan", PSL_ERR_PARSE, "not a real"},
        {"hpgmp:1:1:1:0x1p1", PSL_ERR_PARSE, "not a real"},
        {"hpgmp:1:1:1:1e", PSL_ERR_PARSE, "not a real"},
        {"hpgmp:1:1:1:.", PSL_ERR_PARSE, "not a real"},
        {"hpgmp:1:1:1:0,5", PSL_ERR_PARSE, "not a real"},
        {"hpgmp:1:1:1:1e999", PSL_ERR_INVALID_VALUE, "beyond the range"},
        {"powerlaw:100:2:1.5:x", PSL_ERR_PARSE, "field 4 (SEED)"},
        {"powerlaw:100:ten:1.5", PSL_ERR_PARSE, "field 2 (AVG)"},
        {"hpcg:-1:7:7", PSL_ERR_INVALID_VALUE, "field 1 (X) \"-1\": must be >= 0"},
        {"hpcg:7:31:0", PSL_ERR_INVALID_VALUE, "field 2 (Y) \"31\": must be <= 30"},
        {"hpcg:10:10:11", PSL_ERR_SIZE_OVERFLOW, "X+Y+Z = 31"},
        {"hpgmp:30:1:0", PSL_ERR_SIZE_OVERFLOW, "X+Y+Z = 31"},
        {"lap2d:0", PSL_ERR_INVALID_VALUE, "field 1 (NX) \"0\": must be >= 1"},
        {"lap3d:4:-2:4", PSL_ERR_INVALID_VALUE, "field 2 (NY)"},
        {"lap2d:3000000000", PSL_ERR_SIZE_OVERFLOW, "field 1 (NX)"},
        {"lap2d:65536:65536", PSL_ERR_SIZE_OVERFLOW, "65536 x 65536 x 1"},
        {"lap3d:2000", PSL_ERR_SIZE_OVERFLOW, "2000 x 2000 x 2000"},
        {"lap3d:1:1:99999999999999999999999", PSL_ERR_SIZE_OVERFLOW, "field 3 (NZ)"},
        {"banded:0:1:1", PSL_ERR_INVALID_VALUE, "field 1 (N)"},
        {"banded:10:-1:1", PSL_ERR_INVALID_VALUE, "field 2 (BW) \"-1\": must be >= 0"},
        {"banded:10:1:0", PSL_ERR_INVALID_VALUE, "field 3 (K) \"0\": must be >= 1"},
        {"banded:2147483648:1:1", PSL_ERR_SIZE_OVERFLOW, "field 1 (N)"},
        {"banded:10:1:1:-3", PSL_ERR_INVALID_VALUE, "field 4 (SEED) \"-3\": a seed must be >= 0"},
        {"banded:10:1:1:18446744073709551616", PSL_ERR_INVALID_VALUE, "must be < 2^64"},
        {"powerlaw:0:2:1", PSL_ERR_INVALID_VALUE, "field 1 (N)"},
        {"powerlaw:10:0.5:1", PSL_ERR_INVALID_VALUE, "field 2 (AVG) \"0.5\": the mean row length must be >= 1"},
        {"powerlaw:10:2:0", PSL_ERR_INVALID_VALUE, "field 3 (ALPHA) \"0\": the exponent must be > 0"},
        {"powerlaw:10:2:-1", PSL_ERR_INVALID_VALUE, "field 3 (ALPHA)"},
        {"random:-5:2", PSL_ERR_INVALID_VALUE, "field 1 (N) \"-5\""},
        {"random:5:0", PSL_ERR_INVALID_VALUE, "field 2 (K) \"0\": must be >= 1"},
        {"random:99999999999999999999999:3", PSL_ERR_SIZE_OVERFLOW, "field 1 (N)"},
        {"random:2147483647:2147483647", PSL_ERR_SIZE_OVERFLOW, "nonzeros exceed"},
        {"banded:2147483647:99999999999:2147483647", PSL_ERR_SIZE_OVERFLOW, "nonzeros exceed"},
        {"powerlaw:2147483647:2147483647:2", PSL_ERR_SIZE_OVERFLOW, "nonzeros exceed"},
        /* 2e15 nonzeros, 26 PB: refused before any work by the memory guard */
        {"random:2147483647:1000000", PSL_ERR_OUT_OF_MEMORY, "needs about"},
        /* parameters beyond the matrix's shape are refused, not capped */
        {"random:10:20", PSL_ERR_INVALID_VALUE, "20 distinct columns do not fit a row of 10"},
        {"banded:100:2:50", PSL_ERR_INVALID_VALUE, "which holds 5"},
        {"banded:30:1000:31", PSL_ERR_INVALID_VALUE, "which holds 30"},
        {"powerlaw:40:100:2", PSL_ERR_INVALID_VALUE, "exceeds the 40 columns"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        psl_gen_csr c = {7, 7, (int64_t *)1, (int32_t *)1, (double *)1};
        psl_status st = psl_gen_build(&c, cases[t].spec);
        CHECK_MSG(st == cases[t].st, "\"%s\": status %d, expected %d (%s)", cases[t].spec, st,
                  cases[t].st, psl_last_error_message());
        CHECK_MSG(strstr(psl_last_error_message(), cases[t].needle) &&
                      strstr(psl_last_error_message(), cases[t].spec),
                  "\"%s\": message \"%s\" lacks \"%s\"", cases[t].spec, psl_last_error_message(),
                  cases[t].needle);
        CHECK(!c.row_ptr && !c.col_idx && !c.values && c.nrows == 0);
        psl_matrix *A = (psl_matrix *)&c; /* garbage that must be overwritten */
        CHECK_ST(psl_generate(&A, cases[t].spec), cases[t].st);
        CHECK(A == NULL);
    }
    psl_matrix *A = NULL;
    CHECK_ST(psl_generate(&A, NULL), PSL_ERR_NULL_POINTER);
    CHECK(A == NULL);
    CHECK_ST(psl_generate(NULL, "hpcg:1:1:1"), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_gen_build(NULL, "hpcg:1:1:1"), PSL_ERR_NULL_POINTER);
    /* a long bad field is shortened in the message, which stays bounded */
    char longspec[400] = "random:";
    memset(longspec + 7, '9', 300);
    strcat(longspec, "x:3");
    CHECK_ST(psl_generate(&A, longspec), PSL_ERR_PARSE);
    CHECK(strstr(psl_last_error_message(), "field 1 (N)") != NULL);
}

/* ---------------------------------------------------------------- public API */

TEST(generate_makes_csr_handle)
{
    static const char *specs[] = {"hpcg:3:2:1", "gen:hpgmp:2:2:2:0.75", "lap2d:5:3",
                                  "banded:300:7:4", "powerlaw:500:5:1.5:2", "random:200:9"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_matrix *A = NULL;
        psl_gen_csr c;
        CHECK_OK(psl_generate(&A, specs[s]));
        CHECK_OK(psl_gen_build(&c, specs[s]));
        const int64_t *rp = NULL;
        const int32_t *ci = NULL;
        const double *v = NULL;
        CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, &v));
        if (!A || !c.row_ptr) { /* reported above */
            psl_gen_csr_free(&c);
            psl_matrix_destroy(&A);
            continue;
        }
        psl_matrix_info info;
        CHECK_OK(psl_matrix_get_info(A, &info));
        CHECK(info.format == PSL_FORMAT_CSR && info.nrows == c.nrows && info.ncols == c.ncols &&
              info.nnz == c.row_ptr[c.nrows]);
        CHECK_MSG(fabs(info.rsd - row_rsd(&c)) < 1e-9 * (1 + info.rsd), "%s: rsd %g vs %g",
                  specs[s], info.rsd, row_rsd(&c));
        /* the strict validation of the public constructor accepts the arrays */
        psl_matrix *B = NULL;
        CHECK_OK(psl_matrix_create_csr(&B, c.nrows, c.ncols, c.row_ptr, c.col_idx, c.values,
                                       PSL_FP64, 0, PSL_CSR_STRICT));
        psl_matrix_destroy(&B);
        if (rp && ci && v) {
            size_t nnz = (size_t)c.row_ptr[c.nrows];
            CHECK_MSG(!memcmp(rp, c.row_ptr, sizeof(int64_t) * ((size_t)c.nrows + 1)) &&
                          !memcmp(ci, c.col_idx, sizeof(int32_t) * nnz) &&
                          !memcmp(v, c.values, sizeof(double) * nnz),
                      "%s", specs[s]);
        }
        psl_gen_csr_free(&c);
        psl_matrix_destroy(&A);
        CHECK(A == NULL);
    }
}

static const psl_test_case tests[] = {
    {"hpcg_sizes_of_the_paper", hpcg_sizes_of_the_paper},
    {"hpcg_entries_match_loops", hpcg_entries_match_loops},
    {"hpcg_tiny_grids", hpcg_tiny_grids},
    {"hpgmp_values_and_nonsymmetry", hpgmp_values_and_nonsymmetry},
    {"laplacians_match_loops", laplacians_match_loops},
    {"banded_rows", banded_rows},
    {"random_rows_and_uniformity", random_rows_and_uniformity},
    {"banded_offsets_are_uniform", banded_offsets_are_uniform},
    {"powerlaw_rows", powerlaw_rows},
    {"deterministic_across_threads", deterministic_across_threads},
    {"seeds", seeds},
    {"spec_errors", spec_errors},
    {"generate_makes_csr_handle", generate_makes_csr_handle},
};
PSL_TEST_MAIN(tests)
