/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_delegation_core.c: regions, rings, inline payloads, completions,
 * handler registry, fairness and buffer modes, driven from one thread
 * (submit, then dlg_delegatee_progress, then wait).
 */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "deleg.h"
#include "dlg_internal.h" /* to start tickets near the wrap points */
#include "dlg_test_ops.h"
#include "th_util.h"

struct fx {
    dlg_region_t *r;
    dlg_delegatee_t *dg;
};

static struct fx *fx_new(const dlg_delegatee_attr_t *a, unsigned rflags)
{
    struct fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    size_t need = dlg_region_need(a);
    assert_true(need > 0);
    assert_int_equal(
        dlg_region_create(DLG_REGION_MEMFD, "t", need, rflags, &f->r), 0);
    assert_int_equal(dlg_delegatee_create(f->r, a, &f->dg), 0);
    assert_int_equal(
        dlg_delegatee_register(f->dg, OP_ECHO, op_echo, NULL, DLG_POLICY_POLL),
        0);
    assert_int_equal(
        dlg_delegatee_register(f->dg, OP_CSUM, op_csum, NULL, DLG_POLICY_BLOCK),
        0);
    assert_int_equal(dlg_delegatee_register(f->dg, OP_FILL, op_fill, NULL,
                                            DLG_POLICY_ADAPTIVE),
                     0);
    assert_int_equal(
        dlg_delegatee_register(f->dg, OP_PTR, op_ptr, NULL, DLG_POLICY_DEFAULT),
        0);
    return f;
}

static void fx_free(struct fx *f)
{
    assert_int_equal(dlg_delegatee_destroy(f->dg), 0);
    assert_int_equal(dlg_region_close(f->r), 0);
    free(f);
}

/* submit, serve, wait: the whole round trip in this thread */
static int64_t roundtrip(struct fx *f, dlg_client_t *c, dlg_call_t *call,
                         void *reply, size_t *rlen)
{
    dlg_ticket_t t;
    int64_t res = -9999;
    assert_int_equal(dlg_submit(c, call, &t), 0);
    assert_int_equal(dlg_delegatee_progress(f->dg), 1);
    assert_int_equal(dlg_wait(c, t, DLG_POLICY_POLL, &res, reply, rlen), 0);
    return res;
}

static void region_memfd_and_shm_open_by_spec(void **state)
{
    (void)state;
    dlg_region_kind_t kinds[] = {DLG_REGION_MEMFD, DLG_REGION_SHM};
    for (int k = 0; k < 2; k++) {
        dlg_region_t *r, *o;
        assert_int_equal(dlg_region_create(kinds[k], NULL, 10000, 0, &r), 0);
        assert_true(dlg_region_size(r) >= 10000);
        memcpy(dlg_region_base(r), "hello", 6);
        assert_int_equal(dlg_region_open(dlg_region_spec(r), &o), 0);
        assert_string_equal((char *)dlg_region_base(o), "hello");
        assert_int_equal(dlg_region_size(o), dlg_region_size(r));
        assert_int_equal(dlg_region_close(o), 0);
        char spec[128];
        strcpy(spec, dlg_region_spec(r));
        assert_int_equal(dlg_region_close(r), 0);
        if (kinds[k] == DLG_REGION_SHM) /* the creator unlinked it */
            assert_int_equal(dlg_region_open(spec, &o), -ENOENT);
    }
}

static void region_rejects_bad_input(void **state)
{
    (void)state;
    dlg_region_t *r;
    assert_int_equal(dlg_region_open("nonsense", &r), -EINVAL);
    assert_int_equal(dlg_region_open("memfd:1:x", &r), -EINVAL);
    assert_int_equal(dlg_region_open("shm:/a/b", &r), -EINVAL);
    assert_int_equal(dlg_region_create(DLG_REGION_SHM, "noslash", 100, 0, &r),
                     -EINVAL);
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, NULL, 0, 0, &r),
                     -EINVAL);
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, NULL, 100, 0x80, &r),
                     -EINVAL);
    /* A region without a delegatee. */
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, NULL, 1 << 20, 0, &r),
                     0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(r, NULL, &c), -ENOTCONN);
    memset(dlg_region_base(r), 0x5a, 64);
    assert_int_equal(dlg_client_attach(r, NULL, &c), -EPROTO);
    assert_int_equal(dlg_region_close(r), 0);
}

static void delegatee_rejects_bad_attributes_and_env(void **state)
{
    (void)state;
    dlg_region_t *r;
    dlg_delegatee_t *dg;
    assert_int_equal(dlg_region_create(DLG_REGION_MEMFD, NULL, 4096, 0, &r), 0);
    assert_int_equal(dlg_delegatee_create(r, NULL, &dg), -ENOSPC);
    dlg_delegatee_attr_t a = {.ring_slots = 48};
    assert_int_equal(dlg_delegatee_create(r, &a, &dg), -EINVAL);
    a = (dlg_delegatee_attr_t){.ring_slots = 8, .inline_max = 1000};
    assert_int_equal(dlg_delegatee_create(r, &a, &dg), -EINVAL);
    assert_int_equal(dlg_region_close(r), 0);

    assert_int_equal(
        dlg_region_create(DLG_REGION_MEMFD, NULL, dlg_region_need(NULL), 0, &r),
        0);
    setenv("DLG_IDLE_POLICY", "sometimes", 1);
    assert_int_equal(dlg_delegatee_create(r, NULL, &dg), -EINVAL);
    unsetenv("DLG_IDLE_POLICY");
    setenv("DLG_LIVENESS_MS", "0", 1);
    assert_int_equal(dlg_delegatee_create(r, NULL, &dg), -EINVAL);
    unsetenv("DLG_LIVENESS_MS");
    assert_int_equal(dlg_delegatee_create(r, NULL, &dg), 0);
    /* A second live delegatee on the same region is refused. */
    dlg_delegatee_t *dg2;
    assert_int_equal(dlg_delegatee_create(r, NULL, &dg2), -EBUSY);
    assert_int_equal(
        dlg_delegatee_register(dg, DLG_MAX_OPS, op_echo, NULL, DLG_POLICY_POLL),
        -EINVAL);
    assert_int_equal(dlg_delegatee_destroy(dg), 0);
    assert_int_equal(dlg_region_close(r), 0);
}

static void call_passes_args_and_inline_payloads_of_every_size(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, 0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    uint8_t buf[256];
    /* Every payload size from 0 to the inline limit, with 0..5 arguments,
     * many times round the 64-slot ring. */
    for (size_t len = 0; len <= sizeof(buf); len++) {
        unsigned nargs = (unsigned)(len % (DLG_MAX_ARGS + 1));
        t_pattern(buf, len, (unsigned)len);
        dlg_call_t call = {
            .op = OP_ECHO, .nargs = nargs, .buf = buf, .len = len};
        int64_t want = (int64_t)len;
        for (unsigned i = 0; i < nargs; i++) {
            call.args[i] = 1000 * (i + 1) + len;
            want += (int64_t)call.args[i];
        }
        uint8_t reply[DLG_REPLY_MAX];
        size_t rlen = sizeof(reply);
        assert_int_equal(roundtrip(f, c, &call, reply, &rlen), want);
        assert_int_equal(rlen, len < DLG_REPLY_MAX ? len : DLG_REPLY_MAX);
        assert_memory_equal(reply, buf, rlen);
        call.op = OP_CSUM;
        assert_int_equal(roundtrip(f, c, &call, NULL, NULL),
                         (int64_t)t_csum_full(buf, len));
    }
    dlg_stats_t st;
    dlg_delegatee_stats(f->dg, &st);
    assert_int_equal(st.requests, 2 * (sizeof(buf) + 1));
    assert_int_equal(st.bytes_inline, sizeof(buf) * (sizeof(buf) + 1));
    assert_int_equal(st.bytes_zero_copy, 0);
    /* Beyond the inline limit an explicit inline request is refused. */
    uint8_t big[300];
    dlg_call_t call = {
        .op = OP_ECHO, .buf = big, .len = sizeof(big), .mode = DLG_BUF_INLINE};
    dlg_ticket_t t;
    assert_int_equal(dlg_submit(c, &call, &t), -EMSGSIZE);
    assert_int_equal(dlg_client_detach(c), 0);
    fx_free(f);
}

static void unknown_operation_gets_enosys(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, 0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    dlg_call_t call = {.op = 77};
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), -ENOSYS);
    dlg_ticket_t t;
    call.op = DLG_MAX_OPS;
    assert_int_equal(dlg_submit(c, &call, &t), -EINVAL);
    call.op = 1;
    call.nargs = DLG_MAX_ARGS + 1;
    assert_int_equal(dlg_submit(c, &call, &t), -EINVAL);
    dlg_stats_t st;
    dlg_delegatee_stats(f->dg, &st);
    assert_int_equal(st.unknown_ops, 1);
    assert_int_equal(dlg_client_detach(c), 0);
    fx_free(f);
}

static void full_ring_refuses_then_recovers_out_of_order_waits(void **state)
{
    (void)state;
    dlg_delegatee_attr_t a = {.ring_slots = 8, .inline_max = 120};
    struct fx *f = fx_new(&a, 0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    for (unsigned round = 0; round < 50; round++) {
        dlg_ticket_t t[9];
        unsigned n = 0;
        dlg_call_t call = {.op = OP_ECHO, .nargs = 1};
        int rc;
        do {
            call.args[0] = round * 100 + n;
            rc = dlg_submit(c, &call, &t[n]);
            if (rc == 0)
                n++;
        } while (rc == 0 && n < 9);
        assert_int_equal(rc, -EAGAIN);
        assert_int_equal(n, 8);
        dlg_ticket_t extra;
        assert_int_equal(dlg_delegatee_progress(f->dg), 1);
        /* Served but not consumed: still no space. */
        assert_int_equal(dlg_submit(c, &call, &extra), -EAGAIN);
        while (dlg_delegatee_progress(f->dg) > 0)
            ;
        /* Consume newest first: space comes back only with the oldest. */
        for (int i = 7; i >= 0; i--) {
            int64_t res;
            assert_int_equal(
                dlg_wait(c, t[i], DLG_POLICY_DEFAULT, &res, NULL, NULL), 0);
            assert_int_equal(res, round * 100 + i);
            assert_int_equal(
                dlg_wait(c, t[i], DLG_POLICY_DEFAULT, &res, NULL, NULL),
                -EINVAL); /* consumed */
        }
        /* A multi-slot inline request wraps round the ring end. */
        uint8_t p[120];
        t_pattern(p, sizeof(p), round);
        dlg_call_t big = {.op = OP_CSUM, .buf = p, .len = sizeof(p)};
        assert_int_equal(roundtrip(f, c, &big, NULL, NULL),
                         (int64_t)t_csum_full(p, sizeof(p)));
    }
    assert_int_equal(dlg_client_detach(c), 0);
    fx_free(f);
}

static int order[64];
static int norder;
static int64_t op_record(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    if (norder < 64)
        order[norder++] = dlg_req_client(req);
    return 0;
}

static void sweeps_serve_clients_round_robin(void **state)
{
    (void)state;
    for (unsigned quantum = 1; quantum <= 2; quantum++) {
        dlg_delegatee_attr_t a = {.max_clients = 3, .quantum = quantum};
        struct fx *f = fx_new(&a, 0);
        assert_int_equal(dlg_delegatee_register(f->dg, OP_RECORD, op_record,
                                                NULL, DLG_POLICY_POLL),
                         0);
        dlg_client_t *c[3];
        dlg_ticket_t t[3][8];
        /* Client 0 queues far more than the others. */
        unsigned count[3] = {8, 4, 2};
        for (int i = 0; i < 3; i++) {
            assert_int_equal(dlg_client_attach(f->r, NULL, &c[i]), 0);
            assert_int_equal(dlg_client_index(c[i]), i);
        }
        dlg_client_t *none;
        assert_int_equal(dlg_client_attach(f->r, NULL, &none), -EUSERS);
        for (int i = 0; i < 3; i++)
            for (unsigned k = 0; k < count[i]; k++) {
                dlg_call_t call = {.op = OP_RECORD};
                assert_int_equal(dlg_submit(c[i], &call, &t[i][k]), 0);
            }
        norder = 0;
        int sweeps = 0;
        while (dlg_delegatee_progress(f->dg) > 0)
            sweeps++;
        assert_int_equal(norder, 14);
        /* Each sweep serves `quantum` of every client that has work. */
        int pos = 0, left[3] = {8, 4, 2};
        for (int s = 0; s < sweeps; s++)
            for (int i = 0; i < 3; i++)
                for (unsigned q = 0; q < quantum && left[i] > 0; q++) {
                    assert_int_equal(order[pos], i);
                    pos++;
                    left[i]--;
                }
        assert_int_equal(pos, 14);
        for (int i = 0; i < 3; i++) {
            for (unsigned k = 0; k < count[i]; k++)
                assert_int_equal(
                    dlg_wait(c[i], t[i][k], DLG_POLICY_POLL, NULL, NULL, NULL),
                    0);
            assert_int_equal(dlg_client_detach(c[i]), 0);
        }
        fx_free(f);
    }
}

static void same_address_space_moves_1mib_without_copy(void **state)
{
    (void)state;
    struct fx *f = fx_new(NULL, DLG_REGION_LOCAL);
    dlg_client_t *c;
    dlg_client_attr_t ca = {.same_address_space = 1};
    assert_int_equal(dlg_client_attach(f->r, &ca, &c), 0);
    size_t n = 1 << 20;
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    t_pattern(buf, n, 3);
    dlg_call_t call = {.op = OP_PTR, .buf = buf, .len = n};
    /* The handler sees the client's own pointer: nothing was copied. */
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL),
                     (int64_t)(intptr_t)buf);
    call.op = OP_CSUM;
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL),
                     (int64_t)t_csum_full(buf, n));
    call = (dlg_call_t){.op = OP_FILL,
                        .nargs = 1,
                        .args = {9},
                        .buf = buf,
                        .len = n,
                        .dir = DLG_BUF_OUT};
    memset(buf, 0, n);
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), (int64_t)n);
    uint8_t *want = malloc(n);
    t_pattern(want, n, 9);
    assert_memory_equal(buf, want, n);
    dlg_stats_t st;
    dlg_delegatee_stats(f->dg, &st);
    assert_int_equal(st.bytes_inline, 0);
    assert_int_equal(st.bytes_xproc, 0);
    assert_int_equal(st.bytes_zero_copy, 3 * n);
    assert_int_equal(dlg_client_detach(c), 0);
    /* A client that did not declare the same address space may not. */
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    dlg_ticket_t t;
    call.mode = DLG_BUF_LOCAL;
    assert_int_equal(dlg_submit(c, &call, &t), -EINVAL);
    assert_int_equal(dlg_client_detach(c), 0);
    free(buf);
    free(want);
    fx_free(f);
}

static void xproc_mode_reads_and_writes_the_client(void **state)
{
    (void)state;
    if (th_cma_refused(0)) {
        print_message("SKIP: process_vm_readv refused or unusable here\n");
        skip();
    }
    struct fx *f = fx_new(NULL, 0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    size_t n = (1 << 20) + 17;
    uint8_t *buf = malloc(n), *want = malloc(n);
    assert_non_null(buf);
    t_pattern(buf, n, 5);
    dlg_call_t call = {.op = OP_CSUM, .buf = buf, .len = n};
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL),
                     (int64_t)t_csum_full(buf, n));
    call.op = OP_PTR;
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), 0); /* no pointer */
    call = (dlg_call_t){.op = OP_FILL,
                        .nargs = 1,
                        .args = {4},
                        .buf = buf,
                        .len = n,
                        .dir = DLG_BUF_OUT};
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), (int64_t)n);
    t_pattern(want, n, 4);
    assert_memory_equal(buf, want, n);
    /* Writing into an input-only buffer is refused. */
    call.dir = DLG_BUF_IN;
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), -EPERM);
    /* An unmapped address fails cleanly. */
    void *hole =
        mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    call = (dlg_call_t){
        .op = OP_CSUM, .buf = hole, .len = 8192, .mode = DLG_BUF_XPROC};
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), -EFAULT);
    munmap(hole, 8192);
    dlg_stats_t st;
    dlg_delegatee_stats(f->dg, &st);
    assert_int_equal(st.bytes_xproc, 2 * n);
    assert_int_equal(st.bytes_inline, 0);
    assert_int_equal(dlg_client_detach(c), 0);
    free(buf);
    free(want);
    fx_free(f);
}

static void shared_heap_blocks_are_passed_by_reference(void **state)
{
    (void)state;
    dlg_delegatee_attr_t a = {.max_clients = 2, .heap_size = 4 << 20};
    struct fx *f = fx_new(&a, 0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    size_t n = 1 << 20;
    uint8_t *p = dlg_heap_alloc(c, n);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    uint8_t *q = dlg_heap_alloc(c, 1000);
    assert_non_null(q);
    assert_true(q >= p + n || q + 1000 <= p);
    t_pattern(p, n, 11);
    dlg_call_t call = {.op = OP_PTR, .buf = p, .len = n};
    /* The delegatee sees the same block (at the same address here, since
     * both map the region at one place in this process). */
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), (int64_t)(intptr_t)p);
    call.op = OP_CSUM;
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL),
                     (int64_t)t_csum_full(p, n));
    dlg_stats_t st;
    dlg_delegatee_stats(f->dg, &st);
    assert_int_equal(st.bytes_zero_copy, 2 * n);
    assert_int_equal(st.bytes_inline, 0);
    /* Exhaust, free, reuse. */
    assert_null(dlg_heap_alloc(c, 2 << 20));
    dlg_heap_free(c, p);
    dlg_heap_free(c, q);
    uint8_t *r2 = dlg_heap_alloc(c, (2 << 20) - 256);
    assert_non_null(r2);
    dlg_heap_free(c, r2);
    /* A heap-mode buffer outside the heap is refused. */
    uint8_t local[512];
    dlg_ticket_t t;
    call = (dlg_call_t){.op = OP_CSUM,
                        .buf = local,
                        .len = sizeof(local),
                        .mode = DLG_BUF_HEAP};
    assert_int_equal(dlg_submit(c, &call, &t), -EFAULT);
    assert_int_equal(dlg_client_detach(c), 0);
    fx_free(f);
}

static void detach_and_stop_are_reported(void **state)
{
    (void)state;
    dlg_delegatee_attr_t a = {.max_clients = 1};
    struct fx *f = fx_new(&a, 0);
    dlg_client_t *c;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    dlg_call_t call = {.op = OP_ECHO};
    dlg_ticket_t t;
    assert_int_equal(dlg_submit(c, &call, &t), 0);
    assert_int_equal(dlg_client_detach(c), -EBUSY);
    /* The slot comes back once the delegatee has seen the detach. */
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), -EUSERS);
    while (dlg_delegatee_progress(f->dg) > 0)
        ;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
    /* Slot state starts afresh. */
    assert_int_equal(roundtrip(f, c, &call, NULL, NULL), 0);
    assert_int_equal(dlg_delegatee_destroy(f->dg), 0);
    f->dg = NULL;
    assert_int_equal(dlg_submit(c, &call, &t), -ENOTCONN);
    assert_int_equal(dlg_client_detach(c), 0);
    dlg_client_t *c2;
    assert_int_equal(dlg_client_attach(f->r, NULL, &c2), -ENOTCONN);
    assert_int_equal(dlg_region_close(f->r), 0);
    free(f);
}

/* Tickets are 64-bit; the descriptor sequence and the completion mark are
 * 32-bit words.  Start a client just below 2^31 and 2^32 and make sure
 * requests (some multi-slot) still complete with the right results. */
static void tickets_survive_32bit_wrap(void **state)
{
    (void)state;
    uint64_t starts[] = {(1ull << 31) - 7, (1ull << 32) - 1, (1ull << 32) - 9,
                         0xffffffffull * 2 - 5};
    for (int k = 0; k < 4; k++) {
        dlg_delegatee_attr_t a = {.ring_slots = 8, .inline_max = 120};
        struct fx *f = fx_new(&a, 0);
        dlg_client_t *c;
        assert_int_equal(dlg_client_attach(f->r, NULL, &c), 0);
        c->head = c->low = starts[k];
        c->cb->tail = starts[k];
        for (unsigned i = 0; i < 40; i++) {
            uint8_t p[120];
            size_t len = (i * 37) % sizeof(p);
            t_pattern(p, len, i);
            dlg_call_t call = {.op = OP_CSUM, .buf = p, .len = len};
            /* Nothing is pending: a stale slot must not look like a new
             * request. */
            assert_int_equal(dlg_delegatee_progress(f->dg), 0);
            assert_int_equal(roundtrip(f, c, &call, NULL, NULL),
                             (int64_t)t_csum_full(p, len));
        }
        assert_true(c->head > starts[k] + 40);
        assert_int_equal(dlg_client_detach(c), 0);
        fx_free(f);
    }
}

static void strerror_names_every_code(void **state)
{
    (void)state;
    int codes[] = {-EOWNERDEAD, -ENOTCONN, -ENOSYS, -EAGAIN, -EMSGSIZE,
                   -ETIMEDOUT,  -EUSERS,   -EPROTO, -ENOSPC, -EINVAL};
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        const char *s = dlg_strerror(codes[i]);
        assert_non_null(s);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, dlg_strerror(codes[j]));
    }
    assert_string_equal(dlg_strerror(-12345), "unknown error");
    assert_int_equal(dlg_policy_parse("poll"), DLG_POLICY_POLL);
    assert_int_equal(dlg_policy_parse("adaptive"), DLG_POLICY_ADAPTIVE);
    assert_int_equal(dlg_policy_parse("Block"), -EINVAL);
}

int main(void)
{
    alarm(120); /* a hang fails the test instead of blocking the suite */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(region_memfd_and_shm_open_by_spec),
        cmocka_unit_test(region_rejects_bad_input),
        cmocka_unit_test(delegatee_rejects_bad_attributes_and_env),
        cmocka_unit_test(call_passes_args_and_inline_payloads_of_every_size),
        cmocka_unit_test(unknown_operation_gets_enosys),
        cmocka_unit_test(full_ring_refuses_then_recovers_out_of_order_waits),
        cmocka_unit_test(sweeps_serve_clients_round_robin),
        cmocka_unit_test(same_address_space_moves_1mib_without_copy),
        cmocka_unit_test(xproc_mode_reads_and_writes_the_client),
        cmocka_unit_test(shared_heap_blocks_are_passed_by_reference),
        cmocka_unit_test(detach_and_stop_are_reported),
        cmocka_unit_test(tickets_survive_32bit_wrap),
        cmocka_unit_test(strerror_names_every_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
