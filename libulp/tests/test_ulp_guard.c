/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ulp_guard.c: a ULP that overflows its stack hits the guard area and
 * gets a one-line report, and the process ends by SIGSEGV; other faults
 * keep their usual outcome without a report.  The crashing roots are
 * separate programs (ulp_overflow), run with a timeout.
 */
#include "ut_util.h"

static char *gd_helper, *gd_task;

static void gd_run(char *mode, char *extra, int want_report)
{
    char *argv[] = {gd_helper, mode, extra, NULL};
    char *out = NULL, *err = NULL;
    int st = 0;
    int rc = th_run(argv, NULL, 60, &st, &out, &err);
    assert_int_equal(rc, 0);
    if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV)
        fail_msg("%s: expected death by SIGSEGV, got status 0x%x; stderr: %s",
                 mode, st, err != NULL ? err : "");
    int n = th_count(err, "ulp: stack overflow in ULP ");
    if (n != want_report)
        fail_msg("%s: %d overflow reports, expected %d; stderr: %s", mode, n,
                 want_report, err != NULL ? err : "");
    free(out);
    free(err);
}

static void overflow_of_a_function_ulp_is_reported(void **state)
{
    (void)state;
    gd_run("fn", NULL, 1);
}

static void overflow_of_a_task_ulp_is_reported(void **state)
{
    (void)state;
    gd_run("task", gd_task, 1);
}

static void other_faults_are_not_called_overflows(void **state)
{
    (void)state;
    gd_run("wild", NULL, 0);
}

int main(void)
{
    gd_helper = th_sibling_path("ulp_overflow");
    gd_task = th_sibling_path("ulp_task_worker");
    if (gd_helper == NULL || gd_task == NULL)
        return TH_EXIT_HARD_ERROR;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overflow_of_a_function_ulp_is_reported),
        cmocka_unit_test(overflow_of_a_task_ulp_is_reported),
        cmocka_unit_test(other_faults_are_not_called_overflows),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(gd_helper);
    free(gd_task);
    return rc;
}
