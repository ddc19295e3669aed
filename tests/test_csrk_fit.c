/*
 * test_csrk_fit.c -- saved fits of the CSR-k tuning model
 * (src/format/csrk/csrk_fit_file.c, the tables in use in csrk_model.c):
 * a table saved, loaded and read back bit for bit, psl_csrk_model_sizes
 * then giving the file's sizes; every kind of bad line refused with its
 * line number, the tables untouched after a failed load; reset restoring
 * the defaults; truncated and mutated files never crashing the parser;
 * psl_csrk_model_set; and the option PSL_CSRK_FIT (environment and
 * psl_option_set): its file used by the model and the conversions, a bad
 * file failing them with its error, psl_csrk_model_load taking precedence.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include "packsell.h"
#include "core/options.h"
#include "format/csrk/csrk.h"
#include "harness.h"

#include <stdint.h>
#include <unistd.h>

static char dir[64];

/* The path of name in the test's folder (at most 8 names at a time). */
static const char *path_of(const char *name)
{
    static char paths[8][128];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 128, "%s/%s", dir, name);
    return p;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(text, 1, len, f) == len);
    fclose(f);
}

/* The current table of dev into rows, its row count returned (0 on error). */
static int table(psl_csrk_device dev, psl_csrk_model_row *rows)
{
    int n = 0;
    CHECK_OK(psl_csrk_model_get(dev, rows, PSL_CSRK_MODEL_ROWS_MAX, &n));
    return n;
}

/* Whether tables a and b are equal, field by field (doubles bit for bit). */
static int same_rows(const psl_csrk_model_row *a, int na, const psl_csrk_model_row *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++) {
        const double x[5] = {a[i].d_max, a[i].sr_a, a[i].sr_b, a[i].ssr_a, a[i].ssr_b};
        const double y[5] = {b[i].d_max, b[i].sr_a, b[i].sr_b, b[i].ssr_a, b[i].ssr_b};
        if (memcmp(x, y, sizeof x) != 0 || a[i].lanes != b[i].lanes ||
            a[i].block_rows != b[i].block_rows || a[i].block_srs != b[i].block_srs)
            return 0;
    }
    return 1;
}

/* round(a - b ln d) clamped to >= 1: what the model must give. */
static int32_t size_of(double a, double b, double d)
{
    double v = nearbyint(a - b * log(d < 1 ? 1 : d));
    return v < 1 ? 1 : (int32_t)v;
}

/* A CPU table of three ranges and a CUDA one of two, with coefficients
 * that need all 17 digits. */
static const psl_csrk_model_row cpu_rows[] = {
    {6.5, 40.0 / 3.0, 1.0 / 7.0, 9.0, 0.0, 1, 1, 1},
    {20, 100.25, 20.5, 30, -2.5, 1, 1, 1},
    {INFINITY, 3e-3 + 200, 1e-300, 0.1 + 0.2, 1e-5, 1, 1, 1},
};
static const psl_csrk_model_row cuda_rows[] = {
    {10, 8, 1, 16, 2, 0, 16, 8},
    {INFINITY, 12.5, 0.5, 4, 0.25, 32, 4, 4},
};

TEST(save_load_round_trip)
{
    psl_csrk_model_reset();
    psl_csrk_model_row def_cpu[PSL_CSRK_MODEL_ROWS_MAX], def_cuda[PSL_CSRK_MODEL_ROWS_MAX];
    psl_csrk_model_row got[PSL_CSRK_MODEL_ROWS_MAX];
    int n_cpu = table(PSL_CSRK_DEVICE_CPU, def_cpu), n_cuda = table(PSL_CSRK_DEVICE_CUDA, def_cuda);
    CHECK(n_cpu >= 1 && n_cuda >= 1 && isinf(def_cpu[n_cpu - 1].d_max));

    const char *f_cpu = path_of("cpu.txt"), *f_cuda = path_of("cuda.txt");
    CHECK_OK(psl_csrk_model_save(f_cpu, PSL_CSRK_DEVICE_CPU, cpu_rows, 3,
                                 "first comment\nsecond # with a hash"));
    CHECK_OK(psl_csrk_model_save(f_cuda, PSL_CSRK_DEVICE_CUDA, cuda_rows, 2, NULL));
    static char text[4096];
    FILE *f = fopen(f_cpu, "r");
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[len] = '\0';
    if (f)
        fclose(f);
    const char *head = "# packsell csrk fit v1\n# first comment\n# second # with a hash\n";
    CHECK_MSG(strncmp(text, head, strlen(head)) == 0, "%s", text);
    CHECK(strstr(text, "\ncpu inf ") && strstr(text, "\ncpu 20 100.25 20.5 30 -2.5 1 1 1\n"));

    CHECK_OK(psl_csrk_model_load(f_cpu));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), cpu_rows, 3));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CUDA, got), def_cuda, n_cuda)); /* kept */
    /* the sizes of each range, k = 3 and k = 2 */
    const double ds[] = {0, 1, 2.5, 6.5, 6.51, 12, 20, 20.5, 27, 1e4};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        const psl_csrk_model_row *r = ds[i] <= 6.5 ? &cpu_rows[0] : ds[i] <= 20 ? &cpu_rows[1]
                                                                             : &cpu_rows[2];
        int32_t sr = 0, ssr = 0;
        CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, ds[i], &sr, &ssr));
        CHECK_MSG(sr == size_of(r->sr_a, r->sr_b, ds[i]) &&
                      ssr == size_of(r->ssr_a, r->ssr_b, ds[i]),
                  "d %g: %d %d", ds[i], (int)sr, (int)ssr);
        int32_t sr2 = 0, ssr2 = -1;
        CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 2, ds[i], &sr2, &ssr2));
        CHECK(sr2 == sr * ssr && ssr2 == 0);
    }
    /* the internal view the build and the device grouping read */
    int n = 0;
    const psl_csrk_fit *t = psl_csrk_model_table(PSL_CSRK_DEVICE_CPU, &n);
    CHECK(n == 3 && t[1].sr_a == 100.25 && psl_csrk_model_fit(PSL_CSRK_DEVICE_CPU, 7)->d_max == 20);

    CHECK_OK(psl_csrk_model_load(f_cuda));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CUDA, got), cuda_rows, 2));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), cpu_rows, 3));
    CHECK(psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, 5)->lanes == 0);
    CHECK(psl_csrk_model_fit(PSL_CSRK_DEVICE_CUDA, 50)->lanes == 32);

    /* a file of both kinds, written by hand: comments, blanks, CRLF, tabs */
    const char *both = "# packsell csrk fit v1\r\n"
                       "\n"
                       "   # a comment line\n"
                       "cpu\tinf 50 5 10 1 1 1 1   # trailing comment\r\n"
                       "cuda 8 9 1 20 3 1 8 12\n"
                       "  cuda  inf  20  2  6  1  32  8  2";
    write_text(path_of("both.txt"), both, strlen(both));
    CHECK_OK(psl_csrk_model_load(path_of("both.txt")));
    psl_csrk_model_row want_cpu = {INFINITY, 50, 5, 10, 1, 1, 1, 1};
    psl_csrk_model_row want_cuda[2] = {{8, 9, 1, 20, 3, 1, 8, 12}, {INFINITY, 20, 2, 6, 1, 32, 8, 2}};
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), &want_cpu, 1));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CUDA, got), want_cuda, 2));

    /* reset: the defaults again */
    psl_csrk_model_reset();
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), def_cpu, n_cpu));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CUDA, got), def_cuda, n_cuda));
}

TEST(bad_files_refused_with_their_line)
{
    psl_csrk_model_reset();
    psl_csrk_model_row before_cpu[PSL_CSRK_MODEL_ROWS_MAX], got[PSL_CSRK_MODEL_ROWS_MAX];
    CHECK_OK(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, cpu_rows, 3)); /* not the defaults */
    int nb = table(PSL_CSRK_DEVICE_CPU, before_cpu);
    psl_csrk_model_row before_cuda[PSL_CSRK_MODEL_ROWS_MAX];
    int nbc = table(PSL_CSRK_DEVICE_CUDA, before_cuda);
#define H "# packsell csrk fit v1\n"
#define OK_CPU "cpu inf 40 4 10 1 1 1 1\n"
    static const struct {
        const char *text;
        psl_status st;
        int line;
        const char *says;
    } bad[] = {
        {"", PSL_ERR_PARSE, 1, "empty file"},
        {OK_CPU, PSL_ERR_PARSE, 1, "first line must be"},
        {"# packsell csrk fit\n" OK_CPU, PSL_ERR_PARSE, 1, "first line must be"},
        {"# packsell csrk fit v\n" OK_CPU, PSL_ERR_PARSE, 1, "first line must be"},
        {"# packsell csrk fit v1x\n" OK_CPU, PSL_ERR_PARSE, 1, "bad version"},
        {"# packsell csrk fit v-1\n" OK_CPU, PSL_ERR_PARSE, 1, "bad version"},
        {"# packsell csrk fit v2\n" OK_CPU, PSL_ERR_FILE_VERSION, 1, "version 2"},
        {H, PSL_ERR_INVALID_VALUE, 1, "no table row"},
        {H "# only comments\n\n", PSL_ERR_INVALID_VALUE, 3, "no table row"},
        {H "cpu inf 40 4 10 1 1 1\n", PSL_ERR_PARSE, 2, "8 fields"},
        {H "cpu\n", PSL_ERR_PARSE, 2, "1 fields"},
        {H "cpu inf 40 4 10 1 1 1 1 1\n", PSL_ERR_PARSE, 2, "more than 9"},
        {H "gpu inf 40 4 10 1 1 1 1\n", PSL_ERR_PARSE, 2, "device 'gpu'"},
        {H "CPU inf 40 4 10 1 1 1 1\n", PSL_ERR_PARSE, 2, "device 'CPU'"},
        {H "cpu infinity 40 4 10 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "d_max 'infinity'"},
        {H "cpu 1.5.2 40 4 10 1 1 1 1\n", PSL_ERR_PARSE, 2, "d_max '1.5.2'"},
        {H "cpu nan 40 4 10 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "d_max 'nan'"},
        {H "cpu 0.5 40 4 10 1 1 1 1\n" OK_CPU, PSL_ERR_INVALID_VALUE, 2, "d_max 0.5"},
        {H "cpu 1e999 40 4 10 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "d_max '1e999'"},
        {H "cpu inf x 4 10 1 1 1 1\n", PSL_ERR_PARSE, 2, "sr_a 'x'"},
        {H "cpu inf 40 4,5 10 1 1 1 1\n", PSL_ERR_PARSE, 2, "sr_b '4,5'"},
        {H "cpu inf -2e9 4 10 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "sr_a -2e+09"},
        {H "cpu inf 40 4 1.5e9 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "ssr_a 1.5e+09"},
        {H "cpu inf 40 4 10 2e9 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "ssr_b 2e+09"},
        {H "cpu inf 40 inf 10 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 2, "sr_b 'inf'"},
        {H "cpu inf 40 4 10 1 2 1 1\n", PSL_ERR_INVALID_VALUE, 2, "expected 1 1 1"},
        {H "cpu inf 40 4 10 1 1.0 1 1\n", PSL_ERR_PARSE, 2, "lanes '1.0'"},
        {H "cpu inf 40 4 10 1 1 99999999999 1\n", PSL_ERR_PARSE, 2, "block_rows"},
        {H "cuda inf 9 1 20 3 3 8 12\n", PSL_ERR_INVALID_VALUE, 2, "lanes 3"},
        {H "cuda inf 9 1 20 3 64 8 1\n", PSL_ERR_INVALID_VALUE, 2, "lanes 64"},
        {H "cuda inf 9 1 20 3 -1 8 12\n", PSL_ERR_INVALID_VALUE, 2, "lanes -1"},
        {H "cuda inf 9 1 20 3 1 0 12\n", PSL_ERR_INVALID_VALUE, 2, "block_rows 0"},
        {H "cuda inf 9 1 20 3 32 8 4\n", PSL_ERR_INVALID_VALUE, 2, "1024 threads"},
        {H "cuda inf 9 1 20 3 0 5 3\n", PSL_ERR_INVALID_VALUE, 2, "15 threads"},
        {H "cuda inf 9 1 20 3 0 1024 1\n", PSL_ERR_INVALID_VALUE, 2, "block_rows 1024"},
        {H "cpu 8 40 4 10 1 1 1 1\ncpu 8 40 4 10 1 1 1 1\n" OK_CPU, PSL_ERR_INVALID_VALUE, 3,
         "does not follow"},
        {H OK_CPU "cpu 8 40 4 10 1 1 1 1\n", PSL_ERR_INVALID_VALUE, 3, "does not follow"},
        {H "cpu 8 40 4 10 1 1 1 1\n# end\n", PSL_ERR_INVALID_VALUE, 2, "must be inf"},
        {H OK_CPU "cuda 8 9 1 20 3 1 8 12\n\n", PSL_ERR_INVALID_VALUE, 3, "cuda rows end"},
        {H "cpu inf 40 4 10 1 1 1 1\nc\0u inf 40 4 10 1 1 1 1\n", PSL_ERR_PARSE, 3, "NUL"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *p = path_of("bad.txt");
        /* the NUL case holds a NUL: its length is that of the literal */
        size_t len = strlen(bad[i].text);
        if (strstr(bad[i].says, "NUL"))
            len = strlen(bad[i].text) + 1 + strlen(bad[i].text + strlen(bad[i].text) + 1);
        write_text(p, bad[i].text, len);
        CHECK_ST(psl_csrk_model_load(p), bad[i].st);
        psl_error_info e;
        psl_last_error(&e);
        char where[160];
        snprintf(where, sizeof where, "%s:%d: ", p, bad[i].line);
        CHECK_MSG(e.line == bad[i].line && strstr(e.message, where) &&
                      strstr(e.message, bad[i].says),
                  "case %zu: line %lld, message: %s", i, (long long)e.line, e.message);
        CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), before_cpu, nb));
        CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CUDA, got), before_cuda, nbc));
    }
    /* too many rows */
    static char many[4096];
    size_t k = (size_t)snprintf(many, sizeof many, H);
    for (int r = 1; r <= PSL_CSRK_MODEL_ROWS_MAX + 1; r++)
        k += (size_t)snprintf(many + k, sizeof many - k, "cpu %d 40 4 10 1 1 1 1\n", r);
    write_text(path_of("many.txt"), many, k);
    CHECK_ST(psl_csrk_model_load(path_of("many.txt")), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "more than 16 cpu rows") &&
          strstr(psl_last_error_message(), ":18: "));
    /* no file, a folder */
    CHECK_ST(psl_csrk_model_load(path_of("none.txt")), PSL_ERR_IO);
    CHECK(strstr(psl_last_error_message(), "none.txt"));
    CHECK_ST(psl_csrk_model_load(dir), PSL_ERR_IO);
    CHECK_ST(psl_csrk_model_load(NULL), PSL_ERR_NULL_POINTER);
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), before_cpu, nb));
    psl_csrk_model_reset();
#undef H
#undef OK_CPU
}

/* A tiny deterministic generator for the mutations. */
static uint64_t next_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

TEST(truncated_and_garbage_never_crash)
{
    /* every prefix of a valid file, and random mutations of it, parse or
     * fail with a message; the parser reads only the bytes it is given */
    const char *good = "# packsell csrk fit v1\n"
                       "# comment\n"
                       "cpu 12 41.5 4.25 10 1 1 1 1\n"
                       "cpu inf 30 2 8 0.5 1 1 1\n"
                       "cuda 8 9.175 1.32 20.5 3.5 1 8 12\n"
                       "cuda inf 24.7725 3.564 6.193125 0.891 32 8 2\n";
    const size_t n = strlen(good);
    psl_csrk_fit_tables t;
    int oks = 0;
    for (size_t len = 0; len <= n; len++) {
        char *copy = malloc(len ? len : 1); /* exactly len bytes: ASan sees any overread */
        memcpy(copy, good, len);
        psl_status st = psl_csrk_fit_parse("prefix", copy, len, &t);
        CHECK(st == PSL_OK || psl_last_error_message()[0] != '\0');
        oks += st == PSL_OK;
        free(copy);
    }
    CHECK(oks >= 1); /* the whole file (and its prefix without the last newline) */
    CHECK_OK(psl_csrk_fit_parse("whole", good, n, &t));
    CHECK(t.n[0] == 2 && t.n[1] == 2 && t.rows[1][0].sr_a == 9.175);
    static const char alphabet[] = "0123456789.+-eEinfnaxcpudv #\n\t\r\0\xff";
    uint64_t seed = 12345;
    for (int it = 0; it < 20000; it++) {
        char buf[256];
        size_t len = n;
        memcpy(buf, good, n);
        int edits = 1 + (int)(next_rand(&seed) % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = next_rand(&seed) % len;
            switch (next_rand(&seed) % 3) {
            case 0: buf[at] = alphabet[next_rand(&seed) % (sizeof alphabet - 1)]; break;
            case 1: len = at; break; /* truncate */
            default: buf[at] = (char)(next_rand(&seed) & 0xff); break;
            }
            if (len == 0)
                break;
        }
        char *copy = malloc(len ? len : 1);
        memcpy(copy, buf, len);
        psl_status st = psl_csrk_fit_parse("mutated", copy, len, &t);
        CHECK(st == PSL_OK || psl_last_error_message()[0] != '\0');
        if (st == PSL_OK) /* what parses is a valid table */
            for (int d = 0; d < PSL_CSRK_DEVICES; d++)
                if (t.n[d])
                    CHECK_OK(psl_csrk_fit_check((psl_csrk_device)d, t.rows[d], t.n[d], "test"));
        free(copy);
    }
    /* the whole-file limit */
    size_t big = PSL_CSRK_FIT_FILE_MAX + 10;
    char *huge = malloc(big);
    memset(huge, '#', big);
    write_text(path_of("huge.txt"), huge, big);
    free(huge);
    CHECK_ST(psl_csrk_model_load(path_of("huge.txt")), PSL_ERR_PARSE);
    CHECK(strstr(psl_last_error_message(), "larger than"));
}

TEST(set_and_save_checked)
{
    psl_csrk_model_reset();
    psl_csrk_model_row def[PSL_CSRK_MODEL_ROWS_MAX], got[PSL_CSRK_MODEL_ROWS_MAX];
    int nd = table(PSL_CSRK_DEVICE_CPU, def);
    psl_csrk_model_row bad[2] = {cpu_rows[2], cpu_rows[2]};
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, bad, 2), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "cpu row 1"));
    bad[0].d_max = 8;
    bad[1].lanes = 4;
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, bad, 2), PSL_ERR_INVALID_VALUE);
    bad[1].lanes = 1;
    bad[1].d_max = 9;
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, bad, 2), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "must be") || strstr(psl_last_error_message(), "inf"));
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, bad, 0), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, bad, PSL_CSRK_MODEL_ROWS_MAX + 1),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_csrk_model_set((psl_csrk_device)2, cpu_rows, 3), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, NULL, 1), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_csrk_model_set(PSL_CSRK_DEVICE_CUDA, cpu_rows, 3), PSL_ERR_INVALID_VALUE);
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), def, nd));
    CHECK_OK(psl_csrk_model_set(PSL_CSRK_DEVICE_CPU, cpu_rows, 3));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), cpu_rows, 3));
    /* get: room checked */
    int n = 0;
    CHECK_ST(psl_csrk_model_get(PSL_CSRK_DEVICE_CPU, got, 2, &n), PSL_ERR_INVALID_VALUE);
    CHECK_ST(psl_csrk_model_get(PSL_CSRK_DEVICE_CPU, NULL, 2, &n), PSL_ERR_NULL_POINTER);
    CHECK_ST(psl_csrk_model_get((psl_csrk_device)9, got, 16, &n), PSL_ERR_INVALID_VALUE);
    /* save: rows checked before anything is written; the writer's errors */
    const char *p = path_of("unsaved.txt");
    CHECK_ST(psl_csrk_model_save(p, PSL_CSRK_DEVICE_CPU, bad, 2, NULL), PSL_ERR_INVALID_VALUE);
    CHECK(access(p, F_OK) != 0);
    CHECK_ST(psl_csrk_model_save(dir, PSL_CSRK_DEVICE_CPU, cpu_rows, 3, NULL), PSL_ERR_IO);
    CHECK_ST(psl_csrk_model_save(NULL, PSL_CSRK_DEVICE_CPU, cpu_rows, 3, NULL),
             PSL_ERR_NULL_POINTER);
    psl_csrk_model_reset();
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), def, nd));
}

/* Convert lap3d:12 (d = 6.5) to CSR-k k = 3 with the model's sizes: its
 * super-row and super-super-row counts, or the status. */
static psl_status convert_counts(int32_t *nsr, int32_t *nssr)
{
    psl_matrix *A = NULL, *B = NULL;
    psl_status st = psl_generate(&A, "lap3d:12");
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = PSL_FORMAT_CSRK;
    opt.csrk_k = 3;
    if (st == PSL_OK)
        st = psl_matrix_convert(&B, A, &opt);
    psl_matrix_info info;
    if (st == PSL_OK && (st = psl_matrix_get_info(B, &info)) == PSL_OK) {
        *nsr = info.csrk_super_rows;
        *nssr = info.csrk_super_super_rows;
    }
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&B);
    return st;
}

TEST(option_names_the_fit_file)
{
    psl_csrk_model_reset();
    psl_option_set("PSL_CSRK_FIT", NULL);
    psl_csrk_model_row def[PSL_CSRK_MODEL_ROWS_MAX], got[PSL_CSRK_MODEL_ROWS_MAX];
    int nd = table(PSL_CSRK_DEVICE_CPU, def);
    int32_t nsr0 = 0, nssr0 = 0, nsr = 0, nssr = 0;
    CHECK_OK(convert_counts(&nsr0, &nssr0));
    /* a fit of small groups: many more super-rows than the default's */
    const char *fit = path_of("env_fit.txt");
    const psl_csrk_model_row small = {INFINITY, 2, 0, 2, 0, 1, 1, 1};
    CHECK_OK(psl_csrk_model_save(fit, PSL_CSRK_DEVICE_CPU, &small, 1, "from the environment"));

    /* the environment, read at the first use */
    setenv("PSL_CSRK_FIT", fit, 1);
    psl_opt_reset();
    int32_t sr = 0, ssr = 0;
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr));
    CHECK(sr == 2 && ssr == 2);
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), &small, 1));
    CHECK_OK(convert_counts(&nsr, &nssr));
    CHECK_MSG(nsr > 4 * nsr0 && nssr > nssr0, "%d %d vs %d %d", (int)nsr, (int)nssr, (int)nsr0,
              (int)nssr0);
    /* first uses in several threads at once read the file once, alike */
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", ""));
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr));
    CHECK(sr != 2);
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", fit));
    int bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (int i = 0; i < 64; i++) {
        int32_t a = 0, b = 0;
        bad += psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &a, &b) != PSL_OK || a != 2 ||
               b != 2;
    }
    CHECK(bad == 0);
    unsetenv("PSL_CSRK_FIT");
    psl_opt_reset();

    /* a bad file through psl_option_set: every use fails with its error */
    const char *broken = path_of("broken.txt");
    const char *text = "# packsell csrk fit v1\ncpu inf 40 4 10 1 1 1 1\ncuda inf 3e9 1 1 1 1 8 4\n";
    write_text(broken, text, strlen(text));
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", broken));
    char where[160];
    snprintf(where, sizeof where, "PSL_CSRK_FIT: %s:3: ", broken);
    for (int round = 0; round < 2; round++) { /* the kept error, not a second read */
        CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr),
                 PSL_ERR_INVALID_VALUE);
        psl_error_info e;
        psl_last_error(&e);
        CHECK_MSG(strstr(e.message, where) && strstr(e.message, "sr_a 3e+09") && e.line == 3, "%s",
                  e.message);
        CHECK_ST(convert_counts(&nsr, &nssr), PSL_ERR_INVALID_VALUE);
        CHECK(strstr(psl_last_error_message(), where));
        int n = 0;
        CHECK_ST(psl_csrk_model_get(PSL_CSRK_DEVICE_CUDA, got, 16, &n), PSL_ERR_INVALID_VALUE);
    }
    /* psl_csrk_model_load wins for the kinds it loads; the other still fails */
    CHECK_OK(psl_csrk_model_load(fit));
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr));
    CHECK(sr == 2 && ssr == 2);
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CUDA, 3, 6.5, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    psl_csrk_model_reset();
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr),
             PSL_ERR_INVALID_VALUE);
    /* a missing file */
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", path_of("missing.txt")));
    CHECK_ST(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr), PSL_ERR_IO);
    CHECK(strstr(psl_last_error_message(), "missing.txt"));
    /* another value: that file is read */
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", fit));
    CHECK_OK(psl_csrk_model_sizes(PSL_CSRK_DEVICE_CPU, 3, 6.5, &sr, &ssr));
    CHECK(sr == 2);
    /* unset: the defaults */
    CHECK_OK(psl_option_set("PSL_CSRK_FIT", ""));
    CHECK(same_rows(got, table(PSL_CSRK_DEVICE_CPU, got), def, nd));
    CHECK_OK(convert_counts(&nsr, &nssr));
    CHECK(nsr == nsr0 && nssr == nssr0);
    psl_option_set("PSL_CSRK_FIT", NULL);
}

static const psl_test_case tests[] = {
    {"save_load_round_trip", save_load_round_trip},
    {"bad_files_refused_with_their_line", bad_files_refused_with_their_line},
    {"truncated_and_garbage_never_crash", truncated_and_garbage_never_crash},
    {"set_and_save_checked", set_and_save_checked},
    {"option_names_the_fit_file", option_names_the_fit_file},
};

PSL_TEST_MAIN_IN_TMPDIR(tests, dir, "csrk_fit")
