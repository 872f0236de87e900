/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_mode.c: pip-mode takes PiP's flags (-P process, -T thread,
 * -L/-G/-C process variants run in process mode), prints PIP_MODE=<mode>
 * without a command, runs commands and passes their exit status through;
 * printpipmode prints the mode a root gets, or exits with pip_init()'s
 * error.
 */
#include "pt_tool.h"

static char *mode, *printpipmode;

/* Without a command pip-mode prints PIP_MODE=<mode> for its options, as
 * PiP's does; the mode a root really gets is printpipmode's answer. */
static void prints_the_mode_it_would_set(void **state)
{
    (void)state;
    struct {
        const char *opt;
        const char *want;
    } cases[] = {
        {NULL, "PIP_MODE=\n"},
        {"-P", "PIP_MODE=process\n"},
        {"-p", "PIP_MODE=process\n"},
        {"--process", "PIP_MODE=process\n"},
        {"-T", "PIP_MODE=pthread\n"},
        {"-t", "PIP_MODE=pthread\n"},
        {"--thread", "PIP_MODE=pthread\n"},
        {"--pthread", "PIP_MODE=pthread\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt_run_t r = pt_run(NULL, mode, cases[i].opt, NULL);
        PT_EXPECT_EXIT(r, 0);
        assert_string_equal(r.out, cases[i].want);
        assert_string_equal(r.err, "");
        pt_run_free(&r);
    }
}

/* PiP's process-mode variants: PIP_MODE is set to PiP's name, quietly,
 * and a root reports that name (PiP's test.sh compares printpipmode's
 * output with it). */
static void variants_set_pips_names(void **state)
{
    (void)state;
    struct {
        const char *opt, *want;
    } cases[] = {
        {"-L", "process:preload"},
        {"-l", "process:preload"},
        {"--process:preload", "process:preload"},
        {"-G", "process:got"},
        {"-g", "process:got"},
        {"--process:got", "process:got"},
        {"-C", "process:pipclone"},
        {"-c", "process:pipclone"},
        {"--process:pipclone", "process:pipclone"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt_run_t r = pt_run(NULL, mode, cases[i].opt, "sh", "-c",
                            "echo \"$PIP_MODE\"", NULL);
        PT_EXPECT_EXIT(r, 0);
        char want[64];
        snprintf(want, sizeof(want), "%s\n", cases[i].want);
        assert_string_equal(r.out, want);
        assert_string_equal(r.err, "");
        pt_run_free(&r);
        r = pt_run(NULL, mode, cases[i].opt, printpipmode, NULL);
        PT_EXPECT_EXIT(r, 0);
        assert_string_equal(r.out, want);
        pt_run_free(&r);
    }
}

/* printpipmode: the mode pip_init() gives a root of this environment. */
static void printpipmode_prints_the_mode_a_root_gets(void **state)
{
    (void)state;
    struct {
        const char *env;
        const char *want;
    } cases[] = {
        {NULL, "process:preload\n"},
        {"PIP_MODE=", "process:preload\n"},
        {"PIP_MODE=process", "process:preload\n"},
        {"PIP_MODE=process:preload", "process:preload\n"},
        {"PIP_MODE=process:got", "process:got\n"},
        {"PIP_MODE=process:pipclone", "process:pipclone\n"},
        {"PIP_MODE=thread", "pthread\n"},
        {"PIP_MODE=pthread", "pthread\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *env[2] = {(char *)cases[i].env, NULL};
        pt_run_t r = pt_run(cases[i].env ? env : NULL, printpipmode, NULL);
        PT_EXPECT_EXIT(r, 0);
        assert_string_equal(r.out, cases[i].want);
        assert_string_equal(r.err, "");
        pt_run_free(&r);
    }
    /* Under pip-mode -T / -P. */
    pt_run_t r = pt_run(NULL, mode, "-T", printpipmode, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "pthread\n");
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-P", printpipmode, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "process:preload\n");
    pt_run_free(&r);
}

/* printpipmode exits with pip_init()'s error number, one line on stderr. */
static void printpipmode_bad_environment(void **state)
{
    (void)state;
    struct {
        const char *env;
        int code;
        const char *needle;
    } cases[] = {
        {"PIP_MODE=bogus", EPERM, "bad PIP_MODE value"},
        {"PIP_MODE=process:bogus", EPERM, "bad PIP_MODE value"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *env[2] = {(char *)cases[i].env, NULL};
        pt_run_t r = pt_run(env, printpipmode, NULL);
        pt_expect_one_line_error(&r, cases[i].code, "printpipmode",
                                 cases[i].needle);
        assert_non_null(strstr(r.err, "pip_init() fails"));
        pt_run_free(&r);
    }
}

static void runs_commands_under_a_mode(void **state)
{
    (void)state;
    /* pip-mode itself as the command: libpip sees the mode it was given. */
    char *env[] = {"PIP_MODE=thread", NULL};
    pt_run_t r = pt_run(env, mode, "-p", printpipmode, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "process:preload\n"); /* PiP's report */
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-t", printpipmode, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "pthread\n");
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-P", "--", "sh", "-c", "echo \"$PIP_MODE\"", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "process\n");
    pt_run_free(&r);
    /* No option: PIP_MODE is set empty (PiP's), whatever it was. */
    r = pt_run(env, mode, "sh", "-c", "echo \"[$PIP_MODE]\"", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "[]\n");
    pt_run_free(&r);
    r = pt_run(NULL, mode, "-T", "sh", "-c", "echo \"$PIP_MODE\"; exit 5",
               NULL);
    PT_EXPECT_EXIT(r, 5);
    assert_string_equal(r.out, "pthread\n");
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

/* PiP's exit codes: 1 for an unknown option, 2 after the usage. */
static void bad_usage(void **state)
{
    (void)state;
    pt_run_t r = pt_run(NULL, mode, "-x", NULL);
    pt_expect_one_line_error(&r, 1, "pip-mode", "unknown option '-x'");
    pt_run_free(&r);
    const char *help[] = {"-u", "--help"};
    for (int i = 0; i < 2; i++) {
        r = pt_run(NULL, mode, help[i], NULL);
        PT_EXPECT_EXIT(r, 2);
        assert_string_equal(r.out, "");
        assert_non_null(strstr(r.err, "usage: pip-mode"));
        pt_run_free(&r);
    }
    r = pt_run(NULL, mode, "-h", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "usage: pip-mode"));
    pt_run_free(&r);
    /* "--" ends the options; nothing after it: print the mode. */
    r = pt_run(NULL, mode, "-T", "--", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "PIP_MODE=pthread\n");
    pt_run_free(&r);
    r = pt_run(NULL, printpipmode, "extra", NULL);
    pt_expect_one_line_error(&r, 2, "printpipmode", "takes no arguments");
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
    printpipmode = pt_tool_path("../printpipmode");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prints_the_mode_it_would_set),
        cmocka_unit_test(variants_set_pips_names),
        cmocka_unit_test(printpipmode_prints_the_mode_a_root_gets),
        cmocka_unit_test(printpipmode_bad_environment),
        cmocka_unit_test(runs_commands_under_a_mode),
        cmocka_unit_test(commands_that_cannot_run),
        cmocka_unit_test(bad_usage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
