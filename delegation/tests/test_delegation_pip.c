/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_pip.c: the intended deployment - the delegatee is a PiP
 * root, its clients are PiP tasks (dlg_pip_task) in the root's address
 * space.  Each case runs in a forked child that becomes a fresh root
 * (pip_init works once per process) with a 60 s alarm.
 *
 * Four tasks attach through the region's "addr:" spec (the root's own
 * mapping, process-private futexes) and each make ECHO, 1 MiB FILL and
 * inline SUM requests; the root's FILL handler checks that it got the
 * task's own buffer address and writes the task's buffer through it, and
 * the delegatee's counters must show every FILL byte passed by reference
 * and none copied through the ring.  In PiP process mode and thread mode,
 * with the three notification policies spread over the operations.  A
 * task SIGKILLed while attached (process mode) is reported by the
 * delegatee with its pid.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <pip/pip.h>

#include "deleg.h"
#include "dlg_pip.h"
#include "th_util.h"

#if defined(__SANITIZE_ADDRESS__)
/* As in libpip's test roots: LeakSanitizer cannot see the tasks' heaps. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}
#endif

#define NTASKS 4
#define ITERS  40

static int64_t op_echo(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    const uint64_t *a = dlg_req_args(req);
    uint64_t s = 0;
    for (unsigned i = 0; i < dlg_req_nargs(req); i++)
        s += a[i];
    return (int64_t)s;
}

static volatile int bad_pointer;

static int64_t op_fill(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    const uint64_t *a = dlg_req_args(req);
    uint8_t *p = dlg_req_ptr(req);
    /* zero copy: the handler holds the task's own pointer */
    if (dlg_req_nargs(req) != 2 || p != (uint8_t *)(uintptr_t)a[0]) {
        bad_pointer = 1;
        return -EFAULT;
    }
    memset(p, (int)a[1], dlg_req_len(req));
    return (int64_t)dlg_req_len(req);
}

static int64_t op_sum(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    const uint8_t *p = dlg_req_ptr(req);
    int64_t s = 0;
    for (size_t i = 0; i < dlg_req_len(req); i++)
        s += p[i];
    return s;
}

struct srv {
    dlg_region_t *r;
    dlg_delegatee_t *dg;
    dlg_policy_t idle;
    void (*on_dead)(dlg_delegatee_t *, int, pid_t, void *);
    volatile int ready;
    int rc;
};

static void *srv_main(void *arg)
{
    struct srv *s = arg;
    dlg_delegatee_attr_t a = {.max_clients = DLG_PIP_MAXT,
                              .idle_policy = s->idle,
                              .on_client_dead = s->on_dead};
    int rc = dlg_delegatee_create(s->r, &a, &s->dg);
    if (!rc)
        rc = dlg_delegatee_register(s->dg, DLG_PIP_OP_ECHO, op_echo, NULL,
                                    DLG_POLICY_POLL);
    if (!rc)
        rc = dlg_delegatee_register(s->dg, DLG_PIP_OP_FILL, op_fill, NULL,
                                    DLG_POLICY_BLOCK);
    if (!rc)
        rc = dlg_delegatee_register(s->dg, DLG_PIP_OP_SUM, op_sum, NULL,
                                    DLG_POLICY_ADAPTIVE);
    s->rc = rc;
    __atomic_store_n(&s->ready, rc ? -1 : 1, __ATOMIC_RELEASE);
    if (!rc)
        s->rc = dlg_delegatee_run(s->dg);
    return NULL;
}

#define CHILD_CHECK(cond, code, ...)                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            _exit(code);                                                       \
        }                                                                      \
    } while (0)

/* The body of a case, in the forked root. */
static void root_case(uint32_t mode, dlg_policy_t idle)
{
    int pipid = -1, ntasks = NTASKS;
    /* The mode is given: a PIP_MODE naming another one is EPERM (as PiP). */
    unsetenv("PIP_MODE");
    int rc = pip_init(&pipid, &ntasks, NULL, mode);
    if (rc == EPERM)
        _exit(TH_EXIT_SKIP);
    CHILD_CHECK(rc == 0, 20, "pip_init: %d", rc);
    char *task = th_sibling_path("dlg_pip_task");
    CHILD_CHECK(task != NULL, 21, "dlg_pip_task not found");

    struct srv s = {.idle = idle};
    dlg_delegatee_attr_t a = {.max_clients = DLG_PIP_MAXT};
    rc = dlg_region_create(DLG_REGION_MEMFD, "pip", dlg_region_need(&a),
                           DLG_REGION_LOCAL, &s.r);
    CHILD_CHECK(rc == 0, 22, "region: %s", dlg_strerror(rc));
    pthread_t th;
    CHILD_CHECK(pthread_create(&th, NULL, srv_main, &s) == 0, 23, "thread");
    while (!__atomic_load_n(&s.ready, __ATOMIC_ACQUIRE))
        sched_yield();
    CHILD_CHECK(s.ready == 1, 24, "delegatee: %s", dlg_strerror(s.rc));

    dlg_pip_shared_t *S = calloc(1, sizeof(*S));
    CHILD_CHECK(S != NULL, 25, "calloc");
    snprintf(S->spec, sizeof(S->spec), "%s", dlg_region_addr_spec(s.r));
    S->same_as = 1;
    S->iters = ITERS;
    char addr[32], idx[NTASKS][8];
    snprintf(addr, sizeof(addr), "%p", (void *)S);
    for (int t = 0; t < NTASKS; t++) {
        snprintf(idx[t], sizeof(idx[t]), "%d", t);
        char *argv[] = {task, "test", addr, idx[t], NULL};
        pip_spawn_program_t prog;
        pip_spawn_from_main(&prog, task, argv, NULL, NULL, NULL);
        int id = t;
        rc = pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL);
        CHILD_CHECK(rc == 0, 26, "spawn %d: %d", t, rc);
    }
    int failed = 0;
    for (int t = 0; t < NTASKS; t++) {
        int st = -1;
        rc = pip_wait(t, &st);
        if (rc || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "task %d: wait %d status 0x%x: %s\n", t, rc, st,
                    S->msg[t]);
            failed = 1;
        }
    }
    dlg_stats_t st;
    dlg_delegatee_stats(s.dg, &st);
    dlg_delegatee_stop(s.dg);
    pthread_join(th, NULL);
    CHILD_CHECK(s.rc == 0, 27, "run: %s", dlg_strerror(s.rc));
    CHILD_CHECK(!failed, 28, "a task failed");
    CHILD_CHECK(!bad_pointer, 29, "FILL handler did not get the task pointer");
    CHILD_CHECK(st.requests == (uint64_t)NTASKS * ITERS * 3, 30,
                "requests %llu", (unsigned long long)st.requests);
    CHILD_CHECK(st.bytes_zero_copy == (uint64_t)NTASKS * ITERS * DLG_PIP_FILL_N,
                31, "zero-copy bytes %llu",
                (unsigned long long)st.bytes_zero_copy);
    CHILD_CHECK(st.bytes_inline == (uint64_t)NTASKS * ITERS * DLG_PIP_SUM_N, 32,
                "inline bytes %llu", (unsigned long long)st.bytes_inline);
    CHILD_CHECK(st.bytes_xproc == 0 && st.dead_clients == 0, 33,
                "xproc %llu dead %llu", (unsigned long long)st.bytes_xproc,
                (unsigned long long)st.dead_clients);
    dlg_delegatee_destroy(s.dg);
    dlg_region_close(s.r);
    free(S);
    free(task);
    CHILD_CHECK(pip_fin() == 0, 34, "pip_fin");
    _exit(0);
}

static volatile int dead_seen, dead_pid;

static void on_dead(dlg_delegatee_t *dg, int client, pid_t pid, void *ctx)
{
    (void)dg;
    (void)client;
    (void)ctx;
    dead_pid = (int)pid;
    __atomic_add_fetch(&dead_seen, 1, __ATOMIC_RELEASE);
}

/* A task killed while attached: the delegatee reports it (its robust mutex
 * is marked by the kernel when the task process dies) and frees the slot. */
static void root_killed_task(void)
{
    int pipid = -1, ntasks = 2;
    /* The mode is given: a PIP_MODE naming another one is EPERM (as PiP). */
    unsetenv("PIP_MODE");
    int rc = pip_init(&pipid, &ntasks, NULL, PIP_MODE_PROCESS);
    if (rc == EPERM)
        _exit(TH_EXIT_SKIP);
    CHILD_CHECK(rc == 0, 40, "pip_init: %d", rc);
    char *task = th_sibling_path("dlg_pip_task");
    CHILD_CHECK(task != NULL, 41, "dlg_pip_task not found");
    struct srv s = {.idle = DLG_POLICY_BLOCK, .on_dead = on_dead};
    dlg_delegatee_attr_t a = {.max_clients = DLG_PIP_MAXT};
    rc = dlg_region_create(DLG_REGION_MEMFD, "pip", dlg_region_need(&a),
                           DLG_REGION_LOCAL, &s.r);
    CHILD_CHECK(rc == 0, 42, "region: %s", dlg_strerror(rc));
    pthread_t th;
    CHILD_CHECK(pthread_create(&th, NULL, srv_main, &s) == 0, 43, "thread");
    while (!__atomic_load_n(&s.ready, __ATOMIC_ACQUIRE))
        sched_yield();
    CHILD_CHECK(s.ready == 1, 44, "delegatee: %s", dlg_strerror(s.rc));
    dlg_pip_shared_t *S = calloc(1, sizeof(*S));
    CHILD_CHECK(S != NULL, 45, "calloc");
    snprintf(S->spec, sizeof(S->spec), "%s", dlg_region_addr_spec(s.r));
    S->same_as = 1;
    char addr[32];
    snprintf(addr, sizeof(addr), "%p", (void *)S);
    char *argv[] = {task, "die", addr, "0", NULL};
    pip_spawn_program_t prog;
    pip_spawn_from_main(&prog, task, argv, NULL, NULL, NULL);
    int id = 0, st = -1;
    rc = pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL);
    CHILD_CHECK(rc == 0, 46, "spawn: %d", rc);
    pip_id_t sysid = 0;
    pip_get_system_id(id, &sysid);
    rc = pip_wait(id, &st);
    CHILD_CHECK(rc == 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, 47,
                "wait %d status %#x: %s", rc, st, S->msg[0]);
    /* bounded: the delegatee checks liveness every DLG_LIVENESS_MS */
    for (int i = 0; i < 5000 && !__atomic_load_n(&dead_seen, __ATOMIC_ACQUIRE);
         i++)
        usleep(2000);
    dlg_stats_t sts;
    dlg_delegatee_stats(s.dg, &sts);
    dlg_delegatee_stop(s.dg);
    pthread_join(th, NULL);
    CHILD_CHECK(dead_seen == 1 && sts.dead_clients == 1, 48,
                "dead clients seen %d, counted %llu", dead_seen,
                (unsigned long long)sts.dead_clients);
    CHILD_CHECK(sysid == 0 || dead_pid == (int)sysid, 49,
                "dead pid %d, task pid %d", dead_pid, (int)sysid);
    dlg_delegatee_destroy(s.dg);
    dlg_region_close(s.r);
    free(S);
    free(task);
    _exit(0);
}

static void run_killed(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        alarm(60);
        root_killed_task();
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL);
    if (WIFEXITED(st) && WEXITSTATUS(st) == TH_EXIT_SKIP)
        skip();
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("root ended with status %#x", st);
}

static void process_mode_killed_task_is_detected(void **state)
{
    (void)state;
    if (th_clone_vm_refused()) {
        print_message("SKIP: clone(CLONE_VM) without CLONE_THREAD refused "
                      "(qemu-user): no process mode here\n");
        skip();
    }
    run_killed();
}

static void run_case(uint32_t mode, dlg_policy_t idle)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        alarm(60);
        root_case(mode, idle);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    kill(-pid, SIGKILL); /* tasks of a failed case may outlive the root */
    if (WIFEXITED(st) && WEXITSTATUS(st) == TH_EXIT_SKIP)
        skip();
    if (WIFSIGNALED(st))
        fail_msg("root killed by signal %d%s", WTERMSIG(st),
                 WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("root exited with %d", WEXITSTATUS(st));
}

static void process_mode_tasks_idle_adaptive(void **state)
{
    (void)state;
    if (th_clone_vm_refused()) {
        print_message("SKIP: clone(CLONE_VM) without CLONE_THREAD refused "
                      "(qemu-user): no process mode here\n");
        skip();
    }
    run_case(PIP_MODE_PROCESS, DLG_POLICY_ADAPTIVE);
}

static void process_mode_tasks_idle_block(void **state)
{
    (void)state;
    if (th_clone_vm_refused()) {
        print_message("SKIP: clone(CLONE_VM) without CLONE_THREAD refused "
                      "(qemu-user): no process mode here\n");
        skip();
    }
    run_case(PIP_MODE_PROCESS, DLG_POLICY_BLOCK);
}

static void thread_mode_tasks_idle_poll(void **state)
{
    (void)state;
    run_case(PIP_MODE_PTHREAD, DLG_POLICY_POLL);
}

static void addr_spec_is_checked(void **state)
{
    (void)state;
    dlg_region_t *r, *r2;
    assert_int_equal(
        dlg_region_create(DLG_REGION_MEMFD, "a", 4096, DLG_REGION_LOCAL, &r),
        0);
    const char *spec = dlg_region_addr_spec(r);
    assert_int_equal(strncmp(spec, "addr:", 5), 0);
    assert_int_equal(dlg_region_open(spec, &r2), 0);
    assert_ptr_equal(dlg_region_base(r2), dlg_region_base(r));
    assert_int_equal(dlg_region_size(r2), dlg_region_size(r));
    assert_int_equal(dlg_region_flags(r2), DLG_REGION_LOCAL);
    assert_int_equal(dlg_region_close(r2), 0); /* leaves the mapping */
    ((volatile char *)dlg_region_base(r))[0] = 1;
    char bad[128];
    char *map = (char *)dlg_region_base(r) - 64; /* the mapping's start */
    snprintf(bad, sizeof(bad), "addr:%p:%zu", (void *)(map + 1),
             dlg_region_size(r) + 64);
    assert_int_equal(dlg_region_open(bad, &r2), -EINVAL); /* misaligned */
    snprintf(bad, sizeof(bad), "addr:%p:%zu", (void *)map,
             dlg_region_size(r) + 64 + 4096);
    assert_int_equal(dlg_region_open(bad, &r2), -EPROTO); /* wrong size */
    assert_int_equal(dlg_region_open("addr:0x0:4096", &r2), -EINVAL);
    assert_int_equal(dlg_region_open("addr:junk", &r2), -EINVAL);
    assert_int_equal(dlg_region_close(r), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(addr_spec_is_checked),
        cmocka_unit_test(process_mode_tasks_idle_adaptive),
        cmocka_unit_test(process_mode_tasks_idle_block),
        cmocka_unit_test(thread_mode_tasks_idle_poll),
        cmocka_unit_test(process_mode_killed_task_is_detected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
