/*
 * binfile_write.c -- psl_matrix_save: writes a matrix in the binary layout
 * of binfile_format.h through the library's output (io/outfile.h): under a
 * temporary name next to the target, renamed over it only after everything
 * (data, fflush, fsync, fclose) succeeded, so a failed save never leaves a
 * truncated file at the target path. Also the helpers the reader shares: the array list of
 * a format (from the table of formats) and the parallel CRC-32.
 */
#define _POSIX_C_SOURCE 200809L /* open, fdopen, fsync, getpid */

#include "format/format_ops.h"
#include "io/binfile_format.h"
#include "io/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int psl_bin_array_list(const psl_matrix *A, psl_bin_array list[PSL_BIN_MAX_ARRAYS])
{
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    return ops ? ops->bin_arrays(A, list) : 0;
}

uint32_t psl_bin_crc32(uint32_t crc, const void *data, uint64_t n)
{
    enum { MAX_PARTS = 256 };
    const uint64_t min_part = UINT64_C(1) << 20;
    const unsigned char *p = data;
    if (n < 2 * min_part)
        return (uint32_t)crc32_z(crc, p, (z_size_t)n);
    uint64_t parts = n / min_part;
    if (parts > MAX_PARTS)
        parts = MAX_PARTS;
    const uint64_t len = (n + parts - 1) / parts;
    uLong part_crc[MAX_PARTS];
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)parts; i++) {
        uint64_t b = (uint64_t)i * len, e = b + len < n ? b + len : n;
        part_crc[i] = b < e ? crc32_z(0, p + b, (z_size_t)(e - b)) : 0;
    }
    uLong r = crc;
    for (uint64_t i = 0; i < parts; i++) {
        uint64_t b = i * len, e = b + len < n ? b + len : n;
        if (b < e)
            r = crc32_combine(r, part_crc[i], (z_off_t)(e - b));
    }
    return (uint32_t)r;
}

/* Preamble and header block of A into buf (PSL_BIN_PREAMBLE_BYTES +
 * PSL_BIN_HEADER_BYTES bytes). */
static void build_header(const psl_matrix *A, int narrays, unsigned char *buf)
{
    memset(buf, 0, PSL_BIN_PREAMBLE_BYTES + PSL_BIN_HEADER_BYTES);
    memcpy(buf, PSL_BIN_MAGIC, PSL_BIN_MAGIC_LEN);
    buf[8] = PSL_BIN_MAJOR & 0xff;
    buf[9] = PSL_BIN_MAJOR >> 8;
    buf[10] = PSL_BIN_MINOR & 0xff;
    buf[11] = PSL_BIN_MINOR >> 8;
    psl_le_put32(buf + 12, PSL_BIN_BOM);
    psl_le_put32(buf + 16, PSL_BIN_HEADER_BYTES);
    unsigned char *h = buf + PSL_BIN_PREAMBLE_BYTES;
    psl_le_put32(h + 0, (uint32_t)A->format);
    psl_le_put32(h + 4, (uint32_t)A->value_type);
    psl_le_put32(h + 8, (uint32_t)A->nrows);
    psl_le_put32(h + 12, (uint32_t)A->ncols);
    psl_le_put64(h + 16, (uint64_t)A->nnz);
    psl_le_put32(h + 24, (uint32_t)A->C);
    psl_le_put32(h + 28, (uint32_t)A->sigma);
    psl_le_put32(h + 32, (uint32_t)A->permute);
    psl_le_put32(h + 36, (uint32_t)A->nslices);
    psl_le_put32(h + 40, (uint32_t)A->perm_bytes);
    psl_le_put32(h + 44, (uint32_t)A->codec.exp_bits);
    psl_le_put32(h + 48, (uint32_t)A->codec.man_bits);
    psl_le_put32(h + 52, (uint32_t)A->delta_bits);
    psl_le_put64(h + 56, (uint64_t)A->kleft);
    psl_le_put64(h + 64, (uint64_t)A->stored);
    psl_le_put64(h + 72, (uint64_t)A->padding);
    psl_le_put64(h + 80, (uint64_t)A->dummies);
    psl_le_put64(h + 88, (uint64_t)A->underflows);
    psl_le_put64(h + 96, (uint64_t)A->sell_equiv_bytes);
    psl_le_put64(h + 104, (uint64_t)A->csr_equiv_bytes);
    psl_le_put32(h + 112, (uint32_t)A->max_row_nnz);
    psl_le_put32(h + 116, (uint32_t)narrays);
    uint64_t rsd_bits;
    memcpy(&rsd_bits, &A->rsd, sizeof rsd_bits);
    psl_le_put64(h + 120, rsd_bits);
    uint32_t crc = (uint32_t)crc32_z(0, buf, 20);
    crc = (uint32_t)crc32_z(crc, h, PSL_BIN_HEADER_BYTES);
    psl_le_put32(buf + 20, crc);
}

/* fwrite all n bytes or fail with PSL_ERR_IO naming the file and errno. */
static psl_status put(FILE *f, const void *p, uint64_t n, const char *tmp, const char *what)
{
    const unsigned char *c = p;
    while (n > 0) {
        size_t chunk = n > (UINT64_C(1) << 30) ? (size_t)1 << 30 : (size_t)n;
        errno = 0;
        size_t got = fwrite(c, 1, chunk, f);
        if (got != chunk)
            return psl_error(PSL_ERR_IO, "cannot write %s to '%s': %s", what, tmp,
                             errno ? strerror(errno) : "short write");
        c += chunk;
        n -= chunk;
    }
    return PSL_OK;
}

/* Write the whole file body to f (already open on the temporary name). */
static psl_status write_body(const psl_matrix *A, FILE *f, const char *tmp)
{
    static const unsigned char zeros[8] = {0};
    psl_bin_array arr[PSL_BIN_MAX_ARRAYS];
    int na = psl_bin_array_list(A, arr);
    unsigned char hdr[PSL_BIN_PREAMBLE_BYTES + PSL_BIN_HEADER_BYTES];
    build_header(A, na, hdr);
    PSL_TRY(put(f, hdr, sizeof hdr, tmp, "the header"));
    for (int i = 0; i < na; i++) {
        uint64_t bytes = arr[i].count * arr[i].elem_size;
        unsigned char rec[PSL_BIN_RECORD_BYTES] = {0};
        psl_le_put32(rec + 0, arr[i].id);
        psl_le_put32(rec + 4, arr[i].elem_size);
        psl_le_put64(rec + 8, arr[i].count);
        psl_le_put32(rec + 16, psl_bin_crc32(0, arr[i].data, bytes));
        PSL_TRY(put(f, rec, sizeof rec, tmp, arr[i].name));
        PSL_TRY(put(f, arr[i].data, bytes, tmp, arr[i].name));
        PSL_TRY(put(f, zeros, psl_bin_pad(bytes), tmp, arr[i].name));
    }
    return PSL_OK;
}

/* Check that every array the format needs is present before writing. */
static psl_status check_arrays(const psl_matrix *A)
{
    psl_bin_array arr[PSL_BIN_MAX_ARRAYS];
    int na = psl_bin_array_list(A, arr);
    for (int i = 0; i < na; i++) {
        if (arr[i].elem_size == 0 || (arr[i].count > 0 && !arr[i].data))
            return psl_error(PSL_ERR_INTERNAL,
                             "cannot save: array %s of the matrix is missing (%llu entries "
                             "of %u bytes)",
                             arr[i].name, (unsigned long long)arr[i].count,
                             (unsigned)arr[i].elem_size);
    }
    return PSL_OK;
}

psl_status psl_matrix_save(const psl_matrix *A, const char *path)
{
    PSL_TRY(psl_matrix_check(A));
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "path is NULL");
    if (!psl_host_is_little_endian())
        return psl_error(PSL_ERR_NOT_SUPPORTED,
                         "binary matrix files are little-endian; saving on a big-endian "
                         "host is not supported");
    PSL_TRY(check_arrays(A));
    psl_out_file o;
    PSL_TRY(psl_out_open(&o, path));
    psl_status st = write_body(A, o.f, o.tmp ? o.tmp : o.target);
    if (st != PSL_OK) {
        psl_out_abort(&o);
        return st;
    }
    return psl_out_commit(&o);
}
