/*
 * halo_plan.c -- the halo plan learned by communication: each rank finds the
 * owner of each of its ghost columns (binary search on the block starts;
 * garray is sorted, so each owner's ghosts are one contiguous segment),
 * tells every rank how many entries it needs from it (MPI_Alltoall) and
 * which (MPI_Alltoallv); the owners turn those into their send lists.
 */
#include "dist/dist_internal.h"

#include <stdlib.h>

/* The rank owning global row g: the last r with starts[r] <= g (so a rank
 * with no rows never owns one). */
static int owner_of(const int64_t *starts, int p, int64_t g)
{
    int lo = 0, hi = p; /* first index in (0, p] with starts[idx] > g, minus 1 */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (starts[mid + 1] > g)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

psl_status psl_dist_halo_plan(psl_dist_matrix *A)
{
    psl_status st = PSL_OK;
    const int p = A->nranks;
    psl_halo_plan *pl = &A->plan;
    int *rcount = NULL, *scount = NULL, *rdispl = NULL, *sdispl = NULL;
    int64_t *want = NULL; /* the global indices others want from this rank */

    rcount = calloc((size_t)p, sizeof *rcount);
    scount = calloc((size_t)p, sizeof *scount);
    rdispl = calloc((size_t)p + 1, sizeof *rdispl);
    sdispl = calloc((size_t)p + 1, sizeof *sdispl);
    if (!rcount || !scount || !rdispl || !sdispl)
        st = psl_error(PSL_ERR_OUT_OF_MEMORY, "halo plan: out of memory (%d ranks)", p);
    else
        for (int32_t k = 0; k < A->nghost; k++)
            rcount[owner_of(A->starts, p, A->garray[k])]++;
    if ((st = psl_dist_agree(A->comm, st)) != PSL_OK)
        goto fail;

    /* how many entries each rank wants from this one */
    PSL_MPI_OK(MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, A->comm), "MPI_Alltoall");
    int64_t nsend = 0;
    for (int r = 0; r < p; r++) {
        rdispl[r + 1] = rdispl[r] + rcount[r];
        nsend += scount[r];
    }
    if (nsend > INT32_MAX)
        st = psl_error(PSL_ERR_SIZE_OVERFLOW, "halo plan: %lld entries to send, beyond int32",
                       (long long)nsend);
    else {
        for (int r = 0; r < p; r++)
            sdispl[r + 1] = sdispl[r] + scount[r];
        int nr = 0, ns = 0;
        for (int r = 0; r < p; r++) {
            nr += rcount[r] > 0;
            ns += scount[r] > 0;
        }
        pl->nrecv = nr;
        pl->nsend = ns;
        want = malloc(nsend ? (size_t)nsend * sizeof *want : 1);
        pl->recv_rank = malloc(((size_t)nr + 1) * sizeof *pl->recv_rank);
        pl->recv_off = malloc(((size_t)nr + 1) * sizeof *pl->recv_off);
        pl->send_rank = malloc(((size_t)ns + 1) * sizeof *pl->send_rank);
        pl->send_off = malloc(((size_t)ns + 1) * sizeof *pl->send_off);
        pl->send_idx = malloc(nsend ? (size_t)nsend * sizeof *pl->send_idx : 1);
        if (!want || !pl->recv_rank || !pl->recv_off || !pl->send_rank || !pl->send_off ||
            !pl->send_idx)
            st = psl_error(PSL_ERR_OUT_OF_MEMORY, "halo plan: out of memory (%lld entries)",
                           (long long)nsend);
    }
    if ((st = psl_dist_agree(A->comm, st)) != PSL_OK)
        goto fail;

    /* which entries: this rank's ghosts go to their owners, in garray order */
    PSL_MPI_OK(MPI_Alltoallv(A->garray, rcount, rdispl, MPI_INT64_T, want, scount, sdispl,
                         MPI_INT64_T, A->comm),
           "MPI_Alltoallv");

    int nr = 0, ns = 0;
    pl->recv_off[0] = 0;
    pl->send_off[0] = 0;
    for (int r = 0; r < p; r++) {
        if (rcount[r] > 0) {
            pl->recv_rank[nr] = r;
            pl->recv_off[++nr] = rdispl[r + 1];
        }
        if (scount[r] > 0) {
            pl->send_rank[ns] = r;
            pl->send_off[++ns] = sdispl[r + 1];
        }
    }
    for (int64_t k = 0; k < nsend; k++) {
        int64_t loc = want[k] - A->first_row;
        if (loc < 0 || loc >= A->nrows) {
            st = psl_error(PSL_ERR_INTERNAL, "halo plan: asked for row %lld, not owned here",
                           (long long)want[k]);
            break;
        }
        pl->send_idx[k] = (int32_t)loc;
    }
    st = psl_dist_agree(A->comm, st);
fail:
    free(rcount);
    free(scount);
    free(rdispl);
    free(sdispl);
    free(want);
    return st;
}
