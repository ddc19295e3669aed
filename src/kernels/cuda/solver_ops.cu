/*
 * solver_ops.cu -- the CUDA backend of the solver layer (psl_backend_cuda,
 * src/solver/backend.h): device memory, copies, and the vector operations of
 * a Krylov iteration, queued on the executor's stream.
 *
 * Arithmetic. Elementwise results have the bits of the plain C loops of the
 * CPU backend: FP64 arithmetic for FP64 vectors, FP32 for FP32 and FP16 (FP16
 * loaded exactly and stored rounded to nearest even, the bits of
 * codec/half.h; see psl_el). NaNs come out as NaNs, their payloads the
 * GPU's (its arithmetic returns one canonical NaN). Every
 * coefficient is a psl_sexpr evaluated once per thread in FP64, then rounded
 * to the arithmetic type. The build's --fmad=false keeps a*x + b*y at two
 * products and a sum, each rounded. A value a fused operation stores and then
 * uses again (r in cg_residual and fcg_update, z in cg_residual) is used as
 * stored, i.e. rounded to the vector type.
 *
 * Work layout. The vectors of a call are cut into chunks of W elements (16
 * bytes of the widest element of the call, at most 4 elements); thread t of a
 * grid-stride loop takes chunks t, t + stride, ... A chunk is one access of
 * W elements (16, 8 or 4 bytes) when every pointer of the call is aligned to
 * it, else element by element: the arithmetic is the same.
 *
 * Dot products. Each thread adds its chunks' products in element order, a
 * block sums its threads in a fixed tree (warp shuffles, then the warps), and
 * the last block to finish (a ticket counter in the scratch, reset by that
 * block) adds the blocks' sums in the same fixed tree, writes out[] and
 * applies the check. The grid is one chunk a thread, capped at one wave (SMs
 * x PSL_SOLVER_MINB blocks) and at PSL_RED_BLOCKS: fixed for a given n, type
 * and device, so the sums are the same bits at every call (devices with
 * other SM counts add in another order). Elementwise kernels also stop at
 * one wave, each thread looping over its chunks.
 *
 * Every thread evaluates its coefficients before its block takes a ticket,
 * so out[] and the flag may be slots the call's coefficients read.
 *
 * The partial sums and the ticket are the executor's own (ex->scratch), so
 * the reductions of one executor must run one after another: on its stream,
 * or in a graph of them replayed while that stream is idle.
 *
 * Nothing here allocates or synchronizes except alloc, free, to_host,
 * from_host and sync, so a sequence of operations can be captured in a CUDA
 * graph: graph_run captures one and replays it.
 */
#include "solver/backend.h"
#include "codec/half.h"
#include "vec_ops.cuh"

#include <stdint.h>
#include <string.h>

/* Most blocks of a reduction (the scratch holds PSL_RED_BLOCKS x
 * PSL_DOTS_MAX partial sums): above one wave of any current device. */
#define PSL_RED_BLOCKS 2048
#define PSL_WARPS (PSL_CUDA_BLOCK / 32)
/* Blocks of PSL_CUDA_BLOCK threads each SM holds of every kernel here
 * (__launch_bounds__: at most 40 registers; at 7 or more some kernels
 * spill); a launch is at most one wave of them, SMs x PSL_SOLVER_MINB
 * blocks. */
#ifndef PSL_SOLVER_MINB
#define PSL_SOLVER_MINB 6
#endif

/* What ex->scratch points to (host memory; the arrays are on the device). */
struct psl_cuda_scratch {
    int64_t wave;         /* most blocks of a launch: SMs x the resident blocks of an SM */
    double *partials;     /* PSL_RED_BLOCKS x PSL_DOTS_MAX block sums */
    unsigned int *ticket; /* blocks of the running reduction done; 0 between launches */
    unsigned char *mail;  /* two pinned host mailboxes of PSL_MAILBOX_BYTES */
    cudaEvent_t posted[2]; /* the copy into each mailbox */
};

/* ------------------------------------------------------------------ device helpers */

/* Load and store of one element in its arithmetic type; host: the bits of
 * a value (fill). FP16 on the device through the conversion instructions
 * (psl_vec16::widen, __float2half_rn): exact, and round to nearest even with
 * overflow to Inf, i.e. the bits of psl_half_to_float / psl_float_to_half
 * (codec/half.h) for every value but a NaN's payload, which the GPU's
 * arithmetic does not keep anyway. */
template <class E> struct psl_el;
template <> struct psl_el<double> {
    typedef double A;
    static __device__ __forceinline__ double ld(double v) { return v; }
    static __device__ __forceinline__ double st(double a) { return a; }
    static double host_bits(double v) { return v; }
};
template <> struct psl_el<float> {
    typedef float A;
    static __device__ __forceinline__ float ld(float v) { return v; }
    static __device__ __forceinline__ float st(float a) { return a; }
    static float host_bits(double v) { return (float)v; }
};
template <> struct psl_el<uint16_t> {
    typedef float A;
    static __device__ __forceinline__ float ld(uint16_t v) { return psl_vec16::widen(v); }
    static __device__ __forceinline__ uint16_t st(float a)
    {
        return __half_as_ushort(__float2half_rn(a));
    }
    static uint16_t host_bits(double v) { return psl_float_to_half((float)v); }
};

/* The type of a product: FP64 when either operand's type or the
 * accumulation is FP64 (exact for two floats), else FP32. */
template <class A, class ACC> struct psl_prod {
    typedef double T;
};
template <> struct psl_prod<float, float> {
    typedef float T;
};

/* An unsigned type of BYTES bytes, for the chunk accesses. */
template <int BYTES> struct psl_raw;
template <> struct psl_raw<2> {
    typedef unsigned short t;
};
template <> struct psl_raw<4> {
    typedef unsigned int t;
};
template <> struct psl_raw<8> {
    typedef uint2 t;
};
template <> struct psl_raw<16> {
    typedef uint4 t;
};

/* v = p[i0 .. i0+W-1], zero past n: one access when vec (p aligned to
 * W*sizeof(E)) and the chunk is whole. */
template <int W, class E>
__device__ __forceinline__ void psl_ld_chunk(const E *p, int64_t i0, int64_t n, bool vec,
                                             E (&v)[W])
{
    if (vec && i0 + W <= n) {
        typedef typename psl_raw<W * (int)sizeof(E)>::t R;
        const R r = *reinterpret_cast<const R *>(p + i0);
        memcpy(v, &r, sizeof r);
    } else {
#pragma unroll
        for (int j = 0; j < W; j++)
            v[j] = i0 + j < n ? p[i0 + j] : E(0);
    }
}

/* p[i0 .. min(i0+W, n)-1] = v. */
template <int W, class E>
__device__ __forceinline__ void psl_st_chunk(E *p, int64_t i0, int64_t n, bool vec,
                                             const E (&v)[W])
{
    if (vec && i0 + W <= n) {
        typedef typename psl_raw<W * (int)sizeof(E)>::t R;
        R r;
        memcpy(&r, v, sizeof r);
        *reinterpret_cast<R *>(p + i0) = r;
    } else {
#pragma unroll
        for (int j = 0; j < W; j++)
            if (i0 + j < n)
                p[i0 + j] = v[j];
    }
}

/* Entries of chunk c that lie before n (W unless it is the last chunk):
 * the sums leave out the zeros the loads put past n. */
template <int W> __device__ __forceinline__ int psl_in_chunk(int64_t c, int64_t n)
{
    const int64_t m = n - c * W;
    return m < W ? (int)m : W;
}

/* The value v as stored in a vector of E, back in the arithmetic type. */
template <class E>
__device__ __forceinline__ typename psl_el<E>::A psl_rounded(typename psl_el<E>::A v, E &stored)
{
    stored = psl_el<E>::st(v);
    return psl_el<E>::ld(stored);
}

/* Where a reduction puts its results (see psl_red_finish). */
struct psl_red {
    double *partials;
    unsigned int *ticket;
    double *out;
    double *flag;
    int k;
    unsigned check;
};

/* s[j] (j < k) summed over the block, the sums in thread 0's s[]: each warp
 * by shuffles (a fixed tree), then warp 0 over the warps' sums. */
template <int K, class ACC> __device__ __forceinline__ void psl_block_sum(ACC (&s)[K], int k)
{
    __shared__ ACC sh[K][PSL_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
    for (int j = 0; j < K; j++) {
        if (j < k) {
            ACC v = s[j];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1)
                v += __shfl_down_sync(0xffffffffu, v, off);
            if (lane == 0)
                sh[j][warp] = v;
        }
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int j = 0; j < K; j++) {
            if (j < k) {
                ACC v = lane < PSL_WARPS ? sh[j][lane] : ACC(0);
#pragma unroll
                for (int off = PSL_WARPS / 2; off > 0; off >>= 1)
                    v += __shfl_down_sync(0xffffffffu, v, off);
                s[j] = v;
            }
        }
    }
    __syncthreads(); /* sh may be used again */
}

/* The end of every reduction kernel: the block's sums to the partials, and
 * in the last block to finish, out[j] = the partials summed in block order,
 * the check on out[0], the ticket back to 0. */
template <int K, class ACC> __device__ __forceinline__ void psl_red_finish(ACC (&s)[K], const psl_red &red)
{
    __shared__ bool last;
    psl_block_sum<K, ACC>(s, red.k);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < K; j++)
            if (j < red.k)
                red.partials[(size_t)blockIdx.x * PSL_DOTS_MAX + j] = (double)s[j];
        __threadfence(); /* the partials are visible before the ticket is */
        last = atomicAdd(red.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    ACC t[K];
#pragma unroll
    for (int j = 0; j < K; j++)
        t[j] = ACC(0);
    for (unsigned b = threadIdx.x; b < gridDim.x; b += PSL_CUDA_BLOCK) {
#pragma unroll
        for (int j = 0; j < K; j++)
            if (j < red.k) /* __ldcg: from L2, where the other blocks' stores are */
                t[j] += (ACC)__ldcg(red.partials + (size_t)b * PSL_DOTS_MAX + j);
    }
    psl_block_sum<K, ACC>(t, red.k);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < K; j++)
            if (j < red.k)
                red.out[j] = (double)t[j];
        psl_dot_check_apply((double)t[0], red.check, red.flag);
        *red.ticket = 0u;
    }
}

/* Grid-stride loop of an elementwise operation OP over nch chunks: OP::coefs
 * evaluated once per thread, then OP::chunk on each chunk. */
template <class OP>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, PSL_SOLVER_MINB) psl_ew_kernel(const OP op, int64_t nch)
{
    const typename OP::coefs k = op.get();
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < nch; c += stride)
        op.chunk(c, k);
}

/* The same for an operation with K sums in ACC (OP::chunk adds to s[]),
 * then psl_red_finish. */
template <int K, class ACC, class OP>
__global__ void __launch_bounds__(PSL_CUDA_BLOCK, PSL_SOLVER_MINB)
    psl_red_kernel(const OP op, int64_t nch, const psl_red red)
{
    const typename OP::coefs k = op.get();
    ACC s[K];
#pragma unroll
    for (int j = 0; j < K; j++)
        s[j] = ACC(0);
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < nch; c += stride)
        op.template chunk<K, ACC>(c, k, s, red.k);
    psl_red_finish<K, ACC>(s, red);
}

/* ------------------------------------------------------------------ operations */

/* Elements of a chunk: 16 bytes of the widest element of a call, and at
 * most 4 (8-byte FP16 accesses keep the fused FP16 kernels' registers
 * below the PSL_SOLVER_MINB bound). */
static constexpr int psl_chunk_elems(int widest)
{
    return 16 / widest > 4 ? 4 : 16 / widest;
}
template <class E> struct psl_w {
    static constexpr int W = psl_chunk_elems((int)sizeof(E));
};

struct psl_no_coefs {};

/* y = value (the bits computed on the host). */
template <class E> struct psl_op_fill {
    static constexpr int W = psl_w<E>::W;
    typedef psl_no_coefs coefs;
    E *y;
    int64_t n;
    bool vec;
    E value;
    __device__ coefs get() const { return coefs(); }
    __device__ void chunk(int64_t c, const coefs &) const
    {
        E v[W];
#pragma unroll
        for (int j = 0; j < W; j++)
            v[j] = value;
        psl_st_chunk<W>(y, c * W, n, vec, v);
    }
};

/* y = a*x, in FP64 when x or y is FP64, else FP32; rounded to y's type. */
template <class EX, class EY> struct psl_op_scale_copy {
    static constexpr int W = psl_chunk_elems((int)(sizeof(EX) > sizeof(EY) ? sizeof(EX) : sizeof(EY)));
    typedef typename psl_prod<typename psl_el<EX>::A, typename psl_el<EY>::A>::T C;
    typedef typename psl_el<EY>::A AY;
    struct coefs {
        C a;
    };
    psl_sexpr a;
    const EX *x;
    EY *y;
    int64_t n;
    bool vec;
    __device__ coefs get() const { return {(C)psl_sexpr_eval(a)}; }
    __device__ void chunk(int64_t c, const coefs &k) const
    {
        EX xv[W];
        EY yv[W];
        psl_ld_chunk<W>(x, c * W, n, vec, xv);
#pragma unroll
        for (int j = 0; j < W; j++) {
            const C v = k.a * (C)psl_el<EX>::ld(xv[j]);
            yv[j] = psl_el<EY>::st((AY)v);
        }
        psl_st_chunk<W>(y, c * W, n, vec, yv);
    }
};

/* y = a*x + b*y; READ_Y false: y = a*x. */
template <class E, bool READ_Y> struct psl_op_axpby {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    struct coefs {
        A a, b;
    };
    psl_sexpr a, b;
    const E *x;
    E *y;
    int64_t n;
    bool vec;
    __device__ coefs get() const
    {
        return {(A)psl_sexpr_eval(a), READ_Y ? (A)psl_sexpr_eval(b) : A(0)};
    }
    __device__ void chunk(int64_t c, const coefs &k) const
    {
        E xv[W], yv[W];
        psl_ld_chunk<W>(x, c * W, n, vec, xv);
        if (READ_Y)
            psl_ld_chunk<W>(y, c * W, n, vec, yv);
#pragma unroll
        for (int j = 0; j < W; j++) {
            const A ax = k.a * psl_el<E>::ld(xv[j]);
            yv[j] = psl_el<E>::st(READ_Y ? ax + k.b * psl_el<E>::ld(yv[j]) : ax);
        }
        psl_st_chunk<W>(y, c * W, n, vec, yv);
    }
};

/* y = y + a[0]*x[0] + a[1]*x[1] + ... (i < k, in order, one rounding to y's
 * type at the end). */
template <class E> struct psl_op_maxpy {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    struct coefs {
        A a[PSL_DOTS_MAX];
    };
    psl_sexpr a[PSL_DOTS_MAX];
    const E *x[PSL_DOTS_MAX];
    E *y;
    int64_t n;
    int k;
    bool vec;
    __device__ coefs get() const
    {
        coefs r;
#pragma unroll
        for (int i = 0; i < PSL_DOTS_MAX; i++)
            r.a[i] = i < k ? (A)psl_sexpr_eval(a[i]) : A(0);
        return r;
    }
    __device__ void chunk(int64_t c, const coefs &cf) const
    {
        E yv[W];
        A t[W];
        psl_ld_chunk<W>(y, c * W, n, vec, yv);
#pragma unroll
        for (int j = 0; j < W; j++)
            t[j] = psl_el<E>::ld(yv[j]);
#pragma unroll
        for (int i = 0; i < PSL_DOTS_MAX; i++) {
            if (i < k) {
                E xv[W];
                psl_ld_chunk<W>(x[i], c * W, n, vec, xv);
#pragma unroll
                for (int j = 0; j < W; j++)
                    t[j] = t[j] + cf.a[i] * psl_el<E>::ld(xv[j]);
            }
        }
#pragma unroll
        for (int j = 0; j < W; j++)
            yv[j] = psl_el<E>::st(t[j]);
        psl_st_chunk<W>(y, c * W, n, vec, yv);
    }
};

/* y = a*(d*x) + b*y; READ_Y false: y = a*(d*x). */
template <class E, bool READ_Y> struct psl_op_diag_scale {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    struct coefs {
        A a, b;
    };
    psl_sexpr a, b;
    const E *d;
    const E *x;
    E *y;
    int64_t n;
    bool vec;
    __device__ coefs get() const
    {
        return {(A)psl_sexpr_eval(a), READ_Y ? (A)psl_sexpr_eval(b) : A(0)};
    }
    __device__ void chunk(int64_t c, const coefs &k) const
    {
        E dv[W], xv[W], yv[W];
        psl_ld_chunk<W>(d, c * W, n, vec, dv);
        psl_ld_chunk<W>(x, c * W, n, vec, xv);
        if (READ_Y)
            psl_ld_chunk<W>(y, c * W, n, vec, yv);
#pragma unroll
        for (int j = 0; j < W; j++) {
            const A adx = k.a * (psl_el<E>::ld(dv[j]) * psl_el<E>::ld(xv[j]));
            yv[j] = psl_el<E>::st(READ_Y ? adx + k.b * psl_el<E>::ld(yv[j]) : adx);
        }
        psl_st_chunk<W>(y, c * W, n, vec, yv);
    }
};

/* x = x + a*p; p = z + b*p. */
template <class E> struct psl_op_cg_update {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    struct coefs {
        A a, b;
    };
    psl_sexpr a, b;
    E *p;
    E *x;
    const E *z;
    int64_t n;
    bool vec;
    __device__ coefs get() const { return {(A)psl_sexpr_eval(a), (A)psl_sexpr_eval(b)}; }
    __device__ void chunk(int64_t c, const coefs &k) const
    {
        E pv[W], xv[W], zv[W];
        psl_ld_chunk<W>(p, c * W, n, vec, pv);
        psl_ld_chunk<W>(x, c * W, n, vec, xv);
        psl_ld_chunk<W>(z, c * W, n, vec, zv);
#pragma unroll
        for (int j = 0; j < W; j++) {
            const A pj = psl_el<E>::ld(pv[j]);
            xv[j] = psl_el<E>::st(psl_el<E>::ld(xv[j]) + k.a * pj);
            pv[j] = psl_el<E>::st(psl_el<E>::ld(zv[j]) + k.b * pj);
        }
        psl_st_chunk<W>(x, c * W, n, vec, xv);
        psl_st_chunk<W>(p, c * W, n, vec, pv);
    }
};

/* out[j] = x . y[j] (j < k). */
template <class E> struct psl_op_dots {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    typedef psl_no_coefs coefs;
    const E *x;
    const E *y[PSL_DOTS_MAX];
    int64_t n;
    bool vec;
    __device__ coefs get() const { return coefs(); }
    template <int K, class ACC>
    __device__ void chunk(int64_t c, const coefs &, ACC (&s)[K], int k) const
    {
        typedef typename psl_prod<A, ACC>::T P;
        const int m = psl_in_chunk<W>(c, n);
        E xv[W];
        psl_ld_chunk<W>(x, c * W, n, vec, xv);
#pragma unroll
        for (int i = 0; i < K; i++) {
            if (i < k) {
                E yv[W];
                psl_ld_chunk<W>(y[i], c * W, n, vec, yv);
#pragma unroll
                for (int j = 0; j < W; j++)
                    if (j < m)
                        s[i] += (ACC)((P)psl_el<E>::ld(xv[j]) * (P)psl_el<E>::ld(yv[j]));
            }
        }
    }
};

/* r = r - a*q; z = d*r (HAVE_D; else z is r); s[0] += r.z, s[1] += r.r. */
template <class E, bool HAVE_D> struct psl_op_cg_residual {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    struct coefs {
        A a;
    };
    psl_sexpr a;
    const E *q;
    E *r;
    const E *d;
    E *z;
    int64_t n;
    bool vec;
    __device__ coefs get() const { return {(A)psl_sexpr_eval(a)}; }
    template <int K, class ACC>
    __device__ void chunk(int64_t c, const coefs &k, ACC (&s)[K], int) const
    {
        typedef typename psl_prod<A, ACC>::T P;
        const int m = psl_in_chunk<W>(c, n);
        E qv[W], rv[W], dv[W], zv[W];
        psl_ld_chunk<W>(q, c * W, n, vec, qv);
        psl_ld_chunk<W>(r, c * W, n, vec, rv);
        if (HAVE_D)
            psl_ld_chunk<W>(d, c * W, n, vec, dv);
#pragma unroll
        for (int j = 0; j < W; j++) {
            const A rj = psl_rounded<E>(psl_el<E>::ld(rv[j]) - k.a * psl_el<E>::ld(qv[j]), rv[j]);
            A zj = rj;
            if (HAVE_D)
                zj = psl_rounded<E>(psl_el<E>::ld(dv[j]) * rj, zv[j]);
            if (j < m) {
                s[0] += (ACC)((P)rj * (P)zj);
                s[1] += (ACC)((P)rj * (P)rj);
            }
        }
        psl_st_chunk<W>(r, c * W, n, vec, rv);
        if (HAVE_D)
            psl_st_chunk<W>(z, c * W, n, vec, zv);
    }
};

/* x = x + a*d; r = r - a*q; s[0] += r.r. */
template <class E> struct psl_op_fcg_update {
    static constexpr int W = psl_w<E>::W;
    typedef typename psl_el<E>::A A;
    struct coefs {
        A a;
    };
    psl_sexpr a;
    const E *d;
    const E *q;
    E *x;
    E *r;
    int64_t n;
    bool vec;
    __device__ coefs get() const { return {(A)psl_sexpr_eval(a)}; }
    template <int K, class ACC>
    __device__ void chunk(int64_t c, const coefs &k, ACC (&s)[K], int) const
    {
        typedef typename psl_prod<A, ACC>::T P;
        const int m = psl_in_chunk<W>(c, n);
        E dv[W], qv[W], xv[W], rv[W];
        psl_ld_chunk<W>(d, c * W, n, vec, dv);
        psl_ld_chunk<W>(q, c * W, n, vec, qv);
        psl_ld_chunk<W>(x, c * W, n, vec, xv);
        psl_ld_chunk<W>(r, c * W, n, vec, rv);
#pragma unroll
        for (int j = 0; j < W; j++) {
            xv[j] = psl_el<E>::st(psl_el<E>::ld(xv[j]) + k.a * psl_el<E>::ld(dv[j]));
            const A rj = psl_rounded<E>(psl_el<E>::ld(rv[j]) - k.a * psl_el<E>::ld(qv[j]), rv[j]);
            if (j < m)
                s[0] += (ACC)((P)rj * (P)rj);
        }
        psl_st_chunk<W>(x, c * W, n, vec, xv);
        psl_st_chunk<W>(r, c * W, n, vec, rv);
    }
};

/* ------------------------------------------------------------------ host side */

/* The stream and scratch of an executor, its device made current. */
struct psl_cu {
    cudaStream_t s;
    psl_cuda_scratch *sc;
};

static psl_status psl_cu_enter(psl_exec *ex, const char *what, psl_cu *c)
{
    if (!ex)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend %s: the executor is NULL", what);
    if (!ex->scratch)
        return psl_error(PSL_ERR_INVALID_HANDLE,
                         "cuda backend %s: the executor is not set up (psl_cuda_exec_init)",
                         what);
    int cur = -1;
    PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&cur)));
    if (cur != ex->device)
        PSL_TRY(PSL_CUDA_OK(cudaSetDevice(ex->device)));
    c->s = (cudaStream_t)ex->stream;
    c->sc = (psl_cuda_scratch *)ex->scratch;
    return PSL_OK;
}

/* v must be a vector of the list (FP64, FP32, FP16) of n entries, with data
 * unless n == 0, and of type `type` unless that is -1. */
static psl_status psl_cu_view(const psl_vview &v, int64_t n, int type, const char *what,
                              const char *name)
{
    if (!psl_vec_supported(v.type))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "cuda backend %s: %s has vector type %d; accepted: %s", what, name,
                         (int)v.type, PSL_VEC_NAMES);
    if (type >= 0 && (int)v.type != type)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "cuda backend %s: %s is %s, the other vectors %s", what, name,
                         psl_scalar_name(v.type), psl_scalar_name((psl_scalar)type));
    if (v.n != n || n < 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "cuda backend %s: %s has %lld entries, the call %lld", what, name,
                         (long long)v.n, (long long)n);
    if (n > 0 && !v.data)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend %s: %s has no data", what, name);
    return PSL_OK;
}

/* Accumulation types of the dot products. */
static psl_status psl_cu_acc(psl_scalar acc, const char *what)
{
    if (acc != PSL_FP64 && acc != PSL_FP32)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "cuda backend %s: accumulation %d; accepted: PSL_FP64, PSL_FP32", what,
                         (int)acc);
    return PSL_OK;
}

/* The slots a reduction writes. */
static psl_status psl_cu_slots(double *out, unsigned check, double *flag, const char *what)
{
    if (!out)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend %s: out is NULL", what);
    if (check > PSL_DOT_CHECK_NONNEG)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "cuda backend %s: check %u; accepted: PSL_DOT_CHECK_NONE, "
                         "PSL_DOT_CHECK_FINITE, PSL_DOT_CHECK_POSITIVE, PSL_DOT_CHECK_NONNEG",
                         what, check);
    if (check != PSL_DOT_CHECK_NONE && !flag)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend %s: a check without a flag slot",
                         what);
    return PSL_OK;
}

/* Whether p is aligned to a chunk access of `bytes`. */
static inline bool psl_cu_aligned(const void *p, size_t bytes)
{
    return ((uintptr_t)p % bytes) == 0;
}

/* b is the constant 0: y is not read. */
static inline bool psl_sx_is_zero(const psl_sexpr &b)
{
    return b.c == 0.0 && !b.num && !b.den && !b.guard;
}

static inline int64_t psl_cu_chunks(int64_t n, int w) { return (n + w - 1) / w; }

/* Blocks to cover nch chunks at one chunk a thread, at most `most` (>= 1). */
static unsigned psl_cu_blocks(int64_t nch, int64_t most)
{
    const int64_t b = (nch + PSL_CUDA_BLOCK - 1) / PSL_CUDA_BLOCK;
    return (unsigned)(b < 1 ? 1 : b > most ? most : b);
}

/* An elementwise kernel: at most one wave, each thread looping. */
template <class OP>
static psl_status psl_cu_ew_launch(const psl_cu &c, const OP &op, int64_t n, const char *what)
{
    if (n == 0)
        return PSL_OK;
    const int64_t nch = psl_cu_chunks(n, OP::W);
    psl_ew_kernel<OP><<<psl_cu_blocks(nch, c.sc->wave), PSL_CUDA_BLOCK, 0, c.s>>>(op, nch);
    return psl_cuda_launch_status(what);
}

/* A reduction kernel: its grid is a function of nch and the device only
 * (at most one wave and PSL_RED_BLOCKS), so its sums are the same bits at
 * every call. */
template <int K, class ACC, class OP>
static psl_status psl_cu_red_launch(const psl_cu &c, const OP &op, int64_t n, int k, double *out,
                                    unsigned check, double *flag, const char *what)
{
    const int64_t nch = psl_cu_chunks(n, OP::W);
    const int64_t most = c.sc->wave < PSL_RED_BLOCKS ? c.sc->wave : PSL_RED_BLOCKS;
    psl_red red = {c.sc->partials, c.sc->ticket, out, flag, k, check};
    psl_red_kernel<K, ACC, OP><<<psl_cu_blocks(nch, most), PSL_CUDA_BLOCK, 0, c.s>>>(op, nch, red);
    return psl_cuda_launch_status(what);
}

/* f(ACC()) for acc = PSL_FP64 (double) or PSL_FP32 (float). */
template <class F> static psl_status psl_with_acc(psl_scalar acc, F f)
{
    if (acc == PSL_FP64)
        return f(double());
    return f(float());
}

/* ------------------------------------------------------------------ memory */

/* cudaMalloc, then zeroed by a memset queued on the executor's stream:
 * zero for all later work on that stream (and after a sync for any other). */
static psl_status cu_alloc(psl_exec *ex, size_t bytes, void **p)
{
    if (!p)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend alloc: p is NULL");
    *p = NULL;
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "alloc", &c));
    if (bytes == 0)
        return PSL_OK;
    void *d = NULL;
    cudaError_t err = cudaMalloc(&d, bytes);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return psl_error(PSL_ERR_CUDA, "cudaMalloc of %zu bytes for a vector failed: %s (%s)",
                         bytes, cudaGetErrorString(err), cudaGetErrorName(err));
    }
    psl_status st = PSL_CUDA_OK(cudaMemsetAsync(d, 0, bytes, c.s));
    if (st != PSL_OK) {
        (void)cudaFree(d);
        return st;
    }
    *p = d;
    return PSL_OK;
}

/* The executor's stream is synchronized first (work queued on p ends). */
static void cu_free(psl_exec *ex, void *p)
{
    if (!p || !ex)
        return;
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != ex->device)
        (void)cudaSetDevice(ex->device);
    (void)cudaStreamSynchronize((cudaStream_t)ex->stream);
    (void)cudaFree(p);
    (void)cudaGetLastError();
}

static psl_status cu_to_host(psl_exec *ex, void *host, const void *src, size_t bytes)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "to_host", &c));
    if (bytes == 0)
        return PSL_OK;
    if (!host || !src)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend to_host: %s is NULL",
                         host ? "src" : "host");
    PSL_TRY(PSL_CUDA_OK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, c.s)));
    return PSL_CUDA_OK(cudaStreamSynchronize(c.s));
}

/* Synchronizes, so the caller may free or reuse host at once. */
static psl_status cu_from_host(psl_exec *ex, void *dst, const void *host, size_t bytes)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "from_host", &c));
    if (bytes == 0)
        return PSL_OK;
    if (!host || !dst)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend from_host: %s is NULL",
                         host ? "dst" : "host");
    PSL_TRY(PSL_CUDA_OK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, c.s)));
    return PSL_CUDA_OK(cudaStreamSynchronize(c.s));
}

static psl_status cu_copy_bytes(psl_exec *ex, void *dst, const void *src, size_t bytes)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "copy_bytes", &c));
    if (bytes == 0 || dst == src)
        return PSL_OK;
    if (!dst || !src)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend copy_bytes: %s is NULL",
                         dst ? "src" : "dst");
    return PSL_CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, c.s));
}

static psl_status cu_mailbox(psl_exec *ex, int box, size_t bytes, const char *what, psl_cu *c)
{
    PSL_TRY(psl_cu_enter(ex, what, c));
    if (box < 0 || box > 1 || bytes > PSL_MAILBOX_BYTES)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "cuda backend %s: box %d, %zu bytes (0 or 1, at most %d)", what, box,
                         bytes, PSL_MAILBOX_BYTES);
    return PSL_OK;
}

static psl_status cu_post_read(psl_exec *ex, int box, const void *src, size_t bytes)
{
    psl_cu c = {};
    PSL_TRY(cu_mailbox(ex, box, bytes, "post_read", &c));
    if (bytes)
        PSL_TRY(PSL_CUDA_OK(cudaMemcpyAsync(c.sc->mail + box * PSL_MAILBOX_BYTES, src, bytes,
                                            cudaMemcpyDeviceToHost, c.s)));
    return PSL_CUDA_OK(cudaEventRecord(c.sc->posted[box], c.s));
}

static psl_status cu_take_read(psl_exec *ex, int box, void *host, size_t bytes)
{
    psl_cu c = {};
    PSL_TRY(cu_mailbox(ex, box, bytes, "take_read", &c));
    PSL_TRY(PSL_CUDA_OK(cudaEventSynchronize(c.sc->posted[box])));
    if (bytes)
        memcpy(host, c.sc->mail + box * PSL_MAILBOX_BYTES, bytes);
    return PSL_OK;
}

static psl_status cu_sync(psl_exec *ex)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "sync", &c));
    return PSL_CUDA_OK(cudaStreamSynchronize(c.s));
}

/* ------------------------------------------------------------------ elementwise entries */

static psl_status cu_fill(psl_exec *ex, psl_vview y, double value)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "fill", &c));
    PSL_TRY(psl_cu_view(y, y.n, -1, "fill", "y"));
    return psl_with_vec(y.type, "cuda backend fill", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        psl_op_fill<E> op;
        op.y = (E *)y.data;
        op.n = y.n;
        op.vec = psl_cu_aligned(y.data, CB);
        op.value = psl_el<E>::host_bits(value);
        return psl_cu_ew_launch(c, op, y.n, "solver fill");
    });
}

static psl_status cu_scale_copy(psl_exec *ex, psl_sexpr a, psl_vview x, psl_vview y)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "scale_copy", &c));
    PSL_TRY(psl_cu_view(x, x.n, -1, "scale_copy", "x"));
    PSL_TRY(psl_cu_view(y, x.n, -1, "scale_copy", "y"));
    return psl_with_vec(x.type, "cuda backend scale_copy", [&](auto vx) {
        return psl_with_vec(y.type, "cuda backend scale_copy", [&](auto vy) {
            typedef typename decltype(vx)::elem EX;
            typedef typename decltype(vy)::elem EY;
            typedef psl_op_scale_copy<EX, EY> OP;
            OP op;
            op.a = a;
            op.x = (const EX *)x.data;
            op.y = (EY *)y.data;
            op.n = x.n;
            op.vec = psl_cu_aligned(x.data, OP::W * sizeof(EX)) &&
                     psl_cu_aligned(y.data, OP::W * sizeof(EY));
            return psl_cu_ew_launch(c, op, x.n, "solver scale_copy");
        });
    });
}

static psl_status cu_axpby(psl_exec *ex, psl_sexpr a, psl_vview x, psl_sexpr b, psl_vview y)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "axpby", &c));
    PSL_TRY(psl_cu_view(x, x.n, -1, "axpby", "x"));
    PSL_TRY(psl_cu_view(y, x.n, x.type, "axpby", "y"));
    const bool read_y = !psl_sx_is_zero(b);
    return psl_with_vec(x.type, "cuda backend axpby", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        auto run = [&](auto op) {
            op.a = a;
            op.b = b;
            op.x = (const E *)x.data;
            op.y = (E *)y.data;
            op.n = x.n;
            op.vec = psl_cu_aligned(x.data, CB) && psl_cu_aligned(y.data, CB);
            return psl_cu_ew_launch(c, op, x.n, "solver axpby");
        };
        return read_y ? run(psl_op_axpby<E, true>()) : run(psl_op_axpby<E, false>());
    });
}

static psl_status cu_maxpy(psl_exec *ex, int k, const psl_sexpr *a, const psl_vview *x,
                           psl_vview y)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "maxpy", &c));
    if (k < 1 || k > PSL_DOTS_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE, "cuda backend maxpy: k = %d; accepted: 1 .. %d",
                         k, PSL_DOTS_MAX);
    if (!a || !x)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend maxpy: %s is NULL", a ? "x" : "a");
    PSL_TRY(psl_cu_view(y, y.n, -1, "maxpy", "y"));
    for (int i = 0; i < k; i++)
        PSL_TRY(psl_cu_view(x[i], y.n, y.type, "maxpy", "an x[i]"));
    return psl_with_vec(y.type, "cuda backend maxpy", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        psl_op_maxpy<E> op;
        bool vec = psl_cu_aligned(y.data, CB);
        for (int i = 0; i < PSL_DOTS_MAX; i++) {
            op.a[i] = i < k ? a[i] : psl_sx(0.0);
            op.x[i] = i < k ? (const E *)x[i].data : NULL;
            if (i < k)
                vec = vec && psl_cu_aligned(x[i].data, CB);
        }
        op.y = (E *)y.data;
        op.n = y.n;
        op.k = k;
        op.vec = vec;
        return psl_cu_ew_launch(c, op, y.n, "solver maxpy");
    });
}

static psl_status cu_diag_scale(psl_exec *ex, psl_sexpr a, psl_vview d, psl_vview x, psl_sexpr b,
                                psl_vview y)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "diag_scale", &c));
    PSL_TRY(psl_cu_view(x, x.n, -1, "diag_scale", "x"));
    PSL_TRY(psl_cu_view(d, x.n, x.type, "diag_scale", "d"));
    PSL_TRY(psl_cu_view(y, x.n, x.type, "diag_scale", "y"));
    const bool read_y = !psl_sx_is_zero(b);
    return psl_with_vec(x.type, "cuda backend diag_scale", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        auto run = [&](auto op) {
            op.a = a;
            op.b = b;
            op.d = (const E *)d.data;
            op.x = (const E *)x.data;
            op.y = (E *)y.data;
            op.n = x.n;
            op.vec = psl_cu_aligned(d.data, CB) && psl_cu_aligned(x.data, CB) &&
                     psl_cu_aligned(y.data, CB);
            return psl_cu_ew_launch(c, op, x.n, "solver diag_scale");
        };
        return read_y ? run(psl_op_diag_scale<E, true>()) : run(psl_op_diag_scale<E, false>());
    });
}

static psl_status cu_cg_update(psl_exec *ex, psl_sexpr a, psl_vview p, psl_vview x, psl_vview z,
                               psl_sexpr b)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "cg_update", &c));
    PSL_TRY(psl_cu_view(p, p.n, -1, "cg_update", "p"));
    PSL_TRY(psl_cu_view(x, p.n, p.type, "cg_update", "x"));
    PSL_TRY(psl_cu_view(z, p.n, p.type, "cg_update", "z"));
    return psl_with_vec(p.type, "cuda backend cg_update", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        psl_op_cg_update<E> op;
        op.a = a;
        op.b = b;
        op.p = (E *)p.data;
        op.x = (E *)x.data;
        op.z = (const E *)z.data;
        op.n = p.n;
        op.vec = psl_cu_aligned(p.data, CB) && psl_cu_aligned(x.data, CB) &&
                 psl_cu_aligned(z.data, CB);
        return psl_cu_ew_launch(c, op, p.n, "solver cg_update");
    });
}

/* ------------------------------------------------------------------ reductions */

static psl_status cu_dots(psl_exec *ex, psl_vview x, int k, const psl_vview *y, psl_scalar acc,
                          double *out, unsigned check, double *flag)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "dots", &c));
    if (k < 1 || k > PSL_DOTS_MAX)
        return psl_error(PSL_ERR_INVALID_VALUE, "cuda backend dots: k = %d; accepted: 1 .. %d", k,
                         PSL_DOTS_MAX);
    if (!y)
        return psl_error(PSL_ERR_NULL_POINTER, "cuda backend dots: y is NULL");
    PSL_TRY(psl_cu_view(x, x.n, -1, "dots", "x"));
    for (int i = 0; i < k; i++)
        PSL_TRY(psl_cu_view(y[i], x.n, x.type, "dots", "a y[i]"));
    PSL_TRY(psl_cu_acc(acc, "dots"));
    PSL_TRY(psl_cu_slots(out, check, flag, "dots"));
    return psl_with_vec(x.type, "cuda backend dots", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        typedef psl_op_dots<E> OP;
        OP op;
        op.x = (const E *)x.data;
        bool vec = psl_cu_aligned(x.data, CB);
        for (int i = 0; i < PSL_DOTS_MAX; i++) {
            op.y[i] = i < k ? (const E *)y[i].data : NULL;
            if (i < k)
                vec = vec && psl_cu_aligned(y[i].data, CB);
        }
        op.n = x.n;
        op.vec = vec;
        return psl_with_acc(acc, [&](auto a) {
            typedef decltype(a) ACC;
            const char *what = "solver dots";
            if (k == 1)
                return psl_cu_red_launch<1, ACC>(c, op, x.n, k, out, check, flag, what);
            if (k == 2)
                return psl_cu_red_launch<2, ACC>(c, op, x.n, k, out, check, flag, what);
            if (k <= 4)
                return psl_cu_red_launch<4, ACC>(c, op, x.n, k, out, check, flag, what);
            return psl_cu_red_launch<PSL_DOTS_MAX, ACC>(c, op, x.n, k, out, check, flag, what);
        });
    });
}

static psl_status cu_cg_residual(psl_exec *ex, psl_sexpr a, psl_vview q, psl_vview r, psl_vview d,
                                 psl_vview z, psl_scalar acc, double *out, unsigned check,
                                 double *flag)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "cg_residual", &c));
    PSL_TRY(psl_cu_view(r, r.n, -1, "cg_residual", "r"));
    PSL_TRY(psl_cu_view(q, r.n, r.type, "cg_residual", "q"));
    const bool have_d = d.data != NULL;
    if (have_d) {
        PSL_TRY(psl_cu_view(d, r.n, r.type, "cg_residual", "d"));
        PSL_TRY(psl_cu_view(z, r.n, r.type, "cg_residual", "z"));
    }
    PSL_TRY(psl_cu_acc(acc, "cg_residual"));
    PSL_TRY(psl_cu_slots(out, check, flag, "cg_residual"));
    return psl_with_vec(r.type, "cuda backend cg_residual", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        return psl_with_acc(acc, [&](auto av) {
            typedef decltype(av) ACC;
            auto run = [&](auto op) {
                op.a = a;
                op.q = (const E *)q.data;
                op.r = (E *)r.data;
                op.d = have_d ? (const E *)d.data : NULL;
                op.z = have_d ? (E *)z.data : NULL;
                op.n = r.n;
                op.vec = psl_cu_aligned(q.data, CB) && psl_cu_aligned(r.data, CB) &&
                         (!have_d || (psl_cu_aligned(d.data, CB) && psl_cu_aligned(z.data, CB)));
                return psl_cu_red_launch<2, ACC>(c, op, r.n, 2, out, check, flag,
                                                 "solver cg_residual");
            };
            return have_d ? run(psl_op_cg_residual<E, true>())
                          : run(psl_op_cg_residual<E, false>());
        });
    });
}

static psl_status cu_fcg_update(psl_exec *ex, psl_sexpr a, psl_vview d, psl_vview q, psl_vview x,
                                psl_vview r, psl_scalar acc, double *out)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "fcg_update", &c));
    PSL_TRY(psl_cu_view(x, x.n, -1, "fcg_update", "x"));
    PSL_TRY(psl_cu_view(d, x.n, x.type, "fcg_update", "d"));
    PSL_TRY(psl_cu_view(q, x.n, x.type, "fcg_update", "q"));
    PSL_TRY(psl_cu_view(r, x.n, x.type, "fcg_update", "r"));
    PSL_TRY(psl_cu_acc(acc, "fcg_update"));
    PSL_TRY(psl_cu_slots(out, PSL_DOT_CHECK_NONE, NULL, "fcg_update"));
    return psl_with_vec(x.type, "cuda backend fcg_update", [&](auto v) {
        typedef typename decltype(v)::elem E;
        constexpr size_t CB = psl_w<E>::W * sizeof(E); /* bytes of a chunk access */
        psl_op_fcg_update<E> op;
        op.a = a;
        op.d = (const E *)d.data;
        op.q = (const E *)q.data;
        op.x = (E *)x.data;
        op.r = (E *)r.data;
        op.n = x.n;
        op.vec = psl_cu_aligned(d.data, CB) && psl_cu_aligned(q.data, CB) &&
                 psl_cu_aligned(x.data, CB) && psl_cu_aligned(r.data, CB);
        return psl_with_acc(acc, [&](auto av) {
            return psl_cu_red_launch<1, decltype(av)>(c, op, x.n, 1, out, PSL_DOT_CHECK_NONE,
                                                      NULL, "solver fcg_update");
        });
    });
}

/* ------------------------------------------------------------------ life cycle, table */

extern "C" psl_status psl_cuda_exec_init(psl_exec *ex)
{
    if (!ex)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_cuda_exec_init: the executor is NULL");
    if (ex->scratch)
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_cuda_exec_init: the executor is set up already");
    if (ex->device < 0)
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_exec_create_cuda: device %d; accepted: >= 0",
                         ex->device);
    int count = 0;
    PSL_TRY(PSL_CUDA_OK(cudaGetDeviceCount(&count)));
    if (ex->device >= count)
        return psl_error(PSL_ERR_CUDA, "psl_exec_create_cuda: no CUDA device %d (%d present)",
                         ex->device, count);
    PSL_TRY(PSL_CUDA_OK(cudaSetDevice(ex->device)));
    int sms = 0, threads_per_sm = 0;
    PSL_TRY(PSL_CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ex->device)));
    PSL_TRY(PSL_CUDA_OK(cudaDeviceGetAttribute(&threads_per_sm,
                                               cudaDevAttrMaxThreadsPerMultiProcessor,
                                               ex->device)));
    psl_cuda_scratch *sc = (psl_cuda_scratch *)psl_calloc(1, sizeof *sc);
    if (!sc)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating the CUDA executor");
    int per_sm = threads_per_sm / PSL_CUDA_BLOCK;
    per_sm = per_sm < 1 ? 1 : per_sm > PSL_SOLVER_MINB ? PSL_SOLVER_MINB : per_sm;
    sc->wave = (int64_t)(sms > 0 ? sms : 1) * per_sm;
    /* the partials, then the ticket */
    const size_t part_bytes = (size_t)PSL_RED_BLOCKS * PSL_DOTS_MAX * sizeof(double);
    const size_t bytes = part_bytes + 256;
    void *d = NULL;
    psl_status st = PSL_OK;
    PSL_CUDA_GO(cudaMalloc(&d, bytes));
    sc->partials = (double *)d;
    sc->ticket = (unsigned int *)((char *)d + part_bytes);
    PSL_CUDA_GO(cudaMemsetAsync(d, 0, bytes, (cudaStream_t)ex->stream));
    PSL_CUDA_GO(cudaStreamSynchronize((cudaStream_t)ex->stream));
    PSL_CUDA_GO(cudaMallocHost((void **)&sc->mail, 2 * PSL_MAILBOX_BYTES));
    for (int k = 0; k < 2; k++)
        PSL_CUDA_GO(cudaEventCreateWithFlags(&sc->posted[k], cudaEventDisableTiming));
    ex->scratch = sc;
    ex->scratch_bytes = bytes;
    return PSL_OK;
fail:
    for (int k = 0; k < 2; k++)
        if (sc->posted[k])
            (void)cudaEventDestroy(sc->posted[k]);
    if (sc->mail)
        (void)cudaFreeHost(sc->mail);
    if (d)
        (void)cudaFree(d);
    (void)cudaGetLastError();
    psl_free(sc);
    return st;
}

extern "C" void psl_cuda_exec_release(psl_exec *ex)
{
    if (!ex || !ex->scratch)
        return;
    psl_cuda_scratch *sc = (psl_cuda_scratch *)ex->scratch;
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != ex->device)
        (void)cudaSetDevice(ex->device);
    (void)cudaStreamSynchronize((cudaStream_t)ex->stream);
    (void)cudaFree(sc->partials);
    for (int k = 0; k < 2; k++)
        (void)cudaEventDestroy(sc->posted[k]);
    (void)cudaFreeHost(sc->mail);
    (void)cudaGetLastError();
    psl_free(sc);
    ex->scratch = NULL;
    ex->scratch_bytes = 0;
}

/* The check of a reduced slot, one thread. */
__global__ void psl_check_kernel(const double *v, unsigned check, double *flag)
{
    psl_dot_check_apply(*v, check, flag);
}

static psl_status cu_check(psl_exec *ex, const double *v, unsigned check, double *flag)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "check", &c));
    PSL_TRY(psl_cu_slots((double *)v, check, flag, "check"));
    if (check == PSL_DOT_CHECK_NONE)
        return PSL_OK;
    psl_check_kernel<<<1, 1, 0, c.s>>>(v, check, flag);
    return psl_cuda_launch_status("check");
}

/* ------------------------------------------------------------------ graphs */

/* A sequence captured by cu_graph_run: its executable graph and the key it
 * was captured under; refused once a capture failed (fn then runs
 * directly). */
struct psl_cuda_graph {
    cudaGraphExec_t exec;
    const void *key;
    size_t nodes;
    bool refused;
};

/* fn's work captured on a stream of its own (ex's queue may be the legacy
 * default stream, which cannot be captured), ex->stream pointing to it
 * meanwhile, then instantiated into g->exec. Thread-local mode: a call of fn
 * that would synchronize or allocate fails instead, and so does the capture.
 * fn's status is in *fn_st; PSL_ERR_CUDA when no graph came of it. */
static psl_status cu_graph_capture(psl_exec *ex, psl_cuda_graph *g,
                                   psl_status (*fn)(void *), void *ctx, psl_status *fn_st)
{
    cudaStream_t cs = NULL;
    PSL_TRY(PSL_CUDA_OK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking)));
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        void *saved = ex->stream;
        ex->stream = cs;
        *fn_st = fn(ctx);
        ex->stream = saved;
        e = cudaStreamEndCapture(cs, &graph);
    }
    if (e == cudaSuccess && *fn_st == PSL_OK && graph) {
        (void)cudaGraphGetNodes(graph, NULL, &g->nodes);
        e = cudaGraphInstantiate(&g->exec, graph, 0);
    }
    if (graph)
        (void)cudaGraphDestroy(graph);
    (void)cudaStreamDestroy(cs);
    if (e != cudaSuccess || *fn_st != PSL_OK || !g->exec) {
        (void)cudaGetLastError(); /* capture errors are not sticky */
        g->exec = NULL;
        return PSL_ERR_CUDA;
    }
    return PSL_OK;
}

static psl_status cu_graph_run(psl_exec *ex, void **graph, const void *key,
                               psl_status (*fn)(void *ctx), void *ctx)
{
    psl_cu c = {};
    PSL_TRY(psl_cu_enter(ex, "graph_run", &c));
    cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    PSL_TRY(PSL_CUDA_OK(cudaStreamIsCapturing(c.s, &cap)));
    if (cap != cudaStreamCaptureStatusNone)
        return fn(ctx); /* a capture around this call takes fn's work */
    psl_cuda_graph *g = (psl_cuda_graph *)*graph;
    if (!g) {
        g = (psl_cuda_graph *)psl_calloc(1, sizeof *g);
        if (!g)
            return psl_error(PSL_ERR_OUT_OF_MEMORY, "out of memory allocating a CUDA graph");
        *graph = g;
    }
    if (g->refused)
        return fn(ctx);
    if (g->exec && g->key != key) {
        (void)cudaGraphExecDestroy(g->exec);
        g->exec = NULL;
    }
    if (!g->exec) {
        psl_status fn_st = PSL_OK;
        if (cu_graph_capture(ex, g, fn, ctx, &fn_st) != PSL_OK) {
            g->refused = true;
            psl_trace("solver: CUDA graph capture refused (%s); the work runs without a graph",
                      fn_st != PSL_OK ? psl_last_error_message() : "capture failed");
            return fn(ctx);
        }
        g->key = key;
        psl_trace("solver: CUDA graph captured, %zu nodes", g->nodes);
    }
    return PSL_CUDA_OK(cudaGraphLaunch(g->exec, c.s));
}

static void cu_graph_free(psl_exec *ex, void **graph)
{
    (void)ex;
    if (!graph || !*graph)
        return;
    psl_cuda_graph *g = (psl_cuda_graph *)*graph;
    if (g->exec)
        (void)cudaGraphExecDestroy(g->exec);
    psl_free(g);
    *graph = NULL;
}

extern "C" const psl_backend psl_backend_cuda = {
    "cuda",        cu_alloc, cu_free,      cu_to_host,    cu_from_host,  cu_copy_bytes,
    cu_sync,       cu_post_read, cu_take_read,
    cu_fill,       cu_scale_copy, cu_axpby,     cu_maxpy,      cu_diag_scale,
    cu_dots,       cu_cg_residual, cu_cg_update, cu_fcg_update, cu_check,
    cu_graph_run,  cu_graph_free,
};
