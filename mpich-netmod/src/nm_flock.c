/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_flock.c: file record locks between ranks that share a process.
 *
 * In the PiP form the ranks of a delegatee group are threads of one
 * process.  fcntl's F_SETLK, F_SETLKW and F_GETLK locks belong to a
 * process, so those ranks' locks never exclude each other: ROMIO's shared
 * file pointers (MPI_File_write_shared, _ordered) and its data sieving,
 * which lock with them, would lose updates.  In a rank of the PiP form
 * (MPIDELEG_PIP=1 in its environment: the shim is loaded into its
 * namespace first, or linked into its program) the shim's fcntl makes
 * them open file description locks (F_OFD_*), which belong to each rank's
 * own open() of the file: ranks exclude each other as processes do.  On a
 * kernel without them (before Linux 3.15) and everywhere else, fcntl is
 * libc's, unchanged.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "pvas_env.h"

typedef int (*fcntl_fn)(int, int, ...);

static _Atomic(fcntl_fn) next_fcntl;
static atomic_int ofd_mode = -1; /* 1: translate; 0: no; -1: not yet known */

static fcntl_fn real_fcntl(void)
{
    fcntl_fn f = atomic_load_explicit(&next_fcntl, memory_order_acquire);
    if (!f) {
        *(void **)&f = dlsym(RTLD_NEXT, "fcntl");
        atomic_store_explicit(&next_fcntl, f, memory_order_release);
    }
    return f;
}

static int translate(void)
{
    int m = atomic_load_explicit(&ofd_mode, memory_order_relaxed);
    if (m < 0) {
        m = pvas_env_on("MPIDELEG_PIP", 0);
        atomic_store_explicit(&ofd_mode, m, memory_order_relaxed);
    }
    return m;
}

static int nm_fcntl(int fd, int cmd, void *arg)
{
    fcntl_fn f = real_fcntl();
    if (!f) {
        errno = ENOSYS;
        return -1;
    }
    int ofd_cmd = cmd == F_SETLK    ? F_OFD_SETLK
                  : cmd == F_SETLKW ? F_OFD_SETLKW
                  : cmd == F_GETLK  ? F_OFD_GETLK
                                    : 0;
    if (!ofd_cmd || !arg || !translate())
        return f(fd, cmd, arg);
    struct flock *lk = arg;
    pid_t pid = lk->l_pid;
    lk->l_pid = 0; /* required by the F_OFD_ commands */
    int rc = f(fd, ofd_cmd, lk);
    if (rc == -1 && errno == EINVAL) { /* no OFD locks: the process's */
        lk->l_pid = pid;
        rc = f(fd, cmd, lk);
    }
    return rc;
}

/* (glibc passes every third argument as a pointer-sized value) */
__attribute__((visibility("default"))) int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    return nm_fcntl(fd, cmd, arg);
}

/* the same, under its large-file name */
__attribute__((visibility("default"), alias("fcntl"))) int
fcntl64(int fd, int cmd, ...);
