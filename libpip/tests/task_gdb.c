/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_gdb.c: the task test_pip_gdb.sh debugs.  It says "ready PID" and
 * waits until the debugger sets pip_gdb_go (or PIP_GDB_GO is in its
 * environment), then calls task_work(3), where the debugger's breakpoint
 * is.  Exit 0 when task_work returned 4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile int pip_gdb_go;

int task_work(int x);
__attribute__((noinline)) int task_work(int x)
{
    printf("task_work %d\n", x);
    return x + 1;
}

int main(void)
{
    /* Started under the debugger: no need to wait for it. */
    if (getenv("PIP_GDB_GO") != NULL)
        pip_gdb_go = 1;
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    /* Bounded: 120 s, then give up (the test has failed by then). */
    for (int i = 0; i < 120000 && !pip_gdb_go; i++)
        usleep(1000);
    return pip_gdb_go && task_work(3) == 4 ? 0 : 1;
}
