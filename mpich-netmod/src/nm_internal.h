/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nm_internal.h: shared definitions of libmpideleg (client shim and
 * delegatee loop).
 *
 * Roles: the real MPI_COMM_WORLD is cut into delegatee groups of
 * boards_per_deleg * board_size + 1 consecutive ranks (the last group may be
 * shorter); the last rank of each group is its delegatee, the others are
 * clients.  Clients see a communicator of the clients only as
 * MPI_COMM_WORLD.  Point-to-point on a communicator whose members sit on
 * more than one board is carried by the delegatees, which run the one
 * matching engine for it; everything else goes straight to MPICH.
 */
#ifndef NM_INTERNAL_H
#define NM_INTERNAL_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "deleg.h"

#define NM_INLINE 128 /* payload bytes carried in the request record */
#define NM_CLAIMS 960 /* claim words in a doorbell page */

/* Operations handed to the delegatee (libdeleg op ids). */
enum {
    NM_OP_HELLO = 1,
    NM_OP_SEND = 2,
    NM_OP_RECV = 3,
    NM_OP_IPROBE = 4,
    NM_OP_IMPROBE = 5,
    NM_OP_MRECV = 6,
    NM_OP_CANCEL = 7,
    NM_OP_FIN = 8,
    /* PiP form, through the turns' direct call only: a standard send of
     * at most NM_INLINE contiguous bytes (arg: its nm_short_t) */
    NM_OP_SEND_SHORT = 9,
};

/* A short standard send handed over in one call (NM_OP_SEND_SHORT): no
 * record; the bytes are read during the call. */
typedef struct {
    const void *buf;
    uint64_t len; /* <= NM_INLINE */
    uint32_t ctx;
    int32_t peer; /* world rank */
    int32_t tag;
} nm_short_t;

enum {
    NM_F_SYNC = 1u << 0,
    NM_F_INLINE = 1u << 1,
    NM_F_SPLIT = 1u << 2,
    NM_F_LOCAL = 1u << 3, /* buffered mode: completes without the receiver */
    NM_F_CMA = 1u << 4,   /* NM_F_SPLIT: the payload stays in the sender's
                             buffer (hdr.addr) until the receiving side pulls
                             it or asks the sender to push it */
    NM_F_SPIN = 1u << 5,  /* record only: its client waits for it spinning
                             (a blocking call, poll policy), never asleep */
    NM_F_CPULL = 1u << 6  /* NM_F_CMA in the process form: the payload is in
                             the sending client's process (hdr.cpid) */
};

/* The pull of a receive record (process form, NM_F_CPULL): the receiving
 * delegatee offers the copy to its client, which reads the payload straight
 * from the sending client's buffer (one process_vm_readv) when it finishes
 * the receive; a client that does not come in time (computing, or in
 * another MPI call) leaves it to the delegatee, which takes it over. */
enum {
    NM_PULL_NONE = 0,
    NM_PULL_OFFER = 1,   /* offered: the client may claim it */
    NM_PULL_CLIENT = 2,  /* claimed by the client, copying */
    NM_PULL_DELEG = 3,   /* taken over by the delegatee, copying */
    NM_PULL_DONE = 4,    /* the client copied (pull_err): the delegatee ends
                            the sender's send */
    NM_PULL_RELEASED = 5 /* the delegatee is done with the record */
};

/*
 * One request record, in the region's shared heap: the client fills the
 * parameters, the delegatee writes the outcome and then sets the flag,
 * waking the client when it sleeps on it.
 */
typedef struct nm_rec {
    dlg_flag_t fl;  /* completion flag (libdeleg): set by the delegatee */
    uint32_t ctx;   /* communicator context id */
    int32_t peer;   /* world rank of dest / source, -1 any */
    int32_t tag;    /* tag, -1 any */
    uint32_t flags; /* NM_F_* */
    uint64_t addr;  /* user buffer (client address space) */
    uint64_t len;   /* bytes to send / receive capacity */
    uint64_t arg;   /* message id (MRECV), record offset (CANCEL),
                       pid (HELLO) */
    /* outcome */
    int32_t err;    /* MPI error class, 0 = success */
    int32_t st_src; /* world rank of the matched sender */
    int32_t st_tag;
    int32_t cancelled;
    int32_t found;     /* IPROBE/IMPROBE: a message matched */
    int32_t rr;        /* the delegatee's: claim slot + 1 of the announcement
                          of this posted receive (0: none) */
    uint64_t st_count; /* bytes delivered / probed */
    /* NM_PULL_*: the receive's payload, st_count bytes at pull_addr in
     * process pull_pid, for r->addr (process form) */
    _Atomic uint32_t pull;
    int32_t pull_pid;
    uint64_t pull_addr;
    int32_t pull_err;
    int32_t pull_pad;
    char inl[NM_INLINE];
} nm_rec_t;

/* Header of a message between delegatees (and of queued messages). */
typedef struct {
    uint32_t ctx;
    int32_t src, dst, tag;
    uint64_t size;
    uint32_t flags;
    int32_t ack_d;  /* delegatee (dcomm rank) that waits for a sync ack */
    uint64_t token; /* its record pointer */
    int32_t ptag;   /* NM_F_SPLIT: the payload follows on its own, with this
                       tag on the delegatees' payload communicator */
    uint32_t seq;   /* messages from src to dst between two delegatees,
                       numbered from 1 */
    uint64_t addr;  /* NM_F_CMA: the payload's address in the sending
                       delegatee's process (NM_F_CPULL: client's, cpid) */
    int32_t cpid;   /* NM_F_CPULL: the sending client's process */
    int32_t pad;
} nm_hdr_t;

/* Claims of announced receives (NM_F_CMA), in the user area of the
 * receiving delegatee's doorbell (libdeleg's dlg_bell_t, which its clients
 * and the other delegatees map): the receiving delegatee arms a word as
 * (generation << 2).  The sending delegatee claims it with a
 * compare-and-swap to (generation << 2) | 2 and pushes the data; the
 * receiving one, to fill the receive itself (pull, another message,
 * cancel), retires it with a compare-and-swap to the next generation,
 * after which a stale claim of the sender fails. */
_Static_assert(NM_CLAIMS * sizeof(uint32_t) <= DLG_BELL_USER,
               "the claim words fit a doorbell's user area");
static inline _Atomic uint32_t *nm_claims(dlg_bell_t *b)
{
    return (_Atomic uint32_t *)dlg_bell_user(b);
}

/* Layout of the job (from the environment). */
typedef struct {
    int world_size, world_rank;
    int board_size;       /* MPIDELEG_BOARD_SIZE: clients per board */
    int boards_per_deleg; /* MPIDELEG_BOARDS_PER_DELEGATEE */
    int group;            /* board_size * boards_per_deleg + 1 */
    int is_deleg;
    /* MPIDELEG_OVERSUBSCRIBED (by default: the ranks of this node outnumber
     * its CPUs): waits for sends whose data the peer pulls sleep instead of
     * spinning, leaving the CPU to the thread that moves the other end */
    int oversub;
    /* MPIDELEG_CMA_MIN: PiP form, split messages of at least this many bytes
     * between two processes move by one process_vm_readv/writev, done by
     * whichever side waits (0: MPIDELEG_CMA=off, MPI carries them) */
    uint64_t cma_min;
    /* MPIDELEG_CMA: who moves such a payload (NM_CMA_*) */
    int cma_mode;
} nm_layout_t;

enum { NM_CMA_AUTO, NM_CMA_PULL, NM_CMA_PUSH, NM_CMA_OFF };

/* Communicator record of the client shim. */
typedef struct nm_comm {
    MPI_Comm handle;
    int delegated;
    uint32_t ctx;
    int size;
    int *world;      /* comm rank -> world rank */
    MPI_Comm shadow; /* partitioned traffic (nm_comm_shadow), or NULL */
    void *coll;      /* hierarchical collectives (nm_coll.c), or NULL */
    struct nm_comm *next;
} nm_comm_t;

/* ---- layout (nm_init.c) ---- */
extern nm_layout_t nm_lay;
extern int nm_active;                 /* the shim is on (clients only) */
extern MPI_Comm nm_app_world;         /* the clients' communicator */
int nm_deleg_of(int world_rank);      /* world rank of its delegatee */
int nm_board_of(int world_rank);      /* global board index, -1: delegatee */
int nm_dcomm_rank_of(int world_rank); /* delegatee index of a world rank */

/* ---- communicators (nm_init.c) ---- */
MPI_Comm nm_xl(MPI_Comm c);
/* A peer of this rank died: give the launcher NM_DEAD_GRACE_MS to end
 * the job (after an MPI_Abort or a rank's death it kills every rank)
 * before this rank reports it. */
#define NM_DEAD_GRACE_MS 3000
void nm_dead_grace(void);
/* Appended to the one-line message about a bad MPIDELEG_* value: the
 * class of the error, and what happens (nm_setup: every rank finalizes
 * and exits with status 2). */
#define NM_ENV_CLASS " (MPI_ERR_ARG: MPI_Init ends the job with status 2)"
/* Record the one-line message about a bad setting (printed once for the
 * job by MPI_Init). */
void nm_env_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
nm_comm_t *nm_comm_find(MPI_Comm c);
int nm_comm_delegated(MPI_Comm c);
int nm_comm_register(MPI_Comm newcomm);
void nm_comm_forget(MPI_Comm c);
int nm_comm_rank_of_world(const nm_comm_t *c, int world);
MPI_Comm nm_comm_shadow(MPI_Comm c); /* same members, a context of its own */
/* context id bit of a shadow record: its tags carry the partitioned
 * request's pairing number above the user's tag (nm_persist.c) */
#define NM_CTX_PART 0x80000000u
/* a private handle with c's members and context id | bit (delegated) */
MPI_Comm nm_comm_alias(nm_comm_t *c, uint32_t bit);

/* ---- errors (nm_init.c) ---- */
int nm_error(MPI_Comm comm, int code);
int nm_refuse(MPI_Comm comm, const char *what);
int nm_errno_to_mpi(int neg_errno);
extern int nm_code_deleg_dead;
void nm_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nm_log_usage(const char *who);
MPI_Errhandler nm_quiet_begin(void); /* world: MPI_ERRORS_RETURN for now */
void nm_quiet_end(MPI_Errhandler saved);

/* ---- progress (nm_init.c) ---- */
void nm_mpi_progress(void); /* one pass of MPICH's progress engine */
/* move running nonblocking collectives (what nm_coll.c registered with
 * nm_coll_progress_set, nm_base.h) */
void nm_coll_progress(void);

/* ---- client side (nm_client.c) ---- */
int nm_client_start(MPI_Comm wcomm);
int nm_client_stop(void);
nm_rec_t *nm_rec_get(void);
void nm_rec_put(nm_rec_t *r);
int nm_post(unsigned op, nm_rec_t *r);
int nm_post_async(unsigned op, nm_rec_t *r);
void nm_rec_pull(nm_rec_t *r);
/* Process form: a blocking standard send carried in its record returns
 * once handed over (1: the record is the client's link's now, 0: wait for
 * it as usual); the first error such a send met, once (MPI_SUCCESS). */
int nm_send_defer(nm_rec_t *r);
int nm_send_deferred_err(void);
/* PiP form: short standard sends go to the delegatee's code in one call
 * (nm_send_short) */
extern int nm_short_direct;
int nm_send_short(const void *buf, size_t len, uint32_t ctx, int peer, int tag);
/* Wait for r to complete; MPICH's progress every (mpi_mask + 1)-th round */
int nm_rec_wait(nm_rec_t *r, dlg_policy_t policy, unsigned mpi_mask);
int nm_spin_round(unsigned k, unsigned mpi_mask); /* one round of a wait */
uint64_t nm_rec_off(const nm_rec_t *r);
/* PiP form: run a turn of our delegatee's work (the work done; -1: another
 * thread has the turn; -2: no turns, the process form) */
int nm_turn(void);
/* one look of a poll function: a turn, a yield when it was not ours or
 * every `every`-th call (dlg_poll_round) */
int nm_poll_round(unsigned k, unsigned every);
void nm_wait_enter(void); /* PiP form: this thread spins running turns */
void nm_wait_leave(void);
extern dlg_policy_t nm_policy_blocking, nm_policy_nonblocking;
/* MPIDELEG_PLACE=pair (the default of the process form with ranks sharing
 * CPUs): bind to the CPU of our group; 1 when bound (nm_init.c) */
int nm_pair_bind(void);

/* ---- point-to-point (nm_p2p.c) ---- */
int nm_tag_ub(void); /* MPI_TAG_UB of the world */
/* size of dt, and whether it is a named type without holes (sent as it
 * lies); MPI_ERR_TYPE for a null or invalid type */
int nm_dt_info(MPI_Datatype dt, int *size, int *contig);
/* a private copy of MPI_COMM_SELF: a message to ourselves copies, packs
 * or unpacks any datatype at any address (MPI_BOTTOM too) */
MPI_Comm nm_self_comm(void);
int nm_greq_get_status(MPI_Request request, int *flag, MPI_Status *status);
int nm_greq_running(MPI_Request request);
int nm_greq_wait(MPI_Request request); /* MPI_Wait: ours, if delegated */

/* ---- matched probes (nm_probe.c) ---- */
int nm_msg_ours(MPI_Message m); /* taken by MPI_Mprobe on a delegated comm */

/* ---- persistent requests (nm_persist.c) ---- */
void nm_pers_finalize(void);

/* ---- Isendrecv, _c bindings (nm_sendrecv.c) ---- */
int nm_pair_running(MPI_Request request); /* a running Isendrecv request */
void nm_pair_progress(MPI_Request request);

/* ---- collectives (nm_coll.c) ---- */
extern int nm_coll_hier; /* MPIDELEG_COLL=hier */
int nm_coll_env(void);   /* read MPIDELEG_COLL; -1 (message printed) if bad */
int nm_coll_register(nm_comm_t *c); /* collective over c's members */
void nm_coll_forget(nm_comm_t *c);
void nm_coll_finalize(void);

/* ---- delegatee (nm_deleg.c) ---- */
void nm_delegatee_main(MPI_Comm wcomm, MPI_Comm dcomm)
    __attribute__((noreturn));

#endif /* NM_INTERNAL_H */
