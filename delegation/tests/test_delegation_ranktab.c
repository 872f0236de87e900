/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_ranktab.c: hierarchical rank tables agree with a flat
 * enumeration of the same job, and hold far less per process.
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "deleg.h"

/* Flat reference: walk the shape in order and record where each rank is. */
static dlg_rankloc_t *flat(const dlg_ranktab_shape_t *s, uint64_t *n)
{
    uint64_t nb = (uint64_t)s->nodes * s->deleg_per_node * s->boards_per_deleg;
    uint64_t total = 0;
    for (uint64_t b = 0; b < nb; b++)
        total += s->board_ranks ? s->board_ranks[b] : s->ranks_per_board;
    dlg_rankloc_t *f = calloc(total, sizeof(*f));
    assert_non_null(f);
    uint64_t per_node = total / s->nodes;
    unsigned b = 0, d = 0;
    uint64_t rank = 0;
    for (unsigned node = 0; node < s->nodes; node++) {
        uint64_t in_node = 0;
        for (unsigned dd = 0; dd < s->deleg_per_node; dd++, d++)
            for (unsigned bb = 0; bb < s->boards_per_deleg; bb++, b++) {
                unsigned cnt =
                    s->board_ranks ? s->board_ranks[b] : s->ranks_per_board;
                for (unsigned k = 0; k < cnt; k++, in_node++) {
                    uint64_t g = s->map == DLG_RANKS_CYCLIC
                                     ? in_node * s->nodes + node
                                     : rank + in_node;
                    (void)per_node;
                    f[g] = (dlg_rankloc_t){.node = node,
                                           .deleg = d,
                                           .board = b,
                                           .local = k,
                                           .core = k};
                }
            }
        rank += in_node;
    }
    *n = total;
    return f;
}

static void check_shape(const dlg_ranktab_shape_t *s)
{
    uint64_t n;
    dlg_rankloc_t *f = flat(s, &n);
    dlg_ranktab_t *t;
    assert_int_equal(dlg_ranktab_build(s, &t), 0);
    assert_int_equal(dlg_ranktab_size(t), n);
    for (uint64_t r = 0; r < n; r++) {
        dlg_rankloc_t l;
        assert_int_equal(dlg_ranktab_lookup(t, r, &l), 0);
        assert_memory_equal(&l, &f[r], sizeof(l));
    }
    dlg_rankloc_t l;
    assert_int_equal(dlg_ranktab_lookup(t, n, &l), -EINVAL);
    dlg_ranktab_free(t);
    free(f);
}

static void lookups_match_a_flat_table(void **st)
{
    (void)st;
    dlg_ranktab_shape_t s = {.nodes = 7,
                             .deleg_per_node = 2,
                             .boards_per_deleg = 3,
                             .ranks_per_board = 5};
    check_shape(&s);
    s.map = DLG_RANKS_CYCLIC;
    check_shape(&s);
    /* Uneven boards, some empty: block placement with a searched node
     * table. */
    unsigned nb = 9 * 1 * 4;
    unsigned *br = malloc(nb * sizeof(*br));
    for (unsigned i = 0; i < nb; i++)
        br[i] = (i * 7) % 5; /* 0..4, includes empty boards */
    s = (dlg_ranktab_shape_t){.nodes = 9,
                              .deleg_per_node = 1,
                              .boards_per_deleg = 4,
                              .board_ranks = br};
    check_shape(&s);
    /* Cyclic placement needs equal nodes. */
    s.map = DLG_RANKS_CYCLIC;
    dlg_ranktab_t *t;
    assert_int_equal(dlg_ranktab_build(&s, &t), -EINVAL);
    free(br);
}

static void bad_shapes_are_refused(void **st)
{
    (void)st;
    dlg_ranktab_t *t;
    dlg_ranktab_shape_t s = {.nodes = 0,
                             .deleg_per_node = 1,
                             .boards_per_deleg = 1,
                             .ranks_per_board = 1};
    assert_int_equal(dlg_ranktab_build(&s, &t), -EINVAL);
    s.nodes = 1;
    s.ranks_per_board = 0;
    assert_int_equal(dlg_ranktab_build(&s, &t), -EINVAL);
    s = (dlg_ranktab_shape_t){.nodes = 65536,
                              .deleg_per_node = 256,
                              .boards_per_deleg = 256,
                              .ranks_per_board = 1};
    assert_int_equal(dlg_ranktab_build(&s, &t), -EOVERFLOW);
}

static void million_ranks_hold_100x_less_than_flat(void **st)
{
    (void)st;
    /* 1,000,000 ranks: 64 ranks per board, 4 boards per node, one
     * delegatee per node (3907 nodes, the last one partly filled). */
    unsigned nodes = (1000000 + 255) / 256;
    unsigned nb = nodes * 4;
    unsigned *br = malloc(nb * sizeof(*br));
    unsigned left = 1000000;
    for (unsigned i = 0; i < nb; i++) {
        br[i] = left < 64 ? left : 64;
        left -= br[i];
    }
    dlg_ranktab_shape_t s = {.nodes = nodes,
                             .deleg_per_node = 1,
                             .boards_per_deleg = 4,
                             .board_ranks = br};
    dlg_ranktab_t *t;
    assert_int_equal(dlg_ranktab_build(&s, &t), 0);
    assert_int_equal(dlg_ranktab_size(t), 1000000);
    dlg_ranktab_mem_t m;
    dlg_ranktab_mem(t, &m);
    assert_int_equal(m.flat_bytes, 1000000 * sizeof(dlg_rankloc_t));
    assert_true(m.max_bytes >= m.client_bytes);
    assert_true(m.max_bytes >= m.delegatee_bytes);
    assert_true(m.max_bytes * 100 <= m.flat_bytes);
    /* Spot checks across the range. */
    for (uint64_t r = 0; r < 1000000; r += 9973) {
        dlg_rankloc_t l;
        assert_int_equal(dlg_ranktab_lookup(t, r, &l), 0);
        assert_int_equal(l.node, r / 256);
        assert_int_equal(l.board, r / 64);
        assert_int_equal(l.local, r % 64);
    }
    dlg_ranktab_free(t);
    free(br);
}

int main(void)
{
    alarm(60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lookups_match_a_flat_table),
        cmocka_unit_test(bad_shapes_are_refused),
        cmocka_unit_test(million_ranks_hold_100x_less_than_flat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
