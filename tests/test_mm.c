/*
 * test_mm.c -- Matrix Market reading from memory: every valid variant
 * (coordinate/array, real/integer/pattern, general/symmetric/skew) on
 * hand-written strings checked entry by entry, and every error with its
 * status and exact line number.
 */
#include "harness.h"
#include "mm_test_util.h"
#include "packsell.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

TEST(coordinate_real_general)
{
    /* unsorted, a duplicate (summed in file order), an explicit zero, comments,
     * blank lines, an empty row */
    psl_matrix *A = mm_from_string("%%MatrixMarket matrix coordinate real general\n"
                                   "% a comment\n"
                                   "\n"
                                   "3 4 6\n"
                                   "3 4 1.5\n"
                                   "1 2 -2e1\n"
                                   "% comment between entries\n"
                                   "\n"
                                   "1 1 0.25\n"
                                   "3 1 0\n"
                                   "1 2 0.5\n"
                                   "3 4 .125\n");
    int64_t rp[] = {0, 2, 2, 4};
    int32_t ci[] = {0, 1, 0, 3};
    double v[] = {0.25, -19.5, 0.0, 1.625};
    mm_check_csr(A, 3, 4, 4, rp, ci, v);
    psl_matrix_destroy(&A);
}

TEST(coordinate_integer_and_pattern)
{
    psl_matrix *A = mm_from_string("%%MatrixMarket matrix coordinate integer general\n"
                                   "2 2 3\n1 1 7\n2 1 -3\n2 2 +0\n");
    int64_t rp[] = {0, 1, 3};
    int32_t ci[] = {0, 0, 1};
    double v[] = {7, -3, 0};
    mm_check_csr(A, 2, 2, 3, rp, ci, v);
    psl_matrix_destroy(&A);

    A = mm_from_string("%%MatrixMarket matrix coordinate pattern general\n"
                       "2 3 3\n2 3\n1 2\n2 1\n");
    int64_t rp2[] = {0, 1, 3};
    int32_t ci2[] = {1, 0, 2};
    double v2[] = {1, 1, 1};
    mm_check_csr(A, 2, 3, 3, rp2, ci2, v2);
    psl_matrix_destroy(&A);
}

TEST(coordinate_symmetric_and_skew)
{
    /* symmetric: off-diagonal entries mirrored */
    psl_matrix *A = mm_from_string("%%MatrixMarket matrix coordinate real symmetric\n"
                                   "3 3 4\n1 1 4\n2 1 -1\n3 3 5\n3 2 2\n");
    int64_t rp[] = {0, 2, 4, 6};
    int32_t ci[] = {0, 1, 0, 2, 1, 2};
    double v[] = {4, -1, -1, 2, 2, 5};
    mm_check_csr(A, 3, 3, 6, rp, ci, v);
    psl_matrix_destroy(&A);
    /* an upper-triangle-only file is mirrored alike */
    A = mm_from_string("%%MatrixMarket matrix coordinate real symmetric\n"
                       "3 3 4\n1 1 4\n1 2 -1\n3 3 5\n2 3 2\n");
    mm_check_csr(A, 3, 3, 6, rp, ci, v);
    psl_matrix_destroy(&A);
    /* both triangles: would be summed twice, so it is an error at the minority side */
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real symmetric\n"
                    "3 3 3\n2 1 -1\n3 3 5\n2 3 2\n",
                    PSL_ERR_PARSE, 5, "line 5: entry above the diagonal, but line 3");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                    "3 3 2\n1 2 1\n3 1 2\n",
                    PSL_ERR_PARSE, 4, "entry below the diagonal, but line 3");

    A = mm_from_string("%%MatrixMarket matrix coordinate real skew-symmetric\n"
                       "3 3 2\n2 1 1.5\n3 2 -2\n");
    int64_t rp2[] = {0, 1, 3, 4};
    int32_t ci2[] = {1, 0, 2, 1};
    double v2[] = {-1.5, 1.5, 2, -2};
    mm_check_csr(A, 3, 3, 4, rp2, ci2, v2);
    psl_matrix_destroy(&A);

    A = mm_from_string("%%MatrixMarket matrix coordinate pattern symmetric\n"
                       "2 2 2\n1 1\n2 1\n");
    int64_t rp3[] = {0, 2, 3};
    int32_t ci3[] = {0, 1, 0};
    double v3[] = {1, 1, 1};
    mm_check_csr(A, 2, 2, 3, rp3, ci3, v3);
    psl_matrix_destroy(&A);
}

TEST(array_general_symmetric_skew)
{
    /* column-major, zeros kept */
    psl_matrix *A = mm_from_string("%%MatrixMarket matrix array real general\n"
                                   "% c\n2 3\n1\n2\n0\n4\n5\n6\n");
    int64_t rp[] = {0, 3, 6};
    int32_t ci[] = {0, 1, 2, 0, 1, 2};
    double v[] = {1, 0, 5, 2, 4, 6};
    mm_check_csr(A, 2, 3, 6, rp, ci, v);
    psl_matrix_destroy(&A);

    /* symmetric: lower triangle column by column: (1,1) (2,1) (3,1) (2,2) (3,2) (3,3) */
    A = mm_from_string("%%MatrixMarket matrix array integer symmetric\n"
                       "3 3\n11\n21\n31\n22\n32\n33\n");
    int64_t rp2[] = {0, 3, 6, 9};
    int32_t ci2[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
    double v2[] = {11, 21, 31, 21, 22, 32, 31, 32, 33};
    mm_check_csr(A, 3, 3, 9, rp2, ci2, v2);
    psl_matrix_destroy(&A);

    /* skew: strictly lower triangle: (2,1) (3,1) (3,2) */
    A = mm_from_string("%%MatrixMarket matrix array real skew-symmetric\n"
                       "3 3\n1\n2\n3\n");
    int64_t rp3[] = {0, 2, 4, 6};
    int32_t ci3[] = {1, 2, 0, 2, 0, 1};
    double v3[] = {-1, -2, 1, -3, 2, 3};
    mm_check_csr(A, 3, 3, 6, rp3, ci3, v3);
    psl_matrix_destroy(&A);
}

TEST(text_layout_variants)
{
    /* case-insensitive banner, extra blanks, CRLF, tabs, no final newline */
    psl_matrix *A = mm_from_string("  %%matrixmarket  MATRIX\tCoordinate REAL General  \r\n"
                                   "%comment\r\n"
                                   "\r\n"
                                   "  2 2 2 \r\n"
                                   "\t1  1\t1e0 \r\n"
                                   "2 2 -2.5E+00");
    int64_t rp[] = {0, 1, 2};
    int32_t ci[] = {0, 1};
    double v[] = {1, -2.5};
    mm_check_csr(A, 2, 2, 2, rp, ci, v);
    psl_matrix_destroy(&A);

    /* numbers: signs, leading dot, trailing dot, negative zero, long mantissa */
    A = mm_from_string("%%MatrixMarket matrix coordinate real general\n"
                       "1 5 5\n1 1 +.5\n1 2 5.\n1 3 -0\n1 4 0.1000000000000000055511151231257827\n"
                       "1 5 1e-320\n");
    int64_t rp2[] = {0, 5};
    int32_t ci2[] = {0, 1, 2, 3, 4};
    double v2[] = {0.5, 5.0, -0.0, 0.1, 1e-320};
    mm_check_csr(A, 1, 5, 5, rp2, ci2, v2);
    psl_matrix_destroy(&A);
}

TEST(empty_matrices)
{
    psl_matrix *A = mm_from_string("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    int64_t rp[] = {0};
    mm_check_csr(A, 0, 0, 0, rp, NULL, NULL);
    psl_matrix_destroy(&A);
    A = mm_from_string("%%MatrixMarket matrix coordinate real general\n3 2 0\n% none\n");
    int64_t rp2[] = {0, 0, 0, 0};
    mm_check_csr(A, 3, 2, 0, rp2, NULL, NULL);
    psl_matrix_destroy(&A);
    A = mm_from_string("%%MatrixMarket matrix array real general\n0 5\n");
    mm_check_csr(A, 0, 5, 0, rp, NULL, NULL);
    psl_matrix_destroy(&A);
}

TEST(gzip_buffer)
{
    const char *text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 3\n2 1 4\n";
    unsigned char gz[512];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    CHECK(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    zs.next_in = (Bytef *)text;
    zs.avail_in = (uInt)strlen(text);
    zs.next_out = gz;
    zs.avail_out = sizeof gz;
    CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    size_t gzlen = sizeof gz - zs.avail_out;
    deflateEnd(&zs);
    psl_matrix *A = NULL;
    CHECK_OK(psl_mm_read_buffer(&A, (const char *)gz, gzlen));
    int64_t rp[] = {0, 1, 2};
    int32_t ci[] = {1, 0};
    double v[] = {3, 4};
    mm_check_csr(A, 2, 2, 2, rp, ci, v);
    psl_matrix_destroy(&A);

    /* truncated and corrupted streams */
    mm_expect_error_at((const char *)gz, gzlen - 9, PSL_ERR_IO, -1, "gzip", __LINE__);
    unsigned char bad[512];
    memcpy(bad, gz, gzlen);
    for (size_t i = 12; i < gzlen - 8; i++)
        bad[i] ^= 0x5a;
    psl_matrix *B = NULL;
    psl_status st = psl_mm_read_buffer(&B, (const char *)bad, gzlen);
    CHECK(st == PSL_ERR_IO || st == PSL_ERR_PARSE);
    CHECK(B == NULL);
    CHECK(strstr(psl_last_error_message(), "gzip") != NULL || st == PSL_ERR_PARSE);
}

#define HDR "%%MatrixMarket matrix coordinate real general\n"

TEST(banner_errors)
{
    MM_EXPECT_ERROR("", PSL_ERR_PARSE, 1, "banner");
    MM_EXPECT_ERROR("3 3 1\n1 1 1\n", PSL_ERR_PARSE, 1, "banner");
    MM_EXPECT_ERROR("%MatrixMarket matrix coordinate real general\n1 1 0\n", PSL_ERR_PARSE, 1,
                    "banner");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real\n1 1 0\n", PSL_ERR_PARSE, 1,
                    "symmetry");
    MM_EXPECT_ERROR("%%MatrixMarket tensor coordinate real general\n1 1 0\n", PSL_ERR_PARSE, 1,
                    "tensor");
    MM_EXPECT_ERROR("%%MatrixMarket matrix sparse real general\n1 1 0\n", PSL_ERR_PARSE, 1,
                    "sparse");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate float general\n1 1 0\n", PSL_ERR_PARSE, 1,
                    "float");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real lower\n1 1 0\n", PSL_ERR_PARSE, 1,
                    "lower");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n",
                    PSL_ERR_PARSE, 1, "extra");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
                    PSL_ERR_UNSUPPORTED, 1, "complex");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n",
                    PSL_ERR_UNSUPPORTED, 1, "hermitian");
    MM_EXPECT_ERROR("%%MatrixMarket matrix array pattern general\n1 1\n", PSL_ERR_PARSE, 1,
                    "pattern");
}

TEST(size_line_errors)
{
    MM_EXPECT_ERROR(HDR, PSL_ERR_PARSE, 2, "missing size line");
    MM_EXPECT_ERROR(HDR "% only a comment\n\n", PSL_ERR_PARSE, 4, "missing size line");
    MM_EXPECT_ERROR(HDR "%c\n3 -3 1\n", PSL_ERR_PARSE, 3, "negative");
    MM_EXPECT_ERROR(HDR "3 3.5 1\n", PSL_ERR_PARSE, 2, "'3.5'");
    MM_EXPECT_ERROR(HDR "3 x 1\n", PSL_ERR_PARSE, 2, "not an integer");
    MM_EXPECT_ERROR(HDR "3 3\n", PSL_ERR_PARSE, 2, "too few");
    MM_EXPECT_ERROR(HDR "3 3 1 1\n1 1 1\n", PSL_ERR_PARSE, 2, "too many");
    MM_EXPECT_ERROR("%%MatrixMarket matrix array real general\n3 3 9\n", PSL_ERR_PARSE, 2,
                    "too many");
    MM_EXPECT_ERROR(HDR "2147483648 1 0\n", PSL_ERR_PARSE, 2, "2147483647");
    MM_EXPECT_ERROR(HDR "1 2147483648 0\n", PSL_ERR_PARSE, 2, "2147483647");
    MM_EXPECT_ERROR(HDR "1 1 99999999999999999999\n", PSL_ERR_PARSE, 2, "limit");
    MM_EXPECT_ERROR(HDR "2 2 5\n", PSL_ERR_PARSE, 2, "do not fit");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n", PSL_ERR_PARSE,
                    2, "at most 6");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 4\n",
                    PSL_ERR_PARSE, 2, "at most 3");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n2 1 1\n",
                    PSL_ERR_PARSE, 2, "square");
    /* a hostile size line must not make the reader allocate: the count comes first */
    MM_EXPECT_ERROR("%%MatrixMarket matrix array real general\n2000000000 2000000000\n1\n",
                    PSL_ERR_PARSE, 4, "after 1 of the");
}

TEST(entry_count_errors)
{
    MM_EXPECT_ERROR(HDR "3 3 3\n1 1 1\n2 2 2\n", PSL_ERR_PARSE, 5, "after 2 of the 3");
    MM_EXPECT_ERROR(HDR "3 3 3\n1 1 1\n% c\n2 2 2", PSL_ERR_PARSE, 6, "after 2 of the 3");
    MM_EXPECT_ERROR(HDR "3 3 2\n1 1 1\n2 2 2\n% c\n\n3 3 3\n", PSL_ERR_PARSE, 7,
                    "more entries than the 2");
    MM_EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", PSL_ERR_PARSE,
                    6, "after 3 of the 4");
    MM_EXPECT_ERROR("%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", PSL_ERR_PARSE,
                    5, "more entries");
    /* a syntax error before the extra entries wins (smallest line) */
    MM_EXPECT_ERROR(HDR "3 3 2\n1 x 1\n2 2 2\n3 3 3\n", PSL_ERR_PARSE, 3, "'x'");
}

TEST(entry_errors)
{
    MM_EXPECT_ERROR(HDR "8 8 2\n1 1 1\n2 9 1\n", PSL_ERR_PARSE, 4,
                    "column index 9 out of range 1..8");
    MM_EXPECT_ERROR(HDR "8 8 2\n1 1 1\n0 2 1\n", PSL_ERR_PARSE, 4,
                    "row index 0 out of range 1..8");
    MM_EXPECT_ERROR(HDR "8 8 1\n-1 2 1\n", PSL_ERR_PARSE, 3, "row index -1 out of range");
    MM_EXPECT_ERROR(HDR "8 8 1\n99999999999999999999999 2 1\n", PSL_ERR_PARSE, 3,
                    "out of range");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 a 1\n", PSL_ERR_PARSE, 3, "column index 'a'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1.0 1 1\n", PSL_ERR_PARSE, 3, "row index '1.0'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 abc\n", PSL_ERR_PARSE, 3, "value 'abc'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 1.5x\n", PSL_ERR_PARSE, 3, "value '1.5x'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 1e\n", PSL_ERR_PARSE, 3, "value '1e'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 0x10\n", PSL_ERR_PARSE, 3, "value '0x10'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 1 2\n", PSL_ERR_PARSE, 3, "unexpected text '2'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 1 % comment\n", PSL_ERR_PARSE, 3, "unexpected text");
    MM_EXPECT_ERROR(HDR "2 2 2\n1 1 1\n1 1\n", PSL_ERR_PARSE, 4, "missing value");
    MM_EXPECT_ERROR(HDR "2 2 1\n1\n", PSL_ERR_PARSE, 3, "missing column index");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 nan\n", PSL_ERR_NONFINITE, 3, "not finite");
    MM_EXPECT_ERROR(HDR "2 2 2\n1 1 1\n2 2 -Inf\n", PSL_ERR_NONFINITE, 4, "'-Inf'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 1e999\n", PSL_ERR_NONFINITE, 3, "'1e999'");
    MM_EXPECT_ERROR(HDR "2 2 1\n1 1 -1797693134862315807937289714053034150799341327"
                        "0000000000000000000000000000000000000000000000000000000000000000"
                        "0000000000000000000000000000000000000000000000000000000000000000"
                        "0000000000000000000000000000000000000000000000000000000000000000"
                        "0000000000000000000000000000000000000000000000000000000000000000"
                        "00000000000000000000000000000000\n",
                    PSL_ERR_NONFINITE, 3, "not finite");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                    PSL_ERR_PARSE, 3, "not an integer");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n",
                    PSL_ERR_PARSE, 3, "unexpected text '1.0'");
    MM_EXPECT_ERROR("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n"
                    "2 2 0\n",
                    PSL_ERR_PARSE, 4, "diagonal entry (2,2)");
    MM_EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 1\n1\n2 3\n", PSL_ERR_PARSE, 4,
                    "one per line");
    MM_EXPECT_ERROR("%%MatrixMarket matrix array real general\n2 1\n1\nnan\n", PSL_ERR_NONFINITE,
                    4, "not finite");
    /* duplicates that sum beyond the double range are caught when summed */
    MM_EXPECT_ERROR(HDR "2 2 2\n1 1 1e308\n1 1 1e308\n", PSL_ERR_NONFINITE, -1, "row 0");
    /* NUL bytes inside the text */
    const char nul[] = HDR "2 2 1\n1 \0 1\n";
    mm_expect_error_at(nul, sizeof nul - 1, PSL_ERR_PARSE, 3, "column index", __LINE__);
    /* CRLF keeps the line numbers */
    MM_EXPECT_ERROR(HDR "\r\n2 2 2\r\n1 1 1\r\n\r\n1 3 1\r\n", PSL_ERR_PARSE, 6, "column index 3");
}

/* A large text with errors placed far apart: the reported error is the one on
 * the smallest line, whatever the number of threads (several chunks). */
TEST(error_on_smallest_line_many_chunks)
{
    const int n = 60000;
    size_t cap = (size_t)n * 32 + 256;
    char *s = malloc(cap);
    CHECK(s != NULL);
    if (!s)
        return;
    size_t len = strlen(HDR);
    memcpy(s, HDR, len);
    len += (size_t)snprintf(s + len, cap - len, "%d %d %d\n", n, n, n);
    for (int i = 1; i <= n; i++) {
        const char *fmt = "%d %d %.3f\n";
        if (i == 40000)
            fmt = "%d %d %.3fzz\n"; /* line 40002 */
        if (i == 55000)
            fmt = "%d 0 %.3f\n"; /* line 55002 */
        len += (size_t)snprintf(s + len, cap - len, fmt, i, i, i * 0.5);
    }
    int threads[] = {1, 2, 3};
    for (int t = 0; t < 3; t++) {
#ifdef _OPENMP
        omp_set_num_threads(threads[t]);
#endif
        mm_expect_error_at(s, len, PSL_ERR_PARSE, 40002, "'20000.000zz'", __LINE__);
    }
    /* fix the first error: the second one is reported */
    char *bad = strstr(s, "zz\n");
    CHECK(bad != NULL);
    if (bad)
        bad[0] = bad[1] = ' ';
    mm_expect_error_at(s, len, PSL_ERR_PARSE, 55002, "column index 0", __LINE__);
    /* and the too-many-entries line is exact in a large file */
    char *zero = strstr(s, "55000 0 ");
    if (zero)
        zero[6] = '1';
    len += (size_t)snprintf(s + len, cap - len, "1 1 1\n");
    for (int t = 0; t < 3; t++) {
#ifdef _OPENMP
        omp_set_num_threads(threads[t]);
#endif
        mm_expect_error_at(s, len, PSL_ERR_PARSE, n + 3, "more entries", __LINE__);
    }
    /* without it, the file reads, identically for every thread count */
    len -= 6;
    psl_matrix *A = NULL;
    CHECK_OK(psl_mm_read_buffer(&A, s, len));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.nnz == n);
    psl_matrix_destroy(&A);
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    free(s);
}

TEST(null_arguments)
{
    psl_matrix *A = NULL;
    CHECK_ST(psl_mm_read_buffer(NULL, "x", 1), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_mm_read_buffer(&A, NULL, 5), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_mm_read_buffer(&A, NULL, 0), PSL_ERR_PARSE);
    CHECK_ST(psl_mm_read(&A, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_mm_read(NULL, "x"), PSL_ERR_NULL_POINTER);
    CHECK(A == NULL);
}

static const psl_test_case tests[] = {
    {"coordinate_real_general", coordinate_real_general},
    {"coordinate_integer_and_pattern", coordinate_integer_and_pattern},
    {"coordinate_symmetric_and_skew", coordinate_symmetric_and_skew},
    {"array_general_symmetric_skew", array_general_symmetric_skew},
    {"text_layout_variants", text_layout_variants},
    {"empty_matrices", empty_matrices},
    {"gzip_buffer", gzip_buffer},
    {"banner_errors", banner_errors},
    {"size_line_errors", size_line_errors},
    {"entry_count_errors", entry_count_errors},
    {"entry_errors", entry_errors},
    {"error_on_smallest_line_many_chunks", error_on_smallest_line_many_chunks},
    {"null_arguments", null_arguments},
};

PSL_TEST_MAIN(tests)
