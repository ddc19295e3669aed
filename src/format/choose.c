/*
 * choose.c -- psl_choose_format: pick PackSELL, SELL or CSR (cuSPARSE) for
 * SpMV on the GPU at a requested value precision, from O(nnz) statistics
 * and a small cost model of the device a psl_device_model describes.
 * Nothing is timed.
 *
 * The model (times in microseconds, one SpMV with beta = 0):
 *
 *   bytes      = matrix bytes (psl_matrix_estimate's layout; CSR: the device
 *                layout, 32-bit indices when they fit) + x read once + y
 *                written once
 *   bandwidth  = bytes / (eff * BW) + nrows * row_ns / 1000
 *   latency    = word_ns / 1000 * max(walk, sum_width / WARPS)   (sliced)
 *              = 0                                               (CSR)
 *   predicted  = launch + max(bandwidth, latency) (+ split_us, sliced, when
 *                the finishing kernel of split slices runs)
 *
 * The SELL/PackSELL kernels run a thread per row and a warp per slice of
 * 32 rows, so a slice alone takes its width (words or entries) times a
 * per-word latency, and the slices cannot finish before the longest walk
 * nor before sum_width / WARPS word latencies. walk is the widest slice,
 * or, where the kernels split long rows over warps (gpu_rules.h,
 * psl_wide_rule), the longest walk left: max(wide_min - 1, seg); a row that
 * a short-row kernel loads in one go walks short_walk words (two groups for
 * the small-matrix kernel's slices wider than short_group_small). The
 * finishing kernel runs for a slice wider than one block of the split that
 * no cluster takes. cuSPARSE CSR balances by nonzeros: no latency term.
 * row_ns is the per-row setup (slice offsets, perm, y store) that makes
 * short-row matrices slower than their bytes say; launch the fixed cost of
 * a call. The model has no term for x gathers (random columns), which slow
 * every candidate.
 *
 * Device figures, from the psl_device_model: BW = copy_gbs, WARPS = SMs x
 * threads per SM / 32, word_ns is the L2 or the HBM latency as bytes are
 * below l2_bytes or not, matrices of at most SMs x PSL_SMALL_ROWS_PER_SM
 * rows take the small-matrix kernels, clusters of up to cluster_max blocks
 * finish wide slices. The default model is the H200 the constants were
 * fitted on.
 *
 * Constants (the two tables below; bench/chooser_eval.py holds the same
 * tables for refits: keep them equal): launch, eff and row_ns are a
 * least-squares fit on relative error (bench/chooser_eval.py --fit) to an
 * H200 run of the benchmark suite; split_us is the median excess of that
 * run's small matrices whose long rows take the finishing kernel; word_ns
 * is an estimate the suite cannot fit (the split keeps walks short, so it
 * rarely decides); the short-row walks mirror the kernels (wide.cuh,
 * dmatrix.cuh). The runs, the fits and the chooser's accuracy: bench/NOTES.md,
 * The chooser.
 */
#include "build.h"
#include "format/choose.h"
#include "format/gpu_rules.h"

#include <stdio.h>

/* One kernel class of the cost model. */
typedef struct model_row {
    const char *name;
    double launch_us;   /* fixed cost of one call */
    double eff;         /* effective bandwidth as a fraction of BW */
    double row_ns;      /* per-row cost, summed over all rows */
    double word_ns_l2;  /* per-word latency of a lone slice, matrix in L2 */
    double word_ns_mem; /* per-word latency of a lone slice, matrix in HBM */
} model_row;

/* The kernel classes' constants. */
static const model_row models[] = {
    /* name          launch   eff    row_ns  word_ns L2, HBM */
    {"packsell16", 4.60, 0.782, 0.0000, 60.0, 150.0},
    {"packsell32", 4.60, 0.837, 0.0000, 60.0, 150.0},
    {"sell16", 4.60, 0.828, 0.0000, 60.0, 150.0},
    {"sell32", 4.60, 0.886, 0.0000, 60.0, 150.0},
    {"sell64", 4.60, 0.886, 0.0000, 60.0, 150.0}, /* not fitted: SELL FP32's rates */
    {"csr32", 7.55, 0.665, 0.0000, 0.0, 0.0},
    {"csr64", 7.55, 0.724, 0.0047, 0.0, 0.0},
};

/* The constants common to the sliced kernel classes. */
static const struct {
    double split_us;           /* the finishing kernel of slices split over blocks */
    int64_t short_width;       /* PackSELL: slices at most this wide, no split, take the
                                  short-row kernel (psl_short_words, wide.cuh) */
    double short_walk;         /* a short-row kernel's row walks one group: these words */
    int64_t short_group_small; /* small matrices: slices up to this wide load in one
                                  group of the short-row kernel, wider ones in two
                                  (PSL_SHORT_SMALL, dmatrix.cuh) */
} tuning = {.split_us = 3.0, .short_width = 8, .short_walk = 4.0, .short_group_small = 16};

/* The H200 the constants were fitted on (psl_device_model_default). */
static const psl_device_model default_model = {
    .name = "H200 (default model)",
    .sm_count = 132,
    .threads_per_sm = 2048,
    .l2_bytes = 50000000,
    .copy_gbs = 4258.0, /* bench --device cuda's copy: 1 GiB, median of 20 */
    .copy_measured = 0,
    .cluster_max = PSL_WIDE_CLUSTER_MAX,
};

/* The device figures of the model, derived once per psl_choose_format. */
typedef struct device_terms {
    double bw_bytes_per_us; /* BW */
    double warps;           /* WARPS: resident at once */
    double l2_bytes;        /* below: the matrix stays in L2 between runs */
    int64_t lat_rows;       /* at most: the small-matrix kernels */
    int32_t cl_max;         /* largest cluster of the long-row split (1: none) */
} device_terms;

static const model_row *model_find(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (strcmp(models[i].name, name) == 0)
            return &models[i];
    return NULL;
}

psl_status psl_device_model_default(psl_device_model *m)
{
    if (!m)
        return psl_error(PSL_ERR_NULL_POINTER, "device model m is NULL");
    *m = default_model;
    return PSL_OK;
}

/* Check a caller's model and derive its terms. */
static psl_status device_terms_of(const psl_device_model *m, device_terms *t)
{
    if (m->sm_count < 1)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device model: sm_count %d is not a number of SMs (>= 1)",
                         (int)m->sm_count);
    if (m->threads_per_sm < 32)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device model: threads_per_sm %d is below one warp (>= 32)",
                         (int)m->threads_per_sm);
    if (m->l2_bytes < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "device model: l2_bytes %lld is negative (>= 0)",
                         (long long)m->l2_bytes);
    if (!(m->copy_gbs > 0) || !isfinite(m->copy_gbs))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device model: copy_gbs %g is not a bandwidth (finite GB/s, > 0)",
                         m->copy_gbs);
    if (m->cluster_max < 1)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "device model: cluster_max %d is not a cluster size (>= 1; 1: none)",
                         (int)m->cluster_max);
    t->bw_bytes_per_us = m->copy_gbs * 1e3;
    t->warps = (double)((int64_t)m->sm_count * m->threads_per_sm / 32);
    t->l2_bytes = (double)m->l2_bytes;
    t->lat_rows = (int64_t)m->sm_count * PSL_SMALL_ROWS_PER_SM;
    t->cl_max = 1; /* a power of two up to the kernels' largest, as dmatrix.cu takes it */
    while (t->cl_max * 2 <= m->cluster_max && t->cl_max * 2 <= PSL_WIDE_CLUSTER_MAX)
        t->cl_max *= 2;
    return PSL_OK;
}

const char *psl_precision_name(psl_precision prec)
{
    switch (prec) {
    case PSL_PREC_FP16: return "fp16";
    case PSL_PREC_FP32: return "fp32";
    case PSL_PREC_FP64: return "fp64";
    }
    return "?";
}

/* Fill the model's prediction of a candidate whose bytes and widths are set. */
static void predict(psl_candidate *c, int64_t nrows, const device_terms *dev)
{
    const model_row *m = model_find(c->model);
    if (!m) { /* a table entry missing is a bug; predict "never" */
        c->predicted_us = INFINITY;
        return;
    }
    double bytes = (double)c->bytes + (double)c->vector_bytes;
    c->bandwidth_us = bytes / (m->eff * dev->bw_bytes_per_us) + (double)nrows * m->row_ns * 1e-3;
    double word_ns = bytes < dev->l2_bytes ? m->word_ns_l2 : m->word_ns_mem;
    double walk = (double)c->max_width;
    bool split = false; /* the finishing kernel runs */
    if (c->max_width > 0) { /* sliced: the kernels' split of long rows */
        const bool small = nrows <= dev->lat_rows;
        int32_t wide_min = 0, seg = 0, cl = 1;
        psl_wide_rule(nrows, c->max_width, dev->cl_max, small ? PSL_SHORT_WIDE_SMALL : 0,
                      &wide_min, &seg, &cl);
        split = c->max_width >= wide_min && cl == 1 &&
                c->max_width > (int64_t)seg * PSL_WIDE_WARPS;
        if (c->max_width >= wide_min)
            walk = fmax((double)wide_min - 1, (double)seg);
        else if (c->opt.format == PSL_FORMAT_PACKSELL && c->max_width <= tuning.short_width)
            walk = fmin(walk, tuning.short_walk);
        else if (small && c->max_width <= PSL_SHORT_WIDE_SMALL)
            walk = fmin(walk, tuning.short_walk *
                                  (c->max_width <= tuning.short_group_small ? 1 : 2));
    }
    double crit = fmax(walk, (double)c->sum_width / dev->warps);
    c->latency_us = word_ns * 1e-3 * crit;
    c->predicted_us = m->launch_us + fmax(c->bandwidth_us, c->latency_us);
    if (split)
        c->predicted_us += tuning.split_us;
}

/* Sliced options with the kernels' tuned layout (C 32, sigma 256, implicit). */
static psl_convert_options sliced_options(psl_format f)
{
    psl_convert_options o;
    psl_convert_options_init(&o);
    o.format = f;
    o.slice_height = 32;
    o.sigma = 256;
    o.permute = PSL_PERMUTE_IMPLICIT;
    return o;
}

/* A SELL or PackSELL candidate: dry-run layout, bytes, widths, prediction. */
static psl_status sliced_candidate(const psl_matrix *src, const psl_convert_options *opt,
                                   psl_scalar vec, const char *kernel, const char *model,
                                   const psl_pricer *pr, psl_candidate *c)
{
    psl_matrix *A = NULL;
    psl_matrix_info info;
    psl_status st = opt->format == PSL_FORMAT_SELL ? psl_sell_build(&A, src, opt, true)
                                                   : psl_packsell_build(&A, src, opt, true);
    if (st == PSL_OK)
        st = psl_matrix_get_info(A, &info);
    if (st != PSL_OK)
        goto done;
    memset(c, 0, sizeof *c);
    c->opt = *opt;
    c->vec_type = vec;
    snprintf(c->kernel, sizeof c->kernel, "%s", kernel);
    snprintf(c->model, sizeof c->model, "%s", model);
    c->bytes = info.bytes;
    c->vector_bytes = (int64_t)psl_scalar_size(vec) * ((int64_t)src->nrows + src->ncols);
    c->dummies = info.dummies;
    c->padding = info.padding;
    for (int32_t k = 0; k < A->nslices; k++) {
        int64_t w = (A->slice_ptr[k + 1] - A->slice_ptr[k]) / A->C;
        if (w > c->max_width)
            c->max_width = w;
    }
    c->sum_width = A->stored / A->C;
    pr->price(c, src, pr->ctx);
done:
    psl_matrix_destroy(&A);
    return st;
}

/* The CSR candidate with values of type t: cuSPARSE on the device (its
 * layout: 32-bit offsets and columns when they fit), the library's kernel
 * on the CPU (64-bit offsets, 32-bit columns). */
static void csr_candidate(const psl_matrix *src, psl_scalar t, const char *model,
                          const psl_pricer *pr, psl_candidate *c)
{
    memset(c, 0, sizeof *c);
    psl_convert_options_init(&c->opt);
    c->opt.format = PSL_FORMAT_CSR;
    c->opt.value_type = t;
    c->vec_type = t;
    snprintf(c->kernel, sizeof c->kernel, "%scsr-%s", pr->cpu ? "" : "cusparse-",
             psl_scalar_name(t));
    snprintf(c->model, sizeof c->model, "%s", model);
    const int64_t idx = src->nnz > INT32_MAX ? 8 : 4;
    const int64_t off = pr->cpu ? 8 : idx;
    c->bytes = ((int64_t)src->nrows + 1) * off + src->nnz * (idx + (int64_t)psl_scalar_size(t));
    c->vector_bytes = (int64_t)psl_scalar_size(t) * ((int64_t)src->nrows + src->ncols);
    pr->price(c, src, pr->ctx);
}

/* Whether v fits codec c (no overflow under the error policy). */
static bool codec_holds(psl_codec c, double v)
{
    uint32_t bits;
    return psl_codec_encode_raw(c, PSL_OVERFLOW_ERROR, v, &bits) == PSL_OK;
}

/* Error naming the first entry whose magnitude is maxabs. */
static psl_status overflow_error(const psl_matrix *src, double maxabs, const char *what)
{
    const double *v = src->values;
    int64_t k = 0;
    while (k < src->nnz - 1 && fabs(v[k]) != maxabs)
        k++;
    int64_t row = psl_row_of_entry(src->row_ptr, src->nrows, k);
    return psl_error_at(PSL_ERR_CODEC_OVERFLOW, -1, row, src->col_idx[k],
                        "value %.17g at row %lld, column %lld (0-based) exceeds the largest "
                        "finite %s value: no candidate of this precision holds it "
                        "(ask for fp64)",
                        v[k], (long long)row, (long long)src->col_idx[k], what);
}

/* The FP16 candidates: PackSELL and SELL in FP16 (BF16 beyond FP16's range), CSR FP32. */
static psl_status fp16_candidates(const psl_matrix *src, const psl_pricer *dev,
                                  psl_choice *ch)
{
    bool bf = !codec_holds(PSL_CODEC_FP16, ch->max_abs);
    if (bf && !codec_holds(PSL_CODEC_BF16, ch->max_abs))
        return overflow_error(src, ch->max_abs, "BF16");
    psl_convert_options p = sliced_options(PSL_FORMAT_PACKSELL);
    p.codec = bf ? PSL_CODEC_BF16 : PSL_CODEC_FP16;
    PSL_TRY(sliced_candidate(src, &p, PSL_FP16, bf ? "packsell-bf16" : "packsell-fp16",
                             "packsell16", dev, &ch->candidates[0]));
    ch->ndelta = 1;
    ch->delta_bits[0] = psl_codec_delta_bits(p.codec);
    ch->delta_dummies[0] = ch->candidates[0].dummies;
    ch->delta_bytes[0] = ch->candidates[0].bytes;
    psl_convert_options s = sliced_options(PSL_FORMAT_SELL);
    s.value_type = bf ? PSL_BF16 : PSL_FP16;
    PSL_TRY(sliced_candidate(src, &s, PSL_FP16, bf ? "sell-bf16" : "sell-fp16", "sell16", dev,
                             &ch->candidates[1]));
    /* the library's CSR holds FP32 values; its kernels run them with FP32 vectors */
    csr_candidate(src, PSL_FP32, "csr32", dev, &ch->candidates[2]);
    ch->ncandidates = 3;
    return PSL_OK;
}

/* The FP32 candidates: PackSELL E8MY with the D in {1, 2} of fewer bytes
 * (D = 1 on a tie: one more mantissa bit), SELL FP32, CSR FP32. */
static psl_status fp32_candidates(const psl_matrix *src, const psl_pricer *dev,
                                  psl_choice *ch)
{
    static const int32_t ds[2] = {1, 2};
    uint64_t bits;
    int uf;
    if (psl_round_scalar(PSL_FP32, PSL_OVERFLOW_ERROR, ch->max_abs, &bits, &uf) != PSL_OK)
        return overflow_error(src, ch->max_abs, "FP32");
    int n = 0, best = -1;
    psl_candidate pc[2];
    for (int i = 0; i < 2; i++) {
        psl_convert_options p = sliced_options(PSL_FORMAT_PACKSELL);
        p.codec = (psl_codec){8, 22 - ds[i]};
        if (!codec_holds(p.codec, ch->max_abs)) /* within 2^-Y of FLT_MAX */
            continue;
        char kernel[32];
        snprintf(kernel, sizeof kernel, "packsell-e8m%d", (int)(22 - ds[i]));
        PSL_TRY(sliced_candidate(src, &p, PSL_FP32, kernel, "packsell32", dev, &pc[n]));
        ch->delta_bits[n] = ds[i];
        ch->delta_dummies[n] = pc[n].dummies;
        ch->delta_bytes[n] = pc[n].bytes;
        if (best < 0 || pc[n].bytes < pc[best].bytes)
            best = n;
        n++;
    }
    ch->ndelta = n;
    int k = 0;
    if (best >= 0)
        ch->candidates[k++] = pc[best];
    psl_convert_options s = sliced_options(PSL_FORMAT_SELL);
    s.value_type = PSL_FP32;
    PSL_TRY(sliced_candidate(src, &s, PSL_FP32, "sell-fp32", "sell32", dev,
                             &ch->candidates[k++]));
    csr_candidate(src, PSL_FP32, "csr32", dev, &ch->candidates[k++]);
    ch->ncandidates = k;
    return PSL_OK;
}

/* The FP64 candidates: SELL FP64, CSR FP64. */
static psl_status fp64_candidates(const psl_matrix *src, const psl_pricer *dev,
                                  psl_choice *ch)
{
    psl_convert_options s = sliced_options(PSL_FORMAT_SELL);
    s.value_type = PSL_FP64;
    PSL_TRY(sliced_candidate(src, &s, PSL_FP64, "sell-fp64", "sell64", dev,
                             &ch->candidates[0]));
    csr_candidate(src, PSL_FP64, "csr64", dev, &ch->candidates[1]);
    ch->ncandidates = 2;
    return PSL_OK;
}

/* The GPU's price of a candidate (predict on the device terms in ctx). */
static void gpu_price(psl_candidate *c, const psl_matrix *src, const void *ctx)
{
    predict(c, src->nrows, (const device_terms *)ctx);
}

psl_status psl_choose_with(const psl_matrix *csr, psl_precision prec, const psl_pricer *pr,
                           psl_choice *choice)
{
    PSL_TRY(psl_matrix_check(csr));
    if (!choice)
        return psl_error(PSL_ERR_NULL_POINTER, "choice is NULL");
    if (csr->format != PSL_FORMAT_CSR || csr->value_type != PSL_FP64)
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "psl_choose_format needs an FP64 CSR matrix (this one is %s %s; use "
                         "psl_matrix_to_csr first)",
                         psl_format_display(csr->format),
                         psl_scalar_display(csr->value_type));
    if (prec != PSL_PREC_FP16 && prec != PSL_PREC_FP32 && prec != PSL_PREC_FP64)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "precision %d is not a psl_precision (PSL_PREC_FP16, _FP32 or _FP64)",
                         (int)prec);
    psl_choice ch; /* filled here; copied out only on success */
    memset(&ch, 0, sizeof ch);
    ch.precision = prec;
    ch.nrows = csr->nrows;
    ch.ncols = csr->ncols;
    ch.nnz = csr->nnz;
    ch.max_row_nnz = csr->max_row_nnz;
    ch.mean_row_nnz = csr->nrows ? (double)csr->nnz / csr->nrows : 0.0;
    ch.rsd = csr->rsd;
    ch.kleft = csr->kleft;
    const double *v = csr->values;
    const int64_t nnz = csr->nnz;
    double maxabs = 0.0;
#pragma omp parallel for reduction(max : maxabs) if (nnz > PSL_PAR_MIN)
    for (int64_t k = 0; k < nnz; k++)
        maxabs = fmax(maxabs, fabs(v[k]));
    ch.max_abs = maxabs;

    psl_status st = prec == PSL_PREC_FP16   ? fp16_candidates(csr, pr, &ch)
                    : prec == PSL_PREC_FP32 ? fp32_candidates(csr, pr, &ch)
                                            : fp64_candidates(csr, pr, &ch);
    if (st != PSL_OK)
        return st;
    ch.pick = 0; /* the smallest prediction; ties keep the earlier candidate */
    for (int32_t i = 1; i < ch.ncandidates; i++)
        if (ch.candidates[i].predicted_us < ch.candidates[ch.pick].predicted_us)
            ch.pick = i;
    ch.opt = ch.candidates[ch.pick].opt;
    ch.vec_type = ch.candidates[ch.pick].vec_type;
    *choice = ch;
    return PSL_OK;
}

psl_status psl_choose_format(const psl_matrix *csr, psl_precision prec,
                             const psl_device_model *model, psl_choice *choice)
{
    device_terms dev;
    PSL_TRY(device_terms_of(model ? model : &default_model, &dev));
    const psl_pricer pr = {gpu_price, &dev, 0};
    PSL_TRY(psl_choose_with(csr, prec, &pr, choice));
    choice->device = model ? *model : default_model;
    choice->device.name[sizeof choice->device.name - 1] = '\0';
    const psl_candidate *p = &choice->candidates[choice->pick];
    psl_trace("choose: %s precision on %s -> %s (%.2f us predicted)", psl_precision_name(prec),
              choice->device.name, p->kernel, p->predicted_us);
    return PSL_OK;
}
