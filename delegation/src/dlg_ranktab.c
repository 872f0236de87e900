/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_ranktab.c: hierarchical rank tables, node table -> delegatee table ->
 * board table, so that no process holds an entry for every rank.
 *
 * A board process holds only its board's table (one copy per board, shared
 * by the board's processes) plus the header of its own board; a delegatee
 * holds its delegatee table and the node table.  A lookup starts at the node
 * table (arithmetic for equal nodes, a binary search over the nodes' first
 * ranks otherwise), then walks the few boards of the node.
 */
#include "config.h"
#include "dlg_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct node_ent {   /* node table entry */
    uint32_t first; /* first global rank (block map) */
    uint32_t count; /* ranks on the node */
    uint32_t deleg; /* index of the node's first delegatee */
};

struct deleg_ent {   /* delegatee table header */
    uint32_t first;  /* first rank inside the node */
    uint32_t count;  /* ranks served */
    uint32_t board;  /* index of its first board */
    uint32_t nboard; /* boards */
};

struct board_ent {  /* delegatee table entry for one board */
    uint32_t first; /* first rank inside the node */
    uint32_t count; /* ranks on the board */
    uint32_t core;  /* offset of its board table in the core pool */
};

struct dlg_ranktab {
    dlg_ranktab_shape_t s;
    uint64_t ranks;
    uint32_t per_node; /* ranks per node when nodes are regular, else 0 */
    struct node_ent *node;
    struct deleg_ent *deleg;
    struct board_ent *board;
    uint32_t *core; /* board tables: core id per local rank */
    uint32_t max_board;
};

int dlg_ranktab_build(const dlg_ranktab_shape_t *s, dlg_ranktab_t **out)
{
    if (!s || !out || !s->nodes || !s->deleg_per_node || !s->boards_per_deleg ||
        (!s->ranks_per_board && !s->board_ranks) || s->map > DLG_RANKS_CYCLIC)
        return -EINVAL;
    uint64_t nd = (uint64_t)s->nodes * s->deleg_per_node;
    uint64_t nb = nd * s->boards_per_deleg;
    if (nb > UINT32_MAX)
        return -EOVERFLOW;
    uint64_t ranks = 0;
    for (uint64_t b = 0; b < nb; b++)
        ranks += s->board_ranks ? s->board_ranks[b] : s->ranks_per_board;
    if (ranks == 0)
        return -EINVAL;
    if (ranks > INT32_MAX)
        return -EOVERFLOW;
    dlg_ranktab_t *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->s = *s;
    t->s.board_ranks = NULL;
    t->ranks = ranks;
    t->node = calloc(s->nodes, sizeof(*t->node));
    t->deleg = calloc(nd, sizeof(*t->deleg));
    t->board = calloc(nb, sizeof(*t->board));
    t->core = calloc(ranks, sizeof(*t->core));
    if (!t->node || !t->deleg || !t->board || !t->core) {
        dlg_ranktab_free(t);
        return -ENOMEM;
    }
    uint32_t rank = 0, bi = 0, di = 0, pool = 0;
    int equal = 1;
    for (uint32_t n = 0; n < s->nodes; n++) {
        struct node_ent *ne = &t->node[n];
        ne->first = rank;
        ne->deleg = di;
        uint32_t in_node = 0;
        for (uint32_t d = 0; d < s->deleg_per_node; d++, di++) {
            struct deleg_ent *de = &t->deleg[di];
            de->first = in_node;
            de->board = bi;
            de->nboard = s->boards_per_deleg;
            for (uint32_t b = 0; b < s->boards_per_deleg; b++, bi++) {
                uint32_t cnt =
                    s->board_ranks ? s->board_ranks[bi] : s->ranks_per_board;
                struct board_ent *be = &t->board[bi];
                be->first = in_node;
                be->count = cnt;
                be->core = pool;
                /* The OS core id of each local rank; ranks fill a board's
                 * cores in order here. */
                for (uint32_t k = 0; k < cnt; k++)
                    t->core[pool + k] = k;
                pool += cnt;
                in_node += cnt;
                de->count += cnt;
                if (cnt > t->max_board)
                    t->max_board = cnt;
            }
        }
        ne->count = in_node;
        rank += in_node;
        if (ne->count != t->node[0].count)
            equal = 0;
    }
    /* Arithmetic node lookup when all nodes but the last are equal and the
     * last is not larger (a job that does not fill its last node). */
    uint32_t per = t->node[0].count;
    int regular = per > 0;
    for (uint32_t n = 1; regular && n < s->nodes; n++)
        if (n + 1 < s->nodes ? t->node[n].count != per : t->node[n].count > per)
            regular = 0;
    t->per_node = regular ? per : 0;
    if (s->map == DLG_RANKS_CYCLIC && !equal) {
        dlg_ranktab_free(t);
        return -EINVAL; /* cyclic placement needs equal nodes */
    }
    *out = t;
    return 0;
}

uint64_t dlg_ranktab_size(const dlg_ranktab_t *t)
{
    return t ? t->ranks : 0;
}

int dlg_ranktab_lookup(const dlg_ranktab_t *t, uint64_t rank,
                       dlg_rankloc_t *loc)
{
    if (!t || !loc || rank >= t->ranks)
        return -EINVAL;
    uint32_t node, in_node;
    if (t->s.map == DLG_RANKS_CYCLIC) {
        node = (uint32_t)(rank % t->s.nodes);
        in_node = (uint32_t)(rank / t->s.nodes);
    } else if (t->per_node) {
        node = (uint32_t)(rank / t->per_node);
        in_node = (uint32_t)(rank % t->per_node);
        if (node >= t->s.nodes) /* cannot happen: rank < ranks */
            return -EINVAL;
    } else {
        uint32_t lo = 0, hi = t->s.nodes - 1;
        while (lo < hi) { /* last node whose first rank <= rank */
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if (t->node[mid].first <= rank)
                lo = mid;
            else
                hi = mid - 1;
        }
        node = lo;
        in_node = (uint32_t)(rank - t->node[node].first);
    }
    /* Delegatee table of the node: a handful of entries. */
    const struct node_ent *ne = &t->node[node];
    uint32_t d = ne->deleg, dend = ne->deleg + t->s.deleg_per_node;
    while (d + 1 < dend && t->deleg[d + 1].first <= in_node)
        d++;
    const struct deleg_ent *de = &t->deleg[d];
    uint32_t b = de->board, bend = de->board + de->nboard;
    while (b + 1 < bend && t->board[b + 1].first <= in_node)
        b++;
    /* Skip empty boards. */
    while (b + 1 < bend && in_node >= t->board[b].first + t->board[b].count)
        b++;
    const struct board_ent *be = &t->board[b];
    if (in_node < be->first || in_node >= be->first + be->count)
        return -EINVAL;
    loc->node = node;
    loc->deleg = d;
    loc->board = b;
    loc->local = in_node - be->first;
    loc->core = t->core[be->core + loc->local];
    return 0;
}

void dlg_ranktab_mem(const dlg_ranktab_t *t, dlg_ranktab_mem_t *m)
{
    if (!t || !m)
        return;
    memset(m, 0, sizeof(*m));
    m->ranks = t->ranks;
    m->flat_bytes = t->ranks * sizeof(dlg_rankloc_t);
    /* A board process: its board's entry and its delegatee's header (to
     * know which ranks are local and whom to ask), plus its share of the
     * one board table kept per board; the process that keeps the table
     * (the board's communication manager) is counted with the full table
     * below. */
    uint64_t board_tab = (uint64_t)t->max_board * sizeof(uint32_t);
    uint64_t client_hdr = sizeof(struct board_ent) + sizeof(struct deleg_ent);
    m->client_bytes = client_hdr + board_tab;
    /* A delegatee: the node table, its delegatee header and board entries. */
    m->delegatee_bytes =
        (uint64_t)t->s.nodes * sizeof(struct node_ent) +
        sizeof(struct deleg_ent) +
        (uint64_t)t->s.boards_per_deleg * sizeof(struct board_ent);
    m->max_bytes = m->client_bytes > m->delegatee_bytes ? m->client_bytes
                                                        : m->delegatee_bytes;
}

void dlg_ranktab_free(dlg_ranktab_t *t)
{
    if (!t)
        return;
    free(t->node);
    free(t->deleg);
    free(t->board);
    free(t->core);
    free(t);
}
