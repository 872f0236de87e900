/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_init.c: the entry points of the MPI layer: the interposed MPI_Init*
 * (settings, the failure detector's start, the world's registration) and
 * MPI_Finalize (a fault-tolerant barrier, then the way out).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fta_mpi_int.h"
#include "mpix_ft.h"
#include "pvas_log.h"
#include "pvas_env.h"

/* The first bad FTA_* setting of this rank: fta_setup prints it on the
 * lowest rank that has one and ends the job (one line, not one per rank). */
static char env_msg[400];

static void env_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void env_bad(const char *fmt, ...)
{
    if (env_msg[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(env_msg, sizeof env_msg, fmt, ap);
    va_end(ap);
}

#define FTA_ENV_CLASS " (MPI_ERR_ARG: MPI_Init ends the job with status 2)"

static long env_long(const char *name, long dflt, long min, long max)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max) {
        env_bad("ft-agree: %s='%s' must be an integer %ld..%ld" FTA_ENV_CLASS,
                name, s, min, max);
        return dflt;
    }
    return v;
}

/* An on/off variable (common/pvas_env.h): unset, empty, 0 or 1. */
static void env_flag(const char *name)
{
    int on;
    if (pvas_env_bool(name, 0, 0, &on) < 0)
        env_bad("ft-agree: %s='%s' must be %s" FTA_ENV_CLASS, name,
                getenv(name), pvas_env_bool_expected(0));
}

/* All ranks learn whether one had a bad setting; the lowest such rank
 * prints its line, then every rank finalizes and exits with status 2. */
static void env_verdict(void)
{
    int mine = env_msg[0] ? fta_rt.world_rank : INT_MAX, first = INT_MAX;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == INT_MAX)
        return;
    if (first == fta_rt.world_rank)
        fprintf(stderr, "%s\n", env_msg);
    PMPI_Finalize();
    exit(2);
}

/* The PMI-1 connection hydra gave this process (PMI_FD), or -1. */
static int pmi_fd = -1;

/*
 * A process that leaves without PMPI_Finalize still says goodbye to its
 * hydra proxy (PMI-1 "finalize").  Without it the proxy sees the PMI
 * connection close and records an exit status of 1 for the process as a
 * placeholder; when it had already reaped the process (a process that
 * exits right after closing races with the proxy's waitpid) that 1 stays,
 * and mpiexec, which ORs the ranks' wait statuses, reports a successful job
 * as "TERMINATED WITH THE EXIT STRING: Hangup (signal 1)".  The close
 * also makes the proxy send SIGUSR1 to the ranks still running.  With the
 * finalize the proxy forgets the connection first.
 */
static void pmi_leave(void)
{
    if (pmi_fd < 0)
        return;
    static const char cmd[] = "cmd=finalize\n";
    size_t off = 0;
    while (off < sizeof cmd - 1) {
        ssize_t n = write(pmi_fd, cmd + off, sizeof cmd - 1 - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        off += (size_t)n;
    }
    /* the answer (cmd=finalize_ack), at most 5 s: never a hang */
    char buf[128];
    size_t got = 0;
    for (int waits = 0; waits < 50 && got < sizeof buf - 1;) {
        struct pollfd pf = {pmi_fd, POLLIN, 0};
        int r = poll(&pf, 1, 100);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            waits++;
            continue;
        }
        ssize_t n = read(pmi_fd, buf + got, sizeof buf - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        if (memchr(buf, '\n', got))
            break;
    }
    buf[got] = 0;
    if (strncmp(buf, "cmd=finalize_ack", 16) != 0)
        fta_log("PMI finalize: no acknowledgement from the process manager");
    pmi_fd = -1;
}

static void on_usr1(int sig)
{
    (void)sig; /* hydra tells survivors about a failure; we know already */
}

static int fta_setup(void)
{
    MPI_Comm w = MPI_COMM_WORLD;
    PMPI_Comm_rank(w, &fta_rt.world_rank);
    pvas_log_set_rank(fta_rt.world_rank);
    PMPI_Comm_size(w, &fta_rt.world_size);
    env_flag("FTA_LOG");     /* checked here, read by pvas_log */
    env_flag("FTA_FD_PROC"); /* checked here, read by the detector */
    const char *bad_log = pvas_log_env_error();
    if (bad_log != NULL)
        env_bad("ft-agree: %s" FTA_ENV_CLASS, bad_log);
    fta_rt.arity = (uint32_t)env_long("FTA_ARITY", 4, 2, 1024);
    fta_rt.fault_send = env_long("FTA_FAULT_SEND", 0, 0, 1000000000);
    fta_rt.fast_max = (int)env_long("FTA_FAST_MAX", 8, 0, 1024);
    long period = env_long("FTA_FD_PERIOD_MS", 100, 1, 60000);
    long timeout = env_long("FTA_FD_TIMEOUT_MS", 2000, 2, 3600000);
    if (timeout <= period)
        env_bad("ft-agree: FTA_FD_TIMEOUT_MS='%ld' must exceed "
                "FTA_FD_PERIOD_MS='%ld'" FTA_ENV_CLASS,
                timeout, period);
    const char *ip = getenv("FTA_FD_ADDR");
    struct in_addr in;
    if (ip && *ip && inet_pton(AF_INET, ip, &in) != 1)
        env_bad("ft-agree: FTA_FD_ADDR='%s' must be an IPv4 "
                "address" FTA_ENV_CLASS,
                ip);
    int use_proc = (int)env_long("FTA_FD_PROC", 1, 0, 1);
    int observers = (int)env_long("FTA_FD_OBSERVERS", 1, 1, 1024);
    const char *tr = getenv("FTA_FD_TRANSPORT");
    int transport = fta_fd_have_fabric() ? FTA_FD_FABRIC : FTA_FD_UDP;
    int forced = tr && *tr;
    if (forced && !strcmp(tr, "udp"))
        transport = FTA_FD_UDP;
    else if (forced && !strcmp(tr, "fabric") && fta_fd_have_fabric())
        transport = FTA_FD_FABRIC;
    else if (forced && !strcmp(tr, "fabric"))
        env_bad(
            "ft-agree: FTA_FD_TRANSPORT='fabric': this build has no "
            "libfabric transport (configure found no libfabric)" FTA_ENV_CLASS);
    else if (forced)
        env_bad("ft-agree: FTA_FD_TRANSPORT='%s' must be fabric or "
                "udp" FTA_ENV_CLASS,
                tr);
    env_verdict();
    /* hydra's PMI-1 connection (see pmi_leave); not with PMI_PORT */
    const char *pf = getenv("PMI_FD");
    if (pf && *pf && !getenv("PMI_PORT")) {
        char *end;
        long v = strtol(pf, &end, 10);
        if (!*end && v >= 0 && v < INT_MAX)
            pmi_fd = (int)v;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    fta_rt.world_dead = calloc((size_t)fta_rt.world_size, sizeof(int));
    if (!fta_rt.world_dead)
        return MPI_ERR_NO_MEM;
    PMPI_Comm_dup(w, &fta_rt.ctl);
    PMPI_Comm_set_errhandler(fta_rt.ctl, MPI_ERRORS_RETURN);
    /* Connect every pair while everybody is alive. */
    int n = fta_rt.world_size;
    int *sb = calloc((size_t)n, sizeof(int)),
        *rb = calloc((size_t)n, sizeof(int));
    if (!sb || !rb) {
        free(sb);
        free(rb);
        return MPI_ERR_NO_MEM;
    }
    PMPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, fta_rt.ctl);
    free(sb);
    free(rb);
    uint64_t nonce = 0;
    if (fta_rt.world_rank == 0)
        nonce = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
    PMPI_Bcast(&nonce, 1, MPI_UINT64_T, 0, fta_rt.ctl);
    fta_fd_addr_t self, *all = calloc((size_t)n, sizeof *all);
    if (!all)
        return MPI_ERR_NO_MEM;
    fta_fd_cfg_t fc_cfg = {fta_rt.world_rank,
                           n,
                           nonce,
                           period / 1000.0,
                           timeout / 1000.0,
                           observers,
                           transport,
                           use_proc,
                           ip};
    char why[300];
    int rc;
    for (;;) {
        rc = fta_fd_create(&fc_cfg, &fta_rt.fd, &self, why, sizeof why);
        /* every rank must use the same transport: agree whether all
         * opened it */
        int mine = rc < 0 ? fta_rt.world_rank : INT_MAX, first = INT_MAX;
        PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, fta_rt.ctl);
        if (first == INT_MAX)
            break;
        if (rc == 0)
            fta_fd_stop(fta_rt.fd, 0);
        fta_rt.fd = NULL;
        if (fc_cfg.transport == FTA_FD_FABRIC && !forced) {
            if (first == fta_rt.world_rank)
                fta_log("failure detector: %s; using UDP", why);
            fc_cfg.transport = FTA_FD_UDP;
            continue;
        }
        if (first == fta_rt.world_rank)
            fprintf(stderr,
                    "ft-agree: failure detector: %s (MPI_ERR_OTHER: MPI_Init "
                    "ends the job with status 2)\n",
                    why);
        free(all);
        PMPI_Finalize();
        exit(2);
    }
    PMPI_Allgather(&self, sizeof self, MPI_BYTE, all, sizeof self, MPI_BYTE,
                   fta_rt.ctl);
    rc = fta_fd_start(fta_rt.fd, all);
    free(all);
    if (rc < 0)
        return MPI_ERR_OTHER;
    ftcomm_t *fc;
    if (fta_comm_register(MPI_COMM_WORLD, 1, &fc) < 0)
        return MPI_ERR_NO_MEM;
    fta_rt.up = 1;
    PMPI_Barrier(fta_rt.ctl);
    fta_log("up: %d ranks, detector over %s, %d observer(s), heartbeat %ld "
            "ms, timeout %ld ms",
            n, fta_fd_transport_name(fta_rt.fd), observers, period, timeout);
    return MPI_SUCCESS;
}

FTA_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    return rc == MPI_SUCCESS ? fta_setup() : rc;
}

FTA_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                               int *provided)
{
    if (required > MPI_THREAD_SERIALIZED)
        required = MPI_THREAD_SERIALIZED;
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    return rc == MPI_SUCCESS ? fta_setup() : rc;
}

FTA_EXPORT int MPI_Finalize(void)
{
    if (!fta_rt.up)
        return PMPI_Finalize();
    /* Everybody alive reaches this point before anybody leaves: a
     * fault-tolerant barrier over the world. */
    ftcomm_t *w = fta_comm_find(MPI_COMM_WORLD);
    /* The barrier also agrees whether any rank gave up a request
     * (fta_abandon): its traffic is left over in MPI (a collective some
     * members never joined, a message nobody receives), which
     * PMPI_Finalize would wait for or report. */
    int flag = fta_rt.abandoned == 0;
    fta_decision_t d;
    if (w) {
        (void)fta_agree_blocking(w, &flag, &d);
        fta_decision_release(&d);
    }
    /* Let our last messages (decisions for the others) leave. */
    for (int i = 0; fta_sends_pending() && i < 100000; i++) {
        fta_progress();
        sched_yield();
    }
    /* any_failure: this rank's detector declared a failure, or a decision
     * (this barrier's included) named one: the decided failed set is the
     * same everywhere, so every survivor skips PMPI_Finalize, whose PMI
     * barrier would wait for the dead. */
    int failed = fta_rt.any_failure || !flag || fta_rt.abandoned;
    fta_fd_stop(fta_rt.fd, 1);
    fta_rt.fd = NULL;
    fta_rt.up = 0;
    while (fta_rt.comms)
        fta_comm_unregister(fta_rt.comms->comm);
    if (failed) {
        /* MPICH's finalisation would wait for the dead or for the
         * abandoned traffic: skip it. */
        fta_log("failures or abandoned requests: leaving without "
                "PMPI_Finalize");
        fflush(NULL);
        pmi_leave();
        return MPI_SUCCESS;
    }
    PMPI_Comm_free(&fta_rt.ctl);
    free(fta_rt.world_dead);
    fta_rt.world_dead = NULL;
    return PMPI_Finalize();
}
