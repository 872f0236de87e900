/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_sim_scen.c: scenario files for spare-sim --scenario.  A scenario
 * names a node space, an allocation, a method, a pattern and an ordered
 * list of failed nodes; the output is every substitution with its
 * collision count and the final node-rank map.  The golden tests compare
 * this output with the expected one.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spare.h"
#include "spare_sim.h"

static void print_coords(FILE *out, const spare_topo_t *t, long node)
{
    int c[SPARE_MAX_DIMS];
    if (spare_topo_node_coords(t, node, c) < 0) {
        fputs("(?)", out);
        return;
    }
    fputc('(', out);
    for (int i = 0; i < spare_topo_ndims(t); i++)
        fprintf(out, "%s%d", i ? "," : "", c[i]);
    fputc(')', out);
}

static void print_map(FILE *out, const spare_topo_t *t, const spare_map_t *m)
{
    int nd = spare_topo_ndims(t);
    if (nd == 2) {
        fputs("map (rank per node; F failed, . idle; row y, column x):\n", out);
        int c[2];
        for (c[1] = 0; c[1] < spare_topo_size(t, 1); c[1]++) {
            for (c[0] = 0; c[0] < spare_topo_size(t, 0); c[0]++) {
                long r = spare_map_node_rank(m, spare_topo_node_index(t, c));
                if (r == SPARE_NODE_FAILED)
                    fprintf(out, " %4s", "F");
                else if (r == SPARE_NODE_IDLE)
                    fprintf(out, " %4s", ".");
                else
                    fprintf(out, " %4ld", r);
            }
            fputc('\n', out);
        }
        return;
    }
    fputs("map (rank: node):\n", out);
    for (long r = 0; r < spare_topo_ranks(t); r++) {
        fprintf(out, "%ld: ", r);
        print_coords(out, t, spare_map_rank_node(m, r));
        fputc('\n', out);
    }
}

static int fail_msg(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 1;
}

/* "(x,y)->(x',y')", with phase when the pattern has several. */
static void print_link(FILE *out, const spare_topo_t *t, const spare_map_t *m,
                       const spare_pattern_t *pat, const spare_link_t *l)
{
    int c[SPARE_MAX_DIMS];
    (void)m;
    print_coords(out, t, l->node);
    fputs("->", out);
    spare_topo_node_coords(t, l->node, c);
    int n = spare_topo_size(t, l->dim);
    c[l->dim] = l->dir == 0 ? (c[l->dim] + 1) % n : (c[l->dim] + n - 1) % n;
    print_coords(out, t, spare_topo_node_index(t, c));
    if (spare_pattern_phases(pat) > 1)
        fprintf(out, " in phase %d", l->phase);
}

static void print_busiest(FILE *out, const spare_topo_t *t,
                          const spare_map_t *m, const spare_pattern_t *pat,
                          int with_messages)
{
    spare_link_t l;
    long nl = 0;
    int load = spare_map_busiest_link(m, &l, &nl);
    if (load < 0)
        return;
    fputs(with_messages ? "busiest link " : "  busiest link ", out);
    print_link(out, t, m, pat, &l);
    fprintf(out, ": %d message%s (%ld link%s with %d)%s\n", load,
            load == 1 ? "" : "s", nl, nl == 1 ? "" : "s", load,
            with_messages ? ":" : "");
    if (!with_messages)
        return;
    long *src = malloc(sizeof(long) * (size_t)(load > 0 ? load : 1));
    long *dst = malloc(sizeof(long) * (size_t)(load > 0 ? load : 1));
    long n = src && dst ? spare_map_link_messages(m, &l, src, dst, load) : -1;
    for (long k = 0; k < n && k < load; k++) {
        long sn = spare_map_rank_node(m, src[k]);
        long dn = spare_map_rank_node(m, dst[k]);
        fprintf(out, "  rank %ld ", src[k]);
        print_coords(out, t, sn);
        fprintf(out, "%s -> rank %ld ",
                sn == spare_topo_rank_home(t, src[k]) ? "" : " (moved)",
                dst[k]);
        print_coords(out, t, dn);
        fprintf(out, "%s\n",
                dn == spare_topo_rank_home(t, dst[k]) ? "" : " (moved)");
    }
    free(src);
    free(dst);
}

int sim_scenario_run(const char *path, FILE *out, const char *load_svg,
                     char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail_msg(err, errlen, "cannot open scenario %s: %s", path,
                        strerror(errno));
    char line[512], dims[128] = "", alloc[64] = "", method[64] = "hybrid(all)";
    char pattern[32] = "star";
    spare_routing_t routing = SPARE_ROUTE_DIM_ORDER;
    spare_count_t count = SPARE_COUNT_BOTH;
    long qd_limit = -2; /* the allocation's */
    int periodic = 0, lineno = 0, rc = 1;
    spare_topo_t *topo = NULL;
    spare_pattern_t *pat = NULL;
    spare_map_t *map = NULL;
    long nfail = 0;
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        char *p = line;
        p[strcspn(p, "#\r\n")] = '\0';
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            continue;
        char key[32], val[256];
        val[0] = '\0';
        if (sscanf(p, "%31s %255s", key, val) < 1)
            continue;
        if (strcmp(key, "fail") != 0 && map) {
            fail_msg(err, errlen, "%s:%d: '%s' after the first failure", path,
                     lineno, key);
            goto out;
        }
        if (strcmp(key, "dims") == 0) {
            snprintf(dims, sizeof(dims), "%s", val);
        } else if (strcmp(key, "alloc") == 0) {
            snprintf(alloc, sizeof(alloc), "%s", val);
        } else if (strcmp(key, "method") == 0) {
            snprintf(method, sizeof(method), "%s", val);
        } else if (strcmp(key, "pattern") == 0) {
            snprintf(pattern, sizeof(pattern), "%s", val);
        } else if (strcmp(key, "periodic") == 0) {
            periodic = 1;
        } else if (strcmp(key, "routing") == 0) {
            if (spare_routing_parse(val, &routing) < 0) {
                fail_msg(err, errlen, "%s:%d: bad routing '%s' (dor or sym)",
                         path, lineno, val);
                goto out;
            }
        } else if (strcmp(key, "count") == 0) {
            if (spare_count_parse(val, &count) < 0) {
                fail_msg(err, errlen,
                         "%s:%d: bad counting rule '%s' (both or paper)", path,
                         lineno, val);
                goto out;
            }
        } else if (strcmp(key, "qd-limit") == 0) {
            char *end;
            qd_limit = strcmp(val, "none") == 0 ? SPARE_QD_UNLIMITED
                                                : strtol(val, &end, 10);
            if (qd_limit < SPARE_QD_UNLIMITED ||
                (qd_limit != SPARE_QD_UNLIMITED && (end == val || *end))) {
                fail_msg(err, errlen,
                         "%s:%d: bad qd-limit '%s' (a number or none)", path,
                         lineno, val);
                goto out;
            }
        } else if (strcmp(key, "fail") == 0) {
            if (!map) {
                int e = spare_topo_parse(dims, alloc, &topo);
                if (e < 0) {
                    fail_msg(err, errlen, "%s:%d: bad dims/alloc '%s' '%s'",
                             path, lineno, dims, alloc);
                    goto out;
                }
                spare_method_t m;
                spare_pattern_kind_t k;
                spare_topo_set_routing(topo, routing);
                spare_topo_set_count(topo, count);
                if (qd_limit != -2)
                    spare_topo_set_qd_limit(topo, qd_limit);
                if (spare_method_parse(method, spare_topo_ndims(topo), &m) <
                    0) {
                    fail_msg(err, errlen, "%s: bad method '%s'", path, method);
                    goto out;
                }
                if (spare_pattern_parse(pattern, spare_topo_ndims(topo), &k) <
                        0 ||
                    spare_pattern_create(topo, k, periodic, &pat) < 0 ||
                    spare_map_create(topo, &m, pat, &map) < 0) {
                    fail_msg(err, errlen, "%s: bad pattern '%s'", path,
                             pattern);
                    goto out;
                }
                fprintf(out,
                        "node space %s, allocation %s, method %s, pattern "
                        "%s%s%s%s",
                        dims, alloc, method, pattern,
                        periodic ? " (periodic)" : "",
                        routing == SPARE_ROUTE_SYMMETRIC ? ", symmetric routing"
                                                         : "",
                        count == SPARE_COUNT_PAPER ? ", paper's count" : "");
                if (qd_limit == SPARE_QD_UNLIMITED)
                    fputs(", no qD limit", out);
                else if (qd_limit >= 0)
                    fprintf(out, ", qD limit %ld", qd_limit);
                fprintf(out, ": %ld nodes, %ld ranks, %ld spares\n",
                        spare_topo_nodes(topo), spare_topo_ranks(topo),
                        spare_topo_spares(topo));
                fprintf(out, "no failure: collisions %d\n",
                        spare_map_collisions(map));
            }
            int c[SPARE_MAX_DIMS], n = 0;
            char *q = val;
            while (n < SPARE_MAX_DIMS) {
                char *end;
                long v = strtol(q, &end, 10);
                if (end == q)
                    break;
                c[n++] = (int)v;
                q = end;
                if (*q != ',')
                    break;
                q++;
            }
            long node = n == spare_topo_ndims(topo) && *q == '\0'
                            ? spare_topo_node_index(topo, c)
                            : -1;
            if (node < 0) {
                fail_msg(err, errlen, "%s:%d: bad node coordinates '%s'", path,
                         lineno, val);
                goto out;
            }
            long rank = spare_map_node_rank(map, node);
            spare_subst_t s;
            int e = spare_map_fail_node(map, node, &s);
            nfail++;
            fprintf(out, "failure %ld at ", nfail);
            print_coords(out, topo, node);
            if (e == -ENOSPC) {
                fprintf(out, " rank %ld: no method applies, job lost\n", rank);
                break;
            }
            if (e < 0) {
                fprintf(out, ": %s\n", spare_strerror(e));
                continue;
            }
            if (s.degree < 0) {
                fprintf(out, " (idle): one spare less; collisions %d\n",
                        spare_map_collisions(map));
                continue;
            }
            fprintf(out, " rank %ld: %dD", rank, s.degree);
            if (s.degree > 0)
                fprintf(out, " along dim %d %c", s.dim, s.dir > 0 ? '+' : '-');
            fprintf(out, ", %ld ranks moved", s.moved);
            if (s.spare >= 0) {
                fputs(", spare ", out);
                print_coords(out, topo, s.spare);
            }
            fprintf(out, "; rank %ld now at ", rank);
            print_coords(out, topo, spare_map_rank_node(map, rank));
            fprintf(out, "; collisions %d\n", spare_map_collisions(map));
            if (spare_map_collisions(map) > 1)
                print_busiest(out, topo, map, pat, 0);
        } else {
            fail_msg(err, errlen, "%s:%d: unknown keyword '%s'", path, lineno,
                     key);
            goto out;
        }
    }
    if (!map) {
        fail_msg(err, errlen, "%s: no 'fail' line", path);
        goto out;
    }
    print_map(out, topo, map);
    print_busiest(out, topo, map, pat, 1);
    if (load_svg) {
        char title[512];
        const char *base = strrchr(path, '/');
        snprintf(title, sizeof(title), "%s: link loads after %ld failures",
                 base ? base + 1 : path, nfail);
        int e = svg_loadmap_write(load_svg, title, topo, map);
        if (e < 0) {
            fail_msg(err, errlen, "cannot write %s: %s", load_svg,
                     strerror(-e));
            goto out;
        }
    }
    rc = 0;
out:
    fclose(f);
    spare_map_destroy(map);
    spare_pattern_destroy(pat);
    spare_topo_destroy(topo);
    return rc;
}

int sim_export_worst(const char *path, const spare_topo_t *topo,
                     const spare_study_result_t *res, int f,
                     const struct sim_export *ex)
{
    if (f <= 0) {
        /* the worst of all; ties to the fewest failures */
        for (int g = 1; g <= res->max_failures; g++)
            if (res->cases[g] && (f <= 0 || res->worst[g] > res->worst[f]))
                f = g;
    }
    if (f <= 0 || f > res->max_failures || !res->cases[f] || !res->worst_seq) {
        fprintf(stderr, "spare-sim: --export-worst: no case with %d failures\n",
                f);
        return -1;
    }
    FILE *o = fopen(path, "w");
    if (!o) {
        fprintf(stderr, "spare-sim: cannot write %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    fprintf(o,
            "# worst case of spare-sim (mode %s, seed %llu): %d failures, "
            "%d collisions\n",
            ex->mode, (unsigned long long)ex->seed, f, res->worst[f]);
    fprintf(o, "dims %s\nalloc %s\nmethod %s\npattern %s\n", ex->dims,
            ex->alloc, ex->method, ex->pattern);
    if (ex->periodic)
        fputs("periodic\n", o);
    fprintf(o, "routing %s\ncount %s\n", ex->routing, ex->count);
    long lim = spare_topo_qd_limit(topo);
    if (lim == SPARE_QD_UNLIMITED)
        fputs("qd-limit none\n", o);
    else
        fprintf(o, "qd-limit %ld\n", lim);
    const long *seq = res->worst_seq + (size_t)f * (size_t)res->max_failures;
    for (int i = 0; i < f; i++) {
        int c[SPARE_MAX_DIMS];
        spare_topo_node_coords(topo, seq[i], c);
        fputs("fail ", o);
        for (int d = 0; d < spare_topo_ndims(topo); d++)
            fprintf(o, "%s%d", d ? "," : "", c[d]);
        fputc('\n', o);
    }
    if (fclose(o) != 0) {
        fprintf(stderr, "spare-sim: writing %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
