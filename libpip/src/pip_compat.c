/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_compat.c: the rest of PiP 2.4's pip.h: pip_kill_all_child_tasks, the
 * locked dl* wrappers, the malloc family, the libc and universal locks, the
 * message helpers, pip_idstr and pip_debug_info.
 *
 * In a task these run in the task's copy of libpip, whose libc is the
 * task's: pip_malloc() allocates from the caller's own heap, as malloc()
 * does (any task's libc can free it: see pip_ns_setup on arenas).
 */
#include "pip_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int pip_kill_all_child_tasks(void)
{
    return pip_kill_all_tasks();
}

/* ---- dl* under libpip's loader lock ---- */

void *pip_dlopen(const char *filename, int flag)
{
    pip_glibc_lock();
    void *h = dlopen(filename, flag);
    pip_glibc_unlock();
    return h;
}

void *pip_dlopen_unsafe(const char *filename, int flag)
{
    return dlopen(filename, flag);
}

void *pip_dlmopen(long lmid, const char *filename, int flag)
{
    pip_glibc_lock();
    void *h = dlmopen((Lmid_t)lmid, filename, flag);
    pip_glibc_unlock();
    return h;
}

void *pip_dlsym(void *handle, const char *symbol)
{
    pip_glibc_lock();
    void *a = dlsym(handle, symbol);
    pip_glibc_unlock();
    return a;
}

void *pip_dlsym_unsafe(void *handle, const char *symbol)
{
    return dlsym(handle, symbol);
}

int pip_dlclose(void *handle)
{
    pip_glibc_lock();
    int rc = dlclose(handle);
    pip_glibc_unlock();
    return rc;
}

char *pip_dlerror(void)
{
    return dlerror();
}

int pip_dlinfo(void *handle, int request, void *info)
{
    pip_glibc_lock();
    int rc = dlinfo(handle, request, info);
    pip_glibc_unlock();
    return rc;
}

/* ---- memory ---- */

void *pip_malloc(size_t size)
{
    return malloc(size);
}

void pip_free(void *ptr)
{
    free(ptr);
}

void *pip_calloc(size_t nmemb, size_t size)
{
    return calloc(nmemb, size);
}

void *pip_realloc(void *ptr, size_t size)
{
    return realloc(ptr, size);
}

int pip_posix_memalign(void **memptr, size_t alignment, size_t size)
{
    return posix_memalign(memptr, alignment, size);
}

size_t pip_malloc_usable_size(void *ptr)
{
    return malloc_usable_size(ptr);
}

/* ---- locks ---- */

void pip_libc_lock(void)
{
    pip_glibc_lock();
}

void pip_libc_unlock(void)
{
    pip_glibc_unlock();
}

static volatile int pip_local_universal_lock;

void pip_universal_lock(void)
{
    pip_lock(pip_root_ != NULL ? &pip_root_->universal_lock
                               : &pip_local_universal_lock);
}

void pip_universal_unlock(void)
{
    pip_unlock(pip_root_ != NULL ? &pip_root_->universal_lock
                                 : &pip_local_universal_lock);
}

/* ---- identification and messages ---- */

/*
 * PiP 2.4's format: "[TID(K):C]", K the task this kernel thread belongs to
 * and C the PiP context running on it (the same task here): "R" the root,
 * "T<pipid>" a task, "-" none (not initialised, or a thread libpip cannot
 * attribute).  Returns what PiP's does: sz less the length written.
 */
size_t pip_idstr(char *buf, size_t sz)
{
    pid_t tid = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
    char who[16];
    if (buf == NULL || sz == 0)
        return 0;
    if (pip_check_init() != 0)
        snprintf(who, sizeof(who), "-");
    else if (!pip_is_task_copy())
        snprintf(who, sizeof(who), "R");
    else if (pip_self() != NULL)
        snprintf(who, sizeof(who), "T%d", pip_self()->pipid);
    else
        snprintf(who, sizeof(who), "-");
    int n = snprintf(buf, sz, "[%d(%s):%s]", (int)tid, who, who);
    if (n < 0 || (size_t)n >= sz)
        return 0;
    return sz - (size_t)n;
}

/* "PiP-TAG[id] text\n" in one write(2), so lines of tasks do not mix. */
static void pip_vmesg(FILE *fp, const char *tag, const char *fmt, va_list ap)
{
    char id[64], buf[1024];
    (void)pip_idstr(id, sizeof(id));
    int n = snprintf(buf, sizeof(buf), "%s%s ", tag, id);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(buf) - 1) {
        int m = vsnprintf(buf + n, sizeof(buf) - 1 - (size_t)n, fmt, ap);
        if (m > 0)
            n += m;
    }
    if ((size_t)n > sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    fflush(fp);
    ssize_t w = write(fileno(fp), buf, (size_t)n);
    (void)w;
}

void pip_info_fmesg(FILE *fp, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    pip_vmesg(fp != NULL ? fp : stderr, "PiP-INFO", format, ap);
    va_end(ap);
}

void pip_info_mesg(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    pip_vmesg(stderr, "PiP-INFO", format, ap);
    va_end(ap);
}

void pip_warn_mesg(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    pip_vmesg(stderr, "PiP-WARN", format, ap);
    va_end(ap);
}

void pip_err_mesg(const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    pip_vmesg(stderr, "PiP-ERR", format, ap);
    va_end(ap);
}

/* One line per task slot in use, on stderr. */
void pip_debug_info(void)
{
    if (pip_check_init() != 0) {
        pip_info_mesg("libpip is not initialised");
        return;
    }
    struct pip_root *r = pip_root_;
    pip_info_mesg("root pid %d, %s mode, %d tasks at most", (int)r->pid,
                  r->mode == PIP_MODE_PTHREAD ? "thread" : "process",
                  r->ntasks);
    for (int i = 0; i < r->ntasks; i++) {
        struct pip_task *t = &r->tasks[i];
        int st = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
        if (st == PIP_TASK_FREE)
            continue;
        pip_info_mesg("task %d: %s, pid %d, tid %d", i,
                      st == PIP_TASK_LOADING ? "loading"
                      : pip_task_ended(t)    ? "ended"
                                             : "running",
                      (int)t->pid, (int)t->tid);
    }
}
