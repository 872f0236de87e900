/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_tree.c: rank sets, the agreement tree and the revoke graph.
 *
 * The agreement tree of an instance is a k-ary heap over the members not
 * excluded by earlier decisions (the base), numbered by rank order.  Every
 * member derives its parent and children from the base and the failures it
 * knows, so all members splice a dead process out the same way: a node
 * connects to its nearest live ancestor, and nodes left without a live
 * ancestor connect to the lowest-numbered live member, the root.
 */
#include <stdlib.h>
#include <string.h>
#include "fta_int.h"

static uint32_t rset_lower(const rset_t *s, uint32_t x)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int rset_add(rset_t *s, uint32_t x)
{
    uint32_t i = rset_lower(s, x);
    if (i < s->n && s->v[i] == x)
        return 0;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 4;
        uint32_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
    s->v[i] = x;
    s->n++;
    return 1;
}

int rset_has(const rset_t *s, uint32_t x)
{
    uint32_t i = rset_lower(s, x);
    return i < s->n && s->v[i] == x;
}

uint32_t rset_below(const rset_t *s, uint32_t x)
{
    return rset_lower(s, x);
}

int rset_union(rset_t *dst, const rset_t *src)
{
    for (uint32_t i = 0; i < src->n; i++) {
        int rc = rset_add(dst, src->v[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int rset_copy(rset_t *dst, const rset_t *src)
{
    dst->n = 0;
    return rset_union(dst, src);
}

int rset_equal(const rset_t *a, const rset_t *b)
{
    return a->n == b->n &&
           (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

void rset_free(rset_t *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

/* Rank of the idx-th member of the base (the members not in E). */
uint32_t fta_rank_of(const rset_t *E, uint32_t idx)
{
    uint32_t r = idx;
    for (uint32_t i = 0; i < E->n && E->v[i] <= r; i++)
        r++;
    return r;
}

static uint32_t index_of(const rset_t *E, uint32_t rank)
{
    return rank - rset_below(E, rank);
}

static uint32_t base_size(const fta_node_t *n, const inst_t *I)
{
    return n->cfg.size - I->E.n;
}

static int idx_live(const fta_node_t *n, const inst_t *I, uint32_t idx)
{
    return !rset_has(&n->dead, fta_rank_of(&I->E, idx));
}

uint32_t fta_view_root(const fta_node_t *n, const inst_t *I)
{
    uint32_t nb = base_size(n, I);
    for (uint32_t idx = 0; idx < nb; idx++)
        if (idx_live(n, I, idx))
            return fta_rank_of(&I->E, idx);
    return n->cfg.rank; /* everybody else is dead */
}

int fta_view_parent(const fta_node_t *n, const inst_t *I, uint32_t p,
                    uint32_t *parent)
{
    uint32_t a = n->cfg.arity;
    uint32_t idx = index_of(&I->E, p);
    while (idx > 0) {
        idx = (idx - 1) / a;
        if (idx_live(n, I, idx)) {
            *parent = fta_rank_of(&I->E, idx);
            return 1;
        }
    }
    uint32_t root = fta_view_root(n, I);
    if (root == p)
        return 0;
    *parent = root;
    return 1;
}

/* Live frontier below idx: children, through dead ones, recursively. */
static int frontier(const fta_node_t *n, const inst_t *I, uint32_t idx,
                    rset_t *out)
{
    uint32_t a = n->cfg.arity, nb = base_size(n, I);
    for (uint32_t k = 1; k <= a; k++) {
        uint64_t c = (uint64_t)idx * a + k;
        if (c >= nb)
            break;
        if (idx_live(n, I, (uint32_t)c)) {
            int rc = rset_add(out, fta_rank_of(&I->E, (uint32_t)c));
            if (rc < 0)
                return rc;
        } else {
            int rc = frontier(n, I, (uint32_t)c, out);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int fta_view_children(const fta_node_t *n, const inst_t *I, uint32_t p,
                      rset_t *out)
{
    out->n = 0;
    int rc = frontier(n, I, index_of(&I->E, p), out);
    if (rc < 0 || fta_view_root(n, I) != p || !base_size(n, I))
        return rc;
    /* The root also adopts the tops of the subtrees that lost every
     * ancestor. */
    if (idx_live(n, I, 0))
        return 0;
    rset_t top = {0};
    rc = frontier(n, I, 0, &top);
    for (uint32_t i = 0; rc >= 0 && i < top.n; i++)
        if (top.v[i] != p)
            rc = rset_add(out, top.v[i]);
    rset_free(&top);
    return rc < 0 ? rc : 0;
}

/* Binomial graph over `live` members numbered 0..live-1: member j is
 * linked to j +- 2^i (mod live).  The live indices of me's neighbours go
 * to out (at most max; 2 ceil(log2 live) suffice); returns how many, each
 * once.  The revoke (fta_bmg_neighbors) and the failure detector's notices
 * (fta_fd.c) both spread over this graph. */
uint32_t fta_bmg_targets(uint32_t live, uint32_t me, uint32_t *out,
                         uint32_t max)
{
    uint32_t k = 0;
    for (uint64_t d = 1; d < live; d *= 2) {
        uint32_t c[2] = {(uint32_t)((me + d) % live),
                         (uint32_t)((me + live - d % live) % live)};
        for (int j = 0; j < 2; j++) {
            int seen = c[j] == me;
            for (uint32_t i = 0; i < k && !seen; i++)
                seen = out[i] == c[j];
            if (!seen && k < max)
                out[k++] = c[j];
        }
    }
    return k;
}

/* Binomial graph over the live members of the node's group. */
int fta_bmg_neighbors(const fta_node_t *n, rset_t *out)
{
    uint32_t live = n->cfg.size - n->dead.n;
    uint32_t me = index_of(&n->dead, n->cfg.rank);
    uint32_t idx[2 * 33];
    uint32_t k = fta_bmg_targets(live, me, idx, 2 * 33);
    out->n = 0;
    for (uint32_t i = 0; i < k; i++) {
        int rc = rset_add(out, fta_rank_of(&n->dead, idx[i]));
        if (rc < 0)
            return rc;
    }
    return 0;
}
