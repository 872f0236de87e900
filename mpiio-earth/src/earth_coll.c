/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_coll.c: EARTH two-phase collective I/O.
 *
 *  1. Each rank turns (view, offset, count x datatype) into its list of file
 *     segments, in file order (= order of the packed data stream).
 *  2. One allgather of (fallback wish, first byte, end byte): if any rank
 *     cannot use EARTH, all hand the call to ROMIO.
 *  3. File domains: the accessed range is cut into blocks of striping_unit
 *     bytes (aligned to file offset 0), dealt round-robin to the
 *     aggregators; without striping_unit, into one even block per
 *     aggregator (ROMIO's split).  A block is cut into chunks of at most
 *     cb_buffer_size, and an aggregator's step covers up to cb_buffer_size
 *     bytes of its own blocks.
 *  4. Every rank sends each aggregator its segment list for that
 *     aggregator's domain, so both sides know every message size.
 *  5. Steps run in a pipeline `earth_steps` deep: the exchange of the next
 *     steps is posted before the file requests of the current step, which
 *     are issued with at most `earth_req` outstanding (0 = all at once).
 *     Writes fill holes by read-modify-write of the piece being written.
 */
#include "earth_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TAG_META 0x3e1
#define TAG_DATA 0x3e2

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

static int64_t dom_first(const dom_t *d, int a)
{
    int64_t r = ((a - d->b0) % d->naggr + d->naggr) % d->naggr;
    return d->b0 + r;
}

static int64_t dom_nsteps(const dom_t *d, int a)
{
    int64_t fa = dom_first(d, a);
    if (fa > d->b1)
        return 0;
    int64_t nb = (d->b1 - fa) / d->naggr + 1;
    return (nb + d->m - 1) / d->m * d->q;
}

static void dom_locate(const dom_t *d, int64_t x, int *a, int64_t *s,
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
static void dom_piece(const dom_t *d, int a, int64_t s, int64_t i, int64_t *lo,
                      int64_t *hi)
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

/* ---- step 1: my segments ---- */

typedef struct {
    int64_t off, len;
} seg_t;

static int seg_push(seg_t **v, int64_t *n, int64_t *cap, int64_t off,
                    int64_t len)
{
    if (*n && (*v)[*n - 1].off + (*v)[*n - 1].len == off) {
        (*v)[*n - 1].len += len;
        return 0;
    }
    if (*n == *cap) {
        int64_t nc = *cap ? 2 * *cap : 64;
        seg_t *nv = realloc(*v, (size_t)nc * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = nc;
    }
    (*v)[*n].off = off;
    (*v)[*n].len = len;
    (*n)++;
    return 0;
}

/* Segments of nbytes of data starting at view offset `off` (etypes). */
static int view_segments(earth_file_t *ef, MPI_Offset off, int64_t nbytes,
                         seg_t **out, int64_t *nout)
{
    const earth_flat_t *ft = &ef->ftype;
    seg_t *v = NULL;
    int64_t n = 0, cap = 0, pos = (int64_t)off * ef->etype_size;
    int64_t inst = pos / ft->size, r = pos % ft->size, j = 0, last = -1;
    int rc = 0;
    /* a contiguous filetype tiles into one segment */
    if (ft->n == 1 && ft->blk[0].len == ft->extent) {
        int64_t fo = ef->disp + inst * ft->extent + ft->blk[0].off + r;
        if (fo < 0)
            return -ENOTSUP;
        v = malloc(sizeof(*v));
        if (!v)
            return -ENOMEM;
        v->off = fo;
        v->len = nbytes;
        *out = v;
        *nout = 1;
        return 0;
    }
    while (j < ft->n && r >= ft->blk[j].len) {
        r -= ft->blk[j].len;
        j++;
    }
    while (nbytes > 0) {
        int64_t fo = ef->disp + inst * ft->extent + ft->blk[j].off + r;
        int64_t l = ft->blk[j].len - r;
        if (l > nbytes)
            l = nbytes;
        if (fo < 0 || fo < last) { /* not expressible as a sorted list */
            rc = -ENOTSUP;
            break;
        }
        if ((rc = seg_push(&v, &n, &cap, fo, l)) != 0)
            break;
        last = fo + l;
        nbytes -= l;
        r = 0;
        if (++j == ft->n) {
            j = 0;
            inst++;
        }
    }
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *nout = n;
    return 0;
}

/* ---- the pipeline ---- */

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

static int grow(char **b, int64_t *cap, int64_t need)
{
    if (need <= *cap)
        return 0;
    char *nb = realloc(*b, (size_t)need);
    if (!nb)
        return -ENOMEM;
    *b = nb;
    *cap = need;
    return 0;
}

static int slot_wait(slot_t *sl)
{
    int rc = MPI_SUCCESS;
    if (sl->ns)
        rc = earth_waitall(sl->ns, sl->sreq);
    sl->ns = 0;
    if (sl->nr) {
        int r2 = earth_waitall(sl->nr, sl->rreq);
        if (rc == MPI_SUCCESS)
            rc = r2;
    }
    sl->nr = 0;
    return rc;
}

/*
 * Post the exchange of step s in slot k.  Write: every rank sends its data
 * for the step, aggregators receive it.  Read: every rank posts the
 * receives of its data; aggregators send after their file requests.
 */
static int post_step(run_t *R, int64_t s, int k)
{
    earth_file_t *ef = R->ef;
    slot_t *sl = &R->slot[k];
    int n = ef->nprocs, na = R->d.naggr, rc;
    if ((rc = slot_wait(sl)) != MPI_SUCCESS)
        return rc;
    sl->s_off[0] = 0;
    for (int a = 0; a < na; a++) {
        int64_t i = R->cur_mine[a], b = 0;
        sl->s_first[a] = i;
        while (i < R->nmine[a] && R->mine[a][i].s == s)
            b += R->mine[a][i++].len;
        sl->s_cnt[a] = i - sl->s_first[a];
        R->cur_mine[a] = i;
        sl->s_off[a + 1] = sl->s_off[a] + b;
    }
    if (grow(&sl->sbuf, &sl->scap, sl->s_off[na]))
        return MPI_ERR_NO_MEM;
    for (int a = 0; a < na; a++) {
        int64_t b = sl->s_off[a + 1] - sl->s_off[a];
        char *p = sl->sbuf + sl->s_off[a];
        if (!b)
            continue;
        if (R->is_write) {
            const sseg_t *g = R->mine[a] + sl->s_first[a];
            for (int64_t i = 0; i < sl->s_cnt[a]; i++) {
                memcpy(p, R->stream + g[i].pos, (size_t)g[i].len);
                p += g[i].len;
            }
            rc =
                PMPI_Isend(sl->sbuf + sl->s_off[a], (int)b, MPI_BYTE,
                           ef->aggr[a], TAG_DATA, R->comm, &sl->sreq[sl->ns++]);
        } else {
            rc = PMPI_Irecv(p, (int)b, MPI_BYTE, ef->aggr[a], TAG_DATA, R->comm,
                            &sl->rreq[sl->nr++]);
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (R->me_a < 0)
        return MPI_SUCCESS;
    sl->r_off[0] = 0;
    for (int r = 0; r < n; r++) {
        int64_t i = R->cur_theirs[r], b = 0;
        sl->r_first[r] = i;
        for (; i < R->ntheirs[r]; i++) {
            int64_t st;
            dom_locate(&R->d, R->theirs[r][i].off, NULL, &st, NULL, NULL);
            if (st != s)
                break;
            b += R->theirs[r][i].len;
        }
        sl->r_cnt[r] = i - sl->r_first[r];
        R->cur_theirs[r] = i;
        sl->r_off[r + 1] = sl->r_off[r] + b;
    }
    if (grow(&sl->rbuf, &sl->rcap, sl->r_off[n]))
        return MPI_ERR_NO_MEM;
    if (R->is_write)
        for (int r = 0; r < n; r++) {
            int64_t b = sl->r_off[r + 1] - sl->r_off[r];
            if (!b)
                continue;
            rc = PMPI_Irecv(sl->rbuf + sl->r_off[r], (int)b, MPI_BYTE, r,
                            TAG_DATA, R->comm, &sl->rreq[sl->nr++]);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    return MPI_SUCCESS;
}

static int cmp_seg(const void *a, const void *b)
{
    const seg_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Aggregator: the extent of the data in each piece of step s and, for a
 * write, whether it has holes (then the piece is read first).
 */
static int step_extents(run_t *R, slot_t *sl, int64_t s)
{
    int n = R->ef->nprocs;
    int64_t tot = 0, t = 0;
    for (int64_t i = 0; i < R->npc; i++) {
        dom_piece(&R->d, R->me_a, s, i, &R->lo[i], &R->hi[i]);
        R->dmin[i] = INT64_MAX;
        R->dmax[i] = INT64_MIN;
        R->hole[i] = 0;
    }
    for (int r = 0; r < n; r++)
        tot += sl->r_cnt[r];
    seg_t *all = malloc(sizeof(seg_t) * (size_t)(tot ? tot : 1));
    if (!all)
        return -ENOMEM;
    for (int r = 0; r < n; r++)
        for (int64_t i = 0; i < sl->r_cnt[r]; i++)
            all[t++] = R->theirs[r][sl->r_first[r] + i];
    qsort(all, (size_t)tot, sizeof(seg_t), cmp_seg);
    int64_t prev_end = 0, prev_piece = -1;
    for (int64_t i = 0; i < tot; i++) {
        int64_t pc;
        dom_locate(&R->d, all[i].off, NULL, NULL, &pc, NULL);
        if (all[i].off < R->dmin[pc])
            R->dmin[pc] = all[i].off;
        if (all[i].off + all[i].len > R->dmax[pc])
            R->dmax[pc] = all[i].off + all[i].len;
        if (pc == prev_piece && all[i].off > prev_end)
            R->hole[pc] = 1;
        if (pc != prev_piece || all[i].off + all[i].len > prev_end)
            prev_end = all[i].off + all[i].len;
        prev_piece = pc;
    }
    free(all);
    return 0;
}

static void count_io(run_t *R, int nio)
{
    struct earth_stats *st = &R->ef->stats;
    int fl = R->inflight > 0 && R->inflight < nio ? R->inflight : nio;
    st->file_reqs += (uint64_t)nio;
    if ((uint64_t)nio > st->max_reqs_step)
        st->max_reqs_step = (uint64_t)nio;
    if ((uint64_t)fl > st->max_inflight)
        st->max_inflight = (uint64_t)fl;
}

/*
 * Requests for the pieces selected (holes only, or any data).  Throttled,
 * a request never crosses a stripe boundary, so that it goes to one server;
 * unthrottled, pieces that touch are merged into one request.  The list is
 * rotated by the aggregator's index so that aggregators working in step
 * start on different servers.
 */
static int piece_requests(run_t *R, int holes_only)
{
    int nio = 0;
    for (int64_t i = 0; i < R->npc; i++) {
        if (R->dmax[i] <= R->dmin[i] || (holes_only && !R->hole[i]))
            continue;
        int64_t x = R->dmin[i];
        while (x < R->dmax[i]) {
            int64_t e = R->dmax[i];
            if (R->inflight && R->su > 0 && (x / R->su + 1) * R->su < e)
                e = (x / R->su + 1) * R->su;
            char *p = R->cbuf + i * R->d.C + (x - R->lo[i]);
            earth_ioreq_t *q = &R->io[nio];
            if (!R->inflight && nio && q[-1].off + q[-1].len == x &&
                q[-1].buf + q[-1].len == p) {
                q[-1].len += e - x;
            } else {
                q->off = x;
                q->len = e - x;
                q->buf = p;
                nio++;
            }
            x = e;
        }
    }
    if (nio > 1 && R->me_a % nio) {
        int k = R->me_a % nio;
        earth_ioreq_t *tmp = malloc(sizeof(*tmp) * (size_t)k);
        if (tmp) {
            memcpy(tmp, R->io, sizeof(*tmp) * (size_t)k);
            memmove(R->io, R->io + k, sizeof(*tmp) * (size_t)(nio - k));
            memcpy(R->io + nio - k, tmp, sizeof(*tmp) * (size_t)k);
            free(tmp);
        }
    }
    return nio;
}

static int agg_io(run_t *R, int is_write, int holes_only)
{
    int nio = piece_requests(R, holes_only);
    if (!nio)
        return 0;
    count_io(R, nio);
    int rc = earth_io_run(R->ef->fd, is_write, R->io, nio,
                          R->inflight ? R->inflight : 16);
    for (int i = 0; i < nio && is_write; i++)
        R->ef->stats.bytes += (uint64_t)R->io[i].len;
    return rc;
}

/* Move each sender's segments between rbuf and the collective buffer. */
static void agg_copy(run_t *R, slot_t *sl, int to_cbuf)
{
    for (int r = 0; r < R->ef->nprocs; r++) {
        char *p = sl->rbuf + sl->r_off[r];
        const seg_t *g = R->theirs[r] + sl->r_first[r];
        for (int64_t i = 0; i < sl->r_cnt[r]; i++) {
            int64_t pc;
            dom_locate(&R->d, g[i].off, NULL, NULL, &pc, NULL);
            char *c = R->cbuf + pc * R->d.C + (g[i].off - R->lo[pc]);
            if (to_cbuf)
                memcpy(c, p, (size_t)g[i].len);
            else
                memcpy(p, c, (size_t)g[i].len);
            p += g[i].len;
        }
    }
}

static int run_step(run_t *R, int64_t s, int k)
{
    slot_t *sl = &R->slot[k];
    earth_file_t *ef = R->ef;
    int rc = MPI_SUCCESS, e;
    if (R->me_a >= 0) {
        if (R->is_write && sl->nr) {
            rc = earth_waitall(sl->nr, sl->rreq);
            sl->nr = 0;
            if (rc != MPI_SUCCESS)
                return rc;
        }
        if (step_extents(R, sl, s))
            return MPI_ERR_NO_MEM;
        if (R->is_write) {
            if ((e = agg_io(R, 0, 1)) == 0) {
                agg_copy(R, sl, 1);
                e = agg_io(R, 1, 0);
            }
        } else {
            if ((e = agg_io(R, 0, 0)) == 0)
                agg_copy(R, sl, 0);
            R->ef->stats.bytes += (uint64_t)sl->r_off[ef->nprocs];
        }
        /* an I/O error must not stall the peers: finish the exchange */
        if (e && !R->ioerr)
            R->ioerr = e;
        for (int64_t i = 0; i < R->npc; i++)
            if (R->dmax[i] > R->dmin[i]) {
                ef->stats.steps++;
                break;
            }
        if (!R->is_write)
            for (int r = 0; r < ef->nprocs; r++) {
                int64_t b = sl->r_off[r + 1] - sl->r_off[r];
                if (!b)
                    continue;
                rc = PMPI_Isend(sl->rbuf + sl->r_off[r], (int)b, MPI_BYTE, r,
                                TAG_DATA, R->comm, &sl->sreq[sl->ns++]);
                if (rc != MPI_SUCCESS)
                    return rc;
            }
    }
    if (!R->is_write) {
        /* my data of this step from every aggregator */
        if (sl->nr)
            rc = earth_waitall(sl->nr, sl->rreq);
        sl->nr = 0;
        if (rc != MPI_SUCCESS)
            return rc;
        for (int a = 0; a < R->d.naggr; a++) {
            const char *p = sl->sbuf + sl->s_off[a];
            const sseg_t *g = R->mine[a] + sl->s_first[a];
            for (int64_t i = 0; i < sl->s_cnt[a]; i++) {
                memcpy(R->stream + g[i].pos, p, (size_t)g[i].len);
                p += g[i].len;
            }
        }
    }
    return MPI_SUCCESS;
}

/* ---- setup ---- */

static void run_free(run_t *R)
{
    int na = R->d.naggr, n = R->ef->nprocs;
    if (R->mine)
        for (int a = 0; a < na; a++)
            free(R->mine[a]);
    if (R->theirs)
        for (int r = 0; r < n; r++)
            free(R->theirs[r]);
    if (R->slot)
        for (int k = 0; k < R->depth; k++) {
            slot_t *sl = &R->slot[k];
            free(sl->sbuf);
            free(sl->rbuf);
            free(sl->sreq);
            free(sl->rreq);
            free(sl->s_first);
        }
    free(R->mine);
    free(R->nmine);
    free(R->cur_mine);
    free(R->theirs);
    free(R->ntheirs);
    free(R->cur_theirs);
    free(R->slot);
    free(R->cbuf);
    free(R->lo);
    free(R->hole);
    free(R->io);
}

static int run_alloc(run_t *R)
{
    int na = R->d.naggr, n = R->ef->nprocs;
    R->mine = calloc((size_t)na, sizeof(*R->mine));
    R->nmine = calloc((size_t)na, sizeof(int64_t));
    R->cur_mine = calloc((size_t)na, sizeof(int64_t));
    R->theirs = calloc((size_t)n, sizeof(*R->theirs));
    R->ntheirs = calloc((size_t)n, sizeof(int64_t));
    R->cur_theirs = calloc((size_t)n, sizeof(int64_t));
    R->slot = calloc((size_t)R->depth, sizeof(slot_t));
    if (!R->mine || !R->nmine || !R->cur_mine || !R->theirs || !R->ntheirs ||
        !R->cur_theirs || !R->slot)
        return -ENOMEM;
    for (int k = 0; k < R->depth; k++) {
        slot_t *sl = &R->slot[k];
        sl->sreq = malloc(sizeof(MPI_Request) * (size_t)(n + na));
        sl->rreq = malloc(sizeof(MPI_Request) * (size_t)(n + na));
        /* one block for the six index arrays */
        sl->s_first = malloc(sizeof(int64_t) * (size_t)(3 * na + 3 * n + 2));
        if (!sl->sreq || !sl->rreq || !sl->s_first)
            return -ENOMEM;
        sl->s_cnt = sl->s_first + na;
        sl->s_off = sl->s_cnt + na;
        sl->r_first = sl->s_off + na + 1;
        sl->r_cnt = sl->r_first + n;
        sl->r_off = sl->r_cnt + n;
    }
    if (R->me_a >= 0) {
        int64_t np = R->npc;
        R->cbuf = malloc((size_t)(np * R->d.C));
        R->lo = malloc(sizeof(int64_t) * (size_t)(4 * np));
        R->hole = (int *)malloc(sizeof(int) * (size_t)np);
        /* throttled requests are cut at stripe boundaries */
        int64_t per = R->su > 0 ? R->d.C / R->su + 2 : 1;
        R->maxio = np * per;
        R->io = malloc(sizeof(earth_ioreq_t) * (size_t)R->maxio);
        if (!R->cbuf || !R->lo || !R->hole || !R->io)
            return -ENOMEM;
        R->hi = R->lo + np;
        R->dmin = R->hi + np;
        R->dmax = R->dmin + np;
    }
    return 0;
}

/* Cut my segments at piece boundaries, grouped by aggregator. */
static int split_mine(run_t *R, const seg_t *segs, int64_t nseg)
{
    int na = R->d.naggr;
    for (int pass = 0; pass < 2; pass++) {
        int64_t pos = 0;
        for (int a = 0; a < na && pass; a++) {
            R->mine[a] = malloc(sizeof(sseg_t) * (size_t)(R->nmine[a] + 1));
            if (!R->mine[a])
                return -ENOMEM;
            R->nmine[a] = 0;
        }
        for (int64_t i = 0; i < nseg; i++) {
            int64_t x = segs[i].off, e = x + segs[i].len;
            while (x < e) {
                int a;
                int64_t s, end;
                dom_locate(&R->d, x, &a, &s, NULL, &end);
                if (end > e)
                    end = e;
                if (pass) {
                    sseg_t *g = &R->mine[a][R->nmine[a]];
                    g->off = x;
                    g->len = end - x;
                    g->pos = pos;
                    g->s = s;
                }
                R->nmine[a]++;
                pos += end - x;
                x = end;
            }
        }
    }
    return 0;
}

/* Every aggregator learns the segments each rank has in its domain. */
static int exchange_lists(run_t *R)
{
    earth_file_t *ef = R->ef;
    int n = ef->nprocs, na = R->d.naggr, rc, nq = 0;
    int *scnt = calloc((size_t)n, sizeof(int)),
        *rcnt = calloc((size_t)n, sizeof(int));
    seg_t **out = calloc((size_t)na, sizeof(seg_t *));
    MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)(n + na));
    rc = (!scnt || !rcnt || !out || !q) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    for (int a = 0; a < na && rc == MPI_SUCCESS; a++) {
        scnt[ef->aggr[a]] = (int)R->nmine[a];
        out[a] = malloc(sizeof(seg_t) * (size_t)(R->nmine[a] + 1));
        if (!out[a]) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        for (int64_t i = 0; i < R->nmine[a]; i++) {
            out[a][i].off = R->mine[a][i].off;
            out[a][i].len = R->mine[a][i].len;
        }
    }
    /* a memory failure on one rank must not desert the others: the counts
     * still go round, and the error is agreed on at the end */
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, R->comm);
    if (rc == MPI_SUCCESS && R->me_a >= 0)
        for (int r = 0; r < n; r++) {
            R->ntheirs[r] = rcnt[r];
            R->theirs[r] = malloc(sizeof(seg_t) * (size_t)(rcnt[r] + 1));
            if (!R->theirs[r]) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            if (rcnt[r])
                PMPI_Irecv(R->theirs[r], 2 * rcnt[r], MPI_INT64_T, r, TAG_META,
                           R->comm, &q[nq++]);
        }
    if (rc == MPI_SUCCESS)
        for (int a = 0; a < na; a++)
            if (R->nmine[a])
                PMPI_Isend(out[a], 2 * (int)R->nmine[a], MPI_INT64_T,
                           ef->aggr[a], TAG_META, R->comm, &q[nq++]);
    if (nq) {
        int r2 = earth_waitall(nq, q);
        if (rc == MPI_SUCCESS)
            rc = r2;
    }
    for (int a = 0; out && a < na; a++)
        free(out[a]);
    free(out);
    free(scnt);
    free(rcnt);
    free(q);
    return rc;
}

static int errno_class(int e)
{
    switch (e) {
    case 0:
        return MPI_SUCCESS;
    case -ENOSPC:
    case -EDQUOT:
        return MPI_ERR_NO_SPACE;
    case -ENOMEM:
        return MPI_ERR_NO_MEM;
    case -EACCES:
    case -EPERM:
        return MPI_ERR_ACCESS;
    default:
        return MPI_ERR_IO;
    }
}

/*
 * Pack (to_stream) or unpack count elements of the flattened memory type
 * f at buf.  For accesses over 2 GiB, which MPI_Pack/MPI_Unpack cannot
 * describe (int sizes); the flattening is exact (earth_flatten checks its
 * size against MPI's), so the stream is what MPI_Pack would produce for
 * the native representation.
 */
static void flat_copy(const earth_flat_t *f, MPI_Count count, void *buf,
                      char *stream, int to_stream)
{
    char *base = (char *)buf;
    for (MPI_Count e = 0; e < count; e++, base += f->extent)
        for (int64_t i = 0; i < f->n; i++) {
            char *mem = base + f->blk[i].off;
            size_t len = (size_t)f->blk[i].len;
            if (to_stream)
                memcpy(stream, mem, len);
            else
                memcpy(mem, stream, len);
            stream += len;
        }
}

int earth_coll_rw(earth_file_t *ef, MPI_Comm comm, int is_write, MPI_Offset off,
                  void *buf, MPI_Count count, MPI_Datatype type,
                  int local_fallback, int *fallback, MPI_Count *nbytes_out)
{
    run_t R;
    MPI_Count tsize = 0;
    int64_t nbytes, nseg = 0, mine[3], agreed[3];
    seg_t *segs = NULL;
    earth_flat_t mflat = {0};
    int lfb = local_fallback, rc = MPI_SUCCESS, own_stream = 0;

    memset(&R, 0, sizeof(R));
    *fallback = 0;
    *nbytes_out = 0;
    if (!lfb) {
        PMPI_Type_size_x(type, &tsize);
        nbytes = (int64_t)count * tsize;
        if (earth_file_view(ef) != 0 || (ef->my_aggr >= 0 && ef->fd < 0) ||
            count < 0 || nbytes % ef->etype_size)
            lfb = 1;
        else if (nbytes > 0 &&
                 view_segments(ef, off, nbytes, &segs, &nseg) != 0)
            lfb = 1;
        else if (nbytes > 0 && earth_flatten(type, &mflat) != 0)
            lfb = 1;
    } else {
        nbytes = 0;
    }
    /* one allreduce: any fallback wish, first byte (negated), end byte */
    mine[0] = lfb;
    mine[1] = nseg ? -segs[0].off : INT64_MIN;
    mine[2] = nseg ? segs[nseg - 1].off + segs[nseg - 1].len : INT64_MIN;
    PMPI_Allreduce(mine, agreed, 3, MPI_INT64_T, MPI_MAX, comm);
    int64_t gmin = -agreed[1], gmax = agreed[2];
    *fallback = agreed[0] != 0;
    if (agreed[1] == INT64_MIN) /* nobody has data */
        gmin = gmax = 0;
    if (*fallback)
        goto out;
    *nbytes_out = nbytes;
    ef->stats.coll_calls++;
    if (gmax <= gmin)
        goto out;

    /* file domains */
    R.ef = ef;
    R.comm = comm;
    R.is_write = is_write;
    R.me_a = ef->my_aggr;
    R.depth = ef->hints.steps;
    R.inflight = ef->hints.req;
    R.d.naggr = ef->naggr;
    int64_t cb = ef->cb_buffer_size, su = ef->hints.striping_unit;
    R.su = su;
    if (su > 0) {
        /* blocks of g stripes dealt round-robin; auto: one block per
         * aggregator over the accessed range (ROMIO's even split, aligned
         * to stripes); g = 1 keeps each aggregator on the same servers */
        int64_t g = ef->hints.fd_stripes;
        if (g > 0) {
            R.d.o = 0;
        } else {
            R.d.o = gmin / su * su;
            int64_t per = (gmax - R.d.o + ef->naggr - 1) / ef->naggr;
            g = (per + su - 1) / su;
        }
        R.d.P = g * su;
        /* chunks hold whole stripes */
        R.d.C = R.d.P <= cb ? R.d.P : (cb >= su ? cb / su * su : cb);
    } else {
        R.d.o = gmin;
        R.d.P = (gmax - gmin + ef->naggr - 1) / ef->naggr;
        R.d.C = R.d.P < cb ? R.d.P : cb;
    }
    R.d.q = (R.d.P + R.d.C - 1) / R.d.C;
    R.d.m = R.d.P <= cb ? cb / R.d.P : 1;
    R.d.b0 = (gmin - R.d.o) / R.d.P;
    R.d.b1 = (gmax - 1 - R.d.o) / R.d.P;
    if (R.d.m > R.d.b1 - R.d.b0 + 1) /* never more pieces than blocks */
        R.d.m = R.d.b1 - R.d.b0 + 1;
    R.npc = R.d.m;
    for (int a = 0; a < R.d.naggr; a++)
        if (dom_nsteps(&R.d, a) > R.nsteps)
            R.nsteps = dom_nsteps(&R.d, a);

    /* the packed data stream */
    if (nbytes > 0) {
        if (mflat.n == 1 && mflat.blk[0].len == mflat.extent) {
            R.stream = (char *)buf + mflat.blk[0].off;
        } else {
            R.stream = malloc((size_t)nbytes);
            own_stream = 1;
            if (!R.stream)
                rc = MPI_ERR_NO_MEM;
            else if (is_write && nbytes > INT32_MAX)
                flat_copy(&mflat, count, buf, R.stream, 1);
            else if (is_write) {
                int pos = 0;
                rc = PMPI_Pack(buf, (int)count, type, R.stream, (int)nbytes,
                               &pos, comm);
            }
        }
    }
    if (run_alloc(&R) || split_mine(&R, segs, nseg))
        rc = MPI_ERR_NO_MEM;
    /* the exchanges below are collective: local errors are carried to the
     * final agreement instead of leaving early */
    int rc2 = exchange_lists(&R);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS) {
        int64_t posted = 0;
        for (int64_t s = 0; s < R.nsteps && rc == MPI_SUCCESS; s++) {
            while (rc == MPI_SUCCESS && posted < R.nsteps &&
                   posted < s + R.depth) {
                rc = post_step(&R, posted, (int)(posted % R.depth));
                posted++;
            }
            if (rc == MPI_SUCCESS)
                rc = run_step(&R, s, (int)(s % R.depth));
        }
        for (int k = 0; k < R.depth; k++) {
            int r3 = slot_wait(&R.slot[k]);
            if (rc == MPI_SUCCESS)
                rc = r3;
        }
    }
    if (rc == MPI_SUCCESS && R.ioerr)
        rc = errno_class(R.ioerr);
    if (rc == MPI_SUCCESS && !is_write && own_stream && nbytes > INT32_MAX) {
        flat_copy(&mflat, count, buf, R.stream, 0);
    } else if (rc == MPI_SUCCESS && !is_write && own_stream && nbytes > 0) {
        int pos = 0;
        rc = PMPI_Unpack(R.stream, (int)nbytes, &pos, buf, (int)count, type,
                         comm);
    }
    /* the same verdict on every rank */
    {
        int lc = rc, gc;
        PMPI_Allreduce(&lc, &gc, 1, MPI_INT, MPI_MAX, comm);
        if (rc == MPI_SUCCESS && gc != MPI_SUCCESS)
            rc = MPI_ERR_IO;
    }
    run_free(&R);
out:
    if (own_stream)
        free(R.stream);
    free(segs);
    earth_flat_free(&mflat);
    return rc;
}
