/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pc.h: what the PiP-style programs of this directory share.  They are
 * written against PiP 2.4.1's documented API only (pip.h, the man pages):
 * each program is its own root and spawns itself (or a function of
 * itself) as tasks, checks every result, prints what it saw on stdout and
 * exits 0 when all checks held.  pipcompat.sh runs each in both modes and
 * compares the (sorted) output with the program's .exp file.
 */
#ifndef PC_H
#define PC_H

#include <pip/pip.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#if !defined(PIP_VERSION_MAJOR) || PIP_VERSION_MAJOR < 2
#error "these programs use the PiP v2 API"
#endif

/* Check that `expr` holds; else say which and exit with `code`. */
#define PC_CHECK(expr, code)                                                   \
    do {                                                                       \
        if (!(expr)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #expr);                                                    \
            fflush(NULL);                                                      \
            exit(code);                                                        \
        }                                                                      \
    } while (0)

/* A PiP call that must return `want` (0 or an errno value). */
#define PC_RV(call, want)                                                      \
    do {                                                                       \
        int pc_rv_ = (call);                                                   \
        if (pc_rv_ != (want)) {                                                \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n",       \
                    __FILE__, __LINE__, #call, pc_rv_, strerror(pc_rv_),       \
                    (want));                                                   \
            fflush(NULL);                                                      \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

#endif /* PC_H */
