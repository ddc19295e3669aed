/*
 * gen_internal.h -- the generators' shared pieces: the CSR arrays a
 * generator produces, a parsed spec as a source of rows (any range of
 * them: the whole matrix, or one rank's block in src/dist), the two-pass
 * parallel builder (count, prefix sum, fill) that every generator runs, and
 * the generator set-ups that spec.c dispatches to. The arrays are 0-based with sorted, unique columns,
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

/* Parse a spec (grammar at the top of spec.c) and build its arrays: the
 * rows [0, n) of its source (psl_gen_open, psl_gen_build_rows). On failure
 * *out is zeroed and the last error names the offending field. */
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

/* The sums over ALL rows that a generator takes before it can count a row
 * (powerlaw's scale), when several callers each build part of one matrix
 * (the ranks of psl_dist_generate, src/dist/generate.c; libpacksell itself
 * links no MPI). Caller `part` of `nparts` sums over its even share of the
 * rows, [floor(n part / nparts), floor(n (part+1) / nparts)), and sum()
 * turns the share's total *total into the total over all shares. `local` is
 * the caller's status so far: when some caller's is not PSL_OK, sum returns
 * the first failing caller's status on every caller (*total then
 * meaningless), else PSL_OK. Every caller makes the same calls in the same
 * order (what they depend on is agreed), so sum may be a collective. */
typedef struct psl_gen_share {
    int part, nparts;
    psl_status (*sum)(void *user, int64_t *total, psl_status local);
    void *user;
} psl_gen_share;

/* A parsed and checked spec whose rows can be counted and built in any
 * range: row i of the n x n matrix is ops->count / ops->fill of (ctx, i).
 * Release: psl_gen_close. */
typedef struct psl_gen_source {
    int32_t n;              /* rows = columns */
    const psl_gen_ops *ops;
    void *ctx;              /* the generator's parameters (owned: one block, free) */
} psl_gen_source;

/* Parse spec and set up its generator (the checks and errors of
 * psl_generate). share NULL: one caller holding every row; else the
 * caller's part of the whole-matrix sums (above), and the memory check is
 * for the share's rows. On failure *g is zeroed. */
psl_status psl_gen_open(psl_gen_source *g, const char *spec, const psl_gen_share *share);

/* Release g's context and zero it (NULL-safe). */
void psl_gen_close(psl_gen_source *g);

/* Length of global row `row` (0 <= row < g->n), without filling. */
int32_t psl_gen_row_length(const psl_gen_source *g, int32_t row);

/* Row pointer of rows [row0, row1): row_ptr[0] = 0, row_ptr[i+1] - row_ptr[i]
 * the length of row row0+i (row1-row0+1 entries), counted in parallel; the
 * longest row into *maxlen (may be NULL). 0 <= row0 <= row1 <= g->n.
 * Errors: PSL_ERR_OUT_OF_MEMORY (scratch of the threads). */
psl_status psl_gen_row_ptr(const psl_gen_source *g, int32_t row0, int32_t row1, int64_t *row_ptr,
                           int32_t *maxlen);

/* Build rows [row0, row1) of g (0 <= row0 <= row1 <= g->n) as *out: out has
 * row1-row0 rows, g->n columns, GLOBAL column indices, each row the same
 * bits as in the whole matrix. On failure *out is zeroed. */
psl_status psl_gen_build_rows(psl_gen_csr *out, const psl_gen_source *g, int32_t row0,
                              int32_t row1);

/* The generators' set-up (the spec's checks done by the caller): *g gets
 * the rows, ops and an allocated context; on failure *g is zeroed. */

/* Structured grids (stencil.c), row = iz*nx*ny + iy*nx + ix, no wrap.
 * box != 0: the 27-point box (HPCG); box == 0: the 7-point star (5-point
 * when nz == 1). diag on the diagonal, -1 off it, except -1-beta at
 * (sz,sy,sx) = (-1,0,0) and -1+beta at (+1,0,0) (HPGMP; beta 0 otherwise).
 * nx*ny*nz must fit int32 (the caller checks). */
psl_status psl_gen_stencil(psl_gen_source *g, int32_t nx, int32_t ny, int32_t nz, int box,
                           double diag, double beta);

/* The stencil entries of grid point (ix, iy, iz) of an nx x ny x nz grid,
 * as psl_gen_stencil makes its row: for each entry k the offset (sx, sy, sz)
 * in off[3k..3k+2] and the value in val[k], in (sz, sy, sx) order (ascending
 * columns in the natural numbering). Returns the count, at most 27. Shared
 * with the distributed generator (src/dist), which numbers the points its
 * own way. */
int psl_gen_stencil_point(int64_t nx, int64_t ny, int64_t nz, int box, double diag, double beta,
                          int64_t ix, int64_t iy, int64_t iz, int8_t *off, double *val);

/* Random generators (random_gen.c); see spec.c for the definitions.
 * powerlaw's scale is a bisection over the total length of all rows, each
 * caller summing its share (share NULL: all rows) and share->sum adding the
 * shares: integer totals, so every caller finds the bits one caller would.
 * `local` is the caller's status so far (its memory check), agreed with the
 * other callers before anything is allocated. */
psl_status psl_gen_banded(psl_gen_source *g, int32_t n, int64_t bw, int64_t k, uint64_t seed);
psl_status psl_gen_powerlaw(psl_gen_source *g, int32_t n, double avg, double alpha,
                            uint64_t seed, const psl_gen_share *share, psl_status local);
psl_status psl_gen_random(psl_gen_source *g, int32_t n, int64_t k, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif /* PSL_GEN_INTERNAL_H */
