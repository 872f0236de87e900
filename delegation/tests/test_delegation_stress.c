/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_stress.c: the rings under load, for weakly ordered
 * memory (aarch64).  Several client threads keep a window of requests in
 * flight to one delegatee thread; every request carries a payload whose
 * checksum and per-client sequence number travel in its arguments, so the
 * delegatee sees any byte of a descriptor or payload read before it was
 * published; every completion carries a reply and, for output buffers,
 * data written by the delegatee, which the client checks, so a completion
 * seen before its result is caught in the other direction.  Both spin
 * (poll) and sleep (block) waits are used, with several ring sizes so
 * that slots are reused many times.
 *
 * Environment: DLG_STRESS_MSGS (requests per client, default 20000).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "deleg.h"
#include "dlg_test_ops.h"

enum { OP_SUM = 1, OP_OUT = 2 };
#define NCLIENTS 4
#define WINDOW   8
#define MAXLEN   200 /* below inline_max: payloads travel in the ring */

struct stress {
    dlg_region_t *r;
    dlg_delegatee_t *dg;
    dlg_delegatee_attr_t attr;
    int msgs;
    dlg_policy_t pol;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;
    int run_rc;
    /* Delegatee-side checks (only the serving thread writes them). */
    uint64_t next_seq[NCLIENTS + 1];
    long bad_sum, bad_seq, served;
    _Atomic long client_errors;
};

static uint64_t pay_seed(uint64_t client, uint64_t seq)
{
    return client * 0x9e3779b97f4a7c15ull ^ (seq * 0xbf58476d1ce4e5b9ull);
}

static size_t pay_len(uint64_t client, uint64_t seq)
{
    return (size_t)((seq * 37 + client * 11) % MAXLEN);
}

static void pay_fill(uint8_t *p, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (uint8_t)(seed >> 56);
    }
}

/* args: client id, sequence, checksum of the payload.  The payload is read
 * and checked here; the reply is the payload's checksum and sequence. */
static int64_t op_sum(dlg_req_t *req, void *ctx)
{
    struct stress *s = ctx;
    const uint64_t *a = dlg_req_args(req);
    uint8_t buf[MAXLEN];
    size_t n = dlg_req_len(req);
    if (dlg_req_nargs(req) != 3 || n > sizeof(buf) || a[0] > NCLIENTS)
        return -EINVAL;
    if (dlg_req_read(req, 0, buf, n) != 0)
        return -EFAULT;
    uint64_t h = t_csum(buf, n, 14695981039346656037ull);
    if (h != a[2])
        s->bad_sum++;
    if (a[1] != s->next_seq[a[0]])
        s->bad_seq++;
    s->next_seq[a[0]] = a[1] + 1;
    s->served++;
    uint64_t rep[2] = {h, a[1]};
    if (dlg_req_reply(req, rep, sizeof(rep)) != 0)
        return -EFAULT;
    return (int64_t)(h >> 1);
}

/* args: client id, sequence: fill the output buffer with their pattern. */
static int64_t op_out(dlg_req_t *req, void *ctx)
{
    struct stress *s = ctx;
    const uint64_t *a = dlg_req_args(req);
    uint8_t buf[MAXLEN];
    size_t n = dlg_req_len(req);
    if (dlg_req_nargs(req) != 2 || n > sizeof(buf) || a[0] > NCLIENTS)
        return -EINVAL;
    if (a[1] != s->next_seq[a[0]])
        s->bad_seq++;
    s->next_seq[a[0]] = a[1] + 1;
    s->served++;
    pay_fill(buf, n, pay_seed(a[0] + 100, a[1]));
    if (dlg_req_write(req, 0, buf, n) != 0)
        return -EFAULT;
    return (int64_t)a[1];
}

static void *delegatee_main(void *arg)
{
    struct stress *s = arg;
    int rc = dlg_delegatee_create(s->r, &s->attr, &s->dg);
    if (rc == 0) {
        rc = dlg_delegatee_register(s->dg, OP_SUM, op_sum, s, s->pol);
        if (rc == 0)
            rc = dlg_delegatee_register(s->dg, OP_OUT, op_out, s, s->pol);
    }
    pthread_mutex_lock(&s->mu);
    s->ready = rc == 0 ? 1 : rc;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (rc)
        return NULL;
    s->run_rc = dlg_delegatee_run(s->dg);
    (void)dlg_delegatee_destroy(s->dg);
    return NULL;
}

struct cl {
    struct stress *s;
    uint64_t id; /* 1..NCLIENTS */
    pthread_t th;
};

struct pending {
    dlg_ticket_t t;
    uint64_t seq;
    int out;
    size_t len;
    uint64_t sum;
    uint8_t buf[MAXLEN];
};

static void *client_main(void *arg)
{
    struct cl *cl = arg;
    struct stress *s = cl->s;
    dlg_client_attr_t ca = {.same_address_space = 1};
    dlg_client_t *c;
    long errors = 0;
    if (dlg_client_attach(s->r, &ca, &c) != 0) {
        atomic_fetch_add(&s->client_errors, 1);
        return NULL;
    }
    struct pending win[WINDOW];
    uint64_t sent = 0, done = 0, n = (uint64_t)s->msgs;
    uint8_t want[MAXLEN];
    while (done < n) {
        /* Fill the window, then take the oldest completion. */
        while (sent < n && sent - done < WINDOW) {
            struct pending *p = &win[sent % WINDOW];
            p->seq = sent;
            p->len = pay_len(cl->id, sent);
            p->out = (sent % 3) == 2;
            dlg_call_t call = {.nargs = 2, .args = {cl->id, sent}};
            call.policy = DLG_POLICY_DEFAULT;
            if (p->out) {
                memset(p->buf, 0xa5, sizeof(p->buf));
                call.op = OP_OUT;
                call.buf = p->buf;
                call.len = p->len;
                call.dir = DLG_BUF_OUT;
                call.mode = DLG_BUF_LOCAL;
            } else {
                pay_fill(p->buf, p->len, pay_seed(cl->id, sent));
                p->sum = t_csum(p->buf, p->len, 14695981039346656037ull);
                call.op = OP_SUM;
                call.nargs = 3;
                call.args[2] = p->sum;
                call.buf = p->buf;
                call.len = p->len;
                call.mode = DLG_BUF_INLINE;
            }
            int rc = dlg_submit(c, &call, &p->t);
            if (rc == -EAGAIN)
                break; /* the ring is full: complete the oldest first */
            if (rc != 0) {
                errors++;
                goto out;
            }
            sent++;
        }
        struct pending *p = &win[done % WINDOW];
        int64_t res = -1;
        uint64_t rep[2] = {0, 0};
        size_t rl = sizeof(rep);
        if (dlg_wait(c, p->t, DLG_POLICY_DEFAULT, &res, rep, &rl) != 0) {
            errors++;
            goto out;
        }
        if (p->out) {
            pay_fill(want, p->len, pay_seed(cl->id + 100, p->seq));
            if (res != (int64_t)p->seq || memcmp(p->buf, want, p->len) != 0)
                errors++;
        } else if (res != (int64_t)(p->sum >> 1) || rl != sizeof(rep) ||
                   rep[0] != p->sum || rep[1] != p->seq) {
            errors++;
        }
        done++;
    }
out:
    if (errors)
        atomic_fetch_add(&s->client_errors, errors);
    (void)dlg_client_detach(c);
    return NULL;
}

static void stress_run(unsigned ring_slots, dlg_policy_t pol)
{
    struct stress *s = calloc(1, sizeof(*s));
    assert_non_null(s);
    const char *e = getenv("DLG_STRESS_MSGS");
    s->msgs = e != NULL && atoi(e) > 0 ? atoi(e) : 20000;
    s->pol = pol;
    s->attr.max_clients = NCLIENTS;
    s->attr.ring_slots = ring_slots;
    s->attr.inline_max = 256;
    s->attr.idle_policy = pol;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, "stress",
                                       dlg_region_need(&s->attr),
                                       DLG_REGION_LOCAL, &s->r),
                     0);
    pthread_t dth;
    assert_int_equal(pthread_create(&dth, NULL, delegatee_main, s), 0);
    pthread_mutex_lock(&s->mu);
    while (!s->ready)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    assert_int_equal(s->ready, 1);
    struct cl cl[NCLIENTS];
    for (int i = 0; i < NCLIENTS; i++) {
        cl[i].s = s;
        cl[i].id = (uint64_t)i + 1;
        assert_int_equal(
            pthread_create(&cl[i].th, NULL, client_main, &cl[i]), 0);
    }
    for (int i = 0; i < NCLIENTS; i++)
        assert_int_equal(pthread_join(cl[i].th, NULL), 0);
    dlg_delegatee_stop(s->dg);
    assert_int_equal(pthread_join(dth, NULL), 0);
    assert_int_equal(s->run_rc, 0);
    assert_int_equal(atomic_load(&s->client_errors), 0);
    assert_int_equal(s->bad_sum, 0);
    assert_int_equal(s->bad_seq, 0);
    assert_int_equal(s->served, (long)s->msgs * NCLIENTS);
    for (int i = 1; i <= NCLIENTS; i++)
        assert_int_equal(s->next_seq[i], (uint64_t)s->msgs);
    assert_int_equal(dlg_region_close(s->r), 0);
    free(s);
}

/* Small rings: a slot is reused every few requests, under spinning. */
static void small_ring_polling(void **state)
{
    (void)state;
    stress_run(16, DLG_POLICY_POLL);
}

/* Larger rings, with waits that go to sleep on the futexes. */
static void large_ring_blocking(void **state)
{
    (void)state;
    stress_run(256, DLG_POLICY_BLOCK);
}

static void medium_ring_adaptive(void **state)
{
    (void)state;
    stress_run(64, DLG_POLICY_ADAPTIVE);
}

int main(void)
{
    /* A lost request or completion would hang a wait: fail instead. */
    alarm(600);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_ring_polling),
        cmocka_unit_test(large_ring_blocking),
        cmocka_unit_test(medium_ring_adaptive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
