/*
 * packsell_validate.c -- the checks of a loaded PackSELL matrix (binary
 * reader): its codec and delta bits, and every slice's words walked with
 * int64 column sums, on top of the sliced checks of format/sliced/.
 */
#include "format/packsell/packsell.h"
#include "format/sliced/sliced.h"

#include <stdio.h>

psl_status psl_packsell_check_header(const char *n, const psl_matrix *A)
{
    PSL_TRY(psl_sliced_check_header(n, A));
    if (psl_codec_check(A->codec) != PSL_OK) {
        char why[sizeof ((psl_error_info *)0)->message];
        snprintf(why, sizeof why, "%s", psl_last_error_message());
        return PSL_CORRUPT("%s: invalid PackSELL codec: %s", n, why);
    }
    if (A->delta_bits != psl_codec_delta_bits(A->codec))
        return PSL_CORRUPT("%s: delta bits %d, but codec e%dm%d has %d", n, (int)A->delta_bits,
                           (int)A->codec.exp_bits, (int)A->codec.man_bits,
                           (int)psl_codec_delta_bits(A->codec));
    return PSL_OK;
}

/* PackSELL slice k: walk every lane from its block's start column with
 * int64 arithmetic; every column reached is in [0, ncols), entries strictly
 * increase, value bits are not Inf/NaN, a dummy is followed by an entry,
 * padding (word 0) only at the end, lanes past nrows padding only. */
static int check_packsell_slice(const psl_matrix *A, int64_t k, psl_check_counts *acc,
                                unsigned char *aux, char *msg, size_t len)
{
    if (psl_sliced_check_slice_ptr(A, k, msg, len))
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
                return psl_check_fail(msg, len, "slice %lld: lane %lld is past the last row "
                                      "(%d rows) but word %lld is 0x%08x instead of padding",
                                      (long long)k, (long long)l, (int)A->nrows, (long long)j,
                                      (unsigned)w);
            if (col >= A->ncols)
                return psl_check_fail(msg, len, "slice %lld: word %lld of lane %lld (stored "
                                      "row %lld) reaches column %lld >= ncols %d",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (long long)col, (int)A->ncols);
            if (pad_seen && w != 0)
                return psl_check_fail(msg, len, "slice %lld: word %lld of lane %lld (stored "
                                      "row %lld) follows padding but is 0x%08x",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (unsigned)w);
            if (!is_entry && delta == 0) {
                if (after_dummy)
                    return psl_check_fail(msg, len, "slice %lld: dummy word %lld of lane %lld "
                                          "(stored row %lld) is followed by padding, not an "
                                          "entry",
                                          (long long)k, (long long)j - 1, (long long)l,
                                          (long long)row);
                pad_seen = 1;
                acc->padding++;
                continue;
            }
            if (!is_entry) {
                if (after_dummy)
                    return psl_check_fail(msg, len, "slice %lld: two dummy words in a row at "
                                          "word %lld of lane %lld (stored row %lld)",
                                          (long long)k, (long long)j, (long long)l,
                                          (long long)row);
                after_dummy = 1;
                acc->dummies++;
                continue;
            }
            if (col <= last)
                return psl_check_fail(msg, len, "slice %lld: word %lld of lane %lld (stored "
                                      "row %lld) repeats column %lld (delta 0 not after a "
                                      "dummy)",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (long long)col);
            const uint32_t vbits = w >> (D + 1);
            if (((vbits >> m) & exp_all_ones) == exp_all_ones)
                return psl_check_fail(msg, len, "slice %lld: word %lld of lane %lld (stored "
                                      "row %lld, column %lld) holds an Inf/NaN pattern of "
                                      "codec e%dm%d",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (long long)col, e, m);
            after_dummy = 0;
            last = col;
            cnt++;
        }
        if (after_dummy)
            return psl_check_fail(msg, len, "slice %lld: lane %lld (stored row %lld) ends "
                                  "with a dummy word",
                                  (long long)k, (long long)l, (long long)row);
        acc->nnz += cnt;
        if (cnt > acc->max_row)
            acc->max_row = (int32_t)cnt;
    }
    return 0;
}

psl_status psl_packsell_validate(const char *file, const psl_matrix *A)
{
    return psl_sliced_validate(file, A, check_packsell_slice);
}
