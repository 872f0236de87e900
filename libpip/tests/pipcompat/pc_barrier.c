/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_barrier: many rounds of pip_barrier_wait among the tasks.  In each
 * round every task adds to a counter in the root's memory, then waits at
 * the barrier, then checks that all tasks have added (a missing wait shows
 * as a wrong count).
 */
#include "pc.h"

#define NTASKS 4
#define ROUNDS 200

struct shared {
    pip_barrier_t barrier;
    volatile int count;
};

int main(int argc, char **argv)
{
    static struct shared sh;
    void *exp = &sh;
    int pipid, ntasks = NTASKS;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, &exp, 0), 0);
    if (pipid == PIP_PIPID_ROOT) {
        PC_RV(pip_barrier_init(&sh.barrier, NTASKS), 0);
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
        PC_CHECK(sh.count == NTASKS * ROUNDS, 1);
        PC_RV(pip_barrier_fin(&sh.barrier), 0);
        PC_RV(pip_fin(), 0);
        printf("root: %d rounds of %d tasks\n", ROUNDS, NTASKS);
        return 0;
    }
    struct shared *s = exp;
    for (int r = 0; r < ROUNDS; r++) {
        __sync_fetch_and_add(&s->count, 1);
        PC_RV(pip_barrier_wait(&s->barrier), 0);
        PC_CHECK(s->count == (r + 1) * NTASKS, 2);
        PC_RV(pip_barrier_wait(&s->barrier), 0);
    }
    return 0;
}
