/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_scale.c: hundreds of tasks per root on stock glibc (tasks share
 * dlmopen namespaces beyond PIP_NAMESPACES), concurrent malloc/printf,
 * the cross-task free storm, reuse of program images, PIP_NAMESPACES.
 */
#include "pt_util.h"

#include <sys/mman.h>

#include "ps_shared.h"

/* task_scale has __thread data: room for it in our TLS block. */
PIP_ROOT_TLS_RESERVE(4096);

static ps_shared_t *ps_new(int n)
{
    ps_shared_t *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    PT_CHECK(sh != MAP_FAILED);
    /* Before pip_init: pip_barrier_init needs it (PiP 2.4's EPERM). */
    pip_barrier_t bar = PIP_BARRIER_INIT(n);
    sh->bar = bar;
    return sh;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    PT_CHECK(f != NULL);
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %ld", &v) == 1)
            break;
    fclose(f);
    return v;
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

static void spawn_all(ps_shared_t *sh, int n, int *ids, const char *action,
                      const char *arg)
{
    char *sharg = pt_ptr_arg(sh);
    for (int i = 0; i < n; i++) {
        ids[i] = PIP_PIPID_ANY;
        PT_OK(pt_spawn("task_scale", &ids[i], action, sharg, arg, NULL));
    }
}

static void many_tasks(int n)
{
    ps_shared_t *sh = ps_new(n);
    int *ids = calloc((size_t)n, sizeof(int));
    pt_init(n);
    spawn_all(sh, n, ids, "count", NULL);
    for (int i = 0; i < n; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    uintptr_t *addr = calloc((size_t)n, sizeof(uintptr_t));
    for (int i = 0; i < n; i++) {
        PT_CHECK_MSG(sh->count_seen[i] == 1 && sh->tls_seen[i] == 1,
                     "task %d saw counter %d, __thread counter %d", i,
                     sh->count_seen[i], sh->tls_seen[i]);
        addr[i] = (uintptr_t)sh->gaddr[i];
    }
    qsort(addr, (size_t)n, sizeof(addr[0]), cmp_ptr);
    for (int i = 1; i < n; i++)
        PT_CHECK_MSG(addr[i] != addr[i - 1], "two tasks share one global");
    PT_OK(pip_fin());
}

PT_CASE(tasks_256_private_globals)
{
    many_tasks(256);
}

PT_CASE(tasks_300_private_globals)
{
    many_tasks(300);
}

/* One namespace for all: the most sharing there can be. */
PT_CASE(tasks_64_in_one_namespace)
{
    setenv("PIP_NAMESPACES", "1", 1);
    many_tasks(64);
}

#define STRESS_TASKS  32
#define STRESS_ROUNDS 3000

PT_CASE(concurrent_malloc_and_printf)
{
    ps_shared_t *sh = ps_new(STRESS_TASKS);
    int ids[STRESS_TASKS];
    char *path = pt_tmpfile("scale");
    int fd = open(path, O_RDWR | O_APPEND);
    PT_CHECK(fd >= 0);
    int saved = dup(1);
    PT_CHECK(saved >= 0 && dup2(fd, 1) == 1);
    pt_init(STRESS_TASKS);
    spawn_all(sh, STRESS_TASKS, ids, "stress", pt_int_arg(STRESS_ROUNDS));
    for (int i = 0; i < STRESS_TASKS; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    PT_OK(pip_fin());
    PT_CHECK(dup2(saved, 1) == 1);
    close(saved);

    /* Whole lines only, each task's lines all there and in order. */
    FILE *f = fdopen(fd, "r");
    PT_CHECK(f != NULL && fseek(f, 0, SEEK_SET) == 0);
    int next[STRESS_TASKS] = {0};
    char line[128];
    while (fgets(line, sizeof(line), f) != NULL) {
        int p = -1, k = -1;
        char tail;
        PT_CHECK_MSG(sscanf(line, "stress %d %d%c", &p, &k, &tail) == 3 &&
                         tail == '\n' && p >= 0 && p < STRESS_TASKS,
                     "garbled line '%s'", line);
        PT_CHECK_MSG(k == next[p], "task %d: line %d, expected %d", p, k,
                     next[p]);
        next[p]++;
    }
    fclose(f);
    for (int i = 0; i < STRESS_TASKS; i++) {
        PT_CHECK_MSG(next[i] == STRESS_ROUNDS / 100, "task %d: %d lines", i,
                     next[i]);
        PT_CHECK(sh->ops[i] == STRESS_ROUNDS);
    }
}

#define XFREE_TASKS 16

/* Operations of the storm: 1000000, or PT_XFREE_OPS (a multiple of 16;
 * make check-aarch64 runs fewer under the emulator). */
static long xfree_ops(void)
{
    const char *v = getenv("PT_XFREE_OPS");
    long n = v != NULL ? atol(v) : 0;
    return n >= XFREE_TASKS ? n / XFREE_TASKS * XFREE_TASKS : 1000000L;
}

PT_CASE(cross_task_free_storm)
{
    ps_shared_t *sh = ps_new(XFREE_TASKS);
    int ids[XFREE_TASKS];
    pt_init(XFREE_TASKS);
    long before = rss_kib();
    /*
     * free() of another task's malloc memory needs the libc copies of
     * dlmopen namespaces, whose tasks' threads all use glibc arenas that
     * any copy finds from the chunk: a private image's main thread uses
     * its own libc's main arena (see libpip(7), PIP_IMAGE).
     */
    PT_CHECK(setenv("PIP_IMAGE", "namespace", 1) == 0);
    spawn_all(sh, XFREE_TASKS, ids, "xfree",
              pt_int_arg(xfree_ops() / XFREE_TASKS));
    PT_CHECK(unsetenv("PIP_IMAGE") == 0);
    for (int i = 0; i < XFREE_TASKS; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    long after = rss_kib();
    long ops = 0, bad = 0;
    for (int i = 0; i < XFREE_TASKS; i++) {
        ops += sh->ops[i];
        bad += sh->bad[i];
    }
    for (int s = 0; s < PS_SLOTS; s++)
        PT_CHECK(sh->slots[s] == NULL);
    printf("# cross-task free: %ld operations, %ld corrupt blocks, RSS "
           "%ld -> %ld KiB\n",
           ops, bad, before, after);
    PT_CHECK(ops == xfree_ops());
    PT_CHECK_MSG(bad == 0, "%ld blocks corrupted", bad);
    /*
     * Up to 4096 blocks of up to 196 KiB were in flight at the end; all are
     * freed.  What may stay is each namespace's and arena's bookkeeping.
     */
    /* Under an emulator (TH_EXEC_WRAPPER) RSS is the emulator's, its
     * translation cache included: the bound says nothing there. */
    if (getenv("TH_EXEC_WRAPPER") == NULL)
        PT_CHECK_MSG(after - before < 48 * 1024, "RSS grew by %ld KiB",
                     after - before);
    PT_OK(pip_fin());
}

PT_CASE(image_reuse_restores_data)
{
    pt_init(2);
    for (int i = 0; i < 40; i++) {
        int id = PIP_PIPID_ANY;
        PT_OK(pt_spawn("task_scale", &id, "reuse", NULL));
        PT_CHECK_EXIT(pt_wait(id), 0);
    }
    PT_OK(pip_fin());
}

/* Exit codes and atexit handlers of tasks that share one namespace. */
PT_CASE(exit_status_in_shared_namespace)
{
    enum { N = 6 };
    setenv("PIP_NAMESPACES", "1", 1);
    ps_shared_t *sh = ps_new(N);
    int ids[N];
    char *sharg = pt_ptr_arg(sh);
    pt_init(N);
    for (int i = 0; i < N; i++) {
        ids[i] = PIP_PIPID_ANY;
        PT_OK(pt_spawn("task_scale", &ids[i], "exit", sharg, pt_int_arg(i + 3),
                       NULL));
    }
    for (int i = 0; i < N; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), i + 3);
    /* Handlers run (whichever task of the namespace runs them). */
    for (int i = 0; i < N; i++)
        PT_CHECK_MSG(sh->atexit_ran[ids[i]], "atexit of task %d did not run",
                     ids[i]);
    PT_OK(pip_fin());
}

/* A task alone in its namespace runs its own atexit handler. */
PT_CASE(atexit_runs_in_private_namespace)
{
    ps_shared_t *sh = ps_new(1);
    pt_init(4);
    for (int i = 0; i < 4; i++) {
        int id = PIP_PIPID_ANY;
        PT_OK(pt_spawn("task_scale", &id, "exit", pt_ptr_arg(sh), "0", NULL));
        PT_CHECK_EXIT(pt_wait(id), 0);
        PT_CHECK(sh->atexit_ran[id] == 1);
        sh->atexit_ran[id] = 0;
    }
    PT_OK(pip_fin());
}

PT_CASE(bad_pip_namespaces_is_einval)
{
    const char *bad[] = {"0", "-1", "abc", "16", "3x", ""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int pipid, n = 4;
        setenv("PIP_NAMESPACES", bad[i], 1);
        int rc = pip_init(&pipid, &n, NULL, 0);
        if (bad[i][0] == '\0') { /* empty: the default */
            PT_OK(rc);
            PT_OK(pip_fin());
            return;
        }
        PT_CHECK_MSG(rc == EINVAL, "PIP_NAMESPACES='%s': %d", bad[i], rc);
    }
}

int main(void)
{
    /* These cases run tasks that share namespaces on purpose: thread mode
     * refuses that unless asked (test_pip_exec checks the refusal). */
    setenv("PIP_SHARE_NAMESPACES", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tasks_256_private_globals),
        cmocka_unit_test(tasks_300_private_globals),
        cmocka_unit_test(tasks_64_in_one_namespace),
        cmocka_unit_test(concurrent_malloc_and_printf),
        cmocka_unit_test(cross_task_free_storm),
        cmocka_unit_test(image_reuse_restores_data),
        cmocka_unit_test(exit_status_in_shared_namespace),
        cmocka_unit_test(atexit_runs_in_private_namespace),
        cmocka_unit_test(bad_pip_namespaces_is_einval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
