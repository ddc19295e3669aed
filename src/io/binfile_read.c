/*
 * binfile_read.c -- psl_matrix_load / psl_matrix_load_buffer: parse the
 * binary layout of binfile_format.h from a file or a memory buffer and
 * validate it completely, so that a damaged or hostile file gives
 * PSL_ERR_FILE_CORRUPT (or PSL_ERR_FILE_VERSION) with a message naming what
 * is wrong, and never an out-of-bounds access, an overflowed size or an
 * allocation larger than the file.
 *
 * Order: preamble, header CRC, header fields, the total size of the arrays
 * against the remaining bytes (before any allocation), each record and its
 * CRC, then the structure (binfile_read.c's validate_* functions, parallel
 * and O(size)). A parallel check finds the first failing item (row, slice or
 * sigma block) and then re-checks that one item serially to write the
 * message, so the error is the same whatever the number of threads.
 */
#define _POSIX_C_SOURCE 200809L /* fstat */

#include "format/word.h"
#include "io/binfile_format.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ byte source */

/* A file or a memory buffer read front to back. */
typedef struct bin_src {
    const unsigned char *buf; /* memory source, or NULL */
    FILE *fp;                 /* file source when buf is NULL */
    uint64_t size, pos;
    const char *name; /* for messages: the path, or "buffer" */
} bin_src;

static uint64_t src_left(const bin_src *s) { return s->size - s->pos; }

/* Read n bytes (already checked to be within the source) into dst. */
static psl_status src_read(bin_src *s, void *dst, uint64_t n, const char *what)
{
    if (n > src_left(s))
        return psl_error(PSL_ERR_FILE_CORRUPT,
                         "%s: truncated: %s needs %llu bytes at offset %llu but only %llu "
                         "remain",
                         s->name, what, (unsigned long long)n, (unsigned long long)s->pos,
                         (unsigned long long)src_left(s));
    if (s->buf) {
        if (n)
            memcpy(dst, s->buf + s->pos, (size_t)n);
    } else {
        unsigned char *d = dst;
        uint64_t left = n;
        while (left > 0) {
            size_t chunk = left > (UINT64_C(1) << 30) ? (size_t)1 << 30 : (size_t)left;
            size_t got = fread(d, 1, chunk, s->fp);
            if (got != chunk) {
                if (ferror(s->fp))
                    return psl_error(PSL_ERR_IO, "%s: read error in %s: %s", s->name, what,
                                     strerror(errno));
                return psl_error(PSL_ERR_FILE_CORRUPT,
                                 "%s: file ended early in %s (did it change while being "
                                 "read?)",
                                 s->name, what);
            }
            d += chunk;
            left -= chunk;
        }
    }
    s->pos += n;
    return PSL_OK;
}

/* Skip n bytes (records of a newer minor version). */
static psl_status src_skip(bin_src *s, uint64_t n, const char *what)
{
    unsigned char scratch[4096];
    while (n > 0) {
        uint64_t chunk = n < sizeof scratch ? n : sizeof scratch;
        PSL_TRY(src_read(s, scratch, chunk, what));
        n -= chunk;
    }
    return PSL_OK;
}

/* ------------------------------------------------------------ header */

#define CORRUPT(s, ...) psl_error(PSL_ERR_FILE_CORRUPT, __VA_ARGS__)

/* Check the preamble and read + CRC-check the header block into a new
 * buffer *hdr of *hdr_bytes bytes; *minor receives the minor version. */
static psl_status read_preamble(bin_src *s, unsigned char **hdr, uint32_t *hdr_bytes,
                                unsigned *minor)
{
    unsigned char pre[PSL_BIN_PREAMBLE_BYTES];
    *hdr = NULL;
    if (s->size < PSL_BIN_MAGIC_LEN)
        return CORRUPT(s, "%s: not a packsell binary file (only %llu bytes)", s->name,
                       (unsigned long long)s->size);
    PSL_TRY(src_read(s, pre, PSL_BIN_MAGIC_LEN, "the magic"));
    if (!psl_bin_has_magic(pre, PSL_BIN_MAGIC_LEN))
        return CORRUPT(s, "%s: not a packsell binary file (wrong magic bytes)", s->name);
    PSL_TRY(src_read(s, pre + PSL_BIN_MAGIC_LEN, PSL_BIN_PREAMBLE_BYTES - PSL_BIN_MAGIC_LEN,
                     "the preamble"));
    uint32_t bom = psl_le_get32(pre + 12);
    if (bom == 0x04030201u)
        return CORRUPT(s, "%s: big-endian packsell file; only little-endian files exist",
                       s->name);
    if (bom != PSL_BIN_BOM)
        return CORRUPT(s, "%s: bad byte-order marker 0x%08x (expected 0x%08x)", s->name,
                       (unsigned)bom, (unsigned)PSL_BIN_BOM);
    unsigned major = psl_le_get16(pre + 8);
    *minor = psl_le_get16(pre + 10);
    if (major != PSL_BIN_MAJOR)
        return psl_error(PSL_ERR_FILE_VERSION,
                         "%s: packsell binary file version %u.%u; this libpacksell (%d.%d.%d) "
                         "reads versions %d.x (up to %d.%d, and newer minor versions of %d "
                         "without their additions)",
                         s->name, major, *minor, PSL_VERSION_MAJOR, PSL_VERSION_MINOR,
                         PSL_VERSION_PATCH, PSL_BIN_MAJOR, PSL_BIN_MAJOR, PSL_BIN_MINOR,
                         PSL_BIN_MAJOR);
    uint32_t hb = psl_le_get32(pre + 16);
    if (hb < PSL_BIN_HEADER_BYTES || hb > PSL_BIN_HEADER_MAX || hb % 8 != 0)
        return CORRUPT(s, "%s: header size %u is not a multiple of 8 in [%d, %d]", s->name,
                       (unsigned)hb, PSL_BIN_HEADER_BYTES, PSL_BIN_HEADER_MAX);
    if (hb > src_left(s))
        return CORRUPT(s, "%s: truncated: header of %u bytes but only %llu bytes follow",
                       s->name, (unsigned)hb, (unsigned long long)src_left(s));
    PSL_TRY(psl_alloc((void **)hdr, hb, 1, "file header"));
    psl_status st = src_read(s, *hdr, hb, "the header");
    if (st == PSL_OK) {
        uint32_t crc = psl_bin_crc32(psl_bin_crc32(0, pre, 20), *hdr, hb);
        if (crc != psl_le_get32(pre + 20))
            st = CORRUPT(s, "%s: header checksum mismatch (CRC-32 0x%08x, file says 0x%08x)",
                         s->name, (unsigned)crc, (unsigned)psl_le_get32(pre + 20));
    }
    if (st != PSL_OK) {
        free(*hdr);
        *hdr = NULL;
        return st;
    }
    *hdr_bytes = hb;
    return PSL_OK;
}

/* Fill the scalar fields of A from the header block. Enums are range-checked
 * here, before they are stored in enum-typed fields. */
static psl_status parse_header(const bin_src *s, const unsigned char *h, psl_matrix *A,
                               uint32_t *narrays)
{
    uint32_t format = psl_le_get32(h + 0), vt = psl_le_get32(h + 4), perm = psl_le_get32(h + 32);
    if (format > PSL_FORMAT_PACKSELL)
        return CORRUPT(s, "%s: unknown matrix format %u", s->name, (unsigned)format);
    if (vt > PSL_BF16)
        return CORRUPT(s, "%s: unknown value type %u", s->name, (unsigned)vt);
    if (perm > PSL_PERMUTE_EXPLICIT)
        return CORRUPT(s, "%s: unknown permutation kind %u", s->name, (unsigned)perm);
    A->format = (psl_format)format;
    A->value_type = (psl_scalar)vt;
    A->permute = (psl_permute)perm;
    A->nrows = (int32_t)psl_le_get32(h + 8);
    A->ncols = (int32_t)psl_le_get32(h + 12);
    A->nnz = (int64_t)psl_le_get64(h + 16);
    A->C = (int32_t)psl_le_get32(h + 24);
    A->sigma = (int32_t)psl_le_get32(h + 28);
    A->nslices = (int32_t)psl_le_get32(h + 36);
    A->perm_bytes = (int32_t)psl_le_get32(h + 40);
    A->codec.exp_bits = (int32_t)psl_le_get32(h + 44);
    A->codec.man_bits = (int32_t)psl_le_get32(h + 48);
    A->delta_bits = (int32_t)psl_le_get32(h + 52);
    A->kleft = (int64_t)psl_le_get64(h + 56);
    A->stored = (int64_t)psl_le_get64(h + 64);
    A->padding = (int64_t)psl_le_get64(h + 72);
    A->dummies = (int64_t)psl_le_get64(h + 80);
    A->underflows = (int64_t)psl_le_get64(h + 88);
    A->sell_equiv_bytes = (int64_t)psl_le_get64(h + 96);
    A->csr_equiv_bytes = (int64_t)psl_le_get64(h + 104);
    A->max_row_nnz = (int32_t)psl_le_get32(h + 112);
    *narrays = psl_le_get32(h + 116);
    uint64_t rsd_bits = psl_le_get64(h + 120);
    memcpy(&A->rsd, &rsd_bits, sizeof A->rsd);
    return PSL_OK;
}

/* Check every scalar field on its own and against the others (no array is
 * read yet). */
static psl_status check_header(const bin_src *s, const psl_matrix *A)
{
    const char *n = s->name;
    if (A->nrows < 0 || A->ncols < 0)
        return CORRUPT(s, "%s: negative size %d x %d", n, (int)A->nrows, (int)A->ncols);
    if (A->nnz < 0 || A->nnz > (int64_t)A->nrows * A->ncols)
        return CORRUPT(s, "%s: nnz %lld impossible for a %d x %d matrix", n, (long long)A->nnz,
                       (int)A->nrows, (int)A->ncols);
    if (A->stored < 0 || A->padding < 0 || A->dummies < 0 || A->underflows < 0 ||
        A->sell_equiv_bytes < 0 || A->csr_equiv_bytes < 0)
        return CORRUPT(s, "%s: negative count among stored/padding/dummies/underflows/bytes", n);
    if (A->underflows > A->nnz)
        return CORRUPT(s, "%s: %lld underflows but only %lld entries", n,
                       (long long)A->underflows, (long long)A->nnz);
    if (A->max_row_nnz < 0 || A->max_row_nnz > A->ncols)
        return CORRUPT(s, "%s: max_row_nnz %d outside [0, ncols %d]", n, (int)A->max_row_nnz,
                       (int)A->ncols);
    if (!isfinite(A->rsd) || A->rsd < 0)
        return CORRUPT(s, "%s: row-length rsd %g is not a non-negative number", n, A->rsd);
    if (A->kleft < -(int64_t)A->ncols || A->kleft > (int64_t)A->nrows)
        return CORRUPT(s, "%s: kleft %lld outside [-ncols, nrows] = [%d, %d]", n,
                       (long long)A->kleft, -(int)A->ncols, (int)A->nrows);
    if (A->format == PSL_FORMAT_CSR) {
        if (A->value_type != PSL_FP64 && A->value_type != PSL_FP32)
            return CORRUPT(s, "%s: CSR value type %d is not FP64 or FP32", n,
                           (int)A->value_type);
        if (A->nslices != 0 || A->perm_bytes != 0 || A->C < 0 || A->sigma < 0)
            return CORRUPT(s, "%s: CSR matrix with SELL fields (nslices %d, perm_bytes %d, C %d, "
                           "sigma %d)",
                           n, (int)A->nslices, (int)A->perm_bytes, (int)A->C, (int)A->sigma);
        return PSL_OK;
    }
    if (A->C < 1)
        return CORRUPT(s, "%s: slice height C = %d < 1", n, (int)A->C);
    if (A->sigma < 0 || A->sigma % A->C != 0)
        return CORRUPT(s, "%s: sigma %d is not 0 or a positive multiple of C = %d", n,
                       (int)A->sigma, (int)A->C);
    int want_pb = A->sigma ? psl_perm_bytes_for_sigma(A->sigma) : 0;
    if (A->perm_bytes != want_pb)
        return CORRUPT(s, "%s: perm_bytes %d, but sigma %d needs %d", n, (int)A->perm_bytes,
                       (int)A->sigma, want_pb);
    int64_t want_ns = ((int64_t)A->nrows + A->C - 1) / A->C;
    if (A->nslices != want_ns)
        return CORRUPT(s, "%s: %d slices, but %d rows in slices of %d need %lld", n,
                       (int)A->nslices, (int)A->nrows, (int)A->C, (long long)want_ns);
    if (A->nnz > A->stored || A->padding > A->stored || A->dummies > A->stored ||
        A->nnz + A->padding + A->dummies != A->stored)
        return CORRUPT(s, "%s: nnz %lld + padding %lld + dummies %lld != stored %lld", n,
                       (long long)A->nnz, (long long)A->padding, (long long)A->dummies,
                       (long long)A->stored);
    if (A->format == PSL_FORMAT_SELL) {
        if (A->dummies != 0)
            return CORRUPT(s, "%s: SELL matrix with %lld dummies", n, (long long)A->dummies);
        return PSL_OK;
    }
    if (psl_codec_check(A->codec) != PSL_OK) {
        char why[sizeof ((psl_error_info *)0)->message];
        snprintf(why, sizeof why, "%s", psl_last_error_message());
        return CORRUPT(s, "%s: invalid PackSELL codec: %s", n, why);
    }
    if (A->delta_bits != psl_codec_delta_bits(A->codec))
        return CORRUPT(s, "%s: delta bits %d, but codec e%dm%d has %d", n, (int)A->delta_bits,
                       (int)A->codec.exp_bits, (int)A->codec.man_bits,
                       (int)psl_codec_delta_bits(A->codec));
    return PSL_OK;
}

/* ------------------------------------------------------------ arrays */

/* Make A own p as the array with the given id. */
static void set_array(psl_matrix *A, uint32_t id, void *p)
{
    switch (id) {
    case PSL_BIN_ROW_PTR: A->row_ptr = p; break;
    case PSL_BIN_COL_IDX: A->col_idx = p; break;
    case PSL_BIN_VALUES: A->values = p; break;
    case PSL_BIN_SLICE_PTR: A->slice_ptr = p; break;
    case PSL_BIN_PERM: A->perm = p; break;
    case PSL_BIN_SELL_COL: A->sell_col = p; break;
    case PSL_BIN_SELL_VAL: A->sell_val = p; break;
    default: A->words = p; break;
    }
}

/* Bytes of a record (header, data, padding) holding count elements of size
 * es, or UINT64_MAX when it cannot fit in `left` bytes. */
static uint64_t record_bytes(uint64_t count, uint32_t es, uint64_t left)
{
    if (es == 0 || count > left / es)
        return UINT64_MAX;
    uint64_t data = count * es;
    return PSL_BIN_RECORD_BYTES + data + psl_bin_pad(data);
}

/* Read one expected array record into a new array owned by A. */
static psl_status read_array(bin_src *s, psl_matrix *A, const psl_bin_array *want, int index)
{
    unsigned char rec[PSL_BIN_RECORD_BYTES];
    PSL_TRY(src_read(s, rec, sizeof rec, want->name));
    uint32_t id = psl_le_get32(rec), es = psl_le_get32(rec + 4);
    uint64_t count = psl_le_get64(rec + 8);
    if (id != want->id || es != want->elem_size || count != want->count ||
        psl_le_get32(rec + 20) != 0)
        return CORRUPT(s, "%s: array record %d (offset %llu) says id %u, %llu x %u bytes; "
                       "expected %s (id %u), %llu x %u bytes",
                       s->name, index, (unsigned long long)(s->pos - sizeof rec), (unsigned)id,
                       (unsigned long long)count, (unsigned)es, want->name, (unsigned)want->id,
                       (unsigned long long)want->count, (unsigned)want->elem_size);
    uint64_t bytes = count * es; /* fits: the total was checked against the file */
    void *p;
    PSL_TRY(psl_alloc(&p, (size_t)count, es, want->name));
    set_array(A, id, p);
    PSL_TRY(src_read(s, p, bytes, want->name));
    unsigned char pad[8];
    uint64_t np = psl_bin_pad(bytes);
    PSL_TRY(src_read(s, pad, np, want->name));
    for (uint64_t i = 0; i < np; i++)
        if (pad[i])
            return CORRUPT(s, "%s: nonzero padding byte after array %s", s->name, want->name);
    uint32_t crc = psl_bin_crc32(0, p, bytes);
    if (crc != psl_le_get32(rec + 16))
        return CORRUPT(s, "%s: checksum mismatch in array %s (CRC-32 0x%08x, file says 0x%08x)",
                       s->name, want->name, (unsigned)crc, (unsigned)psl_le_get32(rec + 16));
    return PSL_OK;
}

/* Read all array records: sizes first (no allocation before the whole file
 * is known to hold them), then each array, then skip the records a newer
 * minor version appended. */
static psl_status read_arrays(bin_src *s, psl_matrix *A, uint32_t narrays, unsigned minor)
{
    psl_bin_array want[PSL_BIN_MAX_ARRAYS];
    int nw = psl_bin_array_list(A, want);
    if (narrays < (uint32_t)nw || (narrays > (uint32_t)nw && minor <= PSL_BIN_MINOR))
        return CORRUPT(s, "%s: %u array records, but this format has %d", s->name,
                       (unsigned)narrays, nw);
    uint64_t total = 0;
    for (int i = 0; i < nw; i++) {
        uint64_t rb = record_bytes(want[i].count, want[i].elem_size, src_left(s));
        if (rb == UINT64_MAX || rb > src_left(s) - total)
            return CORRUPT(s, "%s: truncated or lying header: array %s of %llu x %u bytes "
                           "(and those before it) exceeds the %llu bytes left in the file",
                           s->name, want[i].name, (unsigned long long)want[i].count,
                           (unsigned)want[i].elem_size, (unsigned long long)src_left(s));
        total += rb;
    }
    for (int i = 0; i < nw; i++)
        PSL_TRY(read_array(s, A, &want[i], i));
    for (uint32_t i = (uint32_t)nw; i < narrays; i++) {
        unsigned char rec[PSL_BIN_RECORD_BYTES];
        PSL_TRY(src_read(s, rec, sizeof rec, "an extra array record"));
        uint64_t rb = record_bytes(psl_le_get64(rec + 8), psl_le_get32(rec + 4), src_left(s));
        if (rb == UINT64_MAX || rb - PSL_BIN_RECORD_BYTES > src_left(s))
            return CORRUPT(s, "%s: extra array record %u exceeds the file", s->name,
                           (unsigned)i);
        PSL_TRY(src_skip(s, rb - PSL_BIN_RECORD_BYTES, "an extra array record"));
    }
    if (src_left(s) != 0)
        return CORRUPT(s, "%s: %llu unexpected bytes after the last array", s->name,
                       (unsigned long long)src_left(s));
    return PSL_OK;
}

/* ------------------------------------------------------------ structure */

/* Totals gathered by the structural checks. */
typedef struct counts {
    int64_t nnz, padding, dummies;
    int32_t max_row;
} counts;

/* Checker of one item (row, slice, sigma block); returns 0 when fine, else
 * 1 after writing a message into msg (when msg is not NULL). */
typedef int (*item_check)(const psl_matrix *A, int64_t item, counts *acc, unsigned char *aux,
                          char *msg, size_t msglen);

static int fail(char *msg, size_t msglen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* Run check over items 0..n-1 in parallel, summing counts into *total. On
 * failure, re-check the smallest failing item serially for its message. */
static psl_status run_checks(const bin_src *s, const psl_matrix *A, int64_t n, int64_t grain,
                             item_check check, unsigned char *aux, counts *total)
{
    atomic_llong first_bad = n;
    counts sum = {0, 0, 0, 0};
#pragma omp parallel
    {
        counts mine = {0, 0, 0, 0};
#pragma omp for schedule(dynamic, 1) nowait
        for (int64_t b = 0; b < (n + grain - 1) / grain; b++) {
            for (int64_t i = b * grain; i < n && i < (b + 1) * grain; i++) {
                if (i > atomic_load_explicit(&first_bad, memory_order_relaxed))
                    break;
                if (check(A, i, &mine, aux, NULL, 0)) {
                    long long cur = atomic_load(&first_bad);
                    while (i < cur && !atomic_compare_exchange_weak(&first_bad, &cur, i))
                        ;
                    break;
                }
            }
        }
#pragma omp critical(psl_binfile_counts)
        {
            sum.nnz += mine.nnz;
            sum.padding += mine.padding;
            sum.dummies += mine.dummies;
            if (mine.max_row > sum.max_row)
                sum.max_row = mine.max_row;
        }
    }
    long long bad = atomic_load(&first_bad);
    if (bad < n) {
        char msg[400];
        counts scratch = {0, 0, 0, 0};
        msg[0] = '\0';
        check(A, bad, &scratch, aux, msg, sizeof msg);
        return CORRUPT(s, "%s: %s", s->name, msg);
    }
    *total = sum;
    return PSL_OK;
}

/* True when the raw value bits of a stored SELL/CSR value are Inf or NaN. */
static int value_nonfinite(psl_scalar t, const void *vals, int64_t i)
{
    switch (t) {
    case PSL_FP64: {
        uint64_t u;
        memcpy(&u, (const unsigned char *)vals + 8 * i, 8);
        return (u & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000);
    }
    case PSL_FP32: {
        uint32_t u;
        memcpy(&u, (const unsigned char *)vals + 4 * i, 4);
        return (u & 0x7f800000u) == 0x7f800000u;
    }
    case PSL_FP16: return (((const uint16_t *)vals)[i] & 0x7c00u) == 0x7c00u;
    case PSL_BF16: return (((const uint16_t *)vals)[i] & 0x7f80u) == 0x7f80u;
    }
    return 1;
}

/* True when the stored value i is all zero bits (SELL padding). */
static int value_is_zero_bits(psl_scalar t, const void *vals, int64_t i)
{
    size_t es = psl_scalar_size(t);
    const unsigned char *p = (const unsigned char *)vals + es * (size_t)i;
    for (size_t k = 0; k < es; k++)
        if (p[k])
            return 0;
    return 1;
}

/* CSR row i: pointers, columns in range and strictly ascending, values finite. */
static int check_csr_row(const psl_matrix *A, int64_t i, counts *acc, unsigned char *aux,
                         char *msg, size_t len)
{
    int64_t a = A->row_ptr[i], b = A->row_ptr[i + 1];
    if (a < 0 || b < a || b > A->nnz)
        return fail(msg, len, "row_ptr[%lld] = %lld, row_ptr[%lld] = %lld: not non-decreasing "
                    "within [0, nnz %lld]",
                    (long long)i, (long long)a, (long long)i + 1, (long long)b,
                    (long long)A->nnz);
    int64_t prev = -1;
    for (int64_t p = a; p < b; p++) {
        int32_t c = A->col_idx[p];
        if (c < 0 || c >= A->ncols)
            return fail(msg, len, "row %lld: column %d outside [0, ncols %d)", (long long)i,
                        (int)c, (int)A->ncols);
        if (c <= prev)
            return fail(msg, len, "row %lld: column %d does not follow column %lld in ascending "
                        "order",
                        (long long)i, (int)c, (long long)prev);
        if (value_nonfinite(A->value_type, A->values, p))
            return fail(msg, len, "row %lld, column %d: value is Inf or NaN", (long long)i,
                        (int)c);
        prev = c;
    }
    if (b - a > acc->max_row)
        acc->max_row = (int32_t)(b - a);
    acc->nnz += b - a;
    return 0;
}

/* Slice k's offsets: within [0, stored], non-decreasing, a multiple of C. */
static int check_slice_ptr(const psl_matrix *A, int64_t k, char *msg, size_t len)
{
    int64_t a = A->slice_ptr[k], b = A->slice_ptr[k + 1];
    if (a < 0 || b < a || b > A->stored)
        return fail(msg, len, "slice_ptr[%lld] = %lld, slice_ptr[%lld] = %lld: not "
                    "non-decreasing within [0, stored %lld]",
                    (long long)k, (long long)a, (long long)k + 1, (long long)b,
                    (long long)A->stored);
    if ((b - a) % A->C != 0)
        return fail(msg, len, "slice %lld: length %lld is not a multiple of C = %d",
                    (long long)k, (long long)(b - a), (int)A->C);
    return 0;
}

/* SELL slice k: every lane's columns in [-1, ncols), ascending, padding
 * (-1, zero value bits) only at the end, lanes past nrows padding only. */
static int check_sell_slice(const psl_matrix *A, int64_t k, counts *acc, unsigned char *aux,
                            char *msg, size_t len)
{
    if (check_slice_ptr(A, k, msg, len))
        return 1;
    const int64_t base = A->slice_ptr[k], C = A->C;
    const int64_t width = (A->slice_ptr[k + 1] - base) / C;
    if (width == 0)
        return 0;
    for (int64_t l = 0; l < C; l++) {
        const int64_t row = k * C + l;
        int64_t prev = -1, cnt = 0;
        int pad_seen = 0;
        for (int64_t j = 0; j < width; j++) {
            const int64_t e = base + j * C + l;
            const int32_t c = A->sell_col[e];
            if (c == -1) {
                if (!value_is_zero_bits(A->value_type, A->sell_val, e))
                    return fail(msg, len, "slice %lld: padding entry %lld of lane %lld has "
                                "nonzero value bits",
                                (long long)k, (long long)j, (long long)l);
                pad_seen = 1;
                acc->padding++;
                continue;
            }
            if (row >= A->nrows)
                return fail(msg, len, "slice %lld: lane %lld is past the last row (%d rows) "
                            "but entry %lld has column %d instead of padding",
                            (long long)k, (long long)l, (int)A->nrows, (long long)j, (int)c);
            if (c < -1 || c >= A->ncols)
                return fail(msg, len, "slice %lld: entry %lld of lane %lld (stored row %lld) "
                            "has column %d outside [-1, ncols %d)",
                            (long long)k, (long long)j, (long long)l, (long long)row, (int)c,
                            (int)A->ncols);
            if (pad_seen)
                return fail(msg, len, "slice %lld: entry %lld of lane %lld (stored row %lld) "
                            "has column %d after padding",
                            (long long)k, (long long)j, (long long)l, (long long)row, (int)c);
            if (c <= prev)
                return fail(msg, len, "slice %lld: entry %lld of lane %lld (stored row %lld): "
                            "column %d does not follow column %lld in ascending order",
                            (long long)k, (long long)j, (long long)l, (long long)row, (int)c,
                            (long long)prev);
            if (value_nonfinite(A->value_type, A->sell_val, e))
                return fail(msg, len, "slice %lld: entry %lld of lane %lld (stored row %lld, "
                            "column %d) is Inf or NaN",
                            (long long)k, (long long)j, (long long)l, (long long)row, (int)c);
            prev = c;
            cnt++;
        }
        acc->nnz += cnt;
        if (cnt > acc->max_row)
            acc->max_row = (int32_t)cnt;
    }
    return 0;
}

/* PackSELL slice k: walk every lane from its block's start column with
 * int64 arithmetic; every column reached is in [0, ncols), entries strictly
 * increase, value bits are not Inf/NaN, a dummy is followed by an entry,
 * padding (word 0) only at the end, lanes past nrows padding only. */
static int check_packsell_slice(const psl_matrix *A, int64_t k, counts *acc,
                                unsigned char *aux, char *msg, size_t len)
{
    if (check_slice_ptr(A, k, msg, len))
        return 1;
    const int64_t base = A->slice_ptr[k], C = A->C;
    const int64_t width = (A->slice_ptr[k + 1] - base) / C;
    if (width == 0)
        return 0;
    const int D = A->delta_bits, e = A->codec.exp_bits, m = A->codec.man_bits;
    const uint32_t exp_all_ones = (1u << e) - 1u;
    const int64_t dblock = psl_dblock(A);
    for (int64_t l = 0; l < C; l++) {
        const int64_t row = k * C + l;
        int64_t col = psl_block_start_col(row / dblock * dblock, A->kleft, A->ncols);
        int64_t last = -1, cnt = 0;
        int pad_seen = 0, after_dummy = 0;
        for (int64_t j = 0; j < width; j++) {
            const uint32_t w = A->words[base + j * C + l];
            const uint32_t delta = psl_word_delta(w, D);
            const int is_entry = (int)psl_word_flag(w);
            col += delta;
            if (row >= A->nrows && w != 0)
                return fail(msg, len, "slice %lld: lane %lld is past the last row (%d rows) "
                            "but word %lld is 0x%08x instead of padding",
                            (long long)k, (long long)l, (int)A->nrows, (long long)j,
                            (unsigned)w);
            if (col >= A->ncols)
                return fail(msg, len, "slice %lld: word %lld of lane %lld (stored row %lld) "
                            "reaches column %lld >= ncols %d",
                            (long long)k, (long long)j, (long long)l, (long long)row,
                            (long long)col, (int)A->ncols);
            if (pad_seen && w != 0)
                return fail(msg, len, "slice %lld: word %lld of lane %lld (stored row %lld) "
                            "follows padding but is 0x%08x",
                            (long long)k, (long long)j, (long long)l, (long long)row,
                            (unsigned)w);
            if (!is_entry && delta == 0) {
                if (after_dummy)
                    return fail(msg, len, "slice %lld: dummy word %lld of lane %lld (stored "
                                "row %lld) is followed by padding, not an entry",
                                (long long)k, (long long)j - 1, (long long)l, (long long)row);
                pad_seen = 1;
                acc->padding++;
                continue;
            }
            if (!is_entry) {
                if (after_dummy)
                    return fail(msg, len, "slice %lld: two dummy words in a row at word %lld "
                                "of lane %lld (stored row %lld)",
                                (long long)k, (long long)j, (long long)l, (long long)row);
                after_dummy = 1;
                acc->dummies++;
                continue;
            }
            if (col <= last)
                return fail(msg, len, "slice %lld: word %lld of lane %lld (stored row %lld) "
                            "repeats column %lld (delta 0 not after a dummy)",
                            (long long)k, (long long)j, (long long)l, (long long)row,
                            (long long)col);
            const uint32_t vbits = w >> (D + 1);
            if (((vbits >> m) & exp_all_ones) == exp_all_ones)
                return fail(msg, len, "slice %lld: word %lld of lane %lld (stored row %lld, "
                            "column %lld) holds an Inf/NaN pattern of codec e%dm%d",
                            (long long)k, (long long)j, (long long)l, (long long)row,
                            (long long)col, e, m);
            after_dummy = 0;
            last = col;
            cnt++;
        }
        if (after_dummy)
            return fail(msg, len, "slice %lld: lane %lld (stored row %lld) ends with a dummy "
                        "word",
                        (long long)k, (long long)l, (long long)row);
        acc->nnz += cnt;
        if (cnt > acc->max_row)
            acc->max_row = (int32_t)cnt;
    }
    return 0;
}

/* Sigma block b of perm: every entry inside the block, no repeats (so the
 * block is a permutation of its rows). aux: nrows bytes, zero on entry. */
static int check_perm_block(const psl_matrix *A, int64_t b, counts *acc, unsigned char *aux,
                            char *msg, size_t len)
{
    const int64_t lo = b * A->sigma;
    const int64_t hi = lo + A->sigma < A->nrows ? lo + A->sigma : A->nrows;
    if (msg) /* the serial re-check starts from a clean block */
        memset(aux + lo, 0, (size_t)(hi - lo));
    for (int64_t i = lo; i < hi; i++) {
        int64_t p = psl_perm_get(A, i);
        if (p < 0 || p >= hi - lo)
            return fail(msg, len, "perm[%lld] = %lld is outside its sigma block of %lld rows",
                        (long long)i, (long long)p, (long long)(hi - lo));
        if (aux[lo + p])
            return fail(msg, len, "perm[%lld] = %lld repeats an earlier entry of its sigma "
                        "block (rows %lld..%lld)",
                        (long long)i, (long long)p, (long long)lo, (long long)hi - 1);
        aux[lo + p] = 1;
    }
    return 0;
}

/* Compare a count recomputed from the arrays with the header's. */
static psl_status same(const bin_src *s, const char *what, int64_t header, int64_t found)
{
    if (header != found)
        return CORRUPT(s, "%s: header says %s = %lld, the arrays hold %lld", s->name, what,
                       (long long)header, (long long)found);
    return PSL_OK;
}

/* Every invariant the kernels, decoders and info rely on. */
static psl_status validate(const bin_src *s, const psl_matrix *A)
{
    counts tot;
    if (A->format == PSL_FORMAT_CSR) {
        if (A->row_ptr[0] != 0 || A->row_ptr[A->nrows] != A->nnz)
            return CORRUPT(s, "%s: row_ptr runs from %lld to %lld, expected 0 to nnz %lld",
                           s->name, (long long)A->row_ptr[0], (long long)A->row_ptr[A->nrows],
                           (long long)A->nnz);
        PSL_TRY(run_checks(s, A, A->nrows, 4096, check_csr_row, NULL, &tot));
        return same(s, "max_row_nnz", A->max_row_nnz, tot.max_row);
    }
    if (A->slice_ptr[0] != 0 || A->slice_ptr[A->nslices] != A->stored)
        return CORRUPT(s, "%s: slice_ptr runs from %lld to %lld, expected 0 to stored %lld",
                       s->name, (long long)A->slice_ptr[0], (long long)A->slice_ptr[A->nslices],
                       (long long)A->stored);
    if (A->sigma > 0) {
        unsigned char *seen = psl_calloc((size_t)A->nrows, 1);
        if (!seen)
            return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory checking perm (%d bytes)",
                             (int)A->nrows);
        int64_t nblocks = ((int64_t)A->nrows + A->sigma - 1) / A->sigma;
        psl_status st = run_checks(s, A, nblocks, 1, check_perm_block, seen, &tot);
        free(seen);
        PSL_TRY(st);
    }
    item_check slice_check =
        A->format == PSL_FORMAT_SELL ? check_sell_slice : check_packsell_slice;
    PSL_TRY(run_checks(s, A, A->nslices, 64, slice_check, NULL, &tot));
    PSL_TRY(same(s, "nnz", A->nnz, tot.nnz));
    PSL_TRY(same(s, "padding", A->padding, tot.padding));
    PSL_TRY(same(s, "dummies", A->dummies, tot.dummies));
    return same(s, "max_row_nnz", A->max_row_nnz, tot.max_row);
}

/* ------------------------------------------------------------ entry points */

/* Parse and validate a whole source into a new handle. */
static psl_status load(psl_matrix **out, bin_src *s)
{
    unsigned char *hdr = NULL;
    uint32_t hb = 0, narrays = 0;
    unsigned minor = 0;
    psl_matrix *A = NULL;
    psl_status st;
    if (!psl_host_is_little_endian())
        return psl_error(PSL_ERR_NOT_SUPPORTED,
                         "binary matrix files are little-endian; loading on a big-endian host "
                         "is not supported");
    st = read_preamble(s, &hdr, &hb, &minor);
    if (st != PSL_OK)
        goto fail;
    A = psl_matrix_new(PSL_FORMAT_CSR, 0, 0);
    if (!A) {
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating a matrix handle");
        goto fail;
    }
    st = parse_header(s, hdr, A, &narrays);
    if (st == PSL_OK)
        st = check_header(s, A);
    if (st == PSL_OK)
        st = read_arrays(s, A, narrays, minor);
    if (st == PSL_OK)
        st = validate(s, A);
    if (st != PSL_OK)
        goto fail;
    free(hdr);
    *out = A;
    return PSL_OK;
fail:
    free(hdr);
    psl_matrix_destroy(&A);
    return st;
}

psl_status psl_matrix_load_buffer(psl_matrix **A, const void *data, size_t len)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *A = NULL;
    if (!data && len > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "data is NULL");
    bin_src s = {data, NULL, len, 0, "buffer"};
    return load(A, &s);
}

psl_status psl_matrix_load(psl_matrix **A, const char *path)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "output handle pointer is NULL");
    *A = NULL;
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "path is NULL");
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return psl_error(PSL_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    struct stat sb;
    psl_status st;
    if (fstat(fileno(fp), &sb) != 0) {
        st = psl_error(PSL_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        st = psl_error(PSL_ERR_IO, "'%s' is not a regular file", path);
    } else {
        bin_src s = {NULL, fp, (uint64_t)sb.st_size, 0, path};
        st = load(A, &s);
    }
    fclose(fp);
    return st;
}
