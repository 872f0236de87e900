/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_p2p.h: delegated point-to-point operations (nm_p2p.c) as the probes
 * (nm_probe.c) and buffered sends (nm_bsend.c) use them.
 */
#ifndef NM_P2P_H
#define NM_P2P_H

#include "nm_internal.h"

typedef struct nm_op {
    nm_rec_t *rec;
    nm_comm_t *c;
    int is_recv;
    void *ubuf;
    int ucount;
    MPI_Datatype udt;
    int usize;
    int contig;
    int own_type; /* udt is our duplicate */
    void *tmp;    /* packed send data / receive staging */
    int finished;
    MPI_Request greq;
    int err;
    int src, tag, cancelled;
    MPI_Count count;
    long bs_need;          /* attached-buffer bytes held (buffered send) */
    struct nm_op *bs_next; /* list of ops holding buffer space */
    int on_stack;          /* a blocking call's: not freed by op_free */
} nm_op_t;

/* Largest tag on c: a shadow record's tags are the shim's own. */
int nm_tag_max(const nm_comm_t *c);
/* The communicator's record when the call to peer is delegated, else NULL
 * (one lookup for the test and the call). */
nm_comm_t *nm_deleg_comm(MPI_Comm comm, int peer);
/* msgid != 0: receive the message taken by MPI_Mprobe (MRECV). */
int nm_recv_start(void *buf, int count, MPI_Datatype dt, int source, int tag,
                  nm_comm_t *c, uint64_t msgid, int staged, nm_op_t **out);
int nm_op_wait(nm_op_t *op, dlg_policy_t pol);
void nm_op_status(const nm_op_t *op, MPI_Status *st);
void nm_op_free(nm_op_t *op);
/* A generalized request for op in *req. */
int nm_op_to_greq(nm_op_t *op, MPI_Request *req);

/* Buffered sends (nm_bsend.c): hold len bytes of the attached buffer for op
 * (MPI_ERR_BUFFER when they do not fit), give them back. */
int nm_bs_reserve(nm_op_t *op, size_t len);
void nm_bs_release(nm_op_t *op);

#endif
