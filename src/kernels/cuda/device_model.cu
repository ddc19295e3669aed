/*
 * device_model.cu -- psl_device_model_query (extern "C"): the chooser's
 * device model of a CUDA device, from its properties, the largest cluster
 * the long-row kernels would use there (psl_cuda_cluster_blocks, capped by
 * PSL_CUDA_WIDE_CLUSTER as the uploads are), and, when asked, its
 * device-to-device copy bandwidth, measured once per device and process.
 */
#include "dmatrix.cuh"

#include "core/options.h"

#include <mutex>
#include <stdlib.h>
#include <string.h>

#define MODEL_COPY_BYTES ((size_t)1 << 30)      /* each buffer of the timed copy, at most */
#define MODEL_COPY_BYTES_MIN ((size_t)16 << 20) /* ... at least (halved while it fails) */
#define MODEL_COPY_WARMUP 3                     /* untimed copies first (clocks, first touch) */
#define MODEL_COPY_RUNS 20                      /* timed copies: their median */
#define MODEL_CACHED_DEVICES 64                 /* ordinals whose bandwidth is cached */

/* Median of n values (sorts v). */
static double psl_model_median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Device-to-device copy bandwidth of the current device in *gbs (GB/s,
 * bytes read + written): the median of MODEL_COPY_RUNS timed copies, each
 * alone on a private stream. Everything allocated here is freed. */
static psl_status psl_model_measure_copy(double *gbs)
{
    psl_status st = PSL_OK;
    void *src = NULL, *dst = NULL;
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    double ms[MODEL_COPY_RUNS];
    size_t bytes = MODEL_COPY_BYTES;
    for (; bytes >= MODEL_COPY_BYTES_MIN; bytes /= 2) {
        if (cudaMalloc(&src, bytes) == cudaSuccess && cudaMalloc(&dst, bytes) == cudaSuccess)
            break;
        (void)cudaFree(src);
        src = dst = NULL;
        (void)cudaGetLastError();
    }
    if (!dst) {
        st = psl_error(PSL_ERR_OUT_OF_MEMORY,
                       "psl_device_model_query: cannot allocate two device buffers of %zu MiB "
                       "to measure the copy bandwidth",
                       MODEL_COPY_BYTES_MIN >> 20);
        goto fail;
    }
    PSL_CUDA_GO(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    PSL_CUDA_GO(cudaEventCreate(&e0));
    PSL_CUDA_GO(cudaEventCreate(&e1));
    PSL_CUDA_GO(cudaMemsetAsync(src, 0x5a, bytes, s)); /* never copy uninitialized memory */
    for (int r = 0; r < MODEL_COPY_WARMUP; r++)
        PSL_CUDA_GO(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    for (int r = 0; r < MODEL_COPY_RUNS; r++) {
        float t = 0;
        PSL_CUDA_GO(cudaEventRecord(e0, s));
        PSL_CUDA_GO(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
        PSL_CUDA_GO(cudaEventRecord(e1, s));
        PSL_CUDA_GO(cudaEventSynchronize(e1));
        PSL_CUDA_GO(cudaEventElapsedTime(&t, e0, e1));
        ms[r] = t;
    }
    {
        const double med = psl_model_median(ms, MODEL_COPY_RUNS);
        if (!(med > 0)) {
            st = psl_error(PSL_ERR_CUDA, "psl_device_model_query: a copy of %zu bytes timed %g ms",
                           bytes, med);
            goto fail;
        }
        *gbs = 2.0 * (double)bytes / (med * 1e-3) * 1e-9;
    }
fail:
    if (s)
        (void)cudaStreamSynchronize(s);
    if (e0)
        (void)cudaEventDestroy(e0);
    if (e1)
        (void)cudaEventDestroy(e1);
    if (s)
        (void)cudaStreamDestroy(s);
    (void)cudaFree(src);
    (void)cudaFree(dst);
    (void)cudaGetLastError();
    return st;
}

/* The measured copy bandwidth of each device, 0 until measured. */
static std::mutex psl_model_lock;
static double psl_model_copy_gbs[MODEL_CACHED_DEVICES];

/* The model of the current device `dev` into *m. */
static psl_status psl_model_fill(psl_device_model *m, int dev, int measure)
{
    cudaDeviceProp p;
    PSL_TRY(PSL_CUDA_OK(cudaGetDeviceProperties(&p, dev)));
    PSL_TRY(psl_device_model_default(m));
    size_t len = strnlen(p.name, sizeof p.name); /* truncated to the model's name */
    if (len >= sizeof m->name)
        len = sizeof m->name - 1;
    memset(m->name, 0, sizeof m->name);
    memcpy(m->name, p.name, len);
    m->name[len] = '\0';
    m->sm_count = p.multiProcessorCount;
    m->threads_per_sm = p.maxThreadsPerMultiProcessor;
    m->l2_bytes = p.l2CacheSize;
    int want = PSL_WIDE_CLUSTER_MAX; /* the cap the uploads apply (options.h) */
    PSL_TRY(psl_opt_get(PSL_OPT_CUDA_WIDE_CLUSTER, &want));
    m->cluster_max = psl_cuda_cluster_blocks(dev, want);
    if (!measure)
        return PSL_OK;
    std::lock_guard<std::mutex> hold(psl_model_lock);
    double gbs = dev < MODEL_CACHED_DEVICES ? psl_model_copy_gbs[dev] : 0.0;
    if (gbs <= 0) {
        PSL_TRY(psl_model_measure_copy(&gbs));
        if (dev < MODEL_CACHED_DEVICES)
            psl_model_copy_gbs[dev] = gbs;
    }
    m->copy_gbs = gbs;
    m->copy_measured = 1;
    return PSL_OK;
}

extern "C" psl_status psl_device_model_query(psl_device_model *m, int device,
                                             int measure_bandwidth)
{
    if (!m)
        return psl_error(PSL_ERR_NULL_POINTER, "device model m is NULL");
    int count = 0, cur = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError();
        count = 0;
    } else {
        PSL_TRY(PSL_CUDA_OK(err));
    }
    if (count == 0)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_device_model_query: device %d: no CUDA device is present", device);
    if (device < -1 || device >= count)
        return psl_error(PSL_ERR_INVALID_VALUE,
                         "psl_device_model_query: device %d is not a CUDA device (0 to %d, or "
                         "-1 for the current one)",
                         device, count - 1);
    PSL_TRY(PSL_CUDA_OK(cudaGetDevice(&cur)));
    const int dev = device < 0 ? cur : device;
    if (dev != cur)
        PSL_TRY(PSL_CUDA_OK(cudaSetDevice(dev)));
    psl_device_model out;
    psl_status st = psl_model_fill(&out, dev, measure_bandwidth);
    if (dev != cur) {
        psl_status back = PSL_CUDA_OK(cudaSetDevice(cur));
        if (st == PSL_OK)
            st = back;
    }
    if (st == PSL_OK)
        *m = out;
    return st;
}
