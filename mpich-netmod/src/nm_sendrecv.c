/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_sendrecv.c: MPI_Isendrecv(_replace) and the large-count (_c)
 * point-to-point bindings on delegated communicators.  Isendrecv is a
 * generalized request over the delegated receive and send; the _c calls
 * take the int path for counts up to INT_MAX and refuse larger ones.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nm_internal.h"

#define DELEG(comm, peer) (nm_comm_delegated(comm) && (peer) != MPI_PROC_NULL)

/* ---------------- MPI_Isendrecv(_replace) ---------------- */

/* A generalized request over the receive and the send (each a delegated
 * request, or MPICH's for MPI_PROC_NULL); _replace receives into a staging
 * buffer copied into place once the send has left the user's buffer. */
typedef struct nm_pair {
    MPI_Request rq[2]; /* receive, send */
    MPI_Request greq;
    MPI_Status rst; /* of the receive */
    int err, done;
    void *stage; /* _replace: the received bytes */
    void *ubuf;
    int ucount, usize, own_type;
    MPI_Datatype udt;
    struct nm_pair *next; /* running pairs */
} nm_pair_t;

static nm_pair_t *pairs;
static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER; /* any thread */

int nm_pair_running(MPI_Request h)
{
    int running = 0;
    pthread_mutex_lock(&pairs_lock);
    for (nm_pair_t *p = pairs; p; p = p->next)
        if (p->greq == h) {
            running = !p->done;
            break;
        }
    pthread_mutex_unlock(&pairs_lock);
    return running;
}

static void pair_end(nm_pair_t *p)
{
    if (p->stage && p->err == MPI_SUCCESS &&
        p->rst.MPI_SOURCE != MPI_PROC_NULL) {
        int n = 0, cancelled = 0;
        PMPI_Get_count(&p->rst, MPI_BYTE, &n);
        PMPI_Test_cancelled(&p->rst, &cancelled);
        if (!cancelled && n > 0 && p->usize > 0) {
            int pos = 0;
            if (!p->own_type)
                memcpy(p->ubuf, p->stage, (size_t)n);
            else
                PMPI_Unpack(p->stage, n, &pos, p->ubuf, n / p->usize, p->udt,
                            MPI_COMM_SELF);
        }
    }
    p->done = 1;
    PMPI_Grequest_complete(p->greq);
}

/* Complete what has ended (wait: block until both have). */
static void pair_step(nm_pair_t *p, int wait)
{
    MPI_Errhandler eh = nm_quiet_begin();
    for (int i = 0; i < 2; i++) {
        if (p->rq[i] == MPI_REQUEST_NULL)
            continue;
        MPI_Status *st = i == 0 ? &p->rst : MPI_STATUS_IGNORE;
        int flag = 1, rc;
        rc = wait ? PMPI_Wait(&p->rq[i], st) : PMPI_Test(&p->rq[i], &flag, st);
        if (rc != MPI_SUCCESS && p->err == MPI_SUCCESS)
            p->err = rc;
        if (rc != MPI_SUCCESS)
            p->rq[i] = MPI_REQUEST_NULL;
    }
    nm_quiet_end(eh);
    if (!p->done && p->rq[0] == MPI_REQUEST_NULL &&
        p->rq[1] == MPI_REQUEST_NULL)
        pair_end(p);
}

/* MPI_Request_get_status does not run a generalized request's poll
 * function: it moves a running Isendrecv itself. */
void nm_pair_progress(MPI_Request h)
{
    nm_pair_t *p;
    pthread_mutex_lock(&pairs_lock);
    for (p = pairs; p && p->greq != h; p = p->next)
        ;
    pthread_mutex_unlock(&pairs_lock);
    /* the request is the caller's: no other thread ends it meanwhile */
    if (p && !p->done)
        pair_step(p, 0);
}

static int pair_poll(void *extra, MPI_Status *st)
{
    (void)st;
    nm_pair_t *p = extra;
    if (!p->done)
        pair_step(p, 0);
    return MPI_SUCCESS;
}

static int pair_wait(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < count; i++)
        if (!((nm_pair_t *)states[i])->done)
            pair_step(states[i], 1);
    return MPI_SUCCESS;
}

static int pair_query(void *extra, MPI_Status *st)
{
    nm_pair_t *p = extra;
    if (st != MPI_STATUS_IGNORE) {
        MPI_Count n = 0;
        int cancelled = 0;
        PMPI_Get_elements_x(&p->rst, MPI_BYTE, &n);
        PMPI_Test_cancelled(&p->rst, &cancelled);
        st->MPI_SOURCE = p->rst.MPI_SOURCE;
        st->MPI_TAG = p->rst.MPI_TAG;
        PMPI_Status_set_elements_x(st, MPI_BYTE, n);
        PMPI_Status_set_cancelled(st, cancelled);
    }
    return p->err;
}

static int pair_free(void *extra)
{
    nm_pair_t *p = extra;
    pthread_mutex_lock(&pairs_lock);
    for (nm_pair_t **pp = &pairs; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    pthread_mutex_unlock(&pairs_lock);
    if (p->own_type)
        PMPI_Type_free(&p->udt);
    free(p->stage);
    free(p);
    return MPI_SUCCESS;
}

static int pair_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* allowed: the operation completes */
}

/* Post the receive, then the send; on failure nothing stays behind. */
static int pair_post(nm_pair_t *p, const void *sbuf, int scount,
                     MPI_Datatype sdt, int dest, int stag, void *rbuf,
                     int rcount, MPI_Datatype rdt, int source, int rtag,
                     MPI_Comm comm, MPI_Request *req)
{
    p->rq[0] = p->rq[1] = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS;
    /* MPICH 4.0 gives a nonblocking receive from MPI_PROC_NULL the status
     * of source 0, tag 0; the blocking one is right */
    if (source == MPI_PROC_NULL)
        PMPI_Recv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &p->rst);
    else
        rc = MPI_Irecv(rbuf, rcount, rdt, source, rtag, comm, &p->rq[0]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(sbuf, scount, sdt, dest, stag, comm, &p->rq[1]);
    if (rc == MPI_SUCCESS)
        rc = MPIX_Grequest_start(pair_query, pair_free, pair_cancel, pair_poll,
                                 pair_wait, p, &p->greq);
    if (rc != MPI_SUCCESS) {
        if (p->rq[0] != MPI_REQUEST_NULL) {
            PMPI_Cancel(&p->rq[0]);
            PMPI_Wait(&p->rq[0], MPI_STATUS_IGNORE);
        }
        if (p->rq[1] != MPI_REQUEST_NULL)
            PMPI_Wait(&p->rq[1], MPI_STATUS_IGNORE);
        pair_free(p);
        return rc;
    }
    pthread_mutex_lock(&pairs_lock);
    p->next = pairs;
    pairs = p;
    pthread_mutex_unlock(&pairs_lock);
    *req = p->greq;
    return MPI_SUCCESS;
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Request *request)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                              recvbuf, recvcount, recvtype, source, recvtag,
                              nm_xl(comm), request);
    nm_pair_t *p = calloc(1, sizeof *p);
    if (!p)
        return nm_error(comm, MPI_ERR_NO_MEM);
    return pair_post(p, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                     recvcount, recvtype, source, recvtag, comm, request);
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
                          int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Request *request)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Isendrecv_replace(buf, count, dt, dest, sendtag, source,
                                      recvtag, nm_xl(comm), request);
    int size = 0, contig = 0;
    if (count < 0)
        return nm_error(comm, MPI_ERR_COUNT);
    if (nm_dt_info(dt, &size, &contig) != MPI_SUCCESS)
        return nm_error(comm, MPI_ERR_TYPE);
    if ((MPI_Count)count * size > INT_MAX)
        return nm_refuse(comm, "MPI_Isendrecv_replace of more than INT_MAX "
                               "bytes");
    nm_pair_t *p = calloc(1, sizeof *p);
    if (!p)
        return nm_error(comm, MPI_ERR_NO_MEM);
    p->ubuf = buf;
    p->ucount = count;
    p->usize = size;
    p->udt = dt;
    if (!contig) {
        /* unpacked at the end: the application may free its type */
        if (PMPI_Type_dup(dt, &p->udt) != MPI_SUCCESS) {
            free(p);
            return nm_error(comm, MPI_ERR_TYPE);
        }
        p->own_type = 1;
    }
    size_t bytes = (size_t)count * (size_t)size;
    p->stage = malloc(bytes ? bytes : 1);
    if (!p->stage) {
        pair_free(p);
        return nm_error(comm, MPI_ERR_NO_MEM);
    }
    return pair_post(p, buf, count, dt, dest, sendtag, p->stage, (int)bytes,
                     MPI_BYTE, source, recvtag, comm, request);
}

/* ---------------- large-count (_c) bindings ---------------- */

/* Delegated: counts up to INT_MAX take the int path (whose byte sizes are
 * 64-bit); larger counts are refused.  Everything else goes to MPICH's _c
 * binding. */
static int cnt(MPI_Count n)
{
    return n < 0 ? -1 : (int)n;
}

#define BIG(comm, n, what)                                                     \
    do {                                                                       \
        if ((n) > INT_MAX)                                                     \
            return nm_refuse(comm, what " with a count above INT_MAX");        \
    } while (0)

#define C_SEND(name)                                                           \
    int MPI_##name##_c(const void *buf, MPI_Count count, MPI_Datatype dt,      \
                       int dest, int tag, MPI_Comm comm)                       \
    {                                                                          \
        if (!DELEG(comm, dest))                                                \
            return PMPI_##name##_c(buf, count, dt, dest, tag, nm_xl(comm));    \
        BIG(comm, count, "MPI_" #name "_c");                                   \
        return MPI_##name(buf, cnt(count), dt, dest, tag, comm);               \
    }
C_SEND(Send)
C_SEND(Ssend)
C_SEND(Bsend)
C_SEND(Rsend)

#define C_ISEND(name, cbuf)                                                    \
    int MPI_##name##_c(cbuf void *buf, MPI_Count count, MPI_Datatype dt,       \
                       int peer, int tag, MPI_Comm comm, MPI_Request *req)     \
    {                                                                          \
        if (!DELEG(comm, peer))                                                \
            return PMPI_##name##_c(buf, count, dt, peer, tag, nm_xl(comm),     \
                                   req);                                       \
        BIG(comm, count, "MPI_" #name "_c");                                   \
        return MPI_##name(buf, cnt(count), dt, peer, tag, comm, req);          \
    }
C_ISEND(Isend, const)
C_ISEND(Issend, const)
C_ISEND(Ibsend, const)
C_ISEND(Irsend, const)
C_ISEND(Irecv, )
C_ISEND(Send_init, const)
C_ISEND(Ssend_init, const)
C_ISEND(Bsend_init, const)
C_ISEND(Rsend_init, const)
C_ISEND(Recv_init, )

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
               MPI_Comm comm, MPI_Status *status)
{
    if (!DELEG(comm, source))
        return PMPI_Recv_c(buf, count, dt, source, tag, nm_xl(comm), status);
    BIG(comm, count, "MPI_Recv_c");
    return MPI_Recv(buf, cnt(count), dt, source, tag, comm, status);
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount,
                   MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Sendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag,
                               recvbuf, recvcount, recvtype, source, recvtag,
                               nm_xl(comm), status);
    BIG(comm, sendcount > recvcount ? sendcount : recvcount, "MPI_Sendrecv_c");
    return MPI_Sendrecv(sendbuf, cnt(sendcount), sendtype, dest, sendtag,
                        recvbuf, cnt(recvcount), recvtype, source, recvtag,
                        comm, status);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt,
                           int dest, int sendtag, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Sendrecv_replace_c(buf, count, dt, dest, sendtag, source,
                                       recvtag, nm_xl(comm), status);
    BIG(comm, count, "MPI_Sendrecv_replace_c");
    return MPI_Sendrecv_replace(buf, cnt(count), dt, dest, sendtag, source,
                                recvtag, comm, status);
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Request *request)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Isendrecv_c(sendbuf, sendcount, sendtype, dest, sendtag,
                                recvbuf, recvcount, recvtype, source, recvtag,
                                nm_xl(comm), request);
    BIG(comm, sendcount > recvcount ? sendcount : recvcount, "MPI_Isendrecv_c");
    return MPI_Isendrecv(sendbuf, cnt(sendcount), sendtype, dest, sendtag,
                         recvbuf, cnt(recvcount), recvtype, source, recvtag,
                         comm, request);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt,
                            int dest, int sendtag, int source, int recvtag,
                            MPI_Comm comm, MPI_Request *request)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Isendrecv_replace_c(buf, count, dt, dest, sendtag, source,
                                        recvtag, nm_xl(comm), request);
    BIG(comm, count, "MPI_Isendrecv_replace_c");
    return MPI_Isendrecv_replace(buf, cnt(count), dt, dest, sendtag, source,
                                 recvtag, comm, request);
}

/* Messages taken by MPI_Mprobe on a delegated communicator. */
int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt,
                MPI_Message *message, MPI_Status *status)
{
    if (!message || !nm_msg_ours(*message))
        return PMPI_Mrecv_c(buf, count, dt, message, status);
    BIG(MPI_COMM_WORLD, count, "MPI_Mrecv_c");
    return MPI_Mrecv(buf, cnt(count), dt, message, status);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt,
                 MPI_Message *message, MPI_Request *request)
{
    if (!message || !nm_msg_ours(*message))
        return PMPI_Imrecv_c(buf, count, dt, message, request);
    BIG(MPI_COMM_WORLD, count, "MPI_Imrecv_c");
    return MPI_Imrecv(buf, cnt(count), dt, message, request);
}
