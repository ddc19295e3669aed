/*
 * spmv_fixture.h -- test support for the SpMV tests: random CSR matrices of
 * several shapes, a small independent builder of SELL and PackSELL handles
 * (so that the kernels are tested on hand-made handles whatever the state
 * of the converters, including dummy words at chosen deltas), the FP64
 * oracle computed by the simplest loop, and the tolerance check.
 */
#ifndef PSL_SPMV_FIXTURE_H
#define PSL_SPMV_FIXTURE_H

#include "packsell.h"
#include "internal.h"
#include "codec/codec.h"
#include "codec/half.h"
#include "format/word.h"
#include "harness.h"
#include "spmv_kinds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A 0-based CSR matrix with sorted, distinct columns (test-owned arrays). */

typedef struct tcsr {
    int32_t nrows, ncols;
    int64_t *rp;
    int32_t *ci;
    double *v;
} tcsr;

static inline void tcsr_free(tcsr *m)
{
    free(m->rp);
    free(m->ci);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* Random matrix: row i gets len(i) distinct columns drawn from [lo(i), hi(i)).
 * kind: 0 uniform (k per row), 1 empty rows every 3rd row, 2 a few long
 * rows, 3 scattered (columns far apart: dummies for small D), 4 banded,
 * 5 stencil-like: row i holds the k columns from i - k/2 (clipped to the
 * matrix) and i + 3k, without column i on every 41st row, so the columns of
 * neighbouring rows are mostly consecutive (the SIMD kernels' contiguous
 * x loads) and reach column 0 and column ncols-1. */
static inline tcsr tcsr_random(int32_t nrows, int32_t ncols, int k, int kind, unsigned long long seed)
{
    tcsr m = {nrows, ncols, calloc((size_t)nrows + 1, sizeof(int64_t)), NULL, NULL};
    unsigned long long s = seed;
    int64_t cap = 0;
    int *len = calloc((size_t)nrows + 1, sizeof(int));
    for (int32_t i = 0; i < nrows; i++) {
        int L = ncols > 0 ? 1 + (int)(psl_test_rand(&s) % (unsigned)(2 * k)) : 0;
        if (kind == 1 && i % 3 == 1)
            L = 0;
        if (kind == 2 && i % 37 == 5)
            L = 150;
        if (kind == 4)
            L = k;
        if (L > ncols)
            L = ncols;
        len[i] = L;
        cap += L;
    }
    m.ci = malloc((size_t)(cap ? cap : 1) * sizeof(int32_t));
    m.v = malloc((size_t)(cap ? cap : 1) * sizeof(double));
    char *used = calloc((size_t)ncols + 1, 1);
    int64_t nz = 0;
    if (kind == 5) {
        free(used);
        free(len);
        free(m.ci);
        free(m.v);
        m.ci = malloc(((size_t)nrows * (size_t)(k + 1) + 1) * sizeof(int32_t));
        m.v = malloc(((size_t)nrows * (size_t)(k + 1) + 1) * sizeof(double));
        for (int32_t i = 0; i < nrows; i++) {
            m.rp[i] = nz;
            for (int64_t c = (int64_t)i - k / 2; c < (int64_t)i - k / 2 + k; c++)
                if (c >= 0 && c < ncols && !(c == i && i % 41 == 7))
                    m.ci[nz++] = (int32_t)c;
            if ((int64_t)i + 3 * k < ncols)
                m.ci[nz++] = i + 3 * k;
        }
        m.rp[nrows] = nz;
        for (int64_t a = 0; a < nz; a++)
            m.v[a] = 2 * psl_test_uniform(&s) - 1;
        return m;
    }
    for (int32_t i = 0; i < nrows; i++) {
        m.rp[i] = nz;
        int32_t lo = 0, span = ncols;
        if (kind == 4) { /* band around the diagonal position */
            int64_t c = (int64_t)i * ncols / (nrows ? nrows : 1);
            lo = (int32_t)(c - 2 * k < 0 ? 0 : c - 2 * k);
            span = 4 * k + 1;
            if (lo + span > ncols)
                span = ncols - lo;
        }
        int L = len[i] < span ? len[i] : span;
        int got = 0;
        while (got < L) { /* distinct columns by rejection */
            int32_t c = lo + (int32_t)(psl_test_rand(&s) % (unsigned)span);
            if (kind == 3) /* scattered: multiples of a large stride */
                c = (int32_t)((int64_t)(psl_test_rand(&s) % 64) * (ncols / 64 ? ncols / 64 : 1)) %
                    ncols;
            if (used[c])
                continue;
            used[c] = 1;
            m.ci[nz + got++] = c;
            if (kind == 3 && got >= 64)
                break;
        }
        /* sort the row and clear the marks */
        for (int a = 1; a < got; a++)
            for (int b = a; b > 0 && m.ci[nz + b - 1] > m.ci[nz + b]; b--) {
                int32_t t = m.ci[nz + b];
                m.ci[nz + b] = m.ci[nz + b - 1];
                m.ci[nz + b - 1] = t;
            }
        for (int a = 0; a < got; a++) {
            used[m.ci[nz + a]] = 0;
            double v = 2 * psl_test_uniform(&s) - 1;
            if (psl_test_rand(&s) % 16 == 0)
                v *= 1e-3;
            m.v[nz + a] = v;
        }
        nz += got;
    }
    m.rp[nrows] = nz;
    free(used);
    free(len);
    return m;
}

/* Round v to what the handle stores, as a double (SELL/CSR value types). */
static inline double round_to(double v, psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return v;
    case PSL_FP32: return (float)v;
    case PSL_FP16: return psl_half_to_float(psl_float_to_half((float)v)); /* as put_val */
    default: return psl_bf16_to_float(psl_float_to_bf16((float)v));
    }
}

/* Store v (a value of type t) at p[k]. */
static inline void put_val(void *p, int64_t k, psl_scalar t, double v)
{
    switch (t) {
    case PSL_FP64: ((double *)p)[k] = v; break;
    case PSL_FP32: ((float *)p)[k] = (float)v; break;
    case PSL_FP16: ((uint16_t *)p)[k] = psl_float_to_half((float)v); break;
    default: ((uint16_t *)p)[k] = psl_float_to_bf16((float)v); break;
    }
}

/* CSR handle with values of type vt (FP64/FP32), built by hand. */
static inline psl_matrix *fx_csr(const tcsr *m, psl_scalar vt)
{
    psl_matrix *A = psl_matrix_new(PSL_FORMAT_CSR, m->nrows, m->ncols);
    int64_t nnz = m->rp[m->nrows];
    A->nnz = nnz;
    A->value_type = vt;
    A->row_ptr = malloc(((size_t)m->nrows + 1) * sizeof(int64_t));
    A->col_idx = malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t));
    A->values = malloc((size_t)(nnz ? nnz : 1) * psl_scalar_size(vt));
    memcpy(A->row_ptr, m->rp, ((size_t)m->nrows + 1) * sizeof(int64_t));
    if (nnz)
        memcpy(A->col_idx, m->ci, (size_t)nnz * sizeof(int32_t));
    for (int64_t k = 0; k < nnz; k++)
        put_val(A->values, k, vt, m->v[k]);
    return A;
}

/* Words of original row r of a PackSELL matrix (entries, dummies) into w;
 * returns the count. Values encoded with the codec (saturating). */
static inline int64_t fx_row_words(const tcsr *m, int32_t r, int64_t d, psl_codec codec, uint32_t *w)
{
    int D = psl_codec_delta_bits(codec);
    int64_t n = 0, c = d;
    for (int64_t k = m->rp[r]; k < m->rp[r + 1]; k++) {
        int64_t delta = m->ci[k] - c;
        if (delta >= ((int64_t)1 << D)) {
            if (w)
                w[n] = psl_word_dummy((uint32_t)delta);
            n++;
            delta = 0;
        }
        if (w) {
            uint32_t bits = 0;
            psl_codec_encode_raw(codec, PSL_OVERFLOW_SATURATE, m->v[k], &bits);
            w[n] = psl_word_entry(bits, (uint32_t)delta, D);
        }
        n++;
        c = m->ci[k];
    }
    return n;
}

/* SELL (format SELL, value type vt) or PackSELL (format PACKSELL, codec)
 * handle with slice height C, sorting window sigma (0: none; rows sorted by
 * descending stored length, stably, inside each window) and permutation pm. */
static inline psl_matrix *fx_sliced(const tcsr *m, psl_format fmt, psl_scalar vt, psl_codec codec,
                             int32_t C, int32_t sigma, psl_permute pm)
{
    const int32_t n = m->nrows;
    psl_matrix *A = psl_matrix_new(fmt, n, m->ncols);
    A->nnz = m->rp[n];
    A->value_type = vt;
    A->C = C;
    A->sigma = sigma;
    A->permute = pm;
    A->nslices = (n + C - 1) / C;
    A->codec = codec;
    A->delta_bits = psl_codec_delta_bits(codec);
    /* kleft over rows with entries */
    int64_t kleft = 0;
    int first = 1;
    for (int32_t i = 0; i < n; i++)
        if (m->rp[i + 1] > m->rp[i] && (first || i - m->ci[m->rp[i]] > kleft)) {
            kleft = i - m->ci[m->rp[i]];
            first = 0;
        }
    A->kleft = kleft;
    int32_t db = sigma ? sigma : C;
    /* stored length of every original row */
    int64_t *len = malloc(((size_t)n + 1) * sizeof(int64_t));
    for (int32_t i = 0; i < n; i++)
        len[i] = fmt == PSL_FORMAT_PACKSELL
                     ? fx_row_words(m, i, psl_block_start_col((int64_t)(i / db) * db, kleft,
                                                              m->ncols),
                                    codec, NULL)
                     : m->rp[i + 1] - m->rp[i];
    /* order[s] = original row of stored row s */
    int32_t *order = malloc(((size_t)n + 1) * sizeof(int32_t));
    for (int32_t i = 0; i < n; i++)
        order[i] = i;
    if (sigma) {
        A->perm_bytes = psl_perm_bytes_for_sigma(sigma);
        A->perm = calloc((size_t)n + 1, (size_t)A->perm_bytes);
        for (int32_t b0 = 0; b0 < n; b0 += sigma) {
            int32_t b1 = b0 + sigma < n ? b0 + sigma : n;
            for (int32_t a = b0 + 1; a < b1; a++) /* stable insertion sort */
                for (int32_t b = a; b > b0 && len[order[b - 1]] < len[order[b]]; b--) {
                    int32_t t = order[b];
                    order[b] = order[b - 1];
                    order[b - 1] = t;
                }
            for (int32_t s = b0; s < b1; s++) {
                int32_t p = order[s] - b0;
                if (A->perm_bytes == 1)
                    ((uint8_t *)A->perm)[s] = (uint8_t)p;
                else if (A->perm_bytes == 2)
                    ((uint16_t *)A->perm)[s] = (uint16_t)p;
                else
                    ((uint32_t *)A->perm)[s] = (uint32_t)p;
            }
        }
    }
    A->slice_ptr = malloc(((size_t)A->nslices + 1) * sizeof(int64_t));
    A->slice_ptr[0] = 0;
    for (int32_t k = 0; k < A->nslices; k++) {
        int64_t w = 0;
        for (int32_t l = 0; l < C && (int64_t)k * C + l < n; l++)
            if (len[order[k * C + l]] > w)
                w = len[order[k * C + l]];
        A->slice_ptr[k + 1] = A->slice_ptr[k] + w * C;
    }
    int64_t total = A->slice_ptr[A->nslices];
    A->stored = total;
    uint32_t *tmp = malloc(((size_t)m->ncols + 64) * 2 * sizeof(uint32_t) + 8);
    if (fmt == PSL_FORMAT_PACKSELL)
        A->words = calloc((size_t)(total ? total : 1), sizeof(uint32_t)); /* 0 = padding */
    else {
        A->sell_col = malloc((size_t)(total ? total : 1) * sizeof(int32_t));
        A->sell_val = calloc((size_t)(total ? total : 1), psl_scalar_size(vt));
        for (int64_t q = 0; q < total; q++)
            A->sell_col[q] = -1;
    }
    for (int32_t s = 0; s < n; s++) {
        int32_t r = order[s], k = s / C, l = s % C;
        int64_t base = A->slice_ptr[k] + l;
        if (fmt == PSL_FORMAT_PACKSELL) {
            int64_t nw = fx_row_words(m, r, psl_block_start_col((int64_t)(s / db) * db, kleft, m->ncols),
                                      codec, tmp);
            for (int64_t j = 0; j < nw; j++) {
                A->words[base + j * C] = tmp[j];
                A->dummies += !psl_word_flag(tmp[j]);
            }
        } else {
            for (int64_t j = 0; j < m->rp[r + 1] - m->rp[r]; j++) {
                A->sell_col[base + j * C] = m->ci[m->rp[r] + j];
                put_val(A->sell_val, base + j * C, vt, m->v[m->rp[r] + j]);
            }
        }
    }
    A->padding = total - A->nnz - A->dummies;
    free(tmp);
    free(order);
    free(len);
    return A;
}

/* The value a fixture handle stores for entry k of m (the rounded matrix). */
static inline double fx_stored_value(const tcsr *m, int64_t k, psl_format fmt, psl_scalar vt,
                              psl_codec codec)
{
    if (fmt == PSL_FORMAT_PACKSELL) {
        uint32_t bits = 0;
        psl_codec_encode_raw(codec, PSL_OVERFLOW_SATURATE, m->v[k], &bits);
        return psl_codec_decode(codec, bits);
    }
    return round_to(m->v[k], vt);
}

/* Copy of m with every value replaced by what a fixture handle stores. */
static inline tcsr fx_rounded(const tcsr *m, psl_format fmt, psl_scalar vt, psl_codec codec)
{
    int64_t nnz = m->rp[m->nrows];
    tcsr r = {m->nrows, m->ncols, malloc(((size_t)m->nrows + 1) * sizeof(int64_t)),
              malloc((size_t)(nnz ? nnz : 1) * sizeof(int32_t)),
              malloc((size_t)(nnz ? nnz : 1) * sizeof(double))};
    memcpy(r.rp, m->rp, ((size_t)m->nrows + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < nnz; k++) {
        r.ci[k] = m->ci[k];
        r.v[k] = fx_stored_value(m, k, fmt, vt, codec);
    }
    return r;
}

/* ---- vectors of a given type, with their exact values as doubles ---- */
typedef struct tvec {
    psl_scalar t;
    int64_t n;
    void *p;   /* n elements of type t */
    double *d; /* their values */
} tvec;

static inline void tvec_set(tvec *v, int64_t i, double x)
{
    put_val(v->p, i, v->t, x);
    v->d[i] = v->t == PSL_FP64 ? x : v->t == PSL_FP32 ? (double)(float)x
                                                       : psl_half_to_float(((uint16_t *)v->p)[i]);
}

/* Random vector in [-1, 1) (n may be 0). */
static inline tvec tvec_random(psl_scalar t, int64_t n, unsigned long long seed)
{
    tvec v = {t, n, malloc((size_t)(n ? n : 1) * psl_scalar_size(t)),
              malloc((size_t)(n ? n : 1) * sizeof(double))};
    for (int64_t i = 0; i < n; i++)
        tvec_set(&v, i, 2 * psl_test_uniform(&seed) - 1);
    return v;
}

static inline void tvec_free(tvec *v)
{
    free(v->p);
    free(v->d);
    v->p = NULL;
    v->d = NULL;
}

/* Bits of element i of a typed vector, for bitwise comparisons. */
static inline int tvec_same_bits(const void *a, const void *b, psl_scalar t, int64_t n)
{
    return n == 0 || memcmp(a, b, (size_t)n * psl_scalar_size(t)) == 0;
}

/* Check y (typed, stored order of A) against y = alpha*R*x + beta*y0 by the
 * simplest FP64 loop over the rounded CSR R (original row order).
 * Tolerance per row: (len+3) u (|alpha| sum|a||x| + |beta||y0|), u the unit
 * roundoff of the accumulation type, plus half an FP16 ulp of the result for
 * FP16 output. Returns the number of rows out of tolerance (first reported). */
static inline int fx_check_against_oracle(const psl_matrix *A, const tcsr *R, const tvec *x,
                                   double alpha, const tvec *y0, double beta, const void *y,
                                   const char *label)
{
    const psl_scalar t = x->t;
    const double u = t == PSL_FP64 ? 0x1p-53 : 0x1p-24;
    int32_t *order = malloc(((size_t)R->nrows + 1) * sizeof(int32_t));
    psl_matrix_row_order(A, order);
    psl_matrix_info info;
    psl_matrix_get_info(A, &info);
    int explicit_perm = info.format != PSL_FORMAT_CSR && info.permute == PSL_PERMUTE_EXPLICIT;
    int bad = 0;
    for (int32_t s = 0; s < R->nrows; s++) {
        int32_t i = explicit_perm ? order[s] : s; /* original row whose result is y[s] */
        double sum = 0, mag = 0;
        for (int64_t k = R->rp[i]; k < R->rp[i + 1]; k++) {
            sum += R->v[k] * x->d[R->ci[k]];
            mag += fabs(R->v[k] * x->d[R->ci[k]]);
        }
        double ref = alpha * sum, len = (double)(R->rp[i + 1] - R->rp[i]);
        double bound = (len + 3) * u * (fabs(alpha) * mag);
        if (beta != 0) {
            ref += beta * y0->d[s];
            bound += (len + 3) * u * fabs(beta * y0->d[s]);
        }
        double got = t == PSL_FP64   ? ((const double *)y)[s]
                     : t == PSL_FP32 ? ((const float *)y)[s]
                                     : psl_half_to_float(((const uint16_t *)y)[s]);
        if (t == PSL_FP16)
            bound += 0x1p-11 * fabs(ref) + 0x1p-25 + 0x1p-11 * bound;
        if (!(fabs(got - ref) <= bound)) {
            if (!bad)
                fprintf(stderr, "  %s: row %d (stored %d): got %.17g, expected %.17g +- %.3g\n",
                        label, (int)i, (int)s, got, ref, bound);
            bad++;
        }
    }
    free(order);
    return bad;
}

#endif
