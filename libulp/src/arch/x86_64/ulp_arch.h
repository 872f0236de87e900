/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_arch.h: the x86-64 part of libulp: a saved context, the switch and
 * the thread pointer.  Everything architecture-specific is here and in
 * ulp_switch.S; an aarch64 port provides the same names (TPIDR_EL0 in
 * place of the fs base, d8-d15 and FPCR in place of MXCSR/x87 CW).
 */
#ifndef ULP_ARCH_X86_64_H
#define ULP_ARCH_X86_64_H

#include <stddef.h>
#include <stdint.h>

#include "pvas_syscall.h"

/*
 * A saved context.  The callee-saved registers, MXCSR and the x87 control
 * word are pushed on the context's own stack by the switch; the context
 * keeps the stack pointer, its thread pointer (fs base: the glibc thread
 * block, hence errno, __thread data, pthread_self(), the stack-protector
 * canary) and a busy flag.  busy is 1 from the moment a kernel thread
 * decides to run the context until the switch away from it has saved
 * everything: a kernel thread that wants to run a context waits for 0
 * (ulp_ctx_claim), so a context handed to another scheduler while it is
 * still being saved is never run half-saved.  Offsets are used by the
 * assembly: sp 0, fsbase 8, busy 16.
 */
struct ulp_tls_map;
struct ulp_ctx {
    void *sp;
    uintptr_t fsbase;
    volatile int busy;
    int pad_;
    /* The copy method only (see ulp_tls.c): what to save and load. */
    const struct ulp_tls_map *tls; /* NULL: nothing (scheduler loop, park) */
    void *tls_buf;                 /* the ULP's copy of those bytes */
    uintptr_t self;                /* thread descriptor shown; 0: carrier's */
    void *owner;                   /* the struct ulp, or NULL */
};

/* Save into `from`, clear from->busy, load `to` (fs base with wrfsbase). */
void ulp_arch_switch_wrfsbase(struct ulp_ctx *from, struct ulp_ctx *to);
/* The same, with the arch_prctl(ARCH_SET_FS) system call. */
void ulp_arch_switch_syscall(struct ulp_ctx *from, struct ulp_ctx *to);
/* The same without touching fs (both contexts share one thread block). */
void ulp_arch_switch_nofs(struct ulp_ctx *from, struct ulp_ctx *to);

/* Entry of a fresh context: calls fn(arg); fn must never return. */
void ulp_arch_trampoline(void);

/*
 * Prepare a fresh context on [stack, stack+size) that starts fn(arg) with
 * thread pointer `fsbase`, default MXCSR (0x1f80) and x87 CW (0x37f).
 */
static inline void ulp_arch_ctx_make(struct ulp_ctx *c, void *stack,
                                     size_t size, void (*fn)(void *), void *arg,
                                     uintptr_t fsbase)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - 64 - 16);
    sp[0] = 0x1f80ULL | (0x37fULL << 32); /* MXCSR, x87 CW */
    sp[1] = 0;                            /* r15 */
    sp[2] = 0;                            /* r14 */
    sp[3] = (uint64_t)(uintptr_t)arg;     /* r13 */
    sp[4] = (uint64_t)(uintptr_t)fn;      /* r12 */
    sp[5] = 0;                            /* rbx */
    sp[6] = 0;                            /* rbp */
    sp[7] = (uint64_t)(uintptr_t)ulp_arch_trampoline;
    c->sp = sp;
    c->fsbase = fsbase;
    c->busy = 0;
}

static inline void ulp_arch_pause(void)
{
    __builtin_ia32_pause();
}

/* The caller's thread pointer (fs base), by rdfsbase or by the system call. */
uintptr_t ulp_arch_get_fsbase(int use_insn);

/* Can this kernel and CPU run wrfsbase in user mode?  ULP_TEST_NO_FSGSBASE
 * set to a non-empty value other than 0 makes it answer no (tests). */
int ulp_arch_have_fsgsbase(void);

/* The thread pointer, without a system call: glibc keeps the TCB's own
 * address in its first word (%fs:0), as the x86-64 TLS ABI asks. */
static inline uintptr_t ulp_arch_tp(void)
{
    uintptr_t v;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(v));
    return v;
}

/* glibc's tcbhead_t.self (%fs:0x10): what pthread_self() and every
 * THREAD_SELF-> access of libc read. */
#define ULP_ARCH_SELF_OFFSET 0x10
static inline uintptr_t ulp_arch_get_self(void)
{
    uintptr_t v;
    __asm__ volatile("movq %%fs:0x10, %0" : "=r"(v));
    return v;
}
static inline void ulp_arch_set_self(uintptr_t v)
{
    __asm__ volatile("movq %0, %%fs:0x10" : : "r"(v) : "memory");
}

/* Name of the fs switch method, for reports. */
#define ULP_ARCH_FS_INSN_NAME    "wrfsbase"
#define ULP_ARCH_FS_SYSCALL_NAME "arch_prctl"
#define ULP_ARCH_FS_COPY_NAME    "copy"

/* Raw system call: never touches errno (the thread block may be shared). */
static inline long ulp_arch_syscall6(long n, long a, long b, long c, long d,
                                     long e, long f)
{
    return pvas_syscall6(n, a, b, c, d, e, f);
}

#endif /* ULP_ARCH_X86_64_H */
