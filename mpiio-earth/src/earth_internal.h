/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_internal.h: shared declarations of the EARTH collective I/O library.
 */
#ifndef EARTH_INTERNAL_H
#define EARTH_INTERNAL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "earth.h"

#define EARTH_HIDDEN __attribute__((visibility("hidden")))
#define EARTH_WUR    __attribute__((warn_unused_result))

/* MPI_STATUSES_IGNORE is a small integer cast to a pointer, which gcc 12
 * takes for a zero-sized region. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static inline int earth_waitall(int n, MPI_Request *req)
{
    return PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}
#pragma GCC diagnostic pop

/* ---- flattened datatypes (earth_flatten.c) ---- */

/* One contiguous piece of a typemap: byte offset from the type's origin. */
typedef struct {
    int64_t off;
    int64_t len;
} earth_blk_t;

/*
 * A datatype as an ordered list of contiguous blocks (adjacent blocks are
 * merged), with its size, lower bound and extent as MPI reports them.
 */
typedef struct {
    earth_blk_t *blk;
    int64_t n, cap;
    int64_t size;   /* sum of block lengths */
    int64_t lb;     /* MPI lower bound */
    int64_t extent; /* MPI extent */
    int monotone;   /* offsets non-decreasing, no overlap */
} earth_flat_t;

EARTH_HIDDEN EARTH_WUR int earth_flatten(MPI_Datatype type, earth_flat_t *out);
EARTH_HIDDEN void earth_flat_free(earth_flat_t *f);

/* ---- hints (earth_hints.c) ---- */

enum earth_layout { EARTH_LAYOUT_SPREAD = 0, EARTH_LAYOUT_BLOCK = 1 };

typedef struct {
    int enable;              /* earth_enable: 1 = EARTH path, 0 = ROMIO,
                                2 = auto (EARTH where it can win: see
                                earth_file.c, earth_file_decide) */
    int tuned;               /* an earth_* tuning key was given */
    int req;                 /* earth_req: 0 = unlimited (plain two-phase) */
    int steps;               /* earth_steps: pipeline depth, >= 1 */
    int layout;              /* earth_aggr_layout */
    int64_t fd_stripes;      /* earth_fd_stripes: stripes per domain block,
                                0 = auto (one block per aggregator) */
    int64_t striping_unit;   /* 0 = not given */
    int64_t striping_factor; /* 0 = not given */
} earth_hints_t;

EARTH_HIDDEN void earth_hints_defaults(earth_hints_t *h);
/* Apply the keys of info to h; returns MPI_SUCCESS, MPI_ERR_INFO_KEY or
 * MPI_ERR_INFO_VALUE (h is left unchanged on error). */
EARTH_HIDDEN EARTH_WUR int earth_hints_apply(earth_hints_t *h, MPI_Info info);
EARTH_HIDDEN EARTH_WUR int earth_hints_env(earth_hints_t *h);
/* The EARTH_* variables that are not hint defaults: MPI_SUCCESS or
 * MPI_ERR_ARG (reason in earth_last_error()). */
EARTH_HIDDEN EARTH_WUR int earth_env_check(void);
EARTH_HIDDEN EARTH_WUR int earth_hints_report(const earth_hints_t *h,
                                              MPI_Info info);
EARTH_HIDDEN const char *earth_layout_name(int layout);

/* ---- per-communicator and per-file state (earth_file.c) ---- */

/*
 * One private duplicate per user communicator that files are opened on,
 * cached as an attribute of that communicator and shared by its files:
 * EARTH's agreements on a file that ROMIO carries run on it, so that an
 * open costs no communicator of its own.  Freed with the last reference
 * (the attribute's, dropped when the user communicator is freed, and one
 * per file).
 */
typedef struct earth_base {
    MPI_Comm comm;
    int refs;
} earth_base_t;

/* The base of comm with a reference for the caller, or NULL (local). */
EARTH_HIDDEN earth_base_t *earth_base_find(MPI_Comm comm);
/* Cache dup, a duplicate of comm, as comm's base; returns it with a
 * reference for the caller, or NULL (dup is then freed). */
EARTH_HIDDEN earth_base_t *earth_base_attach(MPI_Comm comm, MPI_Comm dup);
EARTH_HIDDEN void earth_base_put(earth_base_t *b);

typedef struct earth_file {
    struct earth_file *next;
    MPI_File fh;
    earth_base_t *base; /* the opening communicator's base (a reference) */
    MPI_Comm comm;      /* EARTH's duplicate, once it carries calls */
    int rank, nprocs;
    int amode;
    int fd;     /* own descriptor for aggregator accesses, -1 if none */
    int fd_err; /* errno when the descriptor could not be opened */
    earth_hints_t hints;
    int contended; /* several nodes, or the contention model on */
    int ready;     /* communicator, aggregators and descriptor set up */
    char *path;    /* the file name given to MPI_File_open */
    int use_earth; /* hints.enable resolved for this file (auto decided at
                      open, the same on every rank) */
    /* ROMIO's effective values, read back after open / set_info */
    int64_t cb_buffer_size;
    int cb_nodes;
    int cb_write; /* 0 disable, 1 enable, 2 automatic */
    int cb_read;
    int naggr;
    int *aggr;   /* aggregator ranks, naggr of them */
    int my_aggr; /* index into aggr, or -1 */
    /* cached file view */
    int view_valid;
    int view_native;
    MPI_Offset disp;
    int64_t etype_size;
    earth_flat_t ftype;
    /* split collective in progress */
    int split_active;
    int split_err;
    MPI_Count split_bytes;
    MPI_Datatype split_type;
    struct earth_stats stats;
    /* nonblocking collectives: progress thread and its communicator
     * (earth_async.c); NULL when MPI_THREAD_MULTIPLE is not available */
    struct earth_async *async;
} earth_file_t;

/* A record for a file ROMIO opened on base's communicator (takes the
 * reference to base; NULL without memory) and its decision. */
EARTH_HIDDEN earth_file_t *earth_file_new(MPI_File fh, earth_base_t *base,
                                          int amode, const char *path,
                                          const earth_hints_t *h,
                                          int contended);
/* Free a record (its progress thread must be gone: earth_async_free). */
EARTH_HIDDEN void earth_file_free(earth_file_t *ef);
EARTH_HIDDEN void earth_file_add(earth_file_t *ef);
EARTH_HIDDEN void earth_file_remove(earth_file_t *ef);
EARTH_HIDDEN earth_file_t *earth_file_find(MPI_File fh);
/* Resolve earth_enable (auto: see earth_file.c) into ef->use_earth. */
EARTH_HIDDEN void earth_file_decide(earth_file_t *ef);
/* What EARTH needs to carry calls: its communicator, ROMIO's hints, the
 * aggregators, an aggregator's own descriptor.  Collective. */
EARTH_HIDDEN EARTH_WUR int earth_file_prepare(earth_file_t *ef);
EARTH_HIDDEN EARTH_WUR int earth_file_view(earth_file_t *ef);
EARTH_HIDDEN EARTH_WUR int earth_file_refresh_romio(earth_file_t *ef);
/* ROMIO's file name without a "driver:" prefix. */
EARTH_HIDDEN const char *earth_strip_prefix(const char *name);
/* Collective: rc, or MPI_ERR_INFO_VALUE when another rank failed. */
EARTH_HIDDEN EARTH_WUR int earth_agree(MPI_Comm comm, int rc);

/* ---- the collective algorithm (earth_coll.c) ---- */

/*
 * Collective write or read of `count` items of `type` at view offset `off`
 * (in etypes).  Every rank of `comm` (ef->comm, or the progress thread's
 * duplicate of it) calls it.  On return *fallback is 1
 * when some rank asked for ROMIO instead (nothing was done), else the
 * result is an MPI error class, the same on all ranks.
 */
EARTH_HIDDEN int earth_coll_rw(earth_file_t *ef, MPI_Comm comm, int is_write,
                               MPI_Offset off, void *buf, MPI_Count count,
                               MPI_Datatype type, int local_fallback,
                               int *fallback, MPI_Count *nbytes);

/* ---- nonblocking collectives (earth_async.c) ---- */

/* State of a generalized request: what MPI_Wait/MPI_Test report.  Two
 * references: MPI's (dropped by the free callback, which MPICH may call
 * at MPI_Request_free before completion) and the completer's. */
typedef struct {
    MPI_Count nbytes;
    int err;
    int refs;
    int done;  /* completed (set after MPI_Grequest_complete) */
    int polls; /* calls of the poll function */
} earth_greq_t;

/* Drop one reference (the last one frees). */
EARTH_HIDDEN void earth_greq_put(earth_greq_t *g);

/* Start a generalized request whose status reports *gp's fields. */
EARTH_HIDDEN EARTH_WUR int earth_greq_start(earth_greq_t **gp,
                                            MPI_Request *req);
/* 1 when the library runs with MPI_THREAD_MULTIPLE and EARTH_ASYNC != 0. */
EARTH_HIDDEN int earth_async_available(void);
/* At open (collective): duplicate the communicator for the progress
 * thread, if asynchronous progress is available. */
EARTH_HIDDEN EARTH_WUR int earth_async_setup(earth_file_t *ef);
/* Queue a collective at explicit offset `pos` for the file's progress
 * thread and return its request at once. */
EARTH_HIDDEN EARTH_WUR int earth_async_post(earth_file_t *ef, int is_write,
                                            MPI_Offset pos, void *buf,
                                            int count, MPI_Datatype type,
                                            int local_fallback,
                                            MPI_Request *req);
/* Wait until everything posted on the file has been carried out. */
EARTH_HIDDEN void earth_async_drain(earth_file_t *ef);
/* Drain, stop the progress thread, free its communicator. */
EARTH_HIDDEN void earth_async_free(earth_file_t *ef);

/* ---- file requests (earth_io.c) ---- */

typedef struct {
    int64_t off;
    int64_t len;
    char *buf;
} earth_ioreq_t;

/* Run n requests with at most `inflight` at a time (0 = all at once).
 * Returns 0 or a negative errno.  Short reads are zero-filled. */
EARTH_HIDDEN EARTH_WUR int
earth_io_run(int fd, int is_write, earth_ioreq_t *req, int n, int inflight);

/* ---- contention model (earth_fsemu.c) ---- */
EARTH_HIDDEN void earth_fsemu_init(void);

/* ---- logging ---- */
EARTH_HIDDEN void earth_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* EARTH_INTERNAL_H */
