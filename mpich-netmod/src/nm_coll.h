/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_coll.h: the hierarchical collectives (nm_coll.c) as their MPI entry
 * points (nm_coll_mpi.c) and MPI_Init (nm_mpi.c) see them.
 */
#ifndef NM_COLL_H
#define NM_COLL_H

#include <stdatomic.h>

#include "nm_internal.h"

enum { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL };

/* Per delegated communicator (under hier). */
typedef struct ccomm {
    int size, rank;
    int nb;      /* boards among the members */
    int myb;     /* my board (index in 0..nb-1, by lowest member) */
    int *board;  /* comm rank -> board index */
    int *nmem;   /* board -> member count */
    int **mem;   /* board -> its members' comm ranks, ascending */
    int brank;   /* my rank on my board communicators */
    MPI_Comm b1; /* phase 1 */
    MPI_Comm b3; /* phase 3 */
    MPI_Comm alias;
    uint32_t seq;                /* collectives started */
    uint32_t p3_issued, p3_done; /* phase-3 order */
    int refs;                    /* the communicator + running operations */
} ccomm_t;

typedef struct coll {
    int kind;
    ccomm_t *cc;
    MPI_Comm comm; /* the application's handle (errors) */
    int tag;
    int phase;
    int p3; /* position in the phase-3 order, -1: no phase 3 */
    MPI_Request r1, r3;
    MPI_Request *ir; /* phase 2 */
    int nir;
    int err, leak;
    atomic_int done;
    /* arguments */
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    MPI_Datatype stype, rtype;
    int own_stype, own_rtype;
    MPI_Op op;
    /* work space */
    char *tmp; /* reductions: nb partials of `bytes`; alltoall: copy */
    size_t bytes;
    int *cnt, *dsp;      /* board-collective counts and displacements */
    MPI_Datatype *btype; /* allgather: each board's blocks in rbuf */
    int nb;
    MPI_Request greq;
    int is_greq;
    struct coll *next;
} coll_t;

/* A new operation of `kind` on cc for the application's handle comm, with
 * its arguments to fill in; NULL when out of memory. */
coll_t *nm_coll_new(ccomm_t *cc, MPI_Comm comm, int kind);
/* Start x (blocking when req is NULL); the error goes through comm's
 * handler. */
int nm_coll_start(coll_t *x, MPI_Request *req);
void nm_coll_run(void); /* move running nonblocking collectives */

#endif
