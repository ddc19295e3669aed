/*
 * device_stub.c -- the GPU entries of packsell_mpi.h in a build without
 * CUDA: after the handle checks, psl_dist_matrix_upload, psl_dist_dspmv and
 * psl_dist_device_sum answer PSL_ERR_NOT_SUPPORTED; psl_dist_matrix_device
 * reports no device copy.
 */
#include "dist/dist_internal.h"

#define PSL_DIST_NO_CUDA_MSG                                                            \
    "libpacksell_mpi was built without CUDA (reconfigure with nvcc present and "      \
    "PSL_ENABLE_CUDA=ON)"

void psl_dist_device_free(psl_dist_matrix *A)
{
    if (A)
        A->dev = NULL;
}

psl_status psl_dist_matrix_upload(psl_dist_matrix *A, int device, psl_dist_transport transport,
                                  void *stream)
{
    (void)device;
    (void)transport;
    (void)stream;
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_upload"));
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dist_matrix_upload: %s", PSL_DIST_NO_CUDA_MSG);
}

psl_status psl_dist_matrix_device(const psl_dist_matrix *A, int *device,
                                  psl_dist_transport *transport)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_device"));
    if (device)
        *device = -1;
    if (transport)
        *transport = PSL_DIST_TRANSPORT_AUTO;
    return PSL_OK;
}

psl_status psl_dist_dspmv(double alpha, const psl_dist_matrix *A, const void *d_x, double beta,
                          void *d_y, psl_scalar vec_type, void *stream)
{
    (void)alpha;
    (void)d_x;
    (void)beta;
    (void)d_y;
    (void)vec_type;
    (void)stream;
    PSL_TRY(psl_dist_check(A, "psl_dist_dspmv"));
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dist_dspmv: %s", PSL_DIST_NO_CUDA_MSG);
}

psl_status psl_dist_device_sum(const psl_dist_matrix *A, double *d_vals, int k, void *stream)
{
    (void)d_vals;
    (void)k;
    (void)stream;
    PSL_TRY(psl_dist_check(A, "psl_dist_device_sum"));
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dist_device_sum: %s", PSL_DIST_NO_CUDA_MSG);
}
