/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_clone.c: deep copies of a protocol node, for the simulator's
 * state-space exploration (fta_sim.c).
 */
#include <stdlib.h>
#include <string.h>
#include "fta_int.h"

/* Deep copies, for the simulator's state-space exploration. */
static int agg_clone(agg_t *dst, const agg_t *src, size_t ulen)
{
    memset(dst, 0, sizeof *dst);
    dst->has = src->has;
    dst->value = src->value;
    dst->minack = src->minack;
    dst->has_dec = src->has_dec;
    dst->bdec = src->bdec;
    int rc = rset_copy(&dst->F, &src->F);
    if (rc >= 0 && src->has_dec)
        rc = fta_dec_copy(&dst->dec, &src->dec, ulen);
    if (rc >= 0 && ulen && src->ubuf) {
        if (!(dst->ubuf = malloc(ulen)))
            return -ENOMEM;
        memcpy(dst->ubuf, src->ubuf, ulen);
    }
    return rc;
}

static int inst_clone(const inst_t *I, inst_t **out, size_t ulen)
{
    inst_t *J = calloc(1, sizeof *J);
    if (!J)
        return -ENOMEM;
    *J = *I;
    memset(&J->E, 0, sizeof J->E);
    memset(&J->own, 0, sizeof J->own);
    memset(&J->dec, 0, sizeof J->dec);
    memset(&J->fgot, 0, sizeof J->fgot);
    memset(&J->fagg, 0, sizeof J->fagg);
    J->slots = NULL;
    J->nslots = J->capslots = 0;
    J->next = NULL;
    int rc = rset_copy(&J->E, &I->E);
    if (rc >= 0)
        rc = agg_clone(&J->own, &I->own, ulen);
    if (rc >= 0)
        rc = rset_copy(&J->fgot, &I->fgot);
    if (rc >= 0)
        rc = agg_clone(&J->fagg, &I->fagg, ulen);
    if (rc >= 0 && I->decided)
        rc = fta_dec_copy(&J->dec, &I->dec, ulen);
    if (rc >= 0 && I->nslots) {
        J->slots = calloc(I->nslots, sizeof *J->slots);
        if (!J->slots)
            rc = -ENOMEM;
        for (uint32_t i = 0; rc >= 0 && i < I->nslots; i++) {
            J->slots[i].child = I->slots[i].child;
            rc = agg_clone(&J->slots[i].agg, &I->slots[i].agg, ulen);
            J->nslots = i + 1;
        }
        J->capslots = I->nslots;
    }
    if (rc < 0) {
        fta_inst_free(J);
        return rc;
    }
    *out = J;
    return 0;
}

int fta_node_clone(const fta_node_t *n, void *ctx, fta_node_t **out)
{
    fta_node_t *c = calloc(1, sizeof *c);
    if (!c)
        return -ENOMEM;
    *c = *n;
    c->ctx = ctx;
    c->insts = NULL;
    c->pend = NULL;
    c->scratch = NULL;
    c->scratch_cap = 0;
    memset(&c->dead, 0, sizeof c->dead);
    memset(&c->rv_sent, 0, sizeof c->rv_sent);
    int rc = rset_copy(&c->dead, &n->dead);
    if (rc >= 0)
        rc = rset_copy(&c->rv_sent, &n->rv_sent);
    inst_t **ip = &c->insts;
    for (const inst_t *I = n->insts; rc >= 0 && I; I = I->next) {
        rc = inst_clone(I, ip, n->cfg.ulen);
        if (rc >= 0)
            ip = &(*ip)->next;
    }
    pend_t **pp = &c->pend;
    for (const pend_t *p = n->pend; rc >= 0 && p; p = p->next) {
        pend_t *q = malloc(sizeof *q + p->len);
        if (!q) {
            rc = -ENOMEM;
            break;
        }
        memcpy(q, p, sizeof *q + p->len);
        q->next = NULL;
        *pp = q;
        pp = &q->next;
    }
    if (rc < 0) {
        fta_node_destroy(c);
        return rc;
    }
    *out = c;
    return 0;
}
