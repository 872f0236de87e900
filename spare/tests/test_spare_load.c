/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_spare_load.c: message patterns and per-link counts.  The library
 * updates loads incrementally; here they are checked against a count made
 * from scratch with spare_topo_route() over messages generated in the test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spare.h"

/* Star stencil messages, generated independently of the library. */
static long star_msgs(const spare_topo_t *t, int periodic, long *src, long *dst)
{
    int nd = spare_topo_ndims(t), rs[SPARE_MAX_DIMS];
    long P = spare_topo_ranks(t), n = 0;
    for (int i = 0; i < nd; i++)
        rs[i] = spare_topo_rank_size(t, i);
    for (long r = 0; r < P; r++) {
        int c[SPARE_MAX_DIMS];
        long v = r;
        for (int i = 0; i < nd; i++) {
            c[i] = (int)(v % rs[i]);
            v /= rs[i];
        }
        for (int i = 0; i < nd; i++)
            for (int s = -1; s <= 1; s += 2) {
                int d[SPARE_MAX_DIMS];
                memcpy(d, c, sizeof(d));
                d[i] += s;
                if (d[i] < 0 || d[i] >= rs[i]) {
                    if (!periodic)
                        continue;
                    d[i] = (d[i] + rs[i]) % rs[i];
                }
                long q = 0;
                for (int j = nd - 1; j >= 0; j--)
                    q = q * rs[j] + d[j];
                if (q == r)
                    continue;
                if (src) {
                    src[n] = r;
                    dst[n] = q;
                }
                n++;
            }
    }
    return n;
}

/* Compare every link of the map with a count from scratch; returns max.
 * With home (a failure-free map) the paper's rule: a message from a rank
 * away from its home node to a rank on its home node is not counted. */
static int check_against_oracle(const spare_topo_t *t, const spare_map_t *m,
                                int periodic, const spare_map_t *home)
{
    long n = star_msgs(t, periodic, NULL, NULL);
    long *src = malloc(sizeof(long) * (size_t)n);
    long *dst = malloc(sizeof(long) * (size_t)n);
    long nl = spare_topo_links(t);
    int *load = calloc((size_t)nl, sizeof(int));
    long *links = malloc(sizeof(long) * 4096);
    assert_non_null(src);
    assert_non_null(dst);
    assert_non_null(load);
    assert_non_null(links);
    star_msgs(t, periodic, src, dst);
    for (long k = 0; k < n; k++) {
        if (home &&
            spare_map_rank_node(m, src[k]) !=
                spare_map_rank_node(home, src[k]) &&
            spare_map_rank_node(m, dst[k]) == spare_map_rank_node(home, dst[k]))
            continue;
        int h = spare_topo_route(t, spare_map_rank_node(m, src[k]),
                                 spare_map_rank_node(m, dst[k]), links, 4096);
        assert_true(h >= 0 && h <= 4096);
        for (int i = 0; i < h; i++)
            load[links[i]]++;
    }
    int mx = 0, nd = spare_topo_ndims(t);
    for (long l = 0; l < nl; l++) {
        long node = l / (2 * nd);
        int dim = (int)(l % (2 * nd)) / 2, dir = (int)(l % 2);
        assert_int_equal(spare_map_link_load(m, 0, node, dim, dir), load[l]);
        if (load[l] > mx)
            mx = load[l];
    }
    assert_int_equal(spare_map_collisions(m), mx);
    /* the busiest link and the messages listed on it */
    spare_link_t bl;
    long nbl = 0;
    assert_int_equal(spare_map_busiest_link(m, &bl, &nbl), mx);
    long lid = bl.node * 2 * nd + 2 * bl.dim + bl.dir, same = 0, first = -1;
    for (long l = 0; l < nl; l++)
        if (load[l] == mx && same++ == 0)
            first = l;
    assert_int_equal(nbl, same);
    assert_int_equal(lid, first);
    long ms[64], md[64];
    long nm = spare_map_link_messages(m, &bl, ms, md, 64);
    assert_int_equal(nm, mx);
    for (long k = 0; k < nm && k < 64; k++) {
        int h = spare_topo_route(t, spare_map_rank_node(m, ms[k]),
                                 spare_map_rank_node(m, md[k]), links, 4096);
        int on = 0;
        for (int i = 0; i < h; i++)
            on |= links[i] == lid;
        assert_true(on);
    }
    free(src);
    free(dst);
    free(load);
    free(links);
    return mx;
}

static void test_incremental_loads_match_recount(void **state)
{
    (void)state;
    static const struct {
        const char *dims, *alloc, *method;
        int periodic;
        spare_routing_t routing;
        spare_count_t count;
    } cfg[] = {
        {"9x8", "2D(2,1)", "hybrid(all)", 0, SPARE_ROUTE_DIM_ORDER, 0},
        {"9tx8t", "2D(1,1)", "hybrid(all)", 1, SPARE_ROUTE_DIM_ORDER, 0},
        {"6x5x5", "3D(2,1)", "hybrid(all)", 0, SPARE_ROUTE_DIM_ORDER, 0},
        {"6x5tx4", "3D(3,1)", "hybrid(-2D)", 1, SPARE_ROUTE_DIM_ORDER, 0},
        {"4x4x3x3", "4D(2,1)", "hybrid(all)", 0, SPARE_ROUTE_DIM_ORDER, 0},
        {"10x10", "2D(1,1)", "0D", 0, SPARE_ROUTE_DIM_ORDER, 0},
        {"10x10", "2D(1,1)", "0D", 0, SPARE_ROUTE_SYMMETRIC, 0},
        {"6tx5x4t", "3D(2,1)", "hybrid(all)", 1, SPARE_ROUTE_SYMMETRIC, 0},
        {"9x8", "2D(2,1)", "hybrid(all)", 0, SPARE_ROUTE_DIM_ORDER,
         SPARE_COUNT_PAPER},
        {"10x10", "2D(1,1)", "0D", 0, SPARE_ROUTE_DIM_ORDER, SPARE_COUNT_PAPER},
        {"9tx8t", "2D(2,1)", "hybrid(1D+0D)", 1, SPARE_ROUTE_DIM_ORDER,
         SPARE_COUNT_PAPER},
        {"6x5x5", "3D(2,1)", "hybrid(all)", 0, SPARE_ROUTE_DIM_ORDER,
         SPARE_COUNT_PAPER},
        {"6tx5x4t", "3D(2,1)", "hybrid(all)", 1, SPARE_ROUTE_SYMMETRIC,
         SPARE_COUNT_PAPER},
    };
    for (size_t i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
        spare_topo_t *t;
        spare_pattern_t *p;
        spare_map_t *m;
        spare_method_t me;
        assert_int_equal(spare_topo_parse(cfg[i].dims, cfg[i].alloc, &t), 0);
        assert_int_equal(spare_topo_set_routing(t, cfg[i].routing), 0);
        assert_int_equal(spare_topo_set_count(t, cfg[i].count), 0);
        assert_int_equal(spare_topo_set_qd_limit(t, SPARE_QD_UNLIMITED), 0);
        assert_int_equal(
            spare_method_parse(cfg[i].method, spare_topo_ndims(t), &me), 0);
        assert_int_equal(
            spare_pattern_create(t, SPARE_PAT_STAR, cfg[i].periodic, &p), 0);
        assert_int_equal(spare_pattern_messages(p),
                         star_msgs(t, cfg[i].periodic, NULL, NULL));
        spare_map_t *home = NULL;
        assert_int_equal(spare_map_create(t, &me, NULL, &home), 0);
        if (cfg[i].count != SPARE_COUNT_PAPER) {
            spare_map_destroy(home);
            home = NULL;
        }
        assert_int_equal(spare_map_create(t, &me, p, &m), 0);
        int base = check_against_oracle(t, m, cfg[i].periodic, home);
        if (!cfg[i].periodic)
            assert_int_equal(base, 1); /* no collision without failure */
        unsigned seed = 99u + (unsigned)i;
        for (long k = 0; k < spare_topo_spares(t); k++) {
            seed = seed * 1103515245u + 12345u;
            long r = (long)((seed >> 8) % (unsigned)spare_topo_ranks(t));
            assert_int_equal(
                spare_map_fail_node(m, spare_map_rank_node(m, r), NULL), 0);
            check_against_oracle(t, m, cfg[i].periodic, home);
        }
        spare_map_destroy(m);
        spare_map_destroy(home);
        spare_pattern_destroy(p);
        spare_topo_destroy(t);
    }
}

/* One 0D substitution far from the spares on a 2-D mesh: the four
 * messages the substitute sends from the spare in the failed node's row go
 * X first along that row and share each link up to the failed node's right
 * neighbour with the link's own message: 5 (the paper's Figure 4).  With
 * symmetric routing the two to the upper and lower neighbours go up and
 * down the spare column first: 3.  1D sliding of the row instead gives
 * 2 + F = 3 (paper). */
static void test_single_failure_counts(void **state)
{
    (void)state;
    spare_topo_t *t;
    spare_pattern_t *p;
    spare_method_t me;
    spare_map_t *m;
    assert_int_equal(spare_topo_parse("10x10", "2D(1,1)", &t), 0);
    assert_int_equal(spare_pattern_create(t, SPARE_PAT_STAR, 0, &p), 0);
    int c[2] = {3, 5};
    for (int k = 0; k <= 2; k++) {
        spare_method_parse(k == 0 ? "0D" : k == 1 ? "1D" : "2D", 2, &me);
        assert_int_equal(spare_map_create(t, &me, p, &m), 0);
        assert_int_equal(spare_map_collisions(m), 1);
        assert_int_equal(
            spare_map_fail_node(m, spare_topo_node_index(t, c), NULL), 0);
        assert_int_equal(spare_map_collisions(m), k == 0 ? 5 : k == 1 ? 3 : 1);
        spare_map_destroy(m);
    }
    assert_int_equal(spare_topo_set_routing(t, SPARE_ROUTE_SYMMETRIC), 0);
    spare_method_parse("0D", 2, &me);
    assert_int_equal(spare_map_create(t, &me, p, &m), 0);
    assert_int_equal(spare_map_fail_node(m, spare_topo_node_index(t, c), NULL),
                     0);
    assert_int_equal(spare_map_collisions(m), 3);
    spare_map_destroy(m);
    spare_pattern_destroy(p);
    spare_topo_destroy(t);
}

static void test_nine_point_and_collective_patterns(void **state)
{
    (void)state;
    spare_topo_t *t;
    spare_pattern_t *p;
    spare_method_t me;
    spare_map_t *m;
    spare_pattern_kind_t k;
    assert_int_equal(spare_topo_parse("9x9", "2D(1,1)", &t), 0);
    spare_method_parse("hybrid(all)", 2, &me);
    /* 9P: a link carries the straight message and two diagonals (XY) */
    assert_int_equal(spare_pattern_create(t, SPARE_PAT_9P, 0, &p), 0);
    assert_int_equal(spare_pattern_phases(p), 1);
    assert_int_equal(spare_map_create(t, &me, p, &m), 0);
    assert_int_equal(spare_map_collisions(m), 3);
    spare_map_destroy(m);
    spare_pattern_destroy(p);
    /* 72 ranks: 7 rounds; recursive doubling leaves out partners >= 72 */
    assert_int_equal(spare_pattern_create(t, SPARE_PAT_BARRIER_DISSEM, 0, &p),
                     0);
    assert_int_equal(spare_pattern_phases(p), 7);
    assert_int_equal(spare_pattern_messages(p), 72 * 7);
    assert_int_equal(spare_map_create(t, &me, p, &m), 0);
    int before = spare_map_collisions(m);
    assert_true(before >= 1);
    for (int ph = 0; ph < 7; ph++)
        assert_true(spare_map_link_load(m, ph, 0, 0, 0) >= 0);
    assert_int_equal(spare_map_link_load(m, 7, 0, 0, 0), -EINVAL);
    spare_map_destroy(m);
    spare_pattern_destroy(p);
    assert_int_equal(spare_pattern_create(t, SPARE_PAT_ALLREDUCE_RD, 0, &p), 0);
    assert_int_equal(spare_pattern_phases(p), 7);
    long expect = 0;
    for (long b = 1; b < 72; b <<= 1)
        for (long r = 0; r < 72; r++)
            expect += (r ^ b) < 72;
    assert_int_equal(spare_pattern_messages(p), expect);
    spare_pattern_destroy(p);
    assert_int_equal(spare_pattern_parse("5p", 2, &k), 0);
    assert_int_equal(k, SPARE_PAT_STAR);
    assert_int_equal(spare_pattern_parse("7p", 2, &k), -EINVAL);
    assert_int_equal(spare_pattern_parse("9p", 3, &k), -EINVAL);
    assert_int_equal(spare_pattern_parse("barrier-dissem", 4, &k), 0);
    assert_int_equal(spare_pattern_parse("ring", 2, &k), -EINVAL);
    spare_topo_destroy(t);
    assert_int_equal(spare_topo_parse("4x4x4", "3D(1,1)", &t), 0);
    assert_int_equal(spare_pattern_create(t, SPARE_PAT_9P, 0, &p), -EINVAL);
    spare_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incremental_loads_match_recount),
        cmocka_unit_test(test_single_failure_counts),
        cmocka_unit_test(test_nine_point_and_collective_patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
