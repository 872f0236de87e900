/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_tls.c: a plain PIE task with __thread variables (.tdata and .tbss),
 * compiled the ordinary way (-fPIE -pie -rdynamic), so its code reaches them
 * with the local-exec TLS model.  Several copies run at the same time; each
 * must see the initial values, then only its own updates.  Does not link
 * libpip: it synchronises through the root's pt_shared_t (argv[1]).
 * argv[2] is a per-task value.  Returns 0, or the number of the failed check.
 *
 * Messages use dprintf(2, ...), not fprintf(stderr, ...): naming stderr
 * would give the program a copy relocation of it, which test_pip_stdio
 * checks on its own (task_stdio); failures here should not depend on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_task.h"

__thread int tls_init = 42; /* .tdata */
__thread long tls_array[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__thread int tls_zero;      /* .tbss */
__thread char tls_buf[256]; /* .tbss */

static int check(int cond, int code)
{
    if (!cond)
        dprintf(2, "task_tls: check %d failed\n", code);
    return cond ? 0 : code;
}

int main(int argc, char **argv)
{
    pt_shared_t *sh = argc > 2 ? pt_shared_from_arg(argv[1]) : NULL;
    int me = argc > 2 ? atoi(argv[2]) : 0;
    int rc = 0;

    if (sh == NULL)
        return 2;
    /* Initial images: .tdata copied, .tbss zeroed. */
    if ((rc = check(tls_init == 42, 10)) != 0)
        goto out;
    for (int i = 0; i < 8; i++)
        if ((rc = check(tls_array[i] == i + 1, 11)) != 0)
            goto out;
    if ((rc = check(tls_zero == 0, 12)) != 0)
        goto out;
    for (size_t i = 0; i < sizeof(tls_buf); i++)
        if ((rc = check(tls_buf[i] == 0, 13)) != 0)
            goto out;

    /* Everyone has checked the initial values before anyone writes. */
    if ((rc = check(pt_sbar_wait(&sh->sbar) == 0, 20)) != 0)
        goto out;
    tls_init = 1000 + me;
    tls_zero = 2000 + me;
    tls_array[3] = 3000 + me;
    snprintf(tls_buf, sizeof(tls_buf), "task %d", me);
    /* Publish the addresses: they must differ between tasks. */
    sh->ptr[me] = (void *)&tls_init;
    if ((rc = check(pt_sbar_wait(&sh->sbar) == 0, 21)) != 0)
        goto out;
    /* Everyone wrote: we must still see our own values. */
    char want[256];
    snprintf(want, sizeof(want), "task %d", me);
    if ((rc = check(tls_init == 1000 + me, 30)) != 0 ||
        (rc = check(tls_zero == 2000 + me, 31)) != 0 ||
        (rc = check(tls_array[3] == 3000 + me, 32)) != 0 ||
        (rc = check(tls_array[2] == 3, 33)) != 0 ||
        (rc = check(strcmp(tls_buf, want) == 0, 34)) != 0)
        goto out;
    sh->value[me] = tls_init;
out:
    /* Do not leave the others waiting at a barrier we skipped. */
    if (rc != 0)
        pt_set_fail(sh, rc);
    return rc;
}
