/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_root.c: pip_bench_pvas's PiP root side (the program re-executed with
 * --pip-root: pip_init, spawn the tasks, read the footprint, reap) and the
 * helpers the driver shares with it: start and release the parties, wait
 * for them, read a footprint from /proc.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <pip/pip.h>

#include "pvas_root.h"

static pvas_ctl_t *seg_open(const char *name)
{
    int fd = shm_open(name, O_RDWR, 0);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        fprintf(stderr, "pip_bench_pvas: %s: %s\n", name, strerror(errno));
        return NULL;
    }
    pvas_ctl_t *c = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE,
                         MAP_SHARED, fd, 0);
    close(fd);
    if (c == MAP_FAILED || c->magic != PVAS_MAGIC) {
        fprintf(stderr, "pip_bench_pvas: %s: not a control segment\n", name);
        return NULL;
    }
    return c;
}

/* ---- footprint from /proc ---------------------------------------------- */

static long proc_field(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256];
    long v = -1;
    size_t klen = strlen(key);
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, key, klen) == 0) {
            v = strtol(line + klen, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* Add pid's VmRSS, Pss and VmPTE (KiB) to the control segment. */
int pvas_add_footprint(pvas_ctl_t *c, const char *pid)
{
    char p[64];
    snprintf(p, sizeof(p), "/proc/%s/status", pid);
    long rss = proc_field(p, "VmRSS:"), pte = proc_field(p, "VmPTE:");
    snprintf(p, sizeof(p), "/proc/%s/smaps_rollup", pid);
    long pss = proc_field(p, "Pss:");
    if (rss < 0 || pte < 0)
        return -1;
    c->rss_kib += rss;
    c->pte_kib += pte;
    c->pss_kib += pss > 0 ? pss : rss;
    return 0;
}

/* Wait until all n parties finished the all-to-all (and wait for release). */
int pvas_wait_done(pvas_ctl_t *c, int n, int (*ended_early)(pvas_ctl_t *))
{
    double end = pvas_now() + c->timeout;
    int v;
    while ((v = __atomic_load_n(&c->done, __ATOMIC_ACQUIRE)) < n) {
        if (__atomic_load_n(&c->fail, __ATOMIC_ACQUIRE) != 0)
            return -1;
        if (ended_early(c))
            return -1;
        if (pvas_now() > end) {
            pvas_set_fail(c, "timed out waiting for the all-to-all");
            return -1;
        }
        pvas_futex_wait(&c->done, v, 20000000L);
    }
    return 0;
}

void pvas_start(pvas_ctl_t *c, int v)
{
    __atomic_store_n(&c->go, v, __ATOMIC_RELEASE);
    pvas_futex_wake(&c->go);
}

void pvas_release(pvas_ctl_t *c)
{
    __atomic_store_n(&c->release, 1, __ATOMIC_RELEASE);
    pvas_futex_wake(&c->release);
}

/* ---- PiP root (this program re-executed with --pip-root) --------------- */

static int root_reaped[PVAS_MAXN];

static int root_task_ended_early(pvas_ctl_t *c)
{
    int id, st;
    while (pip_trywait_any(&id, &st) == 0) {
        if (id >= 0 && id < PVAS_MAXN)
            root_reaped[id] = 1;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            pvas_set_fail(c, "task %d ended with status 0x%x", id, st);
            return 1;
        }
    }
    return 0;
}

int pvas_root_main(const char *name, const char *task)
{
    pvas_ctl_t *c = seg_open(name);
    if (c == NULL)
        return 1;
    int n = c->n, pipid, rc, spawned = 0;
    char ref[64];
    snprintf(ref, sizeof(ref), "@%p", (void *)c);
    if ((rc = pip_init(&pipid, &n, NULL, 0)) != 0) {
        pvas_set_fail(c, "pip_init: %s", strerror(rc));
        pvas_start(c, -1);
        return 1;
    }
    for (; spawned < c->n; spawned++) {
        char rk[16];
        snprintf(rk, sizeof(rk), "%d", spawned);
        char *argv[] = {(char *)task, "pip", rk, ref, NULL};
        pip_spawn_program_t p;
        int id = spawned;
        pip_spawn_from_main(&p, (char *)task, argv, NULL, NULL, NULL);
        if ((rc = pip_task_spawn(&p, PIP_CPUCORE_ASIS, 0, &id, NULL)) != 0) {
            pvas_set_fail(c, "spawn failed: %s (task %d of %d)", strerror(rc),
                          spawned + 1, c->n);
            break;
        }
    }
    pvas_start(c, spawned == c->n ? 1 : -1);
    if (spawned == c->n && c->test == PVAS_T_A2A &&
        pvas_wait_done(c, c->n, root_task_ended_early) == 0) {
        /* One address space: its RSS and page tables, counted once. */
        if (pvas_add_footprint(c, "self") != 0)
            pvas_set_fail(c, "cannot read /proc/self/status");
    }
    pvas_release(c);
    for (int i = 0; i < spawned; i++) {
        int st;
        if (root_reaped[i])
            continue;
        if ((rc = pip_wait(i, &st)) != 0)
            pvas_set_fail(c, "pip_wait(%d): %s", i, strerror(rc));
        else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            pvas_set_fail(c, "task %d ended with status 0x%x", i, st);
    }
    pip_fin();
    return c->fail ? 1 : 0;
}
