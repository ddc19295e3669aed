/*
 * test_gpu_csrk.c -- the CSR-k device SpMV (psl_dmatrix_upload of a CSR-k
 * matrix, psl_dspmv) against an FP64 CSR reference written here, in every
 * value type (FP64, FP32, FP16) with every vector type (FP64, FP32, FP16),
 * for host levels k = 1, 2, 3 and several device groupings (the CUDA
 * model's, and sizes forced through PSL_CUDA_CSRK_SR_ROWS / _SSR_SRS: one
 * row per super-row, groups larger than the block, ...), on generated
 * matrices (empty rows and runs of them, long rows, rectangular, one row,
 * mean row lengths in every range of the CUDA model, hence every lane
 * count) and on the shared matrices of ../shared/matrices when present.
 *
 * What is asserted, per row:
 *  - integer data (matrix values, x and y small integers, alpha and beta
 *    halves): every partial sum is exact in the accumulation type whatever
 *    the order, so y must EQUAL the exact result rounded once to the vector
 *    type -- any row, entry or group missed or taken twice shows;
 *  - other data (the shared matrices, scaled by rows): |y - y_ref| at most
 *    gamma_(n+8) (|alpha| sum |a||x| + |beta||y0|) in the accumulation
 *    type's unit roundoff (n the row's entries; the bound holds for any
 *    summation order, the GPU's lanes and tree included), plus the vector
 *    type's rounding of y;
 *  - where the CUDA model gives one thread a row (d <= 8) or the stream
 *    kernel (8 < d <= 64), y has the BITS of the CPU kernel (psl_spmv on
 *    the same matrix): the same sum in the same order; with more lanes a
 *    row the device's order is its own;
 *  - beta = 0 with NaN in y: no NaN leaks; two runs give the same bits;
 *  - download gives the host matrix back (arrays and info);
 *  - a locality reordering (RCM, band-k) goes to the device and back, and
 *    its products have the bits of psl_spmv's reordered product;
 *  - CSR consumers take the arrays as they are: cuSPARSE's CSR SpMV on the
 *    host matrix's own columns and values (and offsets, where cuSPARSE
 *    takes int64 offsets with int32 columns) gives the CSR-k kernel's y.
 * Each matrix prints one "ok" line with what ran and the worst error as a
 * share of its tolerance.
 *
 * The thread mapping of the kernel (which block and thread takes which row)
 * is also emulated on the host for every grouping, with and without a
 * device: every row must be taken exactly once, by one group of lanes.
 *
 * Without a CUDA device (or in a build without CUDA) the test checks that
 * the upload fails cleanly, the options and the model's blocks, prints
 * "SKIP: no CUDA device (GPU tests skipped)" and passes.
 */
#include "packsell.h"
#include "gpu_harness.h"
#include "format/csrk/csrk.h"
#ifdef PSL_HAVE_CUDA
#include <cusparse.h>
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ matrices */

/* An FP64 CSR matrix with integer values in [-4, 4] \ {0} and rows of
 * len(i) entries at random columns (duplicates summed, so a row may have
 * fewer; a sum of 0 is kept as an explicit zero). */
typedef int (*row_len_fn)(int32_t i, unsigned long long *seed, int32_t ncols);

static psl_matrix *int_matrix(int32_t nrows, int32_t ncols, row_len_fn len_of,
                              unsigned long long seed)
{
    int *lens = malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof *lens);
    int64_t cap = 1;
    for (int32_t i = 0; i < nrows; i++) {
        lens[i] = ncols > 0 ? len_of(i, &seed, ncols) : 0;
        cap += lens[i];
    }
    int64_t *rp = calloc((size_t)nrows + 1, sizeof(int64_t));
    int32_t *ci = malloc((size_t)cap * sizeof(int32_t));
    double *v = malloc((size_t)cap * sizeof(double));
    int64_t nz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        rp[i] = nz;
        for (int t = 0; t < lens[i]; t++) {
            ci[nz] = (int32_t)(psl_test_rand(&seed) % (unsigned)ncols);
            int k = (int)(psl_test_rand(&seed) % 8);
            v[nz] = k < 4 ? k - 4 : k - 3;
            nz++;
        }
    }
    rp[nrows] = nz;
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, nrows, ncols, rp, ci, v, PSL_FP64, 0, 0));
    free(lens);
    free(rp);
    free(ci);
    free(v);
    return A;
}

/* every 3rd row empty, a run of 150 empty rows at 400, the last 40 rows
 * empty; the others 1..9 entries */
static int len_empty_rows(int32_t i, unsigned long long *s, int32_t ncols)
{
    (void)ncols;
    int len = 1 + (int)(psl_test_rand(s) % 9);
    return (i % 3 == 1 || (i >= 400 && i < 550) || i >= 960) ? 0 : len;
}
/* every 37th row 1000..4999 entries, the others 1..4 */
static int len_long_rows(int32_t i, unsigned long long *s, int32_t ncols)
{
    (void)ncols;
    unsigned long long r = psl_test_rand(s);
    return i % 37 == 5 ? 1000 + (int)(r % 4000) : 1 + (int)(r % 4);
}
/* one row of 3000 entries, all others empty */
static int len_one_long(int32_t i, unsigned long long *s, int32_t ncols)
{
    (void)ncols;
    (void)psl_test_rand(s);
    return i == 77 ? 3000 : 0;
}
static int target_len; /* the mean of len_around */
/* target_len +- a quarter, at least 1 */
static int len_around(int32_t i, unsigned long long *s, int32_t ncols)
{
    (void)i;
    (void)ncols;
    int spread = target_len / 2 + 1;
    int len = target_len - spread / 2 + (int)(psl_test_rand(s) % (unsigned)spread);
    return len < 1 ? 1 : len;
}
static int len_none(int32_t i, unsigned long long *s, int32_t ncols)
{
    (void)i;
    (void)s;
    (void)ncols;
    return 0;
}

/* ------------------------------------------------------------------ mapping emulation */

/* The rows r0 .. r1-1 of block g for k = 1 or 2, as both kernels take
 * them: super-row g (k = 2) or per rows from g x per (k = 1); 1 for a read
 * past the pointer arrays, else 0. */
static int block_rows(int32_t k, const int32_t *sr, int32_t nsr, int32_t n, int32_t g,
                      int32_t per, int32_t *r0, int32_t *r1)
{
    if (k == 2) {
        *r0 = sr[g];
        *r1 = sr[g + 1];
        return g + 1 > nsr;
    }
    *r0 = g * per;
    *r1 = *r0 + per < n ? *r0 + per : n;
    return *r0 >= n;
}

/* The kernel's loops (spmv_csrk.cu) run on the host for grouping p of n
 * rows (k levels, nsr super-rows, nssr super-super-rows) and block
 * (lanes, bx, by): count[r] += 1 for each group of lanes that takes row r
 * (lanes 0, the stream kernel: for each thread of the bx x by that takes it
 * in a chunk of its super-row). Every row must be taken once; every pointer
 * read must lie in its array. */
static void emulate_mapping(const char *what, int32_t n, int32_t k, const int32_t *p, int32_t nsr,
                            int32_t nssr, int32_t lanes, int32_t bx, int32_t by)
{
    int32_t *count = calloc((size_t)n + 1, sizeof *count);
    const int32_t *sr = k >= 2 ? p : NULL, *ssr = k == 3 ? p + nsr + 1 : NULL;
    const int32_t per = bx * by;
    const int32_t nblocks = k == 3 ? nssr : k == 2 ? nsr : (n + per - 1) / per;
    int bad_reads = 0;
    for (int32_t g = 0; lanes == 0 && g < nblocks; g++) {
        /* the stream kernel: the block's super-rows in turn (k = 3), else its
         * one range; chunks of per rows, thread t on row chunk + t */
        int32_t s0 = 0, s1 = 1;
        if (k == 3) {
            bad_reads += g + 1 > nssr;
            s0 = ssr[g];
            s1 = ssr[g + 1];
        }
        for (int32_t s = s0; s < s1; s++) {
            int32_t r0, r1;
            if (k == 3) {
                bad_reads += s + 1 > nsr;
                r0 = sr[s];
                r1 = sr[s + 1];
            } else {
                bad_reads += block_rows(k, sr, nsr, n, g, per, &r0, &r1);
            }
            for (int32_t c0 = r0; c0 < r1; c0 += per)
                for (int32_t t = 0; t < per && c0 + t < r1; t++)
                    count[c0 + t]++;
        }
    }
    for (int32_t g = 0; lanes > 0 && g < nblocks; g++)
        for (int32_t tz = 0; tz < by; tz++)
            for (int32_t ty = 0; ty < bx; ty++) {
                if (k == 3) {
                    bad_reads += g + 1 > nssr;
                    for (int32_t s = ssr[g] + tz; s < ssr[g + 1]; s += by) {
                        bad_reads += s + 1 > nsr;
                        for (int32_t r = sr[s] + ty; r < sr[s + 1]; r += bx)
                            count[r]++;
                    }
                    continue;
                }
                int32_t r0, r1;
                bad_reads += block_rows(k, sr, nsr, n, g, per, &r0, &r1);
                for (int32_t r = r0 + ty + bx * tz; r < r1; r += per)
                    count[r]++;
            }
    int32_t wrong = -1;
    for (int32_t r = 0; r < n && wrong < 0; r++)
        if (count[r] != 1)
            wrong = r;
    CHECK_MSG(wrong < 0 && bad_reads == 0,
              "%s: k %d, %d rows, block %d x %d x %d: row %d taken %d times, %d reads past "
              "the pointer arrays",
              what, (int)k, (int)n, (int)lanes, (int)bx, (int)by, (int)wrong,
              wrong >= 0 ? (int)count[wrong] : 1, bad_reads);
    free(count);
}

/* The emulation over groupings of the row offsets of A: the CUDA model's
 * and forced sizes, k = 1, 2, 3, with the model's block for A's d and the
 * blocks of every row of the model's table. */
static void check_mapping_of(const char *what, const psl_matrix *A)
{
    const int64_t *rp = NULL;
    int64_t nnz = 0;
    CHECK_OK(psl_matrix_csr_view(A, &rp, NULL, NULL));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(A, &info));
    nnz = info.nnz;
    const int32_t n = info.nrows;
    const double d = n ? (double)nnz / n : 0;
    const int32_t sizes[][2] = {{0, 0}, {1, 1}, {3, 5}, {7, 40}, {1000, 2}, {64, 1}};
    int nt = 0;
    const psl_csrk_fit *t = psl_csrk_model_table(PSL_CSRK_DEVICE_CUDA, &nt);
    for (int32_t k = 1; k <= 3; k++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            int32_t sr = sizes[z][0], ssr = sizes[z][1];
            if (sr == 0)
                CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CUDA, k, d, &sr, &ssr));
            if (k == 1)
                sr = ssr = 0;
            if (k == 2)
                ssr = 0;
            int32_t *p = NULL, nsr = 0, nssr = 0, kk = 0;
            CHECK_OK(psl_csrk_pointers(n, rp, k, sr, ssr, &p, &nsr, &nssr, &kk));
            for (int b = -1; b < nt; b++) {
                const psl_csrk_fit *f = b < 0 ? psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, d) : &t[b];
                emulate_mapping(what, n, kk, p, nsr, nssr, f->lanes, f->block_rows, f->block_srs);
            }
            free(p);
        }
}

/* The CUDA model's blocks are what the kernels launch: lanes 0 (the stream
 * kernel, at most 256 threads) or a power of two up to 32 (a row's lanes in
 * one warp, at most 512 threads), whole warps. */
static void check_model_blocks(void)
{
    int n = 0;
    const psl_csrk_fit *t = psl_csrk_model_table(PSL_CSRK_DEVICE_CUDA, &n);
    CHECK(t && n >= 1 && isinf(t[n - 1].d_max));
    for (int i = 0; t && i < n; i++) {
        const int32_t l = t[i].lanes, thr = (l > 1 ? l : 1) * t[i].block_rows * t[i].block_srs;
        CHECK_MSG(l >= 0 && l <= 32 && (l & (l - 1)) == 0 && thr <= (l ? 512 : 256) &&
                      thr % 32 == 0,
                  "CUDA model row %d: %d lanes x %d x %d", i, (int)l, (int)t[i].block_rows,
                  (int)t[i].block_srs);
        CHECK(i == 0 || t[i].d_max > t[i - 1].d_max);
    }
    /* d <= 8: one thread a row; 8 < d <= 64: the stream kernel (both give
     * the CPU's bits); long rows: 32 lanes */
    CHECK(psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, 5.0)->lanes == 1);
    CHECK(psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, 27.0)->lanes == 0);
    CHECK(psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, 100.0)->lanes == 32);
}

/* Generated matrices of the mapping emulation (no device needed). */
static void check_mappings(void)
{
    struct {
        const char *name;
        int32_t n;
        row_len_fn f;
        int len;
    } gens[] = {{"empty rows", 1000, len_empty_rows, 0}, {"long rows", 700, len_long_rows, 0},
                {"one long row", 300, len_one_long, 0},  {"d=3", 2000, len_around, 3},
                {"d=40", 1500, len_around, 40},          {"one row", 1, len_around, 5},
                {"33 rows", 33, len_around, 2},          {"no entries", 100, len_none, 0}};
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
        target_len = gens[i].len;
        psl_matrix *A = int_matrix(gens[i].n, 5000, gens[i].f, 11 + i);
        if (A)
            check_mapping_of(gens[i].name, A);
        psl_matrix_destroy(&A);
    }
}

/* ------------------------------------------------------------------ no device */

static void check_without_device(psl_status count_status)
{
    psl_matrix *A = NULL, *K = NULL;
    CHECK_OK(psl_generate(&A, "lap2d:16"));
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_CSRK;
    o.csrk_k = 3;
    o.csrk_sr_rows = 4;
    o.csrk_ssr_srs = 2;
    CHECK_OK(psl_matrix_convert(&K, A, &o));
    psl_dmatrix *dA = (psl_dmatrix *)(uintptr_t)1;
    psl_status st = psl_dmatrix_upload(&dA, K, NULL);
    CHECK(st != PSL_OK);
    CHECK(dA == NULL);
    CHECK(strlen(psl_last_error_message()) > 0);
    if (count_status == PSL_ERR_NOT_SUPPORTED)
        CHECK_ST(st, PSL_ERR_NOT_SUPPORTED);
    else
        CHECK_ST(st, PSL_ERR_CUDA);
    /* the options of the device grouping are checked on the host */
    char buf[PSL_OPTION_VALUE_MAX];
    CHECK_ST(psl_option_set("PSL_CUDA_CSRK_SR_ROWS", "12x"), PSL_ERR_INVALID_VALUE);
    CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SSR_SRS", "40"));
    CHECK_OK(psl_option_get("PSL_CUDA_CSRK_SSR_SRS", buf, sizeof buf));
    CHECK(strcmp(buf, "40") == 0);
    CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SSR_SRS", NULL));
    check_model_blocks();
    check_mappings();
    psl_matrix_destroy(&K);
    psl_matrix_destroy(&A);
}

#ifdef PSL_HAVE_CUDA
/* ================================================================== with a device */

static cudaStream_t g_stream;
static const psl_codec FP16_CODEC = {5, 10};
static const psl_scalar TYPES[3] = {PSL_FP64, PSL_FP32, PSL_FP16};

static size_t esize(psl_scalar t) { return t == PSL_FP64 ? 8 : t == PSL_FP32 ? 4 : 2; }
static const char *tname(psl_scalar t) { return t == PSL_FP64 ? "fp64" : t == PSL_FP32 ? "fp32" : "fp16"; }

static double vget(const void *v, psl_scalar t, int64_t i)
{
    if (t == PSL_FP64)
        return ((const double *)v)[i];
    if (t == PSL_FP32)
        return ((const float *)v)[i];
    return psl_codec_decode(FP16_CODEC, ((const uint16_t *)v)[i]);
}

/* Element i = x rounded to t (nearest even; FP16 saturates, which no
 * tested value reaches; NaN is a quiet NaN). */
static void vset(void *v, psl_scalar t, int64_t i, double x)
{
    if (t == PSL_FP16 && isnan(x))
        ((uint16_t *)v)[i] = 0x7e00u;
    else if (t == PSL_FP64)
        ((double *)v)[i] = x;
    else if (t == PSL_FP32)
        ((float *)v)[i] = (float)x;
    else {
        uint32_t bits = 0;
        psl_codec_encode(FP16_CODEC, PSL_OVERFLOW_SATURATE, x, &bits);
        ((uint16_t *)v)[i] = (uint16_t)bits;
    }
}

static int visnan(const void *v, psl_scalar t, int64_t i)
{
    if (t == PSL_FP16)
        return (((const uint16_t *)v)[i] & 0x7fffu) > 0x7c00u;
    return isnan(vget(v, t, i));
}

/* A host matrix in CSR-k form and what the checks need of it. */
typedef struct host_csrk {
    psl_matrix *K;
    psl_matrix_info info;
    const int64_t *rp;
    const int32_t *ci;
    double *val; /* the stored values, exactly */
} host_csrk;

static int make_csrk(host_csrk *h, const psl_matrix *M, int32_t k, int32_t sr, int32_t ssr,
                     psl_scalar vt)
{
    memset(h, 0, sizeof *h);
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_CSRK;
    o.value_type = vt;
    o.csrk_k = k;
    o.csrk_sr_rows = k >= 2 ? sr : 0;
    o.csrk_ssr_srs = k == 3 ? ssr : 0;
    o.overflow = PSL_OVERFLOW_SATURATE;
    CHECK_OK(psl_matrix_convert(&h->K, M, &o));
    if (!h->K)
        return -1;
    CHECK_OK(psl_matrix_get_info(h->K, &h->info));
    const void *v = NULL;
    psl_scalar t;
    CHECK_OK(psl_matrix_csrk_view(h->K, NULL, &h->rp, &h->ci, &v, &t, NULL, NULL, NULL, NULL));
    h->val = malloc((size_t)(h->info.nnz > 0 ? h->info.nnz : 1) * sizeof(double));
    for (int64_t e = 0; e < h->info.nnz; e++)
        h->val[e] = vget(v, t, e);
    return 0;
}

static void free_csrk(host_csrk *h)
{
    psl_matrix_destroy(&h->K);
    free(h->val);
}

/* Statistics of one matrix's cases, for its "ok" line. */
typedef struct tally {
    int cases, exact_cases, bitwise_cases;
    double worst; /* largest |error| / tolerance of the bound cases */
} tally;

/* Device buffers of one case. */
static void *dmalloc(size_t bytes)
{
    void *p = NULL;
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

/* One case: h on the device under the grouping options gsr / gssr ("0":
 * the model), vectors of type vt, y = alpha A x + beta y0. exact: integer
 * data (x, y0 integers, alpha and beta halves): equality with the exact
 * result rounded to vt. nan_y: y0 all NaN (with beta = 0). */
static void run_case(const char *name, const host_csrk *h, int32_t gsr, int32_t gssr,
                     psl_scalar vt, double alpha, double beta, int exact, int nan_y,
                     unsigned long long seed, tally *ty)
{
    const int32_t m = h->info.nrows, n = h->info.ncols;
    const size_t es = esize(vt);
    char sbuf[16], tbuf[16];
    snprintf(sbuf, sizeof sbuf, "%d", (int)gsr);
    snprintf(tbuf, sizeof tbuf, "%d", (int)gssr);
    CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SR_ROWS", sbuf));
    CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SSR_SRS", tbuf));
    psl_dmatrix *dA = NULL;
    CHECK_OK(psl_dmatrix_upload(&dA, h->K, g_stream));
    CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SR_ROWS", NULL));
    CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SSR_SRS", NULL));
    if (!dA)
        return;
    psl_matrix_info di;
    CHECK_OK(psl_dmatrix_get_info(dA, &di));
    CHECK(di.format == PSL_FORMAT_CSRK && di.nnz == h->info.nnz && di.csrk_k == h->info.csrk_k &&
          di.csrk_super_rows == h->info.csrk_super_rows && di.bytes == h->info.bytes);
    size_t ws = 99;
    CHECK_OK(psl_dspmv_workspace_size(dA, vt, &ws));
    CHECK(ws == 0);

    void *x = malloc((size_t)(n > 0 ? n : 1) * es), *y0 = malloc((size_t)(m > 0 ? m : 1) * es);
    void *y = malloc((size_t)(m > 0 ? m : 1) * es), *y2 = malloc((size_t)(m > 0 ? m : 1) * es);
    void *ycpu = malloc((size_t)(m > 0 ? m : 1) * es), *yref = malloc((size_t)(m > 0 ? m : 1) * es);
    for (int32_t j = 0; j < n; j++)
        vset(x, vt, j, exact ? (double)((int)(psl_test_rand(&seed) % 17) - 8)
                             : (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 1024.0);
    for (int32_t i = 0; i < m; i++) {
        if (nan_y)
            vset(y0, vt, i, NAN);
        else
            vset(y0, vt, i, exact ? (double)((int)(psl_test_rand(&seed) % 17) - 8)
                                  : (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 1024.0);
    }
    void *dx = dmalloc((size_t)n * es), *dy = dmalloc((size_t)m * es);
    /* copies on g_stream (a non-blocking stream: a cudaMemcpy from pageable
     * memory may return before its DMA lands, unordered with g_stream's
     * kernels, and the second run then read the first run's y as y0) */
    CUDA_CHECK(cudaMemcpyAsync(dx, x, (size_t)n * es, cudaMemcpyHostToDevice, g_stream));
    for (int rep = 0; rep < 2; rep++) {
        CUDA_CHECK(cudaMemcpyAsync(dy, y0, (size_t)m * es, cudaMemcpyHostToDevice, g_stream));
        CHECK_OK(psl_dspmv(alpha, dA, dx, beta, dy, vt, NULL, 0, g_stream));
        CUDA_CHECK(cudaStreamSynchronize(g_stream));
        CUDA_CHECK(cudaMemcpy(rep ? y2 : y, dy, (size_t)m * es, cudaMemcpyDeviceToHost));
    }
    CHECK_MSG(memcmp(y, y2, (size_t)m * es) == 0, "%s: two runs differ", name);

    /* the reference: FP64 sums of the stored values, and their bound */
    const double u = vt == PSL_FP64 ? 0x1p-53 : 0x1p-24;
    const double uo = vt == PSL_FP64 ? 0x1p-53 : vt == PSL_FP32 ? 0x1p-24 : 0x1p-11;
    const double tiny = vt == PSL_FP16 ? 0x1p-24 : vt == PSL_FP32 ? 0x1p-149 : 0x1p-1074;
    int fails = 0;
    for (int32_t i = 0; i < m; i++) {
        double s = 0, b = 0;
        const int64_t e0 = h->rp[i], e1 = h->rp[i + 1];
        for (int64_t e = e0; e < e1; e++) {
            const double p = h->val[e] * vget(x, vt, h->ci[e]);
            s += p;
            b += fabs(p);
        }
        double ref = alpha * s, bound = fabs(alpha) * b;
        if (beta != 0) {
            ref += beta * vget(y0, vt, i);
            bound += fabs(beta * vget(y0, vt, i));
        }
        vset(yref, vt, i, ref);
        const double got = vget(y, vt, i);
        if (exact) {
            /* every partial sum is an integer below 2^24: exact in any order */
            if (memcmp((const char *)y + (size_t)i * es, (const char *)yref + (size_t)i * es,
                       es) != 0 && fails++ < 5)
                CHECK_MSG(0, "%s: row %d (%lld entries): %.17g, exact %.17g", name, (int)i,
                          (long long)(e1 - e0), got, ref);
            continue;
        }
        const double mlen = (double)(e1 - e0) + 8;
        const double acc_err = mlen * u / (1 - mlen * u) * bound + mlen * 0x1p-53 * bound;
        const double tol = acc_err * (1 + 2 * uo) + uo * fabs(ref) + tiny;
        const double err = fabs(got - ref);
        if (!(err <= tol) && fails++ < 5)
            CHECK_MSG(0, "%s: row %d (%lld entries): %.17g, reference %.17g, error %.3g > %.3g",
                      name, (int)i, (long long)(e1 - e0), got, ref, err, tol);
        if (tol > 0 && err / tol > ty->worst)
            ty->worst = err / tol;
    }
    CHECK_MSG(fails == 0, "%s: %d rows wrong of %d", name, fails, (int)m);
    for (int32_t i = 0; nan_y && i < m; i++)
        if (visnan(y, vt, i)) {
            CHECK_MSG(0, "%s: beta = 0 let the NaN of y[%d] through", name, (int)i);
            break;
        }

    /* one thread a row or the stream kernel: the CPU kernel's bits */
    const double d = m ? (double)h->info.nnz / m : 0;
    if (m > 0 && h->info.nnz > 0 && psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, d)->lanes <= 1) {
        memcpy(ycpu, y0, (size_t)m * es);
        CHECK_OK(psl_spmv(alpha, h->K, x, beta, ycpu, vt));
        int64_t diff = -1;
        for (int32_t i = 0; i < m && diff < 0; i++)
            if (memcmp((const char *)y + (size_t)i * es, (const char *)ycpu + (size_t)i * es,
                       es) != 0 &&
                !(visnan(y, vt, i) && visnan(ycpu, vt, i)))
                diff = i;
        CHECK_MSG(diff < 0, "%s: one thread a row, but y[%lld] = %.17g is not the CPU's %.17g",
                  name, (long long)diff, diff >= 0 ? vget(y, vt, diff) : 0.0,
                  diff >= 0 ? vget(ycpu, vt, diff) : 0.0);
        ty->bitwise_cases++;
    }
    ty->cases++;
    ty->exact_cases += exact;
    cudaFree(dx);
    cudaFree(dy);
    free(x);
    free(y0);
    free(y);
    free(y2);
    free(ycpu);
    free(yref);
    psl_dmatrix_destroy(&dA);
}

/* download gives h back: info, CSR arrays and the host's pointer arrays */
static void check_download(const char *name, const host_csrk *h)
{
    psl_dmatrix *dA = NULL;
    psl_matrix *B = NULL;
    CHECK_OK(psl_dmatrix_upload(&dA, h->K, g_stream));
    if (!dA)
        return;
    CHECK_OK(psl_dmatrix_download(&B, dA, g_stream));
    psl_dmatrix_destroy(&dA);
    if (!B)
        return;
    psl_matrix_info bi;
    CHECK_OK(psl_matrix_get_info(B, &bi));
    CHECK_MSG(bi.format == PSL_FORMAT_CSRK && bi.nnz == h->info.nnz &&
                  bi.csrk_k == h->info.csrk_k && bi.csrk_super_rows == h->info.csrk_super_rows &&
                  bi.csrk_super_super_rows == h->info.csrk_super_super_rows &&
                  bi.bytes == h->info.bytes && bi.value_type == h->info.value_type,
              "%s: downloaded info differs", name);
    int32_t ka, kb, na, nb, ta, tb;
    const int64_t *rpa, *rpb;
    const int32_t *cia, *cib, *sra, *srb, *ssra, *ssrb;
    const void *va, *vb;
    psl_scalar vta, vtb;
    CHECK_OK(psl_matrix_csrk_view(h->K, &ka, &rpa, &cia, &va, &vta, &na, &sra, &ta, &ssra));
    CHECK_OK(psl_matrix_csrk_view(B, &kb, &rpb, &cib, &vb, &vtb, &nb, &srb, &tb, &ssrb));
    const int64_t nnz = h->info.nnz, rows = h->info.nrows;
    CHECK(ka == kb && na == nb && ta == tb && vta == vtb);
    CHECK(memcmp(rpa, rpb, (size_t)(rows + 1) * 8) == 0);
    CHECK(nnz == 0 || memcmp(cia, cib, (size_t)nnz * 4) == 0);
    CHECK(nnz == 0 || memcmp(va, vb, (size_t)nnz * esize(vta)) == 0);
    CHECK((sra == NULL) == (srb == NULL));
    CHECK(!sra || !srb || memcmp(sra, srb, (size_t)(na + 1) * 4) == 0);
    CHECK((ssra == NULL) == (ssrb == NULL));
    CHECK(!ssra || !ssrb || memcmp(ssra, ssrb, (size_t)(ta + 1) * 4) == 0);
    psl_matrix_destroy(&B);
}

/* The host levels and sizes, and the device groupings of the full sweep. */
static const int32_t HOST[][3] = {{1, 0, 0}, {2, 8, 0}, {3, 4, 3}, {3, 0, 0}};
static const int32_t DEV[][2] = {{0, 0}, {1, 1}, {3, 5}, {7, 40}, {1000, 2}, {64, 1}};

/* Every value type, vector type, host levels and device grouping on M
 * (integer data when exact), and download; one "ok" line. full: every
 * device grouping (else the model's and 3 x 5). */
static void sweep(const char *name, const psl_matrix *M, int exact, int full)
{
    tally ty = {0, 0, 0, 0};
    unsigned long long seed = 7;
    const int fails_before = psl_t_failures_in_test;
    for (size_t hk = 0; hk < sizeof HOST / sizeof HOST[0]; hk++)
        for (int v = 0; v < 3; v++) {
            host_csrk h;
            if (make_csrk(&h, M, HOST[hk][0], HOST[hk][1], HOST[hk][2], TYPES[v]) != 0)
                continue;
            if (hk == 2)
                check_download(name, &h);
            const size_t ndev = HOST[hk][0] == 1 ? 1 : full ? sizeof DEV / sizeof DEV[0] : 3;
            for (size_t g = 0; g < ndev; g++)
                for (int w = 0; w < 3; w++) {
                    char what[256];
                    snprintf(what, sizeof what, "%s, host k %d (sr %d ssr %d, stored k %d), "
                             "device sizes %d x %d, %s values, %s vectors",
                             name, (int)HOST[hk][0], (int)HOST[hk][1], (int)HOST[hk][2],
                             (int)h.info.csrk_k, (int)DEV[g][0], (int)DEV[g][1],
                             tname(TYPES[v]), tname(TYPES[w]));
                    run_case(what, &h, DEV[g][0], DEV[g][1], TYPES[w], exact ? 2.0 : 1.5,
                             exact ? -0.5 : -0.75, exact, 0, seed++, &ty);
                    if (g == 0) /* beta = 0 over NaN, alpha 1 */
                        run_case(what, &h, DEV[g][0], DEV[g][1], TYPES[w], 1.0, 0.0, exact, 1,
                                 seed++, &ty);
                }
            free_csrk(&h);
        }
    psl_matrix_info mi;
    CHECK_OK(psl_matrix_get_info(M, &mi));
    const double d = mi.nrows ? (double)mi.nnz / mi.nrows : 0;
    printf("  %s %s: %d x %d, %lld nonzeros, d %.1f (model lanes %d): %d cases (%s), %d "
           "bitwise equal to the CPU kernel%s",
           psl_t_failures_in_test == fails_before ? "ok" : "FAILED", name, (int)mi.nrows,
           (int)mi.ncols, (long long)mi.nnz, d, (int)psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, d)->lanes,
           ty.cases, exact ? "all exact" : "within the bound", ty.bitwise_cases,
           exact ? "\n" : "");
    if (!exact)
        printf(", worst error %.3g of the tolerance\n", ty.worst);
}

TEST(generated_matrices)
{
    struct {
        const char *name;
        int32_t nrows, ncols;
        row_len_fn f;
        int len;
    } gens[] = {
        {"empty rows (runs of them, the last 40 too)", 1000, 1000, len_empty_rows, 0},
        {"long rows (1000..4999 entries every 37th)", 700, 6000, len_long_rows, 0},
        {"one long row, the rest empty (stream, windows)", 300, 5000, len_one_long, 0},
        {"rectangular 500 x 1700, d ~ 6", 500, 1700, len_around, 6},
        {"one row", 1, 50, len_around, 5},
        {"33 rows", 33, 33, len_around, 2},
        {"d ~ 3", 5000, 5000, len_around, 3},
        {"d ~ 12 (stream)", 3000, 3000, len_around, 12},
        {"d ~ 24 (stream)", 2500, 2500, len_around, 24},
        {"d ~ 48 (stream)", 2000, 2000, len_around, 48},
        {"d ~ 100 (32 lanes)", 1200, 4000, len_around, 100},
        {"d ~ 400 (32 lanes)", 300, 4000, len_around, 400},
    };
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
        target_len = gens[i].len;
        psl_matrix *A = int_matrix(gens[i].nrows, gens[i].ncols, gens[i].f, 100 + i);
        if (!A)
            continue;
        check_mapping_of(gens[i].name, A);
        sweep(gens[i].name, A, 1, 1);
        psl_matrix_destroy(&A);
    }
}

TEST(generator_specs)
{
    /* integer-valued stencils (exact), and random values (bound) */
    const char *exact_specs[] = {"lap2d:300", "lap3d:40", "hpcg:5:5:5"};
    for (size_t i = 0; i < sizeof exact_specs / sizeof exact_specs[0]; i++) {
        psl_matrix *A = NULL;
        CHECK_OK(psl_generate(&A, exact_specs[i]));
        if (A)
            sweep(exact_specs[i], A, 1, 0);
        psl_matrix_destroy(&A);
    }
    const char *real_specs[] = {"powerlaw:20000:12:1.5", "random:4000:40", "banded:30000:50:9"};
    for (size_t i = 0; i < sizeof real_specs / sizeof real_specs[0]; i++) {
        psl_matrix *A = NULL, *S = NULL;
        CHECK_OK(psl_generate(&A, real_specs[i]));
        if (A)
            CHECK_OK(psl_matrix_scale_rows(&S, A, NULL));
        if (S)
            sweep(real_specs[i], S, 0, 0);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&A);
    }
}

TEST(empty_shapes)
{
    /* no rows; rows without entries; no columns: the scale kernel */
    const int32_t shapes[][2] = {{0, 0}, {0, 7}, {50, 50}, {40, 0}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        psl_matrix *A = int_matrix(shapes[i][0], shapes[i][1], len_none, 1);
        if (!A)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%d x %d without entries", (int)shapes[i][0],
                 (int)shapes[i][1]);
        sweep(name, A, 1, 0);
        psl_matrix_destroy(&A);
    }
}

static void sweep_shared(const char *name, const char *path, void *ctx)
{
    (void)ctx;
    psl_matrix *M = NULL, *S = NULL;
    CHECK_OK(psl_mm_read(&M, path));
    /* row scaling keeps every value within FP16's range */
    if (M)
        CHECK_OK(psl_matrix_scale_rows(&S, M, NULL));
    if (S)
        sweep(name, S, 0, 0);
    psl_matrix_destroy(&S);
    psl_matrix_destroy(&M);
}

TEST(shared_matrices)
{
    const int n = psl_test_each_shared_matrix("shared_matrices", sweep_shared, NULL);
    if (n > 0)
        printf("  %d shared matrices\n", n);
}

/* CSR consumers take CSR-k's arrays as they are: the host matrix's own
 * row offsets (int64), columns (int32) and values, copied to the device
 * unchanged, given to cuSPARSE's CSR SpMV, give the y of the CSR-k device
 * kernel (integer data: every sum exact, so the two are bitwise equal).
 * Where cuSPARSE refuses 64-bit offsets with 32-bit columns, the offsets
 * go as int32 (the values and columns still as they are) and the line
 * says so. */
static void check_cusparse_takes_arrays(const char *spec, psl_scalar vt)
{
    psl_matrix *M = NULL;
    CHECK_OK(psl_generate(&M, spec));
    if (!M)
        return;
    host_csrk h;
    if (make_csrk(&h, M, 3, 0, 0, vt) != 0) {
        psl_matrix_destroy(&M);
        return;
    }
    const int32_t m = h.info.nrows, n = h.info.ncols;
    const int64_t nnz = h.info.nnz;
    const void *v = NULL;
    CHECK_OK(psl_matrix_csrk_view(h.K, NULL, NULL, NULL, &v, NULL, NULL, NULL, NULL, NULL));
    const size_t es = esize(vt);
    void *x = malloc((size_t)n * es), *y1 = malloc((size_t)m * es), *y2 = malloc((size_t)m * es);
    unsigned long long seed = 5;
    for (int32_t j = 0; j < n; j++)
        vset(x, vt, j, (double)((int)(psl_test_rand(&seed) % 17) - 8));
    void *drp = dmalloc((size_t)(m + 1) * 8), *dci = dmalloc((size_t)nnz * 4),
         *dv = dmalloc((size_t)nnz * es), *dx = dmalloc((size_t)n * es),
         *dy = dmalloc((size_t)m * es);
    CUDA_CHECK(cudaMemcpy(drp, h.rp, (size_t)(m + 1) * 8, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dci, h.ci, (size_t)nnz * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dv, v, (size_t)nnz * es, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dx, x, (size_t)n * es, cudaMemcpyHostToDevice));
    /* CSR-k's own kernel */
    psl_dmatrix *dA = NULL;
    CHECK_OK(psl_dmatrix_upload(&dA, h.K, g_stream));
    CHECK_OK(psl_dspmv(1.0, dA, dx, 0.0, dy, vt, NULL, 0, g_stream));
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
    CUDA_CHECK(cudaMemcpy(y1, dy, (size_t)m * es, cudaMemcpyDeviceToHost));
    psl_dmatrix_destroy(&dA);
    /* cuSPARSE on the arrays as they are */
    const cudaDataType dt = vt == PSL_FP64 ? CUDA_R_64F : CUDA_R_32F;
    cusparseHandle_t hd = NULL;
    CHECK(cusparseCreate(&hd) == CUSPARSE_STATUS_SUCCESS);
    const char *offsets = "int64";
    void *drp32 = NULL;
    cusparseStatus_t st = CUSPARSE_STATUS_NOT_SUPPORTED;
    for (int attempt = 0; attempt < 2 && st != CUSPARSE_STATUS_SUCCESS; attempt++) {
        if (attempt == 1) { /* int32 offsets: the one array converted */
            int32_t *rp32 = malloc((size_t)(m + 1) * 4);
            for (int32_t i = 0; i <= m; i++)
                rp32[i] = (int32_t)h.rp[i];
            drp32 = dmalloc((size_t)(m + 1) * 4);
            CUDA_CHECK(cudaMemcpy(drp32, rp32, (size_t)(m + 1) * 4, cudaMemcpyHostToDevice));
            free(rp32);
            offsets = "int32 (cuSPARSE refused int64 offsets with int32 columns)";
        }
        cusparseSpMatDescr_t A = NULL;
        cusparseDnVecDescr_t X = NULL, Y = NULL;
        st = cusparseCreateCsr(&A, m, n, nnz, attempt ? drp32 : drp, dci, dv,
                               attempt ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I,
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt);
        cusparseCreateDnVec(&X, n, dx, dt);
        cusparseCreateDnVec(&Y, m, dy, dt);
        const double one64 = 1, zero64 = 0;
        const float one32 = 1, zero32 = 0;
        const void *one = vt == PSL_FP64 ? (const void *)&one64 : (const void *)&one32;
        const void *zero = vt == PSL_FP64 ? (const void *)&zero64 : (const void *)&zero32;
        size_t wsb = 0;
        void *ws = NULL;
        if (st == CUSPARSE_STATUS_SUCCESS)
            st = cusparseSpMV_bufferSize(hd, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, X, zero, Y,
                                         dt, CUSPARSE_SPMV_CSR_ALG1, &wsb);
        if (st == CUSPARSE_STATUS_SUCCESS) {
            ws = dmalloc(wsb);
            CUDA_CHECK(cudaMemset(dy, 0xff, (size_t)m * es)); /* NaN: a row left out shows */
            st = cusparseSpMV(hd, CUSPARSE_OPERATION_NON_TRANSPOSE, one, A, X, zero, Y, dt,
                              CUSPARSE_SPMV_CSR_ALG1, ws);
            CUDA_CHECK(cudaDeviceSynchronize());
        }
        cudaFree(ws);
        cusparseDestroyDnVec(X);
        cusparseDestroyDnVec(Y);
        cusparseDestroySpMat(A);
    }
    CHECK_MSG(st == CUSPARSE_STATUS_SUCCESS, "%s: cuSPARSE SpMV on CSR-k's arrays: status %d",
              spec, (int)st);
    if (st == CUSPARSE_STATUS_SUCCESS) {
        CUDA_CHECK(cudaMemcpy(y2, dy, (size_t)m * es, cudaMemcpyDeviceToHost));
        int64_t diff = -1;
        for (int32_t i = 0; i < m && diff < 0; i++)
            if (memcmp((char *)y1 + (size_t)i * es, (char *)y2 + (size_t)i * es, es) != 0)
                diff = i;
        CHECK_MSG(diff < 0, "%s: cuSPARSE on CSR-k's arrays: y[%lld] = %g, CSR-k kernel %g",
                  spec, (long long)diff, diff >= 0 ? vget(y2, vt, diff) : 0.0,
                  diff >= 0 ? vget(y1, vt, diff) : 0.0);
        printf("  %s %s, %s values: cuSPARSE CSR SpMV on CSR-k's own columns and values, "
               "offsets %s: y equal to the CSR-k kernel's\n",
               diff < 0 ? "ok" : "FAILED", spec, tname(vt), offsets);
    }
    cusparseDestroy(hd);
    cudaFree(drp);
    cudaFree(drp32);
    cudaFree(dci);
    cudaFree(dv);
    cudaFree(dx);
    cudaFree(dy);
    free(x);
    free(y1);
    free(y2);
    free_csrk(&h);
    psl_matrix_destroy(&M);
}

TEST(csr_consumers_take_the_arrays)
{
    const char *specs[] = {"hpcg:5:5:5", "lap2d:300", "lap3d:40"}; /* integer values */
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        check_cusparse_takes_arrays(specs[i], PSL_FP64);
        check_cusparse_takes_arrays(specs[i], PSL_FP32);
    }
}

/* One reordered product on the device against psl_spmv's on the host:
 * the same bits (the kernels' d gives one thread a row or the stream
 * kernel), two runs alike, no NaN of y through with beta = 0. */
static void reordered_case(const char *name, const psl_matrix *R, psl_dmatrix *dA,
                           psl_scalar vt, double alpha, double beta, unsigned long long seed)
{
    psl_matrix_info ri;
    CHECK_OK(psl_matrix_get_info(R, &ri));
    const int32_t n = ri.nrows;
    const size_t es = esize(vt);
    size_t ws = 0;
    CHECK_OK(psl_dspmv_workspace_size(dA, vt, &ws));
    const size_t half = ((size_t)n * es + 255) / 256 * 256;
    CHECK_MSG(ws == (ri.nnz > 0 ? 2 * half : 0), "%s: workspace %zu bytes", name, ws);
    void *x = malloc((size_t)n * es), *y0 = malloc((size_t)n * es), *y = malloc((size_t)n * es),
         *y2 = malloc((size_t)n * es), *ycpu = malloc((size_t)n * es);
    for (int32_t i = 0; i < n; i++) {
        vset(x, vt, i, (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 1024.0);
        vset(y0, vt, i, beta == 0 ? NAN : (double)((int)(psl_test_rand(&seed) % 2001) - 1000) / 512.0);
    }
    void *dx = dmalloc((size_t)n * es), *dy = dmalloc((size_t)n * es), *dws = dmalloc(ws);
    CUDA_CHECK(cudaMemcpyAsync(dx, x, (size_t)n * es, cudaMemcpyHostToDevice, g_stream));
    for (int rep = 0; rep < 2; rep++) {
        CUDA_CHECK(cudaMemcpyAsync(dy, y0, (size_t)n * es, cudaMemcpyHostToDevice, g_stream));
        CHECK_OK(psl_dspmv(alpha, dA, dx, beta, dy, vt, dws, ws, g_stream));
        CUDA_CHECK(cudaStreamSynchronize(g_stream));
        CUDA_CHECK(cudaMemcpy(rep ? y2 : y, dy, (size_t)n * es, cudaMemcpyDeviceToHost));
    }
    CHECK_MSG(memcmp(y, y2, (size_t)n * es) == 0, "%s: two runs differ", name);
    memcpy(ycpu, y0, (size_t)n * es);
    CHECK_OK(psl_spmv(alpha, R, x, beta, ycpu, vt));
    int64_t diff = -1;
    for (int32_t i = 0; i < n && diff < 0; i++)
        if (memcmp((const char *)y + (size_t)i * es, (const char *)ycpu + (size_t)i * es, es) != 0 ||
            visnan(y, vt, i))
            diff = i;
    CHECK_MSG(diff < 0, "%s: y[%lld] = %.17g, psl_spmv's %.17g", name, (long long)diff,
              diff >= 0 ? vget(y, vt, diff) : 0.0, diff >= 0 ? vget(ycpu, vt, diff) : 0.0);
    cudaFree(dx);
    cudaFree(dy);
    cudaFree(dws);
    free(x), free(y0), free(y), free(y2), free(ycpu);
}

/* A locality reordering on the device: perm and its inverse go up and come
 * back with download, the workspace is two vectors, and every value and
 * vector type gives psl_spmv's bits for the reordered product (RCM and
 * band-k; beta 0 over NaN and beta != 0). */
TEST(reordered)
{
    const char *specs[] = {"lap2d:120", "hpcg:4:4:4", "random:3000:12"};
    const psl_csrk_reorder hows[] = {PSL_CSRK_REORDER_RCM, PSL_CSRK_REORDER_BANDK};
    unsigned long long seed = 11;
    int cases = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        psl_matrix *A = NULL, *S = NULL;
        CHECK_OK(psl_generate(&A, specs[i]));
        if (A)
            CHECK_OK(psl_matrix_scale_rows(&S, A, NULL)); /* FP16's range */
        for (size_t h = 0; S && h < 2; h++)
            for (int v = 0; v < 3; v++) {
                psl_convert_options o;
                psl_convert_options_init(&o);
                o.format = PSL_FORMAT_CSRK;
                o.value_type = TYPES[v];
                o.csrk_k = 3;
                o.csrk_reorder = hows[h];
                o.overflow = PSL_OVERFLOW_SATURATE;
                psl_matrix *R = NULL, *B = NULL;
                psl_dmatrix *dA = NULL;
                CHECK_OK(psl_matrix_convert(&R, S, &o));
                if (R)
                    CHECK_OK(psl_dmatrix_upload(&dA, R, g_stream));
                if (!dA) {
                    psl_matrix_destroy(&R);
                    continue;
                }
                psl_matrix_info ri, di;
                CHECK_OK(psl_matrix_get_info(R, &ri));
                CHECK_OK(psl_dmatrix_get_info(dA, &di));
                CHECK(di.csrk_perm_bytes == 8 * (int64_t)ri.nrows && di.bytes == ri.bytes);
                CHECK_OK(psl_dmatrix_download(&B, dA, g_stream));
                if (B) {
                    const int32_t *pa, *ia, *pb, *ib;
                    CHECK_OK(psl_matrix_csrk_perm_view(R, &pa, &ia));
                    CHECK_OK(psl_matrix_csrk_perm_view(B, &pb, &ib));
                    CHECK(pa && pb && ia && ib &&
                          memcmp(pa, pb, (size_t)ri.nrows * 4) == 0 &&
                          memcmp(ia, ib, (size_t)ri.nrows * 4) == 0);
                }
                psl_matrix_destroy(&B);
                for (int w = 0; w < 3; w++) {
                    char name[160];
                    snprintf(name, sizeof name, "%s, %s, %s values, %s vectors", specs[i],
                             h ? "band-k" : "RCM", tname(TYPES[v]), tname(TYPES[w]));
                    reordered_case(name, R, dA, TYPES[w], 1.5, -0.75, seed++);
                    reordered_case(name, R, dA, TYPES[w], 1.0, 0.0, seed++);
                    cases += 2;
                }
                psl_dmatrix_destroy(&dA);
                psl_matrix_destroy(&R);
            }
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&A);
    }
    printf("  %d reordered products, psl_spmv's bits\n", cases);
}

TEST(model_and_mapping)
{
    check_model_blocks();
    check_mappings();
}

static const psl_test_case tests[] = {
    {"model_and_mapping", model_and_mapping},
    {"generated_matrices", generated_matrices},
    {"generator_specs", generator_specs},
    {"empty_shapes", empty_shapes},
    {"shared_matrices", shared_matrices},
    {"csr_consumers_take_the_arrays", csr_consumers_take_the_arrays},
    {"reordered", reordered},
};

static void finish(void) {}
#endif /* PSL_HAVE_CUDA */

PSL_GPU_TEST_MAIN(tests, check_without_device, g_stream, finish)
