/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_arch.h: the aarch64 part of libulp: a saved context, the switch and
 * the thread pointer.  Same names as the x86-64 port; the thread pointer is
 * TPIDR_EL0, which user code reads and writes with mrs/msr (no system call
 * and no FSGSBASE question), so every switch loads the ULP's own thread
 * block and there is one method only (ULP_FSBASE_TPIDR).
 */
#ifndef ULP_ARCH_AARCH64_H
#define ULP_ARCH_AARCH64_H

#include <stddef.h>
#include <stdint.h>

#include "pvas_syscall.h"

/*
 * A saved context, laid out as on x86-64 (offsets used by the assembly:
 * sp 0, fsbase 8, busy 16).  `fsbase` holds the TPIDR_EL0 value (glibc's
 * TCB address: TLS variant I, the thread's static TLS follows it).  The
 * callee-saved registers x19-x28, fp, lr, d8-d15 and FPCR/FPSR are stored
 * on the context's own stack by the switch (see ulp_switch.c).  busy is
 * cleared by a store-release after everything is saved; ulp_ctx_claim
 * reads it with load-acquire, so another core that then runs the context
 * sees the whole frame.
 */
struct ulp_tls_map;
struct ulp_ctx {
    void *sp;
    uintptr_t fsbase;
    volatile int busy;
    int pad_;
    /* The copy method's fields (x86-64 only): unused here. */
    const struct ulp_tls_map *tls;
    void *tls_buf;
    uintptr_t self;
    void *owner;
};

/* Save into `from`, clear from->busy, load `to` and its TPIDR_EL0. */
void ulp_arch_switch_tpidr(struct ulp_ctx *from, struct ulp_ctx *to);
/* The same without touching TPIDR_EL0 (both share one thread block). */
void ulp_arch_switch_nofs(struct ulp_ctx *from, struct ulp_ctx *to);

/* Entry of a fresh context: calls fn(arg); fn must never return. */
void ulp_arch_trampoline(void);

/* Size of the frame the switch keeps on a stopped context's stack. */
#define ULP_ARCH_FRAME 176

/*
 * Prepare a fresh context on [stack, stack+size) that starts fn(arg) with
 * thread pointer `fsbase`, FPCR 0 (round to nearest, no traps: the AAPCS64
 * default) and FPSR 0.  Frame (see ulp_switch.c): [0..9] x19-x28,
 * [10] fp, [11] lr, [12..19] d8-d15, [20] FPCR, [21] FPSR.
 */
static inline void ulp_arch_ctx_make(struct ulp_ctx *c, void *stack,
                                     size_t size, void (*fn)(void *), void *arg,
                                     uintptr_t fsbase)
{
    uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)(top - ULP_ARCH_FRAME);
    for (int i = 0; i < ULP_ARCH_FRAME / 8; i++)
        sp[i] = 0;
    sp[0] = (uint64_t)(uintptr_t)fn;  /* x19 */
    sp[1] = (uint64_t)(uintptr_t)arg; /* x20 */
    sp[11] = (uint64_t)(uintptr_t)ulp_arch_trampoline; /* lr */
    c->sp = sp;
    c->fsbase = fsbase;
    c->busy = 0;
}

static inline void ulp_arch_pause(void)
{
    __asm__ volatile("yield" ::: "memory");
}

/* The caller's thread pointer (TPIDR_EL0); the argument is for x86-64. */
static inline uintptr_t ulp_arch_get_fsbase(int use_insn)
{
    uintptr_t v;
    (void)use_insn;
    __asm__ volatile("mrs %0, tpidr_el0" : "=r"(v));
    return v;
}

/* No FSGSBASE on aarch64 (and no need for it). */
static inline int ulp_arch_have_fsgsbase(void)
{
    return 0;
}

static inline uintptr_t ulp_arch_tp(void)
{
    return ulp_arch_get_fsbase(1);
}

#define ULP_ARCH_FS_INSN_NAME "msr tpidr_el0"

/* Raw system call: never touches errno (the thread block may be shared). */
static inline long ulp_arch_syscall6(long n, long a, long b, long c, long d,
                                     long e, long f)
{
    return pvas_syscall6(n, a, b, c, d, e, f);
}

#endif /* ULP_ARCH_AARCH64_H */
