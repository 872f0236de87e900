/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_coll_mpi.c: the MPI collectives libmpideleg interposes: on a
 * delegated communicator under MPIDELEG_COLL=hier (and for arguments the
 * hierarchical algorithm takes) an operation of nm_coll.c, otherwise
 * MPICH's own collective on the translated communicator.
 */
#include "nm_coll.h"
#include "nm_internal.h"

/* The hierarchical state of comm, or NULL: MPICH's collective then. */
static ccomm_t *hier_of(MPI_Comm comm)
{
    if (!nm_coll_hier || !nm_active)
        return NULL;
    nm_comm_t *c = nm_comm_find(comm);
    return c && c->delegated ? c->coll : NULL;
}

/* Reductions the leaders can combine with MPI_Reduce_local: predefined
 * operations on predefined datatypes.  Both are the same on every member
 * (MPI), so all members take the same path. */
static int reducible(MPI_Datatype dt, MPI_Op op, int count)
{
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,
                                 MPI_LAND, MPI_BAND, MPI_LOR,    MPI_BOR,
                                 MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
    int ok = 0, ni, na, nd, comb;
    for (unsigned i = 0; i < sizeof ops / sizeof ops[0]; i++)
        ok |= op == ops[i];
    if (!ok || count < 0 || dt == MPI_DATATYPE_NULL)
        return 0;
    if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 0;
    return comb == MPI_COMBINER_NAMED;
}

/* ------------------------------------------------------------------ */
/* Bindings                                                            */
/* ------------------------------------------------------------------ */

static int barrier(MPI_Comm comm, MPI_Request *req)
{
    ccomm_t *cc = hier_of(comm);
    if (!cc)
        return req ? PMPI_Ibarrier(nm_xl(comm), req)
                   : PMPI_Barrier(nm_xl(comm));
    coll_t *x = nm_coll_new(cc, comm, K_BARRIER);
    return x ? nm_coll_start(x, req) : nm_error(comm, MPI_ERR_NO_MEM);
}

int MPI_Barrier(MPI_Comm comm)
{
    return barrier(comm, NULL);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    return barrier(comm, req);
}

static int bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                 MPI_Request *req)
{
    ccomm_t *cc = hier_of(comm);
    if (cc &&
        (count < 0 || dt == MPI_DATATYPE_NULL || root < 0 || root >= cc->size))
        cc = NULL; /* MPICH reports the error */
    if (!cc)
        return req ? PMPI_Ibcast(buf, count, dt, root, nm_xl(comm), req)
                   : PMPI_Bcast(buf, count, dt, root, nm_xl(comm));
    coll_t *x = nm_coll_new(cc, comm, K_BCAST);
    if (!x)
        return nm_error(comm, MPI_ERR_NO_MEM);
    x->rbuf = buf;
    x->rcount = count;
    x->rtype = dt;
    x->root = root;
    return nm_coll_start(x, req);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return bcast(buf, count, dt, root, comm, NULL);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
               MPI_Request *req)
{
    return bcast(buf, count, dt, root, comm, req);
}

static int reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    ccomm_t *cc = hier_of(comm);
    int all = root < 0;
    if (cc && (!reducible(dt, op, count) || (!all && root >= cc->size)))
        cc = NULL;
    if (!cc) {
        MPI_Comm c = nm_xl(comm);
        if (all)
            return req ? PMPI_Iallreduce(sbuf, rbuf, count, dt, op, c, req)
                       : PMPI_Allreduce(sbuf, rbuf, count, dt, op, c);
        return req ? PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, c, req)
                   : PMPI_Reduce(sbuf, rbuf, count, dt, op, root, c);
    }
    coll_t *x = nm_coll_new(cc, comm, all ? K_ALLREDUCE : K_REDUCE);
    if (!x)
        return nm_error(comm, MPI_ERR_NO_MEM);
    x->sbuf = sbuf;
    x->rbuf = rbuf;
    x->rcount = count;
    x->rtype = dt;
    x->op = op;
    x->root = all ? 0 : root;
    return nm_coll_start(x, req);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
               MPI_Op op, int root, MPI_Comm comm)
{
    if (root < 0) /* MPICH reports it */
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, nm_xl(comm));
    return reduce(sbuf, rbuf, count, dt, op, root, comm, NULL);
}

int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    if (root < 0)
        return PMPI_Ireduce(sbuf, rbuf, count, dt, op, root, nm_xl(comm), req);
    return reduce(sbuf, rbuf, count, dt, op, root, comm, req);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                  MPI_Op op, MPI_Comm comm)
{
    return reduce(sbuf, rbuf, count, dt, op, -1, comm, NULL);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    return reduce(sbuf, rbuf, count, dt, op, -1, comm, req);
}

static int gather_all(int kind, const void *sbuf, int scount,
                      MPI_Datatype stype, void *rbuf, int rcount,
                      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    ccomm_t *cc = hier_of(comm);
    if (cc && (scount < 0 || rcount < 0 || rtype == MPI_DATATYPE_NULL ||
               (sbuf != MPI_IN_PLACE && stype == MPI_DATATYPE_NULL)))
        cc = NULL;
    if (!cc) {
        MPI_Comm c = nm_xl(comm);
        if (kind == K_ALLGATHER)
            return req ? PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount,
                                         rtype, c, req)
                       : PMPI_Allgather(sbuf, scount, stype, rbuf, rcount,
                                        rtype, c);
        return req ? PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, c,
                                    req)
                   : PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, c);
    }
    coll_t *x = nm_coll_new(cc, comm, kind);
    if (!x)
        return nm_error(comm, MPI_ERR_NO_MEM);
    x->sbuf = sbuf;
    x->scount = scount;
    x->stype = sbuf == MPI_IN_PLACE ? MPI_DATATYPE_NULL : stype;
    x->rbuf = rbuf;
    x->rcount = rcount;
    x->rtype = rtype;
    return nm_coll_start(x, req);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    return gather_all(K_ALLGATHER, sbuf, scount, stype, rbuf, rcount, rtype,
                      comm, NULL);
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   int rcount, MPI_Datatype rtype, MPI_Comm comm,
                   MPI_Request *req)
{
    return gather_all(K_ALLGATHER, sbuf, scount, stype, rbuf, rcount, rtype,
                      comm, req);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                 int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    return gather_all(K_ALLTOALL, sbuf, scount, stype, rbuf, rcount, rtype,
                      comm, NULL);
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                  int rcount, MPI_Datatype rtype, MPI_Comm comm,
                  MPI_Request *req)
{
    return gather_all(K_ALLTOALL, sbuf, scount, stype, rbuf, rcount, rtype,
                      comm, req);
}
