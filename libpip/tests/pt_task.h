/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pt_task.h: the memory block a libpip test root shares with its tasks.
 *
 * Root and tasks live in one address space, so the root passes the block's
 * address to a task as text in argv ("%p") and the task uses it directly.
 * Only inline code and declarations here: task programs that do not link
 * libpip include this header too.
 */
#ifndef PT_TASK_H
#define PT_TASK_H

#include <pip/pip.h>

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define PT_MAXT         16   /* most tasks a test spawns at once */
#define PT_ARRAY_LEN    1024 /* length of arrays tasks export to each other */
#define PT_WAIT_SECONDS 20   /* bound of every wait loop, so nothing hangs */

/* Mirrors pip_barrier_t's use: tasks that do not link libpip use this one. */
typedef struct {
    int n;
    volatile int count;
    volatile int sense;
} pt_spin_barrier_t;

typedef struct {
    pip_barrier_t barrier;  /* for tasks that link libpip */
    pt_spin_barrier_t sbar; /* barrier for tasks that do not */
    volatile int go;        /* root -> tasks: proceed */
    volatile int ready;     /* tasks -> root: number of tasks ready */
    volatile int done;      /* tasks -> root: number of tasks finished */
    volatile int fail;      /* first failure code seen by any task */
    pip_spinlock_t lock;
    volatile long counter; /* updated under lock */
    pip_atomic_t atom;     /* updated atomically */
    int rounds;
    int ntasks;
    /* Per-task reports, indexed by pipid. */
    volatile int pipid[PT_MAXT];
    volatile int ntasks_seen[PT_MAXT];
    volatile int mode[PT_MAXT];
    volatile int isa_root[PT_MAXT];
    volatile int isa_task[PT_MAXT];
    volatile int threaded[PT_MAXT];
    volatile int shared_fd[PT_MAXT];
    volatile uintptr_t sysid[PT_MAXT];
    volatile uintptr_t getpid_[PT_MAXT];
    volatile uintptr_t self[PT_MAXT];
    volatile uintptr_t gettid_[PT_MAXT];
    volatile int value[PT_MAXT];
    void *volatile ptr[PT_MAXT];
    void *root_exp_seen[PT_MAXT];
    void *aux_seen[PT_MAXT];
    void *aux_after[PT_MAXT];
} pt_shared_t;

/* Seconds since an arbitrary point, for the bounded waits. */
static inline double pt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wait until *p >= want; returns 0, or -1 after PT_WAIT_SECONDS. */
static inline int pt_wait_ge(volatile int *p, int want)
{
    double end = pt_now() + PT_WAIT_SECONDS;
    while (__atomic_load_n(p, __ATOMIC_ACQUIRE) < want) {
        if (pt_now() > end)
            return -1;
        /* Yield: root and tasks may share one core. */
        sched_yield();
    }
    return 0;
}

static inline void pt_inc(volatile int *p)
{
    __atomic_add_fetch(p, 1, __ATOMIC_ACQ_REL);
}

/* Sense-reversing barrier that yields; returns -1 on timeout. */
static inline int pt_sbar_wait(pt_spin_barrier_t *b)
{
    int sense = !__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE);
    if (__atomic_sub_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == 0) {
        __atomic_store_n(&b->count, b->n, __ATOMIC_RELAXED);
        __atomic_store_n(&b->sense, sense, __ATOMIC_RELEASE);
        return 0;
    }
    double end = pt_now() + PT_WAIT_SECONDS;
    while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != sense) {
        if (pt_now() > end)
            return -1;
        sched_yield();
    }
    return 0;
}

static inline void pt_sbar_init(pt_spin_barrier_t *b, int n)
{
    b->n = n;
    b->count = n;
    b->sense = 0;
}

/* Parse the "%p" argument a root gave; NULL if malformed. */
static inline pt_shared_t *pt_shared_from_arg(const char *s)
{
    void *p = NULL;
    if (s == NULL || sscanf(s, "%p", &p) != 1)
        return NULL;
    return (pt_shared_t *)p;
}

/* Record the first failure code (tasks report through this and their status).
 */
static inline void pt_set_fail(pt_shared_t *sh, int code)
{
    int zero = 0;
    __atomic_compare_exchange_n(&sh->fail, &zero, code, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

#endif /* PT_TASK_H */
