/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_sim_fd.c: exhaustive checker of the failure detector's rules
 * (src/fta_fd.c), and its large runs for the benchmark.
 *
 * The model: P processes in a ring.  Each live process q observes the K
 * live ranks after it in the ring of the ranks it does not know dead; an
 * observer whose observed rank crashed may declare it (the timeout fires,
 * at any step).  A process that knows a failure sends a notice of it to
 * each of its current neighbours in the binomial graph of the ranks it
 * does not know dead (fta_bmg_targets, the code the detector and the
 * revoke use), one message per step, once per (failure, neighbour), and
 * again to new neighbours when its view changes; a process that receives
 * a notice knows the failure.  Any process may crash at any step (up to
 * the crash budget, leaving two), in particular an observer between two
 * notices it forwards; a crashed process's messages in flight may be
 * lost.  Messages of live processes arrive (the fabric providers are
 * reliable; over UDP the digest exchange of heartbeats repairs losses,
 * not modelled here).  Every reachable state is visited once (states are
 * hashed).  Checked in every final state (nothing left to do): every
 * survivor knows every crashed process (completeness), no survivor is
 * known dead anywhere (accuracy), and every survivor is observed by a
 * survivor (the ring is closed again).
 *
 * Seeded bugs (fta-sim-seeded, FTA_SEEDED_VARIANT): 3, a process that
 * receives a notice does not forward it (only the observer that declared
 * a failure sends it); 4, an observer never adopts past a dead observed
 * rank (it keeps observing its original successors).
 */
#include <stdlib.h>
#include <string.h>
#include "fta.h"
#include "fta_int.h"
#include "fta_sim.h"

#define FDS_MAXP 8
#define W        (FDS_MAXP * FDS_MAXP * FDS_MAXP / 64)

typedef struct fds_state {
    uint8_t alive;           /* bit p */
    uint8_t known[FDS_MAXP]; /* known[p]: bit r = p knows r dead */
    uint8_t crashes, pad[7];
    uint64_t sent[W];   /* bit (p, r, b): p sent notice r to b */
    uint64_t flight[W]; /* bit (p, r, b): that message in flight */
} fds_state_t;

#ifdef FTA_SEEDED_BUG
static int fd_seeded(int v)
{
    const char *e = getenv("FTA_SEEDED_VARIANT");
    return e && atoi(e) == v;
}
#else
#define fd_seeded(v) 0
#endif

typedef struct fnode {
    fds_state_t s;
    uint8_t declared[FDS_MAXP]; /* for seeded bug 3 only */
} fnode_t;

typedef struct fds {
    uint32_t P, K, max_crash;
    /* visited states: open addressing */
    fnode_t *tab;
    uint8_t *used;
    size_t cap, n;
    uint64_t finals, violations;
    int err;
    char first[512];
} fds_t;

static size_t bit(uint32_t P, uint32_t p, uint32_t r, uint32_t b)
{
    return ((size_t)p * P + r) * P + b;
}
static int bget(const uint64_t *v, size_t i)
{
    return (int)(v[i / 64] >> (i % 64) & 1);
}
static void bset(uint64_t *v, size_t i, int on)
{
    if (on)
        v[i / 64] |= 1ull << (i % 64);
    else
        v[i / 64] &= ~(1ull << (i % 64));
}

/* The ranks q does not know dead, in ring order; q's position. */
static uint32_t view(const fds_t *x, const fds_state_t *s, uint32_t q,
                     uint32_t *live, uint32_t *me)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < x->P; p++) {
        if (p == q)
            *me = n;
        if (p == q || !(s->known[q] >> p & 1))
            live[n++] = p;
    }
    return n;
}

/* Whether q observes p now (p among the K ranks after q in q's view). */
static int observes(const fds_t *x, const fds_state_t *s, uint32_t q,
                    uint32_t p)
{
    uint32_t live[FDS_MAXP], me = 0, n;
    if (fd_seeded(4)) {
        /* bug: the original successors, dead or not */
        for (uint32_t i = 1; i <= x->K && i < x->P; i++)
            if ((q + i) % x->P == p)
                return 1;
        return 0;
    }
    n = view(x, s, q, live, &me);
    for (uint32_t i = 1; i <= x->K && i < n; i++)
        if (live[(me + i) % n] == p)
            return 1;
    return 0;
}

static int is_neighbour(const fds_t *x, const fds_state_t *s, uint32_t q,
                        uint32_t b)
{
    uint32_t live[FDS_MAXP], me = 0, idx[2 * 33];
    uint32_t n = view(x, s, q, live, &me);
    uint32_t k = fta_bmg_targets(n, me, idx, 2 * 33);
    for (uint32_t i = 0; i < k; i++)
        if (live[idx[i]] == b)
            return 1;
    return 0;
}

/* Whether q forwards what it knows of r (seeded bug 3: only what it
 * declared itself: recorded as bit r of known with r observed). */
static int forwards(const fds_t *x, const fds_state_t *s, uint32_t q,
                    uint32_t r, const uint8_t *declared)
{
    (void)x;
    (void)s;
    if (fd_seeded(3))
        return declared[q] >> r & 1;
    return 1;
}

enum { E_CRASH, E_DETECT, E_FWDALL, E_CRASHMID, E_DELIVER, E_LOSE };
typedef struct fev {
    uint8_t kind, p, r, b;
} fev_t;

/* The notices q has still to send, in its fixed order (failure, then
 * neighbour); returns how many (as (r, b) pairs in out). */
static uint32_t pending(const fds_t *x, const fnode_t *nd, uint32_t q,
                        uint8_t (*out)[2])
{
    const fds_state_t *s = &nd->s;
    uint32_t n = 0, P = x->P;
    for (uint32_t r = 0; r < P; r++) {
        if (!(s->known[q] >> r & 1) || !forwards(x, s, q, r, nd->declared))
            continue;
        for (uint32_t b = 0; b < P; b++)
            if (b != q && !(s->known[q] >> b & 1) &&
                !bget(s->sent, bit(P, q, r, b)) && is_neighbour(x, s, q, b)) {
                out[n][0] = (uint8_t)r;
                out[n][1] = (uint8_t)b;
                n++;
            }
    }
    return n;
}

/*
 * Events.  A process's sends are local steps: the sends of one pass of
 * its flood (fta_fd.c sends every pending notice in one loop) commute
 * with every other process's steps, so a pass is one event (E_FWDALL);
 * what other orders cannot show is a crash in the middle of the pass,
 * hence E_CRASHMID(q, j): q sends its first j pending notices and
 * crashes (an observer dying while it forwards a notice).
 */
static size_t enabled(const fds_t *x, const fnode_t *nd, fev_t *out)
{
    const fds_state_t *s = &nd->s;
    size_t n = 0;
    uint32_t P = x->P;
    uint32_t nalive = (uint32_t)__builtin_popcount(s->alive);
    uint8_t pend[FDS_MAXP * FDS_MAXP][2];
    for (uint32_t q = 0; q < P; q++) {
        if (!(s->alive >> q & 1))
            continue;
        int can_crash = s->crashes < x->max_crash && nalive > 2;
        if (can_crash)
            out[n++] = (fev_t){E_CRASH, (uint8_t)q, 0, 0};
        for (uint32_t p = 0; p < P; p++)
            if (!(s->alive >> p & 1) && !(s->known[q] >> p & 1) &&
                observes(x, s, q, p))
                out[n++] = (fev_t){E_DETECT, (uint8_t)q, (uint8_t)p, 0};
        uint32_t np = pending(x, nd, q, pend);
        if (np)
            out[n++] = (fev_t){E_FWDALL, (uint8_t)q, 0, 0};
        for (uint32_t j = 1; can_crash && j < np; j++)
            out[n++] = (fev_t){E_CRASHMID, (uint8_t)q, (uint8_t)j, 0};
    }
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t r = 0; r < P; r++)
            for (uint32_t b = 0; b < P; b++) {
                if (!bget(s->flight, bit(P, p, r, b)))
                    continue;
                out[n++] =
                    (fev_t){E_DELIVER, (uint8_t)p, (uint8_t)r, (uint8_t)b};
                if (!(s->alive >> p & 1))
                    out[n++] =
                        (fev_t){E_LOSE, (uint8_t)p, (uint8_t)r, (uint8_t)b};
            }
    return n;
}

static void send_first(const fds_t *x, fnode_t *nd, uint32_t q, uint32_t j)
{
    uint8_t pend[FDS_MAXP * FDS_MAXP][2];
    uint32_t np = pending(x, nd, q, pend);
    for (uint32_t i = 0; i < np && i < j; i++) {
        bset(nd->s.sent, bit(x->P, q, pend[i][0], pend[i][1]), 1);
        bset(nd->s.flight, bit(x->P, q, pend[i][0], pend[i][1]), 1);
    }
}

static void apply(const fds_t *x, fnode_t *nd, const fev_t *e)
{
    fds_state_t *s = &nd->s;
    uint32_t P = x->P;
    switch (e->kind) {
    case E_CRASHMID:
        send_first(x, nd, e->p, e->r);
        /* fall through */
    case E_CRASH:
        s->alive &= (uint8_t) ~(1u << e->p);
        s->crashes++;
        break;
    case E_DETECT:
        s->known[e->p] |= (uint8_t)(1u << e->r);
        if (fd_seeded(3))
            nd->declared[e->p] |= (uint8_t)(1u << e->r);
        break;
    case E_FWDALL:
        /* one pass; what it learns later it sends in a later pass */
        send_first(x, nd, e->p, FDS_MAXP * FDS_MAXP);
        break;
    case E_DELIVER:
        bset(s->flight, bit(P, e->p, e->r, e->b), 0);
        if (s->alive >> e->b & 1)
            s->known[e->b] |= (uint8_t)(1u << e->r);
        break;
    case E_LOSE:
        bset(s->flight, bit(P, e->p, e->r, e->b), 0);
        break;
    }
    /* messages to the dead vanish */
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t r = 0; r < P; r++)
            for (uint32_t b = 0; b < P; b++)
                if (!(s->alive >> b & 1))
                    bset(s->flight, bit(P, p, r, b), 0);
}

static uint64_t hash(const fnode_t *nd)
{
    const unsigned char *b = (const unsigned char *)nd;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *nd; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* 1 when new (inserted), 0 when seen, -1 out of memory. */
static int visit(fds_t *x, const fnode_t *nd)
{
    if ((x->n + 1) * 2 > x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 1 << 16;
        fnode_t *t = calloc(cap, sizeof(fnode_t));
        uint8_t *u = calloc(cap, 1);
        if (!t || !u) {
            free(t);
            free(u);
            return -1;
        }
        fnode_t *nt = t, *ot = x->tab;
        for (size_t i = 0; i < x->cap; i++) {
            if (!x->used[i])
                continue;
            size_t j = hash(&ot[i]) & (cap - 1);
            while (u[j])
                j = (j + 1) & (cap - 1);
            nt[j] = ot[i];
            u[j] = 1;
        }
        free(x->tab);
        free(x->used);
        x->tab = t;
        x->used = u;
        x->cap = cap;
    }
    fnode_t *tab = x->tab;
    size_t j = hash(nd) & (x->cap - 1);
    while (x->used[j]) {
        if (!memcmp(&tab[j], nd, sizeof *nd))
            return 0;
        j = (j + 1) & (x->cap - 1);
    }
    tab[j] = *nd;
    x->used[j] = 1;
    x->n++;
    return 1;
}

static void check_final(fds_t *x, const fnode_t *nd)
{
    const fds_state_t *s = &nd->s;
    char why[256] = "";
    for (uint32_t q = 0; q < x->P && !why[0]; q++) {
        if (!(s->alive >> q & 1))
            continue;
        for (uint32_t p = 0; p < x->P && !why[0]; p++) {
            int dead = !(s->alive >> p & 1), known = s->known[q] >> p & 1;
            if (dead && !known)
                snprintf(why, sizeof why,
                         "completeness: survivor %u never learnt that %u "
                         "crashed",
                         q, p);
            else if (!dead && known)
                snprintf(why, sizeof why,
                         "accuracy: survivor %u believes survivor %u dead", q,
                         p);
        }
        int watched = 0;
        for (uint32_t o = 0; o < x->P; o++)
            if (o != q && (s->alive >> o & 1) && observes(x, s, o, q))
                watched = 1;
        if (!why[0] && !watched && __builtin_popcount(s->alive) > 1)
            snprintf(why, sizeof why, "coverage: no survivor observes %u", q);
    }
    x->finals++;
    if (why[0] && !x->violations++) {
        size_t o =
            (size_t)snprintf(x->first, sizeof x->first, "%s; crashed:", why);
        for (uint32_t p = 0; p < x->P && o < sizeof x->first - 8; p++)
            if (!(s->alive >> p & 1))
                o += (size_t)snprintf(x->first + o, sizeof x->first - o, " %u",
                                      p);
    }
}

static void dfs(fds_t *x, const fnode_t *nd)
{
    fev_t ev[1024];
    if (x->err)
        return;
    size_t n = enabled(x, nd, ev);
    if (n > sizeof ev / sizeof ev[0]) {
        x->err = -E2BIG;
        return;
    }
    if (n == 0) {
        check_final(x, nd);
        return;
    }
    for (size_t i = 0; i < n && !x->err; i++) {
        fnode_t c = *nd;
        apply(x, &c, &ev[i]);
        int v = visit(x, &c);
        if (v < 0) {
            x->err = -ENOMEM;
            return;
        }
        if (v)
            dfs(x, &c);
    }
}

int fta_sim_fd_explore(const fta_sim_fd_cfg_t *cfg, fta_sim_fd_result_t *res)
{
    if (!cfg || !res || cfg->P < 2 || cfg->P > FDS_MAXP || cfg->K < 1 ||
        cfg->K >= cfg->P)
        return -EINVAL;
    fds_t x;
    memset(&x, 0, sizeof x);
    x.P = cfg->P;
    x.K = cfg->K;
    x.max_crash = cfg->max_crash;
    fnode_t root;
    memset(&root, 0, sizeof root);
    root.s.alive = (uint8_t)((1u << cfg->P) - 1);
    if (visit(&x, &root) < 0)
        return -ENOMEM;
    dfs(&x, &root);
    memset(res, 0, sizeof *res);
    res->states = x.n;
    res->finals = x.finals;
    res->violations = x.violations;
    memcpy(res->first, x.first, sizeof res->first);
    free(x.tab);
    free(x.used);
    return x.err;
}

/* ---- Large runs: one crash, the notice's flood in rounds. ---- */

int fta_sim_fd_bench(fta_sim_fd_bench_t *b)
{
    if (!b || b->P < 2 || b->K < 1)
        return -EINVAL;
    uint32_t P = b->P, v = b->victim % P;
    uint32_t K = b->K < P - 1 ? b->K : P - 1;
    uint32_t *round = malloc(P * sizeof *round), *idx = NULL;
    uint32_t *front = malloc(P * sizeof *front), *next = NULL;
    if (!round || !front) {
        free(round);
        free(front);
        return -ENOMEM;
    }
    next = malloc(P * sizeof *next);
    idx = malloc(2 * 33 * sizeof *idx);
    if (!next || !idx) {
        free(round);
        free(front);
        free(next);
        free(idx);
        return -ENOMEM;
    }
    /* Steady state: each live rank sends K heartbeats per period. */
    b->hb_per_rank = K;
    /* The observer of the victim (its ring predecessor) declares it;
     * every rank that learns the failure sends the notice to each of its
     * neighbours in the binomial graph of the survivors it knows (the
     * victim excluded), in rounds. */
    uint32_t live = P - 1;
    for (uint32_t p = 0; p < P; p++)
        round[p] = UINT32_MAX;
    uint32_t obs = (v + P - 1) % P;
    round[obs] = 0;
    front[0] = obs;
    uint32_t nf = 1, r = 0, reached = 1;
    uint64_t msgs = 0, maxsent = 0;
    while (nf) {
        uint32_t nn = 0;
        for (uint32_t i = 0; i < nf; i++) {
            uint32_t q = front[i];
            uint32_t me = q < v ? q : q - 1; /* index among survivors */
            uint32_t k = fta_bmg_targets(live, me, idx, 2 * 33);
            msgs += k;
            if (k > maxsent)
                maxsent = k;
            for (uint32_t j = 0; j < k; j++) {
                uint32_t t = idx[j] < v ? idx[j] : idx[j] + 1;
                if (round[t] == UINT32_MAX) {
                    round[t] = r + 1;
                    next[nn++] = t;
                    reached++;
                }
            }
        }
        memcpy(front, next, nn * sizeof *front);
        nf = nn;
        if (nn)
            r++;
    }
    b->notice_msgs = msgs;
    b->notice_max_per_rank = maxsent;
    b->rounds = r;
    b->ok = reached == live;
    free(round);
    free(front);
    free(next);
    free(idx);
    return 0;
}
