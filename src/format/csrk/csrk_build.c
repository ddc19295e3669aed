/*
 * csrk_build.c -- FP64 CSR -> CSR-k: the CSR arrays copied with FP64, FP32
 * or FP16 values (the CSR builder), then rows grouped greedily into
 * super-rows and, for k = 3, super-rows into super-super-rows, balanced by
 * nonzeros (psl_csrk_group); the estimate, which groups the source's rows
 * without copying its arrays; the public view of the arrays.
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

/* The sizes of opt, the model's where 0, for src. */
static psl_status sizes(const psl_matrix *src, const psl_convert_options *opt, int32_t *sr,
                        int32_t *ssr)
{
    int32_t m_sr = 0, m_ssr = 0;
    PSL_TRY(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, opt->csrk_k,
                                 src->nrows ? (double)src->nnz / src->nrows : 0.0, &m_sr,
                                 &m_ssr));
    *sr = opt->csrk_sr_rows ? opt->csrk_sr_rows : m_sr;
    *ssr = opt->csrk_ssr_srs ? opt->csrk_ssr_srs : m_ssr;
    return PSL_OK;
}

psl_status psl_csrk_pointers(int32_t n, const int64_t *row_ptr, int32_t k, int32_t sr,
                             int32_t ssr, int32_t **out, int32_t *nsr_out, int32_t *nssr_out,
                             int32_t *k_out)
{
    int32_t *first = NULL, *second = NULL, *p = NULL;
    int64_t *cum = NULL;
    int32_t nsr = 0, nssr = 0;
    psl_status st = PSL_OK;
    *out = NULL;
    if (k >= 2) {
        if ((st = psl_alloc((void **)&first, (size_t)n + 1, sizeof *first,
                            "CSR-k super-row pointers")) != PSL_OK)
            goto done;
        nsr = psl_csrk_group(n, row_ptr, sr, first);
    }
    if (k == 3) {
        if ((st = psl_alloc((void **)&cum, (size_t)nsr + 1, sizeof *cum,
                            "CSR-k super-row nonzero offsets")) != PSL_OK ||
            (st = psl_alloc((void **)&second, (size_t)nsr + 1, sizeof *second,
                            "CSR-k super-super-row pointers")) != PSL_OK)
            goto done;
        for (int32_t j = 0; j <= nsr; j++)
            cum[j] = row_ptr[first[j]];
        nssr = psl_csrk_group(nsr, cum, ssr, second);
    }
    if (k == 3 && nssr <= 1)
        k = 2, nssr = 0;
    if (k == 2 && nsr <= 1)
        k = 1, nsr = 0;
    const int64_t cnt = psl_csrk_ptr_count(k, nsr, nssr);
    if (cnt > 0) {
        if ((st = psl_alloc((void **)&p, (size_t)cnt, sizeof *p, "CSR-k pointer arrays")) !=
            PSL_OK)
            goto done;
        memcpy(p, first, ((size_t)nsr + 1) * sizeof *p);
        if (k == 3)
            memcpy(p + nsr + 1, second, ((size_t)nssr + 1) * sizeof *p);
    }
    *out = p;
    *nsr_out = nsr;
    *nssr_out = nssr;
    *k_out = k;
done:
    free(first);
    free(second);
    free(cum);
    return st;
}

psl_status psl_csrk_build(psl_matrix **out, const psl_matrix *src,
                          const psl_convert_options *opt, bool dry)
{
    const int32_t n = src->nrows;
    int32_t sr, ssr, nsr = 0, nssr = 0, k = opt->csrk_k;
    PSL_TRY(sizes(src, opt, &sr, &ssr));
    psl_convert_options copt = *opt;
    copt.format = PSL_FORMAT_CSR;
    psl_matrix *A = NULL;
    int32_t *p = NULL;
    psl_status st;
    PSL_TRY(psl_csr_build(&A, src, &copt, dry));
    if ((st = psl_csrk_pointers(n, A->row_ptr, k, sr, ssr, &p, &nsr, &nssr, &k)) != PSL_OK) {
        psl_matrix_destroy(&A);
        return st;
    }
    A->format = PSL_FORMAT_CSRK;
    A->C = k;
    A->payload = p;
    A->nslices = nsr;
    A->sigma = nssr;
    A->csr_equiv_bytes =
        ((int64_t)n + 1) * 8 + A->nnz * (4 + (int64_t)psl_scalar_size(A->value_type));
    *out = A;
    return PSL_OK;
}

psl_status psl_csrk_estimate(const psl_matrix *src, const psl_convert_options *opt,
                             psl_matrix_info *info)
{
    int32_t sr, ssr, nsr = 0, nssr = 0, k = opt->csrk_k, *p = NULL;
    PSL_TRY(sizes(src, opt, &sr, &ssr));
    PSL_TRY(psl_csrk_pointers(src->nrows, src->row_ptr, k, sr, ssr, &p, &nsr, &nssr, &k));
    free(p);
    psl_status st = psl_matrix_get_info(src, info);
    if (st != PSL_OK)
        return st;
    const int64_t csr = ((int64_t)info->nrows + 1) * 8 +
                        info->nnz * (4 + (int64_t)psl_scalar_size(opt->value_type));
    info->format = PSL_FORMAT_CSRK;
    info->value_type = opt->value_type;
    info->csr_bytes = csr;
    info->csrk_k = k;
    info->csrk_super_rows = nsr;
    info->csrk_super_super_rows = nssr;
    info->csrk_overhead_bytes = 4 * psl_csrk_ptr_count(k, nsr, nssr);
    info->bytes = csr + info->csrk_overhead_bytes;
    return PSL_OK;
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
