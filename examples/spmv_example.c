/*
 * spmv_example.c -- the smallest complete use of libpacksell: build a CSR
 * matrix from arrays, convert it to PackSELL FP16, multiply, check, clean up.
 * Built against the installed package by .ci/run (pkg-config and CMake).
 */
#include <packsell.h>

#include <math.h>
#include <stdio.h>

int main(void)
{
    /* 1-D Laplacian, 4 x 4, 0-based */
    const int64_t row_ptr[] = {0, 2, 5, 8, 10};
    const int32_t col_idx[] = {0, 1, 0, 1, 2, 1, 2, 3, 2, 3};
    const double val[] = {2, -1, -1, 2, -1, -1, 2, -1, -1, 2};
    const double x[] = {1, 2, 3, 4};
    double y[4];
    psl_matrix *A = NULL, *P = NULL;
    psl_convert_options opt;
    psl_convert_options_init(&opt);
    opt.format = PSL_FORMAT_PACKSELL; /* default codec: FP16 in the upper 16 bits */
    opt.slice_height = 2;
    opt.sigma = 4;
    if (psl_matrix_create_csr(&A, 4, 4, row_ptr, col_idx, val, PSL_FP64, 0, 0) != PSL_OK ||
        psl_matrix_convert(&P, A, &opt) != PSL_OK ||
        psl_spmv(1.0, P, x, 0.0, y, PSL_FP64) != PSL_OK) {
        fprintf(stderr, "packsell error: %s\n", psl_last_error_message());
        psl_matrix_destroy(&A);
        psl_matrix_destroy(&P);
        return 1;
    }
    const double expect[] = {0, 0, 0, 5};
    int bad = 0;
    for (int i = 0; i < 4; i++)
        bad |= fabs(y[i] - expect[i]) > 1e-12;
    printf("libpacksell %s: y = [%g %g %g %g] %s\n", psl_version(), y[0], y[1], y[2], y[3],
           bad ? "WRONG" : "ok");
    psl_matrix_destroy(&A);
    psl_matrix_destroy(&P);
    return bad;
}
