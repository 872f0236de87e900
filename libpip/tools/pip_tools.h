/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_tools.h: what the PiP tools share.
 */
#ifndef PIP_TOOLS_H
#define PIP_TOOLS_H

/*
 * The static TLS reserve of a root: pip-exec's, and what `pipcc --piproot`
 * links in (libpiproot.a).  Tasks whose __thread data needs more cannot run
 * under such a root; pip-check compares against it.
 */
#define PIP_TOOLS_TLS_RESERVE (64 * 1024)

/* The dynamic linker programs of this machine run under (pip-check
 * --ldlinux). */
#if defined(__x86_64__)
#define PIP_TOOLS_LDSO "/lib64/ld-linux-x86-64.so.2"
#elif defined(__aarch64__)
#define PIP_TOOLS_LDSO "/lib/ld-linux-aarch64.so.1"
#else
#define PIP_TOOLS_LDSO ""
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pip/pip_config.h>

/*
 * --version, answered alike by every tool: "PROG (libpip) VERSION" on
 * stdout.  Returns 1 when ARG asked for it (the caller exits 0).
 */
static inline int pip_tool_version(const char *prog, const char *arg)
{
    if (arg == NULL || strcmp(arg, "--version") != 0)
        return 0;
    printf("%s (libpip) %s\n", prog, PACKAGE_VERSION);
    return 1;
}

/* "PROG: message" on stderr, one line, then exit(code). */
static inline void pip_tool_die(const char *prog, int code, const char *fmt,
                                ...)
    __attribute__((format(printf, 3, 4), noreturn));
static inline void pip_tool_die(const char *prog, int code, const char *fmt,
                                ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

#endif /* PIP_TOOLS_H */
