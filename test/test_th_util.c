/* SPDX-License-Identifier: BSD-2-Clause */
/* test_th_util: the shared test helpers do what the other tests rely on. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "th_util.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run_captures_both_streams_and_status(void **state)
{
    char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 7", NULL};
    char *out = NULL, *err = NULL;
    int status = -1;
    assert_int_equal(th_run(argv, NULL, 10, &status, &out, &err), 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 7);
    assert_string_equal(out, "out\n");
    assert_string_equal(err, "err\n");
    free(out);
    free(err);
}

static void run_adds_environment(void **state)
{
    char *argv[] = {"/bin/sh", "-c", "printf %s \"$TH_PROBE\"", NULL};
    char *env[] = {"TH_PROBE=hello world", NULL};
    char *out = NULL;
    int status;
    assert_int_equal(th_run(argv, env, 10, &status, &out, NULL), 0);
    assert_string_equal(out, "hello world");
    assert_null(getenv("TH_PROBE")); /* the caller's environment is untouched */
    free(out);
}

static void run_kills_a_hung_command_at_the_timeout(void **state)
{
    /* The grandchild must die too: it is in the command's process group. */
    char *argv[] = {"/bin/sh", "-c", "sleep 100 & wait", NULL};
    int status = 0;
    double t0 = now();
    assert_int_equal(th_run(argv, NULL, 1, &status, NULL, NULL), -ETIMEDOUT);
    double elapsed = now() - t0;
    /* killed at the timeout, not when the 100 s sleep ends; 60 s leaves
     * room for any scheduling delay (quiet machine: 1.0 s) */
    assert_true(elapsed >= 0.9 && elapsed < 60.0);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
}

static void run_reports_a_missing_program(void **state)
{
    char *argv[] = {"/nonexistent/program", NULL};
    char *err = NULL;
    int status;
    assert_int_equal(th_run(argv, NULL, 10, &status, NULL, &err), 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 127);
    assert_non_null(strstr(err, "cannot execute"));
    free(err);
}

static void run_rejects_an_empty_command(void **state)
{
    char *argv[] = {NULL};
    assert_int_equal(th_run(argv, NULL, 1, NULL, NULL, NULL), -EINVAL);
    assert_int_equal(th_run(NULL, NULL, 1, NULL, NULL, NULL), -EINVAL);
}

static void run_captures_large_output(void **state)
{
    /* More than a pipe buffer on both streams at once must not deadlock. */
    char *argv[] = {"/bin/sh", "-c",
                    "i=0; while [ $i -lt 20000 ]; do echo 0123456789; "
                    "echo abcdefghij >&2; i=$((i+1)); done",
                    NULL};
    char *out = NULL, *err = NULL;
    int status;
    assert_int_equal(th_run(argv, NULL, 60, &status, &out, &err), 0);
    assert_int_equal(strlen(out), 20000 * 11);
    assert_int_equal(strlen(err), 20000 * 11);
    assert_int_equal(th_count(out, "0123456789\n"), 20000);
    free(out);
    free(err);
}

static void sibling_path_is_next_to_the_test(void **state)
{
    char *path = th_sibling_path("test_th_util");
    assert_non_null(path);
    assert_true(path[0] == '/');
    assert_int_equal(access(path, X_OK), 0);
    free(path);
}

static void count_counts_occurrences(void **state)
{
    assert_int_equal(th_count("a-b-c-", "-"), 3);
    assert_int_equal(th_count("aaaa", "aa"), 2);
    assert_int_equal(th_count("abc", "x"), 0);
    assert_int_equal(th_count(NULL, "x"), 0);
    assert_int_equal(th_count("abc", ""), 0);
}

/* The probe answers for this machine, and the forcing switch says no. */
static void cma_probe_answers_and_can_be_forced_off(void **state)
{
    (void)state;
    unsetenv("TH_TEST_NO_CMA");
    for (int dir = 0; dir < 2; dir++) {
        int e = th_cma_refused(dir);
        assert_true(e == 0 || e == EPERM || e == EACCES || e == ENOSYS ||
                    e == ESRCH);
    }
    setenv("TH_TEST_NO_CMA", "1", 1);
    assert_int_equal(th_cma_refused(0), EPERM);
    assert_int_equal(th_cma_refused(1), EPERM);
    unsetenv("TH_TEST_NO_CMA");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_captures_both_streams_and_status),
        cmocka_unit_test(run_adds_environment),
        cmocka_unit_test(run_kills_a_hung_command_at_the_timeout),
        cmocka_unit_test(run_reports_a_missing_program),
        cmocka_unit_test(run_rejects_an_empty_command),
        cmocka_unit_test(run_captures_large_output),
        cmocka_unit_test(sibling_path_is_next_to_the_test),
        cmocka_unit_test(count_counts_occurrences),
        cmocka_unit_test(cma_probe_answers_and_can_be_forced_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
