/*
 * csr_create.c -- FP64 CSR handles. psl_matrix_create_csr copies caller
 * arrays (0- or 1-based, float or double values); psl_csr_adopt takes
 * ownership of 0-based arrays (readers, generators, the decoder);
 * psl_csr_view borrows them (CSR-k's views: strict arrays, FP64, FP32 or
 * FP16 values, never written). All validate the arrays, sort the columns of each row and sum duplicates in
 * input order (unless PSL_CSR_STRICT), and compute the row statistics kept on
 * the handle (max row, rsd, kleft). Every O(nnz) pass is parallel over rows
 * and deterministic: errors report the first offending row, reductions are
 * integer or over fixed blocks.
 */
#include "format/build.h"
#include "format/format.h"

#include <limits.h>
#include <stdlib.h>

/* CSR arrays as the caller gave them (validation reads them in place). */
typedef struct csr_in {
    int32_t nrows, ncols;
    const int64_t *row_ptr;
    const int32_t *col_idx;
    const void *values;
    psl_scalar vtype; /* PSL_FP64 or PSL_FP32 */
    int base;         /* 0 or 1: numbers in messages are in this base */
} csr_in;

/* What is wrong with a row (first offending entry). */
enum { ROW_OK = 0, ROW_RANGE, ROW_NONFINITE, ROW_UNSORTED, ROW_DUPLICATE };

/* Check row_ptr: first entry equals the base, non-decreasing. O(nrows). */
static psl_status check_row_ptr(const csr_in *in)
{
    const int64_t *rp = in->row_ptr;
    if (rp[0] != in->base)
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, -1, -1,
                            "row_ptr[0] is %lld but must equal the index base %d",
                            (long long)rp[0], in->base);
    for (int64_t i = 0; i < in->nrows; i++)
        if (rp[i + 1] < rp[i])
            return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, i + in->base, -1,
                                "row_ptr decreases at row %lld (%d-based): "
                                "row_ptr[%lld] = %lld < row_ptr[%lld] = %lld",
                                (long long)(i + in->base), in->base, (long long)(i + 1),
                                (long long)rp[i + 1], (long long)i, (long long)rp[i]);
    return PSL_OK;
}

/* First problem of row i (columns in range, finite values, and with strict
 * strictly increasing columns); *bad_k receives the entry (caller index). */
static int row_problem(const csr_in *in, int64_t i, bool strict, int64_t *bad_k)
{
    const int64_t b = in->base;
    const int64_t lo = in->row_ptr[i] - b, hi = in->row_ptr[i + 1] - b;
    for (int64_t k = lo; k < hi; k++) {
        int64_t c = in->col_idx[k];
        *bad_k = k;
        if (c < b || c > (int64_t)in->ncols - 1 + b)
            return ROW_RANGE;
        if (!isfinite(psl_load_scalar(in->values, in->vtype, k)))
            return ROW_NONFINITE;
        if (strict && k > lo && c <= in->col_idx[k - 1])
            return c == in->col_idx[k - 1] ? ROW_DUPLICATE : ROW_UNSORTED;
    }
    return ROW_OK;
}

/* Validate every entry; the error names the first offending row. */
static psl_status check_entries(const csr_in *in, bool strict)
{
    int64_t nnz = in->row_ptr[in->nrows] - in->base;
    int64_t first = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : first) if (nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < in->nrows; i++) {
        int64_t k;
        if (row_problem(in, i, strict, &k) != ROW_OK && i < first)
            first = i;
    }
    if (first == INT64_MAX)
        return PSL_OK;
    int64_t k = 0;
    int what = row_problem(in, first, strict, &k);
    const int b = in->base;
    const long long row = (long long)(first + b), col = in->col_idx[k];
    switch (what) {
    case ROW_RANGE:
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, row, col,
                            "column index %lld out of range [%d, %lld] in row %lld (%d-based)",
                            col, b, (long long)in->ncols - 1 + b, row, b);
    case ROW_NONFINITE:
        return psl_error_at(PSL_ERR_NONFINITE, -1, row, col,
                            "value %g at row %lld, column %lld (%d-based) is not finite",
                            psl_load_scalar(in->values, in->vtype, k), row, col, b);
    case ROW_UNSORTED:
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, row, col,
                            "columns of row %lld are not sorted: column %lld follows "
                            "column %lld (%d-based; PSL_CSR_STRICT requires ascending columns)",
                            row, col, (long long)in->col_idx[k - 1], b);
    default:
        return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, row, col,
                            "duplicate column %lld in row %lld (%d-based; PSL_CSR_STRICT "
                            "rejects duplicates)",
                            col, row, b);
    }
}

/* One entry of a row being sorted: the input position makes the order total,
 * so the sort is deterministic and duplicates are summed in input order. */
typedef struct sort_entry {
    int32_t col;
    int64_t pos;
    double val;
} sort_entry;

static int cmp_entry(const void *pa, const void *pb)
{
    const sort_entry *a = pa, *b = pb;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static bool row_is_strictly_sorted(const int32_t *ci, int64_t lo, int64_t hi)
{
    for (int64_t k = lo + 1; k < hi; k++)
        if (ci[k] <= ci[k - 1])
            return false;
    return true;
}

/* Sort the columns of every row and sum duplicates (in input order), then
 * compact the arrays if duplicates were merged. Arrays are 0-based and
 * already validated; *col_idx / *values may be replaced. base only numbers
 * rows in messages. */
static psl_status sort_rows(int32_t nrows, int64_t *row_ptr, int32_t **col_idx_p,
                            double **values_p, int base)
{
    int32_t *ci = *col_idx_p;
    double *val = *values_p;
    const int64_t nnz = row_ptr[nrows];
    int64_t *scr_off = NULL, *newlen = NULL;
    sort_entry *scr = NULL;
    int32_t *nci = NULL;
    double *nval = NULL;
    psl_status st = PSL_OK;

    int64_t nfix = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : nfix) if (nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < nrows; i++)
        nfix += !row_is_strictly_sorted(ci, row_ptr[i], row_ptr[i + 1]);
    if (nfix == 0)
        return PSL_OK;

    /* scratch offsets: only the rows that need work take scratch space */
    if ((st = psl_alloc((void **)&scr_off, (size_t)nrows + 1, sizeof *scr_off,
                        "row sort offsets")) != PSL_OK ||
        (st = psl_alloc((void **)&newlen, (size_t)nrows, sizeof *newlen, "row lengths")) !=
            PSL_OK)
        goto fail;
    scr_off[0] = 0;
#pragma omp parallel for schedule(dynamic, 256) if (nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < nrows; i++) {
        int64_t len = row_ptr[i + 1] - row_ptr[i];
        bool fix = !row_is_strictly_sorted(ci, row_ptr[i], row_ptr[i + 1]);
        scr_off[i + 1] = fix ? len : 0; /* newlen -1 marks the rows to sort */
        newlen[i] = fix ? -1 : len;
    }
    for (int64_t i = 0; i < nrows; i++)
        scr_off[i + 1] += scr_off[i];
    if ((st = psl_alloc((void **)&scr, (size_t)scr_off[nrows], sizeof *scr, "row sort scratch")) !=
        PSL_OK)
        goto fail;

    int64_t first_bad = INT64_MAX;
#pragma omp parallel for schedule(dynamic, 64) reduction(min : first_bad) if (nnz > PSL_PAR_MIN)
    for (int64_t i = 0; i < nrows; i++) {
        if (newlen[i] >= 0)
            continue;
        const int64_t lo = row_ptr[i], len = row_ptr[i + 1] - lo;
        sort_entry *e = scr + scr_off[i];
        for (int64_t k = 0; k < len; k++)
            e[k] = (sort_entry){ci[lo + k], k, val[lo + k]};
        qsort(e, (size_t)len, sizeof *e, cmp_entry);
        int64_t t = lo;
        for (int64_t k = 0; k < len; k++) {
            if (t > lo && ci[t - 1] == e[k].col) {
                val[t - 1] += e[k].val;
            } else {
                ci[t] = e[k].col;
                val[t] = e[k].val;
                t++;
            }
        }
        newlen[i] = t - lo;
        for (int64_t k = lo; k < t; k++)
            if (!isfinite(val[k]) && i < first_bad)
                first_bad = i;
    }
    if (first_bad != INT64_MAX) {
        int64_t k = row_ptr[first_bad];
        while (isfinite(val[k]))
            k++;
        st = psl_error_at(PSL_ERR_NONFINITE, -1, first_bad + base, ci[k] + base,
                          "duplicate entries at row %lld, column %lld (%d-based) sum to %g",
                          (long long)(first_bad + base), (long long)ci[k] + base, base, val[k]);
        goto fail;
    }

    /* compact when duplicates were merged: new prefix sums into scr_off */
    scr_off[0] = 0;
    for (int64_t i = 0; i < nrows; i++)
        scr_off[i + 1] = scr_off[i] + newlen[i];
    const int64_t new_nnz = scr_off[nrows];
    if (new_nnz != nnz) {
        if ((st = psl_alloc((void **)&nci, (size_t)new_nnz, sizeof *nci, "column indices")) !=
                PSL_OK ||
            (st = psl_alloc((void **)&nval, (size_t)new_nnz, sizeof *nval, "values")) != PSL_OK)
            goto fail;
#pragma omp parallel for schedule(dynamic, 256) if (nnz > PSL_PAR_MIN)
        for (int64_t i = 0; i < nrows; i++) {
            memcpy(nci + scr_off[i], ci + row_ptr[i], (size_t)newlen[i] * sizeof *nci);
            memcpy(nval + scr_off[i], val + row_ptr[i], (size_t)newlen[i] * sizeof *nval);
        }
        memcpy(row_ptr, scr_off, ((size_t)nrows + 1) * sizeof *row_ptr);
        free(ci);
        free(val);
        *col_idx_p = nci;
        *values_p = nval;
        nci = NULL;
        nval = NULL;
    }
fail:
    free(nci);
    free(nval);
    free(scr);
    free(newlen);
    free(scr_off);
    return st;
}

/* Rows per block of the deterministic rsd sum. */
#define RSD_BLOCK 8192

/* Row statistics of a 0-based sorted CSR: max row length, kleft (0 if no
 * entries), rsd. Deterministic: integer reductions, and the squared
 * deviations summed per fixed block of rows, then the blocks in order. */
static psl_status row_stats(psl_matrix *A)
{
    const int64_t *rp = A->row_ptr;
    const int32_t *ci = A->col_idx;
    const int64_t n = A->nrows;
    int64_t maxlen = 0, kleft = INT64_MIN;
#pragma omp parallel for reduction(max : maxlen, kleft) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        int64_t len = rp[i + 1] - rp[i];
        if (len > maxlen)
            maxlen = len;
        if (len > 0 && i - ci[rp[i]] > kleft)
            kleft = i - ci[rp[i]];
    }
    A->max_row_nnz = maxlen > INT32_MAX ? INT32_MAX : (int32_t)maxlen;
    A->kleft = kleft == INT64_MIN ? 0 : kleft;
    A->rsd = 0.0;
    if (A->nnz == 0 || n == 0)
        return PSL_OK;

    const double mean = (double)A->nnz / (double)n;
    const int64_t nblk = (n + RSD_BLOCK - 1) / RSD_BLOCK;
    double *part = NULL;
    PSL_TRY(psl_alloc((void **)&part, (size_t)nblk, sizeof *part, "row statistics"));
#pragma omp parallel for if (nblk > 1)
    for (int64_t b = 0; b < nblk; b++) {
        double s = 0.0;
        int64_t hi = (b + 1) * RSD_BLOCK < n ? (b + 1) * RSD_BLOCK : n;
        for (int64_t i = b * RSD_BLOCK; i < hi; i++) {
            double d = (double)(rp[i + 1] - rp[i]) - mean;
            s += d * d;
        }
        part[b] = s;
    }
    double ss = 0.0;
    for (int64_t b = 0; b < nblk; b++)
        ss += part[b];
    free(part);
    A->rsd = sqrt(ss / (double)n) / mean;
    return PSL_OK;
}

/* Sort/deduplicate (when sort), compute statistics and wrap the arrays in a
 * handle. Takes ownership of the arrays: freed on failure. */
static psl_status csr_finish(psl_matrix **out, int32_t nrows, int32_t ncols, int64_t *row_ptr,
                             int32_t *col_idx, double *values, bool sort, int base)
{
    psl_status st = PSL_OK;
    psl_matrix *A = NULL;
    if (sort && (st = sort_rows(nrows, row_ptr, &col_idx, &values, base)) != PSL_OK)
        goto fail;
    A = psl_matrix_new(PSL_FORMAT_CSR, nrows, ncols);
    if (!A) {
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
        goto fail;
    }
    A->row_ptr = row_ptr;
    A->col_idx = col_idx;
    A->values = values;
    row_ptr = NULL;
    col_idx = NULL;
    values = NULL;
    A->nnz = A->row_ptr[nrows];
    A->value_type = PSL_FP64;
    A->stored = A->nnz;
    if ((st = row_stats(A)) != PSL_OK)
        goto fail;
    *out = A;
    return PSL_OK;
fail:
    psl_matrix_destroy(&A);
    free(row_ptr);
    free(col_idx);
    free(values);
    return st;
}

psl_status psl_csr_adopt(psl_matrix **A, int32_t nrows, int32_t ncols, int64_t *row_ptr,
                         int32_t *col_idx, double *values, unsigned flags)
{
    psl_status st = PSL_OK;
    if (A)
        *A = NULL;
    if (!A || !row_ptr) {
        st = psl_error(PSL_ERR_NULL_POINTER, "%s is NULL", A ? "row_ptr" : "output handle");
        goto fail;
    }
    if (nrows < 0 || ncols < 0) {
        st = psl_error(PSL_ERR_INVALID_VALUE, "matrix dimensions %ld x %ld must be >= 0",
                       (long)nrows, (long)ncols);
        goto fail;
    }
    csr_in in = {nrows, ncols, row_ptr, col_idx, values, PSL_FP64, 0};
    if ((st = check_row_ptr(&in)) != PSL_OK)
        goto fail;
    if (row_ptr[nrows] > 0 && (!col_idx || !values)) {
        st = psl_error(PSL_ERR_NULL_POINTER, "col_idx or values is NULL with %lld entries",
                       (long long)row_ptr[nrows]);
        goto fail;
    }
    bool trusted = (flags & PSL_CSR_TRUSTED) != 0, strict = (flags & PSL_CSR_STRICT) != 0;
    if (!trusted && (st = check_entries(&in, strict)) != PSL_OK)
        goto fail;
    return csr_finish(A, nrows, ncols, row_ptr, col_idx, values, !trusted && !strict, 0);
fail:
    free(row_ptr);
    free(col_idx);
    free(values);
    return st;
}

/* The caller's arrays of in, all checked (row_ptr given): the row
 * pointers, the columns and values present where there are entries, and
 * the entries (check_entries). */
static psl_status check_arrays(const csr_in *in, bool strict)
{
    PSL_TRY(check_row_ptr(in));
    const int64_t nnz = in->row_ptr[in->nrows] - in->base;
    if (nnz > 0 && (!in->col_idx || !in->values))
        return psl_error(PSL_ERR_NULL_POINTER, "%s is NULL with %lld entries",
                         in->col_idx ? "values" : "col_idx", (long long)nnz);
    return check_entries(in, strict);
}

psl_status psl_csr_view(psl_matrix **out, int32_t nrows, int32_t ncols, const int64_t *row_ptr,
                        const int32_t *col_idx, const void *values, psl_scalar value_type)
{
    *out = NULL;
    if (nrows < 0 || ncols < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "matrix dimensions %ld x %ld must be >= 0",
                         (long)nrows, (long)ncols);
    if (value_type != PSL_FP64 && value_type != PSL_FP32 && value_type != PSL_FP16)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "a CSR-k view takes PSL_FP64, PSL_FP32 or PSL_FP16 values (got %d)",
                         (int)value_type);
    if (!row_ptr)
        return psl_error(PSL_ERR_NULL_POINTER, "row_ptr is NULL (a view needs nrows + 1 = %lld "
                         "entries, also for an empty matrix)", (long long)nrows + 1);
    const csr_in in = {nrows, ncols, row_ptr, col_idx, values, value_type, 0};
    PSL_TRY(check_arrays(&in, true));
    const int64_t nnz = row_ptr[nrows];
    psl_matrix *A = psl_matrix_new(PSL_FORMAT_CSR, nrows, ncols);
    if (!A)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the matrix handle");
    A->borrowed = true;
    A->row_ptr = (int64_t *)row_ptr; /* never written through: borrowed */
    A->col_idx = (int32_t *)col_idx;
    A->values = (void *)values;
    A->nnz = nnz;
    A->value_type = value_type;
    A->stored = nnz;
    psl_status st = row_stats(A);
    if (st != PSL_OK) {
        psl_matrix_destroy(&A);
        return st;
    }
    *out = A;
    return PSL_OK;
}

psl_status psl_matrix_create_csr(psl_matrix **A, int32_t nrows, int32_t ncols,
                                 const int64_t *row_ptr, const int32_t *col_idx,
                                 const void *values, psl_scalar value_type, int index_base,
                                 unsigned flags)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *A = NULL;
    if (nrows < 0 || ncols < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "matrix dimensions %ld x %ld must be >= 0",
                         (long)nrows, (long)ncols);
    if (index_base != 0 && index_base != 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "index_base is %d, must be 0 or 1", index_base);
    if (value_type != PSL_FP64 && value_type != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR input values must be PSL_FP64 or PSL_FP32 (got %d)",
                         (int)value_type);
    if (flags & ~(unsigned)PSL_CSR_STRICT)
        return psl_error(PSL_ERR_INVALID_VALUE, "unknown flags 0x%x (only PSL_CSR_STRICT)",
                         flags & ~(unsigned)PSL_CSR_STRICT);
    if (!row_ptr && nrows > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "row_ptr is NULL for %ld rows", (long)nrows);

    static const int64_t empty_ptr[1] = {0};
    static const int64_t empty_ptr1[1] = {1};
    if (!row_ptr) /* nrows == 0: an empty matrix needs no arrays */
        row_ptr = index_base ? empty_ptr1 : empty_ptr;
    const csr_in in = {nrows, ncols, row_ptr, col_idx, values, value_type, index_base};
    const bool strict = (flags & PSL_CSR_STRICT) != 0;
    PSL_TRY(check_arrays(&in, strict));
    const int64_t nnz = row_ptr[nrows] - index_base;

    int64_t *rp = NULL;
    int32_t *ci = NULL;
    double *v = NULL;
    psl_status st;
    if ((st = psl_alloc((void **)&rp, (size_t)nrows + 1, sizeof *rp, "row pointers")) != PSL_OK ||
        (st = psl_alloc((void **)&ci, (size_t)nnz, sizeof *ci, "column indices")) != PSL_OK ||
        (st = psl_alloc((void **)&v, (size_t)nnz, sizeof *v, "values")) != PSL_OK) {
        free(rp);
        free(ci);
        free(v);
        return st;
    }
#pragma omp parallel for if (nrows > PSL_PAR_MIN)
    for (int64_t i = 0; i <= nrows; i++)
        rp[i] = row_ptr[i] - index_base;
#pragma omp parallel for if (nnz > PSL_PAR_MIN)
    for (int64_t k = 0; k < nnz; k++) {
        ci[k] = col_idx[k] - index_base;
        v[k] = psl_load_scalar(values, value_type, k);
    }
    return csr_finish(A, nrows, ncols, rp, ci, v, !strict, index_base);
}
