/*
 * csrk_model.c -- the CSR-k tuning model: per device kind a small table of
 * fits round(a - b ln d) of the two group sizes from d = nonzeros per row,
 * one row per range of d (the GPU kernel switches to vector lanes at the
 * steps d = 8, 16, 32, 64), and psl_csrk_model_sizes that reads it in
 * constant time.
 *
 * The coefficients are data, to be refitted by a sweep per device. The CPU
 * row is provisional: super-rows of about 64 - 8 ln d rows and
 * super-super-rows of about 16 - 2 ln d super-rows, i.e. threaded units of
 * some ten thousand nonzeros (an L2-sized block at FP64) for d in 10..100.
 * The CUDA rows for d <= 8 and above 64 carry the authors' Ampere fit,
 * rows per super-row r(d) = 9.175 - 1.32 ln d and super-rows per
 * super-super-row 20.5 - 3.5 ln d, with the rescaling of their steps
 * written out as coefficients (above d = 64 the super-row 2.7 r(d) rows and
 * the super-super-row a quarter of that; the authors round r(d) before
 * scaling, the coefficients round once, which moves a size by at most one
 * or two), and their blocks: 8 x 12 threads a row each, and 32 lanes a row
 * x 8 x 2. Between d = 8 and 64 the rows are the stream kernel's (lanes 0,
 * spmv_csrk.cu), which replaced the authors' 4, 8 and 16 lanes a row there
 * (bench/NOTES.md, CSR-k): blocks of 256 threads, whose windows hold 2048
 * entries; super-rows of about 0.9 x 2048 / d rows, so that most fill one
 * window, as a - b ln d through the ends of each range (230 rows at d = 8,
 * 115 at 16, 58 at 32, 29 at 64), and 4 super-rows a block.
 */
#include "format/csrk/csrk.h"

#include <math.h>

static const psl_csrk_fit cpu_fit[] = {
    {INFINITY, 64.0, 8.0, 16.0, 2.0, 1, 1, 1},
};

/* d_max, rows per super-row (a, b), super-rows per super-super-row (a, b),
 * lanes, block_rows, block_srs */
static const psl_csrk_fit cuda_fit[] = {
    {8.0, 9.175, 1.32, 20.5, 3.5, 1, 8, 12},
    {16.0, 575.0, 166.0, 4.0, 0.0, 0, 32, 8},
    {32.0, 343.0, 82.2, 4.0, 0.0, 0, 32, 8},
    {64.0, 203.0, 41.8, 4.0, 0.0, 0, 32, 8},
    {INFINITY, 24.7725, 3.564, 6.193125, 0.891, 32, 8, 2},
};

const psl_csrk_fit *psl_csrk_model_table(psl_csrk_device dev, int *n)
{
    switch (dev) {
    case PSL_CSRK_DEVICE_CPU: *n = (int)(sizeof cpu_fit / sizeof cpu_fit[0]); return cpu_fit;
    case PSL_CSRK_DEVICE_CUDA: *n = (int)(sizeof cuda_fit / sizeof cuda_fit[0]); return cuda_fit;
    }
    return NULL;
}

const psl_csrk_fit *psl_csrk_model_fit(psl_csrk_device dev, double mean_row_nnz)
{
    int n = 0;
    const psl_csrk_fit *t = psl_csrk_model_table(dev, &n);
    const double d = mean_row_nnz < 1 ? 1 : mean_row_nnz;
    int i = 0;
    while (i + 1 < n && d > t[i].d_max)
        i++;
    return &t[i];
}

/* round(a - b ln d), at least 1 and at most 2^30. */
static int32_t fit_size(double a, double b, double lnd)
{
    double v = nearbyint(a - b * lnd);
    return v < 1 ? 1 : v > 1073741824.0 ? 1073741824 : (int32_t)v;
}

psl_status psl_csrk_model_sizes(psl_csrk_device device, int32_t k, double mean_row_nnz,
                                int32_t *sr_rows, int32_t *ssr_srs)
{
    if (!sr_rows || !ssr_srs)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_csrk_model_sizes: an output is NULL");
    int n = 0;
    if (!psl_csrk_model_table(device, &n))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k model device %d is not a psl_csrk_device (cpu 0, cuda 1)",
                         (int)device);
    if (k < 1 || k > 3)
        return psl_error(PSL_ERR_INVALID_VALUE, "CSR-k k = %d: expected 1, 2 or 3", (int)k);
    if (!(mean_row_nnz >= 0) || !isfinite(mean_row_nnz))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k model: nonzeros per row %g is not a finite number >= 0",
                         mean_row_nnz);
    if (k == 1) {
        *sr_rows = *ssr_srs = 0;
        return PSL_OK;
    }
    const psl_csrk_fit *f = psl_csrk_model_fit(device, mean_row_nnz);
    const double lnd = log(mean_row_nnz < 1 ? 1 : mean_row_nnz);
    int32_t sr = fit_size(f->sr_a, f->sr_b, lnd), ssr = fit_size(f->ssr_a, f->ssr_b, lnd);
    if (k == 2) {
        int64_t p = (int64_t)sr * ssr;
        *sr_rows = p > 1073741824 ? 1073741824 : (int32_t)p;
        *ssr_srs = 0;
    } else {
        *sr_rows = sr;
        *ssr_srs = ssr;
    }
    return PSL_OK;
}
