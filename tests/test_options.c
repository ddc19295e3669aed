/*
 * test_options.c -- the option layer (src/core/options.c, psl_option_* in
 * packsell.h): every option's set/get round trip over its documented
 * values, invalid values and unknown names rejected with messages naming
 * the option and the accepted values, NULL pointers, environment values
 * parsed and validated (through the tests-only psl_opt_reset, which makes
 * the library read the environment again), an invalid environment value
 * failing the calls that read it until the program sets the option, the
 * PSL_CPU_ISA cap selecting the SIMD kernels test_spmv_isa checks, the
 * allocation-failure debug call, and PSL_HUGEPAGES (large blocks aligned to
 * the huge page size and advised for huge pages, as /proc/self/smaps shows).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, dup, fileno, mkstemp */
#include "packsell.h"
#include "core/internal.h"
#include "core/options.h"
#include "harness.h"
#include "kernels/cpu/cpu_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const names[] = {"PSL_KERNEL",
                                    "PSL_CPU_ISA",
                                    "PSL_TRACE",
                                    "PSL_CUDA_STREAM_NA",
                                    "PSL_CUDA_WORD_PREFETCH",
                                    "PSL_CUDA_TINY_UNIFORM",
                                    "PSL_CUDA_WIDE_CLUSTER",
                                    "PSL_CUDA_CSRK_SR_ROWS",
                                    "PSL_CUDA_CSRK_SSR_SRS", "PSL_CSRK_FIT", "PSL_SOLVER_FUSE",
                                    "PSL_SOLVER_LOOKAHEAD", "PSL_MEMORY_CHECK",
                                    "PSL_MEMORY_LIMIT", "PSL_SOLVER_DEFER_READS",
                                    "PSL_DIST_MPI_CUDA_AWARE", "PSL_SOLVER_GRAPH",
                                    "PSL_HUGEPAGES"};
#define NNAMES ((int)(sizeof names / sizeof names[0]))

/* No option variable in the environment but name=value (name NULL: none);
 * the library forgets its settings and reads the environment again. */
static void environment(const char *name, const char *value)
{
    for (int i = 0; i < NNAMES; i++)
        unsetenv(names[i]);
    if (name)
        setenv(name, value, 1);
    psl_opt_reset();
}

/* The current value of option name ("" and a failed check on error). */
static const char *get(const char *name)
{
    static char buf[PSL_OPTION_VALUE_MAX];
    buf[0] = '\0';
    CHECK_OK(psl_option_get(name, buf, sizeof buf));
    return buf;
}

static int has(const char *msg, const char *part) { return strstr(msg, part) != NULL; }

TEST(every_option_round_trips)
{
    environment(NULL, NULL);
    CHECK(psl_option_count() == NNAMES);
    int nvalues = 0;
    for (int i = 0; i < psl_option_count(); i++) {
        psl_option_desc d;
        CHECK_OK(psl_option_describe(i, &d));
        CHECK(strcmp(d.name, names[i]) == 0);
        CHECK(d.values && d.default_value && d.doc && strlen(d.doc) > 20);
        CHECK_MSG(strcmp(get(d.name), d.default_value) == 0, "%s: default %s, get %s", d.name,
                  d.default_value, get(d.name));
        if (strcmp(d.name, "PSL_MEMORY_LIMIT") == 0)
            continue; /* a byte count: memory_limit_parsed_and_applied */
        if (strcmp(d.name, "PSL_CSRK_FIT") == 0)
            continue; /* a path: csrk_fit_path_option */
        /* the documented values: "a|b|c" or a range "lo..hi" (every value of a
         * short range; the ends, their neighbours and the middle of a wide one) */
        char vals[64][PSL_OPTION_VALUE_MAX];
        int n = 0, lo = 0, hi = 0;
        if (sscanf(d.values, "%d..%d", &lo, &hi) == 2) {
            CHECK(lo <= hi);
            if (hi - lo < 64) {
                for (int v = lo; v <= hi; v++)
                    snprintf(vals[n++], sizeof vals[0], "%d", v);
            } else {
                const int pick[] = {lo, lo + 1, lo + (hi - lo) / 2, hi - 1, hi};
                for (int q = 0; q < 5; q++)
                    snprintf(vals[n++], sizeof vals[0], "%d", pick[q]);
            }
        } else {
            const char *p = d.values;
            while (*p && n < 64) {
                size_t k = strcspn(p, "|");
                CHECK(k > 0 && k < sizeof vals[0]);
                snprintf(vals[n++], sizeof vals[0], "%.*s", (int)k, p);
                p += k + (p[k] == '|');
            }
        }
        CHECK(n >= 2);
        int found_default = 0;
        for (int k = 0; k < n; k++) {
            CHECK_OK(psl_option_set(d.name, vals[k]));
            CHECK_MSG(strcmp(get(d.name), vals[k]) == 0, "%s = %s, get %s", d.name, vals[k],
                      get(d.name));
            found_default += strcmp(vals[k], d.default_value) == 0;
            nvalues++;
        }
        CHECK_MSG(found_default == 1, "%s: default %s not among %s", d.name, d.default_value,
                  d.values);
        if (lo < hi) { /* just outside the range */
            char out[16];
            snprintf(out, sizeof out, "%d", lo - 1);
            CHECK_ST(psl_option_set(d.name, out), PSL_ERR_INVALID_VALUE);
            snprintf(out, sizeof out, "%d", hi + 1);
            CHECK_ST(psl_option_set(d.name, out), PSL_ERR_INVALID_VALUE);
        }
        /* "" sets the default, NULL goes back to the (empty) environment */
        CHECK_OK(psl_option_set(d.name, vals[n - 1]));
        CHECK_OK(psl_option_set(d.name, ""));
        CHECK(strcmp(get(d.name), d.default_value) == 0);
        CHECK_OK(psl_option_set(d.name, vals[0]));
        CHECK_OK(psl_option_set(d.name, NULL));
        CHECK(strcmp(get(d.name), d.default_value) == 0);
    }
    CHECK(nvalues == 3 + 4 + 2 + 3 + 3 + 2 + 16 + 5 + 5 + 2 + 2 + 2 + 2 + 3 + 2 + 2);
    /* the setting beats the environment; NULL gives the environment back */
    environment("PSL_CPU_ISA", "generic");
    CHECK(strcmp(get("PSL_CPU_ISA"), "generic") == 0);
    CHECK_OK(psl_option_set("PSL_CPU_ISA", "avx2"));
    CHECK(strcmp(get("PSL_CPU_ISA"), "avx2") == 0);
    CHECK_OK(psl_option_set("PSL_CPU_ISA", NULL));
    CHECK(strcmp(get("PSL_CPU_ISA"), "generic") == 0);
    environment(NULL, NULL);
}

TEST(invalid_values_rejected)
{
    environment(NULL, NULL);
    static const struct {
        const char *name, *value, *accepted;
    } bad[] = {
        {"PSL_CPU_ISA", "bogus", "auto|generic|avx2|avx512"},
        {"PSL_CPU_ISA", "AVX2", "auto|generic|avx2|avx512"},
        {"PSL_CPU_ISA", "avx2 ", "auto|generic|avx2|avx512"},
        {"PSL_KERNEL", "avx9000", "auto|omp|ref"},
        {"PSL_KERNEL", "OMP", "auto|omp|ref"},
        {"PSL_TRACE", "yes", "0|1"},
        {"PSL_TRACE", "2", "0|1"},
        {"PSL_CUDA_STREAM_NA", "yes", "auto|0|1"},
        {"PSL_CUDA_WORD_PREFETCH", "-1", "auto|0|1"},
        {"PSL_CUDA_TINY_UNIFORM", "auto", "0|1"},
        {"PSL_CUDA_WIDE_CLUSTER", "3x", "1..16"},
        {"PSL_CUDA_WIDE_CLUSTER", "0", "1..16"},
        {"PSL_CUDA_WIDE_CLUSTER", "17", "1..16"},
        {"PSL_CUDA_WIDE_CLUSTER", " 4", "1..16"},
        {"PSL_CUDA_WIDE_CLUSTER", "+4", "1..16"},
        {"PSL_CUDA_WIDE_CLUSTER", "99999999999999999999", "1..16"},
        {"PSL_CUDA_CSRK_SR_ROWS", "100001", "0..100000"},
        {"PSL_CUDA_CSRK_SR_ROWS", "-1", "0..100000"},
        {"PSL_CUDA_CSRK_SSR_SRS", "1e3", "0..100000"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char before[PSL_OPTION_VALUE_MAX];
        snprintf(before, sizeof before, "%s", get(bad[i].name));
        CHECK_ST(psl_option_set(bad[i].name, bad[i].value), PSL_ERR_INVALID_VALUE);
        const char *msg = psl_last_error_message();
        CHECK_MSG(has(msg, bad[i].name) && has(msg, bad[i].value) && has(msg, bad[i].accepted),
                  "%s=%s: %s", bad[i].name, bad[i].value, msg);
        CHECK_MSG(strcmp(get(bad[i].name), before) == 0, "%s changed by a rejected value",
                  bad[i].name);
    }
    /* a long value is cut in the message, which still names the values */
    char lng[300];
    memset(lng, 'x', sizeof lng - 1);
    lng[sizeof lng - 1] = '\0';
    CHECK_ST(psl_option_set("PSL_KERNEL", lng), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "...") && has(psl_last_error_message(), "auto|omp|ref"));
}

TEST(unknown_names_and_null_pointers)
{
    environment(NULL, NULL);
    char buf[PSL_OPTION_VALUE_MAX] = "untouched";
    const char *unknown[] = {"PSL_NOPE", "psl_kernel", "", "PSL_KERNEL ", "KERNEL"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CHECK_ST(psl_option_set(unknown[i], "1"), PSL_ERR_INVALID_VALUE);
        const char *msg = psl_last_error_message();
        CHECK_MSG(has(msg, "unknown option") && has(msg, "PSL_KERNEL") &&
                      has(msg, "PSL_CUDA_WIDE_CLUSTER"),
                  "%s", msg);
        CHECK_ST(psl_option_get(unknown[i], buf, sizeof buf), PSL_ERR_INVALID_VALUE);
        CHECK_ST(psl_option_set(unknown[i], NULL), PSL_ERR_INVALID_VALUE);
    }
    CHECK(has(psl_last_error_message(), "'KERNEL'"));
    CHECK_ST(psl_option_set(NULL, "1"), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_option_set(NULL, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_option_get(NULL, buf, sizeof buf), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_option_get("PSL_KERNEL", NULL, 16), PSL_ERR_NULL_POINTER);
    /* a buffer too small is an error and stays untouched */
    CHECK_ST(psl_option_get("PSL_KERNEL", buf, 4), PSL_ERR_INVALID_VALUE); /* "auto" needs 5 */
    CHECK(has(psl_last_error_message(), "needs 5"));
    CHECK_ST(psl_option_get("PSL_KERNEL", buf, 0), PSL_ERR_INVALID_VALUE);
    CHECK(strcmp(buf, "untouched") == 0);
    CHECK_OK(psl_option_get("PSL_KERNEL", buf, 5));
    CHECK(strcmp(buf, "auto") == 0);
    psl_option_desc d = {NULL, NULL, NULL, NULL};
    CHECK_ST(psl_option_describe(0, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_option_describe(-1, &d), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_option_describe(psl_option_count(), &d), PSL_ERR_INVALID_VALUE);
    CHECK(d.name == NULL);
}

/* A small SELL matrix and vectors for the psl_spmv checks. */
typedef struct {
    psl_matrix *A;
    double x[64], y[64];
} spmv_case;

static spmv_case spmv_setup(void)
{
    spmv_case c = {NULL, {0}, {0}};
    psl_matrix *src = NULL;
    CHECK_OK(psl_generate(&src, "lap2d:8"));
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = PSL_FORMAT_SELL;
    opt.slice_height = 8;
    opt.sigma = 8;
    CHECK_OK(psl_matrix_convert(&c.A, src, &opt));
    psl_matrix_destroy(&src);
    for (int i = 0; i < 64; i++) {
        c.x[i] = 1.0 + i;
        c.y[i] = -3.0;
    }
    return c;
}

/* psl_spmv on c fails with an error naming name, value and accepted, and
 * leaves y untouched; the kernel name is "none". */
static void spmv_fails(spmv_case *c, const char *name, const char *value, const char *accepted)
{
    CHECK_ST(psl_spmv(1.0, c->A, c->x, 1.0, c->y, PSL_FP64), PSL_ERR_INVALID_VALUE);
    const char *msg = psl_last_error_message();
    CHECK_MSG(has(msg, name) && has(msg, value) && has(msg, accepted) && has(msg, "environment"),
              "%s", msg);
    CHECK(strcmp(psl_spmv_kernel_name(c->A, PSL_FP64), "none") == 0);
    for (int i = 0; i < 64; i++)
        CHECK(c->y[i] == -3.0);
}

TEST(environment_parsed_and_validated)
{
    /* valid values, as they are spelled in the environment */
    static const struct {
        const char *name, *env, *get;
    } good[] = {
        {"PSL_KERNEL", "ref", "ref"},          {"PSL_KERNEL", "", "auto"},
        {"PSL_CPU_ISA", "generic", "generic"}, {"PSL_CPU_ISA", "auto", "auto"},
        {"PSL_TRACE", "0", "0"},               {"PSL_CUDA_STREAM_NA", "1", "1"},
        {"PSL_CUDA_WORD_PREFETCH", "0", "0"},  {"PSL_CUDA_TINY_UNIFORM", "0", "0"},
        {"PSL_CUDA_WIDE_CLUSTER", "4", "4"},   {"PSL_CUDA_WIDE_CLUSTER", "012", "12"},
        {"PSL_CUDA_WIDE_CLUSTER", "", "16"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        environment(good[i].name, good[i].env);
        CHECK_MSG(strcmp(get(good[i].name), good[i].get) == 0, "%s=%s: get %s", good[i].name,
                  good[i].env, get(good[i].name));
    }
    /* read once: a later change of the environment is not seen */
    environment("PSL_KERNEL", "ref");
    CHECK(strcmp(get("PSL_KERNEL"), "ref") == 0);
    setenv("PSL_KERNEL", "omp", 1);
    CHECK(strcmp(get("PSL_KERNEL"), "ref") == 0);

    spmv_case c = spmv_setup();
    /* the CPU options psl_spmv reads: it fails, and keeps failing, until the
     * program sets the option; NULL gives the invalid environment back */
    static const struct {
        const char *name, *value, *accepted, *fix;
    } bad[] = {
        {"PSL_KERNEL", "avx9000", "auto|omp|ref", "ref"},
        {"PSL_CPU_ISA", "bogus", "auto|generic|avx2|avx512", "generic"},
        {"PSL_TRACE", "yes", "0|1", "0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        environment(bad[i].name, bad[i].value);
        spmv_fails(&c, bad[i].name, bad[i].value, bad[i].accepted);
        spmv_fails(&c, bad[i].name, bad[i].value, bad[i].accepted);
        char buf[PSL_OPTION_VALUE_MAX] = "untouched";
        CHECK_ST(psl_option_get(bad[i].name, buf, sizeof buf), PSL_ERR_INVALID_VALUE);
        CHECK(has(psl_last_error_message(), bad[i].accepted));
        CHECK(strcmp(buf, "untouched") == 0);
        CHECK_OK(psl_option_set(bad[i].name, bad[i].fix));
        CHECK_OK(psl_spmv(1.0, c.A, c.x, 1.0, c.y, PSL_FP64));
        CHECK(c.y[0] != -3.0);
        for (int k = 0; k < 64; k++)
            c.y[k] = -3.0;
        CHECK_OK(psl_option_set(bad[i].name, NULL));
        spmv_fails(&c, bad[i].name, bad[i].value, bad[i].accepted);
    }

    /* the GPU options: psl_spmv does not read them, psl_dmatrix_upload
     * fails on them (in a CUDA build, before any device call) */
    static const struct {
        const char *name, *value, *accepted;
    } gpu_bad[] = {
        {"PSL_CUDA_STREAM_NA", "yes", "auto|0|1"},
        {"PSL_CUDA_WORD_PREFETCH", "on", "auto|0|1"},
        {"PSL_CUDA_TINY_UNIFORM", "off", "0|1"},
        {"PSL_CUDA_WIDE_CLUSTER", "3x", "1..16"},
    };
    int ndev = 0;
    int cuda_built = psl_cuda_device_count(&ndev) != PSL_ERR_NOT_SUPPORTED;
    for (size_t i = 0; i < sizeof gpu_bad / sizeof gpu_bad[0]; i++) {
        environment(gpu_bad[i].name, gpu_bad[i].value);
        CHECK_OK(psl_spmv(1.0, c.A, c.x, 0.0, c.y, PSL_FP64));
        psl_dmatrix *dA = (psl_dmatrix *)&c; /* must come back NULL */
        psl_status st = psl_dmatrix_upload(&dA, c.A, NULL);
        CHECK(dA == NULL);
        if (cuda_built) {
            CHECK_ST(st, PSL_ERR_INVALID_VALUE);
            const char *msg = psl_last_error_message();
            CHECK_MSG(has(msg, gpu_bad[i].name) && has(msg, gpu_bad[i].value) &&
                          has(msg, gpu_bad[i].accepted),
                      "%s", msg);
        } else {
            CHECK_ST(st, PSL_ERR_NOT_SUPPORTED);
        }
        char buf[PSL_OPTION_VALUE_MAX];
        CHECK_ST(psl_option_get(gpu_bad[i].name, buf, sizeof buf), PSL_ERR_INVALID_VALUE);
        CHECK(has(psl_last_error_message(), gpu_bad[i].accepted));
    }
    psl_matrix_destroy(&c.A);
    environment(NULL, NULL);
}

/* Run psl_spmv on A with stderr captured into out (len bytes). */
static void traced_spmv(const psl_matrix *A, const double *x, double *y, char *out, size_t len)
{
    char path[] = "/tmp/psl_options_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(fileno(stderr));
    dup2(fd, fileno(stderr));
    CHECK_OK(psl_spmv(1.0, A, x, 0.0, y, PSL_FP64));
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, len - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
    close(fd);
    unlink(path);
}

TEST(isa_cap_selects_the_kernels)
{
    /* Under each cap the OpenMP tables answer with the kernels of that
     * instruction set (those test_spmv_isa compares with the reference), and
     * psl_spmv's trace names it. */
    environment(NULL, NULL);
    psl_isa best = psl_cpu_isa();
    static const char *isa[] = {"generic", "avx2", "avx512"};
    int compared = 0;
    for (int cap = 0; cap <= (int)PSL_ISA_AVX512; cap++) {
        CHECK_OK(psl_option_set("PSL_CPU_ISA", isa[cap]));
        psl_isa eff = cap < (int)best ? (psl_isa)cap : best;
        CHECK(psl_cpu_isa() == eff);
        for (int vt = PSL_FP64; vt <= PSL_BF16; vt++)
            for (int vec = PSL_FP64; vec <= PSL_FP16; vec++) {
                psl_spmv_fn f = psl_cpu_sell_select((psl_scalar)vt, (psl_scalar)vec);
                psl_spmv_fn p = psl_cpu_packsell_select((psl_codec){5, 10}, (psl_scalar)vec);
                CHECK(f != NULL && p != NULL);
#if PSL_X86_SIMD
                psl_spmv_fn s2 = psl_cpu_sell_select_avx2((psl_scalar)vt, (psl_scalar)vec);
                psl_spmv_fn s5 = psl_cpu_sell_select_avx512((psl_scalar)vt, (psl_scalar)vec);
                psl_spmv_fn p2 = psl_cpu_packsell_select_avx2((psl_codec){5, 10}, (psl_scalar)vec);
                psl_spmv_fn p5 =
                    psl_cpu_packsell_select_avx512((psl_codec){5, 10}, (psl_scalar)vec);
                psl_spmv_fn want_s = eff == PSL_ISA_AVX512 ? s5 : eff == PSL_ISA_AVX2 ? s2 : NULL;
                psl_spmv_fn want_p = eff == PSL_ISA_AVX512 ? p5 : eff == PSL_ISA_AVX2 ? p2 : NULL;
                if (want_s) {
                    CHECK(f == want_s);
                    compared++;
                } else {
                    CHECK(!s2 || f != s2);
                    CHECK(!s5 || f != s5);
                }
                if (want_p) {
                    CHECK(p == want_p);
                    compared++;
                } else {
                    CHECK(!p2 || p != p2);
                    CHECK(!p5 || p != p5);
                }
#endif
            }
    }
#if PSL_X86_SIMD
    if (best >= PSL_ISA_AVX2)
        CHECK(compared > 0);
#endif
    /* the trace line names the instruction set psl_spmv runs */
    spmv_case c = spmv_setup();
    CHECK_OK(psl_option_set("PSL_TRACE", "1"));
    for (int cap = 0; cap <= (int)best; cap++) {
        CHECK_OK(psl_option_set("PSL_CPU_ISA", isa[cap]));
        char out[1024], want[32];
        traced_spmv(c.A, c.x, c.y, out, sizeof out);
        snprintf(want, sizeof want, "kernel 'omp' isa %s ", isa[cap]);
        CHECK_MSG(has(out, want), "cap %s: trace '%s'", isa[cap], out);
    }
    CHECK_OK(psl_option_set("PSL_TRACE", "0"));
    char out[256];
    traced_spmv(c.A, c.x, c.y, out, sizeof out);
    CHECK_MSG(out[0] == '\0', "trace off: '%s'", out);
    psl_matrix_destroy(&c.A);
    environment(NULL, NULL);
    printf("  this CPU: %s; %d kernel entries compared\n", psl_cpu_isa_name(best), compared);
}

TEST(debug_fail_alloc_after)
{
    psl_matrix *A = NULL;
    CHECK_ST(psl_debug_fail_alloc_after(-2), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "-2"));
    /* n = 0: the next allocation fails, once */
    CHECK_OK(psl_debug_fail_alloc_after(0));
    CHECK_ST(psl_generate(&A, "lap2d:8"), PSL_ERR_OUT_OF_MEMORY);
    CHECK(A == NULL);
    CHECK_OK(psl_generate(&A, "lap2d:8"));
    psl_matrix_destroy(&A);
    /* the number of allocations a build makes: the first n that leaves it
     * whole; every smaller n fails it */
    int n = 0;
    for (; n < 100; n++) {
        CHECK_OK(psl_debug_fail_alloc_after(n));
        psl_status st = psl_generate(&A, "lap2d:8");
        psl_matrix_destroy(&A);
        CHECK(st == PSL_OK || st == PSL_ERR_OUT_OF_MEMORY);
        if (st == PSL_OK)
            break;
    }
    CHECK(n > 1 && n < 100);
    /* -1 turns a pending failure off */
    CHECK_OK(psl_debug_fail_alloc_after(0));
    CHECK_OK(psl_debug_fail_alloc_after(-1));
    CHECK_OK(psl_generate(&A, "lap2d:8"));
    psl_matrix_destroy(&A);
    printf("  lap2d:8 makes %d allocations\n", n);
}

/* PSL_MEMORY_LIMIT: byte counts with suffixes read back as bytes, bad ones
 * refused naming the option; a limit refuses a generator or Matrix Market
 * request estimated above it (small ones too, PSL_MEMORY_CHECK=0 too) with
 * the estimate, and lets one below it through. */
TEST(memory_limit_parsed_and_applied)
{
    environment(NULL, NULL);
    static const struct {
        const char *value, *bytes;
    } good[] = {{"0", "0"},           {"1", "1"},           {"4096", "4096"},
                {"3k", "3072"},       {"2M", "2097152"},    {"1g", "1073741824"},
                {"1T", "1099511627776"}, {"512T", "562949953421312"},
                {"562949953421312", "562949953421312"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CHECK_OK(psl_option_set("PSL_MEMORY_LIMIT", good[i].value));
        CHECK_MSG(strcmp(get("PSL_MEMORY_LIMIT"), good[i].bytes) == 0, "%s: got %s",
                  good[i].value, get("PSL_MEMORY_LIMIT"));
    }
    const char *bad[] = {"-1", "1.5M", "M", "2MB", "2 M", " 2", "+2", "513T", "562949953421313",
                         "1P", "99999999999999999999", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_ST(psl_option_set("PSL_MEMORY_LIMIT", bad[i]), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(has(psl_last_error_message(), "PSL_MEMORY_LIMIT") &&
                      has(psl_last_error_message(), "K|M|G|T"),
                  "%s: %s", bad[i], psl_last_error_message());
        CHECK(strcmp(get("PSL_MEMORY_LIMIT"), "562949953421312") == 0);
    }
    /* lap2d:20: 400 rows, 1920 nonzeros: about 26 kB */
    psl_matrix *A = NULL;
    CHECK_OK(psl_option_set("PSL_MEMORY_LIMIT", "20K"));
    CHECK_ST(psl_generate(&A, "lap2d:20"), PSL_ERR_OUT_OF_MEMORY);
    CHECK(A == NULL);
    CHECK_MSG(has(psl_last_error_message(), "PSL_MEMORY_LIMIT=20480") &&
                  has(psl_last_error_message(), "lap2d:20"),
              "%s", psl_last_error_message());
    CHECK_OK(psl_option_set("PSL_MEMORY_CHECK", "0"));
    CHECK_ST(psl_generate(&A, "lap2d:20"), PSL_ERR_OUT_OF_MEMORY);
    CHECK_OK(psl_generate(&A, "lap2d:10")); /* about 6 kB */
    psl_matrix_destroy(&A);
    CHECK_OK(psl_option_set("PSL_MEMORY_LIMIT", "40K"));
    CHECK_OK(psl_generate(&A, "lap2d:20"));
    psl_matrix_destroy(&A);
    /* a 1000 x 1000 diagonal Matrix Market matrix: about 28 kB of CSR */
    static char mm[16384];
    size_t len = (size_t)snprintf(mm, sizeof mm,
                                  "%%%%MatrixMarket matrix coordinate real general\n1000 1000 1000\n");
    for (int i = 1; i <= 1000; i++)
        len += (size_t)snprintf(mm + len, sizeof mm - len, "%d %d 2\n", i, i);
    CHECK(len < sizeof mm - 1);
    CHECK_OK(psl_option_set("PSL_MEMORY_LIMIT", "20K"));
    CHECK_ST(psl_mm_read_buffer(&A, mm, len), PSL_ERR_OUT_OF_MEMORY);
    CHECK(has(psl_last_error_message(), "PSL_MEMORY_LIMIT"));
    CHECK(A == NULL);
    CHECK_OK(psl_option_set("PSL_MEMORY_LIMIT", "40K"));
    CHECK_OK(psl_mm_read_buffer(&A, mm, len));
    psl_matrix_destroy(&A);
    /* SELL / PackSELL storage, padding included: one slice of 4000 rows over
     * a power-law matrix (one row of about 1600 entries) pads it to millions
     * of entries; the conversion is refused before it allocates them, with
     * no handle */
    CHECK_OK(psl_option_set("PSL_MEMORY_LIMIT", "2M"));
    CHECK_OK(psl_generate(&A, "powerlaw:4000:8:1.1"));
    psl_convert_options o;
    for (int f = 0; f < 2; f++) {
        psl_convert_options_init(&o);
        o.format = f ? PSL_FORMAT_PACKSELL : PSL_FORMAT_SELL; /* FP64 / FP16 codec */
        o.slice_height = 4000;
        o.sigma = 0;
        psl_matrix *S = NULL;
        CHECK_ST(psl_matrix_convert(&S, A, &o), PSL_ERR_OUT_OF_MEMORY);
        CHECK(S == NULL);
        CHECK_MSG(has(psl_last_error_message(), f ? "PackSELL storage" : "SELL-C-sigma storage") &&
                      has(psl_last_error_message(), "C = 4000") &&
                      has(psl_last_error_message(), "PSL_MEMORY_LIMIT"),
                  "%s", psl_last_error_message());
        o.slice_height = 32; /* the default slicing fits */
        o.sigma = 256;
        S = NULL;
        CHECK_OK(psl_matrix_convert(&S, A, &o));
        psl_matrix_destroy(&S);
    }
    psl_matrix_destroy(&A);
    /* from the environment */
    environment("PSL_MEMORY_LIMIT", "20k");
    CHECK_ST(psl_generate(&A, "lap2d:20"), PSL_ERR_OUT_OF_MEMORY);
    environment("PSL_MEMORY_LIMIT", "20kB");
    CHECK_ST(psl_generate(&A, "lap2d:20"), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "20kB"));
    environment(NULL, NULL);
    CHECK_OK(psl_generate(&A, "lap2d:20"));
    psl_matrix_destroy(&A);
}

TEST(csrk_fit_path_option)
{
    /* PSL_CSRK_FIT is a path: any text without control characters shorter
     * than PSL_OPTION_PATH_MAX, "" by default; the model's tests
     * (test_csrk_fit) read the file it names */
    environment(NULL, NULL);
    static char buf[PSL_OPTION_PATH_MAX];
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf));
    CHECK(buf[0] == '\0');
    char path[PSL_OPTION_PATH_MAX + 1];
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    path[0] = '/';
    path[PSL_OPTION_PATH_MAX - 1] = '\0'; /* the longest accepted: 4095 characters */
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", path));
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf));
    CHECK(strcmp(buf, path) == 0);
    char small[PSL_OPTION_VALUE_MAX] = "untouched";
    CHECK_ST(psl_option_get("PSL_CSRK_FIT", small, sizeof small), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "needs 4096") && strcmp(small, "untouched") == 0);
    path[PSL_OPTION_PATH_MAX - 1] = 'p'; /* 4096: too long */
    CHECK_ST(psl_option_set("PSL_CSRK_FIT", path), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "PSL_CSRK_FIT") && has(psl_last_error_message(), "PATH"));
    CHECK_ST(psl_option_set("PSL_CSRK_FIT", "a\nb"), PSL_ERR_INVALID_VALUE);
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf));
    CHECK(buf[0] == '/' && strlen(buf) == PSL_OPTION_PATH_MAX - 1); /* kept */
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", "fit.txt"));
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", small, sizeof small));
    CHECK(strcmp(small, "fit.txt") == 0);
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", ""));
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", small, sizeof small));
    CHECK(small[0] == '\0');
    /* the environment: read once; a program's setting wins, NULL gives it back */
    environment("PSL_CSRK_FIT", "/tmp/env fit.txt");
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf));
    CHECK(strcmp(buf, "/tmp/env fit.txt") == 0);
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", "mine.txt"));
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf));
    CHECK(strcmp(buf, "mine.txt") == 0);
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", NULL));
    CHECK_OK(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf));
    CHECK(strcmp(buf, "/tmp/env fit.txt") == 0);
    /* an invalid environment value fails until the program sets the option */
    environment("PSL_CSRK_FIT", "bad\tname");
    CHECK_ST(psl_option_get("PSL_CSRK_FIT", buf, sizeof buf), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "environment"));
    int32_t sr = 0, ssr = 0;
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 27.0, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "PSL_CSRK_FIT"));
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", ""));
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 27.0, &sr, &ssr));
    /* the internal readers: a path is text only */
    int iv = 0;
    long long lv = 0;
    CHECK_ST(psl_opt_get(PSL_OPT_CSRK_FIT, &iv), PSL_ERR_INTERNAL);
    CHECK_ST(psl_opt_get_size(PSL_OPT_CSRK_FIT, &lv), PSL_ERR_INTERNAL);
    CHECK(psl_opt_get_or(PSL_OPT_CSRK_FIT, 7) == 7);
    CHECK_ST(psl_opt_get_text(PSL_OPT_KERNEL, buf, sizeof buf), PSL_ERR_INTERNAL);
    environment(NULL, NULL);
}

/* The transparent huge page size when the kernel gives huge pages to regions
 * that ask (what alloc.c reads), else 0. */
static size_t thp_bytes(void)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    char text[128] = "";
    int usable = fgets(text, sizeof text, f) && !strstr(text, "[never]");
    fclose(f);
    long long size = 0;
    if (usable && (f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r"))) {
        if (fscanf(f, "%lld", &size) != 1)
            size = 0;
        fclose(f);
    }
    return usable && size > 0 ? (size_t)size : 0;
}

/* 1 if the mapping holding p is advised for huge pages (VmFlags "hg" in
 * /proc/self/smaps), 0 if not, -1 if the mapping is not found. */
static int advised_huge(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    int inside = 0, found = -1;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = a >= lo && a < hi;
            continue;
        }
        if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

/* PSL_HUGEPAGES: with 1 (the default) a block of at least twice the huge page
 * size, from psl_host_alloc or the library's own arrays, is aligned to that
 * size and its mapping advised for huge pages; with 0 neither; small blocks
 * never; the debug failure hook reaches psl_host_alloc; an invalid value is
 * refused by psl_option_get and leaves allocations working. */
TEST(huge_pages_for_large_blocks)
{
    environment(NULL, NULL);
    CHECK(psl_host_alloc(0) == NULL);
    psl_host_free(NULL);
    char *small = psl_host_alloc(4096);
    CHECK(small != NULL);
    memset(small, 1, 4096);
    psl_host_free(small);
    CHECK_OK(psl_debug_fail_alloc_after(0));
    CHECK(psl_host_alloc(1 << 20) == NULL);
    size_t hp = thp_bytes();
    size_t big = hp ? 4 * hp + 4096 : (size_t)16 << 20;
    char *b = psl_host_alloc(big);
    CHECK(b != NULL);
    memset(b, 2, big);
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "lap2d:1024")); /* 5.2M nonzeros: 42 MB of values */
    if (hp) {
        CHECK_MSG((uintptr_t)b % hp == 0, "block %p not aligned to %zu", (void *)b, hp);
        CHECK(advised_huge(b) == 1);
        CHECK(advised_huge(A->values) == 1);
        CHECK(advised_huge(A->col_idx) == 1);
    }
    psl_host_free(b);
    psl_matrix_destroy(&A);
    /* 0: plain malloc */
    CHECK_OK(psl_option_set("PSL_HUGEPAGES", "0"));
    b = psl_host_alloc(big);
    CHECK(b != NULL);
    memset(b, 3, big);
    CHECK_OK(psl_generate(&A, "lap2d:1024"));
    if (hp) {
        CHECK(advised_huge(b) == 0);
        CHECK(advised_huge(A->values) == 0);
    }
    psl_host_free(b);
    psl_matrix_destroy(&A);
    /* an invalid value: refused by the option layer, allocations still work */
    environment("PSL_HUGEPAGES", "yes");
    char buf[PSL_OPTION_VALUE_MAX];
    CHECK_ST(psl_option_get("PSL_HUGEPAGES", buf, sizeof buf), PSL_ERR_INVALID_VALUE);
    CHECK(has(psl_last_error_message(), "PSL_HUGEPAGES") && has(psl_last_error_message(), "0|1"));
    b = psl_host_alloc(big);
    CHECK(b != NULL);
    if (hp)
        CHECK(advised_huge(b) == 0);
    psl_host_free(b);
    environment(NULL, NULL);
    if (hp)
        printf("  huge page %zu bytes: blocks aligned and advised\n", hp);
    else
        printf("  no transparent huge pages here: alignment and advice not checked\n");
}

static const psl_test_case tests[] = {
    {"csrk_fit_path_option", csrk_fit_path_option},
    {"every_option_round_trips", every_option_round_trips},
    {"invalid_values_rejected", invalid_values_rejected},
    {"unknown_names_and_null_pointers", unknown_names_and_null_pointers},
    {"environment_parsed_and_validated", environment_parsed_and_validated},
    {"isa_cap_selects_the_kernels", isa_cap_selects_the_kernels},
    {"debug_fail_alloc_after", debug_fail_alloc_after},
    {"memory_limit_parsed_and_applied", memory_limit_parsed_and_applied},
    {"huge_pages_for_large_blocks", huge_pages_for_large_blocks},
};
PSL_TEST_MAIN(tests)
