/*
 * test_gpu_solver.c -- solves on a CUDA executor against the same solves on
 * the CPU: every method x preconditioner converges to tol by a residual
 * computed here, with the CPU's iteration counts within 2% (or 1), the same
 * bits from repeated solves, with PSL_SOLVER_LOOKAHEAD=0 and with
 * PSL_SOLVER_GRAPH=0 (IO-CG's inner CG without its graph), vectors viewing
 * device memory. Without a device
 * (or CUDA) it checks that the CUDA executor and psl_solve fail cleanly.
 */
#include "gpu_harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef PSL_HAVE_CUDA
static double *make_b(int32_t n, uint64_t seed)
{
    double *b = malloc((size_t)(n > 0 ? n : 1) * sizeof *b);
    for (int32_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        b[i] = (double)(seed >> 11) * 0x1p-53;
    }
    return b;
}

/* ||b - A x|| / ||b|| by the simplest loop. */
static double relres(const psl_matrix *A, const double *b, const double *x)
{
    const int64_t *rp;
    const int32_t *ci;
    const double *va;
    psl_matrix_info info;
    psl_matrix_get_info(A, &info);
    psl_matrix_csr_view(A, &rp, &ci, &va);
    double rr = 0, bb = 0;
    for (int32_t i = 0; i < info.nrows; i++) {
        double s = 0;
        for (int64_t k = rp[i]; k < rp[i + 1]; k++)
            s += va[k] * x[ci[k]];
        rr += (b[i] - s) * (b[i] - s);
        bb += b[i] * b[i];
    }
    return sqrt(rr / bb);
}
#endif

static void check_without_device(psl_status count_status)
{
    (void)count_status;
    psl_exec *ex = NULL;
    psl_status st = psl_exec_create_cuda(&ex, 0, NULL);
    CHECK(st == PSL_ERR_NOT_SUPPORTED || st == PSL_ERR_CUDA);
    CHECK(ex == NULL);
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "gen:lap2d:8"));
    double b[64], x[64];
    for (int i = 0; i < 64; i++)
        b[i] = 1.0, x[i] = 3.0;
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.device = 0;
    st = psl_solve(A, b, x, &c, NULL);
    CHECK(st == PSL_ERR_NOT_SUPPORTED || st == PSL_ERR_CUDA);
    CHECK(x[0] == 3.0 && x[63] == 3.0);
    psl_matrix_destroy(&A);
}

#ifdef PSL_HAVE_CUDA
static cudaStream_t g_stream;


static void compare(const char *src, psl_solve_method m, psl_precond_kind p, psl_scalar vt)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_matrix_open(&A, src));
    if (!A)
        return;
    psl_matrix_info info;
    psl_matrix_get_info(A, &info);
    int32_t n = info.nrows;
    double *b = make_b(n, 3), *xc = calloc(n, sizeof *xc), *xg = calloc(n, sizeof *xg),
           *xg2 = calloc(n, sizeof *xg2), *xg3 = calloc(n, sizeof *xg3),
           *xg4 = calloc(n, sizeof *xg4);
    psl_solve_config c;
    psl_solve_config_init(&c);
    c.method = m;
    c.precond = p;
    c.inner_iters = 20;
    c.solver.vec_type = vt;
    if (vt == PSL_FP32)
        c.solver.tol = 1e-5;
    psl_solve_report rc, rg, rg2, rg3, rg4;
    CHECK_OK(psl_solve(A, b, xc, &c, &rc));
    c.device = 0;
    CHECK_OK(psl_solve(A, b, xg, &c, &rg));
    CHECK_OK(psl_solve(A, b, xg2, &c, &rg2));
    /* without the lookahead of CG's next step: the same solve, bit for bit */
    CHECK_OK(psl_option_set("PSL_SOLVER_LOOKAHEAD", "0"));
    CHECK_OK(psl_solve(A, b, xg3, &c, &rg3));
    CHECK_OK(psl_option_set("PSL_SOLVER_LOOKAHEAD", NULL));
    CHECK_MSG(memcmp(xg, xg3, n * sizeof *xg) == 0 &&
                  rg.result.iterations == rg3.result.iterations,
              "%s: the solve without lookahead differs (%d and %d iterations)", src,
              rg.result.iterations, rg3.result.iterations);
    /* inner CG iterations launched one by one, not replayed from a graph */
    CHECK_OK(psl_option_set("PSL_SOLVER_GRAPH", "0"));
    CHECK_OK(psl_solve(A, b, xg4, &c, &rg4));
    CHECK_OK(psl_option_set("PSL_SOLVER_GRAPH", NULL));
    CHECK_MSG(memcmp(xg, xg4, n * sizeof *xg) == 0 &&
                  rg.result.iterations == rg4.result.iterations &&
                  rg.result.inner_iterations == rg4.result.inner_iterations,
              "%s: the solve without graphs differs (%d and %d iterations)", src,
              rg.result.iterations, rg4.result.iterations);
    int ic = rc.result.iterations, ig = rg.result.iterations;
    CHECK_MSG(abs(ic - ig) <= 1 || abs(ic - ig) <= 0.02 * ic,
              "%s method %d precond %d %s: %d iterations on the CPU, %d on the GPU", src, m, p,
              psl_scalar_name(vt), ic, ig);
    CHECK_MSG(rg.result.relres < c.solver.tol, "%s: GPU relres %g", src, rg.result.relres);
    CHECK(fabs(relres(A, b, xg) - rg.relres_unscaled) <= 1e-6 * rg.relres_unscaled + 1e-18);
    CHECK_MSG(memcmp(xg, xg2, n * sizeof *xg) == 0, "%s: two GPU solves differ", src);
    printf("  %-16s method %d precond %d %s: CPU %d, GPU %d iterations (%lld inner)\n", src, m,
           p, psl_scalar_name(vt), ic, ig, (long long)rg.result.inner_iterations);
    free(b), free(xc), free(xg), free(xg2), free(xg3), free(xg4);
    psl_matrix_destroy(&A);
}

TEST(gpu_solves_match_cpu)
{
    const char *srcs[] = {"gen:hpcg:4:4:4", "gen:lap3d:24"};
    for (int s = 0; s < 2; s++)
        for (int m = 0; m < 3; m++)
            for (int p = 0; p < 3; p++)
                compare(srcs[s], (psl_solve_method)m, (psl_precond_kind)p, PSL_FP64);
    compare("gen:lap3d:24", PSL_SOLVE_CG, PSL_PRECOND_JACOBI, PSL_FP32);
}

/* The low-level layer over device arrays the caller owns (views). */
TEST(gpu_views_of_device_memory)
{
    psl_matrix *A = NULL;
    CHECK_OK(psl_generate(&A, "gen:lap2d:50"));
    int32_t n = 2500;
    double *b = make_b(n, 5), *x = calloc(n, sizeof *x);
    double *db = NULL, *dx = NULL;
    CUDA_CHECK(cudaMalloc((void **)&db, n * sizeof *db));
    CUDA_CHECK(cudaMalloc((void **)&dx, n * sizeof *dx));
    CUDA_CHECK(cudaMemcpy(db, b, n * sizeof *db, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dx, 0, n * sizeof *dx));
    CUDA_CHECK(cudaDeviceSynchronize()); /* both landed before the solver's stream reads them */
    psl_exec *ex = NULL;
    psl_op *Aop = NULL, *M = NULL;
    psl_solver *s = NULL;
    psl_vec *bv = NULL, *xv = NULL, *hv = NULL;
    CHECK_OK(psl_exec_create_cuda(&ex, 0, g_stream));
    CHECK(psl_exec_is_cuda(ex) == 1);
    CHECK_ST(psl_vec_wrap(&hv, ex, n, PSL_FP64, b, PSL_MEM_VIEW), PSL_ERR_INVALID_VALUE);
    CHECK_OK(psl_vec_wrap(&bv, ex, n, PSL_FP64, db, PSL_MEM_VIEW));
    CHECK_OK(psl_vec_wrap(&xv, ex, n, PSL_FP64, dx, PSL_MEM_VIEW));
    CHECK_OK(psl_op_matrix(&Aop, ex, A, PSL_FP64));
    CHECK_OK(psl_precond_jacobi(&M, ex, A, PSL_FP64));
    CHECK_OK(psl_solver_create(&s, PSL_METHOD_CG, Aop, M, NULL));
    psl_solve_result res;
    CHECK_OK(psl_solver_solve(s, bv, xv, &res));
    CUDA_CHECK(cudaMemcpy(x, dx, n * sizeof *x, cudaMemcpyDeviceToHost));
    CHECK_MSG(relres(A, b, x) < 1e-9, "relres %g", relres(A, b, x));
    psl_solver_destroy(&s);
    psl_op_destroy(&M);
    psl_op_destroy(&Aop);
    psl_vec_destroy(&bv);
    psl_vec_destroy(&xv);
    psl_exec_destroy(&ex);
    cudaFree(db);
    cudaFree(dx);
    free(b), free(x);
    psl_matrix_destroy(&A);
}

static void finish(void) {}

static const psl_test_case tests[] = {
    {"gpu_solves_match_cpu", gpu_solves_match_cpu},
    {"gpu_views_of_device_memory", gpu_views_of_device_memory},
};
#endif

PSL_GPU_TEST_MAIN(tests, check_without_device, g_stream, finish)
