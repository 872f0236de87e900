/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_client.c: a client's link to its delegatee: region and ring
 * (libdeleg), request records in the region's shared heap, and waiting for
 * a record with the poll, block or adaptive policy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nm_internal.h"

dlg_policy_t nm_policy_blocking = DLG_POLICY_POLL;
dlg_policy_t nm_policy_nonblocking = DLG_POLICY_ADAPTIVE;

static dlg_region_t *region;
static dlg_client_t *client;
static nm_rec_t *free_recs;
/* One free record kept by each thread: a blocking call takes and gives
 * back a record without the lock (two lock round trips per message). */
static _Thread_local nm_rec_t *tl_rec;
static pid_t deleg_pid;
static int deleg_world;
static atomic_int deleg_dead;
static nm_bell_t *bell;
static int (*turn_fn)(void); /* PiP form: our delegatee's turn */
static int (*post_fn)(void); /* and its lighter turn after posting */
/* and its hand-over of a send or receive without the ring */
static int (*direct_fn)(unsigned op, int world, uint64_t rec_off);
#define NM_ASYNC_MAX 256
static dlg_ticket_t async_t[NM_ASYNC_MAX];
static unsigned async_head, async_n;
static int retire_oldest(void);
/* The ring, the shared heap, the free records and the tickets: one thread
 * at a time (MPI_THREAD_MULTIPLE); never held while waiting for a record. */
static pthread_mutex_t cl_lock = PTHREAD_MUTEX_INITIALIZER;

int nm_bell_ring(nm_bell_t *b)
{
    if (!b)
        return 0;
    /* PiP form: while a client of that delegatee spins in a wait, it runs
     * the turns: no ring (not even the cache line of the counter) */
    if (atomic_load_explicit(&b->waiters, memory_order_relaxed))
        return 1;
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&b->sleeping, memory_order_seq_cst))
        syscall(SYS_futex, &b->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    return 0;
}

nm_bell_t *nm_bell_open(const char *spec)
{
    int pid, fd;
    char path[64];
    if (sscanf(spec, "%d:%d", &pid, &fd) != 2)
        return NULL;
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0)
        return NULL;
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    close(f);
    return p == MAP_FAILED ? NULL : p;
}

int nm_client_start(MPI_Comm wcomm)
{
    char spec[128];
    deleg_world = nm_deleg_of(nm_lay.world_rank);
    int rc = PMPI_Recv(spec, (int)sizeof spec, MPI_CHAR, deleg_world, 7, wcomm,
                       MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    spec[sizeof spec - 1] = 0;
    char *bar = strchr(spec, '|');
    if (bar) {
        *bar = 0;
        bell = nm_bell_open(bar + 1);
        /* same address space (PiP tasks of one process): we may run our
         * delegatee's work ourselves while we wait for it */
        if (bell && bell->pid == (int32_t)getpid() &&
            !getenv("MPIDELEG_NO_TURNS")) {
            turn_fn = (int (*)(void))(uintptr_t)atomic_load(&bell->turn);
            post_fn = (int (*)(void))(uintptr_t)atomic_load(&bell->post_turn);
            direct_fn = (int (*)(unsigned, int, uint64_t))(
                uintptr_t)atomic_load(&bell->direct);
        }
    }
    int e = dlg_region_open(spec, &region);
    if (e == 0)
        e = dlg_client_attach(region, NULL, &client);
    if (e < 0) {
        nm_log("attach to %s: %s", spec, dlg_strerror(e));
        return MPI_ERR_OTHER;
    }
    if (strncmp(spec, "memfd:", 6) == 0)
        deleg_pid = (pid_t)atoi(spec + 6);
    nm_rec_t *r = nm_rec_get();
    if (!r)
        return MPI_ERR_NO_MEM;
    r->arg = (uint64_t)getpid();
    r->peer = nm_lay.world_rank;
    e = nm_post(NM_OP_HELLO, r);
    nm_rec_put(r);
    if (e != MPI_SUCCESS)
        return e;
    /* Every client has introduced itself before anyone sends. */
    return PMPI_Barrier(nm_app_world);
}

int nm_client_stop(void)
{
    while (async_n && !deleg_dead)
        if (retire_oldest() < 0)
            break;
    nm_rec_t *r = nm_rec_get();
    if (r) {
        nm_post(NM_OP_FIN, r);
        nm_rec_put(r);
    }
    if (tl_rec) { /* other threads' go with the region */
        dlg_heap_free(client, tl_rec);
        tl_rec = NULL;
    }
    while (free_recs) {
        nm_rec_t *n = *(nm_rec_t **)free_recs->inl;
        dlg_heap_free(client, free_recs);
        free_recs = n;
    }
    dlg_client_detach(client);
    if (bell)
        munmap(bell, 4096);
    bell = NULL;
    dlg_region_close(region);
    client = NULL;
    region = NULL;
    return 0;
}

nm_rec_t *nm_rec_get(void)
{
    nm_rec_t *r = tl_rec;
    if (r) {
        tl_rec = NULL;
    } else {
        pthread_mutex_lock(&cl_lock);
        r = free_recs;
        if (r)
            free_recs = *(nm_rec_t **)r->inl;
        else
            r = dlg_heap_alloc(client, sizeof *r);
        pthread_mutex_unlock(&cl_lock);
        if (!r)
            return NULL;
    }
    memset(r, 0, offsetof(nm_rec_t, inl));
    return r;
}

void nm_rec_put(nm_rec_t *r)
{
    if (!r)
        return;
    if (!tl_rec) {
        tl_rec = r;
        return;
    }
    pthread_mutex_lock(&cl_lock);
    *(nm_rec_t **)r->inl = free_recs;
    free_recs = r;
    pthread_mutex_unlock(&cl_lock);
}

int nm_turn(void)
{
    return turn_fn ? turn_fn() : -2;
}

int nm_deleg_inflight(void)
{
    return turn_fn &&
           atomic_load_explicit(&bell->inflight, memory_order_relaxed);
}

uint64_t nm_rec_off(const nm_rec_t *r)
{
    return (uint64_t)((const char *)r - (const char *)dlg_region_base(region));
}

static int post_failed(int e)
{
    if (e == -EOWNERDEAD || e == -ENOTCONN) {
        if (!deleg_dead)
            fprintf(stderr,
                    "mpideleg: rank %d: delegatee (world rank %d) is gone\n",
                    nm_lay.world_rank, deleg_world);
        deleg_dead = 1;
    }
    return nm_errno_to_mpi(e);
}

/* Retire the oldest ticket posted without waiting (its handler has run or
 * runs next: the delegatee serves a ring in order). */
static int retire_oldest(void)
{
    if (!async_n)
        return 0;
    dlg_ticket_t t = async_t[async_head];
    async_head = (async_head + 1) % NM_ASYNC_MAX;
    async_n--;
    return dlg_wait(client, t, DLG_POLICY_POLL, NULL, NULL, NULL);
}

static int submit(unsigned op, nm_rec_t *r, dlg_ticket_t *t)
{
    if (deleg_dead)
        return -EOWNERDEAD;
    dlg_call_t call = {.op = op,
                       .buf = r,
                       .len = sizeof *r,
                       .mode = DLG_BUF_HEAP,
                       .dir = DLG_BUF_IN | DLG_BUF_OUT,
                       .policy = DLG_POLICY_POLL};
    int e;
    if (async_n == NM_ASYNC_MAX && (e = retire_oldest()) < 0)
        return e;
    while ((e = dlg_submit(client, &call, t)) == -EAGAIN) {
        if (async_n) {
            if ((e = retire_oldest()) < 0)
                return e;
        } else {
            sched_yield();
        }
    }
    if (e == 0 && bell)
        atomic_fetch_add_explicit(&bell->posted, 1, memory_order_release);
    if (e == 0 && !turn_fn) /* PiP form: the caller runs a turn next */
        nm_bell_ring(bell);
    return e;
}

/* Hand the record to the delegatee; returns once the handler has run. */
int nm_post(unsigned op, nm_rec_t *r)
{
    int64_t res = 0;
    dlg_ticket_t t;
    pthread_mutex_lock(&cl_lock);
    int e = submit(op, r, &t);
    if (e == 0 && post_fn)
        post_fn(); /* usually serves the request at once */
    if (e == 0)
        e = dlg_wait(client, t, DLG_POLICY_DEFAULT, &res, NULL, NULL);
    pthread_mutex_unlock(&cl_lock);
    if (e < 0)
        return post_failed(e);
    if (res < 0)
        return nm_errno_to_mpi((int)res);
    return MPI_SUCCESS;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Hand the record over without waiting for the handler, for operations
 * whose outcome the record carries (a failing handler completes the record
 * with an error class): saves a round trip to the delegatee on every send
 * and receive.  The tickets are retired later, oldest first. */
int nm_post_async(unsigned op, nm_rec_t *r)
{
    /* PiP form: straight to the delegatee's code when its turn is free */
    if (direct_fn && (op == NM_OP_SEND || op == NM_OP_RECV)) {
        /* The turn is taken: most likely by the delegatee's thread, maybe
         * preempted inside its turn on this very CPU (it runs turns back
         * to back while it looks for work).  A few yields let it finish
         * there; the ring would leave the operation (a send's header, for
         * one) to that thread's next turn, which may come only after this
         * thread's time slice, when it computes. */
        uint64_t off = nm_rec_off(r);
        if (direct_fn(op, nm_lay.world_rank, off) == 0)
            return MPI_SUCCESS;
        /* first a short spin: a turn running on another CPU ends within a
         * microsecond or so, without a system call */
        for (int s = 0;
             s < 64 && atomic_load_explicit(&bell->busy, memory_order_relaxed);
             s++)
            cpu_relax();
        for (int k = 0; k < 5; k++) {
            if (direct_fn(op, nm_lay.world_rank, off) == 0)
                return MPI_SUCCESS;
            if (k < 4)
                sched_yield();
        }
    }
    dlg_ticket_t t;
    pthread_mutex_lock(&cl_lock);
    int e = submit(op, r, &t);
    if (e == 0) {
        async_t[(async_head + async_n) % NM_ASYNC_MAX] = t;
        async_n++;
    }
    pthread_mutex_unlock(&cl_lock);
    if (e < 0)
        return post_failed(e);
    if (post_fn)
        post_fn(); /* PiP form: the operation starts now, on this thread */
    return MPI_SUCCESS;
}

static int deleg_alive(void)
{
    if (deleg_pid > 0 && kill(deleg_pid, 0) < 0 && errno == ESRCH) {
        if (!deleg_dead)
            fprintf(stderr,
                    "mpideleg: rank %d: delegatee (world rank %d, pid %d) "
                    "died\n",
                    nm_lay.world_rank, deleg_world, (int)deleg_pid);
        deleg_dead = 1;
        return 0;
    }
    return 1;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* PiP form: the calling thread spins in a wait and runs turns (the
 * delegatee's thread then naps long and nobody rings it); calls nest. */
void nm_wait_enter(void)
{
    if (turn_fn) {
        atomic_fetch_add(&bell->waiters, 1);
        atomic_fetch_add_explicit(&bell->entries, 1, memory_order_relaxed);
    }
}

void nm_wait_leave(void)
{
    if (turn_fn)
        atomic_fetch_sub(&bell->waiters, 1);
}

/* A spinning waiter goes to sleep: the delegatee's thread, which naps long
 * while clients spin (and is not rung meanwhile), takes the work back. */
void nm_wait_handback(void)
{
    nm_wait_leave();
    if (turn_fn)
        nm_bell_ring(bell);
}

/* One round of a spinning wait: MPICH's progress every (mpi_mask + 1)-th
 * round, a turn of our delegatee's work (PiP form), a yield every 512
 * rounds, and every 8 without a turn of our own (another thread has it, or
 * the process form: the processes we wait for may need this CPU).  Returns
 * the turn's result (nm_turn()). */
int nm_spin_round(unsigned k, unsigned mpi_mask)
{
    if ((k & mpi_mask) == 0)
        nm_mpi_progress();
    int rc = nm_turn();
    if ((k & 511) == 0 || (rc < 0 && (k & 7) == 0))
        sched_yield();
    return rc;
}

/* Wait until the delegatee completes r, spinning in nm_spin_round()s as
 * the policy says; checks every ~20 ms that the delegatee lives.  MPICH's
 * progress runs every (mpi_mask + 1)-th round and before every sleep (MPI's
 * progress rule: the rank we wait for may need our MPICH operations to move
 * first); a wait that also serves MPICH's own requests (a small mask) sleeps
 * in slices of 200 us instead of 20 ms, to move them. */
int nm_rec_wait(nm_rec_t *r, dlg_policy_t policy, unsigned mpi_mask)
{
    if (policy == DLG_POLICY_DEFAULT)
        policy = DLG_POLICY_ADAPTIVE;
    if (atomic_load_explicit(&r->done, memory_order_acquire))
        return MPI_SUCCESS;
    /* a clock read costs as much as a short turn: polling needs the clock
     * only for the liveness check, from the 256th round on */
    int poll = policy == DLG_POLICY_POLL;
    uint64_t t0 = poll ? 0 : now_ns(), t = t0;
    uint64_t check = poll ? 0 : t0 + 20000000u;
    uint64_t spin = policy == DLG_POLICY_ADAPTIVE ? dlg_spin_bound_ns() : 0;
    unsigned i = poll, clock_mask = poll ? 255 : 15;
    int counted = 0; /* in bell->waiters */
    int busy = 0;    /* the last turn was another thread's */
    while (!atomic_load_explicit(&r->done, memory_order_acquire)) {
        nm_coll_progress(); /* nonblocking collectives move meanwhile */
        if ((i & clock_mask) == 0) {
            t = now_ns();
            if (!check)
                check = t + 20000000u;
        }
        if (t > check) {
            if (!deleg_alive()) {
                if (counted)
                    nm_wait_leave();
                return nm_code_deleg_dead;
            }
            check = t + 20000000u;
        }
        /* adaptive: spin for `spin` ns, and on while another thread has our
         * delegatee's turn or the delegatee has transfers in flight (its
         * thread would spin in our place) */
        if (policy == DLG_POLICY_ADAPTIVE && t - t0 >= spin &&
            (busy || nm_deleg_inflight())) {
            t0 = t;
        }
        if (policy == DLG_POLICY_POLL ||
            (policy == DLG_POLICY_ADAPTIVE && t - t0 < spin)) {
            if (!counted) {
                nm_wait_enter();
                counted = 1;
            }
            busy = nm_spin_round(++i, mpi_mask) == -1;
            continue;
        }
        if (counted) {
            nm_wait_handback();
            counted = 0;
        }
        nm_mpi_progress();
        atomic_store_explicit(&r->waiting, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
        if (!atomic_load_explicit(&r->done, memory_order_acquire)) {
            struct timespec to = {0, mpi_mask < 63 ? 200000 : 20000000};
            syscall(SYS_futex, &r->done, FUTEX_WAIT, 0, &to, NULL, 0);
        }
        i = 0; /* read the clock again */
    }
    if (counted)
        nm_wait_leave();
    return MPI_SUCCESS;
}

/* Sleep on r->done for at most ns nanoseconds (returns early when woken). */
void nm_rec_nap(nm_rec_t *r, long ns)
{
    atomic_store_explicit(&r->waiting, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&r->done, memory_order_acquire)) {
        struct timespec to = {0, ns};
        syscall(SYS_futex, &r->done, FUTEX_WAIT, 0, &to, NULL, 0);
    }
}
