/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_check.c: pip-check's verdicts and reasons for good and bad
 * tasks and roots, its exit status, and one-line errors for bad usage.
 */
#include "pt_tool.h"

static char *check;

static char *p(const char *name)
{
    return pt_tool_path(name);
}

/* "PATH: ROLE: VERDICT" line present in the output? */
static void expect_line(const pt_run_t *r, const char *path, const char *rest)
{
    char *want = NULL;
    assert_true(asprintf(&want, "%s: %s\n", path, rest) > 0);
    if (strstr(r->out, want) == NULL)
        fail_msg("want line '%s: %s' in stdout:\n%s\nstderr: %s", path, rest,
                 r->out, r->err);
    free(want);
}

static void plain_pie_is_a_task(void **state)
{
    (void)state;
    char *t = p("task_nop");
    pt_run_t r = pt_run(NULL, check, "-t", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    expect_line(&r, t, "task: yes");
    assert_int_equal(th_count(r.out, "\n"), 1);
    assert_string_equal(r.err, "");
    pt_run_free(&r);
}

static void plain_pie_is_not_a_root_and_says_why(void **state)
{
    (void)state;
    char *t = p("task_nop");
    pt_run_t r = pt_run(NULL, check, "-r", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    expect_line(&r, t,
                "root: no: not linked with libpip: link with -lpip (pipcc "
                "--piproot does)");
    /* PiP's rule for a root is libpip linked: the TLS reserve is libpip's
     * wider rule (--libpip). */
    assert_int_equal(th_count(r.out, "\n"), 1);
    pt_run_free(&r);
    r = pt_run(NULL, check, "--libpip", "-r", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "root: no: no TLS reserve of its own"));
    assert_int_equal(th_count(r.out, "\n"), 2);
    /* Neither role asked: one role is enough for status 0. */
    pt_run_free(&r);
    r = pt_run(NULL, check, t, NULL);
    PT_EXPECT_EXIT(r, 0);
    expect_line(&r, t, "task: yes");
    assert_int_equal(th_count(r.out, "root: no: "), 1);
    pt_run_free(&r);
    /* Both roles asked: both must hold. */
    r = pt_run(NULL, check, "-r", "-t", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    pt_run_free(&r);
}

static void non_pie_is_refused_as_task(void **state)
{
    (void)state;
    char *t = p("task_nopie");
    pt_run_t r = pt_run(NULL, check, "-t", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    expect_line(&r, t,
                "task: no: not position-independent (ET_EXEC): rebuild with "
                "-fPIE -pie -rdynamic (pipcc does)");
    pt_run_free(&r);
}

/* PiP's rule: a task exports main (-rdynamic).  libpip's wider rule
 * (--libpip): a main in .symtab is found; in a stripped program without
 * -rdynamic, from _start. */
static void unexported_main_needs_the_symbol_table(void **state)
{
    (void)state;
    char *t = p("task_nordyn");
    pt_run_t r = pt_run(NULL, check, "-t", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "task: no: 'main' is not exported"));
    pt_run_free(&r);
    r = pt_run(NULL, check, "--libpip", "-t", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    expect_line(&r, t, "task: yes");
    pt_run_free(&r);
    r = pt_run(NULL, check, "--libpip", "-v", "-t", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "main in .symtab only"));
    pt_run_free(&r);
    char *s = pt_scratch_file("nordyn_stripped");
    r = pt_run(NULL, "strip", "-o", s, t, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, check, "--libpip", "-t", s, NULL);
    PT_EXPECT_EXIT(r, 0);
    expect_line(&r, s, "task: yes");
    pt_run_free(&r);
}

static void start_function_must_be_exported(void **state)
{
    (void)state;
    char *t = p("task_nop");
    pt_run_t r = pt_run(NULL, check, "-t", "-f", "no_such_function", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    expect_line(&r, t,
                "task: no: start function 'no_such_function' is neither "
                "exported nor in the symbol table");
    pt_run_free(&r);
    r = pt_run(NULL, check, "-t", "-f", "main", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
}

static void tls_larger_than_reserve_is_refused(void **state)
{
    (void)state;
    char *t = p("task_bigtls");
    pt_run_t r = pt_run(NULL, check, "-t", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "task: no: its __thread data needs "));
    assert_non_null(strstr(r.out, "more than the root's reserve of 65536 "
                                  "bytes"));
    pt_run_free(&r);
    /* A root with a larger reserve takes it. */
    r = pt_run(NULL, check, "-t", "--reserve", "262144", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    /* task_tls has a few bytes of TLS: fits 64 KiB, not 8 bytes. */
    char *tt = p("task_tls");
    r = pt_run(NULL, check, "-t", tt, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, check, "-t", "--reserve=8", tt, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "more than the root's reserve of 8 bytes"));
    pt_run_free(&r);
}

static void roots_with_and_without_enough_reserve(void **state)
{
    (void)state;
    char *good = p("root_tls_big"), *small = p("root_tls_small");
    pt_run_t r = pt_run(NULL, check, "--libpip", "-r", good, NULL);
    PT_EXPECT_EXIT(r, 0);
    expect_line(&r, good, "root: yes");
    pt_run_free(&r);
    /* PiP's rule (libpip linked) takes the small one too. */
    r = pt_run(NULL, check, "-r", small, NULL);
    PT_EXPECT_EXIT(r, 0);
    expect_line(&r, small, "root: yes");
    pt_run_free(&r);
    r = pt_run(NULL, check, "--libpip", "-r", small, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "root: no: its TLS reserve of 1024 bytes is "
                                  "below the 65536 bytes"));
    assert_int_equal(th_count(r.out, "\n"), 1);
    pt_run_free(&r);
    /* --reserve 0: no reserve asked for. */
    r = pt_run(NULL, check, "--libpip", "-r", "--reserve", "0", small, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
}

static void static_program_is_neither(void **state)
{
    (void)state;
    char *s = p("task_static");
    pt_run_t r = pt_run(NULL, check, s, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "task: no: statically linked"));
    assert_non_null(strstr(r.out, "root: no: statically linked"));
    pt_run_free(&r);
}

static void files_that_are_not_programs(void **state)
{
    (void)state;
    char *script = pt_scratch_file("script.sh");
    pt_write_file(script, "#!/bin/sh\nexit 0\n", 0755);
    char *noexec = pt_scratch_file("noexec");
    size_t len;
    char *img = pt_slurp(p("task_nop"), &len);
    int fd = open(noexec, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, len), (ssize_t)len);
    close(fd);
    /* Another machine: e_machine patched; truncated: headers cut off. */
    char *foreign = pt_scratch_file("foreign");
    img[18] = (char)0xff;
    img[19] = (char)0x7f;
    fd = open(foreign, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, len), (ssize_t)len);
    close(fd);
    char *trunc = pt_scratch_file("truncated");
    img[18] = 0x3e; /* back to x86-64 where it matters */
    img[19] = 0;
    fd = open(trunc, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, 100), 100);
    close(fd);
    free(img);
    char *missing = pt_scratch_file("missing");
    const char *dir = pt_scratch_dir();

    pt_run_t r = pt_run(NULL, check, "-t", script, dir, missing, noexec,
                        foreign, trunc, NULL);
    PT_EXPECT_EXIT(r, 1);
    expect_line(&r, script, "task: no: not an ELF file");
    expect_line(&r, dir, "task: no: is a directory");
    expect_line(&r, missing, "task: no: no such file");
    expect_line(&r, noexec, "task: no: not executable (no x permission)");
    expect_line(&r, foreign, "task: no: ELF file for another class or machine");
#if defined(__x86_64__)
    assert_non_null(strstr(r.out, "truncated: task: no: broken ELF file"));
#endif
    assert_string_equal(r.err, "");
    pt_run_free(&r);
}

static void several_programs_one_verdict_each(void **state)
{
    (void)state;
    char *a = p("task_nop"), *b = p("task_nopie");
    pt_run_t r = pt_run(NULL, check, "-t", a, b, NULL);
    PT_EXPECT_EXIT(r, 1);
    expect_line(&r, a, "task: yes");
    assert_int_equal(th_count(r.out, "\n"), 2);
    pt_run_free(&r);
    r = pt_run(NULL, check, "-q", "-t", a, b, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_string_equal(r.out, "");
    pt_run_free(&r);
    r = pt_run(NULL, check, "-q", "-t", a, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "");
    pt_run_free(&r);
}

static void verbose_prints_the_facts(void **state)
{
    (void)state;
    char *a = p("task_nop");
    pt_run_t r = pt_run(NULL, check, "-v", "-t", a, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "info: type ET_DYN, dynamic, interpreter, "
                                  "DF_1_PIE set, main exported, libpip not "
                                  "linked"));
    pt_run_free(&r);
}

static void bad_usage_gives_one_line(void **state)
{
    (void)state;
    char *a = p("task_nop");
    struct {
        const char *args[4];
        const char *needle;
    } cases[] = {
        {{NULL}, "no program given"},
        {{"-t", NULL}, "no program given"},
        {{"-x", a, NULL}, "unknown option '-x'"},
        {{"--reserve", "lots", a, NULL}, "--reserve 'lots'"},
        {{"--reserve=-5", a, NULL}, "not a number of bytes"},
        {{"-f", NULL}, "-f needs a function name"},
        {{"-q", "-v", a, NULL}, "exclude each other"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[6] = {check};
        for (int k = 0; k < 4 && cases[i].args[k] != NULL; k++)
            argv[k + 1] = (char *)cases[i].args[k];
        pt_run_t r = pt_runv(NULL, argv);
        /* Usage errors exit 1, as PiP 2.4's pip-check. */
        pt_expect_one_line_error(&r, 1, "pip-check", cases[i].needle);
        pt_run_free(&r);
    }
    pt_run_t r = pt_run(NULL, check, "--help", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "usage: pip-check"));
    pt_run_free(&r);
    /* -h and --usage: the usage on stderr, exit 1, as PiP 2.4's. */
    const char *h[] = {"-h", "--usage"};
    for (size_t i = 0; i < 2; i++) {
        r = pt_run(NULL, check, h[i], NULL);
        PT_EXPECT_EXIT(r, 1);
        assert_non_null(strstr(r.err, "usage: pip-check"));
        assert_string_equal(r.out, "");
        pt_run_free(&r);
    }
}

int main(void)
{
    check = pt_tool_path("../pip-check");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_pie_is_a_task),
        cmocka_unit_test(plain_pie_is_not_a_root_and_says_why),
        cmocka_unit_test(non_pie_is_refused_as_task),
        cmocka_unit_test(unexported_main_needs_the_symbol_table),
        cmocka_unit_test(start_function_must_be_exported),
        cmocka_unit_test(tls_larger_than_reserve_is_refused),
        cmocka_unit_test(roots_with_and_without_enough_reserve),
        cmocka_unit_test(static_program_is_neither),
        cmocka_unit_test(files_that_are_not_programs),
        cmocka_unit_test(several_programs_one_verdict_each),
        cmocka_unit_test(verbose_prints_the_facts),
        cmocka_unit_test(bad_usage_gives_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
