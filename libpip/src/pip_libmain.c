/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_libmain.c: makes libpip.so runnable as a program that answers PiP's
 * queries about the library:
 *
 *   libpip.so [--name] [--version] [--license] [--os] [--cc] [--prefix]
 *             [--glibc] [--ldlinux] [--commit] [--debug] [--all]
 *
 * Each option prints its value on a line of its own, in the order given;
 * no option (or --all) prints every value as "Field:<TAB>value".  As PiP's
 * libpip.so, options may start with one or two dashes and be abbreviated
 * while unambiguous; --usage, --help or an unknown option print the usage
 * on stderr and exit 1.
 *
 * --version prints the PiP version whose API and tools this libpip follows
 * (PIP_API_VERSION, from configure), bare, so that version checks
 * written for PiP take their v2 paths; --name tells this package and its
 * own version.
 *
 * Needs the link flag -Wl,-e,pip_libmain_entry.  The .interp section names
 * the dynamic linker so the kernel can start the file; when the file is
 * used as a library, .interp and the entry point are ignored.  libc is
 * mapped but not initialised here: only write(2) and string functions are
 * used.
 */
#include "pip_internal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pip_build.h"

#if defined(__x86_64__)
#define PIP_INTERP "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define PIP_INTERP "/lib/ld-linux-aarch64.so.1"
#endif

#ifdef PIP_INTERP
const char pip_interp[] __attribute__((section(".interp"), used)) = PIP_INTERP;

static void pip_put_fd(int fd, const char *s)
{
    size_t len = strlen(s);
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n <= 0)
            break;
        s += n;
        len -= (size_t)n;
    }
}

static void pip_put(const char *s)
{
    pip_put_fd(1, s);
}

/* The installation prefix: the directory above the one holding this file
 * (PREFIX/lib/libpip.so), found through /proc/self/exe. */
static const char *pip_libmain_prefix(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0)
        return "";
    buf[n] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(buf, '/');
        if (slash == NULL)
            return "";
        *slash = '\0';
    }
    return buf[0] != '\0' ? buf : "/";
}

enum {
    Q_NAME,
    Q_VERSION,
    Q_LICENSE,
    Q_OS,
    Q_CC,
    Q_PREFIX,
    Q_GLIBC,
    Q_LDLINUX,
    Q_COMMIT,
    Q_DEBUG,
    Q_N
};

static const struct {
    const char *opt, *field;
} pip_queries[Q_N] = {
    [Q_NAME] = {"name", "Package"},
    [Q_VERSION] = {"version", "Version"},
    [Q_LICENSE] = {"license", "License"},
    [Q_OS] = {"os", "Build OS"},
    [Q_CC] = {"cc", "Build CC"},
    [Q_PREFIX] = {"prefix", "Prefix dir"},
    [Q_GLIBC] = {"glibc", "PiP-glibc"},
    [Q_LDLINUX] = {"ldlinux", "ld-linux"},
    [Q_COMMIT] = {"commit", "Commit Hash"},
    [Q_DEBUG] = {"debug", "Debug build"},
};

static const char *pip_query_value(int q, char *buf, size_t size)
{
    switch (q) {
    case Q_NAME:
        return "libpip (pvas-runtime " PIP_RELEASE_VERSION ")";
    case Q_VERSION:
        return PIP_API_VERSION;
    case Q_LICENSE:
        return "the 2-clause simplified BSD License";
    case Q_OS:
        return PIP_BUILD_OS;
    case Q_CC:
        return PIP_BUILD_CC;
    case Q_PREFIX:
        return pip_libmain_prefix(buf, size);
    case Q_GLIBC:
        return ""; /* no patched glibc: tasks run on the system's glibc */
    case Q_LDLINUX:
        return PIP_INTERP;
    case Q_COMMIT:
        return PIP_BUILD_COMMIT;
    default:
#ifdef PVAS_DEBUG
        return "yes";
#else
        return "no";
#endif
    }
}

static void pip_usage(const char *argv0)
{
    pip_put_fd(2, argv0);
    pip_put_fd(2, " ");
    for (int q = 0; q < Q_N; q++) {
        pip_put_fd(2, "[--");
        pip_put_fd(2, pip_queries[q].opt);
        pip_put_fd(2, "]");
    }
    pip_put_fd(2, "[--usage][--help][--all]\n");
}

/* -OPT or --OPT, OPT a unique prefix of a query, "all", "usage" or "help";
 * returns the query, Q_N for all, -1 for usage or unknown. */
static int pip_query_of(const char *arg)
{
    if (arg[0] != '-')
        return -1;
    arg += arg[1] == '-' ? 2 : 1;
    size_t len = strlen(arg);
    if (len == 0)
        return -1;
    int found = -1, nfound = 0;
    for (int q = 0; q < Q_N; q++) {
        if (strcmp(arg, pip_queries[q].opt) == 0)
            return q;
        if (strncmp(arg, pip_queries[q].opt, len) == 0) {
            found = q;
            nfound++;
        }
    }
    if (strncmp(arg, "all", len) == 0) {
        found = Q_N;
        nfound++;
    }
    if (strncmp(arg, "usage", len) == 0 || strncmp(arg, "help", len) == 0)
        return -1;
    return nfound == 1 ? found : -1;
}

/* Called by the entry stub with the initial stack: argc, argv[], NULL, envp. */
PIP_HIDDEN void pip_libmain(long *sp) __attribute__((used, noreturn));
void pip_libmain(long *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    char buf[4096];
    const char *argv0 = argc > 0 ? argv[0] : "libpip.so";
    const char *slash = strrchr(argv0, '/');
    if (slash != NULL)
        argv0 = slash + 1;

    for (int i = 1; i <= argc; i++) {
        int q = i < argc ? pip_query_of(argv[i]) : (argc == 1 ? Q_N : -2);
        if (q == -2)
            break;
        if (q == -1) {
            pip_usage(argv0);
            _exit(1);
        }
        if (q == Q_N) {
            for (int k = 0; k < Q_N; k++) {
                pip_put(pip_queries[k].field);
                pip_put(":\t");
                pip_put(pip_query_value(k, buf, sizeof(buf)));
                pip_put("\n");
            }
            continue;
        }
        pip_put(pip_query_value(q, buf, sizeof(buf)));
        pip_put("\n");
    }
    _exit(0);
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
