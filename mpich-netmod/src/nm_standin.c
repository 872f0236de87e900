/* SPDX-License-Identifier: BSD-2-Clause */
/* nm_standin.c: the stand-in protocol of the PiP form (nm_standin.h). */
#include "nm_standin.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double nm_si_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

socklen_t nm_si_addr(struct sockaddr_un *a, const char *key, long g)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "mpideleg:%s:%ld",
                     key, g);
    if (n < 0 || (size_t)n >= sizeof a->sun_path - 1)
        n = (int)sizeof a->sun_path - 2;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int nm_si_connect(const struct sockaddr_un *a, socklen_t len, double timeout)
{
    double t0 = nm_si_now();
    for (;;) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (const struct sockaddr *)a, len) == 0)
            return fd;
        close(fd);
        if (nm_si_now() - t0 > timeout)
            return -1;
        usleep(10000);
    }
}

int nm_si_code(int st)
{
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int nm_si_wait(int fd, long rank, const char *me)
{
    int32_t st;
    ssize_t n;
    do
        n = read(fd, &st, sizeof st);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof st) {
        fprintf(stderr,
                "%s: rank %ld: the group's root ended without a word "
                "on this rank's task\n",
                me, rank);
        return 1;
    }
    if (WIFSIGNALED(st)) {
        /* end as the task did, so that the launcher reports the signal
         * as for a process (a core, if any, is the task's, not ours) */
        int sig = WTERMSIG(st);
        struct rlimit no_core = {0, 0};
        sigset_t one;
        fflush(NULL);
        (void)setrlimit(RLIMIT_CORE, &no_core);
        (void)signal(sig, SIG_DFL);
        sigemptyset(&one);
        sigaddset(&one, sig);
        (void)sigprocmask(SIG_UNBLOCK, &one, NULL);
        (void)raise(sig);
    }
    return nm_si_code(st);
}

int nm_si_tell(int fd, int32_t st)
{
    /* the stand-in may be gone: no SIGPIPE for the group's root */
    ssize_t n = send(fd, &st, sizeof st, MSG_NOSIGNAL);
    return n == (ssize_t)sizeof st ? 0 : -1;
}

/* The launcher's process of this node for this job: the nearest ancestor
 * named hydra_pmi_proxy (a wrapper such as a shell may stand between), or
 * the parent. */
pid_t nm_si_job_pid(void)
{
    pid_t pid = getppid();
    for (int up = 0; pid > 1 && up < 8; up++) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
        FILE *f = fopen(path, "re");
        if (!f)
            break;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* pid (comm) state ppid ...: comm may hold spaces and ')' */
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        long ppid;
        if (!open || !close || close < open ||
            sscanf(close + 1, " %*c %ld", &ppid) != 1)
            break;
        if (close - open - 1 == 15 &&
            strncmp(open + 1, "hydra_pmi_proxy", 15) == 0)
            return pid;
        pid = (pid_t)ppid;
    }
    return getppid();
}

/* ------------------------------------------------------------------ */
/* Which ranks share this node                                         */
/* ------------------------------------------------------------------ */

#define LOCAL_TIMEOUT 10.0 /* s: the node's ranks show up */

/* The abstract name of rank r's presence in the job KEY. */
static socklen_t presence_addr(struct sockaddr_un *a, const char *key, long r)
{
    char k[80];
    snprintf(k, sizeof k, "%s:r", key);
    return nm_si_addr(a, k, r);
}

/* This rank's presence on the node: a datagram socket bound to an
 * abstract name of the job's key and the rank, open until the process
 * ends (a PiP root's stays in its tasks' table, which is harmless). */
static void presence_open(const char *key, long rank)
{
    struct sockaddr_un a;
    socklen_t len = presence_addr(&a, key, rank);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, len) != 0) {
        close(fd);
    }
}

/* Is rank r of the job present on this node? */
static int presence_of(const char *key, long r)
{
    struct sockaddr_un a;
    socklen_t len = presence_addr(&a, key, r);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    int ok = connect(fd, (struct sockaddr *)&a, len) == 0;
    close(fd);
    return ok;
}

/* Are the ranks first..last-1 all on this node?  hydra tells how many
 * ranks the node has (MPI_LOCALNRANKS) and this rank's place among them
 * (MPI_LOCALRANKID), not which: each rank marks its presence, and the
 * node's ranks are looked for (first where hydra's block distribution
 * puts them, then everywhere) until all nlocal are seen or
 * LOCAL_TIMEOUT s have passed (a rank that never shows up counts as
 * elsewhere).  Every rank of the node sees the same set, so the members
 * of a group agree. */
int nm_si_group_is_local(const char *key, long rank, long size, long nlocal,
                         long lid, long first, long last)
{
    presence_open(key, rank);
    unsigned char *seen = calloc((size_t)size, 1);
    if (!seen)
        return 0;
    long nseen = 0, b0 = rank - lid;
    double t0 = nm_si_now();
    while (nseen < nlocal && nm_si_now() - t0 < LOCAL_TIMEOUT) {
        for (int pass = 0; pass < 2 && nseen < nlocal; pass++) {
            long lo = pass ? 0 : b0 < 0 ? 0 : b0;
            long hi = pass ? size : b0 + nlocal > size ? size : b0 + nlocal;
            for (long r = lo; r < hi && nseen < nlocal; r++)
                if (!seen[r] && presence_of(key, r))
                    seen[r] = 1, nseen++;
        }
        if (nseen < nlocal)
            usleep(5000);
    }
    int all = 1;
    for (long r = first; r < last; r++)
        all &= seen[r];
    free(seen);
    return all;
}
