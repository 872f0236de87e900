/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_wait.c: pip_wait / pip_trywait / pip_wait_any / pip_trywait_any:
 * exit statuses, signal deaths (process mode), ECHILD while running,
 * ECHILD, EDEADLK, ranges.
 */
#include "pt_util.h"

PT_CASE(exit_codes_are_reported)
{
    pt_init(4);
    int a = PT_SPAWN("task_plain", "ret", "0", NULL);
    int b = PT_SPAWN("task_plain", "ret", "3", NULL);
    int c = PT_SPAWN("task_plain", "exit", "42", NULL);
    int d = PT_SPAWN("task_plain", "ret", "255", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK_EXIT(pt_wait(b), 3);
    PT_CHECK_EXIT(pt_wait(c), 42);
    PT_CHECK_EXIT(pt_wait(d), 255);
    PT_OK(pip_fin());
}

PT_CASE(null_status_is_allowed)
{
    pt_init(2);
    int a = PT_SPAWN("task_plain", "ret", "5", NULL);
    PT_OK(pip_wait(a, NULL));
    PT_OK(pip_fin());
}

static void check_signal_death(const char *action, int sig)
{
    pt_init(2);
    pt_require_process_mode();
    int a = PT_SPAWN("task_plain", action, NULL);
    int st = pt_wait(a);
    PT_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sig,
                 "status 0x%x: expected death by signal %d", st, sig);
    /* The root survives a task's fatal signal and can spawn again. */
    int b = PT_SPAWN("task_plain", "ret", "1", NULL);
    PT_CHECK_EXIT(pt_wait(b), 1);
    PT_OK(pip_fin());
}

PT_CASE(sigkill_death_is_wifsignaled)
{
    check_signal_death("kill9", SIGKILL);
}

PT_CASE(sigsegv_death_is_wifsignaled)
{
    /* No core file from the expected crash. */
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    check_signal_death("segv", SIGSEGV);
}

/* PiP's contract: ECHILD while the task runs (PiP programs poll on it). */
PT_CASE(trywait_while_running_is_echild)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(2);
    int a = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "ret", "8", NULL);
    int st = -1;
    PT_CHECK_ERR(pip_trywait(a, &st), ECHILD);
    int id = PIP_PIPID_NULL;
    PT_CHECK_ERR(pip_trywait_any(&id, &st), ECHILD);
    PT_CHECK(id == PIP_PIPID_NULL);
    pt_gate_open(&g, 1);
    /* Poll with trywait until the task has ended (bounded). */
    double end = pt_now() + PT_WAIT_SECONDS;
    int rc;
    while ((rc = pip_trywait(a, &st)) == ECHILD) {
        PT_CHECK(pt_now() < end);
        usleep(1000);
    }
    PT_OK(rc);
    PT_CHECK_EXIT(st, 8);
    PT_OK(pip_fin());
}

PT_CASE(second_wait_is_echild)
{
    pt_init(2);
    int a = PT_SPAWN("task_plain", "ret", "0", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    int st;
    PT_CHECK_ERR(pip_wait(a, &st), ECHILD);
    PT_CHECK_ERR(pip_trywait(a, &st), ECHILD);
    PT_OK(pip_fin());
}

PT_CASE(wait_for_never_spawned_is_echild)
{
    pt_init(3);
    int st;
    PT_CHECK_ERR(pip_wait(1, &st), ECHILD);
    PT_CHECK_ERR(pip_trywait(2, &st), ECHILD);
    PT_OK(pip_fin());
}

PT_CASE(wait_for_root_is_edeadlk)
{
    pt_init(2);
    int st;
    PT_CHECK_ERR(pip_wait(PIP_PIPID_ROOT, &st), EDEADLK);
    PT_CHECK_ERR(pip_trywait(PIP_PIPID_ROOT, &st), EDEADLK);
    PT_OK(pip_fin());
}

PT_CASE(wait_out_of_range_fails)
{
    pt_init(2);
    int bad[] = {2, 1000, -1, PIP_PIPID_NULL};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int st, rc = pip_wait(bad[i], &st);
        PT_CHECK_MSG(rc == ERANGE || rc == EINVAL,
                     "pip_wait(%d) returned %d (%s), expected ERANGE or EINVAL",
                     bad[i], rc, pt_errname(rc));
    }
    PT_OK(pip_fin());
}

PT_CASE(wait_any_reaps_each_task_once)
{
    pt_init(4);
    int ids[3];
    for (int i = 0; i < 3; i++) {
        char *code = pt_int_arg(10 + i);
        ids[i] = PT_SPAWN("task_plain", "sleep", pt_int_arg(30 * i), "ret",
                          code, NULL);
    }
    int seen[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        int id = PIP_PIPID_NULL, st = -1;
        PT_OK(pip_wait_any(&id, &st));
        int which = -1;
        for (int i = 0; i < 3; i++)
            if (ids[i] == id)
                which = i;
        PT_CHECK_MSG(which >= 0, "pip_wait_any gave unknown pipid %d", id);
        PT_CHECK_MSG(!seen[which], "pipid %d reaped twice", id);
        seen[which] = 1;
        PT_CHECK_EXIT(st, 10 + which);
    }
    int id, st;
    PT_CHECK_ERR(pip_wait_any(&id, &st), ECHILD);
    PT_CHECK_ERR(pip_trywait_any(&id, &st), ECHILD);
    PT_OK(pip_fin());
}

PT_CASE(wait_any_without_tasks_is_echild)
{
    pt_init(2);
    int id, st;
    PT_CHECK_ERR(pip_wait_any(&id, &st), ECHILD);
    PT_OK(pip_fin());
}

PT_CASE(trywait_any_reaps_ended_task)
{
    pt_init(2);
    int a = PT_SPAWN("task_plain", "ret", "17", NULL);
    int id = PIP_PIPID_NULL, st = -1, rc;
    double end = pt_now() + PT_WAIT_SECONDS;
    while ((rc = pip_trywait_any(&id, &st)) == ECHILD) {
        PT_CHECK(pt_now() < end);
        usleep(1000);
    }
    PT_OK(rc);
    PT_CHECK(id == a);
    PT_CHECK_EXIT(st, 17);
    PT_OK(pip_fin());
}

PT_CASE(task_cannot_call_root_only_functions)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "noroot", pt_ptr_arg(sh), NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(wait_without_init_is_eperm)
{
    int id, st;
    PT_CHECK_ERR(pip_wait(0, &st), EPERM);
    PT_CHECK_ERR(pip_wait_any(&id, &st), EPERM);
}

PT_CASE(pipid_is_reusable_after_reaping)
{
    /* After a task is reaped its pipid may be given again. */
    pt_init(1);
    for (int round = 0; round < 3; round++) {
        int id = 0;
        PT_OK(pt_spawn("task_plain", &id, "ret", pt_int_arg(round), NULL));
        PT_CHECK_EXIT(pt_wait(0), round);
    }
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_codes_are_reported),
        cmocka_unit_test(null_status_is_allowed),
        cmocka_unit_test(sigkill_death_is_wifsignaled),
        cmocka_unit_test(sigsegv_death_is_wifsignaled),
        cmocka_unit_test(trywait_while_running_is_echild),
        cmocka_unit_test(second_wait_is_echild),
        cmocka_unit_test(wait_for_never_spawned_is_echild),
        cmocka_unit_test(wait_for_root_is_edeadlk),
        cmocka_unit_test(wait_out_of_range_fails),
        cmocka_unit_test(wait_any_reaps_each_task_once),
        cmocka_unit_test(wait_any_without_tasks_is_echild),
        cmocka_unit_test(trywait_any_reaps_ended_task),
        cmocka_unit_test(task_cannot_call_root_only_functions),
        cmocka_unit_test(wait_without_init_is_eperm),
        cmocka_unit_test(pipid_is_reusable_after_reaping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
