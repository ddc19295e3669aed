/*
 * sdainv_build_bench.c -- build time and size of the SD-AINV factors
 * (psl_sdainv_build, public API only).
 *
 *   sdainv_build_bench SOURCE [--scale] [--tol T] [--acc A] [--sym S] [--reps N]
 *       SOURCE: a matrix file or "gen:..." spec; --scale applies the
 *       symmetric diagonal scaling first, as the solver does; T, A, S: the
 *       options (defaults 0.1, 1.0, -1); N repetitions (default 3).
 * Prints each build's seconds (wall, and the process's CPU seconds: the
 * fairer figure on a loaded machine), the minima, nnz of A and of both
 * factors, and the process's peak resident memory; a final line of JSON
 * repeats it.
 * PSL_TRACE=1 adds the library's split (setup, left-looking, assembly).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "packsell.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    return 0.0;
#endif
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *what)
{
    fprintf(stderr, "sdainv_build_bench: %s: %s\n", what, psl_last_error_message());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sdainv_build_bench SOURCE [--scale] [--tol T] [--acc A] "
                        "[--sym S] [--reps N]\n");
        return 2;
    }
    psl_sdainv_options o;
    psl_sdainv_options_init(&o);
    int scale = 0, reps = 3;
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "--scale"))
            scale = 1;
        else if (!strcmp(argv[a], "--tol") && a + 1 < argc)
            o.drop_tol = atof(argv[++a]);
        else if (!strcmp(argv[a], "--acc") && a + 1 < argc)
            o.acc = atof(argv[++a]);
        else if (!strcmp(argv[a], "--sym") && a + 1 < argc)
            o.symmetric = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc)
            reps = atoi(argv[++a]);
        else {
            fprintf(stderr, "sdainv_build_bench: unknown argument '%s'\n", argv[a]);
            return 2;
        }
    }
    psl_matrix *A = NULL;
    if (psl_matrix_open(&A, argv[1]) != PSL_OK)
        return fail(argv[1]);
    if (scale) {
        psl_matrix *S = NULL;
        if (psl_matrix_scale_symmetric(&S, A, NULL) != PSL_OK)
            return fail("scale");
        psl_matrix_destroy(&A);
        A = S;
    }
    psl_matrix_info ia, iw, iz;
    psl_matrix_get_info(A, &ia);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    double best = 1e300, best_cpu = 1e300;
    for (int r = 0; r < reps; r++) {
        psl_matrix *Wt = NULL, *ZD = NULL;
        double t0 = now(), c0 = cpu_now();
        if (psl_sdainv_build(A, &o, &Wt, &ZD) != PSL_OK)
            return fail("psl_sdainv_build");
        double t = now() - t0, c = cpu_now() - c0;
        printf("build %d: %.6f s (CPU %.6f s)\n", r, t, c);
        if (t < best)
            best = t;
        if (c < best_cpu)
            best_cpu = c;
        psl_matrix_get_info(Wt, &iw);
        psl_matrix_get_info(ZD, &iz);
        psl_matrix_destroy(&Wt);
        psl_matrix_destroy(&ZD);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s%s: n %d, nnz(A) %lld, tol %g, acc %g, symmetric %d, %d threads\n", argv[1],
           scale ? " (scaled)" : "", ia.nrows, (long long)ia.nnz, o.drop_tol, o.acc, o.symmetric,
           threads);
    printf("best %.3f s (CPU %.3f s); nnz(Wt) %lld, nnz(ZDinv) %lld; peak RSS %.1f MB\n", best,
           best_cpu, (long long)iw.nnz, (long long)iz.nnz, ru.ru_maxrss / 1024.0);
    printf("{\"source\": \"%s\", \"scaled\": %d, \"n\": %d, \"nnz\": %lld, \"tol\": %g, "
           "\"acc\": %g, \"symmetric\": %d, \"threads\": %d, \"best_s\": %.6f, "
           "\"best_cpu_s\": %.6f, "
           "\"nnz_wt\": %lld, \"nnz_zdinv\": %lld, \"peak_rss_mb\": %.1f}\n",
           argv[1], scale, ia.nrows, (long long)ia.nnz, o.drop_tol, o.acc, o.symmetric, threads,
           best, best_cpu, (long long)iw.nnz, (long long)iz.nnz, ru.ru_maxrss / 1024.0);
    psl_matrix_destroy(&A);
    return 0;
}
