/*
 * packsell_mpi.h -- the distributed layer of libpacksell (libpacksell_mpi):
 * a square matrix whose rows are split in contiguous blocks over the ranks of
 * an MPI communicator, its SpMV with the halo exchange overlapped, and the
 * distributed dot products and CG built on them. Built when CMake finds MPI
 * (option PSL_WITH_MPI); link packsell::packsell_mpi.
 *
 * Layout (the one PETSc's MPIAIJ and hypre's ParCSR use): rank r owns the
 * global rows [first_row_r, first_row_r + nrows_r), blocks in rank order
 * covering 0..n-1 (a rank may own no rows), and the same entries of x and y.
 * Its rows are stored as two psl_matrix blocks:
 *   A_d  nrows x nrows: the owned columns, local index col - first_row;
 *   A_o  nrows x nghost: the other columns ("ghosts"), column k being global
 *        column garray[k], garray the sorted unique ghost columns.
 * Both can be in any format of packsell.h (CSR, SELL, PackSELL, CSR-k).
 * Which ranks send which entries of x (the halo plan) is learned at creation
 * by communication: each rank tells the owners of its ghosts which entries
 * it needs (MPI_Alltoall of counts, MPI_Alltoallv of indices).
 *
 * Conventions beyond those of packsell.h:
 *  - Every function taking an MPI_Comm or a psl_dist_matrix is collective
 *    over that communicator: all its ranks call it, in the same order.
 *  - psl_dist_balance_rows and psl_dist_matrix_create_csr agree on their
 *    result: when any rank fails, every rank returns the same status, and
 *    psl_last_error_message() names the first failing rank ("rank 2: ...").
 *    The dot products and psl_dist_pcg do the same at no extra cost. In
 *    psl_dist_spmv a rank with bad arguments still takes part in the halo
 *    exchange (so no rank waits forever) and returns its error alone.
 *  - An MPI call that fails gives PSL_ERR_MPI (with the communicator's
 *    error handler set to MPI_ERRORS_RETURN; the default one aborts).
 *  - The matrix keeps a duplicate of the communicator (MPI_Comm_dup): its
 *    messages never mix with the caller's. Destroy it before MPI_Finalize.
 *  - Results are deterministic: for a fixed number of ranks the same inputs
 *    give the same bits, run after run; reductions sum the ranks' partial
 *    results in rank order on every rank, so every rank gets the same bits.
 */
#ifndef PACKSELL_MPI_H
#define PACKSELL_MPI_H

#include <mpi.h>

#include "packsell.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque distributed matrix handle. */
typedef struct psl_dist_matrix psl_dist_matrix;

/* Contiguous row blocks for the ranks of comm, in rank order: this rank's
 * first row and row count. Collective.
 *   comm       the communicator (every rank passes the same n_global)
 *   n_global   number of rows, >= 0
 *   row_ptr    NULL: balance by rows (rank r starts at floor(r n / p));
 *              else the global row pointer (n_global+1 entries, the same on
 *              every rank, non-decreasing): balance by nonzeros, rank r
 *              starting at the first row i with
 *              row_ptr[i] - row_ptr[0] >= floor(r nnz / p) (a rank may get
 *              no rows, e.g. when one row holds most nonzeros)
 *   first_row  receives this rank's first row (host memory)
 *   nrows      receives this rank's row count
 * Errors (every rank the same): PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE
 * (n_global < 0 or different across ranks, row_ptr decreasing),
 * PSL_ERR_SIZE_OVERFLOW (a block beyond int32 rows), PSL_ERR_MPI; outputs
 * are then untouched. */
psl_status psl_dist_balance_rows(MPI_Comm comm, int64_t n_global, const int64_t *row_ptr,
                                 int64_t *first_row, int32_t *nrows);

/* Create a distributed n_global x n_global matrix from each rank's rows.
 * Collective; the arrays are copied (the caller keeps them).
 *   A           receives the handle (NULL on error)
 *   comm        the communicator (duplicated)
 *   n_global    global rows and columns, >= 0, the same on every rank
 *   first_row   this rank's first global row; the blocks must be contiguous
 *               in rank order and cover 0..n_global-1 (checked collectively)
 *   nrows       this rank's rows, >= 0
 *   row_ptr     nrows+1 entries, 0-based, row_ptr[0] == 0, non-decreasing
 *   col_idx     row_ptr[nrows] GLOBAL column indices in [0, n_global)
 *   values      row_ptr[nrows] finite doubles
 *   diag_opt    storage of A_d (psl_matrix_convert's options; NULL: FP64 CSR)
 *   offd_opt    storage of A_o (NULL: FP64 CSR)
 * Within a row, columns may come in any order and duplicates are summed (as
 * psl_matrix_create_csr does). An explicit sigma permutation is refused
 * (its products come out in stored row order). Errors (every rank the same):
 * PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (sizes, blocks not contiguous
 * or not covering the rows, n_global different across ranks, options),
 * PSL_ERR_INVALID_MATRIX (row_ptr, a column out of range: named with its
 * global row), PSL_ERR_NONFINITE, PSL_ERR_CODEC_OVERFLOW and the other
 * errors of psl_matrix_create_csr and psl_matrix_convert, PSL_ERR_SIZE_OVERFLOW,
 * PSL_ERR_OUT_OF_MEMORY, PSL_ERR_MPI. */
psl_status psl_dist_matrix_create_csr(psl_dist_matrix **A, MPI_Comm comm, int64_t n_global,
                                      int64_t first_row, int32_t nrows, const int64_t *row_ptr,
                                      const int64_t *col_idx, const double *values,
                                      const psl_convert_options *diag_opt,
                                      const psl_convert_options *offd_opt);

/* How psl_dist_matrix_scatter_csr, psl_dist_matrix_read_mm and
 * psl_dist_generate split the rows over the ranks (psl_dist_balance_rows'
 * two rules). */
typedef enum psl_dist_balance {
    PSL_DIST_BALANCE_NNZ = 0, /* by nonzeros: psl_dist_balance_rows with the row pointer */
    PSL_DIST_BALANCE_ROWS = 1 /* by rows: psl_dist_balance_rows without it */
} psl_dist_balance;

/* Create a distributed matrix from a whole FP64 CSR matrix held on rank
 * `root` alone: root splits the rows in contiguous blocks (`balance`, the
 * rule of psl_dist_balance_rows, so the blocks are the ones it gives) and
 * sends each rank its rows (MPI_Scatter of each rank's row count and
 * nonzeros, then its row pointers, columns and values in messages of at
 * most 2^28 entries each, so a rank may receive more than 2^31 nonzeros);
 * then psl_dist_matrix_create_csr on every rank. Collective.
 *   A          receives the handle (NULL on error)
 *   comm       the communicator (duplicated by the matrix)
 *   src        on root: an FP64 CSR matrix (psl_mm_read, psl_generate,
 *              psl_matrix_to_csr), square; read there only (the caller
 *              keeps it); ignored on the other ranks (may be NULL)
 *   root       the rank holding src, the same on every rank
 *   balance    PSL_DIST_BALANCE_NNZ or PSL_DIST_BALANCE_ROWS
 *   diag_opt, offd_opt  as psl_dist_matrix_create_csr
 * Errors (every rank the same, root's message on every rank):
 * PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE (src on root),
 * PSL_ERR_INVALID_VALUE (root out of range or different across ranks,
 * balance), PSL_ERR_WRONG_FORMAT (src not FP64 CSR), PSL_ERR_UNSUPPORTED
 * (src not square), PSL_ERR_OUT_OF_MEMORY, PSL_ERR_MPI and those of
 * psl_dist_matrix_create_csr. */
psl_status psl_dist_matrix_scatter_csr(psl_dist_matrix **A, MPI_Comm comm, const psl_matrix *src,
                                       int root, psl_dist_balance balance,
                                       const psl_convert_options *diag_opt,
                                       const psl_convert_options *offd_opt);

/* Read a Matrix Market file on rank `root` only (psl_mm_read: the other
 * ranks need not see the file; path is ignored there and may be NULL) and
 * scatter its rows as psl_dist_matrix_scatter_csr does. The matrix must be
 * square. Collective. Errors (every rank the same): those of psl_mm_read
 * on root (PSL_ERR_IO for a missing file, PSL_ERR_PARSE naming the line,
 * ...), given on every rank with root's message ("rank R: ..." on the
 * others); PSL_ERR_UNSUPPORTED (not square, named with its size), and
 * those of psl_dist_matrix_scatter_csr. Nothing is kept on error. */
psl_status psl_dist_matrix_read_mm(psl_dist_matrix **A, MPI_Comm comm, const char *path,
                                   int root, psl_dist_balance balance,
                                   const psl_convert_options *diag_opt,
                                   const psl_convert_options *offd_opt);

/* The 3D process grid of nranks ranks that the generators use: dims[0] x
 * dims[1] x dims[2] = nranks with the smallest dims[0] + dims[1] + dims[2]
 * (ties: the most ranks along z). Local. Errors: PSL_ERR_NULL_POINTER,
 * PSL_ERR_INVALID_VALUE (nranks < 1). */
psl_status psl_dist_process_grid(int nranks, int dims[3]);

/* HPCG's matrix (the 27-point box stencil, 26 on the diagonal, -1 off it)
 * generated on each rank for its own rows, as HPCG does: each rank holds an
 * nx x ny x nz box of the global (dims[0] nx) x (dims[1] ny) x (dims[2] nz)
 * grid, dims = psl_dist_process_grid(ranks), rank r at box (r mod dims[0],
 * (r / dims[0]) mod dims[1], r / (dims[0] dims[1])). Global rows are
 * numbered rank by rank: rank r owns rows [r n_local, (r+1) n_local),
 * n_local = nx ny nz, x fastest inside the box. beta != 0 gives the
 * nonsymmetric HPGMP variant (-1-beta and -1+beta at the z neighbours, as
 * psl_generate's hpgmp; HPGMP uses 0.5). Collective; storage as
 * psl_dist_matrix_create_csr. Errors (every rank the same):
 * PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (a size < 1, beta not
 * finite), PSL_ERR_SIZE_OVERFLOW (n_local beyond int32),
 * PSL_ERR_OUT_OF_MEMORY, and those of psl_dist_matrix_create_csr. */
psl_status psl_dist_generate_hpcg(psl_dist_matrix **A, MPI_Comm comm, int32_t nx, int32_t ny,
                                  int32_t nz, double beta, const psl_convert_options *diag_opt,
                                  const psl_convert_options *offd_opt);

/* Any generator spec of psl_generate (packsell.h: hpcg, hpgmp, lap2d,
 * lap3d, banded, powerlaw, random) generated on each rank for its own
 * contiguous block of rows, rows numbered as psl_generate numbers them: each
 * row is the same bits (columns and values) as in the serial matrix, and
 * the blocks are those psl_dist_balance_rows gives with that matrix's row
 * pointer (balance PSL_DIST_BALANCE_NNZ) or without it (_ROWS), so the
 * result equals psl_dist_matrix_scatter_csr of psl_generate's matrix with
 * the same balance. No rank holds the whole matrix or all its row lengths:
 * each counts its even share of the rows and the block starts are shared;
 * powerlaw's scale is found from the sums of the ranks' shares (the serial
 * scale). hpcg and hpgmp come as blocks of the natural numbering (z slabs),
 * not psl_dist_generate_hpcg's process grid. Memory per rank: its rows and
 * nonzeros (and n / ranks row lengths). Collective; storage as
 * psl_dist_matrix_create_csr.
 *   A          receives the handle (NULL on error)
 *   comm       the communicator (duplicated by the matrix)
 *   spec       the generator spec, the same on every rank
 *   balance    PSL_DIST_BALANCE_NNZ or PSL_DIST_BALANCE_ROWS
 *   diag_opt, offd_opt  as psl_dist_matrix_create_csr
 * Errors (every rank the same): those of psl_generate for the spec
 * (PSL_ERR_PARSE, PSL_ERR_INVALID_VALUE, PSL_ERR_SIZE_OVERFLOW, with
 * psl_generate's message on every rank; the memory check is for this rank's
 * share of the rows), PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_VALUE (balance),
 * PSL_ERR_OUT_OF_MEMORY, PSL_ERR_MPI and those of
 * psl_dist_matrix_create_csr. */
psl_status psl_dist_generate(psl_dist_matrix **A, MPI_Comm comm, const char *spec,
                             psl_dist_balance balance, const psl_convert_options *diag_opt,
                             const psl_convert_options *offd_opt);

/* Destroy a distributed matrix (frees its duplicate communicator) and set
 * *A to NULL; NULL or *A == NULL: no-op. Collective. */
void psl_dist_matrix_destroy(psl_dist_matrix **A);

/* Statistics of a distributed matrix, this rank's view. */
typedef struct psl_dist_info {
    int32_t rank, nranks;     /* in the matrix's communicator */
    int64_t n_global;         /* global rows and columns */
    int64_t first_row;        /* this rank's first row */
    int32_t nrows;            /* this rank's rows (= its entries of x and y) */
    int64_t nnz_d, nnz_o;     /* entries of A_d and A_o (duplicates summed) */
    int64_t nnz_global;       /* nnz_d + nnz_o summed over the ranks */
    int32_t nghost;           /* ghost columns: entries of x received per SpMV */
    int32_t recv_neighbors;   /* ranks this rank receives from */
    int32_t send_neighbors;   /* ranks this rank sends to */
    int64_t send_entries;     /* entries of x this rank sends per SpMV */
    int64_t bytes_sent_fp64;  /* bytes sent per SpMV with FP64 vectors (8 per entry) */
    int64_t bytes_sent_fp32;  /* ... FP32 vectors (4 per entry) */
    int64_t bytes_sent_fp16;  /* ... FP16 vectors (2 per entry) */
} psl_dist_info;

/* This rank's statistics into *info. Local (no communication).
 * Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE. */
psl_status psl_dist_matrix_get_info(const psl_dist_matrix *A, psl_dist_info *info);

/* Read-only views of this rank's blocks and ghost list, owned by A and valid
 * until it is destroyed: *A_d (nrows x nrows), *A_o (nrows x nghost) and
 * *garray (nghost sorted global columns; NULL when nghost == 0). Any output
 * may be NULL. Local. Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE. */
psl_status psl_dist_matrix_blocks(const psl_dist_matrix *A, const psl_matrix **A_d,
                                  const psl_matrix **A_o, const int64_t **garray);

/* y = alpha*A*x + beta*y over the ranks (beta == 0: y is not read). Each
 * rank passes its nrows entries of x and y (host memory, vec_type PSL_FP64,
 * PSL_FP32 or PSL_FP16, the same on every rank; x and y must not overlap).
 * The ghost entries of x travel in vec_type. Steps: post the receives, pack
 * and send, y = alpha A_d x + beta y (psl_spmv), wait, y += alpha A_o
 * x_ghost (psl_spmv with beta 1): the exchange overlaps the A_d product.
 * Each row sums its A_d part and then its A_o part, so the bits may differ
 * from a serial product of the whole row (exact for integer values with
 * exact sums); with FP16 vectors y is rounded to FP16 between the two. Collective; not for concurrent calls on one handle (it uses
 * the handle's buffers). Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_INVALID_VALUE (vec_type), psl_spmv's errors, PSL_ERR_MPI. */
psl_status psl_dist_spmv(double alpha, const psl_dist_matrix *A, const void *x, double beta,
                         void *y, psl_scalar vec_type);

/* Distributed dot products of vectors laid out as A's rows (nrows entries on
 * each rank, host memory, vec_type FP64, FP32 or FP16): results[i] =
 * sum over all rows of x[i][j] * y[i][j] for i < k, in ONE collective (the
 * k partial sums of every rank gathered, then summed in rank order in FP64;
 * each rank's partial sum is FP64 in row order). The same bits on every
 * rank. Collective. k in 1..PSL_DIST_DOTS_MAX.
 * Errors (every rank the same): PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_INVALID_VALUE (k, vec_type), PSL_ERR_MPI; results then untouched. */
#define PSL_DIST_DOTS_MAX 16
psl_status psl_dist_dots(const psl_dist_matrix *A, int k, const void *const *x,
                         const void *const *y, psl_scalar vec_type, double *results);

/* One distributed dot product (psl_dist_dots with k = 1). */
psl_status psl_dist_dot(const psl_dist_matrix *A, const void *x, const void *y,
                        psl_scalar vec_type, double *result);

/* ||x||_2 over the ranks: sqrt of psl_dist_dot(x, x). */
psl_status psl_dist_norm2(const psl_dist_matrix *A, const void *x, psl_scalar vec_type,
                          double *result);

/* Options of psl_dist_pcg. */
typedef struct psl_dist_pcg_options {
    double tol;          /* relative residual ||r||/||b|| to reach (default 1e-9), > 0 */
    int32_t max_iters;   /* iteration limit (default 10000), >= 1 */
    int32_t jacobi;      /* 1 (default): Jacobi preconditioner (A's diagonal, every
                            entry > 0 and finite); 0: none */
} psl_dist_pcg_options;

void psl_dist_pcg_options_init(psl_dist_pcg_options *opt);

/* What psl_dist_pcg did (the same on every rank). */
typedef struct psl_dist_pcg_result {
    int32_t iterations;      /* iterations run */
    double relres;           /* true ||b - A x||_2 / ||b||_2 at the end */
    double relres_recursive; /* the recursive residual's */
} psl_dist_pcg_result;

/* Preconditioned CG on a distributed SPD matrix, FP64 vectors: x (nrows
 * entries on each rank, host memory) holds the initial guess and receives
 * the solution of A x = b. Each iteration: one psl_dist_spmv, one
 * psl_dist_dots of one pair (p.Ap) and one of two pairs (r.z and r.r,
 * fused). Stops when the recursive residual is below tol (then the true
 * residual is reported). b = 0 gives x = 0 at once. Collective.
 * Returns PSL_OK when converged, PSL_ERR_NOT_CONVERGED at max_iters,
 * PSL_ERR_BREAKDOWN when p.Ap <= 0 or a scalar is not finite (x holds the
 * last iterate in those cases); PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_INVALID_VALUE (options, a Jacobi diagonal entry <= 0 or missing,
 * named with its global row), PSL_ERR_NONFINITE (b), PSL_ERR_OUT_OF_MEMORY,
 * PSL_ERR_MPI: x is then untouched. res may be NULL. Every rank returns the
 * same status and result. */
psl_status psl_dist_pcg(const psl_dist_matrix *A, const double *b, double *x,
                        const psl_dist_pcg_options *opt, psl_dist_pcg_result *res);


/* ------------------------------------------------------------- timings */

/* Seconds (MPI_Wtime) this rank spent in the phases of its distributed
 * SpMVs and reductions while timing was on, since the last reset. */
typedef struct psl_dist_timings {
    int64_t spmvs;    /* SpMVs timed */
    double pack_s;    /* posting the receives, gathering and sending the entries
                         of x the other ranks need (device: the gather kernel
                         and the copy to the host buffer) */
    double local_s;   /* y = alpha A_d x + beta y, the product the exchange overlaps */
    double wait_s;    /* waiting for the halo after the A_d product */
    double remote_s;  /* y += alpha A_o x_ghost (device: with the ghosts' upload) */
    int64_t reductions; /* reductions timed (psl_dist_dots, the solver layer's sums) */
    double reduce_s;  /* in those reductions */
} psl_dist_timings;

/* Turn timing of A's SpMVs and reductions on (on != 0) or off (the
 * default). Timing a device SpMV synchronizes its stream between phases, so
 * that each phase is seen alone: a timed SpMV overlaps less. Local.
 * Errors: PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE. */
psl_status psl_dist_matrix_set_timing(psl_dist_matrix *A, int on);

/* This rank's timings into *t (may be NULL), then zeroed when reset != 0.
 * Local. Errors: PSL_ERR_NULL_POINTER (A), PSL_ERR_INVALID_HANDLE. */
psl_status psl_dist_matrix_timings(psl_dist_matrix *A, psl_dist_timings *t, int reset);


/* ------------------------------------------------------------- GPUs */

/* How the halo of a device-resident distributed matrix travels. */
typedef enum psl_dist_transport {
    PSL_DIST_TRANSPORT_AUTO = 0,       /* CUDA-aware MPI when the MPI reports it on
                                          every rank, else host-staged (NCCL only
                                          when asked for: which is faster on several
                                          GPUs is not measured yet) */
    PSL_DIST_TRANSPORT_HOST = 1,       /* device -> pinned host buffers -> MPI -> device */
    PSL_DIST_TRANSPORT_CUDA_AWARE = 2, /* MPI on the device buffers */
    PSL_DIST_TRANSPORT_NCCL = 3        /* grouped ncclSend/ncclRecv, ncclAllReduce */
} psl_dist_transport;

/* Copy A's blocks and halo plan to a CUDA device so that psl_dist_dspmv and
 * the distributed operator on a CUDA executor can run there. device >= 0:
 * that device; -1: the node-local rank (MPI_COMM_TYPE_SHARED) modulo the
 * node's device count (one rank per GPU). The device is left current on the
 * calling thread. `stream`: a cudaStream_t as void* (NULL: the legacy
 * default stream), used for the copies; returns when they are done. The
 * device holds A_d and A_o (psl_dmatrix_upload) with their SpMV workspace,
 * the send list, send and ghost buffers for 8-byte entries, and for the
 * HOST transport pinned host buffers of the same sizes. `transport`: AUTO
 * picks CUDA-aware MPI when MPIX_Query_cuda_support() reports it on every
 * rank, else HOST; NCCL (built with it, no two ranks of a node sharing a
 * GPU) when asked for; every rank gets the same transport. NCCL's communicator
 * is made here (its unique id from rank 0 broadcast over MPI), with
 * NCCL_NVLS_ENABLE=0 set in the environment first (NVLink multicast off).
 * Collective. Calling it again replaces the device copy: the old one is
 * freed first, so after an error A has none.
 * Errors (every rank the same): PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_INVALID_VALUE (device < -1 or beyond the node's count, transport),
 * PSL_ERR_NOT_SUPPORTED (a build without CUDA; the transport not built or
 * not available: NCCL with two ranks on one GPU, CUDA_AWARE when the MPI
 * does not report it), PSL_ERR_CUDA (also: no CUDA device), PSL_ERR_OUT_OF_MEMORY,
 * PSL_ERR_MPI. */
psl_status psl_dist_matrix_upload(psl_dist_matrix *A, int device, psl_dist_transport transport,
                                  void *stream);

/* The device and transport of A's device copy (device -1 and
 * PSL_DIST_TRANSPORT_AUTO when it has none, always so in a build without
 * CUDA); outputs may be NULL. Local. Errors: PSL_ERR_NULL_POINTER,
 * PSL_ERR_INVALID_HANDLE. */
psl_status psl_dist_matrix_device(const psl_dist_matrix *A, int *device,
                                  psl_dist_transport *transport);

/* psl_dist_spmv on device vectors (this rank's nrows entries of x and y in
 * device memory of A's device copy, vec_type FP64, FP32 or FP16), queued on
 * `stream` (NULL: the legacy default stream; any stream from call to call).
 * Steps: post the receives, gather x's entries to send on the device, send
 * them (HOST: copied to the pinned buffer, then MPI; CUDA_AWARE: MPI on the
 * device buffer once the gather is done; NCCL: grouped ncclSend/ncclRecv on
 * a stream of A's own), y = alpha A_d x + beta y (psl_dspmv) while the halo
 * travels, wait (HOST: the ghosts copied to the device on `stream`),
 * y += alpha A_o x_ghost. Returns when the A_o product is queued: with MPI
 * after the halo has arrived (the host waits for the exchange, the device
 * only for its own work), with NCCL at once. Before posting its receives
 * the host waits for the last reader of the previous call's receive buffer
 * (HOST: the ghosts' copy; CUDA_AWARE: the A_o product). Same bits as
 * psl_dist_spmv where psl_dspmv gives psl_spmv's bits. Deterministic.
 * Vector types as psl_dspmv takes them: a CSR block (cuSPARSE) FP64
 * vectors only (CSR FP32: FP32 or FP64), the other formats all three.
 * Collective; not for concurrent calls on one handle. A rank with bad
 * arguments still exchanges (zeros) and returns its error alone.
 * Errors: as psl_dist_spmv; PSL_ERR_INVALID_VALUE when A has no device copy
 * (on every rank: the upload is collective); PSL_ERR_CUDA. */
psl_status psl_dist_dspmv(double alpha, const psl_dist_matrix *A, const void *d_x, double beta,
                          void *d_y, psl_scalar vec_type, void *stream);

/* d_vals[i] = the sum over the ranks of d_vals[i], i < k (k in
 * 1..PSL_DIST_DOTS_MAX), for k doubles in device memory, on `stream`.
 * HOST and CUDA_AWARE transports: copied to the host (the stream
 * synchronized), the rank-order sum of psl_dist_dots (the status agreed
 * with it: every rank returns the same error, d_vals then untouched), copied
 * back on the stream. NCCL: ncclAllReduce in place on the stream, returning
 * at once (its order NCCL's, deterministic for a fixed number of ranks; a
 * rank with bad arguments reduces zeros and returns its error alone). The
 * same bits on every rank. Collective. Errors: PSL_ERR_NULL_POINTER,
 * PSL_ERR_INVALID_HANDLE, PSL_ERR_INVALID_VALUE (k, no device copy),
 * PSL_ERR_CUDA, PSL_ERR_MPI. */
psl_status psl_dist_device_sum(const psl_dist_matrix *A, double *d_vals, int k, void *stream);

/* ------------------------------------------------------------- solvers */

/* Make the reductions of the solver layer on executor ex sums over A's
 * ranks: each dot product and norm that a solver (psl_solver_solve),
 * psl_vec_dot or psl_vec_norm2 computes on ex becomes this rank's partial
 * sum, summed over the ranks as psl_dist_dots does (one collective per
 * group of dots computed together); the breakdown checks then look at the
 * sums. Every operation on ex that reduces is then collective over A's
 * communicator (on one rank nothing changes: the sums are the rank's own,
 * at no cost). A must outlive ex's use; NULL detaches. A CUDA executor
 * needs A's device copy on its device (psl_dist_matrix_upload). Local.
 * Errors: PSL_ERR_NULL_POINTER (ex), PSL_ERR_INVALID_HANDLE,
 * PSL_ERR_INVALID_VALUE (a CUDA executor and no device copy on its device). */
psl_status psl_dist_exec_attach(psl_exec *ex, const psl_dist_matrix *A);

/* An operator applying A over the ranks to vectors of vec_type (this rank's
 * nrows entries in ex's memory): psl_dist_spmv on a CPU executor,
 * psl_dist_dspmv on a CUDA one (A uploaded to its device). A view: A must
 * outlive it. Applying it is collective. With psl_dist_exec_attach(ex, A)
 * the solvers of packsell.h run on it unchanged. Errors:
 * PSL_ERR_NULL_POINTER, PSL_ERR_INVALID_HANDLE, PSL_ERR_INVALID_VALUE
 * (vec_type, no device copy on ex's device), PSL_ERR_OUT_OF_MEMORY. */
psl_status psl_dist_op_create(psl_op **op, psl_exec *ex, const psl_dist_matrix *A,
                              psl_scalar vec_type);

/* Jacobi over the ranks: y = alpha D^-1 x + beta y with D this rank's rows'
 * diagonal entries of A (every one > 0 and finite: else
 * PSL_ERR_INVALID_VALUE naming the global row, on every rank), in vectors
 * of vec_type on ex. No communication when applied. Collective (the check
 * is agreed). Errors as psl_dist_op_create. */
psl_status psl_dist_precond_jacobi(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                   psl_scalar vec_type);

/* Jacobi for the nonsymmetric solvers: as psl_dist_precond_jacobi, but
 * any nonzero finite diagonal entry is taken (psl_precond_jacobi_general's
 * rule). */
psl_status psl_dist_precond_jacobi_general(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                           psl_scalar vec_type);

/* Block SD-AINV: on each rank the SD-AINV factors (psl_sdainv_build with
 * opt, NULL: the defaults) of its diagonal block A_d, applied as
 * psl_precond_product with *storage (NULL: FP64 CSR) in vectors of vec_type
 * on ex: block Jacobi over the ranks with an SD-AINV block each, so no
 * communication when applied, and on one rank the preconditioner of the
 * whole matrix. A's diagonal block must be FP64 CSR. Its strength falls as
 * the ranks grow (the couplings between blocks are left out), so iteration
 * counts grow with the ranks. Collective (every rank the same status).
 * Errors: those of psl_dist_op_create, PSL_ERR_INVALID_VALUE (A_d not FP64
 * CSR), and those of psl_sdainv_build (naming the block's global rows) and
 * psl_precond_product. */
psl_status psl_dist_precond_sdainv(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                   const psl_sdainv_options *opt,
                                   const psl_convert_options *storage, psl_scalar vec_type);

/* F3R's layers 2-4 over the ranks (psl_precond_f3r's operator, for an outer
 * flexible solver of the caller's: psl_solver_create with PSL_METHOD_FGMRES
 * restart cfg->f3r.m1 on psl_dist_op_create(A) gives F3R), in FP64 vectors
 * on ex: with cfg->scale (default) on S = G^-1 A G^-1
 * (psl_dist_matrix_scale_symmetric) as F(x) = G^-1 F_S(G^-1 x); layers 2-4
 * on distributed copies of S in SELL FP32 and the variant's FP16 storage
 * (psl_dist_matrix_convert; their halos travel in FP32 and FP16), layer
 * 4's preconditioner block SD-AINV (psl_dist_precond_sdainv) or Jacobi
 * (cfg->precond); every dot product summed over the ranks by ex, which must
 * be attached to A (psl_dist_exec_attach). The automatic codec counts the
 * entries of all ranks. On one rank it is psl_precond_f3r of the whole
 * matrix. A's blocks must be FP64 CSR; on a CUDA executor the copies are
 * uploaded to its device with A's transport (AUTO when A has no device
 * copy; A itself need not have one). The operator owns its matrices (A
 * may be freed after the call). Collective.
 * Errors (every rank the same): those of psl_precond_f3r and
 * psl_dist_op_create, PSL_ERR_INVALID_VALUE (A's blocks), PSL_ERR_MPI. */
psl_status psl_dist_precond_f3r(psl_op **M, psl_exec *ex, const psl_dist_matrix *A,
                                const psl_solve_config *cfg);

/* A distributed matrix B with A's rows, ghosts and halo plan (copied: no
 * new plan is learned) and A's blocks converted: A_d by diag_opt, A_o by
 * offd_opt (NULL: FP64 CSR). A's blocks must be FP64 CSR
 * (psl_dist_matrix_create_csr without options). B is independent of A.
 * Collective (the status agreed). Errors: PSL_ERR_NULL_POINTER,
 * PSL_ERR_INVALID_HANDLE, PSL_ERR_INVALID_VALUE (A's blocks), those of
 * psl_matrix_convert, PSL_ERR_OUT_OF_MEMORY, PSL_ERR_MPI. */
psl_status psl_dist_matrix_convert(psl_dist_matrix **B, const psl_dist_matrix *A,
                                   const psl_convert_options *diag_opt,
                                   const psl_convert_options *offd_opt);

/* S = G^-1 A G^-1 with gbar_i = sqrt|a_ii| (1 where the diagonal entry is
 * zero or missing), the entries a_ij / (gbar_i gbar_j) as
 * psl_matrix_scale_symmetric forms them (on one rank its bits), the ghost
 * columns' factors fetched from their owners by one halo exchange; S has
 * FP64 CSR blocks and A's halo plan. gbar gets this rank's nrows factors
 * (for b_s = G^-1 b and x = G^-1 y: psl_vector_div_diag). A's blocks must
 * be FP64 CSR. Collective. Errors: as psl_dist_matrix_convert, and
 * PSL_ERR_NONFINITE (a scaled entry overflows, naming its global row and
 * column). */
psl_status psl_dist_matrix_scale_symmetric(psl_dist_matrix **S, const psl_dist_matrix *A,
                                           double *gbar);

#ifdef __cplusplus
}
#endif

#endif /* PACKSELL_MPI_H */
