/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_hooks.c: libc calls of a task program that libpip takes over, by
 * rewriting the program's own PLT/GOT entries (R_*_JUMP_SLOT, and
 * R_*_GLOB_DAT for -fno-plt or a taken address) once it is loaded.  The
 * libraries' calls are not touched.
 *
 *   pthread_create  the new thread starts with the program's initial TLS
 *                   (see pip_tls_fill) and belongs to the task
 *   fclose          of stdin, stdout or stderr: flushes, but leaves the
 *                   stream (and its descriptor) open for the other tasks of
 *                   the namespace, which share the stream
 *   getopt, getopt_long, getopt_long_only
 *                   tasks sharing a namespace share libc's optind, optarg,
 *                   opterr, optopt (bound to the namespace's first program)
 *                   and getopt's internal state: a task's option loop runs
 *                   under the namespace's lock, with the task's own values
 *                   put in libc's variables, until getopt returns -1
 *   kill            thread mode: kill(getpid(), sig) signals the task
 *                   itself (its main thread), not the whole root
 *   sigaction, signal, alarm, setitimer, getitimer
 *                   thread mode: SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1 and
 *                   SIGUSR2 get a handler per task (the process's handler
 *                   is libpip's, which calls the handler of the task whose
 *                   thread took the signal), and ITIMER_REAL (alarm) is a
 *                   timer per task that signals the task's main thread
 */
#include "pip_internal.h"

#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The image whose code called (its l_addr), or the calling task's. */
static struct pip_image *pip_caller_image(void *ra)
{
    struct pip_root *r = pip_root_;
    Dl_info di;
    if (r != NULL && dladdr(ra, &di) != 0)
        for (struct pip_image *img = r->images; img != NULL; img = img->next)
            if ((uintptr_t)di.dli_fbase == img->l_addr)
                return img;
    struct pip_task *t = pip_cur_task();
    return t != NULL ? t->img : NULL;
}

/* ---- pthread_create ---- */

/*
 * Threads a task creates.  ld.so fills a new thread's static TLS with the
 * root executable's initial image, where the task program's TLS lives (see
 * pip_tls_fill).  A task program's pthread_create (its PLT/GOT slot)
 * comes here: the thread starts in pip_thread_start, which puts the
 * program's initial image in place before the thread's function runs.
 */
struct pip_thread_start {
    void *(*fn)(void *);
    void *arg;
    const struct pip_image *img;
    struct pip_task *task;
};

static void *pip_thread_start(void *a)
{
    struct pip_thread_start s = *(struct pip_thread_start *)a;
    (void)munmap(a, sizeof(s));
    pip_tls_fill(s.img);
    pip_sig_task_ = s.task;
    return s.fn(s.arg);
}

static int pip_task_pthread_create(pthread_t *th, const pthread_attr_t *attr,
                                   void *(*fn)(void *), void *arg)
{
    /* The calling image: the one whose code called (its l_addr). */
    Dl_info di;
    const struct pip_image *img = NULL;
    struct pip_root *r = pip_root_;
    if (dladdr(__builtin_return_address(0), &di) != 0 && r != NULL)
        for (img = r->images; img != NULL; img = img->next)
            if ((uintptr_t)di.dli_fbase == img->l_addr)
                break;
    if (img == NULL) /* cannot happen: only images call here */
        return EAGAIN;
    struct pip_thread_start *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED)
        return EAGAIN;
    s->fn = fn;
    s->arg = arg;
    s->img = img;
    s->task = pip_sig_task_;
    int rc = img->ns->pthread_create(th, attr, pip_thread_start, s);
    if (rc != 0)
        (void)munmap(s, sizeof(*s));
    return rc;
}

/* ---- fclose ---- */

static int pip_task_fclose(FILE *f)
{
    struct pip_image *img = pip_caller_image(__builtin_return_address(0));
    if (img == NULL) {
        errno = EBADF;
        return EOF;
    }
    struct pip_ns *ns = img->ns;
    for (int i = 0; i < 3; i++)
        if (ns->std[i] != NULL && f == ns->std[i])
            return ns->fflush(f) == 0 ? 0 : EOF;
    return ns->fclose(f);
}

/* ---- getopt ---- */

/* The program's own copy of a libc variable (copy relocation), or NULL. */
static void *pip_own_copy(struct pip_image *img, const char *name)
{
    void *p = dlsym(img->handle, name);
    Dl_info di;
    if (p == NULL || dladdr(p, &di) == 0 ||
        (uintptr_t)di.dli_fbase != img->l_addr)
        return NULL;
    return p;
}

/*
 * libc's own getopt variables are redirected (its GOT entries) to the
 * namespace's slot (pip_ns_getopt_init), so that no program's copy is the
 * one libc uses: each task's copies are put in around its option loop.
 */
struct pip_optvars {
    int *optind, *opterr, *optopt;
    char **optarg;
};

static void pip_optvars_own(struct pip_optvars *v, struct pip_task *t)
{
    struct pip_image *img = t->img;
    v->optind = pip_own_copy(img, "optind");
    v->opterr = pip_own_copy(img, "opterr");
    v->optopt = pip_own_copy(img, "optopt");
    v->optarg = pip_own_copy(img, "optarg");
    /* A program without a copy never reads it: keep it with the task. */
    if (!t->getopt_begun) {
        t->opt_ints[0] = 1;
        t->opt_ints[1] = 1;
        t->opt_ints[2] = '?';
        t->opt_arg = NULL;
    }
    if (v->optind == NULL)
        v->optind = &t->opt_ints[0];
    if (v->opterr == NULL)
        v->opterr = &t->opt_ints[1];
    if (v->optopt == NULL)
        v->optopt = &t->opt_ints[2];
    if (v->optarg == NULL)
        v->optarg = &t->opt_arg;
}

static void pip_optvars_live(struct pip_optvars *v, struct pip_ns *ns)
{
    v->optind = &ns->opt_ints[0];
    v->opterr = &ns->opt_ints[1];
    v->optopt = &ns->opt_ints[2];
    v->optarg = &ns->opt_arg;
}

static void pip_optvars_copy(const struct pip_optvars *to,
                             const struct pip_optvars *from)
{
    *to->optind = *from->optind;
    *to->opterr = *from->opterr;
    *to->optopt = *from->optopt;
    *to->optarg = *from->optarg;
}

enum { PIP_GETOPT, PIP_GETOPT_LONG, PIP_GETOPT_LONG_ONLY };

static int pip_getopt_any(int kind, void *ra, int argc, char *const *argv,
                          const char *opts, const struct option *lo, int *idx)
{
    struct pip_image *img = pip_caller_image(ra);
    struct pip_task *t = pip_cur_task();
    if (img == NULL)
        return -1;
    struct pip_ns *ns = img->ns;
    int (*fn)(int, char *const *, const char *, const struct option *, int *) =
        kind == PIP_GETOPT_LONG        ? ns->getopt_long
        : kind == PIP_GETOPT_LONG_ONLY ? ns->getopt_long_only
                                       : NULL;
    if (t == NULL || t->img != img || !ns->opt_private) {
        /* Not a task's main thread: libc's variables as they are. */
        return fn != NULL ? fn(argc, argv, opts, lo, idx)
                          : ns->getopt(argc, argv, opts);
    }
    struct pip_optvars live, own;
    pip_optvars_live(&live, ns);
    pip_optvars_own(&own, t);
    if (ns->getopt_owner != t) {
        pip_lock(&ns->getopt_lock);
        ns->getopt_owner = t;
        pip_optvars_copy(&live, &own);
        /* A task's first option loop: getopt starts afresh (optind 0). */
        if (!t->getopt_begun && *live.optind == 1)
            *live.optind = 0;
        t->getopt_begun = 1;
    }
    int rc = fn != NULL ? fn(argc, argv, opts, lo, idx)
                        : ns->getopt(argc, argv, opts);
    pip_optvars_copy(&own, &live);
    if (rc == -1)
        pip_getopt_release(t);
    return rc;
}

/* The task's option loop is over (or the task ended in it). */
void pip_getopt_release(struct pip_task *t)
{
    struct pip_ns *ns = t->ns;
    if (ns == NULL || ns->getopt_owner != t)
        return;
    ns->getopt_owner = NULL;
    pip_unlock(&ns->getopt_lock);
}

static int pip_task_getopt(int argc, char *const *argv, const char *opts)
{
    return pip_getopt_any(PIP_GETOPT, __builtin_return_address(0), argc, argv,
                          opts, NULL, NULL);
}

static int pip_task_getopt_long(int argc, char *const *argv, const char *opts,
                                const struct option *lo, int *idx)
{
    return pip_getopt_any(PIP_GETOPT_LONG, __builtin_return_address(0), argc,
                          argv, opts, lo, idx);
}

static int pip_task_getopt_long_only(int argc, char *const *argv,
                                     const char *opts, const struct option *lo,
                                     int *idx)
{
    return pip_getopt_any(PIP_GETOPT_LONG_ONLY, __builtin_return_address(0),
                          argc, argv, opts, lo, idx);
}

/*
 * Point the namespace libc's own references to optind, optarg, opterr and
 * optopt (R_*_GLOB_DAT entries of its GOT, read-only after loading) at the
 * namespace's slot.  0, or -1 if libc is not as expected (then the tasks of
 * a namespace share its getopt variables).
 */
int pip_ns_getopt_init(struct pip_ns *ns)
{
    struct link_map *lm = NULL;
    if (dlinfo(ns->libc, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL ||
        lm->l_ld == NULL)
        return -1;
    uintptr_t base = lm->l_addr;
    uint64_t rela = 0, relasz = 0, symtab = 0, strtab = 0;
    for (const Elf64_Dyn *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_RELA)
            rela = d->d_un.d_ptr;
        else if (d->d_tag == DT_RELASZ)
            relasz = d->d_un.d_val;
        else if (d->d_tag == DT_SYMTAB)
            symtab = d->d_un.d_ptr;
        else if (d->d_tag == DT_STRTAB)
            strtab = d->d_un.d_ptr;
    }
    if (rela == 0 || symtab == 0 || strtab == 0)
        return -1;
    /* ld.so may have relocated these entries of the dynamic section. */
    if (rela < base)
        rela += base;
    if (symtab < base)
        symtab += base;
    if (strtab < base)
        strtab += base;
    /* Its RELRO range, from the program headers mapped with its first
     * page (dl_iterate_phdr sees the caller's namespace only). */
    uintptr_t rlo = 0, rhi = 0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_phentsize != sizeof(Elf64_Phdr))
        return -1;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_GNU_RELRO) {
            rlo = base + ph[i].p_vaddr;
            rhi = rlo + ph[i].p_memsz;
        }
    const Elf64_Sym *syms = (const Elf64_Sym *)symtab;
    const char *strs = (const char *)strtab;
    const struct {
        const char *name;
        void *to;
    } vars[] = {{"optind", &ns->opt_ints[0]},
                {"opterr", &ns->opt_ints[1]},
                {"optopt", &ns->opt_ints[2]},
                {"optarg", &ns->opt_arg}};
    void *slots[4] = {NULL, NULL, NULL, NULL};
    for (uint64_t off = 0; off + sizeof(Elf64_Rela) <= relasz;
         off += sizeof(Elf64_Rela)) {
        const Elf64_Rela *r = (const Elf64_Rela *)(rela + off);
        if (ELF64_R_TYPE(r->r_info) != PIP_R_GLOB_DAT)
            continue;
        const char *name = strs + syms[ELF64_R_SYM(r->r_info)].st_name;
        for (int v = 0; v < 4; v++)
            if (strcmp(name, vars[v].name) == 0)
                slots[v] = (void *)(base + r->r_offset);
    }
    for (int v = 0; v < 4; v++)
        if (slots[v] == NULL)
            return -1;
    /* Start from libc's initial values (its own definitions). */
    int *li = dlsym(ns->libc, "optind"), *le = dlsym(ns->libc, "opterr"),
        *lo = dlsym(ns->libc, "optopt");
    ns->opt_ints[0] = li != NULL ? *li : 1;
    ns->opt_ints[1] = le != NULL ? *le : 1;
    ns->opt_ints[2] = lo != NULL ? *lo : '?';
    ns->opt_arg = NULL;
    for (int v = 0; v < 4; v++) {
        uintptr_t d = (uintptr_t)slots[v];
        int ro = d >= rlo && d < rhi;
        uintptr_t plo = d & ~(uintptr_t)4095;
        size_t plen = ((d + sizeof(void *) + 4095) & ~(uintptr_t)4095) - plo;
        if (ro && mprotect((void *)plo, plen, PROT_READ | PROT_WRITE) != 0)
            return -1;
        void *to = vars[v].to;
        memcpy(slots[v], &to, sizeof(to));
        if (ro)
            (void)mprotect((void *)plo, plen, PROT_READ);
    }
    ns->opt_private = 1;
    return 0;
}

/* ---- signals and ITIMER_REAL, thread mode ---- */

static const int pip_vsigs[5] = {SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2};

static int pip_vsig_index(int sig)
{
    for (int i = 0; i < 5; i++)
        if (pip_vsigs[i] == sig)
            return i;
    return -1;
}

/* The calling thread's task when signals are per task, else NULL. */
static struct pip_task *pip_vsig_task(void)
{
    struct pip_root *r = pip_root_;
    if (r == NULL || r->mode != PIP_MODE_PTHREAD)
        return NULL;
    return pip_thread_task();
}

/* The process's handler of the per-task signals. */
static void pip_vsig_dispatch(int sig, siginfo_t *info, void *ctx)
{
    struct pip_task *t = pip_thread_task();
    int i = pip_vsig_index(sig);
    if (t == NULL || i < 0)
        return; /* a thread of no task (the root's): dropped */
    struct sigaction *a = &t->vsig[i];
    if (a->sa_handler == SIG_IGN)
        return;
    if (a->sa_handler == SIG_DFL) {
        /* The default action ends the task, as it would a process. */
        struct pip_root *r = pip_root_;
        t->kill_sig = sig;
        (void)pip_raw_syscall(SYS_tgkill, r->pid, t->tid, PIP_SIG_TASKEND, 0, 0,
                              0);
        return;
    }
    if (a->sa_flags & SA_SIGINFO) {
        void (*h)(int, siginfo_t *, void *) = a->sa_sigaction;
        if (a->sa_flags & SA_RESETHAND)
            a->sa_handler = SIG_DFL;
        h(sig, info, ctx);
    } else {
        void (*h)(int) = a->sa_handler;
        if (a->sa_flags & SA_RESETHAND)
            a->sa_handler = SIG_DFL;
        h(sig);
    }
}

static int pip_task_sigaction(int sig, const struct sigaction *act,
                              struct sigaction *old)
{
    struct pip_task *t = pip_vsig_task();
    int i = pip_vsig_index(sig);
    if (t == NULL || i < 0) {
        struct pip_image *img = pip_caller_image(__builtin_return_address(0));
        return img != NULL ? img->ns->sigaction(sig, act, old)
                           : sigaction(sig, act, old);
    }
    struct sigaction prev = t->vsig[i];
    if (act != NULL) {
        struct sigaction real;
        memset(&real, 0, sizeof(real));
        real.sa_sigaction = pip_vsig_dispatch;
        real.sa_mask = act->sa_mask;
        real.sa_flags = SA_SIGINFO | (act->sa_flags & SA_RESTART);
        if (sigaction(sig, &real, NULL) != 0)
            return -1;
        t->vsig[i] = *act;
    }
    if (old != NULL)
        *old = prev;
    return 0;
}

static void (*pip_task_signal(int sig, void (*h)(int)))(int)
{
    struct pip_task *t = pip_vsig_task();
    if (t == NULL || pip_vsig_index(sig) < 0) {
        struct pip_image *img = pip_caller_image(__builtin_return_address(0));
        return img != NULL ? img->ns->signal(sig, h) : signal(sig, h);
    }
    struct sigaction a, old;
    memset(&a, 0, sizeof(a));
    a.sa_handler = h;
    a.sa_flags = SA_RESTART;
    if (pip_task_sigaction(sig, &a, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

/*
 * kill(getpid(), sig) in a thread-mode task: the task signals itself, as a
 * process would; the signal goes to the task's main thread (a signal to
 * the whole root could be taken by any thread, another task's included),
 * and one whose default action would end the process ends the task only.
 */
static int pip_task_kill(pid_t pid, int sig)
{
    struct pip_root *r = pip_root_;
    struct pip_task *t = pip_vsig_task();
    long rc;
    if (t != NULL && pid == r->pid && sig > 0 && sig < NSIG && t->tid > 0 &&
        !t->ended) {
        /* Default action "end the process", not blocked by the sender:
         * end the task (pip_taskend.c's PIP_SIG_TASKEND). */
        struct sigaction cur;
        sigset_t blk;
        int send = sig;
        if (pip_sig_ends_process(sig) && sigaction(sig, NULL, &cur) == 0 &&
            !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL &&
            pthread_sigmask(SIG_BLOCK, NULL, &blk) == 0 &&
            !sigismember(&blk, sig)) {
            t->kill_sig = sig;
            send = PIP_SIG_TASKEND;
        }
        rc = pip_raw_syscall(SYS_tgkill, r->pid, t->tid, send, 0, 0, 0);
    } else
        rc = pip_raw_syscall(SYS_kill, pid, sig, 0, 0, 0, 0);
    if (rc >= 0)
        return 0;
    /* errno of the caller's libc */
    struct pip_image *img = pip_caller_image(__builtin_return_address(0));
    int *(*loc)(void) = NULL;
    if (img != NULL)
        *(void **)&loc = dlsym(img->ns->libc, "__errno_location");
    if (loc != NULL)
        *loc() = (int)-rc;
    else
        errno = (int)-rc;
    return -1;
}

/* The task's ITIMER_REAL: a POSIX timer signalling its main thread. */
static int pip_vtimer(struct pip_task *t)
{
    if (t->vtimer_ok)
        return 0;
    struct sigevent ev;
    memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGALRM;
#ifdef sigev_notify_thread_id
    ev.sigev_notify_thread_id = t->tid;
#else
    ev._sigev_un._tid = t->tid;
#endif
    if (timer_create(CLOCK_REALTIME, &ev, &t->vtimer) != 0)
        return -1;
    t->vtimer_ok = 1;
    return 0;
}

void pip_vtimer_delete(struct pip_task *t)
{
    if (t->vtimer_ok) {
        t->vtimer_ok = 0;
        (void)timer_delete(t->vtimer);
    }
}

static void pip_tv_to_ts(struct timespec *ts, const struct timeval *tv)
{
    ts->tv_sec = tv->tv_sec;
    ts->tv_nsec = tv->tv_usec * 1000;
}

static void pip_ts_to_tv(struct timeval *tv, const struct timespec *ts)
{
    tv->tv_sec = ts->tv_sec;
    tv->tv_usec = (ts->tv_nsec + 999) / 1000;
    if (tv->tv_usec >= 1000000) {
        tv->tv_sec++;
        tv->tv_usec -= 1000000;
    }
}

static int pip_vtimer_set(struct pip_task *t, const struct itimerval *nv,
                          struct itimerval *ov)
{
    if (pip_vtimer(t) != 0)
        return -1;
    struct itimerspec n, o;
    memset(&o, 0, sizeof(o));
    int rc;
    if (nv != NULL) {
        pip_tv_to_ts(&n.it_value, &nv->it_value);
        pip_tv_to_ts(&n.it_interval, &nv->it_interval);
        rc = timer_settime(t->vtimer, 0, &n, &o);
    } else {
        rc = timer_gettime(t->vtimer, &o);
    }
    if (rc == 0 && ov != NULL) {
        pip_ts_to_tv(&ov->it_value, &o.it_value);
        pip_ts_to_tv(&ov->it_interval, &o.it_interval);
    }
    return rc;
}

static int pip_task_setitimer(int which, const struct itimerval *nv,
                              struct itimerval *ov)
{
    struct pip_task *t = pip_vsig_task();
    if (t == NULL || which != ITIMER_REAL || t != pip_cur_task()) {
        struct pip_image *img = pip_caller_image(__builtin_return_address(0));
        return img != NULL ? img->ns->setitimer(which, nv, ov)
                           : setitimer(which, nv, ov);
    }
    if (nv == NULL) {
        errno = EFAULT;
        return -1;
    }
    return pip_vtimer_set(t, nv, ov);
}

static int pip_task_getitimer(int which, struct itimerval *ov)
{
    struct pip_task *t = pip_vsig_task();
    if (t == NULL || which != ITIMER_REAL || t != pip_cur_task()) {
        struct pip_image *img = pip_caller_image(__builtin_return_address(0));
        return img != NULL ? img->ns->getitimer(which, ov)
                           : getitimer(which, ov);
    }
    return pip_vtimer_set(t, NULL, ov);
}

static unsigned pip_task_alarm(unsigned sec)
{
    struct pip_task *t = pip_vsig_task();
    if (t == NULL || t != pip_cur_task()) {
        struct pip_image *img = pip_caller_image(__builtin_return_address(0));
        return img != NULL ? img->ns->alarm(sec) : alarm(sec);
    }
    struct itimerval nv, ov;
    memset(&nv, 0, sizeof(nv));
    nv.it_value.tv_sec = sec;
    if (pip_vtimer_set(t, &nv, &ov) != 0)
        return 0;
    /* As alarm(2): the seconds left, rounded, at least 1 if any. */
    unsigned left = (unsigned)ov.it_value.tv_sec;
    if (ov.it_value.tv_usec >= 500000 || (left == 0 && ov.it_value.tv_usec > 0))
        left++;
    return left;
}

/* ---- rewriting the program's entries ---- */

static void pip_set_slot(const struct pip_image *img, void *slot, void *fn)
{
    const struct pip_elf_info *e = &img->elf;
    uintptr_t d = (uintptr_t)slot;
    uintptr_t rlo = img->l_addr + e->relro_vaddr;
    uintptr_t rhi = rlo + e->relro_memsz;
    int ro = e->relro_memsz > 0 && d < rhi && d + sizeof(fn) > rlo;
    uintptr_t plo = d & ~(uintptr_t)4095;
    size_t plen = ((d + sizeof(fn) + 4095) & ~(uintptr_t)4095) - plo;
    if (ro && mprotect((void *)plo, plen, PROT_READ | PROT_WRITE) != 0)
        return;
    memcpy(slot, &fn, sizeof(fn));
    if (ro)
        (void)mprotect((void *)plo, plen, PROT_READ);
}

void pip_hooks_install(struct pip_image *img)
{
    const struct pip_elf_info *e = &img->elf;
    if (e->symtab == 0 || e->strtab == 0)
        return;
    const struct {
        const char *name;
        void *fn;
    } hooks[] = {
        {"pthread_create", (void *)pip_task_pthread_create},
        {"sigaction", (void *)pip_task_sigaction},
        {"signal", (void *)pip_task_signal},
        {"alarm", (void *)pip_task_alarm},
        {"setitimer", (void *)pip_task_setitimer},
        {"getitimer", (void *)pip_task_getitimer},
        {"kill", (void *)pip_task_kill},
        {"fclose", (void *)pip_task_fclose},
        {"getopt", (void *)pip_task_getopt},
        {"getopt_long", (void *)pip_task_getopt_long},
        {"getopt_long_only", (void *)pip_task_getopt_long_only},
    };
    const char *strtab = (const char *)(img->l_addr + e->strtab);
    const Elf64_Sym *symtab = (const Elf64_Sym *)(img->l_addr + e->symtab);
    const struct {
        uint64_t at, size;
    } tabs[2] = {{e->rela, e->relasz}, {e->jmprel, e->pltrelsz}};
    for (int k = 0; k < 2; k++) {
        if (tabs[k].at == 0)
            continue;
        for (uint64_t off = 0; off + sizeof(Elf64_Rela) <= tabs[k].size;
             off += sizeof(Elf64_Rela)) {
            const Elf64_Rela *r =
                (const Elf64_Rela *)(img->l_addr + tabs[k].at + off);
            uint32_t type = ELF64_R_TYPE(r->r_info);
            if ((type != PIP_R_JUMP_SLOT && type != PIP_R_GLOB_DAT) ||
                ELF64_R_SYM(r->r_info) == 0)
                continue;
            const Elf64_Sym *sym = &symtab[ELF64_R_SYM(r->r_info)];
            if (sym->st_shndx != SHN_UNDEF)
                continue;
            const char *name = strtab + sym->st_name;
            for (size_t h = 0; h < sizeof(hooks) / sizeof(hooks[0]); h++) {
                if (hooks[h].fn == NULL || strcmp(name, hooks[h].name) != 0)
                    continue;
                pip_set_slot(img, (void *)(img->l_addr + r->r_offset),
                             hooks[h].fn);
                pip_dbg("%s of the program: libpip's", name);
            }
        }
    }
}
