/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_file.c: per-file state of EARTH and the interposed file-management
 * calls (open, close, set_view, set_info, get_info).  Every call is carried
 * out by ROMIO through PMPI; EARTH only records what it needs: a private
 * communicator, its hints, ROMIO's effective collective-buffering hints,
 * the aggregator ranks and a descriptor of its own for aggregator accesses.
 */
#include "earth_internal.h"

#include <errno.h>
#include <fcntl.h>
#ifdef EARTH_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The MPI calls defined here replace MPICH's: export them. */
#pragma GCC visibility push(default)

static earth_file_t *files;

earth_file_t *earth_file_find(MPI_File fh)
{
    for (earth_file_t *f = files; f; f = f->next)
        if (f->fh == fh)
            return f;
    return NULL;
}

static void file_free(earth_file_t *ef)
{
    earth_async_free(ef);
    if (ef->dupreq != MPI_REQUEST_NULL)
        PMPI_Wait(&ef->dupreq, MPI_STATUS_IGNORE);
    if (ef->fd >= 0)
        close(ef->fd);
    if (ef->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&ef->comm);
    earth_flat_free(&ef->ftype);
    free(ef->aggr);
    free(ef->path);
    free(ef);
}

static int64_t info_int(MPI_Info info, const char *key, int64_t dflt)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    return flag ? atoll(v) : dflt;
}

static int info_mode(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, v, &flag);
    if (!flag || !strcmp(v, "automatic"))
        return 2;
    return !strcmp(v, "disable") ? 0 : 1;
}

int earth_file_refresh_romio(earth_file_t *ef)
{
    MPI_Info info;
    int rc = PMPI_File_get_info(ef->fh, &info);
    if (rc != MPI_SUCCESS)
        return rc;
    ef->cb_buffer_size = info_int(info, "cb_buffer_size", 16777216);
    ef->cb_nodes = (int)info_int(info, "cb_nodes", 1);
    ef->cb_write = info_mode(info, "romio_cb_write");
    ef->cb_read = info_mode(info, "romio_cb_read");
    if (!ef->hints.striping_unit)
        ef->hints.striping_unit = info_int(info, "striping_unit", 0);
    PMPI_Info_free(&info);
    if (ef->cb_buffer_size <= 0)
        ef->cb_buffer_size = 16777216;
    if (ef->cb_nodes <= 0 || ef->cb_nodes > ef->nprocs)
        ef->cb_nodes = ef->nprocs;
    return MPI_SUCCESS;
}

/* Board of the calling rank: EARTH_BOARD_SIZE ranks per board, else the
 * hwloc package the rank runs on. */
static int my_board(int local_rank)
{
    const char *e = getenv("EARTH_BOARD_SIZE");
    if (e && atoi(e) > 0)
        return local_rank / atoi(e);
#ifdef EARTH_HAVE_HWLOC
    /* loading the topology takes milliseconds: once per process */
    static int cached = -1;
    if (cached >= 0)
        return cached;
    hwloc_topology_t topo;
    int board = 0;
    if (hwloc_topology_init(&topo) != 0)
        return 0;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (set && hwloc_get_last_cpu_location(topo, set, 0) == 0) {
            hwloc_obj_t o = hwloc_get_next_obj_covering_cpuset_by_type(
                topo, set, HWLOC_OBJ_PACKAGE, NULL);
            if (o)
                board = (int)o->logical_index;
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    cached = board;
    return board;
#else
    return 0;
#endif
}

/*
 * Choose naggr aggregators.  "spread": nodes are served round-robin, within
 * a node its boards round-robin, and inside a board the chosen ranks are
 * evenly spaced; the list is then ordered so that consecutive file domains
 * go to different nodes.  "block": ranks 0..naggr-1.
 */
static int place_aggregators(earth_file_t *ef)
{
    int n = ef->nprocs, k = ef->cb_nodes, rc = MPI_SUCCESS;
    int me[2], *all = NULL, *grp = NULL, *gcnt = NULL, *quota = NULL,
               *order = NULL;
    MPI_Comm node;
    ef->aggr = malloc(sizeof(int) * (size_t)k);
    if (!ef->aggr)
        return MPI_ERR_NO_MEM;
    ef->naggr = k;
    if (ef->hints.layout == EARTH_LAYOUT_BLOCK || k == n) {
        for (int i = 0; i < k; i++)
            ef->aggr[i] = i;
        goto done;
    }
    /* node id = lowest rank of the node; board id within the node */
    PMPI_Comm_split_type(ef->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                         &node);
    int lrank, lowest;
    PMPI_Comm_rank(node, &lrank);
    PMPI_Allreduce(&ef->rank, &lowest, 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    me[0] = lowest;
    me[1] = my_board(lrank);
    all = malloc(sizeof(int) * 2 * (size_t)n);
    grp = malloc(sizeof(int) * (size_t)n);
    gcnt = calloc((size_t)n, sizeof(int));
    quota = calloc((size_t)n, sizeof(int));
    order = malloc(sizeof(int) * (size_t)n);
    if (!all || !grp || !gcnt || !quota || !order) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    PMPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, ef->comm);
    /* groups = distinct (node, board) pairs in rank order of first member;
     * grp[r] = group of rank r; gnode[g] = node of group g */
    int ng = 0, *gnode = order; /* reuse as scratch, filled below */
    int *gboard = malloc(sizeof(int) * (size_t)n);
    if (!gboard) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    for (int r = 0; r < n; r++) {
        int g = 0;
        while (g < ng &&
               !(gnode[g] == all[2 * r] && gboard[g] == all[2 * r + 1]))
            g++;
        if (g == ng) {
            gnode[ng] = all[2 * r];
            gboard[ng] = all[2 * r + 1];
            ng++;
        }
        grp[r] = g;
        gcnt[g]++;
    }
    /* quotas: round-robin over nodes, inside a node over its boards */
    int given = 0;
    while (given < k) {
        int progress = 0;
        for (int nd = 0; nd < n && given < k; nd++) {
            /* the group of node nd with the fewest aggregators so far */
            int best = -1;
            for (int g = 0; g < ng; g++)
                if (gnode[g] == nd && quota[g] < gcnt[g] &&
                    (best < 0 || quota[g] < quota[best]))
                    best = g;
            if (best >= 0) {
                quota[best]++;
                given++;
                progress = 1;
            }
        }
        if (!progress)
            break;
    }
    /* pick evenly spaced members; interleave groups for the final order */
    int out = 0;
    for (int j = 0; out < k; j++) {
        for (int g = 0; g < ng && out < k; g++) {
            if (j >= quota[g])
                continue;
            int want = (int)((int64_t)j * gcnt[g] / quota[g]), seen = 0;
            for (int r = 0; r < n; r++)
                if (grp[r] == g && seen++ == want) {
                    ef->aggr[out++] = r;
                    break;
                }
        }
    }
    free(gboard);
done:
    ef->my_aggr = -1;
    for (int i = 0; i < ef->naggr; i++)
        if (ef->aggr[i] == ef->rank)
            ef->my_aggr = i;
    ef->stats.naggr = ef->naggr;
    ef->stats.is_aggr = ef->my_aggr >= 0;
    free(all);
    free(grp);
    free(gcnt);
    free(quota);
    free(order);
    return rc;
}

/*
 * earth_enable=auto: EARTH carries the collective calls only where it can
 * win, i.e. where there is contention for it to manage: the file's ranks
 * span more than one node, the contention model is on, or the program
 * tuned EARTH (an earth_* key) or asked for striping over several servers
 * (striping_factor > 1).  Otherwise (one node, a local file system) the
 * calls go to ROMIO: measured on /tmp and /dev/shm (bench/RESULTS.md),
 * EARTH's extra work per call (the agreement, the segment lists, helper
 * threads) made it lose there to ROMIO's one aggregator, up to 2.5x on
 * 1 MiB calls.  Collective: the node count is agreed on.
 */
static int agree_open(MPI_Comm comm, int rc, int *contended)
{
    /* a hash of the host name: equal on all ranks when they share one
     * node (no communicator is created, so that an open that goes to ROMIO
     * costs what ROMIO's does) */
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0;
    PMPI_Get_processor_name(name, &len);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
    long long v[3] = {rc != MPI_SUCCESS, (long long)(h >> 1),
                      -(long long)(h >> 1)},
              m[3];
    PMPI_Allreduce(v, m, 3, MPI_LONG_LONG, MPI_MAX, comm);
    struct earth_fsemu_stats fs;
    earth_fsemu_stats(&fs, 0);
    *contended = fs.on || m[1] != -m[2];
    if (m[0] && rc == MPI_SUCCESS)
        rc = MPI_ERR_INFO_VALUE;
    return rc;
}

static void decide(earth_file_t *ef)
{
    if (ef->hints.enable != 2)
        ef->use_earth = ef->hints.enable;
    else
        ef->use_earth =
            ef->contended || ef->hints.tuned || ef->hints.striping_factor > 1;
}

/* ROMIO accepts "prefix:name" to force a file-system driver. */
static const char *strip_prefix(const char *name)
{
    static const char *pfx[] = {"ufs:",  "nfs:", "testfs:", "lustre:",
                                "gpfs:", "xfs:", "pvfs2:",  "daos:"};
    for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
        if (!strncmp(name, pfx[i], strlen(pfx[i])))
            return name + strlen(pfx[i]);
    return name;
}

/* Collective: the worst hint error of any rank, so that all return it. */
static int agree_error(MPI_Comm comm, int rc)
{
    int bad = rc != MPI_SUCCESS, any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any && rc == MPI_SUCCESS)
        rc = MPI_ERR_INFO_VALUE;
    return rc;
}

/* The file's private communicator: a duplicate of the opening one,
 * started without waiting at open (an open that goes to ROMIO should cost
 * what ROMIO's does) and waited for the first time it is needed. */
static int file_comm(earth_file_t *ef)
{
    if (ef->dupreq == MPI_REQUEST_NULL)
        return ef->comm != MPI_COMM_NULL ? MPI_SUCCESS : MPI_ERR_COMM;
    return PMPI_Wait(&ef->dupreq, MPI_STATUS_IGNORE);
}

/* What EARTH needs to carry calls: ROMIO's hints, the aggregators, the
 * progress thread's communicator, an aggregator's own descriptor.
 * Collective. */
static int file_setup(earth_file_t *ef)
{
    int rc;
    if ((rc = file_comm(ef)) != MPI_SUCCESS ||
        (rc = earth_file_refresh_romio(ef)) != MPI_SUCCESS ||
        (rc = place_aggregators(ef)) != MPI_SUCCESS ||
        (rc = earth_async_setup(ef)) != MPI_SUCCESS)
        return rc;
    if (ef->my_aggr >= 0) {
        int fl = (ef->amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR;
        ef->fd = open(strip_prefix(ef->path), fl | O_CLOEXEC);
        ef->fd_err = ef->fd < 0 ? errno : 0;
    }
    ef->ready = 1;
    return MPI_SUCCESS;
}

/* decide() after set_view / set_info: set up what EARTH needs the first
 * time it is asked for (collective, like both calls) */
static void redecide(earth_file_t *ef)
{
    decide(ef);
    if (ef->use_earth && !ef->ready && file_setup(ef) != MPI_SUCCESS)
        ef->hints.enable = ef->use_earth = 0;
}

/* A bad EARTH_* value fails every open: say so once, on the lowest rank
 * that saw it (collective). */
static void env_report(MPI_Comm comm, int envrc)
{
    int me, mine, first;
    PMPI_Comm_rank(comm, &me);
    mine = envrc != MPI_SUCCESS ? me : INT_MAX;
    PMPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == me)
        fprintf(stderr, "mpiio-earth: %s (MPI_File_open returns %s)\n",
                earth_last_error(),
                envrc == MPI_ERR_ARG ? "MPI_ERR_ARG" : "MPI_ERR_INFO_VALUE");
}

int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                  MPI_File *fh)
{
    earth_hints_t h;
    int rc, inter = 0;
    earth_hints_defaults(&h);
    PMPI_Comm_test_inter(comm, &inter);
    if (inter)
        return PMPI_File_open(comm, filename, amode, info, fh);
    int envrc = earth_env_check();
    if (envrc == MPI_SUCCESS)
        envrc = earth_hints_env(&h);
    rc = envrc;
    if (rc == MPI_SUCCESS)
        rc = earth_hints_apply(&h, info);
    /* one allreduce: any rank's hint error, and whether the ranks span
     * several nodes */
    int contended = 0;
    rc = agree_open(comm, rc, &contended);
    if (rc != MPI_SUCCESS) {
        env_report(comm, envrc);
        return PMPI_File_call_errhandler(MPI_FILE_NULL, rc), rc;
    }
    rc = PMPI_File_open(comm, filename, amode, info, fh);
    if (rc != MPI_SUCCESS)
        return rc;
    earth_file_t *ef = calloc(1, sizeof(*ef));
    if (!ef) /* without a record the file is simply ROMIO's */
        return MPI_SUCCESS;
    ef->fh = *fh;
    ef->fd = -1;
    ef->amode = amode;
    ef->hints = h;
    ef->comm = MPI_COMM_NULL;
    ef->dupreq = MPI_REQUEST_NULL;
    PMPI_Comm_idup(comm, &ef->comm, &ef->dupreq);
    PMPI_Comm_rank(comm, &ef->rank);
    PMPI_Comm_size(comm, &ef->nprocs);
    ef->path = strdup(filename);
    ef->contended = contended;
    decide(ef);
    /* the rest only when EARTH will carry calls (else when set_info or
     * set_view first asks for it) */
    if (!ef->path || (ef->use_earth && file_setup(ef) != MPI_SUCCESS)) {
        /* every rank reaches the same verdict: the calls are collective
         * and deterministic */
        file_free(ef);
        return MPI_SUCCESS;
    }
    ef->next = files;
    files = ef;
    earth_log(2, "open %s: %d aggregators, cb_buffer_size %lld, %s", filename,
              ef->naggr, (long long)ef->cb_buffer_size,
              ef->use_earth ? "EARTH" : "collective calls to ROMIO");
    return MPI_SUCCESS;
}

int MPI_File_close(MPI_File *fh)
{
    earth_file_t *ef = fh ? earth_file_find(*fh) : NULL;
    /* MPI leaves completing the requests to the user; finish what the
     * progress thread has queued before ROMIO closes the file */
    if (ef)
        earth_async_free(ef);
    int rc = PMPI_File_close(fh);
    if (ef && rc == MPI_SUCCESS) {
        earth_file_t **p = &files;
        while (*p != ef)
            p = &(*p)->next;
        *p = ef->next;
        file_free(ef);
    }
    return rc;
}

/* Validate EARTH keys of info collectively, then let ROMIO run `op`. */
static int with_hints(earth_file_t *ef, MPI_Info info, earth_hints_t *nh)
{
    *nh = ef->hints;
    int rc = earth_hints_apply(nh, info);
    if (file_comm(ef) != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
    return agree_error(ef->comm, rc);
}

int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_hints_t nh;
    int rc;
    if (!ef)
        return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    earth_async_drain(ef);
    if ((rc = with_hints(ef, info, &nh)) != MPI_SUCCESS)
        return PMPI_File_call_errhandler(fh, rc), rc;
    rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    if (rc == MPI_SUCCESS) {
        ef->hints = nh;
        ef->view_valid = 0;
        earth_flat_free(&ef->ftype);
        if (ef->ready && earth_file_refresh_romio(ef) != MPI_SUCCESS)
            ef->hints.enable = 0;
        redecide(ef);
    }
    return rc;
}

int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_hints_t nh;
    int rc;
    if (!ef)
        return PMPI_File_set_info(fh, info);
    earth_async_drain(ef);
    if ((rc = with_hints(ef, info, &nh)) != MPI_SUCCESS)
        return PMPI_File_call_errhandler(fh, rc), rc;
    rc = PMPI_File_set_info(fh, info);
    if (rc == MPI_SUCCESS) {
        ef->hints = nh;
        if (ef->ready && earth_file_refresh_romio(ef) != MPI_SUCCESS)
            ef->hints.enable = 0;
        redecide(ef);
    }
    return rc;
}

int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    earth_file_t *ef = earth_file_find(fh);
    int rc = PMPI_File_get_info(fh, info_used);
    if (rc == MPI_SUCCESS && ef)
        rc = earth_hints_report(&ef->hints, *info_used);
    return rc;
}

int earth_file_view(earth_file_t *ef)
{
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    int size, a, b, c, k, rc = 0;
    if (ef->view_valid)
        return ef->view_native ? 0 : -ENOTSUP;
    PMPI_File_get_view(ef->fh, &ef->disp, &et, &ft, rep);
    ef->view_native = !strcmp(rep, "native");
    PMPI_Type_size(et, &size);
    ef->etype_size = size;
    earth_flat_free(&ef->ftype);
    rc = earth_flatten(ft, &ef->ftype);
    if (rc || !ef->ftype.monotone || ef->ftype.size == 0 ||
        ef->ftype.extent <= 0 || size <= 0)
        ef->view_native = 0; /* not ours to handle: ROMIO decides */
    /* get_view returns new handles for derived types */
    PMPI_Type_get_envelope(et, &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED)
        PMPI_Type_free(&et);
    PMPI_Type_get_envelope(ft, &a, &b, &c, &k);
    if (k != MPI_COMBINER_NAMED)
        PMPI_Type_free(&ft);
    ef->view_valid = 1;
    return ef->view_native ? 0 : -ENOTSUP;
}

int earth_file_stats(MPI_File fh, struct earth_stats *st)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_async_drain(ef);
    if (!st)
        return MPI_ERR_ARG;
    if (!ef)
        return MPI_ERR_FILE;
    *st = ef->stats;
    return MPI_SUCCESS;
}

int earth_file_stats_reset(MPI_File fh)
{
    earth_file_t *ef = earth_file_find(fh);
    earth_async_drain(ef);
    if (!ef)
        return MPI_ERR_FILE;
    int32_t n = ef->stats.naggr, a = ef->stats.is_aggr;
    memset(&ef->stats, 0, sizeof(ef->stats));
    ef->stats.naggr = n;
    ef->stats.is_aggr = a;
    return MPI_SUCCESS;
}

int earth_file_aggregators(MPI_File fh, int *ranks, int n)
{
    earth_file_t *ef = earth_file_find(fh);
    if (!ef)
        return -MPI_ERR_FILE;
    for (int i = 0; i < n && i < ef->naggr; i++)
        ranks[i] = ef->aggr[i];
    return ef->naggr;
}
