/* psl_petsc_build.c -- our copy of an assembled SeqAIJ matrix: its CSR
 * arrays (read through the public MatGetRowIJ / MatSeqAIJGetArrayRead) into
 * an FP64 psl CSR matrix, converted to the requested format, and the
 * diagonal as stored (rounded the way the copy's values are). */
#include <string.h>
#include "psl_petsc_impl.h"

/* The stored diagonal of M (min(nrows, ncols) entries, zero where absent),
 * decoded from the copy itself so that Jacobi sees the operator we apply. */
static PetscErrorCode stored_diagonal(MPI_Comm comm, const psl_matrix *M, PetscInt nd, double *d)
{
    psl_matrix *back = NULL;
    const int64_t *rp;
    const int32_t *ci;
    const double *v;

    PetscFunctionBegin;
    PetscCall(PetscArrayzero(d, nd));
    PSL_PETSC_CALL(comm, psl_matrix_to_csr(&back, M));
    if (psl_matrix_csr_view(back, &rp, &ci, &v) != PSL_OK) {
        psl_matrix_destroy(&back);
        SETERRQ(comm, PETSC_ERR_LIB, "packsell: %s", psl_last_error_message());
    }
    for (PetscInt i = 0; i < nd; i++)
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            if (ci[k] == i) d[i] = v[k];
    psl_matrix_destroy(&back);
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode PslPetscBuild(Mat A, const psl_convert_options *opt, psl_matrix **Mout,
                             double **dout, PetscInt *nnzout)
{
    MPI_Comm comm = PetscObjectComm((PetscObject)A);
    PetscInt m = A->rmap->n, n = A->cmap->n, nrow, nd = PetscMin(m, n);
    const PetscInt *ia = NULL, *ja = NULL;
    const PetscScalar *aa = NULL;
    PetscBool done = PETSC_FALSE;
    int64_t *rp = NULL;
    int32_t *ci = NULL;
    psl_matrix *csr = NULL, *M = NULL;
    double *d = NULL;
    psl_status st = PSL_OK;
    PetscInt nnz;

    PetscFunctionBegin;
    *Mout = NULL;
    *dout = NULL;
    *nnzout = 0;
    PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
    PetscCheck(done && nrow == m, comm, PETSC_ERR_PLIB, "packsell: no CSR arrays from the AIJ matrix");
    nnz = ia[m] - ia[0];
    PetscCall(PetscMalloc1(nd > 0 ? nd : 1, &d));
    if (nnz == 0) { /* nothing to store: products are zero, the diagonal too */
        PetscCall(PetscArrayzero(d, nd));
        PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
        *dout = d;
        PetscFunctionReturn(PSL_PETSC_OK);
    }
    PetscCall(MatSeqAIJGetArrayRead(A, &aa));
    PetscCall(PetscMalloc2(m + 1, &rp, nnz, &ci));
    for (PetscInt i = 0; i <= m; i++) rp[i] = (int64_t)(ia[i] - ia[0]);
    for (PetscInt k = 0; k < nnz; k++) ci[k] = (int32_t)ja[ia[0] + k];
    st = psl_matrix_create_csr(&csr, (int32_t)m, (int32_t)n, rp, ci, aa + ia[0], PSL_FP64, 0,
                               PSL_CSR_STRICT);
    if (st == PSL_OK) st = psl_matrix_convert(&M, csr, opt);
    psl_matrix_destroy(&csr);
    PetscCall(PetscFree2(rp, ci));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
    if (st != PSL_OK) PetscCall(PetscFree(d));
    PSL_PETSC_CALL(comm, st);
    {
        PetscErrorCode ierr = stored_diagonal(comm, M, nd, d);
        if (ierr) {
            psl_matrix_destroy(&M);
            PetscCall(PetscFree(d));
            PetscCall(ierr);
        }
    }
    *Mout = M;
    *dout = d;
    *nnzout = nnz;
    PetscFunctionReturn(PSL_PETSC_OK);
}
