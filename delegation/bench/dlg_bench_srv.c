/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_bench_srv.c: the delegatee side of dlg_bench's delegation series: a
 * region and a thread on the host CPUs that runs the sink operation.
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "deleg.h"
#include "dlg_bench.h"

uint8_t *scratch; /* copy target when the buffer has no pointer */

/* Touch every cache line of the payload, through the direct pointer when
 * there is one, else through a copy (process_vm_readv). */
static int64_t op_sink(dlg_req_t *req, void *ctx)
{
    (void)ctx;
    size_t n = dlg_req_len(req);
    const uint8_t *p = dlg_req_ptr(req);
    if (!p && n) {
        int rc = dlg_req_read(req, 0, scratch, n);
        if (rc)
            return rc;
        p = scratch;
    }
    uint64_t s = 0;
    for (size_t i = 0; i < n; i += 64)
        s += p[i];
    return (int64_t)s;
}

static void *srv_main(void *arg)
{
    struct srv *s = arg;
    dlg_delegatee_attr_t a = {.max_clients = 4, .idle_policy = s->pol};
    int rc = dlg_delegatee_create(s->r, &a, &s->dg);
    if (!rc)
        rc = dlg_delegatee_register(s->dg, OP_SINK, op_sink, NULL, s->pol);
    s->rc = rc;
    atomic_store(&s->ready, rc ? -1 : 1);
    if (!rc) {
        s->rc = dlg_delegatee_run(s->dg);
        dlg_delegatee_destroy(s->dg);
    }
    return NULL;
}

/*
 * A region named `name` and a delegatee thread on the host cores serving it
 * with idle policy `pol`.  0 when the delegatee runs; -1 (with nothing left
 * behind) when the region or the delegatee cannot be set up.
 */
int srv_start(struct srv *s, pthread_t *th, dlg_policy_t pol, const char *name,
              unsigned flags)
{
    memset(s, 0, sizeof(*s));
    s->pol = pol;
    dlg_delegatee_attr_t a = {.max_clients = 4};
    if (dlg_region_create(DLG_REGION_MEMFD, name, dlg_region_need(&a), flags,
                          &s->r))
        return -1;
    if (spawn_on_host(th, srv_main, s) != 0) {
        dlg_region_close(s->r);
        return -1;
    }
    while (!atomic_load(&s->ready))
        sched_yield();
    if (s->rc) {
        fprintf(stderr, "dlg_bench: delegatee: %s\n", dlg_strerror(s->rc));
        pthread_join(*th, NULL);
        dlg_region_close(s->r);
        return -1;
    }
    return 0;
}

void srv_stop(struct srv *s, pthread_t th)
{
    dlg_delegatee_stop(s->dg);
    pthread_join(th, NULL);
    dlg_region_close(s->r);
}
