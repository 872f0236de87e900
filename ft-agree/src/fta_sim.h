/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta_sim.h: deterministic simulator of the ft-agree core.
 *
 * P simulated processes each run an fta_node_t; the simulator owns the
 * network (messages in flight), the failure notices and the crashes.  A
 * schedule is a sequence of numbered steps; each step is one event:
 * a process starts an agreement instance, a message is delivered, a
 * failure notice reaches a process, a process revokes, or a process
 * crashes, or a message of a crashed process is lost.
 * fta_sim_explore() enumerates schedules depth-first (with sleep-set
 * reduction: orders that differ only by swapping independent steps of two
 * different processes are explored once) and checks after each complete
 * run that every property holds.
 */
#ifndef FTA_SIM_H
#define FTA_SIM_H

#include <stdint.h>
#include <stdio.h>

typedef struct fta_sim_cfg {
    uint32_t P;             /* processes */
    uint32_t arity;         /* tree fan-out */
    uint32_t ninst;         /* agreement instances per run (1..3) */
    uint32_t max_crash;     /* crashes per schedule */
    int all_orders;         /* 1: every delivery order; 0: oldest event first */
    int revoke;             /* 1: the last process revokes at some step */
    uint64_t max_schedules; /* stop after this many (0: no limit) */
    FILE *progress;         /* progress lines, or NULL */
    int fast;               /* the nodes' fast path (fta_config_t.fast) */
} fta_sim_cfg_t;

typedef struct fta_sim_result {
    uint64_t schedules; /* complete runs checked */
    uint64_t steps;     /* events executed (replays included) */
    uint64_t violations;
    int truncated;    /* max_schedules reached */
    char first[1024]; /* first violation and its schedule */
} fta_sim_result_t;

/* Returns 0 (result filled; violations may be non-zero) or -errno. */
int fta_sim_explore(const fta_sim_cfg_t *cfg, fta_sim_result_t *res);

/* One large run, oldest-event-first order: P processes, nfail crashes
 * injected one at a time at the root of the current ballot just before
 * it decides (the costliest point) or at random members (random != 0).
 * Reports messages and rounds (longest causal chain) of the agreement. */
typedef struct fta_sim_bench {
    uint32_t P, arity, nfail;
    int random;
    uint64_t seed;
    uint64_t msgs;                       /* protocol messages sent */
    uint64_t rounds;                     /* causal depth at the last decision */
    uint64_t revoke_msgs, revoke_rounds; /* one revoke, same failures */
    int ok;                              /* all survivors decided the same */
} fta_sim_bench_t;

int fta_sim_bench_run(fta_sim_bench_t *b);

/* The failure detector's rules (ring observation, notices over the
 * binomial graph; src/fta_sim_fd.c): every reachable state of P <= 8
 * processes with up to max_crash crashes, K observers per process. */
typedef struct fta_sim_fd_cfg {
    uint32_t P, K, max_crash;
} fta_sim_fd_cfg_t;
typedef struct fta_sim_fd_result {
    uint64_t states, finals, violations;
    char first[512];
} fta_sim_fd_result_t;
int fta_sim_fd_explore(const fta_sim_fd_cfg_t *cfg, fta_sim_fd_result_t *res);

/* One failure among P processes: the notice's flood, in rounds. */
typedef struct fta_sim_fd_bench {
    uint32_t P, K, victim;
    uint64_t hb_per_rank;         /* heartbeats per rank and period */
    uint64_t notice_msgs;         /* notices sent for the failure */
    uint64_t notice_max_per_rank; /* most notices one rank sent */
    uint64_t rounds;              /* message hops until all knew */
    int ok;                       /* every survivor learnt it */
} fta_sim_fd_bench_t;
int fta_sim_fd_bench(fta_sim_fd_bench_t *b);

#endif /* FTA_SIM_H */
