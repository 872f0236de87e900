/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_nop.c: the smallest task: returns 0.  Built three ways: as a normal
 * task (-fPIE -pie -rdynamic), as task_nopie (-fno-pie -no-pie: thread mode
 * refuses it with ELIBEXEC; process mode runs one copy at a time) and as
 * task_static.  An argument: sleep that many seconds first.
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1)
        sleep((unsigned)atoi(argv[1]));
    return 0;
}
