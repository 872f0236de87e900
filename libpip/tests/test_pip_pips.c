/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_pip_pips.c: pips lists the tasks of a running root (pip-exec with
 * task_block tasks, which announce "ready PID TID" and block on stdin until
 * the test writes one byte per task), filters them, drops reaped tasks,
 * signals the selected ones, and gives one-line errors for bad usage.  Run
 * once per mode (PIP_MODE from the harness).  No sleeps for
 * synchronisation: the tasks say when they run, the test says when they end.
 */
#include "pt_tool.h"

#include <poll.h>
#include <signal.h>
#include <time.h>

#include <pip/pip.h>

#define DEADLINE_S 60

static char *pips, *task, *pip_exec;
static int thread_mode;

struct root {
    pid_t pid;    /* pip-exec */
    int ctl, out; /* its stdin (write end), its stdout (read end) */
    int n;
    int tpid[8], ttid[8];
};

struct row {
    int root, pid, tid;
    char pipid[16], mode[16], state[16], prog[512];
};

static void wait_listed(const struct root *r, int n);

/*
 * Start pip-exec -n N task_block; return once every task said "ready" and
 * pips lists all of them.
 */
static void root_start(struct root *r, int n)
{
    int in[2], out[2];
    assert_int_equal(pipe2(in, O_CLOEXEC), 0);
    assert_int_equal(pipe2(out, O_CLOEXEC), 0);
    char nbuf[16];
    snprintf(nbuf, sizeof(nbuf), "%d", n);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        dup2(in[0], 0);
        dup2(out[1], 1);
        execl(pip_exec, pip_exec, "-n", nbuf, task, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    close(in[0]);
    close(out[1]);
    r->pid = pid;
    r->ctl = in[1];
    r->out = out[0];
    r->n = n;
    char buf[1024];
    size_t len = 0;
    int ready = 0;
    time_t end = time(NULL) + DEADLINE_S;
    while (ready < n) {
        struct pollfd p = {r->out, POLLIN, 0};
        int left = (int)(end - time(NULL));
        if (left <= 0 || poll(&p, 1, left * 1000) != 1)
            fail_msg("tasks did not announce themselves (%d of %d)", ready, n);
        ssize_t k = read(r->out, buf + len, sizeof(buf) - 1 - len);
        if (k <= 0)
            fail_msg("pip-exec ended before its tasks were ready");
        len += (size_t)k;
        buf[len] = '\0';
        char *nl;
        while ((nl = strchr(buf, '\n')) != NULL) {
            *nl = '\0';
            assert_true(ready < 8);
            assert_int_equal(
                sscanf(buf, "ready %d %d", &r->tpid[ready], &r->ttid[ready]),
                2);
            ready++;
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len + 1);
        }
    }
    wait_listed(r, n);
}

static int parse(const char *out, struct row *rows, int max);

/*
 * The root registers a task when pip_task_spawn() returns, which may be
 * after the task announced itself: wait until pips lists `n` tasks of the
 * root (polling pips, bounded by the deadline).
 */
static void wait_listed(const struct root *r, int n)
{
    char pid[16];
    snprintf(pid, sizeof(pid), "%d", (int)r->pid);
    time_t end = time(NULL) + DEADLINE_S;
    for (;;) {
        struct row rows[8];
        pt_run_t o = pt_run(NULL, pips, "-l", "-H", "-p", pid, NULL);
        int got = pt_exit_code(&o) == 0 ? parse(o.out, rows, 8) - 1 : 0;
        pt_run_free(&o);
        if (got == n)
            return;
        if (time(NULL) > end)
            fail_msg("pips lists %d tasks of root %s, want %d", got, pid, n);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void root_release(struct root *r, int k)
{
    for (int i = 0; i < k; i++)
        assert_int_equal(write(r->ctl, "x", 1), 1);
}

/* Wait for pip-exec (bounded); returns its status. */
static int root_wait(struct root *r)
{
    int st = -1;
    time_t end = time(NULL) + DEADLINE_S;
    for (;;) {
        pid_t p = waitpid(r->pid, &st, WNOHANG);
        if (p == r->pid)
            break;
        if (time(NULL) > end) {
            kill(-r->pid, SIGKILL);
            waitpid(r->pid, &st, 0);
            fail_msg("pip-exec did not end");
        }
        struct pollfd pf = {r->out, POLLIN, 0};
        char buf[256];
        /* Drain its stdout while waiting (and wake up now and then). */
        if (poll(&pf, 1, 20) == 1 && read(r->out, buf, sizeof(buf)) <= 0)
            pf.fd = -1;
    }
    close(r->ctl);
    close(r->out);
    kill(-r->pid, SIGKILL); /* leftovers of the group, if any */
    return st;
}

static char *num(long v)
{
    char *s = NULL;
    assert_true(asprintf(&s, "%ld", v) > 0);
    return s;
}

/* Parse pips' listing (header skipped); returns the number of rows. */
static int parse(const char *out, struct row *rows, int max)
{
    int n = 0;
    const char *line = out;
    if (strncmp(line, "    ROOT", 8) == 0)
        line = strchr(line, '\n') + 1;
    while (*line != '\0' && n < max) {
        struct row *w = &rows[n];
        assert_int_equal(sscanf(line, "%d %15s %d %d %15s %15s %511s", &w->root,
                                w->pipid, &w->pid, &w->tid, w->mode, w->state,
                                w->prog),
                         7);
        n++;
        line = strchr(line, '\n');
        assert_non_null(line);
        line++;
    }
    return n;
}

static void lists_the_tasks_of_a_running_root(void **state)
{
    (void)state;
    struct root r;
    root_start(&r, 3);
    pt_run_t o = pt_run(NULL, pips, "-l", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_non_null(strstr(o.out, "ROOT  PIPID      PID      TID MODE"));
    struct row rows[8];
    int n = parse(o.out, rows, 8);
    assert_int_equal(n, 4);
    assert_string_equal(rows[0].pipid, "root");
    assert_int_equal(rows[0].pid, r.pid);
    assert_int_equal(rows[0].root, r.pid);
    const char *want_mode = thread_mode ? "thread" : "process";
    int seen = 0;
    for (int i = 1; i < 4; i++) {
        struct row *w = &rows[i];
        assert_int_equal(w->root, r.pid);
        assert_string_equal(w->mode, want_mode);
        assert_int_equal(atoi(w->pipid), i - 1);
        seen |= 1 << atoi(w->pipid);
        const char *b = strrchr(w->prog, '/');
        assert_string_equal(b != NULL ? b + 1 : w->prog, "task_block");
        assert_true(strcmp(w->state, "sleeping") == 0 ||
                    strcmp(w->state, "running") == 0);
        /* PID and TID are what the task itself reported. */
        int match = 0;
        for (int k = 0; k < 3; k++)
            if (r.ttid[k] == w->tid && r.tpid[k] == w->pid)
                match = 1;
        assert_true(match);
        if (thread_mode)
            assert_int_equal(w->pid, r.pid);
        else
            assert_int_not_equal(w->pid, r.pid);
    }
    assert_int_equal(seen, 7);
    pt_run_free(&o);

    /* Unfiltered: our root is among all roots. */
    o = pt_run(NULL, pips, "-l", "-H", NULL);
    PT_EXPECT_EXIT(o, 0);
    char want[64];
    snprintf(want, sizeof(want), "%8d %6s %8d", (int)r.pid, "root", (int)r.pid);
    assert_non_null(strstr(o.out, want));
    pt_run_free(&o);

    /* Filters: one pipid; the program name; a task's PID selects its root. */
    o = pt_run(NULL, pips, "-l", "-H", "-p", num(r.pid), "-i", "1", NULL);
    PT_EXPECT_EXIT(o, 0);
    /* A root's row comes with its selected tasks. */
    assert_int_equal(parse(o.out, rows, 8), 2);
    assert_string_equal(rows[0].pipid, "root");
    assert_string_equal(rows[1].pipid, "1");
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-l", "-H", "-p", num(r.pid), "-n", "task_block",
               NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(parse(o.out, rows, 8), 4);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-l", "-H", "-p", num(r.ttid[2]), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(parse(o.out, rows, 8), 4);
    assert_int_equal(rows[0].pid, r.pid);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-l", "-p", num(r.pid), "-n", "no_such_prog", NULL);
    pt_expect_one_line_error(&o, 1, "pips", "no PiP root or task matches");
    pt_run_free(&o);

    /* Process mode: the registry (close-on-exec) is not held by tasks. */
    if (!thread_mode) {
        o = pt_run(NULL, "sh", "-c", "ls -l /proc/$0/fd/ 2>/dev/null",
                   num(r.tpid[0]), NULL);
        assert_null(strstr(o.out, "pip-registry"));
        pt_run_free(&o);
        char *rootfd = NULL;
        assert_true(asprintf(&rootfd, "%d", (int)r.pid) > 0);
        o = pt_run(NULL, "sh", "-c", "ls -l /proc/$0/fd/", rootfd, NULL);
        assert_non_null(strstr(o.out, "/memfd:pip-registry"));
        pt_run_free(&o);
    }

    root_release(&r, 3);
    int st = root_wait(&r);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    /* The root is gone, and so is its registry. */
    o = pt_run(NULL, pips, "-l", "-p", num(r.pid), NULL);
    pt_expect_one_line_error(&o, 1, "pips", "no PiP root or task matches");
    pt_run_free(&o);
}

static void reaped_tasks_leave_the_list(void **state)
{
    (void)state;
    struct root r;
    struct row rows[8];
    root_start(&r, 2);
    root_release(&r, 1);
    /* pip-exec reaps the task that got the byte: it leaves the list. */
    wait_listed(&r, 1);
    pt_run_t o = pt_run(NULL, pips, "-l", "-H", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(parse(o.out, rows, 8), 2);
    assert_string_equal(rows[0].pipid, "root");
    pt_run_free(&o);
    root_release(&r, 1);
    int st = root_wait(&r);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void signals_only_the_selected_task(void **state)
{
    (void)state;
    struct root r;
    root_start(&r, 2);
    pt_run_t o =
        pt_run(NULL, pips, "-s", "TERM", "-p", num(r.pid), "-i", "1", NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_string_equal(o.out, "");
    pt_run_free(&o);
    if (!thread_mode)
        root_release(&r, 1); /* task 0 ends normally */
    int st = root_wait(&r);
    if (thread_mode) {
        /* A fatal signal to a thread ends the whole process. */
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    } else {
        /* pip-exec: the signal's number, as PiP 2.4's (only task 1). */
        assert_true(WIFEXITED(st));
        assert_int_equal(WEXITSTATUS(st), SIGTERM);
    }
}

static void kill_all_tasks_of_a_root(void **state)
{
    (void)state;
    struct root r;
    root_start(&r, 2);
    /* PiP's --kill: SIGTERM; -t: the tasks only. */
    pt_run_t o = pt_run(NULL, pips, "-k", "-t", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    pt_run_free(&o);
    int st = root_wait(&r);
    if (thread_mode)
        assert_true((WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) ||
                    (WIFEXITED(st) && WEXITSTATUS(st) == SIGTERM));
    else
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == SIGTERM);
}

/* PiP's --kill without -t also ends the selected root, verbosely. */
static void kill_root_and_tasks(void **state)
{
    (void)state;
    struct root r;
    root_start(&r, 1);
    pt_run_t o = pt_run(NULL, pips, "--kill", "-v", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    char want[64];
    snprintf(want, sizeof(want), "pip-tgkill TERM %d %d (", (int)r.pid,
             (int)r.pid);
    assert_non_null(strstr(o.out, want));
    assert_int_equal(th_count(o.out, "pip-tgkill TERM "), 2);
    pt_run_free(&o);
    int st = root_wait(&r);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
}

/* PiP's listing: ps's columns, then PIP (R or the pipid, and the mode
 * letter) and COMMAND; PiP's selections. */
static void pip_columns_and_selections(void **state)
{
    (void)state;
    struct root r;
    root_start(&r, 2);
    char m = thread_mode ? 'T' : 'P';
    char rootpip[4] = {'R', m, ' ', 0}, t0[4] = {'0', m, ' ', 0},
         t1[4] = {'1', m, ' ', 0};
    pt_run_t o = pt_run(NULL, pips, "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_true(strncmp(o.out, "  PID   TID TT", 14) == 0);
    assert_non_null(strstr(o.out, " STAT "));
    assert_non_null(strstr(o.out, " TIME PIP   COMMAND\n"));
    assert_int_equal(th_count(o.out, "\n"), 4);
    assert_int_equal(th_count(o.out, rootpip), 1);
    assert_int_equal(th_count(o.out, t0), 1);
    assert_int_equal(th_count(o.out, t1), 1);
    assert_int_equal(th_count(o.out, " task_block\n"), 2);
    /* The root's line: its PID and TID (columns are right-aligned). */
    const char *rl = strstr(o.out, rootpip);
    while (rl > o.out && rl[-1] != '\n')
        rl--;
    int rp = -1, rt = -1;
    assert_int_equal(sscanf(rl, "%d %d", &rp, &rt), 2);
    assert_int_equal(rp, r.pid);
    assert_int_equal(rt, r.pid);
    pt_run_free(&o);
    /* u: ps u's columns. */
    o = pt_run(NULL, pips, "u", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_true(strncmp(o.out, "USER", 4) == 0);
    assert_non_null(strstr(o.out, "%CPU %MEM"));
    assert_non_null(strstr(o.out, " RSS "));
    assert_int_equal(th_count(o.out, "\n"), 4);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "ax", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 4);
    pt_run_free(&o);
    /* --root / --task / a program-name PATTERN / a TID PATTERN. */
    o = pt_run(NULL, pips, "--root", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 2);
    assert_int_equal(th_count(o.out, rootpip), 1);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-t", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 3);
    assert_int_equal(th_count(o.out, rootpip), 0);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-p", num(r.pid), "-", "task_blo*", NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 3);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-p", num(r.pid), num(r.ttid[1]), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 2);
    pt_run_free(&o);
    /* --family: a task's root and siblings come with it, root first. */
    o = pt_run(NULL, pips, "--family", "-p", num(r.pid), num(r.ttid[1]), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 4);
    assert_true(strstr(o.out, rootpip) < strstr(o.out, t0));
    pt_run_free(&o);
    /* --mode: T selects thread-mode roots, P process-mode ones. */
    o = pt_run(NULL, pips, "-m", thread_mode ? "T" : "PL", "-p", num(r.pid),
               NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 4);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "--mode", thread_mode ? "P" : "T", "-p", num(r.pid),
               NULL);
    pt_expect_one_line_error(&o, 1, "pips", "no PiP root or task matches");
    pt_run_free(&o);
    /* --ps / --top: ps and top run on the selected processes. */
    o = pt_run(NULL, pips, "--ps", "-o,pid=", "-r", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(atoi(o.out), r.pid);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-P", "-", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_non_null(strstr(o.out, num(r.pid)));
    pt_run_free(&o);
    o = pt_run(NULL, pips, "--top", "-b,-n,1", "-r", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_non_null(strstr(o.out, num(r.pid)));
    pt_run_free(&o);
    /* Short and long spellings of the same options. */
    o = pt_run(NULL, pips, "-r", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 2);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "--task", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 3);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-f", "-p", num(r.pid), num(r.ttid[0]), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 4);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "-T", "-b,-n,1", "-r", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_non_null(strstr(o.out, num(r.pid)));
    pt_run_free(&o);
    /* --signal 0 (a probe), verbosely. */
    o = pt_run(NULL, pips, "--signal", "0", "--verbose", "-t", "-p", num(r.pid),
               NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "pip-tgkill ? "), 2);
    pt_run_free(&o);
    o = pt_run(NULL, pips, "--debug", "-H", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    assert_int_equal(th_count(o.out, "\n"), 3);
    pt_run_free(&o);
    root_release(&r, 2);
    int st = root_wait(&r);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void signal_the_root_too(void **state)
{
    (void)state;
    struct root r;
    root_start(&r, 1);
    pt_run_t o = pt_run(NULL, pips, "-s", "9", "-R", "-p", num(r.pid), NULL);
    PT_EXPECT_EXIT(o, 0);
    pt_run_free(&o);
    int st = root_wait(&r);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
}

static void bad_usage_gives_one_line(void **state)
{
    (void)state;
    struct {
        const char *args[4];
        int code;
        const char *needle;
    } cases[] = {
        /* Usage errors exit 1, as PiP 2.4's pips. */
        {{"-s", "NOPE", NULL}, 1, "unknown signal name"},
        {{"-s", "999", NULL}, 1, "not a signal number"},
        {{"-s", NULL}, 1, "-s needs a value"},
        {{"-p", "abc", NULL}, 1, "-p 'abc': not a number"},
        {{"-p", "0", NULL}, 1, "-p '0': not a number above 0"},
        {{"-i", "-3", NULL}, 1, "-i '-3'"},
        {{"-n", "", NULL}, 1, "empty program name"},
        {{"-x", NULL}, 1, "unknown option '-x'"},
        /* A PATTERN that matches nothing. */
        {{"-p", "1", "foo", NULL}, 1, "no PiP root or task matches"},
        {{"-m", "X", NULL}, 1, "invalid mode"},
        {{"-k", "-P", "-", NULL}, 1, "exclude each other"},
        {{"-R", NULL}, 1, "-R needs -k or -s"},
        {{"-k", "-s", "TERM", NULL}, 1, "exclude each other"},
        /* Nothing to signal: PID 1 is no PiP root here. */
        {{"-k", "-p", "1", NULL}, 1, "no PiP root or task matches"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *argv[6] = {pips};
        for (int k = 0; k < 4 && cases[i].args[k] != NULL; k++)
            argv[k + 1] = (char *)cases[i].args[k];
        pt_run_t r = pt_runv(NULL, argv);
        pt_expect_one_line_error(&r, cases[i].code, "pips", cases[i].needle);
        pt_run_free(&r);
    }
    pt_run_t r = pt_run(NULL, pips, "--help", NULL);
    PT_EXPECT_EXIT(r, 0);
    assert_non_null(strstr(r.out, "usage: pips"));
    pt_run_free(&r);
}

int main(void)
{
    const char *m = getenv("PIP_MODE");
    thread_mode =
        m != NULL && (strcmp(m, "thread") == 0 || strcmp(m, "pthread") == 0);
    pip_exec = getenv("PIP_EXEC");
    if (pip_exec == NULL || access(pip_exec, X_OK) != 0) {
        fprintf(stderr, "SKIP: PIP_EXEC is not set (run by make check)\n");
        return TH_EXIT_SKIP;
    }
    pips = pt_tool_path("../pips");
    task = pt_tool_path("task_block");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists_the_tasks_of_a_running_root),
        cmocka_unit_test(reaped_tasks_leave_the_list),
        cmocka_unit_test(signals_only_the_selected_task),
        cmocka_unit_test(pip_columns_and_selections),
        cmocka_unit_test(kill_all_tasks_of_a_root),
        cmocka_unit_test(kill_root_and_tasks),
        cmocka_unit_test(signal_the_root_too),
        cmocka_unit_test(bad_usage_gives_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
