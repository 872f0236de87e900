/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd.c: the failure detector (see fta_fd.h): ring observation,
 * notices over the binomial graph; the transports are in fta_fd_tx.c.
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
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "fta_fd.h"
#include "fta_fd_tx.h"
#include "fta_int.h"
#include "pvas_log.h"

#define FD_MAGIC 0xFAFD0002u
enum { FD_HB = 1, FD_DEAD = 2, FD_BYE = 3, FD_SYNC = 4 };
#define FD_LIST_MAX 200

typedef struct fd_msg {
    uint32_t magic, type, src, arg; /* DEAD: the rank; SYNC: 1 = answer */
    uint64_t nonce;
    uint32_t ndead, digest; /* the sender's failed set */
    uint32_t count, pad;    /* SYNC: entries of list */
    uint32_t list[FD_LIST_MAX];
} fd_msg_t;
#define FD_HDR offsetof(fd_msg_t, list)

struct fta_fd {
    fta_fd_cfg_t cfg;
    int rank, size, K;
    fd_tx_t *tx;
    double *last_seen; /* monotonic; observed ranks */
    double *sync_at;   /* last list exchange with a rank */
    _Atomic double *detect_at;
    _Atomic unsigned char *dead;
    unsigned char *gone;  /* left cleanly (detector thread) */
    unsigned char *known; /* dead, as the detector thread has absorbed */
    unsigned char *watch; /* observed now */
    uint32_t *order, norder;
    unsigned char **sent; /* per order entry: notice sent to rank */
    uint32_t *live, nlive;
    uint32_t bmg[2 * 33], nbmg;
    uint32_t *obs, nobs; /* my observers: heartbeats go there */
    uint32_t digest;
    int dirty;
    uint64_t absorbed_gen;
    _Atomic uint64_t gen;
    _Atomic int stop;
    pthread_t thr;
    int running;
    fta_fd_addr_t *addr;
    unsigned char *local;
    _Atomic uint64_t st_hb, st_notice, st_sync, st_other, st_periods;
};

static uint32_t mix32(uint32_t x)
{
    x = (x + 1) * 0x9e3779b1u;
    x ^= x >> 15;
    x *= 0x85ebca77u;
    x ^= x >> 13;
    return x;
}

/* ------------------------------------------------------------------ */
/* Local liveness (/proc)                                              */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* The detector                                                        */
/* ------------------------------------------------------------------ */

void fta_fd_declare(fta_fd_t *fd, int rank)
{
    if (rank < 0 || rank >= fd->size || rank == fd->rank)
        return;
    unsigned char was = atomic_exchange(&fd->dead[rank], 1);
    if (was)
        return;
    fd->detect_at[rank] = fd_now_real();
    atomic_fetch_add(&fd->gen, 1);
}

/* Fill in the header (our failed set's size and digest), count, send. */
static void fd_send(fta_fd_t *fd, int to, fd_msg_t *m)
{
    size_t len = FD_HDR + (m->type == FD_SYNC ? m->count * 4u : 0);
    m->magic = FD_MAGIC;
    m->src = (uint32_t)fd->rank;
    m->nonce = fd->cfg.nonce;
    m->ndead = fd->norder;
    m->digest = fd->digest;
    switch (m->type) {
    case FD_HB:
        fd->st_hb++;
        break;
    case FD_DEAD:
        fd->st_notice++;
        break;
    case FD_SYNC:
        fd->st_sync++;
        break;
    default:
        fd->st_other++;
        break;
    }
    fd_tx_send(fd->tx, to, m, len);
}

static void send_type(fta_fd_t *fd, int to, uint32_t type, uint32_t arg)
{
    fd_msg_t m;
    memset(&m, 0, FD_HDR);
    m.type = type;
    m.arg = arg;
    fd_send(fd, to, &m);
}

/* Our failed set to `to`, in as many messages as it takes; answer: ask
 * for the receiver's list in return. */
static void send_sync(fta_fd_t *fd, int to, int answer)
{
    uint32_t i = 0;
    do {
        fd_msg_t m;
        memset(&m, 0, FD_HDR);
        m.type = FD_SYNC;
        m.arg = (uint32_t)answer;
        while (i < fd->norder && m.count < FD_LIST_MAX)
            m.list[m.count++] = fd->order[i++];
        fd_send(fd, to, &m);
    } while (i < fd->norder);
}

static void learn(fta_fd_t *fd, uint32_t r)
{
    if (r == (uint32_t)fd->rank) {
        /* Declared dead by the others: stop for real, so that nobody
         * ever hears from a "dead" process. */
        _exit(99);
    }
    if (r < (uint32_t)fd->size)
        fta_fd_declare(fd, (int)r);
}

static void absorb(fta_fd_t *fd);

/* The transport's receiver (fd_rx_fn). */
static int take_msg(void *ctx, const void *buf, size_t len, double at)
{
    fta_fd_t *fd = ctx;
    fd_msg_t m0;
    const fd_msg_t *m = &m0;
    if (len > sizeof m0)
        return 0;
    memcpy(&m0, buf, len);
    if (len < FD_HDR || m->magic != FD_MAGIC || m->nonce != fd->cfg.nonce ||
        m->src >= (uint32_t)fd->size || (int)m->src == fd->rank ||
        fd->dead[m->src])
        return 0;
    if (m->type == FD_SYNC &&
        (m->count > FD_LIST_MAX || len < FD_HDR + m->count * 4u))
        return 0;
    uint32_t src = m->src;
    if (at > fd->last_seen[src])
        fd->last_seen[src] = at;
    switch (m->type) {
    case FD_BYE:
        if (!fd->gone[src]) {
            fd->gone[src] = 1;
            fd->dirty = 1;
        }
        break;
    case FD_DEAD:
        learn(fd, m->arg);
        break;
    case FD_SYNC:
        for (uint32_t i = 0; i < m->count; i++)
            learn(fd, m->list[i]);
        break;
    default:
        break;
    }
    absorb(fd);
    /* Failed sets differ: exchange lists (at most once a period per
     * peer).  A notice lost on the way is repaired this way. */
    if (m->type != FD_BYE &&
        (m->ndead != fd->norder || m->digest != fd->digest)) {
        double t = fd_now_mono();
        int answer = m->type == FD_SYNC && m->arg == 1;
        if (answer || t - fd->sync_at[src] >= fd->cfg.period) {
            fd->sync_at[src] = t;
            /* whatever we just learnt is in our list once absorbed: the
             * peer learns the rest from its own forwarding */
            send_sync(fd, (int)src, m->type != FD_SYNC);
        }
    }
    return 1;
}

/* Take in failures declared since the last look (by this thread, the
 * messages, or the MPI layer). */
static void absorb(fta_fd_t *fd)
{
    uint64_t g = atomic_load(&fd->gen);
    if (g == fd->absorbed_gen)
        return;
    fd->absorbed_gen = g;
    for (int p = 0; p < fd->size; p++) {
        if (!fd->dead[p] || fd->known[p])
            continue;
        fd->known[p] = 1;
        unsigned char *s = calloc((size_t)fd->size, 1);
        if (!s)
            continue; /* not forwarded; the digests repair it */
        fd->sent[fd->norder] = s;
        fd->order[fd->norder++] = (uint32_t)p;
        fd->digest += mix32((uint32_t)p);
        fd->dirty = 1;
        fd_tx_forget(fd->tx, &fd->addr[p]);
        pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_DEBUG,
                 "detector of rank %d: rank %d failed", fd->rank, p);
    }
}

static void adopt(fta_fd_t *fd, uint32_t p, double t)
{
    if (fd->watch[p]) {
        fd->watch[p] = 2; /* observed before: keep its last heartbeat */
        return;
    }
    fd->watch[p] = 2;
    fd->last_seen[p] = t; /* newly observed: a fresh grace period */
    if (fd->local[p] && proc_state(&fd->addr[p]) == PROC_GONE) {
        pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                 "detector of rank %d: adopted rank %d (pid %d) is gone: "
                 "declared dead",
                 fd->rank, (int)p, (int)fd->addr[p].pid);
        fta_fd_declare(fd, (int)p);
    }
}

/* The ring and the graph over the live ranks, after a change. */
static void rebuild(fta_fd_t *fd, double t)
{
    uint32_t me = 0;
    fd->nlive = 0;
    for (int p = 0; p < fd->size; p++) {
        if (p == fd->rank)
            me = fd->nlive;
        if (p == fd->rank || (!fd->known[p] && !fd->gone[p]))
            fd->live[fd->nlive++] = (uint32_t)p;
    }
    uint32_t n = fd->nlive;
    uint32_t k = (uint32_t)fd->K < n - 1 ? (uint32_t)fd->K : n - 1;
    fd->nobs = 0;
    for (uint32_t i = 1; i <= k; i++)
        fd->obs[fd->nobs++] = fd->live[(me + n - i) % n];
    for (int p = 0; p < fd->size; p++)
        if (fd->watch[p])
            fd->watch[p] = 1;
    for (uint32_t i = 1; i <= k; i++)
        adopt(fd, fd->live[(me + i) % n], t);
    /* an observed rank that left the set is no longer watched */
    for (int p = 0; p < fd->size; p++)
        fd->watch[p] = fd->watch[p] == 2;
    uint32_t idx[2 * 33];
    fd->nbmg = fta_bmg_targets(n, me, idx, 2 * 33);
    for (uint32_t i = 0; i < fd->nbmg; i++)
        fd->bmg[i] = fd->live[idx[i]];
}

/* Reliable broadcast of every known failure over the binomial graph:
 * each notice once to each current neighbour. */
static void flood(fta_fd_t *fd)
{
    for (uint32_t i = 0; i < fd->norder; i++)
        for (uint32_t j = 0; j < fd->nbmg; j++) {
            uint32_t b = fd->bmg[j];
            if (fd->sent[i][b] || fd->known[b])
                continue;
            fd->sent[i][b] = 1;
            send_type(fd, (int)b, FD_DEAD, fd->order[i]);
        }
}

static void settle(fta_fd_t *fd, double t)
{
    for (int round = 0; round < 8; round++) {
        absorb(fd);
        if (!fd->dirty)
            break;
        fd->dirty = 0;
        rebuild(fd, t);
        flood(fd);
    }
}

static void *fd_thread(void *arg)
{
    fta_fd_t *fd = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    double t = fd_now_mono(), last_loop = t, next_hb = t;
    double silence = fd->cfg.timeout - fd->cfg.period;
    fd->dirty = 1;
    settle(fd, t);
    while (!fd->stop) {
        t = fd_now_mono();
        /* Messages that arrived meanwhile count (at their arrival time)
         * before anybody is judged.  When this thread did not run for a
         * while (the loop wakes every quarter period at most) and nobody
         * was heard in that time, the whole machine may have stood still
         * (or datagrams were lost): then the stall is not counted as the
         * observed ranks' silence. */
        double gap = t - last_loop;
        int heard = fd_tx_drain(fd->tx, last_loop, take_msg, fd);
        settle(fd, t);
        if (gap > fd->cfg.period) {
            pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                     "detector of rank %d stalled %.3f s, %s", fd->rank, gap,
                     heard > 0 ? "peers heard meanwhile"
                               : "nobody heard: stall not counted");
            if (heard <= 0)
                for (int p = 0; p < fd->size; p++)
                    if (fd->watch[p] && (fd->last_seen[p] += gap) > t)
                        fd->last_seen[p] = t;
        }
        last_loop = t;
        if (t >= next_hb) {
            for (uint32_t i = 0; i < fd->nobs; i++)
                send_type(fd, (int)fd->obs[i], FD_HB, 0);
            fd->st_periods++;
            next_hb += fd->cfg.period;
            if (next_hb < t)
                next_hb = t + fd->cfg.period;
        }
        for (int p = 0; p < fd->size; p++) {
            if (!fd->watch[p] || fd->known[p] || fd->gone[p] || fd->dead[p])
                continue;
            double quiet = t - fd->last_seen[p];
            int vanished = 0;
            if (fd->local[p] && quiet > 2 * fd->cfg.period &&
                proc_state(&fd->addr[p]) == PROC_GONE) {
                vanished = 1;
                pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                         "detector of rank %d: rank %d (pid %d) "
                         "silent %.3f s and gone: declared dead",
                         fd->rank, p, (int)fd->addr[p].pid, quiet);
            }
            if (vanished || quiet > silence) {
                if (!vanished)
                    pvas_log(PVAS_LOG_FTAGREE, PVAS_LOG_INFO,
                             "detector of rank %d: rank %d silent "
                             "%.3f s: declared dead",
                             fd->rank, p, quiet);
                fta_fd_declare(fd, p);
            }
        }
        settle(fd, t);
        int wait_ms = (int)((next_hb - fd_now_mono()) * 1000.0);
        int check_ms = (int)(fd->cfg.period * 250.0);
        if (wait_ms > check_ms)
            wait_ms = check_ms;
        fd_tx_wait(fd->tx, wait_ms);
    }
    return NULL;
}

int fta_fd_create(const fta_fd_cfg_t *cfg, fta_fd_t **out, fta_fd_addr_t *self,
                  char *why, size_t whylen)
{
    why[0] = 0;
    if (cfg->rank < 0 || cfg->rank >= cfg->size || cfg->period <= 0 ||
        cfg->timeout <= cfg->period || cfg->observers < 1 ||
        cfg->observers > 1024) {
        snprintf(why, whylen, "bad detector settings");
        return -EINVAL;
    }
    fta_fd_t *fd = calloc(1, sizeof *fd);
    if (!fd)
        return -ENOMEM;
    size_t n = (size_t)cfg->size;
    fd->cfg = *cfg;
    fd->rank = cfg->rank;
    fd->size = cfg->size;
    fd->K = cfg->observers;
    fd->last_seen = calloc(n, sizeof *fd->last_seen);
    fd->sync_at = calloc(n, sizeof *fd->sync_at);
    fd->detect_at = calloc(n, sizeof *fd->detect_at);
    fd->dead = calloc(n, sizeof *fd->dead);
    fd->gone = calloc(n, 1);
    fd->known = calloc(n, 1);
    fd->watch = calloc(n, 1);
    fd->order = calloc(n, sizeof *fd->order);
    fd->sent = calloc(n, sizeof *fd->sent);
    fd->live = calloc(n, sizeof *fd->live);
    fd->obs = calloc((size_t)cfg->observers, sizeof *fd->obs);
    fd->addr = calloc(n, sizeof *fd->addr);
    fd->local = calloc(n, 1);
    int rc = -ENOMEM;
    if (!fd->last_seen || !fd->sync_at || !fd->detect_at || !fd->dead ||
        !fd->gone || !fd->known || !fd->watch || !fd->order || !fd->sent ||
        !fd->live || !fd->obs || !fd->addr || !fd->local) {
        snprintf(why, whylen, "out of memory");
        goto fail;
    }
    memset(self, 0, sizeof *self);
    rc = fd_tx_open(cfg->transport, cfg->size, cfg->period, cfg->udp_addr, self,
                    &fd->tx, why, whylen);
    if (rc < 0)
        goto fail;
    self->pid = (int32_t)getpid();
    char st;
    if (cfg->use_proc && proc_read(self->pid, &st, &self->start) == PROC_ALIVE)
        self->host = host_key();
    *out = fd;
    return 0;
fail:
    fta_fd_stop(fd, 0);
    return rc;
}

int fta_fd_start(fta_fd_t *fd, const fta_fd_addr_t *peers)
{
    int rc = fd_tx_connect(fd->tx, peers);
    if (rc < 0)
        return rc;
    for (int p = 0; p < fd->size; p++) {
        fd->addr[p] = peers[p];
        /* every peer is alive now: one that /proc does not show as such
         * (another PID namespace, hidden /proc) is left to the heartbeats */
        fd->local[p] = p != fd->rank && peers[p].host != 0 &&
                       peers[p].host == peers[fd->rank].host &&
                       proc_state(&peers[p]) == PROC_ALIVE;
    }
    rc = pthread_create(&fd->thr, NULL, fd_thread, fd);
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
    if (say_bye && fd->running && fd->live) {
        /* both ring neighbours on each side: the observers stop
         * watching us, the observed ranks send to the next observer */
        uint32_t me = 0, n = fd->nlive;
        for (uint32_t i = 0; i < n; i++)
            if (fd->live[i] == (uint32_t)fd->rank)
                me = i;
        uint32_t k = (uint32_t)fd->K < n - 1 ? (uint32_t)fd->K : n - 1;
        int reps = fd_tx_reliable(fd->tx) ? 1 : 3;
        for (int r = 0; r < reps; r++)
            for (uint32_t i = 1; i <= k; i++) {
                send_type(fd, (int)fd->live[(me + n - i) % n], FD_BYE, 0);
                if (fd->live[(me + i) % n] != fd->live[(me + n - i) % n])
                    send_type(fd, (int)fd->live[(me + i) % n], FD_BYE, 0);
            }
        /* let the goodbyes leave before the endpoint closes */
        fd_tx_flush(fd->tx);
    }
    fd_tx_close(fd->tx);
    for (uint32_t i = 0; fd->sent && i < fd->norder; i++)
        free(fd->sent[i]);
    free(fd->sent);
    free(fd->last_seen);
    free(fd->sync_at);
    free((void *)fd->detect_at);
    free((void *)fd->dead);
    free(fd->gone);
    free(fd->known);
    free(fd->watch);
    free(fd->order);
    free(fd->live);
    free(fd->obs);
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

void fta_fd_get_stats(const fta_fd_t *fd, fta_fd_stats_t *st)
{
    st->hb_sent = fd->st_hb;
    st->notice_sent = fd->st_notice;
    st->sync_sent = fd->st_sync;
    st->other_sent = fd->st_other;
    st->periods = fd->st_periods;
}

const char *fta_fd_transport_name(const fta_fd_t *fd)
{
    return fd_tx_name(fd->tx);
}
