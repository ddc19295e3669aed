/*
 * scatter.c -- psl_dist_matrix_scatter_csr: a whole FP64 CSR matrix held on
 * one rank split in row blocks (psl_dist_balance_rows' rule) and sent to
 * the ranks, each building its part with psl_dist_matrix_create_csr. The
 * arrays travel in messages of at most PSL_SCATTER_CHUNK entries, so that
 * int64 counts never reach MPI's int counts.
 */
#include "dist/dist_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *who = "psl_dist_matrix_scatter_csr";

/* Entries per message: MPI counts are int. */
#define PSL_SCATTER_CHUNK ((int64_t)1 << 28)

/* Send (dest >= 0) or receive (src >= 0) count entries of esize bytes as
 * messages of at most PSL_SCATTER_CHUNK entries, tag `tag`. */
static psl_status send_chunks(const void *buf, int64_t count, MPI_Datatype t, size_t esize,
                              int dest, int tag, MPI_Comm comm)
{
    psl_status st = PSL_OK;
    for (int64_t off = 0; off < count; off += PSL_SCATTER_CHUNK) {
        int64_t len = count - off < PSL_SCATTER_CHUNK ? count - off : PSL_SCATTER_CHUNK;
        PSL_MPI_OK(MPI_Send((const char *)buf + (size_t)off * esize, (int)len, t, dest, tag, comm),
                   "MPI_Send (matrix scatter)");
    }
fail:
    return st;
}

static psl_status recv_chunks(void *buf, int64_t count, MPI_Datatype t, size_t esize, int src,
                              int tag, MPI_Comm comm)
{
    psl_status st = PSL_OK;
    for (int64_t off = 0; off < count; off += PSL_SCATTER_CHUNK) {
        int64_t len = count - off < PSL_SCATTER_CHUNK ? count - off : PSL_SCATTER_CHUNK;
        PSL_MPI_OK(MPI_Recv((char *)buf + (size_t)off * esize, (int)len, t, src, tag, comm,
                            MPI_STATUS_IGNORE),
                   "MPI_Recv (matrix scatter)");
    }
fail:
    return st;
}

/* On root: src checked, n and the p+1 block starts into *starts. */
static psl_status plan_on_root(const psl_matrix *src, psl_dist_balance balance, int p,
                               int64_t *n, int64_t **starts)
{
    psl_matrix_info info;
    PSL_TRY(psl_matrix_get_info(src, &info));
    if (info.format != PSL_FORMAT_CSR || info.value_type != PSL_FP64)
        return psl_error(PSL_ERR_WRONG_FORMAT,
                         "%s: src is %s %s; an FP64 CSR matrix is scattered "
                         "(psl_matrix_to_csr first)",
                         who, psl_format_name(info.format), psl_scalar_name(info.value_type));
    if (info.nrows != info.ncols)
        return psl_error(PSL_ERR_UNSUPPORTED,
                         "%s: the matrix is %d x %d; a distributed matrix is square", who,
                         (int)info.nrows, (int)info.ncols);
    const int64_t *rp = NULL;
    PSL_TRY(psl_matrix_csr_view(src, &rp, NULL, NULL));
    PSL_TRY(psl_alloc((void **)starts, (size_t)p + 1, sizeof **starts, "block starts"));
    for (int r = 0; r <= p; r++)
        (*starts)[r] = psl_dist_block_start(info.nrows, balance == PSL_DIST_BALANCE_NNZ ? rp : NULL,
                                            r, p);
    *n = info.nrows;
    return PSL_OK;
}

psl_status psl_dist_matrix_scatter_csr(psl_dist_matrix **A, MPI_Comm comm, const psl_matrix *src,
                                       int root, psl_dist_balance balance,
                                       const psl_convert_options *diag_opt,
                                       const psl_convert_options *offd_opt)
{
    if (comm == MPI_COMM_NULL)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: comm is MPI_COMM_NULL", who);
    psl_status st = PSL_OK;
    int rank = 0, p = 1;
    int64_t *starts = NULL, *meta = NULL, mine[4] = {0, 0, 0, 0};
    int64_t *rp = NULL, *ci = NULL;
    int32_t *ci32 = NULL;
    double *v = NULL;
    MPI_Comm pc = MPI_COMM_NULL; /* private: the transfers never meet the caller's messages */
    if (A)
        *A = NULL;
    PSL_MPI_OK(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(comm, &p), "MPI_Comm_size");
    if (!A)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: A is NULL", who);
    else if (root < 0 || root >= p)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: root %d outside 0..%d", who, root, p - 1);
    else if (balance != PSL_DIST_BALANCE_NNZ && balance != PSL_DIST_BALANCE_ROWS)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: balance %d is neither PSL_DIST_BALANCE_NNZ "
                       "nor PSL_DIST_BALANCE_ROWS", who, (int)balance);
    int in[2] = {root, -root}, out[2];
    PSL_MPI_OK(MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (st == PSL_OK && out[0] != -out[1])
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: root differs across ranks (%d to %d)", who,
                       out[0], -out[1]);
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;

    /* root: the plan, and each rank's (n, first row, rows, nonzeros) */
    const int64_t *srp = NULL;
    const int32_t *sci = NULL;
    const double *sv = NULL;
    if (rank == root) {
        int64_t n = 0;
        st = plan_on_root(src, balance, p, &n, &starts);
        if (st == PSL_OK)
            st = psl_alloc((void **)&meta, (size_t)p * 4, sizeof *meta, "scatter counts");
        if (st == PSL_OK) {
            psl_matrix_csr_view(src, &srp, &sci, &sv);
            for (int r = 0; r < p; r++) {
                meta[4 * r] = n;
                meta[4 * r + 1] = starts[r];
                meta[4 * r + 2] = starts[r + 1] - starts[r];
                meta[4 * r + 3] = srp[starts[r + 1]] - srp[starts[r]];
            }
        }
    }
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;
    PSL_MPI_OK(MPI_Scatter(meta, 4, MPI_INT64_T, mine, 4, MPI_INT64_T, root, comm),
               "MPI_Scatter (row counts)");
    const int64_t n = mine[0], first = mine[1], nrows = mine[2], nnz = mine[3];

    /* this rank's arrays (the INT32 bound holds: n is a psl_matrix's rows) */
    st = psl_alloc((void **)&rp, (size_t)nrows + 1, sizeof *rp, "row pointers");
    if (st == PSL_OK)
        st = psl_alloc((void **)&ci, nnz > 0 ? (size_t)nnz : 1, sizeof *ci, "columns");
    if (st == PSL_OK)
        st = psl_alloc((void **)&ci32, nnz > 0 ? (size_t)nnz : 1, sizeof *ci32, "columns");
    if (st == PSL_OK)
        st = psl_alloc((void **)&v, nnz > 0 ? (size_t)nnz : 1, sizeof *v, "values");
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;

    PSL_MPI_OK(MPI_Comm_dup(comm, &pc), "MPI_Comm_dup");
    if (rank == root) {
        for (int r = 0; r < p && st == PSL_OK; r++) {
            const int64_t f = meta[4 * r + 1], nr = meta[4 * r + 2], nz = meta[4 * r + 3];
            const int64_t o = srp[f];
            if (r == root) {
                memcpy(rp, srp + f, (size_t)(nr + 1) * sizeof *rp);
                if (nz > 0) {
                    memcpy(ci32, sci + o, (size_t)nz * sizeof *ci32);
                    memcpy(v, sv + o, (size_t)nz * sizeof *v);
                }
                continue;
            }
            st = send_chunks(srp + f, nr + 1, MPI_INT64_T, sizeof *srp, r, 1, pc);
            if (st == PSL_OK)
                st = send_chunks(sci + o, nz, MPI_INT32_T, sizeof *sci, r, 2, pc);
            if (st == PSL_OK)
                st = send_chunks(sv + o, nz, MPI_DOUBLE, sizeof *sv, r, 3, pc);
        }
    } else {
        st = recv_chunks(rp, nrows + 1, MPI_INT64_T, sizeof *rp, root, 1, pc);
        if (st == PSL_OK)
            st = recv_chunks(ci32, nnz, MPI_INT32_T, sizeof *ci32, root, 2, pc);
        if (st == PSL_OK)
            st = recv_chunks(v, nnz, MPI_DOUBLE, sizeof *v, root, 3, pc);
    }
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;
    /* local row pointers from 0, global columns as int64 */
    for (int64_t i = nrows; i >= 0; i--)
        rp[i] -= rp[0];
    for (int64_t k = 0; k < nnz; k++)
        ci[k] = ci32[k];
    free(ci32);
    ci32 = NULL;
    st = psl_dist_matrix_create_csr(A, comm, n, first, (int32_t)nrows, rp, ci, v, diag_opt,
                                    offd_opt);
fail:
    if (pc != MPI_COMM_NULL)
        MPI_Comm_free(&pc);
    free(starts);
    free(meta);
    free(rp);
    free(ci);
    free(ci32);
    free(v);
    return st;
}
