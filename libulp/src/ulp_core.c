/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_core.c: libulp set-up, how a kernel thread becomes a ULP (ulp_adopt),
 * ULPs from functions and from PiP tasks, exit and join, the stack-overflow
 * report, and the link that lets a task's copy of libulp use the root's.
 */
#include "ulp_internal.h"
#include "pvas_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvas_env.h"

/* Tell valgrind about the park stacks (it would take a switch to one for
 * a huge stack frame), where its header is installed. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define ULP_VG_STACK_REGISTER(lo, hi) VALGRIND_STACK_REGISTER(lo, hi)
#define ULP_VG_STACK_DEREGISTER(id)   VALGRIND_STACK_DEREGISTER(id)
#endif
#endif
#ifndef ULP_VG_STACK_REGISTER
#define ULP_VG_STACK_REGISTER(lo, hi) 0
#define ULP_VG_STACK_DEREGISTER(id)   ((void)(id))
#endif

#define ULP_STACK_DEFAULT (256UL * 1024)
#define ULP_STACK_MIN     (64UL * 1024)
#define ULP_GUARD_SLACK   (64UL * 1024) /* a frame may skip the guard page */

/* "123", "64k", "8m", "1g" -> bytes; -1 on a bad value. */
static long long ulp_parse_size(const char *v)
{
    char *end;
    if (v == NULL || *v == '\0')
        return -1;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0 || end == v || v[0] == '-')
        return -1;
    unsigned long long mul = 1;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        mul = 1ULL << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mul = 1ULL << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mul = 1ULL << 30;
        end++;
        break;
    default:
        return -1;
    }
    if (*end != '\0' || n > (1ULL << 40) / mul)
        return -1;
    return (long long)(n * mul);
}

/* --- stack-overflow report -------------------------------------------------
 */

static size_t ulp_fmt(char *b, size_t at, size_t cap, const char *s)
{
    while (*s != '\0' && at + 1 < cap)
        b[at++] = *s++;
    return at;
}

static size_t ulp_fmt_num(char *b, size_t at, size_t cap, unsigned long v,
                          int base)
{
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = "0123456789abcdef"[v % (unsigned)base];
        v /= (unsigned)base;
    } while (v != 0);
    if (base == 16)
        at = ulp_fmt(b, at, cap, "0x");
    while (i > 0 && at + 1 < cap)
        b[at++] = tmp[--i];
    return at;
}

static void ulp_segv_handler(int sig, siginfo_t *si, void *uc)
{
    struct ulp *u = ulp_self_;
    uintptr_t a = (uintptr_t)si->si_addr;

    if (u != NULL && u->guard_hi != 0 && a + ULP_GUARD_SLACK >= u->guard_lo &&
        a < u->guard_hi) {
        char b[256];
        size_t n = 0;
        n = ulp_fmt(b, n, sizeof(b), "ulp: stack overflow in ULP ");
        n = ulp_fmt_num(b, n, sizeof(b), (unsigned long)u->id, 10);
        if (u->pipid >= 0) {
            n = ulp_fmt(b, n, sizeof(b), " (pipid ");
            n = ulp_fmt_num(b, n, sizeof(b), (unsigned long)u->pipid, 10);
            n = ulp_fmt(b, n, sizeof(b), ")");
        }
        n = ulp_fmt(b, n, sizeof(b), ": fault at ");
        n = ulp_fmt_num(b, n, sizeof(b), a, 16);
        n = ulp_fmt(b, n, sizeof(b), ", guard ");
        n = ulp_fmt_num(b, n, sizeof(b), u->guard_lo, 16);
        n = ulp_fmt(b, n, sizeof(b), "-");
        n = ulp_fmt_num(b, n, sizeof(b), u->guard_hi, 16);
        n = ulp_fmt(b, n, sizeof(b),
                    u->pipid >= 0 ? "; raise PIP_STACKSZ\n"
                                  : "; raise ULP_STACKSZ\n");
        (void)!write(2, b, n);
    } else if (ulp_g_.old_segv.sa_flags & SA_SIGINFO) {
        if (ulp_g_.old_segv.sa_sigaction != NULL) {
            ulp_g_.old_segv.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (ulp_g_.old_segv.sa_handler != SIG_DFL &&
               ulp_g_.old_segv.sa_handler != SIG_IGN) {
        ulp_g_.old_segv.sa_handler(sig);
        return;
    }
    /* Default action: the fault happens again and ends the process. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    (void)sigaction(SIGSEGV, &dfl, NULL);
}

/* --- set-up -----------------------------------------------------------------
 */

static int ulp_fsbase_method_impl(void)
{
    return ulp_g_.initialised ? ulp_g_.fsbase_method : 0;
}

int ulp_fsbase_method(void)
{
    ULP_FORWARD(fsbase_method);
    return ulp_fsbase_method_impl();
}

int ulp_init(void)
{
    const char *v;
    long long n;

    if (ulp_ns_link_.ops != NULL || ulp_g_.initialised)
        return -EBUSY;
    if (pvas_log_env_refuse() != NULL)
        return -EINVAL;
    memset(&ulp_g_, 0, sizeof(ulp_g_));
    ulp_g_.page = (size_t)sysconf(_SC_PAGESIZE);

#if defined(__aarch64__)
    /*
     * TPIDR_EL0 is written from user mode: every switch loads the ULP's own
     * thread block and there is nothing to choose.  The x86-64 methods are
     * refused by name.
     */
    v = getenv("ULP_FSBASE");
    if (v == NULL || *v == '\0' || strcmp(v, "auto") == 0 ||
        strcmp(v, "tpidr") == 0) {
        ulp_g_.fsbase_method = ULP_FSBASE_TPIDR;
    } else if (strcmp(v, "wrfsbase") == 0 || strcmp(v, "syscall") == 0 ||
               strcmp(v, "arch_prctl") == 0 || strcmp(v, "copy") == 0) {
        ulp_dbg("ULP_FSBASE=%s is an x86-64 method; aarch64 uses tpidr", v);
        return -ENOTSUP;
    } else {
        ulp_dbg("bad ULP_FSBASE '%s' (auto or tpidr on aarch64)", v);
        return -EINVAL;
    }
    ulp_g_.sw = ulp_arch_switch_tpidr;
#else
    int nofs;
    if (pvas_env_bool("ULP_TEST_NO_FSGSBASE", 0, 0, &nofs) != 0) {
        ulp_dbg("bad ULP_TEST_NO_FSGSBASE '%s' (%s)",
                getenv("ULP_TEST_NO_FSGSBASE"), pvas_env_bool_expected(0));
        return -EINVAL;
    }
    int have = ulp_arch_have_fsgsbase();
    int explicit_copy = 0;
    v = getenv("ULP_FSBASE");
    if (v == NULL || *v == '\0' || strcmp(v, "auto") == 0) {
        ulp_g_.fsbase_method = have ? ULP_FSBASE_WRFSBASE : ULP_FSBASE_COPY;
    } else if (strcmp(v, "wrfsbase") == 0) {
        if (!have) {
            ulp_dbg("ULP_FSBASE=wrfsbase but the kernel does not enable "
                    "FSGSBASE");
            return -ENOTSUP;
        }
        ulp_g_.fsbase_method = ULP_FSBASE_WRFSBASE;
    } else if (strcmp(v, "syscall") == 0 || strcmp(v, "arch_prctl") == 0) {
        ulp_g_.fsbase_method = ULP_FSBASE_SYSCALL;
    } else if (strcmp(v, "copy") == 0) {
        ulp_g_.fsbase_method = ULP_FSBASE_COPY;
        explicit_copy = 1;
    } else {
        ulp_dbg("bad ULP_FSBASE '%s' (auto, wrfsbase, syscall or copy)", v);
        return -EINVAL;
    }
    if (ulp_g_.fsbase_method == ULP_FSBASE_COPY) {
        int rc =
            ulp_tls_self_ok() ? ulp_tls_map_root(&ulp_g_.root_tls) : -ENOTSUP;
        if (rc != 0) {
            ulp_dbg("the copy method does not fit this libc's TLS layout");
            if (explicit_copy)
                return -ENOTSUP;
            ulp_g_.fsbase_method = ULP_FSBASE_SYSCALL;
        } else {
            ulp_g_.copy = 1;
        }
    }
    ulp_g_.sw =
        ulp_g_.fsbase_method == ULP_FSBASE_WRFSBASE  ? ulp_arch_switch_wrfsbase
        : ulp_g_.fsbase_method == ULP_FSBASE_SYSCALL ? ulp_arch_switch_syscall
                                                     : ulp_arch_switch_nofs;

#endif

    ulp_g_.stack_size = ULP_STACK_DEFAULT;
    if ((v = getenv("ULP_STACKSZ")) != NULL) {
        n = ulp_parse_size(v);
        if (n < 0) {
            ulp_dbg("bad ULP_STACKSZ '%s'", v);
            return -EINVAL;
        }
        ulp_g_.stack_size =
            (size_t)n < ULP_STACK_MIN ? ULP_STACK_MIN : (size_t)n;
    }
    ulp_g_.stack_size =
        (ulp_g_.stack_size + ulp_g_.page - 1) & ~(ulp_g_.page - 1);
    ulp_g_.guard_size = ulp_g_.page;
    if ((v = getenv("ULP_GUARDSZ")) != NULL) {
        n = ulp_parse_size(v);
        if (n < 0) {
            ulp_dbg("bad ULP_GUARDSZ '%s'", v);
            return -EINVAL;
        }
        ulp_g_.guard_size = (size_t)n < ulp_g_.page ? ulp_g_.page : (size_t)n;
    }
    ulp_g_.guard_size =
        (ulp_g_.guard_size + ulp_g_.page - 1) & ~(ulp_g_.page - 1);

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = ulp_segv_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &ulp_g_.old_segv) != 0)
        return -EINVAL;
    ulp_g_.initialised = 1;
    return 0;
}

int ulp_fin(void)
{
    if (!ulp_g_.initialised)
        return -EPERM;
    if (__atomic_load_n(&ulp_g_.nsched, __ATOMIC_SEQ_CST) != 0)
        return -EBUSY;
    (void)sigaction(SIGSEGV, &ulp_g_.old_segv, NULL);
    ulp_sched_free_all();
    ulp_g_.initialised = 0;
    return 0;
}

/* --- becoming a ULP ---------------------------------------------------------
 */

static struct ulp *ulp_alloc(struct ulp_sched *s)
{
    struct ulp *u = calloc(1, sizeof(*u));
    if (u == NULL)
        return NULL;
    u->id = __atomic_add_fetch(&ulp_g_.next_id, 1, __ATOMIC_SEQ_CST);
    u->pipid = -1;
    u->park_stack = mmap(NULL, ULP_PARKSTACK_SIZE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    u->altstack = mmap(NULL, ULP_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (u->park_stack == MAP_FAILED || u->altstack == MAP_FAILED) {
        if (u->park_stack != MAP_FAILED)
            munmap(u->park_stack, ULP_PARKSTACK_SIZE);
        if (u->altstack != MAP_FAILED)
            munmap(u->altstack, ULP_ALTSTACK_SIZE);
        free(u);
        return NULL;
    }
    u->vg_park = ULP_VG_STACK_REGISTER(u->park_stack, (char *)u->park_stack +
                                                          ULP_PARKSTACK_SIZE);
    ulp_set_last(u, s);
    return u;
}

static void ulp_free(struct ulp *u)
{
    free(u->tls_buf);
    if (u->stack != NULL)
        munmap(u->stack, u->stack_size);
    ULP_VG_STACK_DEREGISTER(u->vg_park);
    munmap(u->park_stack, ULP_PARKSTACK_SIZE);
    munmap(u->altstack, ULP_ALTSTACK_SIZE);
    free(u);
}

/*
 * Runs on the new ULP's own kernel thread, with its thread block, before
 * any user code: record who we are, then decouple into the scheduler.
 * Returns on a scheduler (or wherever the ULP is run first).
 */
int ulp_adopt(struct ulp *u)
{
    stack_t ss;
    int insn = ulp_g_.fsbase_method == ULP_FSBASE_WRFSBASE;

    ulp_self_ = u; /* lives in this thread block: one per ULP */
    u->ktid = ulp_raw_gettid();
    if (ulp_g_.copy) {
        /* Private bytes are saved at the first switch away (to the park
         * context); the descriptor shown while decoupled is our own. */
        u->ctx.tls = &u->tls_map;
        u->ctx.tls_buf = u->tls_buf;
        u->ctx.self = ulp_arch_tp();
        u->ctx.owner = u;
    }
    u->ctx.fsbase = ulp_arch_get_fsbase(insn);
    u->ctx.busy = 1;
    ulp_arch_ctx_make(&u->park, u->park_stack, ULP_PARKSTACK_SIZE,
                      ulp_park_loop, u, u->ctx.fsbase);
    ss.ss_sp = u->altstack;
    ss.ss_size = ULP_ALTSTACK_SIZE;
    ss.ss_flags = 0;
    if (sigaltstack(&ss, &u->old_altstack) != 0)
        u->old_altstack.ss_flags = SS_DISABLE;
    u->coupled = 1;
    ulp_decouple_into(u, u->last_sched);
    return 0;
}

static void *ulp_fn_thread(void *arg)
{
    struct ulp *u = arg;
    if (ulp_adopt(u) != 0)
        return NULL;
    u->status = u->fn(u->fn_arg);
    ulp_finish(u);
    return NULL;
}

int ulp_create(ulp_t **up, ulp_sched_t *s, int (*fn)(void *), void *arg)
{
    ULP_FORWARD(create, up, s, fn, arg);
    pthread_attr_t attr;
    struct ulp *u;
    int rc;

    if (!ulp_g_.initialised)
        return -EPERM;
    if (up == NULL || s == NULL || fn == NULL)
        return -EINVAL;
    if ((u = ulp_alloc(s)) == NULL)
        return -ENOMEM;
    u->fn = fn;
    u->fn_arg = arg;
    if (ulp_g_.copy) {
        /* The function runs in its creator's namespace. */
        struct ulp *me = ulp_self_;
        u->tls_map = me != NULL ? me->tls_map : ulp_g_.root_tls;
        u->tls_buf = malloc(u->tls_map.total + 1);
        if (u->tls_buf == NULL) {
            rc = -ENOMEM;
            goto fail;
        }
    }
    u->stack_size = ulp_g_.stack_size + ulp_g_.guard_size;
    u->stack =
        mmap(NULL, u->stack_size, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (u->stack == MAP_FAILED) {
        u->stack = NULL;
        rc = -ENOMEM;
        goto fail;
    }
    if (mprotect(u->stack, ulp_g_.guard_size, PROT_NONE) != 0) {
        rc = -ENOMEM;
        goto fail;
    }
    u->guard_lo = (uintptr_t)u->stack;
    u->guard_hi = u->guard_lo + ulp_g_.guard_size;
    rc = pthread_attr_init(&attr);
    if (rc == 0) {
        rc = pthread_attr_setstack(&attr, u->stack, u->stack_size);
        if (rc == 0)
            rc = pthread_create(&u->kthread, &attr, ulp_fn_thread, u);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        ulp_dbg("cannot start the kernel thread of a ULP: %s", strerror(rc));
        rc = rc == ENOMEM ? -ENOMEM : rc == EINVAL ? -EINVAL : -EAGAIN;
        goto fail;
    }
    *up = u;
    return 0;
fail:
    ulp_forget(u);
    ulp_free(u);
    return rc;
}

/* --- PiP tasks as ULPs ------------------------------------------------------
 */

static void ulp_task_on_exit(int status, void *arg)
{
    struct ulp *u = arg;
    u->status = status;
}

/* The "before" hook: runs on the task's thread, before its main. */
static int ulp_task_before(void *arg)
{
    struct ulp *u = arg;
    pthread_attr_t attr;
    void *lo;
    size_t size;

    while (__atomic_load_n(&u->linked, __ATOMIC_ACQUIRE) == 0)
        (void)ulp_futex_wait(&u->linked, 0);
    if (u->linked < 0)
        return 127; /* the root gave up on this task */
    if (u->ns_on_exit != NULL)
        (void)u->ns_on_exit(ulp_task_on_exit, u);
    /* libpip's stack: the lowest page is its guard; widen it if asked. */
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
            size_t g = ulp_g_.guard_size;
            if (g > ulp_g_.page && mprotect((char *)lo + ulp_g_.page,
                                            g - ulp_g_.page, PROT_NONE) != 0)
                g = ulp_g_.page;
            u->guard_lo = (uintptr_t)lo;
            u->guard_hi = (uintptr_t)lo + g;
        }
        pthread_attr_destroy(&attr);
    }
    if (ulp_g_.copy) {
        int rc = ulp_tls_map_task(&u->tls_map, u->ns_main, u->guard_lo);
        if (rc != 0 || (u->tls_buf = malloc(u->tls_map.total + 1)) == NULL) {
            ulp_dbg("task %d: cannot map its TLS for the copy method",
                    u->pipid);
            return 127;
        }
    }
    return ulp_adopt(u);
}

/* The "after" hook: the task has ended (its atexit handlers have run). */
static int ulp_task_after(void *arg)
{
    ulp_finish(arg);
    return 0;
}

int ulp_spawn(ulp_t **up, ulp_sched_t *s, pip_spawn_program_t *progp,
              int *pipidp)
{
    pip_spawn_hook_t hook;
    struct ulp *u;
    int mode, rc, pipid;
    void *addr;

    if (!ulp_g_.initialised || ulp_self_ != NULL || !pip_isa_root())
        return -EPERM;
    if (pip_get_mode(&mode) != 0 || mode != PIP_MODE_PTHREAD)
        return -EPERM;
    if (up == NULL || s == NULL || progp == NULL)
        return -EINVAL;
    if ((u = ulp_alloc(s)) == NULL)
        return -ENOMEM;
    pip_spawn_hook(&hook, ulp_task_before, ulp_task_after, u);
    pipid = pipidp != NULL ? *pipidp : PIP_PIPID_ANY;
    rc = pip_task_spawn(progp, PIP_CPUCORE_ASIS, 0, &pipid, &hook);
    if (rc != 0) {
        ulp_dbg("pip_task_spawn: %s", strerror(rc));
        ulp_forget(u);
        ulp_free(u);
        return -rc;
    }
    u->pipid = pipid;
    /* The task's own copy of libulp, if it has one, forwards to us. */
    if (pip_get_addr(pipid, "ulp_ns_link_", &addr) == 0 && addr != NULL &&
        addr != (void *)&ulp_ns_link_)
        ((struct ulp_ns_link *)addr)->ops = &ulp_root_ops_;
    if (pip_get_addr(pipid, "on_exit", &addr) == 0)
        u->ns_on_exit = (int (*)(void (*)(int, void *), void *))addr;
    if (pip_get_addr(pipid, "exit", &addr) == 0)
        u->ns_exit = (void (*)(int))addr;
    if (pip_get_addr(pipid, "main", &addr) == 0)
        u->ns_main = addr;
    __atomic_store_n(&u->linked, 1, __ATOMIC_RELEASE);
    ulp_futex_wake(&u->linked, 1);
    if (pipidp != NULL)
        *pipidp = pipid;
    *up = u;
    return 0;
}

/* --- exit and join ----------------------------------------------------------
 */

int ulp_exit(int status)
{
    ULP_FORWARD(exit, status);
    struct ulp *u = ulp_self_;
    if (u == NULL)
        return -EPERM;
    if (u->pipid >= 0) {
        if (u->ns_exit == NULL)
            return -EPERM;
        u->ns_exit(status);
    }
    u->status = status;
    ulp_finish(u);
    pthread_exit(NULL);
}

int ulp_join(ulp_t *u, int *status)
{
    ULP_FORWARD(join, u, status);
    struct ulp *me = ulp_self_;
    if (u == NULL)
        return -EINVAL;
    if (u == me)
        return -EDEADLK;
    if (u->pipid >= 0) {
        int st = 0;
        if (me != NULL || !pip_isa_root())
            return -EPERM;
        int rc = pip_wait(u->pipid, &st);
        if (rc != 0)
            return -rc;
        if (status != NULL)
            *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        ulp_free(u);
        return 0;
    }
    if (me != NULL) {
        ulp_spin_lock(&u->joinq.lock);
        if (!u->done)
            (void)ulp_suspend_locked(&u->joinq, me);
        else
            ulp_spin_unlock(&u->joinq.lock);
    } else {
        while (__atomic_load_n(&u->done, __ATOMIC_ACQUIRE) == 0)
            (void)ulp_futex_wait(&u->done, 0);
    }
    /* Its kernel thread is about to end: wait for it, then free its stack. */
    pthread_join(u->kthread, NULL);
    if (status != NULL)
        *status = u->status;
    ulp_free(u);
    return 0;
}

/* --- the link of a task's copy of libulp ------------------------------------
 */

static ulp_t *ulp_self_impl(void)
{
    return ulp_self_;
}

/* What a task's copy of libulp calls (see ULP_FORWARD). */
const struct ulp_ops ulp_root_ops_ = {
    .magic = ULP_OPS_MAGIC,
    .self = ulp_self_impl,
    .yield = ulp_yield,
    .yield_to = ulp_yield_to,
    .migrate = ulp_migrate,
    .suspend = ulp_suspend,
    .resume = ulp_resume,
    .resume_all = ulp_resume_all,
    .couple = ulp_couple,
    .decouple = ulp_decouple,
    .mutex_lock = ulp_mutex_lock,
    .mutex_trylock = ulp_mutex_trylock,
    .mutex_unlock = ulp_mutex_unlock,
    .barrier_wait = ulp_barrier_wait,
    .exit = ulp_exit,
    .join = ulp_join,
    .sched_self = ulp_sched_self,
    .gettid = ulp_gettid,
    .is_coupled = ulp_is_coupled,
    .create = ulp_create,
    .fsbase_method = ulp_fsbase_method_impl,
};
