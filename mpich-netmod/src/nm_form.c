/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_form.c: the PiP form under a plain LD_PRELOAD (the default on one
 * node; MPIDELEG_FORM=pip asks for it, MPIDELEG_FORM=process refuses it):
 *
 *   MPIDELEG_BOARD_SIZE=1 LD_PRELOAD=libmpideleg.so mpiexec -n 4 ./a.out
 *
 * The library's constructor runs in every process mpiexec starts, before
 * main.  Under hydra's default PMI each rank has PMI_FD (its connection to
 * the launcher), PMI_RANK and PMI_SIZE.  The ranks are cut into the shim's
 * delegatee groups (as MPI_Init will, nm_init.c); the first rank of each
 * group becomes a PiP root (libpip, opened here with dlopen) and runs every
 * rank of its group as a PiP task of the same program (thread-mode tasks
 * in glibc namespaces, or, for a group beyond libpip's namespaces,
 * process-mode tasks with private process images: choose_kind), each
 * with the environment and argv of its own process and PMI_FD naming that
 * process's launcher connection, passed over the group socket
 * (SCM_RIGHTS): each task joins the job as its rank, the group shares one
 * address space, and the shim runs in its PiP form (MPIDELEG_PIP=1).  The
 * program is not linked with the shim, and LD_PRELOAD does not reach
 * dlmopen namespaces: libpip loads the shim first into each task's
 * namespace (PIP_NS_PRELOAD), which puts it before MPICH in every lookup
 * of the namespace, as LD_PRELOAD does in a process.
 *
 * The other processes of the group stay as stand-ins (nm_standin.h): they
 * exit with their task's status.  Whatever prevents the PiP form (no
 * libpip, no PMI_FD, a program that is not a PIE or whose main cannot be
 * found, a group member that does not show up, a sanitizer runtime,
 * valgrind) makes the whole group fall back to the process form, with one
 * line on stderr when MPIDELEG_FORM=pip asked for the PiP form (unless
 * MPIDELEG_QUIET=1) or MPIDELEG_DEBUG is set: nothing has touched MPI by
 * then.  Without MPIDELEG_FORM, a job whose ranks are not all on this node
 * (hydra's MPI_LOCALNRANKS below PMI_SIZE) runs the process form at once.
 *
 * Limits: thread-mode tasks write to the root's stdout and stderr (they
 * share the root's descriptor table, which the delegation region and
 * doorbells rely on) and share rank 0's stdin; private images get their
 * stand-in's (task_fds_hook).
 */
#include "nm_member.h"
#include "nm_standin.h"
#include "pvas_log.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <strings.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <pip/pip.h>
#include "pvas_env.h"

#define ME      "mpideleg"
#define TIMEOUT 20.0 /* s: the group's members meet */

extern char **environ;

/* Did MPIDELEG_FORM=pip ask for the PiP form (not only the default)? */
static int asked;

/* Fallback lines: when asked (unless MPIDELEG_QUIET=1), or for debugging. */
static int quiet(void)
{
    /* before main: bad values are refused later, in MPI_Init */
    if (pvas_env_on("MPIDELEG_DEBUG", 0))
        return 0;
    return !asked || pvas_env_on("MPIDELEG_QUIET", 0);
}

static void fallback(long rank, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Said even when not asked (unless MPIDELEG_QUIET=1): the user's own
 * settings keep the group from the PiP form. */
static int loud;

/* One line: why this rank (and its group) runs the process form. */
static void fallback(long rank, const char *fmt, ...)
{
    const char *q = getenv("MPIDELEG_QUIET");
    /* the group settings are the job's: rank 0's group says it once */
    if (loud ? (q && strcmp(q, "1") == 0) || rank != 0 : quiet())
        return;
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr, ME ": rank %ld: %s: %s: the process form runs\n", rank,
            asked ? "MPIDELEG_FORM=pip" : "the PiP form", why);
}

/* A non-negative integer variable; dflt when unset, -1 when bad. */
static long env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || *end || v < 0 || v > 1 << 20 ? -1 : v;
}

/* The file this copy of the shim was loaded from, or NULL. */
static const char *shim_file(void)
{
    Dl_info di;
    return dladdr((void *)shim_file, &di) ? di.dli_fname : NULL;
}

/* Is this copy of the shim in the process's first namespace (not in a
 * PiP task's)? */
static int in_base_namespace(void)
{
    const char *file = shim_file();
    if (!file)
        return 0;
    void *h = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    Lmid_t id = LM_ID_BASE;
    int ok = h && dlinfo(h, RTLD_DI_LMID, &id) == 0 && id == LM_ID_BASE;
    if (h)
        dlclose(h);
    return ok;
}

/* The string table of a loaded object (relocated by ld.so, or not). */
static const char *dyn_strtab(const struct link_map *lm)
{
    for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_STRTAB)
            return (const char *)(d->d_un.d_ptr < lm->l_addr
                                      ? lm->l_addr + d->d_un.d_ptr
                                      : d->d_un.d_ptr);
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

#define MAX_OBJS 512

/* Does the program need an MPI library (libmpi*), itself or through the
 * libraries it is linked with (DT_NEEDED, as ScaLAPACK's testers reach
 * MPICH through libscalapack-mpich)?  Not so for wrappers that exec it
 * (env, numactl, a shell): they are left alone, and the program they
 * start decides.  (The shim itself needs MPICH, but nothing needs the
 * shim: it is not reached from the program.) */
static int main_needs_mpi(void)
{
    struct link_map *lm = NULL;
    void *h = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        return 0;
    const struct link_map *obj[MAX_OBJS];
    int n = 0;
    for (const struct link_map *l = lm; l && n < MAX_OBJS; l = l->l_next)
        obj[n++] = l;
    /* from the program (obj[0]) along DT_NEEDED, each object once */
    int todo[MAX_OBJS], ntodo = 1;
    unsigned char seen[MAX_OBJS] = {1};
    todo[0] = 0;
    while (ntodo > 0) {
        const struct link_map *o = obj[todo[--ntodo]];
        const char *str = dyn_strtab(o);
        for (const ElfW(Dyn) *d = o->l_ld; str && d->d_tag != DT_NULL; d++) {
            if (d->d_tag != DT_NEEDED)
                continue;
            const char *need = str + d->d_un.d_val;
            if (strncmp(need, "libmpi", 6) == 0)
                return 1;
            for (int j = 1; j < n; j++)
                if (!seen[j] && obj[j]->l_name &&
                    strcmp(base_name(obj[j]->l_name), need) == 0)
                    seen[j] = 1, todo[ntodo++] = j;
        }
    }
    return 0;
}

/* Why this process cannot host PiP tasks (NULL: it can). */
static const char *unfit_process(void)
{
    /* instrumented code keeps its state per process, not per namespace */
    if (dlsym(RTLD_DEFAULT, "__asan_init") ||
        dlsym(RTLD_DEFAULT, "__tsan_init") ||
        dlsym(RTLD_DEFAULT, "__msan_init"))
        return "a sanitizer runtime is loaded";
    const char *pre = getenv("LD_PRELOAD");
    if (pre && strstr(pre, "vgpreload"))
        return "the program runs under valgrind";
    return NULL;
}

/* ------------------------------------------------------------------ */
/* A member's message: header, then exe, argv and environment strings */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* The two roles                                                       */
/* ------------------------------------------------------------------ */

/* A stand-in: hand this rank over to the group's root and exit with its
 * task's status; returns only to fall back (the process form). */
static void stand_in(const char *key, long g, long rank, int pmi_fd, int argc,
                     char **argv)
{
    struct sockaddr_un a;
    socklen_t len = nm_si_addr(&a, key, g);
    int fd = nm_si_connect(&a, len, TIMEOUT);
    if (fd < 0) {
        fallback(rank, "the group's first rank did not answer within %g s",
                 TIMEOUT);
        return;
    }
    char verdict = 0;
    if (nm_mb_send(fd, rank, pmi_fd, argc, argv) != 0 ||
        nm_mb_xfer(fd, &verdict, 1, 0) != 0 || verdict != 'G') {
        close(fd); /* the root said why, or is gone before spawning */
        return;
    }
    fflush(NULL);
    _exit(nm_si_wait(fd, rank, ME));
}

struct pipfns {
    int (*init)(int *, int *, void **, int);
    int (*spawn)(char *, char **, char **, uint32_t, int *, pip_spawnhook_t,
                 pip_spawnhook_t, void *);
    int (*wait_any)(int *, int *);
    int (*fin)(void);
    int (*check)(const char *, int);
    int (*nsmax)(uint32_t, int *);
    const char *(*env_error)(void);
    int (*ntasks_max)(int); /* optional: more than PIP_NTASKS_MAX tasks */
};

/* libpip's entry points; NULL and *why on failure. */
static void *open_libpip(struct pipfns *f, const char **why)
{
    void *h = dlopen("libpip.so.0", RTLD_NOW | RTLD_LOCAL);
    const char *file = shim_file(), *slash;
    char path[PATH_MAX];
    /* installed beside the shim (one libdir) */
    if (!h && file && (slash = strrchr(file, '/')) != NULL &&
        snprintf(path, sizeof path, "%.*s/libpip.so.0", (int)(slash - file),
                 file) < (int)sizeof path)
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        *why = "libpip.so.0 cannot be loaded";
        return NULL;
    }
    *(void **)&f->init = dlsym(h, "pip_init");
    *(void **)&f->spawn = dlsym(h, "pip_spawn");
    *(void **)&f->wait_any = dlsym(h, "pip_wait_any");
    *(void **)&f->fin = dlsym(h, "pip_fin");
    *(void **)&f->check = dlsym(h, "pip_check_pie");
    *(void **)&f->nsmax = dlsym(h, "pip_namespaces_max");
    *(void **)&f->env_error = dlsym(h, "pip_env_error_");
    *(void **)&f->ntasks_max = dlsym(h, "pip_ntasks_max_");
    if (!f->init || !f->spawn || !f->wait_any || !f->fin || !f->check ||
        !f->nsmax || !f->env_error) {
        *why = "libpip.so.0 lacks an entry point";
        return NULL;
    }
    return h;
}

/* Why the program cannot run as PiP tasks, from pip_check_pie's code. */
static const char *pie_why(int e)
{
    switch (e) {
    case ELIBEXEC:
        return "the program is not a PIE (ET_EXEC)";
    case ENOEXEC:
        return "main not found (stripped, and its _start not understood)";
    default:
        return "libpip cannot load the program";
    }
}

/* How a group's ranks run as PiP tasks, each with a libc (and MPICH) of
 * its own: loaded into glibc namespaces of a thread-mode root (the
 * delegatee's work then runs on its clients' threads too: turns), or as
 * process-mode tasks with private process images (libpip's own loader copy
 * each: any number of ranks). */
enum kind { K_NAMESPACES, K_PRIVATE };

static int env_is(const char *name, const char *val)
{
    const char *v = getenv(name);
    return v && strcasecmp(v, val) == 0;
}

/* Choose the group's kind of tasks (*kind) and libpip's mode (*mode);
 * NULL, or why the group cannot run in the PiP form (then said even when
 * not asked: the user's own settings keep it from the PiP form).
 *
 * PIP_MODE thread (or pthread), or PIP_IMAGE=namespace: namespaces (in
 * thread mode unless PIP_MODE names a process mode).  Otherwise
 * PIP_MODE=process (or a process: variant) or PIP_IMAGE=private: private
 * images.  Neither: namespaces in thread mode when the group fits
 * libpip's namespace budget of a process-mode root (pip_namespaces_max:
 * PIP_NAMESPACES, default 8: a preloaded root cannot raise glibc's
 * glibc.rtld.nns tunable, as pip-exec does for thread mode's 15), private
 * images otherwise.  Namespaces must not be shared: two ranks on one copy
 * of libc and MPICH would wait for each other for ever. */
static const char *choose_kind(const struct pipfns *pf, int ntasks, int *kind,
                               uint32_t *mode, char *buf, size_t len)
{
    const char *m = getenv("PIP_MODE"), *img = getenv("PIP_IMAGE");
    int thread = env_is("PIP_MODE", "thread") || env_is("PIP_MODE", "pthread");
    int process = m && *m && !thread;
    int want_ns = env_is("PIP_IMAGE", "namespace");
    int nns = 0;
    loud = 1;
    if (img && *img && !want_ns && !env_is("PIP_IMAGE", "private")) {
        snprintf(buf, len, "PIP_IMAGE='%s' must be private or namespace", img);
        return buf;
    }
    if (pf->nsmax(0, &nns) != 0) {
        const char *e = pf->env_error();
        snprintf(buf, len, "%s", e ? e : "libpip refuses PIP_MODE");
        return buf;
    }
    *mode = process ? PIP_MODE_PROCESS : PIP_MODE_PTHREAD;
    if (!thread && !want_ns &&
        (process || env_is("PIP_IMAGE", "private") || ntasks > nns)) {
        loud = 0;
        *kind = K_PRIVATE;
        *mode = PIP_MODE_PROCESS;
        return NULL;
    }
    if (ntasks <= nns) {
        loud = 0;
        *kind = K_NAMESPACES;
        return NULL;
    }
    snprintf(buf, len,
             "a group of %d ranks needs %d PiP namespaces (%s), "
             "PIP_NAMESPACES allows %d: unset %s (private process images), "
             "raise PIP_NAMESPACES, or lower MPIDELEG_BOARD_SIZE or "
             "MPIDELEG_BOARDS_PER_DELEGATEE",
             ntasks, ntasks,
             want_ns ? "PIP_IMAGE=namespace" : "PIP_MODE=thread", nns,
             want_ns ? "PIP_IMAGE" : "PIP_MODE");
    return buf;
}

/* Is the program at path position-dependent (ET_EXEC)? */
static int is_et_exec(const char *path)
{
    ElfW(Ehdr) eh;
    FILE *f = fopen(path, "re");
    int r = f && fread(&eh, sizeof eh, 1, f) == 1 && eh.e_type == ET_EXEC;
    if (f)
        fclose(f);
    return r;
}

/* A private-image task's descriptors, set in the task by the spawn's
 * "before" hook (on the root's thread block, the root waiting): its
 * stand-in's stdin, stdout and stderr as 0, 1 and 2 (the launcher sees a
 * rank's output as that rank's, through a stdio of its own, and gives it
 * its own input), its own launcher connection, none of the other
 * members'. */
struct task_fds {
    const struct member *mbs;
    int n, me, root_pmi, fds;
};

static int task_fds_hook(void *arg)
{
    const struct task_fds *h = arg;
    const struct member *m = &h->mbs[h->me];
    /* A session of its own, as hydra gives each rank: with the kernel's
     * autogroup scheduling (sched_autogroup_enabled) a session shares the
     * CPUs fairly with the other sessions, and a group's tasks left in the
     * root's session would share one session's time on a busy machine. */
    (void)setsid();
    if (!h->fds)
        return 0;
    /* Default actions for what the root catches, as exec would leave them
     * (before the task's loader runs its libraries' constructors): a
     * handler copied from the root runs the root's code, and UCX's, which
     * a task's UCX chains to, would run the root's UCX on the task's libc
     * (a rank's SIGSEGV then ended the root). */
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0)
            continue;
        if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = SIG_DFL;
            (void)sigaction(sig, &sa, NULL);
        }
    }
    if (h->me > 0 &&
        (dup2(m->in, 0) < 0 || dup2(m->out, 1) < 0 || dup2(m->err, 2) < 0))
        return 1;
    if (h->me > 0 && h->root_pmi >= 0)
        close(h->root_pmi);
    for (int i = 1; i < h->n; i++) {
        const struct member *o = &h->mbs[i];
        if (i != h->me && o->pmi_fd > 2)
            close(o->pmi_fd);
        if (o->in > 2)
            close(o->in);
        if (o->out > 2)
            close(o->out);
        if (o->err > 2)
            close(o->err);
    }
    return 0;
}

/* Gather the group's stand-ins for up to TIMEOUT s: how many came. */
static int gather(int lfd, long first, long last, struct member *mbs,
                  const char *why)
{
    int want = (int)(last - first) - 1, got = 0;
    double t0 = nm_si_now();
    while (got < want && nm_si_now() - t0 < TIMEOUT) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            usleep(2000);
            continue;
        }
        if (why) { /* falling back: tell it at once */
            char v = 'F';
            (void)nm_mb_xfer(fd, &v, 1, 1);
            close(fd);
            got++;
        } else if (nm_mb_take(fd, first, last, mbs) == 0) {
            got++;
        } else {
            close(fd);
        }
    }
    return got;
}

/* The group's root: run the group's ranks as PiP tasks, exit with this
 * rank's status; returns only to fall back. */
static void root(const char *key, long g, long first, long last, int argc,
                 char **argv, char **envp, int root_pmi)
{
    struct sockaddr_un a;
    socklen_t alen = nm_si_addr(&a, key, g);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, alen) != 0 ||
        listen(lfd, 64) != 0) {
        fallback(first, "group socket: %s", strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return;
    }
    const char *why = NULL;
    struct pipfns pf = {0};
    void *lib = open_libpip(&pf, &why);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (!why && n <= 0)
        why = "/proc/self/exe cannot be read";
    int ntasks = (int)(last - first), kind = K_NAMESPACES;
    uint32_t pmode = PIP_MODE_PTHREAD;
    char kbuf[400];
    if (!why) {
        exe[n] = '\0';
        why = choose_kind(&pf, ntasks, &kind, &pmode, kbuf, sizeof kbuf);
    }
    if (!why && kind == K_NAMESPACES) {
        int e = pf.check(exe, 0);
        if (e)
            why = pie_why(e);
    }
    /* a private image starts at the program's entry (no main needed); a
     * position-dependent program has one copy at a time */
    if (!why && kind == K_PRIVATE && is_et_exec(exe))
        why = "the program is not a PIE (ET_EXEC): one private image of it "
              "at a time";
    struct member *mbs = calloc((size_t)ntasks, sizeof *mbs);
    if (!why && !mbs)
        why = "out of memory";
    for (int i = 0; mbs && i < ntasks; i++)
        mbs[i].sock = mbs[i].pmi_fd = mbs[i].in = mbs[i].out = mbs[i].err = -1;
    /* Said before any member hears the verdict: a member goes on as the
     * process form at once, and a program that then dies (or another
     * group's) may end the job before this rank could say why. */
    int told = 0;
    if (why) {
        fallback(first, "%s", why);
        told = 1;
    }
    double t_gather = nm_si_now();
    int got = gather(lfd, first, last, mbs, why);
    t_gather = nm_si_now() - t_gather;
    if (!why && got < ntasks - 1)
        why = "a rank of the group did not come (another node?)";
    int pipid = PIP_PIPID_ROOT, nt = ntasks;
    if (!why && kind == K_PRIVATE && ntasks > PIP_NTASKS_MAX &&
        (!pf.ntasks_max || pf.ntasks_max(ntasks) != 0))
        why = "libpip runs at most PIP_NTASKS_MAX tasks per root";
    int pe = why ? 0 : pf.init(&pipid, &nt, NULL, pmode);
    if (pe) {
        const char *ee = pf.env_error();
        loud = 1; /* the user's settings (libpip's variables) */
        snprintf(kbuf, sizeof kbuf, "pip_init failed: %s",
                 ee ? ee : strerror(pe));
        why = kbuf;
    }
    /* This rank's own task: the root's argv and environment. */
    if (!why) {
        int envc = 0;
        while (envp[envc])
            envc++;
        struct member *mb = &mbs[0];
        mb->envv = calloc((size_t)envc + 2, sizeof(char *));
        if (!mb->envv)
            why = "out of memory";
        int e = 0;
        for (int i = 0; !why && i < envc; i++)
            if (strncmp(envp[i], "MPIDELEG_PIP=", 13))
                mb->envv[e++] = envp[i];
        if (!why)
            mb->envv[e] = (char *)"MPIDELEG_PIP=1";
        mb->argv = argv;
        mb->exe = exe;
    }
    char verdict = why ? 'F' : 'G';
    if (why && !told) {
        fallback(first, "%s", why);
        told = 1;
    }
    for (int i = 1; mbs && i < ntasks; i++)
        if (mbs[i].sock >= 0 && nm_mb_xfer(mbs[i].sock, &verdict, 1, 1) != 0 &&
            !why)
            why = "a stand-in went away";
    close(lfd);
    if (why) {
        /* Nothing started: every member goes on as the process form. */
        for (int i = 1; mbs && i < ntasks; i++)
            if (mbs[i].sock >= 0)
                close(mbs[i].sock), close(mbs[i].pmi_fd), close(mbs[i].in),
                    close(mbs[i].out), close(mbs[i].err);
        if (!told)
            fallback(first, "%s", why);
        return;
    }
    (void)argc;
    const char *file = shim_file();
    if (!file || setenv("PIP_NS_PRELOAD", file, 1) != 0) {
        fprintf(stderr, ME ": rank %ld: cannot name the shim's file\n", first);
        _exit(2);
    }
    int32_t *status = calloc((size_t)ntasks, sizeof *status);
    double t_spawn = nm_si_now();
    for (int i = 0; i < ntasks; i++) {
        if (!status) {
            fprintf(stderr, ME ": rank %ld: out of memory\n", first);
            for (int k = 1; k < ntasks; k++)
                (void)nm_si_tell(mbs[k].sock, 2 << 8);
            fflush(NULL);
            _exit(2);
        }
        int tid = i;
        /* the task's stdout and stderr, for the shim's copy loaded into
         * its namespace during the spawn (task_stdio); a private image
         * gets them as its descriptors 1 and 2 (task_fds_hook) */
        char sio[32];
        snprintf(sio, sizeof sio, "%d,%d", mbs[i].out, mbs[i].err);
        if (i > 0 && kind == K_NAMESPACES)
            (void)setenv("MPIDELEG_PIP_STDIO", sio, 1);
        else
            (void)unsetenv("MPIDELEG_PIP_STDIO");
        struct task_fds tf = {mbs, ntasks, i, root_pmi, kind == K_PRIVATE};
        int e = pf.spawn(mbs[i].exe, mbs[i].argv, mbs[i].envv, PIP_CPUCORE_ASIS,
                         &tid, pmode == PIP_MODE_PROCESS ? task_fds_hook : NULL,
                         NULL, &tf);
        if (e) {
            /* Ranks may be running: the job cannot go on. */
            fprintf(stderr, ME ": rank %ld: cannot start the PiP task: %s\n",
                    first + i, strerror(e));
            for (int k = 1; k < ntasks; k++)
                (void)nm_si_tell(mbs[k].sock, 2 << 8);
            fflush(NULL);
            _exit(2);
        }
    }
    (void)unsetenv("MPIDELEG_PIP_STDIO");
    /* private images hold their own copies: a rank's output ends when its
     * task does */
    for (int i = 1; i < ntasks; i++) {
        close(mbs[i].in); /* namespaces: stdin is the root's */
        if (kind == K_PRIVATE)
            close(mbs[i].pmi_fd), close(mbs[i].out), close(mbs[i].err);
    }
    pvas_log(PVAS_LOG_MPIDELEG, PVAS_LOG_DEBUG,
             "PiP root of ranks %ld-%ld (%s): stand-ins came in %.1f ms, %d "
             "tasks spawned in %.1f ms",
             first, last - 1,
             kind == K_PRIVATE           ? "private process images"
             : pmode == PIP_MODE_PTHREAD ? "namespaces, thread mode"
                                         : "namespaces, process mode",
             1e3 * t_gather, ntasks, 1e3 * (nm_si_now() - t_spawn));
    for (int left = ntasks; left > 0; left--) {
        int id = -1, st = 0;
        if (pf.wait_any(&id, &st) != 0)
            break;
        if (id < 0 || id >= ntasks)
            continue;
        status[id] = st;
        if (id > 0) {
            (void)nm_si_tell(mbs[id].sock, st);
            close(mbs[id].sock);
        }
    }
    int code = nm_si_code(status[0]);
    pf.fin();
    (void)lib;
    fflush(NULL);
    _exit(code);
}

/* ------------------------------------------------------------------ */
/* The constructor                                                     */
/* ------------------------------------------------------------------ */

/* In a task's namespace, loaded by the root's spawn: the namespace's
 * stdout and stderr write to the stand-in's descriptors (the root sets
 * MPIDELEG_PIP_STDIO in its environment, which a new namespace's libc
 * starts from), so that the launcher sees a rank's output as that rank's.
 * The descriptor table stays the root's: write(1, ...) still goes out
 * through the root's stdout. */
static void task_stdio(void)
{
    const char *s = getenv("MPIDELEG_PIP_STDIO");
    int out, err;
    if (!s || sscanf(s, "%d,%d", &out, &err) != 2 || out < 0 || err < 0)
        return;
    fflush(stdout);
    fflush(stderr);
    stdout->_fileno = out;
    stderr->_fileno = err;
}

/* libmpiio-earth in the same process: both libraries wrap MPI calls and
 * call MPICH's PMPI_ entries, which bypass the other (EARTH's MPI_Init
 * would keep the delegatees from starting, or the shim's MPI_File_open
 * EARTH from seeing the file): the pair is refused before main, in either
 * order and form, with one line from rank 0 and status 2. */
static void refuse_earth(void)
{
    if (!dlsym(RTLD_DEFAULT, "earth_file_stats"))
        return;
    const char *r = getenv(getenv("PMI_RANK") ? "PMI_RANK" : "PMI_ID");
    if (r && strcmp(r, "0") == 0)
        fprintf(stderr, ME ": libmpiio-earth.so is loaded too: the two "
                           "libraries do not combine; preload one of them\n");
    fflush(NULL);
    _exit(2);
}

__attribute__((constructor)) static void nm_form_init(int argc, char **argv,
                                                      char **envp)
{
    if ((getenv("PMI_FD") || getenv("PMI_PORT")) && in_base_namespace() &&
        !getenv("MPIDELEG_PIP") && main_needs_mpi())
        refuse_earth();
    const char *f = getenv("MPIDELEG_FORM");
    if (f && strcmp(f, "process") == 0)
        return;
    asked = f && *f;
    /* Only MPI programs started as ranks: not mpiexec, its proxies or
     * wrappers (env) the preload reaches; not the shim's copies in PiP
     * tasks. */
    int has_fd = getenv("PMI_FD") != NULL,
        has_port = getenv("PMI_PORT") != NULL;
    if (!in_base_namespace()) {
        task_stdio();
        return;
    }
    if ((!has_fd && !has_port) || getenv("MPIDELEG_PIP") || !main_needs_mpi())
        return;
    long rank = env_long(has_fd ? "PMI_RANK" : "PMI_ID", 0);
    if (asked && strcmp(f, "pip") != 0) {
        if (rank == 0)
            fprintf(stderr, ME ": MPIDELEG_FORM='%s' must be process or pip\n",
                    f);
        fflush(NULL);
        _exit(2);
    }
    if (!has_fd) {
        if (rank == 0) /* one line for the job */
            fallback(rank, "PMI_FD is not set (hydra's -pmi-port? use "
                           "mpideleg-pip there)");
        return;
    }
    if (pvas_env_on("MPIDELEG_DISABLE", 0))
        return;
    long size = env_long("PMI_SIZE", -1);
    long pmi_fd = env_long("PMI_FD", -1);
    long bs = env_long("MPIDELEG_BOARD_SIZE", 1);
    long bpd = env_long("MPIDELEG_BOARDS_PER_DELEGATEE", 1);
    if (rank < 0 || size < 1 || pmi_fd < 0) {
        fallback(rank, "PMI_RANK, PMI_SIZE or PMI_FD is not a number");
        return;
    }
    long nlocal = env_long("MPI_LOCALNRANKS", -1),
         lid = env_long("MPI_LOCALRANKID", -1);
    /* The default needs hydra's word on which ranks share a node. */
    if (!asked && (nlocal < 1 || lid < 0 || lid >= nlocal)) {
        if (rank == 0)
            fallback(rank, "MPI_LOCALNRANKS or MPI_LOCALRANKID is unset or "
                           "inconsistent (not hydra?)");
        return;
    }
    const char *why = unfit_process();
    if (why) {
        if (rank == 0)
            fallback(rank, "%s", why);
        return;
    }
    if (bs < 1 || bpd < 1)
        return; /* MPI_Init reports the bad value */
    long G = bs * bpd + 1, g = rank / G, first = g * G;
    long last = first + G < size ? first + G : size;
    if (size < 2 || size % G == 1)
        return; /* MPI_Init reports the layout */
    /* The job: the launcher's proxy (hydra_pmi_proxy) is every rank's
     * ancestor on this node. */
    char key[64];
    snprintf(key, sizeof key, "%ld:%ld", (long)nm_si_job_pid(), size);
    /* A group split across nodes runs the process form (its members on
     * each node find so by themselves, without waiting for each other). */
    if (nlocal >= 1 && nlocal < size && lid >= 0 && lid < nlocal &&
        !nm_si_group_is_local(key, rank, size, nlocal, lid, first, last)) {
        if (rank == first)
            fallback(rank,
                     "the ranks %ld-%ld of its group are not all on "
                     "this node (MPI_LOCALNRANKS=%ld)",
                     first, last - 1, nlocal);
        return;
    }
    if (rank != first)
        stand_in(key, g, rank, (int)pmi_fd, argc, argv);
    else
        root(key, g, first, last, argc, argv, envp, (int)pmi_fd);
}
