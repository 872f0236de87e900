/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_wait: the waiting functions as PiP programs use them: polling with
 * pip_trywait() while it returns ECHILD, polling with pip_trywait_any(),
 * and pip_wait_any().  Tasks sleep a little and exit with 10 + pipid.
 */
#include "pc.h"

#include <time.h>

#define NTASKS 6

int main(int argc, char **argv)
{
    int pipid, ntasks = NTASKS;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        return 10 + pipid;
    }
    for (int i = 0; i < NTASKS; i++) {
        pip_spawn_program_t prog;
        int id = i;
        pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
        PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    }
    int status, err, done = 0;

    /* tasks 0 and 1: pip_trywait polling */
    for (int i = 0; i < 2; i++) {
        while ((err = pip_trywait(i, &status)) == ECHILD)
            pip_yield(PIP_YIELD_DEFAULT);
        PC_RV(err, 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10 + i, 1);
        printf("trywait: task %d exited with %d\n", i, WEXITSTATUS(status));
        done++;
    }
    /* two more with pip_trywait_any polling */
    for (int k = 0; k < 2; k++) {
        int id = -1;
        while ((err = pip_trywait_any(&id, &status)) == ECHILD)
            pip_yield(PIP_YIELD_DEFAULT);
        PC_RV(err, 0);
        PC_CHECK(id >= 2 && id < NTASKS, 1);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10 + id, 1);
        done++;
    }
    /* the rest with pip_wait_any */
    while (done < NTASKS) {
        int id = -1;
        PC_RV(pip_wait_any(&id, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10 + id, 1);
        done++;
    }
    printf("root: %d tasks reaped\n", done);
    /* nothing left */
    int id;
    PC_RV(pip_wait_any(&id, &status), ECHILD);
    PC_RV(pip_trywait_any(&id, &status), ECHILD);
    PC_RV(pip_wait(0, &status), ECHILD);
    PC_RV(pip_wait(PIP_PIPID_ROOT, &status), EDEADLK);
    PC_RV(pip_fin(), 0);
    return 0;
}
