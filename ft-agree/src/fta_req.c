/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_req.c: nonblocking communication on fault-tolerant communicators and
 * the completion calls that report its failures.
 *
 * MPI_Isend, MPI_Issend, MPI_Irecv and every nonblocking collective of
 * MPI-3 (MPI_Ibarrier ... MPI_Iexscan; not the neighbourhood ones, whose
 * communicators with a topology are never registered) on a registered
 * communicator are remembered with their communicator and peer.  When the
 * peer (a collective: any member) is already known failed or the
 * communicator is revoked, nothing is started: the call returns
 * MPI_SUCCESS and a placeholder request (a generalized request, complete
 * from the start) that carries the failure to the completion call, where
 * MPICH's test/mpi/ft programs (nbccoll, isenddead, irecvdead) look for
 * it: a program that waits on the request without looking at the start
 * call's code sees the failure whether it was known at the start or
 * found later.  MPI_Wait, MPI_Test
 * and the -all, -any and -some forms run the failure detector and the
 * protocol while they poll, and complete a remembered request whose peer
 * fails (or whose communicator is revoked) with MPIX_ERR_PROC_FAILED
 * (MPIX_ERR_REVOKED): the request is released (MPICH cannot cancel it; a
 * receive buffer must then not be reused for that message) and the handle
 * set to MPI_REQUEST_NULL.  A message that arrived before the failure was
 * noticed completes normally.  The multi-request calls return
 * MPI_ERR_IN_STATUS with the class in the failed request's status (the
 * other requests of MPI_Testall, MPI_Waitany/-some and MPI_Testany/-some
 * are left alone, as MPI_ERR_PENDING in their statuses where the call
 * fills every status).  MPI_Request_get_status reports the failure the
 * same way without freeing the request.  Requests not made here go
 * straight to MPI.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "fta_mpi_int.h"
#include "mpix_ft.h"

typedef struct treq {
    MPI_Request req;
    MPI_Comm comm;
    int peer; /* rank, MPI_ANY_SOURCE or -1 (collective) */
    int kind; /* FTA_RQ_* */
    int err;  /* failure known at the start (placeholder request), or 0 */
} treq_t;

static treq_t *tracked;
static size_t ntracked, captracked;

static treq_t *tfind(MPI_Request r)
{
    if (r == MPI_REQUEST_NULL)
        return NULL;
    for (size_t i = 0; i < ntracked; i++)
        if (tracked[i].req == r)
            return &tracked[i];
    return NULL;
}

static void tdrop(MPI_Request r)
{
    treq_t *t = tfind(r);
    if (t)
        *t = tracked[--ntracked];
}

static int track(MPI_Request r, MPI_Comm comm, int peer, int kind, int err)
{
    if (ntracked == captracked) {
        size_t cap = captracked ? 2 * captracked : 16;
        treq_t *v = realloc(tracked, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        tracked = v;
        captracked = cap;
    }
    tracked[ntracked].req = r;
    tracked[ntracked].comm = comm;
    tracked[ntracked].peer = peer;
    tracked[ntracked].kind = kind;
    tracked[ntracked].err = err;
    ntracked++;
    return 0;
}

/* The error of a tracked request: 0 while it may still complete. */
static int tfailed(const treq_t *t)
{
    if (t->err)
        return t->err;
    ftcomm_t *fc = fta_need(t->comm);
    return fc ? fta_check(fc, t->peer) : 0;
}

/* A receive from MPI_ANY_SOURCE that meets an unacknowledged failure:
 * ULFM reports MPIX_ERR_PROC_FAILED_PENDING and leaves the request pending
 * (it may still match a message, and completes normally once the failure
 * is acknowledged with MPIX_Comm_failure_ack). */
static int any_source_pending(const treq_t *t, int rc)
{
    return t->peer == MPI_ANY_SOURCE && t->kind == FTA_RQ_RECV &&
           rc == FTA_EPROCFAILED;
}

/* Complete *r (tracked as t) with error rc: release it, fill *st.  An
 * MPI_ANY_SOURCE receive stays pending (any_source_pending). */
static int tfail(MPI_Request *r, const treq_t *t, int rc, MPI_Status *st)
{
    int peer = t->peer;
    int cls;
    if (any_source_pending(t, rc)) {
        cls = MPIX_ERR_PROC_FAILED_PENDING;
    } else {
        int kind = t->kind, placeholder = t->err != 0;
        tdrop(*r);
        if (placeholder)
            PMPI_Wait(r, MPI_STATUS_IGNORE); /* complete: frees it */
        else
            fta_abandon(r, kind);
        cls = fta_mpi_error(MPI_COMM_NULL, rc);
    }
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = peer >= 0 ? peer : MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        st->MPI_ERROR = cls;
    }
    return cls;
}

/* The placeholder's callbacks: it completes with an empty status; the
 * completion calls (poll_one, tfail) report its failure. */
static int ph_query(void *extra, MPI_Status *st)
{
    (void)extra;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

static int ph_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int ph_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* A nonblocking call on comm that meets a known failure or a revocation
 * (code err): a placeholder request that reports err when completed.
 * Without memory for it, the start call itself reports err. */
static int start_failed(MPI_Comm comm, int peer, int kind, int err,
                        MPI_Request *req)
{
    if (PMPI_Grequest_start(ph_query, ph_free, ph_cancel, NULL, req) !=
        MPI_SUCCESS) {
        *req = MPI_REQUEST_NULL;
        return fta_mpi_error(comm, err);
    }
    PMPI_Grequest_complete(*req);
    if (track(*req, comm, peer, kind, err) < 0) {
        PMPI_Wait(req, MPI_STATUS_IGNORE);
        return fta_mpi_error(comm, err);
    }
    return MPI_SUCCESS;
}

/* Start a nonblocking call on comm (peer as in fta_check; an
 * MPI_ANY_SOURCE receive is started despite an unacknowledged failure and
 * reports it in its completion call; a known failure or revocation gives
 * a placeholder, start_failed). */
#define NB_START(comm, peer, kind, plain, call)                                \
    ftcomm_t *fc = fta_need(comm);                                             \
    if (!fc)                                                                   \
        return plain;                                                          \
    fta_progress();                                                            \
    int rc = fta_check(fc, peer);                                              \
    if (rc == FTA_EPROCFAILED && (peer) == MPI_ANY_SOURCE &&                   \
        (kind) == FTA_RQ_RECV)                                                 \
        rc = 0;                                                                \
    if (rc != 0)                                                               \
        return start_failed(comm, peer, kind, rc, req);                        \
    rc = call;                                                                 \
    if (rc == MPI_SUCCESS && track(*req, comm, peer, kind, 0) < 0)             \
        rc = MPI_ERR_NO_MEM;                                                   \
    return rc == MPI_SUCCESS ? rc : fta_mpi_error(comm, rc)

FTA_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest,
                         int tag, MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, dest, FTA_RQ_SEND,
             PMPI_Isend(buf, count, dt, dest, tag, comm, req),
             PMPI_Isend(buf, count, dt, dest, tag, comm, req));
}

FTA_EXPORT int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest,
                          int tag, MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, dest, FTA_RQ_SEND,
             PMPI_Issend(buf, count, dt, dest, tag, comm, req),
             PMPI_Issend(buf, count, dt, dest, tag, comm, req));
}

FTA_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src,
                         int tag, MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, src, FTA_RQ_RECV,
             PMPI_Irecv(buf, count, dt, src, tag, comm, req),
             PMPI_Irecv(buf, count, dt, src, tag, comm, req));
}

FTA_EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL, PMPI_Ibarrier(comm, req),
             PMPI_Ibarrier(comm, req));
}

FTA_EXPORT int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root,
                          MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ibcast(buf, count, dt, root, comm, req),
             PMPI_Ibcast(buf, count, dt, root, comm, req));
}

FTA_EXPORT int MPI_Ireduce(const void *sbuf, void *rbuf, int count,
                           MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                           MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, comm, req),
             PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, comm, req));
}

FTA_EXPORT int MPI_Iallreduce(const void *sbuf, void *rbuf, int count,
                              MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                              MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, req),
             PMPI_Iallreduce(sbuf, rbuf, count, dt, op, comm, req));
}

/* The other nonblocking collectives of MPI-3 (every one of them on a
 * registered communicator: a member's failure is reported as above). */
FTA_EXPORT int MPI_Igather(const void *sbuf, int scount, MPI_Datatype sdt,
                           void *rbuf, int rcount, MPI_Datatype rdt, int root,
                           MPI_Comm comm, MPI_Request *req)
{
    NB_START(
        comm, -1, FTA_RQ_COLL,
        PMPI_Igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req),
        PMPI_Igather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req));
}

FTA_EXPORT int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                            void *rbuf, const int rcounts[], const int displs[],
                            MPI_Datatype rdt, int root, MPI_Comm comm,
                            MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root,
                           comm, req),
             PMPI_Igatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, root,
                           comm, req));
}

FTA_EXPORT int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype sdt,
                            void *rbuf, int rcount, MPI_Datatype rdt, int root,
                            MPI_Comm comm, MPI_Request *req)
{
    NB_START(
        comm, -1, FTA_RQ_COLL,
        PMPI_Iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req),
        PMPI_Iscatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm, req));
}

FTA_EXPORT int MPI_Iscatterv(const void *sbuf, const int scounts[],
                             const int displs[], MPI_Datatype sdt, void *rbuf,
                             int rcount, MPI_Datatype rdt, int root,
                             MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                            comm, req),
             PMPI_Iscatterv(sbuf, scounts, displs, sdt, rbuf, rcount, rdt, root,
                            comm, req));
}

FTA_EXPORT int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype sdt,
                              void *rbuf, int rcount, MPI_Datatype rdt,
                              MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req),
             PMPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req));
}

FTA_EXPORT int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype sdt,
                               void *rbuf, const int rcounts[],
                               const int displs[], MPI_Datatype rdt,
                               MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                              comm, req),
             PMPI_Iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt,
                              comm, req));
}

FTA_EXPORT int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype sdt,
                             void *rbuf, int rcount, MPI_Datatype rdt,
                             MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req),
             PMPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm, req));
}

FTA_EXPORT int MPI_Ialltoallv(const void *sbuf, const int scounts[],
                              const int sdispls[], MPI_Datatype sdt, void *rbuf,
                              const int rcounts[], const int rdispls[],
                              MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                             rdispls, rdt, comm, req),
             PMPI_Ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts,
                             rdispls, rdt, comm, req));
}

FTA_EXPORT int MPI_Ialltoallw(const void *sbuf, const int scounts[],
                              const int sdispls[], const MPI_Datatype sdts[],
                              void *rbuf, const int rcounts[],
                              const int rdispls[], const MPI_Datatype rdts[],
                              MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ialltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                             rdispls, rdts, comm, req),
             PMPI_Ialltoallw(sbuf, scounts, sdispls, sdts, rbuf, rcounts,
                             rdispls, rdts, comm, req));
}

FTA_EXPORT int MPI_Ireduce_scatter(const void *sbuf, void *rbuf,
                                   const int rcounts[], MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, req),
             PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, req));
}

FTA_EXPORT int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf,
                                         int rcount, MPI_Datatype dt, MPI_Op op,
                                         MPI_Comm comm, MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm, req),
             PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm, req));
}

FTA_EXPORT int MPI_Iscan(const void *sbuf, void *rbuf, int count,
                         MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                         MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Iscan(sbuf, rbuf, count, dt, op, comm, req),
             PMPI_Iscan(sbuf, rbuf, count, dt, op, comm, req));
}

FTA_EXPORT int MPI_Iexscan(const void *sbuf, void *rbuf, int count,
                           MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                           MPI_Request *req)
{
    NB_START(comm, -1, FTA_RQ_COLL,
             PMPI_Iexscan(sbuf, rbuf, count, dt, op, comm, req),
             PMPI_Iexscan(sbuf, rbuf, count, dt, op, comm, req));
}

FTA_EXPORT int MPI_Request_free(MPI_Request *req)
{
    if (req)
        tdrop(*req);
    return PMPI_Request_free(req);
}

/* Whether *r completed, without freeing it (MPI_Request_get_status): a
 * tracked request whose peer failed (a placeholder included) reports the
 * failure in flag and status, and stays for the completion call, which
 * reports it again and frees it. */
FTA_EXPORT int MPI_Request_get_status(MPI_Request r, int *flag, MPI_Status *st)
{
    if (!flag || !tfind(r))
        return PMPI_Request_get_status(r, flag, st);
    fta_progress();
    treq_t *t = tfind(r);
    if (!t || !t->err) { /* a placeholder is complete in MPI: not asked */
        int rc = PMPI_Request_get_status(r, flag, st);
        if (!t || rc != MPI_SUCCESS || *flag)
            return rc;
    }
    int rc = tfailed(t);
    if (rc == 0) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    int cls = any_source_pending(t, rc) ? MPIX_ERR_PROC_FAILED_PENDING
                                        : fta_mpi_error(MPI_COMM_NULL, rc);
    *flag = 1;
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = t->peer >= 0 ? t->peer : MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        st->MPI_ERROR = cls;
    }
    PMPI_Comm_call_errhandler(t->comm, cls);
    return cls;
}

/* One poll of a single request: 1 and *rcp set when it completed (or
 * failed; then the handler of its communicator is called if handler),
 * 0 when still pending. */
static int poll_one(MPI_Request *r, MPI_Status *st, int *rcp, int handler)
{
    treq_t *t = tfind(*r);
    int rc;
    if (!t || !t->err) { /* a placeholder is complete in MPI: not asked */
        MPI_Request old = *r;
        int done = 0;
        rc = PMPI_Test(r, &done, st);
        if (rc != MPI_SUCCESS || done) {
            if (t)
                tdrop(old);
            *rcp = rc;
            return 1;
        }
    }
    if (t && (rc = tfailed(t)) != 0) {
        MPI_Comm comm = t->comm;
        *rcp = tfail(r, t, rc, st);
        if (handler)
            PMPI_Comm_call_errhandler(comm, *rcp);
        return 1;
    }
    return 0;
}

FTA_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    if (!req || !tfind(*req))
        return PMPI_Wait(req, st);
    int rc = MPI_SUCCESS;
    for (int spins = 0; !poll_one(req, st, &rc, 1); spins++) {
        fta_progress();
        if (spins > FTA_SPIN)
            sched_yield();
    }
    return rc;
}

FTA_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (!req || !flag || !tfind(*req))
        return PMPI_Test(req, flag, st);
    fta_progress();
    int rc = MPI_SUCCESS;
    *flag = poll_one(req, st, &rc, 1);
    return rc;
}

static int any_tracked(int n, const MPI_Request *reqs)
{
    for (int i = 0; reqs && i < n; i++)
        if (tfind(reqs[i]))
            return 1;
    return 0;
}

/* Fail every tracked request of reqs whose peer failed.  Returns the
 * number failed; the first failure's communicator gets the handler. */
static int fail_pass(int n, MPI_Request *reqs, MPI_Status *sts, int *idx,
                     MPI_Comm *comm)
{
    int nf = 0;
    for (int i = 0; i < n; i++) {
        treq_t *t = tfind(reqs[i]);
        int rc;
        if (!t || (rc = tfailed(t)) == 0)
            continue;
        if (!nf)
            *comm = t->comm;
        tfail(&reqs[i], t, rc,
              sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i]);
        if (idx)
            idx[nf] = i;
        nf++;
    }
    return nf;
}

FTA_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    if (!any_tracked(n, reqs))
        return PMPI_Waitall(n, reqs, sts);
    int err = 0;
    MPI_Comm ecomm = MPI_COMM_NULL;
    for (int spins = 0;; spins++) {
        int pending = 0;
        for (int i = 0; i < n; i++) {
            if (reqs[i] == MPI_REQUEST_NULL)
                continue;
            MPI_Status *st =
                sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
            treq_t *t = tfind(reqs[i]);
            MPI_Comm comm = t ? t->comm : MPI_COMM_NULL;
            int rc;
            if (!poll_one(&reqs[i], st, &rc, 0)) {
                pending++;
                continue;
            }
            if (st != MPI_STATUS_IGNORE)
                st->MPI_ERROR = rc; /* MPI_Test leaves it alone */
            if (rc != MPI_SUCCESS && !err) {
                err = 1;
                ecomm = comm;
            }
        }
        if (!pending)
            break;
        fta_progress();
        if (spins > FTA_SPIN)
            sched_yield();
    }
    if (!err)
        return MPI_SUCCESS;
    if (ecomm != MPI_COMM_NULL)
        PMPI_Comm_call_errhandler(ecomm, MPI_ERR_IN_STATUS);
    return MPI_ERR_IN_STATUS;
}

FTA_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag,
                           MPI_Status sts[])
{
    if (!any_tracked(n, reqs) || !flag)
        return PMPI_Testall(n, reqs, flag, sts);
    fta_progress();
    MPI_Comm ecomm = MPI_COMM_NULL;
    int *idx = malloc(((size_t)n + 1) * sizeof *idx);
    if (!idx)
        return MPI_ERR_NO_MEM;
    int nf = fail_pass(n, reqs, sts, idx, &ecomm);
    if (!nf) {
        free(idx);
        /* Complete all or nothing, as MPI_Testall does. */
        MPI_Request *old = malloc(((size_t)n + 1) * sizeof *old);
        if (!old)
            return MPI_ERR_NO_MEM;
        memcpy(old, reqs, (size_t)n * sizeof *old);
        int rc = PMPI_Testall(n, reqs, flag, sts);
        if (*flag)
            for (int i = 0; i < n; i++)
                tdrop(old[i]);
        free(old);
        return rc;
    }
    /* A failure: report it; the others stay pending. */
    if (sts != MPI_STATUSES_IGNORE)
        for (int i = 0, k = 0; i < n; i++) {
            if (k < nf && idx[k] == i)
                k++;
            else
                sts[i].MPI_ERROR =
                    reqs[i] == MPI_REQUEST_NULL ? MPI_SUCCESS : MPI_ERR_PENDING;
        }
    free(idx);
    *flag = 1;
    PMPI_Comm_call_errhandler(ecomm, MPI_ERR_IN_STATUS);
    return MPI_ERR_IN_STATUS;
}

/* The -any forms: a failed tracked request counts as the completed one. */
static int any_once(int n, MPI_Request reqs[], int *index, int *flag,
                    MPI_Status *st)
{
    for (int i = 0; i < n; i++) {
        treq_t *t = tfind(reqs[i]);
        int rc;
        if (t && (rc = tfailed(t)) != 0) {
            MPI_Comm comm = t->comm;
            rc = tfail(&reqs[i], t, rc, st);
            *index = i;
            *flag = 1;
            PMPI_Comm_call_errhandler(comm, rc);
            return rc;
        }
    }
    MPI_Request *old = malloc(((size_t)n + 1) * sizeof *old);
    if (!old)
        return MPI_ERR_NO_MEM;
    memcpy(old, reqs, (size_t)n * sizeof *old);
    int rc = PMPI_Testany(n, reqs, index, flag, st);
    if (*flag && *index != MPI_UNDEFINED)
        tdrop(old[*index]);
    free(old);
    return rc;
}

FTA_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag,
                           MPI_Status *st)
{
    if (!any_tracked(n, reqs) || !index || !flag)
        return PMPI_Testany(n, reqs, index, flag, st);
    fta_progress();
    return any_once(n, reqs, index, flag, st);
}

FTA_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *index,
                           MPI_Status *st)
{
    if (!any_tracked(n, reqs) || !index)
        return PMPI_Waitany(n, reqs, index, st);
    int flag = 0, rc;
    for (int spins = 0;; spins++) {
        rc = any_once(n, reqs, index, &flag, st);
        if (flag || rc != MPI_SUCCESS)
            return rc;
        fta_progress();
        if (spins > FTA_SPIN)
            sched_yield();
    }
}

/* The -some forms: report failed tracked requests first, else whatever
 * completed. */
static int some_once(int n, MPI_Request reqs[], int *outcount, int idx[],
                     MPI_Status sts[])
{
    MPI_Comm ecomm = MPI_COMM_NULL;
    int nf = fail_pass(n, reqs, sts, idx, &ecomm);
    if (nf) {
        /* Statuses of failed requests sit at their request index; move
         * them to the output positions MPI_Testsome uses. */
        if (sts != MPI_STATUSES_IGNORE)
            for (int k = 0; k < nf; k++)
                sts[k] = sts[idx[k]];
        *outcount = nf;
        PMPI_Comm_call_errhandler(ecomm, MPI_ERR_IN_STATUS);
        return MPI_ERR_IN_STATUS;
    }
    MPI_Request *old = malloc(((size_t)n + 1) * sizeof *old);
    if (!old)
        return MPI_ERR_NO_MEM;
    memcpy(old, reqs, (size_t)n * sizeof *old);
    int rc = PMPI_Testsome(n, reqs, outcount, idx, sts);
    for (int k = 0; *outcount != MPI_UNDEFINED && k < *outcount; k++)
        tdrop(old[idx[k]]);
    free(old);
    return rc;
}

FTA_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int idx[],
                            MPI_Status sts[])
{
    if (!any_tracked(n, reqs) || !outcount || !idx)
        return PMPI_Testsome(n, reqs, outcount, idx, sts);
    fta_progress();
    return some_once(n, reqs, outcount, idx, sts);
}

FTA_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int idx[],
                            MPI_Status sts[])
{
    if (!any_tracked(n, reqs) || !outcount || !idx)
        return PMPI_Waitsome(n, reqs, outcount, idx, sts);
    for (int spins = 0;; spins++) {
        int rc = some_once(n, reqs, outcount, idx, sts);
        if (rc != MPI_SUCCESS || *outcount != 0)
            return rc;
        fta_progress();
        if (spins > FTA_SPIN)
            sched_yield();
    }
}
