/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mpideleg-pip: the PiP form of libmpideleg.  Run under hydra's PMI_PORT
 * model, one launcher process per MPI rank:
 *
 *   mpiexec -pmi-port -n N mpideleg-pip ./prog args...
 *
 * The ranks are cut into the shim's delegatee groups (MPIDELEG_BOARD_SIZE,
 * MPIDELEG_BOARDS_PER_DELEGATEE: G consecutive ranks, the last one the
 * delegatee).  The launcher of a group's first rank becomes a PiP root
 * (thread mode) and spawns every rank of its group as a PiP task with
 * PMI_ID set to that rank, so that each task is an MPICH rank of its own
 * (its own MPICH copy in its own namespace) while the group's clients and
 * delegatee share one address space: the delegatee reads and writes client
 * buffers directly.  The other launchers of the group stay as stand-ins for
 * hydra: each connects to the root, waits for the exit status of its rank's
 * task and exits with it.  PROG must be a PIE linked with -rdynamic and
 * with -lmpideleg (LD_PRELOAD does not reach PiP namespaces).
 */
#include <errno.h>
#include <stdarg.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pip/pip.h>

#include "../src/nm_standin.h"

extern char **environ;

static const char *me = "mpideleg-pip";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define now nm_si_now

static int lfd = -1; /* the root's group socket */
static int nstand;   /* stand-ins of the root's group */

/* The root gives up: tell the stand-ins that connect within 10 s that
 * their ranks failed (status 2), then exit 2. */
static void fail_group(void) __attribute__((noreturn));

static void fail_group(void)
{
    double t0 = now();
    for (int told = 0; lfd >= 0 && told < nstand && now() - t0 < 10;) {
        struct pollfd p = {lfd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        int32_t r, st = 2 << 8; /* exited with 2 */
        if (fd >= 0 && read(fd, &r, sizeof r) == (ssize_t)sizeof r &&
            write(fd, &st, sizeof st) == (ssize_t)sizeof st)
            told++;
        if (fd >= 0)
            close(fd);
    }
    exit(2);
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fail_group();
}

static long env_num(const char *name, long dflt, long min, long max)
{
    const char *s = getenv(name);
    if (!s || !*s) {
        if (dflt < 0)
            die("%s is not set: run under mpiexec -pmi-port", name);
        return dflt;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        die("%s='%s' must be an integer %ld to %ld (MPI_ERR_ARG: the "
            "group is not started, status 2)",
            name, s, min, max);
    return v;
}

/* Abstract socket of group g of this job (hydra's port is unique). */
static socklen_t group_addr(struct sockaddr_un *a, long g)
{
    return nm_si_addr(a, getenv("PMI_PORT"), g);
}

/* A stand-in rank: wait for the root's word on our task. */
static int stand_in(long g, long rank)
{
    struct sockaddr_un a;
    socklen_t len = group_addr(&a, g);
    int fd = nm_si_connect(&a, len, 60);
    if (fd < 0)
        die("%s", "the group's root did not come up within 60 s");
    int32_t r = (int32_t)rank;
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
        die("%s", "lost the group's root");
    return nm_si_wait(fd, rank, me);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(argc < 2 ? stderr : stdout,
                "usage: mpiexec -pmi-port -n N mpideleg-pip PROG [ARGS...]\n"
                "  runs each delegatee group of ranks (MPIDELEG_BOARD_SIZE x\n"
                "  MPIDELEG_BOARDS_PER_DELEGATEE clients + 1 delegatee) as "
                "PiP\n"
                "  tasks of one process; PROG: PIE, -rdynamic, -lmpideleg\n");
        return argc < 2 ? 2 : 0;
    }
    long rank = env_num("PMI_ID", -1, 0, 1 << 20);
    long size = env_num("MPI_LOCALNRANKS", -1, 1, 1 << 20);
    const char *port = getenv("PMI_PORT");
    if (!port || !*port)
        die("%s", "PMI_PORT is not set: run under mpiexec -pmi-port");
    long bs = env_num("MPIDELEG_BOARD_SIZE", 1, 1, 1 << 20);
    long bpd = env_num("MPIDELEG_BOARDS_PER_DELEGATEE", 1, 1, 1 << 20);
    long G = bs * bpd + 1, g = rank / G, first = g * G;
    long last = first + G < size ? first + G : size;
    const char *mode = getenv("PIP_MODE");
    if (mode && *mode && strcmp(mode, "thread") && strcmp(mode, "pthread"))
        die("PIP_MODE=%s: mpideleg-pip runs thread-mode tasks only (for "
            "process-mode tasks: LD_PRELOAD=libmpideleg.so PIP_MODE=process)",
            mode);
    if (rank != first)
        return stand_in(g, rank);

    /* The group's root: listen first, so that the stand-ins hear of a
     * failure at once instead of waiting for a root that never comes. */
    struct sockaddr_un a;
    socklen_t alen = group_addr(&a, g);
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, alen) != 0 ||
        listen(lfd, 64) != 0)
        die("group socket: %s", strerror(errno));
    nstand = (int)(last - first) - 1;
    /* PIE, exported main: a one-line reason otherwise */
    if (pip_check_pie(argv[1], 1) != 0)
        fail_group();
    int ntasks = (int)(last - first), pipid = PIP_PIPID_ROOT;
    int e = pip_init(&pipid, &ntasks, NULL, PIP_MODE_PTHREAD);
    if (e)
        die("pip_init: %s", strerror(e));
    int *peer = calloc((size_t)ntasks, sizeof *peer);
    int *status = calloc((size_t)ntasks, sizeof *status);
    char **env = NULL;
    size_t nenv = 0;
    while (environ[nenv])
        nenv++;
    env = calloc(nenv + 3, sizeof *env);
    if (!peer || !status || !env)
        die("%s", "out of memory");
    for (int i = 0; i < ntasks; i++) {
        char id[32];
        snprintf(id, sizeof id, "PMI_ID=%ld", first + i);
        size_t k = 0;
        for (size_t j = 0; j < nenv; j++)
            if (strncmp(environ[j], "PMI_ID=", 7) &&
                strncmp(environ[j], "MPIDELEG_PIP=", 13))
                env[k++] = environ[j];
        env[k++] = id;
        env[k++] = (char *)"MPIDELEG_PIP=1"; /* the shim: PiP form */
        env[k] = NULL;
        int tid = i;
        e = pip_spawn(argv[1], argv + 1, env, PIP_CPUCORE_ASIS, &tid, NULL,
                      NULL, NULL);
        if (e)
            die("cannot start the task: %s", strerror(e));
        peer[i] = -1;
    }
    free(env);
    /* Reap the tasks; meanwhile take the stand-ins' connections. */
    int left = ntasks, conns = 0;
    double t_end = 0;
    while (left > 0 || (conns < ntasks - 1 && now() - t_end < 30)) {
        struct pollfd p = {lfd, POLLIN, 0};
        if (poll(&p, 1, 10) > 0) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            int32_t r;
            if (fd >= 0 && read(fd, &r, sizeof r) == (ssize_t)sizeof r &&
                r > first && r < last && peer[r - first] < 0) {
                peer[r - first] = fd;
                conns++;
            } else if (fd >= 0) {
                close(fd);
            }
        }
        int id, st;
        while (left > 0 && pip_trywait_any(&id, &st) == 0) {
            if (id >= 0 && id < ntasks)
                status[id] = st;
            if (--left == 0)
                t_end = now();
        }
    }
    for (int i = 1; i < ntasks; i++)
        if (peer[i] >= 0) {
            if (nm_si_tell(peer[i], status[i]) < 0)
                perror("mpideleg-pip: stand-in");
            close(peer[i]);
        }
    close(lfd);
    pip_fin();
    int st = status[0];
    free(peer);
    free(status);
    return nm_si_code(st);
}
