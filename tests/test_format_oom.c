/* test_format_oom.c -- out-of-memory injection through every allocation of
 * CSR creation, adoption, conversion to each format and decoding. The test
 * runs itself as a child process for N = 0, 1, 2, ... (PSL_OOM_CHILD=N) until
 * the scenario no longer hits the injected failure; each child makes its
 * N+1-th allocation fail (psl_debug_fail_alloc_after) and checks that the
 * failing call returns PSL_ERR_OUT_OF_MEMORY with a NULL handle; under ASan,
 * LeakSanitizer makes the child fail if anything leaked on the cleanup
 * paths. Children run one OpenMP thread: no allocation happens inside a
 * parallel region. */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "packsell.h"
#include "format/format.h"
#include "harness.h"

#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CHILD_DONE = 0, CHILD_OOM = 10, CHILD_WRONG = 1 };

/* Classify a status: continue on PSL_OK, stop on the injected failure. */
#define STEP(call, handle)                                                         \
    do {                                                                           \
        psl_status st_ = (call);                                                   \
        if (st_ == PSL_ERR_OUT_OF_MEMORY) {                                        \
            rc = (handle) == NULL ? CHILD_OOM : CHILD_WRONG;                       \
            goto done;                                                             \
        }                                                                          \
        if (st_ != PSL_OK) {                                                       \
            fprintf(stderr, "unexpected status %d: %s\n", (int)st_,                \
                    psl_last_error_message());                                     \
            rc = CHILD_WRONG;                                                      \
            goto done;                                                             \
        }                                                                          \
    } while (0)

/* The scenario the child runs: every builder and the decoder, the
 * allocation after the first nalloc failing. */
static int oom_scenario(long nalloc)
{
    int rc = CHILD_DONE;
    /* 3000 x 3000, rows unsorted with duplicates so the sort path allocates */
    const int32_t n = 3000;
    int64_t rp[3001];
    int32_t ci[12000];
    double v[12000];
    int64_t k = 0;
    rp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t cnt = i % 5;
        for (int32_t j = 0; j < cnt; j++, k++) {
            ci[k] = (int32_t)((i + 7 * (cnt - j) + (j == 3 ? 7 : 0)) % n);
            v[k] = 1.0 + j;
        }
        rp[i + 1] = k;
    }
    psl_matrix *A = NULL, *B = NULL, *C = NULL, *D = NULL;
    int64_t *arp = NULL;
    int32_t *aci = NULL;
    double *av = NULL;
    if (psl_debug_fail_alloc_after(nalloc) != PSL_OK)
        return CHILD_WRONG;
    STEP(psl_matrix_create_csr(&A, n, n, rp, ci, v, PSL_FP64, 0, 0), A);
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.value_type = PSL_FP32;
    STEP(psl_matrix_convert(&B, A, &o), B);
    STEP(psl_matrix_to_csr(&C, B), C);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&C);
    o.format = PSL_FORMAT_SELL;
    o.value_type = PSL_FP16;
    STEP(psl_matrix_convert(&B, A, &o), B);
    STEP(psl_matrix_to_csr(&C, B), C);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&C);
    o.format = PSL_FORMAT_PACKSELL;
    o.codec = (psl_codec){8, 20};
    STEP(psl_matrix_convert(&B, A, &o), B);
    STEP(psl_matrix_to_csr(&C, B), C);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&C);
    o.sigma = 0;
    o.slice_height = 1;
    STEP(psl_matrix_convert(&B, A, &o), B);
    /* adopt: arrays are plain malloc here; ownership passes on every path */
    arp = malloc(3 * sizeof *arp), aci = malloc(3 * sizeof *aci), av = malloc(3 * sizeof *av);
    arp[0] = 0, arp[1] = 3, arp[2] = 3, aci[0] = 2, aci[1] = 0, aci[2] = 2;
    av[0] = av[1] = av[2] = 1.0;
    psl_status st = psl_csr_adopt(&D, 2, 3, arp, aci, av, 0);
    arp = NULL, aci = NULL, av = NULL;
    STEP(st, D);
    psl_matrix_info info;
    if (psl_matrix_get_info(D, &info) != PSL_OK || info.nnz != 2)
        rc = CHILD_WRONG;
done:
    free(arp);
    free(aci);
    free(av);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&C);
    psl_matrix_destroy(&D);
    return rc;
}

TEST(out_of_memory)
{
    if (getenv("PSL_OOM_CHILD"))
        exit(oom_scenario(atol(getenv("PSL_OOM_CHILD"))));
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(len > 0);
    if (len <= 0)
        return;
    exe[len] = '\0';
    int ooms = 0, done = 0;
    for (int nalloc = 0; nalloc < 400 && !done; nalloc++) {
        char cmd[4300];
        snprintf(cmd, sizeof cmd,
                 "OMP_NUM_THREADS=1 PSL_OOM_CHILD=%d '%s' out_of_memory >/dev/null", nalloc, exe);
        int ws = system(cmd);
        int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        CHECK_MSG(rc == CHILD_OOM || rc == CHILD_DONE,
                  "failing allocation %d: child exit %d (1: wrong status, 23: leak)", nalloc, rc);
        if (rc != CHILD_OOM && rc != CHILD_DONE)
            break;
        ooms += rc == CHILD_OOM;
        done = rc == CHILD_DONE;
    }
    printf("  %d injected failures handled\n", ooms);
    CHECK(done);
    CHECK(ooms > 20); /* every builder allocates several arrays */
}

static const psl_test_case tests[] = {
    {"out_of_memory", out_of_memory},
};
PSL_TEST_MAIN(tests)
