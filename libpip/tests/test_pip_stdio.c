/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_stdio.c: a task's buffered stdout reaches its file however the
 * task ends (return, exit, pip_exit); atexit handlers and destructors of a
 * task run at its end.
 */
#include "pt_util.h"

/* Point our fd 1 at a fresh file; returns its path. */
static char *stdout_to_file(const char *tag)
{
    char *file = pt_tmpfile(tag);
    int fd = open(file, O_WRONLY | O_TRUNC);
    PT_CHECK(fd >= 0);
    fflush(stdout);
    PT_CHECK(dup2(fd, 1) == 1);
    close(fd);
    return file;
}

PT_CASE(unterminated_printf_is_flushed_on_return)
{
    char *file = stdout_to_file("ret");
    pt_init(2);
    int a =
        PT_SPAWN("task_plain", "print", "alpha-no-newline", "ret", "0", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    char *text = pt_read_file(file);
    PT_CHECK_MSG(strcmp(text, "alpha-no-newline") == 0, "file holds '%s'",
                 text);
    unlink(file);
    PT_OK(pip_fin());
}

PT_CASE(unterminated_printf_is_flushed_on_exit)
{
    char *file = stdout_to_file("exit");
    pt_init(2);
    int a = PT_SPAWN("task_plain", "print", "beta", "print", "-gamma", "exit",
                     "4", NULL);
    PT_CHECK_EXIT(pt_wait(a), 4);
    char *text = pt_read_file(file);
    PT_CHECK_MSG(strcmp(text, "beta-gamma") == 0, "file holds '%s'", text);
    unlink(file);
    PT_OK(pip_fin());
}

PT_CASE(unterminated_printf_is_flushed_on_pip_exit)
{
    char *file = stdout_to_file("pipexit");
    pt_init(2);
    int a = PT_SPAWN("task_api", "printexit", "delta", "7", NULL);
    PT_CHECK_EXIT(pt_wait(a), 7);
    char *text = pt_read_file(file);
    PT_CHECK_MSG(strcmp(text, "delta") == 0, "file holds '%s'", text);
    unlink(file);
    PT_OK(pip_fin());
}

PT_CASE(outputs_of_several_tasks_all_arrive)
{
    char *file = stdout_to_file("many");
    pt_init(4);
    int ids[4];
    const char *words[4] = {"one;", "two;", "three;", "four;"};
    for (int i = 0; i < 4; i++)
        ids[i] = PT_SPAWN("task_plain", "print", words[i], NULL);
    for (int i = 0; i < 4; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    char *text = pt_read_file(file);
    for (int i = 0; i < 4; i++)
        PT_CHECK_MSG(th_count(text, words[i]) == 1, "'%s' not once in '%s'",
                     words[i], text);
    PT_CHECK(strlen(text) == strlen("one;two;three;four;"));
    unlink(file);
    PT_OK(pip_fin());
}

PT_CASE(fprintf_to_stdout_and_stderr_works)
{
    /*
     * fprintf(stdout/stderr) reads the program's own stdout/stderr variables
     * (copy-relocated in a PIE), unlike printf: both must work in a task.
     */
    char *out = stdout_to_file("fout");
    char *err = pt_tmpfile("ferr");
    int fd = open(err, O_WRONLY | O_TRUNC);
    int saved = dup(2);
    PT_CHECK(fd >= 0 && saved >= 0 && dup2(fd, 2) == 2);
    close(fd);
    pt_init(2);
    int a = PIP_PIPID_ANY;
    int rc = pt_spawn("task_stdio", &a, "to-out", "to-err", "+puts", NULL);
    int st = -1;
    if (rc == 0)
        rc = pip_wait(a, &st);
    /* Our own messages go to the real stderr again. */
    dup2(saved, 2);
    PT_OK(rc);
    char *o = pt_read_file(out), *e = pt_read_file(err);
    unlink(out);
    unlink(err);
    PT_CHECK_EXIT(st, 0);
    PT_CHECK_MSG(strcmp(o, "to-out") == 0, "stdout file holds '%s'", o);
    PT_CHECK_MSG(strcmp(e, "to-err+puts") == 0, "stderr file holds '%s'", e);
    PT_OK(pip_fin());
}

PT_CASE(atexit_handler_runs_on_exit)
{
    char *log = pt_tmpfile("atexit");
    pt_init(2);
    int a = PT_SPAWN("task_plain", "atexit", log, "exit", "0", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    char *text = pt_read_file(log);
    PT_CHECK_MSG(strcmp(text, "atexit\n") == 0, "log holds '%s'", text);
    unlink(log);
    PT_OK(pip_fin());
}

PT_CASE(atexit_and_destructor_run_on_return_in_process_mode)
{
    char *log = pt_tmpfile("dtor");
    pt_init(2);
    pt_require_process_mode();
    int a =
        PT_SPAWN("task_plain", "atexit", log, "dtor", log, "ret", "0", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    char *text = pt_read_file(log);
    /* exit() runs atexit handlers, then destructors. */
    PT_CHECK_MSG(strcmp(text, "atexit\ndtor\n") == 0, "log holds '%s'", text);
    unlink(log);
    PT_OK(pip_fin());
}

PT_CASE(destructor_runs_on_exit_in_process_mode)
{
    char *log = pt_tmpfile("dtor2");
    pt_init(2);
    pt_require_process_mode();
    int a = PT_SPAWN("task_plain", "dtor", log, "exit", "6", NULL);
    PT_CHECK_EXIT(pt_wait(a), 6);
    char *text = pt_read_file(log);
    PT_CHECK_MSG(strcmp(text, "dtor\n") == 0, "log holds '%s'", text);
    unlink(log);
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unterminated_printf_is_flushed_on_return),
        cmocka_unit_test(unterminated_printf_is_flushed_on_exit),
        cmocka_unit_test(unterminated_printf_is_flushed_on_pip_exit),
        cmocka_unit_test(outputs_of_several_tasks_all_arrive),
        cmocka_unit_test(fprintf_to_stdout_and_stderr_works),
        cmocka_unit_test(atexit_handler_runs_on_exit),
        cmocka_unit_test(atexit_and_destructor_run_on_return_in_process_mode),
        cmocka_unit_test(destructor_runs_on_exit_in_process_mode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
