/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_barrier.c: pip_barrier_* across tasks for many rounds, spin
 * locks and atomics of pip_machdep.h across tasks, pip_yield.
 */
#include "pt_util.h"

#define NTASKS 4

static void run_barrier_rounds(int ntasks, int rounds)
{
    pt_shared_t *sh = pt_shared_new(ntasks);
    sh->rounds = rounds;
    pt_init(ntasks);
    int ids[PT_MAXT];
    for (int i = 0; i < ntasks; i++)
        ids[i] = PT_SPAWN("task_api", "barrier", pt_ptr_arg(sh), NULL);
    for (int i = 0; i < ntasks; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    PT_CHECK(sh->atom == (intptr_t)ntasks * rounds);
    PT_OK(pip_barrier_fin(&sh->barrier));
    PT_OK(pip_fin());
}

PT_CASE(barrier_holds_for_many_rounds)
{
    run_barrier_rounds(NTASKS, 2000);
}

PT_CASE(barrier_of_one_never_waits)
{
    run_barrier_rounds(1, 100);
}

PT_CASE(barrier_with_more_tasks_than_cores)
{
    /* Oversubscribed: waiting must block or yield, not spin forever. */
    int n = pt_ncpus_allowed() * 3;
    if (n > 8)
        n = 8;
    run_barrier_rounds(n, 300);
}

PT_CASE(barrier_init_and_fin_need_pip_init)
{
    /* PiP 2.4: pip_barrier_init and pip_barrier_fin give EPERM before
     * pip_init and after pip_fin. */
    pip_barrier_t b = PIP_BARRIER_INIT(1);
    PT_CHECK_ERR(pip_barrier_init(&b, 1), EPERM);
    PT_CHECK_ERR(pip_barrier_fin(&b), EPERM);
    pt_init(2);
    PT_OK(pip_barrier_init(&b, 1));
    PT_OK(pip_barrier_fin(&b));
    PT_OK(pip_fin());
    PT_CHECK_ERR(pip_barrier_init(&b, 1), EPERM);
    PT_CHECK_ERR(pip_barrier_fin(&b), EPERM);
}

PT_CASE(barrier_init_rejects_bad_arguments)
{
    pip_barrier_t b;
    pt_init(2);
    PT_CHECK_ERR(pip_barrier_init(&b, 0), EINVAL);
    PT_CHECK_ERR(pip_barrier_init(&b, -3), EINVAL);
    PT_CHECK_ERR(pip_barrier_init(NULL, 2), EINVAL);
    PT_OK(pip_barrier_init(&b, 1));
    PT_OK(pip_barrier_wait(&b));
    PT_OK(pip_barrier_wait(&b));
    PT_OK(pip_barrier_fin(&b));
    PT_OK(pip_fin());
}

PT_CASE(static_barrier_initialiser_works)
{
    /* PIP_BARRIER_INIT must give a usable barrier without pip_barrier_init. */
    static pip_barrier_t b = PIP_BARRIER_INIT(1);
    PT_CHECK(b.count_init == 1 && b.count == 1 && b.gsense == 0);
    pt_init(2);
    for (int i = 0; i < 3; i++)
        PT_OK(pip_barrier_wait(&b));
    PT_OK(pip_fin());
}

PT_CASE(spinlock_and_atomics_across_tasks)
{
    const int iters = 20000;
    pt_shared_t *sh = pt_shared_new(NTASKS);
    sh->rounds = iters;
    pt_init(NTASKS);
    int ids[NTASKS];
    for (int i = 0; i < NTASKS; i++)
        ids[i] = PT_SPAWN("task_api", "spin", pt_ptr_arg(sh), NULL);
    for (int i = 0; i < NTASKS; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    PT_CHECK_MSG(sh->counter == (long)NTASKS * iters,
                 "counter %ld, expected %ld", sh->counter,
                 (long)NTASKS * iters);
    PT_CHECK(sh->atom == (intptr_t)NTASKS * iters * 2);
    PT_OK(pip_fin());
}

PT_CASE(machdep_helpers_behave)
{
    pip_spinlock_t l;
    pip_atomic_t a = 5;
    PT_CHECK(pip_spin_init(&l) == 0);
    PT_CHECK(pip_spin_trylock(&l) != 0);
    PT_CHECK(pip_spin_trylock(&l) == 0);
    pip_spin_unlock(&l);
    pip_spin_lock(&l);
    PT_CHECK(pip_spin_trylock(&l) == 0);
    pip_spin_unlock(&l);
    PT_CHECK(pip_spin_destroy(&l) == 0);
    PT_CHECK(pip_atomic_fetch_and_add(&a, 3) == 5);
    PT_CHECK(a == 8);
    PT_CHECK(pip_atomic_sub_and_fetch(&a, 8) == 0);
    pip_pause();
    pip_memory_barrier();
    pip_write_barrier();
}

PT_CASE(yield_flags)
{
    pt_init(2);
    PT_OK(pip_yield(PIP_YIELD_DEFAULT));
    PT_OK(pip_yield(PIP_YIELD_USER));
    PT_OK(pip_yield(PIP_YIELD_SYSTEM));
    PT_OK(pip_yield(0x100)); /* as PiP: the flag is reserved */
    PT_OK(pip_fin());
    PT_CHECK_ERR(pip_yield(PIP_YIELD_DEFAULT), EPERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(barrier_holds_for_many_rounds),
        cmocka_unit_test(barrier_of_one_never_waits),
        cmocka_unit_test(barrier_with_more_tasks_than_cores),
        cmocka_unit_test(barrier_init_and_fin_need_pip_init),
        cmocka_unit_test(barrier_init_rejects_bad_arguments),
        cmocka_unit_test(static_barrier_initialiser_works),
        cmocka_unit_test(spinlock_and_atomics_across_tasks),
        cmocka_unit_test(machdep_helpers_behave),
        cmocka_unit_test(yield_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
