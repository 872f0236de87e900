/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_comm.c: the interposed blocking communication calls that report
 * failed peers and revoked communicators (point-to-point and every
 * blocking collective of MPI-3).
 *
 * Blocking calls are turned into their nonblocking form plus a wait loop
 * that also runs the failure detector's notices and the protocol; when the
 * peer (or, for a collective, any member) fails or the communicator is
 * revoked, the loop gives up with the ULFM error class and abandons the
 * MPI request (MPICH cannot cancel it; a communicator with a failure is to
 * be revoked and shrunk, not reused).
 */
#include <sched.h>
#include <stdlib.h>
#include "fta_mpi_int.h"
#include "mpix_ft.h"

int fta_check(const ftcomm_t *fc, int peer)
{
    if (fta_is_revoked(fc->node))
        return FTA_EREVOKED;
    if (peer == MPI_ANY_SOURCE)
        return fc->nfailed > fc->nacked ? FTA_EPROCFAILED : 0;
    if (peer < 0)
        return fc->nfailed ? FTA_EPROCFAILED : 0;
    if (peer == MPI_PROC_NULL || peer >= fc->size)
        return 0;
    return fta_world_dead(fc->world[peer]) ? FTA_EPROCFAILED : 0;
}

/* Give up a pending request whose peer failed (or whose communicator was
 * revoked).  A receive is cancelled, so that it cannot swallow a later
 * message meant for another receive; a send is released (MPICH cannot
 * cancel it; it completes locally or never).  A collective request may be
 * neither cancelled nor freed (MPI forbids both): it is set aside for
 * good.  Any of these makes the final MPI_Finalize skip PMPI_Finalize,
 * whose cleanup would report the leftover traffic. */
void fta_abandon(MPI_Request *req, int kind)
{
    static MPI_Request *coll;
    static size_t ncoll, capcoll;
    if (*req == MPI_REQUEST_NULL)
        return;
    fta_rt.abandoned++;
    switch (kind) {
    case FTA_RQ_RECV:
        PMPI_Cancel(req);
        PMPI_Request_free(req);
        break;
    case FTA_RQ_SEND:
        PMPI_Request_free(req);
        break;
    default:
        if (ncoll == capcoll) {
            size_t cap = capcoll ? 2 * capcoll : 8;
            MPI_Request *v = realloc(coll, cap * sizeof *v);
            if (!v)
                break; /* the handle is simply lost */
            coll = v;
            capcoll = cap;
        }
        coll[ncoll++] = *req;
        break;
    }
    *req = MPI_REQUEST_NULL;
}

static int wait_req(ftcomm_t *fc, MPI_Request *req, int peer, int kind,
                    MPI_Status *st)
{
    for (int spins = 0;;) {
        int done = 0;
        int rc = PMPI_Test(req, &done, st);
        if (rc != MPI_SUCCESS || done)
            return rc;
        fta_progress();
        if ((rc = fta_check(fc, peer)) != 0) {
            fta_abandon(req, kind);
            return rc;
        }
        if (++spins > FTA_SPIN)
            sched_yield();
    }
}

#define PRECHECK(comm, peer)                                                   \
    ftcomm_t *fc = fta_need(comm);                                             \
    int rc;                                                                    \
    if (fc) {                                                                  \
        fta_progress();                                                        \
        if ((rc = fta_check(fc, peer)) != 0)                                   \
            return fta_mpi_error(comm, rc);                                    \
    }

FTA_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest,
                        int tag, MPI_Comm comm)
{
    PRECHECK(comm, dest);
    if (!fc)
        return PMPI_Send(buf, count, dt, dest, tag, comm);
    MPI_Request r;
    rc = PMPI_Isend(buf, count, dt, dest, tag, comm, &r);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r, dest, FTA_RQ_SEND, MPI_STATUS_IGNORE);
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag,
                        MPI_Comm comm, MPI_Status *st)
{
    PRECHECK(comm, src);
    if (!fc)
        return PMPI_Recv(buf, count, dt, src, tag, comm, st);
    MPI_Request r;
    rc = PMPI_Irecv(buf, count, dt, src, tag, comm, &r);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r, src, FTA_RQ_RECV, st);
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt,
                            int dest, int stag, void *rbuf, int rcount,
                            MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                            MPI_Status *st)
{
    PRECHECK(comm, dest);
    if (!fc)
        return PMPI_Sendrecv(sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt,
                             src, rtag, comm, st);
    if ((rc = fta_check(fc, src)) != 0)
        return fta_mpi_error(comm, rc);
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    rc = PMPI_Irecv(rbuf, rcount, rdt, src, rtag, comm, &r[0]);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(sbuf, scount, sdt, dest, stag, comm, &r[1]);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r[1], dest, FTA_RQ_SEND, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r[0], src, FTA_RQ_RECV, st);
    else
        fta_abandon(&r[0], FTA_RQ_RECV);
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    PRECHECK(comm, -1);
    if (!fc)
        return PMPI_Barrier(comm);
    MPI_Request r;
    rc = PMPI_Ibarrier(comm, &r);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r, -1, FTA_RQ_COLL, MPI_STATUS_IGNORE);
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root,
                         MPI_Comm comm)
{
    PRECHECK(comm, -1);
    if (!fc)
        return PMPI_Bcast(buf, count, dt, root, comm);
    MPI_Request r;
    rc = PMPI_Ibcast(buf, count, dt, root, comm, &r);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r, -1, FTA_RQ_COLL, MPI_STATUS_IGNORE);
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    PRECHECK(comm, -1);
    if (!fc)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    MPI_Request r;
    rc = PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, comm, &r);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r, -1, FTA_RQ_COLL, MPI_STATUS_IGNORE);
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    PRECHECK(comm, -1);
    if (!fc)
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    MPI_Request r;
    rc = PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, &r);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r, -1, FTA_RQ_COLL, MPI_STATUS_IGNORE);
    return fta_mpi_error(comm, rc);
}

/* A blocking collective: fail at once if a member is known failed or the
 * communicator is revoked, else run the nonblocking form and wait. */
#define FT_COLL(comm, blocking, nonblocking)                                   \
    PRECHECK(comm, -1);                                                        \
    if (!fc)                                                                   \
        return blocking;                                                       \
    MPI_Request r;                                                             \
    rc = nonblocking;                                                          \
    if (rc == MPI_SUCCESS)                                                     \
        rc = wait_req(fc, &r, -1, FTA_RQ_COLL, MPI_STATUS_IGNORE);             \
    return fta_mpi_error(comm, rc)

FTA_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt,
                          void *rbuf, int rcount, MPI_Datatype rdt, int root,
                          MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
            PMPI_Igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, &r));
}

FTA_EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                           void *rbuf, const int rcounts[], const int displs[],
                           MPI_Datatype rdt, int root, MPI_Comm comm)
{
    FT_COLL(
        comm,
        PMPI_Gatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm),
        PMPI_Igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root, comm,
                      &r));
}

FTA_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt,
                           void *rbuf, int rcount, MPI_Datatype rdt, int root,
                           MPI_Comm comm)
{
    FT_COLL(
        comm, PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm),
        PMPI_Iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, &r));
}

FTA_EXPORT int MPI_Scatterv(const void *sbuf, const int scounts[],
                            const int displs[], MPI_Datatype sdt, void *rbuf,
                            int rcount, MPI_Datatype rdt, int root,
                            MPI_Comm comm)
{
    FT_COLL(comm,
            PMPI_Scatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                          comm),
            PMPI_Iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                           comm, &r));
}

FTA_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt,
                             void *rbuf, int rcount, MPI_Datatype rdt,
                             MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm),
            PMPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, &r));
}

FTA_EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                              void *rbuf, const int rcounts[],
                              const int displs[], MPI_Datatype rdt,
                              MPI_Comm comm)
{
    FT_COLL(
        comm,
        PMPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm),
        PMPI_Iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, comm,
                         &r));
}

FTA_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt,
                            void *rbuf, int rcount, MPI_Datatype rdt,
                            MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm),
            PMPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, &r));
}

FTA_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[],
                             const int sdispls[], MPI_Datatype sdt, void *rbuf,
                             const int rcounts[], const int rdispls[],
                             MPI_Datatype rdt, MPI_Comm comm)
{
    FT_COLL(comm,
            PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls,
                           rdt, comm),
            PMPI_Ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls,
                            rdt, comm, &r));
}

FTA_EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf,
                                  const int rcounts[], MPI_Datatype dt,
                                  MPI_Op op, MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm),
            PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, &r));
}

FTA_EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf,
                                        int rcount, MPI_Datatype dt, MPI_Op op,
                                        MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm),
            PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm, &r));
}

FTA_EXPORT int MPI_Scan(const void *sbuf, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Scan(sbuf, rbuf, count, dt, op, comm),
            PMPI_Iscan(sbuf, rbuf, count, dt, op, comm, &r));
}

FTA_EXPORT int MPI_Exscan(const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    FT_COLL(comm, PMPI_Exscan(sbuf, rbuf, count, dt, op, comm),
            PMPI_Iexscan(sbuf, rbuf, count, dt, op, comm, &r));
}
