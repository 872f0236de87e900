/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_bench_util.c: what every part of dlg_bench uses: its settings, the
 * clock, medians, and threads on the host CPUs.
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deleg.h"
#include "dlg_bench.h"

int reps = 7, base_iters = 20000, shared_futex;
dlg_layout_t layout;

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Start a thread already bound to the host CPUs: a thread that binds itself
 * first has to run on its creator's CPU, which a spinning creator may never
 * give up. */
int spawn_on_host(pthread_t *th, void *(*fn)(void *), void *arg)
{
    pthread_attr_t a;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < layout.nhost; i++)
        CPU_SET(layout.host[i], &set);
    pthread_attr_init(&a);
    const char *bind = getenv("DLG_BIND");
    if (!bind || strcmp(bind, "none") != 0)
        pthread_attr_setaffinity_np(&a, sizeof(set), &set);
    int rc = pthread_create(th, &a, fn, arg);
    pthread_attr_destroy(&a);
    return rc;
}

int iters_for(size_t n)
{
    long it = n ? (long)((64ull << 20) / n) : base_iters;
    if (it > base_iters)
        it = base_iters;
    if (it < 100)
        it = 100;
    return (int)it;
}
