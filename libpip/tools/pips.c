/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pips: list the running PiP roots and their tasks, or signal them.
 *
 *   pips [-p PID]... [-i PIPID]... [-n NAME]... [-k | -s SIG [-R]] [-H]
 *
 * Every root keeps a registry (libpip/src/pip_registry.h): a memfd named
 * "pip-registry" holding a table of its tasks.  pips finds the roots by
 * scanning /proc/PID/fd for that memfd, maps /proc/PID/fd/N read-only and
 * copies the table under its seqlock.  Only processes whose /proc/PID/fd
 * the caller may read are seen (the caller's own, or all for root).
 *
 * Exit status: 0 something was listed or signalled; 1 nothing matched (or
 * a signal could not be sent); 2 usage error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pip/pip.h>

#include "pip_registry.h"

#include "pip_tools.h"

#define MAX_FILTERS 64

static const char *prog_name = "pips";

struct root {
    pid_t found_pid; /* the process whose fd table holds the registry */
    dev_t dev;
    ino_t ino;
    struct pip_reg_header h;
    struct pip_reg_task *tasks; /* h.ntasks entries */
};

struct filters {
    int npid, npipid, nname;
    long pid[MAX_FILTERS];
    long pipid[MAX_FILTERS];
    const char *name[MAX_FILTERS];
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-p PID]... [-i PIPID]... [-n NAME]... [-k | -s SIG "
            "[-R]] [-H]\n"
            "  -p PID    only the root with this PID (or the root of the task "
            "with this PID)\n"
            "  -i PIPID  only the tasks with this pipid\n"
            "  -n NAME   only the tasks whose program is NAME (its base name); "
            "a root\n"
            "            whose program is NAME selects all its tasks\n"
            "  -k        send SIGKILL to the selected tasks (same as -s KILL)\n"
            "  -s SIG    send SIG (a name such as TERM or SIGTERM, or a "
            "number)\n"
            "  -R        also signal the roots of the selected tasks\n"
            "  -H        no header line\n"
            "  -h, --help  this help\n"
            "Filters of one kind are alternatives; different kinds must all "
            "match.\n"
            "exit status: 0 found, 1 nothing matched, 2 usage error\n",
            prog_name);
}

/* One line on stderr, then exit(code). */
#define die(code, ...) pip_tool_die(prog_name, (code), __VA_ARGS__)

static long parse_num(const char *opt, const char *s, long min)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > INT_MAX)
        die(2, "%s '%s': not a number%s (see %s -h)", opt, s,
            min > 0 ? " above 0" : "", prog_name);
    return v;
}

static const struct {
    const char *name;
    int sig;
} signames[] = {
    {"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},
    {"ILL", SIGILL},       {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},
    {"BUS", SIGBUS},       {"FPE", SIGFPE},   {"KILL", SIGKILL},
    {"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE},     {"ALRM", SIGALRM}, {"TERM", SIGTERM},
    {"CHLD", SIGCHLD},     {"CONT", SIGCONT}, {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},
    {"URG", SIGURG},       {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
    {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
    {"IO", SIGIO},         {"SYS", SIGSYS},
};

static int parse_signal(const char *s)
{
    if (isdigit((unsigned char)s[0])) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end == '\0' && v >= 0 && v < NSIG)
            return (int)v;
        die(2, "-s '%s': not a signal number (0..%d)", s, NSIG - 1);
    }
    const char *n = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
    for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
        if (strcasecmp(n, signames[i].name) == 0)
            return signames[i].sig;
    die(2, "-s '%s': unknown signal name (try TERM, KILL, USR1 or a number)",
        s);
}

/* Copy the registry at `map` under its seqlock; 0 on success. */
static int copy_registry(const void *map, size_t size, struct root *r)
{
    const struct pip_reg_header *h = map;
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t g1 = __atomic_load_n(&h->gen, __ATOMIC_ACQUIRE);
        if (g1 & 1) {
            sched_yield();
            continue;
        }
        memcpy(&r->h, h, sizeof(r->h));
        if (r->h.magic != PIP_REG_MAGIC || r->h.version != PIP_REG_VERSION ||
            r->h.header_size != sizeof(struct pip_reg_header) ||
            r->h.entry_size != sizeof(struct pip_reg_task) || r->h.ntasks < 0 ||
            (size_t)r->h.ntasks > (size - sizeof(struct pip_reg_header)) /
                                      sizeof(struct pip_reg_task))
            return -1;
        size_t tsz = sizeof(struct pip_reg_task) * (size_t)r->h.ntasks;
        struct pip_reg_task *t = realloc(r->tasks, tsz ? tsz : 1);
        if (t == NULL)
            return -1;
        r->tasks = t;
        memcpy(t, (const char *)map + sizeof(struct pip_reg_header), tsz);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&h->gen, __ATOMIC_ACQUIRE) == g1)
            return 0;
    }
    return -1;
}

static int is_registry_link(const char *dir, const char *fd)
{
    char path[PATH_MAX], link[256];
    snprintf(path, sizeof(path), "%s/%s", dir, fd);
    ssize_t n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    static const char want[] = "/memfd:" PIP_REG_NAME;
    return strncmp(link, want, sizeof(want) - 1) == 0 &&
           (link[sizeof(want) - 1] == '\0' || link[sizeof(want) - 1] == ' ');
}

/* Read the registry open as fd `fd` in process `pid`; 0 on success. */
static int read_root(pid_t pid, const char *fd, struct root *r)
{
    char path[320];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, fd);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return -1;
    if (fstat(f, &st) != 0 ||
        (size_t)st.st_size < sizeof(struct pip_reg_header)) {
        close(f);
        return -1;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, f, 0);
    close(f);
    if (map == MAP_FAILED)
        return -1;
    memset(r, 0, sizeof(*r));
    r->found_pid = pid;
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    int rc = copy_registry(map, (size_t)st.st_size, r);
    munmap(map, (size_t)st.st_size);
    if (rc != 0) {
        free(r->tasks);
        r->tasks = NULL;
    }
    return rc;
}

static struct root *find_roots(int *nroots)
{
    struct root *roots = NULL;
    int n = 0;
    DIR *proc = opendir("/proc");
    if (proc == NULL)
        die(1, "cannot read /proc: %s", strerror(errno));
    struct dirent *d;
    pid_t self = getpid();
    while ((d = readdir(proc)) != NULL) {
        if (!isdigit((unsigned char)d->d_name[0]))
            continue;
        pid_t pid = (pid_t)atoi(d->d_name);
        if (pid == self)
            continue;
        char dir[64];
        snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
        DIR *fds = opendir(dir);
        if (fds == NULL)
            continue; /* gone, or not ours to look at */
        struct dirent *e;
        while ((e = readdir(fds)) != NULL) {
            if (!isdigit((unsigned char)e->d_name[0]) ||
                !is_registry_link(dir, e->d_name))
                continue;
            struct root r;
            if (read_root(pid, e->d_name, &r) != 0)
                continue;
            /*
             * A registry is seen twice when a child inherited the fd (a
             * process-mode task before it closed its close-on-exec fds, a
             * fork of the root): keep the copy held by the root itself.
             */
            int dup = -1;
            for (int k = 0; k < n; k++)
                if (roots[k].dev == r.dev && roots[k].ino == r.ino)
                    dup = k;
            if (dup >= 0) {
                if (r.found_pid == r.h.root_pid) {
                    free(roots[dup].tasks);
                    roots[dup] = r;
                } else {
                    free(r.tasks);
                }
                continue;
            }
            struct root *nr = realloc(roots, sizeof(*roots) * (size_t)(n + 1));
            if (nr == NULL)
                die(1, "out of memory");
            roots = nr;
            roots[n++] = r;
        }
        closedir(fds);
    }
    closedir(proc);
    *nroots = n;
    return roots;
}

static int cmp_root(const void *a, const void *b)
{
    const struct root *x = a, *y = b;
    return (x->h.root_pid > y->h.root_pid) - (x->h.root_pid < y->h.root_pid);
}

/* State of thread `tid` of process `pid` from /proc, or "ended". */
static const char *thread_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    if (pid <= 0 || tid <= 0)
        return "ended";
    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return "ended";
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return "ended";
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ')
        return "unknown";
    switch (p[2]) {
    case 'R':
        return "running";
    case 'S':
        return "sleeping";
    case 'D':
        return "disk-wait";
    case 'T':
        return "stopped";
    case 't':
        return "traced";
    case 'Z':
    case 'X':
        return "ended";
    default:
        return "unknown";
    }
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b != NULL ? b + 1 : path;
}

static int name_match(const struct filters *f, const char *prog)
{
    for (int i = 0; i < f->nname; i++)
        if (strcmp(base_name(prog), f->name[i]) == 0 ||
            strcmp(prog, f->name[i]) == 0)
            return 1;
    return 0;
}

static int root_selected(const struct filters *f, const struct root *r)
{
    if (f->npid == 0)
        return 1;
    for (int i = 0; i < f->npid; i++) {
        if (f->pid[i] == r->h.root_pid)
            return 1;
        for (int k = 0; k < r->h.ntasks; k++)
            if (r->tasks[k].state == PIP_REG_RUNNING &&
                (f->pid[i] == r->tasks[k].pid || f->pid[i] == r->tasks[k].tid))
                return 1;
    }
    return 0;
}

static int task_selected(const struct filters *f, const struct root *r,
                         const struct pip_reg_task *t)
{
    if (t->state != PIP_REG_RUNNING)
        return 0;
    if (f->npipid > 0) {
        int ok = 0;
        for (int i = 0; i < f->npipid; i++)
            ok |= f->pipid[i] == t->pipid;
        if (!ok)
            return 0;
    }
    if (f->nname > 0 && !name_match(f, t->prog) &&
        !name_match(f, r->h.root_prog))
        return 0;
    return 1;
}

static const char *mode_name(int mode)
{
    return mode == PIP_MODE_PTHREAD ? "thread" : "process";
}

static int signal_one(const struct root *r, pid_t pid, pid_t tid, int sig)
{
    long rc;
    if (r->h.mode == PIP_MODE_PTHREAD && tid != r->h.root_tid)
        rc = syscall(SYS_tgkill, (long)r->h.root_pid, (long)tid, (long)sig);
    else
        rc = kill(pid, sig);
    if (rc != 0 && errno != ESRCH) {
        fprintf(stderr, "%s: cannot signal %d: %s\n", prog_name, (int)tid,
                strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct filters f;
    int sig = -1, sig_roots = 0, header = 1;
    memset(&f, 0, sizeof(f));

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-k") == 0) {
            if (sig >= 0 && sig != SIGKILL)
                die(2, "-k and -s exclude each other (see %s -h)", prog_name);
            sig = SIGKILL;
        } else if (strcmp(a, "-R") == 0) {
            sig_roots = 1;
        } else if (strcmp(a, "-H") == 0) {
            header = 0;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "-p") == 0 ||
                   strcmp(a, "-i") == 0 || strcmp(a, "-n") == 0) {
            if (i + 1 >= argc)
                die(2, "option %s needs a value (see %s -h)", a, prog_name);
            const char *v = argv[++i];
            if (a[1] == 's') {
                if (sig >= 0)
                    die(2,
                        "-k and -s exclude each other, and -s comes once "
                        "(see %s -h)",
                        prog_name);
                sig = parse_signal(v);
                continue;
            }
            if (f.npid + f.npipid + f.nname >= MAX_FILTERS)
                die(2, "too many filters (at most %d)", MAX_FILTERS);
            if (a[1] == 'p')
                f.pid[f.npid++] = parse_num("-p", v, 1);
            else if (a[1] == 'i')
                f.pipid[f.npipid++] = parse_num("-i", v, 0);
            else if (*v == '\0')
                die(2, "-n: empty program name");
            else
                f.name[f.nname++] = v;
        } else if (a[0] == '-') {
            die(2, "unknown option '%s' (see %s -h)", a, prog_name);
        } else {
            die(2,
                "unexpected argument '%s' (filters take -p, -i or -n; see "
                "%s -h)",
                a, prog_name);
        }
    }
    if (sig_roots && sig < 0)
        die(2, "-R needs -k or -s SIG (see %s -h)", prog_name);

    int nroots = 0, found = 0, failed = 0;
    struct root *roots = find_roots(&nroots);
    if (nroots > 1)
        qsort(roots, (size_t)nroots, sizeof(*roots), cmp_root);
    for (int k = 0; k < nroots; k++) {
        struct root *r = &roots[k];
        if (!root_selected(&f, r))
            continue;
        int any = 0,
            root_row = f.npipid == 0 &&
                       (f.nname == 0 || name_match(&f, r->h.root_prog));
        for (int i = 0; i < r->h.ntasks; i++)
            any |= task_selected(&f, r, &r->tasks[i]);
        if (!any && (!root_row || (sig >= 0 && !sig_roots)))
            continue;
        if (!found && sig < 0 && header)
            printf("%8s %6s %8s %8s %-8s %-9s %s\n", "ROOT", "PIPID", "PID",
                   "TID", "MODE", "STATE", "PROGRAM");
        found = 1;
        if (sig < 0) {
            printf("%8d %6s %8d %8d %-8s %-9s %s\n", (int)r->h.root_pid, "root",
                   (int)r->h.root_pid, (int)r->h.root_tid, mode_name(r->h.mode),
                   thread_state(r->h.root_pid, r->h.root_tid), r->h.root_prog);
        }
        /*
         * The root first: otherwise it may see its tasks die and exit on
         * its own before the signal reaches it.
         */
        if (sig >= 0 && sig_roots)
            failed |= signal_one(r, r->h.root_pid, r->h.root_tid, sig) != 0;
        for (int i = 0; i < r->h.ntasks; i++) {
            struct pip_reg_task *t = &r->tasks[i];
            if (!task_selected(&f, r, t))
                continue;
            if (sig >= 0)
                failed |= signal_one(r, t->pid, t->tid, sig) != 0;
            else
                printf("%8d %6d %8d %8d %-8s %-9s %s\n", (int)r->h.root_pid,
                       t->pipid, (int)t->pid, (int)t->tid, mode_name(r->h.mode),
                       thread_state(t->pid, t->tid), t->prog);
        }
    }
    for (int k = 0; k < nroots; k++)
        free(roots[k].tasks);
    free(roots);
    if (!found) {
        if (sig >= 0 || f.npid + f.npipid + f.nname > 0)
            fprintf(stderr, "%s: no PiP root or task matches\n", prog_name);
        return 1;
    }
    return failed ? 1 : 0;
}
