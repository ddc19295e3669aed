/*
 * binfile_read.c -- psl_matrix_load / psl_matrix_load_buffer: parse the
 * binary layout of binfile_format.h from a file or a memory buffer and
 * validate it completely, so that a damaged or hostile file gives
 * PSL_ERR_FILE_CORRUPT (or PSL_ERR_FILE_VERSION) with a message naming what
 * is wrong, and never an out-of-bounds access, an overflowed size or an
 * allocation larger than the file.
 *
 * Order: preamble, header CRC, header fields (the format's own through its
 * check_header), the total size of the arrays against the remaining bytes
 * (before any allocation), each record and its CRC, then the structure: the
 * format's validate entry (src/format/<name>/<name>_validate.c, parallel
 * and O(size), with the same error whatever the number of threads).
 */
#define _POSIX_C_SOURCE 200809L /* fstat */

#include "format/format_ops.h"
#include "io/binfile_format.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Wall-clock seconds for the PSL_TRACE phase timings. */
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

/* Fail with PSL_ERR_FILE_CORRUPT and a printf-style message. */
#define CORRUPT(...) psl_error(PSL_ERR_FILE_CORRUPT, __VA_ARGS__)

/* Check the preamble and read + CRC-check the header block into a new
 * buffer *hdr of *hdr_bytes bytes; *minor receives the minor version. */
static psl_status read_preamble(bin_src *s, unsigned char **hdr, uint32_t *hdr_bytes,
                                unsigned *minor)
{
    unsigned char pre[PSL_BIN_PREAMBLE_BYTES];
    *hdr = NULL;
    if (s->size < PSL_BIN_MAGIC_LEN)
        return CORRUPT("%s: not a packsell binary file (only %llu bytes)", s->name,
                       (unsigned long long)s->size);
    PSL_TRY(src_read(s, pre, PSL_BIN_MAGIC_LEN, "the magic"));
    if (!psl_bin_has_magic(pre, PSL_BIN_MAGIC_LEN))
        return CORRUPT("%s: not a packsell binary file (wrong magic bytes)", s->name);
    PSL_TRY(src_read(s, pre + PSL_BIN_MAGIC_LEN, PSL_BIN_PREAMBLE_BYTES - PSL_BIN_MAGIC_LEN,
                     "the preamble"));
    uint32_t bom = psl_le_get32(pre + 12);
    if (bom == 0x04030201u)
        return CORRUPT("%s: big-endian packsell file; only little-endian files exist",
                       s->name);
    if (bom != PSL_BIN_BOM)
        return CORRUPT("%s: bad byte-order marker 0x%08x (expected 0x%08x)", s->name,
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
        return CORRUPT("%s: header size %u is not a multiple of 8 in [%d, %d]", s->name,
                       (unsigned)hb, PSL_BIN_HEADER_BYTES, PSL_BIN_HEADER_MAX);
    if (hb > src_left(s))
        return CORRUPT("%s: truncated: header of %u bytes but only %llu bytes follow",
                       s->name, (unsigned)hb, (unsigned long long)src_left(s));
    PSL_TRY(psl_alloc((void **)hdr, hb, 1, "file header"));
    psl_status st = src_read(s, *hdr, hb, "the header");
    if (st == PSL_OK) {
        uint32_t crc = psl_bin_crc32(psl_bin_crc32(0, pre, 20), *hdr, hb);
        if (crc != psl_le_get32(pre + 20))
            st = CORRUPT("%s: header checksum mismatch (CRC-32 0x%08x, file says 0x%08x)",
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
    if (format > INT32_MAX || !psl_format_ops_of((psl_format)format))
        return CORRUPT("%s: unknown matrix format %u", s->name, (unsigned)format);
    if (vt > PSL_BF16)
        return CORRUPT("%s: unknown value type %u", s->name, (unsigned)vt);
    if (perm > PSL_PERMUTE_EXPLICIT)
        return CORRUPT("%s: unknown permutation kind %u", s->name, (unsigned)perm);
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
        return CORRUPT("%s: negative size %d x %d", n, (int)A->nrows, (int)A->ncols);
    if (A->nnz < 0 || A->nnz > (int64_t)A->nrows * A->ncols)
        return CORRUPT("%s: nnz %lld impossible for a %d x %d matrix", n, (long long)A->nnz,
                       (int)A->nrows, (int)A->ncols);
    if (A->stored < 0 || A->padding < 0 || A->dummies < 0 || A->underflows < 0 ||
        A->sell_equiv_bytes < 0 || A->csr_equiv_bytes < 0)
        return CORRUPT("%s: negative count among stored/padding/dummies/underflows/bytes", n);
    if (A->underflows > A->nnz)
        return CORRUPT("%s: %lld underflows but only %lld entries", n,
                       (long long)A->underflows, (long long)A->nnz);
    if (A->max_row_nnz < 0 || A->max_row_nnz > A->ncols)
        return CORRUPT("%s: max_row_nnz %d outside [0, ncols %d]", n, (int)A->max_row_nnz,
                       (int)A->ncols);
    if (!isfinite(A->rsd) || A->rsd < 0)
        return CORRUPT("%s: row-length rsd %g is not a non-negative number", n, A->rsd);
    if (A->kleft < -(int64_t)A->ncols || A->kleft > (int64_t)A->nrows)
        return CORRUPT("%s: kleft %lld outside [-ncols, nrows] = [%d, %d]", n,
                       (long long)A->kleft, -(int)A->ncols, (int)A->nrows);
    return psl_format_ops_of(A->format)->check_header(n, A);
}

/* ------------------------------------------------------------ arrays */

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
        return CORRUPT("%s: array record %d (offset %llu) says id %u, %llu x %u bytes; "
                       "expected %s (id %u), %llu x %u bytes",
                       s->name, index, (unsigned long long)(s->pos - sizeof rec), (unsigned)id,
                       (unsigned long long)count, (unsigned)es, want->name, (unsigned)want->id,
                       (unsigned long long)want->count, (unsigned)want->elem_size);
    uint64_t bytes = count * es; /* fits: the total was checked against the file */
    void *p;
    PSL_TRY(psl_alloc(&p, (size_t)count, es, want->name));
    psl_format_ops_of(A->format)->bin_adopt(A, id, p);
    PSL_TRY(src_read(s, p, bytes, want->name));
    unsigned char pad[8];
    uint64_t np = psl_bin_pad(bytes);
    PSL_TRY(src_read(s, pad, np, want->name));
    for (uint64_t i = 0; i < np; i++)
        if (pad[i])
            return CORRUPT("%s: nonzero padding byte after array %s", s->name, want->name);
    uint32_t crc = psl_bin_crc32(0, p, bytes);
    if (crc != psl_le_get32(rec + 16))
        return CORRUPT("%s: checksum mismatch in array %s (CRC-32 0x%08x, file says 0x%08x)",
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
        return CORRUPT("%s: %u array records, but this format has %d", s->name,
                       (unsigned)narrays, nw);
    uint64_t total = 0;
    for (int i = 0; i < nw; i++) {
        uint64_t rb = record_bytes(want[i].count, want[i].elem_size, src_left(s));
        if (rb == UINT64_MAX || rb > src_left(s) - total)
            return CORRUPT("%s: truncated or lying header: array %s of %llu x %u bytes "
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
            return CORRUPT("%s: extra array record %u exceeds the file", s->name,
                           (unsigned)i);
        PSL_TRY(src_skip(s, rb - PSL_BIN_RECORD_BYTES, "an extra array record"));
    }
    if (src_left(s) != 0)
        return CORRUPT("%s: %llu unexpected bytes after the last array", s->name,
                       (unsigned long long)src_left(s));
    return PSL_OK;
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
    double t0 = psl_wall_seconds(), t1 = t0;
    st = parse_header(s, hdr, A, &narrays);
    if (st == PSL_OK)
        st = check_header(s, A);
    if (st == PSL_OK) {
        st = read_arrays(s, A, narrays, minor);
        t1 = psl_wall_seconds();
    }
    if (st == PSL_OK)
        st = psl_format_ops_of(A->format)->validate(s->name, A);
    if (st != PSL_OK)
        goto fail;
    psl_trace("load %s: %llu bytes, read + CRC %.3f s, validation %.3f s", s->name,
              (unsigned long long)s->size, t1 - t0, psl_wall_seconds() - t1);
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
