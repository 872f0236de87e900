/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_probe.c: MPI_Probe, MPI_Iprobe and the matched probes (MPI_Mprobe,
 * MPI_Improbe, MPI_Mrecv, MPI_Imrecv) on delegated communicators: the
 * delegatee's matching engine answers; a matched message is held there
 * under an id this file keeps in its table of MPI_Message handles.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "nm_internal.h"
#include "nm_p2p.h"

/* Client-side table of messages taken by MPI_Mprobe/MPI_Improbe. */
#define NM_MSG_BASE 0x00100000
#define NM_MSG_MAX  1024
static struct {
    int used;
    uint64_t id;
    nm_comm_t *c;
} msgs[NM_MSG_MAX];

/* The table above: any thread. */
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;

int nm_msg_ours(MPI_Message m)
{
    int v = (int)m;
    if (v < NM_MSG_BASE || v >= NM_MSG_BASE + NM_MSG_MAX)
        return 0;
    pthread_mutex_lock(&msg_lock);
    int used = msgs[v - NM_MSG_BASE].used == 1;
    pthread_mutex_unlock(&msg_lock);
    return used;
}

static void msg_release(int slot)
{
    pthread_mutex_lock(&msg_lock);
    msgs[slot].used = 0;
    pthread_mutex_unlock(&msg_lock);
}

/* ---------------- probes ---------------- */

static int probe_once(nm_comm_t *c, int source, int tag, int take, int *flag,
                      MPI_Message *msg, MPI_Status *status)
{
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > nm_tag_max(c)))
        return MPI_ERR_TAG;
    if (source != MPI_ANY_SOURCE && (source < 0 || source >= c->size))
        return MPI_ERR_RANK;
    int slot = -1;
    if (take) {
        pthread_mutex_lock(&msg_lock);
        for (int i = 0; i < NM_MSG_MAX; i++)
            if (!msgs[i].used) {
                slot = i;
                msgs[i].used = 2; /* reserved until the probe says */
                break;
            }
        pthread_mutex_unlock(&msg_lock);
        if (slot < 0)
            return MPI_ERR_NO_MEM;
    }
    nm_rec_t *r = nm_rec_get();
    if (!r) {
        if (take)
            msg_release(slot);
        return MPI_ERR_NO_MEM;
    }
    r->ctx = c->ctx;
    r->peer = source == MPI_ANY_SOURCE ? -1 : c->world[source];
    r->tag = tag == MPI_ANY_TAG ? -1 : tag;
    int rc = nm_post(take ? NM_OP_IMPROBE : NM_OP_IPROBE, r);
    *flag = rc == MPI_SUCCESS && r->found;
    if (*flag) {
        if (status != MPI_STATUS_IGNORE) {
            status->MPI_SOURCE = nm_comm_rank_of_world(c, r->st_src);
            status->MPI_TAG = r->st_tag;
            PMPI_Status_set_elements_x(status, MPI_BYTE,
                                       (MPI_Count)r->st_count);
            PMPI_Status_set_cancelled(status, 0);
        }
        if (take) {
            pthread_mutex_lock(&msg_lock);
            msgs[slot].used = 1;
            msgs[slot].id = r->arg;
            msgs[slot].c = c;
            pthread_mutex_unlock(&msg_lock);
            *msg = (MPI_Message)(NM_MSG_BASE + slot);
        }
    } else if (take) {
        msg_release(slot);
    }
    nm_rec_put(r);
    return rc;
}

static int probe_loop(MPI_Comm comm, nm_comm_t *c, int source, int tag,
                      int take, MPI_Message *msg, MPI_Status *status)
{
    unsigned k = 0;
    nm_wait_enter();
    for (;;) {
        int flag = 0;
        int rc = probe_once(c, source, tag, take, &flag, msg, status);
        if (rc != MPI_SUCCESS || flag) {
            nm_wait_leave();
            return nm_error(comm, rc);
        }
        nm_mpi_progress();
        nm_poll_round(++k, 4);
    }
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
               MPI_Status *status)
{
    nm_comm_t *c = nm_deleg_comm(comm, source);
    if (!c)
        return PMPI_Iprobe(source, tag, nm_xl(comm), flag, status);
    return nm_error(comm, probe_once(c, source, tag, 0, flag, NULL, status));
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    nm_comm_t *c = nm_deleg_comm(comm, source);
    if (!c)
        return PMPI_Probe(source, tag, nm_xl(comm), status);
    return probe_loop(comm, c, source, tag, 0, NULL, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Message *message, MPI_Status *status)
{
    nm_comm_t *c = nm_deleg_comm(comm, source);
    if (!c)
        return PMPI_Improbe(source, tag, nm_xl(comm), flag, message, status);
    return nm_error(comm, probe_once(c, source, tag, 1, flag, message, status));
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
               MPI_Status *status)
{
    nm_comm_t *c = nm_deleg_comm(comm, source);
    if (!c)
        return PMPI_Mprobe(source, tag, nm_xl(comm), message, status);
    return probe_loop(comm, c, source, tag, 1, message, status);
}

static int mrecv_start(void *buf, int count, MPI_Datatype dt,
                       MPI_Message *message, nm_op_t **op)
{
    int slot = (int)*message - NM_MSG_BASE;
    pthread_mutex_lock(&msg_lock);
    nm_comm_t *c = msgs[slot].c;
    uint64_t id = msgs[slot].id;
    pthread_mutex_unlock(&msg_lock);
    int rc = nm_recv_start(buf, count, dt, 0, 0, c, id, 0, op);
    if (rc == MPI_SUCCESS) {
        msg_release(slot);
        *message = MPI_MESSAGE_NULL;
    }
    return rc;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
              MPI_Status *status)
{
    if (!message || !nm_msg_ours(*message))
        return PMPI_Mrecv(buf, count, dt, message, status);
    nm_op_t st = {0}, *op = &st;
    int rc = mrecv_start(buf, count, dt, message, &op);
    if (rc == MPI_SUCCESS) {
        rc = nm_op_wait(op, nm_policy_blocking);
        if (rc == MPI_SUCCESS) {
            nm_op_status(op, status);
            rc = op->err;
        }
        nm_op_free(op);
    }
    return nm_error(MPI_COMM_WORLD, rc);
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
               MPI_Request *req)
{
    if (!message || !nm_msg_ours(*message))
        return PMPI_Imrecv(buf, count, dt, message, req);
    nm_op_t *op = NULL;
    int rc = mrecv_start(buf, count, dt, message, &op);
    if (rc == MPI_SUCCESS)
        rc = nm_op_to_greq(op, req);
    return nm_error(MPI_COMM_WORLD, rc);
}
