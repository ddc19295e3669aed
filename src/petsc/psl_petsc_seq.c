/* psl_petsc_seq.c -- the seqpacksell matrix type: a MATSEQAIJ (its data,
 * assembly and every other operation unchanged) with a copy in one of our
 * formats for MatMult, MatMultAdd and MatGetDiagonal. The copy is rebuilt
 * when the object state differs from the one it was built for, so changed
 * values (re-assembly, MatZeroEntries, MatScale, MatShift ...) never leave
 * a stale copy behind. */
#include "psl_petsc_impl.h"

/* SeqAIJ's own operations, taken from the first matrix converted (every
 * SeqAIJ matrix has the same ones). */
static PetscErrorCode (*aij_destroy)(Mat);
static PetscErrorCode (*aij_assemblyend)(Mat, MatAssemblyType);

static PetscErrorCode SeqDrop(PslSeqCtx *c)
{
    PetscFunctionBegin;
    psl_matrix_destroy(&c->M);
    PetscCall(PetscFree(c->diag));
    c->built = PETSC_FALSE;
    c->nnz = 0;
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* Build the copy for the current values; it stands for object state `state`. */
static PetscErrorCode SeqBuild(Mat A, PetscObjectState state)
{
    PslSeqCtx *c = (PslSeqCtx *)A->spptr;
    psl_convert_options opt;

    PetscFunctionBegin;
    PetscCall(SeqDrop(c));
    if (c->opt_given) opt = c->opt;
    else PetscCall(PslPetscParseOptions((PetscObject)A, &opt));
    PetscCall(PslPetscBuild(A, &opt, &c->M, &c->diag, &c->nnz));
    c->opt = opt;
    c->state = state;
    c->built = PETSC_TRUE;
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode PslSeqRefresh(Mat A, PetscBool force)
{
    PslSeqCtx *c = (PslSeqCtx *)A->spptr;
    PetscObjectState state;

    PetscFunctionBegin;
    PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Not for unassembled matrix");
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    if (force || !c->built || c->state != state) PetscCall(SeqBuild(A, state));
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode PslSeqSetOptions(Mat A, const psl_convert_options *opt)
{
    PslSeqCtx *c = (PslSeqCtx *)A->spptr;

    PetscFunctionBegin;
    c->opt = *opt;
    c->opt_given = PETSC_TRUE;
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* y = alpha A x + beta y with the copy (y already holds what beta scales). */
static PetscErrorCode SeqApply(Mat A, Vec x, double beta, Vec y)
{
    PslSeqCtx *c;
    const PetscScalar *xa;
    PetscScalar *ya;
    psl_status st = PSL_OK;

    PetscFunctionBegin;
    PetscCall(PslSeqRefresh(A, PETSC_FALSE));
    c = (PslSeqCtx *)A->spptr;
    PetscCall(VecGetArrayRead(x, &xa));
    if (beta == 0.0) PetscCall(VecGetArrayWrite(y, &ya));
    else PetscCall(VecGetArray(y, &ya));
    if (c->M) st = psl_spmv(1.0, c->M, xa, beta, ya, PSL_FP64);
    else if (beta == 0.0) PetscCall(PetscArrayzero(ya, A->rmap->n));
    if (beta == 0.0) PetscCall(VecRestoreArrayWrite(y, &ya));
    else PetscCall(VecRestoreArray(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PSL_PETSC_CALL(PETSC_COMM_SELF, st);
    PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)c->nnz - (beta == 0.0 ? A->rmap->n : 0)));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatMult_SeqPackSELL(Mat A, Vec x, Vec y)
{
    PetscFunctionBegin;
    PetscCall(SeqApply(A, x, 0.0, y));
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* z = y + A x */
static PetscErrorCode MatMultAdd_SeqPackSELL(Mat A, Vec x, Vec y, Vec z)
{
    PetscFunctionBegin;
    if (y != z) PetscCall(VecCopy(y, z));
    PetscCall(SeqApply(A, x, 1.0, z));
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* The diagonal as the copy stores it (rows past the last column: 0). */
static PetscErrorCode MatGetDiagonal_SeqPackSELL(Mat A, Vec v)
{
    PslSeqCtx *c;
    PetscScalar *va;
    PetscInt nd = PetscMin(A->rmap->n, A->cmap->n);

    PetscFunctionBegin;
    PetscCall(PslSeqRefresh(A, PETSC_FALSE));
    c = (PslSeqCtx *)A->spptr;
    PetscCall(VecGetArrayWrite(v, &va));
    PetscCall(PetscArrayzero(va, A->rmap->n));
    PetscCall(PetscArraycpy(va, c->diag, nd));
    PetscCall(VecRestoreArrayWrite(v, &va));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatDestroy_SeqPackSELL(Mat A)
{
    PslSeqCtx *c = (PslSeqCtx *)A->spptr;

    PetscFunctionBegin;
    if (c) {
        PetscCall(SeqDrop(c));
        PetscCall(PetscFree(A->spptr));
    }
    PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
    PetscCall((*aij_destroy)(A));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static void SeqSetOps(Mat A)
{
    A->ops->destroy = MatDestroy_SeqPackSELL;
    A->ops->mult = MatMult_SeqPackSELL;
    A->ops->multadd = MatMultAdd_SeqPackSELL;
    A->ops->getdiagonal = MatGetDiagonal_SeqPackSELL;
}

static PetscErrorCode MatAssemblyEnd_SeqPackSELL(Mat A, MatAssemblyType mode)
{
    PetscObjectState state;

    PetscFunctionBegin;
    PetscCall((*aij_assemblyend)(A, mode));
    SeqSetOps(A); /* AIJ's assembly may choose other mult kernels (inodes) */
    if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PSL_PETSC_OK);
    /* MatAssemblyEnd raises the object state once this returns: the copy
     * stands for that state (if it does not, the first product rebuilds). */
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    PetscCall(SeqBuild(A, state + 1));
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode PslSeqConvertInPlace(Mat A, const psl_convert_options *opt)
{
    PetscBool same;
    PslSeqCtx *c;

    PetscFunctionBegin;
    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQPACKSELL, &same));
    if (same) PetscFunctionReturn(PSL_PETSC_OK);
    PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_SUP, "packsell: %s needs a seqaij matrix, not %s",
               MATSEQPACKSELL, ((PetscObject)A)->type_name);
    if (!aij_destroy) {
        aij_destroy = A->ops->destroy;
        aij_assemblyend = A->ops->assemblyend;
    }
    PetscCall(PetscNew(&c));
    A->spptr = c;
    if (opt) PetscCall(PslSeqSetOptions(A, opt));
    SeqSetOps(A);
    A->ops->assemblyend = MatAssemblyEnd_SeqPackSELL;
    PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQPACKSELL));
    if (A->assembled) PetscCall(PslSeqRefresh(A, PETSC_TRUE));
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode MatCreate_SeqPackSELL(Mat A)
{
    PetscFunctionBegin;
    PetscCall(MatSetType(A, MATSEQAIJ));
    PetscCall(PslSeqConvertInPlace(A, NULL));
    PetscFunctionReturn(PSL_PETSC_OK);
}
