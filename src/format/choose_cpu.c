/*
 * choose_cpu.c -- psl_choose_format_cpu: the chooser's candidates (choose.c)
 * priced for the CPU's OpenMP kernels (psl_spmv) by a roofline of the host
 * a psl_cpu_model describes. Nothing is timed.
 *
 * The model (times in microseconds, one SpMV with beta = 0):
 *
 *   bytes      = the candidate's matrix bytes (host layout) + x read once
 *                + y written once
 *   bandwidth  = bytes / (eff * BW), BW x llc_speedup when bytes fit half
 *                the last-level cache (the matrix stays there between
 *                products; near the whole cache, x's and y's lines and the
 *                replacement evict it)
 *   compute    = (words * ns_word + nrows * ns_row) / 1000 / threads
 *                (words: the stored entries, padding and PackSELL dummies
 *                included; CSR: nnz)
 *   predicted  = launch + max(bandwidth, compute)
 *
 * A kernel that decodes more per word (PackSELL) or gathers more (SELL's
 * padding) pays in compute; one that moves more bytes pays in bandwidth:
 * which bound holds depends on the host's bandwidth per thread, so the same
 * matrix may pick PackSELL on a few cores and SELL or CSR on many.
 *
 * Constants: eff, ns_word, ns_row and launch per kernel class are a fit
 * (bench/cpu_chooser_fit.py --fit --regret: a grid, coordinate descent
 * over the classes, minimising what the picks lose against the fastest
 * candidate of each matrix and precision) to `packsell bench --device cpu`
 * runs of 14 matrices on the 2-core development machine and 7 on the
 * device host's 16 cores (bench/results/2026-12-06-cpu-chooser/), one table
 * for both (the host enters through threads and the read bandwidth);
 * llc_speedup is shared. Fitted to
 * the picks, they rank the candidates; the predicted times themselves are
 * within a factor of about 2 of the measured ones.
 * The runs, the fit and the picks against the fastest kernel:
 * bench/NOTES.md, The chooser on the CPU.
 */
#include "build.h"
#include "format/choose.h"

#include <math.h>
#include <stdio.h>

/* One kernel class of the CPU model. */
typedef struct cpu_row {
    const char *name;
    double launch_us; /* fixed cost of one call (the parallel region) */
    double eff;       /* effective bandwidth as a fraction of the read bandwidth */
    double ns_word;   /* ns per stored word or entry, one thread */
    double ns_row;    /* ns per row, one thread */
} cpu_row;

/* The kernel classes' constants (bench/cpu_chooser_fit.py prints them). */
static const cpu_row cpu_rows[] = {
    /* name          launch  eff    ns_word ns_row */
    {"packsell16", 20.00, 0.700, 0.400, 5.00},
    {"packsell32", 20.00, 0.500, 0.500, 0.00},
    {"sell16", 20.00, 0.900, 0.500, 0.00},
    {"sell32", 10.00, 0.700, 0.600, 0.00},
    {"sell64", 10.00, 0.700, 1.000, 0.00},
    {"csr32", 10.00, 0.500, 0.100, 0.00},
    {"csr64", 2.00, 0.600, 0.700, 0.00},
};

/* The last-level cache's bandwidth over the read bandwidth (shared). */
static const double llc_speedup = 2.0;

/* The 2-core development machine the constants were fitted on. */
static const psl_cpu_model default_cpu = {
    .name = "2-core AMD EPYC (default CPU model)",
    .threads = 2,
    .read_gbs = 35.0,
    .llc_bytes = 32 << 20,
};

psl_status psl_cpu_model_default(psl_cpu_model *m)
{
    if (!m)
        return psl_error(PSL_ERR_NULL_POINTER, "CPU model m is NULL");
    *m = default_cpu;
    return PSL_OK;
}

static const cpu_row *cpu_row_find(const char *name)
{
    for (size_t i = 0; i < sizeof cpu_rows / sizeof cpu_rows[0]; i++)
        if (strcmp(cpu_rows[i].name, name) == 0)
            return &cpu_rows[i];
    return NULL;
}

static void cpu_price(psl_candidate *c, const psl_matrix *src, const void *ctx)
{
    const psl_cpu_model *m = ctx;
    const cpu_row *r = cpu_row_find(c->model);
    if (!r) { /* a table entry missing is a bug; predict "never" */
        c->predicted_us = INFINITY;
        return;
    }
    const double bytes = (double)c->bytes + (double)c->vector_bytes;
    const double bw = m->read_gbs * 1e3 * r->eff *
                      (bytes <= 0.5 * (double)m->llc_bytes ? llc_speedup : 1.0); /* B/us */
    const double words = c->sum_width > 0 ? (double)c->sum_width * c->opt.slice_height
                                          : (double)src->nnz;
    c->bandwidth_us = bytes / bw;
    c->latency_us = (words * r->ns_word + (double)src->nrows * r->ns_row) * 1e-3 / m->threads;
    c->predicted_us = r->launch_us + fmax(c->bandwidth_us, c->latency_us);
}

psl_status psl_choose_format_cpu(const psl_matrix *csr, psl_precision prec,
                                 const psl_cpu_model *model, psl_choice *choice)
{
    const psl_cpu_model *m = model ? model : &default_cpu;
    if (m->threads < 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "CPU model: threads %d (>= 1)", (int)m->threads);
    if (!(m->read_gbs > 0) || !isfinite(m->read_gbs))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "CPU model: read_gbs %g is not a bandwidth (finite GB/s, > 0)",
                         m->read_gbs);
    if (m->llc_bytes < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "CPU model: llc_bytes %lld is negative (>= 0)",
                         (long long)m->llc_bytes);
    const psl_pricer pr = {cpu_price, m, 1};
    PSL_TRY(psl_choose_with(csr, prec, &pr, choice));
    choice->on_cpu = 1;
    choice->cpu = *m;
    choice->cpu.name[sizeof choice->cpu.name - 1] = '\0';
    const psl_candidate *p = &choice->candidates[choice->pick];
    psl_trace("choose: %s precision on the CPU (%s, %d threads) -> %s (%.2f us predicted)",
              psl_precision_name(prec), choice->cpu.name, (int)m->threads, p->kernel,
              p->predicted_us);
    return PSL_OK;
}
