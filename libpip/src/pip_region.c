/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_region.c: the address range of a private-image task (pip_image.c).
 *
 * Every private-image task gets a range of its own (PIP_REGION_SIZE bytes,
 * reserved PROT_NONE, aligned to its size) in which everything it maps
 * lives: its loader copy and stack (placed there by the root), and every
 * mapping its own code asks the kernel to place (mmap without MAP_FIXED:
 * its libraries, malloc's memory, its threads' stacks, ...).  When the
 * task has been reaped, the root returns the whole range at once, whatever
 * the task's libc or program left mapped.
 *
 * How its mappings get there: the task's seccomp filter (installed by the
 * clone child, pip_image.c) sends mmap without MAP_FIXED, munmap and
 * mremap made by code inside the range (the task's own code: its loader,
 * libc and program all lie there) to the root as seccomp user
 * notifications.  A thread of the root (the "placer", started with the
 * first such task) does the call on the task's behalf in the shared
 * address space, at an address of the task's range, and answers with the
 * result: anonymous and file mappings (the task's descriptor is fetched
 * with pidfd_getfd), munmap (the range is reserved again), mremap (moved
 * within the range).  Calls it cannot place (range full, MAP_HUGETLB,
 * MAP_32BIT, ...) and calls from processes the task fork()ed (their own
 * address space) continue as made.  A task without a range (no seccomp
 * listener, no room) runs as before: the root then returns only what its
 * link map records.
 */
#include "pip_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__aarch64__)

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#ifndef MAP_32BIT
#define MAP_32BIT 0 /* x86-64 only */
#endif
/* SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, missing from older headers */
#define PIP_SECCOMP_WAIT_KILLABLE_RECV (1UL << 5)
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define RG_PAGE     4096UL
#define RG_UP(x, a) (((uintptr_t)(x) + (a)-1) & ~((uintptr_t)(a)-1))
/* Where ranges go first: low in the 47-bit space, far below where the
 * kernel places mappings (top down from under the stack) and below PIE
 * programs (0x55...): a hole a task leaves is not taken by others. */
#define RG_POOL_LO 0x080000000000UL
#define RG_POOL_HI 0x500000000000UL

struct rg_ext {
    uintptr_t lo, hi;
};

struct pip_region {
    uintptr_t base;
    size_t size;
    struct rg_ext *fx; /* free extents, sorted, disjoint, not adjacent */
    int nfx, capfx;
    pid_t pid;       /* the task (its threads' thread group) */
    int pidfd;       /* for pidfd_getfd */
    int lfd;         /* its seccomp listener, or -1 */
    int dead;        /* the task was reaped: nothing more is placed here */
    int refs;        /* the task's, and the listener's while open */
    int mapped;      /* the range is still mapped */
    int no_killable; /* PIP_TEST_NO_WAIT_KILLABLE: as before Linux 5.19 */
    struct pip_region *next_kept;       /* kept until pip_fin */
    struct pip_region *next_l, *prev_l; /* listener open */
};

static pthread_mutex_t rg_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t rg_thread;
static int rg_running, rg_epfd = -1, rg_evfd = -1;
static uintptr_t rg_cursor = RG_POOL_LO;
static struct pip_region *rg_kept, *rg_listening;

/* ---- the free extents of a range ---- */

/* Mark [lo, hi) free (it may overlap free extents). */
static void rg_free(struct pip_region *g, uintptr_t lo, uintptr_t hi)
{
    if (hi <= lo)
        return;
    int i = 0, j;
    while (i < g->nfx && g->fx[i].hi < lo)
        i++;
    for (j = i; j < g->nfx && g->fx[j].lo <= hi; j++) {
        if (g->fx[j].lo < lo)
            lo = g->fx[j].lo;
        if (g->fx[j].hi > hi)
            hi = g->fx[j].hi;
    }
    /* extents i..j-1 merge into [lo, hi) */
    if (j == i) {
        if (g->nfx == g->capfx) {
            int cap = g->capfx ? g->capfx * 2 : 16;
            struct rg_ext *n = realloc(g->fx, sizeof(*n) * (size_t)cap);
            if (n == NULL)
                return; /* lost for reuse, not for the final unmap */
            g->fx = n;
            g->capfx = cap;
        }
        memmove(&g->fx[i + 1], &g->fx[i],
                sizeof(*g->fx) * (size_t)(g->nfx - i));
        g->nfx++;
    } else if (j > i + 1) {
        memmove(&g->fx[i + 1], &g->fx[j],
                sizeof(*g->fx) * (size_t)(g->nfx - j));
        g->nfx -= j - i - 1;
    }
    g->fx[i].lo = lo;
    g->fx[i].hi = hi;
}

/* Take `len` bytes aligned to `align` (first fit): the address, or 0. */
static uintptr_t rg_take(struct pip_region *g, size_t len, size_t align)
{
    for (int i = 0; i < g->nfx; i++) {
        uintptr_t a = RG_UP(g->fx[i].lo, align);
        if (a < g->fx[i].hi && g->fx[i].hi - a >= len) {
            uintptr_t lo = g->fx[i].lo, hi = g->fx[i].hi;
            /* remove, then give back the two sides */
            memmove(&g->fx[i], &g->fx[i + 1],
                    sizeof(*g->fx) * (size_t)(g->nfx - i - 1));
            g->nfx--;
            rg_free(g, lo, a);
            rg_free(g, a + len, hi);
            return a;
        }
    }
    return 0;
}

/* Put the reservation back over [a, a + len) (its memory is returned). */
static int rg_reserve(uintptr_t a, size_t len)
{
    return mmap((void *)a, len, PROT_NONE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
                0) == MAP_FAILED
               ? -1
               : 0;
}

static int rg_inside(const struct pip_region *g, uintptr_t a, size_t len)
{
    return a >= g->base && len <= g->size && a - g->base <= g->size - len;
}

static void rg_unref(struct pip_region *g)
{
    if (--g->refs > 0)
        return;
    if (g->pidfd >= 0)
        close(g->pidfd);
    if (g->mapped)
        munmap((void *)g->base, g->size);
    free(g->fx);
    free(g);
}

/* ---- the root's side ---- */

/* A new range for a task: NULL when none can be made (no room). */
struct pip_region *pip_region_new(void)
{
    struct pip_region *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return NULL;
    size_t size = PIP_REGION_SIZE;
    void *p = MAP_FAILED;
    pthread_mutex_lock(&rg_mu);
    uintptr_t start = rg_cursor;
    do {
        p = mmap((void *)rg_cursor, size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                     MAP_FIXED_NOREPLACE,
                 -1, 0);
        if (p != MAP_FAILED && (uintptr_t)p != rg_cursor) {
            munmap(p, size); /* an old kernel took it as a hint */
            p = MAP_FAILED;
        }
        int e = errno;
        rg_cursor += size;
        if (rg_cursor >= RG_POOL_HI)
            rg_cursor = RG_POOL_LO;
        if (p == MAP_FAILED && e != EEXIST)
            break; /* beyond this machine's address space */
    } while (p == MAP_FAILED && rg_cursor != start);
    pthread_mutex_unlock(&rg_mu);
    if (p == MAP_FAILED) {
        /* Anywhere, aligned to its size. */
        char *q = mmap(NULL, 2 * size, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (q == MAP_FAILED) {
            free(g);
            return NULL;
        }
        uintptr_t a = RG_UP(q, size);
        if (a > (uintptr_t)q)
            munmap(q, a - (uintptr_t)q);
        munmap((void *)(a + size), (uintptr_t)q + 2 * size - (a + size));
        p = (void *)a;
    }
    g->base = (uintptr_t)p;
    g->size = size;
    g->pidfd = -1;
    g->lfd = -1;
    g->refs = 1;
    g->mapped = 1;
    const char *nk = getenv("PIP_TEST_NO_WAIT_KILLABLE");
    g->no_killable = nk != NULL && strcmp(nk, "1") == 0;
    rg_free(g, g->base, g->base + size);
    return g;
}

uintptr_t pip_region_base(const struct pip_region *g)
{
    return g->base;
}

/* `len` bytes of the range (still reserved PROT_NONE: map over them with
 * MAP_FIXED), or NULL. */
void *pip_region_take(struct pip_region *g, size_t len)
{
    pthread_mutex_lock(&rg_mu);
    uintptr_t a = rg_take(g, RG_UP(len, RG_PAGE), RG_PAGE);
    pthread_mutex_unlock(&rg_mu);
    return (void *)a;
}

/* ---- the placer thread ---- */

static int rg_is_thread_of(pid_t tgid, pid_t tid)
{
    if (tid == tgid)
        return 1;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
    return access(path, F_OK) == 0;
}

/*
 * What a served call did, to finish or undo once the answer is sent: the
 * task may be gone from the call by then (a fatal signal, or any handled
 * signal on a kernel without SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV), and
 * then never learns the answer: it restarts the call or fails it with
 * EINTR.  A mapping made for it must not stay in its range unknown to it,
 * nor a moved mapping stay moved.
 */
struct rg_done {
    int kind;       /* RG_MAPPED, RG_MOVED, RG_SHRUNK, or 0 */
    uintptr_t a, n; /* mapped at a (size bytes); moved from a to n */
    size_t size, osz, nsz, os, ns;
};
#define RG_MAPPED 1
#define RG_MOVED  2
#define RG_SHRUNK 3

/* mmap for the task: 1 answered (resp set), 0 let it continue. */
static int rg_mmap(struct pip_region *g, const struct seccomp_notif *q,
                   struct seccomp_notif_resp *r, struct rg_done *d)
{
    size_t len = (size_t)q->data.args[1];
    int prot = (int)q->data.args[2], flags = (int)q->data.args[3];
    int fd = (int)q->data.args[4];
    off_t off = (off_t)q->data.args[5];
    if (len == 0 || len > g->size ||
        (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_HUGETLB |
                  MAP_GROWSDOWN | MAP_32BIT)))
        return 0;
    size_t size = RG_UP(len, RG_PAGE);
    uintptr_t a = rg_take(g, size, size >= (2UL << 20) ? (2UL << 20) : RG_PAGE);
    if (a == 0)
        return 0; /* full: the kernel places it */
    int mfd = -1;
    if (!(flags & MAP_ANONYMOUS)) {
        mfd = (int)syscall(SYS_pidfd_getfd, g->pidfd, fd, 0);
        if (mfd < 0) {
            int e = errno;
            rg_free(g, a, a + size);
            if (e != EBADF)
                return 0;
            r->error = -EBADF;
            return 1;
        }
    }
    void *p = mmap((void *)a, len, prot, flags | MAP_FIXED, mfd, off);
    int e = errno;
    if (mfd >= 0)
        close(mfd);
    if (p == MAP_FAILED) {
        (void)rg_reserve(a, size);
        rg_free(g, a, a + size);
        r->error = -e;
        return 1;
    }
    r->val = (int64_t)(uintptr_t)p;
    d->kind = RG_MAPPED;
    d->a = a;
    d->size = size;
    return 1;
}

static int rg_munmap(struct pip_region *g, const struct seccomp_notif *q,
                     struct seccomp_notif_resp *r)
{
    uintptr_t a = (uintptr_t)q->data.args[0];
    size_t len = (size_t)q->data.args[1];
    if (len == 0 || (a & (RG_PAGE - 1)) != 0 ||
        !rg_inside(g, a, RG_UP(len, RG_PAGE)))
        return 0;
    size_t size = RG_UP(len, RG_PAGE);
    if (rg_reserve(a, size) != 0) {
        r->error = -errno;
        return 1;
    }
    rg_free(g, a, a + size);
    r->val = 0;
    return 1;
}

static int rg_mremap(struct pip_region *g, const struct seccomp_notif *q,
                     struct seccomp_notif_resp *r, struct rg_done *d)
{
    uintptr_t old = (uintptr_t)q->data.args[0];
    size_t osz = (size_t)q->data.args[1], nsz = (size_t)q->data.args[2];
    int flags = (int)q->data.args[3];
    if (osz == 0 || nsz == 0 || (old & (RG_PAGE - 1)) != 0 ||
        !(flags & MREMAP_MAYMOVE) ||
        (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) ||
        !rg_inside(g, old, RG_UP(osz, RG_PAGE)))
        return 0;
    size_t os = RG_UP(osz, RG_PAGE), ns = RG_UP(nsz, RG_PAGE);
    void *p;
    if (ns <= os) {
        p = mremap((void *)old, osz, nsz, 0);
        if (p == MAP_FAILED) {
            r->error = -errno;
            return 1;
        }
        if (ns < os) { /* its tail is reserved again in rg_finish */
            d->kind = RG_SHRUNK;
            d->a = old;
            d->osz = osz;
            d->nsz = nsz;
            d->os = os;
            d->ns = ns;
        }
        r->val = (int64_t)(uintptr_t)p;
        return 1;
    }
    uintptr_t n = rg_take(g, ns, ns >= (2UL << 20) ? (2UL << 20) : RG_PAGE);
    if (n == 0)
        return 0;
    p = mremap((void *)old, osz, nsz, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)n);
    if (p == MAP_FAILED) {
        int e = errno;
        (void)rg_reserve(n, ns);
        rg_free(g, n, n + ns);
        r->error = -e;
        return 1;
    }
    /* The old place is reserved again once the task has the answer. */
    d->kind = RG_MOVED;
    d->a = old;
    d->n = n;
    d->osz = osz;
    d->nsz = nsz;
    d->os = os;
    d->ns = ns;
    r->val = (int64_t)(uintptr_t)p;
    return 1;
}

/* After the answer (sent: the task has it), under rg_mu. */
static void rg_finish(struct pip_region *g, const struct rg_done *d, int sent)
{
    if (d->kind == 0 || g->dead || !g->mapped)
        return; /* the range goes as a whole */
    if (d->kind == RG_MAPPED && !sent) {
        if (rg_reserve(d->a, d->size) == 0)
            rg_free(g, d->a, d->a + d->size);
        pip_dbg("task pid %d: an mmap it was interrupted in was undone",
                (int)g->pid);
    } else if (d->kind == RG_MOVED && sent) {
        if (rg_reserve(d->a, d->os) == 0)
            rg_free(g, d->a, d->a + d->os);
    } else if (d->kind == RG_SHRUNK) {
        /* Not sent: its old size back in place (the tail's pages are new),
         * so that the call it restarts finds what it asked to shrink. */
        if ((sent || mremap((void *)d->a, d->nsz, d->osz, 0) == MAP_FAILED) &&
            rg_reserve(d->a + d->ns, d->os - d->ns) == 0)
            rg_free(g, d->a + d->ns, d->a + d->os);
    } else if (d->kind == RG_MOVED) {
        /* Back where the task still has it; its old place was never
         * given back. */
        if (mremap((void *)d->n, d->nsz, d->osz, MREMAP_MAYMOVE | MREMAP_FIXED,
                   (void *)d->a) != MAP_FAILED &&
            rg_reserve(d->n, d->ns) == 0)
            rg_free(g, d->n, d->n + d->ns);
        pip_dbg("task pid %d: an mremap it was interrupted in was undone",
                (int)g->pid);
    }
}

static void rg_serve(struct pip_region *g)
{
    struct seccomp_notif q;
    struct seccomp_notif_resp r;
    memset(&q, 0, sizeof(q));
    if (ioctl(g->lfd, SECCOMP_IOCTL_NOTIF_RECV, &q) != 0)
        return; /* the caller is gone */
    memset(&r, 0, sizeof(r));
    r.id = q.id;
    int done = 0;
    struct rg_done d;
    memset(&d, 0, sizeof(d));
    pthread_mutex_lock(&rg_mu);
    if (!g->dead && rg_is_thread_of(g->pid, (pid_t)q.pid)) {
        if (q.data.nr == SYS_mmap)
            done = rg_mmap(g, &q, &r, &d);
        else if (q.data.nr == SYS_munmap)
            done = rg_munmap(g, &q, &r); /* done again if restarted */
        else if (q.data.nr == SYS_mremap)
            done = rg_mremap(g, &q, &r, &d);
    }
    pthread_mutex_unlock(&rg_mu);
    if (!done) {
        r.error = 0;
        r.val = 0;
        r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    }
    /* ENOENT: the task left the call (it is restarted, or fails). */
    int sent = ioctl(g->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r) == 0;
    if (d.kind != 0) {
        pthread_mutex_lock(&rg_mu);
        rg_finish(g, &d, sent);
        pthread_mutex_unlock(&rg_mu);
    }
}

static void rg_close_listener(struct pip_region *g)
{
    if (g->lfd < 0)
        return;
    (void)epoll_ctl(rg_epfd, EPOLL_CTL_DEL, g->lfd, NULL);
    close(g->lfd);
    g->lfd = -1;
    if (g->prev_l != NULL)
        g->prev_l->next_l = g->next_l;
    else
        rg_listening = g->next_l;
    if (g->next_l != NULL)
        g->next_l->prev_l = g->prev_l;
    rg_unref(g);
}

static void *rg_placer(void *arg)
{
    (void)arg;
    struct epoll_event ev[16];
    for (;;) {
        int n = epoll_wait(rg_epfd, ev, 16, -1);
        if (n < 0 && errno != EINTR)
            return NULL;
        for (int i = 0; i < n; i++) {
            struct pip_region *g = ev[i].data.ptr;
            if (g == NULL) {
                uint64_t v;
                if (read(rg_evfd, &v, sizeof(v)) < 0)
                    v = 0;
                return NULL; /* pip_fin */
            }
            if (ev[i].events & EPOLLIN)
                rg_serve(g);
            else if (ev[i].events & (EPOLLHUP | EPOLLERR)) {
                /* No process uses its filter any more. */
                pthread_mutex_lock(&rg_mu);
                rg_close_listener(g);
                pthread_mutex_unlock(&rg_mu);
            }
        }
    }
}

static int rg_start_placer(void)
{
    if (rg_running)
        return 0;
    rg_epfd = epoll_create1(EPOLL_CLOEXEC);
    rg_evfd = eventfd(0, EFD_CLOEXEC);
    if (rg_epfd < 0 || rg_evfd < 0)
        goto fail;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(rg_epfd, EPOLL_CTL_ADD, rg_evfd, &ev) != 0)
        goto fail;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&rg_thread, NULL, rg_placer, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        goto fail;
    rg_running = 1;
    return 0;
fail:
    if (rg_epfd >= 0)
        close(rg_epfd);
    if (rg_evfd >= 0)
        close(rg_evfd);
    rg_epfd = rg_evfd = -1;
    return -1;
}

/*
 * The task `pid` runs with its range `g` and its filter's listener `lfd`
 * (the root's descriptor now): serve it.  0, or -1 (lfd is closed: the
 * calls the filter sends then fail with ENOSYS; pip_image.c kills such a
 * task before it runs).
 */
int pip_region_serve(struct pip_region *g, pid_t pid, int lfd)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    pthread_mutex_lock(&rg_mu);
    int rc = pidfd < 0 ? -1 : rg_start_placer();
    if (rc == 0) {
        g->pid = pid;
        g->pidfd = pidfd;
        g->lfd = lfd;
        g->refs++;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = g};
        if (epoll_ctl(rg_epfd, EPOLL_CTL_ADD, lfd, &ev) != 0) {
            g->lfd = -1;
            g->refs--;
            rc = -1;
        } else {
            g->prev_l = NULL;
            g->next_l = rg_listening;
            if (rg_listening != NULL)
                rg_listening->prev_l = g;
            rg_listening = g;
        }
    }
    pthread_mutex_unlock(&rg_mu);
    if (rc != 0) {
        close(lfd);
        if (pidfd >= 0 && g->pidfd != pidfd)
            close(pidfd);
    }
    return rc;
}

/* Does the range hold address `a`? */
int pip_region_holds(const struct pip_region *g, uintptr_t a)
{
    return g != NULL && a >= g->base && a - g->base < g->size;
}

/*
 * The task was reaped: nothing more is placed in its range; the range is
 * returned now, or at pip_fin when `keep` (another task may still use it).
 */
void pip_region_release(struct pip_region *g, int keep)
{
    if (g == NULL)
        return;
    pthread_mutex_lock(&rg_mu);
    g->dead = 1;
    if (keep) {
        g->next_kept = rg_kept;
        rg_kept = g;
        g->refs++;
    } else if (g->mapped) {
        munmap((void *)g->base, g->size);
        g->mapped = 0;
    }
    rg_unref(g);
    pthread_mutex_unlock(&rg_mu);
}

/* pip_fin: the kept ranges go; the placer stops. */
void pip_region_fin(void)
{
    pthread_mutex_lock(&rg_mu);
    while (rg_kept != NULL) {
        struct pip_region *g = rg_kept;
        rg_kept = g->next_kept;
        if (g->mapped) {
            munmap((void *)g->base, g->size);
            g->mapped = 0;
        }
        rg_unref(g);
    }
    /* Processes a task fork()ed that still use its filter: their calls
     * fail (ENOSYS) from now on rather than wait for a placer. */
    while (rg_running && rg_listening != NULL)
        rg_close_listener(rg_listening);
    int running = rg_running;
    rg_running = 0;
    pthread_mutex_unlock(&rg_mu);
    if (!running)
        return;
    uint64_t one = 1;
    if (write(rg_evfd, &one, sizeof(one)) == sizeof(one))
        pthread_join(rg_thread, NULL);
    close(rg_evfd);
    close(rg_epfd);
    rg_evfd = rg_epfd = -1;
}

/* ---- the task's side (its clone child, before its loader runs) ---- */

#if defined(__x86_64__)
#define RG_AUDIT_ARCH 0xc000003eU /* AUDIT_ARCH_X86_64 */
#else
#define RG_AUDIT_ARCH 0xc00000b7U /* AUDIT_ARCH_AARCH64 */
#endif

/* The one-byte message that carries the task's listener (or none) from
 * the clone child to the root. */
struct rg_fdmsg {
    char byte;
    struct iovec iov;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    struct msghdr mh;
};

static void rg_fdmsg_init(struct rg_fdmsg *m, int with_fd)
{
    memset(m, 0, sizeof(*m));
    m->iov.iov_base = &m->byte;
    m->iov.iov_len = 1;
    m->mh.msg_iov = &m->iov;
    m->mh.msg_iovlen = 1;
    if (with_fd) {
        m->mh.msg_control = m->cm.buf;
        m->mh.msg_controllen = sizeof(m->cm.buf);
    }
}

/*
 * The task's seccomp filter (raw system calls: the child runs on the
 * root's thread block).  brk() answers 0: the break is the whole address
 * space's, so glibc's sbrk fails cleanly and malloc uses mmap.  With a
 * range (pip_region.c): mmap without MAP_FIXED, munmap and mremap made by
 * code inside the range (the task's own: its loader, libc, program) go to
 * the root's placer; the listener is sent to the root through
 * t->region_sock (one byte, with the descriptor or without).  0, or -1.
 */
int pip_region_child_filter(struct pip_task *t)
{
    if (pip_raw_syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0)
        return -1;
    long lfd = -1;
    if (t->region != NULL && t->region_sock >= 0) {
        struct sock_filter nf[] = {
            /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                             offsetof(struct seccomp_data, arch)),
            /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RG_AUDIT_ARCH, 1, 0),
            /* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            /* 3 */
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                     offsetof(struct seccomp_data, nr)),
            /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_brk, 0, 1),
            /* 5 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
            /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 3, 0),
            /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_munmap, 4, 0),
            /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mremap, 3, 0),
            /* 9 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            /* 10: mmap's flags (low word of args[3]) */
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                     offsetof(struct seccomp_data, args) + 3 * 8),
            /* 11 */
            BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
                     MAP_FIXED | MAP_FIXED_NOREPLACE, 3, 0),
            /* 12: the high word of the instruction pointer */
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                     offsetof(struct seccomp_data, instruction_pointer) + 4),
            /* 13 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 1),
            /* 14 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, t->region_key, 1, 0),
            /* 15 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            /* 16 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
        };
        struct sock_fprog np = {(unsigned short)(sizeof(nf) / sizeof(nf[0])),
                                nf};
        /* Once the root's thread has taken a call, only a fatal signal
         * may interrupt the task's wait (Linux 5.19); before (and on
         * older kernels, after too) a handled signal interrupts it: the
         * loader runs with every signal blocked, pip_taskstart.so makes
         * the program's calls restart, and rg_finish undoes what the
         * placer did for a call the task left. */
        lfd = -EINVAL;
        if (!t->region->no_killable)
            lfd = pip_raw_syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                  SECCOMP_FILTER_FLAG_NEW_LISTENER |
                                      PIP_SECCOMP_WAIT_KILLABLE_RECV,
                                  (long)&np, 0, 0, 0);
        if (lfd == -EINVAL)
            lfd = pip_raw_syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                  SECCOMP_FILTER_FLAG_NEW_LISTENER, (long)&np,
                                  0, 0, 0);
    }
    if (lfd < 0) {
        struct sock_filter filt[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                     offsetof(struct seccomp_data, arch)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RG_AUDIT_ARCH, 1, 0),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                     offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_brk, 0, 1),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {
            (unsigned short)(sizeof(filt) / sizeof(filt[0])), filt};
        if (pip_raw_syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
                            (long)&prog, 0, 0, 0) != 0)
            return -1;
    }
    if (t->region_sock >= 0) {
        struct rg_fdmsg m;
        rg_fdmsg_init(&m, lfd >= 0);
        if (lfd >= 0) {
            struct cmsghdr *c = CMSG_FIRSTHDR(&m.mh);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            int fdv = (int)lfd;
            memcpy(CMSG_DATA(c), &fdv, sizeof(int));
        }
        (void)pip_raw_syscall(SYS_sendmsg, t->region_sock, (long)&m.mh, 0, 0, 0,
                              0);
        (void)pip_raw_syscall(SYS_close, t->region_sock, 0, 0, 0, 0, 0);
        if (lfd >= 0)
            (void)pip_raw_syscall(SYS_close, lfd, 0, 0, 0, 0, 0);
    }
    return 0;
}

/* The listener the clone child sent (pip_region_child_filter), or -1. */
int pip_region_recv_listener(int sock)
{
    struct rg_fdmsg m;
    rg_fdmsg_init(&m, 1);
    ssize_t n = recvmsg(sock, &m.mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n != 1)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m.mh);
    if (c == NULL || c->cmsg_level != SOL_SOCKET ||
        c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}

#else

struct pip_region *pip_region_new(void)
{
    return NULL;
}

void pip_region_fin(void)
{
}

#endif
