/*
 * spmv_min_time.c -- the fastest of many runs of the CPU SpMV, per kernel:
 * on a machine shared with other work the median of `packsell bench` moves
 * with the load, the minimum much less (a run that had the cores to itself).
 *
 * Usage: spmv_min_time MATRIX [--reps N] [--rounds R] [--cpu-time] KERNEL...
 *   KERNEL: FORMAT-VALUES[:VECTORS] as `packsell bench --kernels` takes it
 *   (csr-fp32, sell-fp16, packsell-e8m21:fp32, ...; VECTORS defaults to
 *   fp64 for fp64 values, fp16 for 16-bit values, else fp32). C = 32,
 *   sigma = 256, implicit permutation, alpha = 1, beta = 0; threads from
 *   OMP_NUM_THREADS. The kernels take turns, R rounds (default 5) of N
 *   timed runs (default 50) each, after 3 warm-up runs per kernel.
 * --cpu-time: time a run by the process's CPU time divided by the threads
 * instead of the wall clock (OMP_WAIT_POLICY=passive: waiting threads take
 * none), so time the scheduler gave to other processes does not count;
 * under a load above the cores, a wall-clock run longer than the
 * scheduler's slice is never undisturbed, and slower code loses more.
 * Prints per kernel: the minimum and the 10th percentile of all runs in
 * microseconds and the GB/s of the minimum on the format's own bytes plus
 * x and y (as `packsell bench` counts them).
 */
#include "packsell.h"
#include "internal.h"
#include "codec/half.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_KERNELS 16

typedef struct kernel {
    const char *name;
    psl_matrix *A;
    psl_scalar vt;
    double bytes;
    double *t; /* every timed run, seconds */
    int n;
} kernel;

/* Seconds of wall clock, or of CPU time per thread (the process's CPU time
 * over nthreads). */
static double now(int cpu_time, int nthreads)
{
    if (!cpu_time)
        return omp_get_wtime();
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9) / nthreads;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Convert src for "FORMAT-VALUES[:VECTORS]"; 0 on success. */
static int make_kernel(const psl_matrix *src, const char *spec, kernel *k)
{
    char buf[64], *vec, *dash;
    snprintf(buf, sizeof buf, "%s", spec);
    vec = strchr(buf, ':');
    if (vec)
        *vec++ = '\0';
    dash = strchr(buf, '-');
    if (!dash)
        return 1;
    *dash = '\0';
    const char *vals = dash + 1;
    psl_convert_options o;
    psl_convert_options_init(&o);
    if (psl_format_parse(buf, &o.format) != PSL_OK)
        return 1;
    if (o.format == PSL_FORMAT_PACKSELL) {
        if (psl_codec_parse(vals, &o.codec) != PSL_OK)
            return 1;
        o.value_type = PSL_FP32;
    } else if (psl_scalar_parse(vals, &o.value_type) != PSL_OK) {
        return 1;
    }
    int bits = o.format == PSL_FORMAT_PACKSELL ? 1 + o.codec.exp_bits + o.codec.man_bits
                                               : 8 * (int)psl_scalar_size(o.value_type);
    k->vt = bits == 64 ? PSL_FP64 : bits == 16 ? PSL_FP16 : PSL_FP32;
    if (vec && psl_scalar_parse(vec, &k->vt) != PSL_OK)
        return 1;
    if (psl_matrix_convert(&k->A, src, &o) != PSL_OK)
        return 1;
    psl_matrix_info info;
    psl_matrix_get_info(k->A, &info);
    k->bytes = (double)info.bytes +
               (double)psl_scalar_size(k->vt) * ((double)info.nrows + (double)info.ncols);
    k->name = spec;
    return 0;
}

int main(int argc, char **argv)
{
    int reps = 50, rounds = 5, nk = 0, cpu_time = 0;
    const char *matrix = NULL, *specs[MAX_KERNELS];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cpu-time"))
            cpu_time = 1;
        else if (!matrix)
            matrix = argv[i];
        else if (nk < MAX_KERNELS)
            specs[nk++] = argv[i];
    }
    if (!matrix || nk == 0 || reps < 1 || rounds < 1) {
        fprintf(stderr, "usage: spmv_min_time MATRIX [--reps N] [--rounds R] [--cpu-time] KERNEL...\n");
        return 2;
    }
    psl_matrix *src = NULL;
    if (psl_matrix_open(&src, matrix) != PSL_OK) {
        fprintf(stderr, "cannot open %s\n", matrix);
        return 1;
    }
    psl_matrix_info si;
    psl_matrix_get_info(src, &si);
    kernel ks[MAX_KERNELS];
    memset(ks, 0, sizeof ks);
    void *x = calloc((size_t)si.ncols + 1, sizeof(double));
    void *y = calloc((size_t)si.nrows + 1, sizeof(double));
    for (int i = 0; i < nk; i++) {
        if (make_kernel(src, specs[i], &ks[i])) {
            fprintf(stderr, "bad kernel or conversion failed: %s\n", specs[i]);
            return 1;
        }
        ks[i].t = malloc(sizeof(double) * (size_t)reps * (size_t)rounds);
    }
    /* x: uniform in [-1, 1) rounded to FP16, in each kernel's vector type below */
    double *xd = malloc(sizeof(double) * ((size_t)si.ncols + 1));
    unsigned long long s = 1;
    for (int32_t c = 0; c < si.ncols; c++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float u = (float)((double)(s >> 11) * 0x1p-52 - 1.0);
        xd[c] = (double)psl_half_to_float(psl_float_to_half(u));
    }
    const int nt = omp_get_max_threads();
    printf("matrix %s: %d x %d, %lld nonzeros; %d threads, %d rounds x %d runs, %s\n", matrix,
           (int)si.nrows, (int)si.ncols, (long long)si.nnz, nt, rounds, reps,
           cpu_time ? "CPU time per thread" : "wall clock");
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < nk; i++) {
            kernel *k = &ks[i];
            for (int32_t c = 0; c < si.ncols; c++) {
                if (k->vt == PSL_FP64)
                    ((double *)x)[c] = xd[c];
                else if (k->vt == PSL_FP32)
                    ((float *)x)[c] = (float)xd[c];
                else
                    ((uint16_t *)x)[c] = psl_float_to_half((float)xd[c]);
            }
            for (int w = 0; w < (r == 0 ? 3 : 1); w++)
                psl_spmv(1.0, k->A, x, 0.0, y, k->vt);
            for (int j = 0; j < reps; j++) {
                double t0 = now(cpu_time, nt);
                psl_spmv(1.0, k->A, x, 0.0, y, k->vt);
                k->t[k->n++] = now(cpu_time, nt) - t0;
            }
        }
    printf("%-20s %12s %12s %10s\n", "kernel", "min_us", "p10_us", "GB/s@min");
    for (int i = 0; i < nk; i++) {
        kernel *k = &ks[i];
        qsort(k->t, (size_t)k->n, sizeof(double), cmp_double);
        printf("%-20s %12.1f %12.1f %10.2f\n", k->name, k->t[0] * 1e6, k->t[k->n / 10] * 1e6,
               k->bytes / k->t[0] * 1e-9);
        free(k->t);
        psl_matrix_destroy(&k->A);
    }
    psl_matrix_destroy(&src);
    free(x);
    free(y);
    free(xd);
    return 0;
}
