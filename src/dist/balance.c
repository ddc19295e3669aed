/*
 * balance.c -- contiguous row blocks for the ranks, balanced by rows or by
 * nonzeros (psl_dist_balance_rows).
 */
#include "dist/dist_internal.h"

/* First row i in [0, n] with row_ptr[i] - row_ptr[0] >= target. */
static int64_t lower_row(const int64_t *row_ptr, int64_t n, int64_t target)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (row_ptr[mid] - row_ptr[0] >= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int64_t psl_dist_share(int64_t total, int r, int p)
{
    return (int64_t)r * (total / p) + (int64_t)r * (total % p) / p;
}

/* Start of rank r's block (dist_internal.h). */
int64_t psl_dist_block_start(int64_t n, const int64_t *row_ptr, int r, int p)
{
    if (r >= p)
        return n;
    if (r == 0)
        return 0;
    int64_t nnz = row_ptr ? row_ptr[n] - row_ptr[0] : 0;
    if (!row_ptr || nnz == 0)
        return psl_dist_share(n, r, p);
    return lower_row(row_ptr, n, psl_dist_share(nnz, r, p));
}

psl_status psl_dist_balance_rows(MPI_Comm comm, int64_t n_global, const int64_t *row_ptr,
                                 int64_t *first_row, int32_t *nrows)
{
    static const char *who = "psl_dist_balance_rows";
    if (comm == MPI_COMM_NULL)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: comm is MPI_COMM_NULL", who);
    psl_status st = PSL_OK;
    int rank = 0, p = 1;
    PSL_MPI_OK(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(comm, &p), "MPI_Comm_size");
    if (!first_row || !nrows)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: first_row or nrows is NULL", who);
    else if (n_global < 0)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: n_global = %lld < 0", who,
                       (long long)n_global);
    else if (row_ptr) {
        for (int64_t i = 0; i < n_global; i++)
            if (row_ptr[i + 1] < row_ptr[i]) {
                st = psl_error_at(PSL_ERR_INVALID_VALUE, -1, i, -1,
                                  "%s: row_ptr decreases at row %lld", who, (long long)i);
                break;
            }
    }
    /* the same n_global everywhere: min and max in one reduction */
    int64_t in[2] = {n_global, -n_global}, out[2];
    PSL_MPI_OK(MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce");
    if (st == PSL_OK && out[0] != -out[1])
        st = psl_error(PSL_ERR_INVALID_VALUE,
                       "%s: n_global differs across ranks (%lld to %lld)", who,
                       (long long)out[0], (long long)-out[1]);
    st = psl_dist_agree(comm, st);
    if (st != PSL_OK)
        return st;
    /* every rank computes every block: the same verdict everywhere */
    for (int r = 0; r < p; r++) {
        int64_t len = psl_dist_block_start(n_global, row_ptr, r + 1, p) -
                      psl_dist_block_start(n_global, row_ptr, r, p);
        if (len > INT32_MAX)
            return psl_error(PSL_ERR_SIZE_OVERFLOW,
                             "%s: rank %d would own %lld rows, beyond int32 (use more ranks)",
                             who, r, (long long)len);
    }
    int64_t s = psl_dist_block_start(n_global, row_ptr, rank, p);
    *first_row = s;
    *nrows = (int32_t)(psl_dist_block_start(n_global, row_ptr, rank + 1, p) - s);
    return PSL_OK;
fail:
    return st;
}
