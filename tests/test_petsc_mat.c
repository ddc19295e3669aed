/* test_petsc_mat.c -- the PETSc matrix types seqpacksell/mpipacksell against
 * PETSc's own AIJ, run under mpiexec at 1..4 processes (petsc_tests.cmake).
 * The same matrix is assembled as aij and as ours (rows split by PETSc):
 *  - MatMult, MatMultAdd, MatGetDiagonal equal to AIJ's bit for bit for
 *    integer-valued matrices and x with every format and FP64 storage (and
 *    PackSELL FP16, exact for these integers); for real values stored in
 *    FP32/FP16 within the bound derived below;
 *  - KSPCG + PCJACOBI and KSPGMRES: the same iteration counts as aij;
 *  - -mat_type mpipacksell / packsell through MatSetFromOptions;
 *  - bad option values: a PETSc error code, not a crash;
 *  - changed values (re-assembly, MatZeroEntries, MatScale, MatShift)
 *    update the product.
 * Exit status: 0 when every check passed on every rank. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <petscksp.h>
#include "packsell_petsc.h"

static int failures;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (!(cond)) {                                                            \
            char msg_[512];                                                       \
            failures++;                                                           \
            snprintf(msg_, sizeof msg_, __VA_ARGS__);                             \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, msg_);       \
        }                                                                         \
    } while (0)

/* Test matrices: kind 0 lap2d nx x nx (4, -1), 1 lap3d nx^3 (6, -1),
 * 2 nonsymmetric integer (5 | -2, -1 neighbours | 1 at a far column),
 * 3 nonsymmetric real values in [0.1, 10] (the pattern of 2). absval: |a|. */
typedef struct {
    int kind;
    PetscInt nx;
} Problem;

static PetscInt prob_n(const Problem *p)
{
    return p->kind == 1 ? p->nx * p->nx * p->nx : p->nx * p->nx;
}

/* The entries of row i: cols, vals, count. */
static int prob_row(const Problem *p, PetscInt i, PetscInt *cols, PetscScalar *vals)
{
    PetscInt n = prob_n(p), nx = p->nx, k = 0;
    if (p->kind == 0) {
        PetscInt x = i % nx, y = i / nx;
        if (y > 0) cols[k] = i - nx, vals[k++] = -1;
        if (x > 0) cols[k] = i - 1, vals[k++] = -1;
        cols[k] = i, vals[k++] = 4;
        if (x < nx - 1) cols[k] = i + 1, vals[k++] = -1;
        if (y < nx - 1) cols[k] = i + nx, vals[k++] = -1;
    } else if (p->kind == 1) {
        PetscInt x = i % nx, y = (i / nx) % nx, z = i / (nx * nx), s = nx * nx;
        if (z > 0) cols[k] = i - s, vals[k++] = -1;
        if (y > 0) cols[k] = i - nx, vals[k++] = -1;
        if (x > 0) cols[k] = i - 1, vals[k++] = -1;
        cols[k] = i, vals[k++] = 6;
        if (x < nx - 1) cols[k] = i + 1, vals[k++] = -1;
        if (y < nx - 1) cols[k] = i + nx, vals[k++] = -1;
        if (z < nx - 1) cols[k] = i + s, vals[k++] = -1;
    } else {
        PetscInt far = (i * 7 + 3) % n;
        if (i >= nx) cols[k] = i - nx, vals[k++] = 1;
        if (i > 0) cols[k] = i - 1, vals[k++] = -2;
        cols[k] = i, vals[k++] = 5;
        if (i + 1 < n) cols[k] = i + 1, vals[k++] = -1;
        if (far != i && far != i - 1 && far != i + 1 && far != i - nx) cols[k] = far, vals[k++] = 1;
        if (p->kind == 3)
            for (int j = 0; j < k; j++) /* reals in [0.1, 10], the sign kept */
                vals[j] = (vals[j] > 0 ? 1 : -1) * (0.1 + fmod(0.7316 * (double)(i + 3 * cols[j]) + 0.1, 9.9));
    }
    return (int)k;
}

/* Assemble problem p as type (aij, mpipacksell, ...); absval: |a_ij|;
 * shift is added to the diagonal. */
static PetscErrorCode build(const Problem *p, MatType type, PetscBool absval, Mat *A)
{
    PetscInt n = prob_n(p), lo, hi, cols[8];
    PetscScalar vals[8];

    PetscFunctionBeginUser;
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(*A, type));
    PetscCall(MatSeqAIJSetPreallocation(*A, 8, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, 8, NULL, 8, NULL));
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) {
        int k = prob_row(p, i, cols, vals);
        if (absval)
            for (int j = 0; j < k; j++) vals[j] = fabs(vals[j]);
        PetscCall(MatSetValues(*A, 1, &i, k, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* x_i = ((i * 5) mod 7) - 3 (integers) or a real in [-1, 1]. */
static PetscErrorCode fill_x(Vec x, PetscBool real)
{
    PetscInt lo, hi;
    PetscScalar *a;

    PetscFunctionBeginUser;
    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    PetscCall(VecGetArray(x, &a));
    for (PetscInt i = lo; i < hi; i++)
        a[i - lo] = real ? sin(0.37 * (double)i + 0.2) : (double)((i * 5) % 7 - 3);
    PetscCall(VecRestoreArray(x, &a));
    PetscFunctionReturn(0);
}

/* Largest |a_i - b_i| over all ranks. */
static PetscErrorCode maxdiff(Vec a, Vec b, double *d)
{
    Vec t;

    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(a, &t));
    PetscCall(VecWAXPY(t, -1.0, b, a));
    PetscCall(VecNorm(t, NORM_INFINITY, d));
    PetscCall(VecDestroy(&t));
    PetscFunctionReturn(0);
}

/* Set or clear (value NULL) a global option. */
static PetscErrorCode setopt(const char *name, const char *value)
{
    PetscFunctionBeginUser;
    if (value) PetscCall(PetscOptionsSetValue(NULL, name, value));
    else PetscCall(PetscOptionsClearValue(NULL, name));
    PetscFunctionReturn(0);
}

/* A storage to test: format, values, u = unit roundoff of the stored values
 * (0: exact for the integer matrices). */
typedef struct {
    const char *format, *values;
    double u;
} Storage;

static const Storage storages[] = {
    {"packsell", NULL, 0x1p-11}, /* default codec fp16 */
    {"packsell", "e8m20", 0x1p-21},
    {"sell", "fp64", 0},
    {"sell", "fp32", 0x1p-24},
    {"sell", "fp16", 0x1p-11},
    {"csr", "fp64", 0},
    {"csr", "fp32", 0x1p-24},
    {"csrk", "fp64", 0},
    {"csrk", "fp16", 0x1p-11},
};

/* MatMult, MatMultAdd, MatGetDiagonal of ours against aij for problem p in
 * storage s (options set by the caller). Integer kinds: bit for bit. Real
 * values: each stored value is a(1+d), |d| <= u; both products sum k <= 5
 * terms in FP64, each within gamma_k (|A||x|)_i, gamma_k = k eps/(1-k eps),
 * eps = 2^-53: |y_ours - y_aij|_i <= (u (1 + gamma_k) + 2 gamma_k)(|A||x|)_i.
 * Checked through max_i |diff_i| / (|A||x|)_i. */
static PetscErrorCode check_products(const Problem *p, const Storage *s, MatType type)
{
    Mat A, B, Aabs;
    Vec x, xabs, ya, yb, bound, za, zb;
    PetscBool real = p->kind == 3;
    double d, ratio;
    const double eps = 0x1p-53, gk = 5 * eps / (1 - 5 * eps);
    const double tol = s->u * (1 + gk) + 2 * gk;

    PetscFunctionBeginUser;
    PetscCall(build(p, MATAIJ, PETSC_FALSE, &A));
    PetscCall(build(p, type, PETSC_FALSE, &B));
    PetscCall(MatCreateVecs(A, &x, &ya));
    PetscCall(VecDuplicate(ya, &yb));
    PetscCall(VecDuplicate(ya, &za));
    PetscCall(VecDuplicate(ya, &zb));
    PetscCall(VecDuplicate(ya, &bound));
    PetscCall(VecDuplicate(x, &xabs));
    PetscCall(fill_x(x, real));
    PetscCall(MatMult(A, x, ya));
    PetscCall(MatMult(B, x, yb));
    PetscCall(maxdiff(ya, yb, &d));
    if (!real) {
        CHECK(d == 0.0, "%s %s/%s kind %d: MatMult differs from aij by %g", type, s->format,
              s->values ? s->values : "-", p->kind, d);
    } else {
        PetscCall(build(p, MATAIJ, PETSC_TRUE, &Aabs));
        PetscCall(VecCopy(x, xabs));
        PetscCall(VecAbs(xabs));
        PetscCall(MatMult(Aabs, xabs, bound));
        PetscCall(VecAXPY(yb, -1.0, ya));
        PetscCall(VecAbs(yb));
        PetscCall(VecPointwiseDivide(yb, yb, bound));
        PetscCall(VecMax(yb, NULL, &ratio));
        CHECK(ratio <= tol * (1 + 1e-12), "%s %s/%s: MatMult error %g (|A||x| units) above the bound %g",
              type, s->format, s->values ? s->values : "-", ratio, tol);
        /* the storage is really rounded where it should be (u > 0) */
        CHECK(s->u == 0 || ratio > 0, "%s %s/%s: no rounding seen at all", type, s->format,
              s->values ? s->values : "-");
        PetscCall(MatDestroy(&Aabs));
    }
    /* MatMultAdd: z = y0 + A x, into another vector and in place */
    PetscCall(fill_x(za, PETSC_FALSE));
    PetscCall(VecCopy(za, zb));
    PetscCall(MatMultAdd(A, x, za, ya));
    PetscCall(MatMultAdd(B, x, zb, yb));
    if (!real) {
        PetscCall(maxdiff(ya, yb, &d));
        CHECK(d == 0.0, "%s %s kind %d: MatMultAdd differs by %g", type, s->format, p->kind, d);
        PetscCall(MatMultAdd(A, x, za, za));
        PetscCall(MatMultAdd(B, x, zb, zb));
        PetscCall(maxdiff(za, zb, &d));
        CHECK(d == 0.0, "%s %s kind %d: in-place MatMultAdd differs by %g", type, s->format, p->kind, d);
        PetscCall(maxdiff(za, ya, &d));
        CHECK(d == 0.0, "%s %s kind %d: in-place MatMultAdd differs from the other by %g", type,
              s->format, p->kind, d);
    }
    /* MatGetDiagonal: the stored diagonal, a(1+d) */
    PetscCall(MatGetDiagonal(A, ya));
    PetscCall(MatGetDiagonal(B, yb));
    PetscCall(maxdiff(ya, yb, &d));
    if (!real) CHECK(d == 0.0, "%s %s kind %d: MatGetDiagonal differs by %g", type, s->format, p->kind, d);
    else {
        double dmax;
        PetscCall(VecNorm(ya, NORM_INFINITY, &dmax));
        CHECK(d <= s->u * dmax, "%s %s: diagonal off by %g (max %g, u %g)", type, s->format, d, dmax, s->u);
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&xabs));
    PetscCall(VecDestroy(&ya));
    PetscCall(VecDestroy(&yb));
    PetscCall(VecDestroy(&za));
    PetscCall(VecDestroy(&zb));
    PetscCall(VecDestroy(&bound));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
    PetscFunctionReturn(0);
}

static PetscErrorCode test_products(void)
{
    const Problem probs[] = {{0, 9}, {1, 5}, {2, 8}, {3, 8}, {0, 1}};
    const MatType types[] = {MATMPIPACKSELL, MATPACKSELL};

    PetscFunctionBeginUser;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t s = 0; s < sizeof storages / sizeof storages[0]; s++) {
            PetscCall(setopt("-mat_packsell_format", storages[s].format));
            PetscCall(setopt("-mat_packsell_values", storages[s].values));
            for (size_t q = 0; q < sizeof probs / sizeof probs[0]; q++) {
                if (probs[q].kind == 3 && storages[s].u == 0 && strcmp(storages[s].format, "csr"))
                    continue; /* FP64 sell/csrk on reals: other order of sums, no exact claim */
                PetscCall(check_products(&probs[q], &storages[s], types[t]));
            }
        }
    PetscCall(setopt("-mat_packsell_format", NULL));
    PetscCall(setopt("-mat_packsell_values", NULL));
    PetscFunctionReturn(0);
}

/* Solve with ksp type kt + Jacobi, b = A * ones; returns the iterations. */
static PetscErrorCode solve(Mat A, KSPType kt, PetscInt *its, double *err)
{
    KSP ksp;
    PC pc;
    Vec b, x, one;
    KSPConvergedReason reason;

    PetscFunctionBeginUser;
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecDuplicate(x, &one));
    PetscCall(VecSet(one, 1.0));
    PetscCall(MatMult(A, one, b));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, kt));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    CHECK(reason > 0, "%s did not converge (reason %d)", kt, (int)reason);
    PetscCall(VecAXPY(x, -1.0, one));
    PetscCall(VecNorm(x, NORM_INFINITY, err));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&one));
    PetscFunctionReturn(0);
}

/* KSPCG + PCJACOBI on the Laplacians and KSPGMRES on the nonsymmetric
 * matrix: ours (FP64 storage, and PackSELL FP16 exact for these integers)
 * take the same iterations as aij. */
static PetscErrorCode test_krylov(void)
{
    const Problem probs[] = {{0, 40}, {1, 14}, {2, 30}};
    const KSPType kts[] = {KSPCG, KSPCG, KSPGMRES};
    const char *fmts[] = {"csr", "packsell", "sell"};
    PetscMPIInt size;

    PetscFunctionBeginUser;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    for (int q = 0; q < 3; q++) {
        Mat A;
        PetscInt its_aij;
        double err;
        PetscCall(build(&probs[q], MATAIJ, PETSC_FALSE, &A));
        PetscCall(solve(A, kts[q], &its_aij, &err));
        PetscCall(MatDestroy(&A));
        for (int f = 0; f < 3; f++) {
            PetscInt its;
            PetscCall(setopt("-mat_packsell_format", fmts[f]));
            PetscCall(setopt("-mat_packsell_values", f == 1 ? "fp16" : "fp64"));
            PetscCall(build(&probs[q], MATMPIPACKSELL, PETSC_FALSE, &A));
            PetscCall(solve(A, kts[q], &its, &err));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "np %d %s kind %d n %d: aij %d its, mpipacksell %s %d its\n",
                                  size, kts[q], probs[q].kind, (int)prob_n(&probs[q]), (int)its_aij,
                                  fmts[f], (int)its));
            CHECK(its == its_aij, "%s kind %d %s: %d iterations, aij %d", kts[q], probs[q].kind, fmts[f],
                  (int)its, (int)its_aij);
            CHECK(err < 1e-6, "%s kind %d %s: solution error %g", kts[q], probs[q].kind, fmts[f], err);
            PetscCall(MatDestroy(&A));
        }
    }
    PetscCall(setopt("-mat_packsell_format", NULL));
    PetscCall(setopt("-mat_packsell_values", NULL));
    PetscFunctionReturn(0);
}

/* -mat_type through MatSetFromOptions: mpipacksell, and packsell choosing
 * seq/mpi by the communicator's size; then a GMRES solve with it. */
static PetscErrorCode test_from_options(void)
{
    const Problem p = {2, 20};
    PetscMPIInt size;
    const char *want[] = {MATMPIPACKSELL, NULL};
    const char *given[] = {"mpipacksell", "packsell"};

    PetscFunctionBeginUser;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    want[1] = size == 1 ? MATSEQPACKSELL : MATMPIPACKSELL;
    for (int t = 0; t < 2; t++) {
        Mat A, R;
        PetscBool same;
        MatType got;
        PetscInt n = prob_n(&p), lo, hi, cols[8], its, its_ref;
        PetscScalar vals[8];
        double err;
        PetscCall(setopt("-mat_type", given[t]));
        PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
        PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
        PetscCall(MatSetFromOptions(A));
        PetscCall(MatSetUp(A));
        PetscCall(PetscObjectTypeCompare((PetscObject)A, want[t], &same));
        PetscCall(MatGetType(A, &got));
        CHECK(same, "-mat_type %s gave %s, not %s", given[t], got, want[t]);
        PetscCall(MatGetOwnershipRange(A, &lo, &hi));
        for (PetscInt i = lo; i < hi; i++) {
            int k = prob_row(&p, i, cols, vals);
            PetscCall(MatSetValues(A, 1, &i, k, cols, vals, INSERT_VALUES));
        }
        PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
        PetscCall(solve(A, KSPGMRES, &its, &err));
        CHECK(err < 1e-6, "-mat_type %s: GMRES solution error %g", given[t], err);
        PetscCall(setopt("-mat_type", NULL));
        PetscCall(build(&p, MATAIJ, PETSC_FALSE, &R));
        PetscCall(solve(R, KSPGMRES, &its_ref, &err));
        CHECK(its == its_ref, "-mat_type %s: GMRES %d iterations, aij %d", given[t], (int)its, (int)its_ref);
        PetscCall(MatDestroy(&R));
        PetscCall(MatDestroy(&A));
    }
    PetscFunctionReturn(0);
}

/* Bad option values: the assembly returns a PETSc error; nothing crashes. */
static PetscErrorCode test_bad_options(void)
{
    const struct {
        const char *name, *value;
    } bad[] = {
        {"-mat_packsell_format", "bogus"},    {"-mat_packsell_values", "fp64"}, /* packsell: a codec */
        {"-mat_packsell_values", "e9m30"},    {"-mat_packsell_slice_height", "0"},
        {"-mat_packsell_sigma", "33"},        {"-mat_packsell_csrk_k", "4"},
    };
    const Problem p = {0, 6};

    PetscFunctionBeginUser;
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        Mat A = NULL;
        PetscErrorCode ierr;
        PetscCall(setopt(bad[b].name, bad[b].value));
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = build(&p, MATMPIPACKSELL, PETSC_FALSE, &A);
        PetscCall(PetscPopErrorHandler());
        CHECK(ierr != 0, "%s %s was accepted", bad[b].name, bad[b].value);
        PetscCall(MatDestroy(&A));
        PetscCall(setopt(bad[b].name, NULL));
    }
    /* a value FP16 cannot hold (PackSELL's default codec) */
    {
        Mat A = NULL;
        PetscErrorCode ierr;
        PetscInt lo, hi;
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = MatCreate(PETSC_COMM_WORLD, &A);
        if (!ierr) ierr = MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, 8, 8);
        if (!ierr) ierr = MatSetType(A, MATMPIPACKSELL);
        if (!ierr) ierr = MatSetUp(A);
        if (!ierr) ierr = MatGetOwnershipRange(A, &lo, &hi);
        for (PetscInt i = lo; !ierr && i < hi; i++) ierr = MatSetValue(A, i, i, 1e6, INSERT_VALUES);
        if (!ierr) ierr = MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY);
        if (!ierr) ierr = MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY);
        PetscCall(PetscPopErrorHandler());
        CHECK(ierr != 0, "1e6 in FP16 storage was accepted");
        PetscCall(MatDestroy(&A));
    }
    PetscFunctionReturn(0);
}

/* Changed values update the product: re-assembly with new values,
 * MatZeroEntries then new values, MatScale, MatShift; ours equal aij's. */
static PetscErrorCode test_value_changes(void)
{
    const Problem p = {2, 10};
    Mat M[2];
    Vec x, y[2];
    PetscInt lo, hi;
    double d;

    PetscFunctionBeginUser;
    PetscCall(build(&p, MATAIJ, PETSC_FALSE, &M[0]));
    PetscCall(build(&p, MATMPIPACKSELL, PETSC_FALSE, &M[1]));
    PetscCall(MatCreateVecs(M[0], &x, &y[0]));
    PetscCall(VecDuplicate(y[0], &y[1]));
    PetscCall(fill_x(x, PETSC_FALSE));
    PetscCall(MatGetOwnershipRange(M[0], &lo, &hi));
    for (int step = 0; step < 4; step++) {
        for (int m = 0; m < 2; m++) {
            PetscCall(MatMult(M[m], x, y[m])); /* builds the copy of the old values */
            if (step == 0) { /* add 3 to the diagonal and a new entry (0, n-1) */
                PetscCall(MatSetOption(M[m], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
                for (PetscInt i = lo; i < hi; i++) PetscCall(MatSetValue(M[m], i, i, 3.0, ADD_VALUES));
                if (lo == 0) PetscCall(MatSetValue(M[m], 0, prob_n(&p) - 1, 2.0, ADD_VALUES));
                PetscCall(MatAssemblyBegin(M[m], MAT_FINAL_ASSEMBLY));
                PetscCall(MatAssemblyEnd(M[m], MAT_FINAL_ASSEMBLY));
            } else if (step == 1) { /* zero, then only the diagonal */
                PetscCall(MatZeroEntries(M[m]));
                PetscCall(MatMult(M[m], x, y[m]));
                PetscCall(VecNorm(y[m], NORM_INFINITY, &d));
                CHECK(d == 0.0, "after MatZeroEntries A x = %g (matrix %d)", d, m);
                for (PetscInt i = lo; i < hi; i++) PetscCall(MatSetValue(M[m], i, i, (double)(i % 5 + 1), INSERT_VALUES));
                PetscCall(MatAssemblyBegin(M[m], MAT_FINAL_ASSEMBLY));
                PetscCall(MatAssemblyEnd(M[m], MAT_FINAL_ASSEMBLY));
            } else if (step == 2) {
                PetscCall(MatScale(M[m], -2.0));
            } else {
                PetscCall(MatShift(M[m], 7.0));
            }
            PetscCall(MatMult(M[m], x, y[m]));
        }
        PetscCall(maxdiff(y[0], y[1], &d));
        CHECK(d == 0.0, "step %d: after the values changed MatMult differs from aij by %g", step, d);
        PetscCall(MatGetDiagonal(M[0], y[0]));
        PetscCall(MatGetDiagonal(M[1], y[1]));
        PetscCall(maxdiff(y[0], y[1], &d));
        CHECK(d == 0.0, "step %d: MatGetDiagonal differs from aij by %g", step, d);
    }
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y[0]));
    PetscCall(VecDestroy(&y[1]));
    PetscCall(MatDestroy(&M[0]));
    PetscCall(MatDestroy(&M[1]));
    PetscFunctionReturn(0);
}

/* The preconditioner packsell under KSPFCG (SPD Laplacians, CG inner) and
 * KSPFGMRES (nonsymmetric, GMRES inner, and F3R's layers 2-4 as the
 * inner solver: KSPFGMRES is then F3R's layer 1), on aij and mpipacksell: converges
 * to the solution in fewer outer iterations than Jacobi CG/GMRES took;
 * a bad -pc_packsell_method is a PETSc error. */
static PetscErrorCode test_pc(void)
{
    const Problem probs[] = {{0, 40}, {1, 14}, {2, 30}, {2, 30}};
    const KSPType kts[] = {KSPFCG, KSPFCG, KSPFGMRES, KSPFGMRES};
    const char *inner[] = {"cg", "cg", "gmres", "f3r"};
    PetscMPIInt size;

    PetscFunctionBeginUser;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    for (int q = 0; q < 4; q++)
        for (int t = 0; t < 2; t++) {
            Mat A;
            KSP ksp;
            PC pc;
            Vec b, x, one;
            PetscInt its, its_jac;
            KSPConvergedReason reason;
            double err;
            PetscCall(build(&probs[q], t ? MATMPIPACKSELL : MATAIJ, PETSC_FALSE, &A));
            PetscCall(solve(A, q >= 2 ? KSPGMRES : KSPCG, &its_jac, &err));
            PetscCall(setopt("-pc_packsell_method", inner[q]));
            PetscCall(MatCreateVecs(A, &x, &b));
            PetscCall(VecDuplicate(x, &one));
            PetscCall(VecSet(one, 1.0));
            PetscCall(MatMult(A, one, b));
            PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
            PetscCall(KSPSetOperators(ksp, A, A));
            PetscCall(KSPSetType(ksp, kts[q]));
            PetscCall(KSPGetPC(ksp, &pc));
            PetscCall(PCSetType(pc, PCPACKSELL));
            PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
            PetscCall(KSPSolve(ksp, b, x));
            PetscCall(KSPGetIterationNumber(ksp, &its));
            PetscCall(KSPGetConvergedReason(ksp, &reason));
            PetscCall(VecAXPY(x, -1.0, one));
            PetscCall(VecNorm(x, NORM_INFINITY, &err));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "np %d %s + pc packsell (%s) kind %d on %s: %d its (Jacobi %d)\n",
                                  size, kts[q], inner[q], probs[q].kind, t ? "mpipacksell" : "aij", (int)its,
                                  (int)its_jac));
            CHECK(reason > 0, "pc packsell kind %d: no convergence (reason %d)", probs[q].kind, (int)reason);
            CHECK(its < its_jac, "pc packsell kind %d: %d iterations, not fewer than Jacobi's %d", probs[q].kind,
                  (int)its, (int)its_jac);
            CHECK(err < 1e-6, "pc packsell kind %d: solution error %g", probs[q].kind, err);
            PetscCall(KSPDestroy(&ksp));
            PetscCall(VecDestroy(&x));
            PetscCall(VecDestroy(&b));
            PetscCall(VecDestroy(&one));
            PetscCall(MatDestroy(&A));
        }
    { /* a bad option: an error from KSPSetUp */
        const Problem p = {0, 6};
        Mat A;
        KSP ksp;
        PC pc;
        PetscErrorCode ierr;
        PetscCall(build(&p, MATAIJ, PETSC_FALSE, &A));
        PetscCall(setopt("-pc_packsell_method", "bogus"));
        PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
        PetscCall(KSPSetOperators(ksp, A, A));
        PetscCall(KSPGetPC(ksp, &pc));
        PetscCall(PCSetType(pc, PCPACKSELL));
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr = KSPSetUp(ksp);
        PetscCall(PetscPopErrorHandler());
        CHECK(ierr != 0, "-pc_packsell_method bogus was accepted");
        PetscCall(KSPDestroy(&ksp));
        PetscCall(MatDestroy(&A));
    }
    PetscCall(setopt("-pc_packsell_method", NULL));
    PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
    int total = 0;

    PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
    PetscCall(PslPetscRegister());
    PetscCall(PslPetscRegister()); /* twice: a no-op */
    PetscCall(test_products());
    PetscCall(test_krylov());
    PetscCall(test_from_options());
    PetscCall(test_bad_options());
    PetscCall(test_value_changes());
    PetscCall(test_pc());
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d failure(s)\n", total ? "FAILED" : "passed", total));
    PetscCall(PetscFinalize());
    return total ? 1 : 0;
}
