/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_export.c: named export/import (blocking, try, ECANCELED, EDEADLK,
 * EBUSY), unnamed export/import, the spawn-time export, aux pointers and
 * pip_get_addr.
 */
#include "pt_util.h"

PT_CASE(named_import_waits_for_export)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "export", pt_ptr_arg(sh), NULL);
    /* Blocks until the task has exported (the task may not have started). */
    int *arr = NULL;
    PT_OK(pip_named_import(a, (void **)&arr, "array-%d", a));
    PT_CHECK(arr != NULL);
    for (int i = 0; i < PT_ARRAY_LEN; i++)
        PT_CHECK_MSG(arr[i] == a * 100000 + i, "arr[%d] = %d", i, arr[i]);
    /* Once exported, tryimport succeeds with the same address. */
    int *again = NULL;
    PT_OK(pip_named_tryimport(a, (void **)&again, "array-%d", a));
    PT_CHECK(again == arr);
    /* Our writes are seen by the task through its own global. */
    arr[0] = 777;
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK(sh->value[a] == 777);
    PT_OK(pip_fin());
}

PT_CASE(tryimport_before_export_is_eagain)
{
    pt_shared_t *sh = pt_shared_new(2);
    pt_init(2);
    /* A running task that exports nothing: tryimport must not wait. */
    int b = PT_SPAWN("task_api", "block", pt_ptr_arg(sh), NULL);
    void *p = NULL;
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    PT_CHECK_ERR(pip_named_tryimport(b, &p, "global"), EAGAIN);
    int a = PT_SPAWN("task_api", "export", pt_ptr_arg(sh), NULL);
    PT_CHECK_ERR(pip_named_tryimport(a, &p, "never-exported"), EAGAIN);
    PT_CHECK(pt_wait_ge(&sh->ready, 2) == 0);
    PT_CHECK_ERR(pip_named_tryimport(a, &p, "never-exported"), EAGAIN);
    PT_OK(pip_named_tryimport(a, &p, "global"));
    PT_CHECK(p != NULL && *(int *)p == 5000 + a);
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK_EXIT(pt_wait(b), 0);
    PT_OK(pip_fin());
}

PT_CASE(import_from_task_that_ends_is_ecanceled)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    /* The task sleeps 300 ms and ends without exporting: we block meanwhile. */
    int a = PT_SPAWN("task_api", "noexport", pt_ptr_arg(sh), "300", NULL);
    void *p = NULL;
    double t0 = pt_now();
    PT_CHECK_ERR(pip_named_import(a, &p, "not-there"), ECANCELED);
    PT_CHECK(pt_now() - t0 < PT_WAIT_SECONDS);
    /* Ended but not reaped: still ECANCELED, without blocking. */
    PT_CHECK_ERR(pip_named_import(a, &p, "still-not-there"), ECANCELED);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(self_import_is_edeadlk)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    void *p;
    PT_CHECK_ERR(pip_named_import(PIP_PIPID_ROOT, &p, "x"), EDEADLK);
    PT_CHECK_ERR(pip_named_import(PIP_PIPID_MYSELF, &p, "x"), EDEADLK);
    int a = PT_SPAWN("task_api", "importself", pt_ptr_arg(sh), NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(duplicate_name_is_ebusy)
{
    static int x, y;
    pt_init(2);
    PT_OK(pip_named_export(&x, "name-%d", 1));
    PT_CHECK_ERR(pip_named_export(&y, "name-%d", 1), EBUSY);
    PT_OK(pip_named_export(&y, "name-%d", 2));
    /* The first export is kept. */
    void *p = NULL;
    PT_OK(pip_named_tryimport(PIP_PIPID_ROOT, &p, "name-1"));
    PT_CHECK(p == &x);
    PT_OK(pip_fin());
}

PT_CASE(task_imports_root_exports)
{
    static int root_int = 1;
    pt_shared_t *sh = pt_shared_new(1);
    int pipid, n = 2;
    void *root_exp = sh;
    PT_OK(pip_init(&pipid, &n, &root_exp, 0));
    PT_OK(pip_named_export(&root_int, "root-int"));
    int a = PT_SPAWN("task_api", "importroot", pt_ptr_arg(sh), NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK(root_int == 1 + 1000 + a);
    PT_CHECK(sh->root_exp_seen[a] == sh);
    PT_OK(pip_fin());
}

PT_CASE(unnamed_export_and_import)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "export", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    int *arr = NULL, *named = NULL;
    PT_OK(pip_import(a, (void **)&arr));
    PT_OK(pip_named_import(a, (void **)&named, "array-%d", a));
    PT_CHECK(arr != NULL && arr == named);
    PT_CHECK(arr[5] == a * 100000 + 5);
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(unnamed_import_before_export_is_null)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "block", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    void *p = (void *)1;
    PT_OK(pip_import(a, &p));
    PT_CHECK(p == NULL);
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(spawn_time_export_is_task_export)
{
    static int given;
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    char *argv[] = {pt_path("task_api"), "block", pt_ptr_arg(sh), NULL};
    pip_spawn_program_t prog;
    int a = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, argv[0], argv, NULL, &given, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &a, NULL));
    void *p = NULL;
    PT_OK(pip_import(a, &p));
    PT_CHECK(p == &given);
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(import_bad_pipid_fails)
{
    pt_init(2);
    void *p;
    int rc = pip_import(5, &p);
    PT_CHECK_MSG(rc == ERANGE || rc == EINVAL, "pip_import(5): %d (%s)", rc,
                 pt_errname(rc));
    rc = pip_named_tryimport(5, &p, "x");
    PT_CHECK_MSG(rc == ERANGE || rc == EINVAL, "tryimport(5): %d (%s)", rc,
                 pt_errname(rc));
    PT_OK(pip_fin());
}

PT_CASE(aux_is_given_at_spawn_and_settable)
{
    static int aux_value;
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    void *root_aux = NULL;
    PT_OK(pip_set_aux(&root_aux));
    char *argv[] = {pt_path("task_api"), "aux", pt_ptr_arg(sh), NULL};
    pip_spawn_program_t prog;
    int a = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL, &aux_value);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &a, NULL));
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK(sh->aux_seen[a] == &aux_value);
    PT_CHECK(sh->aux_after[a] == (void *)&sh->value[a]);
    /* The task's pip_set_aux did not change the root's aux. */
    void *mine = NULL;
    PT_OK(pip_get_aux(&mine));
    PT_CHECK(mine == &root_aux);
    PT_OK(pip_fin());
}

PT_CASE(get_addr_finds_task_private_global)
{
    pt_shared_t *sh = pt_shared_new(2);
    pt_init(2);
    int a = PT_SPAWN("task_api", "export", pt_ptr_arg(sh), NULL);
    int b = PT_SPAWN("task_api", "export", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 2) == 0);
    int *ga = NULL, *gb = NULL;
    PT_OK(pip_get_addr(a, "pt_task_global", (void **)&ga));
    PT_OK(pip_get_addr(b, "pt_task_global", (void **)&gb));
    /* Two copies of the program, two copies of the global. */
    PT_CHECK(ga != NULL && gb != NULL && ga != gb);
    PT_CHECK(*ga == 5000 + a);
    PT_CHECK(*gb == 5000 + b);
    void *named = NULL;
    PT_OK(pip_named_import(a, &named, "global"));
    PT_CHECK(named == ga);
    void *p;
    PT_CHECK_ERR(pip_get_addr(a, "pt_no_such_symbol", &p), ENOENT);
    __atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK_EXIT(pt_wait(b), 0);
    PT_OK(pip_fin());
}

/*
 * PiP's rule: an ended task's memory that another task may still use stays
 * valid until pip_fin.  A task that ran libpip exported its stack, malloc
 * and global memory and ended; after it was reaped, the root and a later
 * task read all of it.
 */
PT_CASE(ended_task_memory_stays_until_fin)
{
    pt_shared_t *sh = pt_shared_new(2);
    pt_init(2);
    int a = PT_SPAWN("task_api", "exportmem", pt_ptr_arg(sh), NULL);
    unsigned char *heap = NULL;
    PT_OK(pip_named_import(a, (void **)&heap, "heap-mem"));
    PT_CHECK_EXIT(pt_wait(a), 0);
    /* Reaped: still readable by the root, and importable by a new task. */
    for (int i = 0; i < 256 * 1024; i += 4096)
        PT_CHECK(heap[i] == (unsigned char)(i * 13 + a));
    char from[16];
    snprintf(from, sizeof(from), "%d", a);
    /* Another pipid: a new task on a's would drop a's named exports. */
    int b = a == 0 ? 1 : 0;
    PT_OK(pt_spawn("task_api", &b, "readmem", pt_ptr_arg(sh), from, NULL));
    PT_CHECK_EXIT(pt_wait(b), 0);
    PT_OK(pip_fin());
}

static long maps_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    PT_CHECK(f != NULL);
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/*
 * The other side of the rule: a process-mode task that never ran libpip
 * (most programs) leaves nothing once reaped: 30 such tasks (each maps its
 * loader, libc, program, stack and malloc memory) and the root's mapping
 * count is what it was after the first.
 */
PT_CASE(ended_plain_task_memory_is_returned)
{
    int mode = 0;
    pt_init(2);
    PT_OK(pip_get_mode(&mode));
    if (!(mode & PIP_MODE_PROCESS)) {
        PT_OK(pip_fin());
        return; /* thread mode: namespaces stay loaded (libpip(7)) */
    }
    int a = PT_SPAWN("task_plain", "print", "", NULL);
    PT_CHECK_EXIT(pt_wait(a), 0);
    long before = maps_count();
    for (int i = 0; i < 30; i++) {
        a = PT_SPAWN("task_plain", "ctype", "print", "", NULL);
        PT_CHECK_EXIT(pt_wait(a), 0);
    }
    long after = maps_count();
    PT_CHECK_MSG(after <= before + 2, "mappings %ld before, %ld after", before,
                 after);
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(named_import_waits_for_export),
        cmocka_unit_test(tryimport_before_export_is_eagain),
        cmocka_unit_test(import_from_task_that_ends_is_ecanceled),
        cmocka_unit_test(self_import_is_edeadlk),
        cmocka_unit_test(duplicate_name_is_ebusy),
        cmocka_unit_test(task_imports_root_exports),
        cmocka_unit_test(unnamed_export_and_import),
        cmocka_unit_test(unnamed_import_before_export_is_null),
        cmocka_unit_test(spawn_time_export_is_task_export),
        cmocka_unit_test(import_bad_pipid_fails),
        cmocka_unit_test(aux_is_given_at_spawn_and_settable),
        cmocka_unit_test(get_addr_finds_task_private_global),
        cmocka_unit_test(ended_task_memory_stays_until_fin),
        cmocka_unit_test(ended_plain_task_memory_is_returned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
