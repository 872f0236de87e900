/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_fta_sim.c: exhaustive simulation of the agreement and revoke core.
 *
 * For P = 2..5 every set of up to P-1 crashes at every step, with every
 * loss of a crashed process's messages in flight, in the oldest-first
 * order; for P <= 4 additionally every delivery order (up to sleep-set
 * equivalence) for the crash budgets listed below.  The number of explored
 * schedules is printed.  FTA_SIM_LONG=1 (make check-long) runs the larger
 * budgets listed in the long table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fta_sim.h"

typedef struct sweep {
    uint32_t P, ninst, crashes;
    int all_orders, revoke;
    uint64_t limit; /* 0: exhaustive */
    int fast;       /* the nodes' fast path */
} sweep_t;

static uint64_t total;

static void run_sweep(const sweep_t *w)
{
    fta_sim_cfg_t c = {w->P,      2,        w->ninst, w->crashes, w->all_orders,
                       w->revoke, w->limit, stdout,   w->fast};
    fta_sim_result_t r;
    assert_int_equal(fta_sim_explore(&c, &r), 0);
    printf("P=%u instances=%u crashes<=%u order=%s%s%s: %llu schedules%s, "
           "%llu steps, %llu violations\n",
           w->P, w->ninst, w->crashes, w->all_orders ? "all" : "oldest-first",
           w->revoke ? " +revoke" : "", w->fast ? " fast-path" : "",
           (unsigned long long)r.schedules,
           r.truncated ? " (bounded)" : " (exhaustive)",
           (unsigned long long)r.steps, (unsigned long long)r.violations);
    fflush(stdout);
    if (r.violations)
        fail_msg("%s", r.first);
    if (!w->limit)
        assert_false(r.truncated);
    total += r.schedules;
}

static void run_table(const sweep_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        run_sweep(&t[i]);
}

/* Every crash set at every step, oldest-first order, P = 2..5. */
static void every_crash_at_every_step_oldest_first(void **state)
{
    (void)state;
    static const sweep_t t[] = {
        {2, 3, 1, 0, 0, 0, 0},
        {3, 3, 2, 0, 0, 0, 0},
        {4, 2, 3, 0, 0, 0, 0},
        {5, 1, 4, 0, 0, 0, 0},
    };
    run_table(t, sizeof t / sizeof t[0]);
}

/* Every delivery order as well, P = 2..4. */
static void every_order_with_crashes(void **state)
{
    (void)state;
    static const sweep_t t[] = {
        {2, 2, 1, 1, 0, 0, 0},
        {3, 1, 2, 1, 0, 0, 0},
        {4, 1, 0, 1, 0, 0, 0},
        {4, 1, 1, 1, 0, 0, 0},
        /* Bounded prefixes of the larger spaces (complete in check-long). */
        {3, 2, 2, 1, 0, 50000, 0},
        {4, 1, 3, 1, 0, 50000, 0},
    };
    run_table(t, sizeof t / sizeof t[0]);
}

static void revoke_reaches_all_survivors(void **state)
{
    (void)state;
    static const sweep_t t[] = {
        {2, 1, 1, 0, 1, 0, 0}, {3, 1, 2, 0, 1, 0, 0}, {4, 1, 2, 0, 1, 0, 0},
        {2, 1, 1, 1, 1, 0, 0}, {3, 1, 0, 1, 1, 0, 0},
    };
    run_table(t, sizeof t / sizeof t[0]);
}

/* The fast path (contributions to every member first, then the tree
 * protocol on a failure): every crash set at every step, oldest-first,
 * for P = 2..4 (P = 5: up to 1 crash; larger budgets in check-long), and
 * every delivery order for small budgets. */
static void fast_path_every_crash(void **state)
{
    (void)state;
    static const sweep_t t[] = {
        {2, 3, 1, 0, 0, 0, 1},     {3, 3, 2, 0, 0, 0, 1}, {4, 1, 3, 0, 0, 0, 1},
        {5, 1, 1, 0, 0, 0, 1},     {2, 2, 1, 1, 0, 0, 1}, {3, 1, 1, 1, 0, 0, 1},
        {3, 2, 2, 1, 0, 50000, 1},
    };
    run_table(t, sizeof t / sizeof t[0]);
}

static void long_sweeps(void **state)
{
    (void)state;
    if (!getenv("FTA_SIM_LONG") || strcmp(getenv("FTA_SIM_LONG"), "1")) {
        skip();
        return;
    }
    static const sweep_t t[] = {
        {3, 2, 2, 1, 0, 0, 0}, {5, 2, 4, 0, 0, 0, 0}, {4, 1, 2, 1, 0, 0, 0},
        {4, 1, 3, 1, 0, 0, 0}, {5, 1, 4, 0, 1, 0, 0}, {4, 1, 3, 0, 1, 0, 0},
        {3, 1, 1, 1, 1, 0, 0}, {3, 1, 2, 1, 1, 0, 0}, {4, 1, 2, 1, 1, 0, 0},
        {4, 2, 3, 0, 0, 0, 1}, {5, 1, 2, 0, 0, 0, 1}, {3, 1, 2, 1, 0, 0, 1},
        {4, 1, 1, 1, 0, 0, 1},
    };
    run_table(t, sizeof t / sizeof t[0]);
}

static void bad_configuration_is_rejected(void **state)
{
    (void)state;
    fta_sim_cfg_t c = {0};
    fta_sim_result_t r;
    assert_int_equal(fta_sim_explore(&c, &r), -22);
    c.P = 3;
    c.ninst = 9;
    assert_int_equal(fta_sim_explore(&c, &r), -22);
}

static int report(void **state)
{
    (void)state;
    printf("explored %llu schedules in total\n", (unsigned long long)total);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_configuration_is_rejected),
        cmocka_unit_test(every_crash_at_every_step_oldest_first),
        cmocka_unit_test(every_order_with_crashes),
        cmocka_unit_test(revoke_reaches_all_survivors),
        cmocka_unit_test(fast_path_every_crash),
        cmocka_unit_test(long_sweeps),
    };
    return cmocka_run_group_tests(tests, NULL, report);
}
