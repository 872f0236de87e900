/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_bench_churn.c: a root that spawns and reaps many short process-mode
 * tasks in sequence, a few alive at a time, and reports its mapping count
 * (/proc/self/maps lines) and PSS (/proc/self/smaps_rollup) as it goes:
 * the memory of reaped tasks must be returned.
 *
 *   pip_bench_churn [--tasks N] [--alive K] [--every M] [--drain]
 *                   [--csv FILE] [--max-growth MAPS] [--max-pss-growth KIB]
 *                   PROG [ARG...]
 *
 * Prints a table (tasks reaped, tasks alive, mappings, PSS KiB) every M
 * reaped tasks; with --drain the root lets the live tasks end first, so
 * that what is measured is what ended tasks left.  With --max-growth (and
 * --max-pss-growth) the exit status is 1 when the mapping count (PSS) at
 * the end exceeds the one at the first report by more than MAPS (KIB): a
 * bound, not a time.
 */
#include <errno.h>
#include <pip/pip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long map_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static long pss_kib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (f == NULL)
        return -1;
    char line[256];
    long v = -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "Pss: %ld kB", &v) == 1)
            break;
    fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    long ntasks = 10000, every = 1000, max_growth = -1, max_pss = -1;
    int alive = 64, drain = 0;
    const char *csv = NULL;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--tasks") == 0 && a + 1 < argc)
            ntasks = atol(argv[++a]);
        else if (strcmp(argv[a], "--alive") == 0 && a + 1 < argc)
            alive = atoi(argv[++a]);
        else if (strcmp(argv[a], "--every") == 0 && a + 1 < argc)
            every = atol(argv[++a]);
        else if (strcmp(argv[a], "--csv") == 0 && a + 1 < argc)
            csv = argv[++a];
        else if (strcmp(argv[a], "--max-growth") == 0 && a + 1 < argc)
            max_growth = atol(argv[++a]);
        else if (strcmp(argv[a], "--max-pss-growth") == 0 && a + 1 < argc)
            max_pss = atol(argv[++a]);
        else if (strcmp(argv[a], "--drain") == 0)
            drain = 1;
        else {
            fprintf(stderr, "pip_bench_churn: unknown option %s\n", argv[a]);
            return 2;
        }
    }
    if (a >= argc || ntasks <= 0 || alive <= 0 || every <= 0) {
        fprintf(stderr, "usage: pip_bench_churn [--tasks N] [--alive K] "
                        "[--every M] [--drain] [--csv FILE] [--max-growth "
                        "MAPS] [--max-pss-growth KIB] PROG [ARG...]\n");
        return 2;
    }
    int nt = alive;
    int rc = pip_init(NULL, &nt, NULL, PIP_MODE_PROCESS);
    if (rc != 0) {
        fprintf(stderr, "pip_bench_churn: pip_init: %s\n", strerror(rc));
        return 1;
    }
    FILE *out = csv != NULL ? fopen(csv, "w") : NULL;
    if (csv != NULL && out == NULL) {
        fprintf(stderr, "pip_bench_churn: %s: %s\n", csv, strerror(errno));
        return 1;
    }
    if (out != NULL)
        fprintf(out, "reaped,alive,maps,pss_kib\n");
    long maps0 = map_count(), pss0 = pss_kib();
    printf("%10s %6s %10s %12s\n", "reaped", "alive", "maps", "PSS KiB");
    printf("%10d %6d %10ld %12ld\n", 0, 0, maps0, pss0);
    long spawned = 0, reaped = 0, first_maps = -1, first_pss = -1, bad = 0;
    long last_maps = maps0, last_pss = pss0;
    int running = 0;
    while (reaped < ntasks) {
        /* --drain: no new task in the last stretch before a report. */
        long next = (reaped / every + 1) * every;
        while (running < alive && spawned < ntasks &&
               (!drain || spawned < next)) {
            int pipid = PIP_PIPID_ANY;
            rc = pip_spawn(argv[a], &argv[a], NULL, PIP_CPUCORE_ASIS, &pipid,
                           NULL, NULL, NULL);
            if (rc != 0) {
                fprintf(stderr,
                        "pip_bench_churn: spawn %ld (after %ld reaped): %s\n",
                        spawned, reaped, strerror(rc));
                return 1;
            }
            spawned++;
            running++;
        }
        int id, st;
        rc = pip_wait_any(&id, &st);
        if (rc != 0) {
            fprintf(stderr, "pip_bench_churn: pip_wait_any: %s\n",
                    strerror(rc));
            return 1;
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            bad++;
        running--;
        reaped++;
        if (reaped % every == 0 || reaped == ntasks) {
            long m = map_count(), p = pss_kib();
            if (first_maps < 0) {
                first_maps = m;
                first_pss = p;
            }
            last_maps = m;
            last_pss = p;
            printf("%10ld %6d %10ld %12ld\n", reaped, running, m, p);
            fflush(stdout);
            if (out != NULL)
                fprintf(out, "%ld,%d,%ld,%ld\n", reaped, running, m, p);
        }
    }
    long maps_end = last_maps;
    if (getenv("PIP_BENCH_CHURN_DUMP") != NULL) {
        FILE *f = fopen("/proc/self/maps", "r");
        int c;
        while (f != NULL && (c = getc(f)) != EOF)
            putc(c, stderr);
        if (f != NULL)
            fclose(f);
    }
    if (out != NULL)
        fclose(out);
    (void)pip_fin();
    if (bad > 0) {
        fprintf(stderr, "pip_bench_churn: %ld tasks did not exit 0\n", bad);
        return 1;
    }
    if (max_growth >= 0 && maps_end - first_maps > max_growth) {
        fprintf(stderr,
                "pip_bench_churn: mappings grew from %ld to %ld (bound %ld)\n",
                first_maps, maps_end, max_growth);
        return 1;
    }
    if (max_pss >= 0 && last_pss - first_pss > max_pss) {
        fprintf(stderr,
                "pip_bench_churn: PSS grew from %ld to %ld KiB (bound %ld)\n",
                first_pss, last_pss, max_pss);
        return 1;
    }
    return 0;
}
