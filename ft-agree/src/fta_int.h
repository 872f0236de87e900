/* SPDX-License-Identifier: BSD-2-Clause */
/* fta_int.h: internal structures of the ft-agree protocol core. */
#ifndef FTA_INT_H
#define FTA_INT_H

#include <stdint.h>
#include <stddef.h>
#include "fta.h"

#define FTA_WUR    __attribute__((warn_unused_result))
#define FTA_HIDDEN __attribute__((visibility("hidden")))

/* A sorted set of ranks; small (failures are rare). */
typedef struct rset {
    uint32_t *v;
    uint32_t n, cap;
} rset_t;

FTA_HIDDEN int rset_add(rset_t *s, uint32_t x) FTA_WUR;
FTA_HIDDEN int rset_has(const rset_t *s, uint32_t x);
FTA_HIDDEN int rset_union(rset_t *dst, const rset_t *src) FTA_WUR;
FTA_HIDDEN int rset_copy(rset_t *dst, const rset_t *src) FTA_WUR;
FTA_HIDDEN int rset_equal(const rset_t *a, const rset_t *b);
FTA_HIDDEN uint32_t rset_below(const rset_t *s, uint32_t x);
FTA_HIDDEN void rset_free(rset_t *s);

/* Message types on the wire. */
enum {
    FTA_MSG_UP = 1,     /* contribution of a subtree, for a ballot */
    FTA_MSG_DOWN = 2,   /* decision, for a ballot */
    FTA_MSG_QUERY = 3,  /* "a new ballot started: send me your UP" */
    FTA_MSG_REVOKE = 4, /* reliable broadcast of the revocation */
    FTA_MSG_FAST = 5    /* a member's contribution, to every member */
};
/* Ballots: a tree ballot is its root's rank + 1; ballot 0 is the fast
 * path's (lower than every tree ballot). */
#define FTA_BALLOT(root) ((root) + 1u)
#define FTA_MAGIC        0xFA000000u
#define FTA_HDR_LEN      16u

typedef struct fta_dec_int {
    int32_t value;
    int32_t rc;
    rset_t F;
    unsigned char *ubuf;
} dec_t;

/* A (partial) aggregate of contributions. */
typedef struct fta_agg {
    int has;         /* at least one contribution merged */
    int32_t value;   /* AND of values */
    uint32_t minack; /* min over contributors of #acknowledged failures */
    rset_t F;        /* union of known failures */
    unsigned char *ubuf;
    int has_dec; /* some member had decided: the highest ballot wins */
    uint32_t bdec;
    dec_t dec;
} agg_t;

typedef struct slot {
    uint32_t child;
    agg_t agg;
} slot_t;

typedef struct inst {
    uint64_t id;
    rset_t E; /* base: members excluded by earlier decisions */
    int contributed;
    agg_t own;
    uint32_t ballot; /* promise: rank of the root of the current ballot */
    int active;      /* gathering in the current ballot */
    slot_t *slots;
    uint32_t nslots, capslots;
    int sent;
    uint32_t sent_to;
    uint64_t gen, sent_gen;
    int decided;
    dec_t dec;
    uint32_t done_ballot; /* ballot whose decision we hold */
    int fast;             /* in the fast phase (tree protocol dormant) */
    int fast_sent;        /* our contribution went to every member */
    rset_t fgot;          /* members whose fast contribution arrived */
    agg_t fagg;           /* their aggregate */
    struct inst *next;
} inst_t;

typedef struct pend {
    uint32_t src;
    uint64_t inst;
    size_t len;
    struct pend *next;
    unsigned char buf[];
} pend_t;

struct fta_node {
    fta_config_t cfg;
    fta_ops_t ops;
    void *ctx;
    rset_t dead;         /* every failure known here (trusted) */
    uint64_t next_start; /* next instance the application starts */
    uint64_t lwm;        /* instances below are collected */
    inst_t *insts;       /* sorted by id */
    pend_t *pend;
    int revoked;
    rset_t rv_sent;
    fta_stats_t st;
    unsigned char *scratch; /* encode buffer */
    size_t scratch_cap;
};

/* Tree helpers (fta_tree.c). */
FTA_HIDDEN uint32_t fta_rank_of(const rset_t *E, uint32_t idx);
FTA_HIDDEN uint32_t fta_view_root(const fta_node_t *n, const inst_t *I);
FTA_HIDDEN int fta_view_parent(const fta_node_t *n, const inst_t *I, uint32_t p,
                               uint32_t *parent);
FTA_HIDDEN int fta_view_children(const fta_node_t *n, const inst_t *I,
                                 uint32_t p, rset_t *out) FTA_WUR;
FTA_HIDDEN int fta_bmg_neighbors(const fta_node_t *n, rset_t *out) FTA_WUR;
FTA_HIDDEN uint32_t fta_bmg_targets(uint32_t live, uint32_t me, uint32_t *out,
                                    uint32_t max);

/* Wire helpers (fta_wire.c). */
typedef struct wbuf {
    unsigned char *p;
    size_t len, cap;
    int err;
} wbuf_t;
typedef struct rbuf {
    const unsigned char *p;
    size_t len, off;
    int err;
} rbuf_t;
FTA_HIDDEN void wb_u32(wbuf_t *w, uint32_t x);
FTA_HIDDEN void wb_u64(wbuf_t *w, uint64_t x);
FTA_HIDDEN void wb_bytes(wbuf_t *w, const void *b, size_t n);
FTA_HIDDEN uint32_t rb_u32(rbuf_t *r);
FTA_HIDDEN uint64_t rb_u64(rbuf_t *r);
FTA_HIDDEN const unsigned char *rb_bytes(rbuf_t *r, size_t n);
FTA_HIDDEN void fta_enc_agg(wbuf_t *w, const agg_t *a, size_t ulen);
FTA_HIDDEN int fta_dec_agg(rbuf_t *r, agg_t *a, size_t ulen,
                           uint32_t size) FTA_WUR;
FTA_HIDDEN void fta_enc_dec(wbuf_t *w, const dec_t *d, size_t ulen);
FTA_HIDDEN int fta_dec_dec(rbuf_t *r, dec_t *d, size_t ulen,
                           uint32_t size) FTA_WUR;
FTA_HIDDEN void fta_agg_clear(agg_t *a);
FTA_HIDDEN void fta_dec_clear(dec_t *d);
FTA_HIDDEN int fta_dec_copy(dec_t *dst, const dec_t *src, size_t ulen) FTA_WUR;
FTA_HIDDEN int fta_dec_equal(const dec_t *a, const dec_t *b, size_t ulen);
FTA_HIDDEN int fta_agg_merge(const fta_node_t *n, agg_t *dst,
                             const agg_t *src) FTA_WUR;

/* The state machine (fta_core.c). */
/* Free an instance and everything it owns. */
FTA_HIDDEN void fta_inst_free(inst_t *I);
FTA_HIDDEN inst_t *fta_inst_find(const fta_node_t *n, uint64_t id);
/* A new instance id whose base excludes E. */
FTA_HIDDEN int fta_inst_create(fta_node_t *n, uint64_t id,
                               const rset_t *E) FTA_WUR;
/* Record that r failed; *dirty is set when that changes something. */
FTA_HIDDEN int fta_note_dead(fta_node_t *n, uint32_t r, int *dirty) FTA_WUR;
/* Take one protocol message of src. */
FTA_HIDDEN int fta_handle_msg(fta_node_t *n, uint32_t src, const void *buf,
                              size_t len, int *dirty) FTA_WUR;
/* Bring every instance up to date with what the node knows; repeat until
 * nothing changes. */
FTA_HIDDEN int fta_settle(fta_node_t *n, int dirty) FTA_WUR;
/* Deep copy of a node with another callback context (simulator only;
 * fta_clone.c). */
FTA_HIDDEN int fta_node_clone(const fta_node_t *n, void *ctx,
                              fta_node_t **out) FTA_WUR;
#endif /* FTA_INT_H */
