/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_report.h: the results pip_bench_pvas collects, and the table, CSV
 * and plots made of them (pvas_report.c).
 */
#ifndef PVAS_REPORT_H
#define PVAS_REPORT_H

#include <stdio.h>

#include "pvas_bench.h"

#define PVAS_A2A_MAX 64 /* most N of the footprint sweep */

/* One method over one sweep of sizes, or why it could not be measured. */
typedef struct {
    int ok;
    char why[PVAS_MSG_MAX];
    pvas_stat_t st[PVAS_MAXSIZES];
} pvas_series_t;

/* Footprint of one N: [0] PiP tasks, [1] processes + shm. */
typedef struct {
    int n;
    int ok[2];
    char why[2][PVAS_MSG_MAX];
    long rss[2], pss[2], pte[2]; /* KiB */
    double t_med[2];             /* us per all-to-all */
} pvas_a2a_row_t;

typedef struct {
    int ncpu, reps, max_iters, rounds, fresh, prefetch, flags_only;
    const char *pip_mode;
    char machine[256];         /* CPU model, CPUs, kernel, glibc */
    char load0[64], load1[64]; /* /proc/loadavg at start and at end */
    int did_pp, did_nc, did_a2a;
    int npp;
    size_t pp_size[PVAS_MAXSIZES];
    pvas_series_t pp[PVAS_M_COUNT];
    /* Paired: per size, the median over the rounds of each round's
     * baseline / pip ratio, and in how many rounds pip was not slower. */
    double pp_pair[PVAS_M_COUNT][PVAS_MAXSIZES];
    double pp_pair_mean[PVAS_M_COUNT][PVAS_MAXSIZES]; /* of the means */
    int pp_npair[PVAS_M_COUNT], pp_won[PVAS_M_COUNT][PVAS_MAXSIZES];
    int nnc;
    size_t nc_size[PVAS_MAXSIZES], nc_block;
    pvas_series_t nc[PVAS_M_COUNT];
    int na2a;
    size_t a2a_block;
    pvas_a2a_row_t a2a[PVAS_A2A_MAX];
} pvas_results_t;

/* The tables, with ratios and the verdict on the targets. */
void pvas_report_table(FILE *f, const pvas_results_t *r);
/* Long-format CSV: section,x,method,metric,unit,median,min,max,reps,
 * pip_advantage,note.  Returns 0 or -1 (errno set). */
int pvas_report_csv(const char *path, const pvas_results_t *r);
/* Data files, a gnuplot script and SVG plots in dir; 0, or -1 when gnuplot
 * is missing or failed (a message says so). */
int pvas_report_plot(const char *dir, const pvas_results_t *r);

#endif /* PVAS_REPORT_H */
