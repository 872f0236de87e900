/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_task.c: one party of the PVAS benchmark (pip_bench_pvas).
 *
 *   pvas_task pip|shm|cma RANK @ADDRESS|/SHM-NAME
 *
 * The same program runs as a PiP task (method "pip": spawned by a PiP root,
 * which passes the address of the control segment) and as a plain process
 * (methods "shm" and "cma": started by the driver, which passes the name of
 * the control segment), so that both sides of every comparison run the same
 * code and differ only in how the data moves:
 *
 *   pip  one copy through a pointer into the peer's memory (the receiver
 *        exports its buffer or its strided layout with pip_named_export)
 *   shm  two copies through a POSIX shm segment (sender in, receiver out;
 *        for strided data: pack into the segment, unpack out of it)
 *   cma  one copy by the kernel: the receiver reads the sender's buffer
 *        with process_vm_readv (strided: one iovec per block)
 *
 * What to measure (ping-pong, all-to-all, strided ping-pong), the sizes and
 * the repetitions come from the control segment; rank 0 writes the results
 * there.  Exit status 0, or 1 with the reason in the segment's failmsg.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <pip/pip.h>

#include "pvas_bench.h"

#define IOV_CHUNK 1024 /* UIO_MAXIOV */

static pvas_ctl_t *ctl;
static int method, rank, peer;
static double deadline;

/* The receiver's strided layout, exported to the sender (method pip). */
static pvas_vec_t pvas_task_dst_layout;

static void *xalloc(size_t len)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, len > 0 ? len : 1) != 0) {
        pvas_set_fail(ctl, "rank %d: out of memory (%zu bytes)", rank, len);
        return NULL;
    }
    memset(p, 0, len); /* touch: the footprint counts it, timing does not */
    return p;
}

static int bar(void)
{
    return pvas_bar_wait(ctl, deadline);
}

static volatile uint32_t *my_flag(void)
{
    return rank == 0 ? &ctl->flag0 : &ctl->flag1;
}

static volatile uint32_t *peer_flag(void)
{
    return rank == 0 ? &ctl->flag1 : &ctl->flag0;
}

static void post(volatile uint32_t *f, uint32_t v)
{
    __atomic_store_n(f, v, __ATOMIC_RELEASE);
}

/* process_vm_readv of possibly many iovecs, until everything arrived. */
static int cma_read(pid_t pid, struct iovec *loc, struct iovec *rem, size_t n)
{
    for (size_t i = 0; i < n; i += IOV_CHUNK) {
        size_t k = n - i < IOV_CHUNK ? n - i : IOV_CHUNK;
        size_t want = 0;
        for (size_t j = 0; j < k; j++)
            want += loc[i + j].iov_len;
        ssize_t got = process_vm_readv(pid, loc + i, k, rem + i, k, 0);
        if (got < 0) {
            pvas_set_fail(ctl, "process_vm_readv: %s", strerror(errno));
            return -1;
        }
        if ((size_t)got != want) {
            /* Partial reads only happen at a fault: not expected here. */
            pvas_set_fail(ctl, "process_vm_readv: short read (%zd of %zu)", got,
                          want);
            return -1;
        }
    }
    return 0;
}

/* ---- ping-pong: one message, both directions ---------------------------- */

/* What the two halves of a message do, for one method and size. */
typedef struct {
    int nc;      /* strided */
    size_t size; /* contiguous: bytes */
    unsigned char *send, *recv, *peer_send, *in, *out;
    pvas_vec_t sv, dv, pd; /* strided: my source, my destination, and the
                              receiver's destination layout (method pip) */
    struct iovec *lv, *rv; /* cma: my side and the peer's side */
    size_t niov;
    pid_t peer_pid;
} xfer_t;

static uint32_t seq;

/* The sender's half, before it raises the receiver's flag. */
static void xfer_send(const xfer_t *x)
{
    if (ctl->flags_only)
        return;
    if (ctl->fresh) {
        pvas_vec_t v = {x->send, 1, x->size, x->size};
        pvas_vec_touch(x->nc ? &x->sv : &v, rank);
    }
    if (x->nc) {
        if (method == PVAS_M_PIP)
            pvas_vec_copy(&x->pd, &x->sv); /* straight into the peer's layout */
        else if (method == PVAS_M_SHM)
            pvas_vec_pack(x->out, &x->sv);
    } else if (method == PVAS_M_SHM) {
        memcpy(x->out, x->send, x->size);
    }
}

/* The receiver's half, once its flag is up. */
static int xfer_recv(const xfer_t *x)
{
    if (ctl->flags_only)
        return 0;
    if (method == PVAS_M_CMA)
        return cma_read(x->peer_pid, x->lv, x->rv, x->niov);
    if (x->nc) {
        if (method == PVAS_M_SHM)
            pvas_vec_unpack(&x->dv, x->in);
    } else if (method == PVAS_M_PIP) {
        /* The one copy, by the receiver, out of the sender's buffer: the
         * data ends in the receiver's cache, as with shm and cma. */
        pvas_copy_in(x->recv, x->peer_send, x->size, ctl->prefetch);
    } else if (method == PVAS_M_SHM) {
        pvas_copy_in(x->recv, x->in, x->size, ctl->prefetch);
    }
    return 0;
}

/* One round trip: 0, or -1. */
static int trip(const xfer_t *x)
{
    seq++;
    if (rank == 1 && (pvas_wait_flag(ctl, my_flag(), seq, deadline) != 0 ||
                      xfer_recv(x) != 0))
        return -1;
    xfer_send(x);
    post(peer_flag(), seq);
    if (rank == 0 && (pvas_wait_flag(ctl, my_flag(), seq, deadline) != 0 ||
                      xfer_recv(x) != 0))
        return -1;
    return 0;
}

/* What one run of round trips measured. */
typedef struct {
    double secs; /* all of them */
    double typ;  /* typical round trip: median over the timed blocks */
    long csw;    /* this party's context switches meanwhile */
} rep_t;

/*
 * `iters` round trips, timed in blocks (pvas_block_len); 0, or -1.  The
 * parties leave the barrier at different times (one may still be waking
 * up in its futex): one untimed round trip first, so that the time is that
 * of the messages only, also when a repetition has few round trips.
 */
static int rounds(const xfer_t *x, long iters, rep_t *out)
{
    double blk[PVAS_BLOCKS];
    int nb = 0;
    long k = pvas_block_len(iters);
    if (bar() != 0 || trip(x) != 0)
        return -1;
    long c0 = pvas_csw();
    double t0 = pvas_now(), tb = t0;
    for (long left = iters; left > 0;) {
        long m = left < k ? left : k;
        for (long it = 0; it < m; it++)
            if (trip(x) != 0)
                return -1;
        double t = pvas_now();
        blk[nb++] = (t - tb) / (double)m;
        tb = t;
        left -= m;
    }
    out->csw = pvas_csw() - c0;
    out->secs = tb - t0;
    out->typ = pvas_median(blk, nb);
    return 0;
}

/*
 * One size: warm up (at the first size for at least PVAS_WARM_S: clock
 * ramp-up, first touches), then fewer round trips per repetition where
 * one would take longer than PVAS_REP_S (judged by the fastest typical
 * round trip of the warm-up), then the timed repetitions.  Per repetition
 * rank 0 keeps the typical and the mean one-way time and both parties'
 * context switches (rank 1 hands its count over after the repetition).
 * Rank 0 decides and publishes; the barriers order the reads.
 */
static int measure(const xfer_t *x, int si, size_t bytes)
{
    long iters = pvas_iters(bytes, ctl->max_iters);
    double wmin = 0, spent = 0;
    int n = ctl->reps;
    double *t = calloc((size_t)n * 3, sizeof(double));
    double *mean = t + n, *csw = t + 2 * n;
    rep_t w;
    if (t == NULL) {
        pvas_set_fail(ctl, "rank %d: out of memory", rank);
        return -1;
    }
    deadline = pvas_now() + ctl->timeout;
    do {
        if (rounds(x, iters, &w) != 0)
            goto fail;
        spent += w.secs;
        if (wmin == 0 || w.typ < wmin)
            wmin = w.typ;
        if (rank == 0)
            ctl->more = si == 0 && spent < PVAS_WARM_S;
        if (bar() != 0)
            goto fail;
    } while (ctl->more);
    if (rank == 0) {
        /* From the typical round trip: a warm-up the machine disturbed
         * (a preempted party) would cut the repetitions short for nothing. */
        double want = PVAS_REP_S / (wmin > 0 ? wmin : 1e-9);
        long lo = iters < 4 ? iters : 4;
        ctl->cur_iters = want >= (double)iters ? iters
                         : want < (double)lo   ? lo
                                               : (long)want;
    }
    if (bar() != 0)
        goto fail;
    iters = ctl->cur_iters;
    int quiet = 0;
    for (int r = 0; r < n; r++) {
        if (rounds(x, iters, &w) != 0)
            goto fail;
        if (rank == 1)
            ctl->peer_csw = w.csw;
        if (bar() != 0)
            goto fail;
        t[r] = w.typ * 1e6 / 2;
        mean[r] = w.secs * 1e6 / (double)iters / 2;
        csw[r] = (double)(w.csw + (rank == 0 ? ctl->peer_csw : 0));
        quiet += csw[r] == 0;
    }
    if (rank == 0) {
        pvas_stat_t st = pvas_stat(t, n, iters);
        st.mean = pvas_median(mean, n);
        st.csw = pvas_median(csw, n);
        st.quiet = quiet;
        st.nrep = n;
        ctl->res[si] = st;
    }
    free(t);
    return 0;
fail:
    free(t);
    return -1;
}

/* ---- ping-pong of contiguous messages --------------------------------- */

static int run_pp(void)
{
    size_t maxs = ctl->size[ctl->nsizes - 1];
    unsigned char *shm = (unsigned char *)ctl + ctl->data_off;
    xfer_t x = {0};
    struct iovec lv, rv;
    int rc;

    x.send = xalloc(maxs);
    x.recv = xalloc(maxs);
    x.out = shm + (size_t)rank * maxs;
    x.in = shm + (size_t)peer * maxs;
    if (x.send == NULL || x.recv == NULL)
        return -1;
    for (size_t k = 0; k < maxs; k++)
        x.send[k] = pvas_pat(k, rank);
    if (method == PVAS_M_PIP) {
        if ((rc = pip_named_export(x.send, "pvas_send")) != 0 ||
            (rc = pip_named_import(peer, (void **)&x.peer_send, "pvas_send")) !=
                0) {
            pvas_set_fail(ctl, "pip_named_export/import: %s", strerror(rc));
            return -1;
        }
    } else if (method == PVAS_M_CMA) {
        ctl->pid[rank] = getpid();
        ctl->sendbuf[rank] = x.send;
    }
    if (bar() != 0)
        return -1;
    if (method == PVAS_M_CMA) {
        x.peer_pid = ctl->pid[peer];
        x.peer_send = ctl->sendbuf[peer]; /* an address in the peer */
    }
    x.lv = &lv;
    x.rv = &rv;
    x.niov = 1;
    for (int si = 0; si < ctl->nsizes; si++) {
        x.size = ctl->size[si];
        lv.iov_base = x.recv;
        rv.iov_base = x.peer_send;
        lv.iov_len = rv.iov_len = x.size;
        memset(x.recv, 0, x.size);
        if (measure(&x, si, x.size) != 0)
            return -1;
        for (size_t k = 0; k < x.size && !ctl->flags_only; k++)
            if (x.recv[k] != pvas_pat(k, peer)) {
                pvas_set_fail(ctl, "rank %d: wrong data at byte %zu of %zu",
                              rank, k, x.size);
                return -1;
            }
    }
    __atomic_add_fetch(&ctl->checked, 1, __ATOMIC_ACQ_REL);
    /* After the barrier no one reads or writes these any more. */
    rc = bar();
    free(x.send);
    free(x.recv);
    return rc;
}

/* ---- ping-pong of strided messages ------------------------------------ */

static int run_nc(void)
{
    size_t maxt = ctl->size[ctl->nsizes - 1], b = ctl->block;
    pvas_vec_t s = pvas_vec_src(NULL, maxt, b), d = pvas_vec_dst(NULL, maxt, b);
    unsigned char *shm = (unsigned char *)ctl + ctl->data_off;
    pvas_vec_t *peer_dst = NULL;
    xfer_t x = {0};
    int rc;

    x.nc = 1;
    x.out = shm + (size_t)rank * maxt;
    x.in = shm + (size_t)peer * maxt;
    s.base = xalloc(pvas_vec_span(&s));
    d.base = xalloc(pvas_vec_span(&d));
    if (s.base == NULL || d.base == NULL)
        return -1;
    pvas_vec_fill(&s, rank);
    if (method == PVAS_M_PIP) {
        pvas_task_dst_layout = d;
        if ((rc = pip_named_export(&pvas_task_dst_layout, "pvas_nc_dst")) !=
                0 ||
            (rc = pip_named_import(peer, (void **)&peer_dst, "pvas_nc_dst")) !=
                0) {
            pvas_set_fail(ctl, "pip_named_export/import: %s", strerror(rc));
            return -1;
        }
    } else if (method == PVAS_M_CMA) {
        ctl->pid[rank] = getpid();
        ctl->src[rank] = s;
        x.lv = calloc(s.count, sizeof(*x.lv));
        x.rv = calloc(s.count, sizeof(*x.rv));
        if (x.lv == NULL || x.rv == NULL) {
            pvas_set_fail(ctl, "rank %d: out of memory", rank);
            return -1;
        }
    }
    if (bar() != 0)
        return -1;
    if (method == PVAS_M_CMA) {
        /* The peer's source layout, as addresses in the peer's process:
         * one iovec per block on each side. */
        pvas_vec_t ps = ctl->src[peer];
        x.peer_pid = ctl->pid[peer];
        for (size_t i = 0; i < s.count; i++) {
            x.lv[i].iov_base = d.base + i * d.stride;
            x.lv[i].iov_len = b;
            x.rv[i].iov_base = ps.base + i * ps.stride;
            x.rv[i].iov_len = b;
        }
    }
    for (int si = 0; si < ctl->nsizes; si++) {
        size_t total = ctl->size[si];
        x.sv = s;
        x.dv = d;
        x.sv.count = x.dv.count = x.niov = total / b;
        if (peer_dst != NULL) {
            /* The sender reads the receiver's layout and copies into it. */
            x.pd = *peer_dst;
            x.pd.count = total / x.pd.blocklen;
        }
        memset(d.base, 0, pvas_vec_span(&d));
        if (measure(&x, si, total) != 0)
            return -1;
        if (!ctl->flags_only && pvas_vec_check(&x.dv, peer) != 0) {
            pvas_set_fail(ctl, "rank %d: wrong strided data (%zu bytes)", rank,
                          total);
            return -1;
        }
    }
    __atomic_add_fetch(&ctl->checked, 1, __ATOMIC_ACQ_REL);
    rc = bar();
    free(s.base);
    free(d.base);
    free(x.lv);
    free(x.rv);
    return rc;
}

/* ---- all-to-all -------------------------------------------------------- */

static unsigned char a2a_val(int from, int to)
{
    return (unsigned char)(from * 131 + to * 7 + 1);
}

static int run_a2a(void)
{
    int n = ctl->n;
    size_t b = ctl->block;
    unsigned char *send = xalloc((size_t)n * b), *recv = xalloc((size_t)n * b);
    unsigned char *shm = (unsigned char *)ctl + ctl->data_off;
    unsigned char **psend = calloc((size_t)n, sizeof(*psend));
    double *t = calloc((size_t)ctl->reps, sizeof(double));
    int rc;

    if (send == NULL || recv == NULL || psend == NULL || t == NULL)
        return -1;
    for (int j = 0; j < n; j++)
        memset(send + (size_t)j * b, a2a_val(rank, j), b);
    deadline = pvas_now() + ctl->timeout;
    if (method == PVAS_M_PIP) {
        if ((rc = pip_named_export(send, "pvas_a2a_send")) != 0) {
            pvas_set_fail(ctl, "pip_named_export: %s", strerror(rc));
            return -1;
        }
        for (int j = 0; j < n; j++) {
            if (j == rank)
                psend[j] = send;
            else if ((rc = pip_named_import(j, (void **)&psend[j],
                                            "pvas_a2a_send")) != 0) {
                pvas_set_fail(ctl, "pip_named_import: %s", strerror(rc));
                return -1;
            }
        }
    }
    for (int r = -1; r < ctl->reps; r++) {
        if (bar() != 0)
            return -1;
        double t0 = pvas_now();
        if (method == PVAS_M_PIP) {
            /* Read my block straight out of every task's send array. */
            for (int j = 0; j < n; j++)
                memcpy(recv + (size_t)j * b, psend[j] + (size_t)rank * b, b);
        } else {
            /* Slot (i, j) of the segment carries block i -> j. */
            for (int j = 0; j < n; j++)
                memcpy(shm + ((size_t)rank * n + j) * b, send + (size_t)j * b,
                       b);
            if (bar() != 0)
                return -1;
            for (int j = 0; j < n; j++)
                memcpy(recv + (size_t)j * b, shm + ((size_t)j * n + rank) * b,
                       b);
        }
        if (bar() != 0)
            return -1;
        if (r >= 0)
            t[r] = (pvas_now() - t0) * 1e6;
    }
    for (int j = 0; j < n; j++)
        for (size_t k = 0; k < b; k++)
            if (recv[(size_t)j * b + k] != a2a_val(j, rank)) {
                pvas_set_fail(ctl, "rank %d: wrong block from %d", rank, j);
                return -1;
            }
    if (rank == 0) {
        pvas_stat_t st = pvas_stat(t, ctl->reps, 1);
        ctl->a2a_med = st.med;
        ctl->a2a_min = st.min;
        ctl->a2a_max = st.max;
    }
    __atomic_add_fetch(&ctl->checked, 1, __ATOMIC_ACQ_REL);
    /* Stay alive, buffers in place, until the footprint has been read. */
    __atomic_add_fetch(&ctl->done, 1, __ATOMIC_ACQ_REL);
    pvas_futex_wake(&ctl->done);
    deadline = pvas_now() + ctl->timeout;
    rc = pvas_wait_nonzero(ctl, &ctl->release, deadline) > 0 ? 0 : -1;
    free(send);
    free(recv);
    free(psend);
    free(t);
    return rc;
}

/* ---- main -------------------------------------------------------------- */

static pvas_ctl_t *map_ctl(const char *ref)
{
    void *p = NULL;
    if (ref[0] == '@') {
        if (sscanf(ref + 1, "%p", &p) != 1)
            return NULL;
        return p;
    }
    int fd = shm_open(ref, O_RDWR, 0);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        fprintf(stderr, "pvas_task: %s: %s\n", ref, strerror(errno));
        return NULL;
    }
    p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
             0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

int main(int argc, char **argv)
{
    char *end;
    if (argc != 4) {
        fprintf(stderr, "usage: pvas_task pip|shm|cma RANK @ADDRESS|/SHM-NAME\n"
                        "(a part of pip_bench_pvas, not run by hand)\n");
        return 2;
    }
    if (strcmp(argv[1], "pip") == 0)
        method = PVAS_M_PIP;
    else if (strcmp(argv[1], "shm") == 0)
        method = PVAS_M_SHM;
    else if (strcmp(argv[1], "cma") == 0)
        method = PVAS_M_CMA;
    else {
        fprintf(stderr, "pvas_task: unknown method '%s'\n", argv[1]);
        return 2;
    }
    errno = 0;
    long r = strtol(argv[2], &end, 10);
    if (errno != 0 || *end != '\0' || r < 0 || r >= PVAS_MAXN) {
        fprintf(stderr, "pvas_task: bad rank '%s'\n", argv[2]);
        return 2;
    }
    rank = (int)r;
    if ((ctl = map_ctl(argv[3])) == NULL || ctl->magic != PVAS_MAGIC ||
        rank >= ctl->n) {
        fprintf(stderr, "pvas_task: bad control segment '%s'\n", argv[3]);
        return 2;
    }
    peer = ctl->n == 2 ? 1 - rank : -1;
    if (method == PVAS_M_PIP) {
        int pipid = -1, rc = pip_init(&pipid, NULL, NULL, 0);
        if (rc != 0 || pipid != rank) {
            pvas_set_fail(ctl, "task %d: pip_init: %s (pipid %d)", rank,
                          strerror(rc), pipid);
            return 1;
        }
    }
    deadline = pvas_now() + ctl->timeout;
    int go = pvas_wait_nonzero(ctl, &ctl->go, deadline);
    if (go < 0)
        return ctl->fail ? 1 : 0; /* the launcher called it off */
    /* Round robin over the cores: two parties get a core each. */
    pvas_pin(rank);
    int rc = -1;
    switch (ctl->test) {
    case PVAS_T_PP:
        rc = run_pp();
        break;
    case PVAS_T_NC:
        rc = run_nc();
        break;
    case PVAS_T_A2A:
        rc = run_a2a();
        break;
    default:
        pvas_set_fail(ctl, "unknown test %d", ctl->test);
    }
    return rc == 0 ? 0 : 1;
}
