/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file ulp.h
 * @brief User-Level Processes (ULPs) on Process-in-Process.
 *
 * A ULP is a PiP task (or a function) that runs without a kernel thread of
 * its own: kernel threads called *schedulers* switch between ULPs at user
 * level, in tens of nanoseconds.  Each ULP keeps its own thread block (its
 * libc's TLS: errno, __thread variables, pthread_self(), the stack-protector
 * canary), because a switch also switches the thread pointer (x86-64: fs
 * base, by `wrfsbase` when the kernel allows it; aarch64: TPIDR_EL0, always
 * from user mode).  Without FSGSBASE (x86-64) the
 * default is the copy method: the thread pointer stays the carrier's, the
 * switch copies the ULP's static TLS and shows its own thread descriptor;
 * values stay per ULP, TLS addresses are the carrier's (README, "Privacy").
 *
 * HOW IT WORKS
 *   Every ULP is born as an ordinary kernel thread (a PiP task thread in
 *   thread mode, or a pthread for ulp_create()).  Before any user code, that
 *   thread saves its context, hands the ULP to a scheduler and *parks*: it
 *   sleeps on a futex, with every signal blocked.  The ULP is then
 *   "decoupled".  ulp_couple() wakes the parked kernel thread and the ULP
 *   continues on it ("coupled": it may block in system calls without
 *   stopping its scheduler); ulp_decouple() hands it back to a scheduler.
 *   A ULP always ends coupled, so its libc tears down its own thread.
 *
 * WHICH KERNEL THREAD A SYSTEM CALL SEES
 *   A decoupled ULP's system calls run on its scheduler's kernel thread
 *   (the "carrier"):
 *   - gettid() and syscall(SYS_gettid) return the carrier's tid, which
 *     changes when the ULP moves to another scheduler.  ulp_gettid()
 *     always returns the ULP's own kernel thread's tid, and so does the tid
 *     glibc keeps in the thread block (pthread mutex owners, raise()'s
 *     target via pthread_self()).  Coupled, gettid() == ulp_gettid().
 *   - getpid() is the root's pid either way (tasks are threads of the root).
 *   - The signal mask, sigaltstack, CPU affinity, scheduling priority,
 *     rseq registration and robust-futex list are the carrier's.  Changing
 *     them while decoupled changes the scheduler's.  A signal sent to the
 *     ULP's own thread (pthread_kill, pip_kill) stays pending until the ULP
 *     couples (its parked thread blocks all signals).  Couple first for a
 *     consistent view: ulp_couple(); ...; ulp_decouple(NULL).
 *   - A blocking system call, or a blocking pthread_mutex/condvar, made
 *     while decoupled blocks the whole scheduler: couple around it, and use
 *     ulp_mutex_t / ulp_barrier_t between ULPs.
 *
 * ERRORS
 *   Functions returning int return 0 (or a count) on success and a
 *   NEGATIVE errno value on failure; ulp_strerror() names it.
 *
 * THREAD SAFETY
 *   Every function may be called from any ULP or kernel thread unless its
 *   description says otherwise.  "From a ULP" means code running as a ULP,
 *   coupled or not.
 *
 * ENVIRONMENT
 *   ULP_FSBASE   auto (default) | wrfsbase | syscall | copy: how a switch
 *                gives the ULP its TLS.  auto: wrfsbase with FSGSBASE, else
 *                copy.  wrfsbase fails ulp_init() with -ENOTSUP when the
 *                kernel does not allow it; copy, when the libc's thread
 *                block is not laid out as expected (auto then uses
 *                syscall, i.e. arch_prctl).
 *                aarch64: auto (default) | tpidr, the only method
 *                (TPIDR_EL0 is user-writable); the x86-64 names fail
 *                ulp_init() with -ENOTSUP.
 *   ULP_TEST_NO_FSGSBASE  1: behave as if the kernel had not enabled
 *                FSGSBASE (tests, benchmarks).
 *   ULP_STACKSZ  stack of a ULP made by ulp_create(): a number of bytes with
 *                optional k, m or g suffix; default 256k.  PiP-task ULPs use
 *                libpip's stack (PIP_STACKSZ).
 *   ULP_GUARDSZ  guard area below each ULP stack (rounded up to pages;
 *                default 4k).  For PiP-task ULPs, the part beyond libpip's
 *                own guard page is protected at spawn.
 *   PVAS_LOG     ulp:debug prints one-line reasons for failures on stderr
 *                (ULP_DEBUG=1: deprecated alias).
 *
 * STACK OVERFLOW
 *   A ULP that runs into its guard area gets a one-line report on stderr,
 *   "ulp: stack overflow in ULP <id> ...", and the process ends by SIGSEGV
 *   (libulp installs a SIGSEGV handler on an alternate signal stack in
 *   ulp_init(); faults that are not stack overflows get the previous
 *   handler or the default action).
 */
#ifndef ULP_H
#define ULP_H

#include <stdint.h>
#include <sys/types.h>

#include <pip/pip.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ULP_EXPORT
#define ULP_EXPORT __attribute__((visibility("default")))
#endif

/** A user-level process (opaque). */
typedef struct ulp ulp_t;
/** A scheduler: a kernel thread that runs ULPs (opaque). */
typedef struct ulp_sched ulp_sched_t;

/** A queue of suspended ULPs.  Initialise with ULP_WAITQ_INIT or
 * ulp_waitq_init(). */
typedef struct {
    volatile int lock;
    int count;
    ulp_t *head;
    ulp_t *tail;
} ulp_waitq_t;
#define ULP_WAITQ_INIT                                                         \
    {                                                                          \
        0, 0, NULL, NULL                                                       \
    }

/** A mutex that blocks at user level. */
typedef struct {
    ulp_waitq_t q;
    ulp_t *owner;
} ulp_mutex_t;
#define ULP_MUTEX_INIT                                                         \
    {                                                                          \
        ULP_WAITQ_INIT, NULL                                                   \
    }

/** A barrier that blocks at user level. */
typedef struct {
    ulp_waitq_t q;
    int n;
    int arrived;
} ulp_barrier_t;

/** Thread-pointer switch method (ulp_fsbase_method()). */
#define ULP_FSBASE_WRFSBASE 1
#define ULP_FSBASE_SYSCALL  2
#define ULP_FSBASE_COPY     3
#define ULP_FSBASE_TPIDR    4 /* aarch64: msr tpidr_el0, the only method */

/* ------------------------------------------------------------------------ */
/* Library                                                                  */
/* ------------------------------------------------------------------------ */

/**
 * @brief Initialise libulp (once per process, in the root, before anything
 * else).  Reads ULP_FSBASE, ULP_STACKSZ, ULP_GUARDSZ and installs the
 * stack-overflow handler.
 * @return 0, -EBUSY (already initialised), -EINVAL (bad environment value),
 *         -ENOTSUP (ULP_FSBASE=wrfsbase but FSGSBASE is not enabled, or
 *         ULP_FSBASE=copy with an unknown thread-block layout),
 *         -ENOMEM.
 * Thread safety: call once, from one thread.
 */
ULP_EXPORT int ulp_init(void);

/**
 * @brief Finalise libulp.
 * @return 0, -EBUSY (a scheduler still exists), -EPERM (not initialised).
 */
ULP_EXPORT int ulp_fin(void);

/** @return ULP_FSBASE_WRFSBASE, ULP_FSBASE_SYSCALL or ULP_FSBASE_COPY on
 * x86-64, ULP_FSBASE_TPIDR on aarch64 (0 before ulp_init). */
ULP_EXPORT int ulp_fsbase_method(void);

/** @return a static string naming `err` (negative errno or 0). */
ULP_EXPORT const char *ulp_strerror(int err);

/* ------------------------------------------------------------------------ */
/* Schedulers                                                               */
/* ------------------------------------------------------------------------ */

/**
 * @brief Start a scheduler: a new kernel thread that runs ULPs.
 * @param sp  out: the scheduler
 * @param cpu CPU to bind the kernel thread to, or -1 (no binding)
 * @return 0, -EPERM (ulp_init not called), -EINVAL (bad cpu), -ENOMEM,
 *         -EAGAIN (no kernel thread, or 256 schedulers created since
 *         ulp_init).
 */
ULP_EXPORT int ulp_sched_create(ulp_sched_t **sp, int cpu);

/**
 * @brief Stop a scheduler once it has no ULP left, and free it.
 *
 * Waits until every ULP that last ran on it, or was resumed into it, has
 * ended or moved away (a coupled ULP still belongs to the scheduler it
 * will decouple into).  Call from a kernel thread that is not a ULP.  The
 * scheduler's memory is released by ulp_fin().
 * @return 0, -EINVAL (NULL or destroyed already), -EPERM (called from a
 *         ULP).
 */
ULP_EXPORT int ulp_sched_destroy(ulp_sched_t *s);

/**
 * @brief Let scheduler `s` steal work when idle (`on` nonzero) or not.
 *
 * An idle stealing scheduler takes the oldest ULP that another scheduler
 * has been handed (resumed, migrated or woken into it) but has not started
 * yet, so ready ULPs do not wait behind a busy scheduler while a CPU idles
 * (load levelling).  A ULP's placement by ulp_resume/ulp_migrate is then a
 * preference, not a guarantee.  Off by default.
 * @return 0, -EINVAL (NULL or destroyed).
 */
ULP_EXPORT int ulp_sched_steal(ulp_sched_t *s, int on);

/** @return the scheduler the calling ULP runs on, NULL when coupled or not a
 * ULP. */
ULP_EXPORT ulp_sched_t *ulp_sched_self(void);

/** @return the kernel thread id of the scheduler's kernel thread. */
ULP_EXPORT pid_t ulp_sched_tid(const ulp_sched_t *s);

/* ------------------------------------------------------------------------ */
/* Creating and ending ULPs                                                 */
/* ------------------------------------------------------------------------ */

/**
 * @brief Spawn a PiP task as a ULP in scheduler `s`.
 *
 * The task is started with pip_task_spawn() (libpip must be initialised in
 * thread mode, PIP_MODE_PTHREAD) with hooks of libulp; user hooks are not
 * supported.  Before its main (or start function) runs, the task decouples
 * into `s`.  A task program may call this API when it links libulp itself
 * (`pkg-config --libs ulp`): its copy of libulp forwards to the root's.
 *
 * @param up     out: the ULP
 * @param s      the scheduler to run it
 * @param progp  what to run (pip_spawn_from_main/pip_spawn_from_func)
 * @param pipidp in: wanted pipid or PIP_PIPID_ANY; out: the pipid (may be NULL)
 * @return 0, -EPERM (libulp or libpip not initialised, libpip not in thread
 *         mode, or called from a task), -EINVAL, -ENOMEM, or minus any error
 *         of pip_task_spawn() (-EAGAIN when no namespace is left, ...).
 * Thread safety: root only, from the thread that called pip_init().
 */
ULP_EXPORT int ulp_spawn(ulp_t **up, ulp_sched_t *s, pip_spawn_program_t *progp,
                         int *pipidp);

/**
 * @brief Create a ULP that runs `fn(arg)` of the calling program in
 * scheduler `s`.  It has its own kernel thread (parked while decoupled),
 * its own thread block and a stack of ULP_STACKSZ bytes with a guard area.
 * Its exit status is fn's return value.
 * @return 0, -EPERM (not initialised), -EINVAL, -ENOMEM, -EAGAIN.
 */
ULP_EXPORT int ulp_create(ulp_t **up, ulp_sched_t *s, int (*fn)(void *),
                          void *arg);

/**
 * @brief Wait for a ULP to end, then free it.
 *
 * From a ULP the wait is at user level (the caller is suspended); from
 * another kernel thread it blocks that thread.  A PiP-task ULP must be
 * joined by the root's pip_init thread (the task is reaped with pip_wait()).
 * Each ULP must be joined exactly once.
 * @param status out: the exit status (fn's return value, main's return value
 *               or exit()'s argument, or ulp_exit()'s); may be NULL
 * @return 0, -EINVAL (NULL), -EDEADLK (joining itself), -EPERM (PiP-task
 *         ULP joined by a ULP or outside the root), -ECHILD (task already
 *         reaped).
 */
ULP_EXPORT int ulp_join(ulp_t *u, int *status);

/**
 * @brief End the calling ULP with `status` (as returning it from fn/main;
 * a PiP task's atexit handlers run).  Not for a non-ULP: returns -EPERM.
 */
ULP_EXPORT int ulp_exit(int status);

/* ------------------------------------------------------------------------ */
/* Identity                                                                 */
/* ------------------------------------------------------------------------ */

/** @return the calling ULP, or NULL if the caller is not a ULP. */
ULP_EXPORT ulp_t *ulp_self(void);
/** @return a ULP's number (1, 2, ... in creation order), or -EINVAL. */
ULP_EXPORT int ulp_id(const ulp_t *u);
/** @return a PiP-task ULP's pipid, -ENOENT for a ulp_create() ULP, -EINVAL.
 */
ULP_EXPORT int ulp_pipid(const ulp_t *u);
/**
 * @return the tid of the calling ULP's own kernel thread (stable whichever
 * scheduler carries it), or the caller's tid if it is not a ULP.
 */
ULP_EXPORT pid_t ulp_gettid(void);
/** @return nonzero when the calling ULP runs on its own kernel thread. */
ULP_EXPORT int ulp_is_coupled(void);

/* ------------------------------------------------------------------------ */
/* Scheduling                                                               */
/* ------------------------------------------------------------------------ */

/**
 * @brief Let the next ready ULP of the caller's scheduler run; the caller
 * goes to the end of the run queue.  Returns at once if no other ULP is
 * ready.  Coupled: sched_yield().
 * @return 0, -EPERM (not a ULP).
 */
ULP_EXPORT int ulp_yield(void);

/**
 * @brief Switch directly to ULP `u`, which must be ready in the caller's
 * scheduler; the caller goes to the end of the run queue.
 * @return 0, -EPERM (not a ULP, or coupled), -EINVAL (NULL or self),
 *         -EAGAIN (u is not ready in this scheduler).
 */
ULP_EXPORT int ulp_yield_to(ulp_t *u);

/**
 * @brief Move the calling ULP to scheduler `s` (it continues there).
 * Coupled: only records `s` as the scheduler ulp_decouple(NULL) uses.
 * @return 0, -EPERM (not a ULP), -EINVAL (NULL).
 */
ULP_EXPORT int ulp_migrate(ulp_sched_t *s);

/** @brief Initialise an empty wait queue. */
ULP_EXPORT void ulp_waitq_init(ulp_waitq_t *q);

/**
 * @brief Suspend the calling ULP into wait queue `q` until a resume.
 * A decoupled ULP leaves its scheduler to other ULPs; a coupled one parks
 * its kernel thread.
 * @return 0, -EPERM (not a ULP), -EINVAL (NULL).
 */
ULP_EXPORT int ulp_suspend(ulp_waitq_t *q);

/**
 * @brief Resume the first ULP of `q` (FIFO) into scheduler `s` (NULL: the
 * scheduler it last ran on).  A coupled ULP continues on its own kernel
 * thread whatever `s` is.  Callable from any kernel thread or ULP.
 * @return 1 if a ULP was resumed, 0 if the queue was empty, -EINVAL.
 */
ULP_EXPORT int ulp_resume(ulp_waitq_t *q, ulp_sched_t *s);

/** @brief Resume every ULP of `q`.  @return how many, or -EINVAL. */
ULP_EXPORT int ulp_resume_all(ulp_waitq_t *q, ulp_sched_t *s);

/* ------------------------------------------------------------------------ */
/* Couple / decouple                                                        */
/* ------------------------------------------------------------------------ */

/**
 * @brief Continue on the ULP's own kernel thread (for blocking system
 * calls, or a consistent gettid/signal mask).  The scheduler goes on
 * with other ULPs.  No-op if already coupled.
 * @return 0, -EPERM (not a ULP).
 */
ULP_EXPORT int ulp_couple(void);

/**
 * @brief Give the calling ULP back to user-level scheduling, in `s` (NULL:
 * the scheduler it last ran on).  No-op if already decoupled (use
 * ulp_migrate to move).
 * @return 0, -EPERM (not a ULP).
 */
ULP_EXPORT int ulp_decouple(ulp_sched_t *s);

/* ------------------------------------------------------------------------ */
/* Synchronisation between ULPs (user-level blocking)                       */
/* ------------------------------------------------------------------------ */

/** @brief Initialise a mutex.  @return 0 or -EINVAL. */
ULP_EXPORT int ulp_mutex_init(ulp_mutex_t *m);
/**
 * @brief Lock; a ULP that finds the mutex taken is suspended (FIFO) and
 * gets it directly from the unlocker.
 * @return 0, -EINVAL, -EPERM (not a ULP), -EDEADLK (caller owns it).
 */
ULP_EXPORT int ulp_mutex_lock(ulp_mutex_t *m);
/** @return 0, -EBUSY (taken), -EINVAL, -EPERM (not a ULP). */
ULP_EXPORT int ulp_mutex_trylock(ulp_mutex_t *m);
/** @return 0, -EINVAL, -EPERM (caller is not the owner). */
ULP_EXPORT int ulp_mutex_unlock(ulp_mutex_t *m);
/** @return 0, -EBUSY (locked or waited on), -EINVAL. */
ULP_EXPORT int ulp_mutex_destroy(ulp_mutex_t *m);

/** @brief Initialise a barrier for `n` > 0 ULPs.  @return 0 or -EINVAL. */
ULP_EXPORT int ulp_barrier_init(ulp_barrier_t *b, int n);
/**
 * @brief Wait until `n` ULPs have arrived; the earlier ones are suspended,
 * the last resumes them (each into the scheduler it last ran on).
 * @return 1 in exactly one ULP (the last to arrive), 0 in the others,
 *         -EINVAL, -EPERM (not a ULP).
 */
ULP_EXPORT int ulp_barrier_wait(ulp_barrier_t *b);
/** @return 0, -EBUSY (ULPs waiting), -EINVAL. */
ULP_EXPORT int ulp_barrier_destroy(ulp_barrier_t *b);

#ifdef __cplusplus
}
#endif

#endif /* ULP_H */
