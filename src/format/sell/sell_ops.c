/*
 * sell_ops.c -- SELL-C-sigma's entry in the table of formats: its options,
 * byte counts, name, binary-file arrays and kernel selectors.
 */
#include "format/build.h"
#include "format/sell/sell.h"
#include "format/sliced/sliced.h"
#include "io/binfile_format.h"

#include <stdio.h>

static psl_status sell_check_options(const psl_convert_options *opt)
{
    if (opt->value_type != PSL_FP64 && opt->value_type != PSL_FP32 &&
        opt->value_type != PSL_FP16 && opt->value_type != PSL_BF16)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "SELL stores FP64, FP32, FP16 or BF16 values (value_type %d)",
                         (int)opt->value_type);
    return psl_sliced_check_options(opt);
}

static void sell_info_bytes(const psl_matrix *A, psl_matrix_info *info)
{
    info->bytes = A->stored * (4 + (int64_t)psl_scalar_size(A->value_type)) +
                  psl_sliced_overhead_bytes(A);
    info->sell_bytes = info->bytes;
    info->csr_bytes = A->csr_equiv_bytes;
}

static void sell_describe(const psl_matrix *A, char *buf, size_t len)
{
    snprintf(buf, len, "SELL %s", psl_scalar_name(A->value_type));
}

static int sell_bin_arrays(const psl_matrix *A, psl_bin_array *list)
{
    int n = psl_sliced_bin_arrays(A, list);
    list[n++] = (psl_bin_array){PSL_BIN_SELL_COL, 4, (uint64_t)A->stored, A->sell_col,
                                "sell_col"};
    list[n++] = (psl_bin_array){PSL_BIN_SELL_VAL, (uint32_t)psl_scalar_size(A->value_type),
                                (uint64_t)A->stored, A->sell_val, "sell_val"};
    return n;
}

static void sell_bin_adopt(psl_matrix *A, uint32_t id, void *p)
{
    if (psl_sliced_bin_adopt(A, id, p))
        return;
    if (id == PSL_BIN_SELL_COL)
        A->sell_col = p;
    else
        A->sell_val = p;
}

static psl_spmv_fn sell_ref_select(const psl_matrix *A, psl_scalar vec_type)
{
    return (unsigned)A->value_type <= PSL_BF16 ? psl_ref_sell_spmv : NULL;
}

static psl_spmv_fn sell_omp_select(const psl_matrix *A, psl_scalar vec_type)
{
    return psl_cpu_sell_select(A->value_type, vec_type);
}

const psl_format_ops psl_sell_ops = {
    .format = PSL_FORMAT_SELL,
    .name = "SELL",
    .id = "sell",
    .check_options = sell_check_options,
    .build = psl_sell_build,
    .estimate = NULL,
    .walk_row = psl_sell_walk_row,
    .info_bytes = sell_info_bytes,
    .describe = sell_describe,
    .bin_arrays = sell_bin_arrays,
    .bin_adopt = sell_bin_adopt,
    .check_header = psl_sell_check_header,
    .validate = psl_sell_validate,
    .ref_select = sell_ref_select,
    .omp_select = sell_omp_select,
    .omp_isa = true,
    .cuda_spmv = PSL_CUDA_ENTRY(psl_sell_cuda_entry),
    .cuda_upload = PSL_CUDA_ENTRY(psl_cuda_sliced_upload),
    .cuda_download = PSL_CUDA_ENTRY(psl_cuda_sliced_download),
    .cuda_workspace = PSL_CUDA_ENTRY(psl_cuda_sliced_workspace),
};
