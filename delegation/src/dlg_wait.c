/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_wait.c: time, futexes, the adaptive spin bound, peer liveness,
 * environment parsing and error strings.
 */
#include "config.h"
#include "dlg_internal.h"
#include "pvas_log.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t dlg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void dlg_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* Returns 0 when woken (or the value changed), -ETIMEDOUT, -EINTR. */
int dlg_futex_wait(_Atomic uint32_t *w, uint32_t val, uint64_t timeout_ns,
                   int priv)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns) {
        ts.tv_sec = (time_t)(timeout_ns / 1000000000ull);
        ts.tv_nsec = (long)(timeout_ns % 1000000000ull);
        tp = &ts;
    }
    int op = FUTEX_WAIT | (priv ? FUTEX_PRIVATE_FLAG : 0);
    long rc = syscall(SYS_futex, (uint32_t *)w, op, val, tp, NULL, 0);
    if (rc == 0 || errno == EAGAIN)
        return 0;
    return -errno;
}

void dlg_futex_wake(_Atomic uint32_t *w, int n, int priv)
{
    int op = FUTEX_WAKE | (priv ? FUTEX_PRIVATE_FLAG : 0);
    syscall(SYS_futex, (uint32_t *)w, op, n, NULL, NULL, 0);
}

int dlg_policy_parse(const char *s)
{
    if (!s)
        return -EINVAL;
    if (strcmp(s, "poll") == 0)
        return DLG_POLICY_POLL;
    if (strcmp(s, "block") == 0)
        return DLG_POLICY_BLOCK;
    if (strcmp(s, "adaptive") == 0)
        return DLG_POLICY_ADAPTIVE;
    return -EINVAL;
}

const char *dlg_policy_name(dlg_policy_t p)
{
    switch (p) {
    case DLG_POLICY_POLL:
        return "poll";
    case DLG_POLICY_BLOCK:
        return "block";
    case DLG_POLICY_ADAPTIVE:
        return "adaptive";
    default:
        return "default";
    }
}

int dlg_env_policy(const char *name, dlg_policy_t dflt, dlg_policy_t *out)
{
    const char *s = getenv(name);
    if (!s || !*s) {
        *out = dflt;
        return 0;
    }
    int p = dlg_policy_parse(s);
    if (p < 0) {
        dlg_log("%s=%s: expected poll, block or adaptive", name, s);
        return -EINVAL;
    }
    *out = (dlg_policy_t)p;
    return 0;
}

int dlg_env_uint(const char *name, uint64_t dflt, uint64_t min, uint64_t max,
                 uint64_t *out)
{
    const char *s = getenv(name);
    if (!s || !*s) {
        *out = dflt;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || s[0] == '-' || v < min || v > max) {
        dlg_log("%s=%s: expected an integer in [%llu, %llu]", name, s,
                (unsigned long long)min, (unsigned long long)max);
        return -EINVAL;
    }
    *out = v;
    return 0;
}

/*
 * The adaptive policy spins for about as long as blocking would cost (the
 * classic 2-competitive rule): blocking costs a futex wake on the other side
 * and a context switch on ours, estimated by timing both calls here.
 */
static uint64_t calibrate_spin(void)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) <= 1)
        return 0;
    _Atomic uint32_t w = 0;
    uint64_t best = UINT64_MAX;
    for (int round = 0; round < 5; round++) {
        uint64_t t0 = dlg_now_ns();
        for (int i = 0; i < 20; i++) {
            dlg_futex_wake(&w, 1, 1);
            sched_yield();
        }
        uint64_t d = (dlg_now_ns() - t0) / 20;
        if (d < best)
            best = d;
    }
    uint64_t b = best * 4;
    if (b < 1000)
        b = 1000;
    if (b > 100000)
        b = 100000;
    return b;
}

int dlg_env_log(void)
{
    return pvas_log_env_refuse() != NULL ? -EINVAL : 0;
}

/* DLG_SPIN_NS, or the calibrated bound, read once per process: every
 * adaptive wait asks, and getenv scans the whole environment.  A bad value
 * is not kept (each constructor refuses it again). */
int dlg_spin_bound_env(uint64_t *out)
{
    static _Atomic uint64_t known; /* the bound + 1, once read */
    uint64_t k = atomic_load_explicit(&known, memory_order_relaxed);
    if (!k) {
        const char *s = getenv("DLG_SPIN_NS");
        uint64_t v;
        if (!s || !*s)
            v = calibrate_spin();
        else if (dlg_env_uint("DLG_SPIN_NS", 0, 0, 1000000000ull, &v) != 0)
            return -EINVAL;
        k = v + 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    *out = k - 1;
    return 0;
}

uint64_t dlg_spin_bound_ns(void)
{
    uint64_t v = 0;
    return dlg_spin_bound_env(&v) == 0 ? v : 0;
}

void dlg_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(PVAS_LOG_DELEG, PVAS_LOG_INFO, fmt, ap);
    va_end(ap);
}

int dlg_life_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    int rc = pthread_mutexattr_init(&a);
    if (!rc)
        rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    if (!rc)
        rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (!rc)
        rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return -rc;
}

/*
 * The owner holds its robust mutex for as long as it lives; the kernel marks
 * the mutex when the owning thread dies, so a trylock tells a dead owner
 * (EOWNERDEAD) from a live one (EBUSY) without any message to it.
 */
int dlg_life_check(pthread_mutex_t *m)
{
    int rc = pthread_mutex_trylock(m);
    if (rc == EBUSY || rc == EDEADLK)
        return 0;
    if (rc == EOWNERDEAD) {
        pthread_mutex_consistent(m);
        pthread_mutex_unlock(m);
        return -EOWNERDEAD;
    }
    if (rc == ENOTRECOVERABLE)
        return -EOWNERDEAD;
    if (rc == 0) {
        pthread_mutex_unlock(m);
        return -ENOTCONN;
    }
    return -rc;
}

const char *dlg_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case -EOWNERDEAD:
        return "delegation peer died";
    case -ENOTCONN:
        return "delegatee stopped or not running";
    case -ENOSYS:
        return "no handler registered for the operation";
    case -EAGAIN:
        return "request ring full";
    case -EMSGSIZE:
        return "payload or reply larger than the inline limit";
    case -ETIMEDOUT:
        return "timed out";
    case -EUSERS:
        return "no free client slot in the region";
    case -EPROTO:
        return "not a delegation region (or incompatible version)";
    case -ENOSPC:
        return "region too small for these attributes";
    case -EINVAL:
        return "invalid argument or environment value";
    case -EBUSY:
        return "busy: requests outstanding or a delegatee already running";
    case -EFAULT:
        return "buffer outside the accessible memory";
    case -EPERM:
        return "operation not permitted on this buffer";
    case -ENODEV:
        return "topology not available";
    default:
        break;
    }
    if (err < 0) {
        const char *s = strerrordesc_np(-err);
        if (s)
            return s;
    }
    return "unknown error";
}
