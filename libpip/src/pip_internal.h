/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_internal.h: private declarations of libpip.
 *
 * State layout: the root allocates one `struct pip_root` with mmap (not
 * malloc: tasks in other namespaces read and write it with their own libc).
 * Every task that links libpip gets its own copy of libpip in its namespace;
 * the root fills that copy's `pip_ns_link_` (found with dlsym) so that the
 * copy knows the root's state and which task it serves.
 */
#ifndef PIP_INTERNAL_H
#define PIP_INTERNAL_H

#include <pip/pip.h>

#include <dlfcn.h>
#include <link.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>

#define PIP_HIDDEN __attribute__((visibility("hidden")))
#define PIP_WUR    __attribute__((warn_unused_result))

#define PIP_ROOT_MAGIC 0x50695052 /* "PiPR" */

/* Task slot states. */
enum pip_task_state {
    PIP_TASK_FREE = 0, /* never used or reaped */
    PIP_TASK_LOADING,  /* spawn in progress */
    PIP_TASK_RUNNING,  /* started (may have ended but not reaped yet) */
};

/*
 * A namespace slot: one dlmopen() link-map namespace.  Today every task owns
 * one; the abstraction lets a later version load several distinct program
 * images (one memfd copy each) into one namespace and share its libc.
 */
struct pip_ns {
    Lmid_t lmid;
    void *libc; /* handle of the namespace's libc.so.6 */
    int users;  /* tasks loaded into it */
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
    char ***environ;
    char **progname;
    char **progname_full;
};

/* One named export. Allocated from the root's export arena. */
struct pip_named {
    struct pip_named *next;
    void *addr;
    char name[];
};

/* ELF facts about a task program gathered by the loader. */
struct pip_elf_info {
    int has_tls;
    uint64_t tls_vaddr, tls_filesz, tls_memsz, tls_align;
    uint64_t fini_array, fini_arraysz, fini; /* unrelocated vaddrs / size */
    uint64_t dyn_offset, dyn_size;           /* PT_DYNAMIC in the file */
    uint64_t rela, relasz, relaent, symtab, strtab; /* for copy relocations */
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

    void *exp; /* unnamed export */
    void *aux;
    struct pip_named *named;   /* named exports (under root->lock) */
    volatile uint32_t exp_seq; /* bumped (futex) on each export and at end */
    volatile uint32_t
        ended_gen; /* tasks of this pipid reaped so far (kept across spawns) */

    /* loader */
    struct pip_ns *ns;
    void *handle;     /* dlmopen handle of the program */
    uintptr_t l_addr; /* load bias of the program */
    struct pip_elf_info elf;
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
    volatile int clone_tid; /* clone child: CLONE_CHILD_CLEARTID word */
    volatile int start_err; /* clone child: pthread_create result */
    sigset_t start_mask;    /* signal mask the task starts with */

    jmp_buf exit_jmp; /* thread mode: exit() catcher returns here */
    volatile int exit_jmp_ok;
};

struct pip_root {
    int magic;
    int ntasks;
    int mode; /* PIP_MODE_PTHREAD / PIP_MODE_PROCESS */
    size_t stack_size;
    int stop_on_start; /* pipid, -1 all, PIP_PIPID_NULL none */
    pid_t pid;
    pid_t tid;
    pthread_t thread;
    void *exp;
    void *aux;
    struct pip_named *named;
    volatile uint32_t exp_seq;
    volatile int finalized;

    volatile int lock;         /* spin-then-futex lock for exports */
    volatile int loader_lock;  /* pip_glibc_lock */
    volatile uint32_t end_seq; /* bumped (futex) when a task ends */
    size_t tid_offset; /* offset of glibc's tid word in struct pthread */

    size_t tls_reserve; /* round_up(memsz, align) of the root's PT_TLS */
    size_t tls_align;
    size_t static_tls_size;
    cpu_set_t cpuset; /* root's affinity at pip_init */
    int ncpus;
    int ncpus_conf; /* CPUs configured in the system (ABS limit) */

    char *arena; /* bump allocator for named exports */
    size_t arena_size;
    size_t arena_used;

    size_t map_size;         /* size of this mmap */
    struct pip_ns *nss;      /* ntasks namespace slots */
    struct pip_task tasks[]; /* ntasks + 1 (the last is the root) */
};

/* What the root writes into each task namespace's libpip copy. */
struct pip_ns_link {
    struct pip_root *root;
    struct pip_task *task;
};

/* ---- globals of this copy of libpip ---- */
PIP_HIDDEN extern struct pip_root *pip_root_; /* root state (root and tasks) */
PIP_HIDDEN extern struct pip_task *pip_self_; /* NULL in the root */
extern __attribute__((
    visibility("default"))) struct pip_ns_link pip_ns_link_; /* for dlsym */

/* ---- pip_util.c ---- */
PIP_HIDDEN int pip_debug_enabled(void);
PIP_HIDDEN void pip_dbg(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
PIP_HIDDEN void pip_msg(int verbose, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
PIP_HIDDEN long pip_raw_syscall(long n, long a1, long a2, long a3, long a4,
                                long a5, long a6);
PIP_HIDDEN void pip_futex_wait(volatile void *addr, int val, long timeout_ms,
                               int shared);
PIP_HIDDEN void pip_futex_wake(volatile void *addr, int n, int shared);
PIP_HIDDEN void pip_lock(volatile int *l);
PIP_HIDDEN void pip_unlock(volatile int *l);
PIP_HIDDEN int pip_parse_mode(uint32_t opts, int *modep) PIP_WUR;
PIP_HIDDEN int pip_parse_stacksz(size_t *szp) PIP_WUR;
PIP_HIDDEN int pip_parse_stop_on_start(void);
PIP_HIDDEN int pip_find_tid_offset(size_t *offp) PIP_WUR;
PIP_HIDDEN int pip_core_to_cpuset(uint32_t coreno, cpu_set_t *set,
                                  int *bind) PIP_WUR;
PIP_HIDDEN int pip_root_tls_info(size_t *reserve, size_t *align);
PIP_HIDDEN void *pip_thread_pointer(void);

/* ---- pip_init.c ---- */
PIP_HIDDEN int
pip_check_root(void) PIP_WUR; /* 0 if caller is the initialised root */
PIP_HIDDEN int
pip_check_init(void) PIP_WUR; /* 0 if initialised (root or task) */
PIP_HIDDEN struct pip_task *pip_root_task(void);
PIP_HIDDEN int pip_get_task(int pipid, struct pip_task **tp) PIP_WUR;
PIP_HIDDEN int pip_task_alive(struct pip_task *t);
PIP_HIDDEN void *pip_arena_alloc(size_t sz);

/* ---- pip_loader.c ---- */
PIP_HIDDEN int pip_elf_check(const char *path, const char *func, int verbose,
                             struct pip_elf_info *info) PIP_WUR;
PIP_HIDDEN int pip_load(struct pip_task *t, const char *path,
                        const char *func) PIP_WUR;
PIP_HIDDEN void pip_unload(struct pip_task *t);

/* ---- pip_spawn.c ---- */
PIP_HIDDEN void pip_task_cleanup(struct pip_task *t);

/* ---- pip_wait.c ---- */
PIP_HIDDEN int pip_task_ended(struct pip_task *t);

/* ---- pip_registry.c: the table pips reads (best effort, root only) ---- */
PIP_HIDDEN void pip_registry_init(void); /* after the root state exists */
PIP_HIDDEN void pip_registry_task_start(struct pip_task *t, const char *prog);
PIP_HIDDEN void pip_registry_task_end(struct pip_task *t); /* when reaped */
PIP_HIDDEN void pip_registry_fin(void);

#endif /* PIP_INTERNAL_H */
