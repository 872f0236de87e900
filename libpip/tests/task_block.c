/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_block.c: a task that announces itself and blocks until told to
 * finish, for the pips tests.  It writes "ready PID TID\n" on stdout with
 * one write(2), then waits for one byte on stdin (bounded: 60 s, then it
 * exits 9) and exits 0.  EOF on stdin ends it with status 8.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    char line[64], c;
    int n = snprintf(line, sizeof(line), "ready %d %ld\n", (int)getpid(),
                     (long)syscall(SYS_gettid));
    if (write(1, line, (size_t)n) != n)
        return 7;
    struct pollfd pfd = {0, POLLIN, 0};
    if (poll(&pfd, 1, 60000) != 1)
        return 9;
    return read(0, &c, 1) == 1 ? 0 : 8;
}
