/*
 * csrk_build.c -- FP64 CSR -> CSR-k: the CSR arrays copied with FP64, FP32
 * or FP16 values (the CSR builder), then rows grouped greedily into
 * super-rows and, for k = 3, super-rows into super-super-rows, balanced by
 * nonzeros (psl_csrk_group). Also the public view of the arrays.
 */
#include "format/build.h"
#include "format/csr/csr.h"
#include "format/csrk/csrk.h"

#include <stdlib.h>

int32_t psl_csrk_group(int32_t n, const int64_t *cum, int32_t size, int32_t *first)
{
    if (n <= 0) {
        first[0] = 0;
        return 0;
    }
    const int64_t total = cum[n] - cum[0];
    const double share = (double)size * (double)total / (double)n;
    int32_t g = 0, i = 0;
    first[0] = 0;
    while (i < n) {
        if (total == 0) {
            i = n - i > size ? i + size : n;
        } else {
            int64_t acc = 0;
            do {
                acc += cum[i + 1] - cum[i];
                i++;
            } while (i < n && (double)acc < share);
        }
        first[++g] = i;
    }
    return g;
}

psl_status psl_csrk_build(psl_matrix **out, const psl_matrix *src,
                          const psl_convert_options *opt, bool dry)
{
    const int32_t n = src->nrows, k = opt->csrk_k;
    int32_t sr_rows = opt->csrk_sr_rows, ssr_srs = opt->csrk_ssr_srs;
    int32_t m_sr = 0, m_ssr = 0;
    PSL_TRY(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, k,
                                 n ? (double)src->nnz / n : 0.0, &m_sr, &m_ssr));
    if (sr_rows == 0)
        sr_rows = m_sr;
    if (ssr_srs == 0)
        ssr_srs = m_ssr;

    psl_convert_options copt = *opt;
    copt.format = PSL_FORMAT_CSR;
    psl_matrix *A = NULL;
    int32_t *first = NULL, *second = NULL;
    int64_t *cum = NULL;
    psl_status st;
    PSL_TRY(psl_csr_build(&A, src, &copt, dry));
    A->format = PSL_FORMAT_CSRK;
    A->C = k;
    int32_t nsr = 0, nssr = 0;
    if (k >= 2) {
        if ((st = psl_alloc((void **)&first, (size_t)n + 1, sizeof *first,
                            "CSR-k super-row pointers")) != PSL_OK)
            goto fail;
        nsr = psl_csrk_group(n, A->row_ptr, sr_rows, first);
    }
    if (k == 3) {
        if ((st = psl_alloc((void **)&cum, (size_t)nsr + 1, sizeof *cum,
                            "CSR-k super-row nonzero offsets")) != PSL_OK ||
            (st = psl_alloc((void **)&second, (size_t)nsr + 1, sizeof *second,
                            "CSR-k super-super-row pointers")) != PSL_OK)
            goto fail;
        for (int32_t j = 0; j <= nsr; j++)
            cum[j] = A->row_ptr[first[j]];
        nssr = psl_csrk_group(nsr, cum, ssr_srs, second);
    }
    const int64_t cnt = psl_csrk_ptr_count(k, nsr, nssr);
    if (cnt > 0) {
        int32_t *p = NULL;
        if ((st = psl_alloc((void **)&p, (size_t)cnt, sizeof *p, "CSR-k pointer arrays")) !=
            PSL_OK)
            goto fail;
        memcpy(p, first, ((size_t)nsr + 1) * sizeof *p);
        if (k == 3)
            memcpy(p + nsr + 1, second, ((size_t)nssr + 1) * sizeof *p);
        A->payload = p;
    }
    A->nslices = nsr;
    A->sigma = nssr;
    A->csr_equiv_bytes =
        ((int64_t)n + 1) * 8 + A->nnz * (4 + (int64_t)psl_scalar_size(A->value_type));
    free(first);
    free(second);
    free(cum);
    *out = A;
    return PSL_OK;
fail:
    free(first);
    free(second);
    free(cum);
    psl_matrix_destroy(&A);
    return st;
}

psl_status psl_matrix_csrk_view(const psl_matrix *A, int32_t *k, const int64_t **row_ptr,
                                const int32_t **col_idx, const void **values,
                                psl_scalar *value_type, int32_t *nsr, const int32_t **sr_ptr,
                                int32_t *nssr, const int32_t **ssr_ptr)
{
    PSL_TRY(psl_matrix_check(A));
    if (A->format != PSL_FORMAT_CSRK)
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "psl_matrix_csrk_view needs a CSR-k matrix (this one is %s)",
                         psl_format_display(A->format));
    if (k)
        *k = psl_csrk_levels(A);
    if (row_ptr)
        *row_ptr = A->row_ptr;
    if (col_idx)
        *col_idx = A->col_idx;
    if (values)
        *values = A->values;
    if (value_type)
        *value_type = A->value_type;
    if (nsr)
        *nsr = psl_csrk_nsr(A);
    if (sr_ptr)
        *sr_ptr = psl_csrk_sr_ptr(A);
    if (nssr)
        *nssr = psl_csrk_nssr(A);
    if (ssr_ptr)
        *ssr_ptr = psl_csrk_ssr_ptr(A);
    return PSL_OK;
}
