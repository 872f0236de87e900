/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_switch.c: x86-64 context switch of libulp (see ulp_arch.h), as
 * file-scope assembly (no assembler step in the build).
 *
 * Saved on the old stack: rbp rbx r12-r15 (the System V callee-saved
 * registers), then MXCSR and the x87 control word in one 8-byte slot.  The
 * caller-saved registers are dead across the call by the ABI.  Frame seen
 * from the saved sp: [0] MXCSR | x87 CW << 32, [8] r15, [16] r14, [24] r13,
 * [32] r12, [40] rbx, [48] rbp, [56] return address.  After the stack
 * pointer moves to the new context, from->busy is cleared: from then on
 * another kernel thread may run `from`.
 */
#include "ulp_arch.h"

#define ULP_SAVE                                                               \
    "pushq %rbp\n\t"                                                           \
    "pushq %rbx\n\t"                                                           \
    "pushq %r12\n\t"                                                           \
    "pushq %r13\n\t"                                                           \
    "pushq %r14\n\t"                                                           \
    "pushq %r15\n\t"                                                           \
    "subq $8, %rsp\n\t"                                                        \
    "stmxcsr (%rsp)\n\t"                                                       \
    "fnstcw 4(%rsp)\n\t"                                                       \
    "movq %rsp, 0(%rdi)\n\t"                                                   \
    "movq 0(%rsi), %rsp\n\t"                                                   \
    "movl $0, 16(%rdi)\n\t"

#define ULP_RESTORE                                                            \
    "ldmxcsr (%rsp)\n\t"                                                       \
    "fldcw 4(%rsp)\n\t"                                                        \
    "addq $8, %rsp\n\t"                                                        \
    "popq %r15\n\t"                                                            \
    "popq %r14\n\t"                                                            \
    "popq %r13\n\t"                                                            \
    "popq %r12\n\t"                                                            \
    "popq %rbx\n\t"                                                            \
    "popq %rbp\n\t"                                                            \
    "ret\n\t"

#define ULP_FUNC(name)                                                         \
    ".globl " #name "\n\t"                                                     \
    ".hidden " #name "\n\t"                                                    \
    ".type " #name ", @function\n\t"                                           \
    ".p2align 4\n" #name ":\n\t"

#define ULP_END(name) ".size " #name ", . - " #name "\n\t"

/* One instruction or macro per line: */
/* clang-format off */
__asm__(".text\n\t"
        /* void ulp_arch_switch_wrfsbase(struct ulp_ctx *, struct ulp_ctx *) */
        ULP_FUNC(ulp_arch_switch_wrfsbase)
        ULP_SAVE
        "movq 8(%rsi), %rax\n\t"
        "wrfsbase %rax\n\t"
        ULP_RESTORE
        ULP_END(ulp_arch_switch_wrfsbase)
        /* void ulp_arch_switch_syscall(...): arch_prctl(ARCH_SET_FS) */
        ULP_FUNC(ulp_arch_switch_syscall)
        ULP_SAVE
        "movq 8(%rsi), %rsi\n\t"
        "movl $0x1002, %edi\n\t" /* ARCH_SET_FS */
        "movl $158, %eax\n\t"    /* SYS_arch_prctl; clobbers rax rcx r11 */
        "syscall\n\t"
        ULP_RESTORE
        ULP_END(ulp_arch_switch_syscall)
        /* void ulp_arch_switch_nofs(...): the same thread block */
        ULP_FUNC(ulp_arch_switch_nofs)
        ULP_SAVE
        ULP_RESTORE
        ULP_END(ulp_arch_switch_nofs)
        /* First code of a fresh context: r12 = fn, r13 = arg. */
        ULP_FUNC(ulp_arch_trampoline)
        "xorl %ebp, %ebp\n\t"
        "movq %r13, %rdi\n\t"
        "callq *%r12\n\t"
        "ud2\n\t"
        ULP_END(ulp_arch_trampoline));
/* clang-format on */
