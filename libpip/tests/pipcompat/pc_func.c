/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_func: spawning from a function (pip_spawn_from_func) and from main.
 * The start functions take their argument, print and return a value the
 * root gets from pip_wait, as from main: an exported one, and a static
 * one (PiP 2.4 finds it in the program's symbol table).
 */
#include "pc.h"

int start_exported(void *arg);

int start_exported(void *arg)
{
    int pipid;
    PC_RV(pip_init(&pipid, NULL, NULL, 0), 0);
    printf("exported start: task %d arg %d\n", pipid, *(int *)arg);
    return *(int *)arg + 1;
}

/* static: not exported; `used` keeps the compiler from dropping it */
__attribute__((used)) static int start_static(void *arg)
{
    int pipid;
    PC_RV(pip_get_pipid(&pipid), 0);
    printf("static start: task %d arg %d\n", pipid, *(int *)arg);
    return *(int *)arg + 2;
}

int main(int argc, char **argv)
{
    static int args[3] = {10, 20, 30};
    int pipid, ntasks = 3;

    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT) {
        /* spawned from main */
        printf("main: task %d argc %d argv[1] %s\n", pipid, argc,
               argc > 1 ? argv[1] : "-");
        return argc > 1 ? atoi(argv[1]) : 99;
    }
    pip_spawn_program_t prog;
    int id;

    id = 0;
    pip_spawn_from_func(&prog, argv[0], "start_exported", &args[0], NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);

    id = 1;
    pip_spawn_from_func(&prog, argv[0], "start_static", &args[1], NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);

    char *av[] = {argv[0], "33", NULL};
    id = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, av[0], av, NULL, NULL);
    PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    PC_CHECK(id == 2, 1);

    const int want[3] = {11, 22, 33};
    for (int i = 0; i < 3; i++) {
        int status;
        PC_RV(pip_wait(i, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == want[i], 1);
        printf("root: task %d exited with %d\n", i, WEXITSTATUS(status));
    }
    /* a function that does not exist */
    id = PIP_PIPID_ANY;
    pip_spawn_from_func(&prog, argv[0], "no_such_function", NULL, NULL, NULL);
    PC_CHECK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL) != 0, 1);
    PC_RV(pip_fin(), 0);
    return 0;
}
