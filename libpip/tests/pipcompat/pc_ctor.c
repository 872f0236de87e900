/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_ctor: constructors and destructors that print.  The program's
 * constructor runs for the root (at its start) and for every task (when
 * it is spawned); the destructor runs when each of them ends.  Both print
 * on stdout and stderr.  The constructor also sets a variable that main
 * checks: every task has its own, set.
 */
#include "pc.h"

#define NTASKS 3

static int ctor_ran;

__attribute__((constructor)) static void pc_ctor(void)
{
    ctor_ran++;
    printf("constructor\n");
    fprintf(stderr, "constructor (stderr)\n");
}

__attribute__((destructor)) static void pc_dtor(void)
{
    printf("destructor\n");
    fprintf(stderr, "destructor (stderr)\n");
}

int main(int argc, char **argv)
{
    int pipid, ntasks = NTASKS;
    (void)argc;

    PC_CHECK(ctor_ran == 1, 1);
    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT) {
        printf("task %d: main\n", pipid);
        return 0;
    }
    for (int i = 0; i < NTASKS; i++) {
        pip_spawn_program_t prog;
        int id = i;
        pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
        PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
        int status;
        PC_RV(pip_wait(id, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
    }
    PC_RV(pip_fin(), 0);
    printf("root: main ends\n");
    return 0;
}
