/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pip_clone.h
 * @brief PiP 2.4.1's pip_clone_flags(): the clone() flags of a process-mode
 * PiP task, for programs that clone() tasks themselves.
 *
 * pip_clone_flags(flags) returns `flags` with what makes the child share
 * with its parent no more than a process-mode task does with its root
 * removed (CLONE_FS, CLONE_FILES, CLONE_SIGHAND, CLONE_PARENT,
 * CLONE_THREAD, CLONE_IO and the namespace flags CLONE_NEWNET, CLONE_NEWNS,
 * CLONE_NEWPID, CLONE_NEWUTS), what it needs added (CLONE_VM, CLONE_SETTLS,
 * CLONE_PTRACE, CLONE_SYSVSEM), and SIGCHLD as the termination signal (the
 * low byte).  libpip's own tasks are started with CLONE_VM | SIGCHLD.
 */
#ifndef PIP_CLONE_H
#define PIP_CLONE_H

#include <sched.h>
#include <signal.h>

#ifndef INLINE
#define INLINE inline static
#endif

INLINE int pip_clone_flags(int flags)
{
    int off =
        CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_PARENT | CLONE_THREAD;
#ifdef CLONE_IO
    off |= CLONE_IO;
#endif
#ifdef CLONE_NEWNET
    off |= CLONE_NEWNET;
#endif
#ifdef CLONE_NEWNS
    off |= CLONE_NEWNS;
#endif
#ifdef CLONE_NEWPID
    off |= CLONE_NEWPID;
#endif
#ifdef CLONE_NEWUTS
    off |= CLONE_NEWUTS;
#endif
    flags &= ~off;
    flags |= CLONE_VM | CLONE_SETTLS | CLONE_PTRACE | CLONE_SYSVSEM;
    return (flags & ~0xff) | SIGCHLD;
}

#endif /* PIP_CLONE_H */
