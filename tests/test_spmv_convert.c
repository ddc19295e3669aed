/*
 * test_spmv_convert.c -- psl_spmv on handles made by the real converters
 * (psl_matrix_create_csr, psl_generate, psl_matrix_convert): every format /
 * value type / codec / vector type / C / sigma / permutation on generated
 * and random matrices, against an FP64 oracle over the rounded values that
 * psl_matrix_to_csr returns (so the tolerance covers only vector and
 * accumulation rounding), bitwise equality of the OpenMP and reference
 * kernels, and the PSL_TRACE line.
 */
#define _POSIX_C_SOURCE 200809L /* dup, fileno */
#include "spmv_fixture.h"
#include "kernels/kernels.h"

#include <math.h>
#include <omp.h>
#include <unistd.h>


/* FP64 CSR source number i (NULL when there are no more). */
static psl_matrix *source(int i, char *name, size_t len)
{
    static const char *specs[] = {"hpcg:3:3:2", "hpgmp:2:3:3", "lap2d:30:20",
                                  "banded:400:60:8:3", "powerlaw:500:6:1.5:2",
                                  "random:300:5:4", "lap3d:9:7:5"};
    const int nspecs = (int)(sizeof specs / sizeof specs[0]);
    psl_matrix *A = NULL;
    if (i < nspecs) {
        snprintf(name, len, "%s", specs[i]);
        CHECK_OK(psl_generate(&A, specs[i]));
        return A;
    }
    /* random shapes through psl_matrix_create_csr: tall with empty rows,
     * wide, scattered columns (dummy words for small D) */
    static const int shapes[][4] = {{300, 50, 4, 1}, {50, 400, 8, 0}, {40, 100000, 20, 3}};
    if (i >= nspecs + 3)
        return NULL;
    const int *s = shapes[i - nspecs];
    tcsr m = tcsr_random(s[0], s[1], s[2], s[3], 77 + (unsigned)i);
    snprintf(name, len, "random %dx%d kind %d", s[0], s[1], s[3]);
    CHECK_OK(psl_matrix_create_csr(&A, m.nrows, m.ncols, m.rp, m.ci, m.v, PSL_FP64, 0,
                                   PSL_CSR_STRICT));
    tcsr_free(&m);
    return A;
}

/* View an FP64 CSR handle as a tcsr (borrowed arrays: do not free). */
static tcsr view(const psl_matrix *A)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    psl_matrix_info info;
    psl_matrix_get_info(A, &info);
    psl_matrix_csr_view(A, &rp, &ci, &v);
    tcsr m = {info.nrows, info.ncols, (int64_t *)rp, (int32_t *)ci, (double *)v};
    return m;
}

TEST(converted_all_targets)
{
    const int32_t Cs[] = {1, 4, 32};
    const double ab[][2] = {{1.0, 0.0}, {-0.75, 0.5}, {0.1, 1.0 / 3}};
    char name[64];
    int run = 0;
    psl_matrix *src;
    /* one thread: hundreds of small conversions and SpMVs would spend their
     * time in OpenMP barriers on a loaded machine (thread-count determinism
     * is tested in test_spmv) */
    int saved_threads = omp_get_max_threads();
    omp_set_num_threads(1);
    for (int si = 0; (src = source(si, name, sizeof name)) != NULL; si++) {
        psl_matrix_info sinfo;
        CHECK_OK(psl_matrix_get_info(src, &sinfo));
        for (int t = 0; t < FX_NKINDS; t++)
            for (int c = 0; c < 3; c++)
                for (int g = 0; g < 3; g++)
                    for (int p = 0; p < 2; p++) {
                        if (fx_kinds[t].f == PSL_FORMAT_CSR && (c || g || p))
                            continue;
                        psl_convert_options opt;
                        psl_convert_options_init(&opt);
                        opt.format = fx_kinds[t].f;
                        opt.value_type = fx_kinds[t].vt;
                        opt.codec = fx_kinds[t].codec;
                        opt.slice_height = Cs[c];
                        opt.sigma = g == 0 ? 0 : g == 1 ? Cs[c] : 256;
                        opt.permute = (psl_permute)p;
                        psl_matrix *A = NULL, *D = NULL;
                        CHECK_OK(psl_matrix_convert(&A, src, &opt));
                        CHECK_OK(psl_matrix_to_csr(&D, A));
                        if (!A || !D) {
                            psl_matrix_destroy(&A);
                            psl_matrix_destroy(&D);
                            continue;
                        }
                        tcsr R = view(D);
                        for (int vi = 0; vi < 3; vi++) {
                            char label[160];
                            snprintf(label, sizeof label, "%s %s C=%d sigma=%d %s vec=%d", name,
                                     fx_kinds[t].name, (int)opt.slice_height, (int)opt.sigma,
                                     p ? "explicit" : "implicit", vi);
                            tvec x = tvec_random(fx_vec_types[vi], sinfo.ncols, 3 + (unsigned)run);
                            tvec y0 = tvec_random(fx_vec_types[vi], sinfo.nrows, 5 + (unsigned)run);
                            const double *k = ab[run % 3];
                            size_t bytes = (size_t)(y0.n ? y0.n : 1) * psl_scalar_size(y0.t);
                            void *yo = malloc(bytes), *yr = malloc(bytes);
                            memcpy(yo, y0.p, bytes);
                            memcpy(yr, y0.p, bytes);
                            CHECK_OK(psl_spmv(k[0], A, x.p, k[1], yo, fx_vec_types[vi]));
                            CHECK_OK(psl_spmv_named("ref", k[0], A, x.p, k[1], yr, fx_vec_types[vi]));
                            CHECK_MSG(fx_check_against_oracle(A, &R, &x, k[0], &y0, k[1], yo,
                                                              label) == 0,
                                      "%s", label);
                            CHECK_MSG(tvec_same_bits(yo, yr, y0.t, y0.n), "%s: omp != ref bits",
                                      label);
                            free(yo);
                            free(yr);
                            tvec_free(&x);
                            tvec_free(&y0);
                            run++;
                        }
                        psl_matrix_destroy(&D);
                        psl_matrix_destroy(&A);
                    }
        psl_matrix_destroy(&src);
    }
    omp_set_num_threads(saved_threads);
    CHECK(run > 3000);
}

TEST(trace_names_the_kernel)
{
    psl_matrix *src = NULL, *A = NULL;
    CHECK_OK(psl_generate(&src, "lap2d:8"));
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = PSL_FORMAT_PACKSELL;
    opt.codec = (psl_codec){8, 10};
    CHECK_OK(psl_matrix_convert(&A, src, &opt));
    float x[64], y[64];
    for (int i = 0; i < 64; i++)
        x[i] = 1.0f;
    char path[] = "/tmp/psl_trace_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(fileno(stderr));
    dup2(fd, fileno(stderr));
    CHECK_OK(psl_option_set("PSL_TRACE", "1"));
    CHECK_OK(psl_spmv(1.0, A, x, 0.0, y, PSL_FP32));
    CHECK_OK(psl_option_set("PSL_KERNEL", "ref"));
    CHECK_OK(psl_spmv(1.0, A, x, 0.0, y, PSL_FP32));
    CHECK_OK(psl_option_set("PSL_KERNEL", NULL));
    CHECK_OK(psl_option_set("PSL_TRACE", NULL));
    CHECK_OK(psl_spmv(1.0, A, x, 0.0, y, PSL_FP32)); /* silent again */
    fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    char buf[1024] = "";
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
    close(fd);
    unlink(path);
    CHECK_MSG(strstr(buf, "kernel 'omp'") && strstr(buf, "PackSELL e8m10") &&
                  strstr(buf, "fp32 vectors"),
              "trace: %s", buf);
    CHECK_MSG(strstr(buf, "kernel 'ref'") != NULL, "trace: %s", buf);
    int lines = 0;
    for (char *p = buf; *p; p++)
        lines += *p == '\n';
    CHECK_MSG(lines == 2, "trace has %d lines: %s", lines, buf);
    /* lap2d: 4 on the diagonal, -1 around: row sums of a ones vector */
    CHECK(y[0] == 2.0f && y[9] == 0.0f);
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&src);
}

static const psl_test_case tests[] = {
    {"converted_all_targets", converted_all_targets},
    {"trace_names_the_kernel", trace_names_the_kernel},
};
PSL_TEST_MAIN(tests)
