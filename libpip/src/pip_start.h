/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_start.h: main's address from glibc's _start (a stripped program),
 * shared by libpip (pip_entry.c) and pip-check.
 *
 * glibc's _start passes main's address to __libc_start_main in the first
 * argument register; on x86-64 it loads it with one rip-relative
 * `lea disp32(%rip),%rdi` (48 8d 3d disp32) within its first 48 bytes
 * (both the old _start with __libc_csu_init and the one of glibc 2.34+,
 * whose `mov main@GOTPCREL(%rip),%rdi` the linker relaxes into that lea).
 * A _start of another shape (main taken through the GOT, another machine)
 * is not understood.
 */
#ifndef PIP_START_H
#define PIP_START_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bytes of _start looked at. */
#define PIP_START_BYTES 48

/* `code`: the `len` bytes at vaddr `entry`.  1 and *va main's unrelocated
 * address (still to be checked against the executable segments), or 0. */
static inline int pip_start_main(const unsigned char *code, size_t len,
                                 uint64_t entry, uint64_t *va)
{
#if defined(__x86_64__)
    for (size_t i = 0; i + 7 <= len; i++) {
        if (code[i] != 0x48 || code[i + 1] != 0x8d || code[i + 2] != 0x3d)
            continue;
        int32_t disp;
        memcpy(&disp, code + i + 3, sizeof(disp));
        *va = entry + i + 7 + (uint64_t)(int64_t)disp;
        return 1;
    }
#else
    (void)code;
    (void)len;
    (void)entry;
    (void)va;
#endif
    return 0;
}

#endif /* PIP_START_H */
