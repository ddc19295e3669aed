/*
 * dist_gpu_bench.c -- psl_dist_dspmv timed under mpirun on HPCG generated
 * per rank (psl_dist_generate_hpcg, an nx x ny x nz box a rank), for
 * PackSELL FP16 blocks (FP16 and FP64 vectors) and SELL FP64 blocks (FP64
 * vectors), over every transport the run can use, next to psl_dspmv of the
 * same local A_d alone (the distributed layer's overhead on one rank).
 * Each case: warm-up, then `reps` runs each between CUDA events after an
 * MPI_Barrier, the median per rank; then a separate timed pass
 * (psl_dist_matrix_set_timing) for the phase split. One JSON line a case
 * on rank 0's stdout. Not run in CI.
 *
 *   mpirun -np N dist_gpu_bench NX NY NZ [REPS (default 100)]
 *   e.g. mpirun -np 1 dist_gpu_bench 256 256 256   (HPCG_8_8_8 on one rank)
 */
#include "packsell_mpi.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size;

#define CUDA_TRY(call)                                                                     \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "rank %d: %s: %s\n", g_rank, #call, cudaGetErrorString(e_));   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
        }                                                                                  \
    } while (0)

#define PSL_TRY_MAIN(call)                                                                 \
    do {                                                                                   \
        psl_status s_ = (call);                                                            \
        if (s_ != PSL_OK) {                                                                \
            fprintf(stderr, "rank %d: %s: %s\n", g_rank, #call, psl_last_error_message()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
        }                                                                                  \
    } while (0)

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static const char *tname(psl_dist_transport t)
{
    switch (t) {
    case PSL_DIST_TRANSPORT_HOST: return "host";
    case PSL_DIST_TRANSPORT_CUDA_AWARE: return "cuda_aware";
    case PSL_DIST_TRANSPORT_NCCL: return "nccl";
    default: return "auto";
    }
}

/* The median of `reps` event-timed runs of one product (microseconds). */
typedef struct run_ctx {
    const psl_dist_matrix *A; /* distributed product, or */
    const psl_dmatrix *dA;    /* the local product alone */
    void *ws;
    size_t ws_bytes;
    const void *x;
    void *y;
    psl_scalar vt;
    cudaStream_t s;
} run_ctx;

static void run_once(const run_ctx *c)
{
    if (c->A)
        PSL_TRY_MAIN(psl_dist_dspmv(1.0, c->A, c->x, 0.0, c->y, c->vt, c->s));
    else
        PSL_TRY_MAIN(psl_dspmv(1.0, c->dA, c->x, 0.0, c->y, c->vt, c->ws, c->ws_bytes, c->s));
}

static double median_us(const run_ctx *c, int reps, cudaEvent_t e0, cudaEvent_t e1)
{
    float *t = malloc((size_t)reps * sizeof *t);
    for (int w = 0; w < 10; w++)
        run_once(c);
    CUDA_TRY(cudaStreamSynchronize(c->s));
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        CUDA_TRY(cudaEventRecord(e0, c->s));
        run_once(c);
        CUDA_TRY(cudaEventRecord(e1, c->s));
        CUDA_TRY(cudaEventSynchronize(e1));
        CUDA_TRY(cudaEventElapsedTime(&t[r], e0, e1));
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_float);
    double m = 1e3 * (reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]));
    free(t);
    return m;
}

/* "[a, b, ...]" of every rank's value, into buf (rank 0's). */
static void gather_list(double v, char *buf, size_t len)
{
    double *all = malloc((size_t)g_size * sizeof *all);
    MPI_Gather(&v, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "[");
    for (int r = 0; r < g_size && g_rank == 0 && o < len; r++)
        o += (size_t)snprintf(buf + o, len - o, "%s%.2f", r ? ", " : "", all[r]);
    if (o < len)
        snprintf(buf + o, len - o, "]");
    free(all);
}

static double max_over_ranks(double v)
{
    double m = 0.0;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static void bench_case(int nx, int ny, int nz, int reps, const char *fmt_name,
                       const psl_convert_options *opt, psl_scalar vt)
{
    psl_dist_matrix *A = NULL;
    PSL_TRY_MAIN(psl_dist_generate_hpcg(&A, MPI_COMM_WORLD, nx, ny, nz, 0.0, opt, opt));
    psl_dist_info info;
    PSL_TRY_MAIN(psl_dist_matrix_get_info(A, &info));
    const psl_dist_transport ts[3] = {PSL_DIST_TRANSPORT_HOST, PSL_DIST_TRANSPORT_CUDA_AWARE,
                                      PSL_DIST_TRANSPORT_NCCL};
    size_t es = vt == PSL_FP64 ? 8 : vt == PSL_FP32 ? 4 : 2;
    for (int ti = 0; ti < 3; ti++) {
        psl_status st = psl_dist_matrix_upload(A, -1, ts[ti], NULL);
        if (st == PSL_ERR_NOT_SUPPORTED) {
            if (g_rank == 0)
                printf("{\"bench\": \"dist_dspmv\", \"np\": %d, \"box\": [%d, %d, %d], "
                       "\"format\": \"%s\", \"vec\": \"%s\", \"transport\": \"%s\", "
                       "\"skipped\": \"%s\"}\n",
                       g_size, nx, ny, nz, fmt_name, psl_scalar_name(vt), tname(ts[ti]),
                       psl_last_error_message());
            continue;
        }
        PSL_TRY_MAIN(st);
        int dev = 0;
        PSL_TRY_MAIN(psl_dist_matrix_device(A, &dev, NULL));
        CUDA_TRY(cudaSetDevice(dev));
        cudaStream_t s;
        cudaEvent_t e0, e1;
        CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CUDA_TRY(cudaEventCreate(&e0));
        CUDA_TRY(cudaEventCreate(&e1));
        void *x = NULL, *y = NULL;
        size_t bytes = ((size_t)info.nrows + 1) * es;
        CUDA_TRY(cudaMalloc(&x, bytes));
        CUDA_TRY(cudaMalloc(&y, bytes));
        unsigned char *h = malloc(bytes); /* x = 1 in every type */
        for (int32_t i = 0; i < info.nrows; i++) {
            if (vt == PSL_FP64)
                ((double *)h)[i] = 1.0;
            else if (vt == PSL_FP32)
                ((float *)h)[i] = 1.0f;
            else
                ((uint16_t *)h)[i] = 0x3c00u;
        }
        CUDA_TRY(cudaMemcpy(x, h, (size_t)info.nrows * es, cudaMemcpyHostToDevice));
        free(h);

        run_ctx dist = {A, NULL, NULL, 0, x, y, vt, s};
        double t_dist = median_us(&dist, reps, e0, e1);
        /* the same local A_d alone */
        const psl_matrix *Ad = NULL;
        PSL_TRY_MAIN(psl_dist_matrix_blocks(A, &Ad, NULL, NULL));
        psl_dmatrix *dAd = NULL;
        PSL_TRY_MAIN(psl_dmatrix_upload(&dAd, Ad, s));
        run_ctx local = {NULL, dAd, NULL, 0, x, y, vt, s};
        PSL_TRY_MAIN(psl_dspmv_workspace_size(dAd, vt, &local.ws_bytes));
        if (local.ws_bytes)
            CUDA_TRY(cudaMalloc(&local.ws, local.ws_bytes));
        double t_local = median_us(&local, reps, e0, e1);
        /* the timed pass: the phase split per SpMV */
        PSL_TRY_MAIN(psl_dist_matrix_set_timing(A, 1));
        PSL_TRY_MAIN(psl_dist_matrix_timings(A, NULL, 1));
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            run_once(&dist);
        }
        CUDA_TRY(cudaStreamSynchronize(s));
        psl_dist_timings tm;
        PSL_TRY_MAIN(psl_dist_matrix_timings(A, &tm, 1));
        PSL_TRY_MAIN(psl_dist_matrix_set_timing(A, 0));
        double per = tm.spmvs ? 1e6 / (double)tm.spmvs : 0.0;
        char l_dist[512], l_local[512], l_pack[512], l_ad[512], l_wait[512], l_ao[512];
        gather_list(t_dist, l_dist, sizeof l_dist);
        gather_list(t_local, l_local, sizeof l_local);
        gather_list(tm.pack_s * per, l_pack, sizeof l_pack);
        gather_list(tm.local_s * per, l_ad, sizeof l_ad);
        gather_list(tm.wait_s * per, l_wait, sizeof l_wait);
        gather_list(tm.remote_s * per, l_ao, sizeof l_ao);
        double md = max_over_ranks(t_dist), ml = max_over_ranks(t_local);
        int64_t ghosts = info.nghost, gmax = 0;
        MPI_Reduce(&ghosts, &gmax, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
        if (g_rank == 0)
            printf("{\"bench\": \"dist_dspmv\", \"np\": %d, \"box\": [%d, %d, %d], "
                   "\"n_global\": %lld, \"nnz_global\": %lld, \"format\": \"%s\", \"vec\": "
                   "\"%s\", \"transport\": \"%s\", \"reps\": %d, \"max_ghosts\": %lld, "
                   "\"median_us\": %.2f, \"local_dspmv_us\": %.2f, \"overhead\": %.4f, "
                   "\"median_us_per_rank\": %s, \"local_dspmv_us_per_rank\": %s, "
                   "\"timed_split_us\": {\"pack\": %s, \"local\": %s, \"wait\": %s, "
                   "\"remote\": %s}}\n",
                   g_size, nx, ny, nz, (long long)info.n_global, (long long)info.nnz_global,
                   fmt_name, psl_scalar_name(vt), tname(ts[ti]), reps, (long long)gmax, md, ml,
                   ml > 0 ? md / ml - 1.0 : 0.0, l_dist, l_local, l_pack, l_ad, l_wait, l_ao);
        fflush(stdout);
        psl_dmatrix_destroy(&dAd);
        cudaFree(local.ws);
        cudaFree(x);
        cudaFree(y);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        cudaStreamDestroy(s);
    }
    psl_dist_matrix_destroy(&A);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    if (argc < 4) {
        if (g_rank == 0)
            fprintf(stderr, "usage: mpirun -np N %s NX NY NZ [REPS]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]);
    int reps = argc > 4 ? atoi(argv[4]) : 100;
    if (nx < 1 || ny < 1 || nz < 1 || reps < 1) {
        if (g_rank == 0)
            fprintf(stderr, "NX NY NZ and REPS must be >= 1\n");
        MPI_Finalize();
        return 2;
    }
    psl_convert_options pk, sl;
    psl_convert_options_init(&pk);
    pk.format = PSL_FORMAT_PACKSELL; /* codec FP16 by default */
    psl_convert_options_init(&sl);
    sl.format = PSL_FORMAT_SELL;
    sl.value_type = PSL_FP64;
    bench_case(nx, ny, nz, reps, "packsell-fp16", &pk, PSL_FP16);
    bench_case(nx, ny, nz, reps, "packsell-fp16", &pk, PSL_FP64);
    bench_case(nx, ny, nz, reps, "sell-fp64", &sl, PSL_FP64);
    MPI_Finalize();
    return 0;
}
