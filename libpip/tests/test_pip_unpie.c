/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_unpie.c: pip-unpie clears DF_1_PIE in a copy (-o) or in place
 * (-i), leaves the original alone, refuses non-ELF, non-PIE and
 * already-clear files, and gives one-line errors for bad usage.
 */
#include "pt_tool.h"

static char *unpie, *check;

static void copy_file(const char *from, const char *to, int mode)
{
    size_t len;
    char *img = pt_slurp(from, &len);
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, len), (ssize_t)len);
    assert_int_equal(close(fd), 0);
    free(img);
}

/* Number of bytes that differ (same size required). */
static size_t ndiff(const char *a, const char *b)
{
    size_t la, lb, n = 0;
    char *x = pt_slurp(a, &la), *y = pt_slurp(b, &lb);
    assert_int_equal(la, lb);
    for (size_t i = 0; i < la; i++)
        n += x[i] != y[i];
    free(x);
    free(y);
    return n;
}

static int pie_flag_set(const char *path)
{
    pt_run_t r = pt_run(NULL, check, "-v", "-t", path, NULL);
    int set = strstr(r.out, "DF_1_PIE set") != NULL;
    assert_true(set || strstr(r.out, "DF_1_PIE clear") != NULL);
    pt_run_free(&r);
    return set;
}

static void copy_has_the_flag_cleared_and_still_works(void **state)
{
    (void)state;
    char *orig = pt_tool_path("task_plain");
    char *before = pt_scratch_file("before");
    copy_file(orig, before, 0755);
    char *out = pt_scratch_file("unpied");
    pt_run_t r = pt_run(NULL, unpie, "-o", out, orig, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "");
    pt_run_free(&r);
    /* The original is untouched; the copy differs in the one flag byte. */
    assert_int_equal(ndiff(orig, before), 0);
    assert_int_equal(ndiff(orig, out), 1);
    assert_true(pie_flag_set(orig));
    assert_false(pie_flag_set(out));
    struct stat st;
    assert_int_equal(stat(out, &st), 0);
    assert_true((st.st_mode & 0111) != 0);
    /* Still an ordinary program, and still a task. */
    r = pt_run(NULL, out, "ret", "5", NULL);
    PT_EXPECT_EXIT(r, 5);
    pt_run_free(&r);
    const char *pe = getenv("PIP_EXEC");
    if (pe != NULL) {
        r = pt_run(NULL, pe, "-n", "2", out, "print", "ok.", NULL);
        PT_EXPECT_EXIT(r, 0);
        assert_string_equal(r.out, "ok.ok.");
        pt_run_free(&r);
    }
    /* A second time: already clear. */
    r = pt_run(NULL, unpie, "-o", pt_scratch_file("again"), out, NULL);
    pt_expect_one_line_error(&r, 1, "pip-unpie", "DF_1_PIE is already clear");
    pt_run_free(&r);
}

/* PiP's way: pip-unpie FILE rewrites FILE in place, quietly, and is
 * content when there is nothing to clear; -c tells the state. */
static void pip_way_in_place_and_check(void **state)
{
    (void)state;
    char *orig = pt_tool_path("task_nop");
    char *f = pt_scratch_file("pipway");
    copy_file(orig, f, 0755);
    pt_run_t r = pt_run(NULL, unpie, "-c", f, NULL);
    pt_expect_one_line_error(&r, 1, "pip-unpie", "not 'unpie-ed' yet");
    pt_run_free(&r);
    r = pt_run(NULL, unpie, f, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "");
    pt_run_free(&r);
    assert_false(pie_flag_set(f));
    assert_int_equal(ndiff(orig, f), 1);
    r = pt_run(NULL, f, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, unpie, "-c", f, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.err, "already 'unpie-ed'"));
    pt_run_free(&r);
    /* Again: nothing to clear, still 0 (pipcc-style callers run it after
     * every link). */
    r = pt_run(NULL, unpie, f, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.err, "");
    pt_run_free(&r);
    /* Not a PIE: left alone, 0; -c says so with 1. */
    char *np = pt_scratch_file("nopie");
    copy_file(pt_tool_path("task_nopie"), np, 0755);
    r = pt_run(NULL, unpie, np, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    assert_int_equal(ndiff(pt_tool_path("task_nopie"), np), 0);
    r = pt_run(NULL, unpie, "-c", np, NULL);
    pt_expect_one_line_error(&r, 1, "pip-unpie", "is NOT PIE");
    pt_run_free(&r);
    /* PiP's error codes: not ELF 1; cannot open, static program 2. */
    r = pt_run(NULL, unpie, pt_src_path("libpip/tests/task_nop.c"), NULL);
    pt_expect_one_line_error(&r, 1, "pip-unpie", "not an ELF file");
    pt_run_free(&r);
    r = pt_run(NULL, unpie, "/nonexistent/prog", NULL);
    pt_expect_one_line_error(&r, 2, "pip-unpie", "no such file");
    pt_run_free(&r);
    r = pt_run(NULL, unpie, pt_tool_path("task_static"), NULL);
    pt_expect_one_line_error(&r, 2, "pip-unpie", "no dynamic section");
    pt_run_free(&r);
}

static void in_place_only_when_asked(void **state)
{
    (void)state;
    char *orig = pt_tool_path("task_nop");
    char *f = pt_scratch_file("inplace");
    copy_file(orig, f, 0755);
    pt_run_t r = pt_run(NULL, unpie, "-i", f, NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_string_equal(r.err, "");
    pt_run_free(&r);
    assert_false(pie_flag_set(f));
    assert_int_equal(ndiff(orig, f), 1);
    r = pt_run(NULL, f, NULL);
    PT_EXPECT_EXIT(r, 0);
    pt_run_free(&r);
    r = pt_run(NULL, unpie, "-i", f, NULL);
    pt_expect_one_line_error(&r, 1, "pip-unpie", "already clear");
    pt_run_free(&r);
    /* -o onto the program itself is the in-place case: say so. */
    char *g = pt_scratch_file("self");
    copy_file(orig, g, 0755);
    r = pt_run(NULL, unpie, "-o", g, g, NULL);
    pt_expect_one_line_error(&r, 2, "pip-unpie", "use -i");
    pt_run_free(&r);
    assert_true(pie_flag_set(g));
}

static void refuses_what_it_cannot_change(void **state)
{
    (void)state;
    char *script = pt_scratch_file("script");
    pt_write_file(script, "#!/bin/sh\n", 0755);
    char *out = pt_scratch_file("never");
    struct {
        const char *prog;
        const char *needle;
    } cases[] = {
        {script, "not an ELF file"},
        {pt_tool_path("task_nopie"), "not a PIE (ET_EXEC"},
        {pt_tool_path("task_static"), "not a PIE"},
        {pt_scratch_file("missing"), "no such file"},
        {pt_scratch_dir(), "is a directory"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pt_run_t r = pt_run(NULL, unpie, "-o", out, cases[i].prog, NULL);
        pt_expect_one_line_error(&r, 1, "pip-unpie", cases[i].needle);
        pt_run_free(&r);
        assert_int_equal(access(out, F_OK), -1);
    }
    /* Output directory missing: an error, no stray temporary file. */
    pt_run_t r = pt_run(NULL, unpie, "-o", "/nonexistent-dir/x",
                        pt_tool_path("task_nop"), NULL);
    pt_expect_one_line_error(&r, 1, "pip-unpie", "cannot create");
    pt_run_free(&r);
}

static void bad_usage_gives_one_line(void **state)
{
    (void)state;
    char *t = pt_tool_path("task_nop");
    struct {
        const char *args[5];
        const char *needle;
    } cases[] = {
        {{NULL}, "no program given"},
        {{"-i", NULL}, "no program given"},
        {{"-o", NULL}, "-o needs an output file"},
        {{"-i", "-o", "x", t, NULL}, "exclude each other"},
        {{"-c", "-i", t, NULL}, "exclude each other"},
        {{"-i", t, t, NULL}, "one program at a time"},
        {{"-z", t, NULL}, "unknown option '-z'"},
        {{"-o", "a", "-o", "b", t}, "-o given twice"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[7] = {unpie};
        for (int k = 0; k < 5 && cases[i].args[k] != NULL; k++)
            argv[k + 1] = (char *)cases[i].args[k];
        pt_run_t r = pt_runv(NULL, argv);
        pt_expect_one_line_error(&r, 2, "pip-unpie", cases[i].needle);
        pt_run_free(&r);
    }
    pt_run_t r = pt_run(NULL, unpie, "-h", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "usage: pip-unpie"));
    pt_run_free(&r);
}

int main(void)
{
    unpie = pt_tool_path("../pip-unpie");
    check = pt_tool_path("../pip-check");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(copy_has_the_flag_cleared_and_still_works),
        cmocka_unit_test(pip_way_in_place_and_check),
        cmocka_unit_test(in_place_only_when_asked),
        cmocka_unit_test(refuses_what_it_cannot_change),
        cmocka_unit_test(bad_usage_gives_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
