/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_bench_pvas.c: the PVAS advantage, measured in one invocation:
 *
 *   ping-pong  latency and bandwidth of two PiP tasks exchanging by one copy
 *              through a pointer, against two processes through a POSIX shm
 *              2-copy channel, cross-memory attach (process_vm_readv), and
 *              MPICH's intra-node path (pvas_mpi under mpiexec -n 2);
 *   footprint  RSS, PSS and page-table size of an all-to-all among N PiP
 *              tasks (one address space) against N processes + POSIX shm;
 *   strided    ping-pong of vector-layout data: the PiP sender reads the
 *              receiver's exported layout and copies once into it, against
 *              pack + unpack through shm, process_vm_readv with one iovec per
 *              block, and MPI_Type_vector through MPICH.
 *
 * Both sides of every comparison run the same program, pvas_task: as PiP
 * tasks of a root (this program re-executed with --pip-root: pip_init may
 * be called once per process, and each N needs a fresh root) or as plain
 * processes started here.  A control segment (POSIX shm) carries the
 * parameters, the synchronisation words and the results.
 *
 * Table on stdout, progress on stderr, CSV with --csv, plots with --plot
 * (pvas_report.c); the PiP root side is in pvas_root.c, the MPICH baseline
 * in pvas_mpich.c.
 */
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <pip/pip.h>

#include "pvas_driver.h"
#include "pvas_report.h"
#include "pvas_root.h"

extern char **environ;

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer cannot see pointers kept in the tasks' heaps (as in the
 * libpip test roots); everything else ASan checks. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
#endif

static const char *method_arg[] = {"pip", "shm", "cma", "mpi"};

static void on_signal(int sig)
{
    if (seg_name[0] != '\0')
        shm_unlink(seg_name);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- the control segment ----------------------------------------------- */

static pvas_ctl_t *seg_new(int test, int method, int n, const size_t *sizes,
                           int nsizes, size_t block, size_t data_len)
{
    static unsigned seq;
    size_t off = (sizeof(pvas_ctl_t) + 4095) & ~(size_t)4095;
    size_t len = off + data_len;
    snprintf(seg_name, sizeof(seg_name), "/pip_bench_pvas.%d.%u", (int)getpid(),
             seq++);
    int fd = shm_open(seg_name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        die("shm_open(%s): %s", seg_name, strerror(errno));
    if (ftruncate(fd, (off_t)len) != 0)
        die("ftruncate(%s, %zu): %s", seg_name, len, strerror(errno));
    pvas_ctl_t *c = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (c == MAP_FAILED)
        die("mmap(%s): %s", seg_name, strerror(errno));
    c->magic = PVAS_MAGIC;
    c->method = method;
    c->test = test;
    c->n = n;
    c->ncpu = pvas_ncpu();
    /* Spin only while every party has a core of its own: a spinner that
     * shares its core with the party it waits for only delays it. */
    c->spin = c->ncpu > 1 && n <= c->ncpu ? PVAS_SPIN : 0;
    c->reps = opt.reps;
    c->max_iters = opt.max_iters;
    c->nsizes = nsizes;
    for (int i = 0; i < nsizes; i++)
        c->size[i] = sizes[i];
    c->block = block;
    c->fresh = opt.fresh;
    c->prefetch = opt.prefetch;
    c->flags_only = opt.flags_only;
    c->timeout = opt.timeout;
    c->data_off = off;
    c->data_len = data_len;
    pvas_bar_init(&c->bar, n);
    return c;
}

static void seg_free(pvas_ctl_t *c)
{
    munmap(c, c->data_off + c->data_len);
    shm_unlink(seg_name);
    seg_name[0] = '\0';
}

/* ---- launching the parties ---------------------------------------------- */

static void run_pip(pvas_ctl_t *c)
{
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        setpgid(0, 0);
        setenv("PIP_MODE", opt.pip_mode, 1);
        execl(opt.self, opt.self, "--pip-root", seg_name, opt.task,
              (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int st = wait_or_kill(pid, pvas_now() + c->timeout + 30);
    if (st == -1)
        pvas_set_fail(c, "the PiP root timed out");
    else if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && c->fail == 0)
        pvas_set_fail(c, "the PiP root ended with status 0x%x", st);
}

static pid_t proc_pid[PVAS_MAXN];
static int proc_st[PVAS_MAXN], proc_n;

static int proc_ended_early(pvas_ctl_t *c)
{
    for (int i = 0; i < proc_n; i++) {
        if (proc_st[i] != -1)
            continue;
        int st;
        if (waitpid(proc_pid[i], &st, WNOHANG) == proc_pid[i]) {
            proc_st[i] = st;
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                pvas_set_fail(c, "process %d ended with status 0x%x", i, st);
                return 1;
            }
        }
    }
    return 0;
}

static void run_procs(pvas_ctl_t *c, int method)
{
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    proc_n = 0;
    for (int i = 0; i < c->n; i++) {
        char rk[16];
        snprintf(rk, sizeof(rk), "%d", i);
        char *argv[] = {(char *)opt.task, (char *)method_arg[method], rk,
                        seg_name, NULL};
        /* All in the first one's process group, killed together. */
        posix_spawnattr_setpgroup(&at, i == 0 ? 0 : proc_pid[0]);
        int rc = posix_spawn(&proc_pid[i], opt.task, NULL, &at, argv, environ);
        if (rc != 0) {
            pvas_set_fail(c, "posix_spawn: %s (process %d of %d)", strerror(rc),
                          i + 1, c->n);
            break;
        }
        proc_st[i] = -1;
        proc_n++;
    }
    posix_spawnattr_destroy(&at);
    pvas_start(c, proc_n == c->n ? 1 : -1);
    if (proc_n == c->n && c->test == PVAS_T_A2A &&
        pvas_wait_done(c, c->n, proc_ended_early) == 0) {
        for (int i = 0; i < proc_n; i++) {
            char pid[16];
            snprintf(pid, sizeof(pid), "%d", (int)proc_pid[i]);
            if (pvas_add_footprint(c, pid) != 0) {
                pvas_set_fail(c, "cannot read /proc/%s/status", pid);
                break;
            }
        }
    }
    pvas_release(c);
    double end = pvas_now() + c->timeout + 30;
    for (int i = 0; i < proc_n; i++) {
        if (proc_st[i] != -1)
            continue;
        int st = wait_or_kill(proc_pid[i], end);
        if (st == -1) {
            kill(-proc_pid[0], SIGKILL);
            pvas_set_fail(c, "process %d timed out", i);
        } else if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && c->fail == 0) {
            pvas_set_fail(c, "process %d ended with status 0x%x", i, st);
        }
    }
}

/*
 * Failures that only mean "not available here" (n/a rows, not errors):
 * no namespace left for another task, CMA not permitted, and the like.
 */
static int n_errors;

static int is_unavailable(const char *why)
{
    return strstr(why, "spawn failed") != NULL ||
           strstr(why, "process_vm_readv: Operation not permitted") != NULL ||
           strstr(why, "process_vm_readv: Function not implemented") != NULL;
}

/* Run one ping-pong sweep (pp or nc) of one method into *s. */
static void run_two(int test, int method, const size_t *sizes, int nsizes,
                    pvas_series_t *s)
{
    size_t maxs = sizes[nsizes - 1];
    size_t data = method == PVAS_M_SHM ? 2 * maxs : 0;
    double t0 = pvas_now();
    fprintf(stderr, "pip_bench_pvas: %s %-4s ...",
            test == PVAS_T_PP ? "ping-pong" : "strided", method_arg[method]);
    pvas_ctl_t *c = seg_new(test, method, 2, sizes, nsizes,
                            test == PVAS_T_NC ? opt.nc_block : 0, data);
    if (method == PVAS_M_PIP)
        run_pip(c);
    else
        run_procs(c, method);
    s->ok = c->fail == 0 && c->checked == 2;
    if (!s->ok) {
        snprintf(s->why, sizeof(s->why), "%s",
                 c->fail ? c->failmsg : "the parties did not finish");
        if (!is_unavailable(s->why))
            n_errors++;
    }
    memcpy(s->st, c->res, sizeof(s->st));
    seg_free(c);
    fprintf(stderr, " %s (%.1f s)\n", s->ok ? "done" : s->why, pvas_now() - t0);
}

static void run_a2a(pvas_a2a_row_t *row)
{
    int n = row->n;
    for (int k = 0; k < 2; k++) {
        int method = k == 0 ? PVAS_M_PIP : PVAS_M_SHM;
        size_t data = method == PVAS_M_SHM ? (size_t)n * n * opt.a2a_block : 0;
        double t0 = pvas_now();
        fprintf(stderr, "pip_bench_pvas: all-to-all N=%d %s ...", n,
                k == 0 ? "pip tasks" : "processes+shm");
        pvas_ctl_t *c =
            seg_new(PVAS_T_A2A, method, n, NULL, 0, opt.a2a_block, data);
        if (method == PVAS_M_PIP)
            run_pip(c);
        else
            run_procs(c, method);
        row->ok[k] = c->fail == 0 && c->checked == n && c->rss_kib > 0;
        if (!row->ok[k]) {
            snprintf(row->why[k], sizeof(row->why[k]), "%s",
                     c->fail ? c->failmsg : "the parties did not finish");
            if (!is_unavailable(row->why[k]))
                n_errors++;
        }
        row->rss[k] = c->rss_kib;
        row->pss[k] = c->pss_kib;
        row->pte[k] = c->pte_kib;
        row->t_med[k] = c->a2a_med;
        seg_free(c);
        fprintf(stderr, " %s (%.1f s)\n", row->ok[k] ? "done" : row->why[k],
                pvas_now() - t0);
    }
}

/*
 * The ping-pong sweeps: every method once per round, methods interleaved,
 * so that a noisy spell of the machine does not fall on one method only;
 * every other round runs the own methods in the reverse order (pip, shm,
 * cma; then cma, shm, pip), so that none always runs first after a pause
 * or last before MPICH's launch.  Per size: the median of the rounds'
 * medians (typical round trips, means, context switches), the min of their
 * minima, the max of their maxima, the quiet repetitions of all rounds.
 */
static void combine(pvas_series_t *out, pvas_series_t *in, int k, int ns)
{
    double v[100], mv[100], cv[100];
    *out = in[0];
    for (int j = 0; j < k; j++)
        if (!in[j].ok) {
            *out = in[j];
            return;
        }
    for (int i = 0; i < ns; i++) {
        pvas_stat_t *o = &out->st[i];
        o->quiet = o->nrep = 0;
        for (int j = 0; j < k; j++) {
            const pvas_stat_t *x = &in[j].st[i];
            v[j] = x->med;
            mv[j] = x->mean;
            cv[j] = x->csw;
            o->quiet += x->quiet;
            o->nrep += x->nrep;
            if (x->min < o->min)
                o->min = x->min;
            if (x->max > o->max)
                o->max = x->max;
        }
        o->med = pvas_median(v, k);
        o->mean = pvas_median(mv, k);
        o->csw = pvas_median(cv, k);
    }
}

/*
 * The paired comparison of the ping-pong: in each round where both ran,
 * baseline m's median over pip's at every size (the two measured seconds
 * apart, so a slow drift of the machine's load cancels out); per size the
 * median of those ratios and the rounds with a ratio >= 1.  The same for
 * the repetitions' means (preemptions included), for comparison.
 */
static void pair_ratios(pvas_results_t *r, const pvas_series_t *pp, int k)
{
    double v[100], mv[100];
    for (int m = 1; m < PVAS_M_COUNT; m++) {
        const pvas_series_t *b = &pp[m * k];
        for (int i = 0; i < r->npp; i++) {
            int n = 0, won = 0;
            for (int j = 0; j < k; j++)
                if (pp[j].ok && b[j].ok && pp[j].st[i].med > 0 &&
                    pp[j].st[i].mean > 0) {
                    mv[n] = b[j].st[i].mean / pp[j].st[i].mean;
                    v[n] = b[j].st[i].med / pp[j].st[i].med;
                    won += v[n++] >= 1.0;
                }
            r->pp_npair[m] = n;
            r->pp_won[m][i] = won;
            r->pp_pair[m][i] = pvas_median(v, n);
            r->pp_pair_mean[m][i] = pvas_median(mv, n);
        }
    }
}

static void run_pingpongs(pvas_results_t *r)
{
    int k = opt.rounds;
    pvas_series_t *pp = calloc((size_t)k * PVAS_M_COUNT, sizeof(*pp));
    pvas_series_t *nc = calloc((size_t)k * PVAS_M_COUNT, sizeof(*nc));
    pvas_results_t *tmp = malloc(sizeof(*tmp));
    if (pp == NULL || nc == NULL || tmp == NULL)
        die("out of memory");
    for (int j = 0; j < k && (opt.do_pp || opt.do_nc); j++) {
        if (k > 1)
            fprintf(stderr, "pip_bench_pvas: round %d of %d\n", j + 1, k);
        for (int q = PVAS_M_PIP; q < PVAS_M_MPI && opt.do_pp; q++) {
            int m = j % 2 ? PVAS_M_MPI - 1 - q : q;
            run_two(PVAS_T_PP, m, r->pp_size, r->npp, &pp[m * k + j]);
        }
        for (int q = PVAS_M_PIP; q < PVAS_M_MPI && opt.do_nc; q++) {
            int m = j % 2 ? PVAS_M_MPI - 1 - q : q;
            run_two(PVAS_T_NC, m, r->nc_size, r->nnc, &nc[m * k + j]);
        }
        if (j == 0 || pp[PVAS_M_MPI * k].ok || nc[PVAS_M_MPI * k].ok) {
            *tmp = *r;
            run_mpi(tmp);
        } /* else: it failed or was skipped in round 1: do not retry */
        pp[PVAS_M_MPI * k + j] = tmp->pp[PVAS_M_MPI];
        nc[PVAS_M_MPI * k + j] = tmp->nc[PVAS_M_MPI];
    }
    if (opt.do_pp)
        pair_ratios(r, pp, k);
    for (int m = 0; m < PVAS_M_COUNT; m++) {
        if (opt.do_pp)
            combine(&r->pp[m], &pp[m * k], k, r->npp);
        if (opt.do_nc)
            combine(&r->nc[m], &nc[m * k], k, r->nnc);
    }
    free(pp);
    free(nc);
    free(tmp);
}

/* ---- options ------------------------------------------------------------- */

static size_t parse_size(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1ull << 10;
    else if (*end == 'm' || *end == 'M')
        mul = 1ull << 20;
    else if (*end == 'g' || *end == 'G')
        mul = 1ull << 30;
    if (mul != 1)
        end++;
    if (errno != 0 || end == s || *end != '\0' || v == 0 ||
        v > (1ull << 34) / mul)
        die("bad %s '%s' (a size in bytes, with an optional k, m or g suffix)",
            what, s);
    return (size_t)(v * mul);
}

static void parse_range(const char *s, const char *what, size_t *lo, size_t *hi)
{
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", s);
    char *colon = strchr(buf, ':');
    if (colon == NULL)
        die("bad %s '%s' (MIN:MAX)", what, s);
    *colon = '\0';
    *lo = parse_size(buf, what);
    *hi = parse_size(colon + 1, what);
    if (*lo > *hi)
        die("bad %s '%s': MIN is larger than MAX", what, s);
}

static int parse_int(const char *s, const char *what, int lo, int hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        die("bad %s '%s' (a number from %d to %d)", what, s, lo, hi);
    return (int)v;
}

static void parse_nlist(const char *s)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", s);
    opt.na2a = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (opt.na2a == PVAS_A2A_MAX)
            die("--a2a-n: at most %d values", PVAS_A2A_MAX);
        opt.a2a_n[opt.na2a++] = parse_int(tok, "--a2a-n value", 2, PVAS_MAXN);
    }
    if (opt.na2a == 0)
        die("--a2a-n: empty list");
}

static void parse_only(const char *s)
{
    char buf[128];
    snprintf(buf, sizeof(buf), "%s", s);
    opt.do_pp = opt.do_a2a = opt.do_nc = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (strcmp(tok, "pp") == 0)
            opt.do_pp = 1;
        else if (strcmp(tok, "a2a") == 0)
            opt.do_a2a = 1;
        else if (strcmp(tok, "nc") == 0)
            opt.do_nc = 1;
        else
            die("bad --only part '%s' (pp, a2a, nc)", tok);
    }
}

static void usage(FILE *f)
{
    fprintf(
        f, "usage: pip_bench_pvas [options]\n"
           "  --sizes MIN:MAX     ping-pong sizes, doubling (default 8:4M)\n"
           "  --nc-sizes MIN:MAX  strided message sizes, x4 (default 4K:4M)\n"
           "  --nc-block B        strided block length (default 64)\n"
           "  --a2a-n LIST        all-to-all party counts (default "
           "2,4,8,16,32,64)\n"
           "  --a2a-block B       all-to-all block per pair (default 4K)\n"
           "  -r, --reps R        timed repetitions per size (default 7)\n"
           "  --rounds K          ping-pong sweeps of every method, "
           "interleaved (default 9;\n"
           "                      a verdict needs 5 or more)\n"
           "  --max-iters N       round trips per repetition, at most "
           "(default 2000)\n"
           "  --only LIST         pp,a2a,nc (default: all three)\n"
           "  --pip-mode MODE     process or thread (default: $PIP_MODE, "
           "else process)\n"
           "  --task PATH         the party program (default: pvas_task "
           "next to this one)\n"
           "  --mpi-prog PATH     the MPI program (default: pvas_mpi next to "
           "this one)\n"
           "  --mpi-run PATH      launcher wrapper run as PATH -n 2 -t SEC "
           "(default: $MPI_RUN,\n"
           "                      else plain mpiexec -n 2)\n"
           "  --no-mpi            skip the MPICH baseline\n"
           "  --fresh             ping-pongs: the sender stores to every cache "
           "line of its\n"
           "                      message before each send (default: "
           "unchanged buffers, as IMB)\n"
           "  --prefetch          ping-pongs: the receivers (pip, shm) "
           "prefetch a message of\n"
           "                      up to 8 KiB before memcpy (default: memcpy "
           "alone)\n"
           "  --flags-only        ping-pongs move no data, only the flags: "
           "the floor of\n"
           "                      pip, shm and cma (no MPICH, no data "
           "check)\n"
           "  --timeout SEC       bound of each measurement (default 600)\n"
           "  --csv FILE          also write the results as CSV\n"
           "  --plot DIR          write gnuplot data, script and SVG plots "
           "into DIR\n");
}

/* PATH next to this program, if executable. */
static const char *sibling(const char *name)
{
    static char buf[2][PATH_MAX];
    static int k;
    char *p = buf[k++ % 2];
    snprintf(p, PATH_MAX, "%s", opt.self);
    char *slash = strrchr(p, '/');
    if (slash == NULL)
        return NULL;
    snprintf(slash + 1, (size_t)(PATH_MAX - (slash + 1 - p)), "%s", name);
    return access(p, X_OK) == 0 ? p : NULL;
}

int main(int argc, char **argv)
{
    static const struct option lopts[] = {
        {"sizes", required_argument, NULL, 's'},
        {"nc-sizes", required_argument, NULL, 'S'},
        {"nc-block", required_argument, NULL, 'b'},
        {"a2a-n", required_argument, NULL, 'n'},
        {"a2a-block", required_argument, NULL, 'B'},
        {"reps", required_argument, NULL, 'r'},
        {"rounds", required_argument, NULL, 'K'},
        {"max-iters", required_argument, NULL, 'i'},
        {"only", required_argument, NULL, 'o'},
        {"pip-mode", required_argument, NULL, 'm'},
        {"task", required_argument, NULL, 't'},
        {"mpi-prog", required_argument, NULL, 'P'},
        {"mpi-run", required_argument, NULL, 'R'},
        {"no-mpi", no_argument, NULL, 'N'},
        {"fresh", no_argument, NULL, 'F'},
        {"prefetch", no_argument, NULL, 'Q'},
        {"flags-only", no_argument, NULL, 'Z'},
        {"timeout", required_argument, NULL, 'T'},
        {"csv", required_argument, NULL, 'c'},
        {"plot", required_argument, NULL, 'p'},
        {"pip-root", required_argument, NULL, 'X'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *root_seg = NULL;
    int c;

    opt.pp_lo = 8;
    opt.pp_hi = 4u << 20;
    opt.nc_lo = 4u << 10;
    opt.nc_hi = 4u << 20;
    opt.nc_block = 64;
    opt.a2a_block = 4096;
    parse_nlist("2,4,8,16,32,64");
    opt.reps = 7;
    opt.rounds = 9;
    opt.max_iters = 2000;
    opt.timeout = 600;
    opt.do_pp = opt.do_a2a = opt.do_nc = 1;
    opt.pip_mode = getenv("PIP_MODE");
    opt.mpi_run = getenv("MPI_RUN");
    while ((c = getopt_long(argc, argv, "r:h", lopts, NULL)) != -1) {
        switch (c) {
        case 's':
            parse_range(optarg, "--sizes", &opt.pp_lo, &opt.pp_hi);
            break;
        case 'S':
            parse_range(optarg, "--nc-sizes", &opt.nc_lo, &opt.nc_hi);
            break;
        case 'b':
            opt.nc_block = parse_size(optarg, "--nc-block");
            break;
        case 'n':
            parse_nlist(optarg);
            break;
        case 'B':
            opt.a2a_block = parse_size(optarg, "--a2a-block");
            break;
        case 'K':
            opt.rounds = parse_int(optarg, "--rounds", 1, 100);
            break;
        case 'r':
            opt.reps = parse_int(optarg, "--reps", 1, 10000);
            break;
        case 'i':
            opt.max_iters = parse_int(optarg, "--max-iters", 1, 10000000);
            break;
        case 'o':
            parse_only(optarg);
            break;
        case 'm':
            opt.pip_mode = optarg;
            break;
        case 't':
            opt.task = optarg;
            break;
        case 'P':
            opt.mpi_prog = optarg;
            break;
        case 'R':
            opt.mpi_run = optarg;
            break;
        case 'N':
            opt.no_mpi = 1;
            break;
        case 'F':
            opt.fresh = 1;
            break;
        case 'Q':
            opt.prefetch = 1;
            break;
        case 'Z':
            opt.flags_only = 1;
            break;
        case 'T':
            opt.timeout = parse_int(optarg, "--timeout", 1, 86400);
            break;
        case 'c':
            opt.csv = optarg;
            break;
        case 'p':
            opt.plot = optarg;
            break;
        case 'X':
            root_seg = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (root_seg != NULL) {
        if (optind + 1 != argc)
            die("--pip-root needs the task program");
        return pvas_root_main(root_seg, argv[optind]);
    }
    if (optind != argc) {
        fprintf(stderr, "pip_bench_pvas: unexpected argument '%s'\n",
                argv[optind]);
        usage(stderr);
        return 2;
    }
    if (opt.pip_mode == NULL || opt.pip_mode[0] == '\0')
        opt.pip_mode = "process";
    if (strcmp(opt.pip_mode, "process") != 0 &&
        strcmp(opt.pip_mode, "thread") != 0 &&
        strcmp(opt.pip_mode, "pthread") != 0)
        die("bad --pip-mode '%s' (process or thread)", opt.pip_mode);
    if (opt.nc_lo % opt.nc_block != 0)
        die("--nc-sizes MIN (%zu) must be a multiple of --nc-block (%zu)",
            opt.nc_lo, opt.nc_block);

    ssize_t n = readlink("/proc/self/exe", opt.self, sizeof(opt.self) - 1);
    if (n < 0)
        die("/proc/self/exe: %s", strerror(errno));
    opt.self[n] = '\0';
    if (opt.task == NULL && (opt.task = sibling("pvas_task")) == NULL)
        die("pvas_task not found next to this program; give --task PATH");
    char *abs = realpath(opt.task, NULL);
    if (abs == NULL)
        die("%s: %s", opt.task, strerror(errno));
    opt.task = abs;
    if (pip_check_pie(opt.task, 1) != 0)
        return 1;
    if (opt.mpi_prog == NULL)
        opt.mpi_prog = sibling("pvas_mpi");

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);

    static pvas_results_t r;
    r.ncpu = pvas_ncpu();
    r.reps = opt.reps;
    r.rounds = opt.rounds;
    r.max_iters = opt.max_iters;
    r.pip_mode = opt.pip_mode;
    r.fresh = opt.fresh;
    r.prefetch = opt.prefetch;
    r.flags_only = opt.flags_only;
    r.did_pp = opt.do_pp;
    r.did_nc = opt.do_nc;
    r.did_a2a = opt.do_a2a;
    r.npp = pvas_sizes(opt.pp_lo, opt.pp_hi, 2, r.pp_size, PVAS_MAXSIZES);
    r.nnc = pvas_sizes(opt.nc_lo, opt.nc_hi, 4, r.nc_size, PVAS_MAXSIZES);
    r.nc_block = opt.nc_block;
    r.a2a_block = opt.a2a_block;
    pvas_machine_facts(r.machine, sizeof(r.machine));
    pvas_loadavg(r.load0, sizeof(r.load0));
    fprintf(stderr,
            "pip_bench_pvas: %d core(s) available%s, PiP %s mode, %d reps\n",
            r.ncpu,
            r.ncpu < 2 ? " (parties share one core: waits yield at once)"
                       : ", the two parties pinned to two cores",
            r.pip_mode, r.reps);

    run_pingpongs(&r);
    if (opt.do_a2a) {
        r.na2a = opt.na2a;
        for (int i = 0; i < opt.na2a; i++) {
            r.a2a[i].n = opt.a2a_n[i];
            run_a2a(&r.a2a[i]);
        }
    }

    pvas_loadavg(r.load1, sizeof(r.load1));
    pvas_report_table(stdout, &r);
    fflush(stdout);
    if (opt.csv != NULL && pvas_report_csv(opt.csv, &r) != 0)
        die("%s: %s", opt.csv, strerror(errno));
    if (opt.plot != NULL)
        pvas_report_plot(opt.plot, &r);
    if (n_errors > 0) {
        fprintf(stderr,
                "pip_bench_pvas: %d measurement(s) failed (see the "
                "n/a rows)\n",
                n_errors);
        return 1;
    }
    return 0;
}
