/*
 * mm_header.c -- the Matrix Market banner and size line: the banner
 * keywords (case-insensitive), the comment and blank lines after it, and the
 * size line with its consistency checks. Every error names its line.
 */
#include "mm_internal.h"

#include <string.h>

/* Next token of the line from *p to eol: its bounds in ts/te; 0 if none. */
static int next_token(const char **p, const char *eol, const char **ts, const char **te)
{
    const char *q = *p;
    while (q < eol && psl_mm_is_blank(*q))
        q++;
    if (q == eol)
        return 0;
    *ts = q;
    while (q < eol && !psl_mm_is_blank(*q))
        q++;
    *te = q;
    *p = q;
    return 1;
}

/* Case-insensitive comparison of a token with a lower-case keyword. */
static int keyword_is(const char *ts, const char *te, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(te - ts) != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = ts[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return 0;
    }
    return 1;
}

static const char *line_end(const char *p, const char *end)
{
    const char *e = memchr(p, '\n', (size_t)(end - p));
    return e ? e : end;
}

/* The banner: %%MatrixMarket matrix <format> <field> <symmetry>. */
static psl_status parse_banner(const char *p, const char *eol, psl_mm_header *h)
{
    const char *ts = NULL, *te = NULL;
    char tok[48];
    if (!next_token(&p, eol, &ts, &te) || !keyword_is(ts, te, "%%matrixmarket"))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                            "line 1: missing Matrix Market banner "
                            "(expected '%%%%MatrixMarket matrix <format> <field> <symmetry>')");
    if (!next_token(&p, eol, &ts, &te))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1, "line 1: banner ends before the object "
                            "('matrix')");
    if (!keyword_is(ts, te, "matrix"))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                            "line 1: unknown object '%s' in banner (expected 'matrix')",
                            psl_mm_token_text(ts, te, tok, sizeof tok));
    if (!next_token(&p, eol, &ts, &te))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1, "line 1: banner ends before the format "
                            "('coordinate' or 'array')");
    if (keyword_is(ts, te, "coordinate"))
        h->layout = PSL_MM_COORDINATE;
    else if (keyword_is(ts, te, "array"))
        h->layout = PSL_MM_ARRAY;
    else
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                            "line 1: unknown format '%s' in banner "
                            "(expected 'coordinate' or 'array')",
                            psl_mm_token_text(ts, te, tok, sizeof tok));
    if (!next_token(&p, eol, &ts, &te))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1, "line 1: banner ends before the field "
                            "('real', 'integer' or 'pattern')");
    if (keyword_is(ts, te, "real"))
        h->field = PSL_MM_REAL;
    else if (keyword_is(ts, te, "integer"))
        h->field = PSL_MM_INTEGER;
    else if (keyword_is(ts, te, "pattern"))
        h->field = PSL_MM_PATTERN;
    else if (keyword_is(ts, te, "complex"))
        return psl_error_at(PSL_ERR_UNSUPPORTED, 1, -1, -1,
                            "line 1: complex matrices are not supported");
    else
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                            "line 1: unknown field '%s' in banner "
                            "(expected 'real', 'integer' or 'pattern')",
                            psl_mm_token_text(ts, te, tok, sizeof tok));
    if (!next_token(&p, eol, &ts, &te))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1, "line 1: banner ends before the symmetry "
                            "('general', 'symmetric' or 'skew-symmetric')");
    if (keyword_is(ts, te, "general"))
        h->symmetry = PSL_MM_GENERAL;
    else if (keyword_is(ts, te, "symmetric"))
        h->symmetry = PSL_MM_SYMMETRIC;
    else if (keyword_is(ts, te, "skew-symmetric"))
        h->symmetry = PSL_MM_SKEW;
    else if (keyword_is(ts, te, "hermitian"))
        return psl_error_at(PSL_ERR_UNSUPPORTED, 1, -1, -1,
                            "line 1: hermitian matrices are not supported");
    else
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                            "line 1: unknown symmetry '%s' in banner "
                            "(expected 'general', 'symmetric' or 'skew-symmetric')",
                            psl_mm_token_text(ts, te, tok, sizeof tok));
    if (next_token(&p, eol, &ts, &te))
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1, "line 1: unexpected text '%s' after the "
                            "banner's symmetry", psl_mm_token_text(ts, te, tok, sizeof tok));
    if (h->layout == PSL_MM_ARRAY && h->field == PSL_MM_PATTERN)
        return psl_error_at(PSL_ERR_PARSE, 1, -1, -1,
                            "line 1: the pattern field is not allowed with the array format");
    return PSL_OK;
}

/* One non-negative dimension or count of the size line. */
static psl_status size_field(const char **p, const char *eol, int64_t line, const char *what,
                             int64_t max, int64_t *out, int nfields)
{
    const char *q = *p;
    char tok[48];
    while (q < eol && psl_mm_is_blank(*q))
        q++;
    if (q == eol)
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: size line has too few fields (expected %d integers: "
                            "%s)", (long long)line, nfields,
                            nfields == 3 ? "rows columns entries" : "rows columns");
    const char *next = q;
    int64_t v = 0;
    psl_num_result r = psl_mm_parse_int(q, eol, &v, &next);
    if (r == PSL_NUM_BAD)
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: %s '%s' in the size line is not an integer",
                            (long long)line, what, psl_mm_token_text(q, eol, tok, sizeof tok));
    if (r == PSL_NUM_RANGE || v > max)
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: %s '%s' in the size line exceeds the limit %lld",
                            (long long)line, what, psl_mm_token_text(q, eol, tok, sizeof tok),
                            (long long)max);
    if (v < 0)
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: %s %lld in the size line is negative", (long long)line,
                            what, (long long)v);
    *out = v;
    *p = next;
    return PSL_OK;
}

/* Entries a file of this shape and symmetry may store at most (coordinate)
 * or stores exactly (array). */
static int64_t max_entries(const psl_mm_header *h, int64_t m, int64_t n)
{
    if (h->symmetry == PSL_MM_GENERAL)
        return m * n;
    if (h->symmetry == PSL_MM_SYMMETRIC)
        return n * (n + 1) / 2;
    return n > 0 ? n * (n - 1) / 2 : 0;
}

psl_status psl_mm_parse_header(const char *data, size_t len, psl_mm_header *h)
{
    const char *p = data, *end = data + len;
    memset(h, 0, sizeof *h);
    const char *eol = line_end(p, end);
    PSL_TRY(parse_banner(p, eol, h));

    /* comments and blank lines up to the size line */
    int64_t line = 1;
    p = eol < end ? eol + 1 : end;
    for (;;) {
        if (p >= end)
            return psl_error_at(PSL_ERR_PARSE, line + 1, -1, -1,
                                "line %lld: missing size line (file ends after the header)",
                                (long long)(line + 1));
        line++;
        eol = line_end(p, end);
        const char *q = p;
        while (q < eol && psl_mm_is_blank(*q))
            q++;
        if (q < eol && *q != '%')
            break;
        p = eol < end ? eol + 1 : end;
    }

    int nfields = h->layout == PSL_MM_COORDINATE ? 3 : 2;
    int64_t m = 0, n = 0, nnz = 0;
    PSL_TRY(size_field(&p, eol, line, "number of rows", INT32_MAX, &m, nfields));
    PSL_TRY(size_field(&p, eol, line, "number of columns", INT32_MAX, &n, nfields));
    if (nfields == 3)
        PSL_TRY(size_field(&p, eol, line, "number of entries", INT64_MAX, &nnz, nfields));
    while (p < eol && psl_mm_is_blank(*p))
        p++;
    if (p < eol) {
        char tok[48];
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: size line has too many fields ('%s' after %d integers)",
                            (long long)line, psl_mm_token_text(p, eol, tok, sizeof tok),
                            nfields);
    }
    if (h->symmetry != PSL_MM_GENERAL && m != n)
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: a %s matrix must be square, but the size line says "
                            "%lld x %lld", (long long)line,
                            h->symmetry == PSL_MM_SYMMETRIC ? "symmetric" : "skew-symmetric",
                            (long long)m, (long long)n);
    int64_t cap = max_entries(h, m, n);
    if (nfields == 3 && nnz > cap)
        return psl_error_at(PSL_ERR_PARSE, line, -1, -1,
                            "line %lld: %lld entries do not fit a %lld x %lld %s matrix "
                            "(at most %lld)", (long long)line, (long long)nnz, (long long)m,
                            (long long)n,
                            h->symmetry == PSL_MM_GENERAL     ? "general"
                            : h->symmetry == PSL_MM_SYMMETRIC ? "symmetric"
                                                              : "skew-symmetric",
                            (long long)cap);
    h->nrows = (int32_t)m;
    h->ncols = (int32_t)n;
    h->entries = nfields == 3 ? nnz : cap;
    h->size_line = line;
    h->data_offset = (size_t)((eol < end ? eol + 1 : end) - data);
    return PSL_OK;
}
