/*
 * test_dist_precond.c -- the distributed matrices derived from another
 * (psl_dist_matrix_convert, psl_dist_matrix_scale_symmetric) and the
 * preconditioners built on them (psl_dist_precond_sdainv, F3R's layers
 * psl_dist_precond_f3r), against references written here or the serial
 * library on the whole matrix: conversions bit-equal to a direct creation,
 * the scaling against a row-order reference, block SD-AINV equal to the
 * factors of each rank's block applied by plain loops, F3R on one rank
 * bit-equal to the serial psl_precond_f3r and on more ranks converged by the
 * true residual computed here; reruns bit-equal; bad input failing alike on
 * every rank. Run by mpiexec on 1..4 ranks, a rank without rows included.
 */
#include "dist_fixture.h"

#include <float.h>
#include <string.h>

/* This rank's rows of g: balanced by rows, or none on rank 0 (empty). */
static void rows_of(const gcsr *g, int empty, int64_t *first, int32_t *nrows)
{
    if (empty && g_size > 1) {
        *first = 0;
        *nrows = 0;
        if (g_rank > 0)
            row_block(g->n, g_rank - 1, g_size - 1, first, nrows);
    } else
        row_block(g->n, g_rank, g_size, first, nrows);
}

/* x_i = a deterministic pattern in [-1, 1] of the global row. */
static double xval(int64_t i) { return (double)((i * 37) % 19) / 9.0 - 1.0; }

/* The gathered global vector of every rank's entries (every rank gets it). */
static double *gather(const double *mine, int32_t nrows, int64_t n)
{
    int *cnt = malloc((size_t)g_size * sizeof *cnt), *off = malloc((size_t)g_size * sizeof *off);
    int m = nrows;
    MPI_Allgather(&m, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
    off[0] = 0;
    for (int r = 1; r < g_size; r++)
        off[r] = off[r - 1] + cnt[r - 1];
    double *all = malloc(((size_t)n + 1) * sizeof *all);
    MPI_Allgatherv(mine, m, MPI_DOUBLE, all, cnt, off, MPI_DOUBLE, MPI_COMM_WORLD);
    free(cnt);
    free(off);
    return all;
}

/* Every rank's iteration count the same. */
static int iters_same(int32_t it)
{
    int32_t lo = 0, hi = 0;
    MPI_Allreduce(&it, &lo, 1, MPI_INT32_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&it, &hi, 1, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

/* Whether ok holds on every rank. */
static int agree_all(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* ---- psl_dist_matrix_convert: the same blocks as a direct creation */

TEST(convert_equals_direct_creation)
{
    gcsr g = generated("hpgmp:3:3:3"); /* nonsymmetric */
    psl_convert_options o[3];
    for (int f = 0; f < 3; f++)
        psl_convert_options_init(&o[f]);
    o[0].format = PSL_FORMAT_SELL;
    o[0].value_type = PSL_FP32;
    o[1].format = PSL_FORMAT_PACKSELL; /* FP16, D = 15 */
    o[2].format = PSL_FORMAT_CSRK;
    const psl_scalar vt[3] = {PSL_FP32, PSL_FP32, PSL_FP64};
    for (int empty = 0; empty < 2; empty++) {
        int64_t first;
        int32_t nrows;
        rows_of(&g, empty, &first, &nrows);
        psl_dist_matrix *A = NULL;
        CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
        for (int f = 0; f < 3 && A; f++) {
            psl_dist_matrix *B = NULL, *C = NULL;
            CHECK_OK(psl_dist_matrix_convert(&B, A, &o[f], &o[f]));
            CHECK_OK(create_from(&C, &g, first, nrows, &o[f], &o[f]));
            if (!B || !C) {
                psl_dist_matrix_destroy(&B);
                psl_dist_matrix_destroy(&C);
                continue;
            }
            psl_dist_info ib, ic;
            psl_dist_matrix_get_info(B, &ib);
            psl_dist_matrix_get_info(C, &ic);
            CHECK(ib.first_row == ic.first_row && ib.nrows == ic.nrows &&
                  ib.nnz_d == ic.nnz_d && ib.nnz_o == ic.nnz_o &&
                  ib.nnz_global == ic.nnz_global && ib.nghost == ic.nghost &&
                  ib.recv_neighbors == ic.recv_neighbors &&
                  ib.send_neighbors == ic.send_neighbors &&
                  ib.send_entries == ic.send_entries);
            /* the same bits from both, in the vectors' type */
            size_t es = vt[f] == PSL_FP64 ? 8 : 4;
            unsigned char *x = calloc((size_t)nrows + 1, 8), *yb = calloc((size_t)nrows + 1, 8),
                          *yc = calloc((size_t)nrows + 1, 8);
            for (int32_t i = 0; i < nrows; i++) {
                double v = xval(first + i);
                float s = (float)v;
                if (es == 8)
                    memcpy(x + 8 * (size_t)i, &v, 8);
                else
                    memcpy(x + 4 * (size_t)i, &s, 4);
            }
            CHECK_OK(psl_dist_spmv(1.0, B, x, 0.0, yb, vt[f]));
            CHECK_OK(psl_dist_spmv(1.0, C, x, 0.0, yc, vt[f]));
            CHECK(agree_all(memcmp(yb, yc, es * (size_t)nrows) == 0));
            /* a converted matrix is no source: its blocks are not FP64 CSR */
            psl_dist_matrix *D = (psl_dist_matrix *)0x1;
            CHECK(all_equal(psl_dist_matrix_convert(&D, B, NULL, NULL), PSL_ERR_INVALID_VALUE));
            CHECK(D == NULL);
            free(x);
            free(yb);
            free(yc);
            psl_dist_matrix_destroy(&B);
            psl_dist_matrix_destroy(&C);
        }
        psl_dist_matrix_destroy(&A);
    }
    CHECK_ST(psl_dist_matrix_convert(NULL, NULL, NULL, NULL), PSL_ERR_NULL_POINTER);
    gcsr_free(&g);
}

/* ---- psl_dist_matrix_scale_symmetric against a row-order reference */

TEST(scale_symmetric_matches_reference)
{
    gcsr g = generated("banded:300:20:7:5"); /* diagonals differ row to row */
    /* row 7's diagonal removed (its factor is then 1): value set to 0 */
    for (int64_t k = g.rp[7]; k < g.rp[8]; k++)
        if (g.ci[k] == 7)
            g.v[k] = 0.0;
    double *gref = calloc((size_t)g.n, sizeof *gref);
    for (int64_t i = 0; i < g.n; i++) {
        double d = 0.0;
        for (int64_t k = g.rp[i]; k < g.rp[i + 1]; k++)
            if (g.ci[k] == i)
                d = g.v[k];
        gref[i] = d != 0.0 ? sqrt(fabs(d)) : 1.0;
    }
    CHECK(gref[7] == 1.0);
    /* reference: y_i = sum_j a_ij / (g_i g_j) x_j in row order, and the
     * sum of the magnitudes for the bound */
    double *x = malloc((size_t)g.n * sizeof *x), *yref = malloc((size_t)g.n * sizeof *yref);
    double *mag = malloc((size_t)g.n * sizeof *mag);
    for (int64_t i = 0; i < g.n; i++)
        x[i] = xval(i);
    for (int64_t i = 0; i < g.n; i++) {
        double s = 0.0, m = 0.0;
        for (int64_t k = g.rp[i]; k < g.rp[i + 1]; k++) {
            double t = g.v[k] / (gref[i] * gref[g.ci[k]]) * x[g.ci[k]];
            s += t;
            m += fabs(t);
        }
        yref[i] = s;
        mag[i] = m;
    }
    for (int empty = 0; empty < 2; empty++) {
        int64_t first;
        int32_t nrows;
        rows_of(&g, empty, &first, &nrows);
        psl_dist_matrix *A = NULL, *S = NULL;
        CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
        double *gb = calloc((size_t)nrows + 1, sizeof *gb), *y = calloc((size_t)nrows + 1, 8);
        CHECK_OK(psl_dist_matrix_scale_symmetric(&S, A, gb));
        int ok = 1;
        for (int32_t i = 0; i < nrows; i++)
            ok &= gb[i] == gref[first + i]; /* sqrt is correctly rounded */
        CHECK(agree_all(ok));
        if (S)
            CHECK_OK(psl_dist_spmv(1.0, S, x + first, 0.0, y, PSL_FP64));
        /* each row summed in another order (A_d's part, then A_o's) */
        ok = 1;
        int32_t rowlen = 0;
        for (int64_t i = 0; i < g.n; i++)
            if (g.rp[i + 1] - g.rp[i] > rowlen)
                rowlen = (int32_t)(g.rp[i + 1] - g.rp[i]);
        for (int32_t i = 0; i < nrows; i++)
            ok &= fabs(y[i] - yref[first + i]) <= 2.0 * rowlen * DBL_EPSILON * mag[first + i];
        CHECK(agree_all(ok));
        /* the same on one rank as the serial scaling */
        if (g_size == 1 && S) {
            psl_matrix *W = gcsr_matrix(&g), *Ws = NULL;
            double *gs = malloc((size_t)g.n * sizeof *gs), *ys = malloc((size_t)g.n * sizeof *ys);
            CHECK_OK(psl_matrix_scale_symmetric(&Ws, W, gs));
            CHECK_OK(psl_spmv(1.0, Ws, x, 0.0, ys, PSL_FP64));
            CHECK(memcmp(ys, y, (size_t)g.n * sizeof *y) == 0);
            free(gs);
            free(ys);
            psl_matrix_destroy(&W);
            psl_matrix_destroy(&Ws);
        }
        /* gbar NULL on a rank with rows: every rank fails */
        psl_dist_matrix *S2 = (psl_dist_matrix *)0x1;
        CHECK(all_equal(psl_dist_matrix_scale_symmetric(&S2, A, nrows > 0 ? NULL : gb),
                        PSL_ERR_NULL_POINTER));
        CHECK(S2 == NULL);
        free(gb);
        free(y);
        psl_dist_matrix_destroy(&S);
        psl_dist_matrix_destroy(&A);
    }
    free(gref);
    free(x);
    free(yref);
    free(mag);
    gcsr_free(&g);
}

/* ---- block SD-AINV: each rank's diagonal block's factors */

/* y = ZD (Wt x) by plain loops over the factors' CSR arrays. */
static void apply_factors(const psl_matrix *Wt, const psl_matrix *ZD, const double *x, double *y,
                          int32_t n, double *bound)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    double *t = calloc((size_t)n + 1, sizeof *t), *tm = calloc((size_t)n + 1, sizeof *tm);
    psl_matrix_csr_view(Wt, &rp, &ci, &v);
    for (int32_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            t[i] += v[k] * x[ci[k]];
            tm[i] += fabs(v[k] * x[ci[k]]);
        }
    psl_matrix_csr_view(ZD, &rp, &ci, &v);
    for (int32_t i = 0; i < n; i++) {
        y[i] = 0.0;
        bound[i] = 0.0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            y[i] += v[k] * t[ci[k]];
            bound[i] += fabs(v[k]) * (fabs(t[ci[k]]) + tm[ci[k]]);
        }
    }
    free(t);
    free(tm);
}

TEST(block_sdainv_is_each_ranks_block)
{
    gcsr g = generated("lap2d:24:17");
    for (int empty = 0; empty < 2; empty++) {
        int64_t first;
        int32_t nrows;
        rows_of(&g, empty, &first, &nrows);
        psl_dist_matrix *A = NULL;
        CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
        psl_exec *ex = NULL;
        CHECK_OK(psl_exec_create_cpu(&ex));
        psl_op *M = NULL;
        CHECK_OK(psl_dist_precond_sdainv(&M, ex, A, NULL, NULL, PSL_FP64));
        /* the reference: this rank's block of g (rows and columns
         * first..first+nrows-1), its factors, applied by plain loops */
        int64_t *rp = calloc((size_t)nrows + 1, sizeof *rp);
        int32_t *ci = calloc((size_t)g.rp[g.n] + 1, sizeof *ci);
        double *v = calloc((size_t)g.rp[g.n] + 1, sizeof *v);
        for (int32_t i = 0; i < nrows; i++) {
            rp[i + 1] = rp[i];
            for (int64_t k = g.rp[first + i]; k < g.rp[first + i + 1]; k++)
                if (g.ci[k] >= first && g.ci[k] < first + nrows) {
                    ci[rp[i + 1]] = (int32_t)(g.ci[k] - first);
                    v[rp[i + 1]++] = g.v[k];
                }
        }
        double *x = calloc((size_t)nrows + 1, 8), *y = calloc((size_t)nrows + 1, 8);
        double *yref = calloc((size_t)nrows + 1, 8), *bound = calloc((size_t)nrows + 1, 8);
        for (int32_t i = 0; i < nrows; i++)
            x[i] = xval(first + i);
        int ok = 1;
        if (nrows > 0) {
            psl_matrix *B = NULL, *Wt = NULL, *ZD = NULL;
            psl_matrix_create_csr(&B, nrows, nrows, rp, ci, v, PSL_FP64, 0, 0);
            psl_sdainv_options so;
            psl_sdainv_options_init(&so);
            ok &= psl_sdainv_build(B, &so, &Wt, &ZD) == PSL_OK;
            if (ok)
                apply_factors(Wt, ZD, x, yref, nrows, bound);
            psl_matrix_destroy(&B);
            psl_matrix_destroy(&Wt);
            psl_matrix_destroy(&ZD);
        }
        psl_vec *xv = NULL, *yv = NULL;
        CHECK_OK(psl_vec_wrap(&xv, ex, nrows, PSL_FP64, x, PSL_MEM_VIEW));
        CHECK_OK(psl_vec_wrap(&yv, ex, nrows, PSL_FP64, y, PSL_MEM_VIEW));
        if (M && xv && yv)
            CHECK_OK(psl_op_apply(M, 1.0, xv, 0.0, yv));
        for (int32_t i = 0; ok && i < nrows; i++) {
            ok &= fabs(y[i] - yref[i]) <= 64 * DBL_EPSILON * bound[i] && bound[i] > 0;
            if (!ok)
                fprintf(stderr, "  rank %d row %d: %.17g, reference %.17g (bound %.3g)\n",
                        g_rank, (int)i, y[i], yref[i], bound[i]);
        }
        CHECK(agree_all(ok));
        /* a diagonal block not in FP64 CSR: refused on every rank */
        psl_convert_options sell;
        psl_convert_options_init(&sell);
        sell.format = PSL_FORMAT_SELL;
        psl_dist_matrix *As = NULL;
        CHECK_OK(create_from(&As, &g, first, nrows, &sell, NULL));
        psl_op *M2 = NULL;
        if (As)
            CHECK(all_equal(psl_dist_precond_sdainv(&M2, ex, As, NULL, NULL, PSL_FP64),
                            PSL_ERR_INVALID_VALUE));
        CHECK(M2 == NULL);
        psl_vec_destroy(&xv);
        psl_vec_destroy(&yv);
        psl_op_destroy(&M);
        psl_exec_destroy(&ex);
        psl_dist_matrix_destroy(&A);
        psl_dist_matrix_destroy(&As);
        free(rp);
        free(ci);
        free(v);
        free(x);
        free(y);
        free(yref);
        free(bound);
    }
    gcsr_free(&g);
}

/* ---- F3R over the ranks */

/* FGMRES(m1) over F3R's layers on g's distributed rows (dist) or on the
 * whole of g in this process (serial, psl_precond_f3r); b_i = rhs pattern,
 * x from zero; x_out gets this rank's (dist) or all (serial) entries. */
static psl_status f3r_solve(const gcsr *g, const psl_solve_config *cfg, int dist, int empty,
                            psl_solve_result *res, double *x_out, int64_t *first_out,
                            int32_t *nrows_out)
{
    int64_t first = 0;
    int32_t nrows = (int32_t)g->n;
    if (dist)
        rows_of(g, empty, &first, &nrows);
    psl_dist_matrix *A = NULL;
    psl_matrix *W = NULL;
    psl_exec *ex = NULL;
    psl_op *op = NULL, *M = NULL;
    psl_solver *s = NULL;
    psl_vec *b = NULL, *x = NULL;
    psl_status st = psl_exec_create_cpu(&ex);
    if (dist) {
        if (st == PSL_OK)
            st = create_from(&A, g, first, nrows, NULL, NULL);
        if (st == PSL_OK)
            st = psl_dist_exec_attach(ex, A);
        if (st == PSL_OK)
            st = psl_dist_op_create(&op, ex, A, PSL_FP64);
        if (st == PSL_OK)
            st = psl_dist_precond_f3r(&M, ex, A, cfg);
    } else {
        W = gcsr_matrix(g);
        if (st == PSL_OK)
            st = psl_op_matrix(&op, ex, W, PSL_FP64);
        if (st == PSL_OK)
            st = psl_precond_f3r(&M, ex, W, cfg);
    }
    psl_solver_options o;
    psl_solver_options_init(&o);
    o.tol = 1e-10;
    o.restart = cfg->f3r.m1;
    if (st == PSL_OK)
        st = psl_solver_create(&s, PSL_METHOD_FGMRES, op, M, &o);
    double *bh = calloc((size_t)nrows + 1, sizeof *bh);
    for (int32_t i = 0; i < nrows; i++)
        bh[i] = 1.0 + (double)((first + i) % 7) / 7.0;
    if (st == PSL_OK)
        st = psl_vec_wrap(&b, ex, nrows, PSL_FP64, bh, PSL_MEM_COPY);
    if (st == PSL_OK)
        st = psl_vec_create(&x, ex, nrows, PSL_FP64);
    if (st == PSL_OK)
        st = psl_solver_solve(s, b, x, res);
    if (st == PSL_OK || st == PSL_ERR_NOT_CONVERGED)
        psl_vec_get(x, x_out);
    *first_out = first;
    *nrows_out = nrows;
    free(bh);
    psl_vec_destroy(&b);
    psl_vec_destroy(&x);
    psl_solver_destroy(&s);
    psl_op_destroy(&M);
    psl_op_destroy(&op);
    psl_exec_destroy(&ex);
    psl_dist_matrix_destroy(&A);
    psl_matrix_destroy(&W);
    return st;
}

/* ||b - A x|| / ||b|| of the gathered x, in row order here. */
static double true_relres(const gcsr *g, const double *x)
{
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < g->n; i++) {
        double s = 0.0, bi = 1.0 + (double)(i % 7) / 7.0;
        for (int64_t k = g->rp[i]; k < g->rp[i + 1]; k++)
            s += g->v[k] * x[g->ci[k]];
        rr += (bi - s) * (bi - s);
        bb += bi * bi;
    }
    return sqrt(rr / bb);
}

TEST(f3r_over_the_ranks)
{
    gcsr g = generated("banded:2000:30:9:3"); /* nonsymmetric pattern, diagonal dominant */
    psl_solve_config cfg[4];
    for (int c = 0; c < 4; c++) {
        psl_solve_config_init(&cfg[c]);
        cfg[c].method = PSL_SOLVE_F3R;
        cfg[c].precond = PSL_PRECOND_SDAINV;
        cfg[c].f3r.m1 = 20;
    }
    cfg[1].f3r.variant = PSL_F3R_FP16;
    cfg[2].f3r.variant = PSL_F3R_FP64;
    cfg[3].precond = PSL_PRECOND_JACOBI;
    double *xs = malloc((size_t)g.n * sizeof *xs), *xd = calloc((size_t)g.n + 1, sizeof *xd);
    double *xd2 = calloc((size_t)g.n + 1, sizeof *xd2);
    for (int c = 0; c < 4; c++) {
        psl_solve_result rs = {0}, rd = {0}, rd2 = {0};
        int64_t first;
        int32_t nrows;
        CHECK_OK(f3r_solve(&g, &cfg[c], 0, 0, &rs, xs, &first, &nrows));
        CHECK(rs.iterations > 0 && rs.inner_iterations > 0);
        for (int empty = 0; empty < 2; empty++) {
            CHECK_OK(f3r_solve(&g, &cfg[c], 1, empty, &rd, xd, &first, &nrows));
            CHECK(iters_same(rd.iterations));
            double *xall = gather(xd, nrows, g.n);
            double rel = true_relres(&g, xall);
            if (!(rel < 1e-9))
                fprintf(stderr, "  config %d: true relres %.3e\n", c, rel);
            CHECK(rel < 1e-9);
            if (g_size == 1) { /* the serial operator's bits */
                CHECK(rd.iterations == rs.iterations);
                CHECK(rd.inner_iterations == rs.inner_iterations);
                CHECK(memcmp(xall, xs, (size_t)g.n * sizeof *xs) == 0);
            } else { /* block SD-AINV is weaker: at most twice the outer steps */
                CHECK(rd.iterations <= 2 * rs.iterations + 1);
            }
            /* a rerun: the same bits */
            CHECK_OK(f3r_solve(&g, &cfg[c], 1, empty, &rd2, xd2, &first, &nrows));
            CHECK(rd2.iterations == rd.iterations);
            CHECK(agree_all(memcmp(xd, xd2, (size_t)nrows * sizeof *xd) == 0));
            free(xall);
        }
    }
    free(xs);
    free(xd);
    free(xd2);
    gcsr_free(&g);
}

TEST(f3r_bad_input_same_everywhere)
{
    gcsr g = generated("lap2d:30");
    int64_t first;
    int32_t nrows;
    rows_of(&g, 0, &first, &nrows);
    psl_dist_matrix *A = NULL, *As = NULL;
    CHECK_OK(create_from(&A, &g, first, nrows, NULL, NULL));
    psl_convert_options sell;
    psl_convert_options_init(&sell);
    sell.format = PSL_FORMAT_SELL;
    CHECK_OK(create_from(&As, &g, first, nrows, &sell, &sell));
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cpu(&ex));
    CHECK_OK(psl_dist_exec_attach(ex, A));
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.f3r.m2 = 0;
    psl_op *M = NULL;
    CHECK(all_equal(psl_dist_precond_f3r(&M, ex, A, &c), PSL_ERR_INVALID_VALUE));
    CHECK(M == NULL && strstr(psl_last_error_message(), "m2") != NULL);
    CHECK(all_equal(psl_dist_precond_f3r(&M, ex, As, NULL), PSL_ERR_INVALID_VALUE));
    CHECK(M == NULL);
    CHECK(all_equal(psl_dist_precond_f3r(NULL, ex, A, NULL), PSL_ERR_NULL_POINTER));
    /* an entry beyond FP16 in the last rank's rows, unscaled: the FP16
     * layer's conversion fails there, and on every rank */
    int64_t last = g.n - 1;
    g.v[g.rp[last]] = 1e6;
    psl_dist_matrix *Ab = NULL;
    CHECK_OK(create_from(&Ab, &g, first, nrows, NULL, NULL));
    psl_solve_config_init(&c);
    c.scale = 0;
    c.f3r.codec = (psl_codec){5, 10};
    if (Ab)
        CHECK(all_equal(psl_dist_precond_f3r(&M, ex, Ab, &c), PSL_ERR_CODEC_OVERFLOW));
    CHECK(M == NULL && strstr(psl_last_error_message(), "F3R layers 3-4") != NULL);
    psl_exec_destroy(&ex);
    psl_dist_matrix_destroy(&A);
    psl_dist_matrix_destroy(&As);
    psl_dist_matrix_destroy(&Ab);
    gcsr_free(&g);
}

static const psl_test_case tests[] = {
    {"convert_equals_direct_creation", convert_equals_direct_creation},
    {"scale_symmetric_matches_reference", scale_symmetric_matches_reference},
    {"block_sdainv_is_each_ranks_block", block_sdainv_is_each_ranks_block},
    {"f3r_over_the_ranks", f3r_over_the_ranks},
    {"f3r_bad_input_same_everywhere", f3r_bad_input_same_everywhere},
};

PSL_MPI_TEST_MAIN(tests)
