/*
 * test_dist_gpu.c -- the distributed layer on GPUs (packsell_mpi.h, "GPUs"):
 * psl_dist_dspmv bitwise equal to the host path psl_dist_spmv on
 * integer-valued data (HPCG generated per rank, a random matrix with ranks
 * owning no rows; CSR, SELL and PackSELL FP16 blocks; FP64, FP32 and FP16
 * vectors; beta 0 and 3) over every transport the run can use (HOST always,
 * CUDA_AWARE when the MPI reports it, NCCL when built and each rank has a
 * GPU of its own, else its NOT_SUPPORTED message); psl_dist_device_sum
 * against a rank-order sum written here; the timings' counters; a second
 * upload replacing the first; bad arguments. Device vectors come from a
 * psl_exec on the matrix's device (the library's CUDA runtime only). Without
 * a CUDA device (or CUDA) it checks that the GPU entries fail cleanly,
 * prints SKIP and exits 77. Run by mpiexec on 1 and 2 ranks.
 */
#include "dist_fixture.h"

#include <stdint.h>

static int g_devices; /* CUDA devices of this node */

static const char *tname(psl_dist_transport t)
{
    switch (t) {
    case PSL_DIST_TRANSPORT_HOST: return "HOST";
    case PSL_DIST_TRANSPORT_CUDA_AWARE: return "CUDA_AWARE";
    case PSL_DIST_TRANSPORT_NCCL: return "NCCL";
    default: return "AUTO";
    }
}

/* Storage by number: 0 CSR FP64, 1 SELL FP64 (C 32, sorted), 2 PackSELL FP16
 * (C 32, sorted), 3 SELL FP64 C 8 unsorted. */
static const char *fname[4] = {"CSR", "SELL", "PackSELL-FP16", "SELL-C8"};
static void format_opts(int which, psl_convert_options *o)
{
    psl_convert_options_init(o);
    switch (which) {
    case 1: o->format = PSL_FORMAT_SELL; o->slice_height = 32; o->sigma = 64; break;
    case 2: o->format = PSL_FORMAT_PACKSELL; o->slice_height = 32; o->sigma = 64; break;
    case 3: o->format = PSL_FORMAT_SELL; o->slice_height = 8; o->sigma = 0; break;
    default: break;
    }
}

/* n doubles as a host array of type t (FP16 by the library's codec). */
static void *typed(const double *v, int32_t n, psl_scalar t)
{
    size_t es = t == PSL_FP64 ? 8 : t == PSL_FP32 ? 4 : 2;
    unsigned char *p = malloc(((size_t)n + 1) * es);
    for (int32_t i = 0; i < n; i++) {
        if (t == PSL_FP64)
            ((double *)p)[i] = v[i];
        else if (t == PSL_FP32)
            ((float *)p)[i] = (float)v[i];
        else if (isnan(v[i]))
            ((uint16_t *)p)[i] = 0x7e00u;
        else {
            uint32_t b = 0;
            psl_codec_encode((psl_codec){5, 10}, PSL_OVERFLOW_ERROR, v[i], &b);
            ((uint16_t *)p)[i] = (uint16_t)b;
        }
    }
    return p;
}

static double typed_get(const void *p, int32_t i, psl_scalar t)
{
    if (t == PSL_FP64)
        return ((const double *)p)[i];
    if (t == PSL_FP32)
        return (double)((const float *)p)[i];
    return psl_codec_decode((psl_codec){5, 10}, ((const uint16_t *)p)[i]);
}

/* One product compared: psl_dist_dspmv on device vectors against
 * psl_dist_spmv on the same host vectors, bitwise. Returns 1 when equal. */
static int compare_product(psl_dist_matrix *A, psl_exec *ex, psl_scalar vt, double alpha,
                           double beta, const char *what)
{
    psl_dist_info info;
    psl_dist_matrix_get_info(A, &info);
    int32_t n = info.nrows;
    double *x = malloc(((size_t)n + 1) * sizeof *x), *y0 = malloc(((size_t)n + 1) * sizeof *y0);
    double *got = malloc(((size_t)n + 1) * sizeof *got);
    for (int32_t i = 0; i < n; i++) {
        int64_t g = info.first_row + i;
        x[i] = (double)((g * 7 + 3) % 9) - 4.0;
        y0[i] = beta != 0.0 ? (double)((g * 5 + 1) % 7) - 3.0 : NAN; /* beta 0: y not read */
    }
    void *hx = typed(x, n, vt), *hy = typed(y0, n, vt);
    CHECK_OK(psl_dist_spmv(alpha, A, hx, beta, hy, vt));
    psl_vec *dx = NULL, *dy = NULL;
    void *px = NULL, *py = NULL;
    CHECK_OK(psl_vec_create(&dx, ex, n, vt));
    CHECK_OK(psl_vec_create(&dy, ex, n, vt));
    CHECK_OK(psl_vec_set(dx, x));
    CHECK_OK(psl_vec_set(dy, y0));
    psl_vec_info(dx, NULL, NULL, &px);
    psl_vec_info(dy, NULL, NULL, &py);
    CHECK_OK(psl_dist_dspmv(alpha, A, px, beta, py, vt, NULL));
    CHECK_OK(psl_vec_get(dy, got));
    int bad = 0;
    double nz = 0.0;
    for (int32_t i = 0; i < n && !bad; i++) {
        double want = typed_get(hy, i, vt);
        nz += fabs(want);
        if (memcmp(&got[i], &want, sizeof want) != 0) {
            CHECK_MSG(0, "np %d rank %d %s %s alpha %g beta %g: local row %d: device %.17g, "
                      "host %.17g", g_size, g_rank, what, psl_scalar_name(vt), alpha, beta,
                      (int)i, got[i], want);
            bad = 1;
        }
    }
    CHECK_MSG(n == 0 || nz > 0.0, "%s: the host product is all zeros", what); /* the data bite */
    psl_vec_destroy(&dx);
    psl_vec_destroy(&dy);
    free(hx);
    free(hy);
    free(x);
    free(y0);
    free(got);
    return !bad;
}

/* The node's ranks outnumber its GPUs: NCCL must refuse. */
static int gpus_shared(void)
{
    MPI_Comm node;
    int nsize = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    int mine = nsize > g_devices, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* Upload A with transport t: 1 when usable; 0 (after checking the refusal
 * and its message) when this run cannot have it. */
static int upload_or_refused(psl_dist_matrix *A, psl_dist_transport t)
{
    psl_status st = psl_dist_matrix_upload(A, -1, t, NULL);
    CHECK(all_equal(st, st == PSL_OK ? PSL_OK : PSL_ERR_NOT_SUPPORTED));
    int dev = -2;
    psl_dist_transport got = PSL_DIST_TRANSPORT_AUTO;
    CHECK_OK(psl_dist_matrix_device(A, &dev, &got));
    if (st == PSL_OK) {
        CHECK_MSG(got == t && dev >= 0 && dev < g_devices, "transport %s, device %d", tname(got),
                  dev);
        if (t == PSL_DIST_TRANSPORT_NCCL)
            CHECK_MSG(!gpus_shared(), "NCCL accepted with ranks sharing a GPU");
        return 1;
    }
    CHECK_MSG(st == PSL_ERR_NOT_SUPPORTED, "upload %s: %s", tname(t), psl_last_error_message());
    CHECK(dev == -1 && got == PSL_DIST_TRANSPORT_AUTO);
    const char *msg = psl_last_error_message();
    if (t == PSL_DIST_TRANSPORT_HOST)
        CHECK_MSG(0, "the HOST transport refused: %s", msg);
    else if (t == PSL_DIST_TRANSPORT_NCCL) {
        int built_without = strstr(msg, "without NCCL") != NULL;
        int shared_msg = strstr(msg, "one GPU per rank") != NULL;
        CHECK_MSG(built_without || (shared_msg && gpus_shared()), "NCCL refused: %s", msg);
        printf("  NCCL not used here: %s\n", msg);
    } else {
        CHECK_MSG(strstr(msg, "CUDA awareness") != NULL, "CUDA_AWARE refused: %s", msg);
        printf("  CUDA-aware MPI not used here: %s\n", msg);
    }
    return 0;
}

static const psl_dist_transport g_transports[3] = {
    PSL_DIST_TRANSPORT_HOST, PSL_DIST_TRANSPORT_CUDA_AWARE, PSL_DIST_TRANSPORT_NCCL};

/* Every product of A on every transport this run has; csr: a block is CSR
 * (cuSPARSE on the device: FP64 vectors only). */
static void compare_on_transports(psl_dist_matrix *A, const char *what, int csr)
{
    for (int ti = 0; ti < 3; ti++) {
        if (!upload_or_refused(A, g_transports[ti]))
            continue;
        int dev = -1;
        psl_dist_matrix_device(A, &dev, NULL);
        psl_exec *ex = NULL;
        CHECK_OK(psl_exec_create_cuda(&ex, dev, NULL));
        if (!ex)
            continue;
        const psl_scalar vts[3] = {PSL_FP64, PSL_FP32, PSL_FP16};
        int ok = 1, cases = 0;
        for (int v = 0; v < (csr ? 1 : 3); v++)
            for (int b = 0; b < 2; b++, cases++)
                ok &= compare_product(A, ex, vts[v], b ? -2.0 : 1.0, b ? 3.0 : 0.0, what);
        printf("  %s over %s: %d products (%s vectors, beta 0 and 3) %s the host's bits\n",
               what, tname(g_transports[ti]), cases, csr ? "FP64" : "FP64/FP32/FP16",
               ok ? "equal" : "DIFFER from");
        psl_exec_destroy(&ex);
    }
}

/* HPCG generated per rank (16^3 rows a rank), blocks in each storage. */
TEST(dspmv_hpcg_every_format)
{
    const int pairs[4][2] = {{0, 0}, {1, 1}, {2, 2}, {2, 3}};
    for (int p = 0; p < 4; p++) {
        psl_convert_options od, oo;
        format_opts(pairs[p][0], &od);
        format_opts(pairs[p][1], &oo);
        psl_dist_matrix *A = NULL;
        CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 16, 16, 16, 0.0, &od, &oo));
        if (!A)
            continue;
        char what[96];
        snprintf(what, sizeof what, "HPCG 16^3/rank A_d %s A_o %s", fname[pairs[p][0]],
                 fname[pairs[p][1]]);
        compare_on_transports(A, what, pairs[p][0] == 0 || pairs[p][1] == 0);
        psl_dist_matrix_destroy(&A);
    }
    /* HPGMP (nonsymmetric, values -1.5 and -0.5: exact in every type here) */
    psl_convert_options o;
    format_opts(2, &o);
    o.codec = (psl_codec){8, 14}; /* E8M14 holds -1.5, -0.5 and 26 */
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 8, 12, 10, 0.5, &o, &o));
    if (A)
        compare_on_transports(A, "HPGMP 8x12x10/rank PackSELL-E8M14", 0);
    psl_dist_matrix_destroy(&A);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

/* A random 53 x 53 integer matrix (every rank builds it, keeps its rows):
 * the odd ranks own no rows. */
TEST(dspmv_ranks_without_rows)
{
    const int64_t n = 53;
    const int per = 5;
    int64_t *ci = malloc((size_t)(n * per) * sizeof *ci);
    double *v = malloc((size_t)(n * per) * sizeof *v);
    uint64_t seed = 17;
    for (int64_t k = 0; k < n * per; k++) {
        ci[k] = (int64_t)(lcg(&seed) % (uint64_t)n);
        v[k] = (double)((int)(lcg(&seed) % 9) - 4);
    }
    int owners = (g_size + 1) / 2, before = (g_rank + 1) / 2;
    int64_t first;
    int32_t nrows = 0;
    if (g_rank % 2 == 0) {
        first = n * (g_rank / 2) / owners;
        nrows = (int32_t)(n * (g_rank / 2 + 1) / owners - first);
    } else
        first = before < owners ? n * before / owners : n;
    int64_t *rp = malloc(((size_t)nrows + 1) * sizeof *rp);
    for (int32_t i = 0; i <= nrows; i++)
        rp[i] = (int64_t)i * per;
    for (int f = 0; f < 3; f++) {
        psl_convert_options o;
        format_opts(f, &o);
        o.slice_height = 4;
        o.sigma = f ? 8 : 0;
        psl_dist_matrix *A = NULL;
        CHECK_OK(psl_dist_matrix_create_csr(&A, MPI_COMM_WORLD, n, first, nrows, rp,
                                            ci + first * per, v + first * per, &o, &o));
        if (!A)
            continue;
        char what[96];
        snprintf(what, sizeof what, "random 53x53, odd ranks without rows, %s", fname[f]);
        compare_on_transports(A, what, f == 0);
        psl_dist_matrix_destroy(&A);
    }
    free(rp);
    free(ci);
    free(v);
}

/* psl_dist_device_sum against the rank-order sum of every rank's values
 * (bitwise through the host; NCCL: within the rounding of 2 ranks' sums). */
TEST(device_sum_matches_host_sum)
{
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 4, 4, 4, 0.0, NULL, NULL));
    if (!A)
        return;
    enum { K = 5 };
    double mine[K], *all = malloc((size_t)g_size * K * sizeof *all), want[K];
    for (int j = 0; j < K; j++)
        mine[j] = 0.1 * (g_rank + 1) + 1.0 / (j + 3);
    MPI_Allgather(mine, K, MPI_DOUBLE, all, K, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int j = 0; j < K; j++) {
        want[j] = 0.0;
        for (int r = 0; r < g_size; r++)
            want[j] += all[(size_t)r * K + j];
    }
    for (int ti = 0; ti < 3; ti++) {
        if (!upload_or_refused(A, g_transports[ti]))
            continue;
        int dev = -1;
        psl_dist_matrix_device(A, &dev, NULL);
        psl_exec *ex = NULL;
        psl_vec *v = NULL;
        void *pv = NULL;
        CHECK_OK(psl_exec_create_cuda(&ex, dev, NULL));
        CHECK_OK(psl_vec_create(&v, ex, K, PSL_FP64));
        CHECK_OK(psl_vec_set(v, mine));
        psl_vec_info(v, NULL, NULL, &pv);
        CHECK_OK(psl_dist_matrix_set_timing(A, 1));
        CHECK_OK(psl_dist_matrix_timings(A, NULL, 1));
        CHECK_OK(psl_dist_device_sum(A, pv, K, NULL));
        double got[K];
        CHECK_OK(psl_vec_get(v, got));
        int nccl = g_transports[ti] == PSL_DIST_TRANSPORT_NCCL, ok = 1;
        for (int j = 0; j < K; j++)
            ok &= nccl ? fabs(got[j] - want[j]) <= 4 * 0x1p-52 * fabs(want[j])
                       : memcmp(&got[j], &want[j], sizeof got[j]) == 0;
        CHECK_MSG(ok, "%s: device sum %.17g, host %.17g", tname(g_transports[ti]), got[0],
                  want[0]);
        /* bad arguments: the same error on every rank, the values untouched */
        CHECK(all_equal(psl_dist_device_sum(A, pv, 0, NULL), PSL_ERR_INVALID_VALUE));
        CHECK(all_equal(psl_dist_device_sum(A, NULL, K, NULL), PSL_ERR_NULL_POINTER));
        double again[K];
        CHECK_OK(psl_vec_get(v, again));
        CHECK(memcmp(again, got, sizeof got) == 0);
        psl_dist_timings t;
        CHECK_OK(psl_dist_matrix_timings(A, &t, 1));
        CHECK_MSG(t.reductions == 3 && t.reduce_s >= 0.0 && t.spmvs == 0,
                  "timings: %lld reductions, %lld spmvs", (long long)t.reductions,
                  (long long)t.spmvs);
        CHECK_OK(psl_dist_matrix_set_timing(A, 0));
        printf("  device sum of %d doubles over %s: %s the host's rank-order sum\n", K,
               tname(g_transports[ti]), ok ? (nccl ? "within 4 ulp of" : "equal to") : "NOT");
        psl_vec_destroy(&v);
        psl_exec_destroy(&ex);
    }
    free(all);
    psl_dist_matrix_destroy(&A);
}

/* Timed products: the counters, a replaced copy, AUTO's agreed choice. */
TEST(timings_replace_and_auto)
{
    psl_convert_options o;
    format_opts(2, &o);
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 8, 8, 8, 0.0, &o, &o));
    if (!A)
        return;
    CHECK_OK(psl_dist_matrix_upload(A, -1, PSL_DIST_TRANSPORT_HOST, NULL));
    CHECK_OK(psl_dist_matrix_upload(A, -1, PSL_DIST_TRANSPORT_AUTO, NULL)); /* replaces it */
    int dev = -1;
    psl_dist_transport t = PSL_DIST_TRANSPORT_AUTO;
    CHECK_OK(psl_dist_matrix_device(A, &dev, &t));
    CHECK(t != PSL_DIST_TRANSPORT_AUTO);
    int ts[2] = {(int)t, -(int)t}, tr[2];
    MPI_Allreduce(ts, tr, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK_MSG(tr[0] == -tr[1], "AUTO chose different transports on different ranks");
    if (t == PSL_DIST_TRANSPORT_NCCL)
        CHECK(!gpus_shared());
    printf("  AUTO chose %s on device %d\n", tname(t), dev);
    psl_exec *ex = NULL;
    CHECK_OK(psl_exec_create_cuda(&ex, dev, NULL));
    CHECK_OK(psl_dist_matrix_set_timing(A, 1));
    CHECK_OK(psl_dist_matrix_timings(A, NULL, 1));
    CHECK(compare_product(A, ex, PSL_FP16, 1.0, 0.0, "HPCG 8^3 timed"));
    CHECK(compare_product(A, ex, PSL_FP64, 1.0, 0.0, "HPCG 8^3 timed"));
    psl_dist_timings tm;
    CHECK_OK(psl_dist_matrix_timings(A, &tm, 0));
    /* the host products count too (psl_dist_spmv): 2 of each */
    CHECK_MSG(tm.spmvs == 4 && tm.pack_s >= 0 && tm.local_s > 0 && tm.wait_s >= 0 &&
                  tm.remote_s >= 0,
              "spmvs %lld pack %g local %g wait %g remote %g", (long long)tm.spmvs, tm.pack_s,
              tm.local_s, tm.wait_s, tm.remote_s);
    psl_exec_destroy(&ex);
    psl_dist_matrix_destroy(&A);
}

/* Bad arguments: no device copy, a bad device or transport (every rank the
 * same error), a bad vector type on one rank (the others finish). */
TEST(bad_arguments)
{
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 4, 4, 4, 0.0, NULL, NULL));
    if (!A)
        return;
    double dummy[1] = {0};
    CHECK(all_equal(psl_dist_dspmv(1.0, A, dummy, 0.0, dummy, PSL_FP64, NULL),
                    PSL_ERR_INVALID_VALUE));
    CHECK(strstr(psl_last_error_message(), "no device copy") != NULL);
    CHECK(all_equal(psl_dist_device_sum(A, dummy, 1, NULL), PSL_ERR_INVALID_VALUE));
    CHECK_ST(psl_dist_dspmv(1.0, NULL, dummy, 0.0, dummy, PSL_FP64, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_dist_matrix_upload(NULL, -1, PSL_DIST_TRANSPORT_HOST, NULL),
             PSL_ERR_NULL_POINTER);
    CHECK(all_equal(psl_dist_matrix_upload(A, g_rank == g_size - 1 ? g_devices : 0,
                                           PSL_DIST_TRANSPORT_HOST, NULL),
                    PSL_ERR_INVALID_VALUE));
    CHECK(all_equal(psl_dist_matrix_upload(A, -1, (psl_dist_transport)9, NULL),
                    PSL_ERR_INVALID_VALUE));
    int dev = 0;
    CHECK_OK(psl_dist_matrix_device(A, &dev, NULL));
    CHECK(dev == -1);
    /* one rank with a bad vector type: its error alone, the others' products done */
    CHECK_OK(psl_dist_matrix_upload(A, -1, PSL_DIST_TRANSPORT_HOST, NULL));
    psl_dist_matrix_device(A, &dev, NULL);
    psl_exec *ex = NULL;
    psl_vec *x = NULL, *y = NULL;
    void *px = NULL, *py = NULL;
    CHECK_OK(psl_exec_create_cuda(&ex, dev, NULL));
    CHECK_OK(psl_vec_create(&x, ex, 64, PSL_FP64));
    CHECK_OK(psl_vec_create(&y, ex, 64, PSL_FP64));
    psl_vec_info(x, NULL, NULL, &px);
    psl_vec_info(y, NULL, NULL, &py);
    int last = g_rank == g_size - 1;
    psl_status st = psl_dist_dspmv(1.0, A, px, 0.0, py, last ? (psl_scalar)77 : PSL_FP64, NULL);
    CHECK_ST(st, last ? PSL_ERR_INVALID_VALUE : PSL_OK);
    st = psl_dist_dspmv(1.0, A, last ? NULL : px, 0.0, py, PSL_FP64, NULL);
    CHECK_ST(st, last ? PSL_ERR_NULL_POINTER : PSL_OK);
    CHECK_OK(psl_dist_dspmv(1.0, A, px, 0.0, py, PSL_FP64, NULL)); /* nobody left waiting */
    psl_vec_destroy(&x);
    psl_vec_destroy(&y);
    psl_exec_destroy(&ex);
    psl_dist_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"dspmv_hpcg_every_format", dspmv_hpcg_every_format},
    {"dspmv_ranks_without_rows", dspmv_ranks_without_rows},
    {"device_sum_matches_host_sum", device_sum_matches_host_sum},
    {"timings_replace_and_auto", timings_replace_and_auto},
    {"bad_arguments", bad_arguments},
};

PSL_TEST_MAIN_AS(psl_dist_gpu_tests, tests)

/* Without a device: the GPU entries fail cleanly, with the same status on
 * every rank, and leave A without a device copy. */
static void without_device(psl_status count_status)
{
    psl_dist_matrix *A = NULL;
    CHECK_OK(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 4, 4, 4, 0.0, NULL, NULL));
    if (!A)
        return;
    int built = count_status != PSL_ERR_NOT_SUPPORTED;
    psl_status st = psl_dist_matrix_upload(A, -1, PSL_DIST_TRANSPORT_HOST, NULL);
    CHECK(all_equal(st, built ? PSL_ERR_CUDA : PSL_ERR_NOT_SUPPORTED));
    CHECK_MSG(strstr(psl_last_error_message(), built ? "no CUDA device" : "without CUDA"),
              "%s", psl_last_error_message());
    int dev = 5;
    psl_dist_transport t = PSL_DIST_TRANSPORT_NCCL;
    CHECK_OK(psl_dist_matrix_device(A, &dev, &t));
    CHECK(dev == -1 && t == PSL_DIST_TRANSPORT_AUTO);
    double v[2] = {1.0, 2.0};
    int want = built ? PSL_ERR_INVALID_VALUE : PSL_ERR_NOT_SUPPORTED;
    CHECK(all_equal(psl_dist_dspmv(1.0, A, v, 0.0, v, PSL_FP64, NULL), want));
    CHECK(all_equal(psl_dist_device_sum(A, v, 2, NULL), want));
    CHECK(v[0] == 1.0 && v[1] == 2.0);
    CHECK_ST(psl_dist_dspmv(1.0, NULL, v, 0.0, v, PSL_FP64, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_dist_device_sum(NULL, v, 1, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_dist_matrix_device(NULL, &dev, &t), PSL_ERR_NULL_POINTER);
    if (built) /* argument checks come first */
        CHECK(all_equal(psl_dist_matrix_upload(A, -2, PSL_DIST_TRANSPORT_HOST, NULL),
                        PSL_ERR_INVALID_VALUE));
    psl_dist_matrix_destroy(&A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (g_rank > 0 && !freopen("/dev/null", "w", stdout))
        return 1;
    psl_status st = psl_cuda_device_count(&g_devices);
    int have = st == PSL_OK && g_devices > 0, all_have = 0;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int rc;
    if (!all_have) {
        psl_t_failures_in_test = 0;
        without_device(st);
        printf("SKIP: no CUDA device on every rank (np %d): %d checks of the device-less "
               "behaviour, %s\n",
               g_size, psl_t_checks, psl_t_failures_in_test ? "FAILED" : "ok");
        rc = psl_t_failures_in_test ? 1 : PSL_TEST_SKIPPED;
    } else {
        printf("np %d, %d CUDA device(s) on rank 0's node\n", g_size, g_devices);
        rc = psl_dist_gpu_tests(argc, argv);
    }
    MPI_Finalize();
    return rc;
}
