/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_client.c: attaching to a delegatee, submitting requests, waiting for
 * completions with the poll / block / adaptive policies, and the client's
 * share of the shared heap.
 */
#include "config.h"
#include "dlg_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Per slot bookkeeping kept in client memory. */
struct slotinfo {
    uint64_t ticket1; /* ticket + 1 while outstanding, 0 when consumed */
    uint8_t nslots;
    uint8_t policy;
};

/* The delegatee's state as a negative errno (0: running). */
static int dg_check(dlg_client_t *c, int probe)
{
    if (c->dead)
        return c->dead;
    struct dlg_hdr *h = c->h;
    uint32_t st = atomic_load_explicit(&h->dg_state, memory_order_acquire);
    if (st == DG_STOPPED)
        return c->dead = -ENOTCONN;
    if (st != DG_RUNNING)
        return c->dead = -EOWNERDEAD;
    if (!probe)
        return 0;
    int rc = dlg_life_check(&h->dg_life);
    if (rc == 0)
        return 0;
    st = atomic_load(&h->dg_state);
    if (rc == -ENOTCONN && st == DG_STOPPED)
        return c->dead = -ENOTCONN;
    /* Died, or released its life without saying it stopped. */
    atomic_store(&h->dg_state, DG_DEAD);
    return c->dead = -EOWNERDEAD;
}

int dlg_client_attach(dlg_region_t *r, const dlg_client_attr_t *attr,
                      dlg_client_t **out)
{
    if (!r || !out)
        return -EINVAL;
    struct dlg_hdr *h = dlg_region_base(r);
    if (dlg_region_size(r) < sizeof(*h))
        return -EPROTO;
    uint64_t magic = atomic_load_explicit((_Atomic uint64_t *)&h->magic,
                                          memory_order_acquire);
    if (magic == 0 && atomic_load(&h->dg_state) == DG_NONE)
        return -ENOTCONN;
    if (magic != DLG_MAGIC || h->version != DLG_VERSION ||
        h->size > dlg_region_size(r))
        return -EPROTO;
    dlg_client_t *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->r = r;
    c->h = h;
    int rc = dg_check(c, 1);
    uint64_t live_ms;
    if (!rc)
        rc = dlg_env_log();
    if (!rc)
        rc = dlg_spin_bound_env(&c->spin_ns);
    if (!rc)
        rc = dlg_env_uint("DLG_LIVENESS_MS", 20, 1, 60000, &live_ms);
    if (rc)
        goto fail;
    c->live_ns = live_ms * 1000000ull;
    c->slots = h->slots;
    c->consumed = calloc(c->slots, sizeof(struct slotinfo));
    if (!c->consumed) {
        rc = -ENOMEM;
        goto fail;
    }
    rc = -EUSERS;
    for (unsigned i = 0; i < h->max_clients; i++) {
        struct dlg_cblk *cb = dlg_cblk_at(h, i);
        uint32_t exp = CS_FREE;
        if (!atomic_compare_exchange_strong(&cb->state, &exp, CS_CLAIMED))
            continue;
        if ((rc = dlg_life_init(&cb->life)) ||
            (rc = -pthread_mutex_lock(&cb->life))) {
            atomic_store(&cb->state, CS_FREE);
            goto fail;
        }
        cb->pid = getpid();
        cb->same_as = attr && attr->same_address_space;
        cb->gen++;
        c->cb = cb;
        c->index = (int)i;
        break;
    }
    if (!c->cb)
        goto fail;
    c->ring = dlg_cblk_ring(c->cb);
    c->compl = dlg_cblk_compl(c->cb, c->slots);
    if (h->heap_share) {
        c->heap = (uint8_t *)h + h->heap_off + h->heap_share * c->index;
        c->heap_size = h->heap_share;
    }
    /* The delegatee reads this process's memory in XPROC mode; allow it
     * where a Yama policy would otherwise refuse. */
    if (h->dg_pid != getpid())
        (void)prctl(PR_SET_PTRACER, (unsigned long)h->dg_pid, 0, 0, 0);
    atomic_store_explicit(&c->cb->state, CS_ACTIVE, memory_order_release);
    *out = c;
    return 0;
fail:
    free(c->consumed);
    free(c);
    return rc;
}

int dlg_client_index(const dlg_client_t *c)
{
    return c ? c->index : -1;
}

int dlg_client_detach(dlg_client_t *c)
{
    if (!c)
        return 0;
    /* Outstanding requests are abandoned; the delegatee recycles the slot
     * once it sees the detach. */
    int rc = c->head != c->low ? -EBUSY : 0;
    atomic_store(&c->cb->state, CS_DETACHED);
    pthread_mutex_unlock(&c->cb->life);
    /* A delegatee that is gone will not recycle the slot: do it here. */
    if (c->dead) {
        c->cb->tail = 0;
        for (uint32_t k = 0; k < c->slots; k++) {
            atomic_store(&c->ring[k].seq, 0);
            atomic_store(&c->compl [k].cw, 0);
        }
    }
    free(c->consumed);
    free(c);
    return rc;
}

static int in_heap(const dlg_client_t *c, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)c->h + c->h->heap_off;
    const uint8_t *e = b + c->h->heap_share * c->h->max_clients;
    const uint8_t *q = p;
    return c->h->heap_share && q >= b && q <= e && n <= (size_t)(e - q);
}

/* Free the slots of consumed requests, oldest first. */
static void reclaim(dlg_client_t *c)
{
    struct slotinfo *si = (struct slotinfo *)c->consumed;
    while (c->low != c->head) {
        struct slotinfo *s = &si[c->low & (c->slots - 1)];
        if (s->ticket1)
            break;
        c->low += s->nslots;
    }
}

static void inline_scatter(dlg_client_t *c, struct dlg_desc *d, uint64_t t,
                           const uint8_t *src, size_t len, unsigned nargs)
{
    size_t first = (DLG_MAX_ARGS - nargs) * sizeof(uint64_t);
    size_t n = len < first ? len : first;
    memcpy(&d->args[nargs], src, n);
    size_t done = n;
    for (uint64_t k = 1; done < len; k++) {
        struct dlg_desc *cd = &c->ring[(t + k) & (c->slots - 1)];
        size_t m = len - done < DLG_CONT_BYTES ? len - done : DLG_CONT_BYTES;
        atomic_store_explicit(&cd->seq, 0, memory_order_relaxed);
        memcpy((char *)cd + 4, src + done, m);
        done += m;
    }
}

int dlg_submit(dlg_client_t *c, const dlg_call_t *call, dlg_ticket_t *t)
{
    if (!c || !call || !t || call->op >= DLG_MAX_OPS ||
        call->nargs > DLG_MAX_ARGS || call->mode > DLG_BUF_XPROC ||
        call->policy > DLG_POLICY_ADAPTIVE ||
        (call->dir & ~(unsigned)(DLG_BUF_IN | DLG_BUF_OUT)) ||
        (call->len && !call->buf))
        return -EINVAL;
    int rc = dg_check(c, 0);
    if (rc)
        return rc;
    struct dlg_hdr *h = c->h;
    unsigned dir = call->dir ? call->dir : DLG_BUF_IN;
    unsigned mode = call->mode;
    size_t len = call->buf ? call->len : 0;
    if (len == 0) {
        mode = 0;
    } else if (mode == DLG_BUF_AUTO) {
        /* Small input payloads travel inline; anything larger is passed by
         * reference whenever a zero-copy mode can reach it. */
        if (!(dir & DLG_BUF_OUT) && len <= h->inline_max)
            mode = DLG_BUF_INLINE;
        else if (in_heap(c, call->buf, len))
            mode = DLG_BUF_HEAP;
        else if (c->cb->same_as)
            mode = DLG_BUF_LOCAL;
        else
            mode = DLG_BUF_XPROC;
    } else if (mode == DLG_BUF_INLINE) {
        if (dir & DLG_BUF_OUT)
            return -EINVAL;
        if (len > h->inline_max)
            return -EMSGSIZE;
    } else if (mode == DLG_BUF_LOCAL && !c->cb->same_as) {
        return -EINVAL;
    } else if (mode == DLG_BUF_HEAP && !in_heap(c, call->buf, len)) {
        return -EFAULT;
    }
    unsigned nslots = 1;
    if (mode == DLG_BUF_INLINE) {
        size_t first = (DLG_MAX_ARGS - call->nargs) * sizeof(uint64_t);
        if (len > first)
            nslots +=
                (unsigned)((len - first + DLG_CONT_BYTES - 1) / DLG_CONT_BYTES);
    }
    if (c->head + nslots - c->low > c->slots) {
        reclaim(c);
        if (c->head + nslots - c->low > c->slots)
            return -EAGAIN;
    }
    uint64_t tk = c->head;
    struct dlg_desc *d = &c->ring[tk & (c->slots - 1)];
    d->op = (uint8_t)call->op;
    d->nargs = (uint8_t)call->nargs;
    d->mode = (uint8_t)(mode | (dir << 4));
    d->nslots = (uint8_t)nslots;
    d->len = len;
    d->buf = (uint64_t)(uintptr_t)call->buf;
    if (mode == DLG_BUF_HEAP)
        d->buf -= (uint64_t)(uintptr_t)((uint8_t *)h + h->heap_off);
    memcpy(d->args, call->args, call->nargs * sizeof(uint64_t));
    if (mode == DLG_BUF_INLINE)
        inline_scatter(c, d, tk, call->buf, len, call->nargs);
    struct slotinfo *si =
        &((struct slotinfo *)c->consumed)[tk & (c->slots - 1)];
    si->ticket1 = tk + 1;
    si->nslots = (uint8_t)nslots;
    dlg_policy_t pol = call->policy;
    if (pol == DLG_POLICY_DEFAULT)
        pol = (dlg_policy_t)atomic_load_explicit(&h->op_policy[call->op],
                                                 memory_order_relaxed);
    if (pol == DLG_POLICY_DEFAULT)
        pol = DLG_POLICY_ADAPTIVE;
    si->policy = (uint8_t)pol;
    c->head = tk + nslots;
    atomic_store_explicit(&d->seq, dlg_seq(tk), memory_order_release);
    /* Pairs with the fence in the delegatee's idle_block(): either it sees
     * this request in its last sweep, or we see it asleep and wake it. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&h->sleeping, memory_order_relaxed) &&
        atomic_exchange(&h->sleeping, 0)) {
        atomic_fetch_add(&h->doorbell, 1);
        dlg_futex_wake(&h->doorbell, 1, h->futex_private);
    }
    *t = tk;
    return 0;
}

/* Wait until the completion word shows `done`, by policy. */
static int wait_done(dlg_client_t *c, struct dlg_compl *cp, uint32_t done,
                     dlg_policy_t pol)
{
    int priv = c->h->futex_private;
    uint64_t start = 0, next_check = 0;
    unsigned spins = 0;
    for (;;) {
        uint32_t v = atomic_load_explicit(&cp->cw, memory_order_acquire);
        if ((v & ~1u) == done)
            return 0;
        int block = pol == DLG_POLICY_BLOCK;
        if (!block && (++spins & 63) == 0) {
            uint64_t now = dlg_now_ns();
            if (!start) {
                start = now;
                next_check = now + c->live_ns;
            }
            if (pol == DLG_POLICY_ADAPTIVE && now - start >= c->spin_ns)
                block = 1;
            if (now >= next_check) {
                int rc = dg_check(c, 1);
                if (rc)
                    goto gone;
                next_check = now + c->live_ns;
            }
            /* Never spin without yielding: the delegatee may need this
             * CPU. */
            if (!block && (spins % DLG_POLL_YIELD_EVERY) == 0)
                sched_yield();
        }
        if (!block) {
            dlg_cpu_relax();
            continue;
        }
        if (!(v & 1)) {
            if (!atomic_compare_exchange_weak(&cp->cw, &v, v | 1))
                continue;
            v |= 1;
        }
        int rc = dlg_futex_wait(&cp->cw, v, c->live_ns, priv);
        if (rc == -ETIMEDOUT && (rc = dg_check(c, 1)))
            goto gone;
    }
gone:
    /* The request may have completed just before the delegatee left. */
    if ((atomic_load(&cp->cw) & ~1u) == done)
        return 0;
    return c->dead;
}

int dlg_wait(dlg_client_t *c, dlg_ticket_t t, dlg_policy_t policy,
             int64_t *result, void *reply, size_t *reply_len)
{
    if (!c || policy > DLG_POLICY_ADAPTIVE)
        return -EINVAL;
    struct slotinfo *si = &((struct slotinfo *)c->consumed)[t & (c->slots - 1)];
    if (t >= c->head || si->ticket1 != t + 1)
        return -EINVAL;
    struct dlg_compl *cp = &c->compl [t & (c->slots - 1)];
    dlg_policy_t pol = policy ? policy : (dlg_policy_t)si->policy;
    int rc = wait_done(c, cp, dlg_done_mark(t), pol);
    if (rc)
        return rc;
    if (result)
        *result = cp->result;
    if (reply_len) {
        size_t n = cp->rlen;
        if (reply)
            memcpy(reply, cp->reply, n < *reply_len ? n : *reply_len);
        *reply_len = n;
    }
    si->ticket1 = 0;
    reclaim(c);
    return 0;
}

int dlg_call(dlg_client_t *c, const dlg_call_t *call, int64_t *result,
             void *reply, size_t *reply_len)
{
    dlg_ticket_t t;
    int rc = dlg_submit(c, call, &t);
    if (rc)
        return rc;
    return dlg_wait(c, t, DLG_POLICY_DEFAULT, result, reply, reply_len);
}

/* ---- shared heap: first fit over this client's share ---- */

struct hblk {
    uint64_t size; /* bytes including this header */
    uint64_t used;
    uint8_t pad[DLG_LINE - 16];
};

void *dlg_heap_alloc(dlg_client_t *c, size_t n)
{
    if (!c || !c->heap) {
        errno = ENOSYS;
        return NULL;
    }
    if (!c->heap_ready) {
        struct hblk *b = (struct hblk *)c->heap;
        b->size = c->heap_size;
        b->used = 0;
        c->heap_ready = 1;
    }
    if (n == 0 || n > c->heap_size) {
        errno = n ? ENOMEM : EINVAL;
        return NULL;
    }
    uint64_t need =
        sizeof(struct hblk) + ((n + DLG_LINE - 1) & ~(uint64_t)(DLG_LINE - 1));
    for (uint8_t *p = c->heap; p < c->heap + c->heap_size;) {
        struct hblk *b = (struct hblk *)p;
        if (b->size < sizeof(struct hblk) ||
            b->size > (uint64_t)(c->heap + c->heap_size - p))
            break; /* overwritten block header: give up, do not loop */
        if (!b->used) {
            /* Merge the free blocks that follow. */
            for (;;) {
                uint8_t *q = p + b->size;
                if (q >= c->heap + c->heap_size)
                    break;
                struct hblk *nb = (struct hblk *)q;
                if (nb->used || nb->size < sizeof(struct hblk) ||
                    nb->size > (uint64_t)(c->heap + c->heap_size - q))
                    break;
                b->size += nb->size;
            }
            if (b->size >= need) {
                if (b->size - need >= 2 * sizeof(struct hblk)) {
                    struct hblk *rest = (struct hblk *)(p + need);
                    rest->size = b->size - need;
                    rest->used = 0;
                    b->size = need;
                }
                b->used = 1;
                return p + sizeof(struct hblk);
            }
        }
        p += b->size;
    }
    errno = ENOMEM;
    return NULL;
}

void dlg_heap_free(dlg_client_t *c, void *p)
{
    if (!c || !p)
        return;
    struct hblk *b = (struct hblk *)((uint8_t *)p - sizeof(struct hblk));
    if ((uint8_t *)b < c->heap || (uint8_t *)b >= c->heap + c->heap_size)
        return;
    b->used = 0;
}
