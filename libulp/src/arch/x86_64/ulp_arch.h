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
struct ulp_ctx {
    void *sp;
    uintptr_t fsbase;
    volatile int busy;
    int pad_;
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

/* Can this kernel and CPU run wrfsbase in user mode? */
int ulp_arch_have_fsgsbase(void);

/* Name of the fs switch method, for reports. */
#define ULP_ARCH_FS_INSN_NAME    "wrfsbase"
#define ULP_ARCH_FS_SYSCALL_NAME "arch_prctl"

/* Raw system call: never touches errno (the thread block may be shared). */
static inline long ulp_arch_syscall6(long n, long a, long b, long c, long d,
                                     long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                       "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

#endif /* ULP_ARCH_X86_64_H */
