/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_slide.c: the substitution methods.
 *
 * 0D: the rank of the failed node moves to the idle node at the shortest
 * Manhattan distance.  Ties go to the side (per dimension, + or -) used
 * least by earlier 0D substitutions, so that failures in one row or column
 * take spares from alternating sides, as the paper prescribes; then to the
 * lowest node index.
 *
 * kD (k >= 1), sliding along dimension i in direction d: the slab is the
 * set of nodes that agree with the failed node p in dimension i and in every
 * dimension outside a set J of k-1 other dimensions (J varies freely).
 * From each slab node that hosts a rank (and from p, whose rank must move)
 * the ranks along the line in direction d shift by one node, until the
 * first idle node absorbs the last of them; failed nodes on the way are
 * skipped (the rank before one moves over it to the next healthy node), so
 * that, as in the paper, a third 1D failure can always slide along the
 * direction not used yet.  The option is not applicable when a line meets
 * the edge of a mesh (or goes all round a torus) before an idle node.  Slab
 * nodes that are idle or failed start no line.  Nodes left empty by the shift
 * become idle and serve later failures (the "gap" of the paper's hybrid
 * method).  With k = ndims this is the paper's qD sliding of the whole
 * hyperplane, used at most qd_limit times (by default once per spare
 * layer, as in the paper); with k = 1 it is 1D sliding of one row.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "spare_int.h"

/* Build the plan of one kD option into cand_*; returns its number of moves
 * or -1 when not applicable. */
static long slide_plan(spare_map_t *m, long p, long prank, int i, int dir,
                       unsigned jmask)
{
    const spare_topo_t *t = m->topo;
    int pc[SPARE_MAX_DIMS], c[SPARE_MAX_DIMS];
    spare_coords_of(t, p, pc);
    int free_dims[SPARE_MAX_DIMS], nfree = 0;
    for (int j = 0; j < t->ndims; j++)
        if (jmask & (1u << j))
            free_dims[nfree++] = j;
    for (int j = 0; j < t->ndims; j++)
        c[j] = pc[j];
    for (int j = 0; j < nfree; j++)
        c[free_dims[j]] = 0;
    long n = 0;
    long step = t->stride[i];
    int size = t->size[i];
    for (;;) {
        long q = spare_index_of(t, c);
        long carry = q == p ? prank : m->node_rank[q];
        if (carry >= 0) {
            long cur = q;
            int x = c[i];
            for (;;) {
                long nxt;
                if (dir > 0) {
                    if (x + 1 == size) {
                        if (!t->torus[i])
                            return -1;
                        x = 0;
                        nxt = cur - step * (size - 1);
                    } else {
                        x++;
                        nxt = cur + step;
                    }
                } else {
                    if (x == 0) {
                        if (!t->torus[i])
                            return -1;
                        x = size - 1;
                        nxt = cur + step * (size - 1);
                    } else {
                        x--;
                        nxt = cur - step;
                    }
                }
                if (nxt == q)
                    return -1; /* a full ring without an idle node */
                long occ = m->node_rank[nxt];
                if (occ == SPARE_NODE_FAILED) {
                    cur = nxt; /* ranks slide over a failed node */
                    continue;
                }
                m->cand_rank[n] = carry;
                m->cand_to[n] = nxt;
                n++;
                if (occ == SPARE_NODE_IDLE)
                    break;
                carry = occ;
                cur = nxt;
            }
        }
        /* next slab node: odometer over the free dimensions */
        int j = 0;
        for (; j < nfree; j++) {
            int d = free_dims[j];
            if (++c[d] < t->size[d])
                break;
            c[d] = 0;
        }
        if (j == nfree)
            break;
    }
    return n;
}

static void keep_best(spare_map_t *m, long n)
{
    long *tr = m->best_rank, *tt = m->best_to;
    m->best_rank = m->cand_rank;
    m->best_to = m->cand_to;
    m->cand_rank = tr;
    m->cand_to = tt;
    (void)n;
}

static long try_slide(spare_map_t *m, long p, long prank, int k,
                      spare_subst_t *info)
{
    const spare_topo_t *t = m->topo;
    if (k == t->ndims && t->qd_limit != SPARE_QD_UNLIMITED &&
        m->slideqd >= t->qd_limit)
        return -1;
    long best = -1, best_pref = 0;
    int best_i = -1, best_dir = 0;
    for (int i = 0; i < t->ndims; i++) {
        for (int dir = 1; dir >= -1; dir -= 2) {
            for (unsigned jm = 0; jm < (1u << t->ndims); jm++) {
                if ((jm & (1u << i)) || __builtin_popcount(jm) != k - 1)
                    continue;
                long n = slide_plan(m, p, prank, i, dir, jm);
                if (n < 0)
                    continue;
                /* 1D keeps the slidings uneven: the dimension used most
                 * wins; otherwise (and then) the fewest moved ranks */
                long pref = k == 1 ? m->slide1d[i] : 0;
                if (best < 0 || pref > best_pref ||
                    (pref == best_pref && n < best)) {
                    best = n;
                    best_pref = pref;
                    best_i = i;
                    best_dir = dir;
                    keep_best(m, n);
                }
            }
        }
    }
    if (best < 0)
        return -1;
    if (k == 1)
        m->slide1d[best_i]++;
    if (k == t->ndims)
        m->slideqd++;
    info->degree = k;
    info->dim = best_i;
    info->dir = best_dir;
    info->moved = best;
    info->spare = k == 1 ? m->best_to[best - 1] : -1;
    return best;
}

/* Signed shortest displacement from a to b in one dimension. */
static int disp(const spare_topo_t *t, int i, int a, int b)
{
    int d = b - a;
    if (t->torus[i]) {
        int n = t->size[i];
        int fwd = (d % n + n) % n;
        d = fwd <= n - fwd ? fwd : fwd - n;
    }
    return d;
}

static long try_0d(spare_map_t *m, long p, long prank, spare_subst_t *info)
{
    const spare_topo_t *t = m->topo;
    if (m->nidle == 0)
        return -1;
    int pc[SPARE_MAX_DIMS], c[SPARE_MAX_DIMS];
    spare_coords_of(t, p, pc);
    long best = -1, best_dist = LONG_MAX, best_score = LONG_MAX;
    for (long k = 0; k < m->nidle; k++) {
        long v = m->idle[k];
        spare_coords_of(t, v, c);
        long dist = 0, score = 0;
        for (int i = 0; i < t->ndims; i++) {
            int d = disp(t, i, pc[i], c[i]);
            dist += abs(d);
            if (d)
                score += m->side0d[i][d < 0];
        }
        if (dist < best_dist ||
            (dist == best_dist &&
             (score < best_score || (score == best_score && v < best)))) {
            best = v;
            best_dist = dist;
            best_score = score;
        }
    }
    spare_coords_of(t, best, c);
    for (int i = 0; i < t->ndims; i++) {
        int d = disp(t, i, pc[i], c[i]);
        if (d)
            m->side0d[i][d < 0]++;
    }
    m->best_rank[0] = prank;
    m->best_to[0] = best;
    info->degree = 0;
    info->dim = -1;
    info->dir = 0;
    info->moved = 1;
    info->spare = best;
    return 1;
}

int spare_subst_run(spare_map_t *map, long node, long rank, spare_subst_t *out)
{
    for (int k = 0; k < map->method.count; k++) {
        int deg = map->method.degree[k];
        long n = deg == 0 ? try_0d(map, node, rank, out)
                          : try_slide(map, node, rank, deg, out);
        if (n > 0)
            return (int)n;
    }
    return -ENOSPC;
}
