/*
 * mm_internal.h -- pieces of the Matrix Market reader and writer shared by
 * the src/io/mm_*.c files: the parsed header, the entry list (COO) the
 * parallel parser fills, number parsing, source loading and CSR building.
 *
 * Reading is:  load (mm_source.c: file or gzip into one buffer)
 *           -> header (mm_header.c: banner, comments, size line)
 *           -> entries (mm_parse.c: chunks parsed in parallel, two passes)
 *           -> CSR (mm_build.c: parallel counting sort, symmetric expansion)
 *           -> psl_csr_adopt (src/format).
 */
#ifndef PSL_MM_INTERNAL_H
#define PSL_MM_INTERNAL_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ header */

typedef enum { PSL_MM_COORDINATE, PSL_MM_ARRAY } psl_mm_layout;
typedef enum { PSL_MM_REAL, PSL_MM_INTEGER, PSL_MM_PATTERN } psl_mm_field;
typedef enum { PSL_MM_GENERAL, PSL_MM_SYMMETRIC, PSL_MM_SKEW } psl_mm_symmetry;

/* What the banner and the size line say, and where the entries start. */
typedef struct psl_mm_header {
    psl_mm_layout layout;
    psl_mm_field field;
    psl_mm_symmetry symmetry;
    int32_t nrows, ncols;
    int64_t entries;      /* entries stored in the file (coordinate: the size
                             line's count; array: implied by the shape) */
    int64_t size_line;    /* 1-based line of the size line */
    size_t data_offset;   /* byte offset of the line after the size line */
} psl_mm_header;

/* Parse the banner, comments and size line of data[0..len). Errors name
 * the line (PSL_ERR_PARSE, or PSL_ERR_UNSUPPORTED for complex/hermitian). */
psl_status psl_mm_parse_header(const char *data, size_t len, psl_mm_header *h);

/* ------------------------------------------------------------ numbers */

/* Outcome of parsing one whitespace-delimited token. */
typedef enum {
    PSL_NUM_OK = 0,
    PSL_NUM_BAD,       /* not a number of the expected kind */
    PSL_NUM_RANGE,     /* integer beyond int64 */
    PSL_NUM_NONFINITE, /* nan, inf, or a real beyond the double range */
    PSL_NUM_NOMEM      /* a very long token could not be copied */
} psl_num_result;

/* True for the characters that separate tokens within a line. */
static inline int psl_mm_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}
/* True for a character that ends a token (blank or newline). */
static inline int psl_mm_is_delim(char c) { return psl_mm_is_blank(c) || c == '\n'; }

/* Parse a decimal integer ([+-]digits) starting at p; the token must end at
 * end or a delimiter. *next receives the end of the token. */
psl_num_result psl_mm_parse_int(const char *p, const char *end, int64_t *out,
                                const char **next);
/* Parse a decimal real ([+-] digits [. digits] [e [+-] digits]) starting at
 * p, correctly rounded (bit-identical to strtod). nan/inf tokens and values
 * beyond the double range give PSL_NUM_NONFINITE. */
psl_num_result psl_mm_parse_double(const char *p, const char *end, double *out,
                                   const char **next);

/* ------------------------------------------------------------ entries */

/* The entries of a file in file order, 0-based (array files included: their
 * positions are made explicit). */
typedef struct psl_mm_coo {
    int64_t n;
    int32_t *row;
    int32_t *col;
    double *val;
} psl_mm_coo;

/* Parse the data section of data[0..len) described by *h into *coo, in
 * parallel. Checks the entry count, indices, values and line syntax; the
 * error reported is the one on the smallest line. On failure *coo is empty. */
psl_status psl_mm_parse_entries(const char *data, size_t len, const psl_mm_header *h,
                                psl_mm_coo *coo);
void psl_mm_coo_free(psl_mm_coo *coo);

/* Build an FP64 CSR matrix from entries (consumed: freed in every case),
 * expanding symmetric (sign +1) or skew-symmetric (sign -1) storage when
 * expand is set. presorted: entries already give sorted, duplicate-free rows
 * (array files), so adoption may trust them. */
psl_status psl_mm_build_csr(psl_matrix **A, int32_t nrows, int32_t ncols, psl_mm_coo *coo,
                            int expand, double mirror_sign, int presorted);

/* ------------------------------------------------------------ sources */

/* Load a file into a new buffer (psl_malloc'd; release with psl_free),
 * inflating it when it starts with the gzip magic 1f 8b. */
psl_status psl_mm_load_file(const char *path, char **buf, size_t *len);
/* Inflate a gzip buffer (one or more members) into a new buffer. */
psl_status psl_mm_gunzip(const unsigned char *src, size_t srclen, char **buf, size_t *len);
/* True when data starts with the gzip magic bytes. */
static inline int psl_mm_is_gzip(const void *data, size_t len)
{
    const unsigned char *b = (const unsigned char *)data;
    return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* Copy the token at p (up to a delimiter or end) into buf for a message,
 * shortened with "..." when longer than the buffer. Returns buf. */
const char *psl_mm_token_text(const char *p, const char *end, char *buf, size_t buflen);

#endif /* PSL_MM_INTERNAL_H */
