/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_util.c: debug output, futex locks, environment parsing (PIP_MODE,
 * PIP_STACKSZ, PIP_STOP_ON_START), core numbers, small probes of the
 * running glibc, and a task program's TLS.  Calls only pip_base.c.
 */
#include "pip_internal.h"

#include <fcntl.h>

#include <dirent.h>
#include "pvas_env.h"
#include "pvas_log.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int pip_debug_enabled(void)
{
    return pvas_log_on(PVAS_LOG_PIP, PVAS_LOG_ERROR);
}

static void pip_vmsg(const char *fmt, va_list ap)
{
    pvas_vlog(PVAS_LOG_PIP, PVAS_LOG_ALWAYS, fmt, ap);
}

/* The last bad environment variable pip_init met (for pip-exec). */
static char pip_env_err_[256];

const char *pip_env_error_(void)
{
    return pip_env_err_[0] != '\0' ? pip_env_err_ : NULL;
}

void pip_env_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pip_env_err_, sizeof(pip_env_err_), fmt, ap);
    va_end(ap);
    pip_msg(0, "%s", pip_env_err_);
}

void pip_dbg(const char *fmt, ...)
{
    if (!pip_debug_enabled())
        return;
    va_list ap;
    va_start(ap, fmt);
    pip_vmsg(fmt, ap);
    va_end(ap);
}

void pip_msg(int verbose, const char *fmt, ...)
{
    if (!verbose && !pip_debug_enabled())
        return;
    va_list ap;
    va_start(ap, fmt);
    pip_vmsg(fmt, ap);
    va_end(ap);
}

void pip_futex_wait(volatile void *addr, int val, long timeout_ms, int shared)
{
    struct timespec ts, *tsp = NULL;
    if (timeout_ms >= 0) {
        ts.tv_sec = timeout_ms / 1000;
        ts.tv_nsec = (timeout_ms % 1000) * 1000000L;
        tsp = &ts;
    }
    int op = FUTEX_WAIT | (shared ? 0 : FUTEX_PRIVATE_FLAG);
    (void)pip_raw_syscall(SYS_futex, (long)addr, op, val, (long)tsp, 0, 0);
}

void pip_futex_wake(volatile void *addr, int n, int shared)
{
    int op = FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG);
    (void)pip_raw_syscall(SYS_futex, (long)addr, op, n, 0, 0, 0);
}

/* 0 free, 1 locked, 2 locked with waiters.  Works across process-mode
 * tasks: they share the address space, so private futexes match. */
void pip_lock(volatile int *l)
{
    int c = __sync_val_compare_and_swap(l, 0, 1);
    if (c == 0)
        return;
    for (int i = 0; i < 100; i++) {
        pip_pause();
        if (__sync_bool_compare_and_swap(l, 0, 1))
            return;
    }
    if (c != 2)
        c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
    while (c != 0) {
        pip_futex_wait(l, 2, -1, 0);
        c = __atomic_exchange_n(l, 2, __ATOMIC_ACQUIRE);
    }
}

void pip_unlock(volatile int *l)
{
    if (__atomic_exchange_n(l, 0, __ATOMIC_RELEASE) == 2)
        pip_futex_wake(l, 1, 0);
}

/* ---- environment ---- */

/*
 * The mode from opts and PIP_MODE, with PiP 2.4's return codes: opts bits
 * outside PIP_MODE_MASK are ignored; a mode field that names no mode, or
 * the obsolete process:got in opts, is EINVAL; a bad PIP_MODE value, or one
 * that contradicts the mode in opts, is EPERM; so are the process-mode
 * variants (preload, pipclone, got), which libpip does not need.
 */
/*
 * PiP 2.4.1's modes.  libpip has one process mode, which PiP's variant
 * names (process:preload, process:pipclone, process:got in PIP_MODE;
 * PIP_MODE_PROCESS_PRELOAD, _PIPCLONE in opts) select too; *shownp is what
 * pip_get_mode reports: the variant asked for, PIP_MODE_PROCESS_PRELOAD
 * when none was (what PiP runs on stock glibc).
 */
int pip_parse_mode(uint32_t opts, int *modep, int *shownp)
{
    const char *env = getenv(PIP_ENV_MODE);
    int envmode = 0;

    if (env != NULL && *env != '\0') {
        if (strcasecmp(env, PIP_ENV_MODE_THREAD) == 0 ||
            strcasecmp(env, PIP_ENV_MODE_PTHREAD) == 0)
            envmode = PIP_MODE_PTHREAD;
        else if (strcasecmp(env, PIP_ENV_MODE_PROCESS) == 0)
            envmode = PIP_MODE_PROCESS;
        else if (strcasecmp(env, PIP_ENV_MODE_PROCESS_PRELOAD) == 0)
            envmode = PIP_MODE_PROCESS_PRELOAD;
        else if (strcasecmp(env, PIP_ENV_MODE_PROCESS_GOT) == 0)
            envmode = PIP_MODE_PROCESS_GOT_OBS;
        else if (strcasecmp(env, PIP_ENV_MODE_PROCESS_PIPCLONE) == 0)
            envmode = PIP_MODE_PROCESS_PIPCLONE;
        else {
            pip_env_error("PIP_MODE='%s' is not one of thread, pthread, "
                          "process, process:preload, process:pipclone, "
                          "process:got",
                          env);
            return EPERM;
        }
    }
    int asked = (int)(opts & PIP_MODE_MASK);
    int shown;
    switch (asked) {
    case 0:
        shown = envmode;
        break;
    case PIP_MODE_PTHREAD:
        if (envmode != 0 && envmode != PIP_MODE_PTHREAD) {
            pip_msg(0, "PIP_MODE='%s' contradicts the mode pip_init asks for",
                    env);
            return EPERM;
        }
        shown = PIP_MODE_PTHREAD;
        break;
    case PIP_MODE_PROCESS:
    case PIP_MODE_PROCESS_PRELOAD:
    case PIP_MODE_PROCESS_PIPCLONE:
        /* As PiP 2.4: process:got with process mode in opts is EINVAL. */
        if (envmode == PIP_MODE_PROCESS_GOT_OBS) {
            pip_msg(0, "PIP_MODE='%s' is obsolete", env);
            return EINVAL;
        }
        if (envmode == PIP_MODE_PTHREAD) {
            pip_msg(0, "PIP_MODE='%s' contradicts the mode pip_init asks for",
                    env);
            return EPERM;
        }
        shown = envmode != 0 && envmode != PIP_MODE_PROCESS ? envmode : asked;
        break;
    case PIP_MODE_PROCESS_GOT_OBS:
        pip_msg(0, "process mode variant 'process:got' is obsolete");
        return EINVAL;
    default:
        pip_dbg("pip_init: opts 0x%x name no mode", opts);
        return EINVAL;
    }
    if (shown == 0 || shown == PIP_MODE_PROCESS)
        shown = PIP_MODE_PROCESS_PRELOAD;
    *modep = shown == PIP_MODE_PTHREAD ? PIP_MODE_PTHREAD : PIP_MODE_PROCESS;
    *shownp = shown;
    return 0;
}

/* Parse one stack size value: bare number = KiB; b, k, m, g, t suffixes. */
static int pip_parse_size(const char *s, size_t *szp)
{
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno != 0)
        return EINVAL;
    unsigned long long mul = 1024;
    switch (tolower((unsigned char)*end)) {
    case '\0':
        mul = 1024;
        break;
    case 'b':
        mul = 1;
        end++;
        break;
    case 'k':
        mul = 1024ULL;
        end++;
        break;
    case 'm':
        mul = 1024ULL << 10;
        end++;
        break;
    case 'g':
        mul = 1024ULL << 20;
        end++;
        break;
    case 't':
        mul = 1024ULL << 30;
        end++;
        break;
    default:
        return EINVAL;
    }
    if (*end == 'b' || *end == 'B') /* accept "kb", "MB", ... */
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0' || v == 0 || v > (unsigned long long)SIZE_MAX / mul)
        return EINVAL;
    *szp = (size_t)(v * mul);
    return 0;
}

int pip_parse_stacksz(size_t *szp)
{
    static const char *const names[] = {PIP_ENV_STACKSZ, "KMP_STACKSIZE",
                                        "OMP_STACKSIZE"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v == NULL || *v == '\0')
            continue;
        /*
         * As PiP 2.4: a bad value is not an error; a warning, and the
         * default size.  A size too small is raised to the minimum.
         */
        size_t sz;
        if (pip_parse_size(v, &sz) != 0) {
            pip_msg(1,
                    "%s='%s' is not a size (number of KiB, or with a b/k/m/g/t "
                    "suffix): the default (%lu KiB) is used",
                    names[i], v, PIP_STACK_SIZE_DEFAULT / 1024);
            sz = PIP_STACK_SIZE_DEFAULT;
        }
        if (sz < 16384) /* room for the thread block and a few frames */
            sz = 16384;
        *szp = sz;
        return 0;
    }
    *szp = PIP_STACK_SIZE_DEFAULT;
    return 0;
}

/*
 * PIP_NAMESPACES: how many dlmopen namespaces (each with its own libc) the
 * root creates at most; more tasks share them.  Stock glibc has 16 in all,
 * and static TLS for about 11 at the default tunables (10 when the program
 * links libpip, whose TLS descriptors take static TLS in each copy).
 */
int pip_parse_namespaces(int ntasks, int *nnsp)
{
    const char *v = getenv("PIP_NAMESPACES");
    int n = PIP_NAMESPACES_DEFAULT;
    if (v != NULL && *v != '\0') {
        char *end;
        errno = 0;
        long l = strtol(v, &end, 10);
        if (errno != 0 || *end != '\0' || l < 1 || l > PIP_NAMESPACES_MAX) {
            pip_env_error("PIP_NAMESPACES='%s' is not a number from 1 to %d", v,
                          PIP_NAMESPACES_MAX);
            return EINVAL;
        }
        n = (int)l;
    }
    *nnsp = n < ntasks ? n : ntasks;
    return 0;
}

/*
 * pip_namespaces_max: the bound pip_init(opts) would put on a root's
 * dlmopen namespaces, before any pip_init: PIP_NAMESPACES when set, else
 * the mode's default (process mode PIP_NAMESPACES_DEFAULT, thread mode
 * PIP_NAMESPACES_MAX: pip_init's for a root of many tasks).  For callers
 * that must know whether a set of programs can each have a libc of their
 * own in namespaces (mpich-netmod's PiP form) without copying libpip's
 * numbers.
 */
int pip_namespaces_max(uint32_t opts, int *nnsp)
{
    if (nnsp == NULL)
        return EINVAL;
    int mode, shown, rc, nns;
    if ((rc = pip_parse_mode(opts, &mode, &shown)) != 0)
        return rc;
    (void)shown;
    if ((rc = pip_parse_namespaces(PIP_NAMESPACES_MAX, &nns)) != 0)
        return rc;
    const char *v = getenv("PIP_NAMESPACES");
    if (mode == PIP_MODE_PTHREAD && (v == NULL || *v == '\0'))
        nns = PIP_NAMESPACES_MAX;
    *nnsp = nns;
    return 0;
}

/*
 * PIP_SHARE_NAMESPACES: thread mode only, an on/off variable
 * (common/pvas_env.h).  Unset, empty or 0: a task for which no dlmopen
 * namespace of its own is left is refused (EAGAIN) rather than made to
 * share a running task's libc; 1: such tasks share the namespaces there
 * are (stdio buffers, environ, atexit lists, strtok's state ... of that
 * libc).
 */
int pip_parse_share_ns(int *sharep)
{
    if (pvas_env_bool("PIP_SHARE_NAMESPACES", 0, 0, sharep) == 0)
        return 0;
    pip_env_error("PIP_SHARE_NAMESPACES='%s' must be %s",
                  getenv("PIP_SHARE_NAMESPACES"), pvas_env_bool_expected(0));
    return EINVAL;
}

/*
 * PIP_IMAGE: unset, empty or "private": process-mode tasks started at main
 * run a private process image; "namespace": they are loaded into dlmopen
 * namespaces.  Checked by pip_init (a bad value fails it, EINVAL); read
 * again at each spawn (pip_image_wanted).
 */
int pip_parse_image(void)
{
    const char *v = getenv("PIP_IMAGE");
    if (v == NULL || *v == '\0' || strcasecmp(v, "private") == 0 ||
        strcasecmp(v, "namespace") == 0)
        return 0;
    pip_env_error("PIP_IMAGE='%s' must be private or namespace", v);
    return EINVAL;
}

/*
 * PIP_FDS: "shared" (the default: thread-mode tasks share the root's
 * descriptor table, as threads do) or "private" (each thread-mode task gets
 * a copy of the table at its start, as a process would, without the
 * close-on-exec descriptors: a task closing its stdout closes it for itself
 * only).  Process-mode tasks always have their own table.
 */
int pip_parse_fds(int *privp)
{
    const char *v = getenv("PIP_FDS");
    *privp = 0;
    if (v == NULL || *v == '\0' || strcmp(v, "shared") == 0)
        return 0;
    if (strcmp(v, "private") == 0) {
        *privp = 1;
        return 0;
    }
    pip_env_error("PIP_FDS='%s' is not one of shared, private", v);
    return EINVAL;
}

int pip_parse_stop_on_start(void)
{
    const char *v = getenv(PIP_ENV_STOP_ON_START);
    if (v == NULL || *v == '\0')
        return PIP_PIPID_NULL;
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v)
        return PIP_PIPID_NULL;
    return n < 0 ? -1 : (int)n;
}

/* ---- glibc probes ---- */

struct pip_probe {
    volatile pid_t tid;
    volatile int go;
};

static void *pip_probe_thread(void *arg)
{
    struct pip_probe *p = arg;
    p->tid = (pid_t)syscall(SYS_gettid);
    while (!p->go)
        pip_futex_wait(&p->go, 0, 10, 0);
    return NULL;
}

/*
 * How many bytes from a running thread's struct pthread may be read: glibc
 * puts the struct at the top of the thread's stack block (the block ends
 * about 2 KiB past it with glibc 2.36 on x86-64), and whatever lies above
 * the block depends on where it was mapped: often an unmapped page.  At
 * most PIP_TID_SCAN_MAX bytes, never beyond the block.
 */
#define PIP_TID_SCAN_MAX 4096

static int pip_thread_scan_size(pthread_t th, size_t *sizep)
{
    pthread_attr_t attr;
    void *lo;
    size_t size;
    int rc = pthread_getattr_np(th, &attr);
    if (rc != 0)
        return rc;
    rc = pthread_attr_getstack(&attr, &lo, &size);
    (void)pthread_attr_destroy(&attr);
    if (rc != 0)
        return rc;
    uintptr_t pd = (uintptr_t)th, top = (uintptr_t)lo + size;
    if (pd < (uintptr_t)lo || pd >= top)
        return ENOSYS; /* not glibc's layout */
    *sizep = top - pd < PIP_TID_SCAN_MAX ? top - pd : PIP_TID_SCAN_MAX;
    return 0;
}

/*
 * One probe thread: the offsets (at most max) of the words of its struct
 * pthread that equal its kernel TID, read while it runs.
 */
static int pip_tid_candidates(size_t *offs, int max, int *np)
{
    struct pip_probe p = {0, 0};
    pthread_t th;
    size_t scan = 0;
    int rc = pthread_create(&th, NULL, pip_probe_thread, &p);
    if (rc != 0)
        return rc;
    while (p.tid == 0)
        sched_yield();
    int n = 0;
    rc = pip_thread_scan_size(th, &scan);
    const int *w = (const int *)(uintptr_t)th;
    for (size_t i = 0; rc == 0 && i < scan / sizeof(int) && n < max; i++)
        if (w[i] == p.tid)
            offs[n++] = i * sizeof(int);
    p.go = 1;
    pip_futex_wake(&p.go, 1, 0);
    pthread_join(th, NULL);
    *np = n;
    return rc;
}

/*
 * Creates (and joins) probe threads: this makes the root's libc consider
 * itself multi-threaded (ld.so allocates task namespaces with the root's
 * malloc, which must then lock), and finds where glibc keeps the kernel
 * TID in struct pthread: the kernel clears that word and wakes it when the
 * thread ends (CLONE_CHILD_CLEARTID), which is how libpip sees task death.
 * The first word equal to one thread's TID is not always that field: the
 * upper half of a pointer in struct pthread (0x00007fxx for mappings,
 * 0x000055xx-0x000056xx for a PIE's heap) equals a TID in those ranges.
 * Two threads have two TIDs, and only the real field holds each thread's
 * own: the offset both agree on.
 */
int pip_find_tid_offset(size_t *offp)
{
    size_t a[16], b[16];
    int na, nb, rc;
    if ((rc = pip_tid_candidates(a, 16, &na)) != 0 ||
        (rc = pip_tid_candidates(b, 16, &nb)) != 0)
        return rc;
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (a[i] == b[j] && a[i] != 0) {
                *offp = a[i];
                return 0;
            }
    return ENOSYS;
}

struct pip_tls_probe {
    size_t memsz, align;
    int found;
};

static int pip_tls_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct pip_tls_probe *pr = data;
    /* The first object reported is the main program. */
    if (info->dlpi_tls_modid == 1) {
        for (int i = 0; i < info->dlpi_phnum; i++) {
            if (info->dlpi_phdr[i].p_type == PT_TLS) {
                pr->memsz = info->dlpi_phdr[i].p_memsz;
                pr->align =
                    info->dlpi_phdr[i].p_align ? info->dlpi_phdr[i].p_align : 1;
                pr->found = 1;
            }
        }
    }
    return 1; /* stop after the main program */
}

/* Size and alignment of the root executable's own TLS block (module 1). */
int pip_root_tls_info(size_t *reserve, size_t *memsz, size_t *align)
{
    struct pip_tls_probe pr = {0, 1, 0};
    dl_iterate_phdr(pip_tls_cb, &pr);
    if (!pr.found) {
        *reserve = 0;
        *memsz = 0;
        *align = 1;
        return ENOENT;
    }
    *reserve = (pr.memsz + pr.align - 1) & ~(pr.align - 1);
    *memsz = pr.memsz;
    *align = pr.align;
    return 0;
}

/*
 * Does a task program's local-exec TLS block (memsz, align) lie inside the
 * root executable's block, in every thread?  Around the root's block are
 * the libraries' static TLS blocks, which must stay untouched.
 * - x86-64: the root's block is [-reserve, 0) relative to tp; tp is
 *   aligned to the largest static TLS alignment and to glibc's 64-byte
 *   thread block at least.
 * - aarch64: it is [off, off + memsz), off = round_up(16, root's align).
 *   glibc places small blocks of other modules in the gap between the TCB
 *   and off, so a task whose block starts below off (a smaller alignment
 *   than the root's) does not fit: PIP_ROOT_TLS_ALIGN is 16 there.  tp is
 *   only known to be aligned as the root's block is (16 at least).
 */
int pip_tls_fits(const struct pip_root *r, uint64_t memsz, uint64_t align)
{
    if (memsz == 0)
        return 1;
    if (align == 0)
        align = 1;
#if defined(__aarch64__)
    uint64_t tpalign = r->tls_align > 16 ? r->tls_align : 16;
#else
    uint64_t tpalign = r->tls_align > 64 ? r->tls_align : 64;
#endif
    if (align > tpalign)
        return 0;
    intptr_t off = pip_tls_block_offset(memsz, align);
#if defined(__aarch64__)
    if (r->tls_memsz == 0)
        return 0;
    intptr_t lo = pip_tls_block_offset(r->tls_memsz, r->tls_align);
    intptr_t hi = lo + (intptr_t)r->tls_memsz;
#else
    intptr_t lo = -(intptr_t)r->tls_reserve;
    intptr_t hi = 0;
#endif
    return off >= lo && off + (intptr_t)memsz <= hi;
}

void *pip_thread_pointer(void)
{
#if defined(__x86_64__)
    void *tp;
    __asm__("mov %%fs:0, %0" : "=r"(tp));
    return tp;
#else
    return __builtin_thread_pointer();
#endif
}

/*
 * Local-exec TLS of a PIE program addresses its block at a fixed offset
 * from tp (pip_tls_block_offset: below tp on x86-64, after the TCB on
 * aarch64): that is inside the root executable's own TLS block (checked at
 * spawn, pip_tls_fits); fill the calling thread's with the image's
 * initial TLS.
 */
void pip_tls_fill(const struct pip_image *img)
{
    const struct pip_elf_info *e = &img->elf;
    if (e->has_tls && e->tls_memsz > 0) {
        char *blk = (char *)pip_thread_pointer() +
                    pip_tls_block_offset(e->tls_memsz, e->tls_align);
        memcpy(blk, (char *)img->l_addr + e->tls_vaddr, e->tls_filesz);
        memset(blk + e->tls_filesz, 0, e->tls_memsz - e->tls_filesz);
    }
}

/* ---- cores ---- */

int pip_core_to_cpuset(uint32_t coreno, cpu_set_t *set, int *bind)
{
    uint32_t flags = coreno & PIP_CPUCORE_FLAG_MASK;
    uint32_t n = coreno & ~PIP_CPUCORE_FLAG_MASK;

    *bind = 0;
    CPU_ZERO(set);
    if (flags == PIP_CPUCORE_ASIS)
        return n == 0 ? 0 : EINVAL;
    if (n >= PIP_CPUCORE_CORENO_MAX)
        return EINVAL;
    if (flags == PIP_CPUCORE_ABS) {
        /* A CPU that does not exist in this system. */
        if (n >= CPU_SETSIZE || (int)n >= pip_root_->ncpus_conf)
            return EINVAL;
        CPU_SET(n, set);
        *bind = 1;
        return 0;
    }
    if (flags != 0)
        return EINVAL;
    /* the n-th available core of the root's mask (modulo their number) */
    struct pip_root *r = pip_root_;
    if (r->ncpus <= 0)
        return EINVAL;
    int want = (int)(n % (uint32_t)r->ncpus);
    for (int c = 0, k = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &r->cpuset)) {
            if (k == want) {
                CPU_SET(c, set);
                *bind = 1;
                return 0;
            }
            k++;
        }
    }
    return EINVAL;
}

/* ---- public helpers ---- */

pid_t pip_gettid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static volatile int pip_local_loader_lock;
static volatile pid_t pip_local_loader_owner;
static int pip_local_loader_depth;

/*
 * Recursive (as PiP's): a task's constructor, run by dlmopen under this
 * lock in the root's thread, may call pip_dlopen().
 */
void pip_glibc_lock(void)
{
    struct pip_root *r = pip_root_;
    volatile int *l = r != NULL ? &r->loader_lock : &pip_local_loader_lock;
    volatile pid_t *owner =
        r != NULL ? &r->loader_owner : &pip_local_loader_owner;
    int *depth = r != NULL ? &r->loader_depth : &pip_local_loader_depth;
    pid_t me = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
    if (__atomic_load_n(owner, __ATOMIC_ACQUIRE) == me) {
        (*depth)++;
        return;
    }
    pip_lock(l);
    __atomic_store_n(owner, me, __ATOMIC_RELEASE);
    *depth = 1;
}

void pip_glibc_unlock(void)
{
    struct pip_root *r = pip_root_;
    volatile int *l = r != NULL ? &r->loader_lock : &pip_local_loader_lock;
    volatile pid_t *owner =
        r != NULL ? &r->loader_owner : &pip_local_loader_owner;
    int *depth = r != NULL ? &r->loader_depth : &pip_local_loader_depth;
    pid_t me = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
    if (__atomic_load_n(owner, __ATOMIC_ACQUIRE) != me || *depth <= 0)
        return; /* not ours */
    if (--(*depth) == 0) {
        __atomic_store_n(owner, 0, __ATOMIC_RELEASE);
        pip_unlock(l);
    }
}

int pip_is_debug_build(void)
{
#ifdef PIP_DEBUG_BUILD
    return 1;
#else
    return 0;
#endif
}

/* As PiP 2.4: the flag is reserved (any value); EPERM before pip_init. */
int pip_yield(int flag)
{
    (void)flag;
    if (pip_check_init() != 0)
        return EPERM;
    sched_yield();
    return 0;
}

/* Read len bytes at off, through short reads: 0, or EIO. */
int pip_pread_all(int fd, void *buf, size_t len, off_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        if (n <= 0)
            return EIO;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

/* Close what an exec would close.  Raw system calls only: clone children
 * call it on a borrowed thread block (pip_spawn.c, pip_image.c). */
void pip_close_cloexec(void)
{
    long dfd = pip_raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
                               O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
    if (dfd < 0)
        return;
    char buf[4096];
    for (;;) {
        long n = pip_raw_syscall(SYS_getdents64, dfd, (long)buf, sizeof(buf), 0,
                                 0, 0);
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9')
                continue;
            long fd = 0;
            for (const char *p = d->d_name; *p >= '0' && *p <= '9'; p++)
                fd = fd * 10 + (*p - '0');
            if (fd == dfd)
                continue;
            long fl = pip_raw_syscall(SYS_fcntl, fd, F_GETFD, 0, 0, 0, 0);
            if (fl >= 0 && (fl & FD_CLOEXEC))
                (void)pip_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
        }
    }
    (void)pip_raw_syscall(SYS_close, dfd, 0, 0, 0, 0, 0);
}

/* Does the default action of `sig` end the process?  (libpip's own
 * task-end signal does not count.) */
int pip_sig_ends_process(int sig)
{
    switch (sig) {
    case SIGCHLD:
    case SIGCONT:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
    case SIGURG:
    case SIGWINCH:
        return 0;
    default:
        /* glibc's own signals lie between 32 and SIGRTMIN */
        return sig > 0 && sig < NSIG && (sig < 32 || sig >= SIGRTMIN) &&
               sig != PIP_SIG_TASKEND;
    }
}
