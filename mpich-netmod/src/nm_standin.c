/* SPDX-License-Identifier: BSD-2-Clause */
/* nm_standin.c: the stand-in protocol of the PiP form (nm_standin.h). */
#include "nm_standin.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
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
    return nm_si_code(st);
}

int nm_si_tell(int fd, int32_t st)
{
    /* the stand-in may be gone: no SIGPIPE for the group's root */
    ssize_t n = send(fd, &st, sizeof st, MSG_NOSIGNAL);
    return n == (ssize_t)sizeof st ? 0 : -1;
}
