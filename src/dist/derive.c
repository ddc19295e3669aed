/*
 * derive.c -- distributed matrices made from another one, over its rows,
 * ghosts and halo plan (no new plan, no communication but the agreement and,
 * for the scaling, one halo exchange): psl_dist_matrix_convert (the blocks
 * in other formats) and psl_dist_matrix_scale_symmetric (G^-1 A G^-1 as
 * psl_matrix_scale_symmetric makes it, the ghosts' factors from their
 * owners).
 */
#include "dist/dist_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int32_t *dup_i32(const int32_t *a, size_t n)
{
    int32_t *b = malloc(n ? n * sizeof *b : 1);
    if (b && n)
        memcpy(b, a, n * sizeof *b);
    return b;
}

static int64_t *dup_i64(const int64_t *a, size_t n)
{
    int64_t *b = malloc(n ? n * sizeof *b : 1);
    if (b && n)
        memcpy(b, a, n * sizeof *b);
    return b;
}

/* A new handle with A's rows, ghosts, diagonal and halo plan (copies), its
 * own communicator and buffers, no blocks yet. Collective (MPI_Comm_dup,
 * reached by every rank); the rest local, its status not agreed here. */
static psl_status skeleton(psl_dist_matrix **out, const psl_dist_matrix *A, const char *who)
{
    *out = NULL;
    MPI_Comm comm = MPI_COMM_NULL; /* first: every rank reaches the collective */
    int rc = MPI_Comm_dup(A->comm, &comm);
    if (rc != MPI_SUCCESS)
        return psl_dist_mpi_error(rc, "MPI_Comm_dup");
    psl_dist_matrix *M = calloc(1, sizeof *M);
    if (!M) {
        MPI_Comm_free(&comm);
        return psl_error(PSL_ERR_OUT_OF_MEMORY, "%s: out of memory", who);
    }
    M->comm = comm;
    M->magic = PSL_DIST_MAGIC; /* from here psl_dist_matrix_destroy frees it */
    M->rank = A->rank;
    M->nranks = A->nranks;
    M->n_global = A->n_global;
    M->first_row = A->first_row;
    M->nrows = A->nrows;
    M->nghost = A->nghost;
    M->nnz_d = A->nnz_d;
    M->nnz_o = A->nnz_o;
    M->nnz_global = A->nnz_global;
    const psl_halo_plan *p = &A->plan;
    psl_halo_plan *q = &M->plan;
    q->nrecv = p->nrecv;
    q->nsend = p->nsend;
    q->recv_rank = dup_i32(p->recv_rank, (size_t)p->nrecv);
    q->recv_off = dup_i32(p->recv_off, (size_t)p->nrecv + 1);
    q->send_rank = dup_i32(p->send_rank, (size_t)p->nsend);
    q->send_off = dup_i64(p->send_off, (size_t)p->nsend + 1);
    q->send_idx = dup_i32(p->send_idx, (size_t)p->send_off[p->nsend]);
    M->starts = dup_i64(A->starts, (size_t)A->nranks + 1);
    M->garray = dup_i64(A->garray, (size_t)A->nghost);
    M->diag = malloc(A->nrows ? (size_t)A->nrows * sizeof *M->diag : 1);
    psl_status st = PSL_OK;
    if (!q->recv_rank || !q->recv_off || !q->send_rank || !q->send_off || !q->send_idx ||
        !M->starts || !M->garray || !M->diag)
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "%s: out of memory (the halo plan's copy)", who);
    else
        st = psl_dist_buffers(M, who);
    if (st == PSL_OK && A->nrows)
        memcpy(M->diag, A->diag, (size_t)A->nrows * sizeof *M->diag);
    if (st != PSL_OK)
        psl_dist_matrix_destroy(&M);
    *out = M;
    return st;
}

psl_status psl_dist_check_fp64_csr(const psl_dist_matrix *A, const char *who)
{
    psl_status st = psl_matrix_check_fp64_csr(A->A_d, who);
    if (st == PSL_OK)
        st = psl_matrix_check_fp64_csr(A->A_o, who);
    if (st != PSL_OK)
        return psl_error(PSL_ERR_INVALID_VALUE, "%s: the source's blocks must be FP64 CSR "
                         "(its storage from psl_dist_matrix_create_csr with NULL options)", who);
    return PSL_OK;
}

/* A block converted by opt (NULL or FP64 CSR: a copy). */
static psl_status convert_block(psl_matrix **out, const psl_matrix *B,
                                const psl_convert_options *opt)
{
    psl_convert_options csr;
    if (!opt) {
        psl_convert_options_init(&csr);
        opt = &csr;
    }
    return psl_matrix_convert(out, B, opt);
}

psl_status psl_dist_matrix_convert(psl_dist_matrix **B, const psl_dist_matrix *A,
                                   const psl_convert_options *diag_opt,
                                   const psl_convert_options *offd_opt)
{
    static const char *who = "psl_dist_matrix_convert";
    PSL_TRY(psl_dist_check(A, who));
    psl_status st = B ? PSL_OK : psl_error(PSL_ERR_NULL_POINTER, "%s: B is NULL", who);
    psl_dist_matrix *M = NULL;
    if (B)
        *B = NULL;
    if (st == PSL_OK)
        st = psl_dist_check_fp64_csr(A, who);
    PSL_TRY(psl_dist_agree(A->comm, st)); /* before the collective MPI_Comm_dup */
    st = skeleton(&M, A, who);
    if (st == PSL_OK)
        st = convert_block(&M->A_d, A->A_d, diag_opt);
    if (st == PSL_OK)
        st = convert_block(&M->A_o, A->A_o, offd_opt);
    /* the stored entries as a direct creation counts them (split.c) */
    psl_matrix_info di, oi;
    if (st == PSL_OK && (st = psl_matrix_get_info(M->A_d, &di)) == PSL_OK &&
        (st = psl_matrix_get_info(M->A_o, &oi)) == PSL_OK) {
        M->nnz_d = di.nnz;
        M->nnz_o = oi.nnz;
    }
    st = psl_dist_agree(A->comm, st);
    int64_t local = st == PSL_OK ? M->nnz_d + M->nnz_o : 0;
    if (st == PSL_OK) {
        int rc = MPI_Allreduce(&local, &M->nnz_global, 1, MPI_INT64_T, MPI_SUM, A->comm);
        if (rc != MPI_SUCCESS)
            st = psl_dist_mpi_error(rc, "MPI_Allreduce");
    }
    if (st != PSL_OK) {
        psl_dist_matrix_destroy(&M);
        return st;
    }
    *B = M;
    return PSL_OK;
}

/* A_o / (g_i * gg_k): A_o's rows scaled by this rank's factors g, its
 * columns by the ghosts' gg, as FP64 CSR (the quotient psl_matrix_scale_symmetric
 * forms); a non-finite quotient fails naming the global row and column. */
static psl_status scale_offd(psl_matrix **out, const psl_dist_matrix *A, const double *g,
                             const double *gg, const char *who)
{
    const psl_matrix *O = A->A_o;
    const double *v = O->values;
    double *w = NULL;
    PSL_TRY(psl_alloc((void **)&w, O->nnz ? (size_t)O->nnz : 1, sizeof *w, "A_o's scaled values"));
    psl_status st = PSL_OK;
    for (int32_t i = 0; i < O->nrows && st == PSL_OK; i++)
        for (int64_t k = O->row_ptr[i]; k < O->row_ptr[i + 1]; k++) {
            w[k] = v[k] / (g[i] * gg[O->col_idx[k]]);
            if (!isfinite(w[k])) {
                int64_t col = A->garray[O->col_idx[k]];
                st = psl_error_at(PSL_ERR_NONFINITE, -1, A->first_row + i, col,
                                  "%s: the scaled entry of global row %lld, column %lld "
                                  "overflows", who, (long long)(A->first_row + i),
                                  (long long)col);
                break;
            }
        }
    if (st == PSL_OK)
        st = psl_matrix_create_csr(out, O->nrows, O->ncols, O->row_ptr, O->col_idx, w, PSL_FP64,
                                   0, 0);
    free(w);
    return st;
}

psl_status psl_dist_matrix_scale_symmetric(psl_dist_matrix **S, const psl_dist_matrix *A,
                                           double *gbar)
{
    static const char *who = "psl_dist_matrix_scale_symmetric";
    PSL_TRY(psl_dist_check(A, who));
    psl_status st = PSL_OK;
    if (S)
        *S = NULL;
    if (!S || (A->nrows > 0 && !gbar))
        st = psl_error(PSL_ERR_NULL_POINTER, "%s: S or gbar is NULL", who);
    if (st == PSL_OK)
        st = psl_dist_check_fp64_csr(A, who);
    PSL_TRY(psl_dist_agree(A->comm, st)); /* before the collective MPI_Comm_dup */
    psl_dist_matrix *M = NULL;
    double *g = NULL, *gg = NULL;
    st = skeleton(&M, A, who);
    /* the diagonal block as the serial scaling makes it, with its factors */
    if (st == PSL_OK)
        st = psl_alloc((void **)&g, A->nrows ? (size_t)A->nrows : 1, sizeof *g, "gbar");
    if (st == PSL_OK)
        st = psl_matrix_scale_symmetric(&M->A_d, A->A_d, g);
    st = psl_dist_agree(A->comm, st);
    /* the ghosts' factors from their owners, through A's halo */
    if (st == PSL_OK)
        st = psl_dist_halo_gather(A, g, 8);
    if (st == PSL_OK)
        st = psl_alloc((void **)&gg, A->nghost ? (size_t)A->nghost : 1, sizeof *gg, "ghost gbar");
    if (st == PSL_OK && A->nghost)
        memcpy(gg, A->ghost_buf, (size_t)A->nghost * sizeof *gg);
    if (st == PSL_OK)
        st = scale_offd(&M->A_o, A, g, gg, who);
    for (int32_t i = 0; st == PSL_OK && i < A->nrows; i++)
        M->diag[i] = A->diag[i] / (g[i] * g[i]);
    st = psl_dist_agree(A->comm, st);
    if (st == PSL_OK && A->nrows)
        memcpy(gbar, g, (size_t)A->nrows * sizeof *gbar);
    free(g);
    free(gg);
    if (st != PSL_OK) {
        psl_dist_matrix_destroy(&M);
        return st;
    }
    *S = M;
    return PSL_OK;
}
