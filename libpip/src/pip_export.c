/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_export.c: named and unnamed exports, aux pointers, pip_get_addr, and
 * the barrier.
 *
 * Named exports live in an arena the root mapped (not in any namespace's
 * malloc heap), on per-task lists guarded by the root's lock.  Importers
 * wait on the target's exp_seq futex word, which is bumped at each export
 * and when the task ends; a timeout makes them also notice a task that
 * was killed without reaching its exit path.
 */
#include "pip_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define PIP_NAME_MAX 1024

static int pip_format_name(char *buf, size_t size, const char *fmt, va_list ap)
{
    if (fmt == NULL)
        return EINVAL;
    int n = vsnprintf(buf, size, fmt, ap);
    if (n < 0)
        return EINVAL;
    if ((size_t)n >= size)
        return ENAMETOOLONG;
    return 0;
}

static struct pip_named *pip_find_named(struct pip_task *t, const char *name)
{
    for (struct pip_named *e = t->named; e != NULL; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

/* Bump allocation from the root's export arena (mapped by pip_init). */
static void *pip_arena_alloc(size_t sz)
{
    struct pip_root *r = pip_root_;
    void *p = NULL;
    sz = (sz + 15) & ~(size_t)15;
    pip_lock(&r->lock);
    if (r->arena_used + sz <= r->arena_size) {
        p = r->arena + r->arena_used;
        r->arena_used += sz;
    }
    pip_unlock(&r->lock);
    return p;
}

static struct pip_task *pip_self_task(void)
{
    return pip_self() != NULL ? pip_self() : pip_root_task();
}

int pip_named_export(void *exp, const char *fmt, ...)
{
    char name[PIP_NAME_MAX];
    va_list ap;
    int rc;

    if (pip_check_init() != 0)
        return EPERM;
    va_start(ap, fmt);
    rc = pip_format_name(name, sizeof(name), fmt, ap);
    va_end(ap);
    if (rc != 0)
        return rc;

    struct pip_root *r = pip_root_;
    struct pip_task *self = pip_self_task();
    size_t len = strlen(name) + 1;
    struct pip_named *e = pip_arena_alloc(sizeof(*e) + len);
    if (e == NULL)
        return ENOMEM;
    e->addr = exp;
    memcpy(e->name, name, len);
    pip_lock(&r->lock);
    if (pip_find_named(self, name) != NULL) {
        rc = EBUSY; /* the arena entry is wasted; the arena dies at pip_fin */
    } else {
        e->next = self->named;
        __atomic_store_n(&self->named, e, __ATOMIC_RELEASE);
    }
    pip_unlock(&r->lock);
    if (rc == 0) {
        __atomic_add_fetch(&self->exp_seq, 1, __ATOMIC_SEQ_CST);
        pip_futex_wake(&self->exp_seq, INT32_MAX, 0);
    }
    return rc;
}

static int pip_named_get(int pipid, void **expp, int block, const char *fmt,
                         va_list ap)
{
    char name[PIP_NAME_MAX];
    struct pip_task *t;
    int rc;

    if (pip_check_init() != 0)
        return EPERM;
    if ((rc = pip_format_name(name, sizeof(name), fmt, ap)) != 0)
        return rc;
    if ((rc = pip_get_task(pipid, &t)) != 0)
        return rc;
    struct pip_root *r = pip_root_;
    for (;;) {
        uint32_t seq = __atomic_load_n(&t->exp_seq, __ATOMIC_ACQUIRE);
        /*
         * A reaped task's named exports stay on its slot until a new task
         * takes the pipid (its memory stays until pip_fin, as in PiP).
         */
        pip_lock(&r->lock);
        struct pip_named *e = pip_find_named(t, name);
        int state = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
        uint32_t gen = __atomic_load_n(&t->ended_gen, __ATOMIC_ACQUIRE);
        pip_unlock(&r->lock);
        if (e != NULL) {
            if (expp != NULL)
                *expp = e->addr;
            return 0;
        }
        if (state == PIP_TASK_FREE) {
            /*
             * Not spawned yet: wait for the root to spawn it (an importer may
             * well run before the root spawned a higher pipid).  Once a task
             * of this pipid has ended and been reaped without exporting the
             * name, ECANCELED.
             */
            if (gen != 0)
                return block ? ECANCELED : EAGAIN;
        } else if (state == PIP_TASK_RUNNING &&
                   (t->ended || !pip_task_alive(t))) {
            return block ? ECANCELED : EAGAIN;
        }
        if (!block)
            return EAGAIN;
        if (t == pip_self_task())
            return EDEADLK;
        pip_futex_wait(&t->exp_seq, (int)seq, 100, 0);
    }
}

int pip_named_import(int pipid, void **expp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pip_named_get(pipid, expp, 1, fmt, ap);
    va_end(ap);
    return rc;
}

int pip_named_tryimport(int pipid, void **expp, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pip_named_get(pipid, expp, 0, fmt, ap);
    va_end(ap);
    return rc;
}

int pip_export(void *exp)
{
    if (pip_check_init() != 0)
        return EPERM;
    /* As PiP: NULL cannot be exported, and an address only once. */
    if (exp == NULL)
        return EINVAL;
    struct pip_task *self = pip_self_task();
    if (self->exp_set)
        return EBUSY;
    self->exp_set = 1;
    __atomic_store_n(&self->exp, exp, __ATOMIC_RELEASE);
    __atomic_add_fetch(&self->exp_seq, 1, __ATOMIC_SEQ_CST);
    pip_futex_wake(&self->exp_seq, INT32_MAX, 0);
    return 0;
}

int pip_import(int pipid, void **expp)
{
    struct pip_task *t;
    int rc;
    if (pip_check_init() != 0)
        return EPERM;
    if ((rc = pip_get_task(pipid, &t)) != 0)
        return rc;
    if (t->state == PIP_TASK_FREE)
        return ESRCH; /* as PiP: no such task */
    if (expp != NULL)
        *expp = __atomic_load_n(&t->exp, __ATOMIC_ACQUIRE);
    return 0;
}

int pip_set_aux(void *aux)
{
    if (pip_check_init() != 0)
        return EPERM;
    pip_self_task()->aux = aux;
    return 0;
}

int pip_get_aux(void **auxp)
{
    if (pip_check_init() != 0)
        return EPERM;
    if (auxp != NULL)
        *auxp = pip_self_task()->aux;
    return 0;
}

int pip_get_addr(int pipid, const char *symbol, void **addrp)
{
    struct pip_task *t;
    int rc;
    if (pip_check_init() != 0)
        return EPERM;
    if (symbol == NULL || addrp == NULL)
        return EINVAL;
    if ((rc = pip_get_task(pipid, &t)) != 0)
        return rc;
    void *h;
    if (t->pipid == PIP_PIPID_ROOT)
        h = RTLD_DEFAULT;
    else if (t->state != PIP_TASK_FREE && t->priv)
        return pip_image_get_addr(t, symbol, addrp);
    else if (t->state == PIP_TASK_FREE || t->img == NULL)
        return ESRCH; /* as PiP: no such task */
    else
        h = t->img->handle;
    (void)dlerror();
    void *a = dlsym(h, symbol);
    if (a == NULL && dlerror() != NULL)
        return ENOENT;
    *addrp = a;
    return 0;
}

/* ---- barrier ---- */

#define PIP_BARRIER_SPIN 2000

int pip_barrier_init(pip_barrier_t *b, int n)
{
    /* PiP 2.4: EPERM before pip_init (PIP_BARRIER_INIT works anywhere). */
    if (pip_check_init() != 0)
        return EPERM;
    if (b == NULL || n <= 0)
        return EINVAL;
    b->count_init = n;
    b->count = (uint32_t)n;
    b->gsense = 0;
    pip_memory_barrier();
    return 0;
}

int pip_barrier_wait(pip_barrier_t *b)
{
    if (b == NULL || b->count_init <= 0)
        return EINVAL;
    if (b->count_init == 1)
        return 0;
    int sense = __atomic_load_n(&b->gsense, __ATOMIC_ACQUIRE);
    if (__atomic_sub_fetch(&b->count, 1, __ATOMIC_ACQ_REL) == 0) {
        b->count = (uint32_t)b->count_init;
        __atomic_store_n(&b->gsense, !sense, __ATOMIC_RELEASE);
        pip_futex_wake(&b->gsense, INT32_MAX, 0);
        return 0;
    }
    /* Spin briefly (cheap when the others run on other cores), then block. */
    for (int i = 0; i < PIP_BARRIER_SPIN; i++) {
        if (__atomic_load_n(&b->gsense, __ATOMIC_ACQUIRE) != sense)
            return 0;
        pip_pause();
    }
    while (__atomic_load_n(&b->gsense, __ATOMIC_ACQUIRE) == sense)
        pip_futex_wait(&b->gsense, sense, -1, 0);
    return 0;
}

int pip_barrier_fin(pip_barrier_t *b)
{
    if (pip_check_init() != 0)
        return EPERM;
    if (b == NULL || b->count_init <= 0)
        return EINVAL;
    if (b->count != (uint32_t)b->count_init)
        return EBUSY;
    return 0;
}
