/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_ranktab_report.c: bytes of rank table held per process with the
 * hierarchical tables (node -> delegatee -> board) against a flat table of
 * every rank, for 1,000 to 1,000,000 ranks, and the cost of a lookup
 * against indexing the flat table (medians of 5 runs).
 *
 * usage: dlg_ranktab_report [-b RANKS_PER_BOARD] [-B BOARDS_PER_DELEGATEE]
 *                           [-d DELEGATEES_PER_NODE] [-o FILE.csv]
 * RANKS_PER_BOARD defaults to DLG_BOARD_SIZE, else 64; the shape models a
 * many-core node, not the machine the report runs on.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "deleg.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int parse_pos(const char *s, unsigned *v)
{
    char *e;
    errno = 0;
    unsigned long x = strtoul(s, &e, 10);
    if (errno || *e || s[0] == '-' || x == 0 || x > 1000000)
        return -1;
    *v = (unsigned)x;
    return 0;
}

int main(int argc, char **argv)
{
    unsigned rpb = 64, bpd = 4, dpn = 1;
    const char *env = getenv("DLG_BOARD_SIZE");
    if (env && *env && parse_pos(env, &rpb)) {
        fprintf(stderr,
                "dlg_ranktab_report: DLG_BOARD_SIZE=%s: expected a "
                "positive integer\n",
                env);
        return 2;
    }
    const char *csvpath = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "b:B:d:o:")) != -1) {
        unsigned *dst = opt == 'b' ? &rpb : opt == 'B' ? &bpd : &dpn;
        if (opt == 'o') {
            csvpath = optarg;
            continue;
        }
        if (opt == '?' || parse_pos(optarg, dst)) {
            fprintf(stderr,
                    "usage: %s [-b RANKS_PER_BOARD] "
                    "[-B BOARDS_PER_DELEGATEE] [-d DELEGATEES_PER_NODE] "
                    "[-o FILE.csv]\n",
                    argv[0]);
            return 2;
        }
    }
    FILE *csv = NULL;
    if (csvpath && !(csv = fopen(csvpath, "w"))) {
        fprintf(stderr, "dlg_ranktab_report: %s: %s\n", csvpath,
                strerror(errno));
        return 1;
    }
    if (csv)
        fprintf(csv, "ranks,nodes,flat_bytes,client_bytes,delegatee_bytes,"
                     "max_bytes,ratio,lookup_ns,flat_lookup_ns\n");
    printf("# %u ranks per board, %u boards per delegatee, %u delegatee(s) "
           "per node; flat entry %zu bytes\n",
           rpb, bpd, dpn, sizeof(dlg_rankloc_t));
    printf("%9s %7s %12s %10s %12s %10s %9s %10s %10s\n", "ranks", "nodes",
           "flat B/proc", "client B", "delegatee B", "max B", "flat/max",
           "lookup ns", "flat ns");
    uint64_t counts[] = {1000, 10000, 100000, 1000000};
    int fail = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t ranks = counts[i];
        uint64_t per_node = (uint64_t)rpb * bpd * dpn;
        unsigned nodes = (unsigned)((ranks + per_node - 1) / per_node);
        uint64_t nb = (uint64_t)nodes * dpn * bpd;
        unsigned *br = malloc(nb * sizeof(*br));
        uint64_t left = ranks;
        for (uint64_t b = 0; b < nb; b++) {
            br[b] = (unsigned)(left < rpb ? left : rpb);
            left -= br[b];
        }
        dlg_ranktab_shape_t s = {.nodes = nodes,
                                 .deleg_per_node = dpn,
                                 .boards_per_deleg = bpd,
                                 .board_ranks = br};
        dlg_ranktab_t *t;
        int rc = dlg_ranktab_build(&s, &t);
        if (rc) {
            fprintf(stderr, "dlg_ranktab_report: %s\n", dlg_strerror(rc));
            return 1;
        }
        fprintf(stderr, "  %llu ranks: measuring lookups\n",
                (unsigned long long)ranks);
        dlg_ranktab_mem_t m;
        dlg_ranktab_mem(t, &m);
        /* Lookup cost over a pseudo-random rank sequence, against reading
         * the same entries of a flat table. */
        dlg_rankloc_t *flat = malloc(ranks * sizeof(*flat));
        for (uint64_t r = 0; r < ranks; r++)
            dlg_ranktab_lookup(t, r, &flat[r]);
        double vt[5], vf[5];
        const int N = 200000;
        for (int rep = 0; rep < 5; rep++) {
            uint64_t x = 12345, sum = 0;
            uint64_t t0 = now_ns();
            for (int k = 0; k < N; k++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                dlg_rankloc_t l;
                dlg_ranktab_lookup(t, (x >> 33) % ranks, &l);
                sum += l.node + l.local;
            }
            uint64_t t1 = now_ns();
            x = 12345;
            for (int k = 0; k < N; k++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                const dlg_rankloc_t *l = &flat[(x >> 33) % ranks];
                sum -= l->node + l->local;
            }
            uint64_t t2 = now_ns();
            if (sum != 0)
                fail = 1; /* both walks must agree */
            vt[rep] = (double)(t1 - t0) / N;
            vf[rep] = (double)(t2 - t1) / N;
        }
        qsort(vt, 5, sizeof(double), cmp_d);
        qsort(vf, 5, sizeof(double), cmp_d);
        double ratio = (double)m.flat_bytes / (double)m.max_bytes;
        printf("%9llu %7u %12llu %10llu %12llu %10llu %8.0fx %10.1f %10.1f\n",
               (unsigned long long)ranks, nodes,
               (unsigned long long)m.flat_bytes,
               (unsigned long long)m.client_bytes,
               (unsigned long long)m.delegatee_bytes,
               (unsigned long long)m.max_bytes, ratio, vt[2], vf[2]);
        if (csv)
            fprintf(csv, "%llu,%u,%llu,%llu,%llu,%llu,%.1f,%.1f,%.1f\n",
                    (unsigned long long)ranks, nodes,
                    (unsigned long long)m.flat_bytes,
                    (unsigned long long)m.client_bytes,
                    (unsigned long long)m.delegatee_bytes,
                    (unsigned long long)m.max_bytes, ratio, vt[2], vf[2]);
        free(flat);
        free(br);
        dlg_ranktab_free(t);
    }
    if (csv)
        fclose(csv);
    if (fail) {
        fprintf(stderr, "dlg_ranktab_report: lookups disagree with the flat "
                        "table\n");
        return 1;
    }
    return 0;
}
