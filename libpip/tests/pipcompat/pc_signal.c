/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_signal: pip_kill and signals.
 *   task 0 blocks SIGUSR1 (pip_sigmask) and waits for it (pip_signal_wait):
 *          the root's pip_kill(0, SIGUSR1) lets it exit 0;
 *   task 1 waits to be killed: pip_kill(1, SIGTERM) ends it, and only it;
 *   task 2 sends SIGINT to itself with pip_kill(PIP_PIPID_MYSELF, ...).
 * pip_wait reports the signals (WIFSIGNALED, WTERMSIG); the root goes on.
 * pip_kill on a PiP ID never spawned gives ESRCH, a bad signal EINVAL.
 */
#include "pc.h"

#include <time.h>

struct shared {
    volatile int ready[3];
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    static struct shared sh;
    void *exp = &sh;
    int pipid, ntasks = 4;
    (void)argc;

    PC_RV(pip_init(&pipid, &ntasks, &exp, 0), 0);
    if (pipid == PIP_PIPID_ROOT) {
        for (int i = 0; i < 3; i++) {
            pip_spawn_program_t prog;
            int id = i;
            pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
            PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
        }
        for (int i = 0; i < 2000 && !(sh.ready[0] && sh.ready[1]); i++)
            sleep_ms(10);
        PC_CHECK(sh.ready[0] && sh.ready[1], 1);
        PC_RV(pip_kill(3, SIGTERM), ESRCH); /* never spawned */
        PC_RV(pip_kill(0, -1), EINVAL);
        PC_RV(pip_kill(1, 0), 0); /* alive */
        PC_RV(pip_kill(0, SIGUSR1), 0);
        PC_RV(pip_kill(1, SIGTERM), 0);
        int status;
        PC_RV(pip_wait(0, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, 1);
        printf("task 0: got SIGUSR1, exited 0\n");
        PC_RV(pip_wait(1, &status), 0);
        PC_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, 1);
        printf("task 1: killed by signal %d\n", WTERMSIG(status));
        PC_RV(pip_wait(2, &status), 0);
        PC_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, 1);
        printf("task 2: killed by signal %d\n", WTERMSIG(status));
        PC_RV(pip_kill(1, 0), ESRCH); /* reaped */
        PC_RV(pip_fin(), 0);
        printf("root: still here\n");
        return 0;
    }
    struct shared *s = exp;
    if (pipid == 0) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        PC_RV(pip_sigmask(SIG_BLOCK, &set, NULL), 0);
        s->ready[0] = 1;
        PC_RV(pip_signal_wait(SIGUSR1), 0);
        return 0;
    }
    if (pipid == 1) {
        s->ready[1] = 1;
        for (int i = 0; i < 2000; i++)
            sleep_ms(10);
        return 3; /* not killed */
    }
    PC_RV(pip_kill(PIP_PIPID_MYSELF, SIGINT), 0);
    sleep_ms(20000);
    return 4; /* still alive */
}
