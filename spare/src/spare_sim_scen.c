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

int sim_scenario_run(const char *path, FILE *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fail_msg(err, errlen, "cannot open scenario %s: %s", path,
                        strerror(errno));
    char line[512], dims[128] = "", alloc[64] = "", method[64] = "hybrid(all)";
    char pattern[32] = "star";
    spare_routing_t routing = SPARE_ROUTE_DIM_ORDER;
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
                        "%s%s%s: %ld nodes, %ld ranks, %ld spares\n",
                        dims, alloc, method, pattern,
                        periodic ? " (periodic)" : "",
                        routing == SPARE_ROUTE_SYMMETRIC ? ", symmetric routing"
                                                         : "",
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
    rc = 0;
out:
    fclose(f);
    spare_map_destroy(map);
    spare_pattern_destroy(pat);
    spare_topo_destroy(topo);
    return rc;
}
