/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_privacy.c: what each task owns privately although all share one
 * address space: globals, environ, __progname, ctype tables.
 */
#include "pt_util.h"

#define NTASKS 3

PT_CASE(setenv_in_one_task_is_not_seen_by_another)
{
    pt_shared_t *sh = pt_shared_new(NTASKS);
    unsetenv("PT_PRIV");
    pt_init(NTASKS);
    int ids[NTASKS];
    for (int i = 0; i < NTASKS; i++)
        ids[i] = PT_SPAWN("task_api", "envpriv", pt_ptr_arg(sh), NULL);
    for (int i = 0; i < NTASKS; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    /* Nor by the root. */
    PT_CHECK(getenv("PT_PRIV") == NULL);
    PT_OK(pip_fin());
}

PT_CASE(root_setenv_after_spawn_is_not_seen)
{
    pt_gate_t g;
    pt_gate_init(&g);
    unsetenv("PT_LATE");
    pt_init(2);
    int a = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "envis", "PT_LATE", "-",
                     NULL);
    setenv("PT_LATE", "late", 1);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(progname_is_task_argv0_basename)
{
    /* Our own name (the harness may run us through a differently named link).
     */
    char *root_name = strdup(program_invocation_short_name);
    pt_init(3);
    int a = PT_SPAWN("task_plain", "progname", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    /* argv[0] need not be the file name: progname follows argv[0]. */
    char *argv[] = {"/some/where/pt-custom-name", "progname", NULL};
    pip_spawn_program_t prog;
    int b = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, pt_path("task_plain"), argv, NULL, NULL, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &b, NULL));
    PT_CHECK_EXIT(pt_wait(b), 0);
    /* The root's own name is unchanged. */
    PT_CHECK(strcmp(program_invocation_short_name, root_name) == 0);
    PT_OK(pip_fin());
}

PT_CASE(ctype_works_in_task)
{
    pt_init(2);
    int a = PT_SPAWN("task_plain", "ctype", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(globals_are_private_per_task)
{
    pt_shared_t *sh = pt_shared_new(NTASKS);
    pt_init(NTASKS);
    int ids[NTASKS];
    for (int i = 0; i < NTASKS; i++)
        ids[i] = PT_SPAWN("task_api", "globals", pt_ptr_arg(sh), NULL);
    for (int i = 0; i < NTASKS; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    for (int i = 0; i < NTASKS; i++) {
        PT_CHECK(sh->value[ids[i]] == ids[i] + 1);
        for (int j = 0; j < i; j++)
            PT_CHECK_MSG(sh->ptr[ids[i]] != sh->ptr[ids[j]],
                         "tasks %d and %d share one global", ids[i], ids[j]);
    }
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(setenv_in_one_task_is_not_seen_by_another),
        cmocka_unit_test(root_setenv_after_spawn_is_not_seen),
        cmocka_unit_test(progname_is_task_argv0_basename),
        cmocka_unit_test(ctype_works_in_task),
        cmocka_unit_test(globals_are_private_per_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
