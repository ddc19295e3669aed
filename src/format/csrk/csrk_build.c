/*
 * csrk_build.c -- FP64 CSR -> CSR-k: the CSR arrays copied with FP64, FP32
 * or FP16 values (the CSR builder), then rows grouped greedily into
 * super-rows and, for k = 3, super-rows into super-super-rows, balanced by
 * nonzeros (psl_csrk_group); the estimate, which groups the source's rows
 * without copying its arrays; with a locality reordering (csrk_reorder.c
 * gives the permutation) the same of P A P^T, the permutation and its
 * inverse kept after the pointer arrays; the public views of the arrays;
 * psl_matrix_create_csrk_view, CSR-k over the caller's own CSR arrays.
 */
#include "format/build.h"
#include "format/csr/csr.h"
#include "format/csrk/csrk.h"
#include "format/format.h"

#include <stdlib.h>

/* The end of the greedy group that starts at item i of n (cum, share;
 * total > 0): items until the group holds its share. */
static int32_t group_end(int32_t n, const int64_t *cum, double share, int32_t i)
{
    int64_t acc = 0;
    do {
        acc += cum[i + 1] - cum[i];
        i++;
    } while (i < n && (double)acc < share);
    return i;
}

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
        i = total == 0 ? (n - i > size ? i + size : n) : group_end(n, cum, share, i);
        first[++g] = i;
    }
    return g;
}

/* The sizes asked for (want_sr, want_ssr), the CPU model's where 0, for k
 * levels of nrows rows and nnz entries. */
static psl_status sizes(int32_t k, int32_t nrows, int64_t nnz, int32_t want_sr,
                        int32_t want_ssr, int32_t *sr, int32_t *ssr)
{
    int32_t m_sr = 0, m_ssr = 0;
    PSL_TRY(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, k, nrows ? (double)nnz / nrows : 0.0, &m_sr,
                                 &m_ssr));
    *sr = want_sr ? want_sr : m_sr;
    *ssr = want_ssr ? want_ssr : m_ssr;
    return PSL_OK;
}

/* The levels kept of k with nsr super-rows and nssr super-super-rows: a
 * level of one group says nothing its parent does not (psl_csrk_pointers). */
static void keep_levels(int32_t *k, int32_t *nsr, int32_t *nssr)
{
    if (*k == 3 && *nssr <= 1)
        *k = 2, *nssr = 0;
    if (*k == 2 && *nsr <= 1)
        *k = 1, *nsr = 0;
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
    keep_levels(&k, &nsr, &nssr);
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

void psl_csrk_count(int32_t n, const int64_t *row_ptr, int32_t k, int32_t sr, int32_t ssr,
                    int32_t *nsr_out, int32_t *nssr_out, int32_t *k_out)
{
    int32_t nsr = 0, nssr = 0;
    const int64_t total = n > 0 ? row_ptr[n] - row_ptr[0] : 0;
    const double share1 = (double)sr * (double)total / (double)(n > 0 ? n : 1);
    if (k >= 2 && n > 0) /* the super-rows, as psl_csrk_group(n, row_ptr, sr) */
        for (int32_t i = 0; i < n; nsr++)
            i = total == 0 ? (n - i > sr ? i + sr : n) : group_end(n, row_ptr, share1, i);
    if (k == 3 && nsr > 0) {
        /* the super-super-rows over the super-rows (their nonzeros the same
         * total), the super-rows walked again */
        if (total == 0) {
            nssr = nsr / ssr + (nsr % ssr != 0);
        } else {
            const double share2 = (double)ssr * (double)total / (double)nsr;
            int64_t acc = 0;
            int32_t done = 0;
            for (int32_t i = 0; i < n;) {
                const int32_t e = group_end(n, row_ptr, share1, i);
                acc += row_ptr[e] - row_ptr[i];
                i = e;
                done++;
                if (!(done < nsr && (double)acc < share2)) {
                    nssr++;
                    acc = 0;
                }
            }
        }
    }
    keep_levels(&k, &nsr, &nssr);
    *nsr_out = nsr;
    *nssr_out = nssr;
    *k_out = k;
}

int64_t psl_csrk_device_overhead(int32_t k, int32_t nrows, int32_t ncols, int64_t nnz,
                                 const int64_t *row_ptr, int64_t extra)
{
    if (nrows == 0 || ncols == 0 || nnz == 0) /* the upload groups nothing */
        return extra;
    int32_t sr = 0, ssr = 0, nsr = 0, nssr = 0, dk = 0;
    if (psl_csrk_device_sizes(k, nrows, nnz, &sr, &ssr) != PSL_OK)
        return -1;
    psl_csrk_count(nrows, row_ptr, k, sr, ssr, &nsr, &nssr, &dk);
    return extra + 4 * psl_csrk_ptr_count(dk, nsr, nssr);
}

/* A locality reordering needs a square matrix; checked before anything is
 * allocated. */
static psl_status check_square(const psl_matrix *src, const psl_convert_options *opt)
{
    if (opt->csrk_reorder != PSL_CSRK_REORDER_NONE && src->nrows != src->ncols)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k reordering '%s' needs a square matrix (this one is %d x %d): "
                         "rows and columns take the same permutation",
                         psl_csrk_reorder_name(opt->csrk_reorder), (int)src->nrows,
                         (int)src->ncols);
    return PSL_OK;
}

/* The CSR handle A made CSR-k, grouped by p (nsr, nssr, k levels; taken
 * over). */
static void as_csrk(psl_matrix *A, int32_t *p, int32_t nsr, int32_t nssr, int32_t k)
{
    A->format = PSL_FORMAT_CSRK;
    A->C = k;
    A->payload = p;
    A->nslices = nsr;
    A->sigma = nssr;
    A->csr_equiv_bytes = ((int64_t)A->nrows + 1) * 8 +
                         A->nnz * (4 + (int64_t)psl_scalar_size(A->value_type));
}

/* The CSR-k handle over a copy of the CSR arrays of src (values rounded to
 * opt->value_type), grouped by p (nsr, nssr, k levels; taken over, freed on
 * failure). */
static psl_status wrap(psl_matrix **out, const psl_matrix *src, const psl_convert_options *opt,
                       bool dry, int32_t *p, int32_t nsr, int32_t nssr, int32_t k)
{
    psl_convert_options copt = *opt;
    copt.format = PSL_FORMAT_CSR;
    psl_matrix *A = NULL;
    psl_status st = psl_csr_build(&A, src, &copt, dry);
    if (st != PSL_OK) {
        free(p);
        return st;
    }
    as_csrk(A, p, nsr, nssr, k);
    *out = A;
    return PSL_OK;
}

/* The first value of src that does not round to opt->value_type, as the
 * error psl_csr_build gives, so that it names the caller's row and column
 * (the build of P A P^T would name its own). */
static psl_status check_rounding(const psl_matrix *src, const psl_convert_options *opt)
{
    const double *v = src->values;
    for (int32_t i = 0; i < src->nrows; i++)
        for (int64_t e = src->row_ptr[i]; e < src->row_ptr[i + 1]; e++) {
            uint64_t bits;
            int uf;
            psl_status st = psl_round_scalar(opt->value_type, opt->overflow, v[e], &bits, &uf);
            if (st != PSL_OK)
                return psl_round_error(st, i, src->col_idx[e], v[e],
                                       psl_scalar_display(opt->value_type));
        }
    return PSL_OK;
}

/* The FP64 CSR of P A P^T: stored row i is row perm[i] of src, its columns
 * renumbered by inv (perm's inverse) and sorted. */
static psl_status permuted_csr(psl_matrix **out, const psl_matrix *src, const int32_t *perm,
                               const int32_t *inv)
{
    const int32_t n = src->nrows;
    const int64_t *srp = src->row_ptr;
    const double *sv = src->values;
    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&rp, (size_t)n + 1, sizeof *rp, "reordered row pointers")) !=
            PSL_OK ||
        (st = psl_alloc((void **)&ci, (size_t)src->nnz, sizeof *ci,
                        "reordered column indices")) != PSL_OK ||
        (st = psl_alloc((void **)&v, (size_t)src->nnz, sizeof *v, "reordered values")) != PSL_OK) {
        free(rp);
        free(ci);
        return st;
    }
    rp[0] = 0;
    for (int32_t i = 0; i < n; i++)
        rp[i + 1] = rp[i] + (srp[perm[i] + 1] - srp[perm[i]]);
#pragma omp parallel for schedule(static) if (n > PSL_PAR_MIN)
    for (int32_t i = 0; i < n; i++) {
        int64_t o = rp[i];
        for (int64_t e = srp[perm[i]]; e < srp[perm[i] + 1]; e++, o++) {
            ci[o] = inv[src->col_idx[e]];
            v[o] = sv[e];
        }
    }
    return psl_csr_adopt(out, n, n, rp, ci, v, 0); /* sorts each row's columns */
}

/* The CSR-k of P A P^T for the reordering opt->csrk_reorder, with perm and
 * its inverse after the pointer arrays in the payload (perm_bytes 4). */
static psl_status build_reordered(psl_matrix **out, const psl_matrix *src,
                                  const psl_convert_options *opt, int32_t sr, int32_t ssr,
                                  bool dry)
{
    const int32_t n = src->nrows;
    int32_t *perm = NULL, *p = NULL, *payload = NULL, nsr = 0, nssr = 0, k = 0;
    psl_matrix *B = NULL, *A = NULL;
    psl_status st;
    const double t0 = psl_wall_seconds();
    if ((st = check_rounding(src, opt)) != PSL_OK ||
        (st = psl_alloc((void **)&perm, 2 * (size_t)n, sizeof *perm,
                        "the CSR-k permutation")) != PSL_OK ||
        (st = psl_csrk_reorder_perm(opt->csrk_reorder, n, src->row_ptr, src->col_idx,
                                    opt->csrk_k, sr, ssr, perm, &p, &nsr, &nssr, &k)) != PSL_OK)
        goto done;
    int32_t *inv = perm + n;
    for (int32_t i = 0; i < n; i++)
        inv[perm[i]] = i;
    const double t1 = psl_wall_seconds();
    if ((st = permuted_csr(&B, src, perm, inv)) != PSL_OK)
        goto done;
    if (!p && (st = psl_csrk_pointers(n, B->row_ptr, opt->csrk_k, sr, ssr, &p, &nsr, &nssr,
                                      &k)) != PSL_OK)
        goto done;
    st = wrap(&A, B, opt, dry, p, nsr, nssr, k);
    p = NULL; /* wrap's now */
    if (st != PSL_OK)
        goto done;
    const int64_t cnt = psl_csrk_ptr_count(k, nsr, nssr);
    if ((st = psl_alloc((void **)&payload, (size_t)(cnt + 2 * (int64_t)n), sizeof *payload,
                        "CSR-k pointers and permutation")) != PSL_OK)
        goto done;
    if (cnt > 0)
        memcpy(payload, A->payload, (size_t)cnt * sizeof *payload);
    memcpy(payload + cnt, perm, 2 * (size_t)n * sizeof *payload);
    free(A->payload);
    A->payload = payload;
    A->perm_bytes = 4;
    psl_trace("csrk: reordering '%s' of %d rows: permutation %.3f s, P A P^T %.3f s",
              psl_csrk_reorder_name(opt->csrk_reorder), (int)n, t1 - t0,
              psl_wall_seconds() - t1);
    *out = A;
    A = NULL;
done:
    free(perm);
    free(p);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&A);
    return st;
}

psl_status psl_csrk_build(psl_matrix **out, const psl_matrix *src,
                          const psl_convert_options *opt, bool dry)
{
    int32_t sr, ssr, nsr = 0, nssr = 0, k = opt->csrk_k, *p = NULL;
    PSL_TRY(check_square(src, opt));
    PSL_TRY(sizes(opt->csrk_k, src->nrows, src->nnz, opt->csrk_sr_rows, opt->csrk_ssr_srs, &sr,
                  &ssr));
    if (opt->csrk_reorder != PSL_CSRK_REORDER_NONE && src->nrows > 0)
        return build_reordered(out, src, opt, sr, ssr, dry);
    PSL_TRY(psl_csrk_pointers(src->nrows, src->row_ptr, k, sr, ssr, &p, &nsr, &nssr, &k));
    return wrap(out, src, opt, dry, p, nsr, nssr, k);
}

/* The grouping the build makes of the reordered src (psl_csrk_estimate):
 * the levels and counts into *k, *nsr, *nssr. O(nnz) time and memory (the
 * reordering's graph). */
static psl_status reordered_grouping(const psl_matrix *src, const psl_convert_options *opt,
                                     int32_t sr, int32_t ssr, int32_t *k, int32_t *nsr,
                                     int32_t *nssr)
{
    const int32_t n = src->nrows;
    int32_t *perm = NULL, *p = NULL;
    int64_t *rp = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&perm, (size_t)n, sizeof *perm, "the CSR-k permutation")) !=
            PSL_OK ||
        (st = psl_csrk_reorder_perm(opt->csrk_reorder, n, src->row_ptr, src->col_idx,
                                    opt->csrk_k, sr, ssr, perm, &p, nsr, nssr, k)) != PSL_OK)
        goto done;
    if (!p) { /* RCM: the build groups the reordered rows */
        if ((st = psl_alloc((void **)&rp, (size_t)n + 1, sizeof *rp,
                            "reordered row pointers")) != PSL_OK)
            goto done;
        rp[0] = 0;
        for (int32_t i = 0; i < n; i++)
            rp[i + 1] = rp[i] + (src->row_ptr[perm[i] + 1] - src->row_ptr[perm[i]]);
        psl_csrk_count(n, rp, opt->csrk_k, sr, ssr, nsr, nssr, k);
    }
done:
    free(perm);
    free(p);
    free(rp);
    return st;
}

psl_status psl_csrk_estimate(const psl_matrix *src, const psl_convert_options *opt,
                             psl_matrix_info *info)
{
    int32_t sr, ssr, nsr = 0, nssr = 0, k = opt->csrk_k;
    const bool reorder = opt->csrk_reorder != PSL_CSRK_REORDER_NONE && src->nrows > 0;
    PSL_TRY(check_square(src, opt));
    PSL_TRY(sizes(opt->csrk_k, src->nrows, src->nnz, opt->csrk_sr_rows, opt->csrk_ssr_srs, &sr,
                  &ssr));
    if (reorder) {
        PSL_TRY(reordered_grouping(src, opt, sr, ssr, &k, &nsr, &nssr));
    } else {
        psl_csrk_count(src->nrows, src->row_ptr, k, sr, ssr, &nsr, &nssr, &k);
    }
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
    info->csrk_perm_bytes = reorder ? 8 * (int64_t)src->nrows : 0;
    info->csrk_device_overhead_bytes =
        psl_csrk_device_overhead(k, src->nrows, src->ncols, src->nnz, src->row_ptr,
                                 info->csrk_overhead_bytes);
    info->bytes = csr + info->csrk_overhead_bytes + info->csrk_perm_bytes;
    return PSL_OK;
}

psl_status psl_matrix_create_csrk_view(psl_matrix **A, int32_t nrows, int32_t ncols,
                                       const int64_t *row_ptr, const int32_t *col_idx,
                                       const void *values, psl_scalar value_type, int32_t k,
                                       int32_t sr_rows, int32_t ssr_srs)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *A = NULL;
    if (k < 1 || k > 3 || sr_rows < 0 || ssr_srs < 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k view: k = %d, sr_rows = %d, ssr_srs = %d (expected k 1, 2 or 3 "
                         "and sizes >= 0, 0 for the tuning model's)",
                         (int)k, (int)sr_rows, (int)ssr_srs);
    psl_matrix *M = NULL;
    PSL_TRY(psl_csr_view(&M, nrows, ncols, row_ptr, col_idx, values, value_type));
    int32_t sr = 0, ssr = 0, nsr = 0, nssr = 0, *p = NULL;
    psl_status st = sizes(k, nrows, M->nnz, sr_rows, ssr_srs, &sr, &ssr);
    if (st == PSL_OK)
        st = psl_csrk_pointers(nrows, row_ptr, k, sr, ssr, &p, &nsr, &nssr, &k);
    if (st != PSL_OK) {
        psl_matrix_destroy(&M);
        return st;
    }
    as_csrk(M, p, nsr, nssr, k);
    *A = M;
    return PSL_OK;
}

/* A is a CSR-k handle; who names the public call in the error. */
static psl_status check_csrk(const psl_matrix *A, const char *who)
{
    PSL_TRY(psl_matrix_check(A));
    if (A->format != PSL_FORMAT_CSRK)
        return psl_error(PSL_ERR_WRONG_FORMAT, "%s needs a CSR-k matrix (this one is %s)", who,
                         psl_format_display(A->format));
    return PSL_OK;
}

psl_status psl_matrix_csrk_view(const psl_matrix *A, int32_t *k, const int64_t **row_ptr,
                                const int32_t **col_idx, const void **values,
                                psl_scalar *value_type, int32_t *nsr, const int32_t **sr_ptr,
                                int32_t *nssr, const int32_t **ssr_ptr)
{
    PSL_TRY(check_csrk(A, "psl_matrix_csrk_view"));
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

psl_status psl_matrix_csrk_perm_view(const psl_matrix *A, const int32_t **perm,
                                     const int32_t **inv)
{
    PSL_TRY(check_csrk(A, "psl_matrix_csrk_perm_view"));
    if (perm)
        *perm = psl_csrk_perm(A);
    if (inv)
        *inv = psl_csrk_inv(A);
    return PSL_OK;
}
