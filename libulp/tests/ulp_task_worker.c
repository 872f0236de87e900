/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_task_worker.c: a PiP task program run as a ULP by the libulp tests.
 * Built as users build tasks (cc -fPIE -pie -rdynamic, linked with libulp).
 *
 *   ulp_task_worker yield ID N [BARRIER]  N yields (and couple/decouple
 *       rounds), checking its __thread variable, global and errno; waits at
 *       the ulp_barrier_t at address BARRIER ("%p") if given; returns ID
 *   ulp_task_worker exit ID                 ends by ulp_exit(ID + 1)
 *   ulp_task_worker recurse                 overflows its stack
 */
#include <ulp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread int worker_tls = -1;
int worker_global = -1;

/* Deep enough to overflow any stack; a bound keeps the compiler quiet. */
static volatile int worker_recurse_limit = 1 << 30;

static int worker_recurse(volatile char *prev, int depth)
{
    volatile char buf[1024];
    buf[0] = (char)depth;
    if (prev != NULL)
        buf[1] = prev[0];
    if (depth > worker_recurse_limit)
        return 0;
    return worker_recurse(buf, depth + 1) + buf[1];
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "recurse") == 0)
        return worker_recurse(NULL, 0);
    if (argc < 3)
        return 99;
    int id = atoi(argv[2]);
    if (ulp_self() == NULL)
        return 98; /* not running as a ULP */
    if (strcmp(argv[1], "exit") == 0) {
        ulp_yield();
        ulp_exit(id + 1);
        return 97;
    }
    int n = argc >= 4 ? atoi(argv[3]) : 100;
    ulp_barrier_t *b = NULL;
    if (argc >= 5)
        b = (ulp_barrier_t *)(uintptr_t)strtoull(argv[4], NULL, 16);
    worker_tls = id;
    worker_global = id;
    errno = id;
    pid_t own = ulp_gettid();
    for (int i = 0; i < n; i++) {
        if (ulp_yield() != 0)
            return 90;
        if (worker_tls != id || worker_global != id || errno != id) {
            fprintf(stderr, "task %d: tls %d global %d errno %d\n", id,
                    worker_tls, worker_global, errno);
            return 91;
        }
        if (i % 10 == 0) {
            if (ulp_couple() != 0 || (pid_t)syscall(SYS_gettid) != own)
                return 92;
            if (ulp_decouple(NULL) != 0 || ulp_is_coupled())
                return 93;
        }
    }
    if (b != NULL && ulp_barrier_wait(b) < 0)
        return 94;
    printf("task %d done\n", id);
    return id;
}
