/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pip.h
 * @brief Process-in-Process (PiP) v2 compatible API.
 *
 * libpip loads several programs ("tasks") into the address space of one
 * "root" process.  Each task gets its own image of its program in a glibc
 * dlmopen() namespace, hence its own copy of every global variable of its
 * program (and, while it has its namespace to itself, of libc: environ,
 * stdio buffers, __progname), while any task can read or write the memory
 * of any other task through plain pointers.
 *
 * ERROR CONTRACT
 *   Every function returning `int` returns 0 on success or a POSITIVE errno
 *   value (EINVAL, EPERM, ...) on failure.  The functions do NOT set the
 *   global `errno`.
 *
 * EXECUTION MODES
 *   - process mode (PIP_MODE_PROCESS, the default): each task has its own
 *     PID, its own copy of the root's file-descriptor table (descriptors
 *     marked close-on-exec are closed, as exec would), its own signal
 *     handlers; memory is shared.  exit() in a task ends that task only,
 *     runs its atexit handlers and destructors and flushes its stdio.
 *     Implemented with clone(CLONE_VM) on unmodified glibc; PiP's names of
 *     its process-mode variants (PIP_MODE_PROCESS_PRELOAD, _PIPCLONE, and
 *     PIP_MODE=process:preload, process:pipclone, process:got) select it,
 *     and pip_get_mode()/pip_get_mode_str() report the name asked for
 *     (process:preload when none was), as PiP 2.4.1 reports its variant.
 *   - thread mode (PIP_MODE_PTHREAD): tasks are threads of the root's
 *     process (shared PID, fds, signal handlers).  A task ends by returning
 *     from main (or its start function), by pip_exit(), or by exit(): in
 *     thread mode libpip intercepts the task's exit() so that it ends only
 *     that task (its atexit handlers run and its stdio is flushed).
 *     _exit()/_Exit() end only the task too where the kernel has seccomp
 *     (see pip-exec(1)); a fault (SIGSEGV ...) ends the whole process.
 *
 * THREAD-LOCAL STORAGE
 *   A program built as a plain PIE (`cc -fPIE -pie -rdynamic`) reaches its
 *   __thread variables at a fixed offset from the thread pointer (the
 *   local-exec model: below it on x86-64, after the 16-byte TCB on
 *   aarch64).  libpip makes this work by copying the task's TLS
 *   initialisation image into the root executable's own TLS block at task
 *   start; the root (pip-exec does) must therefore reserve enough static
 *   TLS of its own.  A task whose TLS does not fit is refused with
 *   ELIBEXEC.  Threads created by a task itself start with the root's
 *   TLS initialisation image, not the task's.
 *
 * START-UP AND END OF A TASK
 *   In pip_task_spawn(), libpip sets the namespace's environ, __progname,
 *   __progname_full (program_invocation_name/_short_name), redoes the
 *   program's copy relocations (stdin/stdout/stderr, environ, optind, ...)
 *   and then runs the program's constructors (with argc, argv, envp), in
 *   the root's thread, once per task (stdio works there).
 *   At the end (return from main, exit(), pip_exit()) the task's atexit
 *   handlers, its destructors (.fini_array) and the "after" hook run in the
 *   task, and its stdio is flushed.  A fatal signal loses unflushed output.
 *
 * ENVIRONMENT
 *   PIP_MODE          thread | pthread | process | process:preload |
 *                     process:got | process:pipclone (the last three: names
 *                     of process mode)
 *   PIP_STACKSZ       stack size of a task: a bare number is KiB; suffixes
 *                     b (bytes), k, m, g, t.  Falls back to KMP_STACKSIZE,
 *                     then OMP_STACKSIZE.  Default 8 MiB, minimum 16 KiB.
 *                     A bad value: a warning and the default (as PiP 2.4).
 *   PIP_STOP_ON_START pipid of a task (negative: every task) that stops
 *                     itself with SIGSTOP before user code, for a debugger.
 *   PVAS_LOG          pip:debug prints one-line reasons for failures on
 *                     stderr (PIP_DEBUG=1: deprecated alias).
 *   PIP_NAMESPACES    dlmopen namespaces a root creates at most, 1..15
 *                     (default 8); more tasks share them.
 *
 * LIMITS
 *   Up to PIP_NTASKS_MAX tasks per root on stock glibc.  The first
 *   PIP_NAMESPACES tasks get a dlmopen namespace (a libc) each; later ones
 *   share a namespace's libc (environ, stdio buffers, atexit list) while
 *   keeping private program globals: see libpip(7), NAMESPACES.
 */
#ifndef PIP_PIP_H
#define PIP_PIP_H

#include <pip/pip_config.h>
#include <pip/pip_machdep.h>

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
/* sigset_t is POSIX: strict ISO C (-std=c99, -std=c11) without a feature
 * macro does not declare it.  glibc's __sigset_t is the same type. */
#include <bits/types/__sigset_t.h>

/*
 * The PiP version whose API this header provides (PiP 2.4.1): code written
 * for PiP tests these to take its v2 paths.  pipcc defines them too.
 */
#ifndef PIP_VERSION_MAJOR
#define PIP_VERSION_MAJOR 2
#endif
#ifndef PIP_VERSION_MINOR
#define PIP_VERSION_MINOR 4
#endif
#ifndef PIP_VERSION_SUBMINOR
#define PIP_VERSION_SUBMINOR 1
#endif
/* PiP 2.4 and later define this. */
#define PIP_HAVE_LDPIP

/* PiP's pip.h defines this for its inline functions; programs may use it. */
#ifndef INLINE
#define INLINE inline static
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the public API; everything else in libpip is hidden. */
#ifndef PIP_EXPORT
#define PIP_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------------ */
/* Constants                                                                */
/* ------------------------------------------------------------------------ */

#define PIP_OPTS_NONE (0x0)

/*
 * PiP 2.4.1's mode values.  libpip has one process mode; the names of
 * PiP's process-mode variants select it too, and pip_get_mode() reports
 * the variant name it was asked for (PIP_MODE_PROCESS_PRELOAD by default,
 * what PiP 2.4.1 runs on stock glibc).
 */
#define PIP_MODE_PTHREAD          (0x1000) /**< thread mode */
#define PIP_MODE_PROCESS_PRELOAD  (0x0100) /**< process mode (PiP's default) */
#define PIP_MODE_PROCESS_PIPCLONE (0x0400) /**< process mode, PiP's name */
#define PIP_MODE_PROCESS_GOT_OBS  (0x8000) /**< obsolete (EINVAL in opts) */
#define PIP_MODE_MASK             (0xFF00)
/** Process mode, whichever variant: PiP 2.4.1's value. */
#define PIP_MODE_PROCESS (PIP_MODE_PROCESS_PRELOAD | PIP_MODE_PROCESS_PIPCLONE)

/** Every bit pip_init() and pip_task_spawn() accept in `opts`. */
#define PIP_VALID_OPTS                                                         \
    (PIP_MODE_PTHREAD | PIP_MODE_PROCESS_PRELOAD | PIP_MODE_PROCESS_GOT_OBS |  \
     PIP_MODE_PROCESS_PIPCLONE)

#define PIP_ENV_MODE                  "PIP_MODE"
#define PIP_ENV_MODE_THREAD           "thread"
#define PIP_ENV_MODE_PTHREAD          "pthread"
#define PIP_ENV_MODE_PROCESS          "process"
#define PIP_ENV_MODE_PROCESS_PRELOAD  "process:preload"
#define PIP_ENV_MODE_PROCESS_GOT      "process:got"
#define PIP_ENV_MODE_PROCESS_PIPCLONE "process:pipclone"
#define PIP_ENV_STACKSZ               "PIP_STACKSZ"
#define PIP_ENV_STOP_ON_START         "PIP_STOP_ON_START"
/* Environment names of PiP 2.4's header.  libpip reads none of these:
 * there is no preload library, and PiP-gdb's automatic attach on a fatal
 * signal is not provided (see libpip/README.md). */
#define PIP_ENV_PRELOAD     "PIP_PRELOAD"
#define PIP_ENV_GDB_PATH    "PIP_GDB_PATH"
#define PIP_ENV_GDB_COMMAND "PIP_GDB_COMMAND"
#define PIP_ENV_GDB_SIGNALS "PIP_GDB_SIGNALS"
#define PIP_ENV_SHOW_MAPS   "PIP_SHOW_MAPS"
#define PIP_ENV_SHOW_PIPS   "PIP_SHOW_PIPS"
#define PIP_ENV_QUIET       "PIP_QUIET"

#define PIP_MAGIC_NUM    (-747)
#define PIP_PIPID_ROOT   (-748) /**< the root */
#define PIP_PIPID_MYSELF (-749) /**< the caller */
#define PIP_PIPID_SELF   PIP_PIPID_MYSELF
#define PIP_PIPID_ANY    (-750) /**< let the library choose (spawn) */
#define PIP_PIPID_NULL   (-751) /**< no task */

/**
 * The most tasks pip_init() accepts (EOVERFLOW above).  Note that on stock
 * glibc far fewer tasks can actually be loaded at once (see LIMITS).
 */
#define PIP_NTASKS_MAX (300)

#define PIP_CPUCORE_FLAG_SHIFT (24)
#define PIP_CPUCORE_FLAG_MASK  (~((1U << PIP_CPUCORE_FLAG_SHIFT) - 1))
#define PIP_CPUCORE_ASIS       (1U << PIP_CPUCORE_FLAG_SHIFT) /**< do not bind */
#define PIP_CPUCORE_ABS                                                        \
    (2U << PIP_CPUCORE_FLAG_SHIFT) /**< | absolute core id */
/** Core numbers are below this (PiP: EINVAL from this value up). */
#define PIP_CPUCORE_CORENO_MAX  (1U << 20)
#define PIP_CPUCORE_CORENO_MASK ((1U << PIP_CPUCORE_FLAG_SHIFT) - 1)

#define PIP_YIELD_DEFAULT (0x0) /**< whatever suits the mode */
#define PIP_YIELD_USER    (0x1) /**< user-level yield (same as system here) */
#define PIP_YIELD_SYSTEM  (0x2) /**< sched_yield() */

/** Default task stack size (8 MiB). */
#define PIP_STACK_SIZE_DEFAULT (8UL * 1024 * 1024)

/**
 * Alignment of the root's TLS reserve.  aarch64 (TLS variant I): a
 * program's TLS block starts at tp + round_up(16, its alignment), and
 * glibc hands the gap below a more aligned root block to other modules, so
 * the root block must start right after the 16-byte TCB, where tasks with
 * an alignment up to 16 expect theirs.
 */
#if defined(__aarch64__)
#define PIP_ROOT_TLS_ALIGN 16
#else
#define PIP_ROOT_TLS_ALIGN 64
#endif

/**
 * Reserve `bytes` of static TLS in a root executable, so that tasks whose
 * __thread data is up to that size can be spawned (see THREAD-LOCAL
 * STORAGE).  Use once, at file scope, in the root program (not in a
 * library); pip-exec reserves 64 KiB.
 */
#define PIP_ROOT_TLS_RESERVE(bytes)                                            \
    static __thread char pip_root_tls_reserve_[(bytes)]                        \
        __attribute__((aligned(PIP_ROOT_TLS_ALIGN), used))

/* ------------------------------------------------------------------------ */
/* Types                                                                    */
/* ------------------------------------------------------------------------ */

/** What to run in a new task. */
typedef struct {
    char *prog;  /**< path of the program */
    char **argv; /**< its argv (NULL-terminated) */
    char **envv; /**< its environment; NULL: a copy of the root's environ */
    char
        *funcname; /**< NULL: start at main(); else a global int f(void *arg) */
    void *arg;     /**< argument of funcname */
    void *exp;     /**< export given to the task at start (see pip_import) */
    void *aux;     /**< per-task user pointer (see pip_get_aux) */
    void *reserved[2];
} pip_spawn_program_t;

/** Hook run before (in the new task) or after (when it ends) a task. */
typedef int (*pip_spawnhook_t)(void *);

typedef struct {
    pip_spawnhook_t
        before; /**< runs in the new task before user code; nonzero aborts it */
    pip_spawnhook_t after; /**< runs when the task ends; nonzero becomes the
                              status if it was 0 */
    void *hookarg;         /**< argument of both hooks */
    void *reserved[5];
} pip_spawn_hook_t;

/** System id of a task: the task's PID in process mode, its pthread_t in thread
 * mode. */
typedef uintptr_t pip_id_t;

/** A barrier usable by the root and any tasks (it lives in shared memory). */
typedef struct pip_barrier {
    int count_init;
    volatile uint32_t count;
    volatile int gsense;
} pip_barrier_t;

#define PIP_BARRIER_INIT(N)                                                    \
    {                                                                          \
        (N), (N), 0                                                            \
    }

/* ------------------------------------------------------------------------ */
/* Init / finalize                                                          */
/* ------------------------------------------------------------------------ */

/**
 * @brief Initialise libpip.
 *
 * In the root: set up for `*ntasks` tasks, choose the execution mode from
 * `opts` and the PIP_MODE variable (they must agree when both name a
 * mode; default process mode), read PIP_STACKSZ, and register `*root_expp` as
 * the root's export.  In a task: optional; gives its pipid, the number of tasks
 * and the root's export.
 *
 * @param pipidp    out: PIP_PIPID_ROOT in the root, the pipid in a task (may be
 * NULL)
 * @param ntasks    in (root): number of tasks, NULL means PIP_NTASKS_MAX;
 *                  out (task): the root's ntasks
 * @param root_expp in (root): the root's export (may be NULL);
 *                  out (task): the root's export
 * @param opts      PIP_MODE_* or 0
 * @return 0, or EINVAL (ntasks <= 0, a mode field in opts that names no
 *         mode, PTHREAD and PROCESS together, the obsolete process:got in
 *         opts), EBUSY (already initialised), EPERM (bad
 *         PIP_MODE value, PIP_MODE contradicting opts, a process-mode
 *         variant), EOVERFLOW (ntasks > PIP_NTASKS_MAX), ENOMEM.  opts bits
 *         outside PIP_MODE_MASK are ignored, as by PiP 2.4.
 * Thread safety: call once, from the root's main thread.
 */
PIP_EXPORT int pip_init(int *pipidp, int *ntasks, void **root_expp,
                        uint32_t opts);

/**
 * @brief Finalise libpip in the root (frees the bookkeeping).  In a task
 * it does nothing and returns 0 (as PiP).
 * @return 0, EBUSY (a task is not yet reaped by pip_wait*), EPERM (not
 *         initialised, or second call in the root).
 */
PIP_EXPORT int pip_fin(void);

/** @return nonzero when pip_init() has succeeded in this root or task. */
PIP_EXPORT int pip_is_initialized(void);

/* ------------------------------------------------------------------------ */
/* Spawn                                                                    */
/* ------------------------------------------------------------------------ */

/*
 * pip_spawn_from_main() and pip_spawn_from_func() take PiP 2.4's argument
 * lists (no `exp`) as well as the later ones with `exp` before `aux`: the
 * macros below pick the form by the number of arguments, so programs
 * written for either compile unchanged.
 *
 *   pip_spawn_from_main(progp, prog, argv, envv, aux)            PiP 2.4
 *   pip_spawn_from_main(progp, prog, argv, envv, exp, aux)
 *   pip_spawn_from_func(progp, prog, funcname, arg, envv, aux)   PiP 2.4
 *   pip_spawn_from_func(progp, prog, funcname, arg, envv, exp, aux)
 *
 * envv NULL: the task gets a copy of the root's environ at spawn time.
 */
#define PIP_NARGS_(_1, _2, _3, _4, _5, _6, _7, N, ...) N
/* the number of arguments (1 to 7) */
#define PIP_NARGS(...) PIP_NARGS_(__VA_ARGS__, 7, 6, 5, 4, 3, 2, 1, 0)
#define PIP_CAT_(a, b) a##b
#define PIP_CAT(a, b)  PIP_CAT_(a, b)

/** Fill `*p` to start `prog` (NULL: argv[0]) at main(). */
static inline void pip_spawn_from_main_6(pip_spawn_program_t *p, char *prog,
                                         char **argv, char **envv, void *exp,
                                         void *aux)
{
    size_t i;
    for (i = 0; i < sizeof(p->reserved) / sizeof(p->reserved[0]); i++)
        p->reserved[i] = NULL;
    p->prog = (prog != NULL) ? prog : (argv != NULL ? argv[0] : NULL);
    p->argv = argv;
    p->envv = envv;
    p->funcname = NULL;
    p->arg = NULL;
    p->exp = exp;
    p->aux = aux;
}

static inline void pip_spawn_from_main_5(pip_spawn_program_t *p, char *prog,
                                         char **argv, char **envv, void *aux)
{
    pip_spawn_from_main_6(p, prog, argv, envv, NULL, aux);
}

/**
 * Fill `*p` to start `prog` at `int funcname(void *arg)`: an exported
 * function, or one found in the file's own symbol table (a static one).
 */
static inline void pip_spawn_from_func_7(pip_spawn_program_t *p, char *prog,
                                         char *funcname, void *arg, char **envv,
                                         void *exp, void *aux)
{
    size_t i;
    for (i = 0; i < sizeof(p->reserved) / sizeof(p->reserved[0]); i++)
        p->reserved[i] = NULL;
    p->prog = prog;
    p->argv = NULL;
    p->envv = envv;
    p->funcname = funcname;
    p->arg = arg;
    p->exp = exp;
    p->aux = aux;
}

static inline void pip_spawn_from_func_6(pip_spawn_program_t *p, char *prog,
                                         char *funcname, void *arg, char **envv,
                                         void *aux)
{
    pip_spawn_from_func_7(p, prog, funcname, arg, envv, NULL, aux);
}

#define pip_spawn_from_main(...)                                               \
    PIP_CAT(pip_spawn_from_main_, PIP_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define pip_spawn_from_func(...)                                               \
    PIP_CAT(pip_spawn_from_func_, PIP_NARGS(__VA_ARGS__))(__VA_ARGS__)

/** Fill `*h` with spawn hooks. */
static inline void pip_spawn_hook(pip_spawn_hook_t *h, pip_spawnhook_t before,
                                  pip_spawnhook_t after, void *hookarg)
{
    size_t i;
    for (i = 0; i < sizeof(h->reserved) / sizeof(h->reserved[0]); i++)
        h->reserved[i] = NULL;
    h->before = before;
    h->after = after;
    h->hookarg = hookarg;
}

/**
 * @brief Spawn a task (root only, from the thread that called pip_init).
 *
 * The program is loaded into a private dlmopen() namespace from a private
 * copy of the file (the file itself is never modified).  The task starts
 * at main(argc, argv, envp) or at `progp->funcname(progp->arg)`.
 *
 * @param progp  what to run (see pip_spawn_program_t)
 * @param coreno PIP_CPUCORE_ASIS (no binding), PIP_CPUCORE_ABS|n (core id n),
 *               or n: the n-th available core of the root's affinity mask
 *               (taken modulo the number of available cores)
 * @param opts   0 or the mode chosen at pip_init (others: EINVAL)
 * @param pipidp in: wanted pipid or PIP_PIPID_ANY; out: the pipid given
 * @param hookp  before/after hooks, or NULL
 * @return 0, or
 *   EPERM     not initialised, or called by a task
 *   EINVAL    NULL/empty program, bad coreno, bad pipid, bad opts
 *   EBUSY     pipid in use
 *   ENOMEM    out of memory
 *   EAGAIN    the first namespace cannot be created (glibc
 *             limit), or no free pipid with PIP_PIPID_ANY
 *   ELIBACC   a shared library the program needs cannot be loaded, or
 *             the program has an undefined symbol (reported by the loader,
 *             dlmopen; pip_check_pie() does not load and never returns it)
 *   ENOENT    no such file / not a path
 *   EACCES    not an executable regular file (directories included)
 *   ELIBBAD   not an ELF file, or wrong class/machine
 *   ELIBEXEC  not a PIE (ET_DYN) program, or its TLS does not fit the
 *             root's reserve
 *   ENOEXEC   no exported main / start function (link with -rdynamic)
 * A one-line reason is printed on stderr with PVAS_LOG=pip:debug.
 */
PIP_EXPORT int pip_task_spawn(pip_spawn_program_t *progp, uint32_t coreno,
                              uint32_t opts, int *pipidp,
                              pip_spawn_hook_t *hookp);

/** @brief Older form of pip_task_spawn() starting at main(); same errors. */
PIP_EXPORT int pip_spawn(char *filename, char **argv, char **envv,
                         uint32_t coreno, int *pipidp, pip_spawnhook_t before,
                         pip_spawnhook_t after, void *hookarg);

/**
 * @brief Check whether `path` can be loaded as a task.
 * @param verbose nonzero: print a one-line reason on stderr on failure
 * @return 0, or the loader errors of pip_task_spawn() (ENOENT, EACCES,
 *         ELIBBAD, ELIBEXEC, ENOEXEC).  ENOEXEC means no exported `main`.
 */
PIP_EXPORT int pip_check_pie(const char *path, int verbose);

/**
 * @brief How many dlmopen namespaces (libc copies) pip_init(opts) would let
 *        a root create, from PIP_NAMESPACES or the mode's default (process
 *        mode 8, thread mode 15); callable before pip_init.  (Process-mode
 *        tasks started at main run private images and need none.)
 * @param opts  0 (PIP_MODE's mode), PIP_MODE_PTHREAD or a process mode
 * @param nnsp  out: the number, 1 to 15
 * @return 0, or EINVAL (bad PIP_NAMESPACES, NULL nnsp), EPERM (bad PIP_MODE
 *         or one contradicting opts), as pip_init would
 */
PIP_EXPORT int pip_namespaces_max(uint32_t opts, int *nnsp);

/* ------------------------------------------------------------------------ */
/* Export / import                                                          */
/* ------------------------------------------------------------------------ */

/**
 * @brief Publish `exp` under a printf-formatted name (root or task).
 * @return 0, EBUSY (the caller already exported that name), EINVAL
 *         (empty name), EPERM (not initialised), ENOMEM.
 */
PIP_EXPORT int pip_named_export(void *exp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/**
 * @brief Get what task `pipid` exported under the name, waiting until it does.
 *
 * If no task has been spawned with that pipid yet (or its spawn is still in
 * progress), the call waits for the root to spawn it and for the task to
 * export the name: a task may import from a higher pipid that the root has
 * not spawned yet.  It returns ECANCELED once the task of that pipid has
 * ended (still unreaped, or reaped by pip_wait*) without exporting the name;
 * after a task of that pipid was reaped, a FREE slot gives ECANCELED until a
 * new task is spawned there.  A pipid (below ntasks) that is never spawned
 * makes the importer wait for ever, as waiting on a condition variable no
 * one signals would: use pip_named_tryimport() to poll instead.
 * @return 0, ECANCELED (the task ended without exporting it), EDEADLK
 *         (pipid is the caller), EINVAL/ERANGE (bad pipid), EPERM (not
 *         initialised), ENAMETOOLONG (name longer than 1023 bytes).
 */
PIP_EXPORT int pip_named_import(int pipid, void **expp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** @brief As pip_named_import() but never waits: EAGAIN if not (yet) exported.
 */
PIP_EXPORT int pip_named_tryimport(int pipid, void **expp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * @brief Set the caller's unnamed export slot (once, as PiP).
 * @return 0, EPERM, EINVAL (exp is NULL), EBUSY (already exported).
 */
PIP_EXPORT int pip_export(void *exp);

/**
 * @brief Read task `pipid`'s unnamed export slot (NULL if nothing exported
 * yet).
 * @return 0, EPERM, EINVAL/ERANGE (bad pipid), ESRCH (no such task).
 */
PIP_EXPORT int pip_import(int pipid, void **expp);

/** @brief Set the caller's aux pointer. @return 0 or EPERM. */
PIP_EXPORT int pip_set_aux(void *aux);
/** @brief Get the caller's aux pointer. @return 0 or EPERM. */
PIP_EXPORT int pip_get_aux(void **auxp);

/**
 * @brief Address of the global symbol `symbol` in task `pipid`'s namespace.
 * @return 0, ENOENT (no such symbol), EPERM, EINVAL/ERANGE, ESRCH.
 */
PIP_EXPORT int pip_get_addr(int pipid, const char *symbol, void **addrp);

/* ------------------------------------------------------------------------ */
/* Wait (root only)                                                         */
/* ------------------------------------------------------------------------ */

/**
 * @brief Wait for task `pipid` to end and reap it.
 * @param status out: waitpid-style status (WIFEXITED/WEXITSTATUS,
 *               WIFSIGNALED/WTERMSIG); may be NULL
 * @return 0, EPERM (called by a task / not initialised), EDEADLK (pipid is
 *         the root), ECHILD (no such task, or already reaped), ERANGE
 *         (pipid out of range).
 */
PIP_EXPORT int pip_wait(int pipid, int *status);
/**
 * @brief As pip_wait() but never blocks: ECHILD while the task runs (as
 * PiP: programs poll `while (pip_trywait(id, &st) == ECHILD)`).
 */
PIP_EXPORT int pip_trywait(int pipid, int *status);
/** @brief Wait for any task; ECHILD when no task is left to reap. */
PIP_EXPORT int pip_wait_any(int *pipid, int *status);
/** @brief As pip_wait_any() but never blocks: ECHILD if no task has ended. */
PIP_EXPORT int pip_trywait_any(int *pipid, int *status);

/* ------------------------------------------------------------------------ */
/* Query                                                                    */
/* ------------------------------------------------------------------------ */

/** @brief The caller's pipid (PIP_PIPID_ROOT in the root). @return 0 or EPERM.
 */
PIP_EXPORT int pip_get_pipid(int *pipidp);
/** @brief ntasks given to pip_init(). @return 0 or EPERM. */
PIP_EXPORT int pip_get_ntasks(int *ntasksp);
/** @brief The mode: PIP_MODE_PTHREAD, or the process-mode variant asked
 * for (PIP_MODE_PROCESS_PRELOAD unless PIP_MODE or opts named another).
 * `mode & PIP_MODE_PROCESS` is non-zero in process mode.  @return 0 or EPERM.
 */
PIP_EXPORT int pip_get_mode(int *modep);
/** @return "pthread", "process:preload", "process:pipclone" or
 * "process:got" (as pip_get_mode), or NULL before pip_init(). */
PIP_EXPORT const char *pip_get_mode_str(void);

/**
 * @brief System id of `pipid` (PIP_PIPID_ROOT, PIP_PIPID_MYSELF or a task).
 *
 * Process mode: the task's PID (what getpid() returns in the task; it is
 * also the kernel TID of the task's main thread).  Thread mode: the task
 * thread's pthread_t.  For the root: getpid() / pthread_self() of the
 * root's main thread.  A task's id is valid as soon as the task runs
 * (from its "before" hook on), for the task itself and for everyone else.
 * @return 0, EPERM, ERANGE, ESRCH (no such task: never spawned, not
 *         started yet, or reaped).
 */
PIP_EXPORT int pip_get_system_id(int pipid, pip_id_t *idp);

/** @return nonzero in the root (after pip_init). */
PIP_EXPORT int pip_isa_root(void);
/** @return nonzero in a task. */
PIP_EXPORT int pip_isa_task(void);
/** @brief *flagp = 1 in thread mode, 0 in process mode. @return 0 or EPERM. */
PIP_EXPORT int pip_is_threaded(int *flagp);
/** @brief *flagp = 1 if the fd table is shared with the root (thread mode). */
PIP_EXPORT int pip_is_shared_fd(int *flagp);

/* ------------------------------------------------------------------------ */
/* Exit and signals                                                         */
/* ------------------------------------------------------------------------ */

/**
 * @brief End the calling task as if main() returned `status`.
 * In the root: exit(status).  Does not return.
 */
PIP_EXPORT void pip_exit(int status) __attribute__((noreturn));

/**
 * @brief Send SIGKILL to every live task (root only).  Thread mode: each
 * task thread ends as SIGKILL would end a process (the root goes on).
 * @return 0 or EPERM.
 */
PIP_EXPORT int pip_kill_all_tasks(void);

/** @brief Kill every task and abort the root.  Does not return. */
PIP_EXPORT void pip_abort(void) __attribute__((noreturn));

/**
 * @brief Send `signal` to task `pipid` (or PIP_PIPID_ROOT / PIP_PIPID_MYSELF).
 * Process mode: to the task's process; thread mode: to the task's thread.
 * Thread mode, as PiP: a signal whose default action ends a process (and
 * that the process neither handles, ignores nor the task blocks) ends only
 * that task, which pip_wait() reports as killed by that signal.  libpip
 * uses SIGRTMAX-3 for this in thread mode.
 * @return 0, EINVAL (bad signal), EPERM, ERANGE, ESRCH (no such task:
 *         never spawned, reaped, or a thread-mode task that ended).
 */
PIP_EXPORT int pip_kill(int pipid, int signal);

/** @brief pthread_sigmask() of the calling thread. @return 0 or EINVAL. */
PIP_EXPORT int pip_sigmask(int how, const __sigset_t *set, __sigset_t *old);

/** @brief Block until `signal` is delivered to the caller (sigwait). @return 0
 * or EINVAL. */
PIP_EXPORT int pip_signal_wait(int signal);

/* ------------------------------------------------------------------------ */
/* Synchronisation                                                          */
/* ------------------------------------------------------------------------ */

/** @brief Give up the CPU; `flag` is reserved (as PiP). @return 0, EPERM. */
PIP_EXPORT int pip_yield(int flag);

/**
 * @brief Initialise a barrier for `n` (>0) parties.
 * @return 0, EPERM (not initialised, as PiP 2.4) or EINVAL.
 */
PIP_EXPORT int pip_barrier_init(pip_barrier_t *b, int n);
/**
 * @brief Wait until `count_init` parties arrived.  Spins briefly, then
 * blocks on a futex (correct when every party shares one core).
 * @return 0 or EINVAL.
 */
PIP_EXPORT int pip_barrier_wait(pip_barrier_t *b);
/**
 * @brief Finalise a barrier.
 * @return 0, EPERM (not initialised), EBUSY (parties still waiting), EINVAL.
 */
PIP_EXPORT int pip_barrier_fin(pip_barrier_t *b);

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/** @return the kernel thread id of the caller. */
PIP_EXPORT pid_t pip_gettid(void);
/** Take / release libpip's global loader lock (serialises dlmopen and friends).
 */
PIP_EXPORT void pip_glibc_lock(void);
PIP_EXPORT void pip_glibc_unlock(void);
/** @return nonzero if libpip was built for debugging (PIP_DEBUG_BUILD). */
PIP_EXPORT int pip_is_debug_build(void);

/* ------------------------------------------------------------------------ */
/* The rest of PiP 2.4's pip.h                                              */
/* ------------------------------------------------------------------------ */

/** @brief Same as pip_kill_all_tasks() (PiP 2.4's name). */
PIP_EXPORT int pip_kill_all_child_tasks(void);

/*
 * dlopen() and friends under libpip's loader lock (recursive), as PiP's
 * wrappers; the _unsafe forms take no lock.  They act in the caller's
 * namespace (a task's own libc).
 */
PIP_EXPORT void *pip_dlopen(const char *filename, int flag);
PIP_EXPORT void *pip_dlopen_unsafe(const char *filename, int flag);
PIP_EXPORT void *pip_dlmopen(long lmid, const char *filename, int flag);
PIP_EXPORT void *pip_dlsym(void *handle, const char *symbol);
PIP_EXPORT void *pip_dlsym_unsafe(void *handle, const char *symbol);
PIP_EXPORT int pip_dlclose(void *handle);
PIP_EXPORT char *pip_dlerror(void);
PIP_EXPORT int pip_dlinfo(void *handle, int request, void *info);

/*
 * The malloc family of the caller (a task: its own libc's heap).  Memory
 * may be freed by any task or the root: every task thread has an arena of
 * its own, found from the chunk by any libc.
 */
PIP_EXPORT void *pip_malloc(size_t size);
PIP_EXPORT void pip_free(void *ptr);
PIP_EXPORT void *pip_calloc(size_t nmemb, size_t size);
PIP_EXPORT void *pip_realloc(void *ptr, size_t size);
PIP_EXPORT int pip_posix_memalign(void **memptr, size_t alignment, size_t size);
PIP_EXPORT size_t pip_malloc_usable_size(void *ptr);

/** The loader lock (same as pip_glibc_lock / pip_glibc_unlock). */
PIP_EXPORT void pip_libc_lock(void);
PIP_EXPORT void pip_libc_unlock(void);
/** One lock shared by the root and every task (not recursive). */
PIP_EXPORT void pip_universal_lock(void);
PIP_EXPORT void pip_universal_unlock(void);

/**
 * Write the caller's id into buf, as PiP 2.4: "[tid(R):R]" (root),
 * "[tid(Tpipid):Tpipid]" (task), "[tid(-):-]" (not initialised).
 * @return sz less the length written (0 when truncated), as PiP's.
 */
PIP_EXPORT size_t pip_idstr(char *buf, size_t sz);
/** One line per task slot in use, on stderr. */
PIP_EXPORT void pip_debug_info(void);
/** "PiP-INFO[id] message" (and PiP-WARN, PiP-ERR) on one line. */
PIP_EXPORT void pip_info_fmesg(FILE *fp, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
PIP_EXPORT void pip_info_mesg(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
PIP_EXPORT void pip_err_mesg(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
PIP_EXPORT void pip_warn_mesg(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif /* PIP_PIP_H */
