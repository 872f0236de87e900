/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pipcc_task.c: a program built by pipcc in the tests (and by `make
 * installcheck`): it runs standalone and as a PiP task, has __thread data
 * (initialised and zeroed) and a global counter.
 *
 *   pipcc_task [N]   prints "task standalone tls T global 1", or as task
 *                    "task pipid P tls T global 1", where T = 1000 + N.
 */
#include <pip/pip.h>

#include <stdio.h>
#include <stdlib.h>

static __thread int tls_base = 1000;
static __thread char tls_zero[4096];
int global_counter;

int main(int argc, char **argv)
{
    int pipid;
    int n = argc > 1 ? atoi(argv[1]) : 0;
    for (size_t i = 0; i < sizeof(tls_zero); i++)
        if (tls_zero[i] != 0)
            return 3;
    tls_base += n;
    global_counter++;
    if (pip_get_pipid(&pipid) == 0)
        printf("task pipid %d tls %d global %d\n", pipid, tls_base,
               global_counter);
    else
        printf("task standalone tls %d global %d\n", tls_base, global_counter);
    return 0;
}
