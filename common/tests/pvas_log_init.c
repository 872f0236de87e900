/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_log_init.c: the initialisation calls of libulp and libdeleg, each
 * made twice, for test_pvas_log_init.sh.  Prints one line per library with
 * the two return codes:
 *   ulp_init RC1 RC2
 *   dlg_delegatee_create RC1 RC2
 * A call that succeeded is undone before the second call.  Exit status 0
 * unless the setup itself (the region) fails.
 */
#include <stdio.h>

#include <deleg.h>
#include <ulp.h>

int main(void)
{
    int u[2];
    for (int i = 0; i < 2; i++)
        if ((u[i] = ulp_init()) == 0)
            (void)ulp_fin();
    printf("ulp_init %d %d\n", u[0], u[1]);

    dlg_region_t *r;
    if (dlg_region_create(DLG_REGION_MEMFD, NULL, dlg_region_need(NULL), 0,
                          &r) != 0) {
        fprintf(stderr, "pvas_log_init: cannot create a region\n");
        return 1;
    }
    int d[2];
    for (int i = 0; i < 2; i++) {
        dlg_delegatee_t *dg;
        if ((d[i] = dlg_delegatee_create(r, NULL, &dg)) == 0)
            (void)dlg_delegatee_destroy(dg);
    }
    printf("dlg_delegatee_create %d %d\n", d[0], d[1]);
    (void)dlg_region_close(r);
    return 0;
}
