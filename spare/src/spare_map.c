/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_map.c: the node-rank mapping of a job and its update at each
 * failure (the substitution search itself is in spare_slide.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spare_int.h"

static void idle_add(spare_map_t *m, long v)
{
    if (m->idle_pos[v] >= 0)
        return;
    m->idle_pos[v] = m->nidle;
    m->idle[m->nidle++] = v;
}

static void idle_del(spare_map_t *m, long v)
{
    long i = m->idle_pos[v];
    if (i < 0)
        return;
    long last = m->idle[--m->nidle];
    m->idle[i] = last;
    m->idle_pos[last] = i;
    m->idle_pos[v] = -1;
}

int spare_map_create(const spare_topo_t *topo, const spare_method_t *method,
                     const spare_pattern_t *pat, spare_map_t **mapp)
{
    if (!topo || !method || !mapp || method->count < 1 ||
        method->count > topo->ndims + 1 ||
        (pat && pat->topo != topo && pat->topo->nranks != topo->nranks))
        return -EINVAL;
    for (int i = 0; i < method->count; i++)
        if (method->degree[i] < 0 || method->degree[i] > topo->ndims ||
            (i > 0 && method->degree[i] >= method->degree[i - 1]))
            return -EINVAL;
    spare_map_t *m = calloc(1, sizeof(*m));
    if (!m)
        return -ENOMEM;
    m->topo = topo;
    m->pat = pat;
    m->method = *method;
    size_t nn = (size_t)topo->nnodes, nr = (size_t)topo->nranks + 1;
    m->node_rank = malloc(sizeof(long) * nn);
    m->rank_node = malloc(sizeof(long) * nr);
    m->idle = malloc(sizeof(long) * nn);
    m->idle_pos = malloc(sizeof(long) * nn);
    m->cand_rank = malloc(sizeof(long) * nr);
    m->cand_to = malloc(sizeof(long) * nr);
    m->best_rank = malloc(sizeof(long) * nr);
    m->best_to = malloc(sizeof(long) * nr);
    m->from = malloc(sizeof(long) * nr);
    if (!m->node_rank || !m->rank_node || !m->idle || !m->idle_pos ||
        !m->cand_rank || !m->cand_to || !m->best_rank || !m->best_to ||
        !m->from)
        goto fail;
    for (long v = 0; v < topo->nnodes; v++) {
        m->node_rank[v] = SPARE_NODE_IDLE;
        m->idle_pos[v] = -1;
    }
    for (long r = 0; r < topo->nranks; r++) {
        m->rank_node[r] = topo->rank_home[r];
        m->node_rank[topo->rank_home[r]] = r;
    }
    for (long v = 0; v < topo->nnodes; v++)
        if (m->node_rank[v] == SPARE_NODE_IDLE)
            idle_add(m, v);
    if (pat) {
        if (spare_load_alloc(m) < 0)
            goto fail;
        spare_load_full(m);
    }
    *mapp = m;
    return 0;
fail:
    spare_map_destroy(m);
    return -ENOMEM;
}

void spare_map_destroy(spare_map_t *map)
{
    if (!map)
        return;
    free(map->node_rank);
    free(map->rank_node);
    free(map->idle);
    free(map->idle_pos);
    free(map->load);
    free(map->hist);
    free(map->maxload);
    free(map->stamp);
    free(map->cand_rank);
    free(map->cand_to);
    free(map->best_rank);
    free(map->best_to);
    free(map->from);
    free(map);
}

int spare_map_copy(spare_map_t *dst, const spare_map_t *src)
{
    if (!dst || !src || dst->topo != src->topo || dst->pat != src->pat)
        return -EINVAL;
    const spare_topo_t *t = src->topo;
    size_t nn = (size_t)t->nnodes;
    memcpy(dst->node_rank, src->node_rank, sizeof(long) * nn);
    memcpy(dst->rank_node, src->rank_node, sizeof(long) * (size_t)t->nranks);
    memcpy(dst->idle, src->idle, sizeof(long) * (size_t)src->nidle);
    memcpy(dst->idle_pos, src->idle_pos, sizeof(long) * nn);
    dst->nidle = src->nidle;
    dst->nfailed = src->nfailed;
    dst->broken = src->broken;
    dst->method = src->method;
    memcpy(dst->slide1d, src->slide1d, sizeof(src->slide1d));
    dst->slideqd = src->slideqd;
    memcpy(dst->side0d, src->side0d, sizeof(src->side0d));
    if (src->pat) {
        int np = src->pat->nphases;
        memcpy(dst->load, src->load,
               sizeof(int) * nn * 2 * (size_t)t->ndims * (size_t)np);
        memcpy(dst->hist, src->hist,
               sizeof(long) * (size_t)src->hist_cap * (size_t)np);
        memcpy(dst->maxload, src->maxload, sizeof(int) * (size_t)np);
    }
    return 0;
}

/*
 * Carry out a plan: rank best_rank[k] goes to node best_to[k].  Loads are
 * updated by taking the messages of the moved ranks out with the old
 * positions and putting them back with the new ones.
 */
static void plan_apply(spare_map_t *m, long failed_node, long n)
{
    spare_load_ranks(m, m->best_rank, n, -1);
    for (long k = 0; k < n; k++)
        idle_del(m, m->best_to[k]);
    for (long k = 0; k < n; k++) {
        m->from[k] = m->rank_node[m->best_rank[k]];
        if (m->from[k] != failed_node)
            m->node_rank[m->from[k]] = SPARE_NODE_IDLE;
    }
    for (long k = 0; k < n; k++) {
        m->node_rank[m->best_to[k]] = m->best_rank[k];
        m->rank_node[m->best_rank[k]] = m->best_to[k];
    }
    for (long k = 0; k < n; k++)
        if (m->node_rank[m->from[k]] == SPARE_NODE_IDLE)
            idle_add(m, m->from[k]);
    spare_load_ranks(m, m->best_rank, n, 1);
}

int spare_map_fail_node(spare_map_t *map, long node, spare_subst_t *out)
{
    if (!map || node < 0 || node >= map->topo->nnodes)
        return -EINVAL;
    if (map->broken)
        return -ENOSPC;
    long r = map->node_rank[node];
    if (r == SPARE_NODE_FAILED)
        return -EEXIST;
    spare_subst_t info = {-1, -1, 0, 0, -1};
    map->nfailed++;
    if (r == SPARE_NODE_IDLE) {
        /* a spare died: nothing to substitute, one spare less */
        idle_del(map, node);
        map->node_rank[node] = SPARE_NODE_FAILED;
        if (out)
            *out = info;
        return 0;
    }
    map->node_rank[node] = SPARE_NODE_FAILED;
    long n = spare_subst_run(map, node, r, &info);
    if (n < 0) {
        map->broken = 1;
        return (int)n;
    }
    plan_apply(map, node, n);
    if (out)
        *out = info;
    return 0;
}

long spare_map_rank_node(const spare_map_t *map, long rank)
{
    if (!map || rank < 0 || rank >= map->topo->nranks)
        return -EINVAL;
    return map->rank_node[rank];
}

long spare_map_node_rank(const spare_map_t *map, long node)
{
    if (!map || node < 0 || node >= map->topo->nnodes)
        return -EINVAL;
    return map->node_rank[node];
}

long spare_map_failures(const spare_map_t *map)
{
    return map ? map->nfailed : -EINVAL;
}

long spare_map_idle(const spare_map_t *map)
{
    return map ? map->nidle : -EINVAL;
}

int spare_map_apply(const spare_topo_t *topo, const spare_method_t *method,
                    const long *failed, size_t nfailed, long *rank_node)
{
    if (!topo || !method || !rank_node || (nfailed > 0 && !failed))
        return -EINVAL;
    spare_map_t *m;
    int rc = spare_map_create(topo, method, NULL, &m);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < nfailed; i++) {
        rc = spare_map_fail_node(m, failed[i], NULL);
        if (rc < 0)
            goto out;
    }
    memcpy(rank_node, m->rank_node, sizeof(long) * (size_t)topo->nranks);
out:
    spare_map_destroy(m);
    return rc;
}
