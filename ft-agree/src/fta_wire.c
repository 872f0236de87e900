/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_wire.c: encoding of protocol messages (little-endian, fixed-width
 * fields, every length checked on decode) and the aggregate algebra.
 *
 * Aggregates form a semilattice-like algebra: values AND, failure sets
 * union, acknowledgement counts take the minimum, and of several recorded
 * decisions the one of the highest ballot wins (see fta_core.c for why).
 */
#include <stdlib.h>
#include <string.h>
#include "fta_int.h"

static void wb_need(wbuf_t *w, size_t n)
{
    if (w->err || w->len + n <= w->cap)
        return;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < w->len + n)
        cap *= 2;
    unsigned char *p = realloc(w->p, cap);
    if (!p) {
        w->err = -ENOMEM;
        return;
    }
    w->p = p;
    w->cap = cap;
}

void wb_bytes(wbuf_t *w, const void *b, size_t n)
{
    wb_need(w, n);
    if (w->err)
        return;
    if (n)
        memcpy(w->p + w->len, b, n);
    w->len += n;
}

void wb_u32(wbuf_t *w, uint32_t x)
{
    unsigned char b[4] = {(unsigned char)x, (unsigned char)(x >> 8),
                          (unsigned char)(x >> 16), (unsigned char)(x >> 24)};
    wb_bytes(w, b, 4);
}

void wb_u64(wbuf_t *w, uint64_t x)
{
    wb_u32(w, (uint32_t)x);
    wb_u32(w, (uint32_t)(x >> 32));
}

const unsigned char *rb_bytes(rbuf_t *r, size_t n)
{
    if (r->err || r->len - r->off < n) {
        r->err = FTA_EPROTO;
        return NULL;
    }
    const unsigned char *p = r->p + r->off;
    r->off += n;
    return p;
}

uint32_t rb_u32(rbuf_t *r)
{
    const unsigned char *b = rb_bytes(r, 4);
    if (!b)
        return 0;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
           (uint32_t)b[3] << 24;
}

uint64_t rb_u64(rbuf_t *r)
{
    uint64_t lo = rb_u32(r);
    return lo | (uint64_t)rb_u32(r) << 32;
}

static void enc_set(wbuf_t *w, const rset_t *s)
{
    wb_u32(w, s->n);
    for (uint32_t i = 0; i < s->n; i++)
        wb_u32(w, s->v[i]);
}

static int dec_set(rbuf_t *r, rset_t *s, uint32_t size)
{
    uint32_t n = rb_u32(r);
    if (r->err || n > size || n > (r->len - r->off) / 4)
        return FTA_EPROTO;
    s->n = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = rb_u32(r);
        if (x >= size)
            return FTA_EPROTO;
        int rc = rset_add(s, x);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int dec_ubuf(rbuf_t *r, unsigned char **u, size_t ulen)
{
    if (!ulen)
        return 0;
    const unsigned char *b = rb_bytes(r, ulen);
    if (!b)
        return FTA_EPROTO;
    if (!*u && !(*u = malloc(ulen)))
        return -ENOMEM;
    memcpy(*u, b, ulen);
    return 0;
}

void fta_enc_dec(wbuf_t *w, const dec_t *d, size_t ulen)
{
    wb_u32(w, (uint32_t)d->value);
    wb_u32(w, (uint32_t)d->rc);
    enc_set(w, &d->F);
    if (ulen)
        wb_bytes(w, d->ubuf, ulen);
}

int fta_dec_dec(rbuf_t *r, dec_t *d, size_t ulen, uint32_t size)
{
    d->value = (int32_t)rb_u32(r);
    d->rc = (int32_t)rb_u32(r);
    if (d->rc != 0 && d->rc != FTA_EPROCFAILED)
        return FTA_EPROTO;
    int rc = dec_set(r, &d->F, size);
    if (rc < 0)
        return rc;
    return dec_ubuf(r, &d->ubuf, ulen);
}

void fta_enc_agg(wbuf_t *w, const agg_t *a, size_t ulen)
{
    wb_u32(w, (uint32_t)(a->has ? 1 : 0) | (a->has_dec ? 2u : 0u));
    if (a->has) {
        wb_u32(w, (uint32_t)a->value);
        wb_u32(w, a->minack);
        enc_set(w, &a->F);
        if (ulen)
            wb_bytes(w, a->ubuf, ulen);
    }
    if (a->has_dec) {
        wb_u32(w, a->bdec);
        fta_enc_dec(w, &a->dec, ulen);
    }
}

int fta_dec_agg(rbuf_t *r, agg_t *a, size_t ulen, uint32_t size)
{
    uint32_t flags = rb_u32(r);
    int rc = 0;
    if (r->err || flags > 3)
        return FTA_EPROTO;
    a->has = flags & 1;
    a->has_dec = (flags & 2) != 0;
    if (a->has) {
        a->value = (int32_t)rb_u32(r);
        a->minack = rb_u32(r);
        if ((rc = dec_set(r, &a->F, size)) < 0)
            return rc;
        if ((rc = dec_ubuf(r, &a->ubuf, ulen)) < 0)
            return rc;
    }
    if (a->has_dec) {
        a->bdec = rb_u32(r);
        if (a->bdec > size)
            return FTA_EPROTO;
        rc = fta_dec_dec(r, &a->dec, ulen, size);
    }
    return r->err ? r->err : rc;
}

void fta_dec_clear(dec_t *d)
{
    rset_free(&d->F);
    free(d->ubuf);
    memset(d, 0, sizeof *d);
}

void fta_agg_clear(agg_t *a)
{
    rset_free(&a->F);
    free(a->ubuf);
    fta_dec_clear(&a->dec);
    memset(a, 0, sizeof *a);
}

int fta_dec_copy(dec_t *dst, const dec_t *src, size_t ulen)
{
    dst->value = src->value;
    dst->rc = src->rc;
    int rc = rset_copy(&dst->F, &src->F);
    if (rc < 0)
        return rc;
    if (ulen) {
        if (!dst->ubuf && !(dst->ubuf = malloc(ulen)))
            return -ENOMEM;
        memcpy(dst->ubuf, src->ubuf, ulen);
    }
    return 0;
}

int fta_dec_equal(const dec_t *a, const dec_t *b, size_t ulen)
{
    return a->value == b->value && a->rc == b->rc && rset_equal(&a->F, &b->F) &&
           (!ulen || memcmp(a->ubuf, b->ubuf, ulen) == 0);
}

int fta_agg_merge(const fta_node_t *n, agg_t *dst, const agg_t *src)
{
    size_t ulen = n->cfg.ulen;
    int rc = 0;
    if (src->has) {
        if (!dst->has) {
            dst->has = 1;
            dst->value = src->value;
            dst->minack = src->minack;
            if ((rc = rset_copy(&dst->F, &src->F)) < 0)
                return rc;
            if (ulen) {
                if (!dst->ubuf && !(dst->ubuf = malloc(ulen)))
                    return -ENOMEM;
                memcpy(dst->ubuf, src->ubuf, ulen);
            }
        } else {
            dst->value &= src->value;
            if (src->minack < dst->minack)
                dst->minack = src->minack;
            if ((rc = rset_union(&dst->F, &src->F)) < 0)
                return rc;
            if (ulen && n->ops.reduce)
                n->ops.reduce(n->ctx, dst->ubuf, src->ubuf, ulen);
        }
    }
    if (src->has_dec && (!dst->has_dec || src->bdec > dst->bdec)) {
        dst->has_dec = 1;
        dst->bdec = src->bdec;
        rc = fta_dec_copy(&dst->dec, &src->dec, ulen);
    }
    return rc;
}
