/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_exit.c: the ways a task ends (return from main, exit(3),
 * pip_exit, from a start function) and that exit() in one task ends only
 * that task, not its siblings or the root.
 */
#include "pt_util.h"

PT_CASE(return_from_main_is_status)
{
    pt_init(2);
    int a = PT_SPAWN("task_plain", "ret", "31", NULL);
    PT_CHECK_EXIT(pt_wait(a), 31);
    PT_OK(pip_fin());
}

PT_CASE(exit_is_status)
{
    pt_init(2);
    int a = PT_SPAWN("task_plain", "exit", "32", NULL);
    PT_CHECK_EXIT(pt_wait(a), 32);
    PT_OK(pip_fin());
}

PT_CASE(pip_exit_is_status)
{
    pt_init(2);
    int a = PT_SPAWN("task_api", "pipexit", "33", NULL);
    PT_CHECK_EXIT(pt_wait(a), 33);
    PT_OK(pip_fin());
}

/* Start task_api at function fn with an int argument; returns the status. */
static int run_func(const char *fn, int value)
{
    static int arg;
    arg = value;
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_func(&prog, pt_path("task_api"), (char *)fn, &arg, NULL,
                        NULL, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    return pt_wait(id);
}

PT_CASE(start_function_return_pip_exit_and_exit)
{
    pt_init(3);
    PT_CHECK_EXIT(run_func("tf_ret_arg", 34), 34);
    PT_CHECK_EXIT(run_func("tf_pip_exit", 35), 35);
    PT_CHECK_EXIT(run_func("tf_exit", 36), 36);
    PT_OK(pip_fin());
}

PT_CASE(exit_ends_only_that_task)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    int blocked = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "ret", "5", NULL);
    int quitter = PT_SPAWN("task_plain", "exit", "1", NULL);
    PT_CHECK_EXIT(pt_wait(quitter), 1);
    /* The sibling is still running, and the root (us) too. */
    int st;
    PT_CHECK_ERR(pip_trywait(blocked, &st), ECHILD);
    /* A new task can still be spawned after a task called exit(). */
    int later = PT_SPAWN("task_plain", "exit", "2", NULL);
    PT_CHECK_EXIT(pt_wait(later), 2);
    PT_CHECK_ERR(pip_trywait(blocked, &st), ECHILD);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(blocked), 5);
    PT_OK(pip_fin());
}

PT_CASE(pip_exit_in_root_exits_root)
{
    /* In the root pip_exit is exit(): this case process must end with 0. */
    pt_init(2);
    int a = PT_SPAWN("task_plain", "ret", "0", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
    pip_exit(0);
}

PT_CASE(many_tasks_exit_in_sequence)
{
    /*
     * Spawn-and-reap cycles in one root must not leak a limit away.  Each
     * task still takes one of glibc's dlmopen namespaces for good (namespace
     * reuse is a later issue; see LIMITS in pip.h: about 11 with the default
     * static-TLS reserve), so stay within that limit.
     */
    pt_init(2);
    for (int i = 0; i < 10; i++) {
        int id = PIP_PIPID_ANY;
        int rc = pt_spawn("task_plain", &id, "exit", pt_int_arg(i), NULL);
        PT_CHECK_MSG(rc == 0, "spawn #%d failed: %d (%s)", i, rc,
                     pt_errname(rc));
        PT_CHECK_EXIT(pt_wait(id), i);
    }
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(return_from_main_is_status),
        cmocka_unit_test(exit_is_status),
        cmocka_unit_test(pip_exit_is_status),
        cmocka_unit_test(start_function_return_pip_exit_and_exit),
        cmocka_unit_test(exit_ends_only_that_task),
        cmocka_unit_test(pip_exit_in_root_exits_root),
        cmocka_unit_test(many_tasks_exit_in_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
