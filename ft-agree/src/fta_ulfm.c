/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_ulfm.c: the ULFM calls (MPIX_Comm_*) and the interposed
 * communicator constructors.  The communication calls that report failed
 * peers and revoked communicators are in fta_comm.c.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "fta_mpi_int.h"
#include "mpix_ft.h"

int fta_mpi_error(MPI_Comm comm, int code)
{
    int cls;
    switch (code) {
    case 0:
        return MPI_SUCCESS;
    case FTA_EPROCFAILED:
        cls = MPIX_ERR_PROC_FAILED;
        break;
    case FTA_EREVOKED:
        cls = MPIX_ERR_REVOKED;
        break;
    case -ENOMEM:
        cls = MPI_ERR_NO_MEM;
        break;
    case -EINVAL:
        cls = MPI_ERR_ARG;
        break;
    case -EBUSY:
        cls = MPI_ERR_PENDING;
        break;
    default:
        cls = code > 0 ? code : MPI_ERR_INTERN; /* already an MPI class */
        break;
    }
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_call_errhandler(comm, cls);
    return cls;
}

static void acked_list(const ftcomm_t *fc, uint32_t *out)
{
    for (int i = 0; i < fc->nacked; i++)
        out[i] = (uint32_t)fc->failed[i];
}

static int agree_start(ftcomm_t *fc, int flag, uint64_t *inst)
{
    uint32_t *acked = malloc(((size_t)fc->nacked + 1) * sizeof *acked);
    if (!acked)
        return -ENOMEM;
    acked_list(fc, acked);
    int rc =
        fta_agree_start(fc->node, flag, NULL, acked, (size_t)fc->nacked, inst);
    free(acked);
    return rc;
}

/* Record the decided failures in the detection-ordered list too, and as
 * failures of the job: a member may learn of a failure first (or only)
 * from a decision, before its own detector declares the process, and
 * MPI_Finalize must not then wait for that process in PMPI_Finalize. */
static void adopt_failed(ftcomm_t *fc, const fta_decision_t *d)
{
    for (uint32_t i = 0; i < d->nfailed; i++) {
        int r = (int)d->failed[i];
        if (r < fc->size)
            fta_world_failed(fc->world[r]);
        fta_comm_add_failed(fc, r);
    }
}

int fta_agree_blocking(ftcomm_t *fc, int *flag, fta_decision_t *dec)
{
    uint64_t inst;
    memset(dec, 0, sizeof *dec);
    fta_progress();
    int rc = agree_start(fc, *flag, &inst);
    /* Spin briefly (a decision often arrives within microseconds), then
     * yield: ranks may share cores. */
    for (int spins = 0;
         rc >= 0 && (rc = fta_agree_test(fc->node, inst, dec)) == 0; spins++) {
        if (spins > FTA_SPIN)
            sched_yield();
        fta_progress();
    }
    if (rc < 0)
        return rc;
    adopt_failed(fc, dec);
    *flag = dec->value;
    return dec->rc;
}

ftcomm_t *fta_need(MPI_Comm comm)
{
    if (!fta_rt.up || comm == MPI_COMM_NULL)
        return NULL;
    return fta_comm_find(comm);
}

FTA_EXPORT int MPIX_Comm_agree(MPI_Comm comm, int *flag)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !flag)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_decision_t d;
    int rc = fta_agree_blocking(fc, flag, &d);
    fta_decision_release(&d);
    return fta_mpi_error(comm, rc);
}

typedef struct iagree {
    ftcomm_t *fc;
    MPI_Comm comm;
    uint64_t inst;
    int *flag;
    int rc;
    int done;
    MPI_Request req;
} iagree_t;

static int ia_query(void *extra, MPI_Status *st)
{
    iagree_t *ia = extra;
    PMPI_Status_set_elements(st, MPI_INT, 1);
    PMPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    st->MPI_ERROR = ia->rc;
    return ia->rc;
}

static int ia_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int ia_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static int ia_poll(void *extra, MPI_Status *st)
{
    iagree_t *ia = extra;
    (void)st;
    if (ia->done)
        return MPI_SUCCESS;
    fta_progress();
    fta_decision_t d;
    int rc = fta_agree_test(ia->fc->node, ia->inst, &d);
    if (rc == 0)
        return MPI_SUCCESS;
    if (rc > 0) {
        adopt_failed(ia->fc, &d);
        *ia->flag = d.value;
        rc = d.rc;
        fta_decision_release(&d);
    }
    ia->rc = fta_mpi_error(MPI_COMM_NULL, rc);
    ia->done = 1;
    PMPI_Grequest_complete(ia->req);
    return MPI_SUCCESS;
}

static int ia_wait(int count, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    for (int i = 0; i < count; i++) {
        iagree_t *ia = states[i];
        while (!ia->done) {
            ia_poll(ia, st);
            if (!ia->done)
                sched_yield();
        }
    }
    return MPI_SUCCESS;
}

FTA_EXPORT int MPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *req)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !flag || !req)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    iagree_t *ia = calloc(1, sizeof *ia);
    if (!ia)
        return fta_mpi_error(comm, -ENOMEM);
    ia->fc = fc;
    ia->comm = comm;
    ia->flag = flag;
    fta_progress();
    int rc = agree_start(fc, *flag, &ia->inst);
    if (rc < 0) {
        free(ia);
        return fta_mpi_error(comm, rc);
    }
    rc = PMPIX_Grequest_start(ia_query, ia_free, ia_cancel, ia_poll, ia_wait,
                              ia, &ia->req);
    if (rc != MPI_SUCCESS) {
        free(ia);
        return fta_mpi_error(comm, rc);
    }
    *req = ia->req;
    return MPI_SUCCESS;
}

FTA_EXPORT int MPIX_Comm_revoke(MPI_Comm comm)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc)
        return fta_mpi_error(comm, MPI_ERR_COMM);
    int rc = fta_revoke(fc->node);
    fta_progress();
    return fta_mpi_error(comm, rc);
}

FTA_EXPORT int MPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !flag)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_progress();
    *flag = fta_is_revoked(fc->node);
    return MPI_SUCCESS;
}

static int group_of(ftcomm_t *fc, int n, MPI_Group *out)
{
    MPI_Group g;
    int rc = PMPI_Comm_group(fc->comm, &g);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Group_incl(g, n, fc->failed, out);
        PMPI_Group_free(&g);
    }
    return rc;
}

FTA_EXPORT int MPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *grp)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !grp)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_progress();
    return fta_mpi_error(comm, group_of(fc, fc->nfailed, grp));
}

FTA_EXPORT int MPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack,
                                    int *num_acked)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !num_acked || num_to_ack < 0)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    fta_progress();
    if (num_to_ack > fc->nfailed)
        num_to_ack = fc->nfailed;
    if (num_to_ack > fc->nacked)
        fc->nacked = num_to_ack;
    *num_acked = fc->nacked;
    return MPI_SUCCESS;
}

FTA_EXPORT int MPIX_Comm_failure_ack(MPI_Comm comm)
{
    int n;
    return MPIX_Comm_ack_failed(comm, 1 << 30, &n);
}

FTA_EXPORT int MPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *grp)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !grp)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    return fta_mpi_error(comm, group_of(fc, fc->nacked, grp));
}

/* The agreement of shrink: decide the failed set F, then vote that no
 * member outside F is known failed anywhere (a second agreement deciding
 * the same failed set).  A process that dies after contributing to the
 * first agreement (while it forwards the decision, or before it reaches
 * the communicator construction) would otherwise be a member of the new
 * group and block MPI_Comm_create_group for everybody; the vote sees it
 * and the survivors agree again.  Every retry follows a new failure, so
 * the loop ends. */
static int shrink_agree(ftcomm_t *fc, fta_decision_t *d)
{
    for (;;) {
        int flag = 1;
        int rc = fta_agree_blocking(fc, &flag, d);
        if (rc < 0 && rc != FTA_EPROCFAILED)
            return rc;
        fta_progress();
        int clean = 1;
        for (int r = 0; r < fc->size && clean; r++) {
            if (!fta_world_dead(fc->world[r]))
                continue;
            int in = 0;
            for (uint32_t i = 0; i < d->nfailed && !in; i++)
                in = (int)d->failed[i] == r;
            clean = in;
        }
        fta_decision_t v;
        rc = fta_agree_blocking(fc, &clean, &v);
        uint32_t nv = v.nfailed;
        fta_decision_release(&v);
        if (rc < 0 && rc != FTA_EPROCFAILED) {
            fta_decision_release(d);
            return rc;
        }
        if (clean && nv == d->nfailed)
            return 0;
        fta_log("shrink: a member failed during the agreement; again");
        fta_decision_release(d);
    }
}

FTA_EXPORT int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    ftcomm_t *fc = fta_need(comm);
    if (!fc || !newcomm)
        return fta_mpi_error(comm, fc ? -EINVAL : MPI_ERR_COMM);
    /* Agree on the failed set; the survivors keep their relative order. */
    fta_decision_t d;
    int rc = shrink_agree(fc, &d);
    if (rc < 0)
        return fta_mpi_error(comm, rc);
    MPI_Group g, sg;
    int *excl = malloc((d.nfailed + 1) * sizeof *excl);
    if (!excl) {
        fta_decision_release(&d);
        return fta_mpi_error(comm, -ENOMEM);
    }
    for (uint32_t i = 0; i < d.nfailed; i++)
        excl[i] = (int)d.failed[i];
    PMPI_Comm_group(comm, &g);
    PMPI_Group_excl(g, (int)d.nfailed, excl, &sg);
    free(excl);
    uint64_t id = fta_derive_id(fc, 0x5348524bull ^ d.nfailed);
    fta_decision_release(&d);
    /* Only the survivors take part: nobody waits for the dead. */
    rc = PMPI_Comm_create_group(comm, sg, (int)(id & 0x3fff), newcomm);
    PMPI_Group_free(&g);
    PMPI_Group_free(&sg);
    if (rc != MPI_SUCCESS)
        return fta_mpi_error(comm, rc);
    ftcomm_t *nc;
    if (fta_comm_register(*newcomm, id, &nc) < 0)
        return fta_mpi_error(comm, -ENOMEM);
    return MPI_SUCCESS;
}

/* ---- Communicator constructors: register the results. ---- */

FTA_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    ftcomm_t *fc = fta_need(comm), *nc;
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (rc == MPI_SUCCESS && fc && *newcomm != MPI_COMM_NULL &&
        fta_comm_register(*newcomm, fta_derive_id(fc, 0x445550ull), &nc) < 0)
        rc = MPI_ERR_NO_MEM;
    return rc;
}

FTA_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key,
                              MPI_Comm *newcomm)
{
    ftcomm_t *fc = fta_need(comm), *nc;
    int rc = PMPI_Comm_split(comm, color, key, newcomm);
    /* Every member derives (this parent, this many derivations); the
     * colour tells the new communicators apart. */
    uint64_t id = fc ? fta_derive_id(fc, 0x53504cull + (uint64_t)color) : 0;
    if (rc == MPI_SUCCESS && fc && *newcomm != MPI_COMM_NULL &&
        fta_comm_register(*newcomm, id, &nc) < 0)
        rc = MPI_ERR_NO_MEM;
    return rc;
}

FTA_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm && fta_rt.up)
        fta_comm_unregister(*comm);
    return PMPI_Comm_free(comm);
}
