/*
 * dist_spmv_example.c -- the distributed layer in a few lines: each rank
 * generates its box of HPCG's matrix (A_d in PackSELL FP16, A_o in CSR),
 * multiplies A by ones, solves A x = b with Jacobi-PCG and prints what rank 0
 * sees. Run: mpirun -np 4 ./dist_spmv_example. Built against the installed
 * package by .ci/run when the distributed layer was built.
 */
#include <packsell_mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, rc = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    psl_convert_options diag;
    psl_convert_options_init(&diag);
    diag.format = PSL_FORMAT_PACKSELL; /* FP16 values: HPCG's 26 and -1 are exact */
    psl_dist_matrix *A = NULL;
    double *ones = NULL, *b = NULL, *x = NULL;
    if (psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, 16, 16, 16, 0.0, &diag, NULL) != PSL_OK)
        goto done;
    psl_dist_info info;
    psl_dist_matrix_get_info(A, &info);
    ones = malloc((size_t)info.nrows * sizeof *ones);
    b = malloc((size_t)info.nrows * sizeof *b);
    x = calloc((size_t)info.nrows, sizeof *x);
    for (int32_t i = 0; i < info.nrows; i++)
        ones[i] = 1.0;
    psl_dist_pcg_options opt;
    psl_dist_pcg_options_init(&opt);
    psl_dist_pcg_result res;
    if (psl_dist_spmv(1.0, A, ones, 0.0, b, PSL_FP64) != PSL_OK ||
        psl_dist_pcg(A, b, x, &opt, &res) != PSL_OK)
        goto done;
    if (rank == 0)
        printf("%d ranks, %lld rows, rank 0: %d ghosts from %d ranks, %lld bytes sent per "
               "SpMV; PCG: %d iterations, relres %.2e\n",
               info.nranks, (long long)info.n_global, info.nghost, info.recv_neighbors,
               (long long)info.bytes_sent_fp64, res.iterations, res.relres);
    rc = 0;
done:
    if (rc)
        fprintf(stderr, "rank %d: %s\n", rank, psl_last_error_message());
    free(ones);
    free(b);
    free(x);
    psl_dist_matrix_destroy(&A);
    MPI_Finalize();
    return rc;
}
