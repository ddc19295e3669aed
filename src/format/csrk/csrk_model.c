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
 * super-super-row 20.5 - 3.5 ln d, except the rows per super-row for
 * d <= 8, 14 - 3 ln d (14 rows at d = 1, 9 at 5, 8 at 7 and 8, where the
 * authors' fit gives 9, 7, 7, 6): with the authors' 9 rows a diagonal
 * matrix's device grouping cost 2.2% of its CSR bytes (bcsstm25, over the
 * 2% bound), and the H100 sweep timed 8 to 16 rows alike on the d <= 8
 * matrices (tune-csrk at da0ad51 and 4dda778,
 * bench/results/2026-12-06-gpu-csrk-prefetch/e8-4dda778/tune); with the rescaling of their steps
 * written out as coefficients (above d = 64 the super-row 2.7 r(d) rows and
 * the super-super-row a quarter of that; the authors round r(d) before
 * scaling, the coefficients round once, which moves a size by at most one
 * or two), and their blocks: 8 x 12 threads a row each, and 32 lanes a row
 * x 8 x 2. Between d = 8 and 64 the rows are the stream kernel's (lanes 0,
 * spmv_csrk.cu), which replaced the authors' 4, 8 and 16 lanes a row there
 * (bench/NOTES.md, CSR-k): blocks of 256 threads, whose windows held 1024
 * entries when these sizes were chosen (2048 since); super-rows of about
 * 0.9 x 2048 / d rows, as
 * a - b ln d through the ends of each range (230 rows at d = 8, 115 at 16,
 * 58 at 32, 29 at 64), and 4 super-rows a block: on the H100 these sizes
 * timed within 3% of the best of a sweep of 6 x 4 sizes (8..256 rows,
 * 1..16 super-rows), or faster, on each matrix of these ranges, where
 * super-rows of 8 rows were up to 4x slower (tune-csrk at da0ad51,
 * the run kept in git at 4dda778, bench/results/2026-12-06-gpu-csrk-stream);
 * with 8 entries a thread and the prefetch (4dda778) the table's pick was
 * within 1% of the swept best on hpcg and banded and 5% on random
 * (bench/results/2026-12-06-gpu-csrk-prefetch/e8-4dda778/tune).
 *
 * Around the defaults, the tables in use: per device kind, those of
 * psl_csrk_model_load / psl_csrk_model_set, else those of the fit file the
 * option PSL_CSRK_FIT names (read once per value of the option, its error
 * kept and reported by every use), else the defaults. The state is
 * guarded by one OpenMP critical section (psl_csrk_model), so that the
 * first uses in several threads read the option's file once.
 */
#include "format/csrk/csrk.h"
#include "core/options.h"

#include <math.h>
#include <string.h>

static const psl_csrk_fit cpu_fit[] = {
    {INFINITY, 64.0, 8.0, 16.0, 2.0, 1, 1, 1},
};

/* d_max, rows per super-row (a, b), super-rows per super-super-row (a, b),
 * lanes, block_rows, block_srs */
static const psl_csrk_fit cuda_fit[] = {
    {8.0, 14.0, 3.0, 20.5, 3.5, 1, 8, 12},
    {16.0, 575.0, 166.0, 4.0, 0.0, 0, 32, 8},
    {32.0, 343.0, 82.2, 4.0, 0.0, 0, 32, 8},
    {64.0, 203.0, 41.8, 4.0, 0.0, 0, 32, 8},
    {INFINITY, 24.7725, 3.564, 6.193125, 0.891, 32, 8, 2},
};

/* The default table of dev (NULL for an unknown kind). */
static const psl_csrk_fit *default_table(psl_csrk_device dev, int *n)
{
    switch (dev) {
    case PSL_CSRK_DEVICE_CPU: *n = (int)(sizeof cpu_fit / sizeof cpu_fit[0]); return cpu_fit;
    case PSL_CSRK_DEVICE_CUDA: *n = (int)(sizeof cuda_fit / sizeof cuda_fit[0]); return cuda_fit;
    }
    return NULL;
}

/* ---- the tables in use */

static struct {
    psl_csrk_fit_tables set;  /* psl_csrk_model_load / _set; n[dev] = 0: not replaced */
    psl_csrk_fit_tables file; /* read from path */
    char path[PSL_OPTION_PATH_MAX]; /* PSL_CSRK_FIT when last read ("": none) */
    int synced;               /* path holds the option's value of the last read */
    psl_status file_status;   /* reading path: its error, kept for every use */
    int64_t file_line;
    char file_error[512];
} model;

/* model.file for the option's current value, read if it changed; the
 * kept error of its file. Under the critical section. */
static psl_status sync_file(void)
{
    char path[PSL_OPTION_PATH_MAX];
    PSL_TRY(psl_opt_get_text(PSL_OPT_CSRK_FIT, path, sizeof path));
    if (!model.synced || strcmp(path, model.path) != 0) {
        memcpy(model.path, path, sizeof path);
        model.synced = 1;
        memset(&model.file, 0, sizeof model.file);
        model.file_status = PSL_OK;
        if (path[0] && (model.file_status = psl_csrk_fit_read(path, &model.file)) != PSL_OK) {
            psl_error_info e;
            psl_last_error(&e);
            model.file_line = e.line;
            snprintf(model.file_error, sizeof model.file_error, "option PSL_CSRK_FIT: %.490s",
                     e.message);
            memset(&model.file, 0, sizeof model.file);
        }
    }
    if (model.file_status != PSL_OK)
        return psl_error_at(model.file_status, model.file_line, -1, -1, "%s", model.file_error);
    return PSL_OK;
}

/* The table in use for dev (a known kind) into *t, *n: on an error of
 * PSL_CSRK_FIT's file, that error with the default table. */
static psl_status current(psl_csrk_device dev, const psl_csrk_fit **t, int *n)
{
    psl_status st = PSL_OK;
#pragma omp critical(psl_csrk_model)
    {
        if (model.set.n[dev] > 0) {
            *t = model.set.rows[dev];
            *n = model.set.n[dev];
        } else if ((st = sync_file()) == PSL_OK && model.file.n[dev] > 0) {
            *t = model.file.rows[dev];
            *n = model.file.n[dev];
        } else {
            *t = default_table(dev, n);
        }
    }
    return st;
}

const psl_csrk_fit *psl_csrk_model_table(psl_csrk_device dev, int *n)
{
    const psl_csrk_fit *t = NULL;
    if (!default_table(dev, n))
        return NULL;
    (void)current(dev, &t, n); /* an error: the defaults (psl_csrk_model_sizes reports it) */
    return t;
}

/* The row of table t (n rows) for d. */
static const psl_csrk_fit *row_for(const psl_csrk_fit *t, int n, double mean_row_nnz)
{
    const double d = mean_row_nnz < 1 ? 1 : mean_row_nnz;
    int i = 0;
    while (i + 1 < n && d > t[i].d_max)
        i++;
    return &t[i];
}

const psl_csrk_fit *psl_csrk_model_fit(psl_csrk_device dev, double mean_row_nnz)
{
    int n = 0;
    const psl_csrk_fit *t = psl_csrk_model_table(dev, &n);
    return row_for(t, n, mean_row_nnz);
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
    if (!default_table(device, &n))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k model device %d is not a psl_csrk_device (cpu 0, cuda 1)",
                         (int)device);
    if (k < 1 || k > 3)
        return psl_error(PSL_ERR_INVALID_VALUE, "CSR-k k = %d: expected 1, 2 or 3", (int)k);
    if (!(mean_row_nnz >= 0) || !isfinite(mean_row_nnz))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CSR-k model: nonzeros per row %g is not a finite number >= 0",
                         mean_row_nnz);
    const psl_csrk_fit *t = NULL;
    PSL_TRY(current(device, &t, &n));
    if (k == 1) {
        *sr_rows = *ssr_srs = 0;
        return PSL_OK;
    }
    const psl_csrk_fit *f = row_for(t, n, mean_row_nnz);
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

/* ---- the public calls on the tables (packsell.h) */

/* rows[0 .. n) as the library's rows (n checked by the caller). */
static void from_public(const psl_csrk_model_row *rows, int n, psl_csrk_fit *out)
{
    for (int i = 0; i < n; i++) {
        const psl_csrk_model_row *r = &rows[i];
        out[i] = (psl_csrk_fit){r->d_max, r->sr_a, r->sr_b, r->ssr_a, r->ssr_b,
                                r->lanes, r->block_rows, r->block_srs};
    }
}

/* dev's table of rows in use from now on. */
static void install(psl_csrk_device dev, const psl_csrk_fit *rows, int n)
{
#pragma omp critical(psl_csrk_model)
    {
        memcpy(model.set.rows[dev], rows, (size_t)n * sizeof *rows);
        model.set.n[dev] = n;
    }
}

psl_status psl_csrk_model_load(const char *path)
{
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_csrk_model_load: path is NULL");
    psl_csrk_fit_tables t;
    PSL_TRY(psl_csrk_fit_read(path, &t));
    for (int d = 0; d < PSL_CSRK_DEVICES; d++)
        if (t.n[d] > 0)
            install((psl_csrk_device)d, t.rows[d], t.n[d]);
    return PSL_OK;
}

psl_status psl_csrk_model_set(psl_csrk_device device, const psl_csrk_model_row *rows, int n)
{
    if (!rows)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_csrk_model_set: rows is NULL");
    psl_csrk_fit t[PSL_CSRK_MODEL_ROWS_MAX];
    if (n < 1 || n > PSL_CSRK_MODEL_ROWS_MAX) /* the row count's error, rows not read */
        return psl_csrk_fit_check(device, NULL, n, "psl_csrk_model_set");
    from_public(rows, n, t);
    PSL_TRY(psl_csrk_fit_check(device, t, n, "psl_csrk_model_set"));
    install(device, t, n);
    return PSL_OK;
}

psl_status psl_csrk_model_get(psl_csrk_device device, psl_csrk_model_row *rows, int max, int *n)
{
    if (!rows || !n)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_csrk_model_get: rows or n is NULL");
    int m = 0;
    const psl_csrk_fit *t = NULL;
    if (!default_table(device, &m))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_csrk_model_get: device %d is not a psl_csrk_device (cpu 0, cuda 1)",
                         (int)device);
    PSL_TRY(current(device, &t, &m));
    if (max < m)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_csrk_model_get: room for %d rows, the table has %d", max, m);
    for (int i = 0; i < m; i++)
        rows[i] = (psl_csrk_model_row){t[i].d_max, t[i].sr_a, t[i].sr_b, t[i].ssr_a,
                                       t[i].ssr_b, t[i].lanes, t[i].block_rows, t[i].block_srs};
    *n = m;
    return PSL_OK;
}

psl_status psl_csrk_model_save(const char *path, psl_csrk_device device,
                               const psl_csrk_model_row *rows, int n, const char *comment)
{
    if (!path || !rows)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_csrk_model_save: path or rows is NULL");
    psl_csrk_fit t[PSL_CSRK_MODEL_ROWS_MAX];
    if (n < 1 || n > PSL_CSRK_MODEL_ROWS_MAX)
        return psl_csrk_fit_check(device, NULL, n, "psl_csrk_model_save");
    from_public(rows, n, t);
    return psl_csrk_fit_write(path, device, t, n, comment);
}

void psl_csrk_model_reset(void)
{
#pragma omp critical(psl_csrk_model)
    {
        memset(&model.set, 0, sizeof model.set);
    }
}

psl_status psl_csrk_device_sizes(int32_t k, int32_t nrows, int64_t nnz, int32_t *sr,
                                 int32_t *ssr)
{
    int32_t opt_sr = 0, opt_ssr = 0;
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_CSRK_SR_ROWS, &opt_sr));
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_CSRK_SSR_SRS, &opt_ssr));
    PSL_TRY(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CUDA, k, (double)nnz / nrows, sr, ssr));
    if (opt_sr > 0 && k >= 2)
        *sr = opt_sr;
    if (opt_ssr > 0 && k == 3)
        *ssr = opt_ssr;
    return PSL_OK;
}
