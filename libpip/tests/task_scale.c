/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_scale.c: task program of test_pip_scale.
 *
 *   task_scale count SH        private global and __thread counters, all
 *                              tasks alive at once (barrier)
 *   task_scale stress SH N     N rounds of malloc/realloc/free with content
 *                              checks and printf lines, concurrently
 *   task_scale xfree SH N      N operations of the cross-task free storm
 *   task_scale reuse           fails unless its data is as loaded
 *   task_scale exit SH CODE    atexit handler, barrier, exit(CODE)
 */
#include <pip/pip.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_shared.h"

static int counter;           /* .bss: each task must see its own */
static __thread int tcounter; /* local-exec TLS in a PIE */
static int data_word = 7;     /* .data */
static char data_text[16] = "as loaded";
static int bss_word;
static int my_pipid;
static ps_shared_t *my_sh;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void fill(ps_block_t *b, uint32_t owner, uint64_t seq, size_t size)
{
    b->magic = PS_MAGIC;
    b->owner = owner;
    b->seq = seq;
    b->size = size;
    unsigned char *p = (unsigned char *)(b + 1);
    for (size_t i = 0; i < size - sizeof(*b); i++)
        p[i] = ps_byte(seq, i);
}

/* Checks the first `upto` bytes of the block (all if upto >= size). */
static int intact(const ps_block_t *b, size_t upto)
{
    if (b->magic != PS_MAGIC || b->size < sizeof(*b))
        return 0;
    size_t n = (upto < b->size ? upto : b->size) - sizeof(*b);
    const unsigned char *p = (const unsigned char *)(b + 1);
    for (size_t i = 0; i < n; i++)
        if (p[i] != ps_byte(b->seq, i))
            return 0;
    return 1;
}

static size_t pick_size(uint64_t *rng)
{
    uint64_t r = rng_next(rng);
    if (r % 256 == 0) /* above the mmap threshold now and then */
        return 131072 + (size_t)(r >> 20) % 65536;
    return sizeof(ps_block_t) + (size_t)(r >> 8) % 2048;
}

static int do_stress(ps_shared_t *sh, int pipid, long rounds)
{
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(pipid + 1);
    void *keep[16] = {0};
    for (long i = 0; i < rounds; i++) {
        if (i % 100 == 0) {
            char *s = strdup("stress");
            if (s == NULL)
                return 24;
            printf("%s %d %ld\n", s, pipid, i / 100);
            fflush(stdout);
            free(s);
        }
        int k = (int)(rng_next(&rng) % 16);
        ps_block_t *b = keep[k];
        if (b != NULL) {
            if (!intact(b, b->size))
                return 20;
            if (rng_next(&rng) % 3 == 0) {
                size_t nsz = pick_size(&rng);
                size_t old = b->size;
                b = realloc(b, nsz);
                if (b == NULL)
                    return 21;
                if (!intact(b, nsz < old ? nsz : old))
                    return 22;
                keep[k] = b;
                fill(b, (uint32_t)pipid, (uint64_t)i, nsz);
                continue;
            }
            free(b);
        }
        size_t sz = pick_size(&rng);
        b = malloc(sz);
        if (b == NULL)
            return 23;
        fill(b, (uint32_t)pipid, (uint64_t)i, sz);
        keep[k] = b;
    }
    for (int k = 0; k < 16; k++)
        free(keep[k]);
    sh->ops[pipid] = rounds;
    return 0;
}

static int do_xfree(ps_shared_t *sh, int pipid, long nops)
{
    uint64_t rng = 0xd1b54a32d192ed03ULL * (uint64_t)(pipid + 1);
    long bad = 0;
    for (long i = 0; i < nops; i++) {
        size_t sz = pick_size(&rng);
        ps_block_t *b = malloc(sz);
        if (b == NULL)
            return 30;
        fill(b, (uint32_t)pipid, ((uint64_t)pipid << 40) | (uint64_t)i, sz);
        size_t slot = (size_t)(rng_next(&rng) % PS_SLOTS);
        ps_block_t *old =
            __atomic_exchange_n(&sh->slots[slot], b, __ATOMIC_ACQ_REL);
        if (old == NULL)
            continue;
        if (!intact(old, old->size))
            bad++;
        if (rng_next(&rng) % 4 == 0) {
            /* realloc another task's block, then free it */
            size_t nsz = pick_size(&rng), osz = old->size;
            old = realloc(old, nsz);
            if (old == NULL)
                return 31;
            if (!intact(old, nsz < osz ? nsz : osz))
                bad++;
        }
        free(old);
    }
    sh->ops[pipid] = nops;
    sh->bad[pipid] = bad;
    if (pip_barrier_wait(&sh->bar) != 0)
        return 32;
    if (pipid == 0) { /* the last blocks, from every task */
        for (size_t s = 0; s < PS_SLOTS; s++) {
            ps_block_t *old = sh->slots[s];
            sh->slots[s] = NULL;
            if (old == NULL)
                continue;
            if (!intact(old, old->size))
                sh->bad[pipid]++;
            free(old);
        }
    }
    return 0;
}

static void on_exit_mark(void)
{
    my_sh->atexit_ran[my_pipid] = 1;
}

int main(int argc, char **argv)
{
    const char *action = argc > 1 ? argv[1] : "";
    ps_shared_t *sh = NULL;
    int pipid = PIP_PIPID_NULL, ntasks = 0;

    if (strcmp(action, "reuse") == 0) {
        /* Run as a task or standalone: the data must be as loaded. */
        if (data_word != 7 || bss_word != 0 || counter != 0 || tcounter != 0 ||
            strcmp(data_text, "as loaded") != 0)
            return 10;
        data_word = 8;
        bss_word = 9;
        counter = 1;
        tcounter = 1;
        strcpy(data_text, "dirty");
        return 0;
    }
    if (argc > 2)
        sh = (ps_shared_t *)(uintptr_t)strtoull(argv[2], NULL, 16);
    if (sh == NULL || pip_init(&pipid, &ntasks, NULL, 0) != 0 || pipid < 0 ||
        pipid >= PS_MAXT)
        return 2;
    my_pipid = pipid;
    my_sh = sh;

    if (strcmp(action, "count") == 0) {
        counter++;
        tcounter++;
        sh->gaddr[pipid] = &counter;
        if (pip_barrier_wait(&sh->bar) != 0)
            return 3;
        /* every task has incremented its own counter by now */
        sh->count_seen[pipid] = counter;
        sh->tls_seen[pipid] = tcounter;
        printf("pipid %d counter %d\n", pipid, counter);
        return counter == 1 && tcounter == 1 ? 0 : 4;
    }
    if (strcmp(action, "stress") == 0)
        return do_stress(sh, pipid, argc > 3 ? atol(argv[3]) : 1000);
    if (strcmp(action, "xfree") == 0)
        return do_xfree(sh, pipid, argc > 3 ? atol(argv[3]) : 1000);
    if (strcmp(action, "exit") == 0) {
        if (atexit(on_exit_mark) != 0)
            return 5;
        if (pip_barrier_wait(&sh->bar) != 0)
            return 6;
        exit(argc > 3 ? atoi(argv[3]) : 0);
    }
    return 99;
}
