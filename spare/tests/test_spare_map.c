/* SPDX-License-Identifier: BSD-2-Clause */
/* test_spare_map.c: substitution methods and the node-rank mapping. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spare.h"

struct fx {
    spare_topo_t *t;
    spare_map_t *m;
};

static struct fx mk(const char *dims, const char *alloc, const char *method)
{
    struct fx f;
    spare_method_t me;
    assert_int_equal(spare_topo_parse(dims, alloc, &f.t), 0);
    assert_int_equal(spare_method_parse(method, spare_topo_ndims(f.t), &me), 0);
    assert_int_equal(spare_map_create(f.t, &me, NULL, &f.m), 0);
    return f;
}

static void rm(struct fx *f)
{
    spare_map_destroy(f->m);
    spare_topo_destroy(f->t);
}

static long at(const spare_topo_t *t, int x, int y)
{
    int c[2] = {x, y};
    return spare_topo_node_index(t, c);
}

/* Every rank on exactly one healthy node, and the counts add up. */
static void check_invariants(const struct fx *f)
{
    long nn = spare_topo_nodes(f->t), nr = spare_topo_ranks(f->t);
    long hosting = 0, idle = 0, failed = 0;
    for (long v = 0; v < nn; v++) {
        long r = spare_map_node_rank(f->m, v);
        if (r >= 0) {
            hosting++;
            assert_int_equal(spare_map_rank_node(f->m, r), v);
        } else if (r == SPARE_NODE_IDLE) {
            idle++;
        } else {
            assert_int_equal(r, SPARE_NODE_FAILED);
            failed++;
        }
    }
    assert_int_equal(hosting, nr);
    assert_int_equal(idle, spare_map_idle(f->m));
    assert_int_equal(failed, spare_map_failures(f->m));
    assert_int_equal(hosting + idle + failed, nn);
}

static void test_failure_free_mapping_uses_non_spares_in_order(void **state)
{
    (void)state;
    struct fx f = mk("6x5", "2D(1,1)", "0D");
    for (long r = 0; r < spare_topo_ranks(f.t); r++) {
        long v = spare_map_rank_node(f.m, r);
        assert_int_equal(v, at(f.t, (int)(r % 5), (int)(r / 5)));
    }
    assert_int_equal(spare_map_idle(f.m), 5);
    check_invariants(&f);
    rm(&f);
}

/* 0D: the nearest spare; failures in one row take spares from alternating
 * sides. */
static void test_0d_takes_nearest_spare_alternating_sides(void **state)
{
    (void)state;
    struct fx f = mk("8x9", "2D(1,1)", "0D");
    spare_subst_t s;
    long r1 = spare_map_node_rank(f.m, at(f.t, 5, 4));
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 5, 4), &s), 0);
    assert_int_equal(s.degree, 0);
    assert_int_equal(s.moved, 1);
    assert_int_equal(spare_map_rank_node(f.m, r1), at(f.t, 7, 4));
    /* same row: (7,3) and (7,5) are equally near; then the other one */
    long r2 = spare_map_node_rank(f.m, at(f.t, 3, 4));
    long r3 = spare_map_node_rank(f.m, at(f.t, 1, 4));
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 3, 4), NULL), 0);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 1, 4), NULL), 0);
    long n2 = spare_map_rank_node(f.m, r2), n3 = spare_map_rank_node(f.m, r3);
    int c2[2], c3[2];
    spare_topo_node_coords(f.t, n2, c2);
    spare_topo_node_coords(f.t, n3, c3);
    assert_int_equal(c2[0], 7);
    assert_int_equal(c3[0], 7);
    assert_int_equal(abs(c2[1] - 4), 1);
    assert_int_equal(abs(c3[1] - 4), 1);
    assert_int_not_equal(c2[1], c3[1]);
    check_invariants(&f);
    rm(&f);
}

/* 1D: the row shifts by one toward its spare. */
static void test_1d_shifts_the_row_toward_the_spare(void **state)
{
    (void)state;
    struct fx f = mk("7x5", "2D(1,1)", "1D");
    long before[7];
    for (int x = 0; x < 7; x++)
        before[x] = spare_map_node_rank(f.m, at(f.t, x, 2));
    spare_subst_t s;
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 2, 2), &s), 0);
    assert_int_equal(s.degree, 1);
    assert_int_equal(s.dim, 0);
    assert_int_equal(s.dir, 1);
    assert_int_equal(s.moved, 4); /* columns 2..5 move to 3..6 */
    assert_int_equal(s.spare, at(f.t, 6, 2));
    for (int x = 0; x < 2; x++)
        assert_int_equal(spare_map_node_rank(f.m, at(f.t, x, 2)), before[x]);
    assert_int_equal(spare_map_node_rank(f.m, at(f.t, 2, 2)),
                     SPARE_NODE_FAILED);
    for (int x = 2; x < 6; x++)
        assert_int_equal(spare_map_node_rank(f.m, at(f.t, x + 1, 2)),
                         before[x]);
    /* the other rows did not move */
    assert_int_equal(spare_map_node_rank(f.m, at(f.t, 3, 1)), 1 * 6 + 3);
    /* a second failure in the same row has no spare left in its row and
     * 2D(1,1) has none in the columns */
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 0, 2), &s), -ENOSPC);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 0, 3), &s), -ENOSPC);
    rm(&f);
}

/* 1D on 2D(2,1): the paper's advice, slidings as uneven as possible, and
 * a third failure always handled (sliding over failed nodes). */
static void test_1d_keeps_slidings_uneven_and_handles_three(void **state)
{
    (void)state;
    struct fx f = mk("8x8", "2D(2,1)", "1D");
    spare_subst_t s1, s2, s3;
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 3, 3), &s1), 0);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 5, 1), &s2), 0);
    assert_int_equal(s1.degree, 1);
    assert_int_equal(s2.dim, s1.dim);
    /* the intersection of the two slid lines with the other failure's
     * cross line: it must slide the other way, over the failed node */
    int c[2] = {3, 1};
    if (s1.dim == 1) {
        c[0] = 5;
        c[1] = 3;
    }
    assert_int_equal(
        spare_map_fail_node(f.m, spare_topo_node_index(f.t, c), &s3), 0);
    assert_int_equal(s3.degree, 1);
    assert_int_not_equal(s3.dim, s1.dim);
    check_invariants(&f);
    rm(&f);
}

/* 2D sliding on 2D(1,1): the whole space beyond the failed column moves;
 * the vacated column becomes idle; a second failure cannot use 2D. */
static void test_2d_moves_whole_columns_and_handles_one_on_2d11(void **state)
{
    (void)state;
    struct fx f = mk("6x4", "2D(1,1)", "2D");
    spare_subst_t s;
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 2, 1), &s), 0);
    assert_int_equal(s.degree, 2);
    assert_int_equal(s.dim, 0);
    assert_int_equal(s.moved, 4 * 3);
    for (int y = 0; y < 4; y++) {
        long r = spare_map_node_rank(f.m, at(f.t, 2, y));
        assert_int_equal(r, y == 1 ? SPARE_NODE_FAILED : SPARE_NODE_IDLE);
        for (int x = 3; x < 6; x++)
            assert_int_equal(spare_map_node_rank(f.m, at(f.t, x, y)),
                             y * 5 + x - 1);
    }
    assert_int_equal(spare_map_idle(f.m), 3);
    check_invariants(&f);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 4, 3), &s), -ENOSPC);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 0, 0), &s), -ENOSPC);
    rm(&f);
}

/* 2D on 2D(2,1) handles two failures; qD on qD(q,1) handles q. */
static void test_qd_handles_as_many_failures_as_spare_sides(void **state)
{
    (void)state;
    struct fx f = mk("6x6", "2D(2,1)", "2D");
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 1, 1), NULL), 0);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 3, 3), NULL), 0);
    check_invariants(&f);
    rm(&f);
    f = mk("5x5x5", "3D(3,1)", "3D");
    int c[3][3] = {{1, 1, 1}, {2, 3, 0}, {0, 2, 3}};
    spare_subst_t s;
    int dims_used = 0;
    for (int i = 0; i < 3; i++) {
        long v = spare_topo_node_index(f.t, c[i]);
        if (spare_map_node_rank(f.m, v) < 0)
            continue;
        assert_int_equal(spare_map_fail_node(f.m, v, &s), 0);
        assert_int_equal(s.degree, 3);
        dims_used |= 1 << s.dim;
    }
    assert_int_equal(dims_used, 7);
    check_invariants(&f);
    rm(&f);
}

/* Hybrid: the highest degree that applies; 0D as the last resort, until
 * every spare is used. */
static void test_hybrid_descends_and_uses_every_spare(void **state)
{
    (void)state;
    struct fx f = mk("6x6", "2D(2,1)", "hybrid(all)");
    long nspare = spare_topo_spares(f.t);
    spare_subst_t s;
    int seen[3] = {0, 0, 0};
    unsigned seed = 12345;
    for (long k = 0; k < nspare; k++) {
        long v;
        do {
            seed = seed * 1103515245u + 12345u;
            v = (long)((seed >> 8) % (unsigned)spare_topo_nodes(f.t));
        } while (spare_map_node_rank(f.m, v) < 0);
        assert_int_equal(spare_map_fail_node(f.m, v, &s), 0);
        assert_in_range(s.degree, 0, 2);
        seen[s.degree]++;
        if (k < 2)
            assert_int_equal(s.degree, 2);
        check_invariants(&f);
    }
    assert_int_equal(spare_map_idle(f.m), 0);
    assert_true(seen[2] >= 2);
    assert_true(seen[0] + seen[1] > 0);
    /* no spare left: the next failure is lost, and the map stays lost */
    long v = 0;
    while (spare_map_node_rank(f.m, v) < 0)
        v++;
    assert_int_equal(spare_map_fail_node(f.m, v, &s), -ENOSPC);
    assert_int_equal(spare_map_fail_node(f.m, v + 1, &s), -ENOSPC);
    rm(&f);
}

static void test_random_failures_keep_a_bijection(void **state)
{
    (void)state;
    static const char *cfg[][3] = {
        {"7x6x5", "3D(2,1)", "hybrid(all)"},
        {"7tx6x5t", "3D(3,1)", "hybrid(-2D)"},
        {"5x4x3x3", "4D(2,1)", "hybrid(4D+1D+0D)"},
        {"9t9t", "2D(2,1)", "hybrid(all)"},
    };
    for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
        struct fx f;
        spare_method_t me;
        if (strcmp(cfg[i][0], "9t9t") == 0)
            assert_int_equal(spare_topo_parse("9tx9t", cfg[i][1], &f.t), 0);
        else
            assert_int_equal(spare_topo_parse(cfg[i][0], cfg[i][1], &f.t), 0);
        assert_int_equal(
            spare_method_parse(cfg[i][2], spare_topo_ndims(f.t), &me), 0);
        assert_int_equal(spare_map_create(f.t, &me, NULL, &f.m), 0);
        unsigned seed = 7u + (unsigned)i;
        long nsp = spare_topo_spares(f.t);
        for (long k = 0; k < nsp; k++) {
            seed = seed * 1103515245u + 12345u;
            long r = (long)((seed >> 8) % (unsigned)spare_topo_ranks(f.t));
            int rc =
                spare_map_fail_node(f.m, spare_map_rank_node(f.m, r), NULL);
            assert_int_equal(rc, 0); /* 0D is last: never lost */
            check_invariants(&f);
        }
        rm(&f);
    }
}

/* spare_map_apply gives the same mapping as failing one node at a time. */
static void test_apply_matches_incremental_failures(void **state)
{
    (void)state;
    struct fx f = mk("8x7", "2D(2,1)", "hybrid(all)");
    long failed[] = {at(f.t, 2, 2), at(f.t, 4, 4), at(f.t, 1, 5), at(f.t, 5, 0),
                     at(f.t, 0, 0)};
    size_t nf = sizeof(failed) / sizeof(failed[0]);
    for (size_t i = 0; i < nf; i++)
        assert_int_equal(spare_map_fail_node(f.m, failed[i], NULL), 0);
    spare_method_t me;
    spare_method_parse("hybrid(all)", 2, &me);
    long *rn = malloc(sizeof(long) * (size_t)spare_topo_ranks(f.t));
    assert_non_null(rn);
    assert_int_equal(spare_map_apply(f.t, &me, failed, nf, rn), 0);
    for (long r = 0; r < spare_topo_ranks(f.t); r++)
        assert_int_equal(rn[r], spare_map_rank_node(f.m, r));
    long dup[] = {failed[0], failed[0]};
    assert_int_equal(spare_map_apply(f.t, &me, dup, 2, rn), -EEXIST);
    long badn[] = {-1};
    assert_int_equal(spare_map_apply(f.t, &me, badn, 1, rn), -EINVAL);
    assert_int_equal(spare_map_apply(f.t, &me, NULL, 1, rn), -EINVAL);
    free(rn);
    rm(&f);
}

static void test_failure_of_idle_spare_costs_one_spare(void **state)
{
    (void)state;
    struct fx f = mk("5x5", "2D(1,1)", "0D");
    spare_subst_t s;
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 4, 2), &s), 0);
    assert_int_equal(s.degree, -1);
    assert_int_equal(spare_map_idle(f.m), 4);
    assert_int_equal(spare_map_fail_node(f.m, at(f.t, 4, 2), &s), -EEXIST);
    assert_int_equal(spare_map_fail_node(f.m, 25, &s), -EINVAL);
    check_invariants(&f);
    rm(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failure_free_mapping_uses_non_spares_in_order),
        cmocka_unit_test(test_0d_takes_nearest_spare_alternating_sides),
        cmocka_unit_test(test_1d_shifts_the_row_toward_the_spare),
        cmocka_unit_test(test_1d_keeps_slidings_uneven_and_handles_three),
        cmocka_unit_test(test_2d_moves_whole_columns_and_handles_one_on_2d11),
        cmocka_unit_test(test_qd_handles_as_many_failures_as_spare_sides),
        cmocka_unit_test(test_hybrid_descends_and_uses_every_spare),
        cmocka_unit_test(test_random_failures_keep_a_bijection),
        cmocka_unit_test(test_apply_matches_incremental_failures),
        cmocka_unit_test(test_failure_of_idle_spare_costs_one_spare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
