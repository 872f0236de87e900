/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_dmatch.c: the delegatee's matching engine: posted receives and
 * unexpected messages per client, delivery into a receive (in place, from
 * MPI, or staged), synchronous-send acknowledgements, and the messages
 * that arrive from other delegatees.
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

static int match(const nm_hdr_t *h, const nm_rec_t *r)
{
    return h->ctx == r->ctx && (r->peer < 0 || r->peer == h->src) &&
           (r->tag < 0 || r->tag == h->tag);
}

/* Take the posted receive *pp of client c off its queue. */
nm_rec_t *nmd_unpost(dclient_t *c, nm_post_t **pp)
{
    nm_post_t *p = *pp;
    nm_rec_t *r = p->rec;
    *pp = p->next;
    if (!*pp)
        c->posted_tail = pp;
    nm_d.nbig -= nmd_big_recv(c, r);
    p->next = nm_d.post_free; /* kept for the next receive: no malloc/free */
    nm_d.post_free = p;
    return r;
}

/* Receiver: r's sender pushes message m there (it claimed r); r completes
 * with TAG_PUSHED. */
static void await_push(nm_msg_t *m, nm_rec_t *r)
{
    if (!(m->hdr.flags & NM_F_CMA))
        nmd_fatal("an announced receive was claimed for another message",
                  EPROTO);
    nmd_expect_push(r, &m->hdr);
    nmd_msg_free(m);
}

/* Take the payload of a split message into a buffer of ours (staging). */
static void fetch_payload(nm_msg_t *m)
{
    void *nb = realloc(m->blk, sizeof(nm_hdr_t) + m->hdr.size + 1);
    if (!nb)
        nmd_fatal("incoming message", ENOMEM);
    m->blk = nb;
    m->data = (char *)nb + sizeof(nm_hdr_t);
    if (m->hdr.flags & NM_F_CMA) {
        if (nmd_pull_payload(m, m->data) != MPI_SUCCESS)
            nmd_fatal("reading a message from the sender's process", EFAULT);
    } else {
        PMPI_Recv(m->data, (int)m->hdr.size, MPI_BYTE, m->pend_d, m->hdr.ptag,
                  nm_d.pcomm, MPI_STATUS_IGNORE);
    }
    m->pend_d = -1;
}

/* A message for local client `slot` arrived: match or queue it. */
void nmd_arrive(nm_msg_t *m)
{
    int slot = m->hdr.dst >= 0 && m->hdr.dst < nm_lay.world_size
                   ? nm_d.slot_of_world[m->hdr.dst]
                   : -1;
    if (slot < 0) {
        fprintf(stderr, "mpideleg: delegatee got a message for rank %d\n",
                m->hdr.dst);
        nmd_msg_free(m);
        return;
    }
    dclient_t *c = &nm_d.cl[slot];
    for (nm_post_t **pp = &c->posted; *pp; pp = &(*pp)->next) {
        if (match(&m->hdr, (*pp)->rec)) {
            nmd_deliver_to(slot, m, nmd_unpost(c, pp));
            return;
        }
    }
    if (m->borrowed) {
        /* the sender's buffer is lent only for this call */
        void *blk = malloc(sizeof(nm_hdr_t) + m->hdr.size + 1);
        if (!blk)
            nmd_fatal("unexpected message", ENOMEM);
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
            nmd_fatal("unexpected message", ENOMEM);
        *h = *m;
        h->on_stack = 0;
        m = h;
    }
    m->next = NULL;
    *c->unexp_tail = m;
    c->unexp_tail = &m->next;
}

nm_msg_t *nmd_take_unexpected(dclient_t *c, const nm_rec_t *r, int remove)
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

/* Receive the payload of split message m (still in MPI, from delegatee
 * m->pend_d) straight into the buffer of receive r of client `slot`, when
 * that client shares our address space and the buffer holds it all (not
 * inline); frees m.  Returns 0 (nothing done) otherwise. */
static int recv_in_place(nm_msg_t *m, nm_rec_t *r, int slot)
{
    if (!nm_d.cl[slot].same || (r->flags & NM_F_INLINE) || m->hdr.size > r->len)
        return 0;
    if (m->hdr.flags & NM_F_CMA) {
        nm_d.drecvs++;
        /* the side that waits copies: a client of ours that waits (this
         * is its CPU), or our own thread when no client of the sender
         * spins; a client handing a receive over goes on computing, and a
         * spinning client of the sender has a CPU to spare: it pushes */
        int pull = nm_lay.cma_mode == NM_CMA_PULL;
        if (nm_lay.cma_mode == NM_CMA_AUTO)
            pull = nm_d.turn_kind == TURN_WAIT ||
                   (nm_d.turn_kind == TURN_THREAD &&
                    !dlg_bell_waiters(nm_d.bells[m->pend_d]));
        /* a process-form sender's payload is in its client: only read */
        if (m->hdr.flags & NM_F_CPULL)
            pull = 1;
        if (pull) {
            nmd_recv_done(r, &m->hdr,
                          nmd_pull_payload(m, (void *)(uintptr_t)r->addr));
        } else {
            nmd_expect_push(r, &m->hdr);
            nm_rtr_t t = {.token = m->hdr.token,
                          .raddr = r->addr,
                          .rtoken = (uint64_t)(uintptr_t)r,
                          .size = m->hdr.size};
            nmd_ctl_send(m->pend_d, TAG_RTR, &t, (int)sizeof t);
        }
        nmd_msg_free(m);
        return 1;
    }
    nm_d.in =
        nmd_grow(nm_d.in, &nm_d.capin, nm_d.nin, sizeof *nm_d.in, "receive");
    inq_t *q = &nm_d.in[nm_d.nin++];
    q->rec = r;
    q->hdr = m->hdr;
    PMPI_Irecv((void *)(uintptr_t)r->addr, (int)m->hdr.size, MPI_BYTE,
               m->pend_d, m->hdr.ptag, nm_d.pcomm, &q->req);
    nm_d.drecvs++;
    nmd_msg_free(m);
    return 1;
}

/* Copy message m into the receive described by r; free m. */
void nmd_deliver_to(int slot, nm_msg_t *m, nm_rec_t *r)
{
    if (!nmd_claim_rr(r)) {
        await_push(m, r);
        return;
    }
    if (m->pend_d >= 0 && (m->hdr.flags & NM_F_CPULL) &&
        !(r->flags & NM_F_INLINE) && !nm_d.cl[slot].same) {
        nmd_offer_pull(slot, m, r);
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
        } else if (nm_d.cl[slot].same) {
            memcpy((void *)(uintptr_t)r->addr, m->data, n);
        } else {
            struct iovec lo = {m->data, n};
            struct iovec re = {(void *)(uintptr_t)r->addr, n};
            ssize_t w = process_vm_writev(nm_d.cl[slot].pid, &lo, 1, &re, 1, 0);
            if (w != (ssize_t)n)
                r->err = MPI_ERR_BUFFER;
        }
    }
    r->st_src = m->hdr.src;
    r->st_tag = m->hdr.tag;
    r->st_count = n;
    r->cancelled = 0;
    if (m->hdr.flags & NM_F_SYNC)
        nmd_send_ack(&m->hdr);
    nmd_complete(r);
    nmd_msg_free(m);
}

/* A split message whose destination has a matching posted receive: let
 * MPI write the payload straight into the receive buffer.  Returns 1 when
 * taken. */
static int take_direct(nm_msg_t *m)
{
    int slot = m->hdr.dst >= 0 && m->hdr.dst < nm_lay.world_size
                   ? nm_d.slot_of_world[m->hdr.dst]
                   : -1;
    if (slot < 0 || !nm_d.cl[slot].same)
        return 0;
    dclient_t *c = &nm_d.cl[slot];
    nm_post_t **pp = &c->posted;
    while (*pp && !match(&m->hdr, (*pp)->rec))
        pp = &(*pp)->next;
    if (!*pp)
        return 0;
    nm_rec_t *r = (*pp)->rec;
    if (!nmd_claim_rr(r)) {
        nmd_unpost(c, pp);
        await_push(m, r);
        return 1;
    }
    if (!recv_in_place(m, r, slot))
        return 0; /* nmd_arrive() stages it for that receive */
    nmd_unpost(c, pp);
    return 1;
}

/* After the last client's MPI_Finalize: payloads nobody received are
 * taken and dropped, so that their senders' delegatees can finish. */
void nmd_drop_pending(void)
{
    for (int i = 0; i < nm_d.ncl; i++)
        for (nm_msg_t *m = nm_d.cl[i].unexp; m; m = m->next)
            if (m->pend_d >= 0)
                fetch_payload(m);
}

static MPI_Request in_req(int i)
{
    return nm_d.in[i].req;
}

int nmd_progress_recvs(void)
{
    if (nm_d.nin == 0)
        return 0;
    int done = nmd_test_all(nm_d.nin, in_req);
    for (int k = 0; k < done; k++) {
        inq_t *q = &nm_d.in[nm_d.tidx[k]];
        nmd_recv_done(q->rec, &q->hdr, MPI_SUCCESS);
        *q = nm_d.in[--nm_d.nin];
    }
    return done;
}

/* Receiver: the message with header h was taken in. */
static void note_seq(const nm_hdr_t *h)
{
    int s = h->dst >= 0 && h->dst < nm_lay.world_size
                ? nm_d.slot_of_world[h->dst]
                : -1;
    if (s >= 0 && h->src >= 0 && h->src < nm_lay.world_size)
        *nmd_seq_at(nm_d.recv_seq, s, h->src) = h->seq;
}

/* A message that is all here (header h, payload at data, in our posted
 * receive's buffer): read in place; nmd_arrive() copies it only when it
 * has to wait as unexpected. */
static void take_whole(const nm_hdr_t *h, char *data)
{
    note_seq(h);
    nm_msg_t sm = {
        .hdr = *h, .data = data, .borrowed = 1, .on_stack = 1, .pend_d = -1};
    nmd_arrive(&sm);
}

/* TAG_PACK: the messages in it one by one, in their order (nmd_pack_flush
 * in nm_dsend.c). */
static void take_pack(char *b, int n)
{
    int at = 0;
    while (at < n) {
        nm_hdr_t h;
        if (n - at < (int)sizeof h)
            nmd_fatal("packed message without a header", EPROTO);
        memcpy(&h, b + at, sizeof h);
        if ((h.flags & NM_F_SPLIT) || h.size > (uint64_t)(n - at) - sizeof h)
            nmd_fatal("packed message longer than its pack", EPROTO);
        take_whole(&h, b + at + sizeof h);
        at += (int)((sizeof h + h.size + 7) & ~(uint64_t)7);
    }
}

/* One message from delegatee `src` with tag `tag`, n bytes at b (our
 * posted receive's buffer: used only during this call). */
static void take_message(int tag, int src, char *b, int n)
{
    if (tag == TAG_PACK) {
        take_pack(b, n);
        return;
    }
    if (tag != TAG_MSG) {
        nmd_control(tag, src, b, n);
        return;
    }
    if (n < (int)sizeof(nm_hdr_t))
        nmd_fatal("message without a header", EPROTO);
    nm_hdr_t h; /* b may be unaligned */
    memcpy(&h, b, sizeof h);
    if (!(h.flags & NM_F_SPLIT)) {
        take_whole(&h, b + sizeof(nm_hdr_t));
        return;
    }
    note_seq(&h);
    nm_msg_t *m = malloc(sizeof *m);
    void *blk = malloc((size_t)n + 1);
    if (!m || !blk)
        nmd_fatal("incoming message", ENOMEM);
    memcpy(blk, b, (size_t)n);
    m->hdr = h;
    m->blk = blk;
    m->data = (char *)blk + sizeof(nm_hdr_t);
    m->borrowed = 0;
    m->on_stack = 0;
    m->pend_d = src;
    if (take_direct(m))
        return;
    /* No receive to fill in place yet: the payload waits in MPI for one (a
     * receive posted later takes it in place), unless the send must
     * complete without the receiver (buffered). */
    if (m->hdr.flags & NM_F_LOCAL)
        fetch_payload(m);
    nmd_arrive(m);
}

/* Every message between delegatees arrives through one receive we keep
 * posted (any source, any tag, NM_DMSG_MAX bytes: no message is longer),
 * so in MPI's order, as a probe would find them.  MPI_Test runs MPI's
 * progress and then looks at the receive, where MPI_Improbe looks first
 * and runs the progress only when nothing is there (a message the
 * progress took in waits for the next turn), and a message that finds the
 * receive posted is copied there at once instead of into MPI's
 * unexpected queue and out again. */
int nmd_progress_incoming(int client)
{
    int n = 0;
    uint64_t done0 = nm_d.completions;
    for (;;) {
        /* A client's turn stops once a record is complete (most likely
         * the one it waits for: it goes back to it at once, and the
         * receive is posted again at the next turn); our own loop
         * drains. */
        if (client && nm_d.completions != done0)
            return n;
        if (nm_d.in_req == MPI_REQUEST_NULL)
            PMPI_Irecv(nm_d.in_buf, NM_DMSG_MAX, MPI_BYTE, MPI_ANY_SOURCE,
                       MPI_ANY_TAG, nm_d.dcomm, &nm_d.in_req);
        int flag = 0, cnt = 0;
        MPI_Status st;
        PMPI_Test(&nm_d.in_req, &flag, &st);
        if (!flag)
            return n;
        n++;
        PMPI_Get_count(&st, MPI_BYTE, &cnt);
        take_message(st.MPI_TAG, st.MPI_SOURCE, nm_d.in_buf, cnt);
    }
}

/* Before the loop: the posted receive's buffer (posted at the first turn). */
void nmd_incoming_start(void)
{
    nm_d.in_req = MPI_REQUEST_NULL;
    if (!(nm_d.in_buf = malloc(NM_DMSG_MAX)))
        nmd_fatal("message buffer", ENOMEM);
}

/* The end of the loop: the receive is cancelled (what is still on its way
 * is dropped, as are the messages nobody takes). */
void nmd_incoming_end(void)
{
    if (nm_d.in_req != MPI_REQUEST_NULL) {
        PMPI_Cancel(&nm_d.in_req);
        PMPI_Wait(&nm_d.in_req, MPI_STATUS_IGNORE);
    }
    free(nm_d.in_buf);
    nm_d.in_buf = NULL;
}
