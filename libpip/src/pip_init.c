/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_init.c: pip_init / pip_fin (the root's state is created and
 * destroyed here; it lives in pip_base.c) and the query functions.
 */
#include "pip_internal.h"
#include "pvas_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PIP_ARENA_SIZE                                                         \
    (4UL << 20) /* named exports: reserved, touched lazily                     \
                 */

/*
 * For pip-exec (not part of the API): process mode only, pip_init accepts
 * up to `n` tasks (at most PIP_NTASKS_BIG), beyond PiP's PIP_NTASKS_MAX:
 * private-image tasks share nothing that limits their number.
 */
#define PIP_NTASKS_BIG 8192
static int pip_ntasks_big_;

__attribute__((visibility("default"))) int pip_ntasks_max_(int n)
{
    if (n < 0 || n > PIP_NTASKS_BIG)
        return EINVAL;
    pip_ntasks_big_ = n;
    return 0;
}

int pip_init(int *pipidp, int *ntasksp, void **root_expp, uint32_t opts)
{
    /* In a task: report who we are. */
    if (pip_get_root() != NULL && pip_is_task_copy()) {
        struct pip_task *self = pip_self();
        if (self == NULL)
            return EPERM;
        if (pipidp != NULL)
            *pipidp = self->pipid;
        if (ntasksp != NULL)
            *ntasksp = pip_root_->ntasks;
        if (root_expp != NULL)
            *root_expp = pip_root_task()->exp;
        return 0;
    }
    if (pip_root_ != NULL)
        return EBUSY;

    int ntasks = ntasksp != NULL ? *ntasksp : PIP_NTASKS_MAX;
    if (ntasks <= 0)
        return EINVAL;
    if (ntasks > PIP_NTASKS_MAX && ntasks > pip_ntasks_big_)
        return EOVERFLOW;

    int mode, shown, rc, nns;
    size_t stacksz;
    const char *bad_log = pvas_log_env_error();
    if (bad_log != NULL) {
        pip_env_error("%s", bad_log);
        return EINVAL;
    }
    if ((rc = pip_parse_mode(opts, &mode, &shown)) != 0)
        return rc;
    if (ntasks > PIP_NTASKS_MAX && mode != PIP_MODE_PROCESS)
        return EOVERFLOW;
    if ((rc = pip_parse_stacksz(&stacksz)) != 0)
        return rc;
    if ((rc = pip_parse_namespaces(ntasks, &nns)) != 0)
        return rc;
    int private_fds;
    if ((rc = pip_parse_fds(&private_fds)) != 0)
        return rc;
    int share_ns;
    if ((rc = pip_parse_share_ns(&share_ns)) != 0)
        return rc;
    if ((rc = pip_parse_image()) != 0)
        return rc;
    /*
     * Thread mode refuses to make live tasks share a libc (pip_loader.c):
     * by default it creates as many namespaces as glibc allows.
     */
    const char *nns_env = getenv("PIP_NAMESPACES");
    if (mode == PIP_MODE_PTHREAD && (nns_env == NULL || *nns_env == '\0'))
        nns = ntasks < PIP_NAMESPACES_MAX ? ntasks : PIP_NAMESPACES_MAX;

    size_t hdr = sizeof(struct pip_root) +
                 sizeof(struct pip_task) * (size_t)(ntasks + 1);
    hdr = (hdr + 63) & ~(size_t)63;
    size_t size = hdr + sizeof(struct pip_ns) * (size_t)nns;
    size = (size + 4095) & ~(size_t)4095;
    struct pip_root *r = mmap(NULL, size, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return ENOMEM;
    r->map_size = size;
    r->nss = (struct pip_ns *)((char *)r + hdr);
    r->arena_size = PIP_ARENA_SIZE;
    r->arena = mmap(NULL, r->arena_size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r->arena == MAP_FAILED) {
        munmap(r, size);
        return ENOMEM;
    }

    /* Also makes the root's libc multi-threaded: see pip_find_tid_offset. */
    rc = pip_find_tid_offset(&r->tid_offset);
    if (rc != 0) {
        pip_msg(0, "cannot find glibc's thread id word (%s)", strerror(rc));
        munmap(r->arena, r->arena_size);
        munmap(r, size);
        return rc == ENOSYS ? EPERM : rc;
    }

    r->ntasks = ntasks;
    r->nns_max = nns;
    r->mode = mode;
    r->mode_shown = shown;
    r->stack_size = stacksz;
    r->stop_on_start = pip_parse_stop_on_start();
    r->private_fds = private_fds;
    r->share_ns = share_ns;
    r->pid = getpid();
    r->tid = (pid_t)syscall(SYS_gettid);
    r->thread = pthread_self();
    (void)pip_root_tls_info(&r->tls_reserve, &r->tls_memsz, &r->tls_align);
    if (sched_getaffinity(0, sizeof(r->cpuset), &r->cpuset) != 0) {
        CPU_ZERO(&r->cpuset);
        CPU_SET(0, &r->cpuset);
    }
    r->ncpus = CPU_COUNT(&r->cpuset);
    r->ncpus_conf = get_nprocs_conf();
    if (r->ncpus_conf <= 0)
        r->ncpus_conf = CPU_SETSIZE;

    for (int i = 0; i <= ntasks; i++) {
        r->tasks[i].pipid = i;
        r->tasks[i].state = PIP_TASK_FREE;
    }
    struct pip_task *rt = &r->tasks[ntasks];
    rt->pipid = PIP_PIPID_ROOT;
    rt->state = PIP_TASK_RUNNING;
    rt->mode = mode;
    rt->pid = r->pid;
    rt->tid = r->tid;
    rt->thread = r->thread;
    rt->exp = root_expp != NULL ? *root_expp : NULL;
    r->magic = PIP_ROOT_MAGIC;

    pip_root_ = r;
    if (mode == PIP_MODE_PTHREAD && (rc = pip_thread_signals_init()) != 0) {
        pip_msg(0, "cannot install the task-end signal handler (%s)",
                strerror(rc));
        pip_root_ = NULL;
        munmap(r->arena, r->arena_size);
        munmap(r, size);
        return rc == EINVAL ? EPERM : rc;
    }
    pip_registry_init();
    if (pipidp != NULL)
        *pipidp = PIP_PIPID_ROOT;
    pip_dbg("root %d initialised: %d tasks, %d namespaces at most, %s mode, "
            "stack %zu, TLS reserve %zu",
            (int)r->pid, ntasks, nns,
            mode == PIP_MODE_PTHREAD ? "thread" : "process", stacksz,
            r->tls_reserve);
    return 0;
}

int pip_fin(void)
{
    /* A task: nothing to finalise (PiP returns 0 there too). */
    if (pip_is_task_copy() && pip_get_root() != NULL)
        return 0;
    if (pip_check_root() != 0)
        return EPERM;
    struct pip_root *r = pip_root_;
    for (int i = 0; i < r->ntasks; i++)
        if (r->tasks[i].state != PIP_TASK_FREE)
            return EBUSY;
    pip_registry_fin();
    r->finalized = 1;
    r->magic = 0;
    /* The images stay loaded (see pip_image); their bookkeeping goes. */
    while (r->images != NULL) {
        struct pip_image *img = r->images;
        r->images = img->next;
        for (int i = 0; i < img->nsnap; i++)
            free(img->snap[i].data);
        free(img->snap);
        free(img->fini_saved);
        free(img);
    }
    for (int i = 0; i < r->nns; i++) {
        free(r->nss[i].envv);
        free(r->nss[i].progname_full_s);
    }
    pip_kept_release(r);
    pip_region_fin();
    while (r->retired != NULL) {
        void **cell = r->retired;
        r->retired = cell[0];
        free(cell[1]);
        free(cell);
    }
    /* Namespaces stay loaded: glibc cannot unload a namespace's libc. */
    munmap(r->arena, r->arena_size);
    munmap(r, r->map_size);
    /* pip_root_ stays non-NULL but invalid-marked: a second call is EPERM. */
    static struct pip_root finalized_mark;
    finalized_mark.finalized = 1;
    pip_root_ = &finalized_mark;
    return 0;
}

int pip_is_initialized(void)
{
    return pip_check_init() == 0;
}

/* ---- queries ---- */

int pip_get_pipid(int *pipidp)
{
    if (pip_check_init() != 0)
        return EPERM;
    if (pipidp != NULL) {
        struct pip_task *self = pip_self();
        *pipidp = self != NULL ? self->pipid : PIP_PIPID_ROOT;
    }
    return 0;
}

int pip_get_ntasks(int *ntasksp)
{
    if (pip_check_init() != 0)
        return EPERM;
    if (ntasksp != NULL)
        *ntasksp = pip_root_->ntasks;
    return 0;
}

int pip_get_mode(int *modep)
{
    if (pip_check_init() != 0)
        return EPERM;
    if (modep != NULL)
        *modep = pip_root_->mode_shown;
    return 0;
}

const char *pip_get_mode_str(void)
{
    if (pip_check_init() != 0)
        return NULL;
    switch (pip_root_->mode_shown) {
    case PIP_MODE_PTHREAD:
        return PIP_ENV_MODE_PTHREAD;
    case PIP_MODE_PROCESS_PIPCLONE:
        return PIP_ENV_MODE_PROCESS_PIPCLONE;
    case PIP_MODE_PROCESS_GOT_OBS:
        return PIP_ENV_MODE_PROCESS_GOT;
    default:
        return PIP_ENV_MODE_PROCESS_PRELOAD;
    }
}

int pip_get_system_id(int pipid, pip_id_t *idp)
{
    struct pip_task *t;
    int rc;
    if (pip_check_init() != 0)
        return EPERM;
    if ((rc = pip_get_task(pipid, &t)) != 0)
        return rc;
    if (t->state != PIP_TASK_RUNNING)
        return ESRCH; /* as PiP: no such task */
    if (idp != NULL) {
        if (pip_root_->mode == PIP_MODE_PTHREAD)
            *idp = (pip_id_t)t->thread;
        else
            *idp = (pip_id_t)t->pid;
    }
    return 0;
}

int pip_isa_root(void)
{
    return pip_check_root() == 0;
}

int pip_isa_task(void)
{
    return pip_check_init() == 0 && pip_is_task_copy();
}

int pip_is_threaded(int *flagp)
{
    if (pip_check_init() != 0)
        return EPERM;
    if (flagp != NULL)
        *flagp = pip_root_->mode == PIP_MODE_PTHREAD;
    return 0;
}

int pip_is_shared_fd(int *flagp)
{
    return pip_is_threaded(flagp);
}
