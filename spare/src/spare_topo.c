/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_topo.c: node spaces, spare allocation qD(r,s), dimension-order
 * routing, method names and error strings.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spare_int.h"

const char *spare_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case -EINVAL:
        return "invalid argument";
    case -ENOMEM:
        return "out of memory";
    case -ERANGE:
        return "node space too large";
    case -EEXIST:
        return "node already failed";
    case -ENOSPC:
        return "no substitution method of the list applies";
    case -EAGAIN:
        return "could not create threads";
    default:
        return "unknown error";
    }
}

int spare_topo_create(int ndims, const int *sizes, const int *torus, int sides,
                      int thickness, spare_topo_t **topop)
{
    if (!topop || !sizes || ndims < 2 || ndims > SPARE_MAX_DIMS)
        return -EINVAL;
    if (sides < 0 || sides > ndims)
        return -EINVAL;
    if (sides == 0)
        thickness = 0;
    else if (thickness < 1)
        return -EINVAL;
    long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] < 2)
            return -EINVAL;
        if (i < sides && thickness >= sizes[i])
            return -EINVAL;
        if (n > (1L << 31) / sizes[i])
            return -ERANGE;
        n *= sizes[i];
    }
    spare_topo_t *t = calloc(1, sizeof(*t));
    if (!t)
        return -ENOMEM;
    t->ndims = ndims;
    t->sides = sides;
    t->thickness = thickness;
    t->nnodes = n;
    t->nranks = 1;
    t->qd_limit = (long)sides * thickness;
    for (int i = 0; i < ndims; i++) {
        t->size[i] = sizes[i];
        t->torus[i] = torus ? (torus[i] != 0) : 0;
        t->rsize[i] = sizes[i] - (i < sides ? thickness : 0);
        t->stride[i] = i ? t->stride[i - 1] * sizes[i - 1] : 1;
        t->rstride[i] = i ? t->rstride[i - 1] * t->rsize[i - 1] : 1;
        t->nranks *= t->rsize[i];
    }
    t->rank_home = malloc(sizeof(long) * (size_t)t->nranks);
    if (!t->rank_home) {
        free(t);
        return -ENOMEM;
    }
    long r = 0;
    int c[SPARE_MAX_DIMS];
    for (long v = 0; v < n; v++) {
        spare_coords_of(t, v, c);
        int spare = 0;
        for (int i = 0; i < sides; i++)
            if (c[i] >= t->rsize[i])
                spare = 1;
        if (!spare)
            t->rank_home[r++] = v;
    }
    *topop = t;
    return 0;
}

/* Parse "24x24t8": sizes, with 't' marking a torus dimension. */
static int parse_dims(const char *s, int *sizes, int *torus)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        if (!isdigit((unsigned char)*p) || n == SPARE_MAX_DIMS)
            return -EINVAL;
        char *end;
        long v = strtol(p, &end, 10);
        if (v < 2 || v > 1000000)
            return -EINVAL;
        sizes[n] = (int)v;
        torus[n] = 0;
        p = end;
        if (*p == 't' || *p == 'T') {
            torus[n] = 1;
            p++;
        }
        n++;
        if (*p == '\0')
            break;
        if (*p != 'x' && *p != 'X')
            return -EINVAL;
        p++;
    }
    return n;
}

int spare_topo_parse(const char *dims, const char *alloc, spare_topo_t **topop)
{
    int sizes[SPARE_MAX_DIMS], torus[SPARE_MAX_DIMS];
    if (!dims || !alloc || !topop)
        return -EINVAL;
    int n = parse_dims(dims, sizes, torus);
    if (n < 0)
        return n;
    int q, r, s, len = 0;
    if (sscanf(alloc, "%d%*[dD](%d,%d)%n", &q, &r, &s, &len) != 3 ||
        alloc[len] != '\0' || len == 0)
        return -EINVAL;
    if (q != n)
        return -EINVAL;
    return spare_topo_create(n, sizes, torus, r, s, topop);
}

void spare_topo_destroy(spare_topo_t *topo)
{
    if (!topo)
        return;
    free(topo->rank_home);
    free(topo);
}

int spare_topo_ndims(const spare_topo_t *topo)
{
    return topo ? topo->ndims : -EINVAL;
}

int spare_topo_size(const spare_topo_t *topo, int dim)
{
    if (!topo || dim < 0 || dim >= topo->ndims)
        return -EINVAL;
    return topo->size[dim];
}

int spare_topo_is_torus(const spare_topo_t *topo, int dim)
{
    if (!topo || dim < 0 || dim >= topo->ndims)
        return -EINVAL;
    return topo->torus[dim];
}

int spare_topo_rank_size(const spare_topo_t *topo, int dim)
{
    if (!topo || dim < 0 || dim >= topo->ndims)
        return -EINVAL;
    return topo->rsize[dim];
}

long spare_topo_nodes(const spare_topo_t *topo)
{
    return topo ? topo->nnodes : -EINVAL;
}

long spare_topo_ranks(const spare_topo_t *topo)
{
    return topo ? topo->nranks : -EINVAL;
}

long spare_topo_spares(const spare_topo_t *topo)
{
    return topo ? topo->nnodes - topo->nranks : -EINVAL;
}

long spare_topo_links(const spare_topo_t *topo)
{
    return topo ? topo->nnodes * 2 * topo->ndims : -EINVAL;
}

int spare_topo_node_coords(const spare_topo_t *topo, long node, int *coords)
{
    if (!topo || !coords || node < 0 || node >= topo->nnodes)
        return -EINVAL;
    spare_coords_of(topo, node, coords);
    return 0;
}

long spare_topo_node_index(const spare_topo_t *topo, const int *coords)
{
    if (!topo || !coords)
        return -EINVAL;
    for (int i = 0; i < topo->ndims; i++)
        if (coords[i] < 0 || coords[i] >= topo->size[i])
            return -EINVAL;
    return spare_index_of(topo, coords);
}

long spare_topo_rank_home(const spare_topo_t *topo, long rank)
{
    if (!topo || rank < 0 || rank >= topo->nranks)
        return -EINVAL;
    return topo->rank_home[rank];
}

int spare_topo_is_spare(const spare_topo_t *topo, long node)
{
    int c[SPARE_MAX_DIMS];
    if (spare_topo_node_coords(topo, node, c) < 0)
        return -EINVAL;
    for (int i = 0; i < topo->sides; i++)
        if (c[i] >= topo->rsize[i])
            return 1;
    return 0;
}

int spare_topo_route(const spare_topo_t *topo, long src, long dst, long *links,
                     int max)
{
    if (!topo || src < 0 || dst < 0 || src >= topo->nnodes ||
        dst >= topo->nnodes || max < 0 || (max > 0 && !links))
        return -EINVAL;
    int a[SPARE_MAX_DIMS], b[SPARE_MAX_DIMS];
    spare_coords_of(topo, src, a);
    spare_coords_of(topo, dst, b);
    int hops = 0;
    long cur = src;
    int nd2 = 2 * topo->ndims;
    int ord[SPARE_MAX_DIMS], dirs[SPARE_MAX_DIMS], cnts[SPARE_MAX_DIMS];
    spare_route_plan(topo, a, b, ord, dirs, cnts);
    for (int k = 0; k < topo->ndims; k++) {
        int i = ord[k];
        int n = topo->size[i];
        int dir = dirs[i], cnt = cnts[i];
        int x = a[i];
        for (int h = 0; h < cnt; h++) {
            if (hops < max)
                links[hops] = cur * nd2 + 2 * i + dir;
            hops++;
            int nx = dir == 0 ? x + 1 : x - 1;
            long step = topo->stride[i];
            if (nx == n) {
                nx = 0;
                cur -= step * (n - 1);
            } else if (nx < 0) {
                nx = n - 1;
                cur += step * (n - 1);
            } else {
                cur += dir == 0 ? step : -step;
            }
            x = nx;
        }
    }
    return hops;
}

int spare_topo_set_routing(spare_topo_t *topo, spare_routing_t routing)
{
    if (!topo ||
        (routing != SPARE_ROUTE_DIM_ORDER && routing != SPARE_ROUTE_SYMMETRIC))
        return -EINVAL;
    topo->routing = (int)routing;
    return 0;
}

int spare_topo_routing(const spare_topo_t *topo)
{
    return topo ? topo->routing : -EINVAL;
}

int spare_routing_parse(const char *name, spare_routing_t *routing)
{
    if (!name || !routing)
        return -EINVAL;
    if (strcasecmp(name, "dor") == 0)
        *routing = SPARE_ROUTE_DIM_ORDER;
    else if (strcasecmp(name, "sym") == 0)
        *routing = SPARE_ROUTE_SYMMETRIC;
    else
        return -EINVAL;
    return 0;
}

int spare_topo_set_count(spare_topo_t *topo, spare_count_t count)
{
    if (!topo || (count != SPARE_COUNT_BOTH && count != SPARE_COUNT_PAPER))
        return -EINVAL;
    topo->count = (int)count;
    return 0;
}

int spare_topo_count(const spare_topo_t *topo)
{
    return topo ? topo->count : -EINVAL;
}

int spare_count_parse(const char *name, spare_count_t *count)
{
    if (!name || !count)
        return -EINVAL;
    if (strcasecmp(name, "both") == 0)
        *count = SPARE_COUNT_BOTH;
    else if (strcasecmp(name, "paper") == 0)
        *count = SPARE_COUNT_PAPER;
    else
        return -EINVAL;
    return 0;
}

int spare_topo_set_qd_limit(spare_topo_t *topo, long limit)
{
    if (!topo || limit < SPARE_QD_UNLIMITED)
        return -EINVAL;
    topo->qd_limit = limit;
    return 0;
}

long spare_topo_qd_limit(const spare_topo_t *topo)
{
    return topo ? topo->qd_limit : -EINVAL;
}

double spare_alloc_ratio(int q, int r, int s, double n)
{
    if (q < 1 || r < 0 || r > q || s < 0 || !(n > 0))
        return -1.0;
    double side = pow(n, 1.0 / q);
    if (s >= side)
        return -1.0;
    return 1.0 - pow(side - s, r) * pow(side, q - r) / n;
}

/* Parse "kD" at *pp; returns k or -1. */
static int parse_degree(const char **pp)
{
    const char *p = *pp;
    if (!isdigit((unsigned char)*p))
        return -1;
    int k = *p++ - '0';
    if (*p != 'd' && *p != 'D')
        return -1;
    *pp = p + 1;
    return k;
}

int spare_method_parse(const char *name, int ndims, spare_method_t *m)
{
    if (!name || !m || ndims < 1 || ndims > SPARE_MAX_DIMS)
        return -EINVAL;
    spare_method_t out = {0};
    const char *p = name;
    if (strncasecmp(p, "hybrid(", 7) != 0) {
        int k = parse_degree(&p);
        if (k < 0 || k > ndims || *p)
            return -EINVAL;
        out.count = 1;
        out.degree[0] = k;
        *m = out;
        return 0;
    }
    p += 7;
    if (strcasecmp(p, "all)") == 0) {
        for (int k = ndims; k >= 0; k--)
            out.degree[out.count++] = k;
    } else if (*p == '-') {
        int skip[SPARE_MAX_DIMS + 1] = {0};
        while (*p == '-') {
            p++;
            int k = parse_degree(&p);
            if (k < 0 || k > ndims || skip[k])
                return -EINVAL;
            skip[k] = 1;
        }
        if (strcmp(p, ")") != 0)
            return -EINVAL;
        for (int k = ndims; k >= 0; k--)
            if (!skip[k])
                out.degree[out.count++] = k;
        if (out.count == 0)
            return -EINVAL;
    } else {
        for (;;) {
            int k = parse_degree(&p);
            if (k < 0 || k > ndims)
                return -EINVAL;
            /* the paper's rule: descending order of degree */
            if (out.count > 0 && k >= out.degree[out.count - 1])
                return -EINVAL;
            out.degree[out.count++] = k;
            if (*p == ')' && p[1] == '\0')
                break;
            if (*p != '+')
                return -EINVAL;
            p++;
        }
    }
    *m = out;
    return 0;
}

int spare_method_format(const spare_method_t *m, char *buf, size_t len)
{
    if (!m || !buf || m->count < 1 || m->count > SPARE_MAX_DIMS + 1)
        return -EINVAL;
    char tmp[64];
    int n;
    if (m->count == 1) {
        n = snprintf(tmp, sizeof(tmp), "%dD", m->degree[0]);
    } else {
        n = snprintf(tmp, sizeof(tmp), "hybrid(");
        for (int i = 0; i < m->count; i++)
            n += snprintf(tmp + n, sizeof(tmp) - (size_t)n, "%s%dD",
                          i ? "+" : "", m->degree[i]);
        n += snprintf(tmp + n, sizeof(tmp) - (size_t)n, ")");
    }
    if ((size_t)n >= len)
        return -ENOSPC;
    memcpy(buf, tmp, (size_t)n + 1);
    return n;
}
