/*
 * sell_validate.c -- the checks of a loaded SELL matrix (binary reader):
 * its header fields and every slice's lanes, on top of the sliced checks
 * of format/sliced/.
 */
#include "format/sell/sell.h"
#include "format/sliced/sliced.h"

psl_status psl_sell_check_header(const char *n, const psl_matrix *A)
{
    PSL_TRY(psl_sliced_check_header(n, A));
    if (A->dummies != 0)
        return PSL_CORRUPT("%s: SELL matrix with %lld dummies", n, (long long)A->dummies);
    return PSL_OK;
}

/* SELL slice k: every lane's columns in [-1, ncols), ascending, padding
 * (-1, zero value bits) only at the end, lanes past nrows padding only. */
static int check_sell_slice(const psl_matrix *A, int64_t k, psl_check_counts *acc,
                            unsigned char *aux, char *msg, size_t len)
{
    if (psl_sliced_check_slice_ptr(A, k, msg, len))
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
                if (!psl_value_is_zero_bits(A->value_type, A->sell_val, e))
                    return psl_check_fail(msg, len, "slice %lld: padding entry %lld of lane "
                                          "%lld has nonzero value bits",
                                          (long long)k, (long long)j, (long long)l);
                pad_seen = 1;
                acc->padding++;
                continue;
            }
            if (row >= A->nrows)
                return psl_check_fail(msg, len, "slice %lld: lane %lld is past the last row "
                                      "(%d rows) but entry %lld has column %d instead of "
                                      "padding",
                                      (long long)k, (long long)l, (int)A->nrows, (long long)j,
                                      (int)c);
            if (c < -1 || c >= A->ncols)
                return psl_check_fail(msg, len, "slice %lld: entry %lld of lane %lld (stored "
                                      "row %lld) has column %d outside [-1, ncols %d)",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (int)c, (int)A->ncols);
            if (pad_seen)
                return psl_check_fail(msg, len, "slice %lld: entry %lld of lane %lld (stored "
                                      "row %lld) has column %d after padding",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (int)c);
            if (c <= prev)
                return psl_check_fail(msg, len, "slice %lld: entry %lld of lane %lld (stored "
                                      "row %lld): column %d does not follow column %lld in "
                                      "ascending order",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (int)c, (long long)prev);
            if (psl_value_nonfinite(A->value_type, A->sell_val, e))
                return psl_check_fail(msg, len, "slice %lld: entry %lld of lane %lld (stored "
                                      "row %lld, column %d) is Inf or NaN",
                                      (long long)k, (long long)j, (long long)l, (long long)row,
                                      (int)c);
            prev = c;
            cnt++;
        }
        acc->nnz += cnt;
        if (cnt > acc->max_row)
            acc->max_row = (int32_t)cnt;
    }
    return 0;
}

psl_status psl_sell_validate(const char *file, const psl_matrix *A)
{
    return psl_sliced_validate(file, A, check_sell_slice);
}
