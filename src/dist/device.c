/*
 * device.c -- the device copy of a distributed matrix (packsell_mpi.h,
 * "GPUs"): not built yet; every entry answers PSL_ERR_NOT_SUPPORTED.
 */
#include "dist/dist_internal.h"

psl_status psl_dist_matrix_upload(psl_dist_matrix *A, int device, psl_dist_transport transport,
                                  void *stream)
{
    (void)device, (void)transport, (void)stream;
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_upload"));
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dist_matrix_upload: no device path yet");
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
    (void)alpha, (void)d_x, (void)beta, (void)d_y, (void)vec_type, (void)stream;
    PSL_TRY(psl_dist_check(A, "psl_dist_dspmv"));
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dist_dspmv: no device path yet");
}

psl_status psl_dist_device_sum(const psl_dist_matrix *A, double *d_vals, int k, void *stream)
{
    (void)d_vals, (void)k, (void)stream;
    PSL_TRY(psl_dist_check(A, "psl_dist_device_sum"));
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dist_device_sum: no device path yet");
}
