/*
 * test_real_matrices.c -- every matrix in ../shared/matrices is read,
 * row-scaled (G^-1 A, g_i = sum_j |a_ij|, ALGORITHMS.md §4, so that every
 * codec can hold the values), converted to every format and codec, decoded
 * back and multiplied, and compared with an FP64 CSR product computed here
 * by the simplest loop.
 */
#include "packsell.h"
#include "harness.h"

#include <dirent.h>
#include <math.h>

typedef struct {
    const char *label;
    psl_format format;
    psl_scalar value_type;
    const char *codec;
    int32_t C, sigma;
    psl_permute permute;
} variant;

static const variant variants[] = {
    {"csr-fp64", PSL_FORMAT_CSR, PSL_FP64, NULL, 0, 0, PSL_PERMUTE_IMPLICIT},
    {"csr-fp32", PSL_FORMAT_CSR, PSL_FP32, NULL, 0, 0, PSL_PERMUTE_IMPLICIT},
    {"sell-fp64", PSL_FORMAT_SELL, PSL_FP64, NULL, 32, 256, PSL_PERMUTE_IMPLICIT},
    {"sell-fp32-expl", PSL_FORMAT_SELL, PSL_FP32, NULL, 32, 256, PSL_PERMUTE_EXPLICIT},
    {"sell-fp16", PSL_FORMAT_SELL, PSL_FP16, NULL, 8, 0, PSL_PERMUTE_IMPLICIT},
    {"sell-bf16", PSL_FORMAT_SELL, PSL_BF16, NULL, 32, 64, PSL_PERMUTE_IMPLICIT},
    {"packsell-fp16", PSL_FORMAT_PACKSELL, PSL_FP64, "fp16", 32, 256, PSL_PERMUTE_IMPLICIT},
    {"packsell-fp16-expl", PSL_FORMAT_PACKSELL, PSL_FP64, "fp16", 32, 256, PSL_PERMUTE_EXPLICIT},
    {"packsell-bf16", PSL_FORMAT_PACKSELL, PSL_FP64, "bf16", 4, 512, PSL_PERMUTE_IMPLICIT},
    {"packsell-e8m21", PSL_FORMAT_PACKSELL, PSL_FP64, "e8m21", 32, 256, PSL_PERMUTE_IMPLICIT},
    {"packsell-e8m10", PSL_FORMAT_PACKSELL, PSL_FP64, "e8m10", 32, 256, PSL_PERMUTE_IMPLICIT},
    {"packsell-e8m0", PSL_FORMAT_PACKSELL, PSL_FP64, "e8m0", 1, 0, PSL_PERMUTE_IMPLICIT},
    {"packsell-e6m12", PSL_FORMAT_PACKSELL, PSL_FP64, "e6m12", 16, 32, PSL_PERMUTE_EXPLICIT},
};

/* y = A x in FP64 over the arrays of an FP64 CSR matrix (the oracle). */
static void csr_ref(const psl_matrix *A, const double *x, double *y, double *absy)
{
    psl_matrix_info in;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    psl_matrix_get_info(A, &in);
    psl_matrix_csr_view(A, &rp, &ci, &v);
    for (int32_t i = 0; i < in.nrows; i++) {
        double s = 0, a = 0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
            s += v[k] * x[ci[k]];
            a += fabs(v[k] * x[ci[k]]);
        }
        y[i] = s;
        absy[i] = a;
    }
}

static void check_matrix(const char *path)
{
    psl_matrix *raw = NULL;
    psl_status st = psl_mm_read(&raw, path);
    CHECK_MSG(st == PSL_OK, "%s: %s", path, psl_last_error_message());
    if (st != PSL_OK)
        return;
    psl_matrix *A = NULL; /* G^-1 A: every codec holds the values */
    CHECK_OK(psl_matrix_scale_rows(&A, raw, NULL));
    psl_matrix_destroy(&raw);
    if (!A)
        return;
    psl_matrix_info in;
    psl_matrix_get_info(A, &in);
    unsigned long long seed = 42;
    double *x = malloc(sizeof(double) * (size_t)(in.ncols + 1));
    double *y = malloc(sizeof(double) * (size_t)(in.nrows + 1));
    double *yref = malloc(sizeof(double) * (size_t)(in.nrows + 1));
    double *absy = malloc(sizeof(double) * (size_t)(in.nrows + 1));
    int32_t *order = malloc(sizeof(int32_t) * (size_t)(in.nrows + 1));
    for (int32_t j = 0; j < in.ncols; j++)
        x[j] = psl_test_uniform(&seed) * 2 - 1;

    for (size_t k = 0; k < sizeof variants / sizeof variants[0]; k++) {
        const variant *vt = &variants[k];
        psl_convert_options opt;
        psl_convert_options_init(&opt);
        opt.format = vt->format;
        opt.value_type = vt->value_type;
        if (vt->codec)
            psl_codec_parse(vt->codec, &opt.codec);
        if (vt->C) {
            opt.slice_height = vt->C;
            opt.sigma = vt->sigma;
        }
        opt.permute = vt->permute;
        psl_matrix *B = NULL, *D = NULL;
        st = psl_matrix_convert(&B, A, &opt);
        CHECK_MSG(st == PSL_OK, "%s %s: %s", path, vt->label, psl_last_error_message());
        if (st != PSL_OK)
            continue;
        /* decode: same pattern, values within the codec's rounding */
        st = psl_matrix_to_csr(&D, B);
        CHECK_MSG(st == PSL_OK, "%s %s decode: %s", path, vt->label, psl_last_error_message());
        psl_matrix_info dn;
        psl_matrix_get_info(D, &dn);
        CHECK_MSG(dn.nnz == in.nnz, "%s %s: decoded nnz %lld != %lld", path, vt->label,
                  (long long)dn.nnz, (long long)in.nnz);
        /* SpMV with FP64 vectors against the decoded (rounded) matrix */
        csr_ref(D, x, yref, absy);
        st = psl_spmv(1.0, B, x, 0.0, y, PSL_FP64);
        CHECK_MSG(st == PSL_OK, "%s %s spmv: %s", path, vt->label, psl_last_error_message());
        psl_matrix_row_order(B, order);
        int bad = 0;
        for (int32_t i = 0; i < in.nrows; i++) {
            int32_t orig = vt->permute == PSL_PERMUTE_EXPLICIT ? order[i] : i;
            double err = fabs(y[i] - yref[orig]);
            double tol = 64 * 0x1p-53 * (absy[orig] + 1e-300) * (1 + dn.max_row_nnz);
            if (!(err <= tol) && bad++ < 3)
                fprintf(stderr, "  %s %s row %d: y %.17g ref %.17g\n", path, vt->label, orig,
                        y[i], yref[orig]);
        }
        CHECK_MSG(bad == 0, "%s %s: %d rows off", path, vt->label, bad);
        psl_matrix_destroy(&D);
        psl_matrix_destroy(&B);
    }
    free(x);
    free(y);
    free(yref);
    free(absy);
    free(order);
    psl_matrix_destroy(&A);
}

TEST(every_shared_matrix_every_format)
{
    const char *dir = psl_test_matrix_dir();
    DIR *d = opendir(dir);
    if (!d) {
        psl_test_matrix_missing("every_shared_matrix_every_format", dir);
        return;
    }
    int count = 0;
    struct dirent *e;
    char path[8192];
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".mtx") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        check_matrix(path);
        count++;
    }
    closedir(d);
    printf("  checked %d matrices x %zu variants\n", count, sizeof variants / sizeof variants[0]);
    CHECK(count >= 31);
}

static const psl_test_case tests[] = {
    {"every_shared_matrix_every_format", every_shared_matrix_every_format},
};
PSL_TEST_MAIN(tests)
