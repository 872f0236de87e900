/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_fta_core.c: the protocol core driven by a tiny in-process network:
 * agreement values and failed sets, splicing a dead member out, a new
 * root after the root's failure, consecutive instances with collection,
 * the user reduction, revoke, and rejection of bad input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fta.h"

#define MAXP 16
#define MAXM 4096

typedef struct tmsg {
    uint32_t src, dst;
    size_t len;
    unsigned char buf[512];
} tmsg_t;

typedef struct net {
    uint32_t P;
    fta_node_t *node[MAXP];
    uint32_t id[MAXP];
    int alive[MAXP];
    tmsg_t *q;
    size_t head, tail;
    int revoked[MAXP];
    uint64_t sent;
} net_t;

static net_t *g_net;
static int g_fast; /* fta_config_t.fast of the nodes net_init creates */

static int t_send(void *ctx, uint32_t dest, const void *buf, size_t len)
{
    uint32_t src = *(uint32_t *)ctx;
    assert_true(len <= sizeof g_net->q[0].buf);
    assert_true(g_net->tail < MAXM);
    tmsg_t *m = &g_net->q[g_net->tail++];
    m->src = src;
    m->dst = dest;
    m->len = len;
    memcpy(m->buf, buf, len);
    g_net->sent++;
    return 0;
}

static void t_revoked(void *ctx)
{
    g_net->revoked[*(uint32_t *)ctx] = 1;
}

static void t_sum(void *ctx, void *inout, const void *in, size_t len)
{
    (void)ctx;
    (void)len;
    int64_t a, b;
    memcpy(&a, inout, sizeof a);
    memcpy(&b, in, sizeof b);
    a += b;
    memcpy(inout, &a, sizeof a);
}

static void net_init(net_t *n, uint32_t P, uint32_t arity, size_t ulen)
{
    static const fta_ops_t ops = {t_send, NULL, t_revoked, t_sum, NULL};
    memset(n, 0, sizeof *n);
    n->q = calloc(MAXM, sizeof *n->q);
    assert_non_null(n->q);
    n->P = P;
    g_net = n;
    for (uint32_t p = 0; p < P; p++) {
        fta_config_t c = {P, p, arity, ulen, g_fast};
        n->id[p] = p;
        n->alive[p] = 1;
        assert_int_equal(fta_node_create(&c, &ops, &n->id[p], &n->node[p]), 0);
    }
}

static void net_free(net_t *n)
{
    for (uint32_t p = 0; p < n->P; p++)
        fta_node_destroy(n->node[p]);
    free(n->q);
}

/* Deliver everything in FIFO order; messages to dead members vanish. */
static void net_run(net_t *n)
{
    while (n->head < n->tail) {
        tmsg_t *m = &n->q[n->head++];
        if (n->alive[m->dst] && n->alive[m->src])
            assert_int_equal(
                fta_node_recv(n->node[m->dst], m->src, m->buf, m->len), 0);
    }
}

static void net_kill(net_t *n, uint32_t victim)
{
    n->alive[victim] = 0;
    for (uint32_t p = 0; p < n->P; p++)
        if (n->alive[p])
            assert_int_equal(fta_node_failed(n->node[p], victim), 0);
}

static void agree_all(net_t *n, uint64_t expect_inst, const uint32_t *acked,
                      size_t nacked)
{
    for (uint32_t p = 0; p < n->P; p++) {
        if (!n->alive[p])
            continue;
        uint64_t inst = 0;
        int64_t one = 1;
        assert_int_equal(fta_agree_start(n->node[p], (int32_t) ~(1u << p), &one,
                                         acked, nacked, &inst),
                         0);
        assert_int_equal(inst, expect_inst);
    }
}

static void agree_all_noubuf(net_t *n, uint64_t expect_inst)
{
    for (uint32_t p = 0; p < n->P; p++) {
        if (!n->alive[p])
            continue;
        uint64_t inst = 0;
        assert_int_equal(fta_agree_start(n->node[p], (int32_t) ~(1u << p), NULL,
                                         NULL, 0, &inst),
                         0);
        assert_int_equal(inst, expect_inst);
    }
}

static void expect_decision(net_t *n, uint64_t inst, int32_t value, int rc,
                            uint32_t nfailed)
{
    for (uint32_t p = 0; p < n->P; p++) {
        if (!n->alive[p])
            continue;
        fta_decision_t d;
        assert_int_equal(fta_agree_test(n->node[p], inst, &d), 1);
        assert_int_equal(d.value, value);
        assert_int_equal(d.rc, rc);
        assert_int_equal(d.nfailed, nfailed);
        fta_decision_release(&d);
    }
}

static void failure_free_agreement_is_and_of_all_values(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 7, 2, 0);
    agree_all_noubuf(&n, 1);
    net_run(&n);
    expect_decision(&n, 1, (int32_t)~0x7fu, 0, 0);
    /* 2(P-1) messages: one UP and one DOWN per tree edge. */
    assert_int_equal(n.sent, 12);
    net_free(&n);
}

static void user_reduction_sums_every_contribution(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 9, 3, sizeof(int64_t));
    agree_all(&n, 1, NULL, 0);
    net_run(&n);
    for (uint32_t p = 0; p < n.P; p++) {
        fta_decision_t d;
        int64_t sum;
        assert_int_equal(fta_agree_test(n.node[p], 1, &d), 1);
        memcpy(&sum, d.ubuf, sizeof sum);
        assert_int_equal(sum, 9);
        fta_decision_release(&d);
    }
    net_free(&n);
}

static void dead_inner_node_is_spliced_out(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 7, 2, 0);
    net_kill(&n, 1); /* before anyone starts: its children 3,4 reattach */
    agree_all_noubuf(&n, 1);
    net_run(&n);
    expect_decision(&n, 1, (int32_t)~0x7du, FTA_EPROCFAILED, 1);
    net_free(&n);
}

static void root_failure_mid_agreement_elects_new_root(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 6, 2, 0);
    agree_all_noubuf(&n, 1);
    /* Deliver only part of the UP phase, then the root dies. */
    for (int i = 0; i < 3 && n.head < n.tail; i++) {
        tmsg_t *m = &n.q[n.head++];
        assert_int_equal(fta_node_recv(n.node[m->dst], m->src, m->buf, m->len),
                         0);
    }
    net_kill(&n, 0);
    net_run(&n);
    for (uint32_t p = 1; p < n.P; p++) {
        fta_decision_t d;
        assert_int_equal(fta_agree_test(n.node[p], 1, &d), 1);
        assert_int_equal(d.nfailed, 1);
        assert_int_equal(d.failed[0], 0);
        assert_int_equal(d.value & 0x3e, 0); /* every survivor counted */
        assert_int_equal(d.rc, FTA_EPROCFAILED);
        fta_decision_release(&d);
    }
    fta_stats_t st;
    fta_node_get_stats(n.node[1], &st);
    assert_true(st.ballots >= 1);
    net_free(&n);
}

static void fast_path_decides_in_one_exchange(void **state)
{
    (void)state;
    net_t n;
    g_fast = 1;
    net_init(&n, 5, 2, sizeof(int64_t));
    g_fast = 0;
    agree_all(&n, 1, NULL, 0);
    net_run(&n);
    expect_decision(&n, 1, (int32_t)~0x1fu, 0, 0);
    assert_int_equal(n.sent, 5 * 4); /* P(P-1), no tree messages */
    for (uint32_t p = 0; p < n.P; p++) {
        fta_stats_t st;
        fta_decision_t d;
        int64_t sum;
        fta_node_get_stats(n.node[p], &st);
        assert_int_equal(st.fast, 1);
        assert_int_equal(fta_agree_test(n.node[p], 1, &d), 1);
        memcpy(&sum, d.ubuf, sizeof sum);
        assert_int_equal(sum, 5);
        fta_decision_release(&d);
    }
    /* Second instance: member 2 dies after its contribution reached only
     * members 0 and 1.  0 and 1 decide on the fast path (with 2's value);
     * 3 and 4 fall back to the tree, which must adopt that decision. */
    agree_all(&n, 2, NULL, 0);
    size_t end = n.tail;
    for (size_t i = n.head; i < end; i++) {
        tmsg_t *m = &n.q[i];
        if (m->src == 2 && m->dst > 1)
            continue;
        assert_int_equal(fta_node_recv(n.node[m->dst], m->src, m->buf, m->len),
                         0);
    }
    n.head = end;
    fta_decision_t d0;
    assert_int_equal(fta_agree_test(n.node[0], 2, &d0), 1);
    assert_int_equal(fta_agree_test(n.node[3], 2, NULL), 0);
    net_kill(&n, 2);
    net_run(&n);
    expect_decision(&n, 2, d0.value, d0.rc, d0.nfailed);
    assert_int_equal(d0.value, (int32_t)~0x1fu);
    fta_decision_release(&d0);
    net_free(&n);
}

static void acknowledged_failures_give_success_next_time(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 5, 2, 0);
    net_kill(&n, 3);
    agree_all_noubuf(&n, 1);
    net_run(&n);
    expect_decision(&n, 1, (int32_t)~0x17u, FTA_EPROCFAILED, 1);
    uint32_t acked[] = {3};
    agree_all(&n, 2, acked, 1);
    net_run(&n);
    expect_decision(&n, 2, (int32_t)~0x17u, 0, 1);
    /* Instance 1 is collected once instance 2 is decided. */
    assert_int_equal(fta_node_low_water(n.node[0]), 2);
    assert_int_equal(fta_agree_test(n.node[0], 1, NULL), -ENOENT);
    net_free(&n);
}

static void late_member_gets_the_decision(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 4, 2, 0);
    for (uint32_t p = 0; p < 3; p++)
        assert_int_equal(fta_agree_start(n.node[p], 1, NULL, NULL, 0, NULL), 0);
    net_run(&n);
    for (uint32_t p = 0; p < 4; p++)
        assert_int_equal(fta_agree_test(n.node[p], 1, NULL), 0);
    assert_int_equal(fta_agree_start(n.node[3], 1, NULL, NULL, 0, NULL), 0);
    net_run(&n);
    expect_decision(&n, 1, 1, 0, 0);
    /* The next instance may not start before this one is decided. */
    net_free(&n);
}

static void start_before_decision_is_busy(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 2, 2, 0);
    assert_int_equal(fta_agree_start(n.node[0], 1, NULL, NULL, 0, NULL), 0);
    assert_int_equal(fta_agree_start(n.node[0], 1, NULL, NULL, 0, NULL),
                     -EBUSY);
    net_free(&n);
}

static void revoke_reaches_every_live_member(void **state)
{
    (void)state;
    net_t n;
    net_init(&n, 13, 2, 0);
    net_kill(&n, 5);
    net_kill(&n, 6);
    assert_int_equal(fta_revoke(n.node[12]), 0);
    net_run(&n);
    for (uint32_t p = 0; p < n.P; p++)
        if (n.alive[p])
            assert_true(fta_is_revoked(n.node[p]));
    net_free(&n);
}

static void bad_input_is_rejected(void **state)
{
    (void)state;
    static const fta_ops_t ops = {t_send, NULL, NULL, NULL, NULL};
    fta_config_t c = {4, 4, 2, 0, 0};
    fta_node_t *node = NULL;
    assert_int_equal(fta_node_create(&c, &ops, NULL, &node), -EINVAL);
    c.rank = 0;
    c.arity = 1;
    assert_int_equal(fta_node_create(&c, &ops, NULL, &node), -EINVAL);
    c.arity = 2;
    net_t n;
    net_init(&n, 2, 2, 0);
    unsigned char junk[20] = {1, 2, 3};
    assert_int_equal(fta_node_recv(n.node[0], 1, junk, sizeof junk),
                     FTA_EPROTO);
    assert_int_equal(fta_node_recv(n.node[0], 1, junk, 3), FTA_EPROTO);
    assert_int_equal(fta_node_failed(n.node[0], 7), -EINVAL);
    uint32_t self = 0;
    assert_int_equal(fta_agree_start(n.node[0], 1, NULL, &self, 1, NULL),
                     -EINVAL);
    assert_string_equal(fta_strerror(FTA_EPROCFAILED),
                        "a process failed that not every member acknowledged");
    net_free(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failure_free_agreement_is_and_of_all_values),
        cmocka_unit_test(user_reduction_sums_every_contribution),
        cmocka_unit_test(dead_inner_node_is_spliced_out),
        cmocka_unit_test(root_failure_mid_agreement_elects_new_root),
        cmocka_unit_test(fast_path_decides_in_one_exchange),
        cmocka_unit_test(acknowledged_failures_give_success_next_time),
        cmocka_unit_test(late_member_gets_the_decision),
        cmocka_unit_test(start_before_decision_is_busy),
        cmocka_unit_test(revoke_reaches_every_live_member),
        cmocka_unit_test(bad_input_is_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
