/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_exec.c: the pip-exec command: -n, MPMD ':' form, -f FUNC, exit
 * status, signalled tasks, and a one-line message on stderr with non-zero
 * status for every user error.  pip-exec's path comes from $PIP_EXEC (the
 * harness sets it); the mode from $PIP_MODE, inherited by pip-exec.
 */
#include "pt_util.h"

#define TIMEOUT 60

static char *pip_exec_path(void)
{
    char *p = getenv("PIP_EXEC");
    if (p == NULL || access(p, X_OK) != 0)
        skip();
    return p;
}

typedef struct {
    int rc, status;
    char *out, *err;
} run_t;

/* Run pip-exec with extra environment entries (may be NULL) and the
 * arguments in ap, which end with NULL. */
static run_t run_pip_exec_va(char *const env_add[], const char *first,
                             va_list ap)
{
    char *argv[64];
    int argc = 0;
    run_t r = {0, -1, NULL, NULL};

    argv[argc++] = pip_exec_path();
    for (const char *a = first; a != NULL && argc < 63;
         a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    argv[argc] = NULL;
    r.rc = th_run(argv, env_add, TIMEOUT, &r.status, &r.out, &r.err);
    assert_int_equal(r.rc, 0);
    assert_non_null(r.out);
    assert_non_null(r.err);
    return r;
}

/* Run pip-exec with extra environment entries and arguments (NULL-terminated).
 */
static run_t run_pip_exec_env(char *const env_add[], const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_t r = run_pip_exec_va(env_add, first, ap);
    va_end(ap);
    return r;
}

/* Run pip-exec with the given arguments (NULL-terminated). */
static run_t run_pip_exec(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    run_t r = run_pip_exec_va(NULL, first, ap);
    va_end(ap);
    return r;
}

static char *sib(const char *name)
{
    char *p = th_sibling_path(name);
    assert_non_null(p);
    return p;
}

static void expect_exit(const run_t *r, int code)
{
    if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != code)
        fail_msg("status 0x%x, expected exit %d; stdout '%s' stderr '%s'",
                 r->status, code, r->out, r->err);
}

/* Non-zero exit (not a crash) with exactly one non-empty line on stderr. */
static void expect_user_error(const run_t *r, const char *what)
{
    if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) == 0)
        fail_msg("%s: status 0x%x, expected a non-zero exit; stderr '%s'", what,
                 r->status, r->err);
    if (th_count(r->err, "\n") != 1 || strlen(r->err) < 5)
        fail_msg("%s: expected one line on stderr, got '%s'", what, r->err);
}

static void n_tasks_each_get_a_pipid(void **state)
{
    (void)state;
    run_t r = run_pip_exec("-n", "3", sib("task_api"), "info", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "ntasks=3"), 3);
    assert_int_equal(th_count(r.out, "pipid=0 "), 1);
    assert_int_equal(th_count(r.out, "pipid=1 "), 1);
    assert_int_equal(th_count(r.out, "pipid=2 "), 1);
    const char *mode = getenv("PIP_MODE");
    if (mode != NULL && strcmp(mode, "thread") == 0)
        assert_int_equal(th_count(r.out, "mode=pthread"), 3);
    else if (mode != NULL && strcmp(mode, "process") == 0)
        assert_int_equal(th_count(r.out, "mode=process"), 3);
}

static void single_task_default(void **state)
{
    (void)state;
    run_t r = run_pip_exec(sib("task_api"), "info", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "pipid=0 ntasks=1"), 1);
}

static void mpmd_colon_form(void **state)
{
    (void)state;
    run_t r = run_pip_exec("-n", "2", sib("task_api"), "say", "first", ":",
                           "-n", "1", sib("task_api"), "say", "second", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "first pipid="), 2);
    assert_int_equal(th_count(r.out, "second pipid="), 1);
    /* pipids are given in command-line order. */
    assert_int_equal(th_count(r.out, "first pipid=0\n"), 1);
    assert_int_equal(th_count(r.out, "first pipid=1\n"), 1);
    assert_int_equal(th_count(r.out, "second pipid=2\n"), 1);
}

/* PiP's forms: a trailing ':' is accepted, "::" separates too, and
 * the separator is not passed to the program. */
static void pip_separator_forms(void **state)
{
    (void)state;
    run_t r = run_pip_exec("-n", "1", sib("task_api"), "say", "one", ":", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "one pipid=0\n"), 1);
    assert_int_equal(th_count(r.out, ":"), 0);
    r = run_pip_exec(sib("task_api"), "say", "a", "::", "-n", "2",
                     sib("task_api"), "say", "b", ":", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "a pipid=0\n"), 1);
    assert_int_equal(th_count(r.out, "b pipid="), 2);
    /* -d, PiP's no-op dry-run flag, is accepted. */
    r = run_pip_exec("-d", sib("task_api"), "say", "d", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "d pipid=0\n"), 1);
}

static void mpmd_of_different_programs(void **state)
{
    (void)state;
    run_t r = run_pip_exec(sib("task_plain"), "print", "plain;", ":",
                           sib("task_api"), "say", "api", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "plain;"), 1);
    assert_int_equal(th_count(r.out, "api pipid=1"), 1);
}

static void f_starts_at_function(void **state)
{
    (void)state;
    run_t r = run_pip_exec("-n", "2", "-f", "tf_hello", sib("task_api"), NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "hello from tf_hello"), 2);
}

static void unflushed_output_appears(void **state)
{
    (void)state;
    run_t r = run_pip_exec(sib("task_plain"), "print", "no-newline", NULL);
    expect_exit(&r, 0);
    assert_string_equal(r.out, "no-newline");
}

static void exit_status_of_failing_task(void **state)
{
    (void)state;
    run_t r =
        run_pip_exec(sib("task_plain"), "ret", "0", ":", sib("task_plain"),
                     "ret", "7", ":", sib("task_plain"), "ret", "0", NULL);
    expect_exit(&r, 7);
    /* One line for the failing task, none for the others. */
    assert_int_equal(th_count(r.err, "exited with status"), 1);
    assert_non_null(strstr(r.err, "task 1 ("));
    assert_non_null(strstr(r.err, "exited with status 7\n"));
    r = run_pip_exec("-n", "3", sib("task_plain"), "exit", "3", NULL);
    expect_exit(&r, 3);
    assert_int_equal(th_count(r.err, "exited with status 3\n"), 3);
}

static void exit_status_is_the_highest(void **state)
{
    (void)state;
    /* PiP 2.4's pip-exec exits with the highest exit status of its tasks,
     * whatever the order in which they end. */
    run_t r = run_pip_exec(sib("task_plain"), "sleep", "300", "ret", "4", ":",
                           sib("task_plain"), "ret", "9", NULL);
    expect_exit(&r, 9);
    r = run_pip_exec(sib("task_plain"), "sleep", "300", "ret", "9", ":",
                     sib("task_plain"), "ret", "4", NULL);
    expect_exit(&r, 9);
}

static void signalled_task_gives_the_signal_number(void **state)
{
    (void)state;
    /*
     * In a sanitizer build pip-exec is instrumented and ASan's SIGSEGV
     * handler (inherited by a process-mode task) would report the fault and
     * exit(1) instead of letting the task die of the signal: turn it off.
     * The variable is ignored by ordinary builds.
     */
    char *const no_asan_segv[] = {"ASAN_OPTIONS=handle_segv=0", NULL};
    run_t r = run_pip_exec_env(no_asan_segv, sib("task_plain"), "segv", NULL);
    /*
     * Process mode: pip-exec exits with the signal's number, as PiP 2.4's;
     * thread mode: the signal ends pip-exec itself.
     */
    if (!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == SIGSEGV) &&
        !(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGSEGV))
        fail_msg("pip-exec of a crashing task: status 0x%x", r.status);
    if (WIFEXITED(r.status))
        assert_true(th_count(r.err, "killed by signal") == 1);
    /* The signal wins over a higher exit status of another task. */
    r = run_pip_exec(sib("task_plain"), "kill9", ":", sib("task_plain"),
                     "sleep", "300", "ret", "20", NULL);
    if (!(WIFEXITED(r.status) && WEXITSTATUS(r.status) == SIGKILL) &&
        !(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL))
        fail_msg("pip-exec of a killed task: status 0x%x, expected exit %d",
                 r.status, SIGKILL);
}

static void user_errors_give_one_line(void **state)
{
    (void)state;
    char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    struct {
        const char *what;
        run_t r;
    } cases[] = {
        {"-n 0", run_pip_exec("-n", "0", sib("task_nop"), NULL)},
        {"-n abc", run_pip_exec("-n", "abc", sib("task_nop"), NULL)},
        {"-n -3", run_pip_exec("-n", "-3", sib("task_nop"), NULL)},
        {"-n without value", run_pip_exec("-n", NULL)},
        {"-f without value", run_pip_exec("-f", NULL)},
        {"unknown option",
         run_pip_exec("--no-such-option", sib("task_nop"), NULL)},
        {"missing program", run_pip_exec("/nonexistent/prog", NULL)},
        {"directory", run_pip_exec(tmpdir, NULL)},
        {"non-PIE program", run_pip_exec(sib("task_nopie"), NULL)},
        {"unknown function",
         run_pip_exec("-f", "no_such_fn", sib("task_api"), NULL)},
        {"empty MPMD part",
         run_pip_exec(sib("task_nop"), ":", ":", sib("task_nop"), NULL)},
        {"leading colon", run_pip_exec(":", sib("task_nop"), NULL)},
        {"too many tasks", run_pip_exec("-n", "100000", sib("task_nop"), NULL)},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        expect_user_error(&cases[i].r, cases[i].what);
        /* Nothing may have run (task_nop prints nothing anyway). */
        assert_int_equal(th_count(cases[i].r.out, "pipid="), 0);
    }
    /* A task that cannot be spawned: PiP 2.4 exits with the error number. */
    run_t r = run_pip_exec("-f", "no_such_fn", sib("task_api"), NULL);
    expect_exit(&r, ENOEXEC);
}

static void no_arguments_prints_usage(void **state)
{
    (void)state;
    /* Not a one-liner: a usage text is the conventional answer here. */
    run_t r = run_pip_exec(NULL);
    if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) == 0)
        fail_msg("pip-exec without arguments: status 0x%x", r.status);
    assert_true(th_count(r.err, "usage") + th_count(r.err, "Usage") >= 1);
    assert_int_equal(th_count(r.out, "pipid="), 0);
}

static void help_and_version_succeed(void **state)
{
    (void)state;
    run_t r = run_pip_exec("--help", NULL);
    expect_exit(&r, 0);
    assert_true(th_count(r.out, "-n N") >= 1);
    r = run_pip_exec("--version", NULL);
    expect_exit(&r, 0);
    assert_true(strlen(r.out) > 0);
}

static void c_binds_to_nth_core(void **state)
{
    (void)state;
    cpu_set_t set;
    CPU_ZERO(&set);
    assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
    int first = -1, second = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &set)) {
            if (first < 0)
                first = c;
            else if (second < 0)
                second = c;
        }
    }
    /* task_plain "affinity" exits 1 + cpu when bound to one CPU. */
    run_t r = run_pip_exec("-c", "0", sib("task_plain"), "affinity", NULL);
    expect_exit(&r, 1 + first);
    if (second < 0)
        skip();
    r = run_pip_exec("-c", "1", sib("task_plain"), "affinity", NULL);
    expect_exit(&r, 1 + second);
}

static void bad_environment_gives_one_line(void **state)
{
    (void)state;
    char *mode[] = {"PIP_MODE=bogus", NULL};
    run_t r = run_pip_exec_env(mode, sib("task_nop"), NULL);
    expect_user_error(&r, "PIP_MODE=bogus");
    /* A bad stack size: a warning and the default, as PiP 2.4. */
    char *stack[] = {"PIP_STACKSZ=12q", NULL};
    r = run_pip_exec_env(stack, sib("task_plain"), "ret", "0", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.err, "PIP_STACKSZ='12q'"), 1);
    r = run_pip_exec("-c", "x", sib("task_nop"), NULL);
    expect_user_error(&r, "-c x");
    /* The line names the bad variable, not the others (unset here). */
    char *nss[] = {"PIP_NAMESPACES=16", NULL};
    r = run_pip_exec_env(nss, sib("task_nop"), NULL);
    expect_user_error(&r, "PIP_NAMESPACES=16");
    assert_non_null(strstr(r.err, "PIP_NAMESPACES='16'"));
    assert_null(strstr(r.err, "PIP_MODE"));
    assert_null(strstr(r.err, "PIP_STACKSZ"));
    char *stack2[] = {"PIP_STACKSZ=12q", NULL};
    r = run_pip_exec_env(stack2, sib("task_nop"), NULL);
    assert_non_null(strstr(r.err, "PIP_STACKSZ='12q'"));
    assert_null(strstr(r.err, "PIP_MODE"));
    /* The image choice and the sharing switch: refused, never guessed. */
    char *img[] = {"PIP_IMAGE=privat", NULL};
    r = run_pip_exec_env(img, sib("task_nop"), NULL);
    expect_user_error(&r, "PIP_IMAGE=privat");
    assert_non_null(strstr(r.err, "PIP_IMAGE='privat'"));
    char *share[] = {"PIP_SHARE_NAMESPACES=yes", NULL};
    r = run_pip_exec_env(share, sib("task_nop"), NULL);
    expect_user_error(&r, "PIP_SHARE_NAMESPACES=yes");
    assert_non_null(strstr(r.err, "PIP_SHARE_NAMESPACES='yes'"));
}

static void program_is_searched_in_path(void **state)
{
    (void)state;
    char *dir = sib("");
    char *path = NULL;
    assert_true(asprintf(&path, "PATH=%s:/usr/bin:/bin", dir) > 0);
    char *env[] = {path, NULL};
    run_t r = run_pip_exec_env(env, "task_plain", "ret", "6", NULL);
    expect_exit(&r, 6);
}

static int thread_mode(void)
{
    const char *m = getenv("PIP_MODE");
    return m != NULL && (strcmp(m, "thread") == 0 || strcmp(m, "pthread") == 0);
}

/*
 * Thread mode: a namespace (libc copy) per task, 15 at most (pip-exec sets
 * glibc's tunable for them); more tasks are refused up front unless
 * PIP_SHARE_NAMESPACES=1 allows them to share.
 */
static void thread_mode_refuses_shared_namespaces(void **state)
{
    (void)state;
    if (!thread_mode())
        skip();
    /* Under qemu-user (make check-aarch64) glibc makes fewer namespaces
     * than 15: the counts below hold on a real kernel only. */
    if (getenv("TH_EXEC_WRAPPER") != NULL && *getenv("TH_EXEC_WRAPPER") != '\0')
        skip();
    run_t r = run_pip_exec("-n", "15", sib("task_api"), "info", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "ntasks=15"), 15);
    assert_string_equal(r.err, "");
    r = run_pip_exec("-n", "16", sib("task_api"), "info", NULL);
    expect_exit(&r, 2);
    assert_string_equal(r.out, "");
    assert_int_equal(th_count(r.err, "\n"), 1);
    assert_non_null(strstr(r.err, "thread mode: 16 tasks but at most 15"));
    assert_non_null(strstr(r.err, "PIP_SHARE_NAMESPACES=1"));
    char *share[] = {"PIP_SHARE_NAMESPACES=1", NULL};
    r = run_pip_exec_env(share, "-n", "16", sib("task_api"), "info", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "ntasks=16"), 16);
    assert_int_equal(th_count(r.err, "share 15 libc copies"), 1);
    char *bad[] = {"PIP_SHARE_NAMESPACES=maybe", NULL};
    r = run_pip_exec_env(bad, sib("task_api"), "info", NULL);
    expect_exit(&r, 2);
    assert_non_null(strstr(r.err, "PIP_SHARE_NAMESPACES='maybe'"));
}

static void more_tasks_than_default_namespaces(void **state)
{
    (void)state;
    if (thread_mode())
        skip(); /* thread mode refuses sharing: the case above */
    /* More tasks than namespaces: later tasks share them. */
    run_t r = run_pip_exec("-n", "13", sib("task_api"), "info", NULL);
    expect_exit(&r, 0);
    assert_int_equal(th_count(r.out, "ntasks=13"), 13);
    assert_int_equal(th_count(r.out, "pipid=12 "), 1);
    const char *m = getenv("PIP_MODE");
    if (m == NULL || *m == '\0' || strncasecmp(m, "process", 7) == 0) {
        /* Process mode: every task runs its own loader and libc. */
        assert_null(strstr(r.err, "libc copies"));
    } else {
        /* Said once: what tasks sharing a libc share. */
        assert_int_equal(th_count(r.err, "share 8 libc copies"), 1);
        assert_non_null(strstr(r.err, "stdio buffers"));
        assert_non_null(strstr(r.err, "environ"));
    }
    r = run_pip_exec("-n", "8", sib("task_api"), "info", NULL);
    expect_exit(&r, 0);
    assert_null(strstr(r.err, "libc copies"));
}

/* 256 and 300 tasks: each prints its pipid and a private counter of 1. */
static void hundreds_of_tasks(void **state)
{
    (void)state;
    static const char *const counts[] = {"256", "300"};
    for (int k = 0; k < 2; k++) {
        int n = atoi(counts[k]);
        /* Thread mode: sharing a libc copy is asked for explicitly. */
        char *share[] = {"PIP_SHARE_NAMESPACES=1", NULL};
        run_t r = run_pip_exec_env(share, "-n", counts[k], sib("task_api"),
                                   "counter", NULL);
        expect_exit(&r, 0);
        assert_int_equal(th_count(r.out, " counter=1\n"), n);
        assert_int_equal(th_count(r.out, "counter="), n);
        for (int i = 0; i < n; i++) {
            char want[32];
            snprintf(want, sizeof(want), "pipid=%d counter=1\n", i);
            if (th_count(r.out, want) != 1)
                fail_msg("-n %d: no single line '%s'", n, want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(n_tasks_each_get_a_pipid),
        cmocka_unit_test(single_task_default),
        cmocka_unit_test(mpmd_colon_form),
        cmocka_unit_test(pip_separator_forms),
        cmocka_unit_test(mpmd_of_different_programs),
        cmocka_unit_test(f_starts_at_function),
        cmocka_unit_test(unflushed_output_appears),
        cmocka_unit_test(exit_status_of_failing_task),
        cmocka_unit_test(exit_status_is_the_highest),
        cmocka_unit_test(signalled_task_gives_the_signal_number),
        cmocka_unit_test(user_errors_give_one_line),
        cmocka_unit_test(no_arguments_prints_usage),
        cmocka_unit_test(help_and_version_succeed),
        cmocka_unit_test(c_binds_to_nth_core),
        cmocka_unit_test(bad_environment_gives_one_line),
        cmocka_unit_test(program_is_searched_in_path),
        cmocka_unit_test(more_tasks_than_default_namespaces),
        cmocka_unit_test(thread_mode_refuses_shared_namespaces),
        cmocka_unit_test(hundreds_of_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
