/*
 * mm_parse.c -- the data section of a Matrix Market file, parsed in
 * parallel into a list of entries (COO, file order).
 *
 * The section is cut into chunks at newline boundaries. Pass 1 counts the
 * lines and the entry lines (not blank, not a % comment) of every chunk in
 * parallel; prefix sums give every chunk its first line number and first
 * entry index; pass 2 parses every chunk straight into its slots of the
 * entry arrays. Each chunk stops at its first error and the error of the
 * first failing chunk (= the smallest line) is reported, so the result does
 * not depend on the number of threads.
 */
#include "mm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define CHUNK_MIN_BYTES ((size_t)1 << 16)

typedef struct chunk {
    const char *begin, *end;  /* whole lines: end is after a '\n' or the data end */
    int64_t lines;            /* lines starting in the chunk */
    int64_t entries;          /* entry lines in the chunk */
    int64_t first_line;       /* 1-based line number of begin */
    int64_t first_entry;      /* index of the chunk's first entry */
    int64_t upper_line;       /* first line with an entry above the diagonal (0: none) */
    int64_t lower_line;       /* first line with an entry below the diagonal (0: none) */
    psl_status st;            /* first error of the chunk */
    int64_t err_line;
    char msg[400];
} chunk;

static inline const char *skip_blanks(const char *p, const char *eol)
{
    while (p < eol && psl_mm_is_blank(*p))
        p++;
    return p;
}

static inline const char *line_end(const char *p, const char *end)
{
    const char *e = memchr(p, '\n', (size_t)(end - p));
    return e ? e : end;
}

static inline const char *after_line(const char *eol, const char *end)
{
    return eol < end ? eol + 1 : end;
}

/* Record the chunk's error (the first one only: parsing stops after it). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void chunk_fail(chunk *ck, psl_status st, int64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ck->st = st;
    ck->err_line = line;
    int n = snprintf(ck->msg, sizeof ck->msg, "line %lld: ", (long long)line);
    vsnprintf(ck->msg + n, sizeof ck->msg - (size_t)n, fmt, ap);
    va_end(ap);
}

/* Pass 1: lines and entry lines of a chunk. */
static void count_chunk(chunk *ck)
{
    int64_t lines = 0, entries = 0;
    const char *p = ck->begin;
    while (p < ck->end) {
        const char *eol = line_end(p, ck->end);
        const char *q = skip_blanks(p, eol);
        if (q < eol && *q != '%')
            entries++;
        lines++;
        p = after_line(eol, ck->end);
    }
    ck->lines = lines;
    ck->entries = entries;
}

/* What pass 2 needs to know. */
typedef struct parse_ctx {
    const psl_mm_header *h;
    int64_t limit;   /* parse entries [0, limit) only */
    psl_mm_coo *coo;
} parse_ctx;

/* One 1-based index of a coordinate line, checked against 1..dim. */
static int parse_index(chunk *ck, int64_t line, const char **q, const char *eol,
                       const char *what, int32_t dim, int32_t *out)
{
    char tok[48];
    const char *p = skip_blanks(*q, eol);
    if (p == eol) {
        chunk_fail(ck, PSL_ERR_PARSE, line, "missing %s index", what);
        return 0;
    }
    int64_t v = 0;
    const char *next = p;
    psl_num_result r = psl_mm_parse_int(p, eol, &v, &next);
    if (r == PSL_NUM_BAD) {
        chunk_fail(ck, PSL_ERR_PARSE, line, "%s index '%s' is not an integer", what,
                   psl_mm_token_text(p, eol, tok, sizeof tok));
        return 0;
    }
    if (r != PSL_NUM_OK || v < 1 || v > dim) {
        chunk_fail(ck, PSL_ERR_PARSE, line, "%s index %s out of range 1..%d", what,
                   psl_mm_token_text(p, eol, tok, sizeof tok), (int)dim);
        return 0;
    }
    *out = (int32_t)(v - 1);
    *q = next;
    return 1;
}

/* The value of an entry (real or integer field). */
static int parse_value(chunk *ck, int64_t line, const char **q, const char *eol,
                       psl_mm_field field, double *out)
{
    char tok[48];
    const char *p = skip_blanks(*q, eol);
    if (p == eol) {
        chunk_fail(ck, PSL_ERR_PARSE, line, "missing value (the field is %s)",
                   field == PSL_MM_REAL ? "real" : "integer");
        return 0;
    }
    const char *next = p;
    if (field == PSL_MM_INTEGER) {
        int64_t v = 0;
        psl_num_result r = psl_mm_parse_int(p, eol, &v, &next);
        if (r != PSL_NUM_OK) {
            chunk_fail(ck, PSL_ERR_PARSE, line, "value '%s' is not an integer%s",
                       psl_mm_token_text(p, eol, tok, sizeof tok),
                       r == PSL_NUM_RANGE ? " in the int64 range" : "");
            return 0;
        }
        *out = (double)v;
    } else {
        psl_num_result r = psl_mm_parse_double(p, eol, out, &next);
        if (r == PSL_NUM_BAD) {
            chunk_fail(ck, PSL_ERR_PARSE, line, "value '%s' is not a real number",
                       psl_mm_token_text(p, eol, tok, sizeof tok));
            return 0;
        }
        if (r == PSL_NUM_NONFINITE) {
            chunk_fail(ck, PSL_ERR_NONFINITE, line,
                       "value '%s' is not finite (NaN, Inf or beyond the double range)",
                       psl_mm_token_text(p, eol, tok, sizeof tok));
            return 0;
        }
        if (r == PSL_NUM_NOMEM) {
            chunk_fail(ck, PSL_ERR_OUT_OF_MEMORY, line, "out of memory copying a long number");
            return 0;
        }
    }
    *q = next;
    return 1;
}

/* Nothing but blanks may follow the last field. */
static int check_line_end(chunk *ck, int64_t line, const char *q, const char *eol,
                          const char *after)
{
    char tok[48];
    q = skip_blanks(q, eol);
    if (q < eol) {
        chunk_fail(ck, PSL_ERR_PARSE, line, "unexpected text '%s' after the %s",
                   psl_mm_token_text(q, eol, tok, sizeof tok), after);
        return 0;
    }
    return 1;
}

/* Row and column of array entry k (column-major; symmetric files store the
 * lower triangle including the diagonal, skew ones without it). */
static void array_position(const psl_mm_header *h, int64_t k, int32_t *i, int32_t *j)
{
    if (h->symmetry == PSL_MM_GENERAL) {
        *j = (int32_t)(k / h->nrows);
        *i = (int32_t)(k % h->nrows);
        return;
    }
    int64_t skip = h->symmetry == PSL_MM_SKEW ? 1 : 0;
    int32_t col = 0;
    for (;;) {
        int64_t in_col = (int64_t)h->nrows - col - skip;
        if (in_col > 0 && k < in_col)
            break;
        if (in_col > 0)
            k -= in_col;
        col++;
    }
    *j = col;
    *i = (int32_t)(col + skip + k);
}

/* Pass 2: parse the entries of a chunk into the entry arrays. */
static void parse_chunk(chunk *ck, const parse_ctx *cx)
{
    const psl_mm_header *h = cx->h;
    psl_mm_coo *coo = cx->coo;
    const char *p = ck->begin;
    int64_t line = ck->first_line;
    int64_t k = ck->first_entry;
    int coord = h->layout == PSL_MM_COORDINATE;
    int skew = h->symmetry == PSL_MM_SKEW;
    int32_t ai = 0, aj = 0; /* array position of entry k */
    if (!coord && k < cx->limit)
        array_position(h, k, &ai, &aj);
    while (p < ck->end && k < cx->limit) {
        const char *eol = line_end(p, ck->end);
        const char *q = skip_blanks(p, eol);
        if (q < eol && *q != '%') {
            double v = 1.0;
            if (coord) {
                int32_t i, j;
                if (!parse_index(ck, line, &q, eol, "row", h->nrows, &i) ||
                    !parse_index(ck, line, &q, eol, "column", h->ncols, &j))
                    return;
                if (h->field != PSL_MM_PATTERN && !parse_value(ck, line, &q, eol, h->field, &v))
                    return;
                if (!check_line_end(ck, line, q, eol, "entry"))
                    return;
                if (skew && i == j) {
                    chunk_fail(ck, PSL_ERR_PARSE, line,
                               "diagonal entry (%d,%d) in a skew-symmetric file (its diagonal "
                               "is zero and must not be stored)", (int)i + 1, (int)j + 1);
                    return;
                }
                if (h->symmetry != PSL_MM_GENERAL && i != j) {
                    int64_t *first = i < j ? &ck->upper_line : &ck->lower_line;
                    if (*first == 0)
                        *first = line;
                }
                coo->row[k] = i;
                coo->col[k] = j;
            } else {
                if (!parse_value(ck, line, &q, eol, h->field, &v) ||
                    !check_line_end(ck, line, q, eol, "value (array files hold one per line)"))
                    return;
                coo->row[k] = ai;
                coo->col[k] = aj;
                if (++ai == h->nrows) {
                    aj++;
                    ai = h->symmetry == PSL_MM_GENERAL ? 0 : aj + skew;
                }
            }
            coo->val[k] = v;
            k++;
        }
        line++;
        p = after_line(eol, ck->end);
    }
}

/* Line of entry `target` (an index inside chunk ck). */
static int64_t entry_line(const chunk *ck, int64_t target)
{
    const char *p = ck->begin;
    int64_t line = ck->first_line, k = ck->first_entry;
    while (p < ck->end) {
        const char *eol = line_end(p, ck->end);
        const char *q = skip_blanks(p, eol);
        if (q < eol && *q != '%') {
            if (k == target)
                return line;
            k++;
        }
        line++;
        p = after_line(eol, ck->end);
    }
    return line;
}

void psl_mm_coo_free(psl_mm_coo *coo)
{
    free(coo->row);
    free(coo->col);
    free(coo->val);
    memset(coo, 0, sizeof *coo);
}

/* Cut [begin, end) into about n chunks of whole lines. */
static int64_t make_chunks(const char *begin, const char *end, chunk *cks, int64_t n)
{
    size_t size = (size_t)(end - begin);
    const char *prev = begin;
    int64_t used = 0;
    for (int64_t c = 0; c < n && prev < end; c++) {
        const char *stop = end;
        if (c + 1 < n) {
            stop = begin + (size_t)((double)size * (double)(c + 1) / (double)n);
            if (stop < prev)
                stop = prev;
            if (stop > begin && stop < end && stop[-1] != '\n')
                stop = after_line(line_end(stop, end), end);
        }
        if (stop == prev)
            continue;
        memset(&cks[used], 0, sizeof cks[used]);
        cks[used].begin = prev;
        cks[used].end = stop;
        used++;
        prev = stop;
    }
    return used;
}

psl_status psl_mm_parse_entries(const char *data, size_t len, const psl_mm_header *h,
                                psl_mm_coo *coo)
{
    psl_status st = PSL_OK;
    chunk *cks = NULL;
    memset(coo, 0, sizeof *coo);
    const char *begin = data + h->data_offset, *end = data + len;
    size_t size = (size_t)(end - begin);

    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    int64_t want = (int64_t)(size / CHUNK_MIN_BYTES) + 1;
    if (want > 8 * (int64_t)threads)
        want = 8 * (int64_t)threads;
    st = psl_alloc((void **)&cks, (size_t)want, sizeof *cks, "parser chunks");
    if (st)
        goto fail;
    int64_t nck = make_chunks(begin, end, cks, want);

#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nck; c++)
        count_chunk(&cks[c]);

    int64_t line = h->size_line + 1, found = 0;
    for (int64_t c = 0; c < nck; c++) {
        cks[c].first_line = line;
        cks[c].first_entry = found;
        line += cks[c].lines;
        found += cks[c].entries;
    }
    int64_t eof_line = line; /* the line after the last one */
    int64_t expected = h->entries;
    int64_t n = found < expected ? found : expected;

    st = psl_alloc((void **)&coo->row, (size_t)n, sizeof *coo->row, "row indices");
    if (!st)
        st = psl_alloc((void **)&coo->col, (size_t)n, sizeof *coo->col, "column indices");
    if (!st)
        st = psl_alloc((void **)&coo->val, (size_t)n, sizeof *coo->val, "values");
    if (st)
        goto fail;
    coo->n = n;

    parse_ctx cx = {h, n, coo};
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t c = 0; c < nck; c++)
        parse_chunk(&cks[c], &cx);

    for (int64_t c = 0; c < nck; c++) {
        if (cks[c].st != PSL_OK) {
            st = psl_error_at(cks[c].st, cks[c].err_line, -1, -1, "%s", cks[c].msg);
            goto fail;
        }
    }
    /* A symmetric or skew-symmetric file stores one triangle (the lower one
     * by the standard; an upper-only file is accepted and mirrored alike).
     * Entries on both sides would be counted twice after expansion. */
    int64_t upper = 0, lower = 0;
    for (int64_t c = 0; c < nck; c++) {
        if (!upper && cks[c].upper_line)
            upper = cks[c].upper_line;
        if (!lower && cks[c].lower_line)
            lower = cks[c].lower_line;
    }
    if (upper && lower) {
        int64_t bad = upper > lower ? upper : lower, other = upper > lower ? lower : upper;
        st = psl_error_at(PSL_ERR_PARSE, bad, -1, -1,
                          "line %lld: entry %s the diagonal, but line %lld has one %s it: a "
                          "symmetric file must store only one triangle (the lower one)",
                          (long long)bad, upper > lower ? "above" : "below", (long long)other,
                          upper > lower ? "below" : "above");
        goto fail;
    }
    const char *how = h->layout == PSL_MM_COORDINATE ? "declared" : "implied";
    if (found < expected) {
        st = psl_error_at(PSL_ERR_PARSE, eof_line, -1, -1,
                          "line %lld: file ends after %lld of the %lld entries %s by the size "
                          "line (line %lld): truncated file?", (long long)eof_line,
                          (long long)found, (long long)expected, how,
                          (long long)h->size_line);
        goto fail;
    }
    if (found > expected) {
        int64_t c = 0; /* the chunk holding entry `expected` */
        while (c < nck && cks[c].first_entry + cks[c].entries <= expected)
            c++;
        int64_t l = entry_line(&cks[c], expected);
        st = psl_error_at(PSL_ERR_PARSE, l, -1, -1,
                          "line %lld: more entries than the %lld %s by the size line "
                          "(line %lld)", (long long)l, (long long)expected, how,
                          (long long)h->size_line);
        goto fail;
    }
    free(cks);
    return PSL_OK;

fail:
    free(cks);
    psl_mm_coo_free(coo);
    return st;
}
