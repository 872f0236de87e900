/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd.c: the failure detector (see fta_fd.h): ring observation,
 * notices over the binomial graph, over libfabric or UDP.
 *
 * Transports.  libfabric (FTA_HAVE_FABRIC): a reliable-datagram endpoint
 * (FI_EP_RDM) with FI_MSG, the provider libfabric ranks first for it, or
 * the one FI_PROVIDER names; small messages are injected, the completion
 * queue is waited on through its file descriptor where the provider offers
 * one (polled every period/20 otherwise).  UDP: plain datagram sockets,
 * heartbeats counted from their arrival in the kernel (SO_TIMESTAMPNS) and
 * drops noticed (SO_RXQ_OVFL).  Either way a dead peer costs nothing but
 * an error completion or a lost datagram, and addresses are exchanged by
 * the MPI layer at initialisation.
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
#include <sys/mman.h>
#include <sys/stat.h>
#ifdef FTA_HAVE_FABRIC
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#endif
#include "fta_fd.h"
#include "fta_int.h"
#include "pvas_log.h"

#define FD_MAGIC 0xFAFD0002u
enum { FD_HB = 1, FD_DEAD = 2, FD_BYE = 3, FD_SYNC = 4 };
#define FD_LIST_MAX 200
#define FD_MSG_MAX  1024

typedef struct fd_msg {
    uint32_t magic, type, src, arg; /* DEAD: the rank; SYNC: 1 = answer */
    uint64_t nonce;
    uint32_t ndead, digest; /* the sender's failed set */
    uint32_t count, pad;    /* SYNC: entries of list */
    uint32_t list[FD_LIST_MAX];
} fd_msg_t;
#define FD_HDR offsetof(fd_msg_t, list)

#ifdef FTA_HAVE_FABRIC
enum { NRX = 32, NTX = 64 };
typedef struct fslot {
    struct fi_context2 ctx; /* first: op_context points here */
    int rx, busy, ready;    /* ready: received, not yet taken */
    size_t len;
    unsigned char buf[FD_MSG_MAX];
} fslot_t;
#endif

typedef struct tx {
    int kind;
    char name[80];
    /* UDP */
    int sock;
    struct sockaddr_in *peer;
    uint32_t drops;
#ifdef FTA_HAVE_FABRIC
    struct fi_info *info;
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    fi_addr_t *fiaddr;
    int waitfd; /* -1: poll the queue */
    size_t inject;
    fslot_t *rx, *tx;
#endif
} tx_t;

struct fta_fd {
    fta_fd_cfg_t cfg;
    int rank, size, K;
    tx_t tx;
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

static uint32_t mix32(uint32_t x)
{
    x = (x + 1) * 0x9e3779b1u;
    x ^= x >> 15;
    x *= 0x85ebca77u;
    x ^= x >> 13;
    return x;
}

/* ------------------------------------------------------------------ */
/* Transports                                                          */
/* ------------------------------------------------------------------ */

int fta_fd_have_fabric(void)
{
#ifdef FTA_HAVE_FABRIC
    return 1;
#else
    return 0;
#endif
}

static int udp_open(fta_fd_t *fd, fta_fd_addr_t *self, char *why, size_t wl)
{
    tx_t *t = &fd->tx;
    t->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (t->sock < 0) {
        snprintf(why, wl, "UDP socket: %s", strerror(errno));
        return -errno;
    }
    const char *ip =
        fd->cfg.udp_addr && *fd->cfg.udp_addr ? fd->cfg.udp_addr : "127.0.0.1";
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
        snprintf(why, wl, "FTA_FD_ADDR='%s' is not an IPv4 address", ip);
        return -EINVAL;
    }
    int on = 1;
    socklen_t len = sizeof a;
    if (setsockopt(t->sock, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0 ||
        setsockopt(t->sock, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof on) < 0 ||
        bind(t->sock, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(t->sock, (struct sockaddr *)&a, &len) < 0) {
        int e = errno;
        snprintf(why, wl, "UDP socket on %s: %s", ip, strerror(e));
        return -e;
    }
    memcpy(self->name, &a, sizeof a);
    self->namelen = sizeof a;
    snprintf(t->name, sizeof t->name, "udp");
    return 0;
}

static int udp_connect(fta_fd_t *fd, const fta_fd_addr_t *peers)
{
    tx_t *t = &fd->tx;
    t->peer = calloc((size_t)fd->size, sizeof *t->peer);
    if (!t->peer)
        return -ENOMEM;
    for (int p = 0; p < fd->size; p++) {
        if (peers[p].namelen != sizeof t->peer[p])
            return -EINVAL;
        memcpy(&t->peer[p], peers[p].name, sizeof t->peer[p]);
    }
    return 0;
}

#ifdef FTA_HAVE_FABRIC
static void fab_progress(fta_fd_t *fd, int take, int *heard);

static int fab_open(fta_fd_t *fd, fta_fd_addr_t *self, char *why, size_t wl)
{
    tx_t *t = &fd->tx;
    struct fi_info *h = fi_allocinfo();
    int rc;
    if (!h)
        return -ENOMEM;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_MSG;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->mr_mode = 0;
    h->tx_attr->msg_order = 0;
    rc = fi_getinfo(FI_VERSION(1, 5), NULL, NULL, 0, h, &t->info);
    fi_freeinfo(h);
    if (rc) {
        const char *pv = getenv("FI_PROVIDER");
        snprintf(why, wl,
                 "no libfabric provider with FI_EP_RDM and FI_MSG%s%s%s: %s",
                 pv ? " (FI_PROVIDER='" : "", pv ? pv : "", pv ? "')" : "",
                 fi_strerror(-rc));
        t->info = NULL;
        return -ENODEV;
    }
    struct fi_info *i = t->info;
    snprintf(t->name, sizeof t->name, "fabric:%s", i->fabric_attr->prov_name);
    const char *step = "fabric";
    if ((rc = fi_fabric(i->fabric_attr, &t->fab, NULL)))
        goto fail;
    step = "domain";
    if ((rc = fi_domain(t->fab, i, &t->dom, NULL)))
        goto fail;
    struct fi_av_attr av = {0};
    av.type = FI_AV_TABLE;
    av.count = (size_t)fd->size;
    step = "address vector";
    if ((rc = fi_av_open(t->dom, &av, &t->av, NULL)))
        goto fail;
    struct fi_cq_attr cq = {0};
    cq.format = FI_CQ_FORMAT_MSG;
    cq.size = NRX + NTX + 64;
    cq.wait_obj = FI_WAIT_FD;
    t->waitfd = -1;
    if (fi_cq_open(t->dom, &cq, &t->cq, NULL) == 0) {
        if (fi_control(&t->cq->fid, FI_GETWAIT, &t->waitfd) != 0)
            t->waitfd = -1;
    } else {
        cq.wait_obj = FI_WAIT_NONE;
        step = "completion queue";
        if ((rc = fi_cq_open(t->dom, &cq, &t->cq, NULL)))
            goto fail;
    }
    step = "endpoint";
    if ((rc = fi_endpoint(t->dom, i, &t->ep, NULL)))
        goto fail;
    step = "endpoint binding";
    if ((rc = fi_ep_bind(t->ep, &t->av->fid, 0)) ||
        (rc = fi_ep_bind(t->ep, &t->cq->fid, FI_TRANSMIT | FI_RECV)))
        goto fail;
    step = "endpoint enable";
    if ((rc = fi_enable(t->ep)))
        goto fail;
    size_t len = sizeof self->name;
    step = "address";
    if ((rc = fi_getname(&t->ep->fid, self->name, &len)))
        goto fail;
    self->namelen = (uint32_t)len;
    t->inject = i->tx_attr->inject_size;
    t->rx = calloc(NRX, sizeof *t->rx);
    t->tx = calloc(NTX, sizeof *t->tx);
    if (!t->rx || !t->tx)
        return -ENOMEM;
    step = "receive";
    for (int k = 0; k < NRX; k++) {
        t->rx[k].rx = 1;
        if ((rc = (int)fi_recv(t->ep, t->rx[k].buf, FD_MSG_MAX, NULL,
                               FI_ADDR_UNSPEC, &t->rx[k].ctx)))
            goto fail;
    }
    return 0;
fail:
    snprintf(why, wl, "libfabric provider %s: %s: %s",
             i->fabric_attr->prov_name, step, fi_strerror(rc < 0 ? -rc : rc));
    return -EIO;
}

static int fab_connect(fta_fd_t *fd, const fta_fd_addr_t *peers)
{
    tx_t *t = &fd->tx;
    t->fiaddr = calloc((size_t)fd->size, sizeof *t->fiaddr);
    if (!t->fiaddr)
        return -ENOMEM;
    for (int p = 0; p < fd->size; p++) {
        /* a name padded with zeros: providers read their address length */
        unsigned char name[512] = {0};
        memcpy(name, peers[p].name, peers[p].namelen);
        if (fi_av_insert(t->av, name, 1, &t->fiaddr[p], 0, NULL) != 1)
            return -EIO;
    }
    return 0;
}

static void fab_close(tx_t *t)
{
    if (t->ep)
        fi_close(&t->ep->fid);
    if (t->cq)
        fi_close(&t->cq->fid);
    if (t->av)
        fi_close(&t->av->fid);
    if (t->dom)
        fi_close(&t->dom->fid);
    if (t->fab)
        fi_close(&t->fab->fid);
    if (t->info)
        fi_freeinfo(t->info);
    free(t->fiaddr);
    free(t->rx);
    free(t->tx);
}

static void fab_send(fta_fd_t *fd, int to, const void *buf, size_t len)
{
    tx_t *t = &fd->tx;
    for (int tries = 0; tries < 4; tries++) {
        ssize_t rc;
        if (len <= t->inject) {
            rc = fi_inject(t->ep, buf, len, t->fiaddr[to]);
        } else {
            fslot_t *s = NULL;
            for (int k = 0; k < NTX && !s; k++)
                if (!t->tx[k].busy)
                    s = &t->tx[k];
            if (!s) {
                rc = -FI_EAGAIN;
            } else {
                memcpy(s->buf, buf, len);
                rc = fi_send(t->ep, s->buf, len, NULL, t->fiaddr[to], &s->ctx);
                if (rc == 0)
                    s->busy = 1;
            }
        }
        if (rc != -FI_EAGAIN)
            return; /* sent, or an error: lost like a datagram */
        fab_progress(fd, 0, NULL);
    }
}
#endif

static void tx_close(fta_fd_t *fd)
{
    tx_t *t = &fd->tx;
#ifdef FTA_HAVE_FABRIC
    if (t->kind == FTA_FD_FABRIC)
        fab_close(t);
#endif
    if (t->sock >= 0)
        close(t->sock);
    free(t->peer);
}

static void tx_send(fta_fd_t *fd, int to, fd_msg_t *m)
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
#ifdef FTA_HAVE_FABRIC
    if (fd->tx.kind == FTA_FD_FABRIC) {
        fab_send(fd, to, m, len);
        return;
    }
#endif
    (void)sendto(fd->tx.sock, m, len, MSG_DONTWAIT,
                 (struct sockaddr *)&fd->tx.peer[to], sizeof fd->tx.peer[to]);
}

static int take_msg(fta_fd_t *fd, const void *buf, size_t len, double at,
                    int *heard);
static void absorb(fta_fd_t *fd);

/* UDP: every datagram waiting, with its kernel arrival time. */
static int udp_drain(fta_fd_t *fd, double since)
{
    int heard = 0, lost = 0;
    for (;;) {
        union {
            fd_msg_t m;
            unsigned char raw[FD_MSG_MAX];
        } u;
        union {
            char buf[CMSG_SPACE(sizeof(struct timespec)) +
                     CMSG_SPACE(sizeof(uint32_t))];
            struct cmsghdr align;
        } cb;
        struct iovec iov = {&u, sizeof u};
        struct msghdr mh = {0};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cb.buf;
        mh.msg_controllen = sizeof cb.buf;
        ssize_t n = recvmsg(fd->tx.sock, &mh, MSG_DONTWAIT);
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
                if (drops != fd->tx.drops) {
                    fd->tx.drops = drops;
                    lost = 1;
                }
            }
        }
        int h = 0;
        take_msg(fd, &u, (size_t)n, at, &h);
        if (h && at > since)
            heard++;
    }
    return lost ? -1 : heard;
}

#ifdef FTA_HAVE_FABRIC
static void fab_repost(tx_t *t, fslot_t *s)
{
    s->ready = 0;
    (void)fi_recv(t->ep, s->buf, FD_MSG_MAX, NULL, FI_ADDR_UNSPEC, &s->ctx);
}

/* Completions: received messages go to take_msg when take is set, else
 * they wait in their buffer for the next drain (fab_send makes progress
 * from inside take_msg); finished sends free their slot. */
static void fab_progress(fta_fd_t *fd, int take, int *heard)
{
    tx_t *t = &fd->tx;
    if (take)
        for (int k = 0; k < NRX; k++)
            if (t->rx[k].ready) {
                int h = 0;
                take_msg(fd, t->rx[k].buf, t->rx[k].len, now_mono(), &h);
                *heard += h;
                fab_repost(t, &t->rx[k]);
            }
    for (;;) {
        struct fi_cq_msg_entry e[16];
        ssize_t n = fi_cq_read(t->cq, e, 16);
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            if (fi_cq_readerr(t->cq, &err, 0) > 0 && err.op_context) {
                fslot_t *s = (fslot_t *)err.op_context;
                if (s->rx)
                    fab_repost(t, s);
                else
                    s->busy = 0;
            }
            continue;
        }
        if (n <= 0)
            return;
        double at = now_mono();
        for (ssize_t k = 0; k < n; k++) {
            fslot_t *s = (fslot_t *)e[k].op_context;
            if (!s)
                continue;
            if (!s->rx) {
                s->busy = 0;
            } else if (take) {
                int h = 0;
                take_msg(fd, s->buf, e[k].len, at, &h);
                *heard += h;
                fab_repost(t, s);
            } else {
                s->ready = 1;
                s->len = e[k].len;
            }
        }
    }
}
#endif

/* Everything that arrived; returns how many messages of live peers came,
 * or -1 when the transport dropped some. */
static int tx_drain(fta_fd_t *fd, double since)
{
#ifdef FTA_HAVE_FABRIC
    if (fd->tx.kind == FTA_FD_FABRIC) {
        int heard = 0;
        (void)since;
        fab_progress(fd, 1, &heard);
        return heard;
    }
#endif
    return udp_drain(fd, since);
}

/* Sleep until something may have arrived, at most ms. */
static void tx_wait(fta_fd_t *fd, int ms)
{
    if (ms < 1)
        ms = 1;
#ifdef FTA_HAVE_FABRIC
    tx_t *t = &fd->tx;
    if (t->kind == FTA_FD_FABRIC) {
        if (t->waitfd >= 0) {
            struct fid *f = &t->cq->fid;
            if (fi_trywait(t->fab, &f, 1) == FI_SUCCESS) {
                struct pollfd pf = {t->waitfd, POLLIN, 0};
                (void)poll(&pf, 1, ms);
            }
            return;
        }
        int step = (int)(fd->cfg.period * 50.0); /* period / 20 */
        if (step < 1)
            step = 1;
        struct timespec ts = {0, (long)(ms < step ? ms : step) * 1000000L};
        nanosleep(&ts, NULL);
        return;
    }
#endif
    struct pollfd pf = {fd->tx.sock, POLLIN, 0};
    (void)poll(&pf, 1, ms);
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
    fd->detect_at[rank] = now_real();
    atomic_fetch_add(&fd->gen, 1);
}

static void send_type(fta_fd_t *fd, int to, uint32_t type, uint32_t arg)
{
    fd_msg_t m;
    memset(&m, 0, FD_HDR);
    m.type = type;
    m.arg = arg;
    tx_send(fd, to, &m);
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
        tx_send(fd, to, &m);
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

static int take_msg(fta_fd_t *fd, const void *buf, size_t len, double at,
                    int *heard)
{
    const fd_msg_t *m = buf;
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
    *heard = 1;
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
        double t = now_mono();
        int answer = m->type == FD_SYNC && m->arg == 1;
        if (answer || t - fd->sync_at[src] >= fd->cfg.period) {
            fd->sync_at[src] = t;
            /* whatever we just learnt is in our list once absorbed: the
             * peer learns the rest from its own forwarding */
            send_sync(fd, (int)src, m->type != FD_SYNC);
        }
    }
    return 0;
}

/* A dead peer's leftovers: the shm provider's region of a killed process
 * stays in /dev/shm (its name is the address); remove it. */
static void tx_forget(fta_fd_t *fd, int p)
{
#ifdef FTA_HAVE_FABRIC
    tx_t *t = &fd->tx;
    if (t->kind != FTA_FD_FABRIC || !fd->addr[p].namelen ||
        strcmp(t->info->fabric_attr->prov_name, "shm") != 0)
        return;
    char name[FTA_FD_NAME_MAX + 2] = "/";
    const unsigned char *a = fd->addr[p].name;
    size_t n = strnlen((const char *)a, fd->addr[p].namelen);
    const char *base = (const char *)a;
    const char *slash = NULL;
    for (size_t i = 0; i < n; i++)
        if (a[i] == '/')
            slash = (const char *)a + i;
    if (slash)
        base = slash + 1;
    size_t bl = n - (size_t)(base - (const char *)a);
    if (bl == 0 || bl > FTA_FD_NAME_MAX)
        return;
    memcpy(name + 1, base, bl);
    name[bl + 1] = 0;
    (void)shm_unlink(name);
#else
    (void)fd;
    (void)p;
#endif
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
        tx_forget(fd, p);
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
    double t = now_mono(), last_loop = t, next_hb = t;
    double silence = fd->cfg.timeout - fd->cfg.period;
    fd->dirty = 1;
    settle(fd, t);
    while (!fd->stop) {
        t = now_mono();
        /* Messages that arrived meanwhile count (at their arrival time)
         * before anybody is judged.  When this thread did not run for a
         * while (the loop wakes every quarter period at most) and nobody
         * was heard in that time, the whole machine may have stood still
         * (or datagrams were lost): then the stall is not counted as the
         * observed ranks' silence. */
        double gap = t - last_loop;
        int heard = tx_drain(fd, last_loop);
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
        int wait_ms = (int)((next_hb - now_mono()) * 1000.0);
        int check_ms = (int)(fd->cfg.period * 250.0);
        if (wait_ms > check_ms)
            wait_ms = check_ms;
        tx_wait(fd, wait_ms);
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
    fd->tx.sock = -1;
    fd->tx.kind = cfg->transport;
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
#ifdef FTA_HAVE_FABRIC
    if (cfg->transport == FTA_FD_FABRIC)
        rc = fab_open(fd, self, why, whylen);
    else
#endif
        if (cfg->transport == FTA_FD_UDP)
        rc = udp_open(fd, self, why, whylen);
    else {
        snprintf(why, whylen, "libfabric transport not built");
        rc = -ENOTSUP;
    }
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
    int rc;
#ifdef FTA_HAVE_FABRIC
    if (fd->tx.kind == FTA_FD_FABRIC)
        rc = fab_connect(fd, peers);
    else
#endif
        rc = udp_connect(fd, peers);
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
        int reps = fd->tx.kind == FTA_FD_UDP ? 3 : 1;
        for (int r = 0; r < reps; r++)
            for (uint32_t i = 1; i <= k; i++) {
                send_type(fd, (int)fd->live[(me + n - i) % n], FD_BYE, 0);
                if (fd->live[(me + i) % n] != fd->live[(me + n - i) % n])
                    send_type(fd, (int)fd->live[(me + i) % n], FD_BYE, 0);
            }
#ifdef FTA_HAVE_FABRIC
        if (fd->tx.kind == FTA_FD_FABRIC) {
            /* let the goodbyes leave before the endpoint closes */
            for (int i = 0; i < 100; i++) {
                int busy = 0;
                fab_progress(fd, 0, NULL);
                for (int k2 = 0; k2 < NTX; k2++)
                    busy |= fd->tx.tx[k2].busy;
                if (!busy && i >= 10)
                    break;
                struct timespec ts = {0, 1000000L};
                nanosleep(&ts, NULL);
            }
        }
#endif
    }
    tx_close(fd);
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
    return fd->tx.name;
}
