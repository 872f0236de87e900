/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_place.c: host/board CPU sets from the environment or the
 * hwloc topology, and binding threads to them.
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <hwloc.h>

#include "deleg.h"

static void clear_env(void)
{
    unsetenv("DLG_HOST_CPUS");
    unsetenv("DLG_BOARD_CPUS");
    unsetenv("DLG_BIND");
}

static void cpulist_parses_ranges_and_rejects_junk(void **st)
{
    (void)st;
    int c[16];
    assert_int_equal(dlg_cpulist_parse("0", c, 16), 1);
    assert_int_equal(c[0], 0);
    assert_int_equal(dlg_cpulist_parse("1,3-5,9", c, 16), 5);
    int want[] = {1, 3, 4, 5, 9};
    assert_memory_equal(c, want, sizeof(want));
    const char *bad[] = {"",     "a",   "1-", "-1",      "3-1",
                         "1,,2", "1;2", "1 ", "99999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(dlg_cpulist_parse(bad[i], c, 16), -EINVAL);
    assert_int_equal(dlg_cpulist_parse("0-20", c, 16), -EINVAL); /* > max */
}

static void default_layout_uses_allowed_cpus_only(void **st)
{
    (void)st;
    clear_env();
    cpu_set_t allowed;
    assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
    dlg_layout_t *l = malloc(sizeof(*l));
    assert_int_equal(dlg_layout_get(l), 0);
    assert_true(l->nhost >= 1);
    assert_true(l->nboard >= 1);
    for (int i = 0; i < l->nhost; i++)
        assert_true(CPU_ISSET(l->host[i], &allowed));
    for (int i = 0; i < l->nboard; i++)
        assert_true(CPU_ISSET(l->board[i], &allowed));
    if (CPU_COUNT(&allowed) > 1 && l->nhost < CPU_COUNT(&allowed)) {
        /* Host and board are disjoint when there is more than one core. */
        for (int i = 0; i < l->nhost; i++)
            for (int j = 0; j < l->nboard; j++)
                assert_int_not_equal(l->host[i], l->board[j]);
    }
    assert_int_equal(l->nhost +
                         (l->nhost == l->nboard && l->host[0] == l->board[0]
                              ? 0
                              : l->nboard),
                     CPU_COUNT(&allowed));
    free(l);
}

static int first_allowed(void)
{
    cpu_set_t a;
    sched_getaffinity(0, sizeof(a), &a);
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &a))
            return i;
    return -1;
}

static void environment_overrides_and_binds(void **st)
{
    (void)st;
    clear_env();
    int cpu = first_allowed();
    char s[32];
    snprintf(s, sizeof(s), "%d", cpu);
    setenv("DLG_HOST_CPUS", s, 1);
    setenv("DLG_BOARD_CPUS", s, 1);
    dlg_layout_t *l = malloc(sizeof(*l));
    assert_int_equal(dlg_layout_get(l), 0);
    assert_int_equal(l->nhost, 1);
    assert_int_equal(l->host[0], cpu);
    assert_int_equal(l->nboard, 1);

    cpu_set_t before, after;
    sched_getaffinity(0, sizeof(before), &before);
    assert_int_equal(dlg_place_client(l, 5), 0);
    sched_getaffinity(0, sizeof(after), &after);
    assert_int_equal(CPU_COUNT(&after), 1);
    assert_true(CPU_ISSET(cpu, &after));
    assert_int_equal(dlg_place_delegatee(l), 0);
    sched_getaffinity(0, sizeof(after), &after);
    assert_true(CPU_ISSET(cpu, &after) && CPU_COUNT(&after) == 1);
    assert_int_equal(sched_setaffinity(0, sizeof(before), &before), 0);

    /* DLG_BIND=none leaves the affinity alone; a bad value is refused. */
    setenv("DLG_BIND", "none", 1);
    assert_int_equal(dlg_place_client(l, 0), 0);
    sched_getaffinity(0, sizeof(after), &after);
    assert_true(CPU_EQUAL(&before, &after));
    setenv("DLG_BIND", "everywhere", 1);
    assert_int_equal(dlg_place_client(l, 0), -EINVAL);

    /* Bad lists and CPUs outside the allowed set are refused. */
    clear_env();
    setenv("DLG_HOST_CPUS", "zero", 1);
    assert_int_equal(dlg_layout_get(l), -EINVAL);
    snprintf(s, sizeof(s), "%d", CPU_SETSIZE - 1);
    setenv("DLG_HOST_CPUS", s, 1);
    assert_int_equal(dlg_layout_get(l), -EINVAL);
    clear_env();
    free(l);
}

int main(void)
{
    alarm(60);
    /* The layout and binding cases need hwloc to see this machine (it
     * cannot in some containers, e.g. without /sys). */
    hwloc_topology_t topo;
    int seen = hwloc_topology_init(&topo) == 0;
    if (seen) {
        seen = hwloc_topology_load(topo) == 0 &&
               hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU) > 0;
        hwloc_topology_destroy(topo);
    }
    if (!seen) {
        printf("SKIP: hwloc cannot load this machine's topology\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpulist_parses_ranges_and_rejects_junk),
        cmocka_unit_test(default_layout_uses_allowed_cpus_only),
        cmocka_unit_test(environment_overrides_and_binds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
