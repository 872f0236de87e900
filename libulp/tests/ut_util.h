/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ut_util.h: helpers of the libulp tests (header only).
 *
 * Every case runs in a forked child (fresh libulp/libpip state, and a hang
 * becomes a failure through alarm()).  Inside the child, UT_CHECK* print the
 * failing expression and _exit(1); the parent turns the status into a
 * cmocka result.
 */
#ifndef UT_UTIL_H
#define UT_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulp.h>

#include "th_util.h"

#define UT_CASE_TIMEOUT 60 /* seconds per case */

#if defined(__SANITIZE_ADDRESS__)
/* Parked kernel threads and freed-at-join stacks look like leaks to LSan
 * when a case fails half-way; everything else ASan checks. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
#endif

__attribute__((noreturn, format(printf, 3, 4))) static inline void
ut_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: FAILED: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(NULL);
    _exit(1);
}

#define UT_CHECK(cond)                                                         \
    do {                                                                       \
        if (!(cond))                                                           \
            ut_fail(__FILE__, __LINE__, "%s", #cond);                          \
    } while (0)

/* expr must return `want` (0 or a negative errno). */
#define UT_EQ(expr, want)                                                      \
    do {                                                                       \
        long ut_rc_ = (long)(expr), ut_want_ = (long)(want);                   \
        if (ut_rc_ != ut_want_)                                                \
            ut_fail(__FILE__, __LINE__, "%s returned %ld (%s), expected %ld",  \
                    #expr, ut_rc_, ulp_strerror((int)ut_rc_), ut_want_);       \
    } while (0)

#define UT_OK(expr) UT_EQ(expr, 0)

/* Run body in a forked child and report its outcome to cmocka. */
static inline void ut_run_case(void (*body)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        /* cmocka's handlers would turn a child's crash into a longjmp. */
        signal(SIGSEGV, SIG_DFL);
        signal(SIGBUS, SIG_DFL);
        signal(SIGABRT, SIG_DFL);
        alarm(UT_CASE_TIMEOUT);
        body();
        fflush(NULL);
        _exit(0);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == TH_EXIT_SKIP)
        skip();
    if (WIFSIGNALED(st))
        fail_msg("case killed by signal %d%s", WTERMSIG(st),
                 WTERMSIG(st) == SIGALRM ? " (timeout: a hang)" : "");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("case failed (exit %d)", WEXITSTATUS(st));
}

#define UT_CASE(name)                                                          \
    static void name##_body(void);                                             \
    static void name(void **state)                                             \
    {                                                                          \
        (void)state;                                                           \
        ut_run_case(name##_body);                                              \
    }                                                                          \
    static void name##_body(void)

/*
 * Does the kernel let user code write the fs base (FSGSBASE, AT_HWCAP2 bit
 * 1)?  ULP_TEST_NO_FSGSBASE makes libulp and the tests answer no.
 */
static inline int ut_have_fsgsbase(void)
{
#if defined(__x86_64__)
    const char *v = getenv("ULP_TEST_NO_FSGSBASE");
    if (v != NULL && *v != '\0' && strcmp(v, "0") != 0)
        return 0;
    return (getauxval(AT_HWCAP2) & 2) != 0;
#else
    return 0; /* an x86-64 feature (aarch64's bit 1 means something else) */
#endif
}

/* A program that needs what ULP_FSBASE asks for skips as a whole. */
static inline void ut_skip_unless_method_possible(void)
{
    const char *v = getenv("ULP_FSBASE");
#if defined(__aarch64__)
    if (v != NULL && *v != '\0' && strcmp(v, "auto") != 0 &&
        strcmp(v, "tpidr") != 0) {
        printf("SKIP: ULP_FSBASE=%s is an x86-64 method; aarch64 has tpidr "
               "only\n",
               v);
        exit(TH_EXIT_SKIP);
    }
#endif
    if (v != NULL && strcmp(v, "wrfsbase") == 0 && !ut_have_fsgsbase()) {
        printf("SKIP: ULP_FSBASE=wrfsbase needs FSGSBASE, which this "
               "kernel does not enable\n");
        exit(TH_EXIT_SKIP);
    }
}

/*
 * errno read or set in a frame of its own.  With the copy method a ULP's
 * errno lives at its carrier's address, and a compiler may keep &errno
 * (__errno_location is declared const) across a call that changes the
 * carrier (migrate, couple, decouple): see the privacy table in README.md.
 */
__attribute__((noinline, unused)) static int ut_errno(void)
{
    __asm__ volatile("" ::: "memory");
    return errno;
}
__attribute__((noinline, unused)) static void ut_set_errno(int v)
{
    __asm__ volatile("" ::: "memory");
    errno = v;
}

/* A small deterministic PRNG per ULP (rand() state would be shared). */
static inline unsigned ut_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

#endif /* UT_UTIL_H */
