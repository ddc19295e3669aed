/*
 * csrk_fixture.h -- test support for CSR-k: its conversion options spelled
 * out, and the conversion of an FP64 CSR matrix under them (test_csrk.c,
 * test_csrk_reorder.c).
 */
#ifndef PSL_TEST_CSRK_FIXTURE_H
#define PSL_TEST_CSRK_FIXTURE_H

#include "harness.h"
#include "packsell.h"

/* The options of CSR-k with k levels of sr rows per super-row and ssr
 * super-rows per super-super-row (0: the model's), the reordering how and
 * values of type vt. */
static inline psl_convert_options csrk_options(psl_csrk_reorder how, int32_t k, int32_t sr,
                                               int32_t ssr, psl_scalar vt)
{
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = PSL_FORMAT_CSRK;
    opt.value_type = vt;
    opt.csrk_k = k;
    opt.csrk_sr_rows = sr;
    opt.csrk_ssr_srs = ssr;
    opt.csrk_reorder = how;
    return opt;
}

/* src converted under csrk_options(how, k, sr, ssr, vt); NULL (and a failed
 * check) on error. */
static inline psl_matrix *csrk_convert(const psl_matrix *src, psl_csrk_reorder how, int32_t k,
                                       int32_t sr, int32_t ssr, psl_scalar vt)
{
    const psl_convert_options opt = csrk_options(how, k, sr, ssr, vt);
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_convert(&A, src, &opt));
    return A;
}

#endif
