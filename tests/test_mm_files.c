/*
 * test_mm_files.c -- Matrix Market files on disk: every real matrix of
 * psl_test_matrix_dir() against a simple sequential reference reader (and
 * the same bits with 1 or 2 threads), gzip files, CRLF and missing final
 * newline, writer -> reader round trips (bit-exact), vectors, I/O errors.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "mm_test_util.h"
#include "packsell.h"
#include "same_csr.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static char tmpdir[256];
static void setup(void);

/* A path inside the test's temporary directory (created on first use). */
static const char *tmp_path(const char *name)
{
    if (!tmpdir[0])
        setup();
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* ------------------------------------------------ the reference reader */

typedef struct {
    int32_t r, c;
    int64_t seq;
    double v;
} ref_entry;

typedef struct {
    int32_t nrows, ncols;
    int64_t stored; /* entries in the file */
    int64_t n;      /* expanded, duplicates summed */
    int64_t *rp;
    int32_t *ci;
    double *v;
} ref_csr;

static int cmp_entry(const void *a, const void *b)
{
    const ref_entry *x = a, *y = b;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The simplest possible reader: fgets + sscanf, coordinate files only. */
static int ref_read(const char *path, ref_csr *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024], obj[64], fmt[64], field[64], sym[64];
    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4) {
        fclose(f);
        return 0;
    }
    for (char *p = sym; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    int pattern = strcmp(field, "pattern") == 0;
    double mirror = strcmp(sym, "general") == 0 ? 0 : strcmp(sym, "skew-symmetric") == 0 ? -1 : 1;
    long long m = 0, n = 0, nnz = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '%' && sscanf(line, "%lld %lld %lld", &m, &n, &nnz) == 3)
            break;
    ref_entry *e = malloc(sizeof *e * (size_t)(2 * nnz + 1));
    int64_t k = 0, stored = 0;
    while (fgets(line, sizeof line, f)) {
        long long i, j;
        double v = 1;
        if (line[0] == '%' || sscanf(line, "%lld %lld", &i, &j) != 2)
            continue;
        if (!pattern)
            sscanf(line, "%*s %*s %lf", &v);
        stored++;
        e[k] = (ref_entry){(int32_t)(i - 1), (int32_t)(j - 1), k, v};
        k++;
        if (mirror != 0 && i != j) {
            e[k] = (ref_entry){(int32_t)(j - 1), (int32_t)(i - 1), k, mirror * v};
            k++;
        }
    }
    fclose(f);
    qsort(e, (size_t)k, sizeof *e, cmp_entry);
    out->nrows = (int32_t)m;
    out->ncols = (int32_t)n;
    out->stored = stored;
    out->rp = calloc((size_t)m + 1, sizeof *out->rp);
    out->ci = malloc(sizeof *out->ci * (size_t)(k + 1));
    out->v = malloc(sizeof *out->v * (size_t)(k + 1));
    int64_t w = 0;
    for (int64_t t = 0; t < k; t++) {
        if (w > 0 && t > 0 && e[t].r == e[t - 1].r && e[t].c == e[t - 1].c) {
            out->v[w - 1] += e[t].v;
            continue;
        }
        out->ci[w] = e[t].c;
        out->v[w] = e[t].v;
        out->rp[e[t].r + 1]++;
        w++;
    }
    for (int64_t r = 0; r < m; r++)
        out->rp[r + 1] += out->rp[r];
    out->n = w;
    free(e);
    return 1;
}

static void ref_free(ref_csr *r)
{
    free(r->rp);
    free(r->ci);
    free(r->v);
}

static void set_threads(int t)
{
#ifdef _OPENMP
    omp_set_num_threads(t);
#else
    (void)t;
#endif
}

TEST(real_matrices_match_reference)
{
    if (!psl_test_matrices_available("real_matrices_match_reference"))
        return;
    char path[8192], line[2048];
    snprintf(path, sizeof path, "%s/INDEX.tsv", psl_test_matrix_dir());
    FILE *idx = fopen(path, "r");
    CHECK_MSG(idx != NULL, "cannot open %s", path);
    if (!idx)
        return;
    int count = 0;
    CHECK(fgets(line, sizeof line, idx) != NULL); /* header */
    while (fgets(line, sizeof line, idx)) {
        char name[256], sym[64], field[64];
        long long rows, cols, nnz;
        if (sscanf(line, "%255s %lld %lld %lld %63s %63s", name, &rows, &cols, &nnz, sym,
                   field) != 6)
            continue;
        snprintf(path, sizeof path, "%s/%s.mtx", psl_test_matrix_dir(), name);
        ref_csr ref = {0};
        CHECK_MSG(ref_read(path, &ref), "reference reader failed on %s", path);
        CHECK_MSG(ref.stored == nnz, "%s: %lld stored entries, INDEX.tsv says %lld", name,
                  (long long)ref.stored, nnz);
        psl_matrix *A1 = NULL, *A2 = NULL;
        set_threads(1);
        CHECK_OK(psl_mm_read(&A1, path));
        set_threads(2);
        CHECK_OK(psl_mm_read(&A2, path));
        CHECK_MSG(rows == ref.nrows && cols == ref.ncols, "%s", name);
        mm_check_csr(A1, ref.nrows, ref.ncols, ref.n, ref.rp, ref.ci, ref.v);
        CHECK_MSG(A1 && A2 && same_csr(A1, A2), "%s differs between 1 and 2 threads", name);
        psl_matrix_destroy(&A1);
        psl_matrix_destroy(&A2);
        ref_free(&ref);
        count++;
    }
    fclose(idx);
    CHECK_MSG(count >= 30, "only %d matrices listed", count);
}

/* Whole file into memory (test helper). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, f);
    fclose(f);
    return b;
}

static void spill(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(data, 1, len, f) == len);
    fclose(f);
}

TEST(gzip_crlf_and_final_newline)
{
    if (!psl_test_matrices_available("gzip_crlf_and_final_newline"))
        return;
    const char *names[] = {"plsk1919", "bcsstk29", "memplus"};
    for (int t = 0; t < 3; t++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s.mtx", psl_test_matrix_dir(), names[t]);
        size_t len = 0;
        char *text = slurp(path, &len);
        CHECK(text != NULL);
        if (!text)
            continue;
        psl_matrix *A = NULL, *B = NULL;
        CHECK_OK(psl_mm_read(&A, path));

        /* gzip, written by zlib's gzopen, in two members */
        char gz[512];
        snprintf(gz, sizeof gz, "%s", tmp_path("m.mtx.gz"));
        gzFile g = gzopen(gz, "wb");
        CHECK(g != NULL);
        CHECK(gzwrite(g, text, (unsigned)(len / 2)) == (int)(len / 2));
        gzclose(g);
        g = gzopen(gz, "ab");
        CHECK(gzwrite(g, text + len / 2, (unsigned)(len - len / 2)) == (int)(len - len / 2));
        gzclose(g);
        CHECK_OK(psl_mm_read(&B, gz));
        CHECK_MSG(B && same_csr(A, B), "%s: gzip differs", names[t]);
        psl_matrix_destroy(&B);

        /* CRLF line ends */
        char *crlf = malloc(2 * len + 1);
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
            if (text[i] == '\n')
                crlf[n++] = '\r';
            crlf[n++] = text[i];
        }
        spill(tmp_path("crlf.mtx"), crlf, n);
        CHECK_OK(psl_mm_read(&B, tmp_path("crlf.mtx")));
        CHECK_MSG(B && same_csr(A, B), "%s: CRLF differs", names[t]);
        psl_matrix_destroy(&B);

        /* no final newline */
        while (len > 0 && text[len - 1] == '\n')
            len--;
        spill(tmp_path("nonl.mtx"), text, len);
        CHECK_OK(psl_mm_read(&B, tmp_path("nonl.mtx")));
        CHECK_MSG(B && same_csr(A, B), "%s: no-final-newline differs", names[t]);
        psl_matrix_destroy(&B);

        /* corrupt gzip file */
        size_t glen = 0;
        char *gzdata = slurp(gz, &glen);
        spill(tmp_path("short.mtx.gz"), gzdata, glen / 2);
        CHECK_ST(psl_mm_read(&B, tmp_path("short.mtx.gz")), PSL_ERR_IO);
        CHECK(strstr(psl_last_error_message(), "gzip") != NULL);
        CHECK(strstr(psl_last_error_message(), "short.mtx.gz") != NULL);
        CHECK(B == NULL);
        free(gzdata);
        free(crlf);
        free(text);
        psl_matrix_destroy(&A);
    }
}

TEST(write_read_round_trip)
{
    if (!psl_test_matrices_available("write_read_round_trip"))
        return;
    const char *names[] = {"bcsstk13", "plsk1919", "OPF_6000", "beacxc", "ash219", "n3c4-b4"};
    for (int t = 0; t < 6; t++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s.mtx", psl_test_matrix_dir(), names[t]);
        psl_matrix *A = NULL, *B = NULL;
        CHECK_OK(psl_mm_read(&A, path));
        CHECK_OK(psl_mm_write(A, tmp_path("rt.mtx")));
        CHECK_OK(psl_mm_read(&B, tmp_path("rt.mtx")));
        CHECK_MSG(A && B && same_csr(A, B), "%s: round trip differs", names[t]);
        psl_matrix_destroy(&A);
        psl_matrix_destroy(&B);
    }
    /* a non-CSR matrix is decoded first: SELL with FP64 values and sigma
     * sorting writes the original matrix (rows in original order) */
    {
        char path[8192];
        snprintf(path, sizeof path, "%s/hangGlider_2.mtx", psl_test_matrix_dir());
        psl_matrix *A = NULL, *S = NULL, *B = NULL;
        CHECK_OK(psl_mm_read(&A, path));
        psl_convert_options opt;
        psl_convert_options_init(&opt);
        opt.format = PSL_FORMAT_SELL;
        opt.value_type = PSL_FP64;
        opt.slice_height = 8;
        opt.sigma = 64;
        CHECK_OK(psl_matrix_convert(&S, A, &opt));
        CHECK_OK(psl_mm_write(S, tmp_path("sell.mtx")));
        CHECK_OK(psl_mm_read(&B, tmp_path("sell.mtx")));
        CHECK_MSG(A && B && same_csr(A, B), "SELL write differs");
        psl_matrix_destroy(&A);
        psl_matrix_destroy(&S);
        psl_matrix_destroy(&B);
    }
    /* awkward values, empty rows and columns, many thread counts */
    psl_matrix *A = mm_from_string(
        "%%MatrixMarket matrix coordinate real general\n5 4 8\n"
        "1 1 0.1\n1 4 -0\n3 2 4.9406564584124654e-324\n3 3 1.7976931348623157e308\n"
        "5 1 -2.2250738585072014e-308\n5 2 123456789.123456789\n5 3 1e-300\n5 4 3\n");
    for (int th = 1; th <= 3; th++) {
        set_threads(th);
        psl_matrix *B = NULL;
        CHECK_OK(psl_mm_write(A, tmp_path("odd.mtx")));
        CHECK_OK(psl_mm_read(&B, tmp_path("odd.mtx")));
        CHECK(A && B && same_csr(A, B));
        psl_matrix_destroy(&B);
    }
    set_threads(2);
    size_t len = 0;
    char *text = slurp(tmp_path("odd.mtx"), &len);
    CHECK(text && strncmp(text, "%%MatrixMarket matrix coordinate real general\n5 4 8\n1 1 "
                                "0.10000000000000001\n1 4 -0\n", 80) == 0);
    free(text);
    psl_matrix_destroy(&A);
}

TEST(io_errors)
{
    psl_matrix *A = (psl_matrix *)1;
    CHECK_ST(psl_mm_read(&A, tmp_path("does-not-exist.mtx")), PSL_ERR_IO);
    CHECK(A == NULL);
    CHECK(strstr(psl_last_error_message(), "does-not-exist.mtx") != NULL);
    CHECK(strstr(psl_last_error_message(), "No such file") != NULL);
    tmp_path("x");
    CHECK_ST(psl_mm_read(&A, tmpdir), PSL_ERR_IO); /* a directory */
    CHECK(strstr(psl_last_error_message(), "directory") != NULL);

    /* parse errors from a file name the file and keep the line */
    const char *bad = "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n";
    spill(tmp_path("bad.mtx"), bad, strlen(bad));
    CHECK_ST(psl_mm_read(&A, tmp_path("bad.mtx")), PSL_ERR_PARSE);
    psl_error_info info;
    psl_last_error(&info);
    CHECK(info.line == 3);
    CHECK(strstr(info.message, "bad.mtx: line 3: row index 3 out of range 1..2") != NULL);

    A = mm_from_string("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n");
    CHECK_ST(psl_mm_write(A, tmp_path("no/such/dir.mtx")), PSL_ERR_IO);
    CHECK(strstr(psl_last_error_message(), "No such file") != NULL);
    /* a device is never written to (nor replaced by a file) */
    if (access("/dev/full", W_OK) == 0) {
        CHECK_ST(psl_mm_write(A, "/dev/full"), PSL_ERR_IO);
        CHECK(strstr(psl_last_error_message(), "not a regular file (a device)") != NULL);
        double x[3] = {1, 2, 3};
        CHECK_ST(psl_mm_write_vector("/dev/full", x, 3), PSL_ERR_IO);
    }
    /* a folder is refused; a link is followed (the file it names replaced,
     * the link kept); a failed write leaves the target as it was */
    CHECK_ST(psl_mm_write(A, tmpdir), PSL_ERR_IO);
    CHECK(strstr(psl_last_error_message(), "(a folder)") != NULL);
    spill(tmp_path("old.mtx"), "old", 3);
    unlink(tmp_path("link.mtx"));
    CHECK(symlink(tmp_path("old.mtx"), tmp_path("link.mtx")) == 0);
    CHECK_OK(psl_mm_write(A, tmp_path("link.mtx")));
    struct stat lsb;
    CHECK(lstat(tmp_path("link.mtx"), &lsb) == 0 && S_ISLNK(lsb.st_mode));
    psl_matrix *B = NULL;
    CHECK_OK(psl_mm_read(&B, tmp_path("old.mtx"))); /* the link's target now holds A */
    psl_matrix_destroy(&B);
    CHECK_ST(psl_matrix_save(A, tmp_path("no/such/dir.psl")), PSL_ERR_IO);
    CHECK_ST(psl_mm_write(NULL, tmp_path("x.mtx")), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_mm_write(A, NULL), PSL_ERR_NULL_POINTER);
    psl_matrix_destroy(&A);
}

TEST(vectors)
{
    double x[7] = {1.5, -0.0, 0.1, 4.9406564584124654e-324, 1e300, -7, 0};
    double *y = NULL;
    int64_t n = -1;
    CHECK_OK(psl_mm_write_vector(tmp_path("v.mtx"), x, 7));
    CHECK_OK(psl_mm_read_vector(tmp_path("v.mtx"), &y, &n));
    CHECK(n == 7 && y && memcmp(x, y, sizeof x) == 0);
    psl_free(y);
    y = NULL;

    /* coordinate n x 1: missing entries are zero, duplicates summed */
    const char *col = "%%MatrixMarket matrix coordinate real general\n4 1 3\n"
                      "2 1 5\n4 1 1\n2 1 0.5\n";
    spill(tmp_path("c.mtx"), col, strlen(col));
    CHECK_OK(psl_mm_read_vector(tmp_path("c.mtx"), &y, &n));
    double want[4] = {0, 5.5, 0, 1};
    CHECK(n == 4 && y && memcmp(y, want, sizeof want) == 0);
    psl_free(y);
    y = NULL;

    /* 1 x n array, integer field */
    const char *row = "%%MatrixMarket matrix array integer general\n1 3\n4\n5\n6\n";
    spill(tmp_path("r.mtx"), row, strlen(row));
    CHECK_OK(psl_mm_read_vector(tmp_path("r.mtx"), &y, &n));
    CHECK(n == 3 && y && y[0] == 4 && y[1] == 5 && y[2] == 6);
    psl_free(y);

    /* errors leave the outputs untouched */
    double *keep = (double *)&n;
    int64_t keep_n = 12345;
    const char *wide = "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n";
    spill(tmp_path("w.mtx"), wide, strlen(wide));
    CHECK_ST(psl_mm_read_vector(tmp_path("w.mtx"), &keep, &keep_n), PSL_ERR_PARSE);
    CHECK(strstr(psl_last_error_message(), "line 2") != NULL);
    const char *nan = "%%MatrixMarket matrix array real general\n2 1\n1\nNaN\n";
    spill(tmp_path("n.mtx"), nan, strlen(nan));
    CHECK_ST(psl_mm_read_vector(tmp_path("n.mtx"), &keep, &keep_n), PSL_ERR_NONFINITE);
    CHECK(strstr(psl_last_error_message(), "line 4") != NULL);
    const char *sum = "%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 1e308\n"
                      "1 1 1e308\n";
    spill(tmp_path("s.mtx"), sum, strlen(sum));
    CHECK_ST(psl_mm_read_vector(tmp_path("s.mtx"), &keep, &keep_n), PSL_ERR_NONFINITE);
    CHECK_ST(psl_mm_read_vector(tmp_path("missing.mtx"), &keep, &keep_n), PSL_ERR_IO);
    CHECK(keep == (double *)&n && keep_n == 12345);
    CHECK_ST(psl_mm_write_vector(tmp_path("v.mtx"), NULL, 3), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_mm_write_vector(tmp_path("v.mtx"), x, -1), PSL_ERR_INVALID_VALUE);
    CHECK_OK(psl_mm_write_vector(tmp_path("e.mtx"), NULL, 0));
    CHECK_OK(psl_mm_read_vector(tmp_path("e.mtx"), &y, &n));
    CHECK(n == 0);
    psl_free(y);
}

/* Remove the temporary files and directory. */
static void cleanup(void)
{
    const char *files[] = {"m.mtx.gz", "crlf.mtx", "nonl.mtx", "short.mtx.gz", "rt.mtx",
                           "odd.mtx", "sell.mtx", "bad.mtx", "v.mtx", "c.mtx", "r.mtx", "w.mtx",
                           "n.mtx", "s.mtx", "e.mtx"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        remove(tmp_path(files[i]));
    rmdir(tmpdir);
}

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/psl_test_mm_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot create a temporary directory\n");
        exit(1);
    }
    atexit(cleanup);
}

static const psl_test_case tests[] = {
    {"real_matrices_match_reference", real_matrices_match_reference},
    {"gzip_crlf_and_final_newline", gzip_crlf_and_final_newline},
    {"write_read_round_trip", write_read_round_trip},
    {"io_errors", io_errors},
    {"vectors", vectors},
};

PSL_TEST_MAIN(tests)
