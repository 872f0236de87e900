/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * earth_flatten.c: turn an MPI datatype into an ordered list of contiguous
 * byte blocks, decoding it with MPI_Type_get_envelope/contents.
 *
 * The list is in typemap order (the order in which data is packed), which
 * for file views MPI requires to be monotonically non-decreasing.  Types
 * that cannot be decoded exactly return -ENOTSUP and the caller hands the
 * operation to ROMIO.
 */
#include "earth_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int flat_push(earth_flat_t *f, int64_t off, int64_t len)
{
    if (len <= 0)
        return 0;
    if (f->n > 0) {
        earth_blk_t *l = &f->blk[f->n - 1];
        if (l->off + l->len == off) {
            l->len += len;
            f->size += len;
            return 0;
        }
        if (off < l->off + l->len)
            f->monotone = 0;
    }
    if (f->n == f->cap) {
        int64_t ncap = f->cap ? 2 * f->cap : 16;
        earth_blk_t *nb = realloc(f->blk, (size_t)ncap * sizeof(*nb));
        if (!nb)
            return -ENOMEM;
        f->blk = nb;
        f->cap = ncap;
    }
    f->blk[f->n].off = off;
    f->blk[f->n].len = len;
    f->n++;
    f->size += len;
    return 0;
}

void earth_flat_free(earth_flat_t *f)
{
    free(f->blk);
    memset(f, 0, sizeof(*f));
}

/* Append `count` copies of `old` (extent `ext`) starting at `base`. */
static int flat_rep(earth_flat_t *out, const earth_flat_t *old, int64_t base,
                    int64_t count, int64_t ext)
{
    int rc;
    if (old->n == 1 && old->blk[0].off == 0 && old->blk[0].len == ext)
        return flat_push(out, base, count * ext);
    for (int64_t i = 0; i < count; i++)
        for (int64_t j = 0; j < old->n; j++)
            if ((rc = flat_push(out, base + i * ext + old->blk[j].off,
                                old->blk[j].len)) != 0)
                return rc;
    return 0;
}

static int flat_rec(MPI_Datatype type, earth_flat_t *out, int64_t base);

/* Flatten `t` on its own (offsets relative to its origin) and learn its
 * extent. */
static int flat_sub(MPI_Datatype t, earth_flat_t *tmp, int64_t *ext)
{
    MPI_Count lb, extent;
    memset(tmp, 0, sizeof(*tmp));
    tmp->monotone = 1;
    PMPI_Type_get_extent_x(t, &lb, &extent);
    *ext = (int64_t)extent;
    return flat_rec(t, tmp, 0);
}

/* Owned global indices of one darray dimension, increasing. */
static int darray_dim(int g, int distrib, int darg, int p, int c, int **idx,
                      int *n)
{
    int *v = malloc(sizeof(int) * (size_t)(g > 0 ? g : 1));
    int k = 0;
    if (!v)
        return -ENOMEM;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < g; i++)
            v[k++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        for (int64_t i = (int64_t)c * b; i < g && i < (int64_t)(c + 1) * b; i++)
            v[k++] = (int)i;
    } else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (int i = 0; i < g; i++)
            if ((i / b) % p == c)
                v[k++] = i;
    } else {
        free(v);
        return -ENOTSUP;
    }
    *idx = v;
    *n = k;
    return 0;
}

/*
 * Shared by subarray and darray: the elements are the cartesian product of
 * per-dimension index lists over an array of `sizes`, in storage order.
 */
static int flat_grid(earth_flat_t *out, int64_t base, int nd, const int *sizes,
                     int **idx, const int *nidx, int order, MPI_Datatype old)
{
    earth_flat_t o;
    int64_t ext, stride[32], pos[32];
    int dims[32], rc;
    if (nd < 1 || nd > 32)
        return -ENOTSUP;
    if ((rc = flat_sub(old, &o, &ext)) != 0)
        goto done;
    /* dims[0] is the slowest dimension, dims[nd-1] the fastest */
    for (int i = 0; i < nd; i++)
        dims[i] = order == MPI_ORDER_C ? i : nd - 1 - i;
    stride[dims[nd - 1]] = ext;
    for (int i = nd - 2; i >= 0; i--)
        stride[dims[i]] = stride[dims[i + 1]] * sizes[dims[i + 1]];
    for (int i = 0; i < nd; i++) {
        pos[i] = 0;
        if (nidx[i] == 0)
            goto done;
    }
    for (;;) {
        int64_t off = base;
        int f = dims[nd - 1];
        for (int i = 0; i < nd - 1; i++)
            off += idx[dims[i]][pos[dims[i]]] * stride[dims[i]];
        /* runs of consecutive indices in the fastest dimension */
        for (int64_t j = 0; j < nidx[f];) {
            int64_t k = j + 1;
            while (k < nidx[f] && idx[f][k] == idx[f][k - 1] + 1)
                k++;
            if ((rc = flat_rep(out, &o, off + idx[f][j] * ext, k - j, ext)))
                goto done;
            j = k;
        }
        int i = nd - 2;
        for (; i >= 0; i--) {
            if (++pos[dims[i]] < nidx[dims[i]])
                break;
            pos[dims[i]] = 0;
        }
        if (i < 0)
            break;
    }
    rc = 0;
done:
    earth_flat_free(&o);
    return rc;
}

static int flat_subarray(earth_flat_t *out, int64_t base, const int *ints,
                         MPI_Datatype old)
{
    int nd = ints[0], rc = 0;
    int *idx[32] = {0}, nidx[32];
    if (nd < 1 || nd > 32)
        return -ENOTSUP;
    for (int i = 0; i < nd && !rc; i++) {
        int sub = ints[1 + nd + i], st = ints[1 + 2 * nd + i];
        idx[i] = malloc(sizeof(int) * (size_t)(sub > 0 ? sub : 1));
        if (!idx[i]) {
            rc = -ENOMEM;
            break;
        }
        for (int j = 0; j < sub; j++)
            idx[i][j] = st + j;
        nidx[i] = sub;
    }
    if (!rc)
        rc = flat_grid(out, base, nd, ints + 1, idx, nidx, ints[1 + 3 * nd],
                       old);
    for (int i = 0; i < nd; i++)
        free(idx[i]);
    return rc;
}

static int flat_darray(earth_flat_t *out, int64_t base, const int *ints,
                       MPI_Datatype old)
{
    int rank = ints[1], nd = ints[2], rc = 0;
    const int *gs = ints + 3, *dist = ints + 3 + nd, *darg = ints + 3 + 2 * nd,
              *ps = ints + 3 + 3 * nd;
    int *idx[32] = {0}, nidx[32], coord[32];
    if (nd < 1 || nd > 32)
        return -ENOTSUP;
    /* the process grid is row-major whatever the array order */
    for (int i = nd - 1, r = rank; i >= 0; i--) {
        coord[i] = r % ps[i];
        r /= ps[i];
    }
    for (int i = 0; i < nd && !rc; i++)
        rc = darray_dim(gs[i], dist[i], darg[i], ps[i], coord[i], &idx[i],
                        &nidx[i]);
    if (!rc)
        rc = flat_grid(out, base, nd, gs, idx, nidx, ints[3 + 4 * nd], old);
    for (int i = 0; i < nd; i++)
        free(idx[i]);
    return rc;
}

static int flat_rec(MPI_Datatype type, earth_flat_t *out, int64_t base)
{
    int ni, na, nd, comb, rc = 0;
    int *ints = NULL;
    MPI_Aint *addrs = NULL;
    MPI_Datatype *types = NULL;
    earth_flat_t o = {0};
    int64_t ext = 0;

    PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int size;
        MPI_Aint lb, extent;
        PMPI_Type_size(type, &size);
        PMPI_Type_get_extent(type, &lb, &extent);
        /* pair types such as MPI_DOUBLE_INT have padding we do not model */
        if (lb != 0 || extent != size)
            return -ENOTSUP;
        return flat_push(out, base, size);
    }
    ints = malloc(sizeof(int) * (size_t)(ni + 1));
    addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    if (!ints || !addrs || !types) {
        free(ints);
        free(addrs);
        free(types);
        return -ENOMEM;
    }
    PMPI_Type_get_contents(type, ni, na, nd, ints, addrs, types);

    switch (comb) {
    case MPI_COMBINER_DUP:
        rc = flat_rec(types[0], out, base);
        break;
    case MPI_COMBINER_RESIZED:
        /* the blocks do not move; only lb/extent change */
        rc = flat_rec(types[0], out, base);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        if (!(rc = flat_sub(types[0], &o, &ext)))
            rc = flat_rep(out, &o, base, ints[0], ext);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        if ((rc = flat_sub(types[0], &o, &ext)))
            break;
        for (int i = 0; i < ints[0] && !rc; i++) {
            int64_t st = comb == MPI_COMBINER_VECTOR ? (int64_t)ints[2] * ext
                                                     : (int64_t)addrs[0];
            rc = flat_rep(out, &o, base + i * st, ints[1], ext);
        }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        if ((rc = flat_sub(types[0], &o, &ext)))
            break;
        for (int i = 0; i < ints[0] && !rc; i++) {
            int64_t d = comb == MPI_COMBINER_INDEXED
                            ? (int64_t)ints[1 + ints[0] + i] * ext
                            : (int64_t)addrs[i];
            rc = flat_rep(out, &o, base + d, ints[1 + i], ext);
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        if ((rc = flat_sub(types[0], &o, &ext)))
            break;
        for (int i = 0; i < ints[0] && !rc; i++) {
            int64_t d = comb == MPI_COMBINER_INDEXED_BLOCK
                            ? (int64_t)ints[2 + i] * ext
                            : (int64_t)addrs[i];
            rc = flat_rep(out, &o, base + d, ints[1], ext);
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0] && !rc; i++) {
            earth_flat_t t;
            if (!(rc = flat_sub(types[i], &t, &ext)))
                rc = flat_rep(out, &t, base + addrs[i], ints[1 + i], ext);
            earth_flat_free(&t);
        }
        break;
    case MPI_COMBINER_SUBARRAY:
        rc = flat_subarray(out, base, ints, types[0]);
        break;
    case MPI_COMBINER_DARRAY:
        rc = flat_darray(out, base, ints, types[0]);
        break;
    default:
        rc = -ENOTSUP;
        break;
    }
    earth_flat_free(&o);
    /* get_contents returns new handles for derived types: free them */
    for (int i = 0; i < nd; i++) {
        int a, b, c, k;
        PMPI_Type_get_envelope(types[i], &a, &b, &c, &k);
        if (k != MPI_COMBINER_NAMED)
            PMPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    return rc;
}

int earth_flatten(MPI_Datatype type, earth_flat_t *out)
{
    MPI_Count lb, extent, size;
    int rc;
    memset(out, 0, sizeof(*out));
    out->monotone = 1;
    rc = flat_rec(type, out, 0);
    if (rc) {
        earth_flat_free(out);
        return rc;
    }
    PMPI_Type_get_extent_x(type, &lb, &extent);
    PMPI_Type_size_x(type, &size);
    out->lb = lb;
    out->extent = extent;
    /* a decoding that disagrees with MPI is not trusted */
    if (out->size != size) {
        earth_flat_free(out);
        return -ENOTSUP;
    }
    return 0;
}
