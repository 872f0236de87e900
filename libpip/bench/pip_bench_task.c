/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_bench_task.c: task of pip_bench_scale.  Writes one byte to the
 * "ready" descriptor, then blocks until the "go" descriptor reaches end of
 * file (the root closes its write end), so all tasks of a measurement are
 * alive at once without spinning.
 *
 *   pip_bench_task READY_FD GO_FD
 */
#include <stdlib.h>
#include <unistd.h>

static char private_data[4096] = {1}; /* a page of data per task */

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int ready = atoi(argv[1]), go = atoi(argv[2]);
    char c = (char)private_data[0];
    if (write(ready, &c, 1) != 1)
        return 3;
    while (read(go, &c, 1) > 0)
        ;
    return 0;
}
