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
#include "earth_coll.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- step 1: my segments ---- */

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
    if (earth_run_alloc(&R) || earth_split_mine(&R, segs, nseg))
        rc = MPI_ERR_NO_MEM;
    /* the exchanges below are collective: local errors are carried to the
     * final agreement instead of leaving early */
    int rc2 = earth_exchange_lists(&R);
    if (rc == MPI_SUCCESS)
        rc = rc2;
    if (rc == MPI_SUCCESS) {
        int64_t posted = 0;
        for (int64_t s = 0; s < R.nsteps && rc == MPI_SUCCESS; s++) {
            while (rc == MPI_SUCCESS && posted < R.nsteps &&
                   posted < s + R.depth) {
                rc = earth_post_step(&R, posted, (int)(posted % R.depth));
                posted++;
            }
            if (rc == MPI_SUCCESS)
                rc = earth_run_step(&R, s, (int)(s % R.depth));
        }
        for (int k = 0; k < R.depth; k++) {
            int r3 = earth_slot_wait(&R.slot[k]);
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
    earth_run_free(&R);
out:
    if (own_stream)
        free(R.stream);
    free(segs);
    earth_flat_free(&mflat);
    return rc;
}
