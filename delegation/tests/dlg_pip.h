/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_pip.h: what a PiP root that serves as delegatee shares with the PiP
 * tasks that are its clients (test_delegation_pip, dlg_bench), and the
 * client side of the benchmark's round-trip sweep (run by a PiP task and
 * by a separate forked process alike).
 *
 * Root and tasks live in one address space: the root passes the address of
 * a dlg_pip_shared_t to a task as "%p" text in argv, the task opens the
 * region with its "addr:" spec (the root's own mapping) and attaches with
 * same_address_space = 1, so its buffers reach the root's handlers as
 * plain pointers.  Only inline code here: the task program includes it
 * too, and it links nothing but libdeleg.
 */
#ifndef DLG_PIP_H
#define DLG_PIP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "deleg.h"

enum {
    DLG_PIP_OP_ECHO = 1, /* result: sum of the arguments */
    DLG_PIP_OP_FILL = 2, /* args[0] = the client's own buffer address,
                            args[1] = a byte: the handler checks that it got
                            that very pointer and fills the buffer with it */
    DLG_PIP_OP_SUM = 3,  /* result: sum of the payload's bytes */
    DLG_PIP_OP_SINK = 4  /* benchmark: touch every cache line */
};

#define DLG_PIP_MAXT   8
#define DLG_PIP_FILL_N (1u << 20) /* bytes of each FILL request */
#define DLG_PIP_SUM_N  100        /* bytes of each inline SUM request */
#define DLG_PIP_SIZES  8

typedef struct {
    char spec[96]; /* the region's addr: (PiP) or memfd: (fork) spec */
    int same_as;   /* attach with same_address_space */
    int iters;     /* test: rounds of ECHO + FILL + SUM per task */
    /* benchmark sweep */
    int reps, nsizes, base_iters;
    dlg_policy_t policy;
    size_t sizes[DLG_PIP_SIZES];
    double rt[DLG_PIP_SIZES]; /* median round trip per size, ns */
    /* reports, per task index (argv[3]) */
    volatile int fail[DLG_PIP_MAXT];
    char msg[DLG_PIP_MAXT][160];
} dlg_pip_shared_t;

static inline uint64_t dlg_pip_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int dlg_pip_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Round trips for a payload of n bytes (fewer for big ones). */
static inline int dlg_pip_iters(int base, size_t n)
{
    long it = n ? (long)((64ull << 20) / n) : base;
    if (it > base)
        it = base;
    if (it < 100)
        it = 100;
    return (int)it;
}

/*
 * The client side of the sweep: for every size, `reps` timed runs of
 * back-to-back SINK round trips (DLG_BUF_AUTO: inline up to the inline
 * limit, by reference above: a plain pointer in the same address space,
 * process_vm_readv from a separate process); the medians go to S->rt.
 * Returns 0 or a negative errno.
 */
static inline int dlg_pip_sweep(dlg_client_t *c, dlg_pip_shared_t *S)
{
    size_t maxn = 0;
    for (int i = 0; i < S->nsizes; i++)
        if (S->sizes[i] > maxn)
            maxn = S->sizes[i];
    uint8_t *buf = malloc(maxn ? maxn : 1);
    double *v = calloc((size_t)S->reps, sizeof(double));
    if (!buf || !v) {
        free(buf);
        free(v);
        return -12; /* -ENOMEM */
    }
    memset(buf, 1, maxn ? maxn : 1);
    int rc = 0;
    for (int si = 0; si < S->nsizes && !rc; si++) {
        size_t n = S->sizes[si];
        dlg_call_t call = {.op = DLG_PIP_OP_SINK,
                           .buf = n ? buf : NULL,
                           .len = n,
                           .mode = DLG_BUF_AUTO,
                           .policy = S->policy};
        int iters = dlg_pip_iters(S->base_iters, n);
        int64_t res;
        for (int r = 0; r < S->reps && !rc; r++) {
            for (int i = 0; i < iters / 10 + 1 && !rc; i++) /* warm up */
                rc = dlg_call(c, &call, &res, NULL, NULL);
            uint64_t t0 = dlg_pip_now_ns();
            for (int i = 0; i < iters && !rc; i++)
                rc = dlg_call(c, &call, &res, NULL, NULL);
            v[r] = (double)(dlg_pip_now_ns() - t0) / iters;
        }
        qsort(v, (size_t)S->reps, sizeof(double), dlg_pip_cmp);
        S->rt[si] = S->reps % 2 ? v[S->reps / 2]
                                : (v[S->reps / 2 - 1] + v[S->reps / 2]) / 2;
    }
    free(buf);
    free(v);
    return rc;
}

#endif /* DLG_PIP_H */
