/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_init.c: the base of libmpideleg: log, layout from the environment,
 * error translation, the communicator table and MPICH's progress.  It
 * calls no other file of the library: what the other parts do when a
 * communicator comes or goes, or when collectives must move, they register
 * here (nm_base.h); the MPI entry points are in nm_mpi.c and nm_errh.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "nm_base.h"
#include "nm_internal.h"
#include "pvas_log.h"
#include "pvas_env.h"

nm_layout_t nm_lay;
int nm_active;
MPI_Comm nm_app_world = MPI_COMM_WORLD;
int nm_code_deleg_dead = MPI_ERR_OTHER;

/* The communicator table and the context ids this rank has claimed (by a
 * registered communicator or an agreement in progress); any thread. */
static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
static nm_comm_t *comms;
/* The application's world's record, found without the lock (most traffic
 * goes there): set when it enters the table, cleared when it leaves. */
static _Atomic(nm_comm_t *) world_comm;
static uint32_t next_ctx = 1;
static uint32_t *claimed;
static int nclaimed, capclaimed;
/* What the other parts do when a delegated communicator comes or goes. */
static nm_comm_events_t comm_events;
MPI_Comm nm_setup_comm = MPI_COMM_NULL;

/* MPI's progress rule: a client that waits for a delegated operation must
 * keep MPICH's own operations moving (nonblocking collectives, direct
 * point-to-point), since another rank may need them before it can send
 * what we wait for.  MPICH 4.0's ch4 answers a probe on a one-rank
 * communicator (MPI_COMM_SELF) from its self queue without any progress,
 * so the probe goes to the setup communicator (the whole real world, two
 * ranks at least), on a tag nobody sends: it never matches, and an
 * unmatched MPI_Iprobe runs one pass of MPICH's progress engine. */
#define NM_TAG_PROGRESS 8 /* nm_setup_comm: 7 carries the region spec */

void nm_mpi_progress(void)
{
    if (nm_setup_comm == MPI_COMM_NULL)
        return;
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, NM_TAG_PROGRESS, nm_setup_comm, &flag,
                MPI_STATUS_IGNORE);
}

/* The progress of the shim's own nonblocking collectives, which nm_coll.c
 * registers at MPI_Init: every wait of the library calls nm_coll_progress
 * without depending on that file. */
static _Atomic(nm_progress_fn *) coll_progress_fn;

void nm_coll_progress_set(nm_progress_fn *fn)
{
    atomic_store_explicit(&coll_progress_fn, fn, memory_order_release);
}

void nm_coll_progress(void)
{
    nm_progress_fn *fn =
        atomic_load_explicit(&coll_progress_fn, memory_order_acquire);
    if (fn)
        fn();
}

void nm_log(const char *fmt, ...)
{
    /* MPIDELEG_DEBUG other than 0 or 1: read_layout refuses it */
    va_list ap;
    va_start(ap, fmt);
    pvas_vlog(PVAS_LOG_MPIDELEG, PVAS_LOG_INFO, fmt, ap);
    va_end(ap);
}

/* Where this rank's time went (debug log): CPU time, and how often it
 * left the CPU by itself (waits, yields that ran another task) and was
 * taken off it (time slices). */
void nm_log_usage(const char *who)
{
    struct rusage u;
    if (getrusage(RUSAGE_SELF, &u) != 0)
        return;
    nm_log("%s: CPU %.3f s user, %.3f s system; %ld voluntary and %ld "
           "involuntary context switches",
           who, (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6,
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6,
           u.ru_nvcsw, u.ru_nivcsw);
}

/* ------------------------------------------------------------------ */
/* Layout                                                              */
/* ------------------------------------------------------------------ */

static int group_len(int g)
{
    int first = g * nm_lay.group;
    int n = nm_lay.world_size - first;
    return n < nm_lay.group ? n : nm_lay.group;
}

int nm_deleg_of(int w)
{
    int g = w / nm_lay.group;
    return g * nm_lay.group + group_len(g) - 1;
}

int nm_dcomm_rank_of(int w)
{
    return w / nm_lay.group;
}

int nm_board_of(int w)
{
    int g = w / nm_lay.group, pos = w % nm_lay.group;
    if (w == nm_deleg_of(w))
        return -1;
    return g * nm_lay.boards_per_deleg + pos / nm_lay.board_size;
}

/* The first bad setting of this rank, printed by nm_setup on the lowest
 * rank that has one: one line for the job, not one per rank. */
static char env_msg[512];

const char *nm_env_message(void)
{
    return env_msg;
}

void nm_env_bad(const char *fmt, ...)
{
    if (env_msg[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(env_msg, sizeof env_msg, fmt, ap);
    va_end(ap);
}

/* Read a positive integer variable; -1 on a bad value. */
static int env_count(const char *name, int dflt)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 1 || v > 1 << 20) {
        nm_env_bad("mpideleg: %s='%s' is not a positive integer" NM_ENV_CLASS
                   "\n",
                   name, s);
        return -1;
    }
    return (int)v;
}

int nm_env_policy(const char *name, dlg_policy_t dflt, dlg_policy_t *out)
{
    const char *s = getenv(name);
    *out = dflt;
    if (!s || !*s)
        return 0;
    int p = dlg_policy_parse(s);
    if (p < 0) {
        nm_env_bad("mpideleg: %s='%s' must be poll, block or "
                   "adaptive" NM_ENV_CLASS "\n",
                   name, s);
        return -1;
    }
    *out = (dlg_policy_t)p;
    return 0;
}

/* A variable that names one of `n` words (the first when unset or empty):
 * the word's index, or -1 with a one-line message on another value. */
static int env_word(const char *name, const char *const *words, int n)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(s, words[i]) == 0)
            return i;
    /* one write: the ranks of a node print it at once */
    char list[256];
    size_t k = 0;
    for (int i = 0; i < n && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", words[i],
                              i == n - 1   ? ""
                              : i == n - 2 ? " or "
                                           : ", ");
    nm_env_bad("mpideleg: %s='%s' must be %s" NM_ENV_CLASS "\n", name, s, list);
    return -1;
}

/* MPIDELEG_PLACE: 0 none, 1 hwloc (delegatees on the host CPUs, clients on
 * the board CPUs of libdeleg's layout), 2 pair (a delegatee and its
 * clients on one CPU, bound once the node is known to be oversubscribed:
 * nm_pair_bind); -1 on a bad value. */
static int env_place(void)
{
    static const char *const w[] = {"none", "hwloc", "pair"};
    return env_word("MPIDELEG_PLACE", w, 3);
}

/* MPIDELEG_PLACE=pair, in the process form with more ranks than CPUs on
 * the machine (not the default: it costs 1 MiB bandwidth, and latency
 * when other jobs share the CPUs; bench/RESULTS.md): bind this
 * rank to one CPU of those it may run on, the same for a delegatee and its
 * clients (its group's index modulo their number).  A client then sleeps
 * in a wait on the CPU of the delegatee that completes it, and that one
 * polls while its clients sleep (nm_deleg.c, idle_flags): per message one
 * wake-up on each side, no migration, no delegatee left waiting for a CPU
 * behind the other group's ranks.  Called by delegatee and clients of the
 * process form once the node is known to be oversubscribed (nm_lay.oversub,
 * the delegatee's word); 1 bound, 0 not. */
int nm_pair_bind(void)
{
    const char *s = getenv("MPIDELEG_PLACE");
    if (!s || strcmp(s, "pair") != 0 || nm_lay.oversub != 1)
        return 0;
    cpu_set_t cpus, one;
    if (sched_getaffinity(0, sizeof cpus, &cpus) != 0)
        return 0;
    int n = CPU_COUNT(&cpus);
    if (n < 1)
        return 0;
    int k = (nm_lay.world_rank / nm_lay.group) % n, cpu = -1;
    for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
        if (CPU_ISSET(c, &cpus) && k-- == 0)
            cpu = c;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        nm_log("MPIDELEG_PLACE=pair: cannot bind to CPU %d: %s", cpu,
               strerror(errno));
        return 0;
    }
    nm_log("MPIDELEG_PLACE=pair: bound to CPU %d", cpu);
    return 1;
}

/* MPIDELEG_OVERSUBSCRIBED: 2 auto (decided in nm_setup), 1 yes, 0 no; -1
 * on a bad value. */
static int env_oversub(void)
{
    static const char *const w[] = {"auto", "yes", "no"};
    int i = env_word("MPIDELEG_OVERSUBSCRIBED", w, 3);
    return i < 0 ? -1 : i == 0 ? 2 : i == 1;
}

/* MPIDELEG_CMA_MIN: bytes (a positive integer, at most 2^40); -1 with a
 * one-line message on another value. */
static int env_cma_min(uint64_t *out)
{
    const char *s = getenv("MPIDELEG_CMA_MIN");
    *out = 65536;
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || *s < '0' || *s > '9' || v < 1 || v > 1ull << 40) {
        nm_env_bad("mpideleg: MPIDELEG_CMA_MIN='%s' must be a number of bytes "
                   "(1 to 2^40)" NM_ENV_CLASS "\n",
                   s);
        return -1;
    }
    *out = v;
    return 0;
}

/* Bind this rank as MPIDELEG_PLACE says; 0 or -1 (message printed). */
static int place(int how)
{
    if (!how)
        return 0;
    dlg_layout_t *l = malloc(sizeof *l);
    if (!l)
        return -1;
    int e = dlg_layout_get(l);
    if (e == 0) {
        /* clients are numbered in world order, skipping delegatees */
        int idx = nm_lay.world_rank - nm_lay.world_rank / nm_lay.group;
        e = nm_lay.is_deleg ? dlg_place_delegatee(l) : dlg_place_client(l, idx);
    }
    free(l);
    if (e < 0) {
        fprintf(stderr, "mpideleg: MPIDELEG_PLACE=hwloc: rank %d: %s\n",
                nm_lay.world_rank, dlg_strerror(e));
        return -1;
    }
    return 0;
}

/* PVAS_LOG, and the on/off variables: unset, empty, 0 or 1. */
static int env_flags(void)
{
    static const char *const names[] = {"MPIDELEG_DISABLE",  "MPIDELEG_DEBUG",
                                        "MPIDELEG_NO_TURNS", "MPIDELEG_PIP",
                                        "MPIDELEG_QUIET",    "MPIDELEG_PACK"};
    const char *bad_log = pvas_log_env_error();
    if (bad_log != NULL) {
        nm_env_bad("mpideleg: %s" NM_ENV_CLASS "\n", bad_log);
        return -1;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int on;
        if (pvas_env_bool(names[i], 0, 0, &on) < 0) {
            nm_env_bad("mpideleg: %s='%s' must be %s" NM_ENV_CLASS "\n",
                       names[i], getenv(names[i]), pvas_env_bool_expected(0));
            return -1;
        }
    }
    static const char *const idle[] = {"adaptive", "poll", "spin"};
    return env_word("MPIDELEG_DELEGATEE_IDLE", idle, 3) < 0 ? -1 : 0;
}

int nm_layout_read(int (*parts_env)(void))
{
    if (env_flags() < 0)
        return -1;
    nm_lay.board_size = env_count("MPIDELEG_BOARD_SIZE", 1);
    nm_lay.boards_per_deleg = env_count("MPIDELEG_BOARDS_PER_DELEGATEE", 1);
    if (nm_lay.board_size < 0 || nm_lay.boards_per_deleg < 0)
        return -1;
    if (parts_env && parts_env() < 0)
        return -1;
    nm_lay.group = nm_lay.board_size * nm_lay.boards_per_deleg + 1;
    if (nm_lay.world_size < 2 || nm_lay.world_size % nm_lay.group == 1) {
        int n = nm_lay.world_size;
        nm_env_bad("mpideleg: %d rank%s cannot form delegatee groups of %d "
                   "(MPIDELEG_BOARDS_PER_DELEGATEE=%d x "
                   "MPIDELEG_BOARD_SIZE=%d clients + 1 delegatee): %s; "
                   "change MPIDELEG_BOARD_SIZE or the number of ranks\n",
                   n, n == 1 ? "" : "s", nm_lay.group, nm_lay.boards_per_deleg,
                   nm_lay.board_size,
                   n < 2 ? "a job needs a client and a delegatee"
                         : "the last group would have no client");
        return -1;
    }
    nm_lay.is_deleg = nm_deleg_of(nm_lay.world_rank) == nm_lay.world_rank;
    static const char *const cma[] = {"auto", "pull", "push", "off"};
    if ((nm_lay.oversub = env_oversub()) < 0 ||
        (nm_lay.cma_mode = env_word("MPIDELEG_CMA", cma, 4)) < 0 ||
        env_cma_min(&nm_lay.cma_min))
        return -1;
    if (nm_lay.cma_mode == NM_CMA_OFF)
        nm_lay.cma_min = 0;
    int how = env_place();
    return how < 0 ? -1 : place(how == 1);
}

int nm_disabled(void)
{
    /* other values: nm_layout_read refuses them */
    return pvas_env_on("MPIDELEG_DISABLE", 0);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

int nm_errno_to_mpi(int e)
{
    switch (e) {
    case 0:
        return MPI_SUCCESS;
    case -ENOMEM:
        return MPI_ERR_NO_MEM;
    case -EOWNERDEAD:
    case -ENOTCONN:
        return nm_code_deleg_dead;
    case -EINVAL:
        return MPI_ERR_ARG;
    default:
        return MPI_ERR_OTHER;
    }
}

int nm_error(MPI_Comm comm, int code)
{
    if (code != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(nm_xl(comm), code);
    return code;
}

/* Completion calls the shim makes for itself (freed requests, the halves
 * of an Isendrecv) must not raise errors through the application's world
 * handler: the error belongs to a freed request, or is raised once by the
 * request the application waits for. */
MPI_Errhandler nm_quiet_begin(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return eh;
}

void nm_quiet_end(MPI_Errhandler eh)
{
    if (eh == MPI_ERRHANDLER_NULL)
        return;
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    PMPI_Errhandler_free(&eh);
}

/* MPICH 4.0 garbles the strings of error codes added to predefined classes
 * (MPI_Add_error_code), so the reason goes to stderr, once per call name,
 * and the caller gets the plain class. */
int nm_refuse(MPI_Comm comm, const char *what)
{
    static const char *told[32];
    unsigned i;
    pthread_mutex_lock(&comm_lock);
    for (i = 0; i < 32 && told[i] && told[i] != what; i++)
        ;
    int tell = i < 32 && !told[i];
    if (tell)
        told[i] = what;
    pthread_mutex_unlock(&comm_lock);
    if (tell) {
        fprintf(stderr,
                "mpideleg: %s is not supported on a communicator that spans "
                "boards (MPI_ERR_UNSUPPORTED_OPERATION)\n",
                what);
    }
    return nm_error(comm, MPI_ERR_UNSUPPORTED_OPERATION);
}

/* ------------------------------------------------------------------ */
/* Communicator table                                                  */
/* ------------------------------------------------------------------ */

MPI_Comm nm_xl(MPI_Comm c)
{
    return c == MPI_COMM_WORLD ? nm_app_world : c;
}

nm_comm_t *nm_comm_find(MPI_Comm c)
{
    if (!nm_active)
        return NULL;
    c = nm_xl(c);
    nm_comm_t *w = atomic_load_explicit(&world_comm, memory_order_acquire);
    if (w && w->handle == c)
        return w;
    pthread_mutex_lock(&comm_lock);
    nm_comm_t *p = comms;
    while (p && p->handle != c)
        p = p->next;
    pthread_mutex_unlock(&comm_lock);
    return p;
}

/* comm_lock held */
static int claimed_has(uint32_t v)
{
    for (int i = 0; i < nclaimed; i++)
        if (claimed[i] == v)
            return 1;
    return 0;
}

static int claim(uint32_t v)
{
    if (nclaimed == capclaimed) {
        int cap = capclaimed ? 2 * capclaimed : 64;
        uint32_t *n = realloc(claimed, sizeof *n * (size_t)cap);
        if (!n)
            return -1;
        claimed = n;
        capclaimed = cap;
    }
    claimed[nclaimed++] = v;
    return 0;
}

static void unclaim(uint32_t v)
{
    for (int i = 0; i < nclaimed; i++)
        if (claimed[i] == v) {
            claimed[i] = claimed[--nclaimed];
            return;
        }
}

/*
 * Agree on a context id for the new delegated communicator nc: the
 * largest next id of the members, taken only if no member has claimed it
 * meanwhile for another communicator (threads may create communicators
 * concurrently on other parents); otherwise again above it.  Ids are never
 * reused, so a message of a freed communicator cannot match a new one.
 */
static int agree_ctx(MPI_Comm nc, uint32_t *out)
{
    uint32_t floor = 0;
    for (;;) {
        pthread_mutex_lock(&comm_lock);
        uint32_t mine = next_ctx > floor ? next_ctx : floor, all = 0;
        pthread_mutex_unlock(&comm_lock);
        int rc = PMPI_Allreduce(&mine, &all, 1, MPI_UINT32_T, MPI_MAX, nc);
        if (rc != MPI_SUCCESS)
            return rc;
        pthread_mutex_lock(&comm_lock);
        int ok = !claimed_has(all) && claim(all) == 0, allok = 0;
        if (all >= next_ctx)
            next_ctx = all + 1;
        pthread_mutex_unlock(&comm_lock);
        rc = PMPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, nc);
        if (rc == MPI_SUCCESS && allok) {
            *out = all;
            return MPI_SUCCESS;
        }
        if (ok) {
            pthread_mutex_lock(&comm_lock);
            unclaim(all);
            pthread_mutex_unlock(&comm_lock);
        }
        if (rc != MPI_SUCCESS)
            return rc;
        floor = all + 1;
    }
}

int nm_comm_delegated(MPI_Comm c)
{
    nm_comm_t *p = nm_comm_find(c);
    return p && p->delegated;
}

int nm_comm_rank_of_world(const nm_comm_t *c, int world)
{
    for (int i = 0; i < c->size; i++)
        if (c->world[i] == world)
            return i;
    return MPI_UNDEFINED;
}

/* Called by every member of a new communicator (collective). */
int nm_comm_register(MPI_Comm nc)
{
    if (!nm_active || nc == MPI_COMM_NULL)
        return MPI_SUCCESS;
    int inter = 0, rc;
    PMPI_Comm_test_inter(nc, &inter);
    if (inter)
        return MPI_SUCCESS; /* inter-communicators go straight to MPICH */
    nm_comm_t *p = calloc(1, sizeof *p);
    if (!p)
        return MPI_ERR_NO_MEM;
    PMPI_Comm_size(nc, &p->size);
    p->world = malloc(sizeof(int) * (size_t)p->size);
    int *idx = malloc(sizeof(int) * (size_t)p->size);
    if (!p->world || !idx) {
        free(p->world);
        free(idx);
        free(p);
        return MPI_ERR_NO_MEM;
    }
    MPI_Group g, wg;
    PMPI_Comm_group(nc, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < p->size; i++)
        idx[i] = i;
    PMPI_Group_translate_ranks(g, p->size, idx, wg, p->world);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    free(idx);
    int b0 = nm_board_of(p->world[0]);
    for (int i = 1; i < p->size; i++)
        if (nm_board_of(p->world[i]) != b0)
            p->delegated = 1;
    if (p->delegated && (rc = agree_ctx(nc, &p->ctx)) != MPI_SUCCESS) {
        free(p->world);
        free(p);
        return rc;
    }
    p->handle = nc;
    p->shadow = MPI_COMM_NULL;
    pthread_mutex_lock(&comm_lock);
    p->next = comms;
    comms = p;
    if (nc == nm_app_world)
        atomic_store_explicit(&world_comm, p, memory_order_release);
    pthread_mutex_unlock(&comm_lock);
    nm_log("communicator %#x: %d ranks, %s, ctx %u", (unsigned)nc, p->size,
           p->delegated ? "delegated" : "direct", p->ctx);
    return p->delegated && comm_events.created ? comm_events.created(p)
                                               : MPI_SUCCESS;
}

/* Partitioned messages of a delegated communicator must match only
 * partitioned receives: they travel on a record with the same members and
 * context id | bit 31 (ids are allocated from 1 upwards), under a private
 * handle that takes the communicator's error handler.  Local: no member
 * needs to agree on anything. */
MPI_Comm nm_comm_shadow(MPI_Comm comm)
{
    nm_comm_t *c = nm_comm_find(comm);
    if (!c || !c->delegated)
        return MPI_COMM_NULL;
    if (c->shadow == MPI_COMM_NULL)
        c->shadow = nm_comm_alias(c, 0x80000000u);
    return c->shadow;
}

/* A record with the members of c and the context id c->ctx | bit under a
 * private handle (a duplicate of MPI_COMM_SELF) that takes c's error
 * handler.  Bit 31: partitioned traffic; bit 30: the inter-board messages
 * of collectives (nm_coll.c).  Local: no member needs to agree. */
MPI_Comm nm_comm_alias(nm_comm_t *c, uint32_t bit)
{
    nm_comm_t *p;
    MPI_Comm h;
    MPI_Errhandler eh;
    if (PMPI_Comm_dup(MPI_COMM_SELF, &h) != MPI_SUCCESS)
        return MPI_COMM_NULL;
    p = calloc(1, sizeof *p);
    int *w = malloc(sizeof(int) * (size_t)c->size);
    if (!p || !w) {
        free(p);
        free(w);
        PMPI_Comm_free(&h);
        return MPI_COMM_NULL;
    }
    if (PMPI_Comm_get_errhandler(c->handle, &eh) == MPI_SUCCESS) {
        PMPI_Comm_set_errhandler(h, eh);
        PMPI_Errhandler_free(&eh);
    }
    memcpy(w, c->world, sizeof(int) * (size_t)c->size);
    *p = (nm_comm_t){.handle = h,
                     .delegated = 1,
                     .ctx = c->ctx | bit,
                     .size = c->size,
                     .world = w,
                     .shadow = MPI_COMM_NULL};
    pthread_mutex_lock(&comm_lock);
    p->next = comms;
    comms = p;
    pthread_mutex_unlock(&comm_lock);
    return h;
}

void nm_comm_forget(MPI_Comm c)
{
    nm_comm_t *p = NULL;
    pthread_mutex_lock(&comm_lock);
    for (nm_comm_t **pp = &comms; *pp; pp = &(*pp)->next) {
        if ((*pp)->handle == c) {
            p = *pp;
            *pp = p->next;
            if (atomic_load_explicit(&world_comm, memory_order_relaxed) == p)
                atomic_store_explicit(&world_comm, NULL, memory_order_relaxed);
            if (p->delegated)
                unclaim(p->ctx);
            break;
        }
    }
    pthread_mutex_unlock(&comm_lock);
    if (p) {
        if (comm_events.forgotten)
            comm_events.forgotten(p);
        free(p->world);
        free(p);
    }
}

void nm_comm_events_set(const nm_comm_events_t *ev)
{
    comm_events = *ev;
}

/* MPI_Finalize: forget every communicator and every claimed context id. */
void nm_comm_table_clear(void)
{
    while (comms)
        nm_comm_forget(comms->handle);
    free(claimed);
    claimed = NULL;
    nclaimed = capclaimed = 0;
}

void nm_dead_grace(void)
{
    for (int i = 0; i < NM_DEAD_GRACE_MS / 50; i++)
        usleep(50000);
}
