/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_bench_switch.c: context-switch time against the number of contexts
 * (the analogue of Fig. 4.5 of the PVAS paper), all on one CPU:
 *
 *   ulp-wrfsbase   ULPs of one scheduler passing control by ulp_yield(),
 *                  thread pointer switched with wrfsbase
 *   ulp-arch_prctl the same with arch_prctl(ARCH_SET_FS)
 *   ulp-copy       the same with the copy method (thread pointer kept, the
 *                  ULP's static TLS copied; libulp's default without
 *                  FSGSBASE)
 *   swapcontext    glibc ucontexts in a ring (no TLS switch)
 *   pthread-futex  kernel threads passing a token through futexes
 *   pthread-cond   kernel threads passing a token through condvars
 *   proc-pipe      processes passing a byte through a ring of pipes
 *   proc-futex     processes passing a token through shared futexes
 *
 * plus the round trip ulp_couple() + ulp_decouple(), and with --task PROG
 * (ulp_bench_task) the switch between PiP tasks run as ULPs (2..8 of them:
 * stock glibc has few namespaces), each with its own program, libc and
 * thread block.  Each point is the
 * median of --reps runs.  Time is CPU time (the sum over all participants,
 * which share one CPU), so that other load on a shared machine does not
 * count; the wall-clock time of the ULP runs is shown too.  The header
 * names the machine facts the ULP columns depend on (FSGSBASE, the cost of
 * one arch_prctl(ARCH_SET_FS)) and the path libulp picks by default; the
 * ratios are against that default path.
 *
 * Usage: ulp_bench_switch [--reps R] [--max N] [--csv FILE] [--plot FILE]
 *                         [--task PROG] [--quick]
 */
#include <ulp.h>

#include "ulp_bench_task.h"

#include <asm/prctl.h>
#include <errno.h>
#include <link.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

enum {
    M_ULP_INSN,
    M_ULP_SYSCALL,
    M_ULP_COPY,
    M_SWAPCONTEXT,
    M_PTHREAD_FUTEX,
    M_PTHREAD_COND,
    M_PROC_PIPE,
    M_PROC_FUTEX,
    M_COUNT
};
static const char *const method_name[M_COUNT] = {
    "ulp-wrfsbase",  "ulp-arch_prctl", "ulp-copy",  "swapcontext",
    "pthread-futex", "pthread-cond",   "proc-pipe", "proc-futex"};
static const char *const method_env[3] = {"wrfsbase", "syscall", "copy"};

static int bench_cpu;
static long ulp_total = 400000, kern_total = 20000;

static double ts_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static long futex(volatile int *w, int op, int val)
{
    return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static long iters_for(long total, int n)
{
    long it = total / n;
    return it < 4 ? 4 : it;
}

/* --- ULPs --------------------------------------------------------------------
 */

static volatile int u_arrived, u_go, u_finished;
static int u_n;
static long u_iters;
static double u_t0, u_t1, u_w0, u_w1;

static int u_fn(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&u_arrived, 1, __ATOMIC_SEQ_CST);
    while (!u_go)
        ulp_yield();
    if (u_t0 == 0) {
        u_t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID); /* the scheduler's thread */
        u_w0 = ts_ns(CLOCK_MONOTONIC);
    }
    for (long i = 0; i < u_iters; i++)
        ulp_yield();
    if (++u_finished == u_n) {
        u_t1 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
        u_w1 = ts_ns(CLOCK_MONOTONIC);
    }
    return 0;
}

static int bench_ulp(int n, int method, double *ns, double *wall)
{
    ulp_sched_t *s;
    ulp_t **u = calloc((size_t)n, sizeof(*u));
    int rc, syscall_path = method == M_ULP_SYSCALL;
    setenv("ULP_FSBASE", method_env[method], 1);
    if ((rc = ulp_init()) != 0)
        return rc;
    if ((rc = ulp_sched_create(&s, bench_cpu)) != 0)
        return rc;
    u_arrived = u_go = u_finished = 0;
    u_n = n;
    u_iters = iters_for(syscall_path ? ulp_total / 8 : ulp_total, n);
    u_t0 = u_t1 = 0;
    for (int i = 0; i < n; i++)
        if ((rc = ulp_create(&u[i], s, u_fn, NULL)) != 0)
            return rc;
    while (u_arrived < n)
        sched_yield();
    u_go = 1;
    for (int i = 0; i < n; i++)
        (void)ulp_join(u[i], NULL);
    (void)ulp_sched_destroy(s);
    (void)ulp_fin();
    free(u);
    *ns = (u_t1 - u_t0) / ((double)n * (double)u_iters);
    *wall = (u_w1 - u_w0) / ((double)n * (double)u_iters);
    return 0;
}

static long cd_iters;
static double cd_t0, cd_t1;

static int cd_fn(void *arg)
{
    (void)arg;
    cd_t0 = ts_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < cd_iters; i++) {
        ulp_couple();
        ulp_decouple(NULL);
    }
    cd_t1 = ts_ns(CLOCK_PROCESS_CPUTIME_ID);
    return 0;
}

static int bench_couple(double *ns)
{
    ulp_sched_t *s;
    ulp_t *u;
    int rc;
    unsetenv("ULP_FSBASE");
    if ((rc = ulp_init()) != 0 || (rc = ulp_sched_create(&s, bench_cpu)) != 0)
        return rc;
    cd_iters = kern_total / 2;
    if ((rc = ulp_create(&u, s, cd_fn, NULL)) != 0)
        return rc;
    (void)ulp_join(u, NULL);
    (void)ulp_sched_destroy(s);
    (void)ulp_fin();
    *ns = (cd_t1 - cd_t0) / (double)cd_iters;
    return 0;
}

/* --- PiP tasks as ULPs ------------------------------------------------ */

#define BENCH_TLS_RESERVE 4096
PIP_ROOT_TLS_RESERVE(BENCH_TLS_RESERVE);

/* n tasks (libpip does not reuse namespaces: spawned once per n) run
 * `reps` timed rounds; ns[r] per round. */
static int bench_task(const char *prog, int n, int reps, double *ns)
{
    static struct ulp_bench_shared sh;
    ulp_sched_t *s;
    ulp_t *u[8];
    char addr[32], it[32];
    int rc;
    unsetenv("ULP_FSBASE");
    if ((rc = ulp_init()) != 0 || (rc = ulp_sched_create(&s, bench_cpu)) != 0)
        return rc;
    memset(&sh, 0, sizeof(sh));
    sh.n = n;
    sh.rounds = reps;
    (void)ulp_barrier_init(&sh.bar, n);
    long iters = iters_for(ulp_total, n);
    snprintf(addr, sizeof(addr), "%lx", (unsigned long)(uintptr_t)&sh);
    snprintf(it, sizeof(it), "%ld", iters);
    for (int i = 0; i < n; i++) {
        char *av[] = {(char *)prog, addr, it, NULL};
        pip_spawn_program_t p;
        pip_spawn_from_main(&p, (char *)prog, av, NULL, NULL, NULL);
        if ((rc = ulp_spawn(&u[i], s, &p, NULL)) != 0)
            return rc;
    }
    for (int i = 0; i < n; i++) {
        int st = 0;
        if ((rc = ulp_join(u[i], &st)) != 0 || st != 0)
            return rc != 0 ? rc : -EIO;
    }
    (void)ulp_sched_destroy(s);
    (void)ulp_fin();
    for (int r = 0; r < reps; r++)
        ns[r] = (sh.t1[r] - sh.t0[r]) / ((double)n * (double)iters);
    return 0;
}

/* --- swapcontext
 * --------------------------------------------------------------- */

static ucontext_t sc_main, *sc_ctx;
static int sc_n;
static long sc_iters;

static void sc_fn(int i)
{
    ucontext_t *me = &sc_ctx[i], *next = &sc_ctx[(i + 1) % sc_n];
    for (long k = 0; k < sc_iters; k++)
        swapcontext(me, next);
}

static int bench_swapcontext(int n, double *ns)
{
    size_t ss = 64 * 1024;
    char *stacks = malloc((size_t)n * ss);
    sc_ctx = calloc((size_t)n, sizeof(*sc_ctx));
    if (stacks == NULL || sc_ctx == NULL)
        return -ENOMEM;
    sc_n = n;
    sc_iters = iters_for(kern_total * 4, n);
    for (int i = 0; i < n; i++) {
        getcontext(&sc_ctx[i]);
        sc_ctx[i].uc_stack.ss_sp = stacks + (size_t)i * ss;
        sc_ctx[i].uc_stack.ss_size = ss;
        sc_ctx[i].uc_link = &sc_main;
        makecontext(&sc_ctx[i], (void (*)(void))sc_fn, 1, i);
    }
    double t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
    swapcontext(&sc_main, &sc_ctx[0]);
    double t1 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
    *ns = (t1 - t0) / ((double)n * (double)sc_iters + 1);
    free(stacks);
    free(sc_ctx);
    return 0;
}

/* --- pthreads
 * ------------------------------------------------------------------ */

struct pt_slot {
    volatile int flag;
    pthread_mutex_t m;
    pthread_cond_t c;
    double cpu;
    char pad[64];
};
static struct pt_slot *pt_slots;
static int pt_n, pt_cond;
static long pt_iters;
static pthread_barrier_t pt_bar;

static void *pt_fn(void *arg)
{
    int i = (int)(intptr_t)arg;
    struct pt_slot *me = &pt_slots[i], *nx = &pt_slots[(i + 1) % pt_n];
    pthread_barrier_wait(&pt_bar);
    double t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long k = 0; k < pt_iters; k++) {
        if (pt_cond) {
            pthread_mutex_lock(&me->m);
            while (!me->flag)
                pthread_cond_wait(&me->c, &me->m);
            me->flag = 0;
            pthread_mutex_unlock(&me->m);
            pthread_mutex_lock(&nx->m);
            nx->flag = 1;
            pthread_cond_signal(&nx->c);
            pthread_mutex_unlock(&nx->m);
        } else {
            while (__atomic_load_n(&me->flag, __ATOMIC_ACQUIRE) == 0)
                futex(&me->flag, FUTEX_WAIT_PRIVATE, 0);
            me->flag = 0;
            __atomic_store_n(&nx->flag, 1, __ATOMIC_RELEASE);
            futex(&nx->flag, FUTEX_WAKE_PRIVATE, 1);
        }
    }
    me->cpu = ts_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    return NULL;
}

static int bench_pthread(int n, int cond, double *ns)
{
    pthread_t *th = calloc((size_t)n, sizeof(*th));
    pthread_attr_t attr;
    pt_slots = calloc((size_t)n, sizeof(*pt_slots));
    if (th == NULL || pt_slots == NULL)
        return -ENOMEM;
    pt_n = n;
    pt_cond = cond;
    pt_iters = iters_for(kern_total, n);
    for (int i = 0; i < n; i++) {
        pthread_mutex_init(&pt_slots[i].m, NULL);
        pthread_cond_init(&pt_slots[i].c, NULL);
    }
    pt_slots[0].flag = 1;
    pthread_barrier_init(&pt_bar, NULL, (unsigned)n);
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], &attr, pt_fn, (void *)(intptr_t)i) != 0)
            return -EAGAIN;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        sum += pt_slots[i].cpu;
    }
    pthread_attr_destroy(&attr);
    pthread_barrier_destroy(&pt_bar);
    *ns = sum / ((double)n * (double)pt_iters);
    free(th);
    free(pt_slots);
    return 0;
}

/* --- processes
 * ----------------------------------------------------------------- */

static int bench_proc(int n, int use_pipe, double *ns)
{
    long iters = iters_for(kern_total, n);
    size_t sz = (size_t)n * 64 + 64;
    char *shm = mmap(NULL, sz, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    int(*fds)[2] = calloc((size_t)n, sizeof(*fds));
    pid_t *pids = calloc((size_t)n, sizeof(*pids));
    if (shm == MAP_FAILED || fds == NULL || pids == NULL)
        return -ENOMEM;
    memset(shm, 0, sz);
    volatile int *start = (volatile int *)shm;
#define FLAG(i) ((volatile int *)(shm + 64 + (size_t)(i)*64))
#define CPU(i)  ((double *)(shm + 64 + (size_t)(i)*64 + 8))
    if (use_pipe)
        for (int i = 0; i < n; i++)
            if (pipe(fds[i]) != 0)
                return -EMFILE;
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] < 0)
            return -EAGAIN;
        if (pids[i] == 0) {
            int nx = (i + 1) % n;
            char c = 0;
            while (__atomic_load_n(start, __ATOMIC_ACQUIRE) == 0)
                futex(start, FUTEX_WAIT, 0);
            double t0 = ts_ns(CLOCK_PROCESS_CPUTIME_ID);
            for (long k = 0; k < iters; k++) {
                if (use_pipe) {
                    if (read(fds[i][0], &c, 1) != 1 ||
                        write(fds[nx][1], &c, 1) != 1)
                        _exit(1);
                } else {
                    while (__atomic_load_n(FLAG(i), __ATOMIC_ACQUIRE) == 0)
                        futex(FLAG(i), FUTEX_WAIT, 0);
                    *FLAG(i) = 0;
                    __atomic_store_n(FLAG(nx), 1, __ATOMIC_RELEASE);
                    futex(FLAG(nx), FUTEX_WAKE, 1);
                }
            }
            *CPU(i) = ts_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
            _exit(0);
        }
    }
    if (use_pipe) {
        char c = 'x';
        if (write(fds[0][1], &c, 1) != 1)
            return -EIO;
    } else {
        *FLAG(0) = 1;
    }
    __atomic_store_n(start, 1, __ATOMIC_RELEASE);
    futex(start, FUTEX_WAKE, n);
    double sum = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
        sum += *CPU(i);
    }
    if (use_pipe)
        for (int i = 0; i < n; i++) {
            close(fds[i][0]);
            close(fds[i][1]);
        }
    munmap(shm, sz);
    free(fds);
    free(pids);
    if (bad)
        return -EIO;
    *ns = sum / ((double)n * (double)iters);
    return 0;
#undef FLAG
#undef CPU
}

/* --- driver
 * -------------------------------------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int run_one(int m, int n, double *ns, double *wall)
{
    *wall = 0;
    switch (m) {
    case M_ULP_INSN:
    case M_ULP_SYSCALL:
    case M_ULP_COPY:
        return bench_ulp(n, m, ns, wall);
    case M_SWAPCONTEXT:
        return bench_swapcontext(n, ns);
    case M_PTHREAD_FUTEX:
        return bench_pthread(n, 0, ns);
    case M_PTHREAD_COND:
        return bench_pthread(n, 1, ns);
    case M_PROC_PIPE:
        return bench_proc(n, 1, ns);
    default:
        return bench_proc(n, 0, ns);
    }
}

/* CPU time of one system call, median of 5 runs of `n`. */
static double syscall_ns(int which, long n)
{
    double v[5];
    unsigned long fs = 0;
    if (which == 0)
        (void)syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
    for (int r = 0; r < 5; r++) {
        double t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
        for (long i = 0; i < n; i++) {
            if (which == 0)
                (void)syscall(SYS_arch_prctl, ARCH_SET_FS, fs);
            else
                (void)syscall(SYS_getppid);
        }
        v[r] = (ts_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)n;
    }
    return median(v, 5);
}

/* Static TLS of this program's modules: what ulp-copy saves and loads. */
static int tls_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_TLS)
            *(size_t *)arg += info->dlpi_phdr[i].p_memsz;
    return 0;
}

/* The facts the ULP columns depend on, one line each. */
static void print_machine(int have_insn, int forced, int def_method)
{
    char model[128] = "unknown", line[512];
    int hv = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        while (fgets(line, sizeof(line), f) != NULL) {
            if (strncmp(line, "model name", 10) == 0 && model[0] == 'u') {
                char *c = strchr(line, ':');
                if (c != NULL) {
                    snprintf(model, sizeof(model), "%s", c + 2);
                    model[strcspn(model, "\n")] = '\0';
                }
            }
            if (strncmp(line, "flags", 5) == 0 && strstr(line, " hypervisor"))
                hv = 1;
        }
        fclose(f);
    }
    struct utsname un;
    if (uname(&un) != 0)
        snprintf(un.release, sizeof(un.release), "?");
    printf("machine: %s%s, kernel %s, %ld CPUs online\n", model,
           hv ? " (virtual machine)" : "", un.release,
           sysconf(_SC_NPROCESSORS_ONLN));
    printf("FSGSBASE: %s; one arch_prctl(ARCH_SET_FS) %.1f ns, one getppid() "
           "%.1f ns (CPU time)\n",
           have_insn ? "enabled by the kernel"
           : forced  ? "off (forced by ULP_TEST_NO_FSGSBASE)"
                     : "not enabled by the kernel (AT_HWCAP2)",
           syscall_ns(0, 20000), syscall_ns(1, 20000));
    size_t tls = 0;
    dl_iterate_phdr(tls_cb, &tls);
    printf("static TLS of this root's modules: %zu bytes, of which %d are "
           "its PIP_ROOT_TLS_RESERVE (ulp-copy moves the rest at a switch of "
           "root ULPs; PiP-task ULPs also their own modules')\n",
           tls, BENCH_TLS_RESERVE);
    printf("libulp default path (ULP_FSBASE=auto): %s\n",
           def_method == ULP_FSBASE_WRFSBASE ? "ulp-wrfsbase"
           : def_method == ULP_FSBASE_COPY   ? "ulp-copy"
                                             : "ulp-arch_prctl");
}

static void usage(void)
{
    fprintf(stderr, "usage: ulp_bench_switch [--reps R] [--max N] [--csv FILE] "
                    "[--plot FILE] [--task PROG] [--quick]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int reps = 5, maxn = 1024;
    const char *csv = NULL, *plot = NULL, *task = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            maxn = atoi(argv[++i]);
        else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
            csv = argv[++i];
        else if (strcmp(argv[i], "--plot") == 0 && i + 1 < argc)
            plot = argv[++i];
        else if (strcmp(argv[i], "--task") == 0 && i + 1 < argc)
            task = argv[++i];
        else if (strcmp(argv[i], "--quick") == 0) {
            ulp_total /= 10;
            kern_total /= 10;
            reps = 3;
        } else
            usage();
    }
    if (reps < 1 || reps > 51 || maxn < 2 || maxn > 4096)
        usage();

    /* Everyone on one CPU: the one we started on. */
    cpu_set_t set;
    bench_cpu = sched_getcpu();
    if (bench_cpu < 0)
        bench_cpu = 0;
    CPU_ZERO(&set);
    CPU_SET(bench_cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("sched_setaffinity");
        return 1;
    }
    int have_insn = 1, def_method = 0;
    setenv("ULP_FSBASE", "wrfsbase", 1);
    if (ulp_init() == -ENOTSUP)
        have_insn = 0;
    else
        (void)ulp_fin();
    unsetenv("ULP_FSBASE");
    if (ulp_init() == 0) {
        def_method = ulp_fsbase_method();
        (void)ulp_fin();
    }
    const char *fv = getenv("ULP_TEST_NO_FSGSBASE");
    int forced = fv != NULL && *fv != '\0' && strcmp(fv, "0") != 0 &&
                 (getauxval(AT_HWCAP2) & 2) != 0;

    int npts = 0, ns_list[16];
    for (int n = 2; n <= maxn && npts < 16; n *= 2)
        ns_list[npts++] = n;
    static double res[M_COUNT][16], wall[16];
    double *v = calloc((size_t)reps, sizeof(double));
    double *vw = calloc((size_t)reps, sizeof(double));
    FILE *cf = NULL;
    if (csv != NULL && (cf = fopen(csv, "w")) == NULL) {
        perror(csv);
        return 1;
    }
    if (cf != NULL)
        fprintf(cf, "method,contexts,median_ns,min_ns,max_ns,reps\n");
    fprintf(stderr,
            "ulp_bench_switch: %d point(s) x %d methods x %d reps on "
            "CPU %d\n",
            npts, M_COUNT, reps, bench_cpu);
    int base = def_method == ULP_FSBASE_WRFSBASE ? M_ULP_INSN
               : def_method == ULP_FSBASE_COPY   ? M_ULP_COPY
                                                 : M_ULP_SYSCALL;
    for (int p = 0; p < npts; p++) {
        int n = ns_list[p];
        for (int m = 0; m < M_COUNT; m++) {
            if (m == M_ULP_INSN && !have_insn) {
                res[m][p] = -1;
                continue;
            }
            fprintf(stderr, "  n=%-5d %-15s", n, method_name[m]);
            int rc = 0;
            for (int r = 0; r < reps && rc == 0; r++)
                rc = run_one(m, n, &v[r], &vw[r]);
            if (rc != 0) {
                fprintf(stderr, " failed: %s\n", ulp_strerror(rc));
                res[m][p] = -1;
                continue;
            }
            res[m][p] = median(v, reps);
            if (m == base)
                wall[p] = median(vw, reps);
            fprintf(stderr, " %10.1f ns\n", res[m][p]);
            if (cf != NULL)
                fprintf(cf, "%s,%d,%.2f,%.2f,%.2f,%d\n", method_name[m], n,
                        res[m][p], v[0], v[reps - 1], reps);
        }
    }
    double cd[101];
    int cdrc = 0;
    for (int r = 0; r < reps && cdrc == 0; r++)
        cdrc = bench_couple(&cd[r]);
    double cdm = cdrc == 0 ? median(cd, reps) : -1;
    if (cf != NULL && cdrc == 0)
        fprintf(cf, "couple+decouple,1,%.2f,%.2f,%.2f,%d\n", cdm, cd[0],
                cd[reps - 1], reps);

    /* PiP tasks as ULPs: libpip in thread mode, a few namespaces. */
    double tk[4][101];
    int tkn[4] = {2, 8, 0, 0}, tkpts = 0;
    if (task != NULL) {
        int nt = 8;
        int rc = pip_init(NULL, &nt, NULL, PIP_MODE_PTHREAD);
        if (rc != 0) {
            fprintf(stderr, "ulp_bench_switch: pip_init: %s\n", strerror(rc));
        } else {
            for (; tkn[tkpts] != 0; tkpts++) {
                fprintf(stderr, "  n=%-5d %-15s", tkn[tkpts], "ulp-pip-task");
                rc = bench_task(task, tkn[tkpts], reps, tk[tkpts]);
                if (rc != 0) {
                    fprintf(stderr, " failed: %s\n", ulp_strerror(rc));
                    break;
                }
                tk[tkpts][100] = median(tk[tkpts], reps);
                fprintf(stderr, " %10.1f ns\n", tk[tkpts][100]);
                if (cf != NULL)
                    fprintf(cf, "ulp-pip-task,%d,%.2f,%.2f,%.2f,%d\n",
                            tkn[tkpts], tk[tkpts][100], tk[tkpts][0],
                            tk[tkpts][reps - 1], reps);
            }
        }
    }

    print_machine(have_insn, forced, def_method);
    printf("Context switch time, ns (median of %d, CPU time, all on CPU %d; "
           "ULP paths: %s)\n",
           reps, bench_cpu,
           have_insn ? "wrfsbase, arch_prctl, copy"
                     : "arch_prctl, copy (no wrfsbase: -1)");
    printf("%6s", "n");
    for (int m = 0; m < M_COUNT; m++)
        printf(" %14s", method_name[m]);
    printf(" %9s %9s %9s %9s %9s\n", "ulp-wall", "futex/ulp", "cond/ulp",
           "swapc/ulp", "prctl/ulp");
    for (int p = 0; p < npts; p++) {
        printf("%6d", ns_list[p]);
        for (int m = 0; m < M_COUNT; m++)
            printf(" %14.1f", res[m][p]);
        double b = res[base][p];
        printf(" %9.1f %9.1f %9.1f %9.1f %9.1f\n", wall[p],
               res[M_PTHREAD_FUTEX][p] / b, res[M_PTHREAD_COND][p] / b,
               res[M_SWAPCONTEXT][p] / b, res[M_ULP_SYSCALL][p] / b);
    }
    printf("couple+decouple round trip (%s): %.1f ns (median of %d, CPU "
           "time of both kernel threads)\n",
           method_name[base], cdm, reps);
    for (int k = 0; k < tkpts; k++) {
        int idx = k * 2; /* tkn 2, 8 are ns_list[0], ns_list[2] */
        printf("PiP tasks as ULPs (%s), n=%d: %.1f ns per switch (median "
               "of %d)",
               method_name[base], tkn[k], tk[k][100], reps);
        if (idx < npts && tk[k][100] > 0)
            printf("; pthread-futex/this %.1f, swapcontext/this %.1f",
                   res[M_PTHREAD_FUTEX][idx] / tk[k][100],
                   res[M_SWAPCONTEXT][idx] / tk[k][100]);
        printf("\n");
    }
    printf("(columns x/ulp: that time divided by %s time (the default path), "
           "same n; -1: not available here)\n",
           method_name[base]);
    if (cf != NULL) {
        fclose(cf);
        fprintf(stderr, "ulp_bench_switch: CSV written to %s\n", csv);
    }
    if (plot != NULL && csv != NULL) {
        if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
            fprintf(stderr, "ulp_bench_switch: gnuplot not found (apt-get "
                            "install -y gnuplot-nox); no plot\n");
        } else {
            char cmd[4096];
            snprintf(cmd, sizeof(cmd),
                     "gnuplot -e \"set terminal svg size 900,600; "
                     "set output '%s'; set datafile separator ','; "
                     "set logscale xy; set key outside; "
                     "set xlabel 'number of contexts'; "
                     "set ylabel 'switch time [ns] (median CPU time)'; "
                     "set title 'Context switch time, one CPU'; "
                     "plot for [m in 'ulp-wrfsbase ulp-arch_prctl ulp-copy "
                     "swapcontext "
                     "pthread-futex pthread-cond proc-pipe proc-futex'] '%s' "
                     "using 2:(strcol(1) eq m ? \\$3 : 1/0) with linespoints "
                     "title m\"",
                     plot, csv);
            if (system(cmd) == 0)
                fprintf(stderr, "ulp_bench_switch: plot written to %s\n", plot);
            else
                fprintf(stderr, "ulp_bench_switch: gnuplot failed\n");
        }
    }
    free(v);
    free(vw);
    return 0;
}
