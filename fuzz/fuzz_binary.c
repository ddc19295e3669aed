/*
 * fuzz_binary.c -- libFuzzer target for the binary matrix reader: any byte
 * string must either load into a handle that passes the structural checks
 * (and then queries, decoding and SpMV on it must be memory-safe) or fail
 * with a status, never crash. Seeds: fuzz/seeds/binary/ (see its README).
 */
#include "packsell.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    psl_matrix *A = NULL;
    if (psl_matrix_load_buffer(&A, data, size) != PSL_OK) {
        if (A)
            abort(); /* a failed load must leave the handle NULL */
        return 0;
    }
    psl_matrix_info info;
    if (psl_matrix_get_info(A, &info) != PSL_OK)
        abort();
    /* Exercise the consumers of a loaded handle on small matrices. */
    if (info.nrows <= 4096 && info.ncols <= 4096) {
        double *x = calloc((size_t)info.ncols + 1, sizeof *x);
        double *y = calloc((size_t)info.nrows + 1, sizeof *y);
        int32_t *order = calloc((size_t)info.nrows + 1, sizeof *order);
        if (x && y && order) {
            for (int32_t j = 0; j < info.ncols; j++)
                x[j] = 1.0 + j % 7;
            psl_spmv(1.0, A, x, 0.0, y, PSL_FP64);
            psl_matrix_row_order(A, order);
            psl_matrix *B = NULL;
            if (psl_matrix_to_csr(&B, A) == PSL_OK)
                psl_matrix_destroy(&B);
        }
        free(x);
        free(y);
        free(order);
    }
    psl_matrix_destroy(&A);
    return 0;
}
