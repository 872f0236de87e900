/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_machdep.h: machine-dependent inline helpers of libpip (PiP v2
 * compatible).
 *
 * Spin locks, atomics and memory barriers that PiP programs use to synchronise
 * tasks through memory they share.  Everything here is inline and built on the
 * GCC
 * __atomic builtins, so it works in the root and in every task regardless of
 * which namespace's libc the caller was loaded with.
 *
 * Thread safety: all functions are safe to call concurrently from any task.
 */
#ifndef PIP_MACHDEP_H
#define PIP_MACHDEP_H

#include <sched.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Cache line size, for padding shared structures apart. */
#ifndef PIP_CACHEBLK_SZ
#define PIP_CACHEBLK_SZ 64
#endif

/* Lock word: 0 = free, 1 = held.  Same type as PiP's so layouts match. */
typedef volatile uint32_t pip_spinlock_t;

/* Atomic counter type of pip_atomic_fetch_and_add / pip_atomic_sub_and_fetch.
 */
typedef volatile intptr_t pip_atomic_t;

/*
 * Spin iterations before pip_spin_lock falls back to sched_yield().  On a
 * machine with fewer cores than spinning tasks the holder may be waiting for
 * our core; pure spinning would then burn a whole time slice per attempt.
 */
#define PIP_SPIN_YIELD_AFTER 1000

/* Tell the CPU we are in a spin-wait loop (saves power, helps SMT siblings). */
static inline void pip_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Full barrier: no load or store moves across it, in either direction. */
static inline void pip_memory_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Store barrier: earlier stores become visible before later ones. */
static inline void pip_write_barrier(void)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* Returns 0 (PiP returns int here; kept so callers that check still work). */
static inline int pip_spin_init(pip_spinlock_t *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
    return 0;
}

/* Returns nonzero if the lock was taken, 0 if it is held by someone else. */
static inline int pip_spin_trylock(pip_spinlock_t *lock)
{
    /* Test first so a contended lock's cache line is not bounced by writes. */
    if (__atomic_load_n(lock, __ATOMIC_RELAXED) != 0)
        return 0;
    return __atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void pip_spin_lock(pip_spinlock_t *lock)
{
    unsigned spins = 0;

    while (!pip_spin_trylock(lock)) {
        if (++spins < PIP_SPIN_YIELD_AFTER) {
            pip_pause();
        } else {
            /* The holder may need this core to make progress. */
            sched_yield();
            spins = 0;
        }
    }
}

static inline void pip_spin_unlock(pip_spinlock_t *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/* Nothing to release; kept for API symmetry with PiP.  Returns 0. */
static inline int pip_spin_destroy(pip_spinlock_t *lock)
{
    (void)lock;
    return 0;
}

/* Adds val to *p and returns the value *p had before. */
static inline intptr_t pip_atomic_fetch_and_add(pip_atomic_t *p, intptr_t val)
{
    return __atomic_fetch_add(p, val, __ATOMIC_SEQ_CST);
}

/* Subtracts val from *p and returns the new value. */
static inline intptr_t pip_atomic_sub_and_fetch(pip_atomic_t *p, intptr_t val)
{
    return __atomic_sub_fetch(p, val, __ATOMIC_SEQ_CST);
}

/* Adds val to *p and returns the new value (PiP has this one too). */
static inline intptr_t pip_atomic_add_and_fetch(pip_atomic_t *p, intptr_t val)
{
    return __atomic_add_fetch(p, val, __ATOMIC_SEQ_CST);
}

#ifdef __cplusplus
}
#endif

#endif /* PIP_MACHDEP_H */
