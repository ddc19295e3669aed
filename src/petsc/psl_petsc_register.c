/* psl_petsc_register.c -- registers seqpacksell, mpipacksell and packsell
 * (seq on one process, mpi otherwise) with PETSc's matrix type list, and
 * the preconditioner packsell with its PC list. */
#include "psl_petsc_impl.h"

/* packsell: the type for the communicator's size, as aij does. */
PetscErrorCode MatCreate_PackSELL(Mat A)
{
    PetscMPIInt size;

    PetscFunctionBegin;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
    PetscCall(MatSetType(A, size == 1 ? MATSEQPACKSELL : MATMPIPACKSELL));
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscBool registered = PETSC_FALSE;

/* PetscFinalize empties the type list: register again after a new PetscInitialize. */
static PetscErrorCode Forget(void)
{
    registered = PETSC_FALSE;
    return PSL_PETSC_OK;
}

PetscErrorCode PslPetscRegister(void)
{
    PetscFunctionBegin;
    if (registered) PetscFunctionReturn(PSL_PETSC_OK);
    PetscCall(MatRegister(MATSEQPACKSELL, MatCreate_SeqPackSELL));
    PetscCall(MatRegister(MATMPIPACKSELL, MatCreate_MPIPackSELL));
    PetscCall(MatRegister(MATPACKSELL, MatCreate_PackSELL));
    PetscCall(MatRegisterRootName(MATPACKSELL, MATSEQPACKSELL, MATMPIPACKSELL));
    PetscCall(PCRegister(PCPACKSELL, PCCreate_PackSELL));
    PetscCall(PetscRegisterFinalize(Forget));
    registered = PETSC_TRUE;
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode PetscDLLibraryRegister_packsell_petsc(void)
{
    return PslPetscRegister();
}
