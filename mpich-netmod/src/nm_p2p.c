/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_p2p.c: point-to-point calls.  On a delegated communicator (members on
 * more than one board) every send, receive and probe goes to the board's
 * delegatee, whose matching engine sees on- and off-board senders alike;
 * on any other communicator, and for MPI_PROC_NULL, the call goes straight
 * to MPICH.  Nonblocking delegated operations are MPICH generalized
 * requests (MPIX_Grequest_start with poll and wait functions), so they mix
 * with MPICH's own requests in every Wait/Test call.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nm_internal.h"
#include "nm_p2p.h"

/* The table of request handles: any thread. */
static pthread_mutex_t tab_lock = PTHREAD_MUTEX_INITIALIZER;

/* Largest tag on c: a shadow record's tags are the shim's own */
int nm_tag_max(const nm_comm_t *c)
{
    return c && (c->ctx & NM_CTX_PART) ? INT_MAX : nm_tag_ub();
}

int nm_tag_ub(void)
{
    static atomic_int ub;
    int u = atomic_load_explicit(&ub, memory_order_relaxed);
    if (!u) {
        int *v, flag = 0;
        PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
        u = flag ? *v : 32767;
        atomic_store_explicit(&ub, u, memory_order_relaxed);
    }
    return u;
}

/* Predefined types without holes are sent from the user's buffer as they
 * are; everything else is packed (typemap order) first. */
static _Atomic uint64_t dt_known[64]; /* named types: handle, size, layout */

int nm_dt_info(MPI_Datatype dt, int *size, int *contig)
{
    int ni, na, nd, comb;
    MPI_Aint lb, ext;
    if (dt == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    /* a named type never goes away: three MPI calls once, a table look
     * on every later message */
    unsigned h = ((uint32_t)dt * 2654435761u) >> 26;
    uint64_t e = atomic_load_explicit(&dt_known[h], memory_order_relaxed);
    if (e && (uint32_t)e == (uint32_t)dt) {
        *size = (int)(e >> 33);
        *contig = (int)(e >> 32) & 1;
        return MPI_SUCCESS;
    }
    if (PMPI_Type_size(dt, size) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb);
    PMPI_Type_get_extent(dt, &lb, &ext);
    *contig = comb == MPI_COMBINER_NAMED && lb == 0 && ext == *size;
    if (comb == MPI_COMBINER_NAMED && *size >= 0)
        atomic_store_explicit(&dt_known[h],
                              (uint64_t)*size << 33 |
                                  (uint64_t)(*contig != 0) << 32 | (uint32_t)dt,
                              memory_order_relaxed);
    return MPI_SUCCESS;
}

/* MPICH's MPI_Pack/MPI_Unpack refuse MPI_BOTTOM; a message to ourselves on
 * a private communicator packs and unpacks any buffer. */
static MPI_Comm self_comm = MPI_COMM_NULL;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void self_make(void)
{
    PMPI_Comm_dup(MPI_COMM_SELF, &self_comm);
}

MPI_Comm nm_self_comm(void)
{
    pthread_once(&self_once, self_make);
    return self_comm;
}

static int pack_any(const void *buf, int count, MPI_Datatype dt, void *out,
                    int outsize, int *pos)
{
    if (buf)
        return PMPI_Pack(buf, count, dt, out, outsize, pos, MPI_COMM_SELF);
    MPI_Status st;
    int rc = PMPI_Sendrecv(buf, count, dt, 0, 0, out, outsize, MPI_PACKED, 0, 0,
                           nm_self_comm(), &st);
    if (rc == MPI_SUCCESS)
        PMPI_Get_count(&st, MPI_PACKED, pos);
    return rc;
}

static int unpack_any(const void *in, int n, void *buf, int count,
                      MPI_Datatype dt)
{
    int pos = 0;
    if (buf)
        return PMPI_Unpack(in, n, &pos, buf, count, dt, MPI_COMM_SELF);
    return PMPI_Sendrecv(in, n, MPI_PACKED, 0, 0, buf, count, dt, 0, 0,
                         nm_self_comm(), MPI_STATUS_IGNORE);
}

void nm_op_free(nm_op_t *op)
{
    if (!op)
        return;
    nm_bs_release(op);
    if (op->rec && (op->finished || dlg_flag_done(&op->rec->fl)))
        nm_rec_put(op->rec);
    /* else: the delegatee may still write the record: leave it alone. */
    if (op->own_type)
        PMPI_Type_free(&op->udt);
    free(op->tmp);
    if (!op->on_stack)
        free(op);
}

/* NM_F_SPIN for the record of a blocking call (its operation on the
 * caller's stack) waited for with the poll policy: the delegatee then
 * completes it without a fence (nobody sleeps on it). */
static uint32_t spin_flag(const nm_op_t *op)
{
    return op->on_stack && nm_policy_blocking == DLG_POLICY_POLL ? NM_F_SPIN
                                                                 : 0;
}

/* *out: NULL, or a zeroed operation of the caller (on its stack, for a
 * blocking call that ends before returning). */
static int op_new(nm_comm_t *c, void *buf, int count, MPI_Datatype dt,
                  nm_op_t **out)
{
    int usize, contig;
    if (dt == MPI_DATATYPE_NULL && count == 0)
        dt = MPI_BYTE; /* no data: MPICH accepts the null type too */
    int rc = nm_dt_info(dt, &usize, &contig);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return MPI_ERR_COUNT;
    /* MPI_BOTTOM is a valid base for derived types with absolute
     * addresses; for predefined ones it is the null buffer MPICH refuses. */
    if (!buf && count > 0 && usize > 0 && contig)
        return MPI_ERR_BUFFER;
    nm_op_t *op = *out;
    if (!op && !(op = calloc(1, sizeof *op)))
        return MPI_ERR_NO_MEM;
    op->on_stack = *out != NULL;
    if (!(op->rec = nm_rec_get())) {
        if (!op->on_stack)
            free(op);
        return MPI_ERR_NO_MEM;
    }
    op->usize = usize;
    op->contig = contig;
    op->c = c;
    op->ubuf = buf;
    op->ucount = count;
    op->udt = dt;
    *out = op;
    return MPI_SUCCESS;
}

enum { NM_SEND_STD = 0, NM_SEND_SYNC = 1, NM_SEND_BUFFERED = 2 };

static int send_start(const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, nm_comm_t *c, int mode, nm_op_t **out)
{
    if (tag < 0 || tag > nm_tag_max(c))
        return MPI_ERR_TAG;
    if (dest < 0 || dest >= c->size)
        return MPI_ERR_RANK;
    nm_op_t *op = *out;
    int rc = op_new(c, (void *)(uintptr_t)buf, count, dt, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    nm_rec_t *r = op->rec;
    const void *src = buf;
    size_t len = (size_t)count * (size_t)op->usize;
    if (!op->contig && len) {
        int psz = 0, pos = 0;
        PMPI_Pack_size(count, dt, MPI_COMM_SELF, &psz);
        op->tmp = malloc((size_t)psz + 1);
        if (!op->tmp) {
            nm_op_free(op);
            return MPI_ERR_NO_MEM;
        }
        rc = pack_any(buf, count, dt, op->tmp, psz, &pos);
        if (rc != MPI_SUCCESS) {
            nm_op_free(op);
            return MPI_ERR_TYPE;
        }
        src = op->tmp;
        len = (size_t)pos;
    }
    if (mode == NM_SEND_BUFFERED &&
        (rc = nm_bs_reserve(op, len)) != MPI_SUCCESS) {
        nm_op_free(op);
        return rc;
    }
    r->ctx = c->ctx;
    r->peer = c->world[dest];
    r->tag = tag;
    r->len = len;
    r->flags = mode == NM_SEND_SYNC       ? NM_F_SYNC
               : mode == NM_SEND_BUFFERED ? NM_F_LOCAL
                                          : 0;
    if (len <= NM_INLINE) {
        if (len)
            memcpy(r->inl, src, len);
        r->flags |= NM_F_INLINE;
    } else {
        r->addr = (uint64_t)(uintptr_t)src;
    }
    r->flags |= spin_flag(op);
    rc = nm_post_async(NM_OP_SEND, r);
    if (rc != MPI_SUCCESS) {
        nm_op_free(op);
        return rc;
    }
    *out = op;
    return MPI_SUCCESS;
}

/* msgid != 0: receive the message taken by MPI_Mprobe (MRECV). */
int nm_recv_start(void *buf, int count, MPI_Datatype dt, int source, int tag,
                  nm_comm_t *c, uint64_t msgid, int staged, nm_op_t **out)
{
    if (!msgid) {
        if (tag != MPI_ANY_TAG && (tag < 0 || tag > nm_tag_max(c)))
            return MPI_ERR_TAG;
        if (source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
            return MPI_ERR_RANK;
    }
    nm_op_t *op = *out;
    int rc = op_new(c, buf, count, dt, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    op->is_recv = 1;
    if (!op->contig) {
        /* The application may free the type before the receive ends. */
        if (PMPI_Type_dup(dt, &op->udt) != MPI_SUCCESS) {
            op->udt = MPI_DATATYPE_NULL;
            nm_op_free(op);
            return MPI_ERR_TYPE;
        }
        op->own_type = 1;
    }
    nm_rec_t *r = op->rec;
    size_t cap = (size_t)count * (size_t)op->usize;
    void *dst = buf;
    if ((!op->contig || staged) && cap > NM_INLINE) {
        op->tmp = malloc(cap);
        if (!op->tmp) {
            nm_op_free(op);
            return MPI_ERR_NO_MEM;
        }
        dst = op->tmp;
    }
    r->ctx = c->ctx;
    r->peer = source == MPI_ANY_SOURCE ? -1 : c->world[source];
    r->tag = tag == MPI_ANY_TAG ? -1 : tag;
    r->len = cap;
    r->arg = msgid;
    if (cap <= NM_INLINE)
        r->flags = NM_F_INLINE;
    else
        r->addr = (uint64_t)(uintptr_t)dst;
    r->flags |= spin_flag(op);
    rc = msgid ? nm_post(NM_OP_MRECV, r) : nm_post_async(NM_OP_RECV, r);
    if (rc != MPI_SUCCESS) {
        nm_op_free(op);
        return rc;
    }
    *out = op;
    return MPI_SUCCESS;
}

/* The record is done: move data into place and take the outcome. */
static void op_finish(nm_op_t *op)
{
    if (op->finished)
        return;
    nm_bs_release(op);
    nm_rec_t *r = op->rec;
    if (atomic_load_explicit(&r->pull, memory_order_acquire) != NM_PULL_NONE)
        nm_rec_pull(r);
    op->err = r->err;
    op->cancelled = r->cancelled;
    op->count = (MPI_Count)r->st_count;
    op->src = op->c ? nm_comm_rank_of_world(op->c, r->st_src) : r->st_src;
    op->tag = r->st_tag;
    if (op->is_recv && !op->cancelled && op->count > 0) {
        const char *from = (r->flags & NM_F_INLINE) ? r->inl : op->tmp;
        size_t n = (size_t)op->count;
        if (!from) {
            /* delivered in place by the delegatee */
        } else if (op->contig) {
            memcpy(op->ubuf, from, n);
        } else if (op->usize > 0) {
            int whole = (int)(n / (size_t)op->usize);
            if (n % (size_t)op->usize == 0) {
                unpack_any(from, (int)n, op->ubuf, whole, op->udt);
            } else {
                /* a message that ends inside an element (MPI allows it: the
                 * receive gets its basic elements, MPI_Get_elements counts
                 * them): MPICH unpacks the part through a self message */
                PMPI_Sendrecv(from, (int)n, MPI_PACKED, 0, 0, op->ubuf,
                              whole + 1, op->udt, 0, 0, nm_self_comm(),
                              MPI_STATUS_IGNORE);
            }
        }
    }
    op->finished = 1;
    nm_rec_put(r);
    op->rec = NULL;
}

void nm_op_status(const nm_op_t *op, MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    if (op->is_recv) {
        st->MPI_SOURCE = op->src;
        /* a shadow record's tag carries a pairing number above the user's */
        st->MPI_TAG = op->c && (op->c->ctx & NM_CTX_PART) && op->tag >= 0
                          ? op->tag % (nm_tag_ub() + 1)
                          : op->tag;
    }
    PMPI_Status_set_elements_x(st, MPI_BYTE, op->is_recv ? op->count : 0);
    PMPI_Status_set_cancelled(st, op->cancelled);
}

int nm_op_wait(nm_op_t *op, dlg_policy_t pol)
{
    int rc = nm_rec_wait(op->rec, pol, 63);
    if (rc != MPI_SUCCESS)
        return rc;
    op_finish(op);
    return MPI_SUCCESS;
}

/* ---------------- generalized-request callbacks ---------------- */

static int g_query(void *extra, MPI_Status *st)
{
    nm_op_t *op = extra;
    nm_op_status(op, st);
    return op->err;
}

static void rq_del(nm_op_t *op);

static int g_free(void *extra)
{
    rq_del(extra);
    nm_op_free(extra);
    return MPI_SUCCESS;
}

/* MPICH's MPI_Wait on a generalized request with a poll function calls
 * only that function until the request completes, without running its
 * progress engine: the poll function runs it (MPI's progress rule), every
 * 4th call as g_wait does. */
static int g_poll(void *extra, MPI_Status *st)
{
    (void)st;
    static _Thread_local unsigned polls;
    nm_op_t *op = extra;
    if (op->finished)
        return MPI_SUCCESS;
    nm_coll_progress(); /* nonblocking collectives move meanwhile */
    if (!dlg_flag_done(&op->rec->fl)) {
        if ((polls++ & 3) == 0)
            nm_mpi_progress();
        /* yield now and then: the delegatee's thread (PiP form) or a
         * delegatee process moving our transfer may need this core */
        nm_poll_round(polls, 8);
    }
    if (dlg_flag_done(&op->rec->fl)) {
        op_finish(op);
        PMPI_Grequest_complete(op->greq);
    }
    return MPI_SUCCESS;
}

/* Wait for delegated requests with the nonblocking policy, running
 * MPICH's own progress every (mpi_mask + 1)-th round. */
static int wait_ops(int count, void **states, unsigned mpi_mask)
{
    for (int i = 0; i < count; i++) {
        nm_op_t *op = states[i];
        if (op->finished)
            continue;
        int rc = nm_rec_wait(op->rec, nm_policy_nonblocking, mpi_mask);
        if (rc != MPI_SUCCESS)
            return rc;
        op_finish(op);
        PMPI_Grequest_complete(op->greq);
    }
    return MPI_SUCCESS;
}

/* MPICH's wait function of our requests (MPI_Waitall and the like): the
 * array may hold MPICH's own requests too, so its progress runs often */
static int g_wait(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    return wait_ops(count, states, 3);
}

/* Delegated requests by handle, for MPI_Wait (which would otherwise run
 * only their poll function) and MPI_Request_get_status (which does not run
 * it): open addressing; a removed entry stays as a tombstone (`used`, no
 * op) so that lookups stop at the first never-used slot, and the table is
 * rebuilt once a quarter of it is tombstones: a lookup of a handle that is
 * not ours (an MPICH request) costs a few probes, not a sweep. */
#define NM_RQ_MAX 4096
static struct {
    MPI_Request h;
    nm_op_t *op;
    int used;
} rq_tab[NM_RQ_MAX];
static unsigned rq_dead;

static void rq_put(MPI_Request h, nm_op_t *op)
{
    unsigned i = (unsigned)h % NM_RQ_MAX;
    for (unsigned n = 0; n < NM_RQ_MAX; n++, i = (i + 1) % NM_RQ_MAX)
        if (!rq_tab[i].op) {
            rq_dead -= rq_tab[i].used;
            rq_tab[i].h = h;
            rq_tab[i].op = op;
            rq_tab[i].used = 1;
            return;
        }
    /* full: MPI_Wait falls back to MPICH's poll of the request */
}

static void rq_add(MPI_Request h, nm_op_t *op)
{
    pthread_mutex_lock(&tab_lock);
    rq_put(h, op);
    pthread_mutex_unlock(&tab_lock);
}

static unsigned rq_slot(MPI_Request h, const nm_op_t *op)
{
    unsigned i = (unsigned)h % NM_RQ_MAX;
    for (unsigned n = 0; n < NM_RQ_MAX && rq_tab[i].used;
         n++, i = (i + 1) % NM_RQ_MAX)
        if (rq_tab[i].op && rq_tab[i].h == h && (!op || rq_tab[i].op == op))
            return i;
    return NM_RQ_MAX;
}

static void rq_del(nm_op_t *op)
{
    pthread_mutex_lock(&tab_lock);
    unsigned i = rq_slot(op->greq, op);
    if (i < NM_RQ_MAX) {
        rq_tab[i].op = NULL;
        if (++rq_dead > NM_RQ_MAX / 4) {
            /* rebuild: the live entries again, without tombstones */
            static struct {
                MPI_Request h;
                nm_op_t *op;
            } live[NM_RQ_MAX];
            unsigned k = 0;
            for (unsigned j = 0; j < NM_RQ_MAX; j++)
                if (rq_tab[j].op) {
                    live[k].h = rq_tab[j].h;
                    live[k++].op = rq_tab[j].op;
                }
            memset(rq_tab, 0, sizeof rq_tab);
            rq_dead = 0;
            for (unsigned j = 0; j < k; j++)
                rq_put(live[j].h, live[j].op);
        }
    }
    pthread_mutex_unlock(&tab_lock);
}

static nm_op_t *rq_find(MPI_Request h)
{
    pthread_mutex_lock(&tab_lock);
    unsigned i = rq_slot(h, NULL);
    nm_op_t *op = i < NM_RQ_MAX ? rq_tab[i].op : NULL;
    pthread_mutex_unlock(&tab_lock);
    return op;
}

/* MPI_Wait on a delegated request: our wait with the nonblocking policy
 * (MPICH's own MPI_Wait would spin on the poll function); the request is
 * then complete for PMPI_Wait. */
int nm_greq_wait(MPI_Request h)
{
    nm_op_t *op = h != MPI_REQUEST_NULL ? rq_find(h) : NULL;
    return op ? wait_ops(1, (void **)&op, 63) : MPI_SUCCESS;
}

/* A delegated request the delegatee may still write to (MPI_Request_free
 * in nm_persist.c keeps it until it completes). */
int nm_greq_running(MPI_Request h)
{
    nm_op_t *op = h != MPI_REQUEST_NULL ? rq_find(h) : NULL;
    return op && !op->finished;
}

/* MPI_Request_get_status (nm_persist.c) after mapping persistent handles. */
int nm_greq_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    nm_op_t *op = request != MPI_REQUEST_NULL ? rq_find(request) : NULL;
    if (op && !op->finished && dlg_flag_done(&op->rec->fl)) {
        op_finish(op);
        PMPI_Grequest_complete(op->greq);
    }
    return PMPI_Request_get_status(request, flag, status);
}

static int g_cancel(void *extra, int complete)
{
    nm_op_t *op = extra;
    if (complete || !op->is_recv || op->finished)
        return MPI_SUCCESS;
    nm_rec_t *r = nm_rec_get();
    if (!r)
        return MPI_ERR_NO_MEM;
    r->arg = nm_rec_off(op->rec);
    int rc = nm_post(NM_OP_CANCEL, r);
    int cancelled = r->found;
    nm_rec_put(r);
    if (rc == MPI_SUCCESS && cancelled) {
        op_finish(op);
        PMPI_Grequest_complete(op->greq);
    }
    return rc;
}

int nm_op_to_greq(nm_op_t *op, MPI_Request *req)
{
    int rc =
        MPIX_Grequest_start(g_query, g_free, g_cancel, g_poll, g_wait, op, req);
    if (rc != MPI_SUCCESS) {
        nm_op_free(op);
        return rc;
    }
    op->greq = *req;
    rq_add(*req, op);
    return MPI_SUCCESS;
}

/* ---------------- sends ---------------- */

/* A short standard send of a contiguous type in one call (PiP form:
 * nm_send_short); 1: the usual way, which also reports any error. */
static int send_short(const void *buf, int count, MPI_Datatype dt, int dest,
                      int tag, nm_comm_t *c)
{
    int usize, contig;
    if (!nm_short_direct || count < 0 || tag < 0 || tag > nm_tag_max(c) ||
        dest < 0 || dest >= c->size ||
        nm_dt_info(dt, &usize, &contig) != MPI_SUCCESS || !contig)
        return 1;
    size_t len = (size_t)count * (size_t)usize;
    if (len > NM_INLINE || (len && !buf))
        return 1;
    return nm_send_short(buf, len, c->ctx, c->world[dest], tag);
}

static int send_blocking(const void *buf, int count, MPI_Datatype dt, int dest,
                         int tag, nm_comm_t *c, MPI_Comm comm, int mode)
{
    if (mode == NM_SEND_STD && send_short(buf, count, dt, dest, tag, c) == 0)
        return MPI_SUCCESS;
    nm_op_t st = {0}, *op = &st;
    int rc = nm_send_deferred_err();
    if (rc == MPI_SUCCESS)
        rc = send_start(buf, count, dt, dest, tag, c, mode, &op);
    if (rc == MPI_SUCCESS && mode == NM_SEND_STD && !op->tmp &&
        nm_send_defer(op->rec)) {
        op->rec = NULL; /* in flight: nm_client.c reclaims it */
        nm_op_free(op);
    } else if (rc == MPI_SUCCESS) {
        rc = nm_op_wait(op, nm_policy_blocking);
        if (rc == MPI_SUCCESS)
            rc = op->err;
        nm_op_free(op);
    }
    return nm_error(comm, rc);
}

static int send_nonblocking(const void *buf, int count, MPI_Datatype dt,
                            int dest, int tag, nm_comm_t *c, MPI_Comm comm,
                            int mode, MPI_Request *req)
{
    /* PiP form: a short send our delegatee's code sent at once is done,
     * as MPICH's eager sends are: MPICH's completed request (no record) */
    if (mode == NM_SEND_STD && send_short(buf, count, dt, dest, tag, c) == 0)
        return nm_error(comm, PMPI_Isend(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0,
                                         MPI_COMM_SELF, req));
    nm_op_t *op = NULL;
    int rc = send_start(buf, count, dt, dest, tag, c, mode, &op);
    if (rc == MPI_SUCCESS)
        rc = nm_op_to_greq(op, req);
    return nm_error(comm, rc);
}

/* the communicator's record when the call to peer is delegated, else NULL
 * (one lookup for the test and the call) */
nm_comm_t *nm_deleg_comm(MPI_Comm comm, int peer)
{
    if (peer == MPI_PROC_NULL)
        return NULL;
    nm_comm_t *c = nm_comm_find(comm);
    return c && c->delegated ? c : NULL;
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
             MPI_Comm comm)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Send(buf, count, dt, dest, tag, nm_xl(comm));
    return send_blocking(buf, count, dt, dest, tag, c, comm, 0);
}

/* Ready and buffered sends complete once the delegatee holds the data, as
 * a standard send does; the attached buffer is not used. */
int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
              MPI_Comm comm)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Rsend(buf, count, dt, dest, tag, nm_xl(comm));
    return send_blocking(buf, count, dt, dest, tag, c, comm, 0);
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
              MPI_Comm comm)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Bsend(buf, count, dt, dest, tag, nm_xl(comm));
    return send_blocking(buf, count, dt, dest, tag, c, comm, NM_SEND_BUFFERED);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
              MPI_Comm comm)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Ssend(buf, count, dt, dest, tag, nm_xl(comm));
    return send_blocking(buf, count, dt, dest, tag, c, comm, NM_SEND_SYNC);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
              MPI_Comm comm, MPI_Request *req)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Isend(buf, count, dt, dest, tag, nm_xl(comm), req);
    return send_nonblocking(buf, count, dt, dest, tag, c, comm, 0, req);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, MPI_Request *req)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Irsend(buf, count, dt, dest, tag, nm_xl(comm), req);
    return send_nonblocking(buf, count, dt, dest, tag, c, comm, 0, req);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, MPI_Request *req)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Ibsend(buf, count, dt, dest, tag, nm_xl(comm), req);
    return send_nonblocking(buf, count, dt, dest, tag, c, comm,
                            NM_SEND_BUFFERED, req);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
               MPI_Comm comm, MPI_Request *req)
{
    nm_comm_t *c = nm_deleg_comm(comm, dest);
    if (!c)
        return PMPI_Issend(buf, count, dt, dest, tag, nm_xl(comm), req);
    return send_nonblocking(buf, count, dt, dest, tag, c, comm, NM_SEND_SYNC,
                            req);
}

/* ---------------- receives ---------------- */

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
             MPI_Comm comm, MPI_Status *status)
{
    nm_comm_t *c = nm_deleg_comm(comm, source);
    if (!c)
        return PMPI_Recv(buf, count, dt, source, tag, nm_xl(comm), status);
    nm_op_t st = {0}, *op = &st;
    int rc = nm_recv_start(buf, count, dt, source, tag, c, 0, 0, &op);
    if (rc == MPI_SUCCESS) {
        rc = nm_op_wait(op, nm_policy_blocking);
        if (rc == MPI_SUCCESS) {
            nm_op_status(op, status);
            rc = op->err;
        }
        nm_op_free(op);
    }
    return nm_error(comm, rc);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
              MPI_Comm comm, MPI_Request *req)
{
    nm_comm_t *c = nm_deleg_comm(comm, source);
    if (!c)
        return PMPI_Irecv(buf, count, dt, source, tag, nm_xl(comm), req);
    nm_op_t *op = NULL;
    int rc = nm_recv_start(buf, count, dt, source, tag, c, 0, 0, &op);
    if (rc == MPI_SUCCESS)
        rc = nm_op_to_greq(op, req);
    return nm_error(comm, rc);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
                             recvbuf, recvcount, recvtype, source, recvtag,
                             nm_xl(comm), status);
    MPI_Request rq[2];
    int rc =
        MPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &rq[1]);
    if (rc != MPI_SUCCESS) {
        PMPI_Cancel(&rq[0]);
        PMPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        return rc;
    }
    MPI_Status st[2];
    rc = PMPI_Waitall(2, rq, st);
    if (status != MPI_STATUS_IGNORE)
        *status = st[0];
    if (rc == MPI_ERR_IN_STATUS)
        rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
    return nm_error(comm, rc);
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
                         int sendtag, int source, int recvtag, MPI_Comm comm,
                         MPI_Status *status)
{
    if (!nm_comm_delegated(comm))
        return PMPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source,
                                     recvtag, nm_xl(comm), status);
    nm_comm_t *c = nm_comm_find(comm);
    nm_op_t *r = NULL, *s = NULL;
    int rc = MPI_SUCCESS;
    if (source != MPI_PROC_NULL)
        rc = nm_recv_start(buf, count, dt, source, recvtag, c, 0, 1, &r);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
        rc = send_start(buf, count, dt, dest, sendtag, c, 0, &s);
    if (rc == MPI_SUCCESS && s)
        rc = nm_op_wait(s, nm_policy_blocking);
    if (rc == MPI_SUCCESS && r) {
        /* The send has left the buffer; now the staged data may land. */
        rc = nm_op_wait(r, nm_policy_blocking);
        if (rc == MPI_SUCCESS) {
            nm_op_status(r, status);
            rc = r->err;
        }
    } else if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE) {
        PMPI_Recv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, status);
    }
    if (rc == MPI_SUCCESS && s)
        rc = s->err;
    nm_op_free(s);
    nm_op_free(r);
    return nm_error(comm, rc);
}
