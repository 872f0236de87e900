/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_hooks.c: spawn hooks: the before hook runs in the new task
 * before user code and a nonzero result aborts the task; the after hook
 * runs when the task ends, sees hookarg, and its nonzero result becomes
 * the status when the task's own status was 0.
 */
#include "pt_util.h"

typedef struct {
    volatile int before_calls;
    volatile int after_calls;
    volatile int before_ret;
    volatile int after_ret;
    volatile pid_t before_pid;
    volatile pid_t before_tid;
    volatile int after_saw_file; /* the task's file existed when after ran */
    const char *file;
} hookarg_t;

static int before_hook(void *p)
{
    hookarg_t *h = p;
    h->before_calls++;
    h->before_pid = getpid();
    h->before_tid = pip_gettid();
    return h->before_ret;
}

static int after_hook(void *p)
{
    hookarg_t *h = p;
    h->after_calls++;
    h->after_saw_file = h->file != NULL && access(h->file, F_OK) == 0;
    return h->after_ret;
}

/* Spawn task_plain with hooks and the given actions; returns the status, or -1
 * - rc. */
static int spawn_hooked(hookarg_t *h, int use_before, int use_after, char *a1,
                        char *a2, char *a3, char *a4)
{
    char *argv[] = {pt_path("task_plain"), a1, a2, a3, a4, NULL};
    pip_spawn_program_t prog;
    pip_spawn_hook_t hook;
    int id = PIP_PIPID_ANY, st = -1;
    pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL, NULL);
    pip_spawn_hook(&hook, use_before ? before_hook : NULL,
                   use_after ? after_hook : NULL, h);
    int rc = pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, &hook);
    if (rc != 0)
        return -1 - rc;
    PT_OK(pip_wait(id, &st));
    return st;
}

PT_CASE(before_runs_in_the_new_task)
{
    hookarg_t h = {0};
    pt_init(2);
    int st = spawn_hooked(&h, 1, 0, "ret", "0", NULL, NULL);
    PT_CHECK_EXIT(st, 0);
    PT_CHECK(h.before_calls == 1);
    /* It ran on the task's thread, not ours. */
    PT_CHECK(h.before_tid != pip_gettid());
    if (pt_is_process_mode())
        PT_CHECK(h.before_pid != getpid());
    PT_OK(pip_fin());
}

PT_CASE(before_nonzero_aborts_task)
{
    hookarg_t h = {0};
    h.before_ret = 3;
    char *file = pt_tmpfile("hook");
    unlink(file);
    pt_init(2);
    int st = spawn_hooked(&h, 1, 0, "touch", file, "ret", "0");
    PT_CHECK(h.before_calls == 1);
    /* User code never ran. */
    PT_CHECK_MSG(access(file, F_OK) != 0,
                 "task ran although before returned nonzero");
    /* Either spawn fails, or the task ends with a nonzero status. */
    PT_CHECK_MSG(st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0,
                 "aborted task reported success (0x%x)", st);
    PT_OK(pip_fin());
}

PT_CASE(after_sees_hookarg_after_task_ends)
{
    hookarg_t h = {0};
    char *file = pt_tmpfile("after");
    unlink(file);
    h.file = file;
    pt_init(2);
    int st = spawn_hooked(&h, 0, 1, "touch", file, "ret", "0");
    PT_CHECK_EXIT(st, 0);
    PT_CHECK(h.after_calls == 1);
    PT_CHECK_MSG(h.after_saw_file, "after ran before the task's user code");
    unlink(file);
    PT_OK(pip_fin());
}

PT_CASE(after_nonzero_becomes_zero_status)
{
    hookarg_t h = {0};
    h.after_ret = 5;
    pt_init(2);
    PT_CHECK_EXIT(spawn_hooked(&h, 0, 1, "ret", "0", NULL, NULL), 5);
    PT_CHECK(h.after_calls == 1);
    PT_OK(pip_fin());
}

PT_CASE(after_nonzero_keeps_nonzero_status)
{
    hookarg_t h = {0};
    h.after_ret = 5;
    pt_init(2);
    PT_CHECK_EXIT(spawn_hooked(&h, 0, 1, "ret", "3", NULL, NULL), 3);
    PT_CHECK(h.after_calls == 1);
    PT_OK(pip_fin());
}

PT_CASE(both_hooks_with_old_spawn_form)
{
    hookarg_t h = {0};
    pt_init(2);
    char *path = pt_path("task_plain");
    char *argv[] = {path, "exit", "0", NULL};
    int id = PIP_PIPID_ANY, st;
    PT_OK(pip_spawn(path, argv, NULL, PIP_CPUCORE_ASIS, &id, before_hook,
                    after_hook, &h));
    PT_OK(pip_wait(id, &st));
    PT_CHECK_EXIT(st, 0);
    PT_CHECK(h.before_calls == 1 && h.after_calls == 1);
    PT_OK(pip_fin());
}

PT_CASE(after_runs_for_exit_paths)
{
    hookarg_t h = {0};
    pt_init(3);
    PT_CHECK_EXIT(spawn_hooked(&h, 0, 1, "exit", "0", NULL, NULL), 0);
    PT_CHECK(h.after_calls == 1);
    h.after_ret = 9;
    PT_CHECK_EXIT(spawn_hooked(&h, 0, 1, "exit", "0", NULL, NULL), 9);
    PT_CHECK(h.after_calls == 2);
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(before_runs_in_the_new_task),
        cmocka_unit_test(before_nonzero_aborts_task),
        cmocka_unit_test(after_sees_hookarg_after_task_ends),
        cmocka_unit_test(after_nonzero_becomes_zero_status),
        cmocka_unit_test(after_nonzero_keeps_nonzero_status),
        cmocka_unit_test(both_hooks_with_old_spawn_form),
        cmocka_unit_test(after_runs_for_exit_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
