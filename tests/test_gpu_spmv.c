/*
 * test_gpu_spmv.c -- the device API (psl_dmatrix_*, psl_dspmv) against the
 * CPU SpMV, through the public API only (plus cuda_runtime.h for device
 * vectors; internal.h only to find the rows of long slices). SELL and
 * PackSELL results must equal psl_spmv's BITWISE (both follow the arithmetic
 * contract of src/kernels/kernels.h; NaNs compare equal whatever their
 * payload), except in rows of slices the device splits over warps
 * (src/kernels/cuda/long_rows.h): those are checked with a rounding-error
 * bound, and bitwise with FP64 vectors on a matrix whose sums are exact in
 * any order. CSR goes through cuSPARSE, whose summation order is its own, so
 * it is checked with the bound. Also:
 * beta = 0 with NaN in y, alpha/beta, determinism over 20 runs, a run
 * captured into a CUDA graph, empty shapes, and bad arguments (each gives
 * its error before y is touched).
 *
 * Without a CUDA device (or in a build without CUDA) the test checks that
 * the device API fails cleanly, prints "SKIP: no CUDA device (GPU tests
 * skipped)" and passes.
 */
#include "packsell.h"
#include "gpu_harness.h"
#include "internal.h"
#include "kernels/cuda/long_rows.h"
#include "spmv_kinds.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ no device */

/* The device API must fail cleanly where there is no device (or no CUDA):
 * an error status, a message, and no handle. */
static void check_without_device(psl_status count_status)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "lap2d:4"));
    psl_dmatrix *dA = (psl_dmatrix *)(uintptr_t)1;
    psl_status st = psl_dmatrix_upload(&dA, A, NULL);
    CHECK(st != PSL_OK);
    CHECK(dA == NULL);
    CHECK(strlen(psl_last_error_message()) > 0);
    if (count_status == PSL_ERR_NOT_SUPPORTED) {
        CHECK_ST(st, PSL_ERR_NOT_SUPPORTED);
        CHECK(strstr(psl_last_error_message(), "without CUDA") != NULL);
        size_t ws = 7;
        psl_matrix_info info;
        CHECK_ST(psl_dspmv_workspace_size(NULL, PSL_FP64, &ws), PSL_ERR_NOT_SUPPORTED);
        CHECK_ST(psl_dmatrix_get_info(NULL, &info), PSL_ERR_NOT_SUPPORTED);
        CHECK_ST(psl_dspmv(1.0, NULL, NULL, 0.0, NULL, PSL_FP64, NULL, 0, NULL),
                 PSL_ERR_NOT_SUPPORTED);
    } else {
        CHECK_ST(st, PSL_ERR_CUDA);
    }
    psl_dmatrix_destroy(&dA);
    psl_dmatrix_destroy(NULL);
    psl_matrix_destroy(&A);
}

#ifdef PSL_HAVE_CUDA
/* ================================================================== with a device */

static const psl_codec FP16_CODEC = {5, 10};

/* ------------------------------------------------------------------ typed vectors */

static size_t esize(psl_scalar t) { return t == PSL_FP64 ? 8 : t == PSL_FP32 ? 4 : 2; }

/* Element i of a vector of type t as a double (exact). */
static double vget(const void *v, psl_scalar t, int64_t i)
{
    if (t == PSL_FP64)
        return ((const double *)v)[i];
    if (t == PSL_FP32)
        return ((const float *)v)[i];
    return psl_codec_decode(FP16_CODEC, ((const uint16_t *)v)[i]);
}

/* Store x (exactly representable in t) at element i. */
static void vset(void *v, psl_scalar t, int64_t i, double x)
{
    if (t == PSL_FP64)
        ((double *)v)[i] = x;
    else if (t == PSL_FP32)
        ((float *)v)[i] = (float)x;
    else {
        uint32_t bits = 0;
        psl_codec_encode(FP16_CODEC, PSL_OVERFLOW_ERROR, x, &bits);
        ((uint16_t *)v)[i] = (uint16_t)bits;
    }
}

static int visnan(const void *v, psl_scalar t, int64_t i)
{
    if (t == PSL_FP16)
        return (((const uint16_t *)v)[i] & 0x7fffu) > 0x7c00u;
    return isnan(vget(v, t, i));
}

/* Random values k/1024, |k| <= 1000 (exact in every vector type). */
static void vfill(void *v, psl_scalar t, int64_t n, unsigned long long seed)
{
    for (int64_t i = 0; i < n; i++)
        vset(v, t, i, (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 1024.0);
}

static void vfill_nan(void *v, psl_scalar t, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == PSL_FP64)
            ((double *)v)[i] = NAN;
        else if (t == PSL_FP32)
            ((float *)v)[i] = NAN;
        else
            ((uint16_t *)v)[i] = 0x7e00u;
    }
}

/* -1 when a and b have the same bits (any NaN equals any NaN), else the
 * first differing element. */
static int64_t first_diff(const void *a, const void *b, psl_scalar t, int64_t n)
{
    size_t es = esize(t);
    for (int64_t i = 0; i < n; i++) {
        if (memcmp((const char *)a + i * es, (const char *)b + i * es, es) == 0)
            continue;
        if (visnan(a, t, i) && visnan(b, t, i))
            continue;
        return i;
    }
    return -1;
}

/* ------------------------------------------------------------------ storage kinds */

/* The storage kinds and vector types of the CPU SpMV tests. */

/* Convert the FP64 CSR src into kind k (saturating codecs). */
static psl_status convert(psl_matrix **out, const psl_matrix *src, const fx_kind *k, int32_t C,
                          int32_t sigma, psl_permute pm)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = k->f;
    o.value_type = k->vt;
    o.codec = k->codec;
    o.slice_height = C;
    o.sigma = sigma;
    o.permute = pm;
    o.overflow = PSL_OVERFLOW_SATURATE;
    return psl_matrix_convert(out, src, &o);
}

/* An FP64 CSR test matrix from triplets generated by shape:
 *   0: nrows x ncols, every 3rd row empty, up to 6 entries per other row
 *      spread over the whole width (far columns: dummy words for small D);
 *   1: no entries at all;
 *   2: long rows: every 29th row has 64..3000 entries, the others 1..6
 *      (slices the device splits over warps, and narrow ones).
 * Values are k/512, |k| <= 1000: every product with an x of vfill is a
 * multiple of 2^-19 below 2 in magnitude, so FP64 sums of fewer than 2^30
 * of them are exact in any order (also after a codec rounds the value). */
static psl_matrix *edge_matrix(int32_t nrows, int32_t ncols, int shape, unsigned long long seed)
{
    const int64_t cap = (int64_t)nrows * (shape == 2 ? 110 : 6) + 1;
    int64_t *rp = calloc((size_t)nrows + 1, sizeof(int64_t));
    int32_t *ci = malloc((size_t)cap * sizeof(int32_t));
    double *v = malloc((size_t)cap * sizeof(double));
    int64_t nz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        rp[i] = nz;
        int len = (shape == 1 || ncols == 0 || i % 3 == 1) ? 0 : 1 + (int)(psl_test_rand(&seed) % 6);
        if (shape == 2)
            len = i % 29 == 0 ? 64 + (int)(psl_test_rand(&seed) % 2937)
                              : 1 + (int)(psl_test_rand(&seed) % 6);
        if (nz + len > cap)
            len = (int)(cap - nz);
        for (int t = 0; t < len; t++) {
            ci[nz] = (int32_t)(psl_test_rand(&seed) % (unsigned)ncols);
            v[nz] = (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 512.0;
            nz++;
        }
    }
    rp[nrows] = nz;
    psl_matrix *A = NULL;
    psl_status st = psl_matrix_create_csr(&A, nrows, ncols, rp, ci, v, PSL_FP64, 0, 0);
    CHECK_OK(st);
    free(rp);
    free(ci);
    free(v);
    return A;
}

static cudaStream_t g_stream;

/* Device buffers reused across runs (grown on demand). */
typedef struct dbuf {
    void *p;
    size_t n;
} dbuf;
static dbuf g_dx, g_dy, g_ws;

static void *dbuf_get(dbuf *b, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (bytes > b->n) {
        if (b->p)
            CUDA_CHECK(cudaFree(b->p));
        b->p = NULL;
        CUDA_CHECK(cudaMalloc(&b->p, bytes));
        b->n = bytes;
    }
    return b->p;
}

static void dbuf_free(dbuf *b)
{
    if (b->p)
        CUDA_CHECK(cudaFree(b->p));
    b->p = NULL;
    b->n = 0;
}

/* Run y = alpha*A*x + beta*y on the device (y starts as y0) into yout
 * (host). Returns the status of psl_dspmv. */
static psl_status gpu_run(const psl_dmatrix *dA, int32_t nrows, int32_t ncols, const void *x,
                          double alpha, const void *y0, double beta, psl_scalar vt, void *yout,
                          cudaStream_t s)
{
    size_t xb = (size_t)ncols * esize(vt), yb = (size_t)nrows * esize(vt);
    void *dx = ncols > 0 ? dbuf_get(&g_dx, xb) : NULL;
    void *dy = nrows > 0 ? dbuf_get(&g_dy, yb) : NULL;
    /* every copy on s: a non-blocking stream is not ordered with the legacy one */
    if (xb)
        CUDA_CHECK(cudaMemcpyAsync(dx, x, xb, cudaMemcpyHostToDevice, s));
    if (yb)
        CUDA_CHECK(cudaMemcpyAsync(dy, y0, yb, cudaMemcpyHostToDevice, s));
    size_t ws = 0;
    psl_status st = psl_dspmv_workspace_size(dA, vt, &ws);
    if (st == PSL_OK) {
        void *w = ws ? dbuf_get(&g_ws, ws) : NULL;
        st = psl_dspmv(alpha, dA, dx, beta, dy, vt, w, ws, s);
    }
    if (yb)
        CUDA_CHECK(cudaMemcpyAsync(yout, dy, yb, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    CUDA_CHECK(cudaGetLastError());
    return st;
}

/* sum |v * x[col]| over row r of a CSR view (x of type vt). */
static double row_magnitude(const int64_t *rp, const int32_t *ci, const double *v, int32_t r,
                            const void *x, psl_scalar vt)
{
    double mag = 0;
    for (int64_t k = rp[r]; k < rp[r + 1]; k++)
        mag += fabs(v[k] * vget(x, vt, ci[k]));
    return mag;
}

/* CSR check: |gpu - cpu| within twice the rounding-error bound of the
 * accumulation type, per row, from the FP64 source matrix R. */
static int64_t csr_out_of_bound(const psl_matrix *R, const void *x, double alpha, const void *y0,
                                double beta, psl_scalar vt, const void *ycpu, const void *ygpu)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    psl_matrix_info info;
    psl_matrix_get_info(R, &info);
    if (psl_matrix_csr_view(R, &rp, &ci, &v) != PSL_OK)
        return 0;
    const double u = vt == PSL_FP64 ? 0x1p-53 : 0x1p-24;
    for (int32_t i = 0; i < info.nrows; i++) {
        double mag = row_magnitude(rp, ci, v, i, x, vt);
        double len = (double)(rp[i + 1] - rp[i]);
        double bound = 2 * (len + 3) * u * (fabs(alpha) * mag * (1 + 0x1p-20));
        if (beta != 0)
            bound += 2 * 3 * u * fabs(beta * vget(y0, vt, i));
        double a = vget(ycpu, vt, i), b = vget(ygpu, vt, i);
        if (isnan(a) && isnan(b))
            continue;
        if (!(fabs(a - b) <= bound))
            return i;
    }
    return -1;
}

/* The rows of A (as y indices) in slices the device splits over warps
 * (long_rows.h): wide[o] = 1, and src[o] = the row of the source matrix that
 * y[o] belongs to (explicit permutation: y is in stored order). Returns
 * their count (0 for CSR). */
static int64_t wide_rows(const psl_matrix *A, unsigned char *wide, int32_t *src)
{
    int64_t cnt = 0;
    for (int32_t o = 0; o < A->nrows; o++) {
        wide[o] = 0;
        src[o] = o;
    }
    if (A->format == PSL_FORMAT_CSR)
        return 0;
    int32_t wide_min = 0, seg = 0, cl = 1;
    int64_t max_width = 0;
    for (int32_t k = 0; k < A->nslices; k++)
        if ((A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C > max_width)
            max_width = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C;
    int dev = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int64_t short_max = /* the short-row kernels of small matrices take them whole */
        A->nrows <= (int64_t)sms * PSL_SMALL_ROWS_PER_SM ? PSL_SHORT_WIDE_SMALL : 0;
    psl_wide_rule(A->nrows, max_width, PSL_WIDE_CLUSTER_MAX, short_max, &wide_min, &seg, &cl);
    for (int32_t i = 0; i < A->nrows; i++) {
        int64_t orig = i;
        if (A->perm && A->sigma > 0) {
            int64_t p = A->perm_bytes == 1   ? ((const unsigned char *)A->perm)[i]
                        : A->perm_bytes == 2 ? ((const unsigned short *)A->perm)[i]
                                             : ((const unsigned int *)A->perm)[i];
            orig = (i / A->sigma) * (int64_t)A->sigma + p;
        }
        const int32_t o = A->permute == PSL_PERMUTE_IMPLICIT ? (int32_t)orig : i;
        src[o] = (int32_t)orig;
        const int64_t k = i / A->C;
        const int64_t width = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C;
        if (A->C == PSL_WIDE_C && width >= wide_min) {
            wide[o] = 1;
            cnt++;
        }
    }
    return cnt;
}

/* Rows the device sums in an order of its own: y[o] of the device (b) and
 * of the CPU (a) within twice the rounding-error bound of the accumulation
 * of source row r of R (values of R up to a codec's rounding, hence the
 * factor 4), plus one FP16 rounding of the result for FP16 vectors. */
static int row_within_bound(const psl_matrix *R, int32_t r, const void *x, double alpha,
                            double y0, double beta, psl_scalar vt, double a, double b)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    if (isnan(a) && isnan(b))
        return 1;
    if (psl_matrix_csr_view(R, &rp, &ci, &v) != PSL_OK)
        return 0;
    const double u = vt == PSL_FP64 ? 0x1p-53 : 0x1p-24;
    double mag = row_magnitude(rp, ci, v, r, x, vt);
    double bound = 4 * (double)(rp[r + 1] - rp[r] + 3) * u * fabs(alpha) * mag;
    if (beta != 0)
        bound += 2 * 3 * u * fabs(beta * y0);
    if (vt == PSL_FP16)
        bound += 0x1p-10 * fmax(fabs(a), fabs(b));
    return fabs(a - b) <= bound;
}

static long g_compared;
/* Rows of split slices compared (by bound or, exact sums, bitwise). */
static long g_wide_compared;
/* The source matrix's sums are exact in FP64 in any order (edge shape 2). */
static int g_exact_fp64;

/* First y index where the device's y (yg) is wrong against the CPU's (yc):
 * bitwise, except rows in split slices (wide) within row_within_bound
 * unless the sums are exact. -1: none. */
static int64_t sliced_mismatch(const psl_matrix *R, const unsigned char *wide, const int32_t *src,
                               int32_t nr, const void *x, double alpha, const void *y0,
                               double beta, psl_scalar vt, const void *yc, const void *yg)
{
    const size_t es = esize(vt);
    for (int32_t o = 0; o < nr; o++) {
        if (first_diff((const char *)yc + o * es, (const char *)yg + o * es, vt, 1) < 0)
            continue;
        if (!wide[o] || (g_exact_fp64 && vt == PSL_FP64))
            return o;
        if (!row_within_bound(R, src[o], x, alpha, vget(y0, vt, o), beta, vt, vget(yc, vt, o),
                              vget(yg, vt, o)))
            return o;
    }
    return -1;
}

/* One converted matrix: upload, info, every vector type and two alpha/beta
 * cases (the first with NaN in y and beta = 0), compared with the CPU. */
static void check_one(const psl_matrix *R, const psl_matrix *A, const fx_kind *k, const char *label)
{
    psl_matrix_info hi, di;
    CHECK_OK(psl_matrix_get_info(A, &hi));
    psl_dmatrix *dA = NULL;
    psl_status st = psl_dmatrix_upload(&dA, A, g_stream);
    CHECK_MSG(st == PSL_OK, "%s: upload: %s", label, psl_last_error_message());
    if (st != PSL_OK)
        return;
    CHECK_OK(psl_dmatrix_get_info(dA, &di));
    CHECK_MSG(memcmp(&hi, &di, sizeof hi) == 0, "%s: device info differs", label);
    const int32_t nr = hi.nrows, nc = hi.ncols;
    unsigned char *wide = malloc((size_t)(nr ? nr : 1));
    int32_t *src = malloc((size_t)(nr ? nr : 1) * sizeof *src);
    const int64_t nwide = wide_rows(A, wide, src);
    for (int vi = 0; vi < 3; vi++) {
        psl_scalar vt = fx_vec_types[vi];
        size_t es = esize(vt);
        void *x = malloc((size_t)(nc ? nc : 1) * es), *y0 = malloc((size_t)(nr ? nr : 1) * es);
        void *yc = malloc((size_t)(nr ? nr : 1) * es), *yg = malloc((size_t)(nr ? nr : 1) * es);
        vfill(x, vt, nc, 11 + (unsigned)vi);
        const double ab[2][2] = {{1.0, 0.0}, {-0.75, 1.5}};
        for (int c = 0; c < 2; c++) {
            if (c == 0)
                vfill_nan(y0, vt, nr);
            else
                vfill(y0, vt, nr, 23 + (unsigned)vi);
            memcpy(yc, y0, (size_t)nr * es);
            memset(yg, 0xA5, (size_t)nr * es);
            CHECK_OK(psl_spmv(ab[c][0], A, x, ab[c][1], yc, vt));
            int csr_ok = k->f != PSL_FORMAT_CSR ||
                         (k->vt == PSL_FP64 && vt == PSL_FP64) ||
                         (k->vt == PSL_FP32 && vt != PSL_FP16);
            st = gpu_run(dA, nr, nc, x, ab[c][0], y0, ab[c][1], vt, yg, g_stream);
            if (!csr_ok) {
                CHECK_MSG(st == PSL_ERR_INVALID_VALUE, "%s vec %d: status %d", label, vi, st);
                CHECK(strstr(psl_last_error_message(), "not supported") != NULL);
                /* y untouched: what was copied in came back */
                CHECK_MSG(memcmp(yg, y0, (size_t)nr * es) == 0, "%s: y touched", label);
                continue;
            }
            CHECK_MSG(st == PSL_OK, "%s vec %d: psl_dspmv: %s", label, vi,
                      psl_last_error_message());
            if (st != PSL_OK)
                continue;
            int64_t bad = k->f == PSL_FORMAT_CSR
                              ? csr_out_of_bound(R, x, ab[c][0], y0, ab[c][1], vt, yc, yg)
                              : sliced_mismatch(R, wide, src, nr, x, ab[c][0], y0, ab[c][1], vt,
                                                yc, yg);
            g_wide_compared += nwide;
            CHECK_MSG(bad < 0, "%s vec %s alpha %g beta %g: row %lld: cpu %.17g gpu %.17g",
                      label, psl_scalar_name(vt),
                      ab[c][0], ab[c][1], (long long)bad, bad >= 0 ? vget(yc, vt, bad) : 0.0,
                      bad >= 0 ? vget(yg, vt, bad) : 0.0);
            g_compared++;
        }
        free(x);
        free(y0);
        free(yc);
        free(yg);
    }
    free(wide);
    free(src);
    psl_dmatrix_destroy(&dA);
    CHECK(dA == NULL);
}

/* Every kind x C x sigma x permutation of one FP64 CSR source matrix. */
static void check_matrix(const psl_matrix *R, const char *name)
{
    /* C % 4 == 0 uses the device's vec4 layout, C = 6 the plain one */
    static const int32_t Cs[] = {32, 32, 8, 8, 6, 6};
    static const int32_t sigmas[] = {256, 0, 256, 0, 192, 0};
    for (int ki = 0; ki < FX_NKINDS; ki++) {
        const fx_kind *k = &fx_kinds[ki];
        int ncfg = k->f == PSL_FORMAT_CSR ? 1 : 12;
        for (int cfg = 0; cfg < ncfg; cfg++) {
            int32_t C = Cs[cfg % 6], sigma = sigmas[cfg % 6];
            psl_permute pm = cfg >= 6 ? PSL_PERMUTE_EXPLICIT : PSL_PERMUTE_IMPLICIT;
            char label[160];
            snprintf(label, sizeof label, "%s %s C=%d sigma=%d %s", name, k->name, (int)C,
                     (int)sigma, pm == PSL_PERMUTE_EXPLICIT ? "explicit" : "implicit");
            psl_matrix *A = NULL;
            psl_status st = convert(&A, R, k, C, sigma, pm);
            CHECK_MSG(st == PSL_OK, "%s: convert: %s", label, psl_last_error_message());
            if (st == PSL_OK)
                check_one(R, A, k, label);
            psl_matrix_destroy(&A);
        }
    }
}

/* The kernel forms a matrix can take, forced through the options (read at
 * upload): pass 0 as the library picks (streams by size, so these small
 * matrices stay in L1; wide slices of small matrices in clusters; short
 * rows of small matrices on their uniform copy); pass 1 the streams past L1
 * (PSL_CUDA_STREAM_NA=1), PackSELL FP16 in its form for an x larger than L2
 * (PSL_CUDA_WORD_PREFETCH=1: words prefetched and pipelined); pass 2 no
 * clusters (PSL_CUDA_WIDE_CLUSTER=1: wide slices finished by the second
 * kernel) and no uniform copy
 * (PSL_CUDA_TINY_UNIFORM=0: the short-row kernels read the slice offsets). */
#define NPOLICIES 3
static void set_policy(int pass)
{
    CHECK_OK(psl_option_set("PSL_CUDA_STREAM_NA", pass == 1 ? "1" : NULL));
    CHECK_OK(psl_option_set("PSL_CUDA_WORD_PREFETCH", pass == 1 ? "1" : NULL));
    CHECK_OK(psl_option_set("PSL_CUDA_WIDE_CLUSTER", pass == 2 ? "1" : NULL));
    CHECK_OK(psl_option_set("PSL_CUDA_TINY_UNIFORM", pass == 2 ? "0" : NULL));
}

TEST(generated_matrices_match_cpu)
{
    /* the power laws: widest slices of 491, 1655 and 20000 positions (on
     * an H200: clusters of 8 blocks in segments of 8, of 16 in segments of
     * 16, and too wide for a cluster) */
    static const char *specs[] = {"hpcg:4:4:4",          "lap2d:50",
                                  "powerlaw:3000:8:1.5", "powerlaw:8000:16:1.3",
                                  "powerlaw:20000:8:1.3", "random:2000:7"};
    for (int pass = 0; pass < NPOLICIES; pass++) {
        set_policy(pass);
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            psl_matrix *R = NULL;
            CHECK_OK(psl_generate(&R, specs[i]));
            if (R)
                check_matrix(R, specs[i]);
            psl_matrix_destroy(&R);
        }
    }
    set_policy(0);
}

/* Upload kind k of spec (C = 32, sigma = 256, implicit). */
static psl_dmatrix *upload_kind(const char *spec, const fx_kind *k, psl_matrix **host)
{
    psl_matrix *R = NULL, *A = NULL;
    psl_dmatrix *dA = NULL;
    CHECK_OK(psl_generate(&R, spec));
    CHECK_OK(convert(&A, R, k, 32, 256, PSL_PERMUTE_IMPLICIT));
    CHECK_OK(psl_dmatrix_upload(&dA, A, g_stream));
    psl_matrix_destroy(&R);
    *host = A;
    return dA;
}

static const fx_kind *find_kind(const char *name)
{
    for (int i = 0; i < FX_NKINDS; i++)
        if (strcmp(fx_kinds[i].name, name) == 0)
            return &fx_kinds[i];
    return NULL;
}

/* Matrices of PSL_WIDE_BIG_ROWS rows and more follow the large-matrix
 * split: HPCG rows (27 entries) stay one thread per row and equal the CPU
 * bit for bit; the power-law matrix's rows of 64 and more are split. One
 * layout (C = 32, sigma = 256, implicit) and a few kinds: they are big. */
TEST(large_matrices_match_cpu) /* each matrix with both stream load policies */
{
    /* above the small-matrix size (every form of the kernels: the general
     * one, the long-row split, and PackSELL FP16's short-row kernel on the
     * 5-point Laplacian) */
    static const char *specs[] = {"hpcg:6:6:5", "powerlaw:140000:8:1.5", "lap2d:400"};
    static const char *kinds[] = {"packsell-fp16", "packsell-e8m21", "packsell-e8m10",
                                  "sell-fp16", "sell-fp32", "sell-fp64"};
    for (int pass = 0; pass < 2; pass++) { /* clusters are for small matrices only */
        set_policy(pass);
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            psl_matrix *R = NULL;
            CHECK_OK(psl_generate(&R, specs[i]));
            if (!R)
                continue;
            psl_matrix_info ri;
            psl_matrix_get_info(R, &ri);
            CHECK_MSG(ri.nrows >= PSL_WIDE_BIG_ROWS, "%s: %d rows", specs[i], (int)ri.nrows);
            for (size_t j = 0; j < sizeof kinds / sizeof kinds[0]; j++) {
                const fx_kind *k = find_kind(kinds[j]);
                psl_matrix *A = NULL;
                char label[96];
                snprintf(label, sizeof label, "%s %s", specs[i], kinds[j]);
                if (k && convert(&A, R, k, 32, 256, PSL_PERMUTE_IMPLICIT) == PSL_OK) {
                    const long before = g_wide_compared;
                    check_one(R, A, k, label);
                    /* the power law has split rows; HPCG and the Laplacian in FP16
                     * (27 and 5 words a row) none */
                    const long split = g_wide_compared - before;
                    CHECK_MSG(i == 1 ? split > 0 : j > 0 || split == 0, "%s: split rows %ld", label,
                              split);
                } else {
                    CHECK_MSG(0, "%s: convert: %s", label, psl_last_error_message());
                }
                psl_matrix_destroy(&A);
            }
            psl_matrix_destroy(&R);
        }
    }
    set_policy(0);
}

TEST(edge_matrices_match_cpu)
{
    static const struct {
        int32_t nrows, ncols;
        int shape;
        const char *name;
    } e[] = {
        {0, 0, 0, "0x0"},           {5, 0, 0, "5x0 (no columns)"},
        {0, 7, 0, "0x7 (no rows)"}, {40, 40, 1, "40x40 no entries"},
        {300, 300, 0, "300x300 empty rows, far columns"},
        {37, 5000, 0, "37x5000 wide"}, {500, 37, 0, "500x37 tall"},
        {1, 64, 0, "1x64"},         {64, 1, 0, "64x1"},
        {33, 33, 0, "33x33 (partial slices)"},
        {1000, 1200, 2, "1000x1200 long rows"}, {70, 5000, 2, "70x5000 long rows"},
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        psl_matrix *R = edge_matrix(e[i].nrows, e[i].ncols, e[i].shape, 100 + i);
        const long before = g_wide_compared;
        g_exact_fp64 = e[i].shape == 2;
        if (R)
            check_matrix(R, e[i].name);
        g_exact_fp64 = 0;
        /* the long-row matrices must have exercised the split */
        if (e[i].shape == 2)
            CHECK_MSG(g_wide_compared > before, "%s: no row in a split slice", e[i].name);
        psl_matrix_destroy(&R);
    }
}

TEST(deterministic_over_runs)
{
    static const struct {
        const char *kind;
        psl_scalar vt;
    } cases[] = {{"packsell-fp16", PSL_FP32}, {"packsell-e7m12", PSL_FP16},
                 {"packsell-e8m10", PSL_FP64}, {"sell-fp32", PSL_FP32},
                 {"csr-fp64", PSL_FP64},       {"csr-fp32", PSL_FP32}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        psl_matrix *A = NULL;
        psl_dmatrix *dA = upload_kind("powerlaw:3000:8:1.5", find_kind(cases[c].kind), &A);
        if (!dA) {
            psl_matrix_destroy(&A);
            continue;
        }
        psl_matrix_info info;
        psl_dmatrix_get_info(dA, &info);
        psl_scalar vt = cases[c].vt;
        size_t es = esize(vt);
        void *x = malloc((size_t)info.ncols * es), *y0 = malloc((size_t)info.nrows * es);
        void *first = malloc((size_t)info.nrows * es), *y = malloc((size_t)info.nrows * es);
        vfill(x, vt, info.ncols, 5);
        vfill(y0, vt, info.nrows, 6);
        CHECK_OK(gpu_run(dA, info.nrows, info.ncols, x, 1.25, y0, -0.5, vt, first, g_stream));
        int same = 1;
        for (int r = 0; r < 20; r++) {
            CHECK_OK(gpu_run(dA, info.nrows, info.ncols, x, 1.25, y0, -0.5, vt, y, g_stream));
            same = same && memcmp(first, y, (size_t)info.nrows * es) == 0;
        }
        CHECK_MSG(same, "%s: results differ between runs", cases[c].kind);
        free(x);
        free(y0);
        free(first);
        free(y);
        psl_dmatrix_destroy(&dA);
        psl_matrix_destroy(&A);
    }
}

/* psl_dspmv captured into a graph gives the bits of a direct run. */
TEST(graph_capture)
{
    static const char *names[] = {"packsell-e8m10", "packsell-fp16", "sell-fp16", "csr-fp64"};
    /* short rows; wide slices in clusters; wide slices and the finishing kernel */
    static const char *specs[] = {"hpcg:4:4:4", "powerlaw:3000:8:1.1", "powerlaw:20000:8:1.3"};
    for (size_t c = 0; c < sizeof names / sizeof names[0]; c++)
        for (int m = 0; m < 3; m++) {
            const int with_beta = m > 0;
            psl_matrix *A = NULL;
            psl_dmatrix *dA = upload_kind(specs[m], find_kind(names[c]), &A);
            if (!dA) {
                psl_matrix_destroy(&A);
                continue;
            }
            psl_matrix_info info;
            psl_dmatrix_get_info(dA, &info);
            const psl_scalar vt = PSL_FP64;
            const double beta = with_beta ? 0.5 : 0.0;
            size_t xb = (size_t)info.ncols * 8, yb = (size_t)info.nrows * 8;
            void *x = malloc(xb), *y0 = malloc(yb), *yd = malloc(yb), *yg = malloc(yb);
            vfill(x, vt, info.ncols, 7);
            vfill(y0, vt, info.nrows, 8);
            CHECK_OK(gpu_run(dA, info.nrows, info.ncols, x, 2.0, y0, beta, vt, yd, g_stream));
            /* the captured run: vectors set up first, then only psl_dspmv is captured */
            void *dx = dbuf_get(&g_dx, xb), *dy = dbuf_get(&g_dy, yb);
            size_t ws = 0;
            CHECK_OK(psl_dspmv_workspace_size(dA, vt, &ws));
            void *w = ws ? dbuf_get(&g_ws, ws) : NULL;
            CUDA_CHECK(cudaMemcpy(dx, x, xb, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaMemcpy(dy, y0, yb, cudaMemcpyHostToDevice));
            CUDA_CHECK(cudaDeviceSynchronize()); /* copies done before g_stream runs */
            cudaGraph_t graph = NULL;
            cudaGraphExec_t exec = NULL;
            CUDA_CHECK(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
            psl_status st = psl_dspmv(2.0, dA, dx, beta, dy, vt, w, ws, g_stream);
            CUDA_CHECK(cudaStreamEndCapture(g_stream, &graph));
            CHECK_MSG(st == PSL_OK, "%s: psl_dspmv under capture: %s", names[c],
                      psl_last_error_message());
            if (graph) {
                CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
                if (exec) {
                    CUDA_CHECK(cudaGraphLaunch(exec, g_stream));
                    CUDA_CHECK(cudaStreamSynchronize(g_stream));
                    CUDA_CHECK(cudaMemcpy(yg, dy, yb, cudaMemcpyDeviceToHost));
                    CHECK_MSG(first_diff(yd, yg, vt, info.nrows) < 0,
                              "%s beta %g: graph result differs from the direct run", names[c],
                              beta);
                    CUDA_CHECK(cudaGraphExecDestroy(exec));
                }
                CUDA_CHECK(cudaGraphDestroy(graph));
            }
            free(x);
            free(y0);
            free(yd);
            free(yg);
            psl_dmatrix_destroy(&dA);
            psl_matrix_destroy(&A);
        }
}

/* The legacy default stream (NULL) works too. */
TEST(default_stream)
{
    psl_matrix *A = NULL;
    psl_dmatrix *dA = upload_kind("lap2d:50", find_kind("packsell-bf16"), &A);
    psl_dmatrix *dB = NULL;
    CHECK_OK(psl_dmatrix_upload(&dB, A, NULL));
    if (dA && dB) {
        psl_matrix_info info;
        psl_dmatrix_get_info(dA, &info);
        size_t n = (size_t)info.nrows;
        float *x = malloc(n * 4), *y0 = malloc(n * 4), *ya = malloc(n * 4), *yb = malloc(n * 4);
        vfill(x, PSL_FP32, info.ncols, 1);
        vfill(y0, PSL_FP32, info.nrows, 2);
        CHECK_OK(gpu_run(dA, info.nrows, info.ncols, x, 1.0, y0, 1.0, PSL_FP32, ya, g_stream));
        CHECK_OK(gpu_run(dB, info.nrows, info.ncols, x, 1.0, y0, 1.0, PSL_FP32, yb, NULL));
        CHECK(memcmp(ya, yb, n * 4) == 0);
        free(x);
        free(y0);
        free(ya);
        free(yb);
    }
    psl_dmatrix_destroy(&dA);
    psl_dmatrix_destroy(&dB);
    psl_matrix_destroy(&A);
}

/* Copy the device y back and compare it with the sentinel. */
static int y_untouched(const void *dy, const void *sentinel, size_t bytes)
{
    void *h = malloc(bytes);
    CUDA_CHECK(cudaMemcpy(h, dy, bytes, cudaMemcpyDeviceToHost));
    int same = memcmp(h, sentinel, bytes) == 0;
    free(h);
    return same;
}

#define CHECK_BAD(call, status, word)                                                     \
    do {                                                                                  \
        CHECK_ST(call, status);                                                           \
        CHECK_MSG(strstr(psl_last_error_message(), word) != NULL, "message '%s' lacks '%s'", \
                  psl_last_error_message(), word);                                        \
        CHECK(y_untouched(dy, sentinel, yb));                                             \
    } while (0)

TEST(bad_arguments)
{
    psl_matrix *A = NULL, *Acsr = NULL;
    psl_dmatrix *dA = upload_kind("lap2d:50", find_kind("packsell-fp16"), &A);
    psl_dmatrix *dC = upload_kind("lap2d:50", find_kind("csr-fp64"), &Acsr);
    if (!dA || !dC)
        goto done;
    {
        psl_matrix_info info;
        CHECK_OK(psl_dmatrix_get_info(dA, &info));
        const size_t xb = (size_t)info.ncols * 8, yb = (size_t)info.nrows * 8;
        void *dx = NULL, *dy = NULL, *dws = NULL;
        CUDA_CHECK(cudaMalloc(&dx, xb));
        CUDA_CHECK(cudaMalloc(&dy, yb));
        double *sentinel = malloc(yb), *hy = malloc(yb);
        for (size_t i = 0; i < yb / 8; i++)
            sentinel[i] = 1000.0 + (double)i;
        memcpy(hy, sentinel, yb);
        CUDA_CHECK(cudaMemset(dx, 0, xb));
        CUDA_CHECK(cudaMemcpy(dy, sentinel, yb, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaDeviceSynchronize());
        uint64_t garbage[64] = {0};

        CHECK_BAD(psl_dspmv(1, NULL, dx, 0, dy, PSL_FP64, NULL, 0, g_stream),
                  PSL_ERR_NULL_POINTER, "NULL");
        CHECK_BAD(psl_dspmv(1, (const psl_dmatrix *)garbage, dx, 0, dy, PSL_FP64, NULL, 0,
                            g_stream),
                  PSL_ERR_INVALID_HANDLE, "invalid");
        CHECK_BAD(psl_dspmv(1, dA, dx, 0, dy, PSL_BF16, NULL, 0, g_stream),
                  PSL_ERR_INVALID_VALUE, "vector type");
        CHECK_BAD(psl_dspmv(1, dA, dx, 0, dy, (psl_scalar)7, NULL, 0, g_stream),
                  PSL_ERR_INVALID_VALUE, "vector type");
        CHECK_BAD(psl_dspmv(1, dA, NULL, 0, dy, PSL_FP64, NULL, 0, g_stream),
                  PSL_ERR_NULL_POINTER, "x is NULL");
        CHECK_ST(psl_dspmv(1, dA, dx, 0, NULL, PSL_FP64, NULL, 0, g_stream),
                 PSL_ERR_NULL_POINTER);
        CHECK_BAD(psl_dspmv(1, dA, dy, 0, dy, PSL_FP64, NULL, 0, g_stream),
                  PSL_ERR_INVALID_VALUE, "overlap");
        /* an ordinary host pointer is refused, and the host array is not written */
        CHECK_ST(psl_dspmv(1, dA, dx, 0, hy, PSL_FP64, NULL, 0, g_stream),
                 PSL_ERR_INVALID_VALUE);
        CHECK(strstr(psl_last_error_message(), "host memory") != NULL);
        CHECK(memcmp(hy, sentinel, yb) == 0);
        CHECK_BAD(psl_dspmv(1, dA, hy, 0, dy, PSL_FP64, NULL, 0, g_stream),
                  PSL_ERR_INVALID_VALUE, "host memory");
        /* CSR: vector types cuSPARSE lacks, and the workspace */
        CHECK_BAD(psl_dspmv(1, dC, dx, 0, dy, PSL_FP32, NULL, 0, g_stream),
                  PSL_ERR_INVALID_VALUE, "not supported");
        size_t ws = 99;
        CHECK_ST(psl_dspmv_workspace_size(dC, PSL_FP16, &ws), PSL_ERR_INVALID_VALUE);
        CHECK(ws == 99);
        CHECK_OK(psl_dspmv_workspace_size(dC, PSL_FP64, &ws));
        if (ws > 0) {
            CUDA_CHECK(cudaMalloc(&dws, ws));
            CHECK_BAD(psl_dspmv(1, dC, dx, 0, dy, PSL_FP64, NULL, ws, g_stream),
                      PSL_ERR_NULL_POINTER, "workspace");
            CHECK_BAD(psl_dspmv(1, dC, dx, 0, dy, PSL_FP64, dws, ws - 1, g_stream),
                      PSL_ERR_INVALID_VALUE, "workspace");
        }
        /* the other calls */
        size_t ws0 = 5;
        CHECK_OK(psl_dspmv_workspace_size(dA, PSL_FP16, &ws0));
        CHECK(ws0 == 0);
        CHECK_ST(psl_dspmv_workspace_size(dA, PSL_FP64, NULL), PSL_ERR_NULL_POINTER);
        CHECK_ST(psl_dspmv_workspace_size(NULL, PSL_FP64, &ws0), PSL_ERR_NULL_POINTER);
        CHECK_ST(psl_dmatrix_get_info(dA, NULL), PSL_ERR_NULL_POINTER);
        CHECK_ST(psl_dmatrix_get_info((const psl_dmatrix *)garbage, &info),
                 PSL_ERR_INVALID_HANDLE);
        psl_dmatrix *dn = (psl_dmatrix *)(uintptr_t)1;
        CHECK_ST(psl_dmatrix_upload(&dn, NULL, g_stream), PSL_ERR_NULL_POINTER);
        CHECK(dn == NULL);
        CHECK_ST(psl_dmatrix_upload(NULL, A, g_stream), PSL_ERR_NULL_POINTER);
        /* and a good call still works after all that */
        CHECK_OK(psl_dspmv(1, dA, dx, 0, dy, PSL_FP64, NULL, 0, g_stream));
        CUDA_CHECK(cudaStreamSynchronize(g_stream));
        CHECK(!y_untouched(dy, sentinel, yb));
        free(sentinel);
        free(hy);
        CUDA_CHECK(cudaFree(dx));
        CUDA_CHECK(cudaFree(dy));
        if (dws)
            CUDA_CHECK(cudaFree(dws));
    }
done:
    psl_dmatrix_destroy(&dA);
    psl_dmatrix_destroy(&dC);
    psl_dmatrix_destroy(&dA); /* second destroy of a NULL handle: no-op */
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&Acsr);
}

/* Wide slices of a small matrix that a cluster finishes need no workspace
 * (on a device with cluster launch); a slice wider than a cluster covers
 * needs one (twice as large for FP64 vectors); without one, or with too
 * small a one, psl_dspmv fails before writing y. */
TEST(long_row_workspace)
{
    psl_matrix *A = NULL;
    int dev = 0, clusters = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, dev));
    psl_dmatrix *dA = upload_kind("powerlaw:3000:8:1.1", find_kind("packsell-fp16"), &A);
    if (dA) { /* widest slice 1655: a cluster of 16 blocks (8 where 16 cannot run) */
        size_t w = 1;
        CHECK_OK(psl_dspmv_workspace_size(dA, PSL_FP64, &w));
        CHECK_MSG(clusters ? w == 0 : w > 0, "clusters %d: workspace %zu", clusters, w);
    }
    psl_dmatrix_destroy(&dA);
    psl_matrix_destroy(&A);
    dA = upload_kind("powerlaw:20000:8:1.3", find_kind("packsell-fp16"), &A);
    if (!dA) {
        psl_matrix_destroy(&A);
        return;
    }
    size_t w16 = 0, w32 = 0, w64 = 0;
    CHECK_OK(psl_dspmv_workspace_size(dA, PSL_FP16, &w16));
    CHECK_OK(psl_dspmv_workspace_size(dA, PSL_FP32, &w32));
    CHECK_OK(psl_dspmv_workspace_size(dA, PSL_FP64, &w64));
    CHECK_MSG(w16 > 0 && w32 == w16 && w64 == 2 * w16, "workspace %zu %zu %zu", w16, w32, w64);
    const size_t n = (size_t)A->nrows, b = n * 8;
    void *dx = NULL, *dy = NULL, *dws = NULL;
    CUDA_CHECK(cudaMalloc(&dx, b));
    CUDA_CHECK(cudaMalloc(&dy, b));
    CUDA_CHECK(cudaMalloc(&dws, w64 ? w64 : 1));
    CUDA_CHECK(cudaMemset(dx, 0, b));
    CUDA_CHECK(cudaMemset(dy, 0x7f, b));
    CHECK_ST(psl_dspmv(1, dA, dx, 0, dy, PSL_FP64, NULL, w64, g_stream), PSL_ERR_NULL_POINTER);
    CHECK(strstr(psl_last_error_message(), "workspace") != NULL);
    CHECK_ST(psl_dspmv(1, dA, dx, 0, dy, PSL_FP64, dws, w64 - 1, g_stream),
             PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "workspace") != NULL);
    unsigned char *h = malloc(b);
    CUDA_CHECK(cudaMemcpy(h, dy, b, cudaMemcpyDeviceToHost));
    size_t same = 0;
    for (size_t i = 0; i < b; i++)
        same += h[i] == 0x7f;
    CHECK_MSG(same == b, "y was written by a failed call");
    CHECK_OK(psl_dspmv(1, dA, dx, 0, dy, PSL_FP64, dws, w64, g_stream));
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
    CUDA_CHECK(cudaMemcpy(h, dy, b, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) /* x = 0: y = 0 */
        CHECK_MSG(((double *)h)[i] == 0.0, "row %zu", i);
    free(h);
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaFree(dws));
    psl_dmatrix_destroy(&dA);
    psl_matrix_destroy(&A);
}

static const psl_test_case tests[] = {
    {"generated_matrices_match_cpu", generated_matrices_match_cpu},
    {"edge_matrices_match_cpu", edge_matrices_match_cpu},
    {"large_matrices_match_cpu", large_matrices_match_cpu},
    {"deterministic_over_runs", deterministic_over_runs},
    {"graph_capture", graph_capture},
    {"default_stream", default_stream},
    {"bad_arguments", bad_arguments},
    {"long_row_workspace", long_row_workspace},
};

/* The test's frees and totals, after the tests. */
static void finish(void)
{
    dbuf_free(&g_dx);
    dbuf_free(&g_dy);
    dbuf_free(&g_ws);
    printf("%d checks, %ld GPU results compared with the CPU (%ld rows of split slices)\n",
           psl_t_checks, g_compared, g_wide_compared);
}
#endif /* PSL_HAVE_CUDA */

PSL_GPU_TEST_MAIN(tests, check_without_device, g_stream, finish)
