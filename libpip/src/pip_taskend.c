/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_taskend.c: how a task ends: the exit handler every task registers
 * with its namespace's libc (destructors, the "after" hook, the status,
 * the way back to the task's start frame), and, in thread mode, signals
 * that end only the task they are sent to (pip_kill).  How a task starts
 * is in pip_spawn.c.
 */
#include "pip_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void pip_nop_fini(void)
{
}

/* The program's destructors (DT_FINI_ARRAY as loaded, in reverse, DT_FINI).
 */
static void pip_run_fini(struct pip_task *t)
{
    struct pip_image *img = t->img;
    if (img != NULL && img->fini_saved != NULL) {
        for (size_t i = img->nfini; i-- > 0;) {
            void (*f)(void) = img->fini_saved[i];
            if (f != NULL && f != (void (*)(void))(intptr_t)-1 &&
                f != pip_nop_fini)
                f();
        }
        /*
         * The root's exit runs _dl_fini over every namespace: make sure the
         * destructors do not run again there (the image keeps its saved
         * copy for the next task that reuses it).
         */
        void (**fa)(void) =
            (void (**)(void))(img->l_addr + img->elf.fini_array);
        if (fa[0] != pip_nop_fini) {
            uintptr_t lo = (uintptr_t)fa & ~(uintptr_t)4095;
            uintptr_t hi =
                ((uintptr_t)(fa + img->nfini) + 4095) & ~(uintptr_t)4095;
            if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) == 0) {
                for (size_t i = 0; i < img->nfini; i++)
                    fa[i] = pip_nop_fini;
                (void)mprotect((void *)lo, hi - lo, PROT_READ);
            }
        }
    }
    if (img != NULL && img->elf.fini != 0) {
        void (*f)(void) = (void (*)(void))(img->l_addr + img->elf.fini);
        f();
    }
}

static void pip_notify_end(struct pip_task *t)
{
    struct pip_root *r = pip_root_;
    t->ended = 1;
    __atomic_add_fetch(&t->exp_seq, 1, __ATOMIC_SEQ_CST);
    pip_futex_wake(&t->exp_seq, INT32_MAX, 0);
    __atomic_add_fetch(&r->end_seq, 1, __ATOMIC_SEQ_CST);
    pip_futex_wake(&r->end_seq, INT32_MAX, 0);
}

/* Threads in this process, a zombie leader included. */
static int pip_live_threads(void)
{
    long fd = pip_raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/status",
                              O_RDONLY | O_CLOEXEC, 0, 0, 0);
    if (fd < 0)
        return -1;
    char buf[4096];
    long n = pip_raw_syscall(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
    (void)pip_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *p = strstr(buf, "\nThreads:");
    if (p == NULL)
        return -1;
    p += sizeof("\nThreads:") - 1;
    while (*p == ' ' || *p == '\t')
        p++;
    int cnt = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        cnt = cnt * 10 + (*p - '0');
    return cnt;
}

/*
 * The exit handler.  Every task registers one with its namespace's libc
 * (on_exit) as it starts, and each namespace has one more at the bottom of
 * its list (`arg` is then the namespace).  Handlers of one namespace are
 * interchangeable: whichever runs works out which task is exiting.  It
 * never returns for a task's exit, so the list never runs empty (glibc
 * would then refuse further registrations in that namespace).
 *
 * Runs after the atexit handlers registered above it: the program's
 * destructors, the "after" hook, flushes the namespace's stdio, records the
 * status and returns to the task's start frame, so that the task's thread
 * ends through its libc (thread resources freed).  exit() from another
 * thread of a process-mode task ends that process (exit_group).
 */
void pip_exit_handler(int status, void *arg)
{
    struct pip_ns *bottom = arg;
    struct pip_root *r = pip_root_;
    struct pip_task *t = pip_cur_task_;
    if (r == NULL)
        return;
    /*
     * A process fork()ed by a task (a copy of the task's process, or of the
     * whole root in thread mode): its exit() is an ordinary one, without
     * task bookkeeping.
     */
    pid_t pid = (pid_t)pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
    if (r->mode == PIP_MODE_PTHREAD ? pid != r->pid
                                    : (t != NULL && pid != t->pid))
        return;
    if (t == NULL && r->mode == PIP_MODE_PROCESS) {
        for (int i = 0; i < r->ntasks; i++)
            if (r->tasks[i].state == PIP_TASK_RUNNING &&
                r->tasks[i].pid == pid && pid != r->pid)
                t = &r->tasks[i];
    }
    if (t == NULL || t->exiting)
        return; /* not a task's (thread mode: exit() ends the process) */
    t->exiting = 1;
    pip_getopt_release(t); /* exit() inside its option loop (--help) */
    pip_vtimer_delete(t);

    pip_run_fini(t);
    if (t->hook.after != NULL) {
        int rv = t->hook.after(t->hook.hookarg);
        if (rv != 0 && status == 0)
            status = rv;
    }
    t->ns->fflush(NULL);
    t->status = W_EXITCODE(status & 0xff, 0);
    /* After the hook: it may move the task back to its own kernel thread
     * (libulp couples a user-level process there). */
    pid_t tid = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
    int main_thread = t->exit_jmp_ok && tid == t->tid;
    /* Process mode: the clone child, our group's leader, is a zombie. */
    int nthreads = t->mode == PIP_MODE_PROCESS ? pip_live_threads() - 1 : 1;
    pip_dbg("task %d exits with status %d (%s thread%s)", t->pipid, status,
            main_thread ? "main" : "another",
            nthreads != 1 ? ", other threads alive" : "");
    if (!main_thread && t->mode == PIP_MODE_PTHREAD) {
        t->exiting = 0;
        return; /* thread mode, another thread: exit() ends the process */
    }
    /*
     * This handler does not return from here on: keep a bottom entry for
     * the next task of the namespace.  Only here: were exit() to go on, it
     * would run the new entry, and this handler again, for ever.
     */
    if (bottom != NULL)
        (void)bottom->on_exit(pip_exit_handler, bottom);
    if (t->mode == PIP_MODE_PROCESS && (!main_thread || nthreads != 1)) {
        pip_notify_end(t);
        t->ns->_exit(status); /* the whole task process */
    }
    t->clean_end = 1;
    pip_notify_end(t);
    longjmp(t->exit_jmp, 1);
}

/*
 * Thread mode: a signal whose default action ends the process, sent by
 * pip_kill() to a task, ends only that task.  pip_kill() records it and
 * sends PIP_SIG_TASKEND to the task's main thread instead; this handler
 * (the root's libpip, installed at pip_init) then ends the task thread as
 * the signal would end a process: no atexit handlers, destructors, hook or
 * stdio flush, and pip_wait() reports WIFSIGNALED with that signal.
 */
static void pip_taskend_handler(int signo, siginfo_t *si, void *uc)
{
    struct pip_task *t = pip_cur_task_;
    (void)signo;
    (void)si;
    (void)uc;
    if (pip_root_ == NULL || t == NULL || t->exiting || !t->exit_jmp_ok ||
        t->kill_sig <= 0)
        return;
    if ((pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0) != t->tid)
        return;
    t->exiting = 1;
    if (t->kill_sig & PIP_KILL_EXIT) /* _exit() in another of its threads */
        t->status = W_EXITCODE(t->kill_sig & 0xff, 0);
    else
        t->status = t->kill_sig & 0x7f; /* waitpid's "killed by signal" */
    pip_notify_end(t);
    longjmp(t->exit_jmp, 2);
}

/*
 * Thread mode: a task's _exit()/_Exit() (the exit_group system call) must
 * end only that task, as it ends only the process in process mode.  Each
 * task thread installs a seccomp filter for itself (threads it creates
 * inherit it) that traps exit_group made from its namespace's libc: the
 * kernel then sends SIGSYS to the calling thread, and this handler ends
 * the task with that exit status, without atexit handlers or a stdio
 * flush, as _exit would.  A process fork()ed by the task inherits the
 * filter: there the handler ends the process with the status.  After an
 * exec the filter stays but no longer matches (the new program's libc
 * lies elsewhere), so exec'd programs exit as usual.
 */
static struct sigaction pip_sigsys_prev;
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1 /* si_code of a seccomp trap (asm-generic/siginfo.h) */
#endif

static long pip_sigsys_status(void *ucv)
{
    ucontext_t *uc = ucv;
#if defined(__x86_64__)
    return (long)uc->uc_mcontext.gregs[REG_RDI];
#else
    return (long)uc->uc_mcontext.regs[0];
#endif
}

static void pip_sigsys_handler(int signo, siginfo_t *si, void *uc)
{
    struct pip_root *r = pip_root_;
    if (si == NULL || si->si_code != SYS_SECCOMP ||
        si->si_syscall != SYS_exit_group || r == NULL) {
        /* Not ours: the handler that was there, else the default. */
        if (pip_sigsys_prev.sa_flags & SA_SIGINFO) {
            pip_sigsys_prev.sa_sigaction(signo, si, uc);
            return;
        }
        if (pip_sigsys_prev.sa_handler == SIG_IGN)
            return;
        if (pip_sigsys_prev.sa_handler != SIG_DFL) {
            pip_sigsys_prev.sa_handler(signo);
            return;
        }
        /* Default action in a task (pip_kill, kill()): it ends the task. */
        struct pip_task *t = r != NULL ? pip_thread_task() : NULL;
        if (t != NULL && !t->exiting &&
            (pid_t)pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0) == r->pid) {
            pid_t tid = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
            t->kill_sig = SIGSYS;
            if (tid == t->tid && t->exit_jmp_ok) {
                t->exiting = 1;
                t->status = SIGSYS; /* waitpid's "killed by signal" */
                pip_notify_end(t);
                longjmp(t->exit_jmp, 2);
            }
            (void)pip_raw_syscall(SYS_tgkill, r->pid, t->tid, PIP_SIG_TASKEND,
                                  0, 0, 0);
            return;
        }
        signal(SIGSYS, SIG_DFL);
        (void)pip_raw_syscall(
            SYS_tgkill, pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0),
            pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0), SIGSYS, 0, 0, 0);
        return;
    }
    int status = (int)(pip_sigsys_status(uc) & 0xff);
    pid_t pid = (pid_t)pip_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0);
    pid_t tid = (pid_t)pip_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0);
    struct pip_task *t = pip_thread_task();
    if (pid != r->pid || t == NULL) {
        /* A process fork()ed by a task (its only thread): end it. */
        for (;;)
            (void)pip_raw_syscall(SYS_exit, status, 0, 0, 0, 0, 0);
    }
    if (tid == t->tid && t->exit_jmp_ok && !t->exiting) {
        pip_dbg("task %d: _exit(%d)", t->pipid, status);
        t->exiting = 1;
        t->status = W_EXITCODE(status, 0);
        pip_notify_end(t);
        longjmp(t->exit_jmp, 3);
    }
    /* Another thread of the task: end the task's main thread with the
     * status, and this thread. */
    if (!t->exiting) {
        t->kill_sig = PIP_KILL_EXIT | status;
        (void)pip_raw_syscall(SYS_tgkill, r->pid, t->tid, PIP_SIG_TASKEND, 0, 0,
                              0);
    }
    for (;;)
        (void)pip_raw_syscall(SYS_exit, status, 0, 0, 0, 0, 0);
}

/*
 * The executable segment holding `addr`, from the program headers of the
 * object that dladdr finds (any namespace; dl_iterate_phdr sees only the
 * caller's): 0, or -1.
 */
static int pip_text_range(uintptr_t addr, uintptr_t *lop, uintptr_t *hip)
{
    Dl_info di;
    if (dladdr((void *)addr, &di) == 0 || di.dli_fbase == NULL)
        return -1;
    const ElfW(Ehdr) *eh = di.dli_fbase;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return -1;
    const ElfW(Phdr) *ph =
        (const ElfW(Phdr) *)((const char *)di.dli_fbase + eh->e_phoff);
    uintptr_t base = 0;
    int have_base = 0;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && !have_base) {
            base = (uintptr_t)di.dli_fbase - (ph[i].p_vaddr & ~(uintptr_t)4095);
            have_base = 1;
        }
    for (int i = 0; i < eh->e_phnum && have_base; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
            continue;
        uintptr_t lo = base + ph[i].p_vaddr, hi = lo + ph[i].p_memsz;
        if (addr >= lo && addr < hi) {
            *lop = lo;
            *hip = hi;
            return 0;
        }
    }
    return -1;
}

int pip_thread_exit_guard(struct pip_task *t)
{
    struct {
        uintptr_t lo, hi;
    } tr;
    if (pip_text_range((uintptr_t)t->ns->_exit, &tr.lo, &tr.hi) != 0)
        return ENOENT;
    uint32_t lo_hi = (uint32_t)(tr.lo >> 32), hi_hi = (uint32_t)(tr.hi >> 32);
    if (lo_hi != hi_hi)
        return ERANGE; /* a text segment across a 4 GiB line: not handled */
#if defined(__x86_64__)
    const uint32_t arch = AUDIT_ARCH_X86_64;
#else
    const uint32_t arch = AUDIT_ARCH_AARCH64;
#endif
    /* exit_group from [lo, hi) of this architecture: trap; else allow. */
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 0, 8),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_exit_group, 0, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                 offsetof(struct seccomp_data, instruction_pointer) + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, lo_hi, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                 offsetof(struct seccomp_data, instruction_pointer)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)tr.lo, 0, 2),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)tr.hi, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])), f};
    long rc = pip_raw_syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
    if (rc == 0)
        rc = pip_raw_syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
                             (long)&prog, 0, 0, 0);
    return rc < 0 ? (int)-rc : 0;
}

/* Thread mode, at pip_init: can task threads filter exit_group? */
static int pip_seccomp_ok = -1;
int pip_thread_exit_guard_ok(void)
{
    return pip_seccomp_ok == 1;
}

int pip_thread_signals_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = pip_taskend_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(PIP_SIG_TASKEND, &sa, NULL) != 0)
        return errno;
    /* A kernel with seccomp filters: PR_GET_SECCOMP answers (0). */
    pip_seccomp_ok =
        pip_raw_syscall(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0, 0) >= 0;
    if (pip_seccomp_ok) {
        sa.sa_sigaction = pip_sigsys_handler;
        sa.sa_flags = SA_SIGINFO;
        if (sigaction(SIGSYS, &sa, &pip_sigsys_prev) != 0)
            pip_seccomp_ok = 0;
    }
    /* Said with PVAS_LOG=pip:debug only: a root's stderr is its tasks' and
     * its users' (pip-exec(1), THREAD MODE, documents the limit). */
    if (!pip_seccomp_ok)
        pip_msg(0, "thread mode without seccomp filters here: a task's "
                   "_exit() ends the whole root (exit() and returning from "
                   "main end only the task)");
    return 0;
}

/*
 * Read /proc/self/task/TID/NAME into buf (NUL-terminated): 0, or -1 when
 * it cannot be read.
 */
static int pip_read_task_file(pid_t tid, const char *name, char *buf,
                              size_t size)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)tid, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

/* Is `sig` blocked by thread `tid` of this process?  -1: cannot tell. */
static int pip_thread_blocks(pid_t tid, int sig)
{
    char buf[2048];
    if (pip_read_task_file(tid, "status", buf, sizeof(buf)) != 0)
        return -1;
    const char *p = strstr(buf, "\nSigBlk:");
    if (p == NULL)
        return -1;
    unsigned long long mask = strtoull(p + sizeof("\nSigBlk:") - 1, NULL, 16);
    return (mask >> (sig - 1)) & 1ULL ? 1 : 0;
}

/*
 * Is thread `tid` in sigwait() & co. (rt_sigtimedwait)?  Its blocked mask
 * then lacks the signals it waits for, which it wants delivered.
 */
static int pip_thread_in_sigwait(pid_t tid)
{
    char buf[64];
    if (pip_read_task_file(tid, "syscall", buf, sizeof(buf)) != 0)
        return -1;
    return buf[0] >= '0' && buf[0] <= '9' &&
           strtol(buf, NULL, 10) == SYS_rt_sigtimedwait;
}

/*
 * Thread mode, a live task: send `sig` so that, if it would end the
 * process, it ends only the task (see pip_taskend_handler).  The signal
 * itself is sent when the process has a handler for it (or ignores it),
 * or when the task blocks it (it stays pending, as for a process) or waits
 * for signals in sigwait().
 */
int pip_thread_kill(struct pip_task *t, int sig)
{
    struct pip_root *r = pip_root_;
    struct sigaction cur;
    int send = sig;
    /*
     * A task still starting has every signal blocked (as any new thread):
     * PIP_SIG_TASKEND stays pending, and pip_task_main sends it again once
     * the task can be ended.
     */
    int started = t->exit_jmp_ok;
    /* SIGSYS: libpip's handler stands for the default action. */
    int dfl = sigaction(sig, NULL, &cur) == 0 &&
              (((cur.sa_flags & SA_SIGINFO) &&
                cur.sa_sigaction == pip_sigsys_handler &&
                !(pip_sigsys_prev.sa_flags & SA_SIGINFO) &&
                pip_sigsys_prev.sa_handler == SIG_DFL) ||
               (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL));
    if (sig != 0 && pip_sig_ends_process(sig) && dfl &&
        (!started || (pip_thread_blocks(t->tid, sig) == 0 &&
                      pip_thread_blocks(t->tid, PIP_SIG_TASKEND) == 0 &&
                      pip_thread_in_sigwait(t->tid) == 0))) {
        t->kill_sig = sig;
        send = PIP_SIG_TASKEND;
    }
    long rc = pip_raw_syscall(SYS_tgkill, r->pid, t->tid, send, 0, 0, 0);
    return rc < 0 ? (int)-rc : 0;
}

void pip_ns_setup_exit(struct pip_ns *ns)
{
    (void)ns->on_exit(pip_exit_handler, ns);
}
