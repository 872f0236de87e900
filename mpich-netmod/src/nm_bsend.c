/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_bsend.c: the attached buffer of buffered sends on delegated
 * communicators (MPI_Buffer_attach/detach and the space each send holds).
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "nm_internal.h"
#include "nm_p2p.h"

/* A buffered send on a delegated communicator holds space of the attached
 * buffer (its packed size + MPI_BSEND_OVERHEAD) until the delegatee holds
 * the data, so that it fails with MPI_ERR_BUFFER exactly when the buffer is
 * missing or too small, and MPI_Buffer_detach waits for those sends. */
static pthread_mutex_t bs_lock = PTHREAD_MUTEX_INITIALIZER;
static long bs_size = -1; /* attached bytes, -1: none */
static long bs_used;
static nm_op_t *bs_ops;

int nm_bs_reserve(nm_op_t *op, size_t len)
{
    long need = (long)len + MPI_BSEND_OVERHEAD;
    pthread_mutex_lock(&bs_lock);
    int ok = bs_size >= 0 && (size_t)len < (size_t)LONG_MAX / 2 &&
             bs_used + need <= bs_size;
    if (ok) {
        bs_used += need;
        op->bs_need = need;
        op->bs_next = bs_ops;
        bs_ops = op;
    }
    pthread_mutex_unlock(&bs_lock);
    return ok ? MPI_SUCCESS : MPI_ERR_BUFFER;
}

/* bs_lock held */
static void bs_unlink(nm_op_t *op)
{
    for (nm_op_t **pp = &bs_ops; *pp; pp = &(*pp)->bs_next)
        if (*pp == op) {
            *pp = op->bs_next;
            bs_used -= op->bs_need;
            op->bs_need = 0;
            return;
        }
}

void nm_bs_release(nm_op_t *op)
{
    if (!op->bs_need)
        return;
    pthread_mutex_lock(&bs_lock);
    if (op->bs_need)
        bs_unlink(op);
    pthread_mutex_unlock(&bs_lock);
}

static int bs_attach(long size)
{
    pthread_mutex_lock(&bs_lock);
    bs_size = size;
    bs_used = 0;
    pthread_mutex_unlock(&bs_lock);
    return MPI_SUCCESS;
}

/* Wait until every delegated buffered send has left the client. */
static void bs_drain(void)
{
    unsigned k = 0;
    for (;;) {
        pthread_mutex_lock(&bs_lock);
        for (nm_op_t **pp = &bs_ops; *pp;) {
            nm_op_t *op = *pp;
            if (dlg_flag_done(&op->rec->fl))
                bs_unlink(op); /* unlinks *pp */
            else
                pp = &op->bs_next;
        }
        int busy = bs_ops != NULL;
        pthread_mutex_unlock(&bs_lock);
        if (!busy)
            return;
        nm_mpi_progress();
        nm_poll_round(++k, 16);
    }
}

int MPI_Buffer_attach(void *buffer, int size)
{
    int rc = PMPI_Buffer_attach(buffer, size);
    return rc == MPI_SUCCESS ? bs_attach(size) : rc;
}

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    int rc = PMPI_Buffer_attach_c(buffer, size);
    return rc == MPI_SUCCESS ? bs_attach((long)size) : rc;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    bs_drain();
    int rc = PMPI_Buffer_detach(buffer_addr, size);
    if (rc == MPI_SUCCESS)
        bs_attach(-1);
    return rc;
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    bs_drain();
    int rc = PMPI_Buffer_detach_c(buffer_addr, size);
    if (rc == MPI_SUCCESS)
        bs_attach(-1);
    return rc;
}
