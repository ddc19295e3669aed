/*
 * spmv_dispatch.c -- psl_spmv: argument checks and the choice of the SpMV
 * kernel through a small registry of CPU backends, tried in order:
 *   "omp"  OpenMP/SIMD kernels (src/kernels/cpu/), the default;
 *   "ref"  scalar reference kernels (src/kernels/ref/), the test oracle.
 * The option PSL_KERNEL=<name> (options.c, read on every call) forces one
 * backend; PSL_TRACE=1 prints each choice (with the instruction set of the
 * omp SELL/PackSELL kernels, see psl_cpu_isa; PSL_CPU_ISA caps it). A
 * matrix with a numbering of its own (CSR-k's locality reordering) has x
 * gathered and y scattered around the kernel, through a workspace
 * allocated on each call.
 */
#include "format/format_ops.h"
#include "internal.h"
#include "kernels/kernels.h"
#include "options.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The OpenMP kernel for A and vec_type, or NULL (the format's selector). */
static psl_spmv_fn omp_select(const psl_matrix *A, psl_scalar vec_type)
{
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    return ops ? ops->omp_select(A, vec_type) : NULL;
}

/* The reference kernel covers every valid combination. */
static psl_spmv_fn ref_select(const psl_matrix *A, psl_scalar vec_type)
{
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    return ops ? ops->ref_select(A, vec_type) : NULL;
}

/* The backends; their names are the values of PSL_KERNEL (options.c). */
typedef struct spmv_backend {
    const char *name;
    psl_spmv_fn (*select)(const psl_matrix *A, psl_scalar vec_type);
} spmv_backend;

static const spmv_backend backends[] = {
    {"omp", omp_select},
    {"ref", ref_select},
};
#define NBACKENDS (sizeof backends / sizeof backends[0])

/* "PackSELL e8m10", "SELL fp16", ... into buf. */
static void describe(const psl_matrix *A, char *buf, size_t len)
{
    const psl_format_ops *ops = psl_format_ops_of(A->format);
    if (ops)
        ops->describe(A, buf, len);
    else
        snprintf(buf, len, "? %s", psl_scalar_name(A->value_type));
}

/* Check A and vec_type (errors set). */
static psl_status check_matrix_and_type(const psl_matrix *A, psl_scalar vec_type)
{
    PSL_TRY(psl_matrix_check(A));
    if (!psl_vec_supported(vec_type))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "SpMV vector type %d is not supported (use one of %s)",
                         (int)vec_type, PSL_VEC_NAMES);
    return PSL_OK;
}

/* Pick the backend and kernel: by name when want is non-empty, else the
 * first backend that has a kernel for A and vec_type. */
static psl_status choose(const psl_matrix *A, psl_scalar vec_type, const char *want,
                         const spmv_backend **be, psl_spmv_fn *fn)
{
    for (size_t i = 0; i < NBACKENDS; i++) {
        if (want && *want && strcmp(want, backends[i].name) != 0)
            continue;
        psl_spmv_fn f = backends[i].select(A, vec_type);
        if (f) {
            *be = &backends[i];
            *fn = f;
            return PSL_OK;
        }
        if (want && *want)
            break;
    }
    if (want && *want) {
        bool known = false;
        for (size_t i = 0; i < NBACKENDS; i++)
            known = known || strcmp(want, backends[i].name) == 0;
        if (!known)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "SpMV kernel '%s' does not exist; use 'omp' or 'ref'",
                             want);
    }
    char what[48];
    describe(A, what, sizeof what);
    return psl_error(PSL_ERR_INTERNAL, "no SpMV kernel%s%s for a %s matrix with %s vectors",
                     want && *want ? " " : "", want && *want ? want : "", what,
                     psl_scalar_name(vec_type));
}

/* dst[i] = src[perm[i]] (gather) or dst[perm[i]] = src[i] (scatter) for
 * the n elements of es bytes (8, 4 or 2). */
static void move_elements(void *dst, const void *src, const int32_t *perm, int64_t n, size_t es,
                          bool scatter)
{
#pragma omp parallel for schedule(static) if (n > PSL_PAR_MIN)
    for (int64_t i = 0; i < n; i++) {
        const int64_t d = scatter ? perm[i] : i, s = scatter ? i : perm[i];
        switch (es) {
        case 8: ((uint64_t *)dst)[d] = ((const uint64_t *)src)[s]; break;
        case 4: ((uint32_t *)dst)[d] = ((const uint32_t *)src)[s]; break;
        default: ((uint16_t *)dst)[d] = ((const uint16_t *)src)[s]; break;
        }
    }
}

/* fn on a matrix with a numbering of its own (perm: stored row and column
 * i are the caller's perm[i], a square matrix): x, and y's rows when beta
 * is not 0, gathered into a workspace in the stored order, fn on them, the
 * rows scattered back into y. Each row keeps fn's arithmetic. The
 * workspace, (nrows + ncols) elements, is allocated on each call. */
static psl_status spmv_reordered(psl_spmv_fn fn, const int32_t *perm, double alpha,
                                 const psl_matrix *A, const void *x, double beta, void *y,
                                 psl_scalar vec_type)
{
    const size_t es = psl_scalar_size(vec_type);
    const int64_t n = A->nrows;
    char *ws = NULL;
    PSL_TRY(psl_alloc((void **)&ws, 2 * (size_t)n, es, "the workspace of a reordered SpMV"));
    void *xs = ws, *ys = ws + (size_t)n * es;
    move_elements(xs, x, perm, n, es, false);
    if (beta != 0) /* y is not read otherwise */
        move_elements(ys, y, perm, n, es, false);
    fn(alpha, A, xs, beta, ys, vec_type);
    move_elements(y, ys, perm, n, es, true);
    free(ws);
    return PSL_OK;
}

/* True when the byte ranges [a, a+na) and [b, b+nb) intersect. */
static bool overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return na > 0 && nb > 0 && pa < pb + nb && pb < pa + na;
}

psl_status psl_spmv_named(const char *kernel, double alpha, const psl_matrix *A,
                          const void *x, double beta, void *y, psl_scalar vec_type)
{
    PSL_TRY(check_matrix_and_type(A, vec_type));
    size_t es = psl_scalar_size(vec_type);
    if (!x && A->ncols > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "SpMV input vector x is NULL (%d columns)",
                         (int)A->ncols);
    if (!y && A->nrows > 0)
        return psl_error(PSL_ERR_NULL_POINTER, "SpMV output vector y is NULL (%d rows)",
                         (int)A->nrows);
    if (overlap(x, (size_t)A->ncols * es, y, (size_t)A->nrows * es))
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "SpMV vectors x and y overlap in memory (y is written in place)");
    int isa_cap, trace;
    PSL_TRY(psl_opt_get(PSL_OPT_CPU_ISA, &isa_cap)); /* validated here, followed by psl_cpu_isa */
    PSL_TRY(psl_opt_get(PSL_OPT_TRACE, &trace));
    const spmv_backend *be = NULL;
    psl_spmv_fn fn = NULL;
    PSL_TRY(choose(A, vec_type, kernel, &be, &fn));
    if (trace) {
        char what[48];
        describe(A, what, sizeof what);
        const psl_format_ops *ops = psl_format_ops_of(A->format);
        bool simd = strcmp(be->name, "omp") == 0 && ops && ops->omp_isa;
        psl_trace("spmv: kernel '%s'%s%s for %s %d x %d (nnz %lld), %s vectors (%s)",
                  be->name, simd ? " isa " : "", simd ? psl_cpu_isa_name(psl_cpu_isa()) : "",
                  what, (int)A->nrows, (int)A->ncols, (long long)A->nnz,
                  psl_scalar_name(vec_type),
                  kernel && *kernel ? "requested" : "first backend with a kernel");
    }
    if (A->nrows == 0)
        return PSL_OK;
    const int32_t *perm = psl_format_reorder_perm(A);
    if (perm)
        return spmv_reordered(fn, perm, alpha, A, x, beta, y, vec_type);
    fn(alpha, A, x, beta, y, vec_type);
    return PSL_OK;
}

/* The backend PSL_KERNEL forces in *want (NULL: auto). */
static psl_status kernel_option(const char **want)
{
    int k;
    PSL_TRY(psl_opt_get(PSL_OPT_KERNEL, &k));
    *want = k < 0 ? NULL : psl_opt_value_name(PSL_OPT_KERNEL, k);
    return PSL_OK;
}

psl_status psl_spmv(double alpha, const psl_matrix *A, const void *x, double beta, void *y,
                    psl_scalar vec_type)
{
    const char *want;
    PSL_TRY(kernel_option(&want));
    return psl_spmv_named(want, alpha, A, x, beta, y, vec_type);
}

const char *psl_spmv_kernel_name(const psl_matrix *A, psl_scalar vec_type)
{
    const spmv_backend *be = NULL;
    psl_spmv_fn fn = NULL;
    const char *want;
    int isa_cap, trace; /* "none" where psl_spmv fails on an option */
    if (kernel_option(&want) != PSL_OK || psl_opt_get(PSL_OPT_CPU_ISA, &isa_cap) != PSL_OK ||
        psl_opt_get(PSL_OPT_TRACE, &trace) != PSL_OK ||
        check_matrix_and_type(A, vec_type) != PSL_OK ||
        choose(A, vec_type, want, &be, &fn) != PSL_OK)
        return "none";
    return be->name;
}
