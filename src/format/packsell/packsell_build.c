/*
 * packsell_build.c -- FP64 CSR -> PackSELL (32-bit words, word.h). Each row
 * becomes a sequence of words: column deltas from the row's start column
 * (paper eq. 4, psl_block_start_col) packed with the codec's value bits, and
 * a dummy word before every entry whose delta does not fit D bits. Rows are
 * sigma-sorted by their word counts and laid out SELL-style; padding words
 * are 0. Passes: count words per row, sort per block, slice offsets, fill
 * slices in parallel.
 */
#include "format/build.h"

#include <stdlib.h>

/* Lower bandwidth max_i (i - min col of row i) over rows with entries (0 if
 * none), recomputed from the arrays so the encoding never trusts a field. */
static int64_t lower_bandwidth(const psl_matrix *src)
{
    const int64_t n = src->nrows;
    int64_t kleft = INT64_MIN;
#pragma omp parallel for reduction(max : kleft) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        if (src->row_ptr[i + 1] > src->row_ptr[i] && i - src->col_idx[src->row_ptr[i]] > kleft)
            kleft = i - src->col_idx[src->row_ptr[i]];
    return kleft == INT64_MIN ? 0 : kleft;
}

/* Start column of original row r. sigma-sorting moves rows only inside their
 * sigma block and the d-block is sigma (or C without sorting, when stored row
 * == original row), so the stored row's block start equals r's. */
static int64_t row_start_col(const psl_matrix *A, int64_t r)
{
    const int64_t db = psl_dblock(A);
    return psl_block_start_col((r / db) * db, A->kleft, A->ncols);
}

/* Words of original row r (entries + dummies); -1 if a delta is negative
 * (columns unsorted or below the start column: a bug). */
static int64_t row_words(const psl_matrix *A, const psl_matrix *src, int64_t r)
{
    const int64_t lo = src->row_ptr[r], hi = src->row_ptr[r + 1];
    const int64_t limit = (int64_t)1 << A->delta_bits;
    int64_t c = row_start_col(A, r), words = hi - lo;
    for (int64_t k = lo; k < hi; k++) {
        int64_t delta = src->col_idx[k] - c;
        if (delta < 0)
            return -1;
        words += delta >= limit;
        c = src->col_idx[k];
    }
    return words;
}

/* Fill the words of slice k. Returns the smallest CSR entry index whose value
 * the codec rejected (INT64_MAX if none); adds underflows to *under. */
static int64_t fill_slice(psl_matrix *A, const psl_matrix *src, const int32_t *order, int64_t k,
                          psl_overflow policy, int64_t *under)
{
    const int64_t C = A->C, base = A->slice_ptr[k];
    const int64_t width = (A->slice_ptr[k + 1] - base) / C;
    const int D = A->delta_bits, V = 31 - D;
    const int64_t limit = (int64_t)1 << D;
    const uint32_t mag_mask = (1u << (V - 1)) - 1u;
    const double *sv = src->values;
    int64_t bad = INT64_MAX;
    if (width == 0)
        return bad;
    for (int64_t l = 0; l < C; l++) {
        const int64_t i = k * C + l;
        int64_t j = 0; /* words of this lane so far */
        if (i < A->nrows) {
            const int64_t r = order[i];
            int64_t c = row_start_col(A, r);
            for (int64_t e = src->row_ptr[r]; e < src->row_ptr[r + 1]; e++) {
                int64_t delta = src->col_idx[e] - c;
                c = src->col_idx[e];
                if (delta >= limit) {
                    A->words[base + j++ * C + l] = psl_word_dummy((uint32_t)delta);
                    delta = 0;
                }
                uint32_t vb = 0;
                if (psl_codec_encode_raw(A->codec, policy, sv[e], &vb) != PSL_OK) {
                    vb = 0;
                    if (e < bad)
                        bad = e;
                }
                *under += sv[e] != 0.0 && (vb & mag_mask) == 0;
                A->words[base + j++ * C + l] = psl_word_entry(vb, (uint32_t)delta, D);
            }
        }
        for (; j < width; j++)
            A->words[base + j * C + l] = 0u; /* padding: flag 0, delta 0 */
    }
    return bad;
}

/* Bytes of the SELL with the same C and sigma (rows sorted by their entry
 * counts, no dummies), value width vw, int32 columns; len and order are
 * scratch of nrows entries. */
static psl_status sell_equiv_bytes(const psl_matrix *A, const psl_matrix *src, int64_t *len,
                                   int32_t *order, int64_t vw, int64_t *bytes)
{
    const int64_t n = A->nrows;
    int64_t *sp = NULL;
#pragma omp parallel for if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++)
        len[i] = src->row_ptr[i + 1] - src->row_ptr[i];
    PSL_TRY(psl_sigma_order(A->nrows, A->sigma, len, order));
    PSL_TRY(psl_alloc((void **)&sp, (size_t)A->nslices + 1, sizeof *sp, "slice offsets"));
    psl_status st = psl_slice_offsets(A->nrows, A->C, len, order, sp);
    if (st == PSL_OK)
        *bytes = sp[A->nslices] * (vw + 4) + ((int64_t)A->nslices + 1) * 8 +
                 (A->permute == PSL_PERMUTE_IMPLICIT ? n * A->perm_bytes : 0);
    free(sp);
    return st;
}

psl_status psl_packsell_build(psl_matrix **out, const psl_matrix *src,
                              const psl_convert_options *opt, bool dry)
{
    const int64_t n = src->nrows;
    psl_status st = PSL_OK;
    int64_t *len = NULL;
    int32_t *order = NULL;
    psl_matrix *A = NULL;
    PSL_TRY(psl_sliced_new(&A, PSL_FORMAT_PACKSELL, src, opt));
    /* value_type keeps psl_matrix_new's FP64: PackSELL values are defined by the codec */
    A->codec = opt->codec;
    A->delta_bits = psl_codec_delta_bits(opt->codec);
    A->kleft = lower_bandwidth(src);

    if ((st = psl_alloc((void **)&len, (size_t)n, sizeof *len, "row word counts")) != PSL_OK)
        goto fail;
    int64_t negative = INT64_MAX, dummies = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : negative) reduction(+ : dummies) \
    if (src->nnz > PSL_PAR_MIN)
    for (int64_t r = 0; r < n; r++) {
        len[r] = row_words(A, src, r);
        if (len[r] < 0) {
            if (r < negative)
                negative = r;
            len[r] = 0;
        } else {
            dummies += len[r] - (src->row_ptr[r + 1] - src->row_ptr[r]);
        }
    }
    if (negative != INT64_MAX) {
        st = psl_error_at(PSL_ERR_INTERNAL, -1, negative, -1,
                          "negative column delta in row %lld (CSR source not sorted?)",
                          (long long)negative);
        goto fail;
    }
    if ((st = psl_build_slicing(A, len, dry ? 0.0 : (double)sizeof *A->words, &order)) !=
            PSL_OK ||
        (!dry && (st = psl_alloc((void **)&A->words, (size_t)A->stored, sizeof *A->words,
                                 "PackSELL words")) != PSL_OK))
        goto fail;

    int64_t under = 0;
    const int64_t bad =
        dry ? INT64_MAX : psl_fill_slices(A, src, order, opt->overflow, fill_slice, &under);
    if (bad != INT64_MAX) {
        char name[16];
        uint32_t vb;
        double v = ((const double *)src->values)[bad];
        psl_codec_name(A->codec, name, sizeof name);
        st = psl_round_error(psl_codec_encode_raw(A->codec, opt->overflow, v, &vb),
                             psl_row_of_entry(src->row_ptr, n, bad), src->col_idx[bad], v, name);
        goto fail;
    }
    const int64_t vw = 31 - A->delta_bits <= 16 ? 2 : 4;
    A->dummies = dummies;
    A->padding = A->stored - A->nnz - dummies;
    A->underflows = under;
    A->max_row_nnz = src->max_row_nnz;
    A->rsd = src->rsd;
    A->csr_equiv_bytes = (n + 1) * 8 + A->nnz * (4 + vw);
    if ((st = sell_equiv_bytes(A, src, len, order, vw, &A->sell_equiv_bytes)) != PSL_OK)
        goto fail;
    free(len);
    free(order);
    *out = A;
    return PSL_OK;
fail:
    free(len);
    free(order);
    psl_matrix_destroy(&A);
    return st;
}
