/* SPDX-License-Identifier: BSD-2-Clause */
/* fta_mpi_int.h: shared state of the MPI layer (fta_mpi.c, fta_init.c,
 * fta_ulfm.c, fta_comm.c, fta_req.c). */
#ifndef FTA_MPI_INT_H
#define FTA_MPI_INT_H

#include <mpi.h>
#include <stdint.h>
#include "fta.h"
#include "fta_fd.h"

#define FTA_HIDDEN __attribute__((visibility("hidden")))
#define FTA_EXPORT __attribute__((visibility("default")))

typedef struct ftcomm {
    MPI_Comm comm;
    uint64_t id;
    int size, rank;
    int *world; /* comm rank -> world rank */
    fta_node_t *node;
    int *failed; /* comm ranks, in detection order */
    int nfailed, nacked;
    uint64_t nderived; /* communicators derived from this one */
    struct ftcomm *next;
} ftcomm_t;

typedef struct fta_rt {
    int up; /* initialised */
    int world_rank, world_size;
    MPI_Comm ctl; /* private duplicate of MPI_COMM_WORLD */
    fta_fd_t *fd;
    uint64_t fd_gen;
    int *world_dead; /* dead world ranks seen by the layer */
    int any_failure;
    long abandoned; /* requests given up (fta_abandon) */
    ftcomm_t *comms;
    uint32_t arity;
    int fast_max;    /* FTA_FAST_MAX: fast path for groups up to this size */
    long fault_send; /* FTA_FAULT_SEND: SIGKILL self at this send */
} fta_rt_t;

FTA_HIDDEN extern fta_rt_t fta_rt;

/* Polls before a wait loop starts yielding the core. */
#define FTA_SPIN 5000

FTA_HIDDEN ftcomm_t *fta_comm_find(MPI_Comm comm);
/* The registered communicator comm when the layer is up, else NULL. */
FTA_HIDDEN ftcomm_t *fta_need(MPI_Comm comm);
/* 0 to go on, or the error of fc: revoked, or (peer < 0: any member;
 * peer == MPI_ANY_SOURCE: any unacknowledged member) failed. */
FTA_HIDDEN int fta_check(const ftcomm_t *fc, int peer);
FTA_HIDDEN int fta_comm_register(MPI_Comm comm, uint64_t id, ftcomm_t **out);
FTA_HIDDEN void fta_comm_unregister(MPI_Comm comm);
FTA_HIDDEN uint64_t fta_derive_id(ftcomm_t *parent, uint64_t salt);
/* Poll the detector and the network once; never blocks. */
FTA_HIDDEN void fta_progress(void);
/* Whether protocol messages are still on their way out. */
FTA_HIDDEN int fta_sends_pending(void);
/* Wait (progressing) until *done or a failure/revocation of fc; yields. */
FTA_HIDDEN int fta_world_dead(int world_rank);
/* Record comm rank r of c as failed (c->failed, detection order) unless
 * it is there already. */
FTA_HIDDEN void fta_comm_add_failed(ftcomm_t *c, int r);
/* World rank w failed (its detector, or an agreement decided it): every
 * registered communicator holding it records the failure; MPI_Finalize
 * then does not wait for it. */
FTA_HIDDEN void fta_world_failed(int world_rank);
/* Kinds of request for fta_abandon. */
enum { FTA_RQ_SEND, FTA_RQ_RECV, FTA_RQ_COLL };
FTA_HIDDEN void fta_abandon(MPI_Request *req, int kind);
/* Translate an ft-agree code into an MPI error class and hand it to the
 * communicator's error handler. */
FTA_HIDDEN int fta_mpi_error(MPI_Comm comm, int code);
FTA_HIDDEN int fta_comm_any_failed(const ftcomm_t *fc);
FTA_HIDDEN int fta_agree_blocking(ftcomm_t *fc, int *flag, fta_decision_t *dec);
FTA_HIDDEN void fta_log(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif /* FTA_MPI_INT_H */
