/* SPDX-License-Identifier: BSD-2-Clause */
/* dlg_bench.h: what the driver (dlg_bench.c), its baselines
 * (dlg_bench_base.c), its delegatee (dlg_bench_srv.c) and the helpers
 * (dlg_bench_util.c) share. */
#ifndef DLG_BENCH_H
#define DLG_BENCH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "deleg.h"
#include "dlg_pip.h"

enum { OP_SINK = DLG_PIP_OP_SINK };

extern int reps, base_iters, shared_futex; /* -r, -n, -x */
extern dlg_layout_t layout;

/* dlg_bench_util.c */
uint64_t now_ns(void);
double median(double *v, int n); /* sorts v */
void relax(void);                /* a spin-wait pause */
/* Start a thread already bound to the host CPUs. */
int spawn_on_host(pthread_t *th, void *(*fn)(void *), void *arg);
int iters_for(size_t n); /* round trips per repetition for n bytes */

/* Baselines (dlg_bench_base.c): ns per call or round trip of one run;
 * bench_socket fills out_ns with the median over reps runs per size and
 * returns 0, or -1 when the socket fails. */
double bench_call(int iters);
double bench_pingpong(int futex, int iters);
int bench_socket(const size_t *sizes, int nsizes, double *out_ns);

/* The same request over a socketpair: an 8-byte header with the length,
 * the payload, and an 8-byte reply; the server (a thread on the host CPUs)
 * touches every cache line of what it received, as op_sink does. */
struct sock_srv {
    int fd;
    uint8_t *buf;
};

/* A socket RPC connection: the client end and the serving thread. */
struct sock_conn {
    int fd;
    struct sock_srv srv;
    pthread_t th;
    uint8_t *buf;
};
int sock_open(struct sock_conn *k); /* 0, or -1 */
void sock_close(struct sock_conn *k);
/* Mean round trip (ns) of `iters` back-to-back n-byte requests; -1 on
 * error. */
double sock_rt(struct sock_conn *k, uint64_t n, int iters);

/* The delegatee of the delegation series (dlg_bench_srv.c). */
struct srv {
    dlg_region_t *r;
    dlg_delegatee_t *dg;
    dlg_policy_t pol;
    _Atomic int ready;
    int rc;
};
extern uint8_t *scratch; /* copy target when the buffer has no pointer */
/* A region named `name` and a delegatee thread on the host cores serving it
 * with idle policy `pol`.  0 when the delegatee runs; -1 (with nothing left
 * behind) when the region or the delegatee cannot be set up. */
int srv_start(struct srv *s, pthread_t *th, dlg_policy_t pol, const char *name,
              unsigned flags);
void srv_stop(struct srv *s, pthread_t th);

#endif /* DLG_BENCH_H */
