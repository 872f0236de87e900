/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_bell.c: doorbells (create, spec, open from this and
 * another process, ring, turn lock, waiter counts, turn functions, the
 * hand-over and the idle wait), completion flags and dlg_flag_wait() with
 * each policy, its hooks and the liveness check.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "deleg.h"

static int turns_run, posts_run, direct_ok;
static unsigned direct_op;
static int direct_who;
static uint64_t direct_arg;

static int t_turn(void)
{
    turns_run++;
    return 3;
}

static int t_post(void)
{
    posts_run++;
    return 0;
}

static int t_direct(unsigned op, int who, uint64_t arg)
{
    if (!direct_ok)
        return -1;
    direct_op = op;
    direct_who = who;
    direct_arg = arg;
    return 0;
}

static const dlg_turns_t T = {
    .turn = t_turn, .post = t_post, .direct = t_direct};

static void test_bell_open_ring(void **state)
{
    (void)state;
    dlg_bell_t *b, *o;
    char spec[32];
    assert_int_equal(dlg_bell_create(&T, &b), 0);
    assert_int_equal(dlg_bell_pid(b), getpid());
    dlg_bell_spec(b, spec, sizeof spec);
    assert_int_equal(dlg_bell_open(spec, &o), 0);
    assert_ptr_not_equal(o, b); /* a mapping of its own, the same page */
    uint32_t seq = atomic_load(&b->seq);
    assert_int_equal(dlg_bell_ring(o), 0);
    assert_int_equal(atomic_load(&b->seq), seq + 1);
    /* a client spinning in a wait runs the turns: no ring */
    dlg_bell_wait_enter(o);
    assert_int_equal(dlg_bell_waiters(b), 1);
    assert_int_equal(dlg_bell_entries(b), 1);
    assert_int_equal(dlg_bell_ring(b), 1);
    assert_int_equal(atomic_load(&b->seq), seq + 1);
    dlg_bell_wait_handback(o); /* leaves and rings */
    assert_int_equal(dlg_bell_waiters(b), 0);
    assert_int_equal(atomic_load(&b->seq), seq + 2);
    /* counters and the user area are shared */
    dlg_bell_posted_add(o);
    assert_int_equal(dlg_bell_posted(b), 1);
    dlg_bell_set_inflight(b, 1);
    assert_int_equal(dlg_bell_inflight(o), 1);
    ((unsigned char *)dlg_bell_user(b))[DLG_BELL_USER - 1] = 0x5a;
    assert_int_equal(((unsigned char *)dlg_bell_user(o))[DLG_BELL_USER - 1],
                     0x5a);
    /* the turn lock */
    assert_int_equal(dlg_bell_turn_try(b), 1);
    assert_true(dlg_bell_turn_busy(o));
    assert_int_equal(dlg_bell_turn_try(o), 0);
    dlg_bell_turn_release(o);
    assert_int_equal(dlg_bell_turn_try(o), 1);
    dlg_bell_turn_release(b);
    /* a peer's ring trusting a spinning client of it for a while */
    uint64_t seen = 0;
    seq = atomic_load(&b->seq);
    assert_int_equal(dlg_bell_ring_trusted(o, &seen), 0); /* rung */
    assert_int_equal(atomic_load(&b->seq), seq + 1);
    assert_int_equal(seen, 0);
    dlg_bell_wait_enter(b);
    assert_int_equal(dlg_bell_ring_trusted(o, &seen), 1); /* not rung */
    assert_int_equal(atomic_load(&b->seq), seq + 1);
    dlg_bell_wait_leave(b);
    /* the turn lock, taken for good */
    dlg_bell_turn_take(o);
    assert_int_equal(dlg_bell_turn_try(b), 0);
    dlg_bell_turn_release(b);
    /* bad specs */
    dlg_bell_t *x;
    assert_int_equal(dlg_bell_open("nonsense", &x), -EINVAL);
    assert_int_equal(dlg_bell_open(NULL, &x), -EINVAL);
    assert_true(dlg_bell_open("1:987654", &x) < 0);
    dlg_bell_close(o);
    dlg_bell_destroy(b);
}

static void test_bell_turns(void **state)
{
    (void)state;
    dlg_bell_t *b, *n;
    dlg_turns_t t;
    assert_int_equal(dlg_bell_create(&T, &b), 0);
    assert_int_equal(dlg_bell_create(NULL, &n), 0);
    assert_int_equal(dlg_bell_turns(n, &t), -ENOENT);
    assert_int_equal(dlg_bell_turns(b, &t), 0);
    turns_run = 0;
    assert_int_equal(dlg_turn_run(&t), 3);
    assert_int_equal(turns_run, 1);
    assert_int_equal(dlg_turn_run(NULL), -2);
    /* the hand-over: refused while the function says the lock is taken,
     * done with the caller's arguments once it takes it */
    direct_ok = 0;
    assert_int_equal(dlg_bell_hand_over(b, &t, 2, 7, 99), -EBUSY);
    assert_int_equal(dlg_bell_hand_over(b, NULL, 2, 7, 99), -EBUSY);
    direct_ok = 1;
    assert_int_equal(dlg_bell_hand_over(b, &t, 2, 7, 99), 0);
    assert_int_equal(direct_op, 2);
    assert_int_equal(direct_who, 7);
    assert_int_equal(direct_arg, 99);
    /* another process cannot run our functions */
    char spec[32];
    dlg_bell_spec(b, spec, sizeof spec);
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0) {
        dlg_bell_t *o;
        dlg_turns_t u;
        int ok = dlg_bell_open(spec, &o) == 0 &&
                 dlg_bell_turns(o, &u) == -EXDEV && dlg_bell_ring(o) == 0;
        _exit(ok ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(p, &st, 0), p);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    dlg_bell_destroy(b);
    dlg_bell_destroy(n);
}

static int hooks, rounds;
static void hook(void *ctx)
{
    (void)ctx;
    hooks++;
}
static void round_fn(void *ctx)
{
    (void)ctx;
    rounds++;
}

struct setter {
    dlg_flag_t *f;
    int n; /* hooks to wait for before setting */
};

static void *set_later(void *arg)
{
    struct setter *s = arg;
    /* the waiter has gone to sleep at least once (block policy: the hook
     * runs before each sleep) */
    while (__atomic_load_n(&hooks, __ATOMIC_RELAXED) < s->n)
        sched_yield();
    dlg_flag_set(s->f, 1);
    return NULL;
}

static void test_flag_wait_policies(void **state)
{
    (void)state;
    dlg_policy_t pols[] = {DLG_POLICY_POLL, DLG_POLICY_BLOCK,
                           DLG_POLICY_ADAPTIVE, DLG_POLICY_DEFAULT};
    for (unsigned i = 0; i < sizeof pols / sizeof pols[0]; i++) {
        dlg_flag_t f = {0};
        hooks = rounds = 0;
        dlg_waiter_t w = {.policy = pols[i],
                          .hook = hook,
                          .hook_mask = 0,
                          .round = round_fn,
                          .nap_ns = 1000000};
        struct setter s = {&f, 1};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, set_later, &s), 0);
        assert_int_equal(dlg_flag_wait(&f, &w), 0);
        assert_true(dlg_flag_done(&f));
        assert_true(hooks >= 1);
        assert_true(rounds >= 1);
        pthread_join(th, NULL);
        if (pols[i] == DLG_POLICY_BLOCK)
            assert_int_equal(atomic_load(&f.waiting), 1); /* it slept */
        if (pols[i] == DLG_POLICY_POLL)
            assert_int_equal(atomic_load(&f.waiting), 0); /* never */
    }
    /* set already: returns at once, no hook */
    dlg_flag_t f = {0};
    dlg_flag_set(&f, 0);
    hooks = 0;
    dlg_waiter_t w = {.policy = DLG_POLICY_BLOCK, .hook = hook};
    assert_int_equal(dlg_flag_wait(&f, &w), 0);
    assert_int_equal(hooks, 0);
}

static void test_flag_wait_turns(void **state)
{
    (void)state;
    dlg_bell_t *b;
    dlg_turns_t t;
    assert_int_equal(dlg_bell_create(&T, &b), 0);
    assert_int_equal(dlg_bell_turns(b, &t), 0);
    dlg_flag_t f = {0};
    hooks = 0;
    turns_run = 0;
    dlg_waiter_t w = {.policy = DLG_POLICY_POLL,
                      .bell = b,
                      .turns = &t,
                      .hook = hook,
                      .hook_mask = 3};
    /* one round: a turn, the hook on every 4th */
    assert_int_equal(dlg_wait_round(&w, 4), 3);
    assert_int_equal(turns_run, 1);
    assert_int_equal(hooks, 1);
    assert_int_equal(dlg_wait_round(&w, 5), 3);
    assert_int_equal(hooks, 1);
    assert_int_equal(dlg_poll_round(&t, 1, 8), 3);
    assert_int_equal(dlg_poll_round(NULL, 1, 8), -2);
    struct setter s = {&f, 3};
    pthread_t th;
    hooks = 0;
    assert_int_equal(pthread_create(&th, NULL, set_later, &s), 0);
    assert_int_equal(dlg_flag_wait(&f, &w), 0);
    pthread_join(th, NULL);
    assert_true(turns_run > 3); /* the spinning waiter ran turns */
    assert_int_equal(dlg_bell_waiters(b), 0); /* and left */
    assert_true(dlg_bell_entries(b) >= 1);
    dlg_bell_destroy(b);
}

static void test_flag_wait_dead_peer(void **state)
{
    (void)state;
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0)
        _exit(0);
    int st;
    assert_int_equal(waitpid(p, &st, 0), p);
    assert_int_equal(dlg_pid_alive(p), 0);
    assert_int_equal(dlg_pid_alive(getpid()), 1);
    dlg_policy_t pols[] = {DLG_POLICY_POLL, DLG_POLICY_BLOCK,
                           DLG_POLICY_ADAPTIVE};
    for (unsigned i = 0; i < 3; i++) {
        dlg_flag_t f = {0};
        dlg_waiter_t w = {.policy = pols[i], .peer = p, .nap_ns = 1000000};
        assert_int_equal(dlg_flag_wait(&f, &w), -EOWNERDEAD);
    }
}

struct idler {
    dlg_bell_t *b;
    int slept;
};

static unsigned flags_sleep(void)
{
    return DLG_IDLE_SLEEP;
}

static int no_work(void)
{
    return 0;
}

static void *idle_until_rung(void *arg)
{
    struct idler *x = arg;
    dlg_idle_t st = {0};
    while (!dlg_bell_idle(x->b, &st, 0, no_work, flags_sleep, 0))
        ;
    x->slept = (int)st.sleeps;
    return NULL;
}

static void test_bell_idle(void **state)
{
    (void)state;
    dlg_bell_t *b;
    assert_int_equal(dlg_bell_create(NULL, &b), 0);
    dlg_idle_t st = {0};
    /* work: go on at once, no sleep */
    assert_int_equal(dlg_bell_idle(b, &st, 5, no_work, flags_sleep, 0), 0);
    assert_int_equal(st.rounds, 0);
    /* poll only: never sleeps */
    for (int i = 0; i < 200; i++)
        assert_int_equal(dlg_bell_idle(b, &st, 0, no_work, flags_sleep, 1), 0);
    assert_int_equal(st.sleeps, 0);
    /* idle: sleeps on the doorbell, announced in it */
    struct idler x = {b, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, idle_until_rung, &x), 0);
    while (!atomic_load(&b->sleeping) && !x.slept)
        sched_yield();
    dlg_bell_ring(b);
    pthread_join(th, NULL);
    assert_int_equal(x.slept, 1);
    assert_int_equal(atomic_load(&b->sleeping), 0);
    dlg_bell_destroy(b);
}

/* A waiter asleep with a doorbell counts itself in dlg_bell_asleep(); the
 * setter that wakes it takes it off at once (before the waiter runs). */
struct bell_setter {
    dlg_flag_t *f;
    dlg_bell_t *b;
    int use_bell;   /* dlg_flag_set_bell(), else dlg_flag_set() */
    unsigned after; /* dlg_bell_asleep() right after the set */
};

static void *set_when_asleep(void *arg)
{
    struct bell_setter *s = arg;
    while (dlg_bell_asleep(s->b) == 0)
        sched_yield();
    if (s->use_bell)
        dlg_flag_set_bell(s->f, s->b, 1);
    else
        dlg_flag_set(s->f, 1);
    s->after = dlg_bell_asleep(s->b);
    return NULL;
}

static void test_flag_asleep_count(void **state)
{
    (void)state;
    dlg_bell_t *b;
    assert_int_equal(dlg_bell_create(NULL, &b), 0);
    for (int with_bell = 0; with_bell < 2; with_bell++) {
        dlg_flag_t f = {0};
        struct bell_setter s = {&f, b, with_bell, 99};
        dlg_waiter_t w = {
            .policy = DLG_POLICY_BLOCK, .bell = b, .nap_ns = 1000000000};
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, set_when_asleep, &s), 0);
        assert_int_equal(dlg_flag_wait(&f, &w), 0);
        pthread_join(th, NULL);
        if (with_bell) /* else the waiter uncounted itself */
            assert_int_equal(s.after, 0);
        assert_int_equal(dlg_bell_asleep(b), 0);
        assert_int_equal(atomic_load(&f.waiting), 1); /* it slept */
    }
    dlg_bell_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bell_open_ring),
        cmocka_unit_test(test_bell_turns),
        cmocka_unit_test(test_flag_wait_policies),
        cmocka_unit_test(test_flag_wait_turns),
        cmocka_unit_test(test_flag_wait_dead_peer),
        cmocka_unit_test(test_bell_idle),
        cmocka_unit_test(test_flag_asleep_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
