/*
 * args.c -- the option parser shared by every subcommand (--flag VALUE,
 * --flag=VALUE, short aliases, "--"), number parsing with range checks, and
 * the error printers ("packsell <cmd>: <message>").
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Print "packsell <cmd>: " + formatted message + newline to stderr. */
static void vreport(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "packsell%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'packsell%s%s --help' for more information.\n", cmd ? " " : "",
            cmd ? cmd : "");
    return CLI_USAGE;
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    return CLI_RUNTIME;
}

int cli_lib_error(const char *cmd, psl_status st)
{
    const char *msg = psl_last_error_message();
    if (!msg || !msg[0])
        msg = psl_status_string(st);
    /* the library's hints name its constants; the command's user has options */
    static const char *const hints[][2] = {{"PSL_OVERFLOW_SATURATE", "--overflow saturate"}};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        const char *at = strstr(msg, hints[i][0]);
        if (at)
            return cli_error(cmd, "%.*s%s%s", (int)(at - msg), msg, hints[i][1],
                             at + strlen(hints[i][0]));
    }
    return cli_error(cmd, "%s", msg);
}

cli_opt *cli_find(cli_opt *opts, int nopts, const char *name)
{
    for (int i = 0; i < nopts; i++)
        if (strcmp(opts[i].name, name) == 0)
            return &opts[i];
    return NULL;
}

/* The option matching word (up to '=' when has_eq), or NULL. */
static cli_opt *match(cli_opt *opts, int nopts, const char *word, size_t len)
{
    for (int i = 0; i < nopts; i++) {
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, word, len) == 0)
            return &opts[i];
        if (opts[i].alias && strlen(opts[i].alias) == len &&
            strncmp(opts[i].alias, word, len) == 0)
            return &opts[i];
    }
    return NULL;
}

int cli_parse_one(const char *cmd, int argc, char **argv, cli_opt *opts, int nopts,
                  void (*usage)(void), const char *what, const char **arg)
{
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, arg, 1, &npos);
    if (rc == CLI_HELP)
        usage();
    if (rc)
        return rc;
    if (npos < 1)
        return cli_usage_error(cmd, "missing %s", what);
    return CLI_OK;
}

int cli_parse(const char *cmd, int argc, char **argv, cli_opt *opts, int nopts,
              const char **pos, int max_pos, int *npos)
{
    int only_pos = 0;
    *npos = 0;
    for (int i = 0; i < argc; i++) /* --help wins over any other problem */
        if (strcmp(argv[i], "--") == 0)
            break;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return CLI_HELP;
    for (int i = 0; i < argc; i++) {
        const char *w = argv[i];
        if (only_pos || w[0] != '-' || w[1] == '\0') { /* "-" alone is positional */
            if (*npos >= max_pos)
                return cli_usage_error(cmd, "unexpected argument '%s'", w);
            pos[(*npos)++] = w;
            continue;
        }
        if (strcmp(w, "--") == 0) {
            only_pos = 1;
            continue;
        }
        const char *eq = strchr(w, '=');
        size_t len = eq ? (size_t)(eq - w) : strlen(w);
        cli_opt *o = match(opts, nopts, w, len);
        if (!o)
            return cli_usage_error(cmd, "unknown option '%.*s'", (int)len, w);
        o->present++;
        if (!o->takes_value) {
            if (eq)
                return cli_usage_error(cmd, "option %s takes no value", o->name);
            continue;
        }
        if (eq) {
            o->value = eq + 1;
        } else {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "option %s needs a value", o->name);
            o->value = argv[++i];
        }
        if (!o->value[0])
            return cli_usage_error(cmd, "option %s has an empty value", o->name);
    }
    return CLI_OK;
}

int cli_parse_int(const char *cmd, const char *opt, const char *s, long long lo,
                  long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return cli_usage_error(cmd, "%s expects an integer, got '%s'", opt, s);
    if (v < lo || v > hi)
        return cli_usage_error(cmd, "%s must be in %lld..%lld, got %lld", opt, lo, hi, v);
    *out = v;
    return CLI_OK;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return cli_usage_error(cmd, "%s expects a finite number, got '%s'", opt, s);
    *out = v;
    return CLI_OK;
}
