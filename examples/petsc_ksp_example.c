/* petsc_ksp_example.c -- a KSP solve of the 2D Laplacian with the PETSc
 * matrix type of libpacksell_petsc chosen by options:
 *   mpiexec -np 2 ./petsc_ksp_example -mat_type mpipacksell -ksp_type cg \
 *       -pc_type jacobi -mat_packsell_format packsell -ksp_monitor
 * (-n N: grid N x N, default 64). Any -mat_type works (aij to compare). */
#include <petscksp.h>
#include "packsell_petsc.h"

int main(int argc, char **argv)
{
    Mat A;
    Vec x, b;
    KSP ksp;
    PetscInt n = 64, lo, hi, its;
    MatType type;
    PetscReal rnorm;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PslPetscRegister()); /* seqpacksell, mpipacksell, packsell */
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
    PetscCall(MatSetType(A, MATMPIPACKSELL)); /* the default; -mat_type overrides */
    PetscCall(MatSetFromOptions(A));
    PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
    PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 2, NULL));
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) { /* 4 on the diagonal, -1 to the grid neighbours */
        PetscInt gx = i % n, gy = i / n;
        if (gy > 0) PetscCall(MatSetValue(A, i, i - n, -1.0, INSERT_VALUES));
        if (gx > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
        PetscCall(MatSetValue(A, i, i, 4.0, INSERT_VALUES));
        if (gx < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
        if (gy < n - 1) PetscCall(MatSetValue(A, i, i + n, -1.0, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    PetscCall(MatGetType(A, &type));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d iterations, residual norm %g\n", type, (int)its,
                          (double)rnorm));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
}
