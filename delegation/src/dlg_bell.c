/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_bell.c: doorbells (a delegatee's shared page: ring, sleep, turn
 * lock, waiter counts, turn functions), the delegatee's idle loop on it,
 * completion flags and the wait for one with the three policies.
 */
#include "config.h"
#include "dlg_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

_Static_assert(sizeof(dlg_bell_t) <= DLG_BELL_SIZE, "a doorbell is one page");

/* A doorbell's futex words are shared between processes: never the
 * private form. */

static uint64_t ticks(void)
{
#if defined(__x86_64__)
    return __rdtsc();
#elif defined(__aarch64__)
    /* The generic timer's virtual count, readable from user mode (Linux
     * enables EL0 access); its rate is measured like the TSC's. */
    uint64_t v;
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
#else
    return 0;
#endif
}

/* Ticks of ticks() in 5 us (0: no tick counter), from 1 ms of spinning;
 * once per process. */
static uint64_t ticks_per_5us(void)
{
    static _Atomic uint64_t cached; /* value + 1 */
    uint64_t c = atomic_load(&cached);
    if (c)
        return c - 1;
    uint64_t k0 = ticks(), t0 = dlg_now_ns(), ns;
    do
        ns = dlg_now_ns() - t0;
    while (ns < 1000000);
    c = (ticks() - k0) * 5000 / ns;
    atomic_store(&cached, c + 1);
    return c;
}

int dlg_bell_create(const dlg_turns_t *turns, dlg_bell_t **out)
{
    int fd = memfd_create("dlg-bell", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (ftruncate(fd, DLG_BELL_SIZE) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    dlg_bell_t *b =
        mmap(NULL, DLG_BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (b == MAP_FAILED) {
        int e = errno;
        close(fd);
        return -e;
    }
    b->pid = (int32_t)getpid();
    b->fd = fd;
    if (turns) {
        atomic_store(&b->turn, (uint64_t)(uintptr_t)turns->turn);
        atomic_store(&b->post, (uint64_t)(uintptr_t)turns->post);
        atomic_store(&b->direct, (uint64_t)(uintptr_t)turns->direct);
    }
    ticks_per_5us(); /* calibrated now, not on the first ring */
    *out = b;
    return 0;
}

void dlg_bell_spec(const dlg_bell_t *b, char *buf, size_t n)
{
    snprintf(buf, n, "%d:%d", (int)b->pid, (int)b->fd);
}

int dlg_bell_open(const char *spec, dlg_bell_t **out)
{
    int pid, fd;
    char path[64];
    if (!spec || sscanf(spec, "%d:%d", &pid, &fd) != 2 || pid <= 0 || fd < 0)
        return -EINVAL;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0)
        return -errno;
    void *p =
        mmap(NULL, DLG_BELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    int e = errno;
    close(f);
    if (p == MAP_FAILED)
        return -e;
    *out = p;
    return 0;
}

void dlg_bell_close(dlg_bell_t *b)
{
    if (b)
        munmap(b, DLG_BELL_SIZE);
}

void dlg_bell_destroy(dlg_bell_t *b)
{
    if (!b)
        return;
    int fd = b->fd;
    munmap(b, DLG_BELL_SIZE);
    close(fd);
}

int dlg_bell_turns(const dlg_bell_t *b, dlg_turns_t *out)
{
    if (b->pid != (int32_t)getpid())
        return -EXDEV;
    uint64_t t = atomic_load(&((dlg_bell_t *)b)->turn);
    if (!t)
        return -ENOENT;
    out->turn = (int (*)(void))(uintptr_t)t;
    out->post = (int (*)(void))(uintptr_t)atomic_load(&((dlg_bell_t *)b)->post);
    out->direct = (int (*)(unsigned, int, uint64_t))(uintptr_t)atomic_load(
        &((dlg_bell_t *)b)->direct);
    return 0;
}

/* The first ring after the delegatee announced its sleep wakes it and
 * takes the announcement back: the rings that follow before it runs (a
 * client posting a window of requests) find it awake, without a system
 * call each.  The sleeper's futex word is seq, which every ring changes
 * first, so a ring that finds the announcement taken cannot be missed. */
void dlg_bell_wake(dlg_bell_t *b)
{
    if (atomic_exchange_explicit(&b->sleeping, 0, memory_order_seq_cst))
        dlg_futex_wake(&b->seq, INT_MAX, 0);
}

int dlg_bell_ring_trusted(dlg_bell_t *b, uint64_t *seen)
{
    uint64_t per = ticks_per_5us();
    if (!per)
        return dlg_bell_ring(b);
    uint64_t now = ticks();
    if (now - *seen < per)
        return 1;
    int rc = dlg_bell_ring(b);
    if (rc)
        *seen = now;
    return rc;
}

void dlg_bell_turn_take(dlg_bell_t *b)
{
    while (!dlg_bell_turn_try(b))
        sched_yield();
}

void dlg_bell_wait_enter(dlg_bell_t *b)
{
    atomic_fetch_add(&b->waits, (uint64_t)1 << 32 | 1);
}

void dlg_bell_wait_leave(dlg_bell_t *b)
{
    atomic_fetch_sub(&b->waits, 1);
}

void dlg_bell_wait_handback(dlg_bell_t *b)
{
    dlg_bell_wait_leave(b);
    dlg_bell_ring(b);
}

int dlg_bell_hand_over(dlg_bell_t *b, const dlg_turns_t *turns, unsigned op,
                       int who, uint64_t arg)
{
    if (!turns || !turns->direct)
        return -EBUSY;
    if (turns->direct(op, who, arg) == 0)
        return 0;
    /* a turn running on another CPU ends within a microsecond or so:
     * first a short spin without a system call */
    for (int s = 0; s < 64 && dlg_bell_turn_busy(b); s++)
        dlg_cpu_relax();
    /* then the holder may be preempted inside its turn on this very CPU:
     * a few yields let it finish there */
    for (int k = 0; k < 5; k++) {
        if (turns->direct(op, who, arg) == 0)
            return 0;
        if (k < 4)
            sched_yield();
    }
    return -EBUSY;
}

/* Announce a sleep: the seq value that a ring changes from now on. */
static uint32_t bell_arm(dlg_bell_t *b)
{
    uint32_t seq = atomic_load_explicit(&b->seq, memory_order_seq_cst);
    atomic_store_explicit(&b->sleeping, 1, memory_order_seq_cst);
    return seq;
}

static void bell_disarm(dlg_bell_t *b)
{
    atomic_store_explicit(&b->sleeping, 0, memory_order_relaxed);
}

int dlg_bell_idle(dlg_bell_t *b, dlg_idle_t *st, int work, int (*turn)(void),
                  unsigned (*flags)(void), int poll_only)
{
    if (!st->ready) {
        st->ready = 1;
        st->spin_ns = dlg_spin_bound_ns();
        prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    }
    if (work > 0) {
        st->rounds = 0;
        st->spin_since = 0;
        return 0;
    }
    /* Clients of our address space run the turns while they spin in a
     * wait: nap long (5 ms), leaving the cores to them (each wake takes
     * one from them for a moment).  Nobody rings while a client waits; a
     * ring after that ends the nap.  A client that entered a wait since
     * our last nap, with nothing in flight, is between two waits (a
     * ping-pong sends between its receives): nap again rather than spin
     * with yields that take its core. */
    if (flags() & DLG_IDLE_TURNS) {
        uint32_t entries = dlg_bell_entries(b);
        if (dlg_bell_waiters(b) ||
            (entries != st->entries_seen && (flags() & DLG_IDLE_SLEEP))) {
            st->entries_seen = entries;
            uint32_t seq = bell_arm(b);
            if ((uint32_t)atomic_load_explicit(&b->waits,
                                               memory_order_seq_cst) ||
                turn() <= 0) {
                dlg_futex_wait(&b->seq, seq, 5000000, 0);
                st->sleeps++;
            }
            bell_disarm(b);
            st->rounds = 0;
            return 1;
        }
    }
    if (work < 0 || poll_only) {
        sched_yield();
        return 0;
    }
    unsigned fl = flags();
    if (fl & DLG_IDLE_SPIN) {
        /* the clients sleep until we complete their records: their CPUs
         * are free, and a message that finds us polling needs no wake-up
         * (a yield now and then: a system call each) */
        uint64_t t = dlg_now_ns();
        if (!st->spin_since)
            st->spin_since = t;
        if (t - st->spin_since < 1000000) {
            if ((++st->spins & 31) == 0)
                sched_yield();
            else
                dlg_cpu_relax();
            return 0;
        }
    }
    if (++st->rounds < ((fl & DLG_IDLE_QUICK) ? 4u : 64u)) {
        sched_yield();
        return 0;
    }
    uint64_t now = dlg_now_ns();
    if (fl & DLG_IDLE_QUICK)
        st->rounds = 65, st->t_idle = now - st->spin_ns;
    if (st->rounds == 64)
        st->t_idle = now;
    if (now - st->t_idle < st->spin_ns) {
        sched_yield();
        return 0;
    }
    /* Nothing to do: sleep on the doorbell, which clients and peers ring
     * after handing us work; the timeout bounds what a missed ring (work
     * that arrives by another way) can cost.  Only work a peer moves in
     * flight: look again after 20 us, leaving the CPU meanwhile to whoever
     * moves the other end. */
    uint32_t seq = bell_arm(b);
    int look = 0, slept = 0;
    if (turn() == 0) {
        unsigned f = flags();
        uint64_t nap = 0;
        if (f & DLG_IDLE_SLEEP)
            nap = (f & DLG_IDLE_TURNS) ? 50000 : 2000000;
        else if (f & DLG_IDLE_LOOK)
            nap = 20000, look = 1;
        if (nap) {
            dlg_futex_wait(&b->seq, seq, nap, 0);
            st->sleeps++;
            slept = 1;
        }
    }
    bell_disarm(b);
    /* after a nap for a peer's work the next idle turn may nap again at
     * once (after the spin bound) */
    st->rounds = look ? 63 : 0;
    return slept;
}

void dlg_flag_set(dlg_flag_t *f, int wake)
{
    atomic_store_explicit(&f->done, 1, memory_order_release);
    if (!wake)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&f->waiting, memory_order_relaxed))
        dlg_futex_wake(&f->done, INT_MAX, 0);
}

/* f->waiting: 1, a waiter slept; 2, one sleeps counted in its bell's
 * asleep word.  Whoever turns 2 into 1 (this, or the waiter after its
 * sleep) uncounts it. */
void dlg_flag_set_bell(dlg_flag_t *f, dlg_bell_t *b, int wake)
{
    atomic_store_explicit(&f->done, 1, memory_order_release);
    if (!wake)
        return;
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&f->waiting, memory_order_relaxed))
        return;
    uint32_t two = 2;
    if (b && atomic_compare_exchange_strong(&f->waiting, &two, 1))
        atomic_fetch_sub(&b->asleep, 1);
    dlg_futex_wake(&f->done, INT_MAX, 0);
}

int dlg_pid_alive(pid_t pid)
{
    return !(pid > 0 && kill(pid, 0) < 0 && errno == ESRCH);
}

/* Did this thread's last yield in a wait let another thread run (it took
 * over 2 us; a yield with nobody else to run takes well under one)?  Then
 * its CPU is shared, perhaps with the very rank it waits for (more ranks
 * than CPUs), which runs only when we leave it: the next waits yield
 * early.  A yield that comes back at once clears it.  (Read once per wait:
 * a thread-local variable of a shared library costs a call.) */
static __thread unsigned char cpu_shared;

/* A wait's yield state: idle, the rounds since a turn last moved
 * something; shared, a copy of cpu_shared. */
struct wait_yield {
    unsigned idle;
    unsigned char shared, changed;
};

static int wait_round(const dlg_waiter_t *w, unsigned k, struct wait_yield *y)
{
    if (w->hook && (k & w->hook_mask) == 0)
        w->hook(w->ctx);
    int rc = dlg_turn_run(w->turns);
    if (rc < 0) { /* another thread's turn, or none (process form) */
        if ((k & 7) == 0)
            sched_yield();
        return rc;
    }
    y->idle = rc > 0 ? 0 : y->idle + 1;
    /* A reply from a rank on a CPU of its own comes within ~32 idle
     * rounds: yield every 8th idle round after that (a handover costs
     * ~1 us, spinning to the end of a time slice milliseconds), every 4th
     * from the 4th on a shared CPU.  A turn that moves data (a transfer
     * this thread drives) starts the count again. */
    unsigned i = y->idle;
    if (y->shared ? i >= 4 && (i & 3) == 0 : i >= 32 && (i & 7) == 0) {
        uint64_t t0 = dlg_now_ns();
        sched_yield();
        y->shared = dlg_now_ns() - t0 > 2000;
        y->changed = 1;
    }
    return rc;
}

int dlg_wait_round(const dlg_waiter_t *w, unsigned k)
{
    /* a caller's own loop: its idle rounds counted from its k */
    static __thread unsigned idle_rounds;
    struct wait_yield y = {k <= 2 ? 0 : idle_rounds, cpu_shared, 0};
    int rc = wait_round(w, k, &y);
    idle_rounds = y.idle;
    if (y.changed)
        cpu_shared = y.shared;
    return rc;
}

int dlg_poll_round(const dlg_turns_t *t, unsigned k, unsigned every)
{
    int rc = dlg_turn_run(t);
    if (rc < 0 || (every && (k & (every - 1)) == 0))
        sched_yield();
    return rc;
}

#define LIVE_NS 20000000u

int dlg_flag_wait(dlg_flag_t *f, const dlg_waiter_t *w)
{
    dlg_policy_t policy = w->policy;
    if (policy == DLG_POLICY_DEFAULT)
        policy = DLG_POLICY_ADAPTIVE;
    if (dlg_flag_done(f))
        return 0;
    /* turns need the doorbell */
    const dlg_turns_t *turns = w->bell ? w->turns : NULL;
    /* a clock read costs as much as a short turn: polling needs the clock
     * only for the liveness check, from the 256th round on */
    int poll = policy == DLG_POLICY_POLL;
    uint64_t t0 = poll ? 0 : dlg_now_ns(), t = t0;
    uint64_t check = poll ? 0 : t0 + LIVE_NS;
    uint64_t spin = policy == DLG_POLICY_ADAPTIVE ? dlg_spin_bound_ns() : 0;
    unsigned i = poll, clock_mask = poll ? 255 : 15;
    struct wait_yield ys = {0, cpu_shared, 0};
    int counted = 0; /* in the doorbell's waiters */
    int busy = 0;    /* the last turn was another thread's */
    while (!dlg_flag_done(f)) {
        if (w->round)
            w->round(w->ctx);
        if ((i & clock_mask) == 0) {
            t = dlg_now_ns();
            if (!check)
                check = t + LIVE_NS;
        }
        if (t > check) {
            if (w->peer && !dlg_pid_alive(w->peer)) {
                if (counted)
                    dlg_bell_wait_leave(w->bell);
                return -EOWNERDEAD;
            }
            check = t + LIVE_NS;
        }
        /* adaptive: spin for `spin` ns, and on while another thread has
         * the turn or the delegatee has transfers in flight (its thread
         * would spin in our place) */
        if (policy == DLG_POLICY_ADAPTIVE && t - t0 >= spin &&
            (busy || (turns && dlg_bell_inflight(w->bell))))
            t0 = t;
        if (policy == DLG_POLICY_POLL ||
            (policy == DLG_POLICY_ADAPTIVE && t - t0 < spin)) {
            if (!counted && turns) {
                dlg_bell_wait_enter(w->bell);
                counted = 1;
            }
            busy = wait_round(w, ++i, &ys) == -1;
            continue;
        }
        if (counted) {
            dlg_bell_wait_handback(w->bell);
            counted = 0;
        }
        if (w->hook)
            w->hook(w->ctx);
        /* counted asleep in the bell (its delegatee polls on while all
         * its clients sleep); the flag's setter or we uncount it */
        if (w->bell)
            atomic_fetch_add(&w->bell->asleep, 1);
        atomic_store_explicit(&f->waiting, w->bell ? 2 : 1,
                              memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        if (!dlg_flag_done(f))
            dlg_futex_wait(&f->done, 0, w->nap_ns ? w->nap_ns : LIVE_NS, 0);
        uint32_t two = 2;
        if (w->bell && atomic_compare_exchange_strong(&f->waiting, &two, 1))
            atomic_fetch_sub(&w->bell->asleep, 1);
        i = 0; /* read the clock again */
    }
    if (counted)
        dlg_bell_wait_leave(w->bell);
    if (ys.changed)
        cpu_shared = ys.shared;
    return 0;
}
