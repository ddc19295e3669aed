/*
 * random_gen.c -- the random generators: banded, power-law row lengths, and
 * uniformly random columns. Each row draws its columns and values from its
 * own counter-based streams (rng.h), so the matrix depends on the seed only.
 *
 * Distinct columns: Floyd's sampling (k draws and a small hash set, O(k))
 * followed by a sort (O(k log k)); when k is more than half the range, the
 * complement is sampled instead, so a nearly full range costs O(range) =
 * O(k) too. Columns to avoid (the diagonal, columns already chosen) are
 * skipped by rank: the sample is drawn from the range minus the avoided
 * set, then mapped past the avoided columns in one merge pass.
 */
#include "gen/gen_internal.h"
#include "gen/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ sampling */

/* Per-thread scratch: a hash set of cap slots and three row-sized buffers. */
typedef struct sample_ws {
    uint32_t *slot; /* cap entries, EMPTY when free */
    int32_t *a, *b, *c;
} sample_ws;

#define EMPTY UINT32_MAX

static size_t hash_cap(int64_t k)
{
    size_t cap = 16;
    while ((int64_t)cap < 2 * k)
        cap *= 2;
    return cap;
}

/* Bytes of a workspace for rows of up to maxlen entries. */
static size_t sample_ws_size(int32_t maxlen)
{
    return hash_cap(maxlen) * sizeof(uint32_t) + 3 * ((size_t)maxlen + 1) * sizeof(int32_t);
}

static sample_ws sample_ws_view(void *raw, int32_t maxlen)
{
    sample_ws w;
    w.slot = raw;
    w.a = (int32_t *)(w.slot + hash_cap(maxlen));
    w.b = w.a + maxlen + 1;
    w.c = w.b + maxlen + 1;
    return w;
}

/* Insert v into the set (capacity cap = 2^bits, bits >= 4); false if
 * present. Fibonacci hashing: the top bits of v times 2^32/phi. */
static int set_insert(uint32_t *slot, size_t cap, int bits, uint32_t v)
{
    size_t h = (size_t)((uint64_t)(uint32_t)(v * 0x9e3779b9u) >> (32 - bits));
    while (slot[h] != EMPTY) {
        if (slot[h] == v)
            return 0;
        h = (h + 1) & (cap - 1);
    }
    slot[h] = v;
    return 1;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

static void sort_i32(int32_t *v, int64_t n)
{
    if (n > 32) {
        qsort(v, (size_t)n, sizeof *v, cmp_i32);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        int32_t x = v[i];
        int64_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* Floyd: k distinct values of [0, m) into out (unsorted), 0 <= k <= m. */
static void floyd(psl_rng *r, int64_t k, int64_t m, int32_t *out, uint32_t *slot)
{
    size_t cap = hash_cap(k);
    int bits = 0;
    while (((size_t)1 << bits) < cap)
        bits++;
    for (size_t h = 0; h < cap; h++)
        slot[h] = EMPTY;
    int64_t n = 0;
    for (int64_t j = m - k; j < m; j++) {
        uint32_t t = psl_rng_below(r, (uint64_t)j + 1);
        if (!set_insert(slot, cap, bits, t)) {
            t = (uint32_t)j; /* j itself is new: every earlier draw is < j */
            set_insert(slot, cap, bits, t);
        }
        out[n++] = (int32_t)t;
    }
}

/* k distinct values of [0, m), ascending, into out; tmp holds m-k values. */
static void sample_sorted(psl_rng *r, int64_t k, int64_t m, int32_t *out, int32_t *tmp,
                          uint32_t *slot)
{
    if (2 * k <= m) {
        floyd(r, k, m, out, slot);
        sort_i32(out, k);
        return;
    }
    int64_t skip = m - k; /* < k: sample the values left out */
    floyd(r, skip, m, tmp, slot);
    sort_i32(tmp, skip);
    int64_t n = 0, j = 0;
    for (int64_t v = 0; v < m; v++) {
        if (j < skip && tmp[j] == v)
            j++;
        else
            out[n++] = (int32_t)v;
    }
}

/* out (k + navoid values, ascending) = avoid[] plus k distinct values drawn
 * uniformly from [lo, lo+m) minus avoid[]. avoid is ascending, inside the
 * range, and k <= m - navoid. Uses w.a and w.b; out and avoid may not be
 * w.a or w.b. */
static void sample_avoiding(psl_rng *r, int64_t k, int64_t lo, int64_t m, const int32_t *avoid,
                            int64_t navoid, int32_t *out, const sample_ws *w)
{
    sample_sorted(r, k, m - navoid, w->a, w->b, w->slot);
    /* map rank s to the s-th value of the range not in avoid, and merge */
    int64_t j = 0, n = 0;
    for (int64_t t = 0; t < k; t++) {
        int64_t v = lo + w->a[t] + j;
        while (j < navoid && avoid[j] <= v) {
            out[n++] = avoid[j];
            j++;
            v++;
        }
        out[n++] = (int32_t)v;
    }
    while (j < navoid)
        out[n++] = avoid[j++];
}

/* Off-diagonal values uniform in [-1, 1), in column order; the diagonal
 * (column row, which must be present) gets 1 + the sum of their magnitudes,
 * so the row is strictly diagonally dominant. */
static void dominant_values(uint64_t seed, int32_t row, const int32_t *col, double *val,
                            int64_t len)
{
    psl_rng r = psl_rng_stream(seed, (uint64_t)row, PSL_RNG_VALUES);
    double sum = 0.0;
    int64_t d = -1;
    for (int64_t t = 0; t < len; t++) {
        if (col[t] == row) {
            d = t;
            continue;
        }
        val[t] = psl_rng_signed_unit(&r);
        sum += fabs(val[t]);
    }
    if (d >= 0)
        val[d] = 1.0 + sum;
}

/* ------------------------------------------------------------ banded */

typedef struct banded_ctx {
    int32_t n;
    int64_t bw, k; /* bw <= n-1 */
    uint64_t seed;
} banded_ctx;

static void band_of(const banded_ctx *b, int32_t row, int64_t *lo, int64_t *m)
{
    int64_t l = row - b->bw < 0 ? 0 : row - b->bw;
    int64_t h = row + b->bw > b->n - 1 ? b->n - 1 : row + b->bw;
    *lo = l;
    *m = h - l + 1;
}

static size_t banded_ws(const void *ctx, int32_t maxlen)
{
    return sample_ws_size((int32_t)((const banded_ctx *)ctx)->k);
}

static int32_t banded_count(const void *ctx, int32_t row)
{
    const banded_ctx *b = ctx;
    int64_t lo, m;
    band_of(b, row, &lo, &m);
    return (int32_t)(b->k < m ? b->k : m);
}

static void banded_fill(const void *ctx, int32_t row, int32_t *col, double *val, void *ws)
{
    const banded_ctx *b = ctx;
    int64_t lo, m, len = banded_count(ctx, row);
    band_of(b, row, &lo, &m);
    sample_ws w = sample_ws_view(ws, (int32_t)b->k);
    psl_rng r = psl_rng_stream(b->seed, (uint64_t)row, PSL_RNG_COLS);
    sample_avoiding(&r, len - 1, lo, m, &row, 1, col, &w);
    dominant_values(b->seed, row, col, val, len);
}

/* g's context: a copy of the len bytes at ctx. */
static psl_status set_source(psl_gen_source *g, int32_t n, const psl_gen_ops *ops,
                             const void *ctx, size_t len)
{
    void *c = NULL;
    PSL_TRY(psl_alloc(&c, 1, len, "generator parameters"));
    memcpy(c, ctx, len);
    g->n = n;
    g->ops = ops;
    g->ctx = c;
    return PSL_OK;
}

psl_status psl_gen_banded(psl_gen_source *g, int32_t n, int64_t bw, int64_t k, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    if (n < 1 || bw < 0 || k < 1)
        return psl_error(PSL_ERR_INTERNAL, "banded parameters not checked by the caller");
    banded_ctx b = {n, bw < n - 1 ? bw : n - 1, 0, seed};
    b.k = k < 2 * b.bw + 1 ? k : 2 * b.bw + 1;
    static const psl_gen_ops ops = {banded_count, banded_fill, banded_ws, 0};
    return set_source(g, n, &ops, &b, sizeof b);
}

/* ------------------------------------------------------------ random */

typedef struct random_ctx {
    int32_t n, k; /* k <= n */
    uint64_t seed;
} random_ctx;

static size_t random_ws(const void *ctx, int32_t maxlen)
{
    return sample_ws_size(((const random_ctx *)ctx)->k);
}

static int32_t random_count(const void *ctx, int32_t row) { return ((const random_ctx *)ctx)->k; }

static void random_fill(const void *ctx, int32_t row, int32_t *col, double *val, void *ws)
{
    const random_ctx *rc = ctx;
    sample_ws w = sample_ws_view(ws, rc->k);
    psl_rng r = psl_rng_stream(rc->seed, (uint64_t)row, PSL_RNG_COLS);
    sample_avoiding(&r, rc->k, 0, rc->n, NULL, 0, col, &w);
    psl_rng rv = psl_rng_stream(rc->seed, (uint64_t)row, PSL_RNG_VALUES);
    for (int32_t t = 0; t < rc->k; t++)
        val[t] = psl_rng_signed_unit(&rv);
}

psl_status psl_gen_random(psl_gen_source *g, int32_t n, int64_t k, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    if (n < 1 || k < 1)
        return psl_error(PSL_ERR_INTERNAL, "random parameters not checked by the caller");
    random_ctx rc = {n, (int32_t)(k < n ? k : n), seed};
    static const psl_gen_ops ops = {random_count, random_fill, random_ws, 0};
    return set_source(g, n, &ops, &rc, sizeof rc);
}

/* ------------------------------------------------------------ power law */

/* Row i has weight w_i = U_i^(-1/alpha), U_i uniform in (0, 1] from the
 * row's LENGTH stream: a Pareto(alpha) variable with minimum 1. Its length
 * is round(s * w_i) clamped to [1, n]; the scale s is found by bisection so
 * that the total is as close as possible to avg * n (integer totals:
 * deterministic, and the same when the shares of several callers are
 * added). The weights of the caller's share of the rows are kept; the
 * others are recomputed when counted (the same expression: the same bits). */
typedef struct powerlaw_ctx {
    int32_t n;
    int32_t w0, w1; /* the rows whose weights are kept */
    double scale, inv;
    uint64_t seed;
    double w[];     /* w[i - w0] for rows w0 <= i < w1 */
} powerlaw_ctx;

static double powerlaw_weight(const powerlaw_ctx *p, int32_t row)
{
    if (row >= p->w0 && row < p->w1)
        return p->w[row - p->w0];
    psl_rng r = psl_rng_stream(p->seed, (uint64_t)row, PSL_RNG_LENGTH);
    return pow(psl_rng_open_unit(&r), p->inv);
}

static int32_t scaled_length(double x, int32_t n)
{
    if (!(x < (double)n)) /* also NaN and Inf */
        return n;
    double r = floor(x + 0.5);
    return r < 1.0 ? 1 : (int32_t)r;
}

/* The total length of the kept rows at scale s. */
static int64_t total_length(const powerlaw_ctx *p, double s)
{
    int64_t total = 0;
    const int64_t m = (int64_t)p->w1 - p->w0;
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (int64_t i = 0; i < m; i++)
        total += scaled_length(s * p->w[i], p->n);
    return total;
}

static size_t powerlaw_ws(const void *ctx, int32_t maxlen)
{
    (void)ctx;
    return sample_ws_size(maxlen);
}

static int32_t powerlaw_count(const void *ctx, int32_t row)
{
    const powerlaw_ctx *p = ctx;
    return scaled_length(p->scale * powerlaw_weight(p, row), p->n);
}

/* Half of the off-diagonal entries (rounded down) are distinct columns near
 * the diagonal, within distance len of it; the rest are distinct columns
 * drawn uniformly from the whole row. The workspace is laid out for the
 * row's own length (at most the longest row counted, which sized it). */
static void powerlaw_fill(const void *ctx, int32_t row, int32_t *col, double *val, void *ws)
{
    const powerlaw_ctx *p = ctx;
    int64_t len = powerlaw_count(ctx, row);
    sample_ws w = sample_ws_view(ws, (int32_t)len);
    int64_t lo = row - len < 0 ? 0 : row - len;
    int64_t hi = row + len > p->n - 1 ? p->n - 1 : row + len;
    int64_t near = (len - 1) / 2;
    if (near > hi - lo)
        near = hi - lo;
    psl_rng rn = psl_rng_stream(p->seed, (uint64_t)row, PSL_RNG_NEAR);
    sample_avoiding(&rn, near, lo, hi - lo + 1, &row, 1, w.c, &w);
    psl_rng rf = psl_rng_stream(p->seed, (uint64_t)row, PSL_RNG_COLS);
    sample_avoiding(&rf, len - 1 - near, 0, p->n, w.c, near + 1, col, &w);
    dominant_values(p->seed, row, col, val, len);
}

/* The share's total turned into all rows' total (a no-op for one caller). */
static psl_status all_rows(const psl_gen_share *share, int64_t *total, psl_status local)
{
    return share && share->sum ? share->sum(share->user, total, local) : local;
}

psl_status psl_gen_powerlaw(psl_gen_source *g, int32_t n, double avg, double alpha,
                            uint64_t seed, const psl_gen_share *share, psl_status local)
{
    psl_status st = local;
    powerlaw_ctx *p = NULL;
    memset(g, 0, sizeof *g);
    if (n < 1 || !(avg >= 1.0) || !(alpha > 0.0) || !isfinite(alpha))
        st = psl_error(PSL_ERR_INTERNAL, "powerlaw parameters not checked by the caller");
    int part = share ? share->part : 0, nparts = share ? share->nparts : 1;
    int32_t w0 = (int32_t)((int64_t)n * part / nparts);
    int32_t w1 = (int32_t)((int64_t)n * (part + 1) / nparts);
    if (st == PSL_OK)
        st = psl_alloc((void **)&p, 1, sizeof *p + ((size_t)w1 - w0) * sizeof(double),
                       "power-law weights");
    int64_t none = 0;
    if ((st = all_rows(share, &none, st)) != PSL_OK) { /* every caller fails alike */
        free(p);
        return st;
    }
    *p = (powerlaw_ctx){n, w0, w1, 0.0, -1.0 / alpha, seed};
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)w1 - w0; i++) {
        psl_rng r = psl_rng_stream(seed, (uint64_t)(w0 + i), PSL_RNG_LENGTH);
        p->w[i] = pow(psl_rng_open_unit(&r), p->inv);
    }

    /* total(0) = n <= target <= n*n = total(n), as every w_i >= 1 */
    double target_d = (avg < n ? avg : n) * (double)n;
    int64_t target = (int64_t)floor(target_d + 0.5);
    double lo = 0.0, hi = (double)n;
    int64_t tlo = n, thi = (int64_t)n * n;
    for (int it = 0; it < 200 && tlo != target && thi != target && hi - lo > hi * 0x1p-52; it++) {
        double mid = 0.5 * (lo + hi);
        int64_t t = total_length(p, mid);
        if ((st = all_rows(share, &t, PSL_OK)) != PSL_OK) {
            free(p);
            return st;
        }
        if (t < target) {
            lo = mid;
            tlo = t;
        } else {
            hi = mid;
            thi = t;
        }
    }
    p->scale = target - tlo < thi - target ? lo : hi;
    static const psl_gen_ops ops = {powerlaw_count, powerlaw_fill, powerlaw_ws, 1};
    g->n = n;
    g->ops = &ops;
    g->ctx = p;
    return PSL_OK;
}
