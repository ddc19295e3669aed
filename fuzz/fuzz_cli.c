/*
 * fuzz_cli.c -- libFuzzer target for the packsell command line: the input
 * is split on NUL or newline into at most MAX_ARGS arguments, which run
 * in-process as `packsell ARGS...` through cli_main (tools/dispatch.c):
 * option parsing, generator specs (gen:hpcg:...), codec names (--values
 * e8m10) and the work behind them, for every command (gen, info, convert,
 * spmv, bench, choose, solve, help). Any exit status is fine; a crash, a
 * sanitizer report, a leak, a timeout or a temporary output file left
 * behind is a bug.
 *
 * The sandbox: at start-up the harness moves into a fresh temporary folder
 * (under $TMPDIR, else /tmp), which it empties after each input. Inputs
 * with an argument that contains '/' or ".tmp", or that is (or whose
 * --opt=VALUE value is) "-" or "..", are skipped: no reading of standard input, no
 * path outside the folder, no /dev files. Standard output goes to
 * /dev/null (run with -close_fd_mask=2 to silence the command's error
 * messages too; libFuzzer keeps its own reports). The folder being the
 * working directory, give libFuzzer absolute paths (corpus,
 * -artifact_prefix); fuzz/cli.dict holds the command's words.
 *
 * The bounds, so that one input stays fast without hiding a code path:
 *  - PSL_MEMORY_LIMIT is 2 MiB (psl_option_set): larger generator specs,
 *    Matrix Market reads, SELL/PackSELL storage and SD-AINV factors are
 *    refused by the library, as the option says (tests/test_options.c and
 *    tests/test_cli.c check that);
 *  - options that only set how long a run lasts are skipped above a small
 *    value: an input whose value of --reps, --warmup, --max-iters,
 *    --restart or --inner-iters is longer than 3 characters, of --repeat
 *    longer than 2, of --threads, --m2, --m3 or --m4 (f3r's nested steps,
 *    which multiply) longer than 1, or whose --min-time or --max-time is a
 *    number above 0.01 (seconds);
 *  - `bench` gets "--min-time=0" as its first option (the default, 0.2 s
 *    per kernel, would make every bench input take seconds); a --min-time
 *    of the input comes later and wins;
 *  - OpenMP runs one thread, set again after each input (--threads
 *    changes it).
 */
#define _DEFAULT_SOURCE /* mkdtemp, fdopendir, openat, unlinkat */
#include "cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24

static char sandbox[4096];
static char tmp_mark[32]; /* ".tmpPID.": the names of unfinished writes */

/* Remove everything in the folder open as dfd (closed here); when
 * check_tmp, abort on a temporary output file left behind. */
static void empty_folder(int dfd, int check_tmp)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (check_tmp && strstr(e->d_name, tmp_mark)) {
            fprintf(stderr, "fuzz_cli: temporary file '%s' left behind\n", e->d_name);
            abort();
        }
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            continue;
        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (sub >= 0) {
            empty_folder(sub, check_tmp);
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
        }
    }
    closedir(d);
}

/* At exit: the sandbox goes (emptied after each input, so removable). */
static void remove_sandbox(void)
{
    empty_folder(open(sandbox, O_RDONLY | O_DIRECTORY), 0);
    rmdir(sandbox);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *base = getenv("TMPDIR");
    snprintf(sandbox, sizeof sandbox, "%s/psl_fuzz_cli.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(sandbox) || chdir(sandbox) != 0) {
        perror("fuzz_cli: sandbox");
        abort();
    }
    atexit(remove_sandbox);
    snprintf(tmp_mark, sizeof tmp_mark, ".tmp%ld.", (long)getpid());
    if (!freopen("/dev/null", "w", stdout)) {
        perror("fuzz_cli: /dev/null");
        abort();
    }
    if (psl_option_set("PSL_MEMORY_LIMIT", "2M") != PSL_OK)
        abort();
    omp_set_num_threads(1);
    return 0;
}

/* The value of a run-length option in args (the next argument or the text
 * after '='): 1 when it is within the bounds of the top comment. */
static int run_length_ok(char **args, int n, int i)
{
    static const struct {
        const char *name;
        size_t max_len; /* 0: a time in seconds, at most 0.01 */
    } opts[] = {{"--reps", 3},     {"--warmup", 3},      {"--max-iters", 3}, {"--restart", 3},
                {"--inner-iters", 3}, {"--repeat", 2},   {"--threads", 1},   {"--m2", 1},
                {"--m3", 1},       {"--m4", 1},          {"--min-time", 0},  {"--max-time", 0}};
    const char *w = args[i];
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        size_t len = strlen(opts[k].name);
        const char *v;
        if (strncmp(w, opts[k].name, len) != 0)
            continue;
        if (w[len] == '=')
            v = w + len + 1;
        else if (w[len] == '\0')
            v = i + 1 < n ? args[i + 1] : "";
        else
            continue;
        if (opts[k].max_len)
            return strlen(v) <= opts[k].max_len;
        char *end;
        double t = strtod(v, &end);
        return end == v || *end != '\0' || t <= 0.01; /* not a number: a usage error */
    }
    return 1;
}

/* Whether argument w may run: no '/' and no ".tmp" (a temporary's name is
 * the check for leftovers), and neither it nor its =VALUE is "-" or "..". */
static int argument_ok(const char *w)
{
    if (strchr(w, '/') || strstr(w, ".tmp"))
        return 0;
    const char *eq = strchr(w, '=');
    const char *checks[2] = {w, eq ? eq + 1 : NULL};
    for (int k = 0; k < 2; k++)
        if (checks[k] && (strcmp(checks[k], "-") == 0 || strcmp(checks[k], "..") == 0))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char prog[] = "packsell", min_time[] = "--min-time=0";
    char *argv[MAX_ARGS + 3] = {prog};
    int argc = 1;
    for (size_t p = 0; p < size && argc <= MAX_ARGS;) {
        size_t e = p;
        while (e < size && buf[e] != '\0' && buf[e] != '\n')
            e++;
        buf[e] = '\0';
        argv[argc++] = buf + p;
        p = e + 1;
    }
    int ok = 1;
    for (int i = 1; i < argc && ok; i++)
        ok = argument_ok(argv[i]) && run_length_ok(argv, argc, i);
    if (ok && argc > 1 && strcmp(argv[1], "bench") == 0) {
        memmove(argv + 3, argv + 2, (size_t)(argc - 2) * sizeof *argv);
        argv[2] = min_time;
        argc++;
    }
    argv[argc] = NULL;
    if (ok) {
        cli_main(argc, argv);
        fflush(stdout);
        empty_folder(open(".", O_RDONLY | O_DIRECTORY), 1);
        omp_set_num_threads(1);
    }
    free(buf);
    return 0;
}
