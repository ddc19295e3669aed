/*
 * gen_internal.h -- the generators' shared pieces: the CSR arrays a
 * generator produces, the two-pass parallel builder (count, prefix sum,
 * fill) that every generator runs, and the generator entry points that
 * spec.c dispatches to. The arrays are 0-based with sorted, unique columns,
 * ready for psl_csr_adopt(..., PSL_CSR_TRUSTED).
 */
#ifndef PSL_GEN_INTERNAL_H
#define PSL_GEN_INTERNAL_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CSR arrays owned by whoever holds the struct (release: psl_gen_csr_free). */
typedef struct psl_gen_csr {
    int32_t nrows, ncols;
    int64_t *row_ptr; /* nrows+1 */
    int32_t *col_idx; /* row_ptr[nrows] */
    double *values;   /* row_ptr[nrows] */
} psl_gen_csr;

/* Free the arrays and zero the struct (NULL-safe). */
void psl_gen_csr_free(psl_gen_csr *c);

/* Parse a spec (grammar at the top of spec.c) and build its arrays. On
 * failure *out is zeroed and the last error names the offending field. */
psl_status psl_gen_build(psl_gen_csr *out, const char *spec);

/* What a generator supplies to the two-pass builder. count and fill are
 * called for every row, from any thread, in any order; they must depend on
 * the row only (determinism). fill writes exactly count(row) entries with
 * ascending, unique columns. ws is a per-thread scratch area of
 * ws_bytes(ctx, maxlen) bytes (maxlen: the longest row counted; a generator
 * may size it from a bound of its own instead), or NULL when ws_bytes is
 * NULL. */
typedef struct psl_gen_ops {
    int32_t (*count)(const void *ctx, int32_t row);
    void (*fill)(const void *ctx, int32_t row, int32_t *col, double *val, void *ws);
    size_t (*ws_bytes)(const void *ctx, int32_t maxlen);
    int uneven; /* rows of very different cost: dynamic scheduling of fill */
} psl_gen_ops;

/* Run the two passes in parallel: row lengths into row_ptr, a blocked
 * prefix sum, allocation, then fill. On failure *out is zeroed. */
psl_status psl_gen_run(psl_gen_csr *out, int32_t nrows, int32_t ncols, const psl_gen_ops *ops,
                       const void *ctx);

/* Structured grids (stencil.c), row = iz*nx*ny + iy*nx + ix, no wrap.
 * box != 0: the 27-point box (HPCG); box == 0: the 7-point star (5-point
 * when nz == 1). diag on the diagonal, -1 off it, except -1-beta at
 * (sz,sy,sx) = (-1,0,0) and -1+beta at (+1,0,0) (HPGMP; beta 0 otherwise).
 * nx*ny*nz must fit int32 (the caller checks). */
psl_status psl_gen_stencil(psl_gen_csr *out, int32_t nx, int32_t ny, int32_t nz, int box,
                           double diag, double beta);

/* The stencil entries of grid point (ix, iy, iz) of an nx x ny x nz grid,
 * as psl_gen_stencil makes its row: for each entry k the offset (sx, sy, sz)
 * in off[3k..3k+2] and the value in val[k], in (sz, sy, sx) order (ascending
 * columns in the natural numbering). Returns the count, at most 27. Shared
 * with the distributed generator (src/dist), which numbers the points its
 * own way. */
int psl_gen_stencil_point(int64_t nx, int64_t ny, int64_t nz, int box, double diag, double beta,
                          int64_t ix, int64_t iy, int64_t iz, int8_t *off, double *val);

/* Random generators (random_gen.c); see spec.c for the definitions. */
psl_status psl_gen_banded(psl_gen_csr *out, int32_t n, int64_t bw, int64_t k, uint64_t seed);
psl_status psl_gen_powerlaw(psl_gen_csr *out, int32_t n, double avg, double alpha,
                            uint64_t seed);
psl_status psl_gen_random(psl_gen_csr *out, int32_t n, int64_t k, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif /* PSL_GEN_INTERNAL_H */
