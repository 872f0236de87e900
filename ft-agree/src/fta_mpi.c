/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_mpi.c: the base of the MPI layer: the log, the registry of
 * fault-tolerant communicators and the transport of the protocol messages.
 * Below it are only the core and the failure detector: it calls no other
 * file of the layer.  MPI_Init and MPI_Finalize are in fta_init.c.
 *
 * Protocol messages travel over MPI itself (a private duplicate of
 * MPI_COMM_WORLD, one tag, small eager sends): under ch4:ucx the surviving
 * ranks keep exchanging messages after a rank is killed, and a send to a
 * dead rank completes locally.  Every pair of ranks exchanges one message
 * at initialisation (fta_init.c) so that no connection is first set up
 * with a process that is already dead.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <limits.h>
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

#define FTA_TAG 0x7A6E
#define HDR     8 /* communicator id */

fta_rt_t fta_rt = {0};

typedef struct osend {
    MPI_Request req;
    int dest;
    void *buf;
    struct osend *next;
} osend_t;

typedef struct pmsg {
    uint64_t id;
    int src;
    int len;
    struct pmsg *next;
    unsigned char buf[];
} pmsg_t;

static osend_t *sends;
static pmsg_t *parked; /* messages for communicators not created here yet */
static long nsends;

void fta_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(PVAS_LOG_FTAGREE, PVAS_LOG_INFO, fmt, ap);
    va_end(ap);
}

int fta_world_dead(int w)
{
    return fta_rt.world_dead && fta_rt.world_dead[w];
}

ftcomm_t *fta_comm_find(MPI_Comm comm)
{
    for (ftcomm_t *c = fta_rt.comms; c; c = c->next)
        if (c->comm == comm)
            return c;
    return NULL;
}

static ftcomm_t *comm_by_id(uint64_t id)
{
    for (ftcomm_t *c = fta_rt.comms; c; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

uint64_t fta_derive_id(ftcomm_t *parent, uint64_t salt)
{
    /* Every member derives communicators in the same order (MPI requires
     * it for the collective constructors), so the ids agree. */
    uint64_t x = parent->id * 0x9e3779b97f4a7c15ull + (++parent->nderived);
    x ^= salt + 0x632be59bd9b4e019ull + (x << 6) + (x >> 2);
    x ^= x >> 31;
    return x ? x : 1;
}

static int send_cb(void *ctx, uint32_t dest, const void *buf, size_t len)
{
    ftcomm_t *fc = ctx;
    int w = fc->world[dest];
    if (fta_world_dead(w))
        return 0;
    if (fta_rt.fault_send > 0 && ++nsends >= fta_rt.fault_send)
        raise(SIGKILL); /* fault injection for the tests */
    osend_t *s = malloc(sizeof *s);
    unsigned char *b = malloc(len + HDR);
    if (!s || !b) {
        free(s);
        free(b);
        return -ENOMEM;
    }
    memcpy(b, &fc->id, HDR);
    memcpy(b + HDR, buf, len);
    if (PMPI_Isend(b, (int)(len + HDR), MPI_BYTE, w, FTA_TAG, fta_rt.ctl,
                   &s->req) != MPI_SUCCESS) {
        free(s);
        free(b);
        return -EIO;
    }
    s->dest = w;
    s->buf = b;
    s->next = sends;
    sends = s;
    return 0;
}

static void dispatch(int src, unsigned char *buf, int len)
{
    uint64_t id;
    if (len < HDR)
        return;
    memcpy(&id, buf, HDR);
    ftcomm_t *fc = comm_by_id(id);
    if (!fc) {
        pmsg_t *p = malloc(sizeof *p + (size_t)len);
        if (!p)
            return;
        p->id = id;
        p->src = src;
        p->len = len;
        memcpy(p->buf, buf, (size_t)len);
        p->next = parked;
        parked = p;
        return;
    }
    for (int r = 0; r < fc->size; r++) {
        if (fc->world[r] != src)
            continue;
        int rc = fta_node_recv(fc->node, (uint32_t)r, buf + HDR,
                               (size_t)(len - HDR));
        if (rc < 0)
            fta_log("message from %d dropped: %s", src, fta_strerror(rc));
        return;
    }
}

void fta_comm_add_failed(ftcomm_t *c, int r)
{
    if (r < 0 || r >= c->size)
        return;
    for (int j = 0; j < c->nfailed; j++)
        if (c->failed[j] == r)
            return;
    c->failed[c->nfailed++] = r;
}

void fta_world_failed(int w)
{
    if (!fta_rt.world_dead || w < 0 || w >= fta_rt.world_size ||
        fta_rt.world_dead[w])
        return;
    fta_rt.any_failure = 1;
    if (w == fta_rt.world_rank)
        return; /* declared failed by others: they no longer wait for us */
    fta_rt.world_dead[w] = 1;
    fta_log("rank %d declared failed", w);
    for (ftcomm_t *c = fta_rt.comms; c; c = c->next)
        for (int r = 0; r < c->size; r++) {
            if (c->world[r] != w)
                continue;
            fta_comm_add_failed(c, r);
            (void)fta_node_failed(c->node, (uint32_t)r);
        }
}

static void note_failures(void)
{
    if (!fta_rt.fd)
        return;
    uint64_t g = fta_fd_generation(fta_rt.fd);
    if (g == fta_rt.fd_gen)
        return;
    fta_rt.fd_gen = g;
    for (int w = 0; w < fta_rt.world_size; w++)
        if (!fta_rt.world_dead[w] && fta_fd_is_dead(fta_rt.fd, w))
            fta_world_failed(w);
}

void fta_progress(void)
{
    if (!fta_rt.up)
        return;
    note_failures();
    for (;;) {
        int flag = 0, len = 0;
        MPI_Status st;
        if (PMPI_Iprobe(MPI_ANY_SOURCE, FTA_TAG, fta_rt.ctl, &flag, &st) !=
                MPI_SUCCESS ||
            !flag)
            break;
        PMPI_Get_count(&st, MPI_BYTE, &len);
        unsigned char *buf = malloc(len > 0 ? (size_t)len : 1);
        if (!buf)
            break;
        PMPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, FTA_TAG, fta_rt.ctl,
                  MPI_STATUS_IGNORE);
        if (!fta_world_dead(st.MPI_SOURCE))
            dispatch(st.MPI_SOURCE, buf, len);
        free(buf);
        note_failures();
    }
    for (osend_t **pp = &sends; *pp;) {
        osend_t *s = *pp;
        int done = 0;
        PMPI_Test(&s->req, &done, MPI_STATUS_IGNORE);
        if (!done && fta_world_dead(s->dest)) {
            /* Never completes: let MPI own it; the buffer is leaked on
             * purpose (MPI may still read it). */
            PMPI_Request_free(&s->req);
            *pp = s->next;
            free(s);
            continue;
        }
        if (done) {
            *pp = s->next;
            free(s->buf);
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

int fta_comm_any_failed(const ftcomm_t *fc)
{
    return fc->nfailed > 0;
}

int fta_comm_register(MPI_Comm comm, uint64_t id, ftcomm_t **out)
{
    ftcomm_t *fc = calloc(1, sizeof *fc);
    if (!fc)
        return -ENOMEM;
    fc->comm = comm;
    fc->id = id;
    PMPI_Comm_size(comm, &fc->size);
    PMPI_Comm_rank(comm, &fc->rank);
    fc->world = calloc((size_t)fc->size, sizeof *fc->world);
    fc->failed = calloc((size_t)fc->size, sizeof *fc->failed);
    if (!fc->world || !fc->failed)
        goto fail;
    MPI_Group g, wg;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *idx = malloc((size_t)fc->size * sizeof *idx);
    if (!idx)
        goto fail;
    for (int i = 0; i < fc->size; i++)
        idx[i] = i;
    PMPI_Group_translate_ranks(g, fc->size, idx, wg, fc->world);
    free(idx);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    static const fta_ops_t ops = {send_cb, NULL, NULL, NULL, NULL};
    fta_config_t cfg = {(uint32_t)fc->size, (uint32_t)fc->rank, fta_rt.arity, 0,
                        fc->size <= fta_rt.fast_max};
    if (fta_node_create(&cfg, &ops, fc, &fc->node) < 0)
        goto fail;
    for (int r = 0; r < fc->size; r++)
        if (fta_world_dead(fc->world[r])) {
            fc->failed[fc->nfailed++] = r;
            (void)fta_node_failed(fc->node, (uint32_t)r);
        }
    fc->next = fta_rt.comms;
    fta_rt.comms = fc;
    /* Replay what arrived before this communicator existed here. */
    pmsg_t *keep = NULL;
    while (parked) {
        pmsg_t *p = parked;
        parked = p->next;
        if (p->id == id) {
            dispatch(p->src, p->buf, p->len);
            free(p);
        } else {
            p->next = keep;
            keep = p;
        }
    }
    parked = keep;
    *out = fc;
    return 0;
fail:
    free(fc->world);
    free(fc->failed);
    free(fc);
    return -ENOMEM;
}

int fta_sends_pending(void)
{
    return sends != NULL;
}

void fta_comm_unregister(MPI_Comm comm)
{
    for (ftcomm_t **pp = &fta_rt.comms; *pp; pp = &(*pp)->next) {
        ftcomm_t *c = *pp;
        if (c->comm != comm)
            continue;
        *pp = c->next;
        fta_node_destroy(c->node);
        free(c->world);
        free(c->failed);
        free(c);
        return;
    }
}

FTA_EXPORT int FTA_Test_kill_at_send(long n)
{
    if (n <= 0)
        return MPI_ERR_ARG;
    fta_rt.fault_send = nsends + n;
    return MPI_SUCCESS;
}

FTA_EXPORT int FTA_Failure_time(int world_rank, double *when)
{
    if (!when || world_rank < 0 || world_rank >= fta_rt.world_size)
        return MPI_ERR_ARG;
    *when = fta_rt.fd ? fta_fd_detect_time(fta_rt.fd, world_rank) : 0;
    return MPI_SUCCESS;
}

FTA_EXPORT int FTA_Detector_stats(unsigned long long counts[5], char *transport,
                                  int len)
{
    if (!counts || !fta_rt.fd)
        return MPI_ERR_ARG;
    fta_fd_stats_t st;
    fta_fd_get_stats(fta_rt.fd, &st);
    counts[0] = st.hb_sent;
    counts[1] = st.notice_sent;
    counts[2] = st.sync_sent;
    counts[3] = st.other_sent;
    counts[4] = st.periods;
    if (transport && len > 0)
        snprintf(transport, (size_t)len, "%s",
                 fta_fd_transport_name(fta_rt.fd));
    return MPI_SUCCESS;
}
