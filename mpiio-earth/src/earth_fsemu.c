/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_fsemu.c: a contention model of a parallel file store, so that the
 * effect of I/O throttling can be measured on one small machine.
 *
 * When EARTH_FSEMU=1, every pread/pwrite of the process (ROMIO's and
 * EARTH's alike: the library interposes the libc symbols) is also charged
 * to an emulated store of N servers.  The file is striped over them in
 * units of S bytes (server of byte x: (x / S) mod N); a call is cut into
 * one request per stripe unit it touches, and all of them are in flight at
 * once.  A server with n requests in flight delivers
 *
 *     T(n) = B                        for n <= K
 *     T(n) = B / (1 + alpha (n - K))  for n >  K
 *
 * shared equally among its n requests, so a request of b bytes takes
 * latency + b * n / T(n).  The load n is sampled when the request starts;
 * the call returns when its slowest request is done (the real transfer
 * happens inside that time; if it takes longer, the longer time counts).
 * The in-flight counters live in a POSIX shared memory segment that all
 * ranks on the machine map (EARTH_FSEMU_SHM).
 *
 * Parameters (environment): EARTH_FSEMU_SERVERS (N, 4), EARTH_FSEMU_STRIPE
 * (S, 1048576), EARTH_FSEMU_LATENCY_US (200), EARTH_FSEMU_BW_MBPS (B per
 * server, 200), EARTH_FSEMU_K (2), EARTH_FSEMU_ALPHA (0.5),
 * EARTH_FSEMU_SHM (segment name, "/earth-fsemu-<uid>").
 */
#include "earth_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "pvas_env.h"

#define FSEMU_MAX_SERVERS 64

typedef struct {
    atomic_int inflight[FSEMU_MAX_SERVERS];
    atomic_int max_load; /* most requests seen in flight on one server */
    atomic_llong requests;
} fsemu_shared_t;

static struct {
    int state; /* 0 not initialised, 1 off, 2 on */
    int servers, k;
    int64_t stripe;
    double lat_s, bw, alpha;
    fsemu_shared_t *sh;
} emu;

typedef ssize_t (*pio_fn)(int, void *, size_t, off_t);
static pio_fn real_pread, real_pwrite;

static void resolve(void)
{
    if (!real_pread)
        real_pread = (pio_fn)dlsym(RTLD_NEXT, "pread");
    if (!real_pwrite)
        real_pwrite = (pio_fn)dlsym(RTLD_NEXT, "pwrite");
}

static double env_num(const char *name, double dflt)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    double d = strtod(v, &end);
    return (*end || d < 0) ? dflt : d;
}

/* Set up once per process, whichever thread does I/O first (ROMIO's
 * calls and EARTH's helper threads read and write from several). */
static pthread_once_t emu_once = PTHREAD_ONCE_INIT;

static void fsemu_setup(void)
{
    char name[64];
    resolve();
    emu.state = 1;
    if (!pvas_env_on("EARTH_FSEMU", 0))
        return;
    emu.servers = (int)env_num("EARTH_FSEMU_SERVERS", 4);
    if (emu.servers < 1 || emu.servers > FSEMU_MAX_SERVERS)
        emu.servers = 4;
    emu.stripe = (int64_t)env_num("EARTH_FSEMU_STRIPE", 1048576);
    if (emu.stripe < 1)
        emu.stripe = 1048576;
    emu.lat_s = env_num("EARTH_FSEMU_LATENCY_US", 200) * 1e-6;
    emu.bw = env_num("EARTH_FSEMU_BW_MBPS", 200) * 1e6;
    if (emu.bw <= 0)
        emu.bw = 200e6;
    emu.k = (int)env_num("EARTH_FSEMU_K", 2);
    if (emu.k < 1)
        emu.k = 1;
    emu.alpha = env_num("EARTH_FSEMU_ALPHA", 0.5);
    const char *shm = getenv("EARTH_FSEMU_SHM");
    if (!shm || !*shm) {
        snprintf(name, sizeof(name), "/earth-fsemu-%u", (unsigned)getuid());
        shm = name;
    }
    int fd = shm_open(shm, O_RDWR | O_CREAT, 0600);
    if (fd < 0)
        return;
    if (ftruncate(fd, sizeof(fsemu_shared_t)) == 0) {
        void *p = mmap(NULL, sizeof(fsemu_shared_t), PROT_READ | PROT_WRITE,
                       MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) {
            emu.sh = p;
            emu.state = 2;
        }
    }
    close(fd);
    earth_log(1, "contention model on: %d servers, stripe %lld, K %d",
              emu.servers, (long long)emu.stripe, emu.k);
}

void earth_fsemu_init(void)
{
    pthread_once(&emu_once, fsemu_setup);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static ssize_t emulate(int is_write, int fd, void *buf, size_t n, off_t off)
{
    int cnt[FSEMU_MAX_SERVERS] = {0};
    int64_t x = off, e = off + (int64_t)n, maxchunk[FSEMU_MAX_SERVERS] = {0};
    double t0 = now_s(), dur = 0;
    /* one request per stripe unit touched */
    while (x < e) {
        int64_t end = (x / emu.stripe + 1) * emu.stripe;
        if (end > e)
            end = e;
        int s = (int)((x / emu.stripe) % emu.servers);
        cnt[s]++;
        if (end - x > maxchunk[s])
            maxchunk[s] = end - x;
        x = end;
    }
    for (int s = 0; s < emu.servers; s++) {
        if (!cnt[s])
            continue;
        int load = atomic_fetch_add(&emu.sh->inflight[s], cnt[s]) + cnt[s];
        int seen = atomic_load(&emu.sh->max_load);
        while (load > seen &&
               !atomic_compare_exchange_weak(&emu.sh->max_load, &seen, load))
            ;
        atomic_fetch_add(&emu.sh->requests, cnt[s]);
        double t = emu.bw;
        if (load > emu.k)
            t = emu.bw / (1.0 + emu.alpha * (load - emu.k));
        double d = emu.lat_s + (double)maxchunk[s] * load / t;
        if (d > dur)
            dur = d;
    }
    ssize_t rc =
        is_write ? real_pwrite(fd, buf, n, off) : real_pread(fd, buf, n, off);
    int saved = errno;
    double left = dur - (now_s() - t0);
    if (left > 0) {
        struct timespec ts = {(time_t)left,
                              (long)((left - (double)(time_t)left) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    for (int s = 0; s < emu.servers; s++)
        if (cnt[s])
            atomic_fetch_sub(&emu.sh->inflight[s], cnt[s]);
    errno = saved;
    return rc;
}

int earth_fsemu_stats(struct earth_fsemu_stats *st, int reset)
{
    earth_fsemu_init();
    memset(st, 0, sizeof(*st));
    if (emu.state != 2)
        return -1;
    st->on = 1;
    st->servers = emu.servers;
    st->max_load = atomic_load(&emu.sh->max_load);
    st->requests = (uint64_t)atomic_load(&emu.sh->requests);
    if (reset) {
        atomic_store(&emu.sh->max_load, 0);
        atomic_store(&emu.sh->requests, 0);
    }
    return 0;
}

EARTH_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
EARTH_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off);

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    earth_fsemu_init();
    if (emu.state != 2 || n == 0)
        return real_pwrite(fd, (void *)buf, n, off);
    return emulate(1, fd, (void *)buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    earth_fsemu_init();
    if (emu.state != 2 || n == 0)
        return real_pread(fd, buf, n, off);
    return emulate(0, fd, buf, n, off);
}
