/*
 * test_bench_bw.c -- the host side of "packsell bench --device cpu"
 * (tools/bench_bw.c): the read kernel's sum against a plain loop, with 1 and
 * 2 threads and lengths that are not multiples of its unrolling; a timed
 * pass that notices a wrong sum; the default buffer size; the bytes an SpMV
 * must move and the GB/s and % derived from them.
 */
#include "bench_bw.h"
#include "harness.h"

#include <omp.h>
#include <stdint.h>

static double plain_sum(const double *a, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

TEST(read_sum_matches_a_plain_loop)
{
    bench_read_buf b;
    CHECK(bench_read_alloc(&b, 1 << 20) == 0);
    CHECK(b.a != NULL && b.n == (1 << 20) / 8);
    if (!b.a)
        return;
    for (int i = 0; i < 4; i++)
        CHECK(b.a[1024 + i] == (double)i && b.a[1023] == 1023.0);
    const int64_t lens[] = {0, 1, 7, 8, 9, 1000, 1023, 1024, 1025, 77777, b.n};
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            double want = plain_sum(b.a, lens[i]);
            CHECK_MSG(bench_read_sum(b.a, lens[i]) == want, "n %lld, %d threads",
                      (long long)lens[i], threads);
            CHECK(bench_read_expected_sum(lens[i]) == want);
        }
    }
    /* values that are not the buffer's: still the plain sum (exact integers) */
    for (int64_t i = 0; i < 1001; i++)
        b.a[i] = (double)(3 * i - 500);
    CHECK(bench_read_sum(b.a, 1001) == plain_sum(b.a, 1001));
    bench_read_free(&b);
    CHECK(b.a == NULL && b.n == 0);
}

TEST(read_pass_checks_its_sum)
{
    bench_read_buf b;
    CHECK(bench_read_alloc(&b, 4 << 20) == 0);
    if (!b.a)
        return;
    double t = bench_read_pass(&b);
    CHECK_MSG(t > 0, "pass %g s", t);
    b.a[b.n / 2] += 1.0; /* a sum that comes out wrong is no timing */
    CHECK(bench_read_pass(&b) < 0);
    bench_read_free(&b);
    CHECK(bench_read_alloc(&b, 3) == 0 && b.n == 8); /* at least one cache line */
    bench_read_free(&b);
}

TEST(default_buffer_size)
{
    int64_t bytes = bench_read_default_bytes();
    CHECK_MSG(bytes >= (256LL << 20) && bytes <= (4LL << 30), "%lld", (long long)bytes);
}

TEST(traffic_and_rates)
{
    /* 5x5 CSR FP64 with 13 entries: 13*8 + 13*4 + 6*8 = 204 bytes */
    CHECK(bench_traffic_bytes(204, 8, 5, 5, 0) == 204 + 40 + 40);
    CHECK(bench_traffic_bytes(204, 8, 5, 5, 1) == 204 + 40 + 80); /* y read and written */
    CHECK(bench_traffic_bytes(1000, 2, 10, 30, 0) == 1000 + 60 + 20); /* x has ncols */
    CHECK(bench_traffic_bytes(0, 4, 0, 0, 1) == 0);
    CHECK(bench_gbs(3e9, 1.5) == 2.0 && bench_gbs(1e9, 0) == 0.0);
    CHECK(bench_pct_of(5.0, 20.0) == 25.0 && bench_pct_of(5.0, 0.0) < 0 &&
          bench_pct_of(5.0, -1.0) < 0);
}

TEST(cpu_model_is_text)
{
    char buf[256];
    bench_cpu_model(buf, sizeof buf);
    CHECK(buf[0] != '\0' && !strchr(buf, '\n'));
}

static const psl_test_case tests[] = {
    {"read_sum_matches_a_plain_loop", read_sum_matches_a_plain_loop},
    {"read_pass_checks_its_sum", read_pass_checks_its_sum},
    {"default_buffer_size", default_buffer_size},
    {"traffic_and_rates", traffic_and_rates},
    {"cpu_model_is_text", cpu_model_is_text},
};

PSL_TEST_MAIN(tests)
