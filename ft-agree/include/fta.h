/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fta.h: transport-independent core of ft-agree.
 *
 * One fta_node_t is the protocol engine of one process in one group of
 * `size` processes (ranks 0..size-1).  It is a state machine: the caller
 * feeds it the application's calls (fta_agree_start, fta_revoke), incoming
 * messages (fta_node_recv) and failure notices (fta_node_failed), and the
 * node sends messages through the caller's ops->send callback.  Nothing in
 * here blocks, sleeps, allocates threads or knows about MPI.
 *
 * Agreement: Early Returning Agreement over a k-ary tree of the live
 * members, optionally preceded by a one-exchange fast path for small
 * groups (fta_config_t.fast; see ft-agree/README.md for the protocol and
 * src/fta_core.c for the proof sketches).
 * Revoke: reliable broadcast over a binomial graph of the live members.
 *
 * Errors: functions return 0 (or a documented count/flag) on success and a
 * negative errno-style code on failure; fta_strerror() describes a code.
 *
 * Thread safety: a node is not thread-safe; serialise all calls on a node.
 * Distinct nodes are independent.
 */
#ifndef FTA_H
#define FTA_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FTA_API __attribute__((visibility("default")))
#else
#define FTA_API
#endif

/* Return code of a decision: some process failed that not every
 * participant had acknowledged. */
#define FTA_EPROCFAILED (-EOWNERDEAD)
/* The group was revoked. */
#define FTA_EREVOKED (-ECANCELED)
/* A malformed or foreign message was given to fta_node_recv. */
#define FTA_EPROTO (-EPROTO)

typedef struct fta_node fta_node_t;

/* The outcome of one agreement, identical at every surviving member. */
typedef struct fta_decision {
    int32_t value;    /* bitwise AND of the contributed values */
    int rc;           /* 0 or FTA_EPROCFAILED */
    uint32_t nfailed; /* number of entries in failed[] */
    uint32_t *failed; /* sorted ranks decided failed (malloc'ed) */
    void *ubuf;       /* reduced user buffer (ulen bytes, malloc'ed) */
} fta_decision_t;

typedef struct fta_ops {
    /* Send len bytes to group rank dest.  Must not call back into the node.
     * A non-zero return is ignored (a lost message is treated like a
     * message to a dead process; the protocol tolerates it only if dest
     * is, or will be reported, dead). */
    int (*send)(void *ctx, uint32_t dest, const void *buf, size_t len);
    /* Optional: called once when this node decides instance inst. */
    void (*decided)(void *ctx, uint64_t inst, const fta_decision_t *d);
    /* Optional: called once when the group becomes revoked here. */
    void (*revoked)(void *ctx);
    /* Optional user reduction on ulen-byte buffers: inout = inout (+) in.
     * Must be commutative and associative. */
    void (*reduce)(void *ctx, void *inout, const void *in, size_t len);
    /* Optional (testing): a message for a garbage-collected instance from
     * src was dropped. */
    void (*dropped)(void *ctx, uint32_t src, uint64_t inst);
} fta_ops_t;

typedef struct fta_config {
    uint32_t size;  /* group size, >= 1 */
    uint32_t rank;  /* this member's rank, < size */
    uint32_t arity; /* tree fan-out, >= 2 (0: default 2) */
    size_t ulen;    /* bytes of the user reduction buffer (0: none) */
    /* 1: fast path for small groups: every member first sends its
     * contribution to every other member (P(P-1) messages, one message
     * latency); a member that holds all of them and knows no failure
     * beyond the instance's base decides at once.  A failure, or a tree
     * message, switches a member to the tree protocol, which adopts any
     * fast decision.  0: tree protocol only. */
    int fast;
} fta_config_t;

/* Counters, for tests and benchmarks. */
typedef struct fta_stats {
    uint64_t msgs_sent;
    uint64_t bytes_sent;
    uint64_t ballots;   /* ballot changes (re-collections) seen */
    uint64_t conflicts; /* decisions received that differ from ours */
    uint64_t dropped;   /* messages for collected instances */
    uint64_t fast;      /* instances decided on the fast path here */
} fta_stats_t;

/* Create a node.  Returns 0, -EINVAL or -ENOMEM. */
FTA_API int fta_node_create(const fta_config_t *cfg, const fta_ops_t *ops,
                            void *ctx, fta_node_t **out);
FTA_API void fta_node_destroy(fta_node_t *node);

/*
 * Start the next agreement instance (numbered 1, 2, ... per node) with this
 * member's value, optional user buffer (cfg->ulen bytes, may be NULL when
 * ulen is 0) and the failures it has acknowledged (ranks; each is recorded
 * as failed).  *inst receives the instance number.  Returns 0, -EBUSY when
 * the previous instance is not decided here yet, -EINVAL or -ENOMEM.
 */
FTA_API int fta_agree_start(fta_node_t *node, int32_t value, const void *ubuf,
                            const uint32_t *acked, size_t nacked,
                            uint64_t *inst);

/* 1 and *d filled (release it with fta_decision_release) when instance
 * inst is decided here, 0 when not yet, -ENOENT for an unknown instance. */
FTA_API int fta_agree_test(fta_node_t *node, uint64_t inst, fta_decision_t *d);
FTA_API void fta_decision_release(fta_decision_t *d);

/* Deliver a message from group rank src.  Returns 0 or FTA_EPROTO /
 * -ENOMEM.  Messages from members known failed are ignored. */
FTA_API int fta_node_recv(fta_node_t *node, uint32_t src, const void *buf,
                          size_t len);

/* Report that group rank r failed (idempotent; reports are trusted: a
 * process reported failed is never heard from again). */
FTA_API int fta_node_failed(fta_node_t *node, uint32_t r);

/* Revoke the group (reliable broadcast; idempotent). */
FTA_API int fta_revoke(fta_node_t *node);
FTA_API int fta_is_revoked(const fta_node_t *node);

/* Number of known failed members; copies up to max of them to out. */
FTA_API size_t fta_node_known_failed(const fta_node_t *node, uint32_t *out,
                                     size_t max);
FTA_API int fta_node_is_failed(const fta_node_t *node, uint32_t r);
FTA_API void fta_node_get_stats(const fta_node_t *node, fta_stats_t *st);
/* Lowest instance still kept (older ones are garbage-collected). */
FTA_API uint64_t fta_node_low_water(const fta_node_t *node);

FTA_API const char *fta_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif /* FTA_H */
