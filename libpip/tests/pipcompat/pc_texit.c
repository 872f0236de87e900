/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc_texit: a task's _exit() and a signal a task sends itself behave as in
 * a process, in both modes.  PiP 2.4.1 supports these in process mode only
 * (its own suite skips them in thread mode); libpip makes thread mode
 * behave the same.
 *
 * Each task installs a SIGUSR2 handler that records its pipid in the
 * task's own static variable, sends itself SIGUSR2 with
 * kill(getpid(), ...), checks that its own handler ran, and ends with
 * _exit(10 + pipid) (stdout flushed by hand: _exit does not).  The last
 * task instead calls _exit() from a second thread while its main thread
 * waits: the whole task ends with that status.  The root checks each
 * status and then runs: it is still there.
 */
#include "pc.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NTASKS 8

static volatile sig_atomic_t got; /* one per task */
static int me;

static void on_usr2(int sig)
{
    (void)sig;
    got = me + 1;
}

static void *exiter(void *arg)
{
    (void)arg;
    printf("task %d: _exit from a second thread\n", me);
    fflush(stdout);
    _exit(10 + me);
}

static int task(int pipid)
{
    struct sigaction sa;
    me = pipid;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr2;
    sigemptyset(&sa.sa_mask);
    PC_CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, 2);
    PC_CHECK(kill(getpid(), SIGUSR2) == 0, 3);
    for (int i = 0; i < 5000 && got == 0; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    PC_CHECK(got == pipid + 1, 4);
    printf("task %d: its own handler took the SIGUSR2 it sent itself\n", pipid);
    fflush(stdout);
    if (pipid == NTASKS - 1) {
        pthread_t th;
        PC_CHECK(pthread_create(&th, NULL, exiter, NULL) == 0, 5);
        for (;;)
            pause(); /* ended by the other thread's _exit */
    }
    _exit(10 + pipid);
}

int main(int argc, char **argv)
{
    int pipid, ntasks = NTASKS;
    (void)argc;
    PC_RV(pip_init(&pipid, &ntasks, NULL, 0), 0);
    if (pipid != PIP_PIPID_ROOT)
        return task(pipid);
    for (int i = 0; i < NTASKS; i++) {
        pip_spawn_program_t prog;
        int id = i;
        pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
        PC_RV(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), 0);
    }
    for (int i = 0; i < NTASKS; i++) {
        int status = -1;
        PC_RV(pip_wait(i, &status), 0);
        PC_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 10 + i, 6);
    }
    PC_RV(pip_fin(), 0);
    printf("root: every task's _exit ended only that task\n");
    return 0;
}
