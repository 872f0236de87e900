/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_pipe.c: the steps of an EARTH collective call.  The exchange of a
 * step (nonblocking point-to-point between every rank and the
 * aggregators) is posted ahead of the step; an aggregator's step is the
 * extent of its pieces, read-modify-write where a piece has holes, and its
 * file requests (throttled, cut at stripe boundaries, rotated so that
 * aggregators start on different servers).
 */
#include "earth_coll.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int earth_slot_wait(slot_t *sl)
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
int earth_post_step(run_t *R, int64_t s, int k)
{
    earth_file_t *ef = R->ef;
    slot_t *sl = &R->slot[k];
    int n = ef->nprocs, na = R->d.naggr, rc;
    if ((rc = earth_slot_wait(sl)) != MPI_SUCCESS)
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

int earth_run_step(run_t *R, int64_t s, int k)
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
