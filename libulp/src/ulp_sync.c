/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_sync.c: mutex and barrier that block at user level.
 *
 * Both are a wait queue plus a word of state under the queue's spin lock.
 * A waiting ULP is suspended (its scheduler runs other ULPs); the mutex is
 * handed over directly to the first waiter, so a woken waiter never has
 * to retry and waiters get the mutex in FIFO order.
 */
#include "ulp_internal.h"

#include <errno.h>
#include <string.h>

int ulp_mutex_init(ulp_mutex_t *m)
{
    if (m == NULL)
        return -EINVAL;
    memset(m, 0, sizeof(*m));
    return 0;
}

int ulp_mutex_lock(ulp_mutex_t *m)
{
    ULP_FORWARD(mutex_lock, m);
    struct ulp *u = ulp_self_;
    if (m == NULL)
        return -EINVAL;
    if (u == NULL)
        return -EPERM;
    ulp_spin_lock(&m->q.lock);
    if (m->owner == NULL) {
        m->owner = u;
        ulp_spin_unlock(&m->q.lock);
        return 0;
    }
    if (m->owner == u) {
        ulp_spin_unlock(&m->q.lock);
        return -EDEADLK;
    }
    /* Owned: wait; the unlocker makes us the owner before resuming us. */
    return ulp_suspend_locked(&m->q, u);
}

int ulp_mutex_trylock(ulp_mutex_t *m)
{
    ULP_FORWARD(mutex_trylock, m);
    struct ulp *u = ulp_self_;
    int rc = 0;
    if (m == NULL)
        return -EINVAL;
    if (u == NULL)
        return -EPERM;
    ulp_spin_lock(&m->q.lock);
    if (m->owner == NULL)
        m->owner = u;
    else
        rc = -EBUSY;
    ulp_spin_unlock(&m->q.lock);
    return rc;
}

int ulp_mutex_unlock(ulp_mutex_t *m)
{
    ULP_FORWARD(mutex_unlock, m);
    struct ulp *u = ulp_self_;
    if (m == NULL)
        return -EINVAL;
    ulp_spin_lock(&m->q.lock);
    if (u == NULL || m->owner != u) {
        ulp_spin_unlock(&m->q.lock);
        return -EPERM;
    }
    struct ulp *w = ulp_waitq_take(&m->q);
    m->owner = w;
    ulp_spin_unlock(&m->q.lock);
    if (w != NULL)
        (void)ulp_wake_list(w);
    return 0;
}

int ulp_mutex_destroy(ulp_mutex_t *m)
{
    if (m == NULL)
        return -EINVAL;
    ulp_spin_lock(&m->q.lock);
    int busy = m->owner != NULL || m->q.head != NULL;
    ulp_spin_unlock(&m->q.lock);
    return busy ? -EBUSY : 0;
}

int ulp_barrier_init(ulp_barrier_t *b, int n)
{
    if (b == NULL || n <= 0)
        return -EINVAL;
    memset(b, 0, sizeof(*b));
    b->n = n;
    return 0;
}

int ulp_barrier_wait(ulp_barrier_t *b)
{
    ULP_FORWARD(barrier_wait, b);
    struct ulp *u = ulp_self_;
    if (b == NULL || b->n <= 0)
        return -EINVAL;
    if (u == NULL)
        return -EPERM;
    ulp_spin_lock(&b->q.lock);
    if (++b->arrived < b->n)
        return ulp_suspend_locked(&b->q, u);
    /* Last one: the next generation starts from zero. */
    b->arrived = 0;
    struct ulp *l = b->q.head;
    b->q.head = b->q.tail = NULL;
    b->q.count = 0;
    ulp_spin_unlock(&b->q.lock);
    (void)ulp_wake_list(l);
    return 1;
}

int ulp_barrier_destroy(ulp_barrier_t *b)
{
    if (b == NULL || b->n <= 0)
        return -EINVAL;
    ulp_spin_lock(&b->q.lock);
    int busy = b->q.head != NULL;
    ulp_spin_unlock(&b->q.lock);
    if (busy)
        return -EBUSY;
    b->n = 0;
    return 0;
}
