/*
 * packsell_decode.c -- one stored row of a PackSELL matrix as CSR entries
 * (the walker of psl_matrix_to_csr): the running column sum from the row's
 * start column, each entry word's value decoded exactly, dummy and padding
 * words skipped.
 */
#include "format/build.h"
#include "format/packsell/packsell.h"

int64_t psl_packsell_walk_row(const psl_matrix *A, int64_t i, int32_t *ci, double *v)
{
    int64_t cnt = 0;
    const int64_t C = A->C, k = i / C;
    const int64_t base = A->slice_ptr[k] + i % C;
    const int64_t width = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / C;
    const int D = A->delta_bits, e = A->codec.exp_bits;
    const uint32_t exp_ones = (1u << e) - 1u;
    const float scale = psl_codec_decode_scale(e);
    const int64_t db = psl_dblock(A);
    int64_t c = psl_block_start_col((i / db) * db, A->kleft, A->ncols);
    for (int64_t j = 0; j < width; j++) {
        uint32_t w = A->words[base + j * C];
        c += psl_word_delta(w, D);
        if (!psl_word_flag(w))
            continue; /* dummy or padding */
        if (ci) {
            ci[cnt] = c > INT32_MAX ? INT32_MAX : (int32_t)c;
            /* exact float decode (word.h); Inf/NaN patterns of a damaged
             * handle go through the generic decoder so adopt rejects them */
            uint32_t vb = psl_word_value_bits(w, D);
            v[cnt] = ((vb >> (31 - e)) & exp_ones) == exp_ones
                         ? psl_codec_decode(A->codec, w >> (D + 1))
                         : (double)psl_decode_inplace(vb, e, scale);
        }
        cnt++;
    }
    return cnt;
}
