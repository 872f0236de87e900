/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_plan.c: what an EARTH collective call needs before its steps: the
 * buffers and slots of the pipeline, my segments cut at piece boundaries
 * and grouped by aggregator, and the exchange that gives every aggregator
 * the segment lists of all ranks in its domain.
 */
#include "earth_coll.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void earth_run_free(run_t *R)
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

int earth_run_alloc(run_t *R)
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
int earth_split_mine(run_t *R, const seg_t *segs, int64_t nseg)
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
int earth_exchange_lists(run_t *R)
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
