/*
 * spmv_cuda.c -- `packsell spmv --device cuda`: upload the matrix with
 * psl_dmatrix_upload, copy x and y to the device, run psl_dspmv and copy y
 * back (public API plus the CUDA runtime). In a build without CUDA the
 * command never gets here (cli_check_device refuses --device cuda first).
 */
#include "cli.h"

#ifdef PSL_HAVE_CUDA
#include <cuda_runtime.h>

/* A CUDA runtime failure as a command error. */
static int cuda_fail(const char *cmd, const char *what, cudaError_t err)
{
    return cli_error(cmd, "--device cuda: %s: %s", what, cudaGetErrorString(err));
}

int cli_spmv_cuda(const char *cmd, double alpha, const psl_matrix *A, const void *x,
                  double beta, void *y, psl_scalar vec, int64_t nrows, int64_t ncols)
{
    psl_dmatrix *dA = NULL;
    void *dx = NULL, *dy = NULL, *ws = NULL;
    size_t ws_bytes = 0, es = cli_vec_size(vec);
    size_t xb = (size_t)(ncols > 0 ? ncols : 1) * es, yb = (size_t)(nrows > 0 ? nrows : 1) * es;
    cudaError_t err;
    psl_status st;
    int rc = CLI_OK;
    if ((st = psl_dmatrix_upload(&dA, A, NULL)) != PSL_OK ||
        (st = psl_dspmv_workspace_size(dA, vec, &ws_bytes)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    if ((err = cudaMalloc(&dx, xb)) != cudaSuccess || (err = cudaMalloc(&dy, yb)) != cudaSuccess ||
        (ws_bytes && (err = cudaMalloc(&ws, ws_bytes)) != cudaSuccess)) {
        rc = cuda_fail(cmd, "device memory for the vectors", err);
        goto done;
    }
    if ((err = cudaMemcpy(dx, x, (size_t)ncols * es, cudaMemcpyHostToDevice)) != cudaSuccess ||
        (err = cudaMemcpy(dy, y, (size_t)nrows * es, cudaMemcpyHostToDevice)) != cudaSuccess) {
        rc = cuda_fail(cmd, "copying x and y to the device", err);
        goto done;
    }
    if ((st = psl_dspmv(alpha, dA, dx, beta, dy, vec, ws, ws_bytes, NULL)) != PSL_OK) {
        rc = cli_lib_error(cmd, st);
        goto done;
    }
    if ((err = cudaMemcpy(y, dy, (size_t)nrows * es, cudaMemcpyDeviceToHost)) != cudaSuccess)
        rc = cuda_fail(cmd, "copying y back", err);
done:
    cudaFree(ws);
    cudaFree(dy);
    cudaFree(dx);
    psl_dmatrix_destroy(&dA);
    return rc;
}

#else

int cli_spmv_cuda(const char *cmd, double alpha, const psl_matrix *A, const void *x,
                  double beta, void *y, psl_scalar vec, int64_t nrows, int64_t ncols)
{
    (void)alpha, (void)A, (void)x, (void)beta, (void)y, (void)vec, (void)nrows, (void)ncols;
    return cli_error(cmd, "--device cuda: not supported in this build (packsell was built "
                          "without CUDA)");
}

#endif
