/*
 * test_gpu_convert.c -- psl_dmatrix_convert (the device build of SELL,
 * PackSELL and CSR from a device CSR matrix) against the CPU build: for the
 * 7 generators, edge shapes and value ranges, every format, codec (FP16,
 * BF16, E8MY for D = 1..22, other ExMy), SELL value type, C, sigma and
 * permutation, with FP64 and FP32 input, the downloaded GPU build must have
 * every array bit-identical to psl_matrix_convert's and the same
 * psl_matrix_info; psl_dspmv on the GPU build must give y bit for bit equal
 * to psl_dspmv on the uploaded CPU build. Bad inputs give their status, a
 * message naming the row (and column), no handle, and leave the device
 * arrays untouched. White-box: reads struct psl_matrix (internal.h) to
 * compare the arrays.
 *
 * Without a CUDA device (or in a build without CUDA) the test checks that
 * the calls fail cleanly, prints "SKIP: no CUDA device (GPU tests skipped)"
 * and passes.
 */
#include "packsell.h"
#include "gpu_harness.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ no device */

static void check_without_device(psl_status count_status)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "lap2d:4"));
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, &v));
    psl_dcsr in = {16, 16, rp[16], rp, ci, v, PSL_FP64};
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    psl_dmatrix *dA = (psl_dmatrix *)(uintptr_t)1;
    psl_status st = psl_dmatrix_convert(&dA, &in, &o, NULL);
    CHECK(st != PSL_OK);
    CHECK(dA == NULL);
    CHECK(strlen(psl_last_error_message()) > 0);
    psl_matrix *B = (psl_matrix *)(uintptr_t)1;
    CHECK(psl_dmatrix_download(&B, NULL, NULL) != PSL_OK);
    CHECK(B == NULL);
    if (count_status == PSL_ERR_NOT_SUPPORTED) {
        CHECK_ST(st, PSL_ERR_NOT_SUPPORTED);
        CHECK(strstr(psl_last_error_message(), "without CUDA") != NULL);
    }
    psl_matrix_destroy(&A);
}

#ifdef PSL_HAVE_CUDA
/* ================================================================== with a device */

static cudaStream_t g_stream;
static long g_builds, g_spmvs;

/* A device copy of n*size bytes (NULL when n == 0). */
static void *dup_to_device(const void *h, size_t bytes)
{
    void *d = NULL;
    if (bytes == 0)
        return NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize()); /* the DMA landed before any stream uses d */
    return d;
}

/* The device copy of an FP64 CSR host matrix, values as vt (FP32: rounded
 * by a C cast; the caller builds its CPU reference from the same floats). */
typedef struct dev_csr {
    psl_dcsr in;
    void *rp, *ci, *val;
} dev_csr;

static void dev_csr_make(dev_csr *d, int32_t nrows, int32_t ncols, const int64_t *rp,
                         const int32_t *ci, const void *val, psl_scalar vt)
{
    const int64_t nnz = rp ? rp[nrows] : 0;
    memset(d, 0, sizeof *d);
    d->rp = rp ? dup_to_device(rp, ((size_t)nrows + 1) * 8) : NULL;
    d->ci = dup_to_device(ci, (size_t)nnz * 4);
    d->val = dup_to_device(val, (size_t)nnz * (vt == PSL_FP64 ? 8 : 4));
    d->in = (psl_dcsr){nrows, ncols, nnz, d->rp, d->ci, d->val, vt};
}

static void dev_csr_free(dev_csr *d)
{
    cudaFree(d->rp);
    cudaFree(d->ci);
    cudaFree(d->val);
    memset(d, 0, sizeof *d);
}

/* 1 if the n*size bytes at device p equal host h. */
static int device_equals(const void *p, const void *h, size_t bytes)
{
    if (bytes == 0)
        return 1;
    void *t = malloc(bytes);
    CUDA_CHECK(cudaMemcpy(t, p, bytes, cudaMemcpyDeviceToHost));
    int same = memcmp(t, h, bytes) == 0;
    free(t);
    return same;
}

/* First differing element of two arrays of n elements of es bytes, or -1. */
static int64_t first_diff(const void *a, const void *b, int64_t n, size_t es)
{
    if (n <= 0)
        return -1;
    if (!a || !b)
        return a == b ? -1 : 0;
    if (memcmp(a, b, (size_t)n * es) == 0)
        return -1;
    for (int64_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * es, (const char *)b + i * es, es) != 0)
            return i;
    return -1;
}

static size_t vsize(psl_scalar t) { return t == PSL_FP64 ? 8 : t == PSL_FP32 ? 4 : 2; }

#define SAME_ARRAY(label, what, a, b, n, es)                                                \
    do {                                                                                    \
        int64_t d_ = first_diff((a), (b), (n), (es));                                       \
        CHECK_MSG(d_ < 0, "%s: %s differ first at element %lld of %lld", (label), (what),   \
                  (long long)d_, (long long)(n));                                           \
    } while (0)

#define SAME_FIELD(label, f)                                                                \
    CHECK_MSG(gi.f == ci.f, "%s: info.%s gpu %lld cpu %lld", (label), #f, (long long)gi.f,  \
              (long long)ci.f)

/* The GPU build G (downloaded) against the CPU build R: info and arrays. */
static void compare_builds(const psl_matrix *G, const psl_matrix *R, const psl_dmatrix *dA,
                           const char *label)
{
    psl_matrix_info gi, ci, di;
    CHECK_OK(psl_matrix_get_info(G, &gi));
    CHECK_OK(psl_matrix_get_info(R, &ci));
    CHECK_OK(psl_dmatrix_get_info(dA, &di));
    SAME_FIELD(label, format);
    SAME_FIELD(label, value_type);
    SAME_FIELD(label, codec.exp_bits);
    SAME_FIELD(label, codec.man_bits);
    SAME_FIELD(label, delta_bits);
    SAME_FIELD(label, nrows);
    SAME_FIELD(label, ncols);
    SAME_FIELD(label, nnz);
    SAME_FIELD(label, slice_height);
    SAME_FIELD(label, sigma);
    SAME_FIELD(label, permute);
    SAME_FIELD(label, nslices);
    SAME_FIELD(label, max_row_nnz);
    SAME_FIELD(label, kleft);
    SAME_FIELD(label, stored);
    SAME_FIELD(label, dummies);
    SAME_FIELD(label, padding);
    SAME_FIELD(label, underflows);
    SAME_FIELD(label, bytes);
    SAME_FIELD(label, sell_bytes);
    SAME_FIELD(label, csr_bytes);
    CHECK_MSG(memcmp(&gi.mean_row_nnz, &ci.mean_row_nnz, 8) == 0, "%s: mean %.17g vs %.17g",
              label, gi.mean_row_nnz, ci.mean_row_nnz);
    CHECK_MSG(memcmp(&gi.rsd, &ci.rsd, 8) == 0, "%s: rsd %.17g vs %.17g", label, gi.rsd, ci.rsd);
    CHECK_MSG(memcmp(&gi, &ci, sizeof gi) == 0, "%s: downloaded info differs", label);
    CHECK_MSG(memcmp(&di, &ci, sizeof di) == 0, "%s: psl_dmatrix_get_info differs", label);
    if (gi.format != ci.format)
        return;
    const int64_t n = R->nrows;
    if (R->format == PSL_FORMAT_CSR) {
        SAME_ARRAY(label, "CSR row pointers", G->row_ptr, R->row_ptr, n + 1, 8);
        SAME_ARRAY(label, "CSR columns", G->col_idx, R->col_idx, R->nnz, 4);
        SAME_ARRAY(label, "CSR values", G->values, R->values, R->nnz, vsize(R->value_type));
        return;
    }
    CHECK_MSG(G->perm_bytes == R->perm_bytes, "%s: perm width %d vs %d", label, G->perm_bytes,
              R->perm_bytes);
    SAME_ARRAY(label, "slice offsets", G->slice_ptr, R->slice_ptr, (int64_t)R->nslices + 1, 8);
    if (R->perm_bytes == G->perm_bytes)
        SAME_ARRAY(label, "perm", G->perm, R->perm, R->perm ? n : 0, (size_t)R->perm_bytes);
    CHECK_MSG((G->perm == NULL) == (R->perm == NULL), "%s: perm presence differs", label);
    if (R->format == PSL_FORMAT_PACKSELL) {
        SAME_ARRAY(label, "PackSELL words", G->words, R->words, R->stored, 4);
    } else {
        SAME_ARRAY(label, "SELL columns", G->sell_col, R->sell_col, R->stored, 4);
        SAME_ARRAY(label, "SELL values", G->sell_val, R->sell_val, R->stored,
                   vsize(R->value_type));
    }
}

/* y = 1.25*A*x - 0.5*y0 on the device for both device matrices, vec type
 * vt: bitwise equal. x, y0: k/1024 values. */
static void compare_spmv(const psl_dmatrix *dG, const psl_dmatrix *dR, int32_t nrows,
                         int32_t ncols, psl_scalar vt, const char *label)
{
    const size_t es = vsize(vt);
    const size_t xb = (size_t)ncols * es, yb = (size_t)nrows * es;
    char *hx = malloc(xb + 8), *hy = malloc(yb + 8), *y1 = malloc(yb + 8), *y2 = malloc(yb + 8);
    unsigned long long seed = 99;
    for (int64_t i = 0; i < ncols + (int64_t)nrows; i++) {
        double v = (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 1024.0;
        char *dst = i < ncols ? hx + i * es : hy + (i - ncols) * es;
        if (vt == PSL_FP64)
            memcpy(dst, &v, 8);
        else {
            float f = (float)v;
            memcpy(dst, &f, 4);
        }
    }
    void *dx = NULL, *dy = NULL, *ws = NULL;
    size_t w1 = 0, w2 = 0;
    CUDA_CHECK(cudaMalloc(&dx, xb + 8));
    CUDA_CHECK(cudaMalloc(&dy, yb + 8));
    CUDA_CHECK(cudaMemcpyAsync(dx, hx, xb, cudaMemcpyHostToDevice, g_stream));
    CHECK_OK(psl_dspmv_workspace_size(dG, vt, &w1));
    CHECK_OK(psl_dspmv_workspace_size(dR, vt, &w2));
    CHECK_MSG(w1 == w2, "%s: workspace %zu vs %zu", label, w1, w2);
    if (w1 || w2)
        CUDA_CHECK(cudaMalloc(&ws, w1 > w2 ? w1 : w2));
    const psl_dmatrix *m[2] = {dG, dR};
    char *out[2] = {y1, y2};
    for (int k = 0; k < 2; k++) {
        /* on g_stream: a pageable cudaMemcpy may return before its DMA lands */
        CUDA_CHECK(cudaMemcpyAsync(dy, hy, yb, cudaMemcpyHostToDevice, g_stream));
        CHECK_OK(psl_dspmv(1.25, m[k], dx, -0.5, dy, vt, ws, w1 > w2 ? w1 : w2, g_stream));
        CUDA_CHECK(cudaStreamSynchronize(g_stream));
        CUDA_CHECK(cudaMemcpy(out[k], dy, yb, cudaMemcpyDeviceToHost));
    }
    int64_t d = first_diff(y1, y2, nrows, es);
    CHECK_MSG(d < 0, "%s: y of the GPU build differs from the uploaded CPU build at row %lld",
              label, (long long)d);
    g_spmvs++;
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(ws);
    free(hx);
    free(hy);
    free(y1);
    free(y2);
}

/* One conversion: GPU build from d vs CPU build from R (FP64 CSR whose
 * values equal d's exactly). spmv: also compare psl_dspmv. */
static void check_one(const psl_matrix *R, const dev_csr *d, const psl_convert_options *o,
                      int spmv, const char *label)
{
    psl_matrix *C = NULL, *G = NULL;
    psl_dmatrix *dG = NULL, *dR = NULL;
    psl_status cs = psl_matrix_convert(&C, R, o);
    psl_status gs = psl_dmatrix_convert(&dG, &d->in, o, g_stream);
    CHECK_MSG(gs == cs, "%s: GPU status %d (%s), CPU status %d", label, gs,
              gs ? psl_last_error_message() : "", cs);
    g_builds++;
    if (gs != PSL_OK || cs != PSL_OK) {
        CHECK(dG == NULL || gs == PSL_OK);
        goto done;
    }
    CHECK_OK(psl_dmatrix_download(&G, dG, g_stream));
    if (G)
        compare_builds(G, C, dG, label);
    if (spmv && R->nrows > 0) {
        CHECK_OK(psl_dmatrix_upload(&dR, C, g_stream));
        if (dR) {
            compare_spmv(dG, dR, R->nrows, R->ncols, PSL_FP64, label);
            if (o->format != PSL_FORMAT_CSR || o->value_type == PSL_FP32)
                compare_spmv(dG, dR, R->nrows, R->ncols, PSL_FP32, label);
        }
    }
done:
    psl_dmatrix_destroy(&dG);
    psl_dmatrix_destroy(&dR);
    psl_matrix_destroy(&G);
    psl_matrix_destroy(&C);
}

/* Layouts: C, sigma, permutation. */
static const struct {
    int32_t C, sigma;
    psl_permute pm;
} layouts[] = {
    {32, 256, PSL_PERMUTE_IMPLICIT}, {32, 0, PSL_PERMUTE_IMPLICIT},
    {8, 64, PSL_PERMUTE_EXPLICIT},   {1, 4, PSL_PERMUTE_IMPLICIT},
    {6, 192, PSL_PERMUTE_EXPLICIT},  {8, 8, PSL_PERMUTE_IMPLICIT},
    {32, 65536 + 32, PSL_PERMUTE_IMPLICIT}, /* 4-byte perm */
    {32, 1024, PSL_PERMUTE_EXPLICIT},       /* 2-byte perm */
    {1, 0, PSL_PERMUTE_EXPLICIT},
};
#define NLAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

/* Every format / type / codec x layout of R (FP64) and of its FP32 copy.
 * full: every codec in every layout (else the codecs in the first layout
 * and a few in all); spmv: also compare psl_dspmv in the first layouts. */
static void check_matrix(const psl_matrix *R, const char *name, int full, int spmv_ok)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    if (psl_matrix_csr_view(R, &rp, &ci, &v) != PSL_OK)
        return;
    const int32_t n = R->nrows, m = R->ncols;
    const int64_t nnz = R->nnz;
    /* the FP32 copy: values rounded to float, and its CPU reference */
    float *vf = malloc((size_t)(nnz ? nnz : 1) * sizeof *vf);
    for (int64_t k = 0; k < nnz; k++) /* beyond FP32's range: clamp (finite input) */
        vf[k] = fabs(v[k]) > FLT_MAX ? (v[k] > 0 ? FLT_MAX : -FLT_MAX) : (float)v[k];
    psl_matrix *R32 = NULL;
    CHECK_OK(psl_matrix_create_csr(&R32, n, m, rp, ci, vf, PSL_FP32, 0, PSL_CSR_STRICT));
    dev_csr d64, d32;
    dev_csr_make(&d64, n, m, rp, ci, v, PSL_FP64);
    dev_csr_make(&d32, n, m, rp, ci, vf, PSL_FP32);

    psl_codec codecs[40];
    int nc = 0;
    codecs[nc++] = (psl_codec){5, 10};
    codecs[nc++] = (psl_codec){8, 7};
    for (int y = 0; y <= 21; y++) /* E8MY: D = 22 - y = 22..1 */
        codecs[nc++] = (psl_codec){8, y};
    codecs[nc++] = (psl_codec){5, 12};
    codecs[nc++] = (psl_codec){4, 3};
    codecs[nc++] = (psl_codec){7, 12};
    codecs[nc++] = (psl_codec){2, 0};
    codecs[nc++] = (psl_codec){3, 5};
    codecs[nc++] = (psl_codec){2, 27};
    static const psl_scalar sell_types[] = {PSL_FP64, PSL_FP32, PSL_FP16, PSL_BF16};
    char label[256];
    psl_convert_options o;
    for (int inp = 0; inp < 2; inp++) {
        const psl_matrix *Rin = inp ? R32 : R;
        const dev_csr *din = inp ? &d32 : &d64;
        const char *iname = inp ? "fp32 input" : "fp64 input";
        if (!Rin)
            continue;
        for (int t = 0; t < 2; t++) {
            psl_convert_options_init(&o);
            o.format = PSL_FORMAT_CSR;
            o.value_type = t ? PSL_FP32 : PSL_FP64;
            o.overflow = PSL_OVERFLOW_SATURATE;
            snprintf(label, sizeof label, "%s %s CSR %s", name, iname,
                     psl_scalar_name(o.value_type));
            check_one(Rin, din, &o, spmv_ok, label);
        }
        for (int li = 0; li < NLAYOUTS; li++) {
            psl_convert_options_init(&o);
            o.slice_height = layouts[li].C;
            o.sigma = layouts[li].sigma;
            o.permute = layouts[li].pm;
            o.overflow = PSL_OVERFLOW_SATURATE;
            const int spmv = spmv_ok && li < 3;
            for (int t = 0; t < 4; t++) {
                if (!full && inp && t > 1)
                    continue;
                o.format = PSL_FORMAT_SELL;
                o.value_type = sell_types[t];
                snprintf(label, sizeof label, "%s %s SELL %s C=%d sigma=%d %s", name, iname,
                         psl_scalar_name(sell_types[t]), (int)o.slice_height, (int)o.sigma,
                         o.permute ? "explicit" : "implicit");
                check_one(Rin, din, &o, spmv, label);
            }
            o.value_type = PSL_FP64;
            for (int c = 0; c < nc; c++) {
                if (!full && li > 0 && c % 5 != (li % 5))
                    continue;
                if (inp && c % 3 != li % 3)
                    continue;
                o.format = PSL_FORMAT_PACKSELL;
                o.codec = codecs[c];
                snprintf(label, sizeof label, "%s %s PackSELL e%dm%d C=%d sigma=%d %s", name,
                         iname, (int)o.codec.exp_bits, (int)o.codec.man_bits,
                         (int)o.slice_height, (int)o.sigma, o.permute ? "explicit" : "implicit");
                check_one(Rin, din, &o, spmv && c < 3, label);
            }
        }
    }
    dev_csr_free(&d64);
    dev_csr_free(&d32);
    psl_matrix_destroy(&R32);
    free(vf);
}

TEST(generators_match_cpu)
{
    static const char *specs[] = {"hpcg:3:3:3",        "hpgmp:3:3:3:0.5", "lap2d:30:17",
                                  "lap3d:7:6:5",       "banded:700:60:7:3",
                                  "powerlaw:900:6:1.4:5", "random:600:5:2"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        psl_matrix *R = NULL;
        CHECK_OK(psl_generate(&R, specs[i]));
        if (R)
            check_matrix(R, specs[i], i < 2, 1);
        psl_matrix_destroy(&R);
    }
}

/* An FP64 CSR matrix from sorted unique random columns: every third row
 * empty, up to maxlen entries per other row; values k/512 times 2^s with s
 * in [-spread, spread] (wide ranges: underflows, saturation, subnormals). */
static psl_matrix *random_matrix(int32_t nrows, int32_t ncols, int maxlen, int spread,
                                 unsigned long long seed)
{
    int64_t *rp = calloc((size_t)nrows + 1, sizeof *rp);
    int32_t *ci = malloc(((size_t)nrows * maxlen + 1) * sizeof *ci);
    double *v = malloc(((size_t)nrows * maxlen + 1) * sizeof *v);
    int64_t nz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        rp[i] = nz;
        int len = (ncols == 0 || i % 3 == 1) ? 0 : 1 + (int)(psl_test_rand(&seed) % (unsigned)maxlen);
        for (int t = 0; t < len; t++) {
            ci[nz] = (int32_t)(psl_test_rand(&seed) % (unsigned)ncols);
            int s = spread ? (int)(psl_test_rand(&seed) % (unsigned)(2 * spread + 1)) - spread : 0;
            v[nz] = ldexp((double)((int)(psl_test_rand(&seed) % 4001) - 2000) / 512.0, s);
            nz++;
        }
    }
    rp[nrows] = nz;
    psl_matrix *A = NULL; /* sorts the columns and sums duplicates */
    CHECK_OK(psl_matrix_create_csr(&A, nrows, ncols, rp, ci, v, PSL_FP64, 0, 0));
    free(rp);
    free(ci);
    free(v);
    return A;
}

TEST(edge_shapes_match_cpu)
{
    static const struct {
        int32_t nrows, ncols;
        int maxlen, spread;
        const char *name;
    } e[] = {
        {0, 0, 1, 0, "0x0"},
        {0, 7, 1, 0, "0x7"},
        {5, 0, 1, 0, "5x0"},
        {300, 300, 6, 0, "300x300 empty rows"},
        {37, 5000, 6, 0, "37x5000 wide"},
        {500, 37, 6, 0, "500x37 tall"},
        {1, 64, 9, 0, "1x64"},
        {64, 1, 1, 0, "64x1"},
        {33, 33, 5, 0, "33x33 partial slices"},
        {700, 2000000, 4, 0, "700x2e6 far columns"},
        {400, 400, 8, 140, "wide value range"},
        {400, 400, 8, 1020, "extreme value range"},
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        psl_matrix *R = random_matrix(e[i].nrows, e[i].ncols, e[i].maxlen, e[i].spread, 7 + i);
        if (R)
            check_matrix(R, e[i].name, 0, 1);
        psl_matrix_destroy(&R);
    }
    /* no entries at all */
    int64_t rp[41] = {0};
    psl_matrix *Z = NULL;
    CHECK_OK(psl_matrix_create_csr(&Z, 40, 40, rp, NULL, NULL, PSL_FP64, 0, 0));
    if (Z)
        check_matrix(Z, "40x40 no entries", 0, 1);
    psl_matrix_destroy(&Z);
}

/* Rows whose consecutive columns are exactly 2^d - 1 and 2^d apart for
 * d = 1..22 (the dummy-word boundary of every D), plus first deltas of
 * 2^d - 1 and 2^d from the block start column. */
TEST(delta_boundaries_match_cpu)
{
    const int32_t nrows = 48;
    int64_t span = 0;
    for (int d = 1; d <= 22; d++)
        span += ((int64_t)1 << d) - 1 + ((int64_t)1 << d);
    const int32_t ncols = (int32_t)(span + nrows + (1 << 23));
    int64_t *rp = calloc((size_t)nrows + 1, sizeof *rp);
    int32_t *ci = malloc((size_t)nrows * 64 * sizeof *ci);
    double *v = malloc((size_t)nrows * 64 * sizeof *v);
    int64_t nz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        rp[i] = nz;
        /* first column: the row itself, or 2^f - 1 / 2^f past the block start */
        int f = 1 + (i / 2) % 23;
        int64_t c = i % 4 < 2 ? i : (i / 8) * 8 + ((int64_t)1 << f) - (i % 2);
        ci[nz] = (int32_t)c;
        v[nz++] = 1.0 + i;
        for (int d = 1 + i % 3; d <= 22; d++) {
            c += ((int64_t)1 << d) - 1;
            ci[nz] = (int32_t)c;
            v[nz++] = -0.5 * d;
            c += (int64_t)1 << d;
            ci[nz] = (int32_t)c;
            v[nz++] = 0.25 * d;
        }
    }
    rp[nrows] = nz;
    psl_matrix *R = NULL;
    CHECK_OK(psl_matrix_create_csr(&R, nrows, ncols, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT));
    if (R)
        check_matrix(R, "delta boundaries", 0, 0);
    psl_matrix_destroy(&R);
    free(rp);
    free(ci);
    free(v);
}

/* ------------------------------------------------------------------ bad input */

/* A small valid matrix (lap2d:6, 36 rows) on the host, to be damaged. */
typedef struct bad_case {
    int64_t rp[37];
    int32_t ci[200];
    double v[200];
    int64_t nnz;
} bad_case;

static void bad_case_init(bad_case *b)
{
    psl_matrix *A = NULL;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK_OK(psl_generate(&A, "lap2d:6"));
    CHECK_OK(psl_matrix_csr_view(A, &rp, &ci, &v));
    memcpy(b->rp, rp, sizeof b->rp);
    b->nnz = rp[36];
    memcpy(b->ci, ci, (size_t)b->nnz * 4);
    memcpy(b->v, v, (size_t)b->nnz * 8);
    psl_matrix_destroy(&A);
}

/* Convert the damaged matrix b with every format; each must fail with st,
 * a message containing word, the error's row field == row (and col when
 * col >= 0), no handle, and the device arrays unchanged. formats: bit
 * mask of 1 << psl_format. */
static void expect_bad(const bad_case *b, int64_t nnz, psl_overflow pol, psl_scalar sell_type,
                       unsigned formats, psl_status want, const char *word, int64_t row,
                       int64_t col, const char *what)
{
    dev_csr d;
    dev_csr_make(&d, 36, 36, b->rp, b->ci, b->v, PSL_FP64);
    /* the device arrays hold nnz entries whatever row_ptr says */
    cudaFree(d.ci);
    cudaFree(d.val);
    d.ci = dup_to_device(b->ci, 200 * 4);
    d.val = dup_to_device(b->v, 200 * 8);
    d.in.col_idx = d.ci;
    d.in.values = d.val;
    d.in.nnz = nnz;
    for (int f = 0; f < 3; f++) {
        if (!(formats & (1u << f)))
            continue;
        psl_convert_options o;
        psl_convert_options_init(&o);
        o.format = (psl_format)f;
        o.overflow = pol;
        o.value_type = f == PSL_FORMAT_CSR ? (sell_type == PSL_FP32 ? PSL_FP32 : PSL_FP64)
                                           : sell_type;
        o.slice_height = 8;
        o.sigma = 16;
        psl_dmatrix *dA = (psl_dmatrix *)(uintptr_t)1;
        psl_status st = psl_dmatrix_convert(&dA, &d.in, &o, g_stream);
        psl_error_info info;
        psl_last_error(&info);
        CHECK_MSG(st == want, "%s (format %d): status %d, expected %d; message: %s", what, f, st,
                  want, info.message);
        CHECK_MSG(dA == NULL, "%s (format %d): handle not NULL", what, f);
        CHECK_MSG(strstr(info.message, word) != NULL, "%s (format %d): message '%s' lacks '%s'",
                  what, f, info.message, word);
        CHECK_MSG(info.row == row, "%s (format %d): error row %lld, expected %lld (%s)", what, f,
                  (long long)info.row, (long long)row, info.message);
        if (col >= 0)
            CHECK_MSG(info.col == col, "%s (format %d): error column %lld, expected %lld (%s)",
                      what, f, (long long)info.col, (long long)col, info.message);
        char num[32];
        if (row >= 0) {
            snprintf(num, sizeof num, "row %lld", (long long)row);
            CHECK_MSG(strstr(info.message, num) != NULL, "%s: message '%s' does not name %s",
                      what, info.message, num);
        }
        CHECK_MSG(device_equals(d.rp, b->rp, sizeof b->rp) && device_equals(d.ci, b->ci, 800) &&
                      device_equals(d.val, b->v, 1600),
                  "%s: device input arrays were modified", what);
        if (dA != NULL && dA != (psl_dmatrix *)(uintptr_t)1)
            psl_dmatrix_destroy(&dA);
    }
    dev_csr_free(&d);
}

TEST(bad_structure)
{
    bad_case b0, b;
    bad_case_init(&b0);
    const unsigned all = 7u;
    const int64_t nnz = b0.nnz;

    b = b0; /* row_ptr[0] != 0 (everything shifted: consistent otherwise) */
    for (int i = 0; i <= 36; i++)
        b.rp[i] += 1;
    expect_bad(&b, nnz + 1, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX,
               "row_ptr[0]", -1, -1, "row_ptr[0] = 1");

    b = b0; /* decreasing after row 7, and again after row 20 */
    b.rp[8] = b.rp[7] - 1;
    b.rp[21] = b.rp[20] - 2;
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX, "decreases",
               7, -1, "row_ptr decreasing");

    b = b0; /* last entry != nnz */
    expect_bad(&b, nnz + 1, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX, "nnz", -1,
               -1, "row_ptr[n] != nnz");

    b = b0; /* column out of range in row 5 (entry 2), negative in row 9 */
    b.ci[b.rp[5] + 2] = 36;
    b.ci[b.rp[9]] = -3;
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX,
               "out of range", 5, 36, "column out of range");

    b = b0; /* unsorted in row 3, duplicate in row 4 */
    {
        int32_t t = b.ci[b.rp[3]];
        b.ci[b.rp[3]] = b.ci[b.rp[3] + 1];
        b.ci[b.rp[3] + 1] = t;
    }
    b.ci[b.rp[4] + 1] = b.ci[b.rp[4]];
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX, "not sorted",
               3, b0.ci[b0.rp[3]], "unsorted columns");

    b = b0;
    b.ci[b.rp[4] + 1] = b.ci[b.rp[4]];
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX, "duplicate", 4,
               b0.ci[b0.rp[4]], "duplicate column");

    b = b0; /* a structural error wins over an earlier NaN */
    b.v[b.rp[2]] = NAN;
    b.ci[b.rp[30]] = 99;
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP64, all, PSL_ERR_INVALID_MATRIX,
               "out of range", 30, 99, "structure before values");
}

TEST(bad_values)
{
    bad_case b0, b;
    bad_case_init(&b0);
    const int64_t nnz = b0.nnz;
    const unsigned all = 7u;

    b = b0; /* NaN in row 6, Inf in row 8 */
    b.v[b.rp[6] + 1] = NAN;
    b.v[b.rp[8]] = INFINITY;
    expect_bad(&b, nnz, PSL_OVERFLOW_SATURATE, PSL_FP64, all, PSL_ERR_NONFINITE, "not finite", 6,
               b0.ci[b0.rp[6] + 1], "NaN value");

    b = b0; /* -Inf in row 11 */
    b.v[b.rp[11] + 2] = -INFINITY;
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP32, all, PSL_ERR_NONFINITE, "not finite", 11,
               b0.ci[b0.rp[11] + 2], "-Inf value");

    b = b0; /* FP16 overflow in row 12 (PackSELL fp16 and SELL fp16) */
    b.v[b.rp[12]] = 70000.0;
    b.v[b.rp[13]] = -1e9;
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP16, 6u, PSL_ERR_CODEC_OVERFLOW, "exceeds", 12,
               b0.ci[b0.rp[12]], "FP16 overflow");

    b = b0; /* FP32 overflow in row 14 (CSR fp32 and SELL fp32) */
    b.v[b.rp[14] + 1] = -1e300;
    expect_bad(&b, nnz, PSL_OVERFLOW_ERROR, PSL_FP32, 3u, PSL_ERR_CODEC_OVERFLOW, "FP32", 14,
               b0.ci[b0.rp[14] + 1], "FP32 overflow");
}

TEST(bad_arguments)
{
    bad_case b;
    bad_case_init(&b);
    dev_csr d;
    dev_csr_make(&d, 36, 36, b.rp, b.ci, b.v, PSL_FP64);
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    psl_dmatrix *dA = (psl_dmatrix *)(uintptr_t)1;
    CHECK_ST(psl_dmatrix_convert(NULL, &d.in, &o, g_stream), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_dmatrix_convert(&dA, NULL, &o, g_stream), PSL_ERR_NULL_POINTER);
    CHECK(dA == NULL);
    dA = (psl_dmatrix *)(uintptr_t)1;
    CHECK_ST(psl_dmatrix_convert(&dA, &d.in, NULL, g_stream), PSL_ERR_NULL_POINTER);
    CHECK(dA == NULL);
    /* the CPU's option checks */
    psl_convert_options bad = o;
    bad.slice_height = 0;
    CHECK_ST(psl_dmatrix_convert(&dA, &d.in, &bad, g_stream), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "slice height") != NULL);
    bad = o;
    bad.sigma = 40;
    CHECK_ST(psl_dmatrix_convert(&dA, &d.in, &bad, g_stream), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "sigma") != NULL);
    bad = o;
    bad.codec = (psl_codec){9, 3};
    CHECK_ST(psl_dmatrix_convert(&dA, &d.in, &bad, g_stream), PSL_ERR_INVALID_VALUE);
    bad = o;
    bad.format = PSL_FORMAT_CSR;
    bad.value_type = PSL_FP16;
    CHECK_ST(psl_dmatrix_convert(&dA, &d.in, &bad, g_stream), PSL_ERR_INVALID_VALUE);
    bad = o;
    bad.format = (psl_format)9;
    CHECK_ST(psl_dmatrix_convert(&dA, &d.in, &bad, g_stream), PSL_ERR_INVALID_VALUE);
    CHECK(dA == NULL);
    /* bad descriptions of the input */
    psl_dcsr in = d.in;
    in.value_type = PSL_FP16;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_INVALID_VALUE);
    in = d.in;
    in.nrows = -1;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_INVALID_VALUE);
    in = d.in;
    in.nnz = -5;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_INVALID_VALUE);
    in = d.in;
    in.col_idx = NULL;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_NULL_POINTER);
    in = d.in;
    in.row_ptr = NULL;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_NULL_POINTER);
    in = d.in; /* host arrays are refused before any kernel touches them */
    in.col_idx = b.ci;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "host memory") != NULL);
    in = d.in;
    in.row_ptr = b.rp;
    CHECK_ST(psl_dmatrix_convert(&dA, &in, &o, g_stream), PSL_ERR_INVALID_VALUE);
    CHECK(dA == NULL);
    /* download */
    psl_matrix *H = (psl_matrix *)(uintptr_t)1;
    uint64_t garbage[64] = {0};
    CHECK_ST(psl_dmatrix_download(&H, NULL, g_stream), PSL_ERR_NULL_POINTER);
    CHECK(H == NULL);
    CHECK_ST(psl_dmatrix_download(&H, (const psl_dmatrix *)garbage, g_stream),
             PSL_ERR_INVALID_HANDLE);
    CHECK_ST(psl_dmatrix_download(NULL, (const psl_dmatrix *)garbage, g_stream),
             PSL_ERR_NULL_POINTER);
    /* and a good call after all that, on the legacy default stream too */
    CHECK_OK(psl_dmatrix_convert(&dA, &d.in, &o, NULL));
    CHECK(dA != NULL);
    psl_dmatrix_destroy(&dA);
    dev_csr_free(&d);
}

/* The same conversion twice gives the same arrays (deterministic), and a
 * converted matrix survives the destruction of its input arrays. */
TEST(deterministic_and_independent)
{
    psl_matrix *R = NULL;
    CHECK_OK(psl_generate(&R, "powerlaw:5000:9:1.3:4"));
    if (!R)
        return;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    CHECK_OK(psl_matrix_csr_view(R, &rp, &ci, &v));
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    o.codec = (psl_codec){8, 18}; /* D = 4: many dummies */
    psl_matrix *G[2] = {NULL, NULL};
    for (int r = 0; r < 2; r++) {
        dev_csr d;
        dev_csr_make(&d, R->nrows, R->ncols, rp, ci, v, PSL_FP64);
        psl_dmatrix *dA = NULL;
        CHECK_OK(psl_dmatrix_convert(&dA, &d.in, &o, g_stream));
        dev_csr_free(&d); /* the result owns its arrays */
        if (dA)
            CHECK_OK(psl_dmatrix_download(&G[r], dA, g_stream));
        psl_dmatrix_destroy(&dA);
    }
    if (G[0] && G[1]) {
        CHECK(G[0]->stored == G[1]->stored);
        CHECK(G[0]->dummies > 0);
        SAME_ARRAY("repeat", "words", G[0]->words, G[1]->words, G[0]->stored, 4);
    }
    psl_matrix_destroy(&G[0]);
    psl_matrix_destroy(&G[1]);
    psl_matrix_destroy(&R);
}

static const psl_test_case tests[] = {
    {"generators_match_cpu", generators_match_cpu},
    {"edge_shapes_match_cpu", edge_shapes_match_cpu},
    {"delta_boundaries_match_cpu", delta_boundaries_match_cpu},
    {"bad_structure", bad_structure},
    {"bad_values", bad_values},
    {"bad_arguments", bad_arguments},
    {"deterministic_and_independent", deterministic_and_independent},
};

/* The test's totals, after the tests. */
static void finish(void)
{
    printf("%d checks, %ld GPU builds compared with the CPU, %ld SpMV results compared\n",
           psl_t_checks, g_builds, g_spmvs);
}
#endif /* PSL_HAVE_CUDA */

PSL_GPU_TEST_MAIN(tests, check_without_device, g_stream, finish)
