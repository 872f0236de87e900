/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ulp_switch.c: yield, yield-to, migration, and what a switch must
 * keep per ULP: __thread data, errno, pthread_self(), the FP control state.
 * Run once per thread-pointer method (ULP_FSBASE=wrfsbase / syscall / copy,
 * see Makefile.mk).
 */
#include "ut_util.h"

#include <fenv.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

static __thread long ut_tls = 1234;
static __thread char ut_tls_buf[64];

/* The method the environment asked for is the one in use. */
UT_CASE(fsbase_method_follows_environment)
{
    const char *v = getenv("ULP_FSBASE");
    UT_OK(ulp_init());
    int m = ulp_fsbase_method();
#if defined(__aarch64__)
    (void)v;
    UT_EQ(m, ULP_FSBASE_TPIDR);
#else
    if (v != NULL && strcmp(v, "syscall") == 0)
        UT_EQ(m, ULP_FSBASE_SYSCALL);
    else if (v != NULL && strcmp(v, "wrfsbase") == 0)
        UT_EQ(m, ULP_FSBASE_WRFSBASE);
    else if (v != NULL && strcmp(v, "copy") == 0)
        UT_EQ(m, ULP_FSBASE_COPY);
    else if (ut_have_fsgsbase())
        UT_EQ(m, ULP_FSBASE_WRFSBASE);
    else /* copy, or arch_prctl where the copy does not fit the libc */
        UT_CHECK(m == ULP_FSBASE_COPY || m == ULP_FSBASE_SYSCALL);
#endif
    UT_EQ(ulp_init(), -EBUSY);
    UT_OK(ulp_fin());
    UT_EQ(ulp_fin(), -EPERM);
}

/* Without FSGSBASE, asking for wrfsbase is refused, whatever the default. */
UT_CASE(wrfsbase_is_refused_without_fsgsbase)
{
    setenv("ULP_TEST_NO_FSGSBASE", "1", 1);
    setenv("ULP_FSBASE", "wrfsbase", 1);
    UT_EQ(ulp_init(), -ENOTSUP);
    setenv("ULP_FSBASE", "auto", 1);
    UT_OK(ulp_init());
    UT_CHECK(ulp_fsbase_method() != ULP_FSBASE_WRFSBASE);
    UT_OK(ulp_fin());
}

#if defined(__aarch64__)
/* aarch64: tpidr is the only method; the x86-64 ones are refused by name. */
UT_CASE(x86_methods_are_refused_on_aarch64)
{
    static const char *const x86[] = {"wrfsbase", "syscall", "arch_prctl",
                                      "copy"};
    for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++) {
        setenv("ULP_FSBASE", x86[i], 1);
        UT_EQ(ulp_init(), -ENOTSUP);
    }
    setenv("ULP_FSBASE", "tpidr", 1);
    UT_OK(ulp_init());
    UT_EQ(ulp_fsbase_method(), ULP_FSBASE_TPIDR);
    UT_OK(ulp_fin());
}

/*
 * The switch keeps the AAPCS64 callee-saved registers: x19-x27 and d8-d15
 * are loaded with values of this ULP's own, ulp_yield() runs the others
 * (which load theirs), and the values must be back afterwards.  x28 holds
 * the output pointer across the call; fp is the frame's.  Written in
 * assembly because the compiler decides what lives in which register.
 */
static int regs_fn(void *arg)
{
    uint64_t seed = 0x1000 * (uint64_t)(uintptr_t)arg + 1;
    int (*yield)(void) = ulp_yield;
    for (int round = 0; round < 50; round++) {
        uint64_t out[17];
        uint64_t s = seed + (uint64_t)round * 0x100000;
        register uint64_t *x0 __asm__("x0") = out;
        register uint64_t x1 __asm__("x1") = s;
        register int (*x2)(void) __asm__("x2") = yield;
        __asm__ volatile(
            "mov x28, x0\n\t"
            "mov x19, x1\n\t"
            "add x20, x19, #1\n\t"
            "add x21, x19, #2\n\t"
            "add x22, x19, #3\n\t"
            "add x23, x19, #4\n\t"
            "add x24, x19, #5\n\t"
            "add x25, x19, #6\n\t"
            "add x26, x19, #7\n\t"
            "add x27, x19, #8\n\t"
            "add x9, x19, #9\n\t"
            "fmov d8, x9\n\t"
            "add x9, x19, #10\n\t"
            "fmov d9, x9\n\t"
            "add x9, x19, #11\n\t"
            "fmov d10, x9\n\t"
            "add x9, x19, #12\n\t"
            "fmov d11, x9\n\t"
            "add x9, x19, #13\n\t"
            "fmov d12, x9\n\t"
            "add x9, x19, #14\n\t"
            "fmov d13, x9\n\t"
            "add x9, x19, #15\n\t"
            "fmov d14, x9\n\t"
            "add x9, x19, #16\n\t"
            "fmov d15, x9\n\t"
            "blr x2\n\t"
            "stp x19, x20, [x28, #0]\n\t"
            "stp x21, x22, [x28, #16]\n\t"
            "stp x23, x24, [x28, #32]\n\t"
            "stp x25, x26, [x28, #48]\n\t"
            "str x27, [x28, #64]\n\t"
            "stp d8, d9, [x28, #72]\n\t"
            "stp d10, d11, [x28, #88]\n\t"
            "stp d12, d13, [x28, #104]\n\t"
            "stp d14, d15, [x28, #120]\n\t"
            : "+r"(x0), "+r"(x1), "+r"(x2)
            :
            : "x3", "x4", "x5", "x6", "x7", "x8", "x9",
              "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18",
              "x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
              "x28", "x30", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7",
              "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16",
              "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25",
              "v26", "v27", "v28", "v29", "v30", "v31", "cc", "memory");
        for (int i = 0; i < 17; i++)
            UT_EQ(out[i], s + (uint64_t)i);
    }
    return 0;
}

UT_CASE(callee_saved_registers_survive_switches)
{
    ulp_sched_t *s[2];
    ulp_t *u[4];
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s[0], -1));
    UT_OK(ulp_sched_create(&s[1], -1));
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_create(&u[i], s[i & 1], regs_fn, (void *)(intptr_t)(i + 1)));
    for (int i = 0; i < 4; i++) {
        int st = -1;
        UT_OK(ulp_join(u[i], &st));
        UT_EQ(st, 0);
    }
    UT_OK(ulp_sched_destroy(s[0]));
    UT_OK(ulp_sched_destroy(s[1]));
    UT_OK(ulp_fin());
}
#endif

UT_CASE(bad_environment_is_refused)
{
    setenv("ULP_FSBASE", "fast", 1);
    UT_EQ(ulp_init(), -EINVAL);
    unsetenv("ULP_FSBASE");
    setenv("ULP_STACKSZ", "12q", 1);
    UT_EQ(ulp_init(), -EINVAL);
    unsetenv("ULP_STACKSZ");
    UT_OK(ulp_init());
    UT_OK(ulp_fin());
}

UT_CASE(calls_outside_a_ulp_are_refused)
{
    ulp_sched_t *s;
    ulp_t *u;
    UT_EQ(ulp_sched_create(&s, -1), -EPERM); /* before ulp_init */
    UT_OK(ulp_init());
    UT_EQ(ulp_yield(), -EPERM);
    UT_EQ(ulp_couple(), -EPERM);
    UT_EQ(ulp_decouple(NULL), -EPERM);
    UT_EQ(ulp_exit(0), -EPERM);
    UT_CHECK(ulp_self() == NULL);
    UT_CHECK(ulp_sched_self() == NULL);
    UT_EQ(ulp_sched_create(&s, -2), -EINVAL);
    UT_OK(ulp_sched_create(&s, -1));
    UT_EQ(ulp_create(&u, s, NULL, NULL), -EINVAL);
    UT_EQ(ulp_create(&u, NULL, NULL, NULL), -EINVAL);
    UT_EQ(ulp_join(NULL, NULL), -EINVAL);
    UT_EQ(ulp_fin(), -EBUSY);
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
}

/* --- round robin ------------------------------------------------------------
 */

#define RR_N      3
#define RR_ROUNDS 50
static int rr_log[RR_N * RR_ROUNDS];
static int rr_pos;
static volatile int rr_go, rr_arrived;

static int rr_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    __atomic_add_fetch(&rr_arrived, 1, __ATOMIC_SEQ_CST);
    while (!rr_go)
        ulp_yield();
    for (int i = 0; i < RR_ROUNDS; i++) {
        rr_log[rr_pos++] = id;
        UT_OK(ulp_yield());
    }
    return id + 100;
}

/* ULPs of one scheduler run in strict FIFO turns. */
UT_CASE(yield_runs_ulps_round_robin)
{
    ulp_sched_t *s;
    ulp_t *u[RR_N];
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s, -1));
    /* They log only once all are in the run queue. */
    for (int i = 0; i < RR_N; i++)
        UT_OK(ulp_create(&u[i], s, rr_fn, (void *)(intptr_t)i));
    while (rr_arrived < RR_N)
        sched_yield();
    rr_go = 1;
    for (int i = 0; i < RR_N; i++) {
        int st = -1;
        UT_OK(ulp_join(u[i], &st));
        UT_EQ(st, i + 100);
    }
    UT_EQ(rr_pos, RR_N * RR_ROUNDS);
    /* Each window of RR_N consecutive entries (after the start) holds
     * every ULP once: nobody runs twice while another is ready. */
    for (int w = 0; w + RR_N <= rr_pos; w++) {
        int seen = 0;
        for (int k = 0; k < RR_N; k++)
            seen |= 1 << rr_log[w + k];
        if (seen != (1 << RR_N) - 1)
            ut_fail(__FILE__, __LINE__, "window at %d is not a permutation", w);
    }
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
}

/* --- yield_to ----------------------------------------------------------------
 */

static ulp_t *yt_u[3];
static volatile int yt_created, yt_arrived, yt_ready;
static int yt_order[4];
static int yt_n;

static int yt_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    if (id == 0) {
        /* Wait until u1 and u2 sit in the run queue, u1 ahead of u2... */
        while (!yt_created || yt_arrived < 2)
            ulp_yield();
        UT_EQ(ulp_yield_to(yt_u[0]), -EINVAL);
        UT_EQ(ulp_yield_to(NULL), -EINVAL);
        yt_ready = 1;
        yt_order[yt_n++] = 0;
        /* ... and ask for u2 first. */
        UT_OK(ulp_yield_to(yt_u[2]));
        return 0;
    }
    yt_arrived++;
    while (!yt_ready)
        ulp_yield();
    yt_order[yt_n++] = id;
    return 0;
}

UT_CASE(yield_to_runs_the_named_ulp_next)
{
    ulp_sched_t *s;
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s, -1));
    for (int i = 0; i < 3; i++)
        UT_OK(ulp_create(&yt_u[i], s, yt_fn, (void *)(intptr_t)i));
    yt_created = 1;
    for (int i = 0; i < 3; i++)
        UT_OK(ulp_join(yt_u[i], NULL));
    UT_EQ(yt_n, 3);
    UT_EQ(yt_order[0], 0);
    UT_EQ(yt_order[1], 2);
    UT_EQ(yt_order[2], 1);
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
}

/* --- TLS, errno, pthread_self, tid privacy ----------------------------------
 */

#define PV_N     16
#define PV_ITERS 2000
static ulp_sched_t *pv_s[2];
static volatile int pv_migrations;
static pthread_key_t pv_key;

/*
 * Read the state in a frame of its own: with the copy method, TLS lives at
 * the carrier's addresses, and a compiler may keep &errno (__errno_location
 * is declared const) or a TLS address across a call that changes carrier.
 */
__attribute__((noinline)) static void pv_errno_is(int want)
{
    __asm__ volatile("" ::: "memory");
    if (errno != want)
        ut_fail(__FILE__, __LINE__, "errno %d, expected %d", errno, want);
}

__attribute__((noinline)) static void pv_set_errno(int v)
{
    __asm__ volatile("" ::: "memory");
    errno = v;
}

__attribute__((noinline)) static void pv_check(int id, const char *want, int i)
{
    __asm__ volatile("" ::: "memory");
    if (ut_tls != id || errno != id || strcmp(ut_tls_buf, want) != 0 ||
        pthread_getspecific(pv_key) != (void *)(intptr_t)id)
        ut_fail(__FILE__, __LINE__,
                "ULP %d sees tls %ld errno %d buf '%s' key %p after %d "
                "switches",
                id, ut_tls, errno, ut_tls_buf, pthread_getspecific(pv_key), i);
}

static int pv_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned seed = (unsigned)id * 7919u + 1;
    int copy = ulp_fsbase_method() == ULP_FSBASE_COPY;
    ulp_sched_t *first = ulp_sched_self();
    pthread_t me = pthread_self();
    pid_t ktid = ulp_gettid();
    ut_tls = id;
    errno = id;
    UT_OK(pthread_setspecific(pv_key, (void *)(intptr_t)id));
    snprintf(ut_tls_buf, sizeof(ut_tls_buf), "ulp-%d", id);
    char want[64];
    snprintf(want, sizeof(want), "ulp-%d", id);
    UT_CHECK(ktid > 0);
    for (int i = 0; i < PV_ITERS; i++) {
        unsigned r = ut_rand(&seed);
        if (r % 7 == 0) {
            /* Hop to the other scheduler. */
            ulp_sched_t *cur = ulp_sched_self();
            ulp_sched_t *other = cur == pv_s[0] ? pv_s[1] : pv_s[0];
            UT_OK(ulp_migrate(other));
            UT_CHECK(ulp_sched_self() == other);
            /* Decoupled: system calls run on the scheduler's thread. */
            UT_EQ(syscall(SYS_gettid), ulp_sched_tid(other));
            __atomic_add_fetch(&pv_migrations, 1, __ATOMIC_RELAXED);
        } else {
            UT_OK(ulp_yield());
        }
        pv_check(id, want, i);
        /* With a thread pointer of its own, even addresses the compiler
         * kept across the switch are right; with the copy method only
         * on the carrier where they were taken. */
        if ((!copy || ulp_sched_self() == first) &&
            (ut_tls != id || errno != id || strcmp(ut_tls_buf, want) != 0))
            ut_fail(__FILE__, __LINE__,
                    "ULP %d sees tls %ld errno %d buf '%s' after %d switches",
                    id, ut_tls, errno, ut_tls_buf, i);
        UT_CHECK(pthread_equal(pthread_self(), me));
        UT_CHECK(ulp_gettid() == ktid);
        /* A failing libc call sets this ULP's errno only. */
        if (r % 5 == 0) {
            UT_CHECK(close(-1) == -1);
            pv_errno_is(EBADF);
            pv_set_errno(id);
        }
    }
    return id;
}

static void pv_run(int nsched)
{
    ulp_t *u[PV_N];
    UT_OK(pthread_key_create(&pv_key, NULL));
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&pv_s[0], -1));
    UT_OK(ulp_sched_create(&pv_s[1], -1));
    for (int i = 0; i < PV_N; i++)
        UT_OK(ulp_create(&u[i], pv_s[i % nsched], pv_fn,
                         (void *)(intptr_t)(i + 1)));
    for (int i = 0; i < PV_N; i++) {
        int st = -1;
        UT_OK(ulp_join(u[i], &st));
        UT_EQ(st, i + 1);
    }
    UT_CHECK(pv_migrations > 0);
    UT_OK(ulp_sched_destroy(pv_s[0]));
    UT_OK(ulp_sched_destroy(pv_s[1]));
    UT_OK(ulp_fin());
}

UT_CASE(tls_errno_and_identity_stay_private_across_switches)
{
    pv_run(1);
}

UT_CASE(tls_errno_and_identity_stay_private_across_schedulers)
{
    pv_run(2);
}

/* --- where TLS lives ---------------------------------------------------------
 */

static ulp_sched_t *wl_s[2];
static volatile long *wl_addr[3]; /* A on s0, B on s0, A after moving */
static volatile int wl_phase;

__attribute__((noinline)) static volatile long *wl_tls_addr(void)
{
    __asm__ volatile("" ::: "memory");
    return (volatile long *)&ut_tls;
}

static int wl_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    int old = 0;
    ut_tls = 1000 + id;
    /* Cancellation state lives in the thread descriptor. */
    UT_OK(pthread_setcancelstate(
        id == 0 ? PTHREAD_CANCEL_DISABLE : PTHREAD_CANCEL_ENABLE, NULL));
    wl_addr[id] = wl_tls_addr();
    while (wl_phase == 0 && id == 1)
        UT_OK(ulp_yield());
    if (id == 0) {
        while (wl_addr[1] == NULL)
            UT_OK(ulp_yield());
        wl_phase = 1;
        UT_OK(ulp_migrate(wl_s[1]));
        wl_addr[2] = wl_tls_addr();
    }
    UT_EQ(*wl_tls_addr(), 1000 + id);
    UT_OK(pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old));
    UT_EQ(old, id == 0 ? PTHREAD_CANCEL_DISABLE : PTHREAD_CANCEL_ENABLE);
    return 0;
}

/*
 * wrfsbase / arch_prctl: each ULP has its own thread block, so its TLS
 * addresses are its own for its whole life.  copy: a ULP's TLS values are
 * its own, at its carrier's addresses (README, privacy table).
 */
UT_CASE(tls_addresses_follow_the_method)
{
    ulp_t *u[2];
    UT_OK(ulp_init());
    int copy = ulp_fsbase_method() == ULP_FSBASE_COPY;
    UT_OK(ulp_sched_create(&wl_s[0], -1));
    UT_OK(ulp_sched_create(&wl_s[1], -1));
    UT_OK(ulp_create(&u[0], wl_s[0], wl_fn, (void *)(intptr_t)0));
    UT_OK(ulp_create(&u[1], wl_s[0], wl_fn, (void *)(intptr_t)1));
    UT_OK(ulp_join(u[0], NULL));
    UT_OK(ulp_join(u[1], NULL));
    if (copy) {
        UT_CHECK(wl_addr[0] == wl_addr[1]);
        UT_CHECK(wl_addr[2] != wl_addr[0]);
    } else {
        UT_CHECK(wl_addr[0] != wl_addr[1]);
        UT_CHECK(wl_addr[2] == wl_addr[0]);
    }
    UT_OK(ulp_sched_destroy(wl_s[0]));
    UT_OK(ulp_sched_destroy(wl_s[1]));
    UT_OK(ulp_fin());
}

/* --- libc's per-thread state -------------------------------------------------
 */

#define LS_N 3
static locale_t ls_loc[LS_N];

static int ls_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    char here;
    pthread_attr_t a;
    void *lo;
    size_t sz;
    /* uselocale keeps its locale in libc's TLS. */
    UT_CHECK(uselocale(ls_loc[id]) != (locale_t)0);
    for (int i = 0; i < 200; i++) {
        UT_OK(ulp_yield());
        if (uselocale((locale_t)0) != ls_loc[id])
            ut_fail(__FILE__, __LINE__, "ULP %d: locale of another", id);
    }
    /* The descriptor shown is the ULP's own: its stack holds our frame. */
    UT_OK(pthread_getattr_np(pthread_self(), &a));
    UT_OK(pthread_attr_getstack(&a, &lo, &sz));
    UT_OK(pthread_attr_destroy(&a));
    UT_CHECK((char *)lo <= &here && &here < (char *)lo + sz);
    return 0;
}

/* uselocale() state and pthread_getattr_np() are per ULP in every method. */
UT_CASE(libc_thread_state_is_per_ulp)
{
    ulp_sched_t *s;
    ulp_t *u[LS_N];
    ls_loc[0] = LC_GLOBAL_LOCALE;
    for (int i = 1; i < LS_N; i++) {
        ls_loc[i] = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        UT_CHECK(ls_loc[i] != (locale_t)0);
    }
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s, -1));
    for (int i = 0; i < LS_N; i++)
        UT_OK(ulp_create(&u[i], s, ls_fn, (void *)(intptr_t)i));
    for (int i = 0; i < LS_N; i++)
        UT_OK(ulp_join(u[i], NULL));
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
}

/* --- FP control state
 * --------------------------------------------------------- */

static const int fp_modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD,
                                FE_TOWARDZERO};

static int fp_fn(void *arg)
{
    int k = (int)(intptr_t)arg;
    volatile double one = 1.0, three = 3.0;
    UT_OK(fesetround(fp_modes[k]));
    double ref = one / three;
    for (int i = 0; i < 500; i++) {
        UT_OK(ulp_yield());
        if (fegetround() != fp_modes[k])
            ut_fail(__FILE__, __LINE__, "ULP %d: rounding mode lost", k);
        double v = one / three;
        UT_CHECK(v == ref);
    }
    return 0;
}

/* Each ULP keeps its own rounding mode (MXCSR and the x87 control word). */
UT_CASE(fp_rounding_mode_is_per_ulp)
{
    ulp_sched_t *s;
    ulp_t *u[4];
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s, -1));
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_create(&u[i], s, fp_fn, (void *)(intptr_t)i));
    for (int i = 0; i < 4; i++)
        UT_OK(ulp_join(u[i], NULL));
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
}

/* --- many ULPs ---------------------------------------------------------------
 */

#define MANY_N 200
static ulp_sched_t *many_s[2];
static volatile long many_sum;

static int many_fn(void *arg)
{
    int id = (int)(intptr_t)arg;
    unsigned seed = (unsigned)id;
    ut_tls = id;
    for (int i = 0; i < 100; i++) {
        unsigned r = ut_rand(&seed) % 10;
        if (r == 0)
            UT_OK(ulp_migrate(many_s[ut_rand(&seed) & 1]));
        else if (r < 6)
            UT_OK(ulp_yield());
        UT_EQ(ut_tls, id);
        __atomic_add_fetch(&many_sum, 1, __ATOMIC_RELAXED);
    }
    return id & 0x7f;
}

UT_CASE(many_ulps_with_random_yields_and_migrations_all_finish)
{
    static ulp_t *u[MANY_N];
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&many_s[0], -1));
    UT_OK(ulp_sched_create(&many_s[1], -1));
    for (int i = 0; i < MANY_N; i++)
        UT_OK(ulp_create(&u[i], many_s[i & 1], many_fn,
                         (void *)(intptr_t)(i + 1)));
    for (int i = 0; i < MANY_N; i++) {
        int st;
        UT_OK(ulp_join(u[i], &st));
        UT_EQ(st, (i + 1) & 0x7f);
    }
    UT_EQ(many_sum, (long)MANY_N * 100);
    UT_OK(ulp_sched_destroy(many_s[0]));
    UT_OK(ulp_sched_destroy(many_s[1]));
    UT_OK(ulp_fin());
}

/* --- exit and join
 * ------------------------------------------------------------ */

static ulp_t *ej_target;

static int ej_exiter(void *arg)
{
    (void)arg;
    ulp_yield();
    ulp_exit(42);
    return 1; /* not reached */
}

static int ej_joiner(void *arg)
{
    int st = -1;
    (void)arg;
    UT_EQ(ulp_join(ulp_self(), NULL), -EDEADLK);
    UT_OK(ulp_join(ej_target, &st));
    return st + 1;
}

/* A ULP joins another at user level; ulp_exit's status reaches it. */
UT_CASE(ulp_exit_status_reaches_a_joining_ulp)
{
    ulp_sched_t *s;
    ulp_t *j;
    int st = -1;
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s, -1));
    UT_OK(ulp_create(&ej_target, s, ej_exiter, NULL));
    UT_OK(ulp_create(&j, s, ej_joiner, NULL));
    UT_OK(ulp_join(j, &st));
    UT_EQ(st, 43);
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
}

int main(void)
{
    ut_skip_unless_method_possible();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fsbase_method_follows_environment),
        cmocka_unit_test(wrfsbase_is_refused_without_fsgsbase),
        cmocka_unit_test(bad_environment_is_refused),
#if defined(__aarch64__)
        cmocka_unit_test(x86_methods_are_refused_on_aarch64),
        cmocka_unit_test(callee_saved_registers_survive_switches),
#endif
        cmocka_unit_test(calls_outside_a_ulp_are_refused),
        cmocka_unit_test(yield_runs_ulps_round_robin),
        cmocka_unit_test(yield_to_runs_the_named_ulp_next),
        cmocka_unit_test(tls_errno_and_identity_stay_private_across_switches),
        cmocka_unit_test(tls_errno_and_identity_stay_private_across_schedulers),
        cmocka_unit_test(tls_addresses_follow_the_method),
        cmocka_unit_test(libc_thread_state_is_per_ulp),
        cmocka_unit_test(fp_rounding_mode_is_per_ulp),
        cmocka_unit_test(
            many_ulps_with_random_yields_and_migrations_all_finish),
        cmocka_unit_test(ulp_exit_status_reaches_a_joining_ulp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
