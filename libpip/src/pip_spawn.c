/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_spawn.c: pip_task_spawn / pip_spawn and how a task starts and ends.
 *
 * Thread mode: the root calls the task namespace's pthread_create().
 *
 * Process mode (unmodified glibc, no LD_PRELOAD): the root clone()s a child
 * with CLONE_VM | SIGCHLD only, so the child has its own PID, a copy of the
 * fd table and of the signal handlers, and shares memory.  The child still
 * runs on the root's thread block, so the root blocks (raw futex, no errno)
 * until the child is gone.  The child closes its close-on-exec descriptors
 * and calls the task namespace's pthread_create() with a stack the root
 * allocated; the new thread is in the child's thread group and runs the
 * task; the child then blocks every signal, tells the root it is done
 * with the root's thread block and sleeps (raw futex) as the thread group's
 * leader until the task's main thread ends: a leader that left would show
 * the task as <defunct> in ps.  Its name (comm) is the program's.  The
 * task's exit() (its namespace's libc) ends the child process with an
 * ordinary status for waitpid().
 *
 * Task end (pip_taskend.c): main's return value goes to the namespace's exit(),
 * which runs the task's atexit handlers, then two on_exit handlers libpip
 * registered first: one runs the program's destructors (DT_FINI_ARRAY, DT_FINI:
 * a secondary namespace's exit() does not), the last one runs the "after" hook
 * and, in thread mode, flushes the namespace's stdio, records the status and
 * longjmp()s back to the task's start frame, so that exit() ends only the task
 * thread.
 */
#include "pip_internal.h"

#include <linux/futex.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PIP_CLONE_STACK_SIZE (256UL * 1024)
#define PIP_TLS_ROOM                                                           \
    (128UL * 1024) /* thread block + static TLS, beyond the reserve */

/* The task's first code, in the new thread of the task namespace's libc. */
static void *pip_task_main(void *arg)
{
    struct pip_task *volatile t = arg;
    struct pip_root *r = pip_root_;

    /* This program's local-exec TLS: see pip_tls_fill. */
    pip_tls_fill(t->img);
    pip_cur_task_ = t;
    pip_sig_task_ = t;
    if (t->img != NULL && t->img->ns_enter != NULL)
        t->img->ns_enter(t);
    t->tid = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
    /*
     * Publish who we are before any user code (hooks, main) runs: the root
     * fills in the same values when the start returns, which may be later.
     * pthread_self() only reads the thread pointer, so the root's copy is
     * right in any namespace.
     */
    t->thread = pthread_self();
    t->tidp = (volatile int *)((char *)t->thread + r->tid_offset);
    if (t->mode == PIP_MODE_PROCESS)
        t->pid = (pid_t)pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
    else
        t->pid = t->tid;
    __atomic_store_n(&t->state, PIP_TASK_RUNNING, __ATOMIC_RELEASE);

    /*
     * Process mode: let the clone child (our thread group's leader) finish
     * and leave first; an early exit() of this task would kill it half-way.
     */
    if (t->mode == PIP_MODE_PROCESS) {
        while (t->leader_free == 0)
            pip_futex_wait(&t->leader_free, 0, 20, 1);
    } else {
        /* ps -T, top -H: the thread's name is the program's. */
        if (t->progname != NULL)
            (void)pip_raw_syscall(SYS_prctl, PR_SET_NAME, (long)t->progname, 0,
                                  0, 0, 0);
        /* PIP_FDS=private: a descriptor table of its own, as after exec. */
        if (r->private_fds &&
            pip_raw_syscall(SYS_unshare, CLONE_FILES, 0, 0, 0, 0, 0) == 0)
            pip_close_cloexec();
        /* Its _exit() ends only the task (pip_taskend.c). */
        if (pip_thread_exit_guard_ok()) {
            int e = pip_thread_exit_guard(t);
            if (e != 0)
                pip_dbg("task %d: no exit_group filter (%s): its _exit() "
                        "ends the root",
                        t->pipid, strerror(e));
        }
    }

    cpu_set_t set;
    int bind = 0;
    if (pip_core_to_cpuset(t->coreno, &set, &bind) == 0 && bind)
        (void)pip_raw_syscall(SYS_sched_setaffinity, 0, sizeof(set), (long)&set,
                              0, 0, 0);

    /* Below the task's own atexit handlers: see pip_exit_handler. */
    (void)t->ns->on_exit(pip_exit_handler, NULL);

    if (t->stop_on_start) {
        pid_t pid = (pid_t)pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
        pip_dbg("task %d (pid %d, tid %d) stops itself (PIP_STOP_ON_START)",
                t->pipid, (int)pid, (int)t->tid);
        (void)pip_raw_syscall(SYS_tgkill, pid, t->tid, SIGSTOP, 0, 0, 0);
    }

    if (setjmp(t->exit_jmp) != 0) {
        pip_cur_task_ = NULL;
        return NULL; /* exit() caught: status recorded; the thread ends */
    }
    t->exit_jmp_ok = 1;
    /* A pip_kill() that came before the jump target existed. */
    if (t->kill_sig > 0)
        (void)pip_raw_syscall(SYS_tgkill, r->pid, t->tid, PIP_SIG_TASKEND, 0, 0,
                              0);
    if (t->hook.before != NULL) {
        int rv = t->hook.before(t->hook.hookarg);
        if (rv != 0) {
            pip_dbg("task %d: before hook returned %d", t->pipid, rv);
            t->ns->exit(rv);
        }
    }
    int ret;
    if (t->funcf != NULL)
        ret = t->funcf(t->funcarg);
    else
        ret = t->mainf(t->argc, t->argv, t->envv);
    t->ns->exit(ret);
    return NULL;
}

struct pip_clone_arg {
    struct pip_task *t;
    pthread_attr_t *attr;
};

/* Process mode: runs in the clone child, on the root's thread block. */
static int pip_clone_child(void *arg)
{
    struct pip_clone_arg *ca = arg;
    struct pip_task *t = ca->t;
    pthread_t th;

    /* Do not outlive the root: the memory is the root's. */
    (void)pip_raw_syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
    pip_close_cloexec();
    /* ps shows the program's name (the task thread inherits it). */
    if (t->progname != NULL)
        (void)pip_raw_syscall(SYS_prctl, PR_SET_NAME, (long)t->progname, 0, 0,
                              0, 0);
    int rc = t->ns->pthread_create(&th, ca->attr, pip_task_main, t);
    volatile int *tidp = NULL;
    if (rc == 0) {
        t->thread = th;
        tidp = (volatile int *)((char *)th + pip_root_->tid_offset);
        t->tidp = tidp;
    }
    t->start_err = rc;
    if (rc != 0) {
        for (;;)
            (void)pip_raw_syscall(SYS_exit, 127, 0, 0, 0, 0, 0);
    }
    /*
     * Stay as the leader, on no thread block: no signal is ever handled
     * here (they go to the task's threads), only raw system calls.
     */
    uint64_t all = ~(uint64_t)0;
    (void)pip_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all, 0,
                          sizeof(all), 0, 0);
    __atomic_store_n(&t->leader_free, 1, __ATOMIC_RELEASE);
    pip_futex_wake(&t->leader_free, INT32_MAX, 1);
    int v;
    while ((v = *tidp) != 0)
        (void)pip_raw_syscall(SYS_futex, (long)tidp, FUTEX_WAIT, v, 0, 0, 0);
    /* The task's main thread ended without exit(): this thread only. */
    for (;;)
        (void)pip_raw_syscall(SYS_exit, 0, 0, 0, 0, 0, 0);
    return 0;
}

static int pip_start_process(struct pip_task *t, pthread_attr_t *attr)
{
    struct pip_clone_arg ca = {t, attr};

    t->cstack_size = PIP_CLONE_STACK_SIZE;
    t->cstack = mmap(NULL, t->cstack_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (t->cstack == MAP_FAILED) {
        t->cstack = NULL;
        return ENOMEM;
    }
    t->clone_tid = 1;
    t->leader_free = 0;
    t->start_err = -1;
    pid_t pid = clone(pip_clone_child, (char *)t->cstack + t->cstack_size,
                      CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD, &ca, NULL,
                      NULL, (pid_t *)&t->clone_tid);
    if (pid < 0) {
        int e = errno;
        munmap(t->cstack, t->cstack_size);
        t->cstack = NULL;
        return e == ENOMEM || e == EAGAIN ? e : EAGAIN;
    }
    /* Do not touch our thread block (errno, malloc) until the child is done
     * with it (or gone).  Its stack stays until the task is reaped. */
    while (__atomic_load_n(&t->leader_free, __ATOMIC_ACQUIRE) == 0 &&
           t->clone_tid != 0)
        pip_futex_wait(&t->leader_free, 0, 20, 1);
    if (t->start_err != 0) {
        int st;
        (void)waitpid(pid, &st, __WALL);
        munmap(t->cstack, t->cstack_size);
        t->cstack = NULL;
        return t->start_err > 0 ? t->start_err : EAGAIN;
    }
    t->pid = pid;
    pid_t tid = *t->tidp; /* 0 if the task has already ended */
    if (tid != 0)
        t->tid = tid;
    return 0;
}

static int pip_start_thread(struct pip_task *t, pthread_attr_t *attr)
{
    pthread_t th;
    int rc = t->ns->pthread_create(&th, attr, pip_task_main, t);
    if (rc != 0)
        return rc;
    t->thread = th;
    t->tidp = (volatile int *)((char *)th + pip_root_->tid_offset);
    pid_t tid = *t->tidp; /* 0 if the task has already ended */
    if (tid != 0)
        t->tid = tid;
    t->pid = t->tid;
    return 0;
}

/* One malloc'ed block: the vector then the strings. */
static char **pip_copy_vec(char *const *v, int *countp)
{
    size_t n = 0, len = 0;
    if (v != NULL)
        for (; v[n] != NULL; n++)
            len += strlen(v[n]) + 1;
    char **copy = malloc((n + 1) * sizeof(char *) + len);
    if (copy == NULL)
        return NULL;
    char *s = (char *)(copy + n + 1);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(v[i]) + 1;
        memcpy(s, v[i], l);
        copy[i] = s;
        s += l;
    }
    copy[n] = NULL;
    if (countp != NULL)
        *countp = (int)n;
    return copy;
}

/*
 * A program that refers to a libc variable (environ, __progname) has its own
 * copy of it (a copy relocation), which the namespace's libc then uses too:
 * set the variable wherever the program's scope or libc's scope finds it.
 */
static void pip_set_ns_var(struct pip_task *t, const char *const *names,
                           void *value)
{
    for (int i = 0; names[i] != NULL; i++) {
        void **a = dlsym(t->img->handle, names[i]);
        if (a != NULL)
            *a = value;
        a = dlsym(t->ns->libc, names[i]);
        if (a != NULL)
            *a = value;
        /* libc's references bind to the namespace's first image's copies */
        a = dlsym(t->ns->head, names[i]);
        if (a != NULL)
            *a = value;
    }
}

void pip_task_cleanup(struct pip_task *t)
{
    struct pip_root *r = pip_root_;
    pip_image_reclaim(t); /* a private-image task */
    if (t->stack != NULL) {
        if (t->mode == PIP_MODE_PTHREAD || t->tidp == NULL || t->clean_end) {
            munmap(t->stack, t->stack_size);
        } else {
            /*
             * A process-mode task that did not end through its exit path
             * (killed) leaves its thread block on ld.so's list of threads,
             * and ld.so writes into every listed thread's static TLS when a
             * later dlmopen needs static TLS: keep the top (thread block +
             * TLS) mapped, return the rest.
             */
            size_t keep =
                (r->tls_reserve + PIP_TLS_ROOM + 4095) & ~(size_t)4095;
            if (keep < t->stack_size)
                munmap(t->stack, t->stack_size - keep);
        }
    }
    pip_getopt_release(t); /* it ended inside its option loop */
    pip_vtimer_delete(t);
    if (t->cstack != NULL) /* process mode: the leader is gone (reaped) */
        munmap(t->cstack, t->cstack_size);
    t->cstack = NULL;
    free(t->argv);
    pip_image_release(t);
    t->stack = NULL;
    t->argv = NULL;
    t->envv = NULL;
    t->progname_full = NULL;
    t->named = NULL;
    t->tidp = NULL;
    t->state = PIP_TASK_FREE;
}

/* Keep `p` until pip_fin: a namespace's libc may still point at it. */
static void pip_retire(void *p)
{
    struct pip_root *r = pip_root_;
    if (p == NULL)
        return;
    void **cell = malloc(2 * sizeof(void *));
    if (cell == NULL)
        return; /* leak rather than free memory libc may still read */
    cell[0] = r->retired;
    cell[1] = p;
    r->retired = cell;
}

static int pip_vec_equal(char **a, char **b)
{
    for (; *a != NULL && *b != NULL; a++, b++)
        if (strcmp(*a, *b) != 0)
            return 0;
    return *a == NULL && *b == NULL;
}

/*
 * The namespace's libc never ran its start-up code: give it the task's
 * environment and program name.  Tasks of one namespace share that libc, so
 * the namespace owns these (the task's copies are kept when they equal the
 * namespace's current ones, replaced ones are retired, not freed: another
 * task may be reading them).
 */
static void pip_ns_set_vars(struct pip_task *t)
{
    struct pip_ns *ns = t->ns;
    if (ns->envv != NULL && pip_vec_equal(ns->envv, t->envv)) {
        free(t->envv);
        t->envv = ns->envv;
    } else {
        pip_retire(ns->envv);
        ns->envv = t->envv;
    }
    if (ns->progname_full_s != NULL &&
        strcmp(ns->progname_full_s, t->progname_full) == 0) {
        free(t->progname_full);
        t->progname_full = ns->progname_full_s;
    } else {
        pip_retire(ns->progname_full_s);
        ns->progname_full_s = t->progname_full;
    }
    t->progname = strrchr(t->progname_full, '/');
    t->progname = t->progname != NULL ? t->progname + 1 : t->progname_full;

    static const char *const env_names[] = {"environ", "__environ", "_environ",
                                            NULL};
    static const char *const pn_names[] = {
        "__progname", "program_invocation_short_name", NULL};
    static const char *const pnf_names[] = {"__progname_full",
                                            "program_invocation_name", NULL};
    *ns->environ = t->envv;
    *ns->progname = t->progname;
    *ns->progname_full = t->progname_full;
    pip_set_ns_var(t, env_names, t->envv);
    pip_set_ns_var(t, pn_names, t->progname);
    pip_set_ns_var(t, pnf_names, t->progname_full);
}

int pip_task_spawn(pip_spawn_program_t *progp, uint32_t coreno, uint32_t opts,
                   int *pipidp, pip_spawn_hook_t *hookp)
{
    struct pip_root *r;
    struct pip_task *t = NULL;
    cpu_set_t set;
    int bind, rc, pipid, vars_set = 0;

    if (pip_check_root() != 0)
        return EPERM;
    r = pip_root_;
    if (progp == NULL || progp->prog == NULL || progp->prog[0] == '\0')
        return EINVAL;
    if (opts & ~(uint32_t)PIP_VALID_OPTS)
        return EINVAL;
    if ((opts & PIP_MODE_MASK) != 0 &&
        ((opts & PIP_MODE_MASK) == PIP_MODE_PTHREAD) !=
            (r->mode == PIP_MODE_PTHREAD))
        return EINVAL;
    if (pip_core_to_cpuset(coreno, &set, &bind) != 0)
        return EINVAL;

    pipid = pipidp != NULL ? *pipidp : PIP_PIPID_ANY;
    if (pipid == PIP_PIPID_ANY) {
        for (int i = 0; i < r->ntasks; i++) {
            if (r->tasks[i].state == PIP_TASK_FREE) {
                t = &r->tasks[i];
                break;
            }
        }
        if (t == NULL)
            return EAGAIN;
    } else {
        if (pipid < 0 || pipid >= r->ntasks)
            return EINVAL;
        t = &r->tasks[pipid];
        if (t->state != PIP_TASK_FREE)
            return EBUSY;
    }
    pipid = t->pipid;
    uint32_t ended_gen = t->ended_gen;
    memset(t, 0, sizeof(*t));
    t->pipid = pipid;
    t->ended_gen = ended_gen;
    t->state = PIP_TASK_LOADING;
    t->mode = r->mode;
    t->coreno = coreno;
    t->exp = progp->exp;
    t->aux = progp->aux;
    t->funcarg = progp->arg;
    t->stop_on_start = r->stop_on_start == -1 || r->stop_on_start == pipid;
    if (hookp != NULL)
        t->hook = *hookp;

    char *defargv[2] = {progp->prog, NULL};
    char **argv =
        progp->argv != NULL && progp->argv[0] != NULL ? progp->argv : defargv;
    extern char **environ;
    t->argv = pip_copy_vec(argv, &t->argc);
    t->envv = pip_copy_vec(progp->envv != NULL ? progp->envv : environ, NULL);
    t->progname_full = t->argv != NULL ? strdup(t->argv[0]) : NULL;
    if (t->argv == NULL || t->envv == NULL || t->progname_full == NULL) {
        rc = ENOMEM;
        goto fail;
    }
    /*
     * Process mode: a task started at main runs its own copy of the
     * program's loader, hence its own libc and libraries (pip_image.c).
     * A start function (pip_spawn_from_func, pip-exec -f) needs the
     * program loaded by the root: such a task shares a dlmopen namespace.
     */
    if (r->mode == PIP_MODE_PROCESS && progp->funcname == NULL &&
        pip_image_wanted()) {
        t->progname = strrchr(t->progname_full, '/');
        t->progname =
            t->progname != NULL ? t->progname + 1 : t->progname_full;
        rc = pip_image_spawn(t, progp->prog);
        free(t->envv);
        free(t->progname_full);
        t->envv = NULL;
        t->progname_full = NULL;
        t->progname = NULL;
        vars_set = 1;
        if (rc != 0) {
            t->hook.after = NULL; /* it never ran */
            if (rc != ENOENT && rc != EACCES)
                pip_msg(0, "%s: cannot start the task: %s", progp->prog,
                        strerror(rc));
            goto fail;
        }
        goto started;
    }
    if ((rc = pip_load(t, progp->prog, progp->funcname)) != 0)
        goto fail;

    pip_ns_set_vars(t);
    vars_set = 1;
    if ((rc = pip_image_init(t)) != 0)
        goto fail;

    t->stack_size = ((r->stack_size + 4095) & ~(size_t)4095) + r->tls_reserve +
                    PIP_TLS_ROOM;
    t->stack_size = (t->stack_size + 4095) & ~(size_t)4095;
    t->stack =
        mmap(NULL, t->stack_size, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
    if (t->stack == MAP_FAILED) {
        t->stack = NULL;
        rc = ENOMEM;
        goto fail;
    }
    (void)mprotect(t->stack, 4096, PROT_NONE); /* guard page */

    pthread_attr_t attr;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    t->start_mask = old;
    rc = t->ns->attr_init(&attr);
    if (rc == 0) {
        t->ns->attr_setstack(&attr, t->stack, t->stack_size);
        t->ns->attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        t->ns->attr_setsigmask(&attr, &old);
        if (r->mode == PIP_MODE_PROCESS)
            rc = pip_start_process(t, &attr);
        else
            rc = pip_start_thread(t, &attr);
        t->ns->attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pip_msg(0, "%s: cannot start the task: %s", progp->prog, strerror(rc));
        goto fail;
    }
started:
    t->state = PIP_TASK_RUNNING;
    pip_registry_task_start(t, progp->prog);
    if (pipidp != NULL)
        *pipidp = pipid;
    pip_dbg("task %d spawned: %s (pid %d, tid %d)", pipid, progp->prog,
            (int)t->pid, (int)t->tid);
    return 0;
fail:
    t->tidp = NULL;
    if (!vars_set) {
        free(t->envv);
        free(t->progname_full);
    }
    pip_task_cleanup(t);
    return rc;
}

int pip_spawn(char *filename, char **argv, char **envv, uint32_t coreno,
              int *pipidp, pip_spawnhook_t before, pip_spawnhook_t after,
              void *hookarg)
{
    pip_spawn_program_t prog;
    pip_spawn_hook_t hook;

    pip_spawn_from_main(&prog, filename, argv, envv, NULL, NULL);
    pip_spawn_hook(&hook, before, after, hookarg);
    return pip_task_spawn(&prog, coreno, 0, pipidp, &hook);
}
