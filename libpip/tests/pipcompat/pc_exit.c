/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_exit: the ways a task ends and what pip_wait reports: return from
 * main, exit(), pip_exit(), a start function's return value and pip_exit()
 * in a start function.  Each task registers an atexit handler that
 * prints, and its output waits in its stdout buffer (a file): both must
 * appear whatever the way out.
 */
#include "pc.h"

static int my_pipid;

static void at_exit(void)
{
    printf("atexit of task %d\n", my_pipid);
}

int start_return(void *arg);
int start_pip_exit(void *arg);

int start_return(void *arg)
{
    PC_RV(pip_get_pipid(&my_pipid), 0);
    atexit(at_exit);
    printf("task %d: start function returns %d", my_pipid, *(int *)arg);
    printf("\n");
    return *(int *)arg;
}

int start_pip_exit(void *arg)
{
    PC_RV(pip_get_pipid(&my_pipid), 0);
    atexit(at_exit);
    printf("task %d: start function calls pip_exit(%d)\n", my_pipid,
           *(int *)arg);
    pip_exit(*(int *)arg);
    return 99;
}

int main(int argc, char **argv)
{
    int pipid, ntasks = 5;

    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT) {
        my_pipid = pipid;
        atexit(at_exit);
        const char *how = argc > 1 ? argv[1] : "?";
        printf("task %d: %s\n", pipid, how);
        if (strcmp(how, "return") == 0)
            return 1;
        if (strcmp(how, "exit") == 0)
            exit(2);
        if (strcmp(how, "pip_exit") == 0)
            pip_exit(3);
        return 100;
    }
    const char *hows[3] = {"return", "exit", "pip_exit"};
    for (int i = 0; i < 3; i++) {
        char *av[] = {argv[0], (char *)hows[i], NULL};
        pip_spawn_program_t prog;
        int id = i;
        pip_spawn_from_main(&prog, av[0], av, NULL, NULL);
        PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    }
    static int four = 4, five = 5;
    pip_spawn_program_t prog;
    int id = 3;
    pip_spawn_from_func(&prog, argv[0], "start_return", &four, NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    id = 4;
    pip_spawn_from_func(&prog, argv[0], "start_pip_exit", &five, NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    for (int i = 0; i < 5; i++) {
        int status;
        PC_RV(pip_wait(i, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == i + 1, 1);
        printf("root: task %d exited with %d\n", i, WEXITSTATUS(status));
    }
    PC_RV(pip_fin(), 0);
    return 0;
}
