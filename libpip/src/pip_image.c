/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_image.c: process mode's private process image.  Each task started at
 * main runs its own copy of its program's ELF interpreter (PT_INTERP, e.g.
 * /lib64/ld-linux-x86-64.so.2), hence its own libc and its own copy of
 * every library, as a program started with `ld.so --argv0 ARGV0 PROG ARGS`
 * would.  Nothing but memory limits the number of such tasks.
 *
 * The root maps a fresh copy of the loader (each PT_LOAD from the file with
 * its protections, .bss zeroed), builds the initial stack the kernel would
 * build for that command (argc, argv, envp, auxv), and clone()s the task
 * with CLONE_VM | SIGCHLD.  The child still runs on the root's thread block
 * and so uses raw system calls only: it closes its close-on-exec
 * descriptors, names itself after the program (its signal handlers are
 * copies of the root's, as after fork), runs the spawn's "before" hook (on
 * the root's thread block: the root waits meanwhile), installs a seccomp
 * filter that answers brk() with 0 (the program break belongs to the whole
 * address space: glibc's sbrk then fails cleanly and malloc uses mmap) and
 * jumps to the loader copy's entry.
 *
 * The task's own copy of libpip (if the program links it) finds the root
 * through three auxiliary vector entries of libpip's own (pip_base.c).
 *
 * When such a task is reaped, its memory is returned (loader copy, the
 * objects of its link map, stack) unless it exported something: then it
 * stays until the root exits, as PiP promises for exports.
 */
#include "pip_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PIP_AUDIT_ARCH  0xc000003eU /* AUDIT_ARCH_X86_64 */
#define PIP_ELF_MACHINE EM_X86_64
#define PIP_PLATFORM    "x86_64"
#elif defined(__aarch64__)
#define PIP_AUDIT_ARCH  0xc00000b7U /* AUDIT_ARCH_AARCH64 */
#define PIP_ELF_MACHINE EM_AARCH64
#define PIP_PLATFORM    "aarch64"
#endif

#define PIP_CHILD_STACK (64UL * 1024)
#define PIP_PAGE        4096UL
#define PIP_PG_DOWN(x)  ((uintptr_t)(x) & ~(uintptr_t)(PIP_PAGE - 1))
#define PIP_PG_UP(x)    PIP_PG_DOWN((uintptr_t)(x) + PIP_PAGE - 1)

#ifdef PIP_AUDIT_ARCH

/* ---- ELF reading ---- */

struct pip_elf_file {
    Elf64_Ehdr eh;
    Elf64_Phdr ph[64];
    int nph;
};

static int pip_read_elf(int fd, struct pip_elf_file *f)
{
    if (pip_pread_all(fd, &f->eh, sizeof(f->eh), 0) != 0 ||
        memcmp(f->eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        f->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        f->eh.e_machine != PIP_ELF_MACHINE ||
        f->eh.e_phentsize != sizeof(Elf64_Phdr) || f->eh.e_phnum == 0 ||
        f->eh.e_phnum > 64)
        return ELIBBAD;
    f->nph = f->eh.e_phnum;
    if (pip_pread_all(fd, f->ph, sizeof(Elf64_Phdr) * (size_t)f->nph,
                      (off_t)f->eh.e_phoff) != 0)
        return ELIBBAD;
    return 0;
}

/* The span of the PT_LOAD segments: [*lo, *hi) unrelocated, page aligned. */
static int pip_load_span(const struct pip_elf_file *f, uintptr_t *lo,
                         uintptr_t *hi)
{
    uintptr_t l = UINTPTR_MAX, h = 0;
    for (int i = 0; i < f->nph; i++) {
        if (f->ph[i].p_type != PT_LOAD)
            continue;
        if (PIP_PG_DOWN(f->ph[i].p_vaddr) < l)
            l = PIP_PG_DOWN(f->ph[i].p_vaddr);
        if (PIP_PG_UP(f->ph[i].p_vaddr + f->ph[i].p_memsz) > h)
            h = PIP_PG_UP(f->ph[i].p_vaddr + f->ph[i].p_memsz);
    }
    if (h <= l)
        return ELIBBAD;
    *lo = l;
    *hi = h;
    return 0;
}

static int pip_prot(uint32_t flags)
{
    return ((flags & PF_R) ? PROT_READ : 0) |
           ((flags & PF_W) ? PROT_WRITE : 0) | ((flags & PF_X) ? PROT_EXEC : 0);
}

/*
 * Map a fresh copy of the loader at `path` anywhere: *basep its load bias,
 * *spanp the size of the whole reservation (from *basep + lo).
 */
static int pip_map_loader(const char *path, struct pip_elf_file *f,
                          struct pip_region *g, uintptr_t *basep,
                          uintptr_t *lop, size_t *spanp)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ELIBACC;
    int rc = pip_read_elf(fd, f);
    uintptr_t lo = 0, hi = 0;
    if (rc == 0 && f->eh.e_type != ET_DYN)
        rc = ELIBBAD;
    if (rc == 0)
        rc = pip_load_span(f, &lo, &hi);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    /* In the task's range (reserved already), else anywhere. */
    char *res = g != NULL ? pip_region_take(g, hi - lo) : NULL;
    if (res == NULL)
        res = mmap(NULL, hi - lo, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res == MAP_FAILED) {
        close(fd);
        return ENOMEM;
    }
    uintptr_t base = (uintptr_t)res - lo;
    for (int i = 0; i < f->nph && rc == 0; i++) {
        const Elf64_Phdr *p = &f->ph[i];
        if (p->p_type != PT_LOAD)
            continue;
        uintptr_t start = PIP_PG_DOWN(base + p->p_vaddr);
        uintptr_t fend = base + p->p_vaddr + p->p_filesz;
        uintptr_t mend = PIP_PG_UP(base + p->p_vaddr + p->p_memsz);
        int prot = pip_prot(p->p_flags);
        if (p->p_filesz > 0) {
            size_t len = PIP_PG_UP(fend) - start;
            if (mmap((void *)start, len,
                     prot | (p->p_memsz > p->p_filesz ? PROT_WRITE : 0),
                     MAP_PRIVATE | MAP_FIXED, fd,
                     (off_t)PIP_PG_DOWN(p->p_offset)) == MAP_FAILED) {
                rc = ENOMEM;
                break;
            }
            /* .bss that shares the last file page */
            if (p->p_memsz > p->p_filesz && PIP_PG_UP(fend) > fend)
                memset((void *)fend, 0, PIP_PG_UP(fend) - fend);
            if (p->p_memsz > p->p_filesz && !(prot & PROT_WRITE))
                (void)mprotect((void *)start, len, prot);
            start = PIP_PG_UP(fend);
        }
        if (mend > start &&
            mmap((void *)start, mend - start, prot,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            rc = ENOMEM;
    }
    close(fd);
    if (rc != 0) {
        if (pip_region_holds(g, (uintptr_t)res))
            (void)mmap(res, hi - lo, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                       -1, 0);
        else
            munmap(res, hi - lo);
        return rc;
    }
    *basep = base;
    *lop = lo;
    *spanp = hi - lo;
    return 0;
}

/* ---- the fixed ranges of position-dependent programs ---- */

/* Is [lo, hi) free in this address space (no mapping overlaps it)? */
static int pip_range_free(uintptr_t lo, uintptr_t hi)
{
    FILE *fp = fopen("/proc/self/maps", "re");
    if (fp == NULL)
        return 0;
    char line[512];
    int ok = 1;
    while (ok && fgets(line, sizeof(line), fp) != NULL) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < hi && b > lo)
            ok = 0;
    }
    fclose(fp);
    return ok;
}

/* ---- the child ---- */

/*
 * A thread of the task's process that only sleeps, all signals blocked,
 * on no thread block of its own: the kernel clears and wakes `ctid` when
 * the process ends (the task's libc takes over its main thread's tid
 * word).  Returns the new thread's TID, or a negative errno value.
 */
static long pip_sentinel(void *stack_top, volatile int *ctid)
{
    unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
                          CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = (long)ctid;
    register long r8 __asm__("r8") = 0;
    __asm__ __volatile__("syscall\n\t"
                         "test %%rax, %%rax\n\t"
                         "jnz 1f\n\t"
                         "2:\n\t"
                         "mov %[pp], %%eax\n\t"
                         "xor %%edi, %%edi\n\t"
                         "xor %%esi, %%esi\n\t"
                         "xor %%edx, %%edx\n\t"
                         "xor %%r10d, %%r10d\n\t"
                         "mov $8, %%r8d\n\t"
                         "syscall\n\t"
                         "jmp 2b\n\t"
                         "1:\n\t"
                         : "=a"(ret)
                         : "0"((long)SYS_clone), "D"(flags), "S"(stack_top),
                           "d"(0L), "r"(r10), "r"(r8), [pp] "i"(SYS_ppoll)
                         : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = SYS_clone;
    register long x0 __asm__("x0") = (long)flags;
    register long x1 __asm__("x1") = (long)stack_top;
    register long x2 __asm__("x2") = 0;
    register long x3 __asm__("x3") = 0;
    register long x4 __asm__("x4") = (long)ctid;
    __asm__ __volatile__("svc #0\n\t"
                         "cbnz x0, 1f\n\t"
                         "2:\n\t"
                         "mov x8, %[pp]\n\t"
                         "mov x0, xzr\n\t"
                         "mov x1, xzr\n\t"
                         "mov x2, xzr\n\t"
                         "mov x3, xzr\n\t"
                         "mov x4, #8\n\t"
                         "svc #0\n\t"
                         "b 2b\n\t"
                         "1:\n\t"
                         : "+r"(x0), "+r"(x8)
                         : "r"(x1), "r"(x2), "r"(x3),
                           "r"(x4), [pp] "i"(SYS_ppoll)
                         : "memory");
    return x0;
#endif
}

__attribute__((noreturn)) static void pip_jump(void *sp, void *entry)
{
#if defined(__x86_64__)
    __asm__ __volatile__("mov %%rdi, %%rsp\n\t"
                         "xor %%edx, %%edx\n\t"
                         "xor %%ebp, %%ebp\n\t"
                         "jmp *%%rsi\n\t"
                         :
                         : "D"(sp), "S"(entry)
                         : "memory");
#elif defined(__aarch64__)
    register void *x0 __asm__("x0") = sp;
    register void *x1 __asm__("x1") = entry;
    __asm__ __volatile__("mov sp, x0\n\t"
                         "mov x0, xzr\n\t"
                         "mov x29, xzr\n\t"
                         "mov x30, xzr\n\t"
                         "br x1\n\t"
                         :
                         : "r"(x0), "r"(x1)
                         : "memory");
#endif
    __builtin_unreachable();
}

static __attribute__((noreturn)) void pip_child_exit(int code)
{
    for (;;)
        (void)pip_raw_syscall(SYS_exit_group, code, 0, 0, 0, 0, 0);
}

static int pip_image_child(void *arg)
{
    struct pip_task *t = arg;

    /* Do not outlive the root: the memory is the root's. */
    (void)pip_raw_syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
    /* Its end of the socket its filter's listener goes back through. */
    if (t->region_sock >= 0)
        (void)pip_raw_syscall(SYS_fcntl, t->region_sock, F_SETFD, 0, 0, 0, 0);
    pip_close_cloexec();
    if (t->progname != NULL)
        (void)pip_raw_syscall(SYS_prctl, PR_SET_NAME, (long)t->progname, 0, 0,
                              0, 0);
    cpu_set_t set;
    int bind = 0;
    if (pip_core_to_cpuset(t->coreno, &set, &bind) == 0 && bind)
        (void)pip_raw_syscall(SYS_sched_setaffinity, 0, sizeof(set), (long)&set,
                              0, 0, 0);
    /* Every signal is blocked here (the root blocked them for the clone). */
    t->end_word = 1;
    if (pip_sentinel((char *)t->cstack + PIP_PAGE, &t->end_word) < 0)
        pip_child_exit(127);
    int before_rc = 0;
    if (t->hook.before != NULL)
        before_rc = t->hook.before(t->hook.hookarg);
    if (pip_region_child_filter(t) != 0)
        pip_child_exit(127);
    long pid = pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
    *t->priv_pid_slot = (unsigned long)pid;
    t->start_err = 0;
    /* Its own pip_kill(PIP_PIPID_MYSELF) may come before the root returns. */
    t->pid = (pid_t)pid;
    t->tid = (pid_t)pid;
    t->tidp = &t->end_word;
    if (before_rc == 0)
        __atomic_store_n(&t->state, PIP_TASK_RUNNING, __ATOMIC_RELEASE);
    /* The root may use its thread block again. */
    __atomic_store_n(&t->leader_free, 1, __ATOMIC_RELEASE);
    pip_futex_wake(&t->leader_free, INT32_MAX, 1);
    if (before_rc != 0)
        pip_child_exit(before_rc);

    if (t->stop_on_start)
        (void)pip_raw_syscall(SYS_kill, pid, SIGSTOP, 0, 0, 0, 0);

    /* With pip_taskstart.so preloaded, the loader runs with every signal
     * still blocked (its mmap calls wait for the root's placer, and a
     * handler that ran meanwhile would fail them with EINTR); the module
     * sets the task's mask once everything is mapped. */
    if (!t->start_blocked) {
        uint64_t mask;
        memcpy(&mask, &t->start_mask, sizeof(mask));
        (void)pip_raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, (long)&mask, 0,
                              sizeof(mask), 0, 0);
    }
    pip_jump(t->priv_sp, (void *)t->priv_entry);
    return 0;
}

/* ---- the initial stack ---- */

/* Append a string below *top; returns its address. */
static char *pip_push_str(char **top, const char *s)
{
    size_t l = strlen(s) + 1;
    *top -= l;
    memcpy(*top, s, l);
    return *top;
}

/*
 * Bytes the strings and vectors of `ld.so --argv0 ARGV0 PROG ARGS` take
 * at the top of a task's stack.
 */
static size_t pip_stack_need(const struct pip_task *t, const char *interp,
                             const char *prog, const char *preload)
{
    int nargs = 6 + (t->argc > 1 ? t->argc - 1 : 0);
    int nenv = 0;
    size_t need = strlen(interp) + strlen(prog) + 64 +
                  (preload != NULL ? strlen(preload) : 0) +
                  strlen(t->argv[0] != NULL ? t->argv[0] : prog);
    for (int i = 1; i < t->argc; i++)
        need += strlen(t->argv[i]) + 1;
    for (; t->envv[nenv] != NULL; nenv++)
        need += strlen(t->envv[nenv]) + 1;
    return need + sizeof(void *) * (size_t)(nargs + nenv + 64);
}

/*
 * Build the stack of `ld.so --argv0 ARGV0 PROG ARGS` at the top of
 * t->stack.  0, or E2BIG.
 */
static int pip_build_stack(struct pip_task *t, const char *interp,
                           const char *prog, const char *preload,
                           uintptr_t ld_base, const struct pip_elf_file *ld)
{
    char *top = (char *)t->stack + t->stack_size;
    char *lim = (char *)t->stack + t->stack_size / 2;
    int nargs = 6 + (t->argc > 1 ? t->argc - 1 : 0);
    int nenv = 0;
    while (t->envv[nenv] != NULL)
        nenv++;
    char **av = malloc(sizeof(char *) * (size_t)(nargs + nenv + 2));
    if (av == NULL)
        return ENOMEM;
    char **ev = av + nargs + 1;

    size_t need = pip_stack_need(t, interp, prog, preload);
    if ((size_t)(top - lim) < need) {
        free(av);
        return E2BIG;
    }

    char *execfn = pip_push_str(&top, prog);
    char *platform = pip_push_str(&top, PIP_PLATFORM);
    int n = 0;
    av[n++] = pip_push_str(&top, interp);
    av[n++] = pip_push_str(&top, "--argv0");
    av[n++] = pip_push_str(&top, t->argv[0] != NULL ? t->argv[0] : prog);
    if (preload != NULL) {
        av[n++] = pip_push_str(&top, "--preload");
        av[n++] = pip_push_str(&top, preload);
    }
    av[n++] = pip_push_str(&top, prog);
    for (int i = 1; i < t->argc; i++)
        av[n++] = pip_push_str(&top, t->argv[i]);
    av[n] = NULL;
    for (int i = 0; i < nenv; i++)
        ev[i] = pip_push_str(&top, t->envv[i]);
    ev[nenv] = NULL;
    top = (char *)((uintptr_t)top & ~(uintptr_t)15);
    top -= 16;
    unsigned char *rnd = (unsigned char *)top;
    if (getrandom(rnd, 16, GRND_NONBLOCK) != 16) {
        for (int i = 0; i < 16; i++)
            rnd[i] = (unsigned char)(random() >> 3);
    }

    /* Program headers of the loader copy, as the kernel gives them. */
    uintptr_t phdr = 0;
    for (int i = 0; i < ld->nph; i++) {
        const Elf64_Phdr *p = &ld->ph[i];
        if (p->p_type == PT_LOAD && p->p_offset <= ld->eh.e_phoff &&
            ld->eh.e_phoff < p->p_offset + p->p_filesz) {
            phdr = ld_base + p->p_vaddr + (ld->eh.e_phoff - p->p_offset);
            break;
        }
    }
    unsigned long aux[64];
    int na = 0;
#define PIP_AUX(k, v)                                                          \
    do {                                                                       \
        aux[na++] = (unsigned long)(k);                                        \
        aux[na++] = (unsigned long)(v);                                        \
    } while (0)
    if (getauxval(AT_SYSINFO_EHDR) != 0)
        PIP_AUX(AT_SYSINFO_EHDR, getauxval(AT_SYSINFO_EHDR));
#ifdef AT_MINSIGSTKSZ
    if (getauxval(AT_MINSIGSTKSZ) != 0)
        PIP_AUX(AT_MINSIGSTKSZ, getauxval(AT_MINSIGSTKSZ));
#endif
    PIP_AUX(AT_HWCAP, getauxval(AT_HWCAP));
    PIP_AUX(AT_PAGESZ, PIP_PAGE);
    PIP_AUX(AT_CLKTCK, getauxval(AT_CLKTCK));
    PIP_AUX(AT_PHDR, phdr);
    PIP_AUX(AT_PHENT, sizeof(Elf64_Phdr));
    PIP_AUX(AT_PHNUM, ld->nph);
    PIP_AUX(AT_BASE, 0);
    PIP_AUX(AT_FLAGS, 0);
    PIP_AUX(AT_ENTRY, ld_base + ld->eh.e_entry);
    PIP_AUX(AT_UID, getuid());
    PIP_AUX(AT_EUID, geteuid());
    PIP_AUX(AT_GID, getgid());
    PIP_AUX(AT_EGID, getegid());
    PIP_AUX(AT_SECURE, 0);
    PIP_AUX(AT_RANDOM, rnd);
    PIP_AUX(AT_HWCAP2, getauxval(AT_HWCAP2));
    PIP_AUX(AT_EXECFN, execfn);
    PIP_AUX(AT_PLATFORM, platform);
    PIP_AUX(PIP_AT_ROOT, pip_root_);
    PIP_AUX(PIP_AT_TASK, t);
    if (t->start_blocked)
        PIP_AUX(PIP_AT_SIGMASK, &t->start_mask);
    int pid_at = na + 1;
    PIP_AUX(PIP_AT_PID, 0);
    PIP_AUX(AT_NULL, 0);
#undef PIP_AUX

    size_t words = 1 + (size_t)n + 1 + (size_t)nenv + 1 + (size_t)na;
    unsigned long *sp = (unsigned long *)top - words;
    sp = (unsigned long *)((uintptr_t)sp & ~(uintptr_t)15);
    unsigned long *w = sp;
    *w++ = (unsigned long)n;
    for (int i = 0; i <= n; i++)
        *w++ = (unsigned long)av[i];
    for (int i = 0; i <= nenv; i++)
        *w++ = (unsigned long)ev[i];
    memcpy(w, aux, sizeof(unsigned long) * (size_t)na);
    t->priv_pid_slot = &w[pid_at];
    t->priv_sp = sp;
    t->priv_entry = ld_base + ld->eh.e_entry;
    free(av);
    return 0;
}

/* ---- spawn ---- */

/* Is any live private task's fixed range overlapping [lo, hi)? */
static struct pip_task *pip_fixed_user(uintptr_t lo, uintptr_t hi)
{
    struct pip_root *r = pip_root_;
    for (int i = 0; i < r->ntasks; i++) {
        struct pip_task *o = &r->tasks[i];
        if (o->state != PIP_TASK_FREE && o->priv && o->fixed_hi > lo &&
            o->fixed_lo < hi)
            return o;
    }
    return NULL;
}

int pip_image_spawn(struct pip_task *t, const char *prog)
{
    struct pip_root *r = pip_root_;
    struct stat st;
    struct pip_elf_file pf, lf;
    char interp[PATH_MAX];
    int rc;

    if (stat(prog, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? ENOENT : EACCES;
    if (!S_ISREG(st.st_mode) || access(prog, X_OK) != 0)
        return EACCES;
    int fd = open(prog, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return EACCES;
    rc = pip_read_elf(fd, &pf);
    if (rc == 0 && pf.eh.e_type != ET_DYN && pf.eh.e_type != ET_EXEC)
        rc = ELIBBAD;
    interp[0] = '\0';
    for (int i = 0; rc == 0 && i < pf.nph; i++) {
        if (pf.ph[i].p_type != PT_INTERP)
            continue;
        size_t len = pf.ph[i].p_filesz;
        if (len == 0 || len >= sizeof(interp) ||
            pip_pread_all(fd, interp, len, (off_t)pf.ph[i].p_offset) != 0)
            rc = ELIBBAD;
        else
            interp[len - 1] = '\0';
    }
    close(fd);
    if (rc != 0) {
        pip_msg(1, "%s: not an ELF program for this machine", prog);
        return rc;
    }
    if (interp[0] == '\0') {
        pip_msg(1,
                "%s: statically linked (no program interpreter): not "
                "supported as a task",
                prog);
        return ENOEXEC;
    }

    /* A position-dependent program: its fixed addresses, one copy at most. */
    if (pf.eh.e_type == ET_EXEC) {
        uintptr_t lo, hi;
        if (pip_load_span(&pf, &lo, &hi) != 0)
            return ELIBBAD;
        struct pip_task *o = pip_fixed_user(lo, hi);
        if (o != NULL) {
            pip_msg(1,
                    "%s: not position independent: its fixed addresses "
                    "0x%lx-0x%lx are in use by task %d; one copy of a non-PIE "
                    "program at a time (rebuild it with -fPIE -pie)",
                    prog, (unsigned long)lo, (unsigned long)hi, o->pipid);
            return EBUSY;
        }
        if (!pip_range_free(lo, hi)) {
            pip_msg(1,
                    "%s: not position independent: its fixed addresses "
                    "0x%lx-0x%lx are in use in the root's address space "
                    "(rebuild it with -fPIE -pie)",
                    prog, (unsigned long)lo, (unsigned long)hi);
            return EBUSY;
        }
        t->fixed_lo = lo;
        t->fixed_hi = hi;
    }

    /* PIP_NS_PRELOAD: the loader copy's --preload (its definitions win). */
    const char *preload = getenv("PIP_NS_PRELOAD");
    if (preload != NULL && preload[strspn(preload, ": \t")] == '\0')
        preload = NULL;
    if (preload != NULL) {
        char *list = strdup(preload), *save = NULL;
        if (list == NULL)
            return ENOMEM;
        for (char *lib = strtok_r(list, ": \t", &save); lib != NULL;
             lib = strtok_r(NULL, ": \t", &save)) {
            if (strchr(lib, '/') != NULL && access(lib, R_OK) != 0) {
                pip_msg(1, "PIP_NS_PRELOAD: %s: %s", lib, strerror(errno));
                free(list);
                t->fixed_lo = t->fixed_hi = 0;
                return ELIBACC;
            }
        }
        free(list);
    }

    /* Its address range: everything it maps goes there (pip_region.c). */
    t->region_sock = -1;
    t->priv_keep = 0;
    t->region = pip_region_new();
    if (t->region != NULL)
        t->region_key = (uint32_t)(pip_region_base(t->region) >> 33);
    uintptr_t ld_base, ld_lo;
    size_t ld_span;
    rc = pip_map_loader(interp, &lf, t->region, &ld_base, &ld_lo, &ld_span);
    if (rc != 0) {
        pip_msg(1, "%s: cannot map its program interpreter %s: %s", prog,
                interp, strerror(rc));
        t->fixed_lo = t->fixed_hi = 0;
        return rc;
    }
    t->priv = 1;
    t->ld_start = (void *)(ld_base + ld_lo);
    t->ld_span = ld_span;
    uint64_t rdv = 0;
    if (pip_elf_file_sym(interp, "_r_debug", &rdv) == 0)
        t->priv_rdebug = ld_base + rdv;
    t->interp = strdup(interp);
    t->priv_prog = strdup(prog);

    /* With a range, pip_taskstart.so comes first in the preload list
     * (initialised last): the task starts with its signals blocked. */
    char *plist = NULL;
    const char *ts = t->region != NULL ? pip_taskstart_path() : NULL;
    if (ts != NULL) {
        if (asprintf(&plist, "%s%s%s", ts, preload != NULL ? ":" : "",
                     preload != NULL ? preload : "") < 0)
            return ENOMEM;
        preload = plist;
    }
    t->start_blocked = plist != NULL;

    /* The arguments and environment sit at the top of the stack, as the
     * kernel puts them above it: room for them on top of the task's own
     * stack size (pip_build_stack uses at most the upper half for them). */
    size_t strs = pip_stack_need(t, interp, prog, preload);
    size_t want = r->stack_size > strs ? r->stack_size : strs;
    t->stack_size = (want + strs + PIP_PAGE - 1) & ~(PIP_PAGE - 1);
    void *at =
        t->region != NULL ? pip_region_take(t->region, t->stack_size) : NULL;
    t->stack = mmap(at, t->stack_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE |
                        (at != NULL ? MAP_FIXED : 0),
                    -1, 0);
    if (t->stack == MAP_FAILED) {
        t->stack = NULL;
        free(plist);
        return ENOMEM;
    }
    (void)mprotect(t->stack, PIP_PAGE, PROT_NONE); /* guard page */
    rc = pip_build_stack(t, interp, prog, preload, ld_base, &lf);
    free(plist);
    if (rc != 0) {
        if (rc == E2BIG)
            pip_msg(1, "%s: arguments and environment too long", prog);
        return rc;
    }

    t->cstack_size = PIP_CHILD_STACK;
    t->cstack = mmap(NULL, t->cstack_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (t->cstack == MAP_FAILED) {
        t->cstack = NULL;
        return ENOMEM;
    }
    int sv[2] = {-1, -1};
    if (t->region != NULL &&
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0)
        t->region_sock = sv[1];
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    t->start_mask = old;
    t->leader_free = 0;
    t->start_err = -1;
    t->clone_tid = 1;
    pid_t pid = clone(pip_image_child, (char *)t->cstack + t->cstack_size,
                      CLONE_VM | CLONE_CHILD_CLEARTID | SIGCHLD, t, NULL, NULL,
                      (pid_t *)&t->clone_tid);
    int e = errno;
    if (pid > 0) {
        /* Our thread block is the child's until it says so (or is gone). */
        while (__atomic_load_n(&t->leader_free, __ATOMIC_ACQUIRE) == 0 &&
               t->clone_tid != 0)
            pip_futex_wait(&t->leader_free, 0, 20, 1);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    int lfd = -1;
    if (sv[0] >= 0) {
        close(sv[1]);
        t->region_sock = -1;
        if (pid > 0)
            lfd = pip_region_recv_listener(sv[0]);
        close(sv[0]);
    }
    if (pid < 0)
        return e == ENOMEM || e == EAGAIN ? e : EAGAIN;
    if (lfd >= 0 && pip_region_serve(t->region, pid, lfd) != 0) {
        /* Its calls to mmap would fail: it must not run. */
        int st2;
        (void)kill(pid, SIGKILL);
        (void)waitpid(pid, &st2, __WALL);
        pip_msg(1, "%s: cannot serve its address range", prog);
        return EAGAIN;
    }
    t->pid = pid;
    t->tid = pid;
    t->tidp = &t->end_word; /* cleared by the kernel when it ends */
    if (t->start_err != 0) {
        /* The child died before it reached the loader. */
        int st2;
        (void)waitpid(pid, &st2, __WALL);
        t->pid = 0;
        return EAGAIN;
    }
    pip_dbg("task %d: private image of %s, loader %s at %p (pid %d)", t->pipid,
            prog, interp, t->ld_start, (int)pid);
    return 0;
}

/* The page-aligned span of the PT_LOAD segments of the ELF file at `path`,
 * unrelocated: 0, or an errno value. */
int pip_elf_load_span(const char *path, uintptr_t *lo, uintptr_t *hi)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ENOENT;
    struct pip_elf_file f;
    int rc = pip_read_elf(fd, &f);
    if (rc == 0)
        rc = pip_load_span(&f, lo, hi);
    close(fd);
    return rc;
}

#else /* no private image on this architecture */

int pip_image_spawn(struct pip_task *t, const char *prog)
{
    (void)t;
    (void)prog;
    return ENOSYS;
}

int pip_elf_load_span(const char *path, uintptr_t *lo, uintptr_t *hi)
{
    (void)path;
    (void)lo;
    (void)hi;
    return ENOSYS;
}

#endif
