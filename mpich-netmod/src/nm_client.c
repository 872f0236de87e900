/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_client.c: a client's link to its delegatee: region and ring
 * (libdeleg), request records in the region's shared heap, and waiting for
 * a record (libdeleg's completion flags and waits, with MPICH's progress
 * and the nonblocking collectives as the wait's hooks).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include "nm_internal.h"
#include "pvas_env.h"

dlg_policy_t nm_policy_blocking = DLG_POLICY_POLL;
dlg_policy_t nm_policy_nonblocking = DLG_POLICY_ADAPTIVE;

static dlg_region_t *region;
static dlg_client_t *client;
static nm_rec_t *free_recs;
/* Records the delegatee has not let go of yet: pulled receives
 * (nm_rec_t.pull not NM_PULL_RELEASED) and, in the process form, short
 * blocking sends that returned once handed over (not completed yet):
 * reused once let go.  n_flying counts the sends. */
static nm_rec_t *pulled_recs;
#define NM_FLYING_MAX 64
static nm_rec_t *flying[NM_FLYING_MAX];
static unsigned n_flying;
/* the first error a send that returned early met (MPI_SUCCESS: none),
 * reported by the next blocking send */
static int flying_err;
/* our pulls; waits for the delegatee's (debug log) */
static _Atomic uint64_t n_pulls, n_pull_waits;
static void reclaim_pulled(void);
static void reclaim_flying(void);
/* One free record kept by each thread: a blocking call takes and gives
 * back a record without the lock (two lock round trips per message). */
static _Thread_local nm_rec_t *tl_rec;
static pid_t deleg_pid;
static int deleg_world;
static atomic_int deleg_dead;
static dlg_bell_t *bell;
/* PiP form: our delegatee's turns (NULL in the process form) */
static dlg_turns_t turns_of;
static const dlg_turns_t *turns;
int nm_short_direct;
#define NM_ASYNC_MAX 256
static dlg_ticket_t async_t[NM_ASYNC_MAX];
static unsigned async_head, async_n;
/* The ring, the shared heap, the free records and the tickets: one thread
 * at a time (MPI_THREAD_MULTIPLE); never held while waiting for a record. */
static pthread_mutex_t cl_lock = PTHREAD_MUTEX_INITIALIZER;

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

int nm_client_start(MPI_Comm wcomm)
{
    char spec[128];
    deleg_world = nm_deleg_of(nm_lay.world_rank);
    /* The delegatee first meets its peers (collectives among the
     * delegatees) and builds its region: wait for its word without
     * spinning in MPICH, so that on a node with fewer CPUs than ranks the
     * CPU goes to the delegatees (in the PiP form, threads of this
     * process). */
    int there = 0, rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && !there) {
        rc = PMPI_Iprobe(deleg_world, 7, wcomm, &there, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && !there)
            usleep(200);
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv(spec, (int)sizeof spec, MPI_CHAR, deleg_world, 7, wcomm,
                       MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    spec[sizeof spec - 1] = 0;
    char *bar = strchr(spec, '|');
    char *ov = bar ? strchr(bar + 1, '|') : NULL;
    if (ov) {
        /* the delegatee's word on oversubscription (its machine's ranks
         * against its CPUs): ours too */
        *ov = 0;
        if (ov[1] == '1')
            nm_lay.oversub = 1;
    }
    if (bar) {
        *bar = 0;
        if (dlg_bell_open(bar + 1, &bell) < 0)
            bell = NULL;
        /* same address space (PiP tasks of one process): we may run our
         * delegatee's work ourselves while we wait for it */
        /* 0, empty, unset: turns; other values refused in MPI_Init */
        int no_turns = pvas_env_on("MPIDELEG_NO_TURNS", 0);
        if (bell && !no_turns && dlg_bell_turns(bell, &turns_of) == 0)
            turns = &turns_of;
        nm_short_direct = turns && turns->direct;
        /* Process form with more ranks than CPUs on the node: a blocking
         * call sleeps on its record instead of spinning (unless
         * MPIDELEG_POLICY_BLOCKING says otherwise).  A spinning client
         * stays runnable and, once its delegatee has completed the
         * record, waits for its next time slice among every other
         * runnable task; a sleeping one is woken and runs at once
         * (bench/RESULTS.md: 2-7x shorter 8 B latency on a busy node,
         * 7.9 against 10.2 us on a quiet one). */
        const char *pb = getenv("MPIDELEG_POLICY_BLOCKING");
        if (!turns && nm_lay.oversub == 1 && (!pb || !*pb))
            nm_policy_blocking = DLG_POLICY_BLOCK;
        /* ... on our delegatee's CPU with MPIDELEG_PLACE=pair: it polls
         * while we sleep, and wakes us there */
        if (!turns && !pvas_env_on("MPIDELEG_PIP", 0))
            nm_pair_bind();
        nm_log("turns of the delegatee: %s", turns ? "on"
                                             : no_turns
                                                 ? "off (MPIDELEG_NO_TURNS=1)"
                                                 : "off (not available)");
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
    /* where the delegatee finds that word in our memory: it checks that it
     * can read it (cross memory attach) */
    r->addr = (uint64_t)(uintptr_t)&r->arg;
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
    nm_log("client: %llu payloads read from the senders' processes, %llu "
           "left to the delegatee",
           (unsigned long long)atomic_load(&n_pulls),
           (unsigned long long)atomic_load(&n_pull_waits));
    nm_log_usage("client");
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
    pthread_mutex_lock(&cl_lock);
    reclaim_pulled(); /* those still held go with the region */
    reclaim_flying();
    pthread_mutex_unlock(&cl_lock);
    while (free_recs) {
        nm_rec_t *n = *(nm_rec_t **)free_recs->inl;
        dlg_heap_free(client, free_recs);
        free_recs = n;
    }
    dlg_client_detach(client);
    dlg_bell_close(bell);
    bell = NULL;
    turns = NULL;
    nm_short_direct = 0;
    dlg_region_close(region);
    client = NULL;
    region = NULL;
    return 0;
}

/* Under cl_lock: the pulled records the delegatee has released go to the
 * free ones. */
static void reclaim_pulled(void)
{
    for (nm_rec_t **pp = &pulled_recs; *pp;) {
        nm_rec_t *r = *pp;
        if (atomic_load_explicit(&r->pull, memory_order_acquire) ==
            NM_PULL_RELEASED) {
            *pp = *(nm_rec_t **)r->inl;
            *(nm_rec_t **)r->inl = free_recs;
            free_recs = r;
        } else {
            pp = (nm_rec_t **)r->inl;
        }
    }
}

/* Process form: receive r completed with its payload still in the sending
 * client's process (NM_F_CPULL): read it into our buffer with one
 * process_vm_readv, unless our delegatee took the copy over (then wait for
 * it to finish).  r->err then says how the copy went too. */
void nm_rec_pull(nm_rec_t *r)
{
    uint32_t want = NM_PULL_OFFER;
    if (atomic_compare_exchange_strong(&r->pull, &want, NM_PULL_CLIENT)) {
        int err = MPI_SUCCESS;
        uint64_t n = r->st_count, done = 0;
        while (done < n) {
            struct iovec lo = {(char *)(uintptr_t)r->addr + done, n - done};
            struct iovec re = {(void *)(uintptr_t)(r->pull_addr + done),
                               n - done};
            ssize_t k = process_vm_readv((pid_t)r->pull_pid, &lo, 1, &re, 1, 0);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                err = MPI_ERR_BUFFER;
                break;
            }
            done += (uint64_t)k;
        }
        r->pull_err = err;
        atomic_store_explicit(&r->pull, NM_PULL_DONE, memory_order_release);
        atomic_fetch_add_explicit(&n_pulls, 1, memory_order_relaxed);
        if (bell)
            dlg_bell_ring(bell); /* the sender's send ends through us */
    } else if (want != NM_PULL_NONE) {
        /* the delegatee copies (or has copied) for us */
        if (want == NM_PULL_DELEG)
            atomic_fetch_add_explicit(&n_pull_waits, 1, memory_order_relaxed);
        for (unsigned k = 0; atomic_load_explicit(
                                 &r->pull, memory_order_acquire) < NM_PULL_DONE;
             k++)
            if ((k & 15) == 15)
                sched_yield();
            else
                dlg_cpu_relax();
    }
    if (r->pull_err != MPI_SUCCESS && r->err == MPI_SUCCESS)
        r->err = r->pull_err;
}

nm_rec_t *nm_rec_get(void)
{
    nm_rec_t *r = tl_rec;
    if (r) {
        tl_rec = NULL;
    } else {
        pthread_mutex_lock(&cl_lock);
        if (!free_recs && pulled_recs)
            reclaim_pulled();
        if (!free_recs && n_flying)
            reclaim_flying();
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
    uint32_t pull = atomic_load_explicit(&r->pull, memory_order_acquire);
    if (pull != NM_PULL_NONE && pull != NM_PULL_RELEASED) {
        /* the delegatee still looks at it (nm_rec_pull) */
        pthread_mutex_lock(&cl_lock);
        *(nm_rec_t **)r->inl = pulled_recs;
        pulled_recs = r;
        pthread_mutex_unlock(&cl_lock);
        return;
    }
    if (!tl_rec) {
        tl_rec = r;
        return;
    }
    pthread_mutex_lock(&cl_lock);
    *(nm_rec_t **)r->inl = free_recs;
    free_recs = r;
    pthread_mutex_unlock(&cl_lock);
}

/* Process form: a blocking standard send whose bytes the record carries
 * (NM_F_INLINE) returns once handed over, as MPICH's eager sends do: its
 * caller neither sleeps until the delegatee has taken it nor is woken
 * then (one wake-up and one sleep less per message).  The record stays
 * with the delegatee until it is done; at most NM_FLYING_MAX such sends
 * are in flight (then the oldest done ones are reclaimed, or waited for).
 * Returns 1 when r was taken over (the caller forgets it), 0 when the
 * caller waits as usual (PiP form). */
/* Under cl_lock: the sends that returned early and are done go to the
 * free records. */
static void reclaim_flying(void)
{
    unsigned k = 0;
    for (unsigned i = 0; i < n_flying; i++) {
        nm_rec_t *r = flying[i];
        if (!dlg_flag_done(&r->fl)) {
            flying[k++] = r;
            continue;
        }
        if (r->err != MPI_SUCCESS && flying_err == MPI_SUCCESS)
            flying_err = r->err;
        *(nm_rec_t **)r->inl = free_recs;
        free_recs = r;
    }
    n_flying = k;
}

int nm_send_defer(nm_rec_t *r)
{
    if (turns || !(r->flags & NM_F_INLINE) || (r->flags & NM_F_SYNC))
        return 0;
    pthread_mutex_lock(&cl_lock);
    if (n_flying == NM_FLYING_MAX)
        reclaim_flying();
    if (n_flying == NM_FLYING_MAX) {
        /* the delegatee is behind: wait for the oldest like a blocking
         * send (liveness checks included) */
        nm_rec_t *old = flying[0];
        pthread_mutex_unlock(&cl_lock);
        int rc = nm_rec_wait(old, nm_policy_blocking, 63);
        pthread_mutex_lock(&cl_lock);
        if (rc == MPI_SUCCESS)
            reclaim_flying();
        if (n_flying == NM_FLYING_MAX) { /* the delegatee is gone */
            pthread_mutex_unlock(&cl_lock);
            return 0;
        }
    }
    flying[n_flying++] = r;
    pthread_mutex_unlock(&cl_lock);
    return 1;
}

/* The error of a send that returned early (nm_send_defer), once: the next
 * blocking send reports it. */
int nm_send_deferred_err(void)
{
    pthread_mutex_lock(&cl_lock);
    reclaim_flying();
    int e = flying_err;
    flying_err = MPI_SUCCESS;
    pthread_mutex_unlock(&cl_lock);
    return e;
}

int nm_turn(void)
{
    return dlg_turn_run(turns);
}

int nm_poll_round(unsigned k, unsigned every)
{
    return dlg_poll_round(turns, k, every);
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
            dlg_poll_round(NULL, 0, 0); /* a yield: the delegatee drains */
        }
    }
    if (e == 0 && bell)
        dlg_bell_posted_add(bell);
    if (e == 0 && !turns) /* PiP form: the caller runs a turn next */
        dlg_bell_ring(bell);
    return e;
}

/* Hand the record to the delegatee; returns once the handler has run. */
int nm_post(unsigned op, nm_rec_t *r)
{
    int64_t res = 0;
    dlg_ticket_t t;
    pthread_mutex_lock(&cl_lock);
    int e = submit(op, r, &t);
    if (e == 0 && turns)
        turns->post(); /* usually serves the request at once */
    if (e == 0)
        e = dlg_wait(client, t, DLG_POLICY_DEFAULT, &res, NULL, NULL);
    pthread_mutex_unlock(&cl_lock);
    if (e < 0)
        return post_failed(e);
    if (res < 0)
        return nm_errno_to_mpi((int)res);
    return MPI_SUCCESS;
}

/* PiP form: a standard send of at most NM_INLINE contiguous bytes to
 * world rank `peer`, handed to our delegatee's code in one call without a
 * record (nothing to allocate, fill, complete and wait for).  0 when sent;
 * 1: the caller takes the usual way (the process form, the turn taken, a
 * send queued before it, a receiver of our own delegatee). */
int nm_send_short(const void *buf, size_t len, uint32_t ctx, int peer, int tag)
{
    if (len > NM_INLINE)
        return 1;
    nm_short_t s = {
        .buf = buf, .len = len, .ctx = ctx, .peer = peer, .tag = tag};
    return turns->direct(NM_OP_SEND_SHORT, nm_lay.world_rank,
                         (uint64_t)(uintptr_t)&s) == 0
               ? 0
               : 1;
}

/* Hand the record over without waiting for the handler, for operations
 * whose outcome the record carries (a failing handler completes the record
 * with an error class): saves a round trip to the delegatee on every send
 * and receive.  The tickets are retired later, oldest first. */
int nm_post_async(unsigned op, nm_rec_t *r)
{
    /* PiP form: straight to the delegatee's code when its turn is free.
     * When the turn is taken (most likely by the delegatee's thread, maybe
     * preempted inside its turn on this very CPU) the hand-over spins and
     * yields a little: the ring would leave the operation (a send's
     * header, for one) to that thread's next turn, which may come only
     * after this thread's time slice, when it computes. */
    if (turns && (op == NM_OP_SEND || op == NM_OP_RECV) &&
        dlg_bell_hand_over(bell, turns, op, nm_lay.world_rank, nm_rec_off(r)) ==
            0)
        return MPI_SUCCESS;
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
    if (turns)
        turns->post(); /* PiP form: the operation starts now, here */
    return MPI_SUCCESS;
}

static void deleg_died(void)
{
    if (!deleg_dead)
        nm_dead_grace(); /* hydra may be ending the job: no line then */
    if (!deleg_dead)
        fprintf(stderr,
                "mpideleg: rank %d: delegatee (world rank %d, pid %d) died\n",
                nm_lay.world_rank, deleg_world, (int)deleg_pid);
    deleg_dead = 1;
}

/* PiP form: the calling thread spins in a wait and runs turns (the
 * delegatee's thread then naps long and nobody rings it); calls nest. */
void nm_wait_enter(void)
{
    if (turns)
        dlg_bell_wait_enter(bell);
}

void nm_wait_leave(void)
{
    if (turns)
        dlg_bell_wait_leave(bell);
}

static void hook_mpi(void *ctx)
{
    (void)ctx;
    nm_mpi_progress();
}

static void hook_coll(void *ctx)
{
    (void)ctx;
    nm_coll_progress(); /* nonblocking collectives move meanwhile */
}

static void waiter_init(dlg_waiter_t *w, dlg_policy_t policy, unsigned mpi_mask)
{
    *w = (dlg_waiter_t){.policy = policy,
                        .bell = bell,
                        .turns = turns,
                        .hook = hook_mpi,
                        .hook_mask = mpi_mask,
                        .round = hook_coll,
                        .peer = deleg_pid,
                        /* a wait that also serves MPICH's own requests (a
                         * small mask) sleeps in slices of 200 us, to move
                         * them */
                        .nap_ns = mpi_mask < 63 ? 200000 : 20000000};
}

/* One round of a spinning wait (dlg_wait_round): MPICH's progress every
 * (mpi_mask + 1)-th round, a turn of our delegatee's work (PiP form),
 * yields.  Returns the turn's result (nm_turn()). */
int nm_spin_round(unsigned k, unsigned mpi_mask)
{
    dlg_waiter_t w;
    waiter_init(&w, DLG_POLICY_POLL, mpi_mask);
    w.round = NULL;
    return dlg_wait_round(&w, k);
}

/* Wait until the delegatee completes r with libdeleg's wait (the policy's
 * spinning, turns and sleeps; liveness of the delegatee).  MPICH's progress
 * runs every (mpi_mask + 1)-th round and before every sleep (MPI's
 * progress rule: the rank we wait for may need our MPICH operations to
 * move first), the nonblocking collectives on every round. */
int nm_rec_wait(nm_rec_t *r, dlg_policy_t policy, unsigned mpi_mask)
{
    if (dlg_flag_done(&r->fl))
        return MPI_SUCCESS;
    dlg_waiter_t w;
    waiter_init(&w, policy, mpi_mask);
    if (dlg_flag_wait(&r->fl, &w) < 0) {
        deleg_died();
        return nm_code_deleg_dead;
    }
    return MPI_SUCCESS;
}
