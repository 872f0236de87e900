/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_base.c: the bottom layer of libpip: the root's state as this copy
 * of the library sees it, which task the calling thread is, and raw system
 * calls.  Every other file uses these; this file calls none of them (see
 * the layers in pip_internal.h).
 */
#include "pip_internal.h"
#include "pvas_syscall.h"

#include <errno.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

struct pip_root *pip_root_;

/*
 * Filled in by the root (found with dlsym in the task's namespace) before the
 * task runs: tells this copy of libpip whose state to use and who it is.
 * Exported so that dlsym can find it; not part of the API.
 */
__attribute__((visibility("default"))) struct pip_ns_link pip_ns_link_;

/*
 * In a task namespace's copy: the task of the calling thread, set by the
 * root's start code on each task's main thread (tasks may share a
 * namespace, and so this copy).
 */
static __thread struct pip_task *pip_self_tls_;

/*
 * The task running on this thread: set on a task's main thread before any
 * of its code runs (this is the root's copy of libpip, whose thread-local
 * block every thread has).
 */
__thread struct pip_task *pip_cur_task_;
/* The task of this thread: its main thread or one its program created. */
__thread struct pip_task *pip_sig_task_;

/*
 * A system call that never touches errno (thread-local): used while the
 * root's thread block is borrowed by a clone child.
 */
long pip_raw_syscall(long n, long a1, long a2, long a3, long a4, long a5,
                     long a6)
{
    return pvas_syscall6(n, a1, a2, a3, a4, a5, a6);
}

__attribute__((visibility("default"))) void pip_ns_enter_(void *task)
{
    pip_self_tls_ = task;
}

/* A private-image task's copy of libpip: the task it serves (one). */
static struct pip_task *pip_priv_self_;

/*
 * A process-mode task runs its own copy of the loader and of this library
 * (pip_image.c): the root put its state's address, the task's slot and the
 * task's PID into the auxiliary vector.  A process the task execs has the
 * kernel's vector; one it forks keeps this copy's state.
 */
void pip_image_attach(void)
{
    unsigned long root = getauxval(PIP_AT_ROOT);
    if (root == 0 || pip_ns_link_.root != NULL)
        return;
    long pid = pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
    if (getauxval(PIP_AT_PID) != (unsigned long)pid)
        return;
    pip_priv_self_ = (struct pip_task *)getauxval(PIP_AT_TASK);
    /* It runs libpip: other tasks may come to use its memory (exports,
     * addresses it hands out), which then stays until pip_fin. */
    pip_priv_self_->priv_keep = 1;
    pip_ns_link_.root = (struct pip_root *)root;
    pip_root_ = (struct pip_root *)root;
}

__attribute__((constructor)) static void pip_base_ctor(void)
{
    pip_image_attach();
}

struct pip_root *pip_get_root(void)
{
    if (pip_root_ == NULL && pip_ns_link_.root != NULL)
        pip_root_ = pip_ns_link_.root;
    return pip_root_;
}

struct pip_task *pip_self(void)
{
    if (!pip_is_task_copy())
        return NULL;
    if (pip_priv_self_ != NULL)
        return pip_priv_self_;
    struct pip_task *t = pip_self_tls_;
    if (t != NULL)
        return t;
    /* A thread the task created: the namespace's only task, or by PID. */
    struct pip_ns *ns = pip_ns_link_.ns;
    if (ns != NULL && (t = ns->single) != NULL)
        return t;
    struct pip_root *r = pip_get_root();
    if (r != NULL && r->mode == PIP_MODE_PROCESS) {
        pid_t pid = (pid_t)pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
        for (int i = 0; i < r->ntasks; i++)
            if (r->tasks[i].state == PIP_TASK_RUNNING && r->tasks[i].pid == pid)
                return &r->tasks[i];
    }
    return NULL;
}

int pip_check_init(void)
{
    struct pip_root *r = pip_get_root();
    if (r == NULL || r->magic != PIP_ROOT_MAGIC || r->finalized)
        return EPERM;
    /*
     * A thread of a task that shares its namespace with others and that
     * libpip cannot attribute (thread mode, created by the task).
     */
    if (pip_is_task_copy() && pip_self() == NULL)
        return EPERM;
    return 0;
}

int pip_check_root(void)
{
    if (pip_check_init() != 0 || pip_is_task_copy())
        return EPERM;
    return 0;
}

struct pip_task *pip_root_task(void)
{
    return &pip_root_->tasks[pip_root_->ntasks];
}

/* Resolve pipid (ROOT, MYSELF or 0..ntasks-1) to its slot. */
int pip_get_task(int pipid, struct pip_task **tp)
{
    struct pip_root *r = pip_root_;
    if (pipid == PIP_PIPID_ROOT) {
        *tp = pip_root_task();
        return 0;
    }
    if (pipid == PIP_PIPID_MYSELF) {
        struct pip_task *self = pip_self();
        *tp = self != NULL ? self : pip_root_task();
        return 0;
    }
    /* PiP's pipid check: ANY and NULL name no task; others out of range. */
    if (pipid == PIP_PIPID_ANY || pipid == PIP_PIPID_NULL)
        return EINVAL;
    if (pipid < 0 || pipid >= r->ntasks)
        return ERANGE;
    *tp = &r->tasks[pipid];
    return 0;
}

struct pip_task *pip_cur_task(void)
{
    return pip_cur_task_;
}

struct pip_task *pip_thread_task(void)
{
    return pip_sig_task_;
}
