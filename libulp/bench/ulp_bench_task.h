/* SPDX-License-Identifier: BSD-2-Clause */
/* ulp_bench_task.h: what ulp_bench_switch shares with its PiP tasks. */
#ifndef ULP_BENCH_TASK_H
#define ULP_BENCH_TASK_H

#include <ulp.h>

#define ULP_BENCH_ROUNDS_MAX 51

/* The tasks run `rounds` timed rounds; the root takes the median. */
struct ulp_bench_shared {
    int n, rounds;
    ulp_barrier_t bar;
    double t0[ULP_BENCH_ROUNDS_MAX], t1[ULP_BENCH_ROUNDS_MAX];
};

#endif /* ULP_BENCH_TASK_H */
