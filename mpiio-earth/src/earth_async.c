/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_async.c: the nonblocking collective forms (MPI_File_iwrite_all and
 * friends) progressed asynchronously.
 *
 * A nonblocking collective must return before the other ranks have joined
 * it: a rank may post MPI_File_iwrite_all and then exchange point-to-point
 * messages with a peer that posts it only afterwards.  EARTH's two-phase
 * algorithm is collective, so it cannot run inside the posting call.  Each
 * file therefore gets, at its first nonblocking call, a progress thread
 * that runs the posted operations one after another, in posting order (the
 * same on every rank, as MPI requires for collectives on one file), on a
 * private duplicate of the file's communicator, and completes a
 * generalized request for each.  The posting call only captures the
 * arguments, moves the individual file pointer (as MPI specifies for
 * nonblocking accesses: at initiation, by the amount requested) and
 * returns the request.
 *
 * This needs MPI_THREAD_MULTIPLE: the library's MPI_Init / MPI_Init_thread
 * ask MPICH for it (EARTH_ASYNC=0 keeps the level the program asked for).
 * Without it the nonblocking forms are handed to ROMIO's own nonblocking
 * implementation, which progresses through MPI_Test/MPI_Wait.
 *
 * Every other EARTH call on the file (blocking and split collectives, view
 * and info changes, close, the statistics) first waits until the file's
 * progress thread has finished what was posted ("drain"), so that the file
 * state is used by one thread at a time.  The progress threads of
 * different ranks depend only on each other, never on the posting
 * threads, so a drain cannot deadlock.
 */
#include "earth_internal.h"
#include "pvas_log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pvas_env.h"

#pragma GCC visibility push(default)

static int thread_level = -1; /* what MPI_Init_thread provided */

/* Unset EARTH_ASYNC: ask for MPI_THREAD_MULTIPLE only where EARTH may
 * carry calls by default (earth_enable=auto): not when hydra says every
 * rank runs on this node and nothing in the environment asks for EARTH
 * (a file given EARTH hints in the program then gets ROMIO's nonblocking
 * forms).  MPICH's multi-threaded mode costs ROMIO's own calls too. */
static int earth_may_run(void)
{
    static const char *const asks[] = {"EARTH_REQ", "EARTH_STEPS",
                                       "EARTH_AGGR_LAYOUT", "EARTH_FD_STRIPES"};
    const char *e = getenv("EARTH_ENABLE");
    if (pvas_env_on("EARTH_DISABLE", 0))
        return 0;
    if ((e && !strcmp(e, "enable")) || pvas_env_on("EARTH_FSEMU", 0))
        return 1;
    for (size_t i = 0; i < sizeof(asks) / sizeof(asks[0]); i++)
        if (getenv(asks[i]))
            return 1;
    const char *local = getenv("MPI_LOCALNRANKS"), *size = getenv("PMI_SIZE");
    return !(local && size && *local && !strcmp(local, size));
}

static int async_wanted(void)
{
    int on; /* a bad value fails the first MPI_File_open */
    const char *e = getenv("EARTH_ASYNC");
    if (e && *e && pvas_bool_parse(e, 0, &on) == 0)
        return on;
    return earth_may_run();
}

/* EARTH's log lines carry the rank (ENVIRONMENT.md, PVAS_LOG). */
static void log_rank(void)
{
    int rank;
    if (PMPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS)
        pvas_log_set_rank(rank);
}

int MPI_Init(int *argc, char ***argv)
{
    int provided;
    if (!async_wanted()) {
        int rc = PMPI_Init(argc, argv);
        if (rc == MPI_SUCCESS) {
            PMPI_Query_thread(&thread_level);
            log_rank();
        }
        return rc;
    }
    return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int want = async_wanted() ? MPI_THREAD_MULTIPLE : required;
    int rc = PMPI_Init_thread(argc, argv, want, provided);
    if (rc == MPI_SUCCESS) {
        thread_level = *provided;
        log_rank();
    }
    earth_log(2, "thread level %d (asked %d)", *provided, required);
    return rc;
}

#pragma GCC visibility pop

int earth_async_available(void)
{
    if (thread_level < 0) {
        /* initialised by someone who bypassed our MPI_Init */
        int lvl = MPI_THREAD_SINGLE, inited = 0;
        PMPI_Initialized(&inited);
        if (inited)
            PMPI_Query_thread(&lvl);
        thread_level = lvl;
    }
    return thread_level == MPI_THREAD_MULTIPLE && async_wanted();
}

typedef struct earth_job {
    struct earth_job *next;
    int is_write;
    MPI_Offset pos; /* explicit offset, etypes */
    void *buf;
    int count;
    MPI_Datatype type; /* a duplicate, freed by the progress thread */
    int local_fallback;
    earth_greq_t *g;
    MPI_Request req;
} earth_job_t;

struct earth_async {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t work; /* a job was queued, or stop */
    pthread_cond_t idle; /* the queue is empty and nothing runs */
    earth_job_t *head, *tail;
    int running; /* a job is being carried out */
    int th_started;
    int stop;
    MPI_Comm comm; /* private duplicate for the progress thread */
};

/* Generalized-request callbacks: the request reports the bytes moved. */
static int greq_query(void *extra, MPI_Status *status)
{
    earth_greq_t *g = extra;
    PMPI_Status_set_elements_x(status, MPI_BYTE, g->nbytes);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = g->err;
    return g->err;
}

void earth_greq_put(earth_greq_t *g)
{
    if (__atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(g);
}

static int greq_free(void *extra)
{
    earth_greq_put(extra);
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* cannot be cancelled: it simply completes */
}

/*
 * Waiting for a request completed by another thread.  MPICH's MPI_Wait on
 * a plain generalized request polls its progress engine in a loop, holding
 * MPICH's global lock during every poll and yielding it only briefly in
 * between, while the progress thread needs that lock for each MPI call it
 * makes (and ROMIO holds it for the whole of a call handed to it).
 * Requests made with MPIX_Grequest_start and a poll function are waited
 * for differently: MPI_Wait calls the poll function with the global lock
 * released and checks completion after each call.  The poll function below
 * sleeps on a condition variable (at most POLL_WAIT_US) until the request
 * is done, so a waiting rank leaves the lock and the core to the progress
 * thread.  MPI_Test, which calls it once, returns at once the first time
 * and waits at most that long when called again right away (a test loop).
 */
#define POLL_WAIT_US 1000

static pthread_mutex_t done_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;

static void greq_mark_done(earth_greq_t *g)
{
    pthread_mutex_lock(&done_mu);
    __atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&done_cv);
    pthread_mutex_unlock(&done_mu);
}

/* Sleep until g is done or usec have passed (usec < 0: no limit). */
static void greq_sleep(earth_greq_t *g, long usec)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    if (usec >= 0) {
        t.tv_nsec += (usec % 1000000) * 1000;
        t.tv_sec += usec / 1000000 + t.tv_nsec / 1000000000;
        t.tv_nsec %= 1000000000;
    }
    pthread_mutex_lock(&done_mu);
    while (!__atomic_load_n(&g->done, __ATOMIC_ACQUIRE)) {
        if (usec < 0)
            pthread_cond_wait(&done_cv, &done_mu);
        else if (pthread_cond_timedwait(&done_cv, &done_mu, &t) == ETIMEDOUT)
            break;
    }
    pthread_mutex_unlock(&done_mu);
}

static int greq_poll(void *extra, MPI_Status *status)
{
    earth_greq_t *g = extra;
    (void)status;
    /* the first poll (an MPI_Test) returns at once; repeated ones wait */
    if (!__atomic_load_n(&g->done, __ATOMIC_ACQUIRE) &&
        __atomic_fetch_add(&g->polls, 1, __ATOMIC_RELAXED) > 0)
        greq_sleep(g, POLL_WAIT_US);
    return MPI_SUCCESS;
}

static int greq_wait(int count, void **states, double timeout,
                     MPI_Status *status)
{
    (void)status;
    for (int i = 0; i < count; i++)
        greq_sleep(states[i], timeout > 0 ? (long)(timeout * 1e6) : -1);
    return MPI_SUCCESS;
}

int earth_greq_start(earth_greq_t **gp, MPI_Request *req)
{
    earth_greq_t *g = calloc(1, sizeof(*g));
    if (!g)
        return MPI_ERR_NO_MEM;
    g->refs = 2;
    int rc = PMPIX_Grequest_start(greq_query, greq_free, greq_cancel, greq_poll,
                                  greq_wait, g, req);
    if (rc != MPI_SUCCESS) {
        free(g);
        return rc;
    }
    *gp = g;
    return MPI_SUCCESS;
}

/* ROMIO's blocking explicit-offset form, for a fallback agreed by all. */
static int romio_at_all(earth_file_t *ef, earth_job_t *j, MPI_Count *nb)
{
    MPI_Status st;
    int rc = j->is_write ? PMPI_File_write_at_all(ef->fh, j->pos, j->buf,
                                                  j->count, j->type, &st)
                         : PMPI_File_read_at_all(ef->fh, j->pos, j->buf,
                                                 j->count, j->type, &st);
    if (rc == MPI_SUCCESS)
        PMPI_Get_elements_x(&st, MPI_BYTE, nb);
    return rc;
}

static void run_job(earth_file_t *ef, MPI_Comm comm, earth_job_t *j)
{
    int fb = 0;
    MPI_Count nb = 0;
    int rc = earth_coll_rw(ef, comm, j->is_write, j->pos, j->buf, j->count,
                           j->type, j->local_fallback, &fb, &nb);
    if (fb) {
        ef->stats.fallbacks++;
        earth_log(2, "nonblocking call handed to ROMIO");
        nb = 0;
        rc = romio_at_all(ef, j, &nb);
    }
    earth_log(3, "nonblocking collective %s done: %lld bytes, error %d",
              j->is_write ? "write" : "read", (long long)nb, rc);
    j->g->nbytes = nb;
    j->g->err = rc;
    PMPI_Type_free(&j->type);
    /* after this the request belongs to the user (j->g stays ours until
     * the put) */
    PMPI_Grequest_complete(j->req);
    greq_mark_done(j->g);
    earth_greq_put(j->g);
}

static void *progress_main(void *arg)
{
    earth_file_t *ef = arg;
    struct earth_async *a = ef->async;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        while (!a->head && !a->stop)
            pthread_cond_wait(&a->work, &a->mu);
        if (!a->head)
            break; /* stop with nothing queued */
        earth_job_t *j = a->head;
        a->head = j->next;
        if (!a->head)
            a->tail = NULL;
        a->running = 1;
        pthread_mutex_unlock(&a->mu);
        run_job(ef, a->comm, j);
        free(j);
        pthread_mutex_lock(&a->mu);
        a->running = 0;
        if (!a->head)
            pthread_cond_broadcast(&a->idle);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int earth_async_setup(earth_file_t *ef)
{
    if (!earth_async_available())
        return MPI_SUCCESS;
    struct earth_async *a = calloc(1, sizeof(*a));
    if (!a)
        return MPI_ERR_NO_MEM;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->idle, NULL);
    a->comm = MPI_COMM_NULL;
    int rc = PMPI_Comm_dup(ef->comm, &a->comm);
    if (rc != MPI_SUCCESS) {
        free(a);
        return rc;
    }
    ef->async = a;
    return MPI_SUCCESS;
}

int earth_async_post(earth_file_t *ef, int is_write, MPI_Offset pos, void *buf,
                     int count, MPI_Datatype type, int local_fallback,
                     MPI_Request *req)
{
    struct earth_async *a = ef->async;
    if (!a)
        return MPI_ERR_INTERN;
    earth_job_t *j = calloc(1, sizeof(*j));
    if (!j)
        return MPI_ERR_NO_MEM;
    j->is_write = is_write;
    j->pos = pos;
    j->buf = buf;
    j->count = count;
    j->local_fallback = local_fallback;
    /* the user may free the datatype before the request completes */
    int rc = PMPI_Type_dup(type, &j->type);
    if (rc != MPI_SUCCESS) {
        free(j);
        return rc;
    }
    rc = earth_greq_start(&j->g, &j->req);
    if (rc != MPI_SUCCESS) {
        PMPI_Type_free(&j->type);
        free(j);
        return rc;
    }
    *req = j->req;
    pthread_mutex_lock(&a->mu);
    if (!a->th_started) {
        if (pthread_create(&a->th, NULL, progress_main, ef) != 0) {
            pthread_mutex_unlock(&a->mu);
            /* no thread: carry it out here (may block, but completes) */
            run_job(ef, a->comm, j);
            free(j);
            return MPI_SUCCESS;
        }
        a->th_started = 1;
    }
    if (a->tail)
        a->tail->next = j;
    else
        a->head = j;
    a->tail = j;
    pthread_cond_signal(&a->work);
    pthread_mutex_unlock(&a->mu);
    return MPI_SUCCESS;
}

void earth_async_drain(earth_file_t *ef)
{
    struct earth_async *a = ef ? ef->async : NULL;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    while (a->head || a->running)
        pthread_cond_wait(&a->idle, &a->mu);
    pthread_mutex_unlock(&a->mu);
}

void earth_async_free(earth_file_t *ef)
{
    struct earth_async *a = ef->async;
    if (!a)
        return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_signal(&a->work);
    int started = a->th_started;
    pthread_mutex_unlock(&a->mu);
    if (started)
        pthread_join(a->th, NULL);
    if (a->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&a->comm);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->idle);
    pthread_mutex_destroy(&a->mu);
    free(a);
    ef->async = NULL;
}
