/*
 * mm_write.c -- the Matrix Market writers: any matrix as coordinate real
 * general (1-based "i j v", %.17g so that reading gives the same bits) and
 * a dense vector as array real general.
 *
 * Lines are formatted in parallel: the entries are cut into blocks of
 * BLOCK_ENTRIES, a batch of blocks is formatted by the threads into their own
 * buffers, and the buffers are written in order.
 */
#include "format/format.h"
#include "mm_internal.h"
#include "io/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define BLOCK_ENTRIES ((int64_t)1 << 16)
#define MAX_LINE 64 /* "2147483647 2147483647 -2.2250738585072014e-308\n" fits */

/* Formats entries [lo, hi) into out, returns the bytes written. */
typedef size_t (*format_fn)(const void *ctx, int64_t lo, int64_t hi, char *out);

/* Decimal digits of a non-negative integer into out; returns the length. */
static size_t put_uint(char *out, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static size_t put_double(char *out, double v)
{
    int n = snprintf(out, 32, "%.17g", v);
    return n > 0 ? (size_t)n : 0;
}

/* Lines "i j v" of a CSR matrix, entries [lo, hi). */
static size_t format_csr(const void *ctx, int64_t lo, int64_t hi, char *out)
{
    const psl_matrix *M = ctx;
    const double *val = M->values;
    /* the row of entry lo: the last row whose start is <= lo (skip empty rows) */
    int64_t a = 0, b = M->nrows;
    while (a < b) {
        int64_t mid = a + (b - a) / 2;
        if (M->row_ptr[mid + 1] <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    int64_t r = a;
    char *p = out;
    for (int64_t k = lo; k < hi; k++) {
        while (M->row_ptr[r + 1] <= k)
            r++;
        p += put_uint(p, (uint64_t)r + 1);
        *p++ = ' ';
        p += put_uint(p, (uint64_t)M->col_idx[k] + 1);
        *p++ = ' ';
        p += put_double(p, val[k]);
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

/* Lines "v" of a vector, entries [lo, hi). */
static size_t format_vector(const void *ctx, int64_t lo, int64_t hi, char *out)
{
    const double *x = ctx;
    char *p = out;
    for (int64_t k = lo; k < hi; k++) {
        p += put_double(p, x[k]);
        *p++ = '\n';
    }
    return (size_t)(p - out);
}

/* Format and write `total` entries after the header. */
static psl_status write_entries(FILE *f, const char *path, int64_t total, format_fn fmt,
                                const void *ctx)
{
    psl_status st = PSL_OK;
    int64_t nbuf = 1;
#ifdef _OPENMP
    nbuf = 2 * (int64_t)omp_get_max_threads();
#endif
    int64_t nblocks = (total + BLOCK_ENTRIES - 1) / BLOCK_ENTRIES;
    if (nbuf > nblocks)
        nbuf = nblocks > 0 ? nblocks : 1;
    char *bufs = NULL;
    size_t *used = NULL;
    const size_t cap = (size_t)BLOCK_ENTRIES * MAX_LINE;
    st = psl_alloc((void **)&bufs, (size_t)nbuf, cap, "write buffers");
    if (!st)
        st = psl_alloc((void **)&used, (size_t)nbuf, sizeof *used, "write buffer sizes");
    if (st)
        goto done;
    for (int64_t b0 = 0; b0 < nblocks; b0 += nbuf) {
        int64_t nb = nblocks - b0 < nbuf ? nblocks - b0 : nbuf;
#pragma omp parallel for schedule(dynamic, 1)
        for (int64_t i = 0; i < nb; i++) {
            int64_t lo = (b0 + i) * BLOCK_ENTRIES;
            int64_t hi = lo + BLOCK_ENTRIES < total ? lo + BLOCK_ENTRIES : total;
            used[i] = fmt(ctx, lo, hi, bufs + (size_t)i * cap);
        }
        for (int64_t i = 0; i < nb; i++) {
            if (fwrite(bufs + (size_t)i * cap, 1, used[i], f) != used[i]) {
                st = psl_error(PSL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
                goto done;
            }
        }
    }
done:
    free(bufs);
    free(used);
    return st;
}

/* Header and entries through the library's output (outfile.h: a temporary
 * renamed over path when complete); every failure is PSL_ERR_IO and leaves
 * path as it was. */
static psl_status write_file(const char *path, const char *header, int64_t total,
                             format_fn fmt, const void *ctx)
{
    psl_out_file o;
    PSL_TRY(psl_out_open(&o, path));
    psl_status st = PSL_OK;
    if (fputs(header, o.f) == EOF)
        st = psl_error(PSL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    if (!st)
        st = write_entries(o.f, path, total, fmt, ctx);
    if (st) {
        psl_out_abort(&o);
        return st;
    }
    return psl_out_commit(&o);
}

psl_status psl_mm_write(const psl_matrix *A, const char *path)
{
    PSL_TRY(psl_matrix_check(A));
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "path is NULL");
    psl_matrix *tmp = NULL;
    const psl_matrix *M = A;
    if (!psl_matrix_is_fp64_csr(A)) {
        PSL_TRY(psl_matrix_to_csr(&tmp, A));
        M = tmp;
    }
    char header[160];
    snprintf(header, sizeof header, "%%%%MatrixMarket matrix coordinate real general\n"
             "%d %d %lld\n", (int)M->nrows, (int)M->ncols, (long long)M->row_ptr[M->nrows]);
    psl_status st = write_file(path, header, M->row_ptr[M->nrows], format_csr, M);
    psl_matrix_destroy(&tmp);
    return st;
}

psl_status psl_mm_write_vector(const char *path, const double *x, int64_t n)
{
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "path is NULL");
    if (n < 0 || n > INT32_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE, "vector length %lld outside 0..%d",
                         (long long)n, INT32_MAX);
    if (!x && n > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "x is NULL");
    char header[96];
    snprintf(header, sizeof header, "%%%%MatrixMarket matrix array real general\n%lld 1\n",
             (long long)n);
    return write_file(path, header, n, format_vector, x);
}
