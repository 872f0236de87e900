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

/* Substitution (spare_slide.c). */
int spare_subst_run(spare_map_t *map, long node, long rank,
                    spare_subst_t *out) SPARE_WUR;

/* Loads (spare_load.c). */
int spare_load_alloc(spare_map_t *map) SPARE_WUR;
void spare_load_full(spare_map_t *map);
void spare_load_ranks(spare_map_t *map, const long *ranks, long n, int delta);

#endif /* SPARE_INT_H */
