/*
 * format_ref.h -- helpers of the format tests (test_sell.c, test_packsell.c):
 * random sorted CSR matrices built by the simplest code, the expected stored
 * values, and independent walks of SELL and PackSELL storage that re-derive
 * every word / entry from the paper's rules (no library helpers from
 * word.h or sigma_sort.c are used here).
 */
#ifndef PSL_TEST_FORMAT_REF_H
#define PSL_TEST_FORMAT_REF_H

#include "packsell.h"
#include "internal.h"
#include "harness.h"

#include <float.h>
#include <stdint.h>

/* A plain 0-based CSR with sorted, unique columns. */
typedef struct ref_csr {
    int32_t n, m;
    int64_t *rp;
    int32_t *ci;
    double *v;
} ref_csr;

static void ref_free(ref_csr *R)
{
    free(R->rp);
    free(R->ci);
    free(R->v);
    R->rp = NULL, R->ci = NULL, R->v = NULL;
}

enum { REF_BANDED = 0, REF_SCATTERED = 1, REF_IRREGULAR = 2 };

/* A random n x m matrix: banded (columns near i*m/n), scattered (uniform
 * columns) or irregular (empty rows, a few long rows, uniform columns).
 * Values span many binades, with explicit zeros and some tiny values. */
static ref_csr ref_random(int32_t n, int32_t m, int kind, unsigned long long seed)
{
    ref_csr R = {n, m, malloc(((size_t)n + 1) * sizeof(int64_t)), NULL, NULL};
    unsigned long long s = seed;
    int64_t cap = 16;
    R.ci = malloc((size_t)cap * sizeof *R.ci);
    R.v = malloc((size_t)cap * sizeof *R.v);
    R.rp[0] = 0;
    for (int32_t i = 0; i < n; i++) {
        int64_t want = (int64_t)(psl_test_rand(&s) % 9);
        if (kind == REF_IRREGULAR) {
            uint64_t r = psl_test_rand(&s) % 100;
            want = r < 30 ? 0 : r < 35 ? 40 + (int64_t)(psl_test_rand(&s) % 80) : want;
        }
        if (want > m)
            want = m;
        int64_t lo = R.rp[i], len = 0;
        if (lo + want > cap) {
            while (lo + want > cap)
                cap *= 2;
            R.ci = realloc(R.ci, (size_t)cap * sizeof *R.ci);
            R.v = realloc(R.v, (size_t)cap * sizeof *R.v);
        }
        for (int64_t t = 0; t < want; t++) {
            int64_t c;
            if (kind == REF_BANDED) {
                int64_t center = (int64_t)i * m / (n ? n : 1);
                c = center - 6 + (int64_t)(psl_test_rand(&s) % 13);
                c = c < 0 ? 0 : c >= m ? m - 1 : c;
            } else {
                c = (int64_t)(psl_test_rand(&s) % (uint64_t)m);
            }
            /* insert keeping the row sorted and unique */
            int64_t y = len;
            int dup = 0;
            for (int64_t q = 0; q < len; q++)
                dup |= R.ci[lo + q] == c;
            if (dup)
                continue;
            while (y > 0 && R.ci[lo + y - 1] > c) {
                R.ci[lo + y] = R.ci[lo + y - 1];
                y--;
            }
            R.ci[lo + y] = (int32_t)c;
            len++;
        }
        for (int64_t q = 0; q < len; q++) {
            double x = (psl_test_uniform(&s) - 0.5) * ldexp(1.0, (int)(psl_test_rand(&s) % 30) - 15);
            uint64_t r = psl_test_rand(&s) % 50;
            if (r == 0)
                x = 0.0;
            else if (r == 1)
                x = -0.0;
            else if (r == 2)
                x = 1e-30; /* underflows in FP16 and short codecs */
            R.v[lo + q] = x;
        }
        R.rp[i + 1] = lo + len;
    }
    return R;
}

/* Handle of a reference CSR (STRICT: it must already be clean). */
static psl_matrix *ref_handle(const ref_csr *R)
{
    psl_matrix *A = NULL;
    if (psl_matrix_create_csr(&A, R->n, R->m, R->rp, R->ci, R->v, PSL_FP64, 0, PSL_CSR_STRICT) !=
        PSL_OK)
        return NULL;
    return A;
}

/* Expected stored value of v: SELL/CSR type t (FP32 by C cast, FP16/BF16 by
 * the codec) or, when t < 0, the PackSELL codec. Saturating policy. */
static double ref_round(int t, psl_codec codec, double v)
{
    uint32_t b = 0;
    switch (t) {
    case PSL_FP64: return v;
    case PSL_FP32: return (double)(float)v;
    case PSL_FP16: codec = (psl_codec){5, 10}; break;
    case PSL_BF16: codec = (psl_codec){8, 7}; break;
    default: break;
    }
    if (psl_codec_encode(codec, PSL_OVERFLOW_SATURATE, v, &b) != PSL_OK)
        return NAN;
    return psl_codec_decode(codec, b);
}

/* psl_matrix_to_csr(A) equals R with every value rounded by ref_round
 * (bitwise, so the sign of zero counts). */
static int ref_roundtrip_ok(const psl_matrix *A, const ref_csr *R, int t, psl_codec codec)
{
    psl_matrix *B = NULL;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    int ok = psl_matrix_to_csr(&B, A) == PSL_OK &&
             psl_matrix_csr_view(B, &rp, &ci, &v) == PSL_OK;
    for (int32_t i = 0; ok && i <= R->n; i++)
        ok = rp[i] == R->rp[i];
    for (int64_t k = 0; ok && k < R->rp[R->n]; k++) {
        double e = ref_round(t, codec, R->v[k]);
        ok = ci[k] == R->ci[k] && memcmp(&v[k], &e, sizeof e) == 0;
        if (!ok)
            fprintf(stderr, "  entry %lld: col %d vs %d, value %a vs %a\n", (long long)k, ci[k],
                    R->ci[k], v[k], e);
    }
    psl_matrix_destroy(&B);
    return ok;
}

/* Row order of A checked as a stable sort by descending len[] inside each
 * sigma block (or the identity for sigma == 0); order[] receives it. */
static int ref_check_order(const psl_matrix *A, const int64_t *len, int32_t *order)
{
    if (psl_matrix_row_order(A, order) != PSL_OK)
        return 0;
    const int64_t n = A->nrows, sigma = A->sigma;
    char *seen = calloc((size_t)n + 1, 1);
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i++) {
        int64_t r = order[i];
        ok = r >= 0 && r < n && !seen[r];
        if (ok)
            seen[r] = 1;
        if (ok && sigma == 0)
            ok = r == i;
        if (ok && sigma > 0) {
            ok = r / sigma == i / sigma; /* stays in its block */
            if (ok && i % sigma != 0) {
                int64_t p = order[i - 1];
                ok = len[p] > len[r] || (len[p] == len[r] && p < r);
            }
        }
    }
    free(seen);
    return ok;
}

/* Slice widths: each slice is C times its longest stored row. */
static int ref_check_slices(const psl_matrix *A, const int64_t *len, const int32_t *order)
{
    const int64_t C = A->C, n = A->nrows, ns = (n + C - 1) / C;
    if (A->nslices != ns || A->slice_ptr[0] != 0)
        return 0;
    for (int64_t k = 0; k < ns; k++) {
        int64_t w = 0;
        for (int64_t i = k * C; i < (k + 1) * C && i < n; i++)
            w = len[order[i]] > w ? len[order[i]] : w;
        if (A->slice_ptr[k + 1] - A->slice_ptr[k] != w * C)
            return 0;
    }
    return A->stored == A->slice_ptr[ns];
}

static int ref_cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Bytes of SELL with the same C and sigma, rows sorted by entries, value
 * width vw: computed by sorting the lengths of each block. */
static int64_t ref_sell_bytes(const ref_csr *R, int64_t C, int64_t sigma, int64_t vw,
                              int64_t perm_bytes)
{
    const int64_t n = R->n;
    int64_t *l = malloc(((size_t)n + 1) * sizeof *l);
    for (int64_t i = 0; i < n; i++)
        l[i] = R->rp[i + 1] - R->rp[i];
    for (int64_t b = 0; sigma > 0 && b < n; b += sigma) {
        int64_t e = b + sigma < n ? b + sigma : n;
        qsort(l + b, (size_t)(e - b), sizeof *l, ref_cmp_desc);
    }
    int64_t stored = 0, ns = (n + C - 1) / C;
    for (int64_t k = 0; k < ns; k++) {
        int64_t w = 0;
        for (int64_t i = k * C; i < (k + 1) * C && i < n; i++)
            w = l[i] > w ? l[i] : w;
        stored += w * C;
    }
    free(l);
    return stored * (vw + 4) + (ns + 1) * 8 + perm_bytes;
}

#endif
