/*
 * gpu_harness.h -- the main of the GPU tests (test_gpu_*.c): find out
 * whether there is a CUDA device, and without one run the test's checks
 * that the device API fails cleanly, print SKIP and pass; with one, run the
 * tests on a stream of their own. CUDA_CHECK for the tests' own runtime calls.
 */
#ifndef PSL_TEST_GPU_HARNESS_H
#define PSL_TEST_GPU_HARNESS_H

#include "harness.h"
#include "packsell.h"

#include <stdio.h>

#ifdef PSL_HAVE_CUDA
#include <cuda_runtime.h>

/* A CUDA runtime call that must succeed: a failed check names the call. */
#define CUDA_CHECK(call)                                                                   \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        CHECK_MSG(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));             \
    } while (0)
#endif

/* -1 when a CUDA device is there (go on with the GPU tests). Otherwise the
 * exit code: without a device, or in a build without CUDA, it runs
 * without_device(status of psl_cuda_device_count), prints SKIP and returns
 * PSL_TEST_SKIPPED (1 if those checks failed); 1 when the device count
 * itself failed or a build without CUDA reports a device. */
static inline int psl_gpu_test_gate(void (*without_device)(psl_status))
{
    int count = 0;
    psl_status st = psl_cuda_device_count(&count);
    if (st == PSL_ERR_NOT_SUPPORTED || (st == PSL_OK && count == 0)) {
        without_device(st);
        printf("SKIP: no CUDA device (GPU tests skipped); %d checks of the device-less "
               "behaviour, %s\n",
               psl_t_checks, psl_t_failures_in_test ? "FAILED" : "ok");
        return psl_t_failures_in_test ? 1 : PSL_TEST_SKIPPED;
    }
    if (st != PSL_OK) {
        fprintf(stderr, "psl_cuda_device_count: %s\n", psl_last_error_message());
        return 1;
    }
#ifndef PSL_HAVE_CUDA
    fprintf(stderr, "a device was reported in a build without CUDA\n");
    return 1;
#else
    return -1;
#endif
}

/* main() of a GPU test: psl_gpu_test_gate(without_device); with a device,
 * a non-blocking stream in `stream`, the tests of `table` (PSL_TEST_MAIN's
 * name filter), finish() (the test's frees and totals), and the stream
 * destroyed. In a build without CUDA only the gate runs (table, stream and
 * finish are not referenced). */
#ifdef PSL_HAVE_CUDA
#define PSL_GPU_TEST_MAIN(table, without_device, stream, finish)                     \
    PSL_TEST_MAIN_AS(psl_gpu_tests_main, table)                                      \
    int main(int argc, char **argv)                                                  \
    {                                                                                \
        int gate = psl_gpu_test_gate(without_device);                                \
        if (gate >= 0)                                                               \
            return gate;                                                             \
        if (cudaStreamCreateWithFlags(&(stream), cudaStreamNonBlocking) != cudaSuccess) { \
            fprintf(stderr, "cudaStreamCreate failed\n");                            \
            return 1;                                                                \
        }                                                                            \
        int rc = psl_gpu_tests_main(argc, argv);                                     \
        finish();                                                                    \
        cudaStreamDestroy(stream);                                                   \
        return rc;                                                                   \
    }
#else
#define PSL_GPU_TEST_MAIN(table, without_device, stream, finish)                     \
    int main(void)                                                                   \
    {                                                                                \
        int gate = psl_gpu_test_gate(without_device);                                \
        return gate >= 0 ? gate : 1; /* a device in a build without CUDA: the gate says so */ \
    }
#endif

#endif /* PSL_TEST_GPU_HARNESS_H */
