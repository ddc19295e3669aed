/*
 * test_cli.c -- tests of the packsell command, run as a separate process
 * (path in $PSL_PACKSELL_EXE) with temporary files: help and usage, exit
 * codes of usage (2) and runtime (1) errors, gen -> info round trip, spmv in
 * every format and permutation against a product computed here from the
 * Matrix Market file, convert -> spmv from the binary file, and the bench
 * JSON (checked by a small JSON validator).
 */
#define _POSIX_C_SOURCE 200809L
#include "packsell.h"
#include "harness.h"

#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];
static char out_text[1 << 17], err_text[1 << 16];

/* Path of a file in the temporary directory; the same name always gives
 * the same, permanently valid string (at most 64 names). */
static const char *tmp(const char *name)
{
    static char names[64][64], paths[64][512];
    static int count;
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return paths[i];
    if (count == 64 || strlen(name) >= sizeof names[0]) {
        fprintf(stderr, "tmp(): too many or too long names\n");
        exit(1);
    }
    snprintf(names[count], sizeof names[count], "%s", name);
    snprintf(paths[count], sizeof paths[count], "%s/%s", tmpdir, name);
    return paths[count++];
}

/* Read a whole file into buf (NUL-terminated, truncated to len-1). */
static void slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* Run "packsell ARGS" with stdout/stderr captured in out_text/err_text;
 * returns the exit status (-1 if it did not exit normally). */
static int run(const char *fmt, ...)
{
    char args[2048], line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    const char *exe = getenv("PSL_PACKSELL_EXE");
    if (!exe || !*exe) {
        fprintf(stderr, "PSL_PACKSELL_EXE is not set\n");
        return -1;
    }
    snprintf(line, sizeof line, "'%s' %s >'%s' 2>'%s'", exe, args, tmp("stdout.txt"),
             tmp("stderr.txt"));
    int st = system(line);
    slurp(tmp("stdout.txt"), out_text, sizeof out_text);
    slurp(tmp("stderr.txt"), err_text, sizeof err_text);
    /* a sanitizer report in the child is a failure whatever its exit code */
    CHECK_MSG(!strstr(err_text, "Sanitizer") && !strstr(err_text, "runtime error:"),
              "packsell %s:\n%s", args, err_text);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* ---- a minimal JSON validator (RFC 8259 grammar) */
static const char *js_value(const char *p, int depth);
static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}
static const char *js_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p != '"') {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
                        return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        }
        p++;
    }
    return p + 1;
}
static const char *js_digits(const char *p)
{
    if (*p < '0' || *p > '9')
        return NULL;
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}
static const char *js_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (!(p = js_digits(p)))
        return NULL;
    if (*p == '.' && !(p = js_digits(p + 1)))
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        p = js_digits(p);
    }
    return p;
}
static const char *js_value(const char *p, int depth)
{
    p = js_ws(p);
    if (depth > 64)
        return NULL;
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = js_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (close == '}') {
                if (!(p = js_string(js_ws(p))))
                    return NULL;
                p = js_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            if (!(p = js_value(p, depth + 1)))
                return NULL;
            p = js_ws(p);
            if (*p == close)
                return p + 1;
            if (*p++ != ',')
                return NULL;
        }
    }
    if (*p == '"')
        return js_string(p);
    if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
        return p + 4;
    if (strncmp(p, "false", 5) == 0)
        return p + 5;
    return js_number(p);
}
static int json_valid(const char *text)
{
    const char *p = js_value(text, 0);
    return p && *js_ws(p) == '\0';
}

/* Number after "key": in JSON text (first occurrence); NAN if absent/null. */
static double json_num(const char *text, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    if (!p)
        return NAN;
    p += strlen(pat);
    char *end;
    double v = strtod(p, &end);
    return end == p ? NAN : v;
}

/* Whether "key": "value" occurs in JSON text. */
static int json_has_str(const char *text, const char *key, const char *value)
{
    char pat[256];
    snprintf(pat, sizeof pat, "\"%s\": \"%s\"", key, value);
    return strstr(text, pat) != NULL;
}

/* ---- reference product from a Matrix Market file */

/* y = alpha*A*x + beta*y0 of the matrix in path (y0 may be NULL). */
static double *reference(const char *path, const double *x, double alpha, double beta,
                         const double *y0, int64_t *nrows)
{
    psl_matrix *A = NULL;
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    psl_matrix_info info;
    if (psl_mm_read(&A, path) != PSL_OK || psl_matrix_get_info(A, &info) != PSL_OK ||
        psl_matrix_csr_view(A, &rp, &ci, &va) != PSL_OK) {
        psl_matrix_destroy(&A);
        return NULL;
    }
    double *y = malloc((size_t)info.nrows * sizeof *y + 1);
    for (int64_t i = 0; i < info.nrows; i++) {
        double s = 0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            s += va[k] * x[ci[k]];
        y[i] = alpha * s + (y0 ? beta * y0[i] : 0.0);
    }
    *nrows = info.nrows;
    psl_matrix_destroy(&A);
    return y;
}

/* Largest |y_file - ref| (INFINITY if the file cannot be read or differs
 * in length). */
static double max_diff(const char *yfile, const double *ref, int64_t n)
{
    double *y = NULL;
    int64_t ny = 0;
    if (psl_mm_read_vector(yfile, &y, &ny) != PSL_OK || ny != n) {
        psl_free(y);
        return INFINITY;
    }
    double d = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(y[i] - ref[i]);
        if (!(e <= d))
            d = e;
    }
    psl_free(y);
    return d;
}

/* ---- tests */

TEST(help_and_version)
{
    const char *cmds[] = {"gen", "info", "convert", "spmv", "bench"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "Usage: packsell %s", cmds[i]);
        CHECK_MSG(run("%s --help", cmds[i]) == 0, "%s --help: %s", cmds[i], err_text);
        CHECK_MSG(strstr(out_text, want) != NULL, "%s --help printed: %s", cmds[i], out_text);
        CHECK(run("%s -h", cmds[i]) == 0);
        CHECK(run("help %s", cmds[i]) == 0 && strstr(out_text, want));
    }
    CHECK(run("bench --help") == 0 && strstr(out_text, "gen:hpcg:6:6:6"));
    CHECK(strstr(out_text, "--device D") && strstr(out_text, "cusparse-FORMAT-VALUES"));
    CHECK(run("--help") == 0 && strstr(out_text, "Commands:"));
    CHECK(strstr(out_text, "help environment"));
    /* help environment: every library option, its values and default */
    CHECK(run("help environment") == 0);
    for (int i = 0; i < psl_option_count(); i++) {
        psl_option_desc d;
        char line[160];
        CHECK_OK(psl_option_describe(i, &d));
        snprintf(line, sizeof line, "  %s=%s (default %s)\n", d.name, d.values,
                 d.default_value[0] ? d.default_value : "unset");
        CHECK_MSG(strstr(out_text, line) != NULL, "help environment lacks %s", line);
    }
    CHECK(run("help nope") == 2 && strstr(err_text, "unknown help topic 'nope'"));
    CHECK(run("--version") == 0 && strstr(out_text, psl_version()));
    CHECK(run("") == 2 && strstr(err_text, "Usage: packsell"));
}

TEST(gen_info_roundtrip)
{
    CHECK_MSG(run("gen hpcg:3:3:3 -o '%s'", tmp("h3.mtx")) == 0, "%s", err_text);
    CHECK_MSG(run("info '%s' --json", tmp("h3.mtx")) == 0, "%s", err_text);
    CHECK_MSG(json_valid(out_text), "invalid JSON: %s", out_text);
    CHECK(json_num(out_text, "rows") == 512);
    CHECK(json_num(out_text, "cols") == 512);
    CHECK(json_num(out_text, "nnz") == 10648);
    CHECK(json_num(out_text, "max_row_nnz") == 27);
    CHECK(json_num(out_text, "kleft") == 73); /* 8*8 + 8 + 1 */
    CHECK(json_num(out_text, "rsd") > 0 && json_num(out_text, "rsd") < 1);
    CHECK(json_has_str(out_text, "format", "csr"));
    CHECK(json_has_str(out_text, "values", "fp64"));
    CHECK(json_num(out_text, "bytes") == 513 * 8 + 10648 * 12);

    /* the same from the generator directly, as PackSELL FP16 */
    CHECK_MSG(run("info gen:hpcg:3:3:3 --format packsell --json") == 0, "%s", err_text);
    CHECK(json_valid(out_text));
    CHECK(json_num(out_text, "nnz") == 10648);
    CHECK(json_has_str(out_text, "format", "packsell"));
    CHECK(json_has_str(out_text, "values", "fp16"));
    CHECK(json_num(out_text, "D") == 15);
    CHECK(json_num(out_text, "C") == 32 && json_num(out_text, "sigma") == 256);
    double words = json_num(out_text, "words"), dummies = json_num(out_text, "dummies");
    CHECK(words >= 10648 && dummies == 0);
    CHECK(json_num(out_text, "bytes") >= 4 * words);
    double ratio = json_num(out_text, "ratio_sell");
    CHECK_MSG(ratio > 0.6 && ratio < 0.7, "ratio %g", ratio);

    /* eXm with --delta-bits */
    CHECK_MSG(run("info gen:hpcg:3:3:3 --format packsell --values e8m --delta-bits 12 --json") == 0,
              "%s", err_text);
    CHECK(json_has_str(out_text, "values", "e8m10") && json_num(out_text, "D") == 12);
    CHECK(run("info gen:hpcg:3:3:3 --format packsell --values e8m10 --delta-bits 12 --json") == 0);

    /* the readable table */
    CHECK(run("info gen:hpcg:3:3:3 --format sell --values fp16") == 0);
    CHECK(strstr(out_text, "10648") && strstr(out_text, "512 x 512"));

    /* binary output of gen */
    CHECK_MSG(run("gen lap2d:5 --binary -o '%s'", tmp("l5.psl")) == 0, "%s", err_text);
    CHECK(run("info '%s' --json", tmp("l5.psl")) == 0 && json_num(out_text, "nnz") == 105);
}

/* Run spmv of matrix file mtx with the given extra options; compare y with
 * ref (exact arithmetic: the values are small dyadic numbers). */
static void check_spmv(const char *mtx, const char *xarg, const char *opts, const double *ref,
                       int64_t n)
{
    int rc = run("spmv '%s' --x %s -o '%s' %s", mtx, xarg, tmp("y.mtx"), opts);
    CHECK_MSG(rc == 0, "spmv %s: exit %d: %s", opts, rc, err_text);
    double d = max_diff(tmp("y.mtx"), ref, n);
    CHECK_MSG(d == 0, "spmv %s: max |y - ref| = %g", opts, d);
    remove(tmp("y.mtx"));
}

TEST(spmv_formats_and_permutations)
{
    const char *mtx = tmp("h3s.mtx");
    CHECK_MSG(run("gen hpcg:3:3:3 -o '%s'", mtx) == 0, "%s", err_text);
    int64_t n = 512, m = 0;
    double *ones = malloc(n * sizeof *ones), *x = malloc(n * sizeof *x);
    for (int64_t j = 0; j < n; j++) {
        ones[j] = 1.0;
        x[j] = (double)(j % 7 + 1) / 8.0;
    }
    CHECK_OK(psl_mm_write_vector(tmp("x.mtx"), x, n));
    double *r1 = reference(mtx, ones, 1.0, 0.0, NULL, &m);
    double *rx = reference(mtx, x, 1.0, 0.0, NULL, &m);
    CHECK(r1 && rx && m == n);
    if (!r1 || !rx)
        goto done;
    const char *variants[] = {
        "",
        "--format csr --values fp32 --vectors fp32",
        "--format sell",
        "--format sell --permute explicit",
        "--format sell --slice 8 --sigma 64 --permute explicit --values fp32 --vectors fp32",
        "--format sell --values fp16 --vectors fp16 --permute explicit",
        "--format packsell",
        "--format packsell --permute explicit",
        "--format packsell --slice 4 --sigma 16 --permute explicit",
        "--format packsell --slice 4 --sigma 16 --permute implicit --vectors fp16",
        "--format packsell --values e8m10 --vectors fp32 --permute explicit",
        "--format packsell --values e8m --delta-bits 4 --sigma 0", /* dummies */
        "--format auto --precision fp16",
        "--format auto --precision fp32 --permute explicit",
        "--format auto --precision fp64 --vectors fp32",
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        if (i % 3 == 0) /* --x ones on a few variants: they differ only in x */
            check_spmv(mtx, "ones", variants[i], r1, n);
        char xarg[600];
        snprintf(xarg, sizeof xarg, "'%s'", tmp("x.mtx"));
        check_spmv(mtx, xarg, variants[i], rx, n);
    }
    /* explicit sigma sorting really reorders the rows of this matrix, so the
     * original-order checks above can fail */
    {
        psl_matrix *A = NULL, *P = NULL;
        psl_convert_options o;
        psl_convert_options_init(&o);
        o.format = PSL_FORMAT_PACKSELL;
        o.slice_height = 4;
        o.sigma = 16;
        o.permute = PSL_PERMUTE_EXPLICIT;
        int32_t *order = malloc(n * sizeof *order);
        int moved = 0;
        CHECK_OK(psl_mm_read(&A, mtx));
        CHECK_OK(psl_matrix_convert(&P, A, &o));
        CHECK_OK(psl_matrix_row_order(P, order));
        for (int64_t i = 0; P && i < n; i++)
            moved += order[i] != i && r1[order[i]] != r1[i];
        CHECK(moved > 0);
        free(order);
        psl_matrix_destroy(&A);
        psl_matrix_destroy(&P);
    }

    /* alpha, beta, y0 (explicit permutation: y0 must be permuted too) */
    double *y0 = malloc(n * sizeof *y0);
    for (int64_t i = 0; i < n; i++)
        y0[i] = (double)(i % 5) - 2.0;
    CHECK_OK(psl_mm_write_vector(tmp("y0.mtx"), y0, n));
    double *rab = reference(mtx, x, 2.0, -0.5, y0, &m);
    char opts[1024];
    snprintf(opts, sizeof opts, "--alpha 2 --beta=-0.5 --y0 '%s' --format sell --permute explicit",
             tmp("y0.mtx"));
    char xarg[600];
    snprintf(xarg, sizeof xarg, "'%s'", tmp("x.mtx"));
    check_spmv(mtx, xarg, opts, rab, n);
    snprintf(opts, sizeof opts, "--alpha 2 --beta -0.5 --y0 '%s' --format packsell --vectors fp32",
             tmp("y0.mtx"));
    check_spmv(mtx, xarg, opts, rab, n);
    free(rab);
    free(y0);

    /* --x random is deterministic */
    CHECK(run("spmv '%s' --x random:7 -o '%s'", mtx, tmp("ya.mtx")) == 0);
    CHECK(run("spmv '%s' --x random:7 -o '%s' --format packsell --values e8m21 --permute explicit",
              mtx, tmp("yb.mtx")) == 0);
    {
        double *ya = NULL, *yb = NULL;
        int64_t na = 0, nb = 0;
        CHECK_OK(psl_mm_read_vector(tmp("ya.mtx"), &ya, &na));
        CHECK_OK(psl_mm_read_vector(tmp("yb.mtx"), &yb, &nb));
        double d = 0;
        for (int64_t i = 0; ya && yb && na == n && nb == n && i < n; i++)
            d = fmax(d, fabs(ya[i] - yb[i]));
        CHECK(ya && yb && na == n && nb == n && d < 1e-4);
        psl_free(ya);
        psl_free(yb);
    }
done:
    free(r1);
    free(rx);
    free(ones);
    free(x);
}

/* convert exports any format as Matrix Market (by extension or option):
 * the decoded values, read back as the same matrix. */
TEST(convert_to_matrix_market)
{
    CHECK(run("convert gen:hpcg:3:3:3 --format packsell --values fp16 -o '%s'", tmp("o.mtx")) == 0);
    CHECK(strstr(out_text, "as Matrix Market"));
    psl_matrix *A = NULL, *B = NULL, *P = NULL;
    CHECK_OK(psl_mm_read(&A, tmp("o.mtx")));
    CHECK_OK(psl_generate(&B, "gen:hpcg:3:3:3"));
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = PSL_FORMAT_PACKSELL;
    CHECK_OK(psl_matrix_convert(&P, B, &o));
    if (A && P) { /* A x == P x (the values PackSELL FP16 holds, exactly) */
        psl_matrix_info in;
        CHECK_OK(psl_matrix_get_info(A, &in));
        double *x = malloc((size_t)in.nrows * sizeof *x), *y1 = malloc((size_t)in.nrows * sizeof *y1),
               *y2 = malloc((size_t)in.nrows * sizeof *y2);
        for (int32_t i = 0; i < in.nrows; i++)
            x[i] = 1.0 + (i % 7);
        CHECK_OK(psl_spmv(1.0, A, x, 0.0, y1, PSL_FP64));
        CHECK_OK(psl_spmv(1.0, P, x, 0.0, y2, PSL_FP64));
        int bad = 0;
        for (int32_t i = 0; i < in.nrows; i++)
            bad += fabs(y1[i] - y2[i]) > 1e-12 * fabs(y2[i]);
        CHECK_MSG(bad == 0, "%d rows differ", bad);
        free(x), free(y1), free(y2);
    }
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&B);
    psl_matrix_destroy(&P);
    CHECK(run("convert gen:lap2d:4 -o '%s' --output-format mtx", tmp("o.bin")) == 0);
    CHECK_OK(psl_mm_read(&A, tmp("o.bin")));
    psl_matrix_destroy(&A);
    CHECK(run("convert gen:lap2d:4 -o '%s' --output-format zzz", tmp("o.zzz")) == 2);
}

/* Streams: Matrix Market read from standard input (plain or gzip), a pipe
 * or /dev/stdin; matrices and vectors written to "-" (standard output), the
 * command's own messages then on standard error. */
TEST(streams)
{
    const char *mtx = tmp("s4.mtx");
    CHECK(run("gen lap2d:4 -o '%s'", mtx) == 0);
    CHECK(run("info - < '%s'", mtx) == 0);
    CHECK_MSG(strstr(out_text, "16 x 16") && strstr(out_text, "64"), "%s", out_text);
    CHECK(run("info /dev/stdin < '%s'", mtx) == 0);
    CHECK(strstr(out_text, "16 x 16"));
    CHECK(run("--version >/dev/null; gzip -c '%s' | '%s' info -", mtx, /* a gzip pipe */
              getenv("PSL_PACKSELL_EXE")) == 0);
    CHECK(strstr(out_text, "16 x 16"));
    CHECK(run("gen lap2d:2 -o -") == 0);
    CHECK_MSG(strstr(out_text, "%%MatrixMarket matrix coordinate") == out_text &&
                  !strstr(out_text, "wrote") && strstr(err_text, "wrote -"),
              "%s / %s", out_text, err_text);
    CHECK(run("spmv '%s' --x ones -o -", mtx) == 0);
    CHECK(strstr(out_text, "%%MatrixMarket matrix array real general") == out_text);
    CHECK(run("info - < /dev/null") == 1);
    CHECK(strstr(err_text, "standard input"));
}

TEST(convert_then_spmv)
{
    const char *mtx = tmp("h3c.mtx"), *psl = tmp("h3c.psl");
    CHECK(run("gen hpcg:3:3:3 -o '%s'", mtx) == 0);
    int64_t n = 512, m = 0;
    double *ones = malloc(n * sizeof *ones);
    for (int64_t j = 0; j < n; j++)
        ones[j] = 1.0;
    double *r1 = reference(mtx, ones, 1.0, 0.0, NULL, &m);
    CHECK(r1 && m == n);
    const char *variants[] = {"--format packsell --permute explicit --slice 8 --sigma 32",
                              "--format packsell --values e8m10",
                              "--format sell --values fp32 --permute explicit", ""};
    for (size_t i = 0; r1 && i < sizeof variants / sizeof variants[0]; i++) {
        CHECK_MSG(run("convert '%s' -o '%s' %s", mtx, psl, variants[i]) == 0, "%s", err_text);
        CHECK(run("info '%s' --json", psl) == 0 && json_num(out_text, "nnz") == 10648);
        if (i == 0)
            CHECK(json_has_str(out_text, "format", "packsell") &&
                  json_has_str(out_text, "permute", "explicit") &&
                  json_num(out_text, "C") == 8);
        check_spmv(psl, "ones", "", r1, n);                   /* as stored */
        check_spmv(psl, "ones", "--format csr", r1, n);       /* decoded */
        check_spmv(psl, "ones", "--format packsell", r1, n); /* re-encoded */
    }
    free(r1);
    free(ones);
}

TEST(bench_json)
{
    const char *json = tmp("bench.json");
    int rc = run("bench gen:lap2d:12 --device cpu --reps 3 --min-time 0 --warmup 1 --json '%s'",
                 json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    CHECK(strstr(out_text, "PackSELL") || strstr(out_text, "packsell"));
    static char text[1 << 16];
    slurp(json, text, sizeof text);
    CHECK_MSG(json_valid(text), "invalid JSON:\n%s", text);
    const char *names[] = {"csr-fp64",  "csr-fp32",      "sell-fp64",      "sell-fp32",
                           "sell-fp16", "packsell-fp16", "packsell-e8m21", "packsell-e8m10"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "\"kernel\": \"%s\"", names[i]);
        const char *p = strstr(text, pat);
        CHECK_MSG(p != NULL, "no %s in the JSON", names[i]);
        if (!p)
            continue;
        CHECK(json_num(p, "runs") >= 3);
        CHECK(json_num(p, "median_us") > 0);
        CHECK(json_num(p, "gflops") > 0);
        double be = json_num(p, "backward_error");
        CHECK_MSG(be >= 0 && be < 1e-2, "%s backward error %g", names[i], be);
        if (strstr(names[i], "fp64"))
            CHECK_MSG(be < 1e-15, "%s backward error %g", names[i], be);
    }
    CHECK(json_num(text, "rows") == 144 && json_num(text, "nnz") == 5 * 144 - 4 * 12);
    CHECK(strstr(text, "\"date\": \"") && strstr(text, "\"host\": \"") &&
          strstr(text, "\"packsell_version\": \""));

    /* a chosen kernel list, explicit permutation, beta != 0 */
    rc = run("bench gen:lap2d:12 --reps 2 --min-time 0 --kernels sell-bf16,packsell-e8m13:fp32 "
             "--permute explicit --beta 1 --json '%s'",
             json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    slurp(json, text, sizeof text);
    CHECK(json_valid(text) && strstr(text, "packsell-e8m13:fp32") &&
          !strstr(text, "csr-fp64"));
    CHECK(json_num(text, "backward_error") < 1e-2);

    /* values beyond FP16: an error row (exit 1) unless rows are scaled */
    const char *big = tmp("big.mtx");
    FILE *f = fopen(big, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n3 3 4\n"
                   "1 1 1e6\n2 2 -3e5\n3 1 2\n3 3 7e4\n");
        fclose(f);
    }
    rc = run("bench '%s' --reps 2 --min-time 0 --kernels packsell-fp16", big);
    CHECK_MSG(rc == 1, "unscaled FP16 bench of 1e6 values: exit %d", rc);
    rc = run("bench '%s' --reps 2 --min-time 0 --kernels packsell-fp16 --scale rows --json '%s'",
             big, json);
    CHECK_MSG(rc == 0, "scaled bench exit %d: %s", rc, err_text);
    slurp(json, text, sizeof text);
    CHECK(json_valid(text) && strstr(text, "\"scale\": \"rows\""));
    CHECK(json_num(text, "backward_error") < 1e-3);
}

/* JSON element of kernel name in text (NULL if absent). */
static const char *json_kernel(const char *text, const char *name)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"kernel\": \"%s\"", name);
    return strstr(text, pat);
}

/* bench --device cpu: the read bandwidth of the same run, each kernel's
 * bytes moved (its own bytes + x + y, y twice with beta != 0), GB/s on them
 * and its share of the read bandwidth and of the same-size read, one median
 * per round; the MKL rows
 * when built with MKL (y within the precision's tolerance), else a usage
 * error naming the missing MKL. */
TEST(bench_cpu_bandwidth_and_mkl)
{
    const char *json = tmp("bench_bw.json");
    int rc = run("bench gen:lap2d:20 --device cpu --threads 2 --reps 4 --min-time 0 --warmup 1 "
                 "--rounds 2 --beta 0.5 --read-mib 8 --kernels csr-fp64,sell-fp32,packsell-fp16 "
                 "--json '%s'", json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    CHECK(strstr(out_text, "read bandwidth: ") && strstr(out_text, "%read"));
    static char text[1 << 16];
    slurp(json, text, sizeof text);
    CHECK_MSG(json_valid(text), "invalid JSON:\n%s", text);
    double bw = json_num(text, "read_bw_gbs");
    CHECK_MSG(bw > 0 && json_num(text, "read_bw_bytes") == 8 << 20, "read bandwidth %g", bw);
    CHECK(json_num(text, "read_bw_min_gbs") <= bw && bw <= json_num(text, "read_bw_max_gbs"));
    CHECK(json_num(text, "read_bw_runs") >= 2 && json_num(text, "rounds") == 2);
    const int64_t n = 400; /* rows = columns of lap2d:20 */
    const struct {
        const char *name;
        int vec_bytes;
    } ks[] = {{"csr-fp64", 8}, {"sell-fp32", 4}, {"packsell-fp16", 2}};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const char *p = json_kernel(text, ks[i].name);
        CHECK_MSG(p != NULL, "no %s", ks[i].name);
        if (!p)
            continue;
        double bytes = json_num(p, "bytes"), traffic = json_num(p, "traffic_bytes");
        CHECK_MSG(traffic == bytes + (double)ks[i].vec_bytes * (double)(n + 2 * n),
                  "%s: traffic %g, bytes %g", ks[i].name, traffic, bytes);
        double us = json_num(p, "median_us"), gbs = json_num(p, "gbs");
        CHECK_MSG(fabs(gbs - traffic / (us * 1e-6) * 1e-9) <= 1e-9 * gbs, "%s: %g GB/s",
                  ks[i].name, gbs);
        double pct = json_num(p, "pct_read_bw");
        CHECK_MSG(fabs(pct - 100.0 * gbs / bw) <= 1e-9 * pct, "%s: %g %%", ks[i].name, pct);
        CHECK(json_num(p, "min_us") <= us && us <= json_num(p, "max_us"));
        CHECK(json_num(p, "runs") >= 2 * 2 && strstr(p, "\"round_median_us\": ["));
        /* the same-size read: over its own traffic (tiny here, so cache speed) */
        double same = json_num(p, "read_bw_same_size_gbs");
        double pct_same = json_num(p, "pct_read_bw_same_size");
        CHECK_MSG(same > 0 && fabs(pct_same - 100.0 * gbs / same) <= 1e-9 * pct_same,
                  "%s: same-size read %g GB/s, %g %%", ks[i].name, same, pct_same);
    }
    CHECK(strstr(out_text, "%same"));
    /* --rounds 1: the kernels one after the other, after the read passes */
    rc = run("bench gen:lap2d:8 --reps 2 --min-time 0 --rounds 1 --read-mib 8 "
             "--kernels csr-fp32,sell-fp16 --json '%s'", json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    slurp(json, text, sizeof text);
    CHECK(json_num(text, "rounds") == 1 && json_num(text, "read_bw_gbs") > 0);
    for (int i = 0; i < 2; i++) {
        const char *p = json_kernel(text, i ? "sell-fp16" : "csr-fp32");
        CHECK(p && json_num(p, "runs") >= 2 && json_num(p, "pct_read_bw") > 0);
        /* one round: each matrix is freed before the next, no same-size read */
        CHECK(p && strstr(p, "\"read_bw_same_size_gbs\": null"));
    }
    /* --read-mib 0: no bandwidth, no share */
    rc = run("bench gen:lap2d:8 --reps 2 --min-time 0 --read-mib 0 --kernels csr-fp32 "
             "--json '%s'", json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    slurp(json, text, sizeof text);
    CHECK(strstr(text, "\"read_bw_gbs\": null") && strstr(text, "\"pct_read_bw\": null"));

    rc = run("bench gen:lap2d:8 --reps 2 --min-time 0 --read-mib 0 --json '%s'", json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    slurp(json, text, sizeof text);
    if (strstr(text, "\"mkl\": null")) { /* built without MKL */
        CHECK(!json_kernel(text, "mkl-csr-fp64"));
        CHECK(run("bench gen:lap2d:8 --kernels mkl-csr-fp64") == 2 &&
              strstr(err_text, "without MKL"));
        printf("  (built without MKL: the MKL rows are checked in MKL builds)\n");
        return;
    }
    CHECK(strstr(text, "\"mkl\": \"Intel"));
    const char *mk[] = {"mkl-csr-fp64", "mkl-csr-fp32"};
    for (int i = 0; i < 2; i++) {
        const char *p = json_kernel(text, mk[i]);
        CHECK_MSG(p != NULL, "no %s in an MKL build", mk[i]);
        if (!p)
            continue;
        CHECK(json_has_str(p, "library", "mkl") && json_num(p, "median_us") > 0);
        double be = json_num(p, "backward_error"), tol = json_num(p, "tolerance");
        CHECK_MSG(be >= 0 && be <= tol && tol < (i ? 1e-5 : 1e-14), "%s: %g (tolerance %g)",
                  mk[i], be, tol);
        CHECK(json_num(p, "mkl_optimize_seconds") >= 0 && json_num(p, "mkl_mv_hint_calls") > 0);
    }
    CHECK(run("bench gen:lap2d:8 --device cuda --kernels mkl-csr-fp32") == 2);
    CHECK(run("bench gen:lap2d:8 --kernels mkl-csr-fp16") == 2);
}

/* spmv --device cuda on a machine with a CUDA device gives the same y file
 * as the CPU, byte for byte, for SELL, PackSELL and CSR-k with one thread a
 * row (the device kernels follow the CPU kernels' arithmetic); skipped
 * without a device. */
TEST(spmv_cuda_matches_cpu)
{
    int ndev = 0;
    if (psl_cuda_device_count(&ndev) != PSL_OK || ndev == 0) {
        printf("  (no CUDA device: spmv --device cuda is checked in runtime_errors_exit_1)\n");
        return;
    }
    static const char *cfgs[] = {
        "--format packsell --values fp16 --vectors fp16 --permute explicit",
        "--format packsell --values e8m10 --vectors fp64",
        "--format sell --values fp32 --vectors fp32 --slice 8 --sigma 64",
        "--format sell --values bf16 --vectors fp16 --sigma 0",
        /* d = 6: one thread a row, the CPU's bits (test_gpu_csrk) */
        "--format csrk --values fp64 --vectors fp64",
        "--format csrk --values fp16 --vectors fp32 --csrk-k 2",
    };
    static char a[1 << 17], b[1 << 17];
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        int rc = run("spmv gen:powerlaw:700:6:1.5 --x random:3 -o '%s' %s --device cpu",
                     tmp("ycpu.mtx"), cfgs[i]);
        CHECK_MSG(rc == 0, "cpu %s: %s", cfgs[i], err_text);
        rc = run("spmv gen:powerlaw:700:6:1.5 --x random:3 -o '%s' %s --device cuda",
                 tmp("ygpu.mtx"), cfgs[i]);
        CHECK_MSG(rc == 0, "cuda %s: %s", cfgs[i], err_text);
        slurp(tmp("ycpu.mtx"), a, sizeof a);
        slurp(tmp("ygpu.mtx"), b, sizeof b);
        CHECK_MSG(a[0] && strcmp(a, b) == 0, "%s: the GPU y differs from the CPU y", cfgs[i]);
    }
}

/* Each kernel of names in the bench JSON text ran at least 3 times, ok,
 * with a small backward error (FP64 kernels: at rounding level). */
static void check_bench_kernels(const char *text, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "\"kernel\": \"%s\"", names[i]);
        const char *p = strstr(text, pat);
        CHECK_MSG(p != NULL, "no %s in the JSON", names[i]);
        if (!p)
            continue;
        const char *okp = strstr(p, "\"ok\": ");
        CHECK_MSG(okp && strncmp(okp + 6, "true", 4) == 0, "%s failed: %.300s", names[i], p);
        CHECK(json_num(p, "runs") >= 3 && json_num(p, "median_us") > 0);
        double be = json_num(p, "backward_error");
        CHECK_MSG(be >= 0 && be < 1e-2, "%s backward error %g", names[i], be);
        if (strstr(names[i], "fp64"))
            CHECK_MSG(be < 1e-15, "%s backward error %g", names[i], be);
    }
}

/* bench --device cuda on a machine with a CUDA device: every default kernel
 * (ours and cuSPARSE) runs and is accurate; skipped without a device. */
TEST(bench_cuda)
{
    int ndev = 0;
    if (psl_cuda_device_count(&ndev) != PSL_OK || ndev == 0) {
        printf("  (no CUDA device: bench --device cuda is checked in runtime_errors_exit_1)\n");
        return;
    }
    const char *json = tmp("bench_cuda.json");
    int rc = run("bench gen:lap2d:12 --device cuda --reps 3 --warmup 1 --json '%s'", json);
    CHECK_MSG(rc == 0, "bench --device cuda exit %d: %s", rc, err_text);
    static char text[1 << 17];
    slurp(json, text, sizeof text);
    CHECK_MSG(json_valid(text), "invalid JSON:\n%s", text);
    CHECK(strstr(text, "\"device\": \"cuda\"") && json_num(text, "copy_gbs") > 0);
    const char *names[] = {"packsell-fp16",     "packsell-bf16",     "packsell-e8m21",
                           "packsell-e8m10",    "sell-fp16",         "sell-fp32",
                           "cusparse-csr-fp16", "cusparse-csr-fp64", "cusparse-sell-fp16",
                           "cusparse-sell-fp64", "cusparse-coo-fp32", "cusparse-bsr-fp32"};
    check_bench_kernels(text, names, sizeof names / sizeof names[0]);
    /* explicit permutation and beta != 0 through the same checks */
    rc = run("bench gen:lap2d:12 --device cuda --reps 2 --warmup 1 --permute explicit --beta 1 "
             "--kernels packsell-e8m13,cusparse-sell-fp32 --json '%s'",
             json);
    CHECK_MSG(rc == 0, "bench exit %d: %s", rc, err_text);
    slurp(json, text, sizeof text);
    CHECK(json_valid(text) && json_num(text, "backward_error") < 1e-2);
}

/* bench --format csrk --device cuda: the CSR-k kernels and cuSPARSE's CSR
 * run and are accurate; skipped without a device. */
TEST(bench_cuda_csrk)
{
    int ndev = 0;
    if (psl_cuda_device_count(&ndev) != PSL_OK || ndev == 0) {
        printf("  (no CUDA device: bench --format csrk --device cuda not run)\n");
        return;
    }
    const char *json = tmp("bench_cuda_csrk.json");
    int rc = run("bench gen:powerlaw:3000:20:1.5 --device cuda --format csrk --reps 3 "
                 "--warmup 1 --json '%s'", json);
    CHECK_MSG(rc == 0, "bench --format csrk --device cuda exit %d: %s", rc, err_text);
    static char text[1 << 17];
    slurp(json, text, sizeof text);
    CHECK_MSG(json_valid(text), "invalid JSON:\n%s", text);
    const char *names[] = {"csrk-fp64", "csrk-fp32", "csrk-fp16", "csr-fp64", "csr-fp32"};
    check_bench_kernels(text, names, sizeof names / sizeof names[0]);
}

/* tune-csrk on tiny matrices and a small grid: the fit file is written,
 * loads, holds the fit the JSON reports and is not replaced without
 * --force; usage and runtime errors; --csrk-fit of info, convert, bench. */
TEST(tune_csrk_cpu)
{
    const char *fit = tmp("fit.txt"), *json = tmp("tune.json");
    const char *args = "--matrices gen:lap2d:24,gen:hpcg:3:3:3,gen:random:400:12 --sr 2,8,32 "
                       "--ssr 1,4 --reps 1 --warmup 0 --min-time 0";
    remove(fit);
    int rc = run("tune-csrk --device cpu %s --holdout gen:lap3d:9 --out '%s' --json '%s'", args,
                 fit, json);
    CHECK_MSG(rc == 0, "tune-csrk exit %d: %s", rc, err_text);
    CHECK(strstr(out_text, "within 10% of the best on") && strstr(out_text, "gen:hpcg:3:3:3"));
    CHECK(strstr(out_text, "of 3 fitted matrices") && strstr(out_text, "of 1 held-out matrices"));
    static char text[1 << 16], again[1 << 16];
    slurp(fit, text, sizeof text);
    CHECK_MSG(strncmp(text, "# packsell csrk fit v1\n# written by packsell", 44) == 0, "%s", text);
    CHECK(strstr(text, "# command: packsell tune-csrk") && strstr(text, "\ncpu inf "));
    CHECK_OK(psl_csrk_model_load(fit));
    psl_csrk_model_row rows[PSL_CSRK_MODEL_ROWS_MAX];
    int n = 0;
    CHECK_OK(psl_csrk_model_get(PSL_CSRK_DEVICE_CPU, rows, PSL_CSRK_MODEL_ROWS_MAX, &n));
    static char js[1 << 18];
    slurp(json, js, sizeof js);
    CHECK_MSG(json_valid(js), "invalid JSON:\n%s", js);
    CHECK(json_has_str(js, "device", "cpu") && json_has_str(js, "fit_file", fit));
    CHECK(n == 1 && json_num(js, "sr_a") > -1e9 && json_num(js, "within_10pct_share") >= 0);
    CHECK(json_num(js, "fitted") == 3 && json_num(js, "held_out_within_10pct_share") >= 0);
    /* the fit's pick of the report is the model's pick once the file is loaded */
    int32_t sr = 0, ssr = 0;
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 10648.0 / 512, &sr, &ssr));
    char pick[64];
    snprintf(pick, sizeof pick, "(%d,%d)", (int)sr, (int)ssr);
    const char *line = strstr(out_text, "gen:hpcg:3:3:3");
    CHECK_MSG(line && strstr(line, pick), "%s not in %s", pick, out_text);
    psl_csrk_model_reset();
    /* an existing --out (or --json) is kept */
    CHECK(run("tune-csrk %s --out '%s'", args, fit) == 1 && strstr(err_text, "not replaced"));
    CHECK(run("tune-csrk %s --out '%s' --json '%s'", args, tmp("fit2.txt"), json) == 1 &&
          strstr(err_text, "--json"));
    slurp(fit, again, sizeof again);
    CHECK(strcmp(text, again) == 0);
    CHECK_MSG(run("tune-csrk %s --out '%s' --force", args, fit) == 0, "%s", err_text);
    /* errors: usage (2), runtime (1, nothing written) */
    const char *usage[] = {"--sr 0", "--sr 2,2", "--sr 2,", "--ssr x", "--reps 0",
                           "--min-time -1", "--out -", "--matrices ,", "--device gpu", "extra",
                           "--stat mean", "--json x.json --out x.json",
                           "--sr 1,2,3,4,5,6,7,8,9 --ssr 1,2,3,4,5,6,7,8"};
    for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++)
        CHECK_MSG(run("tune-csrk --out '%s' %s", tmp("u.txt"), usage[i]) == 2, "%s: %s",
                  usage[i], err_text);
    CHECK(run("tune-csrk --matrices '%s' --out '%s'", tmp("nope.mtx"), tmp("u.txt")) == 1);
    FILE *f = fopen(tmp("u.txt"), "r");
    CHECK(f == NULL);
    if (f)
        fclose(f);
    int ndev = 0;
    if (psl_cuda_device_count(&ndev) != PSL_OK || ndev == 0)
        CHECK(run("tune-csrk --device cuda --out '%s'", tmp("u.txt")) == 1 &&
              strstr(err_text, "--device cuda"));
    CHECK(run("tune-csrk --help") == 0 && strstr(out_text, "Usage: packsell tune-csrk"));

    /* --csrk-fit: a fit of small groups gives more super-rows */
    const psl_csrk_model_row small = {INFINITY, 2, 0, 2, 0, 1, 1, 1};
    const char *sfit = tmp("small_fit.txt");
    CHECK_OK(psl_csrk_model_save(sfit, PSL_CSRK_DEVICE_CPU, &small, 1, NULL));
    CHECK(run("info gen:lap2d:64 --format csrk --json") == 0);
    double nsr0 = json_num(out_text, "csrk_super_rows");
    CHECK_MSG(run("info gen:lap2d:64 --format csrk --csrk-fit '%s' --json", sfit) == 0, "%s",
              err_text);
    CHECK(json_num(out_text, "csrk_super_rows") > 1500 && nsr0 < 500);
    CHECK_MSG(run("convert gen:lap2d:64 -o '%s' --format csrk --csrk-fit '%s'", tmp("k.psl"),
                  sfit) == 0, "%s", err_text);
    CHECK(run("info '%s' --json", tmp("k.psl")) == 0 && json_num(out_text, "csrk_super_rows") > 1500);
    CHECK_MSG(run("bench gen:lap2d:64 --format csrk --csrk-fit '%s' --reps 1 --warmup 0 "
                  "--min-time 0 --read-mib 0", sfit) == 0, "%s", err_text);
    const char *bad = tmp("bad_fit.txt");
    f = fopen(bad, "w");
    if (f) {
        fputs("# packsell csrk fit v1\ncpu 8 2 0 2 0 1 1 1\n", f);
        fclose(f);
    }
    CHECK(run("info gen:lap2d:8 --format csrk --csrk-fit '%s'", bad) == 1 &&
          strstr(err_text, ":2: ") && strstr(err_text, "must be inf"));
    CHECK(run("info gen:lap2d:8 --format csr --csrk-fit '%s'", sfit) == 2 &&
          strstr(err_text, "--csrk-fit applies only to --format csrk"));
    CHECK(run("info gen:lap2d:8 --format auto --precision fp16 --csrk-fit '%s'", sfit) == 2);
    /* the environment route of the command */
    setenv("PSL_CSRK_FIT", bad, 1);
    CHECK(run("info gen:lap2d:8 --format csrk") == 1 && strstr(err_text, "PSL_CSRK_FIT"));
    setenv("PSL_CSRK_FIT", sfit, 1);
    CHECK(run("info gen:lap2d:64 --format csrk --json") == 0 &&
          json_num(out_text, "csrk_super_rows") > 1500);
    unsetenv("PSL_CSRK_FIT");
}

TEST(usage_errors_exit_2)
{
    const char *mtx = tmp("l4.mtx");
    CHECK(run("gen lap2d:4 -o '%s'", mtx) == 0);
    const char *lines[] = {
        "frobnicate",
        "--frobnicate",
        "gen",
        "gen lap2d:4",
        "gen lap2d:4 -o",
        "info",
        "info gen:lap2d:4 --bogus",
        "info gen:lap2d:4 --format",
        "info gen:lap2d:4 --format coo",
        "info gen:lap2d:4 --format sell --slice 1000000000", /* a slice only pads */
        "info gen:lap2d:4 --json=yes",
        "info gen:lap2d:4 extra",
        "info gen:lap2d:4 --slice 8",
        "info gen:lap2d:4 --format sell --slice x",
        "info gen:lap2d:4 --format sell --slice 0",
        "info gen:lap2d:4 --format sell --slice 8 --sigma 12",
        "info gen:lap2d:4 --format sell --permute sideways",
        "info gen:lap2d:4 --format sell --delta-bits 4",
        "info gen:lap2d:4 --format csr --values fp16",
        "info gen:lap2d:4 --format packsell --values e8m",
        "convert gen:lap2d:4",
        "spmv gen:lap2d:4 -o y.mtx",
        "spmv gen:lap2d:4 --x ones",
        "spmv gen:lap2d:4 --x ones -o y.mtx --vectors bf16",
        "spmv gen:lap2d:4 --x ones -o y.mtx --alpha one",
        "spmv gen:lap2d:4 --x ones -o y.mtx --beta 1",
        "spmv gen:lap2d:4 --x random:abc -o y.mtx",
        "spmv gen:lap2d:4 --x ones -o y.mtx --device tpu",
        "bench gen:lap2d:4 --reps abc",
        "bench gen:lap2d:4 --reps 0",
        "bench gen:lap2d:4 --kernels nope-fp64",
        "bench gen:lap2d:4 --kernels csr-fp16",
        "bench gen:lap2d:4 --kernels sell-fp32,",
        "bench gen:lap2d:4 --min-time -1",
        "bench gen:lap2d:4 --scale columns",
        "bench gen:lap2d:4 --rounds 0",
        "bench gen:lap2d:4 --rounds 101",
        "bench gen:lap2d:4 --read-mib -1",
        "bench gen:lap2d:4 --device gpu",
        "bench gen:lap2d:4 --kernels cusparse-csr-fp32",
        "bench gen:lap2d:4 --device cpu --kernels sell-fp32,cusparse-sell-fp16",
        "bench gen:lap2d:4 --device cuda --kernels cusparse-coo-fp64",
        "bench gen:lap2d:4 --device cuda --kernels cusparse-bsr-bf16",
        "bench gen:lap2d:4 --device cuda --kernels cusparse-ell-fp32",
        "bench gen:lap2d:4 --device cuda --kernels cusparse-csr",
        "bench gen:lap2d:4 --device cuda --kernels cusparse-csr-fp32:fp16",
        "bench gen:lap2d:4 --device cuda --kernels sell-fp32,",
        "bench gen:lap2d:4 --device cuda --reps 0",
        "info gen:lap2d:4 --format auto",
        "info gen:lap2d:4 --format auto --precision fp8",
        "info gen:lap2d:4 --precision fp16",
        "info gen:lap2d:4 --format sell --precision fp16",
        "info gen:lap2d:4 --format auto --precision fp16 --values fp16",
        "convert gen:lap2d:4 -o a.psl --format auto --precision fp32 --slice 8",
        "spmv gen:lap2d:4 --x ones -o y.mtx --format auto --precision fp32 --delta-bits 2",
        "choose",
        "choose gen:lap2d:4 --precision fp128",
        "choose gen:lap2d:4 --bogus",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        int rc = run("%s", lines[i]);
        CHECK_MSG(rc == 2, "'%s' exit %d (stderr: %s)", lines[i], rc, err_text);
        CHECK_MSG(strncmp(err_text, "packsell", 8) == 0 && strlen(err_text) > 12,
                  "'%s' message: %s", lines[i], err_text);
    }
    CHECK(run("bench gen:lap2d:4 --kernels cusparse-csr-fp32") == 2 &&
          strstr(err_text, "cusparse-csr-fp32") && strstr(err_text, "--device cuda"));
    CHECK(run("bench gen:lap2d:4 --device cuda --kernels cusparse-coo-fp64") == 2 &&
          strstr(err_text, "fp64") && strstr(err_text, "coo"));
    CHECK(run("info gen:lap2d:4 --bogus") == 2 && strstr(err_text, "--bogus"));
    CHECK(run("info gen:lap2d:4 --format auto") == 2 && strstr(err_text, "--precision"));
    CHECK(run("info gen:lap2d:4 --format auto --precision fp16 --sigma 64") == 2 &&
          strstr(err_text, "--sigma") && strstr(err_text, "auto"));
    CHECK(run("spmv gen:lap2d:4 --x ones") == 2 && strstr(err_text, "-o"));
}

TEST(runtime_errors_exit_1)
{
    /* PSL_MEMORY_LIMIT: a generator spec above it, and SELL padding above it
     * (one slice of 4000 rows over a power-law matrix), fail at once */
    setenv("PSL_MEMORY_LIMIT", "2M", 1);
    CHECK(run("info gen:lap2d:1000") == 1 && strstr(err_text, "PSL_MEMORY_LIMIT=2097152"));
    CHECK(run("info gen:powerlaw:4000:8:1.1 --format sell --slice 4000 --sigma 0") == 1 &&
          strstr(err_text, "SELL-C-sigma storage with C = 4000") &&
          strstr(err_text, "PSL_MEMORY_LIMIT"));
    CHECK(run("info gen:powerlaw:4000:8:1.1 --format sell") == 0);
    /* SD-AINV without dropping fills its factors towards n^2 entries */
    CHECK(run("solve gen:lap2d:100 --precond sdainv --sdainv-tol 0") == 1 &&
          strstr(err_text, "SD-AINV factor") && strstr(err_text, "PSL_MEMORY_LIMIT"));
    CHECK(run("solve gen:lap2d:100 --precond sdainv") == 0 && strstr(out_text, "converged"));
    setenv("PSL_MEMORY_LIMIT", "2MB", 1);
    CHECK(run("info gen:lap2d:4") == 1 && strstr(err_text, "PSL_MEMORY_LIMIT") &&
          strstr(err_text, "2MB"));
    unsetenv("PSL_MEMORY_LIMIT");
    /* PSL_HUGEPAGES is read by allocations, which have no error to give: the
     * command refuses an invalid value before it starts */
    setenv("PSL_HUGEPAGES", "yes", 1);
    CHECK(run("info gen:lap2d:4") == 1 && strstr(err_text, "PSL_HUGEPAGES") &&
          strstr(err_text, "0|1"));
    CHECK(run("spmv gen:lap2d:4 -o '%s'", tmp("hugepages-y.txt")) == 1);
    CHECK(access(tmp("hugepages-y.txt"), F_OK) != 0);
    setenv("PSL_HUGEPAGES", "0", 1);
    CHECK(run("info gen:lap2d:4") == 0);
    unsetenv("PSL_HUGEPAGES");

    CHECK(run("info '%s'", tmp("does-not-exist.mtx")) == 1);
    CHECK_MSG(strstr(err_text, "packsell info: ") == err_text &&
                  strstr(err_text, "does-not-exist.mtx"),
              "%s", err_text);
    /* option values that cannot apply are usage errors (exit 2) */
    CHECK(run("info gen:lap2d:4 --format packsell --values e9m30") == 2);
    CHECK(strstr(err_text, "packsell info: --values e9m30") == err_text);
    CHECK(run("info gen:lap2d:4 --format packsell --values nonsense") == 2);
    CHECK(strstr(err_text, "nonsense"));
    CHECK(run("info gen:lap2d:4 --format packsell --values e8m10 --delta-bits 10") == 2);
    CHECK(strstr(err_text, "--delta-bits") && strstr(err_text, "12"));
    CHECK(run("convert gen:lap2d:4 --format packsell --values fp16 --delta-bits 1 -o '%s'",
              tmp("d1.psl")) == 2);
    /* outputs are checked before the work, and nothing is written */
    CHECK(run("bench gen:lap2d:4 --device cpu --json '%s/no/such/dir/b.json'", tmp("")) == 1);
    CHECK_MSG(strstr(err_text, "does not exist") && !strstr(out_text, "csr-fp64"), "%s",
              err_text);
    CHECK(run("convert gen:lap2d:4 -o '%s'", tmp("")) == 1);
    CHECK_MSG(strstr(err_text, "not a regular file (a folder)"), "%s", err_text);
    CHECK(run("gen lap2d:4 -o /dev/null") == 1);
    CHECK_MSG(strstr(err_text, "(a device)"), "%s", err_text);
    CHECK(run("solve gen:lap2d:4 --history '%s/no/dir/h.csv'", tmp("")) == 1);
    CHECK(strstr(err_text, "--history"));
    /* the FP16 overflow hint names the command's option, not the library's constant */
    const char *big16 = tmp("big16.mtx");
    FILE *bf = fopen(big16, "w");
    CHECK(bf != NULL);
    if (bf) {
        fputs("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e6\n", bf);
        fclose(bf);
    }
    CHECK(run("convert '%s' --format sell --values fp16 -o '%s'", big16, tmp("b16.psl")) == 1);
    CHECK_MSG(strstr(err_text, "--overflow saturate") && !strstr(err_text, "PSL_OVERFLOW"), "%s",
              err_text);
    CHECK(run("gen hpcg:x:1 -o '%s'", tmp("bad.mtx")) == 1);
    CHECK(strstr(err_text, "packsell gen: ") == err_text);

    double x3[3] = {1, 2, 3};
    CHECK_OK(psl_mm_write_vector(tmp("x3.mtx"), x3, 3));
    CHECK(run("spmv gen:lap2d:4 --x '%s' -o '%s'", tmp("x3.mtx"), tmp("y.mtx")) == 1);
    CHECK_MSG(strstr(err_text, "3 entries") && strstr(err_text, "16 columns"), "%s", err_text);
    CHECK(run("spmv gen:lap2d:4 --x ones -o '%s' --beta 1 --y0 '%s'", tmp("y.mtx"),
              tmp("x3.mtx")) == 1);
    CHECK(strstr(err_text, "16 rows"));
    CHECK(run("spmv gen:lap2d:4 --x '%s' -o '%s'", tmp("nothere.mtx"), tmp("y.mtx")) == 1);
    CHECK(strstr(err_text, "nothere.mtx"));
    /* fp16 vectors: x beyond the FP16 range is reported, not turned into Inf */
    double big[16];
    for (int i = 0; i < 16; i++)
        big[i] = i == 5 ? 1e6 : 1.0;
    CHECK_OK(psl_mm_write_vector(tmp("xbig.mtx"), big, 16));
    CHECK(run("spmv gen:lap2d:4 --x '%s' -o '%s' --vectors fp16", tmp("xbig.mtx"),
              tmp("y.mtx")) == 1);
    CHECK_MSG(strstr(err_text, "x[5]"), "%s", err_text);
    /* a corrupt binary file */
    FILE *f = fopen(tmp("junk.psl"), "wb");
    if (f) {
        fputs("PSLjunkjunkjunkjunk", f);
        fclose(f);
    }
    CHECK(run("info '%s'", tmp("junk.psl")) == 1);
    /* bench and spmv --device cuda: without a CUDA build or device, exit 1
     * with a clear message (bench_cuda below covers a machine with a device) */
    int ndev = 0;
    psl_status cst = psl_cuda_device_count(&ndev);
    if (cst != PSL_OK || ndev == 0) {
        CHECK(run("spmv gen:lap2d:4 --x ones -o '%s' --device cuda", tmp("y.mtx")) == 1);
        CHECK_MSG(strstr(err_text, "--device cuda") != NULL, "%s", err_text);
        CHECK(run("bench gen:lap2d:4 --device cuda") == 1);
        CHECK_MSG(strstr(err_text, "packsell bench: --device cuda: ") == err_text &&
                      (cst == PSL_ERR_NOT_SUPPORTED
                           ? strstr(err_text, "not supported in this build") != NULL
                           : strstr(err_text, "no CUDA device") != NULL),
                  "%s", err_text);
        CHECK(out_text[0] == '\0');
        /* it fails before the matrix is read (no time lost on a big one) */
        CHECK(run("bench '%s' --device cuda --kernels cusparse-sell-fp16", tmp("nothere.mtx")) ==
              1);
        CHECK_MSG(!strstr(err_text, "nothere") && strstr(err_text, "--device cuda"), "%s",
                  err_text);
    }
    /* writing into a missing directory */
    CHECK(run("convert gen:lap2d:4 -o '%s/no/such/dir/a.psl'", tmpdir) == 1);
}

/* packsell choose and --format auto agree with psl_choose_format. */
TEST(choose_and_auto)
{
    const char *src = "gen:hpcg:3:3:3";
    CHECK_MSG(run("choose %s", src) == 0, "%s", err_text);
    CHECK(strstr(out_text, "precision fp16") && strstr(out_text, "precision fp32") &&
          strstr(out_text, "precision fp64") && strstr(out_text, "PackSELL D = 15"));
    int picks = 0;
    for (const char *p = out_text; (p = strstr(p, "pick:")) != NULL; p++)
        picks++;
    CHECK(picks == 3);

    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, src));
    for (int p = 0; A && p < 3; p++) {
        psl_precision prec = (psl_precision)p;
        psl_choice c;
        CHECK_OK(psl_choose_format(A, prec, NULL, &c));
        const psl_candidate *k = &c.candidates[c.pick];
        CHECK_MSG(run("choose %s --precision %s --json '%s'", src, psl_precision_name(prec),
                      tmp("choose.json")) == 0, "%s", err_text);
        char json[1 << 14];
        slurp(tmp("choose.json"), json, sizeof json);
        CHECK_MSG(json_valid(json), "%s", json);
        CHECK(json_has_str(json, "pick_kernel", k->kernel) &&
              json_has_str(json, "precision", psl_precision_name(prec)));
        CHECK(fabs(json_num(json, "pick_predicted_us") - k->predicted_us) <=
              1e-9 * k->predicted_us);
        CHECK(json_num(json, "nnz") == (double)c.nnz);

        /* convert --format auto stores the pick */
        CHECK_MSG(run("convert %s -o '%s' --format auto --precision %s", src, tmp("auto.psl"),
                      psl_precision_name(prec)) == 0, "%s", err_text);
        psl_matrix *B = NULL;
        psl_matrix_info info;
        CHECK_OK(psl_matrix_load(&B, tmp("auto.psl")));
        CHECK_OK(psl_matrix_get_info(B, &info));
        CHECK(B && info.format == c.opt.format);
        if (B && info.format == PSL_FORMAT_PACKSELL)
            CHECK(info.codec.exp_bits == c.opt.codec.exp_bits &&
                  info.codec.man_bits == c.opt.codec.man_bits);
        else if (B)
            CHECK(info.value_type == c.opt.value_type);
        CHECK(info.bytes == k->bytes || info.format == PSL_FORMAT_CSR);
        psl_matrix_destroy(&B);

        /* info --format auto shows the same choice (table and JSON) */
        CHECK(run("info %s --format auto --precision %s", src, psl_precision_name(prec)) == 0);
        CHECK(strstr(out_text, "pick:") && strstr(out_text, k->kernel));
        CHECK(run("info %s --format auto --precision %s --json", src,
                  psl_precision_name(prec)) == 0);
        CHECK_MSG(json_valid(out_text), "%s", out_text);
        CHECK(json_has_str(out_text, "pick_kernel", k->kernel));
    }
    psl_matrix_destroy(&A);

    /* no --device: the default H200 model, printed and recorded in the JSON;
     * --device cpu: this host's CPU model (threads, the read bandwidth
     * measured), its candidates the library's CSR; an unknown device is a
     * usage error */
    CHECK_MSG(run("choose %s --precision fp16 --json '%s'", src, tmp("choose-dev.json")) == 0,
              "%s", err_text);
    CHECK(strstr(out_text, "H200 (default model)") && strstr(out_text, "4258.0 GB/s"));
    {
        char json[1 << 14];
        slurp(tmp("choose-dev.json"), json, sizeof json);
        CHECK(json_valid(json) && json_num(json, "sm_count") == 132 &&
              json_num(json, "threads_per_sm") == 2048 && json_num(json, "l2_bytes") == 5e7 &&
              json_num(json, "copy_gbs") == 4258 && json_num(json, "cluster_max") == 16 &&
              json_has_str(json, "target", "cuda"));
    }
    CHECK_MSG(run("choose %s --device cpu --json '%s'", src, tmp("choose-cpu.json")) == 0, "%s",
              err_text);
    CHECK(strstr(out_text, "predicted times are for the CPU") && strstr(out_text, "threads") &&
          strstr(out_text, "on the CPU") && strstr(out_text, "csr-fp64") &&
          !strstr(out_text, "cusparse"));
    {
        char json[1 << 15];
        slurp(tmp("choose-cpu.json"), json, sizeof json);
        CHECK(json_valid(json) && json_has_str(json, "target", "cpu") &&
              json_num(json, "threads") >= 1 && json_num(json, "read_gbs") > 0);
    }
    CHECK(run("choose %s --device tpu", src) == 2 && strstr(err_text, "cpu or cuda"));

    /* errors: a missing file; values beyond FP32 at fp16/fp32 name the entry */
    CHECK(run("choose '%s'", tmp("nothere.mtx")) == 1 && strstr(err_text, "nothere.mtx"));
    FILE *f = fopen(tmp("huge.mtx"), "w");
    if (f) {
        fputs("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 3 1e300\n"
              "3 3 2\n", f);
        fclose(f);
    }
    CHECK(run("choose '%s' --precision fp32", tmp("huge.mtx")) == 1);
    CHECK_MSG(strstr(err_text, "packsell choose: ") == err_text && strstr(err_text, "row 1") &&
                  strstr(err_text, "column 2"), "%s", err_text);
    CHECK(run("convert '%s' -o '%s' --format auto --precision fp16", tmp("huge.mtx"),
              tmp("h.psl")) == 1);
    CHECK(run("choose '%s' --precision fp64", tmp("huge.mtx")) == 0);
}

static const psl_test_case tests[] = {
    {"choose_and_auto", choose_and_auto},
    {"help_and_version", help_and_version},
    {"gen_info_roundtrip", gen_info_roundtrip},
    {"spmv_formats_and_permutations", spmv_formats_and_permutations},
    {"convert_to_matrix_market", convert_to_matrix_market},
    {"streams", streams},
    {"convert_then_spmv", convert_then_spmv},
    {"bench_json", bench_json},
    {"bench_cpu_bandwidth_and_mkl", bench_cpu_bandwidth_and_mkl},
    {"spmv_cuda_matches_cpu", spmv_cuda_matches_cpu},
    {"bench_cuda", bench_cuda},
    {"bench_cuda_csrk", bench_cuda_csrk},
    {"tune_csrk_cpu", tune_csrk_cpu},
    {"usage_errors_exit_2", usage_errors_exit_2},
    {"runtime_errors_exit_1", runtime_errors_exit_1},
};

PSL_TEST_MAIN_IN_TMPDIR(tests, tmpdir, "cli")
