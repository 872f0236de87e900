/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_dpay.c: payloads between two delegatee processes of one node
 * (NM_F_CMA): only the header goes through MPI, the payload moves by one
 * process_vm_readv/writev done by whichever side waits (pull, push, or a
 * push into an announced receive, decided by claim words in the receiver's
 * doorbell); the control messages of that protocol, rings of the peers'
 * doorbells, and the check at start that the delegatees may read each
 * other's memory.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "nm_dstate.h"

/* Ring delegatee d after sending to it.  PiP form: a peer with a client
 * spinning in a wait needs no ring; libdeleg trusts that answer for ~5 us
 * (dlg_bell_ring_trusted). */
void nmd_ring_peer(int d)
{
    if (!nm_d.any_same)
        dlg_bell_ring(nm_d.bells[d]);
    else
        dlg_bell_ring_trusted(nm_d.bells[d], &nm_d.peer_seen[d]);
}

/* A short message of the NM_F_CMA protocol to delegatee d (eager: done
 * when it returns).  Always rung (not ring_peer's trust in a client seen
 * spinning): a client that spun a moment ago may compute now, and the
 * other side's thread must take its part of the transfer meanwhile. */
void nmd_ctl_send(int d, int tag, const void *buf, int n)
{
    PMPI_Send(buf, n, MPI_BYTE, d, tag, nm_d.dcomm);
    dlg_bell_ring(nm_d.bells[d]);
}

/* Copy n bytes between our address `local` and `remote` in process pid
 * (write: to it); MPI_SUCCESS or MPI_ERR_BUFFER. */
int nmd_cma_copy(pid_t pid, void *local, uint64_t remote, uint64_t n, int write)
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

/* Receiver: the NM_F_CMA payload of message m (from delegatee m->pend_d)
 * read into `to` of ours; the sender is told (its send completes).  The
 * copy's outcome (MPI_SUCCESS or MPI_ERR_BUFFER). */
int nmd_pull_payload(const nm_msg_t *m, void *to)
{
    pid_t from = (m->hdr.flags & NM_F_CPULL)
                     ? (pid_t)m->hdr.cpid
                     : dlg_bell_pid(nm_d.bells[m->pend_d]);
    int err = nmd_cma_copy(from, to, m->hdr.addr, m->hdr.size, 0);
    nmd_ctl_send(m->pend_d, TAG_FIN, &m->hdr.token, sizeof m->hdr.token);
    nm_d.pulls++;
    return err;
}

/* Receiver: receive r waits for its sender to push the message with header
 * h (TAG_PUSHED completes it). */
void nmd_expect_push(nm_rec_t *r, const nm_hdr_t *h)
{
    nm_d.push = nmd_grow(nm_d.push, &nm_d.cappush, nm_d.npush,
                         sizeof *nm_d.push, "receive");
    nm_d.push[nm_d.npush++] =
        (inq_t){.req = MPI_REQUEST_NULL, .rec = r, .hdr = *h};
}

/* Receiver: r's announcement is over (its claim word was retired): the
 * word goes back to the free ones with its next generation. */
static void rr_free(nm_rec_t *r)
{
    int k = r->rr - 1;
    nm_d.claim_gen[k]++;
    nm_d.claim_free[nm_d.nclaim_free++] = k;
    r->rr = 0;
}

/* Receiver: retire the claim word of r's announcement (a stale claim of
 * the sender fails from now on) and free it. */
void nmd_release_rr(nm_rec_t *r)
{
    if (!r->rr)
        return;
    int k = r->rr - 1;
    atomic_store(&nm_claims(nm_d.bell)[k], (nm_d.claim_gen[k] + 1) << 2);
    rr_free(r);
}

/* Receiver: take receive r to fill it ourselves.  An announced one is
 * ours only if its sender has not claimed it (then it pushes its data
 * there): 0.  Retiring the claim word at once makes a later claim of the
 * sender fail. */
int nmd_claim_rr(nm_rec_t *r)
{
    if (!r->rr)
        return 1;
    int k = r->rr - 1;
    uint32_t want = nm_d.claim_gen[k] << 2;
    if (!atomic_compare_exchange_strong(&nm_claims(nm_d.bell)[k], &want,
                                        (nm_d.claim_gen[k] + 1) << 2))
        return 0;
    rr_free(r);
    return 1;
}

/* The sender of the synchronous message with header h: matched. */
void nmd_send_ack(const nm_hdr_t *h)
{
    if (h->ack_d == nm_d.me) {
        nmd_complete((nm_rec_t *)(uintptr_t)h->token);
        return;
    }
    uint64_t *tok = malloc(sizeof *tok);
    if (!tok)
        nmd_fatal("ack", ENOMEM);
    *tok = h->token;
    outq_t *o = nmd_out_slot();
    o->blk = tok;
    PMPI_Isend(tok, (int)sizeof *tok, MPI_BYTE, h->ack_d, TAG_ACK, nm_d.dcomm,
               &o->req);
    nmd_ring_peer(h->ack_d);
}

/* Receive r got the payload of the message with header h (err: how the
 * transfer went): its status, the sender's ack, done. */
void nmd_recv_done(nm_rec_t *r, const nm_hdr_t *h, int err)
{
    nmd_release_rr(r);
    r->err = err != MPI_SUCCESS ? err
             : h->size > r->len ? MPI_ERR_TRUNCATE
                                : MPI_SUCCESS;
    r->st_src = h->src;
    r->st_tag = h->tag;
    r->st_count = h->size < r->len ? h->size : r->len;
    r->cancelled = 0;
    if (h->flags & NM_F_SYNC)
        nmd_send_ack(h);
    nmd_complete(r);
}

uint32_t *nmd_seq_at(uint32_t *tab, int slot, int world)
{
    return &tab[(size_t)slot * (size_t)nm_lay.world_size + (size_t)world];
}

/* Sender: the announcement for (src, dst, ctx, tag), taken off the list.
 * One whose claim word the receiver has retired meanwhile (its receive was
 * cancelled) is dropped on the way: left there, it would take the place of
 * the next announcement for the same messages. */
int nmd_take_rr(int32_t src, int32_t dst, uint32_t ctx, int32_t tag,
                nm_rr_t *out)
{
    for (int i = 0; i < nm_d.nrr; i++) {
        nm_rr_t *a = &nm_d.rr[i];
        if (a->src != src || a->dst != dst || a->ctx != ctx || a->tag != tag)
            continue;
        uint32_t w = atomic_load_explicit(&nm_claims(nm_d.bells[a->d])[a->slot],
                                          memory_order_relaxed);
        int live = w >> 2 == (a->gen & 0x3fffffffu);
        if (live)
            *out = *a;
        memmove(a, a + 1, sizeof *a * (size_t)(nm_d.nrr - i - 1));
        nm_d.nrr--;
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
    nm_d.nattached++;
}

/* Sender: our NM_F_CMA send of record r is done with; its entry goes. */
static void csend_drop(nm_rec_t *r)
{
    for (int i = 0; i < nm_d.ncs; i++) {
        if (nm_d.cs[i].rec == r) {
            nm_d.nattached -= nm_d.cs[i].has_rr;
            nm_d.cs[i] = nm_d.cs[--nm_d.ncs];
            return;
        }
    }
    nmd_fatal("completion of an unknown send", EPROTO);
}

/* Sender: write len bytes of our NM_F_CMA send r into the receive buffer
 * raddr of delegatee d's process, tell d (its record rtoken completes),
 * and complete the send. */
static void push_payload(nm_rec_t *r, int d, uint64_t raddr, uint64_t rtoken,
                         uint64_t len)
{
    int err = nmd_cma_copy(dlg_bell_pid(nm_d.bells[d]),
                           (void *)(uintptr_t)r->addr, raddr, len, 1);
    nm_pushed_t pu = {.rtoken = rtoken, .err = err};
    csend_drop(r);
    nmd_ctl_send(d, TAG_PUSHED, &pu, (int)sizeof pu);
    nm_d.pushes++;
    r->err = err;
    nmd_complete(r);
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
    int s = a.src >= 0 && a.src < nm_lay.world_size ? nm_d.slot_of_world[a.src]
                                                    : -1;
    if (s < 0 || a.dst < 0 || a.dst >= nm_lay.world_size)
        return;
    uint32_t sent = *nmd_seq_at(nm_d.sent_seq, s, a.dst);
    if (sent == a.seen) {
        nm_d.rr = nmd_grow(nm_d.rr, &nm_d.caprr, nm_d.nrr, sizeof *nm_d.rr,
                           "announcement");
        nm_d.rr[nm_d.nrr++] = a;
        return;
    }
    csend_t *first = NULL;
    for (int i = 0; i < nm_d.ncs; i++) {
        csend_t *e = &nm_d.cs[i];
        if (e->src == a.src && e->dst == a.dst && e->seq > a.seen &&
            e->ctx == a.ctx && e->tag == a.tag &&
            (!first || e->seq < first->seq))
            first = e;
    }
    if (!first || first->has_rr || first->cpull || first->rec->len > a.rlen)
        return;
    uint32_t before = 0;
    for (int i = 0; i < nm_d.ncs; i++)
        before += nm_d.cs[i].src == a.src && nm_d.cs[i].dst == a.dst &&
                  nm_d.cs[i].seq > a.seen && nm_d.cs[i].seq < first->seq;
    if (before == first->seq - a.seen - 1)
        attach_rr(first, &a);
}

/* Sender, in a waiting client's turn: push our sends with an announced
 * receive, each once we hold its claim (the receiver may have claimed it
 * first: then it pulls, or fills it otherwise and retired the claim). */
int nmd_try_push(void)
{
    int n = 0;
    for (int i = 0; i < nm_d.ncs && nm_d.nattached; i++) {
        csend_t *e = &nm_d.cs[i];
        if (!e->has_rr)
            continue;
        e->has_rr = 0;
        nm_d.nattached--;
        uint32_t want = e->rr.gen << 2;
        if (!atomic_compare_exchange_strong(
                &nm_claims(nm_d.bells[e->d])[e->rr.slot], &want, want | 2))
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
void nmd_send_zero_copy(nm_rec_t *r, nm_hdr_t *h, int dst_d, const nm_rr_t *a)
{
    if (nm_d.cma[dst_d] && r->len >= nm_lay.cma_min) {
        /* another process of this node: only the header goes; whichever
         * side waits moves the payload (the receiver's turn pulls it, the
         * receiver asks us to push it, or our waiting client pushes it to
         * the announced receive), and TAG_FIN or our push completes the
         * send */
        h->flags |= NM_F_SPLIT | NM_F_CMA;
        h->addr = r->addr;
        nmd_ctl_send(dst_d, TAG_MSG, h, (int)sizeof *h);
        nm_d.cs =
            nmd_grow(nm_d.cs, &nm_d.capcs, nm_d.ncs, sizeof *nm_d.cs, "send");
        csend_t *e = &nm_d.cs[nm_d.ncs++];
        *e = (csend_t){.rec = r,
                       .d = dst_d,
                       .src = h->src,
                       .dst = h->dst,
                       .ctx = h->ctx,
                       .seq = h->seq,
                       .tag = h->tag};
        if (a && r->len <= a->rlen)
            attach_rr(e, a);
        nm_d.zsends++;
        return;
    }
    nmd_send_split(h, (void *)(uintptr_t)r->addr, r, NULL, dst_d);
    nm_d.zsends++;
}

/* Process form: client `pid`'s send r to a client of delegatee dst_d, a
 * process of this node that may read our memory (nm_d.cma): only the
 * header goes, with the payload's place in our client; the receiving
 * client (or its delegatee, taking over) reads it from there, and TAG_FIN
 * completes the send. */
void nmd_send_cpull(nm_rec_t *r, nm_hdr_t *h, int dst_d, pid_t pid)
{
    h->flags |= NM_F_SPLIT | NM_F_CMA | NM_F_CPULL;
    h->addr = r->addr;
    h->cpid = (int32_t)pid;
    nmd_ctl_send(dst_d, TAG_MSG, h, (int)sizeof *h);
    nm_d.cs = nmd_grow(nm_d.cs, &nm_d.capcs, nm_d.ncs, sizeof *nm_d.cs, "send");
    nm_d.cs[nm_d.ncs++] = (csend_t){.rec = r,
                                    .d = dst_d,
                                    .src = h->src,
                                    .dst = h->dst,
                                    .ctx = h->ctx,
                                    .seq = h->seq,
                                    .tag = h->tag,
                                    .cpull = 1};
    nm_d.cpull_sends++;
}

/* How long a client has to claim an offered pull before its delegatee
 * takes it over (MPI's progress: the client may be in a collective, or
 * computing, while the sender waits). */
#define NM_PULL_GRACE_NS 200000u

/* Receiver, process form: the NM_F_CPULL message m matched receive r of
 * client `slot` (another process): the record completes with the status
 * and the payload's place, which its client reads into its buffer itself
 * (nm_rec_t.pull); frees m. */
void nmd_offer_pull(int slot, nm_msg_t *m, nm_rec_t *r)
{
    uint64_t n = m->hdr.size < r->len ? m->hdr.size : r->len;
    r->err = m->hdr.size > r->len ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    r->st_src = m->hdr.src;
    r->st_tag = m->hdr.tag;
    r->st_count = n;
    r->cancelled = 0;
    r->pull_pid = m->hdr.cpid;
    r->pull_addr = m->hdr.addr;
    r->pull_err = MPI_SUCCESS;
    atomic_store_explicit(&r->pull, NM_PULL_OFFER, memory_order_release);
    nm_d.offers = nmd_grow(nm_d.offers, &nm_d.capoffers, nm_d.noffers,
                           sizeof *nm_d.offers, "receive");
    nm_d.offers[nm_d.noffers++] = (offer_t){.rec = r,
                                            .slot = slot,
                                            .d = m->pend_d,
                                            .token = m->hdr.token,
                                            .t0 = dlg_now_ns()};
    nmd_complete(r);
    nmd_msg_free(m);
}

/* An offered pull taken over: the payload through a buffer of ours, in
 * pieces (read from the sender's client, written to ours). */
static int pull_for_client(offer_t *o)
{
    enum { PIECE = 256 << 10 };
    nm_rec_t *r = o->rec;
    if (!nm_d.stage && !(nm_d.stage = malloc(PIECE)))
        nmd_fatal("staging buffer", ENOMEM);
    int err = MPI_SUCCESS;
    for (uint64_t off = 0; off < r->st_count && err == MPI_SUCCESS;) {
        uint64_t k = r->st_count - off < PIECE ? r->st_count - off : PIECE;
        err = nmd_cma_copy((pid_t)r->pull_pid, nm_d.stage, r->pull_addr + off,
                           k, 0);
        if (err == MPI_SUCCESS)
            err = nmd_cma_copy(nm_d.cl[o->slot].pid, nm_d.stage, r->addr + off,
                               k, 1);
        off += k;
    }
    return err;
}

/* The offered pulls: those their clients have done end the senders'
 * sends; those not claimed within the grace we do ourselves.  The grace
 * runs from the offer or from the last time we saw the client read one
 * of its payloads, whichever is later: a client that reads a window of
 * payloads one after the other keeps the later ones (taken over, each
 * would cost two copies through our buffer while the client waits for
 * it).  Returns the number ended. */
int nmd_progress_offers(void)
{
    int n = 0;
    uint64_t now = dlg_now_ns();
    for (int i = 0; i < nm_d.noffers; i++) {
        uint32_t st = atomic_load_explicit(&nm_d.offers[i].rec->pull,
                                           memory_order_acquire);
        if (st != NM_PULL_OFFER && st != NM_PULL_DELEG)
            nm_d.cl[nm_d.offers[i].slot].pull_seen = now;
    }
    for (int i = 0; i < nm_d.noffers; i++) {
        offer_t *o = &nm_d.offers[i];
        nm_rec_t *r = o->rec;
        uint32_t st = atomic_load_explicit(&r->pull, memory_order_acquire);
        if (st == NM_PULL_OFFER) {
            uint64_t seen = nm_d.cl[o->slot].pull_seen;
            uint32_t want = NM_PULL_OFFER;
            if (now - (seen > o->t0 ? seen : o->t0) < NM_PULL_GRACE_NS ||
                !atomic_compare_exchange_strong(&r->pull, &want, NM_PULL_DELEG))
                continue;
            r->pull_err = pull_for_client(o);
            nm_d.taken_over++;
        } else if (st == NM_PULL_DONE) {
            nm_d.client_pulls++;
        } else {
            continue; /* the client copies */
        }
        nmd_ctl_send(o->d, TAG_FIN, &o->token, sizeof o->token);
        atomic_store_explicit(&r->pull, NM_PULL_RELEASED, memory_order_release);
        nm_d.offers[i--] = nm_d.offers[--nm_d.noffers];
        n++;
    }
    return n;
}

/* The header h alone, then the payload (h->size bytes at data) as a
 * message of its own on pcomm.  When MPI is done with the payload, rec
 * completes (the client's buffer: zero copy) or blk is freed (a copy of
 * ours). */
void nmd_send_split(nm_hdr_t *h, const void *data, nm_rec_t *rec, void *blk,
                    int dst_d)
{
    nm_hdr_t *hb = malloc(sizeof *hb);
    if (!hb)
        nmd_fatal("message header", ENOMEM);
    nm_d.pseq = nm_d.pseq >= 32000 ? 1 : nm_d.pseq + 1;
    h->flags |= NM_F_SPLIT;
    h->ptag = nm_d.pseq;
    *hb = *h;
    outq_t *o = nmd_out_slot();
    o->blk = hb;
    PMPI_Isend(hb, (int)sizeof *hb, MPI_BYTE, dst_d, TAG_MSG, nm_d.dcomm,
               &o->req);
    o = nmd_out_slot();
    o->rec = rec;
    o->blk = blk;
    PMPI_Isend(data, (int)h->size, MPI_BYTE, dst_d, h->ptag, nm_d.pcomm,
               &o->req);
    nmd_ring_peer(dst_d);
}

/* A control message (tag) from delegatee d. */
void nmd_control(int tag, int d, const void *b, int n)
{
    if (tag == TAG_ACK || tag == TAG_FIN) {
        uint64_t tok;
        if (n < (int)sizeof tok)
            nmd_fatal("short control message", EPROTO);
        memcpy(&tok, b, sizeof tok);
        if (tag == TAG_FIN)
            csend_drop((nm_rec_t *)(uintptr_t)tok);
        nmd_complete((nm_rec_t *)(uintptr_t)tok);
    } else if (tag == TAG_RTR) {
        /* push our send's payload into the receiver's buffer */
        nm_rtr_t t;
        if (n < (int)sizeof t)
            nmd_fatal("short control message", EPROTO);
        memcpy(&t, b, sizeof t);
        nm_rec_t *r = (nm_rec_t *)(uintptr_t)t.token;
        push_payload(r, d, t.raddr, t.rtoken,
                     t.size < r->len ? t.size : r->len);
    } else if (tag == TAG_PUSHED) {
        nm_pushed_t p;
        if (n < (int)sizeof p)
            nmd_fatal("short control message", EPROTO);
        memcpy(&p, b, sizeof p);
        for (int i = 0; i < nm_d.npush; i++) {
            if ((uint64_t)(uintptr_t)nm_d.push[i].rec == p.rtoken) {
                nmd_recv_done(nm_d.push[i].rec, &nm_d.push[i].hdr, p.err);
                nm_d.push[i] = nm_d.push[--nm_d.npush];
                return;
            }
        }
        nmd_fatal("push of an unknown receive", EPROTO);
    } else if (tag == TAG_RR) {
        nm_rr_t a;
        if (n < (int)sizeof a)
            nmd_fatal("short control message", EPROTO);
        memcpy(&a, b, sizeof a);
        got_rr(d, &a);
    } else {
        nmd_fatal("message with an unknown tag", EPROTO);
    }
}

/* Receiver: announce receive r of client `slot`, just posted, to the
 * delegatee of its source when that may push a NM_F_CMA message straight
 * into it: a big receive from one source with one tag, and no receive
 * posted before it that the next such message could match. */
void nmd_announce(int slot, nm_rec_t *r)
{
    dclient_t *c = &nm_d.cl[slot];
    if (nm_lay.cma_mode == NM_CMA_PULL || !nmd_big_recv(c, r) || r->peer < 0 ||
        r->peer >= nm_lay.world_size || r->tag < 0 || !nm_d.nclaim_free)
        return;
    int d = nm_dcomm_rank_of(r->peer);
    if (d == nm_d.me || !nm_d.cma[d])
        return;
    for (nm_post_t *p = c->posted; p && p->rec != r; p = p->next)
        if (p->rec->ctx == r->ctx &&
            (p->rec->peer < 0 || p->rec->peer == r->peer) &&
            (p->rec->tag < 0 || p->rec->tag == r->tag))
            return;
    int k = nm_d.claim_free[--nm_d.nclaim_free];
    atomic_store(&nm_claims(nm_d.bell)[k], nm_d.claim_gen[k] << 2);
    r->rr = k + 1;
    nm_rr_t a = {.ctx = r->ctx,
                 .src = r->peer,
                 .dst = c->world,
                 .tag = r->tag,
                 .seen = *nmd_seq_at(nm_d.recv_seq, slot, r->peer),
                 .slot = k,
                 .gen = nm_d.claim_gen[k],
                 .raddr = r->addr,
                 .rlen = r->len,
                 .rtoken = (uint64_t)(uintptr_t)r};
    nmd_ctl_send(d, TAG_RR, &a, (int)sizeof a);
    nm_d.announced++;
}

/* nm_d.cma[d]: delegatee d runs in another process of this node and each of
 * us can read the other's memory (process_vm_readv of a known word; a
 * kernel or a ptrace policy may forbid it): NM_F_CMA messages between us.
 * Collective over the delegatees. */
void nmd_cma_setup(int nd)
{
    static const uint64_t probe = 0x6d70696465c1e9aull;
    uint64_t mine = (uint64_t)(uintptr_t)&probe, *addr;
    int *can = calloc((size_t)nd, sizeof *can);
    nm_d.cma = calloc((size_t)nd, sizeof *nm_d.cma);
    addr = malloc((size_t)nd * sizeof *addr);
    if (!can || !nm_d.cma || !addr)
        nmd_fatal("setup", ENOMEM);
    PMPI_Allgather(&mine, 1, MPI_UINT64_T, addr, 1, MPI_UINT64_T, nm_d.dcomm);
    for (int d = 0; d < nd && nm_lay.cma_min; d++) {
        uint64_t v = 0;
        can[d] = d != nm_d.me &&
                 dlg_bell_pid(nm_d.bells[d]) != (int32_t)getpid() &&
                 nmd_cma_copy(dlg_bell_pid(nm_d.bells[d]), &v, addr[d],
                              sizeof v, 0) == MPI_SUCCESS &&
                 v == probe;
    }
    PMPI_Alltoall(can, 1, MPI_INT, nm_d.cma, 1, MPI_INT, nm_d.dcomm);
    for (int d = 0; d < nd; d++)
        nm_d.cma[d] = nm_d.cma[d] && can[d];
    free(can);
    free(addr);
}
