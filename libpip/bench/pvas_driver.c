/* SPDX-License-Identifier: BSD-2-Clause */
/* pvas_driver.c: the driver's settings and the helpers every part of it
 * (pip_bench_pvas.c, pvas_mpich.c) uses. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "pvas_driver.h"

struct pvas_opts opt;
char seg_name[64]; /* the live segment, removed on exit and signals */

void die(const char *fmt, ...)
{
    va_list ap;
    fputs("pip_bench_pvas: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (seg_name[0] != '\0')
        shm_unlink(seg_name);
    exit(1);
}

/* Wait for pid (leader of its own process group) until the deadline; then
 * kill the group.  Returns the wait status, or -1 after a kill. */
int wait_or_kill(pid_t pid, double end)
{
    int st;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return st;
        if (w < 0 && errno != EINTR)
            return -1;
        if (pvas_now() > end) {
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        struct timespec ts = {0, 20000000L};
        nanosleep(&ts, NULL);
    }
}
