/*
 * backend_cpu.c -- the solver backend on the host: the vector operations of
 * backend.h as OpenMP loops, one instance per vector type (FP64 arithmetic
 * for FP64 vectors, FP32 for FP32 and FP16). Scalars (slots) are host
 * doubles. Dot products sum fixed chunks of the vectors, then the chunks in
 * order, so their bits depend on the length only, not on the threads.
 */
#include "internal.h"
#include "solver/backend.h"
#include "vec_types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reductions: the chunk length depends on n only, and at most DOT_CHUNKS
 * chunks are summed; each chunk keeps DOT_LANES running sums. */
#define DOT_CHUNKS 1024
#define DOT_MIN_CHUNK 4096
#define DOT_LANES 4

static int64_t dot_chunk(int64_t n)
{
    int64_t c = (n + DOT_CHUNKS - 1) / DOT_CHUNKS;
    return c < DOT_MIN_CHUNK ? DOT_MIN_CHUNK : c;
}

static bool sx_zero(psl_sexpr e) { return e.c == 0.0 && !e.num && !e.den && !e.guard; }

static void dot_check(double v, unsigned check, double *flag)
{
    psl_dot_check_apply(v, check, flag);
}

/* ---- element access per vector type: T stored, A arithmetic */
#define LD_d(p, i) ((p)[i])
#define ST_d(p, i, v) ((p)[i] = (v))
#define LD_f(p, i) ((p)[i])
#define ST_f(p, i, v) ((p)[i] = (v))
#define LD_h(p, i) psl_half_to_float((p)[i])
#define ST_h(p, i, v) ((p)[i] = psl_float_to_half(v))

#define PAR_FOR _Pragma("omp parallel for schedule(static) if (n >= PSL_PAR_MIN)")

/* Chunked sums: the body (the variadic part) adds to s_[j][l] for entry i;
 * the K sums of acc type R land in res[0..K). */
#define CHUNKED_SUMS(R, K, res, ...)                                                 \
    do {                                                                              \
        int64_t ch_ = dot_chunk(n), nch_ = (n + ch_ - 1) / ch_;                       \
        R part_[DOT_CHUNKS][PSL_DOTS_MAX];                                            \
        _Pragma("omp parallel for schedule(static) if (nch_ > 1 && n >= PSL_PAR_MIN)") \
        for (int64_t c_ = 0; c_ < nch_; c_++) {                                       \
            int64_t lo_ = c_ * ch_, hi_ = lo_ + ch_ < n ? lo_ + ch_ : n;              \
            R s_[PSL_DOTS_MAX][DOT_LANES];                                            \
            for (int j_ = 0; j_ < (K); j_++)                                          \
                for (int l_ = 0; l_ < DOT_LANES; l_++)                                \
                    s_[j_][l_] = 0;                                                   \
            for (int64_t i = lo_; i < hi_; i++) {                                     \
                int l = (int)(i & (DOT_LANES - 1));                                   \
                __VA_ARGS__;                                                          \
            }                                                                         \
            for (int j_ = 0; j_ < (K); j_++)                                          \
                part_[c_][j_] = (s_[j_][0] + s_[j_][1]) + (s_[j_][2] + s_[j_][3]);    \
        }                                                                             \
        for (int j_ = 0; j_ < (K); j_++) {                                            \
            R t_ = 0;                                                                 \
            for (int64_t c_ = 0; c_ < nch_; c_++)                                     \
                t_ += part_[c_][j_];                                                  \
            (res)[j_] = (double)t_;                                                   \
        }                                                                             \
        (void)0;                                                                      \
    } while (0)

#define DEFINE_TYPE_OPS(S, T, A)                                                           \
    static void fill_##S(int64_t n, T *y, A v)                                             \
    {                                                                                      \
        PAR_FOR for (int64_t i = 0; i < n; i++) ST_##S(y, i, v);                           \
    }                                                                                      \
    static void axpby_##S(int64_t n, A a, const T *x, A b, T *y, bool bzero)               \
    {                                                                                      \
        if (bzero) {                                                                       \
            PAR_FOR for (int64_t i = 0; i < n; i++) ST_##S(y, i, a * LD_##S(x, i));        \
        } else {                                                                           \
            PAR_FOR for (int64_t i = 0; i < n; i++)                                        \
                ST_##S(y, i, a * LD_##S(x, i) + b * LD_##S(y, i));                         \
        }                                                                                  \
    }                                                                                      \
    static void maxpy_##S(int64_t n, int k, const A *a, const T *const *x, T *y)           \
    {                                                                                      \
        PAR_FOR for (int64_t i = 0; i < n; i++)                                            \
        {                                                                                  \
            A v = LD_##S(y, i);                                                            \
            for (int j = 0; j < k; j++)                                                    \
                v = v + a[j] * LD_##S(x[j], i);                                            \
            ST_##S(y, i, v);                                                               \
        }                                                                                  \
    }                                                                                      \
    static void diag_##S(int64_t n, A a, const T *d, const T *x, A b, T *y, bool bzero)    \
    {                                                                                      \
        if (bzero) {                                                                       \
            PAR_FOR for (int64_t i = 0; i < n; i++)                                        \
                ST_##S(y, i, a * (LD_##S(d, i) * LD_##S(x, i)));                           \
        } else {                                                                           \
            PAR_FOR for (int64_t i = 0; i < n; i++)                                        \
                ST_##S(y, i, a * (LD_##S(d, i) * LD_##S(x, i)) + b * LD_##S(y, i));        \
        }                                                                                  \
    }                                                                                      \
    static void cgupd_##S(int64_t n, A a, T *p, T *x, const T *z, A b)                     \
    {                                                                                      \
        PAR_FOR for (int64_t i = 0; i < n; i++)                                            \
        {                                                                                  \
            A pi = LD_##S(p, i);                                                           \
            ST_##S(x, i, LD_##S(x, i) + a * pi);                                           \
            ST_##S(p, i, LD_##S(z, i) + b * pi);                                           \
        }                                                                                  \
    }                                                                                      \
    static void dots_##S##_d(int64_t n, const T *x, int k, const T *const *y, double *out) \
    {                                                                                      \
        CHUNKED_SUMS(double, k, out, {                                                   \
            double xi = (double)LD_##S(x, i);                                              \
            for (int j = 0; j < k; j++)                                                    \
                s_[j][l] += xi * (double)LD_##S(y[j], i);                                  \
        });                                                                                \
    }                                                                                      \
    static void dots_##S##_f(int64_t n, const T *x, int k, const T *const *y, double *out) \
    {                                                                                      \
        CHUNKED_SUMS(float, k, out, {                                                    \
            float xi = (float)LD_##S(x, i);                                                \
            for (int j = 0; j < k; j++)                                                    \
                s_[j][l] += xi * (float)LD_##S(y[j], i);                                   \
        });                                                                                \
    }                                                                                      \
    /* r -= a q; z = d .* r (d NULL: z is r); out = (r.z, r.r) in R */                     \
    static void cgres_##S##_d(int64_t n, A a, const T *q, T *r, const T *d, T *z,          \
                              double *out)                                                 \
    {                                                                                      \
        CHUNKED_SUMS(double, 2, out, {                                                   \
            A ri = LD_##S(r, i) - a * LD_##S(q, i);                                        \
            ST_##S(r, i, ri);                                                              \
            ri = LD_##S(r, i); /* as stored (FP16 rounds) */                               \
            double rd = (double)ri, zd = rd;                                               \
            if (d) {                                                                       \
                ST_##S(z, i, LD_##S(d, i) * ri);                                           \
                zd = (double)LD_##S(z, i);                                                 \
            }                                                                              \
            s_[0][l] += rd * zd;                                                           \
            s_[1][l] += rd * rd;                                                           \
        });                                                                                \
    }                                                                                      \
    static void cgres_##S##_f(int64_t n, A a, const T *q, T *r, const T *d, T *z,          \
                              double *out)                                                 \
    {                                                                                      \
        CHUNKED_SUMS(float, 2, out, {                                                    \
            A ri = LD_##S(r, i) - a * LD_##S(q, i);                                        \
            ST_##S(r, i, ri);                                                              \
            ri = LD_##S(r, i); /* as stored (FP16 rounds) */                               \
            float rd = (float)ri, zd = rd;                                                 \
            if (d) {                                                                       \
                ST_##S(z, i, LD_##S(d, i) * ri);                                           \
                zd = (float)LD_##S(z, i);                                                  \
            }                                                                              \
            s_[0][l] += rd * zd;                                                           \
            s_[1][l] += rd * rd;                                                           \
        });                                                                                \
    }                                                                                      \
    /* x += a dd; r -= a q; out[0] = r.r */                                                \
    static void fcgupd_##S##_d(int64_t n, A a, const T *dd, const T *q, T *x, T *r,        \
                               double *out)                                                \
    {                                                                                      \
        CHUNKED_SUMS(double, 1, out, {                                                   \
            ST_##S(x, i, LD_##S(x, i) + a * LD_##S(dd, i));                                \
            ST_##S(r, i, LD_##S(r, i) - a * LD_##S(q, i));                                 \
            double rd = (double)LD_##S(r, i);                                              \
            s_[0][l] += rd * rd;                                                           \
        });                                                                                \
    }                                                                                      \
    static void fcgupd_##S##_f(int64_t n, A a, const T *dd, const T *q, T *x, T *r,        \
                               double *out)                                                \
    {                                                                                      \
        CHUNKED_SUMS(float, 1, out, {                                                    \
            ST_##S(x, i, LD_##S(x, i) + a * LD_##S(dd, i));                                \
            ST_##S(r, i, LD_##S(r, i) - a * LD_##S(q, i));                                 \
            float rd = (float)LD_##S(r, i);                                                \
            s_[0][l] += rd * rd;                                                           \
        });                                                                                \
    }

DEFINE_TYPE_OPS(d, double, double)
DEFINE_TYPE_OPS(f, float, float)
DEFINE_TYPE_OPS(h, uint16_t, float)

/* ---- the table entries: dispatch on the vector type */

static psl_status bad_type(const char *who, psl_scalar t)
{
    return psl_error(PSL_ERR_INVALID_VALUE, "%s: vectors of type %s are not supported "
                     "(FP64, FP32, FP16)", who, psl_scalar_display(t));
}

static psl_status cpu_alloc(psl_exec *ex, size_t bytes, void **p)
{
    (void)ex;
    *p = NULL;
    if (bytes == 0)
        return PSL_OK;
    return psl_alloc_zero(p, bytes, 1, "a solver vector");
}

static void cpu_free(psl_exec *ex, void *p)
{
    (void)ex;
    free(p);
}

static psl_status cpu_copy(psl_exec *ex, void *dst, const void *src, size_t bytes)
{
    (void)ex;
    if (bytes)
        memcpy(dst, src, bytes);
    return PSL_OK;
}

static psl_status cpu_sync(psl_exec *ex)
{
    (void)ex;
    return PSL_OK;
}

/* The copy is made at once: CPU work is done when its call returns. */
static psl_status cpu_post_read(psl_exec *ex, int box, const void *src, size_t bytes)
{
    if (box < 0 || box > 1 || bytes > PSL_MAILBOX_BYTES)
        return psl_error(PSL_ERR_INVALID_VALUE, "cpu backend post_read: box %d, %zu bytes (0 or 1, "
                         "at most %d)", box, bytes, PSL_MAILBOX_BYTES);
    if (bytes)
        memcpy(ex->mail[box], src, bytes);
    return PSL_OK;
}

static psl_status cpu_take_read(psl_exec *ex, int box, void *host, size_t bytes)
{
    if (box < 0 || box > 1 || bytes > PSL_MAILBOX_BYTES)
        return psl_error(PSL_ERR_INVALID_VALUE, "cpu backend take_read: box %d, %zu bytes (0 or 1, "
                         "at most %d)", box, bytes, PSL_MAILBOX_BYTES);
    if (bytes)
        memcpy(host, ex->mail[box], bytes);
    return PSL_OK;
}

static psl_status cpu_fill(psl_exec *ex, psl_vview y, double v)
{
    (void)ex;
    int64_t n = y.n;
    switch (y.type) {
    case PSL_FP64: fill_d(n, y.data, v); return PSL_OK;
    case PSL_FP32: fill_f(n, y.data, (float)v); return PSL_OK;
    case PSL_FP16: fill_h(n, y.data, (float)v); return PSL_OK;
    default: return bad_type("fill", y.type);
    }
}

static double ld_any(const void *p, psl_scalar t, int64_t i)
{
    switch (t) {
    case PSL_FP64: return ((const double *)p)[i];
    case PSL_FP32: return ((const float *)p)[i];
    default: return psl_half_to_float(((const uint16_t *)p)[i]);
    }
}

static psl_status cpu_scale_copy(psl_exec *ex, psl_sexpr ae, psl_vview x, psl_vview y)
{
    (void)ex;
    double a = psl_sexpr_eval(ae);
    int64_t n = y.n;
    if (!psl_vec_supported(x.type))
        return bad_type("copy", x.type);
    if (x.type == PSL_FP64 || y.type == PSL_FP64) {
        switch (y.type) {
        case PSL_FP64: {
            double *yp = y.data;
            PAR_FOR for (int64_t i = 0; i < n; i++) yp[i] = a * ld_any(x.data, x.type, i);
            return PSL_OK;
        }
        case PSL_FP32: {
            float *yp = y.data;
            PAR_FOR for (int64_t i = 0; i < n; i++) yp[i] = (float)(a * ld_any(x.data, x.type, i));
            return PSL_OK;
        }
        case PSL_FP16: {
            uint16_t *yp = y.data;
            PAR_FOR for (int64_t i = 0; i < n; i++)
                yp[i] = psl_float_to_half((float)(a * ld_any(x.data, x.type, i)));
            return PSL_OK;
        }
        default: return bad_type("copy", y.type);
        }
    }
    float af = (float)a;
    switch (y.type) {
    case PSL_FP32: {
        float *yp = y.data;
        PAR_FOR for (int64_t i = 0; i < n; i++) yp[i] = af * (float)ld_any(x.data, x.type, i);
        return PSL_OK;
    }
    case PSL_FP16: {
        uint16_t *yp = y.data;
        PAR_FOR for (int64_t i = 0; i < n; i++)
            yp[i] = psl_float_to_half(af * (float)ld_any(x.data, x.type, i));
        return PSL_OK;
    }
    default: return bad_type("copy", y.type);
    }
}

static psl_status cpu_axpby(psl_exec *ex, psl_sexpr ae, psl_vview x, psl_sexpr be, psl_vview y)
{
    (void)ex;
    double a = psl_sexpr_eval(ae), b = psl_sexpr_eval(be);
    bool bz = sx_zero(be);
    switch (y.type) {
    case PSL_FP64: axpby_d(y.n, a, x.data, b, y.data, bz); return PSL_OK;
    case PSL_FP32: axpby_f(y.n, (float)a, x.data, (float)b, y.data, bz); return PSL_OK;
    case PSL_FP16: axpby_h(y.n, (float)a, x.data, (float)b, y.data, bz); return PSL_OK;
    default: return bad_type("axpby", y.type);
    }
}

static psl_status cpu_maxpy(psl_exec *ex, int k, const psl_sexpr *ae, const psl_vview *x,
                            psl_vview y)
{
    (void)ex;
    double ad[PSL_DOTS_MAX];
    float af[PSL_DOTS_MAX];
    const void *xp[PSL_DOTS_MAX];
    if (k < 1 || k > PSL_DOTS_MAX)
        return psl_error(PSL_ERR_INTERNAL, "maxpy: %d vectors (1..%d)", k, PSL_DOTS_MAX);
    for (int j = 0; j < k; j++) {
        ad[j] = psl_sexpr_eval(ae[j]);
        af[j] = (float)ad[j];
        xp[j] = x[j].data;
    }
    switch (y.type) {
    case PSL_FP64: maxpy_d(y.n, k, ad, (const double *const *)xp, y.data); return PSL_OK;
    case PSL_FP32: maxpy_f(y.n, k, af, (const float *const *)xp, y.data); return PSL_OK;
    case PSL_FP16: maxpy_h(y.n, k, af, (const uint16_t *const *)xp, y.data); return PSL_OK;
    default: return bad_type("maxpy", y.type);
    }
}

static psl_status cpu_diag(psl_exec *ex, psl_sexpr ae, psl_vview d, psl_vview x, psl_sexpr be,
                           psl_vview y)
{
    (void)ex;
    double a = psl_sexpr_eval(ae), b = psl_sexpr_eval(be);
    bool bz = sx_zero(be);
    switch (y.type) {
    case PSL_FP64: diag_d(y.n, a, d.data, x.data, b, y.data, bz); return PSL_OK;
    case PSL_FP32: diag_f(y.n, (float)a, d.data, x.data, (float)b, y.data, bz); return PSL_OK;
    case PSL_FP16: diag_h(y.n, (float)a, d.data, x.data, (float)b, y.data, bz); return PSL_OK;
    default: return bad_type("diag_scale", y.type);
    }
}

static psl_status cpu_dots(psl_exec *ex, psl_vview x, int k, const psl_vview *y, psl_scalar acc,
                           double *out, unsigned check, double *flag)
{
    (void)ex;
    const void *yp[PSL_DOTS_MAX];
    if (k < 1 || k > PSL_DOTS_MAX)
        return psl_error(PSL_ERR_INTERNAL, "dots: %d vectors (1..%d)", k, PSL_DOTS_MAX);
    for (int j = 0; j < k; j++)
        yp[j] = y[j].data;
    bool f = acc == PSL_FP32;
    if (acc != PSL_FP32 && acc != PSL_FP64)
        return psl_error(PSL_ERR_INVALID_VALUE, "dot: accumulation type %s (FP64 or FP32)",
                         psl_scalar_display(acc));
    switch (x.type) {
    case PSL_FP64:
        (f ? dots_d_f : dots_d_d)(x.n, x.data, k, (const double *const *)yp, out);
        break;
    case PSL_FP32:
        (f ? dots_f_f : dots_f_d)(x.n, x.data, k, (const float *const *)yp, out);
        break;
    case PSL_FP16:
        (f ? dots_h_f : dots_h_d)(x.n, x.data, k, (const uint16_t *const *)yp, out);
        break;
    default: return bad_type("dot", x.type);
    }
    dot_check(out[0], check, flag);
    return PSL_OK;
}

static psl_status cpu_cg_residual(psl_exec *ex, psl_sexpr ae, psl_vview q, psl_vview r,
                                  psl_vview d, psl_vview z, psl_scalar acc, double *out,
                                  unsigned check, double *flag)
{
    (void)ex;
    double a = psl_sexpr_eval(ae);
    bool f = acc == PSL_FP32;
    switch (r.type) {
    case PSL_FP64: (f ? cgres_d_f : cgres_d_d)(r.n, a, q.data, r.data, d.data, z.data, out); break;
    case PSL_FP32:
        (f ? cgres_f_f : cgres_f_d)(r.n, (float)a, q.data, r.data, d.data, z.data, out);
        break;
    case PSL_FP16:
        (f ? cgres_h_f : cgres_h_d)(r.n, (float)a, q.data, r.data, d.data, z.data, out);
        break;
    default: return bad_type("cg_residual", r.type);
    }
    dot_check(out[0], check, flag);
    return PSL_OK;
}

static psl_status cpu_cg_update(psl_exec *ex, psl_sexpr ae, psl_vview p, psl_vview x,
                                psl_vview z, psl_sexpr be)
{
    (void)ex;
    double a = psl_sexpr_eval(ae), b = psl_sexpr_eval(be);
    switch (p.type) {
    case PSL_FP64: cgupd_d(p.n, a, p.data, x.data, z.data, b); return PSL_OK;
    case PSL_FP32: cgupd_f(p.n, (float)a, p.data, x.data, z.data, (float)b); return PSL_OK;
    case PSL_FP16: cgupd_h(p.n, (float)a, p.data, x.data, z.data, (float)b); return PSL_OK;
    default: return bad_type("cg_update", p.type);
    }
}

static psl_status cpu_fcg_update(psl_exec *ex, psl_sexpr ae, psl_vview d, psl_vview q,
                                 psl_vview x, psl_vview r, psl_scalar acc, double *out)
{
    (void)ex;
    double a = psl_sexpr_eval(ae);
    bool f = acc == PSL_FP32;
    switch (r.type) {
    case PSL_FP64: (f ? fcgupd_d_f : fcgupd_d_d)(r.n, a, d.data, q.data, x.data, r.data, out); break;
    case PSL_FP32:
        (f ? fcgupd_f_f : fcgupd_f_d)(r.n, (float)a, d.data, q.data, x.data, r.data, out);
        break;
    case PSL_FP16:
        (f ? fcgupd_h_f : fcgupd_h_d)(r.n, (float)a, d.data, q.data, x.data, r.data, out);
        break;
    default: return bad_type("fcg_update", r.type);
    }
    return PSL_OK;
}

static psl_status cpu_check(psl_exec *ex, const double *v, unsigned check, double *flag)
{
    (void)ex;
    dot_check(*v, check, flag);
    return PSL_OK;
}

const psl_backend psl_backend_cpu = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .to_host = cpu_copy,
    .from_host = cpu_copy,
    .copy_bytes = cpu_copy,
    .sync = cpu_sync,
    .post_read = cpu_post_read,
    .take_read = cpu_take_read,
    .fill = cpu_fill,
    .scale_copy = cpu_scale_copy,
    .axpby = cpu_axpby,
    .maxpy = cpu_maxpy,
    .diag_scale = cpu_diag,
    .dots = cpu_dots,
    .cg_residual = cpu_cg_residual,
    .cg_update = cpu_cg_update,
    .fcg_update = cpu_fcg_update,
    .check = cpu_check,
};
