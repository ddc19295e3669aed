/*
 * json.c -- a tiny streaming JSON writer: objects, arrays, escaped strings
 * (control characters as \u00XX, invalid UTF-8 replaced by U+FFFD) and
 * numbers in the shortest text that reads back to the same double.
 */
#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_json_init(cli_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

void cli_json_report_head(cli_json *j, const char *device)
{
    char date[64], host[256];
    cli_run_stamp(date, sizeof date, host, sizeof host);
    cli_json_string(j, "packsell_version", psl_version());
    cli_json_string(j, "date", date);
    cli_json_string(j, "host", host);
    cli_json_string(j, "device", device);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x3fu >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void cli_json_write_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        unsigned c = *s;
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            s++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': fputs("\\n", f); break;
            case '\t': fputs("\\t", f); break;
            case '\r': fputs("\\r", f); break;
            case '\b': fputs("\\b", f); break;
            case '\f': fputs("\\f", f); break;
            default: fprintf(f, "\\u%04x", c); break;
            }
            s++;
        } else {
            int n = utf8_len(s);
            if (n == 0) {
                fputs("\\ufffd", f);
                s++;
            } else {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            }
        }
    }
    fputc('"', f);
}

const char *cli_json_number(double v, char *buf, size_t len)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

/* Comma, newline and indentation before a value, then the key. */
static void prefix(cli_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->count[j->depth] > 0)
            fputc(',', j->f);
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    j->count[j->depth]++;
    if (key) {
        cli_json_write_string(j->f, key);
        fputs(": ", j->f);
    }
}

static void open_level(cli_json *j, const char *key, char c)
{
    prefix(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < (int)(sizeof j->count / sizeof j->count[0]))
        j->depth++;
    j->count[j->depth] = 0;
}

static void close_level(cli_json *j, char c)
{
    int had = j->count[j->depth] > 0;
    if (j->depth > 0)
        j->depth--;
    if (had) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
    if (j->depth == 0)
        fputc('\n', j->f);
}

void cli_json_begin_object(cli_json *j, const char *key) { open_level(j, key, '{'); }
void cli_json_end_object(cli_json *j) { close_level(j, '}'); }
void cli_json_begin_array(cli_json *j, const char *key) { open_level(j, key, '['); }
void cli_json_end_array(cli_json *j) { close_level(j, ']'); }

void cli_json_string(cli_json *j, const char *key, const char *v)
{
    prefix(j, key);
    if (v)
        cli_json_write_string(j->f, v);
    else
        fputs("null", j->f);
}

void cli_json_int(cli_json *j, const char *key, int64_t v)
{
    prefix(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void cli_json_double(cli_json *j, const char *key, double v)
{
    char buf[40];
    prefix(j, key);
    if (isfinite(v))
        fputs(cli_json_number(v, buf, sizeof buf), j->f);
    else
        fputs("null", j->f);
}

void cli_json_bool(cli_json *j, const char *key, int v)
{
    prefix(j, key);
    fputs(v ? "true" : "false", j->f);
}

void cli_json_null(cli_json *j, const char *key)
{
    prefix(j, key);
    fputs("null", j->f);
}
