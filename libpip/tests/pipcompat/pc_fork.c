/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_fork: fork() in a task.  Task 0's child returns from main, task 1's
 * child calls exit(); each task waits for its child (20 s at most) and
 * reports the child's exit code.
 */
#include "pc.h"

#include <errno.h>
#include <time.h>

static int wait_child(pid_t pid)
{
    for (int i = 0; i < 2000; i++) {
        int st;
        pid_t p = waitpid(pid, &st, WNOHANG);
        if (p == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 200;
        if (p < 0 && errno != EINTR)
            return 201;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 202; /* the child never ended */
}

int main(int argc, char **argv)
{
    int pipid, ntasks = 2;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT) {
        fflush(NULL);
        pid_t pid = fork();
        PC_CHECK(pid >= 0, 2);
        if (pid == 0) {
            printf("child of task %d\n", pipid);
            if (pipid == 1)
                exit(7);
            return 6;
        }
        int code = wait_child(pid);
        printf("task %d: child exited with %d\n", pipid, code);
        return code == 6 + pipid ? 0 : 1;
    }
    for (int i = 0; i < 2; i++) {
        pip_spawn_program_t prog;
        int id = i;
        pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
        PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    }
    for (int i = 0; i < 2; i++) {
        int status;
        PC_RV(pip_wait(i, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
    }
    PC_RV(pip_fin(), 0);
    printf("root: done\n");
    return 0;
}
