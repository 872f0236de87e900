/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pips_roots.c: how pips finds the PiP roots: the processes with the
 * "pip-registry" memfd among their descriptors; the table of tasks is
 * copied from a read-only mapping of /proc/PID/fd/N under its seqlock.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pip/pip.h>

#include "pip_tools.h"
#include "pips.h"

#define die(code, ...) pip_tool_die("pips", (code), __VA_ARGS__)

/* Copy the registry at `map` under its seqlock; 0 on success. */
static int copy_registry(const void *map, size_t size, struct root *r)
{
    const struct pip_reg_header *h = map;
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t g1 = __atomic_load_n(&h->gen, __ATOMIC_ACQUIRE);
        if (g1 & 1) {
            sched_yield();
            continue;
        }
        memcpy(&r->h, h, sizeof(r->h));
        if (r->h.magic != PIP_REG_MAGIC || r->h.version != PIP_REG_VERSION ||
            r->h.header_size != sizeof(struct pip_reg_header) ||
            r->h.entry_size != sizeof(struct pip_reg_task) || r->h.ntasks < 0 ||
            (size_t)r->h.ntasks > (size - sizeof(struct pip_reg_header)) /
                                      sizeof(struct pip_reg_task))
            return -1;
        size_t tsz = sizeof(struct pip_reg_task) * (size_t)r->h.ntasks;
        struct pip_reg_task *t = realloc(r->tasks, tsz ? tsz : 1);
        if (t == NULL)
            return -1;
        r->tasks = t;
        memcpy(t, (const char *)map + sizeof(struct pip_reg_header), tsz);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&h->gen, __ATOMIC_ACQUIRE) == g1)
            return 0;
    }
    return -1;
}

static int is_registry_link(const char *dir, const char *fd)
{
    char path[PATH_MAX], link[256];
    snprintf(path, sizeof(path), "%s/%s", dir, fd);
    ssize_t n = readlink(path, link, sizeof(link) - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    static const char want[] = "/memfd:" PIP_REG_NAME;
    return strncmp(link, want, sizeof(want) - 1) == 0 &&
           (link[sizeof(want) - 1] == '\0' || link[sizeof(want) - 1] == ' ');
}

/* Read the registry open as fd `fd` in process `pid`; 0 on success. */
static int read_root(pid_t pid, const char *fd, struct root *r)
{
    char path[320];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)pid, fd);
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return -1;
    if (fstat(f, &st) != 0 ||
        (size_t)st.st_size < sizeof(struct pip_reg_header)) {
        close(f);
        return -1;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, f, 0);
    close(f);
    if (map == MAP_FAILED)
        return -1;
    memset(r, 0, sizeof(*r));
    r->found_pid = pid;
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    int rc = copy_registry(map, (size_t)st.st_size, r);
    munmap(map, (size_t)st.st_size);
    if (rc != 0) {
        free(r->tasks);
        r->tasks = NULL;
    }
    return rc;
}

struct root *pips_find_roots(int *nroots)
{
    struct root *roots = NULL;
    int n = 0;
    DIR *proc = opendir("/proc");
    if (proc == NULL)
        die(1, "cannot read /proc: %s", strerror(errno));
    struct dirent *d;
    pid_t self = getpid();
    while ((d = readdir(proc)) != NULL) {
        if (!isdigit((unsigned char)d->d_name[0]))
            continue;
        pid_t pid = (pid_t)atoi(d->d_name);
        if (pid == self)
            continue;
        char dir[64];
        snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
        DIR *fds = opendir(dir);
        if (fds == NULL)
            continue; /* gone, or not ours to look at */
        struct dirent *e;
        while ((e = readdir(fds)) != NULL) {
            if (!isdigit((unsigned char)e->d_name[0]) ||
                !is_registry_link(dir, e->d_name))
                continue;
            struct root r;
            if (read_root(pid, e->d_name, &r) != 0)
                continue;
            /*
             * A registry is seen twice when a child inherited the fd (a
             * process-mode task before it closed its close-on-exec fds, a
             * fork of the root): keep the copy held by the root itself.
             */
            int dup = -1;
            for (int k = 0; k < n; k++)
                if (roots[k].dev == r.dev && roots[k].ino == r.ino)
                    dup = k;
            if (dup >= 0) {
                if (r.found_pid == r.h.root_pid) {
                    free(roots[dup].tasks);
                    roots[dup] = r;
                } else {
                    free(r.tasks);
                }
                continue;
            }
            struct root *nr = realloc(roots, sizeof(*roots) * (size_t)(n + 1));
            if (nr == NULL)
                die(1, "out of memory");
            roots = nr;
            roots[n++] = r;
        }
        closedir(fds);
    }
    closedir(proc);
    *nroots = n;
    return roots;
}

int pips_cmp_root(const void *a, const void *b)
{
    const struct root *x = a, *y = b;
    return (x->h.root_pid > y->h.root_pid) - (x->h.root_pid < y->h.root_pid);
}

/* State of thread `tid` of process `pid` from /proc, or "ended". */
const char *pips_thread_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    if (pid <= 0 || tid <= 0)
        return "ended";
    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return "ended";
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return "ended";
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (p == NULL || p[1] != ' ')
        return "unknown";
    switch (p[2]) {
    case 'R':
        return "running";
    case 'S':
        return "sleeping";
    case 'D':
        return "disk-wait";
    case 'T':
        return "stopped";
    case 't':
        return "traced";
    case 'Z':
    case 'X':
        return "ended";
    default:
        return "unknown";
    }
}
