/*
 * spmv_ref.c -- the scalar reference SpMV kernels of every format: the test
 * oracle of the optimized kernels. Written for obviousness, not speed.
 *
 * Everything is computed in double and rounded to the accumulation type
 * after every operation (acc()). For float accumulation this gives exactly
 * IEEE float arithmetic: a product of two floats is exact in double, and a
 * double-rounded sum of two floats equals the float sum because double has
 * more than 2*24+2 bits. The optimized kernels, which compute in float
 * directly, must therefore match these bits (see kernels.h for the
 * contract). PackSELL values are decoded by the codec's own exact decoder
 * (psl_codec_decode), independently of the bit tricks of the CPU kernels.
 */
#include "kernels/kernels.h"

#include "codec/half.h"
#include "format/word.h"

#include <stdbool.h>

/* Round v to the accumulation type (float when single is true). */
static double acc(double v, bool single) { return single ? (double)(float)v : v; }

/* Element i of a vector of type t, exactly as a double. */
static double vec_get(const void *v, int64_t i, psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return ((const double *)v)[i];
    case PSL_FP32: return ((const float *)v)[i];
    default: return psl_half_to_float(((const uint16_t *)v)[i]);
    }
}

/* Store r (already representable in the accumulation type) into vector v. */
static void vec_set(void *v, int64_t i, psl_scalar t, double r)
{
    switch (t) {
    case PSL_FP64: ((double *)v)[i] = r; break;
    case PSL_FP32: ((float *)v)[i] = (float)r; break;
    default: ((uint16_t *)v)[i] = psl_float_to_half((float)r); break;
    }
}

/* Stored CSR/SELL value k of storage type t as a double (exact). */
static double val_get(const void *v, int64_t k, psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return ((const double *)v)[k];
    case PSL_FP32: return ((const float *)v)[k];
    case PSL_FP16: return psl_half_to_float(((const uint16_t *)v)[k]);
    default: return psl_bf16_to_float(((const uint16_t *)v)[k]);
    }
}

/* y[o] = alpha*t + beta*y[o] in the accumulation type (y unread if beta == 0). */
static void finish_row(double alpha, double t, double beta, void *y, int64_t o,
                       psl_scalar vt)
{
    bool single = vt != PSL_FP64;
    double r = acc(acc(alpha, single) * t, single);
    if (beta != 0)
        r = acc(r + acc(acc(beta, single) * vec_get(y, o, vt), single), single);
    vec_set(y, o, vt, r);
}

/* t + a*x in the accumulation type. */
static double add_product(double t, double a, double xv, bool single)
{
    return acc(t + acc(acc(a, single) * xv, single), single);
}

void psl_ref_csr_spmv(double alpha, const psl_matrix *A, const void *x, double beta, void *y,
                      psl_scalar vt)
{
    bool single = vt != PSL_FP64;
    for (int64_t i = 0; i < A->nrows; i++) {
        double t = 0;
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            t = add_product(t, val_get(A->values, k, A->value_type),
                            vec_get(x, A->col_idx[k], vt), single);
        finish_row(alpha, t, beta, y, i, vt);
    }
}

void psl_ref_sell_spmv(double alpha, const psl_matrix *A, const void *x, double beta, void *y,
                       psl_scalar vt)
{
    bool single = vt != PSL_FP64;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t k = i / A->C, lane = i % A->C;
        int64_t width = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C;
        double t = 0;
        for (int64_t j = 0; j < width; j++) {
            int64_t idx = A->slice_ptr[k] + j * A->C + lane;
            int32_t c = A->sell_col[idx];
            if (c < 0)
                continue; /* padding */
            t = add_product(t, val_get(A->sell_val, idx, A->value_type), vec_get(x, c, vt),
                            single);
        }
        finish_row(alpha, t, beta, y, psl_spmv_out_row(A, i), vt);
    }
}

void psl_ref_packsell_spmv(double alpha, const psl_matrix *A, const void *x, double beta,
                           void *y, psl_scalar vt)
{
    bool single = vt != PSL_FP64;
    const int D = A->delta_bits;
    for (int64_t i = 0; i < A->nrows; i++) {
        int64_t k = i / A->C, lane = i % A->C;
        int64_t width = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C;
        int64_t c = psl_spmv_start_col(A, i);
        double t = 0;
        for (int64_t j = 0; j < width; j++) {
            uint32_t w = A->words[A->slice_ptr[k] + j * A->C + lane];
            c += psl_word_delta(w, D);
            if (!psl_word_flag(w))
                continue; /* dummy or padding */
            double v = psl_codec_decode(A->codec, w >> (D + 1));
            t = add_product(t, v, vec_get(x, c, vt), single);
        }
        finish_row(alpha, t, beta, y, psl_spmv_out_row(A, i), vt);
    }
}
