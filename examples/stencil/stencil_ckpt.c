/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stencil_ckpt.c: the checkpoint of one block lives in a file of its own,
 * mapped as an MPI storage window (libmpi-storagewin) on MPI_COMM_SELF.
 *
 * Why MPI_COMM_SELF: allocating and freeing a window is collective, and a
 * window over several processes could not be freed once one of them is
 * dead.  A window per process keeps every window operation local; the file
 * is what other processes share, and whoever hosts block L after a failure
 * maps block L's file.
 *
 * Two slots, used alternately (slot (iter / every) % 2): while one is being
 * written the other still holds a complete checkpoint.  Each slot starts
 * with a header; the magic number is written last and covers the data by a
 * hash, so a slot whose writer died half-way is recognised as invalid.
 */
#include <stdio.h>
#include <string.h>
#include "stencil.h"
#include "storage_win.h"

#define CKPT_MAGIC 0x5354454e43494c31ull /* "STENCIL1" */
#define CKPT_HDR   64

typedef struct ckpt_hdr {
    uint64_t magic;
    uint64_t nonce; /* the run's: files of an earlier run are invalid */
    int64_t iter;
    int64_t lrank;
    uint64_t count;
    uint64_t hash;
} ckpt_hdr_t;

static size_t round_page(size_t n)
{
    return (n + 4095) & ~(size_t)4095;
}

static int mpi_fail(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = rc;
    MPI_Error_string(rc, msg, &len);
    MPI_Error_class(rc, &cls);
    fprintf(stderr, "stencil: %s: %s\n", what, msg);
    return cls ? cls : MPI_ERR_OTHER;
}

int stencil_ckpt_open(stencil_ckpt_t *c, const char *dir, long lrank,
                      size_t count, uint64_t nonce)
{
    memset(c, 0, sizeof *c);
    c->win = MPI_WIN_NULL;
    c->count = count;
    c->lrank = lrank;
    c->nonce = nonce;
    c->slot_bytes = round_page(CKPT_HDR + count * sizeof(double));
    char path[4200];
    snprintf(path, sizeof path, "%s/block.%ld", dir, lrank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_type", "storage");
    MPI_Info_set(info, "storage_alloc_filename", path);
    MPI_Info_set(info, "storage_alloc_offset", "0");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Win_allocate((MPI_Aint)(2 * c->slot_bytes), 1, info,
                              MPI_COMM_SELF, &c->base, &c->win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return mpi_fail(path, rc);
    if (!swin_win_is_storage(c->win)) {
        fprintf(stderr,
                "stencil: %s: not a storage window (is "
                "libmpi-storagewin linked?)\n",
                path);
        MPI_Win_free(&c->win);
        return MPI_ERR_OTHER;
    }
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

/* MPI_Win_sync inside a passive-target epoch: memory semantics plus, for a
 * storage window, the changed pages written durably to the file. */
static int durable(stencil_ckpt_t *c)
{
    int rc = MPI_Win_lock_all(0, c->win);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_sync(c->win);
    int rc2 = MPI_Win_unlock_all(c->win);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    return rc == MPI_SUCCESS ? 0 : mpi_fail("checkpoint sync", rc);
}

int stencil_ckpt_clear(stencil_ckpt_t *c)
{
    for (int s = 0; s < 2; s++)
        memset(c->base + (size_t)s * c->slot_bytes, 0, CKPT_HDR);
    return durable(c);
}

int stencil_ckpt_write(stencil_ckpt_t *c, long iter, long every,
                       const double *data)
{
    double t0 = MPI_Wtime();
    unsigned char *slot =
        c->base + (size_t)((iter / every) % 2) * c->slot_bytes;
    ckpt_hdr_t *h = (ckpt_hdr_t *)slot;
    /* Invalid first, data, then the header with the magic last. */
    h->magic = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    memcpy(slot + CKPT_HDR, data, c->count * sizeof *data);
    h->nonce = c->nonce;
    h->iter = iter;
    h->lrank = c->lrank;
    h->count = c->count;
    h->hash = stencil_hash(STENCIL_HASH_INIT, data, c->count);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    h->magic = CKPT_MAGIC;
    int rc = durable(c);
    c->sync_seconds += MPI_Wtime() - t0;
    c->writes++;
    return rc;
}

static int slot_ok(const stencil_ckpt_t *c, int s)
{
    const unsigned char *slot = c->base + (size_t)s * c->slot_bytes;
    const ckpt_hdr_t *h = (const ckpt_hdr_t *)slot;
    if (h->magic != CKPT_MAGIC || h->nonce != c->nonce ||
        h->lrank != c->lrank || h->count != c->count || h->iter < 0)
        return 0;
    const double *d = (const double *)(const void *)(slot + CKPT_HDR);
    return stencil_hash(STENCIL_HASH_INIT, d, c->count) == h->hash;
}

void stencil_ckpt_valid(const stencil_ckpt_t *c, long iters[2])
{
    for (int s = 0; s < 2; s++) {
        const ckpt_hdr_t *h =
            (const ckpt_hdr_t *)(c->base + (size_t)s * c->slot_bytes);
        iters[s] = slot_ok(c, s) ? (long)h->iter : -1;
    }
}

int stencil_ckpt_read(const stencil_ckpt_t *c, long iter, double *data)
{
    for (int s = 0; s < 2; s++) {
        const unsigned char *slot = c->base + (size_t)s * c->slot_bytes;
        const ckpt_hdr_t *h = (const ckpt_hdr_t *)slot;
        if (slot_ok(c, s) && h->iter == iter) {
            memcpy(data, slot + CKPT_HDR, c->count * sizeof *data);
            return 0;
        }
    }
    return -1;
}

void stencil_ckpt_close(stencil_ckpt_t *c)
{
    if (c->win != MPI_WIN_NULL)
        MPI_Win_free(&c->win);
    c->win = MPI_WIN_NULL;
    c->base = NULL;
}
