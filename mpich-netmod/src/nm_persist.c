/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_persist.c: persistent and partitioned point-to-point requests on
 * delegated communicators, and the Wait/Test/Start/Cancel/Request_free
 * wrappers that serve them (and keep freed running delegated requests
 * alive).
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
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nm_internal.h"

enum { PK_SEND, PK_SSEND, PK_BSEND, PK_RSEND, PK_RECV, PK_PSEND, PK_PRECV };

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
    /* partitioned: the whole buffer is one message on the shadow record,
     * sent once every partition is ready; until then `inner` is a gate
     * (a generalized request that never completes by itself) */
    MPI_Comm shadow;
    int ptag; /* the message's tag there (part_init) */
    int parts, nready;
    unsigned char *ready;
    struct nm_pers *next; /* hash chain, or the list of freed active ones */
} nm_pers_t;

#define PT_BUCKETS 256
static nm_pers_t *bucket[PT_BUCKETS];
static nm_pers_t *zombies; /* freed while active: complete in the background */
static atomic_int pers_live; /* entries + zombies: 0 means pass through */
static MPI_Comm pcomm = MPI_COMM_NULL;
/* The table, the zombies and pcomm: any thread (recursive: sweep() runs
 * under callers that hold it).  An entry itself is used by the thread that
 * owns its request, as MPI requires. */
static pthread_mutex_t pt_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static unsigned hash(MPI_Request h)
{
    return ((unsigned)h * 2654435761u) >> 24;
}

static nm_pers_t *pfind(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    pthread_mutex_lock(&pt_lock);
    nm_pers_t *e = bucket[hash(h)];
    while (e && e->handle != h)
        e = e->next;
    pthread_mutex_unlock(&pt_lock);
    return e;
}

static void punlink(nm_pers_t *e)
{
    pthread_mutex_lock(&pt_lock);
    for (nm_pers_t **pp = &bucket[hash(e->handle)]; *pp; pp = &(*pp)->next)
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    pthread_mutex_unlock(&pt_lock);
}

static atomic_int zombie_hint; /* zombies != NULL, read without the lock */

static void zombie_add(nm_pers_t *e)
{
    pthread_mutex_lock(&pt_lock);
    e->next = zombies;
    zombies = e;
    atomic_store_explicit(&zombie_hint, 1, memory_order_relaxed);
    pthread_mutex_unlock(&pt_lock);
}

static void pdestroy(nm_pers_t *e)
{
    if (e->own_type)
        PMPI_Type_free(&e->dt);
    free(e->ready);
    free(e);
    pers_live--;
}

/* Freed active requests whose operation has ended go away. */
static void sweep(void)
{
    if (!atomic_load_explicit(&zombie_hint, memory_order_relaxed))
        return;
    pthread_mutex_lock(&pt_lock);
    MPI_Errhandler eh = nm_quiet_begin();
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
    atomic_store_explicit(&zombie_hint, zombies != NULL, memory_order_relaxed);
    nm_quiet_end(eh);
    pthread_mutex_unlock(&pt_lock);
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
    else if (!(any_ok && tag == MPI_ANY_TAG) && (tag < 0 || tag > nm_tag_ub()))
        rc = MPI_ERR_TAG;
    else if (dt == MPI_DATATYPE_NULL)
        rc = MPI_ERR_TYPE;
    else if (!req)
        rc = MPI_ERR_REQUEST;
    if (rc != MPI_SUCCESS)
        return nm_error(comm, rc);
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
    pthread_mutex_lock(&pt_lock);
    if (pcomm == MPI_COMM_NULL)
        rc = PMPI_Comm_dup(MPI_COMM_SELF, &pcomm);
    pthread_mutex_unlock(&pt_lock);
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
    pthread_mutex_lock(&pt_lock);
    e->next = bucket[b];
    bucket[b] = e;
    pthread_mutex_unlock(&pt_lock);
    pers_live++;
    *req = e->handle;
    return MPI_SUCCESS;
}

static int gate_query(void *extra, MPI_Status *st)
{
    (void)extra;
    if (st != MPI_STATUS_IGNORE) {
        PMPI_Status_set_elements_x(st, MPI_BYTE, 0);
        PMPI_Status_set_cancelled(st, 0);
    }
    return MPI_SUCCESS;
}

static int gate_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int gate_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
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
    case PK_PSEND:
        e->nready = 0;
        memset(e->ready, 0, (size_t)e->parts);
        rc = MPI_Grequest_start(gate_query, gate_free, gate_cancel, NULL,
                                &e->inner);
        break;
    case PK_PRECV:
        rc = MPI_Irecv(e->buf, e->count * e->parts, e->dt, e->peer, e->ptag,
                       e->shadow, &e->inner);
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

/* ---------------- partitioned ---------------- */

/* MPI pairs partitioned requests at initialization: the n-th
 * MPI_Psend_init to (comm, dest, tag) with the n-th MPI_Precv_init from
 * (comm, source, tag), whatever order they are started and completed in.
 * Each side numbers its inits per (context, peer, tag), and the message
 * carries n in its tag on the shadow record, above the user's tag: n modulo
 * INT_MAX / (MPI_TAG_UB + 1) (7 with MPICH's tag bound of 2^28 - 1; 1, no
 * separation, where the tag bound is INT_MAX). */
typedef struct pnum {
    uint32_t ctx;
    int kind, peer, tag;
    unsigned next;
    struct pnum *link;
} pnum_t;
static pnum_t *pnums; /* under pt_lock */

static int part_tag(const nm_comm_t *c, int kind, int peer, int tag)
{
    pthread_mutex_lock(&pt_lock);
    pnum_t *p = pnums;
    while (p && !(p->ctx == c->ctx && p->kind == kind && p->peer == peer &&
                  p->tag == tag))
        p = p->link;
    if (!p && (p = calloc(1, sizeof *p)) != NULL) {
        *p = (pnum_t){.ctx = c->ctx, .kind = kind, .peer = peer, .tag = tag};
        p->link = pnums;
        pnums = p;
    }
    unsigned n = p ? p->next++ : 0;
    pthread_mutex_unlock(&pt_lock);
    unsigned span = (unsigned)nm_tag_ub() + 1u;
    unsigned slots = (unsigned)INT_MAX / span;
    return tag + (int)((n % slots) * span);
}

static int part_init(int kind, const void *buf, int parts, MPI_Count count,
                     MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
                     MPI_Request *req)
{
    if (parts < 1 || count < 0)
        return nm_error(comm, parts < 1 ? MPI_ERR_ARG : MPI_ERR_COUNT);
    if (count * parts > INT_MAX)
        return nm_refuse(comm, kind == PK_PSEND
                                   ? "MPI_Psend_init of more than INT_MAX "
                                     "elements"
                                   : "MPI_Precv_init of more than INT_MAX "
                                     "elements");
    MPI_Comm sh = nm_comm_shadow(comm);
    unsigned char *ready = calloc((size_t)parts, 1);
    if (sh == MPI_COMM_NULL || !ready) {
        free(ready);
        return nm_error(comm, MPI_ERR_NO_MEM);
    }
    int rc = pers_init(kind, buf, (int)count, dt, peer, tag, comm, req);
    if (rc != MPI_SUCCESS) {
        free(ready);
        return rc;
    }
    nm_pers_t *e = pfind(*req);
    e->shadow = sh;
    e->ptag = part_tag(nm_comm_find(comm), kind, peer, tag);
    e->parts = parts;
    e->ready = ready;
    return MPI_SUCCESS;
}

int MPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                   MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Info info, MPI_Request *req)
{
    if (!DELEG(comm, dest))
        return PMPI_Psend_init(buf, partitions, count, dt, dest, tag,
                               nm_xl(comm), info, req);
    return part_init(PK_PSEND, buf, partitions, count, dt, dest, tag, comm,
                     req);
}

int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype dt,
                   int source, int tag, MPI_Comm comm, MPI_Info info,
                   MPI_Request *req)
{
    if (!DELEG(comm, source))
        return PMPI_Precv_init(buf, partitions, count, dt, source, tag,
                               nm_xl(comm), info, req);
    return part_init(PK_PRECV, buf, partitions, count, dt, source, tag, comm,
                     req);
}

/* One partition is ready; with the last one the message goes. */
static int part_ready(nm_pers_t *e, int part)
{
    if (e->kind != PK_PSEND || !e->active)
        return nm_error(e->comm, MPI_ERR_REQUEST);
    if (part < 0 || part >= e->parts || e->ready[part])
        return nm_error(e->comm, MPI_ERR_ARG);
    e->ready[part] = 1;
    if (++e->nready < e->parts)
        return MPI_SUCCESS;
    MPI_Request send;
    int rc = MPI_Isend(e->buf, e->count * e->parts, e->dt, e->peer, e->ptag,
                       e->shadow, &send);
    if (rc != MPI_SUCCESS)
        return rc;
    PMPI_Grequest_complete(e->inner);
    PMPI_Request_free(&e->inner);
    e->inner = send;
    return MPI_SUCCESS;
}

int MPI_Pready(int partition, MPI_Request req)
{
    nm_pers_t *e;
    if (!pers_live || !(e = pfind(req)))
        return PMPI_Pready(partition, req);
    return part_ready(e, partition);
}

int MPI_Pready_range(int lo, int hi, MPI_Request req)
{
    nm_pers_t *e;
    if (!pers_live || !(e = pfind(req)))
        return PMPI_Pready_range(lo, hi, req);
    int rc = MPI_SUCCESS;
    for (int p = lo; p <= hi && rc == MPI_SUCCESS; p++)
        rc = part_ready(e, p);
    return rc;
}

int MPI_Pready_list(int n, int parts[], MPI_Request req)
{
    nm_pers_t *e;
    if (!pers_live || !(e = pfind(req)))
        return PMPI_Pready_list(n, parts, req);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = part_ready(e, parts[i]);
    return rc;
}

/* A partition has arrived once the whole message has (conservative:
 * the message travels in one piece). */
int MPI_Parrived(MPI_Request req, int partition, int *flag)
{
    nm_pers_t *e;
    if (!pers_live || !(e = pfind(req)))
        return PMPI_Parrived(req, partition, flag);
    if (e->kind != PK_PRECV || partition < 0 || partition >= e->parts)
        return nm_error(e->comm, MPI_ERR_ARG);
    if (!e->active) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    return nm_greq_get_status(e->inner, flag, MPI_STATUS_IGNORE);
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

/* MPI: freeing an active request lets the operation complete.  A delegated
 * generalized request freed at once would drop memory the delegatee still
 * writes (staging buffers, the record of a small receive), so a running
 * one is kept, like a freed active persistent request, until a later call
 * sees it complete. */
int MPI_Request_free(MPI_Request *req)
{
    nm_pers_t *e = NULL;
    if (!req || *req == MPI_REQUEST_NULL)
        return PMPI_Request_free(req);
    if (pers_live)
        e = pfind(*req);
    if (!e) {
        if (!nm_greq_running(*req) && !nm_pair_running(*req))
            return PMPI_Request_free(req);
        e = calloc(1, sizeof *e);
        if (!e)
            return nm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
        e->inner = *req;
        e->dt = MPI_DATATYPE_NULL;
        pers_live++;
        zombie_add(e);
        *req = MPI_REQUEST_NULL;
        sweep();
        return MPI_SUCCESS;
    }
    punlink(e);
    PMPI_Request_free(&e->handle);
    *req = MPI_REQUEST_NULL;
    if (e->active) {
        zombie_add(e);
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
    nm_pair_progress(req);
    nm_coll_progress(); /* (no poll function runs here either) */
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
    if (!pers_live) {
        int rc = req ? nm_greq_wait(*req) : MPI_SUCCESS;
        return rc != MPI_SUCCESS ? rc : PMPI_Wait(req, st);
    }
    nm_pers_t *e;
    MPI_Request h, *in = one_in(req, &e, &h);
    int rc = in ? nm_greq_wait(*in) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Wait(in, st);
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
    while (pnums) {
        pnum_t *p = pnums;
        pnums = p->link;
        free(p);
    }
    MPI_Errhandler eh = nm_quiet_begin();
    while (zombies) {
        nm_pers_t *e = zombies;
        zombies = e->next;
        int flag = 0;
        PMPI_Test(&e->inner, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            /* a freed receive nobody sent to is cancelled; whatever still
             * runs then (an unmatched synchronous send: erroneous) is left
             * behind rather than waited for */
            PMPI_Cancel(&e->inner);
            PMPI_Test(&e->inner, &flag, MPI_STATUS_IGNORE);
        }
        pdestroy(e);
    }
    nm_quiet_end(eh);
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
