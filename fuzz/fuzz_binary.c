/*
 * fuzz_binary.c -- libFuzzer target for the binary matrix reader: any byte
 * string must either load into a handle that passes the structural checks
 * (and then info, row order, decoding and SpMV on it must be memory-safe)
 * or fail with a status, never crash.
 *
 * Each input is loaded twice: as it is (exercising the preamble, sizes and
 * checksums), and with its header and array CRC-32s recomputed, so that
 * mutations reach the structural validation behind the checksums.
 * Seeds: fuzz/seeds/binary/ (written by tests/test_binfile.c, test
 * fuzz_seeds). Run, e.g.:
 *   mkdir -p fuzz/corpus-binary && cp -r fuzz/seeds/binary/. fuzz/corpus-binary/
 *   OMP_NUM_THREADS=1 build-fuzz/fuzz/fuzz_binary fuzz/corpus-binary -max_len=4096
 */
#include "packsell.h"
#include "io/binfile_format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Recompute the CRCs of an image in place, as far as its layout can be
 * walked within the buffer. */
static void repair_crcs(uint8_t *b, size_t len)
{
    if (len < PSL_BIN_PREAMBLE_BYTES + PSL_BIN_HEADER_BYTES)
        return;
    uint64_t hb = psl_le_get32(b + 16);
    if (hb < PSL_BIN_HEADER_BYTES || hb > len - PSL_BIN_PREAMBLE_BYTES)
        return;
    uint32_t crc = psl_bin_crc32(psl_bin_crc32(0, b, 20), b + PSL_BIN_PREAMBLE_BYTES, hb);
    psl_le_put32(b + 20, crc);
    uint32_t narrays = psl_le_get32(b + PSL_BIN_PREAMBLE_BYTES + 116);
    uint64_t off = PSL_BIN_PREAMBLE_BYTES + hb;
    for (uint32_t i = 0; i < narrays && i < 16; i++) {
        if (len - off < PSL_BIN_RECORD_BYTES)
            return;
        uint32_t es = psl_le_get32(b + off + 4);
        uint64_t count = psl_le_get64(b + off + 8);
        uint64_t left = len - off - PSL_BIN_RECORD_BYTES;
        if (es == 0 || count > left / es)
            return;
        uint64_t bytes = count * es;
        psl_le_put32(b + off + 16, psl_bin_crc32(0, b + off + PSL_BIN_RECORD_BYTES, bytes));
        off += PSL_BIN_RECORD_BYTES + bytes;
        if (len - off < psl_bin_pad(bytes))
            return;
        off += psl_bin_pad(bytes);
    }
}

/* Load one image; on success use the handle the way every consumer does. */
static void try_load(const uint8_t *data, size_t size)
{
    psl_matrix *A = NULL;
    if (psl_matrix_load_buffer(&A, data, size) != PSL_OK) {
        if (A)
            abort(); /* a failed load must leave the handle NULL */
        return;
    }
    psl_matrix_info info;
    if (psl_matrix_get_info(A, &info) != PSL_OK)
        abort();
    if (info.nrows <= 4096 && info.ncols <= 4096) {
        double *x = calloc((size_t)info.ncols + 1, sizeof *x);
        double *y = calloc((size_t)info.nrows + 1, sizeof *y);
        float *xf = calloc((size_t)info.ncols + 1, sizeof *xf);
        float *yf = calloc((size_t)info.nrows + 1, sizeof *yf);
        int32_t *order = calloc((size_t)info.nrows + 1, sizeof *order);
        if (x && y && xf && yf && order) {
            for (int32_t j = 0; j < info.ncols; j++)
                xf[j] = (float)(x[j] = 1.0 + j % 7);
            if (psl_spmv(1.0, A, x, 0.0, y, PSL_FP64) != PSL_OK ||
                psl_spmv(1.0, A, xf, 0.0, yf, PSL_FP32) != PSL_OK ||
                psl_matrix_row_order(A, order) != PSL_OK)
                abort(); /* a loaded handle must be fully usable */
            psl_matrix *B = NULL;
            if (psl_matrix_to_csr(&B, A) == PSL_OK)
                psl_matrix_destroy(&B);
        }
        free(x);
        free(y);
        free(xf);
        free(yf);
        free(order);
    }
    psl_matrix_destroy(&A);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    try_load(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    repair_crcs(copy, size);
    try_load(copy, size);
    free(copy);
    return 0;
}
