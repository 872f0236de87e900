/* SPDX-License-Identifier: BSD-2-Clause */
/* pips.h: what pips.c (options, selection, listing) takes from
 * pips_roots.c (finding the roots and reading their registries). */
#ifndef PIPS_H
#define PIPS_H

#include <sys/types.h>

#include "pip_registry.h"

struct root {
    pid_t found_pid; /* the process whose fd table holds the registry */
    dev_t dev;
    ino_t ino;
    struct pip_reg_header h;
    struct pip_reg_task *tasks; /* h.ntasks entries */
};

/* Every root whose registry this process may read; exits on a fatal
 * error.  *nroots gets their number. */
struct root *pips_find_roots(int *nroots);
int pips_cmp_root(const void *a, const void *b); /* qsort: by root pid */
/* State of thread tid of process pid from /proc in words, or "ended". */
const char *pips_thread_state(pid_t pid, pid_t tid);

#endif /* PIPS_H */
