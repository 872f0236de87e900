/* SPDX-License-Identifier: BSD-2-Clause */
/* ulp_internal.h: libulp's internal structures and helpers. */
#ifndef ULP_INTERNAL_H
#define ULP_INTERNAL_H

#include "ulp.h"

#if defined(__x86_64__)
#include "arch/x86_64/ulp_arch.h"
#elif defined(__aarch64__)
#include "arch/aarch64/ulp_arch.h"
#else
#error "libulp has no port for this architecture (x86-64 and aarch64 only)"
#endif

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#define ULP_HIDDEN __attribute__((visibility("hidden")))

#define ULP_ALTSTACK_SIZE  (64UL * 1024)
#define ULP_MAX_SCHED      256
#define ULP_IDLE_SPIN      300 /* polls of an idle scheduler before sleeping */
#define ULP_PARKSTACK_SIZE (64UL * 1024)
#define ULP_WUR            __attribute__((warn_unused_result))

/* The copy method: static TLS ranges below the thread pointer. */
#define ULP_TLS_RANGES 8
struct ulp_tls_map {
    int n;
    size_t total; /* bytes, the size of a ULP's copy */
    struct {
        size_t off; /* start = tp - off */
        size_t len;
    } r[ULP_TLS_RANGES];
};

enum ulp_state {
    ULP_NEW = 0, /* kernel thread started, not yet decoupled */
    ULP_READY,   /* in a run queue or an inbox */
    ULP_RUNNING, /* running on a scheduler */
    ULP_BLOCKED, /* in a wait queue */
    ULP_COUPLED, /* running on its own kernel thread */
    ULP_DONE     /* ended */
};

struct ulp {
    struct ulp_ctx ctx;           /* the ULP itself, when not running */
    struct ulp_ctx park;          /* its kernel thread's park loop */
    struct ulp *next;             /* run queue / wait queue / inbox link */
    struct ulp *prev;             /* run queue only */
    struct ulp_sched *rq;         /* whose local run queue holds it, or NULL */
    struct ulp_sched *sched;      /* running on (NULL: coupled / none) */
    struct ulp_sched *last_sched; /* last scheduler, default of resumes */
    volatile int state;
    volatile int coupled;   /* runs (or will run) on its own kernel thread */
    volatile int park_word; /* futex: 1 = the parked thread must run us */
    volatile int done;      /* futex: 1 = ended */
    int id;
    int pipid;  /* PiP task, or -1 */
    int status; /* exit status */
    int joined;
    pid_t ktid;        /* own kernel thread */
    pthread_t kthread; /* ulp_create(): the pthread to join */
    int (*fn)(void *); /* ulp_create() */
    void *fn_arg;
    void *stack; /* ulp_create(): mapping incl. guard */
    size_t stack_size;
    uintptr_t guard_lo, guard_hi; /* the guard area */
    void *park_stack;
    void *altstack;       /* mmap'ed, ULP_ALTSTACK_SIZE */
    stack_t old_altstack; /* the kernel thread's, put back at its end */
    unsigned vg_park;     /* valgrind's id of the park stack */
    ulp_waitq_t joinq;    /* ULPs waiting in ulp_join */
    volatile int linked;  /* futex: root finished linking a task ULP */
    int (*ns_on_exit)(void (*)(int, void *), void *);
    void (*ns_exit)(int);
    void *ns_main;              /* a task's main (its namespace) */
    struct ulp_tls_map tls_map; /* copy method: what is private */
    void *tls_buf;              /* copy method: the private bytes */
};

struct ulp_sched {
    struct ulp_ctx home; /* the scheduler loop */
    struct ulp *cur;     /* running ULP, or NULL in the loop */
    struct ulp *rq_head; /* local run queue: this kernel thread only */
    struct ulp *rq_tail;
    struct ulp *volatile inbox; /* pushed by anyone, taken by the owner */
    volatile int wake;          /* futex word, bumped to wake the loop */
    volatile int sleeping;
    volatile int stop;
    volatile int nhere; /* ULPs that belong to this scheduler */
    volatile int refs;  /* threads about to touch it */
    volatile int steal; /* idle: take ULPs from others' inboxes */
    int cpu;
    pid_t tid;
    pthread_t thread;
    void *altstack; /* mmap'ed, ULP_ALTSTACK_SIZE */
};

/* One switch function for the whole process, chosen at ulp_init. */
typedef void (*ulp_switch_fn)(struct ulp_ctx *, struct ulp_ctx *);

struct ulp_global {
    int initialised;
    int fsbase_method;
    int copy; /* the copy method: ulp_switch_copy */
    ulp_switch_fn sw;
    struct ulp_tls_map root_tls; /* copy method: the root namespace's */
    size_t stack_size;
    size_t guard_size;
    size_t page;
    volatile int next_id;
    volatile int nsched;
    struct sigaction old_segv;
    /* Every scheduler ever created, freed only by ulp_fin(): a thief or a
     * waker may read a slot while its scheduler is being destroyed. */
    struct ulp_sched *scheds[ULP_MAX_SCHED];
    volatile int nslots;
    volatile int nsteal; /* schedulers that steal */
    volatile int sched_lock;
};

/* ulp_base.c */
ULP_HIDDEN extern struct ulp_global ulp_g_;
/* The ULP running with this thread block (a per-ULP variable, see ulp.h). */
ULP_HIDDEN extern __thread struct ulp *ulp_self_;

/* The public functions, reached from a task's copy of libulp. */
struct ulp_ops {
    int magic;
    ulp_t *(*self)(void);
    int (*yield)(void);
    int (*yield_to)(ulp_t *);
    int (*migrate)(ulp_sched_t *);
    int (*suspend)(ulp_waitq_t *);
    int (*resume)(ulp_waitq_t *, ulp_sched_t *);
    int (*resume_all)(ulp_waitq_t *, ulp_sched_t *);
    int (*couple)(void);
    int (*decouple)(ulp_sched_t *);
    int (*mutex_lock)(ulp_mutex_t *);
    int (*mutex_trylock)(ulp_mutex_t *);
    int (*mutex_unlock)(ulp_mutex_t *);
    int (*barrier_wait)(ulp_barrier_t *);
    int (*exit)(int);
    int (*join)(ulp_t *, int *);
    ulp_sched_t *(*sched_self)(void);
    pid_t (*gettid)(void);
    int (*is_coupled)(void);
    int (*create)(ulp_t **, ulp_sched_t *, int (*)(void *), void *);
    int (*fsbase_method)(void);
};
#define ULP_OPS_MAGIC 0x554c5031

/* Set by the root in a task's copy of libulp (found with pip_get_addr);
 * ulp_base.c. */
struct ulp_ns_link {
    const struct ulp_ops *ops;
};
extern struct ulp_ns_link ulp_ns_link_;

/* Forward a public call from a task's copy of libulp to the root's. */
#define ULP_FORWARD(name, ...)                                                 \
    do {                                                                       \
        if (ulp_ns_link_.ops != NULL)                                          \
            return ulp_ns_link_.ops->name(__VA_ARGS__);                        \
    } while (0)

ULP_HIDDEN extern const struct ulp_ops ulp_root_ops_; /* ulp_core.c */

/* The files of libulp are layered: each uses only the ones below it
 * (ulp_base.c, ulp_tls.c, ulp_sched.c, ulp_sync.c, ulp_core.c). */

/* ulp_base.c */
ULP_HIDDEN void ulp_dbg(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* ulp_sched.c */
ULP_HIDDEN void ulp_switch_to(struct ulp_sched *s, struct ulp_ctx *from,
                              struct ulp *to);
ULP_HIDDEN void ulp_leave(struct ulp *self);
ULP_HIDDEN void ulp_set_last(struct ulp *u, struct ulp_sched *s);
ULP_HIDDEN void ulp_forget(struct ulp *u);
ULP_HIDDEN void ulp_sched_free_all(void);
ULP_HIDDEN void ulp_make_ready(struct ulp *u, struct ulp_sched *s);
ULP_HIDDEN void ulp_park_loop(void *arg);
ULP_HIDDEN void ulp_decouple_into(struct ulp *u, struct ulp_sched *s);
ULP_HIDDEN void ulp_finish(struct ulp *u);
ULP_HIDDEN void ulp_spin_lock(volatile int *l);
ULP_HIDDEN void ulp_spin_unlock(volatile int *l);
ULP_HIDDEN int ulp_suspend_locked(ulp_waitq_t *q, struct ulp *self);
ULP_HIDDEN int ulp_wake_list(struct ulp *l);
ULP_HIDDEN struct ulp *ulp_waitq_take(ulp_waitq_t *q);

/* ulp_tls.c */
ULP_HIDDEN int ulp_tls_map_root(struct ulp_tls_map *m) ULP_WUR;
ULP_HIDDEN int ulp_tls_map_task(struct ulp_tls_map *m, void *ns_main,
                                uintptr_t stack_lo) ULP_WUR;
ULP_HIDDEN int ulp_tls_self_ok(void);
ULP_HIDDEN void ulp_switch_copy(struct ulp_ctx *from, struct ulp_ctx *to);

/* ulp_core.c */
ULP_HIDDEN int ulp_adopt(struct ulp *u) ULP_WUR;

/* Raw futex and friends: no errno, safe on any thread block. */
static inline long ulp_futex_wait(volatile int *w, int val)
{
    return ulp_arch_syscall6(SYS_futex, (long)w, FUTEX_WAIT_PRIVATE, val, 0, 0,
                             0);
}
static inline long ulp_futex_wake(volatile int *w, int n)
{
    return ulp_arch_syscall6(SYS_futex, (long)w, FUTEX_WAKE_PRIVATE, n, 0, 0,
                             0);
}
static inline pid_t ulp_raw_gettid(void)
{
    return (pid_t)ulp_arch_syscall6(SYS_gettid, 0, 0, 0, 0, 0, 0);
}
static inline void ulp_raw_yield(void)
{
    (void)ulp_arch_syscall6(SYS_sched_yield, 0, 0, 0, 0, 0, 0);
}

/* Wait until nobody runs or saves `c`, then own it. */
static inline void ulp_ctx_claim(struct ulp_ctx *c)
{
    unsigned spins = 0;
    for (;;) {
        /* One claimer at a time by design: a ULP is in one queue only. */
        if (__atomic_load_n(&c->busy, __ATOMIC_ACQUIRE) == 0) {
            c->busy = 1;
            return;
        }
        if (++spins < 200)
            ulp_arch_pause();
        else
            ulp_raw_yield();
    }
}

#endif /* ULP_INTERNAL_H */
