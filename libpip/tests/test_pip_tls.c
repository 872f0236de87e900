/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_tls.c: __thread variables of plain PIE tasks (task_tls, built
 * -fPIE -pie -rdynamic, local-exec TLS): each task sees the initial values
 * (.tdata and zeroed .tbss) and only its own updates, while several run at
 * once; the root's own __thread variables are not disturbed.
 */
#include "pt_util.h"

#define NTASKS 3

/*
 * A root must reserve static TLS of its own for plain-PIE tasks with
 * __thread variables (libpip copies their TLS image into the root
 * executable's TLS block).  pip-exec does the same.
 */
__attribute__((used)) static __thread char root_tls_reserve[16384];

/* The root's own TLS, which a wrong task TLS layout would overwrite. */
static __thread int root_tls = 7;
static __thread char root_tls_buf[512];

static void run_tls_tasks(int n)
{
    pt_shared_t *sh = pt_shared_new(n);
    root_tls = 8;
    memset(root_tls_buf, 'r', sizeof(root_tls_buf));
    pt_init(n);
    int ids[PT_MAXT];
    for (int i = 0; i < n; i++)
        ids[i] = PT_SPAWN("task_tls", pt_ptr_arg(sh), pt_int_arg(i), NULL);
    for (int i = 0; i < n; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    PT_CHECK(sh->fail == 0);
    for (int i = 0; i < n; i++) {
        PT_CHECK(sh->value[i] == 1000 + i);
        for (int j = 0; j < i; j++)
            PT_CHECK_MSG(sh->ptr[i] != sh->ptr[j], "tasks %d and %d share TLS",
                         i, j);
    }
    PT_CHECK(root_tls == 8);
    for (size_t i = 0; i < sizeof(root_tls_buf); i++)
        PT_CHECK(root_tls_buf[i] == 'r');
    PT_OK(pip_fin());
}

PT_CASE(one_task_sees_its_tls)
{
    run_tls_tasks(1);
}

PT_CASE(concurrent_tasks_have_private_tls)
{
    run_tls_tasks(NTASKS);
}

PT_CASE(tls_is_fresh_for_each_new_task)
{
    /* A task spawned after another ended starts from the initial image. */
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    for (int round = 0; round < 3; round++) {
        int id = PT_SPAWN("task_tls", pt_ptr_arg(sh), "0", NULL);
        PT_CHECK_EXIT(pt_wait(id), 0);
    }
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_task_sees_its_tls),
        cmocka_unit_test(concurrent_tasks_have_private_tls),
        cmocka_unit_test(tls_is_fresh_for_each_new_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
