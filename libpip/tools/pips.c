/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pips: list the running PiP roots and their tasks, or signal them.
 *
 *   pips [a][u][x] [-r|-t] [-f] [-m MODES] [-k | -s SIG | -P [OPTS] |
 *        -T [OPTS]] [-v] [-l] [-p PID]... [-i PIPID]... [-n NAME]... [-R]
 *        [-H] [-] [PATTERN...]
 *
 * PiP's options and columns: the listing is PiP's (PID TID TT STAT TIME
 * PIP COMMAND, or with 'u' the columns of ps u), made by ps(1) for the
 * threads of PiP roots and tasks; PIP is R (root) or the pipid, then the
 * mode (T thread, P process).  PATTERNs select by program name (also as a
 * glob), PID or TID.  -l prints this libpip's own table instead.
 *
 * Every root keeps a registry (libpip/src/pip_registry.h): a memfd named
 * "pip-registry" holding a table of its tasks.  pips finds the roots by
 * scanning /proc/PID/fd for that memfd, maps /proc/PID/fd/N read-only and
 * copies the table under its seqlock (pips_roots.c).  Only processes whose
 * /proc/PID/fd the caller may read are seen (the caller's own, or all for
 * root).
 *
 * Exit status: 0 something was listed or signalled; 1 nothing matched, a
 * signal could not be sent, or a usage error (as PiP 2.4's pips).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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
#include "pips.h"

#define MAX_FILTERS 64

static const char *prog_name = "pips";

struct filters {
    int npid, npipid, nname;
    long pid[MAX_FILTERS];
    long pipid[MAX_FILTERS];
    const char *name[MAX_FILTERS];
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [a][u][x] [OPTIONS] [-] [PATTERN...]\n"
            "  a, u, x   as ps's: u gives ps u's columns (a, x: accepted; "
            "every\n"
            "            root readable by the caller is listed)\n"
            "  PATTERN   a program name (or glob), a PID or a TID\n"
            "  -r, --root    roots only          -t, --task    tasks only\n"
            "  -f, --family  roots with their tasks, in family order\n"
            "  -m, --mode MODES  only these modes: T thread, P (also L, G, "
            "C) process\n"
            "  -k, --kill    send SIGTERM to the selected roots and tasks\n"
            "  -s, --signal SIG  send SIG (name such as TERM, or a number)\n"
            "  -P, --ps [OPTS]   run ps OPTS (comma-separated) on them\n"
            "  -T, --top [OPTS]  run top OPTS (comma-separated) on them\n"
            "  -v, --verbose     say which signal goes where\n"
            "  -l        this libpip's table: ROOT PIPID PID TID MODE STATE "
            "PROGRAM\n"
            "  -p PID    only the root with this PID (or the root of the task "
            "with this PID)\n"
            "  -i PIPID  only the tasks with this pipid\n"
            "  -n NAME   only the tasks whose program is NAME (its base name); "
            "a root\n"
            "            whose program is NAME selects all its tasks\n"
            "  -R        also signal the roots of the selected tasks\n"
            "  -H        no header line\n"
            "  -h, --help  this help\n"
            "Filters of one kind are alternatives; different kinds must all "
            "match.\n"
            "exit status: 0 found, 1 nothing matched, a signal failed or a "
            "usage error\n",
            prog_name);
}

/* Usage errors exit 1, as PiP 2.4's pips. */
#define PIPS_USAGE 1

/* One line on stderr, then exit(code). */
#define die(code, ...) pip_tool_die(prog_name, (code), __VA_ARGS__)

static long parse_num(const char *opt, const char *s, long min)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > INT_MAX)
        die(PIPS_USAGE, "%s '%s': not a number%s (see %s -h)", opt, s,
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
        die(PIPS_USAGE, "-s '%s': not a signal number (0..%d)", s, NSIG - 1);
    }
    const char *n = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
    for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
        if (strcasecmp(n, signames[i].name) == 0)
            return signames[i].sig;
    die(PIPS_USAGE,
        "-s '%s': unknown signal name (try TERM, KILL, USR1 or a number)", s);
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

static const char *signal_name(int sig)
{
    for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
        if (signames[i].sig == sig)
            return signames[i].name;
    return "?";
}

/* One row of the listing: a root (task == NULL) or one of its tasks. */
struct entry {
    struct root *r;
    const struct pip_reg_task *task;
    pid_t pid, tid;
    const char *prog;
};

/* PiP's options (and this libpip's filters). */
struct pips_opts {
    struct filters f;
    int npat;
    const char *pat[MAX_FILTERS];
    int roots_only, tasks_only, family, verbose, bsd_u, long_table, header;
    const char *modes; /* -m: letters of PLGCT, NULL for all */
    int sig, sig_roots;
    int ps, top; /* -P / -T given */
    char *ps_opts, *top_opts;
};

static int mode_selected(const struct pips_opts *o, const struct root *r)
{
    if (o->modes == NULL)
        return 1;
    int thread = r->h.mode == PIP_MODE_PTHREAD;
    for (const char *m = o->modes; *m != '\0'; m++) {
        char c = (char)toupper((unsigned char)*m);
        if (c == 'T' && thread)
            return 1;
        if (strchr("PLGC", c) != NULL && !thread)
            return 1;
    }
    return 0;
}

/* PiP's patterns: the program name (also as a glob), the PID or the TID. */
static int pattern_match(const struct pips_opts *o, const struct entry *e)
{
    if (o->npat == 0)
        return 1;
    char num[16];
    for (int i = 0; i < o->npat; i++) {
        const char *p = o->pat[i];
        if (strcmp(p, base_name(e->prog)) == 0 || strcmp(p, e->prog) == 0 ||
            fnmatch(p, base_name(e->prog), 0) == 0)
            return 1;
        snprintf(num, sizeof(num), "%d", (int)e->pid);
        if (strcmp(p, num) == 0)
            return 1;
        snprintf(num, sizeof(num), "%d", (int)e->tid);
        if (strcmp(p, num) == 0)
            return 1;
    }
    return 0;
}

static void add_entry(struct entry **v, int *n, struct entry e)
{
    for (int i = 0; i < *n; i++)
        if ((*v)[i].r == e.r && (*v)[i].task == e.task)
            return;
    struct entry *nv = realloc(*v, sizeof(**v) * (size_t)(*n + 1));
    if (nv == NULL)
        die(1, "out of memory");
    *v = nv;
    (*v)[(*n)++] = e;
}

static struct entry root_entry(struct root *r)
{
    struct entry e = {r, NULL, r->h.root_pid, r->h.root_tid, r->h.root_prog};
    return e;
}

static struct entry task_entry(struct root *r, const struct pip_reg_task *t)
{
    struct entry e = {r, t, t->pid, t->tid, t->prog};
    return e;
}

/* The rows selected by the options, in family order (root, its tasks). */
static struct entry *select_entries(const struct pips_opts *o,
                                    struct root *roots, int nroots, int *nout)
{
    struct entry *v = NULL;
    int n = 0;
    const struct filters *f = &o->f;
    for (int k = 0; k < nroots; k++) {
        struct root *r = &roots[k];
        if (!root_selected(f, r) || !mode_selected(o, r))
            continue;
        struct entry re = root_entry(r);
        int root_row =
            f->npipid == 0 && (f->nname == 0 || name_match(f, r->h.root_prog));
        int root_hit = root_row && pattern_match(o, &re);
        int any_task = 0;
        for (int i = 0; i < r->h.ntasks; i++) {
            const struct pip_reg_task *t = &r->tasks[i];
            struct entry te = task_entry(r, t);
            any_task |= task_selected(f, r, t) && pattern_match(o, &te);
        }
        /* --family: a selected root brings all its tasks, a selected task
         * its root and siblings.  -l (this libpip's table) shows a root
         * with its selected tasks; -R signals it too. */
        int family = o->family && (root_hit || any_task);
        if ((root_hit || family ||
             (any_task && ((o->long_table && o->sig < 0) ||
                           (o->sig_roots && o->sig >= 0)))) &&
            !o->tasks_only)
            add_entry(&v, &n, re);
        if (o->roots_only)
            continue;
        for (int i = 0; i < r->h.ntasks; i++) {
            const struct pip_reg_task *t = &r->tasks[i];
            struct entry te = task_entry(r, t);
            if (task_selected(f, r, t) && (family || pattern_match(o, &te)))
                add_entry(&v, &n, te);
        }
    }
    *nout = n;
    return v;
}

static int cmp_tid(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

/* PiP's PIP column: R or the pipid, then the mode (T thread, P process). */
static void pip_column(const struct entry *e, char *buf, size_t size)
{
    char m = e->r->h.mode == PIP_MODE_PTHREAD ? 'T' : 'P';
    if (e->task == NULL)
        snprintf(buf, size, "R%c", m);
    else
        snprintf(buf, size, "%d%c", e->task->pipid, m);
}

/* PiP's listing: ps(1)'s columns for each thread, then PIP and COMMAND. */
static int list_pip_columns(const struct pips_opts *o, struct entry *v, int n)
{
    const char *fmt = o->bsd_u ? "user,pid,tid,%cpu,%mem,vsz,rss,tty,stat,"
                                 "start_time,time"
                               : "pid,tid,tty,stat,time";
    size_t len = 64 + strlen(fmt);
    for (int i = 0; i < n; i++)
        len += 12;
    char *cmd = malloc(len);
    if (cmd == NULL)
        die(1, "out of memory");
    int off = snprintf(cmd, len, "LC_ALL=C ps H -o %s -p ", fmt);
    for (int i = 0; i < n; i++)
        off += snprintf(cmd + off, len - (size_t)off, "%s%d", i ? "," : "",
                        (int)v[i].pid);
    snprintf(cmd + off, len - (size_t)off, " 2>/dev/null");
    fflush(stdout);
    FILE *ps = popen(cmd, "r");
    free(cmd);
    if (ps == NULL)
        die(1, "cannot run ps: %s", strerror(errno));
    char line[1024];
    int shown = 0, tidcol = o->bsd_u ? 2 : 1, width = 0;
    char **lines = calloc((size_t)n, sizeof(char *));
    if (lines == NULL)
        die(1, "out of memory");
    while (fgets(line, sizeof(line), ps) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (width == 0) { /* the header */
            width = (int)strlen(line);
            if (o->header)
                printf("%-*s %-5s %s\n", width, line, "PIP", "COMMAND");
            continue;
        }
        /* The TID column of this line. */
        char copy[1024];
        snprintf(copy, sizeof(copy), "%s", line);
        char *save = NULL, *tok = strtok_r(copy, " ", &save);
        for (int c = 0; c < tidcol && tok != NULL; c++)
            tok = strtok_r(NULL, " ", &save);
        if (tok == NULL)
            continue;
        long tid = strtol(tok, NULL, 10);
        for (int i = 0; i < n; i++)
            if (v[i].tid == tid && lines[i] == NULL)
                lines[i] = strdup(line);
    }
    int psrc = pclose(ps);
    if (width == 0)
        die(1, "ps(1) printed nothing (status %d): is procps installed?", psrc);
    for (int i = 0; i < n; i++) {
        if (lines[i] == NULL)
            continue; /* ended meanwhile */
        char pipc[16];
        pip_column(&v[i], pipc, sizeof(pipc));
        printf("%-*s %-5s %s\n", width, lines[i], pipc, base_name(v[i].prog));
        free(lines[i]);
        shown++;
    }
    free(lines);
    return shown;
}

/* This libpip's table (-l). */
static void list_long(const struct pips_opts *o, struct entry *v, int n)
{
    if (o->header)
        printf("%8s %6s %8s %8s %-8s %-9s %s\n", "ROOT", "PIPID", "PID", "TID",
               "MODE", "STATE", "PROGRAM");
    for (int i = 0; i < n; i++) {
        const struct root *r = v[i].r;
        char pipid[16];
        if (v[i].task == NULL)
            snprintf(pipid, sizeof(pipid), "root");
        else
            snprintf(pipid, sizeof(pipid), "%d", v[i].task->pipid);
        printf("%8d %6s %8d %8d %-8s %-9s %s\n", (int)r->h.root_pid, pipid,
               (int)v[i].pid, (int)v[i].tid, mode_name(r->h.mode),
               pips_thread_state(v[i].pid, v[i].tid), v[i].prog);
    }
}

/* -P / -T: run ps or top on the selected processes (PiP's way). */
static void exec_viewer(const struct pips_opts *o, const char *ax,
                        struct entry *v, int n)
{
    char *argv[256];
    int argc = 0, threaded = 0;
    for (int i = 0; i < n; i++)
        threaded |= v[i].r->h.mode == PIP_MODE_PTHREAD;
    char *opts = o->ps ? o->ps_opts : o->top_opts;
    argv[argc++] = o->ps ? "ps" : "top";
    static char bsd[8];
    if (o->ps) {
        snprintf(bsd, sizeof(bsd), "%s%s%s", ax, o->bsd_u ? "u" : "",
                 threaded ? "H" : "");
        if (bsd[0] != '\0')
            argv[argc++] = bsd;
    }
    char *save = NULL;
    for (char *t = opts ? strtok_r(opts, ",", &save) : NULL;
         t != NULL && argc < 200; t = strtok_r(NULL, ",", &save))
        argv[argc++] = t;
    if (!o->ps && threaded)
        argv[argc++] = "-H";
    static char pids[4096];
    size_t off = 0;
    pids[0] = '\0';
    for (int i = 0; i < n && off < sizeof(pids) - 16; i++) {
        int dup = 0;
        for (int k = 0; k < i; k++)
            dup |= v[k].pid == v[i].pid;
        if (!dup)
            off += (size_t)snprintf(pids + off, sizeof(pids) - off, "%s%d",
                                    off ? "," : "", (int)v[i].pid);
    }
    if (o->ps) {
        argv[argc++] = "-p";
        argv[argc++] = pids;
    } else {
        argv[argc++] = "-p";
        argv[argc++] = pids;
    }
    argv[argc] = NULL;
    fflush(NULL);
    execvp(argv[0], argv);
    die(1, "cannot run %s: %s", argv[0], strerror(errno));
}

int main(int argc, char **argv)
{
    struct pips_opts o;
    memset(&o, 0, sizeof(o));
    o.sig = -1;
    o.header = 1;
    char ax[4] = "";
    int i = 1;

    /* PiP's first argument may be ps's BSD letters a, u, x. */
    if (argc > 1 && argv[1][0] != '\0' &&
        strspn(argv[1], "aux") == strlen(argv[1])) {
        if (strchr(argv[1], 'a') != NULL)
            strcat(ax, "a");
        if (strchr(argv[1], 'x') != NULL)
            strcat(ax, "x");
        o.bsd_u = strchr(argv[1], 'u') != NULL;
        i = 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (pip_tool_version("pips", a))
            return 0;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-") == 0 || strcmp(a, "--") == 0) {
            continue;
        } else if (strcmp(a, "-r") == 0 || strcmp(a, "--root") == 0) {
            o.roots_only = 1;
        } else if (strcmp(a, "-t") == 0 || strcmp(a, "--task") == 0) {
            o.tasks_only = 1;
        } else if (strcmp(a, "-f") == 0 || strcmp(a, "--family") == 0) {
            o.family = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o.verbose = 1;
        } else if (strcmp(a, "--debug") == 0) {
            /* PiP's debugging output of its own parser: nothing here */
        } else if (strcmp(a, "-l") == 0) {
            o.long_table = 1;
        } else if (strcmp(a, "-m") == 0 || strcmp(a, "--mode") == 0) {
            if (next == NULL)
                die(PIPS_USAGE, "%s: no mode given (see %s -h)", a, prog_name);
            if (next[0] == '\0' || strspn(next, "PLGCTplgct") != strlen(next))
                die(PIPS_USAGE, "%s '%s': invalid mode (letters of PLGCT)", a,
                    next);
            o.modes = next;
            i++;
        } else if (strcmp(a, "-k") == 0 || strcmp(a, "--kill") == 0) {
            if (o.sig >= 0 && o.sig != SIGTERM)
                die(PIPS_USAGE, "-k and -s exclude each other (see %s -h)",
                    prog_name);
            o.sig = SIGTERM;
        } else if (strcmp(a, "-P") == 0 || strcmp(a, "--ps") == 0 ||
                   strcmp(a, "-T") == 0 || strcmp(a, "--top") == 0) {
            int is_ps = a[1] == 'P' || strcmp(a, "--ps") == 0;
            char *opts = NULL;
            if (next != NULL && strcmp(next, "-") != 0 &&
                strcmp(next, "--") != 0) {
                opts = argv[++i];
            } else if (next != NULL) {
                i++;
            }
            if (is_ps) {
                o.ps = 1;
                o.ps_opts = opts;
            } else {
                o.top = 1;
                o.top_opts = opts;
            }
        } else if (strcmp(a, "-R") == 0) {
            o.sig_roots = 1;
        } else if (strcmp(a, "-H") == 0) {
            o.header = 0;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "--signal") == 0 ||
                   strcmp(a, "-p") == 0 || strcmp(a, "-i") == 0 ||
                   strcmp(a, "-n") == 0) {
            if (next == NULL)
                die(PIPS_USAGE, "option %s needs a value (see %s -h)", a,
                    prog_name);
            const char *val = argv[++i];
            if (a[1] == 's' || a[2] == 's') {
                if (o.sig >= 0)
                    die(PIPS_USAGE,
                        "-k and -s exclude each other, and -s comes once "
                        "(see %s -h)",
                        prog_name);
                o.sig = parse_signal(val);
                continue;
            }
            struct filters *f = &o.f;
            if (f->npid + f->npipid + f->nname >= MAX_FILTERS)
                die(PIPS_USAGE, "too many filters (at most %d)", MAX_FILTERS);
            if (a[1] == 'p')
                f->pid[f->npid++] = parse_num("-p", val, 1);
            else if (a[1] == 'i')
                f->pipid[f->npipid++] = parse_num("-i", val, 0);
            else if (*val == '\0')
                die(PIPS_USAGE, "-n: empty program name");
            else
                f->name[f->nname++] = val;
        } else if (a[0] == '-') {
            die(PIPS_USAGE, "unknown option '%s' (see %s -h)", a, prog_name);
        } else {
            if (o.npat >= MAX_FILTERS)
                die(PIPS_USAGE, "too many patterns (at most %d)", MAX_FILTERS);
            o.pat[o.npat++] = a;
        }
    }
    if (o.sig_roots && o.sig < 0)
        die(PIPS_USAGE, "-R needs -k or -s SIG (see %s -h)", prog_name);
    if (o.ps + o.top + (o.sig >= 0) > 1)
        die(PIPS_USAGE,
            "--kill/--signal, --ps and --top exclude each other (see %s "
            "-h)",
            prog_name);
    if (o.roots_only && o.tasks_only) /* PiP: both given means both */
        o.roots_only = o.tasks_only = 0;

    int nroots = 0, nsel = 0, failed = 0;
    struct root *roots = pips_find_roots(&nroots);
    if (nroots > 1)
        qsort(roots, (size_t)nroots, sizeof(*roots), pips_cmp_root);
    struct entry *sel = select_entries(&o, roots, nroots, &nsel);
    if (nsel == 0) {
        if (o.sig >= 0 || o.f.npid + o.f.npipid + o.f.nname + o.npat > 0)
            fprintf(stderr, "%s: no PiP root or task matches\n", prog_name);
        else
            fprintf(stderr, "%s: no PiP task found\n", prog_name);
        failed = 1;
    } else if (o.sig >= 0) {
        /*
         * Roots first: otherwise a root may see its tasks die and exit on
         * its own before the signal reaches it.
         */
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < nsel; k++) {
                struct entry *e = &sel[k];
                if ((e->task == NULL) != (pass == 0))
                    continue;
                if (o.verbose)
                    printf("pip-tgkill %s %d %d (%s)\n", signal_name(o.sig),
                           (int)e->pid, (int)e->tid, base_name(e->prog));
                failed |= signal_one(e->r, e->pid, e->tid, o.sig) != 0;
            }
    } else if (o.ps || o.top) {
        exec_viewer(&o, ax, sel, nsel);
    } else if (o.long_table) {
        list_long(&o, sel, nsel);
    } else {
        if (!o.family)
            qsort(sel, (size_t)nsel, sizeof(*sel), cmp_tid);
        if (list_pip_columns(&o, sel, nsel) == 0) {
            fprintf(stderr, "%s: no PiP task found\n", prog_name);
            failed = 1;
        }
    }
    free(sel);
    for (int k = 0; k < nroots; k++)
        free(roots[k].tasks);
    free(roots);
    return failed ? 1 : 0;
}
