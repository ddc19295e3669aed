/*
 * handle.c -- the distributed matrix's handle: checks, destroy, statistics
 * the views of its blocks and the phase timings.
 */
#include "dist/dist_internal.h"

#include <stdlib.h>

psl_status psl_dist_check(const psl_dist_matrix *A, const char *who)
{
    if (!A)
        return psl_error(PSL_ERR_NULL_POINTER, "%s: the distributed matrix is NULL", who);
    if (A->magic != PSL_DIST_MAGIC)
        return psl_error(PSL_ERR_INVALID_HANDLE,
                         "%s: not a live distributed matrix (freed or garbage)", who);
    return PSL_OK;
}

int psl_dist_vec_size(psl_scalar t)
{
    switch (t) {
    case PSL_FP64: return 8;
    case PSL_FP32: return 4;
    case PSL_FP16: return 2;
    default: return 0;
    }
}

void psl_dist_halo_plan_free(psl_halo_plan *p)
{
    if (!p)
        return;
    free(p->recv_rank);
    free(p->recv_off);
    free(p->send_rank);
    free(p->send_off);
    free(p->send_idx);
    *p = (psl_halo_plan){0};
}

void psl_dist_matrix_destroy(psl_dist_matrix **A)
{
    if (!A || !*A)
        return;
    psl_dist_matrix *M = *A;
    if (M->magic == PSL_DIST_MAGIC) {
        M->magic = PSL_DEAD_MAGIC;
        psl_dist_device_free(M);
        psl_matrix_destroy(&M->A_d);
        psl_matrix_destroy(&M->A_o);
        free(M->starts);
        free(M->garray);
        free(M->diag);
        psl_dist_halo_plan_free(&M->plan);
        free(M->send_buf);
        free(M->ghost_buf);
        free(M->reqs);
        free(M->dots_buf);
        free(M->sum_mine);
        if (M->comm != MPI_COMM_NULL)
            MPI_Comm_free(&M->comm);
        free(M);
    }
    *A = NULL;
}

psl_status psl_dist_matrix_get_info(const psl_dist_matrix *A, psl_dist_info *info)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_get_info"));
    if (!info)
        return psl_error(PSL_ERR_NULL_POINTER, "psl_dist_matrix_get_info: info is NULL");
    int64_t sent = A->plan.send_off ? A->plan.send_off[A->plan.nsend] : 0;
    *info = (psl_dist_info){
        .rank = A->rank,
        .nranks = A->nranks,
        .n_global = A->n_global,
        .first_row = A->first_row,
        .nrows = A->nrows,
        .nnz_d = A->nnz_d,
        .nnz_o = A->nnz_o,
        .nnz_global = A->nnz_global,
        .nghost = A->nghost,
        .recv_neighbors = A->plan.nrecv,
        .send_neighbors = A->plan.nsend,
        .send_entries = sent,
        .bytes_sent_fp64 = 8 * sent,
        .bytes_sent_fp32 = 4 * sent,
        .bytes_sent_fp16 = 2 * sent,
    };
    return PSL_OK;
}

psl_status psl_dist_matrix_blocks(const psl_dist_matrix *A, const psl_matrix **A_d,
                                  const psl_matrix **A_o, const int64_t **garray)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_blocks"));
    if (A_d)
        *A_d = A->A_d;
    if (A_o)
        *A_o = A->A_o;
    if (garray)
        *garray = A->nghost ? A->garray : NULL;
    return PSL_OK;
}

psl_status psl_dist_matrix_set_timing(psl_dist_matrix *A, int on)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_set_timing"));
    A->timing = on != 0;
    return PSL_OK;
}

psl_status psl_dist_matrix_timings(psl_dist_matrix *A, psl_dist_timings *t, int reset)
{
    PSL_TRY(psl_dist_check(A, "psl_dist_matrix_timings"));
    if (t)
        *t = A->tm;
    if (reset)
        A->tm = (psl_dist_timings){0};
    return PSL_OK;
}
