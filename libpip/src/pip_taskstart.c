/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_taskstart.c: pip_taskstart.so, the module a private-image task's
 * loader preloads first (pip_image.c).  A task's mmap, munmap and mremap
 * wait for the root's placer thread (pip_region.c); a handled signal that
 * arrives before the placer takes such a call interrupts the wait, and the
 * kernel then restarts the call only when the handler has SA_RESTART:
 * without, the call fails with EINTR, which no program expects of them
 * (malloc would return NULL; ld.so gives up: "failed to map segment").
 *
 * 1. Start-up.  The task starts with every signal blocked; this module's
 *    initialiser (the first preloaded object is initialised last: after
 *    every mapping, relocation and the initialisers of the libraries the
 *    program needs) sets the mask the task is meant to start with, whose
 *    address the root put in the auxiliary vector (PIP_AT_SIGMASK).
 *    Signals sent meanwhile stay pending and are handled then.
 *
 * 2. Afterwards (x86-64).  A handler without SA_RESTART (inherited from
 *    the root, or installed through sigaction) is installed as a
 *    trampoline with SA_RESTART.  When the kernel is about to restart an
 *    interrupted call, the trampoline keeps the restart for the calls a
 *    process never sees fail with EINTR (mmap, munmap, mremap; fork,
 *    clone, execve, which the kernel restarts anyway) and gives every
 *    other call the EINTR its program asked for, then runs the program's
 *    handler.  sigaction reports the program's handler and flags.
 *    Handlers installed by other routes (a raw rt_sigaction, sysv_signal,
 *    sigset, siginterrupt) are not wrapped.
 *
 * No libpip, no sanitizer (it runs under the task's own libc).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* Must match pip_internal.h. */
#define PIP_AT_SIGMASK 0x70697033UL
/* The kernel's signal set: 64 signals on x86-64 and aarch64. */
#define PIP_KSIGSET_SIZE 8

#if defined(__x86_64__)

#define PIP_TS_EXPORT __attribute__((visibility("default")))

typedef void (*pip_ts_fn)(int, siginfo_t *, void *);

/* The program's view of a wrapped handler. */
struct pip_ts_act {
    pip_ts_fn fn; /* sa_handler or sa_sigaction */
    int flags;    /* its flags (no SA_RESTART) */
};

static struct pip_ts_act pip_ts_acts[_NSIG];

typedef int (*pip_ts_sigaction_t)(int, const struct sigaction *,
                                  struct sigaction *);

static pip_ts_sigaction_t pip_ts_real(void)
{
    static pip_ts_sigaction_t real;
    pip_ts_sigaction_t f = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = (pip_ts_sigaction_t)dlsym(RTLD_NEXT, "sigaction");
        __atomic_store_n(&real, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* Calls that restart whatever the handler's flags: the forwarded ones,
 * and those the kernel restarts anyway (-ERESTARTNOINTR). */
static int pip_ts_always_restarts(long nr)
{
    switch (nr) {
    case SYS_mmap:
    case SYS_munmap:
    case SYS_mremap:
    case SYS_clone:
    case SYS_fork:
    case SYS_vfork:
    case SYS_execve:
#ifdef SYS_execveat
    case SYS_execveat:
#endif
#ifdef SYS_clone3
    case SYS_clone3:
#endif
        return 1;
    default:
        return 0;
    }
}

/* Is the kernel restarting a call (SA_RESTART: rip back on the syscall
 * instruction, rax the call's number)?  The syscall instruction left its
 * marks: rcx is the address after it, r11 the flags. */
static int pip_ts_restarting(const greg_t *g)
{
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    return g[REG_RAX] >= 0 && g[REG_RAX] < 1024 &&
           g[REG_RCX] == g[REG_RIP] + 2 && g[REG_R11] == g[REG_EFL] &&
           ip[0] == 0x0f && ip[1] == 0x05;
}

static void pip_ts_trampoline(int sig, siginfo_t *si, void *ucv)
{
    int e = errno;
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    if (pip_ts_restarting(g) && !pip_ts_always_restarts((long)g[REG_RAX])) {
        g[REG_RAX] = -EINTR;
        g[REG_RIP] += 2;
    }
    struct pip_ts_act a;
    a.fn = __atomic_load_n(&pip_ts_acts[sig].fn, __ATOMIC_ACQUIRE);
    a.flags = __atomic_load_n(&pip_ts_acts[sig].flags, __ATOMIC_ACQUIRE);
    errno = e;
    if (a.fn == NULL)
        return;
    if (a.flags & SA_SIGINFO)
        a.fn(sig, si, ucv);
    else
        ((void (*)(int))(void (*)(void))a.fn)(sig);
}

/* Install `act` for `sig`, through the trampoline when it is a handler
 * without SA_RESTART; *old gets the program's view. */
static int pip_ts_install(int sig, const struct sigaction *act,
                          struct sigaction *old)
{
    pip_ts_sigaction_t real = pip_ts_real();
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (sig <= 0 || sig >= _NSIG)
        return real(sig, act, old);
    struct pip_ts_act prev = pip_ts_acts[sig];
    struct sigaction k, kold;
    const struct sigaction *use = act;
    if (act != NULL && !(act->sa_flags & SA_RESTART) &&
        act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN) {
        k = *act;
        k.sa_sigaction = pip_ts_trampoline;
        k.sa_flags |= SA_SIGINFO | SA_RESTART;
        __atomic_store_n(&pip_ts_acts[sig].flags, act->sa_flags,
                         __ATOMIC_RELEASE);
        __atomic_store_n(&pip_ts_acts[sig].fn, (pip_ts_fn)act->sa_sigaction,
                         __ATOMIC_RELEASE);
        use = &k;
    }
    int rc = real(sig, use, &kold);
    if (rc != 0)
        return rc;
    if (old != NULL) {
        *old = kold;
        if (kold.sa_sigaction == pip_ts_trampoline) {
            old->sa_sigaction = prev.fn;
            old->sa_flags = prev.flags;
        }
    }
    return 0;
}

PIP_TS_EXPORT int sigaction(int sig, const struct sigaction *act,
                            struct sigaction *old)
{
    return pip_ts_install(sig, act, old);
}

/* The handlers the task inherited from the root (PiP's fork-like rule). */
static void pip_ts_wrap_inherited(void)
{
    pip_ts_sigaction_t real = pip_ts_real();
    if (real == NULL)
        return;
    for (int sig = 1; sig < _NSIG; sig++) {
        struct sigaction cur;
        if (sig == SIGKILL || sig == SIGSTOP || (sig >= 32 && sig < SIGRTMIN) ||
            real(sig, NULL, &cur) != 0)
            continue;
        if (cur.sa_sigaction != pip_ts_trampoline &&
            !(cur.sa_flags & SA_RESTART) && cur.sa_handler != SIG_DFL &&
            cur.sa_handler != SIG_IGN)
            (void)pip_ts_install(sig, &cur, NULL);
    }
}

#endif /* __x86_64__ */

__attribute__((constructor)) static void pip_taskstart_mask(void)
{
    const void *mask = (const void *)getauxval(PIP_AT_SIGMASK);
    if (mask == NULL)
        return; /* not a task libpip started (a process it fork()ed?) */
#if defined(__x86_64__)
    pip_ts_wrap_inherited();
#endif
    (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, NULL,
                  (size_t)PIP_KSIGSET_SIZE);
}
