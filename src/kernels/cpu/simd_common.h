/*
 * simd_common.h -- the vector kinds of the SIMD kernel templates, built on
 * the primitives of simd_<isa>.h (included first). For each kind of
 * vec_instances.h (v64: double accumulators, v32 and v16: float) it gives
 * the accumulator type psl_s_<kind>_acc, the number of blocks summed
 * together psl_s_<kind>_nb, and zero / x (x[c] gathered) / val (float
 * values widened) / madd / store. For the SELL value types it gives the
 * stored values of a block as either accumulator type: psl_s_<val>_f / _d.
 */
static inline psl_vd2 psl_s_fp32_d(const void *p) { return psl_s_f2d(psl_s_fp32_f(p)); }
static inline psl_vd2 psl_s_fp16_d(const void *p) { return psl_s_f2d(psl_s_fp16_f(p)); }
static inline psl_vd2 psl_s_bf16_d(const void *p) { return psl_s_f2d(psl_s_bf16_f(p)); }

typedef psl_vd2 psl_s_v64_acc;
typedef psl_vf psl_s_v32_acc;
typedef psl_vf psl_s_v16_acc;
enum { psl_s_v64_nb = PSL_S_NB_D, psl_s_v32_nb = PSL_S_NB_F, psl_s_v16_nb = PSL_S_NB_F };

static inline psl_vd2 psl_s_v64_zero(void) { return psl_s_zero_d(); }
static inline psl_vf psl_s_v32_zero(void) { return psl_s_zero_f(); }
static inline psl_vf psl_s_v16_zero(void) { return psl_s_zero_f(); }

/* x[c] in the lanes of m (others 0); lim = ncols-2 (used by FP16 vectors
 * only). */
static inline psl_vd2 psl_s_v64_x(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    (void)lim;
    return psl_s_gather_d(x, c, m);
}
static inline psl_vf psl_s_v32_x(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    (void)lim;
    return psl_s_gather_f(x, c, m);
}
static inline psl_vf psl_s_v16_x(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    return psl_s_gather_h(x, c, m, lim);
}

/* x[c0 .. c0+PSL_VL-1] in the lanes (one unaligned load, no gather): the x
 * of a block whose columns are consecutive (psl_s_consecutive), as stencil
 * rows side by side have. psl_s_<kind>_runs says whether the kernels look
 * for such blocks: for FP64 vectors the two 8-double gathers of a block beat
 * the two unaligned 64-byte loads that cross cache lines (AVX-512, 2-core
 * EPYC, 2026-12-02: SELL FP64 gen:hpcg:6:6:6 1 thread 3066 us with gathers
 * against 3492 us with loads, gen:hpcg:7:6:6 2 threads 3496 against 4338 us,
 * fastest runs by CPU time); for FP32 and FP16 vectors, whose 16-lane
 * gathers cost twice as much, the loads win (SELL FP32 2.5x). */
enum { psl_s_v64_runs = 0, psl_s_v32_runs = 1, psl_s_v16_runs = 1 };
/* x of a block whose columns lie in the 32 from lane 0's at this position
 * (table value 2; FP32 and FP16 vectors: psl_s_<kind>_runs). */
static inline psl_vd2 psl_s_v64_xwin(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    (void)lim;
    return psl_s_gather_d(x, c, m);
}
static inline psl_vf psl_s_v32_xwin(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    return psl_s_window_f(x, c, m, lim);
}
static inline psl_vf psl_s_v16_xwin(const void *x, psl_vi c, psl_vm m, psl_vi lim)
{
    return psl_s_window_h(x, c, m, lim);
}
static inline psl_vd2 psl_s_v64_xrun(const void *x, int32_t c0) { return psl_s_xrun_d(x, c0); }
static inline psl_vf psl_s_v32_xrun(const void *x, int32_t c0) { return psl_s_xrun_f(x, c0); }
static inline psl_vf psl_s_v16_xrun(const void *x, int32_t c0) { return psl_s_xrun_h(x, c0); }

static inline psl_vd2 psl_s_v64_val(psl_vf v) { return psl_s_f2d(v); }
static inline psl_vf psl_s_v32_val(psl_vf v) { return v; }
static inline psl_vf psl_s_v16_val(psl_vf v) { return v; }

static inline psl_vd2 psl_s_v64_madd(psl_vd2 acc, psl_vm m, psl_vd2 v, psl_vd2 xv)
{
    return psl_s_madd_d(acc, m, v, xv);
}
static inline psl_vf psl_s_v32_madd(psl_vf acc, psl_vm m, psl_vf v, psl_vf xv)
{
    return psl_s_madd_f(acc, m, v, xv);
}
static inline psl_vf psl_s_v16_madd(psl_vf acc, psl_vm m, psl_vf v, psl_vf xv)
{
    return psl_s_madd_f(acc, m, v, xv);
}

/* acc + v*xv in every lane (product rounded, then sum). */
static inline psl_vd2 psl_s_v64_add(psl_vd2 acc, psl_vd2 v, psl_vd2 xv)
{
    return psl_s_add_d(acc, v, xv);
}
static inline psl_vf psl_s_v32_add(psl_vf acc, psl_vf v, psl_vf xv)
{
    return psl_s_add_f(acc, v, xv);
}
static inline psl_vf psl_s_v16_add(psl_vf acc, psl_vf v, psl_vf xv)
{
    return psl_s_add_f(acc, v, xv);
}

static inline void psl_s_v64_store(double *t, psl_vd2 a) { psl_s_store_d(t, a); }
static inline void psl_s_v32_store(float *t, psl_vf a) { psl_s_store_f(t, a); }
static inline void psl_s_v16_store(float *t, psl_vf a) { psl_s_store_f(t, a); }

/* Finish n (a multiple of PSL_VL) rows with sums t into y[out[l]], as
 * psl_<kind>_y does row by row: a*t (+ b*y) a block at a time, then the
 * stores row by row (out is a permutation in general), in a loop: unrolled
 * over the 16 or 32 rows, GCC computed every address first and spent ~15
 * instructions a row; FP16 vectors round with F16C. */
#define PSL_S_NO_UNROLL _Pragma("GCC unroll 2")
static inline void psl_s_v64_finish(void *y, const int64_t *out, int n, const double *t,
                                    double a, double b, bool beta)
{
    double *p = (double *)y;
    double r[PSL_ROWS_MAX];
    for (int l = 0; l < n; l += PSL_VL)
        psl_s_scale_d(r + l, t + l, a);
    if (beta)
        for (int l = 0; l < n; l++)
            r[l] = r[l] + b * p[out[l]];
    PSL_S_NO_UNROLL
    for (int l = 0; l < n; l++)
        p[out[l]] = r[l];
}
static inline void psl_s_v32_finish(void *y, const int64_t *out, int n, const float *t,
                                    float a, float b, bool beta)
{
    float *p = (float *)y;
    float r[PSL_ROWS_MAX];
    for (int l = 0; l < n; l += PSL_VL)
        psl_s_scale_f(r + l, t + l, a);
    if (beta)
        for (int l = 0; l < n; l++)
            r[l] = r[l] + b * p[out[l]];
    PSL_S_NO_UNROLL
    for (int l = 0; l < n; l++)
        p[out[l]] = r[l];
}
static inline void psl_s_v16_finish(void *y, const int64_t *out, int n, const float *t,
                                    float a, float b, bool beta)
{
    uint16_t *p = (uint16_t *)y;
    float r[PSL_ROWS_MAX];
    uint16_t h[PSL_ROWS_MAX];
    for (int l = 0; l < n; l += PSL_VL)
        psl_s_scale_f(r + l, t + l, a);
    if (beta)
        for (int l = 0; l < n; l++)
            r[l] = r[l] + b * psl_half_to_float(p[out[l]]);
    for (int l = 0; l < n; l += PSL_VL)
        psl_s_f2h(r + l, h + l);
    PSL_S_NO_UNROLL
    for (int l = 0; l < n; l++)
        p[out[l]] = h[l];
}

/* Largest group of lanes summed together (acc arrays, t buffers). */
#define PSL_S_MAX_NB 4

/* Per-matrix constants of PackSELL decoding (word.h) as vectors. */
typedef struct psl_s_pack {
    psl_vi dmask; /* D low bits: delta of a flag-1 word after >> 1 */
    psl_vi vmask; /* value bits left in place (sign included) */
    psl_vi mag;   /* value bits without the sign */
    psl_vi sign;
    psl_vf scale; /* psl_codec_decode_scale(e) */
    int sh;       /* 8 - e */
} psl_s_pack;

static inline psl_s_pack psl_s_pack_init(int D, int e)
{
    uint32_t low = (1u << (D + 1)) - 1u;
    psl_s_pack p;
    p.dmask = psl_s_set1((1u << D) - 1u);
    p.vmask = psl_s_set1(~low);
    p.mag = psl_s_set1(0x7fffffffu & ~low);
    p.sign = psl_s_set1(0x80000000u);
    p.scale = psl_s_as_f(psl_s_set1(psl_float_to_bits(psl_codec_decode_scale(e))));
    p.sh = 8 - e;
    return p;
}

/* Values of the words as float, as psl_decode_inplace / psl_bits_to_float
 * of psl_word_value_bits: zero for flag-0 words (lanes not in f), whose
 * bits would otherwise often be subnormal floats, which cost a microcode
 * assist per multiplication on many CPUs even when the lane is dropped. */
static inline psl_vf psl_s_decode_e8(psl_vi w, psl_vm f, const psl_s_pack *p)
{
    return psl_s_as_f(psl_s_keep(psl_s_and(w, p->vmask), f));
}
static inline psl_vf psl_s_decode_fp16(psl_vi w, psl_vm f, const psl_s_pack *p)
{
    (void)p;
    return psl_s_decode_h16(w, f);
}
static inline psl_vf psl_s_decode_ex(psl_vi w, psl_vm f, const psl_s_pack *p)
{
    psl_vi m = psl_s_keep(psl_s_and(w, p->mag), f);
    psl_vi u = psl_s_or(psl_s_and(w, p->sign), psl_s_srl(m, p->sh));
    return psl_s_mulf(psl_s_as_f(u), p->scale);
}
