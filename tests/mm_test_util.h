/*
 * mm_test_util.h -- helpers shared by the Matrix Market tests: read a string,
 * compare a matrix with expected CSR arrays entry by entry, and expect an
 * error with a given status, line and message fragment.
 */
#ifndef PSL_MM_TEST_UTIL_H
#define PSL_MM_TEST_UTIL_H

#include "harness.h"
#include "packsell.h"

#include <stdint.h>
#include <string.h>

/* Read a NUL-terminated string (its terminator is not passed). */
static inline psl_matrix *mm_from_string(const char *s)
{
    psl_matrix *A = (psl_matrix *)1;
    psl_status st = psl_mm_read_buffer(&A, s, strlen(s));
    CHECK_MSG(st == PSL_OK, "status %d: %s", (int)st, psl_last_error_message());
    if (st != PSL_OK)
        CHECK(A == NULL);
    return st == PSL_OK ? A : NULL;
}

/* A matrix equals the given 0-based CSR arrays, bit for bit. */
static inline void mm_check_csr(const psl_matrix *A, int32_t nrows, int32_t ncols, int64_t nnz,
                                const int64_t *rp, const int32_t *ci, const double *v)
{
    CHECK(A != NULL);
    if (!A)
        return;
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.nrows == nrows);
    CHECK(info.ncols == ncols);
    CHECK_MSG(info.nnz == nnz, "nnz %lld, expected %lld", (long long)info.nnz, (long long)nnz);
    if (info.nrows != nrows || info.nnz != nnz)
        return;
    const int64_t *arp;
    const int32_t *aci;
    const double *av;
    CHECK_OK(psl_matrix_csr_view(A, &arp, &aci, &av));
    for (int32_t i = 0; i <= nrows; i++)
        CHECK_MSG(arp[i] == rp[i], "row_ptr[%d] = %lld, expected %lld", (int)i,
                  (long long)arp[i], (long long)rp[i]);
    for (int64_t k = 0; k < nnz; k++) {
        CHECK_MSG(aci[k] == ci[k], "col[%lld] = %d, expected %d", (long long)k, (int)aci[k],
                  (int)ci[k]);
        CHECK_MSG(memcmp(&av[k], &v[k], sizeof(double)) == 0, "val[%lld] = %.17g, expected %.17g",
                  (long long)k, av[k], v[k]);
    }
}

/* Reading s fails with status st on line `line` (-1: do not check), and the
 * message contains "line <line>" and the fragment `what`. */
#define MM_EXPECT_ERROR(s, st, line, what) mm_expect_error_at(s, strlen(s), st, line, what, __LINE__)

static inline void mm_expect_error_at(const char *s, size_t len, psl_status st, int64_t line,
                                      const char *what, int src_line)
{
    psl_matrix *A = (psl_matrix *)1;
    psl_status got = psl_mm_read_buffer(&A, s, len);
    psl_error_info info;
    psl_last_error(&info);
    CHECK_MSG(got == st, "(test line %d) status %d, expected %d: %s", src_line, (int)got, (int)st,
              info.message);
    CHECK_MSG(A == NULL, "(test line %d) handle not NULL on failure", src_line);
    if (line >= 0) {
        char tag[48];
        snprintf(tag, sizeof tag, "line %lld", (long long)line);
        CHECK_MSG(info.line == line, "(test line %d) error line %lld, expected %lld: %s",
                  src_line, (long long)info.line, (long long)line, info.message);
        CHECK_MSG(strstr(info.message, tag) != NULL, "(test line %d) message lacks '%s': %s",
                  src_line, tag, info.message);
    }
    if (what)
        CHECK_MSG(strstr(info.message, what) != NULL, "(test line %d) message lacks '%s': %s",
                  src_line, what, info.message);
    if (got == PSL_OK)
        psl_matrix_destroy(&A);
}

#endif
