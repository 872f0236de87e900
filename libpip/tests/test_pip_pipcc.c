/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_pipcc.c: the build tree's pipcc (libpip/tests/pipcc, generated
 * from the same template as the installed one): the flags it adds for
 * tasks, roots and compile-only runs, programs it builds running
 * standalone, as tasks of pip-exec and as roots with a TLS reserve, and
 * one-line errors for what cannot make a PiP program.
 */
#include "pt_tool.h"

static char *pipcc, *check;

static char *src(const char *name)
{
    char *rel = NULL;
    assert_true(asprintf(&rel, "libpip/tests/%s", name) > 0);
    char *p = pt_src_path(rel);
    free(rel);
    return p;
}

static void which_names_the_compiler(void **state)
{
    (void)state;
    pt_run_t r = pt_run(NULL, pipcc, "--which", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_int_equal(th_count(r.out, "\n"), 1);
    assert_true(r.out[0] == '/');
    r.out[strlen(r.out) - 1] = '\0';
    assert_int_equal(access(r.out, X_OK), 0);
    pt_run_free(&r);
    char *env[] = {"PIP_CC=/usr/bin/env", NULL};
    r = pt_run(env, pipcc, "--which", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "/usr/bin/env\n");
    pt_run_free(&r);
    char *bad[] = {"PIP_CC=no-such-compiler-here", NULL};
    r = pt_run(bad, pipcc, "--which", NULL);
    pt_expect_one_line_error(&r, 2, "pipcc",
                             "'no-such-compiler-here' not "
                             "found");
    pt_run_free(&r);
}

/* The words of pipcc --show's one line, space-separated, with spaces
 * around: " -pie " etc. */
static char *show(const char *a, const char *b, const char *c, const char *d)
{
    pt_run_t r = pt_run(NULL, pipcc, "--show", a, b, c, d, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_int_equal(th_count(r.out, "\n"), 1);
    char *line = NULL;
    r.out[strlen(r.out) - 1] = '\0';
    assert_true(asprintf(&line, " %s ", r.out) > 0);
    pt_run_free(&r);
    return line;
}

static void link_flags_for_tasks_and_roots(void **state)
{
    (void)state;
    char *l = show("-o", "x", "x.c", NULL);
    assert_non_null(strstr(l, " -fPIE "));
    assert_non_null(strstr(l, " -pie "));
    assert_non_null(strstr(l, " -rdynamic "));
    assert_non_null(strstr(l, " -lpip"));
    assert_non_null(strstr(l, " -Wl,-rpath,/"));
    assert_non_null(strstr(l, "/libpip/include "));
    assert_null(strstr(l, "libpiproot.a"));
    /* The user's arguments are kept, in order, libraries after them. */
    assert_true(strstr(l, " -o x x.c ") < strstr(l, " -lpip"));
    free(l);
    l = show("--piptask", "x.c", NULL, NULL);
    assert_non_null(strstr(l, " -pie "));
    assert_null(strstr(l, "libpiproot.a"));
    free(l);
    /* PiP's roles: --piproot alone links a root, not a PIE; both roles
     * together are the default (a task, which also works as a root). */
    l = show("--piproot", "-o", "r", "r.c");
    assert_non_null(strstr(l, " -no-pie "));
    assert_null(strstr(l, " -pie "));
    assert_null(strstr(l, " -rdynamic "));
    assert_non_null(strstr(l, "/libpiproot.a "));
    assert_non_null(strstr(l, " -Wl,--undefined=pip_root_tls_reserve_bytes "));
    assert_non_null(strstr(l, " -lpip"));
    free(l);
    l = show("--piproot", "--piptask", "x.c", NULL);
    assert_non_null(strstr(l, " -pie "));
    assert_non_null(strstr(l, " -rdynamic "));
    assert_null(strstr(l, "libpiproot.a"));
    free(l);
    /* PiP's macros, so that version-dependent PiP code takes its v2 paths. */
    l = show("-c", "x.c", NULL, NULL);
    assert_non_null(strstr(l, " -DPIPCC "));
    assert_non_null(strstr(l, " -DPIP_VERSION=2.4.1 "));
    assert_non_null(strstr(l, " -DPIP_VERSION_MAJOR=2 "));
    assert_non_null(strstr(l, " -DPIP_VERSION_MINOR=4 "));
    assert_non_null(strstr(l, " -DPIP_VERSION_SUBMINOR=1 "));
    assert_non_null(strstr(l, " -pthread "));
    free(l);
}

static void compile_only_gets_no_link_flags(void **state)
{
    (void)state;
    const char *modes[] = {"-c", "-E", "-S", "-MM"};
    for (int i = 0; i < 4; i++) {
        char *l = show(modes[i], "x.c", NULL, NULL);
        assert_non_null(strstr(l, " -fPIE "));
        assert_non_null(strstr(l, "/libpip/include "));
        assert_null(strstr(l, " -pie "));
        assert_null(strstr(l, " -rdynamic "));
        assert_null(strstr(l, "-lpip"));
        assert_null(strstr(l, "rpath"));
        free(l);
    }
    char *l = show("-shared", "-o", "libx.so", "x.c");
    assert_non_null(strstr(l, " -fPIC "));
    assert_null(strstr(l, " -pie "));
    free(l);
}

static void built_task_runs_standalone_and_as_tasks(void **state)
{
    (void)state;
    char *t = pt_scratch_file("task");
    pt_run_t r = pt_run(NULL, pipcc, "-O1", "-o", t, src("pipcc_task.c"), NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, t, "7", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "task standalone tls 1007 global 1\n");
    pt_run_free(&r);
    r = pt_run(NULL, check, "-t", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    const char *pe = getenv("PIP_EXEC");
    if (pe == NULL)
        return;
    r = pt_run(NULL, pe, "-n", "3", t, "5", NULL);
    PT_EXPECT_EXIT(r, 0);
    /* Private globals and TLS in each task. */
    for (int i = 0; i < 3; i++) {
        char want[64];
        snprintf(want, sizeof(want), "task pipid %d tls 1005 global 1\n", i);
        assert_non_null(strstr(r.out, want));
    }
    pt_run_free(&r);
}

static void separate_compile_and_link(void **state)
{
    (void)state;
    char *o = pt_scratch_file("task.o"), *t = pt_scratch_file("task2");
    pt_run_t r = pt_run(NULL, pipcc, "-c", src("pipcc_task.c"), "-o", o, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, check, "-t", o, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "not an executable program"));
    pt_run_free(&r);
    r = pt_run(NULL, pipcc, o, "-o", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, t, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "task standalone tls 1000 global 1\n");
    pt_run_free(&r);
    /* -E finds pip.h through the include path pipcc adds. */
    r = pt_run(NULL, pipcc, "-E", src("pipcc_task.c"), NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "pip_get_pipid"));
    pt_run_free(&r);
}

static void piproot_gives_the_root_a_tls_reserve(void **state)
{
    (void)state;
    char *t = pt_scratch_file("rtask"), *root = pt_scratch_file("root"),
         *bare = pt_scratch_file("bare_root");
    pt_run_t r = pt_run(NULL, pipcc, "-o", t, src("pipcc_task.c"), NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, pipcc, "--piproot", "-o", root, src("pipcc_root.c"), NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, pipcc, "-o", bare, src("pipcc_root.c"), NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);

    r = pt_run(NULL, check, "-r", root, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    /* A root (not a PIE) is not a valid task. */
    r = pt_run(NULL, check, "-t", root, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "task: no: not position-independent"));
    pt_run_free(&r);
    r = pt_run(NULL, root, "3", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "root ok 3\n"));
    assert_int_equal(th_count(r.out, "tls 1002 global 1\n"), 3);
    pt_run_free(&r);
    /* Without --piproot: no reserve (libpip's rule; PiP's takes it as a
     * root), and a task with __thread is refused. */
    r = pt_run(NULL, check, "-r", bare, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, check, "--libpip", "-r", bare, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_non_null(strstr(r.out, "root: no: no TLS reserve of its own"));
    pt_run_free(&r);
    /* A thread-mode task's __thread data lives in the root's reserve; a
     * process-mode task runs a private image with TLS of its own. */
    char *thread[] = {"PIP_MODE=thread", NULL};
    r = pt_run(thread, bare, "1", t, NULL);
    PT_EXPECT_EXIT(r, 1);
    assert_string_equal(r.out, "root spawn failed: ELIBEXEC\n");
    pt_run_free(&r);
    char *process[] = {"PIP_MODE=process", NULL};
    r = pt_run(process, bare, "1", t, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_int_equal(th_count(r.out, "tls 1002 global 1\n"), 1);
    pt_run_free(&r);
}

static void bad_usage_gives_one_line(void **state)
{
    (void)state;
    struct {
        const char *args[4];
        const char *needle;
    } cases[] = {
        {{NULL}, "no input files"},
        {{"--piproot", NULL}, "no input files"},
        {{"-O2", "-Wall", NULL}, "no input files"},
        {{"-Bstatic", "x.c", NULL}, "-Bstatic cannot make a PiP program"},
        {{"--enable-new-dtags", "x.c", NULL}, "not a runpath"},
        {{"-static", "x.c", NULL}, "-static cannot make a PiP program"},
        {{"-no-pie", "x.c", NULL}, "-no-pie cannot make a PiP program"},
        {{"-fno-pie", "-c", "x.c", NULL}, "-fno-pie cannot"},
        {{"x.c", "-o", NULL}, "-o needs a value"},
        {{"--piproot", "-shared", "x.c", NULL}, "not a shared library"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[6] = {pipcc};
        for (int k = 0; k < 4 && cases[i].args[k] != NULL; k++)
            argv[k + 1] = (char *)cases[i].args[k];
        pt_run_t r = pt_runv(NULL, argv);
        pt_expect_one_line_error(&r, 2, "pipcc", cases[i].needle);
        pt_run_free(&r);
    }
    /* The compiler's own errors come through with its status. */
    pt_run_t r = pt_run(NULL, pipcc, "-o", pt_scratch_file("never"),
                        pt_scratch_file("missing.c"), NULL);
    assert_int_not_equal(pt_exit_code(&r), 0);
    assert_true(r.err[0] != '\0');
    pt_run_free(&r);
    r = pt_run(NULL, pipcc, "--help", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "--piproot"));
    pt_run_free(&r);
}

int main(void)
{
    unsetenv("PIP_CC");
    unsetenv("CC"); /* pipcc reads it, as PiP's */
    pipcc = pt_tool_path("pipcc");
    check = pt_tool_path("../pip-check");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(which_names_the_compiler),
        cmocka_unit_test(link_flags_for_tasks_and_roots),
        cmocka_unit_test(compile_only_gets_no_link_flags),
        cmocka_unit_test(built_task_runs_standalone_and_as_tasks),
        cmocka_unit_test(separate_compile_and_link),
        cmocka_unit_test(piproot_gives_the_root_a_tls_reserve),
        cmocka_unit_test(bad_usage_gives_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
