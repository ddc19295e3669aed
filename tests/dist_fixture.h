/*
 * dist_fixture.h -- what the MPI tests (tests/test_dist_*.c) share: a global
 * CSR matrix that every rank builds alike, its rows as a distributed matrix,
 * the serial references written here by the simplest code (SpMV in row
 * order, Jacobi-PCG), and a check that every rank returned one status.
 */
#ifndef PSL_DIST_FIXTURE_H
#define PSL_DIST_FIXTURE_H

#include "mpi_harness.h"
#include "packsell_mpi.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- a global CSR matrix (every rank builds the same one) */
typedef struct gcsr {
    int64_t n;
    int64_t *rp, *ci;
    double *v;
} gcsr;

static inline void gcsr_free(gcsr *g)
{
    free(g->rp);
    free(g->ci);
    free(g->v);
    g->rp = NULL;
    g->ci = NULL;
    g->v = NULL;
}

/* The HPCG matrix of psl_generate as a global CSR. */
static inline gcsr generated(const char *spec)
{
    psl_matrix *M = NULL;
    gcsr g = {0};
    if (psl_generate(&M, spec) != PSL_OK)
        return g;
    psl_matrix_info info;
    psl_matrix_get_info(M, &info);
    const int64_t *rp;
    const int32_t *ci;
    const double *v;
    psl_matrix_csr_view(M, &rp, &ci, &v);
    g.n = info.nrows;
    g.rp = malloc((size_t)(g.n + 1) * sizeof(int64_t));
    g.ci = malloc((size_t)(info.nnz + 1) * sizeof(int64_t));
    g.v = malloc((size_t)(info.nnz + 1) * sizeof(double));
    for (int64_t i = 0; i <= g.n; i++)
        g.rp[i] = rp[i];
    for (int64_t k = 0; k < info.nnz; k++) {
        g.ci[k] = ci[k];
        g.v[k] = v[k];
    }
    psl_matrix_destroy(&M);
    return g;
}

/* The whole of g as one serial FP64 CSR matrix (NULL on failure). */
static inline psl_matrix *gcsr_matrix(const gcsr *g)
{
    int32_t *ci = malloc(((size_t)g->rp[g->n] + 1) * sizeof *ci);
    for (int64_t k = 0; k < g->rp[g->n]; k++)
        ci[k] = (int32_t)g->ci[k];
    psl_matrix *A = NULL;
    if (psl_matrix_create_csr(&A, (int32_t)g->n, (int32_t)g->n, g->rp, ci, g->v, PSL_FP64, 0,
                              0) != PSL_OK)
        A = NULL;
    free(ci);
    return A;
}

/* The serial reference: y = alpha*A*x + beta*y0 summed in row order in FP64. */
static inline void serial_spmv(const gcsr *g, double alpha, const double *x, double beta,
                        const double *y0, double *y)
{
    for (int64_t i = 0; i < g->n; i++) {
        double s = 0.0;
        for (int64_t k = g->rp[i]; k < g->rp[i + 1]; k++)
            s += g->v[k] * x[g->ci[k]];
        y[i] = alpha * s + (beta != 0.0 ? beta * y0[i] : 0.0);
    }
}

/* Rows [first, first + nrows) of g as a distributed matrix. */
static inline psl_status create_from(psl_dist_matrix **A, const gcsr *g, int64_t first, int32_t nrows,
                              const psl_convert_options *od, const psl_convert_options *oo)
{
    int64_t *rp = malloc(((size_t)nrows + 1) * sizeof *rp);
    for (int32_t i = 0; i <= nrows; i++)
        rp[i] = g->rp[first + i] - g->rp[first];
    psl_status st = psl_dist_matrix_create_csr(A, MPI_COMM_WORLD, g->n, first, nrows, rp,
                                               g->ci + g->rp[first], g->v + g->rp[first], od, oo);
    free(rp);
    return st;
}

/* Balanced by rows: floor(r n / p). */
static inline void row_block(int64_t n, int r, int p, int64_t *first, int32_t *nrows)
{
    int64_t a = n * r / p, b = n * (r + 1) / p;
    *first = a;
    *nrows = (int32_t)(b - a);
}

/* Every rank's status equal to `expected` (gathered, so each rank checks all). */
static inline int all_equal(int st, int expected)
{
    int *all = malloc((size_t)g_size * sizeof *all);
    MPI_Allgather(&st, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int ok = 1;
    for (int r = 0; r < g_size; r++)
        if (all[r] != expected) {
            fprintf(stderr, "  rank %d returned %d (%s), expected %d\n", r, all[r],
                    psl_status_string((psl_status)all[r]), expected);
            ok = 0;
        }
    free(all);
    return ok;
}

/* A serial Jacobi-PCG written here, the same recurrence as psl_dist_pcg. */
static inline int serial_pcg(const gcsr *g, const double *b, double *x, double tol, int maxit)
{
    int64_t n = g->n;
    if (n <= 0)
        return 0;
    double *r = calloc((size_t)n, sizeof *r), *z = calloc((size_t)n, sizeof *z);
    double *p = calloc((size_t)n, sizeof *p), *q = calloc((size_t)n, sizeof *q);
    double *d = calloc((size_t)n, sizeof *d);
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = g->rp[i]; k < g->rp[i + 1]; k++)
            if (g->ci[k] == i)
                d[i] += g->v[k];
    serial_spmv(g, 1.0, x, 0.0, NULL, q);
    double bb = 0, rz = 0, rr = 0;
    for (int64_t i = 0; i < n; i++) {
        r[i] = b[i] - q[i];
        z[i] = r[i] / d[i];
        p[i] = z[i];
        bb += b[i] * b[i];
        rz += r[i] * z[i];
        rr += r[i] * r[i];
    }
    int it = 0;
    while (sqrt(rr / bb) >= tol && it < maxit) {
        serial_spmv(g, 1.0, p, 0.0, NULL, q);
        double pq = 0;
        for (int64_t i = 0; i < n; i++)
            pq += p[i] * q[i];
        double alpha = rz / pq, rz2 = 0;
        rr = 0;
        for (int64_t i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            z[i] = r[i] / d[i];
            rz2 += r[i] * z[i];
            rr += r[i] * r[i];
        }
        double beta = rz2 / rz;
        rz = rz2;
        for (int64_t i = 0; i < n; i++)
            p[i] = z[i] + beta * p[i];
        it++;
    }
    free(r);
    free(z);
    free(p);
    free(q);
    free(d);
    return it;
}

#endif
