/*
 * test_csrk_reorder.c -- the locality reorderings of CSR-k (csrk_reorder):
 * RCM on a scrambled path (bandwidth 1) and a scrambled 2D Laplacian
 * (bandwidth down to O(sqrt n)), the permutation a bijection whose P A P^T
 * is the stored matrix, band-k keeping the groups of the unreordered build
 * contiguous, psl_spmv in the caller's numbering against an FP64 product
 * written here (bitwise for integer values, every kernel and vector type,
 * alpha/beta, beta = 0 with NaN in y), a nonsymmetric case that fails if
 * the permutation were not applied, the decode and row order, info and the
 * estimate, the binary file, out-of-memory injection and bad input.
 */
#define _POSIX_C_SOURCE 200809L
#include "csrk_fixture.h"
#include "harness.h"
#include "kernels/kernels.h"
#include "packsell.h"
#include "same_csr.h"
#include "spmv_fixture.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An FP64 CSR of the ne entries (ei[e], ej[e]) (duplicates summed), with
 * the diagonal too when with_diagonal: small integer values, 8 on the
 * diagonal and (1 + (i + 2j) % 5) - 3 off it. */
static psl_matrix *csr_of_edges(int32_t nrows, int32_t ncols, const int32_t *ei,
                                const int32_t *ej, int64_t ne, bool with_diagonal)
{
    int64_t *rp = calloc((size_t)nrows + 1, sizeof *rp);
    int64_t total = ne + (with_diagonal ? nrows : 0);
    int32_t *ci = malloc((size_t)(total ? total : 1) * sizeof *ci);
    int32_t *ri = malloc((size_t)(total ? total : 1) * sizeof *ri);
    double *v = malloc((size_t)(total ? total : 1) * sizeof *v);
    int64_t m = 0;
    for (int64_t e = 0; e < ne; e++, m++)
        ri[m] = ei[e], ci[m] = ej[e];
    if (with_diagonal)
        for (int32_t i = 0; i < nrows && i < ncols; i++, m++)
            ri[m] = i, ci[m] = i;
    /* counting sort by row (psl_matrix_create_csr sorts the columns and
     * sums duplicates) */
    for (int64_t e = 0; e < m; e++)
        rp[ri[e] + 1]++;
    for (int32_t i = 0; i < nrows; i++)
        rp[i + 1] += rp[i];
    int64_t *fill = malloc(((size_t)nrows + 1) * sizeof *fill);
    memcpy(fill, rp, ((size_t)nrows + 1) * sizeof *fill);
    int32_t *cs = malloc((size_t)(m ? m : 1) * sizeof *cs);
    for (int64_t e = 0; e < m; e++) {
        int64_t o = fill[ri[e]]++;
        cs[o] = ci[e];
    }
    for (int32_t i = 0; i < nrows; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++)
            v[e] = cs[e] == i ? 8.0 : (double)(1 + (i + 2 * cs[e]) % 5) - 3.0;
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, nrows, ncols, rp, cs, v, PSL_FP64, 0, 0));
    free(rp);
    free(ci);
    free(ri);
    free(v);
    free(fill);
    free(cs);
    return A;
}

/* Max |i - j| over the entries of an n-row CSR. */
static int64_t bandwidth(int32_t n, const int64_t *rp, const int32_t *ci)
{
    int64_t b = 0;
    for (int32_t i = 0; i < n; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            int64_t d = llabs((long long)i - ci[e]);
            b = d > b ? d : b;
        }
    return b;
}

static int64_t csr_bandwidth(const psl_matrix *A)
{
    const int64_t *rp;
    const int32_t *ci;
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(A, &in));
    CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, NULL));
    return bandwidth(in.nrows, rp, ci);
}

static int64_t csrk_bandwidth(const psl_matrix *A)
{
    const int64_t *rp;
    const int32_t *ci;
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(A, &in));
    CHECK_OK(psl_matrix_csrk_view(A, NULL, &rp, &ci, NULL, NULL, NULL, NULL, NULL, NULL));
    return bandwidth(in.nrows, rp, ci);
}

/* A fixed-seed Fisher-Yates shuffle of 0..n-1. */
static int32_t *shuffle(int32_t n, unsigned long long seed)
{
    int32_t *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    for (int32_t i = 0; i < n; i++)
        p[i] = i;
    for (int32_t i = n - 1; i > 0; i--) {
        int32_t j = (int32_t)(psl_test_uniform(&seed) * (i + 1));
        j = j > i ? i : j;
        int32_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    return p;
}

/* Q A Q^T of a square FP64 CSR for the relabelling q (row i becomes q[i]). */
static psl_matrix *relabel(const psl_matrix *A, const int32_t *q)
{
    psl_matrix_info in;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK_OK(psl_matrix_get_info(A, &in));
    CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, &v));
    const int32_t n = in.nrows;
    int32_t *ej = malloc((size_t)(in.nnz ? in.nnz : 1) * sizeof *ej);
    double *ev = malloc((size_t)(in.nnz ? in.nnz : 1) * sizeof *ev);
    int64_t *nrp = calloc((size_t)n + 1, sizeof *nrp);
    for (int32_t i = 0; i < n; i++)
        nrp[q[i] + 1] = rp[i + 1] - rp[i];
    for (int32_t i = 0; i < n; i++)
        nrp[i + 1] += nrp[i];
    for (int32_t i = 0; i < n; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++) {
            int64_t o = nrp[q[i]] + (e - rp[i]);
            ej[o] = q[ci[e]];
            ev[o] = v[e];
        }
    psl_matrix *B = NULL;
    CHECK_OK(psl_matrix_create_csr(&B, n, n, nrp, ej, ev, PSL_FP64, 0, 0));
    free(ej);
    free(ev);
    free(nrp);
    return B;
}

/* A random n x n pattern of about per_row entries a row (nonsymmetric,
 * some empty rows, several components), integer values. */
static psl_matrix *random_square(int32_t n, int per_row, unsigned long long seed)
{
    int64_t cap = (int64_t)n * per_row + 1;
    int32_t *ei = malloc((size_t)cap * sizeof *ei), *ej = malloc((size_t)cap * sizeof *ej);
    int64_t m = 0;
    for (int32_t i = 0; i < n; i++) {
        if (psl_test_uniform(&seed) < 0.1)
            continue; /* an empty row */
        int cnt = 1 + (int)(psl_test_uniform(&seed) * per_row);
        for (int c = 0; c < cnt && m < cap; c++) {
            /* mostly near the diagonal, sometimes anywhere */
            int32_t j = psl_test_uniform(&seed) < 0.8
                            ? i + (int32_t)((psl_test_uniform(&seed) - 0.5) * 20)
                            : (int32_t)(psl_test_uniform(&seed) * n);
            if (j < 0 || j >= n)
                continue;
            ei[m] = i;
            ej[m] = j;
            m++;
        }
    }
    psl_matrix *A = csr_of_edges(n, n, ei, ej, m, false);
    free(ei);
    free(ej);
    return A;
}

/* perm is a bijection, inv its inverse, and the stored arrays are those of
 * P A P^T (the decode gives A back exactly). */
static void check_permutation(const char *what, const psl_matrix *src, const psl_matrix *R)
{
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(R, &in));
    const int32_t n = in.nrows, *perm = NULL, *inv = NULL;
    CHECK_OK(psl_matrix_csrk_perm_view(R, &perm, &inv));
    CHECK_MSG(perm && inv, "%s: no permutation", what);
    if (!perm || !inv)
        return;
    char *seen = calloc((size_t)n + 1, 1);
    int bad = 0;
    for (int32_t i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]] || inv[perm[i]] != i)
            bad++;
        else
            seen[perm[i]] = 1;
    }
    CHECK_MSG(bad == 0, "%s: perm is no bijection or inv no inverse (%d bad)", what, bad);
    free(seen);
    CHECK(in.csrk_perm_bytes == 8 * (int64_t)n);
    CHECK(in.bytes == in.csr_bytes + in.csrk_overhead_bytes + in.csrk_perm_bytes);
    /* row order is perm; the decode is src itself (FP64 values) */
    int32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    CHECK_OK(psl_matrix_row_order(R, order));
    CHECK(n == 0 || memcmp(order, perm, (size_t)n * sizeof *order) == 0);
    free(order);
    psl_matrix *D = NULL;
    CHECK_OK(psl_matrix_to_csr(&D, R));
    if (D && in.value_type == PSL_FP64)
        CHECK_MSG(same_csr(src, D), "%s: psl_matrix_to_csr does not give the caller's matrix "
                                    "back", what);
    psl_matrix_destroy(&D);
}

/* (a) A path of 6 nodes given in a scrambled order: RCM gives bandwidth 1. */
TEST(rcm_path_of_six)
{
    /* path p0 - p1 - ... - p5 with p = {3, 0, 5, 1, 4, 2} */
    const int32_t p[6] = {3, 0, 5, 1, 4, 2};
    int32_t ei[10], ej[10];
    for (int e = 0; e < 5; e++) {
        ei[2 * e] = p[e], ej[2 * e] = p[e + 1];
        ei[2 * e + 1] = p[e + 1], ej[2 * e + 1] = p[e];
    }
    psl_matrix *A = csr_of_edges(6, 6, ei, ej, 10, true);
    if (!A)
        return;
    CHECK(csr_bandwidth(A) == 5);
    for (int how = PSL_CSRK_REORDER_RCM; how <= PSL_CSRK_REORDER_BANDK; how++)
        for (int32_t k = 1; k <= 3; k++) {
            psl_matrix *R = csrk_convert(A, (psl_csrk_reorder)how, k, 0, 0, PSL_FP64);
            if (!R)
                continue;
            CHECK_MSG(csrk_bandwidth(R) == 1, "how %d k %d: bandwidth %lld", how, (int)k,
                      (long long)csrk_bandwidth(R));
            check_permutation("path", A, R);
            psl_matrix_destroy(&R);
        }
    /* one direction only (a nonsymmetric pattern): the same graph */
    int32_t ui[5], uj[5];
    for (int e = 0; e < 5; e++)
        ui[e] = p[e], uj[e] = p[e + 1];
    psl_matrix *N = csr_of_edges(6, 6, ui, uj, 5, true);
    psl_matrix *R = N ? csrk_convert(N, PSL_CSRK_REORDER_RCM, 1, 0, 0, PSL_FP64) : NULL;
    if (R) {
        CHECK(csrk_bandwidth(R) == 1);
        check_permutation("one-way path", N, R);
    }
    psl_matrix_destroy(&R);
    psl_matrix_destroy(&N);
    psl_matrix_destroy(&A);
}

/* (b) perm a bijection with P A P^T stored, on random matrices, every
 * reordering and level count, group sizes from small to the model's. */
TEST(bijection_on_random_matrices)
{
    const int32_t sizes[] = {1, 2, 7, 100, 1000, 5000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int per_row = 1; per_row <= 9; per_row += 4) {
            psl_matrix *A = random_square(sizes[s], per_row, 1000 + s * 10 + per_row);
            if (!A)
                continue;
            for (int how = PSL_CSRK_REORDER_RCM; how <= PSL_CSRK_REORDER_BANDK; how++)
                for (int32_t k = 1; k <= 3; k++) {
                    const int32_t sr = k >= 2 ? 3 : 0, ssr = k == 3 ? 2 : 0;
                    for (int model = 0; model < 2; model++) {
                        psl_matrix *R = csrk_convert(A, (psl_csrk_reorder)how, k, model ? 0 : sr,
                                                model ? 0 : ssr, PSL_FP64);
                        if (!R)
                            continue;
                        char what[96];
                        snprintf(what, sizeof what, "n %d per_row %d how %d k %d model %d",
                                 (int)sizes[s], per_row, how, (int)k, model);
                        check_permutation(what, A, R);
                        psl_matrix_destroy(&R);
                    }
                }
            psl_matrix_destroy(&A);
        }
    /* no entries at all: every row its own component */
    psl_matrix *Z = csr_of_edges(50, 50, NULL, NULL, 0, false);
    for (int how = PSL_CSRK_REORDER_RCM; Z && how <= PSL_CSRK_REORDER_BANDK; how++)
        for (int32_t k = 1; k <= 3; k++) {
            psl_matrix *R = csrk_convert(Z, (psl_csrk_reorder)how, k, k >= 2 ? 3 : 0,
                                         k == 3 ? 2 : 0, PSL_FP32);
            if (R)
                check_permutation("no entries", Z, R);
            psl_matrix_destroy(&R);
        }
    psl_matrix_destroy(&Z);
}

/* (c) a 2D Laplacian shuffled with a fixed seed: RCM brings the bandwidth
 * from about n down to O(sqrt n); band-k orders the shuffled grid lines of
 * a torus (its super-rows) back into a band. */
TEST(rcm_on_scrambled_laplacian)
{
    psl_matrix *L = NULL;
    CHECK_OK(psl_generate(&L, "gen:lap2d:40"));
    if (!L)
        return;
    const int32_t n = 1600;
    int32_t *q = shuffle(n, 42);
    psl_matrix *S = relabel(L, q);
    const int64_t before = S ? csr_bandwidth(S) : 0;
    CHECK_MSG(before > n / 2, "the shuffle left bandwidth %lld", (long long)before);
    for (int32_t k = 1; k <= 3 && S; k++) {
        psl_matrix *R = csrk_convert(S, PSL_CSRK_REORDER_RCM, k, 0, 0, PSL_FP64);
        if (!R)
            continue;
        const int64_t after = csrk_bandwidth(R);
        printf("lap2d:40 shuffled, RCM k=%d: bandwidth %lld -> %lld\n", (int)k,
               (long long)before, (long long)after);
        CHECK_MSG(after <= 2 * 40, "k %d: bandwidth %lld after RCM (> 2 sqrt(n))", (int)k,
                  (long long)after);
        check_permutation("lap2d rcm", S, R);
        psl_matrix_destroy(&R);
    }
    /* a 40 x 40 torus (every row 5 entries, so super-rows of 40 rows are
     * its grid lines, super-super-rows of 2 pairs of them) with the pairs
     * of lines shuffled: band-k orders them back into a band */
    int32_t *ei = malloc(4 * (size_t)n * sizeof *ei), *ej = malloc(4 * (size_t)n * sizeof *ej);
    int32_t *pairs = shuffle(20, 7), lines[40]; /* adjacent lines stay pairs */
    for (int32_t r = 0; r < 40; r++)
        lines[r] = 2 * pairs[r / 2] + r % 2;
    free(pairs);
    for (int32_t r = 0, m = 0; r < 40; r++)
        for (int32_t c = 0; c < 40; c++) {
            const int32_t me = lines[r] * 40 + c;
            const int32_t nb[4] = {lines[(r + 1) % 40] * 40 + c, lines[(r + 39) % 40] * 40 + c,
                                   lines[r] * 40 + (c + 1) % 40, lines[r] * 40 + (c + 39) % 40};
            for (int t = 0; t < 4; t++, m++)
                ei[m] = me, ej[m] = nb[t];
        }
    psl_matrix *B = csr_of_edges(n, n, ei, ej, 4 * (int64_t)n, true);
    free(ei);
    free(ej);
    const int64_t b_before = B ? csr_bandwidth(B) : 0;
    for (int32_t k = 2; k <= 3 && B; k++) {
        psl_matrix *R = csrk_convert(B, PSL_CSRK_REORDER_BANDK, k, 40, k == 3 ? 2 : 0, PSL_FP64);
        if (!R)
            continue;
        const int64_t after = csrk_bandwidth(R);
        printf("torus 40 x 40 lines shuffled, band-k k=%d: bandwidth %lld -> %lld\n", (int)k,
               (long long)b_before, (long long)after);
        CHECK_MSG(after <= (k == 2 ? 3 : 5) * 40, "k %d: band-k bandwidth %lld (before %lld)",
                  (int)k, (long long)after, (long long)b_before);
        check_permutation("torus bandk", B, R);
        psl_matrix_destroy(&R);
    }
    free(q);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&L);
}

/* (d) band-k: every super-row of the result is one super-row of the
 * unreordered build (the same rows, contiguous), and for
 * k = 3 every super-super-row holds exactly the super-rows of one. */
static void check_bandk_groups(const char *what, const psl_matrix *src, int32_t k, int32_t sr,
                               int32_t ssr)
{
    psl_matrix *U = csrk_convert(src, PSL_CSRK_REORDER_NONE, k, sr, ssr, PSL_FP64);
    psl_matrix *R = csrk_convert(src, PSL_CSRK_REORDER_BANDK, k, sr, ssr, PSL_FP64);
    if (!U || !R)
        goto done;
    int32_t ku, kr, nsu, nsr, nssu, nssr;
    const int32_t *spu, *spr, *sspu, *sspr, *perm;
    CHECK_OK(psl_matrix_csrk_view(U, &ku, NULL, NULL, NULL, NULL, &nsu, &spu, &nssu, &sspu));
    CHECK_OK(psl_matrix_csrk_view(R, &kr, NULL, NULL, NULL, NULL, &nsr, &spr, &nssr, &sspr));
    CHECK_OK(psl_matrix_csrk_perm_view(R, &perm, NULL));
    CHECK_MSG(ku == kr && nsu == nsr && nssu == nssr, "%s: levels %d/%d, %d/%d super-rows",
              what, (int)ku, (int)kr, (int)nsu, (int)nsr);
    if (ku != kr || nsu != nsr || nssu != nssr || kr < 2)
        goto done;
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(src, &in));
    /* old super-row of each first row */
    int32_t *group_at = malloc((size_t)in.nrows * sizeof *group_at);
    int32_t *new_of_old = malloc((size_t)nsr * sizeof *new_of_old);
    for (int32_t i = 0; i < in.nrows; i++)
        group_at[i] = -1;
    for (int32_t g = 0; g < nsu; g++)
        group_at[spu[g]] = g;
    int bad = 0;
    for (int32_t s = 0; s < nsr && bad < 3; s++) {
        const int32_t len = spr[s + 1] - spr[s];
        int32_t a = perm[spr[s]];
        for (int32_t r = 1; r < len; r++)
            a = perm[spr[s] + r] < a ? perm[spr[s] + r] : a;
        const int32_t g = group_at[a];
        bool ok = g >= 0 && spu[g + 1] - spu[g] == len; /* then the same rows: */
        for (int32_t r = 0; ok && r < len; r++)      /* len distinct ones in a .. */
            ok = perm[spr[s] + r] < a + len;
        if (!ok) {
            CHECK_MSG(ok, "%s: super-row %d (rows %d..%d) is no super-row of the unreordered "
                          "build",
                      what, (int)s, (int)spr[s], (int)spr[s + 1] - 1);
            bad++;
        } else {
            new_of_old[g] = s;
        }
    }
    if (!bad && kr == 3) {
        /* super-super-row t of the result: the super-rows of one old one */
        int32_t *ssr_of = malloc((size_t)nsu * sizeof *ssr_of);
        for (int32_t t = 0; t < nssu; t++)
            for (int32_t g = sspu[t]; g < sspu[t + 1]; g++)
                ssr_of[g] = t;
        int32_t *old_of_new = malloc((size_t)nsr * sizeof *old_of_new);
        for (int32_t g = 0; g < nsu; g++)
            old_of_new[new_of_old[g]] = g;
        for (int32_t t = 0; t < nssr && bad < 3; t++) {
            const int32_t t0 = ssr_of[old_of_new[sspr[t]]];
            bool ok = sspr[t + 1] - sspr[t] == sspu[t0 + 1] - sspu[t0];
            for (int32_t s = sspr[t]; ok && s < sspr[t + 1]; s++)
                ok = ssr_of[old_of_new[s]] == t0;
            CHECK_MSG(ok, "%s: super-super-row %d mixes or splits old ones", what, (int)t);
            bad += !ok;
        }
        free(ssr_of);
        free(old_of_new);
    }
    free(group_at);
    free(new_of_old);
done:
    psl_matrix_destroy(&U);
    psl_matrix_destroy(&R);
}

TEST(bandk_keeps_groups_contiguous)
{
    const char *specs[] = {"gen:lap2d:30", "gen:hpcg:6:6:6", "gen:lap3d:9"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, specs[s]));
        if (!A)
            continue;
        psl_matrix_info in;
        CHECK_OK(psl_matrix_get_info(A, &in));
        int32_t *q = shuffle(in.nrows, 99 + s);
        psl_matrix *S = relabel(A, q);
        for (int32_t k = 2; k <= 3; k++) {
            check_bandk_groups(specs[s], A, k, 7, k == 3 ? 3 : 0);
            check_bandk_groups(specs[s], A, k, 0, 0);
            if (S)
                check_bandk_groups("shuffled", S, k, 5, k == 3 ? 4 : 0);
        }
        free(q);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&A);
    }
    for (int32_t n = 50; n <= 3000; n *= 4) {
        psl_matrix *A = random_square(n, 6, (unsigned long long)n);
        for (int32_t k = 2; A && k <= 3; k++)
            check_bandk_groups("random", A, k, 4, k == 3 ? 3 : 0);
        psl_matrix_destroy(&A);
    }
}

/* out = alpha A x + beta y0 in FP64, A's FP64 CSR in the caller's
 * numbering, stored as type t (exact for the integer data of these tests). */
static void reference_spmv(const psl_matrix *A, double alpha, const tvec *x, double beta,
                           const tvec *y0, void *out)
{
    psl_matrix_info in;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK_OK(psl_matrix_get_info(A, &in));
    CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, &v));
    for (int32_t i = 0; i < in.nrows; i++) {
        double s = 0;
        for (int64_t e = rp[i]; e < rp[i + 1]; e++)
            s += v[e] * x->d[ci[e]];
        put_val(out, i, x->t, alpha * s + (beta != 0 ? beta * y0->d[i] : 0));
    }
}

/* n small integers (or NaN) of vec type t. */
static tvec int_vec(int32_t n, psl_scalar t, unsigned long long seed, bool nan)
{
    tvec v = tvec_random(t, n, seed);
    for (int32_t i = 0; i < n; i++)
        tvec_set(&v, i, nan ? NAN : (double)((int)(psl_test_uniform(&seed) * 9) - 4));
    return v;
}

/* (e) psl_spmv on a reordered matrix: the bits of the FP64 product in the
 * caller's numbering for integer data, both kernels, every vector type,
 * alpha/beta (beta = 0 with NaN in y) and value type. */
TEST(spmv_matches_fp64_product)
{
    const char *kernels[] = {"omp", "ref"};
    const double ab[][2] = {{1, 0}, {2, -3}, {-0.5, 0.25}, {1, 1}, {3, 0}};
    psl_matrix *mats[3] = {NULL, NULL, NULL};
    CHECK_OK(psl_generate(&mats[0], "gen:lap2d:70"));
    mats[1] = random_square(20000, 7, 5);
    mats[2] = random_square(37, 3, 6);
    for (int m = 0; m < 3; m++) {
        if (!mats[m])
            continue;
        psl_matrix_info in;
        CHECK_OK(psl_matrix_get_info(mats[m], &in));
        const int32_t n = in.nrows;
        for (int how = PSL_CSRK_REORDER_RCM; how <= PSL_CSRK_REORDER_BANDK; how++)
            for (int32_t k = 1; k <= 3; k++)
                for (int vt = PSL_FP64; vt <= PSL_FP16; vt++) {
                    psl_matrix *R = csrk_convert(mats[m], (psl_csrk_reorder)how, k, 0, 0,
                                            (psl_scalar)vt);
                    if (!R)
                        continue;
                    for (int t = PSL_FP64; t <= PSL_FP16; t++)
                        for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++)
                            for (int kern = 0; kern < 2; kern++) {
                                const psl_scalar st = (psl_scalar)t;
                                tvec x = int_vec(n, st, 11 + c, false);
                                tvec y = int_vec(n, st, 17 + c, ab[c][1] == 0);
                                tvec want = int_vec(n, st, 17 + c, ab[c][1] == 0);
                                reference_spmv(mats[m], ab[c][0], &x, ab[c][1], &y, want.p);
                                CHECK_OK(psl_spmv_named(kernels[kern], ab[c][0], R, x.p,
                                                        ab[c][1], y.p, st));
                                CHECK_MSG(tvec_same_bits(y.p, want.p, st, n),
                                          "matrix %d how %d k %d values %d vec %d alpha %g "
                                          "beta %g kernel %s: not the FP64 product",
                                          m, how, (int)k, vt, t, ab[c][0], ab[c][1],
                                          kernels[kern]);
                                tvec_free(&x);
                                tvec_free(&y);
                                tvec_free(&want);
                            }
                    psl_matrix_destroy(&R);
                }
    }
    /* random real values: within FP64 rounding of the product (the rows
     * are summed in another column order than without reordering) */
    psl_matrix *A = mats[1];
    if (A) {
        psl_matrix_info in;
        CHECK_OK(psl_matrix_get_info(A, &in));
        const int32_t n = in.nrows;
        const int64_t *rp;
        const int32_t *ci;
        const double *v;
        CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, &v));
        double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
        unsigned long long seed = 3;
        for (int32_t i = 0; i < n; i++)
            x[i] = psl_test_uniform(&seed) - 0.5, y[i] = psl_test_uniform(&seed);
        psl_matrix *R = csrk_convert(A, PSL_CSRK_REORDER_BANDK, 3, 0, 0, PSL_FP64);
        double *y0 = malloc((size_t)n * sizeof *y0);
        memcpy(y0, y, (size_t)n * sizeof *y);
        if (R)
            CHECK_OK(psl_spmv(0.7, R, x, -1.3, y, PSL_FP64));
        double worst = 0;
        for (int32_t i = 0; i < n; i++) {
            double s = 0, mag = 0;
            for (int64_t e = rp[i]; e < rp[i + 1]; e++)
                s += v[e] * x[ci[e]], mag += fabs(v[e] * x[ci[e]]);
            double want = 0.7 * s - 1.3 * y0[i];
            double err = fabs(y[i] - want) / (0.7 * mag + 1.3 * fabs(y0[i]) + 1e-300);
            worst = err > worst ? err : worst;
        }
        CHECK_MSG(worst < 64 * 0x1p-52, "relative error %g", worst);
        free(x);
        free(y);
        free(y0);
        psl_matrix_destroy(&R);
    }
    for (int m = 0; m < 3; m++)
        psl_matrix_destroy(&mats[m]);
}

/* (g) a nonsymmetric matrix whose stored product without the permutation
 * would differ: psl_spmv still gives A x in the caller's numbering. */
TEST(permutation_is_applied)
{
    psl_matrix *A = random_square(300, 5, 77);
    if (!A)
        return;
    psl_matrix *R = csrk_convert(A, PSL_CSRK_REORDER_RCM, 3, 4, 2, PSL_FP64);
    if (!R) {
        psl_matrix_destroy(&A);
        return;
    }
    const int32_t n = 300;
    tvec xv = int_vec(n, PSL_FP64, 5, false);
    for (int32_t i = 0; i < n; i++)
        tvec_set(&xv, i, i + 1); /* distinct entries: any misplaced one shows */
    const double *x = xv.d;
    double *y = calloc(n, sizeof *y), *want = calloc(n, sizeof *want);
    double *stored = calloc(n, sizeof *stored);
    reference_spmv(A, 1, &xv, 0, NULL, want);
    CHECK_OK(psl_spmv(1, R, x, 0, y, PSL_FP64));
    CHECK(memcmp(y, want, n * sizeof *y) == 0);
    /* the stored arrays taken as the caller's matrix: another product */
    const int64_t *rp;
    const int32_t *ci;
    const void *vals;
    CHECK_OK(psl_matrix_csrk_view(R, NULL, &rp, &ci, &vals, NULL, NULL, NULL, NULL, NULL));
    for (int32_t i = 0; i < n; i++)
        for (int64_t e = rp[i]; e < rp[i + 1]; e++)
            stored[i] += ((const double *)vals)[e] * x[ci[e]];
    CHECK_MSG(memcmp(stored, want, n * sizeof *y) != 0,
              "the reordering left the matrix as it was: the test shows nothing");
    /* the permutation is not the identity, and not symmetric-only */
    const int32_t *perm;
    CHECK_OK(psl_matrix_csrk_perm_view(R, &perm, NULL));
    int moved = 0;
    for (int32_t i = 0; i < n; i++)
        moved += perm[i] != i;
    CHECK(moved > n / 2);
    tvec_free(&xv);
    free(y);
    free(want);
    free(stored);
    psl_matrix_destroy(&R);
    psl_matrix_destroy(&A);
}

/* The same bits whatever the threads; the estimate is the build's info. */
TEST(threads_and_estimate)
{
    psl_matrix *A = random_square(30000, 6, 8);
    if (!A)
        return;
    const int32_t n = 30000;
    for (int how = PSL_CSRK_REORDER_RCM; how <= PSL_CSRK_REORDER_BANDK; how++)
        for (int32_t k = 1; k <= 3; k++) {
            const psl_convert_options opt =
                csrk_options((psl_csrk_reorder)how, k, 0, 0, PSL_FP64);
            psl_matrix *R = NULL;
            CHECK_OK(psl_matrix_convert(&R, A, &opt));
            if (!R)
                continue;
            psl_matrix_info got, est;
            CHECK_OK(psl_matrix_get_info(R, &got));
            CHECK_OK(psl_matrix_estimate(A, &opt, &est));
            CHECK_MSG(got.csrk_k == est.csrk_k && got.csrk_super_rows == est.csrk_super_rows &&
                          got.csrk_super_super_rows == est.csrk_super_super_rows &&
                          got.bytes == est.bytes && got.csrk_perm_bytes == est.csrk_perm_bytes,
                      "how %d k %d: estimate k %d nsr %d bytes %lld, build k %d nsr %d bytes "
                      "%lld",
                      how, (int)k, (int)est.csrk_k, (int)est.csrk_super_rows,
                      (long long)est.bytes, (int)got.csrk_k, (int)got.csrk_super_rows,
                      (long long)got.bytes);
            double *x = malloc(n * sizeof *x), *y1 = malloc(n * sizeof *y1),
                   *y2 = malloc(n * sizeof *y2);
            unsigned long long seed = 9;
            for (int32_t i = 0; i < n; i++)
                x[i] = psl_test_uniform(&seed), y1[i] = y2[i] = psl_test_uniform(&seed);
            const int threads = omp_get_max_threads();
            omp_set_num_threads(1);
            CHECK_OK(psl_spmv(1.5, R, x, 0.5, y1, PSL_FP64));
            omp_set_num_threads(threads > 1 ? threads : 3);
            CHECK_OK(psl_spmv(1.5, R, x, 0.5, y2, PSL_FP64));
            omp_set_num_threads(threads);
            CHECK(memcmp(y1, y2, n * sizeof *y1) == 0);
            free(x);
            free(y1);
            free(y2);
            psl_matrix_destroy(&R);
        }
    psl_matrix_destroy(&A);
}

/* The binary file keeps the permutation; a damaged one is refused. */
TEST(binary_round_trip)
{
    psl_matrix *A = random_square(500, 5, 21);
    psl_matrix *R = A ? csrk_convert(A, PSL_CSRK_REORDER_BANDK, 3, 5, 3, PSL_FP32) : NULL;
    char path[] = "/tmp/test_csrk_reorder_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
    if (R && fd >= 0) {
        CHECK_OK(psl_matrix_save(R, path));
        psl_matrix *B = NULL;
        CHECK_OK(psl_matrix_load(&B, path));
        if (B) {
            const int32_t *p1, *p2, *i1, *i2;
            CHECK_OK(psl_matrix_csrk_perm_view(R, &p1, &i1));
            CHECK_OK(psl_matrix_csrk_perm_view(B, &p2, &i2));
            CHECK(p2 && i2 && memcmp(p1, p2, 500 * sizeof *p1) == 0 &&
                  memcmp(i1, i2, 500 * sizeof *i1) == 0);
            tvec x = int_vec(500, PSL_FP32, 1, false);
            float *y1 = calloc(500, 4), *y2 = calloc(500, 4);
            CHECK_OK(psl_spmv(1, R, x.p, 0, y1, PSL_FP32));
            CHECK_OK(psl_spmv(1, B, x.p, 0, y2, PSL_FP32));
            CHECK(memcmp(y1, y2, 500 * 4) == 0);
            tvec_free(&x);
            free(y1);
            free(y2);
        }
        psl_matrix_destroy(&B);
        /* a perm entry changed (and its checksum fixed up is not needed:
         * the checksum alone refuses it) */
        FILE *f = fopen(path, "r+b");
        if (f) {
            fseek(f, -8, SEEK_END);
            unsigned char b = 0;
            CHECK(fread(&b, 1, 1, f) == 1);
            fseek(f, -8, SEEK_END);
            b ^= 1;
            fwrite(&b, 1, 1, f);
            fclose(f);
            CHECK_ST(psl_matrix_load(&B, path), PSL_ERR_FILE_CORRUPT);
            CHECK(B == NULL);
        }
    }
    remove(path);
    psl_matrix_destroy(&R);
    psl_matrix_destroy(&A);
}

/* Allocation failures anywhere in the reordered build or SpMV: a clean
 * PSL_ERR_OUT_OF_MEMORY, no handle, nothing leaked (ASan). */
TEST(out_of_memory)
{
    psl_matrix *A = random_square(400, 5, 31);
    if (!A)
        return;
    for (int how = PSL_CSRK_REORDER_RCM; how <= PSL_CSRK_REORDER_BANDK; how++) {
        int ok = 0;
        for (int64_t fail = 0; fail < 80 && !ok; fail++) {
            const psl_convert_options opt =
                csrk_options((psl_csrk_reorder)how, 3, 4, 3, PSL_FP64);
            psl_matrix *R = NULL;
            psl_matrix_info est;
            CHECK_OK(psl_debug_fail_alloc_after(fail));
            psl_status st = psl_matrix_convert(&R, A, &opt);
            psl_status se = psl_matrix_estimate(A, &opt, &est);
            CHECK_OK(psl_debug_fail_alloc_after(-1));
            CHECK_MSG(st == PSL_OK || st == PSL_ERR_OUT_OF_MEMORY, "after %lld: %s",
                      (long long)fail, psl_status_string(st));
            CHECK(se == PSL_OK || se == PSL_ERR_OUT_OF_MEMORY);
            CHECK((st == PSL_OK) == (R != NULL));
            if (R) {
                double x[400], y[400];
                for (int i = 0; i < 400; i++)
                    x[i] = i, y[i] = 1;
                CHECK_OK(psl_debug_fail_alloc_after(0));
                CHECK_ST(psl_spmv(1, R, x, 0, y, PSL_FP64), PSL_ERR_OUT_OF_MEMORY);
                CHECK_OK(psl_debug_fail_alloc_after(-1));
                ok = 1;
            }
            psl_matrix_destroy(&R);
        }
        CHECK(ok);
    }
    psl_matrix_destroy(&A);
}

/* (f) bad input: a clear error, no handle. */
TEST(bad_input)
{
    int32_t ei[3] = {0, 1, 2}, ej[3] = {1, 6, 3};
    psl_matrix *W = csr_of_edges(5, 7, ei, ej, 3, true);
    psl_matrix *A = random_square(10, 3, 1);
    if (!W || !A)
        goto done;
    psl_convert_options opt = csrk_options(PSL_CSRK_REORDER_RCM, 3, 0, 0, PSL_FP64);
    psl_matrix_info info;
    psl_matrix *out = (psl_matrix *)&opt; /* not NULL: the call must reset it */
    /* non-square */
    CHECK_ST(psl_matrix_convert(&out, W, &opt), PSL_ERR_INVALID_VALUE);
    CHECK(out == NULL);
    CHECK(strstr(psl_last_error_message(), "square") != NULL);
    CHECK_ST(psl_matrix_estimate(W, &opt, &info), PSL_ERR_INVALID_VALUE);
    opt.csrk_reorder = PSL_CSRK_REORDER_NONE; /* fine without reordering */
    CHECK_OK(psl_matrix_convert(&out, W, &opt));
    psl_matrix_destroy(&out);
    /* unknown value */
    out = (psl_matrix *)&opt;
    opt.csrk_reorder = (psl_csrk_reorder)7;
    CHECK_ST(psl_matrix_convert(&out, A, &opt), PSL_ERR_INVALID_VALUE);
    CHECK(out == NULL);
    CHECK(strstr(psl_last_error_message(), "csrk_reorder") != NULL);
    opt.csrk_reorder = (psl_csrk_reorder)-1;
    CHECK_ST(psl_matrix_estimate(A, &opt, &info), PSL_ERR_INVALID_VALUE);
    /* with another format */
    const psl_format others[] = {PSL_FORMAT_CSR, PSL_FORMAT_SELL, PSL_FORMAT_PACKSELL};
    for (int f = 0; f < 3; f++) {
        psl_convert_options_init(&opt);
        opt.format = others[f];
        opt.csrk_reorder = PSL_CSRK_REORDER_BANDK;
        out = (psl_matrix *)&opt;
        CHECK_ST(psl_matrix_convert(&out, A, &opt), PSL_ERR_INVALID_VALUE);
        CHECK(out == NULL);
        CHECK(strstr(psl_last_error_message(), "CSR-k") != NULL);
        CHECK_ST(psl_matrix_estimate(A, &opt, &info), PSL_ERR_INVALID_VALUE);
    }
    /* a value FP16 cannot hold is named at the caller's row and column */
    psl_matrix *big = NULL;
    {
        const int64_t rp[4] = {0, 1, 2, 3};
        const int32_t ci[3] = {2, 0, 1};
        const double v[3] = {1, 1e6, 1};
        CHECK_OK(psl_matrix_create_csr(&big, 3, 3, rp, ci, v, PSL_FP64, 0, 0));
    }
    opt = csrk_options(PSL_CSRK_REORDER_RCM, 3, 0, 0, PSL_FP16);
    out = (psl_matrix *)&opt;
    CHECK_ST(psl_matrix_convert(&out, big, &opt), PSL_ERR_CODEC_OVERFLOW);
    CHECK(out == NULL);
    CHECK_MSG(strstr(psl_last_error_message(), "row 1, column 0") != NULL, "message: %s",
              psl_last_error_message());
    psl_matrix_destroy(&big);
    /* a reordered matrix goes to a device where there is one (test_gpu_csrk
     * checks its products); elsewhere the upload fails cleanly */
    psl_matrix *R = csrk_convert(A, PSL_CSRK_REORDER_RCM, 2, 0, 0, PSL_FP64);
    psl_dmatrix *d = NULL;
    if (R) {
        psl_status st = psl_dmatrix_upload(&d, R, NULL);
        CHECK_MSG(st == PSL_OK ? d != NULL
                               : (st == PSL_ERR_NOT_SUPPORTED || st == PSL_ERR_CUDA) && !d,
                  "upload: %s", psl_status_string(st));
        psl_dmatrix_destroy(&d);
    }
    psl_matrix_destroy(&R);
    /* an empty matrix takes any reordering, and has none */
    psl_matrix *E = NULL;
    const int64_t rp0[1] = {0};
    CHECK_OK(psl_matrix_create_csr(&E, 0, 0, rp0, NULL, NULL, PSL_FP64, 0, 0));
    psl_matrix *RE = E ? csrk_convert(E, PSL_CSRK_REORDER_BANDK, 3, 0, 0, PSL_FP64) : NULL;
    const int32_t *perm = (const int32_t *)&opt;
    if (RE) {
        CHECK_OK(psl_matrix_csrk_perm_view(RE, &perm, NULL));
        CHECK(perm == NULL);
    }
    CHECK_ST(psl_matrix_csrk_perm_view(A, &perm, NULL), PSL_ERR_WRONG_FORMAT);
    psl_matrix_destroy(&RE);
    psl_matrix_destroy(&E);
done:
    psl_matrix_destroy(&W);
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"rcm_path_of_six", rcm_path_of_six},
    {"bijection_on_random_matrices", bijection_on_random_matrices},
    {"rcm_on_scrambled_laplacian", rcm_on_scrambled_laplacian},
    {"bandk_keeps_groups_contiguous", bandk_keeps_groups_contiguous},
    {"spmv_matches_fp64_product", spmv_matches_fp64_product},
    {"permutation_is_applied", permutation_is_applied},
    {"threads_and_estimate", threads_and_estimate},
    {"binary_round_trip", binary_round_trip},
    {"out_of_memory", out_of_memory},
    {"bad_input", bad_input},
};
PSL_TEST_MAIN(tests)
