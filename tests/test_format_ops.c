/*
 * test_format_ops.c -- the table of formats (src/format/registry.c): every
 * format has a complete entry under its own value, unknown values have
 * none, and each entry's pieces agree with one another and with the public
 * calls on a matrix it built (entries walked = nnz, the binary-file array
 * list and checks accept the matrix, the name heads its description).
 */
#include "format/format_ops.h"
#include "harness.h"
#include "io/binfile_format.h"
#include "packsell.h"

#include <stdlib.h>

static const psl_format all_formats[] = {PSL_FORMAT_CSR, PSL_FORMAT_SELL, PSL_FORMAT_PACKSELL,
                                         PSL_FORMAT_CSRK};
#define NFORMATS (sizeof all_formats / sizeof all_formats[0])

TEST(every_format_has_a_complete_entry)
{
    for (size_t k = 0; k < NFORMATS; k++) {
        const psl_format_ops *ops = psl_format_ops_of(all_formats[k]);
        CHECK_MSG(ops != NULL, "format %d has no entry", (int)all_formats[k]);
        if (!ops)
            continue;
        CHECK(ops->format == all_formats[k]);
        CHECK(ops->name && ops->name[0]);
        CHECK(ops->check_options && ops->build && ops->walk_row && ops->info_bytes &&
              ops->describe && ops->bin_arrays && ops->bin_adopt && ops->check_header &&
              ops->validate && ops->ref_select && ops->omp_select);
        /* CSR-k keeps its pointer arrays behind payload, the others their
         * arrays in the common fields */
        CHECK((ops->release != NULL) == (all_formats[k] == PSL_FORMAT_CSRK));
        for (size_t j = 0; j < k; j++) {
            const psl_format_ops *other = psl_format_ops_of(all_formats[j]);
            CHECK(other != ops && strcmp(other->name, ops->name) != 0);
        }
    }
}

TEST(table_names_and_device_entries)
{
    CHECK(psl_format_count() == (int)NFORMATS);
    for (int f = 0; f < psl_format_count(); f++) {
        const psl_format_ops *ops = psl_format_ops_of((psl_format)f);
        CHECK_MSG(ops != NULL, "format %d has no entry", f);
        if (!ops)
            continue;
        /* the public names come from the table and parse back */
        CHECK(ops->id && ops->id[0]);
        CHECK(strcmp(psl_format_name((psl_format)f), ops->id) == 0);
        psl_format back = (psl_format)-1;
        CHECK_OK(psl_format_parse(ops->id, &back));
        CHECK(back == (psl_format)f);
        /* the device form is all there or all absent */
        const int n = !!ops->cuda_spmv + !!ops->cuda_upload + !!ops->cuda_download +
                      !!ops->cuda_workspace;
        CHECK_MSG(n == 0 || n == 4, "format %s has %d of 4 device entries", ops->id, n);
        int count = 0; /* a build without CUDA answers PSL_ERR_NOT_SUPPORTED */
        const bool cuda_build = psl_cuda_device_count(&count) != PSL_ERR_NOT_SUPPORTED;
        CHECK_MSG(n == (cuda_build ? 4 : 0),
                  "format %s: %d device entries in a build %s CUDA", ops->id, n,
                  cuda_build ? "with" : "without");
    }
}

TEST(unknown_values_have_no_entry)
{
    CHECK(psl_format_ops_of((psl_format)NFORMATS) == NULL);
    CHECK(psl_format_ops_of((psl_format)1000) == NULL);
    CHECK(psl_format_ops_of((psl_format)-1) == NULL);
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = (psl_format)NFORMATS;
    psl_matrix *A = NULL, *B = NULL;
    CHECK_OK(psl_generate(&A, "gen:hpcg:4:4:4"));
    CHECK_ST(psl_matrix_convert(&B, A, &opt), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "is not a psl_format") != NULL);
    CHECK(B == NULL);
    psl_matrix_destroy(&A);
}

/* A matrix built by the table's entry for f passes through the entry's
 * other pieces consistently. */
static void check_entry_on_a_built_matrix(psl_format f, const psl_matrix *src, int64_t nnz)
{
    const psl_format_ops *ops = psl_format_ops_of(f);
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = f;
    opt.slice_height = 8;
    opt.sigma = 16;
    CHECK_OK(ops->check_options(&opt));
    psl_matrix *A = NULL;
    CHECK_OK(ops->build(&A, src, &opt, false));
    if (!A)
        return;
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    CHECK(info.format == f && info.nnz == nnz && info.bytes > 0);
    CHECK((A->payload != NULL) == (f == PSL_FORMAT_CSRK)); /* CSR-k k = 3: its pointers */

    int64_t walked = 0;
    for (int64_t i = 0; i < info.nrows; i++)
        walked += ops->walk_row(A, i, NULL, NULL);
    CHECK_MSG(walked == nnz, "%s: walk_row gives %lld entries, nnz %lld", ops->name,
              (long long)walked, (long long)nnz);

    psl_bin_array list[PSL_BIN_MAX_ARRAYS];
    int n = ops->bin_arrays(A, list);
    CHECK(n >= 1 && n <= PSL_BIN_MAX_ARRAYS);
    for (int i = 0; i < n; i++)
        CHECK_MSG(list[i].data && list[i].elem_size > 0, "%s: array %s", ops->name,
                  list[i].name);
    CHECK_OK(ops->check_header("test", A));
    CHECK_OK(ops->validate("test", A));

    char what[64];
    ops->describe(A, what, sizeof what);
    CHECK_MSG(strncmp(what, ops->name, strlen(ops->name)) == 0 && what[strlen(ops->name)] == ' ',
              "%s: describe says '%s'", ops->name, what);
    CHECK(ops->ref_select(A, PSL_FP64) != NULL);
    CHECK(ops->omp_select(A, PSL_FP64) != NULL);
    psl_matrix_destroy(&A);
}

TEST(entries_agree_on_a_built_matrix)
{
    psl_matrix *src = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:5:4:3"));
    if (!src)
        return;
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(src, &info));
    for (size_t k = 0; k < NFORMATS; k++)
        check_entry_on_a_built_matrix(all_formats[k], src, info.nnz);
    psl_matrix_destroy(&src);
}

/* The conversion errors name formats and types by their display names. */
TEST(messages_name_formats_and_types)
{
    psl_matrix *src = NULL, *A = NULL, *B = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:3:3:3"));
    if (!src)
        return;
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.value_type = PSL_FP16;
    CHECK_ST(psl_matrix_convert(&A, src, &opt), PSL_ERR_INVALID_VALUE);
    CHECK_MSG(strstr(psl_last_error_message(), "CSR stores FP64 or FP32 values, not FP16"),
              "%s", psl_last_error_message());
    opt.format = PSL_FORMAT_SELL;
    opt.value_type = PSL_BF16;
    CHECK_OK(psl_matrix_convert(&A, src, &opt));
    opt.format = PSL_FORMAT_CSR;
    opt.value_type = PSL_FP64;
    CHECK_ST(psl_matrix_convert(&B, A, &opt), PSL_ERR_WRONG_FORMAT);
    CHECK_MSG(strstr(psl_last_error_message(), "(this one is SELL BF16;"), "%s",
              psl_last_error_message());
    CHECK(B == NULL);
    psl_matrix_destroy(&A);

    /* 1e300 overflows FP32: the message names the target type */
    int64_t rp[2] = {0, 1};
    int32_t ci[1] = {0};
    double v[1] = {1e300};
    CHECK_OK(psl_matrix_create_csr(&A, 1, 1, rp, ci, v, PSL_FP64, 0, 0));
    opt.value_type = PSL_FP32;
    CHECK_ST(psl_matrix_convert(&B, A, &opt), PSL_ERR_CODEC_OVERFLOW);
    CHECK_MSG(strstr(psl_last_error_message(), "largest finite FP32 value"), "%s",
              psl_last_error_message());
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&src);
}

static const psl_test_case tests[] = {
    {"messages_name_formats_and_types", messages_name_formats_and_types},
    {"every_format_has_a_complete_entry", every_format_has_a_complete_entry},
    {"table_names_and_device_entries", table_names_and_device_entries},
    {"unknown_values_have_no_entry", unknown_values_have_no_entry},
    {"entries_agree_on_a_built_matrix", entries_agree_on_a_built_matrix},
};
PSL_TEST_MAIN(tests)
