/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_dstate.h: the delegatee's state and what its files share.  The files
 * are layered, each using only those below it (calls and data):
 * - nm_dbase.c: the state (nm_d), completion of a record, fatal errors,
 *   growing arrays, the queue of MPI sends in flight, testing requests;
 * - nm_dpay.c: payloads between two processes of a node (pull, push,
 *   announced receives and their claim words), the control messages
 *   between delegatees (acks too), rings of the peers' doorbells, and the
 *   completion of a receive whose payload is in (nmd_recv_done);
 * - nm_dmatch.c: the matching engine (posted receives and unexpected
 *   messages per client, delivery) and the messages that arrive from other
 *   delegatees;
 * - nm_dsend.c: sends, and the operations the clients hand over;
 * - nm_deleg.c: setup, the loop, turns and the handlers of the clients'
 *   requests (nm_delegatee_main, called by MPI_Init).
 */
#ifndef NM_DSTATE_H
#define NM_DSTATE_H

#include "nm_internal.h"

#define NM_HIDDEN __attribute__((visibility("hidden")))

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
/* process form: several short TAG_MSG messages in one (nmd_pack_flush) */
#define TAG_PACK 7

/* The largest message between delegatees on dcomm: every message there
 * fits the receive each delegatee keeps posted (nmd_progress_incoming);
 * a message with a longer payload goes split (header, then the payload on
 * pcomm). */
#define NM_DMSG_MAX 4096

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
    int cpull; /* NM_F_CPULL: the payload is in our client (no push) */
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

/* A receive whose payload (NM_F_CPULL) its client was offered to pull
 * (nm_rec_t.pull), from the sending delegatee d's send `token`. */
typedef struct {
    nm_rec_t *rec;
    int slot, d;
    uint64_t token;
    uint64_t t0; /* when offered (ns) */
} offer_t;

typedef struct nm_post {
    nm_rec_t *rec;
    struct nm_post *next;
} nm_post_t;

typedef struct {
    int used, fin;
    int world;
    pid_t pid;
    int same;           /* shares our address space (PiP tasks of one root) */
    uint64_t pull_seen; /* process form: when we last saw it read an
                           offered payload (ns) */
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

typedef struct {
    MPI_Comm dcomm;
    MPI_Comm pcomm;     /* payloads of split messages, tag = hdr.ptag */
    int32_t pseq;       /* last payload tag used */
    MPI_Request in_req; /* the posted receive of every dcomm message */
    char *in_buf;       /* its buffer, NM_DMSG_MAX bytes */
    inq_t *in;          /* receives being filled (nin of capin) */
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
    /* process form: sleep after a few idle rounds (adaptive, spin); spin:
     * poll on while all our clients sleep in a wait */
    int quick_idle, spin_asleep;
    atomic_int more;       /* the loop goes on (set by every turn) */
    atomic_int may_sleep;  /* nothing in flight (set by every turn) */
    atomic_int sends_only; /* only sends in flight (set by every turn) */
    int any_same;          /* some client shares our address space */
    uint32_t posted_seen;  /* bell->posted when the rings were last empty */
    inq_t *push;           /* receives the senders were asked to push */
    int npush, cappush;
    csend_t *cs; /* our NM_F_CMA sends not yet taken */
    int ncs, capcs;
    int nattached; /* of them, with an announcement to push to */
    nm_rr_t *rr;   /* announcements not yet attached to a send */
    int nrr, caprr;
    uint32_t *sent_seq;   /* [client slot * world size + dst world rank] */
    uint32_t *recv_seq;   /* [client slot * world size + src world rank] */
    int nbig;             /* posted receives nmd_big_recv() */
    nm_post_t *post_free; /* unused entries of the posted queues */
    int *cma;             /* per delegatee: NM_F_CMA both ways */
    int turn_kind;        /* who runs this turn (TURN_*) */
    nm_rec_t *own;        /* the record deleg_direct hands over */
    char *base;           /* dlg_region_base(region) */
    uint64_t pulls, pushes, announced;
    offer_t *offers; /* receives offered to their clients to pull */
    int noffers, capoffers;
    char *stage; /* a pull taken over: readv here, then writev */
    uint64_t cpull_sends, client_pulls, taken_over;
    int pack_on;            /* MPIDELEG_PACK: short messages packed */
    uint64_t packs, packed; /* MPI messages of packed ones, and those */
    uint64_t *peer_seen;    /* per delegatee: tick when it had a spinning
                               client (PiP form) */
    MPI_Request *treq;      /* scratch of nmd_test_all() */
    int *tidx, captest;
    MPI_Status *tst;
    dlg_bell_t *bell;   /* ours */
    dlg_bell_t **bells; /* every delegatee's, by dcomm rank */
    /* last: out of the way of the fields every message uses */
    uint32_t claim_gen[NM_CLAIMS]; /* our claim words: generations */
    int claim_free[NM_CLAIMS], nclaim_free;
} nm_dstate_t;

/* the one delegatee of this process */
extern nm_dstate_t nm_d NM_HIDDEN;

/* A receive that a NM_F_CMA message could fill in place: its client,
 * waiting, spins (it will copy the data itself) instead of sleeping. */
static inline int nmd_big_recv(const dclient_t *c, const nm_rec_t *r)
{
    return c->same && nm_lay.cma_min && !(r->flags & NM_F_INLINE) &&
           r->len >= nm_lay.cma_min;
}

/* ---- nm_dbase.c: completion, errors, tables, testing requests ---- */
NM_HIDDEN void nmd_complete(nm_rec_t *r);
NM_HIDDEN void nmd_fatal(const char *what, int err);
NM_HIDDEN void *nmd_grow(void *a, int *cap, int n, size_t size,
                         const char *what);
NM_HIDDEN outq_t *nmd_out_slot(void);
NM_HIDDEN int nmd_test_all(int n, MPI_Request (*get)(int i));

/* ---- nm_dpay.c: payloads between processes, control messages, peers'
 * doorbells ---- */
NM_HIDDEN void nmd_ring_peer(int d);
NM_HIDDEN void nmd_ctl_send(int d, int tag, const void *buf, int n);
NM_HIDDEN int nmd_cma_copy(pid_t pid, void *local, uint64_t remote, uint64_t n,
                           int write);
NM_HIDDEN int nmd_pull_payload(const nm_msg_t *m, void *to);
NM_HIDDEN void nmd_expect_push(nm_rec_t *r, const nm_hdr_t *h);
NM_HIDDEN void nmd_release_rr(nm_rec_t *r);
NM_HIDDEN int nmd_claim_rr(nm_rec_t *r);
NM_HIDDEN void nmd_send_ack(const nm_hdr_t *h);
NM_HIDDEN void nmd_recv_done(nm_rec_t *r, const nm_hdr_t *h, int err);
NM_HIDDEN uint32_t *nmd_seq_at(uint32_t *tab, int slot, int world);
NM_HIDDEN int nmd_take_rr(int32_t src, int32_t dst, uint32_t ctx, int32_t tag,
                          nm_rr_t *out);
NM_HIDDEN int nmd_try_push(void);
NM_HIDDEN void nmd_send_zero_copy(nm_rec_t *r, nm_hdr_t *h, int dst_d,
                                  const nm_rr_t *a);
NM_HIDDEN void nmd_send_split(nm_hdr_t *h, const void *data, nm_rec_t *rec,
                              void *blk, int dst_d);
NM_HIDDEN void nmd_control(int tag, int d, const void *b, int n);
NM_HIDDEN void nmd_announce(int slot, nm_rec_t *r);
NM_HIDDEN void nmd_cma_setup(int nd);
NM_HIDDEN void nmd_send_cpull(nm_rec_t *r, nm_hdr_t *h, int dst_d, pid_t pid);
NM_HIDDEN void nmd_offer_pull(int slot, nm_msg_t *m, nm_rec_t *r);
NM_HIDDEN int nmd_progress_offers(void);

/* ---- nm_dmatch.c: matching engine, incoming messages ---- */
NM_HIDDEN void nmd_msg_free(nm_msg_t *m);
NM_HIDDEN nm_rec_t *nmd_unpost(dclient_t *c, nm_post_t **pp);
NM_HIDDEN void nmd_deliver_to(int slot, nm_msg_t *m, nm_rec_t *r);
NM_HIDDEN void nmd_arrive(nm_msg_t *m);
NM_HIDDEN nm_msg_t *nmd_take_unexpected(dclient_t *c, const nm_rec_t *r,
                                        int remove);
NM_HIDDEN void nmd_drop_pending(void);
NM_HIDDEN int nmd_progress_recvs(void);
NM_HIDDEN int nmd_progress_incoming(int client);
NM_HIDDEN void nmd_incoming_start(void);
NM_HIDDEN void nmd_incoming_end(void);
NM_HIDDEN int nmd_send_short(int slot, const nm_short_t *s);

/* ---- nm_dsend.c: sends, the clients' operations ---- */
NM_HIDDEN void nmd_do_send(pend_t *p);
NM_HIDDEN void nmd_pack_flush(void);
NM_HIDDEN int nmd_progress_sends(void);
NM_HIDDEN void nmd_hand_send(int slot, nm_rec_t *r);
NM_HIDDEN void nmd_hand_recv(int slot, nm_rec_t *r);

#endif /* NM_DSTATE_H */
