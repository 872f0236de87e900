/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_registry.c: the root's registry of running tasks, read by `pips`
 * (layout and protocol in pip_registry.h).
 *
 * Best effort: a root whose registry cannot be created works as before; it
 * is only invisible to pips (PIP_DEBUG=1 says why).  Only the root writes
 * the table, from pip_init, pip_task_spawn, the reaping in pip_wait* and
 * pip_fin; a process-private lock serialises root threads that reap
 * concurrently.
 */
#include "pip_internal.h"
#include "pip_registry.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static struct pip_reg_header *pip_reg_;
static size_t pip_reg_size_;
static int pip_reg_fd_ = -1;
static volatile int pip_reg_lock_;

static struct pip_reg_task *pip_reg_entry(int pipid)
{
    if (pip_reg_ == NULL || pipid < 0 || pipid >= pip_reg_->ntasks)
        return NULL;
    return (struct pip_reg_task *)((char *)pip_reg_ + sizeof(*pip_reg_)) +
           pipid;
}

/* Copy the tail of `src` when it does not fit: the program name is there. */
static void pip_reg_copy_name(char *dst, size_t size, const char *src)
{
    size_t len = src != NULL ? strlen(src) : 0;
    if (len < size) {
        memcpy(dst, src != NULL ? src : "", len + 1);
        return;
    }
    memcpy(dst, "...", 3);
    memcpy(dst + 3, src + len - (size - 4), size - 4);
    dst[size - 1] = '\0';
}

static void pip_reg_write_begin(void)
{
    pip_lock(&pip_reg_lock_);
    __atomic_add_fetch(&pip_reg_->gen, 1, __ATOMIC_SEQ_CST); /* odd */
}

static void pip_reg_write_end(void)
{
    __atomic_add_fetch(&pip_reg_->gen, 1, __ATOMIC_SEQ_CST); /* even */
    pip_unlock(&pip_reg_lock_);
}

void pip_registry_init(void)
{
    struct pip_root *r = pip_root_;
    if (pip_reg_ != NULL || r == NULL)
        return;
    size_t size = sizeof(struct pip_reg_header) +
                  sizeof(struct pip_reg_task) * (size_t)r->ntasks;
    size = (size + 4095) & ~(size_t)4095;
    int fd = memfd_create(PIP_REG_NAME, MFD_CLOEXEC);
    if (fd < 0) {
        pip_dbg("registry: memfd_create: %s (pips will not see this root)",
                strerror(errno));
        return;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        pip_dbg("registry: ftruncate: %s", strerror(errno));
        close(fd);
        return;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        pip_dbg("registry: mmap: %s", strerror(errno));
        close(fd);
        return;
    }
    struct pip_reg_header *h = p;
    h->version = PIP_REG_VERSION;
    h->header_size = sizeof(*h);
    h->entry_size = sizeof(struct pip_reg_task);
    h->root_pid = r->pid;
    h->root_tid = r->tid;
    h->mode = r->mode;
    h->ntasks = r->ntasks;
    pip_reg_copy_name(h->root_prog, sizeof(h->root_prog),
                      program_invocation_name);
    pip_reg_ = h;
    pip_reg_size_ = size;
    pip_reg_fd_ = fd;
    for (int i = 0; i < r->ntasks; i++)
        pip_reg_entry(i)->pipid = i;
    /* Readers check the magic last: publish it after everything else. */
    __atomic_store_n(&h->magic, PIP_REG_MAGIC, __ATOMIC_RELEASE);
}

void pip_registry_task_start(struct pip_task *t, const char *prog)
{
    struct pip_reg_task *e = pip_reg_entry(t->pipid);
    if (e == NULL)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    pip_reg_write_begin();
    e->pid = t->mode == PIP_MODE_PROCESS ? t->pid : pip_root_->pid;
    e->tid = t->tid;
    e->start_ns = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    e->rdebug = t->priv ? (int64_t)t->priv_rdebug : 0;
    pip_reg_copy_name(e->prog, sizeof(e->prog), prog);
    if (e->state != PIP_REG_RUNNING)
        pip_reg_->nrunning++;
    e->state = PIP_REG_RUNNING;
    pip_reg_write_end();
}

void pip_registry_task_end(struct pip_task *t)
{
    struct pip_reg_task *e = pip_reg_entry(t->pipid);
    if (e == NULL || e->state != PIP_REG_RUNNING)
        return;
    pip_reg_write_begin();
    e->state = PIP_REG_FREE;
    e->pid = e->tid = 0;
    pip_reg_->nrunning--;
    pip_reg_write_end();
}

void pip_registry_fin(void)
{
    if (pip_reg_ == NULL)
        return;
    pip_reg_write_begin();
    pip_reg_->magic = 0;
    pip_reg_write_end();
    munmap(pip_reg_, pip_reg_size_);
    close(pip_reg_fd_);
    pip_reg_ = NULL;
    pip_reg_fd_ = -1;
}
