/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_pip_task.c: a PiP task that is a delegation client of its root.
 *
 *   dlg_pip_task test|die|bench SHARED_ADDR INDEX
 *
 * SHARED_ADDR is the "%p" of the root's dlg_pip_shared_t (one address
 * space), INDEX this task's slot for reports.  `test`: S->iters rounds of
 * an ECHO, a 1 MiB FILL of the task's own malloc'ed buffer by the root's
 * handler through the plain pointer (checked here byte for byte), and an
 * inline SUM.  `die`: one request, then SIGKILL without detaching (PiP
 * process mode).  `bench`: the round-trip sweep of dlg_pip.h.  Exit status 0
 * when everything held; failures are described in S->msg[INDEX].
 */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deleg.h"
#include "dlg_pip.h"

static dlg_pip_shared_t *S;
static int idx;

static int fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S->msg[idx], sizeof(S->msg[idx]), fmt, ap);
    va_end(ap);
    S->fail[idx] = code;
    return code;
}

static int run_test(dlg_client_t *c)
{
    uint8_t *big = malloc(DLG_PIP_FILL_N);
    uint8_t small[DLG_PIP_SUM_N];
    if (!big)
        return fail(2, "malloc");
    for (int it = 0; it < S->iters; it++) {
        int64_t res = -1;
        uint64_t a = (uint64_t)idx * 1000 + (uint64_t)it;
        dlg_call_t echo = {
            .op = DLG_PIP_OP_ECHO, .nargs = 3, .args = {a, 7, 11}};
        int rc = dlg_call(c, &echo, &res, NULL, NULL);
        if (rc || res != (int64_t)(a + 18))
            return fail(3, "echo %d: rc %d result %lld", it, rc,
                        (long long)res);
        uint8_t byte = (uint8_t)(idx * 16 + it % 16 + 1);
        memset(big, 0, DLG_PIP_FILL_N);
        dlg_call_t fill = {.op = DLG_PIP_OP_FILL,
                           .nargs = 2,
                           .args = {(uint64_t)(uintptr_t)big, byte},
                           .buf = big,
                           .len = DLG_PIP_FILL_N,
                           .mode = DLG_BUF_LOCAL,
                           .dir = DLG_BUF_IN | DLG_BUF_OUT};
        rc = dlg_call(c, &fill, &res, NULL, NULL);
        if (rc || res != DLG_PIP_FILL_N)
            return fail(4, "fill %d: rc %d result %lld", it, rc,
                        (long long)res);
        for (size_t i = 0; i < DLG_PIP_FILL_N; i += 4093)
            if (big[i] != byte)
                return fail(5, "fill %d: byte %zu is %u, expected %u", it, i,
                            big[i], byte);
        if (big[DLG_PIP_FILL_N - 1] != byte)
            return fail(5, "fill %d: last byte not written", it);
        int64_t want = 0;
        for (int i = 0; i < DLG_PIP_SUM_N; i++) {
            small[i] = (uint8_t)(i * 3 + it + idx);
            want += small[i];
        }
        dlg_call_t sum = {.op = DLG_PIP_OP_SUM,
                          .buf = small,
                          .len = sizeof(small),
                          .mode = DLG_BUF_INLINE};
        rc = dlg_call(c, &sum, &res, NULL, NULL);
        if (rc || res != want)
            return fail(6, "sum %d: rc %d result %lld, expected %lld", it, rc,
                        (long long)res, (long long)want);
    }
    free(big);
    return 0;
}

int main(int argc, char **argv)
{
    void *p = NULL;
    if (argc != 4 || sscanf(argv[2], "%p", &p) != 1 || !p)
        return 99;
    S = p;
    idx = atoi(argv[3]);
    if (idx < 0 || idx >= DLG_PIP_MAXT)
        return 99;
    dlg_region_t *r;
    int rc = dlg_region_open(S->spec, &r);
    if (rc)
        return fail(10, "open %s: %s", S->spec, dlg_strerror(rc));
    dlg_client_t *c;
    dlg_client_attr_t ca = {.same_address_space = S->same_as};
    rc = dlg_client_attach(r, &ca, &c);
    if (rc) {
        dlg_region_close(r);
        return fail(11, "attach: %s", dlg_strerror(rc));
    }
    if (strcmp(argv[1], "test") == 0)
        rc = run_test(c);
    else if (strcmp(argv[1], "die") == 0) {
        /* one request, then end without detaching: SIGKILL (PiP process
         * mode only: the task is a process of its own) */
        int64_t res;
        dlg_call_t echo = {.op = DLG_PIP_OP_ECHO, .nargs = 1, .args = {1}};
        rc = dlg_call(c, &echo, &res, NULL, NULL);
        if (rc)
            return fail(14, "die: call: %s", dlg_strerror(rc));
        kill(getpid(), SIGKILL);
        return fail(15, "still alive after SIGKILL");
    } else if (strcmp(argv[1], "bench") == 0)
        rc = dlg_pip_sweep(c, S) ? fail(12, "sweep failed") : 0;
    else
        rc = fail(99, "unknown action %s", argv[1]);
    int rc2 = dlg_client_detach(c);
    dlg_region_close(r);
    if (!rc && rc2)
        rc = fail(13, "detach: %s", dlg_strerror(rc2));
    return rc;
}
