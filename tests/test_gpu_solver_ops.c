/*
 * test_gpu_solver_ops.c -- the CUDA backend of the solver layer
 * (psl_backend_cuda, src/kernels/cuda/solver_ops.cu) against plain C loops
 * on the host: every elementwise result BITWISE (FP64 arithmetic for FP64
 * vectors, FP32 for FP32 and FP16), dot products within rounding (1e-12 of
 * sum |x_i y_i| with FP64 accumulation, 1e-5 with FP32) against a long
 * double sum, for n in {0, 1, 7, 1000, 2^20 + 3} and FP64, FP32, FP16
 * vectors, each on aligned and on misaligned views (the kernels' two load
 * paths, which must also give the same sums). Also: coefficient slots (num,
 * den, sqrt, guard, a zero or NaN denominator), the breakdown flags (sticky),
 * guards turning updates into no-ops, a call whose output slots are its
 * coefficients' slots, determinism, a CUDA graph capture and graph_run's
 * capture, replay and refusal, memory entries and bad arguments (an error, nothing written).
 *
 * The executor is built by hand from the internal struct (solver/backend.h)
 * and psl_cuda_exec_init. Without a CUDA device (or in a build without CUDA)
 * the test checks that psl_cuda_exec_init fails cleanly, prints SKIP and
 * passes.
 */
#include "packsell.h"
#include "codec/half.h"
#include "gpu_harness.h"
#include "solver/backend.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ no device */

/* psl_cuda_exec_init fails cleanly: an error, a message, no scratch. */
static void check_without_device(psl_status count_status)
{
    psl_exec ex = {.magic = PSL_EXEC_MAGIC, .be = &psl_backend_cuda, .device = 0};
    CHECK(strcmp(psl_backend_cuda.name, "cuda") == 0);
    psl_status st = psl_cuda_exec_init(&ex);
    CHECK(st != PSL_OK);
    CHECK(ex.scratch == NULL);
    CHECK(strlen(psl_last_error_message()) > 0);
    if (count_status == PSL_ERR_NOT_SUPPORTED) {
        CHECK_ST(st, PSL_ERR_NOT_SUPPORTED);
        CHECK(strstr(psl_last_error_message(), "without CUDA") != NULL);
    } else {
        CHECK_ST(st, PSL_ERR_CUDA);
    }
    psl_cuda_exec_release(&ex); /* nothing to release: a no-op */
    CHECK(ex.scratch == NULL);
}

#ifdef PSL_HAVE_CUDA
/* ================================================================== with a device */

static cudaStream_t g_stream;
static psl_exec g_ex;
static int g_ex_ready;
static const psl_backend *be = &psl_backend_cuda;
static long g_compared; /* results compared with the host */

static psl_exec *ex(void)
{
    if (!g_ex_ready) {
        psl_exec e = {.magic = PSL_EXEC_MAGIC, .be = &psl_backend_cuda, .device = 0,
                      .stream = (void *)g_stream};
        g_ex = e;
        psl_status st = psl_cuda_exec_init(&g_ex);
        CHECK_MSG(st == PSL_OK, "psl_cuda_exec_init: %s", psl_last_error_message());
        g_ex_ready = st == PSL_OK;
    }
    return &g_ex;
}

static const psl_scalar TYPES[] = {PSL_FP64, PSL_FP32, PSL_FP16};
static const int64_t NS[] = {0, 1, 7, 1000, (1 << 20) + 3};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ------------------------------------------------------------------ host vectors */

static size_t esz(psl_scalar t) { return t == PSL_FP64 ? 8 : t == PSL_FP32 ? 4 : 2; }

/* Element i as a double (exact). */
static double hget(psl_scalar t, const void *p, int64_t i)
{
    if (t == PSL_FP64)
        return ((const double *)p)[i];
    if (t == PSL_FP32)
        return ((const float *)p)[i];
    return psl_half_to_float(((const uint16_t *)p)[i]);
}

/* Element i of an FP32 or FP16 vector as a float, and a float stored into one. */
static float ldf(psl_scalar t, const void *p, int64_t i)
{
    return t == PSL_FP32 ? ((const float *)p)[i] : psl_half_to_float(((const uint16_t *)p)[i]);
}
static void stf(psl_scalar t, void *p, int64_t i, float v)
{
    if (t == PSL_FP32)
        ((float *)p)[i] = v;
    else
        ((uint16_t *)p)[i] = psl_float_to_half(v);
}

/* Store a double into element i: FP64 as is, else through float. */
static void hset(psl_scalar t, void *p, int64_t i, double v)
{
    if (t == PSL_FP64)
        ((double *)p)[i] = v;
    else
        stf(t, p, i, (float)v);
}

/* n random entries in [lo, hi) rounded to t (at least one byte allocated). */
static void *hrand(psl_scalar t, int64_t n, unsigned long long seed, double lo, double hi)
{
    void *p = malloc((size_t)(n > 0 ? n : 1) * esz(t));
    for (int64_t i = 0; i < n; i++)
        hset(t, p, i, lo + (hi - lo) * psl_test_uniform(&seed));
    return p;
}

static void *hcopy(psl_scalar t, int64_t n, const void *src)
{
    void *p = malloc((size_t)(n > 0 ? n : 1) * esz(t));
    memcpy(p, src, (size_t)n * esz(t));
    return p;
}

static int is_nan(psl_scalar t, const void *p, int64_t i)
{
    if (t == PSL_FP16)
        return (((const uint16_t *)p)[i] & 0x7fffu) > 0x7c00u;
    return isnan(hget(t, p, i));
}

/* The first index where a and b differ bitwise (any two NaNs are equal), or -1. */
static int64_t first_diff(psl_scalar t, int64_t n, const void *a, const void *b)
{
    const size_t s = esz(t);
    for (int64_t i = 0; i < n; i++)
        if (memcmp((const char *)a + i * s, (const char *)b + i * s, s) != 0 &&
            !(is_nan(t, a, i) && is_nan(t, b, i)))
            return i;
    return -1;
}

/* Bitwise equality of a device result with the host reference. */
static void check_bits(const char *what, psl_scalar t, int64_t n, int off, const void *got,
                       const void *want)
{
    int64_t i = first_diff(t, n, got, want);
    g_compared++;
    CHECK_MSG(i < 0, "%s (%s, n %lld, offset %d): entry %lld is %.17g, the host %.17g", what,
              psl_scalar_name(t), (long long)n, off, (long long)i, i >= 0 ? hget(t, got, i) : 0.0,
              i >= 0 ? hget(t, want, i) : 0.0);
}

/* ------------------------------------------------------------------ device vectors */

/* A device vector of n entries of t at offset `off` elements into its
 * allocation (off 1: not aligned to 16 bytes). */
typedef struct dvec {
    void *base;
    psl_vview v;
} dvec;

static dvec dnew(psl_scalar t, int64_t n, int off)
{
    dvec d = {NULL, {NULL, n, t}};
    size_t bytes = (size_t)(n + (n > 0 ? off : 0)) * esz(t);
    CHECK_OK(be->alloc(ex(), bytes, &d.base));
    if (d.base)
        d.v.data = (char *)d.base + (size_t)off * esz(t);
    return d;
}

static dvec dup_host(psl_scalar t, int64_t n, int off, const void *host)
{
    dvec d = dnew(t, n, off);
    CHECK_OK(be->from_host(ex(), d.v.data, host, (size_t)n * esz(t)));
    return d;
}

/* A new host copy of d. */
static void *dget(const dvec *d)
{
    void *h = malloc((size_t)(d->v.n > 0 ? d->v.n : 1) * esz(d->v.type));
    CHECK_OK(be->to_host(ex(), h, d->v.data, (size_t)d->v.n * esz(d->v.type)));
    return h;
}

static void dfree(dvec *d)
{
    be->free(ex(), d->base);
    d->base = NULL;
    d->v.data = NULL;
}

/* ------------------------------------------------------------------ slots */

#define NSLOTS 16
static double *g_dslots; /* device */
static double g_hslots[NSLOTS];

static void slots_set(const double *v)
{
    if (!g_dslots)
        CHECK_OK(be->alloc(ex(), NSLOTS * sizeof(double), (void **)&g_dslots));
    memcpy(g_hslots, v, sizeof g_hslots);
    CHECK_OK(be->from_host(ex(), g_dslots, g_hslots, sizeof g_hslots));
}

static void slots_get(double *v) { CHECK_OK(be->to_host(ex(), v, g_dslots, NSLOTS * 8)); }

/* The standard slot values the coefficients below read. */
static void slots_standard(void)
{
    double v[NSLOTS] = {0.3, 1.7, 2.0, 3.0, 0.0, 1.0, 0.0, NAN, -0.6, 5.0};
    slots_set(v);
}

/* A coefficient c * N / D over slot indices (-1: none). */
typedef struct sx {
    double c;
    int num, den, guard;
    unsigned flags;
} sx;

static psl_sexpr sx_on(sx s, const double *slots)
{
    psl_sexpr e = {s.c, s.num >= 0 ? slots + s.num : NULL, s.den >= 0 ? slots + s.den : NULL,
                   s.guard >= 0 ? slots + s.guard : NULL, s.flags};
    return e;
}
static psl_sexpr sx_dev(sx s) { return sx_on(s, g_dslots); }
/* Its value on the host, from the host copy of the slots. */
static double sx_val(sx s) { return psl_sexpr_eval(sx_on(s, g_hslots)); }

/* Coefficients over slots_standard: a constant, num/den, both through sqrt,
 * a guard not set, a guard set (0), a zero and a NaN denominator (0). */
static const sx COEFS[] = {
    {0.75, -1, -1, -1, 0},
    {-1.25, 0, 1, -1, 0},
    {1.0, 2, 3, -1, PSL_SX_SQRT_NUM | PSL_SX_SQRT_DEN},
    {0.5, 8, -1, 4, 0},
    {0.5, 0, -1, 5, 0},
    {2.0, 0, 6, -1, 0},
    {2.0, 0, 7, -1, 0},
};
static const sx ZERO = {0.0, -1, -1, -1, 0};
static const sx ONE = {1.0, -1, -1, -1, 0};

/* ------------------------------------------------------------------ graph capture */

/* One CG-like step (axpby, dots with a check, cg_residual, cg_update) on
 * vectors of FP64, captured into a graph and replayed, gives the bits of a
 * direct run: no entry synchronizes or allocates. */
TEST(graph_capture)
{
    const psl_scalar t = PSL_FP64;
    const int64_t n = 100003;
    slots_standard();
    void *hx = hrand(t, n, 1, -1, 1), *hy = hrand(t, n, 2, -1, 1), *hd = hrand(t, n, 3, 0.5, 2);
    void *res[2][4];
    double out[2][NSLOTS];
    for (int g = 0; g < 2; g++) {
        slots_standard();
        dvec x = dup_host(t, n, 0, hx), y = dup_host(t, n, 0, hy), d = dup_host(t, n, 0, hd);
        dvec z = dnew(t, n, 0), p = dup_host(t, n, 0, hx);
        CHECK_OK(be->sync(ex()));
        cudaGraph_t graph = NULL;
        cudaGraphExec_t gexec = NULL;
        if (g)
            CUDA_CHECK(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
        psl_vview ys[2] = {x.v, y.v};
        CHECK_OK(be->axpby(ex(), sx_dev(COEFS[1]), x.v, sx_dev(ONE), y.v));
        CHECK_OK(be->dots(ex(), x.v, 2, ys, PSL_FP64, g_dslots + 10, PSL_DOT_CHECK_POSITIVE,
                          g_dslots + 12));
        sx a = {1.0, 10, 11, 12, 0};
        CHECK_OK(be->cg_residual(ex(), sx_dev(a), x.v, y.v, d.v, z.v, PSL_FP64, g_dslots + 13,
                                 PSL_DOT_CHECK_FINITE, g_dslots + 12));
        sx b = {1.0, 13, 10, 12, 0};
        CHECK_OK(be->cg_update(ex(), sx_dev(a), p.v, x.v, z.v, sx_dev(b)));
        if (g) {
            CUDA_CHECK(cudaStreamEndCapture(g_stream, &graph));
            CHECK(graph != NULL);
            if (graph) {
                CUDA_CHECK(cudaGraphInstantiate(&gexec, graph, 0));
                if (gexec) {
                    CUDA_CHECK(cudaGraphLaunch(gexec, g_stream));
                    CUDA_CHECK(cudaGraphExecDestroy(gexec));
                }
                CUDA_CHECK(cudaGraphDestroy(graph));
            }
        }
        CHECK_OK(be->sync(ex()));
        res[g][0] = dget(&x);
        res[g][1] = dget(&y);
        res[g][2] = dget(&z);
        res[g][3] = dget(&p);
        slots_get(out[g]);
        dfree(&x);
        dfree(&y);
        dfree(&d);
        dfree(&z);
        dfree(&p);
    }
    for (int k = 0; k < 4; k++) {
        check_bits("graph replay", t, n, 0, res[1][k], res[0][k]);
        free(res[0][k]);
        free(res[1][k]);
    }
    CHECK(out[0][12] == 0.0);
    CHECK(memcmp(out[0], out[1], sizeof out[0]) == 0);
    free(hx);
    free(hy);
    free(hd);
}

/* What graph_run's fn queues: y = x + 2 y, counting fn's calls; with `sync`
 * it also synchronizes, which a capture cannot take. */
typedef struct graph_work {
    dvec *x, *y;
    int calls;
    int sync;
} graph_work;

static psl_status graph_fn(void *ctx)
{
    graph_work *w = ctx;
    w->calls++;
    psl_status st = be->axpby(ex(), psl_sx(1.0), w->x->v, psl_sx(2.0), w->y->v);
    return st == PSL_OK && w->sync ? be->sync(ex()) : st;
}

/* y after k applications of graph_fn's update, on the host. */
static double *graph_expect(const double *x, const double *y0, int64_t n, int k)
{
    double *y = malloc((size_t)n * sizeof *y);
    memcpy(y, y0, (size_t)n * sizeof *y);
    for (int j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++)
            y[i] = 1.0 * x[i] + 2.0 * y[i];
    return y;
}

/* graph_run: fn runs once, at the capture, and the later calls replay its
 * work (the same bits as the host's loop); another key captures again;
 * inside a capture of the caller's, fn runs and joins it; a fn that
 * synchronizes is refused and then runs directly at every call. */
TEST(graph_run)
{
    const int64_t n = 4099;
    double *hx = hrand(PSL_FP64, n, 7, -1, 1), *hy = hrand(PSL_FP64, n, 8, -1, 1);
    dvec x = dup_host(PSL_FP64, n, 0, hx), y = dup_host(PSL_FP64, n, 0, hy);
    graph_work w = {&x, &y, 0, 0};
    void *graph = NULL;
    int key1 = 0, key2 = 0;
    CHECK(be->graph_run && be->graph_free);
    for (int k = 0; k < 3; k++)
        CHECK_OK(be->graph_run(ex(), &graph, &key1, graph_fn, &w));
    CHECK_MSG(w.calls == 1, "fn ran %d times for one capture and two replays", w.calls);
    CHECK(graph != NULL);
    CHECK_OK(be->graph_run(ex(), &graph, &key2, graph_fn, &w));
    CHECK_MSG(w.calls == 2, "fn ran %d times: another key must capture again", w.calls);
    CHECK_OK(be->graph_run(ex(), &graph, &key2, graph_fn, &w));
    CHECK(w.calls == 2);
    double *got = dget(&y), *want = graph_expect(hx, hy, n, 5);
    check_bits("graph_run replays", PSL_FP64, n, 0, got, want);
    free(got);

    /* inside the caller's capture: fn's work joins it, no graph of its own */
    void *inner = NULL;
    cudaGraph_t outer = NULL;
    cudaGraphExec_t oexec = NULL;
    CUDA_CHECK(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
    psl_status st = be->graph_run(ex(), &inner, &key1, graph_fn, &w);
    CUDA_CHECK(cudaStreamEndCapture(g_stream, &outer));
    CHECK_OK(st);
    CHECK(w.calls == 3 && inner == NULL && outer != NULL);
    if (outer) {
        CUDA_CHECK(cudaGraphInstantiate(&oexec, outer, 0));
        if (oexec) {
            CUDA_CHECK(cudaGraphLaunch(oexec, g_stream));
            CUDA_CHECK(cudaGraphExecDestroy(oexec));
        }
        CUDA_CHECK(cudaGraphDestroy(outer));
    }

    /* a fn that synchronizes: refused, then run directly at every call */
    void *refused = NULL;
    w.sync = 1;
    CHECK_OK(be->graph_run(ex(), &refused, &key1, graph_fn, &w));
    CHECK_MSG(w.calls == 5, "fn ran %d times: the refused capture and the direct run", w.calls);
    CHECK_OK(be->graph_run(ex(), &refused, &key1, graph_fn, &w));
    CHECK(w.calls == 6);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK_OK(be->sync(ex()));
    got = dget(&y);
    free(want);
    want = graph_expect(hx, hy, n, 8);
    check_bits("graph_run nested and refused", PSL_FP64, n, 0, got, want);
    free(got);
    free(want);
    be->graph_free(ex(), &graph);
    be->graph_free(ex(), &refused);
    be->graph_free(ex(), &inner);
    CHECK(graph == NULL && refused == NULL);
    dfree(&x);
    dfree(&y);
    free(hx);
    free(hy);
}

/* ------------------------------------------------------------------ memory */

/* alloc gives zeroed memory (also where freed memory had data), 0 bytes
 * give NULL; from_host / to_host / copy_bytes move the bytes. */
TEST(memory)
{
    void *p = (void *)1;
    CHECK_OK(be->alloc(ex(), 0, &p));
    CHECK(p == NULL);
    be->free(ex(), NULL);
    const size_t bytes = 1000003;
    unsigned char *h = malloc(bytes), *back = malloc(bytes);
    for (int round = 0; round < 2; round++) {
        void *d = NULL;
        CHECK_OK(be->alloc(ex(), bytes, &d));
        CHECK(d != NULL);
        memset(back, 0x5a, bytes);
        CHECK_OK(be->to_host(ex(), back, d, bytes));
        size_t nonzero = 0;
        for (size_t i = 0; i < bytes; i++)
            nonzero += back[i] != 0;
        CHECK_MSG(nonzero == 0, "round %d: %zu bytes of a new allocation not zero", round,
                  nonzero);
        psl_vview v = {d, (int64_t)(bytes / 8), PSL_FP64};
        CHECK_OK(be->fill(ex(), v, -3.5)); /* dirty it before it is freed */
        CHECK_OK(be->sync(ex()));
        be->free(ex(), d);
    }
    unsigned long long seed = 9;
    for (size_t i = 0; i < bytes; i++)
        h[i] = (unsigned char)psl_test_rand(&seed);
    void *d1 = NULL, *d2 = NULL;
    CHECK_OK(be->alloc(ex(), bytes, &d1));
    CHECK_OK(be->alloc(ex(), bytes, &d2));
    CHECK_OK(be->from_host(ex(), d1, h, bytes));
    CHECK_OK(be->copy_bytes(ex(), (char *)d2 + 1, (char *)d1 + 3, bytes - 3));
    CHECK_OK(be->to_host(ex(), back, d2, bytes));
    CHECK(back[0] == 0);
    CHECK(memcmp(back + 1, h + 3, bytes - 3) == 0);
    CHECK(back[bytes - 2] == 0 && back[bytes - 1] == 0);
    CHECK_OK(be->to_host(ex(), back, d1, bytes));
    CHECK(memcmp(back, h, bytes) == 0);
    CHECK_OK(be->copy_bytes(ex(), d1, d1, bytes));
    CHECK_OK(be->copy_bytes(ex(), d1, d2, 0));
    CHECK_OK(be->to_host(ex(), back, d1, 0));
    CHECK_OK(be->from_host(ex(), d1, h, 0));
    CHECK_OK(be->sync(ex()));
    be->free(ex(), d1);
    be->free(ex(), d2);
    free(h);
    free(back);
}

/* ------------------------------------------------------------------ elementwise */

/* fill: the value rounded to the type (FP16 through float). */
TEST(fill)
{
    static const double values[] = {1.0 / 3.0, -0.0, 1e300, 65519.0, 3e-8};
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int off = 0; off < 2; off++)
                for (int vi = 0; vi < COUNT(values); vi++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    dvec y = dnew(t, n, off);
                    CHECK_OK(be->fill(ex(), y.v, values[vi]));
                    void *want = malloc((size_t)(n + 1) * esz(t)), *got = dget(&y);
                    for (int64_t i = 0; i < n; i++)
                        hset(t, want, i, values[vi]);
                    check_bits("fill", t, n, off, got, want);
                    free(want);
                    free(got);
                    dfree(&y);
                }
}

/* scale_copy between every pair of types: FP64 arithmetic when either is
 * FP64, else FP32, rounded to y's type; also values that overflow FP16 and
 * fall to its subnormals. */
TEST(scale_copy)
{
    for (int tx = 0; tx < COUNT(TYPES); tx++)
        for (int ty = 0; ty < COUNT(TYPES); ty++)
            for (int ni = 0; ni < COUNT(NS); ni++)
                for (int off = 0; off < 2; off++) {
                    const psl_scalar X = TYPES[tx], Y = TYPES[ty];
                    const int64_t n = NS[ni];
                    slots_standard();
                    void *hx = hrand(X, n, 10 + (unsigned)ni, -3, 3);
                    for (int64_t i = 0; i < n && i < 6; i++) /* FP16 edges */
                        hset(X, hx, i, (double[]){60000.0, -7e-6, 3.1e-5, 0.0, 65504.0, 1e-8}[i]);
                    for (int ci = 0; ci < COUNT(COEFS); ci++) {
                        const sx a = ci == 0 ? (sx){1.5, -1, -1, -1, 0} : COEFS[ci];
                        dvec x = dup_host(X, n, off, hx), y = dnew(Y, n, off);
                        CHECK_OK(be->scale_copy(ex(), sx_dev(a), x.v, y.v));
                        void *got = dget(&y), *want = malloc((size_t)(n + 1) * esz(Y));
                        const double av = sx_val(a);
                        for (int64_t i = 0; i < n; i++) {
                            if (X == PSL_FP64 || Y == PSL_FP64) {
                                double v = av * hget(X, hx, i);
                                hset(Y, want, i, v);
                            } else {
                                float v = (float)av * ldf(X, hx, i);
                                stf(Y, want, i, v);
                            }
                        }
                        check_bits("scale_copy", Y, n, off, got, want);
                        free(got);
                        free(want);
                        dfree(&x);
                        dfree(&y);
                    }
                    free(hx);
                }
}

/* The FP16 loads and stores of the kernels against codec/half.h: every
 * FP16 value widened (scale_copy FP16 -> FP32, a = 1), and rounded back
 * (FP32 -> FP16) from every FP16 value, its neighbours one float ulp away,
 * the midpoints to the next FP16 value and their neighbours. */
TEST(fp16_conversions)
{
    const int64_t nh = 65536;
    uint16_t *h = malloc(nh * sizeof *h);
    for (int64_t i = 0; i < nh; i++)
        h[i] = (uint16_t)i;
    const int64_t nf = nh * 6;
    float *f = malloc((size_t)nf * sizeof *f), *wide = malloc(nh * sizeof *wide);
    uint16_t *want = malloc((size_t)nf * sizeof *want);
    for (int64_t i = 0; i < nh; i++) {
        wide[i] = psl_half_to_float(h[i]);
        const float v = wide[i];
        const float next = psl_half_to_float((uint16_t)(i == 0x7bff || i == 0xfbff ? i : i + 1));
        const float mid = (float)(((double)v + next) / 2); /* exact: 11-bit values */
        const float c[6] = {v, nextafterf(v, INFINITY), nextafterf(v, -INFINITY), mid,
                            nextafterf(mid, INFINITY), nextafterf(mid, -INFINITY)};
        for (int j = 0; j < 6; j++)
            f[i * 6 + j] = c[j];
    }
    for (int64_t i = 0; i < nf; i++)
        want[i] = psl_float_to_half(f[i]);
    for (int off = 0; off < 2; off++) {
        dvec dh = dup_host(PSL_FP16, nh, off, h), dw = dnew(PSL_FP32, nh, off);
        CHECK_OK(be->scale_copy(ex(), psl_sx(1.0), dh.v, dw.v));
        void *got = dget(&dw);
        check_bits("FP16 -> FP32", PSL_FP32, nh, off, got, wide);
        free(got);
        dvec df = dup_host(PSL_FP32, nf, off, f), dn = dnew(PSL_FP16, nf, off);
        CHECK_OK(be->scale_copy(ex(), psl_sx(1.0), df.v, dn.v));
        got = dget(&dn);
        check_bits("FP32 -> FP16", PSL_FP16, nf, off, got, want);
        free(got);
        dfree(&dh);
        dfree(&dw);
        dfree(&df);
        dfree(&dn);
    }
    free(h);
    free(f);
    free(wide);
    free(want);
}

/* y = a*x + b*y; b the constant 0: y = a*x, y not read (NaN in y does not leak). */
TEST(axpby)
{
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int off = 0; off < 2; off++)
                for (int ci = 0; ci < COUNT(COEFS); ci++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    slots_standard();
                    const sx a = COEFS[ci], b = ci % 2 ? COEFS[(ci + 2) % COUNT(COEFS)] : ZERO;
                    const int read_y = ci % 2;
                    void *hx = hrand(t, n, 20, -2, 2), *hy = hrand(t, n, 21, -2, 2);
                    if (!read_y)
                        for (int64_t i = 0; i < n; i++)
                            hset(t, hy, i, NAN);
                    dvec x = dup_host(t, n, off, hx), y = dup_host(t, n, off, hy);
                    CHECK_OK(be->axpby(ex(), sx_dev(a), x.v, sx_dev(b), y.v));
                    void *got = dget(&y);
                    const double ad = sx_val(a), bd = sx_val(b);
                    const float af = (float)ad, bf = (float)bd;
                    for (int64_t i = 0; i < n; i++) {
                        if (t == PSL_FP64) {
                            double *yy = hy;
                            const double *xx = hx;
                            yy[i] = read_y ? ad * xx[i] + bd * yy[i] : ad * xx[i];
                        } else {
                            stf(t, hy, i,
                                read_y ? af * ldf(t, hx, i) + bf * ldf(t, hy, i)
                                       : af * ldf(t, hx, i));
                        }
                    }
                    check_bits("axpby", t, n, off, got, hy);
                    free(got);
                    free(hx);
                    free(hy);
                    dfree(&x);
                    dfree(&y);
                }
}

/* y = y + a0*x0 + a1*x1 + ... in order, for k = 1, 3, 8. */
TEST(maxpy)
{
    static const int ks[] = {1, 3, 8};
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int off = 0; off < 2; off++)
                for (int kk = 0; kk < COUNT(ks); kk++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    const int k = ks[kk];
                    slots_standard();
                    void *hy = hrand(t, n, 30, -2, 2), *hx[PSL_DOTS_MAX];
                    dvec x[PSL_DOTS_MAX];
                    psl_vview xv[PSL_DOTS_MAX];
                    psl_sexpr a[PSL_DOTS_MAX];
                    double ad[PSL_DOTS_MAX];
                    for (int j = 0; j < k; j++) {
                        hx[j] = hrand(t, n, 31 + (unsigned)j, -2, 2);
                        x[j] = dup_host(t, n, off, hx[j]);
                        xv[j] = x[j].v;
                        const sx s = COEFS[(j + kk) % COUNT(COEFS)];
                        a[j] = sx_dev(s);
                        ad[j] = sx_val(s);
                    }
                    dvec y = dup_host(t, n, off, hy);
                    CHECK_OK(be->maxpy(ex(), k, a, xv, y.v));
                    void *got = dget(&y);
                    for (int64_t i = 0; i < n; i++) {
                        if (t == PSL_FP64) {
                            double s = ((double *)hy)[i];
                            for (int j = 0; j < k; j++)
                                s = s + ad[j] * ((double *)hx[j])[i];
                            ((double *)hy)[i] = s;
                        } else {
                            float s = ldf(t, hy, i);
                            for (int j = 0; j < k; j++)
                                s = s + (float)ad[j] * ldf(t, hx[j], i);
                            stf(t, hy, i, s);
                        }
                    }
                    check_bits("maxpy", t, n, off, got, hy);
                    free(got);
                    free(hy);
                    for (int j = 0; j < k; j++) {
                        free(hx[j]);
                        dfree(&x[j]);
                    }
                    dfree(&y);
                }
}

/* y = a*(d*x) + b*y; b the constant 0: y = a*(d*x), y not read. */
TEST(diag_scale)
{
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int off = 0; off < 2; off++)
                for (int read_y = 0; read_y < 2; read_y++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    slots_standard();
                    const sx a = COEFS[1 + read_y], b = read_y ? COEFS[3] : ZERO;
                    void *hd = hrand(t, n, 40, 0.25, 4), *hx = hrand(t, n, 41, -2, 2),
                         *hy = hrand(t, n, 42, -2, 2);
                    if (!read_y)
                        for (int64_t i = 0; i < n; i++)
                            hset(t, hy, i, NAN);
                    dvec d = dup_host(t, n, off, hd), x = dup_host(t, n, off, hx),
                         y = dup_host(t, n, off, hy);
                    CHECK_OK(be->diag_scale(ex(), sx_dev(a), d.v, x.v, sx_dev(b), y.v));
                    void *got = dget(&y);
                    const double ad = sx_val(a), bd = sx_val(b);
                    for (int64_t i = 0; i < n; i++) {
                        if (t == PSL_FP64) {
                            const double *dd = hd, *xx = hx;
                            double *yy = hy;
                            yy[i] = read_y ? ad * (dd[i] * xx[i]) + bd * yy[i]
                                           : ad * (dd[i] * xx[i]);
                        } else {
                            const float af = (float)ad, bf = (float)bd;
                            const float dx = ldf(t, hd, i) * ldf(t, hx, i);
                            stf(t, hy, i, read_y ? af * dx + bf * ldf(t, hy, i) : af * dx);
                        }
                    }
                    check_bits("diag_scale", t, n, off, got, hy);
                    free(got);
                    free(hd);
                    free(hx);
                    free(hy);
                    dfree(&d);
                    dfree(&x);
                    dfree(&y);
                }
}

/* x = x + a*p; p = z + b*p. */
TEST(cg_update)
{
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int off = 0; off < 2; off++)
                for (int ci = 0; ci < COUNT(COEFS); ci++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    slots_standard();
                    const sx a = COEFS[ci], b = COEFS[(ci + 1) % COUNT(COEFS)];
                    void *hp = hrand(t, n, 50, -2, 2), *hx = hrand(t, n, 51, -2, 2),
                         *hz = hrand(t, n, 52, -2, 2);
                    dvec p = dup_host(t, n, off, hp), x = dup_host(t, n, off, hx),
                         z = dup_host(t, n, off, hz);
                    CHECK_OK(be->cg_update(ex(), sx_dev(a), p.v, x.v, z.v, sx_dev(b)));
                    void *gp = dget(&p), *gx = dget(&x);
                    const double ad = sx_val(a), bd = sx_val(b);
                    for (int64_t i = 0; i < n; i++) {
                        if (t == PSL_FP64) {
                            double *pp = hp, *xx = hx, *zz = hz;
                            xx[i] = xx[i] + ad * pp[i];
                            pp[i] = zz[i] + bd * pp[i];
                        } else {
                            const float af = (float)ad, bf = (float)bd, pi = ldf(t, hp, i);
                            stf(t, hx, i, ldf(t, hx, i) + af * pi);
                            stf(t, hp, i, ldf(t, hz, i) + bf * pi);
                        }
                    }
                    check_bits("cg_update x", t, n, off, gx, hx);
                    check_bits("cg_update p", t, n, off, gp, hp);
                    free(gp);
                    free(gx);
                    free(hp);
                    free(hx);
                    free(hz);
                    dfree(&p);
                    dfree(&x);
                    dfree(&z);
                }
}

/* ------------------------------------------------------------------ reductions */

/* |got - want| <= tol * scale (scale: sum |x_i y_i|), tol by accumulation. */
static void check_dot(const char *what, psl_scalar t, psl_scalar acc, int64_t n, int j,
                      double got, long double want, long double scale)
{
    const double tol = acc == PSL_FP64 ? 1e-12 : 1e-5;
    const double err = fabs((double)((long double)got - want));
    g_compared++;
    CHECK_MSG(err <= tol * (double)scale + 1e-300, "%s[%d] (%s, acc %s, n %lld): %.17g, the host %.17Lg (error %.3g of scale %.3Lg)", what, j,
              psl_scalar_name(t), psl_scalar_name(acc), (long long)n, got, want, err, scale);
}

/* out[j] = x . y[j] for k = 1, 2, 3, 5, 8, both accumulations: within
 * rounding of the exact sums; the same bits on a misaligned copy and on a
 * second run. A bigger n where every thread takes several chunks. */
TEST(dots)
{
    static const int ks[] = {1, 2, 3, 5, 8};
    static const psl_scalar accs[] = {PSL_FP64, PSL_FP32};
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni <= COUNT(NS); ni++)
            for (int kk = 0; kk < COUNT(ks); kk++) {
                const psl_scalar t = TYPES[ti];
                const int64_t n = ni < COUNT(NS) ? NS[ni] : (1 << 23) + 1;
                const int k = ks[kk];
                if (ni == COUNT(NS) && k != 3)
                    continue;
                void *hx = hrand(t, n, 60, -1, 1), *hy[PSL_DOTS_MAX];
                for (int j = 0; j < k; j++) {
                    hy[j] = hrand(t, n, 61 + (unsigned)j, -1, 1);
                    /* mostly positive products for j odd: the sum does not cancel */
                    if (j % 2)
                        for (int64_t i = 0; i < n; i++)
                            hset(t, hy[j], i, hget(t, hx, i) * (1.25 + 0.5 * hget(t, hy[j], i)));
                }
                long double want[PSL_DOTS_MAX], scale[PSL_DOTS_MAX];
                for (int j = 0; j < k; j++) {
                    want[j] = scale[j] = 0;
                    for (int64_t i = 0; i < n; i++) {
                        long double pr = (long double)hget(t, hx, i) * hget(t, hy[j], i);
                        want[j] += pr;
                        scale[j] += fabsl(pr);
                    }
                }
                for (int ai = 0; ai < COUNT(accs); ai++) {
                    double first[PSL_DOTS_MAX + 1];
                    for (int run = 0; run < 3; run++) { /* offsets 0, 1, 0 */
                        const int off = run == 1;
                        dvec x = dup_host(t, n, off, hx), y[PSL_DOTS_MAX];
                        psl_vview yv[PSL_DOTS_MAX];
                        for (int j = 0; j < k; j++) {
                            y[j] = dup_host(t, n, off, hy[j]);
                            yv[j] = y[j].v;
                        }
                        double init[NSLOTS];
                        for (int s = 0; s < NSLOTS; s++)
                            init[s] = 42.0;
                        slots_set(init);
                        CHECK_OK(be->dots(ex(), x.v, k, yv, accs[ai], g_dslots, PSL_DOT_CHECK_NONE,
                                          NULL));
                        double got[NSLOTS];
                        slots_get(got);
                        for (int j = 0; j < k; j++)
                            check_dot("dots", t, accs[ai], n, j, got[j], want[j], scale[j]);
                        CHECK_MSG(got[k] == 42.0, "dots wrote out[%d] for k = %d", k, k);
                        if (run == 0)
                            memcpy(first, got, sizeof first);
                        else
                            CHECK_MSG(memcmp(first, got, sizeof first) == 0,
                                      "dots (%s, acc %s, n %lld, k %d): run %d (offset %d) gives "
                                      "other bits: %.17g vs %.17g",
                                      psl_scalar_name(t), psl_scalar_name(accs[ai]), (long long)n,
                                      k, run, off, got[0], first[0]);
                        dfree(&x);
                        for (int j = 0; j < k; j++)
                            dfree(&y[j]);
                    }
                }
                free(hx);
                for (int j = 0; j < k; j++)
                    free(hy[j]);
            }
}

/* r = r - a*q; z = d*r (or none); out = (r.z, r.r), with r and z as stored. */
TEST(cg_residual)
{
    static const psl_scalar accs[] = {PSL_FP64, PSL_FP32};
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int have_d = 0; have_d < 2; have_d++)
                for (int ai = 0; ai < COUNT(accs); ai++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    const sx a = COEFS[(ni + have_d) % COUNT(COEFS)];
                    void *hq = hrand(t, n, 70, -1, 1), *hr0 = hrand(t, n, 71, -1, 1),
                         *hd = hrand(t, n, 72, 0.5, 2);
                    void *hr = hcopy(t, n, hr0), *hz = hrand(t, n, 73, -1, 1);
                    slots_standard();
                    const double ad = sx_val(a);
                    long double rz = 0, rr = 0, srz = 0;
                    for (int64_t i = 0; i < n; i++) {
                        if (t == PSL_FP64) {
                            double *r = hr, *z = hz;
                            const double *q = hq, *d = hd;
                            r[i] = r[i] - ad * q[i];
                            if (have_d)
                                z[i] = d[i] * r[i];
                        } else {
                            stf(t, hr, i, ldf(t, hr, i) - (float)ad * ldf(t, hq, i));
                            if (have_d)
                                stf(t, hz, i, ldf(t, hd, i) * ldf(t, hr, i));
                        }
                        const long double ri = hget(t, hr, i), zi = have_d ? hget(t, hz, i) : ri;
                        rz += ri * zi;
                        srz += fabsl(ri * zi);
                        rr += ri * ri;
                    }
                    double first[NSLOTS];
                    for (int run = 0; run < 2; run++) {
                        const int off = run;
                        slots_standard();
                        dvec q = dup_host(t, n, off, hq), r = dup_host(t, n, off, hr0),
                             d = dup_host(t, n, off, hd), z = dnew(t, n, off);
                        psl_vview dv = d.v, zv = z.v;
                        if (!have_d) {
                            dv.data = NULL;
                            zv.data = NULL;
                            zv.n = -5; /* not looked at */
                        }
                        CHECK_OK(be->cg_residual(ex(), sx_dev(a), q.v, r.v, dv, zv, accs[ai],
                                                 g_dslots + 10, PSL_DOT_CHECK_POSITIVE,
                                                 g_dslots + 12));
                        double got[NSLOTS];
                        slots_get(got);
                        void *gr = dget(&r), *gz = dget(&z);
                        check_bits("cg_residual r", t, n, off, gr, hr);
                        if (have_d)
                            check_bits("cg_residual z", t, n, off, gz, hz);
                        check_dot("cg_residual r.z", t, accs[ai], n, 0, got[10], rz, srz);
                        check_dot("cg_residual r.r", t, accs[ai], n, 1, got[11], rr, rr);
                        if (!have_d)
                            CHECK(got[10] == got[11]);
                        /* r.z > 0 unless n == 0 (then 0: indefinite) */
                        CHECK_MSG(got[12] == (n == 0 ? PSL_FLAG_INDEFINITE : 0.0),
                                  "flag %g for n %lld", got[12], (long long)n);
                        if (run == 0)
                            memcpy(first, got, sizeof first);
                        else
                            CHECK_MSG(first[10] == got[10] && first[11] == got[11],
                                      "cg_residual sums depend on the alignment");
                        free(gr);
                        free(gz);
                        dfree(&q);
                        dfree(&r);
                        dfree(&d);
                        dfree(&z);
                    }
                    free(hq);
                    free(hr0);
                    free(hd);
                    free(hr);
                    free(hz);
                }
}

/* x = x + a*d; r = r - a*q; out[0] = r.r. */
TEST(fcg_update)
{
    static const psl_scalar accs[] = {PSL_FP64, PSL_FP32};
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int ni = 0; ni < COUNT(NS); ni++)
            for (int off = 0; off < 2; off++)
                for (int ai = 0; ai < COUNT(accs); ai++) {
                    const psl_scalar t = TYPES[ti];
                    const int64_t n = NS[ni];
                    const sx a = COEFS[(ni + off + ai) % COUNT(COEFS)];
                    slots_standard();
                    void *hd = hrand(t, n, 80, -1, 1), *hq = hrand(t, n, 81, -1, 1),
                         *hx = hrand(t, n, 82, -1, 1), *hr = hrand(t, n, 83, -1, 1);
                    dvec d = dup_host(t, n, off, hd), q = dup_host(t, n, off, hq),
                         x = dup_host(t, n, off, hx), r = dup_host(t, n, off, hr);
                    CHECK_OK(be->fcg_update(ex(), sx_dev(a), d.v, q.v, x.v, r.v, accs[ai],
                                            g_dslots + 14));
                    double got[NSLOTS];
                    slots_get(got);
                    void *gx = dget(&x), *gr = dget(&r);
                    const double ad = sx_val(a);
                    long double rr = 0;
                    for (int64_t i = 0; i < n; i++) {
                        if (t == PSL_FP64) {
                            double *xx = hx, *rr_ = hr;
                            const double *dd = hd, *qq = hq;
                            xx[i] = xx[i] + ad * dd[i];
                            rr_[i] = rr_[i] - ad * qq[i];
                        } else {
                            const float af = (float)ad;
                            stf(t, hx, i, ldf(t, hx, i) + af * ldf(t, hd, i));
                            stf(t, hr, i, ldf(t, hr, i) - af * ldf(t, hq, i));
                        }
                        rr += (long double)hget(t, hr, i) * hget(t, hr, i);
                    }
                    check_bits("fcg_update x", t, n, off, gx, hx);
                    check_bits("fcg_update r", t, n, off, gr, hr);
                    check_dot("fcg_update r.r", t, accs[ai], n, 0, got[14], rr, rr);
                    CHECK(got[12] == g_hslots[12] && got[15] == g_hslots[15]);
                    free(gx);
                    free(gr);
                    free(hd);
                    free(hq);
                    free(hx);
                    free(hr);
                    dfree(&d);
                    dfree(&q);
                    dfree(&x);
                    dfree(&r);
                }
}

/* ------------------------------------------------------------------ flags, guards, slots */

/* dots' checks on out[0]: POSITIVE on a negative sum sets 1, on NaN or Inf
 * 2, on 0 (n = 0) 1; FINITE leaves a negative sum alone; a set flag is
 * never changed; NONE takes no flag. */
TEST(flags)
{
    for (int ti = 0; ti < COUNT(TYPES); ti++) {
        const psl_scalar t = TYPES[ti];
        const int64_t n = 4099;
        void *hx = hrand(t, n, 90, 0.5, 1), *hneg = hrand(t, n, 91, -1, -0.5);
        void *hnan = hcopy(t, n, hx), *hbig = hcopy(t, n, hx);
        hset(t, hnan, 1234, NAN);
        for (int64_t i = 0; i < n; i++) /* FP64: x.x overflows; else an Inf entry */
            hset(t, hbig, i, t == PSL_FP64 ? 1e300 : i == 77 ? INFINITY : 1.0);
        dvec x = dup_host(t, n, 0, hx), neg = dup_host(t, n, 0, hneg), nan_ = dup_host(t, n, 0, hnan),
             big = dup_host(t, n, 0, hbig), empty = dnew(t, 0, 0);
        struct {
            const dvec *x, *y;
            unsigned check;
            double before, after;
        } cases[] = {
            {&x, &x, PSL_DOT_CHECK_POSITIVE, 0, 0},
            {&x, &neg, PSL_DOT_CHECK_POSITIVE, 0, PSL_FLAG_INDEFINITE},
            {&x, &nan_, PSL_DOT_CHECK_POSITIVE, 0, PSL_FLAG_NONFINITE},
            {&big, &big, PSL_DOT_CHECK_POSITIVE, 0, PSL_FLAG_NONFINITE},
            {&x, &neg, PSL_DOT_CHECK_FINITE, 0, 0},
            {&x, &nan_, PSL_DOT_CHECK_FINITE, 0, PSL_FLAG_NONFINITE},
            {&x, &x, PSL_DOT_CHECK_FINITE, 0, 0},
            {&x, &nan_, PSL_DOT_CHECK_POSITIVE, PSL_FLAG_INDEFINITE, PSL_FLAG_INDEFINITE},
            {&x, &neg, PSL_DOT_CHECK_POSITIVE, PSL_FLAG_NONFINITE, PSL_FLAG_NONFINITE},
            {&empty, &empty, PSL_DOT_CHECK_POSITIVE, 0, PSL_FLAG_INDEFINITE},
            {&empty, &empty, PSL_DOT_CHECK_FINITE, 0, 0},
            {&empty, &empty, PSL_DOT_CHECK_NONNEG, 0, 0},
            {&x, &neg, PSL_DOT_CHECK_NONNEG, 0, PSL_FLAG_INDEFINITE},
            {&x, &nan_, PSL_DOT_CHECK_NONNEG, 0, PSL_FLAG_NONFINITE},
            {&x, &x, PSL_DOT_CHECK_NONNEG, 0, 0},
        };
        for (int c = 0; c < COUNT(cases); c++)
            for (int acc = 0; acc < 2; acc++) {
                double s[NSLOTS] = {0};
                s[3] = cases[c].before;
                slots_set(s);
                psl_vview yv = cases[c].y->v;
                CHECK_OK(be->dots(ex(), cases[c].x->v, 1, &yv, acc ? PSL_FP32 : PSL_FP64,
                                  g_dslots, cases[c].check, g_dslots + 3));
                slots_get(s);
                CHECK_MSG(s[3] == cases[c].after, "%s case %d acc %d: flag %g, expected %g",
                          psl_scalar_name(t), c, acc, s[3], cases[c].after);
            }
        /* CHECK_NONE with no flag */
        psl_vview yv = neg.v;
        CHECK_OK(be->dots(ex(), x.v, 1, &yv, PSL_FP64, g_dslots, PSL_DOT_CHECK_NONE, NULL));
        /* cg_residual checks r.z: a negative d makes it negative */
        void *hd = hcopy(t, n, hneg);
        dvec d = dup_host(t, n, 0, hd), z = dnew(t, n, 0), q = dup_host(t, n, 0, hx);
        double s[NSLOTS] = {0};
        slots_set(s);
        CHECK_OK(be->cg_residual(ex(), sx_dev(ZERO), q.v, x.v, d.v, z.v, PSL_FP64, g_dslots,
                                 PSL_DOT_CHECK_POSITIVE, g_dslots + 3));
        slots_get(s);
        CHECK(s[0] < 0 && s[1] > 0 && s[3] == PSL_FLAG_INDEFINITE);
        dfree(&d);
        dfree(&z);
        dfree(&q);
        free(hd);
        dfree(&x);
        dfree(&neg);
        dfree(&nan_);
        dfree(&big);
        dfree(&empty);
        free(hx);
        free(hneg);
        free(hnan);
        free(hbig);
    }
}

/* A set guard makes the coefficients 0: cg_update leaves x alone and sets
 * p = z, fcg_update leaves x and r alone, maxpy and axpby (b = 1) leave y
 * alone; a guard slot at 0 changes nothing. */
TEST(guards_make_updates_noops)
{
    for (int ti = 0; ti < COUNT(TYPES); ti++)
        for (int set = 0; set < 2; set++) {
            const psl_scalar t = TYPES[ti];
            const int64_t n = (1 << 20) + 3;
            double s[NSLOTS] = {0.5, 2.0, set ? PSL_FLAG_NONFINITE : 0.0};
            slots_set(s);
            const sx a = {1.0, 0, 1, 2, 0}; /* 0.25 unless guarded */
            void *h1 = hrand(t, n, 100, -1, 1), *h2 = hrand(t, n, 101, -1, 1),
                 *h3 = hrand(t, n, 102, -1, 1), *h4 = hrand(t, n, 103, -1, 1);
            dvec v1 = dup_host(t, n, 0, h1), v2 = dup_host(t, n, 0, h2), v3 = dup_host(t, n, 0, h3),
                 v4 = dup_host(t, n, 1, h4);
            /* cg_update(a, p = v1, x = v2, z = v3, b = a) */
            CHECK_OK(be->cg_update(ex(), sx_dev(a), v1.v, v2.v, v3.v, sx_dev(a)));
            void *gp = dget(&v1), *gx = dget(&v2);
            if (set) {
                check_bits("guarded cg_update x", t, n, 0, gx, h2);
                check_bits("guarded cg_update p", t, n, 0, gp, h3);
            } else {
                CHECK(first_diff(t, n, gx, h2) >= 0);
            }
            /* fcg_update(a, d = v3, q = v4, x = v2 (now gx), r = v1 (now gp)) */
            CHECK_OK(be->fcg_update(ex(), sx_dev(a), v3.v, v4.v, v2.v, v1.v, PSL_FP64, g_dslots + 5));
            void *gx2 = dget(&v2), *gr = dget(&v1);
            if (set) {
                check_bits("guarded fcg_update x", t, n, 0, gx2, gx);
                check_bits("guarded fcg_update r", t, n, 0, gr, gp);
            }
            /* maxpy(y = v4, x = v1, v2, v3) and axpby(a, v1, 1, v4) */
            psl_vview xs[3] = {v1.v, v2.v, v3.v};
            psl_sexpr as[3] = {sx_dev(a), sx_dev(a), sx_dev(a)};
            CHECK_OK(be->maxpy(ex(), 3, as, xs, v4.v));
            CHECK_OK(be->axpby(ex(), sx_dev(a), v1.v, sx_dev(ONE), v4.v));
            void *gy = dget(&v4);
            if (set)
                check_bits("guarded maxpy, axpby", t, n, 1, gy, h4);
            else
                CHECK(first_diff(t, n, gy, h4) >= 0);
            free(gp);
            free(gx);
            free(gx2);
            free(gr);
            free(gy);
            free(h1);
            free(h2);
            free(h3);
            free(h4);
            dfree(&v1);
            dfree(&v2);
            dfree(&v3);
            dfree(&v4);
        }
}

/* A call whose output slots are the slots of its own coefficient (and
 * whose check sets the flag its coefficient's guard reads) uses the values
 * the slots had at the call: every thread reads them before any block
 * finishes. Many blocks (n = 2^22 + 1). */
TEST(slots_read_and_written)
{
    for (int ti = 0; ti < COUNT(TYPES); ti++) {
        const psl_scalar t = TYPES[ti];
        const int64_t n = (1 << 22) + 1;
        double s[NSLOTS] = {0.75, 3.0, 0.0};
        slots_set(s);
        const sx a = {2.0, 0, 1, 2, 0}; /* 0.5 */
        void *hq = hrand(t, n, 110, -1, 1), *hr = hrand(t, n, 111, -1, 1),
             *hd = hrand(t, n, 112, -2, -1);
        dvec q = dup_host(t, n, 0, hq), r = dup_host(t, n, 0, hr), d = dup_host(t, n, 0, hd),
             z = dnew(t, n, 0);
        /* out = slots 0, 1 (a's num and den), the check (r.z < 0) sets slot 2 (a's guard) */
        CHECK_OK(be->cg_residual(ex(), sx_dev(a), q.v, r.v, d.v, z.v, PSL_FP64, g_dslots,
                                 PSL_DOT_CHECK_POSITIVE, g_dslots + 2));
        void *gr = dget(&r);
        const double ad = 0.5;
        for (int64_t i = 0; i < n; i++) {
            if (t == PSL_FP64)
                ((double *)hr)[i] = ((double *)hr)[i] - ad * ((double *)hq)[i];
            else
                stf(t, hr, i, ldf(t, hr, i) - (float)ad * ldf(t, hq, i));
        }
        check_bits("cg_residual with out on its coefficient's slots", t, n, 0, gr, hr);
        slots_get(s);
        CHECK(s[0] < 0 && s[1] > 0 && s[2] == PSL_FLAG_INDEFINITE);
        free(gr);
        free(hq);
        free(hr);
        free(hd);
        dfree(&q);
        dfree(&r);
        dfree(&d);
        dfree(&z);
    }
}

/* ------------------------------------------------------------------ bad arguments */

/* Each misuse gives its error before anything is written. */
TEST(bad_arguments)
{
    const int64_t n = 100;
    double init[NSLOTS];
    for (int s = 0; s < NSLOTS; s++)
        init[s] = 42.0;
    slots_set(init);
    void *h = hrand(PSL_FP64, n, 120, -1, 1);
    dvec x = dup_host(PSL_FP64, n, 0, h), y = dup_host(PSL_FP64, n, 0, h);
    dvec f = dnew(PSL_FP32, n, 0), s = dup_host(PSL_FP64, n - 1, 0, h);
    psl_vview ys[PSL_DOTS_MAX + 1];
    for (int j = 0; j <= PSL_DOTS_MAX; j++)
        ys[j] = y.v;
    psl_vview bf = x.v;
    bf.type = PSL_BF16;
    psl_sexpr as[PSL_DOTS_MAX + 1];
    for (int j = 0; j <= PSL_DOTS_MAX; j++)
        as[j] = psl_sx(1.0);
    double *out = g_dslots, *flag = g_dslots + 1;

    CHECK_ST(be->dots(ex(), x.v, 0, ys, PSL_FP64, out, 0, NULL), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->dots(ex(), x.v, PSL_DOTS_MAX + 1, ys, PSL_FP64, out, 0, NULL),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->dots(ex(), x.v, 1, ys, PSL_FP16, out, 0, NULL), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "accumulation") != NULL);
    CHECK_ST(be->dots(ex(), x.v, 1, ys, PSL_FP64, out, PSL_DOT_CHECK_POSITIVE, NULL),
             PSL_ERR_NULL_POINTER);
    CHECK_ST(be->dots(ex(), x.v, 1, ys, PSL_FP64, out, 7, flag), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->dots(ex(), x.v, 1, ys, PSL_FP64, NULL, 0, NULL), PSL_ERR_NULL_POINTER);
    CHECK_ST(be->dots(ex(), x.v, 1, &f.v, PSL_FP64, out, 0, NULL), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->dots(ex(), x.v, 1, &s.v, PSL_FP64, out, 0, NULL), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "entries") != NULL);
    CHECK_ST(be->dots(ex(), bf, 1, &bf, PSL_FP64, out, 0, NULL), PSL_ERR_INVALID_VALUE);
    CHECK(strstr(psl_last_error_message(), "PSL_FP64") != NULL);
    CHECK_ST(be->dots(NULL, x.v, 1, ys, PSL_FP64, out, 0, NULL), PSL_ERR_NULL_POINTER);
    psl_exec bare = {.magic = PSL_EXEC_MAGIC, .be = &psl_backend_cuda, .device = 0,
                  .stream = (void *)g_stream};
    CHECK_ST(be->dots(&bare, x.v, 1, ys, PSL_FP64, out, 0, NULL), PSL_ERR_INVALID_HANDLE);
    CHECK_ST(be->fill(&bare, x.v, 1.0), PSL_ERR_INVALID_HANDLE);
    psl_vview nodata = x.v;
    nodata.data = NULL;
    CHECK_ST(be->fill(ex(), nodata, 1.0), PSL_ERR_NULL_POINTER);
    CHECK_ST(be->axpby(ex(), psl_sx(1), x.v, psl_sx(0), f.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->axpby(ex(), psl_sx(1), x.v, psl_sx(0), s.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->maxpy(ex(), 0, as, ys, x.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->maxpy(ex(), PSL_DOTS_MAX + 1, as, ys, x.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->maxpy(ex(), 1, as, &f.v, x.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->diag_scale(ex(), psl_sx(1), s.v, x.v, psl_sx(0), y.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->cg_update(ex(), psl_sx(1), x.v, y.v, f.v, psl_sx(1)), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->scale_copy(ex(), psl_sx(1), x.v, s.v), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->scale_copy(ex(), psl_sx(1), x.v, bf), PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->cg_residual(ex(), psl_sx(1), x.v, y.v, x.v, f.v, PSL_FP64, out, 0, NULL),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->cg_residual(ex(), psl_sx(1), x.v, y.v, x.v, y.v, PSL_FP64, out,
                             PSL_DOT_CHECK_FINITE, NULL),
             PSL_ERR_NULL_POINTER);
    CHECK_ST(be->fcg_update(ex(), psl_sx(1), x.v, s.v, x.v, y.v, PSL_FP64, out),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->fcg_update(ex(), psl_sx(1), x.v, x.v, x.v, y.v, PSL_BF16, out),
             PSL_ERR_INVALID_VALUE);
    CHECK_ST(be->alloc(ex(), 8, NULL), PSL_ERR_NULL_POINTER);
    CHECK_OK(be->sync(ex()));
    double got[NSLOTS];
    slots_get(got);
    CHECK(memcmp(got, init, sizeof got) == 0);
    void *gy = dget(&y);
    check_bits("y after failed calls", PSL_FP64, n, 0, gy, h);
    free(gy);

    /* executor set-up */
    CHECK_ST(psl_cuda_exec_init(ex()), PSL_ERR_INVALID_VALUE); /* set up already */
    psl_exec e2 = {.magic = PSL_EXEC_MAGIC, .be = &psl_backend_cuda, .device = -1,
                  .stream = (void *)g_stream};
    CHECK_ST(psl_cuda_exec_init(&e2), PSL_ERR_INVALID_VALUE);
    e2.device = 1000;
    CHECK_ST(psl_cuda_exec_init(&e2), PSL_ERR_CUDA);
    CHECK(e2.scratch == NULL);
    CHECK_ST(psl_cuda_exec_init(NULL), PSL_ERR_NULL_POINTER);
    /* a second executor on the legacy default stream works and releases */
    e2.device = 0;
    e2.stream = NULL;
    CHECK_OK(psl_cuda_exec_init(&e2));
    CHECK(e2.scratch != NULL && e2.scratch_bytes > 0);
    CHECK_OK(be->dots(&e2, x.v, 1, ys, PSL_FP64, out, 0, NULL));
    CHECK_OK(be->sync(&e2));
    slots_get(got);
    long double want = 0;
    for (int64_t i = 0; i < n; i++)
        want += (long double)((double *)h)[i] * ((double *)h)[i];
    check_dot("dots on the default stream", PSL_FP64, PSL_FP64, n, 0, got[0], want, want);
    psl_cuda_exec_release(&e2);
    CHECK(e2.scratch == NULL);
    psl_cuda_exec_release(&e2);

    free(h);
    dfree(&x);
    dfree(&y);
    dfree(&f);
    dfree(&s);
}

static const psl_test_case tests[] = {
    {"graph_capture", graph_capture},
    {"graph_run", graph_run},
    {"memory", memory},
    {"fill", fill},
    {"scale_copy", scale_copy},
    {"fp16_conversions", fp16_conversions},
    {"axpby", axpby},
    {"maxpy", maxpy},
    {"diag_scale", diag_scale},
    {"cg_update", cg_update},
    {"dots", dots},
    {"cg_residual", cg_residual},
    {"fcg_update", fcg_update},
    {"flags", flags},
    {"guards_make_updates_noops", guards_make_updates_noops},
    {"slots_read_and_written", slots_read_and_written},
    {"bad_arguments", bad_arguments},
};

/* The executor's release and the totals, after the tests. */
static void finish(void)
{
    if (g_ex_ready) {
        be->free(&g_ex, g_dslots);
        g_dslots = NULL;
        psl_cuda_exec_release(&g_ex);
        CHECK(g_ex.scratch == NULL);
    }
    printf("%d checks, %ld device results compared with the host\n", psl_t_checks, g_compared);
}
#endif /* PSL_HAVE_CUDA */

PSL_GPU_TEST_MAIN(tests, check_without_device, g_stream, finish)
