/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_bench_task.c: the PiP task of ulp_bench_switch --task: yields ITERS
 * times as a ULP, timing itself with the carrier's thread CPU clock.
 *   ulp_bench_task ADDR ITERS    (ADDR: "%lx" of a struct ulp_bench_shared)
 * Each of sh->rounds rounds: barrier, ITERS yields, barrier.
 */
#include <ulp.h>

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "ulp_bench_task.h"

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3 || ulp_self() == NULL)
        return 2;
    struct ulp_bench_shared *sh =
        (struct ulp_bench_shared *)(uintptr_t)strtoull(argv[1], NULL, 16);
    long iters = atol(argv[2]);
    for (int r = 0; r < sh->rounds; r++) {
        /* The last to arrive starts the clock: all are ready then. */
        if (ulp_barrier_wait(&sh->bar) == 1)
            sh->t0[r] = cpu_ns();
        for (long i = 0; i < iters; i++)
            ulp_yield();
        if (ulp_barrier_wait(&sh->bar) == 1)
            sh->t1[r] = cpu_ns();
    }
    return 0;
}
