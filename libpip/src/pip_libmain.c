/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_libmain.c: makes libpip.so runnable as a program
 * (`/path/libpip.so --version` prints "libpip <version>").
 *
 * Needs the link flag -Wl,-e,pip_libmain_entry.  The .interp section names
 * the dynamic linker so the kernel can start the file; when the file is
 * used as a library, .interp and the entry point are ignored.
 */
#include "pip_internal.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define PIP_INTERP "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define PIP_INTERP "/lib/ld-linux-aarch64.so.1"
#endif

#ifdef PIP_INTERP
const char pip_interp[] __attribute__((section(".interp"), used)) = PIP_INTERP;

static void pip_put(const char *s)
{
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t n = write(1, s, len);
        if (n <= 0)
            break;
        s += n;
        len -= (size_t)n;
    }
}

/* Called by the entry stub with the initial stack: argc, argv[], NULL, envp. */
PIP_HIDDEN void pip_libmain(long *sp) __attribute__((used, noreturn));
void pip_libmain(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);

    if (argc >= 2 &&
        (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        pip_put("libpip " PACKAGE_VERSION "\n");
        _exit(0);
    }
    pip_put("libpip " PACKAGE_VERSION ": the Process-in-Process library; "
            "usage: libpip.so --version (run programs with pip-exec)\n");
    _exit(argc >= 2 ? 2 : 0);
}

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl pip_libmain_entry\n"
        ".hidden pip_libmain_entry\n"
        ".type pip_libmain_entry, @function\n"
        "pip_libmain_entry:\n"
        "    xorl %ebp, %ebp\n"
        "    movq %rsp, %rdi\n"
        "    andq $-16, %rsp\n"
        "    call pip_libmain\n"
        "    hlt\n"
        ".size pip_libmain_entry, .-pip_libmain_entry\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl pip_libmain_entry\n"
        ".hidden pip_libmain_entry\n"
        ".type pip_libmain_entry, %function\n"
        "pip_libmain_entry:\n"
        "    mov x29, #0\n"
        "    mov x0, sp\n"
        "    bl pip_libmain\n"
        ".size pip_libmain_entry, .-pip_libmain_entry\n");
#endif
#endif /* PIP_INTERP */
