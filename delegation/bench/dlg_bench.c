/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_bench.c: round-trip latency, throughput and idle CPU of delegation
 * per notification policy, against baselines measured in the same run: a
 * plain function call, a raw cache-line ping-pong between two threads (the
 * floor for polling) and a raw futex ping-pong (the floor for blocking).
 *
 * The delegatee runs on the host CPUs and the client on the board CPUs
 * (dlg_layout_get: DLG_HOST_CPUS / DLG_BOARD_CPUS or the topology).
 *
 * usage: dlg_bench [-r REPS] [-n ITERS] [-o FILE.csv] [-p POLICY] [-q] [-t]
 * [-x] -r  repetitions; every figure is the median of the repetitions (7) -n
 * round trips per repetition at 8 B (20000; fewer for big payloads) -o  also
 * write the results as CSV -p  only this policy (poll, block or adaptive;
 * repeatable) -t  only the baselines and the paired target ratios (no
 * sweep) -q  quick: sizes 8 B, 4 KiB and 1 MiB only, 3 repetitions -x  use
 * process-shared futexes (default: process-private, as for threads or PiP tasks
 * sharing one address space) -T  the PiP task program (default:
 * ../tests/dlg_pip_task next to this program).  Progress goes to stderr, the
 * table to stdout.
 *
 * Besides the client thread, the sweep (DLG_BUF_AUTO) is repeated with the
 * client in a PiP task of this program (built with libpip: the intended
 * deployment, one address space) and in a separate forked process
 * (process_vm_readv above the inline limit), and a UNIX-socket RPC of the
 * same requests is measured as the baseline of all three.  The delegatee's
 * CPU share is measured idle (one client attached, no requests) and busy
 * (back-to-back 8 B requests).
 */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef DLG_BENCH_PIP
#include <pip/pip.h>
#endif

#include "deleg.h"
#include "dlg_pip.h"
#include "dlg_bench.h"

static int quick, targets_only;
static const char *task_path; /* dlg_pip_task for the PiP series */
static FILE *csv;

static void out(const char *section, const char *name, const char *policy,
                const char *mode, size_t bytes, double value, const char *unit,
                const char *base, double ratio)
{
    printf("%-10s %-22s %-9s %-7s %8zu %14.1f %-6s %-12s %7.2f\n", section,
           name, policy, mode, bytes, value, unit, base, ratio);
    fflush(stdout);
    if (csv)
        fprintf(csv, "%s,%s,%s,%s,%zu,%.1f,%s,%s,%.3f\n", section, name, policy,
                mode, bytes, value, unit, base, ratio);
}

/* ---------------- delegation ---------------- */

static double bench_rt(dlg_client_t *c, void *buf, size_t n, dlg_bufmode_t m,
                       int iters)
{
    dlg_call_t call = {
        .op = OP_SINK, .buf = n ? buf : NULL, .len = n, .mode = m};
    int64_t res;
    for (int i = 0; i < iters / 10 + 1; i++) /* warm up */
        if (dlg_call(c, &call, &res, NULL, NULL))
            return -1;
    uint64_t t0 = now_ns();
    for (int i = 0; i < iters; i++)
        if (dlg_call(c, &call, &res, NULL, NULL))
            return -1;
    return (double)(now_ns() - t0) / iters;
}

static double bench_rt_call(dlg_client_t *c, const dlg_call_t *call, int iters)
{
    int64_t res;
    for (int i = 0; i < iters / 10 + 1; i++) /* warm up */
        if (dlg_call(c, call, &res, NULL, NULL))
            return -1;
    uint64_t t0 = now_ns();
    for (int i = 0; i < iters; i++)
        if (dlg_call(c, call, &res, NULL, NULL))
            return -1;
    return (double)(now_ns() - t0) / iters;
}

/* Requests per second with up to `win` requests in flight. */
static double bench_tput(dlg_client_t *c, void *buf, size_t n, dlg_bufmode_t m,
                         int iters, int win)
{
    dlg_call_t call = {
        .op = OP_SINK, .buf = n ? buf : NULL, .len = n, .mode = m};
    dlg_ticket_t t[64];
    int head = 0, tail = 0, sent = 0;
    uint64_t t0 = now_ns();
    while (tail < iters) {
        while (sent < iters && head - tail < win) {
            int rc = dlg_submit(c, &call, &t[head % 64]);
            if (rc == -EAGAIN)
                break;
            if (rc)
                return -1;
            head++;
            sent++;
        }
        if (dlg_wait(c, t[tail % 64], DLG_POLICY_DEFAULT, NULL, NULL, NULL))
            return -1;
        tail++;
    }
    return iters / ((double)(now_ns() - t0) / 1e9);
}

static double thread_cpu_ns(pthread_t th)
{
    clockid_t cid;
    struct timespec ts;
    if (pthread_getcpuclockid(th, &cid) || clock_gettime(cid, &ts))
        return 0;
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---------------- PiP tasks and separate processes as clients ---------- */

/*
 * One series of the sweep in dlg_pip.h with the client in another
 * execution context and the delegatee (idle policy = the series' policy)
 * on a host CPU in this process: `pip` = a PiP task of this root (one
 * address space: the region's addr: spec, plain pointers above the inline
 * limit), otherwise a forked process (memfd spec, process_vm_readv above
 * the inline limit, process-shared futexes).
 */
static int run_series(int pip, dlg_policy_t pol, const size_t *sizes,
                      int nsizes, double *rt)
{
    dlg_pip_shared_t *S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (S == MAP_FAILED)
        return -1;
    memset(S, 0, sizeof(*S));
    struct srv s;
    pthread_t th;
    int rc = 0;
    if (srv_start(&s, &th, pol, "series",
                  pip && !shared_futex ? DLG_REGION_LOCAL : 0) != 0) {
        munmap(S, sizeof(*S));
        return -1;
    }
    snprintf(S->spec, sizeof(S->spec), "%s",
             pip ? dlg_region_addr_spec(s.r) : dlg_region_spec(s.r));
    S->same_as = pip;
    S->reps = reps;
    S->base_iters = base_iters;
    S->policy = pol;
    S->nsizes = nsizes;
    for (int i = 0; i < nsizes; i++)
        S->sizes[i] = sizes[i];
    if (pip) {
#ifdef DLG_BENCH_PIP
        char addr[32];
        snprintf(addr, sizeof(addr), "%p", (void *)S);
        char *argv[] = {(char *)task_path, "bench", addr, "0", NULL};
        pip_spawn_program_t prog;
        pip_spawn_from_main(&prog, (char *)task_path, argv, NULL, NULL, NULL);
        int id = PIP_PIPID_ANY, st = -1;
        /* the task runs on a board CPU, as the client threads do */
        uint32_t core = layout.nboard > 0
                            ? PIP_CPUCORE_ABS | (uint32_t)layout.board[0]
                            : PIP_CPUCORE_ASIS;
        rc = pip_task_spawn(&prog, core, 0, &id, NULL);
        if (!rc)
            rc = pip_wait(id, &st);
        if (rc || !WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr,
                    "dlg_bench: PiP task: spawn/wait %d status %#x %s\n", rc,
                    st, S->msg[0]);
            rc = -1;
        }
#else
        rc = -1;
#endif
    } else {
        pid_t pid = fork();
        if (pid == 0) {
            dlg_place_client(&layout, 0);
            dlg_region_t *r;
            dlg_client_t *c;
            dlg_client_attr_t ca = {.same_address_space = 0};
            int e = dlg_region_open(S->spec, &r);
            if (!e)
                e = dlg_client_attach(r, &ca, &c);
            if (!e)
                e = dlg_pip_sweep(c, S);
            if (!e)
                e = dlg_client_detach(c);
            _exit(e ? 1 : 0);
        }
        int st = -1;
        while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        rc = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
        if (rc)
            fprintf(stderr, "dlg_bench: client process failed (%#x)\n", st);
    }
    for (int i = 0; i < nsizes; i++)
        rt[i] = S->rt[i];
    srv_stop(&s, th);
    munmap(S, sizeof(*S));
    return rc;
}

/* Where dlg_pip_task is: -T, else ../tests/ next to this program. */
static const char *find_task(void)
{
    static char path[4096];
    if (task_path)
        return task_path;
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
    if (n <= 0)
        return NULL;
    path[n] = 0;
    char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    strcpy(slash + 1, "../tests/dlg_pip_task");
    return access(path, X_OK) == 0 ? path : NULL;
}

struct res {
    double rt8[4];   /* per policy: 8 B round trip */
    double idle[4];  /* idle delegatee CPU share */
    double busy[4];  /* its share under back-to-back 8 B requests */
    double rt[4][8]; /* per policy and size: threads, DLG_BUF_AUTO */
    double sock[8];  /* UNIX-socket RPC per size */
};

static const size_t sizes_full[] = {8, 64, 512, 4096, 32768, 262144, 1048576};
static const size_t sizes_quick[] = {8, 4096, 1048576};

static int run_policy(dlg_policy_t pol, struct res *R, double base_cl,
                      double base_fx)
{
    const size_t *sizes = quick ? sizes_quick : sizes_full;
    int nsizes = quick ? 3 : 7;
    struct srv s;
    pthread_t th;
    if (srv_start(&s, &th, pol, "bench", shared_futex ? 0 : DLG_REGION_LOCAL))
        return -1;
    dlg_client_t *c;
    dlg_client_attr_t ca = {.same_address_space = 1};
    int rc = dlg_client_attach(s.r, &ca, &c);
    if (rc) {
        fprintf(stderr, "dlg_bench: attach: %s\n", dlg_strerror(rc));
        return -1;
    }
    uint8_t *buf = aligned_alloc(64, 1 << 20);
    memset(buf, 1, 1 << 20);
    const char *pn = dlg_policy_name(pol);
    double *v = calloc((size_t)reps, sizeof(double));
    for (int si = 0; si < nsizes; si++) {
        size_t n = sizes[si];
        /* Inline when it fits, else by reference; for big payloads also
         * the copying mode (process_vm_readv) for comparison. */
        dlg_bufmode_t modes[2] = {DLG_BUF_AUTO, DLG_BUF_XPROC};
        int nm = n > 256 ? 2 : 1;
        for (int mi = 0; mi < nm; mi++) {
            const char *mname = modes[mi] == DLG_BUF_XPROC ? "copy"
                                : n <= 256                 ? "inline"
                                                           : "zcopy";
            fprintf(stderr, "  %s %zu B %s: latency", pn, n, mname);
            for (int r = 0; r < reps; r++)
                v[r] = bench_rt(c, buf, n, modes[mi], iters_for(n));
            double lat = median(v, reps);
            if (lat < 0)
                return -1;
            if (n == 8)
                R->rt8[pol] = lat;
            if (mi == 0)
                R->rt[pol][si] = lat;
            const char *bn = pol == DLG_POLICY_BLOCK ? "futex-pp" : "cline-pp";
            double bv = pol == DLG_POLICY_BLOCK ? base_fx : base_cl;
            fprintf(stderr, ", throughput\n");
            out("latency", "round-trip", pn, mname, n, lat, "ns", bn, lat / bv);
            for (int r = 0; r < reps; r++)
                v[r] = bench_tput(c, buf, n, modes[mi], iters_for(n), 16);
            double tp = median(v, reps);
            out("throughput", "req/s(win16)", pn, mname, n, tp, "req/s", "-",
                0);
            out("throughput", "MB/s(win16)", pn, mname, n, tp * n / 1e6, "MB/s",
                "-", 0);
        }
    }
    /* Busy: the delegatee's CPU share while one client sends back-to-back
     * 8 B requests. */
    fprintf(stderr, "  %s busy delegatee CPU\n", pn);
    for (int r = 0; r < reps && r < 3; r++) {
        double c0 = thread_cpu_ns(th);
        uint64_t w0 = now_ns();
        if (bench_rt(c, buf, 8, DLG_BUF_AUTO, base_iters) < 0)
            return -1;
        v[r] = (thread_cpu_ns(th) - c0) / (double)(now_ns() - w0);
    }
    R->busy[pol] = median(v, reps < 3 ? reps : 3) * 100;
    out("busy", "delegatee-cpu", pn, "-", 8, R->busy[pol], "%core", "-", 0);
    /* Idle: the delegatee waits with one client attached and no request. */
    fprintf(stderr, "  %s idle delegatee CPU\n", pn);
    for (int r = 0; r < reps && r < 3; r++) {
        double c0 = thread_cpu_ns(th);
        uint64_t w0 = now_ns();
        usleep(300000);
        v[r] = (thread_cpu_ns(th) - c0) / (double)(now_ns() - w0);
    }
    R->idle[pol] = median(v, reps < 3 ? reps : 3) * 100;
    out("idle", "delegatee-cpu", pn, "-", 0, R->idle[pol], "%core", "-", 0);
    dlg_client_detach(c);
    srv_stop(&s, th);
    free(buf);
    free(v);
    return 0;
}

/*
 * The target ratios, measured in pairs: every repetition runs the two
 * ping-pongs and the three policies back to back (8 B, one delegatee whose
 * idle policy is switched), so that load from elsewhere on the machine hits
 * a baseline and its delegated counterpart alike; the ratios are the medians
 * of the per-repetition ratios.
 */
struct paired {
    double cl, fx, poll, block, adapt; /* medians, ns */
    double r_poll, r_block, r_adapt;   /* medians of ratios */
    /* against a UNIX-socket RPC in the same repetitions: 8 B per policy,
     * and 1 MiB (adaptive, zero copy) */
    double sock8, sock1m, zc1m;
    double rs_poll, rs_block, rs_adapt, rs_1m;
};

static int run_paired(struct paired *P)
{
    struct srv s;
    pthread_t th;
    if (srv_start(&s, &th, DLG_POLICY_BLOCK, "paired",
                  shared_futex ? 0 : DLG_REGION_LOCAL))
        return -1;
    dlg_client_t *c;
    dlg_client_attr_t ca = {.same_address_space = 1};
    if (dlg_client_attach(s.r, &ca, &c))
        return -1;
    uint8_t *buf = calloc(1, 1 << 20);
    double *v[16];
    for (int k = 0; k < 16; k++)
        v[k] = calloc((size_t)reps, sizeof(double));
    struct sock_conn sk;
    if (!buf || sock_open(&sk))
        return -1;
    int n = base_iters;
    for (int r = 0; r < reps; r++) {
        fprintf(stderr, "  paired repetition %d/%d\n", r + 1, reps);
        dlg_delegatee_set_idle(s.dg, DLG_POLICY_BLOCK);
        v[0][r] = bench_pingpong(0, n);
        v[1][r] = bench_pingpong(1, n / 4);
        dlg_call_t call = {.op = OP_SINK, .buf = buf, .len = 8};
        dlg_delegatee_set_idle(s.dg, DLG_POLICY_POLL);
        call.policy = DLG_POLICY_POLL;
        v[2][r] = bench_rt_call(c, &call, n);
        dlg_delegatee_set_idle(s.dg, DLG_POLICY_BLOCK);
        call.policy = DLG_POLICY_BLOCK;
        v[3][r] = bench_rt_call(c, &call, n / 4);
        dlg_delegatee_set_idle(s.dg, DLG_POLICY_ADAPTIVE);
        call.policy = DLG_POLICY_ADAPTIVE;
        v[4][r] = bench_rt_call(c, &call, n);
        if (v[2][r] < 0 || v[3][r] < 0 || v[4][r] < 0)
            return -1;
        v[5][r] = v[2][r] / v[0][r];
        v[6][r] = v[3][r] / v[1][r];
        v[7][r] = v[4][r] / v[2][r];
        /* the socket RPC, 8 B and 1 MiB, and the same 1 MiB delegated
         * (adaptive, by reference) */
        v[8][r] = sock_rt(&sk, 8, n / 4);
        v[9][r] = sock_rt(&sk, 1 << 20, 100);
        dlg_call_t big = {.op = OP_SINK,
                          .buf = buf,
                          .len = 1 << 20,
                          .policy = DLG_POLICY_ADAPTIVE};
        v[10][r] = bench_rt_call(c, &big, 100);
        if (v[8][r] < 0 || v[9][r] < 0 || v[10][r] < 0)
            return -1;
        v[11][r] = v[2][r] / v[8][r];
        v[12][r] = v[3][r] / v[8][r];
        v[13][r] = v[4][r] / v[8][r];
        v[14][r] = v[10][r] / v[9][r];
    }
    P->sock8 = median(v[8], reps);
    P->sock1m = median(v[9], reps);
    P->zc1m = median(v[10], reps);
    P->rs_poll = median(v[11], reps);
    P->rs_block = median(v[12], reps);
    P->rs_adapt = median(v[13], reps);
    P->rs_1m = median(v[14], reps);
    sock_close(&sk);
    free(buf);
    P->cl = median(v[0], reps);
    P->fx = median(v[1], reps);
    P->poll = median(v[2], reps);
    P->block = median(v[3], reps);
    P->adapt = median(v[4], reps);
    P->r_poll = median(v[5], reps);
    P->r_block = median(v[6], reps);
    P->r_adapt = median(v[7], reps);
    for (int k = 0; k < 16; k++)
        free(v[k]);
    dlg_client_detach(c);
    srv_stop(&s, th);
    return 0;
}

int main(int argc, char **argv)
{
    const char *csvpath = NULL;
    int opt;
    int only[4] = {0}, nonly = 0;
    while ((opt = getopt(argc, argv, "r:n:o:p:qtxT:")) != -1) {
        switch (opt) {
        case 'r':
            reps = atoi(optarg);
            break;
        case 'n':
            base_iters = atoi(optarg);
            break;
        case 'o':
            csvpath = optarg;
            break;
        case 'q':
            quick = 1;
            reps = 3;
            break;
        case 'x':
            shared_futex = 1;
            break;
        case 't':
            targets_only = 1;
            break;
        case 'T':
            task_path = optarg;
            break;
        case 'p': {
            int p = dlg_policy_parse(optarg);
            if (p < 0) {
                fprintf(stderr,
                        "dlg_bench: -p %s: expected poll, block or "
                        "adaptive\n",
                        optarg);
                return 2;
            }
            only[p] = 1;
            nonly++;
            break;
        }
        default:
            fprintf(stderr,
                    "usage: %s [-r REPS] [-n ITERS] [-o FILE.csv] "
                    "[-p POLICY] [-q] [-t] [-x] [-T dlg_pip_task]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > 1000 || base_iters < 100) {
        fprintf(stderr, "dlg_bench: -r must be 1..1000 and -n >= 100\n");
        return 2;
    }
    int rc = dlg_layout_get(&layout);
    if (rc) {
        fprintf(stderr, "dlg_bench: CPU layout: %s\n", dlg_strerror(rc));
        return 1;
    }
    if (csvpath && !(csv = fopen(csvpath, "w"))) {
        fprintf(stderr, "dlg_bench: %s: %s\n", csvpath, strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "section,name,policy,mode,bytes,value,unit,baseline,"
                     "ratio\n");
    scratch = malloc(1 << 20);
    printf("# host CPU %d, board CPU %d, %s futexes, spin bound %llu ns, "
           "%d repetitions (medians)\n",
           layout.host[0], layout.board[0],
           shared_futex ? "process-shared" : "process-private",
           (unsigned long long)dlg_spin_bound_ns(), reps);
    printf("%-10s %-22s %-9s %-7s %8s %14s %-6s %-12s %7s\n", "section", "name",
           "policy", "mode", "bytes", "value", "unit", "baseline", "ratio");
    /* This thread is the client (and the "ping" side of the baselines): it
     * runs on a board CPU, the other side on a host CPU. */
    dlg_place_client(&layout, 0);
    double v[1000];
    fprintf(stderr, "baselines: function call, cache-line ping-pong, futex "
                    "ping-pong\n");
    for (int r = 0; r < reps; r++)
        v[r] = bench_call(base_iters * 10);
    double b_call = median(v, reps);
    for (int r = 0; r < reps; r++)
        v[r] = bench_pingpong(0, base_iters);
    double b_cl = median(v, reps);
    for (int r = 0; r < reps; r++)
        v[r] = bench_pingpong(1, base_iters / 4);
    double b_fx = median(v, reps);
    out("baseline", "function-call", "-", "-", 8, b_call, "ns", "-", 1);
    out("baseline", "cline-pp", "-", "-", 8, b_cl, "ns", "-", 1);
    out("baseline", "futex-pp", "-", "-", 8, b_fx, "ns", "-", 1);

    struct res R = {0};
    const size_t *sizes = quick ? sizes_quick : sizes_full;
    int nsizes = quick ? 3 : 7;
    if (!targets_only) {
        fprintf(stderr, "baseline: UNIX-socket RPC\n");
        if (bench_socket(sizes, nsizes, R.sock)) {
            fprintf(stderr, "dlg_bench: socket baseline failed\n");
            return 1;
        }
        for (int si = 0; si < nsizes; si++)
            out("socket", "round-trip", "-", "unix", sizes[si], R.sock[si],
                "ns", "-", 1);
    }
    /* PiP: this program is the root, dlg_pip_task the client task */
    int have_pip = 0;
#ifdef DLG_BENCH_PIP
    if (!targets_only && (task_path = find_task()) != NULL) {
        int pipid, ntasks = 3;
        int e = pip_init(&pipid, &ntasks, NULL, 0);
        if (e)
            fprintf(stderr, "dlg_bench: pip_init: %s: no PiP series\n",
                    strerror(e));
        have_pip = e == 0;
    } else if (!targets_only) {
        fprintf(stderr, "dlg_bench: dlg_pip_task not found (-T): no PiP "
                        "series\n");
    }
#endif
    double pipv[4][8] = {{0}}, procv[4][8] = {{0}};
    dlg_policy_t pols[] = {DLG_POLICY_POLL, DLG_POLICY_BLOCK,
                           DLG_POLICY_ADAPTIVE};
    for (int i = 0; i < 3; i++) {
        if (targets_only || (nonly && !only[pols[i]]))
            continue;
        const char *pn = dlg_policy_name(pols[i]);
        fprintf(stderr, "policy %s\n", pn);
        if (run_policy(pols[i], &R, b_cl, b_fx)) {
            fprintf(stderr, "dlg_bench: run failed\n");
            return 1;
        }
        for (int si = 0; si < nsizes; si++)
            out("vs-socket", "round-trip(threads)", pn,
                sizes[si] <= 256 ? "inline" : "zcopy", sizes[si],
                R.rt[pols[i]][si], "ns", "unix-socket",
                R.rt[pols[i]][si] / R.sock[si]);
        if (have_pip) {
            fprintf(stderr, "  %s: PiP task client (one address space)\n", pn);
            if (run_series(1, pols[i], sizes, nsizes, pipv[pols[i]]))
                return 1;
            for (int si = 0; si < nsizes; si++)
                out("pip", "round-trip(PiP task)", pn,
                    sizes[si] <= 256 ? "inline" : "zcopy", sizes[si],
                    pipv[pols[i]][si], "ns", "unix-socket",
                    pipv[pols[i]][si] / R.sock[si]);
        }
        fprintf(stderr, "  %s: separate-process client\n", pn);
        if (run_series(0, pols[i], sizes, nsizes, procv[pols[i]]))
            return 1;
        for (int si = 0; si < nsizes; si++)
            out("process", "round-trip(process)", pn,
                sizes[si] <= 256 ? "inline" : "copy", sizes[si],
                procv[pols[i]][si], "ns", "unix-socket",
                procv[pols[i]][si] / R.sock[si]);
    }
    fprintf(stderr, "paired 8 B round trips (target ratios)\n");
    struct paired P;
    if (run_paired(&P)) {
        fprintf(stderr, "dlg_bench: paired run failed\n");
        return 1;
    }
    out("paired", "cline-pp", "-", "-", 8, P.cl, "ns", "-", 1);
    out("paired", "futex-pp", "-", "-", 8, P.fx, "ns", "-", 1);
    out("paired", "round-trip", "poll", "inline", 8, P.poll, "ns", "cline-pp",
        P.r_poll);
    out("paired", "round-trip", "block", "inline", 8, P.block, "ns", "futex-pp",
        P.r_block);
    out("paired", "round-trip", "adaptive", "inline", 8, P.adapt, "ns", "poll",
        P.r_adapt);
    out("paired", "unix-socket", "-", "unix", 8, P.sock8, "ns", "-", 1);
    out("paired", "unix-socket", "-", "unix", 1048576, P.sock1m, "ns", "-", 1);
    out("paired", "round-trip", "poll", "inline", 8, P.poll, "ns",
        "unix-socket", P.rs_poll);
    out("paired", "round-trip", "block", "inline", 8, P.block, "ns",
        "unix-socket", P.rs_block);
    out("paired", "round-trip", "adaptive", "inline", 8, P.adapt, "ns",
        "unix-socket", P.rs_adapt);
    out("paired", "round-trip", "adaptive", "zcopy", 1048576, P.zc1m, "ns",
        "unix-socket", P.rs_1m);
    double r_poll = P.r_poll, r_block = P.r_block, r_adapt = P.r_adapt;
    printf("\n# targets (8 B round trip; medians of per-repetition ratios, "
           "baseline and delegation measured back to back)\n");
    int has_poll = 1, has_block = 1;
    int has_adapt = 1,
        has_idle = !targets_only && (!nonly || only[DLG_POLICY_ADAPTIVE]);
    if (has_poll)
        printf("poll / cache-line ping-pong  = %5.2f  (target <= 3.0)  %s\n",
               r_poll, r_poll <= 3.0 ? "met" : "MISSED");
    if (has_block)
        printf("block / futex ping-pong      = %5.2f  (target <= 1.3)  %s\n",
               r_block, r_block <= 1.3 ? "met" : "MISSED");
    if (has_adapt && has_poll)
        printf("adaptive / poll              = %5.2f  (target <= 1.5)  %s\n",
               r_adapt, r_adapt <= 1.5 ? "met" : "MISSED");
    if (has_idle)
        printf("adaptive idle delegatee CPU  = %5.2f%% (target < 5%%)   %s\n",
               R.idle[DLG_POLICY_ADAPTIVE],
               R.idle[DLG_POLICY_ADAPTIVE] < 5 ? "met" : "MISSED");
    printf("plain function call          = %.1f ns (for scale)\n", b_call);
    printf("\n# delegation / UNIX-socket RPC, paired (medians of "
           "per-repetition ratios)\n");
    printf("poll 8 B / socket 8 B        = %5.3f\n", P.rs_poll);
    printf("block 8 B / socket 8 B       = %5.3f\n", P.rs_block);
    printf("adaptive 8 B / socket 8 B    = %5.3f\n", P.rs_adapt);
    printf("adaptive 1 MiB zero-copy / socket 1 MiB = %5.3f\n", P.rs_1m);
    if (!targets_only) {
        printf("\n# sweep: delegation round trip / UNIX-socket RPC round "
               "trip (medians of series run one after the other: noisy)\n");
        printf("%-9s %-9s %12s %12s\n", "policy", "client", "8 B", "1 MiB");
        for (int i = 0; i < 3; i++) {
            if (nonly && !only[pols[i]])
                continue;
            int p = pols[i], l = nsizes - 1;
            printf("%-9s %-9s %12.2f %12.2f\n", dlg_policy_name(pols[i]),
                   "thread", R.rt[p][0] / R.sock[0], R.rt[p][l] / R.sock[l]);
            if (have_pip)
                printf("%-9s %-9s %12.2f %12.2f\n", dlg_policy_name(pols[i]),
                       "PiP task", pipv[p][0] / R.sock[0],
                       pipv[p][l] / R.sock[l]);
            printf("%-9s %-9s %12.2f %12.2f\n", dlg_policy_name(pols[i]),
                   "process", procv[p][0] / R.sock[0], procv[p][l] / R.sock[l]);
        }
        printf("(socket RPC: %.0f ns at 8 B, %.0f ns at 1 MiB)\n", R.sock[0],
               R.sock[nsizes - 1]);
        printf("\n# delegatee CPU (%% of a core): idle / busy (back-to-back "
               "8 B requests)\n");
        for (int i = 0; i < 3; i++)
            if (!nonly || only[pols[i]])
                printf("%-9s %6.1f / %6.1f\n", dlg_policy_name(pols[i]),
                       R.idle[pols[i]], R.busy[pols[i]]);
    }
    if (csv) {
        if (has_poll)
            fprintf(csv, "target,poll/cline-pp,poll,-,8,%.3f,ratio,3.0,%.3f\n",
                    r_poll, r_poll);
        if (has_block)
            fprintf(csv,
                    "target,block/futex-pp,block,-,8,%.3f,ratio,1.3,%.3f\n",
                    r_block, r_block);
        if (has_adapt && has_poll)
            fprintf(csv,
                    "target,adaptive/poll,adaptive,-,8,%.3f,ratio,1.5,%.3f\n",
                    r_adapt, r_adapt);
        fclose(csv);
    }
    free(scratch);
    return 0;
}
