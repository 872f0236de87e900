/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_query.c: pip_get_pipid / ntasks / mode / mode_str,
 * pip_isa_root / isa_task, pip_is_threaded, pip_is_shared_fd,
 * pip_get_system_id and pip_gettid, seen from the root and from tasks.
 */
#include <pthread.h>
#include <sys/syscall.h>

#include "pt_util.h"

#define NTASKS 3

/* The mode the harness asked for through PIP_MODE. */
static int wanted_mode(void)
{
    const char *env = getenv("PIP_MODE");
    if (env != NULL &&
        (strcmp(env, "thread") == 0 || strcmp(env, "pthread") == 0))
        return PIP_MODE_PTHREAD;
    return PIP_MODE_PROCESS_PRELOAD; /* PiP 2.4.1's report on stock glibc */
}

PT_CASE(root_queries)
{
    int v = -1, flag = -1;
    pip_id_t id = 0;
    pt_init(NTASKS);
    PT_OK(pip_get_pipid(&v));
    PT_CHECK(v == PIP_PIPID_ROOT);
    PT_OK(pip_get_ntasks(&v));
    PT_CHECK(v == NTASKS);
    PT_OK(pip_get_mode(&v));
    PT_CHECK(v == wanted_mode());
    PT_CHECK(strcmp(pip_get_mode_str(),
                    v == PIP_MODE_PTHREAD ? "pthread" : "process:preload") ==
             0);
    PT_CHECK(pip_isa_root());
    PT_CHECK(!pip_isa_task());
    PT_OK(pip_is_threaded(&flag));
    PT_CHECK(flag == (v == PIP_MODE_PTHREAD));
    PT_OK(pip_is_shared_fd(&flag));
    PT_CHECK(flag == (v == PIP_MODE_PTHREAD));
    PT_OK(pip_get_system_id(PIP_PIPID_ROOT, &id));
    if (v & PIP_MODE_PROCESS)
        PT_CHECK(id == (pip_id_t)getpid());
    else
        PT_CHECK(id == (pip_id_t)pthread_self());
    pip_id_t me = 0;
    PT_OK(pip_get_system_id(PIP_PIPID_MYSELF, &me));
    PT_CHECK(me == id);
    PT_CHECK(pip_gettid() == (pid_t)syscall(SYS_gettid));
    (void)pip_is_debug_build();
    PT_OK(pip_fin());
}

PT_CASE(task_queries)
{
    pt_shared_t *sh = pt_shared_new(NTASKS);
    int pipid, n = NTASKS;
    void *root_exp = sh;
    PT_OK(pip_init(&pipid, &n, &root_exp, 0));
    int mode = pt_mode();
    int ids[NTASKS];
    for (int i = 0; i < NTASKS; i++)
        ids[i] = PT_SPAWN("task_api", "query", pt_ptr_arg(sh), NULL);
    for (int i = 0; i < NTASKS; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    for (int i = 0; i < NTASKS; i++) {
        int t = ids[i];
        PT_CHECK(sh->pipid[t] == t);
        PT_CHECK(sh->ntasks_seen[t] == NTASKS);
        PT_CHECK(sh->mode[t] == mode);
        PT_CHECK(!sh->isa_root[t]);
        PT_CHECK(sh->isa_task[t]);
        PT_CHECK(sh->threaded[t] == (mode == PIP_MODE_PTHREAD));
        PT_CHECK(sh->shared_fd[t] == (mode == PIP_MODE_PTHREAD));
        PT_CHECK(sh->root_exp_seen[t] == sh);
        if (mode & PIP_MODE_PROCESS) {
            /* Own PID, and the system id is that PID. */
            PT_CHECK_MSG(sh->sysid[t] == sh->getpid_[t], "sysid %lu getpid %lu",
                         (unsigned long)sh->sysid[t],
                         (unsigned long)sh->getpid_[t]);
            PT_CHECK(sh->getpid_[t] != (uintptr_t)getpid());
        } else {
            PT_CHECK(sh->sysid[t] == sh->self[t]);
            PT_CHECK(sh->getpid_[t] == (uintptr_t)getpid());
        }
        PT_CHECK(sh->gettid_[t] != (uintptr_t)pip_gettid());
        for (int j = 0; j < i; j++)
            PT_CHECK(sh->gettid_[t] != sh->gettid_[ids[j]]);
    }
    PT_OK(pip_fin());
}

PT_CASE(root_sees_task_system_id)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "block", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    pip_id_t id = 0;
    PT_OK(pip_get_system_id(a, &id));
    if (pt_is_process_mode()) {
        /* A live process with that PID exists and is not us. */
        PT_CHECK(id != (pip_id_t)getpid());
        PT_CHECK(kill((pid_t)id, 0) == 0);
    } else {
        PT_CHECK(id != (pip_id_t)pthread_self());
    }
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    int other = a == 0 ? 1 : 0;
    int rc = pip_get_system_id(other, &id);
    PT_CHECK_MSG(rc == ESRCH, "system id of unspawned task: %d (%s)", rc,
                 pt_errname(rc));
    rc = pip_get_system_id(99, &id);
    PT_CHECK_MSG(rc == ERANGE || rc == EINVAL, "system id of 99: %d (%s)", rc,
                 pt_errname(rc));
    PT_OK(pip_fin());
}

PT_CASE(thread_mode_shares_fd_table)
{
    pt_init(2);
    if (pt_is_process_mode())
        pt_skip("thread mode only");
    /* A descriptor opened after spawn is visible to the task. */
    pt_gate_t g;
    pt_gate_init(&g);
    int a = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, "fdopen", "201", NULL);
    int fd = open("/dev/null", O_RDONLY);
    PT_CHECK(fd >= 0 && dup2(fd, 201) == 201);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(root_queries),
        cmocka_unit_test(task_queries),
        cmocka_unit_test(root_sees_task_system_id),
        cmocka_unit_test(thread_mode_shares_fd_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
