/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_taskstart.c: pip_taskstart.so, the module a private-image task's
 * loader preloads (pip_image.c).  Such a task starts with every catchable
 * signal blocked: its loader's mmap calls go to the root's placer thread
 * (pip_region.c), and a handler that ran while such a call waited for the
 * placer would make it fail with EINTR (the loader then gives up: "failed
 * to map segment").  This module's initialiser runs after every library's
 * mapping and relocation, and after the initialisers of the libraries the
 * program needs (the preloaded object first in the list is initialised
 * last): it sets the mask the task is meant to start with (the root's at
 * pip_task_spawn, as after fork), whose address the root put in the
 * auxiliary vector (PIP_AT_SIGMASK).  Signals sent meanwhile stay pending
 * and are handled then, before the program's entry point.
 *
 * Self-contained on purpose: no libpip, no libc call but getauxval and
 * syscall, no sanitizer (it runs under the task's own libc).
 */
#include <signal.h>
#include <stddef.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Must match pip_internal.h. */
#define PIP_AT_SIGMASK 0x70697033UL
/* The kernel's signal set: 64 signals on x86-64 and aarch64. */
#define PIP_KSIGSET_SIZE 8

__attribute__((constructor)) static void pip_taskstart_mask(void)
{
    const void *mask = (const void *)getauxval(PIP_AT_SIGMASK);
    if (mask != NULL)
        (void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, mask, NULL,
                      (size_t)PIP_KSIGSET_SIZE);
}
