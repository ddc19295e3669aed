/*
 * sell_decode.c -- one stored row of a SELL matrix as CSR entries (the
 * walker of psl_matrix_to_csr): the lane's columns and exact values in
 * stored order, padding (column -1) skipped.
 */
#include "format/build.h"
#include "format/sell/sell.h"

int64_t psl_sell_walk_row(const psl_matrix *A, int64_t i, int32_t *ci, double *v)
{
    int64_t cnt = 0;
    const int64_t C = A->C, k = i / C;
    const int64_t base = A->slice_ptr[k] + i % C;
    const int64_t width = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / C;
    for (int64_t j = 0; j < width; j++) {
        int32_t col = A->sell_col[base + j * C];
        if (col < 0)
            continue; /* padding */
        if (ci) {
            ci[cnt] = col;
            v[cnt] = psl_load_scalar(A->sell_val, A->value_type, base + j * C);
        }
        cnt++;
    }
    return cnt;
}
