/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_ulp_task.c: PiP tasks as ULPs: private globals, __thread data and
 * errno across switches, couple/decouple from a task, the task's copy of
 * libulp forwarding to the root's, exit status through ulp_join.
 */
#include "ut_util.h"

#include <pip/pip.h>

PIP_ROOT_TLS_RESERVE(4096);

static char *tk_prog;

static void tk_init(void)
{
    int n = 8;
    /* The mode is given: a PIP_MODE naming another one is EPERM (as PiP). */
    unsetenv("PIP_MODE");
    UT_OK(pip_init(NULL, &n, NULL, PIP_MODE_PTHREAD));
    UT_OK(ulp_init());
}

static ulp_t *tk_spawn(ulp_sched_t *s, char **argv)
{
    pip_spawn_program_t p;
    ulp_t *u = NULL;
    int pipid = PIP_PIPID_ANY;
    pip_spawn_from_main(&p, tk_prog, argv, NULL, NULL, NULL);
    UT_OK(ulp_spawn(&u, s, &p, &pipid));
    UT_CHECK(pipid >= 0);
    UT_EQ(ulp_pipid(u), pipid);
    return u;
}

/* Four task ULPs on two schedulers keep their own globals, TLS, errno. */
UT_CASE(task_ulps_keep_private_state_across_switches)
{
    ulp_sched_t *s[2];
    ulp_t *u[4];
    static ulp_barrier_t b;
    char addr[32];
    tk_init();
    UT_OK(ulp_sched_create(&s[0], -1));
    UT_OK(ulp_sched_create(&s[1], -1));
    UT_OK(ulp_barrier_init(&b, 4));
    snprintf(addr, sizeof(addr), "%lx", (unsigned long)(uintptr_t)&b);
    for (int i = 0; i < 4; i++) {
        char id[8];
        snprintf(id, sizeof(id), "%d", i + 1);
        char *av[] = {tk_prog, "yield", id, "200", addr, NULL};
        u[i] = tk_spawn(s[i & 1], av);
    }
    for (int i = 0; i < 4; i++) {
        int st = -1;
        UT_OK(ulp_join(u[i], &st));
        UT_EQ(st, i + 1);
    }
    UT_OK(ulp_barrier_destroy(&b));
    UT_OK(ulp_sched_destroy(s[0]));
    UT_OK(ulp_sched_destroy(s[1]));
    UT_OK(ulp_fin());
    UT_OK(pip_fin());
}

static __thread long tk_root_tls = -1;
static volatile int tk_root_done;

/* A ULP of the root that shares the schedulers with task ULPs. */
static int tk_root_fn(void *arg)
{
    long id = (long)(intptr_t)arg;
    tk_root_tls = id;
    ut_set_errno((int)id);
    for (int i = 0; i < 400; i++) {
        UT_OK(ulp_yield());
        if (tk_root_tls != id || ut_errno() != (int)id)
            ut_fail(__FILE__, __LINE__, "root ULP %ld sees tls %ld errno %d",
                    id, tk_root_tls, ut_errno());
    }
    tk_root_done++;
    return 0;
}

/* Root ULPs and task ULPs on one scheduler keep their TLS apart (with the
 * copy method they save and load different parts of the thread block). */
UT_CASE(root_and_task_ulps_share_a_scheduler)
{
    ulp_sched_t *s;
    ulp_t *u[3], *r[2];
    tk_init();
    UT_OK(ulp_sched_create(&s, -1));
    for (int i = 0; i < 2; i++)
        UT_OK(ulp_create(&r[i], s, tk_root_fn, (void *)(intptr_t)(50 + i)));
    for (int i = 0; i < 3; i++) {
        char id[8];
        snprintf(id, sizeof(id), "%d", i + 1);
        char *av[] = {tk_prog, "yield", id, "300", NULL};
        u[i] = tk_spawn(s, av);
    }
    for (int i = 0; i < 3; i++) {
        int st = -1;
        UT_OK(ulp_join(u[i], &st));
        UT_EQ(st, i + 1);
    }
    for (int i = 0; i < 2; i++)
        UT_OK(ulp_join(r[i], NULL));
    UT_EQ(tk_root_done, 2);
    UT_EQ(tk_root_tls, -1); /* the root thread's own copy */
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
    UT_OK(pip_fin());
}

UT_CASE(task_ulp_exit_status_reaches_the_root)
{
    ulp_sched_t *s;
    tk_init();
    UT_OK(ulp_sched_create(&s, -1));
    char *av[] = {tk_prog, "exit", "6", NULL};
    ulp_t *u = tk_spawn(s, av);
    int st = -1;
    UT_OK(ulp_join(u, &st));
    UT_EQ(st, 7);
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
    UT_OK(pip_fin());
}

UT_CASE(spawn_needs_thread_mode_and_a_root)
{
    ulp_sched_t *s;
    ulp_t *u;
    pip_spawn_program_t p;
    char *av[] = {tk_prog, "exit", "1", NULL};
    int n = 2;
    pip_spawn_from_main(&p, tk_prog, av, NULL, NULL, NULL);
    UT_OK(ulp_init());
    UT_OK(ulp_sched_create(&s, -1));
    UT_EQ(ulp_spawn(&u, s, &p, NULL), -EPERM); /* libpip not initialised */
    /* The mode is given: a PIP_MODE naming another one is EPERM (as PiP). */
    unsetenv("PIP_MODE");
    UT_OK(pip_init(NULL, &n, NULL, PIP_MODE_PROCESS));
    UT_EQ(ulp_spawn(&u, s, &p, NULL), -EPERM); /* process mode */
    UT_OK(ulp_sched_destroy(s));
    UT_OK(ulp_fin());
    UT_OK(pip_fin());
}

UT_CASE(spawn_reports_loader_errors)
{
    ulp_sched_t *s;
    ulp_t *u;
    pip_spawn_program_t p;
    char *av[] = {"/nonexistent/prog", NULL};
    tk_init();
    UT_OK(ulp_sched_create(&s, -1));
    pip_spawn_from_main(&p, av[0], av, NULL, NULL, NULL);
    UT_EQ(ulp_spawn(&u, s, &p, NULL), -ENOENT);
    UT_EQ(ulp_spawn(&u, NULL, &p, NULL), -EINVAL);
    UT_OK(ulp_sched_destroy(s)); /* nothing was left behind in it */
    UT_OK(ulp_fin());
    UT_OK(pip_fin());
}

int main(void)
{
    tk_prog = th_sibling_path("ulp_task_worker");
    if (tk_prog == NULL)
        return TH_EXIT_HARD_ERROR;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(task_ulps_keep_private_state_across_switches),
        cmocka_unit_test(root_and_task_ulps_share_a_scheduler),
        cmocka_unit_test(task_ulp_exit_status_reaches_the_root),
        cmocka_unit_test(spawn_needs_thread_mode_and_a_root),
        cmocka_unit_test(spawn_reports_loader_errors),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(tk_prog);
    return rc;
}
