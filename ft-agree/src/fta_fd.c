/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd.c: heartbeat failure detector over UDP (see fta_fd.h).
 *
 * Transport choice: plain UDP sockets.  Heartbeats are tiny, loss-tolerant
 * and connectionless, so a dead peer costs nothing (no connection to tear
 * down, no blocking send), and the detector needs no fabric provider.
 * Addresses are exchanged by the MPI layer at initialisation.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "fta_fd.h"
#include "pvas_log.h"
#include "pvas_env.h"

#define FD_MAGIC 0xFAFD0001u
enum { FD_HB = 1, FD_DEAD = 2, FD_BYE = 3 };

struct fta_fd {
    int rank, size, sock;
    uint64_t nonce;
    double period, timeout;
    struct sockaddr_in *peer;
    double *last_seen;         /* monotonic */
    _Atomic double *detect_at; /* realtime */
    _Atomic unsigned char *dead;
    unsigned char *gone; /* left cleanly */
    _Atomic uint64_t gen;
    _Atomic int stop;
    pthread_t thr;
    int running;
    uint32_t drops;       /* datagrams the socket dropped (SO_RXQ_OVFL) */
    fta_fd_addr_t *addr;  /* the peers' addresses, pids, start times */
    unsigned char *local; /* peer on this host, /proc usable for it */
};

typedef struct fd_msg {
    uint32_t magic, type, src, arg;
    uint64_t nonce;
} fd_msg_t;

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fd_send(fta_fd_t *fd, int to, uint32_t type, uint32_t arg)
{
    fd_msg_t m = {FD_MAGIC, type, (uint32_t)fd->rank, arg, fd->nonce};
    (void)sendto(fd->sock, &m, sizeof m, MSG_DONTWAIT,
                 (struct sockaddr *)&fd->peer[to], sizeof fd->peer[to]);
}

static void fd_broadcast(fta_fd_t *fd, uint32_t type, uint32_t arg)
{
    for (int p = 0; p < fd->size; p++)
        if (p != fd->rank && !fd->dead[p] && !fd->gone[p])
            fd_send(fd, p, type, arg);
}

void fta_fd_declare(fta_fd_t *fd, int rank)
{
    if (rank < 0 || rank >= fd->size || rank == fd->rank)
        return;
    unsigned char was = atomic_exchange(&fd->dead[rank], 1);
    if (was)
        return;
    fd->detect_at[rank] = now_real();
    atomic_fetch_add(&fd->gen, 1);
}

/*
 * Receive every datagram waiting on the socket.  A heartbeat counts from
 * the time the kernel received it (SO_TIMESTAMPNS), not from the time this
 * thread got round to reading it.  Returns how many datagrams of live
 * peers arrived after `since` (monotonic), or -1 when the socket dropped
 * datagrams (SO_RXQ_OVFL) since the previous drain.
 */
static int fd_drain(fta_fd_t *fd, double since)
{
    int heard = 0, lost = 0;
    for (;;) {
        fd_msg_t m;
        union {
            char buf[CMSG_SPACE(sizeof(struct timespec)) +
                     CMSG_SPACE(sizeof(uint32_t))];
            struct cmsghdr align;
        } cb;
        struct iovec iov = {&m, sizeof m};
        struct msghdr mh = {0};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cb.buf;
        mh.msg_controllen = sizeof cb.buf;
        ssize_t n = recvmsg(fd->sock, &mh, MSG_DONTWAIT);
        if (n < 0)
            break;
        double at = now_mono();
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
             c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level != SOL_SOCKET)
                continue;
            if (c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                double ago =
                    now_real() - ((double)ts.tv_sec + ts.tv_nsec * 1e-9);
                if (ago > 0 && ago < 3600) /* ignore clock steps */
                    at -= ago;
            } else if (c->cmsg_type == SO_RXQ_OVFL) {
                uint32_t drops;
                memcpy(&drops, CMSG_DATA(c), sizeof drops);
                if (drops != fd->drops) {
                    fd->drops = drops;
                    lost = 1;
                }
            }
        }
        if (n != (ssize_t)sizeof m || m.magic != FD_MAGIC ||
            m.nonce != fd->nonce || m.src >= (uint32_t)fd->size ||
            (int)m.src == fd->rank || fd->dead[m.src])
            continue;
        if (at > fd->last_seen[m.src])
            fd->last_seen[m.src] = at;
        if (at > since)
            heard++;
        if (m.type == FD_BYE) {
            fd->gone[m.src] = 1;
        } else if (m.type == FD_DEAD && m.arg < (uint32_t)fd->size) {
            if ((int)m.arg == fd->rank) {
                /* Declared dead by the others: stop for real, so that
                 * nobody ever hears from a "dead" process. */
                _exit(99);
            }
            if (!fd->dead[m.arg]) {
                fta_fd_declare(fd, (int)m.arg);
                fd_broadcast(fd, FD_DEAD, m.arg);
            }
        }
    }
    return lost ? -1 : heard;
}

/*
 * Local liveness.  A peer in the same boot and PID namespace (the usual
 * case: the ranks of a node) that missed two heartbeats is looked up in
 * /proc: no such process, a zombie, or a different process under the same
 * pid (another start time) means it is dead, without waiting for the
 * timeout.  Anything else (it exists, or /proc cannot tell) leaves the
 * decision to the heartbeats.
 */
enum { PROC_ALIVE, PROC_GONE, PROC_UNKNOWN };

static int proc_read(int32_t pid, char *st, uint64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT || errno == ESRCH ? PROC_GONE : PROC_UNKNOWN;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command name may hold anything */
    if (!p || p[1] != ' ' || !p[2])
        return PROC_UNKNOWN;
    *st = p[2];
    /* field 22 (starttime); p + 2 is field 3 (state) */
    p += 2;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p)
            return PROC_UNKNOWN;
        p++;
    }
    *start = strtoull(p, NULL, 10);
    return PROC_ALIVE;
}

static int proc_state(const fta_fd_addr_t *a)
{
    char st = 0;
    uint64_t start = 0;
    int r = proc_read(a->pid, &st, &start);
    if (r != PROC_ALIVE)
        return r;
    if (st == 'Z' || st == 'X' || start != a->start)
        return PROC_GONE;
    return PROC_ALIVE;
}

static uint64_t host_key(void)
{
    char id[64] = {0};
    struct stat ns;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return 0;
    size_t n = fread(id, 1, sizeof id - 1, f);
    fclose(f);
    if (n == 0 || stat("/proc/self/ns/pid", &ns) != 0)
        return 0;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)id[i]) * 1099511628211ull;
    h = (h ^ (uint64_t)ns.st_ino) * 1099511628211ull;
    h = (h ^ (uint64_t)ns.st_dev) * 1099511628211ull;
    return h ? h : 1;
}

static int proc_wanted(void)
{
    int on; /* a bad value ended the job in MPI_Init */
    (void)pvas_env_bool("FTA_FD_PROC", 1, 0, &on);
    return on;
}

static void *fd_thread(void *arg)
{
    fta_fd_t *fd = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    double t = now_mono(), last_loop = t, next_hb = t;
    double silence = fd->timeout - fd->period;
    for (int p = 0; p < fd->size; p++)
        fd->last_seen[p] = t;
    while (!fd->stop) {
        t = now_mono();
        /* Heartbeats that arrived meanwhile count (at their arrival time)
         * before anybody is judged.  When this thread did not run for a
         * while (the loop wakes every quarter period at most) and nobody
         * was heard in that time, the whole machine may have stood still
         * (or datagrams were lost): then the stall is not counted as
         * anybody's silence and every peer's last heartbeat moves forward
         * by it.  When some peer was heard, the machine ran and the others'
         * silence is real.  (Before, any stall of half the silence
         * restarted every peer's grace period: processes that died
         * together, whose teardown stalls the survivors, were then found a
         * whole timeout late.) */
        double gap = t - last_loop;
        int heard = fd_drain(fd, last_loop);
        if (gap > fd->period) {
            pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                     "detector of rank %d stalled %.3f s, %s", fd->rank, gap,
                     heard > 0 ? "peers heard meanwhile"
                               : "nobody heard: stall not counted");
            if (heard <= 0)
                for (int p = 0; p < fd->size; p++)
                    if ((fd->last_seen[p] += gap) > t)
                        fd->last_seen[p] = t;
        }
        last_loop = t;
        if (t >= next_hb) {
            fd_broadcast(fd, FD_HB, 0);
            next_hb += fd->period;
            if (next_hb < t)
                next_hb = t + fd->period;
        }
        for (int p = 0; p < fd->size; p++) {
            if (p == fd->rank || fd->dead[p] || fd->gone[p])
                continue;
            int vanished = 0;
            if (fd->local[p] && t - fd->last_seen[p] > 2 * fd->period &&
                proc_state(&fd->addr[p]) == PROC_GONE) {
                vanished = 1;
                pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                         "detector of rank %d: rank %d (pid %d) "
                         "silent %.3f s and gone: declared dead",
                         fd->rank, p, (int)fd->addr[p].pid,
                         t - fd->last_seen[p]);
            }
            if (vanished || t - fd->last_seen[p] > silence) {
                if (!vanished)
                    pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                             "detector of rank %d: rank %d silent "
                             "%.3f s: declared dead",
                             fd->rank, p, t - fd->last_seen[p]);
                fta_fd_declare(fd, p);
                fd_broadcast(fd, FD_DEAD, (uint32_t)p);
            }
        }
        int wait_ms = (int)((next_hb - t) * 1000.0);
        int check_ms = (int)(fd->period * 250.0);
        if (wait_ms > check_ms)
            wait_ms = check_ms;
        struct pollfd pf = {fd->sock, POLLIN, 0};
        if (poll(&pf, 1, wait_ms < 1 ? 1 : wait_ms) > 0)
            (void)fd_drain(fd, now_mono());
    }
    return NULL;
}

int fta_fd_create(int rank, int size, uint64_t nonce, double period_s,
                  double timeout_s, fta_fd_t **out, fta_fd_addr_t *self)
{
    if (rank < 0 || rank >= size || period_s <= 0 || timeout_s <= period_s)
        return -EINVAL;
    fta_fd_t *fd = calloc(1, sizeof *fd);
    if (!fd)
        return -ENOMEM;
    fd->rank = rank;
    fd->size = size;
    fd->nonce = nonce;
    fd->period = period_s;
    fd->timeout = timeout_s;
    fd->sock = -1;
    fd->peer = calloc((size_t)size, sizeof *fd->peer);
    fd->last_seen = calloc((size_t)size, sizeof *fd->last_seen);
    fd->detect_at = calloc((size_t)size, sizeof *fd->detect_at);
    fd->dead = calloc((size_t)size, sizeof *fd->dead);
    fd->gone = calloc((size_t)size, 1);
    fd->addr = calloc((size_t)size, sizeof *fd->addr);
    fd->local = calloc((size_t)size, 1);
    int rc = -ENOMEM;
    if (!fd->peer || !fd->last_seen || !fd->detect_at || !fd->dead ||
        !fd->gone || !fd->addr || !fd->local)
        goto fail;
    fd->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd->sock < 0) {
        rc = -errno;
        goto fail;
    }
    const char *ip = getenv("FTA_FD_ADDR");
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    if (!ip || !*ip)
        ip = "127.0.0.1";
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
        rc = -EINVAL;
        goto fail;
    }
    int on = 1;
    if (setsockopt(fd->sock, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0 ||
        setsockopt(fd->sock, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on) < 0) {
        rc = -errno;
        goto fail;
    }
    if (bind(fd->sock, (struct sockaddr *)&a, sizeof a) < 0) {
        rc = -errno;
        goto fail;
    }
    socklen_t len = sizeof a;
    if (getsockname(fd->sock, (struct sockaddr *)&a, &len) < 0) {
        rc = -errno;
        goto fail;
    }
    memset(self, 0, sizeof *self);
    self->ip = a.sin_addr.s_addr;
    self->port = a.sin_port;
    self->pid = (int32_t)getpid();
    char st;
    if (proc_wanted() && proc_read(self->pid, &st, &self->start) == PROC_ALIVE)
        self->host = host_key();
    *out = fd;
    return 0;
fail:
    fta_fd_stop(fd, 0);
    return rc;
}

int fta_fd_start(fta_fd_t *fd, const fta_fd_addr_t *peers)
{
    for (int p = 0; p < fd->size; p++) {
        fd->peer[p].sin_family = AF_INET;
        fd->peer[p].sin_addr.s_addr = peers[p].ip;
        fd->peer[p].sin_port = peers[p].port;
        fd->addr[p] = peers[p];
        /* every peer is alive now: one that /proc does not show as such
         * (another PID namespace, hidden /proc) is left to the heartbeats */
        fd->local[p] = p != fd->rank && peers[p].host != 0 &&
                       peers[p].host == peers[fd->rank].host &&
                       proc_state(&peers[p]) == PROC_ALIVE;
    }
    int rc = pthread_create(&fd->thr, NULL, fd_thread, fd);
    if (rc)
        return -rc;
    fd->running = 1;
    return 0;
}

void fta_fd_stop(fta_fd_t *fd, int say_bye)
{
    if (!fd)
        return;
    if (fd->running) {
        fd->stop = 1;
        pthread_join(fd->thr, NULL);
    }
    if (say_bye && fd->sock >= 0)
        for (int i = 0; i < 3; i++)
            fd_broadcast(fd, FD_BYE, 0);
    if (fd->sock >= 0)
        close(fd->sock);
    free(fd->peer);
    free(fd->last_seen);
    free((void *)fd->detect_at);
    free((void *)fd->dead);
    free(fd->gone);
    free(fd->addr);
    free(fd->local);
    free(fd);
}

uint64_t fta_fd_generation(const fta_fd_t *fd)
{
    return atomic_load(&((fta_fd_t *)fd)->gen);
}

int fta_fd_is_dead(const fta_fd_t *fd, int rank)
{
    return rank >= 0 && rank < fd->size && fd->dead[rank];
}

double fta_fd_detect_time(const fta_fd_t *fd, int rank)
{
    if (rank < 0 || rank >= fd->size)
        return 0;
    return fd->detect_at[rank];
}
