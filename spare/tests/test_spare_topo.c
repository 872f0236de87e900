/* SPDX-License-Identifier: BSD-2-Clause */
/* test_spare_topo.c: node spaces, spare allocation, routing, method names. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "spare.h"

static spare_topo_t *mk(const char *dims, const char *alloc)
{
    spare_topo_t *t = NULL;
    assert_int_equal(spare_topo_parse(dims, alloc, &t), 0);
    return t;
}

/* The paper's spare counts for its example spaces: 1128 spares on 24^3
 * with 3D(2,1) (the end of the failure axis of Figs. 12-15). */
static void test_spare_counts_of_paper_examples(void **state)
{
    (void)state;
    spare_topo_t *t = mk("24x24x24", "3D(2,1)");
    assert_int_equal(spare_topo_spares(t), 1128);
    assert_int_equal(spare_topo_ranks(t), 23 * 23 * 24);
    spare_topo_destroy(t);
    t = mk("100x100", "2D(2,1)");
    assert_int_equal(spare_topo_spares(t), 199);
    spare_topo_destroy(t);
    t = mk("12x12x12", "3D(2,1)");
    assert_int_equal(spare_topo_spares(t), 12 * 12 * 12 - 11 * 11 * 12);
    spare_topo_destroy(t);
}

/* R_qD(r,s) = 1 - (N^(1/q) - s)^r (N^(1/q))^(q-r) / N equals the counted
 * fraction on cubic spaces (where the flooring the paper mentions does not
 * arise). */
static void test_percentage_formula_matches_counted_spares(void **state)
{
    (void)state;
    static const struct {
        int q, r, s, side;
    } cases[] = {{2, 1, 1, 10}, {2, 2, 1, 10}, {2, 2, 2, 10}, {2, 2, 1, 100},
                 {3, 1, 1, 12}, {3, 2, 1, 12}, {3, 3, 1, 12}, {3, 2, 1, 24},
                 {3, 2, 2, 16}, {4, 2, 1, 8},  {5, 3, 1, 4},  {6, 2, 1, 4},
                 {6, 6, 1, 3}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int sizes[SPARE_MAX_DIMS];
        for (int d = 0; d < cases[i].q; d++)
            sizes[d] = cases[i].side;
        spare_topo_t *t = NULL;
        assert_int_equal(spare_topo_create(cases[i].q, sizes, NULL, cases[i].r,
                                           cases[i].s, &t),
                         0);
        double n = (double)spare_topo_nodes(t);
        double counted = (double)spare_topo_spares(t) / n;
        double est = spare_alloc_ratio(cases[i].q, cases[i].r, cases[i].s, n);
        assert_true(fabs(counted - est) < 1e-9);
        /* and the spare flag agrees with the count */
        long flagged = 0;
        for (long v = 0; v < spare_topo_nodes(t); v++)
            flagged += spare_topo_is_spare(t, v);
        assert_int_equal(flagged, spare_topo_spares(t));
        spare_topo_destroy(t);
    }
    /* more dimensions, same size: a higher spare fraction (Fig. 3) */
    assert_true(spare_alloc_ratio(3, 3, 1, 4096) >
                spare_alloc_ratio(2, 2, 1, 4096));
    /* larger jobs: a lower fraction */
    assert_true(spare_alloc_ratio(2, 2, 1, 1e6) <
                spare_alloc_ratio(2, 2, 1, 1e4));
    assert_true(spare_alloc_ratio(0, 0, 1, 100) < 0);
    assert_true(spare_alloc_ratio(2, 3, 1, 100) < 0);
}

static void test_bad_topologies_are_rejected(void **state)
{
    (void)state;
    spare_topo_t *t = NULL;
    static const char *bad[][2] = {{"", "2D(1,1)"},
                                   {"10", "1D(1,1)"},
                                   {"10x", "2D(1,1)"},
                                   {"10x1", "2D(1,1)"},
                                   {"10x10", "3D(1,1)"},
                                   {"10x10", "2D(3,1)"},
                                   {"10x10", "2D(1,10)"},
                                   {"10x10", "2D(1,0)"},
                                   {"10x10", "2D(1,1"},
                                   {"axb", "2D(1,1)"},
                                   {"2x2x2x2x2x2x2", "7D(1,1)"},
                                   {"10x10", "2D(1,1)x"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(spare_topo_parse(bad[i][0], bad[i][1], &t), -EINVAL);
    int sizes[2] = {65536, 65536};
    assert_int_equal(spare_topo_create(2, sizes, NULL, 1, 1, &t), -ERANGE);
    assert_int_equal(spare_topo_create(1, sizes, NULL, 1, 1, &t), -EINVAL);
}

static void test_torus_flags_and_logical_grid(void **state)
{
    (void)state;
    spare_topo_t *t = mk("8tx6x4t", "3D(2,2)");
    assert_int_equal(spare_topo_is_torus(t, 0), 1);
    assert_int_equal(spare_topo_is_torus(t, 1), 0);
    assert_int_equal(spare_topo_is_torus(t, 2), 1);
    assert_int_equal(spare_topo_rank_size(t, 0), 6);
    assert_int_equal(spare_topo_rank_size(t, 1), 4);
    assert_int_equal(spare_topo_rank_size(t, 2), 4);
    assert_int_equal(spare_topo_ranks(t), 6 * 4 * 4);
    assert_int_equal(spare_topo_links(t), 8 * 6 * 4 * 6);
    int c[3] = {7, 5, 3};
    long v = spare_topo_node_index(t, c);
    int back[3];
    assert_int_equal(spare_topo_node_coords(t, v, back), 0);
    assert_memory_equal(c, back, sizeof(c));
    assert_int_equal(spare_topo_is_spare(t, v), 1);
    c[0] = 8;
    assert_int_equal(spare_topo_node_index(t, c), -EINVAL);
    spare_topo_destroy(t);
}

/* Dimension-order routing: all of dimension 0 first, then dimension 1; a
 * torus dimension goes the short way. */
static void test_route_is_dimension_ordered(void **state)
{
    (void)state;
    spare_topo_t *t = mk("5x5", "2D(1,1)");
    int a[2] = {0, 0}, b[2] = {2, 3};
    long links[16];
    long s = spare_topo_node_index(t, a), d = spare_topo_node_index(t, b);
    int h = spare_topo_route(t, s, d, links, 16);
    assert_int_equal(h, 5);
    for (int i = 0; i < 5; i++) {
        long node = links[i] / 4;
        int dim = (int)(links[i] % 4) / 2, dir = (int)(links[i] % 2);
        int c[2];
        spare_topo_node_coords(t, node, c);
        assert_int_equal(dim, i < 2 ? 0 : 1);
        assert_int_equal(dir, 0);
        assert_int_equal(c[0], i < 2 ? i : 2);
        assert_int_equal(c[1], i < 2 ? 0 : i - 2);
    }
    /* backwards: direction 1 */
    h = spare_topo_route(t, d, s, links, 16);
    assert_int_equal(h, 5);
    assert_int_equal(links[0] % 2, 1);
    spare_topo_destroy(t);
    t = mk("8tx8", "2D(1,1)");
    a[0] = 0;
    a[1] = 0;
    b[0] = 7;
    b[1] = 0;
    h = spare_topo_route(t, spare_topo_node_index(t, a),
                         spare_topo_node_index(t, b), links, 16);
    assert_int_equal(h, 1);
    assert_int_equal(links[0] % 2, 1);
    assert_int_equal(spare_topo_route(t, 0, 64, links, 16), -EINVAL);
    spare_topo_destroy(t);
}

/* Symmetric routing: the route from b to a is the route from a to b
 * reversed (every link the other way), on meshes and tori (including the
 * half-way ties of even tori); in 2-D it is XY from the node on the left. */
static void test_symmetric_route_is_reversible(void **state)
{
    (void)state;
    const char *spaces[] = {"5x4", "6tx4t", "4x3tx4t"};
    const char *allocs[] = {"2D(1,1)", "2D(2,1)", "3D(1,1)"};
    for (int k = 0; k < 3; k++) {
        spare_topo_t *t;
        assert_int_equal(spare_topo_parse(spaces[k], allocs[k], &t), 0);
        assert_int_equal(spare_topo_routing(t), SPARE_ROUTE_DIM_ORDER);
        assert_int_equal(spare_topo_set_routing(t, SPARE_ROUTE_SYMMETRIC), 0);
        assert_int_equal(spare_topo_routing(t), SPARE_ROUTE_SYMMETRIC);
        int nd = spare_topo_ndims(t);
        long n = spare_topo_nodes(t);
        for (long a = 0; a < n; a++)
            for (long b = 0; b < n; b++) {
                long ab[32], ba[32];
                int h = spare_topo_route(t, a, b, ab, 32);
                assert_int_equal(spare_topo_route(t, b, a, ba, 32), h);
                for (int i = 0; i < h; i++) {
                    /* link (node, dim, dir) reversed: from the next node */
                    long l = ba[h - 1 - i];
                    long node = l / (2 * nd);
                    int dim = (int)(l % (2 * nd)) / 2, dir = (int)(l % 2);
                    int c[SPARE_MAX_DIMS];
                    spare_topo_node_coords(t, node, c);
                    int sz = spare_topo_size(t, dim);
                    c[dim] = (c[dim] + (dir ? sz - 1 : 1)) % sz;
                    long rev = spare_topo_node_index(t, c) * 2 * nd + 2 * dim +
                               (1 - dir);
                    assert_int_equal(ab[i], rev);
                }
            }
        spare_topo_destroy(t);
    }
    /* 2-D mesh: from (0,0) to (2,1) X first; from (2,1) to (0,0) Y first */
    spare_topo_t *t;
    assert_int_equal(spare_topo_parse("3x2", "2D(1,1)", &t), 0);
    assert_int_equal(spare_topo_set_routing(t, SPARE_ROUTE_SYMMETRIC), 0);
    long l[4];
    int c0[2] = {0, 0}, c1[2] = {2, 1};
    long a = spare_topo_node_index(t, c0), b = spare_topo_node_index(t, c1);
    assert_int_equal(spare_topo_route(t, a, b, l, 4), 3);
    assert_int_equal(l[0], a * 4 + 0);       /* (0,0) +X */
    assert_int_equal(l[2], (a + 2) * 4 + 2); /* (2,0) +Y */
    assert_int_equal(spare_topo_route(t, b, a, l, 4), 3);
    assert_int_equal(l[0], b * 4 + 3); /* (2,1) -Y */
    spare_topo_destroy(t);
    spare_routing_t r;
    assert_int_equal(spare_routing_parse("SYM", &r), 0);
    assert_int_equal(r, SPARE_ROUTE_SYMMETRIC);
    assert_int_equal(spare_routing_parse("dor", &r), 0);
    assert_int_equal(r, SPARE_ROUTE_DIM_ORDER);
    assert_int_equal(spare_routing_parse("xy", &r), -EINVAL);
    assert_int_equal(spare_routing_parse(NULL, &r), -EINVAL);
    assert_int_equal(spare_topo_set_routing(NULL, SPARE_ROUTE_SYMMETRIC),
                     -EINVAL);
    assert_int_equal(spare_topo_routing(NULL), -EINVAL);
}

static void test_method_names(void **state)
{
    (void)state;
    spare_method_t m;
    char buf[64];
    assert_int_equal(spare_method_parse("hybrid(all)", 3, &m), 0);
    assert_int_equal(m.count, 4);
    assert_int_equal(m.degree[0], 3);
    assert_int_equal(m.degree[3], 0);
    assert_int_equal(spare_method_format(&m, buf, sizeof(buf)), 19);
    assert_string_equal(buf, "hybrid(3D+2D+1D+0D)");
    assert_int_equal(spare_method_parse("hybrid(-2D)", 3, &m), 0);
    spare_method_format(&m, buf, sizeof(buf));
    assert_string_equal(buf, "hybrid(3D+1D+0D)");
    assert_int_equal(spare_method_parse("HYBRID(3d+1d+0d)", 3, &m), 0);
    spare_method_format(&m, buf, sizeof(buf));
    assert_string_equal(buf, "hybrid(3D+1D+0D)");
    assert_int_equal(spare_method_parse("hybrid(-2D-0D)", 3, &m), 0);
    spare_method_format(&m, buf, sizeof(buf));
    assert_string_equal(buf, "hybrid(3D+1D)");
    assert_int_equal(spare_method_parse("1D", 2, &m), 0);
    spare_method_format(&m, buf, sizeof(buf));
    assert_string_equal(buf, "1D");
    assert_int_equal(spare_method_format(&m, buf, 2), -ENOSPC);
    static const char *bad[] = {"3D",
                                "hybrid(1D+2D)",
                                "hybrid(2D+2D)",
                                "hybrid(-3D)",
                                "hybrid(",
                                "hybrid(all",
                                "D",
                                "1",
                                "hybrid()",
                                "hybrid(2D+)",
                                "hybrid(-1D-1D)",
                                "0D "};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(spare_method_parse(bad[i], 2, &m), -EINVAL);
}

static void test_strerror_names_every_code(void **state)
{
    (void)state;
    int codes[] = {0, -EINVAL, -ENOMEM, -ERANGE, -EEXIST, -ENOSPC, -EAGAIN};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        const char *s = spare_strerror(codes[i]);
        assert_non_null(s);
        assert_string_not_equal(s, "unknown error");
    }
    assert_string_equal(spare_strerror(-12345), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spare_counts_of_paper_examples),
        cmocka_unit_test(test_percentage_formula_matches_counted_spares),
        cmocka_unit_test(test_bad_topologies_are_rejected),
        cmocka_unit_test(test_torus_flags_and_logical_grid),
        cmocka_unit_test(test_route_is_dimension_ordered),
        cmocka_unit_test(test_symmetric_route_is_reversible),
        cmocka_unit_test(test_method_names),
        cmocka_unit_test(test_strerror_names_every_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
