/*
 * convert.c -- psl_matrix_convert: option defaults and validation, dispatch
 * to the SELL and PackSELL builders, and CSR -> CSR (FP64 copy or FP32
 * rounding). Also the small scalar helpers shared by the builders.
 */
#include "build.h"
#include "codec/half.h"

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
    switch (opt->format) {
    case PSL_FORMAT_CSR:
        if (opt->value_type != PSL_FP64 && opt->value_type != PSL_FP32)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "CSR stores FP64 or FP32 values, not %s (value_type %d)",
                             psl_scalar_display(opt->value_type), (int)opt->value_type);
        return PSL_OK;
    case PSL_FORMAT_SELL:
        if (opt->value_type != PSL_FP64 && opt->value_type != PSL_FP32 &&
            opt->value_type != PSL_FP16 && opt->value_type != PSL_BF16)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "SELL stores FP64, FP32, FP16 or BF16 values (value_type %d)",
                             (int)opt->value_type);
        break;
    case PSL_FORMAT_PACKSELL:
        PSL_TRY(psl_codec_check(opt->codec));
        break;
    default:
        return psl_error(PSL_ERR_INVALID_VALUE, "target format %d is not a psl_format",
                         (int)opt->format);
    }
    if (opt->slice_height < 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "slice height C = %ld must be >= 1",
                         (long)opt->slice_height);
    if (opt->sigma < 0 || (opt->sigma > 0 && opt->sigma % opt->slice_height != 0))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "sigma = %ld must be 0 (no sorting) or a positive multiple of the "
                         "slice height C = %ld",
                         (long)opt->sigma, (long)opt->slice_height);
    if (opt->permute != PSL_PERMUTE_IMPLICIT && opt->permute != PSL_PERMUTE_EXPLICIT)
        return psl_error(PSL_ERR_INVALID_VALUE, "permute %d is not a psl_permute",
                         (int)opt->permute);
    return PSL_OK;
}

/* CSR -> CSR with FP64 (copy) or FP32 (rounded) values. */
static psl_status csr_to_csr(psl_matrix **out, const psl_matrix *src, const psl_convert_options *opt)
{
    const int64_t n = src->nrows, nnz = src->nnz;
    const psl_scalar t = opt->value_type;
    psl_status st = PSL_OK;
    psl_matrix *A = psl_matrix_new(PSL_FORMAT_CSR, src->nrows, src->ncols);
    if (!A)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
    if ((st = psl_alloc((void **)&A->row_ptr, (size_t)n + 1, sizeof *A->row_ptr,
                        "row pointers")) != PSL_OK ||
        (st = psl_alloc((void **)&A->col_idx, (size_t)nnz, sizeof *A->col_idx,
                        "column indices")) != PSL_OK ||
        (st = psl_alloc(&A->values, (size_t)nnz, psl_scalar_size(t), "values")) != PSL_OK)
        goto fail;
    memcpy(A->row_ptr, src->row_ptr, ((size_t)n + 1) * sizeof *A->row_ptr);
    if (nnz > 0)
        memcpy(A->col_idx, src->col_idx, (size_t)nnz * sizeof *A->col_idx);

    const double *sv = src->values;
    int64_t first_bad = INT64_MAX, under = 0;
#pragma omp parallel for reduction(min : first_bad) reduction(+ : under) if (nnz > PSL_PAR_MIN)
    for (int64_t k = 0; k < nnz; k++) {
        uint64_t bits = 0;
        int uf = 0;
        if (psl_round_scalar(t, opt->overflow, sv[k], &bits, &uf) != PSL_OK) {
            if (k < first_bad)
                first_bad = k;
            continue;
        }
        under += uf;
        psl_store_scalar(A->values, t, k, bits);
    }
    if (first_bad != INT64_MAX) {
        uint64_t bits;
        int uf;
        int64_t row = psl_row_of_entry(src->row_ptr, n, first_bad);
        st = psl_round_error(psl_round_scalar(t, opt->overflow, sv[first_bad], &bits, &uf), row,
                             src->col_idx[first_bad], sv[first_bad], psl_scalar_display(t));
        goto fail;
    }
    A->nnz = nnz;
    A->value_type = t;
    A->stored = nnz;
    A->underflows = under;
    A->max_row_nnz = src->max_row_nnz;
    A->rsd = src->rsd;
    A->kleft = src->kleft;
    *out = A;
    return PSL_OK;
fail:
    psl_matrix_destroy(&A);
    return st;
}

/* Validate and dispatch; dry: a layout-only handle (see build.h). */
static psl_status convert(psl_matrix **out, const psl_matrix *src, const psl_convert_options *opt,
                          bool dry)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *out = NULL;
    PSL_TRY(psl_matrix_check(src));
    if (!opt)
        return psl_error(PSL_ERR_NULL_POINTER, "conversion options are NULL");
    if (src->format != PSL_FORMAT_CSR || src->value_type != PSL_FP64)
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "psl_matrix_convert needs an FP64 CSR source matrix (this one is %s "
                         "%s; use psl_matrix_to_csr first)",
                         psl_format_display(src->format),
                         psl_scalar_display(src->value_type));
    PSL_TRY(psl_convert_check_options(opt));
    switch (opt->format) {
    case PSL_FORMAT_CSR: return csr_to_csr(out, src, opt);
    case PSL_FORMAT_SELL: return psl_sell_build(out, src, opt, dry);
    case PSL_FORMAT_PACKSELL: return psl_packsell_build(out, src, opt, dry);
    }
    return psl_error(PSL_ERR_INTERNAL, "unreachable format %d", (int)opt->format);
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
    if (opt && opt->format == PSL_FORMAT_CSR && src->format == PSL_FORMAT_CSR &&
        src->value_type == PSL_FP64) {
        /* CSR: the sizes follow from the source; no copy of the arrays */
        PSL_TRY(psl_convert_check_options(opt));
        PSL_TRY(psl_matrix_get_info(src, info));
        info->value_type = opt->value_type;
        info->bytes = info->csr_bytes =
            ((int64_t)info->nrows + 1) * 8 +
            info->nnz * (4 + (int64_t)psl_scalar_size(opt->value_type));
        return PSL_OK;
    }
    psl_matrix *A = NULL;
    PSL_TRY(convert(&A, src, opt, true));
    psl_status st = psl_matrix_get_info(A, info);
    psl_matrix_destroy(&A);
    return st;
}
