/* psl_petsc_mpi.c -- the mpipacksell matrix type: a MATMPIAIJ whose
 * diagonal block A_d and off-diagonal block A_o (its columns compressed to
 * the ghost columns, garray) are seqpacksell matrices. MatMult stays
 * MPIAIJ's: begin the scatter of x's ghost values into lvec, y = A_d x (our
 * SpMV), end the scatter, y += A_o lvec (our SpMV) -- the overlap of
 * MatMult_MPIAIJ, through the blocks' operations. This file makes sure the
 * blocks are ours after every assembly (PETSc recreates A_o as plain SeqAIJ
 * at preallocation) and rebuilds their copies when the parallel matrix's
 * values changed by a path that bypasses the blocks' own state. */
#include "psl_petsc_impl.h"

typedef struct PslMPICtx {
    PetscBool synced;       /* the blocks are ours and current for `state` */
    PetscObjectState state; /* object state of the parallel matrix they stand for */
} PslMPICtx;

/* MPIAIJ's own operations (the same for every MPIAIJ matrix). */
static PetscErrorCode (*mpi_destroy)(Mat);
static PetscErrorCode (*mpi_assemblyend)(Mat, MatAssemblyType);
static PetscErrorCode (*mpi_mult)(Mat, Vec, Vec);
static PetscErrorCode (*mpi_multadd)(Mat, Vec, Vec, Vec);
static PetscErrorCode (*mpi_getdiagonal)(Mat, Vec);

/* The blocks through the public MatMPIAIJGetSeqAIJ, which checks that the
 * type name begins with "mpiaij": the name is shown as mpiaij for the call
 * (the data is MPIAIJ's). */
static PetscErrorCode MPIBlocks(Mat A, Mat *Ad, Mat *Ao)
{
    char *name = ((PetscObject)A)->type_name;
    char aij[] = MATMPIAIJ;
    PetscErrorCode ierr;

    PetscFunctionBegin;
    ((PetscObject)A)->type_name = aij;
    ierr = MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL);
    ((PetscObject)A)->type_name = name;
    PetscCall(ierr);
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* Blocks ours, with the parallel matrix's options, their copies current;
 * force: rebuild the copies. The copies then stand for state `state`. */
static PetscErrorCode MPISync(Mat A, PetscBool force, PetscObjectState state)
{
    PslMPICtx *c = (PslMPICtx *)A->spptr;
    psl_convert_options opt;
    Mat blk[2];

    PetscFunctionBegin;
    PetscCall(PslPetscParseOptions((PetscObject)A, &opt));
    PetscCall(MPIBlocks(A, &blk[0], &blk[1]));
    for (int b = 0; b < 2; b++) {
        PetscCall(PslSeqConvertInPlace(blk[b], &opt));
        PetscCall(PslSeqSetOptions(blk[b], &opt));
        PetscCall(PslSeqRefresh(blk[b], force));
    }
    c->state = state;
    c->synced = PETSC_TRUE;
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* Before a product: rebuild the blocks if the parallel matrix changed. */
static PetscErrorCode MPICheck(Mat A)
{
    PslMPICtx *c = (PslMPICtx *)A->spptr;
    PetscObjectState state;

    PetscFunctionBegin;
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    if (!c->synced || c->state != state) PetscCall(MPISync(A, PETSC_TRUE, state));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatMult_MPIPackSELL(Mat A, Vec x, Vec y)
{
    PetscFunctionBegin;
    PetscCall(MPICheck(A));
    PetscCall((*mpi_mult)(A, x, y));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatMultAdd_MPIPackSELL(Mat A, Vec x, Vec y, Vec z)
{
    PetscFunctionBegin;
    PetscCall(MPICheck(A));
    PetscCall((*mpi_multadd)(A, x, y, z));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatGetDiagonal_MPIPackSELL(Mat A, Vec v)
{
    PetscFunctionBegin;
    PetscCall(MPICheck(A));
    PetscCall((*mpi_getdiagonal)(A, v));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatAssemblyEnd_MPIPackSELL(Mat A, MatAssemblyType mode)
{
    PetscObjectState state;

    PetscFunctionBegin;
    PetscCall((*mpi_assemblyend)(A, mode));
    if (mode == MAT_FLUSH_ASSEMBLY) PetscFunctionReturn(PSL_PETSC_OK);
    /* the blocks' copies were built in their own assembly (or are built
     * now); MatAssemblyEnd raises A's state once this returns */
    PetscCall(PetscObjectStateGet((PetscObject)A, &state));
    PetscCall(MPISync(A, PETSC_FALSE, state + 1));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode MatDestroy_MPIPackSELL(Mat A)
{
    PetscFunctionBegin;
    PetscCall(PetscFree(A->spptr));
    PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIAIJ));
    PetscCall((*mpi_destroy)(A));
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode MatCreate_MPIPackSELL(Mat A)
{
    PslMPICtx *c;

    PetscFunctionBegin;
    PetscCall(MatSetType(A, MATMPIAIJ));
    if (!mpi_destroy) {
        mpi_destroy = A->ops->destroy;
        mpi_assemblyend = A->ops->assemblyend;
        mpi_mult = A->ops->mult;
        mpi_multadd = A->ops->multadd;
        mpi_getdiagonal = A->ops->getdiagonal;
    }
    PetscCall(PetscNew(&c));
    A->spptr = c;
    A->ops->destroy = MatDestroy_MPIPackSELL;
    A->ops->assemblyend = MatAssemblyEnd_MPIPackSELL;
    A->ops->mult = MatMult_MPIPackSELL;
    A->ops->multadd = MatMultAdd_MPIPackSELL;
    A->ops->getdiagonal = MatGetDiagonal_MPIPackSELL;
    PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATMPIPACKSELL));
    PetscFunctionReturn(PSL_PETSC_OK);
}
