/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_load.c: communication patterns and per-link message counts.
 *
 * Loads are kept per phase and directed link, with a histogram of the load
 * values so that the maximum is known after every update without a scan:
 * a failure then costs only the paths of the messages of the ranks that
 * moved, which is what makes large random studies affordable.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spare_int.h"

int spare_pattern_parse(const char *name, int ndims, spare_pattern_kind_t *kind)
{
    if (!name || !kind)
        return -EINVAL;
    if (strcasecmp(name, "5p") == 0 && ndims == 2)
        *kind = SPARE_PAT_STAR;
    else if (strcasecmp(name, "7p") == 0 && ndims == 3)
        *kind = SPARE_PAT_STAR;
    else if (strcasecmp(name, "9p") == 0 && ndims == 2)
        *kind = SPARE_PAT_9P;
    else if (strcasecmp(name, "star") == 0)
        *kind = SPARE_PAT_STAR;
    else if (strcasecmp(name, "allreduce-rd") == 0)
        *kind = SPARE_PAT_ALLREDUCE_RD;
    else if (strcasecmp(name, "barrier-dissem") == 0)
        *kind = SPARE_PAT_BARRIER_DISSEM;
    else
        return -EINVAL;
    return 0;
}

/* Logical neighbour of rank r shifted by off[]; -1 if off the grid. */
static long rank_shift(const spare_topo_t *t, long r, const int *off,
                       int periodic)
{
    long v = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = (int)((r / t->rstride[i]) % t->rsize[i]) + off[i];
        if (c < 0 || c >= t->rsize[i]) {
            if (!periodic)
                return -1;
            c = (c + t->rsize[i]) % t->rsize[i];
        }
        v += c * t->rstride[i];
    }
    return v;
}

/* Adds (or, with only_count, counts) the messages of the pattern. */
static long gen_messages(spare_pattern_t *p, spare_pattern_kind_t kind,
                         int periodic, int only_count)
{
    const spare_topo_t *t = p->topo;
    long n = 0, P = t->nranks;
    int off[SPARE_MAX_DIMS];
#define ADD(ph, s, d)                                                          \
    do {                                                                       \
        if (!only_count) {                                                     \
            p->phase[n] = (ph);                                                \
            p->src[n] = (s);                                                   \
            p->dst[n] = (d);                                                   \
        }                                                                      \
        n++;                                                                   \
    } while (0)
    switch (kind) {
    case SPARE_PAT_STAR:
        p->nphases = 1;
        for (long r = 0; r < P; r++)
            for (int i = 0; i < t->ndims; i++)
                for (int s = -1; s <= 1; s += 2) {
                    memset(off, 0, sizeof(off));
                    off[i] = s;
                    long d = rank_shift(t, r, off, periodic);
                    if (d >= 0 && d != r)
                        ADD(0, r, d);
                }
        break;
    case SPARE_PAT_9P:
        p->nphases = 1;
        for (long r = 0; r < P; r++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    if (!dx && !dy)
                        continue;
                    memset(off, 0, sizeof(off));
                    off[0] = dx;
                    off[1] = dy;
                    long d = rank_shift(t, r, off, periodic);
                    if (d >= 0 && d != r)
                        ADD(0, r, d);
                }
        break;
    case SPARE_PAT_ALLREDUCE_RD:
    case SPARE_PAT_BARRIER_DISSEM: {
        int k = 0;
        for (long b = 1; b < P; b <<= 1, k++)
            for (long r = 0; r < P; r++) {
                long d = kind == SPARE_PAT_ALLREDUCE_RD ? (r ^ b) : (r + b) % P;
                if (d < P)
                    ADD(k, r, d);
            }
        p->nphases = k > 0 ? k : 1;
        break;
    }
    }
#undef ADD
    return n;
}

int spare_pattern_create(const spare_topo_t *topo, spare_pattern_kind_t kind,
                         int periodic, spare_pattern_t **patp)
{
    if (!topo || !patp)
        return -EINVAL;
    if (kind != SPARE_PAT_STAR && kind != SPARE_PAT_9P &&
        kind != SPARE_PAT_ALLREDUCE_RD && kind != SPARE_PAT_BARRIER_DISSEM)
        return -EINVAL;
    if (kind == SPARE_PAT_9P && topo->ndims != 2)
        return -EINVAL;
    spare_pattern_t *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->topo = topo;
    long n = gen_messages(p, kind, periodic, 1);
    size_t un = (size_t)(n > 0 ? n : 1);
    p->phase = malloc(sizeof(int) * un);
    p->src = malloc(sizeof(long) * un);
    p->dst = malloc(sizeof(long) * un);
    p->off = calloc((size_t)topo->nranks + 1, sizeof(long));
    p->idx = malloc(sizeof(long) * 2 * un);
    if (!p->phase || !p->src || !p->dst || !p->off || !p->idx) {
        spare_pattern_destroy(p);
        return -ENOMEM;
    }
    p->nmsgs = gen_messages(p, kind, periodic, 0);
    /* CSR of the messages each rank takes part in */
    for (long m = 0; m < p->nmsgs; m++) {
        p->off[p->src[m] + 1]++;
        if (p->dst[m] != p->src[m])
            p->off[p->dst[m] + 1]++;
    }
    for (long r = 0; r < topo->nranks; r++)
        p->off[r + 1] += p->off[r];
    long *fill = calloc((size_t)topo->nranks, sizeof(long));
    if (!fill) {
        spare_pattern_destroy(p);
        return -ENOMEM;
    }
    for (long m = 0; m < p->nmsgs; m++) {
        p->idx[p->off[p->src[m]] + fill[p->src[m]]++] = m;
        if (p->dst[m] != p->src[m])
            p->idx[p->off[p->dst[m]] + fill[p->dst[m]]++] = m;
    }
    free(fill);
    *patp = p;
    return 0;
}

void spare_pattern_destroy(spare_pattern_t *pat)
{
    if (!pat)
        return;
    free(pat->phase);
    free(pat->src);
    free(pat->dst);
    free(pat->off);
    free(pat->idx);
    free(pat);
}

long spare_pattern_messages(const spare_pattern_t *pat)
{
    return pat ? pat->nmsgs : -EINVAL;
}

int spare_pattern_phases(const spare_pattern_t *pat)
{
    return pat ? pat->nphases : -EINVAL;
}

int spare_load_alloc(spare_map_t *map)
{
    const spare_pattern_t *p = map->pat;
    long nl = map->topo->nnodes * 2 * map->topo->ndims;
    /* a load never exceeds the number of messages of its phase */
    map->hist_cap = 0;
    long *per = calloc((size_t)p->nphases, sizeof(long));
    if (!per)
        return -ENOMEM;
    for (long m = 0; m < p->nmsgs; m++)
        per[p->phase[m]]++;
    long cap = 0;
    for (int ph = 0; ph < p->nphases; ph++)
        if (per[ph] > cap)
            cap = per[ph];
    free(per);
    map->hist_cap = (int)cap + 1;
    map->load = calloc((size_t)(nl * p->nphases), sizeof(int));
    map->hist =
        calloc((size_t)map->hist_cap * (size_t)p->nphases, sizeof(long));
    map->maxload = calloc((size_t)p->nphases, sizeof(int));
    map->stamp =
        calloc((size_t)(p->nmsgs > 0 ? p->nmsgs : 1), sizeof(unsigned));
    if (!map->load || !map->hist || !map->maxload || !map->stamp)
        return -ENOMEM;
    return 0;
}

/* Add delta (+1 or -1) along the route of one message. */
static void walk(spare_map_t *map, int ph, long src, long dst, int delta)
{
    const spare_topo_t *t = map->topo;
    int a[SPARE_MAX_DIMS], b[SPARE_MAX_DIMS];
    spare_coords_of(t, src, a);
    spare_coords_of(t, dst, b);
    long nl = t->nnodes * 2 * t->ndims;
    int *load = map->load + (long)ph * nl;
    long *hist = map->hist + (long)ph * map->hist_cap;
    int *mx = &map->maxload[ph];
    long cur = src;
    int nd2 = 2 * t->ndims;
    int ord[SPARE_MAX_DIMS], dirs[SPARE_MAX_DIMS], cnts[SPARE_MAX_DIMS];
    spare_route_plan(t, a, b, ord, dirs, cnts);
    for (int k = 0; k < t->ndims; k++) {
        int i = ord[k];
        int n = t->size[i];
        int dir = dirs[i], cnt = cnts[i];
        long step = t->stride[i];
        int x = a[i];
        for (int h = 0; h < cnt; h++) {
            int *l = &load[cur * nd2 + 2 * i + dir];
            hist[*l]--;
            *l += delta;
            hist[*l]++;
            if (delta > 0 && *l > *mx)
                *mx = *l;
            else if (delta < 0 && *l + 1 == *mx && hist[*mx] == 0)
                *mx = *l;
            if (dir == 0) {
                if (++x == n) {
                    x = 0;
                    cur -= step * (n - 1);
                } else {
                    cur += step;
                }
            } else {
                if (--x < 0) {
                    x = n - 1;
                    cur += step * (n - 1);
                } else {
                    cur -= step;
                }
            }
        }
    }
}

void spare_load_full(spare_map_t *map)
{
    const spare_pattern_t *p = map->pat;
    long nl = map->topo->nnodes * 2 * map->topo->ndims;
    memset(map->load, 0, sizeof(int) * (size_t)(nl * p->nphases));
    memset(map->hist, 0,
           sizeof(long) * (size_t)map->hist_cap * (size_t)p->nphases);
    for (int ph = 0; ph < p->nphases; ph++) {
        map->hist[(long)ph * map->hist_cap] = nl;
        map->maxload[ph] = 0;
    }
    for (long m = 0; m < p->nmsgs; m++)
        if (spare_msg_counted(map, m))
            walk(map, p->phase[m], map->rank_node[p->src[m]],
                 map->rank_node[p->dst[m]], 1);
}

/* Add (delta 1) or remove (delta -1) the messages of the given ranks, each
 * message once, with the ranks' current nodes.  Whether a message counts
 * (spare_msg_counted()) depends only on whether its two ranks are on their
 * failure-free nodes, and only the given ranks move between the removal and
 * the addition, so both see the same messages of the other ranks. */
void spare_load_ranks(spare_map_t *map, const long *ranks, long n, int delta)
{
    const spare_pattern_t *p = map->pat;
    if (!p)
        return;
    if (++map->stamp_now == 0) {
        memset(map->stamp, 0, sizeof(unsigned) * (size_t)p->nmsgs);
        map->stamp_now = 1;
    }
    unsigned s = map->stamp_now;
    for (long k = 0; k < n; k++) {
        long r = ranks[k];
        for (long j = p->off[r]; j < p->off[r + 1]; j++) {
            long m = p->idx[j];
            if (map->stamp[m] == s)
                continue;
            map->stamp[m] = s;
            if (!spare_msg_counted(map, m))
                continue;
            walk(map, p->phase[m], map->rank_node[p->src[m]],
                 map->rank_node[p->dst[m]], delta);
        }
    }
}

int spare_map_collisions(const spare_map_t *map)
{
    if (!map || !map->pat)
        return -EINVAL;
    int mx = 0;
    for (int ph = 0; ph < map->pat->nphases; ph++)
        if (map->maxload[ph] > mx)
            mx = map->maxload[ph];
    return mx;
}

int spare_map_link_load(const spare_map_t *map, int phase, long node, int dim,
                        int dir)
{
    if (!map || !map->pat || phase < 0 || phase >= map->pat->nphases ||
        node < 0 || node >= map->topo->nnodes || dim < 0 ||
        dim >= map->topo->ndims || (dir != 0 && dir != 1))
        return -EINVAL;
    long nl = map->topo->nnodes * 2 * map->topo->ndims;
    return map->load[phase * nl + node * 2 * map->topo->ndims + 2 * dim + dir];
}

int spare_map_busiest_link(const spare_map_t *map, spare_link_t *link,
                           long *nlinks)
{
    if (!map || !map->pat || !link)
        return -EINVAL;
    const spare_topo_t *t = map->topo;
    int mx = spare_map_collisions(map);
    long nl = t->nnodes * 2 * t->ndims, found = 0;
    for (int ph = 0; ph < map->pat->nphases; ph++) {
        const int *load = map->load + (long)ph * nl;
        for (long l = 0; l < nl; l++) {
            if (load[l] != mx)
                continue;
            if (found++ == 0) {
                link->phase = ph;
                link->node = l / (2 * t->ndims);
                link->dim = (int)(l % (2 * t->ndims)) / 2;
                link->dir = (int)(l % 2);
            }
        }
    }
    if (nlinks)
        *nlinks = found;
    return mx;
}

/* Does the route from node a to node b use the link (node, dim, dir)? */
static int route_uses(const spare_topo_t *t, long src, long dst, long node,
                      int dim, int dir)
{
    int a[SPARE_MAX_DIMS], b[SPARE_MAX_DIMS], c[SPARE_MAX_DIMS];
    int ord[SPARE_MAX_DIMS], dirs[SPARE_MAX_DIMS], cnts[SPARE_MAX_DIMS];
    spare_coords_of(t, src, a);
    spare_coords_of(t, dst, b);
    spare_coords_of(t, node, c);
    spare_route_plan(t, a, b, ord, dirs, cnts);
    int cur[SPARE_MAX_DIMS];
    memcpy(cur, a, sizeof(cur));
    for (int k = 0; k < t->ndims; k++) {
        int i = ord[k], n = t->size[i];
        for (int h = 0; h < cnts[i]; h++) {
            if (i == dim && dirs[i] == dir &&
                memcmp(cur, c, sizeof(int) * (size_t)t->ndims) == 0)
                return 1;
            cur[i] = dirs[i] == 0 ? (cur[i] + 1) % n : (cur[i] + n - 1) % n;
        }
    }
    return 0;
}

long spare_map_link_messages(const spare_map_t *map, const spare_link_t *link,
                             long *src, long *dst, long max)
{
    if (!map || !map->pat || !link || link->phase < 0 ||
        link->phase >= map->pat->nphases || link->node < 0 ||
        link->node >= map->topo->nnodes || link->dim < 0 ||
        link->dim >= map->topo->ndims || (link->dir != 0 && link->dir != 1) ||
        max < 0 || (max > 0 && (!src || !dst)))
        return -EINVAL;
    const spare_pattern_t *p = map->pat;
    long n = 0;
    for (long m = 0; m < p->nmsgs; m++) {
        if (p->phase[m] != link->phase || !spare_msg_counted(map, m) ||
            !route_uses(map->topo, map->rank_node[p->src[m]],
                        map->rank_node[p->dst[m]], link->node, link->dim,
                        link->dir))
            continue;
        if (n < max) {
            src[n] = p->src[m];
            dst[n] = p->dst[m];
        }
        n++;
    }
    return n;
}
