/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_dsend.c: the delegatee's sends: a client's send read from its buffer
 * and sent or delivered, the MPI requests of sends in flight and their
 * progress, and the queue of operations handed over by the clients.
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

/* A short message to another delegatee: one eager message from the stack,
 * done when the call returns (no buffer to keep, no request to test). */
static void send_eager(const nm_hdr_t *hdr, const void *data, int dst_d)
{
    char b[sizeof(nm_hdr_t) + NM_INLINE];
    memcpy(b, hdr, sizeof *hdr);
    memcpy(b + sizeof *hdr, data, hdr->size);
    int n = (int)(sizeof *hdr + hdr->size);
    if (nm_d.any_same) {
        /* PiP form: a sleeping peer naps for at most 50 us, or a client of
         * it spins (a ring before the message would put the read of the
         * peer's doorbell on the latency's path) */
        PMPI_Send(b, n, MPI_BYTE, dst_d, TAG_MSG, nm_d.dcomm);
        nmd_ring_peer(dst_d);
        return;
    }
    /* Process form: the message usually leaves at once (eager); a full
     * queue would keep it until the peer drains it, so then the peer is
     * woken before we wait (it may sleep for up to 2 ms).  One ring, once
     * the message is there: a ring before it would wake the peer for
     * nothing (it goes back to sleep, and the second ring wakes it
     * again). */
    MPI_Request rq;
    int done = 0;
    PMPI_Isend(b, n, MPI_BYTE, dst_d, TAG_MSG, nm_d.dcomm, &rq);
    PMPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    nmd_ring_peer(dst_d);
    if (!done)
        PMPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* Client `slot`'s message h to a client of another delegatee: numbered
 * per pair of clients; an announced receive that it will match is taken
 * into *a (returns 1: a send that can push there uses it, the others drop
 * it and the receiver fills it as usual). */
static int to_other_delegatee(nm_hdr_t *h, int slot, nm_rr_t *a)
{
    h->seq = ++*nmd_seq_at(nm_d.sent_seq, slot, h->dst);
    return nm_d.nrr && nmd_take_rr(h->src, h->dst, h->ctx, h->tag, a);
}

/* NM_OP_SEND_SHORT of client `slot` (PiP form, under the turn lock, with
 * no send queued before it): 0 when sent, 1 when it takes the usual way
 * (a client of ours receives it: the record path delivers it). */
int nmd_send_short(int slot, const nm_short_t *s)
{
    int dst_d = nm_dcomm_rank_of(s->peer);
    if (dst_d == nm_d.me || s->len > NM_INLINE)
        return 1;
    nm_hdr_t hdr = {.ctx = s->ctx,
                    .src = nm_d.cl[slot].world,
                    .dst = s->peer,
                    .tag = s->tag,
                    .size = s->len,
                    .ack_d = nm_d.me};
    nm_rr_t a;
    to_other_delegatee(&hdr, slot, &a);
    send_eager(&hdr, s->buf, dst_d);
    return 0;
}

/* Read a pending send from its client and send or deliver it. */
void nmd_do_send(pend_t *p)
{
    nm_rec_t *r = p->rec;
    dclient_t *c = &nm_d.cl[p->client];
    int sync = (r->flags & NM_F_SYNC) != 0;
    int dst_d = nm_dcomm_rank_of(r->peer);
    int borrow = c->same && r->len && !(r->flags & NM_F_INLINE);
    nm_hdr_t hdr = {.ctx = r->ctx,
                    .src = c->world,
                    .dst = r->peer,
                    .tag = r->tag,
                    .size = r->len,
                    .flags = r->flags & (NM_F_SYNC | NM_F_LOCAL),
                    .ack_d = nm_d.me,
                    .token = (uint64_t)(uintptr_t)r};
    r->err = MPI_SUCCESS;
    if (sizeof(nm_hdr_t) + r->len > INT_MAX)
        nmd_fatal("message larger than 2 GiB", EMSGSIZE);
    nm_rr_t a;
    int announced = dst_d != nm_d.me && to_other_delegatee(&hdr, p->client, &a);
    /* process form, to a delegatee of this node: only the header goes;
     * the receiving client reads the payload from our client's buffer */
    if (!c->same && dst_d != nm_d.me && !sync && nm_d.cma[dst_d] &&
        !(r->flags & (NM_F_INLINE | NM_F_LOCAL)) && nm_lay.cma_min &&
        r->len >= nm_lay.cma_min) {
        nmd_send_cpull(r, &hdr, dst_d, c->pid);
        return;
    }
    if (borrow && !sync && dst_d != nm_d.me) {
        nmd_send_zero_copy(r, &hdr, dst_d, announced ? &a : NULL);
        return;
    }
    if ((r->flags & NM_F_INLINE) && dst_d != nm_d.me) {
        send_eager(&hdr, r->inl, dst_d);
        if (!sync)
            nmd_complete(r);
        return;
    }
    nm_msg_t *m = malloc(sizeof *m);
    /* a local message from a client of our address space is read in place
     * (nmd_arrive() copies it only when it has to wait as unexpected) */
    void *blk = malloc(sizeof(nm_hdr_t) +
                       (borrow && dst_d == nm_d.me ? 0 : r->len) + 1);
    if (!m || !blk)
        nmd_fatal("message buffer", ENOMEM);
    m->blk = blk;
    m->hdr = hdr;
    m->borrowed = borrow && dst_d == nm_d.me;
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
                nmd_complete(r);
                free(blk);
                free(m);
                return;
            }
        }
    }
    memcpy(blk, &m->hdr, sizeof m->hdr);
    if (dst_d == nm_d.me) {
        nmd_arrive(m);
    } else if (sizeof(nm_hdr_t) + r->len > NM_DMSG_MAX) {
        /* longer than the receiver's posted receive: split */
        nmd_send_split(&m->hdr, m->data, NULL, blk, dst_d);
        free(m);
    } else {
        outq_t *o = nmd_out_slot();
        o->blk = blk;
        PMPI_Isend(blk, (int)(sizeof(nm_hdr_t) + r->len), MPI_BYTE, dst_d,
                   TAG_MSG, nm_d.dcomm, &o->req);
        free(m);
        nmd_ring_peer(dst_d);
    }
    /* The data is out of the client's buffer: a standard, buffered or
     * ready send is complete; a synchronous one waits for the match. */
    if (!sync)
        nmd_complete(r);
}

static MPI_Request out_req(int i)
{
    return nm_d.out[i].req;
}

int nmd_progress_sends(void)
{
    int n = 0;
    while (nm_d.pend) {
        pend_t *p = nm_d.pend;
        nm_d.pend = p->next;
        if (!nm_d.pend)
            nm_d.pend_tail = &nm_d.pend;
        nmd_do_send(p);
        free(p);
        n++;
    }
    if (nm_d.nout == 0)
        return n;
    int done = nmd_test_all(nm_d.nout, out_req);
    for (int k = 0; k < done; k++) {
        int i = nm_d.tidx[k];
        if (nm_d.out[i].type != MPI_DATATYPE_NULL)
            PMPI_Type_free(&nm_d.out[i].type);
        if (nm_d.out[i].rec)
            nmd_complete(nm_d.out[i].rec);
        free(nm_d.out[i].blk);
        nm_d.out[i] = nm_d.out[--nm_d.nout];
    }
    return n + done;
}

/* A send of client `slot`: queued for nmd_progress_sends(). */
void nmd_hand_send(int slot, nm_rec_t *r)
{
    pend_t *p = malloc(sizeof *p);
    if (!p) {
        /* posted without waiting for us: the record carries the error */
        r->err = MPI_ERR_NO_MEM;
        nmd_complete(r);
        return;
    }
    p->rec = r;
    p->client = slot;
    p->next = NULL;
    *nm_d.pend_tail = p;
    nm_d.pend_tail = &p->next;
}

/* A receive of client `slot`: the first unexpected message that matches,
 * or posted. */
void nmd_hand_recv(int slot, nm_rec_t *r)
{
    dclient_t *c = &nm_d.cl[slot];
    r->rr = 0;
    nm_msg_t *m = nmd_take_unexpected(c, r, 1);
    if (m) {
        nmd_deliver_to(slot, m, r);
        return;
    }
    nm_post_t *p = nm_d.post_free;
    if (p)
        nm_d.post_free = p->next;
    else
        p = malloc(sizeof *p);
    if (!p) {
        r->err = MPI_ERR_NO_MEM;
        nmd_complete(r);
        return;
    }
    p->rec = r;
    p->next = NULL;
    *c->posted_tail = p;
    c->posted_tail = &p->next;
    nm_d.nbig += nmd_big_recv(c, r);
    nmd_announce(slot, r);
}
