/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_mpi.c: the top of libmpideleg: MPI_Init and MPI_Finalize, which put
 * the parts together and register their hooks with the base (nm_init.c),
 * and the communicator constructors, which register their result.
 */
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpideleg.h"
#include "nm_base.h"
#include "nm_coll.h"
#include "nm_internal.h"
#include "pvas_log.h"
#include "pvas_env.h"

static int pip_form(void);

/* One line on rank 0 (always a client): what the application will see,
 * so that "Process 0 of 1" from mpiexec -n 2 is not a surprise.
 * MPIDELEG_QUIET=1 silences it. */
static void banner(void)
{
    if (nm_lay.world_rank != 0 || pvas_env_on("MPIDELEG_QUIET", 0))
        return;
    int ngroups = (nm_lay.world_size + nm_lay.group - 1) / nm_lay.group;
    int clients = nm_lay.world_size - ngroups;
    char list[128];
    size_t k = 0;
    for (int g = 0; g < ngroups && k < sizeof list - 8; g++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", g ? "," : "",
                              nm_deleg_of(g * nm_lay.group));
    if (ngroups > 0 && k >= sizeof list - 8)
        snprintf(list + k, sizeof list - k, ",...");
    fprintf(stderr,
            "mpideleg: %d processes: %d application ranks on boards of %d, "
            "%d delegatee%s (world ranks %s)%s; MPIDELEG_QUIET=1 silences "
            "this line\n",
            nm_lay.world_size, clients, nm_lay.board_size, ngroups,
            ngroups == 1 ? "" : "s", list, pip_form() ? ", PiP form" : "");
}

/* The settings of the other parts, read where the layout always read
 * them: the wait policies and the collectives. */
static int parts_env(void)
{
    if (nm_env_policy("MPIDELEG_POLICY_BLOCKING", DLG_POLICY_POLL,
                      &nm_policy_blocking) ||
        nm_env_policy("MPIDELEG_POLICY_NONBLOCKING", DLG_POLICY_ADAPTIVE,
                      &nm_policy_nonblocking))
        return -1;
    return nm_coll_env() < 0 ? -1 : 0;
}

/* MPICH's and the shim's share of MPI_Init, for PVAS_LOG=mpideleg:debug
 * (where a job's start-up goes). */
static double init_t0, init_t1, t_comms, t_client;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Wait for the start-up's collectives without spinning in MPICH: a rank
 * that comes early (its MPI_Init was quicker, or its PiP task was spawned
 * first) would otherwise spin on a CPU that the node's later ranks need for
 * their own MPI_Init, on a node with fewer CPUs than ranks (every job of
 * the shim's: the delegatees are ranks too).  MPI_Testall drives the
 * collectives; a nap of 200 us between passes costs little against the
 * milliseconds each of their rounds takes when the ranks share CPUs. */
static int nap_waitall(int n, MPI_Request *rq)
{
    int done = 0, rc = MPI_SUCCESS;
    MPI_Status st[4]; /* not MPI_STATUSES_IGNORE: gcc 12's access check */
    if (n > 4)
        return MPI_ERR_COUNT;
    while (rc == MPI_SUCCESS && !done) {
        rc = PMPI_Testall(n, rq, &done, st);
        if (rc == MPI_SUCCESS && !done)
            usleep(200);
    }
    return rc;
}

static int nm_setup(void)
{
    PMPI_Comm_size(MPI_COMM_WORLD, &nm_lay.world_size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &nm_lay.world_rank);
    pvas_log_set_rank(nm_lay.world_rank);
    if (nm_disabled())
        return MPI_SUCCESS;
    /* Every rank learns whether any rank failed (the reason is printed by
     * the ranks that did); then all end with status 2 through
     * MPI_Finalize: an abort would race the launcher's forwarding of that
     * line, and a rank left alone in the next collective would hang. */
    int bad = nm_layout_read(parts_env) < 0;
    int mine = bad ? nm_lay.world_rank : INT_MAX, first = INT_MAX;
    /* The check and the setup communicator's duplicate of the real world
     * in one wait (their rounds overlap) */
    MPI_Request rq[2];
    int rc = PMPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD,
                             &rq[0]);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Comm_idup(MPI_COMM_WORLD, &nm_setup_comm, &rq[1]);
        rc = rc == MPI_SUCCESS ? nap_waitall(2, rq) : rc;
    }
    if (rc != MPI_SUCCESS || first != INT_MAX) {
        if (first == nm_lay.world_rank && nm_env_message()[0])
            fputs(nm_env_message(), stderr);
        if (rc == MPI_SUCCESS)
            PMPI_Comm_free(&nm_setup_comm);
        PMPI_Finalize();
        exit(2);
    }
    /* Do the ranks of this node outnumber its CPUs (all ranks take part:
     * the split is collective)? */
    MPI_Comm node;
    int nlocal = 1, ncpu = 1;
    /* hydra tells every rank: a collective less at start-up (the shim's
     * split of MPI_COMM_WORLD by node otherwise) */
    const char *ln = getenv("MPI_LOCALNRANKS");
    char *end = NULL;
    long lnv = ln && *ln ? strtol(ln, &end, 10) : 0;
    if (end && !*end && lnv >= 1 && lnv <= nm_lay.world_size)
        nlocal = (int)lnv;
    else if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                                  MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        PMPI_Comm_size(node, &nlocal);
        PMPI_Comm_free(&node);
    }
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0)
        ncpu = CPU_COUNT(&cpus);
    if (nm_lay.oversub == 2)
        nm_lay.oversub = nlocal > ncpu;
    MPI_Comm part;
    rc = PMPI_Comm_split(MPI_COMM_WORLD, nm_lay.is_deleg, nm_lay.world_rank,
                         &part);
    if (rc != MPI_SUCCESS)
        return rc;
    t_comms = now_s();
    banner();
    if (nm_lay.is_deleg)
        nm_delegatee_main(nm_setup_comm, part); /* never returns */
    nm_app_world = part;
    nm_comm_events_set(&(nm_comm_events_t){.created = nm_coll_register,
                                           .forgotten = nm_coll_forget});
    nm_coll_progress_set(nm_coll_run);
    nm_active = 1;
    rc = nm_client_start(nm_setup_comm);
    t_client = now_s();
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "mpideleg: rank %d cannot reach its delegatee\n",
                nm_lay.world_rank);
        pvas_log_drain(); /* the launcher has the line before the abort */
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    PMPI_Comm_set_errhandler(nm_app_world, MPI_ERRORS_ARE_FATAL);
    /* the application's MPI_COMM_WORLD keeps its predefined name */
    PMPI_Comm_set_name(nm_app_world, "MPI_COMM_WORLD");
    /* nm_mpi_progress() ignores what its probe returns (a dead delegatee
     * is the client's own check) */
    PMPI_Comm_set_errhandler(nm_setup_comm, MPI_ERRORS_RETURN);
    return nm_comm_register(nm_app_world);
}

/* The PiP form (mpideleg-pip sets MPIDELEG_PIP): a delegatee's MPICH is
 * also driven by client threads of its process (one at a time, under the
 * turn lock), so every rank asks for at least MPI_THREAD_SERIALIZED. */
static int pip_form(void)
{
    return pvas_env_on("MPIDELEG_PIP", 0) && !nm_disabled();
}

static int setup_timed(void)
{
    int rc = nm_setup();
    if (t_client > 0)
        pvas_log(PVAS_LOG_MPIDELEG, PVAS_LOG_DEBUG,
                 "MPI_Init: MPICH %.1f ms, the shim's setup %.1f ms "
                 "(communicators %.1f, meeting the delegatee %.1f, the "
                 "rest %.1f)",
                 1e3 * (init_t1 - init_t0), 1e3 * (now_s() - init_t1),
                 1e3 * (t_comms - init_t1), 1e3 * (t_client - t_comms),
                 1e3 * (now_s() - t_client));
    return rc;
}

int MPI_Init(int *argc, char ***argv)
{
    int provided;
    init_t0 = now_s();
    int rc = pip_form() ? PMPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED,
                                           &provided)
                        : PMPI_Init(argc, argv);
    init_t1 = now_s();
    return rc == MPI_SUCCESS ? setup_timed() : rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (pip_form() && required < MPI_THREAD_SERIALIZED)
        required = MPI_THREAD_SERIALIZED;
    init_t0 = now_s();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    init_t1 = now_s();
    return rc == MPI_SUCCESS ? setup_timed() : rc;
}

/* The job ends through MPICH's abort of its real MPI_COMM_WORLD, which
 * tells the launcher the code (hydra's mpiexec returns it): MPICH aborts
 * any other communicator, the client communicator the application knows
 * as MPI_COMM_WORLD included, by messages to its members only, and the
 * launcher would see the hidden delegatees fail instead.  MPI allows an
 * abort of every process; this is what a job script checking mpiexec's
 * status needs. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (!nm_active)
        return PMPI_Abort(comm, errorcode);
    fflush(NULL);
    return PMPI_Abort(MPI_COMM_WORLD, errorcode);
}

int MPI_Finalize(void)
{
    if (nm_active) {
        nm_pers_finalize();
        nm_coll_finalize();
        nm_client_stop();
        nm_active = 0;
        nm_comm_table_clear();
        PMPI_Comm_free(&nm_app_world);
        nm_app_world = MPI_COMM_WORLD;
        PMPI_Comm_free(&nm_setup_comm);
    }
    return PMPI_Finalize();
}

/* MPI Sessions would need their communicators split and delegated like
 * the world's, which the shim does not do: refused at once (a session
 * program would otherwise run its hidden delegatee ranks as application
 * ranks and wait forever for them). */
int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler,
                     MPI_Session *session)
{
    if (nm_disabled())
        return PMPI_Session_init(info, errhandler, session);
    fprintf(stderr, "mpideleg: MPI_Session_init: MPI Sessions are not "
                    "supported under libmpideleg "
                    "(MPI_ERR_UNSUPPORTED_OPERATION; MPIDELEG_DISABLE=1 runs "
                    "without it)\n");
    if (session)
        *session = MPI_SESSION_NULL;
    if (errhandler == MPI_ERRORS_ARE_FATAL || errhandler == MPI_ERRORS_ABORT)
        exit(2);
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

/* ------------------------------------------------------------------ */
/* Communicator constructors: register the result                      */
/* ------------------------------------------------------------------ */

#define NM_REG(call, out)                                                      \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS)                                                \
            return rc_;                                                        \
        return nm_comm_register(*(out));                                       \
    } while (0)

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    NM_REG(PMPI_Comm_dup(nm_xl(comm), newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    NM_REG(PMPI_Comm_dup_with_info(nm_xl(comm), info, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    NM_REG(PMPI_Comm_split(nm_xl(comm), color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm)
{
    NM_REG(PMPI_Comm_split_type(nm_xl(comm), split_type, key, info, newcomm),
           newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    NM_REG(PMPI_Comm_create(nm_xl(comm), group, newcomm), newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                          MPI_Comm *newcomm)
{
    NM_REG(PMPI_Comm_create_group(nm_xl(comm), group, tag, newcomm), newcomm);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                    const int periods[], int reorder, MPI_Comm *comm_cart)
{
    NM_REG(
        PMPI_Cart_create(nm_xl(comm), ndims, dims, periods, reorder, comm_cart),
        comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    NM_REG(PMPI_Cart_sub(nm_xl(comm), remain_dims, newcomm), newcomm);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int indx[],
                     const int edges[], int reorder, MPI_Comm *comm_graph)
{
    NM_REG(PMPI_Graph_create(nm_xl(comm), nnodes, indx, edges, reorder,
                             comm_graph),
           comm_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[],
                          const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *comm_dist_graph)
{
    NM_REG(PMPI_Dist_graph_create(nm_xl(comm), n, sources, degrees,
                                  destinations, weights, info, reorder,
                                  comm_dist_graph),
           comm_dist_graph);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree,
                                   const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[],
                                   const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *comm_dist_graph)
{
    NM_REG(PMPI_Dist_graph_create_adjacent(
               nm_xl(comm), indegree, sources, sourceweights, outdegree,
               destinations, destweights, info, reorder, comm_dist_graph),
           comm_dist_graph);
}

/* Non-blocking duplication cannot run the registration's collective: the
 * new communicator is left direct (MPICH), which is always correct. */
int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return PMPI_Comm_idup(nm_xl(comm), newcomm, request);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm && *comm != MPI_COMM_WORLD)
        nm_comm_forget(*comm);
    return PMPI_Comm_free(comm);
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    if (comm && *comm != MPI_COMM_WORLD)
        nm_comm_forget(*comm);
    return PMPI_Comm_disconnect(comm);
}

int mpideleg_comm_delegated(MPI_Comm comm, int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = nm_comm_delegated(comm);
    return MPI_SUCCESS;
}
