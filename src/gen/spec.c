/*
 * spec.c -- psl_generate: parse a generator spec, check every parameter,
 * and set up the generator as a source of rows (psl_gen_open); its rows
 * [0, n) are built and adopted as a CSR matrix.
 *
 * Grammar (the same as in include/packsell.h):
 *
 *   spec  := ["gen:"] name {":" field}        no blanks, names in lower case
 *
 *   hpcg:X:Y:Z               HPCG 27-point box stencil on a 2^X x 2^Y x 2^Z
 *                            grid: 26 on the diagonal, -1 off it
 *   hpgmp:X:Y:Z[:BETA]       the same pattern; -1-BETA at column row-nx*ny,
 *                            -1+BETA at row+nx*ny (BETA real, default 0.5)
 *        X, Y, Z: integers in 0..30 with X+Y+Z <= 30 (rows fit int32)
 *   lap2d:NX[:NY]            5-point Laplacian, 4 and -1 (NY default NX)
 *   lap3d:NX[:NY:NZ]         7-point Laplacian, 6 and -1 (NY = NZ = NX)
 *        grid sizes >= 1, their product (the rows) at most 2^31-1
 *   banded:N:BW:K[:SEED]     N x N; row i holds the diagonal and K-1
 *                            distinct uniform random columns of
 *                            [max(0,i-BW), min(N-1,i+BW)] (K at most the
 *                            band width min(2 BW + 1, N): larger is an
 *                            error, not capped); off-diagonal values uniform in
 *                            [-1,1), diagonal 1 + sum of their magnitudes
 *                            (strictly diagonally dominant by rows).
 *                            N >= 1, BW >= 0, K >= 1.
 *   powerlaw:N:AVG:ALPHA[:SEED]
 *                            N x N; row lengths round(s * U^(-1/ALPHA)), U
 *                            uniform in (0,1] (Pareto with exponent ALPHA),
 *                            clamped to [1, N], the scale s chosen so that the
 *                            mean length is AVG as closely as
 *                            the rounding allows. Each row holds the
 *                            diagonal, floor((len-1)/2) distinct random
 *                            columns within distance len of the diagonal,
 *                            and the rest distinct uniform random columns of
 *                            the whole row. Values as for banded.
 *                            N >= 1, 1 <= AVG <= N real, ALPHA > 0 real.
 *   random:N:K[:SEED]        N x N; K distinct uniform random columns per
 *                            row, values uniform in [-1,1), no special
 *                            diagonal. N >= 1, 1 <= K <= N.
 *
 *   integer := ["-"] digit {digit}                          (decimal)
 *   real    := ["+"|"-"] (digits ["." [digits]] | "." digits)
 *              [("e"|"E") ["+"|"-"] digits]
 *   SEED    := integer in 0 .. 2^64-1, default 1
 *
 * Errors: PSL_ERR_PARSE for an unknown generator, a wrong number of fields,
 * an empty field or a malformed number; PSL_ERR_INVALID_VALUE for a
 * parameter outside its range; PSL_ERR_SIZE_OVERFLOW when the rows would not
 * fit int32 or the nonzeros could not be addressed (checked before any
 * allocation; with int32 rows the nonzeros always fit int64). Messages quote
 * the spec and name the field by number and name.
 */
#include "format/format.h"
#include "gen/gen_internal.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 5

/* One parsed spec: the generator's fields as text and as numbers. */
typedef struct gen_def gen_def;
typedef struct gen_args {
    const char *spec;
    const gen_def *def;
    int nf;                        /* fields after the name */
    const char *text[MAX_FIELDS];  /* field f starts at text[f] */
    size_t len[MAX_FIELDS];
    int64_t iv[MAX_FIELDS];        /* integer fields; saturated when huge */
    double rv[MAX_FIELDS];         /* real fields */
    uint64_t seed;                 /* the seed field, or 1 */
    const psl_gen_share *share;    /* the caller's share of the rows; NULL: all */
} gen_args;

struct gen_def {
    const char *name;
    const char *usage;             /* fields, for messages */
    const char *kinds;             /* per field: 'i' integer, 'r' real, 's' seed */
    const char *fnames[MAX_FIELDS];
    unsigned counts;               /* bit f set: f fields accepted */
    psl_status (*setup)(psl_gen_source *g, const gen_args *a);
};

/* An error about field f (0-based) of the spec. */
static psl_status field_error(const gen_args *a, int f, psl_status st, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int shown = a->len[f] > 40 ? 40 : (int)a->len[f];
    return psl_error(st, "generator spec \"%.160s\": field %d (%s) \"%.*s%s\": %s", a->spec,
                     f + 1, a->def->fnames[f], shown, a->text[f], a->len[f] > 40 ? "..." : "",
                     what);
}

/* ------------------------------------------------------------ numbers */

/* Parse a decimal integer; huge values saturate to INT64_MIN/MAX (so that
 * the range checks report them). */
static psl_status parse_int(gen_args *a, int f)
{
    const char *s = a->text[f];
    size_t n = a->len[f], i = 0;
    int neg = n > 0 && s[0] == '-';
    i = (size_t)neg;
    if (i == n)
        return field_error(a, f, PSL_ERR_PARSE, "not an integer");
    uint64_t v = 0;
    int big = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return field_error(a, f, PSL_ERR_PARSE, "not an integer");
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            big = 1;
        else
            v = v * 10 + d;
    }
    if (neg)
        a->iv[f] = big || v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
    else
        a->iv[f] = big || v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
    if (a->def->kinds[f] == 's') {
        if (neg && v != 0)
            return field_error(a, f, PSL_ERR_INVALID_VALUE, "a seed must be >= 0");
        if (big)
            return field_error(a, f, PSL_ERR_INVALID_VALUE, "a seed must be < 2^64");
        a->seed = v;
    }
    return PSL_OK;
}

/* Parse a real number (grammar above; no inf/nan/hex/blanks), independent
 * of the C locale's decimal point. */
static psl_status parse_real(gen_args *a, int f)
{
    const char *s = a->text[f];
    size_t n = a->len[f], i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (digits && i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t edigits = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            edigits++;
        if (!edigits)
            digits = 0;
    }
    if (!digits || i != n)
        return field_error(a, f, PSL_ERR_PARSE, "not a real number");
    char buf[128];
    if (n >= sizeof buf)
        return field_error(a, f, PSL_ERR_PARSE, "number longer than %zu characters",
                           sizeof buf - 1);
    memcpy(buf, s, n);
    buf[n] = '\0';
    char point = localeconv()->decimal_point[0];
    char *dot = strchr(buf, '.');
    if (dot && point && point != '.')
        *dot = point;
    a->rv[f] = strtod(buf, NULL);
    if (!isfinite(a->rv[f]))
        return field_error(a, f, PSL_ERR_INVALID_VALUE, "beyond the range of a double");
    return PSL_OK;
}

/* ------------------------------------------------------------ checks */

/* Integer field f in [lo, hi]: below is PSL_ERR_INVALID_VALUE, above is
 * st_above (PSL_ERR_SIZE_OVERFLOW for sizes). */
static psl_status need_int(const gen_args *a, int f, int64_t lo, int64_t hi, psl_status st_above)
{
    if (a->iv[f] < lo)
        return field_error(a, f, PSL_ERR_INVALID_VALUE, "must be >= %lld", (long long)lo);
    if (a->iv[f] > hi)
        return field_error(a, f, st_above,
                           st_above == PSL_ERR_SIZE_OVERFLOW
                               ? "exceeds %lld, the largest int32 row/column count"
                               : "must be <= %lld",
                           (long long)hi);
    return PSL_OK;
}

/* A matrix dimension: 1 .. INT32_MAX. */
static psl_status need_dim(const gen_args *a, int f)
{
    return need_int(a, f, 1, INT32_MAX, PSL_ERR_SIZE_OVERFLOW);
}

/* Refuse up front a matrix whose nonzeros could not be addressed (an
 * array of nnz doubles), before any row array is allocated and touched.
 * About nnz nonzeros in rows rows (the whole matrix; the caller's share of
 * them when the rows are shared): within the largest array, and the CSR
 * arrays (12 bytes a nonzero, 8 a row) within the memory available now. */
static psl_status need_nnz(const gen_args *a, double rows, double nnz)
{
    if (a->share) {
        int64_t n = (int64_t)rows, r = a->share->part, p = a->share->nparts;
        double mine = (double)(n * (r + 1) / p - n * r / p);
        nnz = rows > 0 ? nnz * (mine / rows) : 0.0;
        rows = mine;
    }
    double limit = (double)(PTRDIFF_MAX / (ptrdiff_t)sizeof(double));
    if (nnz > limit)
        return psl_error(PSL_ERR_SIZE_OVERFLOW,
                         "generator spec \"%.160s\": about %.3g nonzeros exceed the largest "
                         "array of doubles (%.3g entries)",
                         a->spec, nnz, limit);
    char what[256];
    snprintf(what, sizeof what, "generator spec \"%.160s\" (%.3g rows, about %.3g nonzeros)",
             a->spec, rows, nnz);
    return psl_memory_check(12.0 * nnz + 8.0 * (rows + 1.0), what);
}

/* ------------------------------------------------------------ generators */

static psl_status build_box(psl_gen_source *g, const gen_args *a, double beta)
{
    for (int f = 0; f < 3; f++)
        PSL_TRY(need_int(a, f, 0, 30, PSL_ERR_INVALID_VALUE));
    int64_t e = a->iv[0] + a->iv[1] + a->iv[2];
    if (e > 30)
        return psl_error(PSL_ERR_SIZE_OVERFLOW,
                         "generator spec \"%.160s\": X+Y+Z = %lld: 2^%lld rows exceed the "
                         "int32 row index (X+Y+Z must be <= 30)",
                         a->spec, (long long)e, (long long)e);
    PSL_TRY(need_nnz(a, ldexp(1.0, (int)e), 27.0 * ldexp(1.0, (int)e)));
    return psl_gen_stencil(g, (int32_t)1 << a->iv[0], (int32_t)1 << a->iv[1],
                           (int32_t)1 << a->iv[2], 1, 26.0, beta);
}

static psl_status build_hpcg(psl_gen_source *g, const gen_args *a)
{
    return build_box(g, a, 0.0);
}

static psl_status build_hpgmp(psl_gen_source *g, const gen_args *a)
{
    return build_box(g, a, a->nf > 3 ? a->rv[3] : 0.5);
}

/* lap2d / lap3d: missing sizes repeat NX. */
static psl_status build_lap(psl_gen_source *g, const gen_args *a, int dims)
{
    int64_t d[3] = {1, 1, 1};
    for (int f = 0; f < dims; f++) {
        int src = f < a->nf ? f : 0;
        PSL_TRY(need_dim(a, src));
        d[f] = a->iv[src];
    }
    if (d[0] * d[1] > INT32_MAX || d[0] * d[1] * d[2] > INT32_MAX)
        return psl_error(PSL_ERR_SIZE_OVERFLOW,
                         "generator spec \"%.160s\": the grid %lld x %lld x %lld has more "
                         "than 2^31-1 points (rows)",
                         a->spec, (long long)d[0], (long long)d[1], (long long)d[2]);
    double rows = (double)d[0] * (double)d[1] * (double)d[2];
    PSL_TRY(need_nnz(a, rows, (2.0 * dims + 1.0) * rows));
    return psl_gen_stencil(g, (int32_t)d[0], (int32_t)d[1], (int32_t)d[2], 0,
                           dims == 2 ? 4.0 : 6.0, 0.0);
}

static psl_status build_lap2d(psl_gen_source *g, const gen_args *a) { return build_lap(g, a, 2); }
static psl_status build_lap3d(psl_gen_source *g, const gen_args *a) { return build_lap(g, a, 3); }

static psl_status build_banded(psl_gen_source *g, const gen_args *a)
{
    PSL_TRY(need_dim(a, 0));
    PSL_TRY(need_int(a, 1, 0, INT64_MAX, PSL_ERR_INVALID_VALUE));
    PSL_TRY(need_int(a, 2, 1, INT64_MAX, PSL_ERR_INVALID_VALUE));
    double n = (double)a->iv[0], band = fmin(2.0 * (double)a->iv[1] + 1.0, n);
    if ((double)a->iv[2] > band)
        return field_error(a, 2, PSL_ERR_INVALID_VALUE,
                           "%lld entries do not fit a row of the band, which holds %.0f "
                           "(min(2 BW + 1, N))",
                           (long long)a->iv[2], band);
    PSL_TRY(need_nnz(a, n, n * (double)a->iv[2]));
    return psl_gen_banded(g, (int32_t)a->iv[0], a->iv[1], a->iv[2], a->seed);
}

static psl_status build_powerlaw(psl_gen_source *g, const gen_args *a)
{
    PSL_TRY(need_dim(a, 0));
    if (!(a->rv[1] >= 1.0))
        return field_error(a, 1, PSL_ERR_INVALID_VALUE, "the mean row length must be >= 1");
    if (!(a->rv[2] > 0.0))
        return field_error(a, 2, PSL_ERR_INVALID_VALUE, "the exponent must be > 0");
    if (a->rv[1] > (double)a->iv[0])
        return field_error(a, 1, PSL_ERR_INVALID_VALUE,
                           "a mean row length of %g exceeds the %lld columns", a->rv[1],
                           (long long)a->iv[0]);
    double n = (double)a->iv[0];
    /* agreed by the callers sharing the rows inside psl_gen_powerlaw */
    psl_status mem = need_nnz(a, n, n * fmin(a->rv[1], n));
    return psl_gen_powerlaw(g, (int32_t)a->iv[0], a->rv[1], a->rv[2], a->seed, a->share, mem);
}

static psl_status build_random(psl_gen_source *g, const gen_args *a)
{
    PSL_TRY(need_dim(a, 0));
    PSL_TRY(need_int(a, 1, 1, INT64_MAX, PSL_ERR_INVALID_VALUE));
    if (a->iv[1] > a->iv[0])
        return field_error(a, 1, PSL_ERR_INVALID_VALUE,
                           "%lld distinct columns do not fit a row of %lld", (long long)a->iv[1],
                           (long long)a->iv[0]);
    double n = (double)a->iv[0];
    PSL_TRY(need_nnz(a, n, n * (double)a->iv[1]));
    return psl_gen_random(g, (int32_t)a->iv[0], a->iv[1], a->seed);
}

#define NF(n) (1u << (n))
static const gen_def generators[] = {
    {"hpcg", "X:Y:Z", "iii", {"X", "Y", "Z"}, NF(3), build_hpcg},
    {"hpgmp", "X:Y:Z[:BETA]", "iiir", {"X", "Y", "Z", "BETA"}, NF(3) | NF(4), build_hpgmp},
    {"lap2d", "NX[:NY]", "ii", {"NX", "NY"}, NF(1) | NF(2), build_lap2d},
    {"lap3d", "NX[:NY:NZ]", "iii", {"NX", "NY", "NZ"}, NF(1) | NF(3), build_lap3d},
    {"banded", "N:BW:K[:SEED]", "iiis", {"N", "BW", "K", "SEED"}, NF(3) | NF(4), build_banded},
    {"powerlaw", "N:AVG:ALPHA[:SEED]", "irrs", {"N", "AVG", "ALPHA", "SEED"}, NF(3) | NF(4),
     build_powerlaw},
    {"random", "N:K[:SEED]", "iis", {"N", "K", "SEED"}, NF(2) | NF(3), build_random},
};

/* ------------------------------------------------------------ entry points */

/* Parse spec into a (its fields checked as numbers; the generator's own
 * checks are its setup's). */
static psl_status parse_spec(gen_args *a, const char *spec)
{
    a->spec = spec;
    a->seed = 1;
    const char *s = strncmp(spec, "gen:", 4) == 0 ? spec + 4 : spec;
    size_t name_len = strcspn(s, ":");
    for (size_t g = 0; g < sizeof generators / sizeof generators[0]; g++)
        if (strlen(generators[g].name) == name_len && !strncmp(s, generators[g].name, name_len))
            a->def = &generators[g];
    if (!a->def)
        return psl_error(PSL_ERR_PARSE,
                         "generator spec \"%.160s\": unknown generator \"%.*s\" (known: hpcg, "
                         "hpgmp, lap2d, lap3d, banded, powerlaw, random)",
                         spec, (int)(name_len > 40 ? 40 : name_len), s);

    /* split the fields */
    const char *p = s + name_len;
    int count = 0;
    while (*p == ':') {
        p++;
        size_t n = strcspn(p, ":");
        if (count < MAX_FIELDS) {
            a->text[count] = p;
            a->len[count] = n;
        }
        count++;
        p += n;
    }
    if (count >= MAX_FIELDS || !(a->def->counts & NF(count)))
        return psl_error(PSL_ERR_PARSE,
                         "generator spec \"%.160s\": %s takes %s, got %d field%s after the name",
                         spec, a->def->name, a->def->usage, count, count == 1 ? "" : "s");
    a->nf = count;
    for (int f = 0; f < count; f++) {
        if (a->len[f] == 0)
            return field_error(a, f, PSL_ERR_PARSE, "empty field");
        PSL_TRY(a->def->kinds[f] == 'r' ? parse_real(a, f) : parse_int(a, f));
    }
    return PSL_OK;
}

psl_status psl_gen_open(psl_gen_source *g, const char *spec, const psl_gen_share *share)
{
    if (!g)
        return psl_error(PSL_ERR_NULL_POINTER, "generator source is NULL");
    memset(g, 0, sizeof *g);
    if (!spec)
        return psl_error(PSL_ERR_NULL_POINTER, "generator spec is NULL");
    if (share && (share->nparts < 1 || share->part < 0 || share->part >= share->nparts))
        return psl_error(PSL_ERR_INTERNAL, "generator share %d of %d", share->part,
                         share->nparts);
    gen_args a;
    memset(&a, 0, sizeof a);
    a.share = share;
    PSL_TRY(parse_spec(&a, spec));
    return a.def->setup(g, &a);
}

psl_status psl_gen_build(psl_gen_csr *out, const char *spec)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "output is NULL");
    memset(out, 0, sizeof *out);
    psl_gen_source g;
    PSL_TRY(psl_gen_open(&g, spec, NULL));
    psl_status st = psl_gen_build_rows(out, &g, 0, g.n);
    psl_gen_close(&g);
    return st;
}

psl_status psl_generate(psl_matrix **A, const char *spec)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "matrix output pointer is NULL");
    *A = NULL;
    psl_gen_csr c;
    PSL_TRY(psl_gen_build(&c, spec));
    return psl_csr_adopt(A, c.nrows, c.ncols, c.row_ptr, c.col_idx, c.values, PSL_CSR_TRUSTED);
}
