/*
 * csrk.h -- the entries of CSR-k that its folder's files share: the layout
 * of its pointer arrays behind A->payload (see core/internal.h), the
 * grouping, the tuning model's table and the table entry psl_csrk_ops
 * (csrk_ops.c).
 */
#ifndef PSL_FORMAT_CSRK_H
#define PSL_FORMAT_CSRK_H

#include "format/format_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const psl_format_ops psl_csrk_ops;

/* Levels of a CSR-k matrix (C holds k), its super-rows (nslices) and
 * super-super-rows (sigma). */
static inline int32_t psl_csrk_levels(const psl_matrix *A) { return A->C; }
static inline int32_t psl_csrk_nsr(const psl_matrix *A) { return A->nslices; }
static inline int32_t psl_csrk_nssr(const psl_matrix *A) { return A->sigma; }
/* sr_ptr (nsr+1 entries; NULL for k = 1) and ssr_ptr (nssr+1; NULL unless
 * k = 3): one int32 array behind payload. */
static inline const int32_t *psl_csrk_sr_ptr(const psl_matrix *A)
{
    return A->C >= 2 ? (const int32_t *)A->payload : NULL;
}
static inline const int32_t *psl_csrk_ssr_ptr(const psl_matrix *A)
{
    return A->C == 3 ? (const int32_t *)A->payload + A->nslices + 1 : NULL;
}
/* Entries of the payload array for k, nsr, nssr. */
static inline int64_t psl_csrk_ptr_count(int32_t k, int32_t nsr, int32_t nssr)
{
    return (k >= 2 ? (int64_t)nsr + 1 : 0) + (k == 3 ? (int64_t)nssr + 1 : 0);
}

/* Greedy grouping of n items (rows or super-rows) whose nonzeros are
 * cum[i+1] - cum[i] (cum non-decreasing, n+1 entries): a group takes items
 * until it holds its share, size x total / n nonzeros (total = cum[n] -
 * cum[0]); without nonzeros, groups of size items. first[g] receives the
 * first item of group g and first[ngroups] = n (first has n + 1 entries).
 * Linear time. Returns the number of groups (0 for n = 0). */
int32_t psl_csrk_group(int32_t n, const int64_t *cum, int32_t size, int32_t *first);

/* One row of the tuning model of a device kind: for d = nnz/rows up to
 * d_max, rows per super-row round(sr_a - sr_b ln d) and super-rows per
 * super-super-row round(ssr_a - ssr_b ln d); lanes is the vector width of
 * the GPU kernel for that range (1 on the CPU). */
typedef struct psl_csrk_fit {
    double d_max;
    double sr_a, sr_b, ssr_a, ssr_b;
    int32_t lanes;
} psl_csrk_fit;

/* The table of device kind dev (ending with a row of d_max = +Inf), its
 * row count in *n; NULL for an unknown kind (csrk_model.c). */
const psl_csrk_fit *psl_csrk_model_table(psl_csrk_device dev, int *n);

/* psl_format_ops.build and .estimate (csrk_build.c) and .check_header / .validate
 * (csrk_validate.c). */
psl_status psl_csrk_build(psl_matrix **out, const psl_matrix *src,
                          const psl_convert_options *opt, bool dry);
/* psl_format_ops.estimate: the build's statistics from the source's row
 * pointers alone (O(nrows) memory). */
psl_status psl_csrk_estimate(const psl_matrix *src, const psl_convert_options *opt,
                             psl_matrix_info *info);
psl_status psl_csrk_check_header(const char *file, const psl_matrix *A);
psl_status psl_csrk_validate(const char *file, const psl_matrix *A);

#ifdef __cplusplus
}
#endif
#endif /* PSL_FORMAT_CSRK_H */
