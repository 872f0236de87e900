/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_compat.c: PiP 2.4.1 behaviour that PiP programs rely on, and the
 * defects that crashed or hung them: constructors that print, fork() in a
 * task, fatal signals sent to a thread-mode task (they end only that task),
 * pip_kill(SIGKILL) of a task blocked in read() (stress, fresh roots), and
 * the helpers of PiP's pip.h.  Runs in both modes.
 */
#include "pt_util.h"

#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>

/* Code written for PiP takes its v2 paths with this header. */
#if !defined(PIP_VERSION_MAJOR) || PIP_VERSION_MAJOR != 2 ||                   \
    !defined(PIP_VERSION_MINOR) || !defined(PIP_HAVE_LDPIP)
#error "pip.h must present itself as PiP 2.4"
#endif

/* Point fd `fd` at a fresh file; returns its path. */
static char *fd_to_file(int fd, const char *tag)
{
    char *file = pt_tmpfile(tag);
    int f = open(file, O_WRONLY | O_TRUNC);
    PT_CHECK(f >= 0);
    fflush(NULL);
    PT_CHECK(dup2(f, fd) == fd);
    close(f);
    return file;
}

/* A constructor and a destructor that print, in several tasks. */
PT_CASE(constructors_and_destructors_print)
{
    int saved = dup(2);
    char *out = fd_to_file(1, "ctor_out");
    char *err = fd_to_file(2, "ctor_err");
    pt_init(3);
    int a = PT_SPAWN("task_compat", "ret", "3", NULL);
    int b = PT_SPAWN("task_compat", "ret", "4", NULL);
    PT_CHECK_EXIT(pt_wait(a), 3);
    PT_CHECK_EXIT(pt_wait(b), 4);
    /* Reused image: the constructor runs again for the next task. */
    int c = PT_SPAWN("task_compat", "ret", "5", NULL);
    PT_CHECK_EXIT(pt_wait(c), 5);
    PT_OK(pip_fin());
    fflush(NULL);
    dup2(saved, 2); /* failures are told on the real stderr */
    char *o = pt_read_file(out), *e = pt_read_file(err);
    PT_CHECK_MSG(th_count(o, "ctor-out ret\n") == 3, "stdout: '%s'", o);
    PT_CHECK_MSG(th_count(o, "dtor-out\n") == 3, "stdout: '%s'", o);
    PT_CHECK_MSG(th_count(e, "ctor-err\n") == 3, "stderr: '%s'", e);
}

static void check_fork(const char *how)
{
    char *out = fd_to_file(1, "fork_out");
    pt_init(2);
    int a = PT_SPAWN("task_compat", how, "7", NULL);
    int st = pt_wait(a);
    PT_OK(pip_fin());
    char *o = pt_read_file(out);
    /* 1: the child ended with another status; 2: it never ended. */
    PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                 "%s: task status 0x%x, output '%s'", how, st, o);
    PT_CHECK_MSG(th_count(o, "child 7\n") == 1 && th_count(o, "parent 0\n"),
                 "%s: output '%s'", how, o);
}

PT_CASE(forked_child_that_returns_ends)
{
    check_fork("fork-return");
}

PT_CASE(forked_child_that_exits_ends)
{
    check_fork("fork-exit");
}

/* Every signal whose default action terminates a process. */
static const int pt_fatal_sigs[] = {
    SIGHUP,  SIGINT,    SIGQUIT, SIGILL,  SIGTRAP, SIGABRT, SIGBUS,   SIGFPE,
    SIGKILL, SIGUSR1,   SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM,  SIGXCPU,
    SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,  SIGSTKFLT};

/*
 * pip_kill() of a task with a fatal signal ends that task only: another
 * task and the root go on, and pip_wait reports the signal.
 */
PT_CASE(fatal_signal_ends_only_that_task)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    int other = PT_SPAWN("task_compat", "waitfd", g.rfd_arg, NULL);
    for (size_t i = 0; i < sizeof(pt_fatal_sigs) / sizeof(int); i++) {
        int sig = pt_fatal_sigs[i];
        int a = PT_SPAWN("task_compat", "waitfd", g.rfd_arg, NULL);
        PT_OK(pip_kill(a, sig));
        int st = pt_wait(a);
        PT_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sig,
                     "signal %d (%s): status 0x%x", sig, strsignal(sig), st);
        PT_OK(pip_kill(other, 0));
    }
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(other), 0);
    PT_OK(pip_fin());
}

/* The case: a task sends SIGTERM or SIGINT to itself. */
PT_CASE(task_killing_itself_ends_only_itself)
{
    const int sigs[] = {SIGTERM, SIGINT};
    pt_init(2);
    for (int i = 0; i < 2; i++) {
        int a = PT_SPAWN("task_compat", "selfkill", pt_int_arg(sigs[i]), NULL);
        int st = pt_wait(a);
        PT_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i],
                     "self-kill %d: status 0x%x", sigs[i], st);
    }
    PT_OK(pip_fin());
}

/*
 * A signal with a handler does not end the task (the root's handler: in
 * thread mode handlers are shared; a process-mode task starts with a copy).
 */
static volatile sig_atomic_t usr1_seen;
static void on_usr1(int sig)
{
    (void)sig;
    usr1_seen = 1;
}

PT_CASE(handled_signal_does_not_end_the_task)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(2);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    PT_CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
    int a = PT_SPAWN("task_compat", "waitfd", g.rfd_arg, NULL);
    PT_OK(pip_kill(a, SIGUSR1));
    double end = pt_now() + PT_WAIT_SECONDS;
    while (!usr1_seen && pt_now() < end)
        usleep(1000);
    PT_CHECK(usr1_seen == 1);
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_OK(pip_fin());
}

PT_CASE(kill_all_child_tasks_ends_every_task)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    int ids[3];
    for (int i = 0; i < 3; i++)
        ids[i] = PT_SPAWN("task_compat", "waitfd", g.rfd_arg, NULL);
    PT_OK(pip_kill_all_child_tasks());
    for (int i = 0; i < 3; i++) {
        int st = pt_wait(ids[i]);
        PT_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                     "task %d status 0x%x", ids[i], st);
    }
    PT_OK(pip_fin());
}

/* In a forked child: with first, become a root of 2 tasks; spawn the main
 * of av[0] with argv av.  The task's PiP id; _exit(2) when pip_init
 * fails, _exit(fail) when the spawn does. */
static int child_spawn(char **av, int first, int fail)
{
    int n = 2, id = PIP_PIPID_ANY;
    pip_spawn_program_t p;
    if (first && pip_init(NULL, &n, NULL, 0) != 0)
        _exit(2);
    pip_spawn_from_main(&p, av[0], av, NULL, NULL);
    if (pip_task_spawn(&p, PIP_CPUCORE_ASIS, 0, &id, NULL) != 0)
        _exit(fail);
    return id;
}

/*
 * pip_kill(SIGKILL) of a task blocked in read(), then pip_wait, in 150
 * fresh roots one after the other (it hung once in CI).  Each root has
 * 10 s; a hang fails the case with the iteration.
 */
#define PT_STRESS_ROUNDS 150
PT_CASE(sigkill_of_blocked_task_never_hangs)
{
    /* Under qemu-user, now and then (about 1 run in 20 on a loaded
     * machine) the fresh task's thread reads a tid word of 0 right after
     * pthread_create and pip_kill's tgkill then answers ESRCH; not seen
     * natively, where this case runs in both modes. */
    if (getenv("TH_EXEC_WRAPPER") != NULL)
        pt_skip("under an emulator (TH_EXEC_WRAPPER): tid word unreliable");
    char *task = pt_path("task_compat");
    for (int i = 0; i < PT_STRESS_ROUNDS; i++) {
        int fds[2];
        PT_CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t c = fork();
        PT_CHECK(c >= 0);
        if (c == 0) {
            int st = 0;
            char fd[16];
            snprintf(fd, sizeof(fd), "%d", fds[0]);
            char *av[] = {task, "waitfd", fd, NULL};
            int id = child_spawn(av, 1, 3);
            int rc = pip_kill(id, SIGKILL);
            if (rc != 0) {
                fprintf(stderr, "round %d: pip_kill: %s\n", i, strerror(rc));
                _exit(4);
            }
            if ((rc = pip_wait(id, &st)) != 0) {
                fprintf(stderr, "round %d: pip_wait: %s\n", i, strerror(rc));
                _exit(5);
            }
            if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
                _exit(6);
            _exit(pip_fin() == 0 ? 0 : 7);
        }
        close(fds[0]);
        close(fds[1]);
        int st = 0;
        double end = pt_now() + 10;
        pid_t p;
        while ((p = waitpid(c, &st, WNOHANG)) == 0 && pt_now() < end)
            usleep(1000);
        if (p == 0) {
            kill(c, SIGKILL);
            waitpid(c, &st, 0);
            pt_fail(__FILE__, __LINE__, "round %d: the root hung", i);
        }
        PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                     "round %d: root status 0x%x", i, st);
    }
}

/*
 * The root's first thread gets a TID equal to the upper half of a pointer
 * at the start of its struct pthread (0x00007fxx: a TID of 32512..32767):
 * libpip must still find glibc's TID field, or pip_kill of a thread-mode
 * task fails with ESRCH.  The PID is chosen through ns_last_pid (root only;
 * the case skips where it cannot be written or another process took the
 * number).
 */
static void *pt_nop_thread(void *arg)
{
    return arg;
}

PT_CASE(tid_equal_to_a_pointer_half_is_found)
{
    pthread_t th;
    PT_CHECK(pthread_create(&th, NULL, pt_nop_thread, NULL) == 0);
    pthread_join(th, NULL);
    long hi = (long)((uintptr_t)th >> 32);
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    long pid_max = 0;
    if (f != NULL) {
        if (fscanf(f, "%ld", &pid_max) != 1)
            pid_max = 0;
        fclose(f);
    }
    if (hi < 300 || hi >= pid_max) {
        printf("SKIP: pointer half %ld is no possible PID (pid_max %ld)\n", hi,
               pid_max);
        _exit(TH_EXIT_SKIP);
    }
    char *task = pt_path("task_compat");
    for (int attempt = 0; attempt < 20; attempt++) {
        int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
        char num[32];
        int len = snprintf(num, sizeof(num), "%ld", hi - 2);
        if (fd < 0 || write(fd, num, (size_t)len) != len) {
            printf("SKIP: cannot write ns_last_pid: %s\n", strerror(errno));
            _exit(TH_EXIT_SKIP);
        }
        close(fd);
        fflush(NULL);
        pid_t c = fork(); /* PID hi - 1: its first thread gets hi */
        PT_CHECK(c >= 0);
        if (c == 0) {
            if (getpid() != hi - 1)
                _exit(50); /* another process took the number: again */
            int st = 0, rc;
            char *av[] = {task, "ret", "0", NULL};
            int id = child_spawn(av, 1, 3);
            /* ended or not: the TID word must say which, and pip_wait too */
            if ((rc = pip_wait(id, &st)) != 0) {
                fprintf(stderr, "pip_wait: %s\n", strerror(rc));
                _exit(5);
            }
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                _exit(6);
            int fds[2];
            char fdarg[16];
            if (pipe(fds) != 0)
                _exit(10);
            snprintf(fdarg, sizeof(fdarg), "%d", fds[0]);
            av[1] = "waitfd";
            av[2] = fdarg;
            id = child_spawn(av, 0, 7);
            if ((rc = pip_kill(id, SIGKILL)) != 0) {
                fprintf(stderr, "pip_kill: %s\n", strerror(rc));
                _exit(4);
            }
            if (pip_wait(id, &st) != 0 || !WIFSIGNALED(st) ||
                WTERMSIG(st) != SIGKILL)
                _exit(8);
            _exit(pip_fin() == 0 ? 0 : 9);
        }
        int st = 0;
        PT_CHECK(waitpid(c, &st, 0) == c);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 50)
            continue;
        PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                     "root with PID %ld: status 0x%x", hi - 1, st);
        return;
    }
    printf("SKIP: PID %ld taken by another process 20 times\n", hi - 1);
    _exit(TH_EXIT_SKIP);
}

/* PiP 2.4.1's answers of pip_trywait / pip_wait / pip_kill in every case. */
PT_CASE(wait_and_kill_codes_match_pip)
{
    pt_gate_t g;
    pt_gate_init(&g);
    int st;
    PT_CHECK_ERR(pip_trywait(0, &st), EPERM); /* not initialised */
    pt_init(3);
    int a = PT_SPAWN("task_compat", "waitfd", g.rfd_arg, NULL);
    PT_CHECK_ERR(pip_trywait(a, &st), ECHILD);     /* running */
    PT_CHECK_ERR(pip_trywait(a + 1, &st), ECHILD); /* never spawned */
    PT_CHECK_ERR(pip_trywait(PIP_PIPID_ROOT, &st), EDEADLK);
    PT_CHECK_ERR(pip_trywait(PIP_PIPID_MYSELF, &st), EDEADLK);
    PT_CHECK_ERR(pip_trywait(PIP_PIPID_ANY, &st), EINVAL);
    PT_CHECK_ERR(pip_trywait(PIP_PIPID_NULL, &st), EINVAL);
    PT_CHECK_ERR(pip_trywait(-5, &st), ERANGE);
    PT_CHECK_ERR(pip_trywait(3, &st), ERANGE);
    PT_CHECK_ERR(pip_kill(PIP_PIPID_ANY, 0), EINVAL);
    PT_CHECK_ERR(pip_kill(3, 0), ERANGE);
    PT_CHECK_ERR(pip_kill(a + 1, SIGTERM), ESRCH);
    PT_CHECK_ERR(pip_kill(a, NSIG), EINVAL);
    int id = PIP_PIPID_NULL;
    PT_CHECK_ERR(pip_trywait_any(&id, &st), ECHILD); /* none ended yet */
    pt_gate_open(&g, 1);
    double end = pt_now() + PT_WAIT_SECONDS;
    int rc;
    while ((rc = pip_trywait(a, &st)) == ECHILD && pt_now() < end)
        usleep(1000);
    PT_OK(rc);
    PT_CHECK_EXIT(st, 0);
    PT_CHECK_ERR(pip_trywait(a, &st), ECHILD);       /* reaped */
    PT_CHECK_ERR(pip_trywait_any(&id, &st), ECHILD); /* none left */
    PT_CHECK_ERR(pip_wait_any(&id, &st), ECHILD);
    PT_CHECK_ERR(pip_kill(a, 0), ESRCH);
    PT_OK(pip_fin());
}

/* The helpers of PiP's pip.h. */
PT_CASE(pip_h_helpers_work)
{
    pt_init(2);
    void *h = pip_dlopen("libm.so.6", RTLD_LAZY);
    PT_CHECK_MSG(h != NULL, "pip_dlopen: %s", pip_dlerror());
    double (*cosf_)(double) = (double (*)(double))pip_dlsym(h, "cos");
    PT_CHECK(cosf_ != NULL && cosf_(0.0) == 1.0);
    PT_CHECK(pip_dlsym_unsafe(h, "sin") != NULL);
    long lmid = -1;
    PT_CHECK(pip_dlinfo(h, RTLD_DI_LMID, &lmid) == 0 && lmid == LM_ID_BASE);
    PT_CHECK(pip_dlclose(h) == 0);
    /* The loader lock is recursive (PiP's is). */
    pip_libc_lock();
    pip_libc_lock();
    pip_libc_unlock();
    pip_libc_unlock();
    pip_universal_lock();
    pip_universal_unlock();
    char *m = pip_malloc(100);
    PT_CHECK(m != NULL && pip_malloc_usable_size(m) >= 100);
    m = pip_realloc(m, 200);
    PT_CHECK(m != NULL);
    pip_free(m);
    void *al = NULL;
    PT_CHECK(pip_posix_memalign(&al, 64, 64) == 0 && ((uintptr_t)al & 63) == 0);
    pip_free(al);
    pip_free(pip_calloc(2, 8));
    /* PiP 2.4's format "[TID(R):R]"; it returns the room left. */
    char id[64], want[64];
    snprintf(want, sizeof(want), "[%d(R):R]", (int)syscall(SYS_gettid));
    PT_CHECK(pip_idstr(id, sizeof(id)) == sizeof(id) - strlen(want));
    PT_CHECK_MSG(strcmp(id, want) == 0, "pip_idstr: '%s', want '%s'", id, want);
    PT_CHECK(pip_idstr(id, 4) == 0 && strlen(id) == 3);
    char *err = fd_to_file(2, "mesg");
    pip_info_mesg("info %d", 1);
    pip_warn_mesg("warn %d", 2);
    pip_err_mesg("err %d", 3);
    pip_info_fmesg(NULL, "fmesg %d", 4);
    pip_debug_info();
    char *e = pt_read_file(err);
    PT_CHECK_MSG(th_count(e, "PiP-INFO[") >= 3 && th_count(e, "(R):R] ") >= 5 &&
                     strstr(e, "] info 1\n") && strstr(e, "PiP-WARN[") &&
                     strstr(e, "] warn 2\n") && strstr(e, "PiP-ERR[") &&
                     strstr(e, "] err 3\n") && strstr(e, "] fmesg 4\n"),
                 "messages: '%s'", e);
    /* PiP 2.4's spawn helpers (no exp) and the later ones, by arity. */
    pip_spawn_program_t p;
    char *av[] = {pt_path("task_compat"), "ret", "6", NULL};
    int aux = 0;
    pip_spawn_from_main(&p, av[0], av, NULL, &aux);
    PT_CHECK(p.aux == &aux && p.exp == NULL && p.argv == av);
    pip_spawn_from_main(&p, av[0], av, NULL, &av, &aux);
    PT_CHECK(p.aux == &aux && p.exp == (void *)&av);
    pip_spawn_from_func(&p, av[0], "f", &aux, NULL, &aux);
    PT_CHECK(p.aux == &aux && p.exp == NULL && p.arg == &aux &&
             strcmp(p.funcname, "f") == 0);
    pip_spawn_from_func(&p, av[0], "f", NULL, NULL, &av, &aux);
    PT_CHECK(p.exp == (void *)&av && p.aux == &aux);
    PT_CHECK(PIP_CPUCORE_CORENO_MAX == (1U << 20));
    PT_OK(pip_fin());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constructors_and_destructors_print),
        cmocka_unit_test(forked_child_that_returns_ends),
        cmocka_unit_test(forked_child_that_exits_ends),
        cmocka_unit_test(fatal_signal_ends_only_that_task),
        cmocka_unit_test(task_killing_itself_ends_only_itself),
        cmocka_unit_test(handled_signal_does_not_end_the_task),
        cmocka_unit_test(kill_all_child_tasks_ends_every_task),
        cmocka_unit_test(sigkill_of_blocked_task_never_hangs),
        cmocka_unit_test(tid_equal_to_a_pointer_half_is_found),
        cmocka_unit_test(wait_and_kill_codes_match_pip),
        cmocka_unit_test(pip_h_helpers_work),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
