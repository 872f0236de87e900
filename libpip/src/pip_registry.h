/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pip_registry.h: layout of a root's registry, the table `pips` reads.
 *
 * pip_init() creates a memfd named PIP_REG_NAME (close-on-exec, so that
 * process-mode tasks, which close close-on-exec descriptors, do not hold
 * it) and maps one header followed by `ntasks` entries.  Only the root
 * writes it.  A tool finds the roots by scanning /proc/PID/fd for the link
 * "/memfd:pip-registry (deleted)" and maps /proc/PID/fd/N read-only.
 *
 * Consistency (seqlock): the writer makes `gen` odd, changes the table,
 * then makes it even again.  A reader copies the table and accepts the
 * copy when `gen` was even and unchanged before and after the copy.
 *
 * The layout is fixed: fields are only ever appended (before the padding),
 * and any incompatible change bumps PIP_REG_VERSION.
 */
#ifndef PIP_REGISTRY_H
#define PIP_REGISTRY_H

#include <stdint.h>

#define PIP_REG_NAME     "pip-registry"
#define PIP_REG_MAGIC    0x7369676552506950ULL /* "PiPRegis" */
#define PIP_REG_VERSION  1
#define PIP_REG_PROG_LEN 224

/* Entry states. */
#define PIP_REG_FREE    0 /* no task (never spawned, or reaped) */
#define PIP_REG_RUNNING 2 /* spawned, not reaped yet (it may have ended) */

struct pip_reg_task {
    int32_t pipid;
    int32_t state;    /* PIP_REG_* */
    int32_t pid;      /* process of the task (the root's PID in thread mode) */
    int32_t tid;      /* kernel thread id of the task's main thread */
    int64_t start_ns; /* CLOCK_REALTIME at spawn, nanoseconds */
    int64_t rdebug;   /* private image: its loader's r_debug (pip-gdb); 0 */
    char prog[PIP_REG_PROG_LEN]; /* program path as spawned (tail if long) */
};

struct pip_reg_header {
    uint64_t magic;        /* PIP_REG_MAGIC */
    uint32_t version;      /* PIP_REG_VERSION */
    uint32_t header_size;  /* sizeof(struct pip_reg_header) */
    uint32_t entry_size;   /* sizeof(struct pip_reg_task) */
    volatile uint32_t gen; /* seqlock generation: odd while being written */
    int32_t root_pid;
    int32_t root_tid;
    int32_t mode;     /* PIP_MODE_PROCESS or PIP_MODE_PTHREAD */
    int32_t ntasks;   /* entries that follow the header */
    int32_t nrunning; /* entries in state PIP_REG_RUNNING */
    int32_t reserved;
    char root_prog[PIP_REG_PROG_LEN]; /* the root's argv[0] */
};

_Static_assert(sizeof(struct pip_reg_task) == 256, "registry entry layout");
_Static_assert(sizeof(struct pip_reg_header) == 272, "registry header layout");

#endif /* PIP_REGISTRY_H */
