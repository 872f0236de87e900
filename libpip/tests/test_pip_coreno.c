/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_coreno.c: core binding at spawn.  PIP_CPUCORE_ASIS keeps the
 * root's mask, a plain number is the n-th CPU of the root's affinity mask
 * (modulo their count), PIP_CPUCORE_ABS|n is CPU n.  The task reports its
 * mask (sched_getaffinity) through its exit code: 1 + cpu when bound to one
 * CPU, 100 + count otherwise (task_plain "affinity").
 */
#include "pt_util.h"

/* CPUs of our mask, in order. */
static int allowed_cpus(int *cpus, int max)
{
    cpu_set_t set;
    int n = 0;
    CPU_ZERO(&set);
    PT_CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
    for (int i = 0; i < CPU_SETSIZE && n < max; i++)
        if (CPU_ISSET(i, &set))
            cpus[n++] = i;
    return n;
}

static int affinity_of_task(uint32_t coreno)
{
    int id = PIP_PIPID_ANY;
    int rc = pt_spawn_core("task_plain", coreno, &id, "affinity", NULL);
    PT_CHECK_MSG(rc == 0, "spawn with coreno 0x%x: %d (%s)", coreno, rc,
                 pt_errname(rc));
    int st = pt_wait(id);
    PT_CHECK(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void need_two_cpus(void)
{
    int cpus[CPU_SETSIZE];
    if (allowed_cpus(cpus, CPU_SETSIZE) < 2)
        pt_skip("needs at least 2 CPUs in the affinity mask");
}

PT_CASE(asis_keeps_root_mask)
{
    int cpus[CPU_SETSIZE];
    int n = allowed_cpus(cpus, CPU_SETSIZE);
    pt_init(2);
    int code = affinity_of_task(PIP_CPUCORE_ASIS);
    PT_CHECK_MSG(code == (n == 1 ? 1 + cpus[0] : 100 + n),
                 "code %d with %d cpus", code, n);
}

PT_CASE(plain_coreno_is_nth_available_cpu)
{
    need_two_cpus();
    int cpus[CPU_SETSIZE];
    int n = allowed_cpus(cpus, CPU_SETSIZE);
    pt_init(2);
    for (int k = 0; k < n && k < 4; k++)
        PT_CHECK_MSG(affinity_of_task((uint32_t)k) == 1 + cpus[k], "coreno %d",
                     k);
    /* Beyond the count it wraps around. */
    PT_CHECK(affinity_of_task((uint32_t)n) == 1 + cpus[0]);
    PT_CHECK(affinity_of_task((uint32_t)n + 1) == 1 + cpus[1 % n]);
}

PT_CASE(plain_coreno_follows_restricted_root_mask)
{
    need_two_cpus();
    int cpus[CPU_SETSIZE];
    int n = allowed_cpus(cpus, CPU_SETSIZE);
    /* Keep only the last CPU: "the 0th available core" is then that one. */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[n - 1], &set);
    PT_CHECK(sched_setaffinity(0, sizeof(set), &set) == 0);
    pt_init(2);
    PT_CHECK(affinity_of_task(0) == 1 + cpus[n - 1]);
    PT_CHECK(affinity_of_task(1) == 1 + cpus[n - 1]);
}

PT_CASE(abs_coreno_is_that_cpu)
{
    need_two_cpus();
    int cpus[CPU_SETSIZE];
    int n = allowed_cpus(cpus, CPU_SETSIZE);
    pt_init(2);
    PT_CHECK(affinity_of_task(PIP_CPUCORE_ABS | (uint32_t)cpus[0]) ==
             1 + cpus[0]);
    PT_CHECK(affinity_of_task(PIP_CPUCORE_ABS | (uint32_t)cpus[n - 1]) ==
             1 + cpus[n - 1]);
}

PT_CASE(binding_a_task_leaves_root_mask_alone)
{
    need_two_cpus();
    int before[CPU_SETSIZE], after[CPU_SETSIZE];
    int n = allowed_cpus(before, CPU_SETSIZE);
    pt_init(2);
    PT_CHECK(affinity_of_task(PIP_CPUCORE_ABS | (uint32_t)before[0]) ==
             1 + before[0]);
    PT_CHECK(allowed_cpus(after, CPU_SETSIZE) == n);
    PT_CHECK(memcmp(before, after, sizeof(int) * (size_t)n) == 0);
}

PT_CASE(abs_coreno_of_missing_cpu_is_einval)
{
    pt_init(2);
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    int id = PIP_PIPID_ANY;
    PT_CHECK_ERR(pt_spawn_core("task_plain",
                               PIP_CPUCORE_ABS | (uint32_t)(ncpu + 64), &id,
                               "ret", "0", NULL),
                 EINVAL);
}

int main(void)
{
    /* Most cases need two CPUs: on one, the program skips as a whole. */
    static int cpus[CPU_SETSIZE];
    if (allowed_cpus(cpus, CPU_SETSIZE) < 2) {
        printf("SKIP: needs at least 2 CPUs in the affinity mask\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(asis_keeps_root_mask),
        cmocka_unit_test(plain_coreno_is_nth_available_cpu),
        cmocka_unit_test(plain_coreno_follows_restricted_root_mask),
        cmocka_unit_test(abs_coreno_is_that_cpu),
        cmocka_unit_test(binding_a_task_leaves_root_mask_alone),
        cmocka_unit_test(abs_coreno_of_missing_cpu_is_einval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
