/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_bench_oversub.c: oversubscription with uneven work (DESIGN 3.2).
 *
 * N "ranks" (default 4 x the CPUs we may use) run ITERS iterations; in each,
 * rank r computes work(r, i) units (uniform pseudo-random in 0.2..1.8 x the
 * base, the same sequence for every version), then all meet at a barrier.
 * Time to solution (wall clock, median of --reps) and the CPU time it took
 * (summed over all threads/processes; independent of how much of the CPUs
 * other load leaves us on a shared machine, where the kernel gives N
 * kernel threads N shares but ULPs on 2 schedulers only 2) for:
 *
 *   ulp-steal    N ULPs on one scheduler per CPU, ulp_barrier_t, idle
 *                schedulers steal ready ULPs (ulp_sched_steal)
 *   ulp-static   the same without stealing (ranks stay where created)
 *   proc-futex   N processes, a barrier that blocks on a shared futex
 *   proc-yield   N processes, a barrier that polls with sched_yield() (what
 *                an MPI rank waiting in MPI_Barrier does when oversubscribed)
 *   pthread      N kernel threads, pthread_barrier_t
 *
 * The versions take turns rep by rep, so that a change of the load on a
 * shared machine touches them alike.  The header names the ULP switch path
 * (libulp's default: wrfsbase, or the copy method without FSGSBASE) and the
 * load average before and after.
 *
 * Usage: ulp_bench_oversub [--ranks N] [--iters I] [--work US] [--reps R]
 *                          [--csv FILE]
 */
#include <ulp.h>

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int nranks, iters = 1000, ncpu, cpus[CPU_SETSIZE];

/* The first three fields of /proc/loadavg. */
static void read_loadavg(char *b, size_t n)
{
    FILE *f = fopen("/proc/loadavg", "r");
    if (f == NULL)
        return;
    double a, c, d;
    if (fscanf(f, "%lf %lf %lf", &a, &c, &d) == 3)
        snprintf(b, n, "%.1f %.1f %.1f", a, c, d);
    fclose(f);
}
static long base_units; /* compute units of one average work item */
static volatile unsigned long sink;

static double cpu_self_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double cpu_children_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
}

/* CPU time of the last run. */
static double last_cpu;

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void compute(long units)
{
    unsigned long x = 12345;
    for (long i = 0; i < units; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink += x;
}

/* The same uneven work for every version: 0.2 .. 1.8 x base. */
static long work_units(int rank, int iter)
{
    unsigned x = (unsigned)rank * 2654435761u ^ (unsigned)iter * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    double f = 0.2 + 1.6 * (double)(x % 1000) / 999.0;
    return (long)(f * (double)base_units);
}

/* --- ULPs --------------------------------------------------------------------
 */

static ulp_barrier_t ub;

static int ulp_rank(void *arg)
{
    int r = (int)(intptr_t)arg;
    for (int i = 0; i < iters; i++) {
        compute(work_units(r, i));
        ulp_barrier_wait(&ub);
    }
    return 0;
}

static int run_ulp(int steal, double *t)
{
    ulp_sched_t *s[CPU_SETSIZE];
    ulp_t **u = calloc((size_t)nranks, sizeof(*u));
    int rc;
    if ((rc = ulp_init()) != 0)
        return rc;
    ulp_barrier_init(&ub, nranks);
    for (int c = 0; c < ncpu; c++)
        if ((rc = ulp_sched_create(&s[c], cpus[c])) != 0 ||
            (rc = ulp_sched_steal(s[c], steal)) != 0)
            return rc;
    double t0 = now_ns(), c0 = cpu_self_ns();
    for (int r = 0; r < nranks; r++)
        if ((rc = ulp_create(&u[r], s[r % ncpu], ulp_rank,
                             (void *)(intptr_t)r)) != 0)
            return rc;
    for (int r = 0; r < nranks; r++)
        ulp_join(u[r], NULL);
    *t = now_ns() - t0;
    last_cpu = cpu_self_ns() - c0;
    for (int c = 0; c < ncpu; c++)
        ulp_sched_destroy(s[c]);
    ulp_fin();
    free(u);
    return 0;
}

/* --- processes
 * ----------------------------------------------------------------- */

struct pbar {
    volatile int count;
    volatile int gen;
};

static void pbar_wait(struct pbar *b, int n, int yield_poll)
{
    int g = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == n) {
        b->count = 0;
        __atomic_add_fetch(&b->gen, 1, __ATOMIC_RELEASE);
        if (!yield_poll)
            syscall(SYS_futex, &b->gen, FUTEX_WAKE, n, NULL, NULL, 0);
        return;
    }
    while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == g) {
        if (yield_poll)
            sched_yield();
        else
            syscall(SYS_futex, &b->gen, FUTEX_WAIT, g, NULL, NULL, 0);
    }
}

static int run_proc(int yield_poll, double *t)
{
    struct pbar *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t *pids = calloc((size_t)nranks, sizeof(*pids));
    if (b == MAP_FAILED || pids == NULL)
        return -ENOMEM;
    memset(b, 0, sizeof(*b));
    double t0 = now_ns(), c0 = cpu_children_ns();
    for (int r = 0; r < nranks; r++) {
        pids[r] = fork();
        if (pids[r] < 0)
            return -EAGAIN;
        if (pids[r] == 0) {
            for (int i = 0; i < iters; i++) {
                compute(work_units(r, i));
                pbar_wait(b, nranks, yield_poll);
            }
            _exit(0);
        }
    }
    for (int r = 0; r < nranks; r++)
        waitpid(pids[r], NULL, 0);
    *t = now_ns() - t0;
    last_cpu = cpu_children_ns() - c0;
    munmap(b, 4096);
    free(pids);
    return 0;
}

/* --- pthreads
 * -------------------------------------------------------------------- */

static pthread_barrier_t pb;

static void *pt_rank(void *arg)
{
    int r = (int)(intptr_t)arg;
    for (int i = 0; i < iters; i++) {
        compute(work_units(r, i));
        pthread_barrier_wait(&pb);
    }
    return NULL;
}

static int run_pthread(double *t)
{
    pthread_t *th = calloc((size_t)nranks, sizeof(*th));
    pthread_barrier_init(&pb, NULL, (unsigned)nranks);
    double t0 = now_ns(), c0 = cpu_self_ns();
    for (int r = 0; r < nranks; r++)
        if (pthread_create(&th[r], NULL, pt_rank, (void *)(intptr_t)r) != 0)
            return -EAGAIN;
    for (int r = 0; r < nranks; r++)
        pthread_join(th[r], NULL);
    *t = now_ns() - t0;
    last_cpu = cpu_self_ns() - c0;
    pthread_barrier_destroy(&pb);
    free(th);
    return 0;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int reps = 5;
    double work_us = 20;
    const char *csv = NULL;
    cpu_set_t set;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            cpus[ncpu++] = c;
    nranks = 4 * ncpu;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc)
            nranks = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
            work_us = atof(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else {
            fprintf(stderr, "usage: ulp_bench_oversub [--ranks N] [--iters I] "
                            "[--work US] [--reps R] [--csv FILE]\n");
            return 2;
        }
    }
    if (nranks < 1 || iters < 1 || reps < 1 || reps > 51 || work_us <= 0) {
        fprintf(stderr, "ulp_bench_oversub: bad argument\n");
        return 2;
    }
    /* Calibrate: units per microsecond on this CPU (best of a few). */
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
        double t0 = now_ns();
        compute(1000000);
        double dt = now_ns() - t0;
        if (dt < best)
            best = dt;
    }
    base_units = (long)(work_us * 1000.0 * 1e6 / best);

#define NV 5
    static const char *const names[NV] = {
        "ulp-steal", "ulp-static", "proc-futex", "proc-yield", "pthread"};
    double med[NV], cmed[NV];
    double *v = calloc((size_t)reps * NV, sizeof(double));
    double *cv = calloc((size_t)reps * NV, sizeof(double));
    char load0[64] = "?", load1[64] = "?";
    read_loadavg(load0, sizeof(load0));
    int path = 0;
    if (ulp_init() == 0) {
        path = ulp_fsbase_method();
        (void)ulp_fin();
    }
    fprintf(stderr,
            "ulp_bench_oversub: %d ranks on %d CPU(s), %d iterations, "
            "work 0.2..1.8 x %.0f us per rank and iteration, %d reps\n",
            nranks, ncpu, iters, work_us, reps);
    for (int r = 0; r < reps; r++) {
        for (int m = 0; m < NV; m++) {
            double *vm = &v[m * reps], *cvm = &cv[m * reps];
            int rc = m <= 1   ? run_ulp(m == 0, &vm[r])
                     : m == 4 ? run_pthread(&vm[r])
                              : run_proc(m == 3, &vm[r]);
            if (rc != 0) {
                fprintf(stderr, "%s failed: %s\n", names[m], ulp_strerror(rc));
                return 1;
            }
            cvm[r] = last_cpu;
            fprintf(stderr, "  %-10s rep %d: %.1f ms (CPU %.1f ms)\n", names[m],
                    r + 1, vm[r] / 1e6, cvm[r] / 1e6);
        }
    }
    for (int m = 0; m < NV; m++) {
        double *vm = &v[m * reps], *cvm = &cv[m * reps];
        qsort(vm, (size_t)reps, sizeof(double), cmp_d);
        qsort(cvm, (size_t)reps, sizeof(double), cmp_d);
        med[m] = vm[reps / 2];
        cmed[m] = cvm[reps / 2];
    }
    read_loadavg(load1, sizeof(load1));
    double ideal = 0;
    for (int i = 0; i < iters; i++) {
        double tot = 0;
        for (int r = 0; r < nranks; r++)
            tot += (double)work_units(r, i);
        ideal += tot / ncpu;
    }
    ideal = ideal / (double)base_units * work_us * 1000.0;
    printf("Oversubscription: %d ranks on %d CPU(s), %d iterations with a "
           "barrier, uneven work (median of %d, wall clock)\n",
           nranks, ncpu, iters, reps);
    printf("ULP switch path: %s; load average before %s, after %s\n",
           path == ULP_FSBASE_WRFSBASE  ? "wrfsbase (FSGSBASE)"
           : path == ULP_FSBASE_COPY    ? "copy (no FSGSBASE)"
           : path == ULP_FSBASE_SYSCALL ? "arch_prctl"
                                        : "?",
           load0, load1);
    printf("%-12s %12s %12s %12s %12s\n", "version", "time [ms]", "x ulp-steal",
           "CPU [ms]", "x ulp-steal");
    for (int m = 0; m < NV; m++)
        printf("%-12s %12.1f %12.2f %12.1f %12.2f\n", names[m], med[m] / 1e6,
               med[m] / med[0], cmed[m] / 1e6, cmed[m] / cmed[0]);
    printf("%-12s %12.1f %12.2f %12.1f %12.2f  (work only, perfectly "
           "balanced)\n",
           "ideal", ideal / 1e6, ideal / med[0], ideal * ncpu / 1e6,
           ideal * ncpu / cmed[0]);
    if (csv != NULL) {
        FILE *f = fopen(csv, "w");
        if (f == NULL) {
            perror(csv);
            return 1;
        }
        fprintf(f,
                "version,ranks,cpus,iters,work_us,median_ms,ratio_to_ulp_steal,"
                "median_cpu_ms,cpu_ratio_to_ulp_steal\n");
        for (int m = 0; m < NV; m++)
            fprintf(f, "%s,%d,%d,%d,%.0f,%.3f,%.3f,%.3f,%.3f\n", names[m],
                    nranks, ncpu, iters, work_us, med[m] / 1e6, med[m] / med[0],
                    cmed[m] / 1e6, cmed[m] / cmed[0]);
        fclose(f);
        fprintf(stderr, "ulp_bench_oversub: CSV written to %s\n", csv);
    }
    free(v);
    free(cv);
    return 0;
}
