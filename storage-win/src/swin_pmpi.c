/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swin_pmpi.c: the MPI interposition layer of libmpi-storagewin.
 *
 * A storage window is a file region mapped MAP_SHARED and handed to
 * PMPI_Win_create, so MPICH treats it as ordinary memory: every RMA
 * operation, lock, flush and fence works unchanged.  What this layer adds:
 * the allocation (agreed collectively, so that an error on one rank is an
 * error on all and nobody hangs in PMPI_Win_create), durable syncs in
 * MPI_Win_sync and MPI_Win_free, the window flavour and shared-memory query
 * answers a program expects from MPI_Win_allocate(_shared), and, for
 * persistent coarrays, durable syncs at OpenCoarrays' sync all (MPI_Barrier)
 * and sync images (its tagged messages completed in MPI_Waitany).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvas_log.h"
#include "swin_internal.h"

#define EXPORT __attribute__((visibility("default")))

struct swin_win {
    MPI_Win win;
    int flavor; /* MPI_WIN_FLAVOR_ALLOCATE or MPI_WIN_FLAVOR_SHARED */
    struct swin_map map;
    struct swin_cfg cfg;
    int is_owner_of_name; /* unlinks the file at free */
    double last_sync;
    /* Shared windows: every rank's segment as seen from this process. */
    int nranks;
    char **rank_base;
    MPI_Aint *rank_size;
    int *rank_du;
    struct swin_win *next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct swin_win *wins;
static swin_stats_t freed_stats;
static int npcaf; /* live PCAF windows */

static struct swin_win *find_locked(MPI_Win win)
{
    for (struct swin_win *w = wins; w != NULL; w = w->next)
        if (w->win == win)
            return w;
    return NULL;
}

static struct swin_win *find(MPI_Win win)
{
    pthread_mutex_lock(&reg_lock);
    struct swin_win *w = find_locked(win);
    pthread_mutex_unlock(&reg_lock);
    return w;
}

static void win_destroy(struct swin_win *w, int do_unlink)
{
    swin_map_close(&w->map, do_unlink);
    swin_cfg_clear(&w->cfg);
    free(w->rank_base);
    free(w->rank_size);
    free(w->rank_du);
    free(w);
}

/* The part of raising e that does not depend on the object: a fatal
 * handler aborts with MPICH's text for the class only, so the message is
 * printed first; the handle got from *_get_errhandler is released. */
static void check_handler(MPI_Errhandler *eh, MPI_Comm abort_comm,
                          const struct swin_err *e)
{
    if (*eh == MPI_ERRORS_ARE_FATAL) {
        if (!e->printed)
            fprintf(stderr, "storage-win: %s\n", e->msg);
        pvas_log_drain(); /* the launcher has the line before the abort */
        if (e->printed) /* the rank that printed it has handed it on */
            PMPI_Barrier(abort_comm);
        PMPI_Abort(abort_comm, e->mpi_class);
    }
    if (*eh != MPI_ERRORS_RETURN && *eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(eh);
}

/* Raise e through comm's error handler and return the error code. */
static int raise_comm(MPI_Comm comm, const struct swin_err *e)
{
    int code = swin_err_to_code(e);
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    struct swin_err env_e;
    if (e->env_first) {
        /* a bad SWIN_* / PCAF_* value: one line, from the lowest rank
         * that has one, with the class every rank raises */
        int rank = 0;
        PMPI_Comm_rank(comm, &rank);
        if (rank == e->env_first - 1)
            fprintf(stderr,
                    "storage-win: %s (MPI_ERR_ARG, raised on the "
                    "communicator)\n",
                    e->msg);
        env_e = *e;
        env_e.printed = 1;
        e = &env_e;
    }
    PMPI_Comm_get_errhandler(comm, &eh);
    check_handler(&eh, comm, e);
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}

/* Raise e through win's error handler and return the error code. */
static int raise_win(MPI_Win win, const struct swin_err *e)
{
    int code = swin_err_to_code(e);
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Win_get_errhandler(win, &eh);
    check_handler(&eh, MPI_COMM_WORLD, e);
    PMPI_Win_call_errhandler(win, code);
    return code;
}

EXPORT int MPI_Error_string(int code, char *string, int *resultlen)
{
    const char *msg = swin_err_lookup(code);
    if (msg == NULL)
        return PMPI_Error_string(code, string, resultlen);
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", msg);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

/* Every rank learns the worst error class of the collective step; a rank
 * that was fine locally reports that another rank failed. */
static int agree(MPI_Comm comm, struct swin_err *e)
{
    /* the worst class, and the lowest rank with a bad environment value
     * (it alone prints the message: one line for the job) */
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    int mine[2] = {e->mpi_class, e->env ? -rank : INT_MIN}, m[2];
    int ok = PMPI_Allreduce(mine, m, 2, MPI_INT, MPI_MAX, comm);
    int worst = m[0];
    if (ok == MPI_SUCCESS && m[1] != INT_MIN)
        e->env_first = 1 - m[1];
    if (ok != MPI_SUCCESS) {
        swin_err_set(e, MPI_ERR_OTHER,
                     "storage window: agreement among the ranks failed");
        return -1;
    }
    if (worst == MPI_SUCCESS)
        return 0;
    if (mine[0] == MPI_SUCCESS)
        swin_err_set(e, worst,
                     "storage window: the allocation failed on another rank");
    return -1;
}

/* Durable sync of one window, subject to its rate limit unless forced. */
static int win_sync_durable(struct swin_win *w, int force)
{
    double now = swin_now();
    if (!force && w->cfg.sync_interval_ms > 0 && w->last_sync > 0 &&
        (now - w->last_sync) * 1000.0 < (double)w->cfg.sync_interval_ms) {
        w->map.st.skipped_syncs++;
        return 0;
    }
    int rc = swin_map_sync(&w->map);
    w->last_sync = swin_now();
    swin_log(3, "durable sync of '%s': %llu pages in %.6f s", w->map.path,
             (unsigned long long)w->map.st.last_pages,
             w->map.st.last_sync_seconds);
    return rc;
}

static void register_win(struct swin_win *w)
{
    pthread_mutex_lock(&reg_lock);
    w->next = wins;
    wins = w;
    if (w->cfg.pcaf)
        npcaf++;
    pthread_mutex_unlock(&reg_lock);
}

/* Decide whether this allocation is ours: an alloc_type key, or PCAF. */
static int prepare_cfg(MPI_Info info, MPI_Aint size, MPI_Comm comm,
                       int allow_pcaf, struct swin_cfg *cfg, struct swin_err *e,
                       int *managed)
{
    *managed = 0;
    if (swin_env_check(e) != 0) {
        memset(cfg, 0, sizeof(*cfg));
        *managed = 1;
        return -1;
    }
    int rc = swin_cfg_from_info(info, cfg, e);
    int pcaf = allow_pcaf ? swin_pcaf_enabled() : 0;
    if (cfg->type_given || pcaf != 0)
        *managed = 1;
    if (rc != 0)
        return -1;
    if (!cfg->type_given && pcaf != 0) {
        swin_cfg_clear(cfg);
        if (swin_pcaf_cfg(comm, size, cfg, e) < 0)
            return -1;
    }
    if (cfg->storage && swin_track_init() != 0) {
        swin_err_set(e, MPI_ERR_OTHER,
                     "storage window: SWIN_TRACK='%s' is not usable here "
                     "(auto, uffd or msync)",
                     getenv("SWIN_TRACK") ? getenv("SWIN_TRACK") : "");
        return -1;
    }
    return 0;
}

EXPORT int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
                            MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    struct swin_cfg cfg;
    struct swin_err e = {MPI_SUCCESS, "", 0, 0, 0};
    struct swin_win *w = NULL;
    int managed;

    if (prepare_cfg(info, size, comm, 1, &cfg, &e, &managed) == 0 &&
        cfg.storage) {
        if (size < 0)
            swin_err_set(&e, MPI_ERR_SIZE, "storage window: negative size");
        else if (disp_unit <= 0)
            swin_err_set(&e, MPI_ERR_DISP,
                         "storage window: disp_unit must be positive");
    }
    if (!managed)
        return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
    if (e.mpi_class == MPI_SUCCESS && cfg.storage) {
        w = calloc(1, sizeof(*w));
        if (w == NULL)
            swin_err_set(&e, MPI_ERR_NO_MEM, "out of memory");
        else if (swin_map_open(&w->map, &cfg, &e) != 0)
            w->map.addr = NULL;
    }
    if (agree(comm, &e) != 0)
        goto fail;
    if (!cfg.storage) {
        swin_cfg_clear(&cfg);
        return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr, win);
    }
    if (swin_map_map(&w->map, &cfg, (size_t)size, &e) != 0)
        swin_log(2, "%s", e.msg); /* agreed on below */
    if (agree(comm, &e) != 0)
        goto fail;

    void *base =
        w->map.addr != NULL ? (char *)w->map.addr + w->map.delta : NULL;
    int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
    if (rc != MPI_SUCCESS) {
        win_destroy(w, 0);
        swin_cfg_clear(&cfg);
        return rc;
    }
    w->win = *win;
    w->flavor = MPI_WIN_FLAVOR_ALLOCATE;
    w->cfg = cfg;
    w->is_owner_of_name = 1;
    register_win(w);
    swin_log(2, "storage window %#x: %lld bytes at offset %lld of '%s'",
             (unsigned)*win, (long long)size, cfg.offset, w->map.path);
    *(void **)baseptr = base;
    return MPI_SUCCESS;

fail:
    if (w != NULL)
        win_destroy(w, w->map.created && w->map.fd >= 0);
    swin_cfg_clear(&cfg);
    *win = MPI_WIN_NULL;
    return raise_comm(comm, &e);
}

/* Rank 0's file name and offset govern a shared window. */
static int bcast_cfg(struct swin_cfg *cfg, int rank, MPI_Comm comm)
{
    long long hdr[5] = {cfg->offset, cfg->offset_given, cfg->unlink_at_free,
                        cfg->discard, 0};
    if (rank == 0)
        hdr[4] = (long long)strlen(cfg->filename) + 1;
    if (PMPI_Bcast(hdr, 5, MPI_LONG_LONG, 0, comm) != MPI_SUCCESS)
        return -1;
    if (rank != 0) {
        free(cfg->filename);
        cfg->filename = malloc((size_t)hdr[4]);
        if (cfg->filename == NULL)
            return -1;
        cfg->offset = hdr[0];
        cfg->offset_given = (int)hdr[1];
        cfg->unlink_at_free = (int)hdr[2];
        cfg->discard = (int)hdr[3];
    }
    return PMPI_Bcast(cfg->filename, (int)hdr[4], MPI_CHAR, 0, comm) ==
                   MPI_SUCCESS
               ? 0
               : -1;
}

EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                   MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    struct swin_cfg cfg;
    struct swin_err e = {MPI_SUCCESS, "", 0, 0, 0};
    struct swin_win *w = NULL;
    int managed, rank, nranks;
    long page = sysconf(_SC_PAGESIZE);

    if (prepare_cfg(info, size, comm, 0, &cfg, &e, &managed) == 0 &&
        cfg.storage && (size < 0 || disp_unit <= 0))
        swin_err_set(&e, size < 0 ? MPI_ERR_SIZE : MPI_ERR_DISP,
                     "storage window: invalid size or disp_unit");
    if (!managed) {
        swin_cfg_clear(&cfg);
        return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr,
                                        win);
    }
    if (agree(comm, &e) != 0)
        goto fail;
    if (!cfg.storage) {
        swin_cfg_clear(&cfg);
        return PMPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr,
                                        win);
    }
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nranks);
    w = calloc(1, sizeof(*w));
    if (w != NULL) {
        w->rank_base = calloc((size_t)nranks, sizeof(*w->rank_base));
        w->rank_size = calloc((size_t)nranks, sizeof(*w->rank_size));
        w->rank_du = calloc((size_t)nranks, sizeof(*w->rank_du));
    }
    if (w == NULL || w->rank_base == NULL || w->rank_size == NULL ||
        w->rank_du == NULL) {
        swin_err_set(&e, MPI_ERR_NO_MEM, "out of memory");
    }
    if (agree(comm, &e) != 0)
        goto fail;
    w->nranks = nranks;
    if (PMPI_Allgather(&size, 1, MPI_AINT, w->rank_size, 1, MPI_AINT, comm) !=
            MPI_SUCCESS ||
        PMPI_Allgather(&disp_unit, 1, MPI_INT, w->rank_du, 1, MPI_INT, comm) !=
            MPI_SUCCESS ||
        bcast_cfg(&cfg, rank, comm) != 0) {
        swin_err_set(&e, MPI_ERR_OTHER, "storage window: exchange failed");
        goto fail;
    }
    int noncontig = 0;
    if (info != MPI_INFO_NULL) {
        char v[16];
        int flag = 0;
        PMPI_Info_get(info, "alloc_shared_noncontig", sizeof(v) - 1, v, &flag);
        if (flag && swin_parse_bool(v, &noncontig) != 0)
            noncontig = 0;
    }
    /* Segments follow each other in rank order (page-aligned with
     * alloc_shared_noncontig), inside one region of rank 0's file. */
    size_t total = 0;
    for (int r = 0; r < nranks; r++) {
        size_t s = (size_t)w->rank_size[r];
        if (noncontig)
            s = (s + (size_t)page - 1) / (size_t)page * (size_t)page;
        total += s;
    }
    /* Rank 0 checks and creates the file before the others open it. */
    if (rank == 0 && swin_map_open(&w->map, &cfg, &e) != 0)
        swin_log(2, "%s", e.msg); /* agreed on below */
    if (agree(comm, &e) != 0)
        goto fail;
    if (rank != 0) {
        cfg.offset_given = 0;
        if (swin_map_open(&w->map, &cfg, &e) != 0)
            swin_log(2, "%s", e.msg); /* agreed on below */
    }
    if (agree(comm, &e) != 0)
        goto fail;
    if (swin_map_map(&w->map, &cfg, total, &e) != 0)
        swin_log(2, "%s", e.msg); /* agreed on below */
    if (agree(comm, &e) != 0)
        goto fail;
    char *p = w->map.addr != NULL ? (char *)w->map.addr + w->map.delta : NULL;
    for (int r = 0; r < nranks; r++) {
        size_t s = (size_t)w->rank_size[r];
        w->rank_base[r] = p;
        if (noncontig)
            s = (s + (size_t)page - 1) / (size_t)page * (size_t)page;
        if (p != NULL)
            p += s;
    }
    void *base = w->rank_base[rank];
    int rc = PMPI_Win_create(base, size, disp_unit, info, comm, win);
    if (rc != MPI_SUCCESS) {
        win_destroy(w, 0);
        swin_cfg_clear(&cfg);
        return rc;
    }
    w->win = *win;
    w->flavor = MPI_WIN_FLAVOR_SHARED;
    w->cfg = cfg;
    w->is_owner_of_name = rank == 0;
    register_win(w);
    *(void **)baseptr = base;
    return MPI_SUCCESS;

fail:
    if (w != NULL)
        win_destroy(w, w->map.created && w->map.fd >= 0);
    swin_cfg_clear(&cfg);
    *win = MPI_WIN_NULL;
    return raise_comm(comm, &e);
}

EXPORT int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
                                int *disp_unit, void *baseptr)
{
    struct swin_win *w = find(win);
    if (w == NULL)
        return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return PMPI_Win_shared_query(win, rank, size, disp_unit, baseptr);
    if (rank == MPI_PROC_NULL) {
        for (rank = 0; rank < w->nranks - 1 && w->rank_size[rank] == 0; rank++)
            ;
    }
    if (rank < 0 || rank >= w->nranks) {
        struct swin_err e = {MPI_SUCCESS, "", 0, 0, 0};
        swin_err_set(&e, MPI_ERR_RANK,
                     "storage window: shared query of rank %d", rank);
        return raise_win(win, &e);
    }
    *size = w->rank_size[rank];
    *disp_unit = w->rank_du[rank];
    *(void **)baseptr = w->rank_base[rank];
    return MPI_SUCCESS;
}

EXPORT int MPI_Win_get_attr(MPI_Win win, int keyval, void *attr, int *flag)
{
    static int flavor_allocate = MPI_WIN_FLAVOR_ALLOCATE;
    static int flavor_shared = MPI_WIN_FLAVOR_SHARED;
    int rc = PMPI_Win_get_attr(win, keyval, attr, flag);
    if (rc != MPI_SUCCESS || keyval != MPI_WIN_CREATE_FLAVOR || !*flag)
        return rc;
    struct swin_win *w = find(win);
    if (w != NULL)
        *(int **)attr = w->flavor == MPI_WIN_FLAVOR_SHARED ? &flavor_shared
                                                           : &flavor_allocate;
    return rc;
}

static int raise_win_errno(MPI_Win win, const struct swin_win *w, int err)
{
    struct swin_err e = {MPI_SUCCESS, "", 0, 0, 0};
    swin_err_set(&e, swin_errno_class(-err),
                 "storage window: durable sync of '%s' failed: %s", w->map.path,
                 strerror(-err));
    return raise_win(win, &e);
}

EXPORT int MPI_Win_sync(MPI_Win win)
{
    int rc = PMPI_Win_sync(win);
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&reg_lock);
    struct swin_win *w = find_locked(win);
    int err = w != NULL ? win_sync_durable(w, 0) : 0;
    pthread_mutex_unlock(&reg_lock);
    if (err != 0)
        return raise_win_errno(win, w, err);
    return MPI_SUCCESS;
}

EXPORT int MPI_Win_free(MPI_Win *win)
{
    pthread_mutex_lock(&reg_lock);
    struct swin_win **pp = &wins, *w = NULL;
    for (; *pp != NULL; pp = &(*pp)->next)
        if ((*pp)->win == *win) {
            w = *pp;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    if (w == NULL)
        return PMPI_Win_free(win);

    MPI_Errhandler eh = MPI_ERRORS_ARE_FATAL;
    PMPI_Win_get_errhandler(*win, &eh);
    /* Free first: it completes every RMA operation that targets us. */
    int rc = PMPI_Win_free(win);
    if (rc != MPI_SUCCESS) {
        if (eh != MPI_ERRORS_ARE_FATAL)
            PMPI_Errhandler_free(&eh);
        return rc;
    }
    pthread_mutex_lock(&reg_lock);
    for (pp = &wins; *pp != NULL; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    if (w->cfg.pcaf)
        npcaf--;
    int err = w->cfg.discard ? 0 : win_sync_durable(w, 1);
    swin_stats_add(&freed_stats, &w->map.st);
    pthread_mutex_unlock(&reg_lock);

    struct swin_err e = {MPI_SUCCESS, "", 0, 0, 0};
    if (err != 0)
        swin_err_set(&e, swin_errno_class(-err),
                     "storage window: durable sync of '%s' at free failed: "
                     "%s",
                     w->map.path, strerror(-err));
    win_destroy(w, w->cfg.unlink_at_free && w->is_owner_of_name);
    int returns = eh == MPI_ERRORS_RETURN;
    if (eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_RETURN)
        PMPI_Errhandler_free(&eh);
    if (e.mpi_class == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (returns)
        return swin_err_to_code(&e);
    return raise_comm(MPI_COMM_SELF, &e);
}

/* Persistent coarrays: sync all and sync images are storage sync points. */
static void pcaf_sync_point(void)
{
    if (npcaf == 0)
        return;
    pthread_mutex_lock(&reg_lock);
    for (struct swin_win *w = wins; w != NULL; w = w->next)
        if (w->cfg.pcaf && win_sync_durable(w, 0) != 0)
            swin_log(1, "durable sync of '%s' failed", w->map.path);
    pthread_mutex_unlock(&reg_lock);
}

EXPORT int MPI_Barrier(MPI_Comm comm)
{
    int rc = PMPI_Barrier(comm);
    if (rc == MPI_SUCCESS)
        pcaf_sync_point();
    return rc;
}

EXPORT int MPI_Waitany(int count, MPI_Request reqs[], int *index,
                       MPI_Status *status)
{
    MPI_Status st;
    int rc = PMPI_Waitany(count, reqs, index, &st);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    if (rc == MPI_SUCCESS && npcaf > 0 && *index != MPI_UNDEFINED &&
        st.MPI_TAG == SWIN_CAF_SYNC_IMAGES_TAG)
        pcaf_sync_point();
    return rc;
}

EXPORT int MPI_Finalize(void)
{
    /* Windows a program never freed still get their final durable sync. */
    pthread_mutex_lock(&reg_lock);
    for (struct swin_win *w = wins; w != NULL; w = w->next)
        if (!w->cfg.discard && win_sync_durable(w, 1) != 0)
            swin_log(1, "durable sync of '%s' at finalize failed", w->map.path);
    pthread_mutex_unlock(&reg_lock);
    return PMPI_Finalize();
}

/* ---- C API ---------------------------------------------------------- */

EXPORT int swin_win_is_storage(MPI_Win win)
{
    return win != MPI_WIN_NULL && find(win) != NULL;
}

EXPORT int swin_win_get_stats(MPI_Win win, swin_stats_t *st)
{
    if (st == NULL)
        return -EINVAL;
    pthread_mutex_lock(&reg_lock);
    struct swin_win *w = find_locked(win);
    if (w != NULL)
        *st = w->map.st;
    pthread_mutex_unlock(&reg_lock);
    return w != NULL ? 0 : -EINVAL;
}

EXPORT int swin_get_process_stats(swin_stats_t *st)
{
    if (st == NULL)
        return -EINVAL;
    pthread_mutex_lock(&reg_lock);
    *st = freed_stats;
    for (struct swin_win *w = wins; w != NULL; w = w->next)
        swin_stats_add(st, &w->map.st);
    pthread_mutex_unlock(&reg_lock);
    return 0;
}

EXPORT int swin_win_sync_durable(MPI_Win win)
{
    pthread_mutex_lock(&reg_lock);
    struct swin_win *w = find_locked(win);
    int rc = w != NULL ? win_sync_durable(w, 1) : -EINVAL;
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

EXPORT int swin_track_mode(void)
{
    return swin_track_mode_used;
}
