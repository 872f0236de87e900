/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * stencil.h: the pieces of the fault-tolerant Jacobi demo.
 *
 * - stencil_kernel.c: the compute code (block geometry, initial and
 *   boundary values, one Jacobi sweep, checksums).  No MPI, no knowledge of
 *   failures: it is the same code a failure-free solver would use.
 * - stencil_ckpt.c: checkpoints of one block in an MPI storage window
 *   (two slots, durable sync).
 * - stencil_ft.c: the recovery layer (revoke, agree, shrink, new mapping
 *   with libspare, restore from the checkpoints).
 * - stencil.c: options, the solver loop, halo exchange, failure injection
 *   and the report.
 */
#ifndef STENCIL_H
#define STENCIL_H

#include <stddef.h>
#include <stdint.h>
#include <mpi.h>
#include "spare.h"

/* ---- Compute code (stencil_kernel.c) ---- */

/* The block of one logical rank.  Dimension 0 (x) varies fastest, as in
 * libspare's node and rank numbering; a 2-D problem has n[2] == 1 and no
 * ghost layer in z. */
typedef struct stencil_block {
    int ndims;    /* 2 or 3 */
    int n[3];     /* interior cells per dimension */
    int g[3];     /* ghost layer width (1 in used dimensions, else 0) */
    int e[3];     /* extents including ghosts */
    int pgrid[3]; /* logical rank grid */
    int coord[3]; /* this block's position in the rank grid */
    size_t cells; /* e[0] * e[1] * e[2] */
    size_t inner; /* n[0] * n[1] * n[2] */
} stencil_block_t;

/* Geometry of logical rank `lrank` on a pgrid rank grid of n-sized
 * blocks. */
void stencil_block_setup(stencil_block_t *b, int ndims, const int *n,
                         const int *pgrid, long lrank);
/* Initial interior values and the fixed boundary values in the ghost cells
 * that lie outside the global domain (other ghosts: 0). */
void stencil_block_init(const stencil_block_t *b, double *u);
/* One Jacobi sweep: out = average of the 2*ndims neighbours of in. */
void stencil_sweep(const stencil_block_t *b, const double *in, double *out);
/* Interior of u to/from a packed array of b->inner values. */
void stencil_pack(const stencil_block_t *b, const double *u, double *dst);
void stencil_unpack(const stencil_block_t *b, const double *src, double *u);
/* FNV-1a over the bytes of n doubles (continuing from h; start with
 * STENCIL_HASH_INIT). */
#define STENCIL_HASH_INIT 0xcbf29ce484222325ull
uint64_t stencil_hash(uint64_t h, const double *v, size_t n);

/* ---- Checkpoints in storage windows (stencil_ckpt.c) ---- */

typedef struct stencil_ckpt {
    MPI_Win win;
    unsigned char *base;
    size_t slot_bytes;
    size_t count; /* doubles per block */
    long lrank;
    uint64_t nonce;
    double sync_seconds; /* write + durable sync time, summed */
    long writes;
} stencil_ckpt_t;

/* Open (creating if needed) the checkpoint file of block lrank in dir as a
 * storage window on MPI_COMM_SELF.  0 or an MPI error class (message on
 * stderr). */
int stencil_ckpt_open(stencil_ckpt_t *c, const char *dir, long lrank,
                      size_t count, uint64_t nonce);
/* Invalidate both slots (a fresh run in a reused directory). */
int stencil_ckpt_clear(stencil_ckpt_t *c);
/* Write data (count doubles) as the checkpoint of iteration iter into slot
 * (iter / every) % 2 and make it durable. */
int stencil_ckpt_write(stencil_ckpt_t *c, long iter, long every,
                       const double *data);
/* The iterations held by the two slots (-1: slot empty or invalid). */
void stencil_ckpt_valid(const stencil_ckpt_t *c, long iters[2]);
/* Copy the checkpoint of iteration iter out; 0, or -1 if no valid slot
 * holds it. */
int stencil_ckpt_read(const stencil_ckpt_t *c, long iter, double *data);
/* Free the window (the file stays). */
void stencil_ckpt_close(stencil_ckpt_t *c);

/* ---- Options (stencil_opts.c) ---- */

/* A planned kill: the process computing logical rank lrank dies just
 * before iteration iter. */
typedef struct kill_ev {
    long iter, lrank;
} kill_ev_t;

typedef struct opts {
    const char *dims, *alloc, *method, *block, *kills, *outfile, *ckdir;
    long iters, every, nrandom;
    unsigned long long seed;
    int keep, quiet;
} opts_t;

/* Parse the command line (defaults from STENCIL_* variables).  0: go on;
 * 1: --help printed; 2: bad input (message on stderr from rank 0). */
int stencil_opts_parse(int argc, char **argv, int rank, opts_t *o);
/* "AxBxC" into up to 3 positive ints; the count, or -1. */
int stencil_parse_sizes(const char *s, int *v);
/* The planned kills: o->kills plus o->nrandom random ones, checked
 * against the iteration count, the ranks and the spares.  0, or 2 (message
 * from rank 0). */
int stencil_kills_make(const opts_t *o, long iters, long nranks, long nspares,
                       int rank, kill_ev_t *k, int *n);

/* ---- Recovery layer (stencil_ft.c) ---- */

#define STENCIL_MAX_EVENTS 64

/* One recovery: the failures it handled and where the time went.  All
 * times in seconds. */
typedef struct stencil_event {
    int nfailed;
    long node[8];      /* failed nodes (= world ranks), ascending */
    long lrank[8];     /* logical rank each hosted (-1: idle spare) */
    int degree[8];     /* sliding degree used (-1: nothing to move) */
    int sdim[8];       /* sliding dimension, -1 for 0D */
    int sdir[8];       /* +1/-1, 0 for 0D */
    long moved[8];     /* ranks that changed node */
    long reached;      /* highest iteration reached before the failure */
    long restored;     /* iteration rolled back to */
    double t_kill;     /* earliest kill time (CLOCK_REALTIME), 0: unknown */
    double t_declared; /* earliest declaration by the failure detector */
    double t_enter;    /* earliest survivor error */
    double t_shrunk;   /* last survivor done with revoke/agree/shrink */
    double t_remapped; /* last survivor done with the new mapping */
    double t_restored; /* last survivor done with the restore */
    double recompute;  /* time to get back to `reached` */
} stencil_event_t;

typedef struct stencil_ft {
    /* Fixed for the run. */
    int world_rank, world_size;
    spare_topo_t *topo;
    spare_method_t method;
    spare_map_t *map;
    char dir[4096];
    uint64_t nonce;
    long every; /* checkpoint interval */
    int nkills; /* injected kills planned (kill.<j> marker files) */
    /* Current. */
    MPI_Comm universe; /* every live process */
    MPI_Comm work;     /* the active ones, in logical rank order */
    long lrank;        /* -1: idle spare */
    int nevents;
    stencil_event_t ev[STENCIL_MAX_EVENTS];
    unsigned long long fired; /* injected kills that happened (bitmask) */
} stencil_ft_t;

/* Current CLOCK_REALTIME in seconds. */
double stencil_now(void);
/* Recover from a failure noticed at time t_err by a process that had
 * reached iteration `reached` (-1 if idle).  On return ft->work, ft->lrank
 * and ft->universe describe the new configuration; the caller then
 * restores its block with stencil_ft_restore().  0, or -1 when the run
 * cannot go on (message on stderr). */
int stencil_ft_recover(stencil_ft_t *ft, double t_err, long reached);
/* Restore after a recovery: every active process opens its block's
 * checkpoint and all roll back to the newest iteration every block holds.
 * *iter receives it.  Ends the recovery's bookkeeping (collective over
 * ft->universe).  0, or -1. */
int stencil_ft_restore(stencil_ft_t *ft, stencil_ckpt_t *ck, size_t count,
                       double *data, long *iter);

#endif /* STENCIL_H */
