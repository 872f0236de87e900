/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_compat.c: a task for the PiP-compatibility defects.  Its constructor
 * and destructor print on stdout and stderr (NULL streams there used to
 * kill the root); main runs one action:
 *
 *   fork-return N   fork(); the child returns N from main; 0 if waitpid
 *                   sees the child exit with N within 20 s, else 1 (wrong
 *                   status) or 2 (child still running: killed)
 *   fork-exit N     the same, the child calling exit(N)
 *   selfkill SIG    pip_kill(PIP_PIPID_MYSELF, SIG): must not return; 99
 *                   if it does (after 20 s)
 *   waitfd FD       block reading one byte from FD (20 s at most), return 0
 *   ret N           return N
 */
#include <pip/pip.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((constructor)) static void task_compat_ctor(int argc, char **argv)
{
    /* Both streams must be usable here, in every task. */
    fprintf(stdout, "ctor-out %s\n", argc > 1 ? argv[1] : "-");
    fprintf(stderr, "ctor-err\n");
}

__attribute__((destructor)) static void task_compat_dtor(void)
{
    fprintf(stdout, "dtor-out\n");
}

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait (20 s at most) for the child to end with `code`. */
static int reap_child(pid_t pid, int code)
{
    int st = 0;
    for (int i = 0; i < 2000; i++) {
        pid_t p = waitpid(pid, &st, WNOHANG);
        if (p == pid)
            return WIFEXITED(st) && WEXITSTATUS(st) == code ? 0 : 1;
        if (p < 0 && errno != EINTR)
            return 1;
        msleep(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 100;
    const char *act = argv[1];
    int n = atoi(argv[2]);
    if (strcmp(act, "fork-return") == 0 || strcmp(act, "fork-exit") == 0) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0)
            return 3;
        if (pid == 0) {
            printf("child %d\n", n);
            if (strcmp(act, "fork-exit") == 0)
                exit(n);
            return n;
        }
        int rc = reap_child(pid, n);
        printf("parent %d\n", rc);
        return rc;
    }
    if (strcmp(act, "selfkill") == 0) {
        int rc = pip_kill(PIP_PIPID_MYSELF, n);
        if (rc != 0)
            return 98;
        for (int i = 0; i < 2000; i++)
            msleep(10);
        return 99;
    }
    if (strcmp(act, "waitfd") == 0) {
        struct pollfd p = {n, POLLIN, 0};
        char c;
        int rc;
        do /* a handled signal interrupts poll: go on */
            rc = poll(&p, 1, 20000);
        while (rc < 0 && errno == EINTR);
        if (rc == 1 && read(n, &c, 1) == 1)
            return 0;
        return 97;
    }
    if (strcmp(act, "ret") == 0)
        return n;
    return 100;
}
