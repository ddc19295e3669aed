/*
 * binfile_format.h -- the on-disk layout of libpacksell's binary matrix file
 * (psl_matrix_save / psl_matrix_load), shared by the writer and the reader.
 *
 * Every integer is little-endian on disk, whatever the host; floating-point
 * numbers are IEEE-754 bit patterns stored as little-endian integers. The
 * header is (de)serialised byte by byte, so it is portable; the arrays are
 * copied as they are in memory, so a big-endian host refuses both save and
 * load with PSL_ERR_NOT_SUPPORTED instead of producing or reading garbage.
 *
 * File = preamble (24 bytes) + header block (header_bytes) + narrays array
 * records, and nothing after the last record.
 *
 * Preamble
 *   off len  field
 *    0   8   magic: 89 'P' 'S' 'L' 'M' 0D 0A 1A. The 0x89 and CR LF catch
 *            7-bit and text-mode transfers, like PNG's signature.
 *    8   2   major version (u16). A reader accepts only its own major
 *            version; another one gives PSL_ERR_FILE_VERSION.
 *   10   2   minor version (u16). A newer minor may only append header
 *            fields (header_bytes grows) and array records after the
 *            known ones; an older reader skips both.
 *   12   4   byte-order marker: the u32 0x01020304, i.e. bytes 04 03 02 01.
 *   16   4   header_bytes (u32): size of the header block, a multiple of 8,
 *            >= PSL_BIN_HEADER_BYTES and <= PSL_BIN_HEADER_MAX.
 *   20   4   header CRC-32 (zlib crc32) of preamble bytes 0..19 followed by
 *            the header block.
 *
 * Header block (version 1.0: 128 bytes), every scalar of struct psl_matrix
 * (src/core/internal.h), also the statistics; fields that do not apply to
 * the format are stored as they are in the handle (usually 0):
 *   off  type  field
 *     0  u32   format (psl_format)
 *     4  u32   value_type (psl_scalar: CSR/SELL storage type)
 *     8  i32   nrows
 *    12  i32   ncols
 *    16  i64   nnz (stored entries of the user's pattern)
 *    24  i32   C (slice height)
 *    28  i32   sigma (0: no sorting)
 *    32  u32   permute (psl_permute)
 *    36  i32   nslices
 *    40  i32   perm_bytes (0 when sigma == 0, else 1, 2 or 4)
 *    44  i32   codec.exp_bits (PackSELL)
 *    48  i32   codec.man_bits (PackSELL)
 *    52  i32   delta_bits D (PackSELL)
 *    56  i64   kleft
 *    64  i64   stored (SELL entries incl. padding; PackSELL words)
 *    72  i64   padding
 *    80  i64   dummies
 *    88  i64   underflows
 *    96  i64   sell_equiv_bytes
 *   104  i64   csr_equiv_bytes
 *   112  i32   max_row_nnz
 *   116  u32   narrays (number of array records that follow)
 *   120  f64   rsd
 *
 * Array records, in this order (ids in parentheses):
 *   CSR:      row_ptr (1: i64, nrows+1), col_idx (2: i32, nnz),
 *             values (3: f64 or f32 by value_type, nnz)
 *   SELL:     slice_ptr (4: i64, nslices+1), perm (5: u8/u16/u32 by
 *             perm_bytes, nrows; only when sigma > 0), sell_col (6: i32,
 *             stored), sell_val (7: 8/4/2/2 bytes by value_type, stored)
 *   PackSELL: slice_ptr (4), perm (5; only when sigma > 0), words (8: u32,
 *             stored)
 *   CSR-k:    row_ptr (1), col_idx (2), values (3: f64, f32 or f16 by
 *             value_type), then for k >= 2 csrk_ptr (9: i32, sr_ptr's
 *             nslices+1 entries followed, for k = 3, by ssr_ptr's sigma+1);
 *             the header's C holds k, nslices the super-rows and sigma the
 *             super-super-rows. A locality reordering (csrk_reorder) sets
 *             perm_bytes to 4 (else 0) and continues csrk_ptr with perm and
 *             its inverse (i32, nrows each; the record is then present for
 *             k = 1 too). This is no minor-version addition (an older
 *             reader must not skip it): readers that predate it refuse the
 *             file at the header, whose CSR-k perm_bytes they require to
 *             be 0, so the version stays 1.0
 * Each record is a 24-byte record header followed by the data and zero
 * bytes up to the next multiple of 8 (so that every record starts 8-byte
 * aligned and a future reader may map arrays in place):
 *   off len  field
 *    0   4   array id (u32)
 *    4   4   element size in bytes (u32)
 *    8   8   element count (u64); must equal the count the header implies
 *   16   4   CRC-32 of the data bytes (not of the padding)
 *   20   4   reserved, 0
 * The padding bytes must be zero.
 *
 * The reader checks, in order: size of the preamble, magic, byte order,
 * version, header size and CRC, every header field, the total size of all
 * arrays against the remaining bytes (before allocating anything), each
 * record header, each array's CRC, and finally every structural invariant
 * the kernels rely on (each format's validate entry, src/format/<name>/).
 */
#ifndef PSL_BINFILE_FORMAT_H
#define PSL_BINFILE_FORMAT_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PSL_BIN_MAGIC "\x89PSLM\r\n\x1a"
#define PSL_BIN_MAGIC_LEN 8
#define PSL_BIN_MAJOR 1
#define PSL_BIN_MINOR 0
#define PSL_BIN_BOM 0x01020304u
#define PSL_BIN_PREAMBLE_BYTES 24
#define PSL_BIN_HEADER_BYTES 128
#define PSL_BIN_HEADER_MAX 65536
#define PSL_BIN_RECORD_BYTES 24
#define PSL_BIN_MAX_ARRAYS 8 /* most array records of any format */

/* Array ids of the records, unique over all formats (each format's
 * bin_arrays entry lists its own, src/format/<name>/<name>_ops.c); a new
 * format's arrays take the next free ids. */
enum {
    PSL_BIN_ROW_PTR = 1,
    PSL_BIN_COL_IDX = 2,
    PSL_BIN_VALUES = 3,
    PSL_BIN_SLICE_PTR = 4,
    PSL_BIN_PERM = 5,
    PSL_BIN_SELL_COL = 6,
    PSL_BIN_SELL_VAL = 7,
    PSL_BIN_WORDS = 8,
    PSL_BIN_CSRK_PTR = 9
};

/* One array of a matrix as it goes to / comes from the file. */
typedef struct psl_bin_array {
    uint32_t id;
    uint32_t elem_size;
    uint64_t count;
    const void *data; /* the matrix's array (writer side) */
    const char *name;
} psl_bin_array;

/* ---- little-endian field access (portable, any host) ---- */
static inline void psl_le_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline void psl_le_put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint16_t psl_le_get16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t psl_le_get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
static inline uint64_t psl_le_get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* True on a little-endian host (the only kind whose arrays match the file). */
static inline int psl_host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Bytes of zero padding after n data bytes to reach a multiple of 8. */
static inline uint64_t psl_bin_pad(uint64_t n) { return (8 - (n & 7)) & 7; }

/* The arrays of matrix A in file order, from its format's bin_arrays entry
 * and scalar fields (which must already be validated on the read side).
 * Returns the count (0 for a value that is no format). */
int psl_bin_array_list(const psl_matrix *A, psl_bin_array list[PSL_BIN_MAX_ARRAYS]);

/* CRC-32 (zlib) of n bytes continuing from crc, computed in parallel chunks
 * combined in order (the same result as one serial crc32 call). */
uint32_t psl_bin_crc32(uint32_t crc, const void *data, uint64_t n);

/* True when the first n bytes of data start with the binary file magic
 * (for psl_matrix_open's detection). */
static inline int psl_bin_has_magic(const void *data, size_t n)
{
    return n >= PSL_BIN_MAGIC_LEN && memcmp(data, PSL_BIN_MAGIC, PSL_BIN_MAGIC_LEN) == 0;
}

#endif /* PSL_BINFILE_FORMAT_H */
