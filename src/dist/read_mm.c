/*
 * read_mm.c -- psl_dist_matrix_read_mm: a Matrix Market file read on one
 * rank (psl_mm_read) and its rows scattered to the ranks
 * (psl_dist_matrix_scatter_csr). The reader's verdict is agreed first, so
 * a missing or malformed file fails on every rank with the reader's status
 * and message.
 */
#include "dist/dist_internal.h"

psl_status psl_dist_matrix_read_mm(psl_dist_matrix **A, MPI_Comm comm, const char *path,
                                   int root, psl_dist_balance balance,
                                   const psl_convert_options *diag_opt,
                                   const psl_convert_options *offd_opt)
{
    static const char *who = "psl_dist_matrix_read_mm";
    if (comm == MPI_COMM_NULL)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: comm is MPI_COMM_NULL", who);
    psl_status st = PSL_OK;
    psl_matrix *M = NULL;
    int rank = 0, p = 1;
    if (A)
        *A = NULL;
    PSL_MPI_OK(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    PSL_MPI_OK(MPI_Comm_size(comm, &p), "MPI_Comm_size");
    if (!A)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: A is NULL", who);
    else if (root < 0 || root >= p)
        st = psl_error(PSL_ERR_INVALID_VALUE, "%s: root %d outside 0..%d", who, root, p - 1);
    else if (rank == root && !path)
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: path is NULL on root", who);
    else if (rank == root && (st = psl_mm_read(&M, path)) == PSL_OK) {
        psl_matrix_info info;
        if ((st = psl_matrix_get_info(M, &info)) == PSL_OK && info.nrows != info.ncols)
            st = psl_error(PSL_ERR_UNSUPPORTED,
                           "%s: %.300s is %d x %d; a distributed matrix is square", who, path,
                           (int)info.nrows, (int)info.ncols);
    }
    if ((st = psl_dist_agree(comm, st)) == PSL_OK)
        st = psl_dist_matrix_scatter_csr(A, comm, M, root, balance, diag_opt, offd_opt);
fail:
    psl_matrix_destroy(&M);
    return st;
}
