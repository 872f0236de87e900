/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * deleg.h: request delegation through mapped memory (libdeleg).
 *
 * A delegatee serves requests that clients hand to it through a mapped
 * region: each client owns a single-producer/single-consumer ring of
 * 64-byte descriptors (operation id, up to DLG_MAX_ARGS arguments, buffer
 * address and length, small payloads inline) and one completion word per
 * ring slot.  The delegatee visits the clients round robin and calls the
 * handler registered for the operation.
 *
 * Errors: every function that can fail returns 0 (or a count) on success and
 * a negative errno value on failure; dlg_strerror() describes it.  Codes with
 * a delegation meaning:
 *   -EOWNERDEAD  the peer (delegatee or client) died;
 *   -ENOTCONN    the delegatee has stopped (dlg_delegatee_destroy);
 *   -ENOSYS      no handler registered for the operation;
 *   -EAGAIN      the client's ring is full (dlg_submit only);
 *   -EMSGSIZE    inline payload or reply larger than the limit;
 *   -ETIMEDOUT   a bounded wait ran out.
 *
 * Environment (read when a delegatee or client is created; bad values make
 * the constructor fail with -EINVAL):
 *   DLG_IDLE_POLICY   poll | block | adaptive: the delegatee's idle policy
 *                     when its attribute says DLG_POLICY_DEFAULT.
 *   DLG_SPIN_NS       spin bound of the adaptive policy in ns (default:
 *                     calibrated at first use, see dlg_spin_bound_ns()).
 *   DLG_LIVENESS_MS   how often a waiter checks whether its peer is alive
 *                     (default 20 ms; 1..60000).
 *   DLG_HOST_CPUS, DLG_BOARD_CPUS, DLG_BIND: see dlg_place_*().
 *   PVAS_LOG          deleg:info prints diagnostics to stderr (otherwise
 *                     silent); DLG_DEBUG=1 is its deprecated alias.
 *
 * Thread safety: a dlg_client_t is used by one thread at a time; a
 * dlg_delegatee_t is driven by one thread (dlg_delegatee_stop() and
 * dlg_delegatee_stats() may be called from any thread).  Liveness is tied to
 * the thread that created the delegatee / attached the client: that thread's
 * exit (or its process's death) without destroy/detach counts as death.
 */
#ifndef DELEG_H
#define DELEG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define DLG_API __attribute__((visibility("default")))
#else
#define DLG_API
#endif

/** Describe a negative error code returned by this library (static text). */
DLG_API const char *dlg_strerror(int err);

/* ------------------------------------------------------------------ */
/* Regions: the mapped memory shared by a delegatee and its clients.   */
/* ------------------------------------------------------------------ */

/** Backing of a region. */
typedef enum {
    DLG_REGION_MEMFD = 1, /**< anonymous memfd; others open it by spec */
    DLG_REGION_SHM = 2,   /**< POSIX shared memory object /name */
} dlg_region_kind_t;

/** Flags for dlg_region_create(). */
enum {
    /** All users share one address space (threads, PiP root and tasks):
     *  futexes may use the cheaper process-private form. */
    DLG_REGION_LOCAL = 1u << 0,
};

typedef struct dlg_region dlg_region_t;

/**
 * Create and map a region of at least `size` bytes.
 * @param kind  DLG_REGION_MEMFD or DLG_REGION_SHM.
 * @param name  for SHM: object name ("/x", NULL: a unique one); for MEMFD: a
 *              label (may be NULL).
 * @param flags DLG_REGION_LOCAL or 0.
 * @return 0, -EINVAL, -ENOMEM, or the errno of memfd_create/shm_open/mmap.
 * The creator owns the region: dlg_region_close() unlinks a SHM object.
 */
DLG_API int dlg_region_create(dlg_region_kind_t kind, const char *name,
                              size_t size, unsigned flags, dlg_region_t **out);

/**
 * Map an existing region from its spec string (see dlg_region_spec()):
 * "shm:/name" or "memfd:PID:FD" (opened through /proc/PID/fd/FD; same user),
 * or "addr:BASE:SIZE" (dlg_region_addr_spec(): same address space only).
 * @return 0, -EINVAL for a malformed spec, or an errno from open/mmap.
 */
DLG_API int dlg_region_open(const char *spec, dlg_region_t **out);

/** Spec string others pass to dlg_region_open(); valid until close. */
DLG_API const char *dlg_region_spec(const dlg_region_t *r);
/**
 * Spec string of this very mapping, "addr:BASE:SIZE", for users that share
 * this address space (PiP tasks of the root that created the region, or
 * threads): dlg_region_open() of it maps nothing and uses the same
 * addresses, so DLG_REGION_LOCAL's process-private futexes match, and
 * dlg_region_close() of that handle leaves the mapping alone.  Valid only
 * while the creator keeps the region mapped; useless in another process.
 */
DLG_API const char *dlg_region_addr_spec(const dlg_region_t *r);
/** Base address of the mapping in this process. */
DLG_API void *dlg_region_base(const dlg_region_t *r);
/** Mapped size in bytes. */
DLG_API size_t dlg_region_size(const dlg_region_t *r);
/** Flags given at creation (stored in the region). */
DLG_API unsigned dlg_region_flags(const dlg_region_t *r);
/** Unmap; the creator also unlinks a SHM object.  NULL is ignored. */
DLG_API int dlg_region_close(dlg_region_t *r);

/* ------------------------------------------------------------------ */
/* Policies                                                            */
/* ------------------------------------------------------------------ */

/** How a waiter learns that the awaited event happened. */
typedef enum {
    DLG_POLICY_DEFAULT = 0, /**< the operation's / environment's policy */
    DLG_POLICY_POLL = 1,    /**< spin on the word (yields now and then) */
    DLG_POLICY_BLOCK = 2,   /**< futex wait at once */
    DLG_POLICY_ADAPTIVE = 3 /**< spin up to dlg_spin_bound_ns(), then block */
} dlg_policy_t;

/** Parse "poll", "block" or "adaptive". @return the policy or -EINVAL. */
DLG_API int dlg_policy_parse(const char *s);
/** Name of a policy ("poll", ...). */
DLG_API const char *dlg_policy_name(dlg_policy_t p);
/**
 * Spin bound of the adaptive policy in ns: DLG_SPIN_NS if set, otherwise
 * calibrated once per process as 4x the measured cost of a futex wake plus a
 * sched_yield (the price of blocking and being woken), clamped to
 * [1000, 100000] ns; 0 on a machine with one online CPU (spinning cannot
 * help when the peer needs the same CPU).  Read once per process, at the
 * first call (a bad DLG_SPIN_NS gives 0 here and fails the constructors).
 */
DLG_API uint64_t dlg_spin_bound_ns(void);

/* ------------------------------------------------------------------ */
/* Delegatee                                                           */
/* ------------------------------------------------------------------ */

#define DLG_MAX_OPS    256  /**< operation ids are 0..DLG_MAX_OPS-1 */
#define DLG_MAX_ARGS   5    /**< 64-bit arguments per request */
#define DLG_REPLY_MAX  40   /**< bytes of inline reply per completion */
#define DLG_INLINE_MAX 1024 /**< upper limit of inline_max */

typedef struct dlg_delegatee dlg_delegatee_t;
typedef struct dlg_req dlg_req_t;

/** Attributes of a delegatee (zero-initialise, then set what you need). */
typedef struct {
    unsigned max_clients;     /**< client slots (default 16, max 1024) */
    unsigned ring_slots;      /**< descriptors per ring, power of 2 (64) */
    size_t inline_max;        /**< largest inline payload (default 256) */
    size_t heap_size;         /**< shared heap bytes (0: none) */
    dlg_policy_t idle_policy; /**< DEFAULT: DLG_IDLE_POLICY or adaptive */
    unsigned quantum;         /**< requests per client per visit (1) */
    /** Called (from the serving thread) when a client is found dead. */
    void (*on_client_dead)(dlg_delegatee_t *dg, int client, pid_t pid,
                           void *ctx);
    void *ctx; /**< passed to on_client_dead */
} dlg_delegatee_attr_t;

/**
 * Handler of one operation: runs in the delegatee's serving thread.
 * @return the request's result (>= 0) or a negative errno, which the client
 * receives from dlg_wait()/dlg_call() as *result.
 */
typedef int64_t (*dlg_handler_fn)(dlg_req_t *req, void *ctx);

/**
 * Lay out the delegatee's structures in region `r` (which must stay mapped
 * until dlg_delegatee_destroy) and become its delegatee.  The calling
 * thread's life is the delegatee's life as clients see it.
 * @return 0, -EINVAL (bad attribute or environment), -ENOSPC (region too
 * small: dlg_region_need() tells the size), -EBUSY (region has a live
 * delegatee), -ENOMEM.
 */
DLG_API int dlg_delegatee_create(dlg_region_t *r,
                                 const dlg_delegatee_attr_t *attr,
                                 dlg_delegatee_t **out);
/** Bytes a region needs for these attributes (NULL: defaults). */
DLG_API size_t dlg_region_need(const dlg_delegatee_attr_t *attr);

/**
 * Register `fn` for operation `op` with the client-side wait policy `policy`
 * (DEFAULT: adaptive).  Re-registering replaces.  Call before clients use
 * the operation.  @return 0 or -EINVAL.
 */
DLG_API int dlg_delegatee_register(dlg_delegatee_t *dg, unsigned op,
                                   dlg_handler_fn fn, void *ctx,
                                   dlg_policy_t policy);

/**
 * One sweep over all clients without waiting: serve up to `quantum` requests
 * per client, check client liveness when due.
 * @return number of requests served (>= 0) or a negative errno.
 */
DLG_API int dlg_delegatee_progress(dlg_delegatee_t *dg);

/**
 * Serve until dlg_delegatee_stop(), waiting with the idle policy between
 * requests.  @return 0 after stop, or a negative errno.
 */
DLG_API int dlg_delegatee_run(dlg_delegatee_t *dg);

/**
 * Change the delegatee's idle policy (POLL, BLOCK or ADAPTIVE) while it
 * runs; any thread.  @return 0 or -EINVAL.
 */
DLG_API int dlg_delegatee_set_idle(dlg_delegatee_t *dg, dlg_policy_t policy);

/** Ask dlg_delegatee_run() to return (any thread, handlers included).
 *  The delegatee is not touched after the request, so the serving thread
 *  may destroy it as soon as dlg_delegatee_run() returns; the region must
 *  stay mapped until this call returns. */
DLG_API void dlg_delegatee_stop(dlg_delegatee_t *dg);

/** Counters of a delegatee. */
typedef struct {
    uint64_t requests;        /**< requests served */
    uint64_t bytes_inline;    /**< payload bytes copied through the ring */
    uint64_t bytes_zero_copy; /**< payload bytes passed by reference */
    uint64_t bytes_xproc;     /**< bytes moved by process_vm_readv/writev */
    uint64_t sleeps;          /**< futex waits of the idle loop */
    uint64_t dead_clients;    /**< clients found dead */
    uint64_t unknown_ops;     /**< requests without handler (-ENOSYS) */
} dlg_stats_t;

/** Copy the counters (racy snapshot when called from another thread). */
DLG_API void dlg_delegatee_stats(const dlg_delegatee_t *dg, dlg_stats_t *st);

/**
 * Stop serving and release the delegatee: clients then get -ENOTCONN.
 * Does not unmap the region.  NULL is ignored.
 */
DLG_API int dlg_delegatee_destroy(dlg_delegatee_t *dg);

/* Handler-side view of a request. */

/** Operation id. */
DLG_API unsigned dlg_req_op(const dlg_req_t *req);
/** Client slot index of the requester. */
DLG_API int dlg_req_client(const dlg_req_t *req);
/** Arguments (dlg_req_nargs() valid entries). */
DLG_API const uint64_t *dlg_req_args(const dlg_req_t *req);
DLG_API unsigned dlg_req_nargs(const dlg_req_t *req);
/** Length of the request's buffer (0: none). */
DLG_API size_t dlg_req_len(const dlg_req_t *req);
/**
 * Direct pointer to the buffer, valid during the handler: the client's own
 * pointer (DLG_BUF_LOCAL), the shared heap block (DLG_BUF_HEAP) or the
 * delegatee's copy of an inline payload; NULL for DLG_BUF_XPROC (use
 * dlg_req_read/dlg_req_write) and for no buffer.
 */
DLG_API void *dlg_req_ptr(const dlg_req_t *req);
/** Read `n` bytes at `off` of the buffer, any mode. @return 0, -EFAULT
 *  (outside the buffer or unreadable), -EOWNERDEAD (client gone). */
DLG_API int dlg_req_read(dlg_req_t *req, size_t off, void *dst, size_t n);
/** Write into the buffer (any mode but inline-in). @return as read,
 *  -EPERM when the client did not pass the buffer with DLG_BUF_OUT. */
DLG_API int dlg_req_write(dlg_req_t *req, size_t off, const void *src,
                          size_t n);
/** Set the inline reply (<= DLG_REPLY_MAX bytes). @return 0, -EMSGSIZE. */
DLG_API int dlg_req_reply(dlg_req_t *req, const void *data, size_t n);

/* ------------------------------------------------------------------ */
/* Clients                                                             */
/* ------------------------------------------------------------------ */

typedef struct dlg_client dlg_client_t;

/** How the delegatee reaches a request's buffer. */
typedef enum {
    DLG_BUF_AUTO = 0,   /**< inline when small, else heap / local / xproc */
    DLG_BUF_INLINE = 1, /**< copied into the ring (<= inline_max) */
    DLG_BUF_LOCAL = 2,  /**< plain pointer: same address space only */
    DLG_BUF_HEAP = 3,   /**< block of the region's shared heap */
    DLG_BUF_XPROC = 4,  /**< process_vm_readv/writev from the client */
} dlg_bufmode_t;

/** Direction bits of a buffer (default DLG_BUF_IN). */
enum { DLG_BUF_IN = 1u << 0, DLG_BUF_OUT = 1u << 1 };

/** Attributes of a client (zero-initialise). */
typedef struct {
    /** 1: this client shares the delegatee's address space (a thread of
     *  the delegatee's process, or a PiP task of the delegatee root). */
    int same_address_space;
} dlg_client_attr_t;

/**
 * Attach to the delegatee of region `r`: claim a free client slot.  The
 * calling thread's life is the client's life as the delegatee sees it.
 * @return 0, -ENOTCONN (no delegatee), -EOWNERDEAD (delegatee dead),
 * -EUSERS (no free slot), -EPROTO (not a delegation region), -ENOMEM.
 */
DLG_API int dlg_client_attach(dlg_region_t *r, const dlg_client_attr_t *attr,
                              dlg_client_t **out);
/** Slot index of this client. */
DLG_API int dlg_client_index(const dlg_client_t *c);
/** Release the slot.  @return 0, -EBUSY if requests are outstanding (they
 *  are abandoned: the client must not wait on them any more). */
DLG_API int dlg_client_detach(dlg_client_t *c);

/** One request. */
typedef struct {
    unsigned op;                 /**< operation id */
    unsigned nargs;              /**< used entries of args */
    uint64_t args[DLG_MAX_ARGS]; /**< arguments */
    void *buf;                   /**< buffer or NULL */
    size_t len;                  /**< buffer length */
    dlg_bufmode_t mode;          /**< buffer access mode */
    unsigned dir;                /**< DLG_BUF_IN / DLG_BUF_OUT bits */
    dlg_policy_t policy;         /**< DEFAULT: the operation's policy */
} dlg_call_t;

/** Ticket of a submitted request. */
typedef uint64_t dlg_ticket_t;

/**
 * Put a request into the ring without waiting.
 * @return 0 and *t, -EAGAIN (ring full: wait for an earlier ticket),
 * -EINVAL (bad op/nargs/mode), -EMSGSIZE (inline payload too large),
 * -EFAULT (DLG_BUF_HEAP buffer outside the heap), -EOWNERDEAD, -ENOTCONN.
 */
DLG_API int dlg_submit(dlg_client_t *c, const dlg_call_t *call,
                       dlg_ticket_t *t);
/**
 * Wait for ticket `t` with policy `policy` (DEFAULT: the operation's).
 * @param result  the handler's return value (may be NULL).
 * @param reply   receives up to *reply_len bytes of inline reply; on return
 *                *reply_len is the reply's full length (both may be NULL).
 * @return 0, -EOWNERDEAD (delegatee died), -ENOTCONN (delegatee stopped),
 * -EINVAL (unknown ticket).
 */
DLG_API int dlg_wait(dlg_client_t *c, dlg_ticket_t t, dlg_policy_t policy,
                     int64_t *result, void *reply, size_t *reply_len);
/** dlg_submit + dlg_wait with the operation's policy.  Returns the errors
 *  of both; -EAGAIN when earlier requests still fill the ring (wait for
 *  them first). */
DLG_API int dlg_call(dlg_client_t *c, const dlg_call_t *call, int64_t *result,
                     void *reply, size_t *reply_len);

/** Allocate `n` bytes of the region's shared heap (client's share; 64-byte
 *  aligned).  @return pointer or NULL (errno ENOMEM / ENOSYS if no heap). */
DLG_API void *dlg_heap_alloc(dlg_client_t *c, size_t n);
/** Free a block from dlg_heap_alloc (NULL ignored). */
DLG_API void dlg_heap_free(dlg_client_t *c, void *p);

/* ------------------------------------------------------------------ */
/* Futexes, doorbells, turns and completion flags                      */
/* ------------------------------------------------------------------ */
/*
 * How a request moves and who waits, for users that build their own
 * request records (in the region's shared heap, say) beside the rings:
 *
 * - a doorbell: one shared page of a delegatee that its clients and its
 *   peers map by spec.  Ring it after handing the delegatee work; the
 *   delegatee sleeps on it when idle (dlg_bell_idle()).  It counts the
 *   requests posted through the rings (dlg_bell_posted_add()) and the
 *   clients that spin in a wait and run turns (dlg_bell_wait_enter()).
 * - turns: one round of the delegatee's work, a function behind a lock in
 *   the doorbell.  A client of the same address space (threads, PiP tasks
 *   of the delegatee's process) that waits may run it itself
 *   (dlg_bell_turns()); while such a client waits, nobody rings and the
 *   delegatee's thread naps long.  The doorbell also holds a lighter turn
 *   (after posting) and a hand-over function (an operation given to the
 *   delegatee's code without the ring, dlg_bell_hand_over()).
 * - completion flags: a word the delegatee sets when a request completes,
 *   waking a client that sleeps on it; dlg_flag_wait() waits for one with
 *   the poll, block or adaptive policy, running the caller's progress hook
 *   and the turns, and checks that the delegatee lives.
 * Only the functions below touch the fields of these structures; their
 * layout is public so that the hot paths inline.
 */

/**
 * Sleep while *w == val, at most timeout_ns (0: no limit); priv: the
 * process-private futex (all users share one address space).
 * @return 0 (woken, or *w != val), -ETIMEDOUT, -EINTR.
 */
DLG_API int dlg_futex_wait(_Atomic uint32_t *w, uint32_t val,
                           uint64_t timeout_ns, int priv);
/** Wake up to n sleepers on w. */
DLG_API void dlg_futex_wake(_Atomic uint32_t *w, int n, int priv);
/** CLOCK_MONOTONIC in ns. */
DLG_API uint64_t dlg_now_ns(void);
/** One pause of a spin loop (pause / yield instruction). */
DLG_API void dlg_cpu_relax(void);
/** Whether process pid exists (0: gone). */
DLG_API int dlg_pid_alive(pid_t pid);

/** The delegatee's turn functions (all in its address space). */
typedef struct {
    /** a waiting client's turn: work done (>= 0), -1: the lock is taken */
    int (*turn)(void);
    /** the lighter turn right after posting (same results) */
    int (*post)(void);
    /** hand operation `op` of client `who` over without the ring (`arg`:
     *  the user's, e.g. a record's offset in the region): 0, or -1 when the
     *  lock is taken (post through the ring instead) */
    int (*direct)(unsigned op, int who, uint64_t arg);
} dlg_turns_t;

#define DLG_BELL_SIZE 4096 /**< a doorbell is one page */
#define DLG_BELL_USER 3840 /**< bytes of the user's area in it */

/** A doorbell page (fields: use the functions). */
typedef struct dlg_bell {
    /* read by the clients and the peers on every ring */
    _Atomic uint32_t seq;      /* bumped by every ring; futex word */
    _Atomic uint32_t sleeping; /* the delegatee sleeps on seq */
    /* low 32 bits: clients spinning in a wait (turns); high 32 bits:
     * waits entered so far (one atomic add enters a wait) */
    _Atomic uint64_t waits;
    /* the turn lock, taken on every turn: a line of its own */
    _Alignas(64) _Atomic uint32_t busy;
    _Atomic uint32_t posted;   /* requests posted through the rings */
    _Atomic uint32_t inflight; /* the delegatee has transfers going */
    int32_t pid;               /* the delegatee's process */
    int32_t fd;                /* its memfd there (the spec) */
    /* clients asleep in dlg_flag_wait() (waiter's bell: this one); a
     * dlg_flag_set_bell() that wakes one takes it off at once */
    _Atomic uint32_t asleep;
    _Atomic uint64_t turn, post, direct; /* dlg_turns_t, as integers */
    _Alignas(64) unsigned char user[DLG_BELL_USER];
} dlg_bell_t;

/**
 * Create a doorbell page (memfd) owned by the calling process, with the
 * turn functions `turns` (NULL: none).  @return 0 or a negative errno.
 */
DLG_API int dlg_bell_create(const dlg_turns_t *turns, dlg_bell_t **out);
/** Spec "PID:FD" that dlg_bell_open() maps (buf of at least 32 bytes). */
DLG_API void dlg_bell_spec(const dlg_bell_t *b, char *buf, size_t n);
/** Map the doorbell of spec.  @return 0, -EINVAL, or open/mmap's errno. */
DLG_API int dlg_bell_open(const char *spec, dlg_bell_t **out);
/** Unmap a doorbell from dlg_bell_open() (NULL ignored). */
DLG_API void dlg_bell_close(dlg_bell_t *b);
/** The creator: unmap and close the memfd (NULL ignored); others that
 *  mapped it keep their mapping. */
DLG_API void dlg_bell_destroy(dlg_bell_t *b);
/**
 * The turn functions of b when it belongs to this process (0), or -EXDEV
 * (another process: its functions cannot run here), -ENOENT (none).
 */
DLG_API int dlg_bell_turns(const dlg_bell_t *b, dlg_turns_t *out);
/** The user's area (DLG_BELL_USER bytes, 64-byte aligned, zeroed). */
static inline void *dlg_bell_user(dlg_bell_t *b)
{
    return b->user;
}
/** The delegatee's process id. */
static inline pid_t dlg_bell_pid(const dlg_bell_t *b)
{
    return b->pid;
}

/** Slow part of dlg_bell_ring(): wake the sleeping delegatee. */
DLG_API void dlg_bell_wake(dlg_bell_t *b);
/**
 * Ring after handing the delegatee work.  @return 1 when not rung (a
 * client of it spins in a wait and runs its turns), 0 when rung.
 */
static inline int dlg_bell_ring(dlg_bell_t *b)
{
    if (!b)
        return 0;
    if ((uint32_t)atomic_load_explicit(&b->waits, memory_order_relaxed))
        return 1;
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&b->sleeping, memory_order_seq_cst))
        dlg_bell_wake(b);
    return 0;
}
/**
 * Ring a peer's doorbell after sending it work, trusting for ~5 us (the
 * CPU's tick counter) an answer that a client of it spins in a wait and
 * runs its turns: a stream of messages then does not read the peer's
 * doorbell line (which its waiting client writes on every wait) once per
 * message.  *seen: the caller's per-peer tick of that answer (start 0).
 * Without a tick counter: dlg_bell_ring().  @return as dlg_bell_ring().
 */
DLG_API int dlg_bell_ring_trusted(dlg_bell_t *b, uint64_t *seen);
/** Take the turn lock, yielding while another thread has it (for the
 *  delegatee's end: it keeps the lock from then on). */
DLG_API void dlg_bell_turn_take(dlg_bell_t *b);
/** Clients asleep on a completion flag (dlg_flag_wait(), counted in the
 *  waiter's bell), not yet woken. */
static inline uint32_t dlg_bell_asleep(dlg_bell_t *b)
{
    return atomic_load_explicit(&b->asleep, memory_order_acquire);
}
/** Count a request posted through a ring (see dlg_bell_posted()). */
static inline void dlg_bell_posted_add(dlg_bell_t *b)
{
    atomic_fetch_add_explicit(&b->posted, 1, memory_order_release);
}
/** Requests posted so far (a turn may skip the rings while unchanged). */
static inline uint32_t dlg_bell_posted(dlg_bell_t *b)
{
    return atomic_load_explicit(&b->posted, memory_order_acquire);
}
/** Take the turn lock: 1 taken, 0 another thread has it. */
static inline int dlg_bell_turn_try(dlg_bell_t *b)
{
    return !atomic_exchange_explicit(&b->busy, 1, memory_order_acquire);
}
/** Release the turn lock. */
static inline void dlg_bell_turn_release(dlg_bell_t *b)
{
    atomic_store_explicit(&b->busy, 0, memory_order_release);
}
/** Whether a turn runs now. */
static inline int dlg_bell_turn_busy(dlg_bell_t *b)
{
    return atomic_load_explicit(&b->busy, memory_order_relaxed) != 0;
}
/** The delegatee says whether it has transfers in flight (a waiting client
 *  then keeps spinning: blocking would only make its thread spin). */
static inline void dlg_bell_set_inflight(dlg_bell_t *b, uint32_t v)
{
    if (atomic_load_explicit(&b->inflight, memory_order_relaxed) != v)
        atomic_store_explicit(&b->inflight, v, memory_order_relaxed);
}
static inline uint32_t dlg_bell_inflight(dlg_bell_t *b)
{
    return atomic_load_explicit(&b->inflight, memory_order_relaxed);
}
/** Clients spinning in a wait now, and waits entered so far. */
static inline uint32_t dlg_bell_waiters(dlg_bell_t *b)
{
    return (uint32_t)atomic_load_explicit(&b->waits, memory_order_relaxed);
}
static inline uint32_t dlg_bell_entries(dlg_bell_t *b)
{
    return (uint32_t)(atomic_load_explicit(&b->waits, memory_order_relaxed) >>
                      32);
}
/** This thread spins in a wait running turns (calls nest); leave: done. */
DLG_API void dlg_bell_wait_enter(dlg_bell_t *b);
DLG_API void dlg_bell_wait_leave(dlg_bell_t *b);
/** Leave, and ring: the delegatee's thread takes the work back. */
DLG_API void dlg_bell_wait_handback(dlg_bell_t *b);
/**
 * Hand operation op over with turns->direct (same address space): tried at
 * once; while the lock is taken, a short spin, then up to four yields (the
 * holder may be preempted on this very CPU).  @return 0 handed over,
 * -EBUSY (use the ring).
 */
DLG_API int dlg_bell_hand_over(dlg_bell_t *b, const dlg_turns_t *turns,
                               unsigned op, int who, uint64_t arg);

/** The delegatee's idle state between turns (zero-initialise). */
typedef struct {
    unsigned rounds;       /* idle turns in a row */
    uint64_t t_idle;       /* when the 64th began */
    uint32_t entries_seen; /* dlg_bell_entries() at the last long nap */
    int ready;             /* set up (spin bound, timer slack) */
    uint64_t spin_ns;      /* dlg_spin_bound_ns() */
    uint64_t sleeps;       /**< naps so far */
    uint64_t spin_since;   /* DLG_IDLE_SPIN: polling since (0: not) */
    unsigned spins;        /* DLG_IDLE_SPIN rounds */
} dlg_idle_t;

/** What the delegatee's last turn left (dlg_bell_idle() flags). */
enum {
    /** nothing in flight: sleep until rung */
    DLG_IDLE_SLEEP = 1u << 0,
    /** only work a peer moves is in flight: look again after a short nap */
    DLG_IDLE_LOOK = 1u << 1,
    /** clients share this address space and run turns while they wait */
    DLG_IDLE_TURNS = 1u << 2,
    /** every client sleeps in a wait (their CPUs are free): poll on
     *  without sleeping, a yield every 32nd round, for up to 1 ms after
     *  the last work (the next message then needs no wake-up) */
    DLG_IDLE_SPIN = 1u << 3,
    /** sleep after 4 idle rounds instead of 64 and the spin bound (each
     *  yield is a system call: with clients awake, the CPU is theirs) */
    DLG_IDLE_QUICK = 1u << 4,
};

/**
 * The delegatee's loop after a turn that found `work` (its result): with
 * work, go on at once; with none, yield for a while (64 rounds and the
 * adaptive spin bound, or always with poll_only), then sleep on the
 * doorbell as `flags` allows (DLG_IDLE_SLEEP: until rung, 2 ms at most,
 * 50 us with DLG_IDLE_TURNS; DLG_IDLE_LOOK: 20 us), calling `turn` once
 * more after announcing the sleep (a ring racing it).  With DLG_IDLE_TURNS,
 * while a client spins in a wait (it runs the turns) or entered one since
 * the last nap, nap 5 ms unless rung.  The first call sets the calling
 * thread's timer slack to 1 us (naps of tens of microseconds).
 * @return 1 when it slept.
 */
DLG_API int dlg_bell_idle(dlg_bell_t *b, dlg_idle_t *st, int work,
                          int (*turn)(void), unsigned (*flags)(void),
                          int poll_only);

/** A completion flag: `done` 0 until set; `waiting`: a waiter sleeps. */
typedef struct {
    _Atomic uint32_t done;
    _Atomic uint32_t waiting;
} dlg_flag_t;

/** Whether the flag is set (acquire). */
static inline int dlg_flag_done(dlg_flag_t *f)
{
    return atomic_load_explicit(&f->done, memory_order_acquire) != 0;
}
/** Set the flag (release); wake: also wake a sleeping waiter (pass 0 only
 *  when nobody can sleep on it: its waiter spins or is this thread). */
DLG_API void dlg_flag_set(dlg_flag_t *f, int wake);
/** dlg_flag_set(); a waiter woken is taken off b's dlg_bell_asleep() count
 *  here, before it runs (b may be NULL). */
DLG_API void dlg_flag_set_bell(dlg_flag_t *f, dlg_bell_t *b, int wake);

/** How dlg_flag_wait() waits. */
typedef struct {
    dlg_policy_t policy;      /**< POLL, BLOCK, ADAPTIVE (DEFAULT: adaptive) */
    dlg_bell_t *bell;         /**< the delegatee's doorbell, or NULL */
    const dlg_turns_t *turns; /**< run while spinning (NULL: none) */
    /** hook(ctx) every (hook_mask + 1)-th round and before each sleep,
     *  e.g. the caller's own progress engine (may be NULL) */
    void (*hook)(void *ctx);
    unsigned hook_mask;
    /** round(ctx) on every round (may be NULL) */
    void (*round)(void *ctx);
    void *ctx;
    pid_t peer;      /**< the delegatee: checked every ~20 ms (0: none) */
    uint64_t nap_ns; /**< longest sleep before the hooks run again */
} dlg_waiter_t;

/**
 * Wait for f with w's policy: poll spins in dlg_wait_round()s; block
 * sleeps on the flag at once (in slices of w->nap_ns); adaptive spins for
 * dlg_spin_bound_ns() (and on while the doorbell says transfers are in
 * flight or another thread has the turn), then sleeps.  A spinning waiter
 * is counted in the doorbell while turns run.
 * @return 0, or -EOWNERDEAD (w->peer died).
 */
DLG_API int dlg_flag_wait(dlg_flag_t *f, const dlg_waiter_t *w);
/**
 * One round of a spinning wait: hook every (hook_mask + 1)-th round, a
 * turn (when w->turns), and a yield every 8th round without a turn of our
 * own; with turns, a yield every 8th idle round (its turn moved nothing)
 * from the 32nd in a row on, every 4th from the 4th while this thread's
 * last such yield let another thread run (the thread waited for may need
 * our CPU).  @return the turn's result, -2 without turns.
 */
DLG_API int dlg_wait_round(const dlg_waiter_t *w, unsigned k);
/**
 * One look of a poll function (a caller's own loop around a completion
 * test): a turn (when t), and a yield when the turn was not ours (or
 * there are no turns) or every `every`-th call (k counts the calls; every
 * a power of 2).  @return the turn's result, -2 without turns.
 */
DLG_API int dlg_poll_round(const dlg_turns_t *t, unsigned k, unsigned every);
/** Run a turn if w has turns: the result, or -2. */
static inline int dlg_turn_run(const dlg_turns_t *t)
{
    return t && t->turn ? t->turn() : -2;
}

/* ------------------------------------------------------------------ */
/* Placement (hwloc)                                                   */
/* ------------------------------------------------------------------ */

/** CPU sets of the emulated node, as lists of OS CPU numbers. */
typedef struct {
    int host[1024];
    int nhost;
    int board[1024];
    int nboard;
} dlg_layout_t;

/**
 * Work out host and board CPUs: DLG_HOST_CPUS / DLG_BOARD_CPUS ("0,2-3")
 * when set, else from the topology: the host is the first core (all its
 * PUs), the board the remaining cores; with one core both are that core.
 * Only CPUs this process may run on are used.
 * @return 0, -EINVAL (bad list or CPU not allowed), -ENODEV (no hwloc).
 */
DLG_API int dlg_layout_get(dlg_layout_t *l);
/** Parse a CPU list "0,2-5" into cpus[] (at most max). @return count or
 *  -EINVAL. */
DLG_API int dlg_cpulist_parse(const char *s, int *cpus, int max);
/** Bind the calling thread to the host CPUs (DLG_BIND=none: do nothing).
 *  @return 0 or a negative errno. */
DLG_API int dlg_place_delegatee(const dlg_layout_t *l);
/** Bind the calling thread to board CPU number `index` modulo the board
 *  size (DLG_BIND=board: to all board CPUs; none: nothing). */
DLG_API int dlg_place_client(const dlg_layout_t *l, int index);

/* ------------------------------------------------------------------ */
/* Hierarchical rank tables (node -> delegatee -> board)               */
/* ------------------------------------------------------------------ */

typedef struct dlg_ranktab dlg_ranktab_t;

/** How consecutive global ranks are spread over nodes. */
typedef enum {
    DLG_RANKS_BLOCK = 0, /**< ranks fill node 0, then node 1, ... */
    DLG_RANKS_CYCLIC = 1 /**< rank r on node r mod nodes (equal nodes) */
} dlg_rankmap_t;

/** Shape of a job. */
typedef struct {
    unsigned nodes;
    unsigned deleg_per_node;   /**< delegatees per node (>= 1) */
    unsigned boards_per_deleg; /**< boards per delegatee (>= 1) */
    unsigned ranks_per_board;  /**< ranks per board (>= 1) */
    dlg_rankmap_t map;
    /** Optional: ranks of each board (nodes*deleg_per_node*
     *  boards_per_deleg entries); NULL: all ranks_per_board. */
    const unsigned *board_ranks;
} dlg_ranktab_shape_t;

/** Where a rank lives. */
typedef struct {
    unsigned node, deleg, board; /**< global indices */
    unsigned local;              /**< rank inside its board */
    unsigned core;               /**< core id stored in the board table */
} dlg_rankloc_t;

/** Build all levels (as a launcher would).  @return 0, -EINVAL, -ENOMEM,
 *  -EOVERFLOW (more than 2^31 ranks). */
DLG_API int dlg_ranktab_build(const dlg_ranktab_shape_t *s,
                              dlg_ranktab_t **out);
DLG_API uint64_t dlg_ranktab_size(const dlg_ranktab_t *t);
/** Look `rank` up, walking node -> delegatee -> board.  @return 0 or
 *  -EINVAL (rank out of range). */
DLG_API int dlg_ranktab_lookup(const dlg_ranktab_t *t, uint64_t rank,
                               dlg_rankloc_t *loc);
/** Bytes of rank table held per process: a board process (its board's
 *  table, counted in full although one copy per board suffices, plus the
 *  headers of its board and delegatee), a delegatee (the node table, its
 *  delegatee header and board entries), and the larger of the two; against
 *  a flat table of one dlg_rankloc_t per rank in every process. */
typedef struct {
    uint64_t ranks;
    uint64_t flat_bytes;      /**< one entry per rank in every process */
    uint64_t client_bytes;    /**< per client process */
    uint64_t delegatee_bytes; /**< per delegatee process */
    uint64_t max_bytes;       /**< largest per-process share */
} dlg_ranktab_mem_t;
DLG_API void dlg_ranktab_mem(const dlg_ranktab_t *t, dlg_ranktab_mem_t *m);
DLG_API void dlg_ranktab_free(dlg_ranktab_t *t);

#ifdef __cplusplus
}
#endif
#endif /* DELEG_H */
