/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dlg_internal.h: layout of a delegation region and shared helpers.
 *
 * Everything inside the region is addressed by offsets, never pointers,
 * because each process maps the region at its own address.
 */
#ifndef DLG_INTERNAL_H
#define DLG_INTERNAL_H

#include "deleg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define DLG_HIDDEN  __attribute__((visibility("hidden")))
#define DLG_LINE    64
#define DLG_MAGIC   0x444c4752454731ULL /* "DLGREG1" */
#define DLG_VERSION 1u

/* Region header written by dlg_region_create (first line of the mapping). */
struct dlg_region_hdr {
    uint64_t size;
    uint32_t flags;
    uint32_t pad;
};

struct dlg_region {
    void *base;
    size_t size;
    unsigned flags;
    int fd;
    int owner;
    dlg_region_kind_t kind;
    char spec[96];
    char shm_name[64];
    char addr_spec[64]; /* "addr:BASE:SIZE" of this mapping */
    int borrowed;       /* opened by "addr:": not ours to unmap */
};

/* Delegatee states (dlg_hdr.dg_state). */
enum { DG_NONE = 0, DG_RUNNING = 1, DG_STOPPED = 2, DG_DEAD = 3 };
/* Client slot states (dlg_cblk.state). */
enum {
    CS_FREE = 0,
    CS_CLAIMED = 1,
    CS_ACTIVE = 2,
    CS_DETACHED = 3,
    CS_DEAD = 4
};

/*
 * Ring descriptor: one cache line.  `seq` is written last (release) and is
 * dlg_seq(ticket) of the request; continuation slots carrying
 * inline payload have seq 0 and 60 payload bytes.
 */
struct dlg_desc {
    _Atomic uint32_t seq;
    uint8_t op;
    uint8_t nargs;
    uint8_t mode;   /* dlg_bufmode_t in bits 0-3, DLG_BUF_IN/OUT << 4 */
    uint8_t nslots; /* header + continuation slots */
    uint64_t buf;   /* address (LOCAL/XPROC), heap offset (HEAP) */
    uint64_t len;
    uint64_t args[DLG_MAX_ARGS];
};
_Static_assert(sizeof(struct dlg_desc) == DLG_LINE, "descriptor size");
#define DLG_CONT_BYTES (DLG_LINE - 4)

/*
 * Completion record: one cache line.  `cw` is the completion word:
 * dlg_done_mark(ticket) when done, bit 0 says the client sleeps on it.
 */
struct dlg_compl {
    _Atomic uint32_t cw;
    uint32_t pad0;
    int64_t result;
    uint32_t rlen;
    uint32_t pad1;
    uint8_t reply[DLG_REPLY_MAX];
};
_Static_assert(sizeof(struct dlg_compl) == DLG_LINE, "completion size");

/* Per-client block: state line, delegatee line, ring, completions. */
struct dlg_cblk {
    _Alignas(DLG_LINE) _Atomic uint32_t state;
    int32_t pid;
    uint32_t same_as;
    uint32_t gen;
    pthread_mutex_t life; /* locked by the client's thread while attached */
    _Alignas(DLG_LINE) uint64_t tail; /* delegatee-owned */
    _Alignas(DLG_LINE) char ring_start[];
};

/* The delegation header at the start of the region's usable space. */
struct dlg_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t futex_private;
    uint64_t size;
    uint32_t max_clients;
    uint32_t slots;
    uint64_t inline_max;
    uint64_t cblk_off;   /* offset of client block 0 */
    uint64_t cblk_size;  /* bytes per client block */
    uint64_t heap_off;   /* 0: no heap */
    uint64_t heap_share; /* heap bytes per client */
    int32_t dg_pid;
    uint32_t pad;
    _Alignas(DLG_LINE) _Atomic uint8_t op_policy[DLG_MAX_OPS]; /* 0: none */
    /* Written by clients (wake) and the delegatee (sleep). */
    _Alignas(DLG_LINE) _Atomic uint32_t doorbell;
    _Atomic uint32_t sleeping;
    _Alignas(DLG_LINE) _Atomic uint32_t dg_state;
    pthread_mutex_t dg_life; /* locked by the delegatee's thread */
};

/* Delegatee's view of one request, handed to handlers. */
struct dlg_req {
    struct dlg_delegatee *dg;
    int client;
    unsigned op;
    unsigned nargs;
    unsigned mode;
    unsigned dir;
    uint64_t args[DLG_MAX_ARGS];
    uint64_t buf;
    size_t len;
    void *ptr;
    pid_t pid;
    struct dlg_compl * compl ;
    uint32_t rlen;
};

struct dlg_op {
    dlg_handler_fn fn;
    void *ctx;
};

struct dlg_delegatee {
    dlg_region_t *r;
    struct dlg_hdr *h;
    dlg_delegatee_attr_t attr;
    _Atomic int idle; /* dlg_policy_t; may change while running */
    uint64_t spin_ns;
    uint64_t live_ns;
    uint64_t next_live_check;
    uint64_t sweeps;
    pthread_t owner; /* thread that holds dg_life */
    _Atomic int stop;
    struct dlg_op ops[DLG_MAX_OPS];
    uint8_t *stage; /* inline payload staging, inline_max bytes */
    dlg_stats_t st;
};

struct dlg_client {
    dlg_region_t *r;
    struct dlg_hdr *h;
    struct dlg_cblk *cb;
    struct dlg_desc *ring;
    struct dlg_compl * compl ;
    int index;
    uint32_t slots;
    uint64_t head;  /* next ticket */
    uint64_t low;   /* oldest ticket whose slots are not yet free */
    void *consumed; /* struct slotinfo per slot (dlg_client.c) */
    uint64_t spin_ns;
    uint64_t live_ns;
    int dead; /* cached: delegatee gone (negative errno) */
    /* Shared heap share: [heap, heap + heap_size) */
    uint8_t *heap;
    size_t heap_size;
    int heap_ready;
};

/* Layout helpers. */
static inline struct dlg_cblk *dlg_cblk_at(struct dlg_hdr *h, unsigned i)
{
    return (struct dlg_cblk *)((char *)h + h->cblk_off +
                               (uint64_t)i * h->cblk_size);
}
static inline struct dlg_desc *dlg_cblk_ring(struct dlg_cblk *cb)
{
    return (struct dlg_desc *)cb->ring_start;
}
static inline struct dlg_compl *dlg_cblk_compl(struct dlg_cblk *cb,
                                               uint32_t slots)
{
    return (struct dlg_compl *)(cb->ring_start +
                                (size_t)slots * sizeof(struct dlg_desc));
}
/* Sequence word of ticket t's descriptor: never 0 (the value of a reset or
 * continuation slot), and different from the value one lap earlier. */
static inline uint32_t dlg_seq(uint64_t ticket)
{
    return (uint32_t)(ticket % 0xffffffffu) + 1;
}
/* Completion word of ticket t when done: bits 1..31, never 0. */
static inline uint32_t dlg_done_mark(uint64_t ticket)
{
    return (uint32_t)((ticket % 0x7fffffffu) + 1) << 1;
}

/* dlg_wait.c: time, futexes, waiting, environment. */
/* dlg_now_ns, dlg_cpu_relax, dlg_futex_wait/wake: public (deleg.h) */
DLG_HIDDEN int dlg_env_policy(const char *name, dlg_policy_t dflt,
                              dlg_policy_t *out);
DLG_HIDDEN int dlg_env_uint(const char *name, uint64_t dflt, uint64_t min,
                            uint64_t max, uint64_t *out);
DLG_HIDDEN int dlg_spin_bound_env(uint64_t *out);
/* -EINVAL (its complaint printed once) when PVAS_LOG is bad, else 0. */
DLG_HIDDEN int dlg_env_log(void);
DLG_HIDDEN void dlg_log(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* Check a robust "life" mutex owned by a peer: 0 alive, -EOWNERDEAD died,
 * -ENOTCONN released normally. */
DLG_HIDDEN int dlg_life_check(pthread_mutex_t *m);
DLG_HIDDEN int dlg_life_init(pthread_mutex_t *m);

/* Counters are written by the serving thread only and may be read by any
 * thread: relaxed atomic accesses keep both sides well defined. */
#define DLG_STAT_ADD(dg, f, v)                                                 \
    __atomic_store_n(&(dg)->st.f, (dg)->st.f + (v), __ATOMIC_RELAXED)

/* Spin iterations between yields in the poll policy. */
#define DLG_POLL_YIELD_EVERY 256

#endif /* DLG_INTERNAL_H */
