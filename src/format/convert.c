/*
 * convert.c -- psl_matrix_convert and psl_matrix_estimate: option defaults,
 * the checks every conversion shares, and the call of the target format's
 * builder through the table of formats. Also the small scalar helpers
 * shared by the builders.
 */
#include "codec/half.h"
#include "format/build.h"
#include "format/format.h"
#include "format/format_ops.h"

#include <stdlib.h>

void psl_convert_options_init(psl_convert_options *opt)
{
    if (!opt)
        return;
    opt->format = PSL_FORMAT_CSR;
    opt->value_type = PSL_FP64;
    opt->codec = PSL_CODEC_FP16;
    opt->slice_height = 32;
    opt->sigma = 256;
    opt->permute = PSL_PERMUTE_IMPLICIT;
    opt->overflow = PSL_OVERFLOW_ERROR;
    opt->csrk_k = 3;
    opt->csrk_sr_rows = 0;
    opt->csrk_ssr_srs = 0;
    opt->csrk_reorder = PSL_CSRK_REORDER_NONE;
}

double psl_load_scalar(const void *arr, psl_scalar t, int64_t k)
{
    switch (t) {
    case PSL_FP64: return ((const double *)arr)[k];
    case PSL_FP32: return (double)((const float *)arr)[k];
    case PSL_FP16: return (double)psl_half_to_float(((const uint16_t *)arr)[k]);
    case PSL_BF16: return (double)psl_bf16_to_float(((const uint16_t *)arr)[k]);
    }
    return NAN;
}

psl_status psl_round_error(psl_status st, int64_t row, int64_t col, double v, const char *target)
{
    if (st == PSL_ERR_CODEC_OVERFLOW)
        return psl_error_at(st, -1, row, col,
                            "value %.17g at row %lld, column %lld (0-based) exceeds the largest "
                            "finite %s value (use PSL_OVERFLOW_SATURATE to clamp it)",
                            v, (long long)row, (long long)col, target);
    if (st == PSL_ERR_NONFINITE)
        return psl_error_at(st, -1, row, col,
                            "value %g at row %lld, column %lld (0-based) is not finite", v,
                            (long long)row, (long long)col);
    return psl_error(PSL_ERR_INTERNAL, "unexpected status %d rounding a value to %s", (int)st,
                     target);
}

/* Check the options that matter for opt->format (declared in build.h). */
psl_status psl_convert_check_options(const psl_convert_options *opt)
{
    if (opt->overflow != PSL_OVERFLOW_ERROR && opt->overflow != PSL_OVERFLOW_SATURATE)
        return psl_error(PSL_ERR_INVALID_VALUE, "overflow policy %d is not a psl_overflow",
                         (int)opt->overflow);
    const psl_format_ops *ops = psl_format_ops_of(opt->format);
    if (!ops)
        return psl_error(PSL_ERR_INVALID_VALUE, "target format %d is not a psl_format",
                         (int)opt->format);
    if (opt->format != PSL_FORMAT_CSRK && opt->csrk_reorder != PSL_CSRK_REORDER_NONE)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "csrk_reorder = %d applies only to the CSR-k format (this "
                         "conversion is to %s); leave it PSL_CSRK_REORDER_NONE",
                         (int)opt->csrk_reorder, ops->name);
    return ops->check_options(opt);
}

/* Validate and build through the table; dry: a layout-only handle (see build.h). */
static psl_status convert(psl_matrix **out, const psl_matrix *src, const psl_convert_options *opt,
                          bool dry)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *out = NULL;
    PSL_TRY(psl_matrix_check(src));
    if (!opt)
        return psl_error(PSL_ERR_NULL_POINTER, "conversion options are NULL");
    if (!psl_matrix_is_fp64_csr(src)) {
        const psl_format_ops *from = psl_format_ops_of(src->format);
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "psl_matrix_convert needs an FP64 CSR source matrix (this one is %s "
                         "%s; use psl_matrix_to_csr first)",
                         from ? from->name : "?", psl_scalar_display(src->value_type));
    }
    PSL_TRY(psl_convert_check_options(opt));
    return psl_format_ops_of(opt->format)->build(out, src, opt, dry);
}

psl_status psl_matrix_convert(psl_matrix **out, const psl_matrix *src,
                              const psl_convert_options *opt)
{
    return convert(out, src, opt, false);
}

psl_status psl_matrix_estimate(const psl_matrix *src, const psl_convert_options *opt,
                               psl_matrix_info *info)
{
    if (!info)
        return psl_error(PSL_ERR_NULL_POINTER, "info is NULL");
    PSL_TRY(psl_matrix_check(src));
    const psl_format_ops *ops = opt ? psl_format_ops_of(opt->format) : NULL;
    if (ops && ops->estimate && psl_matrix_is_fp64_csr(src)) {
        /* the sizes follow from the source; no copy of the arrays */
        PSL_TRY(psl_convert_check_options(opt));
        return ops->estimate(src, opt, info);
    }
    psl_matrix *A = NULL;
    PSL_TRY(convert(&A, src, opt, true));
    psl_status st = psl_matrix_get_info(A, info);
    psl_matrix_destroy(&A);
    return st;
}
