/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_export: named export/import and a barrier.  Each task fills an array
 * of its own and exports it under "array-<pipid>"; it then imports its
 * right neighbour's array (pip_named_import blocks until exported) and
 * checks it through the plain pointer.  The barrier (in the root's memory,
 * given to the tasks through pip_init's export) makes every task finish
 * reading before any task ends.  pip_named_tryimport of a name never
 * exported gives EAGAIN.
 */
#include "pc.h"

#define NTASKS 4
#define LEN    1000

static int array[LEN]; /* one per task: its own copy of the program */

int main(int argc, char **argv)
{
    static pip_barrier_t barrier;
    void *exp = &barrier;
    int pipid, ntasks = NTASKS;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, &exp, 0), 0);
    if (pipid == PIP_PIPID_ROOT) {
        PC_RV(pip_barrier_init(&barrier, NTASKS), 0);
        PC_RV(pip_named_export(&barrier, "the-barrier"), 0);
        for (int i = 0; i < NTASKS; i++) {
            pip_spawn_program_t prog;
            int id = i;
            pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
            PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
        }
        for (int i = 0; i < NTASKS; i++) {
            int status;
            PC_RV(pip_wait(i, &status), 0);
            PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
        }
        PC_RV(pip_barrier_fin(&barrier), 0);
        PC_RV(pip_fin(), 0);
        printf("root: done\n");
        return 0;
    }
    pip_barrier_t *b = exp;
    void *p = NULL;
    PC_RV(pip_named_import(PIP_PIPID_ROOT, &p, "the-barrier"), 0);
    PC_CHECK(p == b, 2);
    for (int i = 0; i < LEN; i++)
        array[i] = pipid * 10000 + i;
    PC_RV(pip_named_export(array, "array-%d", pipid), 0);
    int right = (pipid + 1) % NTASKS;
    int *other = NULL;
    PC_RV(pip_named_import(right, (void **)&other, "array-%d", right), 0);
    PC_CHECK(other != NULL && other != array, 3);
    for (int i = 0; i < LEN; i++)
        PC_CHECK(other[i] == right * 10000 + i, 4);
    PC_RV(pip_named_tryimport(right, &p, "never-exported"), EAGAIN);
    printf("task %d: read task %d's array\n", pipid, right);
    PC_RV(pip_barrier_wait(b), 0);
    return 0;
}
