/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_coll.h: the state of one EARTH collective call, shared by its
 * parts: earth_coll.c (the call: segments, agreement, file domains),
 * earth_plan.c (buffers, per-aggregator segment lists and their exchange)
 * and earth_pipe.c (the steps of the pipeline).  Private to these files.
 */
#ifndef EARTH_COLL_H
#define EARTH_COLL_H

#include "earth_internal.h"

#define TAG_META 0x3e1
#define TAG_DATA 0x3e2

/* Geometry of the file domains of one call. */
/* Geometry of the file domains of one call. */
typedef struct {
    int64_t o;      /* origin of block 0 */
    int64_t P;      /* block size */
    int64_t C;      /* chunk size (<= cb_buffer_size) */
    int64_t q;      /* chunks per block */
    int64_t m;      /* blocks per step */
    int64_t b0, b1; /* first and last block touched */
    int naggr;
} dom_t;

/* A piece of my data bound for one aggregator and step. */
typedef struct {
    int64_t off, len, pos;
    int64_t s;
} sseg_t;

static inline int64_t dom_first(const dom_t *d, int a)
{
    int64_t r = ((a - d->b0) % d->naggr + d->naggr) % d->naggr;
    return d->b0 + r;
}

static inline int64_t dom_nsteps(const dom_t *d, int a)
{
    int64_t fa = dom_first(d, a);
    if (fa > d->b1)
        return 0;
    int64_t nb = (d->b1 - fa) / d->naggr + 1;
    return (nb + d->m - 1) / d->m * d->q;
}

static inline void dom_locate(const dom_t *d, int64_t x, int *a, int64_t *s,
                              int64_t *piece, int64_t *end)
{
    int64_t b = (x - d->o) / d->P;
    int64_t bs = d->o + b * d->P;
    int64_t c = (x - bs) / d->C;
    int ag = (int)(b % d->naggr);
    int64_t j = (b - dom_first(d, ag)) / d->naggr;
    if (a)
        *a = ag;
    if (s)
        *s = (j / d->m) * d->q + c;
    if (piece)
        *piece = j % d->m;
    if (end) {
        int64_t e = bs + (c + 1) * d->C;
        *end = e < bs + d->P ? e : bs + d->P;
    }
}

/* File range of piece i of step s of aggregator a; empty if lo >= hi. */
static inline void dom_piece(const dom_t *d, int a, int64_t s, int64_t i,
                             int64_t *lo, int64_t *hi)
{
    int64_t sj = s / d->q, c = s % d->q, j = sj * d->m + i;
    int64_t b = dom_first(d, a) + j * d->naggr;
    *lo = *hi = 0;
    if (b > d->b1)
        return;
    int64_t bs = d->o + b * d->P;
    *lo = bs + c * d->C;
    *hi = *lo + d->C < bs + d->P ? *lo + d->C : bs + d->P;
}

/* A contiguous range of the file. */
typedef struct {
    int64_t off, len;
} seg_t;

/* Buffers and requests of one step in flight. */
/* Buffers and requests of one step in flight. */
typedef struct {
    char *sbuf, *rbuf; /* my data for/from aggregators; theirs for/from me */
    int64_t scap, rcap;
    MPI_Request *sreq, *rreq;
    int ns, nr;
    int64_t *s_first, *s_cnt, *s_off; /* per aggregator index */
    int64_t *r_first, *r_cnt, *r_off; /* per rank */
} slot_t;

typedef struct {
    earth_file_t *ef;
    MPI_Comm comm; /* ef->comm or the progress thread's duplicate */
    dom_t d;
    int is_write, depth, me_a, inflight;
    int64_t nsteps, npc;
    char *stream;
    sseg_t **mine; /* per aggregator index, in file order */
    int64_t *nmine, *cur_mine;
    seg_t **theirs; /* per sender rank, in file order */
    int64_t *ntheirs, *cur_theirs;
    slot_t *slot;
    char *cbuf;
    int64_t *lo, *hi, *dmin, *dmax;
    int *hole;
    earth_ioreq_t *io;
    int ioerr;     /* first negative errno of a file request */
    int64_t su;    /* stripe size, 0 if unknown */
    int64_t maxio; /* capacity of io */
} run_t;

/* ---- earth_plan.c ---- */
/* Allocate R's lists and slots (negative errno); run_free frees them. */
EARTH_HIDDEN int earth_run_alloc(run_t *R);
EARTH_HIDDEN void earth_run_free(run_t *R);
/* Cut my segments at piece boundaries, grouped by aggregator. */
EARTH_HIDDEN int earth_split_mine(run_t *R, const seg_t *segs, int64_t nseg);
/* Every aggregator learns the segments each rank has in its domain
 * (collective; an MPI error class). */
EARTH_HIDDEN int earth_exchange_lists(run_t *R);

/* ---- earth_pipe.c ---- */
/* Post the exchange of step s in slot k. */
EARTH_HIDDEN int earth_post_step(run_t *R, int64_t s, int k);
/* Carry out step s (slot k): the aggregator's file requests and copies. */
EARTH_HIDDEN int earth_run_step(run_t *R, int64_t s, int k);
/* Complete the requests of a slot. */
EARTH_HIDDEN int earth_slot_wait(slot_t *sl);

#endif /* EARTH_COLL_H */
