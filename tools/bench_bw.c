/*
 * bench_bw.c -- the host's read bandwidth for "packsell bench --device cpu"
 * (a STREAM-like read kernel: the sum of an array several times the
 * last-level cache, with the same OpenMP threads as the SpMV kernels), the
 * bytes an SpMV must move, and the CPU model.
 */
#define _GNU_SOURCE /* sysconf(_SC_LEVEL3_CACHE_SIZE) */
#include "bench_bw.h"

#include "packsell.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define READ_MIN_BYTES (256LL << 20)
#define READ_MAX_BYTES (4LL << 30)
#define READ_LLC_FACTOR 4
#define READ_VALUE_PERIOD 1024

/* Size of the last-level cache of cpu0 from sysfs (the highest cache
 * level listed), else sysconf (which under some hypervisors reports the
 * whole host's L3); -1 if unknown. */
static int64_t llc_bytes(void)
{
    int64_t best = -1;
    int best_level = -1;
    for (int idx = 0; idx < 16; idx++) {
        char path[128], text[64];
        int level = -1;
        long long size = -1;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        if (fscanf(f, "%d", &level) != 1)
            level = -1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        if ((f = fopen(path, "r")) != NULL) {
            if (fgets(text, sizeof text, f)) {
                char unit = 0;
                if (sscanf(text, "%lld%c", &size, &unit) >= 1)
                    size *= unit == 'K' ? 1024LL : unit == 'M' ? 1024LL * 1024 : 1;
            }
            fclose(f);
        }
        if (level > best_level && size > 0) {
            best_level = level;
            best = size;
        }
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (best <= 0) {
        long c = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (c <= 0)
            c = sysconf(_SC_LEVEL2_CACHE_SIZE);
        best = c > 0 ? c : -1;
    }
#endif
    return best;
}

int64_t bench_read_default_bytes(void)
{
    int64_t llc = llc_bytes();
    int64_t bytes = llc > 0 ? READ_LLC_FACTOR * llc : READ_MIN_BYTES;
    if (bytes < READ_MIN_BYTES)
        bytes = READ_MIN_BYTES;
    if (bytes > READ_MAX_BYTES)
        bytes = READ_MAX_BYTES;
    return bytes;
}

static double now_seconds(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

int bench_read_alloc(bench_read_buf *b, int64_t bytes)
{
    int64_t n = bytes / 64 * 8;
    if (n < 8)
        n = 8;
    b->n = 0;
    b->a = NULL;
    /* allocated as the library allocates a matrix's arrays (huge pages where
     * the option and the OS give them), so that the ceiling is measured on
     * the pages the kernels read */
    double *a = psl_host_alloc((size_t)n * sizeof(double));
    if (!a)
        return -1;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        a[i] = (double)(i % READ_VALUE_PERIOD);
    b->a = a;
    b->n = n;
    return 0;
}

void bench_read_free(bench_read_buf *b)
{
    psl_host_free(b->a);
    b->a = NULL;
    b->n = 0;
}

double bench_read_sum(const double *a, int64_t n)
{
    double total = 0.0;
    int64_t n8 = n / 8 * 8;
#pragma omp parallel reduction(+ : total)
    {
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < n8; i += 8) {
            s0 += a[i];
            s1 += a[i + 1];
            s2 += a[i + 2];
            s3 += a[i + 3];
            s4 += a[i + 4];
            s5 += a[i + 5];
            s6 += a[i + 6];
            s7 += a[i + 7];
        }
        total += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    }
    for (int64_t i = n8; i < n; i++)
        total += a[i];
    return total;
}

double bench_read_expected_sum(int64_t n)
{
    const int64_t p = READ_VALUE_PERIOD;
    int64_t full = n / p, rest = n % p;
    return (double)full * (double)(p * (p - 1) / 2) + (double)(rest * (rest - 1) / 2);
}

double bench_read_pass(const bench_read_buf *b)
{
    double t0 = now_seconds();
    double s = bench_read_sum(b->a, b->n);
    double t = now_seconds() - t0;
    return s == bench_read_expected_sum(b->n) ? t : -1.0;
}

int64_t bench_traffic_bytes(int64_t matrix_bytes, size_t vec_size, int64_t nrows, int64_t ncols,
                            int beta_nonzero)
{
    int64_t vs = (int64_t)vec_size;
    return matrix_bytes + vs * ncols + vs * nrows * (beta_nonzero ? 2 : 1);
}

double bench_gbs(double bytes, double seconds)
{
    return seconds > 0 ? bytes / seconds * 1e-9 : 0.0;
}

double bench_pct_of(double gbs, double ref_gbs)
{
    return ref_gbs > 0 ? 100.0 * gbs / ref_gbs : -1.0;
}

void bench_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            break;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        snprintf(buf, len, "%s", colon);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}
