/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_xmem.c: memory across tasks: a task reads and writes another
 * task's exported array by plain pointer, frees memory another task
 * malloc'ed, and the root reads a task's globals through pip_get_addr.
 */
#include "pt_util.h"

PT_CASE(tasks_read_and_write_neighbour_arrays)
{
    const int n = 3;
    pt_shared_t *sh = pt_shared_new(n);
    pt_init(n);
    int ids[3];
    for (int i = 0; i < n; i++) {
        ids[i] = i;
        PT_OK(pt_spawn("task_api", &ids[i], "xmem", pt_ptr_arg(sh), NULL));
    }
    for (int i = 0; i < n; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    PT_OK(pip_fin());
}

PT_CASE(root_reads_and_writes_task_memory)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "export", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    int *arr = NULL;
    PT_OK(pip_get_addr(a, "pt_task_array", (void **)&arr));
    PT_CHECK(arr != NULL);
    long sum = 0;
    for (int i = 0; i < PT_ARRAY_LEN; i++)
        sum += arr[i] - a * 100000;
    PT_CHECK(sum == (long)PT_ARRAY_LEN * (PT_ARRAY_LEN - 1) / 2);
    arr[0] = 4321;
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK(sh->value[a] == 4321);
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tasks_read_and_write_neighbour_arrays),
        cmocka_unit_test(root_reads_and_writes_task_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
