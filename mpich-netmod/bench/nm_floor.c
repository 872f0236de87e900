/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_floor.c: what the process form's message path costs at least on this
 * machine, whatever the shim does: the price of the operations a message
 * between processes that share CPUs cannot avoid.  Prints CSV lines
 *   metric,value_us
 * syscall_us      one system call (getppid)
 * wake_handoff_us one hand-over between two processes on one CPU: the
 *                 waker sets a word, wakes the other with a futex and
 *                 sleeps on its own (half a round trip)
 * yield_handoff_us the same with both polling the word and calling
 *                 sched_yield (each process in a session of its own, as
 *                 hydra starts ranks)
 * spin_oneway_us  half a round trip between two processes on two CPUs
 *                 polling the word (what a CPU per process would cost;
 *                 0 when only one CPU may be used)
 * Each value is the median of REPS (default 7) repetitions of N round
 * trips (default 2000).
 *   nm_floor [-r REPS] [-n N]
 * A failed fork, mmap or affinity call prints one line and exits 1.
 */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nm_median.h"

enum { WAKE, YIELD, SPIN };

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int bind_cpu(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s);
}

/* The side `me` (0 or 1) of n round trips on *w in mode m. */
static void side(_Atomic int *w, int me, int n, int m)
{
    for (int i = 0; i < n; i++) {
        int want = 2 * i + me, v;
        while ((v = atomic_load(w)) != want) {
            if (m == WAKE)
                syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);
            else if (m == YIELD)
                sched_yield();
#if defined(__x86_64__) || defined(__i386__)
            else
                __builtin_ia32_pause();
#endif
        }
        atomic_store(w, want + 1);
        if (m == WAKE)
            syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
}

/* Half a round trip in us between two processes on CPUs c0 and c1; -1 on
 * a failure (message printed). */
static double pair(int m, int c0, int c1, int n)
{
    _Atomic int *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED) {
        fprintf(stderr, "nm_floor: mmap: %s\n", strerror(errno));
        return -1;
    }
    atomic_store(w, -1);
    pid_t p = fork();
    if (p < 0) {
        fprintf(stderr, "nm_floor: fork: %s\n", strerror(errno));
        munmap((void *)w, 4096);
        return -1;
    }
    if (p == 0) {
        setsid(); /* a session (autogroup) of its own, as hydra's ranks */
        if (bind_cpu(c1) != 0)
            _exit(1);
        while (atomic_load(w) < 0)
            sched_yield();
        side(w, 1, n, m);
        _exit(0);
    }
    double t = -1;
    if (bind_cpu(c0) != 0) {
        fprintf(stderr, "nm_floor: CPU %d: %s\n", c0, strerror(errno));
        kill(p, SIGKILL);
    } else {
        double t0 = now_us();
        atomic_store(w, 0);
        side(w, 0, n, m);
        t = (now_us() - t0) / (2.0 * n);
    }
    int st;
    waitpid(p, &st, 0);
    if (t >= 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        fprintf(stderr, "nm_floor: the second process failed\n");
        t = -1;
    }
    munmap((void *)w, 4096);
    return t;
}

static int count(const char *s, int lo, int hi)
{
    char *e;
    long v = strtol(s, &e, 10);
    return *s && !*e && v >= lo && v <= hi ? (int)v : -1;
}

int main(int argc, char **argv)
{
    int reps = 7, n = 2000, c;
    while ((c = getopt(argc, argv, "r:n:")) != -1) {
        if (c == 'r' && (reps = count(optarg, 1, 101)) > 0)
            continue;
        if (c == 'n' && (n = count(optarg, 1, 10000000)) > 0)
            continue;
        fprintf(stderr, "usage: nm_floor [-r REPS 1..101] [-n N]\n");
        return 2;
    }
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
        fprintf(stderr, "nm_floor: sched_getaffinity: %s\n", strerror(errno));
        return 1;
    }
    int cpus[2] = {-1, -1}, k = 0;
    for (int i = 0; i < CPU_SETSIZE && k < 2; i++)
        if (CPU_ISSET(i, &mask))
            cpus[k++] = i;
    double *v = malloc(sizeof(double) * (size_t)reps);
    if (!v)
        return 1;
    for (int r = 0; r < reps; r++) {
        double t0 = now_us();
        for (int i = 0; i < n; i++)
            syscall(SYS_getppid);
        v[r] = (now_us() - t0) / n;
    }
    printf("syscall_us,%.3f\n", median(v, reps));
    static const char *const names[] = {"wake_handoff_us", "yield_handoff_us",
                                        "spin_oneway_us"};
    for (int m = WAKE; m <= SPIN; m++) {
        if (m == SPIN && cpus[1] < 0) {
            printf("%s,0\n", names[m]);
            continue;
        }
        for (int r = 0; r < reps; r++) {
            v[r] = m == SPIN ? pair(m, cpus[0], cpus[1], n)
                             : pair(m, cpus[0], cpus[0], n);
            if (v[r] < 0) {
                free(v);
                return 1;
            }
        }
        printf("%s,%.3f\n", names[m], median(v, reps));
    }
    free(v);
    return 0;
}
