/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_initfin: pip_init/pip_fin in the root and in the tasks.  The root
 * exports an int through pip_init; each task calls pip_init (getting its
 * PiP ID, the number of tasks and the root's export) and pip_fin, which
 * return 0.  The root spawns NTASKS copies of itself from main.
 */
#include "pc.h"

#define NTASKS 4

int main(int argc, char **argv)
{
    static int root_value = 4242;
    void *exp = &root_value;
    int pipid, ntasks = NTASKS;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, &exp, 0), 0);
    if (pipid == PIP_PIPID_ROOT) {
        PC_CHECK(pip_isa_root() && !pip_isa_task(), 1);
        PC_CHECK(pip_is_initialized(), 1);
        for (int i = 0; i < NTASKS; i++) {
            pip_spawn_program_t prog;
            int id = i;
            pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
            PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
            PC_CHECK(id == i, 1);
        }
        /* not yet: tasks may be running */
        int rv = pip_fin();
        PC_CHECK(rv == 0 || rv == EBUSY, 1);
        for (int i = 0; i < NTASKS; i++) {
            int status;
            PC_RV(pip_wait(i, &status), 0);
            PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
        }
        PC_RV(pip_fin(), 0);
        printf("root: %d tasks done\n", NTASKS);
    } else {
        int *rexp = exp;
        PC_CHECK(pipid >= 0 && pipid < NTASKS, 2);
        PC_CHECK(ntasks == NTASKS, 3);
        PC_CHECK(rexp != NULL && *rexp == 4242, 4);
        PC_CHECK(pip_isa_task() && !pip_isa_root(), 5);
        int id = -1, n = -1;
        PC_RV(pip_get_pipid(&id), 0);
        PC_RV(pip_get_ntasks(&n), 0);
        PC_CHECK(id == pipid && n == NTASKS, 6);
        printf("task %d: ntasks %d root export %d\n", pipid, ntasks, *rexp);
        PC_RV(pip_fin(), 0);
    }
    return 0;
}
