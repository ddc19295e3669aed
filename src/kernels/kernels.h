/*
 * kernels.h -- internal interface between the SpMV dispatcher
 * (src/core/spmv_dispatch.c) and the CPU kernels: the scalar reference
 * kernels (src/kernels/ref/, the test oracle) and the OpenMP kernels
 * (src/kernels/cpu/).
 *
 * Arithmetic contract shared by every kernel, so that they all give the same
 * bits: accumulation type ACC = double for FP64 vectors, float for FP32 and
 * FP16 vectors; for each stored row, t = 0 and for every stored entry in
 * stored order t = t + (ACC)value * (ACC)x[col], each operation rounded to
 * ACC; padding and dummy entries are skipped (never multiplied); then
 * r = (ACC)alpha * t, and r = r + (ACC)beta * (ACC)y_old unless beta == 0,
 * and y = r rounded to the vector type. The callers have checked the
 * arguments; kernels never fail.
 */
#ifndef PSL_KERNELS_H
#define PSL_KERNELS_H

#include "internal.h"
#include "core/vec_types.h"
#include "format/word.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One SpMV kernel: y = alpha*A*x + beta*y with vectors of vec_type. */
typedef void (*psl_spmv_fn)(double alpha, const psl_matrix *A, const void *x, double beta,
                            void *y, psl_scalar vec_type);

/* Scalar reference kernels, one per format, for every value type / codec
 * and vector type (chosen through the table of formats). */
void psl_ref_csr_spmv(double alpha, const psl_matrix *A, const void *x, double beta, void *y,
                      psl_scalar vec_type);
void psl_ref_sell_spmv(double alpha, const psl_matrix *A, const void *x, double beta, void *y,
                       psl_scalar vec_type);
void psl_ref_packsell_spmv(double alpha, const psl_matrix *A, const void *x, double beta,
                           void *y, psl_scalar vec_type);

/* OpenMP kernels, one table per format: NULL when there is no variant. */
psl_spmv_fn psl_cpu_csr_select(psl_scalar value_type, psl_scalar vec_type);
psl_spmv_fn psl_cpu_sell_select(psl_scalar value_type, psl_scalar vec_type);
psl_spmv_fn psl_cpu_packsell_select(psl_codec codec, psl_scalar vec_type);
/* CSR-k (format/csrk/): FP64, FP32 or FP16 values, every vector type. */
psl_spmv_fn psl_cpu_csrk_select(psl_scalar value_type, psl_scalar vec_type);
/* Instruction set of the OpenMP SELL/PackSELL kernels, best last. */
typedef enum psl_isa { PSL_ISA_GENERIC, PSL_ISA_AVX2, PSL_ISA_AVX512 } psl_isa;
/* The best instruction set this CPU supports (detected once per process),
 * capped by the option PSL_CPU_ISA (read on every call; no cap when its
 * value is invalid, which psl_spmv reports). The psl_cpu_*_select functions
 * follow it. */
psl_isa psl_cpu_isa(void);
const char *psl_cpu_isa_name(psl_isa isa);

/* y = alpha*0 + beta*y for every row (a matrix without entries or columns). */
void psl_cpu_scale(double alpha, const psl_matrix *A, double beta, void *y,
                   psl_scalar vec_type);

/* psl_spmv with a kernel chosen by name ("ref", "omp"; NULL or "" chooses as
 * psl_spmv does with PSL_KERNEL=auto; the option is not read). Same checks
 * and errors as psl_spmv otherwise; unknown names give
 * PSL_ERR_INVALID_VALUE. For tests and benchmarks. */
psl_status psl_spmv_named(const char *kernel, double alpha, const psl_matrix *A,
                          const void *x, double beta, void *y, psl_scalar vec_type);

/* Index into y written by stored row i of a SELL/PackSELL matrix: with
 * implicit permutation the original row, otherwise i itself. */
static inline int64_t psl_spmv_out_row(const psl_matrix *A, int64_t i)
{
    if (A->permute == PSL_PERMUTE_IMPLICIT && A->perm)
        return (i / A->sigma) * A->sigma + psl_perm_get(A, i);
    return i;
}

/* Column where the running column sum of stored row i of a PackSELL matrix
 * starts (uniform over a d-block, hence over a slice). */
static inline int64_t psl_spmv_start_col(const psl_matrix *A, int64_t i)
{
    int64_t db = psl_dblock(A);
    return psl_block_start_col((i / db) * db, A->kleft, A->ncols);
}

#ifdef __cplusplus
}
#endif
#endif /* PSL_KERNELS_H */
