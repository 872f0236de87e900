/* SPDX-License-Identifier: BSD-2-Clause */
/* fta_sim_int.h: the simulator's state, shared by the exhaustive checker
 * (fta_sim.c) and the large benchmark runs (fta_sim_bench.c). */
#ifndef FTA_SIM_INT_H
#define FTA_SIM_INT_H

#include <stddef.h>
#include <stdint.h>
#include "fta.h"
#include "fta_sim.h"

enum { EV_START = 1, EV_DELIVER, EV_NOTICE, EV_CRASH, EV_REVOKE, EV_LOSE };

typedef struct ev {
    uint8_t kind;
    uint32_t a, b; /* process(es) or counts, by kind */
    uint64_t seq;  /* message or notice number */
} ev_t;

typedef struct smsg {
    uint64_t seq;
    uint32_t src, dst, depth;
    size_t len;
    unsigned char *buf;
} smsg_t;

typedef struct notice {
    uint64_t seq;
    uint32_t q, p; /* q learns that p failed */
} notice_t;

typedef struct sdec {
    int started, decided;
    int32_t value;
    int rc;
    uint32_t nF;
    uint32_t *F;
} sdec_t;

struct sim;
typedef struct sproc {
    struct sim *s;
    uint32_t p;
} sproc_t;

typedef struct sim {
    const fta_sim_cfg_t *cfg;
    uint32_t P, ninst;
    fta_node_t **node;
    sproc_t *proc;
    uint8_t *alive, *revoked;
    uint32_t *clock;
    uint32_t ncrash;
    int revoke_done;
    smsg_t *m;
    size_t nm, capm;
    notice_t *nt;
    size_t nnt, capnt;
    uint64_t seq;
    sdec_t *dec;  /* P * ninst */
    uint32_t cur; /* process being stepped (sender of messages) */
    uint64_t steps;
    int bad;
    char why[512];
} sim_t;

/* Process p's record of instance k (from 1). */
static inline sdec_t *D(sim_t *s, uint32_t p, uint32_t k)
{
    return &s->dec[(size_t)p * s->ninst + (k - 1)];
}

/* The first failure of a run is kept in s->why; later ones only count. */
void fta_sim_fail(sim_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void fta_sim_node_rc(sim_t *s, uint32_t p, int rc, const char *what);
int fta_sim_init(sim_t *s, const fta_sim_cfg_t *cfg);
void fta_sim_free(sim_t *s);
void fta_sim_apply(sim_t *s, const ev_t *e); /* run one event */

#endif /* FTA_SIM_INT_H */
