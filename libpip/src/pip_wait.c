/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_wait.c: waiting for and reaping tasks, task death, pip_exit,
 * signals (pip_kill, pip_sigmask, pip_signal_wait, pip_kill_all_tasks,
 * pip_abort).
 *
 * Task death is seen through glibc's tid word of the task's main thread:
 * the kernel clears it and wakes it (CLONE_CHILD_CLEARTID) when the thread
 * ends, however it ends, even when a process-mode task is killed, because
 * the memory is shared with the root.
 */
#include "pip_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Has the task's main thread ended (kernel cleared its tid word)? */
int pip_task_ended(struct pip_task *t)
{
    if (t->tidp == NULL)
        return t->state != PIP_TASK_RUNNING;
    return *t->tidp == 0;
}

int pip_task_alive(struct pip_task *t)
{
    if (t->pipid == PIP_PIPID_ROOT)
        return 1;
    /* LOADING: not started, its pid/tid are not known yet (kill(0) would hit
     * the group). */
    return __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == PIP_TASK_RUNNING &&
           !pip_task_ended(t);
}

static int pip_wait_check(int pipid, struct pip_task **tp)
{
    int rc;
    if (pip_check_init() != 0 || pip_is_task_copy())
        return EPERM;
    if (pipid == PIP_PIPID_ROOT || pipid == PIP_PIPID_MYSELF)
        return EDEADLK;
    if ((rc = pip_get_task(pipid, tp)) != 0)
        return rc;
    if ((*tp)->state != PIP_TASK_RUNNING)
        return ECHILD;
    return 0;
}

/*
 * The task is reaped: free its slot for a new task, but keep what other
 * tasks may still use until pip_fin, as PiP does (its task finalisation
 * neither unmaps the stack nor closes the namespace): the stack, the
 * program image with its data (never reused by a later task) and the named
 * exports, which stay importable from the pipid until a new task takes it.
 */
static void pip_task_keep(struct pip_task *t)
{
    struct pip_root *r = pip_root_;
    struct pip_image *img = t->img;
    struct pip_named *named = t->named;
    /* A private image's stack: pip_image_reclaim decides (its range). */
    if (t->stack != NULL && !t->priv) {
        struct pip_kept *k = malloc(sizeof(*k));
        if (k != NULL) {
            k->stack = t->stack;
            k->size = t->stack_size;
            /*
             * A process-mode task killed before its exit path leaves its
             * thread block on ld.so's list of threads, and ld.so writes
             * into every listed thread's static TLS when a later dlmopen
             * needs static TLS: its top (thread block + TLS) stays mapped
             * for good.
             */
            k->keep_top = 0;
            if (t->mode == PIP_MODE_PROCESS && t->tidp != NULL && !t->clean_end)
                k->keep_top = k->size;
            k->next = r->kept;
            r->kept = k;
            t->stack = NULL; /* pip_task_cleanup: not unmapped */
        }
        /* else: unmapped now, as before (no memory for the record) */
    }
    /* Importers see the slot free with its named exports, never without. */
    pip_lock(&r->lock);
    pip_task_cleanup(t);
    if (img != NULL)
        img->snapped = -1; /* never reused: its data is the ended task's */
    t->named = named;
    /* Importers of a name it did not export now give ECANCELED. */
    __atomic_add_fetch(&t->ended_gen, 1, __ATOMIC_SEQ_CST);
    pip_unlock(&r->lock);
}

/* pip_fin: unmap the kept stacks. */
void pip_kept_release(struct pip_root *r)
{
    while (r->kept != NULL) {
        struct pip_kept *k = r->kept;
        r->kept = k->next;
        if (k->keep_top == 0)
            munmap(k->stack, k->size);
        free(k);
    }
}

/*
 * Try to reap `t`.  Returns 0 (reaped, *status set), EAGAIN (still running;
 * the API reports ECHILD there, as PiP does).  `block`: wait for it.
 */
static int pip_reap(struct pip_task *t, int *status, int block)
{
    int st = 0;
    if (t->mode == PIP_MODE_PROCESS) {
        pid_t p = waitpid(t->pid, &st, __WALL | (block ? 0 : WNOHANG));
        while (p < 0 && errno == EINTR)
            p = waitpid(t->pid, &st, __WALL | (block ? 0 : WNOHANG));
        if (p == 0)
            return EAGAIN;
        if (p < 0) {
            /* Reaped behind our back (SIGCHLD ignored?): status unknown. */
            if (!pip_task_ended(t)) {
                if (!block)
                    return EAGAIN;
                int v;
                while ((v = *t->tidp) != 0)
                    pip_futex_wait(t->tidp, v, 100, 1);
            }
            st = W_EXITCODE(0, 0);
        }
        /*
         * A task that ended through its exit handler leaves with its last
         * thread (so that its libc frees the thread's resources): the exit
         * code is the one the handler recorded.
         */
        if (WIFEXITED(st) && t->clean_end)
            st = t->status;
        st = pip_image_reaped(t, st); /* private image: "after" hook */
        /* The task thread's tid word is cleared before the process is reaped.
         */
    } else {
        int v;
        if (!block && !pip_task_ended(t))
            return EAGAIN;
        while ((v = *t->tidp) != 0)
            pip_futex_wait(t->tidp, v, 100, 1);
        st = t->status;
    }
    t->reaped_status = st;
    if (status != NULL)
        *status = st;
    pip_dbg("task %d reaped, status 0x%x", t->pipid, st);
    pip_registry_task_end(t);
    pip_task_keep(t);
    return 0;
}

int pip_wait(int pipid, int *status)
{
    struct pip_task *t;
    int rc = pip_wait_check(pipid, &t);
    if (rc != 0)
        return rc;
    return pip_reap(t, status, 1);
}

/*
 * PiP's contract: ECHILD while the task runs (programs poll with
 * `while (pip_trywait(id, &st) == ECHILD)`), as for a task that does not
 * exist or was already reaped.
 */
int pip_trywait(int pipid, int *status)
{
    struct pip_task *t;
    int rc = pip_wait_check(pipid, &t);
    if (rc != 0)
        return rc;
    rc = pip_reap(t, status, 0);
    return rc == EAGAIN ? ECHILD : rc;
}

/* EAGAIN: tasks run but none has ended; ECHILD: no task to wait for. */
static int pip_try_any(int *pipidp, int *status)
{
    if (pip_check_init() != 0 || pip_is_task_copy())
        return EPERM;
    struct pip_root *r = pip_root_;
    int any = 0;
    for (int i = 0; i < r->ntasks; i++) {
        struct pip_task *t = &r->tasks[i];
        if (t->state != PIP_TASK_RUNNING)
            continue;
        any = 1;
        if (pip_reap(t, status, 0) == 0) {
            if (pipidp != NULL)
                *pipidp = i;
            return 0;
        }
    }
    return any ? EAGAIN : ECHILD;
}

/* As PiP: ECHILD both when no task has ended yet and when none is left. */
int pip_trywait_any(int *pipidp, int *status)
{
    if (pip_check_init() != 0 || pip_is_task_copy())
        return EPERM;
    int rc = pip_try_any(pipidp, status);
    return rc == EAGAIN ? ECHILD : rc;
}

int pip_wait_any(int *pipidp, int *status)
{
    if (pip_check_init() != 0 || pip_is_task_copy())
        return EPERM;
    struct pip_root *r = pip_root_;
    for (;;) {
        uint32_t seq = r->end_seq;
        int rc = pip_try_any(pipidp, status);
        if (rc != EAGAIN)
            return rc;
        if (r->mode == PIP_MODE_PROCESS) {
            /* Block until some child can be waited for, without reaping it. */
            siginfo_t si;
            si.si_pid = 0;
            if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | __WALL) == 0 &&
                si.si_pid != 0) {
                int ours = 0;
                for (int i = 0; i < r->ntasks; i++)
                    if (r->tasks[i].state == PIP_TASK_RUNNING &&
                        r->tasks[i].pid == si.si_pid)
                        ours = 1;
                if (!ours) { /* a child that is not a task: poll */
                    struct timespec ts = {0, 5000000};
                    nanosleep(&ts, NULL);
                }
            } else if (errno != EINTR) {
                struct timespec ts = {0, 5000000};
                nanosleep(&ts, NULL);
            }
        } else {
            /* Tasks bump end_seq on their way out; time out as a safety net. */
            struct pip_task *ending = NULL;
            for (int i = 0; i < r->ntasks; i++)
                if (r->tasks[i].state == PIP_TASK_RUNNING && r->tasks[i].ended)
                    ending = &r->tasks[i];
            if (ending != NULL && ending->tidp != NULL) {
                int v = *ending->tidp;
                if (v != 0)
                    pip_futex_wait(ending->tidp, v, 100, 1);
            } else {
                pip_futex_wait(&r->end_seq, (int)seq, 100, 0);
            }
        }
    }
}

/* ---- exit ---- */

void pip_exit(int status)
{
    /*
     * In a task this copy of libpip lives in the task's namespace, so exit()
     * is the namespace's: process mode ends the task's process; thread mode
     * is caught by libpip's last exit handler and ends the task thread.
     */
    exit(status);
}

/* ---- signals ---- */

int pip_kill(int pipid, int signal)
{
    struct pip_task *t;
    int rc;
    if (pip_check_init() != 0)
        return EPERM;
    if (signal < 0 || signal >= NSIG)
        return EINVAL;
    if ((rc = pip_get_task(pipid, &t)) != 0)
        return rc;
    /*
     * As PiP: ESRCH for a pipid with no task (never spawned, or reaped).  A
     * process-mode task that ended but is not reaped yet is a zombie whose
     * PID is still its own: kill() answers for it.  A thread-mode task's
     * TID may be reused as soon as its thread ends: ESRCH then.
     */
    if (t->pipid != PIP_PIPID_ROOT &&
        (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) != PIP_TASK_RUNNING ||
         t->pid <= 0 || t->tid <= 0)) {
        pip_dbg("pip_kill(%d): no task (state %d, pid %d, tid %d)", pipid,
                (int)t->state, (int)t->pid, (int)t->tid);
        return ESRCH;
    }
    long r;
    if (pip_root_->mode == PIP_MODE_PROCESS)
        r = pip_raw_syscall(SYS_kill, t->pid, signal, 0, 0, 0, 0);
    else if (t->pipid != PIP_PIPID_ROOT && pip_task_ended(t)) {
        pip_dbg("pip_kill(%d): task %d ended (tid word 0)", pipid, t->pipid);
        r = -ESRCH;
    } else if (t->pipid != PIP_PIPID_ROOT) {
        r = -pip_thread_kill(t, signal); /* ends only the task, as PiP */
        if (r < 0)
            pip_dbg("pip_kill(%d): tgkill of pid %d tid %d (tid word %d, "
                    "started %d): %s",
                    pipid, (int)pip_root_->pid, (int)t->tid,
                    t->tidp ? (int)*t->tidp : -1, (int)t->exit_jmp_ok,
                    strerror((int)-r));
    } else
        r = pip_raw_syscall(SYS_tgkill, pip_root_->pid, t->tid, signal, 0, 0,
                            0);
    return r < 0 ? (int)-r : 0;
}

int pip_kill_all_tasks(void)
{
    if (pip_check_root() != 0)
        return EPERM;
    struct pip_root *r = pip_root_;
    for (int i = 0; i < r->ntasks; i++) {
        struct pip_task *t = &r->tasks[i];
        if (t->state != PIP_TASK_RUNNING || pip_task_ended(t))
            continue;
        if (r->mode == PIP_MODE_PROCESS)
            (void)pip_raw_syscall(SYS_kill, t->pid, SIGKILL, 0, 0, 0, 0);
        else /* ends only that task thread, as SIGKILL would a process */
            (void)pip_thread_kill(t, SIGKILL);
    }
    return 0;
}

void pip_abort(void)
{
    if (pip_check_init() == 0 && pip_root_->mode == PIP_MODE_PROCESS) {
        struct pip_root *r = pip_root_;
        for (int i = 0; i < r->ntasks; i++) {
            struct pip_task *t = &r->tasks[i];
            if (t->state == PIP_TASK_RUNNING && !pip_task_ended(t) &&
                t != pip_self())
                (void)pip_raw_syscall(SYS_kill, t->pid, SIGKILL, 0, 0, 0, 0);
        }
        if (pip_is_task_copy())
            (void)pip_raw_syscall(SYS_kill, r->pid, SIGABRT, 0, 0, 0, 0);
    }
    abort();
}

int pip_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    return pthread_sigmask(how, set, old);
}

int pip_signal_wait(int signal)
{
    sigset_t set;
    int sig;
    if (signal <= 0 || signal >= NSIG)
        return EINVAL;
    sigemptyset(&set);
    sigaddset(&set, signal);
    int rc;
    do {
        rc = sigwait(&set, &sig);
    } while (rc == EINTR);
    return rc;
}
