/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ulp_sync.c: wait queues (suspend/resume, also across schedulers and
 * from a plain kernel thread), the user-level mutex and barrier.
 */
#include "ut_util.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>

static ulp_sched_t *sy_s[2];

static void sy_setup(int nsched)
{
    UT_OK(ulp_init());
    for (int i = 0; i < nsched; i++)
        UT_OK(ulp_sched_create(&sy_s[i], -1));
}

static void sy_teardown(int nsched)
{
    for (int i = 0; i < nsched; i++)
        UT_OK(ulp_sched_destroy(sy_s[i]));
    UT_OK(ulp_fin());
}

/* --- suspend / resume -------------------------------------------------------
 */

static ulp_waitq_t sr_q = ULP_WAITQ_INIT;
static volatile int sr_suspended, sr_resumed_on_other;

static int sr_sleeper(void *arg)
{
    (void)arg;
    static __thread int mark;
    mark = 77;
    UT_CHECK(ulp_sched_self() == sy_s[0]);
    sr_suspended = 1;
    UT_OK(ulp_suspend(&sr_q));
    /* Resumed into the other scheduler: it carries us now. */
    UT_CHECK(ulp_sched_self() == sy_s[1]);
    UT_EQ(syscall(SYS_gettid), ulp_sched_tid(sy_s[1]));
    UT_EQ(mark, 77);
    sr_resumed_on_other = 1;
    return 0;
}

static int sr_waker(void *arg)
{
    (void)arg;
    UT_CHECK(ulp_sched_self() == sy_s[1]);
    while (sr_q.count == 0) /* the sleeper is on the other scheduler */
        ulp_yield();
    UT_EQ(ulp_resume(&sr_q, sy_s[1]), 1);
    UT_EQ(ulp_resume(&sr_q, sy_s[1]), 0); /* empty now */
    while (!sr_resumed_on_other)
        ulp_yield();
    return 0;
}

/* A ULP suspended on scheduler 0 is resumed by a ULP of scheduler 1 into 1. */
UT_CASE(suspend_then_resume_into_another_scheduler)
{
    ulp_t *a, *b;
    sy_setup(2);
    UT_OK(ulp_create(&a, sy_s[0], sr_sleeper, NULL));
    UT_OK(ulp_create(&b, sy_s[1], sr_waker, NULL));
    UT_OK(ulp_join(a, NULL));
    UT_OK(ulp_join(b, NULL));
    UT_CHECK(sr_resumed_on_other);
    UT_EQ(ulp_suspend(NULL), -EPERM); /* not a ULP */
    UT_EQ(ulp_resume(NULL, NULL), -EINVAL);
    sy_teardown(2);
}

static ulp_waitq_t rk_q = ULP_WAITQ_INIT;
static volatile int rk_count;

static int rk_fn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        UT_OK(ulp_suspend(&rk_q));
        __atomic_add_fetch(&rk_count, 1, __ATOMIC_SEQ_CST);
    }
    return 0;
}

/* A plain kernel thread (here: main) resumes ULPs; FIFO, none lost. */
UT_CASE(resume_from_a_kernel_thread_loses_no_wakeup)
{
    ulp_t *u[4];
    sy_setup(2);
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_create(&u[i], sy_s[i & 1], rk_fn, NULL));
    int resumed = 0;
    while (resumed < 400) {
        int r = ulp_resume_all(&rk_q, NULL);
        UT_CHECK(r >= 0);
        resumed += r;
        if (r == 0)
            sched_yield();
    }
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_join(u[i], NULL));
    UT_EQ(rk_count, 400);
    sy_teardown(2);
}

/* --- mutex
 * -------------------------------------------------------------------- */

#define MX_N     8
#define MX_ITERS 300
static ulp_mutex_t mx = ULP_MUTEX_INIT;
static long mx_counter;
static volatile int mx_inside;

static int mx_fn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int i = 0; i < MX_ITERS; i++) {
        UT_OK(ulp_mutex_lock(&mx));
        UT_EQ(__atomic_add_fetch(&mx_inside, 1, __ATOMIC_SEQ_CST), 1);
        long c = mx_counter;
        /* Switch (or move) inside the critical section. */
        if (ut_rand(&seed) % 3 == 0)
            UT_OK(ulp_migrate(sy_s[ut_rand(&seed) & 1]));
        else
            UT_OK(ulp_yield());
        mx_counter = c + 1;
        __atomic_sub_fetch(&mx_inside, 1, __ATOMIC_SEQ_CST);
        UT_OK(ulp_mutex_unlock(&mx));
        ulp_yield();
    }
    return 0;
}

UT_CASE(mutex_excludes_across_schedulers_and_switches)
{
    ulp_t *u[MX_N];
    sy_setup(2);
    for (int i = 0; i < MX_N; i++)
        UT_OK(
            ulp_create(&u[i], sy_s[i & 1], mx_fn, (void *)(uintptr_t)(i + 1)));
    for (int i = 0; i < MX_N; i++)
        UT_OK(ulp_join(u[i], NULL));
    UT_EQ(mx_counter, (long)MX_N * MX_ITERS);
    UT_OK(ulp_mutex_destroy(&mx));
    sy_teardown(2);
}

static ulp_mutex_t me = ULP_MUTEX_INIT;
static ulp_t *me_owner_u;
static volatile int me_step;

static int me_owner(void *arg)
{
    (void)arg;
    UT_OK(ulp_mutex_lock(&me));
    UT_EQ(ulp_mutex_lock(&me), -EDEADLK);
    UT_EQ(ulp_mutex_destroy(&me), -EBUSY);
    me_step = 1;
    while (me_step < 2)
        ulp_yield();
    UT_OK(ulp_mutex_unlock(&me));
    return 0;
}

static int me_other(void *arg)
{
    (void)arg;
    while (me_step < 1)
        ulp_yield();
    UT_EQ(ulp_mutex_trylock(&me), -EBUSY);
    UT_EQ(ulp_mutex_unlock(&me), -EPERM); /* not the owner */
    me_step = 2;
    UT_OK(ulp_mutex_lock(&me)); /* handed over by the owner */
    UT_OK(ulp_mutex_unlock(&me));
    UT_OK(ulp_mutex_trylock(&me));
    UT_OK(ulp_mutex_unlock(&me));
    return 0;
}

UT_CASE(mutex_reports_misuse)
{
    ulp_t *b;
    sy_setup(1);
    UT_EQ(ulp_mutex_init(NULL), -EINVAL);
    UT_EQ(ulp_mutex_lock(&me), -EPERM); /* not a ULP */
    UT_OK(ulp_create(&me_owner_u, sy_s[0], me_owner, NULL));
    UT_OK(ulp_create(&b, sy_s[0], me_other, NULL));
    UT_OK(ulp_join(me_owner_u, NULL));
    UT_OK(ulp_join(b, NULL));
    UT_OK(ulp_mutex_destroy(&me));
    sy_teardown(1);
}

/* --- barrier
 * -------------------------------------------------------------------- */

#define BR_N      6
#define BR_PHASES 50
static ulp_barrier_t br;
static volatile int br_phase_count[BR_PHASES];
static volatile int br_serial[BR_PHASES];

static int br_fn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int p = 0; p < BR_PHASES; p++) {
        /* Uneven work before arriving. */
        for (unsigned k = ut_rand(&seed) % 4; k > 0; k--)
            ulp_yield();
        __atomic_add_fetch(&br_phase_count[p], 1, __ATOMIC_SEQ_CST);
        int r = ulp_barrier_wait(&br);
        UT_CHECK(r == 0 || r == 1);
        if (r == 1)
            __atomic_add_fetch(&br_serial[p], 1, __ATOMIC_SEQ_CST);
        /* Nobody leaves phase p before everyone arrived in it. */
        UT_EQ(br_phase_count[p], BR_N);
    }
    return 0;
}

UT_CASE(barrier_holds_every_ulp_until_all_arrive)
{
    ulp_t *u[BR_N];
    sy_setup(2);
    UT_EQ(ulp_barrier_init(&br, 0), -EINVAL);
    UT_OK(ulp_barrier_init(&br, BR_N));
    UT_EQ(ulp_barrier_wait(&br), -EPERM); /* not a ULP */
    for (int i = 0; i < BR_N; i++)
        UT_OK(
            ulp_create(&u[i], sy_s[i & 1], br_fn, (void *)(uintptr_t)(i + 3)));
    for (int i = 0; i < BR_N; i++)
        UT_OK(ulp_join(u[i], NULL));
    for (int p = 0; p < BR_PHASES; p++)
        UT_EQ(br_serial[p], 1); /* exactly one "last" per phase */
    UT_OK(ulp_barrier_destroy(&br));
    sy_teardown(2);
}

/* --- stealing
 * ------------------------------------------------------------------- */

static volatile int st_started;
static ulp_sched_t *volatile st_where[4];

static int st_fn(void *arg)
{
    int i = (int)(intptr_t)arg;
    st_where[i] = ulp_sched_self();
    __atomic_add_fetch(&st_started, 1, __ATOMIC_SEQ_CST);
    /* Hold the CPU without yielding until another ULP has started: only a
     * stealing scheduler can start it. */
    time_t end = time(NULL) + 20;
    while (__atomic_load_n(&st_started, __ATOMIC_SEQ_CST) < 2 &&
           time(NULL) < end)
        ;
    return 0;
}

UT_CASE(idle_stealing_scheduler_runs_ulps_queued_behind_a_busy_one)
{
    ulp_t *u[2];
    sy_setup(2);
    UT_EQ(ulp_sched_steal(NULL, 1), -EINVAL);
    UT_OK(ulp_sched_steal(sy_s[1], 1));
    for (int i = 0; i < 2; i++)
        UT_OK(ulp_create(&u[i], sy_s[0], st_fn, (void *)(intptr_t)i));
    for (int i = 0; i < 2; i++)
        UT_OK(ulp_join(u[i], NULL));
    UT_EQ(st_started, 2);
    UT_CHECK(st_where[0] != st_where[1]); /* one ran on the thief */
    UT_OK(ulp_sched_steal(sy_s[1], 0));
    sy_teardown(2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(suspend_then_resume_into_another_scheduler),
        cmocka_unit_test(resume_from_a_kernel_thread_loses_no_wakeup),
        cmocka_unit_test(mutex_excludes_across_schedulers_and_switches),
        cmocka_unit_test(mutex_reports_misuse),
        cmocka_unit_test(barrier_holds_every_ulp_until_all_arrive),
        cmocka_unit_test(
            idle_stealing_scheduler_runs_ulps_queued_behind_a_busy_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
