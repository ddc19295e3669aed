/*
 * agree.c -- one status for all ranks: a collective call whose checks fail
 * on one rank must fail on every rank (or the others would wait in the next
 * collective), with the first failing rank's status and message.
 */
#include "dist/dist_internal.h"

#include <stdio.h>
#include <string.h>

psl_status psl_dist_mpi_error(int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error code %d", rc);
    return psl_error(PSL_ERR_MPI, "%s failed: %s", what, text);
}

psl_status psl_dist_agree(MPI_Comm comm, psl_status local)
{
    int rank = 0;
    int rc = MPI_Comm_rank(comm, &rank);
    if (rc != MPI_SUCCESS)
        return psl_dist_mpi_error(rc, "MPI_Comm_rank");
    /* the lowest failing rank: MINLOC over (0 if failed else 1, rank) */
    int in[2] = {local == PSL_OK ? 1 : 0, rank}, out[2];
    rc = MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MINLOC, comm);
    if (rc != MPI_SUCCESS)
        return psl_dist_mpi_error(rc, "MPI_Allreduce (status agreement)");
    if (out[0] == 1)
        return PSL_OK;
    /* that rank's status and message, to every rank */
    struct {
        int status;
        char message[sizeof ((psl_error_info *)0)->message];
    } msg;
    memset(&msg, 0, sizeof msg);
    if (rank == out[1]) {
        msg.status = (int)local;
        snprintf(msg.message, sizeof msg.message, "%s", psl_last_error_message());
    }
    rc = MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, out[1], comm);
    if (rc != MPI_SUCCESS)
        return psl_dist_mpi_error(rc, "MPI_Bcast (status agreement)");
    if (rank == out[1])
        return local; /* its own message stays as it was */
    msg.message[sizeof msg.message - 1] = '\0';
    return psl_error((psl_status)msg.status, "rank %d: %.480s", out[1], msg.message);
}
