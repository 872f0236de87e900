/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_multi.c: a delegatee thread serving several client
 * threads under each idle policy and each client wait policy, and dead
 * peers (a delegatee thread or a client thread that ends without saying
 * so).  The same program runs pinned to one CPU from
 * test_delegation_onecore.sh, where no wait may spin without yielding.
 *
 * Environment: DLG_TEST_ITERS (requests per client, default 2000).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "deleg.h"
#include "dlg_test_ops.h"
#include "th_util.h"

enum { OP_DIE = 9 };
#define NCLIENTS 4

struct run {
    dlg_region_t *r;
    dlg_delegatee_t *dg;
    dlg_policy_t idle;
    dlg_delegatee_attr_t attr;
    int iters;
    int die_handler;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;
    int run_rc;
    int destroy_rc;
    _Atomic int errors;
    /* dead-client bookkeeping */
    int dead_index;
    pid_t dead_pid;
    int dead_calls;
};

static int64_t op_die(dlg_req_t *req, void *ctx)
{
    (void)req;
    (void)ctx;
    pthread_exit(NULL); /* ends the delegatee thread inside a request */
}

static void on_dead(dlg_delegatee_t *dg, int client, pid_t pid, void *ctx)
{
    (void)dg;
    struct run *r = ctx;
    pthread_mutex_lock(&r->mu);
    r->dead_index = client;
    r->dead_pid = pid;
    r->dead_calls++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void *delegatee_main(void *arg)
{
    struct run *r = arg;
    dlg_delegatee_attr_t a = r->attr;
    a.idle_policy = r->idle;
    a.on_client_dead = on_dead;
    a.ctx = r;
    int rc = dlg_delegatee_create(r->r, &a, &r->dg);
    if (rc == 0) {
        dlg_delegatee_register(r->dg, OP_ECHO, op_echo, NULL, DLG_POLICY_POLL);
        dlg_delegatee_register(r->dg, OP_CSUM, op_csum, NULL, DLG_POLICY_BLOCK);
        dlg_delegatee_register(r->dg, OP_FILL, op_fill, NULL,
                               DLG_POLICY_ADAPTIVE);
        if (r->die_handler)
            dlg_delegatee_register(r->dg, OP_DIE, op_die, NULL,
                                   DLG_POLICY_DEFAULT);
    }
    pthread_mutex_lock(&r->mu);
    r->ready = rc == 0 ? 1 : rc;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (rc)
        return NULL;
    r->run_rc = dlg_delegatee_run(r->dg);
    /* The creating thread stands for the delegatee's life: it destroys. */
    r->destroy_rc = dlg_delegatee_destroy(r->dg);
    return NULL;
}

static void run_start(struct run *r, pthread_t *th)
{
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->dead_index = -1;
    size_t need = dlg_region_need(&r->attr);
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, "multi", need,
                                       DLG_REGION_LOCAL, &r->r),
                     0);
    assert_int_equal(pthread_create(th, NULL, delegatee_main, r), 0);
    pthread_mutex_lock(&r->mu);
    while (!r->ready)
        pthread_cond_wait(&r->cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    assert_int_equal(r->ready, 1);
}

static void run_finish(struct run *r, pthread_t th)
{
    dlg_delegatee_stop(r->dg);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(r->run_rc, 0);
    assert_int_equal(r->destroy_rc, 0);
    assert_int_equal(dlg_region_close(r->r), 0);
}

static int check(struct run *r, int ok)
{
    if (!ok)
        atomic_fetch_add(&r->errors, 1);
    return ok;
}

struct cl {
    struct run *r;
    int id;
    dlg_policy_t pol; /* DEFAULT: the operations' own policies */
    int served;
};

static void *client_main(void *arg)
{
    struct cl *cl = arg;
    struct run *r = cl->r;
    dlg_client_attr_t ca = {.same_address_space = 1};
    dlg_client_t *c;
    if (!check(r, dlg_client_attach(r->r, &ca, &c) == 0))
        return NULL;
    uint8_t buf[4096], out[512], want[512];
    for (int k = 0; k < r->iters; k++) {
        int kind = k % 4;
        dlg_call_t call = {.policy = cl->pol};
        int64_t res = -1;
        size_t len = (size_t)((k * 7 + cl->id) % 300);
        t_pattern(buf, sizeof(buf), (unsigned)(k + cl->id));
        if (kind == 0) { /* inline echo with arguments */
            call.op = OP_ECHO;
            call.nargs = 2;
            call.args[0] = (uint64_t)cl->id;
            call.args[1] = (uint64_t)k;
            call.buf = buf;
            call.len = len % 200;
            uint8_t rep[DLG_REPLY_MAX];
            size_t rl = sizeof(rep);
            check(r, dlg_call(c, &call, &res, rep, &rl) == 0);
            check(r, res == (int64_t)(cl->id + k + (int)call.len));
            size_t exp = call.len < DLG_REPLY_MAX ? call.len : DLG_REPLY_MAX;
            check(r, rl == exp && memcmp(rep, buf, rl) == 0);
        } else if (kind == 1) { /* zero-copy checksum */
            call.op = OP_CSUM;
            call.buf = buf;
            call.len = sizeof(buf) - len;
            check(r, dlg_call(c, &call, &res, NULL, NULL) == 0);
            check(r, res == (int64_t)t_csum_full(buf, call.len));
        } else if (kind == 2) { /* output buffer */
            call.op = OP_FILL;
            call.nargs = 1;
            call.args[0] = (uint64_t)k;
            call.buf = out;
            call.len = len;
            call.dir = DLG_BUF_OUT;
            memset(out, 0, sizeof(out));
            check(r, dlg_call(c, &call, &res, NULL, NULL) == 0);
            t_pattern(want, len, (unsigned)k);
            check(r, res == (int64_t)len && memcmp(out, want, len) == 0);
        } else { /* a small pipeline */
            dlg_ticket_t t[4];
            for (int i = 0; i < 4; i++) {
                dlg_call_t p = {.op = OP_ECHO,
                                .nargs = 1,
                                .args = {(uint64_t)(k * 4 + i)},
                                .policy = cl->pol};
                check(r, dlg_submit(c, &p, &t[i]) == 0);
            }
            for (int i = 0; i < 4; i++) {
                check(r, dlg_wait(c, t[i], DLG_POLICY_DEFAULT, &res, NULL,
                                  NULL) == 0);
                check(r, res == k * 4 + i);
            }
        }
        cl->served++;
    }
    check(r, dlg_client_detach(c) == 0);
    return NULL;
}

static void many_clients(dlg_policy_t idle, dlg_policy_t cpol)
{
    struct run r = {.idle = idle};
    const char *it = getenv("DLG_TEST_ITERS");
    r.iters = it ? atoi(it) : 2000;
    if (r.iters <= 0)
        r.iters = 2000;
    pthread_t th, ct[NCLIENTS];
    run_start(&r, &th);
    struct cl cl[NCLIENTS];
    for (int i = 0; i < NCLIENTS; i++) {
        cl[i] = (struct cl){.r = &r, .id = i, .pol = cpol};
        assert_int_equal(pthread_create(&ct[i], NULL, client_main, &cl[i]), 0);
    }
    for (int i = 0; i < NCLIENTS; i++) {
        assert_int_equal(pthread_join(ct[i], NULL), 0);
        assert_int_equal(cl[i].served, r.iters);
    }
    assert_int_equal(atomic_load(&r.errors), 0);
    dlg_stats_t st;
    dlg_delegatee_stats(r.dg, &st);
    /* Every request was served once: 3 calls + 4 pipelined per 4. */
    uint64_t want = 0;
    for (int k = 0; k < r.iters; k++)
        want += k % 4 == 3 ? 4 : 1;
    assert_int_equal(st.requests, want * NCLIENTS);
    if (idle == DLG_POLICY_POLL)
        assert_int_equal(st.sleeps, 0);
    run_finish(&r, th);
}

static void idle_poll_clients_use_op_policies(void **s)
{
    (void)s;
    many_clients(DLG_POLICY_POLL, DLG_POLICY_DEFAULT);
}
static void idle_block_clients_use_op_policies(void **s)
{
    (void)s;
    many_clients(DLG_POLICY_BLOCK, DLG_POLICY_DEFAULT);
}
static void idle_adaptive_clients_use_op_policies(void **s)
{
    (void)s;
    many_clients(DLG_POLICY_ADAPTIVE, DLG_POLICY_DEFAULT);
}
static void idle_block_clients_poll(void **s)
{
    (void)s;
    many_clients(DLG_POLICY_BLOCK, DLG_POLICY_POLL);
}
static void idle_poll_clients_block(void **s)
{
    (void)s;
    many_clients(DLG_POLICY_POLL, DLG_POLICY_BLOCK);
}
static void idle_adaptive_clients_adaptive(void **s)
{
    (void)s;
    many_clients(DLG_POLICY_ADAPTIVE, DLG_POLICY_ADAPTIVE);
}

/* The idle policy may change while clients are served; a delegatee switched
 * to BLOCK goes to sleep once idle. */
static void idle_policy_changes_while_serving(void **st)
{
    (void)st;
    struct run r = {.idle = DLG_POLICY_POLL, .iters = 1000};
    pthread_t th, ct[2];
    run_start(&r, &th);
    struct cl cl[2];
    for (int i = 0; i < 2; i++) {
        cl[i] = (struct cl){.r = &r, .id = i, .pol = DLG_POLICY_ADAPTIVE};
        assert_int_equal(pthread_create(&ct[i], NULL, client_main, &cl[i]), 0);
    }
    dlg_policy_t cycle[] = {DLG_POLICY_BLOCK, DLG_POLICY_ADAPTIVE,
                            DLG_POLICY_POLL};
    for (int k = 0; k < 300; k++) {
        assert_int_equal(dlg_delegatee_set_idle(r.dg, cycle[k % 3]), 0);
        sched_yield();
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(ct[i], NULL), 0);
        assert_int_equal(cl[i].served, r.iters);
    }
    assert_int_equal(atomic_load(&r.errors), 0);
    assert_int_equal(dlg_delegatee_set_idle(r.dg, DLG_POLICY_DEFAULT), -EINVAL);
    dlg_stats_t a, b;
    dlg_delegatee_stats(r.dg, &a);
    assert_int_equal(dlg_delegatee_set_idle(r.dg, DLG_POLICY_BLOCK), 0);
    /* Bounded wait for the first sleep (a hang guard, not a timing). */
    for (int i = 0; i < 10000; i++) {
        dlg_delegatee_stats(r.dg, &b);
        if (b.sleeps > a.sleeps)
            break;
        usleep(1000);
    }
    assert_true(b.sleeps > a.sleeps);
    run_finish(&r, th);
}

/* The delegatee thread ends inside a handler: every waiting policy gets
 * -EOWNERDEAD, later submissions too. */
static void dead_delegatee_thread_is_reported(void **s)
{
    (void)s;
    if (th_robust_refused()) {
        print_message("SKIP: robust mutexes do not report a dead owner "
                      "here (no set_robust_list: an emulator?)\n");
        skip();
    }
    dlg_policy_t pols[] = {DLG_POLICY_POLL, DLG_POLICY_BLOCK,
                           DLG_POLICY_ADAPTIVE};
    for (int p = 0; p < 3; p++) {
        struct run r = {.idle = pols[p], .die_handler = 1};
        pthread_t th;
        run_start(&r, &th);
        dlg_client_t *c;
        dlg_client_attr_t ca = {.same_address_space = 1};
        assert_int_equal(dlg_client_attach(r.r, &ca, &c), 0);
        dlg_call_t call = {.op = OP_ECHO, .nargs = 1, .args = {5}};
        int64_t res;
        assert_int_equal(dlg_call(c, &call, &res, NULL, NULL), 0);
        assert_int_equal(res, 5);
        call = (dlg_call_t){.op = OP_DIE, .policy = pols[p]};
        assert_int_equal(dlg_call(c, &call, &res, NULL, NULL), -EOWNERDEAD);
        call.op = OP_ECHO;
        dlg_ticket_t t;
        assert_int_equal(dlg_submit(c, &call, &t), -EOWNERDEAD);
        assert_int_equal(pthread_join(th, NULL), 0);
        assert_int_equal(dlg_client_detach(c), -EBUSY);
        /* A new client learns it at attach time. */
        assert_int_equal(dlg_client_attach(r.r, &ca, &c), -EOWNERDEAD);
        dlg_delegatee_destroy(r.dg); /* frees memory; the thread is gone */
        assert_int_equal(dlg_region_close(r.r), 0);
    }
}

static dlg_client_t *volatile kept[8];
static _Atomic int nkept;

static void *vanishing_client(void *arg)
{
    struct run *r = arg;
    dlg_client_t *c;
    if (!check(r, dlg_client_attach(r->r, NULL, &c) == 0))
        return NULL;
    dlg_call_t call = {.op = OP_ECHO};
    int64_t res;
    check(r, dlg_call(c, &call, &res, NULL, NULL) == 0);
    dlg_ticket_t t;
    check(r, dlg_submit(c, &call, &t) == 0);
    /* Ends without waiting or detaching.  The handle stays reachable from
     * a global (a dead client cannot free anything; the delegatee recycles
     * its slot), so leak checkers do not count it. */
    kept[atomic_fetch_add(&nkept, 1) % 8] = c;
    return NULL;
}

static void dead_client_thread_is_reported_and_slot_reused(void **s)
{
    (void)s;
    if (th_robust_refused()) {
        print_message("SKIP: robust mutexes do not report a dead owner "
                      "here (no set_robust_list: an emulator?)\n");
        skip();
    }
    dlg_policy_t pols[] = {DLG_POLICY_POLL, DLG_POLICY_BLOCK,
                           DLG_POLICY_ADAPTIVE};
    for (int p = 0; p < 3; p++) {
        struct run r = {.idle = pols[p], .attr = {.max_clients = 1}};
        pthread_t th, ct;
        run_start(&r, &th);
        assert_int_equal(pthread_create(&ct, NULL, vanishing_client, &r), 0);
        assert_int_equal(pthread_join(ct, NULL), 0);
        assert_int_equal(atomic_load(&r.errors), 0);
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 30; /* a guard against a hang, not a timing check */
        pthread_mutex_lock(&r.mu);
        while (!r.dead_calls &&
               pthread_cond_timedwait(&r.cv, &r.mu, &dl) != ETIMEDOUT)
            ;
        pthread_mutex_unlock(&r.mu);
        assert_int_equal(r.dead_calls, 1);
        assert_int_equal(r.dead_index, 0);
        assert_int_equal(r.dead_pid, getpid());
        /* The only slot is free again. */
        dlg_client_t *c = NULL;
        int rc;
        for (int i = 0; i < 3000; i++) {
            rc = dlg_client_attach(r.r, NULL, &c);
            if (rc != -EUSERS)
                break;
            usleep(1000); /* the delegatee frees the slot asynchronously */
        }
        assert_int_equal(rc, 0);
        dlg_call_t call = {.op = OP_ECHO, .nargs = 1, .args = {3}};
        int64_t res;
        assert_int_equal(dlg_call(c, &call, &res, NULL, NULL), 0);
        assert_int_equal(res, 3);
        assert_int_equal(dlg_client_detach(c), 0);
        dlg_stats_t st;
        dlg_delegatee_stats(r.dg, &st);
        assert_int_equal(st.dead_clients, 1);
        run_finish(&r, th);
    }
}

int main(void)
{
    alarm(200);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(idle_poll_clients_use_op_policies),
        cmocka_unit_test(idle_block_clients_use_op_policies),
        cmocka_unit_test(idle_adaptive_clients_use_op_policies),
        cmocka_unit_test(idle_block_clients_poll),
        cmocka_unit_test(idle_poll_clients_block),
        cmocka_unit_test(idle_adaptive_clients_adaptive),
        cmocka_unit_test(idle_policy_changes_while_serving),
        cmocka_unit_test(dead_delegatee_thread_is_reported),
        cmocka_unit_test(dead_client_thread_is_reported_and_slot_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
