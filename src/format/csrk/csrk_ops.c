/*
 * csrk_ops.c -- CSR-k's entry in the table of formats: its options, byte
 * counts (CSR's plus the pointer arrays), name, binary-file arrays (CSR's
 * and one of pointers, with the permutation after them for a reordered
 * matrix), kernel selectors, the reordering's permutation and the release
 * of its pointer arrays. Rows decode as CSR's (the arrays are CSR's). The
 * device form is csrk_cuda.cu's (psl_dmatrix_upload refuses a reordered
 * matrix, whose reorder_perm is set).
 */
#include "format/build.h"
#include "format/csr/csr.h"
#include "format/csrk/csrk.h"
#include "io/binfile_format.h"

#include <stdio.h>
#include <stdlib.h>

static psl_status csrk_check_options(const psl_convert_options *opt)
{
    if (opt->value_type != PSL_FP64 && opt->value_type != PSL_FP32 &&
        opt->value_type != PSL_FP16)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k stores FP64, FP32 or FP16 values, not %s (value_type %d)",
                         psl_scalar_display(opt->value_type), (int)opt->value_type);
    const int32_t k = opt->csrk_k;
    if (k < 1 || k > 3)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k levels csrk_k = %d: expected 1 (CSR), 2 (super-rows) or 3 "
                         "(super-rows and super-super-rows)",
                         (int)k);
    if (opt->csrk_sr_rows < 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k rows per super-row csrk_sr_rows = %d: expected >= 1, or 0 "
                         "for the tuning model",
                         (int)opt->csrk_sr_rows);
    if (opt->csrk_ssr_srs < 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k super-rows per super-super-row csrk_ssr_srs = %d: expected "
                         ">= 1, or 0 for the tuning model",
                         (int)opt->csrk_ssr_srs);
    if (k == 1 && opt->csrk_sr_rows != 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k with k = 1 has no super-rows (csrk_sr_rows = %d must be 0)",
                         (int)opt->csrk_sr_rows);
    if (opt->csrk_reorder != PSL_CSRK_REORDER_NONE && opt->csrk_reorder != PSL_CSRK_REORDER_RCM &&
        opt->csrk_reorder != PSL_CSRK_REORDER_BANDK)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k reordering csrk_reorder = %d: expected PSL_CSRK_REORDER_NONE "
                         "(0), _RCM (1) or _BANDK (2)",
                         (int)opt->csrk_reorder);
    if (k < 3 && opt->csrk_ssr_srs != 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k with k = %d has no super-super-rows (csrk_ssr_srs = %d must "
                         "be 0; they need k = 3)",
                         (int)k, (int)opt->csrk_ssr_srs);
    return PSL_OK;
}

static void csrk_info_bytes(const psl_matrix *A, psl_matrix_info *info)
{
    const int64_t csr = (int64_t)(A->nrows + 1) * 8 +
                        A->nnz * (4 + (int64_t)psl_scalar_size(A->value_type));
    const int64_t extra = 4 * psl_csrk_ptr_count(A->C, A->nslices, A->sigma);
    const int64_t perm = psl_csrk_reordered(A) ? 8 * (int64_t)A->nrows : 0;
    info->bytes = csr + extra + perm;
    info->sell_bytes = A->sell_equiv_bytes;
    info->csr_bytes = csr;
    /* the header's C, sigma and nslices hold CSR-k's own counts */
    info->slice_height = 0;
    info->sigma = 0;
    info->nslices = 0;
    info->csrk_k = A->C;
    info->csrk_super_rows = A->nslices;
    info->csrk_super_super_rows = A->sigma;
    info->csrk_overhead_bytes = extra;
    info->csrk_perm_bytes = perm;
    info->csrk_device_overhead_bytes =
        psl_csrk_device_overhead(psl_csrk_levels(A), A->nrows, A->ncols, A->nnz, A->row_ptr,
                                 extra);
}

static void csrk_describe(const psl_matrix *A, char *buf, size_t len)
{
    snprintf(buf, len, "CSR-k k=%d %s%s", (int)A->C, psl_scalar_name(A->value_type),
             psl_csrk_reordered(A) ? " reordered" : "");
}

static int csrk_bin_arrays(const psl_matrix *A, psl_bin_array *list)
{
    int n = 0;
    list[n++] = (psl_bin_array){PSL_BIN_ROW_PTR, 8, (uint64_t)A->nrows + 1, A->row_ptr,
                                "row_ptr"};
    list[n++] = (psl_bin_array){PSL_BIN_COL_IDX, 4, (uint64_t)A->nnz, A->col_idx, "col_idx"};
    list[n++] = (psl_bin_array){PSL_BIN_VALUES, (uint32_t)psl_scalar_size(A->value_type),
                                (uint64_t)A->nnz, A->values, "values"};
    const int64_t cnt = psl_csrk_payload_count(A);
    if (cnt > 0)
        list[n++] = (psl_bin_array){PSL_BIN_CSRK_PTR, 4, (uint64_t)cnt, A->payload,
                                    "csrk_ptr"};
    return n;
}

static void csrk_bin_adopt(psl_matrix *A, uint32_t id, void *p)
{
    switch (id) {
    case PSL_BIN_ROW_PTR: A->row_ptr = p; break;
    case PSL_BIN_COL_IDX: A->col_idx = p; break;
    case PSL_BIN_VALUES: A->values = p; break;
    default: A->payload = p; break;
    }
}

static psl_spmv_fn csrk_ref_select(const psl_matrix *A, psl_scalar vec_type)
{
    (void)vec_type;
    /* the reference is plain CSR on the same arrays */
    return A->value_type == PSL_FP64 || A->value_type == PSL_FP32 || A->value_type == PSL_FP16
               ? psl_ref_csr_spmv
               : NULL;
}

static psl_spmv_fn csrk_omp_select(const psl_matrix *A, psl_scalar vec_type)
{
    return psl_cpu_csrk_select(A->value_type, vec_type);
}

static const int32_t *csrk_reorder_perm(const psl_matrix *A) { return psl_csrk_perm(A); }

static void csrk_release(psl_matrix *A)
{
    free(A->payload);
    A->payload = NULL;
}

const psl_format_ops psl_csrk_ops = {
    .format = PSL_FORMAT_CSRK,
    .name = "CSR-k",
    .id = "csrk",
    .check_options = csrk_check_options,
    .build = psl_csrk_build,
    .estimate = psl_csrk_estimate,
    .walk_row = psl_csr_walk_row,
    .info_bytes = csrk_info_bytes,
    .describe = csrk_describe,
    .bin_arrays = csrk_bin_arrays,
    .bin_adopt = csrk_bin_adopt,
    .check_header = psl_csrk_check_header,
    .validate = psl_csrk_validate,
    .ref_select = csrk_ref_select,
    .omp_select = csrk_omp_select,
    .omp_isa = false,
    .cuda_spmv = PSL_CUDA_ENTRY(psl_csrk_cuda_entry),
    .cuda_upload = PSL_CUDA_ENTRY(psl_cuda_csrk_upload),
    .cuda_download = PSL_CUDA_ENTRY(psl_cuda_csrk_download),
    .cuda_workspace = PSL_CUDA_ENTRY(psl_cuda_csrk_workspace),
    .reorder_perm = csrk_reorder_perm,
    .release = csrk_release,
};
