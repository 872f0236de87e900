/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_cloexec.c: file descriptors of process-mode tasks: a copy of the
 * root's table at spawn with close-on-exec descriptors closed, as exec
 * would; closing a descriptor in one task leaves it open elsewhere.  In
 * thread mode the table is shared (checked in test_pip_query).
 */
#include "pt_util.h"

PT_CASE(cloexec_fd_is_closed_plain_fd_stays_open)
{
    pt_init(3);
    pt_require_process_mode();
    int cloexec = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int plain = open("/dev/null", O_RDONLY);
    PT_CHECK(cloexec >= 0 && plain >= 0);
    int a = PT_SPAWN("task_plain", "fdclosed", pt_int_arg(cloexec), "fdopen",
                     pt_int_arg(plain), NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    /* Still open in the root. */
    PT_CHECK(fcntl(cloexec, F_GETFD) >= 0);
    PT_CHECK(fcntl(plain, F_GETFD) >= 0);
    PT_OK(pip_fin());
}

PT_CASE(closing_stdout_in_task_is_private)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    pt_require_process_mode();
    /* fd 1 points to a scratch file so the closes are harmless. */
    char *file = pt_tmpfile("fd1");
    int fd = open(file, O_WRONLY);
    PT_CHECK(fd >= 0 && dup2(fd, 1) == 1);
    close(fd);
    /* A sibling that checks fd 1 after the other task closed it. */
    int waiter = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "fdopen", "1",
                          "ret", "0", NULL);
    int closer = PT_SPAWN("task_plain", "close", "1", "fdclosed", "1", NULL);
    PT_CHECK_EXIT(pt_wait(closer), 0);
    PT_CHECK(fcntl(1, F_GETFD) >= 0);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(waiter), 0);
    /* A task spawned afterwards gets fd 1 too. */
    int later = PT_SPAWN("task_plain", "fdopen", "1", NULL);
    PT_CHECK_EXIT(pt_wait(later), 0);
    unlink(file);
    PT_OK(pip_fin());
}

PT_CASE(fd_opened_after_spawn_is_not_seen)
{
    /* The table is copied at spawn: later opens in the root are not shared. */
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(2);
    pt_require_process_mode();
    int probe_fd = 200;
    int a = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "fdclosed",
                     pt_int_arg(probe_fd), NULL);
    int fd = open("/dev/null", O_RDONLY);
    PT_CHECK(fd >= 0 && dup2(fd, probe_fd) == probe_fd);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cloexec_fd_is_closed_plain_fd_stays_open),
        cmocka_unit_test(closing_stdout_in_task_is_private),
        cmocka_unit_test(fd_opened_after_spawn_is_not_seen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
