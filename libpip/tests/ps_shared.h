/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ps_shared.h: the state test_pip_scale shares with its task program
 * task_scale (hundreds of tasks, malloc and stdio stress, cross-task free).
 * The root maps it; tasks get its address as an argument.
 */
#ifndef PS_SHARED_H
#define PS_SHARED_H

#include <pip/pip.h>

#include <stddef.h>
#include <stdint.h>

#define PS_MAXT  512  /* most tasks of one case */
#define PS_SLOTS 4096 /* blocks in flight between tasks (cross-task free) */
#define PS_MAGIC 0x5053424cU

typedef struct {
    pip_barrier_t bar; /* all tasks of a case */
    volatile int fail; /* first failure code of any task */
    volatile int count_seen[PS_MAXT];
    volatile int tls_seen[PS_MAXT];
    void *volatile gaddr[PS_MAXT]; /* address of each task's private global */
    volatile long ops[PS_MAXT];
    volatile long bad[PS_MAXT];
    volatile int atexit_ran[PS_MAXT];
    void *volatile slots[PS_SLOTS];
} ps_shared_t;

/* Header of a block passed between tasks; the body follows. */
typedef struct {
    uint32_t magic;
    uint32_t owner;
    uint64_t seq;
    size_t size; /* whole block */
} ps_block_t;

static inline unsigned char ps_byte(uint64_t seq, size_t i)
{
    return (unsigned char)(seq * 131u + i * 7u + (i >> 8));
}

#endif /* PS_SHARED_H */
