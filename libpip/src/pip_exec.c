/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip-exec: run programs as PiP tasks of one root (SPMD or MPMD).
 *
 *   pip-exec [-n N] [-c CORES] [-f FUNC] PROG ARGS... [: [-n N] ... PROG2
 * ARGS...]
 *
 * pip-exec becomes the root, spawns every task, waits for all of them and
 * exits as PiP 2.4's: with the number of the signal that killed the first
 * task reaped that a signal killed, else with the highest exit status.
 */
#include <pip/pip.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* pip_env_error_() and the namespace default, shared with libpip */
#include "pip_internal.h"
#include "pvas_env.h"
/* pip-check's ELF reader: the refusals pip-check knows, before starting */
#include "pip_elf.h"

/*
 * TLS reserve of the root executable.  Tasks built as plain PIE programs
 * use local-exec TLS, which addresses the root executable's own TLS block
 * (module 1): libpip copies each task's TLS image there, so it must be at
 * least as large as any task's __thread data.
 */
#define PIP_EXEC_TLS_RESERVE (64 * 1024)
static __thread char pip_exec_tls_reserve[PIP_EXEC_TLS_RESERVE]
    __attribute__((aligned(PIP_ROOT_TLS_ALIGN), used));

/* Process mode: private-image tasks; thread mode: PIP_NTASKS_MAX. */
#define PIP_EXEC_TASKS_MAX 8192

struct spec {
    int ntasks;
    char *cores; /* core list, NULL: PIP_CPUCORE_ASIS */
    char *func;  /* start function, NULL: main */
    char *prog;  /* as given */
    char *path;  /* resolved path */
    char **argv; /* PROG ARGS... (points into the command line) */
    int ncores;
    int *corelist;
};

static const char *prog_name = "pip-exec";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-n N] [-c CORES] [-f FUNC] PROG [ARGS...] "
            "[: [-n N] [-c CORES] [-f FUNC] PROG2 [ARGS...]]...\n"
            "  -n N      run N tasks of PROG (default 1)\n"
            "  -c CORES  bind tasks round-robin to cores, e.g. 0,1 or 0-3 "
            "(n-th core of the\n"
            "            current affinity mask; default: no binding)\n"
            "  -f FUNC   start at the exported function int FUNC(void *) "
            "instead of main\n"
            "  -h, --help     this help\n"
            "  --version      print the version\n"
            "environment: PIP_MODE=process|thread, PIP_STACKSZ, "
            "PIP_STOP_ON_START, PVAS_LOG=pip:debug\n",
            prog_name);
}

static void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static int parse_int(const char *s, int *v)
{
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || n <= 0 || n > INT_MAX)
        return -1;
    *v = (int)n;
    return 0;
}

/* "0,1" or "0-3" or "0-1,4" -> list of core numbers. */
static int parse_cores(struct spec *s)
{
    char *copy = strdup(s->cores), *save = NULL, *tok;
    int cap = 16, n = 0;
    int *list = malloc(sizeof(int) * (size_t)cap);
    if (copy == NULL || list == NULL)
        die("out of memory");
    for (tok = strtok_r(copy, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long a = strtol(tok, &end, 10), b;
        if (end == tok || a < 0)
            goto bad;
        if (*end == '-') {
            char *e2;
            b = strtol(end + 1, &e2, 10);
            if (e2 == end + 1 || *e2 != '\0' || b < a)
                goto bad;
        } else if (*end == '\0') {
            b = a;
        } else {
            goto bad;
        }
        if (b >= (long)PIP_CPUCORE_CORENO_MAX)
            goto bad;
        for (long c = a; c <= b; c++) {
            if (n == cap) {
                cap *= 2;
                list = realloc(list, sizeof(int) * (size_t)cap);
                if (list == NULL)
                    die("out of memory");
            }
            list[n++] = (int)c;
        }
    }
    free(copy);
    if (n == 0)
        goto bad2;
    s->corelist = list;
    s->ncores = n;
    return 0;
bad:
    free(copy);
bad2:
    free(list);
    return -1;
}

/* Like execvp: a name without '/' is searched in PATH. */
static char *resolve(const char *prog)
{
    if (strchr(prog, '/') != NULL)
        return strdup(prog);
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = strdup(path), *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir != NULL;
         dir = strtok_r(NULL, ":", &save)) {
        size_t len = strlen(dir) + strlen(prog) + 2;
        char *cand = malloc(len);
        if (cand == NULL)
            break;
        snprintf(cand, len, "%s/%s", *dir ? dir : ".", prog);
        if (access(cand, X_OK) == 0) {
            struct stat st;
            if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
                free(copy);
                return cand;
            }
        }
        free(cand);
    }
    free(copy);
    return NULL;
}

/* Is PIP_MODE thread mode? */
static int thread_mode(void)
{
    const char *m = getenv("PIP_MODE");
    return m != NULL &&
           (strcasecmp(m, "thread") == 0 || strcasecmp(m, "pthread") == 0);
}

static const char *loader_reason(int err, const struct spec *s)
{
    static char buf[256];
    struct stat st;
    switch (err) {
    case ENOENT:
        return "no such file";
    case EACCES:
        if (stat(s->path, &st) == 0 && S_ISDIR(st.st_mode))
            return "is a directory";
        return "not an executable file (permission denied)";
    case ELIBBAD:
        return "not an ELF executable for this machine";
    case ELIBEXEC:
        return "not a position-independent executable, or its thread-local "
               "storage is too "
               "large: rebuild with -fPIE -pie -rdynamic (try pip-check)";
    case ENOEXEC:
        if (s->func != NULL) {
            snprintf(buf, sizeof(buf), "no start function '%s' in the program",
                     s->func);
            return buf;
        }
        return "no 'main' in the program (stripped?): link it with -rdynamic";
    case EAGAIN:
        if (thread_mode())
            return "no dlmopen namespace (libc copy) of its own left: use "
                   "process mode, fewer tasks, or PIP_SHARE_NAMESPACES=1";
        return "cannot load another task: out of memory, processes or "
               "dlmopen namespaces (try a smaller PIP_NAMESPACES)";
    case ELIBACC:
        return "a shared library it needs cannot be loaded "
               "(PVAS_LOG=pip:debug shows which)";
    default:
        return strerror(err);
    }
}

/*
 * What pip-check (libpip/tools) would refuse in a task that libpip's own
 * check (pip_check_pie) lets through to the loader: NULL, or the reason.
 */
static const char *elf_refusal(const char *path)
{
    static char buf[256];
    struct pe_file f;
    char msg[200];
    if (pe_open(&f, path, msg, sizeof(msg)) != PE_OK)
        return NULL; /* pip_check_pie says why */
    const char *why = NULL;
    if (f.dyn == NULL) {
        why = "statically linked: a task must be a dynamically linked PIE";
    } else if (f.eh->e_type == ET_DYN && !f.has_interp &&
               (f.flags_1 & DF_1_PIE)) {
        why = "a static PIE (no program interpreter): link it dynamically";
    } else if (pe_tls_need(&f) > PIP_EXEC_TLS_RESERVE) {
        snprintf(buf, sizeof(buf),
                 "its __thread data needs %llu bytes of TLS, more than "
                 "pip-exec's reserve of %d bytes",
                 (unsigned long long)pe_tls_need(&f), PIP_EXEC_TLS_RESERVE);
        why = buf;
    } else if (f.has_tls && f.tls_align > PIP_ROOT_TLS_ALIGN) {
        snprintf(buf, sizeof(buf),
                 "its TLS alignment (%llu) is above the %d bytes pip-exec "
                 "supports",
                 (unsigned long long)f.tls_align, PIP_ROOT_TLS_ALIGN);
        why = buf;
    }
    pe_close(&f);
    return why;
}

/*
 * Thread mode: glibc makes at most 11 dlmopen namespaces with its default
 * static TLS surplus, 15 with the glibc.rtld.nns tunable at 16, which
 * ld.so reads at start-up only: run ourselves again with it set (unless
 * GLIBC_TUNABLES already sets it, or the exec fails: then we go on).
 */
static void reexec_with_tunables(char **argv)
{
    static const char tun[] = "glibc.rtld.nns=16";
    const char *cur = getenv("GLIBC_TUNABLES");
    if (!thread_mode() ||
        (cur != NULL && strstr(cur, "glibc.rtld.nns=") != NULL))
        return;
    size_t len = (cur != NULL ? strlen(cur) + 1 : 0) + sizeof(tun);
    char *v = malloc(len);
    if (v == NULL)
        return;
    snprintf(v, len, "%s%s%s", cur != NULL ? cur : "",
             cur != NULL && *cur != '\0' ? ":" : "", tun);
    if (setenv("GLIBC_TUNABLES", v, 1) == 0)
        execv("/proc/self/exe", argv);
    free(v);
    /* Not re-executed: 11 namespaces; later tasks are refused (below). */
    if (cur != NULL)
        (void)setenv("GLIBC_TUNABLES", cur, 1);
    else
        (void)unsetenv("GLIBC_TUNABLES");
}

/* PiP's separators between programs: ":" and "::". */
static int is_sep(const char *a)
{
    return strcmp(a, ":") == 0 || strcmp(a, "::") == 0;
}

/*
 * More tasks in dlmopen namespaces (thread mode, and process-mode tasks
 * started at a function) than libc copies (PIP_NAMESPACES,
 * PIP_NAMESPACES_DEFAULT by default): tasks of one copy share what libpip
 * cannot give each of them.
 * Said once, before any task runs.
 */
static void shared_libc_note(int total)
{
    const char *v = getenv("PIP_NAMESPACES");
    int nns = v != NULL && *v != '\0' ? atoi(v) : PIP_NAMESPACES_DEFAULT;
    if (thread_mode() && (v == NULL || *v == '\0'))
        nns = PIP_NAMESPACES_MAX;
    if (nns <= 0 || total <= nns)
        return;
    /*
     * Thread mode refuses tasks that would share a live task's libc unless
     * PIP_SHARE_NAMESPACES says yes: say so before anything starts.
     */
    int shared = pvas_env_on("PIP_SHARE_NAMESPACES", 0);
    if (thread_mode() && !shared) {
        fprintf(stderr,
                "%s: thread mode: %d tasks but at most %d dlmopen namespaces "
                "(libc copies): tasks would share a libc; use process mode, "
                "at most %d tasks, or PIP_SHARE_NAMESPACES=1\n",
                prog_name, total, nns, nns);
        exit(2);
    }
    fprintf(stderr,
            "%s: note: %d tasks share %d libc copies (PIP_NAMESPACES): tasks "
            "of one copy share its stdio buffers, environ (setenv/putenv), "
            "locale (setlocale), program_invocation_name and libc's other "
            "global state; each keeps its own options (getopt), descriptors "
            "and thread-local data\n",
            prog_name, total, nns);
}

int main(int argc, char **argv)
{
    struct spec *specs = NULL;
    int nspecs = 0, total = 0;

    /* Keep the TLS reserve (and its size) in the executable. */
    *(volatile char *)&pip_exec_tls_reserve[0] = 0;

    if (argc > 0 && argv[0] != NULL) {
        const char *b = strrchr(argv[0], '/');
        prog_name = b != NULL ? b + 1 : argv[0];
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    reexec_with_tunables(argv);
    int i = 1;
    while (i < argc) {
        struct spec s = {1, NULL, NULL, NULL, NULL, NULL, 0, NULL};
        while (i < argc && argv[i][0] == '-') {
            const char *o = argv[i];
            if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
                usage(stdout);
                return 0;
            }
            if (strcmp(o, "--version") == 0) {
                printf("pip-exec (libpip) %s\n", PACKAGE_VERSION);
                return 0;
            }
            if (strcmp(o, "--") == 0) {
                i++;
                break;
            }
            if (strcmp(o, "-d") == 0) { /* PiP's dry-run flag: a no-op there */
                i++;
                continue;
            }
            if (strcmp(o, "-n") == 0 || strcmp(o, "-c") == 0 ||
                strcmp(o, "-f") == 0) {
                if (i + 1 >= argc)
                    die("option %s needs a value (see %s -h)", o, prog_name);
                const char *v = argv[i + 1];
                if (o[1] == 'n') {
                    if (parse_int(v, &s.ntasks) != 0)
                        die("-n '%s': not a positive number of tasks", v);
                } else if (o[1] == 'c') {
                    s.cores = argv[i + 1];
                    if (parse_cores(&s) != 0)
                        die("-c '%s': not a core list like 0,1 or 0-3", v);
                } else {
                    if (*v == '\0')
                        die("-f: empty function name");
                    s.func = argv[i + 1];
                }
                i += 2;
                continue;
            }
            die("unknown option '%s' (see %s -h)", o, prog_name);
        }
        if (i >= argc || is_sep(argv[i]))
            die("no program given%s (see %s -h)",
                nspecs > 0 ? " after ':'" : "", prog_name);
        s.prog = argv[i];
        s.argv = &argv[i];
        int j = i;
        while (j < argc && !is_sep(argv[j]))
            j++;
        /* Terminate this program's argv at the ':' (restored below, before
         * exec). */
        i = j + 1;
        specs = realloc(specs, sizeof(*specs) * (size_t)(nspecs + 1));
        if (specs == NULL)
            die("out of memory");
        specs[nspecs++] = s;
        if ((long)total + s.ntasks > PIP_EXEC_TASKS_MAX)
            die("too many tasks (%ld): at most %d", (long)total + s.ntasks,
                PIP_EXEC_TASKS_MAX);
        total += s.ntasks;
        /* A ':' at the very end is accepted, as by PiP's pip-exec. */
    }

    /* Split argv at the ':' separators now that exec is behind us. */
    for (int k = 1; k < argc; k++)
        if (is_sep(argv[k]))
            argv[k] = NULL;

    /* Check every program before starting anything. */
    for (int k = 0; k < nspecs; k++) {
        struct spec *s = &specs[k];
        s->path = resolve(s->prog);
        if (s->path == NULL)
            die("%s: command not found", s->prog);
        const char *why = elf_refusal(s->path);
        if (why != NULL)
            die("%s: %s", s->prog, why);
        int rc = pip_check_pie(s->path, 0);
        if (rc != 0)
            die("%s: %s", s->prog, loader_reason(rc, s));
    }

    int ntasks = total;
    /* Programs expect a descriptor table of their own (PIP_FDS). */
    int fds_set =
        getenv("PIP_FDS") == NULL && setenv("PIP_FDS", "private", 0) == 0;
    (void)pip_ntasks_max_(total); /* beyond 300: process mode only */
    int rc = pip_init(NULL, &ntasks, NULL, 0);
    if (rc == EOVERFLOW)
        die("too many tasks (%d): at most %d in thread mode", total,
            PIP_NTASKS_MAX);
    if (fds_set)
        (void)unsetenv("PIP_FDS");
    if (rc != 0) {
        const char *m = getenv("PIP_MODE");
        const char *why = pip_env_error_();
        int bad_mode =
            rc == EPERM && m != NULL && *m != '\0' &&
            strcasecmp(m, "thread") != 0 && strcasecmp(m, "pthread") != 0 &&
            strcasecmp(m, "process") != 0 && strncasecmp(m, "process:", 8) != 0;
        if (why != NULL && (rc == EINVAL || bad_mode))
            die("cannot initialise: %s", why);
        if (rc == EINVAL || bad_mode)
            die("cannot initialise: bad environment: PIP_MODE='%s' (thread, "
                "pthread or process)",
                m ? m : "");
        if (rc == EPERM)
            die("cannot initialise: PIP_MODE='%s' is not available here (use "
                "process or thread)",
                m ? m : "");
        die("cannot initialise: %s", strerror(rc));
    }

    /* Process mode: only tasks started at a function (-f) share libc
     * copies; every other task runs its own loader and libc. */
    int pmode = 0, in_ns = total;
    if (pip_get_mode(&pmode) == 0 && !(pmode & PIP_MODE_PTHREAD)) {
        in_ns = 0;
        for (int k = 0; k < nspecs; k++)
            if (specs[k].func != NULL)
                in_ns += specs[k].ntasks;
    }
    shared_libc_note(in_ns);

    int *statuses = calloc((size_t)total, sizeof(int));
    int *owner = calloc((size_t)total, sizeof(int));
    if (statuses == NULL || owner == NULL)
        die("out of memory");
    int pipid = 0, failed = 0;
    for (int k = 0; k < nspecs && !failed; k++) {
        struct spec *s = &specs[k];
        for (int n = 0; n < s->ntasks; n++) {
            pip_spawn_program_t p;
            uint32_t core = PIP_CPUCORE_ASIS;
            if (s->corelist != NULL)
                core = (uint32_t)s->corelist[n % s->ncores];
            if (s->func != NULL)
                pip_spawn_from_func(&p, s->path, s->func, NULL, NULL, NULL,
                                    NULL);
            else
                pip_spawn_from_main(&p, s->path, s->argv, NULL, NULL, NULL);
            int id = pipid;
            rc = pip_task_spawn(&p, core, 0, &id, NULL);
            if (rc != 0) {
                /* The file passed pip_check_pie: ELIBEXEC now means TLS. */
                fprintf(
                    stderr, "%s: cannot spawn task %d (%s): %s\n", prog_name,
                    pipid, s->prog,
                    rc == ELIBEXEC
                        ? "its thread-local storage (__thread data) is larger "
                          "than pip-exec's TLS reserve (64 KiB)"
                        : loader_reason(rc, s));
                failed = rc;
                break;
            }
            owner[pipid] = k;
            pipid++;
        }
    }
    if (failed) {
        int mode = 0;
        (void)pip_get_mode(&mode);
        if (mode & PIP_MODE_PTHREAD) {
            /* Thread mode: the tasks are our threads; end everything now. */
            fflush(NULL);
            _exit(failed);
        }
        pip_kill_all_tasks();
    }

    /*
     * PiP 2.4's exit status: the signal number of the first task reaped
     * that a signal killed, else the highest exit status of the tasks.
     */
    int first_sig = 0, max_exit = 0;
    for (;;) {
        int id, st;
        rc = pip_wait_any(&id, &st);
        if (rc != 0)
            break;
        statuses[id] = st;
        if (WIFEXITED(st) && WEXITSTATUS(st) > max_exit)
            max_exit = WEXITSTATUS(st);
        if (WIFSIGNALED(st) && first_sig == 0)
            first_sig = WTERMSIG(st);
        if (WIFSIGNALED(st) && !failed)
            fprintf(stderr, "%s: task %d (%s) killed by signal %d (%s)\n",
                    prog_name, id, specs[owner[id]].prog, WTERMSIG(st),
                    strsignal(WTERMSIG(st)));
        else if (WIFEXITED(st) && WEXITSTATUS(st) != 0 && !failed)
            fprintf(stderr, "%s: task %d (%s) exited with status %d\n",
                    prog_name, id, specs[owner[id]].prog, WEXITSTATUS(st));
    }
    (void)pip_fin();
    int code = 0;
    if (failed)
        code = failed; /* PiP 2.4: pip_exit() with the error number */
    else if (first_sig != 0)
        code = first_sig;
    else
        code = max_exit;
    for (int k = 0; k < nspecs; k++) {
        free(specs[k].path);
        free(specs[k].corelist);
    }
    free(specs);
    free(statuses);
    free(owner);
    return code;
}
