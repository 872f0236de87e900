/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ulp_base.c: what every other file of libulp uses and which calls none of
 * them: the process-wide state, the running ULP, the link of a task's copy
 * of libulp to the root's, the log, error strings and identity.
 *
 * Layers (each file uses only those below it): ulp_base.c; ulp_tls.c (the
 * copy method); ulp_sched.c (schedulers, switch, suspend/resume, couple);
 * ulp_sync.c (mutex, barrier); ulp_core.c (set-up, ULPs from functions and
 * tasks, exit and join).
 */
#include "ulp_internal.h"
#include "pvas_log.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

struct ulp_global ulp_g_;
__thread struct ulp *ulp_self_;

/* Filled in by the root in a task's copy of libulp; see ulp_spawn(). */
__attribute__((visibility("default"))) struct ulp_ns_link ulp_ns_link_;

void ulp_dbg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(PVAS_LOG_ULP, PVAS_LOG_ERROR, fmt, ap);
    va_end(ap);
}

const char *ulp_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case -EPERM:
        return "not permitted here (not initialised, not a ULP, or wrong "
               "thread)";
    case -EINVAL:
        return "invalid argument";
    case -ENOMEM:
        return "out of memory";
    case -EAGAIN:
        return "resource temporarily unavailable (not ready here, no "
               "thread or namespace left)";
    case -EBUSY:
        return "busy (already initialised, still in use)";
    case -EDEADLK:
        return "would deadlock (joining or relocking itself)";
    case -ENOTSUP:
        return "not supported (FSGSBASE not enabled by the kernel, or a "
               "TLS layout the copy method does not know)";
    case -ECHILD:
        return "no such task";
    case -ENOENT:
        return "not a PiP task";
    default:
        return err < 0 ? strerror(-err) : "unknown error";
    }
}

/* --- identity ---------------------------------------------------------------
 */

ulp_t *ulp_self(void)
{
    ULP_FORWARD(self);
    return ulp_self_;
}

int ulp_id(const ulp_t *u)
{
    return u != NULL ? u->id : -EINVAL;
}

int ulp_pipid(const ulp_t *u)
{
    if (u == NULL)
        return -EINVAL;
    return u->pipid >= 0 ? u->pipid : -ENOENT;
}

pid_t ulp_gettid(void)
{
    ULP_FORWARD(gettid);
    struct ulp *u = ulp_self_;
    return u != NULL ? u->ktid : ulp_raw_gettid();
}
