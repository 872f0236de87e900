/* SPDX-License-Identifier: BSD-2-Clause */
/* pvas_driver.c: the driver's settings and the helpers every part of it
 * (pip_bench_pvas.c, pvas_mpich.c) uses. */
#include <errno.h>
#include <gnu/libc-version.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

void pvas_machine_facts(char *buf, size_t len)
{
    char model[128] = "unknown CPU", line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon != NULL && strncmp(line, "model name", 10) == 0) {
            snprintf(model, sizeof(model), "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (f != NULL)
        fclose(f);
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(u.release, sizeof(u.release), "?");
    snprintf(buf, len, "%s, %ld CPU(s) online, Linux %s, glibc %s", model,
             sysconf(_SC_NPROCESSORS_ONLN), u.release, gnu_get_libc_version());
}

void pvas_loadavg(char *buf, size_t len)
{
    double a[3];
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL && fscanf(f, "%lf %lf %lf", &a[0], &a[1], &a[2]) == 3)
        snprintf(buf, len, "%.2f %.2f %.2f", a[0], a[1], a[2]);
    else
        snprintf(buf, len, "?");
    if (f != NULL)
        fclose(f);
}
