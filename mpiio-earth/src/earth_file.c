/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_file.c: EARTH's state of the files it knows: the per-communicator
 * duplicates (cached as attributes of the user's communicators), the file
 * records and their registry, the hand-over decision, ROMIO's effective
 * hints, the aggregator ranks and the cached view.  The MPI_File_* calls
 * that create and change this state are in earth_open.c.
 */
#include "earth_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#ifdef EARTH_HAVE_HWLOC
#include <hwloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Threads of an MPI_THREAD_MULTIPLE program may open, use and close
 * different files at once: the registry below, the keyval and the bases'
 * counts are shared by them (MPICH's own lock does not cover this
 * library's code).  reg_lock guards the list and the keyval's creation
 * (the keyval is read atomically); counts change atomically.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- per-communicator duplicates ---- */

static int base_key = MPI_KEYVAL_INVALID;

void earth_base_put(earth_base_t *b)
{
    if (b && __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        PMPI_Comm_free(&b->comm);
        free(b);
    }
}

/* The user's communicator is freed (or MPI finalized): drop its
 * reference; files still open keep theirs. */
static int base_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm;
    (void)key;
    (void)extra;
    earth_base_put(val);
    return MPI_SUCCESS;
}

earth_base_t *earth_base_find(MPI_Comm comm)
{
    earth_base_t *b = NULL;
    int flag = 0;
    int key = __atomic_load_n(&base_key, __ATOMIC_ACQUIRE);
    if (key == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, key, &b, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    /* comm is in use by this call: its attribute's reference holds */
    __atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
    return b;
}

earth_base_t *earth_base_attach(MPI_Comm comm, MPI_Comm dup)
{
    earth_base_t *b = malloc(sizeof(*b));
    pthread_mutex_lock(&reg_lock);
    int key = base_key;
    if (key == MPI_KEYVAL_INVALID) {
        if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, base_delete, &key,
                                    NULL) == MPI_SUCCESS)
            __atomic_store_n(&base_key, key, __ATOMIC_RELEASE);
        else
            key = MPI_KEYVAL_INVALID;
    }
    pthread_mutex_unlock(&reg_lock);
    if (b) {
        b->comm = dup;
        b->refs = 2; /* the attribute's and the caller's */
    }
    if (!b || key == MPI_KEYVAL_INVALID ||
        PMPI_Comm_set_attr(comm, key, b) != MPI_SUCCESS) {
        free(b);
        PMPI_Comm_free(&dup);
        return NULL;
    }
    return b;
}

/* ---- file records ---- */

static earth_file_t *files;

earth_file_t *earth_file_find(MPI_File fh)
{
    earth_file_t *f;
    pthread_mutex_lock(&reg_lock);
    for (f = files; f; f = f->next)
        if (f->fh == fh)
            break;
    pthread_mutex_unlock(&reg_lock);
    return f;
}

void earth_file_add(earth_file_t *ef)
{
    pthread_mutex_lock(&reg_lock);
    ef->next = files;
    files = ef;
    pthread_mutex_unlock(&reg_lock);
}

void earth_file_remove(earth_file_t *ef)
{
    pthread_mutex_lock(&reg_lock);
    earth_file_t **p = &files;
    while (*p && *p != ef)
        p = &(*p)->next;
    if (*p)
        *p = ef->next;
    pthread_mutex_unlock(&reg_lock);
}

void earth_file_free(earth_file_t *ef)
{
    if (ef->fd >= 0)
        close(ef->fd);
    if (ef->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&ef->comm);
    earth_base_put(ef->base);
    earth_flat_free(&ef->ftype);
    free(ef->aggr);
    free(ef->path);
    free(ef);
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
 * 1 MiB calls.  `contended` (the node count) is agreed on at open.
 */
void earth_file_decide(earth_file_t *ef)
{
    if (ef->hints.enable != 2)
        ef->use_earth = ef->hints.enable;
    else
        ef->use_earth =
            ef->contended || ef->hints.tuned || ef->hints.striping_factor > 1;
}

earth_file_t *earth_file_new(MPI_File fh, earth_base_t *base, int amode,
                             const char *path, const earth_hints_t *h,
                             int contended)
{
    earth_file_t *ef = calloc(1, sizeof(*ef));
    if (!ef || !(ef->path = strdup(path))) {
        free(ef);
        earth_base_put(base);
        return NULL;
    }
    ef->fh = fh;
    ef->base = base;
    ef->comm = MPI_COMM_NULL;
    ef->fd = -1;
    ef->amode = amode;
    ef->hints = *h;
    ef->contended = contended;
    PMPI_Comm_rank(base->comm, &ef->rank);
    PMPI_Comm_size(base->comm, &ef->nprocs);
    earth_file_decide(ef);
    return ef;
}

int earth_agree(MPI_Comm comm, int rc)
{
    int bad = rc != MPI_SUCCESS, any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any && rc == MPI_SUCCESS)
        rc = MPI_ERR_INFO_VALUE;
    return rc;
}

/* ---- what EARTH needs to carry calls ---- */

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

int earth_file_prepare(earth_file_t *ef)
{
    int rc;
    if (ef->comm == MPI_COMM_NULL &&
        (rc = PMPI_Comm_dup(ef->base->comm, &ef->comm)) != MPI_SUCCESS)
        return rc;
    if ((rc = earth_file_refresh_romio(ef)) != MPI_SUCCESS ||
        (rc = place_aggregators(ef)) != MPI_SUCCESS)
        return rc;
    if (ef->my_aggr >= 0 && ef->fd < 0) {
        int fl = (ef->amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR;
        ef->fd = open(earth_strip_prefix(ef->path), fl | O_CLOEXEC);
        ef->fd_err = ef->fd < 0 ? errno : 0;
    }
    return MPI_SUCCESS;
}

/* ROMIO accepts "prefix:name" to force a file-system driver. */
const char *earth_strip_prefix(const char *name)
{
    static const char *pfx[] = {"ufs:",  "nfs:", "testfs:", "lustre:",
                                "gpfs:", "xfs:", "pvfs2:",  "daos:"};
    for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
        if (!strncmp(name, pfx[i], strlen(pfx[i])))
            return name + strlen(pfx[i]);
    return name;
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
