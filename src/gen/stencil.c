/*
 * stencil.c -- structured-grid generators: the HPCG 27-point box stencil,
 * its nonsymmetric HPGMP variant, and the 5-point (2D) and 7-point (3D)
 * Laplacians. Grid point (ix, iy, iz) is row iz*nx*ny + iy*nx + ix (x
 * fastest); neighbours outside the grid are dropped (no wrap). Looping over
 * sz, sy, sx in -1..1 in that order visits the columns in ascending order,
 * so rows come out sorted without a sort.
 */
#include "gen/gen_internal.h"

#include <string.h>

typedef struct stencil_ctx {
    int32_t nx, ny, nz;
    int box;
    double diag, beta;
} stencil_ctx;

/* Neighbour offsets that stay inside [0, n) from i: 1 (itself) + up to 2. */
static inline int32_t span(int32_t i, int32_t n) { return 1 + (i > 0) + (i < n - 1); }

static void grid_point(const stencil_ctx *s, int32_t row, int32_t *ix, int32_t *iy, int32_t *iz)
{
    int64_t plane = (int64_t)s->nx * s->ny;
    *iz = (int32_t)(row / plane);
    int32_t r = (int32_t)(row - *iz * plane);
    *iy = r / s->nx;
    *ix = r - *iy * s->nx;
}

/* Row length: the product of the spans (box) or the axis neighbours plus
 * the diagonal (star). */
static int32_t stencil_count(const void *ctx, int32_t row)
{
    const stencil_ctx *s = ctx;
    int32_t ix, iy, iz;
    grid_point(s, row, &ix, &iy, &iz);
    int32_t cx = span(ix, s->nx), cy = span(iy, s->ny), cz = span(iz, s->nz);
    return s->box ? cx * cy * cz : cx + cy + cz - 2;
}

int psl_gen_stencil_point(int64_t nx, int64_t ny, int64_t nz, int box, double diag, double beta,
                          int64_t ix, int64_t iy, int64_t iz, int8_t *off, double *val)
{
    int k = 0;
    for (int sz = -1; sz <= 1; sz++) {
        if (iz + sz < 0 || iz + sz >= nz)
            continue;
        for (int sy = -1; sy <= 1; sy++) {
            if (iy + sy < 0 || iy + sy >= ny)
                continue;
            for (int sx = -1; sx <= 1; sx++) {
                if (ix + sx < 0 || ix + sx >= nx)
                    continue;
                int far = (sx != 0) + (sy != 0) + (sz != 0);
                if (!box && far > 1)
                    continue;
                double v = -1.0;
                if (far == 0)
                    v = diag;
                else if (sx == 0 && sy == 0)
                    v = sz < 0 ? -1.0 - beta : -1.0 + beta;
                off[3 * k] = (int8_t)sx;
                off[3 * k + 1] = (int8_t)sy;
                off[3 * k + 2] = (int8_t)sz;
                val[k] = v;
                k++;
            }
        }
    }
    return k;
}

/* One row: neighbours in (sz, sy, sx) order, i.e. ascending columns. */
static void stencil_fill(const void *ctx, int32_t row, int32_t *col, double *val, void *ws)
{
    const stencil_ctx *s = ctx;
    int32_t ix, iy, iz;
    grid_point(s, row, &ix, &iy, &iz);
    int64_t plane = (int64_t)s->nx * s->ny;
    int8_t off[3 * 27];
    int k = psl_gen_stencil_point(s->nx, s->ny, s->nz, s->box, s->diag, s->beta, ix, iy, iz, off,
                                  val);
    for (int j = 0; j < k; j++)
        col[j] = (int32_t)(row + off[3 * j + 2] * plane + off[3 * j + 1] * (int64_t)s->nx +
                           off[3 * j]);
}

psl_status psl_gen_stencil(psl_gen_source *g, int32_t nx, int32_t ny, int32_t nz, int box,
                           double diag, double beta)
{
    int64_t n = (int64_t)nx * ny * nz;
    memset(g, 0, sizeof *g);
    if (nx < 1 || ny < 1 || nz < 1 || n > INT32_MAX)
        return psl_error(PSL_ERR_INTERNAL, "stencil grid %d x %d x %d not checked by the caller",
                         (int)nx, (int)ny, (int)nz);
    stencil_ctx *s = NULL;
    PSL_TRY(psl_alloc((void **)&s, 1, sizeof *s, "stencil parameters"));
    *s = (stencil_ctx){nx, ny, nz, box, diag, beta};
    static const psl_gen_ops ops = {stencil_count, stencil_fill, NULL, 0};
    g->n = (int32_t)n;
    g->ops = &ops;
    g->ctx = s;
    return PSL_OK;
}
