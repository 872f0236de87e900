/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_ulfm.c: the ULFM calls (MPIX_Comm_*) and the interposed
 * communication calls that report failed peers and revoked communicators.
 *
 * Blocking calls are turned into their nonblocking form plus a wait loop
 * that also runs the failure detector's notices and the protocol; when the
 * peer (or, for a collective, any member) fails or the communicator is
 * revoked, the loop gives up with the ULFM error class and abandons the
 * MPI request (MPICH cannot cancel it; a communicator with a failure is to
 * be revoked and shrunk, not reused).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "fta_mpi_int.h"
#include "mpix_ft.h"

/* Polls before a wait loop starts yielding the core. */
#define FTA_SPIN 200

int fta_mpi_error(MPI_Comm comm, int code)
{
    int cls;
    switch (code) {
    case 0:
        return MPI_SUCCESS;
    case FTA_EPROCFAILED:
        cls = MPIX_ERR_PROC_FAILED;
        break;
    case FTA_EREVOKED:
        cls = MPIX_ERR_REVOKED;
        break;
    case -ENOMEM:
        cls = MPI_ERR_NO_MEM;
        break;
    case -EINVAL:
        cls = MPI_ERR_ARG;
        break;
    case -EBUSY:
        cls = MPI_ERR_PENDING;
        break;
    default:
        cls = code > 0 ? code : MPI_ERR_INTERN; /* already an MPI class */
        break;
    }
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_call_errhandler(comm, cls);
    return cls;
}

static void acked_list(const ftcomm_t *fc, uint32_t *out)
{
    for (int i = 0; i < fc->nacked; i++)
        out[i] = (uint32_t)fc->failed[i];
}

static int agree_start(ftcomm_t *fc, int flag, uint64_t *inst)
{
    uint32_t *acked = malloc(((size_t)fc->nacked + 1) * sizeof *acked);
    if (!acked)
        return -ENOMEM;
    acked_list(fc, acked);
    int rc =
        fta_agree_start(fc->node, flag, NULL, acked, (size_t)fc->nacked, inst);
    free(acked);
    return rc;
}

/* Record the decided failures in the detection-ordered list too. */
static void adopt_failed(ftcomm_t *fc, const fta_decision_t *d)
{
    for (uint32_t i = 0; i < d->nfailed; i++) {
        int r = (int)d->failed[i], seen = 0;
        for (int j = 0; j < fc->nfailed && !seen; j++)
            seen = fc->failed[j] == r;
        if (!seen)
            fc->failed[fc->nfailed++] = r;
    }
}

int fta_agree_blocking(ftcomm_t *fc, int *flag, fta_decision_t *dec)
{
    uint64_t inst;
    memset(dec, 0, sizeof *dec);
    fta_progress();
    int rc = agree_start(fc, *flag, &inst);
    /* Spin briefly (a decision often arrives within microseconds), then
     * yield: ranks may share cores. */
    for (int spins = 0;
         rc >= 0 && (rc = fta_agree_test(fc->node, inst, dec)) == 0; spins++) {
        if (spins > FTA_SPIN)
            sched_yield();
        fta_progress();
    }
    if (rc < 0)
        return rc;
    adopt_failed(fc, dec);
    *flag = dec->value;
    return dec->rc;
}

static ftcomm_t *need(MPI_Comm comm)
{
    if (!fta_rt.up || comm == MPI_COMM_NULL)
        return NULL;
    return fta_comm_find(comm);
}

FTA_EXPORT int MPIX_Comm_agree(MPI_Comm comm, int *flag)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !flag)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_decision_t d;
    int rc = fta_agree_blocking(fc, flag, &d);
    fta_decision_release(&d);
    return fta_mpi_error(comm, rc);
}

typedef struct iagree {
    ftcomm_t *fc;
    MPI_Comm comm;
    uint64_t inst;
    int *flag;
    int rc;
    int done;
    MPI_Request req;
} iagree_t;

static int ia_query(void *extra, MPI_Status *st)
{
    iagree_t *ia = extra;
    PMPI_Status_set_elements(st, MPI_INT, 1);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    st->MPI_ERROR = ia->rc;
    return ia->rc;
}

static int ia_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int ia_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static int ia_poll(void *extra, MPI_Status *st)
{
    iagree_t *ia = extra;
    (void)st;
    if (ia->done)
        return MPI_SUCCESS;
    fta_progress();
    fta_decision_t d;
    int rc = fta_agree_test(ia->fc->node, ia->inst, &d);
    if (rc == 0)
        return MPI_SUCCESS;
    if (rc > 0) {
        adopt_failed(ia->fc, &d);
        *ia->flag = d.value;
        rc = d.rc;
        fta_decision_release(&d);
    }
    ia->rc = fta_mpi_error(MPI_COMM_NULL, rc);
    ia->done = 1;
    PMPI_Grequest_complete(ia->req);
    return MPI_SUCCESS;
}

static int ia_wait(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    for (int i = 0; i < count; i++) {
        iagree_t *ia = states[i];
        while (!ia->done) {
            ia_poll(ia, st);
            if (!ia->done)
                sched_yield();
        }
    }
    return MPI_SUCCESS;
}

FTA_EXPORT int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *req)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !flag || !req)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    iagree_t *ia = calloc(1, sizeof *ia);
    if (!ia)
        return fta_mpi_error(comm, -ENOMEM);
    ia->fc = fc;
    ia->comm = comm;
    ia->flag = flag;
    fta_progress();
    int rc = agree_start(fc, *flag, &ia->inst);
    if (rc < 0) {
        free(ia);
        return fta_mpi_error(comm, rc);
    }
    rc = PMPIX_Grequest_start(ia_query, ia_free, ia_cancel, ia_poll, ia_wait,
                              ia, &ia->req);
    if (rc != MPI_SUCCESS) {
        free(ia);
        return fta_mpi_error(comm, rc);
    }
    *req = ia->req;
    return MPI_SUCCESS;
}

FTA_EXPORT int MPIX_Comm_revoke(MPI_Comm comm)
{
    ftcomm_t *fc = need(comm);
    if (!fc)
        return fta_mpi_error(comm, MPI_ERR_COMM);
    int rc = fta_revoke(fc->node);
    fta_progress();
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !flag)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_progress();
    *flag = fta_is_revoked(fc->node);
    return MPI_SUCCESS;
}

static int group_of(ftcomm_t *fc, int n, MPI_Group *out)
{
    MPI_Group g;
    int rc = PMPI_Comm_group(fc->comm, &g);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Group_incl(g, n, fc->failed, out);
        PMPI_Group_free(&g);
    }
    return rc;
}

FTA_EXPORT int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *grp)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !grp)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_progress();
    return fta_mpi_error(comm, group_of(fc, fc->nfailed, grp));
}

FTA_EXPORT int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack,
                                    int *num_acked)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !num_acked || num_to_ack < 0)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_progress();
    if (num_to_ack > fc->nfailed)
        num_to_ack = fc->nfailed;
    if (num_to_ack > fc->nacked)
        fc->nacked = num_to_ack;
    *num_acked = fc->nacked;
    return MPI_SUCCESS;
}

FTA_EXPORT int MPIX_Comm_failure_ack(MPI_Comm comm)
{
    int n;
    return MPIX_Comm_ack_failed(comm, 1 << 30, &n);
}

FTA_EXPORT int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *grp)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !grp)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    return fta_mpi_error(comm, group_of(fc, fc->nacked, grp));
}

FTA_EXPORT int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    ftcomm_t *fc = need(comm);
    if (!fc || !newcomm)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    /* Agree on the failed set; the survivors keep their relative order. */
    int flag = 1;
    fta_decision_t d;
    int rc = fta_agree_blocking(fc, &flag, &d);
    if (rc < 0 && rc != FTA_EPROCFAILED) {
        fta_decision_release(&d);
        return fta_mpi_error(comm, rc);
    }
    MPI_Group g, sg;
    int *excl = malloc((d.nfailed + 1) * sizeof *excl);
    if (!excl) {
        fta_decision_release(&d);
        return fta_mpi_error(comm, -ENOMEM);
    }
    for (uint32_t i = 0; i < d.nfailed; i++)
        excl[i] = (int)d.failed[i];
    PMPI_Comm_group(comm, &g);
    PMPI_Group_excl(g, (int)d.nfailed, excl, &sg);
    free(excl);
    uint64_t id = fta_derive_id(fc, 0x5348524bull ^ d.nfailed);
    fta_decision_release(&d);
    /* Only the survivors take part: nobody waits for the dead. */
    rc = PMPI_Comm_create_group(comm, sg, (int)(id & 0x3fff), newcomm);
    PMPI_Group_free(&g);
    PMPI_Group_free(&sg);
    if (rc != MPI_SUCCESS)
        return fta_mpi_error(comm, rc);
    ftcomm_t *nc;
    if (fta_comm_register(*newcomm, id, &nc) < 0)
        return fta_mpi_error(comm, -ENOMEM);
    return MPI_SUCCESS;
}

/* ---- Communicator constructors: register the results. ---- */

FTA_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    ftcomm_t *fc = need(comm), *nc;
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS && fc && *newcomm != MPI_COMM_NULL &&
        fta_comm_register(*newcomm, fta_derive_id(fc, 0x445550ull), &nc) < 0)
        rc = MPI_ERR_NO_MEM;
    return rc;
}

FTA_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key,
                              MPI_Comm *newcomm)
{
    ftcomm_t *fc = need(comm), *nc;
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    /* Every member derives (this parent, this many derivations); the
     * colour tells the new communicators apart. */
    uint64_t id = fc ? fta_derive_id(fc, 0x53504cull + (uint64_t)color) : 0;
    if (rc == MPI_SUCCESS && fc && *newcomm != MPI_COMM_NULL &&
        fta_comm_register(*newcomm, id, &nc) < 0)
        rc = MPI_ERR_NO_MEM;
    return rc;
}

FTA_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm && fta_rt.up)
        fta_comm_unregister(*comm);
    return PMPI_Comm_free(comm);
}

/* ---- Communication calls. ---- */

/* 0 to go on, or the error of fc: revoked, or (peer < 0: any member;
 * peer == MPI_ANY_SOURCE: any unacknowledged member) failed. */
static int check(ftcomm_t *fc, int peer)
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

static int wait_req(ftcomm_t *fc, MPI_Request *req, int peer, MPI_Status *st)
{
    for (int spins = 0;;) {
        int done = 0;
        int rc = PMPI_Test(req, &done, st);
        if (rc != MPI_SUCCESS || done)
            return rc;
        fta_progress();
        if ((rc = check(fc, peer)) != 0) {
            PMPI_Request_free(req);
            return rc;
        }
        if (++spins > FTA_SPIN)
            sched_yield();
    }
}

#define PRECHECK(comm, peer)                                                   \
    ftcomm_t *fc = need(comm);                                                 \
    int rc;                                                                    \
    if (fc) {                                                                  \
        fta_progress();                                                        \
        if ((rc = check(fc, peer)) != 0)                                       \
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
        rc = wait_req(fc, &r, dest, MPI_STATUS_IGNORE);
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
        rc = wait_req(fc, &r, src, st);
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
    if ((rc = check(fc, src)) != 0)
        return fta_mpi_error(comm, rc);
    MPI_Request r[2];
    rc = PMPI_Irecv(rbuf, rcount, rdt, src, rtag, comm, &r[0]);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Isend(sbuf, scount, sdt, dest, stag, comm, &r[1]);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r[1], dest, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = wait_req(fc, &r[0], src, st);
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
        rc = wait_req(fc, &r, -1, MPI_STATUS_IGNORE);
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
        rc = wait_req(fc, &r, -1, MPI_STATUS_IGNORE);
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
        rc = wait_req(fc, &r, -1, MPI_STATUS_IGNORE);
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
        rc = wait_req(fc, &r, -1, MPI_STATUS_IGNORE);
    return fta_mpi_error(comm, rc);
}
