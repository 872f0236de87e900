/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_core.c: the agreement and revoke state machine.
 *
 * Agreement (Early Returning Agreement with ballots).  Each instance runs
 * in ballots; the ballot number is the rank of its root, the lowest live
 * member of the base.  In a ballot every member waits for an UP message
 * from each of its children in its view, merges them with its own
 * contribution and sends an UP to its parent; the root decides and sends
 * DOWN messages back along the tree; a member returns as soon as it has
 * the DOWN (early return).  A failure below a member is spliced out (the
 * orphans send their UP to their nearest live ancestor, which re-sends its
 * aggregate); the failure of the root starts the next ballot: the new root
 * and every member whose view changes re-collect fresh UPs.
 *
 * Why survivors always agree: a member promises its ballot and never
 * accepts a DOWN of a lower ballot afterwards.  An UP carries the
 * decision of the member if it has one, and a root that finds decisions in
 * its aggregate decides the one of the highest ballot.  If a surviving
 * member s decided v in ballot b, every root of a later ballot b' got a
 * fresh UP of s (s is alive, so it is waited for): s either had decided
 * before it sent it, so the root sees (v, b) and, by induction over the
 * ballots in between, decides v; or s promised b' first and then could not
 * have accepted v in b < b'.  Decided members keep answering (and take part
 * in later ballots of) an instance until the next instance is decided:
 * then every member alive at that point had decided it, and the state is
 * garbage-collected.
 *
 * Revoke: reliable broadcast over the binomial graph of the live members;
 * a revoked member sends to each neighbour once, and again to the new
 * neighbours when a failure changes the graph, so the revocation reaches
 * every live member if any live member has it.
 */
#include <stdlib.h>
#include <string.h>
#include "fta_int.h"

#define ME(n) ((n)->cfg.rank)

/*
 * The simulator's own test (tests/test_fta_sim_seeded.sh) builds the core
 * with FTA_SEEDED_BUG and picks one deliberately broken variant with
 * FTA_SEEDED_VARIANT (default 1): 1, a member does not wait for its last
 * child's UP; 2, a root decides from its aggregate even when an UP carries
 * an earlier ballot's decision (it does not adopt it).  The library never
 * has them.
 */
#ifdef FTA_SEEDED_BUG
#include <stdlib.h>
static int seeded_bug(int variant)
{
    const char *e = getenv("FTA_SEEDED_VARIANT");
    return (e && *e ? atoi(e) : 1) == variant;
}
#else
#define seeded_bug(variant) 0
#endif

int fta_note_dead(fta_node_t *n, uint32_t r, int *dirty)
{
    if (r >= n->cfg.size || r == ME(n))
        return 0;
    int rc = rset_add(&n->dead, r);
    if (rc > 0)
        *dirty = 1;
    return rc < 0 ? rc : 0;
}

static int send_msg(fta_node_t *n, uint32_t dest, uint32_t type,
                    uint32_t ballot, uint64_t inst, const agg_t *agg,
                    const dec_t *dec)
{
    if (dest == ME(n) || dest >= n->cfg.size || rset_has(&n->dead, dest))
        return 0;
    wbuf_t w = {n->scratch, 0, n->scratch_cap, 0};
    wb_u32(&w, FTA_MAGIC | type);
    wb_u32(&w, ballot);
    wb_u64(&w, inst);
    if (agg)
        fta_enc_agg(&w, agg, n->cfg.ulen);
    if (dec)
        fta_enc_dec(&w, dec, n->cfg.ulen);
    n->scratch = w.p;
    n->scratch_cap = w.cap;
    if (w.err)
        return w.err;
    n->st.msgs_sent++;
    n->st.bytes_sent += w.len;
    (void)n->ops.send(n->ctx, dest, w.p, w.len);
    return 0;
}

inst_t *fta_inst_find(const fta_node_t *n, uint64_t id)
{
    for (inst_t *I = n->insts; I; I = I->next)
        if (I->id == id)
            return I;
    return NULL;
}

static void slots_clear(inst_t *I)
{
    for (uint32_t i = 0; i < I->nslots; i++)
        fta_agg_clear(&I->slots[i].agg);
    I->nslots = 0;
}

void fta_inst_free(inst_t *I)
{
    slots_clear(I);
    free(I->slots);
    rset_free(&I->E);
    fta_agg_clear(&I->own);
    fta_agg_clear(&I->fagg);
    rset_free(&I->fgot);
    fta_dec_clear(&I->dec);
    free(I);
}

int fta_inst_create(fta_node_t *n, uint64_t id, const rset_t *E)
{
    inst_t *I = calloc(1, sizeof *I);
    if (!I)
        return -ENOMEM;
    I->id = id;
    int rc = rset_copy(&I->E, E);
    if (rc < 0) {
        fta_inst_free(I);
        return rc;
    }
    I->active = 1;
    I->ballot = FTA_BALLOT(fta_view_root(n, I));
    I->fast = n->cfg.fast != 0;
    inst_t **pp = &n->insts;
    while (*pp && (*pp)->id < id)
        pp = &(*pp)->next;
    I->next = *pp;
    *pp = I;
    return 0;
}

static slot_t *slot_find(inst_t *I, uint32_t child)
{
    for (uint32_t i = 0; i < I->nslots; i++)
        if (I->slots[i].child == child)
            return &I->slots[i];
    return NULL;
}

static int send_to_set(fta_node_t *n, const rset_t *s, uint32_t type,
                       uint32_t ballot, uint64_t inst, const dec_t *dec)
{
    for (uint32_t i = 0; i < s->n; i++) {
        int rc = send_msg(n, s->v[i], type, ballot, inst, NULL, dec);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int new_ballot(fta_node_t *n, inst_t *I, uint32_t b)
{
    rset_t ch = {0};
    I->ballot = b;
    I->active = 1;
    I->sent = 0;
    I->gen++;
    slots_clear(I);
    n->st.ballots++;
    int rc = fta_view_children(n, I, ME(n), &ch);
    if (rc >= 0)
        rc = send_to_set(n, &ch, FTA_MSG_QUERY, b, I->id, NULL);
    rset_free(&ch);
    return rc;
}

/* A message of ballot b tells that every base member numbered below the
 * root of b is dead (b's owner knew it: failure reports are trusted). */
static int adopt_below(fta_node_t *n, inst_t *I, uint32_t b, int *dirty)
{
    for (uint32_t r = 0; r + 1 < b; r++) {
        if (rset_has(&I->E, r))
            continue;
        int rc = fta_note_dead(n, r, dirty);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int decide_inst(fta_node_t *n, inst_t *I, const dec_t *d, int *dirty)
{
    int rc = fta_dec_copy(&I->dec, d, n->cfg.ulen);
    if (rc < 0)
        return rc;
    I->decided = 1;
    *dirty = 1;
    for (uint32_t i = 0; i < d->F.n; i++)
        if ((rc = fta_note_dead(n, d->F.v[i], dirty)) < 0)
            return rc;
    if (n->ops.decided) {
        fta_decision_t pub = {I->dec.value, I->dec.rc, I->dec.F.n, I->dec.F.v,
                              I->dec.ubuf};
        n->ops.decided(n->ctx, I->id, &pub);
    }
    return 0;
}

/* Send the decision down: to the children in our view and to every member
 * that sent us an UP in this ballot (it waits for us). */
static int send_down(fta_node_t *n, inst_t *I, uint32_t b)
{
    rset_t to = {0};
    int rc = fta_view_children(n, I, ME(n), &to);
    for (uint32_t i = 0; rc >= 0 && i < I->nslots; i++)
        rc = rset_add(&to, I->slots[i].child);
    if (rc >= 0)
        rc = send_to_set(n, &to, FTA_MSG_DOWN, b, I->id, &I->dec);
    rset_free(&to);
    return rc;
}

static int build_agg(fta_node_t *n, inst_t *I, const rset_t *ch, agg_t *a)
{
    int rc = fta_agg_merge(n, a, &I->own);
    if (rc >= 0)
        rc = rset_union(&a->F, &n->dead);
    if (rc >= 0 && I->decided && !a->has_dec) {
        a->has_dec = 1;
        a->bdec = I->done_ballot;
        rc = fta_dec_copy(&a->dec, &I->dec, n->cfg.ulen);
    }
    for (uint32_t i = 0; rc >= 0 && i < ch->n; i++)
        rc = fta_agg_merge(n, a, &slot_find(I, ch->v[i])->agg);
    return rc;
}

static int root_decide(fta_node_t *n, inst_t *I, agg_t *a, int *dirty)
{
    int rc = 0;
    if (!I->decided) {
        dec_t d = {0};
        if (a->has_dec && !seeded_bug(2)) {
            rc = fta_dec_copy(&d, &a->dec, n->cfg.ulen);
        } else {
            d.value = a->value;
            d.rc = a->minack == a->F.n ? 0 : FTA_EPROCFAILED;
            rc = rset_copy(&d.F, &a->F);
            if (rc >= 0 && n->cfg.ulen) {
                d.ubuf = malloc(n->cfg.ulen);
                if (d.ubuf)
                    memcpy(d.ubuf, a->ubuf, n->cfg.ulen);
                else
                    rc = -ENOMEM;
            }
        }
        if (rc >= 0)
            rc = decide_inst(n, I, &d, dirty);
        fta_dec_clear(&d);
    } else if (a->has_dec && !fta_dec_equal(&a->dec, &I->dec, n->cfg.ulen)) {
        n->st.conflicts++;
    }
    if (rc < 0)
        return rc;
    I->active = 0;
    I->done_ballot = I->ballot;
    return send_down(n, I, I->ballot);
}

/* Fast path.  Every member sends its contribution to every member of the
 * base; a member holding all of them, and knowing no failure beyond the
 * base, decides their aggregate (failed set: the base's) in ballot 0.
 * A member that learns of a failure beyond the base, or gets a tree
 * message, leaves the fast phase for good and takes part in the tree
 * protocol of the instance (a member that decided on the fast path joins
 * it like a decided member joins a later ballot: its UP carries its
 * decision).  Why survivors still agree: all fast decisions are the same
 * aggregate; a live fast-decided member s decided before it left the fast
 * phase, hence before any UP it sends, so every UP of s carries (v, 0);
 * a tree root decides from the aggregate only when no UP in it carries a
 * decision, and it waits for a fresh UP of every live member, so with s
 * alive it adopts the highest-ballot decision, which by induction over
 * the ballots (as for the tree protocol) is v. */
static int beyond_base(const fta_node_t *n, const inst_t *I)
{
    for (uint32_t i = 0; i < n->dead.n; i++)
        if (!rset_has(&I->E, n->dead.v[i]))
            return 1;
    return 0;
}

static void fast_leave(inst_t *I, int *dirty)
{
    I->fast = 0;
    if (I->decided) {
        I->active = 1;
        I->sent = 0;
        I->gen++;
    }
    *dirty = 1;
}

static int fast_eval(fta_node_t *n, inst_t *I, int *dirty)
{
    if (!I->contributed || I->decided)
        return 0;
    int rc = 0;
    if (!I->fast_sent) {
        I->fast_sent = 1;
        for (uint32_t r = 0; rc >= 0 && r < n->cfg.size; r++)
            if (r != ME(n) && !rset_has(&I->E, r))
                rc = send_msg(n, r, FTA_MSG_FAST, 0, I->id, &I->own, NULL);
        if (rc < 0)
            return rc;
    }
    if (I->fgot.n + I->E.n + 1 != n->cfg.size)
        return 0;
    agg_t a = {0};
    dec_t d = {0};
    rc = fta_agg_merge(n, &a, &I->own);
    if (rc >= 0)
        rc = fta_agg_merge(n, &a, &I->fagg);
    if (rc >= 0)
        rc = rset_copy(&d.F, &I->E);
    if (rc >= 0 && n->cfg.ulen) {
        if ((d.ubuf = malloc(n->cfg.ulen)))
            memcpy(d.ubuf, a.ubuf, n->cfg.ulen);
        else
            rc = -ENOMEM;
    }
    if (rc >= 0) {
        d.value = a.value;
        d.rc = a.minack == I->E.n ? 0 : FTA_EPROCFAILED;
        I->active = 0;
        I->done_ballot = 0;
        n->st.fast++;
        rc = decide_inst(n, I, &d, dirty);
    }
    fta_dec_clear(&d);
    fta_agg_clear(&a);
    return rc;
}

static int on_fast(fta_node_t *n, inst_t *I, uint32_t src, rbuf_t *r,
                   int *dirty)
{
    agg_t a = {0};
    int rc = fta_dec_agg(r, &a, n->cfg.ulen, n->cfg.size);
    if (rc < 0 || !a.has || a.has_dec || a.F.n) {
        fta_agg_clear(&a);
        return rc < 0 ? rc : FTA_EPROTO;
    }
    if (I->fast && !rset_has(&I->fgot, src)) {
        if ((rc = rset_add(&I->fgot, src)) >= 0)
            rc = fta_agg_merge(n, &I->fagg, &a);
        *dirty = 1;
    }
    fta_agg_clear(&a);
    return rc < 0 ? rc : 0;
}

static int inst_eval(fta_node_t *n, inst_t *I, int *dirty)
{
    int rc = 0;
    if (I->fast && beyond_base(n, I))
        fast_leave(I, dirty);
    if (!I->active)
        return 0;
    if (I->fast)
        return fast_eval(n, I, dirty);
    uint32_t r = FTA_BALLOT(fta_view_root(n, I));
    if (r > I->ballot && (rc = new_ballot(n, I, r)) < 0)
        return rc;
    if (!I->contributed)
        return 0;
    rset_t ch = {0};
    agg_t a = {0};
    if ((rc = fta_view_children(n, I, ME(n), &ch)) < 0)
        goto out;
    for (uint32_t i = 0; i < ch.n; i++)
        if (!slot_find(I, ch.v[i])) {
#ifdef FTA_SEEDED_BUG
            /* Seeded bug 1: the last child is not waited for, so a member
             * may go on (and a root decide) without a live child's
             * contribution. */
            if (seeded_bug(1) && i + 1 == ch.n) {
                ch.n--;
                break;
            }
#endif
            goto out; /* still waiting */
        }
    if ((rc = build_agg(n, I, &ch, &a)) < 0)
        goto out;
    if (I->ballot == FTA_BALLOT(ME(n))) {
        rc = root_decide(n, I, &a, dirty);
    } else {
        uint32_t parent;
        if (!fta_view_parent(n, I, ME(n), &parent))
            goto out;
        if (!I->sent || I->sent_to != parent || I->sent_gen != I->gen) {
            rc = send_msg(n, parent, FTA_MSG_UP, I->ballot, I->id, &a, NULL);
            I->sent = 1;
            I->sent_to = parent;
            I->sent_gen = I->gen;
        }
    }
out:
    fta_agg_clear(&a);
    rset_free(&ch);
    return rc;
}

static int pend_add(fta_node_t *n, uint32_t src, uint64_t inst, const void *buf,
                    size_t len)
{
    pend_t *p = malloc(sizeof *p + len);
    if (!p)
        return -ENOMEM;
    p->src = src;
    p->inst = inst;
    p->len = len;
    memcpy(p->buf, buf, len);
    pend_t **pp = &n->pend;
    while (*pp)
        pp = &(*pp)->next;
    p->next = NULL;
    *pp = p;
    return 0;
}

static int on_up(fta_node_t *n, inst_t *I, uint32_t src, uint32_t b, rbuf_t *r,
                 int *dirty)
{
    agg_t a = {0};
    int rc = fta_dec_agg(r, &a, n->cfg.ulen, n->cfg.size);
    if (rc < 0)
        goto out;
    if (b > I->ballot) {
        if ((rc = adopt_below(n, I, b, dirty)) < 0 ||
            (rc = new_ballot(n, I, b)) < 0)
            goto out;
    }
    if (!I->active) {
        rc = send_msg(n, src, FTA_MSG_DOWN, I->done_ballot, I->id, NULL,
                      &I->dec);
    } else if (b < I->ballot) {
        rc = send_msg(n, src, FTA_MSG_QUERY, I->ballot, I->id, NULL, NULL);
    } else {
        slot_t *s = slot_find(I, src);
        if (!s) {
            if (I->nslots == I->capslots) {
                uint32_t cap = I->capslots ? I->capslots * 2 : 4;
                slot_t *v = realloc(I->slots, cap * sizeof *v);
                if (!v) {
                    rc = -ENOMEM;
                    goto out;
                }
                I->slots = v;
                I->capslots = cap;
            }
            s = &I->slots[I->nslots++];
            s->child = src;
        } else {
            fta_agg_clear(&s->agg);
        }
        s->agg = a;
        memset(&a, 0, sizeof a);
        I->gen++;
        *dirty = 1;
    }
out:
    fta_agg_clear(&a);
    return rc;
}

static int on_down(fta_node_t *n, inst_t *I, uint32_t b, rbuf_t *r, int *dirty)
{
    dec_t d = {0};
    int rc = fta_dec_dec(r, &d, n->cfg.ulen, n->cfg.size);
    if (rc < 0 || b < I->ballot)
        goto out; /* promised a later ballot: ignore */
    if (b > I->ballot) {
        if ((rc = adopt_below(n, I, b, dirty)) < 0)
            goto out;
        I->ballot = b;
    }
    if (!I->decided) {
        if ((rc = decide_inst(n, I, &d, dirty)) < 0)
            goto out;
    } else if (!fta_dec_equal(&d, &I->dec, n->cfg.ulen)) {
        n->st.conflicts++;
    }
    if (I->active || I->done_ballot != b) {
        I->active = 0;
        I->done_ballot = b;
        rc = send_down(n, I, b);
    }
    *dirty = 1;
out:
    fta_dec_clear(&d);
    return rc;
}

int fta_handle_msg(fta_node_t *n, uint32_t src, const void *buf, size_t len,
                   int *dirty)
{
    rbuf_t r = {buf, len, 0, 0};
    uint32_t tw = rb_u32(&r), b = rb_u32(&r);
    uint64_t id = rb_u64(&r);
    uint32_t type = tw & 0xffu;
    int rc = 0;
    if (r.err || (tw & 0xffffff00u) != FTA_MAGIC || src >= n->cfg.size ||
        b > n->cfg.size || type < FTA_MSG_UP || type > FTA_MSG_FAST)
        return FTA_EPROTO;
    if (rset_has(&n->dead, src) || src == ME(n))
        return 0;
    if (type == FTA_MSG_REVOKE) {
        if (!n->revoked) {
            n->revoked = 1;
            *dirty = 1;
            if (n->ops.revoked)
                n->ops.revoked(n->ctx);
        }
        return 0;
    }
    if (id == 0)
        return FTA_EPROTO;
    if (id < n->lwm) {
        n->st.dropped++;
        if (n->ops.dropped)
            n->ops.dropped(n->ctx, src, id);
        return 0;
    }
    inst_t *I = fta_inst_find(n, id);
    if (!I)
        return pend_add(n, src, id, buf, len);
    if (type == FTA_MSG_FAST)
        return b ? FTA_EPROTO : on_fast(n, I, src, &r, dirty);
    if (b == 0 ? type != FTA_MSG_DOWN : rset_has(&I->E, b - 1))
        return FTA_EPROTO;
    if (I->fast)
        fast_leave(I, dirty); /* somebody runs the tree protocol */
    switch (type) {
    case FTA_MSG_UP:
        rc = on_up(n, I, src, b, &r, dirty);
        break;
    case FTA_MSG_DOWN:
        rc = on_down(n, I, b, &r, dirty);
        break;
    case FTA_MSG_QUERY:
        if (b > I->ballot) {
            if ((rc = adopt_below(n, I, b, dirty)) >= 0)
                rc = new_ballot(n, I, b);
            *dirty = 1;
        } else if (!I->active && b <= I->done_ballot) {
            rc = send_msg(n, src, FTA_MSG_DOWN, I->done_ballot, I->id, NULL,
                          &I->dec);
        }
        break;
    }
    return rc;
}

static int revoke_spread(fta_node_t *n)
{
    rset_t nb = {0};
    int rc = fta_bmg_neighbors(n, &nb);
    for (uint32_t i = 0; rc >= 0 && i < nb.n; i++) {
        if (rset_has(&n->rv_sent, nb.v[i]) || nb.v[i] == ME(n))
            continue;
        rc = rset_add(&n->rv_sent, nb.v[i]);
        if (rc >= 0)
            rc = send_msg(n, nb.v[i], FTA_MSG_REVOKE, 0, 0, NULL, NULL);
    }
    rset_free(&nb);
    return rc < 0 ? rc : 0;
}

/* Bring every instance up to date with what the node knows; repeat until
 * nothing changes. */
int fta_settle(fta_node_t *n, int dirty)
{
    int rc = 0, guard = 0;
    while (dirty && rc >= 0 && guard++ < 1000000) {
        dirty = 0;
        for (inst_t *I = n->insts; rc >= 0 && I; I = I->next) {
            if (I->active) {
                for (uint32_t i = 0; i < I->nslots;) {
                    if (rset_has(&n->dead, I->slots[i].child)) {
                        fta_agg_clear(&I->slots[i].agg);
                        I->slots[i] = I->slots[--I->nslots];
                        I->gen++;
                    } else {
                        i++;
                    }
                }
            }
            rc = inst_eval(n, I, &dirty);
        }
        /* A decided instance opens the next one (its base excludes the
         * decided failures) and collects the one before it. */
        for (inst_t *I = n->insts; rc >= 0 && I; I = I->next) {
            if (!I->decided || fta_inst_find(n, I->id + 1))
                continue;
            rc = fta_inst_create(n, I->id + 1, &I->dec.F);
            dirty = 1;
            for (pend_t **pp = &n->pend; rc >= 0 && *pp;) {
                pend_t *p = *pp;
                if (p->inst != I->id + 1) {
                    pp = &p->next;
                    continue;
                }
                *pp = p->next;
                rc = fta_handle_msg(n, p->src, p->buf, p->len, &dirty);
                free(p);
            }
            break;
        }
        while (n->insts && n->insts->next && n->insts->next->decided) {
            inst_t *I = n->insts;
            n->insts = I->next;
            n->lwm = I->id + 1;
            fta_inst_free(I);
        }
        for (pend_t **pp = &n->pend; *pp;) {
            pend_t *p = *pp;
            if (p->inst < n->lwm) {
                *pp = p->next;
                n->st.dropped++;
                if (n->ops.dropped)
                    n->ops.dropped(n->ctx, p->src, p->inst);
                free(p);
            } else {
                pp = &p->next;
            }
        }
        if (rc >= 0 && n->revoked)
            rc = revoke_spread(n);
    }
    return rc;
}
