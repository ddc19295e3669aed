/* psl_petsc_impl.h -- internals of libpacksell_petsc shared by its files:
 * the per-matrix context of a seqpacksell matrix, the status-to-PETSc-error
 * macro and the version guards. */
#ifndef PSL_PETSC_IMPL_H
#define PSL_PETSC_IMPL_H

#include <petsc/private/matimpl.h>
#include <petscpc.h>
#include "packsell.h"
#include "packsell_petsc.h"

/* PETSC_SUCCESS exists from PETSc 3.19; before, success is 0. */
#if PETSC_VERSION_LT(3, 19, 0)
#define PSL_PETSC_OK 0
#else
#define PSL_PETSC_OK PETSC_SUCCESS
#endif

/* A libpacksell status as a PETSc error on comm, with the library's message. */
#define PSL_PETSC_CALL(comm, call)                                                    \
    do {                                                                              \
        psl_status psl_st_ = (call);                                                  \
        if (psl_st_ != PSL_OK)                                                        \
            SETERRQ((comm),                                                           \
                    psl_st_ == PSL_ERR_OUT_OF_MEMORY  ? PETSC_ERR_MEM                 \
                    : psl_st_ == PSL_ERR_INVALID_VALUE ? PETSC_ERR_ARG_OUTOFRANGE     \
                                                       : PETSC_ERR_LIB,               \
                    "packsell: %s: %s", psl_status_string(psl_st_),                   \
                    psl_last_error_message());                                        \
    } while (0)

/* Context of a seqpacksell matrix (Mat->spptr; Mat->data stays Mat_SeqAIJ). */
typedef struct PslSeqCtx {
    psl_matrix *M;           /* the copy in our format; NULL: none or no nonzeros */
    double *diag;            /* min(m, n) stored diagonal values of the copy */
    PetscBool built;         /* M and diag describe the values of `state` */
    PetscObjectState state;  /* object state the copy was built for */
    PetscBool opt_given;     /* opt set by the parent MPI matrix (else parsed) */
    psl_convert_options opt; /* storage of the copy */
    PetscInt nnz;            /* nonzeros of the copy (flop count) */
} PslSeqCtx;

/* Parse the -mat_packsell_* options of obj (its prefix and database) into
 * *opt (defaults first). Bad values: PETSC_ERR_ARG_OUTOFRANGE. */
PETSC_INTERN PetscErrorCode PslPetscParseOptions(PetscObject obj, psl_convert_options *opt);

/* Build our copy of the assembled SeqAIJ matrix A: *M (NULL when A has no
 * nonzeros), the stored diagonal *diag (min(m,n) entries, PetscMalloc'd),
 * *nnz. Nothing is allocated on error. */
PETSC_INTERN PetscErrorCode PslPetscBuild(Mat A, const psl_convert_options *opt,
                                          psl_matrix **M, double **diag, PetscInt *nnz);

/* Make the SeqAIJ matrix A a seqpacksell in place (no-op when it is one).
 * opt: the storage pushed by a parent MPI matrix, or NULL (A's own options).
 * An assembled A gets its copy now. */
PETSC_INTERN PetscErrorCode PslSeqConvertInPlace(Mat A, const psl_convert_options *opt);

/* Rebuild the copy of seqpacksell A if its values changed since it was built
 * (force: rebuild anyway). */
PETSC_INTERN PetscErrorCode PslSeqRefresh(Mat A, PetscBool force);

/* Set the storage options of seqpacksell A (a block of an MPI matrix). */
PETSC_INTERN PetscErrorCode PslSeqSetOptions(Mat A, const psl_convert_options *opt);

PETSC_INTERN PetscErrorCode MatCreate_SeqPackSELL(Mat A);
PETSC_INTERN PetscErrorCode MatCreate_MPIPackSELL(Mat A);
PETSC_INTERN PetscErrorCode MatCreate_PackSELL(Mat A);
PETSC_INTERN PetscErrorCode PCCreate_PackSELL(PC pc);

#endif
