/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_delegatee.c: region layout, the delegatee loop and the handler-side
 * request view.
 */
#include "config.h"
#include "dlg_internal.h"

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))

static int attr_fill(const dlg_delegatee_attr_t *in, dlg_delegatee_attr_t *a)
{
    if (in)
        *a = *in;
    else
        memset(a, 0, sizeof(*a));
    if (!a->max_clients)
        a->max_clients = 16;
    if (!a->ring_slots)
        a->ring_slots = 64;
    if (!a->inline_max)
        a->inline_max = 256;
    if (!a->quantum)
        a->quantum = 1;
    if (a->max_clients > 1024 || a->ring_slots < 4 || a->ring_slots > 65536 ||
        (a->ring_slots & (a->ring_slots - 1)) ||
        a->inline_max > DLG_INLINE_MAX ||
        a->idle_policy > DLG_POLICY_ADAPTIVE || a->quantum > 65536)
        return -EINVAL;
    /* An inline request may use at most half of the ring. */
    uint64_t need = 1 + (a->inline_max + DLG_CONT_BYTES - 1) / DLG_CONT_BYTES;
    if (need > a->ring_slots / 2)
        return -EINVAL;
    return 0;
}

static uint64_t cblk_bytes(const dlg_delegatee_attr_t *a)
{
    return ALIGN_UP(offsetof(struct dlg_cblk, ring_start) +
                        (uint64_t)a->ring_slots * (sizeof(struct dlg_desc) +
                                                   sizeof(struct dlg_compl)),
                    DLG_LINE);
}

static uint64_t layout(const dlg_delegatee_attr_t *a, uint64_t *cblk_off,
                       uint64_t *heap_off, uint64_t *heap_share)
{
    uint64_t off = ALIGN_UP(sizeof(struct dlg_hdr), DLG_LINE);
    *cblk_off = off;
    off += cblk_bytes(a) * a->max_clients;
    *heap_share = (a->heap_size / a->max_clients) & ~(uint64_t)(DLG_LINE - 1);
    *heap_off = *heap_share ? off : 0;
    return off + *heap_share * a->max_clients;
}

size_t dlg_region_need(const dlg_delegatee_attr_t *in)
{
    dlg_delegatee_attr_t a;
    uint64_t c, h, s;
    if (attr_fill(in, &a))
        return 0;
    return (size_t)layout(&a, &c, &h, &s);
}

int dlg_delegatee_create(dlg_region_t *r, const dlg_delegatee_attr_t *attr,
                         dlg_delegatee_t **out)
{
    if (!r || !out)
        return -EINVAL;
    dlg_delegatee_attr_t a;
    int rc = attr_fill(attr, &a);
    if (rc)
        return rc;
    if ((rc = dlg_env_log()) != 0)
        return rc;
    dlg_policy_t idle = a.idle_policy;
    if (idle == DLG_POLICY_DEFAULT &&
        (rc = dlg_env_policy("DLG_IDLE_POLICY", DLG_POLICY_ADAPTIVE, &idle)))
        return rc;
    uint64_t spin, live_ms;
    if ((rc = dlg_spin_bound_env(&spin)) ||
        (rc = dlg_env_uint("DLG_LIVENESS_MS", 20, 1, 60000, &live_ms)))
        return rc;
    uint64_t cblk_off, heap_off, heap_share;
    uint64_t need = layout(&a, &cblk_off, &heap_off, &heap_share);
    if (need > dlg_region_size(r))
        return -ENOSPC;
    struct dlg_hdr *h = dlg_region_base(r);
    if (atomic_load(&h->dg_state) == DG_RUNNING && h->magic == DLG_MAGIC &&
        dlg_life_check(&h->dg_life) == 0)
        return -EBUSY;

    dlg_delegatee_t *dg = calloc(1, sizeof(*dg));
    if (!dg)
        return -ENOMEM;
    dg->stage = malloc(a.inline_max + DLG_LINE);
    if (!dg->stage) {
        free(dg);
        return -ENOMEM;
    }
    dg->r = r;
    dg->h = h;
    dg->attr = a;
    atomic_init(&dg->idle, (int)idle);
    dg->spin_ns = spin;
    dg->live_ns = live_ms * 1000000ull;
    dg->next_live_check = dlg_now_ns() + dg->live_ns;

    /* Clients check the magic last (acquire), so clear it first. */
    atomic_store((_Atomic uint64_t *)&h->magic, 0);
    memset((char *)h + sizeof(h->magic), 0, cblk_off - sizeof(h->magic));
    memset((char *)h + cblk_off, 0, cblk_bytes(&a) * a.max_clients);
    h->version = DLG_VERSION;
    h->futex_private = (dlg_region_flags(r) & DLG_REGION_LOCAL) ? 1 : 0;
    h->size = need;
    h->max_clients = a.max_clients;
    h->slots = a.ring_slots;
    h->inline_max = a.inline_max;
    h->cblk_off = cblk_off;
    h->cblk_size = cblk_bytes(&a);
    h->heap_off = heap_off;
    h->heap_share = heap_share;
    h->dg_pid = getpid();
    for (unsigned i = 0; i < a.max_clients; i++) {
        if ((rc = dlg_life_init(&dlg_cblk_at(h, i)->life)))
            goto fail;
    }
    if ((rc = dlg_life_init(&h->dg_life)) ||
        (rc = -pthread_mutex_lock(&h->dg_life)))
        goto fail;
    dg->owner = pthread_self();
    atomic_store(&h->dg_state, DG_RUNNING);
    atomic_store_explicit((_Atomic uint64_t *)&h->magic, DLG_MAGIC,
                          memory_order_release);
    dlg_log("delegatee up: %u clients x %u slots, idle %s, spin %llu ns",
            a.max_clients, a.ring_slots, dlg_policy_name(idle),
            (unsigned long long)spin);
    *out = dg;
    return 0;
fail:
    free(dg->stage);
    free(dg);
    return rc;
}

int dlg_delegatee_register(dlg_delegatee_t *dg, unsigned op, dlg_handler_fn fn,
                           void *ctx, dlg_policy_t policy)
{
    if (!dg || op >= DLG_MAX_OPS || !fn || policy > DLG_POLICY_ADAPTIVE)
        return -EINVAL;
    if (policy == DLG_POLICY_DEFAULT)
        policy = DLG_POLICY_ADAPTIVE;
    dg->ops[op].fn = fn;
    dg->ops[op].ctx = ctx;
    atomic_store(&dg->h->op_policy[op], (uint8_t)policy);
    return 0;
}

/* A slot whose client left or died: make it reusable. */
static void slot_reset(dlg_delegatee_t *dg, struct dlg_cblk *cb)
{
    uint32_t slots = dg->h->slots;
    struct dlg_desc *ring = dlg_cblk_ring(cb);
    struct dlg_compl *cp = dlg_cblk_compl(cb, slots);
    for (uint32_t k = 0; k < slots; k++) {
        atomic_store_explicit(&ring[k].seq, 0, memory_order_relaxed);
        uint32_t old = atomic_exchange(&cp[k].cw, 0);
        if (old & 1)
            dlg_futex_wake(&cp[k].cw, 1, dg->h->futex_private);
    }
    cb->tail = 0;
    cb->pid = 0;
    atomic_store_explicit(&cb->state, CS_FREE, memory_order_release);
}

static void client_dead(dlg_delegatee_t *dg, unsigned i, struct dlg_cblk *cb)
{
    pid_t pid = cb->pid;
    atomic_store(&cb->state, CS_DEAD);
    DLG_STAT_ADD(dg, dead_clients, 1);
    dlg_log("client %u (pid %ld) died", i, (long)pid);
    if (dg->attr.on_client_dead)
        dg->attr.on_client_dead(dg, (int)i, pid, dg->attr.ctx);
    slot_reset(dg, cb);
}

static void check_clients(dlg_delegatee_t *dg)
{
    struct dlg_hdr *h = dg->h;
    for (unsigned i = 0; i < h->max_clients; i++) {
        struct dlg_cblk *cb = dlg_cblk_at(h, i);
        if (atomic_load_explicit(&cb->state, memory_order_acquire) != CS_ACTIVE)
            continue;
        int rc = dlg_life_check(&cb->life);
        if (rc == -ENOTCONN &&
            atomic_load_explicit(&cb->state, memory_order_acquire) != CS_ACTIVE)
            continue; /* detached meanwhile */
        if (rc < 0)
            client_dead(dg, i, cb);
    }
}

/* Gather an inline payload: the free argument words of the header, then
 * the continuation slots (skipping their 4-byte seq). */
static void inline_gather(uint8_t *dst, const struct dlg_desc *ring,
                          uint32_t slots, uint64_t tail,
                          const struct dlg_desc *d, size_t len)
{
    size_t first = (DLG_MAX_ARGS - d->nargs) * sizeof(uint64_t);
    size_t n = len < first ? len : first;
    memcpy(dst, &d->args[d->nargs], n);
    size_t done = n;
    for (uint64_t k = 1; done < len; k++) {
        const struct dlg_desc *c = &ring[(tail + k) & (slots - 1)];
        size_t m = len - done < DLG_CONT_BYTES ? len - done : DLG_CONT_BYTES;
        memcpy(dst + done, (const char *)c + 4, m);
        done += m;
    }
}

static void serve_one(dlg_delegatee_t *dg, unsigned i, struct dlg_cblk *cb,
                      struct dlg_desc *d, uint64_t tail)
{
    struct dlg_hdr *h = dg->h;
    uint32_t slots = h->slots;
    struct dlg_compl *cp = &dlg_cblk_compl(cb, slots)[tail & (slots - 1)];
    struct dlg_req req = {0};
    int64_t res = 0;
    req.dg = dg;
    req.client = (int)i;
    req.op = d->op;
    req.nargs = d->nargs;
    req.mode = d->mode & 0xf;
    req.dir = d->mode >> 4;
    req.buf = d->buf;
    req.len = d->len;
    req.pid = cb->pid;
    req.compl = cp;
    if (req.nargs > DLG_MAX_ARGS) {
        res = -EPROTO;
        goto complete;
    }
    memcpy(req.args, d->args, req.nargs * sizeof(uint64_t));
    switch (req.mode) {
    case 0:
        req.len = 0;
        break;
    case DLG_BUF_INLINE:
        if (req.len > h->inline_max) {
            res = -EPROTO;
            goto complete;
        }
        inline_gather(dg->stage, dlg_cblk_ring(cb), slots, tail, d, req.len);
        req.ptr = dg->stage;
        DLG_STAT_ADD(dg, bytes_inline, req.len);
        break;
    case DLG_BUF_LOCAL:
        if (!cb->same_as) {
            res = -EFAULT;
            goto complete;
        }
        req.ptr = (void *)(uintptr_t)req.buf;
        DLG_STAT_ADD(dg, bytes_zero_copy, req.len);
        break;
    case DLG_BUF_HEAP:
        if (!h->heap_off || req.buf > h->heap_share * h->max_clients ||
            req.len > h->heap_share * h->max_clients - req.buf) {
            res = -EFAULT;
            goto complete;
        }
        req.ptr = (char *)h + h->heap_off + req.buf;
        DLG_STAT_ADD(dg, bytes_zero_copy, req.len);
        break;
    case DLG_BUF_XPROC:
        break;
    default:
        res = -EPROTO;
        goto complete;
    }
    if (dg->ops[req.op].fn) {
        res = dg->ops[req.op].fn(&req, dg->ops[req.op].ctx);
    } else {
        DLG_STAT_ADD(dg, unknown_ops, 1);
        res = -ENOSYS;
    }
complete:
    cp->result = res;
    cp->rlen = req.rlen;
    DLG_STAT_ADD(dg, requests, 1);
    uint32_t old = atomic_exchange_explicit(&cp->cw, dlg_done_mark(tail),
                                            memory_order_acq_rel);
    if (old & 1)
        dlg_futex_wake(&cp->cw, 1, h->futex_private);
}

static void live_tick(dlg_delegatee_t *dg, uint64_t now)
{
    if (now >= dg->next_live_check) {
        check_clients(dg);
        dg->next_live_check = now + dg->live_ns;
    }
}

int dlg_delegatee_progress(dlg_delegatee_t *dg)
{
    if (!dg)
        return -EINVAL;
    struct dlg_hdr *h = dg->h;
    uint32_t slots = h->slots;
    unsigned n = h->max_clients, served = 0;
    /* Every sweep visits every client once and serves at most `quantum`
     * requests of each: a busy client cannot delay another by more than
     * (clients - 1) * quantum requests. */
    for (unsigned i = 0; i < n; i++) {
        struct dlg_cblk *cb = dlg_cblk_at(h, i);
        uint32_t st = atomic_load_explicit(&cb->state, memory_order_acquire);
        if (st == CS_DETACHED) {
            slot_reset(dg, cb);
            continue;
        }
        if (st != CS_ACTIVE)
            continue;
        struct dlg_desc *ring = dlg_cblk_ring(cb);
        for (unsigned q = 0; q < dg->attr.quantum; q++) {
            uint64_t tail = cb->tail;
            struct dlg_desc *d = &ring[tail & (slots - 1)];
            if (atomic_load_explicit(&d->seq, memory_order_acquire) !=
                dlg_seq(tail))
                break;
            unsigned ns = d->nslots;
            if (ns == 0 || ns > slots / 2)
                ns = 1; /* corrupt descriptor: answered with -EPROTO */
            serve_one(dg, i, cb, d, tail);
            cb->tail = tail + ns;
            served++;
        }
    }
    /* Reading the clock costs as much as a sweep: look every 32 sweeps
     * (idle_block() also looks before it sleeps). */
    if ((++dg->sweeps & 31) == 0)
        live_tick(dg, dlg_now_ns());
    return (int)served;
}

/* Block until a client rings the doorbell (or the liveness tick). */
static int idle_block(dlg_delegatee_t *dg)
{
    struct dlg_hdr *h = dg->h;
    uint32_t db = atomic_load(&h->doorbell);
    atomic_store(&h->sleeping, 1);
    atomic_thread_fence(memory_order_seq_cst);
    int n = dlg_delegatee_progress(dg);
    if (n != 0 || atomic_load(&dg->stop)) {
        atomic_store(&h->sleeping, 0);
        return n;
    }
    DLG_STAT_ADD(dg, sleeps, 1);
    uint64_t now = dlg_now_ns();
    live_tick(dg, now);
    uint64_t to = dg->next_live_check > now ? dg->next_live_check - now : 1;
    dlg_futex_wait(&h->doorbell, db, to, h->futex_private);
    atomic_store(&h->sleeping, 0);
    return 0;
}

int dlg_delegatee_run(dlg_delegatee_t *dg)
{
    if (!dg)
        return -EINVAL;
    unsigned empty = 0;
    uint64_t idle_since = 0;
    while (!atomic_load_explicit(&dg->stop, memory_order_acquire)) {
        int n = dlg_delegatee_progress(dg);
        if (n < 0)
            return n;
        if (n > 0) {
            empty = 0;
            idle_since = 0;
            continue;
        }
        empty++;
        switch (atomic_load_explicit(&dg->idle, memory_order_relaxed)) {
        case DLG_POLICY_POLL:
            dlg_cpu_relax();
            /* Yield now and then: a client may need this CPU. */
            if (empty % DLG_POLL_YIELD_EVERY == 0)
                sched_yield();
            break;
        case DLG_POLICY_BLOCK:
            n = idle_block(dg);
            break;
        default:
            if (empty % 16 == 1) {
                uint64_t now = dlg_now_ns();
                if (!idle_since)
                    idle_since = now;
                else if (now - idle_since >= dg->spin_ns) {
                    n = idle_block(dg);
                    idle_since = 0;
                    empty = 0;
                    break;
                }
            }
            dlg_cpu_relax();
            break;
        }
        if (n < 0)
            return n;
    }
    atomic_store(&dg->stop, 0);
    return 0;
}

int dlg_delegatee_set_idle(dlg_delegatee_t *dg, dlg_policy_t policy)
{
    if (!dg || policy < DLG_POLICY_POLL || policy > DLG_POLICY_ADAPTIVE)
        return -EINVAL;
    atomic_store(&dg->idle, (int)policy);
    /* A sleeping delegatee takes the new policy when it next wakes. */
    atomic_fetch_add(&dg->h->doorbell, 1);
    dlg_futex_wake(&dg->h->doorbell, 1, dg->h->futex_private);
    return 0;
}

void dlg_delegatee_stop(dlg_delegatee_t *dg)
{
    if (!dg)
        return;
    /* Once the flag is set the serving thread may return and destroy the
     * delegatee at once: touch only the region (still mapped) after it. */
    struct dlg_hdr *h = dg->h;
    atomic_store_explicit(&dg->stop, 1, memory_order_release);
    atomic_fetch_add(&h->doorbell, 1);
    dlg_futex_wake(&h->doorbell, 1, h->futex_private);
}

void dlg_delegatee_stats(const dlg_delegatee_t *dg, dlg_stats_t *st)
{
    if (!dg || !st)
        return;
    st->requests = __atomic_load_n(&dg->st.requests, __ATOMIC_RELAXED);
    st->bytes_inline = __atomic_load_n(&dg->st.bytes_inline, __ATOMIC_RELAXED);
    st->bytes_zero_copy =
        __atomic_load_n(&dg->st.bytes_zero_copy, __ATOMIC_RELAXED);
    st->bytes_xproc = __atomic_load_n(&dg->st.bytes_xproc, __ATOMIC_RELAXED);
    st->sleeps = __atomic_load_n(&dg->st.sleeps, __ATOMIC_RELAXED);
    st->dead_clients = __atomic_load_n(&dg->st.dead_clients, __ATOMIC_RELAXED);
    st->unknown_ops = __atomic_load_n(&dg->st.unknown_ops, __ATOMIC_RELAXED);
}

int dlg_delegatee_destroy(dlg_delegatee_t *dg)
{
    if (!dg)
        return 0;
    struct dlg_hdr *h = dg->h;
    atomic_store(&h->dg_state, DG_STOPPED);
    /* Only the owner can release its life; another thread may still free
     * the memory of a delegatee whose thread has ended. */
    if (pthread_equal(dg->owner, pthread_self()))
        pthread_mutex_unlock(&h->dg_life);
    /* Wake every client that sleeps on a completion word. */
    for (unsigned i = 0; i < h->max_clients; i++) {
        struct dlg_cblk *cb = dlg_cblk_at(h, i);
        if (atomic_load(&cb->state) != CS_ACTIVE)
            continue;
        struct dlg_compl *cp = dlg_cblk_compl(cb, h->slots);
        for (unsigned k = 0; k < h->slots; k++)
            if (atomic_load(&cp[k].cw) & 1)
                dlg_futex_wake(&cp[k].cw, 1, h->futex_private);
    }
    free(dg->stage);
    free(dg);
    return 0;
}

/* ---- handler-side request view ---- */

unsigned dlg_req_op(const dlg_req_t *req)
{
    return req->op;
}

int dlg_req_client(const dlg_req_t *req)
{
    return req->client;
}

const uint64_t *dlg_req_args(const dlg_req_t *req)
{
    return req->args;
}

unsigned dlg_req_nargs(const dlg_req_t *req)
{
    return req->nargs;
}

size_t dlg_req_len(const dlg_req_t *req)
{
    return req->len;
}

void *dlg_req_ptr(const dlg_req_t *req)
{
    return req->ptr;
}

static int xproc(dlg_req_t *req, size_t off, void *local, size_t n, int wr)
{
    struct iovec l = {.iov_base = local, .iov_len = n};
    struct iovec r = {.iov_base = (void *)(uintptr_t)(req->buf + off),
                      .iov_len = n};
    size_t done = 0;
    while (done < n) {
        l.iov_base = (char *)local + done;
        l.iov_len = n - done;
        r.iov_base = (char *)(uintptr_t)(req->buf + off + done);
        r.iov_len = n - done;
        ssize_t k = wr ? process_vm_writev(req->pid, &l, 1, &r, 1, 0)
                       : process_vm_readv(req->pid, &l, 1, &r, 1, 0);
        if (k < 0)
            return errno == ESRCH ? -EOWNERDEAD : -EFAULT;
        if (k == 0)
            return -EFAULT;
        done += (size_t)k;
    }
    DLG_STAT_ADD(req->dg, bytes_xproc, n);
    return 0;
}

int dlg_req_read(dlg_req_t *req, size_t off, void *dst, size_t n)
{
    if (!req || (n && !dst) || off > req->len || n > req->len - off)
        return -EFAULT;
    if (n == 0)
        return 0;
    if (req->mode == DLG_BUF_XPROC)
        return xproc(req, off, dst, n, 0);
    memcpy(dst, (char *)req->ptr + off, n);
    return 0;
}

int dlg_req_write(dlg_req_t *req, size_t off, const void *src, size_t n)
{
    if (!req || (n && !src) || off > req->len || n > req->len - off)
        return -EFAULT;
    if (!(req->dir & DLG_BUF_OUT) || req->mode == DLG_BUF_INLINE)
        return -EPERM;
    if (n == 0)
        return 0;
    if (req->mode == DLG_BUF_XPROC)
        return xproc(req, off, (void *)src, n, 1);
    memcpy((char *)req->ptr + off, src, n);
    return 0;
}

int dlg_req_reply(dlg_req_t *req, const void *data, size_t n)
{
    if (!req || (n && !data))
        return -EINVAL;
    if (n > DLG_REPLY_MAX)
        return -EMSGSIZE;
    memcpy(req->compl ->reply, data, n);
    req->rlen = (uint32_t)n;
    return 0;
}
