/*
 * cpu_common.h -- helpers shared by the OpenMP SpMV kernels: token pasting
 * for template instantiation, the per-vector-type load/store helpers, and
 * the OpenMP tuning constants.
 *
 * Vector kinds (VEC_NAME in the templates; the list is PSL_FOR_EACH_VEC of
 * core/vec_types.h): v64 = FP64 vectors with double accumulation, v32 = FP32
 * vectors and v16 = FP16 vectors with float accumulation. psl_<kind>_x loads
 * x[c] in the accumulation type (exact); psl_<kind>_y finishes row o:
 * y[o] = a*t (+ b*y[o]), see kernels.h.
 *
 * Instruction sets: every kernel template is compiled once portably (the
 * spmv_<format>.c files) and, on x86-64 with GCC or Clang, once more per
 * SIMD instruction set (spmv_avx2.c, spmv_avx512.c: PSL_SIMD defined, the
 * primitives of simd_<isa>.h). psl_cpu_isa() picks the best one the CPU
 * has at run time.
 */
#ifndef PSL_CPU_COMMON_H
#define PSL_CPU_COMMON_H

#include "kernels/kernels.h"

#include "codec/half.h"
#include "core/vec_types.h"
#include "format/word.h"

#include <omp.h>
#include <stdbool.h>
#include <stdint.h>

/* 1 where the x86 SIMD variants are compiled (GCC/Clang target pragmas). */
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define PSL_X86_SIMD 1
#else
#define PSL_X86_SIMD 0
#endif

/* Kernel tables of the SIMD variants (NULL where a variant has none). */
psl_spmv_fn psl_cpu_sell_select_avx2(psl_scalar value_type, psl_scalar vec_type);
psl_spmv_fn psl_cpu_sell_select_avx512(psl_scalar value_type, psl_scalar vec_type);
psl_spmv_fn psl_cpu_packsell_select_avx2(psl_codec codec, psl_scalar vec_type);
psl_spmv_fn psl_cpu_packsell_select_avx512(psl_codec codec, psl_scalar vec_type);

#define PSL_CAT_(a, b) a##b
#define PSL_CAT(a, b) PSL_CAT_(a, b)
#define PSL_CAT3(a, b, c) PSL_CAT(PSL_CAT(a, b), c)
#define PSL_CAT4(a, b, c, d) PSL_CAT(PSL_CAT3(a, b, c), d)

/* One row of a kernel table indexed by vector type: {[PSL_FP64] =
 * prefix##v64, [PSL_FP32] = prefix##v32, ...} over PSL_FOR_EACH_VEC. */
#define PSL_CPU_VEC_ROW(prefix) {PSL_FOR_EACH_VEC_WITH(PSL_CPU_VEC_FN_, prefix)}
#define PSL_CPU_VEC_FN_(prefix, TYPE, NAME, ...) [TYPE] = PSL_CAT3(prefix, v, NAME),

/* Per SIMD block of vl (8 or 16) lanes of every slice of a SELL or PackSELL
 * matrix, slice k's blocks from [k * (C / vl)]: 1 where the block's columns
 * are consecutive (c, c+1, ...; no padding lane) at every position of the
 * slice. Built at the first call and kept with the matrix (slice_runs.c);
 * NULL for another format or vl, or without memory (the kernels then test
 * each position). */
const uint8_t *psl_cpu_slice_runs(const psl_matrix *A, int vl);

/* Matrices with fewer entries run on one thread (fork/join costs more). */
#define PSL_OMP_MIN_WORK 20000
/* Most lanes of a slice summed together (scalar LANES, SIMD groups). */
#define PSL_ROWS_MAX 64

static inline double psl_v64_x(const void *x, int64_t c) { return ((const double *)x)[c]; }
static inline float psl_v32_x(const void *x, int64_t c) { return ((const float *)x)[c]; }
static inline float psl_v16_x(const void *x, int64_t c)
{
    return psl_half_to_float(((const uint16_t *)x)[c]);
}

static inline void psl_v64_y(void *y, int64_t o, double t, double a, double b, bool beta)
{
    double *p = (double *)y;
    double r = a * t;
    if (beta)
        r = r + b * p[o];
    p[o] = r;
}
static inline void psl_v32_y(void *y, int64_t o, float t, float a, float b, bool beta)
{
    float *p = (float *)y;
    float r = a * t;
    if (beta)
        r = r + b * p[o];
    p[o] = r;
}
static inline void psl_v16_y(void *y, int64_t o, float t, float a, float b, bool beta)
{
    uint16_t *p = (uint16_t *)y;
    float r = a * t;
    if (beta)
        r = r + b * psl_half_to_float(p[o]);
    p[o] = psl_float_to_half(r);
}

/* Output indices into y of the n stored rows row0 .. row0+n-1, which lie in
 * one slice (so in one sigma block): psl_spmv_out_row without a division
 * per row. */
static inline void psl_cpu_out_rows(const psl_matrix *A, int64_t row0, int n, int64_t *out)
{
    if (A->permute == PSL_PERMUTE_IMPLICIT && A->perm) {
        int64_t base = row0 / A->sigma * A->sigma;
        const void *p = A->perm;
        switch (A->perm_bytes) {
        case 1:
            for (int l = 0; l < n; l++)
                out[l] = base + ((const uint8_t *)p)[row0 + l];
            break;
        case 2:
            for (int l = 0; l < n; l++)
                out[l] = base + ((const uint16_t *)p)[row0 + l];
            break;
        default:
            for (int l = 0; l < n; l++)
                out[l] = base + ((const uint32_t *)p)[row0 + l];
            break;
        }
    } else {
        for (int l = 0; l < n; l++)
            out[l] = row0 + l;
    }
}

/* First slice of part p of n (p <= n) parts of a SELL or PackSELL matrix
 * with about equal work, counted as stored words + rows (C per slice): the
 * smallest k with slice_ptr[k] + k*C >= p * (stored + nslices*C) / n. Part p
 * is [start(p), start(p+1)): one contiguous stream of words per thread. */
static inline int32_t psl_sliced_part_start(const int64_t *slice_ptr, int32_t nslices, int32_t C,
                                            int p, int n)
{
    if (p >= n)
        return nslices;
    int64_t total = slice_ptr[nslices] + (int64_t)nslices * C;
    int64_t target = total / n * p + total % n * p / n;
    int32_t lo = 0, hi = nslices;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (slice_ptr[mid] + (int64_t)mid * C < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First row of part p of n (p <= n) parts of a CSR matrix with about equal
 * work, counted as nonzeros + rows: the smallest r with
 * row_ptr[r] + r >= p * (nnz + nrows) / n. Part p is [start(p), start(p+1)). */
static inline int32_t psl_csr_part_start(const int64_t *row_ptr, int32_t nrows, int p, int n)
{
    if (p >= n)
        return nrows;
    int64_t target = (row_ptr[nrows] + nrows) / n * p +
                     (row_ptr[nrows] + nrows) % n * p / n;
    int32_t lo = 0, hi = nrows;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        if (row_ptr[mid] + mid < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first row of part p of n of a grouped matrix (CSR-k): the row of
 * psl_csr_part_start moved up to the start of the group it falls in, so that
 * a part holds whole groups. Group g starts at row
 * sr[ssr ? ssr[g] : g] (super-super-rows when ssr is given, else
 * super-rows); ngroups groups, the last ending at nrows. */
static inline int32_t psl_group_part_start(const int64_t *row_ptr, int32_t nrows,
                                           const int32_t *sr, const int32_t *ssr,
                                           int32_t ngroups, int p, int n)
{
    if (p >= n)
        return nrows;
    int32_t row = psl_csr_part_start(row_ptr, nrows, p, n), lo = 0, hi = ngroups;
    while (lo < hi) { /* the first group starting at or after row */
        int32_t mid = lo + (hi - lo) / 2;
        if (sr[ssr ? ssr[mid] : mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ngroups ? sr[ssr ? ssr[lo] : lo] : nrows;
}

#endif /* PSL_CPU_COMMON_H */
