/*
 * test_gpu_big.c -- one matrix with more than 2^31 stored words on the GPU:
 * HPCG 9:9:8 (67M rows, 1.80G nonzeros) in PackSELL E8M21 (D = 1, so every
 * column jump needs a dummy word: about 2.4G words, 9.6 GB). The device SpMV
 * must equal the CPU PackSELL SpMV bit for bit on every row, and both must
 * agree with an FP64 CSR dot product (the independent oracle) on a sample of
 * rows, including the last rows, whose words lie beyond 2^31.
 *
 * It needs a CUDA device with 12 GB free and a host with 64 GB of memory;
 * otherwise (or in a build without CUDA) it prints SKIP and passes. It takes
 * about a minute on the H200 host (generation and conversion on the CPU).
 * PSL_BIG_SPEC overrides the matrix (e.g. "hpcg:6:6:6" for a quick dry run,
 * which then does not reach 2^31 words and says so).
 */
#include "packsell.h"
#include "harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PSL_HAVE_CUDA
#include <cuda_runtime.h>

/* Deterministic x in [-1, 1), exactly representable in float. */
static float x_at(int64_t j) { return (float)((int32_t)((uint64_t)(j * 2654435761u) % 2001u) - 1000) / 1024.0f; }

/* FP64 reference of row i and the sum of |a_ij x_j| (the error scale). */
static double row_ref(const psl_matrix *csr, int32_t i, double *scale)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    psl_matrix_csr_view(csr, &rp, &ci, &v);
    double s = 0, a = 0;
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
        s += v[k] * (double)x_at(ci[k]);
        a += fabs(v[k] * (double)x_at(ci[k]));
    }
    *scale = a;
    return s;
}

static void big_packsell_matches_cpu(void)
{
    const char *spec = getenv("PSL_BIG_SPEC") ? getenv("PSL_BIG_SPEC") : "hpcg:9:9:8";
    psl_matrix *csr = NULL, *P = NULL;
    psl_dmatrix *dA = NULL;
    float *x = NULL, *y_cpu = NULL, *y_gpu = NULL;
    void *dx = NULL, *dy = NULL;

    CHECK_OK(psl_generate(&csr, spec));
    if (!csr)
        return;
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = PSL_FORMAT_PACKSELL;
    opt.codec.exp_bits = 8;
    opt.codec.man_bits = 21; /* D = 1 */
    CHECK_OK(psl_matrix_convert(&P, csr, &opt));
    psl_matrix_info info;
    CHECK_OK(psl_matrix_get_info(P, &info));
    printf("  %s: %d rows, %lld nonzeros, %lld words (%lld dummies), 2^31 = %lld\n", spec,
           info.nrows, (long long)info.nnz, (long long)info.stored, (long long)info.dummies,
           (long long)INT32_MAX + 1);
    if (!getenv("PSL_BIG_SPEC"))
        CHECK(info.stored > (int64_t)INT32_MAX); /* the point of the test */

    const int32_t n = info.nrows, m = info.ncols;
    x = malloc((size_t)m * sizeof *x);
    y_cpu = malloc((size_t)n * sizeof *y_cpu);
    y_gpu = malloc((size_t)n * sizeof *y_gpu);
    CHECK(x && y_cpu && y_gpu);
    if (!x || !y_cpu || !y_gpu)
        goto done;
    for (int64_t j = 0; j < m; j++)
        x[j] = x_at(j);
    CHECK_OK(psl_spmv(1.0, P, x, 0.0, y_cpu, PSL_FP32));

    CHECK_OK(psl_dmatrix_upload(&dA, P, NULL));
    CHECK(cudaMalloc(&dx, (size_t)m * sizeof *x) == cudaSuccess);
    CHECK(cudaMalloc(&dy, (size_t)n * sizeof *y_gpu) == cudaSuccess);
    if (!dA || !dx || !dy)
        goto done;
    CHECK(cudaMemcpy(dx, x, (size_t)m * sizeof *x, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemset(dy, 0xff, (size_t)n * sizeof *y_gpu) == cudaSuccess); /* NaN poison */
    CHECK_OK(psl_dspmv(1.0, dA, dx, 0.0, dy, PSL_FP32, NULL, 0, NULL));
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(cudaMemcpy(y_gpu, dy, (size_t)n * sizeof *y_gpu, cudaMemcpyDeviceToHost) == cudaSuccess);

    /* bitwise equal to the CPU kernel on every row */
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&y_gpu[i], &y_cpu[i], sizeof(float)) != 0 && differ++ == 0)
            first = i;
    if (differ)
        printf("  %lld rows differ from the CPU, first %lld: gpu %.9g cpu %.9g\n",
               (long long)differ, (long long)first, y_gpu[first], y_cpu[first]);
    CHECK(differ == 0);

    /* both near the FP64 oracle on sampled rows, the last 4096 included
     * (E8M21 values: 2^-22 relative; float sums: nnz_row * 2^-24) */
    int64_t bad = 0;
    for (int64_t s = 0; s < 20000; s++) {
        int32_t i = s < 4096 ? n - 1 - (int32_t)s : (int32_t)((uint64_t)s * 2654435761u % (uint64_t)n);
        double scale, ref = row_ref(csr, i, &scale);
        if (fabs((double)y_gpu[i] - ref) > 64.0 * 0x1p-24 * scale + 1e-30)
            if (bad++ < 5)
                printf("  row %d: gpu %.9g, FP64 %.17g (scale %.3g)\n", i, y_gpu[i], ref, scale);
    }
    CHECK(bad == 0);

done:
    cudaFree(dx);
    cudaFree(dy);
    free(x);
    free(y_cpu);
    free(y_gpu);
    psl_dmatrix_destroy(&dA);
    psl_matrix_destroy(&P);
    psl_matrix_destroy(&csr);
}

/* Why the test cannot run here, or NULL. */
static const char *skip_reason(void)
{
    int count = 0;
    if (psl_cuda_device_count(&count) != PSL_OK || count == 0)
        return "no CUDA device (GPU tests skipped)";
    if (getenv("PSL_BIG_SPEC"))
        return NULL;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || free_b < ((size_t)12 << 30))
        return "less than 12 GB free on the device";
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || psize <= 0 || (double)pages * (double)psize < 64.0 * (1 << 30))
        return "less than 64 GB of host memory";
    return NULL;
}
#endif

int main(void)
{
#ifdef PSL_HAVE_CUDA
    const char *why = skip_reason();
    if (why) {
        printf("SKIP: %s\n", why);
        return PSL_TEST_SKIPPED;
    }
    psl_t_failures_in_test = 0;
    big_packsell_matches_cpu();
    printf("%s big_packsell_matches_cpu (%d checks, %d failed)\n",
           psl_t_failures_in_test ? "FAILED" : "ok", psl_t_checks, psl_t_failures_in_test);
    return psl_t_failures_in_test ? 1 : 0;
#else
    (void)psl_t_checks, (void)psl_t_failures_in_test; /* the harness is unused here */
    printf("SKIP: no CUDA device (GPU tests skipped): a build without CUDA\n");
    return PSL_TEST_SKIPPED;
#endif
}
