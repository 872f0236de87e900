/* SPDX-License-Identifier: BSD-2-Clause */
/* th_util.c: helpers shared by the project's test programs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* process_vm_readv */
#endif
#include "th_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pvas_env.h"

extern char **environ;

char *th_sibling_path(const char *name)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n < 0)
        return NULL;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL) {
        errno = ENOENT;
        return NULL;
    }
    *slash = '\0';
    size_t len = strlen(self) + 1 + strlen(name) + 1;
    char *path = malloc(len);
    if (path == NULL)
        return NULL;
    snprintf(path, len, "%s/%s", self, name);
    return path;
}

int th_count(const char *haystack, const char *needle)
{
    int count = 0;
    if (haystack == NULL || needle == NULL || *needle == '\0')
        return 0;
    for (const char *p = strstr(haystack, needle); p != NULL;
         p = strstr(p + strlen(needle), needle))
        count++;
    return count;
}

/* A growable capture buffer for one output stream of the child. */
struct th_buf {
    char *data;
    size_t len, cap;
};

static int th_buf_append(struct th_buf *b, const char *src, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (p == NULL)
            return -ENOMEM;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, src, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static double th_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void th_child(char *const argv[], char *const env_add[], int pout[2],
                     int perr[2])
{
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, 0);
        close(devnull);
    }
    dup2(pout[1], 1);
    dup2(perr[1], 2);
    close(pout[0]);
    close(pout[1]);
    close(perr[0]);
    close(perr[1]);
    for (int i = 0; env_add != NULL && env_add[i] != NULL; i++)
        putenv(env_add[i]);
    const char *wrap = getenv("TH_EXEC_WRAPPER");
    if (wrap != NULL && *wrap != '\0') {
        char *words = strdup(wrap);
        size_t n = 0;
        while (argv[n] != NULL)
            n++;
        char **full = calloc(n + strlen(wrap) / 2 + 2, sizeof(char *));
        if (words == NULL || full == NULL)
            _exit(127);
        size_t k = 0;
        for (char *w = strtok(words, " \t"); w != NULL; w = strtok(NULL, " \t"))
            full[k++] = w;
        for (size_t i = 0; i <= n; i++)
            full[k++] = argv[i];
        execvp(full[0], full);
        fprintf(stderr, "th_run: cannot execute %s: %s\n", full[0],
                strerror(errno));
        _exit(127);
    }
    execvp(argv[0], argv);
    fprintf(stderr, "th_run: cannot execute %s: %s\n", argv[0],
            strerror(errno));
    _exit(127);
}

int th_run(char *const argv[], char *const env_add[], int timeout_s,
           int *status, char **out, char **err)
{
    int pout[2] = {-1, -1}, perr[2] = {-1, -1};
    struct th_buf bufs[2] = {{0}, {0}};
    int rc = 0, wstatus = 0;
    if (argv == NULL || argv[0] == NULL)
        return -EINVAL;
    if (pipe2(pout, O_CLOEXEC) < 0 || pipe2(perr, O_CLOEXEC) < 0) {
        rc = -errno;
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        rc = -errno;
        goto fail;
    }
    if (pid == 0)
        th_child(argv, env_add, pout, perr);
    setpgid(pid, pid); /* either side may win the race; both set it */
    close(pout[1]);
    close(perr[1]);
    pout[1] = perr[1] = -1;

    struct pollfd pfd[2] = {{pout[0], POLLIN, 0}, {perr[0], POLLIN, 0}};
    pout[0] = perr[0] = -1; /* owned by pfd[] from here on */
    double deadline = timeout_s > 0 ? th_now() + timeout_s : 0;
    int open_streams = 2;
    while (open_streams > 0) {
        int wait_ms = -1;
        if (timeout_s > 0) {
            double left = deadline - th_now();
            if (left <= 0) {
                kill(-pid, SIGKILL);
                rc = -ETIMEDOUT;
                break;
            }
            wait_ms = (int)(left * 1000) + 1;
        }
        int n = poll(pfd, 2, wait_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            kill(-pid, SIGKILL);
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (pfd[i].fd < 0 || pfd[i].revents == 0)
                continue;
            char chunk[4096];
            ssize_t got = read(pfd[i].fd, chunk, sizeof(chunk));
            if (got > 0) {
                if (th_buf_append(&bufs[i], chunk, (size_t)got) < 0) {
                    rc = -ENOMEM;
                    kill(-pid, SIGKILL);
                    open_streams = 0;
                    break;
                }
            } else if (got == 0 || errno != EINTR) {
                close(pfd[i].fd);
                pfd[i].fd = -1;
                open_streams--;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (pfd[i].fd >= 0)
            close(pfd[i].fd);
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        ;
    /* Grandchildren left in the group must not outlive the test. */
    kill(-pid, SIGKILL);
    if (status != NULL)
        *status = wstatus;
fail:
    for (int i = 0; i < 2; i++) {
        if (pout[i] >= 0)
            close(pout[i]);
        if (perr[i] >= 0)
            close(perr[i]);
    }
    char **dst[2] = {out, err};
    for (int i = 0; i < 2; i++) {
        if (dst[i] != NULL) {
            if (bufs[i].data == NULL)
                bufs[i].data = calloc(1, 1);
            *dst[i] = bufs[i].data;
        } else {
            free(bufs[i].data);
        }
    }
    return rc;
}

static void *th_robust_owner(void *m)
{
    (void)pthread_mutex_lock(m);
    return NULL; /* ends holding it */
}

int th_robust_refused(void)
{
    pthread_mutexattr_t a;
    pthread_mutex_t m;
    pthread_t th;
    int rc = pthread_mutexattr_init(&a);
    if (rc == 0)
        rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    if (rc == 0)
        rc = pthread_mutex_init(&m, &a);
    (void)pthread_mutexattr_destroy(&a);
    if (rc != 0)
        return rc;
    rc = pthread_create(&th, NULL, th_robust_owner, &m);
    if (rc == 0)
        rc = pthread_join(th, NULL);
    if (rc == 0) {
        rc = pthread_mutex_trylock(&m);
        if (rc == EOWNERDEAD) {
            (void)pthread_mutex_consistent(&m);
            (void)pthread_mutex_unlock(&m);
            rc = 0;
        } else {
            if (rc == 0)
                (void)pthread_mutex_unlock(&m);
            rc = ENOSYS;
        }
    }
    (void)pthread_mutex_destroy(&m);
    return rc;
}

static int th_clone_child(void *arg)
{
    (void)arg;
    return 0;
}

int th_clone_vm_refused(void)
{
    size_t sz = 64 * 1024;
    char *stack = malloc(sz);
    if (stack == NULL)
        return ENOMEM;
    int st = 0, err = 0;
    pid_t pid = clone(th_clone_child, stack + sz, CLONE_VM | SIGCHLD, NULL);
    if (pid < 0)
        err = errno;
    else
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    free(stack);
    return err;
}

int th_cma_refused(int child_writes_parent)
{
    static volatile char probe[8] = "cma";
    char buf[8] = "CMA";
    int p[2], st = 0, err = 0;
    int no_cma;
    if (pvas_env_bool("TH_TEST_NO_CMA", 0, 0, &no_cma) != 0) {
        fprintf(stderr, "th_util: TH_TEST_NO_CMA='%s' must be %s\n",
                getenv("TH_TEST_NO_CMA"), pvas_env_bool_expected(0));
        exit(99); /* a broken test setup */
    }
    if (no_cma)
        return EPERM;
    if (pipe(p) != 0)
        return errno;
    if (child_writes_parent)
        (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        err = errno;
        close(p[0]);
        close(p[1]);
        return err;
    }
    if (pid == 0) {
        close(p[1]);
        if (child_writes_parent) {
            struct iovec l = {buf, 3}, r = {(void *)probe, 3};
            _exit(process_vm_writev(parent, &l, 1, &r, 1, 0) == 3
                      ? 0
                      : (errno > 0 && errno < 256 ? errno : EPERM));
        }
        /* Stay until the parent has read us. */
        while (read(p[0], buf, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(p[0]);
    if (!child_writes_parent) {
        struct iovec l = {buf, 3}, r = {(void *)probe, 3};
        if (process_vm_readv(pid, &l, 1, &r, 1, 0) != 3)
            err = errno != 0 ? errno : EPERM;
    }
    close(p[1]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (child_writes_parent)
        err = WIFEXITED(st) ? WEXITSTATUS(st) : EPERM;
    return err;
}
