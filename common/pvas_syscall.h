/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_syscall.h: a system call with up to six arguments that never
 * touches errno (header only).  The result is the kernel's: >= 0, or a
 * negative errno value.  For code that runs while the thread block may be
 * shared or borrowed (libpip's clone children, libulp's switches between
 * thread blocks), where the thread-local errno of libc's syscall() is not
 * the caller's own.  Other architectures fall back to syscall(), which
 * does set errno.
 */
#ifndef PVAS_SYSCALL_H
#define PVAS_SYSCALL_H

#if !defined(__x86_64__) && !defined(__aarch64__)
#include <errno.h>
#include <unistd.h>
#endif

static inline long pvas_syscall6(long n, long a1, long a2, long a3, long a4,
                                 long a5, long a6)
{
#if defined(__aarch64__)
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a1;
    register long x1 __asm__("x1") = a2;
    register long x2 __asm__("x2") = a3;
    register long x3 __asm__("x3") = a4;
    register long x4 __asm__("x4") = a5;
    register long x5 __asm__("x5") = a6;
    __asm__ __volatile__("svc #0"
                         : "+r"(x0)
                         : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                         : "memory");
    return x0;
#elif defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;
    __asm__ __volatile__("syscall"
                         : "=a"(ret)
                         : "0"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8),
                           "r"(r9)
                         : "rcx", "r11", "memory");
    return ret;
#else
    long r = syscall(n, a1, a2, a3, a4, a5, a6);
    return r < 0 ? -errno : r;
#endif
}

#endif /* PVAS_SYSCALL_H */
