/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_fd_tx.c: the failure detector's transports (fta_fd_tx.h).
 *
 * libfabric (FTA_HAVE_FABRIC): a reliable-datagram endpoint (FI_EP_RDM)
 * with FI_MSG, the provider libfabric ranks first for it, or the one
 * FI_PROVIDER names; small messages are injected, the completion queue is
 * waited on through its file descriptor where the provider offers one
 * (polled every period/20 otherwise).  UDP: plain datagram sockets,
 * messages counted from their arrival in the kernel (SO_TIMESTAMPNS),
 * drops noticed (SO_RXQ_OVFL).  Either way a dead peer costs nothing but
 * an error completion or a lost datagram; the addresses are exchanged by
 * the MPI layer at initialisation.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#ifdef FTA_HAVE_FABRIC
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#endif
#include "fta_fd_tx.h"

double fd_now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double fd_now_real(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#ifdef FTA_HAVE_FABRIC
enum { NRX = 32, NTX = 64 };
typedef struct fslot {
    struct fi_context2 ctx; /* first: op_context points here */
    int rx, busy, ready;    /* ready: received, not yet taken */
    size_t len;
    unsigned char buf[FD_MSG_MAX];
} fslot_t;
#endif
struct fd_tx {
    int kind, size;
    double period;
    fd_rx_fn fn; /* the receiver, during a drain */
    void *ctx;
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
};

int fta_fd_have_fabric(void)
{
#ifdef FTA_HAVE_FABRIC
    return 1;
#else
    return 0;
#endif
}

static int udp_open(fd_tx_t *t, const char *udp_addr, fta_fd_addr_t *self,
                    char *why, size_t wl)
{
    t->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (t->sock < 0) {
        snprintf(why, wl, "UDP socket: %s", strerror(errno));
        return -errno;
    }
    const char *ip = udp_addr && *udp_addr ? udp_addr : "127.0.0.1";
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

static int udp_connect(fd_tx_t *t, const fta_fd_addr_t *peers)
{
    t->peer = calloc((size_t)t->size, sizeof *t->peer);
    if (!t->peer)
        return -ENOMEM;
    for (int p = 0; p < t->size; p++) {
        if (peers[p].namelen != sizeof t->peer[p])
            return -EINVAL;
        memcpy(&t->peer[p], peers[p].name, sizeof t->peer[p]);
    }
    return 0;
}

#ifdef FTA_HAVE_FABRIC
static void fab_progress(fd_tx_t *t, int take, int *heard);

static int fab_open(fd_tx_t *t, fta_fd_addr_t *self, char *why, size_t wl)
{
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
    av.count = (size_t)t->size;
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

static int fab_connect(fd_tx_t *t, const fta_fd_addr_t *peers)
{
    t->fiaddr = calloc((size_t)t->size, sizeof *t->fiaddr);
    if (!t->fiaddr)
        return -ENOMEM;
    for (int p = 0; p < t->size; p++) {
        /* a name padded with zeros: providers read their address length */
        unsigned char name[512] = {0};
        memcpy(name, peers[p].name, peers[p].namelen);
        if (fi_av_insert(t->av, name, 1, &t->fiaddr[p], 0, NULL) != 1)
            return -EIO;
    }
    return 0;
}

static void fab_close(fd_tx_t *t)
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

static void fab_send(fd_tx_t *t, int to, const void *buf, size_t len)
{
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
        fab_progress(t, 0, NULL);
    }
}
#endif

void fd_tx_close(fd_tx_t *t)
{
    if (!t)
        return;
#ifdef FTA_HAVE_FABRIC
    if (t->kind == FTA_FD_FABRIC)
        fab_close(t);
#endif
    if (t->sock >= 0)
        close(t->sock);
    free(t->peer);
    free(t);
}

void fd_tx_send(fd_tx_t *t, int to, const void *buf, size_t len)
{
#ifdef FTA_HAVE_FABRIC
    if (t->kind == FTA_FD_FABRIC) {
        fab_send(t, to, buf, len);
        return;
    }
#endif
    (void)sendto(t->sock, buf, len, MSG_DONTWAIT,
                 (struct sockaddr *)&t->peer[to], sizeof t->peer[to]);
}

/* UDP: every datagram waiting, with its kernel arrival time. */
static int udp_drain(fd_tx_t *t, double since)
{
    int heard = 0, lost = 0;
    for (;;) {
        union {
            uint64_t align;
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
        ssize_t n = recvmsg(t->sock, &mh, MSG_DONTWAIT);
        if (n < 0)
            break;
        double at = fd_now_mono();
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
             c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level != SOL_SOCKET)
                continue;
            if (c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                double ago =
                    fd_now_real() - ((double)ts.tv_sec + ts.tv_nsec * 1e-9);
                if (ago > 0 && ago < 3600) /* ignore clock steps */
                    at -= ago;
            } else if (c->cmsg_type == SO_RXQ_OVFL) {
                uint32_t drops;
                memcpy(&drops, CMSG_DATA(c), sizeof drops);
                if (drops != t->drops) {
                    t->drops = drops;
                    lost = 1;
                }
            }
        }
        int h = t->fn(t->ctx, &u, (size_t)n, at);
        if (h && at > since)
            heard++;
    }
    return lost ? -1 : heard;
}

#ifdef FTA_HAVE_FABRIC
static void fab_repost(fd_tx_t *t, fslot_t *s)
{
    s->ready = 0;
    (void)fi_recv(t->ep, s->buf, FD_MSG_MAX, NULL, FI_ADDR_UNSPEC, &s->ctx);
}

/* Completions: received messages go to the receiver when take is set,
 * else they wait in their buffer for the next drain (fab_send makes
 * progress from inside the receiver); finished sends free their slot. */
static void fab_progress(fd_tx_t *t, int take, int *heard)
{
    if (take)
        for (int k = 0; k < NRX; k++)
            if (t->rx[k].ready) {
                *heard +=
                    t->fn(t->ctx, t->rx[k].buf, t->rx[k].len, fd_now_mono());
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
        double at = fd_now_mono();
        for (ssize_t k = 0; k < n; k++) {
            fslot_t *s = (fslot_t *)e[k].op_context;
            if (!s)
                continue;
            if (!s->rx) {
                s->busy = 0;
            } else if (take) {
                *heard += t->fn(t->ctx, s->buf, e[k].len, at);
                fab_repost(t, s);
            } else {
                s->ready = 1;
                s->len = e[k].len;
            }
        }
    }
}
#endif

/* Everything that arrived, each message to fn; returns how many came
 * from live peers after `since`, or -1 when the transport dropped some. */
int fd_tx_drain(fd_tx_t *t, double since, fd_rx_fn fn, void *ctx)
{
    t->fn = fn;
    t->ctx = ctx;
#ifdef FTA_HAVE_FABRIC
    if (t->kind == FTA_FD_FABRIC) {
        int heard = 0;
        (void)since;
        fab_progress(t, 1, &heard);
        return heard;
    }
#endif
    return udp_drain(t, since);
}

/* Sleep until something may have arrived, at most ms. */
void fd_tx_wait(fd_tx_t *t, int ms)
{
    if (ms < 1)
        ms = 1;
#ifdef FTA_HAVE_FABRIC
    if (t->kind == FTA_FD_FABRIC) {
        if (t->waitfd >= 0) {
            struct fid *f = &t->cq->fid;
            if (fi_trywait(t->fab, &f, 1) == FI_SUCCESS) {
                struct pollfd pf = {t->waitfd, POLLIN, 0};
                (void)poll(&pf, 1, ms);
            }
            return;
        }
        int step = (int)(t->period * 50.0); /* period / 20 */
        if (step < 1)
            step = 1;
        struct timespec ts = {0, (long)(ms < step ? ms : step) * 1000000L};
        nanosleep(&ts, NULL);
        return;
    }
#endif
    struct pollfd pf = {t->sock, POLLIN, 0};
    (void)poll(&pf, 1, ms);
}

/* A dead peer's leftovers: the shm provider's region of a killed process
 * stays in /dev/shm (its name is the address); remove it. */
void fd_tx_forget(fd_tx_t *t, const fta_fd_addr_t *a)
{
#ifdef FTA_HAVE_FABRIC
    if (t->kind != FTA_FD_FABRIC || !a->namelen ||
        strcmp(t->info->fabric_attr->prov_name, "shm") != 0)
        return;
    char name[FTA_FD_NAME_MAX + 2] = "/";
    const char *s = (const char *)a->name, *base = s;
    size_t n = strnlen(s, a->namelen);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/')
            base = s + i + 1;
    size_t bl = n - (size_t)(base - s);
    if (bl == 0 || bl > FTA_FD_NAME_MAX)
        return;
    memcpy(name + 1, base, bl);
    name[bl + 1] = 0;
    (void)shm_unlink(name);
#else
    (void)t;
    (void)a;
#endif
}

int fd_tx_open(int kind, int size, double period, const char *udp_addr,
               fta_fd_addr_t *self, fd_tx_t **out, char *why, size_t wl)
{
    fd_tx_t *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(why, wl, "out of memory");
        return -ENOMEM;
    }
    t->kind = kind;
    t->size = size;
    t->period = period;
    t->sock = -1;
    int rc;
#ifdef FTA_HAVE_FABRIC
    if (kind == FTA_FD_FABRIC)
        rc = fab_open(t, self, why, wl);
    else
#endif
        if (kind == FTA_FD_UDP)
        rc = udp_open(t, udp_addr, self, why, wl);
    else {
        snprintf(why, wl, "libfabric transport not built");
        rc = -ENOTSUP;
    }
    if (rc < 0) {
        fd_tx_close(t);
        return rc;
    }
    *out = t;
    return 0;
}

int fd_tx_connect(fd_tx_t *t, const fta_fd_addr_t *peers)
{
#ifdef FTA_HAVE_FABRIC
    if (t->kind == FTA_FD_FABRIC)
        return fab_connect(t, peers);
#endif
    return udp_connect(t, peers);
}

/* Let the sends in progress leave (before the endpoint closes). */
void fd_tx_flush(fd_tx_t *t)
{
#ifdef FTA_HAVE_FABRIC
    if (t->kind != FTA_FD_FABRIC)
        return;
    for (int i = 0; i < 100; i++) {
        int busy = 0;
        fab_progress(t, 0, NULL);
        for (int k = 0; k < NTX; k++)
            busy |= t->tx[k].busy;
        if (!busy && i >= 10)
            break;
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
#else
    (void)t;
#endif
}

const char *fd_tx_name(const fd_tx_t *t)
{
    return t->name;
}

int fd_tx_reliable(const fd_tx_t *t)
{
    return t->kind == FTA_FD_FABRIC;
}
