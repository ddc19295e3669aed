/*
 * harness.h -- a minimal test harness: TEST(name) functions registered in a
 * table, CHECK macros that record failures with file:line, and a summary line
 * "N passed, M failed, K skipped" that CI reads. A test binary exits 1 on any
 * failure, else PSL_TEST_SKIPPED (77, ctest's SKIP_RETURN_CODE: the summary
 * shows the binary as skipped) when a test could not run what it is for
 * (psl_test_skip: no shared matrices, no packsell executable, no GPU), else
 * 0. Run one binary with a test name as argument to run only tests whose
 * name contains it.
 */
#ifndef PSL_TEST_HARNESS_H
#define PSL_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*psl_test_fn)(void);
static int psl_t_failures_in_test;
static int psl_t_skips_in_test;
static int psl_t_checks;

/* Exit code of a test binary some of whose tests were skipped. */
#define PSL_TEST_SKIPPED 77

/* The running test could not do what it is for (a missing input): prints
 * "SKIP what: why" and counts the test as skipped unless it also failed. */
static inline void psl_test_skip(const char *what, const char *why)
{
    printf("SKIP %s: %s\n", what, why);
    psl_t_skips_in_test++;
}

#define CHECK(cond)                                                                   \
    do {                                                                              \
        psl_t_checks++;                                                               \
        if (!(cond)) {                                                                \
            psl_t_failures_in_test++;                                                 \
            fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);         \
        }                                                                             \
    } while (0)

#define CHECK_MSG(cond, ...)                                                          \
    do {                                                                              \
        psl_t_checks++;                                                               \
        if (!(cond)) {                                                                \
            psl_t_failures_in_test++;                                                 \
            fprintf(stderr, "  FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
        }                                                                             \
    } while (0)

/* Status equality with the library's last error message on mismatch. */
#define CHECK_ST(expr, expected)                                                      \
    do {                                                                              \
        int psl_t_st_ = (int)(expr);                                                  \
        CHECK_MSG(psl_t_st_ == (int)(expected), "status %d (%s), expected %d; last error: %s", \
                  psl_t_st_, psl_status_string((psl_status)psl_t_st_), (int)(expected),  \
                  psl_last_error_message());                                          \
    } while (0)

#define CHECK_OK(expr) CHECK_ST(expr, PSL_OK)

typedef struct {
    const char *name;
    psl_test_fn fn;
} psl_test_case;

#define TEST(name) static void name(void)

/* In the test file: static const psl_test_case tests[] = {{"a", a}, ...};
 * then PSL_TEST_MAIN(tests). PSL_TEST_MAIN_AS(entry, tests) names the
 * function entry instead of main (a main of its own calls it: gpu_harness.h). */
#define PSL_TEST_MAIN(table) PSL_TEST_MAIN_AS(main, table)
#define PSL_TEST_MAIN_AS(entry, table)                                                \
    int entry(int argc, char **argv)                                                  \
    {                                                                                 \
        int passed = 0, failed = 0, skipped = 0;                                      \
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {              \
            if (argc > 1 && !strstr(table[i].name, argv[1]))                         \
                continue;                                                             \
            psl_t_failures_in_test = 0;                                               \
            psl_t_skips_in_test = 0;                                                  \
            table[i].fn();                                                            \
            if (psl_t_failures_in_test) {                                             \
                failed++;                                                             \
                fprintf(stderr, "FAILED %s\n", table[i].name);                        \
            } else if (psl_t_skips_in_test) {                                         \
                skipped++;                                                            \
                printf("skipped %s (in part or whole)\n", table[i].name);             \
            } else {                                                                  \
                passed++;                                                             \
                printf("ok %s\n", table[i].name);                                     \
            }                                                                         \
        }                                                                             \
        printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);        \
        return failed ? 1 : skipped ? PSL_TEST_SKIPPED : 0;                           \
    }

/* PSL_TEST_MAIN run inside a fresh temporary folder: dir (a char array of
 * at least 64 bytes, filled before the tests) names it,
 * "/tmp/psl_<prefix>_XXXXXX"; it is removed with everything in it after
 * the tests. Needs mkdtemp (_POSIX_C_SOURCE 200809L). */
#define PSL_TEST_MAIN_IN_TMPDIR(table, dir, prefix)                                   \
    PSL_TEST_MAIN_AS(psl_test_run_all, table)                                         \
    int main(int argc, char **argv)                                                   \
    {                                                                                 \
        snprintf(dir, sizeof dir, "/tmp/psl_%s_XXXXXX", prefix);                      \
        if (!mkdtemp(dir)) {                                                          \
            perror("mkdtemp");                                                        \
            return 1;                                                                 \
        }                                                                             \
        int rc_ = psl_test_run_all(argc, argv);                                       \
        char rm_[sizeof dir + 16];                                                    \
        snprintf(rm_, sizeof rm_, "rm -rf '%s'", dir);                                \
        if (system(rm_) != 0)                                                         \
            fprintf(stderr, "could not remove %s\n", dir);                            \
        return rc_;                                                                   \
    }

/* Directory of the shared real matrices: $PSL_MATRIX_DIR or ../shared/matrices
 * relative to the source tree (set by CMake as PSL_SOURCE_DIR). */
static inline const char *psl_test_matrix_dir(void)
{
    static char buf[4096];
    const char *env = getenv("PSL_MATRIX_DIR");
    if (env && *env)
        return env;
#ifdef PSL_SOURCE_DIR
    snprintf(buf, sizeof buf, "%s/../shared/matrices", PSL_SOURCE_DIR);
#else
    snprintf(buf, sizeof buf, "../shared/matrices");
#endif
    return buf;
}

/* A shared matrix (or the directory) that a test needs is missing: a
 * failure when PSL_REQUIRE_MATRICES is set (.ci/run sets it where the
 * directory exists, so that a test looking in the wrong place cannot pass
 * unseen), else a skip. */
static inline void psl_test_matrix_missing(const char *what, const char *path)
{
    char why[8400];
    snprintf(why, sizeof why, "%s not found (set PSL_MATRIX_DIR)", path);
    const char *req = getenv("PSL_REQUIRE_MATRICES");
    if (req && *req && strcmp(req, "0") != 0) {
        psl_t_checks++;
        psl_t_failures_in_test++;
        fprintf(stderr, "  FAIL %s: %s, and PSL_REQUIRE_MATRICES is set\n", what, why);
        return;
    }
    psl_test_skip(what, why);
}

/* INDEX.tsv of the shared matrix directory, open for reading; NULL, and
 * reported missing for the test (psl_test_matrix_missing), without it. */
static inline FILE *psl_test_open_index(const char *test)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/INDEX.tsv", psl_test_matrix_dir());
    FILE *f = fopen(path, "r");
    if (!f)
        psl_test_matrix_missing(test, path);
    return f;
}

/* True when the shared matrix directory is there; otherwise reports it
 * missing for the test (psl_test_matrix_missing). */
static inline int psl_test_matrices_available(const char *test)
{
    FILE *f = psl_test_open_index(test);
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

/* fn(name, path, ctx) for each matrix that INDEX.tsv of the shared
 * directory lists (path: its .mtx file), in the file's order; the number
 * of matrices, 0 when the directory is missing (reported as
 * psl_test_matrices_available reports it). */
static inline int psl_test_each_shared_matrix(const char *test,
                                              void (*fn)(const char *name, const char *path,
                                                         void *ctx),
                                              void *ctx)
{
    FILE *f = psl_test_open_index(test);
    if (!f)
        return 0;
    char path[4400], line[8192];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char name[256];
        if (sscanf(line, "%255[^\t]", name) != 1 || strcmp(name, "name") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s.mtx", psl_test_matrix_dir(), name);
        fn(name, path, ctx);
        n++;
    }
    fclose(f);
    return n;
}

/* Deterministic splitmix64 generator for tests. */
static inline unsigned long long psl_test_rand(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline double psl_test_uniform(unsigned long long *s)
{
    return (double)(psl_test_rand(s) >> 11) * 0x1.0p-53;
}

#endif
