/*
 * gen_stencil.c -- HPCG's problem generated on each rank for its own rows:
 * every rank holds an nx x ny x nz box of a global grid laid out as a 3D
 * process grid (psl_dist_process_grid), and global rows are numbered rank by
 * rank (rank r owns rows [r n_local, (r+1) n_local), x fastest inside its
 * box). The stencil itself is the serial generator's (psl_gen_stencil_point,
 * src/gen/stencil.c); only the numbering is this file's.
 */
#include "dist/dist_internal.h"
#include "gen/gen_internal.h"

#include <math.h>
#include <stdlib.h>

psl_status psl_dist_process_grid(int nranks, int dims[3])
{
    if (!dims)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_dist_process_grid: dims is NULL");
    if (nranks < 1)
        return psl_error(PSL_ERR_INVALID_VALUE, "psl_dist_process_grid: nranks = %d < 1", nranks);
    int best = -1;
    for (int px = 1; px <= nranks; px++) {
        if (nranks % px)
            continue;
        for (int py = 1; py <= nranks / px; py++) {
            if ((nranks / px) % py)
                continue;
            int pz = nranks / px / py, sum = px + py + pz;
            if (best < 0 || sum < best) { /* ties: the first, i.e. the most in z */
                best = sum;
                dims[0] = px;
                dims[1] = py;
                dims[2] = pz;
            }
        }
    }
    return PSL_OK;
}

psl_status psl_dist_generate_hpcg(psl_dist_matrix **A, MPI_Comm comm, int32_t nx, int32_t ny,
                                  int32_t nz, double beta, const psl_convert_options *diag_opt,
                                  const psl_convert_options *offd_opt)
{
    static const char *who = "psl_dist_generate_hpcg";
    if (comm == MPI_COMM_NULL)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: comm is MPI_COMM_NULL", who);
    psl_status st = PSL_OK;
    int rank = 0, p = 1, d[3] = {1, 1, 1};
    int64_t *rp = NULL, *ci = NULL;
    double *v = NULL;
    if (A)
        *A = NULL;
    PSL_MPI_OK(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(comm, &p), "MPI_Comm_size");
    psl_dist_process_grid(p, d);
    const int64_t nloc = (int64_t)nx * ny * nz;
    if (!A)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: A is NULL", who);
    else if (nx < 1 || ny < 1 || nz < 1 || !isfinite(beta))
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: box %d x %d x %d (each >= 1), beta %g", who,
                       (int)nx, (int)ny, (int)nz, beta);
    else if (nloc > INT32_MAX)
        st = psl_error(PSL_ERR_SIZE_OVERFLOW, "%s: %lld rows per rank exceed int32", who,
                       (long long)nloc);
    else if ((st = psl_memory_check((double)nloc * 27 * 16, who)) == PSL_OK) {
        if ((st = psl_alloc((void **)&rp, (size_t)nloc + 1, sizeof *rp, "row pointers")) == PSL_OK &&
            (st = psl_alloc((void **)&ci, (size_t)nloc * 27, sizeof *ci, "columns")) == PSL_OK)
            st = psl_alloc((void **)&v, (size_t)nloc * 27, sizeof *v, "values");
    }
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;

    /* this rank's box in the process grid (rank = px + npx (py + npy pz)) */
    const int64_t px = rank % d[0], py = (rank / d[0]) % d[1], pz = rank / d[0] / d[1];
    const int64_t NX = (int64_t)d[0] * nx, NY = (int64_t)d[1] * ny, NZ = (int64_t)d[2] * nz;
    int64_t k = 0;
    rp[0] = 0;
    for (int64_t lz = 0; lz < nz; lz++)
        for (int64_t ly = 0; ly < ny; ly++)
            for (int64_t lx = 0; lx < nx; lx++) {
                int64_t gx = px * nx + lx, gy = py * ny + ly, gz = pz * nz + lz;
                int8_t off[3 * 27];
                int m = psl_gen_stencil_point(NX, NY, NZ, 1, 26.0, beta, gx, gy, gz, off, v + k);
                for (int j = 0; j < m; j++) {
                    int64_t ax = gx + off[3 * j], ay = gy + off[3 * j + 1], az = gz + off[3 * j + 2];
                    int64_t qx = ax / nx, qy = ay / ny, qz = az / nz;
                    int64_t q = qx + d[0] * (qy + d[1] * qz);
                    ci[k + j] = q * nloc + (ax - qx * nx) + nx * ((ay - qy * ny) + ny * (az - qz * nz));
                }
                k += m;
                rp[lx + nx * (ly + ny * lz) + 1] = k;
            }
    st = psl_dist_matrix_create_csr(A, comm, nloc * p, nloc * rank, (int32_t)nloc, rp, ci, v,
                                    diag_opt, offd_opt);
fail:
    free(rp);
    free(ci);
    free(v);
    return st;
}
