/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_internal.h: private declarations of libpip.
 *
 * State layout: the root allocates one `struct pip_root` with mmap (not
 * malloc: tasks in other namespaces read and write it with their own libc).
 * Every task that links libpip gets its own copy of libpip in its namespace;
 * the root fills that copy's `pip_ns_link_` (found with dlsym) so that the
 * copy knows the root's state and which task it serves.
 *
 * Files are layered: each calls only files of the rows below its own
 * (tools/check-structure.py checks that no circle remains).
 *   pip_init.c, pip_export.c, pip_compat.c  the rest of the API
 *   pip_wait.c                              reaping, pip_kill
 *   pip_spawn.c                             how a task starts
 *   pip_loader.c                            loading a program
 *   pip_taskend.c                           how a task ends
 *   pip_hooks.c, pip_elfcheck.c, pip_registry.c
 *   pip_util.c                              messages, locks, environment
 *   pip_base.c                              the root's state, the calling
 *                                           task, raw system calls
 */
#ifndef PIP_INTERNAL_H
#define PIP_INTERNAL_H

#include <pip/pip.h>

#include <dlfcn.h>
#include <elf.h>
#include <getopt.h>
#include <link.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/time.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define PIP_HIDDEN __attribute__((visibility("hidden")))

/*
 * The ELF relocation types libpip reads in loaded objects: GOT entries
 * (data and PLT) that hold a symbol's absolute address, and copy
 * relocations of a PIE program.  Both ports have the same three kinds.
 */
#if defined(__x86_64__)
#define PIP_R_GLOB_DAT  R_X86_64_GLOB_DAT
#define PIP_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define PIP_R_COPY      R_X86_64_COPY
#elif defined(__aarch64__)
#define PIP_R_GLOB_DAT  R_AARCH64_GLOB_DAT
#define PIP_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define PIP_R_COPY      R_AARCH64_COPY
#else
#error "libpip has no port for this architecture (x86-64 and aarch64 only)"
#endif

/*
 * Local-exec TLS: a PIE program's code reaches its __thread data at fixed
 * offsets from the thread pointer, computed by the linker as if the
 * program were module 1.  pip_tls_block_offset() is where that block
 * starts, relative to tp, for a PT_TLS of (memsz, align):
 * - x86-64, TLS variant II: the block ends at tp, at tp - round_up(memsz,
 *   align);
 * - aarch64, variant I: tp points at a 16-byte TCB (dtv, reserved word)
 *   and the block follows it, at tp + round_up(16, align).
 */
#define PIP_TLS_TCB_SIZE 16
static inline intptr_t pip_tls_block_offset(uint64_t memsz, uint64_t align)
{
#if defined(__aarch64__)
    (void)memsz;
    return (intptr_t)((PIP_TLS_TCB_SIZE + align - 1) & ~(align - 1));
#else
    return -(intptr_t)((memsz + align - 1) & ~(align - 1));
#endif
}
#define PIP_WUR __attribute__((warn_unused_result))

#define PIP_ROOT_MAGIC 0x50695052 /* "PiPR" */

#define PIP_NAMESPACES_DEFAULT 8  /* namespaces a root creates at most */
#define PIP_NAMESPACES_MAX     15 /* stock glibc: 16 with the base one */

/* Task slot states. */
enum pip_task_state {
    PIP_TASK_FREE = 0, /* never used or reaped */
    PIP_TASK_LOADING,  /* spawn in progress */
    PIP_TASK_RUNNING,  /* started (may have ended but not reaped yet) */
};

/*
 * A namespace slot: one dlmopen() link-map namespace and its libc.  The
 * first program image loaded into a namespace heads its global scope (libc
 * binds to that image's copies of its data); later images (another memfd
 * copy each, so the loader maps them again) share the namespace's libc.
 */
struct pip_ns {
    int index;
    Lmid_t lmid;
    void *libc; /* handle of the namespace's libc.so.6 */
    int busy;   /* tasks of this namespace now loading or running */
    struct pip_task *volatile single; /* its task when busy == 1 */
    void *head;                       /* handle of its first image */
    char **envv; /* environ and program name given to its libc */
    char *progname_full_s;
    /* functions of the namespace's libc */
    int (*pthread_create)(pthread_t *, const pthread_attr_t *,
                          void *(*)(void *), void *);
    int (*attr_init)(pthread_attr_t *);
    int (*attr_setstack)(pthread_attr_t *, void *, size_t);
    int (*attr_setdetachstate)(pthread_attr_t *, int);
    int (*attr_setsigmask)(pthread_attr_t *, const sigset_t *);
    int (*attr_destroy)(pthread_attr_t *);
    void (*exit)(int) __attribute__((noreturn));
    void (*_exit)(int) __attribute__((noreturn));
    int (*fflush)(void *);
    int (*on_exit)(void (*)(int, void *), void *);
    int (*mallopt)(int, int);
    char ***environ;
    char **progname;
    char **progname_full;
    int (*fclose)(void *);
    int (*setvbuf)(void *, char *, int, size_t);
    int linebuf; /* its stdout was made line buffered (shared) */
    int (*sigaction)(int, const struct sigaction *, struct sigaction *);
    void (*(*signal)(int, void (*)(int)))(int);
    unsigned (*alarm)(unsigned);
    int (*setitimer)(int, const struct itimerval *, struct itimerval *);
    int (*getitimer)(int, struct itimerval *);
    int (*getopt)(int, char *const *, const char *);
    int (*getopt_long)(int, char *const *, const char *, const struct option *,
                       int *);
    int (*getopt_long_only)(int, char *const *, const char *,
                            const struct option *, int *);
    void *std[3]; /* the libc's stdin, stdout, stderr FILE objects */
    /* getopt of the tasks sharing this namespace (pip_hooks.c) */
    volatile int getopt_lock;
    struct pip_task *volatile getopt_owner;
    int opt_private; /* libc's getopt variables are the two below */
    int opt_ints[3]; /* optind, opterr, optopt as libc uses them */
    char *opt_arg;   /* optarg */
};

/* ELF facts about a task program gathered by the loader. */
#define PIP_ELF_MAX_RW 4
struct pip_elf_info {
    int has_tls;
    uint64_t tls_vaddr, tls_filesz, tls_memsz, tls_align;
    uint64_t fini_array, fini_arraysz, fini; /* unrelocated vaddrs / size */
    uint64_t init_array, init_arraysz, init; /* run by libpip, not ld.so */
    uint64_t dyn_offset, dyn_size;           /* PT_DYNAMIC in the file */
    uint64_t rela, relasz, relaent, symtab, strtab; /* for copy relocations */
    uint64_t jmprel, pltrelsz;                      /* PLT relocations */
    int nrw; /* writable PT_LOAD segments */
    uint64_t rw_vaddr[PIP_ELF_MAX_RW], rw_memsz[PIP_ELF_MAX_RW];
    uint64_t relro_vaddr, relro_memsz; /* PT_GNU_RELRO */
};

/* A saved range of a program image's writable data (see pip_image). */
struct pip_snap {
    uintptr_t addr; /* start in the image (page aligned or range start) */
    size_t len;
    char *data; /* NULL: the range was all zero */
};

/*
 * One loaded copy of a program.  When its task has been reaped the image is
 * idle and a later task of the same file reuses it: its writable data is
 * put back to the state right after loading (snapshot) instead of loading
 * a new copy.  Images are never unloaded (the root's exit would run their
 * destructors again, and a namespace's libc cannot be unloaded).
 */
struct pip_image {
    struct pip_image *next; /* all images of the root */
    struct pip_ns *ns;
    int busy;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    void *handle;
    uintptr_t l_addr;
    struct pip_elf_info elf;
    void (*ns_enter)(void *);  /* the namespace libpip's pip_ns_enter_ */
    void (**fini_saved)(void); /* the program's DT_FINI_ARRAY, as loaded */
    size_t nfini;
    int snapped; /* writable data saved before the constructors: 1; -1
                    failed (never reused); 0 not yet */
    int nsnap;
    struct pip_snap *snap;
};

/* One named export. Allocated from the root's export arena. */
struct pip_named {
    struct pip_named *next;
    void *addr;
    char name[];
};

struct pip_task {
    int pipid;
    volatile int state; /* enum pip_task_state */
    int mode;           /* PIP_MODE_PTHREAD / PIP_MODE_PROCESS */
    pid_t pid;          /* process mode: the task's PID; thread: its TID */
    volatile pid_t tid; /* kernel TID of the task's main thread */
    pthread_t thread;   /* pthread_t in the task namespace */
    volatile int *tidp; /* glibc's tid word: cleared by the kernel at exit */
    volatile int ended; /* exit path reached (status valid) */
    int status;         /* waitpid-style status (thread mode) */
    int reaped_status;

    void *exp;   /* unnamed export */
    int exp_set; /* pip_export() done (PiP: once only) */
    void *aux;
    struct pip_named *named;   /* named exports (under root->lock) */
    volatile uint32_t exp_seq; /* bumped (futex) on each export and at end */
    volatile uint32_t
        ended_gen; /* tasks of this pipid reaped so far (kept across spawns) */

    /* loader */
    struct pip_ns *ns;
    struct pip_image *img;
    int (*mainf)(int, char **, char **);
    int (*funcf)(void *);
    void *funcarg;

    /* start */
    int argc;
    char **argv; /* root-malloc'ed copies */
    char **envv;
    char *progname_full;
    char *progname;
    uint32_t coreno;
    pip_spawn_hook_t hook;
    int stop_on_start;

    /* memory */
    void *stack; /* task stack (mmap) */
    size_t stack_size;
    void *cstack; /* process mode: the clone child's stack */
    size_t cstack_size;
    volatile int clone_tid;   /* clone child: CLONE_CHILD_CLEARTID word */
    volatile int leader_free; /* clone child: done with the root's thread
                                 block (it stays, asleep, as the leader) */
    volatile int start_err;   /* clone child: pthread_create result */
    sigset_t start_mask;      /* signal mask the task starts with */
    int start_blocked; /* private image: pip_taskstart.so sets start_mask */

    jmp_buf exit_jmp; /* exit() of the task's main thread returns here */
    volatile int exit_jmp_ok;
    volatile int exiting;   /* in its exit handler */
    volatile int clean_end; /* ended through its exit handler */
    volatile int kill_sig;  /* thread mode: the fatal signal pip_kill sent */
    int getopt_begun;       /* its first getopt call is behind it */
    /* thread mode: its own handlers of the signals in pip_hooks.c's
       pip_vsigs, and its own ITIMER_REAL (a POSIX timer) */
    struct sigaction vsig[5];
    int vtimer_ok;
    timer_t vtimer;
    int opt_ints[3]; /* its optind, opterr, optopt if the program */
    char *opt_arg;   /* has no copy of them (pip_hooks.c) */

    /* process mode, private image (pip_image.c) */
    int priv;       /* runs its own loader copy */
    void *ld_start; /* the loader copy's mapping */
    size_t ld_span;
    uintptr_t priv_rdebug;        /* the copy's _r_debug (its link map) */
    char *interp;                 /* the program's PT_INTERP */
    char *priv_prog;              /* the program's path */
    uintptr_t fixed_lo, fixed_hi; /* non-PIE program: its fixed range */
    void *priv_sp;                /* initial stack pointer */
    uintptr_t priv_entry;         /* the loader copy's entry */
    volatile unsigned long *priv_pid_slot; /* PIP_AT_PID's value */
    struct pip_region *region; /* its address range (pip_region.c) */
    uint32_t region_key;       /* the range's base >> 33 (the filter) */
    int region_sock;           /* child's end: its listener goes back */
    volatile int priv_keep;    /* another task may use its memory after it
                                  ended: it ran libpip, or pip_get_addr
                                  looked into it */
    volatile int end_word;     /* cleared by the kernel when the task ends */
};

struct pip_root {
    int magic;
    int ntasks;
    int mode; /* PIP_MODE_PTHREAD / PIP_MODE_PROCESS */
    /* what pip_get_mode reports (PiP's variant names) */
    int mode_shown;
    size_t stack_size;
    int stop_on_start; /* pipid, -1 all, PIP_PIPID_NULL none */
    int private_fds;   /* PIP_FDS=private: thread-mode tasks' own fd table */
    int share_ns;      /* PIP_SHARE_NAMESPACES: thread mode may share */
    pid_t pid;
    pid_t tid;
    pthread_t thread;
    void *exp;
    void *aux;
    struct pip_named *named;
    volatile uint32_t exp_seq;
    volatile int finalized;

    volatile int lock;        /* spin-then-futex lock for exports */
    volatile int loader_lock; /* pip_glibc_lock (recursive: owner, depth) */
    volatile pid_t loader_owner;
    int loader_depth;
    volatile int universal_lock; /* pip_universal_lock */
    volatile uint32_t end_seq;   /* bumped (futex) when a task ends */
    size_t tid_offset; /* offset of glibc's tid word in struct pthread */

    size_t tls_reserve; /* round_up(memsz, align) of the root's PT_TLS */
    size_t tls_memsz;   /* its p_memsz */
    size_t tls_align;
    size_t static_tls_size;
    cpu_set_t cpuset; /* root's affinity at pip_init */
    int ncpus;
    int ncpus_conf; /* CPUs configured in the system (ABS limit) */

    char *arena; /* bump allocator for named exports */
    size_t arena_size;
    size_t arena_used;

    int nns_max;             /* namespaces to create at most */
    int nns;                 /* namespaces created */
    unsigned long image_seq; /* images loaded (unique load names) */
    struct pip_image *images;
    void **retired;          /* strings a namespace's libc may still read */
    struct pip_kept *kept;   /* reaped tasks' stacks, unmapped by pip_fin */
    size_t map_size;         /* size of this mmap */
    struct pip_ns *nss;      /* nns_max namespace slots */
    struct pip_task tasks[]; /* ntasks + 1 (the last is the root) */
};

/* What the root writes into each task namespace's libpip copy. */
struct pip_ns_link {
    struct pip_root *root;
    struct pip_ns *ns;
};

/* ---- pip_base.c: the globals of this copy of libpip ---- */
PIP_HIDDEN extern struct pip_root *pip_root_; /* root state (root and tasks) */
/* pip_root_, taken from pip_ns_link_ in a task namespace's copy. */
PIP_HIDDEN struct pip_root *pip_get_root(void);
/* The calling task, NULL in the root (and in a task thread libpip cannot
 * attribute: see pip_check_init). */
PIP_HIDDEN struct pip_task *pip_self(void);
/* Called by the root's start code on a task's main thread (found with
 * dlsym in the task's namespace); not part of the API. */
__attribute__((visibility("default"))) void pip_ns_enter_(void *task);
/* This copy of libpip serves tasks (it lives in a task namespace). */
#define pip_is_task_copy() (pip_ns_link_.root != NULL)
extern __attribute__((
    visibility("default"))) struct pip_ns_link pip_ns_link_; /* for dlsym */
PIP_HIDDEN int
pip_check_root(void) PIP_WUR; /* 0 if caller is the initialised root */
PIP_HIDDEN int
pip_check_init(void) PIP_WUR; /* 0 if initialised (root or task) */
PIP_HIDDEN struct pip_task *pip_root_task(void);
PIP_HIDDEN int pip_get_task(int pipid, struct pip_task **tp) PIP_WUR;
/* The task whose main thread this is, or NULL. */
PIP_HIDDEN struct pip_task *pip_cur_task(void);
/* The task of this thread (main or created by its program). */
PIP_HIDDEN struct pip_task *pip_thread_task(void);
/* The variables behind the two above, set by pip_spawn.c and pip_hooks.c
 * as a task's threads start. */
PIP_HIDDEN extern __thread struct pip_task *pip_cur_task_;
PIP_HIDDEN extern __thread struct pip_task *pip_sig_task_;
PIP_HIDDEN long pip_raw_syscall(long n, long a1, long a2, long a3, long a4,
                                long a5, long a6);

/* ---- pip_util.c ---- */
/* 0 when all len bytes at off were read, else an errno value. */
PIP_HIDDEN int pip_pread_all(int fd, void *buf, size_t len, off_t off) PIP_WUR;
PIP_HIDDEN int pip_debug_enabled(void);
PIP_HIDDEN void pip_dbg(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
PIP_HIDDEN void pip_msg(int verbose, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A bad environment variable: remembered for pip_env_error_(). */
PIP_HIDDEN void pip_env_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* For pip-exec (not part of the API): what pip_init's EINVAL was about,
 * "NAME='value' is ...", or NULL. */
__attribute__((visibility("default"))) const char *pip_env_error_(void);
/* For pip-exec (not part of the API): let pip_init take up to n tasks in
 * process mode (at most 8192): 0, or EINVAL. */
__attribute__((visibility("default"))) int pip_ntasks_max_(int n);
PIP_HIDDEN void pip_futex_wait(volatile void *addr, int val, long timeout_ms,
                               int shared);
PIP_HIDDEN void pip_futex_wake(volatile void *addr, int n, int shared);
PIP_HIDDEN void pip_lock(volatile int *l);
PIP_HIDDEN void pip_unlock(volatile int *l);
PIP_HIDDEN int pip_parse_mode(uint32_t opts, int *modep, int *shownp) PIP_WUR;
PIP_HIDDEN int pip_parse_stacksz(size_t *szp) PIP_WUR;
PIP_HIDDEN int pip_parse_stop_on_start(void);
PIP_HIDDEN int pip_parse_fds(int *privp) PIP_WUR;
PIP_HIDDEN int pip_parse_share_ns(int *sharep) PIP_WUR;
PIP_HIDDEN int pip_parse_image(void) PIP_WUR;
PIP_HIDDEN int pip_sig_ends_process(int sig);
PIP_HIDDEN int pip_parse_namespaces(int ntasks, int *nnsp) PIP_WUR;
PIP_HIDDEN int pip_find_tid_offset(size_t *offp) PIP_WUR;
PIP_HIDDEN int pip_core_to_cpuset(uint32_t coreno, cpu_set_t *set,
                                  int *bind) PIP_WUR;
PIP_HIDDEN int pip_root_tls_info(size_t *reserve, size_t *memsz, size_t *align);
PIP_HIDDEN int pip_tls_fits(const struct pip_root *r, uint64_t memsz,
                            uint64_t align);
PIP_HIDDEN void *pip_thread_pointer(void);
/* Put the image's initial TLS where its local-exec code finds it, in the
 * calling thread. */
PIP_HIDDEN void pip_tls_fill(const struct pip_image *img);

/* Close what an exec would close (raw system calls only). */
PIP_HIDDEN void pip_close_cloexec(void);

/* ---- pip_elfcheck.c ---- */
PIP_HIDDEN int pip_elf_check(const char *path, const char *func, int verbose,
                             struct pip_elf_info *info) PIP_WUR;
/* The unrelocated address of func (NULL: main) in the file's full symbol
 * table: 0, or ENOEXEC. */
PIP_HIDDEN int pip_elf_local_start(const char *path, const char *func,
                                   uint64_t *vaddr) PIP_WUR;
/* The unrelocated address of `name` in the file (symtab, else dynsym): 0,
 * or ENOENT. */
PIP_HIDDEN int pip_elf_file_sym(const char *path, const char *name,
                                uint64_t *vaddr) PIP_WUR;

/* ---- pip_hooks.c ---- */
PIP_HIDDEN void pip_hooks_install(struct pip_image *img);
PIP_HIDDEN void pip_getopt_release(struct pip_task *t);
PIP_HIDDEN int pip_ns_getopt_init(struct pip_ns *ns);
PIP_HIDDEN void pip_vtimer_delete(struct pip_task *t);

/* ---- pip_entry.c ---- */
/* main's unrelocated address from glibc's _start at e_entry (a stripped
 * program): 0, or ENOEXEC. */
PIP_HIDDEN int pip_elf_entry_main(int fd, const Elf64_Ehdr *eh,
                                  uint64_t *vaddr) PIP_WUR;

/* ---- pip_preload.c ---- */
/* PIP_NS_PRELOAD into a new namespace: *lmidp LM_ID_NEWLM (unset) or the
 * namespace; 0, or -1 and *errp the loader's message. */
PIP_HIDDEN int pip_ns_preload(long *lmidp, const char **errp) PIP_WUR;
/* pip_taskstart.so, which a private-image task with a range preloads (its
 * loader runs with its signals blocked): its path, or NULL if missing. */
PIP_HIDDEN const char *pip_taskstart_path(void);

/* ---- pip_loader.c ---- */
PIP_HIDDEN int pip_load(struct pip_task *t, const char *path,
                        const char *func) PIP_WUR;

PIP_HIDDEN int pip_image_init(struct pip_task *t) PIP_WUR;
PIP_HIDDEN void pip_image_release(struct pip_task *t);

/* ---- pip_spawn.c ---- */
PIP_HIDDEN void pip_task_cleanup(struct pip_task *t);

/* ---- pip_image.c: process mode's private process image ---- */
/* Auxiliary vector entries libpip adds for a private-image task (ld.so
 * ignores them; getauxval finds them): the root's state, the task's slot,
 * the task's PID (so that a process it execs does not take them). */
#define PIP_AT_ROOT 0x70697030UL
#define PIP_AT_TASK 0x70697031UL
#define PIP_AT_PID  0x70697032UL
/* The address of the mask a task started with its signals blocked sets
 * (pip_taskstart.c, which has its own copy of the value). */
#define PIP_AT_SIGMASK 0x70697033UL
/* Start task `t` (argv, envv, progname set) from main in a private image:
 * 0, or an errno value (t's memory is released by pip_task_cleanup). */
PIP_HIDDEN int pip_image_spawn(struct pip_task *t, const char *prog) PIP_WUR;
/* Reaped with waitpid status st: runs the "after" hook; the status. */
PIP_HIDDEN int pip_image_reaped(struct pip_task *t, int st);
/* The unrelocated, page-aligned PT_LOAD span of an ELF file: 0, or errno. */
PIP_HIDDEN int pip_elf_load_span(const char *path, uintptr_t *lo,
                                 uintptr_t *hi) PIP_WUR;
/* ---- pip_imgend.c: a private-image task's end ---- */
/* pip_get_addr for a private-image task. */
PIP_HIDDEN int pip_image_get_addr(struct pip_task *t, const char *symbol,
                                  void **addrp) PIP_WUR;
/* PIP_IMAGE: 1 private images (default), 0 namespaces (process mode). */
PIP_HIDDEN int pip_image_wanted(void);
/* At cleanup: return the task's memory (unless kept for its exports). */
PIP_HIDDEN void pip_image_reclaim(struct pip_task *t);
/* In a private-image task's copy of libpip: attach to the root. */
PIP_HIDDEN void pip_image_attach(void);

/* ---- pip_region.c: a private-image task's address range ---- */
/* Bytes of a range (a power of two; aligned to it: the filter compares
 * instruction_pointer >> 33). */
#define PIP_REGION_SIZE (8UL << 30)
struct pip_region;
PIP_HIDDEN struct pip_region *pip_region_new(void);
PIP_HIDDEN uintptr_t pip_region_base(const struct pip_region *g);
PIP_HIDDEN void *pip_region_take(struct pip_region *g, size_t len);
PIP_HIDDEN int pip_region_serve(struct pip_region *g, pid_t pid, int lfd);
PIP_HIDDEN int pip_region_holds(const struct pip_region *g, uintptr_t a);
PIP_HIDDEN void pip_region_release(struct pip_region *g, int keep);
PIP_HIDDEN void pip_region_fin(void);
/* In the clone child (raw system calls): its seccomp filter, and its
 * listener sent back through t->region_sock.  0, or -1. */
PIP_HIDDEN int pip_region_child_filter(struct pip_task *t);
/* In the root: the listener the child sent, or -1. */
PIP_HIDDEN int pip_region_recv_listener(int sock);

/* ---- pip_taskend.c ---- */
/* Thread mode: the signal that ends a task as if killed by a signal. */
#define PIP_SIG_TASKEND (SIGRTMAX - 3)
PIP_HIDDEN int pip_thread_signals_init(void) PIP_WUR;
/* kill_sig | PIP_KILL_EXIT: the task ends with exit status kill_sig & 0xff
 * (an _exit() in another thread of it). */
#define PIP_KILL_EXIT 0x10000
/* Thread mode: in a task thread, before user code: trap the task's
 * exit_group (see pip_taskend.c).  0, or an errno value. */
PIP_HIDDEN int pip_thread_exit_guard(struct pip_task *t);
PIP_HIDDEN int pip_thread_exit_guard_ok(void);
PIP_HIDDEN int pip_thread_kill(struct pip_task *t, int sig);
PIP_HIDDEN void pip_ns_setup_exit(struct pip_ns *ns);
/* The exit handler each task registers (on_exit). */
PIP_HIDDEN void pip_exit_handler(int status, void *arg);

/* ---- pip_wait.c ---- */
PIP_HIDDEN int pip_task_ended(struct pip_task *t);
PIP_HIDDEN int pip_task_alive(struct pip_task *t);
/*
 * An ended task's state stays valid until pip_fin, as in PiP: other tasks
 * may still read its stack, its image's data or its named exports after
 * the root reaped it.  pip_wait keeps the stack here (and the image out of
 * reuse, the named exports on the pipid's slot); pip_fin frees them.
 */
struct pip_kept {
    struct pip_kept *next;
    void *stack;
    size_t size;
    size_t keep_top; /* bytes at the top that stay mapped even then */
};
PIP_HIDDEN void pip_kept_release(struct pip_root *r);

/* ---- pip_registry.c: the table pips reads (best effort, root only) ---- */
PIP_HIDDEN void pip_registry_init(void); /* after the root state exists */
PIP_HIDDEN void pip_registry_task_start(struct pip_task *t, const char *prog);
PIP_HIDDEN void pip_registry_task_end(struct pip_task *t); /* when reaped */
PIP_HIDDEN void pip_registry_fin(void);

#endif /* PIP_INTERNAL_H */
