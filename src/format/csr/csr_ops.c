/*
 * csr_ops.c -- CSR's entry in the table of formats: its options, byte
 * counts, name, binary-file arrays and kernel selectors.
 */
#include "format/build.h"
#include "format/csr/csr.h"
#include "io/binfile_format.h"

#include <stdio.h>

static psl_status csr_check_options(const psl_convert_options *opt)
{
    if (opt->value_type != PSL_FP64 && opt->value_type != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR stores FP64 or FP32 values, not %s (value_type %d)",
                         psl_scalar_display(opt->value_type), (int)opt->value_type);
    return PSL_OK;
}

static void csr_info_bytes(const psl_matrix *A, psl_matrix_info *info)
{
    info->bytes = (int64_t)(A->nrows + 1) * 8 +
                  A->nnz * (4 + (int64_t)psl_scalar_size(A->value_type));
    info->sell_bytes = A->sell_equiv_bytes;
    info->csr_bytes = info->bytes;
}

static void csr_describe(const psl_matrix *A, char *buf, size_t len)
{
    snprintf(buf, len, "CSR %s", psl_scalar_name(A->value_type));
}

static int csr_bin_arrays(const psl_matrix *A, psl_bin_array *list)
{
    int n = 0;
    list[n++] = (psl_bin_array){PSL_BIN_ROW_PTR, 8, (uint64_t)A->nrows + 1, A->row_ptr,
                                "row_ptr"};
    list[n++] = (psl_bin_array){PSL_BIN_COL_IDX, 4, (uint64_t)A->nnz, A->col_idx, "col_idx"};
    list[n++] = (psl_bin_array){PSL_BIN_VALUES, (uint32_t)psl_scalar_size(A->value_type),
                                (uint64_t)A->nnz, A->values, "values"};
    return n;
}

static void csr_bin_adopt(psl_matrix *A, uint32_t id, void *p)
{
    switch (id) {
    case PSL_BIN_ROW_PTR: A->row_ptr = p; break;
    case PSL_BIN_COL_IDX: A->col_idx = p; break;
    default: A->values = p; break;
    }
}

static psl_spmv_fn csr_ref_select(const psl_matrix *A, psl_scalar vec_type)
{
    return A->value_type == PSL_FP64 || A->value_type == PSL_FP32 ? psl_ref_csr_spmv : NULL;
}

static psl_spmv_fn csr_omp_select(const psl_matrix *A, psl_scalar vec_type)
{
    return psl_cpu_csr_select(A->value_type, vec_type);
}

const psl_format_ops psl_csr_ops = {
    .format = PSL_FORMAT_CSR,
    .name = "CSR",
    .id = "csr",
    .check_options = csr_check_options,
    .build = psl_csr_build,
    .estimate = psl_csr_estimate,
    .walk_row = psl_csr_walk_row,
    .info_bytes = csr_info_bytes,
    .describe = csr_describe,
    .bin_arrays = csr_bin_arrays,
    .bin_adopt = csr_bin_adopt,
    .check_header = psl_csr_check_header,
    .validate = psl_csr_validate,
    .ref_select = csr_ref_select,
    .omp_select = csr_omp_select,
    .omp_isa = false,
    .cuda_spmv = PSL_CUDA_ENTRY(psl_csr_cuda_entry),
    .cuda_upload = PSL_CUDA_ENTRY(psl_cuda_csr_upload),
    .cuda_download = PSL_CUDA_ENTRY(psl_cuda_csr_download),
    .cuda_workspace = PSL_CUDA_ENTRY(psl_cuda_csr_workspace),
};
