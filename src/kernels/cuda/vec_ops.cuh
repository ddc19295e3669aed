/*
 * vec_ops.cuh -- device helpers shared by the SpMV kernels: the vector
 * kinds (FP64 vectors with double accumulation, FP32 and FP16 vectors with
 * float accumulation: one struct psl_vec<NAME> per entry of
 * PSL_FOR_EACH_VEC), explicitly rounded multiply and add (fused only where
 * the product is exact, so the bits equal the CPU kernels', see
 * src/kernels/kernels.h), and stored values converted to the accumulation
 * type.
 */
#ifndef PSL_CUDA_VEC_OPS_CUH
#define PSL_CUDA_VEC_OPS_CUH

#include "dmatrix.cuh"

#include <cuda_fp16.h>
#include <stdint.h>

/* a*b and a+b, each rounded to nearest even, never contracted. */
__device__ __forceinline__ float psl_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float psl_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double psl_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double psl_add(double a, double b) { return __dadd_rn(a, b); }

/* t + v*x with the bits of the CPU kernels (multiply, then add, each
 * rounded). EXACT: the product is exact in float (an FP16 value times an FP16
 * x: 11 x 11 significant bits, exponents far inside float's range), so one
 * fused multiply-add rounds the same sum once -- the same bits, one
 * instruction instead of two. */
template <bool EXACT>
__device__ __forceinline__ float psl_madd(float t, float v, float x)
{
    return EXACT ? __fmaf_rn(v, x, t) : psl_add(t, psl_mul(v, x));
}
template <bool EXACT>
__device__ __forceinline__ double psl_madd(double t, double v, double x)
{
    return psl_add(t, psl_mul(v, x));
}

/* A load of the matrix's streams (words, columns, values): through the
 * read-only path (__ldg) when the matrix stays in L2 between SpMVs, else
 * not allocated in L1 (ld.global.nc.L1::no_allocate), so that L1 holds the
 * x gathers. no_allocate speeds up matrices larger than L2 and slows down
 * those that fit in it, so the dispatcher picks by size
 * (psl_cuda_stream_na; bench/NOTES.md, Cache policy). */
#define PSL_DEFINE_LD_NA(T, PTX_TYPE, CONSTRAINT)                                                \
    __device__ __forceinline__ T psl_ld_na(const T *p)                                          \
    {                                                                                           \
        T r;                                                                                    \
        asm("ld.global.nc.L1::no_allocate." PTX_TYPE " %0, [%1];" : CONSTRAINT(r) : "l"(p));    \
        return r;                                                                               \
    }
PSL_DEFINE_LD_NA(uint32_t, "u32", "=r")
PSL_DEFINE_LD_NA(int32_t, "s32", "=r")
PSL_DEFINE_LD_NA(unsigned short, "u16", "=h")
PSL_DEFINE_LD_NA(float, "f32", "=f")
PSL_DEFINE_LD_NA(double, "f64", "=d")
#undef PSL_DEFINE_LD_NA
template <bool STREAM_PAST_L1, class T> __device__ __forceinline__ T psl_ld_stream(const T *p)
{
    return STREAM_PAST_L1 ? psl_ld_na(p) : __ldg(p);
}

/* Vector kinds. elem: storage of x and y; acc: accumulation type.
 * raw2(): the bits of x[c] for a doubled column c2 = 2*c (byte offset
 *       c2*sizeof(elem)/2, so the PackSELL kernel needs no shift to turn its
 *       column into an address), through the read-only data path;
 * widen(): those bits in the accumulation type (exact). Two steps, so that a
 *       kernel issues all the x loads of a group before the first conversion
 *       waits on one (ptxas interleaves load, convert, load otherwise);
 * finish(): y[o] = a*t (+ b*y[o] when use_beta), rounded to the vector type
 * (FP16 round-to-nearest-even). */
struct psl_vec64 {
    typedef double elem;
    typedef double acc;
    static __device__ __forceinline__ double raw2(const double *x, uint32_t c2)
    {
        return __ldg((const double *)((const char *)x + (size_t)c2 * 4));
    }
    static __device__ __forceinline__ double widen(double v) { return v; }
    static __device__ __forceinline__ void finish(double *y, int64_t o, double t, double a,
                                                  double b, bool use_beta)
    {
        double r = psl_mul(a, t);
        if (use_beta)
            r = psl_add(r, psl_mul(b, y[o]));
        y[o] = r;
    }
};

struct psl_vec32 {
    typedef float elem;
    typedef float acc;
    static __device__ __forceinline__ float raw2(const float *x, uint32_t c2)
    {
        return __ldg((const float *)((const char *)x + (size_t)c2 * 2));
    }
    static __device__ __forceinline__ float widen(float v) { return v; }
    static __device__ __forceinline__ void finish(float *y, int64_t o, float t, float a, float b,
                                                  bool use_beta)
    {
        float r = psl_mul(a, t);
        if (use_beta)
            r = psl_add(r, psl_mul(b, y[o]));
        y[o] = r;
    }
};

struct psl_vec16 {
    typedef unsigned short elem; /* IEEE binary16 bits */
    typedef float acc;
    static __device__ __forceinline__ unsigned short raw2(const unsigned short *x, uint32_t c2)
    {
        return __ldg((const unsigned short *)((const char *)x + c2));
    }
    static __device__ __forceinline__ float widen(unsigned short v)
    {
        return __half2float(__ushort_as_half(v));
    }
    static __device__ __forceinline__ void finish(unsigned short *y, int64_t o, float t, float a,
                                                  float b, bool use_beta)
    {
        float r = psl_mul(a, t);
        if (use_beta)
            r = psl_add(r, psl_mul(b, __half2float(__ushort_as_half(y[o]))));
        y[o] = __half_as_ushort(__float2half_rn(r));
    }
};

/* A stored value converted to the accumulation type ACC (double -> float
 * rounds to nearest even; everything else is exact). */
template <class ACC> __device__ __forceinline__ ACC psl_to_acc(double v);
template <> __device__ __forceinline__ double psl_to_acc<double>(double v) { return v; }
template <> __device__ __forceinline__ float psl_to_acc<float>(double v) { return __double2float_rn(v); }
template <class ACC> __device__ __forceinline__ ACC psl_to_acc(float v) { return (ACC)v; }

/* Host side: f(VEC()) for the vector kind VEC = psl_vec<NAME> of vec_type,
 * over the list of vector types (PSL_FOR_EACH_VEC, core/vec_types.h), else
 * PSL_ERR_INTERNAL naming what (the dispatcher checked the type). */
template <class F> static inline psl_status psl_with_vec(psl_scalar vec_type, const char *what, F f)
{
#define PSL_WITH_VEC_CASE_(TYPE, NAME, ...) \
    case TYPE: return f(psl_vec##NAME());
    switch (vec_type) {
        PSL_FOR_EACH_VEC(PSL_WITH_VEC_CASE_)
    default: break;
    }
#undef PSL_WITH_VEC_CASE_
    return psl_error(PSL_ERR_INTERNAL, "%s: vector type %d", what, (int)vec_type);
}

/* Host side: alpha or beta rounded to the accumulation type of VEC. */
template <class VEC> static inline typename VEC::acc psl_acc_scalar(double s)
{
    return (typename VEC::acc)s;
}

#endif /* PSL_CUDA_VEC_OPS_CUH */
