/*
 * packsell_ops.c -- PackSELL's entry in the table of formats: its options,
 * byte counts, name, binary-file arrays and kernel selectors.
 */
#include "format/build.h"
#include "format/packsell/packsell.h"
#include "format/sliced/sliced.h"
#include "io/binfile_format.h"

#include <stdio.h>

static psl_status packsell_check_options(const psl_convert_options *opt)
{
    PSL_TRY(psl_codec_check(opt->codec));
    return psl_sliced_check_options(opt);
}

static void packsell_info_bytes(const psl_matrix *A, psl_matrix_info *info)
{
    info->bytes = A->stored * 4 + psl_sliced_overhead_bytes(A);
    info->sell_bytes = A->sell_equiv_bytes;
    info->csr_bytes = A->csr_equiv_bytes;
}

static void packsell_describe(const psl_matrix *A, char *buf, size_t len)
{
    char codec[16];
    if (psl_codec_name(A->codec, codec, sizeof codec) == PSL_OK)
        snprintf(buf, len, "PackSELL %s", codec);
    else
        snprintf(buf, len, "PackSELL (invalid codec)");
}

static int packsell_bin_arrays(const psl_matrix *A, psl_bin_array *list)
{
    int n = psl_sliced_bin_arrays(A, list);
    list[n++] = (psl_bin_array){PSL_BIN_WORDS, 4, (uint64_t)A->stored, A->words, "words"};
    return n;
}

static void packsell_bin_adopt(psl_matrix *A, uint32_t id, void *p)
{
    if (!psl_sliced_bin_adopt(A, id, p))
        A->words = p;
}

static psl_spmv_fn packsell_ref_select(const psl_matrix *A, psl_scalar vec_type)
{
    return psl_codec_check(A->codec) == PSL_OK ? psl_ref_packsell_spmv : NULL;
}

static psl_spmv_fn packsell_omp_select(const psl_matrix *A, psl_scalar vec_type)
{
    return psl_cpu_packsell_select(A->codec, vec_type);
}

const psl_format_ops psl_packsell_ops = {
    .format = PSL_FORMAT_PACKSELL,
    .name = "PackSELL",
    .id = "packsell",
    .check_options = packsell_check_options,
    .build = psl_packsell_build,
    .estimate = NULL,
    .walk_row = psl_packsell_walk_row,
    .info_bytes = packsell_info_bytes,
    .describe = packsell_describe,
    .bin_arrays = packsell_bin_arrays,
    .bin_adopt = packsell_bin_adopt,
    .check_header = psl_packsell_check_header,
    .validate = psl_packsell_validate,
    .ref_select = packsell_ref_select,
    .omp_select = packsell_omp_select,
    .omp_isa = true,
    .cuda_spmv = PSL_CUDA_ENTRY(psl_packsell_cuda_entry),
    .cuda_upload = PSL_CUDA_ENTRY(psl_cuda_sliced_upload),
    .cuda_download = PSL_CUDA_ENTRY(psl_cuda_sliced_download),
    .cuda_workspace = PSL_CUDA_ENTRY(psl_cuda_sliced_workspace),
};
