/* test_csr_create.c -- psl_matrix_create_csr and psl_csr_adopt: copies,
 * bases, value types, validation errors naming row and column, sorting and
 * duplicate summation in input order, statistics, determinism. */
#include "packsell.h"
#include "format/format.h"
#include "harness.h"

#include <omp.h>
#include <stdint.h>

/* Arrays of a created CSR handle equal the expected 0-based arrays. */
static int csr_equals(const psl_matrix *A, int32_t n, const int64_t *rp, const int32_t *ci,
                      const double *v)
{
    const int64_t *arp;
    const int32_t *aci;
    const double *av;
    if (psl_matrix_csr_view(A, &arp, &aci, &av) != PSL_OK)
        return 0;
    for (int32_t i = 0; i <= n; i++)
        if (arp[i] != rp[i])
            return 0;
    for (int64_t k = 0; k < rp[n]; k++)
        if (aci[k] != ci[k] || memcmp(&av[k], &v[k], sizeof(double)) != 0)
            return 0;
    return 1;
}

TEST(basic_sorted_zero_based)
{
    /* 3x4: [1 0 2 0; 0 0 0 0; 0 3 0 4] with an explicit zero at (1,2) */
    int64_t rp[] = {0, 2, 3, 5};
    int32_t ci[] = {0, 2, 2, 1, 3};
    double v[] = {1, 2, 0.0, 3, 4};
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 3, 4, rp, ci, v, PSL_FP64, 0, 0));
    CHECK(A && csr_equals(A, 3, rp, ci, v));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.nnz == 5 && info.nrows == 3 && info.ncols == 4 && info.format == PSL_FORMAT_CSR);
    CHECK(info.max_row_nnz == 2);
    CHECK(info.kleft == 1); /* row 2: 2 - 1 */
    CHECK(info.bytes == 4 * 8 + 5 * 12);
    psl_matrix_destroy(&A);
    CHECK(A == NULL);
}

TEST(unsorted_duplicates_summed_in_input_order)
{
    /* row 0: cols 5,1,5,0,5 -> values at 5 summed as ((1e16 + 1) + -1e16) = 0 in
     * input order (any other order gives 1); row 1 empty; row 2 sorted */
    int64_t rp[] = {0, 5, 5, 7};
    int32_t ci[] = {5, 1, 5, 0, 5, 2, 6};
    double v[] = {1e16, 2.0, 1.0, 3.0, -1e16, 7.0, 8.0};
    int64_t rp0[4];
    int32_t ci0[7];
    double v0[7];
    memcpy(rp0, rp, sizeof rp);
    memcpy(ci0, ci, sizeof ci);
    memcpy(v0, v, sizeof v);
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 3, 7, rp, ci, v, PSL_FP64, 0, 0));
    int64_t erp[] = {0, 3, 3, 5};
    int32_t eci[] = {0, 1, 5, 2, 6};
    double ev[] = {3.0, 2.0, 0.0, 7.0, 8.0};
    CHECK(A && csr_equals(A, 3, erp, eci, ev));
    CHECK(memcmp(rp, rp0, sizeof rp) == 0 && memcmp(ci, ci0, sizeof ci) == 0 &&
          memcmp(v, v0, sizeof v) == 0);
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.nnz == 5 && info.max_row_nnz == 3);
    psl_matrix_destroy(&A);
}

TEST(strict_rejects_unsorted_and_duplicates)
{
    int64_t rp[] = {0, 2, 4};
    int32_t ci_unsorted[] = {0, 1, 3, 2};
    int32_t ci_dup[] = {0, 1, 2, 2};
    double v[] = {1, 2, 3, 4};
    psl_matrix *A = (psl_matrix *)1;
    psl_error_info e;
    CHECK_ST(psl_matrix_create_csr(&A, 2, 4, rp, ci_unsorted, v, PSL_FP64, 0, PSL_CSR_STRICT),
             PSL_ERR_INVALID_MATRIX);
    CHECK(A == NULL);
    psl_last_error(&e);
    CHECK(e.row == 1 && e.col == 2);
    CHECK_MSG(strstr(e.message, "row 1") && strstr(e.message, "column 2") &&
                  strstr(e.message, "0-based"),
              "%s", e.message);
    CHECK_ST(psl_matrix_create_csr(&A, 2, 4, rp, ci_dup, v, PSL_FP64, 0, PSL_CSR_STRICT),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK(e.row == 1 && e.col == 2 && strstr(e.message, "duplicate"));
    /* 1-based: numbers in the caller's base */
    int64_t rp1[] = {1, 3, 5};
    int32_t ci1[] = {1, 2, 4, 3};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 4, rp1, ci1, v, PSL_FP64, 1, PSL_CSR_STRICT),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK_MSG(e.row == 2 && e.col == 3 && strstr(e.message, "row 2") &&
                  strstr(e.message, "column 3") && strstr(e.message, "1-based"),
              "%s", e.message);
    /* sorted input passes strict */
    int32_t ci_ok[] = {0, 1, 2, 3};
    CHECK_OK(psl_matrix_create_csr(&A, 2, 4, rp, ci_ok, v, PSL_FP64, 0, PSL_CSR_STRICT));
    CHECK(A && csr_equals(A, 2, rp, ci_ok, v));
    psl_matrix_destroy(&A);
}

TEST(one_based_and_float_input)
{
    int64_t rp1[] = {1, 3, 3, 4};
    int32_t ci1[] = {3, 1, 2};
    float vf[] = {0.1f, -2.5f, 1e-40f}; /* 1e-40f is a float subnormal */
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, 3, 3, rp1, ci1, vf, PSL_FP32, 1, 0));
    int64_t erp[] = {0, 2, 2, 3};
    int32_t eci[] = {0, 2, 1};
    double ev[] = {(double)-2.5f, (double)0.1f, (double)1e-40f};
    CHECK(A && csr_equals(A, 3, erp, eci, ev));
    psl_matrix_destroy(&A);
}

TEST(nonfinite_values_rejected_with_place)
{
    int64_t rp[] = {0, 1, 3};
    int32_t ci[] = {0, 0, 2};
    double v[] = {1.0, 2.0, NAN};
    psl_matrix *A = NULL;
    psl_error_info e;
    CHECK_ST(psl_matrix_create_csr(&A, 2, 3, rp, ci, v, PSL_FP64, 0, 0), PSL_ERR_NONFINITE);
    psl_last_error(&e);
    CHECK(e.status == PSL_ERR_NONFINITE && e.row == 1 && e.col == 2);
    CHECK_MSG(strstr(e.message, "row 1") && strstr(e.message, "column 2"), "%s", e.message);
    float vf[] = {INFINITY, 1.0f, 2.0f};
    int64_t rp1[] = {1, 2, 4};
    int32_t ci1[] = {2, 1, 3};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 3, rp1, ci1, vf, PSL_FP32, 1, 0), PSL_ERR_NONFINITE);
    psl_last_error(&e);
    CHECK_MSG(e.row == 1 && e.col == 2 && strstr(e.message, "row 1, column 2 (1-based)"), "%s",
              e.message);
    CHECK(A == NULL);
}

TEST(duplicates_summing_to_inf_rejected)
{
    int64_t rp[] = {0, 0, 2};
    int32_t ci[] = {1, 1};
    double v[] = {1.7e308, 1.7e308};
    psl_matrix *A = NULL;
    psl_error_info e;
    CHECK_ST(psl_matrix_create_csr(&A, 2, 2, rp, ci, v, PSL_FP64, 0, 0), PSL_ERR_NONFINITE);
    psl_last_error(&e);
    CHECK_MSG(e.row == 1 && e.col == 1 && strstr(e.message, "row 1, column 1"), "%s", e.message);
    CHECK(A == NULL);
}

TEST(bad_structure_rejected_with_place)
{
    psl_matrix *A = NULL;
    psl_error_info e;
    double v[] = {1, 2, 3};
    int64_t rp[] = {0, 2, 3};
    int32_t ci_neg[] = {0, -1, 1};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 2, rp, ci_neg, v, PSL_FP64, 0, 0),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK_MSG(e.row == 0 && e.col == -1 && strstr(e.message, "row 0") &&
                  strstr(e.message, "column index -1"),
              "%s", e.message);
    int32_t ci_big[] = {0, 1, 2};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 2, rp, ci_big, v, PSL_FP64, 0, 0),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK(e.row == 1 && e.col == 2 && strstr(e.message, "[0, 1]"));
    /* 1-based: column 0 is out of range */
    int64_t rp1[] = {1, 3, 4};
    int32_t ci1[] = {1, 0, 2};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 2, rp1, ci1, v, PSL_FP64, 1, 0),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK_MSG(e.row == 1 && e.col == 0 && strstr(e.message, "[1, 2]") &&
                  strstr(e.message, "1-based"),
              "%s", e.message);
    /* row_ptr[0] not the base, decreasing row_ptr */
    int64_t rp_bad0[] = {1, 2, 3};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 2, rp_bad0, ci_big, v, PSL_FP64, 0, 0),
             PSL_ERR_INVALID_MATRIX);
    CHECK(strstr(psl_last_error_message(), "row_ptr[0]"));
    int64_t rp_dec[] = {0, 3, 2};
    CHECK_ST(psl_matrix_create_csr(&A, 2, 2, rp_dec, ci_big, v, PSL_FP64, 0, 0),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK_MSG(e.row == 1 && strstr(e.message, "row 1"), "%s", e.message);
    /* the first offending row is reported even when later rows are bad too */
    int64_t rp3[] = {0, 1, 2, 3};
    int32_t ci3[] = {0, 5, 7};
    CHECK_ST(psl_matrix_create_csr(&A, 3, 2, rp3, ci3, v, PSL_FP64, 0, 0),
             PSL_ERR_INVALID_MATRIX);
    psl_last_error(&e);
    CHECK(e.row == 1 && e.col == 5);
    CHECK(A == NULL);
}

TEST(bad_arguments)
{
    psl_matrix *A = NULL;
    int64_t rp[] = {0, 1};
    int32_t ci[] = {0};
    double v[] = {1};
    CHECK_ST(psl_matrix_create_csr(NULL, 1, 1, rp, ci, v, PSL_FP64, 0, 0), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_create_csr(&A, -1, 1, rp, ci, v, PSL_FP64, 0, 0), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csr(&A, 1, -1, rp, ci, v, PSL_FP64, 0, 0), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csr(&A, 1, 1, rp, ci, v, PSL_FP64, 2, 0), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csr(&A, 1, 1, rp, ci, v, PSL_FP16, 0, 0), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csr(&A, 1, 1, rp, ci, v, PSL_FP64, 0, 0x100), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csr(&A, 1, 1, NULL, ci, v, PSL_FP64, 0, 0), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_create_csr(&A, 1, 1, rp, NULL, v, PSL_FP64, 0, 0), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_create_csr(&A, 1, 1, rp, ci, NULL, PSL_FP64, 0, 0), PSL_ERR_NULL_POINTER);
    CHECK(A == NULL);
}

TEST(empty_matrices)
{
    psl_matrix *A = NULL;
    psl_matrix_info info;
    /* n = 0 with no arrays at all, in both bases */
    CHECK_OK(psl_matrix_create_csr(&A, 0, 0, NULL, NULL, NULL, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.nrows == 0 && info.nnz == 0 && info.rsd == 0.0 && info.kleft == 0);
    psl_matrix_destroy(&A);
    CHECK_OK(psl_matrix_create_csr(&A, 0, 5, NULL, NULL, NULL, PSL_FP32, 1, PSL_CSR_STRICT));
    psl_matrix_destroy(&A);
    /* rows but no entries: NULL col/val allowed */
    int64_t rp[] = {1, 1, 1, 1};
    CHECK_OK(psl_matrix_create_csr(&A, 3, 2, rp, NULL, NULL, PSL_FP64, 1, 0));
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.nnz == 0 && info.max_row_nnz == 0 && info.rsd == 0.0 && info.kleft == 0);
    psl_matrix_destroy(&A);
    /* rows with zero columns */
    int64_t rp0[] = {0, 0, 0};
    CHECK_OK(psl_matrix_create_csr(&A, 2, 0, rp0, NULL, NULL, PSL_FP64, 0, 0));
    psl_matrix_destroy(&A);
}

TEST(statistics)
{
    /* upper triangular 4x6: kleft negative = max_i (i - first col) */
    int64_t rp[] = {0, 3, 3, 5, 6};
    int32_t ci[] = {2, 3, 5, 4, 5, 4};
    double v[] = {1, 1, 1, 1, 1, 1};
    psl_matrix *A = NULL;
    psl_matrix_info info;
    CHECK_OK(psl_matrix_create_csr(&A, 4, 6, rp, ci, v, PSL_FP64, 0, 0));
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.kleft == -1); /* rows 0: 0-2, 2: 2-4, 3: 3-4 (row 1 empty: ignored) */
    CHECK(info.max_row_nnz == 3);
    CHECK(fabs(info.mean_row_nnz - 1.5) < 1e-15);
    CHECK(fabs(info.rsd - sqrt(1.25) / 1.5) < 1e-15); /* lengths 3 0 2 1 */
    psl_matrix_destroy(&A);
}

/* Simplest reference: per row, stable insertion sort by column, then sum
 * equal columns in the sorted (= input) order. */
static void reference_csr(int32_t n, const int64_t *rp, const int32_t *ci, const double *v,
                          int64_t *orp, int32_t *oci, double *ov)
{
    int64_t t = 0;
    orp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        int64_t lo = rp[i], len = rp[i + 1] - rp[i];
        int32_t *c = malloc((size_t)(len + 1) * sizeof *c);
        double *x = malloc((size_t)(len + 1) * sizeof *x);
        for (int64_t k = 0; k < len; k++) {
            int64_t y = k;
            while (y > 0 && c[y - 1] > ci[lo + k]) {
                c[y] = c[y - 1];
                x[y] = x[y - 1];
                y--;
            }
            c[y] = ci[lo + k];
            x[y] = v[lo + k];
        }
        for (int64_t k = 0; k < len; k++) {
            if (k > 0 && c[k] == c[k - 1]) {
                ov[t - 1] += x[k];
            } else {
                oci[t] = c[k];
                ov[t++] = x[k];
            }
        }
        orp[i + 1] = t;
        free(c);
        free(x);
    }
}

TEST(random_unsorted_large_against_reference_and_threads)
{
    const int32_t n = 20000, ncols = 3000;
    unsigned long long s = 42;
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    rp[0] = 0;
    for (int32_t i = 0; i < n; i++)
        rp[i + 1] = rp[i] + (int64_t)(psl_test_rand(&s) % (i % 97 == 0 ? 60 : 12));
    const int64_t nnz = rp[n];
    int32_t *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v);
    for (int32_t i = 0; i < n; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            int32_t span = i % 5 == 0 ? ncols : 8; /* narrow rows get many duplicates */
            int32_t c0 = (int32_t)(i % ncols);
            ci[k] = (int32_t)((c0 + (int64_t)(psl_test_rand(&s) % (uint64_t)span)) % ncols);
            v[k] = (psl_test_uniform(&s) - 0.5) * 1e3;
            if (k % 13 == 0)
                v[k] = 0.0; /* explicit zeros */
        }
    int64_t *erp = malloc((size_t)(n + 1) * sizeof *erp);
    int32_t *eci = malloc((size_t)nnz * sizeof *eci);
    double *ev = malloc((size_t)nnz * sizeof *ev);
    reference_csr(n, rp, ci, v, erp, eci, ev);
    CHECK(erp[n] < nnz); /* duplicates really were there */

    psl_matrix *A1 = NULL, *A4 = NULL;
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK_OK(psl_matrix_create_csr(&A1, n, ncols, rp, ci, v, PSL_FP64, 0, 0));
    omp_set_num_threads(4);
    CHECK_OK(psl_matrix_create_csr(&A4, n, ncols, rp, ci, v, PSL_FP64, 0, 0));
    omp_set_num_threads(saved);
    CHECK(A1 && csr_equals(A1, n, erp, eci, ev));
    CHECK(A4 && csr_equals(A4, n, erp, eci, ev));

    /* statistics against direct computation */
    psl_matrix_info i1, i4;
    CHECK_OK(psl_matrix_get_info(A1, &i1));
    CHECK_OK(psl_matrix_get_info(A4, &i4));
    int64_t maxlen = 0, kleft = INT64_MIN;
    double mean = (double)erp[n] / n, ss = 0;
    for (int32_t i = 0; i < n; i++) {
        int64_t len = erp[i + 1] - erp[i];
        maxlen = len > maxlen ? len : maxlen;
        if (len && i - eci[erp[i]] > kleft)
            kleft = i - eci[erp[i]];
        ss += ((double)len - mean) * ((double)len - mean);
    }
    CHECK(i1.max_row_nnz == maxlen && i1.kleft == kleft && i1.nnz == erp[n]);
    CHECK(fabs(i1.rsd - sqrt(ss / n) / mean) < 1e-12 * i1.rsd);
    CHECK(memcmp(&i1.rsd, &i4.rsd, sizeof(double)) == 0);
    psl_matrix_destroy(&A1);
    psl_matrix_destroy(&A4);
    free(rp), free(ci), free(v), free(erp), free(eci), free(ev);
}

TEST(adopt_takes_ownership)
{
    /* success: trusted arrays become the handle's */
    int64_t *rp = malloc(3 * sizeof *rp);
    int32_t *ci = malloc(2 * sizeof *ci);
    double *v = malloc(2 * sizeof *v);
    rp[0] = 0, rp[1] = 1, rp[2] = 2, ci[0] = 1, ci[1] = 0, v[0] = 5, v[1] = 6;
    psl_matrix *A = NULL;
    CHECK_OK(psl_csr_adopt(&A, 2, 2, rp, ci, v, PSL_CSR_TRUSTED));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.kleft == 1 && info.nnz == 2 && info.rsd == 0.0);
    psl_matrix_destroy(&A);
    /* failure: arrays freed by adopt (ASan reports a leak otherwise) */
    rp = malloc(3 * sizeof *rp);
    ci = malloc(2 * sizeof *ci);
    v = malloc(2 * sizeof *v);
    rp[0] = 0, rp[1] = 1, rp[2] = 2, ci[0] = 1, ci[1] = 9, v[0] = 5, v[1] = 6;
    CHECK_ST(psl_csr_adopt(&A, 2, 2, rp, ci, v, 0), PSL_ERR_INVALID_MATRIX);
    psl_error_info e;
    psl_last_error(&e);
    CHECK(e.row == 1 && e.col == 9 && strstr(e.message, "0-based"));
    CHECK(A == NULL);
    /* unsorted with duplicates through adopt */
    rp = malloc(2 * sizeof *rp);
    ci = malloc(3 * sizeof *ci);
    v = malloc(3 * sizeof *v);
    rp[0] = 0, rp[1] = 3, ci[0] = 2, ci[1] = 0, ci[2] = 2, v[0] = 1, v[1] = 2, v[2] = 3;
    CHECK_OK(psl_csr_adopt(&A, 1, 3, rp, ci, v, 0));
    int64_t erp[] = {0, 2};
    int32_t eci[] = {0, 2};
    double ev[] = {2, 4};
    CHECK(A && csr_equals(A, 1, erp, eci, ev));
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"basic_sorted_zero_based", basic_sorted_zero_based},
    {"unsorted_duplicates_summed_in_input_order", unsorted_duplicates_summed_in_input_order},
    {"strict_rejects_unsorted_and_duplicates", strict_rejects_unsorted_and_duplicates},
    {"one_based_and_float_input", one_based_and_float_input},
    {"nonfinite_values_rejected_with_place", nonfinite_values_rejected_with_place},
    {"duplicates_summing_to_inf_rejected", duplicates_summing_to_inf_rejected},
    {"bad_structure_rejected_with_place", bad_structure_rejected_with_place},
    {"bad_arguments", bad_arguments},
    {"empty_matrices", empty_matrices},
    {"statistics", statistics},
    {"random_unsorted_large_against_reference_and_threads",
     random_unsorted_large_against_reference_and_threads},
    {"adopt_takes_ownership", adopt_takes_ownership},
};
PSL_TEST_MAIN(tests)
