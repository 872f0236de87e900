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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "fta_fd.h"

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
        /* We did not run for a long time: we cannot tell who was silent. */
        if (t - last_loop > silence / 2)
            for (int p = 0; p < fd->size; p++)
                fd->last_seen[p] = t;
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
            if (t - fd->last_seen[p] > silence) {
                fta_fd_declare(fd, p);
                fd_broadcast(fd, FD_DEAD, (uint32_t)p);
            }
        }
        int wait_ms = (int)((next_hb - t) * 1000.0);
        int check_ms = (int)(fd->period * 250.0);
        if (wait_ms > check_ms)
            wait_ms = check_ms;
        struct pollfd pf = {fd->sock, POLLIN, 0};
        if (poll(&pf, 1, wait_ms < 1 ? 1 : wait_ms) <= 0)
            continue;
        fd_msg_t m;
        ssize_t n;
        while ((n = recv(fd->sock, &m, sizeof m, MSG_DONTWAIT)) > 0) {
            if (n != (ssize_t)sizeof m || m.magic != FD_MAGIC ||
                m.nonce != fd->nonce || m.src >= (uint32_t)fd->size ||
                (int)m.src == fd->rank || fd->dead[m.src])
                continue;
            fd->last_seen[m.src] = now_mono();
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
    int rc = -ENOMEM;
    if (!fd->peer || !fd->last_seen || !fd->detect_at || !fd->dead || !fd->gone)
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
    if (bind(fd->sock, (struct sockaddr *)&a, sizeof a) < 0) {
        rc = -errno;
        goto fail;
    }
    socklen_t len = sizeof a;
    if (getsockname(fd->sock, (struct sockaddr *)&a, &len) < 0) {
        rc = -errno;
        goto fail;
    }
    self->ip = a.sin_addr.s_addr;
    self->port = a.sin_port;
    self->pad = 0;
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
