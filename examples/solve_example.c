/*
 * solve_example.c -- solve a 3-D Poisson problem with inner-outer CG: FP64
 * flexible CG outside, FP32 PCG on a PackSELL E8M14 copy of the matrix
 * inside, SD-AINV preconditioning, on the CPU (or the first GPU with
 * `solve_example cuda`). Built against the installed package by .ci/run.
 */
#include <packsell.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    psl_matrix *A = NULL;
    if (psl_generate(&A, "lap3d:24") != PSL_OK) { /* 13,824 rows, 7-point stencil */
        fprintf(stderr, "%s\n", psl_last_error_message());
        return 1;
    }
    psl_matrix_info info;
    psl_matrix_get_info(A, &info);
    int n = info.nrows;
    double *b = malloc(n * sizeof *b), *x = calloc(n, sizeof *x);
    for (int i = 0; i < n; i++)
        b[i] = 1.0;

    psl_solve_config cfg;
    psl_solve_config_init(&cfg);
    cfg.method = PSL_SOLVE_IOCG;
    cfg.precond = PSL_PRECOND_SDAINV;
    cfg.inner_iters = 20;
    psl_codec_parse("e8m14", &cfg.inner_storage.codec);
    if (argc > 1 && strcmp(argv[1], "cuda") == 0)
        cfg.device = 0;
    psl_solve_report rep;
    psl_status st = psl_solve(A, b, x, &cfg, &rep);
    if (st != PSL_OK)
        fprintf(stderr, "%s\n", psl_last_error_message());
    else
        printf("%s after %d outer (%lld inner) iterations, relative residual %.2e, "
               "solve %.3f s, setup %.3f s\n",
               psl_reason_name(rep.result.reason), rep.result.iterations,
               (long long)rep.result.inner_iterations, rep.relres_unscaled, rep.solve_seconds,
               rep.scale_seconds + rep.convert_seconds + rep.precond_seconds + rep.upload_seconds);
    free(b);
    free(x);
    psl_matrix_destroy(&A);
    return st == PSL_OK ? 0 : 1;
}
