/* SPDX-License-Identifier: BSD-2-Clause */
/* spare_int.h: internal structures of libspare. */
#ifndef SPARE_INT_H
#define SPARE_INT_H

#include "spare.h"

#define SPARE_WUR __attribute__((warn_unused_result))

struct spare_topo {
    int ndims;
    int size[SPARE_MAX_DIMS];
    int torus[SPARE_MAX_DIMS];
    int sides, thickness;
    int routing;               /* spare_routing_t */
    int count;                 /* spare_count_t */
    long qd_limit;             /* qD slidings per map, or SPARE_QD_UNLIMITED */
    int rsize[SPARE_MAX_DIMS]; /* logical grid */
    long stride[SPARE_MAX_DIMS];
    long rstride[SPARE_MAX_DIMS];
    long nnodes, nranks;
    long *rank_home; /* initial node of each rank */
};

struct spare_pattern {
    const spare_topo_t *topo;
    int nphases;
    long nmsgs;
    int *phase; /* per message */
    long *src;  /* per message (ranks) */
    long *dst;
    long *off; /* CSR: messages touching each rank, nranks + 1 */
    long *idx;
};

struct spare_map {
    const spare_topo_t *topo;
    const spare_pattern_t *pat;
    spare_method_t method;
    long *node_rank; /* rank, SPARE_NODE_IDLE or SPARE_NODE_FAILED */
    long *rank_node;
    long nfailed;
    int broken;
    long slide1d[SPARE_MAX_DIMS];   /* 1D slidings per dimension */
    long slideqd;                   /* qD slidings (degree ndims) */
    long side0d[SPARE_MAX_DIMS][2]; /* 0D choices per dimension and side */
    long *idle;                     /* idle healthy nodes, nidle of them */
    long *idle_pos;                 /* position in idle[] or -1 */
    long nidle;
    /* link loads (nphases * nlinks) and per phase a histogram of loads */
    int *load;
    long *hist;
    int hist_cap;
    int *maxload;
    unsigned *stamp; /* per message, to count each message once */
    unsigned stamp_now;
    /* scratch for substitution plans: candidate and best */
    long *cand_rank, *cand_to, *best_rank, *best_to, *from;
};

/* Coordinates <-> index without checks. */
static inline void spare_coords_of(const spare_topo_t *t, long node, int *c)
{
    for (int i = 0; i < t->ndims; i++) {
        c[i] = (int)(node % t->size[i]);
        node /= t->size[i];
    }
}

static inline long spare_index_of(const spare_topo_t *t, const int *c)
{
    long v = 0;
    for (int i = t->ndims - 1; i >= 0; i--)
        v = v * t->size[i] + c[i];
    return v;
}

/* The route from node coordinates a to b: legs in the order ord[0..ndims-1],
 * leg ord[k] taking cnt[ord[k]] hops in direction dir[ord[k]] (0: +, 1: -);
 * each dimension the shorter way round on a torus.  Dimension order:
 * dimension 0 first.  Symmetric: dimension 0 first when a has the lower
 * coordinate in the first dimension in which a and b differ, else the
 * reverse order, so that the route from b to a is this one reversed (on a
 * torus, half-way ties then go + from the lower coordinate). */
static inline void spare_route_plan(const spare_topo_t *t, const int *a,
                                    const int *b, int *ord, int *dir, int *cnt)
{
    int sym = t->routing == SPARE_ROUTE_SYMMETRIC, first = -1;
    for (int i = 0; i < t->ndims; i++) {
        int n = t->size[i];
        int fwd = ((b[i] - a[i]) % n + n) % n; /* hops going + */
        if (!t->torus[i]) {
            dir[i] = b[i] >= a[i] ? 0 : 1;
            cnt[i] = b[i] >= a[i] ? b[i] - a[i] : a[i] - b[i];
        } else if (fwd < n - fwd || (fwd == n - fwd && (!sym || a[i] < b[i]))) {
            dir[i] = 0;
            cnt[i] = fwd;
        } else {
            dir[i] = 1;
            cnt[i] = n - fwd;
        }
        if (first < 0 && cnt[i] > 0)
            first = i;
    }
    int rev = sym && first >= 0 && a[first] > b[first];
    for (int k = 0; k < t->ndims; k++)
        ord[k] = rev ? t->ndims - 1 - k : k;
}

/* Is message m counted on the links under the topology's counting rule?
 * The paper's rule leaves out a message from a rank that has moved to a
 * rank that has not. */
static inline int spare_msg_counted(const spare_map_t *map, long m)
{
    const spare_topo_t *t = map->topo;
    if (t->count != SPARE_COUNT_PAPER)
        return 1;
    long s = map->pat->src[m], d = map->pat->dst[m];
    return map->rank_node[s] == t->rank_home[s] ||
           map->rank_node[d] != t->rank_home[d];
}

/* Substitution (spare_slide.c). */
int spare_subst_run(spare_map_t *map, long node, long rank,
                    spare_subst_t *out) SPARE_WUR;

/* Loads (spare_load.c). */
int spare_load_alloc(spare_map_t *map) SPARE_WUR;
void spare_load_full(spare_map_t *map);
void spare_load_ranks(spare_map_t *map, const long *ranks, long n, int delta);

#endif /* SPARE_INT_H */
