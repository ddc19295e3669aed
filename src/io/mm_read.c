/*
 * mm_read.c -- the public Matrix Market readers: psl_mm_read (file, plain or
 * gzip), psl_mm_read_buffer (memory, plain or gzip) and psl_mm_read_vector.
 * They chain the pieces of mm_internal.h: load, header, entries, CSR.
 */
#include "mm_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Wall-clock seconds, for the PSL_TRACE phase timings. */
/* Matrix from Matrix Market text in data[0..len). */
static psl_status read_text(psl_matrix **A, const char *data, size_t len)
{
    psl_mm_header h;
    psl_mm_coo coo;
    double t0 = psl_wall_seconds();
    PSL_TRY(psl_mm_parse_header(data, len, &h));
    /* Memory, checked before each allocation that grows with the header:
     * the entries (16 B each; the text holds at most len/2 of them, a digit
     * and a separator each, so a size line larger than its file is left to
     * the parser's count), then the CSR (12 B a stored nonzero, mirrors
     * included) with its row pointers and one histogram (16 B a row). */
    char what[160];
    snprintf(what, sizeof what, "reading a %d x %d Matrix Market matrix of %lld entries",
             (int)h.nrows, (int)h.ncols, (long long)h.entries);
    PSL_TRY(psl_memory_check(16.0 * fmin((double)h.entries, (double)len / 2.0), what));
    PSL_TRY(psl_mm_parse_entries(data, len, &h, &coo));
    double stored = (double)coo.n * (h.symmetry != PSL_MM_GENERAL ? 2.0 : 1.0);
    psl_status mst = psl_memory_check(12.0 * stored + 16.0 * ((double)h.nrows + 1.0), what);
    if (mst != PSL_OK) {
        psl_mm_coo_free(&coo);
        return mst;
    }
    double t1 = psl_wall_seconds();
    psl_status st = psl_mm_build_csr(A, h.nrows, h.ncols, &coo, h.symmetry != PSL_MM_GENERAL,
                                     h.symmetry == PSL_MM_SKEW ? -1.0 : 1.0,
                                     h.layout == PSL_MM_ARRAY);
    psl_trace("mm_read: %zu bytes, %lld entries: parse %.3f s, csr %.3f s", len,
              (long long)h.entries, t1 - t0, psl_wall_seconds() - t1);
    return st;
}

/* Put "path: " in front of the last error's message, keeping its fields. */
static psl_status name_file(psl_status st, const char *path)
{
    psl_error_info info;
    psl_last_error(&info);
    return psl_error_at(st, info.line, info.row, info.col, "%s: %s", path, info.message);
}

psl_status psl_mm_read_buffer(psl_matrix **A, const char *data, size_t len)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "output matrix pointer is NULL");
    *A = NULL;
    if (!data && len)
        return psl_error(PSL_ERR_NULL_POINTER, "data is NULL");
    if (!data)
        data = "";
    if (!psl_mm_is_gzip(data, len))
        return read_text(A, data, len);
    char *text = NULL;
    size_t tlen = 0;
    PSL_TRY(psl_mm_gunzip((const unsigned char *)data, len, &text, &tlen));
    psl_status st = read_text(A, text, tlen);
    free(text);
    return st;
}

psl_status psl_mm_read(psl_matrix **A, const char *path)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "output matrix pointer is NULL");
    *A = NULL;
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "path is NULL");
    char *text = NULL;
    size_t len = 0;
    double t0 = psl_wall_seconds();
    PSL_TRY(psl_mm_load_file(path, &text, &len));
    psl_trace("mm_read: load '%s' %.3f s", path, psl_wall_seconds() - t0);
    psl_status st = read_text(A, text, len);
    free(text);
    return st ? name_file(st, path) : PSL_OK;
}

/* The vector in the entries of a one-column (or one-row) general file:
 * array entries in order, coordinate entries summed into their place. */
static psl_status assemble_vector(const psl_mm_header *h, const psl_mm_coo *coo,
                                  double **x, int64_t *n)
{
    int by_row = h->ncols == 1;
    int64_t len = by_row ? h->nrows : h->ncols;
    double *v = psl_calloc((size_t)len, sizeof *v);
    if (!v)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory for a vector of %lld entries",
                         (long long)len);
    if (h->layout == PSL_MM_ARRAY) {
        memcpy(v, coo->val, (size_t)coo->n * sizeof *v); /* keeps -0.0 */
    } else {
        for (int64_t e = 0; e < coo->n; e++)
            v[by_row ? coo->row[e] : coo->col[e]] += coo->val[e];
    }
    for (int64_t i = 0; i < len; i++) {
        if (!isfinite(v[i])) {
            free(v);
            return psl_error_at(PSL_ERR_NONFINITE, -1, by_row ? i : 0, by_row ? 0 : i,
                                "vector entry %lld: duplicate entries sum to a non-finite "
                                "value", (long long)i + 1);
        }
    }
    *x = v;
    *n = len;
    return PSL_OK;
}

psl_status psl_mm_read_vector(const char *path, double **x, int64_t *n)
{
    if (!path || !x || !n)
        return psl_error(PSL_ERR_NULL_POINTER, "%s is NULL", !path ? "path" : !x ? "x" : "n");
    psl_status st = PSL_OK;
    char *text = NULL;
    size_t len = 0;
    psl_mm_header h;
    psl_mm_coo coo;
    memset(&coo, 0, sizeof coo);
    PSL_TRY(psl_mm_load_file(path, &text, &len));
    st = psl_mm_parse_header(text, len, &h);
    if (st)
        goto fail;
    if (h.symmetry != PSL_MM_GENERAL) {
        st = psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                          "line 1: a vector file must be 'general', not symmetric");
        goto fail;
    }
    if (h.ncols != 1 && h.nrows != 1) {
        st = psl_error_at(PSL_ERR_PARSE, h.size_line, -1, -1,
                          "line %lld: a vector file must have one column (or one row), not "
                          "%d x %d", (long long)h.size_line, (int)h.nrows, (int)h.ncols);
        goto fail;
    }
    st = psl_mm_parse_entries(text, len, &h, &coo);
    if (st)
        goto fail;
    st = assemble_vector(&h, &coo, x, n);
fail:
    psl_mm_coo_free(&coo);
    free(text);
    return st ? name_file(st, path) : PSL_OK;
}
