/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_bench_scale.c: cost per task of a libpip root from 1 to 1024 tasks,
 * both modes (thread mode while it has a dlmopen namespace per task): spawn
 * time per task, spawn+reap time per task, and memory per task (resident
 * set, PSS and page tables of the whole root process while all N tasks are
 * alive), with N processes started by posix_spawn and reaped by waitpid (their
 * RSS, PSS and page tables summed) as the baseline measured in the same run.
 *
 * Every measurement runs in a fresh child process (pip_init may be called
 * once per process).  The task (pip_bench_task) writes a byte to a "ready"
 * pipe and blocks reading a "go" pipe, so all N are alive when memory is
 * read; then the root closes "go" and reaps them.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pip/pip.h>

extern char **environ;

PIP_ROOT_TLS_RESERVE(4096);

#define MAXN 1024

/* pip-exec's way past PIP_NTASKS_MAX in process mode (not in pip.h). */
extern int pip_ntasks_max_(int n);

/* What one child reports. */
struct result {
    double spawn_us; /* per task */
    double rss_kib;  /* per task: (RSS with N alive - RSS before) / N */
    double pte_kib;  /* same for page tables */
    double reap_us;  /* per task: from "go" until all are reaped */
    double pss_kib;  /* per task, as rss_kib */
    int ok;
};

__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt,
                                                                ...)
{
    va_list ap;
    fprintf(stderr, "pip_bench_scale: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Pss of a process (its whole address space), KiB, or -1. */
static long pss_of(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    long v = -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "Pss: %ld", &v) == 1)
            break;
    fclose(f);
    return v;
}

/* VmRSS and VmPTE of a process, KiB. */
static int mem_of(pid_t pid, long *rss, long *pte)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    *rss = *pte = -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        sscanf(line, "VmRSS: %ld", rss);
        sscanf(line, "VmPTE: %ld", pte);
    }
    fclose(f);
    return *rss >= 0 && *pte >= 0 ? 0 : -1;
}

static void read_n(int fd, int n)
{
    char buf[512];
    while (n > 0) {
        ssize_t r = read(fd, buf, (size_t)(n < 512 ? n : 512));
        if (r <= 0)
            die("a task did not start");
        n -= (int)r;
    }
}

/* Pipes: ready (tasks write) and go (the write end close-on-exec, so that
 * process-mode tasks do not hold it). */
static void make_pipes(int ready[2], int go[2])
{
    if (pipe(ready) != 0 || pipe(go) != 0)
        die("pipe: %s", strerror(errno));
    fcntl(go[1], F_SETFD, FD_CLOEXEC);
    fcntl(ready[0], F_SETFD, FD_CLOEXEC);
}

/* The task's command line: the two descriptors it uses. */
struct task_cmd {
    char rfd[16], gfd[16];
    char *argv[4];
};

static void task_cmd_init(struct task_cmd *c, const char *task, int ready_w,
                          int go_r)
{
    snprintf(c->rfd, sizeof(c->rfd), "%d", ready_w);
    snprintf(c->gfd, sizeof(c->gfd), "%d", go_r);
    c->argv[0] = (char *)task;
    c->argv[1] = c->rfd;
    c->argv[2] = c->gfd;
    c->argv[3] = NULL;
}

/* Per-task figures to the parent, then end the measuring child. */
static void report(int wfd, int n, double spawn_us, long rss_kib, long pte_kib,
                   double reap_us, long pss_kib)
{
    struct result res;
    res.spawn_us = spawn_us / n;
    res.reap_us = reap_us / n;
    res.pss_kib = (double)pss_kib / n;
    res.rss_kib = (double)rss_kib / n;
    res.pte_kib = (double)pte_kib / n;
    res.ok = 1;
    if (write(wfd, &res, sizeof(res)) != (ssize_t)sizeof(res))
        die("write: %s", strerror(errno));
    _exit(0);
}

/* In a fresh child: a root with n tasks.  Writes a struct result to wfd. */
static void run_pip(const char *task, int n, int wfd)
{
    int ready[2], go[2], pipid, ntasks = n, rc;
    make_pipes(ready, go);
    (void)pip_ntasks_max_(n);
    if ((rc = pip_init(&pipid, &ntasks, NULL, 0)) != 0)
        die("pip_init: %s", strerror(rc));
    long rss0, pte0, rss1, pte1;
    if (mem_of(getpid(), &rss0, &pte0) != 0)
        die("cannot read /proc/self/status");
    long pss0 = pss_of(getpid());
    struct task_cmd cmd;
    task_cmd_init(&cmd, task, ready[1], go[0]);
    double spawn = 0;
    for (int i = 0; i < n; i++) {
        pip_spawn_program_t p;
        int id = PIP_PIPID_ANY;
        pip_spawn_from_main(&p, (char *)task, cmd.argv, NULL, NULL, NULL);
        double t0 = now_us();
        if ((rc = pip_task_spawn(&p, PIP_CPUCORE_ASIS, 0, &id, NULL)) != 0)
            die("pip_task_spawn (task %d of %d): %s", i, n, strerror(rc));
        spawn += now_us() - t0;
    }
    read_n(ready[0], n);
    /* Process mode: the tasks' memory is the root's; count it once. */
    if (mem_of(getpid(), &rss1, &pte1) != 0)
        die("cannot read /proc/self/status");
    long pss1 = pss_of(getpid());
    double t1 = now_us();
    close(go[1]);
    for (int i = 0; i < n; i++) {
        int st;
        if ((rc = pip_wait(i, &st)) != 0 || st != 0)
            die("task %d: %s, status 0x%x", i, strerror(rc), st);
    }
    double reap = now_us() - t1;
    report(wfd, n, spawn, rss1 - rss0, pte1 - pte0, reap, pss1 - pss0);
}

/* Baseline: n processes of the same program. */
static void run_procs(const char *task, int n, int wfd)
{
    int ready[2], go[2];
    make_pipes(ready, go);
    pid_t *pids = calloc((size_t)n, sizeof(pid_t));
    struct task_cmd cmd;
    task_cmd_init(&cmd, task, ready[1], go[0]);
    double spawn = 0;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        int rc = posix_spawn(&pids[i], task, NULL, NULL, cmd.argv, environ);
        if (rc != 0)
            die("posix_spawn: %s", strerror(rc));
        spawn += now_us() - t0;
    }
    read_n(ready[0], n);
    long rss = 0, pte = 0, pss = 0;
    for (int i = 0; i < n; i++) {
        long r, p;
        if (mem_of(pids[i], &r, &p) != 0)
            die("cannot read /proc/%d/status", (int)pids[i]);
        rss += r;
        pte += p;
        pss += pss_of(pids[i]);
    }
    double t1 = now_us();
    close(go[1]);
    for (int i = 0; i < n; i++) {
        int st;
        if (waitpid(pids[i], &st, 0) < 0 || st != 0)
            die("process %d: status 0x%x", (int)pids[i], st);
    }
    double reap = now_us() - t1;
    free(pids);
    report(wfd, n, spawn, rss, pte, reap, pss);
}

enum { K_PROCESS, K_THREAD, K_SPAWN, K_COUNT };
static const char *kind_name[K_COUNT] = {"libpip process", "libpip thread",
                                         "posix_spawn"};

/* Thread mode may refuse n tasks (no dlmopen namespace left and sharing
 * not opted in): then *ok is 0 and the caller stops that mode's rows. */
static struct result measure(int kind, const char *task, int n, int *ok)
{
    int fds[2];
    struct result res = {0, 0, 0, 0, 0, 0};
    if (pipe(fds) != 0)
        die("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        alarm(300); /* never hang */
        if (kind == K_SPAWN)
            run_procs(task, n, fds[1]);
        setenv("PIP_MODE", kind == K_PROCESS ? "process" : "thread", 1);
        run_pip(task, n, fds[1]);
    }
    close(fds[1]);
    ssize_t r = read(fds[0], &res, sizeof(res));
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    *ok = r == (ssize_t)sizeof(res) && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (!*ok && kind != K_THREAD)
        die("%s with %d tasks failed (status 0x%x)", kind_name[kind], n, st);
    return res;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: pip_bench_scale [-r R] [--max N] [--csv FILE] "
            "[--plot FILE.svg] [--task PATH]\n"
            "  -r R          repetitions per point (default 3; medians)\n"
            "  --max N       largest task count, 1..%d (default 1024; "
            "thread mode stops where it\n"
            "                runs out of dlmopen namespaces)\n"
            "  --csv FILE    also write the table as CSV\n"
            "  --plot FILE   draw per-task costs with gnuplot (SVG)\n"
            "  --task PATH   the task program (default: pip_bench_task "
            "next to this program)\n",
            MAXN);
}

int main(int argc, char **argv)
{
    int reps = 3, maxn = 1024;
    const char *csv = NULL, *plot = NULL;
    char *task = NULL;
    static const struct option opts[] = {
        {"max", required_argument, NULL, 'm'},
        {"csv", required_argument, NULL, 'c'},
        {"plot", required_argument, NULL, 'p'},
        {"task", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'r':
            reps = (int)strtol(optarg, &end, 10);
            if (*end != '\0' || reps < 1 || reps > 100)
                die("bad -r '%s' (1..100)", optarg);
            break;
        case 'm':
            maxn = (int)strtol(optarg, &end, 10);
            if (*end != '\0' || maxn < 1 || maxn > MAXN)
                die("bad --max '%s' (1..%d)", optarg, MAXN);
            break;
        case 'c':
            csv = optarg;
            break;
        case 'p':
            plot = optarg;
            break;
        case 't':
            task = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc)
        die("unexpected argument '%s'", argv[optind]);
    if (task == NULL) {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n < 0)
            die("/proc/self/exe: %s", strerror(errno));
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        *slash = '\0';
        if (asprintf(&task, "%s/pip_bench_task", self) < 0)
            die("out of memory");
    }
    char *abs = realpath(task, NULL);
    if (abs == NULL)
        die("%s: %s", task, strerror(errno));
    task = abs;
    if (pip_check_pie(task, 1) != 0)
        return 1;

    int ns[16], npts = 0;
    for (int n = 1; n <= maxn; n *= 2)
        ns[npts++] = n;
    if (ns[npts - 1] != maxn)
        ns[npts++] = maxn;

    FILE *out = NULL;
    if (csv != NULL && (out = fopen(csv, "w")) == NULL)
        die("%s: %s", csv, strerror(errno));
    if (out != NULL)
        fprintf(out, "method,ntasks,spawn_us_per_task,rss_kib_per_task,"
                     "pte_kib_per_task,spawn_ratio_vs_posix_spawn,"
                     "rss_ratio_vs_posix_spawn,reps,spawn_reap_us_per_task,"
                     "pss_kib_per_task,spawn_reap_ratio_vs_posix_spawn,"
                     "pss_ratio_vs_posix_spawn\n");
    printf("%-15s %6s %11s %11s %10s %10s %9s %8s %8s %8s\n", "method", "tasks",
           "spawn us/t", "sp+reap/t", "RSS KiB/t", "PSS KiB/t", "PTE KiB/t",
           "spawn x", "s+r x", "PSS x");
    double *sp = calloc((size_t)reps, sizeof(double));
    double *rs = calloc((size_t)reps, sizeof(double));
    double *pt = calloc((size_t)reps, sizeof(double));
    double *rp = calloc((size_t)reps, sizeof(double));
    double *ps = calloc((size_t)reps, sizeof(double));
    double med[K_COUNT][16][5];
    int thread_stop = 0; /* the task count thread mode refused, if any */
    for (int i = 0; i < npts; i++) {
        for (int k = K_COUNT - 1; k >= 0; k--) {
            int ok = 1;
            for (int r = 0; r < reps && ok; r++) {
                if (k == K_THREAD && (ns[i] > PIP_NTASKS_MAX || thread_stop)) {
                    ok = 0;
                    break;
                }
                fprintf(stderr, "\r%-15s %4d tasks, run %d/%d   ", kind_name[k],
                        ns[i], r + 1, reps);
                struct result res = measure(k, task, ns[i], &ok);
                if (!ok) {
                    thread_stop = ns[i];
                    break;
                }
                sp[r] = res.spawn_us;
                rs[r] = res.rss_kib;
                pt[r] = res.pte_kib;
                rp[r] = res.spawn_us + res.reap_us;
                ps[r] = res.pss_kib;
            }
            if (!ok) {
                for (int j = 0; j < 5; j++)
                    med[k][i][j] = -1;
                continue;
            }
            med[k][i][0] = median(sp, reps);
            med[k][i][1] = median(rs, reps);
            med[k][i][2] = median(pt, reps);
            med[k][i][3] = median(rp, reps);
            med[k][i][4] = median(ps, reps);
        }
        fprintf(stderr, "\r%60s\r", "");
        for (int k = 0; k < K_COUNT; k++) {
            if (med[k][i][0] < 0)
                continue; /* thread mode refused or beyond PIP_NTASKS_MAX */
            double sx = med[k][i][0] / med[K_SPAWN][i][0];
            double rx = med[k][i][1] / med[K_SPAWN][i][1];
            double srx = med[k][i][3] / med[K_SPAWN][i][3];
            double px = med[k][i][4] / med[K_SPAWN][i][4];
            printf("%-15s %6d %11.1f %11.1f %10.1f %10.1f %9.2f %7.2fx "
                   "%7.2fx %7.2fx\n",
                   kind_name[k], ns[i], med[k][i][0], med[k][i][3],
                   med[k][i][1], med[k][i][4], med[k][i][2], sx, srx, px);
            if (out != NULL)
                fprintf(out,
                        "%s,%d,%.2f,%.2f,%.3f,%.4f,%.4f,%d,%.2f,%.2f,%.4f,"
                        "%.4f\n",
                        kind_name[k], ns[i], med[k][i][0], med[k][i][1],
                        med[k][i][2], sx, rx, reps, med[k][i][3], med[k][i][4],
                        srx, px);
        }
        fflush(stdout);
    }
    if (thread_stop)
        printf("libpip thread: no rows from %d tasks on: thread mode refused "
               "them (no dlmopen namespace left for a task of its own; "
               "pip-exec(1), PIP_SHARE_NAMESPACES)\n",
               thread_stop);
    if (out != NULL && fclose(out) != 0)
        die("%s: %s", csv, strerror(errno));
    if (plot != NULL) {
        char dat[] = "/tmp/pip_bench_scale_XXXXXX";
        int fd = mkstemp(dat);
        FILE *d = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (d == NULL)
            die("temporary file: %s", strerror(errno));
        for (int k = 0; k < K_COUNT; k++) {
            for (int i = 0; i < npts; i++)
                if (med[k][i][0] >= 0)
                    fprintf(d, "%d %f %f\n", ns[i], med[k][i][0], med[k][i][1]);
            fprintf(d, "\n\n");
        }
        fclose(d);
        FILE *g = popen("gnuplot 2>&1", "w");
        int rc = -1;
        if (g != NULL) {
            fprintf(g,
                    "set terminal svg size 900,420\nset output '%s'\n"
                    "set multiplot layout 1,2\nset logscale xy\n"
                    "set xlabel 'tasks'\nset key top left\n"
                    "set title 'spawn time per task (us)'\n"
                    "plot '%s' index 0 u 1:2 w lp t '%s', '' index 1 u 1:2 "
                    "w lp t '%s', '' index 2 u 1:2 w lp t '%s'\n"
                    "set title 'resident memory per task (KiB)'\n"
                    "plot '%s' index 0 u 1:3 w lp t '%s', '' index 1 u 1:3 "
                    "w lp t '%s', '' index 2 u 1:3 w lp t '%s'\n"
                    "unset multiplot\n",
                    plot, dat, kind_name[0], kind_name[1], kind_name[2], dat,
                    kind_name[0], kind_name[1], kind_name[2]);
            rc = pclose(g);
        }
        unlink(dat);
        if (rc != 0)
            fprintf(stderr, "pip_bench_scale: no plot: gnuplot is missing or "
                            "failed (apt-get install gnuplot-nox)\n");
        else
            fprintf(stderr, "pip_bench_scale: plot written to %s\n", plot);
    }
    free(sp);
    free(rs);
    free(pt);
    return 0;
}
