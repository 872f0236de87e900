/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_bench_base.c: the baselines dlg_bench measures delegation against:
 * a plain function call, raw cache-line and futex ping-pongs between two
 * threads, and a UNIX-socket RPC of the same requests.
 */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "deleg.h"
#include "dlg_bench.h"

/* Spins between yields in the raw cache-line ping-pong: far more than one
 * round trip takes on two CPUs, so the floor is not affected, but the
 * baseline cannot starve its partner if both end up on one CPU. */
#define PP_YIELD_EVERY 4096

/* ---------------- baselines ---------------- */

/* Plain function call through a pointer (what a same-core library call
 * costs); the request is the same shape as the delegated one. */
static int64_t __attribute__((noinline))
plain_fn(uint64_t a, const void *p, size_t n)
{
    __asm__ __volatile__("" ::"r"(p) : "memory");
    return (int64_t)(a + n);
}

double bench_call(int iters)
{
    int64_t (*volatile fp)(uint64_t, const void *, size_t) = plain_fn;
    uint8_t buf[8];
    int64_t s = 0;
    uint64_t t0 = now_ns();
    for (int i = 0; i < iters; i++)
        s += fp((uint64_t)i, buf, sizeof(buf));
    uint64_t t1 = now_ns();
    __asm__ __volatile__("" ::"r"(s));
    return (double)(t1 - t0) / iters;
}

struct pp {
    _Alignas(64) _Atomic uint32_t a;
    _Alignas(64) _Atomic uint32_t b;
    int iters;
    int futex;
};

static void fwait(_Atomic uint32_t *w, uint32_t v)
{
    int op = FUTEX_WAIT | (shared_futex ? 0 : FUTEX_PRIVATE_FLAG);
    syscall(SYS_futex, (uint32_t *)w, op, v, NULL, NULL, 0);
}

static void fwake(_Atomic uint32_t *w)
{
    int op = FUTEX_WAKE | (shared_futex ? 0 : FUTEX_PRIVATE_FLAG);
    syscall(SYS_futex, (uint32_t *)w, op, 1, NULL, NULL, 0);
}

static void *pong_main(void *arg)
{
    struct pp *p = arg;
    for (uint32_t i = 1; i <= (uint32_t)p->iters; i++) {
        if (p->futex) {
            while (atomic_load(&p->a) != i)
                fwait(&p->a, i - 1);
            atomic_store(&p->b, i);
            fwake(&p->b);
        } else {
            for (unsigned k = 1;
                 atomic_load_explicit(&p->a, memory_order_acquire) != i; k++)
                if (k % PP_YIELD_EVERY)
                    relax();
                else
                    sched_yield();
            atomic_store_explicit(&p->b, i, memory_order_release);
        }
    }
    return NULL;
}

/* Round trip of one value through two cache lines (or two futexes). */
double bench_pingpong(int futex, int iters)
{
    struct pp *p = aligned_alloc(64, sizeof(*p));
    memset(p, 0, sizeof(*p));
    p->iters = iters;
    p->futex = futex;
    pthread_t th;
    spawn_on_host(&th, pong_main, p);
    uint64_t t0 = now_ns();
    for (uint32_t i = 1; i <= (uint32_t)iters; i++) {
        if (futex) {
            atomic_store(&p->a, i);
            fwake(&p->a);
            while (atomic_load(&p->b) != i)
                fwait(&p->b, i - 1);
        } else {
            atomic_store_explicit(&p->a, i, memory_order_release);
            for (unsigned k = 1;
                 atomic_load_explicit(&p->b, memory_order_acquire) != i; k++)
                if (k % PP_YIELD_EVERY)
                    relax();
                else
                    sched_yield();
        }
    }
    uint64_t t1 = now_ns();
    pthread_join(th, NULL);
    free(p);
    return (double)(t1 - t0) / iters;
}

/* ---------------- UNIX-socket RPC baseline ---------------- */

/* The protocol of the socket RPC: see struct sock_srv in dlg_bench.h. */
static int read_full(int fd, void *p, size_t n)
{
    uint8_t *b = p;
    while (n) {
        ssize_t k = read(fd, b, n);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            return -1;
        }
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_full(int fd, const struct iovec *iov0, int niov)
{
    struct iovec iov[2];
    memcpy(iov, iov0, sizeof(*iov) * (size_t)niov);
    int i = 0;
    while (i < niov) {
        ssize_t k = writev(fd, iov + i, niov - i);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        while (i < niov && (size_t)k >= iov[i].iov_len) {
            k -= (ssize_t)iov[i].iov_len;
            i++;
        }
        if (i < niov) {
            iov[i].iov_base = (char *)iov[i].iov_base + k;
            iov[i].iov_len -= (size_t)k;
        }
    }
    return 0;
}

static void *sock_srv_main(void *arg)
{
    struct sock_srv *s = arg;
    uint64_t n;
    while (read_full(s->fd, &n, sizeof(n)) == 0 && n <= (1u << 20)) {
        if (n && read_full(s->fd, s->buf, n))
            break;
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i += 64)
            sum += s->buf[i];
        struct iovec iov = {&sum, sizeof(sum)};
        if (write_full(s->fd, &iov, 1))
            break;
    }
    return NULL;
}

int sock_open(struct sock_conn *k)
{
    int sv[2];
    memset(k, 0, sizeof(*k));
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return -1;
    k->fd = sv[0];
    k->srv.fd = sv[1];
    k->srv.buf = malloc(1 << 20);
    k->buf = malloc(1 << 20);
    if (!k->srv.buf || !k->buf ||
        spawn_on_host(&k->th, sock_srv_main, &k->srv)) {
        free(k->srv.buf);
        free(k->buf);
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    memset(k->buf, 1, 1 << 20);
    return 0;
}

void sock_close(struct sock_conn *k)
{
    close(k->fd); /* the server reads EOF and ends */
    pthread_join(k->th, NULL);
    close(k->srv.fd);
    free(k->srv.buf);
    free(k->buf);
}

/* Mean round trip (ns) of `iters` back-to-back n-byte requests; -1 on
 * error. */
double sock_rt(struct sock_conn *k, uint64_t n, int iters)
{
    uint64_t res;
    struct iovec iov[2] = {{&n, sizeof(n)}, {k->buf, (size_t)n}};
    for (int i = 0; i < iters / 10 + 1; i++)
        if (write_full(k->fd, iov, n ? 2 : 1) ||
            read_full(k->fd, &res, sizeof(res)))
            return -1;
    uint64_t t0 = now_ns();
    for (int i = 0; i < iters; i++)
        if (write_full(k->fd, iov, n ? 2 : 1) ||
            read_full(k->fd, &res, sizeof(res)))
            return -1;
    return (double)(now_ns() - t0) / iters;
}

/* Median round trip (ns) of n-byte requests over the socket, per size. */
int bench_socket(const size_t *sizes, int nsizes, double *out_ns)
{
    struct sock_conn k;
    double *v = calloc((size_t)reps, sizeof(double));
    if (!v || sock_open(&k)) {
        free(v);
        return -1;
    }
    int rc = 0;
    for (int si = 0; si < nsizes && !rc; si++) {
        for (int r = 0; r < reps && !rc; r++)
            if ((v[r] = sock_rt(&k, sizes[si], iters_for(sizes[si]))) < 0)
                rc = -1;
        out_ns[si] = median(v, reps);
    }
    sock_close(&k);
    free(v);
    return rc;
}
