/*
 * options.c -- every runtime option of libpacksell in one table: name (also
 * its environment variable), accepted values, default and documentation.
 * The environment is read once per process, at the first use of any option,
 * and validated; programs override it with psl_option_set. The header
 * include/packsell.h documents the same options for users. One option,
 * PSL_CSRK_FIT, is a path: its text is kept beside the integers.
 */
#include "options.h"

#include "internal.h"
#include "kernels/kernels.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One accepted spelling of a choice option and the integer it stands for. */
typedef struct opt_value {
    const char *name;
    int value;
} opt_value;

typedef struct opt_def {
    const char *name;         /* option and environment variable */
    const opt_value *choices; /* accepted spellings; NULL: an integer in [lo, hi] */
    int nchoices;
    int lo, hi;
    int def;                  /* default value */
    const char *values;       /* accepted values as users read them */
    const char *def_text;     /* the default as psl_option_get spells it */
    const char *doc;
} opt_def;

#define NCHOICES(a) ((int)(sizeof a / sizeof a[0]))

/* The backend names of spmv_dispatch.c. */
static const opt_value kernel_choices[] = {{"auto", -1}, {"omp", 0}, {"ref", 1}};
static const opt_value isa_choices[] = {
    {"auto", -1}, {"generic", PSL_ISA_GENERIC}, {"avx2", PSL_ISA_AVX2}, {"avx512", PSL_ISA_AVX512}};
static const opt_value bool_choices[] = {{"0", 0}, {"1", 1}};
static const opt_value auto_bool_choices[] = {{"auto", -1}, {"0", 0}, {"1", 1}};

/* Indexed by psl_opt. The texts are those of the options table in
 * include/packsell.h. */
static const opt_def defs[PSL_OPT_COUNT] = {
    [PSL_OPT_KERNEL] = {"PSL_KERNEL", kernel_choices, NCHOICES(kernel_choices), 0, 0, -1,
                        "auto|omp|ref", "auto",
                        "CPU SpMV backend: auto takes the OpenMP/SIMD kernels (omp) where "
                        "they cover the matrix and vector types, else the scalar reference "
                        "kernels (ref); omp or ref forces one. Read by psl_spmv and "
                        "psl_spmv_kernel_name on every call."},
    [PSL_OPT_CPU_ISA] = {"PSL_CPU_ISA", isa_choices, NCHOICES(isa_choices), 0, 0, -1,
                         "auto|generic|avx2|avx512", "auto",
                         "Highest instruction set of the OpenMP SELL/PackSELL kernels: auto "
                         "is the best this CPU has (detected once per process); generic, "
                         "avx2 and avx512 cap it. Read by psl_spmv on every call."},
    [PSL_OPT_TRACE] = {"PSL_TRACE", bool_choices, NCHOICES(bool_choices), 0, 0, 0, "0|1", "0",
                       "1 prints to stderr which kernel psl_spmv runs and why, the pick of "
                       "psl_choose_format and the timings of the file readers. Read by each "
                       "of those calls; psl_spmv fails on an invalid value, the others then "
                       "print nothing."},
    [PSL_OPT_CUDA_STREAM_NA] = {"PSL_CUDA_STREAM_NA", auto_bool_choices,
                                NCHOICES(auto_bool_choices), 0, 0, -1, "auto|0|1", "auto",
                                "GPU: 1 streams the matrix past L1, 0 loads it through L1; "
                                "auto decides by the matrix's size against L2. Read by "
                                "psl_dmatrix_upload and psl_dmatrix_convert."},
    [PSL_OPT_CUDA_WORD_PREFETCH] = {"PSL_CUDA_WORD_PREFETCH", auto_bool_choices,
                                    NCHOICES(auto_bool_choices), 0, 0, -1, "auto|0|1", "auto",
                                    "GPU, PackSELL FP16: 1 forces the form for an x larger "
                                    "than L2 (words prefetched into L2 ahead), 0 the other; "
                                    "auto takes it when x is over a quarter of L2 and the "
                                    "lower bandwidth within an eighth. Read by "
                                    "psl_dmatrix_upload and psl_dmatrix_convert."},
    [PSL_OPT_CUDA_TINY_UNIFORM] = {"PSL_CUDA_TINY_UNIFORM", bool_choices, NCHOICES(bool_choices),
                                   0, 0, 1, "0|1", "1",
                                   "GPU: 0 turns off the copy of a small matrix's slices padded "
                                   "to one width. Read by psl_dmatrix_upload and "
                                   "psl_dmatrix_convert."},
    /* hi is PSL_WIDE_CLUSTER_MAX (src/format/gpu_rules.h) */
    [PSL_OPT_CUDA_WIDE_CLUSTER] = {"PSL_CUDA_WIDE_CLUSTER", NULL, 0, 1, 16, 16, "1..16", "16",
                                   "GPU (sm_90 and newer): most thread blocks in the cluster "
                                   "of a long-row slice, rounded down to a power of two and "
                                   "to what the device runs; 1: no clusters. Read by "
                                   "psl_dmatrix_upload and psl_dmatrix_convert."},
    [PSL_OPT_CUDA_CSRK_SR_ROWS] = {"PSL_CUDA_CSRK_SR_ROWS", NULL, 0, 0, 100000, 0, "0..100000",
                                   "0",
                                   "GPU, CSR-k: target rows per super-row of the device's "
                                   "grouping (with k = 2 the rows per block); 0 takes the "
                                   "CUDA tuning model's size. Read by psl_dmatrix_upload."},
    [PSL_OPT_CUDA_CSRK_SSR_SRS] = {"PSL_CUDA_CSRK_SSR_SRS", NULL, 0, 0, 100000, 0, "0..100000",
                                   "0",
                                   "GPU, CSR-k with k = 3: target super-rows per "
                                   "super-super-row (a block) of the device's grouping; 0 "
                                   "takes the CUDA tuning model's size. Read by "
                                   "psl_dmatrix_upload."},
    [PSL_OPT_CSRK_FIT] = {"PSL_CSRK_FIT", NULL, 0, 0, 0, 0, "PATH", "",
                          "CSR-k: a fit file of the tuning model (packsell tune-csrk writes "
                          "them) whose tables replace the default ones of the device kinds "
                          "it has rows for; unset or empty: the defaults. Read at the first "
                          "use of the model after the option takes a value; a file that "
                          "cannot be read or is invalid makes every use fail with its error "
                          "(psl_csrk_model_sizes, conversions to CSR-k, psl_dmatrix_upload "
                          "of a CSR-k matrix). psl_csrk_model_load and psl_csrk_model_set "
                          "take precedence."},
    [PSL_OPT_SOLVER_FUSE] = {"PSL_SOLVER_FUSE", bool_choices, NCHOICES(bool_choices), 0, 0, 1,
                             "0|1", "1",
                             "1 runs CG's fused vector steps (the residual update, Jacobi and "
                             "both dots in one pass; the x and p updates in one pass); 0 the "
                             "separate operations, to measure what fusion gains. Same results "
                             "up to rounding. Read by each CG solve and inner CG application."},
    [PSL_OPT_SOLVER_LOOKAHEAD] = {"PSL_SOLVER_LOOKAHEAD", bool_choices, NCHOICES(bool_choices),
                                  0, 0, 1, "0|1", "1",
                                  "1 queues CG's next step before the host waits for the test "
                                  "of the current one (a preconditioner without inner solver), "
                                  "so the device does not wait for the host; 0 waits first. "
                                  "Same results. Read by each CG solve to a tolerance."},
    [PSL_OPT_SOLVER_DEFER_READS] = {"PSL_SOLVER_DEFER_READS", bool_choices,
                                    NCHOICES(bool_choices), 0, 0, 1, "0|1", "1",
                                    "1 lets an inner GMRES/FGMRES cycle (fixed steps, no second "
                                    "Gram-Schmidt pass, as in F3R's layers 2 and 3) keep its "
                                    "columns on the device and read them once at its end; 0 "
                                    "reads each step's column (a synchronisation per step on a "
                                    "GPU), to measure what deferring gains. Same results."},
    [PSL_OPT_SOLVER_GRAPH] = {"PSL_SOLVER_GRAPH", bool_choices, NCHOICES(bool_choices), 0, 0,
                              1, "0|1", "1",
                              "GPU: 1 replays CG's work from CUDA graphs captured at first "
                              "use: the fixed iterations of an inner CG (an operator's apply, "
                              "as in IO-CG) and the queued step of a CG solve with lookahead "
                              "(one graph per parity of the step); 0 launches their kernels "
                              "one by one, to measure what the graphs gain. Same results; a "
                              "graph keeps the PSL_SOLVER_FUSE of its capture. Read by each "
                              "CG solve and each apply of a CG operator."},
    [PSL_OPT_HUGEPAGES] = {"PSL_HUGEPAGES", bool_choices, NCHOICES(bool_choices), 0, 0, 1,
                           "0|1", "1",
                           "Linux: 1 asks the kernel for transparent huge pages (madvise "
                           "MADV_HUGEPAGE, where /sys/kernel/mm/transparent_hugepage allows "
                           "it) for every host block of the library of at least twice the "
                           "huge page size (matrix arrays, workspaces, psl_host_alloc), "
                           "aligned to that size: a streaming kernel then misses the TLB "
                           "once per huge page, not once per 4 KiB page; 0 plain malloc. "
                           "Same results. Read by every such allocation, which takes an "
                           "invalid value as 0 (it has no error to give; the packsell "
                           "command refuses it)."},
    [PSL_OPT_DIST_MPI_CUDA_AWARE] = {"PSL_DIST_MPI_CUDA_AWARE", auto_bool_choices,
                                     NCHOICES(auto_bool_choices), 0, 0, -1, "auto|0|1", "auto",
                                     "Distributed matrices on GPUs (libpacksell_mpi): whether "
                                     "the MPI library takes device buffers. auto asks it "
                                     "(Open MPI's MPIX_Query_cuda_support); 1 declares it for an "
                                     "MPI that takes them without saying so (e.g. Cray MPICH with "
                                     "MPICH_GPU_SUPPORT_ENABLED=1, MPI over a CUDA-enabled UCX); "
                                     "0 never uses them. Read by psl_dist_matrix_upload, on every "
                                     "rank (the ranks must agree)."},
    [PSL_OPT_MEMORY_CHECK] = {"PSL_MEMORY_CHECK", bool_choices, NCHOICES(bool_choices), 0, 0, 1,
                              "0|1", "1",
                              "1 refuses at once a request that cannot fit in the memory "
                              "available now, with the estimate: a matrix of the generators, "
                              "the Matrix Market reader or a SELL/PackSELL conversion, a growth "
                              "of the SD-AINV factors; 0 tries anyway."},
    [PSL_OPT_MEMORY_LIMIT] = {"PSL_MEMORY_LIMIT", NULL, 0, 0, 0, 0,
                              "BYTES[K|M|G|T]", "0",
                              "A ceiling on the memory one request may take, in bytes (64M: "
                              "64 MiB): the generators, the Matrix Market reader, the SELL and "
                              "PackSELL conversions (padding included) and each growth of the "
                              "SD-AINV factors refuse a request estimated above it, however "
                              "small, with the estimate; 0: none (only the available memory "
                              "counts). Applies with PSL_MEMORY_CHECK=0 too."},
};

/* Whether option d is a byte count (0..PSL_OPT_SIZE_MAX, K/M/G/T suffix). */
static int is_size(const opt_def *d) { return d == &defs[PSL_OPT_MEMORY_LIMIT]; }
/* Whether option d is a path (a text; the only one is PSL_CSRK_FIT). */
static int is_path(const opt_def *d) { return d == &defs[PSL_OPT_CSRK_FIT]; }

/* ---- state */

enum { ENV_UNSET, ENV_VALID, ENV_INVALID };
#define RAW_MAX 64

/* What the environment said, written once under env_state. */
static struct {
    int kind[PSL_OPT_COUNT]; /* ENV_* */
    long long value[PSL_OPT_COUNT];
    char raw[PSL_OPT_COUNT][RAW_MAX]; /* an invalid value, for the message */
} env;
static atomic_int env_state; /* 0: not read; 1: being read; 2: read */
/* The path option's text: the environment's, and the program's (set while
 * its override is). */
static char env_text[PSL_OPTION_PATH_MAX], set_text[PSL_OPTION_PATH_MAX];

/* Values set by the program: 0 none, else the value + OVERRIDE_BIAS (every
 * option's values are -1 or more). */
#define OVERRIDE_BIAS 1024
static atomic_llong overrides[PSL_OPT_COUNT];

/* A byte count: decimal digits, then optionally one of K, M, G, T (any
 * case; powers of 1024), at most PSL_OPT_SIZE_MAX; 0 when s is not one. */
static int parse_size(const char *s, long long *out)
{
    long long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (p - s >= 16)
            return 0;
        v = v * 10 + (*p - '0');
    }
    if (p == s)
        return 0;
    static const char suffixes[] = "KkMmGgTt";
    int powers = 0; /* of 1024 */
    if (*p) {
        const char *k = strchr(suffixes, *p);
        if (!k || p[1] != '\0')
            return 0;
        powers = (int)(k - suffixes) / 2 + 1;
    }
    for (; powers > 0; powers--) {
        if (v > PSL_OPT_SIZE_MAX / 1024)
            return 0;
        v *= 1024;
    }
    if (v > PSL_OPT_SIZE_MAX)
        return 0;
    *out = v;
    return 1;
}

/* The value text s means for option d into *out; 0 when s is not accepted.
 * "" stands for the default (an empty environment variable counts as
 * unset). */
static int parse(const opt_def *d, const char *s, long long *out)
{
    if (!*s) {
        *out = d->def;
        return 1;
    }
    if (is_size(d))
        return parse_size(s, out);
    if (is_path(d)) { /* shorter than PSL_OPTION_PATH_MAX, no control characters */
        size_t n = strlen(s);
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
                return 0;
        *out = 1;
        return n < PSL_OPTION_PATH_MAX;
    }
    if (d->choices) {
        for (int i = 0; i < d->nchoices; i++)
            if (strcmp(s, d->choices[i].name) == 0) {
                *out = d->choices[i].value;
                return 1;
            }
        return 0;
    }
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || p - s >= 6)
            return 0;
        v = v * 10 + (*p - '0');
    }
    if (v < d->lo || v > d->hi)
        return 0;
    *out = (int)v;
    return 1;
}

static void read_env(void)
{
    for (int i = 0; i < PSL_OPT_COUNT; i++) {
        const char *v = getenv(defs[i].name);
        env.kind[i] = ENV_UNSET;
        if (!v || !*v)
            continue;
        if (parse(&defs[i], v, &env.value[i])) {
            env.kind[i] = ENV_VALID;
            if (is_path(&defs[i]))
                snprintf(env_text, sizeof env_text, "%s", v);
        } else {
            env.kind[i] = ENV_INVALID;
            snprintf(env.raw[i], RAW_MAX, "%s", v);
        }
    }
}

/* Read the environment unless done; a thread arriving while another reads
 * it waits for the result. */
static void env_once(void)
{
    if (atomic_load_explicit(&env_state, memory_order_acquire) == 2)
        return;
    int expect = 0;
    if (atomic_compare_exchange_strong(&env_state, &expect, 1)) {
        read_env();
        atomic_store_explicit(&env_state, 2, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
        ;
}

static psl_status invalid_value(const opt_def *d, const char *value, const char *origin)
{
    size_t n = strlen(value);
    return psl_error(PSL_ERR_INVALID_VALUE,
                     "option %s: invalid value '%.*s%s' (%s); accepted values: %s", d->name,
                     RAW_MAX - 1, value, n >= RAW_MAX - 1 ? "..." : "", origin, d->values);
}

/* 1 with *value when the option has a valid value, else 0. */
static int current(psl_opt id, long long *value)
{
    long long o = atomic_load_explicit(&overrides[id], memory_order_relaxed);
    if (o) {
        *value = o - OVERRIDE_BIAS;
        return 1;
    }
    env_once();
    switch (env.kind[id]) {
    case ENV_VALID: *value = env.value[id]; return 1;
    case ENV_INVALID: return 0;
    default: *value = defs[id].def; return 1;
    }
}

psl_status psl_opt_get_size(psl_opt id, long long *value)
{
    if ((unsigned)id >= PSL_OPT_COUNT)
        return psl_error(PSL_ERR_INTERNAL, "option id %d does not exist", (int)id);
    if (is_path(&defs[id]))
        return psl_error(PSL_ERR_INTERNAL, "option %s is a path", defs[id].name);
    long long v;
    if (!current(id, &v))
        return invalid_value(&defs[id], env.raw[id], "from the environment");
    *value = v;
    return PSL_OK;
}

psl_status psl_opt_get(psl_opt id, int *value)
{
    if ((unsigned)id < PSL_OPT_COUNT && is_size(&defs[id]))
        return psl_error(PSL_ERR_INTERNAL, "option %s is a byte count", defs[id].name);
    long long v;
    PSL_TRY(psl_opt_get_size(id, &v));
    *value = (int)v;
    return PSL_OK;
}

psl_status psl_opt_get_text(psl_opt id, char *buf, size_t len)
{
    if ((unsigned)id >= PSL_OPT_COUNT || !is_path(&defs[id]))
        return psl_error(PSL_ERR_INTERNAL, "option id %d is not a path", (int)id);
    long long v;
    if (!current(id, &v))
        return invalid_value(&defs[id], env.raw[id], "from the environment");
    const char *text = !v                                          ? ""
                       : atomic_load(&overrides[id]) != 0 ? set_text
                                                                   : env_text;
    size_t k = strlen(text);
    if (k >= len)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "buffer of %zu bytes too small for the value of %s (needs %zu)", len,
                         defs[id].name, k + 1);
    memcpy(buf, text, k + 1);
    return PSL_OK;
}

int psl_opt_get_or(psl_opt id, int fallback)
{
    long long v;
    return (unsigned)id < PSL_OPT_COUNT && !is_size(&defs[id]) && !is_path(&defs[id]) &&
                   current(id, &v)
               ? (int)v
               : fallback;
}

const char *psl_opt_value_name(psl_opt id, int value)
{
    if ((unsigned)id >= PSL_OPT_COUNT)
        return NULL;
    for (int i = 0; i < defs[id].nchoices; i++)
        if (defs[id].choices[i].value == value)
            return defs[id].choices[i].name;
    return NULL;
}

void psl_opt_reset(void)
{
    for (int i = 0; i < PSL_OPT_COUNT; i++)
        atomic_store(&overrides[i], 0);
    memset(&env, 0, sizeof env);
    env_text[0] = set_text[0] = '\0';
    atomic_store(&env_state, 0);
}

/* ---- public API */

/* The option named name: PSL_ERR_NULL_POINTER or PSL_ERR_INVALID_VALUE
 * naming the options when there is none. */
static psl_status find(const char *name, psl_opt *id)
{
    if (!name)
        return psl_error(PSL_ERR_NULL_POINTER, "option name is NULL");
    for (int i = 0; i < PSL_OPT_COUNT; i++)
        if (strcmp(name, defs[i].name) == 0) {
            *id = (psl_opt)i;
            return PSL_OK;
        }
    char list[256] = "";
    for (int i = 0; i < PSL_OPT_COUNT; i++) {
        size_t k = strlen(list);
        snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", defs[i].name);
    }
    return psl_error(PSL_ERR_INVALID_VALUE, "unknown option '%.64s'; the options are %s", name,
                     list);
}

psl_status psl_option_set(const char *name, const char *value)
{
    psl_opt id;
    PSL_TRY(find(name, &id));
    if (!value) {
        atomic_store(&overrides[id], 0);
        return PSL_OK;
    }
    long long v;
    if (!parse(&defs[id], value, &v))
        return invalid_value(&defs[id], value, "psl_option_set");
    if (is_path(&defs[id])) {
        v = value[0] != '\0';
        if (v)
            memcpy(set_text, value, strlen(value) + 1);
    }
    atomic_store(&overrides[id], v + OVERRIDE_BIAS);
    return PSL_OK;
}

psl_status psl_option_get(const char *name, char *buf, size_t len)
{
    psl_opt id;
    PSL_TRY(find(name, &id));
    if (!buf)
        return psl_error(PSL_ERR_NULL_POINTER, "buffer for the value of %s is NULL", name);
    if (is_path(&defs[id]))
        return psl_opt_get_text(id, buf, len);
    long long v;
    PSL_TRY(psl_opt_get_size(id, &v));
    char tmp[PSL_OPTION_VALUE_MAX];
    const char *text = psl_opt_value_name(id, (int)v);
    if (!text) {
        snprintf(tmp, sizeof tmp, "%lld", v);
        text = tmp;
    }
    size_t k = strlen(text);
    if (k >= len)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "buffer of %zu bytes too small for the value '%s' of %s (needs %zu)", len,
                         text, name, k + 1);
    memcpy(buf, text, k + 1);
    return PSL_OK;
}

int psl_option_count(void) { return PSL_OPT_COUNT; }

psl_status psl_option_describe(int index, psl_option_desc *desc)
{
    if (!desc)
        return psl_error(PSL_ERR_NULL_POINTER, "option description pointer is NULL");
    if (index < 0 || index >= PSL_OPT_COUNT)
        return psl_error(PSL_ERR_INVALID_VALUE, "option index %d outside [0, %d)", index,
                         (int)PSL_OPT_COUNT);
    const opt_def *d = &defs[index];
    desc->name = d->name;
    desc->values = d->values;
    desc->default_value = d->def_text;
    desc->doc = d->doc;
    return PSL_OK;
}
