/*
 * generate.c -- psl_dist_generate: any generator spec built on each rank
 * for its own contiguous block of rows (psl_gen_open / psl_gen_build_rows,
 * src/gen), the rows the bits of psl_generate's. The blocks are
 * psl_dist_block_start's, found without any rank holding all the row
 * lengths: each rank counts an even share of the rows, the shares' totals
 * are gathered, and each rank finds the block starts that fall in its
 * share. powerlaw's whole-matrix sums are allreduces (psl_gen_share).
 */
#include "dist/dist_internal.h"
#include "gen/gen_internal.h"

#include <stdlib.h>

static const char *who = "psl_dist_generate";

/* psl_gen_share's sum over the ranks of the communicator at user: the
 * failure flags and the totals in one allreduce (integers: exact). */
static psl_status sum_over_ranks(void *user, int64_t *total, psl_status local)
{
    MPI_Comm comm = *(const MPI_Comm *)user;
    int64_t in[2] = {local != PSL_OK, *total}, out[2];
    int rc = MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        return psl_dist_mpi_error(rc, "MPI_Allreduce (generator total)");
    if (out[0] > 0) /* every rank sees it: agree on the first failure */
        return psl_dist_agree(comm, local);
    *total = out[1];
    return PSL_OK;
}

/* The same status on every rank: when every rank has the same one (a spec
 * error, found alike everywhere) each keeps its own message, psl_generate's;
 * else the first failing rank's (psl_dist_agree). */
static psl_status agree_spec(MPI_Comm comm, psl_status st)
{
    int in[2] = {(int)st, -(int)st}, out[2];
    int rc = MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return psl_dist_mpi_error(rc, "MPI_Allreduce (status agreement)");
    return out[0] == -out[1] ? st : psl_dist_agree(comm, st);
}

/* starts[0..p] of the blocks balanced by nonzeros, exactly
 * psl_dist_block_start(n, row_ptr, r, p) of the whole row pointer: block r
 * starts at the first row i whose prefix row_ptr[i] reaches
 * floor(r nnz / p). This rank counts rows [c0, c1) of its even share; the
 * start i of a target t >= 1 lies in (c0, c1] of exactly one rank, the one
 * with prefix(c0) < t <= prefix(c1). Collective. */
static psl_status nnz_starts(const psl_gen_source *g, MPI_Comm comm, int rank, int p,
                             int64_t *starts)
{
    psl_status st = PSL_OK;
    const int64_t n = g->n;
    const int32_t c0 = (int32_t)psl_dist_share(n, rank, p), c1 = (int32_t)psl_dist_share(n, rank + 1, p);
    int64_t *rp = NULL, *totals = NULL, *mine = NULL;
    st = psl_alloc((void **)&rp, (size_t)(c1 - c0) + 1, sizeof *rp, "row lengths");
    if (st == PSL_OK)
        st = psl_alloc((void **)&totals, (size_t)p, sizeof *totals, "share totals");
    if (st == PSL_OK)
        st = psl_alloc_zero((void **)&mine, (size_t)p + 1, sizeof *mine, "block starts");
    if (st == PSL_OK)
        st = psl_gen_row_ptr(g, c0, c1, rp, NULL);
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;
    PSL_MPI_OK(MPI_Allgather(&rp[c1 - c0], 1, MPI_INT64_T, totals, 1, MPI_INT64_T, comm),
               "MPI_Allgather (share totals)");
    int64_t before = 0, nnz = 0; /* prefix(c0), and the whole matrix's nonzeros */
    for (int r = 0; r < p; r++) {
        if (r < rank)
            before += totals[r];
        nnz += totals[r];
    }
    for (int r = 1; r < p; r++) {
        int64_t t = psl_dist_share(nnz, r, p);
        if (nnz == 0 || t <= 0 || t <= before || t > before + rp[c1 - c0])
            continue;
        int64_t lo = 0, hi = c1 - c0; /* first j with before + rp[j] >= t */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (before + rp[mid] >= t)
                hi = mid;
            else
                lo = mid + 1;
        }
        mine[r] = c0 + lo;
    }
    PSL_MPI_OK(MPI_Allreduce(mine, starts, p + 1, MPI_INT64_T, MPI_MAX, comm),
               "MPI_Allreduce (block starts)");
    /* without nonzeros the rule is by rows (no generator makes an empty row) */
    for (int r = 1; r < p; r++)
        if (nnz == 0)
            starts[r] = psl_dist_share(n, r, p);
    starts[0] = 0;
    starts[p] = n;
fail:
    free(rp);
    free(totals);
    free(mine);
    return st;
}

psl_status psl_dist_generate(psl_dist_matrix **A, MPI_Comm comm, const char *spec,
                             psl_dist_balance balance, const psl_convert_options *diag_opt,
                             const psl_convert_options *offd_opt)
{
    if (comm == MPI_COMM_NULL)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: comm is MPI_COMM_NULL", who);
    psl_status st = PSL_OK;
    int rank = 0, p = 1;
    psl_gen_source g = {0, NULL, NULL};
    psl_gen_csr c = {0, 0, NULL, NULL, NULL};
    int64_t *starts = NULL, *ci = NULL;
    if (A)
        *A = NULL;
    PSL_MPI_OK(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(comm, &p), "MPI_Comm_size");
    if (!A)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: A is NULL", who);
    else if (balance != PSL_DIST_BALANCE_NNZ && balance != PSL_DIST_BALANCE_ROWS)
        st = psl_error(PSL_ERR_INVALID_VALUE,
                       "%s: balance %d is neither PSL_DIST_BALANCE_NNZ nor "
                       "PSL_DIST_BALANCE_ROWS",
                       who, (int)balance);
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;

    /* the spec: parsed and checked alike on every rank */
    psl_gen_share share = {rank, p, sum_over_ranks, &comm};
    st = psl_gen_open(&g, spec, &share);
    if (st == PSL_OK)
        st = psl_alloc((void **)&starts, (size_t)p + 1, sizeof *starts, "block starts");
    if ((st = agree_spec(comm, st)) != PSL_OK)
        goto fail;

    if (balance == PSL_DIST_BALANCE_NNZ) {
        if ((st = nnz_starts(&g, comm, rank, p, starts)) != PSL_OK)
            goto fail;
    } else {
        for (int r = 0; r <= p; r++)
            starts[r] = psl_dist_block_start(g.n, NULL, r, p);
    }

    /* this rank's rows, their columns as int64 */
    const int32_t first = (int32_t)starts[rank], last = (int32_t)starts[rank + 1];
    st = psl_gen_build_rows(&c, &g, first, last);
    int64_t nnz = st == PSL_OK ? c.row_ptr[c.nrows] : 0;
    if (st == PSL_OK)
        st = psl_alloc((void **)&ci, nnz > 0 ? (size_t)nnz : 1, sizeof *ci, "columns");
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;
    for (int64_t k = 0; k < nnz; k++)
        ci[k] = c.col_idx[k];
    free(c.col_idx);
    c.col_idx = NULL;
    st = psl_dist_matrix_create_csr(A, comm, g.n, first, last - first, c.row_ptr, ci, c.values,
                                    diag_opt, offd_opt);
fail:
    psl_gen_close(&g);
    psl_gen_csr_free(&c);
    free(starts);
    free(ci);
    return st;
}
