/* psl_petsc_pc.c -- the PETSc preconditioner packsell (PCPACKSELL): on each
 * process, a fixed number of our CG (or GMRES) iterations with Jacobi on its
 * diagonal block of the preconditioning matrix, stored in PackSELL (codec
 * E8M14 by default, IO-CG's inner layer) -- the inner solve of inner-outer
 * CG, block Jacobi across processes. It varies with its input (a Krylov
 * solve), so the outer KSP must be flexible: KSPFCG or KSPFGMRES.
 * Options (the PC's prefix applies), read at PCSetUp:
 *   -pc_packsell_iters M           inner iterations (default 8)
 *   -pc_packsell_method cg|gmres|f3r   inner solver (default cg; cg needs an SPD
 *                                  block); f3r: F3R's layers 2-4 on the block
 *                                  (psl_precond_f3r: FGMRES FP32, FGMRES with the
 *                                  FP16 matrix, adaptive Richardson FP16 with
 *                                  SD-AINV), under KSPFGMRES as F3R's layer 1
 *   -pc_packsell_format, -pc_packsell_values   the block's storage as
 *                                  -mat_packsell_* (default packsell e8m14; not f3r)
 *   -pc_packsell_f3r_variant packsell|fp16|fp64   (default packsell)
 *   -pc_packsell_f3r_m2, _m3, _m4, -pc_packsell_f3r_c   layer steps and the
 *                                  Richardson sampling period (8, 4, 2, 64)
 *   -pc_packsell_f3r_precond sdainv|jacobi|none   layer 4's (default sdainv) */
#include <string.h>
#include <petsc/private/pcimpl.h>
#include "psl_petsc_impl.h"

typedef struct PslPCCtx {
    psl_exec *ex;
    psl_matrix *csr, *inner; /* FP64 CSR of the block (Jacobi), its inner storage */
    psl_op *opA, *jac;
    psl_solver *solver;
    psl_op *f3r; /* method f3r: F3R's layers 2-4 (psl_precond_f3r) */
    PetscInt n;
} PslPCCtx;

static void PCDrop(PslPCCtx *c)
{
    psl_solver_destroy(&c->solver);
    psl_op_destroy(&c->f3r);
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

/* F3R's configuration from -pc_packsell_f3r_*. */
static PetscErrorCode PCF3RConfig(PC pc, psl_solve_config *cfg)
{
    PetscObject o = (PetscObject)pc;
    MPI_Comm comm = PetscObjectComm(o);
    static const char *const steps[4] = {"-pc_packsell_f3r_m2", "-pc_packsell_f3r_m3",
                                         "-pc_packsell_f3r_m4", "-pc_packsell_f3r_c"};
    char name[32];
    PetscBool set;

    PetscFunctionBegin;
    psl_solve_config_init(cfg);
    cfg->method = PSL_SOLVE_F3R;
    cfg->precond = PSL_PRECOND_SDAINV;
    int32_t *dst[4] = {&cfg->f3r.m2, &cfg->f3r.m3, &cfg->f3r.m4, &cfg->f3r.c};
    for (int i = 0; i < 4; i++) {
        PetscInt v = *dst[i];
        PetscCall(PetscOptionsGetInt(o->options, o->prefix, steps[i], &v, NULL));
        PetscCheck(v >= 1 && v <= PSL_GMRES_RESTART_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
                   "%s %d: must be 1..%d", steps[i], (int)v, PSL_GMRES_RESTART_MAX);
        *dst[i] = (int32_t)v;
    }
    PetscCall(PetscOptionsGetString(o->options, o->prefix, "-pc_packsell_f3r_variant", name, sizeof name, &set));
    if (set) {
        if (!strcmp(name, "fp64")) cfg->f3r.variant = PSL_F3R_FP64;
        else if (!strcmp(name, "fp16")) cfg->f3r.variant = PSL_F3R_FP16;
        else PetscCheck(!strcmp(name, "packsell"), comm, PETSC_ERR_ARG_OUTOFRANGE,
                        "-pc_packsell_f3r_variant %s: packsell, fp16 or fp64", name);
    }
    PetscCall(PetscOptionsGetString(o->options, o->prefix, "-pc_packsell_f3r_precond", name, sizeof name, &set));
    if (set) {
        if (!strcmp(name, "jacobi")) cfg->precond = PSL_PRECOND_JACOBI;
        else if (!strcmp(name, "none")) cfg->precond = PSL_PRECOND_NONE;
        else PetscCheck(!strcmp(name, "sdainv"), comm, PETSC_ERR_ARG_OUTOFRANGE,
                        "-pc_packsell_f3r_precond %s: sdainv, jacobi or none", name);
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
    PetscBool f3r = PETSC_FALSE;
    if (set) {
        if (!strcmp(name, "gmres")) method = PSL_METHOD_GMRES;
        else if (!strcmp(name, "f3r")) f3r = PETSC_TRUE;
        else PetscCheck(!strcmp(name, "cg"), comm, PETSC_ERR_ARG_OUTOFRANGE,
                        "-pc_packsell_method %s: cg, gmres or f3r", name);
    }
    psl_solve_config fcfg;
    if (f3r) PetscCall(PCF3RConfig(pc, &fcfg));
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
    if (f3r) {
        PSL_PETSC_CALL(comm, psl_precond_f3r(&c->f3r, c->ex, c->csr, &fcfg));
        PetscFunctionReturn(PSL_PETSC_OK);
    }
    PSL_PETSC_CALL(comm, psl_matrix_convert(&c->inner, c->csr, &opt));
    PSL_PETSC_CALL(comm, psl_op_matrix(&c->opA, c->ex, c->inner, PSL_FP64));
    if (method == PSL_METHOD_CG) PSL_PETSC_CALL(comm, psl_precond_jacobi(&c->jac, c->ex, c->csr, PSL_FP64));
    else PSL_PETSC_CALL(comm, psl_precond_jacobi_general(&c->jac, c->ex, c->csr, PSL_FP64));
    PSL_PETSC_CALL(comm, psl_solver_create(&c->solver, method, c->opA, c->jac, &sopt));
    PetscFunctionReturn(PSL_PETSC_OK);
}

/* y = (m inner iterations on A_d y = x), or F3R's layers 2-4 on it */
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
    if (st == PSL_OK) st = psl_op_apply(c->f3r ? c->f3r : psl_solver_op(c->solver), 1.0, vx, 0.0, vy);
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
