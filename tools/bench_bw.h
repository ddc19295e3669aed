/*
 * bench_bw.h -- host facts for "packsell bench --device cpu": the read
 * bandwidth (a STREAM-like read kernel), the bytes a CPU kernel must move,
 * and the CPU model. No dependency on the rest of the command (the tests
 * compile bench_bw.c alone).
 */
#ifndef PSL_BENCH_BW_H
#define PSL_BENCH_BW_H

#include <stddef.h>
#include <stdint.h>

/* The read-bandwidth buffer: n doubles, a[i] = i % 1024, first touched by
 * the OpenMP threads that read it (static schedule, as the sum). */
typedef struct bench_read_buf {
    double *a;
    int64_t n;
} bench_read_buf;

/* Bytes of the read buffer by default: 4 x the last-level cache (sysfs,
 * else sysconf), at least 256 MiB, at most 4 GiB. */
int64_t bench_read_default_bytes(void);

/* Allocate and initialise a buffer of about bytes (a multiple of 64 bytes,
 * at least 64). Returns 0, or -1 when out of memory (b->a NULL). */
int bench_read_alloc(bench_read_buf *b, int64_t bytes);
void bench_read_free(bench_read_buf *b);

/* The read kernel: sum of a[0..n) with the current OpenMP threads (static
 * schedule, 8 independent partial sums per thread so that the adds do not
 * limit the loads). Exact for the buffer of bench_read_alloc, whose sum is
 * an integer below 2^53. */
double bench_read_sum(const double *a, int64_t n);

/* The exact sum of bench_read_alloc's values for n entries. */
double bench_read_expected_sum(int64_t n);

/* Time one pass of the read kernel over b: seconds, or < 0 when the sum is
 * wrong (the result is checked, so the reads cannot be optimised away). */
double bench_read_pass(const bench_read_buf *b);

/* Bytes an SpMV must move: the matrix's own bytes, x once, y once (twice
 * when beta != 0: read and written). */
int64_t bench_traffic_bytes(int64_t matrix_bytes, size_t vec_size, int64_t nrows, int64_t ncols,
                            int beta_nonzero);

/* GB/s of bytes in seconds (0 if seconds <= 0), and its share of a
 * reference bandwidth in % (< 0 when the reference is not > 0). */
double bench_gbs(double bytes, double seconds);
double bench_pct_of(double gbs, double ref_gbs);

/* "model name" from /proc/cpuinfo into buf ("unknown" if not found). */
void bench_cpu_model(char *buf, size_t len);

#endif
