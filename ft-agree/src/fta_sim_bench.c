/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_sim_bench.c: large simulator runs for the benchmark (fta-sim
 * bench): oldest-first delivery, O(1) per event, no exploration.
 */
#include <stdlib.h>
#include <string.h>
#include "fta.h"
#include "fta_sim.h"
#include "fta_int.h"
#include "fta_sim_int.h"

/* ---- Large runs for the benchmark: oldest-first, O(1) per event. ---- */

static uint32_t min_alive(const sim_t *s)
{
    for (uint32_t p = 0; p < s->P; p++)
        if (s->alive[p])
            return p;
    return 0;
}

static void bench_crash(sim_t *s, uint32_t v)
{
    /* Messages to the victim vanish when delivered (alive check); its own
     * messages in flight are kept. */
    s->alive[v] = 0;
    s->ncrash++;
    for (uint32_t q = 0; q < s->P; q++) {
        if (!s->alive[q])
            continue;
        if (s->nnt == s->capnt) {
            size_t cap = s->capnt ? s->capnt * 2 : 1024;
            notice_t *nv = realloc(s->nt, cap * sizeof *nv);
            if (!nv) {
                fta_sim_fail(s, "out of memory");
                return;
            }
            s->nt = nv;
            s->capnt = cap;
        }
        s->nt[s->nnt++] = (notice_t){s->seq++, q, v};
    }
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Run events oldest first until nothing is left; crash victims as the
 * delivery count passes the thresholds. */
static void bench_drain(sim_t *s, const uint64_t *at, const uint32_t *who,
                        uint32_t nat, uint64_t *delivered)
{
    size_t mh = 0, nh = 0;
    uint32_t next = 0;
    while (!s->bad && (mh < s->nm || nh < s->nnt)) {
        while (next < nat && *delivered >= at[next]) {
            uint32_t v = who[next] == UINT32_MAX ? min_alive(s) : who[next];
            if (s->alive[v] && s->ncrash + 1 < s->P)
                bench_crash(s, v);
            next++;
        }
        int take_msg =
            mh < s->nm && (nh >= s->nnt || s->m[mh].seq < s->nt[nh].seq);
        if (take_msg) {
            smsg_t m = s->m[mh++];
            (*delivered)++;
            if (s->alive[m.dst]) {
                if (m.depth > s->clock[m.dst])
                    s->clock[m.dst] = m.depth;
                fta_sim_node_rc(
                    s, m.dst,
                    fta_node_recv(s->node[m.dst], m.src, m.buf, m.len), "recv");
            }
            free(m.buf);
            s->m[mh - 1].buf = NULL;
        } else {
            notice_t t = s->nt[nh++];
            if (s->alive[t.q])
                fta_sim_node_rc(s, t.q, fta_node_failed(s->node[t.q], t.p),
                                "failed");
        }
        if (mh > 4096 && mh * 2 > s->nm) {
            memmove(s->m, s->m + mh, (s->nm - mh) * sizeof *s->m);
            s->nm -= mh;
            mh = 0;
        }
        if (nh > 4096 && nh * 2 > s->nnt) {
            memmove(s->nt, s->nt + nh, (s->nnt - nh) * sizeof *s->nt);
            s->nnt -= nh;
            nh = 0;
        }
    }
    s->nm = s->nnt = 0;
}

int fta_sim_bench_run(fta_sim_bench_t *b)
{
    if (!b || b->P < 1 || b->nfail >= b->P)
        return -EINVAL;
    fta_sim_cfg_t cfg = {b->P, b->arity, 1, b->nfail, 0, 0, 0, NULL, 0};
    sim_t *s = calloc(1, sizeof *s);
    uint64_t *at = calloc(b->nfail + 1, sizeof *at);
    uint32_t *who = calloc(b->nfail + 1, sizeof *who);
    int rc = -ENOMEM;
    if (!s || !at || !who)
        goto out;
    if ((rc = fta_sim_init(s, &cfg)) < 0)
        goto out;
    uint64_t x = b->seed ? b->seed : 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < b->nfail; i++) {
        if (b->random) {
            at[i] = rng_next(&x) % (2ull * b->P);
            who[i] = (uint32_t)(rng_next(&x) % b->P);
        } else {
            /* The root, during the UP phase, one after the other. */
            at[i] = (uint64_t)(i + 1) * (b->P - 1) / (b->nfail + 1);
            who[i] = UINT32_MAX;
        }
    }
    for (uint32_t i = 1; b->random && i < b->nfail; i++)
        for (uint32_t j = i; j > 0 && at[j] < at[j - 1]; j--) {
            uint64_t t = at[j];
            at[j] = at[j - 1];
            at[j - 1] = t;
        }
    for (uint32_t p = 0; p < b->P; p++)
        fta_sim_apply(s, &(ev_t){EV_START, p, 1, 0});
    uint64_t delivered = 0;
    bench_drain(s, at, who, b->nfail, &delivered);
    b->msgs = 0;
    b->rounds = 0;
    b->ok = !s->bad;
    sdec_t *ref = NULL;
    for (uint32_t p = 0; p < b->P; p++) {
        fta_stats_t st;
        fta_node_get_stats(s->node[p], &st);
        b->msgs += st.msgs_sent;
        if (!s->alive[p])
            continue;
        sdec_t *d = D(s, p, 1);
        if (!d->decided || (ref && d->value != ref->value))
            b->ok = 0;
        ref = d;
        if (s->clock[p] > b->rounds)
            b->rounds = s->clock[p];
    }
    /* One revoke by the highest live member. */
    uint32_t r = b->P - 1;
    while (r > 0 && !s->alive[r])
        r--;
    for (uint32_t p = 0; p < b->P; p++)
        s->clock[p] = 0;
    uint64_t before = 0, after = 0;
    for (uint32_t p = 0; p < b->P; p++) {
        fta_stats_t st;
        fta_node_get_stats(s->node[p], &st);
        before += st.msgs_sent;
    }
    fta_sim_apply(s, &(ev_t){EV_REVOKE, r, 0, 0});
    bench_drain(s, NULL, NULL, 0, &delivered);
    b->revoke_rounds = 0;
    for (uint32_t p = 0; p < b->P; p++) {
        fta_stats_t st;
        fta_node_get_stats(s->node[p], &st);
        after += st.msgs_sent;
        if (s->alive[p] && !s->revoked[p])
            b->ok = 0;
        if (s->alive[p] && s->clock[p] > b->revoke_rounds)
            b->revoke_rounds = s->clock[p];
    }
    b->revoke_msgs = after - before;
    b->ok &= !s->bad;
    rc = 0;
out:
    if (s) {
        fta_sim_free(s);
        free(s);
    }
    free(at);
    free(who);
    return rc;
}
