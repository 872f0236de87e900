/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_signal.c: pip_kill, pip_kill_all_tasks, pip_sigmask,
 * pip_signal_wait, and per-task signal handlers in process mode.
 */
#include "pt_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

PT_CASE(kill_sigkill_ends_task)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(2);
    /* SIGKILL to a thread-mode task would end the whole process. */
    pt_require_process_mode();
    int a = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, NULL);
    PT_OK(pip_kill(a, SIGKILL));
    int st = pt_wait(a);
    PT_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "status 0x%x", st);
    PT_OK(pip_fin());
}

PT_CASE(kill_all_tasks_ends_every_task)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    pt_require_process_mode();
    int ids[3];
    for (int i = 0; i < 3; i++)
        ids[i] = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, NULL);
    PT_OK(pip_kill_all_tasks());
    for (int i = 0; i < 3; i++) {
        int st = pt_wait(ids[i]);
        PT_CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                     "task %d status 0x%x", ids[i], st);
    }
    PT_OK(pip_fin());
}

/*
 * Does /proc/self/task/TID/syscall show a thread waiting in sigwait() as
 * in rt_sigtimedwait?  The kernel's does; under an emulator such as
 * qemu-user it shows the host's system call instead.  Thread-mode
 * pip_kill() reads it to tell a task waiting for a signal from one that
 * would die of it.
 */
static volatile long probe_tid;

static void *probe_waiter(void *arg)
{
    sigset_t *set = arg;
    int sig;
    probe_tid = syscall(SYS_gettid);
    (void)sigwait(set, &sig);
    return NULL;
}

static int proc_shows_sigwait(void)
{
    sigset_t set, old;
    pthread_t th;
    int found = 0;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    if (pthread_sigmask(SIG_BLOCK, &set, &old) != 0)
        return 0;
    probe_tid = 0;
    if (pthread_create(&th, NULL, probe_waiter, &set) != 0)
        return 0;
    for (int i = 0; i < 400 && !found; i++) {
        char path[64], buf[64] = "";
        usleep(5000);
        if (probe_tid == 0)
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall",
                 (long)probe_tid);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            break;
        if (fgets(buf, sizeof(buf), f) != NULL &&
            strtol(buf, NULL, 10) == SYS_rt_sigtimedwait)
            found = 1;
        fclose(f);
    }
    (void)pthread_kill(th, SIGUSR2);
    (void)pthread_join(th, NULL);
    (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    return found;
}

PT_CASE(signal_wait_receives_pip_kill)
{
    pt_shared_t *sh = pt_shared_new(1);
    /* In thread mode the signal must reach the task's thread, not us. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    PT_OK(pip_sigmask(SIG_BLOCK, &set, NULL));
    if (!proc_shows_sigwait())
        pt_skip("/proc/TID/syscall does not show a thread in sigwait (an "
                "emulator?): thread-mode pip_kill cannot see a task's wait");
    pt_init(2);
    int a = PT_SPAWN("task_api", "sigwait", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    PT_CHECK(sh->done == 0);
    PT_OK(pip_kill(a, SIGUSR1));
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK(sh->done == 1);
    /* The signal went to the task, not to the root. */
    sigset_t pending;
    sigpending(&pending);
    PT_CHECK(!sigismember(&pending, SIGUSR1));
    PT_OK(pip_fin());
}

PT_CASE(root_signal_wait_receives_its_own_kill)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    pt_init(2);
    PT_OK(pip_sigmask(SIG_BLOCK, &set, NULL));
    PT_OK(pip_kill(PIP_PIPID_ROOT, SIGUSR2));
    PT_OK(pip_signal_wait(SIGUSR2));
    PT_OK(pip_kill(PIP_PIPID_MYSELF, 0));
    PT_OK(pip_fin());
}

PT_CASE(sigmask_returns_old_mask)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    PT_OK(pip_sigmask(SIG_BLOCK, &set, NULL));
    PT_OK(pip_sigmask(SIG_UNBLOCK, &set, &old));
    PT_CHECK(sigismember(&old, SIGUSR2) == 1);
    PT_OK(pip_sigmask(SIG_SETMASK, NULL, &old));
    PT_CHECK(sigismember(&old, SIGUSR2) == 0);
    PT_CHECK_ERR(pip_sigmask(12345, &set, NULL), EINVAL);
}

static volatile sig_atomic_t root_handler_ran;

static void root_handler(int sig)
{
    (void)sig;
    root_handler_ran = 1;
}

PT_CASE(process_mode_task_has_own_handlers)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    pt_require_process_mode();
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = root_handler;
    sigemptyset(&sa.sa_mask);
    PT_CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    int a = PT_SPAWN("task_api", "handler", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    PT_OK(pip_kill(a, SIGUSR2));
    PT_CHECK_EXIT(pt_wait(a), 0);
    /* The task installed its own handler; ours must not have run. */
    PT_CHECK(root_handler_ran == 0);
    PT_OK(pip_fin());
}

/*
 * A private-image task's mmap calls wait for the root's placer thread
 * (pip_region.c).  A handled signal that arrives before the placer takes
 * such a call interrupts the wait: the loader's mmap then failed with
 * EINTR ("failed to map segment from shared object", status 127; the CI
 * failure of handled_signal_does_not_end_the_task).  The root floods each
 * task with a handled SIGUSR1 from its spawn until its main has run.
 */
static volatile int storm_hits;

static void on_storm(int sig)
{
    (void)sig;
    __atomic_add_fetch(&storm_hits, 1, __ATOMIC_RELAXED);
}

static void storm_handler(int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_storm;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    PT_CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
}

/* SIGUSR1 to task a, one every PT_STORM_GAP_NS (10,000 a second), until
 * *flag is set or `file` exists (the task got there), PT_WAIT_SECONDS
 * have passed (a busy machine: the task then ends without more), or the
 * task ended: its status then, else -1.  Sent back to back, the signals
 * interrupt each forwarded call again before the placer thread (which
 * needs a CPU too) takes it, and the task makes no progress: a limit
 * libpip(7) states. */
#define PT_STORM_GAP_NS 100000L

static int storm(int a, volatile int *flag, const char *file)
{
    double end = pt_now() + PT_WAIT_SECONDS;
    const struct timespec gap = {0, PT_STORM_GAP_NS};
    int st = 0;
    for (;;) {
        (void)pip_kill(a, SIGUSR1);
        (void)nanosleep(&gap, NULL);
        if ((flag != NULL && __atomic_load_n(flag, __ATOMIC_ACQUIRE)) ||
            (file != NULL && access(file, F_OK) == 0))
            return -1;
        if (pip_trywait(a, &st) == 0)
            return st;
        if (pt_now() >= end)
            return -1; /* enough signals: the caller waits for its end */
    }
}

#define PT_STORM_ROUNDS 30

/* task_plain: no libpip, no call that maps memory once at main (a handler
 * without SA_RESTART would fail one: see libpip(7), SIGNALS). */
PT_CASE(start_up_survives_a_signal_storm)
{
    char *file = pt_tmpfile("storm");
    storm_handler(0); /* no SA_RESTART: as the CI case's handler */
    storm_hits = 0;
    pt_init(2);
    for (int i = 0; i < PT_STORM_ROUNDS; i++) {
        unlink(file);
        int a = PT_SPAWN("task_plain", "touch", file, NULL);
        int st = storm(a, NULL, file);
        if (st == -1)
            st = pt_wait(a);
        PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                     "round %d: status 0x%x (127: its loader failed)", i, st);
    }
    PT_CHECK(storm_hits > 0);
    PT_OK(pip_fin());
}

/*
 * A program's own mmap, munmap and mremap (and malloc's) under a flood of
 * a handled signal, with and without SA_RESTART: an interrupted forwarded
 * call restarts as a process's own would never fail, and the placer maps
 * nothing the task does not learn about (the same addresses come back).
 */
static void mmaps_under_flood(void)
{
    const int flags[] = {0, SA_RESTART};
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    /* In thread mode a task's mmap is the kernel's own call (under
     * qemu-user the emulator's, which restarts it on every signal of the
     * flood and never completes it). */
    pt_require_process_mode();
    for (int i = 0; i < 2; i++) {
        storm_handler(flags[i]);
        storm_hits = 0;
        sh->done = 0;
        sh->rounds = 3000;
        /* Addresses are the placer's only for a private image (elsewhere
         * the kernel's, or qemu's, shared with the root's threads). */
        const char *img = getenv("PIP_IMAGE");
        sh->value[0] = pt_is_process_mode() &&
                       (img == NULL || strcasecmp(img, "namespace") != 0);
        int a = PT_SPAWN("task_api", "mmaps", pt_ptr_arg(sh), NULL);
        int st = storm(a, &sh->done, NULL);
        if (st == -1)
            st = pt_wait(a);
        PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                     "flags 0x%x: status 0x%x (task_api's code names the "
                     "failed call)",
                     flags[i], st);
        PT_CHECK(storm_hits > 0);
    }
    PT_OK(pip_fin());
}

PT_CASE(own_mmaps_survive_a_signal_flood)
{
    mmaps_under_flood();
}

/*
 * Other calls keep their EINTR: a task's own handler without SA_RESTART
 * interrupts its read() of an empty pipe, and sigaction reports the
 * handler and flags the task gave.
 */
PT_CASE(handler_without_sa_restart_still_interrupts_read)
{
    pt_shared_t *sh = pt_shared_new(1);
    pt_init(2);
    int a = PT_SPAWN("task_api", "readintr", pt_ptr_arg(sh), NULL);
    PT_CHECK(pt_wait_ge(&sh->ready, 1) == 0);
    int st = storm(a, &sh->done, NULL);
    if (st == -1)
        st = pt_wait(a);
    PT_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
    PT_OK(pip_fin());
}

PT_CASE(kill_bad_arguments)
{
    pt_gate_t g;
    pt_gate_init(&g);
    pt_init(3);
    int a = PT_SPAWN("task_plain", "waitfd", g.rfd_arg, NULL);
    PT_CHECK_ERR(pip_kill(a, -1), EINVAL);
    PT_CHECK_ERR(pip_kill(a, 4096), EINVAL);
    /* Signal 0: only checks the task exists. */
    PT_OK(pip_kill(a, 0));
    int other = a == 0 ? 1 : 0;
    /* As PiP: ESRCH for a pipid with no task. */
    PT_CHECK_ERR(pip_kill(other, 0), ESRCH);
    int rc = pip_kill(100, 0);
    PT_CHECK_MSG(rc == ERANGE || rc == EINVAL, "pip_kill(100): %d (%s)", rc,
                 pt_errname(rc));
    pt_gate_open(&g, 1);
    PT_CHECK_EXIT(pt_wait(a), 0);
    PT_CHECK_ERR(pip_kill(a, 0), ESRCH);
    PT_OK(pip_fin());
}

PT_CASE(kill_without_init_is_eperm)
{
    PT_CHECK_ERR(pip_kill(0, 0), EPERM);
    PT_CHECK_ERR(pip_kill_all_tasks(), EPERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kill_sigkill_ends_task),
        cmocka_unit_test(kill_all_tasks_ends_every_task),
        cmocka_unit_test(signal_wait_receives_pip_kill),
        cmocka_unit_test(root_signal_wait_receives_its_own_kill),
        cmocka_unit_test(sigmask_returns_old_mask),
        cmocka_unit_test(process_mode_task_has_own_handlers),
        cmocka_unit_test(start_up_survives_a_signal_storm),
        cmocka_unit_test(own_mmaps_survive_a_signal_flood),
        cmocka_unit_test(handler_without_sa_restart_still_interrupts_read),
        cmocka_unit_test(kill_bad_arguments),
        cmocka_unit_test(kill_without_init_is_eperm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
