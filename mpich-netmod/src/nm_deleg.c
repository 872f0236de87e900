/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_deleg.c: the delegatee.  It runs inside MPI_Init of the last rank of
 * each delegatee group and never returns to the application.
 *
 * It owns the matching engine of its clients: for every client a queue of
 * posted receives and a queue of unexpected messages, matched in MPI order
 * (first posted receive / first arrived message that fits (context,
 * source, tag)).  A send is read from the client's buffer (inline in the
 * record or process_vm_readv: one copy), then either delivered to a local
 * client or sent as one MPI message (header + payload) to the delegatee of
 * the destination, which delivers it there with process_vm_writev.  The
 * order of messages between two clients is the ring order at the sender's
 * delegatee and MPI's non-overtaking order between delegatees.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
#include <unistd.h>

#include "nm_internal.h"

/* Who runs a turn: our own thread, a client of our address space that
 * waits for us, or one that hands an operation over (and goes on) */
enum { TURN_THREAD, TURN_WAIT, TURN_POST };

#define TAG_MSG 1
#define TAG_ACK 2
/* NM_F_CMA messages (PiP form, between two processes of one node) */
#define TAG_FIN    3 /* receiver -> sender: payload taken (pulled or dropped) */
#define TAG_RTR    4 /* receiver -> sender: push it to this address */
#define TAG_PUSHED 5 /* sender -> receiver: pushed */
#define TAG_RR     6 /* receiver -> sender: a receive is posted (announce) */

/* TAG_RTR and TAG_PUSHED bodies */
typedef struct {
    uint64_t token;  /* the sender's record */
    uint64_t raddr;  /* the receive buffer (receiver's process) */
    uint64_t rtoken; /* the receiver's record */
    uint64_t size;
} nm_rtr_t;

typedef struct {
    uint64_t rtoken;
    int32_t err;
    int32_t pad;
} nm_pushed_t;

/* TAG_RR body: a posted receive that the next message from src to dst with
 * this context and tag will match (none posted before it could), unless a
 * message the receiver has not seen yet (sequence > seen) matches it
 * first.  Also the record of such an announcement at the sender. */
typedef struct {
    uint32_t ctx;
    int32_t src, dst, tag;
    uint32_t seen; /* last sequence number from src to dst taken in */
    int32_t slot;  /* claim word in the receiver's doorbell */
    uint32_t gen;  /* its generation */
    int32_t d;     /* at the sender: the receiving delegatee */
    uint64_t raddr, rlen, rtoken;
} nm_rr_t;

/* A send of ours whose payload waits in its buffer (NM_F_CMA) for the
 * receiver to pull it or ask for it, or for us to push it where an
 * announcement attached to it says (has_rr). */
typedef struct {
    nm_rec_t *rec;
    int d;            /* receiving delegatee */
    int32_t src, dst; /* world ranks */
    uint32_t ctx, seq;
    int32_t tag;
    int has_rr;
    nm_rr_t rr;
} csend_t;

typedef struct nm_msg {
    nm_hdr_t hdr;
    char *data;   /* payload (inside blk, or borrowed) */
    void *blk;    /* allocation to free */
    int borrowed; /* data is the sending client's buffer (same address
                     space): copy it before queueing as unexpected */
    int on_stack; /* the caller's (a short message just received): copied
                     to the heap only when it has to wait as unexpected */
    int pend_d;   /* >= 0: a split message whose payload is still in MPI
                     (from this delegatee, tag hdr.ptag): taken when a
                     receive matches, straight into its buffer if it can */
    uint64_t id;
    struct nm_msg *next;
} nm_msg_t;

typedef struct nm_post {
    nm_rec_t *rec;
    struct nm_post *next;
} nm_post_t;

typedef struct {
    int used, fin;
    int world;
    pid_t pid;
    int same; /* shares our address space (PiP tasks of one root) */
    nm_post_t *posted, **posted_tail;
    nm_msg_t *unexp, **unexp_tail;
} dclient_t;

typedef struct pend {
    nm_rec_t *rec;
    int client;
    struct pend *next;
} pend_t;

typedef struct {
    MPI_Request req;
    void *blk;
    MPI_Datatype type; /* zero-copy send: header + the client's buffer */
    nm_rec_t *rec;     /* completed with the send (zero-copy) */
} outq_t;

/* A receive filled straight from MPI (split message, same address space),
 * or (push queue) by the sender's side with process_vm_writev. */
typedef struct {
    MPI_Request req;
    nm_rec_t *rec;
    nm_hdr_t hdr;
} inq_t;

static struct {
    MPI_Comm dcomm;
    MPI_Comm pcomm; /* payloads of split messages, tag = hdr.ptag */
    int32_t pseq;   /* last payload tag used */
    inq_t *in;      /* receives being filled (nin of capin) */
    int nin, capin;
    int me; /* dcomm rank */
    dlg_region_t *region;
    dlg_delegatee_t *dg;
    dclient_t *cl;
    int ncl, nfin;
    int *slot_of_world; /* world rank -> client slot or -1 */
    pend_t *pend, **pend_tail;
    outq_t *out;
    int nout, capout;
    nm_msg_t *matched; /* messages taken by MPI_Mprobe */
    uint64_t sleeps;
    uint64_t completions;    /* records completed so far */
    uint64_t zsends, drecvs; /* sends without a copy, receives in place */
    uint64_t next_id;
    int idle_adaptive;
    atomic_int more;       /* the loop goes on (set by every turn) */
    atomic_int may_sleep;  /* nothing in flight (set by every turn) */
    atomic_int sends_only; /* only sends in flight (set by every turn) */
    int any_same;          /* some client shares our address space */
    uint32_t posted_seen;  /* bell->posted when the rings were last empty */
    uint32_t entries_seen; /* bell->entries at our last long nap */
    inq_t *push;           /* receives the senders were asked to push */
    int npush, cappush;
    csend_t *cs; /* our NM_F_CMA sends not yet taken */
    int ncs, capcs;
    int nattached; /* of them, with an announcement to push to */
    nm_rr_t *rr;   /* announcements not yet attached to a send */
    int nrr, caprr;
    uint32_t *sent_seq;   /* [client slot * world size + dst world rank] */
    uint32_t *recv_seq;   /* [client slot * world size + src world rank] */
    int nbig;             /* posted receives big_recv() */
    nm_post_t *post_free; /* unused entries of the posted queues */
    int *cma;             /* per delegatee: NM_F_CMA both ways */
    int turn_kind;        /* who runs this turn (TURN_*) */
    nm_rec_t *own;        /* the record deleg_direct hands over */
    char *base;           /* dlg_region_base(region) */
    uint64_t pulls, pushes, announced;
    uint64_t *peer_seen; /* per delegatee: tick when it had a spinning
                            client (PiP form) */
    uint64_t peer_ticks; /* how long that answer is trusted (~5 us) */
    MPI_Request *treq;   /* scratch of test_all() */
    int *tidx, captest;
    MPI_Status *tst;
    nm_bell_t *bell;   /* ours */
    nm_bell_t **bells; /* every delegatee's, by dcomm rank */
    /* last: out of the way of the fields every message uses */
    uint32_t claim_gen[NM_CLAIMS]; /* our claim words: generations */
    int claim_free[NM_CLAIMS], nclaim_free;
} D;

static void *grow(void *a, int *cap, int n, size_t size, const char *what);

static void complete(nm_rec_t *r)
{
    D.completions++;
    atomic_store_explicit(&r->done, 1, memory_order_release);
    /* the record a client hands over in deleg_direct (that very thread
     * runs this), or one its client waits for spinning: nobody sleeps on
     * it (no fence) */
    if (r == D.own || (r->flags & NM_F_SPIN))
        return;
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&r->waiting, memory_order_relaxed))
        syscall(SYS_futex, &r->done, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static uint64_t ticks(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#elif defined(__aarch64__)
    /* The generic timer's virtual count, readable from user mode (Linux
     * enables EL0 access); its rate is measured like the TSC's. */
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
#else
    return 0;
#endif
}

/* Ticks of ticks() in 5 us (0: no tick counter), from 1 ms of spinning. */
static uint64_t ticks_per_5us(void)
{
    struct timespec a, b;
    uint64_t k0 = ticks(), ns;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        clock_gettime(CLOCK_MONOTONIC, &b);
        ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
             (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
    } while (ns < 1000000);
    return (ticks() - k0) * 5000 / ns;
}

/* Ring delegatee d after sending to it.  PiP form: a peer with a client
 * spinning in a wait needs no ring; that answer is trusted for ~5 us, so
 * that a stream of messages does not read the peer's doorbell line (which
 * its waiting client writes on every wait) once per message. */
static void ring_peer(int d)
{
    if (!D.any_same || !D.peer_ticks) {
        nm_bell_ring(D.bells[d]);
        return;
    }
    uint64_t now = ticks();
    if (now - D.peer_seen[d] >= D.peer_ticks && nm_bell_ring(D.bells[d]))
        D.peer_seen[d] = now;
}

/* A short message of the NM_F_CMA protocol to delegatee d (eager: done
 * when it returns).  Always rung (not ring_peer's trust in a client seen
 * spinning): a client that spun a moment ago may compute now, and the
 * other side's thread must take its part of the transfer meanwhile. */
static void ctl_send(int d, int tag, const void *buf, int n)
{
    PMPI_Send(buf, n, MPI_BYTE, d, tag, D.dcomm);
    nm_bell_ring(D.bells[d]);
}

/* Copy n bytes between our address `local` and `remote` in process pid
 * (write: to it); MPI_SUCCESS or MPI_ERR_BUFFER. */
static int cma_copy(pid_t pid, void *local, uint64_t remote, uint64_t n,
                    int write)
{
    while (n) {
        struct iovec lo = {local, n};
        struct iovec re = {(void *)(uintptr_t)remote, n};
        ssize_t k = write ? process_vm_writev(pid, &lo, 1, &re, 1, 0)
                          : process_vm_readv(pid, &lo, 1, &re, 1, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return MPI_ERR_BUFFER;
        local = (char *)local + k;
        remote += (uint64_t)k;
        n -= (uint64_t)k;
    }
    return MPI_SUCCESS;
}

static int match(const nm_hdr_t *h, const nm_rec_t *r)
{
    return h->ctx == r->ctx && (r->peer < 0 || r->peer == h->src) &&
           (r->tag < 0 || r->tag == h->tag);
}

static void fatal(const char *what, int err)
{
    fprintf(stderr, "mpideleg: delegatee (world rank %d): %s: %s\n",
            nm_lay.world_rank, what, strerror(err));
    PMPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

static outq_t *out_slot(void);

static void send_ack(const nm_hdr_t *h)
{
    if (h->ack_d == D.me) {
        complete((nm_rec_t *)(uintptr_t)h->token);
        return;
    }
    uint64_t *tok = malloc(sizeof *tok);
    if (!tok)
        fatal("ack", ENOMEM);
    *tok = h->token;
    outq_t *o = out_slot();
    o->blk = tok;
    PMPI_Isend(tok, (int)sizeof *tok, MPI_BYTE, h->ack_d, TAG_ACK, D.dcomm,
               &o->req);
    ring_peer(h->ack_d);
}

static void msg_free(nm_msg_t *m)
{
    free(m->blk);
    if (!m->on_stack)
        free(m);
}

static void fetch_payload(nm_msg_t *m);
static int recv_in_place(nm_msg_t *m, nm_rec_t *r, int slot);

/* A receive that a NM_F_CMA message could fill in place: its client,
 * waiting, spins (it will copy the data itself) instead of sleeping. */
static int big_recv(const dclient_t *c, const nm_rec_t *r)
{
    return c->same && nm_lay.cma_min && !(r->flags & NM_F_INLINE) &&
           r->len >= nm_lay.cma_min;
}

/* Take the posted receive *pp of client c off its queue. */
static nm_rec_t *unpost(dclient_t *c, nm_post_t **pp)
{
    nm_post_t *p = *pp;
    nm_rec_t *r = p->rec;
    *pp = p->next;
    if (!*pp)
        c->posted_tail = pp;
    D.nbig -= big_recv(c, r);
    p->next = D.post_free; /* kept for the next receive: no malloc/free */
    D.post_free = p;
    return r;
}

/* Receiver: the NM_F_CMA payload of message m (from delegatee m->pend_d)
 * read into `to` of ours; the sender is told (its send completes).  The
 * copy's outcome (MPI_SUCCESS or MPI_ERR_BUFFER). */
static int pull_payload(const nm_msg_t *m, void *to)
{
    int err =
        cma_copy(D.bells[m->pend_d]->pid, to, m->hdr.addr, m->hdr.size, 0);
    ctl_send(m->pend_d, TAG_FIN, &m->hdr.token, sizeof m->hdr.token);
    D.pulls++;
    return err;
}

/* Receiver: receive r waits for its sender to push the message with header
 * h (TAG_PUSHED completes it). */
static void expect_push(nm_rec_t *r, const nm_hdr_t *h)
{
    D.push = grow(D.push, &D.cappush, D.npush, sizeof *D.push, "receive");
    D.push[D.npush++] = (inq_t){.req = MPI_REQUEST_NULL, .rec = r, .hdr = *h};
}

/* Receiver: r's announcement is over (its claim word was retired): the
 * word goes back to the free ones with its next generation. */
static void rr_free(nm_rec_t *r)
{
    int k = r->rr - 1;
    D.claim_gen[k]++;
    D.claim_free[D.nclaim_free++] = k;
    r->rr = 0;
}

/* Receiver: retire the claim word of r's announcement (a stale claim of
 * the sender fails from now on) and free it. */
static void release_rr(nm_rec_t *r)
{
    if (!r->rr)
        return;
    int k = r->rr - 1;
    atomic_store(&D.bell->claim[k], (D.claim_gen[k] + 1) << 2);
    rr_free(r);
}

/* Receiver: take receive r to fill it ourselves.  An announced one is
 * ours only if its sender has not claimed it (then it pushes its data
 * there): 0.  Retiring the claim word at once makes a later claim of the
 * sender fail. */
static int claim_rr(nm_rec_t *r)
{
    if (!r->rr)
        return 1;
    int k = r->rr - 1;
    uint32_t want = D.claim_gen[k] << 2;
    if (!atomic_compare_exchange_strong(&D.bell->claim[k], &want,
                                        (D.claim_gen[k] + 1) << 2))
        return 0;
    rr_free(r);
    return 1;
}

/* Receiver: r's sender pushes message m there (it claimed r); r completes
 * with TAG_PUSHED. */
static void await_push(nm_msg_t *m, nm_rec_t *r)
{
    if (!(m->hdr.flags & NM_F_CMA))
        fatal("an announced receive was claimed for another message", EPROTO);
    expect_push(r, &m->hdr);
    msg_free(m);
}

/* Copy message m into the receive described by r; free m. */
static void deliver_to(int slot, nm_msg_t *m, nm_rec_t *r)
{
    if (!claim_rr(r)) {
        await_push(m, r);
        return;
    }
    if (m->pend_d >= 0) {
        if (recv_in_place(m, r, slot))
            return;
        fetch_payload(m);
    }
    uint64_t n = m->hdr.size < r->len ? m->hdr.size : r->len;
    r->err = m->hdr.size > r->len ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    if (n) {
        if (r->flags & NM_F_INLINE) {
            memcpy(r->inl, m->data, n);
        } else if (D.cl[slot].same) {
            memcpy((void *)(uintptr_t)r->addr, m->data, n);
        } else {
            struct iovec lo = {m->data, n};
            struct iovec re = {(void *)(uintptr_t)r->addr, n};
            ssize_t w = process_vm_writev(D.cl[slot].pid, &lo, 1, &re, 1, 0);
            if (w != (ssize_t)n)
                r->err = MPI_ERR_BUFFER;
        }
    }
    r->st_src = m->hdr.src;
    r->st_tag = m->hdr.tag;
    r->st_count = n;
    r->cancelled = 0;
    if (m->hdr.flags & NM_F_SYNC)
        send_ack(&m->hdr);
    complete(r);
    msg_free(m);
}

/* A message for local client `slot` arrived: match or queue it. */
static void arrive(nm_msg_t *m)
{
    int slot = m->hdr.dst >= 0 && m->hdr.dst < nm_lay.world_size
                   ? D.slot_of_world[m->hdr.dst]
                   : -1;
    if (slot < 0) {
        fprintf(stderr, "mpideleg: delegatee got a message for rank %d\n",
                m->hdr.dst);
        msg_free(m);
        return;
    }
    dclient_t *c = &D.cl[slot];
    for (nm_post_t **pp = &c->posted; *pp; pp = &(*pp)->next) {
        if (match(&m->hdr, (*pp)->rec)) {
            deliver_to(slot, m, unpost(c, pp));
            return;
        }
    }
    if (m->borrowed) {
        /* the sender's buffer is lent only for this call */
        void *blk = malloc(sizeof(nm_hdr_t) + m->hdr.size + 1);
        if (!blk)
            fatal("unexpected message", ENOMEM);
        memcpy(blk, &m->hdr, sizeof m->hdr);
        memcpy((char *)blk + sizeof(nm_hdr_t), m->data, m->hdr.size);
        free(m->blk);
        m->blk = blk;
        m->data = (char *)blk + sizeof(nm_hdr_t);
        m->borrowed = 0;
    }
    if (m->on_stack) {
        nm_msg_t *h = malloc(sizeof *h);
        if (!h)
            fatal("unexpected message", ENOMEM);
        *h = *m;
        h->on_stack = 0;
        m = h;
    }
    m->next = NULL;
    *c->unexp_tail = m;
    c->unexp_tail = &m->next;
}

static nm_msg_t *take_unexpected(dclient_t *c, const nm_rec_t *r, int remove)
{
    for (nm_msg_t **pp = &c->unexp; *pp; pp = &(*pp)->next) {
        if (match(&(*pp)->hdr, r)) {
            nm_msg_t *m = *pp;
            if (remove) {
                *pp = m->next;
                if (!*pp)
                    c->unexp_tail = pp;
            }
            return m;
        }
    }
    return NULL;
}

/* Array a of *cap elements of `size` bytes, n used: room for one more. */
static void *grow(void *a, int *cap, int n, size_t size, const char *what)
{
    if (n < *cap)
        return a;
    *cap = *cap ? 2 * *cap : 64;
    a = realloc(a, size * (size_t)*cap);
    if (!a)
        fatal(what, ENOMEM);
    return a;
}

static outq_t *out_slot(void)
{
    D.out = grow(D.out, &D.capout, D.nout, sizeof *D.out, "queue");
    outq_t *o = &D.out[D.nout++];
    *o = (outq_t){.type = MPI_DATATYPE_NULL};
    return o;
}

/* ---- announced receives (NM_F_CMA) ---- */

static uint32_t *seq_at(uint32_t *tab, int slot, int world)
{
    return &tab[(size_t)slot * (size_t)nm_lay.world_size + (size_t)world];
}

/* Sender: the announcement for (src, dst, ctx, tag), taken off the list.
 * One whose claim word the receiver has retired meanwhile (its receive was
 * cancelled) is dropped on the way: left there, it would take the place of
 * the next announcement for the same messages. */
static int take_rr(int32_t src, int32_t dst, uint32_t ctx, int32_t tag,
                   nm_rr_t *out)
{
    for (int i = 0; i < D.nrr; i++) {
        nm_rr_t *a = &D.rr[i];
        if (a->src != src || a->dst != dst || a->ctx != ctx || a->tag != tag)
            continue;
        uint32_t w = atomic_load_explicit(&D.bells[a->d]->claim[a->slot],
                                          memory_order_relaxed);
        int live = w >> 2 == (a->gen & 0x3fffffffu);
        if (live)
            *out = *a;
        memmove(a, a + 1, sizeof *a * (size_t)(D.nrr - i - 1));
        D.nrr--;
        if (live)
            return 1;
        i--;
    }
    return 0;
}

static void attach_rr(csend_t *e, const nm_rr_t *a)
{
    e->has_rr = 1;
    e->rr = *a;
    D.nattached++;
}

/* Sender: our NM_F_CMA send of record r is done with; its entry goes. */
static void csend_drop(nm_rec_t *r)
{
    for (int i = 0; i < D.ncs; i++) {
        if (D.cs[i].rec == r) {
            D.nattached -= D.cs[i].has_rr;
            D.cs[i] = D.cs[--D.ncs];
            return;
        }
    }
    fatal("completion of an unknown send", EPROTO);
}

/* Sender: write len bytes of our NM_F_CMA send r into the receive buffer
 * raddr of delegatee d's process, tell d (its record rtoken completes),
 * and complete the send. */
static void push_payload(nm_rec_t *r, int d, uint64_t raddr, uint64_t rtoken,
                         uint64_t len)
{
    int err =
        cma_copy(D.bells[d]->pid, (void *)(uintptr_t)r->addr, raddr, len, 1);
    nm_pushed_t pu = {.rtoken = rtoken, .err = err};
    csend_drop(r);
    ctl_send(d, TAG_PUSHED, &pu, (int)sizeof pu);
    D.pushes++;
    r->err = err;
    complete(r);
}

/* Sender: an announcement from delegatee d.  With nothing from its sender
 * to its receiver in flight, it waits for the next matching send; else
 * it belongs to the first of those in flight that matches, which we can
 * tell only when all before it are our NM_F_CMA sends (known not to
 * match) and it is one too: attached to it.  Otherwise dropped (the
 * receiver fills the receive as usual). */
static void got_rr(int d, const nm_rr_t *in)
{
    nm_rr_t a = *in;
    a.d = d;
    int s =
        a.src >= 0 && a.src < nm_lay.world_size ? D.slot_of_world[a.src] : -1;
    if (s < 0 || a.dst < 0 || a.dst >= nm_lay.world_size)
        return;
    uint32_t sent = *seq_at(D.sent_seq, s, a.dst);
    if (sent == a.seen) {
        D.rr = grow(D.rr, &D.caprr, D.nrr, sizeof *D.rr, "announcement");
        D.rr[D.nrr++] = a;
        return;
    }
    csend_t *first = NULL;
    for (int i = 0; i < D.ncs; i++) {
        csend_t *e = &D.cs[i];
        if (e->src == a.src && e->dst == a.dst && e->seq > a.seen &&
            e->ctx == a.ctx && e->tag == a.tag &&
            (!first || e->seq < first->seq))
            first = e;
    }
    if (!first || first->has_rr || first->rec->len > a.rlen)
        return;
    uint32_t before = 0;
    for (int i = 0; i < D.ncs; i++)
        before += D.cs[i].src == a.src && D.cs[i].dst == a.dst &&
                  D.cs[i].seq > a.seen && D.cs[i].seq < first->seq;
    if (before == first->seq - a.seen - 1)
        attach_rr(first, &a);
}

/* Sender, in a waiting client's turn: push our sends with an announced
 * receive, each once we hold its claim (the receiver may have claimed it
 * first: then it pulls, or fills it otherwise and retired the claim). */
static int try_push(void)
{
    int n = 0;
    for (int i = 0; i < D.ncs && D.nattached; i++) {
        csend_t *e = &D.cs[i];
        if (!e->has_rr)
            continue;
        e->has_rr = 0;
        D.nattached--;
        uint32_t want = e->rr.gen << 2;
        if (!atomic_compare_exchange_strong(&D.bells[e->d]->claim[e->rr.slot],
                                            &want, want | 2))
            continue;
        push_payload(e->rec, e->d, e->rr.raddr, e->rr.rtoken, e->rec->len);
        i--; /* the last entry moved here */
        n++;
    }
    return n;
}

/* Same address space, to another delegatee: the header, then the payload
 * straight from the client's buffer as a message of its own (no copy here;
 * the receiving delegatee may take it straight into the posted receive).
 * The send completes when MPI is done with the buffer. */
static void send_zero_copy(nm_rec_t *r, nm_hdr_t *h, int dst_d,
                           const nm_rr_t *a)
{
    if (D.cma[dst_d] && r->len >= nm_lay.cma_min) {
        /* another process of this node: only the header goes; whichever
         * side waits moves the payload (the receiver's turn pulls it, the
         * receiver asks us to push it, or our waiting client pushes it to
         * the announced receive), and TAG_FIN or our push completes the
         * send */
        h->flags |= NM_F_SPLIT | NM_F_CMA;
        h->addr = r->addr;
        ctl_send(dst_d, TAG_MSG, h, (int)sizeof *h);
        D.cs = grow(D.cs, &D.capcs, D.ncs, sizeof *D.cs, "send");
        csend_t *e = &D.cs[D.ncs++];
        *e = (csend_t){.rec = r,
                       .d = dst_d,
                       .src = h->src,
                       .dst = h->dst,
                       .ctx = h->ctx,
                       .seq = h->seq,
                       .tag = h->tag};
        if (a && r->len <= a->rlen)
            attach_rr(e, a);
        D.zsends++;
        return;
    }
    nm_hdr_t *hb = malloc(sizeof *hb);
    if (!hb)
        fatal("message header", ENOMEM);
    D.pseq = D.pseq >= 32000 ? 1 : D.pseq + 1;
    h->flags |= NM_F_SPLIT;
    h->ptag = D.pseq;
    *hb = *h;
    outq_t *o = out_slot();
    o->blk = hb;
    PMPI_Isend(hb, (int)sizeof *hb, MPI_BYTE, dst_d, TAG_MSG, D.dcomm, &o->req);
    o = out_slot();
    o->rec = r;
    PMPI_Isend((void *)(uintptr_t)r->addr, (int)r->len, MPI_BYTE, dst_d,
               h->ptag, D.pcomm, &o->req);
    D.zsends++;
    ring_peer(dst_d);
}

/* Read a pending send from its client and send or deliver it. */
static void do_send(pend_t *p)
{
    nm_rec_t *r = p->rec;
    dclient_t *c = &D.cl[p->client];
    int sync = (r->flags & NM_F_SYNC) != 0;
    int dst_d = nm_dcomm_rank_of(r->peer);
    int borrow = c->same && r->len && !(r->flags & NM_F_INLINE);
    nm_hdr_t hdr = {.ctx = r->ctx,
                    .src = c->world,
                    .dst = r->peer,
                    .tag = r->tag,
                    .size = r->len,
                    .flags = r->flags & (NM_F_SYNC | NM_F_LOCAL),
                    .ack_d = D.me,
                    .token = (uint64_t)(uintptr_t)r};
    r->err = MPI_SUCCESS;
    if (sizeof(nm_hdr_t) + r->len > INT_MAX)
        fatal("message larger than 2 GiB", EMSGSIZE);
    /* to another delegatee: numbered per pair of clients; an announced
     * receive that this message will match is used (a send that can push
     * there) or dropped (the receiver fills it as usual) */
    nm_rr_t a;
    int announced = 0;
    if (dst_d != D.me) {
        hdr.seq = ++*seq_at(D.sent_seq, p->client, r->peer);
        announced = D.nrr && take_rr(c->world, r->peer, r->ctx, r->tag, &a);
    }
    if (borrow && !sync && dst_d != D.me) {
        send_zero_copy(r, &hdr, dst_d, announced ? &a : NULL);
        return;
    }
    if ((r->flags & NM_F_INLINE) && dst_d != D.me) {
        /* short: one eager message from the stack, done when the call
         * returns (no buffer to keep, no request to test) */
        char b[sizeof(nm_hdr_t) + NM_INLINE];
        memcpy(b, &hdr, sizeof hdr);
        memcpy(b + sizeof hdr, r->inl, r->len);
        /* a full queue blocks the send until the peer drains it: wake the
         * peer first too (process form: a sleeping peer delegatee naps for
         * up to 2 ms; PiP form: for at most 50 us, or a client of it spins,
         * and a ring here would put the read of the peer's doorbell before
         * the message, on the latency's path) */
        if (!D.any_same)
            ring_peer(dst_d);
        PMPI_Send(b, (int)(sizeof hdr + r->len), MPI_BYTE, dst_d, TAG_MSG,
                  D.dcomm);
        ring_peer(dst_d);
        if (!sync)
            complete(r);
        return;
    }
    nm_msg_t *m = malloc(sizeof *m);
    /* a local message from a client of our address space is read in place
     * (arrive() copies it only when it has to wait as unexpected) */
    void *blk =
        malloc(sizeof(nm_hdr_t) + (borrow && dst_d == D.me ? 0 : r->len) + 1);
    if (!m || !blk)
        fatal("message buffer", ENOMEM);
    m->blk = blk;
    m->hdr = hdr;
    m->borrowed = borrow && dst_d == D.me;
    m->on_stack = 0;
    m->pend_d = -1;
    m->data = m->borrowed ? (char *)(uintptr_t)r->addr
                          : (char *)blk + sizeof(nm_hdr_t);
    if (r->len && !m->borrowed) {
        if (r->flags & NM_F_INLINE) {
            memcpy(m->data, r->inl, r->len);
        } else if (c->same) {
            memcpy(m->data, (void *)(uintptr_t)r->addr, r->len);
        } else {
            struct iovec lo = {m->data, r->len};
            struct iovec re = {(void *)(uintptr_t)r->addr, r->len};
            ssize_t n = process_vm_readv(c->pid, &lo, 1, &re, 1, 0);
            if (n != (ssize_t)r->len) {
                r->err = MPI_ERR_BUFFER;
                complete(r);
                free(blk);
                free(m);
                return;
            }
        }
    }
    memcpy(blk, &m->hdr, sizeof m->hdr);
    if (dst_d == D.me) {
        arrive(m);
    } else {
        outq_t *o = out_slot();
        o->blk = blk;
        PMPI_Isend(blk, (int)(sizeof(nm_hdr_t) + r->len), MPI_BYTE, dst_d,
                   TAG_MSG, D.dcomm, &o->req);
        free(m);
        ring_peer(dst_d);
    }
    /* The data is out of the client's buffer: a standard, buffered or
     * ready send is complete; a synchronous one waits for the match. */
    if (!sync)
        complete(r);
}

/* Test n requests with one MPI call (one pass of MPI's progress instead
 * of one per request); returns the number completed, their indices in
 * D.tidx in descending order (so that removing them by moving the last
 * entry into the hole stays right). */
static int test_all(int n, MPI_Request (*get)(int i))
{
    if (n > D.captest) {
        int cap = n < 64 ? 64 : 2 * n;
        MPI_Request *r = realloc(D.treq, sizeof *r * (size_t)cap);
        if (r)
            D.treq = r;
        int *x = realloc(D.tidx, sizeof *x * (size_t)cap);
        if (x)
            D.tidx = x;
        MPI_Status *st = realloc(D.tst, sizeof *st * (size_t)cap);
        if (st)
            D.tst = st;
        if (!r || !x || !st)
            fatal("request array", ENOMEM);
        D.captest = cap;
    }
    for (int i = 0; i < n; i++)
        D.treq[i] = get(i);
    int done = 0;
    PMPI_Testsome(n, D.treq, &done, D.tidx, D.tst);
    if (done == MPI_UNDEFINED)
        return 0;
    /* Testsome gives them in ascending order */
    for (int i = 0, j = done - 1; i < j; i++, j--) {
        int t = D.tidx[i];
        D.tidx[i] = D.tidx[j];
        D.tidx[j] = t;
    }
    return done;
}

static MPI_Request out_req(int i)
{
    return D.out[i].req;
}

static int progress_sends(void)
{
    int n = 0;
    while (D.pend) {
        pend_t *p = D.pend;
        D.pend = p->next;
        if (!D.pend)
            D.pend_tail = &D.pend;
        do_send(p);
        free(p);
        n++;
    }
    if (D.nout == 0)
        return n;
    int done = test_all(D.nout, out_req);
    for (int k = 0; k < done; k++) {
        int i = D.tidx[k];
        if (D.out[i].type != MPI_DATATYPE_NULL)
            PMPI_Type_free(&D.out[i].type);
        if (D.out[i].rec)
            complete(D.out[i].rec);
        free(D.out[i].blk);
        D.out[i] = D.out[--D.nout];
    }
    return n + done;
}

/* Receive r got the payload of the message with header h (err: how the
 * transfer went): its status, the sender's ack, done. */
static void recv_done(nm_rec_t *r, const nm_hdr_t *h, int err)
{
    release_rr(r);
    r->err = err != MPI_SUCCESS ? err
             : h->size > r->len ? MPI_ERR_TRUNCATE
                                : MPI_SUCCESS;
    r->st_src = h->src;
    r->st_tag = h->tag;
    r->st_count = h->size < r->len ? h->size : r->len;
    r->cancelled = 0;
    if (h->flags & NM_F_SYNC)
        send_ack(h);
    complete(r);
}

/* Receive the payload of split message m (still in MPI, from delegatee
 * m->pend_d) straight into the buffer of receive r of client `slot`, when
 * that client shares our address space and the buffer holds it all (not
 * inline); frees m.  Returns 0 (nothing done) otherwise. */
static int recv_in_place(nm_msg_t *m, nm_rec_t *r, int slot)
{
    if (!D.cl[slot].same || (r->flags & NM_F_INLINE) || m->hdr.size > r->len)
        return 0;
    if (m->hdr.flags & NM_F_CMA) {
        D.drecvs++;
        /* the side that waits copies: a client of ours that waits (this
         * is its CPU), or our own thread when no client of the sender
         * spins; a client handing a receive over goes on computing, and a
         * spinning client of the sender has a CPU to spare: it pushes */
        int pull = nm_lay.cma_mode == NM_CMA_PULL;
        if (nm_lay.cma_mode == NM_CMA_AUTO)
            pull = D.turn_kind == TURN_WAIT ||
                   (D.turn_kind == TURN_THREAD &&
                    !atomic_load_explicit(&D.bells[m->pend_d]->waiters,
                                          memory_order_relaxed));
        if (pull) {
            recv_done(r, &m->hdr, pull_payload(m, (void *)(uintptr_t)r->addr));
        } else {
            expect_push(r, &m->hdr);
            nm_rtr_t t = {.token = m->hdr.token,
                          .raddr = r->addr,
                          .rtoken = (uint64_t)(uintptr_t)r,
                          .size = m->hdr.size};
            ctl_send(m->pend_d, TAG_RTR, &t, (int)sizeof t);
        }
        msg_free(m);
        return 1;
    }
    D.in = grow(D.in, &D.capin, D.nin, sizeof *D.in, "receive");
    inq_t *q = &D.in[D.nin++];
    q->rec = r;
    q->hdr = m->hdr;
    PMPI_Irecv((void *)(uintptr_t)r->addr, (int)m->hdr.size, MPI_BYTE,
               m->pend_d, m->hdr.ptag, D.pcomm, &q->req);
    D.drecvs++;
    msg_free(m);
    return 1;
}

/* Take the payload of a split message into a buffer of ours (staging). */
static void fetch_payload(nm_msg_t *m)
{
    void *nb = realloc(m->blk, sizeof(nm_hdr_t) + m->hdr.size + 1);
    if (!nb)
        fatal("incoming message", ENOMEM);
    m->blk = nb;
    m->data = (char *)nb + sizeof(nm_hdr_t);
    if (m->hdr.flags & NM_F_CMA) {
        if (pull_payload(m, m->data) != MPI_SUCCESS)
            fatal("reading a message from the sender's process", EFAULT);
    } else {
        PMPI_Recv(m->data, (int)m->hdr.size, MPI_BYTE, m->pend_d, m->hdr.ptag,
                  D.pcomm, MPI_STATUS_IGNORE);
    }
    m->pend_d = -1;
}

/* A split message whose destination has a matching posted receive: let
 * MPI write the payload straight into the receive buffer.  Returns 1 when
 * taken. */
static int take_direct(nm_msg_t *m)
{
    int slot = m->hdr.dst >= 0 && m->hdr.dst < nm_lay.world_size
                   ? D.slot_of_world[m->hdr.dst]
                   : -1;
    if (slot < 0 || !D.cl[slot].same)
        return 0;
    dclient_t *c = &D.cl[slot];
    nm_post_t **pp = &c->posted;
    while (*pp && !match(&m->hdr, (*pp)->rec))
        pp = &(*pp)->next;
    if (!*pp)
        return 0;
    nm_rec_t *r = (*pp)->rec;
    if (!claim_rr(r)) {
        unpost(c, pp);
        await_push(m, r);
        return 1;
    }
    if (!recv_in_place(m, r, slot))
        return 0; /* arrive() stages it for that receive */
    unpost(c, pp);
    return 1;
}

/* After the last client's MPI_Finalize: payloads nobody received are
 * taken and dropped, so that their senders' delegatees can finish. */
static void drop_pending(void)
{
    for (int i = 0; i < D.ncl; i++)
        for (nm_msg_t *m = D.cl[i].unexp; m; m = m->next)
            if (m->pend_d >= 0)
                fetch_payload(m);
}

static MPI_Request in_req(int i)
{
    return D.in[i].req;
}

static int progress_recvs(void)
{
    if (D.nin == 0)
        return 0;
    int done = test_all(D.nin, in_req);
    for (int k = 0; k < done; k++) {
        inq_t *q = &D.in[D.tidx[k]];
        recv_done(q->rec, &q->hdr, MPI_SUCCESS);
        *q = D.in[--D.nin];
    }
    return done;
}

/* Receiver: the message with header h was taken in. */
static void note_seq(const nm_hdr_t *h)
{
    int s = h->dst >= 0 && h->dst < nm_lay.world_size ? D.slot_of_world[h->dst]
                                                      : -1;
    if (s >= 0 && h->src >= 0 && h->src < nm_lay.world_size)
        *seq_at(D.recv_seq, s, h->src) = h->seq;
}

/* A control message (tag) from delegatee d. */
static void control(int tag, int d, const void *b, int n)
{
    if (tag == TAG_ACK || tag == TAG_FIN) {
        uint64_t tok;
        if (n < (int)sizeof tok)
            fatal("short control message", EPROTO);
        memcpy(&tok, b, sizeof tok);
        if (tag == TAG_FIN)
            csend_drop((nm_rec_t *)(uintptr_t)tok);
        complete((nm_rec_t *)(uintptr_t)tok);
    } else if (tag == TAG_RTR) {
        /* push our send's payload into the receiver's buffer */
        nm_rtr_t t;
        if (n < (int)sizeof t)
            fatal("short control message", EPROTO);
        memcpy(&t, b, sizeof t);
        nm_rec_t *r = (nm_rec_t *)(uintptr_t)t.token;
        push_payload(r, d, t.raddr, t.rtoken,
                     t.size < r->len ? t.size : r->len);
    } else if (tag == TAG_PUSHED) {
        nm_pushed_t p;
        if (n < (int)sizeof p)
            fatal("short control message", EPROTO);
        memcpy(&p, b, sizeof p);
        for (int i = 0; i < D.npush; i++) {
            if ((uint64_t)(uintptr_t)D.push[i].rec == p.rtoken) {
                recv_done(D.push[i].rec, &D.push[i].hdr, p.err);
                D.push[i] = D.push[--D.npush];
                return;
            }
        }
        fatal("push of an unknown receive", EPROTO);
    } else if (tag == TAG_RR) {
        nm_rr_t a;
        if (n < (int)sizeof a)
            fatal("short control message", EPROTO);
        memcpy(&a, b, sizeof a);
        got_rr(d, &a);
    } else {
        fatal("message with an unknown tag", EPROTO);
    }
}

static int progress_incoming(int client)
{
    int n = 0;
    uint64_t done0 = D.completions;
    for (;;) {
        /* A client's turn stops once a record is complete (most likely
         * the one it waits for: one pass of MPI's progress less on the
         * way back to it); our own loop drains. */
        if (client && D.completions != done0)
            return n;
        int flag = 0, cnt = 0;
        MPI_Message msg;
        MPI_Status st;
        PMPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, D.dcomm, &flag, &msg, &st);
        if (!flag)
            return n;
        n++;
        PMPI_Get_count(&st, MPI_BYTE, &cnt);
        /* a short message goes through the stack: no allocation unless it
         * has to wait as unexpected */
        union {
            nm_hdr_t h;
            char b[sizeof(nm_hdr_t) + 2 * NM_INLINE];
        } sb;
        int small = cnt >= (int)sizeof(nm_hdr_t) && cnt <= (int)sizeof sb;
        void *blk = small ? (void *)&sb : malloc((size_t)cnt + 1);
        if (!blk)
            fatal("incoming message", ENOMEM);
        PMPI_Mrecv(blk, cnt, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        if (st.MPI_TAG != TAG_MSG) {
            control(st.MPI_TAG, st.MPI_SOURCE, blk, cnt);
            if (!small)
                free(blk);
            continue;
        }
        if (cnt < (int)sizeof(nm_hdr_t))
            fatal("message without a header", EPROTO);
        nm_hdr_t h; /* blk may be unaligned */
        memcpy(&h, blk, sizeof h);
        note_seq(&h);
        if (small && !(h.flags & NM_F_SPLIT)) {
            nm_msg_t sm = {.hdr = h,
                           .data = sb.b + sizeof(nm_hdr_t),
                           .borrowed = 1,
                           .on_stack = 1,
                           .pend_d = -1};
            arrive(&sm);
            continue;
        }
        if (small) {
            void *heap = malloc((size_t)cnt + 1);
            if (!heap)
                fatal("incoming message", ENOMEM);
            memcpy(heap, blk, (size_t)cnt);
            blk = heap;
        }
        nm_msg_t *m = malloc(sizeof *m);
        if (!m)
            fatal("incoming message", ENOMEM);
        m->hdr = h;
        m->blk = blk;
        m->data = (char *)blk + sizeof(nm_hdr_t);
        m->borrowed = 0;
        m->on_stack = 0;
        m->pend_d = -1;
        if (m->hdr.flags & NM_F_SPLIT) {
            m->pend_d = st.MPI_SOURCE;
            if (take_direct(m))
                continue;
            /* No receive to fill in place yet: the payload waits in MPI
             * for one (a receive posted later takes it in place), unless
             * the send must complete without the receiver (buffered). */
            if (m->hdr.flags & NM_F_LOCAL)
                fetch_payload(m);
        }
        arrive(m);
    }
}

/* What the delegatee's own loop needs to know, computed under the turn
 * lock; then the lock is released. */
static void turn_end(void)
{
    /* sends or receives the peer moves (NM_F_CMA) */
    int peer_moves = D.ncs > 0 || D.npush > 0;
    atomic_store_explicit(
        &D.more, D.nfin < D.ncl || D.nout > 0 || D.pend || D.nin || peer_moves,
        memory_order_relaxed);
    /* never sleep while sends are in flight: their protocol (rendezvous
     * replies) needs our progress, and nobody rings for it */
    atomic_store_explicit(&D.may_sleep,
                          D.nfin < D.ncl && D.nout == 0 && !D.nin && !D.pend &&
                              !peer_moves,
                          memory_order_relaxed);
    /* receives being filled: progress moves their data here (a client
     * waiting on them spins); with more ranks than CPUs, sends alone wait
     * for the peer (rendezvous: the receiver pulls the data) and only need
     * a look now and then, leaving the CPU to whoever moves the other end.
     * NM_F_CMA transfers ring us at each step: our thread naps meanwhile;
     * a client waiting for a receive such a message could fill spins (the
     * side that waits copies the data) */
    int spin = D.nin > 0 || D.pend || (D.nout > 0 && !nm_lay.oversub);
    uint32_t inflight = spin || D.nbig > 0 || D.nattached > 0 ||
                        (peer_moves && !nm_lay.oversub);
    atomic_store_explicit(&D.sends_only, !spin && (D.nout > 0 || peer_moves),
                          memory_order_relaxed);
    if (atomic_load_explicit(&D.bell->inflight, memory_order_relaxed) !=
        inflight)
        atomic_store_explicit(&D.bell->inflight, inflight,
                              memory_order_relaxed);
    atomic_store_explicit(&D.bell->busy, 0, memory_order_release);
}

static void hand_send(int slot, nm_rec_t *r);
static void hand_recv(int slot, nm_rec_t *r);

/* One sweep of the clients' request rings (under the turn lock).  A
 * client's turn (client != 0) skips it while nothing was posted there
 * since the last sweep that found them empty: clients of our address
 * space post there only when the turn is taken, and the sweep's loads of
 * the rings and their control blocks cost a good part of a short turn.
 * Our own loop always sweeps (it also checks that the clients live). */
static int serve_rings(int client)
{
    uint32_t posted =
        atomic_load_explicit(&D.bell->posted, memory_order_acquire);
    if (client && posted == D.posted_seen)
        return 0;
    int rc = dlg_delegatee_progress(D.dg);
    if (rc < 0)
        fatal("delegation ring", -rc);
    if (rc == 0)
        D.posted_seen = posted;
    return rc;
}

/* PiP form: a client of our address space hands a send or a receive over
 * by calling this (its address is in the doorbell) instead of through its
 * request ring (the record by its offset in the region): the ring is
 * drained first (what the client posted before comes first), then the
 * operation (NM_OP_SEND or NM_OP_RECV) is taken and the sends started.
 * Returns -1 when another thread has the turn (the client uses the ring). */
static int deleg_direct(unsigned op, int world, uint64_t off)
{
    /* the client maps the region elsewhere: its record by offset */
    nm_rec_t *r = (nm_rec_t *)(D.base + off);
    int slot =
        world >= 0 && world < nm_lay.world_size ? D.slot_of_world[world] : -1;
    if (slot < 0 ||
        atomic_exchange_explicit(&D.bell->busy, 1, memory_order_acquire))
        return -1;
    while (serve_rings(1) > 0)
        ;
    D.own = r;
    D.turn_kind = TURN_POST;
    if (op == NM_OP_SEND && !D.pend) {
        /* nothing queued before it: sent now, without a queue entry */
        pend_t p = {.rec = r, .client = slot};
        do_send(&p);
    } else if (op == NM_OP_SEND) {
        hand_send(slot, r);
    } else {
        hand_recv(slot, r);
    }
    progress_sends();
    D.own = NULL;
    D.turn_kind = TURN_THREAD;
    turn_end();
    return 0;
}

/* One turn of the delegatee's work, by whoever takes the turn lock: the
 * delegatee's own thread or, in the PiP form, a client thread of the same
 * address space waiting for its operation (no switch to the delegatee's
 * thread on the critical path).  Returns the work done, -1 when another
 * thread has the turn. */
static int turn(int light, int client)
{
    if (atomic_exchange_explicit(&D.bell->busy, 1, memory_order_acquire))
        return -1;
    D.turn_kind = !client ? TURN_THREAD : light ? TURN_POST : TURN_WAIT;
    int n = serve_rings(client) + progress_sends();
    if (!light)
        n += progress_incoming(client) + progress_recvs();
    if (D.turn_kind == TURN_WAIT && D.nattached)
        n += try_push();
    if (D.nfin == D.ncl)
        drop_pending();
    D.turn_kind = TURN_THREAD;
    turn_end();
    return n;
}

/* our own loop's turn */
static int deleg_turn(void)
{
    return turn(0, 0);
}

/* the turn of a client of our address space that waits for us */
static int deleg_client_turn(void)
{
    return turn(0, 1);
}

/* The turn a client of our address space runs right after posting: serve
 * the rings and start the sends (what it posted starts now), but leave
 * incoming messages to the turns of waits and of our thread (one pass of
 * MPI's progress less per posted operation). */
static int deleg_post_turn(void)
{
    return turn(1, 1);
}

/* ------------------------------------------------------------------ */
/* Handlers (run from dlg_delegatee_progress)                          */
/* ------------------------------------------------------------------ */

static int64_t h_hello(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    int s = dlg_req_client(req);
    if (!r || s < 0 || s >= D.ncl)
        return -EINVAL;
    D.cl[s].used = 1;
    D.cl[s].pid = (pid_t)r->arg;
    D.cl[s].same = D.cl[s].pid == getpid();
    D.any_same |= D.cl[s].same;
    D.cl[s].world = r->peer;
    if (r->peer >= 0 && r->peer < nm_lay.world_size)
        D.slot_of_world[r->peer] = s;
    return 0;
}

/* A send of client `slot`: queued for progress_sends(). */
static void hand_send(int slot, nm_rec_t *r)
{
    pend_t *p = malloc(sizeof *p);
    if (!p) {
        /* posted without waiting for us: the record carries the error */
        r->err = MPI_ERR_NO_MEM;
        complete(r);
        return;
    }
    p->rec = r;
    p->client = slot;
    p->next = NULL;
    *D.pend_tail = p;
    D.pend_tail = &p->next;
}

/* Receiver: announce receive r of client `slot`, just posted, to the
 * delegatee of its source when that may push a NM_F_CMA message straight
 * into it: a big receive from one source with one tag, and no receive
 * posted before it that the next such message could match. */
static void announce(int slot, nm_rec_t *r)
{
    dclient_t *c = &D.cl[slot];
    if (nm_lay.cma_mode == NM_CMA_PULL || !big_recv(c, r) || r->peer < 0 ||
        r->peer >= nm_lay.world_size || r->tag < 0 || !D.nclaim_free)
        return;
    int d = nm_dcomm_rank_of(r->peer);
    if (d == D.me || !D.cma[d])
        return;
    for (nm_post_t *p = c->posted; p && p->rec != r; p = p->next)
        if (p->rec->ctx == r->ctx &&
            (p->rec->peer < 0 || p->rec->peer == r->peer) &&
            (p->rec->tag < 0 || p->rec->tag == r->tag))
            return;
    int k = D.claim_free[--D.nclaim_free];
    atomic_store(&D.bell->claim[k], D.claim_gen[k] << 2);
    r->rr = k + 1;
    nm_rr_t a = {.ctx = r->ctx,
                 .src = r->peer,
                 .dst = c->world,
                 .tag = r->tag,
                 .seen = *seq_at(D.recv_seq, slot, r->peer),
                 .slot = k,
                 .gen = D.claim_gen[k],
                 .raddr = r->addr,
                 .rlen = r->len,
                 .rtoken = (uint64_t)(uintptr_t)r};
    ctl_send(d, TAG_RR, &a, (int)sizeof a);
    D.announced++;
}

/* A receive of client `slot`: the first unexpected message that matches,
 * or posted. */
static void hand_recv(int slot, nm_rec_t *r)
{
    dclient_t *c = &D.cl[slot];
    r->rr = 0;
    nm_msg_t *m = take_unexpected(c, r, 1);
    if (m) {
        deliver_to(slot, m, r);
        return;
    }
    nm_post_t *p = D.post_free;
    if (p)
        D.post_free = p->next;
    else
        p = malloc(sizeof *p);
    if (!p) {
        r->err = MPI_ERR_NO_MEM;
        complete(r);
        return;
    }
    p->rec = r;
    p->next = NULL;
    *c->posted_tail = p;
    c->posted_tail = &p->next;
    D.nbig += big_recv(c, r);
    announce(slot, r);
}

static int64_t h_send(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    hand_send(dlg_req_client(req), dlg_req_ptr(req));
    return 0;
}

static int64_t h_recv(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    hand_recv(dlg_req_client(req), dlg_req_ptr(req));
    return 0;
}

static int64_t h_probe(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    dclient_t *c = &D.cl[dlg_req_client(req)];
    int take = dlg_req_op(req) == NM_OP_IMPROBE;
    nm_msg_t *m = take_unexpected(c, r, take);
    r->found = m != NULL;
    if (m) {
        r->st_src = m->hdr.src;
        r->st_tag = m->hdr.tag;
        r->st_count = m->hdr.size;
        if (take) {
            m->id = ++D.next_id;
            m->next = D.matched;
            D.matched = m;
            r->arg = m->id;
        }
    }
    return 0;
}

static int64_t h_mrecv(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    for (nm_msg_t **pp = &D.matched; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == r->arg) {
            nm_msg_t *m = *pp;
            *pp = m->next;
            r->rr = 0;
            deliver_to(dlg_req_client(req), m, r);
            return 0;
        }
    }
    return -ENOENT;
}

static int64_t h_cancel(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    nm_rec_t *r = dlg_req_ptr(req);
    dclient_t *c = &D.cl[dlg_req_client(req)];
    nm_rec_t *target = (nm_rec_t *)(D.base + r->arg);
    r->found = 0;
    for (nm_post_t **pp = &c->posted; *pp; pp = &(*pp)->next) {
        if ((*pp)->rec == target) {
            /* announced and claimed by its sender: its data comes */
            if (!claim_rr(target))
                return 0;
            unpost(c, pp);
            target->cancelled = 1;
            target->err = MPI_SUCCESS;
            target->st_count = 0;
            complete(target);
            r->found = 1;
            return 1;
        }
    }
    return 0;
}

static int64_t h_fin(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    dclient_t *c = &D.cl[dlg_req_client(req)];
    if (!c->fin) {
        c->fin = 1;
        D.nfin++;
    }
    return 0;
}

static void on_dead(dlg_delegatee_t *dg, int client, pid_t pid, void *ctx)
{
    (void)dg;
    (void)ctx;
    fprintf(stderr,
            "mpideleg: delegatee (world rank %d): client %d (pid %d) "
            "died; aborting the job\n",
            nm_lay.world_rank, client, (int)pid);
    PMPI_Abort(MPI_COMM_WORLD, 4);
}

/* ------------------------------------------------------------------ */
/* Main loop                                                           */
/* ------------------------------------------------------------------ */

/* D.cma[d]: delegatee d runs in another process of this node and each of
 * us can read the other's memory (process_vm_readv of a known word; a
 * kernel or a ptrace policy may forbid it): NM_F_CMA messages between us.
 * Collective over the delegatees. */
static void cma_setup(int nd)
{
    static const uint64_t probe = 0x6d70696465c1e9aull;
    uint64_t mine = (uint64_t)(uintptr_t)&probe, *addr;
    int *can = calloc((size_t)nd, sizeof *can);
    D.cma = calloc((size_t)nd, sizeof *D.cma);
    addr = malloc((size_t)nd * sizeof *addr);
    if (!can || !D.cma || !addr)
        fatal("setup", ENOMEM);
    PMPI_Allgather(&mine, 1, MPI_UINT64_T, addr, 1, MPI_UINT64_T, D.dcomm);
    for (int d = 0; d < nd && nm_lay.cma_min; d++) {
        uint64_t v = 0;
        can[d] = d != D.me && D.bells[d]->pid != (int32_t)getpid() &&
                 cma_copy(D.bells[d]->pid, &v, addr[d], sizeof v, 0) ==
                     MPI_SUCCESS &&
                 v == probe;
    }
    PMPI_Alltoall(can, 1, MPI_INT, D.cma, 1, MPI_INT, D.dcomm);
    for (int d = 0; d < nd; d++)
        D.cma[d] = D.cma[d] && can[d];
    free(can);
    free(addr);
}

void nm_delegatee_main(MPI_Comm wcomm, MPI_Comm dcomm)
{
    D.dcomm = dcomm;
    PMPI_Comm_rank(dcomm, &D.me);
    PMPI_Comm_dup(dcomm, &D.pcomm);
    D.pend_tail = &D.pend;
    const char *idle = getenv("MPIDELEG_DELEGATEE_IDLE");
    /* (other values were refused in MPI_Init) */
    D.idle_adaptive = !(idle && strcmp(idle, "poll") == 0);

    int first = nm_dcomm_rank_of(nm_lay.world_rank) * nm_lay.group;
    D.ncl = nm_lay.world_rank - first;
    D.cl = calloc((size_t)D.ncl, sizeof *D.cl);
    D.slot_of_world = malloc(sizeof(int) * (size_t)nm_lay.world_size);
    size_t npairs = (size_t)(D.ncl ? D.ncl : 1) * (size_t)nm_lay.world_size;
    D.sent_seq = calloc(npairs, sizeof *D.sent_seq);
    D.recv_seq = calloc(npairs, sizeof *D.recv_seq);
    if (!D.cl || !D.slot_of_world || !D.sent_seq || !D.recv_seq)
        fatal("setup", ENOMEM);
    for (int k = 0; k < NM_CLAIMS; k++)
        D.claim_free[D.nclaim_free++] = NM_CLAIMS - 1 - k;
    for (int i = 0; i < nm_lay.world_size; i++)
        D.slot_of_world[i] = -1;
    for (int i = 0; i < D.ncl; i++) {
        D.cl[i].posted_tail = &D.cl[i].posted;
        D.cl[i].unexp_tail = &D.cl[i].unexp;
    }

    dlg_delegatee_attr_t at = {0};
    at.max_clients = (unsigned)D.ncl;
    at.ring_slots = 256;
    at.heap_size = (size_t)D.ncl * (size_t)(2u << 20);
    at.idle_policy = DLG_POLICY_POLL;
    at.quantum = 16;
    at.on_client_dead = on_dead;
    int rc = dlg_region_create(DLG_REGION_MEMFD, "mpideleg",
                               dlg_region_need(&at), 0, &D.region);
    if (rc == 0)
        rc = dlg_delegatee_create(D.region, &at, &D.dg);
    if (rc < 0)
        fatal("cannot create the delegation region", -rc);
    D.base = (char *)dlg_region_base(D.region);
    dlg_delegatee_register(D.dg, NM_OP_HELLO, h_hello, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_SEND, h_send, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_RECV, h_recv, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_IPROBE, h_probe, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_IMPROBE, h_probe, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_MRECV, h_mrecv, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_CANCEL, h_cancel, NULL, DLG_POLICY_POLL);
    dlg_delegatee_register(D.dg, NM_OP_FIN, h_fin, NULL, DLG_POLICY_POLL);

    /* Doorbells: ours in a memfd page, everybody's by spec. */
    int nd;
    PMPI_Comm_size(dcomm, &nd);
    int bfd = memfd_create("mpideleg-bell", MFD_CLOEXEC);
    if (bfd < 0 || ftruncate(bfd, 4096) < 0)
        fatal("doorbell", errno);
    D.bell = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, bfd, 0);
    if (D.bell == MAP_FAILED)
        fatal("doorbell", errno);
    D.bell->pid = (int32_t)getpid();
    atomic_store(&D.bell->turn, (uint64_t)(uintptr_t)deleg_client_turn);
    atomic_store(&D.bell->post_turn, (uint64_t)(uintptr_t)deleg_post_turn);
    atomic_store(&D.bell->direct, (uint64_t)(uintptr_t)deleg_direct);
    char bspec[32], *all = malloc((size_t)nd * sizeof bspec);
    D.bells = calloc((size_t)nd, sizeof *D.bells);
    D.peer_seen = calloc((size_t)nd, sizeof *D.peer_seen);
    if (!all || !D.bells || !D.peer_seen)
        fatal("doorbell", ENOMEM);
    D.peer_ticks = ticks_per_5us();
    snprintf(bspec, sizeof bspec, "%d:%d", (int)getpid(), bfd);
    PMPI_Allgather(bspec, (int)sizeof bspec, MPI_CHAR, all, (int)sizeof bspec,
                   MPI_CHAR, dcomm);
    for (int i = 0; i < nd; i++) {
        D.bells[i] = i == D.me ? D.bell : nm_bell_open(all + i * sizeof bspec);
        if (!D.bells[i])
            fatal("doorbell of another delegatee", errno ? errno : EIO);
    }
    free(all);
    cma_setup(nd);
    /* everyone has mapped every doorbell before any is closed */
    PMPI_Barrier(dcomm);

    /* Tell each client where the region and the doorbell are. */
    char spec[128];
    snprintf(spec, sizeof spec, "%s|%s", dlg_region_spec(D.region), bspec);
    for (int i = 0; i < D.ncl; i++)
        PMPI_Send(spec, (int)sizeof spec, MPI_CHAR, first + i, 7, wcomm);
    /* naps of tens of microseconds: 1 us of timer slack, not 50 */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    nm_log("delegatee of ranks %d..%d, region %s", first, nm_lay.world_rank - 1,
           spec);

    struct timespec t_idle = {0, 0};
    unsigned idle_rounds = 0;
    uint64_t spin = dlg_spin_bound_ns();
    atomic_store(&D.more, 1);
    while (atomic_load_explicit(&D.more, memory_order_relaxed)) {
        int n = deleg_turn();
        if (n > 0) {
            idle_rounds = 0;
            continue;
        }
        /* PiP form: while a client thread spins in a wait, it does this
         * thread's work: nap long (5 ms), leaving the cores to the clients
         * (each wake takes one from them for a moment: with naps of 200 us
         * an 8 B ping-pong took 15 % longer, with 1 ms 5 %).  Nobody rings
         * while a client waits; a ring after that ends the nap.  A client that
         * only runs one turn (after posting) is not waiting: try again at once.
         * A client that entered a wait since our last nap, with nothing in
         * flight, is between two waits (a ping-pong sends between its
         * receives): nap again rather than spin with yields that take its
         * core. */
        uint32_t entries =
            atomic_load_explicit(&D.bell->entries, memory_order_relaxed);
        if (D.any_same &&
            (atomic_load_explicit(&D.bell->waiters, memory_order_relaxed) ||
             (entries != D.entries_seen &&
              atomic_load_explicit(&D.may_sleep, memory_order_relaxed)))) {
            D.entries_seen = entries;
            uint32_t seq =
                atomic_load_explicit(&D.bell->seq, memory_order_seq_cst);
            atomic_store_explicit(&D.bell->sleeping, 1, memory_order_seq_cst);
            if (atomic_load_explicit(&D.bell->waiters, memory_order_seq_cst) ||
                deleg_turn() <= 0) {
                struct timespec to = {0, 5000000};
                syscall(SYS_futex, &D.bell->seq, FUTEX_WAIT, seq, &to, NULL, 0);
                D.sleeps++;
            }
            atomic_store_explicit(&D.bell->sleeping, 0, memory_order_relaxed);
            idle_rounds = 0;
            continue;
        }
        if (n < 0) {
            sched_yield();
            continue;
        }
        /* Nothing to do: yield for a while (poll: always); then sleep on
         * the doorbell, which clients and other delegatees ring after
         * handing us work; the timeout bounds what a missed ring (an MPI
         * message not yet visible) can cost.  Never while sends are in
         * flight: their protocol needs our progress and nobody rings. */
        if (!D.idle_adaptive || ++idle_rounds < 64) {
            sched_yield();
            continue;
        }
        if (idle_rounds == 64)
            clock_gettime(CLOCK_MONOTONIC, &t_idle);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ns = (now.tv_sec - t_idle.tv_sec) * 1000000000L +
                  (now.tv_nsec - t_idle.tv_nsec);
        if (ns < (long)spin) {
            sched_yield();
            continue;
        }
        uint32_t seq = atomic_load_explicit(&D.bell->seq, memory_order_seq_cst);
        atomic_store_explicit(&D.bell->sleeping, 1, memory_order_seq_cst);
        int n_sends = 0;
        if (deleg_turn() == 0) {
            /* nothing in flight: sleep until rung (PiP form: short naps, a
             * client's turn may have taken work that a ring was meant
             * for); only sends in flight: look again after 20 us, and
             * leave the CPU meanwhile to whoever moves the other end */
            long nap = 0;
            if (atomic_load_explicit(&D.may_sleep, memory_order_relaxed))
                nap = D.any_same ? 50000 : 2000000;
            else if (atomic_load_explicit(&D.sends_only, memory_order_relaxed))
                nap = 20000, n_sends = 1;
            if (nap) {
                struct timespec to = {0, nap};
                syscall(SYS_futex, &D.bell->seq, FUTEX_WAIT, seq, &to, NULL, 0);
                D.sleeps++;
            }
        }
        atomic_store_explicit(&D.bell->sleeping, 0, memory_order_relaxed);
        /* after a nap for sends, the next idle turn may nap again at once
         * (after the spin bound) */
        idle_rounds = n_sends ? 63 : 0;
    }
    /* keep the turn lock from now on: a client thread still in a wait may
     * try a turn, and our MPI (THREAD_SERIALIZED in the PiP form) is ours
     * again */
    while (atomic_exchange_explicit(&D.bell->busy, 1, memory_order_acquire))
        sched_yield();
    nm_log("delegatee done (%llu sleeps, %llu sends without a copy, %llu "
           "receives filled in place; %llu payloads pulled, %llu pushed, "
           "%llu receives announced)",
           (unsigned long long)D.sleeps, (unsigned long long)D.zsends,
           (unsigned long long)D.drecvs, (unsigned long long)D.pulls,
           (unsigned long long)D.pushes, (unsigned long long)D.announced);
    PMPI_Barrier(dcomm); /* nobody rings a doorbell that is gone */
    for (int i = 0; i < nd; i++)
        if (i != D.me || !D.any_same) /* our clients' turns look at it */
            munmap(D.bells[i], 4096);
    free(D.bells);
    free(D.peer_seen);
    free(D.cma);
    free(D.push);
    free(D.cs);
    free(D.rr);
    free(D.sent_seq);
    free(D.recv_seq);
    while (D.post_free) {
        nm_post_t *p = D.post_free;
        D.post_free = p->next;
        free(p);
    }
    close(bfd);
    dlg_delegatee_destroy(D.dg);
    free(D.treq);
    free(D.tidx);
    free(D.tst);
    free(D.in);
    free(D.out);
    dlg_region_close(D.region);
    PMPI_Comm_free(&wcomm);
    PMPI_Comm_free(&D.pcomm);
    PMPI_Comm_free(&dcomm);
    PMPI_Finalize();
    fflush(NULL);
    if (D.any_same)
        exit(0); /* a PiP task: end this task, not the whole process */
    _exit(0);
}
