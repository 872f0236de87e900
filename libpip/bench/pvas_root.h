/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pvas_root.h: what pip_bench_pvas's driver and its PiP root side
 * (pvas_root.c) share.
 */
#ifndef PVAS_ROOT_H
#define PVAS_ROOT_H

#include "pvas_bench.h"

/* The PiP root of one measurement: map the control segment `name`, spawn
 * its n tasks of `task`, read the footprint (all-to-all), reap.  Exit
 * status for main: 0, or 1 with the reason in the segment. */
int pvas_root_main(const char *name, const char *task);

/* Add the VmRSS, Pss and VmPTE (KiB) of /proc/<pid> ("self" too) to the
 * segment's totals; 0 or -1. */
int pvas_add_footprint(pvas_ctl_t *c, const char *pid);

/* Wait until n parties finished the all-to-all; ended_early() reports a
 * party that died first.  0, or -1 (failure recorded in the segment). */
int pvas_wait_done(pvas_ctl_t *c, int n, int (*ended_early)(pvas_ctl_t *));

/* go = v (1: run, -1: called off), and wake the parties. */
void pvas_start(pvas_ctl_t *c, int v);

/* The footprint has been read: the parties may end. */
void pvas_release(pvas_ctl_t *c);

#endif /* PVAS_ROOT_H */
