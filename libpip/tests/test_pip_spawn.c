/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_spawn.c: pip_task_spawn / pip_spawn, argument and environment
 * passing, start functions, and every error case of the loader
 * (also through pip_check_pie).
 */
#include <dirent.h>

#include "pt_util.h"

/* Scratch files the error cases need: made once per case process. */
typedef struct {
    char *dir;     /* a directory */
    char *script;  /* executable, but a shell script (not ELF) */
    char *garbage; /* executable, random bytes */
    char *noexec;  /* a copy of task_nop without execute permission */
    char *missing; /* a path that does not exist */
} bad_files_t;

static void write_file(const char *path, const void *data, size_t len,
                       mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    PT_CHECK(fd >= 0);
    PT_CHECK(write(fd, data, len) == (ssize_t)len);
    PT_CHECK(close(fd) == 0);
    PT_CHECK(chmod(path, mode) == 0);
}

static void bad_files_make(bad_files_t *b)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof(tmpl), "%s/pt_spawn_XXXXXX", tmp);
    PT_CHECK(mkdtemp(tmpl) != NULL);
    b->dir = strdup(tmpl);
    PT_CHECK(asprintf(&b->script, "%s/script.sh", b->dir) > 0);
    PT_CHECK(asprintf(&b->garbage, "%s/garbage", b->dir) > 0);
    PT_CHECK(asprintf(&b->noexec, "%s/noexec", b->dir) > 0);
    PT_CHECK(asprintf(&b->missing, "%s/no-such-file", b->dir) > 0);
    const char script[] = "#!/bin/sh\nexit 0\n";
    write_file(b->script, script, sizeof(script) - 1, 0755);
    unsigned char junk[4096];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (unsigned char)(i * 131 + 7);
    write_file(b->garbage, junk, sizeof(junk), 0755);
    /* A real task program, minus the execute bits. */
    char *nop = pt_path("task_nop");
    FILE *f = fopen(nop, "rb");
    PT_CHECK(f != NULL);
    char *img = malloc(1 << 22);
    size_t n = fread(img, 1, 1 << 22, f);
    fclose(f);
    write_file(b->noexec, img, n, 0644);
    free(img);
}

static void bad_files_remove(bad_files_t *b)
{
    unlink(b->script);
    unlink(b->garbage);
    unlink(b->noexec);
    rmdir(b->dir);
}

/* Spawn path at main with argv {path, NULL}. */
static int spawn_path(char *path, int *pipidp)
{
    char *argv[] = {path, NULL};
    pip_spawn_program_t prog;
    pip_spawn_from_main(&prog, path, argv, NULL, NULL, NULL);
    return pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, pipidp, NULL);
}

PT_CASE(spawn_and_wait_nop)
{
    pt_init(4);
    int id = PIP_PIPID_ANY;
    PT_OK(spawn_path(pt_path("task_nop"), &id));
    PT_CHECK(id >= 0 && id < 4);
    PT_CHECK_EXIT(pt_wait(id), 0);
    PT_OK(pip_fin());
}

PT_CASE(spawn_gives_requested_pipid)
{
    pt_init(4);
    int id = 2;
    PT_OK(pt_spawn("task_plain", &id, "ret", "12", NULL));
    PT_CHECK(id == 2);
    PT_CHECK_EXIT(pt_wait(2), 12);
    PT_OK(pip_fin());
}

PT_CASE(spawn_any_gives_distinct_pipids)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    int ids[3];
    for (int i = 0; i < 3; i++) {
        ids[i] = PIP_PIPID_ANY;
        PT_OK(pt_spawn("task_plain", &ids[i], "waitfd", g.rfd_arg, NULL));
        PT_CHECK(ids[i] >= 0 && ids[i] < 3);
        for (int j = 0; j < i; j++)
            PT_CHECK(ids[i] != ids[j]);
    }
    pt_gate_open(&g, 3);
    for (int i = 0; i < 3; i++)
        PT_CHECK_EXIT(pt_wait(ids[i]), 0);
    PT_OK(pip_fin());
}

PT_CASE(argv_reaches_task)
{
    pt_init(2);
    int id = PT_SPAWN("task_plain", "argc", "6", "envis", "PT_NONE", "-", NULL);
    PT_CHECK_EXIT(pt_wait(id), 0);
    PT_OK(pip_fin());
}

PT_CASE(null_envv_gives_root_environment)
{
    setenv("PT_FROM_ROOT", "root-value", 1);
    pt_init(2);
    int id =
        PT_SPAWN("task_plain", "envis", "PT_FROM_ROOT", "root-value", NULL);
    PT_CHECK_EXIT(pt_wait(id), 0);
    PT_OK(pip_fin());
}

PT_CASE(given_envv_replaces_environment)
{
    setenv("PT_FROM_ROOT", "root-value", 1);
    pt_init(2);
    char *path = pt_path("task_plain");
    char *argv[] = {path,    "envis",        "PT_GIVEN", "given",
                    "envis", "PT_FROM_ROOT", "-",        NULL};
    char *envv[] = {"PT_GIVEN=given", NULL};
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, path, argv, envv, NULL, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    PT_CHECK_EXIT(pt_wait(id), 0);
    PT_OK(pip_fin());
}

PT_CASE(prog_null_uses_argv0)
{
    pt_init(2);
    char *argv[] = {pt_path("task_plain"), "ret", "21", NULL};
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, NULL, argv, NULL, NULL, NULL);
    PT_CHECK(prog.prog == argv[0]);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    PT_CHECK_EXIT(pt_wait(id), 21);
    PT_OK(pip_fin());
}

PT_CASE(start_function_gets_its_argument)
{
    static int arg = 23;
    pt_init(2);
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_func(&prog, pt_path("task_api"), "tf_ret_arg", &arg, NULL,
                        NULL, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    PT_CHECK_EXIT(pt_wait(id), 23);
    PT_OK(pip_fin());
}

PT_CASE(old_spawn_form_works)
{
    pt_init(2);
    char *path = pt_path("task_plain");
    char *argv[] = {path, "ret", "4", NULL};
    int id = 1;
    PT_OK(pip_spawn(path, argv, NULL, PIP_CPUCORE_ASIS, &id, NULL, NULL, NULL));
    PT_CHECK(id == 1);
    PT_CHECK_EXIT(pt_wait(id), 4);
    PT_OK(pip_fin());
}

/* State letter of thread tid of process pid from /proc (0 if unreadable). */
static char thread_state(pid_t pid, pid_t tid)
{
    char path[96], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/*
 * Whether some thread of process pid is stopped.  Look at every thread: the
 * task's code may run on a thread other than the process's first one.
 */
static int process_stopped(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    int stopped = 0;
    if (d == NULL)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' &&
            thread_state(pid, (pid_t)atoi(e->d_name)) == 'T')
            stopped = 1;
    closedir(d);
    return stopped;
}

PT_CASE(stop_on_start_stops_task_before_main)
{
    /* Thread mode: SIGSTOP would stop the whole process, the root included. */
    setenv("PIP_STOP_ON_START", "0", 1);
    pt_init(2);
    pt_require_process_mode();
    int id = 0;
    PT_OK(pt_spawn("task_plain", &id, "ret", "5", NULL));
    pip_id_t sysid = 0;
    PT_OK(pip_get_system_id(id, &sysid));
    double end = pt_now() + PT_WAIT_SECONDS;
    while (!process_stopped((pid_t)sysid)) {
        PT_CHECK_MSG(pt_now() < end, "task %lu never stopped",
                     (unsigned long)sysid);
        usleep(1000);
    }
    int st;
    PT_CHECK_ERR(pip_trywait(id, &st), ECHILD);
    PT_OK(pip_kill(id, SIGCONT));
    PT_CHECK_EXIT(pt_wait(id), 5);
    PT_OK(pip_fin());
}

PT_CASE(spawn_without_init_is_eperm)
{
    int id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(pt_path("task_nop"), &id), EPERM);
}

PT_CASE(missing_file_is_enoent)
{
    bad_files_t b;
    bad_files_make(&b);
    pt_init(2);
    int id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(b.missing, &id), ENOENT);
    PT_CHECK_ERR(spawn_path("/nonexistent-dir/prog", &id), ENOENT);
    bad_files_remove(&b);
    PT_OK(pip_fin());
}

PT_CASE(directory_and_unexecutable_are_eacces)
{
    bad_files_t b;
    bad_files_make(&b);
    pt_init(2);
    int id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(b.dir, &id), EACCES);
    id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(b.noexec, &id), EACCES);
    bad_files_remove(&b);
    PT_OK(pip_fin());
}

PT_CASE(non_elf_is_elibbad)
{
    bad_files_t b;
    bad_files_make(&b);
    pt_init(2);
    int id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(b.script, &id), ELIBBAD);
    id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(b.garbage, &id), ELIBBAD);
    bad_files_remove(&b);
    PT_OK(pip_fin());
}

/*
 * Thread mode: a non-PIE cannot be loaded twice into one address space by
 * dlmopen: ELIBEXEC.  Process mode: a private image runs it at its fixed
 * addresses, one live copy at a time: a second one is EBUSY until the
 * first is reaped.
 */
PT_CASE(non_pie_is_elibexec)
{
    pt_init(2);
    int id = PIP_PIPID_ANY;
    if (!pt_is_process_mode()) {
        PT_CHECK_ERR(spawn_path(pt_path("task_nopie"), &id), ELIBEXEC);
        PT_OK(pip_fin());
        return;
    }
    char *path = pt_path("task_nopie");
    char *argv[] = {path, "30", NULL}; /* sleeps 30 s */
    pip_spawn_program_t prog;
    pip_spawn_from_main(&prog, path, argv, NULL, NULL, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    int id2 = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(path, &id2), EBUSY);
    PT_OK(pip_kill(id, SIGKILL));
    int st = pt_wait(id);
    PT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    id2 = PIP_PIPID_ANY;
    PT_OK(spawn_path(path, &id2));
    PT_CHECK_EXIT(pt_wait(id2), 0);
    PT_OK(pip_fin());
}

/* As PiP 2.4: main of a PIE without -rdynamic is found in its .symtab. */
PT_CASE(pie_without_rdynamic_runs)
{
    pt_init(2);
    char *argv[] = {pt_path("task_nordyn"), "x", NULL};
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, argv[0], argv, NULL, NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    PT_CHECK_EXIT(pt_wait(id), 32);
    PT_OK(pip_fin());
}

/* Its global and its static start functions, neither exported. */
PT_CASE(unexported_start_functions_run)
{
    static int arg = 20;
    const char *fns[] = {"nordyn_start", "nordyn_static"};
    pt_init(2);
    for (int i = 0; i < 2; i++) {
        pip_spawn_program_t prog;
        int id = PIP_PIPID_ANY;
        pip_spawn_from_func(&prog, pt_path("task_nordyn"), (char *)fns[i], &arg,
                            NULL, NULL);
        PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
        PT_CHECK_EXIT(pt_wait(id), 21 + i);
    }
    PT_OK(pip_fin());
}

/* A static start function of a program linked with -rdynamic. */
PT_CASE(static_start_function_runs)
{
    static int arg = 5;
    pt_init(2);
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_func(&prog, pt_path("task_api"), "tf_static_ret", &arg, NULL,
                        NULL);
    PT_OK(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL));
    PT_CHECK_EXIT(pt_wait(id), 105);
    PT_OK(pip_fin());
}

/* Stripped and not exported: main is found from _start (pip_entry.c,
 * x86-64 and aarch64), the other start functions are really absent. */
PT_CASE(stripped_without_rdynamic_is_enoexec)
{
    static int arg = 1;
    pt_init(2);
    int id = PIP_PIPID_ANY;
    PT_OK(spawn_path(pt_path("task_nordyn_stripped"), &id));
    PT_CHECK_EXIT(pt_wait(id), 31);
    pip_spawn_program_t prog;
    pip_spawn_from_func(&prog, pt_path("task_nordyn_stripped"), "nordyn_start",
                        &arg, NULL, NULL);
    id = PIP_PIPID_ANY;
    PT_CHECK_ERR(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL),
                 ENOEXEC);
    PT_OK(pip_fin());
}

/* PIP_NS_PRELOAD: a library loaded first into the task's namespace comes
 * before the program's own libraries, as LD_PRELOAD does in a process. */
PT_CASE(ns_preload_comes_first)
{
    pt_init(2);
    char *lib = pt_path(".libs/libpt_preload.so");
    PT_CHECK(setenv("PIP_NS_PRELOAD", lib, 1) == 0);
    int id = PIP_PIPID_ANY;
    PT_OK(spawn_path(pt_path("task_preload"), &id));
    PT_CHECK_EXIT(pt_wait(id), 37);
    PT_OK(pip_fin());
}

PT_CASE(without_ns_preload_nothing_comes_first)
{
    pt_init(2);
    PT_CHECK(unsetenv("PIP_NS_PRELOAD") == 0);
    int id = PIP_PIPID_ANY;
    PT_OK(spawn_path(pt_path("task_preload"), &id));
    PT_CHECK_EXIT(pt_wait(id), 30);
    PT_OK(pip_fin());
}

PT_CASE(missing_ns_preload_is_elibacc)
{
    pt_init(2);
    PT_CHECK(setenv("PIP_NS_PRELOAD", "/nonexistent/libnothing.so", 1) == 0);
    int id = PIP_PIPID_ANY;
    PT_CHECK_ERR(spawn_path(pt_path("task_preload"), &id), ELIBACC);
    PT_CHECK(unsetenv("PIP_NS_PRELOAD") == 0);
    id = PIP_PIPID_ANY;
    PT_OK(pt_spawn("task_plain", &id, "ret", "9", NULL));
    PT_CHECK_EXIT(pt_wait(id), 9);
    PT_OK(pip_fin());
}

PT_CASE(unknown_start_function_is_enoexec)
{
    pt_init(2);
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_func(&prog, pt_path("task_api"), "no_such_function", NULL,
                        NULL, NULL, NULL);
    PT_CHECK_ERR(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL),
                 ENOEXEC);
    PT_OK(pip_fin());
}

PT_CASE(loader_failures_leave_library_usable)
{
    bad_files_t b;
    bad_files_make(&b);
    pt_init(4);
    /* Fail every way, then a good spawn must still work and get pipid 0. */
    char *bad[] = {b.missing, b.dir,     b.noexec,
                   b.script,  b.garbage, pt_path("task_nopie")};
    /* process mode runs a non-PIE (non_pie_is_elibexec) */
    size_t nbad = sizeof(bad) / sizeof(bad[0]) - (pt_is_process_mode() ? 1 : 0);
    for (size_t i = 0; i < nbad; i++) {
        int id = PIP_PIPID_ANY;
        PT_CHECK_MSG(spawn_path(bad[i], &id) != 0, "spawn of %s succeeded",
                     bad[i]);
    }
    int id = PIP_PIPID_ANY;
    PT_OK(pt_spawn("task_plain", &id, "ret", "9", NULL));
    PT_CHECK(id == 0);
    PT_CHECK_EXIT(pt_wait(id), 9);
    bad_files_remove(&b);
    PT_OK(pip_fin());
}

PT_CASE(tls_task_without_root_reserve_is_elibexec)
{
    /* This root has no __thread variables, so no room for task_tls's TLS
     * (thread mode); process mode: the task's own loader sets up its TLS. */
    pt_init(2);
    int id = PIP_PIPID_ANY;
    if (pt_is_process_mode()) {
        pt_shared_t *sh = pt_shared_new(1);
        PT_OK(pt_spawn("task_tls", &id, pt_ptr_arg(sh), "0", NULL));
        PT_CHECK_EXIT(pt_wait(id), 0);
    } else {
        PT_CHECK_ERR(pt_spawn("task_tls", &id, "0x0", "0", NULL), ELIBEXEC);
    }
    PT_OK(pip_fin());
}

PT_CASE(pipid_in_use_is_ebusy)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    int id = 1;
    PT_OK(pt_spawn("task_plain", &id, "waitfd", g.rfd_arg, NULL));
    id = 1;
    PT_CHECK_ERR(pt_spawn("task_plain", &id, "ret", "0", NULL), EBUSY);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(1), 0);
    PT_OK(pip_fin());
}

PT_CASE(bad_program_is_einval)
{
    pt_init(2);
    pip_spawn_program_t prog;
    int id = PIP_PIPID_ANY;
    pip_spawn_from_main(&prog, NULL, NULL, NULL, NULL, NULL);
    PT_CHECK_ERR(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), EINVAL);
    char *argv[] = {"", NULL};
    pip_spawn_from_main(&prog, "", argv, NULL, NULL, NULL);
    id = PIP_PIPID_ANY;
    PT_CHECK_ERR(pip_task_spawn(&prog, PIP_CPUCORE_ASIS, 0, &id, NULL), EINVAL);
    id = PIP_PIPID_ANY;
    PT_CHECK_ERR(pip_task_spawn(NULL, PIP_CPUCORE_ASIS, 0, &id, NULL), EINVAL);
    PT_OK(pip_fin());
}

PT_CASE(bad_pipid_is_einval)
{
    pt_init(2);
    int bad[] = {-1, 2, 1000, PIP_PIPID_ROOT, PIP_PIPID_MYSELF, PIP_PIPID_NULL};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int id = bad[i];
        int rc = pt_spawn("task_nop", &id, NULL);
        PT_CHECK_MSG(rc == EINVAL, "pipid %d: %d (%s), expected EINVAL", bad[i],
                     rc, pt_errname(rc));
    }
    PT_OK(pip_fin());
}

PT_CASE(bad_coreno_is_einval)
{
    pt_init(2);
    uint32_t bad[] = {
        PIP_CPUCORE_ABS | PIP_CPUCORE_CORENO_MAX, /* no such core */
        PIP_CPUCORE_ABS | CPU_SETSIZE,            /* beyond any cpu_set_t */
        8U << PIP_CPUCORE_FLAG_SHIFT,             /* unknown flag */
        PIP_CPUCORE_ASIS | PIP_CPUCORE_ABS,       /* both flags */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int id = PIP_PIPID_ANY;
        int rc = pt_spawn_core("task_nop", bad[i], &id, NULL);
        PT_CHECK_MSG(rc == EINVAL, "coreno 0x%x: %d (%s), expected EINVAL",
                     bad[i], rc, pt_errname(rc));
    }
    PT_OK(pip_fin());
}

PT_CASE(more_tasks_than_ntasks_fails)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(2);
    int a = PIP_PIPID_ANY, b = PIP_PIPID_ANY, c = PIP_PIPID_ANY;
    PT_OK(pt_spawn("task_plain", &a, "waitfd", g.rfd_arg, NULL));
    PT_OK(pt_spawn("task_plain", &b, "waitfd", g.rfd_arg, NULL));
    char *tmp = pt_tmpfile("third");
    unlink(tmp);
    int rc = pt_spawn("task_plain", &c, "touch", tmp, NULL);
    PT_CHECK_MSG(rc != 0, "third spawn in a root for 2 tasks succeeded");
    pt_gate_open(&g, 2);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK_EXIT(pt_wait(b), 0);
    PT_CHECK_MSG(access(tmp, F_OK) != 0, "the refused task ran");
    PT_OK(pip_fin());
}

PT_CASE(check_pie_classifies_files)
{
    bad_files_t b;
    bad_files_make(&b);
    /* pip_check_pie needs no pip_init. */
    PT_OK(pip_check_pie(pt_path("task_nop"), 0));
    PT_OK(pip_check_pie(pt_path("task_api"), 0));
    PT_OK(pip_check_pie(pt_path("task_tls"), 0));
    PT_CHECK_ERR(pip_check_pie(b.missing, 0), ENOENT);
    PT_CHECK_ERR(pip_check_pie(b.dir, 0), EACCES);
    PT_CHECK_ERR(pip_check_pie(b.noexec, 0), EACCES);
    PT_CHECK_ERR(pip_check_pie(b.script, 0), ELIBBAD);
    PT_CHECK_ERR(pip_check_pie(b.garbage, 0), ELIBBAD);
    PT_CHECK_ERR(pip_check_pie(pt_path("task_nopie"), 0), ELIBEXEC);
    PT_OK(pip_check_pie(pt_path("task_nordyn"), 0));
    /* main from glibc's _start (pip_start.h: x86-64 and aarch64) */
    PT_OK(pip_check_pie(pt_path("task_nordyn_stripped"), 0));
    bad_files_remove(&b);
}

/* Run pip_check_pie(path, verbose) with stderr captured into a file. */
static char *check_pie_stderr(const char *path, int verbose, int *rc)
{
    char *log = pt_tmpfile("stderr");
    int fd = open(log, O_WRONLY | O_TRUNC);
    int saved = dup(2);
    PT_CHECK(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, 2);
    *rc = pip_check_pie(path, verbose);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    char *text = pt_read_file(log);
    unlink(log);
    return text;
}

PT_CASE(check_pie_verbose_says_why_in_one_line)
{
    bad_files_t b;
    bad_files_make(&b);
    char *bad[] = {b.missing, b.dir, b.script, pt_path("task_nopie")};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int rc;
        char *text = check_pie_stderr(bad[i], 1, &rc);
        PT_CHECK(rc != 0);
        PT_CHECK_MSG(strlen(text) > 0 && th_count(text, "\n") == 1,
                     "verbose check of %s printed: '%s'", bad[i], text);
        text = check_pie_stderr(bad[i], 0, &rc);
        PT_CHECK_MSG(strlen(text) == 0, "quiet check of %s printed: '%s'",
                     bad[i], text);
    }
    int rc;
    char *text = check_pie_stderr(pt_path("task_nop"), 1, &rc);
    PT_CHECK_MSG(rc == 0, "verbose check of task_nop: %d, said '%s'", rc, text);
    bad_files_remove(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spawn_and_wait_nop),
        cmocka_unit_test(spawn_gives_requested_pipid),
        cmocka_unit_test(spawn_any_gives_distinct_pipids),
        cmocka_unit_test(argv_reaches_task),
        cmocka_unit_test(null_envv_gives_root_environment),
        cmocka_unit_test(given_envv_replaces_environment),
        cmocka_unit_test(prog_null_uses_argv0),
        cmocka_unit_test(start_function_gets_its_argument),
        cmocka_unit_test(old_spawn_form_works),
        cmocka_unit_test(stop_on_start_stops_task_before_main),
        cmocka_unit_test(spawn_without_init_is_eperm),
        cmocka_unit_test(missing_file_is_enoent),
        cmocka_unit_test(directory_and_unexecutable_are_eacces),
        cmocka_unit_test(non_elf_is_elibbad),
        cmocka_unit_test(non_pie_is_elibexec),
        cmocka_unit_test(pie_without_rdynamic_runs),
        cmocka_unit_test(unexported_start_functions_run),
        cmocka_unit_test(static_start_function_runs),
        cmocka_unit_test(stripped_without_rdynamic_is_enoexec),
        cmocka_unit_test(ns_preload_comes_first),
        cmocka_unit_test(without_ns_preload_nothing_comes_first),
        cmocka_unit_test(missing_ns_preload_is_elibacc),
        cmocka_unit_test(unknown_start_function_is_enoexec),
        cmocka_unit_test(loader_failures_leave_library_usable),
        cmocka_unit_test(tls_task_without_root_reserve_is_elibexec),
        cmocka_unit_test(pipid_in_use_is_ebusy),
        cmocka_unit_test(bad_program_is_einval),
        cmocka_unit_test(bad_pipid_is_einval),
        cmocka_unit_test(bad_coreno_is_einval),
        cmocka_unit_test(more_tasks_than_ntasks_fails),
        cmocka_unit_test(check_pie_classifies_files),
        cmocka_unit_test(check_pie_verbose_says_why_in_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
