/*
 * cuda_stub.c -- the CUDA gateway of a build without CUDA: every call
 * answers PSL_ERR_NOT_SUPPORTED (output handles set to NULL), everything
 * else in the library works.
 */
#include "internal.h"

#define PSL_NO_CUDA_MSG "this libpacksell was built without CUDA (reconfigure with nvcc present and PSL_ENABLE_CUDA=ON)"

psl_status psl_cuda_device_count(int *count)
{
    if (count)
        *count = 0;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "%s", PSL_NO_CUDA_MSG);
}

psl_status psl_dmatrix_upload(psl_dmatrix **dA, const psl_matrix *A, void *stream)
{
    (void)A;
    (void)stream;
    if (dA)
        *dA = NULL;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dmatrix_upload: %s", PSL_NO_CUDA_MSG);
}

void psl_dmatrix_destroy(psl_dmatrix **dA)
{
    if (dA)
        *dA = NULL;
}

psl_status psl_dmatrix_get_info(const psl_dmatrix *dA, psl_matrix_info *info)
{
    (void)dA;
    (void)info;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dmatrix_get_info: %s", PSL_NO_CUDA_MSG);
}

psl_status psl_dspmv_workspace_size(const psl_dmatrix *dA, psl_scalar vec_type, size_t *bytes)
{
    (void)dA;
    (void)vec_type;
    (void)bytes;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dspmv_workspace_size: %s", PSL_NO_CUDA_MSG);
}

psl_status psl_dspmv(double alpha, const psl_dmatrix *dA, const void *d_x, double beta,
                     void *d_y, psl_scalar vec_type, void *workspace, size_t workspace_bytes,
                     void *stream)
{
    (void)alpha;
    (void)dA;
    (void)d_x;
    (void)beta;
    (void)d_y;
    (void)vec_type;
    (void)workspace;
    (void)workspace_bytes;
    (void)stream;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dspmv: %s", PSL_NO_CUDA_MSG);
}

psl_status psl_dmatrix_convert(psl_dmatrix **dA, const psl_dcsr *A,
                               const psl_convert_options *opt, void *stream)
{
    (void)A;
    (void)opt;
    (void)stream;
    if (dA)
        *dA = NULL;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dmatrix_convert: %s", PSL_NO_CUDA_MSG);
}

psl_status psl_dmatrix_download(psl_matrix **A, const psl_dmatrix *dA, void *stream)
{
    (void)dA;
    (void)stream;
    if (A)
        *A = NULL;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_dmatrix_download: %s", PSL_NO_CUDA_MSG);
}

psl_status psl_device_model_query(psl_device_model *m, int device, int measure_bandwidth)
{
    (void)m;
    (void)device;
    (void)measure_bandwidth;
    return psl_error(PSL_ERR_NOT_SUPPORTED, "psl_device_model_query: %s", PSL_NO_CUDA_MSG);
}
