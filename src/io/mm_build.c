/*
 * mm_build.c -- entries (COO, file order) to CSR by a parallel, stable
 * counting sort on the row index, expanding symmetric and skew-symmetric
 * storage on the way; psl_csr_adopt then sorts columns and sums duplicates.
 *
 * The entries are split into P contiguous parts, each with its own row
 * histogram; part p writes a row's entries after those of parts < p, so the
 * order inside a row is the file order (an entry, then its mirror) whatever
 * P and the number of threads are: duplicates are summed in file order.
 */
#include "mm_internal.h"

#include "format/format.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

psl_status psl_mm_build_csr(psl_matrix **A, int32_t nrows, int32_t ncols, psl_mm_coo *coo,
                            int expand, double mirror_sign, int presorted)
{
    psl_status st = PSL_OK;
    int64_t *hist = NULL, *row_ptr = NULL;
    int32_t *cols = NULL;
    double *vals = NULL;
    const int64_t n = coo->n;
    const int32_t *ri = coo->row, *ci = coo->col;
    const double *v = coo->val;
    const size_t stride = (size_t)nrows + 1;

    /* parts: one per thread, but the histograms stay below the entries' size */
    int64_t parts = 1;
#ifdef _OPENMP
    parts = omp_get_max_threads();
#endif
    int64_t per_row = n / (nrows > 0 ? nrows : 1);
    if (parts > per_row)
        parts = per_row > 1 ? per_row : 1;

    hist = psl_calloc((size_t)parts * stride, sizeof *hist);
    if (!hist) {
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory for the row histograms");
        goto fail;
    }
    st = psl_alloc((void **)&row_ptr, stride, sizeof *row_ptr, "CSR row pointers");
    if (st)
        goto fail;

#pragma omp parallel for schedule(static, 1)
    for (int64_t p = 0; p < parts; p++) {
        int64_t *hp = hist + (size_t)p * stride;
        int64_t lo = n / parts * p + (p < n % parts ? p : n % parts);
        int64_t hi = lo + n / parts + (p < n % parts ? 1 : 0);
        for (int64_t e = lo; e < hi; e++) {
            hp[ri[e]]++;
            if (expand && ri[e] != ci[e])
                hp[ci[e]]++;
        }
    }
    /* per-row offsets of each part, and the row lengths */
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < nrows; r++) {
        int64_t s = 0;
        for (int64_t p = 0; p < parts; p++) {
            int64_t t = hist[(size_t)p * stride + (size_t)r];
            hist[(size_t)p * stride + (size_t)r] = s;
            s += t;
        }
        row_ptr[r + 1] = s;
    }
    row_ptr[0] = 0;
    for (int64_t r = 0; r < nrows; r++)
        row_ptr[r + 1] += row_ptr[r];
    int64_t nnz = row_ptr[nrows];

    st = psl_alloc((void **)&cols, (size_t)nnz, sizeof *cols, "CSR column indices");
    if (!st)
        st = psl_alloc((void **)&vals, (size_t)nnz, sizeof *vals, "CSR values");
    if (st)
        goto fail;

#pragma omp parallel for schedule(static, 1)
    for (int64_t p = 0; p < parts; p++) {
        int64_t *pos = hist + (size_t)p * stride;
        int64_t lo = n / parts * p + (p < n % parts ? p : n % parts);
        int64_t hi = lo + n / parts + (p < n % parts ? 1 : 0);
        for (int64_t e = lo; e < hi; e++) {
            int32_t r = ri[e], c = ci[e];
            int64_t k = row_ptr[r] + pos[r]++;
            cols[k] = c;
            vals[k] = v[e];
            if (expand && r != c) {
                k = row_ptr[c] + pos[c]++;
                cols[k] = r;
                vals[k] = mirror_sign * v[e];
            }
        }
    }
    free(hist);
    psl_mm_coo_free(coo);
    return psl_csr_adopt(A, nrows, ncols, row_ptr, cols, vals,
                         presorted ? PSL_CSR_TRUSTED : 0u);

fail:
    free(hist);
    free(row_ptr);
    free(cols);
    free(vals);
    psl_mm_coo_free(coo);
    *A = NULL;
    return st;
}
