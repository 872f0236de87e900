/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_mode.c: pip-mode prints the mode libpip gives a root under
 * PIP_MODE, runs commands with -p / -t / -P, passes their exit status
 * through, and gives one-line errors for bad values and usage.
 */
#include "pt_tool.h"

static char *mode;

static void prints_the_mode_a_root_gets(void **state)
{
    (void)state;
    struct {
        const char *env;
        const char *want;
    } cases[] = {
        {NULL, "process\n"},
        {"PIP_MODE=", "process\n"},
        {"PIP_MODE=process", "process\n"},
        {"PIP_MODE=thread", "thread\n"},
        {"PIP_MODE=pthread", "thread\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *env[2] = {(char *)cases[i].env, NULL};
        pt_run_t r = pt_run(cases[i].env ? env : NULL, mode, NULL);
        PT_EXPECT_EXIT(r, 0);
        assert_string_equal(r.out, cases[i].want);
        assert_string_equal(r.err, "");
        pt_run_free(&r);
    }
}

static void bad_environment_gives_one_line(void **state)
{
    (void)state;
    struct {
        const char *env;
        const char *needle;
    } cases[] = {
        {"PIP_MODE=bogus", "bad PIP_MODE value 'bogus'"},
        {"PIP_MODE=threads", "bad PIP_MODE value 'threads'"},
        {"PIP_MODE=process:got", "variant this libpip does not provide"},
        {"PIP_MODE=process:preload", "variant this libpip does not provide"},
        {"PIP_STACKSZ=12q", "check PIP_STACKSZ"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *env[2] = {(char *)cases[i].env, NULL};
        pt_run_t r = pt_run(env, mode, NULL);
        pt_expect_one_line_error(&r, 1, "pip-mode", cases[i].needle);
        pt_run_free(&r);
    }
}

static void runs_commands_under_a_mode(void **state)
{
    (void)state;
    /* pip-mode itself as the command: libpip sees the mode it was given. */
    char *env[] = {"PIP_MODE=thread", NULL};
    pt_run_t r = pt_run(env, mode, "-p", mode, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "process\n");
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-t", mode, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "thread\n");
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-P", "--", "sh", "-c", "echo \"$PIP_MODE\"", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "pthread\n");
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-t", "sh", "-c", "echo \"$PIP_MODE\"; exit 5",
               NULL);
    PT_EXPECT_EXIT(r, 5);
    assert_string_equal(r.out, "thread\n");
    pt_run_free(&r);
    /*
     * A PiP program under each mode: pip-exec (exec'ed by sh, so its PID is
     * sh's) runs task_block, which reads one byte of pip-exec itself from
     * stdin.  Thread mode: the task has pip-exec's PID; process mode: not.
     */
    const char *pe = getenv("PIP_EXEC");
    if (pe == NULL)
        return;
    char *task = pt_tool_path("task_block");
    const char *opts[] = {"-t", "-p"};
    for (int i = 0; i < 2; i++) {
        r = pt_run(NULL, mode, opts[i], "sh", "-c",
                   "echo root $$; exec \"$0\" -n 1 \"$1\" <\"$0\"", pe, task,
                   NULL);
        PT_EXPECT_EXIT(r, 0);
        int tpid = -1, rpid = -2;
        const char *ready = strstr(r.out, "ready ");
        assert_non_null(ready);
        assert_int_equal(sscanf(r.out, "root %d", &rpid), 1);
        assert_int_equal(sscanf(ready, "ready %d", &tpid), 1);
        if (i == 0)
            assert_int_equal(tpid, rpid);
        else
            assert_int_not_equal(tpid, rpid);
        pt_run_free(&r);
    }
}

static void commands_that_cannot_run(void **state)
{
    (void)state;
    pt_run_t r = pt_run(NULL, mode, "-t", "/nonexistent/cmd", NULL);
    pt_expect_one_line_error(&r, 127, "pip-mode", "No such file");
    pt_run_free(&r);
    char *f = pt_scratch_file("noexec");
    pt_write_file(f, "#!/bin/sh\n", 0644);
    r = pt_run(NULL, mode, "-p", f, NULL);
    pt_expect_one_line_error(&r, 126, "pip-mode", "Permission denied");
    pt_run_free(&r);
}

static void bad_usage_gives_one_line(void **state)
{
    (void)state;
    struct {
        const char *args[4];
        const char *needle;
    } cases[] = {
        {{"-x", NULL}, "unknown option '-x'"},
        {{"-t", NULL}, "no command given"},
        {{"-t", "-p", "true", NULL}, "exclude each other"},
        {{"true", NULL}, "give the mode to run true under"},
        {{"--", NULL}, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[6] = {mode};
        for (int k = 0; k < 4 && cases[i].args[k] != NULL; k++)
            argv[k + 1] = (char *)cases[i].args[k];
        pt_run_t r = pt_runv(NULL, argv);
        if (cases[i].needle == NULL) { /* "--" alone: print the mode */
            PT_EXPECT_EXIT(r, 0);
            pt_run_free(&r);
            continue;
        }
        pt_expect_one_line_error(&r, 2, "pip-mode", cases[i].needle);
        pt_run_free(&r);
    }
    pt_run_t r = pt_run(NULL, mode, "--help", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "usage: pip-mode"));
    pt_run_free(&r);
}

int main(void)
{
    /* The cases set PIP_MODE themselves. */
    unsetenv("PIP_MODE");
    unsetenv("PIP_STACKSZ");
    unsetenv("KMP_STACKSIZE");
    unsetenv("OMP_STACKSIZE");
    mode = pt_tool_path("../pip-mode");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prints_the_mode_a_root_gets),
        cmocka_unit_test(bad_environment_gives_one_line),
        cmocka_unit_test(runs_commands_under_a_mode),
        cmocka_unit_test(commands_that_cannot_run),
        cmocka_unit_test(bad_usage_gives_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
