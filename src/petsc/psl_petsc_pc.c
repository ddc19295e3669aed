/* psl_petsc_pc.c -- the PETSc preconditioner packsell (PCPACKSELL): on each
 * process, a fixed number of our CG (or GMRES) iterations with Jacobi on its
 * diagonal block of the preconditioning matrix, stored in PackSELL (codec
 * E8M14 by default, IO-CG's inner layer) -- the inner solve of inner-outer
 * CG, block Jacobi across processes. It varies with its input (a Krylov
 * solve), so the outer KSP must be flexible: KSPFCG or KSPFGMRES.
 * Options (the PC's prefix applies), read at PCSetUp:
 *   -pc_packsell_iters M           inner iterations (default 8)
 *   -pc_packsell_method cg|gmres   inner solver (default cg; cg needs an SPD block)
 *   -pc_packsell_format, -pc_packsell_values   the block's storage as
 *                                  -mat_packsell_* (default packsell e8m14) */
#include <string.h>
#include <petsc/private/pcimpl.h>
#include "psl_petsc_impl.h"

typedef struct PslPCCtx {
    psl_exec *ex;
    psl_matrix *csr, *inner; /* FP64 CSR of the block (Jacobi), its inner storage */
    psl_op *opA, *jac;
    psl_solver *solver;
    PetscInt n;
} PslPCCtx;

static void PCDrop(PslPCCtx *c)
{
    psl_solver_destroy(&c->solver);
    psl_op_destroy(&c->jac);
    psl_op_destroy(&c->opA);
    psl_matrix_destroy(&c->inner);
    psl_matrix_destroy(&c->csr);
    psl_exec_destroy(&c->ex);
}

/* The block's storage: -pc_packsell_format/-values, parsed as the matrix's. */
static PetscErrorCode PCStorage(PC pc, psl_convert_options *opt)
{
    PetscObject o = (PetscObject)pc;
    char name[64];
    PetscBool set;

    PetscFunctionBegin;
    psl_convert_options_init(opt);
    opt->format = PSL_FORMAT_PACKSELL;
    opt->codec.exp_bits = 8;
    opt->codec.man_bits = 14;
    PetscCall(PetscOptionsGetString(o->options, o->prefix, "-pc_packsell_format", name, sizeof name, &set));
    if (set && psl_format_parse(name, &opt->format) != PSL_OK)
        SETERRQ(PetscObjectComm(o), PETSC_ERR_ARG_OUTOFRANGE, "-pc_packsell_format %s: %s", name,
                psl_last_error_message());
    PetscCall(PetscOptionsGetString(o->options, o->prefix, "-pc_packsell_values", name, sizeof name, &set));
    if (set) {
        psl_status st = opt->format == PSL_FORMAT_PACKSELL ? psl_codec_parse(name, &opt->codec)
                                                          : psl_scalar_parse(name, &opt->value_type);
        if (st == PSL_OK && opt->format == PSL_FORMAT_PACKSELL) st = psl_codec_check(opt->codec);
        PetscCheck(st == PSL_OK, PetscObjectComm(o), PETSC_ERR_ARG_OUTOFRANGE, "-pc_packsell_values %s: %s",
                   name, psl_last_error_message());
    }
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode PCSetUp_PackSELL(PC pc)
{
    PslPCCtx *c = (PslPCCtx *)pc->data;
    PetscObject o = (PetscObject)pc;
    MPI_Comm comm = PetscObjectComm(o);
    psl_convert_options csr_opt, opt;
    psl_solver_options sopt;
    psl_method method = PSL_METHOD_CG;
    PetscInt iters = 8, nnz;
    double *diag = NULL;
    char name[16];
    PetscBool set, seq;
    Mat blk;

    PetscFunctionBegin;
    PetscCall(PetscOptionsGetInt(o->options, o->prefix, "-pc_packsell_iters", &iters, NULL));
    PetscCheck(iters >= 1 && iters <= PSL_GMRES_RESTART_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "-pc_packsell_iters %d: must be 1..%d", (int)iters, PSL_GMRES_RESTART_MAX);
    PetscCall(PetscOptionsGetString(o->options, o->prefix, "-pc_packsell_method", name, sizeof name, &set));
    if (set) {
        if (!strcmp(name, "gmres")) method = PSL_METHOD_GMRES;
        else PetscCheck(!strcmp(name, "cg"), comm, PETSC_ERR_ARG_OUTOFRANGE,
                        "-pc_packsell_method %s: cg or gmres", name);
    }
    PetscCall(PCStorage(pc, &opt));
    PCDrop(c);
    /* the process's diagonal block, as a SeqAIJ (copied when it is another type) */
    PetscCall(MatGetDiagonalBlock(pc->pmat, &blk));
    PetscCall(PetscObjectBaseTypeCompare((PetscObject)blk, MATSEQAIJ, &seq));
    if (!seq) PetscCall(PetscObjectTypeCompare((PetscObject)blk, MATSEQPACKSELL, &seq));
    PetscCheck(seq, comm, PETSC_ERR_SUP, "packsell PC: needs an aij or packsell matrix");
    psl_convert_options_init(&csr_opt);
    PetscCall(PslPetscBuild(blk, &csr_opt, &c->csr, &diag, &nnz));
    PetscCall(PetscFree(diag));
    PetscCheck(c->csr, comm, PETSC_ERR_ARG_WRONG, "packsell PC: a process's diagonal block has no nonzeros");
    c->n = blk->rmap->n;
    psl_solver_options_init(&sopt);
    sopt.fixed_iters = (int32_t)iters;
    sopt.op_unit_input = 0; /* any input: normalised, scaled back */
    PSL_PETSC_CALL(comm, psl_exec_create_cpu(&c->ex));
    PSL_PETSC_CALL(comm, psl_matrix_convert(&c->inner, c->csr, &opt));
    PSL_PETSC_CALL(comm, psl_op_matrix(&c->opA, c->ex, c->inner, PSL_FP64));
    if (method == PSL_METHOD_CG) PSL_PETSC_CALL(comm, psl_precond_jacobi(&c->jac, c->ex, c->csr, PSL_FP64));
    else PSL_PETSC_CALL(comm, psl_precond_jacobi_general(&c->jac, c->ex, c->csr, PSL_FP64));
    PSL_PETSC_CALL(comm, psl_solver_create(&c->solver, method, c->opA, c->jac, &sopt));
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* y = (m inner iterations on A_d y = x) */
static PetscErrorCode PCApply_PackSELL(PC pc, Vec x, Vec y)
{
    PslPCCtx *c = (PslPCCtx *)pc->data;
    const PetscScalar *xa;
    PetscScalar *ya;
    psl_vec *vx = NULL, *vy = NULL;
    psl_status st;

    PetscFunctionBegin;
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayWrite(y, &ya));
    st = psl_vec_wrap(&vx, c->ex, c->n, PSL_FP64, (void *)xa, PSL_MEM_VIEW);
    if (st == PSL_OK) st = psl_vec_wrap(&vy, c->ex, c->n, PSL_FP64, ya, PSL_MEM_VIEW);
    if (st == PSL_OK) st = psl_op_apply(psl_solver_op(c->solver), 1.0, vx, 0.0, vy);
    psl_vec_destroy(&vx);
    psl_vec_destroy(&vy);
    PetscCall(VecRestoreArrayWrite(y, &ya));
    PetscCall(VecRestoreArrayRead(x, &xa));
    PSL_PETSC_CALL(PETSC_COMM_SELF, st);
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode PCReset_PackSELL(PC pc)
{
    PetscFunctionBegin;
    PCDrop((PslPCCtx *)pc->data);
    PetscFunctionReturn(PSL_PETSC_OK);
}

static PetscErrorCode PCDestroy_PackSELL(PC pc)
{
    PetscFunctionBegin;
    PCDrop((PslPCCtx *)pc->data);
    PetscCall(PetscFree(pc->data));
    PetscFunctionReturn(PSL_PETSC_OK);
}

PetscErrorCode PCCreate_PackSELL(PC pc)
{
    PslPCCtx *c;

    PetscFunctionBegin;
    PetscCall(PetscNew(&c));
    pc->data = c;
    pc->ops->setup = PCSetUp_PackSELL;
    pc->ops->apply = PCApply_PackSELL;
    pc->ops->reset = PCReset_PackSELL;
    pc->ops->destroy = PCDestroy_PackSELL;
    PetscFunctionReturn(PSL_PETSC_OK);
}
