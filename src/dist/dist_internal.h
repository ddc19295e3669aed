/*
 * dist_internal.h -- the distributed matrix object (packsell_mpi.h) and the
 * helpers the sources of src/dist share.
 */
#ifndef PSL_DIST_INTERNAL_H
#define PSL_DIST_INTERNAL_H

#include "packsell_mpi.h"
#include "internal.h"

#include <stdbool.h>
#include <stdint.h>

#define PSL_DIST_MAGIC 0x5453494450534cULL /* "LSPDIST" */

/* The halo plan: who receives which ghosts from whom, who sends what. */
typedef struct psl_halo_plan {
    int32_t nrecv;         /* ranks received from */
    int32_t *recv_rank;    /* nrecv ranks, ascending */
    int32_t *recv_off;     /* nrecv+1 offsets into the ghost buffer (garray order) */
    int32_t nsend;         /* ranks sent to */
    int32_t *send_rank;    /* nsend ranks, ascending */
    int64_t *send_off;     /* nsend+1 offsets into send_idx */
    int32_t *send_idx;     /* local rows (entries of x) to send, per rank in turn */
} psl_halo_plan;

struct psl_dist_matrix {
    uint64_t magic;
    MPI_Comm comm; /* a duplicate of the caller's */
    int rank, nranks;
    int64_t n_global, first_row;
    int32_t nrows;
    int64_t *starts;   /* nranks+1 first rows of the blocks */
    psl_matrix *A_d, *A_o;
    int32_t nghost;
    int64_t *garray;   /* nghost sorted global ghost columns */
    int64_t nnz_d, nnz_o, nnz_global;
    double *diag;      /* nrows diagonal entries (0 where absent), for Jacobi */
    psl_halo_plan plan;
    /* SpMV buffers, sized for 8-byte entries (any vector type) */
    unsigned char *send_buf, *ghost_buf;
    MPI_Request *reqs; /* nrecv + nsend */
    double *dots_buf;  /* nranks * (PSL_DIST_SUM_MAX + 1): psl_dist_sum_host's gather */
    double *sum_mine;  /* PSL_DIST_SUM_MAX + 1: this rank's values and status */
    int timing;        /* psl_dist_matrix_set_timing */
    psl_dist_timings tm;
    struct psl_dist_device *dev; /* the device copy (src/dist/cuda/), NULL without one */
};

/* Agree on a status over comm: every rank returns the status of the lowest
 * failing rank (PSL_OK if none); the other ranks' last error then carries
 * that rank's message, prefixed "rank R: ". Two small collectives when some
 * rank failed, one otherwise. An MPI failure gives PSL_ERR_MPI locally. */
psl_status psl_dist_agree(MPI_Comm comm, psl_status local);

/* PSL_ERR_MPI with the MPI error string, naming the call `what`. */
psl_status psl_dist_mpi_error(int rc, const char *what);

/* `PSL_MPI_OK(call, "what")`: a failing MPI call sets st and jumps to fail. */
#define PSL_MPI_OK(call, what)                          \
    do {                                            \
        int psl_mpi_rc_ = (call);                   \
        if (psl_mpi_rc_ != MPI_SUCCESS) {           \
            st = psl_dist_mpi_error(psl_mpi_rc_, what); \
            goto fail;                              \
        }                                           \
    } while (0)

/* Most values one distributed sum takes: GMRES's Gram-Schmidt dots of the
 * longest cycle and two norms, in one reduction. */
#define PSL_DIST_SUM_MAX (PSL_GMRES_RESTART_MAX + 2)

/* vals[0..k) = their sums over A's ranks, k in 1..PSL_DIST_SUM_MAX: each
 * rank's values and its status `local` gathered in one collective and
 * summed in rank order on every rank (the same bits everywhere). Returns the
 * lowest failing rank's status on every rank (vals then untouched; "failed
 * on rank R" on the others), PSL_ERR_MPI. Not timed: its callers count the
 * reduction in A's timings. Collective. */
psl_status psl_dist_sum_host(const psl_dist_matrix *A, double *vals, int k, psl_status local);

/* With timing on, one reduction begun at MPI_Wtime() t0 counted in A's timings. */
void psl_dist_count_reduction(const psl_dist_matrix *A, double t0);

/* Handle check: PSL_ERR_NULL_POINTER / PSL_ERR_INVALID_HANDLE naming who. */
psl_status psl_dist_check(const psl_dist_matrix *A, const char *who);

/* Bytes of one vector entry of type t (FP64, FP32, FP16), 0 for others. */
int psl_dist_vec_size(psl_scalar t);

/* floor(r * total / p) without overflow (0 <= r <= p, total >= 0): the
 * shares of psl_dist_balance_rows' rule (balance.c). */
int64_t psl_dist_share(int64_t total, int r, int p);

/* PSL_ERR_INVALID_VALUE naming who unless both of A's blocks are FP64 CSR
 * (psl_dist_matrix_create_csr without options), the source the derived
 * matrices and the preconditioners are made from (derive.c). Local. */
psl_status psl_dist_check_fp64_csr(const psl_dist_matrix *A, const char *who);

/* First row of rank r's block out of p under psl_dist_balance_rows' rule
 * (row_ptr NULL: by rows; else by nonzeros), r in 0..p (p gives n). Local. */
int64_t psl_dist_block_start(int64_t n, const int64_t *row_ptr, int r, int p);

/* Split this rank's rows (global columns) into A_d and A_o with garray and
 * the diagonal (split.c). Local; fills A->A_d, A_o, nghost, garray, diag,
 * nnz_d, nnz_o. */
psl_status psl_dist_split(psl_dist_matrix *A, const int64_t *row_ptr, const int64_t *col_idx,
                          const double *values, const psl_convert_options *diag_opt,
                          const psl_convert_options *offd_opt);

/* Build the halo plan from garray by communication (halo_plan.c):
 * collective, every rank gets the same status. */
psl_status psl_dist_halo_plan(psl_dist_matrix *A);

/* Allocate A's SpMV buffers (send, ghost, requests) and its sums' gather
 * from its plan, nghost and nranks; out of memory names caller. Local. */
psl_status psl_dist_buffers(psl_dist_matrix *A, const char *caller);

/* The halo exchange alone: A's ghost entries of x (esize bytes each: 8, 4
 * or 2) into A->ghost_buf, blocking. Collective; the status agreed. */
psl_status psl_dist_halo_gather(const psl_dist_matrix *A, const void *x, int esize);

/* Free the plan's arrays (NULL-safe). */
void psl_dist_halo_plan_free(psl_halo_plan *p);

/* Free A's device copy and set A->dev = NULL (NULL-safe; src/dist/cuda/
 * device.c, or nocuda/device_stub.c in a build without CUDA). Local. */
void psl_dist_device_free(psl_dist_matrix *A);

/* Whether A has a device copy on ex's device (CUDA executors; CPU ones
 * pass); errors name who (op.c). */
psl_status psl_dist_check_device(const psl_exec *ex, const psl_dist_matrix *A, const char *who);

/* The arguments of an operator or preconditioner of A in vectors of
 * vec_type on ex: *op = NULL first, ex live, A live, vec_type FP64, FP32
 * or FP16, and with need_device A's device copy on a CUDA ex's device
 * (op.c). Local. */
psl_status psl_dist_op_check_args(psl_op **op, psl_exec *ex, const psl_dist_matrix *A,
                                  psl_scalar vec_type, int need_device, const char *who);

#endif /* PSL_DIST_INTERNAL_H */
