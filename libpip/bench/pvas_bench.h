/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_bench.h: what the PVAS benchmark's driver (pip_bench_pvas), its
 * task/process program (pvas_task) and its MPI program (pvas_mpi) share:
 * the control segment's layout, the message sizes and iteration counts,
 * the wait loops and barrier, and the strided-layout copy.
 *
 * Everything is inline and uses only libc and system calls, so the same
 * code runs in the driver, in PiP tasks (each under its own namespace's
 * libc) and in plain processes.
 */
#ifndef PVAS_BENCH_H
#define PVAS_BENCH_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define PVAS_MAGIC        0x50564153u /* "PVAS" */
#define PVAS_MAXN         1024        /* most parties of one measurement */
#define PVAS_MAXSIZES     32          /* most message sizes of one sweep */
#define PVAS_MSG_MAX      256         /* failure message length */
#define PVAS_LINE         64 /* cache line: flags live on lines of their own */
#define PVAS_SPIN         20000       /* pause iterations before yielding */
#define PVAS_BYTES_REP    (16u << 20) /* bytes one way per repetition, at most */
#define PVAS_REP_S        0.02 /* seconds per repetition, about, at most */
#define PVAS_WARM_S       0.2  /* warm-up seconds before the first size */
#define PVAS_BLOCKS       64 /* timed blocks of round trips per repetition, most */
#define PVAS_PREFETCH_MAX 8192 /* receivers prefetch messages up to this */

/* How the parties exchange data. */
enum {
    PVAS_M_PIP, /* PiP tasks: one copy through a pointer into the peer */
    PVAS_M_SHM, /* processes: copy into POSIX shm, peer copies out */
    PVAS_M_CMA, /* processes: receiver pulls with process_vm_readv */
    PVAS_M_MPI, /* MPICH's intra-node path (pvas_mpi under mpiexec -n 2) */
    PVAS_M_COUNT
};

/* What is measured. */
enum {
    PVAS_T_PP,  /* ping-pong of contiguous messages */
    PVAS_T_A2A, /* all-to-all among n parties, footprint */
    PVAS_T_NC   /* ping-pong of strided (vector) messages */
};

/*
 * One size over the repetitions (us, one way).  A repetition's time is its
 * typical round trip: the median over its timed blocks (at most
 * PVAS_BLOCKS of them, pvas_block_len), so that a party preempted by
 * another program (a time slice: milliseconds) costs one block, not the
 * repetition.  `mean` is what IMB reports (the repetition's time over its
 * round trips, preemptions included), for comparison.
 */
typedef struct {
    double med, min, max; /* over the repetitions' typical round trips */
    long iters;           /* round trips per repetition */
    double mean;          /* median over the repetitions of their means */
    double csw; /* context switches of both parties per repetition, median */
    int quiet;  /* repetitions in which neither party was switched out */
    int nrep;   /* repetitions (quiet is out of these) */
} pvas_stat_t;

/* A strided layout: count blocks of blocklen bytes, stride bytes apart. */
typedef struct {
    unsigned char *base;
    size_t count, blocklen, stride;
} pvas_vec_t;

typedef struct {
    volatile int count;
    volatile int sense;
    int n;
} pvas_bar_t;

/*
 * The control segment: a POSIX shm object the driver creates; processes
 * map it by name, a PiP root maps it and hands its address to its tasks.
 * The data area of the shm methods follows at ctl->data_off.
 */
typedef struct {
    /* Set by the driver before anyone starts. */
    uint32_t magic;
    int method, test, n;
    int ncpu;       /* cores the parties may use (affinity mask) */
    int spin;       /* pause iterations before yielding (0 on one core) */
    int reps;       /* timed repetitions per size */
    int max_iters;  /* round trips per repetition, at most */
    int nsizes;     /* sizes of the sweep */
    int fresh;      /* sender stores to its message before each send */
    int prefetch;   /* receivers prefetch a message before copying it */
    int flags_only; /* ping-pongs move no data: the notification's cost */
    size_t size[PVAS_MAXSIZES];
    size_t block;   /* a2a block; nc block length */
    double timeout; /* seconds any wait may take */
    size_t data_off, data_len;
    /* Synchronisation. */
    __attribute__((aligned(PVAS_LINE))) volatile int go; /* 1 run, -1 quit */
    __attribute__((aligned(PVAS_LINE))) volatile uint32_t flag0;
    __attribute__((aligned(PVAS_LINE))) volatile uint32_t flag1;
    __attribute__((aligned(PVAS_LINE))) pvas_bar_t bar;
    __attribute__((aligned(PVAS_LINE))) volatile int done; /* parties done */
    volatile int release;    /* driver/root -> parties: measured, exit now */
    volatile int more;       /* rank 0 -> rank 1: one more warm-up round */
    volatile long cur_iters; /* rank 0 -> rank 1: round trips per repetition */
    volatile long peer_csw; /* rank 1 -> rank 0: its switches in a repetition */
    volatile int fail;
    char failmsg[PVAS_MSG_MAX];
    /* What the parties publish for the CMA method. */
    pid_t pid[2];
    void *sendbuf[2];
    pvas_vec_t src[2];
    /* Results (rank 0 writes them). */
    pvas_stat_t res[PVAS_MAXSIZES];
    double a2a_med, a2a_min, a2a_max; /* us per all-to-all */
    long rss_kib, pss_kib, pte_kib;   /* footprint (a2a) */
    int checked;                      /* parties that verified their data */
} pvas_ctl_t;

static inline double pvas_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void pvas_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* Shared (not private) futex ops: the word may be in a shm mapping. */
static inline void pvas_futex_wait(volatile int *w, int val, long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    syscall(SYS_futex, w, FUTEX_WAIT, val, &ts, NULL, 0);
}

static inline void pvas_futex_wake(volatile int *w)
{
    syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline void pvas_set_fail(pvas_ctl_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Record the first failure; every wait loop then gives up. */
static inline void pvas_set_fail(pvas_ctl_t *c, const char *fmt, ...)
{
    int zero = 0;
    if (__atomic_compare_exchange_n(&c->fail, &zero, -1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->failmsg, sizeof(c->failmsg), fmt, ap);
        va_end(ap);
        __atomic_store_n(&c->fail, 1, __ATOMIC_RELEASE);
    }
    pvas_futex_wake(&c->bar.sense);
    pvas_futex_wake(&c->go);
    pvas_futex_wake(&c->release);
}

/*
 * Wait until *f == v: spin with pause (cheap while the peer runs on its own
 * core), then yield (the peer may need our core).  0, or -1 on failure of
 * a party or timeout.
 */
static inline int pvas_wait_flag(pvas_ctl_t *c, volatile uint32_t *f,
                                 uint32_t v, double deadline)
{
    int spin = c->spin;
    for (int i = 0; i < spin; i++) {
        if (__atomic_load_n(f, __ATOMIC_ACQUIRE) == v)
            return 0;
        pvas_pause();
    }
    for (unsigned k = 0;; k++) {
        if (__atomic_load_n(f, __ATOMIC_ACQUIRE) == v)
            return 0;
        if ((k & 255) == 0) {
            if (__atomic_load_n(&c->fail, __ATOMIC_ACQUIRE) != 0)
                return -1;
            if (pvas_now() > deadline) {
                pvas_set_fail(c, "timed out waiting for the peer");
                return -1;
            }
        }
        sched_yield();
    }
}

/* Wait until *w != 0 (go, release): futex with a bounded wait. */
static inline int pvas_wait_nonzero(pvas_ctl_t *c, volatile int *w,
                                    double deadline)
{
    int v;
    while ((v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) == 0) {
        if (__atomic_load_n(&c->fail, __ATOMIC_ACQUIRE) != 0)
            return -1;
        if (pvas_now() > deadline) {
            pvas_set_fail(c, "timed out waiting to start or end");
            return -1;
        }
        pvas_futex_wait(w, 0, 50000000L);
    }
    return v;
}

static inline void pvas_bar_init(pvas_bar_t *b, int n)
{
    b->n = n;
    b->count = n;
    b->sense = 0;
}

/* Sense-reversing barrier: spin briefly, then block on a shared futex. */
static inline int pvas_bar_wait(pvas_ctl_t *c, double deadline)
{
    pvas_bar_t *b = &c->bar;
    int sense = __atomic_load_n(&b->sense, __ATOMIC_ACQUIRE);
    if (__atomic_sub_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == 0) {
        __atomic_store_n(&b->count, b->n, __ATOMIC_RELAXED);
        __atomic_store_n(&b->sense, !sense, __ATOMIC_RELEASE);
        pvas_futex_wake(&b->sense);
        return 0;
    }
    for (int i = 0; i < c->spin; i++) {
        if (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) != sense)
            return 0;
        pvas_pause();
    }
    while (__atomic_load_n(&b->sense, __ATOMIC_ACQUIRE) == sense) {
        if (__atomic_load_n(&c->fail, __ATOMIC_ACQUIRE) != 0)
            return -1;
        if (pvas_now() > deadline) {
            pvas_set_fail(c, "timed out in a barrier");
            return -1;
        }
        pvas_futex_wait(&b->sense, sense, 20000000L);
    }
    return 0;
}

/* Round trips per repetition for a message of `size` bytes. */
static inline long pvas_iters(size_t size, int max_iters)
{
    long it = (long)(PVAS_BYTES_REP / (size > 0 ? size : 1));
    if (it < 4)
        it = 4;
    if (it > max_iters)
        it = max_iters;
    return it;
}

/*
 * Round trips per timed block of a repetition of `iters` round trips: at
 * most PVAS_BLOCKS blocks.  Small messages have the most round trips
 * (--max-iters, 2000 by default: 32 a block, so the clock read costs well
 * under a nanosecond a message); large ones few (16 MiB one way at most:
 * 16 at 1 MiB), timed one by one, so that a preemption costs one of them.
 */
static inline long pvas_block_len(long iters)
{
    long k = (iters + PVAS_BLOCKS - 1) / PVAS_BLOCKS;
    return k > 0 ? k : 1;
}

/* Context switches of the calling thread so far: preempted, yielded the
 * core (sched_yield that switched) or blocked. */
static inline long pvas_csw(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

static inline int pvas_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v; 0 if n is 0). */
static inline double pvas_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof(double), pvas_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median/min/max of v[0..n) (sorts v); the other fields zero. */
static inline pvas_stat_t pvas_stat(double *v, int n, long iters)
{
    pvas_stat_t s = {0};
    qsort(v, (size_t)n, sizeof(double), pvas_cmp_double);
    s.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.min = v[0];
    s.max = v[n - 1];
    s.iters = iters;
    return s;
}

/* Byte k of rank r's message pattern. */
static inline unsigned char pvas_pat(size_t k, int r)
{
    return (unsigned char)(k * 131u + (unsigned)r * 17u + 3u);
}

/* Bytes a layout spans from its base. */
static inline size_t pvas_vec_span(const pvas_vec_t *v)
{
    return v->count == 0 ? 0 : (v->count - 1) * v->stride + v->blocklen;
}

/* The layouts of the strided case: `total` bytes in blocks of `block`,
 * the sender's blocks 2 blocks apart, the receiver's 3 apart. */
static inline pvas_vec_t pvas_vec_src(unsigned char *base, size_t total,
                                      size_t block)
{
    pvas_vec_t v = {base, total / block, block, 2 * block};
    return v;
}

static inline pvas_vec_t pvas_vec_dst(unsigned char *base, size_t total,
                                      size_t block)
{
    pvas_vec_t v = {base, total / block, block, 3 * block};
    return v;
}

/* One copy from layout s into layout d (same total bytes, any blocking). */
static inline void pvas_vec_copy(const pvas_vec_t *d, const pvas_vec_t *s)
{
    size_t di = 0, doff = 0, si = 0, soff = 0;
    while (di < d->count && si < s->count) {
        size_t dl = d->blocklen - doff, sl = s->blocklen - soff;
        size_t n = dl < sl ? dl : sl;
        memcpy(d->base + di * d->stride + doff, s->base + si * s->stride + soff,
               n);
        doff += n;
        soff += n;
        if (doff == d->blocklen) {
            di++;
            doff = 0;
        }
        if (soff == s->blocklen) {
            si++;
            soff = 0;
        }
    }
}

/*
 * A receiver's copy of a message another core has just written (the
 * sender's buffer for pip, the shm slot for shm-2copy).  Up to
 * PVAS_PREFETCH_MAX bytes, it first asks for every line of the source, so
 * that all the transfers from the other core's cache are in flight at
 * once; memcpy alone requests them a few at a time (between its stores).
 * Larger messages are left to memcpy and the hardware prefetchers.  Off
 * unless --prefetch: on this machine it did not change the comparison
 * (libpip/bench/RESULTS.md).
 */
static inline void pvas_copy_in(void *d, const void *s, size_t n, int prefetch)
{
    if (prefetch && n > 0 && n <= PVAS_PREFETCH_MAX) {
        const char *c = (const char *)s;
        for (size_t j = 0; j < n; j += PVAS_LINE)
            __builtin_prefetch(c + j, 0, 3);
        __builtin_prefetch(c + n - 1, 0, 3);
    }
    memcpy(d, s, n);
}

/* Pack layout s into contiguous p; unpack contiguous p into layout d. */
static inline void pvas_vec_pack(unsigned char *p, const pvas_vec_t *s)
{
    for (size_t i = 0; i < s->count; i++, p += s->blocklen)
        memcpy(p, s->base + i * s->stride, s->blocklen);
}

static inline void pvas_vec_unpack(const pvas_vec_t *d, const unsigned char *p)
{
    for (size_t i = 0; i < d->count; i++, p += d->blocklen)
        memcpy(d->base + i * d->stride, p, d->blocklen);
}

/* Fill layout v with rank r's pattern (byte k of the packed message). */
static inline void pvas_vec_fill(const pvas_vec_t *v, int r)
{
    size_t k = 0;
    for (size_t i = 0; i < v->count; i++)
        for (size_t j = 0; j < v->blocklen; j++)
            v->base[i * v->stride + j] = pvas_pat(k++, r);
}

/*
 * Store to every cache line of the message in layout v, keeping its
 * contents (--fresh): the sender "produces" the data anew before each send,
 * so no reader keeps a valid cached copy of it between round trips.
 */
static inline void pvas_vec_touch(const pvas_vec_t *v, int r)
{
    volatile unsigned char *b = v->base;
    for (size_t i = 0; i < v->count; i++)
        for (size_t j = 0; j < v->blocklen; j += PVAS_LINE)
            b[i * v->stride + j] = pvas_pat(i * v->blocklen + j, r);
}

/* 0 if layout v holds rank r's pattern. */
static inline int pvas_vec_check(const pvas_vec_t *v, int r)
{
    size_t k = 0;
    for (size_t i = 0; i < v->count; i++)
        for (size_t j = 0; j < v->blocklen; j++)
            if (v->base[i * v->stride + j] != pvas_pat(k++, r))
                return -1;
    return 0;
}

/*
 * Pin the caller to the (idx % ncpu)-th core of its affinity mask; no-op
 * with one core.  Returns the core id or -1.
 */
static inline int pvas_pin(int idx)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return -1;
    int n = CPU_COUNT(&set);
    if (n < 2)
        return -1;
    int want = idx % n;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        if (seen++ == want) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return sched_setaffinity(0, sizeof(one), &one) == 0 ? cpu : -1;
        }
    }
    return -1;
}

/* Sizes from lo to hi, each `factor` times the last; returns how many. */
static inline int pvas_sizes(size_t lo, size_t hi, size_t factor, size_t *out,
                             int max)
{
    int n = 0;
    for (size_t s = lo; s <= hi && n < max; s *= factor) {
        out[n++] = s;
        if (s > SIZE_MAX / factor)
            break;
    }
    return n;
}

static inline int pvas_ncpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    return CPU_COUNT(&set);
}

#endif /* PVAS_BENCH_H */
