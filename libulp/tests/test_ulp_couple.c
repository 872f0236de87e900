/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ulp_couple.c: couple/decouple: which kernel thread carries a ULP,
 * blocking system calls while coupled, signal masks, suspend while coupled.
 */
#include "ut_util.h"

#include <pthread.h>
#include <sys/syscall.h>

static ulp_sched_t *cp_s[2];

static pid_t cp_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static int cp_where_fn(void *arg)
{
    (void)arg;
    pid_t own = ulp_gettid();
    UT_CHECK(!ulp_is_coupled());
    UT_EQ(cp_gettid(), ulp_sched_tid(cp_s[0]));
    UT_CHECK(own != ulp_sched_tid(cp_s[0]));
    UT_OK(ulp_couple());
    UT_CHECK(ulp_is_coupled());
    UT_CHECK(ulp_sched_self() == NULL);
    UT_EQ(cp_gettid(), own);
    UT_OK(ulp_couple()); /* no-op */
    UT_OK(ulp_yield());  /* sched_yield while coupled */
    UT_OK(ulp_decouple(cp_s[1]));
    UT_CHECK(!ulp_is_coupled());
    UT_CHECK(ulp_sched_self() == cp_s[1]);
    UT_EQ(cp_gettid(), ulp_sched_tid(cp_s[1]));
    UT_OK(ulp_decouple(NULL)); /* no-op */
    UT_EQ(ulp_gettid(), own);
    return 0;
}

/* gettid() is the carrier's: the scheduler's, or the own thread's once
 * coupled; ulp_gettid() never changes. */
UT_CASE(couple_moves_the_ulp_to_its_own_kernel_thread)
{
    ulp_t *u;
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&cp_s[0], -1));
    UT_OK(ulp_sched_create(&cp_s[1], -1));
    UT_OK(ulp_create(&u, cp_s[0], cp_where_fn, NULL));
    UT_OK(ulp_join(u, NULL));
    UT_OK(ulp_sched_destroy(cp_s[0]));
    UT_OK(ulp_sched_destroy(cp_s[1]));
    UT_OK(ulp_fin());
}

static int cp_pipe[2];
static volatile int cp_reader_blocked;

static int cp_reader(void *arg)
{
    char c = 0;
    (void)arg;
    UT_OK(ulp_couple());
    cp_reader_blocked = 1;
    /* Blocks this ULP's own kernel thread only. */
    UT_EQ(read(cp_pipe[0], &c, 1), 1);
    UT_EQ(c, 'x');
    UT_OK(ulp_decouple(NULL));
    return 0;
}

static int cp_writer(void *arg)
{
    (void)arg;
    /* Runs on the same (only) scheduler as the reader. */
    while (!cp_reader_blocked)
        ulp_yield();
    for (int i = 0; i < 100; i++)
        ulp_yield();
    UT_EQ(write(cp_pipe[1], "x", 1), 1);
    return 0;
}

UT_CASE(blocking_call_while_coupled_leaves_the_scheduler_running)
{
    ulp_t *r, *w;
    UT_OK(pipe(cp_pipe));
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&cp_s[0], -1));
    UT_OK(ulp_create(&r, cp_s[0], cp_reader, NULL));
    UT_OK(ulp_create(&w, cp_s[0], cp_writer, NULL));
    UT_OK(ulp_join(r, NULL));
    UT_OK(ulp_join(w, NULL));
    UT_OK(ulp_sched_destroy(cp_s[0]));
    UT_OK(ulp_fin());
    close(cp_pipe[0]);
    close(cp_pipe[1]);
}

static __thread int cp_tls;

static int cp_round_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    /* copy: &errno taken here is this carrier's (see ut_errno). */
    int own_tp = ulp_fsbase_method() != ULP_FSBASE_COPY;
    cp_tls = id;
    ut_set_errno(id);
    for (int i = 0; i < 300; i++) {
        UT_OK(ulp_couple());
        UT_EQ(cp_tls, id);
        UT_EQ(ut_errno(), id);
        if (own_tp)
            UT_EQ(errno, id);
        UT_OK(ulp_decouple(cp_s[i & 1]));
        UT_EQ(cp_tls, id);
        UT_EQ(ut_errno(), id);
        if (own_tp)
            UT_EQ(errno, id);
        ulp_yield();
    }
    return 0;
}

UT_CASE(repeated_couple_decouple_keeps_tls_and_errno)
{
    ulp_t *u[4];
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&cp_s[0], -1));
    UT_OK(ulp_sched_create(&cp_s[1], -1));
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_create(&u[i], cp_s[i & 1], cp_round_fn,
                         (void *)(intptr_t)(i + 1)));
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_join(u[i], NULL));
    UT_OK(ulp_sched_destroy(cp_s[0]));
    UT_OK(ulp_sched_destroy(cp_s[1]));
    UT_OK(ulp_fin());
}

static int cp_blocked(int sig)
{
    sigset_t cur;
    UT_OK(pthread_sigmask(SIG_BLOCK, NULL, &cur));
    return sigismember(&cur, sig);
}

static int cp_mask_fn(void *arg)
{
    sigset_t set;
    (void)arg;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    UT_CHECK(!cp_blocked(SIGUSR2));
    UT_OK(ulp_couple());
    UT_OK(pthread_sigmask(SIG_BLOCK, &set, NULL)); /* the own thread's mask */
    UT_CHECK(cp_blocked(SIGUSR2));
    UT_OK(ulp_decouple(NULL));
    UT_CHECK(!cp_blocked(SIGUSR2)); /* the scheduler's mask */
    UT_OK(ulp_couple());
    UT_CHECK(cp_blocked(SIGUSR2)); /* kept by the own thread */
    UT_OK(pthread_sigmask(SIG_UNBLOCK, &set, NULL));
    UT_OK(ulp_decouple(NULL));
    return 0;
}

/* The signal mask belongs to the carrier kernel thread (see ulp.h). */
UT_CASE(signal_mask_is_the_carrier_threads)
{
    ulp_t *u;
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&cp_s[0], -1));
    UT_OK(ulp_create(&u, cp_s[0], cp_mask_fn, NULL));
    UT_OK(ulp_join(u, NULL));
    UT_OK(ulp_sched_destroy(cp_s[0]));
    UT_OK(ulp_fin());
}

static ulp_waitq_t cp_q = ULP_WAITQ_INIT;

static int cp_park_fn(void *arg)
{
    (void)arg;
    pid_t own = ulp_gettid();
    UT_OK(ulp_couple());
    UT_OK(ulp_suspend(&cp_q)); /* parks the own kernel thread */
    UT_CHECK(ulp_is_coupled());
    UT_EQ(cp_gettid(), own);
    UT_OK(ulp_decouple(NULL));
    return 0;
}

UT_CASE(coupled_ulp_suspends_and_resumes_on_its_own_thread)
{
    ulp_t *u;
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&cp_s[0], -1));
    UT_OK(ulp_create(&u, cp_s[0], cp_park_fn, NULL));
    while (ulp_resume(&cp_q, NULL) == 0)
        sched_yield();
    UT_OK(ulp_join(u, NULL));
    UT_OK(ulp_sched_destroy(cp_s[0]));
    UT_OK(ulp_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(couple_moves_the_ulp_to_its_own_kernel_thread),
        cmocka_unit_test(
            blocking_call_while_coupled_leaves_the_scheduler_running),
        cmocka_unit_test(repeated_couple_decouple_keeps_tls_and_errno),
        cmocka_unit_test(signal_mask_is_the_carrier_threads),
        cmocka_unit_test(coupled_ulp_suspends_and_resumes_on_its_own_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
