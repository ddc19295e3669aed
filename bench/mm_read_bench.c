/*
 * mm_read_bench.c -- throughput of the Matrix Market reader (public API
 * only), and a generator of large synthetic Matrix Market files to read.
 *
 *   mm_read_bench --make NNZ FILE [--digits D]
 *       write an n x n "coordinate real general" file (n = NNZ/10, 10
 *       random columns per row, rows in order, values uniform in (-1,1)
 *       printed with %.<D>g, default 17); FILE ending in .gz is gzipped.
 *   mm_read_bench [--reps N] FILE
 *       read FILE N times (default 5) with psl_mm_read; print size, nnz,
 *       seconds of each repetition, the minimum and median, and MB/s of
 *       the file's bytes (for .gz: of the compressed bytes, and of the text).
 * A final line of JSON repeats the results for scripts.
 */
#include "packsell.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define ROWS_PER_BLOCK 16384
#define PER_ROW 10

/* Lines of rows [r0, r1) into buf; returns the bytes. Row r holds PER_ROW
 * entries, the last row the remainder of nnz. */
static size_t format_rows(char *buf, int64_t r0, int64_t r1, int64_t n, int64_t nnz, int digits)
{
    char *p = buf;
    for (int64_t r = r0; r < r1; r++) {
        uint64_t s = (uint64_t)r * 0x2545f4914f6cdd1dULL + 12345u;
        int64_t k = r + 1 < n ? PER_ROW : nnz - (n - 1) * PER_ROW;
        for (int64_t e = 0; e < k; e++) {
            int64_t c = (int64_t)(mix(&s) % (uint64_t)n);
            double v = (double)(mix(&s) >> 11) * 0x1.0p-52 - 1.0;
            p += sprintf(p, "%lld %lld %.*g\n", (long long)r + 1, (long long)c + 1, digits, v);
        }
    }
    return (size_t)(p - buf);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int make_file(const char *path, int64_t nnz, int digits)
{
    int64_t n = nnz / PER_ROW > 0 ? nnz / PER_ROW : 1;
    if (n > INT32_MAX) {
        fprintf(stderr, "too many nonzeros for int32 rows\n");
        return 1;
    }
    int gz = ends_with(path, ".gz");
    FILE *f = NULL;
    gzFile g = NULL;
    if (gz)
        g = gzopen(path, "wb1");
    else
        f = fopen(path, "wb");
    if (!f && !g) {
        perror(path);
        return 1;
    }
    double t0 = now();
    char head[128];
    int hl = snprintf(head, sizeof head,
                      "%%%%MatrixMarket matrix coordinate real general\n%% synthetic, "
                      "mm_read_bench\n%lld %lld %lld\n", (long long)n, (long long)n,
                      (long long)nnz);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    int64_t nblocks = (n + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    int64_t batch = 2 * (int64_t)threads;
    int64_t max_block_entries = (int64_t)ROWS_PER_BLOCK * PER_ROW + nnz % PER_ROW + PER_ROW;
    size_t cap = (size_t)max_block_entries * 64;
    char *bufs = malloc(cap * (size_t)batch);
    size_t *used = malloc(sizeof *used * (size_t)batch);
    int ok = bufs && used;
    ok = ok && (gz ? gzwrite(g, head, (unsigned)hl) == hl : fwrite(head, 1, (size_t)hl, f) ==
                                                                   (size_t)hl);
    uint64_t bytes = (uint64_t)hl;
    for (int64_t b0 = 0; ok && b0 < nblocks; b0 += batch) {
        int64_t nb = nblocks - b0 < batch ? nblocks - b0 : batch;
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t i = 0; i < nb; i++) {
            int64_t r0 = (b0 + i) * ROWS_PER_BLOCK;
            int64_t r1 = r0 + ROWS_PER_BLOCK < n ? r0 + ROWS_PER_BLOCK : n;
            used[i] = format_rows(bufs + (size_t)i * cap, r0, r1, n, nnz, digits);
        }
        for (int64_t i = 0; ok && i < nb; i++) {
            const char *b = bufs + (size_t)i * cap;
            if (gz) {
                for (size_t off = 0; ok && off < used[i]; off += 1u << 30) {
                    unsigned len = (unsigned)(used[i] - off < (1u << 30) ? used[i] - off
                                                                         : (1u << 30));
                    ok = gzwrite(g, b + off, len) == (int)len;
                }
            } else {
                ok = fwrite(b, 1, used[i], f) == used[i];
            }
            bytes += used[i];
        }
    }
    if (gz)
        ok = (gzclose(g) == Z_OK) && ok;
    else
        ok = (fclose(f) == 0) && ok;
    free(bufs);
    free(used);
    if (!ok) {
        fprintf(stderr, "writing %s failed\n", path);
        return 1;
    }
    double t = now() - t0;
    printf("wrote %s: %lld x %lld, %lld entries, %.1f MB of text in %.2f s\n", path,
           (long long)n, (long long)n, (long long)nnz, (double)bytes / 1e6, t);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static long long file_bytes(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long long n = ftell(f);
    fclose(f);
    return n;
}

static int bench_read(const char *path, int reps)
{
    long long bytes = file_bytes(path);
    if (bytes < 0) {
        perror(path);
        return 1;
    }
    double *t = malloc(sizeof *t * (size_t)reps);
    psl_matrix_info info;
    memset(&info, 0, sizeof info);
    for (int r = 0; r < reps; r++) {
        psl_matrix *A = NULL;
        double t0 = now();
        psl_status st = psl_mm_read(&A, path);
        t[r] = now() - t0;
        if (st != PSL_OK) {
            fprintf(stderr, "psl_mm_read: %s\n", psl_last_error_message());
            free(t);
            return 1;
        }
        psl_matrix_get_info(A, &info);
        psl_matrix_destroy(&A);
        printf("rep %d: %.3f s\n", r + 1, t[r]);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    double tmin = t[0], tmed = t[reps / 2];
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    printf("%s: %lld bytes, %d x %d, nnz %lld, %d threads: min %.3f s, median %.3f s, "
           "%.1f MB/s (min), %.1f MB/s (median)\n",
           path, bytes, (int)info.nrows, (int)info.ncols, (long long)info.nnz, threads, tmin,
           tmed, bytes / tmin / 1e6, bytes / tmed / 1e6);
    printf("{\"file\": \"%s\", \"bytes\": %lld, \"nrows\": %d, \"ncols\": %d, \"nnz\": %lld, "
           "\"threads\": %d, \"reps\": %d, \"min_s\": %.6f, \"median_s\": %.6f, "
           "\"mb_per_s\": %.2f}\n",
           path, bytes, (int)info.nrows, (int)info.ncols, (long long)info.nnz, threads, reps,
           tmin, tmed, bytes / tmin / 1e6);
    free(t);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: mm_read_bench --make NNZ FILE [--digits D]\n"
                    "       mm_read_bench [--reps N] FILE\n");
}

int main(int argc, char **argv)
{
    long long make = -1;
    int reps = 5, digits = 17;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--make") && i + 1 < argc)
            make = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--digits") && i + 1 < argc)
            digits = atoi(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1]) {
            usage();
            return 2;
        } else
            path = argv[i];
    }
    if (!path || reps < 1 || digits < 1 || digits > 17 || (make != -1 && make < 1)) {
        usage();
        return 2;
    }
    if (make > 0)
        return make_file(path, make, digits);
    return bench_read(path, reps);
}
