/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spare_study.c: exhaustive and random studies of failure cases, run on
 * several threads.  Work is handed out one unit at a time (a first failed
 * node in the exhaustive modes, a sample in the random mode) so that the
 * results do not depend on the number of threads: every random sample
 * draws from its own generator, seeded from the study seed and the sample
 * number.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spare_int.h"

#define NDEG (SPARE_MAX_DIMS + 1)

struct study {
    const spare_study_config_t *cfg;
    spare_map_t *base;
    long total;
    atomic_long next;
    atomic_long done;
    atomic_int error;
};

struct worker {
    struct study *st;
    spare_study_result_t *res;
    spare_map_t **stack; /* one map per depth */
    long *seq;           /* failed nodes of the current case */
    pthread_t tid;
};

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static spare_study_result_t *result_new(int maxf, int keep)
{
    spare_study_result_t *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    size_t n = (size_t)maxf + 1;
    r->max_failures = maxf;
    r->cases = calloc(n, sizeof(long));
    r->unrecoverable = calloc(n, sizeof(long));
    r->worst = calloc(n, sizeof(int));
    r->best = calloc(n, sizeof(int));
    r->sum = calloc(n, sizeof(double));
    r->used = calloc(n * NDEG, sizeof(long));
    if (keep && !(r->worst_seq = calloc(n * (size_t)maxf, sizeof(long)))) {
        spare_study_result_free(r);
        return NULL;
    }
    if (!r->cases || !r->unrecoverable || !r->worst || !r->best || !r->sum ||
        !r->used) {
        spare_study_result_free(r);
        return NULL;
    }
    return r;
}

void spare_study_result_free(spare_study_result_t *res)
{
    if (!res)
        return;
    free(res->cases);
    free(res->unrecoverable);
    free(res->worst);
    free(res->best);
    free(res->sum);
    free(res->used);
    free(res->worst_seq);
    free(res);
}

/* Is the sequence a[0..f-1] lexicographically smaller than b? */
static int seq_less(const long *a, const long *b, int f)
{
    for (int i = 0; i < f; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Keep seq (f failed nodes) as the worst case with f failures if it beats
 * the kept one: more collisions, or as many and a smaller sequence. */
static void keep_worst(spare_study_result_t *r, int f, int coll, int had,
                       const long *seq)
{
    long *kept = r->worst_seq + (size_t)f * (size_t)r->max_failures;
    if (!had || coll > r->worst[f] ||
        (coll == r->worst[f] && seq_less(seq, kept, f)))
        memcpy(kept, seq, sizeof(long) * (size_t)f);
}

static void record(spare_study_result_t *r, int f, int coll, int degree,
                   const long *seq)
{
    if (r->worst_seq && seq && f > 0)
        keep_worst(r, f, coll, r->cases[f] != 0, seq);
    if (r->cases[f] == 0 || coll > r->worst[f])
        r->worst[f] = coll;
    if (r->cases[f] == 0 || coll < r->best[f])
        r->best[f] = coll;
    r->cases[f]++;
    r->sum[f] += coll;
    if (degree >= 0)
        r->used[(size_t)f * NDEG + (size_t)degree]++;
}

/* Fail `node` on stack[f] (a copy of stack[f-1]) and record; returns 1 when
 * the case was substituted. */
static int step(struct worker *w, int f, long node)
{
    spare_map_t *m = w->stack[f];
    if (spare_map_copy(m, w->stack[f - 1]) < 0)
        return 0;
    spare_subst_t info;
    int rc = spare_map_fail_node(m, node, &info);
    if (rc == -ENOSPC) {
        w->res->unrecoverable[f]++;
        return 0;
    }
    if (rc < 0)
        return 0;
    w->seq[f - 1] = node;
    record(w->res, f, m->pat ? spare_map_collisions(m) : 0, info.degree,
           w->seq);
    return 1;
}

static void dfs(struct worker *w, int f, long from)
{
    const spare_study_config_t *cfg = w->st->cfg;
    spare_map_t *prev = w->stack[f - 1];
    long start = cfg->mode == SPARE_STUDY_SETS ? from : 0;
    for (long v = start; v < cfg->topo->nnodes; v++) {
        if (prev->node_rank[v] < 0)
            continue; /* only nodes hosting a rank fail */
        if (step(w, f, v) && f < cfg->max_failures)
            dfs(w, f + 1, v + 1);
    }
}

static void run_unit(struct worker *w, long unit)
{
    const spare_study_config_t *cfg = w->st->cfg;
    if (cfg->mode == SPARE_STUDY_RANDOM) {
        uint64_t s = cfg->seed ^ ((uint64_t)unit * 0xd1342543de82ef95ULL);
        splitmix64(&s);
        spare_map_t *m = w->stack[1];
        if (spare_map_copy(m, w->st->base) < 0)
            return;
        long P = cfg->topo->nranks;
        for (int f = 1; f <= cfg->max_failures; f++) {
            long rank = (long)(splitmix64(&s) % (uint64_t)P);
            spare_subst_t info;
            long node = m->rank_node[rank];
            int rc = spare_map_fail_node(m, node, &info);
            if (rc < 0) {
                w->res->unrecoverable[f]++;
                break;
            }
            w->seq[f - 1] = node;
            record(w->res, f, m->pat ? spare_map_collisions(m) : 0, info.degree,
                   w->seq);
        }
        return;
    }
    /* exhaustive: the unit is the first failed node */
    if (w->stack[0]->node_rank[unit] < 0)
        return;
    if (step(w, 1, unit) && cfg->max_failures > 1)
        dfs(w, 2, unit + 1);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct study *st = w->st;
    for (;;) {
        long u = atomic_fetch_add(&st->next, 1);
        if (u >= st->total)
            break;
        run_unit(w, u);
        atomic_fetch_add(&st->done, 1);
    }
    return NULL;
}

static void worker_free(struct worker *w, int depth)
{
    if (w->stack)
        for (int i = 0; i < depth; i++)
            spare_map_destroy(w->stack[i]);
    free(w->stack);
    free(w->seq);
    spare_study_result_free(w->res);
}

static void merge(spare_study_result_t *to, const spare_study_result_t *from)
{
    for (int f = 0; f <= to->max_failures; f++) {
        if (from->cases[f]) {
            if (to->worst_seq && from->worst_seq && f > 0)
                keep_worst(to, f, from->worst[f], to->cases[f] != 0,
                           from->worst_seq +
                               (size_t)f * (size_t)from->max_failures);
            if (!to->cases[f] || from->worst[f] > to->worst[f])
                to->worst[f] = from->worst[f];
            if (!to->cases[f] || from->best[f] < to->best[f])
                to->best[f] = from->best[f];
        }
        to->cases[f] += from->cases[f];
        to->unrecoverable[f] += from->unrecoverable[f];
        to->sum[f] += from->sum[f];
        for (int k = 0; k < NDEG; k++)
            to->used[f * NDEG + k] += from->used[f * NDEG + k];
    }
}

int spare_study_run(const spare_study_config_t *cfg,
                    spare_study_result_t **resp)
{
    if (!cfg || !resp || !cfg->topo || cfg->max_failures < 1 ||
        cfg->threads < 1 || cfg->threads > 1024 ||
        (cfg->mode == SPARE_STUDY_RANDOM && cfg->samples < 1) ||
        (cfg->mode != SPARE_STUDY_RANDOM && cfg->mode != SPARE_STUDY_SETS &&
         cfg->mode != SPARE_STUDY_ORDERS))
        return -EINVAL;
    int rc = 0;
    struct study st = {.cfg = cfg};
    atomic_init(&st.next, 0);
    atomic_init(&st.done, 0);
    atomic_init(&st.error, 0);
    st.total =
        cfg->mode == SPARE_STUDY_RANDOM ? cfg->samples : cfg->topo->nnodes;
    int depth = cfg->mode == SPARE_STUDY_RANDOM ? 2 : cfg->max_failures + 1;
    rc = spare_map_create(cfg->topo, &cfg->method, cfg->pattern, &st.base);
    if (rc < 0)
        return rc;
    int keep = cfg->keep_worst && cfg->pattern;
    spare_study_result_t *res = result_new(cfg->max_failures, keep);
    struct worker *ws = calloc((size_t)cfg->threads, sizeof(*ws));
    if (!res || !ws) {
        rc = -ENOMEM;
        goto out;
    }
    record(res, 0, cfg->pattern ? spare_map_collisions(st.base) : 0, -1, NULL);
    for (int t = 0; t < cfg->threads; t++) {
        struct worker *w = &ws[t];
        w->st = &st;
        w->res = result_new(cfg->max_failures, keep);
        w->stack = calloc((size_t)depth, sizeof(spare_map_t *));
        w->seq = calloc((size_t)cfg->max_failures, sizeof(long));
        if (!w->res || !w->stack || !w->seq) {
            rc = -ENOMEM;
            goto out;
        }
        for (int i = 0; i < depth; i++) {
            rc = spare_map_create(cfg->topo, &cfg->method, cfg->pattern,
                                  &w->stack[i]);
            if (rc < 0)
                goto out;
        }
    }
    int started = 0;
    for (; started < cfg->threads; started++)
        if (pthread_create(&ws[started].tid, NULL, worker_main, &ws[started]) !=
            0)
            break;
    if (started == 0) {
        rc = -EAGAIN;
        goto out;
    }
    /* with fewer threads than asked, the started ones do all the work */
    for (long tick = 0; atomic_load(&st.done) < st.total; tick++) {
        if (cfg->progress && tick % 20 == 0)
            cfg->progress(cfg->progress_arg, atomic_load(&st.done), st.total);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (int t = 0; t < started; t++)
        pthread_join(ws[t].tid, NULL);
    if (cfg->progress)
        cfg->progress(cfg->progress_arg, st.total, st.total);
    for (int t = 0; t < started; t++)
        merge(res, ws[t].res);
out:
    if (ws)
        for (int t = 0; t < cfg->threads; t++)
            worker_free(&ws[t], depth);
    free(ws);
    spare_map_destroy(st.base);
    if (rc < 0) {
        spare_study_result_free(res);
        return rc;
    }
    *resp = res;
    return 0;
}
