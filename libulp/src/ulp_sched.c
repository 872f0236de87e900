/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_sched.c: schedulers, run queues, the switch, yield, suspend/resume,
 * couple/decouple and the park loop.
 *
 * Each scheduler owns a local run queue that only its own kernel thread
 * touches (no lock: a yield is a list operation and a switch), and an inbox
 * (a lock-free stack) where other kernel threads push ULPs they make ready;
 * the owner moves the inbox into the run queue when it looks for work.  A
 * ULP is in at most one queue at a time, so at most one kernel thread ever
 * tries to run it; the busy flag of its context (ulp_ctx_claim) makes that
 * thread wait until a switch away from the ULP on another thread has saved
 * everything.  This is what makes suspend/resume, migration and couple safe
 * across schedulers without a post-switch callback.
 */
#include "ulp_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The switch of the method ulp_init() chose (the copy one: ulp_tls.c). */
static inline void ulp_switch(struct ulp_ctx *from, struct ulp_ctx *to)
{
    if (ulp_g_.copy)
        ulp_switch_copy(from, to);
    else
        ulp_g_.sw(from, to);
}

void ulp_spin_lock(volatile int *l)
{
    unsigned spins = 0;
    for (;;) {
        if (__atomic_load_n(l, __ATOMIC_RELAXED) == 0 &&
            __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) == 0)
            return;
        if (++spins < 100)
            ulp_arch_pause();
        else
            ulp_raw_yield(); /* the holder may be preempted on our core */
    }
}

void ulp_spin_unlock(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* --- run queue (owner thread only) ---------------------------------------- */

static void ulp_rq_push(struct ulp_sched *s, struct ulp *u)
{
    u->next = NULL;
    u->prev = s->rq_tail;
    if (s->rq_tail != NULL)
        s->rq_tail->next = u;
    else
        s->rq_head = u;
    s->rq_tail = u;
    u->rq = s;
}

static void ulp_rq_push_front(struct ulp_sched *s, struct ulp *u)
{
    u->prev = NULL;
    u->next = s->rq_head;
    if (s->rq_head != NULL)
        s->rq_head->prev = u;
    else
        s->rq_tail = u;
    s->rq_head = u;
    u->rq = s;
}

static void ulp_rq_remove(struct ulp_sched *s, struct ulp *u)
{
    if (u->prev != NULL)
        u->prev->next = u->next;
    else
        s->rq_head = u->next;
    if (u->next != NULL)
        u->next->prev = u->prev;
    else
        s->rq_tail = u->prev;
    u->next = u->prev = NULL;
    u->rq = NULL;
}

/* Move what others pushed into the run queue, oldest first. */
static void ulp_rq_drain(struct ulp_sched *s)
{
    if (__atomic_load_n(&s->inbox, __ATOMIC_RELAXED) == NULL)
        return;
    struct ulp *l = __atomic_exchange_n(&s->inbox, NULL, __ATOMIC_ACQUIRE);
    struct ulp *rev = NULL;
    while (l != NULL) {
        struct ulp *n = l->next;
        l->next = rev;
        rev = l;
        l = n;
    }
    while (rev != NULL) {
        struct ulp *n = rev->next;
        ulp_rq_push(s, rev);
        rev = n;
    }
}

static struct ulp *ulp_inbox_take_oldest(struct ulp_sched *v);
static void ulp_kick_a_thief(struct ulp_sched *busy);

static struct ulp *ulp_rq_pop(struct ulp_sched *s)
{
    /*
     * While some scheduler steals, leave handed-over ULPs in the inbox
     * (where a thief can reach them) and take them one at a time.
     */
    if (__atomic_load_n(&ulp_g_.nsteal, __ATOMIC_RELAXED) != 0) {
        if (__atomic_load_n(&s->inbox, __ATOMIC_RELAXED) != NULL) {
            struct ulp *u = ulp_inbox_take_oldest(s);
            /* More wait behind the one we run: an idle thief may take them. */
            if (__atomic_load_n(&s->inbox, __ATOMIC_SEQ_CST) != NULL)
                ulp_kick_a_thief(s);
            if (u != NULL)
                return u;
        }
    } else {
        ulp_rq_drain(s);
    }
    struct ulp *u = s->rq_head;
    if (u != NULL)
        ulp_rq_remove(s, u);
    return u;
}

static void ulp_sched_kick(struct ulp_sched *s)
{
    __atomic_add_fetch(&s->wake, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&s->sleeping, __ATOMIC_SEQ_CST))
        ulp_futex_wake(&s->wake, 1);
}

/*
 * One ULP less belongs to `s`.  refs keeps `s` from being freed by
 * ulp_sched_destroy while we may still touch it.
 */
static void ulp_sched_unref(struct ulp_sched *s)
{
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
    if (__atomic_sub_fetch(&s->nhere, 1, __ATOMIC_SEQ_CST) == 0 && s->stop)
        ulp_sched_kick(s);
    __atomic_sub_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
}

/* `busy` got work it may not reach soon: wake one idle stealing scheduler. */
static void ulp_kick_a_thief(struct ulp_sched *busy)
{
    int n = __atomic_load_n(&ulp_g_.nslots, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct ulp_sched *t = ulp_g_.scheds[i];
        if (t != NULL && t != busy && t->steal && !t->stop &&
            __atomic_load_n(&t->sleeping, __ATOMIC_SEQ_CST)) {
            ulp_sched_kick(t);
            return;
        }
    }
}

/*
 * Take the oldest ULP of v's inbox (v has not moved it to its run queue, so
 * it is not running and nobody else will take it); the rest goes back.
 */
static struct ulp *ulp_inbox_take_oldest(struct ulp_sched *v)
{
    struct ulp *l = __atomic_exchange_n(&v->inbox, NULL, __ATOMIC_ACQUIRE);
    if (l == NULL)
        return NULL;
    struct ulp *prev = NULL, *p = l;
    while (p->next != NULL) {
        prev = p;
        p = p->next;
    }
    if (prev != NULL) {
        struct ulp *h = __atomic_load_n(&v->inbox, __ATOMIC_RELAXED);
        do {
            prev->next = h;
        } while (!__atomic_compare_exchange_n(
            &v->inbox, &h, l, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    }
    p->next = NULL;
    return p;
}

/* An idle stealing scheduler looks into the others' inboxes. */
static struct ulp *ulp_steal(struct ulp_sched *me)
{
    int n = __atomic_load_n(&ulp_g_.nslots, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        struct ulp_sched *v = ulp_g_.scheds[i];
        if (v == NULL || v == me || v->stop ||
            __atomic_load_n(&v->inbox, __ATOMIC_SEQ_CST) == NULL)
            continue;
        struct ulp *u = ulp_inbox_take_oldest(v);
        if (u != NULL)
            return u;
    }
    return NULL;
}

/* Record that `s` is the scheduler `u` belongs to (ulp_sched_destroy). */
void ulp_set_last(struct ulp *u, struct ulp_sched *s)
{
    struct ulp_sched *old = u->last_sched;
    if (old == s)
        return;
    __atomic_add_fetch(&s->nhere, 1, __ATOMIC_SEQ_CST);
    u->last_sched = s;
    if (old != NULL)
        ulp_sched_unref(old);
}

/* Put `u` (not running here, maybe still being saved) into `s`. */
void ulp_make_ready(struct ulp *u, struct ulp_sched *s)
{
    struct ulp *me = ulp_self_;
    ulp_set_last(u, s);
    u->state = ULP_READY;
    if (me != NULL && me->sched == s &&
        __atomic_load_n(&ulp_g_.nsteal, __ATOMIC_RELAXED) == 0) {
        ulp_rq_push(s, u); /* we are s's kernel thread right now */
        return;
    }
    __atomic_add_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
    struct ulp *h = __atomic_load_n(&s->inbox, __ATOMIC_RELAXED);
    do {
        u->next = h;
    } while (!__atomic_compare_exchange_n(&s->inbox, &h, u, 1, __ATOMIC_SEQ_CST,
                                          __ATOMIC_RELAXED));
    ulp_sched_kick(s);
    __atomic_sub_fetch(&s->refs, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&ulp_g_.nsteal, __ATOMIC_SEQ_CST) != 0 &&
        !__atomic_load_n(&s->sleeping, __ATOMIC_SEQ_CST))
        ulp_kick_a_thief(s);
}

/*
 * Run `to` on scheduler `s` (the caller's kernel thread), leaving context
 * `from`.  `to` may still be being saved by another kernel thread.  Only
 * the scheduler loop may wait for that: a ULP that waited while still
 * holding its own context could wait in a cycle (A on s0 waits for B, B on
 * s1 waits for A, each having handed itself to the other's scheduler).  So
 * a ULP that finds `to` busy puts it back at the head of the run queue and
 * switches to the scheduler loop, which then waits for it.
 */
void ulp_switch_to(struct ulp_sched *s, struct ulp_ctx *from, struct ulp *to)
{
    if (from != &s->home &&
        __atomic_load_n(&to->ctx.busy, __ATOMIC_ACQUIRE) != 0) {
        ulp_rq_push_front(s, to);
        s->cur = NULL;
        ulp_ctx_claim(&s->home);
        ulp_switch(from, &s->home);
        return;
    }
    ulp_ctx_claim(&to->ctx);
    ulp_set_last(to, s);
    to->sched = s;
    to->state = ULP_RUNNING;
    s->cur = to;
    ulp_switch(from, &to->ctx);
}

/*
 * The calling ULP stops running on its scheduler (its state says why):
 * run the next ready ULP there, or the scheduler loop.  Returns when
 * someone runs the caller again.
 */
void ulp_leave(struct ulp *self)
{
    struct ulp_sched *s = self->sched;
    struct ulp *n = ulp_rq_pop(s);
    if (n == self) {
        /* Resumed into this very scheduler before we left: keep going. */
        self->state = ULP_RUNNING;
        return;
    }
    self->sched = NULL;
    if (n != NULL) {
        ulp_switch_to(s, &self->ctx, n);
        return;
    }
    s->cur = NULL;
    ulp_ctx_claim(&s->home);
    ulp_switch(&self->ctx, &s->home);
}

/* A coupled ULP stops: its kernel thread parks until park_word is set. */
static void ulp_park_self(struct ulp *self)
{
    ulp_ctx_claim(&self->park);
    ulp_switch(&self->ctx, &self->park);
}

/* Make a ULP taken out of a wait queue run again. */
static void ulp_wake(struct ulp *u, struct ulp_sched *s)
{
    if (u->coupled) {
        u->state = ULP_COUPLED;
        __atomic_store_n(&u->park_word, 1, __ATOMIC_SEQ_CST);
        ulp_futex_wake(&u->park_word, 1);
        return;
    }
    ulp_make_ready(u, s != NULL ? s : u->last_sched);
}

/*
 * The park loop: the first code of a ULP's own kernel thread once the ULP
 * has decoupled.  Raw system calls only: this thread shares the ULP's thread
 * block (errno, TLS) with whichever scheduler runs the ULP.  All signals
 * are blocked while parked, so no handler runs on that shared block.
 */
void ulp_park_loop(void *arg)
{
    struct ulp *u = arg;
    uint64_t all = ~(uint64_t)0, old = 0;
    for (;;) {
        (void)ulp_arch_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&all,
                                (long)&old, 8, 0, 0);
        while (__atomic_load_n(&u->park_word, __ATOMIC_ACQUIRE) == 0)
            (void)ulp_futex_wait(&u->park_word, 0);
        __atomic_store_n(&u->park_word, 0, __ATOMIC_RELAXED);
        (void)ulp_arch_syscall6(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0,
                                8, 0, 0);
        ulp_ctx_claim(&u->ctx);
        u->sched = NULL;
        u->state = ULP_COUPLED;
        ulp_switch(&u->park, &u->ctx);
    }
}

/* Coupled caller: hand itself to `s` and park its kernel thread. */
void ulp_decouple_into(struct ulp *u, struct ulp_sched *s)
{
    u->coupled = 0;
    ulp_make_ready(u, s);
    ulp_park_self(u);
}

/* Decoupled caller: continue on the own kernel thread. */
static void ulp_couple_self(struct ulp *u)
{
    u->coupled = 1;
    u->state = ULP_COUPLED;
    __atomic_store_n(&u->park_word, 1, __ATOMIC_SEQ_CST);
    ulp_futex_wake(&u->park_word, 1);
    ulp_leave(u);
}

/* --- scheduler threads -----------------------------------------------------
 */

static void *ulp_sched_main(void *arg)
{
    struct ulp_sched *s = arg;
    stack_t ss, old;

    s->tid = ulp_raw_gettid();
    ss.ss_sp = s->altstack;
    ss.ss_size = ULP_ALTSTACK_SIZE;
    ss.ss_flags = 0;
    if (sigaltstack(&ss, &old) != 0)
        old.ss_flags = SS_DISABLE;
    ulp_self_ = NULL;
    s->home.fsbase =
        ulp_arch_get_fsbase(ulp_g_.fsbase_method == ULP_FSBASE_WRFSBASE);
    s->home.busy = 1;
    for (;;) {
        struct ulp *n = ulp_rq_pop(s);
        if (n != NULL) {
            ulp_switch_to(s, &s->home, n);
            continue;
        }
        /*
         * Idle: poll a little before sleeping, so that a ULP handed over
         * soon (the next phase after a barrier) costs no futex wake-up on
         * either side.  Bounded: then block.
         */
        for (int spin = 0; spin < ULP_IDLE_SPIN && n == NULL; spin++) {
            if (__atomic_load_n(&s->inbox, __ATOMIC_RELAXED) != NULL || s->stop)
                break;
            if (s->steal)
                n = ulp_steal(s);
            else
                ulp_arch_pause();
        }
        if (n != NULL) {
            ulp_switch_to(s, &s->home, n);
            continue;
        }
        int seq = __atomic_load_n(&s->wake, __ATOMIC_SEQ_CST);
        __atomic_store_n(&s->sleeping, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&s->inbox, __ATOMIC_SEQ_CST) != NULL) {
            s->sleeping = 0;
            continue;
        }
        if (s->steal && !s->stop && (n = ulp_steal(s)) != NULL) {
            s->sleeping = 0;
            ulp_switch_to(s, &s->home, n);
            continue;
        }
        if (s->stop && __atomic_load_n(&s->nhere, __ATOMIC_SEQ_CST) == 0)
            break;
        (void)ulp_futex_wait(&s->wake, seq);
        __atomic_store_n(&s->sleeping, 0, __ATOMIC_SEQ_CST);
    }
    (void)sigaltstack(&old, NULL);
    return NULL;
}

int ulp_sched_create(ulp_sched_t **sp, int cpu)
{
    struct ulp_sched *s;
    pthread_attr_t attr;
    int rc;

    if (!ulp_g_.initialised)
        return -EPERM;
    if (sp == NULL || cpu < -1 || cpu >= CPU_SETSIZE)
        return -EINVAL;
    if (__atomic_load_n(&ulp_g_.nslots, __ATOMIC_ACQUIRE) >= ULP_MAX_SCHED)
        return -EAGAIN;
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return -ENOMEM;
    s->cpu = cpu;
    if (ulp_g_.copy) {
        /* The loop's own root TLS (libc's per-thread state, which points
         * into this thread's descriptor) is put back whenever it runs. */
        s->home.tls = &ulp_g_.root_tls;
        s->home.tls_buf = malloc(ulp_g_.root_tls.total + 1);
        if (s->home.tls_buf == NULL) {
            free(s);
            return -ENOMEM;
        }
    }
    s->altstack = mmap(NULL, ULP_ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (s->altstack == MAP_FAILED) {
        free(s->home.tls_buf);
        free(s);
        return -ENOMEM;
    }
    rc = pthread_attr_init(&attr);
    if (rc == 0 && cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
    }
    if (rc == 0)
        rc = pthread_create(&s->thread, &attr, ulp_sched_main, s);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        ulp_dbg("cannot start a scheduler thread: %s", strerror(rc));
        munmap(s->altstack, ULP_ALTSTACK_SIZE);
        free(s->home.tls_buf);
        free(s);
        return rc == EINVAL ? -EINVAL : rc == ENOMEM ? -ENOMEM : -EAGAIN;
    }
    while (__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) == 0)
        ulp_raw_yield();
    __atomic_add_fetch(&ulp_g_.nsched, 1, __ATOMIC_SEQ_CST);
    ulp_spin_lock(&ulp_g_.sched_lock);
    ulp_g_.scheds[ulp_g_.nslots] = s;
    __atomic_store_n(&ulp_g_.nslots, ulp_g_.nslots + 1, __ATOMIC_RELEASE);
    ulp_spin_unlock(&ulp_g_.sched_lock);
    *sp = s;
    return 0;
}

int ulp_sched_destroy(ulp_sched_t *s)
{
    if (s == NULL)
        return -EINVAL;
    if (ulp_self() != NULL)
        return -EPERM;
    if (s->stop)
        return -EINVAL; /* destroyed already */
    (void)ulp_sched_steal(s, 0);
    __atomic_store_n(&s->stop, 1, __ATOMIC_SEQ_CST);
    ulp_sched_kick(s);
    pthread_join(s->thread, NULL);
    while (__atomic_load_n(&s->refs, __ATOMIC_SEQ_CST) != 0)
        ulp_raw_yield();
    munmap(s->altstack, ULP_ALTSTACK_SIZE);
    s->altstack = NULL;
    /* The memory stays until ulp_fin(): see ulp_global.scheds. */
    __atomic_sub_fetch(&ulp_g_.nsched, 1, __ATOMIC_SEQ_CST);
    return 0;
}

int ulp_sched_steal(ulp_sched_t *s, int on)
{
    if (s == NULL || s->stop)
        return -EINVAL;
    on = on != 0;
    if (__atomic_exchange_n(&s->steal, on, __ATOMIC_SEQ_CST) != on)
        __atomic_add_fetch(&ulp_g_.nsteal, on ? 1 : -1, __ATOMIC_SEQ_CST);
    ulp_sched_kick(s);
    return 0;
}

/* ulp_fin(): free every scheduler's memory. */
void ulp_sched_free_all(void)
{
    for (int i = 0; i < ulp_g_.nslots; i++) {
        free(ulp_g_.scheds[i]->home.tls_buf);
        free(ulp_g_.scheds[i]);
        ulp_g_.scheds[i] = NULL;
    }
    ulp_g_.nslots = 0;
}

ulp_sched_t *ulp_sched_self(void)
{
    ULP_FORWARD(sched_self);
    struct ulp *u = ulp_self_;
    return u != NULL && !u->coupled ? u->sched : NULL;
}

pid_t ulp_sched_tid(const ulp_sched_t *s)
{
    return s != NULL ? s->tid : -EINVAL;
}

/* --- the scheduling API ----------------------------------------------------
 */

int ulp_yield(void)
{
    ULP_FORWARD(yield);
    struct ulp *u = ulp_self_;
    if (u == NULL)
        return -EPERM;
    if (u->coupled) {
        sched_yield();
        return 0;
    }
    struct ulp_sched *s = u->sched;
    struct ulp *n = ulp_rq_pop(s);
    if (n == NULL)
        return 0;
    u->state = ULP_READY;
    ulp_rq_push(s, u);
    ulp_switch_to(s, &u->ctx, n);
    return 0;
}

int ulp_yield_to(ulp_t *v)
{
    ULP_FORWARD(yield_to, v);
    struct ulp *u = ulp_self_;
    if (u == NULL || u->coupled)
        return -EPERM;
    if (v == NULL || v == u)
        return -EINVAL;
    struct ulp_sched *s = u->sched;
    ulp_rq_drain(s);
    if (v->rq != s)
        return -EAGAIN;
    ulp_rq_remove(s, v);
    u->state = ULP_READY;
    ulp_rq_push(s, u);
    ulp_switch_to(s, &u->ctx, v);
    return 0;
}

int ulp_migrate(ulp_sched_t *s)
{
    ULP_FORWARD(migrate, s);
    struct ulp *u = ulp_self_;
    if (u == NULL)
        return -EPERM;
    if (s == NULL)
        return -EINVAL;
    if (u->coupled) {
        ulp_set_last(u, s);
        return 0;
    }
    if (u->sched == s)
        return 0;
    ulp_make_ready(u, s);
    ulp_leave(u);
    return 0;
}

void ulp_waitq_init(ulp_waitq_t *q)
{
    if (q != NULL)
        memset(q, 0, sizeof(*q));
}

/* q->lock is held; it is released here.  Returns once resumed. */
int ulp_suspend_locked(ulp_waitq_t *q, struct ulp *self)
{
    self->next = NULL;
    if (q->tail != NULL)
        q->tail->next = self;
    else
        q->head = self;
    q->tail = self;
    q->count++;
    self->state = ULP_BLOCKED;
    ulp_spin_unlock(&q->lock);
    if (self->coupled)
        ulp_park_self(self);
    else
        ulp_leave(self);
    return 0;
}

int ulp_suspend(ulp_waitq_t *q)
{
    ULP_FORWARD(suspend, q);
    struct ulp *u = ulp_self_;
    if (u == NULL)
        return -EPERM;
    if (q == NULL)
        return -EINVAL;
    ulp_spin_lock(&q->lock);
    return ulp_suspend_locked(q, u);
}

static struct ulp *ulp_waitq_pop(ulp_waitq_t *q)
{
    struct ulp *u = q->head;
    if (u != NULL) {
        q->head = u->next;
        if (q->head == NULL)
            q->tail = NULL;
        q->count--;
        u->next = NULL;
    }
    return u;
}

int ulp_resume(ulp_waitq_t *q, ulp_sched_t *s)
{
    ULP_FORWARD(resume, q, s);
    if (q == NULL)
        return -EINVAL;
    ulp_spin_lock(&q->lock);
    struct ulp *u = ulp_waitq_pop(q);
    ulp_spin_unlock(&q->lock);
    if (u == NULL)
        return 0;
    ulp_wake(u, s);
    return 1;
}

int ulp_resume_all(ulp_waitq_t *q, ulp_sched_t *s)
{
    ULP_FORWARD(resume_all, q, s);
    if (q == NULL)
        return -EINVAL;
    ulp_spin_lock(&q->lock);
    struct ulp *l = q->head;
    q->head = q->tail = NULL;
    q->count = 0;
    ulp_spin_unlock(&q->lock);
    int n = 0;
    while (l != NULL) {
        struct ulp *next = l->next;
        l->next = NULL;
        ulp_wake(l, s);
        l = next;
        n++;
    }
    return n;
}

/* Wake every ULP of a list taken out of a wait queue under its lock. */
int ulp_wake_list(struct ulp *l)
{
    int n = 0;
    while (l != NULL) {
        struct ulp *next = l->next;
        l->next = NULL;
        ulp_wake(l, NULL);
        l = next;
        n++;
    }
    return n;
}

struct ulp *ulp_waitq_take(ulp_waitq_t *q)
{
    return ulp_waitq_pop(q);
}

int ulp_couple(void)
{
    ULP_FORWARD(couple);
    struct ulp *u = ulp_self_;
    if (u == NULL)
        return -EPERM;
    if (!u->coupled)
        ulp_couple_self(u);
    return 0;
}

int ulp_decouple(ulp_sched_t *s)
{
    ULP_FORWARD(decouple, s);
    struct ulp *u = ulp_self_;
    if (u == NULL)
        return -EPERM;
    if (!u->coupled)
        return 0;
    if (s == NULL)
        s = u->last_sched;
    if (s == NULL)
        return -EINVAL;
    ulp_decouple_into(u, s);
    return 0;
}

int ulp_is_coupled(void)
{
    ULP_FORWARD(is_coupled);
    struct ulp *u = ulp_self_;
    return u != NULL && u->coupled;
}

/* The end of a ULP, in its context: always finishes on its own thread. */
void ulp_finish(struct ulp *u)
{
    if (!u->coupled)
        ulp_couple_self(u);
    /* Our alternate signal stack goes with the ULP (freed at join); the
     * thread's end (e.g. a sanitizer runtime) may expect its own one. */
    (void)sigaltstack(&u->old_altstack, NULL);
    struct ulp_sched *last = u->last_sched;
    ulp_spin_lock(&u->joinq.lock);
    u->state = ULP_DONE;
    __atomic_store_n(&u->done, 1, __ATOMIC_SEQ_CST);
    struct ulp *l = u->joinq.head;
    u->joinq.head = u->joinq.tail = NULL;
    u->joinq.count = 0;
    ulp_spin_unlock(&u->joinq.lock);
    (void)ulp_wake_list(l);
    ulp_futex_wake(&u->done, INT32_MAX);
    if (last != NULL) {
        u->last_sched = NULL;
        ulp_sched_unref(last);
    }
}

/* A ULP that never ran (creation failed) no longer belongs to a scheduler. */
void ulp_forget(struct ulp *u)
{
    if (u->last_sched != NULL) {
        struct ulp_sched *s = u->last_sched;
        u->last_sched = NULL;
        ulp_sched_unref(s);
    }
}
