/*
 * csrk_fit_file.c -- the saved fit of the CSR-k tuning model: a plain text
 * file, its checks, its reader and its writer.
 *
 *   # packsell csrk fit v1
 *   # any comment (the tuner writes date, host and its sweep here)
 *   # device d_max sr_a sr_b ssr_a ssr_b lanes block_rows block_srs
 *   cpu  inf 48 6.5 12 1.5 1 1 1
 *   cuda 8   9.175 1.32 20.5 3.5 1 8 12
 *   cuda inf 24.77 3.564 6.19 0.891 32 8 2
 *
 * The first line is the header (the version); then one table row a line,
 * nine fields separated by blanks: the device kind (cpu or cuda), d_max (a
 * number >= 1 or inf), the coefficients of round(sr_a - sr_b ln d) and
 * round(ssr_a - ssr_b ln d), and the CUDA block (lanes, block_rows,
 * block_srs; 1 1 1 on the CPU). '#' starts a comment anywhere; blank lines
 * are ignored. A device's rows come in increasing d_max, the last one inf
 * (psl_csrk_fit_row_problem says what a row may hold). The coefficients
 * may have any sign (a least-squares line of sizes growing with d has
 * b < 0 and may have a <= 0; the model clamps each size to [1, 2^30]).
 * Numbers are read the same in every locale.
 */
#include "format/csrk/csrk.h"
#include "io/mm_internal.h"
#include "io/outfile.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "# packsell csrk fit v"
#define VERSION 1
#define COEF_MAX 1e9 /* |coefficient| at most: sizes are at most 2^30 */

static const char *const device_names[PSL_CSRK_DEVICES] = {"cpu", "cuda"};

/* ------------------------------------------------------------ checks */

const char *psl_csrk_fit_row_problem(psl_csrk_device dev, const psl_csrk_fit *r,
                                     double prev_d_max, char *buf, size_t len)
{
    const double c[4] = {r->sr_a, r->sr_b, r->ssr_a, r->ssr_b};
    static const char *const cname[4] = {"sr_a", "sr_b", "ssr_a", "ssr_b"};
    if (!(r->d_max >= 1))
        snprintf(buf, len, "d_max %g: expected a number >= 1 or inf", r->d_max);
    else if (!(r->d_max > prev_d_max))
        snprintf(buf, len, "d_max %g does not follow the previous row's %g (rows in "
                 "increasing d_max)", r->d_max, prev_d_max);
    else {
        for (int i = 0; i < 4; i++) {
            if (!isfinite(c[i]) || fabs(c[i]) > COEF_MAX) {
                snprintf(buf, len, "%s %g: expected a finite number of magnitude at most %g",
                         cname[i], c[i], COEF_MAX);
                return buf;
            }
        }
        if (dev == PSL_CSRK_DEVICE_CPU) {
            if (r->lanes != 1 || r->block_rows != 1 || r->block_srs != 1)
                snprintf(buf, len, "cpu row with lanes %d, block_rows %d, block_srs %d: "
                         "expected 1 1 1 (no thread blocks on the CPU)", (int)r->lanes,
                         (int)r->block_rows, (int)r->block_srs);
            else
                return NULL;
            return buf;
        }
        const int32_t l = r->lanes;
        if (l < 0 || l > 32 || (l & (l - 1)))
            snprintf(buf, len, "lanes %d: expected 0, 1, 2, 4, 8, 16 or 32", (int)l);
        else if (r->block_rows < 1 || r->block_srs < 1 ||
                 r->block_rows > PSL_CSRK_FIT_THREADS_MAX ||
                 r->block_srs > PSL_CSRK_FIT_THREADS_MAX)
            snprintf(buf, len, "block_rows %d, block_srs %d: expected 1 to %d each",
                     (int)r->block_rows, (int)r->block_srs, PSL_CSRK_FIT_THREADS_MAX);
        else {
            const int64_t threads = (int64_t)(l > 1 ? l : 1) * r->block_rows * r->block_srs;
            const int most = l ? PSL_CSRK_FIT_THREADS_MAX : PSL_CSRK_FIT_STREAM_THREADS_MAX;
            if (threads > most || threads % PSL_CSRK_FIT_WARP)
                snprintf(buf, len, "block of %lld threads (lanes %d x %d rows x %d "
                         "super-rows): expected a multiple of %d up to %d%s",
                         (long long)threads, (int)l, (int)r->block_rows, (int)r->block_srs,
                         PSL_CSRK_FIT_WARP, most, l ? "" : " (lanes 0: the stream kernel)");
            else
                return NULL;
        }
        return buf;
    }
    return buf;
}

psl_status psl_csrk_fit_check(psl_csrk_device dev, const psl_csrk_fit *rows, int n,
                              const char *who)
{
    if ((unsigned)dev >= PSL_CSRK_DEVICES)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: device %d is not a psl_csrk_device (cpu 0, "
                         "cuda 1)", who, (int)dev);
    if (n < 1 || n > PSL_CSRK_MODEL_ROWS_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: %d rows for %s: expected 1 to %d", who, n,
                         device_names[dev], PSL_CSRK_MODEL_ROWS_MAX);
    if (!rows)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: the rows are NULL", who);
    char why[256];
    double prev = 0;
    for (int i = 0; i < n; i++) {
        if (psl_csrk_fit_row_problem(dev, &rows[i], prev, why, sizeof why))
            return psl_error(PSL_ERR_INVALID_VALUE, "%s: %s row %d: %s", who, device_names[dev],
                             i, why);
        prev = rows[i].d_max;
    }
    if (rows[n - 1].d_max != INFINITY)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: the last %s row ends at d_max %g: expected "
                         "inf (every d needs a row)", who, device_names[dev], rows[n - 1].d_max);
    return PSL_OK;
}

/* ------------------------------------------------------------ reader */

/* The state of a parse: the file's name, the line being read and the
 * line of each device kind's last row. */
typedef struct fit_parser {
    const char *name;
    int64_t line;
    int64_t last_line[PSL_CSRK_DEVICES];
} fit_parser;

/* PSL_ERR_* st with "name:line: message". */
static psl_status line_error(const fit_parser *p, psl_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static psl_status line_error(const fit_parser *p, psl_status st, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return psl_error_at(st, p->line, -1, -1, "%.200s:%lld: %s", p->name, (long long)p->line,
                        msg);
}

/* The next blank-separated token of [*s, end): [*tok, *tok_end), or 0 at
 * the end. */
static int next_token(const char **s, const char *end, const char **tok, const char **tok_end)
{
    const char *q = *s;
    while (q < end && psl_mm_is_blank(*q))
        q++;
    if (q == end)
        return 0;
    *tok = q;
    while (q < end && !psl_mm_is_blank(*q))
        q++;
    *tok_end = q;
    *s = q;
    return 1;
}

/* A field of a row (named for the messages) as a real: d_max also takes "inf". */
static psl_status real_field(const fit_parser *p, const char *field, const char *t,
                             const char *te, int inf_ok, double *out)
{
    if (inf_ok && te - t == 3 && memcmp(t, "inf", 3) == 0) {
        *out = INFINITY;
        return PSL_OK;
    }
    const char *next = NULL;
    psl_num_result r = psl_mm_parse_double(t, te, out, &next);
    if (r == PSL_NUM_OK && next == te)
        return PSL_OK;
    return line_error(p, r == PSL_NUM_NONFINITE ? PSL_ERR_INVALID_VALUE : PSL_ERR_PARSE,
                      "%s '%.*s' is not a finite number%s", field,
                      (int)(te - t > 40 ? 40 : te - t), t, inf_ok ? " or inf" : "");
}

/* Field of a row as an int32. */
static psl_status int_field(const fit_parser *p, const char *field, const char *t,
                            const char *te, int32_t *out)
{
    int64_t v = 0;
    const char *next = NULL;
    psl_num_result r = psl_mm_parse_int(t, te, &v, &next);
    if (r != PSL_NUM_OK || next != te || v < INT32_MIN || v > INT32_MAX)
        return line_error(p, PSL_ERR_PARSE, "%s '%.*s' is not an integer", field,
                          (int)(te - t > 40 ? 40 : te - t), t);
    *out = (int32_t)v;
    return PSL_OK;
}

/* One data line [s, end) (comment removed, not blank) into out. */
static psl_status parse_row(fit_parser *p, const char *s, const char *end,
                            psl_csrk_fit_tables *out)
{
    static const char *const fields[9] = {"device", "d_max", "sr_a", "sr_b", "ssr_a",
                                          "ssr_b", "lanes", "block_rows", "block_srs"};
    const char *t[10], *te[10];
    int nf = 0;
    while (nf < 10 && next_token(&s, end, &t[nf], &te[nf]))
        nf++;
    if (nf > 9)
        return line_error(p, PSL_ERR_PARSE, "more than 9 fields: expected device d_max sr_a "
                          "sr_b ssr_a ssr_b lanes block_rows block_srs");
    if (nf < 9)
        return line_error(p, PSL_ERR_PARSE, "%d fields: expected 9 (device d_max sr_a sr_b "
                          "ssr_a ssr_b lanes block_rows block_srs)", nf);
    int dev = -1;
    for (int k = 0; k < PSL_CSRK_DEVICES; k++)
        if ((size_t)(te[0] - t[0]) == strlen(device_names[k]) &&
            memcmp(t[0], device_names[k], (size_t)(te[0] - t[0])) == 0)
            dev = k;
    if (dev < 0)
        return line_error(p, PSL_ERR_PARSE, "device '%.*s': expected cpu or cuda",
                          (int)(te[0] - t[0] > 40 ? 40 : te[0] - t[0]), t[0]);
    psl_csrk_fit r;
    double *reals[5] = {&r.d_max, &r.sr_a, &r.sr_b, &r.ssr_a, &r.ssr_b};
    int32_t *ints[3] = {&r.lanes, &r.block_rows, &r.block_srs};
    for (int k = 0; k < 5; k++)
        PSL_TRY(real_field(p, fields[1 + k], t[1 + k], te[1 + k], k == 0, reals[k]));
    for (int k = 0; k < 3; k++)
        PSL_TRY(int_field(p, fields[6 + k], t[6 + k], te[6 + k], ints[k]));
    int *n = &out->n[dev];
    if (*n == PSL_CSRK_MODEL_ROWS_MAX)
        return line_error(p, PSL_ERR_INVALID_VALUE, "more than %d %s rows",
                          PSL_CSRK_MODEL_ROWS_MAX, device_names[dev]);
    char why[256];
    if (psl_csrk_fit_row_problem((psl_csrk_device)dev, &r, *n ? out->rows[dev][*n - 1].d_max : 0,
                                 why, sizeof why))
        return line_error(p, PSL_ERR_INVALID_VALUE, "%s row: %s", device_names[dev], why);
    out->rows[dev][(*n)++] = r;
    p->last_line[dev] = p->line;
    return PSL_OK;
}

/* The header line [s, end): "# packsell csrk fit v1". */
static psl_status parse_header(const fit_parser *p, const char *s, const char *end)
{
    const size_t hl = strlen(HEADER);
    while (end > s && psl_mm_is_blank(end[-1]))
        end--;
    if ((size_t)(end - s) <= hl || memcmp(s, HEADER, hl) != 0)
        return line_error(p, PSL_ERR_PARSE, "not a packsell CSR-k fit: the first line must be "
                          "'" HEADER "%d'", VERSION);
    int64_t v = 0;
    const char *next = NULL;
    if (psl_mm_parse_int(s + hl, end, &v, &next) != PSL_NUM_OK || next != end || s[hl] == '+' ||
        s[hl] == '-')
        return line_error(p, PSL_ERR_PARSE, "bad version in the header: expected '" HEADER
                          "%d'", VERSION);
    if (v != VERSION)
        return line_error(p, PSL_ERR_FILE_VERSION, "fit file version %lld: this packsell reads "
                          "version %d", (long long)v, VERSION);
    return PSL_OK;
}

psl_status psl_csrk_fit_parse(const char *name, const char *text, size_t len,
                              psl_csrk_fit_tables *out)
{
    if (!text && len)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_csrk_fit_parse: text is NULL");
    memset(out, 0, sizeof *out);
    fit_parser p = {name ? name : "(fit)", 0, {0, 0}};
    const char *s = text, *end = text + len;
    int header = 0;
    while (s < end) {
        const char *eol = memchr(s, '\n', (size_t)(end - s));
        const char *le = eol ? eol : end;
        p.line++;
        if (memchr(s, '\0', (size_t)(le - s)))
            return line_error(&p, PSL_ERR_PARSE, "a NUL byte (not a text file)");
        if (!header) {
            PSL_TRY(parse_header(&p, s, le));
            header = 1;
        } else {
            const char *hash = memchr(s, '#', (size_t)(le - s));
            const char *de = hash ? hash : le, *q = s;
            while (q < de && psl_mm_is_blank(*q))
                q++;
            if (q < de)
                PSL_TRY(parse_row(&p, q, de, out));
        }
        s = eol ? eol + 1 : end;
    }
    if (!header) {
        p.line = 1;
        return line_error(&p, PSL_ERR_PARSE, "empty file: expected the header '" HEADER "%d'",
                          VERSION);
    }
    int any = 0;
    for (int d = 0; d < PSL_CSRK_DEVICES; d++) {
        int n = out->n[d];
        any |= n > 0;
        if (n > 0 && out->rows[d][n - 1].d_max != INFINITY) {
            p.line = p.last_line[d];
            return line_error(&p, PSL_ERR_INVALID_VALUE, "the %s rows end at d_max %g: the last "
                              "one must be inf (every d needs a row)", device_names[d],
                              out->rows[d][n - 1].d_max);
        }
    }
    if (!any) {
        p.line = p.line > 1 ? p.line : 1;
        return line_error(&p, PSL_ERR_INVALID_VALUE, "no table row (lines 'device d_max sr_a "
                          "sr_b ssr_a ssr_b lanes block_rows block_srs')");
    }
    return PSL_OK;
}

psl_status psl_csrk_fit_read(const char *path, psl_csrk_fit_tables *out)
{
    if (!path)
        return psl_error(PSL_ERR_NULL_POINTER, "CSR-k fit: the path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f)
        return psl_error(PSL_ERR_IO, "cannot open the CSR-k fit '%.300s': %s", path,
                         strerror(errno));
    char *buf = malloc(PSL_CSRK_FIT_FILE_MAX + 1);
    if (!buf) {
        fclose(f);
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory to read the CSR-k fit '%.300s'",
                         path);
    }
    size_t n = fread(buf, 1, PSL_CSRK_FIT_FILE_MAX + 1, f);
    int bad = ferror(f);
    fclose(f);
    psl_status st;
    if (bad)
        st = psl_error(PSL_ERR_IO, "cannot read the CSR-k fit '%.300s'", path);
    else if (n > PSL_CSRK_FIT_FILE_MAX)
        st = psl_error(PSL_ERR_PARSE, "the CSR-k fit '%.300s' is larger than %d bytes: not a "
                       "fit file", path, PSL_CSRK_FIT_FILE_MAX);
    else
        st = psl_csrk_fit_parse(path, buf, n, out);
    free(buf);
    return st;
}

/* ------------------------------------------------------------ writer */

/* v as the shortest text of at most 17 digits that reads back as v, with a
 * '.' whatever the locale ("inf" for +Inf); no exponent for magnitudes in
 * [1e-4, 1e15). */
static void put_real(FILE *f, double v)
{
    if (v == INFINITY) {
        fputs("inf", f);
        return;
    }
    char buf[40];
    const char point = localeconv()->decimal_point[0];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (prec < 17 && strchr(buf, 'e') && fabs(v) >= 1e-4 && fabs(v) < 1e15)
            continue;
        char *dot = point && point != '.' ? strchr(buf, point) : NULL;
        if (dot)
            *dot = '.';
        double back = 0;
        const char *next = NULL;
        size_t n = strlen(buf);
        if (psl_mm_parse_double(buf, buf + n, &back, &next) == PSL_NUM_OK && back == v)
            break;
    }
    fputs(buf, f);
}

psl_status psl_csrk_fit_write(const char *path, psl_csrk_device dev, const psl_csrk_fit *rows,
                              int n, const char *comment)
{
    PSL_TRY(psl_csrk_fit_check(dev, rows, n, "CSR-k fit to write"));
    psl_out_file o;
    PSL_TRY(psl_out_open(&o, path));
    FILE *f = o.f;
    fprintf(f, HEADER "%d\n", VERSION);
    for (const char *c = comment; c && *c;) {
        size_t k = strcspn(c, "\n");
        fprintf(f, "# %.*s\n", (int)k, c);
        c += k + (c[k] == '\n');
    }
    fputs("# device d_max sr_a sr_b ssr_a ssr_b lanes block_rows block_srs\n", f);
    for (int i = 0; i < n; i++) {
        const psl_csrk_fit *r = &rows[i];
        const double v[5] = {r->d_max, r->sr_a, r->sr_b, r->ssr_a, r->ssr_b};
        fputs(device_names[dev], f);
        for (int k = 0; k < 5; k++) {
            fputc(' ', f);
            put_real(f, v[k]);
        }
        fprintf(f, " %d %d %d\n", (int)r->lanes, (int)r->block_rows, (int)r->block_srs);
    }
    if (ferror(f)) {
        psl_out_abort(&o);
        return psl_error(PSL_ERR_IO, "cannot write the CSR-k fit '%.300s'", path);
    }
    return psl_out_commit(&o);
}
