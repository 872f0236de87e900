/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_init.c: pip_init / pip_fin / pip_is_initialized, their error
 * codes, and the PIP_MODE and PIP_STACKSZ environment variables.
 * Each case runs in a fresh process (see pt_util.h).
 */
#include "pt_util.h"

/* pip_init with the harness's PIP_MODE and opts; returns its result. */
static int init_with(int *ntasks, uint32_t opts)
{
    int pipid = PIP_PIPID_NULL;
    return pip_init(&pipid, ntasks, NULL, opts);
}

PT_CASE(init_then_fin_succeeds)
{
    int pipid = PIP_PIPID_NULL, ntasks = 4, n = 0;
    int exp = 5;
    void *root_exp = &exp, *got = NULL;

    PT_CHECK(!pip_is_initialized());
    PT_CHECK(pip_get_mode_str() == NULL);
    PT_OK(pip_init(&pipid, &ntasks, &root_exp, 0));
    PT_CHECK(pipid == PIP_PIPID_ROOT);
    PT_CHECK(pip_is_initialized());
    PT_CHECK(pip_isa_root());
    PT_CHECK(!pip_isa_task());
    PT_OK(pip_get_ntasks(&n));
    PT_CHECK(n == 4);
    PT_OK(pip_get_pipid(&pipid));
    PT_CHECK(pipid == PIP_PIPID_ROOT);
    /* The root's export given to pip_init is its unnamed export. */
    PT_OK(pip_import(PIP_PIPID_ROOT, &got));
    PT_CHECK(got == &exp);
    PT_OK(pip_fin());
    PT_CHECK(!pip_is_initialized());
}

PT_CASE(init_with_null_arguments_uses_maximum)
{
    int n = 0;
    PT_OK(pip_init(NULL, NULL, NULL, 0));
    PT_OK(pip_get_ntasks(&n));
    PT_CHECK(n == PIP_NTASKS_MAX);
    PT_OK(pip_fin());
}

PT_CASE(init_twice_is_ebusy)
{
    int n = 2;
    PT_OK(init_with(&n, 0));
    n = 2;
    PT_CHECK_ERR(init_with(&n, 0), EBUSY);
    /* The first initialisation is untouched. */
    PT_CHECK(pip_is_initialized());
    PT_OK(pip_fin());
}

PT_CASE(fin_without_init_is_eperm)
{
    PT_CHECK_ERR(pip_fin(), EPERM);
}

PT_CASE(fin_twice_is_eperm)
{
    int n = 2;
    PT_OK(init_with(&n, 0));
    PT_OK(pip_fin());
    PT_CHECK_ERR(pip_fin(), EPERM);
}

PT_CASE(bad_opts_are_einval)
{
    int n = 2;
    unsetenv("PIP_MODE");
    /* PiP 2.4: a mode field that names no mode is EINVAL. */
    PT_CHECK_ERR(init_with(&n, 0x0200), EINVAL);
    PT_CHECK_ERR(init_with(&n, PIP_MODE_PTHREAD | PIP_MODE_PROCESS), EINVAL);
    PT_CHECK_ERR(init_with(&n, PIP_MODE_PTHREAD | PIP_MODE_PROCESS_GOT_OBS),
                 EINVAL);
    PT_CHECK_ERR(init_with(&n, PIP_MODE_PTHREAD | PIP_MODE_PROCESS_PRELOAD),
                 EINVAL);
    /* The obsolete process:got in opts: EINVAL, as PiP 2.4. */
    PT_CHECK_ERR(init_with(&n, PIP_MODE_PROCESS_GOT_OBS), EINVAL);
    PT_CHECK(!pip_is_initialized());
    /* A failed pip_init leaves the library usable. */
    PT_OK(init_with(&n, 0));
    PT_OK(pip_fin());
}

PT_CASE(opts_bits_outside_the_mode_mask_are_ignored)
{
    int n = 2, mode = 0;
    unsetenv("PIP_MODE");
    /* PiP 2.4 looks only at opts & PIP_MODE_MASK. */
    PT_OK(init_with(&n, 0x10001 | PIP_MODE_PTHREAD));
    PT_OK(pip_get_mode(&mode));
    PT_CHECK(mode == PIP_MODE_PTHREAD);
    PT_OK(pip_fin());
}

PT_CASE(opts_low_bits_alone_give_the_default_mode)
{
    int n = 2, mode = 0;
    unsetenv("PIP_MODE");
    PT_OK(init_with(&n, 0x1));
    PT_OK(pip_get_mode(&mode));
    PT_CHECK(mode == PIP_MODE_PROCESS_PRELOAD);
    PT_OK(pip_fin());
}

/* PIP_MODE=value with opts: pip_init's result (and the mode on success). */
static void check_env_opts(const char *value, uint32_t opts, int want_rc,
                           int want_mode)
{
    int n = 2, mode = 0;
    setenv("PIP_MODE", value, 1);
    int rc = init_with(&n, opts);
    PT_CHECK_MSG(rc == want_rc,
                 "PIP_MODE=%s opts 0x%x: pip_init returned %d (%s), expected "
                 "%d (%s)",
                 value, opts, rc, pt_errname(rc), want_rc, pt_errname(want_rc));
    if (rc == 0) {
        PT_OK(pip_get_mode(&mode));
        PT_CHECK(mode == want_mode);
        PT_OK(pip_fin());
    } else {
        PT_CHECK(!pip_is_initialized());
    }
}

PT_CASE(pip_mode_must_agree_with_opts)
{
    /* PiP 2.4: PIP_MODE naming another mode than opts is EPERM. */
    check_env_opts("process", PIP_MODE_PTHREAD, EPERM, 0);
    check_env_opts("thread", PIP_MODE_PROCESS, EPERM, 0);
    check_env_opts("pthread", PIP_MODE_PROCESS, EPERM, 0);
    check_env_opts("bogus", PIP_MODE_PTHREAD, EPERM, 0);
    check_env_opts("bogus", PIP_MODE_PROCESS, EPERM, 0);
    check_env_opts("process:preload", PIP_MODE_PTHREAD, EPERM, 0);
    check_env_opts("process:got", PIP_MODE_PTHREAD, EPERM, 0);
    /* PiP 2.4: process:got with PIP_MODE_PROCESS is EINVAL. */
    check_env_opts("process:got", PIP_MODE_PROCESS, EINVAL, 0);
    /* One success per process (pip_init works once). */
    check_env_opts("PThread", PIP_MODE_PTHREAD, 0, PIP_MODE_PTHREAD);
}

/* Agreeing values (one pip_init per case). */
PT_CASE(pip_mode_thread_with_thread_opts)
{
    check_env_opts("thread", PIP_MODE_PTHREAD, 0, PIP_MODE_PTHREAD);
}

PT_CASE(pip_mode_empty_with_thread_opts)
{
    check_env_opts("", PIP_MODE_PTHREAD, 0, PIP_MODE_PTHREAD);
}

PT_CASE(pip_mode_process_with_process_opts)
{
    check_env_opts("process", PIP_MODE_PROCESS, 0, PIP_MODE_PROCESS_PRELOAD);
}

PT_CASE(pip_mode_empty_with_process_opts)
{
    check_env_opts("", PIP_MODE_PROCESS, 0, PIP_MODE_PROCESS_PRELOAD);
}

PT_CASE(ntasks_not_positive_is_einval)
{
    int n = 0;
    PT_CHECK_ERR(init_with(&n, 0), EINVAL);
    n = -1;
    PT_CHECK_ERR(init_with(&n, 0), EINVAL);
    PT_CHECK(!pip_is_initialized());
}

PT_CASE(ntasks_above_max_is_eoverflow)
{
    int n = PIP_NTASKS_MAX + 1;
    PT_CHECK_ERR(init_with(&n, 0), EOVERFLOW);
    PT_CHECK(!pip_is_initialized());
    n = PIP_NTASKS_MAX;
    PT_OK(init_with(&n, 0));
    PT_OK(pip_fin());
}

PT_CASE(explicit_modes_are_honoured)
{
    /* Which mode was asked for: the harness sets PIP_MODE. */
    const char *env = getenv("PIP_MODE");
    int n = 2, mode = 0;
    uint32_t want = PIP_MODE_PROCESS;
    if (env != NULL &&
        (strcmp(env, "thread") == 0 || strcmp(env, "pthread") == 0))
        want = PIP_MODE_PTHREAD;
    PT_OK(init_with(&n, want));
    PT_OK(pip_get_mode(&mode));
    PT_CHECK(mode == (want == PIP_MODE_PTHREAD ? PIP_MODE_PTHREAD
                                               : PIP_MODE_PROCESS_PRELOAD));
    PT_CHECK(strcmp(pip_get_mode_str(),
                    want == PIP_MODE_PTHREAD ? "pthread" : "process:preload") ==
             0);
    PT_OK(pip_fin());
}

/* Set PIP_MODE (NULL: unset) and check the mode pip_init picks. */
static void check_env_mode(const char *value, int want_rc, int want_mode)
{
    int n = 2, mode = 0;
    if (value != NULL)
        setenv("PIP_MODE", value, 1);
    else
        unsetenv("PIP_MODE");
    PT_CHECK_ERR(init_with(&n, 0), want_rc);
    if (want_rc == 0) {
        PT_OK(pip_get_mode(&mode));
        PT_CHECK_MSG(mode == want_mode, "PIP_MODE=%s: mode 0x%x, expected 0x%x",
                     value ? value : "(unset)", mode, want_mode);
        PT_OK(pip_fin());
    } else {
        PT_CHECK(!pip_is_initialized());
    }
}

PT_CASE(pip_mode_thread)
{
    check_env_mode("thread", 0, PIP_MODE_PTHREAD);
}

PT_CASE(pip_mode_pthread)
{
    check_env_mode("pthread", 0, PIP_MODE_PTHREAD);
}

PT_CASE(pip_mode_process)
{
    check_env_mode("process", 0, PIP_MODE_PROCESS_PRELOAD);
}

PT_CASE(pip_mode_unset_is_process)
{
    check_env_mode(NULL, 0, PIP_MODE_PROCESS_PRELOAD);
}

PT_CASE(pip_mode_unknown_is_eperm)
{
    /* PiP 2.4: an unknown PIP_MODE value is EPERM. */
    check_env_mode("bogus", EPERM, 0);
    check_env_mode("threads", EPERM, 0);
}

/* PiP's variant names select process mode and are reported as given. */
PT_CASE(pip_mode_variant_preload)
{
    check_env_mode("process:preload", 0, PIP_MODE_PROCESS_PRELOAD);
    PT_CHECK(!pip_is_initialized());
}

PT_CASE(pip_mode_variant_got)
{
    check_env_mode("process:got", 0, PIP_MODE_PROCESS_GOT_OBS);
}

PT_CASE(pip_mode_variant_pipclone)
{
    check_env_mode("process:pipclone", 0, PIP_MODE_PROCESS_PIPCLONE);
}

PT_CASE(opts_variant_pipclone)
{
    int n = 2, mode = 0;
    unsetenv("PIP_MODE");
    PT_OK(init_with(&n, PIP_MODE_PROCESS_PIPCLONE));
    PT_OK(pip_get_mode(&mode));
    PT_CHECK(mode == PIP_MODE_PROCESS_PIPCLONE);
    PT_CHECK(strcmp(pip_get_mode_str(), "process:pipclone") == 0);
    PT_OK(pip_fin());
}

PT_CASE(opts_variant_preload_with_pip_mode_process)
{
    check_env_opts("process", PIP_MODE_PROCESS_PRELOAD, 0,
                   PIP_MODE_PROCESS_PRELOAD);
}

/* Set PIP_STACKSZ and check pip_init's verdict. */
static void check_stacksz(const char *var, const char *value, int want_rc)
{
    int n = 2;
    unsetenv("PIP_STACKSZ");
    unsetenv("KMP_STACKSIZE");
    unsetenv("OMP_STACKSIZE");
    setenv(var, value, 1);
    int rc = init_with(&n, 0);
    PT_CHECK_MSG(rc == want_rc,
                 "%s=%s: pip_init returned %d (%s), expected %d (%s)", var,
                 value, rc, pt_errname(rc), want_rc, pt_errname(want_rc));
    if (rc == 0)
        PT_OK(pip_fin());
}

PT_CASE(stacksz_good_values_are_accepted)
{
    const char *good[] = {"1024", "64k", "64K",      "2m",
                          "2M",   "1g",  "1048576b", "16384B"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        pid_t pid = fork();
        PT_CHECK(pid >= 0);
        if (pid == 0) {
            check_stacksz("PIP_STACKSZ", good[i], 0);
            _exit(0);
        }
        int st;
        PT_CHECK(waitpid(pid, &st, 0) == pid);
        PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "PIP_STACKSZ=%s",
                     good[i]);
    }
}

/*
 * As PiP 2.4, a bad stack size is no error: pip_init succeeds, says so in
 * one line on stderr and uses the default; a task runs.
 */
static void check_bad_stacksz(const char *var, const char *value)
{
    pid_t pid = fork();
    PT_CHECK(pid >= 0);
    if (pid == 0) {
        char *path = pt_tmpfile("stacksz");
        int fd = open(path, O_WRONLY | O_TRUNC);
        if (fd < 0 || dup2(fd, 2) < 0)
            _exit(3);
        unsetenv("PIP_STACKSZ");
        unsetenv("KMP_STACKSIZE");
        unsetenv("OMP_STACKSIZE");
        setenv(var, value, 1);
        int n = 2, rc = init_with(&n, 0);
        if (rc != 0)
            _exit(10 + rc);
        int id = PT_SPAWN("task_plain", "ret", "7", NULL);
        int st = pt_wait(id);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 7)
            _exit(4);
        if (pip_fin() != 0)
            _exit(5);
        char *e = pt_read_file(path);
        _exit(th_count(e, "\n") == 1 && strstr(e, var) != NULL &&
                      strstr(e, "the default") != NULL
                  ? 0
                  : 6);
    }
    int st;
    PT_CHECK(waitpid(pid, &st, 0) == pid);
    PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                 "%s=%s: status 0x%x (10+rc: pip_init failed; 4: the task "
                 "failed; 6: no one-line warning)",
                 var, value, st);
}

PT_CASE(stacksz_bad_values_warn_and_use_the_default)
{
    const char *bad[] = {"abc", "12q", "-5", "0x", "1mm", "k"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        check_bad_stacksz("PIP_STACKSZ", bad[i]);
}

PT_CASE(stacksz_too_small_is_raised)
{
    /* PiP 2.4 raises a size below its minimum; a task runs. */
    setenv("PIP_STACKSZ", "1k", 1);
    pt_init(2);
    int id = PT_SPAWN("task_plain", "ret", "7", NULL);
    PT_CHECK_EXIT(pt_wait(id), 7);
    PT_OK(pip_fin());
}

PT_CASE(stacksz_falls_back_to_omp_and_kmp)
{
    check_bad_stacksz("KMP_STACKSIZE", "bogus");
    check_bad_stacksz("OMP_STACKSIZE", "bogus");
    check_stacksz("OMP_STACKSIZE", "4m", 0);
}

PT_CASE(task_runs_with_small_stack)
{
    /* A task must run with a stack set through PIP_STACKSZ. */
    setenv("PIP_STACKSZ", "256k", 1);
    pt_init(2);
    int id = PT_SPAWN("task_plain", "ret", "7", NULL);
    PT_CHECK_EXIT(pt_wait(id), 7);
    PT_OK(pip_fin());
}

PT_CASE(fin_with_unreaped_task_is_ebusy)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(2);
    int id = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "ret", "3", NULL);
    PT_CHECK_ERR(pip_fin(), EBUSY);
    pt_gate_open(&g, 1);
    /* Ended but not yet reaped is still busy. */
    struct timespec ts = {0, 200 * 1000000L};
    nanosleep(&ts, NULL);
    PT_CHECK_ERR(pip_fin(), EBUSY);
    PT_CHECK_EXIT(pt_wait(id), 3);
    PT_OK(pip_fin());
}

PT_CASE(queries_before_init_are_eperm)
{
    int v;
    pip_id_t id;
    PT_CHECK_ERR(pip_get_pipid(&v), EPERM);
    PT_CHECK_ERR(pip_get_ntasks(&v), EPERM);
    PT_CHECK_ERR(pip_get_mode(&v), EPERM);
    PT_CHECK_ERR(pip_get_system_id(PIP_PIPID_MYSELF, &id), EPERM);
    PT_CHECK(pip_get_mode_str() == NULL);
    PT_CHECK(!pip_isa_root());
    PT_CHECK(!pip_isa_task());
    PT_CHECK_ERR(pip_wait(0, &v), EPERM);
    PT_CHECK_ERR(pip_named_export(&v, "x"), EPERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_then_fin_succeeds),
        cmocka_unit_test(init_with_null_arguments_uses_maximum),
        cmocka_unit_test(init_twice_is_ebusy),
        cmocka_unit_test(fin_without_init_is_eperm),
        cmocka_unit_test(fin_twice_is_eperm),
        cmocka_unit_test(bad_opts_are_einval),
        cmocka_unit_test(opts_bits_outside_the_mode_mask_are_ignored),
        cmocka_unit_test(opts_low_bits_alone_give_the_default_mode),
        cmocka_unit_test(pip_mode_must_agree_with_opts),
        cmocka_unit_test(pip_mode_thread_with_thread_opts),
        cmocka_unit_test(pip_mode_empty_with_thread_opts),
        cmocka_unit_test(pip_mode_process_with_process_opts),
        cmocka_unit_test(pip_mode_empty_with_process_opts),
        cmocka_unit_test(ntasks_not_positive_is_einval),
        cmocka_unit_test(ntasks_above_max_is_eoverflow),
        cmocka_unit_test(explicit_modes_are_honoured),
        cmocka_unit_test(pip_mode_thread),
        cmocka_unit_test(pip_mode_pthread),
        cmocka_unit_test(pip_mode_process),
        cmocka_unit_test(pip_mode_unset_is_process),
        cmocka_unit_test(pip_mode_unknown_is_eperm),
        cmocka_unit_test(pip_mode_variant_preload),
        cmocka_unit_test(pip_mode_variant_got),
        cmocka_unit_test(pip_mode_variant_pipclone),
        cmocka_unit_test(opts_variant_pipclone),
        cmocka_unit_test(opts_variant_preload_with_pip_mode_process),
        cmocka_unit_test(stacksz_good_values_are_accepted),
        cmocka_unit_test(stacksz_bad_values_warn_and_use_the_default),
        cmocka_unit_test(stacksz_too_small_is_raised),
        cmocka_unit_test(stacksz_falls_back_to_omp_and_kmp),
        cmocka_unit_test(task_runs_with_small_stack),
        cmocka_unit_test(fin_with_unreaped_task_is_ebusy),
        cmocka_unit_test(queries_before_init_are_eperm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
