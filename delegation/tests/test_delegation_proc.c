/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_proc.c: clients and delegatees in separate processes:
 * regions opened by spec (memfd through /proc, POSIX shm), buffers reached
 * with process_vm_readv/writev and through the shared heap, and killed
 * peers (SIGKILL of a client or of the delegatee) reported as errors.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "deleg.h"
#include "dlg_test_ops.h"
#include "th_util.h"

enum { OP_HANG = 12 };

struct srv {
    dlg_region_t *r;
    dlg_delegatee_t *dg;
    dlg_delegatee_attr_t attr;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready, run_rc, destroy_rc, dead_calls;
    pid_t dead_pid;
};

static void on_dead(dlg_delegatee_t *dg, int client, pid_t pid, void *ctx)
{
    (void)dg;
    (void)client;
    struct srv *s = ctx;
    pthread_mutex_lock(&s->mu);
    s->dead_calls++;
    s->dead_pid = pid;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;
    dlg_delegatee_attr_t a = s->attr;
    a.on_client_dead = on_dead;
    a.ctx = s;
    int rc = dlg_delegatee_create(s->r, &a, &s->dg);
    if (!rc) {
        dlg_delegatee_register(s->dg, OP_ECHO, op_echo, NULL,
                               DLG_POLICY_ADAPTIVE);
        dlg_delegatee_register(s->dg, OP_CSUM, op_csum, NULL, DLG_POLICY_BLOCK);
        dlg_delegatee_register(s->dg, OP_FILL, op_fill, NULL, DLG_POLICY_POLL);
    }
    pthread_mutex_lock(&s->mu);
    s->ready = rc ? rc : 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (!rc) {
        s->run_rc = dlg_delegatee_run(s->dg);
        s->destroy_rc = dlg_delegatee_destroy(s->dg);
    }
    return NULL;
}

static void srv_start(struct srv *s, pthread_t *th)
{
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    assert_int_equal(pthread_create(th, NULL, srv_main, s), 0);
    pthread_mutex_lock(&s->mu);
    while (!s->ready)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    assert_int_equal(s->ready, 1);
}

static void srv_stop(struct srv *s, pthread_t th)
{
    dlg_delegatee_stop(s->dg);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(s->run_rc, 0);
    assert_int_equal(s->destroy_rc, 0);
}

/* Child side: returns 0 or the number of the failed step. */
static int child_client(const char *spec, int use_heap)
{
    dlg_region_t *r;
    dlg_client_t *c;
    if (dlg_region_open(spec, &r))
        return 1;
    if (dlg_client_attach(r, NULL, &c))
        return 2;
    size_t n = (1 << 20) + 5;
    uint8_t *buf = use_heap ? dlg_heap_alloc(c, n) : malloc(n);
    uint8_t *want = malloc(n);
    if (!buf || !want)
        return 3;
    t_pattern(buf, n, 21);
    int64_t res;
    dlg_call_t call = {.op = OP_CSUM, .buf = buf, .len = n};
    if (dlg_call(c, &call, &res, NULL, NULL) ||
        res != (int64_t)t_csum_full(buf, n))
        return 4;
    call = (dlg_call_t){.op = OP_FILL,
                        .nargs = 1,
                        .args = {8},
                        .buf = buf,
                        .len = n,
                        .dir = DLG_BUF_OUT};
    if (dlg_call(c, &call, &res, NULL, NULL) || res != (int64_t)n)
        return 5;
    t_pattern(want, n, 8);
    if (memcmp(buf, want, n))
        return 6;
    uint8_t small[100];
    t_pattern(small, sizeof(small), 1);
    call = (dlg_call_t){.op = OP_ECHO,
                        .nargs = 1,
                        .args = {7},
                        .buf = small,
                        .len = sizeof(small)};
    uint8_t rep[DLG_REPLY_MAX];
    size_t rl = sizeof(rep);
    if (dlg_call(c, &call, &res, rep, &rl) || res != 107 ||
        rl != DLG_REPLY_MAX || memcmp(rep, small, rl))
        return 7;
    if (use_heap)
        dlg_heap_free(c, buf);
    else
        free(buf);
    free(want);
    if (dlg_client_detach(c) || dlg_region_close(r))
        return 8;
    return 0;
}

static void client_process(dlg_region_kind_t kind, int use_heap)
{
    struct srv s = {.attr = {.max_clients = 4, .heap_size = 8 << 20}};
    assert_int_equal(
        dlg_region_create(kind, NULL, dlg_region_need(&s.attr), 0, &s.r), 0);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char b;
        close(go[1]);
        if (read(go[0], &b, 1) != 1)
            _exit(98);
        _exit(child_client(dlg_region_spec(s.r), use_heap));
    }
    close(go[0]);
    pthread_t th;
    srv_start(&s, &th);
    assert_int_equal(write(go[1], "g", 1), 1);
    close(go[1]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    dlg_stats_t stats;
    dlg_delegatee_stats(s.dg, &stats);
    assert_int_equal(stats.requests, 3);
    assert_int_equal(stats.bytes_inline, 100);
    if (use_heap) {
        assert_int_equal(stats.bytes_zero_copy, 2 * ((1 << 20) + 5));
        assert_int_equal(stats.bytes_xproc, 0);
    } else {
        assert_int_equal(stats.bytes_xproc, 2 * ((1 << 20) + 5));
        assert_int_equal(stats.bytes_zero_copy, 0);
    }
    srv_stop(&s, th);
    assert_int_equal(dlg_region_close(s.r), 0);
}

static void memfd_client_process_uses_process_vm(void **st)
{
    (void)st;
    client_process(DLG_REGION_MEMFD, 0);
}

static void shm_client_process_uses_shared_heap(void **st)
{
    (void)st;
    client_process(DLG_REGION_SHM, 1);
}

static void killed_client_process_is_detected(void **st)
{
    (void)st;
    if (th_robust_refused()) {
        print_message("SKIP: robust mutexes do not report a dead owner "
                      "here (no set_robust_list: an emulator?)\n");
        skip();
    }
    struct srv s = {.attr = {.max_clients = 2}};
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, NULL,
                                       dlg_region_need(&s.attr), 0, &s.r),
                     0);
    int go[2], up[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(up), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char b;
        if (read(go[0], &b, 1) != 1)
            _exit(98);
        dlg_client_t *c;
        if (dlg_client_attach(s.r, NULL, &c))
            _exit(2);
        dlg_call_t call = {.op = OP_ECHO};
        dlg_ticket_t t;
        if (dlg_submit(c, &call, &t))
            _exit(3);
        if (write(up[1], "a", 1) != 1)
            _exit(4);
        for (;;)
            pause();
    }
    pthread_t th;
    srv_start(&s, &th);
    char b;
    assert_int_equal(write(go[1], "g", 1), 1);
    assert_int_equal(read(up[0], &b, 1), 1);
    kill(pid, SIGKILL);
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 30; /* guard against a hang only */
    pthread_mutex_lock(&s.mu);
    while (!s.dead_calls &&
           pthread_cond_timedwait(&s.cv, &s.mu, &dl) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&s.mu);
    assert_int_equal(s.dead_calls, 1);
    assert_int_equal(s.dead_pid, pid);
    srv_stop(&s, th);
    close(go[0]);
    close(go[1]);
    close(up[0]);
    close(up[1]);
    assert_int_equal(dlg_region_close(s.r), 0);
}

/* Delegatee in a child process whose OP_HANG handler never returns. */
static int hang_fd = -1;
static int64_t op_hang(dlg_req_t *req, void *ctx)
{
    (void)req;
    (void)ctx;
    if (write(hang_fd, "h", 1) != 1)
        _exit(5);
    for (;;)
        pause();
}

struct killer {
    int fd;
    pid_t pid;
};

static void *killer_main(void *arg)
{
    struct killer *k = arg;
    char b;
    if (read(k->fd, &b, 1) == 1)
        kill(k->pid, SIGKILL);
    return NULL;
}

static void killed_delegatee_process_is_reported(void **st)
{
    (void)st;
    if (th_robust_refused()) {
        print_message("SKIP: robust mutexes do not report a dead owner "
                      "here (no set_robust_list: an emulator?)\n");
        skip();
    }
    dlg_policy_t pols[] = {DLG_POLICY_POLL, DLG_POLICY_BLOCK,
                           DLG_POLICY_ADAPTIVE};
    for (int p = 0; p < 3; p++) {
        dlg_region_t *r;
        assert_int_equal(dlg_region_create(DLG_REGION_SHM, NULL,
                                           dlg_region_need(NULL), 0, &r),
                         0);
        int up[2], hang[2];
        assert_int_equal(pipe(up), 0);
        assert_int_equal(pipe(hang), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            dlg_delegatee_t *dg;
            dlg_delegatee_attr_t a = {.idle_policy = pols[p]};
            hang_fd = hang[1];
            if (dlg_delegatee_create(r, &a, &dg))
                _exit(2);
            dlg_delegatee_register(dg, OP_ECHO, op_echo, NULL,
                                   DLG_POLICY_DEFAULT);
            dlg_delegatee_register(dg, OP_HANG, op_hang, NULL,
                                   DLG_POLICY_DEFAULT);
            if (write(up[1], "u", 1) != 1)
                _exit(3);
            _exit(dlg_delegatee_run(dg) == 0 ? 0 : 4);
        }
        char b;
        assert_int_equal(read(up[0], &b, 1), 1);
        dlg_client_t *c;
        assert_int_equal(dlg_client_attach(r, NULL, &c), 0);
        int64_t res;
        dlg_call_t call = {
            .op = OP_ECHO, .nargs = 1, .args = {2}, .policy = pols[p]};
        assert_int_equal(dlg_call(c, &call, &res, NULL, NULL), 0);
        assert_int_equal(res, 2);
        struct killer k = {.fd = hang[0], .pid = pid};
        pthread_t kt;
        assert_int_equal(pthread_create(&kt, NULL, killer_main, &k), 0);
        call.op = OP_HANG;
        assert_int_equal(dlg_call(c, &call, &res, NULL, NULL), -EOWNERDEAD);
        assert_int_equal(pthread_join(kt, NULL), 0);
        int wst;
        assert_int_equal(waitpid(pid, &wst, 0), pid);
        assert_true(WIFSIGNALED(wst));
        assert_int_equal(dlg_client_detach(c), -EBUSY);
        close(up[0]);
        close(up[1]);
        close(hang[0]);
        close(hang[1]);
        assert_int_equal(dlg_region_close(r), 0);
    }
}

int main(void)
{
    alarm(200);
    signal(SIGPIPE, SIG_IGN);
    /* DLG_PROC_GROUP=cma (test_delegation_proc.cma): the case that needs
     * cross memory attach, skipped as a whole where it is refused. */
    const char *group = getenv("DLG_PROC_GROUP");
    const struct CMUnitTest cma_tests[] = {
        cmocka_unit_test(memfd_client_process_uses_process_vm),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shm_client_process_uses_shared_heap),
        cmocka_unit_test(killed_client_process_is_detected),
        cmocka_unit_test(killed_delegatee_process_is_reported),
    };
    if (group == NULL || *group == '\0')
        return cmocka_run_group_tests(tests, NULL, NULL);
    if (strcmp(group, "cma") != 0) {
        fprintf(stderr, "DLG_PROC_GROUP must be empty or cma\n");
        return TH_EXIT_HARD_ERROR;
    }
    int e = th_cma_refused(0);
    if (e != 0) {
        printf("SKIP: process_vm_readv of another process refused here "
               "(%s)\n",
               strerror(e));
        return TH_EXIT_SKIP;
    }
    return cmocka_run_group_tests(cma_tests, NULL, NULL);
}
