/* SPDX-License-Identifier: BSD-2-Clause */
/* pvas_driver.h: the driver's options and helpers (pvas_driver.c), as the
 * driver (pip_bench_pvas.c) and its MPICH baseline (pvas_mpich.c) use
 * them. */
#ifndef PVAS_DRIVER_H
#define PVAS_DRIVER_H

#include <limits.h>
#include <sys/types.h>

#include "pvas_report.h"

struct pvas_opts {
    size_t pp_lo, pp_hi, nc_lo, nc_hi, nc_block, a2a_block;
    int a2a_n[PVAS_A2A_MAX], na2a;
    int reps, max_iters, rounds;
    double timeout;
    int do_pp, do_a2a, do_nc, no_mpi, fresh, prefetch, flags_only;
    const char *csv, *plot, *task, *mpi_prog, *mpi_run, *pip_mode;
    char self[PATH_MAX];
};
extern struct pvas_opts opt;
extern char seg_name[64]; /* the live segment, removed on exit and signals */

/* "pip_bench_pvas: message" on stderr, the live segment removed, exit 1. */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Wait for pid (leader of its own process group) until the deadline; then
 * kill the group.  Returns the wait status, or -1 after a kill. */
int wait_or_kill(pid_t pid, double end);
/* "CPU model, N CPUs online, Linux release, glibc version" into buf. */
void pvas_machine_facts(char *buf, size_t len);
/* The three load averages of /proc/loadavg into buf ("?" if unreadable). */
void pvas_loadavg(char *buf, size_t len);
/* The MPICH columns of r: pvas_mpi under mpiexec -n 2 (pvas_mpich.c). */
void run_mpi(pvas_results_t *r);

#endif /* PVAS_DRIVER_H */
