/*
 * read_bw.cu -- the read-only streaming bandwidth of the GPU next to its
 * device-to-device copy bandwidth, in one run: the ceiling of an SpMV that
 * reads its matrix once and writes little (bench/NOTES.md, Measurement
 * method). Sums a buffer of 4-byte or 16-byte elements, each thread
 * striding over the grid, loads through the read-only path or past L1
 * (no_allocate); one value per thread is written so that nothing is
 * optimized away. Median of 30 runs after warm-up, CUDA events.
 * Built with the bench helpers (CUDA builds: build/bench/read_bw), or
 * nvcc -O3 -arch=sm_90 -std=c++17 bench/read_bw.cu -o read_bw; run: read_bw [MiB]
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(e)                                                                          \
    do {                                                                               \
        cudaError_t r_ = (e);                                                          \
        if (r_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(r_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

__device__ __forceinline__ unsigned ld_na(const unsigned *p)
{
    unsigned v;
    asm volatile("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
__device__ __forceinline__ uint4 ld_na(const uint4 *p)
{
    uint4 v;
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
    return v;
}
__device__ __forceinline__ unsigned fold(unsigned v) { return v; }
__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

/* U independent loads in flight per thread per step. */
template <class T, bool NA, int U>
__global__ void __launch_bounds__(256) sum_kernel(const T *__restrict__ a, size_t n,
                                                  unsigned *__restrict__ out)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned s = 0;
    for (; i + (U - 1) * stride < n; i += U * stride) {
        T v[U];
#pragma unroll
        for (int u = 0; u < U; u++)
            v[u] = NA ? ld_na(a + i + u * stride) : __ldg(a + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; u++)
            s += fold(v[u]);
    }
    for (; i < n; i += stride)
        s += fold(NA ? ld_na(a + i) : __ldg(a + i));
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

template <class F> static float time_ms(F f)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int w = 0; w < 5; w++)
        f();
    std::vector<float> t;
    for (int r = 0; r < 30; r++) {
        CK(cudaEventRecord(e0));
        f();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return median(t);
}

template <class T, bool NA, int U>
static void run(const char *name, const void *buf, size_t bytes, unsigned *out, int blocks,
                double copy_gbs)
{
    const size_t n = bytes / sizeof(T);
    const float ms = time_ms([&] { sum_kernel<T, NA, U><<<blocks, 256>>>((const T *)buf, n, out); });
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    printf("%-28s %8d blocks %9.1f GB/s %6.1f%% of copy\n", name, blocks, gbs, 100 * gbs / copy_gbs);
}

int main(int argc, char **argv)
{
    const size_t mib = argc > 1 ? strtoull(argv[1], 0, 10) : 2048;
    const size_t bytes = mib << 20;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    void *a, *b;
    unsigned *out;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    const int maxblk = p.multiProcessorCount * 8;
    CK(cudaMalloc(&out, (size_t)maxblk * 256 * sizeof(unsigned)));
    const float cms = time_ms([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
    const double copy = 2.0 * bytes / (cms * 1e-3) / 1e9;
    printf("%s, %d SMs, %zu MiB buffer\n", p.name, p.multiProcessorCount, mib);
    printf("%-28s %8s        %9.1f GB/s (read + write)\n", "device-to-device copy", "", copy);
    for (int per_sm : {4, 8}) {
        const int blocks = p.multiProcessorCount * per_sm;
        run<unsigned, false, 4>("u32 ldg x4", a, bytes, out, blocks, copy);
        run<unsigned, true, 4>("u32 no_allocate x4", a, bytes, out, blocks, copy);
        run<unsigned, true, 8>("u32 no_allocate x8", a, bytes, out, blocks, copy);
        run<uint4, false, 2>("u128 ldg x2", a, bytes, out, blocks, copy);
        run<uint4, true, 2>("u128 no_allocate x2", a, bytes, out, blocks, copy);
        run<uint4, true, 4>("u128 no_allocate x4", a, bytes, out, blocks, copy);
    }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(out));
    return 0;
}
