/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_switch.c: aarch64 context switch of libulp (see ulp_arch.h), as
 * file-scope assembly (no assembler step in the build).
 *
 * Saved on the old stack, 176 bytes: x19-x28, x29 (fp), x30 (lr), d8-d15
 * (the AAPCS64 callee-saved registers: only the low 64 bits of v8-v15 are
 * preserved across calls), then FPCR and FPSR.  The caller-saved registers
 * are dead across the call by the ABI.  After the stack pointer moves to
 * the new context, from->busy is cleared with a store-release (stlr): a
 * kernel thread that claims `from` with a load-acquire sees every saved
 * register.  The switch to a fresh context "returns" through lr into
 * ulp_arch_trampoline with x19 = fn, x20 = arg.
 */
#include "ulp_arch.h"

#define ULP_SAVE                                                               \
    "sub sp, sp, #176\n\t"                                                     \
    "stp x19, x20, [sp, #0]\n\t"                                               \
    "stp x21, x22, [sp, #16]\n\t"                                              \
    "stp x23, x24, [sp, #32]\n\t"                                              \
    "stp x25, x26, [sp, #48]\n\t"                                              \
    "stp x27, x28, [sp, #64]\n\t"                                              \
    "stp x29, x30, [sp, #80]\n\t"                                              \
    "stp d8, d9, [sp, #96]\n\t"                                                \
    "stp d10, d11, [sp, #112]\n\t"                                             \
    "stp d12, d13, [sp, #128]\n\t"                                             \
    "stp d14, d15, [sp, #144]\n\t"                                             \
    "mrs x9, fpcr\n\t"                                                         \
    "mrs x10, fpsr\n\t"                                                        \
    "stp x9, x10, [sp, #160]\n\t"                                              \
    "mov x9, sp\n\t"                                                           \
    "str x9, [x0, #0]\n\t"                                                     \
    "ldr x9, [x1, #0]\n\t"                                                     \
    "mov sp, x9\n\t"                                                           \
    "add x10, x0, #16\n\t"                                                     \
    "stlr wzr, [x10]\n\t"

#define ULP_RESTORE                                                            \
    "ldp x9, x10, [sp, #160]\n\t"                                              \
    "msr fpcr, x9\n\t"                                                         \
    "msr fpsr, x10\n\t"                                                        \
    "ldp d14, d15, [sp, #144]\n\t"                                             \
    "ldp d12, d13, [sp, #128]\n\t"                                             \
    "ldp d10, d11, [sp, #112]\n\t"                                             \
    "ldp d8, d9, [sp, #96]\n\t"                                                \
    "ldp x29, x30, [sp, #80]\n\t"                                              \
    "ldp x27, x28, [sp, #64]\n\t"                                              \
    "ldp x25, x26, [sp, #48]\n\t"                                              \
    "ldp x23, x24, [sp, #32]\n\t"                                              \
    "ldp x21, x22, [sp, #16]\n\t"                                              \
    "ldp x19, x20, [sp, #0]\n\t"                                               \
    "add sp, sp, #176\n\t"                                                     \
    "ret\n\t"

#define ULP_FUNC(name)                                                         \
    ".globl " #name "\n\t"                                                     \
    ".hidden " #name "\n\t"                                                    \
    ".type " #name ", %function\n\t"                                           \
    ".p2align 4\n" #name ":\n\t"

#define ULP_END(name) ".size " #name ", . - " #name "\n\t"

/* One instruction or macro per line: */
/* clang-format off */
__asm__(".text\n\t"
        /* void ulp_arch_switch_tpidr(struct ulp_ctx *, struct ulp_ctx *) */
        ULP_FUNC(ulp_arch_switch_tpidr)
        ULP_SAVE
        "ldr x9, [x1, #8]\n\t"
        "msr tpidr_el0, x9\n\t"
        ULP_RESTORE
        ULP_END(ulp_arch_switch_tpidr)
        /* void ulp_arch_switch_nofs(...): the same thread block */
        ULP_FUNC(ulp_arch_switch_nofs)
        ULP_SAVE
        ULP_RESTORE
        ULP_END(ulp_arch_switch_nofs)
        /* First code of a fresh context: x19 = fn, x20 = arg. */
        ULP_FUNC(ulp_arch_trampoline)
        "mov x29, #0\n\t"
        "mov x30, #0\n\t"
        "mov x0, x20\n\t"
        "blr x19\n\t"
        "brk #0x3e8\n\t"
        ULP_END(ulp_arch_trampoline));
/* clang-format on */
