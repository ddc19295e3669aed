/*
 * fuzz_cli.c -- libFuzzer target for the packsell command line: the input
 * is split on NUL or newline into at most MAX_ARGS arguments, which run
 * in-process as `packsell ARGS...` through cli_main (tools/dispatch.c):
 * option parsing, generator specs (gen:hpcg:...), codec names (--values
 * e8m10) and the work behind them, for every command (gen, info, convert,
 * spmv, bench, choose, solve, tune-csrk, help). A CSR-k fit that an input
 * loads (--csrk-fit) is forgotten after it (psl_csrk_model_reset). Any exit status is fine; a crash, a
 * sanitizer report, a leak, a timeout or a temporary output file left
 * behind is a bug.
 *
 * The sandbox: at start-up the harness moves into a fresh temporary folder
 * (under $TMPDIR, else /tmp), which it empties after each input. Inputs
 * with an argument that contains '/' or ".tmp", or that is (or whose
 * --opt=VALUE value is) "-" or "..", are skipped: no reading of standard
 * input, no path outside the folder, no /dev files. Standard output goes to
 * /dev/null (run with -close_fd_mask=2 to silence the command's error
 * messages too; libFuzzer keeps its own reports). The folder being the
 * working directory, give libFuzzer absolute paths (corpus,
 * -artifact_prefix); fuzz/cli.dict holds the command's words.
 *
 * The bounds, so that one input stays fast without hiding a code path:
 *  - PSL_MEMORY_LIMIT is MEMORY_LIMIT (psl_option_set): larger generator
 *    specs, Matrix Market reads, SELL/PackSELL storage and SD-AINV factors
 *    are refused by the library, as the option says (tests/test_options.c
 *    and tests/test_cli.c check that);
 *  - options that only set how long a run lasts are skipped above a small
 *    value: an input is skipped when its value of --reps, --warmup,
 *    --max-iters, --restart, --inner-iters, --repeat, --m2, --m3 or --m4 is
 *    longer than 3 characters, when its --min-time or --max-time is a
 *    number above 0.01 (seconds), and when the iterations these options
 *    multiply to exceed a budget: for solve
 *    --repeat x --max-iters x the inner steps (iocg: --inner-iters; f3r:
 *    --m2 x --m3 x --m4; defaults as the command's) above MAX_SOLVE_STEPS,
 *    for bench (--reps + --warmup) x the kernels above MAX_BENCH_RUNS, for
 *    tune-csrk (--reps + --warmup) x (the grid's pairs + 3) x the matrices
 *    (--matrices and --holdout) above MAX_TUNE_RUNS;
 *  - the command gets one option before the input's own, which win over
 *    it: bench and tune-csrk "--min-time=0" (the default, 0.2 s per kernel, would make
 *    every bench input take seconds), solve "--max-iters=SOLVE_MAX_ITERS"
 *    (a system that does not converge would run the default 10000);
 *  - OpenMP runs one thread, and inputs with a --threads other than 1 are
 *    skipped: LLVM 14's libomp leaks its team structures at exit once the
 *    team size has changed (a three-line program shows it; bench/NOTES.md),
 *    which LeakSanitizer would report against the last input.
 */
#define _DEFAULT_SOURCE /* mkdtemp, fdopendir, openat, unlinkat, strcasecmp */
#include "cli.h"

#include <dirent.h>
#include <fcntl.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24
#define MEMORY_LIMIT "256K"  /* PSL_MEMORY_LIMIT: matrices of up to about 20000 entries */
#define SOLVE_MAX_ITERS 10   /* solve's --max-iters unless the input gives one */
#define MAX_SOLVE_STEPS 1000 /* repeats x outer x inner iterations of one solve */
#define MAX_BENCH_RUNS 1000  /* (reps + warmup) x kernels of one bench */
#define MAX_TUNE_RUNS 5000   /* (reps + warmup) x timed pairs of one tune-csrk */

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
    if (psl_option_set("PSL_MEMORY_LIMIT", MEMORY_LIMIT) != PSL_OK)
        abort();
    omp_set_num_threads(1);
    return 0;
}

/* The value of option name in args[from..n) (the next argument or the text
 * after '='; the last one wins, as in the command), or NULL. */
static const char *option_value(char **args, int n, int from, const char *name)
{
    const char *v = NULL;
    size_t len = strlen(name);
    for (int i = from; i < n; i++) {
        if (strcmp(args[i], "--") == 0)
            break;
        if (strncmp(args[i], name, len) == 0 && args[i][len] == '=')
            v = args[i] + len + 1;
        else if (strcmp(args[i], name) == 0 && i + 1 < n)
            v = args[++i];
    }
    return v;
}

/* Option name's value as a number, def when absent or not a number (the
 * command then refuses it or takes its default). */
static double number(char **args, int n, const char *name, double def)
{
    const char *v = option_value(args, n, 2, name);
    char *end;
    double x = v ? strtod(v, &end) : def;
    return v && (end == v || *end != '\0' || !(x >= 0 && x < 1e6)) ? def : x;
}

/* Whether the run-length options of the command line in args[0..n) (args[1]
 * the command) are within the bounds of the top comment. */
static int run_length_ok(char **args, int n)
{
    static const struct {
        const char *name;
        size_t max_len;
    } lengths[] = {{"--reps", 3},    {"--warmup", 3},      {"--max-iters", 3}, {"--restart", 3},
                   {"--inner-iters", 3}, {"--repeat", 3}, {"--m2", 3},        {"--m3", 3},
                   {"--m4", 3}};
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        const char *v = option_value(args, n, 2, lengths[k].name);
        if (v && strlen(v) > lengths[k].max_len)
            return 0;
    }
    const char *threads = option_value(args, n, 2, "--threads");
    if (threads && strcmp(threads, "1") != 0)
        return 0;
    if (number(args, n, "--min-time", 0) > 0.01 || number(args, n, "--max-time", 0) > 0.01)
        return 0;
    if (strcmp(args[1], "solve") == 0) {
        const char *method = option_value(args, n, 2, "--method");
        double inner = 1;
        if (method && strcasecmp(method, "iocg") == 0)
            inner = number(args, n, "--inner-iters", 50);
        else if (method && strcasecmp(method, "f3r") == 0)
            inner = number(args, n, "--m2", 8) * number(args, n, "--m3", 4) *
                    number(args, n, "--m4", 2);
        double outer = number(args, n, "--max-iters", SOLVE_MAX_ITERS);
        return number(args, n, "--repeat", 1) * outer * inner <= MAX_SOLVE_STEPS;
    }
    if (strcmp(args[1], "bench") == 0) {
        const char *list = option_value(args, n, 2, "--kernels");
        double kernels = 8; /* the default list */
        if (list && strcmp(list, "all") != 0)
            for (kernels = 1; *list; list++)
                kernels += *list == ',';
        double runs = number(args, n, "--reps", 10) + number(args, n, "--warmup", 2);
        return runs * kernels <= MAX_BENCH_RUNS;
    }
    if (strcmp(args[1], "tune-csrk") == 0) {
        double items[4] = {8, 6, 6, 0}; /* the defaults: --sr, --ssr, --matrices, --holdout */
        const char *names[4] = {"--sr", "--ssr", "--matrices", "--holdout"};
        for (int k = 0; k < 4; k++) {
            const char *list = option_value(args, n, 2, names[k]);
            if (list)
                for (items[k] = 1; *list; list++)
                    items[k] += *list == ',' ? 1 : 0;
        }
        double runs = number(args, n, "--reps", 10) + number(args, n, "--warmup", 2);
        return runs * (items[0] * items[1] + 3) * (items[2] + items[3]) <= MAX_TUNE_RUNS;
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
    char prog[] = "packsell", min_time[] = "--min-time=0", max_iters[32];
    snprintf(max_iters, sizeof max_iters, "--max-iters=%d", SOLVE_MAX_ITERS);
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
        ok = argument_ok(argv[i]);
    ok = ok && (argc < 2 || run_length_ok(argv, argc));
    char *first = NULL; /* the option put before the input's own */
    if (ok && argc > 1)
        first = strcmp(argv[1], "bench") == 0 || strcmp(argv[1], "tune-csrk") == 0 ? min_time
                : strcmp(argv[1], "solve") == 0                                      ? max_iters
                                                                                     : NULL;
    if (first) {
        memmove(argv + 3, argv + 2, (size_t)(argc - 2) * sizeof *argv);
        argv[2] = first;
        argc++;
    }
    argv[argc] = NULL;
    if (ok) {
        cli_main(argc, argv);
        psl_csrk_model_reset();
        fflush(stdout);
        empty_folder(open(".", O_RDONLY | O_DIRECTORY), 1);
    }
    free(buf);
    return 0;
}
