/* SPDX-License-Identifier: BSD-2-Clause */
/* ulp_arch.c: x86-64 thread-pointer helpers of libulp. */
#include "ulp_arch.h"

#include <asm/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include "pvas_env.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

int ulp_arch_have_fsgsbase(void)
{
    /* a bad value: ulp_init refuses it */
    if (pvas_env_on("ULP_TEST_NO_FSGSBASE", 0))
        return 0;
    return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
}

uintptr_t ulp_arch_get_fsbase(int use_insn)
{
    uintptr_t v = 0;
    if (use_insn) {
        __asm__ volatile("rdfsbase %0" : "=r"(v));
        return v;
    }
    (void)ulp_arch_syscall6(SYS_arch_prctl, ARCH_GET_FS, (long)&v, 0, 0, 0, 0);
    return v;
}
