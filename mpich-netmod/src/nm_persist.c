/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_persist.c: persistent point-to-point requests, MPI_Isendrecv(_replace)
 * and the large-count (_c) point-to-point bindings on delegated
 * communicators.
 *
 * A persistent request on a delegated communicator is a table entry (the
 * arguments) keyed by the user's handle, which is a real MPICH persistent
 * request that MPICH accepts everywhere but never starts: a receive from
 * MPI_PROC_NULL on a private communicator.  MPI_Start creates the running
 * operation (a delegated generalized request, as MPI_Isend/MPI_Irecv do);
 * the Wait/Test wrappers hand MPICH the running request in place of the
 * user's handle (inactive entries: the never-started handle itself, which
 * MPICH treats as an inactive persistent request) and map the result back:
 * the handle stays, the entry becomes inactive.  Without table entries
 * every call goes straight to MPICH after one test of a counter.
 */
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "nm_internal.h"

enum { PK_SEND, PK_SSEND, PK_BSEND, PK_RSEND, PK_RECV };

typedef struct nm_pers {
    MPI_Request handle; /* the user's: never started by MPICH */
    MPI_Request inner;  /* running operation while active */
    int active;
    int kind;
    void *buf;
    int count;
    MPI_Datatype dt;
    int own_type; /* dt is our duplicate */
    int peer, tag;
    MPI_Comm comm;
    struct nm_pers *next; /* hash chain, or the list of freed active ones */
} nm_pers_t;

#define PT_BUCKETS 256
static nm_pers_t *bucket[PT_BUCKETS];
static nm_pers_t *zombies; /* freed while active: complete in the background */
static int pers_live;      /* entries + zombies: 0 means pass through */
static MPI_Comm pcomm = MPI_COMM_NULL;

static unsigned hash(MPI_Request h)
{
    return ((unsigned)h * 2654435761u) >> 24;
}

static nm_pers_t *pfind(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    for (nm_pers_t *e = bucket[hash(h)]; e; e = e->next)
        if (e->handle == h)
            return e;
    return NULL;
}

static void punlink(nm_pers_t *e)
{
    for (nm_pers_t **pp = &bucket[hash(e->handle)]; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            return;
        }
}

static void pdestroy(nm_pers_t *e)
{
    if (e->own_type)
        PMPI_Type_free(&e->dt);
    free(e);
    pers_live--;
}

/* Freed active requests whose operation has ended go away. */
static void sweep(void)
{
    for (nm_pers_t **pp = &zombies; *pp;) {
        nm_pers_t *e = *pp;
        int flag = 0;
        PMPI_Test(&e->inner, &flag, MPI_STATUS_IGNORE);
        if (flag || e->inner == MPI_REQUEST_NULL) {
            *pp = e->next;
            pdestroy(e);
        } else {
            pp = &e->next;
        }
    }
}

static int tag_ub(void)
{
    static int ub;
    if (!ub) {
        int *v, flag = 0;
        PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
        ub = flag ? *v : 32767;
    }
    return ub;
}

/* MPI_*_init on a delegated communicator: check the arguments as MPICH
 * does at init, keep them, hand out a never-started MPICH request. */
static int pers_init(int kind, const void *buf, int count, MPI_Datatype dt,
                     int peer, int tag, MPI_Comm comm, MPI_Request *req)
{
    nm_comm_t *c = nm_comm_find(comm);
    int any_ok = kind == PK_RECV, rc = MPI_SUCCESS;
    if (count < 0)
        rc = MPI_ERR_COUNT;
    else if (!(any_ok && peer == MPI_ANY_SOURCE) &&
             (peer < 0 || peer >= c->size))
        rc = MPI_ERR_RANK;
    else if (!(any_ok && tag == MPI_ANY_TAG) && (tag < 0 || tag > tag_ub()))
        rc = MPI_ERR_TAG;
    else if (dt == MPI_DATATYPE_NULL)
        rc = MPI_ERR_TYPE;
    else if (!req)
        rc = MPI_ERR_REQUEST;
    if (rc != MPI_SUCCESS)
        return nm_error(comm, rc);
    if (zombies)
        sweep();
    nm_pers_t *e = calloc(1, sizeof *e);
    if (!e)
        return nm_error(comm, MPI_ERR_NO_MEM);
    int ni, na, nd, comb;
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    e->dt = dt;
    if (comb != MPI_COMBINER_NAMED) {
        /* the application may free its type before the last start */
        if (PMPI_Type_dup(dt, &e->dt) != MPI_SUCCESS) {
            free(e);
            return nm_error(comm, MPI_ERR_TYPE);
        }
        e->own_type = 1;
    }
    if (pcomm == MPI_COMM_NULL)
        rc = PMPI_Comm_dup(MPI_COMM_SELF, &pcomm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, pcomm,
                            &e->handle);
    if (rc != MPI_SUCCESS) {
        if (e->own_type)
            PMPI_Type_free(&e->dt);
        free(e);
        return nm_error(comm, rc);
    }
    e->kind = kind;
    e->buf = (void *)(uintptr_t)buf;
    e->count = count;
    e->peer = peer;
    e->tag = tag;
    e->comm = comm;
    e->inner = MPI_REQUEST_NULL;
    unsigned b = hash(e->handle);
    e->next = bucket[b];
    bucket[b] = e;
    pers_live++;
    *req = e->handle;
    return MPI_SUCCESS;
}

static int pers_start(nm_pers_t *e)
{
    if (e->active) /* MPI: starting an active request is erroneous */
        return nm_error(e->comm, MPI_ERR_REQUEST);
    int rc;
    switch (e->kind) {
    case PK_SEND:
        rc = MPI_Isend(e->buf, e->count, e->dt, e->peer, e->tag, e->comm,
                       &e->inner);
        break;
    case PK_SSEND:
        rc = MPI_Issend(e->buf, e->count, e->dt, e->peer, e->tag, e->comm,
                        &e->inner);
        break;
    case PK_BSEND:
        rc = MPI_Ibsend(e->buf, e->count, e->dt, e->peer, e->tag, e->comm,
                        &e->inner);
        break;
    case PK_RSEND:
        rc = MPI_Irsend(e->buf, e->count, e->dt, e->peer, e->tag, e->comm,
                        &e->inner);
        break;
    default:
        rc = MPI_Irecv(e->buf, e->count, e->dt, e->peer, e->tag, e->comm,
                       &e->inner);
    }
    if (rc == MPI_SUCCESS)
        e->active = 1;
    return rc; /* errors went through the communicator's handler */
}

#define DELEG(comm, peer) (nm_comm_delegated(comm) && (peer) != MPI_PROC_NULL)

#define PERS_SEND_INIT(name, kind)                                             \
    int MPI_##name(const void *buf, int count, MPI_Datatype dt, int dest,      \
                   int tag, MPI_Comm comm, MPI_Request *req)                   \
    {                                                                          \
        if (!DELEG(comm, dest))                                                \
            return PMPI_##name(buf, count, dt, dest, tag, nm_xl(comm), req);   \
        return pers_init(kind, buf, count, dt, dest, tag, comm, req);          \
    }
PERS_SEND_INIT(Send_init, PK_SEND)
PERS_SEND_INIT(Ssend_init, PK_SSEND)
PERS_SEND_INIT(Bsend_init, PK_BSEND)
PERS_SEND_INIT(Rsend_init, PK_RSEND)

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag,
                  MPI_Comm comm, MPI_Request *req)
{
    if (!DELEG(comm, source))
        return PMPI_Recv_init(buf, count, dt, source, tag, nm_xl(comm), req);
    return pers_init(PK_RECV, buf, count, dt, source, tag, comm, req);
}

int MPI_Start(MPI_Request *req)
{
    nm_pers_t *e;
    if (!pers_live || !req || !(e = pfind(*req)))
        return PMPI_Start(req);
    return pers_start(e);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    int ours = 0;
    if (pers_live && reqs)
        for (int i = 0; i < n && !ours; i++)
            ours = pfind(reqs[i]) != NULL;
    if (!ours)
        return PMPI_Startall(n, reqs);
    for (int i = 0; i < n; i++) {
        nm_pers_t *e = pfind(reqs[i]);
        int rc = e ? pers_start(e) : PMPI_Start(&reqs[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *req)
{
    nm_pers_t *e;
    if (!pers_live || !req || !(e = pfind(*req)))
        return PMPI_Request_free(req);
    punlink(e);
    PMPI_Request_free(&e->handle);
    *req = MPI_REQUEST_NULL;
    if (e->active) {
        e->next = zombies;
        zombies = e;
        sweep();
    } else {
        pdestroy(e);
    }
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *req)
{
    nm_pers_t *e;
    if (!pers_live || !req || !(e = pfind(*req)) || !e->active)
        return PMPI_Cancel(req); /* inactive: MPICH's answer */
    return PMPI_Cancel(&e->inner);
}

int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    nm_pers_t *e;
    if (pers_live && (e = pfind(req)) != NULL && e->active)
        req = e->inner;
    return nm_greq_get_status(req, flag, st);
}

/* ---------------- Wait / Test ---------------- */

/* The array as MPICH gets it: running operations in place of active
 * persistent handles.  Returns the number of table handles, -1 without
 * memory. */
#define MAP_SMALL 32
typedef struct {
    MPI_Request *tmp;
    nm_pers_t **ent;
    MPI_Request stmp[MAP_SMALL];
    nm_pers_t *sent[MAP_SMALL];
} pmap_t;

static int map_in(int n, const MPI_Request r[], pmap_t *m)
{
    if (zombies)
        sweep();
    if (n <= 0 || !r)
        return 0;
    int k = 0;
    for (int i = 0; i < n && !k; i++)
        k = pfind(r[i]) != NULL;
    if (!k)
        return 0;
    m->tmp = m->stmp;
    m->ent = m->sent;
    if (n > MAP_SMALL) {
        m->tmp = malloc(sizeof *m->tmp * (size_t)n);
        m->ent = malloc(sizeof *m->ent * (size_t)n);
        if (!m->tmp || !m->ent) {
            free(m->tmp);
            free(m->ent);
            return -1;
        }
    }
    k = 0;
    for (int i = 0; i < n; i++) {
        nm_pers_t *e = pfind(r[i]);
        m->ent[i] = e;
        m->tmp[i] = e && e->active ? e->inner : r[i];
        k += e != NULL;
    }
    return k;
}

static void map_out(int n, MPI_Request r[], pmap_t *m)
{
    for (int i = 0; i < n; i++) {
        nm_pers_t *e = m->ent[i];
        if (!e) {
            r[i] = m->tmp[i];
        } else if (e->active) {
            e->inner = m->tmp[i];
            if (e->inner == MPI_REQUEST_NULL)
                e->active = 0; /* the handle stays, now inactive */
        }
    }
    if (m->tmp != m->stmp) {
        free(m->tmp);
        free(m->ent);
    }
}

/* One handle: the running operation or the inactive handle itself. */
static MPI_Request *one_in(MPI_Request *req, nm_pers_t **ep, MPI_Request *h)
{
    if (zombies)
        sweep();
    nm_pers_t *e = req ? pfind(*req) : NULL;
    *ep = e;
    if (!e)
        return req;
    if (e->active)
        return &e->inner;
    *h = e->handle; /* MPICH leaves an inactive request as it is */
    return h;
}

static void one_out(nm_pers_t *e)
{
    if (e && e->active && e->inner == MPI_REQUEST_NULL)
        e->active = 0;
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    if (!pers_live)
        return PMPI_Wait(req, st);
    nm_pers_t *e;
    MPI_Request h;
    int rc = PMPI_Wait(one_in(req, &e, &h), st);
    one_out(e);
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    if (!pers_live)
        return PMPI_Test(req, flag, st);
    nm_pers_t *e;
    MPI_Request h;
    int rc = PMPI_Test(one_in(req, &e, &h), flag, st);
    one_out(e);
    return rc;
}

#define MAPPED(n, r, call_direct, call_mapped)                                 \
    do {                                                                       \
        pmap_t m_;                                                             \
        int k_ = pers_live ? map_in(n, r, &m_) : 0;                            \
        if (k_ < 0)                                                            \
            return MPI_ERR_NO_MEM;                                             \
        if (k_ == 0)                                                           \
            return call_direct;                                                \
        MPI_Request *t_ = m_.tmp;                                              \
        int rc_ = call_mapped;                                                 \
        map_out(n, r, &m_);                                                    \
        return rc_;                                                            \
    } while (0)

int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[])
{
    MAPPED(n, r, PMPI_Waitall(n, r, st), PMPI_Waitall(n, t_, st));
}

int MPI_Testall(int n, MPI_Request r[], int *flag, MPI_Status st[])
{
    MAPPED(n, r, PMPI_Testall(n, r, flag, st), PMPI_Testall(n, t_, flag, st));
}

int MPI_Waitany(int n, MPI_Request r[], int *idx, MPI_Status *st)
{
    MAPPED(n, r, PMPI_Waitany(n, r, idx, st), PMPI_Waitany(n, t_, idx, st));
}

int MPI_Testany(int n, MPI_Request r[], int *idx, int *flag, MPI_Status *st)
{
    MAPPED(n, r, PMPI_Testany(n, r, idx, flag, st),
           PMPI_Testany(n, t_, idx, flag, st));
}

int MPI_Waitsome(int n, MPI_Request r[], int *outcount, int idx[],
                 MPI_Status st[])
{
    MAPPED(n, r, PMPI_Waitsome(n, r, outcount, idx, st),
           PMPI_Waitsome(n, t_, outcount, idx, st));
}

int MPI_Testsome(int n, MPI_Request r[], int *outcount, int idx[],
                 MPI_Status st[])
{
    MAPPED(n, r, PMPI_Testsome(n, r, outcount, idx, st),
           PMPI_Testsome(n, t_, outcount, idx, st));
}

/* MPI_Finalize: freed requests still running finish first; the rest of
 * the table goes (active requests at MPI_Finalize are erroneous). */
void nm_pers_finalize(void)
{
    while (zombies) {
        nm_pers_t *e = zombies;
        zombies = e->next;
        PMPI_Wait(&e->inner, MPI_STATUS_IGNORE);
        pdestroy(e);
    }
    for (int b = 0; b < PT_BUCKETS; b++)
        while (bucket[b]) {
            nm_pers_t *e = bucket[b];
            bucket[b] = e->next;
            PMPI_Request_free(&e->handle);
            pdestroy(e);
        }
    if (pcomm != MPI_COMM_NULL)
        PMPI_Comm_free(&pcomm);
}

/* ---------------- MPI_Isendrecv(_replace) ---------------- */

/* A generalized request over the receive and the send (each a delegated
 * request, or MPICH's for MPI_PROC_NULL); _replace receives into a staging
 * buffer copied into place once the send has left the user's buffer. */
typedef struct {
    MPI_Request rq[2]; /* receive, send */
    MPI_Request greq;
    MPI_Status rst; /* of the receive */
    int err, done;
    void *stage; /* _replace: the received bytes */
    void *ubuf;
    int ucount, usize, own_type;
    MPI_Datatype udt;
} nm_pair_t;

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
    if (!p->done && p->rq[0] == MPI_REQUEST_NULL &&
        p->rq[1] == MPI_REQUEST_NULL)
        pair_end(p);
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
    int size = 0, ni, na, nd, comb;
    if (count < 0)
        return nm_error(comm, MPI_ERR_COUNT);
    if (dt == MPI_DATATYPE_NULL || PMPI_Type_size(dt, &size) != MPI_SUCCESS)
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
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    MPI_Aint lb, ext;
    PMPI_Type_get_extent(dt, &lb, &ext);
    if (comb != MPI_COMBINER_NAMED || lb != 0 || ext != size) {
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
