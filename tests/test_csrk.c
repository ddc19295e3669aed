/*
 * test_csrk.c -- the CSR-k format: the grouping (every row in exactly one
 * super-row, groups contiguous, each group's nonzeros within one item's
 * nonzeros of its share, k = 1/2/3, empty rows, empty matrices, one huge
 * row), the tuning model, the CPU kernel bitwise against the reference CSR
 * kernel on generated and real matrices in FP64/FP32/FP16 values with every
 * vector type, the CSR arrays given as they are to our CSR SpMV, the
 * binary-file round trip and damaged files, bad parameters, the memory
 * overhead (< 2% of CSR, also with the device's grouping; its count
 * without arrays against the built one), the view of the caller's arrays,
 * and the command line (--csrk-reorder too; the
 * reorderings themselves: test_csrk_reorder.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "codec/half.h"
#include "csrk_fixture.h"
#include "format/csrk/csrk.h"
#include "format/format_ops.h"
#include "harness.h"
#include "internal.h"
#include "kernels/kernels.h"
#include "packsell.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const psl_scalar vec_types[] = {PSL_FP64, PSL_FP32, PSL_FP16};
static const psl_scalar val_types[] = {PSL_FP64, PSL_FP32, PSL_FP16};

static size_t vsize(psl_scalar t) { return t == PSL_FP64 ? 8 : t == PSL_FP32 ? 4 : 2; }

/* n values of type t, uniform in [-1, 1) rounded to FP16 (exact in every type). */
static void *make_vec(int64_t n, psl_scalar t, unsigned long long seed)
{
    void *p = malloc((size_t)(n ? n : 1) * vsize(t));
    for (int64_t i = 0; i < n; i++) {
        float f = psl_half_to_float(psl_float_to_half((float)(2 * psl_test_uniform(&seed) - 1)));
        if (t == PSL_FP64)
            ((double *)p)[i] = f;
        else if (t == PSL_FP32)
            ((float *)p)[i] = f;
        else
            ((uint16_t *)p)[i] = psl_float_to_half(f);
    }
    return p;
}

static psl_matrix *convert_csrk(const psl_matrix *src, psl_scalar vt, int32_t k, int32_t sr,
                                int32_t ssr)
{
    return csrk_convert(src, PSL_CSRK_REORDER_NONE, k, sr, ssr, vt);
}

/* The grouping of one level: first[0..ng] from 0 to n strictly increasing
 * (so every item in exactly one contiguous group), and every group but the
 * last holds at least its share of nonzeros and less than its share plus
 * its last item's. cum: nonzero offsets of the items (n+1). */
static void check_level(const char *what, const int32_t *first, int32_t ng, int32_t n,
                        const int64_t *cum, int32_t size)
{
    CHECK_MSG(first[0] == 0 && first[ng] == n, "%s: runs from %d to %d, not 0 to %d", what,
              (int)first[0], (int)first[ng], (int)n);
    const int64_t total = cum[n] - cum[0];
    const double share = (double)size * (double)total / (n ? n : 1);
    int bad = 0;
    for (int32_t g = 0; g < ng && bad < 3; g++) {
        const int32_t a = first[g], b = first[g + 1];
        if (b <= a) {
            CHECK_MSG(b > a, "%s: group %d is empty or backwards (%d..%d)", what, (int)g,
                      (int)a, (int)b);
            bad++;
            continue;
        }
        if (total == 0) {
            CHECK_MSG(b - a == size || (g == ng - 1 && b - a < size),
                      "%s: group %d of a matrix without nonzeros has %d items, size %d", what,
                      (int)g, (int)(b - a), (int)size);
            continue;
        }
        const int64_t nz = cum[b] - cum[a], last = cum[b] - cum[b - 1];
        if (g < ng - 1) {
            int ok = (double)nz >= share && (double)(nz - last) < share;
            CHECK_MSG(ok, "%s: group %d (items %d..%d) holds %lld nonzeros, share %.3f, last "
                      "item %lld",
                      what, (int)g, (int)a, (int)b, (long long)nz, share, (long long)last);
            bad += !ok;
        } else {
            CHECK_MSG((double)(nz - last) < share, "%s: last group holds %lld, share %.3f",
                      what, (long long)nz, share);
        }
    }
}

/* The grouping of a CSR-k matrix built for kreq levels with sizes sr, ssr
 * (the model's for kreq when 0) against its own row pointers; a level of
 * one group is left implicit, so the matrix may have fewer levels. */
static void check_grouping(const char *label, const psl_matrix *A, int32_t kreq, int32_t sr,
                           int32_t ssr)
{
    int32_t k, nsr, nssr;
    const int64_t *rp;
    const int32_t *srp, *ssrp;
    CHECK_OK(psl_matrix_csrk_view(A, &k, &rp, NULL, NULL, NULL, &nsr, &srp, &nssr, &ssrp));
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(A, &in));
    int32_t m_sr = 0, m_ssr = 0;
    CHECK_MSG(k <= kreq, "%s: %d levels, %d asked for", label, (int)k, (int)kreq);
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, kreq, in.mean_row_nnz, &m_sr, &m_ssr));
    sr = sr ? sr : m_sr;
    ssr = ssr ? ssr : m_ssr;
    CHECK(in.csrk_k == k && in.csrk_super_rows == nsr && in.csrk_super_super_rows == nssr);
    if (k == 1) {
        CHECK(srp == NULL && ssrp == NULL && nsr == 0 && nssr == 0);
        CHECK(in.csrk_overhead_bytes == 0);
        return;
    }
    CHECK(srp != NULL);
    CHECK((ssrp != NULL) == (k == 3));
    CHECK((nsr == 0) == (in.nrows == 0));
    char what[160];
    snprintf(what, sizeof what, "%s k=%d sr_ptr", label, (int)k);
    check_level(what, srp, nsr, in.nrows, rp, sr);
    int64_t over = 4 * ((int64_t)nsr + 1);
    if (k == 3) {
        int64_t *cum = malloc(((size_t)nsr + 1) * sizeof *cum);
        for (int32_t j = 0; j <= nsr; j++)
            cum[j] = rp[srp[j]];
        snprintf(what, sizeof what, "%s k=3 ssr_ptr", label);
        check_level(what, ssrp, nssr, nsr, cum, ssr);
        free(cum);
        over += 4 * ((int64_t)nssr + 1);
        CHECK((nssr == 0) == (nsr == 0));
    }
    CHECK_MSG(in.csrk_overhead_bytes == over && in.bytes == in.csr_bytes + over,
              "%s: overhead %lld, expected %lld", label, (long long)in.csrk_overhead_bytes,
              (long long)over);
}

/* Overhead of A as a share of its CSR bytes is below 2%. */
static void check_overhead(const char *label, const psl_matrix *A)
{
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(A, &in));
    const double share = in.csr_bytes ? (double)in.csrk_overhead_bytes / in.csr_bytes : 0;
    CHECK_MSG(share < 0.02, "%s: CSR-k overhead %.4f%% of CSR", label, 100 * share);
    /* the device form: these pointers and the GPU kernel's grouping */
    const double dshare =
        in.csr_bytes ? (double)in.csrk_device_overhead_bytes / in.csr_bytes : 0;
    CHECK_MSG(in.csrk_device_overhead_bytes >= in.csrk_overhead_bytes && dshare < 0.02,
              "%s: CSR-k device overhead %lld bytes, %.4f%% of CSR", label,
              (long long)in.csrk_device_overhead_bytes, 100 * dshare);
}

/* y of kernel `kernel` (NULL: psl_ref_csr_spmv) on M with vector type vt, alpha, beta and y0 (NaN
 * when beta == 0: must not leak). */
static void *run(const char *kernel, const psl_matrix *M, const void *x, double alpha,
                 double beta, psl_scalar vt, int32_t nrows, unsigned long long seed)
{
    void *y = make_vec(nrows, vt, seed);
    if (beta == 0)
        for (int32_t i = 0; i < nrows; i++) {
            if (vt == PSL_FP64)
                ((double *)y)[i] = NAN;
            else if (vt == PSL_FP32)
                ((float *)y)[i] = NAN;
            else
                ((uint16_t *)y)[i] = 0x7e00;
        }
    if (kernel)
        CHECK_OK(psl_spmv_named(kernel, alpha, M, x, beta, y, vt));
    else if (nrows > 0) /* CSR's reference kernel itself: the table's CSR has no FP16 */
        psl_ref_csr_spmv(alpha, M, x, beta, y, vt);
    return y;
}

/* The omp CSR-k kernel against the reference CSR kernel on an independent
 * FP64 CSR of the stored values (psl_matrix_to_csr: exact), bit for bit,
 * and the CSR arrays of A given as they are to our CSR kernels. */
static void check_spmv(const char *label, const psl_matrix *A)
{
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(A, &in));
    psl_matrix *D = NULL;
    CHECK_OK(psl_matrix_to_csr(&D, A));
    if (!D)
        return;
    /* a CSR handle over A's own arrays: no copy, no conversion */
    psl_matrix *V = psl_matrix_new(PSL_FORMAT_CSR, in.nrows, in.ncols);
    V->nnz = A->nnz;
    V->row_ptr = A->row_ptr;
    V->col_idx = A->col_idx;
    V->values = A->values;
    V->value_type = A->value_type;
    static const double ab[][2] = {{1.0, 0.0}, {-1.5, 0.75}};
    for (size_t t = 0; t < sizeof vec_types / sizeof vec_types[0]; t++) {
        const psl_scalar vt = vec_types[t];
        void *x = make_vec(in.ncols, vt, 7 + t);
        for (size_t c = 0; c < 2; c++) {
            const size_t bytes = (size_t)in.nrows * vsize(vt);
            void *yr = run("ref", D, x, ab[c][0], ab[c][1], vt, in.nrows, 99);
            void *yk = run("omp", A, x, ab[c][0], ab[c][1], vt, in.nrows, 99);
            void *yv = run(A->value_type == PSL_FP16 ? NULL : "omp", V, x, ab[c][0],
                           ab[c][1], vt, in.nrows, 99);
            void *ykr = run("ref", A, x, ab[c][0], ab[c][1], vt, in.nrows, 99);
            CHECK_MSG(memcmp(yr, yk, bytes) == 0, "%s: omp CSR-k differs from reference CSR "
                      "(%s vectors, beta %g)", label, psl_scalar_name(vt), ab[c][1]);
            CHECK_MSG(memcmp(yr, yv, bytes) == 0, "%s: CSR kernel on the CSR-k arrays differs "
                      "(%s vectors)", label, psl_scalar_name(vt));
            CHECK_MSG(memcmp(yr, ykr, bytes) == 0, "%s: ref CSR-k differs (%s vectors)",
                      label, psl_scalar_name(vt));
            free(yr);
            free(yk);
            free(yv);
            free(ykr);
        }
        free(x);
    }
    V->row_ptr = NULL;
    V->col_idx = NULL;
    V->values = NULL;
    psl_matrix_destroy(&V);
    psl_matrix_destroy(&D);
}

/* Every k and value type of src: grouping, overhead and SpMV. */
static void check_all(const char *label, const psl_matrix *src, int overhead)
{
    for (int32_t k = 1; k <= 3; k++)
        for (size_t v = 0; v < sizeof val_types / sizeof val_types[0]; v++) {
            psl_matrix *A = convert_csrk(src, val_types[v], k, 0, 0);
            if (!A)
                continue;
            char l[160];
            snprintf(l, sizeof l, "%s k=%d %s", label, (int)k, psl_scalar_name(val_types[v]));
            check_grouping(l, A, k, 0, 0);
            if (overhead)
                check_overhead(l, A);
            check_spmv(l, A);
            psl_matrix_destroy(&A);
        }
}

/* psl_matrix_create_csrk_view: CSR-k over the caller's arrays without a
 * copy. The view's arrays are the caller's pointers; its grouping, info and
 * products (every value and vector type) equal those of the converted
 * matrix bit for bit; conversion, save/load and a second view work on it;
 * destroy leaves the arrays (the caller frees them after: ASan would see a
 * double free or a use after free); bad arrays are refused with the
 * handle NULL and the arrays unchanged. */
TEST(view_of_caller_arrays)
{
    psl_matrix *G = NULL;
    CHECK_OK(psl_generate(&G, "hpcg:4:4:4"));
    if (!G)
        return;
    const int64_t *grp = NULL;
    const int32_t *gci = NULL;
    const double *gv = NULL;
    CHECK_OK(psl_matrix_csr_view(G, &grp, &gci, &gv));
    psl_matrix_info gi;
    CHECK_OK(psl_matrix_get_info(G, &gi));
    const int32_t n = gi.nrows;
    const int64_t nnz = gi.nnz;
    /* the caller's own arrays, in each value type */
    int64_t *rp = malloc((size_t)(n + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)nnz * sizeof *ci);
    memcpy(rp, grp, (size_t)(n + 1) * sizeof *rp);
    memcpy(ci, gci, (size_t)nnz * sizeof *ci);
    for (size_t t = 0; t < sizeof val_types / sizeof val_types[0]; t++) {
        const psl_scalar vt = val_types[t];
        void *v = malloc((size_t)nnz * vsize(vt));
        for (int64_t e = 0; e < nnz; e++) {
            const double d = gv[e];
            if (vt == PSL_FP64)
                ((double *)v)[e] = d;
            else if (vt == PSL_FP32)
                ((float *)v)[e] = (float)d;
            else
                ((uint16_t *)v)[e] = psl_float_to_half((float)d);
        }
        for (int32_t k = 1; k <= 3; k++) {
            psl_matrix *V = NULL, *K = convert_csrk(G, vt, k, 0, 0);
            CHECK_OK(psl_matrix_create_csrk_view(&V, n, n, rp, ci, v, vt, k, 0, 0));
            if (!V || !K) {
                psl_matrix_destroy(&V);
                psl_matrix_destroy(&K);
                continue;
            }
            const int64_t *vrp;
            const int32_t *vci, *vsr, *ksr;
            const void *vv;
            int32_t vnsr, knsr, vk, kk;
            CHECK_OK(psl_matrix_csrk_view(V, &vk, &vrp, &vci, &vv, NULL, &vnsr, &vsr, NULL, NULL));
            CHECK_OK(psl_matrix_csrk_view(K, &kk, NULL, NULL, NULL, NULL, &knsr, &ksr, NULL, NULL));
            CHECK_MSG(vrp == rp && vci == ci && vv == v, "the view copied the caller's arrays");
            CHECK(vk == kk && vnsr == knsr);
            CHECK(!vsr || !ksr || memcmp(vsr, ksr, (size_t)(vnsr + 1) * 4) == 0);
            psl_matrix_info vi, ki;
            CHECK_OK(psl_matrix_get_info(V, &vi));
            CHECK_OK(psl_matrix_get_info(K, &ki));
            CHECK(vi.format == PSL_FORMAT_CSRK && vi.bytes == ki.bytes && vi.nnz == ki.nnz &&
                  vi.csrk_overhead_bytes == ki.csrk_overhead_bytes && vi.rsd == ki.rsd);
            for (size_t w = 0; w < sizeof vec_types / sizeof vec_types[0]; w++) {
                void *x = make_vec(n, vec_types[w], 3 + w);
                void *y1 = run("omp", V, x, 1.5, -0.5, vec_types[w], n, 9);
                void *y2 = run("omp", K, x, 1.5, -0.5, vec_types[w], n, 9);
                CHECK_MSG(y1 && y2 && memcmp(y1, y2, (size_t)n * vsize(vec_types[w])) == 0,
                          "view %s k %d: y differs from the converted matrix's",
                          psl_scalar_name(vt), (int)k);
                free(x);
                free(y1);
                free(y2);
            }
            if (k == 3) { /* the view decoded, and in a file */
                psl_matrix *C = NULL, *L = NULL;
                CHECK_OK(psl_matrix_to_csr(&C, V));
                psl_matrix_info ci_;
                if (C) {
                    CHECK_OK(psl_matrix_get_info(C, &ci_));
                    CHECK(ci_.format == PSL_FORMAT_CSR && ci_.nnz == nnz);
                }
                psl_matrix_destroy(&C);
                CHECK_OK(psl_matrix_save(V, "view.psl"));
                CHECK_OK(psl_matrix_load(&L, "view.psl"));
                psl_matrix_info li;
                if (L) {
                    CHECK_OK(psl_matrix_get_info(L, &li));
                    CHECK(li.format == PSL_FORMAT_CSRK && li.nnz == vi.nnz && li.bytes == vi.bytes);
                }
                psl_matrix_destroy(&L);
                remove("view.psl");
            }
            psl_matrix_destroy(&V);
            psl_matrix_destroy(&K);
            CHECK(rp[n] == nnz); /* still the caller's, unchanged */
        }
        free(v);
    }
    /* bad arrays: refused, the handle NULL, the arrays unchanged */
    psl_matrix *V = (psl_matrix *)(uintptr_t)1;
    double *dv = calloc((size_t)nnz, sizeof *dv);
    memcpy(dv, gv, (size_t)nnz * sizeof *dv);
    int32_t c0 = ci[0], c1 = ci[1];
    ci[0] = c1;
    ci[1] = c0; /* row 0 unsorted: a view cannot sort */
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n, rp, ci, dv, PSL_FP64, 3, 0, 0),
             PSL_ERR_INVALID_MATRIX);
    CHECK(V == NULL && ci[0] == c1 && ci[1] == c0);
    ci[0] = c0;
    ci[1] = c1;
    dv[5] = NAN;
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n, rp, ci, dv, PSL_FP64, 3, 0, 0),
             PSL_ERR_NONFINITE);
    dv[5] = 1;
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n - 1, rp, ci, dv, PSL_FP64, 3, 0, 0),
             PSL_ERR_INVALID_MATRIX); /* a column out of range */
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n, rp, ci, dv, PSL_FP64, 4, 0, 0),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n, rp, ci, dv, PSL_BF16, 3, 0, 0),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n, NULL, ci, dv, PSL_FP64, 3, 0, 0),
             PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_create_csrk_view(&V, n, n, rp, NULL, dv, PSL_FP64, 3, 0, 0),
             PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_matrix_create_csrk_view(NULL, n, n, rp, ci, dv, PSL_FP64, 3, 0, 0),
             PSL_ERR_NULL_POINTER);
    CHECK(V == NULL);
    /* an empty matrix: row_ptr of one zero */
    const int64_t zero = 0;
    CHECK_OK(psl_matrix_create_csrk_view(&V, 0, 0, &zero, NULL, NULL, PSL_FP64, 3, 0, 0));
    psl_matrix_destroy(&V);
    free(dv);
    free(rp);
    free(ci);
    psl_matrix_destroy(&G);
}

/* psl_csrk_count gives the counts psl_csrk_pointers gives (it feeds
 * psl_matrix_info.csrk_device_overhead_bytes), over random row lengths
 * (empty rows and runs of them, one long row, no entries at all) and sizes;
 * the info's device overhead is the host's pointers plus the CUDA model's
 * grouping (or the options'; a reordered matrix's too, its perm apart), and
 * under 2% of CSR on generated matrices. */
TEST(device_overhead_counts)
{
    unsigned long long s = 17;
    const int32_t sizes[] = {1, 2, 3, 7, 40, 1000, 1 << 30};
    for (int c = 0; c < 60; c++) {
        const int32_t n = c == 0 ? 0 : 1 + (int32_t)(psl_test_rand(&s) % 3000);
        int64_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
        rp[0] = 0;
        for (int32_t i = 0; i < n; i++) {
            const unsigned r = (unsigned)(psl_test_rand(&s) % 10);
            const int64_t len = c % 7 == 3 ? 0 /* no entries */
                                : r < 3    ? 0
                                : r == 9   ? (int64_t)(psl_test_rand(&s) % 500)
                                           : (int64_t)(psl_test_rand(&s) % 30);
            rp[i + 1] = rp[i] + len;
        }
        for (int32_t k = 1; k <= 3; k++)
            for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++) {
                const int32_t sr = sizes[a], ssr = sizes[(a + c) % (sizeof sizes / sizeof sizes[0])];
                int32_t *p = NULL, nsr = -1, nssr = -1, kk = -1, csr = -2, cssr = -2, ck = -2;
                CHECK_OK(psl_csrk_pointers(n, rp, k, sr, ssr, &p, &nsr, &nssr, &kk));
                psl_csrk_count(n, rp, k, sr, ssr, &csr, &cssr, &ck);
                CHECK_MSG(csr == nsr && cssr == nssr && ck == kk,
                          "n %d k %d sizes %d x %d: counted %d/%d/k%d, built %d/%d/k%d", (int)n,
                          (int)k, (int)sr, (int)ssr, (int)csr, (int)cssr, (int)ck, (int)nsr,
                          (int)nssr, (int)kk);
                free(p);
            }
        free(rp);
    }
    /* the info field: the model's grouping, the options', a reordering */
    const char *specs[] = {"hpcg:5:5:5", "lap2d:200", "random:5000:40", "powerlaw:20000:12:1.5"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        psl_matrix *G = NULL;
        CHECK_OK(psl_generate(&G, specs[i]));
        psl_matrix *K = G ? convert_csrk(G, PSL_FP64, 3, 0, 0) : NULL;
        if (!K) {
            psl_matrix_destroy(&G);
            continue;
        }
        psl_matrix_info in;
        CHECK_OK(psl_matrix_get_info(K, &in));
        int32_t sr = 0, ssr = 0, nsr, nssr, kk, *p = NULL;
        CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CUDA, in.csrk_k,
                                      (double)in.nnz / in.nrows, &sr, &ssr));
        CHECK_OK(psl_csrk_pointers(in.nrows, K->row_ptr, in.csrk_k, sr, ssr, &p, &nsr, &nssr, &kk));
        free(p);
        CHECK_MSG(in.csrk_device_overhead_bytes ==
                      in.csrk_overhead_bytes + 4 * psl_csrk_ptr_count(kk, nsr, nssr),
                  "%s: device overhead %lld", specs[i], (long long)in.csrk_device_overhead_bytes);
        CHECK_MSG((double)in.csrk_device_overhead_bytes < 0.02 * (double)in.csr_bytes,
                  "%s: device overhead %.3f%% of CSR", specs[i],
                  100.0 * (double)in.csrk_device_overhead_bytes / (double)in.csr_bytes);
        CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SR_ROWS", "3"));
        CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SSR_SRS", "5"));
        CHECK_OK(psl_matrix_get_info(K, &in));
        CHECK_OK(psl_csrk_pointers(in.nrows, K->row_ptr, in.csrk_k, 3, 5, &p, &nsr, &nssr, &kk));
        free(p);
        CHECK(in.csrk_device_overhead_bytes ==
              in.csrk_overhead_bytes + 4 * psl_csrk_ptr_count(kk, nsr, nssr));
        CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SR_ROWS", NULL));
        CHECK_OK(psl_option_set("PSL_CUDA_CSRK_SSR_SRS", NULL));
        psl_matrix_destroy(&K);
        /* a reordered matrix goes up too: its own pointers and the device
         * grouping of its (reordered) rows; perm and inverse apart */
        K = csrk_convert(G, PSL_CSRK_REORDER_RCM, 3, 0, 0, PSL_FP64);
        if (K) {
            CHECK_OK(psl_matrix_get_info(K, &in));
            CHECK_OK(psl_csrk_device_sizes(in.csrk_k, in.nrows, in.nnz, &sr, &ssr));
            psl_csrk_count(in.nrows, K->row_ptr, in.csrk_k, sr, ssr, &nsr, &nssr, &kk);
            CHECK(in.csrk_perm_bytes == 8 * (int64_t)in.nrows &&
                  in.csrk_device_overhead_bytes ==
                      in.csrk_overhead_bytes + 4 * psl_csrk_ptr_count(kk, nsr, nssr));
        }
        psl_matrix_destroy(&K);
        psl_matrix_destroy(&G);
    }
}

TEST(group_hand_computed)
{
    /* rows of 3, 0, 5, 1, 1, 1, 9, 0 nonzeros (20): size 2 -> share 5 */
    const int64_t cum[] = {0, 3, 3, 8, 9, 10, 11, 20, 20};
    int32_t first[9];
    int32_t ng = psl_csrk_group(8, cum, 2, first);
    /* {3,0,5} = 8 >= 5; {1,1,1,9} = 12; {0} */
    const int32_t want[] = {0, 3, 7, 8};
    CHECK(ng == 3);
    for (int g = 0; g <= 3 && g <= ng; g++)
        CHECK_MSG(first[g] == want[g], "first[%d] = %d, want %d", g, (int)first[g],
                  (int)want[g]);
    check_level("hand", first, ng, 8, cum, 2);
    /* without nonzeros: groups of size items */
    const int64_t zero[6] = {0};
    ng = psl_csrk_group(5, zero, 2, first);
    CHECK(ng == 3 && first[0] == 0 && first[1] == 2 && first[2] == 4 && first[3] == 5);
    CHECK(psl_csrk_group(0, zero, 4, first) == 0 && first[0] == 0);
}

TEST(generated_matrices)
{
    static const char *const specs[] = {"gen:hpcg:4:4:4", "gen:hpcg:5:4:3", "gen:hpcg:6:5:5"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        psl_matrix *src = NULL;
        CHECK_OK(psl_generate(&src, specs[i]));
        if (!src)
            continue;
        check_all(specs[i], src, 1);
        /* explicit sizes, large and small */
        static const int32_t sz[][3] = {{2, 1, 0}, {3, 1, 1}, {3, 7, 3}, {3, 1000, 1000},
                                        {2, 100000, 0}, {3, 64, 2}};
        for (size_t j = 0; j < sizeof sz / sizeof sz[0]; j++) {
            psl_matrix *A = convert_csrk(src, PSL_FP64, sz[j][0], sz[j][1], sz[j][2]);
            if (!A)
                continue;
            char l[96];
            snprintf(l, sizeof l, "%s sr %d ssr %d", specs[i], (int)sz[j][1], (int)sz[j][2]);
            check_grouping(l, A, sz[j][0], sz[j][1], sz[j][2]);
            check_spmv(l, A);
            psl_matrix_destroy(&A);
        }
        psl_matrix_destroy(&src);
    }
}

/* A CSR matrix from per-row lengths, columns 0, 1, ... of each row. */
static psl_matrix *from_lengths(int32_t nrows, int32_t ncols, const int32_t *len)
{
    int64_t *rp = malloc(((size_t)nrows + 1) * sizeof *rp);
    rp[0] = 0;
    for (int32_t i = 0; i < nrows; i++)
        rp[i + 1] = rp[i] + len[i];
    int32_t *ci = malloc((size_t)(rp[nrows] ? rp[nrows] : 1) * sizeof *ci);
    double *v = malloc((size_t)(rp[nrows] ? rp[nrows] : 1) * sizeof *v);
    unsigned long long s = 5;
    for (int32_t i = 0; i < nrows; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            ci[k] = (int32_t)((k - rp[i]) * 7 % ncols);
            v[k] = 2 * psl_test_uniform(&s) - 1;
        }
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, nrows, ncols, rp, ci, v, PSL_FP64, 0, 0));
    free(rp);
    free(ci);
    free(v);
    return A;
}

TEST(empty_rows_empty_matrix_huge_row)
{
    enum { N = 3000 };
    int32_t *len = calloc(N, sizeof *len);
    /* empty rows: every third, and a run of 500 */
    for (int32_t i = 0; i < N; i++)
        len[i] = (i % 3 == 1 || (i >= 1000 && i < 1500)) ? 0 : 1 + i % 9;
    psl_matrix *A = from_lengths(N, 400, len);
    if (A)
        check_all("empty rows", A, 1);
    psl_matrix_destroy(&A);

    /* one huge row among short ones: it closes its group alone */
    for (int32_t i = 0; i < N; i++)
        len[i] = i == 1234 ? 2000 : 2;
    A = from_lengths(N, 2500, len);
    if (A) {
        check_all("huge row", A, 0);
        psl_matrix *K = convert_csrk(A, PSL_FP64, 2, 8, 0);
        if (K) {
            const int32_t *srp;
            int32_t nsr;
            CHECK_OK(psl_matrix_csrk_view(K, NULL, NULL, NULL, NULL, NULL, &nsr, &srp, NULL,
                                          NULL));
            int found = 0;
            for (int32_t j = 0; j < nsr; j++)
                found += srp[j + 1] == 1235;
            CHECK_MSG(found == 1, "the huge row does not end its super-row");
        }
        psl_matrix_destroy(&K);
    }
    psl_matrix_destroy(&A);

    /* no nonzeros at all, rows or not */
    for (int32_t i = 0; i < N; i++)
        len[i] = 0;
    A = from_lengths(N, 10, len);
    if (A)
        check_all("no nonzeros", A, 0);
    psl_matrix_destroy(&A);
    A = from_lengths(0, 0, len);
    if (A)
        check_all("0 x 0", A, 0);
    psl_matrix_destroy(&A);
    A = from_lengths(1, 1, (int32_t[]){1});
    if (A)
        check_all("1 x 1", A, 0);
    psl_matrix_destroy(&A);
    free(len);
}

/* FP16 values at the edges of the type (subnormals, the smallest normal,
 * the largest finite, signed zeros) decode exactly in the kernel. */
TEST(fp16_value_edges)
{
    static const double vals[] = {0x1p-24,  -0x1p-24, 0x3ffp-24, 0x1p-14,    -0x1p-14,
                                  65504.0,  -65504.0, 0.0,       -0.0,       1.0,
                                  -0x1.ffcp-15, 0.5,  3.0e-5,    -6.0e-6,    1024.5};
    enum { NV = sizeof vals / sizeof vals[0], N = 3000 };
    int64_t *rp = malloc((N + 1) * sizeof *rp);
    int32_t *ci = malloc((size_t)N * 3 * sizeof *ci);
    double *v = malloc((size_t)N * 3 * sizeof *v);
    rp[0] = 0;
    for (int32_t i = 0; i < N; i++) {
        for (int j = 0; j < 3; j++) {
            ci[3 * i + j] = (i + 7 * j) % N;
            v[3 * i + j] = vals[(3 * i + j) % NV];
        }
        /* ascending columns within the row */
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++)
                if (ci[3 * i + b] < ci[3 * i + a]) {
                    int32_t t = ci[3 * i + a];
                    ci[3 * i + a] = ci[3 * i + b];
                    ci[3 * i + b] = t;
                }
        rp[i + 1] = 3 * (i + 1);
    }
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_create_csr(&A, N, N, rp, ci, v, PSL_FP64, 0, PSL_CSR_STRICT));
    if (A)
        for (int32_t k = 1; k <= 3; k++) {
            psl_matrix *K = convert_csrk(A, PSL_FP16, k, 0, 0);
            if (K) {
                check_spmv("fp16 edges", K);
                /* the stored values are the FP16 roundings of vals */
                const void *sv;
                CHECK_OK(psl_matrix_csrk_view(K, NULL, NULL, NULL, &sv, NULL, NULL, NULL,
                                              NULL, NULL));
                for (int64_t e = 0; e < 3 * N; e++)
                    if (((const uint16_t *)sv)[e] != psl_float_to_half((float)v[e])) {
                        CHECK_MSG(0, "entry %lld: fp16 bits 0x%04x for %g", (long long)e,
                                  ((const uint16_t *)sv)[e], v[e]);
                        break;
                    }
            }
            psl_matrix_destroy(&K);
        }
    psl_matrix_destroy(&A);
    free(rp);
    free(ci);
    free(v);
}

TEST(real_matrices)
{
    if (!psl_test_matrices_available("real_matrices"))
        return;
    static const char *const names[] = {"bcsstk13", "hangGlider_2", "rajat01", "wiki-Vote",
                                        "beacxc",   "ash219",       "OPF_6000", "Dubcova1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%s.mtx", psl_test_matrix_dir(), names[i]);
        psl_matrix *M = NULL, *S = NULL;
        CHECK_OK(psl_mm_read(&M, path));
        if (!M)
            continue;
        /* row scaling keeps every value within FP16's range */
        CHECK_OK(psl_matrix_scale_rows(&S, M, NULL));
        if (S)
            check_all(names[i], S, 1);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&M);
    }
}

/* The memory overhead target on every matrix of ../shared/matrices: CSR-k
 * (k = 3, the model's sizes) adds under 2% to its CSR bytes, on the host
 * and on the device (the host's pointers plus the GPU kernel's grouping,
 * psl_matrix_info.csrk_device_overhead_bytes). */
static void overhead_of(const char *name, const char *path, void *ctx)
{
    (void)ctx;
    psl_matrix *M = NULL;
    CHECK_OK(psl_mm_read(&M, path));
    psl_matrix *K = M ? convert_csrk(M, PSL_FP64, 3, 0, 0) : NULL;
    if (K)
        check_overhead(name, K);
    psl_matrix_destroy(&K);
    psl_matrix_destroy(&M);
}

TEST(overhead_every_shared_matrix)
{
    const int n = psl_test_each_shared_matrix("overhead_every_shared_matrix", overhead_of, NULL);
    if (n > 0)
        printf("  overhead under 2%% of CSR on %d shared matrices, host and device\n", n);
}

TEST(model_sizes)
{
    int32_t sr = -7, ssr = -7;
    /* constant-time fit: non-increasing in d, at least 1 */
    int32_t prev_sr = INT32_MAX, prev_ssr = INT32_MAX;
    for (double d = 0; d < 1e5; d = d * 1.5 + 0.25) {
        CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, d, &sr, &ssr));
        CHECK(sr >= 1 && ssr >= 1 && sr <= prev_sr && ssr <= prev_ssr);
        prev_sr = sr;
        prev_ssr = ssr;
        int32_t sr2, ssr2;
        CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 2, d, &sr2, &ssr2));
        CHECK(sr2 == sr * ssr && ssr2 == 0);
        CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CUDA, 3, d, &sr2, &ssr2));
        CHECK(sr2 >= 1 && ssr2 >= 1);
    }
    /* the table's own formula at d = 27 */
    int n = 0;
    const psl_csrk_fit *t = psl_csrk_model_table(PSL_CSRK_DEVICE_CPU, &n);
    CHECK(t && n >= 1 && isinf(t[n - 1].d_max));
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 27.0, &sr, &ssr));
    CHECK(t && sr == (int32_t)nearbyint(t[0].sr_a - t[0].sr_b * log(27.0)));
    t = psl_csrk_model_table(PSL_CSRK_DEVICE_CUDA, &n);
    CHECK(t && n == 5 && t[0].d_max == 8 && t[3].d_max == 64 && t[4].lanes == 32);
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 1, 27.0, &sr, &ssr));
    CHECK(sr == 0 && ssr == 0);

    sr = ssr = 5;
    CHECK_ST(psl_csrk_model_sizes((psl_csrk_device)7, 3, 4.0, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "psl_csrk_device") != NULL);
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 4, 4.0, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "expected 1, 2 or 3") != NULL);
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, NAN, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, -1.0, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 4.0, NULL, &ssr),
             PSL_ERR_NULL_POINTER);
    CHECK(sr == 5 && ssr == 5);
}

TEST(bad_parameters)
{
    psl_matrix *src = NULL, *A = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:3:3:3"));
    if (!src)
        return;
    static const struct {
        psl_scalar vt;
        int32_t k, sr, ssr;
        const char *msg;
    } bad[] = {
        {PSL_BF16, 3, 0, 0, "CSR-k stores FP64, FP32 or FP16 values, not BF16"},
        {PSL_FP64, 0, 0, 0, "csrk_k = 0: expected 1"},
        {PSL_FP64, 4, 0, 0, "csrk_k = 4: expected 1"},
        {PSL_FP64, 3, -1, 0, "csrk_sr_rows = -1"},
        {PSL_FP64, 3, 0, -2, "csrk_ssr_srs = -2"},
        {PSL_FP64, 1, 8, 0, "k = 1 has no super-rows"},
        {PSL_FP64, 2, 8, 4, "k = 2 has no super-super-rows"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        psl_convert_options opt;
        psl_convert_options_init(&opt);
        opt.format = PSL_FORMAT_CSRK;
        opt.value_type = bad[i].vt;
        opt.csrk_k = bad[i].k;
        opt.csrk_sr_rows = bad[i].sr;
        opt.csrk_ssr_srs = bad[i].ssr;
        A = (psl_matrix *)&opt; /* must become NULL */
        CHECK_ST(psl_matrix_convert(&A, src, &opt), PSL_ERR_INVALID_VALUE);
        CHECK_MSG(strstr(psl_last_error_message(), bad[i].msg) != NULL, "case %zu: '%s'", i,
                  psl_last_error_message());
        CHECK(A == NULL);
        psl_matrix_info info;
        CHECK_ST(psl_matrix_estimate(src, &opt, &info), PSL_ERR_INVALID_VALUE);
    }
    /* the view is CSR-k's only; a CSR-k matrix is no FP64 CSR source */
    CHECK_ST(psl_matrix_csrk_view(src, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "needs a CSR-k matrix") != NULL);
    CHECK_ST(psl_matrix_csrk_view(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
             PSL_ERR_NULL_POINTER);
    A = convert_csrk(src, PSL_FP64, 3, 0, 0);
    psl_matrix *B = NULL;
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    CHECK_ST(psl_matrix_convert(&B, A, &opt), PSL_ERR_WRONG_FORMAT);
    CHECK(strstr(psl_last_error_message(), "CSR-k") != NULL);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&src);
}

/* psl_matrix_estimate gives the statistics of the build without it. */
TEST(estimate_is_the_build)
{
    psl_matrix *src = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:4:3:3"));
    if (!src)
        return;
    for (int32_t k = 1; k <= 3; k++)
        for (size_t v = 0; v < sizeof val_types / sizeof val_types[0]; v++) {
            psl_convert_options opt;
            psl_convert_options_init(&opt);
            opt.format = PSL_FORMAT_CSRK;
            opt.value_type = val_types[v];
            opt.csrk_k = k;
            opt.csrk_sr_rows = k >= 2 ? 5 * k : 0;
            opt.csrk_ssr_srs = k == 3 ? 3 : 0;
            psl_matrix *A = NULL;
            psl_matrix_info ei, bi;
            CHECK_OK(psl_matrix_estimate(src, &opt, &ei));
            CHECK_OK(psl_matrix_convert(&A, src, &opt));
            if (!A)
                continue;
            CHECK_OK(psl_matrix_get_info(A, &bi));
            CHECK_MSG(ei.format == bi.format && ei.value_type == bi.value_type &&
                          ei.bytes == bi.bytes && ei.csr_bytes == bi.csr_bytes &&
                          ei.nnz == bi.nnz && ei.csrk_k == bi.csrk_k &&
                          ei.csrk_super_rows == bi.csrk_super_rows &&
                          ei.csrk_super_super_rows == bi.csrk_super_super_rows &&
                          ei.csrk_overhead_bytes == bi.csrk_overhead_bytes &&
                          ei.csrk_device_overhead_bytes == bi.csrk_device_overhead_bytes,
                      "k=%d %s: estimate %lld bytes / %d super-rows, build %lld / %d", (int)k,
                      psl_scalar_name(val_types[v]), (long long)ei.bytes,
                      (int)ei.csrk_super_rows, (long long)bi.bytes, (int)bi.csrk_super_rows);
            psl_matrix_destroy(&A);
        }
    psl_matrix_destroy(&src);
}

TEST(binary_round_trip_and_damage)
{
    psl_matrix *src = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:4:4:3"));
    if (!src)
        return;
    char path[] = "/tmp/test_csrk_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    for (int32_t k = 1; k <= 3; k++)
        for (size_t v = 0; v < sizeof val_types / sizeof val_types[0]; v++) {
            psl_matrix *A = convert_csrk(src, val_types[v], k, 0, 0), *B = NULL;
            if (!A)
                continue;
            CHECK_OK(psl_matrix_save(A, path));
            CHECK_OK(psl_matrix_load(&B, path));
            if (!B) {
                psl_matrix_destroy(&A);
                continue;
            }
            psl_matrix_info ia, ib;
            CHECK_OK(psl_matrix_get_info(A, &ia));
            CHECK_OK(psl_matrix_get_info(B, &ib));
            CHECK(memcmp(&ia, &ib, sizeof ia) == 0);
            const int64_t *rpa, *rpb;
            const int32_t *cia, *cib, *sra, *srb, *ssa, *ssb;
            const void *va, *vb;
            int32_t nsr, nssr;
            CHECK_OK(psl_matrix_csrk_view(A, NULL, &rpa, &cia, &va, NULL, &nsr, &sra, &nssr,
                                          &ssa));
            CHECK_OK(psl_matrix_csrk_view(B, NULL, &rpb, &cib, &vb, NULL, NULL, &srb, NULL,
                                          &ssb));
            CHECK(memcmp(rpa, rpb, ((size_t)ia.nrows + 1) * 8) == 0);
            CHECK(memcmp(cia, cib, (size_t)ia.nnz * 4) == 0);
            CHECK(memcmp(va, vb, (size_t)ia.nnz * vsize(val_types[v])) == 0);
            CHECK((sra == NULL) == (srb == NULL) && (ssa == NULL) == (ssb == NULL));
            if (sra && srb)
                CHECK(memcmp(sra, srb, ((size_t)nsr + 1) * 4) == 0);
            if (ssa && ssb)
                CHECK(memcmp(ssa, ssb, ((size_t)nssr + 1) * 4) == 0);
            char l[64];
            snprintf(l, sizeof l, "loaded k=%d %s", (int)k, psl_scalar_name(val_types[v]));
            check_spmv(l, B);
            psl_matrix_destroy(&A);
            psl_matrix_destroy(&B);
        }
    remove(path);

    /* damaged pointers are caught by the format's validation */
    const psl_format_ops *ops = psl_format_ops_of(PSL_FORMAT_CSRK);
    psl_matrix *A = convert_csrk(src, PSL_FP64, 3, 4, 3);
    if (A && ops) {
        const int32_t nsr0 = A->nslices, nssr0 = A->sigma;
        CHECK_OK(ops->check_header("t", A));
        CHECK_OK(ops->validate("t", A));
        int32_t *p = (int32_t *)A->payload;
        int32_t keep = p[1];
        p[1] = p[2];
        CHECK_ST(ops->validate("t", A), PSL_ERR_FILE_CORRUPT);
        CHECK(strstr(psl_last_error_message(), "sr_ptr[1]") != NULL);
        p[1] = keep;
        int32_t *q = p + A->nslices + 1;
        keep = q[A->sigma];
        q[A->sigma] = A->nslices - 1;
        CHECK_ST(ops->validate("t", A), PSL_ERR_FILE_CORRUPT);
        CHECK(strstr(psl_last_error_message(), "ssr_ptr runs from 0") != NULL);
        q[A->sigma] = keep;
        CHECK_OK(ops->validate("t", A));
        A->C = 4;
        CHECK_ST(ops->check_header("t", A), PSL_ERR_FILE_CORRUPT);
        CHECK(strstr(psl_last_error_message(), "k = 4") != NULL);
        A->C = 3;
        A->nslices = A->nrows + 1;
        CHECK_ST(ops->check_header("t", A), PSL_ERR_FILE_CORRUPT);
        A->nslices = nsr0;
        A->sigma = nsr0 + 1;
        CHECK_ST(ops->check_header("t", A), PSL_ERR_FILE_CORRUPT);
        CHECK(strstr(psl_last_error_message(), "super-super-rows") != NULL);
        A->sigma = nssr0;
        CHECK_OK(ops->check_header("t", A));
    }
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&src);
}

/* The bits of y do not depend on the threads or the OpenMP schedule. */
TEST(threads_and_schedules)
{
    psl_matrix *src = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:5:5:4"));
    if (!src)
        return;
    psl_matrix_info in;
    CHECK_OK(psl_matrix_get_info(src, &in));
    omp_sched_t kind0;
    int chunk0, nt0 = omp_get_max_threads();
    omp_get_schedule(&kind0, &chunk0);
    static const struct {
        omp_sched_t kind;
        int chunk, threads;
    } runs[] = {{omp_sched_static, 0, 1},  {omp_sched_dynamic, 1, 3}, {omp_sched_guided, 2, 2},
                {omp_sched_static, 1, 4},  {omp_sched_dynamic, 7, 2}};
    for (int32_t k = 1; k <= 3; k++) {
        psl_matrix *A = convert_csrk(src, PSL_FP32, k, 0, 0);
        if (!A)
            continue;
        for (size_t t = 0; t < sizeof vec_types / sizeof vec_types[0]; t++) {
            const psl_scalar vt = vec_types[t];
            void *x = make_vec(in.ncols, vt, 3);
            void *y0 = run("ref", A, x, 2.0, 0.5, vt, in.nrows, 11);
            for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
                omp_set_schedule(runs[r].kind, runs[r].chunk);
                omp_set_num_threads(runs[r].threads);
                void *y = run("omp", A, x, 2.0, 0.5, vt, in.nrows, 11);
                CHECK_MSG(memcmp(y, y0, (size_t)in.nrows * vsize(vt)) == 0,
                          "k=%d %s vectors: run %zu differs", (int)k, psl_scalar_name(vt), r);
                free(y);
            }
            omp_set_schedule(kind0, chunk0);
            omp_set_num_threads(nt0);
            free(y0);
            free(x);
        }
        psl_matrix_destroy(&A);
    }
    psl_matrix_destroy(&src);
}

/* A failed allocation anywhere in the build gives PSL_ERR_OUT_OF_MEMORY
 * and no handle; with enough allocations the build succeeds. */
TEST(out_of_memory)
{
    psl_matrix *src = NULL;
    CHECK_OK(psl_generate(&src, "gen:hpcg:3:3:3"));
    if (!src)
        return;
    int ok = 0;
    for (int k = 2; k <= 3; k++)
        for (int64_t n = 0; n < 40 && !ok; n++) {
            psl_convert_options opt;
            psl_convert_options_init(&opt);
            opt.format = PSL_FORMAT_CSRK;
            opt.csrk_k = k;
            psl_matrix *A = NULL;
            CHECK_OK(psl_debug_fail_alloc_after(n));
            psl_status st = psl_matrix_convert(&A, src, &opt);
            CHECK_OK(psl_debug_fail_alloc_after(-1));
            CHECK_MSG(st == PSL_OK || st == PSL_ERR_OUT_OF_MEMORY, "k=%d after %lld: %s", k,
                      (long long)n, psl_status_string(st));
            CHECK((st == PSL_OK) == (A != NULL));
            if (st == PSL_OK) {
                check_grouping("oom", A, k, 0, 0);
                ok = 1;
            }
            psl_matrix_destroy(&A);
        }
    CHECK(ok);
    psl_matrix_destroy(&src);
}

/* packsell with --format csrk: info reports the overhead, convert writes a
 * file that loads as CSR-k, bad CSR-k options are usage errors (exit 2). */
TEST(command_line)
{
    const char *exe = getenv("PSL_PACKSELL_EXE");
    if (!exe || !*exe) {
        printf("SKIP command_line: PSL_PACKSELL_EXE is not set\n");
        return;
    }
    char out[] = "/tmp/test_csrk_cli_XXXXXX";
    int fd = mkstemp(out);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    char line[8192], text[8192];
    static const struct {
        const char *args;
        int rc;
        const char *want;
    } cases[] = {
        {"info gen:hpcg:3:3:3 --format csrk --json", 0, "\"csrk_overhead_bytes\": "},
        {"info gen:hpcg:3:3:3 --format csrk --csrk-k 2 --csrk-sr 16", 0, "csrk overhead"},
        {"info gen:hpcg:3:3:3 --format csrk --values fp16 --csrk-k 3 --csrk-sr 4 --csrk-ssr 2",
         0, "k = 3, "},
        {"info gen:hpcg:3:3:3 --format csrk --csrk-k 4", 2, "--csrk-k"},
        {"info gen:hpcg:3:3:3 --format csrk --csrk-k 1 --csrk-sr 8", 2,
         "--csrk-sr does not apply to --csrk-k 1"},
        {"info gen:hpcg:3:3:3 --format csrk --csrk-k 2 --csrk-ssr 8", 2,
         "--csrk-ssr needs --csrk-k 3"},
        {"info gen:hpcg:3:3:3 --format csrk --csrk-sr -1", 2, "--csrk-sr"},
        {"info gen:hpcg:3:3:3 --format sell --csrk-k 2", 2,
         "--csrk-k applies only to --format csrk"},
        {"info gen:hpcg:3:3:3 --format csrk --slice 8", 2, "--slice does not apply to --format "
                                                           "csrk"},
        {"info gen:hpcg:3:3:3 --format csrk --values bf16", 2, "not available for --format "
                                                               "csrk"},
        {"bench gen:hpcg:3:3:3 --format sell", 2, "--format takes csrk"},
        {"bench gen:hpcg:3:3:3 --format csrk --kernels csr-fp64", 2, "exclude each other"},
        {"bench gen:hpcg:3:3:3 --kernels csrk-bf16", 2, "not available for csrk"},
        {"bench gen:hpcg:3:3:3 --format csrk --csrk-k 2 --reps 1 --min-time 0 --warmup 0", 0,
         "csrk-fp16"},
        {"info gen:lap2d:20 --format csrk --csrk-reorder bandk", 0, "(before reordering "},
        {"info gen:lap2d:20 --format csrk --csrk-reorder RCM --json", 0,
         "\"csrk_perm_bytes\": 3200"},
        {"info gen:lap2d:20 --format csrk --json", 0, "\"csrk_perm_bytes\": 0"},
        {"info gen:lap2d:20 --format csrk --csrk-reorder metis", 2,
         "unknown --csrk-reorder 'metis' (expected none, rcm or bandk)"},
        {"info gen:lap2d:20 --format sell --csrk-reorder rcm", 2,
         "--csrk-reorder applies only to --format csrk"},
        {"bench gen:hpcg:3:3:3 --format csrk --csrk-reorder bandk --reps 1 --min-time 0 "
         "--warmup 0",
         0, "csrk-fp16"},
        {"spmv gen:hpcg:2:2:2 --format csrk --csrk-reorder rcm --x random:5 -o -", 0,
         "%%MatrixMarket matrix array real general\n64 1\n-6.3187789609273"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(line, sizeof line, "'%s' %s >'%s' 2>&1", exe, cases[i].args, out);
        int st = system(line);
        text[0] = '\0';
        FILE *f = fopen(out, "rb");
        if (f) {
            size_t n = fread(text, 1, sizeof text - 1, f);
            text[n] = '\0';
            fclose(f);
        }
        CHECK_MSG(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == cases[i].rc,
                  "packsell %s: status %d, expected %d:\n%s", cases[i].args,
                  st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1, cases[i].rc, text);
        CHECK_MSG(strstr(text, cases[i].want) != NULL, "packsell %s: no '%s' in:\n%s",
                  cases[i].args, cases[i].want, text);
    }
    /* spmv: the same y file as CSR's, FP32 values and vectors */
    char y1[600], y2[600];
    static char t1[1 << 16], t2[1 << 16];
    snprintf(y1, sizeof y1, "%s.y1", out);
    snprintf(y2, sizeof y2, "%s.y2", out);
    static const char *const fmts[] = {"csr", "csrk --csrk-k 3 --csrk-sr 3 --csrk-ssr 2"};
    for (int i = 0; i < 2; i++) {
        snprintf(line, sizeof line,
                 "'%s' spmv gen:hpcg:3:3:3 --format %s --values fp32 --vectors fp32 --x "
                 "random:5 --alpha 1.25 -o '%s' >/dev/null 2>&1",
                 exe, fmts[i], i ? y2 : y1);
        CHECK_MSG(system(line) == 0, "packsell spmv --format %s failed", fmts[i]);
    }
    FILE *f1 = fopen(y1, "rb"), *f2 = fopen(y2, "rb");
    CHECK(f1 && f2);
    if (f1 && f2) {
        size_t n1 = fread(t1, 1, sizeof t1 - 1, f1), n2 = fread(t2, 1, sizeof t2 - 1, f2);
        CHECK(n1 > 100 && n1 == n2 && memcmp(t1, t2, n1) == 0);
    }
    if (f1)
        fclose(f1);
    if (f2)
        fclose(f2);
    remove(y1);
    remove(y2);

    /* convert writes a CSR-k file */
    char bin[600];
    snprintf(bin, sizeof bin, "%s.psl", out);
    snprintf(line, sizeof line,
             "'%s' convert gen:hpcg:3:3:3 --format csrk --csrk-k 3 --csrk-sr 5 --csrk-ssr 3 "
             "-o '%s' >/dev/null 2>&1",
             exe, bin);
    CHECK(system(line) == 0);
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_load(&A, bin));
    if (A) {
        check_grouping("converted file", A, 3, 5, 3);
        psl_matrix_info in;
        CHECK_OK(psl_matrix_get_info(A, &in));
        CHECK(in.format == PSL_FORMAT_CSRK && in.csrk_k == 3);
    }
    psl_matrix_destroy(&A);
    remove(bin);
    remove(out);
}

static const psl_test_case tests[] = {
    {"overhead_every_shared_matrix", overhead_every_shared_matrix},
    {"device_overhead_counts", device_overhead_counts},
    {"view_of_caller_arrays", view_of_caller_arrays},
    {"threads_and_schedules", threads_and_schedules},
    {"out_of_memory", out_of_memory},
    {"command_line", command_line},
    {"group_hand_computed", group_hand_computed},
    {"generated_matrices", generated_matrices},
    {"empty_rows_empty_matrix_huge_row", empty_rows_empty_matrix_huge_row},
    {"fp16_value_edges", fp16_value_edges},
    {"real_matrices", real_matrices},
    {"model_sizes", model_sizes},
    {"bad_parameters", bad_parameters},
    {"estimate_is_the_build", estimate_is_the_build},
    {"binary_round_trip_and_damage", binary_round_trip_and_damage},
};
PSL_TEST_MAIN(tests)
