/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_node.c: the core's public API (fta.h): a node's life, starting and
 * testing agreements, feeding it messages and failures, revoking; every
 * call hands the work to the state machine of fta_core.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fta_int.h"

#define ME(n) ((n)->cfg.rank)

int fta_node_create(const fta_config_t *cfg, const fta_ops_t *ops, void *ctx,
                    fta_node_t **out)
{
    if (!cfg || !ops || !ops->send || !out || cfg->size == 0 ||
        cfg->rank >= cfg->size || cfg->arity == 1 || cfg->size > 0x7fffffffu)
        return -EINVAL;
    fta_node_t *n = calloc(1, sizeof *n);
    if (!n)
        return -ENOMEM;
    n->cfg = *cfg;
    if (!n->cfg.arity)
        n->cfg.arity = 2;
    n->ops = *ops;
    n->ctx = ctx;
    n->next_start = 1;
    n->lwm = 1;
    rset_t none = {0};
    int rc = fta_inst_create(n, 1, &none);
    if (rc < 0) {
        free(n);
        return rc;
    }
    *out = n;
    return 0;
}

void fta_node_destroy(fta_node_t *n)
{
    if (!n)
        return;
    while (n->insts) {
        inst_t *I = n->insts;
        n->insts = I->next;
        fta_inst_free(I);
    }
    while (n->pend) {
        pend_t *p = n->pend;
        n->pend = p->next;
        free(p);
    }
    rset_free(&n->dead);
    rset_free(&n->rv_sent);
    free(n->scratch);
    free(n);
}

int fta_agree_start(fta_node_t *n, int32_t value, const void *ubuf,
                    const uint32_t *acked, size_t nacked, uint64_t *inst)
{
    if (!n || (n->cfg.ulen && !ubuf) || (nacked && !acked))
        return -EINVAL;
    inst_t *I = fta_inst_find(n, n->next_start);
    if (!I || I->contributed)
        return -EBUSY;
    int dirty = 1, rc = 0;
    rset_t A = {0};
    for (size_t i = 0; rc >= 0 && i < nacked; i++) {
        if (acked[i] >= n->cfg.size || acked[i] == ME(n))
            rc = -EINVAL;
        else if ((rc = rset_add(&A, acked[i])) >= 0)
            rc = fta_note_dead(n, acked[i], &dirty);
    }
    if (rc >= 0 && n->cfg.ulen && !(I->own.ubuf = malloc(n->cfg.ulen)))
        rc = -ENOMEM;
    if (rc < 0) {
        rset_free(&A);
        return rc;
    }
    if (n->cfg.ulen)
        memcpy(I->own.ubuf, ubuf, n->cfg.ulen);
    I->own.has = 1;
    I->own.value = value;
    I->own.minack = A.n;
    rset_free(&A);
    I->contributed = 1;
    I->gen++;
    if (inst)
        *inst = I->id;
    n->next_start++;
    return fta_settle(n, dirty);
}

int fta_agree_test(fta_node_t *n, uint64_t inst, fta_decision_t *d)
{
    inst_t *I = n ? fta_inst_find(n, inst) : NULL;
    if (!I)
        return -ENOENT;
    if (!I->decided)
        return 0;
    if (d) {
        memset(d, 0, sizeof *d);
        d->value = I->dec.value;
        d->rc = I->dec.rc;
        d->nfailed = I->dec.F.n;
        if (I->dec.F.n) {
            d->failed = malloc(I->dec.F.n * sizeof *d->failed);
            if (!d->failed)
                return -ENOMEM;
            memcpy(d->failed, I->dec.F.v, I->dec.F.n * sizeof *d->failed);
        }
        if (n->cfg.ulen) {
            d->ubuf = malloc(n->cfg.ulen);
            if (!d->ubuf) {
                fta_decision_release(d);
                return -ENOMEM;
            }
            memcpy(d->ubuf, I->dec.ubuf, n->cfg.ulen);
        }
    }
    return 1;
}

void fta_decision_release(fta_decision_t *d)
{
    if (!d)
        return;
    free(d->failed);
    free(d->ubuf);
    memset(d, 0, sizeof *d);
}

int fta_node_recv(fta_node_t *n, uint32_t src, const void *buf, size_t len)
{
    if (!n || (!buf && len))
        return -EINVAL;
    int dirty = 0;
    int rc = fta_handle_msg(n, src, buf, len, &dirty);
    int rc2 = fta_settle(n, dirty);
    return rc < 0 ? rc : rc2;
}

int fta_node_failed(fta_node_t *n, uint32_t r)
{
    if (!n || r >= n->cfg.size)
        return -EINVAL;
    int dirty = 0;
    int rc = fta_note_dead(n, r, &dirty);
    if (rc < 0)
        return rc;
    return fta_settle(n, dirty);
}

int fta_revoke(fta_node_t *n)
{
    if (!n)
        return -EINVAL;
    if (n->revoked)
        return 0;
    n->revoked = 1;
    if (n->ops.revoked)
        n->ops.revoked(n->ctx);
    return fta_settle(n, 1);
}

int fta_is_revoked(const fta_node_t *n)
{
    return n && n->revoked;
}

size_t fta_node_known_failed(const fta_node_t *n, uint32_t *out, size_t max)
{
    for (size_t i = 0; out && i < max && i < n->dead.n; i++)
        out[i] = n->dead.v[i];
    return n->dead.n;
}

int fta_node_is_failed(const fta_node_t *n, uint32_t r)
{
    return rset_has(&n->dead, r);
}

void fta_node_get_stats(const fta_node_t *n, fta_stats_t *st)
{
    *st = n->st;
}

uint64_t fta_node_low_water(const fta_node_t *n)
{
    return n->lwm;
}

const char *fta_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
    case FTA_EPROCFAILED:
        return "a process failed that not every member acknowledged";
    case FTA_EREVOKED:
        return "the group was revoked";
    case FTA_EPROTO:
        return "malformed protocol message";
    case -EINVAL:
        return "invalid argument";
    case -ENOMEM:
        return "out of memory";
    case -EBUSY:
        return "the previous agreement is not decided here yet";
    case -ENOENT:
        return "no such agreement instance (never started or collected)";
    default:
        return "unknown error";
    }
}
