/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pt_util.h: helpers of the libpip test programs (header only, so each test
 * is one source file plus test/th_util.c).
 *
 * pip_init() can be called once per process and a root can load only a few
 * tasks (dlmopen namespaces), so every test case runs in a forked child that
 * becomes a fresh root.  Inside the child, checks use PT_CHECK* which print
 * the failing expression and _exit(1); the parent turns the child's status
 * into a cmocka result.  The child gets its own process group and an alarm,
 * so a hang becomes a failure and leftover process-mode tasks are killed.
 */
#ifndef PT_UTIL_H
#define PT_UTIL_H

/* cmocka needs these before its header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pip/pip.h>

#include "pt_task.h"
#include "th_util.h"

#define PT_CASE_TIMEOUT 60 /* seconds per test case */

#if defined(__SANITIZE_ADDRESS__)
/*
 * ASan builds (--enable-sanitizers): no leak checking in the test roots.
 * LeakSanitizer cannot see pointers kept in the tasks' memory (their own
 * libc heaps, not ASan's), and the helpers below keep argv and path copies
 * for the short life of a case on purpose.  Everything else ASan checks.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
#endif

static inline const char *pt_errname(int e)
{
    const char *n = e > 0 ? strerrorname_np(e) : NULL;
    return n != NULL ? n : (e == 0 ? "0" : "?");
}

/* Temporary files of the running case, removed however the case ends. */
#define PT_MAX_TMP 32
static char *pt_tmp_files[PT_MAX_TMP];
static int pt_tmp_count;

static inline void pt_remove_tmp(void)
{
    for (int i = 0; i < pt_tmp_count && i < PT_MAX_TMP; i++)
        if (pt_tmp_files[i] != NULL)
            unlink(pt_tmp_files[i]);
    pt_tmp_count = 0;
}

__attribute__((noreturn, format(printf, 3, 4))) static inline void
pt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: FAILED: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(NULL);
    pt_remove_tmp();
    _exit(1);
}

__attribute__((noreturn)) static inline void pt_skip(const char *why)
{
    fprintf(stderr, "SKIP: %s\n", why);
    fflush(NULL);
    pt_remove_tmp();
    _exit(TH_EXIT_SKIP);
}

#define PT_CHECK(cond)                                                         \
    do {                                                                       \
        if (!(cond))                                                           \
            pt_fail(__FILE__, __LINE__, "%s", #cond);                          \
    } while (0)

#define PT_CHECK_MSG(cond, ...)                                                \
    do {                                                                       \
        if (!(cond))                                                           \
            pt_fail(__FILE__, __LINE__, __VA_ARGS__);                          \
    } while (0)

/* expr must return the errno value want (0 for success). */
#define PT_CHECK_ERR(expr, want)                                               \
    do {                                                                       \
        int pt_rc_ = (expr), pt_want_ = (want);                                \
        if (pt_rc_ != pt_want_)                                                \
            pt_fail(__FILE__, __LINE__,                                        \
                    "%s returned %d (%s), expected %d (%s)", #expr, pt_rc_,    \
                    pt_errname(pt_rc_), pt_want_, pt_errname(pt_want_));       \
    } while (0)

#define PT_OK(expr) PT_CHECK_ERR(expr, 0)

/* A waitpid-style status must be a normal exit with code `code`. */
#define PT_CHECK_EXIT(st, code)                                                \
    do {                                                                       \
        int pt_st_ = (st);                                                     \
        if (!WIFEXITED(pt_st_) || WEXITSTATUS(pt_st_) != (code))               \
            pt_fail(__FILE__, __LINE__,                                        \
                    "status 0x%x: expected exit(%d), got %s %d", pt_st_,       \
                    (code), WIFEXITED(pt_st_) ? "exit" : "signal",             \
                    WIFEXITED(pt_st_) ? WEXITSTATUS(pt_st_)                    \
                                      : WTERMSIG(pt_st_));                     \
    } while (0)

/*
 * Run body in a forked child; the parent waits and reports.  fflush first so
 * buffered output is not written twice.
 */
static inline void pt_run_case(void (*body)(void), const char *name)
{
    int st = 0;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        /*
         * cmocka catches SIGSEGV & co. in the runner; process-mode tasks
         * would inherit that handler, so a crashing task would not die of
         * its signal.  Give the case (and its tasks) the default actions.
         */
        const int sigs[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,
                            SIGSYS,  SIGABRT, SIGALRM};
        for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
            signal(sigs[i], SIG_DFL);
        /*
         * A launcher may leave signals ignored (nohup: SIGHUP; a shell's
         * background job: SIGINT and SIGQUIT) or blocked, and tasks inherit
         * that: start every case with the default actions and nothing
         * blocked, as a process normally starts.
         */
        for (int s = 1; s < NSIG; s++) {
            struct sigaction sa;
            if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
                signal(s, SIG_DFL);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* SIGALRM's default action ends a hung case (and thread-mode tasks). */
        alarm(PT_CASE_TIMEOUT);
        body();
        fflush(NULL);
        pt_remove_tmp();
        exit(0);
    }
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    /* Process-mode tasks of a failed case may outlive their root. */
    kill(-pid, SIGKILL);
    if (WIFEXITED(st) && WEXITSTATUS(st) == TH_EXIT_SKIP)
        skip();
    if (WIFSIGNALED(st))
        fail_msg("%s: case process killed by signal %d%s", name, WTERMSIG(st),
                 WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("%s: case process exited with %d", name, WEXITSTATUS(st));
}

/* Declares a cmocka test `name` whose body runs as a fresh root process. */
#define PT_CASE(name)                                                          \
    static void name##_body(void);                                             \
    static void name(void **state)                                             \
    {                                                                          \
        (void)state;                                                           \
        pt_run_case(name##_body, #name);                                       \
    }                                                                          \
    static void name##_body(void)

/* Path of a program built next to this test; aborts the case if unknown. */
static inline char *pt_path(const char *name)
{
    char *p = th_sibling_path(name);
    PT_CHECK_MSG(p != NULL, "th_sibling_path(%s) failed", name);
    if (access(p, X_OK) != 0) {
        fprintf(stderr, "SETUP: %s not built\n", p);
        _exit(TH_EXIT_HARD_ERROR);
    }
    return p;
}

/* pip_init as a root for n tasks, checking the basics. */
static inline void pt_init(int n)
{
    int pipid = PIP_PIPID_NULL, ntasks = n;
    PT_OK(pip_init(&pipid, &ntasks, NULL, 0));
    PT_CHECK(pipid == PIP_PIPID_ROOT);
}

/* The mode pip_init chose; only valid after pt_init. */
static inline int pt_mode(void)
{
    int mode = 0;
    PT_OK(pip_get_mode(&mode));
    return mode;
}

static inline int pt_is_process_mode(void)
{
    return (pt_mode() & PIP_MODE_PROCESS) != 0;
}

static inline void pt_require_process_mode(void)
{
    if (!pt_is_process_mode())
        pt_skip("process mode only");
}

/*
 * Spawn program `name` (a sibling) at main() with the NULL-terminated
 * arguments after pipidp; argv[0] is the full path.  Returns
 * pip_task_spawn's result; *pipidp in: wanted pipid, out: given pipid.
 * argv lives on the heap (copies), so it stays valid whatever libpip does
 * with it; test processes are short-lived, so it is never freed.
 */
static inline int pt_spawnv(const char *name, uint32_t coreno, int *pipidp,
                            va_list ap)
{
    char **argv = calloc(64, sizeof(char *));
    int argc = 0;
    pip_spawn_program_t prog;

    PT_CHECK(argv != NULL);
    argv[argc++] = pt_path(name);
    for (char *a = va_arg(ap, char *); a != NULL && argc < 63;
         a = va_arg(ap, char *))
        argv[argc++] = strdup(a);
    argv[argc] = NULL;
    pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL, NULL);
    return pip_task_spawn(&prog, coreno, 0, pipidp, NULL);
}

static inline int pt_spawn_core(const char *name, uint32_t coreno, int *pipidp,
                                ...)
{
    va_list ap;
    va_start(ap, pipidp);
    int rc = pt_spawnv(name, coreno, pipidp, ap);
    va_end(ap);
    return rc;
}

static inline int pt_spawn(const char *name, int *pipidp, ...)
{
    va_list ap;
    va_start(ap, pipidp);
    int rc = pt_spawnv(name, PIP_CPUCORE_ASIS, pipidp, ap);
    va_end(ap);
    return rc;
}

/* Spawn and insist on success; returns the pipid. */
#define PT_SPAWN(name, ...)                                                    \
    __extension__({                                                            \
        int pt_id_ = PIP_PIPID_ANY;                                            \
        PT_OK(pt_spawn(name, &pt_id_, __VA_ARGS__));                           \
        pt_id_;                                                                \
    })

/* Wait for pipid and return its status. */
static inline int pt_wait(int pipid)
{
    int st = -1;
    PT_CHECK_ERR(pip_wait(pipid, &st), 0);
    return st;
}

/* "%p" text of a pointer, heap-allocated (argv for tasks). */
static inline char *pt_ptr_arg(const void *p)
{
    char *s = NULL;
    PT_CHECK(asprintf(&s, "%p", p) > 0);
    return s;
}

static inline char *pt_int_arg(long v)
{
    char *s = NULL;
    PT_CHECK(asprintf(&s, "%ld", v) > 0);
    return s;
}

/*
 * A gate: tasks run "task_plain waitfd N" and block reading one byte from
 * the read end; the root opens the gate for k tasks by writing k bytes.
 * Neither end is close-on-exec, so process-mode tasks inherit both.
 */
typedef struct {
    int rfd, wfd;
    char *rfd_arg;
} pt_gate_t;

static inline void pt_gate_init(pt_gate_t *g)
{
    int fds[2];
    PT_CHECK(pipe(fds) == 0);
    g->rfd = fds[0];
    g->wfd = fds[1];
    g->rfd_arg = pt_int_arg(g->rfd);
}

static inline void pt_gate_open(pt_gate_t *g, int k)
{
    for (int i = 0; i < k; i++)
        PT_CHECK(write(g->wfd, "x", 1) == 1);
}

/* Shared block for task_api / task_tls, in the root's memory. */
static inline pt_shared_t *pt_shared_new(int ntasks)
{
    pt_shared_t *sh = calloc(1, sizeof(*sh));
    PT_CHECK(sh != NULL);
    sh->ntasks = ntasks;
    /* Before pip_init: pip_barrier_init needs it (PiP 2.4's EPERM). */
    pip_barrier_t bar = PIP_BARRIER_INIT(ntasks);
    sh->barrier = bar;
    pt_sbar_init(&sh->sbar, ntasks);
    pip_spin_init(&sh->lock);
    return sh;
}

/* Number of CPUs in the caller's affinity mask. */
static inline int pt_ncpus_allowed(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    PT_CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
    return CPU_COUNT(&set);
}

/* Read a whole file (NUL-terminated, heap). */
static inline char *pt_read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 65536);
    size_t n = 0;
    PT_CHECK(buf != NULL);
    if (f == NULL)
        return buf;
    n = fread(buf, 1, 65535, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/*
 * A fresh temporary file in TMPDIR (created, empty); removed when the case
 * ends, passes, fails or is skipped.
 */
static inline char *pt_tmpfile(const char *tag)
{
    const char *dir = getenv("TMPDIR");
    char *path = NULL;
    PT_CHECK(asprintf(&path, "%s/pt_%s_XXXXXX", dir ? dir : "/tmp", tag) > 0);
    int fd = mkstemp(path);
    PT_CHECK(fd >= 0);
    close(fd);
    if (pt_tmp_count < PT_MAX_TMP)
        pt_tmp_files[pt_tmp_count++] = path;
    return path;
}

#endif /* PT_UTIL_H */
