/*
 * sliced_common.c -- the slicing options, byte counts and binary-file
 * records that SELL-C-sigma and PackSELL share (sliced.h).
 */
#include "format/sliced/sliced.h"
#include "io/binfile_format.h"

psl_status psl_sliced_check_options(const psl_convert_options *opt)
{
    if (opt->slice_height < 1 || opt->slice_height > PSL_SLICE_HEIGHT_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "slice height C = %ld must be in 1..%d (PSL_SLICE_HEIGHT_MAX: a taller "
                         "slice only pads)",
                         (long)opt->slice_height, PSL_SLICE_HEIGHT_MAX);
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

int64_t psl_sliced_overhead_bytes(const psl_matrix *A)
{
    int64_t nslice_bytes = ((int64_t)A->nslices + 1) * 8;
    int64_t perm_bytes =
        A->permute == PSL_PERMUTE_IMPLICIT ? (int64_t)A->nrows * A->perm_bytes : 0;
    return nslice_bytes + perm_bytes;
}

int psl_sliced_bin_arrays(const psl_matrix *A, psl_bin_array *list)
{
    int n = 0;
    list[n++] = (psl_bin_array){PSL_BIN_SLICE_PTR, 8, (uint64_t)A->nslices + 1, A->slice_ptr,
                                "slice_ptr"};
    if (A->sigma > 0)
        list[n++] = (psl_bin_array){PSL_BIN_PERM, (uint32_t)A->perm_bytes, (uint64_t)A->nrows,
                                    A->perm, "perm"};
    return n;
}

bool psl_sliced_bin_adopt(psl_matrix *A, uint32_t id, void *p)
{
    switch (id) {
    case PSL_BIN_SLICE_PTR: A->slice_ptr = p; return true;
    case PSL_BIN_PERM: A->perm = p; return true;
    }
    return false;
}
