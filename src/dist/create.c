/*
 * create.c -- psl_dist_matrix_create_csr: checks of each rank's rows, the
 * collective check of the row blocks, then the split into A_d and A_o
 * (split.c) and the halo plan (halo_plan.c). Every step that can fail on
 * one rank is followed by an agreement, so all ranks fail together.
 */
#include "dist/dist_internal.h"

#include <math.h>
#include <stdlib.h>

static const char *who = "psl_dist_matrix_create_csr";

static psl_status check_options(const psl_convert_options *opt, const char *block)
{
    if (opt && opt->permute == PSL_PERMUTE_EXPLICIT && opt->format != PSL_FORMAT_CSR &&
        opt->format != PSL_FORMAT_CSRK && opt->sigma > 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: %s: an explicit sigma permutation is refused (its products "
                         "come out in stored row order); use PSL_PERMUTE_IMPLICIT",
                         who, block);
    if (opt && opt->csrk_reorder != PSL_CSRK_REORDER_NONE)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: %s: a CSR-k locality reordering is refused (a rank's blocks "
                         "are not square and share x); use PSL_CSRK_REORDER_NONE",
                         who, block);
    return PSL_OK;
}

/* This rank's own arguments. */
static psl_status check_local(psl_dist_matrix **A, int64_t n_global, int64_t first_row,
                              int32_t nrows, const int64_t *row_ptr, const int64_t *col_idx,
                              const double *values, const psl_convert_options *diag_opt,
                              const psl_convert_options *offd_opt)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: A is NULL", who);
    if (n_global < 0 || nrows < 0 || first_row < 0 || first_row > n_global - nrows)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: rows [%lld, %lld + %d) are not inside 0..n_global-1 = %lld", who,
                         (long long)first_row, (long long)first_row, (int)nrows,
                         (long long)n_global - 1);
    if (!row_ptr)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: row_ptr is NULL", who);
    if (row_ptr[0] != 0)
        return psl_error(PSL_ERR_INVALID_MATRIX, "%s: row_ptr[0] = %lld, expected 0", who,
                         (long long)row_ptr[0]);
    for (int32_t i = 0; i < nrows; i++)
        if (row_ptr[i + 1] < row_ptr[i])
            return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, first_row + i, -1,
                                "%s: row_ptr decreases at global row %lld", who,
                                (long long)(first_row + i));
    int64_t nnz = row_ptr[nrows];
    if (nnz > 0 && (!col_idx || !values))
        return psl_error(PSL_ERR_NULL_POINTER, "%s: col_idx or values is NULL", who);
    for (int32_t i = 0; i < nrows; i++)
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            if (col_idx[k] < 0 || col_idx[k] >= n_global)
                return psl_error_at(PSL_ERR_INVALID_MATRIX, -1, first_row + i, col_idx[k],
                                    "%s: global row %lld: column %lld outside 0..%lld", who,
                                    (long long)(first_row + i), (long long)col_idx[k],
                                    (long long)n_global - 1);
            if (!isfinite(values[k]))
                return psl_error_at(PSL_ERR_NONFINITE, -1, first_row + i, col_idx[k],
                                    "%s: global row %lld, column %lld: value %g", who,
                                    (long long)(first_row + i), (long long)col_idx[k],
                                    values[k]);
        }
    PSL_TRY(check_options(diag_opt, "diag_opt"));
    PSL_TRY(check_options(offd_opt, "offd_opt"));
    return PSL_OK;
}

/* The blocks of all ranks: contiguous in rank order, covering 0..n-1, the
 * same n everywhere. Every rank sees the same gathered data: same verdict. */
static psl_status check_blocks(const int64_t *all, int p, int64_t *starts)
{
    int64_t n = all[0];
    int64_t next = 0;
    for (int r = 0; r < p; r++) {
        const int64_t *b = all + 3 * r; /* n_global, first_row, nrows */
        if (b[0] != n)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "%s: n_global differs across ranks (rank 0: %lld, rank %d: %lld)",
                             who, (long long)n, r, (long long)b[0]);
        if (b[1] != next)
            return psl_error(PSL_ERR_INVALID_VALUE,
                             "%s: row blocks not contiguous in rank order: rank %d starts at "
                             "row %lld, expected %lld",
                             who, r, (long long)b[1], (long long)next);
        starts[r] = next;
        next += b[2];
    }
    if (next != n)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "%s: the row blocks cover rows 0..%lld, not all %lld rows", who,
                         (long long)next - 1, (long long)n);
    starts[p] = n;
    return PSL_OK;
}

psl_status psl_dist_buffers(psl_dist_matrix *M, const char *caller)
{
    /* SpMV buffers for the widest entry (FP64), the dot products' gather */
    int64_t nsend = M->plan.send_off[M->plan.nsend];
    M->send_buf = malloc(nsend > 0 ? (size_t)nsend * 8 : 1);
    M->ghost_buf = malloc(M->nghost > 0 ? (size_t)M->nghost * 8 : 1);
    M->reqs = malloc(((size_t)M->plan.nrecv + M->plan.nsend + 1) * sizeof *M->reqs);
    M->dots_buf = malloc((size_t)M->nranks * (PSL_DIST_SUM_MAX + 1) * sizeof *M->dots_buf);
    M->sum_mine = malloc((PSL_DIST_SUM_MAX + 1) * sizeof *M->sum_mine);
    if (!M->send_buf || !M->ghost_buf || !M->reqs || !M->dots_buf || !M->sum_mine)
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "%s: out of memory (halo buffers)", caller);
    return PSL_OK;
}

psl_status psl_dist_matrix_create_csr(psl_dist_matrix **A, MPI_Comm comm, int64_t n_global,
                                      int64_t first_row, int32_t nrows, const int64_t *row_ptr,
                                      const int64_t *col_idx, const double *values,
                                      const psl_convert_options *diag_opt,
                                      const psl_convert_options *offd_opt)
{
    if (comm == MPI_COMM_NULL)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: comm is MPI_COMM_NULL", who);
    psl_status st = PSL_OK;
    psl_dist_matrix *M = NULL;
    int64_t *all = NULL;
    int rank = 0, p = 1;
    if (A)
        *A = NULL;
    PSL_MPI_OK(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(comm, &p), "MPI_Comm_size");

    st = check_local(A, n_global, first_row, nrows, row_ptr, col_idx, values, diag_opt, offd_opt);
    if (st == PSL_OK) {
        M = calloc(1, sizeof *M);
        if (M) {
            M->comm = MPI_COMM_NULL;
            M->starts = malloc(((size_t)p + 1) * sizeof *M->starts);
        }
        all = malloc((size_t)p * 3 * sizeof *all);
        if (!M || !M->starts || !all)
            st = psl_error(PSL_ERR_OUT_OF_MEMORY, "%s: out of memory (%d ranks)", who, p);
    }
    if ((st = psl_dist_agree(comm, st)) != PSL_OK)
        goto fail;

    int64_t mine[3] = {n_global, first_row, nrows};
    PSL_MPI_OK(MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, comm), "MPI_Allgather");
    if ((st = check_blocks(all, p, M->starts)) != PSL_OK)
        goto fail;

    M->magic = PSL_DIST_MAGIC;
    PSL_MPI_OK(MPI_Comm_dup(comm, &M->comm), "MPI_Comm_dup");
    M->rank = rank;
    M->nranks = p;
    M->n_global = n_global;
    M->first_row = first_row;
    M->nrows = nrows;

    st = psl_dist_split(M, row_ptr, col_idx, values, diag_opt, offd_opt);
    if ((st = psl_dist_agree(M->comm, st)) != PSL_OK)
        goto fail;
    if ((st = psl_dist_halo_plan(M)) != PSL_OK)
        goto fail;

    if ((st = psl_dist_agree(M->comm, psl_dist_buffers(M, who))) != PSL_OK)
        goto fail;

    int64_t nnz_local = M->nnz_d + M->nnz_o;
    PSL_MPI_OK(MPI_Allreduce(&nnz_local, &M->nnz_global, 1, MPI_INT64_T, MPI_SUM, M->comm),
           "MPI_Allreduce");
    free(all);
    *A = M;
    return PSL_OK;
fail:
    free(all);
    if (M && M->magic == PSL_DIST_MAGIC) {
        psl_dist_matrix_destroy(&M);
    } else if (M) {
        free(M->starts);
        free(M);
    }
    return st;
}
