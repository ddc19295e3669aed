/* packsell_petsc.h -- PETSc matrix types backed by libpacksell (the plugin
 * library libpacksell_petsc, built when PETSc is found).
 *
 * Types (after PslPetscRegister):
 *   seqpacksell  a MATSEQAIJ whose MatMult, MatMultAdd and MatGetDiagonal run
 *                on a copy of the matrix in one of our formats;
 *   mpipacksell  a MATMPIAIJ whose diagonal block A_d and off-diagonal block
 *                A_o (columns compressed through garray) are seqpacksell, so
 *                MatMult overlaps the halo scatter with y = A_d x as
 *                MatMult_MPIAIJ does, then adds A_o x_ghost;
 *   packsell     seqpacksell on one process, mpipacksell otherwise (as aij).
 * Assembly is PETSc's AIJ assembly (MatSetValues, preallocation, MatSetUp).
 * The copy is built at MAT_FINAL_ASSEMBLY and rebuilt whenever the matrix's
 * object state has changed since (new values, MatZeroEntries, MatScale ...),
 * so a product never reads stale values. Every other operation is AIJ's.
 *
 * Options (the matrix's prefix applies), read each time a copy is built:
 *   -mat_packsell_format packsell|sell|csr|csrk     default packsell
 *   -mat_packsell_values NAME   stored values: a codec for packsell
 *                        (fp16, bf16, eXmY; default fp16), else a scalar
 *                        type fp64|fp32|fp16|bf16 (default fp64; csr takes
 *                        fp64|fp32, csrk fp64|fp32|fp16)
 *   -mat_packsell_slice_height C   SELL/PackSELL slice height (default 32)
 *   -mat_packsell_sigma S          sorting window, 0 or a multiple of C (256)
 *   -mat_packsell_csrk_k K         CSR-k levels 1..3 (default 3)
 * A bad value is a PETSc error (PETSC_ERR_ARG_OUTOFRANGE) at assembly, with
 * the library's message; nothing aborts. A matrix value the chosen storage
 * cannot hold (beyond FP16's range, NaN) is a PETSc error (PETSC_ERR_LIB). */
#ifndef PACKSELL_PETSC_H
#define PACKSELL_PETSC_H

#include <petscmat.h>
#include <petscpc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MATSEQPACKSELL "seqpacksell"
#define MATMPIPACKSELL "mpipacksell"
#define MATPACKSELL "packsell"

/* The preconditioner packsell (-pc_type packsell): on each process, a fixed
 * number of our CG (or GMRES) iterations with Jacobi on the process's
 * diagonal block, stored in PackSELL E8M14 (IO-CG's inner solve; block
 * Jacobi across processes). It changes with its input: use it under a
 * flexible KSP (KSPFCG, KSPFGMRES). Options, read at PCSetUp:
 *   -pc_packsell_iters M (default 8), -pc_packsell_method cg|gmres (cg),
 *   -pc_packsell_format / -pc_packsell_values (as -mat_packsell_*; default
 *   packsell e8m14). */
#define PCPACKSELL "packsell"

/* Register the three matrix types with MatRegister (and the root name
 * packsell) and the preconditioner packsell with PCRegister. Call after PetscInitialize; calling again is a no-op. */
PETSC_EXTERN PetscErrorCode PslPetscRegister(void);

/* The same, under the name PETSc calls when it loads the library as a
 * dynamic plugin (-dll_append /path/libpacksell_petsc.so). */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_packsell_petsc(void);

#ifdef __cplusplus
}
#endif
#endif
