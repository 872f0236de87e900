/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_sim.c: deterministic simulator and exhaustive checker of the core.
 *
 * Exploration is stateless: a schedule prefix is re-executed from the
 * initial state to reach a branching point (the core has no clone
 * operation, and replaying keeps the simulator independent of its
 * internals).  Every run is deterministic: same prefix, same messages,
 * same message numbers.
 */
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include "fta.h"
#include "fta_sim.h"
#include "fta_int.h"
#include "fta_sim_int.h"

void fta_sim_fail(sim_t *s, const char *fmt, ...)
{
    if (s->bad++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
}

static int cb_send(void *ctx, uint32_t dest, const void *buf, size_t len)
{
    sproc_t *pr = ctx;
    sim_t *s = pr->s;
    if (!s->alive[dest])
        return 0; /* to a crashed process: lost */
    if (s->nm == s->capm) {
        size_t cap = s->capm ? s->capm * 2 : 64;
        smsg_t *v = realloc(s->m, cap * sizeof *v);
        if (!v) {
            fta_sim_fail(s, "out of memory");
            return -ENOMEM;
        }
        s->m = v;
        s->capm = cap;
    }
    smsg_t *m = &s->m[s->nm];
    m->buf = malloc(len ? len : 1);
    if (!m->buf) {
        fta_sim_fail(s, "out of memory");
        return -ENOMEM;
    }
    memcpy(m->buf, buf, len);
    m->len = len;
    m->seq = s->seq++;
    m->src = pr->p;
    m->dst = dest;
    m->depth = s->clock[pr->p] + 1;
    s->nm++;
    return 0;
}

static void cb_decided(void *ctx, uint64_t inst, const fta_decision_t *d)
{
    sproc_t *pr = ctx;
    sim_t *s = pr->s;
    if (inst < 1 || inst > s->ninst) {
        fta_sim_fail(s, "p%u decided unknown instance %llu", pr->p,
                     (unsigned long long)inst);
        return;
    }
    sdec_t *x = D(s, pr->p, (uint32_t)inst);
    if (x->decided) {
        fta_sim_fail(s, "p%u decided instance %llu twice", pr->p,
                     (unsigned long long)inst);
        return;
    }
    if (!x->started)
        fta_sim_fail(s, "p%u decided instance %llu before starting it", pr->p,
                     (unsigned long long)inst);
    x->decided = 1;
    x->value = d->value;
    x->rc = d->rc;
    x->nF = d->nfailed;
    x->F = malloc((d->nfailed + 1) * sizeof *x->F);
    if (x->F && d->nfailed)
        memcpy(x->F, d->failed, d->nfailed * sizeof *x->F);
}

static void cb_revoked(void *ctx)
{
    sproc_t *pr = ctx;
    pr->s->revoked[pr->p] = 1;
}

/* Nothing may be needed from collected state: a message for a collected
 * instance must come from a process that decided it (or crashed). */
static void cb_dropped(void *ctx, uint32_t src, uint64_t inst)
{
    sproc_t *pr = ctx;
    sim_t *s = pr->s;
    if (inst >= 1 && inst <= s->ninst && s->alive[src] &&
        !D(s, src, (uint32_t)inst)->decided)
        fta_sim_fail(
            s, "p%u collected instance %llu that undecided p%u still needs",
            pr->p, (unsigned long long)inst, src);
}

static const fta_ops_t sim_ops = {cb_send, cb_decided, cb_revoked, NULL,
                                  cb_dropped};

void fta_sim_free(sim_t *s)
{
    for (uint32_t p = 0; s->node && p < s->P; p++)
        fta_node_destroy(s->node[p]);
    for (size_t i = 0; i < s->nm; i++)
        free(s->m[i].buf);
    for (size_t i = 0; s->dec && i < (size_t)s->P * s->ninst; i++)
        free(s->dec[i].F);
    free(s->node);
    free(s->proc);
    free(s->alive);
    free(s->revoked);
    free(s->clock);
    free(s->m);
    free(s->nt);
    free(s->dec);
    memset(s, 0, sizeof *s);
}

int fta_sim_init(sim_t *s, const fta_sim_cfg_t *cfg)
{
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->P = cfg->P;
    s->ninst = cfg->ninst ? cfg->ninst : 1;
    s->node = calloc(s->P, sizeof *s->node);
    s->proc = calloc(s->P, sizeof *s->proc);
    s->alive = calloc(s->P, 1);
    s->revoked = calloc(s->P, 1);
    s->clock = calloc(s->P, sizeof *s->clock);
    s->dec = calloc((size_t)s->P * s->ninst, sizeof *s->dec);
    if (!s->node || !s->proc || !s->alive || !s->revoked || !s->clock ||
        !s->dec)
        return -ENOMEM;
    for (uint32_t p = 0; p < s->P; p++) {
        fta_config_t c = {s->P, p, cfg->arity, 0, cfg->fast};
        s->proc[p].s = s;
        s->proc[p].p = p;
        s->alive[p] = 1;
        int rc = fta_node_create(&c, &sim_ops, &s->proc[p], &s->node[p]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static sim_t *sim_clone(const sim_t *s)
{
    sim_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *s;
    size_t nd = (size_t)s->P * s->ninst;
    c->node = calloc(s->P, sizeof *c->node);
    c->proc = malloc(s->P * sizeof *c->proc);
    c->alive = malloc(s->P);
    c->revoked = malloc(s->P);
    c->clock = malloc(s->P * sizeof *c->clock);
    c->m = malloc((s->nm + 1) * sizeof *c->m);
    c->capm = s->nm + 1;
    c->nm = 0;
    c->nt = malloc((s->nnt + 1) * sizeof *c->nt);
    c->capnt = s->nnt + 1;
    c->dec = calloc(nd, sizeof *c->dec);
    c->steps = 0;
    if (!c->node || !c->proc || !c->alive || !c->revoked || !c->clock ||
        !c->m || !c->nt || !c->dec)
        goto fail;
    memcpy(c->alive, s->alive, s->P);
    memcpy(c->revoked, s->revoked, s->P);
    memcpy(c->clock, s->clock, s->P * sizeof *c->clock);
    if (s->nnt)
        memcpy(c->nt, s->nt, s->nnt * sizeof *c->nt);
    for (uint32_t p = 0; p < s->P; p++) {
        c->proc[p].s = c;
        c->proc[p].p = p;
        if (fta_node_clone(s->node[p], &c->proc[p], &c->node[p]) < 0)
            goto fail;
    }
    for (size_t i = 0; i < s->nm; i++) {
        c->m[i] = s->m[i];
        c->m[i].buf = malloc(s->m[i].len ? s->m[i].len : 1);
        if (!c->m[i].buf)
            goto fail;
        memcpy(c->m[i].buf, s->m[i].buf, s->m[i].len);
        c->nm = i + 1;
    }
    for (size_t i = 0; i < nd; i++) {
        c->dec[i] = s->dec[i];
        c->dec[i].F = NULL;
        if (s->dec[i].F) {
            c->dec[i].F = malloc((s->dec[i].nF + 1) * sizeof *c->dec[i].F);
            if (!c->dec[i].F)
                goto fail;
            memcpy(c->dec[i].F, s->dec[i].F,
                   s->dec[i].nF * sizeof *c->dec[i].F);
        }
    }
    return c;
fail:
    fta_sim_free(c);
    free(c);
    return NULL;
}

static int32_t input_of(uint32_t p)
{
    return (int32_t) ~(1u << (p % 31));
}

/* Events enabled in the current state, in a fixed order. */
static size_t enabled(sim_t *s, ev_t *out, size_t max)
{
    size_t n = 0;
#define PUSH(k, A, B, S)                                                       \
    do {                                                                       \
        if (n < max)                                                           \
            out[n] = (ev_t){k, A, B, S};                                       \
        n++;                                                                   \
    } while (0)
    for (uint32_t p = 0; p < s->P; p++) {
        if (!s->alive[p])
            continue;
        for (uint32_t k = 1; k <= s->ninst; k++) {
            sdec_t *x = D(s, p, k);
            if (!x->started && (k == 1 || D(s, p, k - 1)->decided)) {
                PUSH(EV_START, p, k, 0);
                break;
            }
        }
    }
    if (s->cfg->revoke && !s->revoke_done && s->alive[s->P - 1])
        PUSH(EV_REVOKE, s->P - 1, 0, 0);
    for (size_t i = 0; i < s->nm; i++)
        PUSH(EV_DELIVER, s->m[i].src, s->m[i].dst, s->m[i].seq);
    for (size_t i = 0; i < s->nnt; i++)
        PUSH(EV_NOTICE, s->nt[i].q, s->nt[i].p, s->nt[i].seq);
    if (!s->cfg->all_orders && n > 1 && n <= max) {
        /* One order only: starts first, then the oldest delivery or
         * notice. */
        size_t best = 0;
        if (out[0].kind != EV_START && out[0].kind != EV_REVOKE)
            for (size_t i = 1; i < n; i++)
                if (out[i].seq < out[best].seq)
                    best = i;
        out[0] = out[best];
        n = 1;
    }
    /* A crashed process's messages still in flight may be lost, each
     * independently of the others. */
    for (size_t i = 0; i < s->nm; i++)
        if (!s->alive[s->m[i].src])
            PUSH(EV_LOSE, s->m[i].src, s->m[i].dst, s->m[i].seq);
    if (s->ncrash < s->cfg->max_crash && s->ncrash + 1 < s->P)
        for (uint32_t p = 0; p < s->P; p++)
            if (s->alive[p])
                PUSH(EV_CRASH, p, 0, 0);
#undef PUSH
    return n;
}

static uint32_t ev_proc(const ev_t *e)
{
    return e->kind == EV_DELIVER || e->kind == EV_LOSE ? e->b : e->a;
}

/* Two steps of different processes commute, except a crash, which also
 * removes its victim's messages in flight. */
static int independent(const ev_t *x, const ev_t *y)
{
    if (x->kind == EV_CRASH || y->kind == EV_CRASH) {
        const ev_t *c = x->kind == EV_CRASH ? x : y, *o = c == x ? y : x;
        if (o->kind == EV_CRASH)
            return o->a != c->a;
        if (ev_proc(o) == c->a ||
            ((o->kind == EV_DELIVER || o->kind == EV_LOSE) && o->a == c->a))
            return 0;
        if (o->kind == EV_NOTICE && o->b == c->a)
            return 0;
        return 1;
    }
    return ev_proc(x) != ev_proc(y);
}

static int ev_same(const ev_t *x, const ev_t *y)
{
    return x->kind == y->kind && x->a == y->a && x->b == y->b &&
           x->seq == y->seq;
}

void fta_sim_node_rc(sim_t *s, uint32_t p, int rc, const char *what)
{
    if (rc < 0)
        fta_sim_fail(s, "p%u: %s: %s", p, what, fta_strerror(rc));
}

static void do_crash(sim_t *s, uint32_t p)
{
    s->alive[p] = 0;
    s->ncrash++;
    size_t j = 0;
    for (size_t i = 0; i < s->nm; i++) {
        smsg_t *m = &s->m[i];
        if (m->dst == p)
            free(m->buf);
        else
            s->m[j++] = *m;
    }
    s->nm = j;
    j = 0;
    for (size_t i = 0; i < s->nnt; i++)
        if (s->nt[i].q != p)
            s->nt[j++] = s->nt[i];
    s->nnt = j;
    for (uint32_t q = 0; q < s->P; q++) {
        if (!s->alive[q])
            continue;
        if (s->nnt == s->capnt) {
            size_t cap = s->capnt ? s->capnt * 2 : 16;
            notice_t *v = realloc(s->nt, cap * sizeof *v);
            if (!v) {
                fta_sim_fail(s, "out of memory");
                return;
            }
            s->nt = v;
            s->capnt = cap;
        }
        s->nt[s->nnt++] = (notice_t){s->seq++, q, p};
    }
}

void fta_sim_apply(sim_t *s, const ev_t *e)
{
    s->steps++;
    switch (e->kind) {
    case EV_START: {
        uint32_t p = e->a, k = e->b;
        sdec_t *x = D(s, p, k);
        uint64_t inst = 0;
        const uint32_t *acked = NULL;
        uint32_t nacked = 0;
        if (k > 1) {
            acked = D(s, p, k - 1)->F;
            nacked = D(s, p, k - 1)->nF;
        }
        x->started = 1;
        fta_sim_node_rc(s, p,
                        fta_agree_start(s->node[p], input_of(p), NULL, acked,
                                        nacked, &inst),
                        "agree_start");
        if (inst != k)
            fta_sim_fail(s, "p%u started instance %llu, expected %u", p,
                         (unsigned long long)inst, k);
        break;
    }
    case EV_REVOKE:
        s->revoke_done = 1;
        fta_sim_node_rc(s, e->a, fta_revoke(s->node[e->a]), "revoke");
        break;
    case EV_DELIVER:
    case EV_LOSE:
        for (size_t i = 0; i < s->nm; i++) {
            if (s->m[i].seq != e->seq)
                continue;
            smsg_t m = s->m[i];
            memmove(&s->m[i], &s->m[i + 1], (s->nm - i - 1) * sizeof m);
            s->nm--;
            if (e->kind == EV_LOSE) {
                free(m.buf);
                return;
            }
            if (m.depth > s->clock[m.dst])
                s->clock[m.dst] = m.depth;
            fta_sim_node_rc(s, m.dst,
                            fta_node_recv(s->node[m.dst], m.src, m.buf, m.len),
                            "recv");
            free(m.buf);
            return;
        }
        fta_sim_fail(s, "replay lost message %llu", (unsigned long long)e->seq);
        break;
    case EV_NOTICE:
        for (size_t i = 0; i < s->nnt; i++) {
            if (s->nt[i].seq != e->seq)
                continue;
            notice_t t = s->nt[i];
            memmove(&s->nt[i], &s->nt[i + 1], (s->nnt - i - 1) * sizeof t);
            s->nnt--;
            fta_sim_node_rc(s, t.q, fta_node_failed(s->node[t.q], t.p),
                            "failed");
            return;
        }
        fta_sim_fail(s, "replay lost notice %llu", (unsigned long long)e->seq);
        break;
    case EV_CRASH:
        do_crash(s, e->a);
        break;
    }
}

static int in_set(const uint32_t *v, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* The properties, checked when no event is left. */
static void check_final(sim_t *s)
{
    for (uint32_t k = 1; k <= s->ninst && !s->bad; k++) {
        sdec_t *ref = NULL;
        for (uint32_t p = 0; p < s->P; p++) {
            if (!s->alive[p])
                continue;
            sdec_t *x = D(s, p, k);
            if (!x->decided) {
                fta_sim_fail(s, "termination: survivor p%u did not decide #%u",
                             p, k);
                return;
            }
            if (!ref) {
                ref = x;
                continue;
            }
            if (x->value != ref->value || x->rc != ref->rc ||
                x->nF != ref->nF ||
                (x->nF && memcmp(x->F, ref->F, x->nF * sizeof *x->F))) {
                fta_sim_fail(s, "agreement: survivors differ on #%u", k);
                return;
            }
        }
        if (!ref)
            continue;
        /* Validity: contributor p clears bit p; every survivor and only
         * processes that started the instance contributed. */
        for (uint32_t p = 0; p < s->P; p++) {
            int contributed = !(ref->value & (1 << (p % 31)));
            if (s->alive[p] && !contributed)
                fta_sim_fail(s, "validity: survivor p%u missing from #%u", p,
                             k);
            if (contributed && !D(s, p, k)->started)
                fta_sim_fail(s, "validity: p%u counted in #%u without starting",
                             p, k);
        }
        for (uint32_t i = 0; i < ref->nF; i++)
            if (ref->F[i] >= s->P || s->alive[ref->F[i]])
                fta_sim_fail(s, "failed set of #%u names live p%u", k,
                             ref->F[i]);
        if (k > 1) {
            /* Every survivor acknowledged the failures of #k-1. */
            sdec_t *prev = NULL;
            for (uint32_t p = 0; p < s->P && !prev; p++)
                if (s->alive[p])
                    prev = D(s, p, k - 1);
            for (uint32_t i = 0; prev && i < prev->nF; i++)
                if (!in_set(ref->F, ref->nF, prev->F[i]))
                    fta_sim_fail(s, "failed set of #%u lost a failure of #%u",
                                 k, k - 1);
        }
        if (k == 1 && (ref->rc == 0) != (ref->nF == 0))
            fta_sim_fail(s, "return code of #1 is %d with %u failures", ref->rc,
                         ref->nF);
    }
    /* Decided processes that crashed later may not contradict either. */
    for (uint32_t p = 0; p < s->P; p++) {
        fta_stats_t st;
        fta_node_get_stats(s->node[p], &st);
        if (st.conflicts)
            fta_sim_fail(s, "p%u received a decision different from its own",
                         p);
    }
    if (s->cfg->revoke) {
        int any = 0, all = 1;
        for (uint32_t p = 0; p < s->P; p++) {
            if (!s->alive[p])
                continue;
            any |= s->revoked[p];
            all &= s->revoked[p];
        }
        if (any && !all)
            fta_sim_fail(s, "revoke reached some survivors but not all");
    }
}

typedef struct explorer {
    const fta_sim_cfg_t *cfg;
    fta_sim_result_t *res;
    ev_t *prefix;
    size_t cap;
    int err;
} explorer_t;

static void describe(explorer_t *x, const sim_t *s, size_t depth)
{
    static const char *names[] = {"",      "start",  "deliver", "notice",
                                  "crash", "revoke", "lose"};
    fta_sim_result_t *r = x->res;
    size_t o = (size_t)snprintf(r->first, sizeof r->first,
                                "P=%u: %s\n  schedule:", x->cfg->P, s->why);
    for (size_t i = 0; i < depth && o < sizeof r->first - 40; i++) {
        const ev_t *e = &x->prefix[i];
        o += (size_t)snprintf(r->first + o, sizeof r->first - o,
                              " %zu:%s(%u,%u)", i + 1, names[e->kind], e->a,
                              e->b);
    }
}

/* Explore from state s (consumed). */
static void dfs(explorer_t *x, sim_t *s, size_t depth, const ev_t *sleep,
                size_t nsleep)
{
    fta_sim_result_t *r = x->res;
    ev_t evs[512];
    size_t n = 0;
    if (x->err || r->truncated)
        goto out;
    if (s->bad) {
        if (!r->violations++)
            describe(x, s, depth);
        goto out;
    }
    n = enabled(s, evs, 512);
    if (n > 512) {
        x->err = -E2BIG;
        goto out;
    }
    if (n == 0) {
        check_final(s);
        r->schedules++;
        if (s->bad && !r->violations++)
            describe(x, s, depth);
        if (x->cfg->max_schedules && r->schedules >= x->cfg->max_schedules)
            r->truncated = 1;
        if (x->cfg->progress && r->schedules % 1000000 == 0)
            fprintf(x->cfg->progress, "  P=%u: %llu schedules...\n", x->cfg->P,
                    (unsigned long long)r->schedules);
        goto out;
    }
    if (depth + 1 >= x->cap) {
        size_t cap = x->cap * 2;
        ev_t *v = realloc(x->prefix, cap * sizeof *v);
        if (!v) {
            x->err = -ENOMEM;
            goto out;
        }
        x->prefix = v;
        x->cap = cap;
    }
    /* Drop the events asleep here. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int asleep = 0;
        for (size_t j = 0; j < nsleep && !asleep; j++)
            asleep = ev_same(&sleep[j], &evs[i]);
        if (!asleep)
            evs[m++] = evs[i];
    }
    ev_t *child = malloc((m + nsleep + 1) * sizeof *child);
    if (!child) {
        x->err = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < m && !x->err && !r->truncated; i++) {
        sim_t *c = s;
        if (i + 1 < m && !(c = sim_clone(s))) {
            x->err = -ENOMEM;
            break;
        }
        size_t nchild = 0;
        for (size_t j = 0; j < nsleep; j++)
            if (independent(&sleep[j], &evs[i]))
                child[nchild++] = sleep[j];
        for (size_t j = 0; j < i; j++)
            if (independent(&evs[j], &evs[i]))
                child[nchild++] = evs[j];
        x->prefix[depth] = evs[i];
        fta_sim_apply(c, &evs[i]);
        dfs(x, c, depth + 1, child, nchild);
        if (c == s)
            s = NULL;
    }
    free(child);
out:
    if (s) {
        r->steps += s->steps;
        fta_sim_free(s);
        free(s);
    }
}

int fta_sim_explore(const fta_sim_cfg_t *cfg, fta_sim_result_t *res)
{
    if (!cfg || !res || cfg->P < 1 || cfg->P > 31 || cfg->ninst > 3)
        return -EINVAL;
    memset(res, 0, sizeof *res);
    explorer_t x = {cfg, res, NULL, 64, 0};
    x.prefix = malloc(x.cap * sizeof *x.prefix);
    sim_t *s = calloc(1, sizeof *s);
    if (!x.prefix || !s) {
        free(x.prefix);
        free(s);
        return -ENOMEM;
    }
    int rc = fta_sim_init(s, cfg);
    if (rc == 0) {
        dfs(&x, s, 0, NULL, 0);
        rc = x.err;
    } else {
        fta_sim_free(s);
        free(s);
    }
    free(x.prefix);
    return rc;
}
