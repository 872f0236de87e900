/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_place.c: host and board CPUs of the emulated node, from environment
 * variables or the hwloc topology, and binding threads to them.
 */
#include "config.h"
#include "dlg_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

int dlg_cpulist_parse(const char *s, int *cpus, int max)
{
    if (!s || !cpus || max <= 0)
        return -EINVAL;
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        long a = strtol(p, &end, 10), b = a;
        p = end;
        if (*p == '-') {
            p++;
            if (*p < '0' || *p > '9')
                return -EINVAL;
            b = strtol(p, &end, 10);
            p = end;
        }
        if (a < 0 || b < a || b >= CPU_SETSIZE)
            return -EINVAL;
        for (long x = a; x <= b; x++) {
            if (n >= max)
                return -EINVAL;
            cpus[n++] = (int)x;
        }
        if (*p == ',')
            p++;
        else if (*p)
            return -EINVAL;
    }
    return n > 0 ? n : -EINVAL;
}

static int env_list(const char *name, int *cpus, int max,
                    const cpu_set_t *allowed)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    int n = dlg_cpulist_parse(s, cpus, max);
    if (n < 0) {
        dlg_log("%s=%s: expected a CPU list such as 0,2-3", name, s);
        return -EINVAL;
    }
    for (int i = 0; i < n; i++)
        if (!CPU_ISSET(cpus[i], allowed)) {
            dlg_log("%s: CPU %d is not available to this process", name,
                    cpus[i]);
            return -EINVAL;
        }
    return n;
}

int dlg_layout_get(dlg_layout_t *l)
{
    if (!l)
        return -EINVAL;
    memset(l, 0, sizeof(*l));
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
        return -errno;
    int nh = env_list("DLG_HOST_CPUS", l->host, 1024, &allowed);
    int nb = env_list("DLG_BOARD_CPUS", l->board, 1024, &allowed);
    if (nh < 0 || nb < 0)
        return -EINVAL;
    l->nhost = nh;
    l->nboard = nb;
    if (nh && nb)
        return 0;

    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return -ENODEV;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -ENODEV;
    }
    /* Cores this process may use, each as the list of its allowed PUs. */
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
    if (ncores <= 0) {
        unit = HWLOC_OBJ_PU;
        ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    }
    int dh = 0, db = 0, used = 0;
    for (int c = 0; c < ncores; c++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(topo, unit, (unsigned)c);
        int pus[64], np = 0;
        unsigned id;
        hwloc_bitmap_foreach_begin(id, o->cpuset)
        {
            if (id < CPU_SETSIZE && CPU_ISSET(id, &allowed) && np < 64)
                pus[np++] = (int)id;
        }
        hwloc_bitmap_foreach_end();
        if (!np)
            continue;
        /* First usable core: the host; the rest: the board. */
        int *dst = used == 0 ? l->host : l->board;
        int *cnt = used == 0 ? &dh : &db;
        for (int i = 0; i < np && *cnt < 1024; i++)
            dst[(*cnt)++] = pus[i];
        used++;
    }
    hwloc_topology_destroy(topo);
    if (dh == 0)
        return -ENODEV;
    if (db == 0) { /* one core: host and board share it */
        memcpy(l->board, l->host, sizeof(int) * (size_t)dh);
        db = dh;
    }
    if (!nh)
        l->nhost = dh;
    if (!nb)
        l->nboard = db;
    return 0;
}

static int bind_mode(int *mode)
{
    const char *s = getenv("DLG_BIND");
    if (!s || !*s || strcmp(s, "core") == 0)
        *mode = 0;
    else if (strcmp(s, "board") == 0)
        *mode = 1;
    else if (strcmp(s, "none") == 0)
        *mode = 2;
    else {
        dlg_log("DLG_BIND=%s: expected core, board or none", s);
        return -EINVAL;
    }
    return 0;
}

static int bind_cpus(const int *cpus, int n)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0)
        return -ENODEV;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int rc = 0;
    if (!set)
        rc = -ENOMEM;
    for (int i = 0; !rc && i < n; i++)
        hwloc_bitmap_set(set, (unsigned)cpus[i]);
    if (!rc && hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0)
        rc = errno ? -errno : -EINVAL;
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    return rc;
}

int dlg_place_delegatee(const dlg_layout_t *l)
{
    int mode, rc;
    if (!l || l->nhost <= 0)
        return -EINVAL;
    if ((rc = bind_mode(&mode)))
        return rc;
    if (mode == 2)
        return 0;
    return bind_cpus(l->host, l->nhost);
}

int dlg_place_client(const dlg_layout_t *l, int index)
{
    int mode, rc;
    if (!l || l->nboard <= 0 || index < 0)
        return -EINVAL;
    if ((rc = bind_mode(&mode)))
        return rc;
    if (mode == 2)
        return 0;
    if (mode == 1)
        return bind_cpus(l->board, l->nboard);
    return bind_cpus(&l->board[index % l->nboard], 1);
}
